"""``taldau report`` without a browser: which games a report holds, the players' figures it prints, a diagram
for every mistake and blunder, and a clear error for a folder that is not an analysis' output. The archive
is the ``analysed_examples`` fixture's PlayOK sample (7 Togyz Kumalak games analysed at depth 1)."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pyarrow.parquet as pq
from click.testing import CliRunner
from taldau.analysis.book import Book, BookSettings, build_book
from taldau.analysis.book.query import entries, position_key
from taldau.analysis.players import players
from taldau.analysis.report.site import player_pages
from taldau.cli.main import main


def report(folder: Path, out: Path, *options: str) -> str:
    result = CliRunner().invoke(main, ["report", str(folder), "--out", str(out), *options])
    assert result.exit_code == 0, result.output
    return (out / "index.html").read_text(encoding="utf-8")


class Tables(HTMLParser):
    """The text of every table cell of a page, by the table's class."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.current: str | None = None
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.current = dict(attrs).get("class") or ""
            self.tables[self.current] = []
        elif tag == "tr" and self.current is not None:
            self.tables[self.current].append([])
        elif tag in ("td", "th") and self.current is not None:
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.cell is not None and self.current is not None:
            self.tables[self.current][-1].append("".join(self.cell).strip())
            self.cell = None
        elif tag == "table":
            self.current = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def tables(html: str) -> dict[str, list[list[str]]]:
    parser = Tables()
    parser.feed(html)
    return parser.tables


def test_the_players_table_sums_each_players_games(
    analysed_examples: dict[str, Path], tmp_path: Path
) -> None:
    folder = analysed_examples["togyz"]
    rows = {row[0]: row for row in tables(report(folder, tmp_path))["sortable players"][1:]}
    games = pq.read_table(folder / "games").to_pylist()
    for name in ("abeke93", "alekozh99"):  # abeke93 plays both colours, alekozh99 one game as Black
        sides = [(game, side) for game in games for side in ("white", "black") if game[side] == name]
        counted = sum(game[f"{side}_counted"] for game, side in sides)
        accuracy = sum(game[f"{side}_accuracy"] * game[f"{side}_counted"] for game, side in sides) / counted
        error = sum(game[f"{side}_error"] for game, side in sides)
        marks = sum(
            game[f"{side}_{mark}"]
            for game, side in sides
            for mark in ("inaccuracies", "mistakes", "blunders")
        )
        blunders = sum(game[f"{side}_blunders"] for game, side in sides)
        expected = [name, str(len(sides)), str(counted), f"{accuracy:.1f}"]
        assert rows[name][:4] == expected
        assert rows[name][4] == ""  # an interval from 8 games on
        assert float(rows[name][5]) == float(f"{error / counted:.2f}")
        assert rows[name][6:] == [f"{100 * marks / counted:.1f}", f"{100 * blunders / counted:.1f}"]
    assert rows["abeke93"][1] == "2" and len(rows) == 11  # 14 sides, 3 players with 2 games each


def test_each_player_has_a_page_with_the_players_figures_and_links_to_their_games(
    analysed_examples: dict[str, Path], tmp_path: Path
) -> None:
    """The backgammon match: a page per player, linked from the index, whose figures are those of
    ``taldau players`` (the same bootstrap), with the form graph, the opponents and every blunder of the
    player drawn, each linked to its position on its game's page."""
    folder = analysed_examples["backgammon"]
    index = report(folder, tmp_path)
    roster = {player.name: player for player in players([folder]).players}
    pages = sorted((tmp_path / "players").glob("*.html"))
    assert len(pages) == len(roster) == 2 and all(f'href="players/{page.name}"' in index for page in pages)
    moves = pq.read_table(folder / "moves", columns=["game_id", "ply", "side", "mark"]).to_pylist()
    games = pq.read_table(folder / "games", columns=["game_id", "white", "black"]).to_pylist()
    for page in pages:
        html = page.read_text(encoding="utf-8")
        name = re.search(r"<h1>(.*?)</h1>", html).group(1)  # type: ignore[union-attr]
        player = roster[name]
        (figures,) = tables(html)["figures"][1:]
        assert figures[:3] == [
            str(player.overall.games),
            str(player.overall.matches),
            str(player.overall.decisions),
        ]
        assert (
            figures[3] == str(player.overall.pr)
            and '<svg xmlns="http://www.w3.org/2000/svg" class="form"' in html
        )
        (opponent,) = [row[0] for row in tables(html)["sortable opponents"][1:]]
        assert opponent == next(other for other in roster if other != name)
        sides = {game["game_id"]: 0 if game["white"] == name else 1 for game in games}
        blunders = [m for m in moves if m["mark"] == "??" and m["side"] == sides[m["game_id"]]]
        linked = re.findall(r'<a href="\.\./games/([0-9a-f]+)\.html#pos-(\d+)">', html)
        assert sorted(linked) == sorted((m["game_id"], str(m["ply"])) for m in blunders)[: len(linked)]
        assert len(linked) == min(len(blunders), 10) and html.count('class="board') >= len(linked)


