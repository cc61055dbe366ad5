"""The value and policy net of nitromir/togyzkumalak-engine's AlphaZero, run on NumPy.

Source: github:nitromir/togyzkumalak-engine (MIT), ``backend/alphazero_trainer.py``: ``TogyzkumalakGame``
(the board of 23 numbers, its canonical form and ``boardToObservation``) and ``AlphaZeroNetwork`` (the
MLP). This is our own port, written from reading theirs and checked against it on the same positions
(``tests/data/togyz/alphazero/``); the weights are theirs, exported once (``export.py``, ``NOTICE``).

Their board, seen by the player to move (their "canonical form", the only one their search shows the
net): cells 0..8 the mover's pits 1..9, cells 9..17 the opponent's; a pit that is a tuzdyk (a pit claimed
by the other player for the rest of the game, whose stones go to the claimer's kazan, or store) holds -1;
18 the mover's tuzdyk and 19 the opponent's, as the pit number 1..8 on the other row (0 for none); 20 the
mover's kazan, 21 the opponent's; 22 whose turn it is (0 always, in the canonical form).

The net: 128 inputs -> 256 -> 256 -> 128, each a linear layer, batch normalisation (running statistics, as
in evaluation mode) and ReLU (their dropout is off in evaluation), then a policy head (linear to 9,
softmax) and a value head (linear to 64, ReLU, linear to 1, tanh): the value in [-1, 1] for the mover.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from taldau.games.togyz.position import Position

WEIGHTS = Path(__file__).with_name("weights-iter54.npz")  # their models/alphazero/best.pth.tar
ACTIONS = 9  # a move is a pit 1..9 of the mover (their action 0..8)
OBSERVATION = 128
BOARD = 23
TUZDYK_CELL = -1.0  # their mark of a pit that is a tuzdyk
BATCH_NORM_EPS = 1e-5  # torch's BatchNorm1d default
LAYERS = ("1", "2", "3")


def canonical_board(position: Position) -> np.ndarray:
    """Their board of ``position`` as the player to move sees it (float32, 23 cells; see the module)."""
    mover = position.turn
    opponent = mover.opponent
    board = np.zeros(BOARD, dtype=np.float32)
    board[0:9] = position.pits(mover)
    board[9:18] = position.pits(opponent)
    own_tuzdyk, their_tuzdyk = position.tuzdyk(mover), position.tuzdyk(opponent)
    if own_tuzdyk is not None:  # on the opponent's row
        board[9 + own_tuzdyk - 1] = TUZDYK_CELL
        board[18] = own_tuzdyk
    if their_tuzdyk is not None:  # on the mover's row
        board[their_tuzdyk - 1] = TUZDYK_CELL
        board[19] = their_tuzdyk
    board[20] = position.kazan(mover)
    board[21] = position.kazan(opponent)
    return board


def observation(board: np.ndarray) -> np.ndarray:
    """The net's 128 inputs of a board (their ``boardToObservation``): pits / 81 (a tuzdyk reads 0),
    kazans / 162, each tuzdyk one-hot (cells 20..27 the mover's, 29..36 the opponent's), the turn one-hot
    (38 White's, 39 Black's: the canonical form always says 38); the rest 0."""
    obs = np.zeros(OBSERVATION, dtype=np.float32)
    pits = board[:18]
    obs[:18] = np.where(pits == TUZDYK_CELL, np.float32(0), pits) / np.float32(81.0)
    obs[18] = board[20] / np.float32(162.0)
    obs[19] = board[21] / np.float32(162.0)
    if board[18] > 0:
        obs[20 + int(board[18]) - 1] = 1.0
    if board[19] > 0:
        obs[29 + int(board[19]) - 1] = 1.0
    obs[38] = 1.0 if board[22] == 0 else 0.0
    obs[39] = 1.0 if board[22] == 1 else 0.0
    return obs


@dataclass(frozen=True)
class Dense:
    """A linear layer, optionally followed by batch normalisation with its running statistics."""

    weight: np.ndarray  # (outputs, inputs), as torch stores it
    bias: np.ndarray
    scale: np.ndarray | None = None  # batch-norm gamma / sqrt(running_var + eps)
    mean: np.ndarray | None = None  # batch-norm running mean
    shift: np.ndarray | None = None  # batch-norm beta

    def __call__(self, x: np.ndarray) -> np.ndarray:
        y = x @ self.weight.T + self.bias
        if self.scale is not None:
            y = (y - self.mean) * self.scale + self.shift
        return y


@dataclass(frozen=True)
class Prediction:
    """What the net says of one board: move probabilities over pits 1..9 (illegal ones included, as the
    net gives them) and the value for the player to move, in [-1, 1]."""

    policy: np.ndarray
    value: float


class AlphaZeroNet:
    """Their MLP with weights from an ``.npz`` export (``WEIGHTS`` by default); float32 throughout."""

    def __init__(self, path: Path | str = WEIGHTS) -> None:
        """Load the layers from the export made by ``export.py`` (torch's parameter names, dots as ``_``)."""
        with np.load(path) as data:
            arrays = {name: np.asarray(data[name], dtype=np.float32) for name in data.files}
        self.trunk = tuple(_dense(arrays, f"fc{i}", f"bn{i}") for i in LAYERS)
        self.policy_head = _dense(arrays, "policy_fc")
        self.value_hidden = _dense(arrays, "value_fc1")
        self.value_out = _dense(arrays, "value_fc2")

    def forward(self, observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Policies (rows of 9 probabilities) and values of a batch of observations (rows of 128)."""
        x = np.asarray(observations, dtype=np.float32)
        for layer in self.trunk:
            x = np.maximum(layer(x), np.float32(0))
        logits = self.policy_head(x)
        shifted = logits - logits.max(axis=-1, keepdims=True)
        log_policy = shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))  # their log_softmax
        value = np.tanh(self.value_out(np.maximum(self.value_hidden(x), np.float32(0))))
        return np.exp(log_policy), value[..., 0]

    def predict_board(self, board: np.ndarray) -> Prediction:
        """The net on one of their canonical boards (their ``predict``)."""
        policy, value = self.forward(observation(board)[None, :])
        return Prediction(policy[0], float(value[0]))

    def predict(self, position: Position) -> Prediction:
        """The net on ``position``, for the player to move."""
        return self.predict_board(canonical_board(position))


def _dense(arrays: dict[str, np.ndarray], linear: str, norm: str | None = None) -> Dense:
    """The layer named ``linear`` in the export, with the batch normalisation named ``norm``."""
    weight, bias = arrays[f"{linear}_weight"], arrays[f"{linear}_bias"]
    if norm is None:
        return Dense(weight, bias)
    variance = arrays[f"{norm}_running_var"]
    scale = arrays[f"{norm}_weight"] / np.sqrt(variance + np.float32(BATCH_NORM_EPS))
    return Dense(weight, bias, scale, arrays[f"{norm}_running_mean"], arrays[f"{norm}_bias"])
