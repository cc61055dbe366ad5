"""Where results go: per-game Parquet parts written atomically, compacted at the end, and a manifest.

Layout of an output directory::

    parts/<settings key>/moves/part-<game id>.parquet   one file per game, written by whoever analysed it
    parts/<settings key>/games/part-<game id>.parquet
    moves/<settings key>-00000.parquet                  compacted, sorted by game and ply, zstd
    games/<settings key>-00000.parquet                  compacted, sorted by source and index
    manifest.json                                       settings, engine, schema versions, counts, failures

A part is written to a temporary name that does not end in ``.parquet`` (readers' globs skip it), synced
and renamed: a game analysed twice (a redelivered task) overwrites its part instead of duplicating it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from taldau.schemas import GAMES_SCHEMA, MOVES_SCHEMA, games_table

ROWS_PER_FILE = 500_000


class SettingsMismatch(Exception):
    """The output directory holds results of other settings."""


def _write_atomic(table: pa.Table, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    pq.write_table(table, temporary, compression="zstd")
    with open(temporary, "rb") as handle:
        os.fsync(handle.fileno())
    os.replace(temporary, path)


class ResultStore:
    """The results of one settings key in an output directory."""

    def __init__(self, out: str | Path, key: str) -> None:
        self.out = Path(out)
        self.key = key
        self.parts = self.out / "parts" / key

    def check_settings(self) -> None:
        """Raise SettingsMismatch when the directory's manifest names another settings key."""
        manifest = self.out / "manifest.json"
        if manifest.exists():
            previous = json.loads(manifest.read_text(encoding="utf-8")).get("key")
            if previous not in (None, self.key):
                raise SettingsMismatch(
                    f"{self.out} holds results of other settings ({previous}); use another --out directory"
                )

    def _part(self, table: str, identity: str) -> Path:
        return self.parts / table / f"part-{identity}.parquet"

    def done(self, identity: str) -> bool:
        """Whether the game is analysed: both parts stored (a failed game has no moves part, so a rerun
        tries it again)."""
        return self._part("games", identity).exists() and self._part("moves", identity).exists()

    def write(self, identity: str, moves: pa.Table | None, row: dict[str, Any]) -> None:
        """Store one game: its moves (if any), then its games row, each atomically."""
        if moves is not None:
            _write_atomic(moves, self._part("moves", identity))
        _write_atomic(games_table([row]), self._part("games", identity))

    def compact(
        self, settings: dict[str, Any], skipped: list[dict[str, Any]] | None = None
    ) -> dict[str, Any]:
        """Merge the parts into sorted files and write the manifest; returns the manifest.

        Temporary files left by an interrupted writer are removed: every game's part is complete by now.
        """
        for leftover in self.parts.glob("*/.part-*.tmp"):
            leftover.unlink()
        games = self._read("games", GAMES_SCHEMA).sort_by([("source", "ascending"), ("index", "ascending")])
        moves = self._read("moves", MOVES_SCHEMA).sort_by([("game_id", "ascending"), ("ply", "ascending")])
        for name, table in (("games", games), ("moves", moves)):
            folder = self.out / name
            folder.mkdir(parents=True, exist_ok=True)
            for stale in folder.glob(f"{self.key}-*.parquet"):
                stale.unlink()
            for number, start in enumerate(range(0, max(table.num_rows, 1), ROWS_PER_FILE)):
                _write_atomic(table.slice(start, ROWS_PER_FILE), folder / f"{self.key}-{number:05d}.parquet")
        statuses = games.column("status").to_pylist()
        failures = [
            {"source": row["source"], "index": row["index"], "status": row["status"], "error": row["error"]}
            for row in games.select(["source", "index", "status", "error"]).to_pylist()
            if row["status"] != "ok"
        ]
        manifest = {
            "key": self.key,
            "settings": settings,
            "schemas": {
                "moves": MOVES_SCHEMA.metadata[b"taldau.schema_version"].decode(),
                "games": GAMES_SCHEMA.metadata[b"taldau.schema_version"].decode(),
            },
            "counts": {
                "games": games.num_rows,
                "ok": statuses.count("ok"),
                "invalid": statuses.count("invalid"),
                "failed": statuses.count("failed"),
                "plies": moves.num_rows,
            },
            "failures": failures,
            "skipped": skipped or [],
        }
        text = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
        temporary = self.out / ".manifest.json.tmp"
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, self.out / "manifest.json")
        return manifest

    def _read(self, name: str, schema: pa.Schema) -> pa.Table:
        files = sorted((self.parts / name).glob("part-*.parquet"))
        tables: Iterable[pa.Table] = (pq.read_table(path, schema=schema) for path in files)
        return pa.concat_tables([schema.empty_table(), *tables])
