"""The commands that read archives of either game and print game by game: ``validate`` (every game read and
replayed, the bad ones reported) and ``annotate`` (every decision judged, or read from an ``analyze``
output folder, and written back with marks; ``taldau.analysis.annotate``)."""

from __future__ import annotations

import json
import sys
from typing import Any

import click
from taldau.analysis.validation import Summary, check_paths, describe, describe_warnings
from taldau.base.kind import Limit
from taldau.base.records import ReadLimits
from taldau.cli.options import (
    BOTH_GAMES_LIMIT,
    JSON,
    REVIEW_DEFAULT,
    chosen_engine,
    engine_option,
    game_option,
    level_option,
    say,
)
from taldau.cli.progress import ProgressLine, progress_line


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@JSON
def validate(paths: tuple[str, ...], as_json: bool) -> None:
    """Read and replay every game under PATHS (files, directories, .zip, tar, .gz) and report bad ones."""
    summary = Summary()
    if as_json:  # one game at a time: the report of a huge archive is never held whole
        click.echo('{"games": [', nl=False)
    for number, check in enumerate(check_paths(paths, ReadLimits())):
        note = summary.add(check)  # a file with no game, or a duplicate: said so once
        if as_json:
            separator = "\n" if number == 0 else ",\n"
            click.echo(separator + json.dumps(check.to_json(), ensure_ascii=False), nl=False)
        elif note is not None:
            click.echo(note.describe())
        else:
            if not check.valid:
                click.echo(describe(check))
            for line in describe_warnings(check):  # the game stays valid: said, not counted
                click.echo(line)
    if as_json:
        click.echo(f'\n], "summary": {json.dumps(summary.to_json())}}}')
    else:
        click.echo(summary.text())
    if summary.games == 0:
        say(f"error: no game found under {' '.join(paths)}")
    sys.exit(0 if summary.inputs.problems == 0 and summary.games > 0 else 1)


class JudgedProgress:
    """The decisions judged so far, shown on ``shown`` (a progress line) as they come."""

    def __init__(self) -> None:
        self.decisions = 0
        self.shown: ProgressLine | None = None

    def add(self, decisions: int) -> None:
        self.decisions += decisions
        if self.shown is not None:
            self.shown.update(self.decisions)


@click.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@game_option(
    "The game to annotate (auto: the only game of the archive; Togyz Kumalak when it holds both); records "
    "of the other game are listed as skipped.",
    default="auto",
    auto=True,
)
@BOTH_GAMES_LIMIT.showing(depth=REVIEW_DEFAULT)
@level_option
@engine_option(both_games=True)
@click.option(
    "--form",
    type=click.Choice(["short", "full"]),
    default="short",
    show_default=True,
    help="Togyz: the scoresheet's form; backgammon: full lists every decision, short the marked ones.",
)
def annotate(
    paths: tuple[str, ...],
    game: str,
    depth: int | None,
    nodes: int | None,
    movetime: float | None,
    level: str | None,
    engine: str | None,
    form: str,
) -> None:
    """Analyse every decision of the games in PATHS and print them with marks and statistics: Togyz games
    as scoresheets, backgammon matches as an analysis text in the manner of gnubg's export. PATHS may
    instead be one `taldau analyze` output folder: its stored judgements are printed, nothing is searched
    again (its records are read again from where analyze read them, for their text)."""
    from taldau.analysis import annotate as annotating
    from taldau.analysis.batch import ArchivePlan
    from taldau.analysis.folder import FolderError, is_analysis_folder

    limit = BOTH_GAMES_LIMIT.given(depth, nodes, movetime, level)
    judged = JudgedProgress()  # the progress of a review (none when stored judgements are printed)
    try:
        if any(is_analysis_folder(path) for path in paths):
            if len(paths) > 1 or game != "auto" or limit != Limit() or engine is not None:
                raise click.UsageError(
                    "an analysis folder is annotated alone, at its own settings (no other path, --game, "
                    "--depth, --nodes, --movetime, --level or --engine)"
                )
            items = annotating.annotate_stored(annotating.StoredAnalysis.open(paths[0]), form, ReadLimits())
        else:
            archive: Any = paths
            if game == "auto":  # the archive read once, here: which game each file holds comes with it
                archive = ArchivePlan.read(paths, ReadLimits())
            chosen = archive.game() if game == "auto" else game
            try:
                items = annotating.annotate(
                    archive, chosen, limit, form, ReadLimits(), chosen_engine(engine, chosen), say, judged.add
                )
            except ValueError as error:
                raise click.UsageError(str(error)) from None
        written = 0
        with progress_line("annotating", "decision", prints=True) as judged.shown:
            for item in items:
                if isinstance(item, annotating.NotAnnotated):
                    judged.shown.note(str(item))
                else:
                    click.echo(str(item))
                    written += 1
    except FolderError as error:
        raise click.ClickException(str(error)) from None
    if written == 0:  # nothing to annotate, or nothing that could be: a failure, as validate's
        say(f"error: no game annotated under {' '.join(paths)}")
        sys.exit(1)
