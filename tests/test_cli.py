"""The ``taldau`` command line: validate, show and perft, with their exit codes and JSON."""

from __future__ import annotations

import gzip
import io
import json
import shutil
import tarfile
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from taldau.cli.main import main
from taldau.games.togyz import Position
from taldau.games.togyz.chances import load_win_curve
from taldau.games.togyz.evaluate import FEATURES

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
BAD_GAME = '[Event "bad"]\n[White "w"]\n[Black "b"]\n\n1. 87(10) 86(10) *\n'
ONE_PLY_GAME = '[Event "one"]\n[White "w"]\n[Black "b"]\n\n1. 87(10) *\n'


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def run_stdout(*args: str) -> tuple[int, str]:
    """Exit code and stdout alone: the results, without the progress and notes on stderr."""
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout


def test_validate_json_of_the_examples(togyz_examples: Path) -> None:
    code, output = run("validate", "--json", str(togyz_examples))
    assert code == 0
    report = json.loads(output)
    # scoresheet.txt's second game is the sample's sixth, and the app export's two games (read first) are
    # the sample's second and fourth: the same players and moves under other tags
    assert report["summary"] == {
        **{"files": 5, "games": 13, "valid": 13, "invalid": 0, "plies": 980, "duplicates": 3},
        **{"not_records": 0, "not_read": 0, "other_game": 0},
    }
    game = report["games"][0]
    assert set(game) >= {"source", "index", "plies", "result", "termination", "kazans", "errors"}
    terminations = {g["termination"] for g in report["games"]}
    assert terminations == {"kazan", "atsyrau", "record", "unfinished"}
    draw = next(g for g in report["games"] if g["result"] == "1/2-1/2" and g["termination"] == "atsyrau")
    assert draw["kazans"] == [81, 81]


def test_validate_reports_bad_games_and_keeps_going(tmp_path: Path, togyz_examples: Path) -> None:
    shutil.copy(togyz_examples / "playok-2024-2025-sample.pgn", tmp_path / "good.pgn")
    (tmp_path / "bad.pgn").write_text(BAD_GAME)
    (tmp_path / "empty.pgn").write_bytes(b"")
    code, output = run("validate", str(tmp_path))
    assert code == 1
    lines = output.strip().splitlines()
    assert lines[0].endswith(
        "bad.pgn, game 1 (w vs b): line 5, column 11: move 1... 86(10): "
        "recorded destination pit 6, but the last stone falls in White's pit 7"
    )
    assert lines[1].endswith("empty.pgn: empty file: no game record found")
    assert lines[-1] == "3 files, 8 games: 7 valid, 1 invalid, 583 moves; 1 not a record"

    code, output = run("validate", "--json", str(tmp_path / "bad.pgn"))
    assert code == 1
    (game,) = json.loads(output)["games"]
    assert game["errors"] == [
        {
            "line": 5,
            "column": 11,
            "message": "move 1... 86(10): recorded destination "
            "pit 6, but the last stone falls in White's pit 7",
        }
    ]


def test_counts_of_one_are_singular(tmp_path: Path) -> None:
    (tmp_path / "one.pgn").write_text(ONE_PLY_GAME)
    code, output = run("validate", str(tmp_path / "one.pgn"))
    assert code == 0 and output == "1 file, 1 game: 1 valid, 0 invalid, 1 move\n"
    out = tmp_path / "out"
    code, output = run("analyze", str(tmp_path / "one.pgn"), "--out", str(out), "--depth", "1", "--jobs", "1")
    assert code == 0
    assert f"1 game: 1 analysed, 0 invalid, 0 failed, 1 decision -> {out}\n" in output
    assert "0/1 game, " in output and "1/1 game, " in output


def test_validate_reads_zip_and_tar_gz(tmp_path: Path, togyz_examples: Path) -> None:
    sample = (togyz_examples / "playok-2024-2025-sample.pgn").read_bytes()
    with zipfile.ZipFile(tmp_path / "games.zip", "w") as archive:
        archive.writestr("2024/round1.pgn", sample)
        archive.writestr("2024/broken.pgn", BAD_GAME)
        archive.writestr("notes.png", b"\x89PNG")  # not a record: skipped inside archives
    with tarfile.open(tmp_path / "games.tar.gz", "w:gz") as archive:
        info = tarfile.TarInfo("round2.pgn")
        info.size = len(sample)
        archive.addfile(info, io.BytesIO(sample))
    code, output = run("validate", "--json", str(tmp_path / "games.zip"), str(tmp_path / "games.tar.gz"))
    assert code == 1
    report = json.loads(output)
    summary = report["summary"]  # round2.pgn is round1.pgn again
    assert (summary["games"], summary["duplicates"], summary["invalid"]) == (8, 7, 1)
    sources = {g["source"].removeprefix(f"{tmp_path}/") for g in report["games"]}
    assert sources == {"games.zip:2024/round1.pgn", "games.zip:2024/broken.pgn", "games.tar.gz:round2.pgn"}


