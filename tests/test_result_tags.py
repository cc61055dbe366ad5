"""Togyz results written only in the ``[Result "..."]`` tag (issue 34, item 1), as many real exports write
them: read as PGN readers do, kept through validate, analyze, annotate and books, and books that say how
many games their scores rest on.

The archives are real games: the bundled PlayOK sample (7 games: 1 0-1 atsyrau, 2 1-0 kazan, 3 0-1 by the
record, 4 0-1 kazan, 5 1-0 atsyrau, 6 1/2-1/2 by the record, 7 1/2-1/2 atsyrau) with the result token after
the moves deleted, as those exports write them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from conftest import EXAMPLES
from taldau.analysis.validation import check_paths
from taldau.base.records import ReadLimits
from taldau.cli.main import main
from taldau.games.togyz import read_games
from taldau.games.togyz.writers import write_playok

SAMPLE = EXAMPLES / "togyz" / "playok-2024-2025-sample.pgn"
RESULTS = ["0-1", "1-0", "0-1", "0-1", "1-0", "1/2-1/2", "1/2-1/2"]
TERMINATIONS = ["atsyrau", "kazan", "record", "kazan", "atsyrau", "record", "atsyrau"]
_RESULT_TOKEN = re.compile(r"(?<!\S)(?:1-0|0-1|1/2-1/2|\*)(?!\S)")


def games_of(text: str) -> list[str]:
    """The games of a PlayOK file, each from its first header on."""
    return ["[Event" + part for part in text.split("[Event") if part.strip()]


def without_result_tokens(text: str) -> str:
    """``text`` with the result after the moves deleted (headers kept)."""
    lines = text.splitlines(keepends=True)
    return "".join(line if line.startswith("[") else _RESULT_TOKEN.sub("", line) for line in lines)


def without_result_tags(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True) if not line.startswith("[Result "))


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout


def validate_json(path: Path) -> dict:
    code, output = run("validate", "--json", str(path))
    assert code == 0, output
    return json.loads(output)


def test_the_sample_really_loses_its_result_tokens() -> None:
    text = SAMPLE.read_text(encoding="utf-8")
    stripped = without_result_tokens(text)
    assert len(games_of(text)) == 7 and stripped.count("[Result ") == 7
    movetext = "".join(line for line in stripped.splitlines() if not line.startswith("["))
    assert not _RESULT_TOKEN.search(movetext)


# --- reading


ONE = """[Event "t"]
[White "asel"]
[Black "bolat"]
[Result "{tag}"]

