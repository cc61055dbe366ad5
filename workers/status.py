"""What the broker and its workers hold, run by run, and withdrawing a run's queued games (`taldau status`,
`taldau cancel`).

Every task carries its run (``RunSpec``: the run's id and output folder), in the queue's messages and in
what the workers report running, so queued and running games are grouped by run. A task a worker took and
never acknowledged (kombu's ``unacked`` hash) that no worker alive reports holding was held by a worker
that is gone (killed): it counts at once as ``lost``, waiting to be sent again (by its client, or by the
broker after the visibility timeout), as the run's client counts it. Cancelling a run takes its
messages off the queue, removes their markers, delivery counts and results as the run's own client does when
it stops, and marks the run over: its games a worker holds reserved are dropped when they start, and a
client still following the run stops (``Cancelled``). Games already running finish: their rows wait on the
broker for the same command, run again, to store them (``results``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import redis
from celery import Celery
from taldau.analysis.batch import GameTask

from .broker import safe_url
from .celery_app import (
    FINISHED_KEY,
    QUEUED_KEY,
    ServiceSettings,
    forget,
    make_app,
    mark_finished,
    redis_client,
)
from .messages import RunSpec
from .queued import QUEUE, UNACKED, QueuedMessage, queued_messages, take_off_queue, unacked_messages
from .run import BrokerUnavailable


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
class HeldTask:
    """A task a worker holds, running it or reserved: the worker, the task's id, and the task and its run
    (both None for a task of no taldau run)."""

    worker: str
    id: str
    task: GameTask | None
    run: RunSpec | None

    @classmethod
    def of(cls, worker: str, job: Mapping[str, Any]) -> HeldTask:
        """The task of one entry of a worker's answer to Celery's ``inspect().active()`` or ``reserved()``."""
        args = job.get("args") or []
        try:
            return cls(worker, job["id"], GameTask.from_json(args[0]), RunSpec.from_json(args[1]))
        except (KeyError, TypeError, IndexError, AttributeError, ValueError):
            return cls(worker, job["id"], None, None)


Held = list[HeldTask] | None  # the tasks the workers hold; None when no worker answered
Reply = dict[str, list[dict[str, Any]]] | None  # the workers' answers to an inspect command, by worker name


def _inspect_held(app: Celery, limit: int | None) -> tuple[Reply, Reply]:
    """The workers' answers to Celery's ``inspect().active()`` and ``reserved()`` (a real round trip each,
    stopping at ``limit`` answers). Reserved is asked first: a task goes from reserved to running, never back,
    so a task a worker holds throughout is in one of the answers (asked the other way round, it could slip
    between them)."""
    inspect = app.control.inspect(timeout=2.0, limit=limit)
    reserved = inspect.reserved()
    return inspect.active(), reserved


def _tasks(reply: Reply) -> Held:
    """The tasks of the workers' answers, by worker name; None when none answered."""
    if reply is None:
        return None
    return [HeldTask.of(worker, job) for worker, jobs in sorted(reply.items()) for job in jobs]


def held_tasks(app: Celery, limit: int | None = None) -> tuple[Held, Held]:
    """The tasks the workers alive are running and those they hold reserved (a real round trip, stopping at
    ``limit`` answers), by worker name."""
    active, reserved = _inspect_held(app, limit)
    return _tasks(active), _tasks(reserved)


@dataclass(frozen=True)
class RunningGame:
    """A task a worker is analysing: the worker, the task id, its record (source and index) and its run
    (None for a task of no taldau run)."""

    worker: str
    task: str
    source: str
    index: int
    run: str | None

    @classmethod
    def of(cls, held: HeldTask) -> RunningGame | None:
        """The game of a task a worker is running; None for a task of no taldau run."""
        if held.task is None or held.run is None:
            return None
        return cls(held.worker, held.id, held.task.source, held.task.index, held.run.id)


@dataclass
class RunStatus:
    """One run's games on the broker: ``queued`` in the queue (what `cancel` withdraws), ``reserved`` taken
    by a worker that has not started them, ``running`` being analysed, ``lost`` held by a worker that is
    gone (waiting to be sent again: by the run's client, or by the broker after its visibility timeout).
    Together, the games the run's client has sent and follows, less those finished and not collected yet."""

    id: str
    out: str
    queued: int = 0
    reserved: int = 0
    running: int = 0
    lost: int = 0


@dataclass(frozen=True)
class QueueStatus:
    """The broker (password masked), the task messages queued, the workers alive (a real round trip), the
    games they are analysing, the runs these belong to (by output folder, then id), and the games of runs
    held by workers that are gone (``lost``)."""

    broker: str
    queued: int
    workers: tuple[str, ...]
    running: tuple[RunningGame, ...]
    runs: tuple[RunStatus, ...] = ()
    lost: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "broker": self.broker,
            "queued": self.queued,
            "workers": list(self.workers),
            "running": [asdict(game) for game in self.running],
            "runs": [asdict(run) for run in self.runs],
            "lost": self.lost,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> QueueStatus:
        return cls(
            broker=data["broker"],
            queued=data["queued"],
            workers=tuple(data["workers"]),
            running=tuple(RunningGame(**game) for game in data["running"]),
            runs=tuple(RunStatus(**run) for run in data["runs"]),
            lost=data.get("lost", 0),
        )


@dataclass(frozen=True)
class Withdrawal:
    """What `cancel` did to one run: ``withdrawn`` queued games taken off the queue (and games held by a
    worker that is gone, dropped when the broker hands them out again), ``reserved`` games a worker holds
    that it drops when it comes to them, ``running`` games that finish (their rows wait on the broker for a
    rerun of the run's command)."""

    run: str
    out: str
    withdrawn: int
    reserved: int
    running: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Withdrawal:
        return cls(**data)


