"""Static evaluation of Togyz Kumalak positions: a weighted sum of features, from the mover's side.

Scores are in centi-kumalak (100 = one stone in the kazan). The features, each computed for the side to move
minus the same for the opponent:

- ``KAZAN``: kazan difference, the material already won (fixed weight 100, the unit of the score);
- ``BOARD``: stones on one's own side of the board (they are one's own at an atsyrau ending);
- ``MOBILITY``: non-empty pits, the number of moves one has;
- ``CAPTURE``: the largest capture one could make at once (the opponent's is ``THREAT``, stones that can be
  captured from us);
- ``TUZDYK_1`` .. ``TUZDYK_8``: owning a tuzdyk on the opponent's pit n (-1 when the opponent owns one on
  ours), scaled by the share of stones still on the board, since a tuzdyk earns from stones sown through it;
- ``ATSYRAU``: danger of running out of stones, ``max(0, 6 - stones on one's side)``;
- ``ENDING``: stones on one's own side times how far the game is into its ending, ``1 - stones on the
  board / 162``: with ``BOARD`` a stone on one's row is worth ``BOARD + ENDING * (1 - board / 162)``, more as
  the board empties, where each such stone is both a move one can still make and, at atsyrau, a stone kept;
- ``RUNWAY``: the moves one could still make alone before one's row is empty (``RUNWAY_MOVES``: a stone
  in pit p, 1 to 9, can step 10 - p times before it leaves the row), times the same ``1 - board / 162``;
- ``COLLECT``: who collects at atsyrau, ``board * (runway - theirs) / (runway + theirs + 1)`` times
  ``1 - board / 162``: the stones left on the board, staked on who starves first (atsyrau: the player to
  move with no stones on their row ends the game, and the opponent takes every stone left on the board).

The last three see the endings where a player leads on kazan but starves: few stones on their row against
many on the opponent's, no moves left, and the opponent collecting at atsyrau (issue 43).

The weights are fitted on real games by ``taldau tune`` (see ``tuning``) and shipped in ``weights.json``. The
default's give the last three features no weight: refitted with them (``weights-endings.json``, the
``endings`` search settings) the evaluation played level with the default in self-play and beat the AlphaZero
net more often, but its review's marks agreed less with a deeper search (BENCHMARKS.md, "Starved endings").
"""

from __future__ import annotations

import json
from importlib import resources

import numpy as np
from taldau.base.jit import njit

from .board import CELLS, KAZAN, PITS, SIDE, STONES, TUZDYK

FEATURES = (
    "KAZAN",
    "BOARD",
    "MOBILITY",
    "CAPTURE",
    "THREAT",
    "TUZDYK_1",
    "TUZDYK_2",
    "TUZDYK_3",
    "TUZDYK_4",
    "TUZDYK_5",
    "TUZDYK_6",
    "TUZDYK_7",
    "TUZDYK_8",
    "ATSYRAU",
    "ENDING",
    "RUNWAY",
    "COLLECT",
)
N_FEATURES = len(FEATURES)
ENDINGS = FEATURES.index("ENDING")  # the first of the three ending features, the last of FEATURES
KAZAN_WEIGHT = 100  # one kumalak, the unit of every score
ATSYRAU_MARGIN = 6


def _landing_tables() -> tuple[np.ndarray, np.ndarray]:
    """For every origin cell and stone count: the cell of the last stone, and how many of the sown stones
    land there (more than one once the sowing laps the board)."""
    last = np.zeros((CELLS, STONES + 1), dtype=np.int8)
    landed = np.ones(STONES + 1, dtype=np.int8)
    for origin in range(CELLS):
        last[origin, 1] = (origin + 1) % CELLS
        for stones in range(2, STONES + 1):
            last[origin, stones] = (origin + stones - 1) % CELLS
    for stones in range(2, STONES + 1):
        landed[stones] = (stones - 1) // CELLS + 1
    last.flags.writeable = False
    landed.flags.writeable = False
    return last, landed


def _runway_table() -> np.ndarray:
    """``RUNWAY_MOVES[pit, stones]``: the moves a player can make alone (the opponent adding nothing) from
    ``stones`` in ``pit`` (0..8) before they have left the row, the pit taken on its own.

    A single stone in pit p (0-based) steps to the next pit each move: 9 - p moves. A pile is sown at once,
    one stone back into its pit and one into each next pit: one move, then the stones that stayed on the
    row (pits p .. min(p + stones - 1, 8)) step out one by one, the front one first so they never meet.
    """
    table = np.zeros((PITS, STONES + 1), dtype=np.int64)
    for pit in range(PITS):
        table[pit, 1] = PITS - pit
        for stones in range(2, STONES + 1):
            table[pit, stones] = 1 + sum(PITS - cell for cell in range(pit, min(pit + stones, PITS)))
    table.flags.writeable = False
    return table