def test_a_corrupt_archive_is_reported_not_fatal(tmp_path: Path, togyz_examples: Path) -> None:
    (tmp_path / "broken.zip").write_bytes(b"PK\x03\x04 not really a zip")
    shutil.copy(togyz_examples / "compact.txt", tmp_path / "compact.txt")
    code, output = run("validate", "--json", str(tmp_path))
    assert code == 1
    report = json.loads(output)
    # a broken archive is not read (not a game): counted apart from the games, and still fails the run
    assert report["summary"] == {
        "games": 3,
        "valid": 3,
        "invalid": 0,
        "plies": 223,
        "files": 2,
        "not_records": 0,
        "not_read": 1,
        "duplicates": 0,
        "other_game": 0,
    }
    broken = next(g for g in report["games"] if g["source"].endswith("broken.zip"))
    assert broken["index"] == 0 and "cannot read archive" in broken["errors"][0]["message"]


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert run("validate", str(tmp_path / "missing.pgn"))[0] == 2
    assert run("validate")[0] == 2
    code, output = run("show", "9S,9S/9S 0 0 S 1")
    assert code == 2 and "describes 2 pits" in output
    assert run("perft", "--depth", "-1")[0] == 2


def test_show_draws_the_board() -> None:
    code, output = run("show", "10S,9S,9S,9S,9S,9S,t,9S,9S/9S,1,9S,9S,9S,9S,9S,9S,9S 13 4 N 5")
    assert code == 0
    lines = output.splitlines()
    assert lines[2].split("|")[1:10] == [
        " 10 ",
        " 9  ",
        " 9  ",
        " 9  ",
        " 9  ",
        " 9  ",
        " X  ",
        " 9  ",
        " 9  ",
    ]
    assert lines[2].endswith("kazan 4") and lines[4].endswith("kazan 13")
    assert lines[4].split("|")[2].strip() == "."
    assert "White's tuzdyk: Black's pit 3" in output and "Black to move, move 5" in output


def test_perft_json() -> None:
    code, output = run("perft", "--game", "togyz", "--depth", "4", "--json")
    assert code == 0
    result = json.loads(output)
    assert result["depth"] == 4 and result["nodes"] == 5_199
    assert set(result) == {"depth", "nodes", "seconds", "nps"}
    fen = "9S,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 0 0 S 1"
    assert json.loads(run("perft", "--fen", fen, "--depth", "3", "--json")[1])["nodes"] == 613


START = "9S,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 0 0 S 1"


def test_search_json() -> None:
    code, output = run("search", START, "--depth", "6", "--json")
    assert code == 0
    result = json.loads(output)
    assert set(result) >= {"best", "score", "pv", "depth", "nodes", "nps", "seconds"}
    assert result["depth"] == 6 and result["pv"][0] == result["best"]
    assert result["best"][0] in "123456789" and isinstance(result["score"], float)
    code, output = run("search", START, "--nodes", "20000", "--multipv", "3", "--json")
    assert code == 0 and len(json.loads(output)["lines"]) == 3
    assert run("search", START, "--depth", "3", "--nodes", "5")[0] == 2


