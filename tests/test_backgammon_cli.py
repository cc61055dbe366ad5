"""The ``taldau`` command line on backgammon: validate (match files, alone and beside Togyz records), show
(gnubg Position ID, GNUbgID, XGID), plays (text, --json, --batch; ranked with --depth), eval, match --game
backgammon and bench speed --game backgammon. The ranked answers come from gnubg-nn (skipped without it) and
are checked against gnubg-nn's own numbers.

Expected results of the match file come from GNU Backgammon's own reading of it
(tests/data/backgammon/gnubg/results.json); expected plays are the 16 ways to play an opening 31."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import EXAMPLES, SHARED_DATA
from taldau.cli.main import main
from taldau.games.backgammon.engine import PROBABILITIES
from taldau.games.backgammon.engine.gnubg import gnubg_available, load_gnubg
from taldau.games.backgammon.rules.board import start_board
from taldau.games.backgammon.rules.position import Position

GNUBG = Path(__file__).resolve().parent / "data" / "backgammon" / "gnubg"
MATCH = GNUBG / "galaxy-6800849.mat"  # gnubg's export of bglab's lasse/match6800849.txt, a 3-point match
BGLAB_MATCH = SHARED_DATA / "backgammon" / "bglab" / "lasse" / "match6800849.txt"
START_ID = "4HPwATDgc/ABMA"
START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:7:10"

# The 16 plays of an opening 31 with the Position ID after each, seen from the next player's side.
OPENING_31 = {
    "24/23 24/21": "4HPwARLgc/ABMA",
    "24/20": "4HPwASHgc/ABMA",
    "24/21 8/7": "4GvwASLgc/ABMA",
    "24/21 6/5": "0HPwASLgc/ABMA",
    "24/23 13/10": "4HPiASjgc/ABMA",
    "13/9": "4HPhATDgc/ABMA",
    "13/10 8/7": "4GviATDgc/ABMA",
    "13/10 6/5": "0HPiATDgc/ABMA",
    "24/23 8/5": "0GfwASjgc/ABMA",
    "8/7 8/5": "0FfwATDgc/ABMA",
    "8/5 6/5": "sGfwATDgc/ABMA",
    "8/4": "yGfwATDgc/ABMA",
    "24/23 6/3": "xHPwASjgc/ABMA",
    "8/7 6/3": "xGvwATDgc/ABMA",
    "6/5 6/3": "pHPwATDgc/ABMA",
    "6/2": "wnPwATDgc/ABMA",
}


def run(*args: str) -> tuple[int, str]:
    """Exit code and output (stdout and stderr together) of ``taldau ARGS``."""
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def train(stage: str, out: Path, **options: object) -> tuple[int, str]:
    """Exit code and output of ``taldau train --stage STAGE --out OUT`` with each of ``options`` as
    ``--name value`` (underscores written as dashes; a tuple gives several words)."""
    words = ["train", "--stage", stage, "--out", str(out)]
    for name, value in options.items():
        words += [f"--{name.replace('_', '-')}", *map(str, value if isinstance(value, tuple) else (value,))]
    return run(*words)


def run_json(*args: str) -> Any:
    """The one JSON document ``taldau ARGS`` prints on stdout (progress goes to stderr); the command must
    succeed."""
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def game_results(report: dict[str, Any]) -> list[tuple[Any, ...]]:
    """Per backgammon game of a ``validate --json`` report: winner (counted from 0, as every side), winner's
    name, points, value, cube, termination and score before the game."""
    return [
        (g["winner"], g["winner_name"], g["points"], g["value"], g["cube"], g["termination"], g["score"])
        for g in report["games"]
        if g["game"] == "backgammon"
    ]


# gnubg: lasse wins a dropped double, then a single game; simon_haag a gammon in the Crawford game; lasse wins
GALAXY_RESULTS = [
    (0, "lasse", 1, None, 1, "dropped", [0, 0]),
    (0, "lasse", 1, "single", 1, "borne off", [1, 0]),
    (1, "simon_haag", 2, "gammon", 1, "borne off", [2, 0]),
    (0, "lasse", 1, "single", 1, "borne off", [2, 2]),
]


def all_valid(games: int, plies: int, files: int) -> dict[str, int]:
    """The summary of ``taldau validate --json`` over ``files`` files of ``games`` games, all valid, and
    nothing else."""
    nothing = ("invalid", "not_records", "not_read", "duplicates", "other_game")
    return {"games": games, "valid": games, "plies": plies, "files": files} | dict.fromkeys(nothing, 0)


def listed_plays(output: str) -> dict[str, str]:
    """The plays ``taldau plays`` lists, one a line (the move padded to a column, then the result): move ->
    resulting Position ID."""
    return dict(line.rsplit(maxsplit=1) for line in output.splitlines())


def drawing(*args: str) -> list[str]:
    """The lines of ``taldau show ARGS``, which must succeed."""
    code, output = run("show", *args)
    assert code == 0, output
    return output.splitlines()


# --- validate


def test_validate_json_of_a_match_file() -> None:
    report = run_json("validate", "--json", str(MATCH))
    assert report["summary"] == all_valid(games=4, plies=179, files=1)
    assert game_results(report) == GALAXY_RESULTS
    first = report["games"][0]
    assert {key: first[key] for key in ("source", "index", "game", "format", "players", "match_length")} == {
        "source": str(MATCH),
        "index": 1,
        "game": "backgammon",
        "format": "jellyfish",
        "players": ["lasse", "simon_haag"],
        "match_length": 3,
    }
    assert [(game["result"], game["errors"]) for game in report["games"]] == [
        ("1-0", []),
        ("1-0", []),
        ("0-2", []),
        ("1-0", []),
    ]


def test_validate_the_original_bglab_file_like_gnubgs_export(tmp_path: Path) -> None:
    if not BGLAB_MATCH.exists():
        pytest.skip(f"real matches not found at {BGLAB_MATCH} (they live in ../shared/data)")
    shutil.copy(BGLAB_MATCH, tmp_path / "match6800849.txt")
    report = run_json("validate", "--json", str(tmp_path / "match6800849.txt"))
    assert report["summary"]["invalid"] == 0
    assert game_results(report) == GALAXY_RESULTS


def test_validate_reports_an_illegal_move(tmp_path: Path) -> None:
    lines = MATCH.read_text().splitlines(keepends=True)
    assert lines[91].startswith("  3) 63: 24/21 11/5") and "63: 13/7 7/4*" in lines[91]
    lines[91] = lines[91].replace("13/7 7/4*", "24/18 18/15")  # game 4: player 2 has left the 24-point
    bad = tmp_path / "bad.mat"
    bad.write_text("".join(lines))
    code, output = run("validate", str(bad))
    assert code == 1
    error = "line 92, column 34: move 3: 24/18: no checker of player 2 on 24"
    assert output.splitlines() == [
        f"{bad}, game 4 (lasse vs simon_haag): {error}",
        "1 file, 4 games: 3 valid, 1 invalid, 141 rolls",
    ]
    code, output = run("validate", "--json", str(bad))
    assert code == 1
    report = json.loads(output)
    broken = report["games"][3]
    assert (broken["index"], broken["winner"], broken["termination"]) == (4, None, "unfinished")
    assert broken["errors"] == [
        {"line": 92, "column": 34, "message": "move 3: 24/18: no checker of player 2 on 24"}
    ]


def test_validate_a_directory_of_togyz_and_backgammon(tmp_path: Path) -> None:
    shutil.copy(EXAMPLES / "togyz" / "compact.txt", tmp_path / "togyz.txt")
    shutil.copy(MATCH, tmp_path / "backgammon.mat")
    report = run_json("validate", "--json", str(tmp_path))
    assert report["summary"] == all_valid(games=7, plies=402, files=2)
    kinds = {(Path(g["source"]).name, g["game"], g["format"]) for g in report["games"]}
    assert kinds == {("togyz.txt", "togyz", "compact"), ("backgammon.mat", "backgammon", "jellyfish")}
    assert game_results(report) == GALAXY_RESULTS
    code, output = run("validate", str(tmp_path))
    assert code == 0
    assert output == "2 files, 7 games: 7 valid, 0 invalid, 179 backgammon rolls, 223 togyz moves\n"


# --- show


def test_show_a_position_id() -> None:
    lines = drawing(START_ID)
    assert lines[0] == " +13-14-15-16-17-18-+---+19-20-21-22-23-24-+"
    assert lines[1] == " | X           O    |   | O              X |"
    assert lines[11] == " | O           X    |   | X              O |"
    assert lines[-3:] == [
        " X = player 1 (on roll): pips 167, off 0",
        " O = player 2: pips 167, off 0",
        " Position ID: 4HPwATDgc/ABMA",
    ]


def test_show_a_gnubg_id() -> None:
    lines = drawing("224DAgKY58EBYA:UQk3AgAACAAE")  # a 17-point match read by gnubg 1.07
    assert lines[11] == " | O           X    | 2 | X  O  X          |"  # two of X's checkers on the bar
    assert lines[-6:] == [
        " X = player 2 (on roll): pips 153, off 0",
        " O = player 1: pips 79, off 0",
        " Dice: 65",
        " Cube: 2, owned by player 2",
        " Score: 0-1 (17-point match)",
        " Position ID: 224DAgKY58EBYA",
    ]


def test_show_an_xgid() -> None:
    assert drawing(START_XGID)[-5:] == [
        " X = player 2 (on roll): pips 167, off 0",
        " O = player 1: pips 167, off 0",
        " Cube: 1, centred",
        " Score: 0-0 (7-point match)",
        " Position ID: 4HPwATDgc/ABMA",
    ]
    crawford = drawing("XGID=-b----E-C---eE---c-e----B-:0:0:-1:54:0:2:1:3:10")
    assert crawford[-4:] == [
        " Dice: 54",
        " Cube: 1, centred",
        " Score: 2-0 (3-point match, Crawford game)",
        " Position ID: 4HPwATDgc/ABMA",
    ]


@pytest.mark.parametrize(
    ("position", "message"),
    [
        ("4HPwATDgc/ABMx", "position ID '4HPwATDgc/ABMx' has bits set after its last byte"),
        (f"{START_ID}:////////////", "match ID '////////////' has bits set after bit 66"),
        ("XGID=bad", "XGID 'XGID=bad' has 1 fields, expected 10"),
    ],
)
def test_show_a_bad_position_exits_2(position: str, message: str) -> None:
    code, output = run("show", position)
    assert code == 2
    assert message in output


# --- plays


def test_plays_of_the_opening_31() -> None:
    code, output = run("plays", START_ID, "31")
    assert code == 0
    assert listed_plays(output) == OPENING_31
    assert listed_plays(output)["8/5 6/5"] == "sGfwATDgc/ABMA"


def test_plays_json() -> None:
    payload = run_json("plays", "--json", START_ID, "31")
    assert set(payload) == {"position", "dice", "plays"}
    assert (payload["position"], payload["dice"]) == (START_ID, "31")
    assert all(set(play) == {"move", "result"} for play in payload["plays"])
    assert {play["move"]: play["result"] for play in payload["plays"]} == OPENING_31
    assert len(payload["plays"]) == 16


def test_plays_against_a_closed_board() -> None:
    # XG's bottom player on roll, one checker on the bar and three on 13; the top player holds its 1..6 points
    closed = "XGID=-------------C-----bbbbbbA:0:0:1:00:0:0:0:0:10"
    payload = run_json("plays", "--json", closed, "63")
    assert payload["plays"] == [{"move": "", "result": "AHAAaNs2AAAAAA"}]
    code, output = run("plays", closed, "63")
    assert code == 0 and output.rsplit(maxsplit=1) == ["(no move)", "AHAAaNs2AAAAAA"]


def test_plays_batch(tmp_path: Path) -> None:
    batch = tmp_path / "positions.txt"
    batch.write_text(f"{START_ID} 31\n\nnonsense 31\n{START_ID} 77\n{START_XGID} 66\n{START_ID}\n")
    code, output = run("plays", "--batch", str(batch))
    assert code == 1
    answers = [json.loads(line) for line in output.splitlines()]
    assert len(answers) == 5  # the empty line gets no answer
    assert {play["move"]: play["result"] for play in answers[0]["plays"]} == OPENING_31
    assert answers[1] == {
        "line": 3,
        "input": "nonsense 31",
        "error": "position ID 'nonsense' has 8 characters, expected 14",
    }
    assert answers[2]["line"] == 4 and "dice must be two digits 1..6" in answers[2]["error"]
    assert answers[3]["dice"] == "66" and len(answers[3]["plays"]) == 11
    assert answers[4] == {"line": 6, "input": START_ID, "error": "expected 'POSITION_ID DICE'"}


def test_plays_batch_answers_a_line_that_is_not_utf8_and_the_rest(tmp_path: Path) -> None:
    """Issue 54, item 6: one byte that is not UTF-8 gets its error line, the lines around it their plays
    (it ended the batch in a traceback, with no line answered)."""
    batch = tmp_path / "positions.txt"
    batch.write_bytes(f"{START_ID} 31\n".encode() + b"\xff 31\n" + f"{START_ID} 65\n".encode())
    for source in (str(batch), "-"):
        result = CliRunner().invoke(main, ["plays", "--batch", source], input=batch.read_bytes())
        assert result.exit_code == 1 and "Traceback" not in result.output
        first, bad, last = (json.loads(line) for line in result.stdout.splitlines())
        assert len(first["plays"]) == 16 and len(last["plays"]) == 7
        assert bad == {"line": 2, "input": "\ufffd 31", "error": "not UTF-8 text: invalid start byte"}


@pytest.mark.parametrize("command", [["eval", START_ID], ["plays", START_ID, "31"]])
def test_the_plies_offered_are_those_the_engines_search(command: list[str]) -> None:
    """Issue 54, item 6: eval offered --depth 0 to 4 and plays too, and every engine stops at 3: --depth 4
    ended in a traceback; now both refuse it as analyze and the other commands do (0 to 3)."""
    for engine in ("own", "sage"):
        result = CliRunner().invoke(main, [*command, "--depth", "4", "--engine", engine])
        assert result.exit_code == 2 and "Traceback" not in result.output
        assert "'--depth' / '--plies': 4 is not in the range 0<=x<=3" in result.output
    help_text = CliRunner().invoke(main, [command[0], "--help"]).output
    assert "0<=x<=3" in help_text and "0<=x<=4" not in help_text


def test_plays_batch_of_good_lines_exits_0(tmp_path: Path) -> None:
    batch = tmp_path / "positions.txt"
    batch.write_text(f"{START_ID} 31\n{START_ID} 6-5\n")
    code, output = run("plays", "--batch", str(batch))
    assert code == 0
    first, second = (json.loads(line) for line in output.splitlines())
    assert len(first["plays"]) == 16 and len(second["plays"]) == 7


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((START_ID, "71"), "dice must be two digits 1..6 such as 31, not '71'"),
        (("nonsense", "31"), "position ID 'nonsense' has 8 characters"),
        ((START_ID,), "give POSITION and DICE, or --batch FILE"),
    ],
)
def test_plays_usage_errors_exit_2(args: tuple[str, ...], message: str) -> None:
    code, output = run("plays", *args)
    assert code == 2 and message in output


# --- bench


BENCH_KEYS = {"turns", "plays", "seconds", "turns_per_second", "api_turns", "api_turns_per_second"}
GNUBG_BENCH_KEYS = {"gnubg_turns_per_second", "gnubg_count_mismatches"}  # None unless gnubg_nn is installed


@pytest.mark.slow
def test_bench_backgammon_json() -> None:
    result = run_json("bench", "speed", "--game", "backgammon", "--decisions", "5", "--json")
    engine = result.pop("engine")
    assert BENCH_KEYS <= set(result) <= BENCH_KEYS | GNUBG_BENCH_KEYS
    assert all(isinstance(result[key], int | float) and result[key] > 0 for key in BENCH_KEYS)
    assert result["turns"] == 20 * result["api_turns"]  # the fixed position set, 20 times in the core
    assert result["plays"] > result["turns"]
    if result.get("gnubg_turns_per_second") is not None:
        assert result["gnubg_turns_per_second"] > 0 and result["gnubg_count_mismatches"] >= 0
    assert engine["engine"] == "own" and engine["decisions"] == 5
    assert engine["evaluations_per_second"] > 0 and set(engine["analyse_seconds_per_decision"]) == {
        "0-ply",
        "2-ply",
        "2-ply 8/0.16",
    }
    ratio = engine["time_against_gnubg_2ply"]
    assert (ratio is None) == (result.get("gnubg_turns_per_second") is None) and (ratio is None or ratio > 0)


def test_analyze_skips_backgammon_and_analyses_togyz(tmp_path: Path) -> None:
    """A Togyz run (the default game) lists a match file's games as skipped (grouped per file on stderr
    and in the manifest: `--game backgammon` analyses them), analyses the Togyz games beside it and exits
    0."""
    archive = tmp_path / "archive"
    archive.mkdir()
    shutil.copy(MATCH, archive / "match.mat")
    (archive / "game.txt").write_text("95857232999\n")
    out = tmp_path / "out"
    result = CliRunner().invoke(
        main, ["analyze", str(archive), "--out", str(out), "--depth", "2", "--jobs", "1"]
    )
    assert result.exit_code == 0, result.output
    assert "match.mat: 4 games skipped: a backgammon game; this run analyses togyz" in result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"]["games"] == 1 and manifest["counts"]["ok"] == 1
    assert [(item["index"], item["reason"]) for item in manifest["skipped"]] == [
        (index, "a backgammon game; this run analyses togyz") for index in (1, 2, 3, 4)
    ]
    refused = CliRunner().invoke(main, ["analyze", str(archive), "--out", str(out), "--game", "backgammon"])
    assert refused.exit_code == 2 and "holds results of other settings" in refused.output
    other = tmp_path / "backgammon"
    both = CliRunner().invoke(
        main,
        ["analyze", str(archive), "--out", str(other), "--game", "backgammon", "--depth", "0", "--jobs", "1"],
    )
    assert both.exit_code == 0, both.output
    assert "4 games: 4 analysed" in both.output
    assert "game.txt: 1 game skipped: a togyz game; this run analyses backgammon" in both.output


@pytest.mark.skipif(not SHARED_DATA.exists(), reason="needs ../shared/data (the bglab matches)")
def test_validate_json_carries_warnings() -> None:
    """Galaxy's non-standard ``Losses N point`` cell is ignored with a warning that names line and move."""
    report = run_json("validate", "--json", str(SHARED_DATA / "backgammon/bglab/lasse/match1004844.txt"))
    assert [game["warnings"] for game in report["games"]] == [
        [],
        [{"line": 58, "column": 35, "message": "move 30: non-standard 'Losses 2 point' ignored"}],
    ]
    assert report["summary"]["invalid"] == 0


