"""Record files as a user's folder holds them (issue 54, items 8, 9 and 12): headers read in any case, under
one spelling, and an app's ``Start`` read as the date; names without the blanks around them; PGN's escapes
decoded; files that are not records (notes, READMEs, backups, a Go SGF) listed as such, counted and never
judged as games; a ``.gz`` that is not gzip named as such."""

from __future__ import annotations

import datetime
import gzip
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import EXAMPLES
from taldau.analysis.validation import Summary, check_paths
from taldau.base.records import ReadLimits
from taldau.cli.main import main
from taldau.games.backgammon.kind import BackgammonKind
from taldau.games.backgammon.records.readers import read_match_records
from taldau.games.togyz import read_games, write_playok
from taldau.games.togyz.kind import TogyzKind
from taldau.games.togyz.records import NO_GAME_TEXT
from taldau.schemas.games import GameRow, Status

ONE_PLY_GAME = '[Event "one"]\n[White "w"]\n[Black "b"]\n\n1. 87(10) *\n'
PROSE = "Notes from the club evening.\nBring your own boards; we start at seven.\n"
GO_SGF = "(;GM[1]FF[4]SZ[19]PW[Lee]PB[Cho];B[pd];W[dp];B[pp])\n"


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def togyz_row(text: str) -> dict[str, object]:
    """The ``games`` row of the first game of a Togyz record's text."""
    kind = TogyzKind()
    facts = kind.facts(next(iter(read_games(text.encode(), "t.pgn"))))
    row = GameRow("id", "togyz", facts.source, facts.index, Status.OK, "", headers=facts.headers)
    return row.columns()


# --- item 8: headers by case ----------------------------------------------------------------------------


def test_the_app_exports_ratings_and_start_are_read_as_ratings_and_date() -> None:
    text = (EXAMPLES / "togyz" / "app-export.pgn").read_text(encoding="utf-8-sig")
    game = next(iter(read_games(text.encode(), "app-export.pgn")))
    headers = game.record.headers
    assert (headers["WhiteElo"], headers["BlackElo"]) == ("1185", "1183")
    assert headers["Date"] == "2024.12.26 13:46:35"
    assert not {"WhiteELO", "BlackELO", "Start"} & set(headers)
    opening = TogyzKind().opening(game, 4)
    assert opening.ratings == (1185.0, 1183.0)
    assert opening.date == datetime.date(2024, 12, 26)
    row = togyz_row(text)
    assert (row["white_elo"], row["black_elo"], row["date"]) == ("1185", "1183", "2024.12.26 13:46:35")


def test_any_case_of_a_known_tag_is_that_tag_and_unknown_tags_keep_their_spelling() -> None:
    text = '[white "a"]\n[BLACK "b"]\n[result "1-0"]\n[whiteelo "1500"]\n[MyTag "x"]\n\n1. 87(10) 1-0\n'
    (game,) = read_games(text.encode(), "t.pgn")
    expected = {"White": "a", "Black": "b", "Result": "1-0", "WhiteElo": "1500", "MyTag": "x"}
    assert game.record.headers == expected
    assert TogyzKind().facts(game).players == ("a", "b")


def test_a_start_beside_a_date_stays_as_written() -> None:
    text = '[Start "2024.12.26 13:46:35"]\n[Date "2024.12.27"]\n[White "a"]\n\n1. 87(10) *\n'
    (game,) = read_games(text.encode(), "t.pgn")
    headers = game.record.headers
    assert (headers["Date"], headers["Start"]) == ("2024.12.27", "2024.12.26 13:46:35")


def test_jellyfish_headers_are_read_in_any_case() -> None:
    text = (EXAMPLES / "backgammon" / "galaxy-6800849.txt").read_text(encoding="utf-8")
    text = text.replace("; [Player 1 Elo", "; [PLAYER 1 ELO").replace("; [EventDate", "; [eventdate")
    text = text.replace("; [Player 2 ", "; [player 2 ")
    (match,) = read_match_records(text.encode(), "galaxy.txt")
    assert match.players == ("lasse", "simon_haag")
    assert {"Player 1 Elo", "EventDate", "Player 2"} <= set(match.headers)
    game = next(iter(BackgammonKind().read_games(text.encode(), "galaxy.txt")))
    opening = BackgammonKind().opening(game, 2)
    assert opening.ratings == (3.0, 2.0) and opening.date == datetime.date(2024, 3, 30)


