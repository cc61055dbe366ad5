"""An analysis folder, what ``taldau analyze`` writes and everything else reads (``annotate`` from a stored
analysis, books, the report, the CLI's summary): its layout, its manifest with the settings it names, and
readers of its two tables at every schema version still on disk. ``taldau.workers.store`` is its one writer
(it adds the parts of a run in progress, under a lock: see there).

Layout::

    manifest.json                           the settings, schema versions, the last run's counts, failures
                                            and inputs, the folder's totals, and the files of its tables
                                            with their rows (``Manifest``, ``ManifestTables``)
    moves/<settings key>.<g>-00000.parquet  the decisions (``taldau.schemas.moves``) of generation g
    games/<settings key>.<g>-00000.parquet  the games (``taldau.schemas.games``) of generation g

A folder holds the results of one settings key (a run of other settings is refused). Its tables are the
files its manifest lists: each compaction writes a new generation of both tables beside the old one, then
switches both at once by replacing the manifest (one rename), then removes the old generation; an
interruption at any point (a full disk, SIGKILL, power) leaves the manifest naming the old consistent
generation or the new one, never a mix. Folders written before the manifest listed its files hold
``<settings key>-00000.parquet`` files, read as the manifest's totals count them. Files written by an
earlier taldau read as today's schema: a column their version lacks reads as null, and ``moves`` read as
version 7 names and counts them whatever the version (``schemas.moves.as_current``: ``ply`` from 1, the
renamed columns, ``drop``).

Every reader goes through ``open_folder``, which checks the folder first (``AnalysisFolder.check``): each
table's files there, readable, and holding the rows the manifest records; an interrupted first run, an
inconsistent or a damaged folder is a FolderError that says what to run.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from taldau.schemas import (
    GAMES_SCHEMA,
    GAMES_SCHEMA_VERSION,
    MOVES_SCHEMA,
    MOVES_SCHEMA_VERSION,
    RENAMED_IN_7,
    Status,
    as_current,
)

from .accounting import Inputs

MANIFEST = "manifest.json"
TABLES = ("moves", "games")
SCHEMAS = {"moves": MOVES_SCHEMA, "games": GAMES_SCHEMA}


class FolderError(ValueError):
    """A path that is not an analysis folder, or a folder that cannot be read: the message names it and
    says what is wrong."""


def schema_versions() -> dict[str, str]:
    """The versions of the ``moves`` and ``games`` tables this taldau writes."""
    return {"moves": MOVES_SCHEMA_VERSION, "games": GAMES_SCHEMA_VERSION}


@dataclass(frozen=True)
class Counts:
    """The ``games`` rows of some games by status, their ``plies`` (``moves`` rows), and how many of
    those were ``judged`` each way (the ``moves`` column: backgammon's ``2-ply``, and ``3-ply`` or
    ``rollout, 648 trials`` for the decisions in doubt a level settled again; empty for Togyz)."""

    games: int = 0
    ok: int = 0
    invalid: int = 0
    failed: int = 0
    plies: int = 0
    judged: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, games: pa.Table, moves: pa.Table) -> Counts:
        """The counts of ``games`` rows and of their ``moves`` rows."""
        statuses = games.column("status").to_pylist()
        judged: dict[str, int] = {}
        if "judged" in moves.column_names:
            for entry in pc.value_counts(moves.column("judged").drop_null()).to_pylist():
                judged[entry["values"]] = entry["counts"]
        return cls(
            games=games.num_rows,
            ok=statuses.count(Status.OK),
            invalid=statuses.count(Status.INVALID),
            failed=statuses.count(Status.FAILED),
            plies=moves.num_rows,
            judged=dict(sorted(judged.items())),
        )

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Counts:
        return cls(**{name: data[name] for name in cls.__dataclass_fields__ if name in data})


@dataclass(frozen=True)
class Failure:
    """A game of the run that is not ``ok``: where it is, its status and why."""

    source: str
    index: int
    status: str
    error: str | None


@dataclass(frozen=True)
class Skipped:
    """A valid game of another kind than the run's, not analysed."""

    source: str
    index: int
    reason: str