# --- eval, plays --depth, match --game backgammon (the engine; gnubg-nn for real numbers)

needs_gnubg = pytest.mark.skipif(
    not gnubg_available(), reason="needs gnubg-nn (pip install 'taldau[gnubg]'), an optional extra"
)


def test_plays_plies_with_an_engine_that_cannot_load_exits_1(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "gnubg_nn", None)  # as if gnubg-nn were not installed
    code, output = run("plays", START_ID, "31", "--depth", "0", "--engine", "gnubg")
    assert code == 1 and "pip install 'taldau[gnubg]'" in output
    code, output = run("eval", START_ID, "--engine", "gnubg")
    assert code == 1 and "pip install 'taldau[gnubg]'" in output


@needs_gnubg
def test_eval_start_with_gnubg() -> None:
    payload = run_json("eval", START_ID, "--engine", "gnubg", "--json")
    expected = load_gnubg().probabilities(start_board().tolist(), 0)
    assert payload["probabilities"] == {
        name: round(value, 6) for name, value in zip(PROBABILITIES, expected, strict=True)
    }
    assert payload["plies"] == 0 and payload["engine"] == "gnubg" and not payload["exact"]
    win, win_gammon, win_backgammon, lose_gammon, lose_backgammon = expected
    equity = 2 * win - 1 + win_gammon - lose_gammon + win_backgammon - lose_backgammon
    assert payload["equity"] == pytest.approx(equity, abs=1e-6)
    code, output = run("eval", START_XGID, "--engine", "gnubg")
    assert code == 0
    assert output.splitlines()[0] == "gnubg 0-ply"
    assert output.splitlines()[1] == f"equity {equity:+.4f}"
    assert output.splitlines()[2].startswith(f"W {win:.3f} WG {win_gammon:.3f}")


