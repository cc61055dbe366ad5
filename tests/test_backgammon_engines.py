"""`--engine own|gnubg|sage` across the backgammon commands (issue 35): the settings key is the loaded
engine's (own's the same named or not, sage's another), an analysis with sage names it in its manifest and
its report, a sage that cannot run gives own's key and one line saying so (and a worker whose sage fell
back is refused), Togyz takes no engine, and `plays` / `eval --rollout` give bgsage's rollouts with their
standard errors, the same numbers for the same seed; the default review (sage) marks gnubg's clear blunders.

The tests that need bgsage skip, saying why, where it cannot load; the stand-in's tests run everywhere."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import EXAMPLES, needs_sage
from taldau.analysis.batch import BatchSettings, GameTask, plan
from taldau.base.kind import Limit, Mark
from taldau.cli.main import main
from taldau.games import registry
from taldau.games.backgammon.engine import sage
from taldau.games.backgammon.engine.analyse import DEFAULT_ENGINE, load_evaluator
from taldau.games.backgammon.records.replay import read_games
from taldau.games.backgammon.review.levels import ReviewSettings
from taldau.games.backgammon.review.match import review_match
from taldau.games.backgammon.review.plays import MoveDecision
from taldau.workers import run as runs

MATCH = EXAMPLES / "backgammon" / "gnubg-money-session.mat"  # the smallest bundled match: 2 games
START = "4HPwATDgc/ABMA"  # the starting position
REASON = "bgsage needs a CPU with AVX2, which this machine's CPU lacks"


@pytest.fixture
def no_sage(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A machine where bgsage cannot run (a CPU without AVX2, simulated), in a process that has loaded no
    engine yet (``registry.analyser`` keeps the ones a process loaded)."""
    monkeypatch.setattr(sage, "unavailable_reason", lambda: REASON)
    registry.analyser.cache_clear()
    yield
    registry.analyser.cache_clear()


def test_the_default_engines_key_is_the_same_named_or_not_and_leaves_the_name_out() -> None:
    assert DEFAULT_ENGINE == "sage"  # chosen by measurement (BENCHMARKS.md, issue 35)
    default = BatchSettings(game="backgammon", limit=Limit(depth=0))
    named = BatchSettings(game="backgammon", limit=Limit(depth=0), engine=DEFAULT_ENGINE)
    assert named.key == default.key == BatchSettings.from_json(named.to_json()).key
    # the key's inputs are those before engines could be chosen: the version names the engine
    keyed = set(default.record().to_json()) - {"engine_name"}
    assert keyed == {"game", "limit", "thresholds", "engine", "schemas"}
    loaded = default.analyser.engine_name()  # sage, or own standing in where bgsage cannot run
    assert default.record().engine.startswith("bgsage " if loaded == "sage" else "own")
    assert named.record() == default.record() and named.record().engine_name == loaded
    own = BatchSettings(game="backgammon", limit=Limit(depth=0), engine="own")
    assert own.record().engine_name == "own" and own.fallback is None
    assert own.record().engine.startswith("own")


@needs_sage
def test_sages_key_differs_from_owns() -> None:
    own = BatchSettings(game="backgammon", limit=Limit(depth=2), engine="own")
    sage_settings = BatchSettings(game="backgammon", limit=Limit(depth=2), engine="sage")
    assert sage_settings.key != own.key and sage_settings.fallback is None
    assert sage_settings.record().engine.startswith("bgsage ")
    assert sage_settings.record().engine_name == "sage"
    # the level is part of the key too
    assert BatchSettings(game="backgammon", limit=Limit(depth=1), engine="sage").key != sage_settings.key


def test_a_sage_that_cannot_run_gives_owns_key_and_says_so(no_sage: None) -> None:
    settings = BatchSettings(game="backgammon", limit=Limit(depth=0), engine="sage")
    assert settings.key == BatchSettings(game="backgammon", limit=Limit(depth=0), engine="own").key
    assert (
        settings.key == BatchSettings(game="backgammon", limit=Limit(depth=0)).key
    )  # the default stands in too
    assert settings.fallback == f"{REASON}: using the engine own instead"
    assert settings.record().engine_name == "own"


