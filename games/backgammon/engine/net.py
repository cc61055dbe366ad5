"""The evaluation nets: one hidden layer of sigmoid units and five sigmoid outputs, the five cubeless
probabilities (see ``probabilities.PROBABILITIES``), in the design gnubg and TD-Gammon use.

A ``Net`` is four arrays. ``w1`` is (INPUTS, hidden) (POINT_INPUTS, hidden for a pruning net) so that
each non-zero input adds one contiguous row (the inputs are sparse, see ``inputs``); ``w2`` is
(5, hidden). The kernels below compute one position at a time over caller-owned scratch memory, so that
the search and the trainer allocate nothing per position.
Training minimises the cross-entropy of each output against its target, whose gradient at the output's
input is simply (output - target).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from taldau.base.jit import njit

from ..rules.board import BAR, MOVER, OPPONENT, ROW
from .inputs import INPUTS, POINT_INPUTS, UNITS

OUTPUTS = 5
EVALUATION_VERSION = 2  # changes whenever the same weights could give other numbers (the kernels' arithmetic)
SCRATCH_PER_UNIT = 2  # float32 scratch the kernels take per hidden unit: the sums, then the exponents

# the hidden units' exponentials, in single precision (Cody and Waite's reduction, then a degree-7
# polynomial): within 2 units in the last place of the float32 result, and written so the compiler runs
# eight units at once
_LOG2E = np.float32(1.4426950408889634)
_LN2_HIGH = np.float32(0.693359375)
_LN2_LOW = np.float32(-2.12194440e-4)
_TAYLOR = tuple(np.float32(1 / math.factorial(k)) for k in range(8))
_LIMIT = np.float32(87.0)
_ONE = np.float32(1.0)
_HALF = np.float32(0.5)


@dataclass(frozen=True)
class Net:
    """Weights of one net: ``w1`` (INPUTS or POINT_INPUTS, hidden), ``b1`` (hidden,), ``w2`` (5, hidden),
    ``b2`` (5,), all float32."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray

    @property
    def hidden(self) -> int:
        """Number of hidden units."""
        return int(self.b1.shape[0])

    @property
    def inputs(self) -> int:
        """Number of inputs: INPUTS, or POINT_INPUTS for a pruning net."""
        return int(self.w1.shape[0])

    @classmethod
    def random(cls, hidden: int, seed: int, inputs: int = INPUTS) -> Net:
        """Small random weights (uniform, scaled by fan-in) from ``seed``: where training starts."""
        rng = np.random.default_rng(seed)
        return cls(
            w1=rng.uniform(-1, 1, (inputs, hidden)).astype(np.float32) * np.float32(1 / math.sqrt(40)),
            b1=np.zeros(hidden, dtype=np.float32),
            w2=rng.uniform(-1, 1, (OUTPUTS, hidden)).astype(np.float32) * np.float32(1 / math.sqrt(hidden)),
            b2=np.zeros(OUTPUTS, dtype=np.float32),
        )

    def copy(self) -> Net:
        """An independent copy (training changes weights in place)."""
        return Net(self.w1.copy(), self.b1.copy(), self.w2.copy(), self.b2.copy())

    def arrays(self, prefix: str) -> dict[str, np.ndarray]:
        """The weights keyed ``<prefix>.w1`` and so on, for ``np.savez``."""
        return {f"{prefix}.{name}": getattr(self, name) for name in ("w1", "b1", "w2", "b2")}

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray] | np.lib.npyio.NpzFile, prefix: str) -> Net:
        """The net stored by ``arrays`` under ``prefix``; raises ValueError when a shape does not fit."""
        try:
            parts = [
                np.ascontiguousarray(arrays[f"{prefix}.{name}"], dtype=np.float32)
                for name in ["w1", "b1", "w2", "b2"]
            ]
        except KeyError as missing:
            raise ValueError(f"no {missing.args[0]} in the weights") from None
        w1, b1, w2, b2 = parts
        hidden = b1.shape[0]
        shapes_fit = w1.shape in ((INPUTS, hidden), (POINT_INPUTS, hidden))
        if not shapes_fit or w2.shape != (OUTPUTS, hidden) or b2.shape != (OUTPUTS,):
            raise ValueError(
                f"net {prefix!r} has shapes {w1.shape}, {b1.shape}, {w2.shape}, {b2.shape}; "
                f"expected ({INPUTS} or {POINT_INPUTS}, h), (h,), ({OUTPUTS}, h), ({OUTPUTS},)"
            )
        return cls(w1, b1, w2, b2)


