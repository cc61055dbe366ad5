"""Running a batch analysis end to end on an executor: plan, skip what is done, analyse, store, compact.

The executor is a local process pool (the default, no broker) or Celery workers behind a Redis broker; both
run ``run_task`` on each task (a game, or a backgammon match) and hand its rows back to this process, the
only writer of the output folder, which stores them as the task's parts (``ResultStore.write``): both
executors write the same rows the same way, and a worker needs no access to the output folder. A worker
that computes another settings key than the client (another engine or version) refuses its tasks, and the
run stops with a ``WorkerProblem`` naming it."""

from __future__ import annotations

import socket
import time
import traceback
import uuid
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

from taldau.analysis.accounting import Inputs, NotUsed, count
from taldau.analysis.batch import ArchivePlan, BatchSettings, GameTask, analyse_task, plan
from taldau.analysis.folder import Manifest
from taldau.base.jit import warm_kernels
from taldau.base.processes import frozen_heap, worker_pool
from taldau.schemas import GameRow, Status, games_table

from .messages import RunSpec, TaskReport, TaskResult
from .store import ResultStore, RunRecord

MAX_DELIVERIES = 3  # a game whose worker process dies this many times is recorded as failed


class BrokerUnavailable(Exception):
    """The broker cannot be reached, or no worker answers."""


class WorkerProblem(Exception):
    """A worker refused a task: it computes another settings key than the client (another engine, or
    another version of it). The message names the worker."""


class NothingToAnalyse(Exception):
    """The paths hold no game of the run's kind (none valid, invalid or analysed before): nothing was made
    in the output folder. ``inputs`` says what became of every input under the paths."""

    def __init__(self, game: str, inputs: Inputs) -> None:
        super().__init__(f"no {game} game to analyse")
        self.game = game
        self.inputs = inputs


class Interrupted(Exception):
    """The run was interrupted (SIGINT); ``queued`` games stay queued on the broker, ``left`` were not
    analysed."""

    def __init__(self, left: int, queued: int) -> None:
        super().__init__(f"interrupted with {count(left, 'game')} left ({queued} still queued)")
        self.left = left
        self.queued = queued


def failed_rows(task: GameTask, settings: BatchSettings, error: str) -> list[GameRow]:
    """The ``games`` rows of a task whose analysis failed: one per game of it."""
    return [
        GameRow(
            game_id=game.game_id,
            game=settings.game,
            source=task.source,
            index=game.index,
            status=Status.FAILED,
            settings=settings.key,
            format=task.format,
            error=error,
            task=task.id,
        )
        for game in task.games
    ]


def _report(
    task: GameTask,
    key: str,
    status: str,
    plies: int,
    outcome: str,
    problem: str | None = None,
    decisions: int = 0,
) -> TaskReport:
    """A task's report from this host (see ``TaskReport``)."""
    return TaskReport(
        task=task.id,
        source=task.source,
        index=task.index,
        status=status,
        games=len(task.games),
        plies=plies,
        decisions=decisions,
        outcome=outcome,
        key=key,
        worker=socket.gethostname(),
        problem=problem,
    )


def failure_result(task: GameTask, spec: RunSpec, message: str) -> TaskResult:
    """The ``failed`` rows of a task whose analysis could not be run (``message`` says why)."""
    batch = spec.settings
    rows = games_table(failed_rows(task, batch, message))
    return TaskResult(_report(task, batch.key, Status.FAILED, 0, "failed"), None, rows)


def run_task(task: GameTask, spec: RunSpec) -> TaskResult:
    """Analyse one task into its rows, for the client to store; an exception in the analysis becomes
    ``failed`` rows. Refused (no rows; the report says why) when this process computes another settings
    key than the client."""
    batch = spec.settings
    if batch.key != spec.key:
        engine = batch.record().engine
        problem = f"computes settings key {batch.key} where the client has {spec.key} (engine: {engine})"
        if batch.fallback is not None:
            problem += f": {batch.fallback}"
        return TaskResult(_report(task, batch.key, Status.FAILED, 0, "refused", problem))
    try:
        moves, rows = analyse_task(task, batch)
    except Exception as error:  # a failed task is reported in its rows, the batch goes on
        detail = "".join(traceback.format_exception_only(type(error), error)).strip()
        moves, rows = None, failed_rows(task, batch, detail)
    status = next((row.status for row in rows if row.status is not Status.OK), Status.OK)
    decisions = 0 if moves is None else moves.num_rows
    plies = sum(row.plies for row in rows)
    report = _report(task, batch.key, status, plies, "analysed", None, decisions)
    return TaskResult(report, moves, games_table(rows))


