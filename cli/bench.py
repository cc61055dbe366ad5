"""``taldau bench``, for either game: one command whose flags pick the measurement (``--soak``, ``--marks``,
``--engines``, ``--against-gnubg``, ``--service``, ``--capacity``, else the speed of the game's core and
engine), each run and printed by a function of its own here or in ``cli.marks`` and ``cli.strength``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click
from taldau.analysis.accounting import count
from taldau.cli.backgammon import evaluator
from taldau.cli.marks import SAMPLE, marks_bench, marks_options
from taldau.cli.options import (
    BACKGAMMON_ENGINE,
    BOTH_GAMES,
    BOTH_GAMES_LIMIT,
    REVIEW_DEFAULT,
    broker_url,
    engine_option,
    within_ceiling,
)
from taldau.cli.outputs import writable_folder
from taldau.cli.progress import progress_line
from taldau.games.backgammon.kind import DEFAULT_PLIES
from taldau.games.togyz.engine import Limit
from taldau.measure.backgammon.strength import (
    BGLAB,
    DEFAULT_DECISIONS,
    DEFAULT_LEVELS,
    DEFAULT_REFERENCE,
    DEFAULT_SEED,
)
from taldau.workers.defaults import RESULTS, SERVICE_DEPTH, SOAK_DEPTH, SOAK_GAMES, WORKER_RATE

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "backgammon"  # the bundled matches
DECISIONS = 200  # real decisions timed by the backgammon speed bench
SPEED_ENGINE = "own"  # the evaluator the speed bench times unless --engine is given: ours, the kernels


def real_matches() -> Path:
    """The real backgammon matches beside the checkout (``strength.BGLAB``), else the bundled examples."""
    return BGLAB if BGLAB.is_dir() else EXAMPLES


@click.command()
@click.option("--game", type=click.Choice(BOTH_GAMES), default="togyz", help="The game measured.")
@BOTH_GAMES_LIMIT.showing(
    depth=f"{REVIEW_DEFAULT}; --soak {SOAK_DEPTH}; --service and --capacity: the depth they name"
)
@click.option("--service", is_flag=True, help="Time the batch analysis: local pools and Celery.")
@click.option(
    "--capacity",
    is_flag=True,
    help="Measure what one client and one Redis serve: results of real sizes (Togyz games reviewed at "
    f"--depth [{SERVICE_DEPTH}], backgammon matches at 0-ply) collected and written, Redis memory per queued "
    "and finished game, workers per client at --worker-rate.",
)
@click.option(
    "--worker-rate",
    type=click.FloatRange(min=0, min_open=True),
    metavar="GAMES_PER_S",
    help=f"With --capacity: one worker process's Togyz games per second [{WORKER_RATE}, BENCHMARKS.md].",
)
@click.option(
    "--broker",
    envvar="TALDAU_BROKER",
    help="With --service or --capacity: a Redis URL (default: a private one).",
)
@click.option(
    "--archive",
    type=click.Path(exists=True, path_type=Path),
    help="With --service: the records to analyse (default: 40 bundled Togyz games at depth "
    f"{SERVICE_DEPTH}); with --marks: the real games to sample (default: the game's archive in "
    "../shared/data).",
)
@click.option(
    "--runs",
    default="local_1,local_2,celery_2",
    show_default=True,
    help="With --service: the executors to time, local_N or celery_N (N processes), comma-separated.",
)
@click.option("--soak", is_flag=True, help="Push random games through Celery under chaos; check the Parquet.")
@click.option(
    "--games",
    "soak_games",
    type=click.IntRange(min=1),
    help=f"With --soak: games in the synthetic archive [{SOAK_GAMES:,}]; with --marks: games of the sample "
    f"[{SAMPLE}]; with --capacity: results collected and task messages queued of each game [{RESULTS:,}].",
)
@click.option(
    "--keep",
    type=click.Path(file_okay=False),
    help="With --soak: work (and keep all) here; with --capacity: write the client's parts here.",
)
@engine_option(
    "With --game backgammon: the evaluator timed on real decisions, or the engine whose review --marks and "
    "--against-gnubg judge.",
    both_games=True,
    default=f"{SPEED_ENGINE} timed, {BACKGAMMON_ENGINE} judged",
)
@click.option(
    "--decisions",
    type=click.IntRange(min=1),
    help=f"With --game backgammon: decisions of the real matches in {BGLAB} (the bundled examples when "
    f"absent) [{DECISIONS}; with --engines {DEFAULT_DECISIONS}].",
)
@click.option(
    "--engines",
    "strength",
    is_flag=True,
    help="With --game backgammon: each engine and level (own, sage 0-2 plies; gnubg's when installed) picks "
    "its play on --decisions real decisions of --archive (default: bglab) drawn with --seed, judged by "
    "--reference: mean loss, agreement, CPU per decision (the reference cached in ~/.cache/taldau/strength).",
)
@click.option(
    "--judge",
    is_flag=True,
    help="With --game backgammon: the levels of review (--levels engine:level, default sage at quick, "
    "standard and deep, own and gnubg at standard) on --decisions [300] real checker plays of --archive "
    "drawn with --seed [44], judged by bgsage's rollouts of the plays in dispute or near a mark (432 "
    "trials, to the end, in their match context): mean loss, marks against the rollout-settled ones, CPU. "
    "Rollouts run on --jobs processes and are kept in tests/data/backgammon/judge (resumable; later runs "
    "take no rollout time).",
)
@click.option(
    "--seed",
    type=int,
    help=f"With --engines or --judge: the draw of decisions [--engines {DEFAULT_SEED}, --judge 44].",
)
@click.option(
    "--reference",
    default=DEFAULT_REFERENCE,
    show_default=True,
    help="With --engines: the judge, ENGINE:PLIES[:CANDIDATES/THRESHOLD] (gnubg's plies).",
)
@click.option(
    "--levels",
    help="With --engines: the levels judged, comma-separated ENGINE:PLIES[:CANDIDATES/THRESHOLD] (the "
    f"engine's own move filter unless given) [{','.join(DEFAULT_LEVELS)}]. With --judge: ENGINE:LEVEL "
    "(quick, standard, deep) [sage:quick,sage:standard,sage:deep,own:standard; gnubg:standard when "
    "installed].",
)
@click.option(
    "--against-gnubg",
    "matches",
    type=click.IntRange(min=1),
    help="With --game backgammon: analyse this many real matches (spread over bglab) with the default "
    "review (or --engine's) and with Debian's gnubg at --depth plies (2 by default), in turn: CPU time and "
    "agreement of the marks.",
)
@marks_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def bench(
    game: str,
    depth: int | None,
    nodes: int | None,
    movetime: float | None,
    service: bool,
    capacity: bool,
    worker_rate: float | None,
    broker: str | None,
    archive: Path | None,
    runs: str,
    soak: bool,
    soak_games: int | None,
    keep: str | None,
    engine: str | None,
    decisions: int | None,
    strength: bool,
    judge: bool,
    seed: int | None,
    reference: str,
    levels: str | None,
    matches: int | None,
    marks: bool,
    reference_depth: int,
    one_search: bool,
    reference_settings: str,
    variants: tuple[str, ...],
    verifications: tuple[str, ...],
    jobs: int,
    as_json: bool,
) -> None:
    """Measure perft and search speed and the time to review a real 93-ply game (at the analysis limit);
    with --service, the batch analysis of --archive at --depth (default: 40 bundled Togyz games, see
    --archive) timed on each executor of --runs (decisions/s and the ratios between them); with --soak, a
    synthetic archive of random games through Celery while worker processes are killed and Redis restarted,
    checked against a local run (exit 1 if a check fails); with --capacity, the results per
    second one client takes in and writes, and the Redis memory per queued and finished game.
    With --game backgammon (no --service): full-turn legal play sets generated per second on a fixed
    position set, then the evaluator's (--engine, own by default) 0-ply evaluations per second and
    engine.analyse's decisions per second at 0 and 2 plies on real decisions, beside gnubg's best_move at
    0, 1 and 2 plies and how often both pick the same play (with gnubg-nn installed)."""
    if keep:
        writable_folder(keep, "--keep")
    if soak:
        sys.exit(_soak(soak_games, depth, keep, as_json))
    elif marks:
        jobs = within_ceiling(jobs, "--jobs", game)
        options = BOTH_GAMES_LIMIT.given(depth, nodes, movetime)
        marks_bench(
            game,
            options,
            soak_games,
            reference_depth,
            None if archive is None else str(archive),
            one_search,
            as_json,
            variants,
            jobs,
            reference_settings,
            verifications,
            engine,
        )
    elif game == "backgammon" and strength:
        from taldau.cli.strength import backgammon_strength

        backgammon_strength(
            archive, decisions, DEFAULT_SEED if seed is None else seed, reference, levels, as_json
        )
    elif game == "backgammon" and judge:
        from taldau.cli.strength import backgammon_judge

        backgammon_judge(archive, decisions, seed, levels, within_ceiling(jobs, "--jobs", game), as_json)
    elif game == "backgammon" and matches is not None:
        plies = DEFAULT_PLIES if depth is None else depth
        _against_gnubg(matches, plies, as_json, engine or BACKGAMMON_ENGINE)
    elif capacity:
        _capacity(soak_games, depth, worker_rate, broker, keep, as_json)
    elif service:
        _service(game, archive, depth, runs, broker, as_json)
    elif game == "backgammon":
        _backgammon_speed(engine or SPEED_ENGINE, decisions or DECISIONS, as_json)
    else:
        from taldau.games.togyz.review import review_limit

        _togyz_speed(BOTH_GAMES_LIMIT.limit(depth, nodes, movetime, review_limit()), as_json)


def _soak(games: int | None, depth: int | None, keep: str | None, as_json: bool) -> int:
    """``bench --soak``: the soak's report printed; its exit code (1 when a check failed)."""
    from taldau.measure.soak import SoakSettings, run_soak

    settings = SoakSettings(games=games or SOAK_GAMES, depth=depth or SOAK_DEPTH)
    report = run_soak(settings, Path(keep) if keep else None)
    click.echo(json.dumps(report) if as_json else json.dumps(report, indent=2))
    return 0 if report["passed"] else 1


