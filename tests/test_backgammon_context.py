"""``taldau plays`` and ``taldau eval`` in the match context an XGID or GNUbgID carries: the play and the
cube decision they give are those ``taldau analyze`` gives in the same position (one ranking,
``review.rank_plays``, and one cube decision, ``review.review_cube``), and the score changes the best play.

The positions come from a real match: game 1 of the bundled Backgammon Studio match
(examples/backgammon/studio-llabba-iradch49.txt, a 7-point match) played from the score 5-3 in place of
0-0, so that after Iradch49's double to 2 and Llabba's take the match stands at 2-away 4-away with the
cube at 2 (owned by Llabba, 2-away: his cube is dead). Every number comes from bgsage (skipped where it
cannot run), at gnubg's 2 plies, the default analysis."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import EXAMPLES, needs_sage
from taldau.cli.main import main
from taldau.games.backgammon.answers import rank_roll
from taldau.games.backgammon.records.record import ActionKind
from taldau.games.backgammon.records.replay import Game, read_games
from taldau.games.backgammon.review.cubes import CubeReview
from taldau.games.backgammon.review.levels import ReviewSettings
from taldau.games.backgammon.review.match import review_game
from taldau.games.backgammon.review.plays import review_play
from taldau.games.backgammon.rules.ids import MatchId, XgId, board_from_position_id

SOURCE = EXAMPLES / "backgammon" / "studio-llabba-iradch49.txt"
SCORE_LINE = " Llabba : 0                             Iradch49 : 0"
FROM_5_3 = " Llabba : 5                             Iradch49 : 3"
PLIES = 2
# the steps of game 1 at 2-away 4-away with the cube at 2 where the best play in that context is not the
# best in money play with a centred cube: Llabba's 11 (move 11) and 42 (move 12), found by ranking every
# such step both ways
SCORE_CHANGES = {20: ("13/12 8/5", "8/5 3/2"), 22: ("12/6", "12/8 3/1")}
CONTEXT = "7-point match, on roll 2-away, opponent 4-away, cube 2 owned by the side on roll, not Crawford"


def match_text() -> str:
    """Game 1 of the bundled match, from the score 5-3 (Llabba 2-away, Iradch49 4-away)."""
    lines = SOURCE.read_text().splitlines()
    game_1 = lines[: lines.index(" Game 2") if " Game 2" in lines else len(lines)]
    assert SCORE_LINE in game_1
    return "\n".join(FROM_5_3 if line == SCORE_LINE else line for line in game_1) + "\n"


@pytest.fixture(scope="module")
def game() -> Game:
    (replayed,) = read_games(match_text().encode(), "from-5-3.txt")
    assert replayed.valid, replayed.errors
    return replayed


@pytest.fixture(scope="module")
def settings() -> ReviewSettings:
    """``analyze --depth 2``'s review (the standard level with bgsage), without the luck of the rolls."""
    return replace(ReviewSettings.of_engine("sage", PLIES), luck=False)


@pytest.fixture(scope="module")
def sage() -> Any:
    from taldau.games.backgammon.engine.sage import SageEvaluator

    return SageEvaluator()


def xgid(position_id: str, match_id: str) -> str:
    """The XGID of a reviewed decision's Position ID and Match ID (the side on roll in row 1)."""
    return XgId.from_match_id(board_from_position_id(position_id), MatchId.decode(match_id)).format()


