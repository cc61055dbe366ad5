"""Text outside any game never costs a game (issue 42): a title above compact Togyz strings, a note above or
between the games of a real backgammon match, a Togyz record pasted above a match are skipped with one
warning naming their lines; what `validate` calls valid, `analyze` analyses; problems are listed in the
order of the file; a match cut mid-game says so."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from conftest import EXAMPLES
from taldau.analysis.batch import BatchSettings, GameTask, analyse_task, plan
from taldau.base.kind import Limit
from taldau.base.records import ReadLimits
from taldau.cli.main import main
from taldau.schemas import GAMES_SCHEMA

MATCH = EXAMPLES / "backgammon" / "galaxy-6800849.txt"  # a real 3-point match of 4 games (bglab, MIT)
COMPACT = EXAMPLES / "togyz" / "compact.txt"  # 3 real games as compact strings
TITLE = "Quick games (created by a club, 2019)"
NOTE = "Nice game, well played. Break for coffee."


def match_lines() -> list[str]:
    return MATCH.read_text(encoding="utf-8").splitlines()


def with_note_between(lines: list[str]) -> list[str]:
    """The match with a note after the result of its first game."""
    end = next(number for number, line in enumerate(lines) if "Wins" in line)
    return [*lines[: end + 1], "", NOTE, *lines[end + 1 :]]


def validate(*paths: Path) -> list[dict]:
    result = CliRunner().invoke(main, ["validate", "--json", *map(str, paths)])
    return json.loads(result.stdout)["games"]


def write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("where", ["above", "between"])
def test_a_note_in_a_real_match_is_a_warning_and_every_game_is_analysed(tmp_path: Path, where: str) -> None:
    lines = [NOTE, *match_lines()] if where == "above" else with_note_between(match_lines())
    folder = tmp_path / "archive"
    folder.mkdir()
    path = write(folder / "match.txt", lines)
    note_line = lines.index(NOTE) + 1
    games = validate(path)
    assert [game["index"] for game in games] == [1, 2, 3, 4]
    assert all(not game["errors"] for game in games)
    warnings = [warning for game in games for warning in game["warnings"]]
    assert warnings == [
        {
            "line": note_line,
            "column": 1,
            "message": f"text outside any game, skipped: {NOTE[:40]!r}... (41 characters)",
        }
    ]
    assert games[0]["warnings"] == warnings  # the game it stands after (or, above the first, before)
    out = tmp_path / "out"
    result = CliRunner().invoke(
        main, ["analyze", str(folder), "--out", str(out), "--depth", "0", "--jobs", "1", "--json"]
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert (summary["games"], summary["ok"], summary["invalid"], summary["failed"]) == (4, 4, 0, 0)
    rows = pq.read_table(out / "games", schema=GAMES_SCHEMA).to_pylist()
    assert sorted(row["index"] for row in rows) == [1, 2, 3, 4]
    assert {row["status"] for row in rows} == {"ok"}


def test_a_title_line_above_compact_strings_is_one_warning(tmp_path: Path) -> None:
    plain = validate(COMPACT)
    path = write(
        tmp_path / "quick.txt", [TITLE, *COMPACT.read_text(encoding="utf-8").splitlines(), "", "the end"]
    )
    games = validate(path)
    assert len(games) == len(plain) == 3
    assert all(game["format"] == "compact" and not game["errors"] for game in games)
    assert [game["plies"] for game in games] == [game["plies"] for game in plain]
    assert games[0]["warnings"] == [
        {"line": 1, "column": 1, "message": f"text outside any game, skipped: {TITLE!r}"}
    ]
    last = len(COMPACT.read_text(encoding="utf-8").splitlines()) + 3
    assert games[-1]["warnings"] == [
        {"line": last, "column": 1, "message": "text outside any game, skipped: 'the end'"}
    ]
    settings = BatchSettings(game="togyz", limit=Limit(depth=1))
    tasks = [item for item in plan([path], settings, ReadLimits()) if isinstance(item, GameTask)]
    assert [task.index for task in tasks] == [1, 2, 3]


def test_prose_does_not_turn_other_formats_into_compact_strings(togyz_examples: Path) -> None:
    """A PlayOK or export file has move numbers and tag pairs: never read as compact strings with notes."""
    for name in ("playok-2024-2025-sample.pgn", "app-export.pgn", "scoresheet.txt", "tournament-book.txt"):
        assert {game["format"] for game in validate(togyz_examples / name)} != {"compact"}


def test_a_togyz_game_pasted_above_a_match_is_one_warning_and_the_match_stays_whole(tmp_path: Path) -> None:
    togyz = (EXAMPLES / "togyz" / "app-export.pgn").read_text(encoding="utf-8").splitlines()[:12]
    path = write(tmp_path / "mixed.txt", [*togyz, *match_lines()])
    games = validate(path)
    assert [game["game"] for game in games] == ["backgammon"] * 4
    assert all(not game["errors"] for game in games)
    first = games[0]["warnings"]
    assert first and first[0]["line"] == 1 and "text outside any game" in first[0]["message"]
    assert [warning["line"] for warning in first] == sorted(warning["line"] for warning in first)


def test_problems_are_listed_in_the_order_of_the_file(tmp_path: Path) -> None:
    """Moves before any game's header are errors of the match (its first game), listed first line first,
    with the errors of the game itself after them; the one-line summary shows the first."""
    lines = match_lines()
    game = next(number for number, line in enumerate(lines) if line.strip() == "Game 1")
    stray = [f"  {number}) 31: 8/5 6/5" for number in range(1, 13)]
    path = write(tmp_path / "broken.txt", [*lines[:game], *stray, *lines[game:]])
    [first, *_] = validate(path)
    numbers = [error["line"] for error in first["errors"]]
    assert numbers[0] == game + 1 and numbers[:-1] == sorted(numbers[:-1])
    assert first["errors"][-1]["message"] == "further errors in this game are not listed"
    result = CliRunner().invoke(main, ["validate", str(path)])
    shown = next(line for line in result.stdout.splitlines() if "game 1" in line)
    assert f"line {game + 1}, column 6: move 1: text outside any game" in shown and "(+10 more)" in shown


def test_a_match_cut_mid_game_is_a_warning(tmp_path: Path) -> None:
    lines = match_lines()
    cut = next(number for number, line in enumerate(lines) if line.lstrip().startswith("12)"))
    path = write(tmp_path / "cut.txt", lines[: cut + 1])
    games = validate(path)
    last = games[-1]
    assert last["termination"] == "unfinished" and not last["errors"]
    assert last["warnings"] == [
        {
            "line": cut + 1,
            "column": 0,
            "message": f"game {last['index']} stops after move 12 with no result: read as unfinished",
        }
    ]


def test_an_invalid_game_in_a_match_leaves_the_others_analysed(tmp_path: Path) -> None:
    """A task replays the match written again: each planned game is found at its place, whatever the
    others became."""
    lines = match_lines()
    second = next(number for number, line in enumerate(lines) if line.strip() == "Game 2")
    move = next(number for number in range(second, len(lines)) if lines[number].lstrip().startswith("1)"))
    bad = lines[move].split(":")[0] + ": 24/1 24/1"  # no play of any roll
    path = write(tmp_path / "match.txt", [*lines[:move], bad, *lines[move + 1 :]])
    settings = BatchSettings(game="backgammon", limit=Limit(depth=0))
    items = list(plan([path], settings, ReadLimits()))
    [task] = [item for item in items if isinstance(item, GameTask)]
    assert [game.index for game in task.games] == [1, 3, 4]
    _, rows = analyse_task(task, settings)
    assert [row.index for row in rows] == [1, 3, 4]