# Constants of the sowing rule (numba freezes them into the compiled code).
LAST_CELL, LANDED = _landing_tables()
RUNWAY_MOVES = _runway_table()


@njit(cache=True)
def capture_of(state: np.ndarray, side: int, pit: int) -> int:
    """Stones that sowing ``side``'s pit ``pit`` (0..8) would take with its last stone, without playing it.

    An even count is taken whole; a new tuzdyk counts its 3 stones. 0 for an empty pit or a quiet move.
    Table-driven and without branches: this runs eighteen times per evaluation.
    """
    origin = side * PITS + pit
    stones = np.int64(state[origin])
    last = np.int64(LAST_CELL[origin, stones])
    # The origin is emptied first: when the last stone comes back to it, only the sown stones count.
    count = np.int64(state[last]) * (last != origin) + np.int64(LANDED[stones])
    first = (1 - side) * PITS  # the opponent's pit 1
    mine = np.int64(state[TUZDYK + side])
    theirs = np.int64(state[TUZDYK + 1 - side])
    takes = (stones > 0) & (last >= first) & (last < first + PITS) & (last != mine)
    even = (count & 1) == 0
    tuzdyk = (
        (count == 3)
        & (mine < 0)
        & (last != first + PITS - 1)
        & ((theirs < 0) | (theirs - side * PITS != last - first))
    )
    return takes * (even * count + tuzdyk * 3)


@njit(cache=True)
def _side_summary(
    state: np.ndarray, side: int, gains: np.ndarray, row: int, offset: int
) -> tuple[int, int, int]:
    """Stones on ``side``'s pits, its non-empty pits and its largest capture; each pit's capture goes to
    ``gains[row, offset + pit]``."""
    stones = 0
    mobility = 0
    best = 0
    for pit in range(PITS):
        count = int(state[side * PITS + pit])
        gain = capture_of(state, side, pit)
        gains[row, offset + pit] = gain
        stones += count
        mobility += count > 0
        best = max(best, gain)
    return stones, mobility, best


@njit(cache=True, inline="always")
def _runway(state: np.ndarray, side: int) -> int:
    """``side``'s runway: ``RUNWAY_MOVES`` summed over its pits."""
    runway = 0
    for pit in range(PITS):
        runway += RUNWAY_MOVES[pit, state[side * PITS + pit]]
    return runway


@njit(cache=True, inline="always")
def features(
    state: np.ndarray,
    out: np.ndarray,
    out_at: int,
    gains: np.ndarray,
    row: int,
    gains_at: int,
    endings: bool = True,
) -> None:
    """Write the FEATURES of ``state`` (side to move minus opponent) into ``out[out_at:]``.

    ``gains[row, gains_at:]`` (18 cells) receives what each pit would capture: the side to move's pits
    first, then the opponent's, so that the search can pick captures without computing them again.
    ``endings`` False leaves the ending features (ENDING, RUNWAY, COLLECT) at 0 without computing them:
    what ``evaluate`` does where they weigh nothing, so that they cost the default evaluation nothing.
    """
    me = int(state[SIDE])
    them = 1 - me
    my_stones, my_mobility, my_best = _side_summary(state, me, gains, row, gains_at)
    their_stones, their_mobility, their_best = _side_summary(state, them, gains, row, gains_at + PITS)
    out[out_at] = state[KAZAN + me] - state[KAZAN + them]
    out[out_at + 1] = my_stones - their_stones
    out[out_at + 2] = my_mobility - their_mobility
    out[out_at + 3] = my_best
    out[out_at + 4] = their_best
    for index in range(5, 13):
        out[out_at + index] = 0.0
    share = (my_stones + their_stones) / STONES
    mine = np.int64(state[TUZDYK + me])
    if mine >= 0:
        out[out_at + 5 + mine - them * PITS] += share
    theirs = np.int64(state[TUZDYK + them])
    if theirs >= 0:
        out[out_at + 5 + theirs - me * PITS] -= share
    out[out_at + 13] = max(0, ATSYRAU_MARGIN - my_stones) - max(0, ATSYRAU_MARGIN - their_stones)
    if not endings:
        for index in range(ENDINGS, N_FEATURES):
            out[out_at + index] = 0.0
        return
    my_runway = _runway(state, me)
    their_runway = _runway(state, them)
    board = my_stones + their_stones
    ending = 1.0 - share
    out[out_at + 14] = (my_stones - their_stones) * ending
    out[out_at + 15] = (my_runway - their_runway) * ending
    out[out_at + 16] = board * (my_runway - their_runway) / (my_runway + their_runway + 1) * ending