def plays_json(*args: str) -> dict[str, Any]:
    result = CliRunner().invoke(main, ["plays", *args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def in_context_steps(game: Game) -> list[int]:
    """The steps of rolls with a choice at 2-away 4-away with the cube at 2."""
    steps = []
    for number, step in enumerate(game.steps):
        state, dice = step.state, step.action.dice
        if step.play is None or dice is None or state.cube != 2 or len(step.position.plays(dice)) < 2:
            continue
        mine = 7 - state.score[step.position.turn]
        if {mine, 7 - state.score[1 - step.position.turn]} == {2, 4}:
            steps.append(number)
    return steps


@needs_sage
def test_plays_gives_the_play_the_review_gives(game: Game, settings: ReviewSettings, sage: Any) -> None:
    steps = in_context_steps(game)
    assert len(steps) >= 8 and set(SCORE_CHANGES) <= set(steps)
    for number in steps:
        step = game.steps[number]
        reviewed = review_play(sage, step, settings)
        position = xgid(reviewed.position_id, reviewed.match_id)
        dice = f"{reviewed.dice[0]}{reviewed.dice[1]}"
        # the library function plays calls, to 1e-9
        ranked = rank_roll(sage, position, dice, PLIES).best_first()
        assert ranked[0][0].play.text == reviewed.best
        assert ranked[0][1] == pytest.approx(reviewed.best_equity, abs=1e-9)
        # the play made, where the move filter kept it (the review evaluates it as deep in any case)
        deep = {play.play.text: value for play, value in ranked if play.plies == PLIES}
        if reviewed.played in deep:
            assert deep[reviewed.played] == pytest.approx(reviewed.played_equity, abs=1e-9)
        # the command, as printed (six decimals)
        payload = plays_json(position, dice, "--depth", str(PLIES))
        assert payload["plays"][0]["move"] == reviewed.best
        assert payload["plays"][0]["equity"] == pytest.approx(reviewed.best_equity, abs=5e-7)
        played = next(play for play in payload["plays"] if play["move"] == reviewed.played)
        if played["plies"] == PLIES:
            assert played["equity"] == pytest.approx(reviewed.played_equity, abs=5e-7)
            assert played["difference"] == pytest.approx(-reviewed.loss, abs=1e-6)
        context = payload["context"]
        assert (context["length"], context["cube"], sorted(context["away"])) == (7, 2, [2, 4])
        if step.position.turn == 0:
            assert context["text"] == CONTEXT and context["owner"] == "on roll"


@needs_sage
def test_the_score_changes_the_best_play(game: Game, settings: ReviewSettings, sage: Any) -> None:
    for number, (in_match, in_money) in SCORE_CHANGES.items():
        reviewed = review_play(sage, game.steps[number], settings)
        assert reviewed.best == in_match
        dice = f"{reviewed.dice[0]}{reviewed.dice[1]}"
        position = xgid(reviewed.position_id, reviewed.match_id)
        assert plays_json(position, dice, "--depth", str(PLIES))["plays"][0]["move"] == in_match
        # the same checkers as a bare Position ID: money play, cube centred, Jacoby
        money = plays_json(reviewed.position_id, dice, "--depth", str(PLIES))
        assert money["plays"][0]["move"] == in_money
        assert money["context"]["text"] == "money, cube 1 centred, Jacoby"
        # the same as a GNUbgID of money play
        session = MatchId.decode(reviewed.match_id)
        money_id = replace(session, length=0, score=(0, 0), cube=1, cube_owner=-1, jacoby=True).encode()
        gnubg_id = f"{reviewed.position_id}:{money_id}"
        assert plays_json(gnubg_id, dice, "--depth", str(PLIES))["plays"][0]["move"] == in_money
    result = CliRunner().invoke(main, ["plays", position, dice, "--depth", str(PLIES)])
    assert result.exit_code == 0 and result.stdout.splitlines()[0] == f"context: {CONTEXT}"
    assert result.stdout.splitlines()[1].split()[:2] == ["1.", "12/6"]


@needs_sage
def test_eval_gives_the_cube_decision_the_review_gives(
    game: Game, settings: ReviewSettings, sage: Any
) -> None:
    """The cube decisions of the game before Iradch49's double, at 2-away 4-away with the cube centred."""
    doubled = next(n for n, step in enumerate(game.steps) if step.action.kind is ActionKind.DOUBLE)
    reviewed = review_game(replace(game, steps=game.steps[:doubled]), sage, settings)
    cubes = [decision for decision in reviewed.decisions if isinstance(decision, CubeReview)]
    assert len(cubes) >= 4
    for cube in cubes:
        for position in (f"{cube.position_id}:{cube.match_id}", xgid(cube.position_id, cube.match_id)):
            result = CliRunner().invoke(main, ["eval", position, "--depth", str(PLIES), "--json"])
            assert result.exit_code == 0, result.output
            payload = json.loads(result.stdout)
            assert payload["cube"]["available"]
            assert payload["cube"]["no_double"] == pytest.approx(cube.no_double, abs=5e-7)
            assert payload["cube"]["double_take"] == pytest.approx(cube.double_take, abs=5e-7)
            assert payload["cube"]["double_pass"] == pytest.approx(cube.double_pass, abs=5e-7)
            assert payload["cube"]["cubeful_equity"] == pytest.approx(cube.optimal, abs=5e-7)
            assert payload["cube"]["action"] == cube.verdict
            assert payload["probabilities"]["win"] == pytest.approx(cube.probabilities[0], abs=5e-7)
            assert payload["context"]["cube"] == 1 and payload["context"]["owner"] == "centred"
    text = CliRunner().invoke(main, ["eval", position, "--depth", str(PLIES)]).stdout.splitlines()
    assert (
        text[3].startswith("context: 7-point match, on roll ") and "cube 1 centred, not Crawford" in text[3]
    )
    assert text[4].startswith("cubeful equity ") and "No double " in text[4]


@needs_sage
def test_eval_of_a_dead_cube_says_no_double(game: Game) -> None:
    step = next(game.steps[n] for n in in_context_steps(game) if game.steps[n].position.turn == 0)
    position = (
        f"{step.position.position_id()}:{MatchId(cube=2, cube_owner=0, length=7, score=(5, 3)).encode()}"
    )
    payload = json.loads(CliRunner().invoke(main, ["eval", position, "--json"]).stdout)
    assert payload["context"]["text"] == CONTEXT and not payload["cube"]["available"]
    assert payload["cube"]["cubeful_equity"] == payload["cube"]["no_double"]


def test_a_bare_position_id_is_money_with_a_centred_cube() -> None:
    payload = plays_json("4HPwATDgc/ABMA", "31", "--depth", "0", "--engine", "own")
    assert payload["context"] == {
        "money": True,
        "length": 0,
        "score": [0, 0],
        "away": None,
        "cube": 1,
        "owner": "centred",
        "crawford": False,
        "post_crawford": False,
        "jacoby": True,
        "beavers": False,
        "text": "money, cube 1 centred, Jacoby",
    }
    crawford = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:6:3:1:7:10"
    payload = plays_json(crawford, "31", "--depth", "0", "--engine", "own")
    assert payload["context"]["text"] == (
        "7-point match, on roll 1-away, opponent 4-away, cube 1 centred, Crawford game"
    )


@needs_sage
def test_plays_rollout_in_context(game: Game) -> None:
    step = game.steps[22]
    match = MatchId(cube=2, cube_owner=0, length=7, score=(5, 3), dice=(4, 2)).encode()
    position = f"{step.position.position_id()}:{match}"
    command = ["plays", position, "42", "--engine", "sage", "--rollout", "--trials", "36", "--json"]
    result = CliRunner().invoke(main, command)
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["context"]["text"] == CONTEXT
    plays = payload["plays"]
    assert len(plays) >= 2 and plays[0]["difference"] == 0.0
    assert [play["equity"] for play in plays] == sorted((play["equity"] for play in plays), reverse=True)
    assert all(play["equity_se"] > 0 and play["standard_errors"]["win"] > 0 for play in plays)


@needs_sage
def test_analyze_and_plays_agree(tmp_path: Path, game: Game) -> None:
    """``taldau analyze --depth 2 --jobs 1`` of the match, its moves table read back: ``plays`` with the
    XGID of each checker play at 2-away 4-away with the cube at 2 gives the play analyze found best."""
    from taldau.analysis.folder import open_folder

    record = tmp_path / "from-5-3.txt"
    record.write_text(match_text())
    out = tmp_path / "analysis"
    result = CliRunner().invoke(
        main, ["analyze", str(record), "--out", str(out), "--depth", "2", "--jobs", "1"]
    )
    assert result.exit_code == 0, result.output
    moves = open_folder(out).table("moves").to_pylist()
    wanted = {
        (game.steps[n].position.position_id(), "".join(map(str, game.steps[n].action.dice)))
        for n in in_context_steps(game)
    }
    rows = [row for row in moves if row["kind"] == "move" and (row["position"], row["dice"]) in wanted]
    assert len(rows) == len(wanted)
    for row in rows:
        payload = plays_json(xgid(row["position"], row["match_id"]), row["dice"], "--depth", "2")
        assert payload["plays"][0]["move"] == row["best"]
        sign = 1 if row["side"] == 0 else -1  # the table keeps player 0's point of view
        assert payload["plays"][0]["equity"] == pytest.approx(sign * row["score_best"], abs=5e-7)