@njit(cache=True, inline="always")
def sigmoid(x: float) -> float:
    if x < -40.0:
        return 0.0
    return 1.0 / (1.0 + math.exp(-x))


@njit(cache=True, inline="always")
def activate(hidden: np.ndarray, units: int) -> None:
    """The sigmoid of each of the first ``units`` sums of ``hidden``, in place; ``hidden[units:2 *
    units]`` is scratch. Float32 throughout, as the activations are stored."""
    powers = hidden[units : 2 * units].view(np.int32)
    c0, c1, c2, c3, c4, c5, c6, c7 = _TAYLOR
    for unit in range(units):
        x = min(max(-hidden[unit], -_LIMIT), _LIMIT)
        power = np.floor(x * _LOG2E + _HALF)
        r = x - power * _LN2_HIGH - power * _LN2_LOW
        hidden[unit] = c0 + r * (c1 + r * (c2 + r * (c3 + r * (c4 + r * (c5 + r * (c6 + r * c7))))))
        powers[unit] = (np.int32(power) + np.int32(127)) << np.int32(23)
    scale = hidden[units : 2 * units]
    for unit in range(units):
        hidden[unit] = _ONE / (_ONE + hidden[unit] * scale[unit])


@njit(cache=True, inline="always")
def forward(
    w1: np.ndarray,
    b1: np.ndarray,
    w2: np.ndarray,
    b2: np.ndarray,
    indices: np.ndarray,
    values: np.ndarray,
    count: int,
    hidden: np.ndarray,
    out: np.ndarray,
) -> None:
    """The net's five outputs for the ``count`` non-zero inputs (``indices``, ``values``) into ``out``;
    ``hidden`` (float32, SCRATCH_PER_UNIT per hidden unit) receives the hidden activations first."""
    units = b1.shape[0]
    for unit in range(units):
        hidden[unit] = b1[unit]
    for k in range(count):
        row = indices[k]
        value = values[k]
        for unit in range(units):
            hidden[unit] += value * w1[row, unit]
    _outputs(w2, b2, hidden, out)


@njit(cache=True, inline="always")
def point_sums(board: np.ndarray, w1: np.ndarray, b1: np.ndarray, sums: np.ndarray) -> None:
    """The hidden sums (before the sigmoid) of a net over the point units alone, read straight off
    ``board`` (side on roll in row MOVER) into ``sums``: the same sums in the same order as ``encode``
    then ``forward``."""
    units = b1.shape[0]
    for unit in range(units):
        sums[unit] = b1[unit]
    for order in range(2):
        side = MOVER if order == 0 else OPPONENT
        for index in range(ROW):
            checkers = board[side, index]
            if checkers == 0:
                continue
            row = (order * ROW + index) * UNITS
            for unit in range(units):
                sums[unit] += w1[row, unit]
            if checkers >= 2:
                for unit in range(units):
                    sums[unit] += w1[row + 1, unit]
            if checkers >= 3:
                for unit in range(units):
                    sums[unit] += w1[row + 2, unit]
            if checkers > 3:
                excess = np.float32((checkers - 3) / 2.0)
                for unit in range(units):
                    sums[unit] += excess * w1[row + 3, unit]


@njit(cache=True, inline="always")
def forward_points(
    board: np.ndarray,
    w1: np.ndarray,
    b1: np.ndarray,
    w2: np.ndarray,
    b2: np.ndarray,
    hidden: np.ndarray,
    out: np.ndarray,
) -> None:
    """``forward`` of a net over the point units alone (a pruning net) read straight off ``board`` (side
    on roll in row MOVER): the same sums in the same order as ``encode`` then ``forward``, so the same
    numbers, without writing the inputs out first."""
    point_sums(board, w1, b1, hidden)
    _outputs(w2, b2, hidden, out)


@njit(cache=True, inline="always")
def _change_place(before: int, after: int, row: int, w1: np.ndarray, hidden: np.ndarray, units: int) -> None:
    """Add to the first ``units`` of ``hidden`` what a place's units (first-layer row ``row`` on) change
    by when its checkers go from ``before`` to ``after``: each checker beyond the third counts a half on
    the fourth unit."""
    low, high, sign = (
        (before, after, np.float32(1.0)) if before < after else (after, before, np.float32(-1.0))
    )
    for checkers in range(low, high):
        if checkers < 3:
            for unit in range(units):
                hidden[unit] += sign * w1[row + checkers, unit]
        else:
            for unit in range(units):
                hidden[unit] += sign * np.float32(0.5) * w1[row + 3, unit]


