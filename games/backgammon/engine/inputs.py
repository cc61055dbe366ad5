"""What the nets see of a backgammon position: Tesauro's encoding of every point plus a few features that
players count by hand.

For each side (the side on roll first, then its opponent) and each of its 24 points and the bar, four
units say how many checkers stand there: at least 1, at least 2, at least 3, and (n - 3) / 2 beyond three,
as in TD-Gammon; a lone checker (a *blot*) and a made point (two or more) are thus what the net sees
first. Then, per side, ``FEATURES`` numbers in the spirit of gnubg's input list, the things players count
by hand: checkers borne off, the pip count (pips needed to bear everything off), home-board points made,
the longest *prime* (run of made points that blocks the opponent), checkers *back* (in the opponent's home
board or on the bar), blots; what the other side threatens against them (*shots*: rolls of 36 that hit a
blot; *double shots*: rolls that hit two; the pips lost to hits over the 36 rolls); where the side's
rearmost checker and rearmost made point stand, its most advanced *anchor* (a made point in the opponent's
home board); the pips its checkers still need to pass the opponent's rearmost checker (to break contact);
the rolls that let its rearmost checker *escape* past the opponent's points, and how well its own points
*contain* a checker of the opponent's behind them (the fewest escapes over the opponent's 16-point to bar).

A *pruning* net (a small net that only sorts plays before the full nets judge the best few) sees the
point units alone (``POINT_INPUTS``): they cost almost nothing to write, the features most of the encoding.

The point units are sparse (a side occupies at most 15 of its 25 places), so the encoder writes the
non-zero inputs as (index, value) pairs: the first layer then adds one weight row per non-zero input
instead of multiplying a mostly-zero vector.
"""

from __future__ import annotations

import numpy as np
from taldau.base.jit import njit

from ..rules.board import MOVER, OPPONENT, ROLL_COUNTS, ROLL_DICE, ROW, rearmost

UNITS = 4  # per point: at least 1, 2, 3 checkers, and the excess beyond 3
POINT_INPUTS = 2 * ROW * UNITS
FEATURE_NAMES = (
    "off",
    "pips",
    "home_points",
    "prime",
    "back",
    "blots",
    "shots",
    "double_shots",
    "pip_loss",
    "rear",
    "back_anchor",
    "forward_anchor",
    "contact_pips",
    "escapes",
    "contain",
)
FEATURES = len(FEATURE_NAMES)
INPUTS = POINT_INPUTS + 2 * FEATURES
MAX_NONZERO = 2 * 15 * UNITS + 2 * FEATURES  # every checker on its own place, all features non-zero


@njit(cache=True, inline="always")
def _open_for(board: np.ndarray, attacker: int, index: int) -> bool:
    """Whether ``attacker`` may land on its own ``index`` (0..23): the defender does not hold it."""
    return board[1 - attacker, 23 - index] < 2


# Bit k of ROLLS_WITH_DIE[d] is set when roll k (of board.ROLL_DICE) shows the die d (1..6).
ROLLS_WITH_DIE = np.array(
    [sum(1 << k for k, (high, low) in enumerate(ROLL_DICE) if die in (high, low)) for die in range(7)],
    dtype=np.int64,
)
ROLLS_WITH_DIE.flags.writeable = False