def test_search_judges_the_move_played() -> None:
    best = json.loads(run("search", START, "--depth", "5", "--json")[1])
    pit = int(best["best"][0])
    same = json.loads(run("search", START, "--depth", "5", "--played", str(pit), "--json")[1])
    assert same["played"] == same["best"] == best["best"] and same["score_played"] == best["score"]
    assert (same["loss"], same["drop"], same["mark"]) == (0.0, 0.0, None)
    # Another opening move: worse by the search, the loss in kumalak is the difference of the scores and
    # the winning chances given away follow through the win curve (early in the game, a few hundredths).
    other = next(number for number in range(1, 10) if number != pit)
    judged = json.loads(run("search", START, "--depth", "5", "--played", str(other), "--json")[1])
    assert judged["best"] == best["best"] and judged["played"][0] == str(other)
    assert judged["score_played"] <= judged["score_best"]
    assert judged["loss"] == pytest.approx(judged["score_best"] - judged["score_played"], abs=1e-3)
    curve = load_win_curve()
    progress = Position.from_fen(START).progress()
    chances = [curve.chances(judged[key], progress, None) for key in ("score_best", "score_played")]
    assert judged["drop"] == pytest.approx(chances[0] - chances[1], abs=1e-3) and judged["drop"] >= 0
    text = run("search", START, "--depth", "5", "--played", str(other))[1]
    assert f"played {judged['played']}" in text and "winning chances" in text
    # A pit with no stones is no move: the error says so.
    empty = "9S,9S,9S,9S,9S,9S,9S,9S,9S/1,18S,9S,9S,9S,9S,9S,9S,9S 0 0 S 1"
    code, output = run("search", empty, "--depth", "3", "--played", "1")
    assert code == 2 and "pit 1 is empty" in output
    assert run("search", START, "--depth", "3", "--played", "1", "--multipv", "2")[0] == 2


def test_annotate_prints_a_scoresheet_that_reads_back(tmp_path: Path, togyz_examples: Path) -> None:
    text = (togyz_examples / "playok-2024-2025-sample.pgn").read_text()
    short_game = "[Event" + text.split("\n\n[Event")[5]  # 24 plies
    (tmp_path / "game.pgn").write_text(short_game + "\n" + BAD_GAME)
    result = CliRunner().invoke(main, ["annotate", str(tmp_path / "game.pgn"), "--depth", "3"])
    assert result.exit_code == 0
    assert "game 2: skipped" in result.stderr
    report = json.loads(run("validate", "--json", str(tmp_path / "game.pgn"))[1])
    annotated = tmp_path / "annotated.txt"
    annotated.write_text(result.stdout)
    again = json.loads(run("validate", "--json", str(annotated))[1])["games"]
    assert len(again) == 1 and again[0]["format"] == "scoresheet" and again[0]["errors"] == []
    assert again[0]["plies"] == report["games"][0]["plies"] == 24
    assert '[Annotator "taldau, depth 3"]' in result.stdout and "[WhiteAccuracy" in result.stdout


def test_match_tune_and_fit_curve(tmp_path: Path, togyz_examples: Path) -> None:
    code, output = run_stdout(
        "match",
        "--a",
        "default",
        "--b",
        "plain",
        "--nodes",
        "300",
        "--openings",
        "2",
        "--jobs",
        "1",
        "--json",
    )
    assert code == 0
    result = json.loads(output)
    assert result["games"] == 4 and result["wins"] + result["draws"] + result["losses"] == 4
    code, _ = run("tune", str(togyz_examples), "--out", str(tmp_path / "weights.json"))
    assert code == 0
    weights = json.loads((tmp_path / "weights.json").read_text())["weights"]
    assert weights["KAZAN"] == 100.0 and list(weights) == list(FEATURES)
    code, output = run_stdout(
        "match",
        "--a",
        str(tmp_path / "weights.json"),
        "--b",
        "plain",
        "--nodes",
        "200",
        "--openings",
        "1",
        "--jobs",
        "1",
    )
    assert code == 0 and output.startswith(f"{tmp_path / 'weights.json'} vs plain at nodes 200: 2 games")
    code, output = run_stdout(
        "fit-curve", str(togyz_examples / "playok-2024-2025-sample.pgn"), "--depth", "2", "--every", "4"
    )
    assert code == 0
    curve = json.loads(output)
    assert curve["scale"] > 0 and curve["samples"] > 50


def test_validate_reports_an_overlong_line_in_a_short_message(tmp_path: Path, togyz_examples: Path) -> None:
    sample = (togyz_examples / "playok-2024-2025-sample.pgn").read_bytes()
    (tmp_path / "long.pgn").write_bytes(sample + b"\n1. " + b"7" * 3_000_000 + b"\n")
    code, output = run("validate", "--json", str(tmp_path / "long.pgn"))
    assert code == 1 and len(output) < 10_000
    report = json.loads(output)
    assert {key: report["summary"][key] for key in ("games", "valid", "invalid", "plies")} == {
        "games": 8,
        "valid": 7,
        "invalid": 1,
        "plies": 581,
    }
    [error] = report["games"][-1]["errors"]
    assert (error["line"], error["column"]) == (sample.count(b"\n") + 2, 1)
    assert error["message"].startswith("line of 3,000,003 bytes, longer than the limit of 1,048,576 bytes")