def test_games_query_keeps_the_games_it_names(analysed_examples: dict[str, Path], tmp_path: Path) -> None:
    folder = analysed_examples["togyz"]
    index = report(folder, tmp_path, "--games", "ABEKE93")
    listed = set(re.findall(r'href="games/([0-9a-f]+)\.html"', index))
    games = pq.read_table(folder / "games").to_pylist()
    assert listed == {game["game_id"] for game in games if "abeke93" in (game["white"], game["black"])}
    assert len(listed) == 2 and {path.stem for path in (tmp_path / "games").glob("*.html")} == listed
    index = report(folder, tmp_path, "--games", "2025.01.01")  # the Date header; the pages are replaced
    assert len(list((tmp_path / "games").glob("*.html"))) == len(set(re.findall(r'href="games/(\w+)', index)))


def test_every_mistake_and_blunder_has_its_diagram(
    analysed_examples: dict[str, Path], tmp_path: Path
) -> None:
    for game, folder in analysed_examples.items():
        out = tmp_path / game
        report(folder, out)
        moves = pq.read_table(folder / "moves", columns=["game_id", "ply", "mark"]).to_pylist()
        for page in (out / "games").glob("*.html"):
            html = page.read_text(encoding="utf-8")
            drawn = [int(ply) for ply in re.findall(r'<figure id="pos-(\d+)"', html)]
            marked = [m["ply"] for m in moves if m["game_id"] == page.stem and m["mark"] in ("?", "??")]
            assert drawn == marked
            assert html.count('<svg xmlns="http://www.w3.org/2000/svg" class="board') == len(marked)


def test_book_column_shows_each_opening_moves_games_in_the_book(
    analysed_examples: dict[str, Path], togyz_examples: Path, tmp_path: Path
) -> None:
    folder = analysed_examples["togyz"]
    build_book([togyz_examples / "playok-2024-2025-sample.pgn"], tmp_path / "book", BookSettings())
    book = Book(tmp_path / "book")
    index = report(folder, tmp_path / "out", "--book", str(tmp_path / "book"))
    assert f"<dt>Opening book</dt><dd>{tmp_path / 'book'} (togyz, first 30 plies, 7 games)" in index
    moves = pq.read_table(folder / "moves", columns=["game_id", "ply", "position", "played"]).to_pylist()
    by_game = {
        m["game_id"]: sorted((n for n in moves if n["game_id"] == m["game_id"]), key=lambda n: n["ply"])
        for m in moves
    }
    assert len(by_game) == 7
    for game_id, played in by_game.items():
        rows = tables((tmp_path / "out" / "games" / f"{game_id}.html").read_text(encoding="utf-8"))["moves"]
        assert rows[0][-1] == "Book"
        for move, row in zip(played[:4], rows[1:5], strict=True):
            # counted by hand from the moves table: the games that made this move in this position
            same = [
                p for p in by_game.values() if p[move["ply"] - 1]["position"] == move["position"]
            ]  # ply from 1
            games = sum(p[move["ply"] - 1]["played"] == move["played"] for p in same)
            [entry] = entries(book, position_key(book, move["position"]))
            [known] = [m for m in entry.moves if m.move == move["played"]]
            assert (known.games, entry.games) == (games, len(same))
            assert row[-1].startswith(f"{games} of {len(same)}, {100 * known.score:.0f}%")
            most = max(sum(p[move["ply"] - 1]["played"] == m.move for p in same) for m in entry.moves)
            assert row[-1].endswith("★") == (games == most)
        assert rows[1][-1].startswith(tuple(f"{n} of 7, " for n in range(1, 8)))  # every game starts there
    # Each player's openings say how their fourth move stands in the book: every game of the player that
    # played the opening is one of the book's games that played it there.
    for page in (tmp_path / "out" / "players").glob("*.html"):
        openings = tables(page.read_text(encoding="utf-8"))["sortable openings"]
        assert openings[0][-1] == "Book"
        for row in openings[1:]:
            played, reached = (int(n) for n in re.match(r"(\d+) of (\d+)", row[-1]).groups())  # type: ignore[union-attr]
            assert int(row[2]) <= played <= reached <= 7


