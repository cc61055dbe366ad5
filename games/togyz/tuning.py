"""Fitting the evaluation weights and the winning-chance curve on real games (``taldau tune``).

Evaluation weights (Texel's method): positions are sampled from real games and resolved by a short
search on material (quiescence on captures, kazan difference only), so that a capture about to happen
does not blur the kazan difference; the features of ``evaluate`` at the end of that line are regressed on
the game's result from that side's point of view with a logistic model, and the coefficients, rescaled so
that one kumalak in the kazan is worth 100, become the weights.

Winning-chance curve: the same kind of positions are searched at the analysis limit, and the engine's
score and the game's progress are regressed on the result (``taldau.base.winchance.fit_win_curve``).

Both are deterministic: the same archive and settings give the same numbers.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from taldau.base.jit import njit
from taldau.base.kind import Limit

from .engine import Engine, EngineSettings
from .evaluate import FEATURES, KAZAN_WEIGHT, N_FEATURES, features, kazan_only_weights
from .position import Position, Side
from .replay import Game

RESULT_SCORES = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


@dataclass(frozen=True)
class Sample:
    """A position from a real game and the game's result for the side to move (1, 0.5, 0)."""

    position: Position
    result: float


def samples(games: Iterable[Game], every: int = 4, skip: int = 4) -> list[Sample]:
    """Every ``every``-th position of each finished game with a known result, after the first ``skip``."""
    picked: list[Sample] = []
    for game in games:
        if not game.valid or game.result not in RESULT_SCORES:
            continue
        white_score = RESULT_SCORES[game.result]
        for position in game.positions[skip:-1:every]:
            score = white_score if position.turn is Side.WHITE else 1.0 - white_score
            picked.append(Sample(position, score))
    return picked


@njit(cache=True)
def _feature_rows(states: np.ndarray, out: np.ndarray) -> None:
    gains = np.zeros((1, 18), dtype=np.int64)
    for row in range(states.shape[0]):
        features(states[row], out[row], 0, gains, 0, 0)


def feature_matrix(positions: Sequence[Position]) -> np.ndarray:
    """One row of FEATURES per position."""
    states = np.stack([position.state for position in positions])
    out = np.zeros((len(positions), N_FEATURES))
    _feature_rows(states, out)
    return out


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1.0) -> np.ndarray:
    """Coefficients of P(result) = sigmoid(x @ w), by Newton's method with a small L2 penalty."""
    w = np.zeros(x.shape[1])
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -50, 50)))
        gradient = x.T @ (y - p) - l2 * w
        hessian = -(x.T * (p * (1 - p))) @ x - l2 * np.eye(x.shape[1])
        step = np.linalg.solve(hessian, gradient)
        w = w - step
        if np.max(np.abs(step)) < 1e-9:
            break
    return w


def resolve(data: Sequence[Sample]) -> list[Sample]:
    """Each sample moved to the end of its material line (depth 1 and captures, kazan difference only)."""
    engine = Engine(EngineSettings(weights=tuple(kazan_only_weights()), solve_stones=0))
    resolved = []
    for sample in data:
        engine.new_game()
        position, result = sample.position, sample.result
        for pit in engine.analyse(position, Limit(depth=1)).pv:
            position, result = position.play(pit), 1.0 - result
            if position.is_game_over():
                break
        if not position.is_game_over():
            resolved.append(Sample(position, result))
    return resolved


def tune_weights(data: Sequence[Sample], shrink: float = 1.0, source: str = "") -> dict[str, object]:
    """Fitted evaluation weights in centi-kumalak, as the ``weights.json`` document.

    ``shrink`` scales every weight but the kazan's: fitted on results of human games, positional terms
    come out larger than they are worth in search, and matches (``taldau match``) pick the factor.
    """
    data = resolve(data)
    x = feature_matrix([sample.position for sample in data])
    y = np.array([sample.result for sample in data])
    w = fit_logistic(x, y)
    if w[0] <= 0:
        raise ValueError("the fit gives the kazan no positive weight: not enough data")
    scaled = KAZAN_WEIGHT * w / w[0] * shrink
    scaled[0] = KAZAN_WEIGHT
    return {
        "comment": "Fitted by `taldau tune`: logistic regression of game results on the evaluation features "
        "of real positions resolved by a capture search.",
        "source": source,
        "samples": len(data),
        "shrink": shrink,
        "kazan_slope": float(w[0]),
        "weights": {name: round(float(value), 2) for name, value in zip(FEATURES, scaled, strict=True)},
    }


def curve_samples(
    data: Sequence[Sample], engine: Engine, limit: Limit
) -> tuple[list[float], list[float], list[float]]:
    """Engine scores (kumalak, mover's side), progress and results of ``data``, for fitting a WinCurve.

    Positions whose score is a forced result are left out: their chances are +-1 by definition.
    """
    scores, progress, results = [], [], []
    for sample in data:
        engine.new_game()
        score = engine.analyse(sample.position, limit).score
        if score.is_forced:
            continue
        scores.append(float(score))
        progress.append(sample.position.progress())
        results.append(sample.result)
    return scores, progress, results


def dumps(document: dict[str, object]) -> str:
    """JSON text of a fitted document."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
