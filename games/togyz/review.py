"""Judging a Togyz Kumalak game move by move: the engine's best move against the move played, both scores,
the kumalak lost and the winning chances before and after (through the win curve).

Scores and winning chances are stored from White's side; ``loss`` and plies to a forced result from the
mover's side. Positions are analysed from the last to the first, so that the engine's table carries what it
learnt about the end of the game back to its start. The marks and the players' figures are the batch's
(``taldau.analysis.review``): a move's ``drop`` (the winning chances it gives away) is what they are set by.
"""

from __future__ import annotations

from taldau.games.kind import Decision, DecisionKind, GameAnalysis, OpeningBook
from taldau.games.winchance import WinCurve

from .engine import AnalysisInfo, Engine, Limit, Score
from .position import Position
from .replay import Game

LOSS_CAP = 20.0  # the most one move can lose, in kumalak: a move's loss and so a player's mean loss


def move_loss(best: Score, played: Score) -> float:
    """What the played move gives away against the best one, from the mover's side, in kumalak: from 0 to
    ``LOSS_CAP``, and so averaged as it is stored.

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


REFUTED = 2.0  # kumalak: a book move the engine finds this much worse than its own best is not played


def book_move(
    book: OpeningBook, position: Position, engine: Engine, limit: Limit, refuted: float = REFUTED
) -> int | None:
    """A move of ``book`` for ``position`` (its origin pit) that the engine does not refute: one that loses
    less than ``refuted`` kumalak against the engine's best at ``limit`` (``move_loss``); None when the book
    has none. The engine searches only when the book has a candidate."""
    pits = {position.san(pit): pit for pit in position.legal_moves()}
    searched: list[AnalysisInfo] = []

    def sound(text: str) -> bool:
        pit = pits.get(text)
        if pit is None:  # a book of other rules, or a damaged one: never play what is not legal
            return False
        if not searched:
            searched.append(engine.analyse(position, limit))
        best = searched[0]
        played = best if best.best == pit else engine.evaluate_move(position, pit, limit)
        return move_loss(best.score, played.score) < refuted

    chosen = book.choose(position.key, "", sound)
    return None if chosen is None else pits[chosen]


def _white(value: float, side: int) -> float:
    """A mover's-side value seen from White's side."""
    return value if side == 0 else -value


def review_game(game: Game, engine: Engine, curve: WinCurve, limit: Limit) -> GameAnalysis:
    """Every move of ``game`` judged: best move, both evaluations, loss, winning chances."""
    engine.new_game()
    decisions: list[Decision] = []
    moves = game.moves
    for ply in reversed(range(len(moves))):
        position, move = game.positions[ply], moves[ply]
        side = int(position.turn)
        info = engine.analyse(position, limit)
        played = info if move == info.best else engine.evaluate_move(position, move, limit)
        best_score, played_score = info.score, played.score
        progress = position.progress()
        before = curve.chances(float(best_score), progress, best_score.plies_to_result)
        after = curve.chances(float(played_score), progress, played_score.plies_to_result)
        forced = len(position.legal_moves()) == 1
        decisions.append(
            Decision(
                ply=ply,
                side=side,
                kind=DecisionKind.MOVE,
                dice=None,
                position=position.fen(),
                key=position.key,
                played=position.san(move),
                best=position.san(info.best),
                pv=position.variation_san(info.pv),
                score_best=_white(float(best_score), side),
                score_played=_white(float(played_score), side),
                loss=move_loss(best_score, played_score),
                drop=before - after,
                chance_before=_white(before, side),
                chance_after=_white(after, side),
                plies_to_result_best=best_score.plies_to_result,
                plies_to_result_played=played_score.plies_to_result,
                forced=forced,
                counted=not forced,
                depth=info.depth,
                seldepth=info.seldepth,
                nodes=info.nodes + (played.nodes if played is not info else 0),
                seconds=info.seconds + (played.seconds if played is not info else 0.0),
            )
        )
    decisions.reverse()
    return GameAnalysis(tuple(decisions))
