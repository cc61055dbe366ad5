"""Marks and players' figures over the decisions an analyser judged, the same for every game.

An analyser (``taldau.games.kind.Analyser``) judges each decision of a task and says what it loses in its
own scale (``drop``: winning chances for Togyz Kumalak, EMG for backgammon); this module marks each decision
from the scale's thresholds (``?!`` doubtful/inaccuracy, ``?`` bad/mistake, ``??`` very bad/blunder; a
forced decision is never marked) and sums the marks, losses, luck and accuracy up per player: over a game
(``GameReview.players``) or over any decisions, a whole match's for one (``player_stats``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from taldau.games.kind import (
    Analyser,
    AnalysisOptions,
    Annotation,
    Decision,
    DecisionKind,
    GameAnalysis,
    Mark,
    MarkScale,
    mark_for,
    pov,
)

Thresholds = tuple[float, float, float]


def check_thresholds(thresholds: Thresholds) -> Thresholds:
    """``thresholds`` if they rise from above 0, else ValueError."""
    low, middle, high = thresholds
    if not 0 < low <= middle <= high:
        raise ValueError(f"mark thresholds must rise from above 0: {thresholds}")
    return thresholds


@dataclass(frozen=True)
class MarkedDecision:
    """A judged decision and its mark (None: none, or a forced decision)."""

    decision: Decision
    mark: Mark | None


@dataclass
class PlayerStats:
    """A player's figures over some decisions (a game's, a match's), in the game's unit (Togyz kumalak,
    backgammon EMG): the decisions of kind move (``moves``) and of kinds cube and take (``cube_decisions``),
    the forced ones, those counted in the error rate and their error (the sum of their ``loss``), checker
    (kind move) and cube (kinds cube and take) apart; counts of each mark; the error rate (``mean_loss``)
    and the mean accuracy (0 to 100) of the counted decisions; the match winning chances lost and the
    luck where the decisions have them (else None); XG's PR and the rating band where the analyser's
    scale has them (else None)."""

    moves: int = 0
    cube_decisions: int = 0
    forced: int = 0
    checker_counted: int = 0
    cube_counted: int = 0
    checker_error: float = 0.0
    cube_error: float = 0.0
    inaccuracies: int = 0
    mistakes: int = 0
    blunders: int = 0
    mean_loss: float = 0.0
    accuracy: float = 100.0
    error_mwc: float | None = None
    luck: float | None = None
    pr: float | None = None
    rating: str | None = None

    @property
    def decisions(self) -> int:
        return self.moves + self.cube_decisions

    @property
    def counted(self) -> int:
        return self.checker_counted + self.cube_counted

    @property
    def error(self) -> float:
        return self.checker_error + self.cube_error


@dataclass(frozen=True)
class GameReview:
    """The marked decisions of a game, in order, and the figures of both players (index = side)."""

    decisions: tuple[MarkedDecision, ...]
    players: tuple[PlayerStats, PlayerStats] = field(default_factory=lambda: (PlayerStats(), PlayerStats()))

    @property
    def marks(self) -> dict[int, Mark]:
        """Ply -> mark, for writing the game back with glyphs."""
        return {row.decision.ply: row.mark for row in self.decisions if row.mark}


def judge(analysis: GameAnalysis, thresholds: Thresholds, scale: MarkScale | None = None) -> GameReview:
    """The decisions of one analysed game marked, and its players' figures (PR and rating band from
    ``scale``, if given)."""
    marked = tuple(
        MarkedDecision(decision, None if decision.forced else mark_for(decision.drop, thresholds))
        for decision in analysis.decisions
    )
    return GameReview(marked, player_stats(marked, scale))


def review_task(
    analyser: Analyser, text: str, source: str, options: AnalysisOptions, thresholds: Thresholds | None = None
) -> list[GameReview]:
    """Every valid game of a task's record text analysed and marked (at the analyser's own thresholds
    unless ``thresholds`` are given)."""
    limits = check_thresholds(thresholds or analyser.scale.thresholds)
    return [judge(analysis, limits, analyser.scale) for analysis in analyser.review(text, source, options)]


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


def move_accuracy(chances_before: float, chances_after: float) -> float:
    """lichess's accuracy of one move from the drop in win percentage, 0 to 100."""
    drop = max(0.0, 50.0 * (chances_before - chances_after))
    return max(0.0, min(100.0, 103.1668 * math.exp(-0.04354 * drop) - 3.1669))


def player_stats(
    rows: Sequence[MarkedDecision], scale: MarkScale | None = None
) -> tuple[PlayerStats, PlayerStats]:
    """Both sides' figures (index = side) over ``rows``: those of a game, or all the games of a match for
    the match's. Counts and losses split by kind (move; cube and take); the error rate (``mean_loss``)
    and the accuracy are means over the decisions that are ``counted``; PR and rating band come from the
    error rate through ``scale`` (None without one). The luck (over every decision) and the match winning
    chances lost (over the counted ones) are sums for both sides when any decision has them, else None."""
    stats = (PlayerStats(), PlayerStats())
    mwc: tuple[list[float], list[float]] = ([], [])
    luck: tuple[list[float], list[float]] = ([], [])
    accuracies: tuple[list[float], list[float]] = ([], [])
    for row in rows:
        decision = row.decision
        side = decision.side
        player = stats[side]
        checker = decision.kind is DecisionKind.MOVE
        player.moves += checker
        player.cube_decisions += not checker
        player.forced += decision.forced
        player.inaccuracies += row.mark is Mark.DOUBTFUL
        player.mistakes += row.mark is Mark.BAD
        player.blunders += row.mark is Mark.VERY_BAD
        if decision.luck is not None:
            luck[side].append(decision.luck)
        if not decision.counted:
            continue
        if checker:
            player.checker_counted += 1
            player.checker_error += decision.loss
        else:
            player.cube_counted += 1
            player.cube_error += decision.loss
        if decision.loss_mwc is not None:
            mwc[side].append(decision.loss_mwc)
        before = pov(decision.chance_before, side)
        after = pov(decision.chance_after, side)
        accuracies[side].append(move_accuracy(before, after))
    has_mwc = any(row.decision.loss_mwc is not None for row in rows)
    has_luck = any(row.decision.luck is not None for row in rows)
    for side, player in enumerate(stats):
        player.error_mwc = sum(mwc[side]) if has_mwc else None
        player.luck = sum(luck[side]) if has_luck else None
        if player.counted:
            player.mean_loss = player.error / player.counted
            player.accuracy = sum(accuracies[side]) / player.counted
            if scale is not None:
                player.pr = scale.performance(player.mean_loss)
                player.rating = scale.rating(player.mean_loss)
    return stats
