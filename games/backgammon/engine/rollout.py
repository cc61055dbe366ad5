"""Truncated rollouts with variance reduction, compiled: a deeper teacher than the plies for training labels.

A *rollout* plays a position out many times with random dice and averages the results. Ours is gnubg's
truncated, variance-reduced kind: each *trial* plays ``steps`` rolls, every play chosen at 0-ply (as the
plies choose them), and then takes the 0-ply probabilities of the position reached; from that it subtracts
the *luck* of every roll of the trial (``luck``: the value of the rolled roll's best play minus the average
over the 21 rolls, the five probabilities each). A trial that ends the game stops with the exact result.

What it estimates, exactly: the luck terms average to zero, so the mean of the trials is the expectation of
the 0-ply value after ``steps`` rolls of 0-ply play, which is the ``steps``-ply value as gnubg defines its
plies (and ``plies`` computes it: the best play of each roll chosen at 0-ply, averaged over the rolls). One
step of it is the 1-ply value exactly, whatever the dice; more steps reach past the 3 plies that full
enumeration can afford (21 ** 3 positions) at the cost of noise, which the luck terms keep small.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from taldau.base.jit import njit, prange

from ..rules.board import ROLL_COUNTS, ROLL_DICE
from .plies import _work_memory, best_reply
from .probabilities import final_probabilities, flip_into


@dataclass(frozen=True)
class Rollout:
    """Rollout settings: ``trials`` per position of ``steps`` rolls each; position ``i`` of a call takes
    its dice from ``seed + i``."""

    trials: int = 36
    steps: int = 6
    seed: int = 1

    def __post_init__(self) -> None:
        if self.trials < 1 or self.steps < 1:
            raise ValueError(f"a rollout needs at least one trial of one step, not {self}")

    def __str__(self) -> str:
        return f"rollout {self.trials}x{self.steps} seed {self.seed}"


# the 36 throws as indices into the 21 rolls (a double once, a non-double twice)
THROWS = np.repeat(np.arange(21), ROLL_COUNTS)
THROWS.flags.writeable = False


@njit(cache=True)
def rollout(
    board: np.ndarray, trials: int, steps: int, seed: int, model: tuple, work: tuple, out: np.ndarray
) -> None:
    """The mean over ``trials`` variance-reduced trials of ``steps`` rolls from ``board`` (side on roll in
    row MOVER), dice from ``seed``, into ``out`` (five probabilities from that side's point of view)."""
    np.random.seed(seed)
    total = np.zeros(5, dtype=np.float64)
    results = np.empty((21, 2, 25), dtype=np.int8)
    values = np.empty((21, 5), dtype=np.float64)
    here = np.empty((2, 25), dtype=np.int8)
    mean = np.empty(5, dtype=np.float64)
    trial_sum = np.empty(5, dtype=np.float64)
    turned = np.empty(5, dtype=np.float64)
    throws = THROWS
    if final_probabilities(board, out):
        return
    for trial in range(trials):
        here[:] = board
        trial_sum[:] = 0.0
        root_view = True  # whether the side on roll in ``here`` is the root's side
        for step in range(steps):
            # every roll's best play, valued from the side on roll in ``here``
            mean[:] = 0.0
            for roll in range(21):
                best_reply(
                    here, ROLL_DICE[roll, 0], ROLL_DICE[roll, 1], 0, model, work, results[roll], turned
                )
                flip_into(turned, values[roll])
                for k in range(5):
                    mean[k] += ROLL_COUNTS[roll] * values[roll, k] / 36.0
            # the first throw of a trial is stratified over the 36, the others random
            rolled = throws[trial % 36 if step == 0 else np.random.randint(0, 36)]
            # the trial's value: the value reached less the luck of each roll, which comes to the mean
            # over the rolls of every step, less the value of every roll played before the last
            _add(trial_sum, mean, root_view, 1.0, turned)
            if step == steps - 1 or final_probabilities(results[rolled], turned):
                break
            _add(trial_sum, values[rolled], root_view, -1.0, turned)
            here[:] = results[rolled]
            root_view = not root_view
        for k in range(5):
            total[k] += trial_sum[k]
    for k in range(5):
        out[k] = min(1.0, max(0.0, total[k] / trials))
    out[1] = min(out[1], out[0])  # the five stay consistent: gammons within wins, backgammons within gammons
    out[2] = min(out[2], out[1])
    out[3] = min(out[3], 1.0 - out[0])
    out[4] = min(out[4], out[3])


@njit(cache=True, inline="always")
def _add(
    total: np.ndarray, probabilities: np.ndarray, root_view: bool, sign: float, scratch: np.ndarray
) -> None:
    """Add ``sign`` times ``probabilities`` (from the side on roll) to ``total`` (from the root's side)."""
    if root_view:
        for k in range(5):
            total[k] += sign * probabilities[k]
    else:
        flip_into(probabilities, scratch)
        for k in range(5):
            total[k] += sign * scratch[k]


@njit(cache=True, parallel=True)
def rollout_many(
    boards: np.ndarray,
    trials: int,
    steps: int,
    seed: int,
    model: tuple,
    hidden: int,
    words: np.ndarray,
    out: np.ndarray,
) -> None:
    """``rollout`` of each of ``boards`` (n, 2, 25) into ``out`` (n, 5), spread over numba's threads with
    scratch of their own; board ``i``'s dice come from ``seed + i``, so the numbers do not depend on the
    threads."""
    cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2 = model[0]  # numba's parallel loops take arrays, not
    off, first = model[1], model[2]  # nested tuples: the model is taken apart here, built again inside
    pw1, pb1, pw2, pb2, qw1, qb1, qw2, qb2 = model[3]
    for index in prange(boards.shape[0]):
        work = _work_memory(hidden, words)
        local = (
            (cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2),
            off,
            first,
            (pw1, pb1, pw2, pb2, qw1, qb1, qw2, qb2),
        )
        rollout(boards[index], trials, steps, seed + index, local, work, out[index])