def test_validate_refuses_bombs_and_paths_out_of_the_archive(tmp_path: Path, togyz_examples: Path) -> None:
    sample = (togyz_examples / "compact.txt").read_bytes()
    with zipfile.ZipFile(tmp_path / "bomb.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open("bomb.pgn", "w", force_zip64=True) as member:
            for _ in range(16):
                member.write(bytes(1 << 20))  # 16 MiB of zeros, 16 KB compressed
        archive.writestr("good.txt", sample)
    with tarfile.open(tmp_path / "paths.tar.gz", "w:gz") as archive:
        for name in ("../up.pgn", "/abs.pgn", "in.txt"):
            info = tarfile.TarInfo(name)
            info.size = len(sample)
            archive.addfile(info, io.BytesIO(sample))
    code, output = run("validate", str(tmp_path / "bomb.zip"), str(tmp_path / "paths.tar.gz"))
    assert code == 1
    lines = [line.removeprefix(f"{tmp_path}/") for line in output.splitlines()]
    assert lines[0].startswith("bomb.zip:bomb.pgn: refused: compressed 1,0")
    assert lines[1:3] == [
        "paths.tar.gz:../up.pgn: its path is absolute or climbs out of the archive: refused, not read",
        "paths.tar.gz:/abs.pgn: its path is absolute or climbs out of the archive: refused, not read",
    ]
    assert lines[3] == f"paths.tar.gz:in.txt, game 1: duplicate of {tmp_path}/bomb.zip:good.txt, game 1"
    assert lines[-1] == "5 files, 3 games: 3 valid, 0 invalid, 223 moves; 3 not read, 3 duplicates"


def test_validate_reads_gz_files_and_utf16(tmp_path: Path, togyz_examples: Path) -> None:
    (tmp_path / "games.txt.gz").write_bytes(gzip.compress((togyz_examples / "compact.txt").read_bytes()))
    text = (togyz_examples / "app-export.pgn").read_text(encoding="utf-8-sig")
    (tmp_path / "app-utf16.pgn").write_bytes(text.encode("utf-16"))
    code, output = run("validate", str(tmp_path))
    assert (code, output) == (0, "2 files, 5 games: 5 valid, 0 invalid, 399 moves\n")
    plain = run("validate", str(togyz_examples / "compact.txt"), str(togyz_examples / "app-export.pgn"))
    assert plain == (code, output)


def test_validate_and_analyze_say_when_there_is_no_game(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "empty.zip", "w") as archive:
        archive.writestr("notes.png", b"\x89PNG")
    result = CliRunner().invoke(main, ["validate", str(tmp_path / "empty.zip")])
    assert result.exit_code == 1
    assert result.stdout == f"{tmp_path}/empty.zip: no game record file in this archive\n" + (
        "1 file, 0 games: 0 valid, 0 invalid; 1 not read\n"
    )
    assert result.stderr == f"error: no game found under {tmp_path}/empty.zip\n"

    (tmp_path / "matches").mkdir()
    shutil.copy(EXAMPLES / "backgammon" / "galaxy-6800849.txt", tmp_path / "matches" / "match.mat")
    result = CliRunner().invoke(
        main,
        [
            "analyze",
            str(tmp_path / "matches"),
            "--game",
            "togyz",
            "--out",
            str(tmp_path / "out"),
            "--jobs",
            "1",
        ],
    )
    assert result.exit_code == 1
    assert "match.mat: 4 games skipped: a backgammon game; this run analyses togyz" in result.stderr
    assert result.stderr.endswith(f"error: no togyz game to analyse under {tmp_path}/matches\n")


def test_analyze_takes_the_only_game_of_the_archive(tmp_path: Path, togyz_examples: Path) -> None:
    # without --game: a folder of backgammon matches is analysed as backgammon, one of both games as Togyz
    matches = tmp_path / "matches"
    matches.mkdir()
    shutil.copy(EXAMPLES / "backgammon" / "galaxy-6800849.txt", matches / "match.mat")
    out = tmp_path / "out"
    result = CliRunner().invoke(
        main, ["analyze", str(matches), "--out", str(out), "--depth", "0", "--jobs", "1"]
    )
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["settings"]["game"] == "backgammon" and manifest["counts"]["ok"] == 4
    shutil.copy(togyz_examples / "compact.txt", matches / "compact.txt")
    mixed = CliRunner().invoke(
        main, ["analyze", str(matches), "--out", str(tmp_path / "mixed"), "--depth", "1", "--jobs", "1"]
    )
    assert mixed.exit_code == 0, mixed.output
    assert "match.mat: 4 games skipped: a backgammon game; this run analyses togyz" in mixed.stderr


def test_analyze_counts_an_invalid_backgammon_match_as_invalid(tmp_path: Path, togyz_examples: Path) -> None:
    match = (EXAMPLES / "backgammon" / "galaxy-6800849.txt").read_text()
    (tmp_path / "bad.mat").write_text(match.replace("13/9 13/10", "13/9 13/x", 1))
    shutil.copy(togyz_examples / "compact.txt", tmp_path / "compact.txt")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["analyze", str(tmp_path), "--out", str(out), "--depth", "1", "--json"])
    assert result.exit_code == 1
    counts = json.loads(result.stdout)
    assert (counts["games"], counts["ok"], counts["invalid"]) == (4, 3, 1)
    assert "bad.mat: 3 games skipped: a backgammon game; this run analyses togyz" in result.stderr
    bad = f"{tmp_path}/bad.mat, game 1: invalid: line 18, column 15: move 1: bad segment '13/x'"
    assert bad in result.stderr
    validate = CliRunner().invoke(main, ["validate", str(tmp_path / "bad.mat")])
    assert validate.exit_code == 1 and "1 invalid" in validate.stdout


