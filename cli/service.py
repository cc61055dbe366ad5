"""The batch analysis and its service, for either game: ``analyze`` (an archive into Parquet, on local
processes or Celery workers), ``worker`` (a Celery worker, ``workers.supervisor``), ``status`` and ``cancel``
(what the broker holds, run by run)."""

from __future__ import annotations

import json
import sys
import time
from typing import Any, NoReturn

import click
from taldau.analysis.accounting import Inputs, count
from taldau.analysis.folder import Manifest
from taldau.base.records import ReadLimits
from taldau.cli.options import (
    ANALYSIS_LIMIT,
    BOTH_GAMES,
    EX_INTERRUPTED,
    EX_UNAVAILABLE,
    EX_USAGE,
    JSON,
    REVIEW_DEFAULT,
    broker_url,
    chosen_engine,
    engine_option,
    game_option,
    level_option,
    processes_option,
    say,
    service_settings,
    within_ceiling,
)
from taldau.cli.outputs import writable_folder
from taldau.cli.progress import progress_line

BROKER = click.option(
    "--broker", envvar="TALDAU_BROKER", required=True, help="Redis URL (env TALDAU_BROKER)."
)


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Output directory.")
@game_option(
    "The game to analyse (auto: the only game of the archive; Togyz Kumalak when it holds both); records "
    "of the other game are listed as skipped.",
    default="auto",
    auto=True,
)
@ANALYSIS_LIMIT.showing(depth=REVIEW_DEFAULT)
@level_option
@engine_option(
    "The engine, its version and level are part of the settings key: results of different engines never "
    "share an output folder.",
    both_games=True,
)
@processes_option(
    "--jobs",
    "Local processes analysing games side by side (fewer when memory is short); not with --broker, where "
    "each worker's --concurrency says it.",
)
@click.option(
    "--broker", envvar="TALDAU_BROKER", help="Redis URL: run on Celery workers (env TALDAU_BROKER)."
)
@click.option(
    "--wait-for-workers",
    type=click.FloatRange(min=0),
    metavar="SECONDS",
    help="With --broker: give up (exit 69) when no worker has answered for SECONDS, at the start or later. "
    "Default: wait as long as it takes.",
)
@click.option("--resume/--no-resume", default=True, show_default=True, help="Skip games already analysed.")
@click.option("--json", "as_json", is_flag=True, help="Print the manifest's counts as JSON on stdout.")
def analyze(
    paths: tuple[str, ...],
    out: str,
    game: str,
    depth: int | None,
    nodes: int | None,
    level: str | None,
    engine: str | None,
    jobs: int,
    broker: str | None,
    wait_for_workers: float | None,
    resume: bool,
    as_json: bool,
) -> None:
    """Analyse every game under PATHS into Parquet under OUT (moves/, games/, manifest.json). OUT
    accumulates: games of other archives analysed there before stay, and the summary counts this run's
    games. On Celery workers (--broker) it waits for workers as long as it takes, saying so, unless
    --wait-for-workers says how long. Exit 0, 1 when some of this run's games are invalid or failed (or
    there is no game to analyse: nothing is made then), 2 when OUT cannot be written (said before any
    work), 69 when the broker or the workers cannot serve the run (the broker unreachable, no worker within
    --wait-for-workers, or a worker of another engine or version), 130 when interrupted (a rerun of the
    same command resumes)."""
    from taldau.analysis.batch import ArchivePlan, BatchSettings
    from taldau.workers.run import NothingToAnalyse

    if broker:
        _local_only(jobs)
        broker = broker_url(broker)
    limit = ANALYSIS_LIMIT.given(depth, nodes, level=level)
    writable_folder(out)
    detected = game == "auto"
    archive: Any = paths
    if detected:  # the archive read once, here: which game each file holds comes with it
        archive = ArchivePlan.read(paths, ReadLimits())
        game = archive.game()
    if level is not None and game != "backgammon":
        raise click.UsageError(f"--level is backgammon's: Togyz takes {ANALYSIS_LIMIT.stops}")
    settings = BatchSettings(game=game, limit=limit, engine=chosen_engine(engine, game))
    try:
        settings.search()
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    if settings.fallback is not None:
        say(settings.fallback)
    service = service_settings(wait_for_workers) if broker else None
    try:
        manifest, resumed = _run_analysis(archive, out, settings, broker, service, jobs, resume)
    except NothingToAnalyse as nothing:
        found = archive.games() if detected else [game]
        sys.exit(_nothing(nothing.inputs, game, paths, found, detected, as_json))
    sys.exit(_summary(manifest, resumed, out, game, paths, as_json))


