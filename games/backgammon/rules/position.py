"""Backgammon positions, dice and plays as small value objects over the compiled core.

A ``Position`` is where all 30 checkers stand, seen from the side on roll, and which player that is
(0 or 1, numbered as gnubg numbers them). ``Position.plays(dice)`` lists every legal play of a roll as a
whole turn, one per distinct result; ``Play.result`` is the position after it, seen from the next player's
side. Points are written from the mover's side: 1..24, ``bar`` (25) and ``off`` (0).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property

import numpy as np

from . import board as core
from .ids import board_from_position_id, check_board, position_id

BAR_POINT = 25
OFF_POINT = 0

Dice = tuple[int, int]
ROLLS: tuple[Dice, ...] = tuple((high, low) for high in range(1, 7) for low in range(1, high + 1))


def check_dice(dice: Sequence[int]) -> Dice:
    """The two dice as a (higher, lower) pair; raises ValueError unless both are 1..6."""
    if len(dice) != 2 or not all(isinstance(d, int | np.integer) and 1 <= d <= 6 for d in dice):
        raise ValueError(f"dice must be two numbers 1..6, not {tuple(dice)!r}")
    return max(int(dice[0]), int(dice[1])), min(int(dice[0]), int(dice[1]))


def parse_dice(text: str) -> Dice:
    """Dice written ``31``, ``3-1`` or ``3 1``; raises ValueError."""
    digits = [c for c in text if not c.isspace() and c not in "-,"]
    if len(digits) != 2 or not all(c in "123456" for c in digits):
        raise ValueError(f"dice must be two digits 1..6 such as 31, not {text!r}")
    return check_dice((int(digits[0]), int(digits[1])))


def point_name(point: int) -> str:
    """``bar``, ``off`` or the point number."""
    if point == BAR_POINT:
        return "bar"
    if point == OFF_POINT:
        return "off"
    return str(point)


class GameValue(Enum):
    """How a game was won: a single game (1 point per cube), a gammon (2: the loser bore off no checker) or
    a backgammon (3: no checker off and one still on the bar or in the winner's home board)."""

    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3


@dataclass(frozen=True)
class Outcome:
    """The end of a game on the board: the winning player and the value before the cube."""

    winner: int
    value: GameValue


class Position:
    """An immutable backgammon position: a (2, 25) board in gnubg's order (row 0 the side not on roll,
    row 1 the side on roll, index i = point i + 1 from that row's side, index 24 its bar) and ``turn``,
    the player on roll."""

    __slots__ = ("_board", "_key", "turn")

    def __init__(self, board: np.ndarray | Sequence[Sequence[int]], turn: int = 0) -> None:
        if turn not in (0, 1):
            raise ValueError(f"turn must be player 0 or 1, not {turn!r}")
        self._board = check_board(np.asarray(board).reshape(2, core.ROW))
        self.turn = turn
        self._key: int | None = None

    @classmethod
    def start(cls, turn: int = 0) -> Position:
        """The starting position with ``turn`` on roll."""
        return cls(core.start_board(), turn)

    @classmethod
    def from_position_id(cls, text: str, turn: int = 0) -> Position:
        """The position of a gnubg Position ID (the ID does not say which player is on roll)."""
        return cls(board_from_position_id(text), turn)

    @property
    def board(self) -> np.ndarray:
        """The (2, 25) board, read-only."""
        return self._board

    def position_id(self) -> str:
        """gnubg's Position ID of this position."""
        return position_id(self._board)

    @property
    def key(self) -> int:
        """A stable 64-bit key of the board and the player on roll."""
        if self._key is None:
            self._key = int(core.board_key(self._board, core.KEY_WORDS)) ^ self.turn
        return self._key

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Position)
            and self.turn == other.turn
            and np.array_equal(self._board, other._board)
        )

    def __hash__(self) -> int:
        return self.key

    def __repr__(self) -> str:
        return f"Position({self.position_id()!r}, turn={self.turn})"

    def borne_off(self, row: int) -> int:
        """Checkers that ``row`` (MOVER or OPPONENT) has borne off."""
        return core.CHECKERS - int(self._board[row].sum())

    def pips(self) -> tuple[int, int]:
        """Pip counts (mover, opponent): the pips each needs to bear off everything."""
        opponent, mover = core.pip_counts(self._board)
        return int(mover), int(opponent)

    def swapped(self) -> Position:
        """The same checkers with the other player on roll."""
        return Position(self._board[::-1], 1 - self.turn)

    def outcome(self) -> Outcome | None:
        """The end of the game if a side has borne off all its checkers, else None."""
        for row in (core.MOVER, core.OPPONENT):
            if self.borne_off(row) == core.CHECKERS:
                winner = self.turn if row == core.MOVER else 1 - self.turn
                loser = self._board[1 - row]
                if self.borne_off(1 - row) > 0:
                    value = GameValue.SINGLE
                elif loser[core.BAR] > 0 or loser[18:24].any():
                    value = GameValue.BACKGAMMON
                else:
                    value = GameValue.GAMMON
                return Outcome(winner, value)
        return None

    def plays(self, dice: Sequence[int]) -> tuple[Play, ...]:
        """Every legal play of ``dice``, one per distinct result, in the generator's order; a roll that
        cannot be played gives the one empty play."""
        buffers, count = self._generate(dice)
        return self._plays(buffers, range(count))

    def plays_leaving(self, dice: Sequence[int], checkers: np.ndarray) -> tuple[Play, ...]:
        """The legal plays of ``dice`` after which the mover's own checkers stand as ``checkers`` (a row of
        25: points 1..24 and bar); more than one when they differ only in the opponent's checkers hit."""
        buffers, count = self._generate(dice)
        same = np.flatnonzero((buffers.boards[:count, core.MOVER] == checkers).all(axis=1))
        return self._plays(buffers, same.tolist())

    def _generate(self, dice: Sequence[int]) -> tuple[PlayBuffers, int]:
        high, low = check_dice(dice)
        buffers = PlayBuffers()
        return buffers, core.generate_plays(self._board, high, low, core.KEY_WORDS, *buffers.arrays())

    def _plays(self, buffers: PlayBuffers, indices: Sequence[int]) -> tuple[Play, ...]:
        """Value objects for the generated plays at ``indices``."""
        plays = []
        lengths = buffers.lengths[: max(indices, default=-1) + 1].tolist()
        for k in indices:
            steps = tuple(
                (start + 1, end + 1 if end != core.OFF else OFF_POINT)
                for start, end in buffers.moves[k, : lengths[k]].tolist()
            )
            result = Position._trusted(buffers.boards[k, ::-1], 1 - self.turn)
            plays.append(Play(steps, result, self._board))
        return tuple(plays)

    @classmethod
    def _trusted(cls, board: np.ndarray, turn: int) -> Position:
        """A position from a board the rules core made (no checks needed)."""
        position = cls.__new__(cls)
        cells = board.copy()
        cells.flags.writeable = False
        position._board = cells
        position.turn = turn
        position._key = None
        return position

    def play_moves(self, moves: Iterable[tuple[int, int]]) -> Position:
        """The position after single checker moves (from, to) in the mover's points, seen from the next
        player's side; no legality check beyond the board staying a board."""
        board = self._board.copy()
        for start, end in moves:
            _move(board, start, end)
        return Position(board[::-1], 1 - self.turn)


