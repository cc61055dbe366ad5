"""The task messages on the broker: those waiting in the queue (which run sent each; taking some off) and
those workers took and have not acknowledged yet."""

from __future__ import annotations

import base64
import json
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import redis

from .messages import RunSpec

QUEUE = "celery"  # Celery's default queue: a Redis list of JSON messages
# kombu's Redis transport keeps every message a worker took and has not acknowledged in this hash, by delivery
# tag, as JSON ``[message, exchange, routing key]`` (and the time it was taken in the ``unacked_index`` zset),
# until the worker acknowledges it or the visibility timeout puts it back in the queue.
UNACKED = "unacked"


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


def _task_message(message: Any, raw: bytes) -> QueuedMessage | None:
    """The task message of a kombu message (its JSON, read), None when it is not a Celery task message."""
    try:
        encoding = message.get("properties", {}).get("body_encoding")
        task, body = message["headers"]["id"], message["body"]
        return QueuedMessage(task, body, encoding == "base64", raw)
    except (KeyError, TypeError, AttributeError):
        return None


def queued_messages(client: redis.Redis) -> list[QueuedMessage]:
    """The task messages waiting in the queue, oldest last."""
    messages = []
    for raw in client.lrange(QUEUE, 0, -1):
        try:
            message = _task_message(json.loads(raw), raw)
        except ValueError:
            continue
        if message is not None:
            messages.append(message)
    return messages


def unacked_messages(client: redis.Redis) -> dict[bytes, QueuedMessage]:
    """The task messages workers took and have not acknowledged (running them, holding them reserved, or
    held by a worker that died), by delivery tag; ``raw`` is the entry of kombu's ``unacked`` hash (nothing
    takes them off the queue: they are not in it)."""
    messages = {}
    for tag, raw in client.hgetall(UNACKED).items():
        try:
            message = _task_message(json.loads(raw)[0], raw)
        except (ValueError, TypeError, KeyError, IndexError):
            continue
        if message is not None:
            messages[tag] = message
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
