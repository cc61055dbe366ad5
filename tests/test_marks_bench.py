"""``taldau bench marks``: the sample spread over an archive, and the marks' precision and recall counted
right on hand-made drops."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from taldau.base.kind import GameAnalysis, Limit
from taldau.cli.main import main
from taldau.games.registry import game_kind
from taldau.games.togyz import read_games
from taldau.games.togyz.chances import load_win_curve
from taldau.games.togyz.engine import Engine, named_settings
from taldau.games.togyz.kind import SCALE
from taldau.games.togyz.review import review_game
from taldau.measure.agreement import spread_sample
from taldau.measure.marks import ReviewCache, blunder_disagreements, compare_marks, review_sample


def test_the_sample_is_spread_evenly() -> None:
    assert spread_sample(list(range(10)), 3) == [0, 3, 6]
    assert spread_sample(list(range(10)), 5) == [0, 2, 4, 6, 8]
    assert spread_sample([1, 2], 5) == [1, 2]


def _with_drops(analysis: GameAnalysis, drops: list[float], losses: list[float]) -> GameAnalysis:
    rows = [
        replace(decision, drop=drop, loss=loss, forced=False)
        for decision, drop, loss in zip(analysis.decisions, drops, losses, strict=True)
    ]
    return GameAnalysis(tuple(rows))


def test_precision_and_recall_of_each_mark(togyz_examples: Path) -> None:
    game = list(read_games((togyz_examples / "playok-2024-2025-sample.pgn").read_bytes(), "sample"))[5]
    analysis = review_game(game, Engine(), load_win_curve(), Limit(depth=1))
    plies = len(analysis.decisions)
    # Thresholds 0.1 / 0.2 / 0.3. The reference: ?? at plies 0 and 1, ? at 2, ?! at 3, nothing else.
    # The tested review: ?? at 0, ? at 1 (a blunder called a mistake), ?! at 2, ?? at 4 (a false alarm).
    reference = [0.5, 0.4, 0.25, 0.15] + [0.0] * (plies - 4)
    tested = [0.6, 0.25, 0.12, 0.0, 0.35] + [0.0] * (plies - 5)
    comparison = compare_marks(
        [_with_drops(analysis, tested, [drop * 10 for drop in tested])],
        [_with_drops(analysis, reference, [drop * 10 for drop in reference])],
        SCALE,
    )
    assert comparison.decisions == plies and comparison.same == plies - 4  # plies 1, 2, 3, 4 differ
    exact = {agreement.mark: agreement for agreement in comparison.exact}
    assert (exact["??"].tested, exact["??"].reference, exact["??"].both) == (2, 2, 1)
    assert exact["??"].precision == exact["??"].recall == 0.5
    assert (exact["?"].tested, exact["?"].reference, exact["?"].both) == (1, 1, 0)
    assert (exact["?!"].tested, exact["?!"].reference, exact["?!"].both) == (1, 1, 0)
    at_least = {agreement.mark: agreement for agreement in comparison.at_least}
    # ? or worse: tested at 0, 1, 4; reference at 0, 1, 2: two in common.
    assert (at_least["? or worse"].tested, at_least["? or worse"].reference) == (3, 3)
    assert at_least["? or worse"].both == 2
    # ?! or worse: tested 0, 1, 2, 4; reference 0, 1, 2, 3: three in common.
    assert at_least["?! or worse"].precision == at_least["?! or worse"].recall == 0.75
    assert comparison.loss_correlation is not None and 0 < comparison.loss_correlation < 1
    # The blunders the two disagree on: ply 1 (the tested review says ?) and ply 4 (the reference nothing).
    disagreements = blunder_disagreements(
        [_with_drops(analysis, tested, tested)],
        [_with_drops(analysis, reference, reference)],
        SCALE,
    )
    assert [(row["game"], row["ply"], row["drop"], row["reference_drop"]) for row in disagreements] == [
        (0, 2, 0.25, 0.4),  # decision 1 (from 0) is ply 2: plies count from 1, as in the moves table
        (0, 5, 0.35, 0.0),
    ]
    assert [row["position"] for row in disagreements] == [analysis.decisions[p].position for p in (1, 4)]


@pytest.fixture
def private_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The user's cache folder (where the bench keeps its reference) moved into the test's own folder."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache" / "taldau" / "marks"


def test_bench_marks_json(togyz_examples: Path, private_cache: Path) -> None:
    archive = str(togyz_examples / "playok-2024-2025-sample.pgn")
    arguments = ["bench", "marks", "--games", "2", "--depth", "2", "--reference-depth", "3", "--archive"]
    result = CliRunner().invoke(main, [*arguments, archive, "--one-search", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["games"] == 2 and report["reference"]["limit"] == {"depth": 3}
    default = report["default"]["against_reference"]
    assert default["decisions"] <= report["decisions"] and 0 <= default["same_mark"] <= default["decisions"]
    assert [agreement["mark"] for agreement in default["marks"]] == ["?!", "?", "??"]
    assert "against_default" in report["one_search"]
    # The reference is kept, one file per game, and read back by the next run.
    assert len(list(private_cache.glob("*.pickle"))) == 2
    again = json.loads(CliRunner().invoke(main, [*arguments, archive, "--json"]).stdout)
    assert again["reference"]["cached_games"] == 2
    assert again["default"]["against_reference"] == default
    assert again["default"]["blunder_disagreements"] == report["default"]["blunder_disagreements"]
    # Each share comes with its 95% interval, which holds it; the text report prints it after the counts.
    with_reference = [agreement for agreement in default["marks"] if agreement["reference"]]
    for agreement in with_reference:
        low, high = agreement["recall_95"]
        assert low <= agreement["recall"] <= high
    text = CliRunner().invoke(main, [*arguments, archive]).output
    for agreement in with_reference:
        low, high = agreement["recall_95"]
        assert f"/{agreement['reference']}, 95% {low}-{high})" in text


@pytest.mark.slow
def test_bench_marks_of_backgammon_reviews_whole_matches(private_cache: Path) -> None:
    """A backgammon match is one task: sampled whole, its games' decisions paired across reviews; a review
    against itself agrees on every mark, and the Togyz-only options are refused."""
    archive = Path(__file__).resolve().parents[1] / "examples" / "backgammon"
    arguments = ["bench", "marks", "--game", "backgammon", "--engine", "own", "--archive", str(archive)]
    arguments += ["--games", "2", "--depth", "1", "--reference-depth", "1", "--json"]
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    against = report["default"]["against_reference"]
    assert report["games"] == 2 and against["same_mark"] == against["decisions"] > 100
    assert against["loss_correlation"] == 1.0 and report["default"]["blunder_disagreements"] == []
    assert report["reference"]["version"].startswith("own") and report["reference"]["limit"] == {"depth": 1}
    assert len(list(private_cache.glob("*.pickle"))) == 2  # one file per match
    refused = CliRunner().invoke(main, [*arguments, "--one-search"])
    assert refused.exit_code == 2 and "--one-search: for Togyz only" in refused.output


def _timeless(analyses: tuple[GameAnalysis, ...]) -> list[list[object]]:
    return [[replace(decision, seconds=0.0) for decision in analysis.decisions] for analysis in analyses]


def test_the_reference_is_kept_and_read_back(togyz_examples: Path, tmp_path: Path) -> None:
    kind = game_kind("togyz")
    games = list(read_games((togyz_examples / "playok-2024-2025-sample.pgn").read_bytes(), "sample"))[:3]
    cache = ReviewCache(tmp_path)
    limit = Limit(depth=2)
    first = review_sample(kind, kind.analyser, games, limit, jobs=2, cache=cache)
    assert first.cached == 0 and len(list(tmp_path.glob("*.pickle"))) == 3
    again = review_sample(kind, kind.analyser, games, limit, cache=cache)
    assert again.cached == 3 and again.seconds == 0.0
    assert again.analyses == first.analyses
    # Two processes give what one gives, game by game in the sample's order (all but the time taken).
    alone = review_sample(kind, kind.analyser, games, limit).analyses
    assert _timeless(alone) == _timeless(first.analyses)
    # Another limit, or other search settings, are other reviews: nothing is read back for them.
    assert review_sample(kind, kind.analyser, games[:1], Limit(depth=3), cache=cache).cached == 0
    full = replace(kind.analyser, settings=named_settings("full"))
    assert full.version() != kind.analyser.version()
    assert review_sample(kind, full, games[:1], limit, cache=cache).cached == 0


def test_bench_marks_also_reviews_other_settings(togyz_examples: Path, private_cache: Path) -> None:
    archive = str(togyz_examples / "playok-2024-2025-sample.pgn")
    arguments = ["bench", "marks", "--games", "2", "--depth", "2", "--reference-depth", "3", "--archive"]
    result = CliRunner().invoke(main, [*arguments, archive, "--also", "full:3", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["full:3"]["limit"] == {"depth": 3}
    assert (
        report["full:3"]["against_reference"]["decisions"]
        == report["default"]["against_reference"]["decisions"]
    )
    bad = CliRunner().invoke(main, [*arguments, archive, "--also", "fast"])
    assert bad.exit_code == 2 and "unknown search settings" in bad.output


def test_bench_marks_verify_reviews_the_stages_given(togyz_examples: Path, private_cache: Path) -> None:
    # The default review verifies at depth 2 + its own stages; --verify tries other stages, --also none,
    # and the reference never verifies (its version is the engine's alone, so its cache stays valid).
    archive = str(togyz_examples / "playok-2024-2025-sample.pgn")
    arguments = ["bench", "marks", "--games", "2", "--depth", "2", "--reference-depth", "3", "--archive"]
    # --review-with reviews as the default does but for the search settings: with the default's own, the
    # same marks.
    stages = ["--verify", "0.05+1", "--verify", "0.05+1,0.2+2", "--also", "default:2"]
    settings = ["--review-with", "default", "--review-with", "lmr3-5+static150+futility150"]
    result = CliRunner().invoke(main, [*arguments, archive, *stages, *settings, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert "verify" not in report["reference"]["version"]
    decisions = report["default"]["against_reference"]["decisions"]
    for name in ("verify 0.05+1", "verify 0.05+1,0.2+2", "default:2", "review lmr3-5+static150+futility150"):
        assert report[name]["against_reference"]["decisions"] == decisions
    assert report["review default"]["against_default"]["same_mark"] == decisions
    bad = CliRunner().invoke(main, [*arguments, archive, "--review-with", "fast"])
    assert bad.exit_code == 2 and "--review-with" in bad.output
    for bad in ("0.2", "0+3", "0.2+x", "3+2"):
        refused = CliRunner().invoke(main, [*arguments, archive, "--verify", bad])
        assert refused.exit_code == 2 and "--verify" in refused.output, bad


def test_bench_marks_without_games_to_sample_says_so(tmp_path: Path) -> None:
    missing = CliRunner().invoke(main, ["bench", "marks", "--archive", str(tmp_path / "none.pgn")])
    assert missing.exit_code == 2 and "does not exist" in missing.output  # click checks --archive
    empty = tmp_path / "empty.pgn"
    empty.write_text("")
    result = CliRunner().invoke(main, ["bench", "marks", "--archive", str(empty)])
    assert result.exit_code == 2 and "holds no valid togyz game with a move" in result.output


def test_games_without_a_move_are_not_sampled(
    togyz_examples: Path, private_cache: Path, tmp_path: Path
) -> None:
    """A game resigned before its first move is valid but has nothing to compare: of an archive of two
    such games around one real game, the sample of three is that one game."""
    unplayed = '[Event "1"]\n[White "a"]\n[Black "b"]\n[Result "1-0"]\n\n1-0\n\n'
    real = (togyz_examples / "playok-2024-2025-sample.pgn").read_text().split("\n\n[")[0] + "\n\n"
    archive = tmp_path / "three.pgn"
    archive.write_text(unplayed + real + unplayed.replace('"1"', '"2"'))
    arguments = ["bench", "marks", "--games", "3", "--depth", "1", "--reference-depth", "2"]
    result = CliRunner().invoke(main, [*arguments, "--archive", str(archive), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["games"] == 1 and report["decisions"] > 0
