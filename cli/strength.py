"""``taldau bench --game backgammon --engines``: each engine and level judged by a deeper reference on real
decisions (``taldau.measure.backgammon.strength``); ``--judge``: the levels of review judged by rollouts
(``taldau.measure.backgammon.judge``); this module parses, calls and prints."""

from __future__ import annotations

import json
from pathlib import Path

import click
from taldau.cli.progress import progress_line
from taldau.measure.backgammon.judge import JudgeReport
from taldau.measure.backgammon.strength import (
    BGLAB,
    DEFAULT_DECISIONS,
    StrengthReport,
    draw_decisions,
    measure_strength,
)


def backgammon_strength(
    archive: Path | None, decisions: int | None, seed: int, reference: str, levels: str | None, as_json: bool
) -> None:
    """The strength report of ``levels`` (comma-separated; the defaults when None) judged by ``reference``
    on ``decisions`` decisions of ``archive`` (bglab when None), printed; a clear error when the matches
    are absent or a level cannot run here."""
    chosen = None if levels is None else [level for level in levels.split(",") if level.strip()]
    with progress_line("judging", "decision", every=30.0) as line:
        try:
            report = measure_strength(
                BGLAB if archive is None else archive,
                decisions or DEFAULT_DECISIONS,
                seed,
                chosen,
                reference,
                progress=lambda done, total: line.update(done, total),
            )
        except (FileNotFoundError, ValueError) as error:
            raise click.ClickException(str(error)) from None
    _show(report, as_json)


def backgammon_judge(
    archive: Path | None,
    decisions: int | None,
    seed: int | None,
    levels: str | None,
    jobs: int,
    as_json: bool,
) -> None:
    """The levels of review (``levels`` comma-separated, the defaults when None) judged by rollouts on
    ``decisions`` checker plays of ``archive`` (bglab when None) drawn with ``seed``, the missing rollouts on
    ``jobs`` processes, printed; a clear error when the matches are absent or a level cannot run here."""
    from taldau.measure.backgammon import judge

    folder = BGLAB if archive is None else archive
    chosen = judge.default_judge_levels() if levels is None else [x for x in levels.split(",") if x.strip()]
    try:
        for level in chosen:
            judge.JudgeLevel.parse(level)
        if not Path(folder).is_dir():
            raise FileNotFoundError(f"the real matches are not here: {folder} is not a folder")
        drawn = draw_decisions(
            folder, decisions or judge.DEFAULT_DRAW, judge.DEFAULT_SEED if seed is None else seed
        )
        with progress_line("rolling out", "decision", every=30.0) as line:
            report = judge.judge_levels(
                drawn,
                chosen,
                jobs=jobs,
                seed=judge.DEFAULT_SEED if seed is None else seed,
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
