"""What the broker holds, run by run, and withdrawing a run's queued games (`taldau status`, `taldau cancel`).

Every task carries its run (``RunSpec``: the run's id and output folder), in the queue's messages and in
what the workers report running, so queued and running games are grouped by run. Cancelling a run takes its
messages off the queue, removes their markers, delivery counts and results as the run's own client does when
it stops, and marks the run over: its games a worker holds reserved are dropped when they start, and a
client still following the run stops (``Cancelled``). Games already running finish and are stored."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from celery import Celery

from .broker import safe_url
from .celery_app import (
    QUEUE,
    QueuedMessage,
    ServiceSettings,
    forget,
    make_app,
    mark_finished,
    ping_workers,
    queued_messages,
    redis_client,
    take_off_queue,
)


@dataclass(frozen=True)
class RunningGame:
    """A task a worker is analysing: the worker, the task id, its record (source and index) and its run
    (None for a task of no taldau run)."""

    worker: str
    task: str
    source: str
    index: int
    run: str | None


@dataclass
class RunStatus:
    """One run's games on the broker: ``queued`` in the queue (what `cancel` withdraws), ``reserved`` taken
    by a worker that has not started them, ``running`` being analysed."""

    id: str
    out: str
    queued: int = 0
    reserved: int = 0
    running: int = 0


@dataclass(frozen=True)
class QueueStatus:
    """The broker (password masked), the task messages queued, the workers alive (a real round trip), the
    games they are analysing, and the runs these belong to (by output folder, then id)."""

    broker: str
    queued: int
    workers: tuple[str, ...]
    running: tuple[RunningGame, ...]
    runs: tuple[RunStatus, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "broker": self.broker,
            "queued": self.queued,
            "workers": list(self.workers),
            "running": [asdict(game) for game in self.running],
            "runs": [asdict(run) for run in self.runs],
        }


@dataclass(frozen=True)
class Withdrawal:
    """What `cancel` did to one run: ``withdrawn`` queued games taken off the queue, ``reserved`` games a
    worker holds that it drops when it comes to them, ``running`` games that finish and are stored."""

    run: str
    out: str
    withdrawn: int
    reserved: int
    running: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class UnknownRun(LookupError):
    """No queued or running game of the run asked for."""


Jobs = dict[str, list[dict[str, Any]]]  # what Celery's inspect answers: the tasks of each worker


def _held(app: Celery, workers: int) -> tuple[Jobs, Jobs]:
    """The tasks the ``workers`` alive are running and hold reserved, by worker (asked of none if none)."""
    if not workers:
        return {}, {}
    inspect = app.control.inspect(timeout=2.0, limit=workers)
    return inspect.active() or {}, inspect.reserved() or {}


def _run_of(job: dict[str, Any]) -> tuple[str, str] | None:
    """The id and output folder of the run of a task a worker reports; None for a task of no taldau run."""
    args = job.get("args") or []
    run = args[1] if len(args) > 1 and isinstance(args[1], dict) else {}
    if not isinstance(run.get("id"), str) or not isinstance(run.get("out"), str):
        return None
    return run["id"], run["out"]


def _sent_by(message: QueuedMessage, run: str) -> bool:
    spec = message.run()
    return spec is not None and spec.id == run


def queue_status(broker: str) -> QueueStatus:
    """The broker's queue depth, workers alive, the games they analyse, and the runs queued or running;
    raises BrokerUnavailable when the broker is down."""
    app = make_app(broker)
    workers = ping_workers(app)
    client = redis_client(broker)
    messages = queued_messages(client)
    active, reserved = _held(app, len(workers))
    runs: dict[str, RunStatus] = {}

    def run_of(key: tuple[str, str]) -> RunStatus:
        return runs.setdefault(key[0], RunStatus(*key))

    for message in messages:
        spec = message.run()
        if spec is not None:
            run_of((spec.id, spec.out)).queued += 1
    running = []
    for worker, jobs in sorted(active.items()):
        for job in jobs:
            key = _run_of(job)
            if key is not None:
                run_of(key).running += 1
                game = job["args"][0]
                running.append(RunningGame(worker, job["id"], game["source"], game["index"], key[0]))
    for jobs in reserved.values():
        for job in jobs:
            key = _run_of(job)
            if key is not None:
                run_of(key).reserved += 1
    return QueueStatus(
        broker=safe_url(broker),
        queued=int(client.llen(QUEUE)),
        workers=tuple(workers),
        running=tuple(running),
        runs=tuple(sorted(runs.values(), key=lambda run: (run.out, run.id))),
    )


def cancel_runs(
    broker: str, run: str | None = None, out: str | None = None, service: ServiceSettings | None = None
) -> list[Withdrawal]:
    """Withdraw the queued games of run ``run`` (its id), or of every run writing to ``out``, and mark
    those runs over; raises UnknownRun when no such run has a game queued or running, BrokerUnavailable
    when the broker is down."""
    if (run is None) == (out is None):
        raise ValueError("give a run id or an output folder, not both")
    folder = None if out is None else str(Path(out).absolute())
    status = queue_status(broker)
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
        forget(app, client, known.id, [message.task for message in taken])
        withdrawals.append(Withdrawal(known.id, known.out, len(taken), known.reserved, known.running))
    return withdrawals