def _service(
    game: str, archive: Path | None, depth: int | None, runs: str, broker: str | None, as_json: bool
) -> None:
    """``bench --service``: the batch analysis of ``archive`` timed on each executor of ``runs``."""
    from taldau.measure.service import ServiceBench, check_runs, run_service_bench

    if archive is None and game != "togyz":
        raise click.UsageError(f"--service --game {game} needs --archive")
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


def _capacity(
    games: int | None,
    depth: int | None,
    worker_rate: float | None,
    broker: str | None,
    keep: str | None,
    as_json: bool,
) -> None:
    """``bench --capacity``: what one client and one Redis serve, printed."""
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


def _togyz_speed(limit: Limit, as_json: bool) -> None:
    """``bench --game togyz``: perft and search speed, and the review of a real game at ``limit``."""
    from taldau.measure.togyz.bench import run_bench

    with progress_line("measuring", "") as shown:
        report = run_bench(limit, lambda step, done, total: shown.update(done, total, unit=step, plural=step))
    if as_json:
        click.echo(json.dumps(report))
        return
    perft_, search_, game_ = report["perft"], report["search"], report["game"]
    click.echo(f"perft depth {perft_['depth']}: {perft_['nps']:,} nodes/s")
    click.echo(f"search, {search_['positions']} positions: {search_['nps']:,} nodes/s")
    depth_nodes = report["depth_nodes"]
    click.echo(
        f"nodes to depth {depth_nodes['depth']} there: {depth_nodes['default']:,}; full width (no "
        f"reductions, no pruning) {depth_nodes['full']:,}"
    )
    click.echo(
        f"review of a {game_['plies']}-ply game at {game_['limit']}: {game_['seconds']} s "
        f"({game_['seconds_per_ply']} s per ply, mean depth {game_['mean_depth']})"
    )


