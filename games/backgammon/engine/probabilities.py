"""The five cubeless probabilities of a backgammon position and the equity they give, compiled so that the
search kernels and plain Python share one definition."""

from __future__ import annotations

import numpy as np
from taldau.base.jit import njit

PROBABILITIES = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")
WIN, WIN_GAMMON, WIN_BACKGAMMON, LOSE_GAMMON, LOSE_BACKGAMMON = range(5)


@njit(cache=True, inline="always")
def equity(probabilities: np.ndarray) -> float:
    """Cubeless equity of one row of probabilities: points expected per unit stake by the side they
    belong to."""
    return (
        2.0 * probabilities[WIN]
        - 1.0
        + probabilities[WIN_GAMMON]
        - probabilities[LOSE_GAMMON]
        + probabilities[WIN_BACKGAMMON]
        - probabilities[LOSE_BACKGAMMON]
    )


@njit(cache=True)
def equities(probabilities: np.ndarray) -> np.ndarray:
    """Cubeless equity of each row of an (n, 5) array."""
    out = np.empty(probabilities.shape[0], dtype=np.float64)
    for row in range(probabilities.shape[0]):
        out[row] = equity(probabilities[row])
    return out


@njit(cache=True, inline="always")
def flip_into(probabilities: np.ndarray, out: np.ndarray) -> None:
    """Write into ``out`` the same probabilities seen by the other side (``out`` may not be the input)."""
    out[WIN] = 1.0 - probabilities[WIN]
    out[WIN_GAMMON] = probabilities[LOSE_GAMMON]
    out[WIN_BACKGAMMON] = probabilities[LOSE_BACKGAMMON]
    out[LOSE_GAMMON] = probabilities[WIN_GAMMON]
    out[LOSE_BACKGAMMON] = probabilities[WIN_BACKGAMMON]


@njit(cache=True)
def flipped(probabilities: np.ndarray) -> np.ndarray:
    """Each row of an (n, 5) array seen by the other side."""
    out = np.empty_like(probabilities)
    for row in range(probabilities.shape[0]):
        flip_into(probabilities[row], out[row])
    return out


@njit(cache=True, inline="always")
def final_probabilities(board: np.ndarray, out: np.ndarray) -> bool:
    """When the game on ``board`` is over (the side not on roll, row 0, has borne off every checker), write
    the exact result into ``out`` from the side on roll's point of view (it lost: a gammon when it bore
    off nothing, a backgammon when it also has a checker on the bar or in the winner's home board, its own
    points 19..24) and return True; otherwise leave ``out`` alone and return False."""
    for index in range(25):
        if board[0, index] > 0:
            return False
    remaining = 0
    for index in range(25):
        remaining += board[1, index]
    out[:] = 0.0
    if remaining == 15:
        out[LOSE_GAMMON] = 1.0
        for index in range(18, 25):
            if board[1, index] > 0:
                out[LOSE_BACKGAMMON] = 1.0
                break
    return True
