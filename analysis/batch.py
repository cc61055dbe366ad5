"""The batch analysis of an archive, as pure functions: plan the tasks, analyse one task into rows.

Each game's text is read and parsed once, here: ``read_archive`` reads every record under the paths, of
every game, and says which game each file holds (``FileGame``: ``--game auto`` chooses from it, opening no
file again); ``for_game`` turns that reading into a ``GameTask`` per task of valid games of the run's game
(one Togyz game, one backgammon match: see ``taldau.base.kind``), carrying its games as their kind's JSON
data (``GameKind.encode``), a finished ``games`` row per invalid game, and a note of every other input
(``NotUsed``); ``plan`` is the two in one. ``analyse_task`` rebuilds a task's games from its data
(``GameKind.decode``: the rules replay them, no text is read) and turns them and the settings into their
``moves`` rows and ``games`` rows; the executors (local process pool or Celery workers) only run it and
store what it returns, so both give the same rows. Nothing here looks into a game: the game's kind (its
facts, identity, encoding) and its analyser do.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import pyarrow as pa
from taldau.base.identity import FirstFound
from taldau.base.kind import STORED, Analyser, GameFacts, GameKind, Limit
from taldau.base.records import ReadLimits
from taldau.games.registry import analyser, game_kind, stored_analyser
from taldau.schemas import (
    GAMES_SCHEMA_VERSION,
    MOVES_SCHEMA_VERSION,
    GameRow,
    MoveRow,
    Status,
    moves_table,
)

from .accounting import NotUsed, Place, Unused, place_id
from .folder import FolderSettings
from .review import review_task
from .rows import move_rows
from .validation import FileGame, Unreadable, archive_files, games_held


@dataclass(frozen=True)
class BatchSettings:
    """What an analysis is asked to do, as plain values, from the command line to the task: the game, the
    user's ``limit`` (depth, nodes, time, level; all unset: the game's default) and the engine (None: the
    game's default; backgammon ``own``, ``gnubg``, ``sage``), typed all the way (``to_json`` and
    ``from_json``, as a task's message carries them). The engine itself is loaded once per process by
    these values (``registry.analyser``).

    ``record()`` is what the results depend on as the loaded engine makes them of these settings, the
    typed record an output folder's manifest keeps (``FolderSettings``); ``key`` names the result set:
    the same settings and engine give the same key on any machine. The record's ``engine`` is the version
    of the engine actually loaded (its name, version and weights), so results of different engines never
    share a key, a stand-in engine (``own`` for a ``sage`` that cannot run) computes its own key, and the
    default engine's key is the same whether it was named or not.
    """

    game: str = "togyz"
    limit: Limit = field(default_factory=Limit)
    engine: str | None = None

    @property
    def analyser(self) -> Analyser:
        """The game's analyser of ``engine`` (the process's one: ``registry.analyser``), or at the level
        ``stored`` the one that takes the judgements the record files hold (``registry.stored_analyser``:
        no engine loaded); ValueError when the game has none yet, or no such engine."""
        if self.limit.level == STORED:
            return stored_analyser(self.game)
        return analyser(self.game, self.engine)

    @property
    def fallback(self) -> str | None:
        """One line for the user when another engine stands in for the one asked for, else None."""
        return self.analyser.fallback()

    def kind(self) -> GameKind[Any]:
        return game_kind(self.game)

    def search(self) -> object:
        """The engine's own search for ``limit`` (``Analyser.search``); ValueError where it cannot."""
        return self.analyser.search(self.limit)

    def time_budget(self, decisions: int) -> float:
        """Seconds a task of ``decisions`` decisions may take, as the game's analyser states it."""
        return self.analyser.time_budget(self.limit, decisions)

    def record(self) -> FolderSettings:
        """Everything the results depend on, as the loaded engine makes it of these settings: the record
        an output folder's manifest keeps."""
        tools = self.analyser
        return FolderSettings(
            game=self.game,
            limit=str(self.search()),
            thresholds=tuple(tools.scale.thresholds),
            engine=tools.version(),
            engine_name=tools.engine_name(),
            schemas={"moves": MOVES_SCHEMA_VERSION, "games": GAMES_SCHEMA_VERSION},
        )

    @cached_property
    def key(self) -> str:
        return self.record().key

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BatchSettings:
        """The settings ``to_json`` wrote; also the flat ``depth``, ``nodes`` and ``level`` of messages and
        files written before the one ``Limit`` (their ``thresholds`` were always the scale's)."""
        if "limit" in data:
            return cls(data.get("game", "togyz"), Limit(**data["limit"]), data.get("engine"))
        flat = {name: data.get(name) for name in ("depth", "nodes", "level")}
        return cls(data.get("game", "togyz"), Limit(**flat), data.get("engine"))