def _backgammon_speed(engine: str, decisions: int, as_json: bool) -> None:
    """``bench --game backgammon``: play sets generated per second (beside gnubg's generator when
    installed), then ``engine`` timed on ``decisions`` real decisions."""
    from taldau.measure.backgammon.bench import real_decisions, run_bench, run_engine_bench

    with progress_line("measuring", "step") as shown:
        result = run_bench(progress=shown.update)
        engine_report = run_engine_bench(
            evaluator(engine),
            real_decisions(real_matches(), decisions),
            progress=lambda done, total: shown.update(done, total, unit="decision"),
        )
    if as_json:
        click.echo(json.dumps({**result.to_json(), "engine": engine_report.to_json()}))
        return
    click.echo(
        f"{result.turns:,} play sets ({result.plays:,} plays) in {result.seconds:.3f} s: "
        f"{result.turns_per_second:,.0f} play sets/s; through Position.plays: "
        f"{result.api_turns_per_second:,.0f} play sets/s"
    )
    if result.gnubg is not None:
        click.echo(
            f"gnubg_nn.moves on the same sets: {result.gnubg.turns_per_second:,.0f} play sets/s "
            f"(ours {result.turns_per_second / result.gnubg.turns_per_second:.2f}x); sets whose number "
            f"of plays differs from ours: {result.gnubg.count_mismatches}"
        )
    for line in _engine_bench_lines(engine_report):
        click.echo(line)


