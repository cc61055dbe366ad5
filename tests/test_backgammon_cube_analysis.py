"""The match equity table and the cube analysis (games/backgammon/rules/met.py, cubeful.py) against published
table entries, theory computed by hand and GNU Backgammon's own 0-ply cube analysis."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import numpy as np
import pytest
from helpers import backgammon_board, gnubg_case_state
from taldau.games.backgammon.engine.cubeful import (
    CubeAction,
    CubeMistake,
    Response,
    cube_decision,
    cube_efficiency,
    cubeful_equity,
    cubeful_mwc,
    cubeless_emg,
    cubeless_mwc,
    double_error,
    emg_to_mwc,
    mwc_to_emg,
    response_error,
)
from taldau.games.backgammon.engine.probabilities import flipped
from taldau.games.backgammon.rules.cube import MatchState, Rules
from taldau.games.backgammon.rules.ids import board_from_position_id
from taldau.games.backgammon.rules.met import kazaross_xg2, read_met

SHARED_MET = (
    Path(__file__).resolve().parents[1].parent / "shared" / "data" / "backgammon" / "Kazaross-XG2.xml"
)
GNUBG_CUBE = Path(__file__).resolve().parent / "data" / "backgammon" / "gnubg" / "cube.json"
NO_GAMMONS = (0.0, 0.0, 0.0, 0.0)
MONEY = MatchState(Rules(jacoby=False))


def match(length: int, score: tuple[int, int], **fields: object) -> MatchState:
    return MatchState(Rules(length=length), score=score, **fields)  # type: ignore[arg-type]


# --- the match equity table


def test_met_entries_are_the_published_kazaross_xg2_ones() -> None:
    met = kazaross_xg2()
    assert met.length == 25
    assert met.mwc(1, 1) == 0.5
    assert met.mwc(2, 2) == 0.5
    assert met.mwc(1, 2) == 0.67736  # Crawford game, 1-away against 2-away (the file's first row)
    assert met.mwc(2, 1) == pytest.approx(0.32264)
    assert met.mwc(2, 3) == 0.59947
    assert met.mwc(3, 2) == 0.40053
    assert met.mwc(1, 25) == 0.99905
    assert met.mwc(2, 1, post_crawford=True) == 0.48803  # the trailer 2-away after the Crawford game
    assert met.mwc(1, 2, post_crawford=True) == pytest.approx(1 - 0.48803)
    # post-Crawford 3-away against 1-away: the trailer doubles at once, then needs 2 points in one game as
    # in the Crawford game 2-away against 1-away
    assert met.mwc(3, 1, post_crawford=True) == pytest.approx(met.mwc(2, 1))
    assert met.mwc(0, 4) == 1.0 and met.mwc(4, 0) == 0.0


def test_met_is_symmetric_and_grows_with_the_opponents_needs() -> None:
    met = kazaross_xg2()
    for a in range(1, 26):
        for b in range(1, 26):
            assert met.mwc(a, b) + met.mwc(b, a) == pytest.approx(1.0, abs=1e-9)
            if b < 25:
                assert met.mwc(a, b + 1) > met.mwc(a, b)


def test_met_refuses_scores_past_its_length() -> None:
    with pytest.raises(ValueError, match="25-away"):
        kazaross_xg2().mwc(26, 3)


def test_the_met_ships_inside_the_package() -> None:
    data = resources.files("taldau.games.backgammon.rules") / "data" / "kazaross-xg2.xml"
    assert "Neil Kazaross" in data.read_text()  # its copyright and licence note travel with it


@pytest.mark.skipif(not SHARED_MET.exists(), reason="../shared/data/backgammon/Kazaross-XG2.xml is absent")
def test_the_shipped_met_is_the_shared_file() -> None:
    assert read_met(SHARED_MET) == kazaross_xg2()


# --- money play


def test_dead_cube_money_take_point_is_25_percent() -> None:
    for win, action in ((0.749, CubeAction.DOUBLE_TAKE), (0.751, CubeAction.DOUBLE_PASS)):
        decision = cube_decision((win, *NO_GAMMONS), MONEY, 0, efficiency=0.0)
        assert decision.action is action
        assert decision.double_take == pytest.approx(2 * (2 * win - 1))


def test_janowski_take_point_at_contact_efficiency() -> None:
    # TP = (L - 1/2) / (W + L + x/2) with W = L = 1, x = 0.68: 0.5 / 2.34 = 0.213675
    take_point = 0.5 / (2 + 0.68 / 2)
    below = cube_decision((1 - take_point - 0.0005, *NO_GAMMONS), MONEY, 0)
    above = cube_decision((1 - take_point + 0.0005, *NO_GAMMONS), MONEY, 0)
    assert below.response is Response.TAKE and above.response is Response.PASS
    at = cube_decision((1 - take_point, *NO_GAMMONS), MONEY, 0)
    assert at.double_take == pytest.approx(1.0)
    # by hand at 70%: No double 0.32 * 0.4 + 0.68 * (-1 + 2 * 0.5 / 0.6), Double/take 2 * (0.32 * 0.4 +
    # 0.68 * (-1 + 2 * 0.5 / 0.8))
    seventy = cube_decision((0.7, *NO_GAMMONS), MONEY, 0)
    assert seventy.no_double == pytest.approx(0.128 + 0.68 * (2 / 3))
    assert seventy.double_take == pytest.approx(2 * (0.128 + 0.68 * 0.25))
    assert seventy.action is CubeAction.DOUBLE_TAKE


def test_certain_win_and_certain_loss() -> None:
    gammon = cube_decision((1.0, 1.0, 0.0, 0.0, 0.0), MONEY, 0)
    assert gammon.action is CubeAction.TOO_GOOD_PASS and gammon.no_double == 2.0
    for state in (match(7, (0, 0)), match(9, (2, 1), cube=2, cube_owner=1)):
        assert cube_decision((1.0, 1.0, 0.0, 0.0, 0.0), state, 1).action.name.startswith("TOO_GOOD")
        lost = cube_decision((0.0, 0.0, 0.0, 0.0, 0.0), state, 1)
        assert lost.action.name.startswith("NO_") and lost.response is Response.TAKE
    # when any loss already ends the match, doubling changes nothing: an optional redouble
    hopeless = cube_decision((0.0, 0.0, 0.0, 0.0, 0.0), match(7, (5, 3), cube=2, cube_owner=1), 1)
    assert hopeless.action is CubeAction.OPTIONAL_REDOUBLE_TAKE and hopeless.mwc == (0.0, 0.0, 0.5)


def test_jacoby_counts_gammons_single_while_the_cube_is_centred() -> None:
    probabilities = (0.6, 0.3, 0.05, 0.1, 0.01)
    jacoby = MatchState(Rules(jacoby=True))
    assert cubeful_equity(probabilities, jacoby, 0, efficiency=0.0) == pytest.approx(0.2)
    assert cubeful_equity(probabilities, MONEY, 0, efficiency=0.0) == pytest.approx(0.2 + 0.2 + 0.04)
    # once the cube is turned the gammons count again: Double/take is the same with or without Jacoby
    assert (
        cube_decision(probabilities, jacoby, 0).double_take
        == cube_decision(probabilities, MONEY, 0).double_take
    )
    assert (
        cube_decision(probabilities, jacoby, 0).no_double != cube_decision(probabilities, MONEY, 0).no_double
    )


def test_beaver_when_the_taker_is_the_favourite() -> None:
    decision = cube_decision((0.45, *NO_GAMMONS), MatchState(Rules(beavers=True)), 0)
    assert decision.action is CubeAction.NO_DOUBLE_BEAVER and decision.double_take < 0
    assert decision.double == pytest.approx(2 * decision.double_take)
    no_beavers = cube_decision((0.45, *NO_GAMMONS), MatchState(Rules(beavers=False)), 0)
    assert no_beavers.action is CubeAction.NO_DOUBLE_TAKE
    owned = cube_decision((0.45, *NO_GAMMONS), MatchState(Rules(beavers=True), cube=2, cube_owner=0), 0)
    assert owned.action is CubeAction.NO_REDOUBLE_BEAVER


def test_cube_errors() -> None:
    decision = cube_decision((0.7, *NO_GAMMONS), MONEY, 0)
    assert double_error(decision, doubled=True) == (None, 0.0)
    kind, loss = double_error(decision, doubled=False)
    assert kind is CubeMistake.MISSED_DOUBLE and loss == pytest.approx(
        decision.double_take - decision.no_double
    )
    assert response_error(decision, Response.TAKE) == (None, 0.0)
    kind, loss = response_error(decision, Response.PASS)
    assert kind is CubeMistake.WRONG_PASS and loss == pytest.approx(1.0 - decision.double_take)
    early = cube_decision((0.55, *NO_GAMMONS), MONEY, 0)
    kind, loss = double_error(early, doubled=True)
    # the taker beavers (he is the favourite after the take): the double costs twice Double/take
    assert early.response is Response.BEAVER
    assert kind is CubeMistake.WRONG_DOUBLE and loss == pytest.approx(early.no_double - 2 * early.double_take)
    late = cube_decision((0.9, *NO_GAMMONS), MONEY, 0)
    kind, loss = response_error(late, Response.TAKE)
    assert kind is CubeMistake.WRONG_TAKE and loss == pytest.approx(late.double_take - 1.0)


# --- both players' views


@pytest.mark.parametrize(
    "state",
    [
        MONEY,
        MatchState(Rules(jacoby=True)),
        MatchState(Rules(), cube=2, cube_owner=0),
        match(7, (0, 0)),
        match(7, (2, 5), cube=2, cube_owner=1),
        match(9, (6, 3), cube=2, cube_owner=0),
        match(7, (6, 3), post_crawford=True),
        match(5, (4, 1), crawford_game=True),
    ],
)
def test_both_players_views_agree(state: MatchState) -> None:
    rows = np.random.default_rng(11).dirichlet(np.ones(6), size=40)
    for row in rows:
        # win single, gammon, backgammon; lose single, gammon, backgammon
        p = np.array([row[:3].sum(), row[1:3].sum(), row[2], row[4:].sum(), row[5]])
        for roller in (0, 1):
            mine = cubeful_equity(p, state, roller)
            theirs = cubeful_equity(flipped(p[None])[0], state, 1 - roller)
            assert mine == pytest.approx(-theirs, abs=1e-9)
            assert cubeless_emg(p, state, roller) == pytest.approx(
                -cubeless_emg(flipped(p[None])[0], state, 1 - roller)
            )
            if not state.rules.money:
                assert cubeful_mwc(p, state, roller) + cubeful_mwc(
                    flipped(p[None])[0], state, 1 - roller
                ) == (pytest.approx(1.0))


# --- match play


def test_emg_is_normalised_on_the_current_cube() -> None:
    state = match(7, (2, 4), cube=2, cube_owner=0)
    met = kazaross_xg2()
    # player 0 needs 5, player 1 needs 3; a single game at the cube of 2 leaves 3-away 3-away or, lost,
    # 5-away against 1-away in the Crawford game
    assert mwc_to_emg(met.mwc(3, 3), state, 0) == pytest.approx(1.0)
    assert mwc_to_emg(met.mwc(5, 1), state, 0) == pytest.approx(-1.0)
    assert mwc_to_emg(0.5 * (met.mwc(3, 3) + met.mwc(5, 1)), state, 0) == pytest.approx(0.0)
    for emg in (-1.7, -0.3, 0.0, 0.8):
        assert mwc_to_emg(emg_to_mwc(emg, state, 1), state, 1) == pytest.approx(emg)
    decision = cube_decision((0.6, 0.2, 0.01, 0.1, 0.0), state, 0)
    assert decision.double_pass == pytest.approx(1.0)
    assert decision.mwc is not None and decision.mwc[2] == met.mwc(3, 3)


def test_crawford_game_has_no_cube() -> None:
    state = match(5, (4, 2), crawford_game=True)
    for roller in (0, 1):
        decision = cube_decision((0.8, 0.3, 0.0, 0.05, 0.0), state, roller)
        assert not decision.available and decision.action is CubeAction.NOT_AVAILABLE
        assert double_error(decision, doubled=False) == (None, 0.0)
        # a dead cube: cubeful is cubeless
        assert decision.no_double == pytest.approx(cubeless_emg((0.8, 0.3, 0.0, 0.05, 0.0), state, roller))


def test_post_crawford_trailer_doubles_at_once() -> None:
    state = match(5, (4, 2), post_crawford=True)
    trailer = cube_decision((0.5, *NO_GAMMONS), state, 1)
    assert trailer.action is CubeAction.DOUBLE_TAKE
    # after the double the cube is dead for both: Double/take is the cubeless MWC, a win leading to
    # 1-away 1-away (50%) and a loss ending the match
    assert trailer.mwc is not None and trailer.mwc[1] == pytest.approx(0.5 * 0.5)
    assert not cube_decision((0.5, *NO_GAMMONS), state, 0).available  # the leader's cube is worthless
    # the leader 1-away facing the trailer 2-away: take while the trailer's chance is below 1/2 (the
    # pass gives him 1-away 1-away, 50%)
    two_away = match(5, (4, 3), post_crawford=True)
    assert cube_decision((0.49, *NO_GAMMONS), two_away, 1).response is Response.TAKE
    assert cube_decision((0.51, *NO_GAMMONS), two_away, 1).response is Response.PASS


def test_dead_cube_is_cubeless() -> None:
    # 2-away 2-away with the cube on 2: any win ends the match; the owner cannot redouble
    state = match(5, (3, 3), cube=2, cube_owner=0)
    probabilities = (0.62, 0.2, 0.01, 0.12, 0.0)
    decision = cube_decision(probabilities, state, 0)
    assert not decision.available
    assert cubeful_mwc(probabilities, state, 0) == pytest.approx(0.62)
    assert cubeless_mwc(probabilities, state, 0) == pytest.approx(0.62)


def test_cube_efficiency_by_position_class() -> None:
    assert cube_efficiency(board_from_position_id("4HPwATDgc/ABMA")) == 0.68
    race = backgammon_board({6: 5, 5: 5, 4: 3, 10: 2}, {6: 10, 5: 5})  # mover's pips 30+25+12+20 = 87
    assert cube_efficiency(race) == pytest.approx(0.55 + 0.00125 * 87)
    assert cube_efficiency(backgammon_board({6: 15, 12: 0, 24: 0, 13: 0}, {6: 15})) == 0.6  # both bearing off
    long_race = backgammon_board({12: 15}, {6: 15})  # 180 pips
    assert cube_efficiency(long_race) == 0.7


# --- GNU Backgammon


def test_cube_decisions_equal_gnubg() -> None:
    """gnubg 1.07's 0-ply hint on 1,128 cases (cube_fixtures.py): fed gnubg's own cubeless probabilities,
    the three cubeful equities agree within 1e-5 (gnubg computes in 32-bit floats), the actions are the
    same."""
    cases = json.loads(GNUBG_CUBE.read_text())["cases"]
    assert len(cases) > 1000
    for case in cases:
        state = gnubg_case_state(case)
        gnubg = case["gnubg"]
        if not gnubg["available"]:
            assert not cube_decision((0.5, 0.1, 0.0, 0.1, 0.0), state, case["roller"]).available, case
            continue
        board = board_from_position_id(case["position_id"])
        probabilities = gnubg["probabilities"]
        decision = cube_decision(probabilities, state, case["roller"], cube_efficiency(board))
        assert decision.action.value == gnubg["action"], case
        for name in ("no_double", "double_take", "double_pass"):
            assert getattr(decision, name) == pytest.approx(gnubg[name], abs=1e-5), (name, case)
        assert cubeless_emg(probabilities, state, case["roller"]) == pytest.approx(
            gnubg["cubeless_equity"], abs=1e-5
        )
