"""The batch analysis of an archive, as pure functions: plan the tasks, analyse one task into rows.

``plan`` reads every record under the paths and yields a ``GameTask`` per task of valid games (one Togyz
game, one backgammon match: see ``taldau.base.kind``), written back as text small enough for a task
queue, a finished ``games`` row per invalid game, and a note of every other input (``NotUsed``).
``analyse_task`` turns one task and the settings into its games' ``moves`` rows and ``games`` rows; the
executors (local process pool or Celery workers) only run it and store what it returns, so both give the
same rows. Nothing here looks into a game: the game's kind
(its facts, identity and task text) and its analyser do.
"""

from __future__ import annotations

import hashlib
import json
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
from .review import review_task
from .rows import move_rows
from .validation import Unreadable, archive_games


@dataclass(frozen=True)
class BatchSettings:
    """What an analysis depends on, as plain values: the game, the user's ``limit`` (depth, nodes, time,
    level; all unset: the game's default) and the engine (None: the game's default; backgammon ``own``,
    ``gnubg``, ``sage``). The engine itself is loaded once per process by these values
    (``registry.analyser``).

    ``key`` names the result set: the same settings and engine give the same key on any machine. The key
    is made of ``describe()``, whose ``engine`` is the version of the engine actually loaded (its name,
    version and weights), so results of different engines never share a key, a stand-in engine (``own``
    for a ``sage`` that cannot run) computes its own key, and the default engine's key is the same whether
    it was named or not.
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

    def describe(self) -> dict[str, Any]:
        """Everything the results depend on, for the manifest and the key."""
        return {
            "game": self.game,
            "limit": str(self.search()),
            "thresholds": list(self.analyser.scale.thresholds),
            "engine": self.analyser.version(),
            "schemas": {"moves": MOVES_SCHEMA_VERSION, "games": GAMES_SCHEMA_VERSION},
        }

    def manifest(self) -> dict[str, Any]:
        """The settings as an output folder's manifest names them: ``describe()`` and the engine's name
        (``engine_name``: own, gnubg, sage), which the version in ``engine`` already implies and the key
        leaves out."""
        return self.describe() | {"engine_name": self.analyser.engine_name()}

    @cached_property
    def key(self) -> str:
        text = json.dumps(self.describe(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:12]

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
    """One task: the valid games of one Togyz record or one backgammon match, where they came from, and
    their record as text. ``id`` names the task's parts (a single game's id, or a digest of the match's
    game ids); ``plies``, its decisions, is what its time limits are made of."""

    id: str
    source: str
    index: int
    format: str
    record: str
    games: tuple[TaskGame, ...]

    @property
    def plies(self) -> int:
        return sum(game.plies for game in self.games)

    @property
    def former_id(self) -> str:
        """The id folders written before named this task by (made of its games' former ids as ``id`` is of
        their ids): a run into such a folder finds the task done under it."""
        return task_id(game.former_id for game in self.games)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameTask:
        return cls(**{**data, "games": tuple(TaskGame(**game) for game in data["games"])})


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


def _tasks(
    kind: GameKind[Any], games: list[tuple[Any, GameFacts]], settings: BatchSettings
) -> Iterator[GameTask | GameRow]:
    """The ``invalid`` rows of a task's bad games, then the task of its valid ones (if any)."""
    valid: list[TaskGame] = []
    first: GameFacts | None = None
    for place, (game, facts) in enumerate(games):
        if not facts.valid:
            yield game_row(facts, place_id(kind.name, facts), settings.game, Status.INVALID, settings.key)
            continue
        first = first or facts
        former = kind.former_identity(game)
        valid.append(TaskGame(kind.identity(game), facts.index, facts.plies, place, former))
    if first is not None:
        ids = (game.game_id for game in valid)
        text = kind.task_text([game for game, _ in games])
        yield GameTask(task_id(ids), first.source, first.index, first.format, text, tuple(valid))


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


def plan(
    paths: Iterable[str | Path], settings: BatchSettings, limits: ReadLimits | None = None
) -> Iterator[GameTask | GameRow | NotUsed]:
    """A task per valid game (or match) under ``paths``, a finished ``invalid`` row per bad game (of any
    kind), and a note of each input not analysed (``taldau.analysis.accounting``): a file that is not a
    record or not read, a game found before (a duplicate: another record of the same game, whatever its
    format and tags, ``taldau.base.identity``; one analysis, one row), a valid game of another kind than
    ``settings.game``. Records are read within ``limits`` (the defaults if None), one game at a time (a
    match at a time)."""
    kind = settings.kind()
    first: FirstFound[Place] = FirstFound()  # where each valid game was found first
    pending: list[tuple[Any, GameFacts]] = []  # the games of the task being read
    for item in archive_games(paths, limits or ReadLimits()):
        facts = None if isinstance(item, Unreadable) else item[0].facts(item[1])
        if facts is not None and facts.index > 0 and item[0].name == settings.game:
            game = item[1]
            if pending and not kind.same_task(pending[-1][0], game):
                yield from _unique(_tasks(kind, pending, settings), first)
                pending = []
            pending.append((game, facts))
            continue
        if pending:
            yield from _unique(_tasks(kind, pending, settings), first)
            pending = []
        if isinstance(item, Unreadable):
            yield NotUsed(item.source, 0, Unused.NOT_READ, item.reason)
            continue
        other = item[0]
        assert facts is not None
        if facts.index == 0:  # a file (or match) with no game record in it
            detail = facts.errors[0].message if facts.errors else "no game found"
            yield NotUsed(facts.source, 0, Unused.NOT_RECORD, detail)
        elif not facts.valid:  # of another kind: there is no engine to replay it for one
            yield game_row(facts, place_id(other.name, facts), other.name, Status.INVALID, settings.key)
        else:
            why = f"a {other.name} game; this run analyses {settings.game}"
            yield NotUsed(facts.source, facts.index, Unused.OTHER_GAME, why)
    if pending:
        yield from _unique(_tasks(kind, pending, settings), first)


def analyse_task(task: GameTask, settings: BatchSettings) -> tuple[pa.Table, list[GameRow]]:
    """Replay and review one task: its games' ``moves`` rows and ``games`` rows (status ``ok``)."""
    kind = settings.kind()
    replayed = [kind.facts(game) for game in kind.read_games(task.record.encode("utf-8"), task.source)]
    # the task's text holds every game of the task, in order; a game invalid as read may replay valid from
    # it (what spoilt it is not written back), so each planned game is taken at its place, and the reviews
    # come one per valid game
    reviewed = {place: number for number, place in enumerate(p for p, f in enumerate(replayed) if f.valid)}
    lost = [
        game.index
        for game in task.games
        if game.place not in reviewed or replayed[game.place].plies != game.plies
    ]
    if lost:  # the record was valid when planned: this is a bug, not bad input
        errors = [str(error) for facts in replayed for error in facts.errors]
        raise ValueError(f"task {task.id} no longer replays as planned: game {lost} {errors[:1]}")
    reviews = review_task(settings.analyser, task.record, task.source, settings.limit)
    moves: list[MoveRow] = []
    rows: list[GameRow] = []
    for planned in task.games:
        facts, review = replayed[planned.place], reviews[reviewed[planned.place]]
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
