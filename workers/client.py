"""The client side of a run on Celery workers: it claims and sends the run's tasks, follows them to the end
(sending again those its workers lost), hands each report over as it comes, and cleans up after itself.

See ``celery_app`` for the keys it keeps beside each task (markers, delivery counts, finished runs)."""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

import redis
from celery import states
from celery.exceptions import TaskRevokedError
from kombu.exceptions import OperationalError
from taldau.analysis.batch import GameTask

from .broker import safe_url
from .celery_app import (
    FINISHED_KEY,
    MARKER_SECONDS,
    QUEUED_KEY,
    TASK_NAME,
    ServiceSettings,
    chunks,
    forget,
    make_app,
    mark_finished,
    redis_client,
    task_id,
    time_limits,
)
from .messages import RunSpec, TaskReport
from .queued import queued_messages, take_off_queue
from .run import (
    MAX_DELIVERIES,
    BrokerUnavailable,
    Executor,
    Finished,
    Interrupted,
    WorkerProblem,
    store_failure,
)
from .status import ping_workers
from .store import ResultStore
from .watch import Watch

CHECK_PER_ROUND = 256  # results asked about per polling round

# What a broker that is restarting raises (to the client, which waits for it, up to its patience).
BROKER_DOWN = (redis.ConnectionError, redis.TimeoutError, OperationalError)


class Cancelled(Interrupted):
    """`taldau cancel` withdrew the run's queued games while its client followed them: ``left`` games are
    not analysed (a rerun of the same command analyses them)."""

    def __init__(self, left: int) -> None:
        super().__init__(left, 0)
        self.args = (f"cancelled with {left} games left",)


@dataclass
class Pending:
    """A task the client follows: the task, and how many times it was sent again."""

    task: GameTask
    resent: int = 0


class _Client:
    """The client side of one run on the broker: claims and sends tasks, follows them to the end, and
    cleans up after itself."""

    def __init__(self, broker: str, service: ServiceSettings, spec: RunSpec) -> None:
        self.app = make_app(broker, service)
        self.redis = redis_client(broker)
        self.service = service
        self.spec = spec
        self.store = ResultStore(spec.out, spec.key)
        self.pending: dict[str, Pending] = {}  # by task id, oldest first
        self.sent: set[str] = set()  # task ids whose marker this run set

    def result_key(self, task: str) -> bytes | str:
        """The result backend's key of a task's result."""
        return self.app.backend.get_key_for_task(task)

    def send(self, task: str, game: GameTask) -> None:
        """Send a game's task (the marker is ours already, and a stale result of the same id gone)."""
        budget = self.spec.settings.time_budget(game.plies)
        soft, hard = time_limits(budget, self.service.visibility_timeout)
        self.app.send_task(
            TASK_NAME,
            args=[game.to_json(), self.spec.to_json()],
            task_id=task,
            soft_time_limit=soft,
            time_limit=hard,
        )

    def submit(self, games: Collection[GameTask | dict[str, Any]]) -> None:
        """Send each game's task (a ``GameTask`` or its JSON) unless another run has it queued or running
        (then follow it). Games already pending are passed over, so that a submission cut by a broker
        restart can start again."""
        tasks = [game if isinstance(game, GameTask) else GameTask.from_json(game) for game in games]
        by_id = {task_id(self.spec, game.id): game for game in tasks}
        for batch in chunks([task for task in by_id if task not in self.pending]):
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
                self.pending[task] = Pending(by_id[task])

    def resend(self, task: str, why: str, finished: Finished) -> None:
        """Send a task again under the same id (its parts are overwritten, never duplicated), or record it
        as failed after MAX_DELIVERIES sends."""
        pending = self.pending[task]
        if pending.resent >= MAX_DELIVERIES:
            del self.pending[task]
            finished(store_failure(pending.task, self.spec, why))
            return
        self.redis.set(QUEUED_KEY.format(task), self.spec.id, ex=MARKER_SECONDS)
        self.redis.delete(self.result_key(task))
        self.sent.add(task)
        self.send(task, pending.task)
        pending.resent += 1

    def collect(self, finished: Finished) -> bool:
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
            game = self.pending[task].task
            outcome = meta["result"]
            if meta["status"] == states.SUCCESS:
                del self.pending[task]
                finished(TaskReport.from_json(outcome))
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
            game = self.pending[task].task
            report = None if marker is not None else self.stored(game)
            if report is not None:
                del self.pending[task]
                progress = True
                finished(report)
        return progress

    def stored(self, game: GameTask) -> TaskReport | None:
        """The report of a task stored by another client's workers (``exists``), None when it has no rows."""
        stored = self.store.stored(game.id)
        if stored is None:
            return None
        return TaskReport(
            task=game.id,
            source=game.source,
            index=game.index,
            status=stored["status"],
            games=len(game.games),
            plies=stored["plies"],
            decisions=0,
            outcome="exists",
            key=self.spec.key,
        )

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

    def run(self, games: list[GameTask], finished: Finished) -> None:
        """Send the run's tasks and follow them until each is handed over (see ``celery_executor``)."""
        deadline = time.monotonic() + self.service.wait_for_workers
        while not ping_workers(self.app, limit=1):
            if time.monotonic() > deadline:
                raise BrokerUnavailable(f"no worker answers on {safe_url(self.app.conf.broker_url)}")
            time.sleep(1.0)
        watch = Watch(self.app, self.redis, self.service)
        tasks = [task_id(self.spec, game.id) for game in games]

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

    def run(tasks: list[GameTask], spec: RunSpec, finished: Finished) -> None:
        _Client(broker, settings, spec).run(tasks, finished)

    return run
