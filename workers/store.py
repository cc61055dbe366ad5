"""Where results go: per-game Parquet parts written atomically, compacted at the end, and a manifest.

Layout of an output directory::

    parts/<settings key>/moves/part-<task id>.parquet   one file per task (a game, or a backgammon match),
    parts/<settings key>/games/part-<task id>.parquet   written by whoever analysed it; an invalid game's
                                                        row is a part of its own, named by its game id
    moves/<settings key>-00000.parquet                  compacted, sorted by game and ply, zstd
    games/<settings key>-00000.parquet                  compacted, sorted by source and index
    manifest.json                                       settings, schema versions, the last run's counts
                                                        and failures, and the folder's totals
    .lock                                               held while compacting and writing the manifest

A part is written to a temporary name that does not end in ``.parquet`` (readers' globs skip it) and names
its writer (host, process id and a random tag), synced and renamed: a game analysed twice (a redelivered
task) overwrites its part instead of duplicating it, and two writers never share a temporary file. The
client makes the part folders before any task is sent; a writer never creates them, so a worker that does
not see the output folder (another machine's mount, a deleted folder) writes nothing.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from taldau.games.files import temporary_writer, write_text_atomic
from taldau.schemas import GAMES_SCHEMA, MOVES_SCHEMA, GameRow, Status, games_table
from taldau.schemas.files import write_atomic

ROWS_PER_FILE = 500_000
TABLES = ("games", "moves")
STALE_TEMPORARY = 24 * 3_600  # seconds: a temporary file of another host older than this has no live writer


class SettingsMismatch(Exception):
    """The output directory holds results of other settings."""


def _writer_alive(temporary: Path) -> bool:
    """Whether the writer named in a temporary file's name may still be writing it: a process of this host
    that still exists, or any writer of another host while the file is younger than STALE_TEMPORARY."""
    writer = temporary_writer(temporary)
    if writer is None:  # not one of ours (or an older layout): leave it alone
        return True
    host, number = writer
    if host != socket.gethostname():
        try:
            return time.time() - temporary.stat().st_mtime < STALE_TEMPORARY
        except FileNotFoundError:
            return False
    try:
        os.kill(number, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


@contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """Hold the output folder's lock (an exclusive ``flock`` on ``folder/.lock``)."""
    with open(folder / ".lock", "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


@dataclass(frozen=True)
class RunRecord:
    """What a run contributes to the manifest: its id, the games it was given, and the games it skipped."""

    id: str
    game_ids: frozenset[str]
    skipped: tuple[dict[str, Any], ...] = ()


def _counts(games: pa.Table, plies: int) -> dict[str, int]:
    statuses = games.column("status").to_pylist()
    return {
        "games": games.num_rows,
        "ok": statuses.count(Status.OK),
        "invalid": statuses.count(Status.INVALID),
        "failed": statuses.count(Status.FAILED),
        "plies": plies,
    }


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

    def prepare(self) -> None:
        """Make the part folders (the client does, before any task is sent)."""
        for table in TABLES:
            (self.parts / table).mkdir(parents=True, exist_ok=True)

    def visible(self) -> bool:
        """Whether the part folders exist here (a worker that does not see them must not write)."""
        return all((self.parts / table).is_dir() for table in TABLES)

    def part(self, table: str, identity: str) -> Path:
        """The part file of one task (or one invalid game) in ``games`` or ``moves``."""
        return self.parts / table / f"part-{identity}.parquet"

    def done(self, identity: str) -> bool:
        """Whether the task is analysed: both parts stored (a failed task has no moves part, so a rerun
        tries it again)."""
        return self.part("games", identity).exists() and self.part("moves", identity).exists()

    def stored(self, identity: str) -> dict[str, Any] | None:
        """The status (``ok`` unless a game of it is not) and plies of the task's stored ``games`` rows,
        None when it has none."""
        try:
            rows = pq.read_table(self.part("games", identity), columns=["status", "plies"]).to_pylist()
        except FileNotFoundError:
            return None
        status = next((row["status"] for row in rows if row["status"] != Status.OK), Status.OK)
        return {"task": identity, "status": str(status), "plies": sum(row["plies"] for row in rows)}

    def missing(self, identity: str, status: str) -> list[Path]:
        """The parts a task stored with ``status`` should have and that are not here."""
        tables = TABLES if status == Status.OK else ("games",)
        return [path for path in (self.part(table, identity) for table in tables) if not path.exists()]

    def write(self, identity: str, moves: pa.Table | None, rows: list[GameRow]) -> None:
        """Store one task: its moves (if any), then its games rows, each atomically."""
        if moves is not None:
            write_atomic(moves, self.part("moves", identity))
        write_atomic(games_table(rows), self.part("games", identity))

    def compact(self, settings: dict[str, Any], run: RunRecord) -> dict[str, Any]:
        """Merge the parts into sorted files and write the manifest, holding the folder's lock; returns
        the manifest.

        ``counts``, ``failures`` and ``skipped`` describe the run's own games (those it was given, analysed
        now or before); ``folder`` holds the totals of every game stored under this key, other runs' too.
        Temporary files are removed only when their writer is gone (see ``_writer_alive``).
        """
        with _locked(self.out):
            for leftover in self.parts.glob("*/.part-*.tmp"):
                if not _writer_alive(leftover):
                    leftover.unlink(missing_ok=True)
            games = self._read("games", GAMES_SCHEMA).sort_by(
                [("source", "ascending"), ("index", "ascending")]
            )
            moves = self._read("moves", MOVES_SCHEMA).sort_by(
                [("game_id", "ascending"), ("ply", "ascending")]
            )
            for name, table in (("games", games), ("moves", moves)):
                folder = self.out / name
                folder.mkdir(exist_ok=True)
                for stale in folder.glob(f"{self.key}-*.parquet"):
                    stale.unlink()
                for number, start in enumerate(range(0, max(table.num_rows, 1), ROWS_PER_FILE)):
                    write_atomic(
                        table.slice(start, ROWS_PER_FILE), folder / f"{self.key}-{number:05d}.parquet"
                    )
            ids = pa.array(sorted(run.game_ids), pa.string())
            own = games.filter(pc.is_in(games.column("game_id"), value_set=ids))
            own_plies = pc.sum(pc.is_in(moves.column("game_id"), value_set=ids).cast(pa.int64())).as_py()
            failures = [
                {
                    "source": row["source"],
                    "index": row["index"],
                    "status": row["status"],
                    "error": row["error"],
                }
                for row in own.select(["source", "index", "status", "error"]).to_pylist()
                if row["status"] != Status.OK
            ]
            manifest = {
                "key": self.key,
                "settings": settings,
                "schemas": {
                    "moves": MOVES_SCHEMA.metadata[b"taldau.schema_version"].decode(),
                    "games": GAMES_SCHEMA.metadata[b"taldau.schema_version"].decode(),
                },
                "run": run.id,
                "counts": _counts(own, own_plies or 0),
                "failures": failures,
                "skipped": list(run.skipped),
                "folder": {"counts": _counts(games, moves.num_rows)},
            }
            text = json.dumps(manifest, indent=2, ensure_ascii=False) + "\n"
            write_text_atomic(text, self.out / "manifest.json")
        return manifest

    def _read(self, name: str, schema: pa.Schema) -> pa.Table:
        files = sorted((self.parts / name).glob("part-*.parquet"))
        tables: Iterable[pa.Table] = (pq.read_table(path, schema=schema) for path in files)
        return pa.concat_tables([schema.empty_table(), *tables])
