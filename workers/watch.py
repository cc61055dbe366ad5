"""Whether the workers a client follows are alive, how many answer, and which of its tasks they have lost."""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from dataclasses import dataclass

import redis
from celery import Celery

from .celery_app import ServiceSettings
from .queued import queued_task_ids
from .status import held_tasks, ping_workers

QUIET_LOOK = 1.0  # seconds between looks while no worker answers (each look waits for answers a while)


@dataclass(frozen=True)
class ServiceState:
    """What a client sees of the service, for progress displays: the ``workers`` that answered its last
    look (None: the broker does not answer), the run's ``games`` not analysed yet, and the seconds since a
    worker last answered (``silent``; 0 while they answer)."""

    workers: int | None
    games: int
    silent: float = 0.0

    @property
    def waiting(self) -> bool:
        """Whether the run waits: no worker answers, or the broker does not."""
        return not self.workers


Notify = Callable[[ServiceState], None]  # told what the client sees of the service, as it changes


def held_task_ids(app: Celery) -> set[str] | None:
    """The ids of the tasks the workers are running or hold reserved, None when no worker answers."""
    active, reserved = held_tasks(app)
    if active is None or reserved is None:
        return None
    return {held.id for held in (*active, *reserved)}


class Watch:
    """Looks at the workers every ``service.look_every`` seconds (every second while none answers) and
    counts those that answer (``workers``); ``overdue`` once none has answered for
    ``service.wait_for_workers`` seconds, if set (otherwise the client waits as long as it takes: workers
    may come later, the games stay queued meanwhile). When no result has come since the last look, it
    also reports tasks as lost when, twice in a row, a pending task is neither waiting in the queue, nor
    running or reserved on any worker, nor finished: a worker that died holding a task leaves it invisible
    until the broker's visibility timeout (hours). Tasks are told apart by their ids, never by worker
    names. A broker that is briefly unreachable (a restart) counts as no answer, not as an error."""

    def __init__(self, app: Celery, client: redis.Redis, service: ServiceSettings) -> None:
        self.app = app
        self.client = client
        self.wait_for_workers = service.wait_for_workers
        self.every = service.look_every
        now = time.monotonic()
        self.last_answer = now  # when a worker last answered (or the watch began)
        self.last_result = now  # when a result last came (or the watch began)
        self.next_look = now
        self.workers: int | None = None  # how many answered the last look
        self.ever_answered = False  # whether any worker answered while this watch looked
        self.suspects: set[str] = set()

    @property
    def silent(self) -> float:
        """Seconds since a worker last answered (or since the watch began)."""
        return time.monotonic() - self.last_answer

    def progress(self) -> None:
        """A result came: the workers are alive and busy (when none answered the last look, one has come:
        look again at once, to count them)."""
        now = time.monotonic()
        self.last_answer = self.last_result = now
        self.suspects = set()
        if not self.workers:
            self.next_look = now

    def overdue(self) -> bool:
        """Whether no worker has answered for longer than the service's ``wait_for_workers`` (never when
        it is None: wait as long as it takes)."""
        return self.wait_for_workers is not None and self.silent > self.wait_for_workers

    def _unaccounted(self, pending: Collection[str]) -> set[str] | None:
        """The pending tasks that are nowhere to be seen (None: not known, a worker did not answer)."""
        waiting = set(queued_task_ids(self.client))
        held = held_task_ids(self.app)
        if held is None:
            return None
        candidates = set(pending) - waiting - held
        return {task for task in candidates if not self.app.AsyncResult(task).ready()}

    def look(self, pending: Collection[str]) -> set[str] | None:
        """None when it is not yet time to look; otherwise counts the workers (``workers``; ``overdue``
        says whether they have been gone too long) and returns the pending tasks that look lost."""
        now = time.monotonic()
        if now < self.next_look:
            return None
        unaccounted: set[str] | None = None
        try:
            self.workers = len(ping_workers(self.app))
            if self.workers and now - self.last_result >= self.every:
                unaccounted = self._unaccounted(pending)
        except Exception:  # the broker is unreachable or restarting: no answer this time
            self.workers = None
        self.next_look = time.monotonic() + (self.every if self.workers else min(self.every, QUIET_LOOK))
        if not self.workers:
            self.suspects = set()
            return set()
        self.last_answer = now
        self.ever_answered = True
        if unaccounted is None:
            self.suspects = set()
            return set()
        lost = unaccounted & self.suspects
        self.suspects = unaccounted - lost
        return lost