@dataclass(frozen=True)
class FolderSettings:
    """The settings a folder's results were made with, as the run's ``BatchSettings.record()`` made them
    and its manifest names them, in one typed shape from the run to the manifest and back (``to_json``,
    ``from_json``): the ``game``, the engine's search for the run's limit as text (``limit``: the search
    is the engine's own, a Togyz depth or a backgammon level of review), the marks' ``thresholds``, the
    ``engine``'s version (its name, version and weights) and its short name (``engine_name``: own, gnubg,
    sage; None in folders written before it was stored), and the table ``schemas``' versions. ``key``
    names the results: the same settings give the same key on any machine. ``game`` is "" in a manifest
    that names none (a folder reader refuses it: ``Manifest.folder_settings``)."""

    game: str
    limit: str = ""
    thresholds: tuple[float, ...] = ()
    engine: str = ""
    engine_name: str | None = None
    schemas: dict[str, str] = field(default_factory=dict)

    @property
    def engine_label(self) -> str:
        """The engine as people read it: ``sage (bgsage 2.0... weights ...)``, its name and its version
        (the version alone where the name is not stored or is the version)."""
        version = self.engine or "an unknown engine"
        name = self.engine_name
        return f"{name} ({version})" if name and name != version else version

    @property
    def key(self) -> str:
        """The settings key: a digest of every setting the results depend on (the engine's short name
        left out: its version, in ``engine``, implies it)."""
        keyed = {name: value for name, value in self.to_json().items() if name != "engine_name"}
        return hashlib.sha256(json.dumps(keyed, sort_keys=True).encode()).hexdigest()[:12]

    def to_json(self) -> dict[str, Any]:
        """The settings as the manifest's ``settings`` holds them (``schemas`` and ``engine_name`` where
        known: an older manifest without them writes back as it was)."""
        schemas = {"schemas": dict(self.schemas)} if self.schemas else {}
        named = {} if self.engine_name is None else {"engine_name": self.engine_name}
        return {
            "game": self.game,
            "limit": self.limit,
            "thresholds": list(self.thresholds),
            "engine": self.engine,
            **schemas,
            **named,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> FolderSettings:
        """The settings of a manifest, as this taldau or an earlier one wrote them (what an older one did not
        store reads as empty)."""
        return cls(
            game=str(data.get("game", "")),
            limit=str(data.get("limit", "")),
            thresholds=tuple(data.get("thresholds") or ()),
            engine=str(data.get("engine", "")),
            engine_name=data.get("engine_name"),
            schemas=dict(data.get("schemas") or {}),
        )


@dataclass(frozen=True)
class ManifestTables:
    """The files of a folder's two tables (``moves``, ``games``), as names within their table's folder,
    their ``generation`` (each compaction writes the next) and the ``rows`` each table holds in all."""

    generation: int
    files: dict[str, tuple[str, ...]]
    rows: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "generation": self.generation,
            "files": {name: list(self.files[name]) for name in TABLES},
            "rows": {name: self.rows[name] for name in TABLES},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ManifestTables:
        files, rows = data["files"], data["rows"]
        return cls(
            generation=int(data["generation"]),
            files={name: tuple(str(item) for item in files[name]) for name in TABLES},
            rows={name: int(rows[name]) for name in TABLES},
        )


@dataclass(frozen=True)
class Manifest:
    """What ``manifest.json`` holds: the settings ``key`` and the ``settings`` it names
    (``BatchSettings.record()``), the ``schemas`` versions, the last ``run``'s id, its games' ``counts``,
    ``failures`` and ``skipped`` games, its ``inputs`` (with the games ``analysed`` and ``failed`` among the
    valid ones), the ``folder``'s counts of every game stored under the key, other runs' too, and the
    ``tables``' files (None in folders written before they were listed: ``folder_stored`` then says whether
    the folder's counts were stored, as its tables' rows, or are the run's own)."""

    key: str
    settings: FolderSettings
    run: str
    counts: Counts
    failures: tuple[Failure, ...]
    skipped: tuple[Skipped, ...]
    inputs: Inputs
    folder: Counts
    schemas: dict[str, str] = field(default_factory=schema_versions)
    tables: ManifestTables | None = None
    folder_stored: bool = True

    @property
    def folder_settings(self) -> FolderSettings:
        """The settings; FolderError when they name no game."""
        if not self.settings.game:
            raise FolderError("its manifest names no game")
        return self.settings

    def to_json(self) -> dict[str, Any]:
        found = self.inputs.to_json()
        head = {"files": found.pop("files"), "games": found.pop("games")}
        return {
            "key": self.key,
            "settings": self.settings.to_json(),
            "schemas": self.schemas,
            "run": self.run,
            "counts": self.counts.to_json(),
            "failures": [asdict(failure) for failure in self.failures],
            "skipped": [asdict(game) for game in self.skipped],
            "inputs": {**head, "analysed": self.counts.ok, "failed": self.counts.failed, **found},
            "folder": {"counts": self.folder.to_json()},
            **({} if self.tables is None else {"tables": self.tables.to_json()}),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Manifest:
        """A manifest as stored, by this taldau or an earlier one (what an older one did not store reads
        as empty); ValueError when it is not one (a JSON file of another program's)."""
        if not isinstance(data, dict) or not isinstance(data.get("key"), str):
            raise ValueError("it names no settings key")
        if not isinstance(data.get("settings"), dict):
            raise ValueError("it holds no settings")
        counts = Counts.from_json(data.get("counts") or {})
        stored = (data.get("folder") or {}).get("counts")
        return cls(
            key=str(data.get("key", "")),
            settings=FolderSettings.from_json(data["settings"]),
            run=str(data.get("run", "")),
            counts=counts,
            failures=tuple(Failure(**failure) for failure in data.get("failures", [])),
            skipped=tuple(Skipped(**game) for game in data.get("skipped", [])),
            inputs=Inputs.from_json(data.get("inputs") or {}),
            folder=Counts.from_json(stored or asdict(counts)),
            schemas=dict(data.get("schemas") or {}),
            tables=ManifestTables.from_json(data["tables"]) if data.get("tables") else None,
            folder_stored=bool(stored),
        )

    def text(self) -> str:
        """The manifest as its file holds it."""
        return json.dumps(self.to_json(), indent=2, ensure_ascii=False) + "\n"


def manifest_file(folder: str | Path) -> Path:
    """Where a folder's manifest is."""
    return Path(folder) / MANIFEST


def read_manifest(folder: str | Path) -> Manifest | None:
    """The manifest of ``folder``, None where it has none; FolderError when it cannot be read."""
    path = manifest_file(folder)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as error:
        raise FolderError(f"{folder}: cannot read {MANIFEST}: {error}") from None
    try:
        return Manifest.from_json(json.loads(text))
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        raise FolderError(f"{path}: not a manifest taldau wrote: {error}") from None


def table_file(key: str, generation: int, number: int) -> str:
    """The name of file ``number`` of a table of settings key ``key`` in ``generation``."""
    return f"{key}.{generation}-{number:05d}.parquet"


def own_table_file(key: str, name: str) -> bool:
    """Whether ``name``, in a table's folder, is a file of that table of settings key ``key`` as taldau
    names them (of any generation, or of the layout before generations)."""
    return re.fullmatch(rf"{re.escape(key)}(\.\d+)?-\d{{5}}\.parquet", name) is not None


def table_files(folder: Path, key: str, manifest: Manifest | None, table: str) -> list[Path]:
    """The files of ``table`` of settings key ``key`` in ``folder``, in order: those ``manifest`` lists, or
    in a folder written before it listed them (or with no manifest yet), those of the key's name."""
    if manifest is not None and manifest.key == key and manifest.tables is not None:
        return [folder / table / name for name in manifest.tables.files[table]]
    return sorted((folder / table).glob(f"{key}-*.parquet"))


def _parts(folder: Path) -> Path:
    return folder / "parts"


def is_analysis_folder(path: str | Path) -> bool:
    """Whether ``path`` is an analysis folder: its manifest and its two tables' folders, or the parts of a
    first run that has not finished (stopped, or still running)."""
    folder = Path(path)
    if manifest_file(folder).is_file() and all((folder / name).is_dir() for name in TABLES):
        return True
    return _interrupted(folder) > 0


def _interrupted(folder: Path) -> int:
    """How many parts of ``games`` rows a run left in ``folder`` (0 when it has none)."""
    return sum(1 for _ in _parts(folder).glob("*/games/part-*.parquet"))


def _rerun(folder: Path) -> str:
    return f"run the same `taldau analyze ... --out {folder}` again to finish it"


@dataclass(frozen=True)
class AnalysisFolder:
    """An analysis folder opened for reading (``open_folder``): where it is, its manifest and its settings."""

    path: Path
    manifest: Manifest
    settings: FolderSettings

    @property
    def key(self) -> str:
        return self.manifest.key

    def files(self, table: str) -> list[Path]:
        """The files of ``table`` (``moves`` or ``games``) of the folder's settings key, in order: those
        its manifest lists, or in a folder written before it listed them, those of the key's name."""
        if table not in TABLES:
            raise ValueError(f"an analysis folder has the tables {TABLES}, not {table!r}")
        return table_files(self.path, self.key, self.manifest, table)

    def check(self) -> None:
        """FolderError, saying what to run, unless each table's files are there, readable as Parquet, and
        hold the rows the manifest records (for a folder written before it listed its files: its totals,
        where stored); a run's parts left beside them are named too (a run stopped before it compacted)."""
        listed = self.manifest.tables
        rows = {name: 0 for name in TABLES}
        for name in TABLES:
            for path in self.files(name):
                rows[name] += self._metadata(path).num_rows
        if listed is not None:
            expected = listed.rows
        elif self.manifest.folder_stored:
            expected = {"games": self.manifest.folder.games, "moves": self.manifest.folder.plies}
        else:
            return
        if rows == expected:
            return
        said = ", ".join(
            f"{name}/ {rows[name]:,} rows where it records {expected[name]:,}" for name in TABLES
        )
        waiting = _interrupted(self.path)
        fix = (
            _rerun(self.path)
            if waiting or listed is None
            else "its files were changed by something else: analyse the archive again into a new --out folder"
        )
        raise FolderError(
            f"{self.path}: inconsistent analysis folder ({said}: a run stopped while writing it); {fix}"
        )

    def _metadata(self, path: Path) -> pq.FileMetaData:
        """A table file's Parquet metadata; FolderError when it is missing or damaged."""
        try:
            return pq.read_metadata(path)
        except FileNotFoundError:
            raise FolderError(
                f"{self.path}: {path.relative_to(self.path)} is missing (changed while being read, or "
                f"removed): {_rerun(self.path)}, or read it again once that run has finished"
            ) from None
        except (OSError, pa.ArrowException) as error:
            raise damaged(path, error) from None

    def table(self, name: str, columns: list[str] | None = None) -> pa.Table:
        """Every row of table ``name`` (``moves`` or ``games``) as today's schema has them (only
        ``columns``, where given): a column a file's version lacks reads as null, and ``moves``' plies
        count from 1. FolderError when a file is missing or damaged."""
        schema = _schema(name, columns)
        tables = [table for path in self.files(name) for table in self._read(path, name, schema)]
        return pa.concat_tables(tables) if tables else schema.empty_table()

    def batches(self, name: str, columns: list[str] | None = None, rows: int = 65_536) -> Iterator[pa.Table]:
        """The rows of table ``name`` as ``table`` has them, in order, a batch of at most ``rows`` at a
        time (memory bounded by a batch, not by the table). FolderError when a file is missing or
        damaged."""
        schema = _schema(name, columns)
        for path in self.files(name):
            yield from self._read(path, name, schema, rows)

    def _read(self, path: Path, name: str, schema: pa.Schema, rows: int | None = None) -> Iterator[pa.Table]:
        """The rows of one file of table ``name`` as ``schema`` has them, all at once or ``rows`` at a
        time; only the columns asked that the file has are read."""
        try:
            found = pq.read_schema(path).names
            wanted = set(schema.names) if name == "games" else _moves_columns(schema.names, found)
            read = [column for column in found if column in wanted]
            if rows is None:
                parts: Iterator[Any] = iter([pq.read_table(path, columns=read)])
            else:
                parts = pq.ParquetFile(path).iter_batches(batch_size=rows, columns=read)
            for part in parts:
                table = part if isinstance(part, pa.Table) else pa.Table.from_batches([part])
                yield _conform(table if name == "games" else as_current(table), schema)
        except FileNotFoundError:
            self._metadata(path)  # says it is missing
            raise
        except (OSError, pa.ArrowException) as error:
            raise damaged(path, error) from None

    def rows(self, name: str, columns: list[str] | None = None) -> list[dict[str, Any]]:
        """``table(name, columns)`` as dicts, one per row."""
        return self.table(name, columns).to_pylist()


def damaged(path: Path, error: BaseException) -> FolderError:
    """The error of a table file that cannot be read as Parquet: one line naming it and what to do."""
    why = str(error).splitlines()[0] if str(error) else type(error).__name__
    return FolderError(
        f"{path}: damaged Parquet file ({why}); this analysis folder cannot be read: analyse the archive "
        "again into a new --out folder"
    )


def _schema(name: str, columns: list[str] | None) -> pa.Schema:
    """Table ``name``'s schema, of only ``columns`` where given."""
    return SCHEMAS[name] if columns is None else pa.schema([SCHEMAS[name].field(c) for c in columns])


_NAMED_BEFORE_7 = {today: before for before, today in RENAMED_IN_7.items()}
# What a file before version 7 computes ``drop`` of (``as_current``), by its names then.
_DROP_OF = ("side", "win_chance_before", "win_chance_after", "match_id", "loss")


def _moves_columns(names: list[str], found: list[str]) -> set[str]:
    """The columns to read of a ``moves`` file that has the columns ``found`` for today's ``names``: those
    names, or their names before version 7, and what an older file computes ``drop`` of."""
    wanted = set(names) | {_NAMED_BEFORE_7[name] for name in names if name in _NAMED_BEFORE_7}
    if "drop" in names and "drop" not in found:
        wanted |= set(_DROP_OF)
    return wanted


def _conform(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """A table read from one file, as today's version names its columns, as ``schema`` has it: each
    column cast to the schema's type, a column it lacks as nulls."""
    columns = [
        table.column(item.name).cast(item.type)
        if item.name in table.column_names
        else pa.nulls(table.num_rows, item.type)
        for item in schema
    ]
    return pa.Table.from_arrays(columns, schema=schema.remove_metadata())


def open_folder(path: str | Path) -> AnalysisFolder:
    """The analysis folder at ``path``, checked (``AnalysisFolder.check``); FolderError (naming it and what
    to run) when it is not one, its first run has not finished, its manifest cannot be read or names no
    game, or its tables are inconsistent or damaged."""
    folder = Path(path)
    manifest = read_manifest(folder) if manifest_file(folder).is_file() else None
    if manifest is None or not all((folder / name).is_dir() for name in TABLES):
        if _interrupted(folder):
            raise FolderError(
                f"{folder}: a `taldau analyze` run into it has not finished (its results wait in "
                f"{_parts(folder)}/, not yet compacted): {_rerun(folder)}"
            )
        raise FolderError(f"{folder}: not a `taldau analyze` output folder ({MANIFEST}, moves/, games/)")
    try:
        settings = manifest.folder_settings
    except FolderError as error:
        raise FolderError(f"{folder}: {error}") from None
    opened = AnalysisFolder(folder, manifest, settings)
    opened.check()
    return opened
