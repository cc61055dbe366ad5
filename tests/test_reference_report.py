"""Where two judges disagree, said and settled (issue 55, item 4): the report of the sample's ``.xg``
analysed at 0 plies shows both verdicts on exactly the decisions where XG's best is not ours and each
player's PR by both; ``bench reference`` gives the agreement and the PR both ways as the tables hold them,
and with ``--rollout`` settles disputed decisions with standard errors."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import duckdb
import pytest
from click.testing import CliRunner
from conftest import SHARED_DATA
from taldau.analysis.report.site import number
from taldau.cli.main import main
from taldau.games.backgammon.review.marks import EMG_SCALE

XG = SHARED_DATA / "backgammon" / "xg" / "hsbt-paris-2023.xg"
pytestmark = pytest.mark.skipif(not XG.exists(), reason="needs ../shared/data/backgammon/xg (the XG sample)")
ROW = re.compile(r'<tr id="ply-(\d+)".*?</tr>', re.S)
CELL = re.compile(r'<td class="disputed">(.*?)</td>', re.S)


def disputed(page: Path) -> dict[int, str]:
    """The cells of a game page's move list that give both verdicts, by ply."""
    found = {}
    for row in ROW.finditer(page.read_text(encoding="utf-8")):
        cell = CELL.search(row.group(0))
        if cell is not None:
            found[int(row.group(1))] = cell.group(1)
    return found


def run(*arguments: str) -> str:
    """A taldau command's standard output; exit 0."""
    result = CliRunner().invoke(main, list(arguments))
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def analysed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The .xg analysed at 0 plies: our search, XG's verdicts beside it."""
    out = tmp_path_factory.mktemp("reference") / "out"
    run("analyze", str(XG), "--out", str(out), "--game", "backgammon", "--jobs", "1", "--depth", "0")
    return out


def query(folder: Path, sql: str) -> list[tuple[Any, ...]]:
    """``sql`` over the folder's tables (``moves`` and ``games``) read by DuckDB from the Parquet files."""
    connection = duckdb.connect()
    for table in ("moves", "games"):
        connection.execute(f"create view {table} as select * from '{folder / table}/*.parquet'")
    return connection.execute(sql).fetchall()


def prs(folder: Path) -> dict[str, tuple[float, float]]:
    """Each player's PR over the games, ours (500 x error / counted of the games table) and by the
    reference (500 x the games' reference PR weighted by the decisions it judged, from the moves table)."""
    sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    for side, prefix in enumerate(("white", "black")):
        rows = query(
            folder,
            f"select g.{prefix}, g.{prefix}_error, g.{prefix}_counted, g.{prefix}_reference_pr, "
            "(select count(*) from moves m where m.game_id = g.game_id and m.side = "
            f"{side} and m.counted and m.reference_loss is not null) from games g",
        )
        for name, error, counted, reference_pr, judged in rows:
            found = sums[name]
            found[0] += error
            found[1] += counted
            found[2] += reference_pr * judged / EMG_SCALE.pr_factor
            found[3] += judged
    return {name: (500 * e / c, 500 * r / j) for name, (e, c, r, j) in sums.items()}


