"""The gnubg backend (``GnubgEvaluator``, PyPI ``gnubg-nn``): its board layout, exact results of finished
games, and its probabilities against GNU Backgammon's own on the fixture positions of
tests/data/backgammon/gnubg/eval.json (made by eval_fixtures.py with Debian's gnubg 1.07).

gnubg-nn ships other weights than Debian's gnubg 1.07 (its ``gnubg.weights`` is headed "GNU Backgammon
1.01"; Debian's binary ``gnubg.wd`` is 1.07's), so the numbers agree closely, not exactly: on the 42
fixture positions the largest difference is 0.0038 at 0-ply and 0.0034 at 1-ply."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers import backgammon_board as board
from taldau.games.backgammon.engine import Evaluator
from taldau.games.backgammon.engine.gnubg import INSTALL_HINT, GnubgEvaluator, gnubg_available, load_gnubg
from taldau.games.backgammon.rules.board import start_board
from taldau.games.backgammon.rules.ids import board_from_position_id

FIXTURES = Path(__file__).resolve().parent / "data" / "backgammon" / "gnubg" / "eval.json"
TOLERANCE = 0.005

needs_gnubg = pytest.mark.skipif(
    not gnubg_available(), reason="needs gnubg-nn (pip install 'taldau[gnubg]'), an optional extra"
)


@pytest.fixture(scope="module")
def gnubg() -> GnubgEvaluator:
    if not gnubg_available():
        pytest.skip("needs gnubg-nn (pip install 'taldau[gnubg]'), an optional extra")
    return GnubgEvaluator()


def test_missing_gnubg_nn_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gnubg_nn", None)  # import fails as if it were not installed
    assert not gnubg_available()
    with pytest.raises(ImportError, match=r"pip install 'taldau\[gnubg\]'"):
        load_gnubg()
    with pytest.raises(ImportError) as raised:
        GnubgEvaluator()
    assert str(raised.value) == INSTALL_HINT


@needs_gnubg
def test_it_is_an_evaluator_named_gnubg_with_gnubg_nns_version(gnubg: GnubgEvaluator) -> None:
    assert isinstance(gnubg, Evaluator)
    assert gnubg.name == "gnubg"
    assert gnubg.version.startswith(f"gnubg-nn {load_gnubg().__version__.version}")


@needs_gnubg
def test_board_rows_are_the_cores_row_1_on_roll(gnubg: GnubgEvaluator) -> None:
    # the start favours the side on roll a little; after the opening 31 played 8/5 6/5 (the opponent's
    # 5-point made, row 0 of sGfwATDgc/ABMA), the side on roll is the underdog
    start, after_31 = gnubg.evaluate(np.stack([start_board(), board_from_position_id("sGfwATDgc/ABMA")]))
    assert 0.5 < start[0] < 0.55
    assert 0.4 < after_31[0] < 0.5
    # the side on roll has two checkers left on its ace point, the opponent 15 on its six point: a sure win
    ahead = board({1: 2}, {6: 15})
    behind = ahead[::-1].copy()
    probabilities = gnubg.evaluate(np.stack([ahead, behind]))
    assert probabilities[0, 0] == pytest.approx(1.0)
    assert probabilities[1, 0] == pytest.approx(0.0, abs=1e-6)


@needs_gnubg
def test_finished_games_get_their_exact_result(gnubg: GnubgEvaluator) -> None:
    # row 0 (the side not on roll) has borne off everything: the side on roll lost 1, 2 or 3 points
    single = board({6: 10}, {})
    gammon = board({6: 15}, {})
    backgammon = board({6: 14, 19: 1}, {})  # a checker left in the winner's home board
    result = gnubg.evaluate(np.stack([single, gammon, backgammon]), plies=1)
    assert result.tolist() == [[0, 0, 0, 0, 0], [0, 0, 0, 1, 0], [0, 0, 0, 1, 1]]


@needs_gnubg
def test_negative_plies_are_refused(gnubg: GnubgEvaluator) -> None:
    with pytest.raises(ValueError, match="plies must be 0 or more"):
        gnubg.evaluate(start_board()[np.newaxis], -1)


@needs_gnubg
@pytest.mark.parametrize("plies", [0, 1])
def test_probabilities_equal_gnubgs_own(gnubg: GnubgEvaluator, plies: int) -> None:
    positions = json.loads(FIXTURES.read_text())["positions"]
    assert len(positions) >= 30
    boards = np.array([position["board"] for position in positions], dtype=np.int8)
    for position, cells in zip(positions, boards, strict=True):
        assert np.array_equal(cells, board_from_position_id(position["position_id"]))
    ours = gnubg.evaluate(boards, plies)
    theirs = np.array([position[f"ply{plies}"] for position in positions])
    worst = np.abs(ours - theirs).max(axis=1)
    off = [(p["label"], round(float(w), 4)) for p, w in zip(positions, worst, strict=True) if w > TOLERANCE]
    assert not off
    # positions in gnubg's bear-off databases come from the same exact tables: equal to rounding
    bearoffs = [row for row, p in enumerate(positions) if p["class"].startswith("bearoff")]
    assert len(bearoffs) >= 5 and worst[bearoffs].max() < 1e-6
