"""Winning chances from an engine score: a logistic curve fitted on the results of real games.

``chances`` are in [-1, 1] from the mover's side, the scale chess analysis users know from lichess: 0 is
even, +1 a certain win, -1 a certain loss; the expected score is ``(1 + chances) / 2``. The curve's slope
grows as the game goes on, since a lead of five stones means more near the end than at the start:
``chances = 2 / (1 + exp(-(scale + phase_scale * progress) * score)) - 1`` with ``progress`` from 0 (start)
to 1 (end of the game). Forced results are +-1.

The curve is fitted to the results of real games by ``fit_win_curve`` (``taldau fit-curve``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class WinCurve:
    """Winning chances as a function of score (in the game's unit) and game progress (0 to 1)."""

    scale: float
    phase_scale: float
    samples: int = 0
    source: str = ""

    def chances(self, score: float, progress: float, forced: int | None = None) -> float:
        """Chances in [-1, 1] for the mover; ``forced`` (plies to a forced result, signed) overrides."""
        if forced is not None:
            return 1.0 if forced > 0 else -1.0
        slope = self.scale + self.phase_scale * progress
        return 2.0 / (1.0 + math.exp(-max(min(slope * score, 50.0), -50.0))) - 1.0

    def to_json(self) -> str:
        return json.dumps(asdict(self), indent=2) + "\n"

    @classmethod
    def load(cls, path: str | Path) -> WinCurve:
        return cls(**json.loads(Path(path).read_text(encoding="utf-8")))


def fit_win_curve(
    scores: Sequence[float], progress: Sequence[float], results: Sequence[float], source: str = ""
) -> WinCurve:
    """Maximum-likelihood fit of the curve to game results (1 win, 0.5 draw, 0 loss, mover's side).

    Newton's method on the logistic log-likelihood with the two slope parameters; the expected score
    ``(1 + chances) / 2`` is a plain logistic function of ``(scale + phase_scale * progress) * score``.
    """
    x = np.column_stack([np.asarray(scores, float), np.asarray(scores, float) * np.asarray(progress, float)])
    y = np.asarray(results, float)
    if len(y) < 10:
        raise ValueError("fitting a win curve needs at least 10 samples")
    theta = np.array([0.1, 0.0])
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ theta, -50, 50)))
        gradient = x.T @ (y - p)
        hessian = -(x.T * (p * (1 - p))) @ x - 1e-9 * np.eye(2)
        step = np.linalg.solve(hessian, gradient)
        theta = theta - step
        if np.max(np.abs(step)) < 1e-10:
            break
    return WinCurve(float(theta[0]), float(theta[1]), samples=len(y), source=source)
