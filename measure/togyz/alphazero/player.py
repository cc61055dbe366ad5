"""The AlphaZero of nitromir/togyzkumalak-engine as a match player (``match.TogyzPlayer``): their search from
each position, one tree for the whole game, the most visited pit at temperature 0."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from taldau.games.togyz.position import Position

from .mcts import CPUCT, Mcts, best_pit
from .net import WEIGHTS, AlphaZeroNet


class AlphaZeroPlayer:
    """Their MCTS with ``simulations`` a move; ``reuse_tree`` keeps the tree from move to move within a
    game, as their app and arena do (False: a fresh tree each move). Ties are broken by a seeded
    generator, so a match replays alike."""

    def __init__(
        self,
        net: AlphaZeroNet,
        simulations: int,
        seed: int = 0,
        reuse_tree: bool = True,
        cpuct: float = CPUCT,
    ) -> None:
        self.mcts = Mcts(net, cpuct)
        self.simulations = simulations
        self.reuse_tree = reuse_tree
        self.rng = np.random.default_rng(seed)

    def new_game(self) -> None:
        """Forget the tree."""
        self.mcts.reset()

    def choose(self, position: Position) -> int:
        """The pit (1..9) the search visits most after ``simulations`` more simulations."""
        if not self.reuse_tree:
            self.mcts.reset()
        return best_pit(self.mcts.visit_counts(position, self.simulations), position, self.rng)


@dataclass(frozen=True)
class AlphaZeroSpec:
    """The recipe of an ``AlphaZeroPlayer`` (``match.PlayerSpec``), with the weights of ``weights``."""

    simulations: int = 400
    seed: int = 0
    reuse_tree: bool = True
    weights: str = str(WEIGHTS)

    def player(self) -> AlphaZeroPlayer:
        return AlphaZeroPlayer(AlphaZeroNet(Path(self.weights)), self.simulations, self.seed, self.reuse_tree)

    def __str__(self) -> str:
        tree = "" if self.reuse_tree else ", a fresh tree each move"
        return f"alphazero ({self.simulations} simulations{tree})"
