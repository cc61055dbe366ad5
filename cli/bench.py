"""``taldau bench``, a group of measurements, one subcommand each: ``speed``, ``gnubg``, ``reference``,
``cube-bias`` and ``review`` here, ``marks`` in
``cli.marks``, ``engines`` and ``judge`` in ``cli.strength``, ``service``, ``capacity`` and ``soak`` in
``cli.bench_service``; each parses, calls ``taldau.measure`` and prints."""

from __future__ import annotations

import json
import sys
from collections import Counter
from dataclasses import asdict, replace
from pathlib import Path

import click
from taldau.analysis.players import MIN_GAMES
from taldau.base.kind import Limit
from taldau.cli.backgammon import evaluator
from taldau.cli.bench_service import capacity, service, soak
from taldau.cli.marks import marks
from taldau.cli.options import (
    BACKGAMMON_PLIES,
    BOTH_GAMES_LIMIT,
    EX_USAGE,
    EXAMPLES,
    JSON,
    REVIEW_DEFAULT,
    engine_option,
    game_option,
    say,
    whole_option,
)
from taldau.cli.progress import progress_line
from taldau.cli.strength import engines, judge
from taldau.games.backgammon.kind import DEFAULT_PLIES
from taldau.games.backgammon.review.levels import DEFAULT_LEVEL, LEVELS
from taldau.measure.backgammon.against_reference import (
    DEFAULT_DECISIONS as DISPUTED,
)
from taldau.measure.backgammon.against_reference import (
    DEFAULT_TRIALS as DISPUTE_TRIALS,
)
from taldau.measure.backgammon.against_reference import (
    NOT_SCORED,
    ReferenceReport,
    Settlement,
)
from taldau.measure.backgammon.cube_bias import XG, CubeBias
from taldau.measure.backgammon.strength import BGLAB

DECISIONS = 200  # real decisions timed by the backgammon speed bench
SPEED_ENGINE = "own"  # the evaluator the speed bench times unless --engine is given: ours, the kernels


def real_matches() -> Path:
    """The real backgammon matches beside the checkout (``strength.BGLAB``), else the bundled examples."""
    return BGLAB if BGLAB.is_dir() else EXAMPLES


@click.group()
def bench() -> None:
    """Measure taldau: the speed of a game's core and engine (speed), how right the marks are (marks),
    backgammon's engines and levels against a deeper reference, rollouts and GNU Backgammon (engines,
    judge, gnubg), an analysis against the one its record files hold (reference), and the batch service
    (service, capacity, soak)."""


@bench.command()
@game_option("The game measured.")
@BOTH_GAMES_LIMIT.showing(depth=f"{REVIEW_DEFAULT}")
@engine_option("The evaluator timed on real decisions.", both_games=True, default=SPEED_ENGINE)
@click.option(
    "--decisions",
    type=click.IntRange(min=1),
    default=DECISIONS,
    show_default=True,
    help=f"Backgammon: decisions of the real matches in {BGLAB} (the bundled examples when absent).",
)
@JSON
def speed(
    game: str,
    depth: int | None,
    nodes: int | None,
    movetime: float | None,
    engine: str | None,
    decisions: int,
    as_json: bool,
) -> None:
    """The speed of a game's core and engine. Togyz: perft and search speed, and the time to review a real
    93-ply game at the analysis limit (or the limit given). Backgammon: full-turn legal play sets
    generated per second on a fixed position set, then the evaluator's (--engine) 0-ply evaluations per
    second and engine.analyse's decisions per second at 0 and 2 plies on real decisions, beside gnubg's
    best_move at 0, 1 and 2 plies and how often both pick the same play (with gnubg-nn installed)."""
    if game == "backgammon":
        _backgammon_speed(engine or SPEED_ENGINE, decisions, as_json)
        return
    from taldau.games.togyz.review import review_limit

    _togyz_speed(BOTH_GAMES_LIMIT.limit(depth, nodes, movetime, review_limit()), as_json)


@bench.command()
@click.argument("matches", type=click.IntRange(min=1))
@click.option(
    "--depth",
    type=click.IntRange(0, BACKGAMMON_PLIES),
    default=DEFAULT_PLIES,
    show_default=True,
    help="gnubg's plies, for both reviews.",
)
@engine_option("The engine whose review is compared.")
@JSON
def gnubg(matches: int, depth: int, engine: str, as_json: bool) -> None:
    """Backgammon: MATCHES real matches (spread over bglab, else the bundled examples) analysed by taldau's
    review (--engine's) and by Debian's gnubg at --depth plies, in turn: CPU time, agreement of the marks,
    and each player's cube error against gnubg's."""
    _against_gnubg(matches, depth, as_json, engine)


