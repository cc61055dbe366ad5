"""Our NumPy port of the AlphaZero of nitromir/togyzkumalak-engine (``measure/togyz/alphazero``) against what
their own code (torch) said of the same positions (``tests/data/togyz/alphazero/theirs.json``, made by
``theirs.py`` there): the board they show the net, the net's policy and value, the search's visit counts
on a fresh tree and through a game on one tree; then a short real match of our engine against it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from taldau.base.kind import Limit
from taldau.cli.main import main
from taldau.games.togyz import Position, Side
from taldau.games.togyz.engine import EngineSettings
from taldau.measure.togyz.alphazero import AlphaZeroNet, AlphaZeroSpec, Mcts, canonical_board
from taldau.measure.togyz.match import EngineSpec, openings, run_players

THEIRS = Path(__file__).resolve().parent / "data" / "togyz" / "alphazero" / "theirs.json"


@pytest.fixture(scope="module")
def theirs() -> dict:
    return json.loads(THEIRS.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def net() -> AlphaZeroNet:
    return AlphaZeroNet()


def test_the_board_and_the_net_agree_with_theirs(theirs: dict, net: AlphaZeroNet) -> None:
    for entry in theirs["positions"]:
        position = Position.from_fen(entry["fen"])
        assert canonical_board(position).tolist() == entry["board"], entry["fen"]
        prediction = net.predict(position)
        assert np.allclose(prediction.policy, entry["policy"], rtol=0, atol=1e-5), entry["fen"]
        assert prediction.value == pytest.approx(entry["value"], abs=1e-5), entry["fen"]


@pytest.mark.parametrize("simulations", [100, 400])
def test_the_search_visits_as_theirs_on_a_fresh_tree(
    theirs: dict, net: AlphaZeroNet, simulations: int
) -> None:
    for entry in theirs["positions"]:
        counts = Mcts(net).visit_counts(Position.from_fen(entry["fen"]), simulations)
        assert counts == entry[f"visits_{simulations}"], entry["fen"]
        assert sum(counts) == simulations - 1  # the first simulation only asks the net about the root


def test_the_search_keeps_its_tree_through_a_game_as_theirs(theirs: dict, net: AlphaZeroNet) -> None:
    sequence = theirs["sequence"]
    mcts = Mcts(net)
    expected = {ply["ply"]: ply["visits"] for ply in sequence["net_plies"]}
    position = Position.start()
    for ply, pit in enumerate(sequence["moves"]):
        if ply in expected:
            counts = mcts.visit_counts(position, sequence["simulations"])
            assert counts == expected[ply], ply
            best = np.flatnonzero(np.array(counts) == max(counts))
            assert pit - 1 in best  # their move is one of the most visited (ties: theirs chose at random)
        position = position.play(pit)
    assert len(expected) == (len(sequence["moves"]) + 1) // 2


def test_a_short_match_against_the_net_is_played_to_a_legal_end() -> None:
    engine = EngineSpec(EngineSettings(), Limit(depth=2))
    report = run_players(engine, AlphaZeroSpec(simulations=10), openings(2), jobs=1)
    result, games = report.result, report.games
    assert result.games == len(games) == 4
    assert [game.a_is_white for game in games] == [True, False, True, False]
    for game in games:
        position = Position.start()
        for pit in game.moves:
            assert position.is_legal(pit)
            position = position.play(pit)
        assert position.fen() == game.final_fen
        assert len(game.moves) == game.plies
        assert game.moves[: len(game.opening)] == game.opening
        outcome = position.outcome()
        if outcome is not None:
            assert game.termination == outcome.termination.value
            assert game.kazans == outcome.kazans
            a_side = Side.WHITE if game.a_is_white else Side.BLACK
            expected = 0.5 if outcome.winner is None else float(outcome.winner is a_side)
            assert game.score_a == expected
        assert game.rows == (sum(position.pits(Side.WHITE)), sum(position.pits(Side.BLACK)))
        assert game.a_moves + game.b_moves == game.plies - len(game.opening)
        assert game.a_seconds >= 0 and game.b_seconds >= 0
    assert result.wins + result.draws + result.losses == 4
    assert result.wins == sum(game.score_a == 1.0 for game in games)
    assert len(report.losses) == result.losses
    assert report.a_seconds_per_move >= 0 and report.b_seconds_per_move >= 0
    lines = report.lines()
    assert lines[0].startswith("4 games")
    assert sum(line.startswith("  loss") for line in lines) == result.losses
    assert json.loads(json.dumps(report.to_json()))["games"] == 4


def test_taldau_match_plays_the_net() -> None:
    args = ["match", "--opponent", "alphazero", "--simulations", "5", "--depth", "1", "--openings", "1"]
    result = CliRunner().invoke(main, [*args, "--jobs", "1", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["b"] == "alphazero (5 simulations)" and report["games"] == 2
    assert len(report["games_played"]) == 2 and "ending" in report["games_played"][0]
    refused = CliRunner().invoke(main, [*args, "--b", "plain"])
    assert refused.exit_code == 2 and "--b" in refused.output
