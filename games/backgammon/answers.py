"""A backgammon roll's plays and a position's evaluation as JSON objects (``taldau plays --json``, ``taldau
eval --json``): listed, ranked in the match context the position's text carries, or rolled out; the
commands print these objects as they are, and their text from the same objects.

The match context is the one an XGID or a GNUbgID gives (score, match length, cube value and owner,
Crawford, Jacoby); a bare gnubg Position ID is money play with the cube centred at 1 and the Jacoby rule
(gnubg's and XG's default money session). Plays are ranked as ``taldau analyze`` ranks them
(``review.rank_plays``), and the cube decision before the roll is the review's (``review.review_cube``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .engine import Evaluator
from .engine.analyse import PositionEvaluation, evaluate_position, exact_probabilities
from .engine.probabilities import PROBABILITIES, equities
from .engine.sage import CubefulRollout, SageRollout
from .review.cubes import review_cube
from .review.levels import ReviewSettings
from .review.plays import PlaysInContext, rank_plays
from .rules.cube import MatchState
from .rules.position import Play, parse_dice
from .rules.position_text import PositionSetup, read_position

ROLLOUT_PLAYS = 5  # plays rolled out at most, the best of the ranking (bgsage's own filter: 5 ...)
ROLLOUT_THRESHOLD = 0.08  # ... within 0.08 (EMG) of the best


def plays_json(position: str, dice: str) -> dict[str, Any]:
    """``taldau plays --json``: the legal plays of ``dice`` (like ``31``) in the backgammon ``position``,
    each with the Position ID it leaves; raises ValueError for a bad position or dice."""
    setup = read_position(position)
    plays = setup.position.plays(parse_dice(dice))
    return {
        "position": position,
        "dice": dice,
        "plays": [{"move": play.text, "result": play.result.position_id()} for play in plays],
    }


def match_context(setup: PositionSetup) -> MatchState:
    """The match context a position's text gives: its match state (XGID, GNUbgID), else money play with
    the cube centred at 1 and the Jacoby rule (a bare Position ID)."""
    return setup.state if setup.state is not None else MatchState()


def context_json(state: MatchState, player: int) -> dict[str, Any]:
    """The match context ``state`` as ``player`` (on roll) sees it: money or the match's length, the
    score and the points each side still needs (``away``, the side on roll first), the cube and its
    owner, Crawford, Jacoby and beavers (never valued in a ranking: ``review.rank_plays``), and the same
    in words (``text``)."""
    rules = state.rules
    owner = "centred" if state.cube_owner is None else "on roll" if state.cube_owner == player else "opponent"
    score = (state.score[player], state.score[1 - player])
    context: dict[str, Any] = {
        "money": rules.money,
        "length": rules.length,
        "score": list(score),
        "away": None if rules.money else [rules.length - points for points in score],
        "cube": state.cube,
        "owner": owner,
        "crawford": state.crawford_game,
        "post_crawford": state.post_crawford,
        "jacoby": rules.money and rules.jacoby,
        "beavers": rules.money and rules.beavers,
    }
    return context | {"text": _context_text(context)}


def _context_text(context: dict[str, Any]) -> str:
    """``7-point match, on roll 2-away, opponent 4-away, cube 2 owned by the opponent, not Crawford`` or
    ``money, cube 1 centred, Jacoby``."""
    owner = {
        "centred": "centred",
        "on roll": "owned by the side on roll",
        "opponent": "owned by the opponent",
    }
    cube = f"cube {context['cube']} {owner[context['owner']]}"
    if context["money"]:
        return f"money, {cube}, {'Jacoby' if context['jacoby'] else 'no Jacoby'}"
    mine, theirs = context["away"]
    crawford = (
        "Crawford game"
        if context["crawford"]
        else "post-Crawford"
        if context["post_crawford"]
        else "not Crawford"
    )
    return f"{context['length']}-point match, on roll {mine}-away, opponent {theirs}-away, {cube}, {crawford}"


def rank_roll(evaluator: Evaluator, position: str, dice: str, plies: int) -> PlaysInContext:
    """The plays of ``dice`` in the backgammon ``position`` (a Position ID, GNUbgID or XGID) ranked by
    cubeful equity in its match context at ``plies``, with the engine's move filter, as ``taldau analyze``
    ranks a checker play (``review.rank_plays``); raises ValueError for a bad position or dice."""
    setup = read_position(position)
    settings = ReviewSettings.of_engine(evaluator.name, plies)
    return rank_plays(evaluator, setup.position, parse_dice(dice), match_context(setup), settings)


def _probabilities(values: tuple[float, ...]) -> dict[str, float]:
    return {name: round(p, 6) for name, p in zip(PROBABILITIES, values, strict=True)}


def ranked_plays_json(evaluator: Evaluator, position: str, dice: str, plies: int) -> dict[str, Any]:
    """``taldau plays --depth N --json``: the plays of ``dice`` in ``position`` ranked by ``evaluator`` at
    ``plies`` in the position's match context (``rank_roll``), each with its cubeful equity (EMG, what it
    is ranked by), its difference to the best, its cubeless equity and probabilities and the plies it was
    evaluated at; raises ValueError for a bad position or dice."""
    ranking = rank_roll(evaluator, position, dice, plies)
    ranked = ranking.best_first()
    best = ranked[0][1]
    return {
        "position": position,
        "dice": dice,
        "engine": ranking.analysis.engine,
        "plies": plies,
        "context": context_json(ranking.state, ranking.player),
        "plays": [
            {
                "move": play.play.text,
                "result": play.play.result.position_id(),
                "plies": play.plies,
                "equity": round(value, 6),
                "difference": round(value - best, 6),
                "cubeless_equity": round(play.equity, 6),
                "probabilities": _probabilities(play.probabilities),
            }
            for play, value in ranked
        ],
    }


def evaluation_json(evaluator: Evaluator, position: str, plies: int) -> dict[str, Any]:
    """``taldau eval --json``: the backgammon ``position`` before the roll, from the side on roll, at
    ``plies``: its five cubeless probabilities and cubeless equity, and in its match context the cube
    decision as ``taldau analyze`` judges it (``review.review_cube``: No double, Double/take,
    Double/pass, the cubeful equity with the right action, EMG; None for a game over, whose numbers are
    its result); raises ValueError for a bad position."""
    setup = read_position(position)
    state = match_context(setup)
    player = setup.position.turn
    payload = {"position": position, "engine": evaluator.name, "context": context_json(state, player)}
    if exact_probabilities(setup.position.board) is not None:
        return payload | evaluate_position(evaluator, setup.position, plies).to_json() | {"cube": None}
    settings = ReviewSettings.of_engine(evaluator.name, plies)
    probabilities, decision = review_cube(evaluator, setup.position, state, settings)
    equity = float(equities(np.array([probabilities]))[0])
    evaluation = PositionEvaluation(probabilities, equity, plies)
    cube = {
        "available": decision.available,
        "action": decision.action.value,
        "no_double": round(decision.no_double, 6),
        "double_take": round(decision.double_take, 6),
        "double_pass": round(decision.double_pass, 6),
        "cubeful_equity": round(decision.best, 6),
    }
    return payload | evaluation.to_json() | {"cube": cube}


@dataclass(frozen=True)
class RolledPlay:
    """A play of a roll after a cubeful rollout in the match context: its rank by the rollout's equity,
    the rollout (``engine.sage.CubefulRollout``; None for a play that wins the game, whose value is exact),
    its cubeful equity (EMG) and cubeless probabilities, and ``difference``, its equity minus the best
    rolled play's."""

    rank: int
    play: Play
    rollout: CubefulRollout | None
    equity: float
    probabilities: tuple[float, ...]
    difference: float

    def to_json(self) -> dict[str, Any]:
        rolled = self.rollout
        return {
            "move": self.play.text,
            "result": self.play.result.position_id(),
            "rollout": True,
            "difference": round(self.difference, 6),
            "equity": round(self.equity, 6),
            "equity_se": 0.0 if rolled is None else round(rolled.error, 6),
            "probabilities": _probabilities(self.probabilities),
            "standard_errors": _probabilities(rolled.standard_errors if rolled else (0.0,) * 5),
            "trials": 0 if rolled is None else rolled.trials,
            "exact": rolled is None,
        }


