"""Backgammon output as gnubg users expect it: `taldau annotate` names the players, prints gnubg's statistics
table per game and for the match and numbers decisions as the match file does; the report groups a match's
games under its score line with each player's PR, error rate and rating band, shows the date Jellyfish
files give (``EventDate``) and the file's move numbers; a Togyz report keeps its plain games table.

The match is the bundled BackgammonGalaxy match (4 games, lasse wins 3-2), analysed once at 0 plies."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from taldau.base.kind import move_numbers
from taldau.cli.main import main
from taldau.games.backgammon.records.record import ActionKind
from taldau.games.backgammon.records.replay import read_games
from taldau.games.backgammon.review.marks import EMG_SCALE
from taldau.games.backgammon.rules.cube import DecisionKind

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
MATCH = EXAMPLES / "backgammon" / "galaxy-6800849.txt"


@pytest.fixture(scope="module")
def analysed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("galaxy")
    command = ["analyze", str(MATCH), "--out", str(out / "run"), "--depth", "0", "--jobs", "1"]
    result = CliRunner().invoke(main, command)
    assert result.exit_code == 0, result.output
    return out


def _file_numbers() -> list[list[int]]:
    """Per game, the move number of each checker play as the match file numbers it."""
    return [
        [step.action.number for step in game.steps if step.action.kind is ActionKind.ROLL and step.play]
        for game in read_games(MATCH.read_bytes(), MATCH.name)
    ]


def test_move_numbers_follow_a_records_lines() -> None:
    move, cube, take = DecisionKind.MOVE, DecisionKind.CUBE, DecisionKind.TAKE
    # Togyz: White and Black share a line.
    assert move_numbers([(0, move), (1, move), (0, move)]) == [1, 1, 2]
    # A player not doubling then rolling is one turn; a double answered on the same line; the answer to
    # the second player's double opens the next line; a game the second player begins.
    turns = [(0, cube), (0, move), (1, cube), (1, move), (0, cube), (1, take), (0, move), (1, cube)]
    turns.append((0, take))
    assert move_numbers(turns) == [1, 1, 1, 1, 2, 2, 3, 3, 4]
    assert move_numbers([(1, move), (0, move), (1, move)]) == [1, 2, 2]


@pytest.mark.slow
def test_annotate_reads_like_gnubgs_export(analysed: Path) -> None:
    result = CliRunner().invoke(main, ["annotate", str(analysed / "run"), "--form", "full"])
    assert result.exit_code == 0, result.output
    text = result.stdout
    heading = "lasse - simon_haag, 3-point match\nSite: BackgammonGalaxy\nEventDate: 2024.03.30\n"
    assert text.startswith(heading)
    assert "White" not in text and "Black" not in text and "Accuracy" not in text
    # A statistics table per game and one for the match, the players side by side, in gnubg's words.
    assert re.findall(r"^Game statistics for game (\d)$", text, re.M) == ["1", "2", "3", "4"]
    assert text.count("\nMatch statistics\n") == 1
    assert len(re.findall(r"^Player +lasse +simon_haag$", text, re.M)) == 5
    for label in ("Chequerplay rating", "Cube decision rating", "Overall rating", "Error rate mEMG (MWC)"):
        assert label in text
    assert re.findall(r"^(\S+) wins (\d) points?$", text, re.M) == [
        ("lasse", "1"),
        ("lasse", "1"),
        ("simon_haag", "2"),
        ("lasse", "1"),
    ]
    # The match's figures are the sums of the games rows: error rate, rating band and PR of each player.
    rows = pq.read_table(analysed / "run" / "games").to_pylist()
    match_part = text.split("\nMatch statistics\n")[1]
    for side, name in enumerate(("white", "black")):
        counted = sum(row[f"{name}_counted"] for row in rows)
        error = sum(row[f"{name}_error"] for row in rows)
        overall_part = match_part.split("Overall statistics")[1]
        overall = re.search(r"^Error rate mEMG \(MWC\) +(.*)$", overall_part, re.M)
        assert overall is not None
        assert overall.group(1).split("%)")[side].split()[0] == f"{-1000 * error / counted:+.1f}"
        rating = re.search(r"^Overall rating {2,}(.+?) {2,}(.+)$", match_part, re.M)
        assert rating is not None and rating.group(side + 1).strip() == EMG_SCALE.rating(error / counted)
        pr = re.search(r"^Performance rating \(PR, XG\) +(\S+) +(\S+)$", match_part, re.M)
        assert pr is not None and pr.group(side + 1) == f"{500 * error / counted:.1f}"
    # Each roll under the match file's own move number.
    games = text.split("\nGame statistics for game ")[:-1]
    for game, expected in zip(games, _file_numbers(), strict=True):
        assert [int(n) for n in re.findall(r"^ *(\d+)\) \S+ rolls ", game, re.M)] == expected


class Page(HTMLParser):
    """A page's table cells by the table's class, and the text of each element with a given class."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.classed: dict[str, list[str]] = {}
        self.table: str | None = None
        self.cell: list[str] | None = None
        self.open: list[tuple[str, str, list[str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs).get("class") or ""
        if tag == "table":
            self.table = found
            self.tables[found] = []
        elif tag == "tr" and self.table is not None:
            self.tables[self.table].append([])
        elif tag in ("td", "th") and self.table is not None:
            self.cell = []
        if found and tag in ("span", "tr"):
            self.open.append((tag, found, []))

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self.cell is not None and self.table is not None:
            self.tables[self.table][-1].append("".join(self.cell).strip())
            self.cell = None
        elif tag == "table":
            self.table = None
        if self.open and self.open[-1][0] == tag:
            _, found, text = self.open.pop()
            self.classed.setdefault(found, []).append("".join(text).strip())
            if self.open:
                self.open[-1][2].extend(text)

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)
        if self.open:
            self.open[-1][2].append(data)


def page(path: Path) -> Page:
    parser = Page()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def _report(folder: Path, out: Path) -> Page:
    result = CliRunner().invoke(main, ["report", str(folder), "--out", str(out)])
    assert result.exit_code == 0, result.output
    return page(out / "index.html")


def _game_pages(out: Path) -> Iterator[Page]:
    index = (out / "index.html").read_text(encoding="utf-8")
    for link in dict.fromkeys(re.findall(r'href="(games/[0-9a-f]+\.html)"', index)):
        yield page(out / link)


@pytest.mark.slow
def test_the_report_groups_a_match_under_its_score(analysed: Path) -> None:
    out = analysed / "report"
    index = _report(analysed / "run", out)
    assert index.classed["match-title"] == ["3-point match, lasse 3 - simon_haag 2"]
    rows = pq.read_table(analysed / "run" / "games").to_pylist()
    sides = index.classed["match-side"]
    for side, (column, name) in enumerate((("white", "lasse"), ("black", "simon_haag"))):
        rate = sum(row[f"{column}_error"] for row in rows) / sum(row[f"{column}_counted"] for row in rows)
        rating = EMG_SCALE.rating(rate)
        assert sides[side].startswith(f"{name}: PR {500 * rate:.1f}, error rate ")
        assert sides[side].endswith(f", {rating}")
    header, _heading, *games = index.tables["games"]
    assert header[-2:] == ["PR", "Rating"] and header[4] == "Event, date"
    assert len(games) == 4 and all(row[4] == "BackgammonGalaxy 2024.03.30" for row in games)
    by_game = {row["index"]: row for row in rows}
    for number, row in enumerate(games, start=1):
        stored = by_game[number]
        assert row[-2] == f"{stored['white_pr']:.1f} / {stored['black_pr']:.1f}"
        assert row[-1] == f"{stored['white_rating']} / {stored['black_rating']}"
    # Each game page numbers its checker plays as the match file does.
    expected = {tuple(numbers) for numbers in _file_numbers()}
    seen = set()
    for game in _game_pages(out):
        header, *moves = game.tables["moves"]
        assert header[0] == "Move"
        seen.add(tuple(int(row[0]) for row in moves if row[2]))  # rows with a roll: the checker plays
    assert seen == expected


def test_a_togyz_report_keeps_its_plain_games_table(tmp_path: Path) -> None:
    run = tmp_path / "run"
    record = EXAMPLES / "togyz" / "playok-2024-2025-sample.pgn"
    command = ["analyze", str(record), "--out", str(run), "--depth", "1", "--jobs", "1"]
    result = CliRunner().invoke(main, command)
    assert result.exit_code == 0, result.output
    index = _report(run, tmp_path / "report")
    assert "match-title" not in index.classed
    header, *games = index.tables["games"]
    assert header == ["#", "Game", "Result", "Plies", "Event, date", "Marks ?! ? ??", "Accuracy"]
    assert len(games) == 7 and games[0][4] == "9245757 2024.12.26"
    for game in _game_pages(tmp_path / "report"):
        header, *moves = game.tables["moves"]
        assert header[0] == "Ply" and [row[0] for row in moves] == [str(n) for n in range(1, len(moves) + 1)]
