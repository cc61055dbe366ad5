"""Every input accounted for (issue 34, items 3 and 4): `validate`, `analyze` and `book build` count the files
and games of one folder alike (empty files, files with no game record, invalid games, a duplicate), name each
input they do not use once, and `analyze` keeps no parts once they are compacted, while a rerun still resumes
everything and a second archive analysed into the same folder accumulates."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from taldau.analysis.batch import BatchSettings
from taldau.analysis.folder import Manifest
from taldau.base.kind import Limit
from taldau.cli.main import main
from taldau.schemas import GAMES_SCHEMA, MOVES_SCHEMA
from taldau.workers.run import Progress, local_executor, run_analysis

COUNTED = ("files", "games", "valid", "invalid", "not_records", "not_read", "duplicates")


def sample_games(togyz_examples: Path) -> list[str]:
    """The seven games of the PlayOK sample, each as the text of a file of its own."""
    text = (togyz_examples / "playok-2024-2025-sample.pgn").read_text()
    return [part if part.startswith("[Event") else "[Event" + part for part in text.split("\n\n[Event")]


def mixed_folder(tmp_path: Path, togyz_examples: Path) -> Path:
    """32 files, as a new user's export folder may hold them: 10 empty, 8 with no game record (a comment
    only), notes and a README (no game record: never judged as games), 5 broken games (each invalid), 6
    real games and a copy of the first of them."""
    folder = tmp_path / "archive"
    folder.mkdir()
    for number in range(10):
        (folder / f"empty-{number}.pgn").write_bytes(b"")
    for number in range(8):
        (folder / f"note-{number}.pgn").write_text(f"{{exported by hand, note {number}}}\n")
    (folder / "notes.txt").write_text("Lorem ipsum dolor sit amet\n")
    (folder / "README.md").write_text("# Exported games\n")
    for number in range(5):
        (folder / f"broken-{number}.txt").write_text(f'[Round "{number}"]\n\n1. 87(10) 99(10) *\n')
    games = sample_games(togyz_examples)
    for number, game in enumerate(games[:6]):
        (folder / f"game-{number}.pgn").write_text(game.strip() + "\n")
    shutil.copy(folder / "game-0.pgn", folder / "game-copy.pgn")
    return folder


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def table(out: Path, name: str) -> list[dict]:
    schema = GAMES_SCHEMA if name == "games" else MOVES_SCHEMA
    return pq.read_table(out / name, schema=schema).to_pylist()


def leftovers(out: Path) -> list[Path]:
    """Files left under parts/ and the lock file."""
    return [path for path in out.glob("parts/**/*") if path.is_file()] + list(out.glob(".lock"))


@pytest.mark.slow
def test_validate_analyze_and_book_build_account_for_every_file_alike(
    tmp_path: Path, togyz_examples: Path
) -> None:
    folder = mixed_folder(tmp_path, togyz_examples)
    expected = {
        "files": 32,
        "games": 11,
        "valid": 6,
        "invalid": 5,
        "not_records": 20,
        "not_read": 0,
        "duplicates": 1,
    }

    validate = invoke("validate", str(folder))
    assert validate.exit_code == 1
    assert validate.stdout.splitlines()[-1].startswith("32 files, 11 games: 6 valid, 5 invalid, ")
    assert validate.stdout.splitlines()[-1].endswith("; 20 not records, 1 duplicate")
    summary = json.loads(invoke("validate", "--json", str(folder)).stdout)["summary"]
    assert {key: summary[key] for key in COUNTED} == expected

    out = tmp_path / "out"
    analyze = invoke("analyze", str(folder), "--out", str(out), "--depth", "1", "--jobs", "1", "--json")
    assert analyze.exit_code == 1, analyze.output
    inputs = json.loads((out / "manifest.json").read_text())["inputs"]
    assert {key: inputs[key] for key in COUNTED} == expected
    assert (inputs["analysed"], inputs["failed"]) == (6, 0)
    assert json.loads(analyze.stdout)["inputs"] == {**expected, "other_game": 0}
    # Each input not analysed is listed once, in the manifest and on stderr.
    reasons = sorted((Path(item["source"]).name, item["reason"]) for item in inputs["not_used"])
    assert reasons == sorted(
        [(f"empty-{n}.pgn", "not a record") for n in range(10)]
        + [(f"note-{n}.pgn", "not a record") for n in range(8)]
        + [("notes.txt", "not a record"), ("README.md", "not a record"), ("game-copy.pgn", "duplicate")]
    )
    (duplicate,) = [item for item in inputs["not_used"] if item["reason"] == "duplicate"]
    assert Path(duplicate["duplicate_of"]["source"]).name == "game-0.pgn"
    assert duplicate["duplicate_of"]["index"] == duplicate["index"] == 1
    stderr = analyze.stderr.splitlines()
    assert f"{folder}/empty-3.pgn: empty file: no game record found" in stderr
    assert f"{folder}/note-5.pgn: no game found" in stderr
    assert f"{folder}/game-copy.pgn, game 1: duplicate of {folder}/game-0.pgn, game 1" in stderr
    assert f"{folder}/notes.txt: no game record: text with no move, move number, tag or result" in stderr
    assert f"{folder}/README.md: a .md file, not a record: skipped" in stderr
    assert sum(line.startswith(f"{folder}/broken-") for line in stderr) == 5  # invalid, one line each
    rows = table(out, "games")
    assert sorted(row["status"] for row in rows) == ["invalid"] * 5 + ["ok"] * 6
    assert len({row["source"] for row in rows}) == 11  # every broken file has its own row

    book = invoke("book", "build", str(folder), "--out", str(tmp_path / "book"), "--json")
    assert book.exit_code == 1
    counted = json.loads(book.stdout)["inputs"]
    assert {key: counted[key] for key in COUNTED} == expected
    text = invoke("book", "build", str(folder), "--out", str(tmp_path / "book"))
    assert text.stdout.startswith("32 files, 11 games: 6 counted, 5 partial; 20 not records, 1 duplicate -> ")


def analyse(paths: list[Path], out: Path, resume: bool = True) -> tuple[Manifest, Progress]:
    """``run_analysis`` at depth 1 on one process; the manifest and the progress at the start."""
    seen: list[Progress] = []
    manifest = run_analysis(
        paths,
        out,
        BatchSettings(limit=Limit(depth=1)),
        local_executor(1),
        resume=resume,
        progress=lambda state: seen.append(Progress(**{**state.__dict__})) if not seen else None,
    )
    return manifest, seen[0]


@pytest.mark.slow
def test_parts_go_once_compacted_and_a_rerun_still_resumes_everything(
    tmp_path: Path, togyz_examples: Path
) -> None:
    games = sample_games(togyz_examples)
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    (first / "a.pgn").write_text(games[1] + "\n" + games[3])
    (second / "b.pgn").write_text(games[5])
    out = tmp_path / "out"
    manifest, started = analyse([first], out)
    assert (started.total, manifest.counts.ok) == (2, 2)
    assert leftovers(out) == []
    moves = table(out, "moves")

    manifest, started = analyse([first], out)  # every task found in the compacted files: nothing to run
    assert (started.total, started.resumed, manifest.counts.ok) == (0, 2, 2)
    assert table(out, "moves") == moves  # the same rows, to the seconds each search took
    assert leftovers(out) == []

    manifest, started = analyse([first], out, resume=False)  # --no-resume analyses again
    assert (started.total, started.resumed, manifest.counts.ok) == (2, 0, 2)
    assert len(table(out, "moves")) == len(moves) and leftovers(out) == []

    manifest, started = analyse([second], out)  # another archive into the same folder accumulates
    assert (started.total, manifest.counts.games) == (1, 1)
    assert manifest.folder.games == manifest.folder.ok == 3
    games_rows = table(out, "games")
    assert len(games_rows) == len({row["game_id"] for row in games_rows}) == 3
    assert sum(row["plies"] for row in games_rows) == len(table(out, "moves"))
    assert leftovers(out) == []


@pytest.mark.slow
def test_a_part_written_after_compaction_is_merged_the_next_time(
    tmp_path: Path, togyz_examples: Path
) -> None:
    """A part another run's worker writes once this run has compacted stays in parts/ and is merged (not
    lost, not doubled) by the next compaction; the part of a game stored before replaces its rows."""
    from taldau.analysis.batch import GameTask, analyse_task, plan
    from taldau.workers.store import ResultStore, RunRecord

    settings = BatchSettings(limit=Limit(depth=1))
    archive = tmp_path / "games.pgn"
    archive.write_text("\n".join(sample_games(togyz_examples)[5:7]))
    one, two = (item for item in plan([archive], settings) if isinstance(item, GameTask))
    store = ResultStore(tmp_path / "out", settings.key)
    store.prepare()
    store.write(one.id, *analyse_task(one, settings))
    store.compact(settings.record(), RunRecord("first", frozenset(game.game_id for game in one.games)))
    assert store.analysed() == {one.id} and leftovers(tmp_path / "out") == []
    store.write(two.id, *analyse_task(two, settings))  # another run's client, after the compaction
    store.write(one.id, *analyse_task(one, settings))  # a task delivered again
    assert store.stored(one.id) is not None
    ids = frozenset(game.game_id for task in (one, two) for game in task.games)
    manifest = store.compact(settings.record(), RunRecord("second", ids))
    assert manifest.counts.games == manifest.folder.games == 2
    rows = table(tmp_path / "out", "games")
    assert sorted(row["task"] for row in rows) == sorted([one.id, two.id])
    assert sum(row["plies"] for row in rows) == len(table(tmp_path / "out", "moves"))
    assert store.analysed() == {one.id, two.id} and leftovers(tmp_path / "out") == []
    # Once compacted, a task is still found for the client that asks after it.
    assert store.stored(two.id) == {"task": two.id, "status": "ok", "plies": two.plies}


def test_a_round_s_tasks_are_stored_together_and_the_newer_part_of_a_game_counts(
    tmp_path: Path, togyz_examples: Path
) -> None:
    """A client's round of tasks is two parts, their moves then their games: its ``ok`` tasks count as
    analysed, a failed one does not, and `stored` finds each. The failed task analysed again later (a part
    of its own, newer) replaces its rows of the round: compaction keeps one row per game, the newer, with its
    moves. A round whose games part was never written (its client died between the two) counts for nothing,
    and its moves part goes once it is a day old."""
    from taldau.analysis.batch import GameTask, analyse_task, plan
    from taldau.schemas.files import write_atomic
    from taldau.workers.run import failed_rows
    from taldau.workers.store import STALE_TEMPORARY, ResultStore, RunRecord

    settings = BatchSettings(limit=Limit(depth=1))
    archive = tmp_path / "games.pgn"
    archive.write_text("\n".join(sample_games(togyz_examples)[:4]))
    one, two, three, four = (item for item in plan([archive], settings) if isinstance(item, GameTask))
    out = tmp_path / "out"
    store = ResultStore(out, settings.key)
    store.prepare()
    failed = failed_rows(three, settings, "the worker died")
    analysed = [(task.id, *analyse_task(task, settings)) for task in (one, two)]
    store.write_round([*analysed, (three.id, None, failed)])
    [moves_part] = (out / "parts" / settings.key / "moves").glob("part-round-*.parquet")
    [games_part] = (out / "parts" / settings.key / "games").glob("part-round-*.parquet")
    assert moves_part.name == games_part.name
    assert store.analysed() == {one.id, two.id}
    assert store.stored(one.id) == {"task": one.id, "status": "ok", "plies": one.plies}
    assert store.stored(three.id) == {"task": three.id, "status": "failed", "plies": 0}
    assert store.stored(four.id) is None
    an_hour_ago = games_part.stat().st_mtime - 3_600
    for part in (moves_part, games_part):
        os.utime(part, (an_hour_ago, an_hour_ago))
    store.write(three.id, *analyse_task(three, settings))  # run again, ok
    four_moves, _ = analyse_task(four, settings)
    orphan = out / "parts" / settings.key / "moves" / "part-round-0123456789abcdef.parquet"
    write_atomic(four_moves, orphan)  # a round cut short after its moves
    assert store.analysed() == {one.id, two.id, three.id}
    ids = frozenset(game.game_id for task in (one, two, three, four) for game in task.games)
    manifest = store.compact(settings.record(), RunRecord("run", ids))
    games = table(out, "games")
    assert sorted(row["task"] for row in games) == sorted([one.id, two.id, three.id])
    assert all(row["status"] == "ok" for row in games)
    assert manifest.counts.games == 3
    assert len(table(out, "moves")) == one.plies + two.plies + three.plies
    assert store.analysed() == {one.id, two.id, three.id}
    assert leftovers(out) == [orphan]  # its writer may still be about to write its games part
    a_day_ago = orphan.stat().st_mtime - STALE_TEMPORARY - 1
    os.utime(orphan, (a_day_ago, a_day_ago))
    store.compact(settings.record(), RunRecord("later", ids))
    assert leftovers(out) == [] and len(table(out, "games")) == 3
