"""Celery on a Redis broker: the app, its one task, the client side of a run, and health checks.

Settings follow what is known to work for long CPU-bound tasks (service.md): late acknowledgement, tasks of
a lost worker rejected back to the queue, one task prefetched at a time, soft and hard time limits, the
visibility timeout above them (broker and result backend alike), children recycled, JSON only. Redis keeps
no delivery count, so the task counts its own deliveries and gives up after MAX_DELIVERIES: a record that
crashes its worker every time ends as a ``failed`` row instead of looping forever.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import redis
from celery import Celery
from celery.exceptions import TaskRevokedError

from .run import MAX_DELIVERIES, BrokerUnavailable, Executor, store_failure, store_task

TASK_NAME = "taldau.analyse_game"
VISIBILITY_TIMEOUT = 4 * 3_600  # above any hard time limit plus the longest wait of a prefetched task
LONGEST_GAME = 600  # plies; the real archive's longest game has 260
DELIVERIES_KEY = "taldau:deliveries:{}"
CHECK_PER_ROUND = 256  # results asked about per polling round


def time_limits(depth: int | None, nodes: int | None) -> tuple[int, int]:
    """Soft and hard time limits in seconds for one game at an analysis limit (None, None: the default).

    Measured (BENCHMARKS.md): 0.2 s per ply at depth 12, about 2.5 times more per extra ply of depth; a node
    limit costs two searches of that many nodes per ply at 3 million nodes/s. The longest game gets five times
    that, and the hard limit stays below the broker's visibility timeout so a running task is never handed
    out twice.
    """
    per_ply = 2 * nodes / 3e6 if nodes is not None else 0.2 * 2.5 ** ((depth or 12) - 12)
    soft = int(min(max(60.0, 5 * per_ply * LONGEST_GAME), VISIBILITY_TIMEOUT / 2))
    return soft, soft + 60


def make_app(broker: str) -> Celery:
    """The Celery app of taldau on ``broker`` (a redis:// URL), used by workers and clients alike."""
    app = Celery("taldau", broker=broker, backend=broker)
    transport = {"visibility_timeout": VISIBILITY_TIMEOUT}
    app.conf.update(
        task_serializer="json",
        result_serializer="json",
        accept_content=["json"],
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_soft_time_limit=time_limits(None, None)[0],
        task_time_limit=time_limits(None, None)[1],
        worker_max_tasks_per_child=200,
        worker_cancel_long_running_tasks_on_connection_loss=True,
        broker_transport_options=transport,
        result_backend_transport_options=transport,
        broker_connection_retry_on_startup=True,
        result_expires=7 * 24 * 3_600,
    )

    @app.task(name=TASK_NAME, bind=True)
    def analyse_game(self: Any, task: dict[str, Any], settings: dict[str, Any], out: str) -> dict[str, Any]:
        """Analyse and store one game, unless it has already been delivered MAX_DELIVERIES times."""
        client = redis.Redis.from_url(broker)
        key = DELIVERIES_KEY.format(self.request.id)
        deliveries = client.incr(key)
        client.expire(key, VISIBILITY_TIMEOUT * 2)
        if deliveries > MAX_DELIVERIES:
            message = (
                f"failed after {MAX_DELIVERIES} deliveries: the worker died analysing this game each time"
            )
            return store_failure(task, settings, out, message)
        return store_task(task, settings, out)

    return app


def ping_workers(app: Celery, timeout: float = 2.0, limit: int | None = None) -> list[str]:
    """Names of the workers that answer a real round trip within ``timeout`` (stopping at ``limit``
    answers); raises BrokerUnavailable if the broker is down."""
    try:
        app.connection_for_write().ensure_connection(max_retries=1, timeout=timeout)
        replies = app.control.ping(timeout=timeout, limit=limit) or []
    except Exception as error:  # kombu raises many kinds for an unreachable broker
        raise BrokerUnavailable(f"broker {app.conf.broker_url} unreachable: {error}") from error
    return sorted(name for reply in replies for name in reply)


class Watch:
    """Looks at the workers when no result has come for ``every`` seconds while games are pending. Gives
    up (raising BrokerUnavailable) when no worker has answered for ``patience`` seconds: the games stay
    queued for a rerun. Reports tasks as lost when, twice in a row, the workers answer but hold no task and
    the queue is empty: a worker that died with tasks unacknowledged leaves them invisible until the
    broker's visibility timeout (hours). A broker that is briefly unreachable (a restart) counts as no
    answer, not as an error."""

    def __init__(self, app: Celery, broker: str, patience: float, every: float = 15.0) -> None:
        self.app = app
        self.queue = redis.Redis.from_url(broker)
        self.patience = patience
        self.every = every
        now = time.monotonic()
        self.last_answer = now
        self.next_look = now + every
        self.idle_looks = 0

    def progress(self) -> None:
        """A result came: the workers are alive and busy."""
        now = time.monotonic()
        self.last_answer = now
        self.next_look = now + self.every
        self.idle_looks = 0

    def _idle(self) -> bool:
        """Whether the workers hold no task (running or reserved) and nothing waits in the queue."""
        inspect = self.app.control.inspect(timeout=2.0)
        replies = (inspect.active(), inspect.reserved())
        if any(reply is None for reply in replies):  # no worker answered in time: not known to be idle
            return False
        held = [jobs for reply in replies if reply is not None for jobs in reply.values()]
        return not any(held) and self.queue.llen("celery") == 0

    def look(self, pending: int) -> bool:
        """Raises when the workers are gone for too long; True when pending tasks look lost."""
        now = time.monotonic()
        if now < self.next_look:
            return False
        self.next_look = now + self.every
        try:
            answered = bool(ping_workers(self.app, limit=1))
            idle = answered and self._idle()
        except Exception:  # the broker is unreachable or restarting: no answer this time
            answered = idle = False
        if not answered and now - self.last_answer > self.patience:
            raise BrokerUnavailable(
                f"no worker has answered for {now - self.last_answer:.0f} s with {pending} games pending; "
                "they stay queued: start workers and run the same command again to resume"
            )
        if answered:
            self.last_answer = now
        self.idle_looks = self.idle_looks + 1 if idle else 0
        return self.idle_looks >= 2


def celery_executor(
    broker: str, poll: float = 0.25, wait_for_workers: float = 30.0, patience: float = 120.0
) -> Executor:
    """Submit one task per game and follow them to the end; give up when no worker answers at the start
    for ``wait_for_workers`` seconds, or later for ``patience`` seconds (the games stay queued)."""

    def run(
        tasks: list[dict[str, Any]],
        settings: dict[str, Any],
        out: str,
        finished: Callable[[dict[str, Any]], None],
    ) -> None:
        app = make_app(broker)
        deadline = time.monotonic() + wait_for_workers
        while not ping_workers(app, limit=1):
            if time.monotonic() > deadline:
                raise BrokerUnavailable(f"no worker answers on {broker}")
            time.sleep(1.0)
        soft, hard = time_limits(settings["depth"], settings["nodes"])

        def submit(task: dict[str, Any]) -> str:
            return app.send_task(
                TASK_NAME, args=[task, settings, out], soft_time_limit=soft, time_limit=hard
            ).id

        pending = {submit(task): (task, 0) for task in tasks}
        watch = Watch(app, broker, patience)

        def retry(task: dict[str, Any], resubmitted: int, why: str) -> None:
            """Send a task again (its parts are overwritten, never duplicated), or record it as failed."""
            if resubmitted < MAX_DELIVERIES:
                pending[submit(task)] = (task, resubmitted + 1)
            else:
                finished(store_failure(task, settings, out, why))

        while pending:
            if watch.look(len(pending)):
                for task_id in list(pending):
                    if not app.AsyncResult(task_id).ready():
                        task, resubmitted = pending.pop(task_id)
                        retry(task, resubmitted, "lost by its worker each time it was sent")
            # Tasks leave the queue in order: the oldest pending ones are the ones worth asking about.
            for task_id in list(pending)[:CHECK_PER_ROUND]:
                result = app.AsyncResult(task_id)
                try:
                    ready = result.ready()
                except Exception:  # the result backend is restarting: ask again on the next round
                    continue
                if not ready:
                    continue
                task, resubmitted = pending.pop(task_id)
                watch.progress()
                if result.successful():
                    finished(result.result)
                elif isinstance(result.result, TaskRevokedError):
                    # cancelled by a worker that lost its broker connection: run it again
                    retry(task, resubmitted, f"worker task failed: {result.result!r}")
                else:
                    finished(store_failure(task, settings, out, f"worker task failed: {result.result!r}"))
                result.forget()
            if pending:
                time.sleep(poll)

    return run


def queue_status(broker: str) -> dict[str, Any]:
    """Queue depth, workers alive (real round trip) and the games they are analysing."""
    app = make_app(broker)
    workers = ping_workers(app)
    client = redis.Redis.from_url(broker)
    active = app.control.inspect(timeout=2.0).active() or {}
    running = [
        {"worker": worker, "source": job["args"][0]["source"], "index": job["args"][0]["index"]}
        for worker, jobs in active.items()
        for job in jobs
        if job.get("args")
    ]
    return {"broker": broker, "queued": client.llen("celery"), "workers": workers, "running": running}
