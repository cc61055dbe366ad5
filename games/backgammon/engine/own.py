"""taldau's own backgammon evaluator: its nets (trained by ``taldau train --game backgammon``, shipped as
``nets.npz``), the exact bear-off database, and gnubg's plies, behind the ``Evaluator`` protocol."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from taldau.base.jit import use_threads

from ..rules.board import KEY_WORDS
from .bearoff import BEAROFF_VERSION, BearoffDatabase, load_bearoff_database
from .model import NetPair
from .net import EVALUATION_VERSION
from .plies import MAX_PLIES, evaluate_many, evaluate_many_threads, work_memory
from .rollout import Rollout, rollout_many
from .weights import SHIPPED, load_nets, load_pruning, weights_digest


@dataclass(frozen=True)
class OwnEvaluator:
    """Our nets and bear-off database. ``database`` None lets the race net answer bear-offs too (as in
    self-play training); ``pruning`` None lets the full nets judge every play inside the plies."""

    nets: NetPair
    database: BearoffDatabase | None
    meta: dict[str, Any] = field(default_factory=dict, compare=False)
    pruning: NetPair | None = None

    name = "own"

    @classmethod
    def load(cls, weights: Path = SHIPPED, database: bool = True) -> OwnEvaluator:
        """The evaluator of a weights file (the shipped nets by default) with the bear-off database (built
        and cached on first use) unless ``database`` is False; raises ValueError for a bad weights file."""
        nets, meta = load_nets(weights)
        return cls(nets, load_bearoff_database() if database else None, meta, load_pruning(weights))

    @property
    def version(self) -> str:
        """``own<EVALUATION_VERSION>-<weights digest>``, then ``-prune<digest>`` with pruning nets and the
        bear-off database's version when one is used."""
        version = f"own{EVALUATION_VERSION}-{weights_digest(self.nets)}"
        if self.pruning is not None:
            version += f"-prune{weights_digest(self.pruning)}"
        if self.database is not None:
            version += f"-bearoff{BEAROFF_VERSION}"
        return version

    def model(self) -> tuple:
        """What the compiled kernels take (see ``plies``): the nets' arrays, the database's, the pruning
        nets' (each of the eight empty without pruning)."""
        empty = np.zeros((0, 1), dtype=np.float64)
        off, first = (empty, empty) if self.database is None else (self.database.off, self.database.first)
        pruning: tuple[np.ndarray, ...] = (
            (np.zeros((0, 0), dtype=np.float32), np.zeros(0, dtype=np.float32)) * 4
            if self.pruning is None
            else self.pruning.arrays()
        )
        return (self.nets.arrays(), off, first, pruning)

    @property
    def hidden(self) -> int:
        """The most hidden units of any of the nets: the kernels' scratch size."""
        return max(self.nets.hidden, 0 if self.pruning is None else self.pruning.hidden)

    def evaluate(self, boards: np.ndarray, plies: int = 0, threads: int = 1) -> np.ndarray:
        """The probabilities of each of ``boards`` (n, 2, 25) at ``plies`` (0..MAX_PLIES), see
        ``Evaluator``; ``threads`` above 1 spreads the boards over that many threads (same numbers)."""
        if not 0 <= plies <= MAX_PLIES:
            raise ValueError(f"plies must be 0..{MAX_PLIES}, not {plies}")
        boards = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 2, 25)
        out = np.empty((boards.shape[0], 5), dtype=np.float64)
        hidden = self.hidden
        if threads > 1:
            use_threads(threads)
            evaluate_many_threads(boards, plies, self.model(), hidden, KEY_WORDS, out)
        else:
            evaluate_many(boards, plies, self.model(), work_memory(hidden), out)
        return out

    def rollout(self, boards: np.ndarray, settings: Rollout, threads: int = 1) -> np.ndarray:
        """The probabilities of each of ``boards`` (n, 2, 25) by a variance-reduced truncated rollout
        (``rollout``) on ``threads`` threads (the same numbers whatever their number)."""
        boards = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 2, 25)
        out = np.empty((boards.shape[0], 5), dtype=np.float64)
        use_threads(threads)
        rollout_many(
            boards, settings.trials, settings.steps, settings.seed, self.model(), self.hidden, KEY_WORDS, out
        )
        return out
