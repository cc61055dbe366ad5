"""``taldau bench --marks``: how right the marks are, on a fixed sample of real games (``analysis.marks``)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
from taldau.analysis.marks import run_marks_bench
from taldau.analysis.validation import valid_games
from taldau.games.agreement import spread_sample
from taldau.games.kind import AnalysisOptions
from taldau.games.records import ReadLimits
from taldau.games.registry import game_kind

ARCHIVE = "../shared/data/togyz/playok-2024-2025.pgn"
SAMPLE = 30


def marks_options(function):
    """--marks, --reference-depth, --one-search (the games: the bench's --archive, else ARCHIVE)."""
    for option in reversed(
        (
            click.option("--marks", is_flag=True, help="Measure the marks against a deeper reference."),
            click.option(
                "--reference-depth",
                type=click.IntRange(1, 60),
                default=18,
                show_default=True,
                help="With --marks: the reference's depth.",
            ),
            click.option(
                "--one-search",
                is_flag=True,
                help="With --marks (Togyz): also review with the played move valued by the next position.",
            ),
        )
    ):
        function = option(function)
    return function


def marks_bench(
    game: str,
    options: AnalysisOptions,
    games: int | None,
    reference_depth: int,
    archive: str,
    one_search: bool,
    as_json: bool,
) -> None:
    """Review ``games`` games spread over ``archive`` at ``options`` and at the reference depth; print the
    marks' precision and recall against the reference, and the seconds."""
    kind = game_kind(game)
    analyser = kind.analyser
    if analyser is None:
        raise click.UsageError(f"taldau has no {game} engine")
    found = list(valid_games([Path(archive)], lambda message: None, game, ReadLimits()))
    sample = spread_sample(found, games or SAMPLE)
    tested: dict[str, Any] = {"default": (analyser, options)}
    if one_search:
        tested["one_search"] = (replace(analyser, one_search=True), options)  # type: ignore[type-var]
    report = run_marks_bench(
        kind, sample, tested, (analyser, AnalysisOptions(depth=reference_depth)), analyser.scale.thresholds
    )
    report["archive"] = archive
    if as_json:
        click.echo(json.dumps(report))
        return
    click.echo(
        f"{report['games']} games of {archive} ({report['decisions']} decisions); reference depth "
        f"{reference_depth}: {report['reference']['seconds']} s"
    )
    for name in tested:
        entry = report[name]
        against = entry["against_reference"]
        click.echo(
            f"{name} {entry['options']}: {entry['seconds']} s; same mark as the reference on "
            f"{against['same_mark']} of {against['decisions']}; "
            f"loss correlation {against['loss_correlation']}"
        )
        for agreement in against["marks"] + against["at_least"][:-1]:
            click.echo(
                f"  {agreement['mark']}: precision {agreement['precision']} ({agreement['both']}/"
                f"{agreement['tested']}), recall {agreement['recall']} ({agreement['both']}/"
                f"{agreement['reference']})"
            )
        for key, value in entry.items():
            if key.startswith("against_default"):
                click.echo(f"  marks as the default review's: {value['same_mark']} of {value['decisions']}")
            elif key.startswith("seconds_ratio"):
                click.echo(f"  seconds / the default review's: {value}")
