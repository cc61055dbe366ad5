"""The backgammon engine entry point (``engine.analyse``): ranking, gnubg's move filter, forced and
impossible rolls, finished games, ``include`` / ``evaluate_play`` and ``evaluate_position``.

Most tests use ``PipEvaluator``, defined here, whose numbers follow from its definition by hand: the side
on roll wins with 0.5 + (its opponent's pips - its own pips) / 90, plus 0.01 per ply, and no gammons. After
a play the opponent is on roll, so the equity of a play for the side that played is
1 - 2 * (0.5 + (mover's pips - opponent's pips) / 90 + 0.01 * plies) = (opponent's pips - mover's pips) / 45
- 0.02 * plies. Every play of a roll takes the same pips off the mover, so plays rank by how far they send
the opponent back: hitting a blot on the mover's point q costs the opponent q pips.
The gnubg tests compare with gnubg-nn's own ranking and skip without it."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import backgammon_board as board
from taldau.games.backgammon.engine import Evaluator
from taldau.games.backgammon.engine.analyse import (
    Search,
    analyse,
    candidates,
    evaluate_play,
    evaluate_position,
    exact_probabilities,
    load_evaluator,
)
from taldau.games.backgammon.engine.gnubg import GnubgEvaluator, gnubg_available, load_gnubg
from taldau.games.backgammon.rules.position import Position


class PipEvaluator:
    """Test-only evaluator from pip counts (see the module docstring); records every call."""

    name = "pips"
    version = "test"

    def __init__(self) -> None:
        self.calls: list[tuple[np.ndarray, int]] = []

    def evaluate(self, boards: np.ndarray, plies: int = 0) -> np.ndarray:
        boards = np.asarray(boards)
        self.calls.append((boards.copy(), plies))
        assert (boards.reshape(-1, 50).sum(axis=1) > 0).all()
        weights = np.arange(1, 26)
        on_roll = (boards[:, 1].astype(np.int64) * weights).sum(axis=1)
        waiting = (boards[:, 0].astype(np.int64) * weights).sum(axis=1)
        out = np.zeros((len(boards), 5))
        out[:, 0] = np.clip(0.5 + (waiting - on_roll) / 90 + 0.01 * plies, 0.0, 1.0)
        return out


# The mover: 5 checkers each on its 13, 8 and 6 points (135 pips; 132 after any 21). The opponent: blots on
# the mover's 11 and 5 points (its own 14 and 20) and 13 checkers on its 6-point (112 pips).
TWO_BLOTS = Position(board({13: 5, 8: 5, 6: 5}, {14: 1, 20: 1, 6: 13}))
HIT_BOTH, HIT_11, HIT_5, NO_HIT = (-4 / 45, -9 / 45, -15 / 45, -20 / 45)  # 128, 123, 117, 112 pips left


def expected_0ply(hits: tuple[int, ...]) -> float:
    return {(11, 5): HIT_BOTH, (5, 11): HIT_BOTH, (11,): HIT_11, (5,): HIT_5, (): NO_HIT}[hits]


def test_pip_evaluator_is_an_evaluator() -> None:
    assert isinstance(PipEvaluator(), Evaluator)


def test_limit_defaults_are_gnubgs_filter() -> None:
    assert Search() == Search(plies=0, candidates=16, threshold=0.32)
    for bad in ({"plies": -1}, {"candidates": 0}, {"threshold": -0.1}):
        with pytest.raises(ValueError):
            Search(**bad)


def test_ranking_at_0_ply_follows_the_pips_sent_back() -> None:
    evaluator = PipEvaluator()
    analysis = analyse(evaluator, TWO_BLOTS, (2, 1))
    assert len(evaluator.calls) == 1  # every play in one batched call
    assert len(evaluator.calls[0][0]) == len(TWO_BLOTS.plays((2, 1))) == len(analysis)
    assert analysis.best.play.text == "13/11* 6/5*"
    assert analysis.best.equity == pytest.approx(HIT_BOTH)
    assert analysis.best.difference == 0.0
    for ranked in analysis.plays:
        assert ranked.equity == pytest.approx(expected_0ply(ranked.play.hits))
        assert ranked.difference == pytest.approx(ranked.equity - HIT_BOTH)
        assert ranked.plies == 0
        assert ranked.probabilities[1:] == (0.0, 0.0, 0.0, 0.0)
    equities = [ranked.equity for ranked in analysis.plays]
    assert equities == sorted(equities, reverse=True)


def test_ties_keep_the_generators_order() -> None:
    analysis = analyse(PipEvaluator(), TWO_BLOTS, (2, 1))
    generated = [play.text for play in TWO_BLOTS.plays((2, 1))]
    ranked = [ranked.play.text for ranked in analysis.plays]
    for value in (HIT_11, HIT_5, NO_HIT):
        tied = [r.play.text for r in analysis.plays if r.equity == pytest.approx(value)]
        assert tied == [text for text in generated if text in tied]
    assert ranked == [r.play.text for r in analyse(PipEvaluator(), TWO_BLOTS, (2, 1)).plays]


def test_the_filter_keeps_plays_within_the_window_for_the_deeper_plies() -> None:
    evaluator = PipEvaluator()
    analysis = analyse(evaluator, TWO_BLOTS, (2, 1), Search(plies=1))
    # the best is -4/45 at 0-ply; the window reaches -4/45 - 0.32 = -0.409: the hits are in, no hit is out
    hitting = [r for r in analysis.plays if r.play.hits]
    quiet = [r for r in analysis.plays if not r.play.hits]
    assert len(hitting) <= 16 and quiet
    assert [r.plies for r in hitting] == [1] * len(hitting)
    assert [r.plies for r in quiet] == [0] * len(quiet)
    for ranked in hitting:
        assert ranked.equity == pytest.approx(expected_0ply(ranked.play.hits) - 0.02)
    for ranked in quiet:
        assert ranked.equity == pytest.approx(NO_HIT)
        assert ranked.difference == pytest.approx(NO_HIT - (HIT_BOTH - 0.02))
    assert [plies for _, plies in evaluator.calls] == [0, 1]
    assert len(evaluator.calls[1][0]) == len(hitting)  # the candidates, in one call
    assert analysis.plays[: len(hitting)] == tuple(hitting)  # deeper plies rank first
    assert analysis.evaluated == len(analysis) + len(hitting)


def test_the_filter_keeps_at_most_the_candidates_asked_for() -> None:
    assert candidates(np.array([0.1, 0.5, 0.3, 0.5, -0.5]), Search(candidates=3)).tolist() == [1, 3, 2]
    assert candidates(np.array([0.1, 0.5, 0.3, 0.5, -0.5]), Search(threshold=0.25)).tolist() == [1, 3, 2]
    assert candidates(np.array([0.1, 0.5, 0.3, 0.5, -0.5]), Search(threshold=0.1)).tolist() == [1, 3]
    analysis = analyse(PipEvaluator(), TWO_BLOTS, (2, 1), Search(plies=2, candidates=1))
    assert analysis.best.play.text == "13/11* 6/5*" and analysis.best.plies == 2
    assert [r.plies for r in analysis.plays[1:]] == [0] * (len(analysis) - 1)


def test_a_play_the_filter_dropped_can_be_judged_at_full_plies() -> None:
    quiet = next(play for play in TWO_BLOTS.plays((2, 1)) if not play.hits)
    judged = evaluate_play(PipEvaluator(), TWO_BLOTS, (2, 1), quiet, Search(plies=1))
    assert judged.play.result == quiet.result
    assert judged.plies == 1
    assert judged.equity == pytest.approx(NO_HIT - 0.02)
    assert judged.difference == pytest.approx(NO_HIT - HIT_BOTH)
    hitting = sum(1 for play in TWO_BLOTS.plays((2, 1)) if play.hits)
    assert judged.rank == hitting  # below every hit, above the other quiet plays left at 0-ply
    analysis = analyse(PipEvaluator(), TWO_BLOTS, (2, 1), Search(plies=1), include=[quiet])
    assert sum(1 for r in analysis.plays if r.plies == 1) == hitting + 1


def test_include_refuses_a_play_of_another_roll() -> None:
    other = Position.start().plays((3, 1))[0]
    with pytest.raises(ValueError, match="is not a play of this roll"):
        analyse(PipEvaluator(), TWO_BLOTS, (2, 1), Search(plies=1), include=[other])
    with pytest.raises(ValueError, match="is not a play of this roll"):
        analyse(PipEvaluator(), TWO_BLOTS, (2, 1), include=[other])


def test_a_forced_play() -> None:
    # one checker on the bar, the opponent holds its 1..5 points: only the 6 enters, then the 5 must be
    # played by the same checker (the others, on the ace point, cannot bear off with a checker out)
    position = Position(board({25: 1, 1: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 13: 5}))
    analysis = analyse(PipEvaluator(), position, (6, 5), Search(plies=2))
    assert len(analysis) == 1
    assert analysis.best.play.moves == ((25, 19), (19, 14))
    assert analysis.best.plies == 2 and analysis.best.difference == 0.0


def test_a_roll_with_no_legal_play() -> None:
    # one checker on the bar against a closed board: the empty play, the opponent on roll in the same position
    position = Position(board({25: 1, 13: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 5}))
    evaluator = PipEvaluator()
    analysis = analyse(evaluator, position, (6, 3))
    assert len(analysis) == 1 and analysis.best.play.moves == () and analysis.best.play.text == ""
    assert np.array_equal(evaluator.calls[0][0][0], position.board[::-1])
    mover, opponent = 25 + 13 * 14, 2 * 15 + 5 * 6  # 207 and 60 pips
    assert analysis.best.equity == pytest.approx(1 - 2 * min(1.0, 0.5 + (mover - opponent) / 90))


@pytest.mark.parametrize(
    ("opponent", "points", "expected"),
    [
        ({6: 14}, 1, (1.0, 0.0, 0.0, 0.0, 0.0)),  # the opponent bore one off: a single game
        ({6: 15}, 2, (1.0, 1.0, 0.0, 0.0, 0.0)),  # none off: a gammon
        ({6: 14, 25: 1}, 3, (1.0, 1.0, 1.0, 0.0, 0.0)),  # none off and one on the bar: a backgammon
        ({6: 14, 20: 1}, 3, (1.0, 1.0, 1.0, 0.0, 0.0)),  # ... or one in the winner's home board
    ],
)
def test_bearing_off_the_last_checker_wins_exactly(
    opponent: dict[int, int], points: int, expected: tuple[float, ...]
) -> None:
    position = Position(board({2: 1}, opponent))
    for plies in (0, 2):
        evaluator = PipEvaluator()
        analysis = analyse(evaluator, position, (2, 1), Search(plies=plies))
        assert evaluator.calls == []  # the result is known: no evaluator asked
        assert analysis.best.play.result.outcome() is not None
        assert analysis.best.probabilities == expected
        assert analysis.best.equity == points


def test_evaluate_position() -> None:
    result = evaluate_position(PipEvaluator(), Position.start(), 1)
    assert result.probabilities == (0.51, 0.0, 0.0, 0.0, 0.0)  # equal pips, plus 0.01 for the ply
    assert result.equity == pytest.approx(0.02) and result.plies == 1 and not result.exact
    # the side not on roll has borne everything off: the side on roll lost a gammon
    over = evaluate_position(PipEvaluator(), Position(board({6: 15}, {})))
    assert over.probabilities == (0.0, 0.0, 0.0, 1.0, 0.0) and over.equity == -2.0 and over.exact
    # the side on roll itself has borne off everything (a finished game seen from the winner)
    won = exact_probabilities(board({}, {6: 14, 25: 1}))
    assert won is not None and won.tolist() == [1.0, 1.0, 1.0, 0.0, 0.0]


def test_load_evaluator_names() -> None:
    with pytest.raises(ValueError, match="unknown backgammon engine 'xg'"):
        load_evaluator("xg")


# --- with gnubg-nn

needs_gnubg = pytest.mark.skipif(
    not gnubg_available(), reason="needs gnubg-nn (pip install 'taldau[gnubg]'), an optional extra"
)


@needs_gnubg
def test_gnubg_0_ply_ranking_equals_gnubgs_own() -> None:
    # gnubg-nn's best_move(list=1) ranks every play of a roll at 0-ply with its equity for the mover
    gnubg = load_gnubg()
    start = Position.start()
    analysis = analyse(GnubgEvaluator(), start, (3, 1))
    _, listed = gnubg.best_move(start.board.tolist(), 3, 1, list=1)
    assert analysis.best.play.text == "8/5 6/5"
    assert [r.equity for r in analysis.plays] == pytest.approx([entry[3] for entry in listed], abs=1e-6)
    assert analysis.best.probabilities == pytest.approx(
        (1 - listed[0][2][0], listed[0][2][3], listed[0][2][4], listed[0][2][1], listed[0][2][2]), abs=1e-6
    )


@needs_gnubg
def test_gnubg_2_ply() -> None:
    analysis = analyse(GnubgEvaluator(), Position.start(), (3, 1), Search(plies=2))
    assert analysis.best.play.text == "8/5 6/5" and analysis.best.plies == 2
    assert analysis.plays[-1].plies == 0  # 8/7 8/5 is more than 0.32 below 8/5 6/5 at 0-ply
    assert load_evaluator("gnubg").name == "gnubg"
