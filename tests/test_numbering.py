"""One numbering across the outputs (issue 42): plies and moves as players count them, from 1, in the
``moves`` Parquet, the report and the books; sides from 0 in every table and in ``validate --json``; the
report's backgammon pages naming a decision alike in the graph and the move list, its counts called what
they are, its worst blunders naming their game, its players rated by PR for backgammon. On the real
archives of the ``analysed_examples`` fixture (the PlayOK sample at depth 1, a Backgammon Studio match at
0 plies) and on the bundled example records."""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
import pandas
import pyarrow.parquet as pq
from click.testing import CliRunner
from taldau.analysis.book import Book, BookSettings, build_book
from taldau.analysis.report.data import read_archive
from taldau.cli.main import main
from taldau.schemas import GAMES_SCHEMA, MOVES_SCHEMA
from taldau.schemas.book import BOOK_PLIES_SCHEMA
from test_report import report, tables

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def test_the_moves_table_counts_plies_from_1_and_duckdb_and_pandas_read_it(
    analysed_examples: dict[str, Path],
) -> None:
    assert "from 1" in MOVES_SCHEMA.field("ply").metadata[b"doc"].decode()
    for folder in analysed_examples.values():
        moves = str(folder / "moves" / "*.parquet")
        rows = duckdb.sql(
            f"select game_id, min(ply), max(ply), count(*) from read_parquet('{moves}') group by game_id"
        ).fetchall()
        assert rows and all((first, last) == (1, count) for _, first, last, count in rows)
        frame = pandas.read_parquet(folder / "moves")
        assert (frame.groupby("game_id")["ply"].min() == 1).all()


def test_the_togyz_page_numbers_the_plies_as_the_table_does(
    analysed_examples: dict[str, Path], tmp_path: Path
) -> None:
    folder = analysed_examples["togyz"]
    report(folder, tmp_path)
    moves = pq.read_table(folder / "moves", columns=["game_id", "ply"]).to_pylist()
    games = pq.read_table(folder / "games", columns=["game_id", "plies"]).to_pylist()
    for game in games:
        html = (tmp_path / "games" / f"{game['game_id']}.html").read_text(encoding="utf-8")
        plies = [m["ply"] for m in moves if m["game_id"] == game["game_id"]]
        rows = tables(html)["moves"]
        assert rows[0][0] == "Ply" and [int(row[0]) for row in rows[1:]] == plies  # 1, 2, 3...
        assert re.findall(r'<tr id="ply-(\d+)"', html) == [str(ply) for ply in plies]
        assert f"<dt>Plies</dt><dd>{game['plies']}</dd>" in html and "<dt>Decisions</dt>" not in html


def test_a_backgammon_page_names_each_decision_alike_in_graph_and_move_list(
    analysed_examples: dict[str, Path], tmp_path: Path
) -> None:
    folder = analysed_examples["backgammon"]
    report(folder, tmp_path)
    (game,) = pq.read_table(folder / "games", columns=["game_id", "plies"]).to_pylist()
    decisions = pq.read_table(folder / "moves").num_rows
    assert decisions > game["plies"]  # the cube and take decisions: rows, not plies
    html = (tmp_path / "games" / f"{game['game_id']}.html").read_text(encoding="utf-8")
    assert f"<dt>Plies</dt><dd>{game['plies']}</dd>" in html
    assert f"<dt>Decisions</dt><dd>{decisions} (" in html
    # the move list's rows by anchor: its first cell is the match file's move number, under "Move"
    numbers = dict(re.findall(r'<tr id="ply-(\d+)"[^>]*><td>(\d+)</td>', html))
    assert tables(html)["moves"][0][0] == "Move" and len(numbers) == decisions
    dots = re.findall(r'<a href="#ply-(\d+)"><circle[^>]*><title>(\w+) (\d+): ', html)
    assert dots and all(word == "Move" and numbers[ply] == number for ply, word, number in dots)
    captions = re.findall(r'<a href="#ply-(\d+)">Move (\d+)</a>:', html)
    assert all(numbers[ply] == number for ply, number in captions)  # the diagrams, where drawn
    last = max(int(number) for number in numbers.values())
    assert f"move (1 to {last}), {decisions} decisions</text>" in html


