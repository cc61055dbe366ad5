"""Our cube decisions beside XG's on the sample's ``.xg`` (issue 55, item 5, ``bench cube-bias``): one
decision per cube verdict the file holds, and XG judged by its own equities differs from XG by nothing."""

from __future__ import annotations

import pytest
from conftest import SHARED_DATA
from taldau.base.records import ReadLimits, RecordFile
from taldau.games.backgammon.engine.analyse import load_evaluator
from taldau.games.backgammon.engine.sage import RolloutSettings, SageRollout, sage_available
from taldau.games.backgammon.records.readers import read_matches
from taldau.games.backgammon.records.xg import cube_probabilities
from taldau.games.backgammon.review.levels import ReviewSettings
from taldau.games.backgammon.rules.cube import DecisionKind
from taldau.measure.backgammon.cube_bias import JUDGES, OURS, ROLLOUTS, XG, cube_bias

SAMPLE = SHARED_DATA / "backgammon" / "xg" / "hsbt-paris-2023.xg"
pytestmark = pytest.mark.skipif(
    not SAMPLE.exists(), reason="needs ../shared/data/backgammon/xg (the XG sample)"
)


def cube_verdicts() -> int:
    """The verdicts on a cube decision (double or not) the sample's .xg holds."""
    (match,) = read_matches(RecordFile.of_bytes(SAMPLE.read_bytes(), str(SAMPLE), ReadLimits()))
    return sum(
        verdict.kind is DecisionKind.CUBE
        for game in match.games
        for action in game.actions
        for verdict in action.verdicts
    )


def test_one_decision_per_cube_verdict_and_xg_against_itself_is_zero() -> None:
    report = cube_bias(SAMPLE, load_evaluator("own"), ReviewSettings(plies=0))
    assert len(report.cases) == cube_verdicts() > 100
    assert len(cube_probabilities(SAMPLE.read_bytes())) == len(report.cases)
    for case in report.cases:
        assert set(case.equities) == set(JUDGES)
    itself = report.figures(XG)
    assert itself.take.count > 0 and itself.double.count > 0
    assert (itself.take.mean, itself.double.mean, itself.take_near.mean) == (0.0, 0.0, 0.0)
    assert itself.same_double == itself.same_take == itself.decisions == len(report.cases)
    assert [figure.where for figure in report.splits(XG)][:1] == ["all"]


@pytest.mark.slow
@pytest.mark.skipif(not sage_available(), reason="bgsage cannot run on this machine")
def test_the_decisions_near_either_point_are_rolled_out_as_the_truth() -> None:
    rollout = SageRollout(RolloutSettings(trials=36, batches=6))
    report = cube_bias(SAMPLE, load_evaluator("own"), ReviewSettings(plies=0), rollout)
    near = [case for case in report.cases if case.near_take or case.near_double]
    assert 0 < len(near) < len(report.cases)
    assert report.judges == (*JUDGES, ROLLOUTS)
    for case in report.cases:
        assert (ROLLOUTS in case.equities) == (case in near)
    for case in near:
        no_double, double_take, double_pass = case.equities[ROLLOUTS]
        assert double_pass == case.equities[OURS][2]  # exact: the roller cashes
        assert -3.0 < double_take < 3.0 and -3.0 < no_double < 3.0
    rolled = report.figures(ROLLOUTS)
    assert rolled.decisions == len(near) and rolled.take_near.count == len(near)
