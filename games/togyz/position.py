"""Togyz Kumalak positions as immutable values: pits, kazans, tuzdyks, legal moves, sowing and outcome.

A move is named by its origin pit, 1..9, counted from the mover's own left. Players: White (bastaushy)
moves first, Black (qostaushy) second. See ``board`` for the words pit, kazan and tuzdyk.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from . import board
from .board import CELLS, KAZAN, MOVE_NUMBER, PITS, SIDE, STONES, TUZDYK, WINNING_KAZAN
from .fen import format_fen, parse_fen


class Side(enum.IntEnum):
    """A player: White (South, bastaushy) moves first, Black (North, qostaushy) second."""

    WHITE = 0
    BLACK = 1

    @property
    def opponent(self) -> Side:
        return SIDES[1 - self]

    @property
    def label(self) -> str:
        return "White" if self is Side.WHITE else "Black"


SIDES = (Side.WHITE, Side.BLACK)  # Side by index, without the cost of an enum call


class Termination(enum.Enum):
    """How a game ended: by the rules (a kazan above 81; atsyrau, the side to move has no stones), by the
    result its record gives (resignation, agreement, time), or not at all (unfinished)."""

    KAZAN = "kazan"
    ATSYRAU = "atsyrau"
    RECORD = "record"
    UNFINISHED = "unfinished"


@dataclass(frozen=True)
class Outcome:
    """The end of a game by the rules (termination KAZAN or ATSYRAU); ``kazans`` are the final counts,
    after the atsyrau collection."""

    termination: Termination
    winner: Side | None
    kazans: tuple[int, int]

    @property
    def result(self) -> str:
        """The result in record notation: ``1-0``, ``0-1`` or ``1/2-1/2``."""
        if self.winner is None:
            return "1/2-1/2"
        return "1-0" if self.winner is Side.WHITE else "0-1"


@dataclass(frozen=True)
class Sowing:
    """What one move did: where its last stone fell, what it took, and the position after it.

    ``destination`` is the pit (1..9) of the last stone, numbered from its owner's left, and
    ``destination_side`` that pit's owner. ``captured`` counts the stones the last stone took (an even
    count, or the 3 of a new tuzdyk); ``landed`` is the count the last stone made in its pit, before any
    capture (0 when it fell into a tuzdyk and went on to a kazan). ``kazan`` is the mover's kazan after
    the move.
    """

    pit: int
    stones: int
    destination: int
    destination_side: Side
    landed: int
    captured: int
    tuzdyk: bool
    kazan: int
    position: Position

    @property
    def notation(self) -> str:
        """The move as PlayOK writes it: ``76``; ``76X`` making a tuzdyk; ``76(24)`` with the kazan after
        an even capture."""
        token = f"{self.pit}{self.destination}"
        if self.tuzdyk:
            return token + "X"
        if self.captured:
            return f"{token}({self.kazan})"
        return token


class Position:
    """An immutable Togyz Kumalak position, hashable by its stable 64-bit key.

    Build one with ``Position.start()`` or ``Position.from_fen(fen)``; moves return new positions.
    """

    __slots__ = ("_key", "_state")

    def __init__(self, state: np.ndarray) -> None:
        """Wrap a state array (see ``board``); the array is copied and frozen."""
        self._state = np.array(state, dtype=board.STATE_DTYPE, copy=True)
        self._state.flags.writeable = False
        self._key: int | None = None

    @classmethod
    def _own(cls, state: np.ndarray) -> Position:
        """Wrap a fresh state array that nobody else holds, without copying it."""
        position = cls.__new__(cls)
        state.flags.writeable = False
        position._state = state
        position._key = None
        return position

    @classmethod
    def start(cls) -> Position:
        """The opening position: 9 stones in each of the 18 pits, White to move."""
        return cls(board.start_state())

    @classmethod
    def from_fen(cls, fen: str) -> Position:
        """The position of a Togyz FEN; raises ``FenError`` with the reason when it is not valid."""
        return cls(parse_fen(fen))

    @property
    def state(self) -> np.ndarray:
        """The read-only state array used by the compiled kernels."""
        return self._state

    def fen(self) -> str:
        """This position as a Togyz FEN."""
        return format_fen(self._state)

    @property
    def turn(self) -> Side:
        """The side to move."""
        return SIDES[self._state[SIDE]]

    @property
    def move_number(self) -> int:
        """The full-move number, from 1, incremented after each Black move."""
        return int(self._state[MOVE_NUMBER])

    def pits(self, side: Side) -> tuple[int, ...]:
        """Stones in ``side``'s pits 1..9 (a tuzdyk reads 0)."""
        base = int(side) * PITS
        return tuple(int(n) for n in self._state[base : base + PITS])

    def kazan(self, side: Side) -> int:
        """Stones in ``side``'s kazan."""
        return int(self._state[KAZAN + int(side)])

    def tuzdyk(self, side: Side) -> int | None:
        """The opponent pit number (1..8) that is ``side``'s tuzdyk, or None."""
        cell = int(self._state[TUZDYK + int(side)])
        return None if cell < 0 else cell % PITS + 1

    @property
    def key(self) -> int:
        """Stable 64-bit Zobrist key of pits, kazans, tuzdyks and side to move (move number excluded)."""
        if self._key is None:
            self._key = int(board.position_key(self._state, board.KEY_WORDS))
        return self._key

    def legal_moves(self) -> list[int]:
        """Origin pits (1..9) the side to move may sow from; empty when the game is over."""
        mask = int(board.legal_mask(self._state))
        return [pit + 1 for pit in range(PITS) if mask >> pit & 1]

    def is_legal(self, pit: int) -> bool:
        """Whether sowing from ``pit`` (1..9) is legal here."""
        return 1 <= pit <= PITS and bool(int(board.legal_mask(self._state)) >> (pit - 1) & 1)

    def sow(self, pit: int) -> Sowing:
        """Play the move from ``pit`` (1..9) and describe what happened; raises ValueError if illegal."""
        if not self.is_legal(pit):
            raise ValueError(self.illegal_reason(pit))
        mover = self.turn
        state = self._state.copy()
        stones = int(state[int(mover) * PITS + pit - 1])
        last, captured, tuzdyk = board.sow(state, pit - 1)
        last = int(last)
        landed = int(captured) if captured else int(state[last])
        if not captured and last in (state[TUZDYK], state[TUZDYK + 1]):
            landed = 0  # the stone went on to the tuzdyk owner's kazan
        return Sowing(
            pit=pit,
            stones=stones,
            destination=last % PITS + 1,
            destination_side=SIDES[last // PITS],
            landed=landed,
            captured=int(captured),
            tuzdyk=bool(tuzdyk),
            kazan=int(state[KAZAN + int(mover)]),
            position=Position._own(state),
        )

    def play(self, pit: int) -> Position:
        """The position after sowing from ``pit`` (1..9)."""
        return self.sow(pit).position

    def san(self, pit: int) -> str:
        """The move from ``pit`` in record notation (``76``, ``76X``, ``76(24)``)."""
        return self.sow(pit).notation

    def variation_san(self, pits: Sequence[int]) -> str:
        """A line of moves from here in record notation, separated by spaces."""
        tokens = []
        position = self
        for pit in pits:
            sowing = position.sow(pit)
            tokens.append(sowing.notation)
            position = sowing.position
        return " ".join(tokens)

    def progress(self) -> float:
        """How far the game has gone, 0 at the start to 1 when no stone is left on the board."""
        return 1.0 - self.stones_on_board() / STONES

    def illegal_reason(self, pit: int) -> str:
        """Why sowing from ``pit`` is not legal here (for error messages)."""
        if not 1 <= pit <= PITS:
            return f"there is no pit {pit}; pits are numbered 1 to 9"
        if self.is_game_over():
            return "the game is already over"
        side = self.turn
        if self.tuzdyk(side.opponent) == pit:
            return f"{side.label}'s pit {pit} is {side.opponent.label}'s tuzdyk"
        if self.pits(side)[pit - 1] == 0:
            return f"{side.label}'s pit {pit} is empty"
        return f"sowing from pit {pit} is legal"

    def is_game_over(self) -> bool:
        """True when a kazan is above 81 or the side to move has no stones (atsyrau)."""
        return bool(board.is_over(self._state))

    def outcome(self) -> Outcome | None:
        """How the game ended by the rules, or None while it goes on.

        A kazan above 81 wins. Atsyrau: the side to move has no stones; the opponent takes every stone left
        on the board, then a kazan above 81 wins and 81-81 is a draw.
        """
        kazans = (self.kazan(Side.WHITE), self.kazan(Side.BLACK))
        for side in Side:
            if kazans[side] >= WINNING_KAZAN:
                return Outcome(Termination.KAZAN, side, kazans)
        if not self.is_game_over():
            return None
        stuck = self.turn
        final = list(kazans)
        final[stuck.opponent] += STONES - sum(kazans)
        winner = next((side for side in Side if final[side] >= WINNING_KAZAN), None)
        return Outcome(Termination.ATSYRAU, winner, (final[0], final[1]))

    def stones_on_board(self) -> int:
        """Stones still in the pits."""
        return int(self._state[:CELLS].sum(dtype=np.int64))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return bool(np.array_equal(self._state, other._state))

    def __hash__(self) -> int:
        return hash((self.key, self.move_number))

    def __repr__(self) -> str:
        return f"Position.from_fen({self.fen()!r})"

    def __str__(self) -> str:
        return self.fen()
