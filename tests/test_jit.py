"""The compiled kernels' helpers in ``taldau.base.jit``: ``unowned`` views of arrays."""

from __future__ import annotations

import numpy as np
from taldau.base.jit import njit, unowned


@njit(cache=False)
def _fill_through_view(array: np.ndarray) -> int:
    view = unowned(array)
    row = view[1]  # a slice of an unowned view is unowned too
    for index in range(row.shape[0]):
        row[index] = 3 * index
    return int(view.sum())


@njit(cache=False)
def _depth_sum(depth: int, stack: np.ndarray) -> int:
    """A recursion over an unowned view, as the Togyz search's: each level writes its row and reads the
    rows below it."""
    stack[depth, 0] = depth
    if depth == 0:
        return 0
    return depth + _depth_sum(depth - 1, stack) + stack[depth - 1, 0]


@njit(cache=False)
def _recurse(array: np.ndarray) -> int:
    return _depth_sum(array.shape[0] - 1, unowned(array))


def test_unowned_views_write_through_to_the_array() -> None:
    array = np.zeros((3, 4), dtype=np.int64)
    assert _fill_through_view(array) == 0 + 3 + 6 + 9
    np.testing.assert_array_equal(array, [[0, 0, 0, 0], [0, 3, 6, 9], [0, 0, 0, 0]])


def test_unowned_views_pass_through_a_recursion() -> None:
    array = np.full((6, 2), -1, dtype=np.int64)
    # sum of 1..5 (each level's depth) plus sum of 0..4 (the row below, written before it is read)
    assert _recurse(array) == 15 + 10
    np.testing.assert_array_equal(array[:, 0], np.arange(6))
    assert (array[:, 1] == -1).all()
