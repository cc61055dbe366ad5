"""GNU Backgammon's 0-ply match analyses (tests/data/backgammon/gnubg/analysis/, made by
analysis_fixtures.py with Debian's gnubg 1.07) line up with taldau's own replay of the same match files:
the same games, the same decisions in the same order (dice and plays, doubles, takes, passes, beavers),
gnubg's Position ID equal to taldau's at every decision and its Match ID saying the same score, cube and
dice as taldau's match state. So the analysis tests can index gnubg's decisions by taldau's steps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from taldau.games.backgammon.records.record import ActionKind
from taldau.games.backgammon.records.replay import Game, Step, read_games
from taldau.games.backgammon.rules.ids import MatchId

FOLDER = Path(__file__).resolve().parent / "data" / "backgammon" / "gnubg" / "analysis"
ANALYSES = sorted(FOLDER.glob("*.json"))
ANSWERS = {
    ActionKind.DOUBLE: "double",
    ActionKind.TAKE: "take",
    ActionKind.DROP: "pass",
    ActionKind.BEAVER: "beaver",
}


def match_file(analysis: dict) -> Path:
    return FOLDER / analysis["file"]


def replayed(analysis: dict) -> list[Game]:
    path = match_file(analysis)
    return list(read_games(path.read_bytes(), path.name))


def gnubg_sequence(game: dict) -> list[dict]:
    """gnubg's decisions that are actions of the record: rolls, doubles and answers (not a roll's implicit
    no-double, nor the doubler's acceptance of a beaver, which a Jellyfish record does not write)."""
    sequence = []
    for decision in game["decisions"]:
        if decision["kind"] == "cube" and decision["action"] == "no double":
            continue
        if sequence and sequence[-1]["action"] == "beaver" and decision["action"] == "take":
            continue
        sequence.append(decision)
    return sequence


def taldau_sequence(game: Game) -> list[Step]:
    return [step for step in game.steps if step.action.kind is ActionKind.ROLL or step.action.kind in ANSWERS]


def test_every_analysed_match_has_its_file_and_the_expected_variety() -> None:
    analyses = [json.loads(path.read_text()) for path in ANALYSES]
    assert len(analyses) == 10
    assert all(match_file(analysis).is_file() for analysis in analyses)
    decisions = [d for analysis in analyses for game in analysis["games"] for d in game["decisions"]]
    actions = {(d["kind"], d["action"]) for d in decisions if d["kind"] != "move"}
    assert actions == {
        ("cube", "no double"),
        ("cube", "double"),
        ("take", "take"),
        ("take", "pass"),
        ("take", "beaver"),
    }
    games = [game for analysis in analyses for game in analysis["games"]]
    assert any(game["crawford"] for game in games) and any(game["post_crawford"] for game in games)
    assert {analysis["length"] for analysis in analyses} == {0, 3, 5, 7}
    marks = {d["mark"] for d in decisions}
    assert marks == {None, "doubtful", "bad", "very bad"}
    assert {d["luck_mark"] for d in decisions if d["kind"] == "move"} >= {"lucky", "unlucky", "very lucky"}


@pytest.mark.parametrize("path", ANALYSES, ids=[path.stem for path in ANALYSES])
def test_gnubgs_decisions_are_taldaus_replay(path: Path) -> None:
    analysis = json.loads(path.read_text())
    games = replayed(analysis)
    assert all(game.valid for game in games), [game.errors for game in games]
    assert len(games) == len(analysis["games"])
    for game, expected in zip(games, analysis["games"], strict=True):
        assert game.start.score == tuple(expected["score"])
        assert game.start.crawford_game == expected["crawford"]
        assert game.start.post_crawford == expected["post_crawford"]
        assert game.winner == expected["winner"]
        assert game.points == expected["points"]
        steps, decisions = taldau_sequence(game), gnubg_sequence(expected)
        assert len(steps) == len(decisions)
        for step, decision in zip(steps, decisions, strict=True):
            where = f"game {expected['index'] + 1} move {decision['move_number']}"
            assert step.action.player == decision["player"], where
            assert step.position.position_id() == decision["position_id"], where
            match = MatchId.decode(decision["match_id"])
            state = step.state
            assert match.score == state.score, where
            assert match.length == state.rules.length, where
            assert match.crawford == state.crawford_game, where
            assert match.cube == state.cube, where
            assert match.cube_owner == (-1 if state.cube_owner is None else state.cube_owner), where
            if step.action.kind is ActionKind.ROLL:
                assert decision["kind"] == "move", where
                assert step.action.dice is not None and sorted(step.action.dice) == sorted(
                    decision["dice"]
                ), where
                assert sorted(match.dice) == sorted(decision["dice"]) and match.turn == decision["player"], (
                    where
                )
                assert step.play is not None
                moves = tuple(tuple(move) for move in decision["moves"])
                assert step.position.play_moves(moves) == step.play.result, where
            else:
                assert ANSWERS[step.action.kind] == decision["action"], where
                assert match.dice == (0, 0), where
                if decision["kind"] == "take":
                    assert match.doubled and match.turn == decision["player"], where


@pytest.mark.parametrize("path", ANALYSES, ids=[path.stem for path in ANALYSES])
def test_gnubg_judges_the_cube_only_where_taldau_lets_the_player_double(path: Path) -> None:
    analysis = json.loads(path.read_text())
    for game, expected in zip(replayed(analysis), analysis["games"], strict=True):
        rolls = [step for step in game.steps if step.action.kind is ActionKind.ROLL]
        moves = [d for d in expected["decisions"] if d["kind"] == "move"]
        no_doubles = {d["move_number"] for d in expected["decisions"] if d["action"] == "no double"}
        for step, move in zip(rolls, moves, strict=True):
            if move["move_number"] in no_doubles:
                assert step.state.can_double(step.action.player), f"move {move['move_number']}"


@pytest.mark.parametrize("path", ANALYSES, ids=[path.stem for path in ANALYSES])
def test_losses_marks_and_statistics_hang_together(path: Path) -> None:
    analysis = json.loads(path.read_text())
    for game in analysis["games"]:
        for decision in game["decisions"]:
            if decision["kind"] == "move" and decision["played"]:
                loss = decision["best"]["equity"] - decision["played"]["equity"]
                assert decision["loss"] == pytest.approx(loss, abs=2e-7)
            elif decision["kind"] != "move" and decision["equities"]:
                equities = decision["equities"]
                chosen = {"no double": "no_double", "take": "double_take", "beaver": "double_take"}
                chosen |= {"pass": "double_pass"}
                if decision["action"] == "double":
                    key = min(("double_take", "double_pass"), key=lambda name: equities[name])
                else:
                    key = chosen[decision["action"]]
                assert decision["loss"] == pytest.approx(equities["optimal"] - equities[key], abs=2e-7)
            thresholds = [(0.12, "very bad"), (0.06, "bad"), (0.03, "doubtful")]
            expected = next((mark for level, mark in thresholds if decision["loss"] > level), None)
            if decision["kind"] != "move" or not decision["forced"]:
                assert decision["mark"] == expected
        for player, stats in enumerate(game["statistics"]):
            moves = [d for d in game["decisions"] if d["player"] == player and d["kind"] == "move"]
            assert stats["checker"]["error"] == pytest.approx(sum(d["loss"] for d in moves), abs=1e-5)
            assert stats["checker"]["unforced"] == sum(not d["forced"] for d in moves)
