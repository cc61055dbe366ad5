"""The games taldau knows, each behind the same small surface, so that analysis and workers never branch
on the game."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class GameKind:
    """What the batch analysis needs of a game: reading records, writing one back as text, an engine,
    its analysis limit and its winning-chance curve."""

    name: str
    read_games: Callable[[bytes, str], Iterator[Any]]
    write_record: Callable[[Any], str]
    engine: Callable[[], Any]
    limit: Callable[[int | None, int | None], Any]
    win_curve: Callable[[], Any]
    engine_version: Callable[[], str]


def _togyz() -> GameKind:
    from taldau.games.togyz import read_games, write_playok
    from taldau.games.togyz.chances import load_win_curve
    from taldau.games.togyz.engine import Engine, Limit, default_limit, engine_version

    def limit(depth: int | None, nodes: int | None) -> Limit:
        return default_limit() if depth is None and nodes is None else Limit(depth=depth, nodes=nodes)

    return GameKind("togyz", read_games, write_playok, Engine, limit, load_win_curve, engine_version)


KINDS: dict[str, Callable[[], GameKind]] = {"togyz": _togyz}


def game_kind(name: str) -> GameKind:
    """The game called ``name``; raises ValueError for an unknown one."""
    if name not in KINDS:
        raise ValueError(f"unknown game {name!r}; known: {', '.join(sorted(KINDS))}")
    return KINDS[name]()
