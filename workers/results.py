"""A task's rows on their way from a Celery worker to the client, the only writer of the output folder.

A worker needs nothing but the broker: it analyses the task it is handed (the record travels in it) and
leaves the task's ``moves`` and ``games`` tables in a Redis hash of their own (``ROWS_KEY``, fields
``moves`` and ``games``), each an Arrow IPC stream compressed with zstd; the Celery result, JSON, is only the
``TaskReport`` with that hash's key. The client reads the hash, writes the task's parts (``ResultStore``),
and only then deletes the hash and the result, so a client that dies in between loses nothing: the next run
of the same command (the same task ids) finds the rows and writes them.

Rows nobody collects (their client died and was never run again) expire with the task's Celery result,
after ``ServiceSettings.results_expire`` seconds. How much Redis holds is bounded by the client: it has at
most ``ServiceSettings.window`` tasks sent and not yet collected.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pyarrow as pa
import redis

from .messages import TaskReport, TaskResult

ROWS_KEY = "taldau:rows:{}"  # per task id: the task's rows, a hash of Arrow IPC streams
COMPRESSION = "zstd"
_MOVES, _GAMES = b"moves", b"games"


def rows_key(task: str) -> str:
    """The Redis key of the rows of the task with Celery id ``task``."""
    return ROWS_KEY.format(task)


def encode_table(table: pa.Table) -> bytes:
    """``table`` (its schema and metadata included) as one compressed Arrow IPC stream."""
    sink = pa.BufferOutputStream()
    options = pa.ipc.IpcWriteOptions(compression=COMPRESSION)
    with pa.ipc.new_stream(sink, table.schema, options=options) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def decode_table(data: bytes) -> pa.Table:
    """The table ``encode_table`` wrote."""
    return pa.ipc.open_stream(pa.py_buffer(data)).read_all()


def put_rows(client: redis.Redis, task: str, result: TaskResult, expire: int) -> str | None:
    """Leave the rows of ``result`` under the key of task ``task`` (replacing any there: a task delivered
    again), to expire after ``expire`` seconds; returns the key, None when the result has no rows."""
    if result.games is None:
        return None
    key = rows_key(task)
    fields = {_GAMES: encode_table(result.games)}
    if result.moves is not None:
        fields[_MOVES] = encode_table(result.moves)
    pipe = client.pipeline(transaction=True)
    pipe.delete(key)
    pipe.hset(key, mapping=fields)  # type: ignore[arg-type]
    pipe.expire(key, expire)
    pipe.execute()
    return key


def fetch_rows(client: redis.Redis, reports: Sequence[TaskReport]) -> list[Mapping[bytes, bytes]]:
    """The stored fields of each report's rows, in one round trip (empty for a report without rows, or
    rows gone: expired, or taken by another client)."""
    pipe = client.pipeline(transaction=False)
    for report in reports:
        if report.rows is not None:
            pipe.hgetall(report.rows)
    found = iter(pipe.execute())
    return [next(found) if report.rows is not None else {} for report in reports]


def with_rows(report: TaskReport, fields: Mapping[bytes, bytes]) -> TaskResult | None:
    """The result of a report whose rows are ``fields`` (``fetch_rows``); the report alone when it has no
    rows, None when its rows are gone."""
    if report.rows is None:
        return TaskResult(report)
    if _GAMES not in fields:
        return None
    moves = decode_table(fields[_MOVES]) if _MOVES in fields else None
    return TaskResult(report, moves, decode_table(fields[_GAMES]))
