"""A backgammon match as written in a record file, before any rule is checked.

Readers (Jellyfish match text, gnubg SGF) turn text into these values; ``replay`` checks them with the rules
core. Players are numbered as gnubg numbers them: player 0 is the left column of a Jellyfish match file
(``Player 1`` in its headers), player 1 the right column.

Words: a *point* is one of the 24 places a checker can stand, numbered 1..24 from the mover's own home
board; the *bar* (written ``bar`` or ``25``) holds hit checkers; ``off`` (or ``0``) is the tray of checkers
borne off. The *cube* is the doubling cube.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from taldau.base.records import RecordError, append_error

from ..rules.cube import DecisionKind

BAR = 25
OFF = 0


@dataclass(frozen=True)
class Segment:
    """One written piece of a play: ``13/7*/5`` is a checker from 13 to 5 hitting on 7, ``24/22(2)`` two
    checkers from 24 to 22. Points are from the mover's side, ``BAR`` (25) for the bar, ``OFF`` (0) for off.
    ``hits`` lists the points marked ``*`` (including ``end`` when the last point is marked)."""

    start: int
    end: int
    count: int = 1
    hits: tuple[int, ...] = ()
    via: tuple[int, ...] = ()


class ActionKind(Enum):
    """What one cell of a match record holds."""

    ROLL = "roll"  # dice and the play made with them (no segments: the roll could not be played)
    DOUBLE = "double"  # "Doubles => 2": the cube offered at that value
    TAKE = "take"
    DROP = "drop"  # "Drops" (pass): the doubler wins the stake before the double
    BEAVER = "beaver"  # "Beavers => 4": the taker redoubles at once and keeps the cube
    RESIGN = "resign"  # a resignation offered for ``value`` points per cube (1, 2 or 3)
    ACCEPT = "accept"  # the resignation accepted
    REJECT = "reject"  # the resignation rejected


@dataclass(frozen=True)
class Verdict:
    """A program's judgement of one decision, as the record file stores it (eXtreme Gammon's analysis in a
    ``.xg`` file): who judged (``judge``, ``XG``) at what ``level`` (``4-ply``, ``XG Roller++``), what the
    decision was (``kind``: a checker play, whether to double, whether to take), the judge's ``best`` action
    in the notation of an analysis's best (a play as ``Play.text`` writes it, ``13/8 24/23``; a cube action
    as the review names it: ``no double``, ``double``, ``take``, ``pass``) and the ``loss`` of the action
    played, in EMG as the judge stored it (0 for the best). A cube or take verdict has the judge's
    ``equities`` of No double, Double/take and Double/pass (the doubler's, EMG at the cube before the
    double: Double/pass is 1), where the file stores them."""

    judge: str
    level: str
    kind: DecisionKind
    best: str
    loss: float
    equities: tuple[float, float, float] | None = None


@dataclass(frozen=True)
class Action:
    """One thing a player did, where it is written. ``value`` is the cube value offered for DOUBLE and
    BEAVER, the points per cube for RESIGN, else 0. ``number`` is the record's move number (0 if none).
    ``unrecorded`` marks a roll whose play the record does not know (Backgammon Studio's ``61: ????``).
    ``verdicts``: the judgements of the decisions this action made that the file stores (a roll's: not
    doubling before it, then its play). ``after``: the gnubg Position ID, from the next player's side, of
    the position the record says a play leaves, where the record keeps a play it flags as not legal (XG
    does); the replay takes that position as the play's result."""

    player: int
    kind: ActionKind
    line: int
    column: int
    number: int = 0
    dice: tuple[int, int] | None = None
    segments: tuple[Segment, ...] = ()
    value: int = 0
    text: str = ""
    unrecorded: bool = False
    verdicts: tuple[Verdict, ...] = ()
    after: str = ""


@dataclass
class GameRecord:
    """One game of a match as written: the score announced at its start, the actions in order and the
    recorded outcome (``winner`` and ``points``, None when the record does not say)."""

    index: int
    line: int
    score: tuple[int, int] | None = None
    actions: list[Action] = field(default_factory=list)
    winner: int | None = None
    points: int | None = None
    match_won: bool = False
    result_line: int = 0
    errors: list[RecordError] = field(default_factory=list)
    warnings: list[RecordError] = field(default_factory=list)

    def add_error(self, line: int, column: int, message: str) -> None:
        """Attach a reading error."""
        append_error(self.errors, line, column, message)


@dataclass
class MatchRecord:
    """A match file: its headers (``Site``, ``Player 1``, ``Crawford``...), players, length (0 = money
    session), games, and errors that belong to no game (an unreadable header, say)."""

    source: str
    format: str
    headers: dict[str, str] = field(default_factory=dict)
    players: tuple[str, str] = ("", "")
    length: int = 0
    games: list[GameRecord] = field(default_factory=list)
    errors: list[RecordError] = field(default_factory=list)
    warnings: list[RecordError] = field(default_factory=list)

    @classmethod
    def unreadable(cls, source: str, message: str, format: str = "") -> MatchRecord:
        """A match standing for a file of ``format`` that could not be read, ``message`` saying why."""
        match = cls(source, format)
        match.errors.append(RecordError(0, 0, message))
        return match

    def _flag(self, name: str) -> bool:
        """A rule header (``Crawford``, ``Jacoby``, ``Beaver``): on unless the header turns it off."""
        return self.headers.get(name, "On").strip().lower() not in ("off", "false", "no", "0")

    @property
    def crawford(self) -> bool:
        """Whether the Crawford rule applies (the default in match play unless a header turns it off)."""
        return self.length > 0 and self._flag("Crawford")

    @property
    def jacoby(self) -> bool:
        """Whether the Jacoby rule applies (money play only; on unless a header turns it off)."""
        return self.length == 0 and self._flag("Jacoby")

    @property
    def beavers(self) -> bool:
        """Whether beavers are allowed (money play only; on unless a header turns them off)."""
        return self.length == 0 and self._flag("Beaver")
