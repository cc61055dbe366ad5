"""Running a batch analysis end to end on an executor: plan, skip what is done, analyse, store, compact.

The executor is a local process pool (the default, no broker) or Celery workers behind a Redis broker; both
run ``store_task`` on each game, so both write the same rows.
"""

from __future__ import annotations

import time
import traceback
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from taldau.analysis.batch import BatchSettings, GameTask, Skipped, analyse_task, plan

from .store import ResultStore

MAX_DELIVERIES = 3  # a game whose worker process dies this many times is recorded as failed


class BrokerUnavailable(Exception):
    """The broker cannot be reached, or no worker answers."""


def failed_row(task: GameTask, settings: BatchSettings, error: str) -> dict[str, Any]:
    """The ``games`` row of a game whose analysis failed."""
    return {
        "game_id": task.game_id,
        "game": settings.game,
        "source": task.source,
        "index": task.index,
        "format": task.format,
        "plies": 0,
        "status": "failed",
        "error": error,
        "settings": settings.key,
    }


def store_failure(task: dict[str, Any], settings: dict[str, Any], out: str, message: str) -> dict[str, Any]:
    """Store a ``failed`` row for a game whose analysis could not be run."""
    batch = BatchSettings.from_json(settings)
    game = GameTask(**task)
    ResultStore(out, batch.key).write(game.game_id, None, failed_row(game, batch, message))
    return {"game_id": game.game_id, "status": "failed", "plies": 0}


def store_task(task: dict[str, Any], settings: dict[str, Any], out: str) -> dict[str, Any]:
    """Analyse one game and store its rows under ``out``; an exception becomes a ``failed`` row."""
    batch = BatchSettings.from_json(settings)
    game = GameTask(**task)
    store = ResultStore(out, batch.key)
    try:
        moves, row = analyse_task(game, batch)
    except Exception as error:  # a failed game is reported in its row, the batch goes on
        detail = "".join(traceback.format_exception_only(type(error), error)).strip()
        moves, row = None, failed_row(game, batch, detail)
    store.write(game.game_id, moves, row)
    return {"game_id": game.game_id, "status": row["status"], "plies": row["plies"]}


@dataclass
class Progress:
    """What a run has done so far, for progress displays."""

    total: int = 0
    done: int = 0
    resumed: int = 0
    plies: int = 0
    failed: int = 0
    invalid: int = 0
    started: float = field(default_factory=time.perf_counter)

    def add(self, result: dict[str, Any]) -> None:
        self.done += 1
        self.plies += int(result["plies"])
        self.failed += result["status"] == "failed"


Executor = Callable[[list[dict[str, Any]], dict[str, Any], str, Callable[[dict[str, Any]], None]], None]


def local_executor(jobs: int) -> Executor:
    """Run tasks on a pool of ``jobs`` worker processes, at most ``jobs`` at a time.

    A worker process that dies (a crash, an out-of-memory kill) breaks the pool: the games it was running
    are then run again one at a time in a pool of their own, so that only the game that kills its process
    is charged; after MAX_DELIVERIES deaths it becomes a ``failed`` row and the rest goes on.
    """

    def run(
        tasks: list[dict[str, Any]],
        settings: dict[str, Any],
        out: str,
        finished: Callable[[dict[str, Any]], None],
    ) -> None:
        queue = deque(tasks)
        while queue:
            for suspect in _run_pool(queue, jobs, settings, out, finished):
                _run_alone(suspect, settings, out, finished)

    return run


def _run_pool(
    queue: deque[dict[str, Any]],
    jobs: int,
    settings: dict[str, Any],
    out: str,
    finished: Callable[[dict[str, Any]], None],
) -> list[dict[str, Any]]:
    """Run tasks from ``queue`` until it is empty or the pool breaks; returns the tasks in flight then."""
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        flying: dict[Future, dict[str, Any]] = {}
        while queue or flying:
            while queue and len(flying) < jobs:
                task = queue.popleft()
                flying[pool.submit(store_task, task, settings, out)] = task
            done, _ = wait(flying, return_when=FIRST_COMPLETED)
            if any(isinstance(future.exception(), BrokenProcessPool) for future in done):
                wait(flying)
                suspects = []
                for future, task in flying.items():
                    if future.exception() is None:
                        finished(future.result())
                    else:
                        suspects.append(task)
                return suspects
            for future in done:
                finished(future.result())
                del flying[future]
    return []


def _run_alone(
    task: dict[str, Any], settings: dict[str, Any], out: str, finished: Callable[[dict[str, Any]], None]
) -> None:
    """Run one game in a pool of its own, up to MAX_DELIVERIES times if its process dies."""
    for _ in range(MAX_DELIVERIES):
        with ProcessPoolExecutor(max_workers=1) as pool:
            try:
                finished(pool.submit(store_task, task, settings, out).result())
                return
            except BrokenProcessPool:
                continue
    message = f"failed after {MAX_DELIVERIES} attempts: the worker process died analysing this game each time"
    finished(store_failure(task, settings, out, message))


def run_analysis(
    paths: Iterable[str | Path],
    out: str | Path,
    settings: BatchSettings,
    executor: Executor,
    resume: bool = True,
    progress: Callable[[Progress], None] = lambda _: None,
) -> dict[str, Any]:
    """Analyse every game under ``paths`` into ``out``; returns the manifest."""
    store = ResultStore(out, settings.key)
    store.check_settings()
    state = Progress()
    tasks: list[dict[str, Any]] = []
    seen: set[str] = set()
    skipped: list[dict[str, Any]] = []
    for item in plan(paths, settings):
        if isinstance(item, Skipped):
            skipped.append(asdict(item))
            continue
        if isinstance(item, dict):
            store.write(item["game_id"], None, item)
            state.invalid += 1
            continue
        if item.game_id in seen:  # the same game twice in the archive: one analysis, one row
            continue
        seen.add(item.game_id)
        if resume and store.done(item.game_id):
            state.resumed += 1
            continue
        tasks.append(item.to_json())
    state.total = len(tasks)
    progress(state)

    def finished(result: dict[str, Any]) -> None:
        state.add(result)
        progress(state)

    executor(tasks, settings.to_json(), str(out), finished)
    return store.compact(settings.describe(), skipped)
