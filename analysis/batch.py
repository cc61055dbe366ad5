"""The batch analysis of an archive, as pure functions: plan the games, analyse one game into rows.

``plan`` reads every record under the paths and yields a ``GameTask`` per valid game (its record written back
as text, small enough for a task queue) and a finished ``games`` row per invalid one. ``analyse_task`` turns
one task and the settings into the game's ``moves`` table and ``games`` row; the executors (local process
pool or Celery workers) only run it and store what it returns, so both give the same rows.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
from taldau.games.records import ReadLimits
from taldau.games.registry import GameFacts, analyser, game_kind
from taldau.schemas import GAMES_SCHEMA_VERSION, HEADER_COLUMNS, MOVES_SCHEMA_VERSION, moves_table

from .identity import game_id
from .review import GameReview, ReviewSettings, review_game
from .validation import Unreadable, archive_games


@dataclass(frozen=True)
class BatchSettings:
    """What an analysis depends on: the game, the limit (None: the game's default) and the mark thresholds.

    ``key`` names the result set: the same settings and engine give the same key on any machine.
    """

    game: str = "togyz"
    depth: int | None = None
    nodes: int | None = None
    thresholds: tuple[float, float, float] = (0.1, 0.2, 0.3)

    def limit(self) -> Any:
        return analyser(self.game).limit(self.depth, self.nodes)

    def describe(self) -> dict[str, Any]:
        """Everything the results depend on, for the manifest and the key."""
        return {
            "game": self.game,
            "limit": str(self.limit()),
            "thresholds": list(self.thresholds),
            "engine": analyser(self.game).engine_version(),
            "schemas": {"moves": MOVES_SCHEMA_VERSION, "games": GAMES_SCHEMA_VERSION},
        }

    @property
    def key(self) -> str:
        text = json.dumps(self.describe(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> BatchSettings:
        return cls(**{**data, "thresholds": tuple(data["thresholds"])})


@dataclass(frozen=True)
class GameTask:
    """One valid game to analyse: its id, where it came from, its record as text and its number of plies
    (what its time limits are made of)."""

    game_id: str
    source: str
    index: int
    format: str
    record: str
    plies: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _base_row(game: Any, identity: str, settings: BatchSettings) -> dict[str, Any]:
    """The columns of a ``games`` row that do not depend on the analysis."""
    record = game.record
    row: dict[str, Any] = {
        "game_id": identity,
        "game": settings.game,
        "source": record.source,
        "index": record.index,
        "format": record.format,
        "headers": dict(record.headers),
        "result": game.result,
        "termination": game.termination.value,
        "plies": game.plies,
        "settings": settings.key,
    }
    for header, column in HEADER_COLUMNS.items():
        row[column] = record.headers.get(header)
    return row


def identity_of(game: Any, settings: BatchSettings) -> str:
    """The content-derived id of a replayed game."""
    return game_id(settings.game, game.record.headers, game.positions[0].fen(), game.moves)


def _other_kind_row(kind: str, facts: GameFacts, settings: BatchSettings) -> dict[str, Any]:
    """The finished ``invalid`` row of a bad game of another kind than the run's (a backgammon match in a
    Togyz run, say): its id comes from where it lies, as it has no engine to replay it for one."""
    identity = hashlib.sha256(f"invalid {kind} {facts.source} {facts.index}".encode()).hexdigest()[:16]
    row: dict[str, Any] = {
        "game_id": identity,
        "game": kind,
        "source": facts.source,
        "index": facts.index,
        "format": facts.format,
        "headers": dict(facts.headers),
        "result": facts.result,
        "termination": facts.termination,
        "plies": facts.plies,
        "status": "invalid",
        "error": "; ".join(str(error) for error in facts.errors),
        "settings": settings.key,
    }
    for header, column in HEADER_COLUMNS.items():
        row[column] = facts.headers.get(header)
    return row


@dataclass(frozen=True)
class Skipped:
    """A valid game under the paths that this run does not analyse (a game of another kind)."""

    source: str
    index: int
    reason: str


def plan(
    paths: Iterable[str | Path], settings: BatchSettings, limits: ReadLimits | None = None
) -> Iterator[GameTask | Skipped | dict[str, Any]]:
    """A task per valid game under ``paths``, a finished ``invalid`` row per bad game (of any kind) or
    unreadable file, and a ``Skipped`` note per valid game of another kind than ``settings.game``. Records
    are read within ``limits`` (the defaults if None), one game at a time."""
    write_record = analyser(settings.game).write_record
    for item in archive_games(paths, limits or ReadLimits()):
        if isinstance(item, Unreadable):
            identity = hashlib.sha256(f"unreadable {item.source}".encode()).hexdigest()[:16]
            yield {
                "game_id": identity,
                "game": settings.game,
                "source": item.source,
                "index": 0,
                "plies": 0,
                "status": "invalid",
                "error": item.reason,
                "settings": settings.key,
            }
            continue
        kind, game = item
        if kind.name != settings.game:
            facts = kind.facts(game)
            if facts.errors:
                yield _other_kind_row(kind.name, facts, settings)
                continue
            yield Skipped(facts.source, facts.index, f"a {kind.name} game; this run analyses {settings.game}")
            continue
        identity = identity_of(game, settings)
        if not game.valid:
            errors = "; ".join(str(error) for error in game.errors)
            yield {**_base_row(game, identity, settings), "status": "invalid", "error": errors}
            continue
        record = game.record
        yield GameTask(identity, record.source, record.index, record.format, write_record(game), game.plies)


def _stats_columns(review: GameReview) -> dict[str, Any]:
    columns: dict[str, Any] = {}
    for side, player in zip(("white", "black"), review.players, strict=True):
        columns[f"{side}_inaccuracies"] = player.inaccuracies
        columns[f"{side}_mistakes"] = player.mistakes
        columns[f"{side}_blunders"] = player.blunders
        columns[f"{side}_accuracy"] = player.accuracy
        columns[f"{side}_mean_loss"] = player.mean_loss
    return columns


def analyse_task(task: GameTask, settings: BatchSettings) -> tuple[pa.Table, dict[str, Any]]:
    """Replay and review one game: its ``moves`` rows and its ``games`` row (status ``ok``)."""
    kind = game_kind(settings.game)
    tools = analyser(settings.game)
    (game,) = kind.read_games(task.record.encode("utf-8"), task.source)
    if not game.valid:  # the record was valid when planned: this is a bug, not bad input
        raise ValueError(f"game {task.game_id} no longer replays: {game.errors[0]}")
    review = review_game(
        game, tools.engine(), tools.win_curve(), ReviewSettings(settings.limit(), settings.thresholds)
    )
    row = {
        **_base_row(game, task.game_id, settings),
        "source": task.source,
        "index": task.index,
        "format": task.format,
        "status": "ok",
        **_stats_columns(review),
    }
    return moves_table(task.game_id, review.plies), row
