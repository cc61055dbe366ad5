"""Whether the workers a client follows are alive, and which of its tasks they have lost."""

from __future__ import annotations

import time
from collections.abc import Collection

import redis
from celery import Celery

from .celery_app import ServiceSettings
from .queued import queued_task_ids
from .run import BrokerUnavailable
from .status import held_tasks, ping_workers


def held_task_ids(app: Celery) -> set[str] | None:
    """The ids of the tasks the workers are running or hold reserved, None when no worker answers."""
    active, reserved = held_tasks(app)
    if active is None or reserved is None:
        return None
    return {held.id for held in (*active, *reserved)}


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
