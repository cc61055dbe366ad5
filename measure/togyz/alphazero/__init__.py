"""An independent Togyz Kumalak program to measure our engine against: the AlphaZero of
github:nitromir/togyzkumalak-engine (MIT; its net ``models/alphazero/best.pth.tar``, iteration 54, and the
search of ``backend/alphazero_trainer.py``), ported to NumPy over our rules core.

It shares nothing with our engine's evaluation, so it can see what our search and evaluation miss
together. ``net`` is the 128-256-256-128 MLP with its policy and value heads, ``mcts`` their Monte Carlo
tree search, ``player`` a ``match.TogyzPlayer`` of them. The weights were exported once from their checkpoint
(``export.py``, the only file that needs torch; ``NOTICE`` names the source and licence); our port was
checked against their own code on the same positions (``tests/data/togyz/alphazero/``).
"""

from .mcts import Mcts
from .net import WEIGHTS, AlphaZeroNet, Prediction, canonical_board, observation
from .player import AlphaZeroPlayer, AlphaZeroSpec

__all__ = [
    "WEIGHTS",
    "AlphaZeroNet",
    "AlphaZeroPlayer",
    "AlphaZeroSpec",
    "Mcts",
    "Prediction",
    "canonical_board",
    "observation",
]
