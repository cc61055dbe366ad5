"""``taldau book``: build, merge and read opening books (``taldau.analysis.book``). The commands parse their
arguments, call the library and print."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

import click
from taldau.analysis.accounting import Inputs
from taldau.analysis.accounting import count as _count
from taldau.analysis.book import (
    Book,
    BookMismatch,
    BookSettings,
    BuildReport,
    InputReport,
    build_book,
    merge_books,
)
from taldau.analysis.book.lookup import LookupMove
from taldau.analysis.book.play import BookPlayer
from taldau.analysis.book.query import Entry, main_lines, move_json, position_key
from taldau.analysis.book.query import entries as book_entries
from taldau.analysis.folder import is_analysis_folder
from taldau.analysis.validation import auto_game
from taldau.base.records import ReadLimits
from taldau.cli.options import EX_USAGE, JSON, game_option, say
from taldau.cli.outputs import writable_folder
from taldau.cli.progress import ProgressLine, progress_line
from taldau.games.registry import KINDS


def book_option(function):
    """--book BOOK and --seed, for the commands of an engine that plays from a book."""
    function = click.option(
        "--seed", type=int, default=0, show_default=True, help="Seed of the book's choices."
    )(function)
    return click.option(
        "--book",
        "book_path",
        type=click.Path(exists=True, file_okay=False),
        help="Play from this opening book.",
    )(function)


def book_player(folder: str, seed: int, game: str = "togyz") -> BookPlayer:
    """The book in ``folder`` as an engine of ``game`` plays from it; a usage error when it is no book of
    that game."""
    try:
        built = Book(folder).check().settings().game
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--book") from None
    if built != game:
        raise click.BadParameter(f"{folder} is a book of {built} games, not {game}", param_hint="--book")
    return BookPlayer(folder, seed=seed)


@click.group()
def book() -> None:
    """Opening books from archives and analyses: for every position of the openings (and roll, for
    backgammon), the moves played, how they scored for the side that played them, and what the engine
    thought of them."""


def _progress(shown: ProgressLine) -> Callable[[InputReport], None]:
    """What ``build`` shows of every input read: the files done (a bar on a terminal, a line now and then
    otherwise), and each game or file skipped, on a line of its own (stderr)."""
    done = [0]

    def show(report: InputReport) -> None:
        for line in report.skipped:
            shown.note(f"  skipped: {line}")
        done[0] += 1
        shown.update(done[0])

    return show


def _summary(folder: str, manifest: dict, as_json: bool, inputs: Inputs | None = None) -> None:
    """The book's counts, and those of a build's inputs (``inputs``: its files and games, counted as
    ``validate`` and ``analyze`` count them)."""
    counts = manifest["counts"]
    if as_json:
        extra = {} if inputs is None else {"inputs": inputs.counts()}
        click.echo(json.dumps({"book": folder, **counts, **extra}))
        return
    read = ""
    if inputs is not None:
        others = f"; {inputs.others()}" if inputs.others() else ""
        read = (
            f"{_count(inputs.files, 'file')}, {_count(inputs.games, 'game')}: {inputs.valid} counted, "
            f"{inputs.invalid} partial{others} -> "
        )
    click.echo(
        f"{read}book {folder}: {_count(counts['games'], 'game')} ({counts['partial']} partial), "
        f"{_count(counts['plies'], 'opening ply', 'opening plies')}, "
        f"{_count(counts['analysed_games'], 'analysed game')}; {_count(counts['positions'], 'position')}, "
        f"{_count(counts['moves'], 'book move')}"
    )


@book.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--out", required=True, type=click.Path(file_okay=False), help="The book's folder.")
@click.option(
    "--analysis",
    "analyses",
    multiple=True,
    type=click.Path(exists=True, file_okay=False),
    help="A `taldau analyze` output folder whose judgements the book takes (repeatable).",
)
@click.option(
    "--max-ply",
    type=click.IntRange(min=1),
    show_default=", ".join(f"{kind.name} {kind.book_plies}" for kind in KINDS),
    help="Plies deep (each game's own depth unless given).",
)
@click.option(
    "--min-games",
    type=click.IntRange(min=1),
    default=1,
    help="Keep the positions reached in at least this many games (backgammon: over every roll).",
)
@game_option(
    "The book's game (auto: the only game of the records, Togyz Kumalak when they hold both, as `taldau "
    "analyze` chooses); records of the other game are listed as skipped.",
    default="auto",
    auto=True,
)
@click.option("--json", "as_json", is_flag=True, help="Print the book's counts as JSON on stdout.")
def build(
    paths: tuple[str, ...],
    out: str,
    analyses: tuple[str, ...],
    max_ply: int | None,
    min_games: int,
    game: str,
    as_json: bool,
) -> None:
    """Build (or grow, or resume) the book in OUT from the archives and analysis folders under PATHS.
    Inputs already in the book are not read again. A book holds one judge's evaluations: analysis folders
    judged otherwise (another engine or limit), among themselves or against the book's, are refused
    before anything is read. Exit 1 when a game or file was skipped, 2 when OUT holds a book of other
    settings (another game or depth), the analyses were judged otherwise, or OUT cannot be written."""
    writable_folder(out)
    if game == "auto":
        records = [path for path in paths if not is_analysis_folder(path)]
        game = auto_game(records, ReadLimits())
    settings = BookSettings(game, max_ply)
    try:
        with progress_line("reading", "input") as shown:
            report = build_book(
                paths,
                out,
                settings,
                analyses,
                min_games,
                progress=_progress(shown),
                found=lambda inputs: shown.update(0, inputs),
            )
            shown.update(shown.total or 0)  # the inputs already in the book too
    except BookMismatch as error:
        say(f"error: {error}")
        sys.exit(EX_USAGE)
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    if report.resumed:
        click.echo(f"{len(report.resumed)} inputs already in the book", err=True)
    for name in report.replaced:
        click.echo(f"{name}: changed since it was read, its earlier games replaced", err=True)
    _summary(out, report.manifest, as_json, report.inputs())
    if _failed(report):
        sys.exit(1)


def _failed(report: BuildReport) -> bool:
    """Whether a build met bad input, as ``validate`` counts it (an input not read, an invalid game, a file
    that could not be read, an analysis not used): files that are not records, duplicates and games of
    the other game are listed, not failures."""
    counted = ("games", "not_record", "duplicates", "other_game", "partial")
    unreadable = [
        item
        for item in report.read
        if item.skipped and (item.kind != "records" or not any(getattr(item, name) for name in counted))
    ]
    return bool(report.unread or unreadable or report.inputs().problems)


@book.command()
@click.argument("books", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False))
@click.option("--out", required=True, type=click.Path(file_okay=False), help="The merged book's folder.")
@click.option(
    "--min-games",
    type=click.IntRange(min=1),
    show_default="the first book's",
    help="Keep the positions reached in at least this many games of the books together.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the book's counts as JSON on stdout.")
def merge(books: tuple[str, ...], out: str, min_games: int | None, as_json: bool) -> None:
    """Merge BOOKS into OUT (which may be one of them): the same book as one build over all their inputs.
    Exit 2 when the books were built with other settings or their evaluations judged otherwise (another
    engine or limit), nothing merged, or OUT cannot be written."""
    writable_folder(out)
    try:
        report = merge_books(books, out, min_games)
    except BookMismatch as error:
        say(f"error: {error}")
        sys.exit(EX_USAGE)
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    _summary(out, report.manifest, as_json)


def _value(value: float | None) -> str:
    return "" if value is None else f"{value:+.2f}"


def _score(move: LookupMove) -> str:
    return "" if move.score is None else f"{100 * move.score:.1f}%"


def _move_line(move: LookupMove, best: str | None) -> str:
    wdl = f"{move.wins}/{move.draws}/{move.losses}"
    points = f"+{move.points_won:g}/-{move.points_lost:g}"
    star = "*" if move.move == best else " "
    marked = str(move.marked) if move.marked else ""
    return (
        f"  {move.move or '(no play)':<16}{star}{move.games:>7} {move.results:>7} {_score(move):>7} "
        f"{wdl:>12} {points:>12} {_value(move.eval):>8} {marked:>6}"
    )


def _print_entry(entry: Entry) -> None:
    roll = f", roll {entry.dice}" if entry.dice else ""
    engine = ""
    if entry.best_move is not None:
        engine = f"; engine {_value(entry.eval)}, best {entry.best_move}"
    games, results = _count(entry.games, "game"), _count(entry.results, "result")
    click.echo(f"{entry.position}{roll}: {games}, {results}{engine}")
    header = (
        f"  {'move':<17}{'games':>7} {'results':>7} {'score':>7} {'W/D/L':>12} {'points':>12} {'eval':>8} "
        f"{'marked':>6}"
    )
    click.echo(header)
    for move in entry.moves:
        click.echo(_move_line(move, entry.best_move))
    if entry.best_move is not None and all(move.move != entry.best_move for move in entry.moves):
        empty = f"{'':>7} {'':>7} {'':>12} {'':>12}"
        click.echo(f"  {entry.best_move:<16}*{0:>7} {empty} {_value(entry.eval):>8}")


def _roll(dice: str) -> str:
    """The roll of --dice as the book names it (high die first), or a usage error when it is not a roll."""
    from taldau.games.backgammon.rules.position import parse_dice

    try:
        return "".join(str(die) for die in sorted(parse_dice(dice), reverse=True))
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="--dice") from None


@book.command()
@click.argument("book_folder", metavar="BOOK", type=click.Path(exists=True, file_okay=False))
@click.argument("position")
@click.option("--dice", help="Backgammon: only this roll ('31', each die 1 to 6).")
@JSON
def show(book_folder: str, position: str, dice: str | None, as_json: bool) -> None:
    """The moves of POSITION in the book, most played first: games, the games with a known result
    (results) and over them the score and W/D/L from the mover's side, points won and lost, the engine's
    value after the move and how often it was marked (* the engine's best move, also when nobody played
    it). POSITION: the game's notation (Togyz FEN, backgammon Position
    ID), `start`, or a key (decimal or 0x hex)."""
    roll = None if dice is None else _roll(dice)
    try:
        opened = Book(book_folder).check()
        key = position_key(opened, position)
        found = book_entries(opened, key, roll)
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    if as_json:
        click.echo(json.dumps({"key": key, "entries": [entry.to_json() for entry in found]}))
        return
    if not found:
        click.echo(f"not in the book (key {key:#018x})")
        return
    for entry in found:
        _print_entry(entry)


@book.command()
@click.argument("book_folder", metavar="BOOK", type=click.Path(exists=True, file_okay=False))
@click.option("--depth", type=click.IntRange(min=1), default=3, show_default=True, help="Moves deep.")
@click.option("--width", type=click.IntRange(min=1), default=3, show_default=True, help="Moves per position.")
@JSON
def tree(book_folder: str, depth: int, width: int, as_json: bool) -> None:
    """The book's main lines from the start: the WIDTH most played moves of every position (of every roll,
    for backgammon), DEPTH moves deep, with games, and the score from the mover's side over the games with
    a known result."""
    try:
        lines = main_lines(Book(book_folder).check(), depth, width)
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    if as_json:
        payload = [{"depth": line.depth, **move_json(line.move)} for line in lines]
        click.echo(json.dumps(payload))
        return
    for line in lines:
        move = line.move
        roll = f"{move.dice}: " if move.dice else ""
        results = _count(move.results, "result")
        score = ", no result" if move.score is None else f" {_score(move)} over {results}"
        games = _count(move.games, "game")
        click.echo(f"{'  ' * line.depth}{roll}{move.move or '(no play)'}  {games}{score}")