class UnknownRun(LookupError):
    """No queued or running game of the run asked for."""


def _sent_by(message: QueuedMessage, run: str) -> bool:
    spec = message.run()
    return spec is not None and spec.id == run


def _held_by_the_gone(
    client: redis.Redis, taken: Mapping[bytes, QueuedMessage], accounted: set[str]
) -> list[QueuedMessage]:
    """The tasks of taldau runs among ``taken`` (deliveries read before the workers alive were pinged and
    asked what they hold) that no worker alive holds and that wait to be analysed, one message each: a task
    not ``accounted`` for (in the queue, or held by a worker alive), a delivery of it still unacknowledged
    now (read before and still there after the workers answered, it was held all along: a worker alive
    would have reported it), its marker still set (it has not ended), and its run not over (a delivery of a
    run over is dropped)."""
    deliveries: dict[str, list[bytes]] = {}
    first: dict[str, tuple[QueuedMessage, RunSpec]] = {}
    for tag, message in taken.items():
        spec = message.run()
        if spec is not None and message.task not in accounted:
            deliveries.setdefault(message.task, []).append(tag)
            first.setdefault(message.task, (message, spec))
    if not deliveries:
        return []
    pipe = client.pipeline(transaction=False)
    for task, tags in deliveries.items():
        pipe.hmget(UNACKED, tags)
        pipe.exists(QUEUED_KEY.format(task))
        pipe.exists(FINISHED_KEY.format(first[task][1].id))
    answers = pipe.execute()
    return [
        first[task][0]
        for index, task in enumerate(deliveries)
        if any(answers[3 * index]) and answers[3 * index + 1] and not answers[3 * index + 2]
    ]


def _look(broker: str) -> tuple[QueueStatus, list[QueuedMessage]]:
    """The broker's status, and the tasks held by workers that are gone (see ``queue_status``)."""
    app = make_app(broker)
    try:  # before the workers are pinged and asked (see _held_by_the_gone); once, without retrying
        with redis.Redis.from_url(broker, socket_connect_timeout=2, socket_timeout=2) as once:
            taken = unacked_messages(once)
    except redis.RedisError:
        taken = {}  # the broker does not answer: the ping says so
    workers = ping_workers(app)
    client = redis_client(broker)
    messages = queued_messages(client)
    active_reply, reserved_reply = _inspect_held(app, len(workers)) if workers else ({}, {})
    active, reserved = _tasks(active_reply) or [], _tasks(reserved_reply) or []
    runs: dict[str, RunStatus] = {}

    def run_of(spec: RunSpec) -> RunStatus:
        return runs.setdefault(spec.id, RunStatus(spec.id, spec.out))

    for message in messages:
        spec = message.run()
        if spec is not None:
            run_of(spec).queued += 1
    running = []
    for held in active:
        game = RunningGame.of(held)
        if held.run is not None and game is not None:
            run_of(held.run).running += 1
            running.append(game)
    started = {held.id for held in active}
    for held in reserved:
        if held.run is not None and held.id not in started:  # started between the two questions
            run_of(held.run).reserved += 1
    # A worker that answered the ping but not both questions may hold any task: then none counts as lost.
    everyone = set(workers) <= set(active_reply or {}) & set(reserved_reply or {})
    accounted = {message.task for message in messages} | started | {held.id for held in reserved}
    lost = _held_by_the_gone(client, taken, accounted) if everyone else []
    for message in lost:
        spec = message.run()
        if spec is not None:
            run_of(spec).lost += 1
    status = QueueStatus(
        broker=safe_url(broker),
        queued=int(client.llen(QUEUE)),
        workers=tuple(workers),
        running=tuple(running),
        runs=tuple(sorted(runs.values(), key=lambda run: (run.out, run.id))),
        lost=len(lost),
    )
    return status, lost


def queue_status(broker: str) -> QueueStatus:
    """The broker's queue depth, workers alive, the games they analyse, the runs queued, running or held by
    a worker that is gone (a task taken and not acknowledged that no worker alive reports holding: counted at
    once, not after the broker's visibility timeout); raises BrokerUnavailable when the broker is down."""
    return _look(broker)[0]


def cancel_runs(
    broker: str, run: str | None = None, out: str | None = None, service: ServiceSettings | None = None
) -> list[Withdrawal]:
    """Withdraw the queued games of run ``run`` (its id), or of every run writing to ``out``, and mark
    those runs over; raises UnknownRun when no such run has a game queued or running, BrokerUnavailable
    when the broker is down."""
    if (run is None) == (out is None):
        raise ValueError("give a run id or an output folder, not both")
    folder = None if out is None else str(Path(out).absolute())
    status, lost = _look(broker)
    chosen = [known for known in status.runs if known.id == run or known.out == folder]
    if not chosen:
        what = f"run {run}" if run is not None else f"run writing to {folder}"
        raise UnknownRun(f"no {what} has games queued or running on {status.broker}")
    service = service or ServiceSettings.from_env()
    app = make_app(broker, service)
    client = redis_client(broker)
    withdrawals = []
    for known in chosen:
        mark_finished(client, known.id, service)  # first: a client following the run stops sending
        mine = [message for message in queued_messages(client) if _sent_by(message, known.id)]
        taken = take_off_queue(client, mine)
        gone = [message for message in lost if _sent_by(message, known.id)]  # dropped when handed out again
        forget(app, client, known.id, [message.task for message in (*taken, *gone)])
        withdrawals.append(
            Withdrawal(known.id, known.out, len(taken) + len(gone), known.reserved, known.running)
        )
    return withdrawals
