"""A task's rows on their way from a Celery worker to the client, the only writer of the output folder.

A worker needs nothing but the broker: it analyses the task it is handed (the record travels in it) and
leaves the task's ``moves`` and ``games`` tables in a Redis hash of their own (``ROWS_KEY``, fields
``moves`` and ``games``), each an Arrow IPC stream compressed with zstd as a whole; the Celery result, JSON,
is only the ``TaskReport`` with that hash's key. The streams leave out the schemas' descriptions and version
(about 6 KB a table, more than a short game's rows): a worker of the client's settings key has the same
schemas (their versions are part of the key), and the client puts its own back. So a Togyz game's rows
take about 11 KB, a long backgammon match's (834 decisions) about 65 KB. (Arrow's own per-buffer
compression, ``IpcWriteOptions(compression=...)``, frames each of the some 90 columns' buffers apart and
made the same rows twice as large.)

The client reads the hash, writes the task's parts (``ResultStore``), and only then deletes the hash and the
result, so a client that dies in between loses nothing: the next run of the same command (the same task ids)
finds the rows and writes them.

Rows nobody collects (their client died and was never run again) expire with the task's Celery result,
after ``ServiceSettings.results_expire`` seconds. How much Redis holds is bounded by the client: it has at
most ``ServiceSettings.window`` tasks sent and not yet collected.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pyarrow as pa
import redis
from taldau.schemas import GAMES_SCHEMA, MOVES_SCHEMA

from .messages import TaskReport, TaskResult

ROWS_KEY = "taldau:rows:{}"  # per task id: the task's rows, a hash of Arrow IPC streams
COMPRESSION = "zstd"
_MOVES, _GAMES = b"moves", b"games"


def rows_key(task: str) -> str:
    """The Redis key of the rows of the task with Celery id ``task``."""
    return ROWS_KEY.format(task)


def bare(schema: pa.Schema) -> pa.Schema:
    """``schema`` without its metadata and its fields' (names, types and nullability only)."""
    return pa.schema([field.remove_metadata() for field in schema])


def encode_table(table: pa.Table) -> bytes:
    """``table`` as one Arrow IPC stream, its schema bare (``decode_table`` restores it), compressed."""
    sink = pa.BufferOutputStream()
    plain = pa.Table.from_arrays(list(table.columns), schema=bare(table.schema))
    with (
        pa.CompressedOutputStream(sink, COMPRESSION) as compressed,
        pa.ipc.new_stream(compressed, plain.schema) as writer,
    ):
        writer.write_table(plain)
    return sink.getvalue().to_pybytes()


def decode_table(data: bytes, schema: pa.Schema) -> pa.Table:
    """The table ``encode_table`` wrote, with ``schema`` (its metadata included) put back; ValueError when
    the stream holds other columns."""
    with pa.CompressedInputStream(pa.BufferReader(data), COMPRESSION) as stream:
        table = pa.ipc.open_stream(stream).read_all()
    if not table.schema.equals(bare(schema)):
        raise ValueError(f"rows of another schema: {table.schema.names}")
    return pa.Table.from_arrays(list(table.columns), schema=schema)


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
    moves = decode_table(fields[_MOVES], MOVES_SCHEMA) if _MOVES in fields else None
    return TaskResult(report, moves, decode_table(fields[_GAMES], GAMES_SCHEMA))
