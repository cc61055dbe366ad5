"""``taldau bench capacity``: how many workers one client and one Redis serve, measured on results of real
sizes through a real Redis.

Real rows first: a few bundled Togyz games (those ``bench service`` times) at the bench's depth and the
bundled backgammon matches at 0-ply are analysed once, by ``run.run_task`` as a worker runs them. Each
game's figures are then taken over many distinct task ids, replicating those results:

* **finished**: each replica left in Redis as the Celery task leaves it (``results.put_rows`` of its rows,
  and its ``TaskReport`` with their key stored as the task's JSON Celery result), then collected by the
  client's own code (``client._Client.collect``: results read in one ``MGET`` a round, rows in one pipeline,
  each round's parts written by ``ResultStore.write_round`` into a folder of its own), timed; the Redis memory
  (``INFO memory``, ``used_memory``) before and after leaving them, over their number;
* **queued**: as many task messages sent by the client's own ``_Client.submit`` (the marker claimed, the
  message with its record put in Celery's queue), timed; the memory likewise; then withdrawn with
  ``_Client.withdraw``. The bench's run is marked over before anything is sent, so that a worker on a
  ``--broker`` given to the bench drops any task it takes meanwhile instead of analysing it.

From those: the results one client takes in per second as its loop runs (collect up to
``client.CHECK_PER_ROUND`` results, send as many tasks, sleep ``ServiceSettings.poll``), the workers one
client serves at ``worker_rate`` Togyz games per second per worker process, and the Redis memory per 1,000
queued or finished games, per client at a full ``ServiceSettings.window`` and per worker process.

On a ``--broker`` that others use, the memory deltas include their writes meanwhile: the private Redis (the
default) is the one to trust.
"""

from __future__ import annotations

import hashlib
import os
import socket
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

import redis
from celery import states
from taldau.analysis.accounting import count
from taldau.analysis.batch import BatchSettings, GameTask, plan
from taldau.base.kind import Limit
from taldau.measure.local_service import PrivateRedis
from taldau.workers.broker import safe_url
from taldau.workers.celery_app import ServiceSettings, task_id
from taldau.workers.client import CHECK_PER_ROUND, Pending, _Client
from taldau.workers.defaults import RESULTS, SERVICE_DEPTH, WORKER_RATE
from taldau.workers.messages import RunSpec, TaskResult
from taldau.workers.queued import queued_messages
from taldau.workers.results import put_rows, rows_key
from taldau.workers.run import Progress, run_task, storing

TARGET_WORKERS = 200  # issue 37: one client takes in the results of at least this many workers' Togyz games
TASKS_PER_WORKER = 2  # what a worker process holds of a client's window: one task running, one reserved
MB = 1_000_000


@dataclass(frozen=True)
class CapacityBench:
    """What to measure: ``results`` finished tasks and ``queued`` task messages of each game, replicas of
    ``togyz_games`` of the 40 bundled Togyz games (spread over them) analysed at ``depth`` and of the
    backgammon matches of ``backgammon_archive`` (all of them) at 0-ply; ``worker_rate``: one worker
    process's Togyz games per second; ``broker``: a Redis URL (None: a private Redis on a free port);
    ``out``: where the client writes its parts (None: a temporary folder; give one on the disk the output
    folders are on); ``service``: the client's settings (window, poll)."""

    backgammon_archive: Path
    results: int = RESULTS
    queued: int = RESULTS
    togyz_games: int = 8
    depth: int = SERVICE_DEPTH
    worker_rate: float = WORKER_RATE
    broker: str | None = None
    out: Path | None = None
    service: ServiceSettings = field(default_factory=ServiceSettings)

    def __post_init__(self) -> None:
        if min(self.results, self.queued, self.togyz_games) < 1 or self.worker_rate <= 0:
            raise ValueError("results, queued, togyz_games and worker_rate must be positive")


