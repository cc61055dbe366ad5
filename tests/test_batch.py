"""`taldau analyze` on one machine: Parquet out, invalid games kept as rows, resume, settings guard."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pandas
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from helpers import alive, another_game
from taldau.base.kind import Limit
from taldau.cli.main import main
from taldau.schemas import GAMES_SCHEMA, MOVES_SCHEMA

BROKEN = '[Event "broken"]\n[White "w"]\n[Black "b"]\n\n1. 87(10) 86(10) 2. 22 *\n'


def analyze(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["analyze", *args])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture()
def archive(tmp_path: Path, togyz_examples: Path) -> Path:
    folder = tmp_path / "archive"
    folder.mkdir()
    shutil.copy(togyz_examples / "scoresheet.txt", folder)
    shutil.copy(togyz_examples / "compact.txt", folder)
    return folder


def rows(out: Path, table: str) -> list[dict]:
    schema = MOVES_SCHEMA if table == "moves" else GAMES_SCHEMA
    return pq.read_table(out / table, schema=schema).to_pylist()


def test_local_run_writes_parquet_that_duckdb_reads(tmp_path: Path, archive: Path) -> None:
    out = tmp_path / "out"
    code, stdout, _ = analyze(str(archive), "--out", str(out), "--depth", "3", "--jobs", "2", "--json")
    assert code == 0
    summary = json.loads(stdout)
    assert (summary["games"], summary["ok"], summary["invalid"], summary["failed"]) == (5, 5, 0, 0)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["settings"]["limit"] == "depth 3" and manifest["counts"]["plies"] == summary["plies"]
    games = rows(out, "games")
    moves = rows(out, "moves")
    assert [(g["source"].rsplit("/", 1)[-1], g["index"]) for g in games] == [
        ("compact.txt", 1),
        ("compact.txt", 2),
        ("compact.txt", 3),
        ("scoresheet.txt", 1),
        ("scoresheet.txt", 2),
    ]
    assert sum(g["plies"] for g in games) == len(moves) == summary["plies"]
    assert [(m["game_id"], m["ply"]) for m in moves] == sorted((m["game_id"], m["ply"]) for m in moves)
    counts = duckdb.sql(
        f"select g.index, g.plies, count(*) from read_parquet('{out}/games/*.parquet') g "
        f"join read_parquet('{out}/moves/*.parquet') m using (game_id) group by all order by all"
    ).fetchall()
    assert all(plies == count for _, plies, count in counts) and len(counts) == 5
    white = duckdb.sql(f"select white from read_parquet('{out}/games/*.parquet') where white is not null")
    assert white.fetchall() == [("aiym4606",)]
    frame = pandas.read_parquet(out / "moves")
    assert len(frame) == summary["plies"] and frame["mark"].isin([None, "?!", "?", "??"]).all()
    assert set(frame["game_id"]) == {g["game_id"] for g in games}


def test_invalid_games_become_rows_and_the_rest_is_analysed(tmp_path: Path, archive: Path) -> None:
    (archive / "broken.pgn").write_text(BROKEN)
    (archive / "empty.pgn").write_bytes(b"")
    out = tmp_path / "out"
    code, stdout, stderr = analyze(str(archive), "--out", str(out), "--depth", "2", "--json")
    assert code == 1
    summary = json.loads(stdout)
    assert (summary["ok"], summary["invalid"], summary["failed"]) == (5, 1, 0)
    bad = {g["source"].rsplit("/", 1)[-1]: g for g in rows(out, "games") if g["status"] == "invalid"}
    assert "recorded destination pit 6" in bad["broken.pgn"]["error"] and bad["broken.pgn"]["white"] == "w"
    (empty,) = json.loads((out / "manifest.json").read_text())["inputs"]["not_used"]  # not a game: no row
    assert empty["source"].endswith("empty.pgn") and "empty file" in empty["detail"]
    assert "broken.pgn, game 1: invalid: line 5, column 11" in stderr


def test_rerun_resumes_and_other_settings_are_refused(tmp_path: Path, archive: Path) -> None:
    out = tmp_path / "out"
    assert analyze(str(archive), "--out", str(out), "--depth", "2")[0] == 0
    first = rows(out, "moves")
    code, _, stderr = analyze(str(archive), "--out", str(out), "--depth", "2")
    assert code == 0 and "5 resumed" in stderr
    assert not list((out / "parts").glob("*/*/part-*.parquet"))  # not analysed again
    assert rows(out, "moves") == first
    code, _, stderr = analyze(str(archive), "--out", str(out), "--depth", "3")
    assert code == 2 and "holds results of other settings" in stderr


@pytest.mark.slow
def test_an_interrupted_run_completes_when_rerun(tmp_path: Path, togyz_examples: Path) -> None:
    taldau = str(Path(sys.executable).with_name("taldau"))
    out = tmp_path / "out"
    command = [taldau, "analyze", str(togyz_examples), "--out", str(out), "--depth", "7", "--jobs", "2"]
    run = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list((out / "parts").glob("*/moves/part-*.parquet"))) < 2:
        time.sleep(0.05)
    os.killpg(run.pid, signal.SIGTERM)  # as a terminal's Ctrl-C or a scheduler's stop reaches the whole group
    assert run.wait(timeout=60) != 0
    assert not (out / "manifest.json").exists()
    done = len(list((out / "parts").glob("*/games/part-*.parquet")))
    code, stdout, stderr = analyze(str(togyz_examples), "--out", str(out), "--depth", "7", "--json")
    assert code == 0 and f"{done} resumed" in stderr
    summary = json.loads(stdout)
    games = rows(out, "games")
    assert summary["ok"] == len(games) == len({g["game_id"] for g in games})
    assert not list((out / "parts").glob("*/.part-*.tmp"))


@pytest.mark.slow
def test_a_game_that_kills_its_worker_process_fails_alone(tmp_path: Path, togyz_examples: Path) -> None:
    archive = tmp_path / "archive"
    archive.mkdir()
    shutil.copy(togyz_examples / "playok-2024-2025-sample.pgn", archive)
    sample = (archive / "playok-2024-2025-sample.pgn").read_text()
    crash = another_game(sample.split("\n\n[Event")[0], "crash")
    (archive / "crash.pgn").write_text(crash)
    hook = str(Path(__file__).with_name("crash_hook"))  # kills the process analysing Event "crash"
    taldau = str(Path(sys.executable).with_name("taldau"))
    out = tmp_path / "out"
    done = subprocess.run(
        [taldau, "analyze", str(archive), "--out", str(out), "--depth", "3", "--jobs", "2", "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": hook},
        timeout=600,
    )
    assert done.returncode == 1, done.stderr
    summary = json.loads(done.stdout)
    assert (summary["ok"], summary["failed"]) == (7, 1)
    (failed,) = [g for g in rows(out, "games") if g["status"] == "failed"]
    assert failed["source"].endswith("crash.pgn") and "failed after 3 attempts" in failed["error"]
    # A rerun without the crash tries the failed game again and analyses it.
    code, stdout, _ = analyze(str(archive), "--out", str(out), "--depth", "3", "--json")
    assert code == 0 and json.loads(stdout)["failed"] == 0 and json.loads(stdout)["ok"] == 8


def _task_that_may_kill_its_process(task: str, spec: object) -> str:
    """Stands for run_task in the pool's processes: "crash" kills its process once go exists in the
    spec's ``folder``."""
    folder: Path = spec.folder  # type: ignore[attr-defined]
    if task == "crash":
        (folder / "crash.pid").write_text(str(os.getpid()))
        while not (folder / "go").exists():
            time.sleep(0.01)
        os.kill(os.getpid(), signal.SIGKILL)
    return task


