"""Running a batch analysis end to end on an executor: plan, skip what is done, analyse, store, compact.

The executor is a local process pool (the default, no broker) or Celery workers behind a Redis broker; both
run ``store_task`` on each game, so both write the same rows.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taldau.analysis.batch import BatchSettings, GameTask, analyse_task, plan

from .store import ResultStore


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
    """Run tasks on a pool of ``jobs`` processes (in this process when ``jobs`` is 1)."""

    def run(
        tasks: list[dict[str, Any]],
        settings: dict[str, Any],
        out: str,
        finished: Callable[[dict[str, Any]], None],
    ) -> None:
        if jobs == 1:
            for task in tasks:
                finished(store_task(task, settings, out))
            return
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(store_task, task, settings, out) for task in tasks]
            for future in as_completed(futures):
                finished(future.result())

    return run


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
    for item in plan(paths, settings):
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
    return store.compact(settings.describe())