1. 76(10) 98 {movetext}
"""


def read_one(tag: str, movetext: str = "") -> object:
    (game,) = read_games(ONE.format(tag=tag, movetext=movetext).encode(), "one.pgn")
    return game


def test_the_tag_is_the_result_when_the_movetext_has_none() -> None:
    game = read_one("0-1")
    assert (game.result, game.termination.value, game.valid, game.warnings) == ("0-1", "record", True, [])
    assert game.record.result_at == (4, 1) and game.record.result_from_tag


@pytest.mark.parametrize(
    ("tag", "result"), [("1/2-1/2", "1/2-1/2"), ("½-½", "1/2-1/2"), ("0.5-0.5", "1/2-1/2"), ("*", None)]
)
def test_tag_values_as_exports_write_them(tag: str, result: str | None) -> None:
    game = read_one(tag)
    assert (game.result, game.valid, game.warnings) == (result, True, [])
    assert game.termination.value == ("unfinished" if result is None else "record")


def test_a_star_after_the_moves_leaves_the_result_to_the_tag() -> None:
    game = read_one("1-0", "*")
    assert (game.result, game.warnings) == ("1-0", [])


def test_a_tag_that_disagrees_with_the_movetext_is_a_warning_and_the_movetext_wins() -> None:
    game = read_one("1-0", "0-1")
    assert (game.result, game.termination.value, game.valid) == ("0-1", "record", True)
    assert [str(warning) for warning in game.warnings] == [
        "line 4, column 1: Result tag 1-0 disagrees with the result 0-1 after the moves (line 6): "
        "the moves' result is kept"
    ]


def test_a_tag_that_is_no_result_is_a_warning() -> None:
    game = read_one("1-0 on time")
    assert (game.result, game.termination.value, game.valid) == (None, "unfinished", True)
    assert [str(warning) for warning in game.warnings] == [
        "line 4, column 1: Result tag '1-0 on time' is not 1-0, 0-1, 1/2-1/2 or *: ignored"
    ]


def test_a_tag_only_result_the_rules_contradict_is_a_warning_the_rules_win() -> None:
    second = games_of(without_result_tokens(SAMPLE.read_text(encoding="utf-8")))[1]  # 1-0 by kazan
    (game,) = read_games(second.replace('[Result "1-0"]', '[Result "0-1"]').encode(), "g2.pgn")
    assert (game.result, game.termination.value, game.valid) == ("1-0", "kazan", True)
    assert [str(warning) for warning in game.warnings] == [
        f"line 7, column 1: Result tag 0-1, but the game ended by kazan, 1-0 {_kazans(game)}: that is kept"
    ]
    # Written after the moves, the same contradiction stays an error.
    headers, moves = games_of(SAMPLE.read_text(encoding="utf-8"))[1].split("\n\n", 1)
    assert moves.count("1-0") == 1
    (written,) = read_games(f"{headers}\n\n{moves.replace('1-0', '0-1')}".encode(), "g2.pgn")
    assert [error.message for error in written.errors] == [
        f"result 0-1 recorded, but the game ended by kazan, 1-0 {_kazans(written)}"
    ]


def _kazans(game: object) -> str:
    white, black = game.kazans
    return f"({white}-{black})"


def test_a_game_with_no_moves_and_a_tag_only_result_ends_where_the_next_game_starts() -> None:
    forfeit = '[Event "1"]\n[White "a"]\n[Black "b"]\n[Result "1-0"]\n\n\n'
    games = list(read_games((forfeit + ONE.format(tag="0-1", movetext="")).encode(), "two.pgn"))
    assert [(g.record.headers["White"], g.plies, g.result, g.termination.value) for g in games] == [
        ("a", 0, "1-0", "record"),
        ("asel", 2, "0-1", "record"),
    ]
    assert all(game.valid and not game.warnings for game in games)


def test_written_back_the_result_is_after_the_moves_and_in_the_tag() -> None:
    third = games_of(without_result_tokens(SAMPLE.read_text(encoding="utf-8")))[2]  # 0-1 by the record
    (game,) = read_games(third.encode(), "g3.pgn")
    text = write_playok(game)
    assert '[Result "0-1"]' in text and text.rstrip().endswith("0-1")
    (again,) = read_games(text.encode(), "again.pgn")
    assert (again.result, again.record.result_from_tag, again.warnings) == ("0-1", False, [])


# --- validate, analyze, annotate, book build on real games


@pytest.fixture
def tag_only(tmp_path: Path) -> Path:
    path = tmp_path / "tag-only.pgn"
    path.write_text(without_result_tokens(SAMPLE.read_text(encoding="utf-8")), encoding="utf-8")
    return path


def test_validate_shows_the_tags_results(tag_only: Path) -> None:
    report = validate_json(tag_only)
    games = report["games"]
    assert [game["result"] for game in games] == RESULTS
    assert [game["termination"] for game in games] == TERMINATIONS
    assert all(game["warnings"] == [] and game["errors"] == [] for game in games)


def test_validate_prints_a_warning_per_game_and_keeps_it_valid(tmp_path: Path) -> None:
    path = tmp_path / "clash.pgn"
    path.write_text(ONE.format(tag="1-0", movetext="0-1"), encoding="utf-8")
    code, output = run("validate", str(path))
    assert code == 0
    assert output.splitlines()[0] == (
        f"{path}, game 1 (asel vs bolat): warning: line 4, column 1: Result tag 1-0 disagrees with the "
        "result 0-1 after the moves (line 6): the moves' result is kept"
    )
    assert "1 valid, 0 invalid" in output.splitlines()[-1]


def test_a_real_archive_with_tag_only_results_reads_the_same(playok_archive: Path, tmp_path: Path) -> None:
    """The first 300 games of the shared PlayOK archive, result tokens deleted: the same results and
    terminations as the original (game 44 has no moves, a forfeit: its tags alone end where the next
    game's start)."""
    head = "".join(games_of(playok_archive.read_text(encoding="utf-8"))[:300])
    (tmp_path / "original.pgn").write_text(head, encoding="utf-8")
    (tmp_path / "stripped.pgn").write_text(without_result_tokens(head), encoding="utf-8")

    def outcomes(name: str) -> list[tuple[str | None, str]]:
        checks = list(check_paths([tmp_path / name], ReadLimits()))
        assert all(check.valid and not check.facts.warnings for check in checks)
        return [(check.facts.result, check.facts.termination) for check in checks]

    original = outcomes("original.pgn")
    assert len(original) == 300 and sum(term == "record" for _, term in original) > 50
    assert outcomes("stripped.pgn") == original


def test_analyze_annotate_and_book_keep_the_tags_results(tmp_path: Path) -> None:
    """Games 3, 4 and 6 of the sample (62, 69 and 24 moves; 0-1 by the record, 0-1 by kazan, 1/2-1/2 by
    the record), their result tokens deleted."""
    chosen = [games_of(SAMPLE.read_text(encoding="utf-8"))[index] for index in (2, 3, 5)]
    archive = tmp_path / "three.pgn"
    archive.write_text(without_result_tokens("".join(chosen)), encoding="utf-8")
    out = tmp_path / "analysis"
    code, output = run("analyze", str(archive), "--out", str(out), "--depth", "1", "--jobs", "1")
    assert code == 0, output
    games = pq.read_table(out / "games").sort_by("index").to_pylist()
    assert [(g["result"], g["termination"]) for g in games] == [
        ("0-1", "record"),
        ("0-1", "kazan"),
        ("1/2-1/2", "record"),
    ]
    assert [dict(g["headers"])["Result"] for g in games] == ["0-1", "0-1", "1/2-1/2"]

    code, output = run("annotate", str(archive), "--depth", "1")
    assert code == 0, output
    assert re.findall(r'\[Result "([^"]*)"\]', output) == ["0-1", "0-1", "1/2-1/2"]

    book = tmp_path / "book"
    code, output = run("book", "build", str(archive), "--out", str(book), "--json")
    assert code == 0, output
    (entry,) = json.loads(run("book", "show", str(book), "start", "--json")[1])["entries"]
    assert (entry["games"], entry["results"]) == (3, 3)
    wdl = [(m["wins"], m["draws"], m["losses"]) for m in entry["moves"]]
    assert sum(map(sum, wdl)) == 3 and sum(m["draws"] for m in entry["moves"]) == 1


def test_books_count_the_tags_results_and_say_how_many_scores_rest_on(tmp_path: Path) -> None:
    """The sample with its result tokens deleted gives every game a result; with its tags deleted too,
    the two games that ended by the record (3 and 6) have none, and the books say so."""
    text = SAMPLE.read_text(encoding="utf-8")
    archives = {"tags": without_result_tokens(text), "none": without_result_tags(without_result_tokens(text))}
    entries = {}
    for name, content in archives.items():
        (tmp_path / f"{name}.pgn").write_text(content, encoding="utf-8")
        code, output = run("book", "build", str(tmp_path / f"{name}.pgn"), "--out", str(tmp_path / name))
        assert code == 0, output
        shown = json.loads(run("book", "show", str(tmp_path / name), "start", "--json")[1])
        (entries[name],) = shown["entries"]
    assert (entries["tags"]["games"], entries["tags"]["results"]) == (7, 7)
    assert (entries["none"]["games"], entries["none"]["results"]) == (7, 5)
    for entry in entries.values():
        for move in entry["moves"]:
            assert move["results"] == move["wins"] + move["draws"] + move["losses"] <= move["games"]
    assert [m["results"] for m in entries["tags"]["moves"]] == [m["games"] for m in entries["tags"]["moves"]]
    assert sum(m["results"] for m in entries["none"]["moves"]) == 5

    code, shown = run("book", "show", str(tmp_path / "none"), "start")
    assert code == 0 and shown.splitlines()[0].endswith(": 7 games, 5 results")
    columns = ["move", "games", "results", "score", "W/D/L", "points", "eval", "marked"]
    assert shown.splitlines()[1].split() == columns
    code, tree = run("book", "tree", str(tmp_path / "none"), "--depth", "1", "--width", "9")
    lines = tree.splitlines()
    moves = {m["move"]: m for m in entries["none"]["moves"]}
    for line in lines:
        move = moves[line.split()[0]]
        if move["results"]:
            score = f"{100 * move['score']:.1f}%"
            results = f"{move['results']} result{'s' if move['results'] > 1 else ''}"
            assert line.endswith(f"{score} over {results}"), line
        else:
            assert line.endswith(", no result"), line
    assert any(m["results"] < m["games"] for m in moves.values())
    tree_json = json.loads(run("book", "tree", str(tmp_path / "none"), "--depth", "1", "--json")[1])
    assert all(item["results"] == moves[item["move"]]["results"] for item in tree_json)