def _engine_bench_lines(report) -> list[str]:
    """The text lines of an ``EngineBench``."""
    lines = [
        f"{report.engine} ({report.version}), {report.decisions} decisions of real matches",
        f"0-ply evaluations: {report.evaluations_per_second:,.0f}/s one board per call, "
        f"{report.batched_per_second:,.0f}/s in one call of {report.boards:,} boards",
    ]
    for label, seconds in report.analyse_seconds.items():
        lines.append(
            f"engine.analyse at {label}: {seconds * 1000:.2f} ms per decision "
            f"({1 / seconds:,.1f} decisions/s)"
        )
    for plies, rate in (report.gnubg_best_move_per_second or {}).items():
        lines.append(f"gnubg best_move at {plies}-ply: {rate:,.1f} decisions/s")
    if report.time_against_gnubg is not None:
        lines.append(
            f"analyse at 2-ply 8/0.16 takes {report.time_against_gnubg:.2f}x gnubg's 2-ply best_move time "
            "(the two timed in turn on each decision)"
        )
    for label, agreement in (report.best_move_agreement or {}).items():
        loss = (report.gnubg_equity_loss or {}).get(label, 0.0)
        lines.append(
            f"analyse at {label} picks gnubg's play in {agreement:.1%} of decisions; "
            f"the others give up {loss:.4f} on average by gnubg's own evaluation at the same plies"
        )
    return lines


def _against_gnubg(matches: int, plies: int, as_json: bool, engine: str) -> None:
    """``bench --against-gnubg``: ``reference.compare_with_gnubg`` of ``engine``'s default review on
    ``matches`` real matches, printed."""
    from taldau.measure.backgammon.reference import CUBE_TOLERANCE, compare_with_gnubg, spread_matches

    try:
        with progress_line("comparing", "match", plural="matches") as shown:
            report = compare_with_gnubg(
                spread_matches(real_matches(), matches), evaluator(engine), plies, progress=shown.update
            )
    except RuntimeError as error:
        raise click.ClickException(str(error)) from None
    if as_json:
        click.echo(json.dumps(report.to_json()))
        return
    click.echo(
        f"{report.matches} matches at {plies}-ply, ours {report.engine}, {report.review}; "
        f"{report.plays} unforced checker plays paired "
        f"({report.unpaired} not): CPU {report.seconds_ours} s ours, {report.seconds_gnubg} s gnubg "
        f"({report.time_ratio:.2f}x its time)"
    )
    for name, agreement in [*report.marks.items(), ("any mark", report.any_mark)]:
        precision = "n/a" if agreement.precision is None else f"{agreement.precision:.2f}"
        recall = "n/a" if agreement.recall is None else f"{agreement.recall:.2f}"
        click.echo(
            f"{name:>8}: gnubg {agreement.reference}, ours {agreement.tested}, both {agreement.both}; "
            f"precision {precision}, recall {recall}"
        )
    click.echo(
        f"equity lost: correlation {report.loss_correlation:.3f}, "
        f"mean absolute difference {report.loss_difference:.4f} EMG"
    )
    click.echo(
        f"cube error per player ({report.cube_players} players): {report.cube_within:.0%} within "
        f"{CUBE_TOLERANCE} EMG of gnubg's, correlation {report.cube_correlation:.3f}, "
        f"mean absolute difference {report.cube_difference:.4f} EMG"
    )