def test_the_report_shows_both_verdicts_where_they_differ_and_both_prs(
    analysed: Path, tmp_path: Path
) -> None:
    out = tmp_path / "report"
    run("report", str(analysed), "--out", str(out))
    expected = query(
        analysed,
        "select game_id, ply, best, loss, reference, reference_best, reference_loss from moves "
        "where reference is not null and best != reference_best",
    )
    assert len(expected) > 10
    shown: set[tuple[str, int]] = set()
    for page in (out / "games").glob("*.html"):
        for ply, cell in disputed(page).items():
            shown.add((page.stem, int(ply)))
            assert "ours" in cell and "XG" in cell
    assert shown == {(game_id, ply) for game_id, ply, *_ in expected}
    for game_id, ply, best, loss, reference, reference_best, reference_loss in expected:
        text = re.sub(r"<[^>]+>", "", disputed(out / "games" / f"{game_id}.html")[ply])
        theirs = f"{reference} {reference_best}, lost {number(reference_loss)}"
        assert text == f"ours {best}, lost {number(loss)}; {theirs}"
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "PR by XG" in index and f"its best not ours on {len(expected)}" in index
    for name, (ours, by_reference) in prs(analysed).items():
        row = re.search(rf"<tr><td><a [^>]*>{re.escape(name)}</a>.*?</tr>", index, re.S)
        assert row is not None, name
        values = [float(value) for value in re.findall(r'data-value="([0-9.]+)"', row.group(0))]
        assert values[0] == pytest.approx(ours, abs=1e-9)
        reference_cell = re.search(r'class="reference-pr" data-value="([0-9.]+)"', row.group(0))
        assert reference_cell is not None
        assert float(reference_cell.group(1)) == pytest.approx(by_reference, abs=1e-9)
        player = next(
            path for path in (out / "players").glob("*.html") if f"<h1>{name}</h1>" in path.read_text("utf-8")
        )
        shown_pr = re.search(r'class="reference-pr">([0-9.]+)', player.read_text(encoding="utf-8"))
        assert shown_pr is not None and float(shown_pr.group(1)) == pytest.approx(by_reference, abs=0.005)


@pytest.mark.parametrize("game", ["togyz", "backgammon"])
def test_a_report_without_reference_shows_no_second_verdict(
    analysed_examples: dict[str, Path], tmp_path: Path, game: str
) -> None:
    out = tmp_path / "report"  # Togyz, and a backgammon match file that holds no analysis
    run("report", str(analysed_examples[game]), "--out", str(out))
    pages = [out / "index.html", *(out / "games").glob("*.html"), *(out / "players").glob("*.html")]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert "Judges differ" not in text and "<dt>Reference" not in text and "reference-pr" not in text


def test_bench_reference_gives_the_agreement_and_the_prs_the_tables_hold(analysed: Path) -> None:
    report = json.loads(run("bench", "reference", str(analysed), "--json"))
    ((decisions, same),) = query(
        analysed,
        "select count(*), sum((best = reference_best)::int) from moves "
        "where counted and reference is not null and reference_loss is not null",
    )
    every = report["agreement"][0]
    assert (every["decisions"], every["same"]) == (decisions, same)
    assert every["share"] == pytest.approx(same / decisions)
    assert every["interval"][0] < every["share"] < every["interval"][1]
    assert report["judges"] == "XG" and "not available" in report["scored_by_reference"]
    ((disputed,),) = query(analysed, "select count(*) from moves where best != reference_best")
    assert report["disputed"] == disputed
    expected = prs(analysed)
    assert {player["name"] for player in report["players"]} == set(expected)
    for player in report["players"]:
        ours, by_reference = expected[player["name"]]
        assert player["pr"]["value"] == pytest.approx(ours, abs=1e-5)
        assert player["reference_pr"]["value"] == pytest.approx(by_reference, abs=1e-5)
        assert player["pr"]["low"] is None  # 7 games: fewer than an interval is given for
    text = run("bench", "reference", str(analysed))
    assert "agreement: our best is XG's on" in text and "PR (500 x EMG" in text


@pytest.mark.slow  # about 20 s: two decisions' rollouts
def test_bench_reference_rolls_out_the_disputed_decisions(analysed: Path) -> None:
    arguments = ("bench", "reference", str(analysed), "--rollout", "--decisions", "2", "--trials", "36")
    settlement = json.loads(run(*arguments, "--json"))["settlement"]
    assert settlement["rollout"]["trials"] == 36 and settlement["rolled_out"] == 2
    for decision in settlement["decisions"]:
        assert decision["best"] != decision["reference_best"]
        assert decision["difference"] == pytest.approx(decision["equity"] - decision["reference_equity"])
        assert decision["difference_se"] > 0
        assert decision["right"] in ("ours", "reference", "neither")
    assert settlement["mean_difference_se"] > 0


def test_bench_reference_refuses_a_folder_without_reference(analysed_examples: dict[str, Path]) -> None:
    result = CliRunner().invoke(main, ["bench", "reference", str(analysed_examples["togyz"])])
    assert result.exit_code == 2 and "no reference" in result.output
