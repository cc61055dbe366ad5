"""What benchmarks of the marks and matches share, whatever the game: a fixed sample spread evenly over a
list (of games, of match files), the agreement of one mark between a review under test and a reference (a
deeper search of our own, or GNU Backgammon's analysis), and the 95% intervals of a share (Wilson's) and of
a mean (Student's t), none of them from fewer than ``MIN_MATCH_GAMES`` games of a match."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import sqrt
from statistics import NormalDist
from typing import Any, TypeVar

Item = TypeVar("Item")


def spread_sample(items: Sequence[Item], count: int) -> list[Item]:
    """``count`` items taken evenly over ``items`` (item ``i * n // count`` of ``n``; all of them when there
    are no more): the same on every run, covering the whole span."""
    if count >= len(items):
        return list(items)
    return [items[index * len(items) // count] for index in range(count)]


Z95 = NormalDist().inv_cdf(0.975)  # standard normal quantile of a two-sided 95% interval (1.96)
MIN_MATCH_GAMES = 10  # the fewest games of a match (5 duplicate pairs in backgammon) given an interval


def wilson_interval(hits: float, trials: int) -> tuple[float, float] | None:
    """The 95% Wilson score interval of a share of ``hits`` in ``trials`` (None without any): unlike the
    share plus or minus two standard errors it stays within 0 and 1 and is honest on small samples, such
    as the few dozen blunders of a marks bench, where a measured 0.8 may still be 0.9."""
    if trials <= 0:
        return None
    share = hits / trials
    spread = Z95 * Z95 / trials
    centre = (share + spread / 2) / (1 + spread)
    half = Z95 * sqrt(share * (1 - share) / trials + spread / (4 * trials)) / (1 + spread)
    return max(0.0, min(share, centre - half)), min(1.0, max(share, centre + half))  # rounding aside


def t95(df: int) -> float:
    """The quantile of Student's t with ``df`` degrees of freedom that bounds a two-sided 95% interval of a
    mean (2.776 at 4, 2.262 at 9, 1.96 for many): the normal one widened by the Cornish-Fisher series,
    within 0.001 of the exact from 4 degrees of freedom on."""
    if df < 1:
        raise ValueError("Student's t needs one degree of freedom or more")
    z = Z95
    terms = (
        (z**3 + z) / 4,
        (5 * z**5 + 16 * z**3 + 3 * z) / 96,
        (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384,
        (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160,
    )
    return z + sum(term / df ** (power + 1) for power, term in enumerate(terms))


def rounded(value: float | None) -> float | None:
    """A figure as benchmarks print it (three decimals; None stays None)."""
    return None if value is None else round(value, 3)


@dataclass(frozen=True)
class MarkAgreement:
    """One mark (or ``?`` or worse, ...): the decisions the review under test (``tested``) and the
    ``reference`` give it, and ``both``; precision is the share of the tested marks the reference confirms,
    recall the share of the reference's marks the tested review finds (None without any), each with its 95%
    interval (``wilson_interval``)."""

    mark: str
    tested: int
    reference: int
    both: int

    @property
    def precision(self) -> float | None:
        return self.both / self.tested if self.tested else None

    @property
    def recall(self) -> float | None:
        return self.both / self.reference if self.reference else None

    @property
    def precision_interval(self) -> tuple[float, float] | None:
        return wilson_interval(self.both, self.tested)

    @property
    def recall_interval(self) -> tuple[float, float] | None:
        return wilson_interval(self.both, self.reference)

    def to_json(self) -> dict[str, Any]:
        precision, recall = self.precision_interval, self.recall_interval
        return {
            "mark": self.mark,
            "tested": self.tested,
            "reference": self.reference,
            "both": self.both,
            "precision": rounded(self.precision),
            "recall": rounded(self.recall),
            "precision_95": None if precision is None else [rounded(end) for end in precision],
            "recall_95": None if recall is None else [rounded(end) for end in recall],
        }