@njit(cache=True, inline="always")
def forward_points_after(
    board: np.ndarray,
    base: np.ndarray,
    base_sums: np.ndarray,
    moves: np.ndarray,
    length: int,
    w1: np.ndarray,
    w2: np.ndarray,
    b2: np.ndarray,
    hidden: np.ndarray,
    out: np.ndarray,
) -> None:
    """``forward_points`` of ``board``, the result of a play of ``length`` checker ``moves`` (from, to)
    from ``base`` whose hidden sums are ``base_sums`` (``point_sums``), both seen by the side to roll
    next: only the places the play changed are taken out and put back, as gnubg values the plays of one
    roll from the position they start from. Equal to ``forward_points`` up to the rounding of the sums
    (added in another order). ``hidden`` holds SCRATCH_PER_UNIT floats per unit, as for ``forward``."""
    units = w2.shape[1]
    for unit in range(units):
        hidden[unit] = base_sums[unit]
    for index in range(ROW):  # the side that played: row OPPONENT, the second half of the point units
        if board[OPPONENT, index] != base[OPPONENT, index]:
            _change_place(
                base[OPPONENT, index], board[OPPONENT, index], (ROW + index) * UNITS, w1, hidden, units
            )
    for step in range(length):  # the side to roll next changes only where it was hit, and on its bar
        end = moves[step, 1]
        if end < 0:
            continue
        place = 23 - end
        first = True
        for earlier in range(step):
            if moves[earlier, 1] == end:
                first = False
        if first and board[MOVER, place] != base[MOVER, place]:
            _change_place(base[MOVER, place], board[MOVER, place], place * UNITS, w1, hidden, units)
    if board[MOVER, BAR] != base[MOVER, BAR]:
        _change_place(base[MOVER, BAR], board[MOVER, BAR], BAR * UNITS, w1, hidden, units)
    _outputs(w2, b2, hidden, out)


@njit(cache=True, inline="always")
def _outputs(w2: np.ndarray, b2: np.ndarray, hidden: np.ndarray, out: np.ndarray) -> None:
    """The hidden units' activations (from their sums, in place) and the five outputs. The five sums run
    side by side, each in unit order: the same numbers as one output after the other, without waiting
    on one long chain of additions."""
    units = w2.shape[1]
    activate(hidden, units)
    total0 = np.float64(b2[0])
    total1 = np.float64(b2[1])
    total2 = np.float64(b2[2])
    total3 = np.float64(b2[3])
    total4 = np.float64(b2[4])
    for unit in range(units):
        activation = hidden[unit]
        total0 += activation * w2[0, unit]
        total1 += activation * w2[1, unit]
        total2 += activation * w2[2, unit]
        total3 += activation * w2[3, unit]
        total4 += activation * w2[4, unit]
    out[0] = sigmoid(total0)
    out[1] = sigmoid(total1)
    out[2] = sigmoid(total2)
    out[3] = sigmoid(total3)
    out[4] = sigmoid(total4)


@njit(cache=True)
def train_step(
    w1: np.ndarray,
    b1: np.ndarray,
    w2: np.ndarray,
    b2: np.ndarray,
    indices: np.ndarray,
    values: np.ndarray,
    count: int,
    target: np.ndarray,
    rate: float,
    hidden: np.ndarray,
    delta: np.ndarray,
    out: np.ndarray,
) -> float:
    """One gradient step of the cross-entropy between the outputs and ``target`` (five numbers in 0..1),
    in place; returns the squared error before the step. ``delta`` is scratch of hidden size."""
    forward(w1, b1, w2, b2, indices, values, count, hidden, out)
    units = b1.shape[0]
    error = 0.0
    for unit in range(units):
        delta[unit] = 0.0
    for output in range(OUTPUTS):
        gradient = out[output] - target[output]
        error += gradient * gradient
        for unit in range(units):
            delta[unit] += gradient * w2[output, unit]
        step = rate * gradient
        b2[output] -= step
        for unit in range(units):
            w2[output, unit] -= step * hidden[unit]
    for unit in range(units):
        delta[unit] *= rate * hidden[unit] * (1.0 - hidden[unit])
        b1[unit] -= delta[unit]
    for k in range(count):
        row = indices[k]
        value = values[k]
        for unit in range(units):
            w1[row, unit] -= value * delta[unit]
    return error


def load_arrays(path: Path) -> dict[str, np.ndarray]:
    """Every array of a weights file; raises ValueError naming the file when it cannot be read."""
    try:
        with np.load(path, allow_pickle=False) as stored:
            return {name: stored[name] for name in stored.files}
    except (OSError, ValueError) as error:
        raise ValueError(f"{path}: not a weights file ({error})") from None
