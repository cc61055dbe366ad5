"""Game ids: what names a valid game in every table and every count, made of its content, so that the same
game gets the same id in any run, on any machine, from any record of it (another format, other tags).

A game is its players, as ``taldau.base.names.name_key`` recognises them, and its moves (each kind says
what makes its game: ``GameKind.identity``), and its date where the record gives one: two records of the
same players and moves are one game unless both are dated and their dates differ (a short game, or a
common line, played again another day). An id (``game_id``) is 16 hex digits: CONTENT_DIGITS of a SHA-256
of the content without the date, then the rest of one of the date (NO_DATE for a record without one), so
that whoever holds ids alone (a book's parts, analysis folders' rows) tells records of one game from two
games (``same_game``, ``FirstFound``).

Folders and books written before name their games by ``former_game_id`` (every header hashed, the date
among them); the kinds still compute it (``GameKind.former_identity``), so that a run into such a folder
recognises the games it holds.
"""

from __future__ import annotations

import datetime
import hashlib
from collections.abc import Mapping, Sequence
from typing import Generic, TypeVar

from .names import name_key

ID_DIGITS = 16
CONTENT_DIGITS = 12  # the players and moves; the other ID_DIGITS - CONTENT_DIGITS are the date's
NO_DATE = "0" * (ID_DIGITS - CONTENT_DIGITS)

Where = TypeVar("Where")


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def game_id(
    game: str, players: Sequence[str], start: str, moves: Sequence[object], date: datetime.date | None
) -> str:
    """The id of a valid game of kind ``game`` between ``players`` (as the record writes them, first
    player first), from the position ``start``, by ``moves``, played on ``date`` (None where the record
    gives none)."""
    canonical = "\n".join([game, start, " ".join(str(move) for move in moves), *map(name_key, players)])
    content = _digest(canonical)[:CONTENT_DIGITS]
    if date is None:
        return content + NO_DATE
    dated = _digest(f"date {date.isoformat()}")[: ID_DIGITS - CONTENT_DIGITS]
    return content + ("f" * len(NO_DATE) if dated == NO_DATE else dated)


def _parts(identity: str) -> tuple[str, str]:
    """An id's content and date digits (an id of another shape: all content, no date)."""
    if len(identity) != ID_DIGITS:
        return identity, NO_DATE
    return identity[:CONTENT_DIGITS], identity[CONTENT_DIGITS:]


def _same_date(first: str, second: str) -> bool:
    return first == second or NO_DATE in (first, second)


def same_game(first: str, second: str) -> bool:
    """Whether the ids ``first`` and ``second`` may name one game: the same players and moves, and the same
    date where both have one."""
    (content, date), (other, other_date) = _parts(first), _parts(second)
    return content == other and _same_date(date, other_date)


def former_game_id(game: str, headers: Mapping[str, str], start: str, moves: Sequence[object]) -> str:
    """The id a game had in folders and books written before ``game_id``: 16 hex digits of SHA-256 over the
    game's kind, every header (sorted), the start position and the moves."""
    canonical = "\n".join(
        [game, start, " ".join(str(move) for move in moves)]
        + [f"{name}={value}" for name, value in sorted(headers.items())]
    )
    return _digest(canonical)[:ID_DIGITS]


class FirstFound(Generic[Where]):
    """Where each game was found first, as the records of an archive (or the rows of several folders) are
    met one by one, by their ids: what names a game found again as a duplicate of the first.

    A record without a date is a copy of the first game of its players and moves, dated or not; an undated
    game found again by a dated record takes its date, so that two games of different dates are never both
    counted as copies of one undated record."""

    def __init__(self) -> None:
        self._found: dict[str, list[tuple[str, Where]]] = {}

    def find(self, identity: str) -> Where | None:
        """Where the game of ``identity`` was found first, None when it was not found before."""
        content, date = _parts(identity)
        found = self._found.get(content, [])
        for number, (known, first) in enumerate(found):
            if _same_date(known, date):
                if known == NO_DATE:
                    found[number] = (date, first)
                return first
        return None

    def first(self, identity: str, where: Where) -> Where:
        """Where the game of ``identity``, found at ``where``, was found first: ``where`` itself for a game
        not found before, which is then remembered."""
        first = self.find(identity)
        if first is None:
            content, date = _parts(identity)
            self._found.setdefault(content, []).append((date, where))
            return where
        return first
