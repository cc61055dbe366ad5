"""Marks and players' figures over the decisions an analyser judged, the same for every game.

An analyser (``taldau.games.kind.Analyser``) judges each decision of a task and says what it loses in its
own scale (``drop``: winning chances for Togyz Kumalak, EMG for backgammon); this module marks each decision
from the scale's thresholds (``?!`` doubtful/inaccuracy, ``?`` bad/mistake, ``??`` very bad/blunder; a
forced decision is never marked) and sums the marks, losses and accuracy up per player.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from taldau.games.kind import Analyser, AnalysisOptions, Annotation, Decision, GameAnalysis

MARKS = ("?!", "?", "??")  # inaccuracy, mistake, blunder

Thresholds = tuple[float, float, float]


def check_thresholds(thresholds: Thresholds) -> Thresholds:
    """``thresholds`` if they rise from above 0, else ValueError."""
    low, middle, high = thresholds
    if not 0 < low <= middle <= high:
        raise ValueError(f"mark thresholds must rise from above 0: {thresholds}")
    return thresholds


def mark_of(drop: float, thresholds: Thresholds) -> str | None:
    """The mark for a decision that loses ``drop`` (in the analyser's scale), or None."""
    for glyph, threshold in zip(reversed(MARKS), reversed(thresholds), strict=True):
        if drop >= threshold:
            return glyph
    return None


@dataclass(frozen=True)
class MarkedDecision:
    """A judged decision and its mark (None: none, or a forced decision)."""

    decision: Decision
    mark: str | None


@dataclass
class PlayerStats:
    """A player's figures over a game: counts of each mark, mean loss, and accuracy (0 to 100)."""

    moves: int = 0
    forced: int = 0
    inaccuracies: int = 0
    mistakes: int = 0
    blunders: int = 0
    mean_loss: float = 0.0
    accuracy: float = 100.0


@dataclass(frozen=True)
class GameReview:
    """The marked decisions of a game, in order, and the figures of both players (index = side)."""

    decisions: tuple[MarkedDecision, ...]
    players: tuple[PlayerStats, PlayerStats] = field(default_factory=lambda: (PlayerStats(), PlayerStats()))

    @property
    def marks(self) -> dict[int, str]:
        """Ply -> mark, for writing the game back with glyphs."""
        return {row.decision.ply: row.mark for row in self.decisions if row.mark}


def judge(analysis: GameAnalysis, thresholds: Thresholds) -> GameReview:
    """The decisions of one analysed game marked, and its players' figures."""
    marked = tuple(
        MarkedDecision(decision, None if decision.forced else mark_of(decision.drop, thresholds))
        for decision in analysis.decisions
    )
    return GameReview(marked, player_stats(marked))


def review_task(
    analyser: Analyser, text: str, source: str, options: AnalysisOptions, thresholds: Thresholds | None = None
) -> list[GameReview]:
    """Every valid game of a task's record text analysed and marked (at the analyser's own thresholds
    unless ``thresholds`` are given)."""
    limits = check_thresholds(thresholds or analyser.scale.thresholds)
    return [judge(analysis, limits) for analysis in analyser.review(text, source, options)]


def review_headers(review: GameReview, annotator: str) -> dict[str, str]:
    """Record headers carrying a review's statistics (``WhiteAccuracy``, ``BlackBlunders``, ...)."""
    headers = {"Annotator": annotator}
    for name, player in zip(("White", "Black"), review.players, strict=True):
        headers[f"{name}Accuracy"] = f"{player.accuracy:.1f}"
        headers[f"{name}MeanLoss"] = f"{player.mean_loss:.2f}"
        headers[f"{name}Inaccuracies"] = str(player.inaccuracies)
        headers[f"{name}Mistakes"] = str(player.mistakes)
        headers[f"{name}Blunders"] = str(player.blunders)
    return headers


def annotation(review: GameReview, annotator: str) -> Annotation:
    """What a game written back with its review carries: its marks and its players' figures."""
    return Annotation(review.marks, review_headers(review, annotator))


def move_accuracy(chances_before: float, chances_after: float) -> float:
    """lichess's accuracy of one move from the drop in win percentage, 0 to 100."""
    drop = max(0.0, 50.0 * (chances_before - chances_after))
    return max(0.0, min(100.0, 103.1668 * math.exp(-0.04354 * drop) - 3.1669))


def _pov(value: float, side: int) -> float:
    """A first player's side value seen from ``side``."""
    return value if side == 0 else -value


def player_stats(rows: Sequence[MarkedDecision]) -> tuple[PlayerStats, PlayerStats]:
    """Per-side counts of marks, mean loss and mean accuracy over the decisions that were not forced (the
    mean loss is the plain mean of those decisions' ``loss``)."""
    stats = (PlayerStats(), PlayerStats())
    losses: tuple[list[float], list[float]] = ([], [])
    accuracies: tuple[list[float], list[float]] = ([], [])
    for row in rows:
        decision = row.decision
        player = stats[decision.side]
        player.moves += 1
        if decision.forced:
            player.forced += 1
            continue
        player.inaccuracies += row.mark == "?!"
        player.mistakes += row.mark == "?"
        player.blunders += row.mark == "??"
        losses[decision.side].append(decision.loss)
        before = _pov(decision.chance_before, decision.side)
        after = _pov(decision.chance_after, decision.side)
        accuracies[decision.side].append(move_accuracy(before, after))
    for side in (0, 1):
        if losses[side]:
            stats[side].mean_loss = sum(losses[side]) / len(losses[side])
            stats[side].accuracy = sum(accuracies[side]) / len(accuracies[side])
    return stats
