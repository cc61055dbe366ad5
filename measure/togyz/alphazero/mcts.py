"""The Monte Carlo tree search of nitromir/togyzkumalak-engine's AlphaZero, over our rules core.

Source: github:nitromir/togyzkumalak-engine (MIT), ``backend/alphazero_trainer.py``, class ``MCTS``, as
their app (``ai_engine._alphazero_mcts_move``) and their arena run it: one tree for a whole game (the
simulations of each move add to what earlier moves left), ``cpuct`` 1, no Dirichlet noise, and the move
with the most visits at temperature 0, a tie broken at random. Our own port, checked against theirs on
the same positions (``tests/data/togyz/alphazero/``); the moves come from our rules core, which agrees
with theirs.

What their search does, step for step, and so ours:

- Nodes are positions as the mover sees them (``net.canonical_board``), so a position reached by two
  move orders is one node.
- A simulation walks down from the root by PUCT: for each legal pit, ``Q + cpuct * P * sqrt(N) / (1 + n)``
  once tried, ``cpuct * P * sqrt(N + 1e-8)`` before; the first pit of the highest wins. ``P`` is the net's
  policy restricted to legal pits and renormalised (uniform over them if it sums to nearly 0). Their
  arithmetic is float32 there (NumPy 2 keeps a NumPy float32 times a Python float in float32), and so is
  ours, so that near-ties fall the same way.
- At a position not yet in the tree the net is asked once; its value goes back up, negated at each ply.
- An ended game is worth 1 to the side with a kazan (store) above 81, -1 to the other, 1e-4 at 81-81;
  at atsyrau (the side to move has no stones) the other side first takes the stones left on its row.
- ``Q`` is the running mean of the values backed up through that move, kept in float64.
- A walk deeper than 500 plies counts 0 (no game comes near).
"""

from __future__ import annotations

import math

import numpy as np
from taldau.games.togyz.position import Position

from .net import ACTIONS, AlphaZeroNet, canonical_board

CPUCT = 1.0  # their AlphaZeroConfig.cpuct
EPS = 1e-8  # their EPS under the square root of an untried move
MAX_SEARCH_DEPTH = 500  # their MAX_SEARCH_DEPTH
DRAW_VALUE = 1e-4  # their getGameEnded at 81-81


class Node:
    """A position in the tree: the net's priors over legal pits, visits, and per move its visits, mean
    value and (once walked) the position it leads to."""

    __slots__ = ("children", "n", "prior", "q", "valid", "visits")

    def __init__(self, prior: np.ndarray, valid: np.ndarray) -> None:
        self.prior = prior  # float32, 9
        self.valid = valid  # bool, 9
        self.n = 0
        self.visits = [0] * ACTIONS
        self.q = [0.0] * ACTIONS
        self.children: list[tuple[bytes, Position] | None] = [None] * ACTIONS

    def select(self, cpuct: float) -> int:
        """The move (0..8) of the highest PUCT score, computed in float32 as theirs is."""
        prior = np.float32(cpuct) * self.prior
        visits = np.array(self.visits, dtype=np.float32)
        tried = visits > 0
        explored = np.float32(self.q) + prior * np.float32(math.sqrt(self.n)) / (np.float32(1) + visits)
        untried = prior * np.float32(math.sqrt(self.n + EPS))
        score = np.where(tried, explored, untried)
        score[~self.valid] = -np.inf
        return int(np.argmax(score))


def ended_value(position: Position) -> float:
    """Their ``getGameEnded`` for the player to move: 0 while the game goes on, else 1 or -1 for a win or
    a loss, ``DRAW_VALUE`` for 81-81."""
    outcome = position.outcome()
    if outcome is None:
        return 0.0
    if outcome.winner is None:
        return DRAW_VALUE
    return 1.0 if outcome.winner is position.turn else -1.0


class Mcts:
    """Their search tree with our rules and the NumPy net; ``reset`` forgets it (a new game)."""

    def __init__(self, net: AlphaZeroNet, cpuct: float = CPUCT) -> None:
        self.net = net
        self.cpuct = cpuct
        self.nodes: dict[bytes, Node] = {}
        self.ended: dict[bytes, float] = {}
        self.evaluations = 0  # positions the net was asked about

    def reset(self) -> None:
        """Forget the tree."""
        self.nodes.clear()
        self.ended.clear()

    def visit_counts(self, position: Position, simulations: int) -> list[int]:
        """Run ``simulations`` more simulations from ``position`` and return its visits per pit 1..9
        (their ``getActionProb`` before the temperature)."""
        board = canonical_board(position)
        key = board.tobytes()
        for _ in range(simulations):
            self._simulate(position, key, board)
        node = self.nodes.get(key)
        return [0] * ACTIONS if node is None else list(node.visits)

    def _simulate(self, position: Position, key: bytes, board: np.ndarray | None = None) -> None:
        """One simulation: walk down by PUCT to a new or ended position, then back its value up."""
        path: list[tuple[Node, int]] = []
        depth = 0
        while True:
            if depth > MAX_SEARCH_DEPTH:
                value = 0.0
                break
            ended = self.ended.get(key)
            if ended is None:
                ended = self.ended[key] = ended_value(position)
            if ended != 0:
                value = -ended
                break
            node = self.nodes.get(key)
            if node is None:
                value = -self._expand(position, key, board)
                break
            action = node.select(self.cpuct)
            path.append((node, action))
            child = node.children[action]
            if child is None:
                next_position = position.play(action + 1)
                board = canonical_board(next_position)
                child = node.children[action] = (board.tobytes(), next_position)
            else:
                board = None
            key, position = child
            depth += 1
        for node, action in reversed(path):  # value: for the mover of the node below, negated
            visits = node.visits[action]
            node.q[action] = value if visits == 0 else (visits * node.q[action] + value) / (visits + 1)
            node.visits[action] = visits + 1
            node.n += 1
            value = -value

    def _expand(self, position: Position, key: bytes, board: np.ndarray | None) -> float:
        """Add ``position`` to the tree with the net's priors; returns the net's value for its mover."""
        prediction = self.net.predict_board(canonical_board(position) if board is None else board)
        self.evaluations += 1
        valid = np.zeros(ACTIONS, dtype=bool)
        valid[[pit - 1 for pit in position.legal_moves()]] = True
        mask = valid.astype(np.float32)
        prior = prediction.policy * mask
        total = np.sum(prior)
        if total > 1e-10:
            prior /= total
        else:
            prior = mask / np.sum(mask)
        self.nodes[key] = Node(prior, valid)
        return prediction.value


def best_pit(counts: list[int], position: Position, rng: np.random.Generator) -> int:
    """The pit (1..9) of the most visits, a tie broken at random (their temperature 0); an illegal choice
    (possible only with no visits at all) gives way to the first legal pit, as their app does."""
    array = np.array(counts)
    best = np.flatnonzero(array == array.max())
    pit = int(rng.choice(best)) + 1
    return pit if position.is_legal(pit) else position.legal_moves()[0]
