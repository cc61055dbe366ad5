"""The rollout judge of the levels of review (``measure.backgammon.judge``): what it rolls out, how it scores
the levels, and its cache."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from taldau.games.backgammon.engine.sage import RolloutSettings, sage_available
from taldau.measure.backgammon.judge import (
    JudgeLevel,
    Rolled,
    RolloutCache,
    judge_levels,
    wants_rollout,
)
from taldau.measure.backgammon.strength import draw_decisions

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "backgammon"


def test_levels_parse_and_world_is_refused() -> None:
    assert str(JudgeLevel.parse("sage:deep")) == "sage:deep"
    assert JudgeLevel.parse("gnubg").level == "standard"
    with pytest.raises(ValueError, match="world is a rollout"):
        JudgeLevel.parse("sage:world")
    with pytest.raises(ValueError, match="engine:level"):
        JudgeLevel.parse(":deep")


def test_the_draw_is_seeded_and_a_smaller_draw_is_a_prefix() -> None:
    ten = draw_decisions(EXAMPLES, 10, seed=3)
    assert [item.key for item in draw_decisions(EXAMPLES, 4, seed=3)] == [item.key for item in ten[:4]]
    assert [item.key for item in draw_decisions(EXAMPLES, 10, seed=4)] != [item.key for item in ten]
    assert all(item.step.play is not None for item in ten)


def test_the_cache_keeps_plays_per_decision_and_skips_a_torn_line(tmp_path: Path) -> None:
    settings = RolloutSettings(trials=36, batches=2)
    cache = RolloutCache(tmp_path, settings, "1.0")
    cache.store("A:B", "match.txt", {"x": Rolled("24/18 13/11", (0.1, 0.3))})
    cache.store("A:B", "match.txt", {"y": Rolled("13/7 13/11", (0.0, 0.1))})
    with cache.path.open("a") as handle:
        handle.write('{"decision": "C:D", "plays": {"z": {"pl')  # a run killed while writing
    again = RolloutCache(tmp_path, settings, "1.0")
    assert set(again.plays) == {"A:B"} and again.plays["A:B"]["x"].value == pytest.approx(0.2)
    assert RolloutCache(tmp_path, RolloutSettings(trials=72, batches=2), "1.0").path != cache.path
    assert json.loads(cache.path.read_text().splitlines()[0])["source"] == "match.txt"


@pytest.mark.skipif(not sage_available(), reason="bgsage cannot run on this machine")
@pytest.mark.slow
def test_the_judge_rolls_out_the_plays_in_dispute_and_reads_them_back(tmp_path: Path) -> None:
    drawn = draw_decisions(EXAMPLES, 12, seed=7)
    rollout = RolloutSettings(trials=36, seed=5, batches=2)
    levels = ("own:quick", "own:standard")
    report = judge_levels(drawn, levels, rollout, tmp_path, jobs=2)
    data = report.to_json()
    disputed = [v for v in report.verdicts if len(set(v.results)) > 1]
    assert data["disputed"] == len(disputed) >= 1 and data["decisions"] == 12
    for verdict in report.verdicts:
        wanted = {*verdict.results, verdict.played}
        if wants_rollout(verdict.reviews, verdict.results, verdict.played):  # every play rolled, both batches
            assert set(verdict.rolled) == wanted
            assert all(len(rolled.values) == 2 for rolled in verdict.rolled.values())
        else:
            assert verdict.rolled == {}
            assert len(set(verdict.results)) == 1 and all(
                min(abs(review.loss - t) for t in (0.03, 0.06, 0.12)) > 0.02 or len(wanted) == 1
                for review in verdict.reviews
            )
    quick, standard = data["levels"]
    losses = []
    for verdict in disputed:
        best = max(rolled.value for rolled in verdict.rolled.values())
        losses.append(best - verdict.rolled[verdict.results[0]].value)
    assert quick["mean_loss"] == pytest.approx(np.mean(losses), abs=1e-6)
    assert quick["minus"]["own:standard"]["mean"] == pytest.approx(
        quick["mean_loss"] - standard["mean_loss"], abs=1e-5
    )
    assert 0 < quick["cpu_ms_per_decision"] < standard["cpu_ms_per_decision"]
    again = judge_levels(drawn, levels, rollout, tmp_path, jobs=1)
    assert again.rolled_now == 0 and again.rollout_seconds == 0.0 and report.rolled_now >= 1
    assert {
        k: v for k, v in again.to_json().items() if k not in ("rolled_now", "rollout_seconds", "levels")
    } == {k: v for k, v in data.items() if k not in ("rolled_now", "rollout_seconds", "levels")}
    assert [level["mean_loss"] for level in again.to_json()["levels"]] == [
        quick["mean_loss"],
        standard["mean_loss"],
    ]
