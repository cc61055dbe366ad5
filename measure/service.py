"""``taldau bench service``: one archive analysed at one limit by several executors, timed: one local
process (``local_1``), two local processes (``local_2``), Celery with one real ``taldau worker`` of two
processes on a private Redis (``celery_2``); ``local_N`` and ``celery_N`` for other counts.

For each executor: the wall time, the tasks (a Togyz game, a backgammon match), the games, the decisions
(the plies the manifest counts: Togyz moves; backgammon checker plays, cube and take decisions) and the
decisions per second; then the ratios two local processes : one, and Celery : local at the same number
of processes. Without an archive, the 40 real Togyz games bundled with taldau at depth 8.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any

from taldau.analysis.batch import BatchSettings, GameTask, plan
from taldau.base.kind import Limit
from taldau.measure.local_service import PrivateRedis
from taldau.measure.soak import comparable_rows
from taldau.workers.defaults import SERVICE_DEPTH
from taldau.workers.run import Executor, Progress, local_executor, run_analysis

RUNS = ("local_1", "local_2", "celery_2")
WORKER_START = 600.0  # seconds a new worker may take to load the engines before it answers
_RUN = re.compile(r"(local|celery)_([1-9][0-9]*)")


def check_runs(runs: Sequence[str]) -> tuple[str, ...]:
    """The executors named ``local_N`` or ``celery_N`` (N processes), in order; ValueError otherwise."""
    for name in runs:
        if _RUN.fullmatch(name) is None:
            raise ValueError(f"unknown run {name!r}: give local_N or celery_N (N processes), e.g. local_2")
    if len(set(runs)) != len(runs) or not runs:
        raise ValueError(f"give each run once, at least one: {', '.join(runs)}")
    return tuple(runs)


@dataclass(frozen=True)
class ServiceBench:
    """What to time: the ``game`` of the ``archive`` (a record file or a folder; None: the bundled 40
    Togyz games), analysed at ``depth`` (plies; None: depth 8 for the bundled games, else the analyser's
    default) by each executor of ``runs``; Celery on ``broker`` (None: a private Redis on a free port)."""

    game: str = "togyz"
    archive: Path | None = None
    depth: int | None = None
    runs: tuple[str, ...] = RUNS
    broker: str | None = None

    def settings(self) -> BatchSettings:
        depth = SERVICE_DEPTH if self.archive is None and self.depth is None else self.depth
        return BatchSettings(game=self.game, limit=Limit(depth=depth))


@dataclass(frozen=True)
class TimedRun:
    """One executor's run of the whole archive: its wall ``seconds``, its ``tasks``, and what the manifest
    counts: ``games`` analysed, ``failed``, ``invalid``, ``decisions``."""

    seconds: float
    tasks: int
    games: int
    failed: int
    invalid: int
    decisions: int

    @property
    def games_per_second(self) -> float:
        return round(self.games / self.seconds, 3)

    @property
    def decisions_per_second(self) -> float:
        return round(self.decisions / self.seconds, 1)

    def to_json(self) -> dict[str, float]:
        return {
            "seconds": round(self.seconds, 2),
            "tasks": self.tasks,
            "games": self.games,
            "failed": self.failed,
            "invalid": self.invalid,
            "decisions": self.decisions,
            "games_per_second": self.games_per_second,
            "decisions_per_second": self.decisions_per_second,
        }


def _timed_run(
    archive: Path,
    out: Path,
    executor: Executor,
    settings: BatchSettings,
    tell: Callable[[int, int], None] | None = None,
) -> TimedRun:
    """One run of the whole archive into a fresh ``out``: time and what the manifest counts; ``tell(done,
    total)`` is told its tasks done as they end."""
    state = Progress()

    def seen(progress: Progress) -> None:
        nonlocal state
        state = progress
        if tell is not None:
            tell(progress.done, progress.total)

    started = time.perf_counter()
    manifest = run_analysis([archive], out, settings, executor, resume=False, progress=seen)
    seconds = time.perf_counter() - started
    counts = manifest.counts
    return TimedRun(seconds, state.total, counts.ok, counts.failed, counts.invalid, counts.plies)


def _warm_file(archive: Path, settings: BatchSettings) -> Path:
    """The record file of the archive's first task (the archive itself when it is one file or the task
    comes from inside a zip or tar): analysed once by each executor before timing."""
    first = next((item for item in plan([archive], settings) if isinstance(item, GameTask)), None)
    if first is not None and Path(first.source).is_file():
        return Path(first.source)
    return archive


def _celery_run(
    url: str,
    processes: int,
    archive: Path,
    warm: tuple[Path, BatchSettings],
    root: Path,
    settings: BatchSettings,
    tell: Callable[[int, int], None] | None = None,
) -> TimedRun:
    """A real ``taldau worker --concurrency processes`` on ``url`` (it loads the engines before taking
    tasks), warmed with one run of ``warm``, then the timed run into ``root/celery_N`` (its tasks ``tell``
    as for ``_timed_run``)."""
    from taldau.workers.celery_app import ServiceSettings
    from taldau.workers.client import celery_executor

    taldau = str(Path(sys.executable).with_name("taldau"))
    worker = subprocess.Popen(
        [taldau, "worker", "--broker", url, "--concurrency", str(processes), "--loglevel", "WARNING"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        # The warm run waits for the worker to load its engines (minutes on a loaded machine).
        starting = celery_executor(url, ServiceSettings(wait_for_workers=WORKER_START))
        _timed_run(warm[0], root / f"celery_{processes}-warm", starting, warm[1])
        return _timed_run(archive, root / f"celery_{processes}", celery_executor(url), settings, tell)
    finally:
        worker.terminate()
        worker.wait(timeout=60)


def _ratio(timed: Mapping[str, TimedRun], faster: str, slower: str) -> float | None:
    """Decisions per second of run ``faster`` over those of run ``slower`` (None unless both ran)."""
    if faster not in timed or slower not in timed:
        return None
    return round(timed[faster].decisions_per_second / timed[slower].decisions_per_second, 3)


def run_service_bench(
    bench: ServiceBench = ServiceBench(), progress: Callable[[int, int], None] | None = None
) -> dict[str, Any]:
    """Each executor of ``bench.runs`` timed on the whole archive, after the kernels are warmed: the
    analyser's ``warm`` in this process (the local pools fork from it), and one run of the archive's first
    record file at depth 1 or less by each executor. Ratios: ``speedup_local_2`` (two local processes
    over one), ``celery_vs_local_2`` (Celery with two worker processes over two local processes); and
    ``rows_identical``, whether every run stored the rows of the first, timings aside.
    ``progress(done, total)`` is told the tasks the timed runs have done, all runs together (the warm runs
    aside), as each one ends."""
    settings = bench.settings()
    runs = check_runs(bench.runs)

    def told(number: int) -> Callable[[int, int], None] | None:
        """The progress of the timed run ``number`` (from 0), after the runs before it (as many tasks)."""
        if progress is None:
            return None
        tell = progress
        return lambda done, tasks: tell(number * tasks + done, len(runs) * tasks)

    report: dict[str, Any] = {"game": bench.game, "limit": str(settings.search())}
    timed: dict[str, TimedRun] = {}
    with tempfile.TemporaryDirectory(prefix="taldau-bench-") as folder:
        root = Path(folder)
        if bench.archive is None:
            archive = root / "bench-games.pgn"
            archive.write_bytes(
                resources.files("taldau.games.togyz").joinpath("bench-games.pgn").read_bytes()
            )
        else:
            archive = bench.archive.absolute()
        report["archive"] = "bundled Togyz bench-games.pgn" if bench.archive is None else str(bench.archive)
        # Warm the compiled kernels so that no run pays for loading them first.
        settings.analyser.warm()
        warm = (
            _warm_file(archive, settings),
            replace(
                settings,
                limit=Limit(depth=1 if settings.limit.depth is None else min(settings.limit.depth, 1)),
            ),
        )
        server = None
        try:
            for number, name in enumerate(runs):
                kind, processes = name.split("_")
                if kind == "local":
                    _timed_run(warm[0], root / f"{name}-warm", local_executor(int(processes)), warm[1])
                    timed[name] = _timed_run(
                        archive, root / name, local_executor(int(processes)), settings, told(number)
                    )
                    continue
                if bench.broker is None and server is None:
                    server = PrivateRedis(root / "redis")
                url = server.url if server is not None else str(bench.broker)
                timed[name] = _celery_run(url, int(processes), archive, warm, root, settings, told(number))
        finally:
            if server is not None:
                server.stop()
        # whether every run stored the rows of the first (the executor changes nothing)
        first, *others = timed
        report["rows_identical"] = all(
            comparable_rows(root / name, table).equals(comparable_rows(root / first, table))
            for name in others
            for table in ("games", "moves")
        )
    report.update({name: run.to_json() for name, run in timed.items()})
    report["speedup_local_2"] = _ratio(timed, "local_2", "local_1")
    report["celery_vs_local_2"] = _ratio(timed, "celery_2", "local_2")
    return report