@bench.command()
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option(
    "--rollout",
    is_flag=True,
    help="Roll out (bgsage, cubeful in each decision's match context) our best and the reference's where "
    "they differ, to say who was right.",
)
@whole_option("--decisions", default=DISPUTED, help="With --rollout: the disputed decisions rolled out.")
@whole_option(
    "--trials",
    default=DISPUTE_TRIALS,
    help="With --rollout: games played out per action (in 6 batches where they split so: the standard "
    "error of the difference on common dice).",
)
@click.option("--seed", type=int, default=42, show_default=True, help="With --rollout: the seed of the dice.")
@JSON
def reference(folder: Path, rollout: bool, decisions: int, trials: int, seed: int, as_json: bool) -> None:
    """Backgammon: the analysis in FOLDER (`taldau analyze` of XG's .xg files or gnubg's analysed .sgf, at
    any level) beside the reference its record files hold: how often our best is the reference's (95%
    interval), each player's PR by our losses and by the reference's (95% intervals bootstrapped over
    games, from 8 games on), and with --rollout the decisions where the two bests differ rolled out by
    bgsage, to say who was right, with standard errors. Our picks scored by the reference's own equities
    are not available: the files keep the reference's loss of the action played, not its candidates'."""
    from taldau.analysis.folder import FolderError
    from taldau.games.backgammon.engine.sage import SageRollout, SageUnavailable
    from taldau.measure.backgammon.against_reference import against_reference, rollout_settings, settle

    try:
        report = against_reference(folder)
    except (FolderError, ValueError) as error:
        say(f"error: {error}")
        sys.exit(EX_USAGE)
    if rollout:
        try:
            roller = SageRollout(rollout_settings(trials, seed))
        except SageUnavailable as error:
            raise click.ClickException(f"{error}: no rollout") from None
        with progress_line("rolling out", "decision") as shown:
            settled = settle(report.disputed, roller, decisions, progress=shown.update)
        report = replace(report, settlement=settled)
    if as_json:
        click.echo(json.dumps(report.to_json()))
        return
    for line in reference_lines(report):
        click.echo(line)


@bench.command("cube-bias")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@engine_option("The engine whose cube decisions are set beside XG's.")
@click.option(
    "--level",
    type=click.Choice(LEVELS),
    default=DEFAULT_LEVEL,
    show_default=True,
    help="The level of our review (deep judges the cube decisions near either point again at 3 plies).",
)
@click.option(
    "--rollout",
    "trials",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Also roll out (bgsage, cubeful, this many trials in 6 batches, seed 42) the decisions near either "
    "point, as the truth the judges are set against (0: none; minutes a decision).",
)
@JSON
def cube_bias(path: Path, engine: str, level: str, trials: int, as_json: bool) -> None:
    """Backgammon: every cube decision XG analysed in the XG file PATH, judged by our review at LEVEL, by
    our cube formula on our probabilities and on XG's own (which the file stores), set beside XG's: the
    mean of Double/take minus Double/pass less XG's near the take, of No double minus Double/take less
    XG's near the double (XG's margin within 0.16 EMG), with standard errors, and how often the action
    (double or not; take or pass) is XG's; over every decision, by score and by cube value."""
    from taldau.games.backgammon.engine.sage import RolloutSettings, SageRollout
    from taldau.games.backgammon.records.xg import XgError
    from taldau.games.backgammon.review.levels import ReviewSettings
    from taldau.measure.backgammon.cube_bias import cube_bias as measure

    chosen = evaluator(engine)
    try:
        rollout = SageRollout(RolloutSettings(trials=trials, batches=6)) if trials else None
        report = measure(path, chosen, ReviewSettings.of_level(level, chosen.name), rollout)
    except XgError as error:
        say(f"error: {error}")
        sys.exit(EX_USAGE)
    if as_json:
        figures = {
            name: [asdict(figure) for figure in report.splits(name)] for name in report.judges if name != XG
        }
        click.echo(json.dumps({"source": report.source, "settings": report.settings, "figures": figures}))
        return
    for line in cube_bias_lines(report):
        click.echo(line)


