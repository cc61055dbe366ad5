"""What the nets see of a backgammon position: Tesauro's encoding of every point plus a few features that
players count by hand.

For each side (the side on roll first, then its opponent) and each of its 24 points and the bar, four
units say how many checkers stand there: at least 1, at least 2, at least 3, and (n - 3) / 2 beyond three,
as in TD-Gammon; a lone checker (a *blot*) and a made point (two or more) are thus what the net sees
first. Then, per side, ``FEATURES`` numbers gnubg's input list also has in some form: checkers borne off,
the pip count (pips needed to bear everything off), home-board points made, the longest *prime* (run of
made points that blocks the opponent), checkers *back* (in the opponent's home board or on the bar), blots,
and the share of the 36 rolls with which the other side hits one of its blots (*shots*).

The point units are sparse (a side occupies at most 15 of its 25 places), so the encoder writes the
non-zero inputs as (index, value) pairs: the first layer then adds one weight row per non-zero input
instead of multiplying a mostly-zero vector.
"""

from __future__ import annotations

import numpy as np
from taldau.games.jit import njit

from ..board import MOVER, OPPONENT, ROW

UNITS = 4  # per point: at least 1, 2, 3 checkers, and the excess beyond 3
POINT_INPUTS = 2 * ROW * UNITS
FEATURE_NAMES = ("off", "pips", "home_points", "prime", "back", "blots", "shots")
FEATURES = len(FEATURE_NAMES)
INPUTS = POINT_INPUTS + 2 * FEATURES
MAX_NONZERO = 2 * 15 * UNITS + 2 * FEATURES  # every checker on its own place, all features non-zero

# The 21 distinct rolls (high, low) and how many of the 36 ordered rolls each stands for.
ROLL_DICE = np.array([(high, low) for high in range(1, 7) for low in range(1, high + 1)], dtype=np.int64)
ROLL_WEIGHTS = np.array([1 if high == low else 2 for high, low in ROLL_DICE], dtype=np.int64)
ROLL_DICE.flags.writeable = False
ROLL_WEIGHTS.flags.writeable = False


@njit(cache=True, inline="always")
def _open_for(board: np.ndarray, attacker: int, index: int) -> bool:
    """Whether ``attacker`` may land on its own ``index`` (0..23): the defender does not hold it."""
    return board[1 - attacker, 23 - index] < 2


@njit(cache=True)
def hitting_rolls(board: np.ndarray, attacker: int) -> int:
    """Of the 36 rolls, how many let ``attacker`` (row 0 or 1) hit at least one blot of the other side,
    directly or with a combination whose landing points are open. Checkers on the bar count as starting
    from the bar; that they must enter before anything else moves is ignored (a feature, not a rule)."""
    defender = 1 - attacker
    has_blot = False
    for index in range(24):
        if board[defender, index] == 1:
            has_blot = True
            break
    if not has_blot:
        return 0
    total = 0
    for roll in range(21):
        high = ROLL_DICE[roll, 0]
        low = ROLL_DICE[roll, 1]
        hits = False
        for start in range(ROW):
            if board[attacker, start] == 0:
                continue
            if high == low:
                spot = start
                for _ in range(4):
                    spot -= high
                    if spot < 0 or not _open_for(board, attacker, spot):
                        break
                    if board[defender, 23 - spot] == 1:
                        hits = True
                        break
            else:
                for first in range(2):
                    die_a = high if first == 0 else low
                    die_b = low if first == 0 else high
                    spot = start - die_a
                    if spot < 0 or not _open_for(board, attacker, spot):
                        continue
                    if board[defender, 23 - spot] == 1:
                        hits = True
                        break
                    spot -= die_b
                    if spot >= 0 and _open_for(board, attacker, spot) and board[defender, 23 - spot] == 1:
                        hits = True
                        break
            if hits:
                break
        if hits:
            total += ROLL_WEIGHTS[roll]
    return total


@njit(cache=True)
def _side_features(board: np.ndarray, side: int, out: np.ndarray) -> None:
    """The ``FEATURES`` numbers of ``side`` (row 0 or 1), scaled to about 0..1."""
    row = board[side]
    on_board = 0
    pips = 0
    home = 0
    prime = 0
    run = 0
    back = 0
    blots = 0
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
            else:
                run = 0
            if count == 1:
                blots += 1
        if index >= 18:
            back += count
    out[0] = (15 - on_board) / 15.0
    out[1] = pips / 100.0
    out[2] = home / 6.0
    out[3] = prime / 6.0
    out[4] = back / 15.0
    out[5] = blots / 15.0
    out[6] = hitting_rolls(board, 1 - side) / 36.0


@njit(cache=True)
def encode(board: np.ndarray, indices: np.ndarray, values: np.ndarray, features: np.ndarray) -> int:
    """Write the non-zero inputs of ``board`` (side on roll in row MOVER) as ``indices``/``values`` pairs
    (arrays of at least MAX_NONZERO); ``features`` is working memory of FEATURES floats. Returns how many
    pairs were written."""
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
    count = encode(np.ascontiguousarray(board, dtype=np.int8), indices, values, features)
    dense = np.zeros(INPUTS, dtype=np.float32)
    dense[indices[:count]] = values[:count]
    return dense
