"""The games taldau knows, each behind the same face (``taldau.base.kind``), so that analysis, workers and
the CLI's game-generic commands never branch on the game."""

from __future__ import annotations

import functools
from typing import Any

from taldau.base.kind import STORED, Analyser, GameKind
from taldau.base.records import RecordFile

from .backgammon.kind import BackgammonKind
from .togyz.kind import TogyzKind

# The games, in the order the commands offer them. A kind's games are its own type, which only the kind looks
# into: the registry holds kinds of any game. FALLBACK recognises every file: it takes what no other claims.
KINDS: tuple[type[GameKind[Any]], ...] = (TogyzKind, BackgammonKind)
FALLBACK: type[GameKind[Any]] = TogyzKind
NAMES = tuple(kind.name for kind in KINDS)


def game_kind(name: str) -> GameKind[Any]:
    """The game called ``name``; raises ValueError for an unknown one."""
    for kind in KINDS:
        if kind.name == name:
            return kind()
    raise ValueError(f"unknown game {name!r}; known: {', '.join(sorted(NAMES))}")


@functools.cache
def analyser(name: str, engine: str | None = None) -> Analyser:
    """The analyser of the game called ``name``, of its ``engine`` (None: the game's default); raises
    ValueError when it has none yet, or no such engine. One per game and engine in a process, made on first
    use (its engine loads as it is first used: half a second for backgammon's nets and bear-off database)
    and the same one after, so that neither a run's tasks nor its settings load an engine twice; a pool
    forked from a process that loaded it inherits it loaded."""
    kind = game_kind(name)
    if engine is not None:
        return kind.analyser_with(engine)
    found = kind.analyser
    if found is None:
        raise ValueError(
            f"taldau has no {name} engine yet: `taldau validate` reads and checks {name} records"
        )
    return found


@functools.cache
def stored_analyser(name: str) -> Analyser:
    """The analyser of the game called ``name`` that takes the judgements its record files hold
    (``GameKind.stored``), one per process; ValueError for a game whose records hold none."""
    found = game_kind(name).stored
    if found is None:
        raise ValueError(f"{name} records hold no analysis to take: --level {STORED} is for files that do")
    return found


def detect_game(file: RecordFile) -> GameKind[Any]:
    """The game a record file holds, by its content: the first kind but FALLBACK that recognises it, else
    FALLBACK."""
    for kind in KINDS:
        found = kind()
        if kind is not FALLBACK and found.recognises(file):
            return found
    return FALLBACK()


def position_game(text: str) -> str:
    """The name of the game whose position ``text`` is (a Togyz FEN; a backgammon gnubg Position ID,
    GNUbgID or XGID): the first game of the registry that reads it; raises ValueError with each game's
    reason when none does."""
    reasons: list[str] = []
    for name in NAMES:
        try:
            game_kind(name).svg(text)
        except ValueError as error:
            reasons.append(f"{name}: {error}")
        else:
            return name
    raise ValueError(f"no game reads {text!r} as a position ({'; '.join(reasons)})")
