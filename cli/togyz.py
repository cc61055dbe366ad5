"""The commands of Togyz Kumalak alone: ``perft``, ``search``, ``tune`` and ``fit-curve``."""

from __future__ import annotations

import json

import click
from taldau.analysis.accounting import count
from taldau.analysis.validation import valid_games
from taldau.base.kind import Limit
from taldau.base.records import ReadLimits
from taldau.base.winchance import fit_win_curve
from taldau.cli.book import book_option, book_player
from taldau.cli.options import (
    JSON,
    TOGYZ_DEFAULT,
    TOGYZ_LIMIT,
    game_option,
    say,
)
from taldau.cli.outputs import writable_file
from taldau.games.togyz import START_FEN, FenError, Position, perft
from taldau.games.togyz.answers import judged_json, search_json, search_line
from taldau.games.togyz.engine import Engine
from taldau.games.togyz.kind import DEPTH_FACTOR
from taldau.games.togyz.review import REVIEW_DEPTH, book_move, judge_move, review_limit
from taldau.games.togyz.tuning import curve_samples, dumps, samples, tune_weights

FIT_DEPTH = 8  # fit-curve's search depth unless a limit is given, below every other search's: see FIT_HELP
FIT_HELP = (
    "Fit the winning-chance curve on engine scores and results of the real games in PATHS. Its depth unless "
    f"given is {FIT_DEPTH}, not the {REVIEW_DEPTH} of every other search: a fit wants thousands of positions "
    f"(the shipped curve 17,735, fitted at depth {FIT_DEPTH}), each about "
    f"{DEPTH_FACTOR ** (REVIEW_DEPTH - FIT_DEPTH):.0f} times as long to search at {REVIEW_DEPTH}."
)


def togyz_position(fen: str) -> Position:
    """The position of a Togyz FEN, or a usage error of the argument FEN."""
    try:
        return Position.from_fen(fen)
    except FenError as error:
        raise click.BadParameter(str(error), param_hint="FEN") from None


def _games(paths: tuple[str, ...]):
    """The valid games under ``paths``; the others are reported on stderr."""
    return valid_games(paths, say, limits=ReadLimits())


def _write(text: str, out: str | None) -> None:
    """``text`` on stdout, or into the file ``out``."""
    if out is None:
        click.echo(text, nl=False)
    else:
        with open(out, "w", encoding="utf-8") as handle:
            handle.write(text)


@click.command("perft")
@game_option("The game (Togyz Kumalak only).", only="togyz")
@click.option("--fen", default=START_FEN, show_default="start position", help="Position to count from.")
@click.option("--depth", type=click.IntRange(0, 30), required=True, help="Plies to count.")
@JSON
def perft_command(game: str, fen: str, depth: int, as_json: bool) -> None:
    """Count the legal move sequences of DEPTH plies (the standard check of a rules core) and time it."""
    result = perft(togyz_position(fen), depth)
    if as_json:
        payload = {
            "depth": depth,
            "nodes": result.nodes,
            "seconds": round(result.seconds, 6),
            "nps": round(result.nps),
        }
        click.echo(json.dumps(payload))
    else:
        click.echo(
            f"depth {depth}: {count(result.nodes, 'node')} in {result.seconds:.3f} s, "
            f"{result.nps:,.0f} nodes/s"
        )


