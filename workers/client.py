"""The client side of a run on Celery workers: it claims and sends the run's tasks a window at a time,
follows them to the end (sending again those its workers lost), hands each result over with its rows as it
comes (the caller writes them: the client is the output folder's one writer), and cleans up after itself.
It waits for workers as long as it takes unless told otherwise (``ServiceSettings.wait_for_workers``), and
says what it sees of them (``watch.ServiceState``).

See ``celery_app`` for the keys it keeps beside each task (markers, delivery counts, finished runs), and
``results`` for the rows on their way."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any

import redis
from celery import states
from celery.exceptions import TaskRevokedError
from kombu.exceptions import OperationalError
from taldau.analysis.accounting import count
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
from .messages import RunSpec, TaskReport, TaskResult
from .queued import queued_messages, take_off_queue
from .results import fetch_rows, rows_key, with_rows
from .run import (
    MAX_DELIVERIES,
    BrokerUnavailable,
    Executor,
    Finished,
    Interrupted,
    WorkerProblem,
    failure_result,
)
from .status import ping_workers
from .store import ResultStore
from .watch import Notify, ServiceState, Watch

CHECK_PER_ROUND = 256  # results asked about per polling round

# What a broker that is restarting raises (to the client, which waits for it as it waits for workers).
BROKER_DOWN = (redis.ConnectionError, redis.TimeoutError, OperationalError)


class Cancelled(Interrupted):
    """`taldau cancel` withdrew the run's queued games while its client followed them: ``left`` games are
    not analysed (a rerun of the same command analyses them)."""

    def __init__(self, left: int) -> None:
        super().__init__(left, 0)
        self.args = (f"cancelled with {count(left, 'game')} left",)


@dataclass
class Pending:
    """A task the client follows: the task, and how many times it was sent again."""

    task: GameTask
    resent: int = 0


class _Client:
    """The client side of one run on the broker: claims and sends tasks, a window at a time, follows them
    to the end, hands over their results, and cleans up after itself."""

    def __init__(
        self, broker: str, service: ServiceSettings, spec: RunSpec, notify: Notify = lambda _: None
    ) -> None:
        self.app = make_app(broker, service)
        self.redis = redis_client(broker)
        self.service = service
        self.spec = spec
        self.notify = notify
        self.store = ResultStore(spec.out, spec.key)
        self.pending: dict[str, Pending] = {}  # by task id, oldest first
        self.unsent: deque[GameTask] = deque()  # not sent yet: the window is full
        self.sent: set[str] = set()  # task ids this run sent
        self.claimed: set[str] = set()  # task ids whose marker this run set (sent, or collected)

    def result_key(self, task: str) -> bytes | str:
        """The result backend's key of a task's result."""
        return self.app.backend.get_key_for_task(task)

    def games_left(self) -> int:
        """The run's games not handed over yet (pending or not sent)."""
        return self.games_pending() + sum(len(task.games) for task in self.unsent)

    def games_pending(self) -> int:
        """The run's games sent (or followed) and not handed over yet."""
        return sum(len(pending.task.games) for pending in self.pending.values())

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
        (then follow it) or its result is waiting in Redis (a run of the same command whose client died
        before collecting it: then collect it). Games already pending are passed over, so that a submission
        cut by a broker restart can start again."""
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
            mine = [
                task
                for task, claimed, owner in zip(batch, claims, owners, strict=True)
                if claimed or owner == self.spec.id.encode()
            ]
            self.claimed.update(mine)
            # Read once the marker is ours: a worker stores a result before it removes the marker.
            waiting = set() if self.spec.redo else self.waiting_results(mine)
            stale = [task for task in mine if task not in waiting]
            if stale:
                self.redis.delete(*(self.result_key(task) for task in stale), *map(rows_key, stale))
            for task in batch:
                if task in stale:
                    self.sent.add(task)
                    self.send(task, by_id[task])
                self.pending[task] = Pending(by_id[task])

    def waiting_results(self, tasks: Sequence[str]) -> set[str]:
        """The tasks among ``tasks`` whose result is waiting to be collected (not a refusal: a task refused
        by a worker is sent again)."""
        if not tasks:
            return set()
        waiting = set()
        for task, raw in zip(tasks, self.redis.mget([self.result_key(task) for task in tasks]), strict=True):
            meta = None if raw is None else self.app.backend.decode_result(raw)
            if meta is None or meta["status"] not in states.READY_STATES:
                continue
            if meta["status"] == states.SUCCESS and TaskReport.from_json(meta["result"]).problem:
                continue
            waiting.add(task)
        return waiting

    def top_up(self) -> None:
        """Send tasks not sent yet until the window is full (taken off ``unsent`` once submitted)."""
        room = self.service.window - len(self.pending)
        if room <= 0 or not self.unsent:
            return
        batch = [self.unsent[index] for index in range(min(room, len(self.unsent)))]
        self.submit(batch)
        for _ in batch:
            self.unsent.popleft()

    def resend(self, task: str, why: str, finished: Finished) -> None:
        """Send a task again under the same id (its parts are overwritten, never duplicated), or record it
        as failed after MAX_DELIVERIES sends."""
        pending = self.pending[task]
        if pending.resent >= MAX_DELIVERIES:
            del self.pending[task]
            finished([failure_result(pending.task, self.spec, why)])
            return
        self.redis.set(QUEUED_KEY.format(task), self.spec.id, ex=MARKER_SECONDS)
        self.redis.delete(self.result_key(task), rows_key(task))
        self.claimed.add(task)
        self.sent.add(task)
        self.send(task, pending.task)
        pending.resent += 1

    def collect(self, finished: Finished, heard: Callable[[], None] = lambda: None) -> bool:
        """Hand over the finished tasks among the oldest pending ones, with their rows; True when any
        finished. ``heard`` is called first when a worker's result came. A task's result and rows are
        deleted once handed over (``finished`` has stored them), so a client that dies before leaves them
        for the next run.

        The results (and markers) of a round are read in one ``MGET`` each, and the rows in one pipeline:
        asking Celery about each task (``AsyncResult.ready``) costs a round trip per pending task and
        round, which on a run of a thousand short tasks took a tenth of a core from the workers
        (BENCHMARKS.md)."""
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
        reports = {
            task: TaskReport.from_json(meta["result"])
            for task, _, meta in ended
            if meta["status"] == states.SUCCESS
        }
        rows = dict(zip(reports, fetch_rows(self.redis, list(reports.values())), strict=True))
        if ended:
            heard()
        handed: list[bytes | str] = []  # the keys of the results handed over, deleted once stored
        results: list[TaskResult] = []  # handed over together: their rows are stored in one part
        for task, key, meta in ended:
            game = self.pending[task].task
            outcome = meta["result"]
            if task in reports:
                result = with_rows(reports[task], rows[task]) or self.stored(game)
                if result is None:  # its rows expired (or were lost with a broker's data): run it again
                    self.resend(task, "its rows were gone from the broker each time", finished)
                    continue
                del self.pending[task]
                results.append(result)
                handed += [key, rows_key(task)]
            elif isinstance(outcome, TaskRevokedError):
                # cancelled by a worker that lost its broker connection: run it again
                self.resend(task, f"worker task failed: {outcome!r}", finished)
            else:
                del self.pending[task]
                results.append(failure_result(game, self.spec, f"worker task failed: {outcome!r}"))
                handed.append(key)
        if results:
            finished(results)
        if handed:
            self.redis.delete(*handed)
        progress = bool(ended)
        # Without a marker and without a result, a task has ended and another client took its result.
        markers = self.redis.mget([QUEUED_KEY.format(task) for task in unfinished]) if unfinished else []
        for task, marker in zip(unfinished, markers, strict=True):
            game = self.pending[task].task
            stored = None if marker is not None else self.stored(game)
            if stored is not None:
                del self.pending[task]
                progress = True
                finished([stored])
        return progress

    def stored(self, game: GameTask) -> TaskResult | None:
        """The report of a task another client stored (``exists``), None when it has no rows on disk."""
        stored = self.store.stored(game.id)
        if stored is None:
            return None
        report = TaskReport(
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
        return TaskResult(report)

    def withdraw(self, tasks: Collection[str]) -> None:
        """Take the run's tasks still waiting off the queue and remove the delivery counts, results and this
        run's markers of ``tasks`` (the run stops: a rerun sends them again)."""
        mine = set(self.pending) & self.sent
        waiting = [message for message in queued_messages(self.redis) if message.task in mine]
        take_off_queue(self.redis, waiting)
        self.cleanup(tasks)

    def cleanup(self, tasks: Collection[str]) -> None:
        """Remove the delivery counts, results, rows and this run's markers of ``tasks``."""
        forget(self.app, self.redis, self.spec.id, tasks)

    def mark_finished(self) -> None:
        """Mark the run over: workers drop its tasks delivered again."""
        mark_finished(self.redis, self.spec.id, self.service)

    def check_cancelled(self) -> None:
        """Raise Cancelled when `taldau cancel` has marked this run over."""
        if self.redis.exists(FINISHED_KEY.format(self.spec.id)):
            raise Cancelled(self.games_left())

    def give_up(self, watch: Watch, who: str, why: str = "") -> None:
        """Raise BrokerUnavailable when ``who`` (no worker, the broker) has not answered for longer than
        the service waits (``ServiceSettings.wait_for_workers``); ``why``: the broker's error, if any."""
        if not watch.overdue():
            return
        waited = watch.wait_for_workers  # the time given, not the time measured (which overshoots it)
        where = f"{who} has answered in {waited:g} s on {safe_url(self.app.conf.broker_url)}{why}"
        left = count(self.games_left(), "game")
        if watch.ever_answered:
            raise BrokerUnavailable(
                f"{where} with {left} left; those sent stay queued: start workers and run the same command "
                "again to resume"
            )
        raise BrokerUnavailable(f"{where}: {left} not analysed, none left queued")

    def wait_for_broker(self, watch: Watch, error: Exception) -> None:
        """The broker is restarting: say so and wait a second, or give up when no worker has answered for
        longer than the service waits (the games sent stay queued)."""
        watch.workers = None
        try:
            self.give_up(watch, "neither a worker nor the broker", f" ({error})")
        except BrokerUnavailable as unavailable:
            raise unavailable from error
        self.notify(ServiceState(None, self.games_left(), watch.silent))
        time.sleep(1.0)

    def look(self, watch: Watch, finished: Finished) -> None:
        """Look at the workers when it is time (say what is seen; give up when they have been gone longer
        than the service waits), and send again the tasks they lost; also stop when `taldau cancel` has
        marked the run over (looked at as often)."""
        lost = watch.look(self.pending)
        if lost is None:
            return
        self.check_cancelled()
        self.notify(ServiceState(watch.workers, self.games_left(), 0.0 if watch.workers else watch.silent))
        if not watch.workers:
            self.give_up(watch, "no worker" if watch.workers == 0 else "neither a worker nor the broker")
        for task in lost:
            self.resend(task, "lost by its worker each time it was sent", finished)

    def run(self, games: list[GameTask], finished: Finished) -> None:
        """Send the run's tasks and follow them until each is handed over (see ``celery_executor``)."""
        ping_workers(self.app, limit=1)  # raises BrokerUnavailable when the broker does not answer
        watch = Watch(self.app, self.redis, self.service)
        tasks = [task_id(self.spec, game.id) for game in games]
        self.unsent.extend(games)

        def heard() -> None:
            """A worker's result came: when none answered the last look, count them now, so that the
            progress shown with the result says who works (a worker may come and finish a run of short
            games between two looks)."""
            watch.progress()
            self.look(watch, finished)

        def patiently(action: Callable[[], None]) -> None:
            """Do ``action`` once the broker answers (again, if it restarts meanwhile)."""
            while True:
                try:
                    return action()
                except BROKER_DOWN as error:
                    self.wait_for_broker(watch, error)

        try:
            while self.pending or self.unsent:
                try:
                    self.top_up()
                    self.look(watch, finished)
                    if self.collect(finished, heard):
                        watch.progress()
                except BROKER_DOWN as error:
                    self.wait_for_broker(watch, error)
                    continue
                if self.pending:
                    time.sleep(self.service.poll)
        except KeyboardInterrupt:
            raise Interrupted(self.games_left(), self.games_pending()) from None
        except WorkerProblem:
            patiently(lambda: self.withdraw(tasks))
            patiently(self.mark_finished)
            raise
        except BrokerUnavailable:
            if not watch.ever_answered:  # no worker answered: what this run sent was never analysed
                patiently(lambda: self.withdraw(self.claimed))
            raise
        patiently(lambda: self.cleanup(tasks))
        patiently(self.mark_finished)


def celery_executor(
    broker: str, service: ServiceSettings | None = None, notify: Notify = lambda _: None
) -> Executor:
    """Submit one task per game, a window at a time (``service.window``), and follow them to the end,
    ``notify`` told what is seen of the workers; wait for workers as long as it takes, or give up when
    none answers for ``service.wait_for_workers`` seconds (at the start: the run's tasks are withdrawn;
    later: those sent stay queued). A broker that does not answer at the start is an error at once."""
    settings = service or ServiceSettings()

    def run(tasks: list[GameTask], spec: RunSpec, finished: Finished) -> None:
        _Client(broker, settings, spec, notify).run(tasks, finished)

    return run