def test_winner_counts_sides_from_0_in_validate_json_as_in_the_tables(
    analysed_examples: dict[str, Path],
) -> None:
    doc = GAMES_SCHEMA.field("winner").metadata[b"doc"].decode()
    assert "0 the first player (Player 1), 1 the second (Player 2)" in doc
    record = EXAMPLES / "backgammon" / "galaxy-6800849.txt"
    result = CliRunner().invoke(main, ["validate", str(record), "--json"])
    checked = json.loads(result.stdout)["games"]
    # gnubg: lasse (Player 1) wins games 1, 2 and 4, simon_haag (Player 2) game 3
    assert [(game["winner"], game["winner_name"]) for game in checked] == [
        (0, "lasse"),
        (0, "lasse"),
        (1, "simon_haag"),
        (0, "lasse"),
    ]
    assert all(game["players"][game["winner"]] == game["winner_name"] for game in checked)
    folder = analysed_examples["backgammon"]
    source = str(EXAMPLES / "backgammon" / "studio-llabba-iradch49.txt")
    studio = json.loads(CliRunner().invoke(main, ["validate", source, "--json"]).stdout)["games"]
    stored = pq.read_table(folder / "games", columns=["index", "winner"]).to_pylist()
    assert [(row["index"], row["winner"]) for row in stored] == [(g["index"], g["winner"]) for g in studio]


def test_the_index_names_the_game_of_a_blunder_and_the_engine_once(
    analysed_examples: dict[str, Path], tmp_path: Path
) -> None:
    for game, folder in analysed_examples.items():
        index = report(folder, tmp_path / game)
        blunders = index.split('<h2 id="blunders">')[1].split("</section>")[0]
        items = re.findall(r"<li>(.*?)</li>", blunders)
        assert items or (game == "backgammon" and "No blunder" in blunders)  # the Togyz sample has some
        assert all(re.search(r", game \d+ of [^,]+, (ply|move) \d+: ", item) for item in items)
        (engine,) = re.findall(r"<dt>Engine</dt><dd>(.*?)</dd>", index)
        assert not engine.startswith("engine") and engine.count("(") == 1
        assert ">1 games<" not in index and not re.search(r"\b1 games\b", index)


def test_backgammon_players_are_rated_by_pr_and_togyz_by_accuracy(
    analysed_examples: dict[str, Path], tmp_path: Path
) -> None:
    folder = analysed_examples["backgammon"]
    players = tables(report(folder, tmp_path / "bg"))["sortable players"]
    assert players[0] == [
        "Player",
        "Games",
        "Counted",
        "PR",
        "95% interval",
        "Error rate",
        "Marks /100",
        "?? /100",
    ]
    (game,) = pq.read_table(folder / "games").to_pylist()
    for row in players[1:]:
        side = "white" if game["white"] == row[0] else "black"
        counted, error = game[f"{side}_counted"], game[f"{side}_error"]
        assert row[2] == str(counted) and row[3] == f"{500 * error / counted:.1f}"
        assert row[3] == f"{game[f'{side}_pr']:.1f}"  # the games table's PR of its only game
    archive = read_archive(folder)
    assert all(player.pr is not None for player in archive.players())
    togyz = tables(report(analysed_examples["togyz"], tmp_path / "tz"))["sortable players"]
    assert togyz[0][:4] == ["Player", "Games", "Counted", "Accuracy"] and "PR" not in togyz[0]


def test_books_count_plies_from_1_and_say_plies_and_plurals(tmp_path: Path) -> None:
    assert "from 1" in BOOK_PLIES_SCHEMA.field("ply").metadata[b"doc"].decode()
    sample = (EXAMPLES / "togyz" / "playok-2024-2025-sample.pgn").read_text(encoding="utf-8")
    first = "[Event" + sample.split("[Event")[1]
    (tmp_path / "one.pgn").write_text(first, encoding="utf-8")
    result = CliRunner().invoke(
        main, ["book", "build", str(tmp_path / "one.pgn"), "--out", str(tmp_path / "b")]
    )
    assert result.exit_code == 0, result.output
    assert ": 1 game (0 partial), 30 opening plies, 0 analysed games; 30 positions, 30 book moves" in (
        result.stdout
    )
    book = Book(tmp_path / "b")
    assert sorted(book.rows("plies")["ply"].to_pylist()) == list(range(1, 31))
    assert sorted(book.positions()["ply"].to_pylist()) == list(range(30))  # plies before: 0 at the start
    shown = CliRunner().invoke(main, ["book", "show", str(tmp_path / "b"), "start"])
    assert shown.exit_code == 0 and shown.stdout.splitlines()[0].endswith(": 1 game, 1 result")
    assert BookSettings().plies == 30
    build_book([EXAMPLES / "togyz" / "compact.txt"], tmp_path / "c", BookSettings(max_ply=2))
    assert sorted(Book(tmp_path / "c").rows("plies")["ply"].to_pylist()) == [1, 1, 1, 2, 2, 2]