def test_a_folder_that_is_no_analysis_is_refused_by_name(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["report", str(tmp_path), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2 and f"{tmp_path}: not a `taldau analyze` output folder" in result.output


def test_a_folder_of_the_users_files_is_refused_and_left_as_it_was(
    analysed_examples: dict[str, Path], tmp_path: Path
) -> None:
    """Issue 54, item 2: a report deleted every page under games/ and players/ and overwrote index.html of
    a folder that no report had written."""
    out = tmp_path / "out"
    files = {"games/notes.html": "my notes", "players/x.html": "a player", "index.html": "my index"}
    for name, text in files.items():
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["report", str(analysed_examples["togyz"]), "--out", str(out)])
    assert result.exit_code == 2
    assert result.output == (
        f"error: {out}: holds files that taldau report did not write (no .taldau-report listing them): "
        "give --out an empty or new folder, or the folder of an earlier report\n"
    )
    assert {str(path.relative_to(out)) for path in out.rglob("*") if path.is_file()} == set(files)
    assert all((out / name).read_text(encoding="utf-8") == text for name, text in files.items())


def test_a_report_replaces_and_removes_only_the_files_it_wrote(
    analysed_examples: dict[str, Path], tmp_path: Path
) -> None:
    folder, out = analysed_examples["togyz"], tmp_path / "out"
    report(folder, out)
    first = json.loads((out / ".taldau-report").read_text(encoding="utf-8"))["files"]
    assert (
        sorted(str(path.relative_to(out)) for path in out.rglob("*.*") if path.name != ".taldau-report")
        == first
    )
    mine = {out / "notes.txt": "mine", out / "games" / "mine.html": "mine too"}
    for path, text in mine.items():
        path.write_text(text, encoding="utf-8")
    index = report(
        folder, out, "--games", "abeke93"
    )  # fewer games: the others' pages are the report's to remove
    kept = set(re.findall(r'href="games/([0-9a-f]+)\.html"', index))
    assert {path.stem for path in (out / "games").glob("*.html")} == kept | {"mine"}
    assert all(path.read_text(encoding="utf-8") == text for path, text in mine.items())
    second = json.loads((out / ".taldau-report").read_text(encoding="utf-8"))["files"]
    assert set(second) < set(first) and "notes.txt" not in second and "games/mine.html" not in second
    # A file of the user's where the next report would write a page: refused, nothing written or removed.
    other = next(name for name in first if name.startswith("games/") and name not in second)
    (out / other).write_text("the user's", encoding="utf-8")
    before = {path: path.read_bytes() for path in out.rglob("*") if path.is_file()}
    result = CliRunner().invoke(main, ["report", str(folder), "--out", str(out)])
    assert result.exit_code == 2 and result.output == (
        f"error: {out}: {other} is not a file taldau report wrote: move it away, or give --out an empty "
        "or new folder\n"
    )
    assert {path: path.read_bytes() for path in out.rglob("*") if path.is_file()} == before


def test_a_book_of_the_other_game_is_refused(analysed_examples: dict[str, Path], tmp_path: Path) -> None:
    """Issue 54, item 10: a backgammon book given to a Togyz report was silently ignored."""
    matches = Path(__file__).parents[1] / "examples" / "backgammon" / "studio-llabba-iradch49.txt"
    build_book([matches], tmp_path / "book", BookSettings(game="backgammon"))
    folder = analysed_examples["togyz"]
    result = CliRunner().invoke(
        main, ["report", str(folder), "--out", str(tmp_path / "out"), "--book", str(tmp_path / "book")]
    )
    assert result.exit_code == 2 and result.output == (
        f"error: --book {tmp_path / 'book'}: a book of backgammon games, and {folder} holds an analysis of "
        "togyz games: give a book of togyz\n"
    )
    assert not (tmp_path / "out").exists()


def test_player_pages_are_named_in_latin_letters_each_its_own() -> None:
    """Issue 54, item 12: Cyrillic names gave page files such as ``3-_.html``."""
    names = ["Магжан", "Әлия Қасым", "José", "abc", "ABC!", "李", "lasse"]
    pages = player_pages(names)
    assert pages["Магжан"] == "players/magzhan.html" and pages["Әлия Қасым"] == "players/aliya-qasym.html"
    assert pages["José"] == "players/jose.html" and pages["lasse"] == "players/lasse.html"
    assert re.fullmatch(r"players/abc-[0-9a-f]{8}\.html", pages["abc"]) and pages["abc"] != pages["ABC!"]
    assert re.fullmatch(r"players/player-[0-9a-f]{8}\.html", pages["李"])
    assert len(set(pages.values())) == len(names)
    assert player_pages(list(reversed(names))) == pages  # the same pages whatever the order
    assert player_pages(["Магжан", "someone else"])["Магжан"] == pages["Магжан"]


def test_a_report_of_cyrillic_names_names_their_pages_in_latin_letters(
    togyz_examples: Path, tmp_path: Path
) -> None:
    text = (togyz_examples / "playok-2024-2025-sample.pgn").read_text(encoding="utf-8")
    renamed = text.replace("abeke93", "Әбеке").replace("alekozh99", "Алекож")
    (tmp_path / "games.pgn").write_text(renamed, encoding="utf-8")
    command = [
        "analyze",
        str(tmp_path / "games.pgn"),
        "--out",
        str(tmp_path / "a"),
        "--depth",
        "1",
        "--jobs",
        "1",
    ]
    assert CliRunner().invoke(main, command).exit_code == 0
    index = report(tmp_path / "a", tmp_path / "out")
    assert (
        'href="players/abeke.html">Әбеке</a>' in index and 'href="players/alekozh.html">Алекож</a>' in index
    )
    assert all(re.fullmatch(r"[a-z0-9_-]+", page.stem) for page in (tmp_path / "out" / "players").glob("*"))