@needs_gnubg
def test_eval_of_a_finished_game_is_exact() -> None:
    # row 0 (the side not on roll) has nothing left; the side on roll has 15 checkers on its 6-point
    over = Position(np.array([[0] * 25, [0] * 5 + [15] + [0] * 19])).position_id()
    payload = run_json("eval", over, "--engine", "gnubg", "--depth", "1", "--json")
    assert payload["exact"] and payload["equity"] == -2.0 and payload["probabilities"]["lose_gammon"] == 1.0


@needs_gnubg
def test_plays_ranked_by_gnubg() -> None:
    payload = run_json("plays", START_ID, "31", "--depth", "0", "--engine", "gnubg", "--json")
    assert (payload["position"], payload["dice"], payload["engine"], payload["plies"]) == (
        START_ID,
        "31",
        "gnubg",
        0,
    )
    assert {play["move"]: play["result"] for play in payload["plays"]} == OPENING_31
    assert payload["plays"][0]["move"] == "8/5 6/5" and payload["plays"][0]["difference"] == 0.0
    equities = [play["equity"] for play in payload["plays"]]
    assert equities == sorted(equities, reverse=True)
    assert all(
        play["difference"] == pytest.approx(play["equity"] - equities[0], abs=2e-6)
        for play in payload["plays"]
    )
    code, output = run("plays", START_ID, "31", "--depth", "0", "--engine", "gnubg")
    assert code == 0
    lines = output.splitlines()
    assert lines[0] == "context: money, cube 1 centred, Jacoby"
    assert len(lines) == 17 and lines[1].split()[:2] == ["1.", "8/5"]


