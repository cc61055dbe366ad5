"""What became of every input under the paths a command was given: each file read (or not), each game found
in them, counted once and, when it was not used, listed with the reason.

``validate``, ``analyze`` and ``book build`` count the same way, so that their summaries of one folder agree:
``files`` are the record files (and archive members) met, read or not; ``games`` the distinct games found in
them, valid or invalid (a game found again is a ``duplicate`` and counts once); a file with no game record
at all is ``not a record``: empty, no game found in it, prose (notes), an SGF of another game (Go), or a
file of a directory whose name says it holds none (``README.md``, ``games.pgn.bak``: not read); a file,
member, archive or folder that is not read (refused by a limit, a path climbing out of its archive, a
broken archive, a ``.gz`` file that is not gzip) is ``not read``; a valid game of the other game than the
one a run analyses is ``other game``. Invalid games and inputs not read are problems (a command exits 1);
a file that is not a record is listed and counted, as a duplicate is, and is none.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from taldau.base.kind import GameFacts


def count(number: int, noun: str, plural: str = "") -> str:
    """``1 game``, ``2 games``: ``plural`` for a noun that does not just take an s (``ply``, ``plies``)."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def place_id(game: str, facts: GameFacts) -> str:
    """The id of an invalid game: where it lies (its content may not be a game at all, and two files that
    are not records would otherwise share one). A valid game's id is its content's (``GameKind.identity``),
    the same wherever it is found."""
    return hashlib.sha256(f"invalid {game} {facts.source} {facts.index}".encode()).hexdigest()[:16]


class Unused(StrEnum):
    """Why an input was not used (analysed, counted in a book)."""

    INVALID = "invalid"
    NOT_RECORD = "not a record"
    NOT_READ = "not read"
    DUPLICATE = "duplicate"
    OTHER_GAME = "other game"


@dataclass(frozen=True)
class Place:
    """Where a game lies: its file (or archive member) and its number in it (0: the file as a whole)."""

    source: str
    index: int

    def __str__(self) -> str:
        return self.source if self.index == 0 else f"{self.source}, game {self.index}"


@dataclass(frozen=True)
class NotUsed:
    """An input that was not used, and why: a game, or a whole file (``index`` 0). ``first`` is where a
    duplicate was found first."""

    source: str
    index: int
    reason: Unused
    detail: str = ""
    first: Place | None = None

    @property
    def place(self) -> Place:
        return Place(self.source, self.index)

    def describe(self) -> str:
        """One line for people: ``a.pgn: empty file: no game record found``, ``b.pgn, game 2: duplicate of
        a.pgn, game 1``, ``m.mat, game 1: skipped: a backgammon game; this run analyses togyz``."""
        if self.reason is Unused.DUPLICATE and self.first is not None:
            return f"{self.place}: duplicate of {self.first}"
        if self.reason is Unused.OTHER_GAME:
            return f"{self.place}: skipped: {self.detail}"
        return f"{self.place}: {self.detail or self.reason}"

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> NotUsed:
        first = data.get("duplicate_of")
        place = None if first is None else Place(first["source"], first["index"])
        return cls(data["source"], data["index"], Unused(data["reason"]), data.get("detail", ""), place)

    def to_json(self) -> dict[str, Any]:
        first = None if self.first is None else {"source": self.first.source, "index": self.first.index}
        return {
            "source": self.source,
            "index": self.index,
            "reason": str(self.reason),
            "detail": self.detail,
            "duplicate_of": first,
        }


COUNTED = {
    Unused.NOT_RECORD: "not_records",
    Unused.NOT_READ: "not_read",
    Unused.DUPLICATE: "duplicates",
    Unused.OTHER_GAME: "other_game",
}


@dataclass
class Inputs:
    """Counts of every input of a command (see the module's docstring) and the list of those not used
    (``not_used``: files that are not records or not read, duplicates, games of the other game; an invalid
    game is listed with its errors where the command lists games, not here)."""

    files: int = 0
    games: int = 0
    valid: int = 0
    invalid: int = 0
    not_records: int = 0
    not_read: int = 0
    duplicates: int = 0
    other_game: int = 0
    not_used: list[NotUsed] = field(default_factory=list)
    _last: str | None = field(default=None, repr=False, compare=False)

    def see(self, source: str) -> None:
        """Count ``source`` as a file once (a file's inputs come one after another)."""
        if source != self._last:
            self._last = source
            self.files += 1

    def game(self, source: str, valid: bool) -> None:
        """Count one distinct game of ``source``."""
        self.see(source)
        self.games += 1
        if valid:
            self.valid += 1
        else:
            self.invalid += 1

    def skip(self, item: NotUsed) -> None:
        """Count and list an input not used (not an invalid game: ``game`` counts those)."""
        self.see(item.source)
        attribute = COUNTED[item.reason]
        setattr(self, attribute, getattr(self, attribute) + 1)
        self.not_used.append(item)

    @property
    def problems(self) -> int:
        """Inputs that are bad (invalid games, inputs not read): what makes a command exit 1. Files that
        are not records, duplicates and games of the other game are not problems."""
        return self.invalid + self.not_read

    def counts(self) -> dict[str, int]:
        return {
            "files": self.files,
            "games": self.games,
            "valid": self.valid,
            "invalid": self.invalid,
            "not_records": self.not_records,
            "not_read": self.not_read,
            "duplicates": self.duplicates,
            "other_game": self.other_game,
        }

    def to_json(self) -> dict[str, Any]:
        """The counts and the list of the inputs not used, for manifests."""
        return {**self.counts(), "not_used": [item.to_json() for item in self.not_used]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Inputs:
        """The inputs of a manifest (other keys beside them are ignored)."""
        counts = {name: int(data.get(name, 0)) for name in cls().counts()}
        return cls(**counts, not_used=[NotUsed.from_json(item) for item in data.get("not_used", [])])

    def others(self) -> str:
        """The counts of the inputs not used, as words (``3 not records, 1 duplicate``), "" when none."""
        words = [
            (self.not_records, "not a record", "not records"),
            (self.not_read, "not read", "not read"),
            (self.duplicates, "duplicate", "duplicates"),
            (self.other_game, "of another game skipped", "of another game skipped"),
        ]
        return ", ".join(f"{count} {one if count == 1 else many}" for count, one, many in words if count)

    def lines(self) -> list[str]:
        """One line per input not used, in the order found; the games of the other game of one file on one
        line (``match.mat: 4 games skipped: a backgammon game; this run analyses togyz``)."""
        groups: dict[object, list[NotUsed]] = {}
        for number, item in enumerate(self.not_used):
            key = (item.source, item.detail) if item.reason is Unused.OTHER_GAME else number
            groups.setdefault(key, []).append(item)
        return [_line(items) for items in groups.values()]


def _line(items: list[NotUsed]) -> str:
    first = items[0]
    if first.reason is not Unused.OTHER_GAME:
        return first.describe()
    games = "1 game" if len(items) == 1 else f"{len(items)} games"
    return f"{first.source}: {games} skipped: {first.detail}"
