"""Celery on a Redis broker: the app, its one task, the client side of a run, and health checks.

Settings follow what is known to work for long CPU-bound tasks (service.md): late acknowledgement, tasks of
a lost worker rejected back to the queue, one task prefetched at a time, soft and hard time limits, the
visibility timeout above them (broker and result backend alike), children replaced when they grow, JSON
only. Redis keeps no delivery count, so the task counts its own deliveries and gives up after
MAX_DELIVERIES: a record that crashes its worker every time ends as a ``failed`` row instead of looping
forever.

A task's id comes from its game (or match), its settings key and its output folder, so the same task of the
same run is never queued twice: a marker key, set only if absent (``SET NX``), says that a task is queued or
running and which run sent it; a client that finds the marker follows the task instead of sending it again (a
rerun after an interruption, or two clients on one folder). Once the task's result is stored the worker
removes the marker and the delivery count; the client removes the results it read, and when the run is over
marks it finished: a task of that run delivered again later (a worker killed holding it comes back after the
visibility timeout) is then dropped without a trace. A task whose marker and result are both gone has ended
and another client took its result: its parts on disk tell how it ended."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import time
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import redis
from celery import Celery, states
from celery.exceptions import Ignore, TaskRevokedError
from celery.utils.log import get_task_logger
from kombu.exceptions import OperationalError
from redis.backoff import ExponentialBackoff
from redis.retry import Retry
from taldau.analysis.batch import BatchSettings, GameTask

from .broker import celery_url, safe_url
from .run import (
    MAX_DELIVERIES,
    BrokerUnavailable,
    Executor,
    Interrupted,
    RunSpec,
    WorkerProblem,
    store_failure,
    store_task,
)
from .store import ResultStore

TASK_NAME = "taldau.analyse_game"
QUEUE = "celery"  # Celery's default queue: a Redis list of JSON messages
DELIVERIES_KEY = "taldau:deliveries:{}"  # per task id: how many times a worker started it
QUEUED_KEY = "taldau:queued:{}"  # per task id: the task is queued or running; the value is the sending run
FINISHED_KEY = "taldau:finished:{}"  # per run id: the run is over, its tasks delivered again are dropped
MARKER_SECONDS = 7 * 24 * 3_600  # a marker outlives any queue wait (and goes with its task)
CHECK_PER_ROUND = 256  # results asked about per polling round
SEND_BATCH = 500  # tasks claimed and sent per round trip

# Delete a key only while it holds the given value: a run removes its own marker, never another run's.
_RELEASE = "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0"

# What a broker that is restarting raises (to the client, which waits for it, up to its patience).
BROKER_DOWN = (redis.ConnectionError, redis.TimeoutError, OperationalError)

logger = get_task_logger(__name__)


class Cancelled(Interrupted):
    """`taldau cancel` withdrew the run's queued games while its client followed them: ``left`` games are
    not analysed (a rerun of the same command analyses them)."""

    def __init__(self, left: int) -> None:
        super().__init__(left, 0)
        self.args = (f"cancelled with {left} games left",)


@dataclass(frozen=True)
class ServiceSettings:
    """How clients and workers use the broker.

    ``visibility_timeout``: seconds after which Redis hands out again a task that a worker took and never
    acknowledged (a worker killed while holding it); the time limits stay below it so that a running task
    is never handed out twice. Unacknowledged tasks are looked at every tenth of it (at most every 100 s,
    kombu's default). ``look_every``: seconds without a result before the client looks at the workers;
    ``patience``: seconds without any worker answering before it gives up (exit 69); ``wait_for_workers``:
    the same at the start; ``poll``: seconds between rounds of asking for results;
    ``max_memory_per_child``: KiB of resident memory past which a worker process is replaced after its task
    (a process holds about 300 MB with the backgammon nets and bear-off database; replacing processes after
    a fixed number of tasks instead cost short tasks 6%: each new process loads its kernels again).
    """

    visibility_timeout: int = 4 * 3_600
    look_every: float = 15.0
    patience: float = 120.0
    wait_for_workers: float = 30.0
    poll: float = 0.25
    max_memory_per_child: int = 1_048_576

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

    def transport_options(self) -> dict[str, Any]:
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
        result_expires=7 * 24 * 3_600,
    )
    deliveries_seconds = service.visibility_timeout * (MAX_DELIVERIES + 1)
    client = redis_client(broker)  # connects on first use, in each process that uses it

    def release(task: Any, status: str, result: Any, task_id: str, args: list[Any], *_: Any) -> None:
        """Once the task's result is stored (or its failure): its delivery count and its run's marker go."""
        client.delete(DELIVERIES_KEY.format(task_id))
        client.eval(_RELEASE, 1, QUEUED_KEY.format(task_id), RunSpec.from_json(args[1]).id)

    @app.task(name=TASK_NAME, bind=True, after_return=release)
    def analyse_game(self: Any, task: dict[str, Any], run: dict[str, Any]) -> dict[str, Any]:
        """Analyse and store one task, unless its run is over (then drop the task without a result) or it
        has already been delivered MAX_DELIVERIES times (then store it as failed)."""
        spec = RunSpec.from_json(run)
        if client.exists(FINISHED_KEY.format(spec.id)):
            logger.warning("%s: its run %s is over; delivered again, dropped", self.request.id, spec.id)
            raise Ignore()
        key = DELIVERIES_KEY.format(self.request.id)
        deliveries = client.incr(key)
        client.expire(key, deliveries_seconds)
        if deliveries > MAX_DELIVERIES:
            message = (
                f"failed after {MAX_DELIVERIES} deliveries: the worker died analysing this game each time"
            )
            result = store_failure(task, spec, message)
        else:
            result = store_task(task, spec)
        return {**result, "worker": self.request.hostname}

    return app


def ping_workers(app: Celery, timeout: float = 2.0, limit: int | None = None) -> list[str]:
    """Names of the workers that answer a real round trip within ``timeout`` (stopping at ``limit``
    answers); raises BrokerUnavailable if the broker is down."""
    try:
        app.connection_for_write().ensure_connection(max_retries=1, timeout=timeout)
        replies = app.control.ping(timeout=timeout, limit=limit) or []
    except Exception as error:  # kombu raises many kinds for an unreachable broker
        raise BrokerUnavailable(f"broker {safe_url(app.conf.broker_url)} unreachable: {error}") from error
    return sorted(name for reply in replies for name in reply)


@dataclass(frozen=True)
class QueuedMessage:
    """A task message waiting in the queue: its task id, its body as kombu stores it (``encoded``: in
    base64), and its bytes as they are in the queue (what takes it off)."""

    task: str
    body: str
    encoded: bool
    raw: bytes

    def run(self) -> RunSpec | None:
        """The run that sent the task; None for a message that is not a taldau task."""
        try:
            body = base64.b64decode(self.body) if self.encoded else self.body
            return RunSpec.from_json(json.loads(body)[0][1])
        except (ValueError, KeyError, TypeError, IndexError):
            return None


def queued_messages(client: redis.Redis) -> list[QueuedMessage]:
    """The task messages waiting in the queue, oldest last."""
    messages = []
    for raw in client.lrange(QUEUE, 0, -1):
        try:
            message = json.loads(raw)
            encoding = message.get("properties", {}).get("body_encoding")
            task, body = message["headers"]["id"], message["body"]
            messages.append(QueuedMessage(task, body, encoding == "base64", raw))
        except (ValueError, KeyError, TypeError, AttributeError):  # not a Celery task message
            continue
    return messages


def queued_task_ids(client: redis.Redis) -> list[str]:
    """The ids of the tasks waiting in the queue, oldest last."""
    return [message.task for message in queued_messages(client)]


def take_off_queue(client: redis.Redis, messages: Collection[QueuedMessage]) -> list[QueuedMessage]:
    """Take ``messages`` off the queue; returns those that were still there (a worker may have taken
    one meanwhile)."""
    pipe = client.pipeline(transaction=False)
    for message in messages:
        pipe.lrem(QUEUE, 1, message.raw)  # type: ignore[arg-type]
    return [message for message, removed in zip(messages, pipe.execute(), strict=True) if removed]


def mark_finished(client: redis.Redis, run: str, service: ServiceSettings) -> None:
    """Mark run ``run`` over (or cancelled), for as long as one of its tasks held by a killed worker (or put
    back in the queue by a stopping worker) may be delivered again: workers drop such tasks."""
    client.set(FINISHED_KEY.format(run), 1, ex=service.visibility_timeout * (MAX_DELIVERIES + 1))


def _chunks(items: list[str], size: int) -> Iterable[list[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


def forget(app: Celery, client: redis.Redis, run: str, tasks: Collection[str]) -> None:
    """Remove the delivery counts, results and run ``run``'s markers of ``tasks``."""
    release = client.register_script(_RELEASE)
    for batch in _chunks(sorted(tasks), SEND_BATCH):
        pipe = client.pipeline(transaction=False)
        for task in batch:
            pipe.delete(DELIVERIES_KEY.format(task), app.backend.get_key_for_task(task))
            release(keys=[QUEUED_KEY.format(task)], args=[run], client=pipe)
        pipe.execute()


def held_task_ids(app: Celery) -> set[str] | None:
    """The ids of the tasks the workers are running or hold reserved, None when no worker answers."""
    inspect = app.control.inspect(timeout=2.0)
    replies = (inspect.active(), inspect.reserved())
    if any(reply is None for reply in replies):
        return None
    return {job["id"] for reply in replies if reply is not None for jobs in reply.values() for job in jobs}


class Watch:
    """Looks at the workers when no result has come for ``service.look_every`` seconds while games are
    pending. Gives up (raising BrokerUnavailable) when no worker has answered for ``service.patience``
    seconds: the games stay queued for a rerun. Reports tasks as lost when, twice in a row, a pending task
    is neither waiting in the queue, nor running or reserved on any worker, nor finished: a worker that died
    holding a task leaves it invisible until the broker's visibility timeout (hours). Tasks are told apart by
    their ids, never by worker names. A broker that is briefly unreachable (a restart) counts as no answer,
    not as an error."""

    def __init__(self, app: Celery, client: redis.Redis, service: ServiceSettings) -> None:
        self.app = app
        self.client = client
        self.patience = service.patience
        self.every = service.look_every
        now = time.monotonic()
        self.last_answer = now
        self.next_look = now + self.every
        self.suspects: set[str] = set()

    def progress(self) -> None:
        """A result came: the workers are alive and busy."""
        now = time.monotonic()
        self.last_answer = now
        self.next_look = now + self.every
        self.suspects = set()

    def _unaccounted(self, pending: Collection[str]) -> set[str] | None:
        """The pending tasks that are nowhere to be seen (None: not known, a worker did not answer)."""
        waiting = set(queued_task_ids(self.client))
        held = held_task_ids(self.app)
        if held is None:
            return None
        candidates = set(pending) - waiting - held
        return {task for task in candidates if not self.app.AsyncResult(task).ready()}

    def look(self, pending: Collection[str]) -> set[str]:
        """Raises when the workers are gone for too long; returns the pending tasks that look lost."""
        now = time.monotonic()
        if now < self.next_look:
            return set()
        self.next_look = now + self.every
        unaccounted: set[str] | None = None
        try:
            answered = bool(ping_workers(self.app, limit=1))
            if answered:
                unaccounted = self._unaccounted(pending)
        except Exception:  # the broker is unreachable or restarting: no answer this time
            answered = False
        if not answered and now - self.last_answer > self.patience:
            raise BrokerUnavailable(
                f"no worker has answered for {now - self.last_answer:.0f} s with {len(pending)} games "
                "pending; they stay queued: start workers and run the same command again to resume"
            )
        if answered:
            self.last_answer = now
        if unaccounted is None:
            self.suspects = set()
            return set()
        lost = unaccounted & self.suspects
        self.suspects = unaccounted - lost
        return lost


class _Client:
    """The client side of one run on the broker: claims and sends tasks, follows them to the end, and
    cleans up after itself."""

    def __init__(self, broker: str, service: ServiceSettings, spec: RunSpec) -> None:
        self.app = make_app(broker, service)
        self.redis = redis_client(broker)
        self.service = service
        self.spec = spec
        self.settings = BatchSettings.from_json(spec.settings)
        self.store = ResultStore(spec.out, spec.key)
        self.pending: dict[str, tuple[dict[str, Any], int]] = {}  # task id -> (task, times sent again)
        self.sent: set[str] = set()  # task ids whose marker this run set

    def result_key(self, task: str) -> bytes | str:
        """The result backend's key of a task's result."""
        return self.app.backend.get_key_for_task(task)

    def send(self, task: str, game: dict[str, Any]) -> None:
        """Send a game's task (the marker is ours already, and a stale result of the same id gone)."""
        budget = self.settings.time_budget(GameTask.from_json(game).plies)
        soft, hard = time_limits(budget, self.service.visibility_timeout)
        self.app.send_task(
            TASK_NAME, args=[game, self.spec.to_json()], task_id=task, soft_time_limit=soft, time_limit=hard
        )

    def submit(self, games: list[dict[str, Any]]) -> None:
        """Send each game's task unless another run has it queued or running (then follow it). Games
        already pending are passed over, so that a submission cut by a broker restart can start again."""
        by_id = {task_id(self.spec, game["id"]): game for game in games}
        for batch in _chunks([task for task in by_id if task not in self.pending], SEND_BATCH):
            pipe = self.redis.pipeline(transaction=False)
            for task in batch:
                pipe.set(QUEUED_KEY.format(task), self.spec.id, nx=True, ex=MARKER_SECONDS)
            claims = pipe.execute()
            for task in batch:  # a marker of this run's own: claimed before a restart cut the submission
                pipe.get(QUEUED_KEY.format(task))
            owners = pipe.execute()
            mine = {
                task
                for task, claimed, owner in zip(batch, claims, owners, strict=True)
                if claimed or owner == self.spec.id.encode()
            }
            if mine:
                self.redis.delete(*(self.result_key(task) for task in mine))
            for task in batch:
                if task in mine:
                    self.sent.add(task)
                    self.send(task, by_id[task])
                self.pending[task] = (by_id[task], 0)

    def resend(self, task: str, why: str, finished: Callable[[dict[str, Any]], None]) -> None:
        """Send a task again under the same id (its parts are overwritten, never duplicated), or record it
        as failed after MAX_DELIVERIES sends."""
        game, resent = self.pending[task]
        if resent >= MAX_DELIVERIES:
            del self.pending[task]
            finished(store_failure(game, self.spec, why))
            return
        self.redis.set(QUEUED_KEY.format(task), self.spec.id, ex=MARKER_SECONDS)
        self.redis.delete(self.result_key(task))
        self.sent.add(task)
        self.send(task, game)
        self.pending[task] = (game, resent + 1)

    def collect(self, finished: Callable[[dict[str, Any]], None]) -> bool:
        """Hand over the finished tasks among the oldest pending ones; True when any finished.

        The results (and markers) of a round are read in one ``MGET`` each: asking Celery about
        each task (``AsyncResult.ready``) costs a round trip per pending task and round, which on a run of
        a thousand short tasks took a tenth of a core from the workers (BENCHMARKS.md)."""
        oldest = list(self.pending)[:CHECK_PER_ROUND]
        if not oldest:
            return False
        keys = [self.result_key(task) for task in oldest]
        backend = self.app.backend
        unfinished, ended = [], []
        for task, key, raw in zip(oldest, keys, self.redis.mget(keys), strict=True):
            meta = None if raw is None else backend.decode_result(raw)
            if meta is None or meta["status"] not in states.READY_STATES:
                unfinished.append(task)
            else:
                ended.append((task, key, meta))
        if ended:  # before a task is sent again under its id, so that its new result is never removed
            self.redis.delete(*(key for _, key, _ in ended))
        for task, _, meta in ended:
            game, _ = self.pending[task]
            outcome = meta["result"]
            if meta["status"] == states.SUCCESS:
                del self.pending[task]
                finished(outcome)
            elif isinstance(outcome, TaskRevokedError):
                # cancelled by a worker that lost its broker connection: run it again
                self.resend(task, f"worker task failed: {outcome!r}", finished)
            else:
                del self.pending[task]
                finished(store_failure(game, self.spec, f"worker task failed: {outcome!r}"))
        progress = bool(ended)
        # Without a marker and without a result, a task has ended and another client took its result.
        markers = self.redis.mget([QUEUED_KEY.format(task) for task in unfinished]) if unfinished else []
        for task, marker in zip(unfinished, markers, strict=True):
            game, _ = self.pending[task]
            stored = None if marker is not None else self.store.stored(game["id"])
            if stored is not None:
                del self.pending[task]
                progress = True
                finished({**stored, "source": game["source"], "index": game["index"], "outcome": "exists"})
        return progress

    def withdraw(self, tasks: Collection[str]) -> None:
        """Take the run's tasks still waiting off the queue and remove the delivery counts, results and this
        run's markers of ``tasks`` (the run stops: a rerun sends them again)."""
        mine = set(self.pending) & self.sent
        waiting = [message for message in queued_messages(self.redis) if message.task in mine]
        take_off_queue(self.redis, waiting)
        self.cleanup(tasks)

    def cleanup(self, tasks: Collection[str]) -> None:
        """Remove the delivery counts, results and this run's markers of ``tasks``."""
        forget(self.app, self.redis, self.spec.id, tasks)

    def mark_finished(self) -> None:
        """Mark the run over: workers drop its tasks delivered again."""
        mark_finished(self.redis, self.spec.id, self.service)

    def check_cancelled(self, watch: Watch) -> None:
        """Raise Cancelled when `taldau cancel` has marked this run over (looked at as often as the
        workers are)."""
        if time.monotonic() >= watch.next_look and self.redis.exists(FINISHED_KEY.format(self.spec.id)):
            raise Cancelled(len(self.pending))

    def wait_for_broker(self, watch: Watch, error: Exception) -> None:
        """The broker is restarting: wait a second, or give up when no worker has answered for the
        service's patience (the games stay queued)."""
        silent = time.monotonic() - watch.last_answer
        if silent > self.service.patience:
            raise BrokerUnavailable(
                f"broker {safe_url(self.app.conf.broker_url)} unreachable for {silent:.0f} s ({error}) with "
                f"{len(self.pending)} games pending; run the same command again to resume"
            ) from error
        time.sleep(1.0)

    def run(self, games: list[dict[str, Any]], finished: Callable[[dict[str, Any]], None]) -> None:
        deadline = time.monotonic() + self.service.wait_for_workers
        while not ping_workers(self.app, limit=1):
            if time.monotonic() > deadline:
                raise BrokerUnavailable(f"no worker answers on {safe_url(self.app.conf.broker_url)}")
            time.sleep(1.0)
        watch = Watch(self.app, self.redis, self.service)
        tasks = [task_id(self.spec, game["id"]) for game in games]

        def patiently(action: Callable[[], None]) -> None:
            """Do ``action`` once the broker answers (again, if it restarts meanwhile)."""
            while True:
                try:
                    return action()
                except BROKER_DOWN as error:
                    self.wait_for_broker(watch, error)

        try:
            patiently(lambda: self.submit(games))
            while self.pending:
                try:
                    self.check_cancelled(watch)
                    for task in watch.look(self.pending):
                        self.resend(task, "lost by its worker each time it was sent", finished)
                    if self.collect(finished):
                        watch.progress()
                except BROKER_DOWN as error:
                    self.wait_for_broker(watch, error)
                    continue
                if self.pending:
                    time.sleep(self.service.poll)
        except KeyboardInterrupt:
            raise Interrupted(len(self.pending), len(self.pending)) from None
        except WorkerProblem:
            patiently(lambda: self.withdraw(tasks))
            patiently(self.mark_finished)
            raise
        patiently(lambda: self.cleanup(tasks))
        patiently(self.mark_finished)


def celery_executor(broker: str, service: ServiceSettings | None = None) -> Executor:
    """Submit one task per game and follow them to the end; give up when no worker answers at the start
    for ``service.wait_for_workers`` seconds, or later for ``service.patience`` seconds (the games stay
    queued)."""
    settings = service or ServiceSettings()

    def run(tasks: list[dict[str, Any]], spec: RunSpec, finished: Callable[[dict[str, Any]], None]) -> None:
        _Client(broker, settings, spec).run(tasks, finished)

    return run
