"""The raw (0-ply) evaluation of a backgammon position by the nets, one compiled call per position.

Positions fall in gnubg's classes: *contact* (the two sides' checkers can still meet: some checker of one
side stands behind a checker of the other) and *race* (they have passed each other; no hit is possible any
more). Each class has its own net (``NetPair``: contact, race). Bear-offs of both sides are answered exactly
by the bear-off database where the evaluator has one (``own``); the nets alone answer everything here.

The nets' raw outputs are made consistent as gnubg's sanity check does: a side that has borne off a checker
can no longer lose a gammon, gammons are at most wins, backgammons at most gammons, and in a race a side
with no checker in the other's home board cannot be backgammoned.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from taldau.base.jit import njit

from ..rules.board import MOVER, OPPONENT, rearmost
from .inputs import FEATURES, MAX_NONZERO, POINT_INPUTS, encode
from .net import SCRATCH_PER_UNIT, Net, forward, forward_points, train_step
from .probabilities import LOSE_BACKGAMMON, LOSE_GAMMON, WIN, WIN_BACKGAMMON, WIN_GAMMON

CONTACT = 0
RACE = 1
CLASS_NAMES = ("contact", "race")


@dataclass(frozen=True)
class NetPair:
    """The contact net and the race net, both over the same inputs (the full ones, or the point units
    alone for the pruning nets)."""

    contact: Net
    race: Net

    def __post_init__(self) -> None:
        if self.contact.inputs != self.race.inputs:
            raise ValueError(
                f"the contact net has {self.contact.inputs} inputs, the race net {self.race.inputs}"
            )

    @property
    def hidden(self) -> int:
        """The larger net's hidden units (the scratch memory the kernels need)."""
        return max(self.contact.hidden, self.race.hidden)

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The eight weight arrays in the order the kernels take them (contact's four, then race's)."""
        return (
            self.contact.w1,
            self.contact.b1,
            self.contact.w2,
            self.contact.b2,
            self.race.w1,
            self.race.b1,
            self.race.w2,
            self.race.b2,
        )

    def copy(self) -> NetPair:
        """An independent copy."""
        return NetPair(self.contact.copy(), self.race.copy())


@njit(cache=True)
def net_scratch(nets: tuple) -> tuple:
    """Working memory of ``evaluate_nets`` and ``train_nets`` for ``nets`` (``NetPair.arrays()``): sparse
    inputs (indices, values), features, hidden activations, hidden deltas and the five outputs."""
    units = max(nets[1].shape[0], nets[5].shape[0])
    return (
        np.empty(MAX_NONZERO, dtype=np.int64),
        np.empty(MAX_NONZERO, dtype=np.float32),
        np.empty(FEATURES, dtype=np.float32),
        np.empty(SCRATCH_PER_UNIT * units, dtype=np.float32),
        np.empty(units, dtype=np.float32),
        np.empty(5, dtype=np.float64),
    )


@njit(cache=True, inline="always")
def position_class(board: np.ndarray) -> int:
    """CONTACT or RACE: a race when the side on roll's rearmost checker has passed the opponent's."""
    mover_back = rearmost(board[MOVER])
    opponent_back = rearmost(board[OPPONENT])
    if mover_back < 0 or opponent_back < 0:
        return RACE
    # the opponent's checker at its index j stands on the mover's index 23 - j
    return RACE if mover_back + opponent_back < 23 else CONTACT


@njit(cache=True, inline="always")
def sanitise(board: np.ndarray, race: bool, out: np.ndarray) -> None:
    """Make the five probabilities consistent with each other and with the board (see the module)."""
    mover_left = 0
    opponent_left = 0
    mover_back = 0
    opponent_back = 0
    for index in range(25):
        mover_left += board[MOVER, index]
        opponent_left += board[OPPONENT, index]
        if index >= 18:
            mover_back += board[MOVER, index]
            opponent_back += board[OPPONENT, index]
    if mover_left < 15:
        out[LOSE_GAMMON] = 0.0
        out[LOSE_BACKGAMMON] = 0.0
    if opponent_left < 15:
        out[WIN_GAMMON] = 0.0
        out[WIN_BACKGAMMON] = 0.0
    if race:
        if mover_back == 0:
            out[LOSE_BACKGAMMON] = 0.0
        if opponent_back == 0:
            out[WIN_BACKGAMMON] = 0.0
    out[WIN_GAMMON] = min(out[WIN_GAMMON], out[WIN])
    out[WIN_BACKGAMMON] = min(out[WIN_BACKGAMMON], out[WIN_GAMMON])
    out[LOSE_GAMMON] = min(out[LOSE_GAMMON], 1.0 - out[WIN])
    out[LOSE_BACKGAMMON] = min(out[LOSE_BACKGAMMON], out[LOSE_GAMMON])


@njit(cache=True, inline="always")
def evaluate_nets(
    board: np.ndarray,
    nets: tuple,
    indices: np.ndarray,
    values: np.ndarray,
    features: np.ndarray,
    hidden: np.ndarray,
    out: np.ndarray,
) -> int:
    """The nets' probabilities of a live ``board`` (side on roll in row MOVER) into ``out``; returns the
    position class, which says which net answered. ``nets`` is ``NetPair.arrays()``."""
    cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2 = nets
    kind = position_class(board)
    if cw1.shape[0] == POINT_INPUTS:  # a pruning net reads the board itself: no list of inputs to write
        if kind == RACE:
            forward_points(board, rw1, rb1, rw2, rb2, hidden, out)
        else:
            forward_points(board, cw1, cb1, cw2, cb2, hidden, out)
    else:
        count = encode(board, cw1.shape[0], indices, values, features)
        if kind == RACE:
            forward(rw1, rb1, rw2, rb2, indices, values, count, hidden, out)
        else:
            forward(cw1, cb1, cw2, cb2, indices, values, count, hidden, out)
    sanitise(board, kind == RACE, out)
    return kind


@njit(cache=True)
def train_nets(
    board: np.ndarray,
    target: np.ndarray,
    rate: float,
    nets: tuple,
    indices: np.ndarray,
    values: np.ndarray,
    features: np.ndarray,
    hidden: np.ndarray,
    delta: np.ndarray,
    out: np.ndarray,
) -> float:
    """One gradient step of the net of ``board``'s class towards ``target`` (``net.train_step``); returns
    the squared error before the step. ``nets`` is ``NetPair.arrays()``, changed in place."""
    cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2 = nets
    count = encode(board, cw1.shape[0], indices, values, features)
    if position_class(board) == RACE:
        return train_step(rw1, rb1, rw2, rb2, indices, values, count, target, rate, hidden, delta, out)
    return train_step(cw1, cb1, cw2, cb2, indices, values, count, target, rate, hidden, delta, out)
