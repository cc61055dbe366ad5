"""Winning chances from an engine score: a logistic curve fitted on the results of real games.

``chances`` are in [-1, 1] from the mover's side, the scale chess analysis users know from lichess: 0 is
even, +1 a certain win, -1 a certain loss; the expected score is ``(1 + chances) / 2``. The curve's slope
grows as the game goes on, since a lead of five stones means more near the end than at the start:
``chances = 2 / (1 + exp(-(scale + phase_scale * progress) * score)) - 1`` with ``progress`` from 0 (start)
to 1 (end of the game). Forced results are +-1.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path


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
