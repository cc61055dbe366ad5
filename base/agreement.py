"""What benchmarks of the marks share, whatever the game: a fixed sample spread evenly over a list (of
games, of match files), and the agreement of one mark between a review under test and a reference (a
deeper search of our own, or GNU Backgammon's analysis)."""

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


def wilson_interval(hits: int, trials: int) -> tuple[float, float] | None:
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
