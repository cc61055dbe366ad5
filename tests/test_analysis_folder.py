"""The analysis folder's one owner (``taldau.analysis.folder``): a folder written by `taldau analyze` opens
with its typed manifest and settings; its tables read as today's schema, from files of today's versions and
of earlier ones (a column an older version lacks reads as null, plies count from 1); what is not an analysis
folder is refused with its name; and the readers (annotate, books, the report, the CLI's summary) agree with
it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from taldau.analysis.accounting import Inputs
from taldau.analysis.annotate import StoredAnalysis
from taldau.analysis.folder import (
    MANIFEST,
    Counts,
    FolderError,
    FolderSettings,
    Manifest,
    is_analysis_folder,
    open_folder,
    read_manifest,
)
from taldau.analysis.report import read_archive
from taldau.schemas import (
    GAMES_SCHEMA,
    GAMES_SCHEMA_VERSION,
    MOVES_SCHEMA,
    MOVES_SCHEMA_VERSION,
    RENAMED_IN_7,
)


def test_a_folder_analyze_wrote_opens_typed_with_every_row(analysed_examples: dict[str, Path]) -> None:
    folder = open_folder(analysed_examples["backgammon"])
    manifest = json.loads((folder.path / MANIFEST).read_text(encoding="utf-8"))
    assert folder.manifest == Manifest.from_json(manifest) and folder.manifest.to_json() == manifest
    assert folder.key == manifest["key"] and folder.settings.game == "backgammon"
    assert folder.settings.limit == manifest["settings"]["limit"] and folder.settings.engine_name == "sage"
    assert folder.settings.engine_label == f"sage ({manifest['settings']['engine']})"
    assert folder.settings.thresholds == tuple(manifest["settings"]["thresholds"])
    moves, games = folder.table("moves"), folder.table("games")
    assert moves.schema.names == MOVES_SCHEMA.names and games.schema.names == GAMES_SCHEMA.names
    assert moves.num_rows == folder.manifest.folder.plies == 118 and games.num_rows == 1
    assert moves.column("ply").to_pylist()[:3] == [1, 2, 3]
    assert folder.table("moves", ["game_id", "luck_mwc"]).schema.names == ["game_id", "luck_mwc"]
    assert folder.rows("games", ["status"]) == [{"status": "ok"}]


def _rewrite_as(path: Path, schema: pa.Schema, version: str, dropped: list[str], shift: int = 0) -> None:
    """Rewrite a compacted file as an earlier version wrote it: without the ``dropped`` columns, its
    version in the metadata, (``shift`` -1) plies counted from 0, and, before version 7, the moves' columns
    under their names then (``RENAMED_IN_7``)."""
    table = pq.read_table(path).drop_columns(dropped)
    if shift:
        index = table.column_names.index("ply")
        table = table.set_column(index, "ply", pa.compute.add(table.column("ply"), shift))
    before = {today: then for then, today in RENAMED_IN_7.items()} if int(version) < 7 else {}
    table = table.rename_columns([before.get(name, name) for name in table.column_names])
    fields = [
        field.with_name(before.get(field.name, field.name)) for field in schema if field.name not in dropped
    ]
    old = pa.schema(fields, metadata={b"taldau.schema_version": version.encode()})
    pq.write_table(table.cast(old), path)


@pytest.mark.parametrize("game", ["backgammon", "togyz"])
def test_files_of_earlier_schema_versions_read_as_today_s(
    analysed_examples: dict[str, Path], tmp_path: Path, game: str
) -> None:
    """A folder whose moves are version 3 (plies from 0, the columns named as before version 7, no
    ``drop``, ``judged``, ``loss_se`` or ``luck_mwc``) and games version 3 (no ``luck_mwc``): the same rows
    as today's files, ``drop`` computed as version 6 computed it (backgammon: the loss in EMG; Togyz: the
    winning chances given away), the other missing columns null."""
    today = open_folder(analysed_examples[game])
    shutil.copytree(today.path, tmp_path / "old")
    old = open_folder(tmp_path / "old")
    (moves,) = old.files("moves")
    (games,) = old.files("games")
    _rewrite_as(moves, MOVES_SCHEMA, "3", ["drop", "judged", "loss_se", "luck_mwc"], shift=-1)
    _rewrite_as(games, GAMES_SCHEMA, "3", ["white_luck_mwc", "black_luck_mwc"])
    written = pq.read_table(moves)
    assert written.column("ply").to_pylist()[0] == 0 and MOVES_SCHEMA_VERSION != "3"
    assert {"fen", "move", "best_move", "win_chance_before"} <= set(written.column_names)
    assert GAMES_SCHEMA_VERSION != "3"
    then, now = old.table("moves"), today.table("moves")
    assert then.schema == now.schema and then.num_rows == now.num_rows
    for name in now.column_names:
        if name in ("judged", "loss_se", "luck_mwc"):
            assert then.column(name).null_count == then.num_rows
        elif name == "drop":
            assert then.column(name).to_pylist() == pytest.approx(now.column(name).to_pylist(), abs=1e-12)
        else:
            assert then.column(name).to_pylist() == now.column(name).to_pylist(), name
    assert old.table("moves", ["game_id", "played", "drop"]).column("played") == now.column("played")
    assert old.rows("games", ["white_luck_mwc", "white_luck"])[0]["white_luck_mwc"] is None
    assert old.rows("games", ["white_luck"]) == today.rows("games", ["white_luck"])
    first = today.rows("games")[0]["game_id"]
    assert len(StoredAnalysis.open(old.path).decisions[first]) == len(
        StoredAnalysis.open(today.path).decisions[first]
    )
    assert [move.drop for move in read_archive(old.path).games[0].moves] == pytest.approx(
        [move.drop for move in read_archive(today.path).games[0].moves], abs=1e-12
    )


def test_an_old_manifest_reads_with_what_it_did_not_store_empty(tmp_path: Path) -> None:
    (tmp_path / "moves").mkdir()
    (tmp_path / "games").mkdir()
    settings = {
        "game": "togyz",
        "limit": "depth 3",
        "thresholds": [0.5, 1.0, 2.0],
        "engine": "taldau-togyz-1",
    }
    (tmp_path / MANIFEST).write_text(json.dumps({"key": "abc", "settings": settings, "counts": {"ok": 2}}))
    folder = open_folder(tmp_path)
    assert folder.settings == FolderSettings("togyz", "depth 3", (0.5, 1.0, 2.0), "taldau-togyz-1")
    assert folder.settings.engine_label == "taldau-togyz-1"
    assert folder.manifest.counts == Counts(ok=2) and folder.manifest.folder == Counts(ok=2)
    assert folder.manifest.inputs == Inputs() and folder.manifest.failures == ()
    assert (
        folder.table("moves").num_rows == 0 and folder.table("moves").schema == MOVES_SCHEMA.remove_metadata()
    )


def test_what_is_not_an_analysis_folder_is_refused_by_name(tmp_path: Path) -> None:
    assert not is_analysis_folder(tmp_path) and read_manifest(tmp_path) is None
    with pytest.raises(FolderError, match=rf"{tmp_path}: not a `taldau analyze` output folder"):
        open_folder(tmp_path)
    (tmp_path / "moves").mkdir()
    (tmp_path / "games").mkdir()
    (tmp_path / MANIFEST).write_text("[1, 2")
    assert is_analysis_folder(tmp_path)
    with pytest.raises(FolderError, match=rf"{tmp_path / MANIFEST}: not a manifest taldau wrote"):
        open_folder(tmp_path)
    (tmp_path / MANIFEST).write_text(json.dumps({"key": "abc", "settings": {}}))
    with pytest.raises(FolderError, match=rf"{tmp_path}: its manifest names no game"):
        open_folder(tmp_path)
    (tmp_path / MANIFEST).write_text(json.dumps({"key": "abc", "settings": {"game": "togyz"}}))
    with pytest.raises(ValueError, match="not 'plies'"):
        open_folder(tmp_path).files("plies")


def test_a_run_into_a_folder_whose_manifest_is_broken_is_refused_by_name(tmp_path: Path) -> None:
    """``analyze --out`` a folder whose manifest is not one taldau wrote: a usage error naming the file,
    before any work, and the folder left as it was."""
    from click.testing import CliRunner
    from taldau.cli.main import main

    examples = Path(__file__).resolve().parents[1] / "examples" / "togyz"
    (tmp_path / MANIFEST).write_text("{broken")
    result = CliRunner().invoke(main, ["analyze", str(examples), "--out", str(tmp_path), "--depth", "1"])
    assert result.exit_code == 2 and f"{tmp_path / MANIFEST}: not a manifest taldau wrote" in result.output
    assert sorted(path.name for path in tmp_path.iterdir()) == [MANIFEST]
