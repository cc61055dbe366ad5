"""Opening books (``taldau.analysis.book``, ``taldau book``): counts checked by hand on small archives,
both sides' results mirroring, transpositions merging, merging equal to building once, the lookup file
exact, a record with an illegal move counted up to it, analyses joined, both games.

tests/data/book/three.pgn: three Togyz games. Game 1 (asel 1500 - bolat 1400, 2024.01.10) and game 2
(bolat 1400 - asel 1500, 2024.02.20) open 76(10) 98 66 87(4) ... and reach the same position after 24
moves by two move orders (moves 20 and 24 swapped, 22 and 23 too), where both play 23; White wins game 1,
Black game 2. Game 3 (dana 1600 - erlan 1300, 2024.03.30) opens 21(10) 98 67(20) 12, drawn.
tests/data/book/illegal.pgn: game 1 (0-1) plays 76(10) 98 78 87(2), then 71 from an empty pit; game 2
(1-0) plays 21(10) 98.
"""

from __future__ import annotations

import json
import shutil
from datetime import date
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from conftest import needs_sage
from taldau.analysis.book import Book, BookMismatch, BookSettings, build_book, merge_books
from taldau.analysis.book.play import BookPlayer
from taldau.analysis.book.query import main_lines, position_key
from taldau.analysis.validation import check_paths
from taldau.base.kind import Limit, header_date, header_rating
from taldau.base.records import ReadLimits
from taldau.cli.main import main
from taldau.games.backgammon.engine.analyse import Search, load_evaluator
from taldau.games.backgammon.rules.position import Position as BackgammonPosition
from taldau.games.togyz import Position, read_games
from taldau.games.togyz.engine import Engine
from taldau.games.togyz.review import book_move
from taldau.measure.backgammon.match import BackgammonPlayer, book_play
from taldau.schemas.book import BOOK_MOVES_SCHEMA, BOOK_POSITIONS_SCHEMA

DATA = Path(__file__).resolve().parent / "data" / "book"
THREE = DATA / "three.pgn"
ILLEGAL = DATA / "illegal.pgn"
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
START = Position.start().key


def build(tmp_path: Path, name: str, *paths: Path, **options) -> Book:
    build_book(list(paths), tmp_path / name, BookSettings(**options.pop("settings", {})), **options)
    return Book(tmp_path / name)


def moves_of(book: Book, key: int) -> dict[str, dict]:
    table = book.moves()
    rows = table.filter(pc.equal(table["key"], pa.scalar(key, pa.uint64()))).to_pylist()
    return {row["move"]: row for row in rows}


def position(book: Book, key: int, dice: str = "") -> dict:
    table = book.positions()
    found = table.filter(pc.equal(table["key"], pa.scalar(key, pa.uint64()))).to_pylist()
    (row,) = [row for row in found if row["dice"] == dice]
    return row


def test_three_games_by_hand(tmp_path: Path) -> None:
    book = build(tmp_path, "book", THREE)
    start = position(book, START)
    assert (start["games"], start["wins"], start["draws"], start["losses"]) == (3, 1, 1, 1)
    assert start["score"] == pytest.approx(0.5)
    assert start["ply"] == 0
    first = moves_of(book, START)
    assert set(first) == {"76(10)", "21(10)"}
    main_line, other = first["76(10)"], first["21(10)"]
    assert (main_line["games"], main_line["wins"], main_line["draws"], main_line["losses"]) == (2, 1, 0, 1)
    assert (other["games"], other["wins"], other["draws"], other["losses"]) == (1, 0, 1, 0)
    assert main_line["mean_rating"] == 1450  # asel 1500 and bolat 1400 played it as White
    assert main_line["mean_opponent_rating"] == 1450 and other["mean_opponent_rating"] == 1300
    assert (main_line["first_date"], main_line["last_date"]) == (date(2024, 1, 10), date(2024, 2, 20))
    assert main_line["after"] == Position.start().play(7).key
    assert sum(row["games"] for row in first.values()) == 3  # the sum over the first moves: every game
    # Black's answer 98 to 76(10): a loss in game 1, a win in game 2, rated 1400 and 1500.
    reply = moves_of(book, main_line["after"])["98"]
    assert (reply["games"], reply["wins"], reply["losses"], reply["mean_rating"]) == (2, 1, 1, 1450)
    counts = book.manifest()["counts"]
    assert (counts["games"], counts["partial"], counts["plies"]) == (3, 0, 25 + 25 + 4)


