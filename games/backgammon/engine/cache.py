"""Evaluations remembered by position and plies, so that a review evaluates no position twice at the same
plies: ``CachedEvaluator`` wraps any ``Evaluator`` and answers a board it has seen at those plies from its
table, handing the evaluator only the boards it has not seen, in one call.

A match's review evaluates the same positions again and again: the plays of every roll of a position for
the luck of the roll and for the cube look-ahead before it, the roll's own plays for the checker play, the
positions the look-ahead of one cube decision reaches and the next one starts from, transpositions, the
openings and bear-offs of every game of the match. The answers are the evaluator's own, unchanged: an
evaluator answers a board the same whatever else its call holds (bgsage's and taldau's nets evaluate each
board by itself; checked in ``tests/test_backgammon_eval_cache.py``), so a review through the cache gives
bit for bit the review without it.

The table is bounded: it holds the last ``capacity`` evaluations, the oldest forgotten first (a review's
repeats are mostly among neighbouring decisions). One table belongs to one owner, a match's review, never
to the process.
"""

from __future__ import annotations

import itertools

import numpy as np

from ..rules.board import BAR
from . import Evaluator

DEFAULT_CAPACITY = 1 << 18  # evaluations kept: about 60 MB with their keys, a few cube look-aheads' worth
_CELLS = 2 * (BAR + 1)  # one board's bytes (int8), its key
_KEY = np.dtype((np.void, _CELLS))


class CachedEvaluator:
    """``inner`` (any ``Evaluator``) with its last ``capacity`` evaluations remembered by board and plies
    (see the module): the ``Evaluator`` protocol, same name, version and numbers; ``hits`` and ``misses``
    count the boards answered from the table and those handed to ``inner``."""

    def __init__(self, inner: Evaluator, capacity: int = DEFAULT_CAPACITY) -> None:
        if capacity < 1:
            raise ValueError(f"an evaluation cache holds at least 1 evaluation, not {capacity}")
        self.inner = inner
        self.capacity = capacity
        self.hits = 0
        self.misses = 0
        self._slots: dict[int, dict[bytes, int]] = {}  # plies -> board key -> row of _values
        self._values = np.empty((capacity, 5), dtype=np.float64)
        self._owners: list[bytes | None] = [None] * capacity  # each row's board key ...
        self._owner_plies = np.zeros(capacity, dtype=np.int64)  # ... and plies
        self._next = 0  # the row written next (the oldest once the table is full)

    @property
    def name(self) -> str:
        """The inner evaluator's name."""
        return self.inner.name

    @property
    def version(self) -> str:
        """The inner evaluator's version: the cache changes no evaluation."""
        return self.inner.version

    def __len__(self) -> int:
        """The evaluations held."""
        return sum(len(slots) for slots in self._slots.values())

    def evaluate(self, boards: np.ndarray, plies: int = 0) -> np.ndarray:
        """The probabilities of each board of ``boards`` at ``plies`` (see ``Evaluator``): those seen at
        ``plies`` from the table, the others by one call of the inner evaluator (each distinct board once)."""
        boards = np.ascontiguousarray(np.asarray(boards).reshape(-1, 2, BAR + 1), dtype=np.int8)
        size = len(boards)
        out = np.empty((size, 5), dtype=np.float64)
        if size == 0:
            return out
        keys = boards.reshape(size, _CELLS).view(_KEY).ravel().tolist()
        slots = self._slots.setdefault(plies, {})
        rows = np.fromiter(map(slots.get, keys, itertools.repeat(-1)), dtype=np.int64, count=size)
        known = rows >= 0
        self.hits += int(np.count_nonzero(known))
        if known.all():
            out[:] = self._values[rows]
            return out
        out[known] = self._values[rows[known]]
        missing = np.flatnonzero(~known)
        wanted = [keys[at] for at in missing.tolist()]
        first: dict[bytes, int] = {}  # each distinct missing board: where in ``wanted`` it first comes
        origins = np.fromiter(
            map(first.setdefault, wanted, itertools.count()), dtype=np.int64, count=len(wanted)
        )
        found = np.asarray(
            self.inner.evaluate(boards[missing[list(first.values())]], plies), dtype=np.float64
        )
        self.misses += len(first)
        if len(first) == len(wanted):
            out[missing] = found
        else:
            firsts = np.fromiter(first.values(), dtype=np.int64, count=len(first))
            out[missing] = found[np.searchsorted(firsts, origins)]
        self._store(plies, list(first), found)
        return out

    def _store(self, plies: int, keys: list[bytes], values: np.ndarray) -> None:
        """Remember each row of ``values`` for its board's key of ``keys`` at ``plies`` in the next rows of
        the table, forgetting what those rows held (only the last ``capacity`` where there are more)."""
        keys, values = keys[-self.capacity :], values[-self.capacity :]
        rows = (self._next + np.arange(len(keys))) % self.capacity
        owners, owner_plies = self._owners, self._owner_plies
        for row in rows.tolist():
            owner = owners[row]
            if owner is not None:
                del self._slots[int(owner_plies[row])][owner]
        self._values[rows] = values
        owner_plies[rows] = plies
        slots = self._slots[plies]
        for row, key in zip(rows.tolist(), keys, strict=True):
            owners[row] = key
            slots[key] = row
        self._next = (self._next + len(keys)) % self.capacity

    def __repr__(self) -> str:
        return f"CachedEvaluator({self.inner!r}, capacity={self.capacity})"