@bench.command()
@click.argument("archives", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option(
    "--against",
    "commit",
    required=True,
    metavar="COMMIT",
    help="The earlier commit of this checkout the current code is measured against (installed once in "
    "$XDG_CACHE_HOME/taldau/bench-review/).",
)
@whole_option("--rounds", default=2, help="Rounds, each running every archive by the old code, then the new.")
@JSON
def review(archives: tuple[Path, ...], commit: str, rounds: int, as_json: bool) -> None:
    """Both games: the CPU per decision of `taldau analyze --jobs 1` (default level and depth) on the record
    files ARCHIVES, by the code of COMMIT installed beside the current code and by the current code, run in
    turn (old, new) --rounds times: CPU and wall time per game, the ratio old/new (median and range over
    the rounds) with and without the start-up (the analysis of a one-decision record), and whether both
    say the same, decision by decision: the same best play and mark (backgammon), the same mark (Togyz)."""
    from taldau.measure.review_cpu import ReviewError, review_cpu

    try:
        with progress_line("timing", "run") as shown:
            report = review_cpu(archives, commit, rounds, progress=shown.update, say=shown.note)
    except ReviewError as error:
        say(f"error: {error}")
        sys.exit(EX_USAGE)
    if as_json:
        click.echo(json.dumps(report.to_json()))
        return
    for line in report.lines():
        click.echo(line)


def cube_bias_lines(report: CubeBias) -> list[str]:
    """The text lines of ``bench cube-bias``: each judge but XG against XG, over every decision and by
    split."""
    lines = [f"{report.source}: {len(report.cases)} cube decisions analysed by XG; ours: {report.settings}"]
    for name in report.judges:
        if name == XG:
            continue
        lines.append(f"{name}, less XG's (EMG):")
        for figure in report.splits(name):
            take, double, near = figure.take, figure.double, figure.take_near
            lines.append(
                f"  {figure.where:>15}: DT-DP {take.mean:+.4f} +- {take.error:.4f} ({take.count} near the "
                f"take; {near.mean:+.4f} +- {near.error:.4f} on {near.count} near either), "
                f"ND-DT {double.mean:+.4f} +- {double.error:.4f} ({double.count} near the double); "
                f"XG's double or not on {figure.same_double}/{figure.decisions}, take or pass on "
                f"{figure.same_take}/{figure.decisions}"
            )
    return lines


def _togyz_speed(limit: Limit, as_json: bool) -> None:
    """``bench speed --game togyz``: perft and search speed, and the review of a real game at ``limit``."""
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
    """``bench speed --game backgammon``: play sets generated per second (beside gnubg's generator when
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


def reference_lines(report: ReferenceReport) -> list[str]:
    """The text lines of ``bench reference``."""
    judges = report.judges
    used = ", ".join(f"{name} {count}" for name, count in report.references.items())
    lines = [
        f"{report.folder}: ours ({report.engine}; {report.limit}) against {judges} ({used} decisions)",
    ]
    for agreement in report.agreement:
        interval = agreement.interval
        shown = "" if interval is None else f" [{interval[0]:.1%}, {interval[1]:.1%}]"
        share = "-" if agreement.share is None else f"{agreement.share:.1%}"
        lines.append(
            f"our best is {judges}'s on {share}{shown} of {agreement.decisions} counted {agreement.what} "
            "(95% Wilson interval)"
            if agreement.what != "every decision"
            else f"agreement: our best is {judges}'s on {share}{shown} of the {agreement.decisions} counted "
            "decisions both judged (95% Wilson interval)"
        )
    lines.append(f"our picks scored by {judges}'s equities: {NOT_SCORED}")
    if report.played_ours_loss is not None:
        lines.append(
            f"  where the player played our best and {judges} preferred another ({report.played_ours} "
            f"decisions), {judges} says it lost {report.played_ours_loss:.4f} EMG a decision"
        )
    lines.append(
        f"PR (500 x EMG lost per counted decision), ours and by {judges}, 95% intervals bootstrapped over "
        f"games (from {MIN_GAMES} games on):"
    )
    width = max((len(player.name) for player in report.players), default=6)
    for player in report.players:
        lines.append(
            f"  {player.name:<{width}}  {player.games} games, {player.counted} counted ({player.judged} "
            f"judged by {judges}): ours {player.ours}, by {judges} {player.reference}"
        )
    kinds = Counter(decision.kind for decision in report.disputed)
    lines.append(
        f"disputed: {len(report.disputed)} decisions where our best is not {judges}'s ("
        + ", ".join(f"{kind} {number}" for kind, number in sorted(kinds.items()))
        + ")"
    )
    if report.settlement is not None:
        lines.extend(_settlement_lines(report.settlement, judges))
    return lines


def _settlement_lines(settlement: Settlement, judges: str) -> list[str]:
    """The text lines of the disputed decisions rolled out."""
    lines = [
        f"{settlement.rollout}, {settlement.rollout.batches} batches, cubeful in each decision's match "
        f"context: {len(settlement.settled)} decisions (equities EMG, the decider's; difference ours less "
        f"{judges}'s +- its standard error)"
    ]
    for item in settlement.settled:
        decision = item.decision
        rolled = f" {decision.dice}" if decision.dice else ""
        where = f"{decision.game_id} ply {decision.ply} {decision.kind}{rolled}"
        if item.difference is None:
            lines.append(f"  {where}: not rolled out: {item.note}")
            continue
        right = {"ours": "ours", "reference": f"{decision.reference}'s", "neither": "within 2 SE"}[
            item.right or "neither"
        ]
        lines.append(
            f"  {where}: ours {decision.best} {item.ours:+.4f}, {decision.reference} "
            f"{decision.reference_best} {item.theirs:+.4f}: {item.difference:+.4f} +- {item.error:.4f}, "
            f"{right}"
        )
    mean, counts = settlement.mean, settlement.counts
    if mean is not None:
        lines.append(
            f"rolled out {len(settlement.rolled)}: ours better on {counts['ours']}, {judges}'s on "
            f"{counts['reference']}, within 2 SE on {counts['neither']}; mean difference ours less "
            f"{judges}'s {mean[0]:+.4f} +- {mean[1]:.4f} EMG a decision"
        )
    return lines


def _against_gnubg(matches: int, plies: int, as_json: bool, engine: str) -> None:
    """``bench gnubg``: ``reference.compare_with_gnubg`` of ``engine``'s default review on
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


for command in (marks, engines, judge, service, capacity, soak):
    bench.add_command(command)