def check_report(report: TaskReport) -> None:
    """Raise WorkerProblem when a worker refused a task (the message names the worker and why)."""
    if report.problem:
        name = report.worker or "?"
        raise WorkerProblem(
            f"worker {name} refused {report.source}, game {report.index}: it {report.problem}"
        )


@dataclass
class Progress:
    """What a run has done so far, for progress displays: ``total``, ``done`` and ``resumed`` in tasks;
    ``games``, ``games_done``, ``games_resumed`` (analysed by an earlier run), ``analysed`` (by this one),
    ``failed`` and ``invalid`` in games; ``plies`` as the records count them (backgammon: rolls) and
    ``decisions`` analysed (moves; backgammon: checker plays and cube decisions)."""

    total: int = 0
    done: int = 0
    resumed: int = 0
    plies: int = 0
    failed: int = 0
    invalid: int = 0
    games: int = 0
    games_done: int = 0
    games_resumed: int = 0
    analysed: int = 0
    decisions: int = 0
    started: float = field(default_factory=time.perf_counter)

    def add(self, report: TaskReport) -> None:
        self.done += 1
        self.plies += report.plies
        self.games_done += report.games
        self.analysed += report.games if report.status == Status.OK else 0
        self.decisions += report.decisions
        self.failed += report.games if report.status == Status.FAILED else 0


# handed the results of tasks as they end (one, or the tasks a client collected in one round), in the
# client's process, to be stored together before the call returns
Finished = Callable[[list[TaskResult]], None]
Executor = Callable[[list[GameTask], RunSpec, Finished], None]


def local_executor(jobs: int, say: Callable[[str], object] = lambda _: None) -> Executor:
    """Run tasks on a pool of ``jobs`` worker processes (no more than there are tasks), at most ``jobs``
    at a time, each task's rows handed back to this process (the tables, pickled through the pool's pipe)
    for ``finished`` to store; the processes die with this one, also when it is killed.

    The run's game is warmed in this process before the pool starts: the workers, forked from it, inherit
    its compiled kernels and loaded engine instead of each compiling the same kernels on a machine's first
    run; ``say`` is told once, before, when that compiles (``base.jit.warm_kernels``). The heap is then
    frozen while the pool runs (``base.processes.frozen_heap``): the workers' garbage collections skip what
    the warm-up left, and this process's heap is the collector's again when the run ends.

    A worker process that dies (a crash, an out-of-memory kill) breaks the pool: the games it was running
    are then run again one at a time in a pool of their own, so that only the game that kills its process
    is charged; after MAX_DELIVERIES deaths it becomes a ``failed`` row and the rest goes on.
    """

    def run(tasks: list[GameTask], spec: RunSpec, finished: Finished) -> None:
        if not tasks:
            return
        settings = spec.settings
        warm_kernels(settings.game, settings.analyser.warm, say)
        queue = deque(tasks)
        processes = min(jobs, len(tasks))
        with frozen_heap():
            while queue:
                for suspect in _run_pool(queue, processes, spec, finished):
                    _run_alone(suspect, spec, finished)

    return run


def _run_pool(queue: deque[GameTask], jobs: int, spec: RunSpec, finished: Finished) -> list[GameTask]:
    """Run tasks from ``queue`` until it is empty or the pool breaks; returns the tasks in flight then."""
    with worker_pool(jobs) as pool:
        flying: dict[Future[TaskResult], GameTask] = {}
        while queue or flying:
            broken = False
            while queue and len(flying) < jobs and not broken:
                try:
                    flying[pool.submit(run_task, queue[0], spec)] = queue[0]
                    queue.popleft()
                except BrokenProcessPool:  # a process died since the last wait: the task stays queued
                    broken = True
            done, _ = wait(flying, return_when=FIRST_COMPLETED)
            if broken or any(isinstance(future.exception(), BrokenProcessPool) for future in done):
                wait(flying)
                suspects = []
                for future, task in flying.items():
                    if future.exception() is None:
                        finished([future.result()])
                    else:
                        suspects.append(task)
                return suspects
            for future in done:
                finished([future.result()])
                del flying[future]
    return []


def _run_alone(task: GameTask, spec: RunSpec, finished: Finished) -> None:
    """Run one game in a pool of its own, up to MAX_DELIVERIES times if its process dies."""
    for _ in range(MAX_DELIVERIES):
        with worker_pool(1) as pool:
            try:
                finished([pool.submit(run_task, task, spec).result()])
                return
            except BrokenProcessPool:
                continue
    message = f"failed after {MAX_DELIVERIES} attempts: the worker process died analysing this game each time"
    finished([failure_result(task, spec, message)])


