"""The review of a backgammon match, game by game: ``review_match`` walks each replayed game's steps in
order and assembles its decisions, the cube decision before each roll (``cubes``), the checker play of the
roll (``plays``), each double and its answer, into a ``ReviewedGame``; the games together make a
``MatchReview``. A game with record errors is reviewed up to where its replay stopped, its errors kept.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np
from taldau.base.records import RecordError

from ..engine import Evaluator
from ..engine.cache import CachedEvaluator
from ..engine.probabilities import flipped
from ..records.record import ActionKind
from ..records.replay import Game, Step
from ..rules.cube import MatchState
from ..rules.position import Position
from .cubes import ANSWERS, JudgedCube, answer_review, doubling_review, judge_cube
from .levels import Judge, ReviewedDecision, ReviewSettings, judge_for
from .plays import move_review


@dataclass(frozen=True)
class ReviewedGame:
    """One game of the match reviewed: its place (0-based) and the match state it started from, its result
    as the replay gives it, the record's errors (the review stops where the replay did), the decisions in
    order."""

    index: int
    start: MatchState
    winner: int | None
    points: int
    errors: tuple[RecordError, ...]
    decisions: tuple[ReviewedDecision, ...]


@dataclass(frozen=True)
class MatchReview:
    """A match reviewed: its games, the evaluator's name and
    version, the settings, and the seconds the review took."""

    games: tuple[ReviewedGame, ...]
    engine: str
    version: str
    settings: ReviewSettings
    seconds: float

    @property
    def decisions(self) -> tuple[ReviewedDecision, ...]:
        """Every decision of the match, in order."""
        return tuple(decision for game in self.games for decision in game.decisions)


def review_match(
    games: Iterable[Game],
    evaluator: Evaluator,
    settings: ReviewSettings | None = None,
    progress: Callable[[int], object] | None = None,
) -> MatchReview:
    """Review the replayed games of one match, in order (``replay.read_games`` / ``replay_file`` give them;
    each carries the match state it started from). A game with record errors is reviewed up to where its
    replay stopped, its errors kept. ``progress`` hears each game's number of decisions once it is
    reviewed (for a display). The match's decisions share one ``CachedEvaluator``: no position is
    evaluated twice at the same plies within the match."""
    settings = settings or ReviewSettings()
    started = time.perf_counter()
    judge = judge_for(CachedEvaluator(evaluator), settings)
    reviewed: list[ReviewedGame] = []
    for index, game in enumerate(games):
        reviewed.append(_review_game(game, judge, index))
        if progress is not None:
            progress(len(reviewed[-1].decisions))
    reviews = tuple(reviewed)
    return MatchReview(
        games=reviews,
        engine=evaluator.name,
        version=evaluator.version,
        settings=settings,
        seconds=time.perf_counter() - started,
    )


def review_game(game: Game, evaluator: Evaluator, settings: ReviewSettings, index: int = 0) -> ReviewedGame:
    """Review one replayed game (``index``: its place in the match)."""
    return _review_game(game, judge_for(evaluator, settings), index)


def _review_game(game: Game, judge: Judge, index: int) -> ReviewedGame:
    """``review_game`` by ``judge``."""
    settings = judge.settings
    decisions: list[ReviewedDecision] = []
    offered: tuple[JudgedCube, Step] | None = None  # the double waiting for its answer
    # the position left by the last play and its probabilities (the next player's) at the cube plies: the
    # played play was evaluated as deep as the analysis goes, so the next cube decision need not again
    known: tuple[Position, tuple[float, ...]] | None = None
    opening = True
    for number, step in enumerate(game.steps):
        kind = step.action.kind
        player = step.action.player
        if kind is ActionKind.ROLL:
            if not opening and step.state.offered_by is None and step.state.can_double(player):
                cube = judge_cube(judge, step.position, step.state, known, doubled=False)
                if cube.decision.available:
                    decisions.append(doubling_review(cube, step, index, number, settings, doubled=False))
            if step.play is not None and step.action.dice is not None:
                move = move_review(judge, step, index, number, opening)
                decisions.append(move)
                if move.plies == settings.cube_depth and move.judged == settings.judged:
                    turned = flipped(np.array([move.played_probabilities]))[0]
                    known = step.play.result, tuple(float(p) for p in turned)
            opening = False
        elif kind is ActionKind.DOUBLE:
            cube = judge_cube(judge, step.position, step.state, known, doubled=True)
            decisions.append(doubling_review(cube, step, index, number, settings, doubled=True))
            offered = cube, step
        elif kind in ANSWERS and offered is not None:
            decisions.append(answer_review(offered[0], offered[1], step, index, number, settings))
            offered = None
    return ReviewedGame(
        index=index,
        start=game.start,
        winner=game.winner,
        points=game.points,
        errors=tuple(game.errors),
        decisions=tuple(decisions),
    )