def _local_only(jobs: int) -> None:
    """Exit 2 with one line when --jobs is given with --broker: the workers' --concurrency says how many
    games run side by side there, and a --jobs would be ignored."""
    if click.get_current_context().get_parameter_source("jobs") is not click.core.ParameterSource.DEFAULT:
        say(
            f"error: --jobs {jobs} runs local processes, and --broker runs on Celery workers: give one "
            "(a worker's --concurrency says how many games it analyses side by side)"
        )
        sys.exit(EX_USAGE)


class _Display:
    """What a run shows while it runs: games done, the rate, failures; on Celery, the workers answering, and
    one line of its own each time it starts waiting for a worker (or the broker) and stops."""

    def __init__(self) -> None:
        self.shown: Any = None  # the ProgressLine, once shown
        self.state: Any = None  # the run's Progress, once it reports
        self.seen: Any = None  # the last ServiceState, on Celery

    def progress(self, state: Any) -> None:
        self.state = state
        self._show()

    def service(self, seen: Any) -> None:
        """What the client sees of the workers (``workers.watch.ServiceState``)."""
        was_waiting = self.seen is not None and self.seen.waiting
        if seen.waiting and not was_waiting:
            what = "a worker" if seen.workers is not None else "the broker"
            self.shown.note(f"waiting for {what}: {count(seen.games, 'game')} queued")
        elif was_waiting and not seen.waiting:
            self.shown.note(f"{count(seen.workers, 'worker')} answering")
        self.seen = seen
        self._show()

    def _show(self) -> None:
        state = self.state
        if state is None or self.shown is None:
            return
        rate = state.decisions / max(time.perf_counter() - state.started, 1e-9)
        workers = ""
        if self.seen is not None:
            workers = (
                "waiting for a worker, " if self.seen.waiting else f"{count(self.seen.workers, 'worker')}, "
            )
        self.shown.update(
            state.games_done,
            state.games,
            f"{workers}{rate:,.1f} decisions/s, {state.failed} failed, {state.invalid} invalid, "
            f"{state.games_resumed} resumed",
        )


def _run_analysis(
    paths: Any,
    out: str,
    settings: Any,
    broker: str | None,
    service: Any,
    jobs: int,
    resume: bool,
) -> tuple[Manifest, int]:
    """``run_analysis`` on Celery (``broker``, with the ``service`` settings) or ``jobs`` local processes,
    its progress shown: the manifest and the games resumed (analysed by an earlier run, not again). Exit 2
    when OUT holds other settings, 69 when the service cannot serve the run, 130 when interrupted."""
    from taldau.analysis.folder import FolderError
    from taldau.workers.run import BrokerUnavailable, Interrupted, WorkerProblem, local_executor, run_analysis
    from taldau.workers.store import FolderFull, SettingsMismatch

    display = _Display()
    if broker:
        from taldau.workers.client import celery_executor

        executor = celery_executor(broker, service, display.service)
    else:
        jobs = within_ceiling(jobs, "--jobs", settings.game)
        executor = local_executor(jobs, lambda line: display.shown.note(line))  # says once if it compiles
    try:
        with progress_line("analysing", "game") as display.shown:
            manifest = run_analysis(paths, out, settings, executor, resume=resume, progress=display.progress)
    except SettingsMismatch as error:
        raise click.UsageError(str(error)) from None
    except (FolderError, FolderFull) as error:  # a damaged folder, or a full disk: the folder as it was
        say(f"error: {error}")
        sys.exit(EX_USAGE)
    except (BrokerUnavailable, WorkerProblem) as error:
        say(f"error: {error}")
        sys.exit(EX_UNAVAILABLE)
    except Interrupted as interrupted:
        _interrupted(interrupted, broker is not None)
    return manifest, display.state.games_resumed if display.state is not None else 0


