"""GNU Backgammon's neural nets as an ``Evaluator``, through the PyPI package ``gnubg-nn`` (GPL, an optional
extra: ``pip install 'taldau[gnubg]'``). taldau's own nets stay the default; this backend serves users who
want gnubg's numbers and serves the benchmarks as the reference opponent.

``gnubg-nn`` takes a board as gnubg's ``anBoard[2][25]``, which is the rules core's layout: row 0 the side
not on roll, row 1 the side on roll, each row points 1..24 from its own side and then the bar (checked in
the tests: the start gives the side on roll about 52% and a made 5-point for the opponent takes it below
half). Its probabilities are gnubg's five, from the side on roll, in the same order as ``PROBABILITIES``;
its n-ply is gnubg's (0-ply the raw net, its exact one-sided and two-sided bear-off databases included).

The package keeps its nets and caches in process-wide C state: an evaluator here holds no state of its own,
and two of them in one process share gnubg's cache (which only makes repeated positions faster).
"""

from __future__ import annotations

import hashlib
from functools import cached_property
from pathlib import Path
from types import ModuleType

import numpy as np

from .probabilities import final_probabilities

INSTALL_HINT = "the gnubg backend needs the package gnubg-nn: install it with pip install 'taldau[gnubg]'"


def load_gnubg() -> ModuleType:
    """The ``gnubg_nn`` module; raises ImportError with the install hint when it is missing."""
    try:
        import gnubg_nn  # type: ignore[import-not-found,unused-ignore]
    except ImportError as error:
        raise ImportError(INSTALL_HINT) from error
    return gnubg_nn


def gnubg_available() -> bool:
    """Whether ``gnubg-nn`` can be imported."""
    try:
        load_gnubg()
    except ImportError:
        return False
    return True


class GnubgEvaluator:
    """gnubg's evaluation of positions before the roll, for the side on roll (the ``Evaluator`` protocol).

    A board whose game is over (the side not on roll has borne off every checker) gets the exact result
    from ``final_probabilities`` without asking gnubg. Construction raises ImportError with the install
    hint when ``gnubg-nn`` is missing.
    """

    def __init__(self) -> None:
        self._gnubg = load_gnubg()

    @property
    def name(self) -> str:
        return "gnubg"

    @cached_property
    def version(self) -> str:
        """``gnubg-nn <version>`` and a digest of the weights file it loaded, when it can be found."""
        module = self._gnubg
        version = getattr(getattr(module, "__version__", None), "version", None) or "unknown"
        weights = Path(module.__file__ or ".").parent / "data" / "gnubg.weights"
        if weights.is_file():
            digest = hashlib.sha256(weights.read_bytes()).hexdigest()[:8]
            return f"gnubg-nn {version} weights {digest}"
        return f"gnubg-nn {version}"

    def evaluate(self, boards: np.ndarray, plies: int = 0) -> np.ndarray:
        """The probabilities of each (2, 25) board of ``boards`` at ``plies`` (0, 1, 2, ...), from the
        side on roll: gnubg's own numbers, except exact ones for finished games."""
        if plies < 0:
            raise ValueError(f"plies must be 0 or more, not {plies}")
        boards = np.asarray(boards).reshape(-1, 2, 25)
        out = np.empty((boards.shape[0], 5), dtype=np.float64)
        probabilities = self._gnubg.probabilities
        for row, board in enumerate(boards):
            if not final_probabilities(board, out[row]):
                out[row] = probabilities(board.tolist(), plies)
        return out

    def best_move(self, board: np.ndarray, dice: tuple[int, int], plies: int = 0) -> tuple:
        """gnubg's own choice of play for ``dice`` on ``board`` at ``plies`` (its ``best_move``, with its
        own move filters): a tuple of single moves (from, to) in gnubg's points (25 the bar, 0 off);
        empty when the roll cannot be played. For comparisons and benchmarks."""
        return tuple(self._gnubg.best_move(np.asarray(board).tolist(), dice[0], dice[1], n=plies))

    def __reduce__(self) -> tuple:
        """Pickled as the wish for one: another process loads its own gnubg (its state lives in C)."""
        return (GnubgEvaluator, ())

    def __repr__(self) -> str:
        return f"GnubgEvaluator({self.version!r})"
