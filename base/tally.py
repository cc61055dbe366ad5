"""One tally of a player's figures, additive over games, the same for every game: the sums every figure is
derived from (decisions, counted decisions, the error and its parts over moves and over the game's other
kinds of decision, marks, the accuracy summed, the reference's losses) and the sums of the figures the
game adds through its kind's decision detail (``DecisionDetail.side_figures``), made from one side's
decisions of a game (``Tally.of_decisions``) and added with ``+``; the error rate, accuracy, PR and rating
band are derived from the sums, so that summing games and then deriving gives what the decisions of all of
them give at once. The games table's sides, ``taldau players``, the report and ``taldau annotate``'s
statistics all derive their figures from it (``taldau.analysis.tally`` reads and writes it as a ``games``
row's side)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, fields

from .kind import MOVE, Decision, DecisionDetail, Mark, MarkScale, pov


def move_accuracy(chances_before: float, chances_after: float) -> float:
    """lichess's accuracy of one move from the drop in win percentage, 0 to 100."""
    drop = max(0.0, 50.0 * (chances_before - chances_after))
    return max(0.0, min(100.0, 103.1668 * math.exp(-0.04354 * drop) - 3.1669))


def _add(first: float | None, second: float | None) -> float | None:
    """A sum of the game's own figure: None where neither has it (a game whose kind has none)."""
    if first is None:
        return second
    return first if second is None else first + second


@dataclass(frozen=True)
class Tally:
    """One side's sums over some games (``games`` of them): ``decisions`` (forced ones too), ``counted``
    (those in the error rate), ``error`` (loss over the counted), its parts over the counted moves
    (``moves_``) and the other kinds of decision (``others_``: backgammon's cube and take), the ``marks``
    (``?!``, ``?``, ``??``), ``accuracy_sum`` (accuracy over the counted, summed), the reference's losses
    over the counted decisions it judged (``reference_loss``, ``reference_counted``: 0 where unknown, as in
    a ``games`` row) and the game's own figures (``own``: name -> sum, None where the game has none)."""

    games: int = 0
    decisions: int = 0
    counted: int = 0
    error: float = 0.0
    moves_counted: int = 0
    moves_error: float = 0.0
    others_counted: int = 0
    others_error: float = 0.0
    marks: tuple[int, int, int] = (0, 0, 0)
    accuracy_sum: float = 0.0
    reference_loss: float = 0.0
    reference_counted: int = 0
    own: tuple[tuple[str, float | None], ...] = ()

    def __add__(self, other: Tally) -> Tally:
        """The sums of both."""
        mine, theirs = dict(self.own), dict(other.own)
        own = tuple((name, _add(mine.get(name), theirs.get(name))) for name in {**mine, **theirs})
        sums = {
            item.name: getattr(self, item.name) + getattr(other, item.name)
            for item in fields(self)
            if item.name not in ("marks", "own")
        }
        marks = tuple(a + b for a, b in zip(self.marks, other.marks, strict=True))
        return Tally(**sums, marks=marks, own=own)  # type: ignore[arg-type]

    @classmethod
    def of_decisions(
        cls,
        side: Sequence[tuple[Decision, str | None]],
        game: Sequence[Decision],
        detail: type[DecisionDetail] | None,
    ) -> Tally:
        """One side's tally of one game (or of any decisions, a match's): its decisions ``side`` with their
        marks (``Mark``'s glyphs, None for none) of the decisions ``game``, the game's own figures from its
        ``detail`` type (None: none)."""
        counted = [decision for decision, _ in side if decision.counted]
        moves = [decision for decision in counted if decision.kind == MOVE]
        others = [decision for decision in counted if decision.kind != MOVE]
        moves_error = sum((decision.loss for decision in moves), 0.0)
        others_error = sum((decision.loss for decision in others), 0.0)
        accuracies = [
            move_accuracy(pov(d.chance_before, d.side), pov(d.chance_after, d.side)) for d in counted
        ]
        marks = [mark for _, mark in side]
        judged = [decision.reference_loss for decision in counted if decision.reference_loss is not None]
        own = {} if detail is None else detail.side_figures([decision for decision, _ in side], game)
        return cls(
            games=1,
            decisions=len(side),
            counted=len(counted),
            error=moves_error + others_error,
            moves_counted=len(moves),
            moves_error=moves_error,
            others_counted=len(others),
            others_error=others_error,
            marks=(marks.count(Mark.DOUBTFUL), marks.count(Mark.BAD), marks.count(Mark.VERY_BAD)),
            accuracy_sum=sum(accuracies),
            reference_loss=sum(judged, 0.0),
            reference_counted=len(judged),
            own=tuple(own.items()),  # type: ignore[arg-type]
        )

    def figure(self, name: str) -> float | None:
        """The game's own figure ``name`` summed (None where the game has none)."""
        return dict(self.own).get(name)

    @property
    def accuracy(self) -> float | None:
        """The mean accuracy of the counted decisions (None without one)."""
        return self.accuracy_sum / self.counted if self.counted else None

    @property
    def mean_loss(self) -> float | None:
        """The error rate: error / counted (None without a counted decision)."""
        return self.error / self.counted if self.counted else None

    def pr(self, scale: MarkScale | None) -> float | None:
        """The performance rating of the error rate in ``scale`` (None where it has none, or without a
        counted decision)."""
        rate = self.mean_loss
        return None if scale is None or rate is None else scale.performance(rate)

    def rating(self, scale: MarkScale | None) -> str | None:
        """The rating band of the error rate in ``scale`` (None where it has none)."""
        rate = self.mean_loss
        return None if scale is None or rate is None else scale.rating(rate)

    def reference_pr(self, scale: MarkScale | None) -> float | None:
        """The PR by the reference: ``scale``'s PR of its mean loss over the counted decisions it judged;
        None where it judged none or the scale has no PR."""
        if scale is None or not self.reference_counted:
            return None
        return scale.performance(self.reference_loss / self.reference_counted)

    def per_100(self, marks: int) -> float | None:
        """``marks`` per 100 counted decisions (None without one)."""
        return 100 * marks / self.counted if self.counted else None
