"""Pictures: ``taldau report``, the HTML report of an analysed archive (``taldau.analysis.report``), and
``taldau show``, a position of either game drawn as text or as the report's SVG board diagram (here, as
the report draws its boards; the game is the one whose notation the position is, the registry asked)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click
from taldau.analysis.report import ReportError, write_report
from taldau.cli.options import EX_USAGE, say
from taldau.cli.outputs import writable_file, writable_folder
from taldau.cli.progress import progress_line
from taldau.games.registry import game_kind, position_game


@click.command()
@click.argument("folder", type=click.Path(exists=True, file_okay=False))
@click.option(
    "--out", required=True, type=click.Path(file_okay=False), help="Folder to write the report into."
)
@click.option(
    "--games",
    "query",
    metavar="TEXT",
    help="Only the games whose players, event, site, date, round, record file or game id contain TEXT "
    "(any case).",
)
@click.option(
    "--book",
    type=click.Path(exists=True, file_okay=False),
    help="An opening book (`taldau book build`): the move lists say how each opening move stands in it.",
)
def report(folder: str, out: str, query: str | None, book: str | None) -> None:
    """Write an HTML report of the analysis in FOLDER (the --out of `taldau analyze`) into OUT:
    index.html (settings, mark counts, a sortable players table, the games, the worst blunders) and one
    page per game (evaluation graph, moves with marks, a board diagram of every mistake and blunder). It
    opens from disk, with no server and no network. With --book (a book of the analysis' game), each
    move of the book's first plies shows the games in which it was played in that position, its score and
    whether it is the book's most played move there. OUT must be empty (or new) or hold an earlier report:
    only the files a report wrote there (listed in its .taldau-report) are replaced or removed. Exit 2,
    with one line and before anything is written, for a FOLDER that is not an analysis, a book of another
    game, or an OUT holding files no report wrote."""
    writable_folder(out)
    started = time.perf_counter()
    try:
        with progress_line("writing", "game page") as shown:
            summary = write_report(folder, out, query, lambda done, total: shown.update(done, total), book)
    except ReportError as error:
        say(f"error: {error}")
        sys.exit(EX_USAGE)
    seconds = time.perf_counter() - started
    click.echo(
        f"{Path(out) / 'index.html'}: games {summary.games}, pages {summary.pages}, diagrams "
        f"{summary.diagrams}, {seconds:.1f} s"
    )


@click.command()
@click.argument("position")
@click.option("--svg", "svg", type=click.Path(dir_okay=False), help="Write the board as an SVG picture here.")
def show(position: str, svg: str | None) -> None:
    """Draw a position: a Togyz FEN (pits, kazans, tuzdyks, side to move) or a backgammon gnubg Position ID,
    GNUbgID (PositionID:MatchID) or XGID (points, bar, borne off, pips, cube and score)."""
    try:
        game = position_game(position)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="POSITION") from None
    if svg:
        writable_file(svg, "--svg")
        Path(svg).write_text(game_kind(game).svg(position) + "\n", encoding="utf-8")
    elif game == "backgammon":
        from taldau.games.backgammon.diagram import render
        from taldau.games.backgammon.rules.position_text import read_position

        setup = read_position(position)
        click.echo(render(setup.position, setup.state, setup.dice))
    else:
        from taldau.games.togyz import Position
        from taldau.games.togyz.diagram import render as render_togyz

        click.echo(render_togyz(Position.from_fen(position)))