def test_a_process_that_dies_while_rows_are_stored_fails_only_its_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pool may break between two submissions (a process dies while the client stores the rows of
    another task): the task being submitted stays queued and runs in a new pool, and only the game that
    killed its process fails. (CI's run of 2026-12-07 lost a whole analysis to this race.)"""
    from types import SimpleNamespace

    import taldau.workers.run as run

    monkeypatch.setattr(run, "run_task", _task_that_may_kill_its_process)
    monkeypatch.setattr(run, "failure_result", lambda task, spec, message: f"failed {task}")
    monkeypatch.setattr(run, "warm_kernels", lambda *_: None)
    settings = SimpleNamespace(game=None, analyser=SimpleNamespace(warm=None))
    spec = SimpleNamespace(settings=settings, folder=tmp_path)
    stored: list[str] = []

    def finished(results: list[str]) -> None:
        stored.extend(results)
        if len(stored) == 1:  # the process running "crash" dies while these rows are stored
            (tmp_path / "go").touch()
            while not (tmp_path / "crash.pid").exists():
                time.sleep(0.01)
            pid = int((tmp_path / "crash.pid").read_text())
            while alive(pid):
                time.sleep(0.01)
            time.sleep(0.5)  # the pool's manager thread marks the pool broken

    run.local_executor(2)(["quick", "crash", "after", "last"], spec, finished)  # type: ignore[arg-type]
    assert sorted(stored) == ["after", "failed crash", "last", "quick"]


def test_two_runs_into_one_folder_at_once_each_report_their_own_games(
    tmp_path: Path, togyz_examples: Path
) -> None:
    """--out accumulates: each run's summary and failures are its own games, the manifest keeps the
    folder's totals under ``folder``."""
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    shutil.copy(togyz_examples / "scoresheet.txt", first)
    shutil.copy(togyz_examples / "compact.txt", second)
    (second / "broken.pgn").write_text(BROKEN)
    out = tmp_path / "out"
    taldau = str(Path(sys.executable).with_name("taldau"))
    runs = [
        subprocess.Popen(
            [taldau, "analyze", str(folder), "--out", str(out), "--depth", "2", "--jobs", "1", "--json"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for folder in (first, second)
    ]
    (first_out, first_err), (second_out, second_err) = (run.communicate(timeout=600) for run in runs)
    assert runs[0].returncode == 0 and runs[1].returncode == 1
    assert {k: json.loads(first_out)[k] for k in ("games", "ok", "invalid", "failed")} == {
        "games": 2,
        "ok": 2,
        "invalid": 0,
        "failed": 0,
    }
    assert {k: json.loads(second_out)[k] for k in ("games", "ok", "invalid", "failed")} == {
        "games": 4,
        "ok": 3,
        "invalid": 1,
        "failed": 0,
    }
    assert "broken.pgn" in second_err and "broken.pgn" not in first_err
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["folder"]["counts"]["games"] == 6 and manifest["folder"]["counts"]["ok"] == 5
    assert len(rows(out, "games")) == 6
    assert not list(out.glob("parts/*/*/.*.tmp"))


def test_compaction_removes_only_the_temporary_files_of_writers_that_are_gone(
    tmp_path: Path, archive: Path
) -> None:
    """A temporary part names its writer (host, process id, random tag): compaction removes those of dead
    processes of this host and old ones of other hosts, never one a live writer may still be writing."""
    from taldau.analysis.batch import BatchSettings

    out = tmp_path / "out"
    folder = out / "parts" / BatchSettings(limit=Limit(depth=2)).key / "games"
    folder.mkdir(parents=True)
    host = socket.gethostname()
    ended = subprocess.Popen(["true"])
    ended.wait()
    live = folder / f".part-live.parquet~{host}~{os.getpid()}~0a0a0a0a.tmp"
    dead = folder / f".part-dead.parquet~{host}~{ended.pid}~0b0b0b0b.tmp"
    remote = folder / ".part-remote.parquet~another-host~4242~0c0c0c0c.tmp"
    stale = folder / ".part-stale.parquet~another-host~4243~0d0d0d0d.tmp"
    for path in (live, dead, remote, stale):
        path.write_bytes(b"half a part")
    two_days_ago = time.time() - 2 * 24 * 3600
    os.utime(stale, (two_days_ago, two_days_ago))
    assert analyze(str(archive), "--out", str(out), "--depth", "2", "--jobs", "1")[0] == 0
    assert live.exists() and remote.exists()
    assert not dead.exists() and not stale.exists()


@pytest.mark.slow
def test_compaction_and_the_manifest_wait_for_the_folder_lock(tmp_path: Path, archive: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    taldau = str(Path(sys.executable).with_name("taldau"))
    with open(out / ".lock", "a+b") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        run = subprocess.Popen(
            [taldau, "analyze", str(archive), "--out", str(out), "--depth", "2", "--jobs", "1"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and len(list(out.glob("parts/*/games/part-*.parquet"))) < 5:
            time.sleep(0.05)
        time.sleep(2)  # the run has nothing left to do but compact
        assert run.poll() is None and not (out / "manifest.json").exists()
        fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
    assert run.wait(timeout=300) == 0
    assert json.loads((out / "manifest.json").read_text())["counts"]["ok"] == 5


def test_a_worker_writes_nothing_and_hands_its_rows_back(tmp_path: Path, archive: Path) -> None:
    """A task run by a worker (a pool process or a Celery worker) never touches the output folder, which it
    may not see at all: it returns the task's rows, in the tables' own schemas, for the client to store."""
    from taldau.analysis.batch import BatchSettings, GameTask, plan
    from taldau.schemas import GAMES_SCHEMA, MOVES_SCHEMA
    from taldau.workers.messages import RunSpec
    from taldau.workers.run import run_task

    settings = BatchSettings(limit=Limit(depth=1))
    task = next(item for item in plan([archive], settings) if isinstance(item, GameTask))
    gone = tmp_path / "gone"
    result = run_task(task, RunSpec("run", str(gone), settings.to_json(), settings.key))
    assert not gone.exists()
    assert result.report.outcome == "analysed" and result.report.problem is None
    assert result.moves is not None and result.games is not None
    assert result.moves.schema.equals(MOVES_SCHEMA) and result.games.schema.equals(GAMES_SCHEMA)
    assert result.moves.num_rows == result.report.decisions == task.plies
    assert result.games.column("task").to_pylist() == [task.id]


def test_ctrl_c_stops_a_local_run_with_exit_130(tmp_path: Path, togyz_examples: Path) -> None:
    taldau = str(Path(sys.executable).with_name("taldau"))
    out = tmp_path / "out"
    command = [taldau, "analyze", str(togyz_examples), "--out", str(out), "--depth", "7", "--jobs", "2"]
    run = subprocess.Popen(
        command,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
        # Ctrl-C's default behaviour, as in a terminal (a test run started as a background job ignores it)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and len(list((out / "parts").glob("*/moves/part-*.parquet"))) < 2:
        time.sleep(0.05)
    os.killpg(run.pid, signal.SIGINT)  # a terminal's Ctrl-C reaches the whole group
    _, stderr = run.communicate(timeout=120)
    assert run.returncode == 130
    assert "not analysed; run the same command again to resume" in stderr.decode()


@pytest.mark.archive
@pytest.mark.slow
def test_tasks_carry_their_game_s_plies(playok_archive: Path) -> None:
    """What each game's time limits are made of; the longest real game has 371 plies."""
    from taldau.analysis.batch import BatchSettings, GameTask, plan

    tasks = [
        item
        for item in plan([playok_archive], BatchSettings(limit=Limit(depth=1)))
        if isinstance(item, GameTask)
    ]
    assert len(tasks) == 2398 and max(task.plies for task in tasks) == 371
    assert sum(task.plies for task in tasks) == 222_045
