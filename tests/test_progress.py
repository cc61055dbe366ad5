"""Progress on stderr for every command that can run longer than a few seconds (issue 42): ``report``,
``match`` of both games, ``bench``'s speed of both games, ``marks`` and ``gnubg``, and backgammon
rollouts (``eval``/``plays --rollout``, trial by trial as bgsage tells them); its lines count their nouns (1
game, 2 games). Under CliRunner stderr is no terminal: the plain lines, the first and the last at least."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import needs_sage
from taldau.cli.main import main
from taldau.cli.progress import ProgressLine
from taldau.measure.backgammon.reference import gnubg_program

START_ID = "4HPwATDgc/ABMA"  # backgammon's starting position (gnubg Position ID)


def progress(args: list[str], label: str) -> list[str]:
    """The progress lines under ``label`` that the command ``args`` writes on stderr (it must succeed, and
    keep its stdout free of them)."""
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert f"{label}: " not in result.stdout
    return [line for line in result.stderr.splitlines() if line.startswith(f"{label}: ")]


def done(line: str) -> tuple[int, int]:
    """What a line ``label: done/total noun...`` says is done, of what."""
    found = re.search(r": ([\d,]+)/([\d,]+) ", line)
    assert found, line
    return int(found[1].replace(",", "")), int(found[2].replace(",", ""))


def test_progress_lines_count_their_nouns(capsys: pytest.CaptureFixture) -> None:
    """A noun agrees with the total when there is one, else with what is done; a plural of its own."""
    for unit, plural, steps in (("decision", "", [1, 2]), ("game", "", [0, 1]), ("ply", "plies", [1, 3])):
        shown = ProgressLine("doing", unit, every=0.0, plural=plural)
        for step in steps:
            shown.update(step)
    ProgressLine("doing", "game", 1, every=0.0).update(1)
    ProgressLine("doing", "game", 5, every=0.0).update(1)
    ProgressLine("doing", "", 5, every=0.0).update(1)
    assert capsys.readouterr().err.splitlines() == [
        "doing: 1 decision",
        "doing: 2 decisions",
        "doing: 0 games",
        "doing: 1 game",
        "doing: 1 ply",
        "doing: 3 plies",
        "doing: 1/1 game",
        "doing: 1/5 games",
        "doing: 1/5",
    ]


def test_report_shows_the_pages_it_writes(analysed_examples: dict[str, Path], tmp_path: Path) -> None:
    lines = progress(["report", str(analysed_examples["togyz"]), "--out", str(tmp_path / "site")], "writing")
    assert lines[0] == "writing: 0/7 game pages" and lines[-1] == "writing: 7/7 game pages", lines


def test_togyz_match_shows_the_games_played() -> None:
    args = ["match", "--openings", "2", "--depth", "1", "--jobs", "1"]
    lines = progress(args, "playing")
    assert lines[0] == "playing: 0/4 games" and lines[-1] == "playing: 4/4 games", lines


def test_togyz_match_on_processes_shows_the_games_played() -> None:
    lines = progress(["match", "--openings", "2", "--depth", "1", "--jobs", "2"], "playing")
    assert lines[0] == "playing: 0/4 games" and lines[-1] == "playing: 4/4 games", lines


def test_backgammon_match_shows_the_games_played() -> None:
    args = [
        "match",
        "--game",
        "backgammon",
        "--games",
        "2",
        "--a",
        "own:0",
        "--b",
        "own:0",
        "--judge",
        "none",
    ]
    lines = progress([*args, "--jobs", "1"], "playing")
    assert lines and lines[-1] == "playing: 2/2 games", lines
    assert all(re.fullmatch(r"playing: [12]/2 games", line) for line in lines), lines


@pytest.mark.slow
def test_togyz_speed_bench_shows_its_steps() -> None:
    """The bench's steps in turn, the review of its game last, to its last ply."""
    lines = progress(["bench", "speed", "--depth", "1"], "measuring")
    assert lines[0] == "measuring: 0/1 perft", lines
    assert lines[-1].startswith("measuring: ") and lines[-1].endswith(" review"), lines
    finished, plies = done(lines[-1])
    assert finished == plies > 0


@needs_sage
def test_eval_rollout_shows_its_trials() -> None:
    lines = progress(["eval", START_ID, "--engine", "sage", "--rollout", "--trials", "6"], "rolling out")
    assert lines and lines[-1] == "rolling out: 6/6 trials", lines


@pytest.mark.slow
@needs_sage
def test_plays_rollout_shows_the_trials_of_all_its_plays() -> None:
    args = ["plays", START_ID, "31", "--engine", "sage", "--rollout", "--trials", "6"]
    lines = progress(args, "rolling out")
    finished, total = done(lines[-1])
    assert finished == total and total % 6 == 0 and total >= 12, lines
    assert lines[-1].endswith(" trials")


@pytest.mark.slow
def test_marks_bench_shows_the_games_reviewed(
    togyz_examples: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reference's reviews of the sample, then the tested ones', counted together."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    archive = str(togyz_examples / "playok-2024-2025-sample.pgn")
    args = [
        "bench",
        "marks",
        "--games",
        "1",
        "--depth",
        "1",
        "--reference-depth",
        "2",
        "--archive",
        archive,
    ]
    lines = progress(args, "reviewing")
    assert lines[0] == "reviewing: 0/2 games" and lines[-1] == "reviewing: 2/2 games", lines


@pytest.mark.slow
def test_backgammon_speed_bench_shows_its_steps_then_its_decisions() -> None:
    """The play sets' steps, then the decisions of every pass of the engine bench, to the last."""
    lines = progress(["bench", "speed", "--game", "backgammon", "--decisions", "2"], "measuring")
    assert "measuring: 3/3 steps" in lines, lines
    finished, total = done(lines[-1])
    assert lines[-1].endswith(" decisions") and finished == total and total % 2 == 0, lines


@pytest.mark.skipif(gnubg_program() is None, reason="Debian's gnubg is not installed")
def test_against_gnubg_shows_the_matches_compared() -> None:
    lines = progress(["bench", "gnubg", "1", "--depth", "0"], "comparing")
    assert lines and lines[-1] == "comparing: 1/1 match", lines


@pytest.mark.slow
def test_service_bench_tells_the_tasks_of_its_timed_runs(togyz_examples: Path) -> None:
    """Each timed run's tasks after the runs before it (the warm runs aside), to all of them."""
    from taldau.measure.service import ServiceBench, run_service_bench

    told: list[tuple[int, int]] = []
    bench = ServiceBench("togyz", togyz_examples / "compact.txt", 1, ("local_1", "local_2"))
    run_service_bench(bench, lambda done, total: told.append((done, total)))
    tasks = told[-1][1] // 2
    assert tasks > 0 and told[0] == (0, 2 * tasks) and told[-1] == (2 * tasks, 2 * tasks), told
    assert [done for done, _ in told] == sorted(done for done, _ in told), told