def test_results_mirror_between_the_sides(tmp_path: Path) -> None:
    book = build(tmp_path, "book", THREE, ILLEGAL)
    positions = book.positions().to_pylist()
    first = [row for row in positions if row["ply"] == 0]
    second = [row for row in positions if row["ply"] == 1]

    def total(rows: list[dict], name: str) -> float:
        return sum(row[name] for row in rows)

    # every game has a second move: White's wins are Black's losses one move later, and so on
    assert total(first, "games") == total(second, "games") == 5
    assert total(first, "wins") == total(second, "losses") == 2
    assert total(first, "losses") == total(second, "wins") == 2
    assert total(first, "draws") == total(second, "draws") == 1
    assert total(first, "points_won") == total(second, "points_lost")


def test_transpositions_merge(tmp_path: Path) -> None:
    book = build(tmp_path, "book", THREE)
    replayed = list(read_games(THREE.read_bytes(), "three.pgn"))
    one, two = replayed[0].positions[24], replayed[1].positions[24]
    assert one.key == two.key and replayed[0].moves[:24] != replayed[1].moves[:24]
    met = position(book, one.key)
    assert met["games"] == 2 and met["ply"] == 24
    assert moves_of(book, one.key)["23"]["games"] == 2
    into = book.moves().filter(pc.equal(book.moves()["after"], pa.scalar(one.key, pa.uint64())))
    assert len(set(into["key"].to_pylist())) == 2  # two positions before it, one move each


def test_illegal_move_counts_up_to_it_and_the_rest_counts(tmp_path: Path) -> None:
    report = build_book([ILLEGAL], tmp_path / "book", BookSettings())
    book = Book(tmp_path / "book")
    (read,) = report.read
    assert (read.games, read.partial, read.rows) == (2, 1, 4 + 2)
    (skipped,) = read.skipped
    assert skipped.startswith(f"{ILLEGAL}, game 1 (asel vs dana): line 8, column 29: move 3. 71: illegal")
    first = moves_of(book, START)
    assert (first["76(10)"]["games"], first["76(10)"]["losses"]) == (1, 1)  # as recorded: 0-1
    assert (first["21(10)"]["games"], first["21(10)"]["wins"]) == (1, 1)
    stopped = Position.start()
    for pit in (7, 9, 7, 8):
        stopped = stopped.play(pit)
    assert not any(book.positions()["key"].to_numpy() == stopped.key)  # 71 was never counted


def test_merge_equals_one_build(tmp_path: Path) -> None:
    build(tmp_path, "a", THREE)
    build(tmp_path, "b", ILLEGAL)
    once = build(tmp_path, "once", THREE, ILLEGAL)
    merge_books([tmp_path / "a", tmp_path / "b"], tmp_path / "merged")
    merged = Book(tmp_path / "merged")
    assert merged.positions().equals(once.positions())
    assert merged.moves().equals(once.moves())
    assert (tmp_path / "merged" / "lookup.npy").read_bytes() == (
        tmp_path / "once" / "lookup.npy"
    ).read_bytes()
    assert merged.manifest() == once.manifest()
    # growing a book in place by the other one gives the same book too
    merge_books([tmp_path / "a", tmp_path / "b"], tmp_path / "a")
    assert Book(tmp_path / "a").moves().equals(once.moves())


def test_build_resumes_per_input(tmp_path: Path) -> None:
    first = build_book([THREE], tmp_path / "book", BookSettings())
    tables = Book(tmp_path / "book").moves()
    again = build_book([THREE, ILLEGAL], tmp_path / "book", BookSettings())
    assert [report.source for report in first.read] == [str(THREE)]
    assert again.resumed == [str(THREE)] and [report.source for report in again.read] == [str(ILLEGAL)]
    assert Book(tmp_path / "book").moves().num_rows > tables.num_rows
    with pytest.raises(BookMismatch):
        build_book([THREE], tmp_path / "book", BookSettings(max_ply=4))


def test_min_games_keeps_positions_reached_often_enough(tmp_path: Path) -> None:
    book = build(tmp_path, "book", THREE, min_games=2)
    assert min(book.positions()["games"].to_pylist()) >= 2
    # the 76(10) line up to where the two games part (after 19 common moves: 20 positions), and the
    # position where they meet again
    assert book.positions().num_rows == 20 + 1
    assert set(book.moves()["key"].to_pylist()) == set(book.positions()["key"].to_pylist())


