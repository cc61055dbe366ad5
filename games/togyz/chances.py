"""The winning-chance curve of Togyz Kumalak, fitted on real games by ``taldau fit-curve``."""

from __future__ import annotations

import json
from importlib import resources

from taldau.base.winchance import WinCurve


def load_win_curve(path: str | None = None) -> WinCurve:
    """The curve from ``path``, or the one shipped with the package (``win_curve.json``)."""
    if path is not None:
        return WinCurve.load(path)
    text = resources.files(__package__).joinpath("win_curve.json").read_text(encoding="utf-8")
    return WinCurve(**json.loads(text))
