"""``taldau bench service``, ``capacity`` and ``soak``: the batch service measured (the executors timed on an
archive, what one client and one Redis serve, Celery under chaos); each parses, calls ``taldau.measure`` and
prints."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from taldau.analysis.accounting import count
from taldau.cli.options import EXAMPLES, JSON, broker_url, game_option
from taldau.cli.outputs import writable_folder
from taldau.cli.progress import progress_line
from taldau.workers.defaults import RESULTS, SERVICE_DEPTH, SOAK_DEPTH, SOAK_GAMES, WORKER_RATE

BROKER = click.option(
    "--broker", envvar="TALDAU_BROKER", help="A Redis URL (default: a private one, started and stopped here)."
)


@click.command()
@game_option("The game of --archive.")
@click.option(
    "--archive",
    type=click.Path(exists=True, path_type=Path),
    help=f"The records to analyse (default: 40 bundled Togyz games at depth {SERVICE_DEPTH}).",
)
@click.option("--depth", type=click.IntRange(min=0), help="Plies to search (default: the game's review).")
@click.option(
    "--runs",
    default="local_1,local_2,celery_2",
    show_default=True,
    help="The executors to time, local_N or celery_N (N processes), comma-separated.",
)
@BROKER
@JSON
def service(
    game: str, archive: Path | None, depth: int | None, runs: str, broker: str | None, as_json: bool
) -> None:
    """The batch analysis of --archive at --depth timed on each executor of --runs: decisions/s, the ratios
    between them, and whether every run wrote the same rows."""
    from taldau.measure.service import ServiceBench, check_runs, run_service_bench

    if archive is None and game != "togyz":
        raise click.UsageError(f"bench service --game {game} needs --archive")
    broker = broker and broker_url(broker)
    try:
        chosen = check_runs(runs.split(","))
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    with progress_line("timing", "task") as shown:
        report = run_service_bench(ServiceBench(game, archive, depth, chosen, broker), shown.update)
    if as_json:
        click.echo(json.dumps(report))
        return
    for name in chosen:
        run = report[name]
        click.echo(
            f"{name}: {count(run['tasks'], 'task')}, {count(run['games'], 'game')}, "
            f"{run['decisions']:,} decisions in {run['seconds']} s: {run['games_per_second']} games/s, "
            f"{run['decisions_per_second']:,} decisions/s"
        )
    if report["speedup_local_2"] is not None:
        click.echo(f"two local processes: {report['speedup_local_2']}x one ({report['limit']})")
    if report["celery_vs_local_2"] is not None:
        click.echo(
            f"Celery with two workers: {report['celery_vs_local_2']}x two local processes ({report['limit']})"
        )
    click.echo("rows: the same in every run" if report["rows_identical"] else "rows: the runs DIFFER")


@click.command()
@click.option(
    "--games",
    type=click.IntRange(min=1),
    help=f"Results collected and task messages queued of each game [{RESULTS:,}].",
)
@click.option(
    "--depth",
    type=click.IntRange(min=1),
    help=f"The Togyz games' review depth [{SERVICE_DEPTH}] (backgammon matches at 0-ply).",
)
@click.option(
    "--worker-rate",
    type=click.FloatRange(min=0, min_open=True),
    metavar="GAMES_PER_S",
    help=f"One worker process's Togyz games per second [{WORKER_RATE}, BENCHMARKS.md].",
)
@BROKER
@click.option("--keep", type=click.Path(file_okay=False), help="Write the client's parts here.")
@JSON
def capacity(
    games: int | None,
    depth: int | None,
    worker_rate: float | None,
    broker: str | None,
    keep: str | None,
    as_json: bool,
) -> None:
    """What one client and one Redis serve: results of real sizes collected and written per second, the
    Redis memory per queued and finished game, and the workers one client serves at --worker-rate."""
    if keep:
        writable_folder(keep, "--keep")
    from taldau.measure.capacity import CapacityBench, run_capacity_bench

    bench = CapacityBench(
        EXAMPLES,
        results=games or RESULTS,
        queued=games or RESULTS,
        depth=SERVICE_DEPTH if depth is None else depth,
        worker_rate=worker_rate or WORKER_RATE,
        broker=broker and broker_url(broker),
        out=Path(keep) if keep else None,
    )
    with progress_line("measuring", "phase") as shown:
        report = run_capacity_bench(bench, shown.update)
    if as_json:
        click.echo(json.dumps(report))
        return
    for name in ("togyz", "backgammon"):
        figures = report[name]
        click.echo(
            f"{name}: one client takes in {figures['client_results_per_second']:,} results/s "
            f"({figures['client_games_per_second']:,} games/s; collected and written "
            f"{figures['collected_per_second']:,}/s, {figures['write_share']:.0%} of it writing parts, "
            f"sent {figures['sent_per_second']:,}/s); {figures['result_bytes']:,} bytes a result in Redis"
        )
        click.echo(
            f"{name}: Redis needs {figures['redis_mb_per_1000_queued_games']} MB per 1,000 queued games and "
            f"{figures['redis_mb_per_1000_finished_games']} MB per 1,000 finished games"
        )
    verdict = "meets" if report["meets_target"] else "misses"
    click.echo(
        f"one client serves {report['workers_per_client']} workers at {report['worker_rate']} Togyz games/s "
        f"each ({verdict} the target of {report['target_workers']}); a full window of {report['window']} "
        f"tasks takes {report['redis_mb_per_full_window']} MB of Redis at most, "
        f"{report['redis_mb_per_worker']} MB per worker process ({report['workers_per_redis_gb']:,} per GB)"
    )


@click.command()
@click.option("--games", type=click.IntRange(min=1), help=f"Games in the synthetic archive [{SOAK_GAMES:,}].")
@click.option("--depth", type=click.IntRange(min=1), help=f"Plies to search [{SOAK_DEPTH}].")
@click.option("--keep", type=click.Path(file_okay=False), help="Work (and keep all) here.")
@JSON
def soak(games: int | None, depth: int | None, keep: str | None, as_json: bool) -> None:
    """Random Togyz games (seeded) through Celery with two worker processes on a private Redis while
    worker processes are killed and Redis restarted, checked against a local run of the same archive
    (exit 1 if a check fails)."""
    if keep:
        writable_folder(keep, "--keep")
    from taldau.measure.soak import SoakSettings, run_soak

    settings = SoakSettings(games=games or SOAK_GAMES, depth=depth or SOAK_DEPTH)
    report = run_soak(settings, Path(keep) if keep else None)
    click.echo(json.dumps(report) if as_json else json.dumps(report, indent=2))
    sys.exit(0 if report["passed"] else 1)
