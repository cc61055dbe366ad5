"""Issue 34, item 8: the commands agree with each other and with what they say of themselves (the game a
book is of, progress and summaries in games and decisions, resumed work, help texts, defaults that run on
any install, the FEN's error)."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from taldau.cli.main import main
from taldau.cli.progress import ProgressLine
from taldau.games.togyz import FenError, Position
from taldau.measure.backgammon.match import DEFAULT_A, DEFAULT_B, DEFAULT_JUDGE, parse_player

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
MONEY_SESSION = EXAMPLES / "backgammon" / "gnubg-money-session.mat"  # one match file, two games
OPENINGS = ["87(10)", "76(10)", "65(10)", "54(10)", "43(10)", "32(10)", "21(10)", "19", "98(10)"]


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def togyz_folder(folder: Path, files: int) -> Path:
    """``files`` record files of one short Togyz game each (distinct games: another first move)."""
    folder.mkdir()
    for number in range(files):
        text = f'[Event "e{number}"]\n[White "w"]\n[Black "b"]\n\n1. {OPENINGS[number]} *\n'
        (folder / f"game-{number:02d}.pgn").write_text(text, encoding="utf-8")
    return folder


# 1. book build finds the game as analyze does, and refuses a book of other settings in one line


@pytest.mark.slow
def test_book_build_takes_the_game_of_its_records_and_refuses_other_settings_in_one_line(
    tmp_path: Path,
) -> None:
    records = tmp_path / "matches"
    records.mkdir()
    shutil.copy(MONEY_SESSION, records)
    book = tmp_path / "book"
    built = invoke("book", "build", str(records), "--out", str(book), "--json")
    assert built.exit_code == 0, built.output
    counts = json.loads(built.stdout)
    manifest = json.loads((book / "book.json").read_text(encoding="utf-8"))
    assert manifest["settings"]["game"] == "backgammon" and counts["games"] == 2 and counts["positions"] > 0
    again = invoke("book", "build", str(records), "--out", str(book), "--game", "togyz")
    assert again.exit_code == 2
    assert again.stderr == (
        f"error: {book} holds a book of backgammon games 10 plies deep, not of togyz games 30 plies deep: "
        "give --game backgammon --max-ply 10 to grow it, or another --out folder\n"
    )
    assert "{" not in again.output


# 2. one progress display, not a line per input


def test_progress_line_writes_the_first_and_the_last_and_every_note(capsys: pytest.CaptureFixture) -> None:
    shown = ProgressLine("reading", "input", every=3600.0)  # stderr is no terminal under pytest
    shown.update(0, 5)
    for done in range(1, 5):
        shown.update(done)
    shown.note("  skipped: a.pgn: not a record")
    shown.update(5, detail="done")
    shown.update(5)  # said already
    assert capsys.readouterr().err.splitlines() == [
        "reading: 0/5 inputs",
        "  skipped: a.pgn: not a record",
        "reading: 5/5 inputs, done",
    ]


def test_book_build_shows_progress_not_a_line_per_file(tmp_path: Path) -> None:
    folder = togyz_folder(tmp_path / "records", 9)
    built = invoke("book", "build", str(folder), "--out", str(tmp_path / "book"))
    assert built.exit_code == 0, built.output
    lines = built.stderr.splitlines()
    assert lines[0] == "reading: 0/9 inputs" and lines[-1] == "reading: 9/9 inputs"
    assert len(lines) < 9 and not any("game-0" in line for line in lines)
    assert "9 games" in built.stdout
    resumed = invoke("book", "build", str(folder), "--out", str(tmp_path / "book"))
    assert resumed.exit_code == 0 and "reading: 9/9 inputs" in resumed.stderr.splitlines(), resumed.output


def test_book_build_still_names_each_skipped_game(tmp_path: Path) -> None:
    folder = togyz_folder(tmp_path / "records", 3)
    (folder / "bad.pgn").write_text('[Event "bad"]\n[White "w"]\n[Black "b"]\n\n1. 87(10) 86(10) *\n')
    built = invoke("book", "build", str(folder), "--out", str(tmp_path / "book"))
    skipped = [line for line in built.stderr.splitlines() if line.startswith("  skipped: ")]
    assert built.exit_code == 1 and len(skipped) == 1 and "bad.pgn" in skipped[0], built.output


# 3 and 4. games and decisions, this run's work apart from what was analysed before


def test_analyze_counts_games_and_decisions_and_tells_resumed_games_apart(tmp_path: Path) -> None:
    folder = togyz_folder(tmp_path / "records", 2)
    out = tmp_path / "out"
    first = invoke("analyze", str(folder), "--out", str(out), "--depth", "1", "--jobs", "1")
    assert first.exit_code == 0, first.output
    assert "analysing: 0/2 games" in first.stderr and "analysing: 2/2 games" in first.stderr
    assert "tasks" not in first.stderr and "plies" not in first.stderr
    assert f"2 games: 2 analysed, 0 invalid, 0 failed, 2 decisions -> {out}\n" in first.stdout
    again = invoke("analyze", str(folder), "--out", str(out), "--depth", "1", "--jobs", "1")
    assert again.exit_code == 0, again.output
    summary = f"2 games: 0 analysed, 2 resumed (analysed before), 0 invalid, 0 failed, 2 decisions -> {out}\n"
    assert summary in again.stdout
    counts = json.loads(
        invoke("analyze", str(folder), "--out", str(out), "--depth", "1", "--jobs", "1", "--json").stdout
    )
    assert (counts["games"], counts["ok"], counts["plies"]) == (2, 2, 2)  # the keys there were
    assert (counts["analysed"], counts["resumed"], counts["decisions"]) == (0, 2, 2)


def test_validate_counts_in_each_games_words(tmp_path: Path) -> None:
    folder = togyz_folder(tmp_path / "records", 2)
    assert invoke("validate", str(folder)).stdout.endswith("2 games: 2 valid, 0 invalid, 2 moves\n")
    assert invoke("validate", str(MONEY_SESSION)).stdout.endswith("2 games: 2 valid, 0 invalid, 5 rolls\n")
    shutil.copy(MONEY_SESSION, folder)
    both = invoke("validate", str(folder)).stdout
    assert both.endswith("4 games: 4 valid, 0 invalid, 5 backgammon rolls, 2 togyz moves\n")


@pytest.mark.slow
def test_analyze_of_a_match_counts_its_games_and_decisions(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = invoke("analyze", str(MONEY_SESSION), "--out", str(out), "--depth", "0", "--jobs", "1")
    assert result.exit_code == 0, result.output
    assert "analysing: 0/2 games" in result.stderr and "analysing: 2/2 games" in result.stderr
    decisions = json.loads((out / "manifest.json").read_text(encoding="utf-8"))["counts"]["plies"]
    assert decisions > 5  # more decisions (plays, cube and take decisions) than the 5 rolls validate counts
    assert f"2 games: 2 analysed, 0 invalid, 0 failed, {decisions} decisions -> {out}\n" in result.stdout


# 5. what the usage page says of --movetime is what the commands take


def test_readme_says_which_commands_take_movetime() -> None:
    readme = (ROOT / "docs" / "usage.md").read_text(encoding="utf-8")
    sentence = next(line for line in readme.split(". ") if "A `--movetime` (" in line)
    assert "`analyze` takes `--depth` or `--nodes` only" in sentence
    assert "--movetime" not in invoke("analyze", "--help").output
    for command in ("search", "match", "annotate"):
        assert f"`{command}`" in sentence or command == "search"
        assert "--movetime" in invoke(command, "--help").output


# 6. Togyz-only commands speak of Togyz


@pytest.mark.parametrize("command", ["search", "fit-curve"])
def test_togyz_commands_help_says_nothing_of_backgammon(command: str) -> None:
    text = invoke(command, "--help").output
    assert "backgammon" not in text.lower() and "Moves ahead to search" in text


# 7. match runs on any install by default


def test_match_defaults_are_engines_every_install_has() -> None:
    evaluators: dict = {}
    a, b = parse_player(DEFAULT_A, evaluators), parse_player(DEFAULT_B, evaluators)
    assert (a.label, b.label, DEFAULT_JUDGE) == ("own:2", "own:0", "own") and set(evaluators) == {"own"}
    text = " ".join(invoke("match", "--help").output.split())
    assert "[default: own:2]" in text and "[default: own:0:" in text and "gnubg-nn" in text


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("gnubg_nn") is not None, reason="shows the defaults without it")
def test_backgammon_match_runs_by_default_without_gnubg() -> None:
    result = invoke("match", "--game", "backgammon", "--games", "2", "--jobs", "1", "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["games"] == 2 and (payload["a"], payload["b"]) == ("own:2", "own:0")


# 8. the FEN's error names its five fields


def test_fen_field_count_error_names_every_field() -> None:
    with pytest.raises(FenError) as raised:
        Position.from_fen("9S,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 0 0 S")
    message = str(raised.value)
    named = re.search(r"\((.*)\)", message)
    assert named is not None and "5 fields" in message and message.endswith("this has 4")
    assert named.group(1).split(", ") == [
        "board",
        "White's kazan",
        "Black's kazan",
        "side to move",
        "move number",
    ]
