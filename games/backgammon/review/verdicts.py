"""The judgements a match file holds (``record.Verdict``: XG's analysis of a ``.xg``, gnubg's of an analysed
SGF), set beside each decision of a review as its reference, or taken as the analysis itself
(``--level stored``: ``stored_analyses``, which evaluates no position).

A decision's verdict is the one of its kind on the action that made it (``Step.action``): a roll's action
holds the verdict on not doubling before it and then on its play, a double's the verdict on doubling, an
answer's the verdict on the answer. A judge's best play, written as single checker moves (``13/8 24/23``,
as gnubg's SGF lists them), is written as the review writes a play (``Play.text``) where the roll's legal
plays hold one that leaves the same position.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from taldau.base.kind import Decision, GameAnalysis, pov

from ..engine.cubeful import CubeEquities
from ..records.record import BAR, OFF, Action, ActionKind, Verdict
from ..records.replay import Game, Step
from ..rules.cube import DecisionKind
from .cubes import ANSWERS, CubeChoice, close_cube, decision_of
from .decision import BackgammonDetail
from .levels import match_id

CHECKER_MOVE = re.compile(r"(\d{1,2}|bar)/(\d{1,2}|off)")


def verdict_of(action: Action, kind: DecisionKind) -> Verdict | None:
    """The verdict the file holds on the decision of ``kind`` that ``action`` made, None where none."""
    return next((verdict for verdict in action.verdicts if verdict.kind is kind), None)


def reference_name(verdict: Verdict) -> str:
    """Who judged, at what level, as players name them: ``XG 4-ply``, ``XG Roller++``, ``gnubg 2-ply``."""
    if verdict.level.startswith(verdict.judge):
        return verdict.level
    return f"{verdict.judge} {verdict.level}"


def best_text(step: Step, verdict: Verdict) -> str:
    """The verdict's best action in the notation of a review's best: a play as ``Play.text`` writes the
    legal play of the step's roll that leaves the position the judge's play leaves (the judge's text where
    none does), a cube action as it is."""
    dice = step.action.dice
    if verdict.kind is not DecisionKind.MOVE or dice is None:
        return verdict.best
    plays = step.position.plays(dice)
    if any(play.text == verdict.best for play in plays):
        return verdict.best
    moves = [(_point(start), _point(end)) for start, end in CHECKER_MOVE.findall(verdict.best)]
    if not moves:
        return verdict.best
    try:
        result = step.position.play_moves(moves)
    except (ValueError, IndexError):
        return verdict.best
    return next((play.text for play in plays if play.result == result), verdict.best)


def _point(text: str) -> int:
    return BAR if text == "bar" else OFF if text == "off" else int(text)


def reference(step: Step, kind: DecisionKind) -> dict[str, Any]:
    """The reference fields of a ``Decision`` of ``kind`` made in ``step``: who judged, the best action,
    the loss of the action taken (all None where the file holds no verdict on it)."""
    verdict = verdict_of(step.action, kind)
    if verdict is None:
        return {"reference": None, "reference_best": None, "reference_loss": None}
    return {
        "reference": reference_name(verdict),
        "reference_best": best_text(step, verdict),
        "reference_loss": verdict.loss,
    }


def stored_analyses(games: Sequence[Game]) -> list[GameAnalysis]:
    """The match of ``games`` judged by the verdicts its file holds, evaluating nothing: one
    ``GameAnalysis`` per game, in order, with a decision per checker play, per double and answer, and per
    roll before which the file judged not doubling (each with the match state as a review has it). A
    decision's ``loss``, ``drop`` and ``best`` are its verdict's; one the file did not judge loses 0, is
    not counted and has no reference. Counted, as a review counts them: the plays not forced, the answers
    but beavers, and the cube decisions gnubg counts (actual doubles, missed doubles, and those the
    judge's equities say are close). The values the file does not give (a play's equities, winning
    chances, luck) are 0 or None."""
    return [GameAnalysis(tuple(_game_decisions(game))) for game in games]


def _game_decisions(game: Game) -> list[Decision]:
    decisions: list[Decision] = []
    doubling: Step | None = None  # the double waiting for its answer
    opening = True
    for step in game.steps:
        action = step.action
        player = action.player
        if action.kind is ActionKind.ROLL:
            cube = verdict_of(action, DecisionKind.CUBE)
            may_double = step.state.offered_by is None and step.state.can_double(player)
            if cube is not None and not opening and may_double:
                decisions.append(_cube(len(decisions), step, step, CubeChoice.NO_DOUBLE))
            if step.play is not None and action.dice is not None:
                decisions.append(_play(len(decisions), step))
            opening = False
        elif action.kind is ActionKind.DOUBLE:
            decisions.append(_cube(len(decisions), step, step, CubeChoice.DOUBLE))
            doubling = step
        elif action.kind in ANSWERS and doubling is not None:
            decisions.append(_cube(len(decisions), doubling, step, ANSWERS[action.kind]))
            doubling = None
    return decisions


def _common(ply: int, step: Step, kind: DecisionKind, played: str) -> dict[str, Any]:
    """The fields a stored decision of ``kind`` made in ``step`` has whatever it is: its verdict's loss and
    best (where it has none: loss 0, the action taken ``played`` as the best)."""
    found = reference(step, kind)
    loss = found["reference_loss"]
    return {
        **found,
        "ply": ply,
        "kind": kind,
        "key": step.position.key,
        "played": played,
        "best": found["reference_best"] or played,
        "pv": found["reference_best"] or played,
        "loss": 0.0 if loss is None else loss,
        "drop": 0.0 if loss is None else loss,
        "depth": 0,
        "seldepth": 0,
        "nodes": 0,
        "seconds": 0.0,
    }


def _play(ply: int, step: Step) -> Decision:
    """A checker play as its verdict judges it."""
    assert step.play is not None and step.action.dice is not None
    dice = step.action.dice
    player = step.position.turn
    common = _common(ply, step, DecisionKind.MOVE, step.play.text)
    forced = len(step.position.plays(dice)) == 1
    loss = common["loss"]
    return Decision(
        **common,
        side=player,
        position=step.position.position_id(),
        score_best=0.0,
        score_played=pov(-loss, player),
        chance_before=0.0,
        chance_after=0.0,
        forced=forced,
        counted=not forced and common["reference"] is not None,
        detail=BackgammonDetail(
            dice=(int(dice[0]), int(dice[1])), match_id=match_id(step.state, player, dice)
        ),
    )


def _cube(ply: int, doubling: Step, step: Step, choice: CubeChoice) -> Decision:
    """The cube decision of ``doubling``'s roller (``choice`` no double or double) or the answer to it
    made in ``step`` (take, pass, beaver), as its verdict judges it: with the judge's three equities and
    gnubg's words for the right action where the file stores them (``CubeEquities``; the taker's the
    doubler's negated, as a review has them), counted where gnubg would count it (a close or actual
    decision: ``review.close_cube``), beavers aside."""
    kind = DecisionKind.CUBE if choice in (CubeChoice.NO_DOUBLE, CubeChoice.DOUBLE) else DecisionKind.TAKE
    doubler = doubling.position.turn
    player = doubler if kind is DecisionKind.CUBE else 1 - doubler
    common = _common(ply, step, kind, str(choice))
    loss = common["loss"]
    verdict = verdict_of(step.action, kind)
    equities = None if verdict is None else verdict.equities
    cube: CubeEquities | None = None
    optimal, close = loss, verdict is not None
    if equities is not None:
        words = decision_of(equities, doubling.state, doubler).action.value
        no_double, double_take, double_pass = equities
        if kind is DecisionKind.CUBE:
            cube = CubeEquities(no_double, double_take, double_pass, words)
            optimal = max(no_double, min(double_take, double_pass))
            missed = choice is CubeChoice.NO_DOUBLE and loss > 0
            close = close_cube(equities, choice is CubeChoice.DOUBLE, missed)
        else:
            cube = CubeEquities(-no_double, -double_take, -double_pass, words)
            optimal = max(-double_take, -double_pass)
    return Decision(
        **common,
        side=player,
        position=doubling.position.position_id(),
        score_best=pov(optimal, player),
        score_played=pov(optimal - loss, player),
        chance_before=0.0,
        chance_after=0.0,
        forced=False,
        counted=close and choice is not CubeChoice.BEAVER,
        detail=BackgammonDetail(
            match_id=match_id(doubling.state, doubler, answering=kind is DecisionKind.TAKE), cube=cube
        ),
    )
