"""Perft: the number of legal move sequences of a given length, the standard check of a rules core."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from taldau.base.jit import njit

from .board import KAZAN, PITS, SIDE, STATE_DTYPE, STATE_SIZE, WINNING_KAZAN, sow
from .position import Position


@njit(cache=True)
def _perft(stack: np.ndarray, ply: int, depth: int) -> int:
    """Leaf count below ``stack[ply]``; each ply copies the parent into the next row and sows there."""
    state = stack[ply]
    if state[KAZAN] >= WINNING_KAZAN or state[KAZAN + 1] >= WINNING_KAZAN:
        return 0
    base = state[SIDE] * PITS
    child = stack[ply + 1]
    nodes = 0
    for pit in range(PITS):
        if state[base + pit] > 0:
            child[:] = state
            sow(child, pit)
            if depth == 1:
                nodes += 1
            else:
                nodes += _perft(stack, ply + 1, depth - 1)
    return nodes


@dataclass(frozen=True)
class PerftResult:
    """Outcome of a perft run: leaf count, wall time and nodes per second."""

    depth: int
    nodes: int
    seconds: float

    @property
    def nps(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


def perft(position: Position, depth: int) -> PerftResult:
    """Count the move sequences of ``depth`` plies from ``position``, playing every leaf (no bulk count)."""
    if depth < 0:
        raise ValueError(f"perft depth must be >= 0, not {depth}")
    if depth == 0:
        return PerftResult(0, 1, 0.0)
    stack = np.empty((depth + 1, STATE_SIZE), dtype=STATE_DTYPE)
    stack[0] = position.state
    _perft(stack, 0, 1)  # compile or load the kernel outside the timed run
    started = time.perf_counter()
    nodes = _perft(stack, 0, depth)
    return PerftResult(depth, int(nodes), time.perf_counter() - started)