def _interrupted(interrupted: Any, on_celery: bool) -> NoReturn:
    """Say what an interrupted (or cancelled) run left, and exit 130."""
    where = (
        f"{count(interrupted.queued, 'game')} stay queued on the broker and are analysed by the workers "
        "(their rows wait there)"
        if interrupted.queued
        else f"{count(interrupted.left, 'game')} not analysed"
    )
    if interrupted.queued and interrupted.left > interrupted.queued:
        where += f", {count(interrupted.left - interrupted.queued, 'game')} not sent yet"
    how = "interrupted"
    if on_celery:
        from taldau.workers.client import Cancelled

        how = "cancelled by `taldau cancel`" if isinstance(interrupted, Cancelled) else how
    say(f"{how}: {where}; run the same command again to resume")
    sys.exit(EX_INTERRUPTED)


def _nothing(
    inputs: Inputs, game: str, paths: tuple[str, ...], found: list[str], detected: bool, as_json: bool
) -> int:
    """Say why a run had nothing to analyse (and made nothing): what became of every input, then that no
    game of the one asked for, or of the one ``detected`` (automatic detection, among the games ``found``
    in the files), is there, or that no record of either game is; its exit code, 1."""
    for line in inputs.lines():
        say(line)
    if as_json:
        click.echo(json.dumps({"out": None, "games": 0, "analysed": 0, "inputs": inputs.counts()}))
    where = " ".join(paths)
    if not found:
        games = ", ".join(BOTH_GAMES)
        say(f"error: nothing to analyse under {where}: no record of either game ({games}) found")
    elif detected:
        say(f"error: no {game} game to analyse under {where} ({' and '.join(found)} detected there)")
    else:
        say(f"error: no {game} game to analyse under {where}")
    return 1


def _summary(
    manifest: Manifest, resumed: int, out: str, game: str, paths: tuple[str, ...], as_json: bool
) -> int:
    """Print what the run did (every input not analysed and every game invalid or failed on stderr, once
    each); its exit code."""
    counts, inputs = manifest.counts, manifest.inputs
    nothing = counts.games == 0  # no game of this kind at all (valid, invalid or analysed before)
    for line in inputs.lines():
        say(line)
    for failure in manifest.failures:
        say(f"{failure.source}, game {failure.index}: {failure.status}: {failure.error}")
    others = f"; {inputs.others()}" if inputs.others() else ""
    if as_json:
        this_run = {"analysed": counts.ok - resumed, "resumed": resumed, "decisions": counts.plies}
        summary = {"out": out, "key": manifest.key, **counts.to_json(), **this_run, "inputs": inputs.counts()}
        click.echo(json.dumps(summary))
    else:
        before = f", {resumed} resumed (analysed before)" if resumed else ""
        judged = counts.judged
        ways = (
            f" ({', '.join(f'{way} {number}' for way, number in judged.items())})" if len(judged) > 1 else ""
        )
        click.echo(
            f"{count(inputs.files, 'file')}, {count(counts.games, 'game')}: {counts.ok - resumed} "
            f"analysed{before}, {counts.invalid} invalid, {counts.failed} failed, "
            f"{count(counts.plies, 'decision')}{ways}{others} -> {out}"
        )
    if nothing:
        say(f"error: no {game} game to analyse under {' '.join(paths)}")
    bad = counts.invalid + counts.failed + inputs.not_read  # files not records are listed, not failures
    return 0 if bad == 0 and not nothing else 1


