"""How backgammon marks a decision and rates a player: equity lost in EMG (equivalent to money game: gnubg's
normalised equity, in match play the match winning chances rescaled to a money game's units) with GNU
Backgammon's thresholds and rating bands, and eXtreme Gammon's performance rating (PR)."""

from __future__ import annotations

import math

from taldau.base.kind import MarkScale

# GNU Backgammon's rating bands by equity lost (EMG) per unforced move or close cube decision, in its own
# words (gnubg's ``GetRating``: the first band whose bound the error rate is below).
GNUBG_RATINGS: tuple[tuple[float, str], ...] = (
    (0.002, "Supernatural"),
    (0.005, "World class"),
    (0.008, "Expert"),
    (0.012, "Advanced"),
    (0.018, "Intermediate"),
    (0.026, "Casual player"),
    (0.035, "Beginner"),
    (math.inf, "Awful!"),
)

# Equity in EMG as GNU Backgammon marks it: doubtful, bad and very bad from 0.03, 0.06 and 0.12 lost, its
# rating bands, and eXtreme Gammon's PR (500 x EMG lost per counted decision).
EMG_SCALE = MarkScale("equity lost, EMG", (0.03, 0.06, 0.12), GNUBG_RATINGS, 500.0)
