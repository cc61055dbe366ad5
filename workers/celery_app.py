"""Celery on a Redis broker: the app, its one task, and the keys taldau keeps beside Celery's own.

Settings follow what is known to work for long CPU-bound tasks (service.md): late acknowledgement, tasks of
a lost worker rejected back to the queue, one task prefetched at a time, soft and hard time limits, the
visibility timeout above them (broker and result backend alike), children replaced when they grow, JSON
only. Redis keeps no delivery count, so the task counts its own deliveries and gives up after
MAX_DELIVERIES: a record that crashes its worker every time ends as a ``failed`` row instead of looping
forever.

A worker needs nothing but the broker: the task carries its record, and the worker leaves the task's rows in
Redis (``results``) and returns its ``TaskReport`` with their key as the Celery result (JSON); the client
writes the rows into the output folder, then deletes them and the result.

A task's id comes from its game (or match), its settings key and its output folder, so the same task of the
same run is never queued twice: a marker key, set only if absent (``SET NX``), says that a task is queued or
running and which run sent it; a client that finds the marker follows the task instead of sending it again (a
rerun after an interruption, or two clients on one folder), and a client that finds a task's result waiting
(its client died before collecting it) collects it instead of sending the task again. Once the task's result
is stored the worker removes the marker and the delivery count; the client removes the results (and rows) it
stored, and when the run is over marks it finished: a task of that run delivered again later (a worker
killed holding it comes back after the visibility timeout) is then dropped without a trace. A task whose
marker and result are both gone has ended and another client took its result: its parts on disk tell how it
ended.

The client side of a run is ``client``, what the broker holds is ``status``, the liveness of the workers a
client follows is ``watch``."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import redis
from celery import Celery
from celery.exceptions import Ignore
from celery.utils.log import get_task_logger
from redis.backoff import ExponentialBackoff
from redis.retry import Retry
from taldau.analysis.batch import GameTask

from .broker import celery_url
from .messages import RunSpec
from .results import ROWS_KEY, put_rows
from .run import MAX_DELIVERIES, failure_result, run_task

TASK_NAME = "taldau.analyse_game"
DELIVERIES_KEY = "taldau:deliveries:{}"  # per task id: how many times a worker started it
QUEUED_KEY = "taldau:queued:{}"  # per task id: the task is queued or running; the value is the sending run
FINISHED_KEY = "taldau:finished:{}"  # per run id: the run is over, its tasks delivered again are dropped
MARKER_SECONDS = 7 * 24 * 3_600  # a marker outlives any queue wait (and goes with its task)
SEND_BATCH = 500  # tasks claimed, sent or forgotten per round trip

# Delete a key only while it holds the given value: a run removes its own marker, never another run's.
_RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"

logger = get_task_logger(__name__)


@dataclass(frozen=True)
class ServiceSettings:
    """How clients and workers use the broker.

    ``visibility_timeout``: seconds after which Redis hands out again a task that a worker took and never
    acknowledged (a worker killed while holding it); the time limits stay below it so that a running task
    is never handed out twice. Unacknowledged tasks are looked at every tenth of it (at most every 100 s,
    kombu's default). ``look_every``: seconds between two looks at the workers (how many answer; and when
    no result has come meanwhile, which pending tasks they have lost); ``wait_for_workers``: seconds
    without any worker answering (at the start, or later; or without the broker answering, once the run has
    started) before the client gives up with exit 69, None to wait as long as it takes (the default: workers
    come and go, and a client told so waits for them); ``poll``: seconds between rounds of asking for
    results; ``max_memory_per_child``: KiB of resident memory past which a worker process is replaced after
    its task (a process holds about 300 MB with the backgammon nets and bear-off database; replacing
    processes after a fixed number of tasks instead cost short tasks 6%: each new process loads its kernels
    again).

    ``window``: the most tasks a client has sent and not yet collected (queued, running, or done with their
    rows waiting in Redis); it sends more as it collects. This bounds what Redis holds for a client, rows
    included, and a client that falls behind slows the workers down instead of filling Redis. The default,
    512, keeps a couple of hundred worker processes busy (each holds one task running and may hold one
    reserved, and the client collects every ``poll``) while Redis holds at most 512 tasks' rows and
    messages: a Togyz game's rows take about 11 KB (6 MB in all), a long backgammon match's (834
    decisions) about 65 KB (33 MB at worst; ``results``). ``results_expire``: seconds a task's result and
    rows wait in Redis for a client to collect them (the next run of the same command, when its client
    died) before they expire: a week, as long as the markers of queued tasks.
    """

    visibility_timeout: int = 4 * 3_600
    look_every: float = 15.0
    wait_for_workers: float | None = None
    poll: float = 0.25
    max_memory_per_child: int = 1_048_576
    window: int = 512
    results_expire: int = 7 * 24 * 3_600

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> ServiceSettings:
        """The defaults, with the visibility timeout from TALDAU_VISIBILITY_TIMEOUT (seconds) if set."""
        text = environ.get("TALDAU_VISIBILITY_TIMEOUT")
        if text is None:
            return cls()
        if not text.isdigit() or int(text) < 4:
            raise ValueError(
                f"TALDAU_VISIBILITY_TIMEOUT={text!r}: give a whole number of seconds, at least 4"
            )
        return cls(visibility_timeout=int(text))

    @property
    def redelivery_seconds(self) -> int:
        """Seconds during which a task may still be delivered again (each delivery may wait out the
        visibility timeout)."""
        return self.visibility_timeout * (MAX_DELIVERIES + 1)

    def transport_options(self) -> dict[str, int]:
        """kombu's Redis transport options: the visibility timeout and how often it is enforced."""
        sweep = max(1, min(100, self.visibility_timeout // 10))
        return {
            "visibility_timeout": self.visibility_timeout,
            "unacked_restore_interval": sweep,
            "unacked_restore_throttle": 1,
        }


def redis_client(broker: str) -> redis.Redis:
    """A Redis client on the broker that rides out a restart of a few seconds (ten tries, backing off up
    to 2 s between them)."""
    return redis.Redis.from_url(
        broker,
        retry=Retry(ExponentialBackoff(cap=2.0, base=0.05), 10),
        retry_on_error=[redis.ConnectionError, redis.TimeoutError],
    )


def time_limits(budget: float, visibility_timeout: int) -> tuple[int, int]:
    """Soft and hard time limits in seconds for a task that its game's analyser gives ``budget`` seconds
    (``Analyser.time_budget``): at least a minute, and the hard limit a minute more but below the
    visibility timeout, so that a running task is never handed out twice."""
    soft = int(min(max(60.0, budget), visibility_timeout / 2))
    return soft, soft + min(60, visibility_timeout // 4)


def task_id(spec: RunSpec, task: str) -> str:
    """The Celery id of a task: the same task (game or match), settings key and output folder give the
    same id."""
    folder = hashlib.sha256(spec.out.encode()).hexdigest()[:12]
    return f"taldau-{spec.key}-{folder}-{task}"


def make_app(broker: str, service: ServiceSettings | None = None) -> Celery:
    """The Celery app of taldau on ``broker`` (a URL that ``broker.parse_broker`` accepts), used by workers
    and clients alike."""
    service = service or ServiceSettings()
    app = Celery("taldau", broker=celery_url(broker), backend=celery_url(broker))
    transport = service.transport_options()
    # Every task is sent with its own limits (its analyser's budget); the app's are the ceiling.
    soft, hard = time_limits(service.visibility_timeout / 2, service.visibility_timeout)
    app.conf.update(
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_soft_time_limit=soft,
        task_time_limit=hard,
        worker_max_memory_per_child=service.max_memory_per_child,
        worker_cancel_long_running_tasks_on_connection_loss=True,
        broker_transport_options=transport,
        result_backend_transport_options=transport,
        broker_connection_retry_on_startup=True,
        result_backend_always_retry=True,  # a result stored while Redis restarts is stored once it is back
        result_backend_max_retries=10,
        result_expires=service.results_expire,
    )
    client = redis_client(broker)  # connects on first use, in each process that uses it

    def release(task: Any, status: str, result: Any, task_id: str, args: list[Any], *_: Any) -> None:
        """Once the task's result is stored (or its failure): its delivery count and its run's marker go."""
        client.delete(DELIVERIES_KEY.format(task_id))
        client.eval(_RELEASE, 1, QUEUED_KEY.format(task_id), RunSpec.from_json(args[1]).id)

    @app.task(name=TASK_NAME, bind=True, after_return=release)
    def analyse_game(self: Any, task: dict[str, Any], run: dict[str, Any]) -> dict[str, Any]:
        """Analyse one task (``GameTask.to_json()``) of a run (``RunSpec.to_json()``) and leave its rows in
        Redis for the client, unless its run is over (then drop the task without a result) or it has already
        been delivered MAX_DELIVERIES times (then its rows say it failed); returns its
        ``TaskReport.to_json()``, with the key of its rows."""
        spec = RunSpec.from_json(run)
        if client.exists(FINISHED_KEY.format(spec.id)):
            logger.warning("%s: its run %s is over; delivered again, dropped", self.request.id, spec.id)
            raise Ignore()
        key = DELIVERIES_KEY.format(self.request.id)
        deliveries = client.incr(key)
        client.expire(key, service.redelivery_seconds)
        game = GameTask.from_json(task)
        if deliveries > MAX_DELIVERIES:
            message = (
                f"failed after {MAX_DELIVERIES} deliveries: the worker died analysing this game each time"
            )
            result = failure_result(game, spec, message)
        else:
            result = run_task(game, spec)
        rows = put_rows(client, self.request.id, result, service.results_expire)
        return replace(result.report, worker=self.request.hostname, rows=rows).to_json()

    return app


def mark_finished(client: redis.Redis, run: str, service: ServiceSettings) -> None:
    """Mark run ``run`` over (or cancelled), for as long as one of its tasks held by a killed worker (or put
    back in the queue by a stopping worker) may be delivered again: workers drop such tasks."""
    client.set(FINISHED_KEY.format(run), 1, ex=service.redelivery_seconds)


def chunks(items: list[str], size: int = SEND_BATCH) -> Iterable[list[str]]:
    """``items`` in slices of ``size``, in order."""
    for start in range(0, len(items), size):
        yield items[start : start + size]


def forget(app: Celery, client: redis.Redis, run: str, tasks: Collection[str]) -> None:
    """Remove the delivery counts, results, rows and run ``run``'s markers of ``tasks``."""
    release = client.register_script(_RELEASE)
    for batch in chunks(sorted(tasks)):
        pipe = client.pipeline(transaction=False)
        for task in batch:
            keys = (DELIVERIES_KEY.format(task), app.backend.get_key_for_task(task), ROWS_KEY.format(task))
            pipe.delete(*keys)
            release(keys=[QUEUED_KEY.format(task)], args=[run], client=pipe)
        pipe.execute()