@click.command()
@BROKER
@processes_option(
    "--concurrency", "Processes of the worker analysing games side by side (fewer when memory is short)."
)
@click.option(
    "--hostname",
    "-n",
    help="The worker's name, NAME@HOST (%h: this host's name). Default: taldau-<process id>@<host>.",
)
@click.option(
    "--loglevel",
    default="INFO",
    help="Celery's log level: DEBUG, INFO (a line per task), WARNING, ERROR or CRITICAL.",
)
@click.option("--restarted", is_flag=True, hidden=True, help="Set when the worker starts itself again.")
def worker(broker: str, concurrency: int, hostname: str | None, loglevel: str, restarted: bool) -> None:
    """Run a Celery worker that analyses games for `taldau analyze --broker`. Each worker has its own
    name (host and process id by default), so several on one host are told apart. A worker that Celery stops
    on an error (kombu can fail so while the broker restarts) starts again in a fresh process image with
    the same process id; a worker stopped by a signal (Ctrl-C: exit 130) or a warm shutdown stays stopped.
    Exit 69 when the broker does not answer within 5 s at the start. The engines are loaded (and compiled,
    on a machine's first use) before the worker takes tasks."""
    from taldau.workers.broker import parse_broker, reach
    from taldau.workers.supervisor import WorkerSettings, load_engines, supervise

    broker = broker_url(broker)
    concurrency = within_ceiling(concurrency, "--concurrency")
    service = service_settings()
    # Once started, a worker rides out a broker restart; at the start, a broker that does not answer within
    # seconds is a mistake (Celery would retry for minutes).
    try:
        problem = None if restarted else reach(parse_broker(broker))
    except KeyboardInterrupt:
        sys.exit(EX_INTERRUPTED)
    if problem is not None:
        say(f"error: {problem}")
        sys.exit(EX_UNAVAILABLE)
    say("taldau worker: loading the engines")
    load_engines(say)
    again = [*(arg for arg in sys.argv if arg != "--restarted"), "--restarted"]
    sys.exit(supervise(WorkerSettings(broker, service, concurrency, hostname, loglevel), again, say))


@click.command()
@BROKER
@JSON
def status(broker: str, as_json: bool) -> None:
    """Queue depth, workers alive (a real round trip), the games being analysed, and the runs with games
    queued, running or held by a worker that is gone (their id, for `taldau cancel`, and output folder). The
    broker's password is masked."""
    from taldau.workers.run import BrokerUnavailable
    from taldau.workers.status import queue_status

    broker = broker_url(broker)
    try:
        report = queue_status(broker)
    except BrokerUnavailable as error:
        say(f"error: {error}")
        sys.exit(EX_UNAVAILABLE)
    if as_json:
        click.echo(json.dumps(report.to_json()))
        return
    lost = f", {report.lost} held by workers that are gone" if report.lost else ""
    click.echo(
        f"broker {report.broker}: {count(report.queued, 'game')} queued, "
        f"{count(len(report.workers), 'worker')} alive{lost}"
    )
    for name in report.workers:
        click.echo(f"  worker {name}")
    for run in report.runs:
        held = f", {run.reserved} reserved" if run.reserved else ""
        gone = f", {run.lost} held by a worker that is gone" if run.lost else ""
        click.echo(f"  run {run.id} -> {run.out}: {run.queued} queued{held}, {run.running} running{gone}")
    for job in report.running:
        click.echo(f"  {job.worker}: {job.source}, game {job.index}")


@click.command()
@click.argument("run", required=False)
@click.option("--out", type=click.Path(file_okay=False), help="Cancel the runs writing to this folder.")
@BROKER
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per run on stdout.")
def cancel(run: str | None, out: str | None, broker: str, as_json: bool) -> None:
    """Withdraw the queued games of RUN (its id, as `taldau status` lists it) or of the runs writing to
    --out. Games already running finish (their rows wait on the broker); games a worker holds reserved
    are dropped; a client following the run stops, and the same `analyze` command stores the games that
    finished and analyses what is left. Exit 0, 1 when no such run has games queued or running, 69 when
    the broker is unreachable."""
    from taldau.workers.run import BrokerUnavailable
    from taldau.workers.status import UnknownRun, cancel_runs

    if (run is None) == (out is None):
        raise click.UsageError("give RUN or --out DIR (one of them)")
    broker = broker_url(broker)
    try:
        withdrawals = cancel_runs(broker, run=run, out=out)
    except UnknownRun as error:
        say(f"error: {error}")
        sys.exit(1)
    except BrokerUnavailable as error:
        say(f"error: {error}")
        sys.exit(EX_UNAVAILABLE)
    except ValueError as error:  # TALDAU_VISIBILITY_TIMEOUT
        raise click.UsageError(str(error)) from None
    for withdrawal in withdrawals:
        dropped = f", {withdrawal.reserved} reserved dropped" if withdrawal.reserved else ""
        line = (
            f"run {withdrawal.run} -> {withdrawal.out}: {count(withdrawal.withdrawn, 'game')} withdrawn"
            f"{dropped}, {withdrawal.running} running finish"
        )
        click.echo(json.dumps(withdrawal.to_json()) if as_json else line)