def test_max_ply(tmp_path: Path) -> None:
    book = build(tmp_path, "book", THREE, settings={"max_ply": 2})
    assert sorted(book.positions()["ply"].to_pylist()) == [0, 1, 1]


def test_lookup_finds_every_key_and_nothing_else(tmp_path: Path) -> None:
    book = build(tmp_path, "book", THREE, ILLEGAL)
    lookup = book.lookup()
    moves = book.moves().to_pylist()
    assert len(lookup) == len(moves)
    for row in moves:
        found = {move.move: move for move in lookup.find(row["key"], row["dice"])}
        entry = found[row["move"]]
        assert (entry.games, entry.wins, entry.draws, entry.losses) == (
            row["games"],
            row["wins"],
            row["draws"],
            row["losses"],
        )
        assert entry.after == row["after"]
    keys = set(book.positions()["key"].to_pylist())
    assert {move.key for key in keys for move in lookup.find(key)} == keys
    absent = {row["after"] for row in moves} - keys  # the positions the book stops at
    absent |= set(np.random.default_rng(0).integers(0, 2**63, 1000, dtype=np.uint64).tolist()) - keys
    assert absent and all(lookup.find(key) == [] for key in absent)


def test_tables_read_with_duckdb_and_pandas(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    book = build(tmp_path, "book", THREE)
    folder = tmp_path / "book"
    games = duckdb.sql(f"select sum(games) from '{folder}/moves.parquet' where key = {START}").fetchall()
    assert games == [(3,)]
    frame = pq.read_table(folder / "positions.parquet").to_pandas()
    assert len(frame) == book.positions().num_rows
    metadata = pq.read_schema(folder / "positions.parquet").metadata
    assert metadata[b"taldau.schema_version"] == BOOK_POSITIONS_SCHEMA.metadata[b"taldau.schema_version"]
    assert pq.read_schema(folder / "moves.parquet").names == BOOK_MOVES_SCHEMA.names


def analysed(tmp_path_factory: pytest.TempPathFactory, depth: int) -> Path:
    """The folder of ``taldau analyze`` of three.pgn at ``depth``."""
    out = tmp_path_factory.mktemp(f"depth-{depth}") / "out"
    result = CliRunner().invoke(
        main, ["analyze", str(THREE), "--out", str(out), "--depth", str(depth), "--jobs", "1"]
    )
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def analysis(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``taldau analyze`` of three.pgn at depth 1."""
    return analysed(tmp_path_factory, 1)


def test_analysis_joins_by_position_and_move(tmp_path: Path, analysis: Path) -> None:
    book = build(tmp_path, "book", THREE, analyses=[analysis])
    rows = pq.read_table(analysis / "moves").to_pylist()
    # independently: the mean value after each first-25 move, from the mover's side, and its marks
    expected: dict[tuple[int, str], list[float]] = {}
    marks: dict[tuple[int, str], int] = {}
    best: dict[int, list[str]] = {}
    for row in rows:
        if row["ply"] > 30:  # the moves table counts plies from 1
            continue
        sign = 1 if row["side"] == 0 else -1
        expected.setdefault((row["key"], row["played"]), []).append(sign * row["score_played"])
        marks[(row["key"], row["played"])] = marks.get((row["key"], row["played"]), 0) + (
            row["mark"] is not None
        )
        best.setdefault(row["key"], []).append(row["best"])
    for row in book.moves().to_pylist():
        values = expected[(row["key"], row["move"])]
        assert row["analysed"] == len(values)
        assert row["eval"] == pytest.approx(sum(values) / len(values))
        assert row["marked"] == marks[(row["key"], row["move"])]
    start = position(book, START)
    named = best[START]
    assert start["best_move"] == min(set(named), key=lambda move: (-named.count(move), move))
    assert start["analysed"] == 3
    flagged = {row["move"] for row in book.moves().to_pylist() if row["key"] == START and row["best"]}
    assert flagged == ({start["best_move"]} & {"76(10)", "21(10)"})
    counts = book.manifest()["counts"]
    assert (counts["analysed_games"], counts["evaluations"]) == (3, 25 + 25 + 4)


def test_backgammon_book_of_opening_rolls(tmp_path: Path) -> None:
    session = EXAMPLES / "backgammon" / "gnubg-money-session.mat"
    book = build(tmp_path, "book", session, settings={"game": "backgammon"})
    key = position_key(book, "start")
    # alice opens 31: 8/5 6/5; bob wins the game, 8 points (cube 8 after a beaver and a redouble)
    opening = position(book, key, "31")
    assert opening["position"] == "4HPwATDgc/ABMA"
    (play,) = book.lookup().find(key, "31")
    assert (play.move, play.games, play.losses, play.points_won, play.points_lost) == ("8/5 6/5", 1, 1, 0, 8)
    (answer,) = book.lookup().find(play.after, "64")
    assert (answer.move, answer.wins, answer.points_won) == ("24/14", 1, 8)


@needs_sage
@pytest.mark.slow
def test_a_book_holds_one_engines_values(tmp_path: Path) -> None:
    """Analyses by two engines are refused together, both named, nothing read; a book holds one engine's
    values, and books of two engines do not merge."""
    session = EXAMPLES / "backgammon" / "gnubg-money-session.mat"
    runner = CliRunner()
    for engine in ("own", "sage"):
        out = tmp_path / f"analysis-{engine}"
        command = ["analyze", str(session), "--out", str(out), "--depth", "0", "--jobs", "1"]
        result = runner.invoke(main, [*command, "--engine", engine])
        assert result.exit_code == 0, result.output
    own, sage = tmp_path / "analysis-own", tmp_path / "analysis-sage"
    settings = BookSettings(game="backgammon")
    with pytest.raises(BookMismatch, match=r"backgammon, own \(own2-.* against backgammon, sage \(bgsage "):
        build_book([session], tmp_path / "book", settings, analyses=[own, sage])
    assert not (tmp_path / "book").exists()
    build_book([session], tmp_path / "book", settings, analyses=[own])
    book = Book(tmp_path / "book")
    assert book.manifest()["engine"].startswith("own (own2-")
    assert book.manifest()["counts"]["analysed_games"] == 2  # the session's two games, by own alone
    build_book([session], tmp_path / "sage-book", settings, analyses=[sage])
    assert Book(tmp_path / "sage-book").manifest()["engine"].startswith("sage (")
    with pytest.raises(BookMismatch, match="judged differently"):
        merge_books([tmp_path / "book", tmp_path / "sage-book"], tmp_path / "merged")


@pytest.fixture(scope="module")
def deeper(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``taldau analyze`` of three.pgn at depth 2: judged otherwise than ``analysis``."""
    return analysed(tmp_path_factory, 2)


def test_a_book_refuses_analyses_judged_otherwise(tmp_path: Path, analysis: Path, deeper: Path) -> None:
    """Issue 54, item 5: analyses at two depths, in one build, grown into a book or merged as books, are
    refused with one line naming both judgements (exit 2), as ``taldau players`` refuses them; the book
    records the judge it was built with."""
    runner = CliRunner()
    both = ["book", "build", str(THREE), "--analysis", str(analysis), "--analysis", str(deeper)]
    result = runner.invoke(main, [*both, "--out", str(tmp_path / "mixed")])
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"error: {analysis} and {deeper} were judged differently")
    assert ", depth 1 against togyz, " in line and line.endswith(
        "depth 2; a book holds one judge's values: build another book (another --out folder)"
    )
    assert not (tmp_path / "mixed").exists()
    players = runner.invoke(main, ["players", str(analysis), str(deeper)])
    assert players.exit_code != 0 and "judged differently" in players.output
    for name, folder in (("one", analysis), ("two", deeper)):
        command = ["book", "build", str(THREE), "--analysis", str(folder), "--out", str(tmp_path / name)]
        assert runner.invoke(main, command).exit_code == 0
    judge = Book(tmp_path / "one").manifest()["judge"]
    assert judge["game"] == "togyz" and judge["limit"] == "depth 1" and judge["engine"]
    grow = ["book", "build", str(THREE), "--analysis", str(deeper), "--out", str(tmp_path / "one")]
    result = runner.invoke(main, grow)
    assert result.exit_code == 2 and "depth 1 against togyz, " in result.stderr
    assert Book(tmp_path / "one").manifest()["counts"]["analysed_games"] == 3  # nothing mixed in
    merge = ["book", "merge", str(tmp_path / "one"), str(tmp_path / "two"), "--out", str(tmp_path / "m")]
    result = runner.invoke(main, merge)
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.splitlines()
    assert f"{tmp_path / 'one'} and {tmp_path / 'two'} were judged differently" in line
    assert not (tmp_path / "m").exists()


def test_a_book_built_before_its_judge_was_recorded(tmp_path: Path, analysis: Path, deeper: Path) -> None:
    """A book whose evaluations carry their engine alone reads and merges as before; an analysis of a
    known judge is not mixed into it."""
    build(tmp_path, "old", THREE, analyses=[analysis])
    old = Book(tmp_path / "old")
    (part,) = old.parts("evals")
    table = pq.read_table(part)
    metadata = dict(table.schema.metadata)
    report = json.loads(metadata[b"taldau.book_input"])
    del report["judge"]
    metadata[b"taldau.book_input"] = json.dumps(report).encode()
    pq.write_table(table.replace_schema_metadata(metadata), part)
    before = old.moves()
    merged = merge_books([tmp_path / "old"], tmp_path / "old")
    assert merged.manifest["engine"] == report["engine"] and old.moves().equals(before)
    assert merged.manifest["judge"]["limit"] == "a limit not recorded"
    shown = CliRunner().invoke(main, ["book", "show", str(tmp_path / "old"), "start"])
    assert shown.exit_code == 0 and "76(10)" in shown.stdout
    with pytest.raises(BookMismatch, match="a limit not recorded against togyz, "):
        build_book([THREE], tmp_path / "old", BookSettings(), analyses=[deeper])


def test_show_refuses_dice_that_are_not_a_roll(tmp_path: Path) -> None:
    """Issue 54, item 12: ``book show --dice 77`` says the dice are not a roll, not "not in the book"."""
    session = EXAMPLES / "backgammon" / "gnubg-money-session.mat"
    build(tmp_path, "book", session, settings={"game": "backgammon"})
    result = CliRunner().invoke(main, ["book", "show", str(tmp_path / "book"), "start", "--dice", "77"])
    assert result.exit_code == 2 and "not in the book" not in result.output
    assert "dice must be two digits 1..6 such as 31, not '77'" in result.stderr
    result = CliRunner().invoke(main, ["book", "show", str(tmp_path / "book"), "start", "--dice", "13"])
    assert result.exit_code == 0 and "roll 31" in result.stdout


def test_backgammon_openings_meet_whoever_rolls_first(tmp_path: Path) -> None:
    folder = EXAMPLES / "backgammon"
    book = build(tmp_path, "book", folder, settings={"game": "backgammon"})
    checks = [check for check in check_paths([folder], ReadLimits()) if check.game == "backgammon"]
    games = [check for check in checks if check.plies > 0]
    first = book.positions().filter(pc.equal(book.positions()["ply"], 0))
    assert len(set(first["key"].to_pylist())) == 1  # one start, whichever player rolled first
    assert sum(first["games"].to_pylist()) == len(games)
    assert all(dice[0] != dice[1] for dice in first["dice"].to_pylist())  # no doubles as an opening roll
    lines = main_lines(book, depth=1, width=1)
    assert {line.move.dice for line in lines} == set(first["dice"].to_pylist())


def test_cli_build_show_tree_merge(tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "book"
    result = runner.invoke(main, ["book", "build", str(THREE), str(ILLEGAL), "--out", str(out), "--json"])
    assert result.exit_code == 1  # a game was skipped
    counts = json.loads(result.stdout)
    assert (counts["games"], counts["partial"]) == (5, 1)
    assert "line 8, column 29" in result.stderr
    result = runner.invoke(main, ["book", "show", str(out), Position.start().fen(), "--json"])
    (entry,) = json.loads(result.stdout)["entries"]
    assert [move["move"] for move in entry["moves"]] == ["76(10)", "21(10)"]
    assert [move["games"] for move in entry["moves"]] == [3, 2]
    text = runner.invoke(main, ["book", "show", str(out), "start"]).stdout
    assert "5 games" in text and "76(10)" in text
    tree = runner.invoke(main, ["book", "tree", str(out), "--depth", "2"]).stdout.splitlines()
    assert tree[:2] == ["76(10)  3 games 33.3% over 3 results", "  98  3 games 66.7% over 3 results"]
    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    result = runner.invoke(
        main, ["book", "merge", str(out), str(copy), "--out", str(tmp_path / "m"), "--json"]
    )
    assert json.loads(result.stdout)["games"] == 5  # the same inputs count once


def test_header_dates_and_ratings() -> None:
    assert header_date("2024.12.26") == date(2024, 12, 26)
    assert header_date("2024-03-30") == header_date("2024/3/30") == date(2024, 3, 30)
    assert (
        header_date("2024.??.??") is None and header_date("2024.02.30") is None and header_date(None) is None
    )
    assert header_rating("1200") == 1200 and header_rating("1534.12/310") == pytest.approx(1534.12)
    assert header_rating("3,00/0") == 3 and header_rating("") is None and header_rating(None) is None


def test_book_player_chooses_sound_well_scoring_moves(tmp_path: Path) -> None:
    build(tmp_path, "book", THREE, ILLEGAL)
    player = BookPlayer(str(tmp_path / "book"), min_games=2)
    # at the start 76(10) scored 1 of 3 and 21(10) 1.5 of 2: only 21(10) is within 0.1 of the best
    assert [move.move for move in player.candidates(START)] == ["21(10)"]
    wide = BookPlayer(str(tmp_path / "book"), min_games=2, margin=0.5)
    assert [move.move for move in wide.candidates(START)] == ["76(10)", "21(10)"]
    chosen = {
        BookPlayer(wide.folder, 2, 0.5, seed).choose(START, "", lambda move: True) for seed in range(40)
    }
    assert chosen == {"76(10)", "21(10)"}
    assert all(wide.choose(START, "", lambda move: move != "21(10)") == "76(10)" for _ in range(3))
    assert wide.choose(START, "", lambda move: False) is None
    again = BookPlayer(wide.folder, 2, 0.5, seed=7)
    assert len({again.choose(START, "", lambda move: True) for _ in range(5)}) == 1  # one seed, one choice


def test_togyz_engine_plays_from_the_book(tmp_path: Path) -> None:
    build(tmp_path, "book", THREE, ILLEGAL)
    player = BookPlayer(str(tmp_path / "book"), min_games=1, margin=1.0)
    start = Position.start()
    pit = book_move(player, start, Engine(), Limit(depth=2))
    assert pit is not None and start.san(pit) in {"76(10)", "21(10)"}
    assert book_move(player, start, Engine(), Limit(depth=2), refuted=0.0) is None  # every move "refuted"
    off_book = start.play(5)
    assert book_move(player, off_book, Engine(), Limit(depth=2)) is None
    result = CliRunner().invoke(
        main, ["search", start.fen(), "--book", str(tmp_path / "book"), "--depth", "2", "--json"]
    )
    assert json.loads(result.stdout)["book"] is True


def test_backgammon_engine_plays_opening_rolls_from_the_book(tmp_path: Path) -> None:
    session = EXAMPLES / "backgammon" / "gnubg-money-session.mat"
    build(tmp_path, "book", session, settings={"game": "backgammon"})
    book = BookPlayer(str(tmp_path / "book"), min_games=1, margin=1.0)
    evaluator = load_evaluator("own")
    start = BackgammonPosition.start(1)  # the book was built from player 0's opening: the same board
    play = book_play(book, evaluator, start, (1, 3), Search(plies=0))
    assert play is not None and play.text == "8/5 6/5"
    assert book_play(book, evaluator, start, (1, 3), Search(plies=0), refuted=0.0) is None
    assert book_play(book, evaluator, start, (5, 2), Search(plies=0)) is None  # not in the book
    player = BackgammonPlayer(evaluator, Search(plies=0), "own:0", book)
    assert player.choose(start, (3, 1)) == play.result


def test_files_of_another_game_are_reported_and_the_rest_counts(tmp_path: Path) -> None:
    session = EXAMPLES / "backgammon" / "gnubg-money-session.mat"
    report = build_book([session, THREE], tmp_path / "book", BookSettings())
    assert [item.skipped for item in report.read] == [
        [f"{session}: backgammon games; this book is of togyz"],
        [],
    ]
    assert Book(tmp_path / "book").manifest()["counts"]["games"] == 3
    missing = tmp_path / "missing.pgn"
    again = build_book([missing, THREE], tmp_path / "book", BookSettings())
    assert [item.source for item in again.unread] == [str(missing)] and again.resumed == [str(THREE)]


def test_an_input_that_changed_replaces_its_earlier_part(tmp_path: Path) -> None:
    archive = tmp_path / "games.pgn"
    archive.write_bytes(ILLEGAL.read_bytes())
    build_book([archive], tmp_path / "book", BookSettings())
    archive.write_bytes(ILLEGAL.read_bytes() + THREE.read_bytes())  # three more games arrive
    report = build_book([archive], tmp_path / "book", BookSettings())
    assert report.replaced == [str(archive)]
    grown = Book(tmp_path / "book")
    once = build(tmp_path, "once", ILLEGAL, THREE)
    assert grown.manifest()["counts"]["games"] == 5
    assert grown.moves().equals(once.moves()) and grown.positions().equals(once.positions())
