"""Reviewing a game move by move: the engine's best move against the move played, losses, winning chances,
marks (``?!`` inaccuracy, ``?`` mistake, ``??`` blunder) and per-player statistics.

Game-agnostic: it needs a replayed game (``positions`` before each move and the ``moves`` played), positions
with ``fen()``, ``key``, ``turn`` (0 for the first player), ``legal_moves()``, ``progress()``, ``san(move)``
and ``variation_san(moves)``, an engine with ``new_game()``, ``analyse(position, limit)`` and
``evaluate_move(position, move, limit)`` whose scores convert with ``float()`` to the game's unit and tell
``plies_to_result``, and a ``WinCurve``.

Storage convention (as for Parquet later): scores and winning chances from the first player's side (White),
``loss``, ``mark`` and plies to a forced result from the mover's side. Positions are analysed from the last
to the first, so that the engine's table carries what it learnt about the end of the game back to its start.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .winchance import WinCurve

MARKS = ("?!", "?", "??")  # inaccuracy, mistake, blunder
LOSS_CAP = 20.0  # the most one move can lose, in the game's unit: a move's loss and so a player's mean loss


class EngineScore(Protocol):
    """An engine's score from the mover's side: ``float()`` in the game's unit, and the plies to a forced
    result (positive when the mover wins), None without one."""

    @property
    def plies_to_result(self) -> int | None: ...

    def __float__(self) -> float: ...


class ReplayedGame(Protocol):
    @property
    def positions(self) -> Sequence[Any]: ...

    @property
    def moves(self) -> Sequence[Any]: ...


@dataclass(frozen=True)
class ReviewSettings:
    """The analysis limit (the engine's own Limit) and the winning-chance drops that make each mark."""

    limit: Any
    thresholds: tuple[float, float, float] = (0.1, 0.2, 0.3)

    def __post_init__(self) -> None:
        low, middle, high = self.thresholds
        if not 0 < low <= middle <= high:
            raise ValueError(f"mark thresholds must rise from above 0: {self.thresholds}")

    def mark(self, drop: float) -> str | None:
        """The mark for a drop in winning chances, or None."""
        for glyph, threshold in zip(reversed(MARKS), reversed(self.thresholds), strict=True):
            if drop >= threshold:
                return glyph
        return None


@dataclass(frozen=True)
class PlyReview:
    """One decision of a game, analysed. ``side`` 0 is White. Scores in the game's unit (kumalak).

    ``loss`` is in the game's unit too (see ``move_loss``); ``plies_to_result_best`` and
    ``plies_to_result_played`` are the plies to a forced result after the best and the played move, from the
    mover's side (positive: the mover wins), None without one.
    """

    ply: int
    side: int
    fen: str
    key: int
    move: str
    best_move: str
    pv: str
    score_best: float
    score_played: float
    loss: float
    plies_to_result_best: int | None
    plies_to_result_played: int | None
    win_chance_before: float
    win_chance_after: float
    mark: str | None
    forced: bool
    depth: int
    seldepth: int
    nodes: int
    seconds: float


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


@dataclass
class GameReview:
    """All analysed plies of a game, in order, and the statistics of both players (index = side)."""

    plies: list[PlyReview]
    players: tuple[PlayerStats, PlayerStats] = field(default_factory=lambda: (PlayerStats(), PlayerStats()))

    @property
    def marks(self) -> dict[int, str]:
        """Ply index -> mark, for writing the game back with glyphs."""
        return {row.ply: row.mark for row in self.plies if row.mark}


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


def move_accuracy(chances_before: float, chances_after: float) -> float:
    """lichess's accuracy of one move from the drop in win percentage, 0 to 100."""
    drop = max(0.0, 50.0 * (chances_before - chances_after))
    return max(0.0, min(100.0, 103.1668 * math.exp(-0.04354 * drop) - 3.1669))


def move_loss(best: EngineScore, played: EngineScore) -> float:
    """What the played move gives away against the best one, from the mover's side, in the game's unit:
    from 0 to ``LOSS_CAP``, and so averaged as it is stored.

    A forced result is no amount of kumalak: throwing a forced win away or walking into a forced loss loses
    the cap; between two forced results of the same sign nothing is lost (how much sooner or later the
    result comes is told by the plies, not the loss).
    """
    best_plies, played_plies = best.plies_to_result, played.plies_to_result
    if best_plies is None and played_plies is None:
        return min(max(0.0, float(best) - float(played)), LOSS_CAP)
    if best_plies is not None and played_plies is not None and (best_plies > 0) == (played_plies > 0):
        return 0.0
    throws_a_win_away = best_plies is not None and best_plies > 0
    walks_into_a_loss = played_plies is not None and played_plies < 0
    return LOSS_CAP if throws_a_win_away or walks_into_a_loss else 0.0


def _pov(value: float, side: int) -> float:
    """A mover's-side value seen from the first player's side."""
    return value if side == 0 else -value


def review_game(game: ReplayedGame, engine: Any, curve: WinCurve, settings: ReviewSettings) -> GameReview:
    """Analyse every move of ``game``: best move, both evaluations, loss, chances, mark."""
    engine.new_game()
    rows: list[PlyReview] = []
    moves = list(game.moves)
    for ply in reversed(range(len(moves))):
        position, move = game.positions[ply], moves[ply]
        side = int(position.turn)
        forced = len(position.legal_moves()) == 1
        info = engine.analyse(position, settings.limit)
        same = move == info.best
        played = info if same else engine.evaluate_move(position, move, settings.limit)
        best_score, played_score = info.score, played.score
        progress = position.progress()
        before = curve.chances(float(best_score), progress, best_score.plies_to_result)
        after = curve.chances(float(played_score), progress, played_score.plies_to_result)
        rows.append(
            PlyReview(
                ply=ply,
                side=side,
                fen=position.fen(),
                key=position.key,
                move=position.san(move),
                best_move=position.san(info.best),
                pv=position.variation_san(info.pv),
                score_best=_pov(float(best_score), side),
                score_played=_pov(float(played_score), side),
                loss=move_loss(best_score, played_score),
                plies_to_result_best=best_score.plies_to_result,
                plies_to_result_played=played_score.plies_to_result,
                win_chance_before=_pov(before, side),
                win_chance_after=_pov(after, side),
                mark=None if forced else settings.mark(before - after),
                forced=forced,
                depth=info.depth,
                seldepth=info.seldepth,
                nodes=info.nodes + (played.nodes if played is not info else 0),
                seconds=info.seconds + (played.seconds if played is not info else 0.0),
            )
        )
    rows.reverse()
    return GameReview(rows, player_stats(rows))


def player_stats(rows: Sequence[PlyReview]) -> tuple[PlayerStats, PlayerStats]:
    """Per-side counts of marks, mean loss and mean accuracy over the moves that were not forced (the mean
    loss is the plain mean of those moves' ``loss``)."""
    stats = (PlayerStats(), PlayerStats())
    losses: tuple[list[float], list[float]] = ([], [])
    accuracies: tuple[list[float], list[float]] = ([], [])
    for row in rows:
        player = stats[row.side]
        player.moves += 1
        if row.forced:
            player.forced += 1
            continue
        player.inaccuracies += row.mark == "?!"
        player.mistakes += row.mark == "?"
        player.blunders += row.mark == "??"
        losses[row.side].append(row.loss)
        before, after = _pov(row.win_chance_before, row.side), _pov(row.win_chance_after, row.side)
        accuracies[row.side].append(move_accuracy(before, after))
    for side in (0, 1):
        if losses[side]:
            stats[side].mean_loss = sum(losses[side]) / len(losses[side])
            stats[side].accuracy = sum(accuracies[side]) / len(accuracies[side])
    return stats
