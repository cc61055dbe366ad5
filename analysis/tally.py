"""The one tally of players' figures (``taldau.base.tally.Tally``) as the ``games`` table holds it: a
side of a row read into a tally (``tally_of``, ``tally_of_row``: the game's own figures are every column of
``SideFigures`` that the tally does not derive or sum itself) and a tally written as a side's figures
(``side_figures``). A game's figures in the ``games`` table, a match's, a player's in ``taldau players``,
on the report's index and pages and in ``taldau annotate``'s headers all come from it."""

from __future__ import annotations

from collections.abc import Mapping

from taldau.base.kind import MarkScale
from taldau.base.tally import Tally, move_accuracy
from taldau.schemas import SideFigures
from taldau.schemas.games import SIDE_STATS

__all__ = ["OWN", "Tally", "move_accuracy", "side_figures", "tally_of", "tally_of_row"]

# The figures of ``SideFigures`` that the tally sums or derives itself; every other one is the game's own
# (its kind's ``DecisionDetail.side_figures``), summed as it is.
COMMON = (
    "inaccuracies",
    "mistakes",
    "blunders",
    "accuracy",
    "mean_loss",
    "pr",
    "rating",
    "reference_pr",
    "decisions",
    "counted",
    "error",
    "checker_counted",
    "checker_error",
    "cube_counted",
    "cube_error",
)
OWN = tuple(name for name in SIDE_STATS if name not in COMMON)


def tally_of_row(row: Mapping[str, object], side: str) -> Tally:
    """One side's tally of the game of a ``games`` row (``side``: ``white`` or ``black``, the columns'
    prefix), the sums a file of an early version lacks as 0; the reference's losses are not stored, and
    read as 0."""
    return tally_of(SideFigures.of_row(dict(row), side))


def tally_of(figures: SideFigures) -> Tally:
    """The tally of one game's ``figures`` (a ``games`` row's side): the checker and cube parts are the
    tally's moves and other decisions."""
    counted = figures.counted or 0
    return Tally(
        games=1,
        decisions=figures.decisions or 0,
        counted=counted,
        error=figures.error or 0.0,
        moves_counted=figures.checker_counted or 0,
        moves_error=figures.checker_error or 0.0,
        others_counted=figures.cube_counted or 0,
        others_error=figures.cube_error or 0.0,
        marks=figures.marks,
        accuracy_sum=(figures.accuracy or 0.0) * counted,
        own=tuple((name, getattr(figures, name)) for name in OWN),
    )


def side_figures(tally: Tally, scale: MarkScale | None) -> SideFigures:
    """``tally`` as a ``games`` row's side holds it (accuracy 100 and error rate 0 without a counted
    decision; PR, rating band and the PR by the reference through ``scale``)."""
    accuracy, rate = tally.accuracy, tally.mean_loss
    return SideFigures(
        inaccuracies=tally.marks[0],
        mistakes=tally.marks[1],
        blunders=tally.marks[2],
        accuracy=100.0 if accuracy is None else accuracy,
        mean_loss=0.0 if rate is None else rate,
        decisions=tally.decisions,
        counted=tally.counted,
        error=tally.error,
        checker_counted=tally.moves_counted,
        checker_error=tally.moves_error,
        cube_counted=tally.others_counted,
        cube_error=tally.others_error,
        pr=tally.pr(scale),
        rating=tally.rating(scale),
        reference_pr=tally.reference_pr(scale),
        **dict(tally.own),  # type: ignore[arg-type]
    )
