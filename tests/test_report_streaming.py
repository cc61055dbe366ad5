"""The report streams game by game (issue 54, item 14): it read every decision of an archive at once (930 MB
of rows for the bglab matches), so that an archive ten times larger would not fit a laptop. Now each game's
decisions are read a batch of the ``moves`` table at a time and dropped once its page is written; the
index and the player pages keep only counts and the worst blunders. Checked without timing anything: the
pages are the same whatever the batch (games cut across batches), and the decisions alive at once stay
those of one game and of the blunders listed, however many games the folder holds."""

from __future__ import annotations

import re
import weakref
from pathlib import Path

import pyarrow as pa
import pytest
import taldau.analysis.report.data as data
from taldau.analysis.folder import open_folder
from taldau.analysis.report import read_archive, write_report
from taldau.analysis.report.site import PLAYER_WORST, WORST
from taldau.measure.repeated import repeat_folder
from taldau.schemas import MoveRow


def pages(folder: Path) -> dict[str, str]:
    """Every page of a report, the time it was made left out."""
    return {
        str(path.relative_to(folder)): re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d UTC", "", path.read_text("utf-8"))
        for path in sorted(folder.rglob("*.html"))
    }


def test_pages_are_the_same_whatever_the_batch(
    analysed_examples: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for game, folder in analysed_examples.items():
        write_report(folder, tmp_path / f"{game}-whole")
        monkeypatch.setattr(data, "BATCH_ROWS", 7)  # every game cut across batches
        write_report(folder, tmp_path / f"{game}-batches")
        monkeypatch.undo()
        assert pages(tmp_path / f"{game}-whole") == pages(tmp_path / f"{game}-batches")


def test_each_game_has_its_decisions_in_order(
    analysed_examples: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(data, "BATCH_ROWS", 5)
    for folder in analysed_examples.values():
        table = open_folder(folder).table("moves", ["game_id", "ply"]).to_pylist()
        archive = read_archive(folder)
        assert sum(len(game.moves) for game in archive.games) == len(table)
        for game in archive.games:
            expected = sorted(row["ply"] for row in table if row["game_id"] == game.game_id)
            assert [move.ply for move in game.moves] == expected


def test_the_decisions_held_at_once_do_not_grow_with_the_archive(
    analysed_examples: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The backgammon match (one game) 40 times over: the decisions alive at any time are at most two
    games' (the one whose page is written, the next being read) and the blunders the index and the two
    players' pages list, where the report before held all 40 games' at once."""
    folder = repeat_folder(analysed_examples["backgammon"], tmp_path / "x40", 40)
    decisions = open_folder(analysed_examples["backgammon"]).table("moves", ["game_id"]).num_rows
    alive: weakref.WeakSet[MoveRow] = weakref.WeakSet()
    most = 0
    made = data.move_rows_of
    batches: list[int] = []

    def counted(table: pa.Table) -> list[MoveRow]:
        nonlocal most
        rows = made(table)
        alive.update(rows)
        batches.append(table.num_rows)
        most = max(most, len(alive))
        return rows

    def progress(done: int, total: int) -> None:
        nonlocal most
        most = max(most, len(alive))

    monkeypatch.setattr(data, "move_rows_of", counted)
    monkeypatch.setattr(data, "BATCH_ROWS", 1_000)
    summary = write_report(folder, tmp_path / "report", progress=progress)
    assert summary.games == 40 and sum(batches) == 40 * decisions and max(batches) <= 1_000
    assert most <= 2 * decisions + WORST + 2 * PLAYER_WORST < 40 * decisions
    assert len(list((tmp_path / "report" / "games").glob("*.html"))) == 40