@needs_gnubg
def test_plays_batch_ranked_loads_the_engine_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from taldau.cli import backgammon as cli_backgammon

    loaded: list[str] = []
    original = cli_backgammon.choose_evaluator

    def counting(name: str):  # type: ignore[no-untyped-def]
        loaded.append(name)
        return original(name)

    monkeypatch.setattr(cli_backgammon, "choose_evaluator", counting)
    batch = tmp_path / "positions.txt"
    batch.write_text(f"{START_ID} 31\nnonsense 31\n{START_XGID} 65\n")
    code, output = run("plays", "--batch", str(batch), "--depth", "0", "--engine", "gnubg")
    assert code == 1 and loaded == ["gnubg"]
    first, bad, third = (json.loads(line) for line in output.splitlines())
    assert first["plays"][0]["move"] == "8/5 6/5" and len(first["plays"]) == 16
    assert bad["line"] == 2 and "position ID 'nonsense'" in bad["error"]
    assert third["plays"][0]["move"] == "24/13" and len(third["plays"]) == 7


@needs_gnubg
def test_match_backgammon_gnubg_against_itself() -> None:
    payload = run_json(
        "match", "--game", "backgammon", "--a", "gnubg:0", "--b", "gnubg:0", "--games", "2", "--json"
    )
    assert payload["games"] == 2 and payload["points"] == 0 and payload["a_wins"] == payload["b_wins"] == 1
    code, output = run("match", "--game", "backgammon", "--a", "gnubg:0", "--b", "gnubg", "--games", "2")
    report = output.splitlines()[-1]  # after the progress lines (stderr)
    assert code == 0 and report.startswith("gnubg:0 vs gnubg:0: +0.000 points per game for A over 2 games")


