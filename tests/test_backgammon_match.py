"""Cubeless money matches with duplicate dice (``games/backgammon/match.py``), played by the pip-count test
evaluator of test_backgammon_engine.py (fast and deterministic).

Self-play: with one deterministic evaluator on both sides, the two games of a duplicate pair are the same
game move for move (seat 0 gets the same rolls and, seeing the same boards, picks the same plays), with A
in seat 0 once and in seat 1 once: A's points over the pair are exactly 0."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from taldau.games.backgammon import match as match_module
from taldau.games.backgammon.engine import Limit
from taldau.games.backgammon.eval.gnubg import gnubg_available
from taldau.games.backgammon.match import (
    GameResult,
    MatchResult,
    Player,
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


PIPS = Player(PipEvaluator(), Limit(), "pips:0")
BACKWARD = Player(BackwardEvaluator(), Limit(), "backward:0")


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
    result = run_match(PIPS, Player(PIPS.evaluator, Limit(), "pips again"), 10, seed=11)
    for pair in range(5):
        first, second = result.games[2 * pair : 2 * pair + 2]
        assert first.rolls == second.rolls and first.plies == second.plies
        assert first.a_points + second.a_points == 0
    assert result.points == 0 and result.margin == 0.0


def test_a_game_beyond_the_cap_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(match_module, "MAX_PLIES", 3)
    with pytest.raises(RuntimeError, match="did not end within 3 plies"):
        play_game(PIPS, BACKWARD, 0, dice_sequence(0, 0))


def test_games_come_in_pairs() -> None:
    with pytest.raises(ValueError, match="even number"):
        run_match(PIPS, BACKWARD, 3)


def game(pair: int, seat: int, a_won: bool, value: int) -> GameResult:
    return GameResult(pair=pair, a_seat=seat, a_won=a_won, value=value, plies=10, rolls=((3, 1),))


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
    result = MatchResult("a", "b", games)
    assert result.played == 6 and result.points == 1
    assert result.points_per_game == pytest.approx(1 / 6)
    assert result.pair_means() == [0.0, 1.5, -1.0]
    # the pair means' sample deviation is sqrt(57) / 6, over sqrt(3) pairs: 1.96 * sqrt(19) / 6
    assert result.margin == pytest.approx(1.96 * math.sqrt(19) / 6)
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
    assert MatchResult("a", "b", games[:2]).margin is None


def test_parse_player() -> None:
    evaluators = {"pips": PipEvaluator()}
    player = parse_player("pips:2", evaluators)
    assert player.limit == Limit(plies=2) and player.label == "pips:2"
    assert player.evaluator is evaluators["pips"]
    assert parse_player("pips", evaluators).limit == Limit(plies=0)
    with pytest.raises(ValueError, match="expected ENGINE"):
        parse_player("pips:two", evaluators)
    with pytest.raises(ValueError, match="unknown backgammon engine"):
        parse_player("xg:2")


def test_a_player_of_a_weights_file(tmp_path: Path) -> None:
    """``FILE.npz:PLIES`` plays our nets from a weights file (a training checkpoint, say)."""
    from taldau.games.backgammon.eval.own import OwnEvaluator
    from taldau.games.backgammon.eval.weights import load_nets, load_pruning, save_nets

    nets, meta = load_nets()
    path = tmp_path / "checkpoint.npz"
    save_nets(path, nets, meta, load_pruning())
    player = parse_player(f"{path}:1")
    assert player.limit == Limit(plies=1)
    assert isinstance(player.evaluator, OwnEvaluator)
    assert player.evaluator.version == OwnEvaluator.load().version
    with pytest.raises(ValueError, match="cannot be loaded"):
        parse_player(f"{tmp_path / 'missing.npz'}:0")


@pytest.mark.skipif(not gnubg_available(), reason="needs gnubg-nn (pip install 'taldau[gnubg]')")
def test_gnubg_players_share_one_evaluator() -> None:
    evaluators: dict = {}
    a, b = parse_player("gnubg:0", evaluators), parse_player("gnubg:1", evaluators)
    assert a.evaluator is b.evaluator and b.limit.plies == 1