@click.command()
@click.argument("fen")
@TOGYZ_LIMIT.showing(depth=TOGYZ_DEFAULT)
@click.option("--multipv", type=click.IntRange(1, 9), default=1, show_default=True, help="Lines to show.")
@click.option(
    "--played",
    type=click.IntRange(1, 9),
    help="Judge the move from this pit (1 to 9) against the best, as a review does: its score, the kumalak "
    "it loses, the winning chances it gives away and its mark.",
)
@book_option
@JSON
def search(
    fen: str,
    depth: int | None,
    nodes: int | None,
    movetime: float | None,
    multipv: int,
    played: int | None,
    book_path: str | None,
    seed: int,
    as_json: bool,
) -> None:
    """Search a Togyz FEN position and print the best move, score (mover's side, kumalak) and line; with
    --played, judge that move as a review does; with --book, a move of the book that the engine does not
    refute when the book has one. Its depth unless given is a review's."""
    position = togyz_position(fen)
    if position.is_game_over():
        raise click.BadParameter("the game is over in this position", param_hint="FEN")
    if played is not None and (book_path is not None or multipv > 1):
        raise click.UsageError("--played judges one move: it does not go with --book or --multipv")
    player = None if book_path is None else book_player(book_path, seed)
    limit = TOGYZ_LIMIT.limit(depth, nodes, movetime, review_limit())
    if played is not None:
        _judge(position, played, limit, as_json)
        return
    pit = None if player is None else book_move(player, position, Engine(), limit)
    if pit is not None:
        book = {"best": position.san(pit), "book": True}
        click.echo(json.dumps(book) if as_json else f"book move {position.san(pit)}")
        return
    info = Engine().analyse(position, limit, multipv=multipv)
    if as_json:
        click.echo(json.dumps(search_json(position, info, multipv)))
        return
    for rank, line in enumerate(info.lines, 1):
        shown = search_line(position, line)
        click.echo(f"{rank}. {shown['move']:<8} {shown['score_text']:>10}  {' '.join(shown['pv'])}")
    solved = ", solved" if info.solved else ""
    click.echo(f"depth {info.depth}/{info.seldepth}, {info.nodes} nodes, {info.nps:,.0f} nodes/s{solved}")


def _judge(position: Position, pit: int, limit: Limit, as_json: bool) -> None:
    """Print the move from ``pit`` (1 to 9) of ``position`` judged against the best (``judge_move``)."""
    if not position.is_legal(pit):
        raise click.BadParameter(position.illegal_reason(pit), param_hint="--played")
    from taldau.games.togyz.chances import load_win_curve
    from taldau.games.togyz.kind import SCALE

    judged = judge_move(position, pit, Engine(), load_win_curve(), limit)
    mark = SCALE.mark(judged.drop)
    if as_json:
        click.echo(json.dumps(judged_json(position, pit, judged, mark)))
        return
    click.echo(
        f"played {position.san(pit)} {judged.played.score}, best {position.san(judged.best.best)} "
        f"{judged.best.score}: loses {judged.loss:.2f} kumalak, {judged.drop:.3f} winning chances"
        f"{f' ({mark})' if mark else ''}; depth {judged.best.depth}"
    )


@click.command()
@game_option("The game (Togyz Kumalak only).", only="togyz")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option(
    "--shrink",
    type=click.FloatRange(0, 1, min_open=True),
    default=0.5,
    show_default=True,
    help="Scale of the positional weights relative to the fit (chosen by match).",
)
@click.option("--out", type=click.Path(dir_okay=False), help="Write the weights here instead of stdout.")
def tune(game: str, paths: tuple[str, ...], shrink: float, out: str | None) -> None:
    """Fit the evaluation weights on the results of the real games in PATHS (reproducible)."""
    if out:
        writable_file(out)
    document = tune_weights(samples(_games(paths)), shrink=shrink, source=" ".join(paths))
    _write(dumps(document), out)


@click.command("fit-curve", help=FIT_HELP)
@game_option("The game (Togyz Kumalak only).", only="togyz")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@TOGYZ_LIMIT.showing(depth=str(FIT_DEPTH))
@click.option(
    "--every", type=click.IntRange(min=1), default=12, show_default=True, help="Sample every Nth ply."
)
@click.option("--out", type=click.Path(dir_okay=False), help="Write the curve here instead of stdout.")
def fit_curve(
    game: str,
    paths: tuple[str, ...],
    depth: int | None,
    nodes: int | None,
    movetime: float | None,
    every: int,
    out: str | None,
) -> None:
    """Fit the winning-chance curve (``FIT_HELP``)."""
    if out:
        writable_file(out)
    limit = TOGYZ_LIMIT.limit(depth, nodes, movetime, Limit(depth=FIT_DEPTH))
    scores, progress, results = curve_samples(samples(_games(paths), every=every), Engine(), limit)
    curve = fit_win_curve(scores, progress, results, source=f"{' '.join(paths)}, {limit}, every {every}")
    _write(curve.to_json(), out)
