"""What benchmarks of the marks share, whatever the game: a fixed sample spread evenly over a list (of
games, of match files), and the agreement of one mark between a review under test and a reference (a
deeper search of our own, or GNU Backgammon's analysis)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

Item = TypeVar("Item")


def spread_sample(items: Sequence[Item], count: int) -> list[Item]:
    """``count`` items taken evenly over ``items`` (item ``i * n // count`` of ``n``; all of them when there
    are no more): the same on every run, covering the whole span."""
    if count >= len(items):
        return list(items)
    return [items[index * len(items) // count] for index in range(count)]


def rounded(value: float | None) -> float | None:
    """A figure as benchmarks print it (three decimals; None stays None)."""
    return None if value is None else round(value, 3)


@dataclass(frozen=True)
class MarkAgreement:
    """One mark (or ``?`` or worse, ...): the decisions the review under test (``tested``) and the
    ``reference`` give it, and ``both``; precision is the share of the tested marks the reference confirms,
    recall the share of the reference's marks the tested review finds (None without any)."""

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

    def to_json(self) -> dict[str, Any]:
        return {
            "mark": self.mark,
            "tested": self.tested,
            "reference": self.reference,
            "both": self.both,
            "precision": rounded(self.precision),
            "recall": rounded(self.recall),
        }
