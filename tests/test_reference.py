"""The analysis a match file already holds kept beside ours (issue 55, item 3): XG's verdicts of the
sample's ``.xg`` and gnubg's of its analysed ``.sgf`` in the moves table's reference columns, each player's
PR by them in the games table, and ``analyze --level stored`` taking them as the analysis, searching
nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from conftest import SHARED_DATA
from taldau.analysis.batch import BatchSettings
from taldau.analysis.folder import open_folder
from taldau.base.kind import STORED, Limit
from taldau.base.records import ReadLimits, RecordFile
from taldau.cli.main import main
from taldau.games.backgammon import kind
from taldau.games.backgammon.engine import analyse
from taldau.games.backgammon.kind import BackgammonKind
from taldau.games.backgammon.records.readers import read_matches
from taldau.games.backgammon.records.writer import write_jellyfish
from taldau.games.backgammon.review import match as review
from taldau.games.backgammon.review.marks import EMG_SCALE
from taldau.games.backgammon.rules.cube import DecisionKind
from taldau.games.backgammon.rules.position import Position

SAMPLE = SHARED_DATA / "backgammon" / "xg"
XG = SAMPLE / "hsbt-paris-2023.xg"
SGF = SAMPLE / "hsbt-paris-2023.sgf"
pytestmark = pytest.mark.skipif(not XG.exists(), reason="needs ../shared/data/backgammon/xg (the XG sample)")
REFERENCE_COLUMNS = ("reference", "reference_best", "reference_loss")


def analyze(path: Path, out: Path, *options: str) -> dict[str, Any]:
    """``taldau analyze`` of ``path`` into ``out`` on one process: its manifest."""
    arguments = ["analyze", str(path), "--out", str(out), "--game", "backgammon", "--jobs", "1", *options]
    result = CliRunner().invoke(main, arguments)
    assert result.exit_code == 0, result.output
    return json.loads((out / "manifest.json").read_text())


def tables(out: Path) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The moves rows (by game and ply) and games rows (by index) of an analysis folder."""
    folder = open_folder(out)
    moves = sorted(folder.rows("moves"), key=lambda row: (row["game_id"], row["ply"]))
    return moves, sorted(folder.rows("games"), key=lambda row: row["index"])


def xg_verdicts() -> list[list[tuple[str, float]]]:
    """Per game of the sample's .xg, XG's stored verdicts in the order of its actions: (kind, loss)."""
    (match,) = read_matches(RecordFile.of_bytes(XG.read_bytes(), str(XG), ReadLimits()))
    return [
        [(str(verdict.kind), verdict.loss) for action in game.actions for verdict in action.verdicts]
        for game in match.games
    ]