@dataclass(frozen=True)
class TaskGame:
    """A valid game of a task: its id, its index in its record file, its number of decisions, its place
    among the games of the task's text (0 for the first: a Togyz task's one game, a match's first game),
    and the id folders written before named it by (``GameKind.former_identity``; "" where not known)."""

    game_id: str
    index: int
    plies: int
    place: int
    former_id: str = ""


@dataclass(frozen=True)
class GameTask:
    """One task: the valid games of one Togyz record or one backgammon match, where they came from, and the
    games as read, every one of the task (valid or not, in order: a match's score carries through them), as
    their kind's JSON data (``data``, ``GameKind.encode``; the record text of a task an earlier taldau
    queued). ``game`` names their kind (None in a task an earlier taldau queued: the run's). ``id`` names the
    task's parts (a single game's id, or a digest of the match's game ids); ``plies``, its decisions, is what
    its time limits are made of."""

    id: str
    source: str
    index: int
    format: str
    data: Any
    games: tuple[TaskGame, ...]
    game: str | None = None

    @property
    def plies(self) -> int:
        return sum(game.plies for game in self.games)

    @property
    def former_id(self) -> str:
        """The id folders written before named this task by (made of its games' former ids as ``id`` is of
        their ids): a run into such a folder finds the task done under it."""
        return task_id(game.former_id for game in self.games)

    def to_json(self) -> dict[str, Any]:
        """The task as plain JSON data (a Celery message's argument)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameTask:
        """The task ``to_json`` wrote; also one an earlier taldau queued, its games as record text
        (``record``) and its game unnamed (the run's)."""
        fields = {name: value for name, value in data.items() if name != "record"}
        if "record" in data and "data" not in data:
            fields["data"] = data["record"]
        return cls(**{**fields, "games": tuple(TaskGame(**game) for game in data["games"])})

    def decoded(self, kind: GameKind[Any]) -> list[Any]:
        """Every game of the task rebuilt from its data by its ``kind`` (``GameKind.decode``), in order."""
        return kind.decode(self.data, self.source)


def task_id(game_ids: Iterable[str]) -> str:
    """A task's id: its game's id, or for several games a digest of theirs."""
    ids = list(game_ids)
    if len(ids) == 1:
        return ids[0]
    return hashlib.sha256(("task " + " ".join(ids)).encode()).hexdigest()[:16]


def game_row(facts: GameFacts, identity: str, game: str, status: Status, key: str) -> GameRow:
    """The ``games`` row of a replayed game, without the analysis' figures (an ``invalid`` one has its
    errors), with its match's columns when it is part of one."""
    errors = "; ".join(str(error) for error in facts.errors) if status is Status.INVALID else None
    match = facts.match
    return GameRow(
        game_id=identity,
        game=game,
        source=facts.source,
        index=facts.index,
        status=status,
        settings=key,
        format=facts.format,
        headers=dict(facts.headers),
        players=facts.players,
        result=facts.result,
        termination=facts.termination,
        plies=facts.plies,
        error=errors,
        match_length=None if match is None else match.length,
        match_score=None if match is None else match.score,
        cube=None if match is None else match.stake,
        winner=None if match is None else match.winner,
        points=None if match is None else match.points,
    )


@dataclass(frozen=True)
class ReadTask:
    """The games of one task as read, of any game (``kind``): each replayed game with its facts, in order."""

    kind: GameKind[Any]
    games: tuple[tuple[Any, GameFacts], ...]

    def joins(self, after: ReadTask) -> bool:
        """Whether the game of ``after``, read right after these, belongs to their task: a game of the same
        kind (``GameKind.same_task``), with a game record (index 1 or more)."""
        game, facts = after.games[0]
        same = after.kind.name == self.kind.name and facts.index > 0
        return same and self.kind.same_task(self.games[-1][0], game)


Read = ReadTask | NotUsed | FileGame
"""What ``read_archive`` yields: the games of a task, an input not read as a game, which game a file holds."""


def read_archive(paths: Iterable[str | Path], limits: ReadLimits | None = None) -> Iterator[Read]:
    """Every game under ``paths``, of every game, read and replayed once, in order, consecutive games of
    one task together (``GameKind.same_task``: a backgammon match); a note per input that is not a game (a
    file with no game record, a source not read); and which game each file holds (``FileGame``, once its
    reading tells). Records are read within ``limits`` (the defaults if None), one game at a time (a
    match at a time)."""
    pending: ReadTask | None = None  # the games of the task being read
    for item in archive_files(paths, limits or ReadLimits()):
        if isinstance(item, FileGame):  # a task never spans two files: nothing to end
            yield item
            continue
        read = (
            None if isinstance(item, Unreadable) else ReadTask(item[0], ((item[1], item[0].facts(item[1])),))
        )
        if pending is not None and not (read is not None and pending.joins(read)):
            yield pending
            pending = None
        if isinstance(item, Unreadable):
            yield NotUsed(item.source, 0, Unused.NOT_READ, item.reason)
        elif read is not None and read.games[0][1].index == 0:  # a file (or match) with no game record
            facts = read.games[0][1]
            detail = facts.errors[0].message if facts.errors else "no game found"
            yield NotUsed(facts.source, 0, Unused.NOT_RECORD, detail)
        else:
            pending = read if pending is None else ReadTask(pending.kind, pending.games + read.games)
    if pending is not None:
        yield pending


def _tasks(read: ReadTask, settings: BatchSettings) -> Iterator[GameTask | GameRow]:
    """The ``invalid`` rows of a task's bad games, then the task of its valid ones (if any), its games
    encoded by their kind."""
    kind = read.kind
    valid: list[TaskGame] = []
    first: GameFacts | None = None
    for place, (game, facts) in enumerate(read.games):
        if not facts.valid:
            yield game_row(facts, place_id(kind.name, facts), settings.game, Status.INVALID, settings.key)
            continue
        first = first or facts
        former = kind.former_identity(game)
        valid.append(TaskGame(kind.identity(game), facts.index, facts.plies, place, former))
    if first is not None:
        ids = (game.game_id for game in valid)
        data = kind.encode([game for game, _ in read.games])
        yield GameTask(task_id(ids), first.source, first.index, first.format, data, tuple(valid), kind.name)


def _other_game(read: ReadTask, settings: BatchSettings) -> Iterator[GameRow | NotUsed]:
    """The games of a task of another kind than ``settings.game``, one at a time in order: an ``invalid``
    row of a bad one (there is no engine to replay it for one), a note of a valid one."""
    name = read.kind.name
    for _, facts in read.games:
        if not facts.valid:
            yield game_row(facts, place_id(name, facts), name, Status.INVALID, settings.key)
        else:
            why = f"a {name} game; this run analyses {settings.game}"
            yield NotUsed(facts.source, facts.index, Unused.OTHER_GAME, why)


def _unique(
    items: Iterable[GameTask | GameRow], found: FirstFound[Place]
) -> Iterator[GameTask | GameRow | NotUsed]:
    """``items``, with a ``duplicate`` note per game in place of a task whose games were all found before
    (``found`` holds where each game was found first, and learns the new ones)."""
    for item in items:
        if isinstance(item, GameTask):
            places = [found.find(game.game_id) for game in item.games]
            if all(place is not None for place in places):
                for game, place in zip(item.games, places, strict=True):
                    yield NotUsed(item.source, game.index, Unused.DUPLICATE, first=place)
                continue
            for game in item.games:
                found.first(game.game_id, Place(item.source, game.index))
        yield item


def for_game(reading: Iterable[Read], settings: BatchSettings) -> Iterator[GameTask | GameRow | NotUsed]:
    """What ``read_archive`` read, planned for ``settings.game``: a task per valid game (or match) of it, a
    finished ``invalid`` row per bad game (of any kind), and a note of each input not analysed
    (``taldau.analysis.accounting``): a file that is not a record or not read, a game found before (a
    duplicate: another record of the same game, whatever its format and tags, ``taldau.base.identity``;
    one analysis, one row), a valid game of another kind than ``settings.game``. Which game each file
    holds is left out."""
    first: FirstFound[Place] = FirstFound()  # where each valid game was found first
    for item in reading:
        if isinstance(item, FileGame):
            continue
        if isinstance(item, NotUsed):
            yield item
        elif item.kind.name == settings.game:
            yield from _unique(_tasks(item, settings), first)
        else:
            yield from _other_game(item, settings)


def plan(
    paths: Iterable[str | Path], settings: BatchSettings, limits: ReadLimits | None = None
) -> Iterator[GameTask | GameRow | NotUsed]:
    """The archive under ``paths`` read once (``read_archive``, within ``limits``) and planned for
    ``settings.game`` (``for_game``), one task at a time."""
    return for_game(read_archive(paths, limits), settings)


@dataclass(frozen=True)
class ArchivePlan:
    """An archive read once and kept (``read_archive``), to be planned for the game it holds: which games
    its files hold (``games``), the one to analyse when the user does not say (``game``), and its tasks
    for a run's settings (``for_game``)."""

    reading: tuple[Read, ...]

    @classmethod
    def read(cls, paths: Iterable[str | Path], limits: ReadLimits | None = None) -> ArchivePlan:
        return cls(tuple(read_archive(paths, limits)))

    def games(self) -> list[str]:
        """The names of the games its files hold, in the order first met (``validation.games_held``)."""
        return games_held(item for item in self.reading if isinstance(item, FileGame))

    def game(self, default: str = "togyz") -> str:
        """The game to analyse when the user does not say: the only game it holds, or ``default`` when it
        holds several (or none)."""
        found = self.games()
        return found[0] if len(found) == 1 else default

    def for_game(self, settings: BatchSettings) -> Iterator[GameTask | GameRow | NotUsed]:
        """Its tasks, invalid rows and notes for ``settings`` (``for_game``)."""
        return for_game(self.reading, settings)


def analyse_task(task: GameTask, settings: BatchSettings) -> tuple[pa.Table, list[GameRow]]:
    """Review one task: its games rebuilt from its data (``GameKind.decode``, no text read), then their
    ``moves`` rows and ``games`` rows (status ``ok``)."""
    if task.game not in (None, settings.game):
        raise ValueError(f"task {task.id} holds {task.game} games; this run analyses {settings.game}")
    kind = settings.kind()
    games = task.decoded(kind)
    replayed = [kind.facts(game) for game in games]
    # the task holds every game of the task, in order, each at its place; a game planned valid replays so
    # from the data, unless something is wrong with taldau
    lost = [
        game.index
        for game in task.games
        if game.place >= len(replayed)
        or not replayed[game.place].valid
        or replayed[game.place].plies != game.plies
    ]
    if lost:  # the record was valid when planned: this is a bug, not bad input
        errors = [str(error) for facts in replayed for error in facts.errors]
        raise ValueError(f"task {task.id} no longer replays as planned: game {lost} {errors[:1]}")
    reviews = review_task(settings.analyser, [games[game.place] for game in task.games], settings.limit)
    moves: list[MoveRow] = []
    rows: list[GameRow] = []
    for planned, review in zip(task.games, reviews, strict=True):
        facts = replayed[planned.place]
        base = game_row(facts, planned.game_id, settings.game, Status.OK, settings.key)
        white, black = review.players
        rows.append(
            replace(
                base,
                source=task.source,
                index=planned.index,
                format=task.format,
                white=white,
                black=black,
                task=task.id,
            )
        )
        moves += move_rows(planned.game_id, review)
    return moves_table(moves), rows
