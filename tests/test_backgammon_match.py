"""Cubeless money matches with duplicate dice (``measure/backgammon/match.py``), played by the pip-count test
evaluator of test_backgammon_engine.py (fast and deterministic).

Self-play: with one deterministic evaluator on both sides, the two games of a duplicate pair are the same
game move for move (seat 0 gets the same rolls and, seeing the same boards, picks the same plays), with A
in seat 0 once and in seat 1 once: A's points over the pair are exactly 0."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from taldau.games.backgammon.engine.analyse import Search
from taldau.games.backgammon.engine.gnubg import gnubg_available
from taldau.games.backgammon.review.luck import OPENING_ROLLS, cubeless_roll_values, roll_luck
from taldau.games.backgammon.rules.board import ROLL_COUNTS
from taldau.games.backgammon.rules.position import ROLLS, Position
from taldau.measure.agreement import t95
from taldau.measure.backgammon import match as match_module
from taldau.measure.backgammon.match import (
    BackgammonGameResult,
    BackgammonMatchResult,
    BackgammonPlayer,
    dice_sequence,
    parse_player,
    play_game,
    run_match,
)
from test_backgammon_engine import PipEvaluator


class BackwardEvaluator(PipEvaluator):
    """Likes its own pips high: picks the plays a pip counter likes least (another deterministic player)."""

    name = "backward"

    def evaluate(self, boards, plies=0):  # type: ignore[no-untyped-def]
        out = super().evaluate(boards, plies)
        out[:, 0] = 1.0 - out[:, 0]
        return out


PIPS = BackgammonPlayer(PipEvaluator(), Search(), "pips:0")
BACKWARD = BackgammonPlayer(BackwardEvaluator(), Search(), "backward:0")


def test_the_same_seed_gives_the_same_games() -> None:
    first = run_match(PIPS, BACKWARD, 4, seed=7)
    second = run_match(PIPS, BACKWARD, 4, seed=7)
    assert first == second
    other = run_match(PIPS, BACKWARD, 4, seed=8)
    assert [game.rolls for game in other.games] != [game.rolls for game in first.games]


def test_both_games_of_a_pair_use_the_same_dice() -> None:
    result = run_match(PIPS, BACKWARD, 6, seed=3)
    assert [(game.pair, game.a_seat) for game in result.games] == [(p, s) for p in range(3) for s in (0, 1)]
    for pair in range(3):
        first, second = result.games[2 * pair : 2 * pair + 2]
        common = min(len(first.rolls), len(second.rolls))
        assert first.rolls[:common] == second.rolls[:common]
        expected = dice_sequence(3, pair)
        assert [next(expected) for _ in range(common)] == list(first.rolls[:common])
    assert result.games[0].rolls != result.games[2].rolls  # pairs get their own dice


def test_the_opening_roll_decides_who_starts() -> None:
    # dice (2, 2) tie and roll again; (3, 5): seat 1 rolled the higher die and plays 5-3 first
    rolls = iter([(2, 2), (3, 5), *[(6, 5)] * 500])
    result = play_game(PIPS, PIPS, 0, rolls)
    assert result.rolls[:2] == ((2, 2), (3, 5))
    # a player against itself: the winner is known from who started and the game's length
    assert result.a_won == ((result.plies % 2 == 0) == (result.a_seat == 0))


def test_a_player_against_itself_scores_zero_per_pair() -> None:
    result = run_match(PIPS, BackgammonPlayer(PIPS.evaluator, Search(), "pips again"), 10, seed=11)
    for pair in range(5):
        first, second = result.games[2 * pair : 2 * pair + 2]
        assert first.rolls == second.rolls and first.plies == second.plies
        assert first.a_points + second.a_points == 0
    assert result.points == 0 and result.margin is None  # every pair alike: no zero-width margin
    assert "(no margin: every pair scored the same)" in str(result)


def test_a_game_beyond_the_cap_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(match_module, "MAX_PLIES", 3)
    with pytest.raises(RuntimeError, match="did not end within 3 plies"):
        play_game(PIPS, BACKWARD, 0, dice_sequence(0, 0))


def test_games_come_in_pairs() -> None:
    with pytest.raises(ValueError, match="even number"):
        run_match(PIPS, BACKWARD, 3)


def game(pair: int, seat: int, a_won: bool, value: int) -> BackgammonGameResult:
    return BackgammonGameResult(pair=pair, a_seat=seat, a_won=a_won, value=value, plies=10, rolls=((3, 1),))


def test_result_arithmetic_on_a_hand_made_set() -> None:
    # A's points per game: pair 0: +1 -1, pair 1: +2 +1, pair 2: -3 +1; pair means 0, 1.5, -1
    games = (
        game(0, 0, True, 1),
        game(0, 1, False, 1),
        game(1, 0, True, 2),
        game(1, 1, True, 1),
        game(2, 0, False, 3),
        game(2, 1, True, 1),
    )
    result = BackgammonMatchResult("a", "b", games)
    assert result.played == 6 and result.points == 1
    assert result.points_per_game == pytest.approx(1 / 6)
    assert result.pair_means() == [0.0, 1.5, -1.0]
    assert result.margin is None and "(no margin below 10 games)" in str(result)  # 3 pairs
    assert (result.wins(True, 2), result.wins(True, 3), result.wins(False, 3), result.wins(False, 1)) == (
        1,
        0,
        1,
        1,
    )
    payload = result.to_json()
    assert (payload["a_wins"], payload["b_wins"], payload["a_gammons"], payload["b_backgammons"]) == (
        4,
        2,
        1,
        1,
    )
    assert BackgammonMatchResult("a", "b", games[:2]).margin is None


def test_a_margin_is_student_s_t_over_five_pairs_or_more() -> None:
    """From 10 games (5 pairs) on, the margin is Student's t at 4 degrees of freedom (2.776) times the
    standard error of the pair means: the normal 1.96 would claim 95% for a 80% interval there."""
    points = ((1, -1), (2, 1), (-3, 1), (1, 1), (-1, -2))  # A's points in each game: pair means 0, 1.5, ...
    games = tuple(
        game(pair, seat, won > 0, abs(won))
        for pair, pair_points in enumerate(points)
        for seat, won in enumerate(pair_points)
    )
    result = BackgammonMatchResult("a", "b", games)
    means = [0.0, 1.5, -1.0, 1.0, -1.5]
    assert result.pair_means() == means
    assert t95(4) == pytest.approx(2.7764, abs=0.001)
    assert result.margin == pytest.approx(t95(4) * np.std(means, ddof=1) / math.sqrt(5))
    assert f"± {result.margin:.3f} points per game" in str(result)


def test_parse_player() -> None:
    evaluators = {"pips": PipEvaluator()}
    player = parse_player("pips:2", evaluators)
    assert player.limit == Search(plies=2) and player.label == "pips:2"
    assert player.evaluator is evaluators["pips"]
    assert parse_player("pips", evaluators).limit == Search(plies=0)
    with pytest.raises(ValueError, match="expected ENGINE"):
        parse_player("pips:two", evaluators)
    with pytest.raises(ValueError, match="unknown backgammon engine"):
        parse_player("xg:2")


def test_a_player_of_a_weights_file(tmp_path: Path) -> None:
    """``FILE.npz:PLIES`` plays our nets from a weights file (a training checkpoint, say)."""
    from taldau.games.backgammon.engine.own import OwnEvaluator
    from taldau.games.backgammon.engine.weights import load_nets, load_pruning, save_nets

    nets, meta = load_nets()
    path = tmp_path / "checkpoint.npz"
    save_nets(path, nets, meta, load_pruning())
    player = parse_player(f"{path}:1")
    assert player.limit == Search(plies=1)
    assert isinstance(player.evaluator, OwnEvaluator)
    assert player.evaluator.version == OwnEvaluator.load().version
    with pytest.raises(ValueError, match="cannot be loaded"):
        parse_player(f"{tmp_path / 'missing.npz'}:0")


@pytest.mark.skipif(not gnubg_available(), reason="needs gnubg-nn (pip install 'taldau[gnubg]')")
def test_gnubg_players_share_one_evaluator() -> None:
    evaluators: dict = {}
    a, b = parse_player("gnubg:0", evaluators), parse_player("gnubg:1", evaluators)
    assert a.evaluator is b.evaluator and b.limit.plies == 1


# --- luck-adjusted results


def test_cubeless_luck_averages_to_zero_over_the_rolls() -> None:
    """The luck of the rolls of a position averages to zero (weighted by the 36 throws); that of the
    opening roll over the 15 non-doubles moved by either player, whatever the judge."""
    values = cubeless_roll_values(PipEvaluator())
    position = Position.start().play_moves([(24, 18), (13, 11)]).swapped()
    lucks = np.array([roll_luck(values, position, roll, opening=False) for roll in ROLLS])
    assert float(lucks @ ROLL_COUNTS) / 36.0 == pytest.approx(0.0, abs=1e-12)
    assert lucks.max() - lucks.min() > 0.1  # 6-6 moves 24 pips, 2-1 three: not all alike
    # by pips alone, a bigger roll is luckier: 6-6 the luckiest, 2-1 the unluckiest
    assert lucks.argmax() == ROLLS.index((6, 6)) and lucks.argmin() == ROLLS.index((2, 1))
    # the opening roll, on a board where the two sides differ: the mover's luck when he moves with the roll,
    # and minus the other's when the other does (his luck is the mover's loss), average to zero
    first = [roll_luck(values, position, roll, opening=True) for roll in OPENING_ROLLS]
    second = [roll_luck(values, position.swapped(), roll, opening=True) for roll in OPENING_ROLLS]
    assert sum(first) - sum(second) == pytest.approx(0.0, abs=1e-12)
    assert sum(first) != pytest.approx(0.0)  # each side's own luck does not average out alone


def test_a_judged_pair_of_one_player_is_adjusted_to_zero() -> None:
    """The same deterministic player on both sides plays the same game twice per pair, A once in each
    seat: A's luck in one game is B's in the other, so the adjusted points of a pair add up to 0 too."""
    result = run_match(
        PIPS, BackgammonPlayer(PIPS.evaluator, Search(), "pips again"), 6, seed=11, judge=PipEvaluator()
    )
    assert result.judged and result.judge == "pips:0"
    for pair in range(3):
        first, second = result.games[2 * pair : 2 * pair + 2]
        assert first.a_luck == pytest.approx(-second.a_luck) and first.a_luck != 0.0
        assert first.adjusted_points + second.adjusted_points == pytest.approx(0.0)
    assert result.adjusted_points_per_game == pytest.approx(0.0) and result.adjusted_margin is None


def test_adjusted_result_arithmetic() -> None:
    games = (
        BackgammonGameResult(0, 0, True, 2, 10, ((3, 1),), a_luck=0.5),
        BackgammonGameResult(0, 1, False, 1, 10, ((3, 1),), a_luck=-0.25),
        BackgammonGameResult(1, 0, True, 1, 10, ((3, 1),), a_luck=1.0),
        BackgammonGameResult(1, 1, True, 1, 10, ((3, 1),), a_luck=0.0),
    )
    result = BackgammonMatchResult("a", "b", games, "own:0")
    # adjusted: 1.5, -0.75, 0.0, 1.0: pair means 0.375 and 0.5
    assert result.adjusted_points_per_game == pytest.approx(1.75 / 4)
    assert result.pair_means(adjusted=True) == [0.375, 0.5]
    assert result.adjusted_margin is None  # 2 pairs
    payload = result.to_json()
    assert payload["judge"] == "own:0" and payload["adjusted_points_per_game"] == pytest.approx(0.4375)
    assert "luck-adjusted by own:0: +0.438" in str(result)
    unjudged = BackgammonMatchResult("a", "b", (game(0, 0, True, 1), game(0, 1, True, 1)))
    assert unjudged.adjusted_points_per_game is None and unjudged.adjusted_margin is None
    assert unjudged.to_json()["adjusted_points_per_game"] is None


def test_processes_play_the_same_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pairs handed out to two processes in batches give the games one process plays, in order."""
    monkeypatch.setattr(match_module, "PAIRS_PER_TASK", 2)
    alone = run_match(PIPS, BACKWARD, 10, seed=5, judge=PipEvaluator())
    shared = run_match(PIPS, BACKWARD, 10, seed=5, judge=PipEvaluator(), jobs=2)
    assert shared == alone and [game.pair for game in shared.games] == [p for p in range(5) for _ in (0, 1)]
