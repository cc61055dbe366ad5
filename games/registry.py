"""The games taldau knows, each behind the same small surface, so that analysis and workers never branch
on the game."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from taldau.games.records import RecordError, RecordFile


@dataclass(frozen=True)
class GameFacts:
    """What a check of an archive reports about one replayed game, in the same shape for every game.
    ``details`` holds the game's own fields (Togyz kazans; backgammon winner, points and cube)."""

    source: str
    index: int
    format: str
    plies: int
    result: str | None
    termination: str
    errors: tuple[RecordError, ...]
    headers: dict[str, str] = field(default_factory=dict)
    players: tuple[str, ...] = ()
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Analyser:
    """What the batch analysis needs of a game with an engine: its record written back as text (a task),
    the engine, its analysis limit, its winning-chance curve and its version."""

    write_record: Callable[[Any], str]
    engine: Callable[[], Any]
    limit: Callable[[int | None, int | None], Any]
    win_curve: Callable[[], Any]
    engine_version: Callable[[], str]


@dataclass(frozen=True)
class GameKind:
    """A game as the rest of taldau sees it: recognising and reading its record files (``read_file``, one
    game at a time; ``read_games`` for a record in memory), the facts of a replayed game, and its
    ``analyser`` once the game has an engine (None before)."""

    name: str
    recognises: Callable[[RecordFile], bool]
    read_file: Callable[[RecordFile], Iterator[Any]]
    read_games: Callable[[bytes, str], Iterator[Any]]
    facts: Callable[[Any], GameFacts]
    analyser: Analyser | None = None


def _togyz() -> GameKind:
    from taldau.games.togyz import Game, read_games, replay_file, write_playok
    from taldau.games.togyz.chances import load_win_curve
    from taldau.games.togyz.engine import Engine, Limit, default_limit, engine_version

    def limit(depth: int | None, nodes: int | None) -> Limit:
        return default_limit() if depth is None and nodes is None else Limit(depth=depth, nodes=nodes)

    def facts(game: Game) -> GameFacts:
        record = game.record
        players = tuple(record.headers[name] for name in ("White", "Black") if name in record.headers)
        return GameFacts(
            source=record.source,
            index=record.index,
            format=record.format,
            plies=game.plies,
            result=game.result,
            termination=game.termination.value,
            errors=tuple(game.errors),
            headers=dict(record.headers),
            players=players,
            details={"kazans": list(game.kazans)},
        )

    return GameKind(
        "togyz",
        recognises=lambda file: True,
        read_file=replay_file,
        read_games=read_games,
        facts=facts,
        analyser=Analyser(write_playok, Engine, limit, load_win_curve, engine_version),
    )


def _backgammon() -> GameKind:
    from taldau.games.backgammon import Game, read_games, recognises, replay_file

    def facts(game: Game) -> GameFacts:
        match = game.match
        winner = game.winner
        points = game.points if winner is not None else None
        result = None if winner is None else (f"{points}-0" if winner == 0 else f"0-{points}")
        return GameFacts(
            source=game.source,
            index=game.index,
            format=match.format,
            plies=game.plies,
            result=result,
            termination=game.termination.value,
            errors=tuple(game.errors),
            headers=dict(match.headers),
            players=match.players,
            details={
                "players": list(match.players),
                "match_length": match.length,
                "score": list(game.start.score),
                "score_after": list(game.score_after),
                "winner": None if winner is None else winner + 1,
                "winner_name": None if winner is None else match.players[winner],
                "points": points,
                "value": None if game.value is None else game.value.name.lower(),
                "cube": game.cube,
                "warnings": [
                    {"line": w.line, "column": w.column, "message": w.message} for w in game.warnings
                ],
            },
        )

    return GameKind(
        "backgammon", recognises=recognises, read_file=replay_file, read_games=read_games, facts=facts
    )


# In the order records are recognised: the last one takes whatever the others do not claim.
KINDS: dict[str, Callable[[], GameKind]] = {"backgammon": _backgammon, "togyz": _togyz}


def game_kind(name: str) -> GameKind:
    """The game called ``name``; raises ValueError for an unknown one."""
    if name not in KINDS:
        raise ValueError(f"unknown game {name!r}; known: {', '.join(sorted(KINDS))}")
    return KINDS[name]()


def analyser(name: str) -> Analyser:
    """The analyser of the game called ``name``; raises ValueError when it has none yet."""
    kind = game_kind(name)
    if kind.analyser is None:
        raise ValueError(
            f"taldau has no {name} engine yet: `taldau validate` reads and checks {name} records"
        )
    return kind.analyser


def detect_game(file: RecordFile) -> GameKind:
    """The game a record file holds, by its content."""
    for name in KINDS:
        kind = game_kind(name)
        if kind.recognises(file):
            return kind
    raise AssertionError("the last game kind recognises every record")