@dataclass(frozen=True)
class Samples:
    """Real results of one game, as a worker returns them, and the run they belong to."""

    spec: RunSpec
    tasks: tuple[GameTask, ...]
    results: tuple[TaskResult, ...]

    def replica(self, number: int) -> tuple[GameTask, TaskResult]:
        """Sample ``number`` (round robin) under a task id of its own, as long as the sample's (the keys
        and messages that name it keep their size): the same rows, another task."""
        index = number % len(self.tasks)
        sample = self.tasks[index].id
        identity = hashlib.sha256(f"{sample} replica {number}".encode()).hexdigest()[: len(sample)]
        result = self.results[index]
        report = replace(result.report, task=identity)
        return replace(self.tasks[index], id=identity), replace(result, report=report)


def bundled_togyz() -> bytes:
    """The 40 real Togyz games that ``bench service`` times (packaged with taldau)."""
    return resources.files("taldau.games.togyz").joinpath("bench-games.pgn").read_bytes()


def analysed_samples(archive: Path, settings: BatchSettings, out: Path, limit: int | None = None) -> Samples:
    """``limit`` tasks spread evenly over ``archive`` (all of them when None, or when it has no more)
    analysed as a worker analyses them, for a run into ``out``."""
    spec = RunSpec(uuid.uuid4().hex, str(out.absolute()), settings, settings.key)
    planned = [item for item in plan([archive], settings) if isinstance(item, GameTask)]
    if limit is not None:
        planned = planned[:: max(1, len(planned) // limit)][:limit]
    tasks = tuple(planned)
    if not tasks:
        raise ValueError(f"no valid {settings.game} game in {archive}")
    return Samples(spec, tasks, tuple(run_task(task, spec) for task in tasks))


def used_memory(client: redis.Redis) -> int:
    """Bytes Redis has allocated (``INFO memory``, ``used_memory``)."""
    return int(client.info("memory")["used_memory"])


def leave_result(client: _Client, celery_id: str, result: TaskResult) -> None:
    """Leave ``result`` in Redis as the Celery task does: its rows (``put_rows``) and its report with their
    key, the task's JSON result."""
    rows = put_rows(client.redis, celery_id, result, client.service.results_expire)
    worker = f"taldau-{os.getpid()}@{socket.gethostname()}"
    report = replace(result.report, worker=worker, rows=rows).to_json()
    client.app.backend.store_result(celery_id, report, states.SUCCESS)


def stored_bytes(client: redis.Redis, result: bytes | str, rows: str) -> int:
    """The bytes of a finished task's values in Redis: its Celery result (at key ``result``) and the fields
    of its rows (at key ``rows``)."""
    return int(client.strlen(result)) + sum(len(value) for value in client.hvals(rows))


@dataclass(frozen=True)
class Finished:
    """Finished tasks collected by a client: how many, their games and decisions, the memory they held in
    Redis, their mean stored bytes, the seconds and rounds their collection took, and the seconds of it
    spent writing parts."""

    results: int
    games: int
    decisions: int
    memory: int
    stored_bytes: float
    seconds: float
    rounds: int
    write_seconds: float


def leave_replicas(client: _Client, samples: Samples, number: int) -> dict[str, Pending]:
    """``number`` replicas of ``samples`` left in Redis as finished tasks; the client's pending tasks, by
    Celery id, oldest first."""
    pending: dict[str, Pending] = {}
    for index in range(number):
        task, result = samples.replica(index)
        celery_id = task_id(samples.spec, task.id)
        leave_result(client, celery_id, result)
        pending[celery_id] = Pending(task)
    return pending


def collect_finished(client: _Client, samples: Samples, number: int) -> Finished:
    """``number`` replicas of ``samples`` left in Redis as finished tasks, then collected by ``client``
    (its ``collect``, round after round, each round's parts written by its ``ResultStore``), timed."""
    before = used_memory(client.redis)
    pending = leave_replicas(client, samples, number)
    memory = used_memory(client.redis) - before
    ids = list(pending)[: len(samples.tasks)]  # one of each sample
    sizes = [stored_bytes(client.redis, client.result_key(task), rows_key(task)) for task in ids]
    client.pending.update(pending)
    client.store.prepare()
    progress = Progress()
    writing = [0.0]  # seconds spent storing results
    store = storing(client.store, progress, lambda _: None)

    def finished(results: list[TaskResult]) -> None:
        """Store the results as the run's client does, and count them; timed."""
        start = time.perf_counter()
        store(results)
        writing[0] += time.perf_counter() - start

    started, rounds = time.perf_counter(), 0
    while client.pending:
        if not client.collect(finished):
            raise RuntimeError(f"{count(len(client.pending), 'result')} left in Redis were not collected")
        rounds += 1
    seconds = time.perf_counter() - started
    mean_size = sum(sizes) / len(sizes)
    return Finished(
        progress.done,
        progress.games_done,
        progress.decisions,
        memory,
        mean_size,
        seconds,
        rounds,
        writing[0],
    )


@dataclass(frozen=True)
class Queued:
    """Task messages a client sent: how many, their games, the memory they hold in Redis, the mean bytes of
    a message in the queue, and the seconds their sending took."""

    tasks: int
    games: int
    memory: int
    message_bytes: float
    seconds: float


def queue_replicas(client: _Client, samples: Samples, number: int) -> Queued:
    """``number`` replicas of ``samples`` sent by ``client`` (its ``submit``: marker and message), timed,
    with the memory they take; then withdrawn (its ``withdraw``: off the queue, markers gone)."""
    tasks = [samples.replica(index)[0] for index in range(number)]
    client.mark_finished()  # a worker on this broker drops what it takes of these tasks
    before = used_memory(client.redis)
    started = time.perf_counter()
    client.submit(tasks)
    seconds = time.perf_counter() - started
    memory = used_memory(client.redis) - before
    sent = [message for message in queued_messages(client.redis) if message.task in client.sent]
    mean_bytes = sum(len(message.raw) for message in sent) / max(len(sent), 1)
    client.withdraw(set(client.pending))
    client.pending.clear()
    return Queued(number, sum(len(task.games) for task in tasks), memory, mean_bytes, seconds)


def paced_rate(finished: Finished, queued: Queued, poll: float) -> float:
    """Tasks per second one client takes in as its loop runs with a full queue: each round it collects up
    to ``CHECK_PER_ROUND`` results (at the measured pace, parts written), sends as many tasks (likewise),
    then sleeps ``poll`` seconds."""
    collect = finished.seconds / finished.results
    send = queued.seconds / queued.tasks
    return CHECK_PER_ROUND / (CHECK_PER_ROUND * (collect + send) + poll)


def game_report(finished: Finished, queued: Queued, service: ServiceSettings) -> dict[str, Any]:
    """One game's figures: client rates (tasks and games per second), bytes and memory per task and game."""
    games_per_task = finished.games / finished.results
    rate = paced_rate(finished, queued, service.poll)
    finished_game = finished.memory / finished.games
    queued_game = queued.memory / queued.games
    return {
        "results": finished.results,
        "games": finished.games,
        "decisions": finished.decisions,
        "games_per_result": round(games_per_task, 2),
        "collect_seconds": round(finished.seconds, 3),
        "collect_rounds": finished.rounds,
        "collected_per_second": round(finished.results / finished.seconds, 1),
        "write_share": round(finished.write_seconds / finished.seconds, 3),
        "send_seconds": round(queued.seconds, 3),
        "sent_per_second": round(queued.tasks / queued.seconds, 1),
        "client_results_per_second": round(rate, 1),
        "client_games_per_second": round(rate * games_per_task, 1),
        "result_bytes": round(finished.stored_bytes),
        "message_bytes": round(queued.message_bytes),
        "redis_bytes_per_finished_result": round(finished.memory / finished.results),
        "redis_bytes_per_queued_task": round(queued.memory / queued.tasks),
        "redis_mb_per_1000_finished_games": round(finished_game * 1_000 / MB, 2),
        "redis_mb_per_1000_queued_games": round(queued_game * 1_000 / MB, 2),
    }


def capacity_report(games: dict[str, dict[str, Any]], bench: CapacityBench) -> dict[str, Any]:
    """Both games' figures; from the Togyz ones the workers one client serves; from the largest task (queued
    or finished, of either game) the Redis memory a full window and a worker process take at most, and
    the worker processes a gigabyte of Redis serves."""
    togyz = games["togyz"]
    workers = togyz["client_results_per_second"] / bench.worker_rate
    worst = max(
        figures[name]
        for figures in games.values()
        for name in ("redis_bytes_per_finished_result", "redis_bytes_per_queued_task")
    )
    window = bench.service.window
    return {
        **games,
        "worker_rate": bench.worker_rate,
        "window": window,
        "poll": bench.service.poll,
        "check_per_round": CHECK_PER_ROUND,
        "workers_per_client": round(workers, 1),
        "target_workers": TARGET_WORKERS,
        "meets_target": workers >= TARGET_WORKERS,
        "redis_mb_per_full_window": round(window * worst / MB, 1),
        "redis_mb_per_worker": round(TASKS_PER_WORKER * worst / MB, 3),
        "workers_per_redis_gb": int(1_000 * MB / (TASKS_PER_WORKER * worst)),
    }


def measure_game(
    url: str, samples: Samples, bench: CapacityBench, phase: Callable[[], None] = lambda: None
) -> dict[str, Any]:
    """One game's figures: its finished results collected, then its task messages queued, each by a client
    of its own on ``url``; ``phase()`` is called as each of the two ends."""
    finished = collect_finished(_Client(url, bench.service, samples.spec), samples, bench.results)
    phase()
    queued = queue_replicas(_Client(url, bench.service, samples.spec), samples, bench.queued)
    phase()
    return game_report(finished, queued, bench.service)


PHASES = 6  # each game's samples analysed, its results collected, its task messages queued


def run_capacity_bench(
    bench: CapacityBench, progress: Callable[[int, int], None] | None = None
) -> dict[str, Any]:
    """The capacity figures (see the module's docstring), on ``bench.broker`` or a private Redis;
    ``progress(done, PHASES)`` is told each phase ended (each game's samples analysed, its results collected,
    its task messages queued)."""
    ended = 0

    def phase() -> None:
        """One more phase ended, told to ``progress``."""
        nonlocal ended
        ended += 1
        if progress is not None:
            progress(ended, PHASES)

    if progress is not None:
        progress(0, PHASES)
    with tempfile.TemporaryDirectory(prefix="taldau-capacity-") as folder:
        root = Path(folder)
        out = bench.out if bench.out is not None else root / "out"
        archive = root / "bench-games.pgn"
        archive.write_bytes(bundled_togyz())
        togyz = BatchSettings(game="togyz", limit=Limit(depth=bench.depth))
        backgammon = BatchSettings(game="backgammon", limit=Limit(depth=0))
        samples = {"togyz": analysed_samples(archive, togyz, out / "togyz", bench.togyz_games)}
        phase()
        samples["backgammon"] = analysed_samples(bench.backgammon_archive, backgammon, out / "backgammon")
        phase()
        server = PrivateRedis(root / "redis") if bench.broker is None else None
        try:
            url = server.url if server is not None else str(bench.broker)
            games = {name: measure_game(url, sample, bench, phase) for name, sample in samples.items()}
        finally:
            if server is not None:
                server.stop()
    report = capacity_report(games, bench)
    report["broker"] = "private" if bench.broker is None else safe_url(bench.broker)
    report["togyz"]["depth"] = bench.depth
    report["backgammon"]["depth"] = 0
    return report