def test_eval_and_plays_print_the_stand_ins_line(no_sage: None) -> None:
    result = CliRunner().invoke(main, ["eval", START, "--engine", "sage", "--json"])
    assert result.exit_code == 0, result.output
    assert result.stderr.strip() == f"{REASON}: using the engine own instead"
    assert json.loads(result.stdout)["engine"] == "own"
    result = CliRunner().invoke(main, ["plays", START, "31", "--engine", "sage", "--depth", "0", "--json"])
    assert result.exit_code == 0, result.output
    assert result.stderr.count("using the engine own instead") == 1
    assert json.loads(result.stdout)["engine"] == "own"


@needs_sage
def test_a_worker_whose_sage_fell_back_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    client = BatchSettings(game="backgammon", limit=Limit(depth=0), engine="sage")
    spec = runs.RunSpec("run", str(tmp_path), client.to_json(), client.key)
    (task,) = [item for item in plan([MATCH], client) if isinstance(item, GameTask)]
    monkeypatch.setattr(sage, "unavailable_reason", lambda: REASON)
    registry.analyser.cache_clear()  # a process that loads its engine now, with bgsage unavailable
    try:
        result = runs.run_task(task, spec)
    finally:
        registry.analyser.cache_clear()
    report = result.report
    assert report.outcome == "refused" and report.key != client.key and result.games is None
    assert report.problem is not None and "using the engine own instead" in report.problem


def test_togyz_takes_no_engine(tmp_path: Path, togyz_examples: Path) -> None:
    with pytest.raises(ValueError, match="one engine"):
        _ = BatchSettings(game="togyz", engine="sage").analyser
    result = CliRunner().invoke(
        main, ["analyze", str(togyz_examples), "--out", str(tmp_path / "out"), "--engine", "own"]
    )
    assert result.exit_code == 2 and "one engine" in result.output


