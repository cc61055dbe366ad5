"""Fitting the winning-chance curve (``taldau.base.winchance.WinCurve``) to the results of real games."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from taldau.base.winchance import WinCurve


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
