"""taldau's own backgammon evaluator: its nets (trained by ``taldau train --game backgammon``, shipped as
``nets.npz``), the exact bear-off database, and gnubg's plies, behind the ``Evaluator`` protocol."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from taldau.games.jit import use_threads

from ..board import KEY_WORDS
from .bearoff import BEAROFF_VERSION, BearoffDatabase, load_bearoff_database
from .model import NetPair
from .plies import MAX_PLIES, evaluate_many, evaluate_many_threads, work_memory
from .weights import SHIPPED, load_nets, weights_digest


@dataclass(frozen=True)
class OwnEvaluator:
    """Our nets and bear-off database. ``database`` None lets the race net answer bear-offs too (as in
    self-play training)."""

    nets: NetPair
    database: BearoffDatabase | None
    meta: dict[str, Any] = field(default_factory=dict, compare=False)

    name = "own"

    @classmethod
    def load(cls, weights: Path = SHIPPED, database: bool = True) -> OwnEvaluator:
        """The evaluator of a weights file (the shipped nets by default) with the bear-off database (built
        and cached on first use) unless ``database`` is False; raises ValueError for a bad weights file."""
        nets, meta = load_nets(weights)
        return cls(nets, load_bearoff_database() if database else None, meta)

    @property
    def version(self) -> str:
        """``own-<weights digest>`` plus the bear-off database's version when one is used."""
        base = f"own-{weights_digest(self.nets)}"
        return f"{base}-bearoff{BEAROFF_VERSION}" if self.database is not None else base

    def model(self) -> tuple:
        """What the compiled kernels take (see ``plies``): the nets' arrays, then the database's."""
        if self.database is None:
            empty = np.zeros((0, 1), dtype=np.float64)
            return (self.nets.arrays(), empty, empty)
        return (self.nets.arrays(), self.database.off, self.database.first)

    def evaluate(self, boards: np.ndarray, plies: int = 0, threads: int = 1) -> np.ndarray:
        """The probabilities of each of ``boards`` (n, 2, 25) at ``plies`` (0..MAX_PLIES), see
        ``Evaluator``; ``threads`` above 1 spreads the boards over that many threads (same numbers)."""
        if not 0 <= plies <= MAX_PLIES:
            raise ValueError(f"plies must be 0..{MAX_PLIES}, not {plies}")
        boards = np.ascontiguousarray(boards, dtype=np.int8).reshape(-1, 2, 25)
        out = np.empty((boards.shape[0], 5), dtype=np.float64)
        hidden = max(self.nets.contact.hidden, self.nets.race.hidden)
        if threads > 1:
            use_threads(threads)
            evaluate_many_threads(boards, plies, self.model(), hidden, KEY_WORDS, out)
        else:
            evaluate_many(boards, plies, self.model(), work_memory(hidden), out)
        return out
