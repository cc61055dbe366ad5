"""``taldau bench engines``: backgammon's engines and levels judged by a deeper reference on real decisions
(``taldau.measure.backgammon.strength``); ``taldau bench judge``: the levels of review judged by rollouts
(``taldau.measure.backgammon.judge``); this module parses, calls and prints."""

from __future__ import annotations

import json
from pathlib import Path

import click
from taldau.cli.options import JSON, whole_option, within_ceiling
from taldau.cli.progress import progress_line
from taldau.measure.backgammon import judge as judging
from taldau.measure.backgammon.judge import JudgeReport
from taldau.measure.backgammon.strength import (
    BGLAB,
    DEFAULT_DECISIONS,
    DEFAULT_LEVELS,
    DEFAULT_REFERENCE,
    DEFAULT_SEED,
    StrengthReport,
    draw_decisions,
    measure_strength,
)

ARCHIVE = click.option(
    "--archive",
    type=click.Path(exists=True, path_type=Path),
    help=f"The real matches the decisions are drawn from [default: {BGLAB}].",
)


@click.command()
@whole_option("--decisions", default=DEFAULT_DECISIONS, help="Decisions drawn.")
@click.option("--seed", type=int, default=DEFAULT_SEED, show_default=True, help="The draw of decisions.")
@click.option(
    "--reference",
    default=DEFAULT_REFERENCE,
    show_default=True,
    help="The judge, ENGINE:PLIES[:CANDIDATES/THRESHOLD] (gnubg's plies).",
)
@click.option(
    "--levels",
    help="The levels judged, comma-separated ENGINE:PLIES[:CANDIDATES/THRESHOLD] (the engine's own move "
    f"filter unless given) [{','.join(DEFAULT_LEVELS)}].",
)
@ARCHIVE
@JSON
def engines(
    decisions: int, seed: int, reference: str, levels: str | None, archive: Path | None, as_json: bool
) -> None:
    """Backgammon: each engine and level (own, sage 0-2 plies; gnubg's when installed) picks its play on
    --decisions real decisions of --archive drawn with --seed, judged by --reference: mean loss, agreement,
    CPU per decision (the reference cached in ~/.cache/taldau/strength)."""
    chosen = None if levels is None else [level for level in levels.split(",") if level.strip()]
    with progress_line("judging", "decision", every=30.0) as line:
        try:
            report = measure_strength(
                BGLAB if archive is None else archive,
                decisions,
                seed,
                chosen,
                reference,
                progress=lambda done, total: line.update(done, total),
            )
        except (FileNotFoundError, ValueError) as error:
            raise click.ClickException(str(error)) from None
    _show(report, as_json)


@click.command()
@whole_option(
    "--decisions", default=judging.DEFAULT_DRAW, help="Checker plays drawn (two or more legal plays)."
)
@click.option(
    "--seed", type=int, default=judging.DEFAULT_SEED, show_default=True, help="The draw of decisions."
)
@click.option(
    "--levels",
    help="ENGINE:LEVEL, comma-separated (quick, standard, deep) [sage:quick,sage:standard,sage:deep,"
    "own:standard; gnubg:standard when installed].",
)
@whole_option("--jobs", default=1, help="Processes rolling out.")
@ARCHIVE
@JSON
def judge(
    decisions: int,
    seed: int,
    levels: str | None,
    jobs: int,
    archive: Path | None,
    as_json: bool,
) -> None:
    """Backgammon: the levels of review on real checker plays of --archive drawn with --seed, judged by
    bgsage's rollouts of the plays in dispute or near a mark (432 trials, to the end, in their match
    context): mean loss, marks against the rollout-settled ones, CPU. The rollouts are kept in
    tests/data/backgammon/judge (resumable; later runs take no rollout time)."""
    jobs = within_ceiling(jobs, "--jobs", "backgammon")
    folder = BGLAB if archive is None else archive
    chosen = judging.default_judge_levels() if levels is None else [x for x in levels.split(",") if x.strip()]
    try:
        for level in chosen:
            judging.JudgeLevel.parse(level)
        if not Path(folder).is_dir():
            raise FileNotFoundError(f"the real matches are not here: {folder} is not a folder")
        drawn = draw_decisions(folder, decisions, seed)
        with progress_line("rolling out", "decision", every=30.0) as line:
            report = judging.judge_levels(
                drawn,
                chosen,
                jobs=jobs,
                seed=seed,
                folder=str(folder),
                progress=lambda done, total: line.update(done, total),
            )
    except (FileNotFoundError, ValueError) as error:
        raise click.ClickException(str(error)) from None
    _show(report, as_json)


def _show(report: StrengthReport | JudgeReport, as_json: bool) -> None:
    """A report on stdout: one JSON object, or its lines."""
    if as_json:
        click.echo(json.dumps(report.to_json()))
        return
    for text in report.lines():
        click.echo(text)