@pytest.fixture(scope="module")
def sage_analysis(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sage") / "run"
    command = ["analyze", str(MATCH), "--out", str(out), "--engine", "sage", "--depth", "0", "--jobs", "1"]
    result = CliRunner().invoke(main, command)
    assert result.exit_code == 0, result.output
    return out


@needs_sage
def test_analyze_with_sage_names_it_and_its_rows_carry_its_key(sage_analysis: Path) -> None:
    import pyarrow.parquet as pq

    manifest = json.loads((sage_analysis / "manifest.json").read_text(encoding="utf-8"))
    settings = manifest["settings"]
    assert settings["engine_name"] == "sage" and settings["engine"].startswith("bgsage ")
    assert manifest["key"] == BatchSettings(game="backgammon", limit=Limit(depth=0), engine="sage").key
    games = pq.read_table(sage_analysis / "games").to_pylist()
    assert len(games) == 2 and {row["settings"] for row in games} == {manifest["key"]}
    moves = pq.read_table(sage_analysis / "moves").to_pylist()
    assert moves and all(row["depth"] == 0 for row in moves)


@needs_sage
@pytest.mark.slow
@pytest.mark.parametrize("name", ["galaxy-6983184", "galaxy-13000456"])
def test_the_default_review_marks_gnubgs_clear_blunders(name: str) -> None:
    """The default review (sage at 2 plies, its filter) of a real match marks ``??`` every play on which
    GNU Backgammon's own analysis (tests/data/backgammon/gnubg/analysis/) loses 0.19 or more, far past the
    0.12 of a blunder, and marks no more blunders than a few beside gnubg's."""
    folder = Path(__file__).resolve().parent / "data" / "backgammon" / "gnubg" / "analysis"
    gnubg = json.loads((folder / f"{name}.json").read_text(encoding="utf-8"))
    theirs = [
        decision
        for game in gnubg["games"]
        for decision in game["decisions"]
        if decision["kind"] == "move" and not decision["forced"]
    ]
    games = [game for game in read_games((folder / f"{name}.txt").read_bytes(), name) if not game.errors]
    evaluator = load_evaluator(DEFAULT_ENGINE)
    review = review_match(games, evaluator, ReviewSettings.of_engine(evaluator.name, 2))
    ours = {
        (game.index, decision.position_id, tuple(sorted(decision.dice))): decision.mark
        for game in review.games
        for decision in game.decisions
        if isinstance(decision, MoveDecision)
    }
    clear = [d for d in theirs if d["loss"] >= 0.19]
    assert clear
    for decision in clear:
        key = (decision["game"], decision["position_id"], tuple(sorted(decision["dice"])))
        assert ours[key] is Mark.VERY_BAD, decision
    gnubg_blunders = sum(decision["mark"] == "very bad" for decision in theirs)
    assert sum(mark is Mark.VERY_BAD for mark in ours.values()) <= gnubg_blunders + 3


@needs_sage
def test_the_report_names_the_engine(sage_analysis: Path, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["report", str(sage_analysis), "--out", str(tmp_path / "site")])
    assert result.exit_code == 0, result.output
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "engine sage (bgsage 2.0." in index and "0-ply" in index


@needs_sage
def test_annotate_with_sage_names_it() -> None:
    result = CliRunner().invoke(main, ["annotate", str(MATCH), "--engine", "sage", "--depth", "0"])
    assert result.exit_code == 0, result.output
    # stderr holds only progress: no line says another engine stood in
    assert all(line.startswith("annotating: ") for line in result.stderr.splitlines()), result.stderr
    assert result.stdout.strip()


@needs_sage
def test_plays_rollout_repeats_with_its_seed_and_has_standard_errors() -> None:
    command = ["plays", START, "31", "--engine", "sage", "--rollout"]
    command += ["--trials", "6", "--seed", "3", "--json"]
    first, second = (CliRunner().invoke(main, command) for _ in range(2))
    assert first.exit_code == 0, first.output
    assert first.stdout == second.stdout
    payload = json.loads(first.stdout)
    assert payload["rollout"] == {"trials": 6, "seed": 3, "variance_reduction": True, "truncation": None}
    plays = payload["plays"]
    assert len(plays) >= 2 and plays[0]["difference"] == 0.0
    assert all(play["rollout"] and play["equity_se"] > 0 for play in plays)
    assert all(play["standard_errors"]["win"] > 0 for play in plays)
    assert [play["equity"] for play in plays] == sorted((play["equity"] for play in plays), reverse=True)
    text = CliRunner().invoke(main, command[:-1])
    assert text.exit_code == 0 and "±" in text.stdout and "SE W " in text.stdout


@needs_sage
def test_eval_rollout_repeats_with_its_seed_and_has_standard_errors() -> None:
    command = ["eval", START, "--engine", "sage", "--rollout", "--trials", "6", "--seed", "3", "--json"]
    first, second = (CliRunner().invoke(main, command) for _ in range(2))
    assert first.exit_code == 0, first.output
    assert first.stdout == second.stdout
    payload = json.loads(first.stdout)
    assert payload["equity_se"] > 0 and all(value > 0 for value in payload["standard_errors"].values())
    assert abs(payload["equity"]) < 0.3 and not payload["exact"]  # the start: close to even
    other = CliRunner().invoke(main, [*command[:-2], "4", "--json"])
    assert json.loads(other.stdout)["equity"] != payload["equity"]  # another seed, other dice


@pytest.mark.parametrize("engine", ["own", "gnubg"])
def test_engines_without_rollouts_say_so(engine: str) -> None:
    for command in (["eval", START], ["plays", START, "31"]):
        result = CliRunner().invoke(main, [*command, "--engine", engine, "--rollout", "--trials", "6"])
        assert result.exit_code == 2 and f"the engine {engine} has no rollouts" in result.stderr
