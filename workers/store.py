"""Where results go: per-task Parquet parts written atomically, compacted at the end, and a manifest. The
store is the one writer of an analysis folder, whose layout and manifest ``taldau.analysis.folder`` owns
(and through which everything else reads it).

Layout of an output directory::

    parts/<settings key>/moves/part-<task id>.parquet   one file per task (a game, or a backgammon match),
    parts/<settings key>/games/part-<task id>.parquet   written by the run's client; an invalid game's
                                                        row is a part of its own, named by its game id
    parts/<settings key>/{moves,games}/part-round-<random>.parquet
                                                        the tasks a Celery client collected in one round,
                                                        together (its ``games`` rows name their tasks)
    moves/<settings key>.<g>-00000.parquet              compacted, sorted by game and ply, zstd (generation g)
    games/<settings key>.<g>-00000.parquet              compacted, sorted by source and index
    manifest.json                                       settings, schema versions, the last run's counts,
                                                        failures and inputs, the folder's totals, and the
                                                        files of the generation its tables are
    .lock                                               exists only while compacting (or reading the
                                                        compacted files for a task) and is then removed

A part is written by the run's client (the one writer of the folder: workers hand their rows back to it,
local processes and Celery workers alike) to a temporary name that does not end in ``.parquet`` (readers'
globs skip it) and names its writer (host, process id and a random tag), synced and renamed: a game
analysed twice (a redelivered task) overwrites its part instead of duplicating it, and two clients on one
folder never share a temporary file. A round's parts have names of their own: a game in two parts (a task
run again after it failed) counts as the newer part says. The client makes the output folder and the part
folders as it writes a part (a run that stores nothing makes nothing), each time: another client's
compaction may have removed them.

Compaction merges the parts into a new generation of the compacted files (a part's games replace the rows
of the same games stored before, and of the older parts: a task analysed again), switches both tables to it
by writing the manifest (one rename: the folder is the old generation or the new, never a mix), then removes
the old generation and the parts it merged, under the folder's lock. The compacted files are then the
record of what is done: a resumed run skips the tasks whose rows there are ``ok`` (and those whose parts
say so, from a run not compacted yet). Parts written meanwhile (another run's client writing into the same
folder) stay for the next compaction; the part folders are removed when they are empty (one that is not,
with a part or a temporary file of another client's in it, stays), and a client about to write in one
makes it again.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import secrets
import shutil
import socket
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from taldau.analysis.accounting import Inputs, Unused
from taldau.analysis.folder import (
    TABLES,
    Counts,
    Failure,
    FolderError,
    FolderSettings,
    Manifest,
    ManifestTables,
    Skipped,
    damaged,
    manifest_file,
    own_table_file,
    read_manifest,
    table_file,
    table_files,
)
from taldau.base.files import temporary_writer, write_text_atomic
from taldau.schemas import GAMES_SCHEMA, MOVES_SCHEMA, GameRow, Status, games_table
from taldau.schemas.files import write_atomic

ROWS_PER_FILE = 500_000
SETTING_NAMES = {"engine_name": "engine", "engine": "engine version", "schemas": "table versions"}
STALE_TEMPORARY = 24 * 3_600  # seconds: a temporary file of another host older than this has no live writer
ROUND = "round-"  # begins the name of a part of several tasks (task and game ids are hex digits)

TaskRows = tuple[str, "pa.Table | None", "pa.Table | list[GameRow]"]  # a task's id, moves and games rows


def _setting(value: Any) -> str:
    """One setting as a user reads it: lists and mappings spelled out, an absent one as "none"."""
    if value is None:
        return "none"
    if isinstance(value, dict):
        return ", ".join(f"{name} {_setting(item)}" for name, item in value.items())
    if isinstance(value, list | tuple):
        return "/".join(str(item) for item in value)
    return str(value)


def settings_clash(out: str, found: dict[str, Any], asked: dict[str, Any], keys: tuple[str, str]) -> str:
    """Why a run may not write into ``out``: its results were made with the settings ``found`` (its
    manifest's ``settings``), the run asks for ``asked`` (``BatchSettings.record()``), both as the manifest
    writes them (``FolderSettings.to_json``); each setting that
    differs named with both values (the engine's version only when the engine is the same), else the two
    settings ``keys`` (found, asked)."""
    names = [name for name in dict.fromkeys([*found, *asked]) if found.get(name) != asked.get(name)]
    if "engine_name" in names and "engine" in names:
        names.remove("engine")
    differences = "; ".join(
        f"{SETTING_NAMES.get(name, name)} {_setting(found.get(name))} there, {_setting(asked.get(name))} "
        "asked"
        for name in names
    )
    what = differences or f"settings key {keys[0]} there, {keys[1]} asked"
    return f"{out} holds results of other settings ({what}); use another --out directory"


class SettingsMismatch(Exception):
    """The output directory holds results of other settings, or is not taldau's."""


class FolderFull(OSError):
    """The disk of an analysis folder filled up while its results were compacted: the folder is as it was
    before (its analysed games wait in their parts); the message names it, the space needed and what to
    run."""

    def __init__(self, out: Path, needed: int, error: OSError, doing: str = "compacting its results") -> None:
        free = shutil.disk_usage(out).free if out.exists() else 0
        super().__init__(
            error.errno,
            f"{out}: the disk is full ({error.strerror or error}): {doing} needs about "
            f"{_megabytes(needed)} free, {_megabytes(free)} are; the games analysed wait in "
            f"{out / 'parts'}/: free some space and run the same `taldau analyze` again to finish",
        )

    def __str__(self) -> str:
        return str(self.strerror)


def _megabytes(size: int) -> str:
    return f"{size / 1e6:,.1f} MB"


def _writer_alive(temporary: Path) -> bool:
    """Whether the writer named in a temporary file's name may still be writing it: a process of this host
    that still exists, or any writer of another host while the file is younger than STALE_TEMPORARY."""
    writer = temporary_writer(temporary)
    if writer is None:  # not one of ours (or an older layout): leave it alone
        return True
    host, number = writer
    if host != socket.gethostname():
        return _stamp(temporary) is not None and not _older(temporary, STALE_TEMPORARY)
    try:
        os.kill(number, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


@contextmanager
def _locked(folder: Path) -> Iterator[None]:
    """Hold the output folder's lock (an exclusive ``flock`` on ``folder/.lock``), and remove the lock file
    when done. A holder checks that the file it locked is still the one at ``.lock``: one that waited on a
    file removed meanwhile locks the new one instead."""
    path = folder / ".lock"
    while True:
        handle = open(path, "a+b")  # noqa: SIM115 (closed below, after the unlock)
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
            try:
                current = os.stat(path).st_ino
            except FileNotFoundError:
                current = None
            if current != os.fstat(handle.fileno()).st_ino:
                continue  # removed by the holder before us: lock the file there now
            try:
                yield
            finally:
                path.unlink(missing_ok=True)
            return
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
            handle.close()


@dataclass(frozen=True)
class RunRecord:
    """What a run contributes to the manifest: its id, the games it was given, what became of every input
    under its paths (``inputs``: files not records or not read, duplicates, games skipped), and the ids
    under which some of its games were stored before (``superseded``: their rows are dropped)."""

    id: str
    game_ids: frozenset[str]
    inputs: Inputs = field(default_factory=Inputs)
    superseded: frozenset[str] = frozenset()

    def skipped(self) -> tuple[Skipped, ...]:
        """The manifest's ``skipped``: the valid games of another kind than the run's."""
        return tuple(
            Skipped(item.source, item.index, item.detail)
            for item in self.inputs.not_used
            if item.reason is Unused.OTHER_GAME
        )


@dataclass(frozen=True)
class _Merged:
    """The compacted tables with the parts merged in, and the parts merged (each with its stamp)."""

    games: pa.Table
    moves: pa.Table
    parts: list[tuple[Path, tuple[int, int]]]


class ResultStore:
    """The results of one settings key in an output directory."""

    def __init__(self, out: str | Path, key: str) -> None:
        self.out = Path(out)
        self.key = key
        self.parts = self.out / "parts" / key

    def check_settings(self, settings: FolderSettings | None = None) -> None:
        """Raise SettingsMismatch when the directory's manifest names another settings key, saying how its
        settings differ from ``settings`` (the run's ``BatchSettings.record()``)."""
        try:
            found = read_manifest(self.out)
        except FolderError as error:
            raise SettingsMismatch(f"{error}; use another --out directory") from None
        if found is not None and found.key not in ("", self.key):
            raise SettingsMismatch(
                settings_clash(
                    str(self.out),
                    found.settings.to_json(),
                    {} if settings is None else settings.to_json(),
                    (found.key, self.key),
                )
            )

    def prepare(self) -> None:
        """Make the part folders (``write`` and ``write_round`` make them too, as they write)."""
        for table in TABLES:
            (self.parts / table).mkdir(parents=True, exist_ok=True)

    def part(self, table: str, identity: str) -> Path:
        """The part file of one task (or one invalid game) in ``games`` or ``moves``."""
        return self.parts / table / f"part-{identity}.parquet"

    def analysed(self) -> frozenset[str]:
        """The ids of the tasks analysed in this folder: those whose compacted ``games`` rows are all
        ``ok``, unless a part holds them, and those whose newest part says so (a task's own part: its
        ``moves`` part is there too; a round's: that too, and the task's ``games`` rows are ``ok``)."""
        # Without the lock (a run starts while another compacts): the parts are listed first, and compaction
        # writes the compacted files before it removes the parts it merged, so no task is missed.
        in_parts = self._tasks_in_parts()
        rows = self._compacted("games", GAMES_SCHEMA, columns=["task", "status"])
        compacted = _ok_tasks(rows) - set(in_parts)
        return frozenset(compacted | {task for task, ok in in_parts.items() if ok})

    def _tasks_in_parts(self) -> dict[str, bool]:
        """The tasks that have ``games`` parts, each with whether its newest part says it was analysed."""
        moves = {path.name for path in (self.parts / "moves").glob("part-*.parquet")}
        found: list[tuple[tuple[int, str], str, bool]] = []
        for path in (self.parts / "games").glob("part-*.parquet"):
            stamp = _stamp(path)
            if stamp is None:  # merged and removed meanwhile: the compacted rows have it
                continue
            name, order = path.stem.removeprefix("part-"), _newest_last((stamp, path))
            if not name.startswith(ROUND):
                found.append((order, name, path.name in moves))
                continue
            try:
                rows = pq.read_table(path, schema=GAMES_SCHEMA, columns=["task", "status"])
            except FileNotFoundError:
                continue
            ok = _ok_tasks(rows) if path.name in moves else set()
            tasks = {task for task in rows.column("task").to_pylist() if task is not None}
            found += [(order, task, task in ok) for task in tasks]
        return {task: ok for _, task, ok in sorted(found)}

    def stored(self, identity: str) -> dict[str, Any] | None:
        """The status (``ok`` unless a game of it is not) and plies of the task's stored ``games`` rows (in
        its part, a round's, or compacted), None when it has none."""
        try:
            rows = pq.read_table(self.part("games", identity), columns=["status", "plies"]).to_pylist()
        except FileNotFoundError:
            rows = self._in_rounds(identity) or self._compacted_task(identity)
        if not rows:
            return None
        status = next((row["status"] for row in rows if row["status"] != Status.OK), Status.OK)
        return {"task": identity, "status": str(status), "plies": sum(row["plies"] for row in rows)}

    def _in_rounds(self, identity: str) -> list[dict[str, Any]]:
        """The status and plies of the task's ``games`` rows in the newest round part that holds it."""
        paths = (self.parts / "games").glob(f"part-{ROUND}*.parquet")
        rounds = [(stamp, path) for path in paths if (stamp := _stamp(path)) is not None]
        for _, path in sorted(rounds, key=_newest_last, reverse=True):
            try:
                rows = pq.read_table(
                    path,
                    schema=GAMES_SCHEMA,
                    columns=["status", "plies"],
                    filters=pc.field("task") == identity,
                )
            except FileNotFoundError:
                continue
            if rows.num_rows:
                return rows.to_pylist()
        return []

    def _compacted_task(self, identity: str) -> list[dict[str, Any]]:
        """The status and plies of the task's compacted ``games`` rows."""
        if not self.out.is_dir():  # nothing stored here yet
            return []
        with _locked(self.out):
            rows = self._compacted(
                "games", GAMES_SCHEMA, columns=["status", "plies"], where=pc.field("task") == identity
            )
        return rows.to_pylist()

    def _compacted(
        self,
        name: str,
        schema: pa.Schema,
        columns: list[str] | None = None,
        where: pc.Expression | None = None,
        manifest: Manifest | None = None,
    ) -> pa.Table:
        """The compacted rows of ``name`` (``games`` or ``moves``) of this key, as ``manifest`` (else the
        folder's) lists them; FolderError when a file cannot be read."""
        for attempt in range(3):  # without the lock: a compaction may switch generations meanwhile
            listed = read_manifest(self.out) if manifest is None else manifest
            tables = []
            try:
                for path in table_files(self.out, self.key, listed, name):
                    tables.append(pq.read_table(path, schema=schema, columns=columns, filters=where))
            except FileNotFoundError as error:
                if manifest is None and attempt < 2:
                    continue
                raise damaged(path, error) from None
            except (OSError, pa.ArrowException) as error:
                raise damaged(path, error) from None
            break
        empty = schema.empty_table() if columns is None else schema.empty_table().select(columns)
        return pa.concat_tables([empty, *tables])

    def write(self, identity: str, moves: pa.Table | None, games: pa.Table | list[GameRow]) -> None:
        """Store one task: its moves (if any), then its games rows (the table, or the rows), each
        atomically, replacing the task's parts written before; FolderFull when the disk is full."""
        with self._full_disk(moves):
            if moves is not None:
                _write_part(moves, self.part("moves", identity))
            _write_part(_games(games), self.part("games", identity))

    @contextmanager
    def _full_disk(self, moves: pa.Table | None) -> Iterator[None]:
        """ENOSPC (or a quota) while parts of ``moves`` are written, as FolderFull."""
        try:
            yield
        except OSError as error:
            if error.errno not in (errno.ENOSPC, errno.EDQUOT) or isinstance(error, FolderFull):
                raise
            needed = 0 if moves is None else moves.nbytes
            raise FolderFull(self.out, needed, error, "storing a game's results") from None

    def write_round(self, tasks: Sequence[TaskRows]) -> None:
        """Store several tasks together: their moves, then their games rows, in two parts of a name of
        their own (one task is stored as ``write`` does). Two files synced instead of two per task is what
        lets one client keep up with hundreds of workers (BENCHMARKS.md)."""
        if len(tasks) <= 1:
            for task in tasks:
                self.write(*task)
            return
        name = ROUND + secrets.token_hex(8)
        moves = _concat(MOVES_SCHEMA, [table for _, table, _ in tasks if table is not None])
        with self._full_disk(moves):
            _write_part(moves, self.part("moves", name))
            games = _concat(GAMES_SCHEMA, [_games(rows) for _, _, rows in tasks])
            _write_part(games, self.part("games", name))

    def compact(self, settings: FolderSettings, run: RunRecord) -> Manifest:
        """Merge the parts into a new generation of the compacted files, switch both tables to it at once by
        writing the manifest, then remove the old generation and the parts merged, holding the folder's
        lock; returns the manifest. An interruption anywhere leaves the manifest naming the old
        generation (and the parts, merged next time) or the new one; a full disk is FolderFull, with the
        new generation's files removed. A ``moves`` part without its ``games`` part is removed once it is
        STALE_TEMPORARY old (its writer died between the two, or a compaction stopped between removing
        them: a games part goes first).

        ``counts``, ``failures``, ``skipped`` and ``inputs`` describe the run's own games and inputs (those
        it was given, analysed now or before); ``folder`` holds the totals of every game stored under this
        key, other runs' too. Temporary files are removed only when their writer is gone (see
        ``_writer_alive``); a part is removed only as it was merged (not one written again meanwhile); the
        part folders then, when empty.
        """
        self.out.mkdir(parents=True, exist_ok=True)
        with _locked(self.out):
            for leftover in self.parts.glob("*/.part-*.tmp"):
                if not _writer_alive(leftover):
                    leftover.unlink(missing_ok=True)
            for moves in (self.parts / "moves").glob("part-*.parquet"):
                if not (self.parts / "games" / moves.name).exists() and _older(moves, STALE_TEMPORARY):
                    moves.unlink(missing_ok=True)  # its writer died before its games part
            previous = read_manifest(self.out)
            merged = self._merge(previous, run.superseded)
            games = merged.games.sort_by([("source", "ascending"), ("index", "ascending")])
            moves = merged.moves.sort_by([("game_id", "ascending"), ("ply", "ascending")])
            generation = 1 + (previous.tables.generation if previous and previous.tables else 0)
            ids = pa.array(sorted(run.game_ids), pa.string())
            own = games.filter(pc.is_in(games.column("game_id"), value_set=ids))
            own_moves = moves.filter(pc.is_in(moves.column("game_id"), value_set=ids))
            failures = tuple(
                Failure(**row)
                for row in own.select(["source", "index", "status", "error"]).to_pylist()
                if row["status"] != Status.OK
            )
            written: list[Path] = []
            try:
                files = {
                    name: self._write_table(name, table, generation, written)
                    for name, table in (("games", games), ("moves", moves))
                }
                manifest = Manifest(
                    key=self.key,
                    settings=settings,
                    run=run.id,
                    counts=Counts.of(own, own_moves),
                    failures=failures,
                    skipped=run.skipped(),
                    inputs=run.inputs,
                    folder=Counts.of(games, moves),
                    tables=ManifestTables(
                        generation, files, {"games": games.num_rows, "moves": moves.num_rows}
                    ),
                )
                write_text_atomic(manifest.text(), manifest_file(self.out))  # the switch
            except OSError as error:
                for path in written:
                    path.unlink(missing_ok=True)
                if error.errno in (errno.ENOSPC, errno.EDQUOT):
                    raise FolderFull(self.out, self._space_needed(previous, merged), error) from None
                raise
            for name in TABLES:  # the generations before, named as taldau names its files only
                kept = set(files[name])
                for path in (self.out / name).iterdir():
                    if own_table_file(self.key, path.name) and path.name not in kept:
                        path.unlink(missing_ok=True)
            for path, stamp in merged.parts:
                if _stamp(path) == stamp:
                    path.unlink(missing_ok=True)
            _remove_if_empty([*(self.parts / table for table in TABLES), self.parts, self.parts.parent])
        return manifest

    def _write_table(
        self, name: str, table: pa.Table, generation: int, written: list[Path]
    ) -> tuple[str, ...]:
        """Write ``table`` as the files of table ``name`` in ``generation`` (each path added to ``written``
        before it is written); their names."""
        folder = self.out / name
        folder.mkdir(exist_ok=True)
        names = []
        for number, start in enumerate(range(0, max(table.num_rows, 1), ROWS_PER_FILE)):
            path = folder / table_file(self.key, generation, number)
            written.append(path)
            write_atomic(table.slice(start, ROWS_PER_FILE), path)
            names.append(path.name)
        return tuple(names)

    def _space_needed(self, previous: Manifest | None, merged: _Merged) -> int:
        """About how many bytes a compaction needs free: the compacted files' size again (the new
        generation is written beside the old), and the parts'."""
        files = [path for name in TABLES for path in table_files(self.out, self.key, previous, name)]
        return sum(_size(path) for path in files) + sum(_size(path) for path, _ in merged.parts)

    def _merge(self, manifest: Manifest | None, superseded: frozenset[str] = frozenset()) -> _Merged:
        """The compacted tables (as ``manifest`` lists them) with the parts merged in (a part's games
        replace the compacted rows of the same game ids and those of older parts, with their moves; the
        ``superseded`` ids' rows are dropped too), and the parts merged with their stamps. A ``moves`` part
        is merged with its ``games`` part only (one whose games part is not there yet waits for the next
        time)."""
        stamped = [(path, _stamp(path)) for path in (self.parts / "games").glob("part-*.parquet")]
        stamped = sorted(((stamp, path) for path, stamp in stamped if stamp is not None), key=_newest_last)
        parts: list[tuple[Path, tuple[int, int]]] = []
        read: list[tuple[pa.Table, pa.Table | None]] = []
        for stamp, path in stamped:
            moves_part = self.parts / "moves" / path.name
            moves_stamp = _stamp(moves_part)
            moves = None
            read.append((pq.read_table(path, schema=GAMES_SCHEMA), None))
            parts.append((path, stamp))  # removed before its moves part: never a games part without them
            if moves_stamp is not None:
                moves = pq.read_table(moves_part, schema=MOVES_SCHEMA)
                parts.append((moves_part, moves_stamp))
                read[-1] = (read[-1][0], moves)
        newest: dict[str, int] = {}  # each game's newest part (the parts are read oldest first)
        for number, (games, _) in enumerate(read):
            newest.update(dict.fromkeys(games.column("game_id").to_pylist(), number))
        new_games, new_moves = [], []
        for number, (games, moves) in enumerate(read):
            older = [game for game in games.column("game_id").to_pylist() if newest[game] != number]
            if older:  # a game stored again in a newer part: its rows here are not kept
                stale = pa.array(older, pa.string())
                games = games.filter(pc.invert(pc.is_in(games.column("game_id"), value_set=stale)))
                if moves is not None:
                    moves = moves.filter(pc.invert(pc.is_in(moves.column("game_id"), value_set=stale)))
            new_games.append(games)
            if moves is not None:
                new_moves.append(moves)
        merged_games = _concat(GAMES_SCHEMA, new_games)
        replaced = pa.array(sorted(set(merged_games.column("game_id").to_pylist()) | superseded), pa.string())
        games = self._compacted("games", GAMES_SCHEMA, manifest=manifest)
        moves = self._compacted("moves", MOVES_SCHEMA, manifest=manifest)
        kept_games = games.filter(pc.invert(pc.is_in(games.column("game_id"), value_set=replaced)))
        kept_moves = moves.filter(pc.invert(pc.is_in(moves.column("game_id"), value_set=replaced)))
        return _Merged(
            _concat(GAMES_SCHEMA, [kept_games, merged_games]),
            _concat(MOVES_SCHEMA, [kept_moves, *new_moves]),
            parts,
        )


def _size(path: Path) -> int:
    """A file's size in bytes, 0 when it is gone."""
    try:
        return path.stat().st_size
    except FileNotFoundError:
        return 0


def _write_part(table: pa.Table, path: Path) -> None:
    """Write a part atomically, making its folder first: another client's compaction may remove it, empty,
    at any time, even between the two (then it is made again)."""
    for attempt in range(3):
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            write_atomic(table, path)
            return
        except FileNotFoundError:
            if attempt == 2 or path.parent.is_dir():
                raise


def _remove_if_empty(folders: Sequence[Path]) -> None:
    """Remove each of ``folders``, the deepest first, that is empty; one that is not (a client wrote a part
    or a temporary file in it meanwhile), or is gone, stays as it is."""
    for folder in folders:
        with contextlib.suppress(OSError):  # ENOTEMPTY, ENOENT: a writer's, or nothing to do
            folder.rmdir()


def _older(path: Path, seconds: float) -> bool:
    """Whether ``path`` was last written more than ``seconds`` ago (False when it is gone)."""
    stamp = _stamp(path)
    return stamp is not None and time.time() - stamp[1] / 1e9 > seconds


def _newest_last(stamped: tuple[tuple[int, int], Path]) -> tuple[int, str]:
    """Parts in the order they were written (by modification time, then name)."""
    (_, modified), path = stamped
    return modified, path.name


def _ok_tasks(rows: pa.Table) -> set[str]:
    """The tasks of ``games`` rows (``task`` and ``status``) whose rows are all ``ok``."""
    tasks = rows.column("task").to_pylist()
    statuses = rows.column("status").to_pylist()
    failed = {task for task, status in zip(tasks, statuses, strict=True) if status != Status.OK}
    return {task for task in tasks if task is not None} - failed


def _games(games: pa.Table | list[GameRow]) -> pa.Table:
    """A task's ``games`` rows as a table."""
    return games if isinstance(games, pa.Table) else games_table(games)


def _stamp(path: Path) -> tuple[int, int] | None:
    """A file's inode and modification time (a part written again has others), None when it is gone."""
    try:
        status = path.stat()
    except FileNotFoundError:
        return None
    return status.st_ino, status.st_mtime_ns


def _concat(schema: pa.Schema, tables: list[pa.Table]) -> pa.Table:
    return pa.concat_tables([schema.empty_table(), *tables])