@dataclass(frozen=True)
class Play:
    """One legal play: single checker moves (from, to) in playing order, in the mover's points (bar 25,
    off 0), and the position after it, from the next player's side. Its standard notation (``13/7*/5
    6/5``) and the points it hit are worked out from ``origin``, the board it was played on, when asked."""

    moves: tuple[tuple[int, int], ...]
    result: Position
    origin: np.ndarray = field(repr=False, compare=False)

    @cached_property
    def _written(self) -> tuple[str, tuple[int, ...]]:
        return notation(self.origin, self.moves)

    @property
    def text(self) -> str:
        """Standard notation, e.g. ``24/18 13/11`` or ``24/22(2)``; empty when nothing could be played."""
        return self._written[0]

    @property
    def hits(self) -> tuple[int, ...]:
        """The points (mover's numbering) where an opposing blot was hit, in playing order."""
        return self._written[1]

    def __str__(self) -> str:
        return self.text


class PlayBuffers:
    """Working memory of the play generator (results, moves, keys and a hash table), reusable per call."""

    def __init__(self) -> None:
        self.boards = np.empty((core.MAX_PLAYS, 2, core.ROW), dtype=core.BOARD_DTYPE)
        self.moves = np.empty((core.MAX_PLAYS, 4, 2), dtype=np.int8)
        self.lengths = np.empty(core.MAX_PLAYS, dtype=np.int8)
        self.keys = np.empty(core.MAX_PLAYS, dtype=np.uint64)
        self.slots = np.empty(core.MAX_PLAYS, dtype=np.int64)
        self.table = np.full(core.TABLE_SIZE, -1, dtype=np.int64)

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The arrays in ``generate_plays`` order."""
        return self.boards, self.moves, self.lengths, self.keys, self.slots, self.table


def _move(board: np.ndarray, start: int, end: int) -> bool:
    """Move the mover's checker from point ``start`` to point ``end`` on a writable board; True if it hit."""
    board[core.MOVER, start - 1] -= 1
    if end == OFF_POINT:
        return False
    board[core.MOVER, end - 1] += 1
    facing = 24 - end
    if board[core.OPPONENT, facing] == 1:
        board[core.OPPONENT, facing] = 0
        board[core.OPPONENT, core.BAR] += 1
        return True
    return False


def notation(board: np.ndarray, moves: Sequence[tuple[int, int]]) -> tuple[str, tuple[int, ...]]:
    """Standard notation of single moves played from ``board`` (mover's points): one checker's moves
    joined (``24/13``, ``13/7*/5`` keeping hit points), equal moves counted (``24/22(2)``), highest first;
    and the points hit, in playing order."""
    work = np.array(board, dtype=np.int16)
    paths: list[list[tuple[int, bool]]] = []
    hits = []
    for start, end in moves:
        hit = _move(work, start, end)
        if hit:
            hits.append(end)
        for path in reversed(paths):
            if path[-1][0] == start and start != OFF_POINT:
                path.append((end, hit))
                break
        else:
            paths.append([(start, False), (end, hit)])
    # checkers with the same start and end are written once with a count; a hit by any of them shows
    groups: dict[tuple[int, int], list[list[tuple[int, bool]]]] = {}
    for path in paths:
        groups.setdefault((path[0][0], path[-1][0]), []).append(path)
    texts = []
    for (start, end), members in sorted(groups.items(), key=lambda item: (-item[0][0], -item[0][1])):
        hit_points = {point for path in members for point, hit in path[1:] if hit}
        parts = [point_name(start)]
        parts += [f"{point_name(point)}*" for point, _ in members[0][1:-1] if point in hit_points]
        parts.append(point_name(end) + ("*" if end in hit_points else ""))
        texts.append("/".join(parts) + (f"({len(members)})" if len(members) > 1 else ""))
    text = " ".join(texts)
    return text, tuple(hits)