@njit(cache=True, inline="always")
def _roll_bit(high: int, low: int) -> int:
    """The bit of the roll ``high``-``low`` (high >= low) in the order of board.ROLL_DICE."""
    return 1 << (high * (high - 1) // 2 + low - 1)


@njit(cache=True, inline="always")
def _rolls_hitting(board: np.ndarray, attacker: int, target: int) -> int:
    """The rolls (bits in the order of board.ROLL_DICE) with which ``attacker`` hits a blot on its own
    ``target`` (0..23) with one checker, directly or with a combination whose landing points are open."""
    hits = 0
    for start in range(target + 1, ROW):
        if board[attacker, start] == 0:
            continue
        distance = start - target
        if distance <= 6:
            hits |= ROLLS_WITH_DIE[distance]
        if distance <= 11:  # two different dice: either may be played first
            for high in range(max(distance - 6, (distance + 2) // 2), min(6, distance - 1) + 1):
                low = distance - high
                if low < high and (
                    _open_for(board, attacker, start - high) or _open_for(board, attacker, start - low)
                ):
                    hits |= _roll_bit(high, low)
        for die in range(1, 7):  # a double: every landing point on the way must be open
            steps = distance // die
            if steps < 2 or steps > 4 or steps * die != distance:
                continue
            clear = True
            for step in range(1, steps):
                if not _open_for(board, attacker, start - step * die):
                    clear = False
                    break
            if clear:
                hits |= _roll_bit(die, die)
    return hits


@njit(cache=True, inline="always")
def _weight(rolls: int) -> int:
    """How many of the 36 rolls the roll bits ``rolls`` stand for (a double once, other rolls twice)."""
    total = 0
    for roll in range(21):
        if rolls & (1 << roll):
            total += ROLL_COUNTS[roll]
    return total


@njit(cache=True)
def shots(board: np.ndarray, attacker: int) -> tuple[int, int, int]:
    """What ``attacker`` (row 0 or 1) threatens against the other side's blots, as players count it: the
    rolls of 36 that hit at least one blot (*shots*), the rolls that hit two or more (*double shots*,
    each blot with some play of the roll, not always with the same play), and the pips the other side
    loses to the hits summed over the 36 rolls (each roll hitting the blot that would cost the most: a
    blot on the defender's point p loses 25 - p pips to the bar). Hits come from one checker, directly or
    with a combination whose landing points are open. It is a feature, not the rules: checkers on the bar
    count as starting from the bar although they must enter before anything else moves, and a hit counts
    even when the rule that both dice must be played (or the larger one) forbids it (about one position
    in a thousand of self-play)."""
    defender = 1 - attacker
    hit = 0
    double = 0
    loss = 0
    for target in range(23, -1, -1):  # the blot's place in the attacker's numbering, costliest first
        if board[defender, 23 - target] != 1:
            continue
        rolls = _rolls_hitting(board, attacker, target)
        loss += _weight(rolls & ~hit) * (target + 1)
        double |= rolls & hit
        hit |= rolls
    return _weight(hit), _weight(double), loss


@njit(cache=True)
def hitting_rolls(board: np.ndarray, attacker: int) -> int:
    """Of the 36 rolls, how many let ``attacker`` (row 0 or 1) hit at least one blot of the other side:
    the first of ``shots``."""
    return shots(board, attacker)[0]


def _escape_table() -> np.ndarray:
    """ESCAPES[mask]: of the 36 rolls, how many carry a checker past the points in ``mask`` (bit d - 1
    set when the point d pips in front of it is held by the other side, d = 1..12), by gnubg's count:
    the roll's sum must land on an open point and one of its dice must."""
    table = np.zeros(1 << 12, dtype=np.int64)
    for mask in range(1 << 12):
        for high in range(1, 7):
            for low in range(1, high + 1):
                lands = not mask & (1 << (high + low - 1))
                steps = not (mask & (1 << (high - 1)) and mask & (1 << (low - 1)))
                if lands and steps:
                    table[mask] += 1 if high == low else 2
    table.flags.writeable = False
    return table


ESCAPES = _escape_table()


@njit(cache=True, inline="always")
def _made_points(row: np.ndarray) -> int:
    """Bit i set when the side of ``row`` holds its point i + 1 (two checkers or more)."""
    made = 0
    for index in range(24):
        if row[index] >= 2:
            made |= 1 << index
    return made


@njit(cache=True, inline="always")
def _escapes(blockers: int, index: int) -> int:
    """ESCAPES of a checker on its ``index`` (0..24, 24 the bar) when the other side holds the points of
    ``blockers`` (``_made_points`` in its own numbering)."""
    reach = min(index, 12)
    return ESCAPES[(blockers >> (24 - index)) & ((1 << reach) - 1)]


@njit(cache=True)
def _side_features(board: np.ndarray, side: int, out: np.ndarray) -> None:
    """The ``FEATURES`` numbers of ``side`` (row 0 or 1), scaled to about 0..1."""
    row = board[side]
    other = 1 - side
    on_board = 0
    pips = 0
    home = 0
    prime = 0
    run = 0
    back = 0
    blots = 0
    own_points = 0  # bit i: the side holds its index i
    back_anchor = -1
    forward_anchor = -1
    for index in range(ROW):
        count = row[index]
        on_board += count
        pips += count * (index + 1)
        if index < 24:
            if count >= 2:
                run += 1
                if run > prime:
                    prime = run
                if index < 6:
                    home += 1
                own_points |= 1 << index
                back_anchor = index
                if index >= 18 and forward_anchor < 0:
                    forward_anchor = index
            else:
                run = 0
            if count == 1:
                blots += 1
        if index >= 18:
            back += count
    rear = rearmost(row)
    passed = 23 - rearmost(board[other])  # the side's own index of the other side's rearmost checker
    contact_pips = 0
    for index in range(max(0, passed + 1), ROW):
        contact_pips += row[index] * (index - passed)
    least = 36
    for start in range(15, ROW):  # a checker of the other side on its 16-point .. bar, facing our points
        least = min(least, _escapes(own_points, start))
    hit, double, loss = shots(board, other)
    out[0] = (15 - on_board) / 15.0
    out[1] = pips / 100.0
    out[2] = home / 6.0
    out[3] = prime / 6.0
    out[4] = back / 15.0
    out[5] = blots / 15.0
    out[6] = hit / 36.0
    out[7] = double / 36.0
    out[8] = loss / (36.0 * 24.0)
    out[9] = (rear + 1) / 25.0
    out[10] = (back_anchor + 1) / 24.0
    out[11] = 0.0 if forward_anchor < 0 else (24 - forward_anchor) / 6.0
    out[12] = contact_pips / 100.0
    out[13] = 0.0 if rear < 0 else _escapes(_made_points(board[other]), rear) / 36.0
    out[14] = (36 - least) / 36.0


@njit(cache=True, inline="always")
def encode(
    board: np.ndarray, inputs: int, indices: np.ndarray, values: np.ndarray, features: np.ndarray
) -> int:
    """Write the non-zero inputs of ``board`` (side on roll in row MOVER) as ``indices``/``values`` pairs
    (arrays of at least MAX_NONZERO) for a net of ``inputs`` inputs: INPUTS, or POINT_INPUTS for the
    point units alone. ``features`` is working memory of FEATURES floats. Returns how many pairs were
    written."""
    count = 0
    for order in range(2):
        side = MOVER if order == 0 else OPPONENT
        base = order * ROW * UNITS
        for index in range(ROW):
            checkers = board[side, index]
            if checkers == 0:
                continue
            unit = base + index * UNITS
            indices[count] = unit
            values[count] = 1.0
            count += 1
            if checkers >= 2:
                indices[count] = unit + 1
                values[count] = 1.0
                count += 1
            if checkers >= 3:
                indices[count] = unit + 2
                values[count] = 1.0
                count += 1
            if checkers > 3:
                indices[count] = unit + 3
                values[count] = (checkers - 3) / 2.0
                count += 1
    if inputs == POINT_INPUTS:
        return count
    for order in range(2):
        side = MOVER if order == 0 else OPPONENT
        _side_features(board, side, features)
        base = POINT_INPUTS + order * FEATURES
        for feature in range(FEATURES):
            if features[feature] != 0.0:
                indices[count] = base + feature
                values[count] = features[feature]
                count += 1
    return count


def encode_dense(board: np.ndarray) -> np.ndarray:
    """All ``INPUTS`` inputs of one board as a dense float32 vector (for tests and inspection)."""
    indices = np.empty(MAX_NONZERO, dtype=np.int64)
    values = np.empty(MAX_NONZERO, dtype=np.float32)
    features = np.empty(FEATURES, dtype=np.float32)
    count = encode(np.ascontiguousarray(board, dtype=np.int8), INPUTS, indices, values, features)
    dense = np.zeros(INPUTS, dtype=np.float32)
    dense[indices[:count]] = values[:count]
    return dense