# --- item 12: escapes and blanks in names ----------------------------------------------------------------


def test_pgn_escapes_are_decoded_and_written_back() -> None:
    text = '[White "Zh. \\"Ak\\" \\\\ Beisen"]\n[Black "b\\\\"]\n\n1. 87(10) *\n'
    (game,) = read_games(text.encode(), "t.pgn")
    assert game.record.headers["White"] == 'Zh. "Ak" \\ Beisen'
    assert game.record.headers["Black"] == "b\\"
    (again,) = read_games(write_playok(game).encode(), "written.pgn")
    assert again.record.headers == game.record.headers


def test_names_are_read_without_the_blanks_around_them() -> None:
    text = '[White "  abeke93 "]\n[Black "\tmaks95  "]\n\n1. 87(10) *\n'
    (game,) = read_games(text.encode(), "t.pgn")
    assert TogyzKind().facts(game).players == ("abeke93", "maks95")
    assert (game.record.headers["White"], game.record.headers["Black"]) == ("abeke93", "maks95")

    jellyfish = (EXAMPLES / "backgammon" / "galaxy-6800849.txt").read_text(encoding="utf-8")
    jellyfish = jellyfish.replace('"lasse"', '"  lasse "')
    (match,) = read_match_records(jellyfish.encode(), "galaxy.txt")
    assert match.players[0] == "lasse" and match.headers["Player 1"] == "lasse"

    sgf = (EXAMPLES / "backgammon" / "gnubg-galaxy-8170603.sgf").read_text(encoding="utf-8")
    sgf = sgf.replace("PW[lasse]", "PW[ lasse  ]")
    match = read_match_records(sgf.encode(), "m.sgf")[0]
    assert match.players[0] == "lasse" and match.headers["Player 1"] == "lasse"


# --- items 9 and 12: files that are not records -----------------------------------------------------------


def record_folder(tmp_path: Path) -> Path:
    """A record folder as users keep one: two games, beside notes, a README, a backup, a Go game and files
    with no extension (one a game, one not)."""
    folder = tmp_path / "records"
    folder.mkdir()
    shutil.copy(EXAMPLES / "togyz" / "app-export.pgn", folder / "games.pgn")
    (folder / "notes.txt").write_text(PROSE)
    (folder / "README.md").write_text("# My games\n\n1. 87(10) 87(10) is how PlayOK writes a move.\n")
    shutil.copy(folder / "games.pgn", folder / "games.pgn.bak")
    (folder / "go.sgf").write_text(GO_SGF)
    (folder / "one").write_text(ONE_PLY_GAME)
    (folder / "TODO").write_text("print the scoresheets\n")
    return folder


def test_files_that_are_not_records_are_listed_counted_and_never_judged(tmp_path: Path) -> None:
    folder = record_folder(tmp_path)
    result = invoke("validate", str(folder))
    lines = result.stdout.splitlines()
    assert result.exit_code == 0, result.output
    assert lines[-1] == "7 files, 3 games: 3 valid, 0 invalid, 177 moves; 5 not records"
    assert f"{folder}/README.md: a .md file, not a record: skipped" in lines
    assert f"{folder}/games.pgn.bak: a .bak file, not a record: skipped" in lines
    assert f"{folder}/notes.txt: {NO_GAME_TEXT}" in lines
    assert f"{folder}/TODO: {NO_GAME_TEXT}" in lines
    assert f"{folder}/go.sgf: a Go SGF (GM[1]), not a game taldau reads" in lines

    summary = json.loads(invoke("validate", "--json", str(folder)).stdout)["summary"]
    assert (summary["files"], summary["games"], summary["not_records"], summary["invalid"]) == (7, 3, 5, 0)


