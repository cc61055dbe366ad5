"""``taldau bench --service``: the same 40 real games at a small fixed limit, analysed with one local process,
two local processes, and Celery with two worker processes; games per second for each."""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path
from typing import Any

from taldau.analysis.batch import BatchSettings

from .private_redis import PrivateRedis
from .run import local_executor, run_analysis

SERVICE_DEPTH = 8


def _timed_run(archive: Path, out: Path, executor: Any, settings: BatchSettings) -> dict[str, Any]:
    started = time.perf_counter()
    manifest = run_analysis([archive], out, settings, executor, resume=False)
    seconds = time.perf_counter() - started
    games = manifest["counts"]["ok"]
    return {"games": games, "seconds": round(seconds, 2), "games_per_second": round(games / seconds, 3)}


def run_service_bench(broker: str | None = None, depth: int = SERVICE_DEPTH) -> dict[str, Any]:
    """Games/s with ``--jobs 1``, ``--jobs 2`` and Celery with two worker processes (a private Redis on a free
    port unless ``broker`` is given)."""
    from .celery_app import celery_executor

    settings = BatchSettings(depth=depth)
    archive_text = resources.files("taldau.games.togyz").joinpath("bench-games.pgn").read_bytes()
    report: dict[str, Any] = {"limit": f"depth {depth}"}
    with tempfile.TemporaryDirectory(prefix="taldau-bench-") as folder:
        root = Path(folder)
        archive = root / "bench-games.pgn"
        archive.write_bytes(archive_text)
        # Warm the compiled kernels so that no run pays for loading them first.
        _timed_run(archive, root / "warm", local_executor(2), BatchSettings(depth=1))
        report["local_1"] = _timed_run(archive, root / "local-1", local_executor(1), settings)
        report["local_2"] = _timed_run(archive, root / "local-2", local_executor(2), settings)
        server = PrivateRedis(root / "redis") if broker is None else None
        url = server.url if server is not None else str(broker)
        taldau = str(Path(sys.executable).with_name("taldau"))
        worker = subprocess.Popen(
            [taldau, "worker", "--broker", url, "--concurrency", "2", "--loglevel", "WARNING"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            _timed_run(archive, root / "celery-warm", celery_executor(url), BatchSettings(depth=1))
            report["celery_2"] = _timed_run(archive, root / "celery-2", celery_executor(url), settings)
        finally:
            worker.terminate()
            worker.wait(timeout=60)
            if server is not None:
                server.stop()
    report["speedup_local_2"] = round(
        report["local_2"]["games_per_second"] / report["local_1"]["games_per_second"], 2
    )
    report["celery_vs_local_2"] = round(
        report["celery_2"]["games_per_second"] / report["local_2"]["games_per_second"], 3
    )
    return report
