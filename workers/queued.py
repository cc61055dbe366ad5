"""The task messages waiting in the broker's queue: reading them (which run sent each) and taking some off."""

from __future__ import annotations

import base64
import json
from collections.abc import Collection
from dataclasses import dataclass

import redis

from .messages import RunSpec

QUEUE = "celery"  # Celery's default queue: a Redis list of JSON messages


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
        except (ValueError, KeyError, TypeError, IndexError, AttributeError):
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