def rollout_plays(
    rollout: SageRollout,
    ranking: PlaysInContext,
    plays: int = ROLLOUT_PLAYS,
    threshold: float = ROLLOUT_THRESHOLD,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[RolledPlay, ...]:
    """The best ``plays`` plays of ``ranking`` within ``threshold`` (EMG) of its best (at least two where
    the roll has two), rolled out cubeful in the ranking's match context by bgsage
    (``SageRollout.after_play_cubeful``, as ``analyze --level world`` settles a play), on the same dice,
    and ranked best first by the rollout's equity (ties in the ranking's order); ``progress(done, total)``
    told the trials played of all the plays as they finish."""
    ranked = ranking.best_first()
    best = ranked[0][1]
    chosen = [item for at, item in enumerate(ranked[:plays]) if at < 2 or item[1] >= best - threshold]
    trials = rollout.settings.trials

    def told(index: int) -> Callable[[int, int], None] | None:
        """The progress of the rollout of play ``index``, told as a share of all the plays'."""
        if progress is None:
            return None
        return lambda done, _: progress(index * trials + done, len(chosen) * trials)

    rolled = []
    for index, (play, value) in enumerate(chosen):
        board = play.play.result.board[::-1]
        result = rollout.after_play_cubeful(board, ranking.state, ranking.player, told(index))
        if result is None:  # the play wins the game: its value is exact
            rolled.append((play.play, None, value, play.probabilities))
        else:
            rolled.append((play.play, result, result.equity, result.probabilities))
    order = sorted(range(len(rolled)), key=lambda index: (-rolled[index][2], index))
    top = rolled[order[0]][2]
    return tuple(
        RolledPlay(rank, *rolled[index][:2], rolled[index][2], rolled[index][3], rolled[index][2] - top)
        for rank, index in enumerate(order)
    )


def rolled_plays_json(
    position: str,
    dice: str,
    rollout: SageRollout,
    plies: int,
    ranking: PlaysInContext,
    rolled: tuple[RolledPlay, ...],
) -> dict[str, Any]:
    """``taldau plays --rollout --json``: the plays ``rolled`` out by ``rollout`` (``rollout_plays``), the
    best of the ``ranking`` at ``plies``, in its match context."""
    return {
        "position": position,
        "dice": dice,
        "engine": rollout.name,
        "plies": plies,
        "rollout": rollout.settings.to_json(),
        "context": context_json(ranking.state, ranking.player),
        "plays": [play.to_json() for play in rolled],
    }