def by_game(moves: list[dict[str, Any]], games: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The moves rows of each game, in the order of the games rows."""
    return [[row for row in moves if row["game_id"] == game["game_id"]] for game in games]


def check_reference_pr(moves: list[dict[str, Any]], games: list[dict[str, Any]]) -> None:
    """Each side's reference PR is 500 x the mean reference loss of its counted decisions judged."""
    for game, rows in zip(games, by_game(moves, games), strict=True):
        for side, prefix in enumerate(("white", "black")):
            losses = [
                row["reference_loss"]
                for row in rows
                if row["side"] == side and row["counted"] and row["reference_loss"] is not None
            ]
            assert losses
            expected = EMG_SCALE.performance(sum(losses) / len(losses))
            assert game[f"{prefix}_reference_pr"] == pytest.approx(expected, abs=1e-9)


@pytest.fixture(scope="module")
def quick_xg(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The .xg analysed at 0 plies: our search, XG's verdicts beside it."""
    out = tmp_path_factory.mktemp("quick") / "out"
    analyze(XG, out, "--depth", "0")
    return out


def test_the_reference_columns_hold_xgs_stored_error_beside_our_search(quick_xg: Path) -> None:
    moves, games = tables(quick_xg)
    assert len(games) == 7
    for rows, verdicts in zip(by_game(moves, games), xg_verdicts(), strict=True):
        judged = [(row["kind"], row["reference_loss"]) for row in rows if row["reference"] is not None]
        assert [kind for kind, _ in judged] == [kind for kind, _ in verdicts]
        assert [loss for _, loss in judged] == pytest.approx([loss for _, loss in verdicts], abs=1e-6)
        assert all(row["reference"].startswith("XG ") for row in rows if row["reference"] is not None)
        for row in rows:  # a play's best written as ours are: a legal play's standard notation
            if row["kind"] == "move" and row["reference"] is not None:
                dice = (int(row["dice"][0]), int(row["dice"][1]))
                plays = Position.from_position_id(row["position"]).plays(dice)
                assert row["reference_best"] in {play.text for play in plays}
    # our own analysis is ours: searched, with nodes, and a settled key of its own
    assert any(row["loss"] != row["reference_loss"] for row in moves if row["reference"] is not None)
    check_reference_pr(moves, games)


def test_analyze_level_stored_takes_xgs_verdicts_and_searches_nothing(
    tmp_path: Path, quick_xg: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(*arguments: object, **options: object) -> None:
        raise AssertionError("a stored analysis evaluates nothing")

    for module, name in ((analyse, "choose_evaluator"), (kind, "choose_evaluator"), (review, "review_match")):
        monkeypatch.setattr(module, name, refused)
    monkeypatch.setattr(kind, "review_match", refused)
    manifest = analyze(XG, tmp_path / "stored", "--level", STORED)
    assert "stored" in manifest["settings"]["limit"] and manifest["settings"]["engine_name"] == "stored"
    searched = json.loads((quick_xg / "manifest.json").read_text())
    assert manifest["key"] != searched["key"]
    moves, games = tables(tmp_path / "stored")
    assert {(row["nodes"], row["seconds"], row["depth"]) for row in moves} == {(0, 0.0, 0)}
    for rows, verdicts in zip(by_game(moves, games), xg_verdicts(), strict=True):
        judged = [row for row in rows if row["reference"] is not None]
        assert [row["kind"] for row in judged] == [kind for kind, _ in verdicts]
        assert [row["loss"] for row in judged] == pytest.approx([loss for _, loss in verdicts], abs=1e-6)
        assert all(row["loss"] == row["drop"] == row["reference_loss"] for row in judged)
        assert all(row["best"] == row["reference_best"] for row in judged)
        assert all(
            row["mark"] == (EMG_SCALE.mark(row["loss"]) if not row["forced"] else None) for row in rows
        )
    cube = [row for row in moves if row["kind"] != "move"]  # XG's equities, and gnubg's words for them
    assert cube and all(row["verdict"] and abs(row["double_pass"]) == 1.0 for row in cube)
    # the same decisions as our search lists, but for cube decisions XG did not judge
    quick, _ = tables(quick_xg)
    assert {(row["game_id"], row["kind"], row["position"]) for row in moves if row["kind"] != "cube"} == {
        (row["game_id"], row["kind"], row["position"]) for row in quick if row["kind"] != "cube"
    }
    check_reference_pr(moves, games)
    for game in games:  # the figures are the reference's
        for side in ("white", "black"):
            assert game[f"{side}_pr"] == pytest.approx(game[f"{side}_reference_pr"], abs=1e-9)
    annotated = CliRunner().invoke(main, ["annotate", str(tmp_path / "stored"), "--form", "full"])
    assert annotated.exit_code == 0, annotated.output
    assert (
        "Analysis: taldau, stored" in annotated.stdout
        and "Proper cube action: Double, pass" in annotated.stdout
    )


def gnubg_statistics() -> list[tuple[list[float], list[float]]]:
    """Per game of the sample's .sgf, gnubg's own statistics (its root's ``GS``): each player's checker play
    error and cube error (EMG): ``M:`` ends with each player's EMG and MWC, ``C:`` with each player's six
    kinds of cube error, EMG and MWC each."""
    found = []
    for moves, cube in re.findall(r"GS\[M:([^\]]*)\]\[C:([^\]]*)\]", SGF.read_text(encoding="utf-8")):
        checker = [float(value) for value in moves.split()[-4:]]
        errors = [float(value) for value in cube.split()[-24:]]
        found.append(
            ([checker[0], checker[2]], [sum(errors[side * 12 : side * 12 + 12 : 2]) for side in (0, 1)])
        )
    return found


def test_analyze_level_stored_takes_gnubgs_analysis_of_an_sgf(tmp_path: Path) -> None:
    analyze(SGF, tmp_path / "stored", "--level", STORED)
    moves, games = tables(tmp_path / "stored")
    statistics = gnubg_statistics()
    assert len(games) == len(statistics) == 7
    for rows, (checker, cube) in zip(by_game(moves, games), statistics, strict=True):
        for side in (0, 1):
            plays = [
                row["reference_loss"] or 0.0 for row in rows if row["side"] == side and row["kind"] == "move"
            ]
            cubes = [
                row["reference_loss"] or 0.0 for row in rows if row["side"] == side and row["kind"] != "move"
            ]
            assert sum(plays) == pytest.approx(checker[side], abs=2e-5)  # gnubg writes six decimals
            assert sum(cubes) == pytest.approx(cube[side], abs=5e-5)  # its MWC too, made EMG
        assert {row["reference"] for row in rows} <= {"gnubg 2-ply", "gnubg 0-ply", None}
        # a decision gnubg did not analyse (a roll that cannot be played) is not judged, not counted
        for row in rows:
            if row["reference"] is None:
                assert (row["loss"], row["mark"], row["counted"]) == (0.0, None, False)
    check_reference_pr(moves, games)


def test_a_task_carries_the_verdicts_and_an_older_jellyfish_task_still_reads() -> None:
    backgammon = BackgammonKind()
    games = list(backgammon.read_file(RecordFile.of_bytes(XG.read_bytes(), str(XG), ReadLimits())))
    again = backgammon.decode(json.loads(json.dumps(backgammon.encode(games))), "task")
    assert [step.action.verdicts for game in again for step in game.steps] == [
        step.action.verdicts for game in games for step in game.steps
    ]
    assert any(step.action.verdicts for game in again for step in game.steps)
    older = backgammon.decode(write_jellyfish(games[0].match), "task")  # queued as text by an earlier taldau
    assert [backgammon.identity(game) for game in older] == [backgammon.identity(game) for game in games]
    analyses = backgammon.stored.review([game for game in older if game.valid], Limit(level=STORED))
    assert all(
        decision.reference is None and not decision.counted for a in analyses for decision in a.decisions
    )


def test_stored_is_a_level_of_its_own(tmp_path: Path) -> None:
    stored = BatchSettings("backgammon", Limit(level=STORED))
    assert stored.key != BatchSettings("backgammon", Limit(level="quick")).key
    with pytest.raises(ValueError, match="searches nothing"):
        BatchSettings("backgammon", Limit(depth=2, level=STORED)).search()
    with pytest.raises(ValueError, match="hold no analysis"):
        BatchSettings("togyz", Limit(level=STORED)).search()


def test_a_folder_of_the_versions_before_reads_with_the_reference_null(
    tmp_path: Path, quick_xg: Path
) -> None:
    out = tmp_path / "old"
    out.mkdir()
    for item in quick_xg.iterdir():
        if item.is_dir():
            (out / item.name).mkdir()
            for part in item.glob("*.parquet"):
                table = pq.read_table(part)
                dropped = [name for name in table.column_names if "reference" in name]
                table = table.drop_columns(dropped)
                version = b"7" if item.name == "moves" else b"4"
                metadata = {**(table.schema.metadata or {}), b"taldau.schema_version": version}
                pq.write_table(table.replace_schema_metadata(metadata), out / item.name / part.name)
        else:
            (out / item.name).write_bytes(item.read_bytes())
    moves, games = tables(out)
    assert moves and all(row[name] is None for row in moves for name in REFERENCE_COLUMNS)
    assert all(game["white_reference_pr"] is None and game["white_pr"] is not None for game in games)


def test_gnubg_analysis_that_cannot_be_read_is_no_verdict_and_no_error() -> None:
    text = SGF.read_text(encoding="utf-8")
    text = re.sub(r"DA\[[^\]]*\]", "DA[E ver 3 2C 1 nan x 0.5]", text)
    text = re.sub(r"A\[(\d+)\]\[", "A[99][", text, count=20)
    text = re.sub(r"(A\[\d+\]\[[a-z]*) E ver 3 ", r"\1 E ver 3 inf ", text, count=20)
    backgammon = BackgammonKind()
    games = list(backgammon.read_games(text.encode(), "damaged.sgf"))
    assert len(games) == 7 and all(game.valid for game in games)
    verdicts = [verdict for game in games for step in game.steps for verdict in step.action.verdicts]
    assert verdicts and {verdict.kind for verdict in verdicts} == {DecisionKind.MOVE}
    assert all(verdict.loss >= 0 for verdict in verdicts)