def storing(
    store: ResultStore,
    state: Progress,
    progress: Callable[[Progress], None],
    invalid: list[GameRow] | None = None,
) -> Finished:
    """What a run's client does with results: store their rows (this process is the folder's one writer;
    the tasks of one call together), count them in ``state`` and show ``progress``. A report that tells
    of a worker's problem raises WorkerProblem, once the results before it are stored. The rows of
    ``invalid`` games are stored with the first results and taken off the list: a run whose executor
    brings none (its broker unreachable) writes nothing."""

    def finished(results: list[TaskResult]) -> None:
        good: list[TaskResult] = []
        try:
            for result in results:
                check_report(result.report)
                good.append(result)
        finally:
            if good and invalid:
                store_invalid(store, invalid)
            rows = [(result.report.task, result.moves, result.games) for result in good]
            store.write_round([(task, moves, games) for task, moves, games in rows if games is not None])
            for result in good:
                state.add(result.report)
            progress(state)

    return finished


def store_invalid(store: ResultStore, rows: list[GameRow]) -> None:
    """Store the rows of invalid games, each as a part of its own (named by its game id), and empty
    ``rows``."""
    for row in rows:
        store.write(row.game_id, None, [row])
    rows.clear()


def run_analysis(
    paths: Iterable[str | Path] | ArchivePlan,
    out: str | Path,
    settings: BatchSettings,
    executor: Executor,
    resume: bool = True,
    progress: Callable[[Progress], None] = lambda _: None,
) -> Manifest:
    """Analyse every game under ``paths`` (or of an archive read already: ``ArchivePlan``) into ``out``;
    returns the manifest, whose ``counts`` and
    ``failures`` are this run's games, ``inputs`` what became of every file and game under ``paths``
    (``folder`` has the totals of the output folder). With ``resume``, the tasks already analysed in
    ``out`` (compacted, or in parts) are not run again, those a run stored under their former ids
    (``GameTask.former_id``) included.

    ``out`` and its folders are made when the first rows are stored: NothingToAnalyse is raised, and
    nothing made, when ``paths`` hold no game of the run's kind; an executor that fails before bringing
    any result (an unreachable broker) leaves nothing either."""
    spec = RunSpec(uuid.uuid4().hex, str(Path(out).absolute()), settings, settings.key, not resume)
    store = ResultStore(spec.out, settings.key)
    store.check_settings(settings.record())
    state = Progress()
    planned_tasks: list[GameTask] = []
    invalid: list[GameRow] = []  # stored with the first results, or before compacting
    done = store.analysed() if resume else frozenset()
    game_ids: set[str] = set()
    superseded: set[str] = set()  # former ids of the games analysed now: rows a folder may hold under them
    inputs = Inputs()
    planned = paths.for_game(settings) if isinstance(paths, ArchivePlan) else plan(paths, settings)
    for item in planned:
        if isinstance(item, NotUsed):
            inputs.skip(item)
            continue
        if isinstance(item, GameRow):
            inputs.game(item.source, valid=False)
            invalid.append(item)
            game_ids.add(item.game_id)
            state.invalid += 1
            continue
        for _ in item.games:
            inputs.game(item.source, valid=True)
        # a task analysed before game ids were made of content: its rows are stored under its former ids
        former = item.id not in done and item.former_id in done
        game_ids.update(game.former_id if former else game.game_id for game in item.games)
        if former or item.id in done:
            state.resumed += 1
            state.games_resumed += len(item.games)
            continue
        superseded.update(game.former_id for game in item.games if game.former_id)
        planned_tasks.append(item)
    if not game_ids:
        raise NothingToAnalyse(settings.game, inputs)
    state.games = sum(len(task.games) for task in planned_tasks)
    # the longest first (by decisions; archive order among equals), so that no long match is left to
    # run alone at the end while the other workers wait
    tasks = sorted(planned_tasks, key=lambda task: -task.plies)
    state.total = len(tasks)
    progress(state)

    try:
        executor(tasks, spec, storing(store, state, progress, invalid))
    except KeyboardInterrupt:  # the local pool: nothing stays queued
        raise Interrupted(state.games - state.games_done, 0) from None
    store_invalid(store, invalid)  # no task brought results: all resumed, or none valid
    record = RunRecord(spec.id, frozenset(game_ids), inputs, frozenset(superseded - game_ids))
    return store.compact(settings.record(), record)