def test_annotate_of_nothing_to_annotate_exits_1_with_one_line(tmp_path: Path) -> None:
    """Issue 54, item 7: an empty folder, a Go SGF, an empty or binary .pgn, a text of no game: each input
    said once, then one error line, exit 1 (as validate's no game); a game annotated among them is exit 0."""
    (tmp_path / "empty").mkdir()
    inputs = {
        "go.sgf": b"(;GM[1]FF[4]SZ[19];B[pd];W[dp])",
        "empty.pgn": b"",
        "binary.pgn": bytes(range(256)),
        "prose.pgn": b"Hello, no game here.\n",
    }
    for name, data in inputs.items():
        (tmp_path / name).write_bytes(data)
    for name in ["empty", *inputs]:
        path = str(tmp_path / name)
        result = CliRunner().invoke(main, ["annotate", path, "--depth", "1"])
        assert result.exit_code == 1, (name, result.output)
        assert result.stdout == ""
        note, error = result.stderr.splitlines()
        assert note.startswith(path) and error == f"error: no game annotated under {path}"
        assert "Traceback" not in result.output
    (tmp_path / "one.pgn").write_text(ONE_PLY_GAME)
    result = CliRunner().invoke(main, ["annotate", str(tmp_path / "one.pgn"), str(tmp_path / "go.sgf")])
    assert result.exit_code == 0 and "error:" not in result.stderr


def test_a_togyz_match_interval_is_wilson_s_and_none_below_ten_games() -> None:
    """Issue 54, item 11: 2 games won give no interval (not "100.0% +- 0.0%", nor a finite Elo); 10 won
    give Wilson's interval, below 100% and above 72%, and an Elo bounded below only."""
    from taldau.measure.agreement import wilson_interval
    from taldau.measure.togyz.match import TogyzMatchResult

    two = TogyzMatchResult(2, 0, 0)
    assert two.interval is None and two.to_json()["interval"] is None
    assert str(two) == "2 games: +2 =0 -0, score 100.0% (no interval below 10 games), Elo +inf"
    ten = TogyzMatchResult(10, 0, 0)
    assert ten.interval == wilson_interval(10, 10) and ten.interval[0] == pytest.approx(0.7225, abs=1e-4)
    assert str(ten).endswith("score 100.0% [72.2%, 100.0%], Elo +inf [+166, +inf]")
    drawn = TogyzMatchResult(3, 4, 3)
    assert drawn.interval == wilson_interval(5, 10) and "Elo +0 [" in str(drawn)
    code, output = run_stdout("match", "--openings", "1", "--depth", "1", "--jobs", "1")
    assert code == 0 and "no interval below 10 games" in output and "+- 0.0%" not in output


def test_a_backgammon_match_of_two_games_says_it_has_no_margin() -> None:
    """Issue 54, item 11: the margin the docs promise is said to be missing, and why, rather than left out."""
    args = ["--games", "2", "--a", "own:0", "--b", "own:0", "--judge", "none", "--jobs", "1"]
    code, output = run_stdout("match", "--game", "backgammon", *args)
    assert code == 0 and "points per game for A over 2 games (no margin below 10 games)" in output
