"""Marks and players' figures over the decisions an analyser judged, the same for every game.

An analyser (``taldau.base.kind.Analyser``) judges each decision of a task and says what it loses in its
own scale (``drop``: winning chances for Togyz Kumalak, EMG for backgammon); this module marks each decision
from the scale's thresholds (``?!`` doubtful/inaccuracy, ``?`` bad/mistake, ``??`` very bad/blunder; a
forced decision is never marked) and sums the marks, losses, luck and accuracy up per player: over a game
(``GameReview.players``) or over any decisions, a whole match's for one (``player_stats``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from taldau.base.kind import (
    Analyser,
    Annotation,
    Decision,
    GameAnalysis,
    Limit,
    Mark,
    MarkScale,
)
from taldau.schemas import SideFigures

from .tally import Tally, side_figures
from .tally import move_accuracy as move_accuracy  # where it was before the tally


@dataclass(frozen=True)
class MarkedDecision:
    """A judged decision and its mark (None: none, or a forced decision)."""

    decision: Decision
    mark: Mark | None


@dataclass(frozen=True)
class GameReview:
    """The marked decisions of a game, in order, and the figures of both players (index = side)."""

    decisions: tuple[MarkedDecision, ...]
    players: tuple[SideFigures, SideFigures] = field(default_factory=lambda: player_stats(()))

    @property
    def marks(self) -> dict[int, Mark]:
        """Ply -> mark, for writing the game back with glyphs."""
        return {row.decision.ply: row.mark for row in self.decisions if row.mark}


def judge(analysis: GameAnalysis, scale: MarkScale) -> GameReview:
    """The decisions of one analysed game marked at ``scale``'s thresholds (a forced decision never is),
    and its players' figures (PR and rating band where the scale has them)."""
    marked = tuple(
        MarkedDecision(decision, None if decision.forced else scale.mark(decision.drop))
        for decision in analysis.decisions
    )
    return GameReview(marked, player_stats(marked, scale))


def review_task(
    analyser: Analyser,
    games: Sequence[Any],
    limit: Limit,
    progress: Callable[[int], object] | None = None,
) -> list[GameReview]:
    """The valid games of a task (as their kind decoded them, in order) analysed within ``limit`` and
    marked at the analyser's scale; ``progress`` hears the decisions judged as they are
    (``Analyser.review``)."""
    analyses = analyser.review(games, limit, progress)
    return [judge(analysis, analyser.scale) for analysis in analyses]


def review_headers(review: GameReview, annotator: str) -> dict[str, str]:
    """Record headers carrying a review's statistics (``WhiteAccuracy``, ``BlackBlunders``, ...; where the
    review has them, ``WhitePR``, ``WhiteRating`` and ``WhiteLuck``)."""
    headers = {"Annotator": annotator}
    for name, player in zip(("White", "Black"), review.players, strict=True):
        headers[f"{name}Accuracy"] = f"{player.accuracy:.1f}"
        headers[f"{name}MeanLoss"] = f"{player.mean_loss:.2f}"
        headers[f"{name}Inaccuracies"] = str(player.inaccuracies)
        headers[f"{name}Mistakes"] = str(player.mistakes)
        headers[f"{name}Blunders"] = str(player.blunders)
        if player.pr is not None:
            headers[f"{name}PR"] = f"{player.pr:.1f}"
        if player.rating is not None:
            headers[f"{name}Rating"] = player.rating
        if player.luck is not None:
            headers[f"{name}Luck"] = f"{player.luck:+.3f}"
    return headers


def annotation(review: GameReview, annotator: str) -> Annotation:
    """What a game written back with its review carries: its marks, its players' figures and its
    decisions."""
    decisions = tuple(row.decision for row in review.decisions)
    return Annotation(review.marks, review_headers(review, annotator), decisions)


def player_stats(
    rows: Sequence[MarkedDecision], scale: MarkScale | None = None
) -> tuple[SideFigures, SideFigures]:
    """Both sides' figures (index = side) over ``rows``: those of a game, or all the games of a match for
    the match's. Counts and losses split by kind (a move; any other decision: backgammon's cube and take);
    the error rate (``mean_loss``) and the accuracy are means over the decisions that are ``counted`` (0
    and 100 without one); PR and rating band come from the error rate through ``scale`` (None without
    one); the PR by the reference where the record file judged any counted decision (``reference_pr``).
    What the game adds (backgammon: the luck, the match winning chances lost, gnubg's kinds of cube
    error) comes from its decisions' own part (``DecisionDetail.side_figures``). Each side's figures are
    its ``Tally`` of the decisions (``taldau.base.tally``)."""
    decisions = [row.decision for row in rows]
    detail = next((type(d.detail) for d in decisions if d.detail is not None), None)
    return tuple(
        side_figures(
            Tally.of_decisions(
                [(row.decision, row.mark) for row in rows if row.decision.side == side], decisions, detail
            ),
            scale,
        )
        for side in (0, 1)
    )  # type: ignore[return-value]