def test_match_backgammon_usage_errors() -> None:
    code, output = run("match", "--game", "backgammon", "--games", "3")
    assert code == 2 and "give an even number" in output
    code, output = run("match", "--game", "backgammon", "--a", "xg:1", "--b", "xg:0", "--games", "2")
    assert code == 1 and "unknown backgammon engine 'xg'" in output


# --- train


@pytest.mark.slow
def test_train_td_then_supervised(tmp_path: Path) -> None:
    """`train --stage td` writes a checkpoint that a second run with the same settings resumes (nothing
    left to play: the same weights); `--stage supervised` improves those nets on labelled positions of
    self-play and of a real match and says how the held-out error moved; `--stage prune` adds pruning
    nets fitted to those nets, which it keeps as they are. Options not given take the stage's own
    defaults (the pruning stage's differ from the supervised one's)."""
    from taldau.games.backgammon.engine.weights import load_nets, load_pruning, weights_digest
    from taldau.games.backgammon.training.pruning import PruningSettings
    from taldau.games.backgammon.training.supervised import SupervisedSettings

    checkpoint = tmp_path / "td.npz"
    code, output = train("td", checkpoint, games=20, seed=4)
    assert code == 0, output
    assert f"wrote {checkpoint} after 20 games of self-play" in output
    nets, meta = load_nets(checkpoint)
    assert meta["stage"] == "td" and meta["games_done"] == 20 and meta["settings"]["seed"] == 4
    code, output = train("td", checkpoint, games=20, seed=4)
    assert code == 0 and weights_digest(load_nets(checkpoint)[0]) == weights_digest(nets)
    code, output = train("td", checkpoint, games=20, seed=5)
    assert code == 1 and "other settings" in output
    improved = tmp_path / "supervised.npz"
    match = EXAMPLES / "backgammon" / "galaxy-6800849.txt"
    code, output = train(
        "supervised", improved, start=checkpoint, games=2, matches=match, positions=80, plies=0, epochs=2
    )
    assert code == 0, output
    assert f"wrote {improved}: held-out error" in output
    fitted, meta = load_nets(improved)
    assert meta["stage"] == "supervised" and meta["positions"] == 80 and len(meta["errors"]) == 3
    assert meta["settings"]["rate"] == SupervisedSettings.rate  # not given: the stage's own default
    assert weights_digest(fitted) != weights_digest(nets)
    assert (tmp_path / "supervised.npz.work").is_dir()
    pruned = tmp_path / "pruned.npz"
    code, output = train("prune", pruned, start=improved, games=4, positions=60)
    assert code == 0, output
    assert f"wrote {pruned}: pruning nets' held-out error" in output
    kept, meta = load_nets(pruned)
    assert weights_digest(kept) == weights_digest(fitted)  # the full nets are carried over unchanged
    history = meta["pruning"]["errors"]
    assert meta["stage"] == "supervised" and history[-1][0] < history[0][0]
    assert len(history) == PruningSettings().positions.epochs + 1  # the pruning stage's own default
    pruning = load_pruning(pruned)
    assert pruning is not None and pruning.contact.hidden == 16 and pruning.race.hidden == 8


@pytest.mark.slow
def test_train_supervised_with_candidates_and_rollout_labels(tmp_path: Path) -> None:
    """``--candidates`` adds the results of the best plays of a roll to the positions, ``--rollout`` labels
    them by variance-reduced rollouts, ``--rate`` sets the fit's first learning rate; all are kept in the
    weights file's settings."""
    out = tmp_path / "rolled.npz"
    code, output = train(
        "supervised", out, games=2, positions=30, candidates=2, rollout=(2, 3), epochs=1, rate=0.04
    )
    assert code == 0, output
    from taldau.games.backgammon.engine.weights import load_nets

    _, meta = load_nets(out)
    settings = meta["settings"]
    assert (settings["candidates"], settings["rollout_trials"], settings["rollout_steps"]) == (2, 2, 3)
    assert settings["rate"] == 0.04
    assert [folder.name.split("-")[1] for folder in (tmp_path / "rolled.npz.work").iterdir()] == [
        "rollout2x3"
    ]
    code, output = train("supervised", out, rollout=(0, 3))
    assert code == 2 and "--rollout" in output