@njit(cache=True, inline="always")
def evaluate(state: np.ndarray, weights: np.ndarray, gains: np.ndarray, row: int, gains_at: int) -> int:
    """Score of ``state`` for the side to move, in centi-kumalak: the weighted sum of its ``features``.

    ``weights`` holds the N_FEATURES weights (any cells after them are not read); ``gains[row,
    gains_at:]`` receives each pit's capture (see ``features``). The sum is the one of ``features`` times
    ``weights`` taken term by term in FEATURES order, with the terms whose feature is 0 left out (adding
    them changes nothing), so that it is the same number to the last bit. The side to move is a constant
    of each of the two compiled bodies (the compiler folds the rows' cells and tuzdyks into them), which
    takes a quarter off the evaluation's time.
    """
    if state[SIDE] == 0:
        return _evaluate_for(state, weights, gains, row, gains_at, 0)
    return _evaluate_for(state, weights, gains, row, gains_at, 1)


@njit(cache=True, inline="always")
def _evaluate_for(
    state: np.ndarray, weights: np.ndarray, gains: np.ndarray, row: int, gains_at: int, me: int
) -> int:
    """``evaluate`` with ``me``, the side to move, given (0 or 1)."""
    them = 1 - me
    my_stones, my_mobility, my_best = _side_summary(state, me, gains, row, gains_at)
    their_stones, their_mobility, their_best = _side_summary(state, them, gains, row, gains_at + PITS)
    total = 0.0
    total += weights[0] * float(state[KAZAN + me] - state[KAZAN + them])
    total += weights[1] * float(my_stones - their_stones)
    total += weights[2] * float(my_mobility - their_mobility)
    total += weights[3] * float(my_best)
    total += weights[4] * float(their_best)
    share = (my_stones + their_stones) / STONES
    mine = np.int64(state[TUZDYK + me])
    theirs = np.int64(state[TUZDYK + them])
    mine_at = mine - them * PITS if mine >= 0 else np.int64(-1)
    theirs_at = theirs - me * PITS if theirs >= 0 else np.int64(-1)
    if mine_at >= 0 and mine_at == theirs_at:
        total += weights[5 + mine_at] * (share - share)
    elif mine_at >= 0 and (theirs_at < 0 or mine_at < theirs_at):
        total += weights[5 + mine_at] * share
        if theirs_at >= 0:
            total += weights[5 + theirs_at] * -share
    elif theirs_at >= 0:
        total += weights[5 + theirs_at] * -share
        if mine_at >= 0:
            total += weights[5 + mine_at] * share
    total += weights[13] * float(max(0, ATSYRAU_MARGIN - my_stones) - max(0, ATSYRAU_MARGIN - their_stones))
    if weights[ENDINGS] != 0.0 or weights[ENDINGS + 1] != 0.0 or weights[ENDINGS + 2] != 0.0:
        my_runway = _runway(state, me)
        their_runway = _runway(state, them)
        board = my_stones + their_stones
        ending = 1.0 - share
        total += weights[14] * ((my_stones - their_stones) * ending)
        total += weights[15] * ((my_runway - their_runway) * ending)
        total += weights[16] * (board * (my_runway - their_runway) / (my_runway + their_runway + 1) * ending)
    return int(np.floor(total + 0.5))


def kazan_only_weights() -> np.ndarray:
    """Weights of the plain evaluation: kazan difference and nothing else."""
    weights = np.zeros(N_FEATURES)
    weights[0] = KAZAN_WEIGHT
    return weights


def load_weights(path: str | None = None, packaged: str = "weights.json") -> np.ndarray:
    """The tuned weights (centi-kumalak per feature unit) from ``path``, else from the packaged file
    ``packaged``: ``weights.json`` (the default evaluation's) or ``weights-endings.json`` (the ending
    features' fit, issue 43)."""
    if path is None:
        text = resources.files(__package__).joinpath(packaged).read_text()
    else:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    named = json.loads(text)["weights"]
    missing = [name for name in FEATURES if name not in named]
    if missing:
        raise ValueError(f"weights file lacks {', '.join(missing)}")
    return np.array([float(named[name]) for name in FEATURES])