def test_a_txt_that_looks_like_a_record_but_is_broken_is_an_invalid_game(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text(PROSE)
    (tmp_path / "broken.txt").write_text('[White "a"]\n[Black "b"]\n\n1. 87(10) 99(10) *\n')
    result = invoke("validate", str(tmp_path))
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-1] == "2 files, 1 game: 0 valid, 1 invalid, 2 moves; 1 not a record"


def test_prose_with_a_number_or_two_is_no_game_but_moves_without_numbers_are(tmp_path: Path) -> None:
    limits = ReadLimits()
    (tmp_path / "a.txt").write_text("Meeting at 10 with 2 players, bring 3 boards\n")
    (tmp_path / "b.txt").write_text("87 55 76 34\n")
    (tmp_path / "c.txt").write_text("87 55 7z 34\n")
    checks = {Path(check.source).name: check for check in check_paths([tmp_path], limits)}
    assert checks["a.txt"].index == 0
    assert checks["b.txt"].index == 1 and checks["b.txt"].valid
    assert checks["c.txt"].index == 1 and not checks["c.txt"].valid


def test_a_folder_of_only_notes_finds_no_game(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text(PROSE)
    (tmp_path / "README.md").write_text("# nothing here\n")
    result = invoke("validate", str(tmp_path))
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-1] == "2 files, 0 games: 0 valid, 0 invalid; 2 not records"
    assert result.stderr == f"error: no game found under {tmp_path}\n"


def test_analyze_lists_and_counts_notes_and_judges_none(tmp_path: Path) -> None:
    folder = tmp_path / "records"
    folder.mkdir()
    (folder / "one.pgn").write_text(ONE_PLY_GAME)
    (folder / "notes.txt").write_text(PROSE)
    (folder / "README.md").write_text("# My games\n")
    out = tmp_path / "out"
    result = invoke("analyze", str(folder), "--out", str(out), "--depth", "1", "--jobs", "1")
    # its exit code is cli/service.py's sum, which still counts files that are not records as problems
    assert f"{folder}/notes.txt: {NO_GAME_TEXT}" in result.stderr
    assert f"{folder}/README.md: a .md file, not a record: skipped" in result.stderr
    assert "3 files, 1 game: 1 analysed, 0 invalid, 0 failed, 1 decision; 2 not records" in result.stdout
    inputs = json.loads((out / "manifest.json").read_text())["inputs"]
    assert (inputs["files"], inputs["not_records"], inputs["invalid"]) == (3, 2, 0)


def test_a_go_sgf_alone_is_not_a_record(tmp_path: Path) -> None:
    (tmp_path / "go.sgf").write_text(GO_SGF)
    checks = list(check_paths([tmp_path / "go.sgf"], ReadLimits()))
    assert [(check.index, check.errors[0].message) for check in checks] == [
        (0, "a Go SGF (GM[1]), not a game taldau reads")
    ]
    summary = Summary()
    summary.add(checks[0])
    assert summary.inputs.not_records == 1 and summary.inputs.problems == 0


def test_a_gz_that_is_not_gzip_is_said_so(tmp_path: Path) -> None:
    (tmp_path / "games.pgn.gz").write_text(ONE_PLY_GAME)
    (tmp_path / "real.pgn.gz").write_bytes(gzip.compress(ONE_PLY_GAME.encode()))
    result = invoke("validate", str(tmp_path))
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert lines == [
        f"{tmp_path}/games.pgn.gz: not gzip data (its name ends in .gz): not read",
        "2 files, 1 game: 1 valid, 0 invalid, 1 move; 1 not read",
    ]


@pytest.mark.parametrize("name", ["x.md", "x.pgn.bak", "x.docx"])
def test_a_file_given_by_name_is_read_whatever_its_name(tmp_path: Path, name: str) -> None:
    (tmp_path / name).write_text(ONE_PLY_GAME)
    result = invoke("validate", str(tmp_path / name))
    assert result.exit_code == 0 and result.stdout == "1 file, 1 game: 1 valid, 0 invalid, 1 move\n"
