"""The ``taldau`` command: parses arguments, calls the library, prints. Results on stdout, the rest on stderr.

Exit codes: 0 success, 1 some games invalid, 2 usage error (click's own).
"""

from __future__ import annotations

import json
import sys

import click
from taldau.analysis.validation import Summary, check_paths, describe
from taldau.games.togyz import START_FEN, FenError, Position, perft
from taldau.games.togyz.diagram import render

GAMES = ("togyz",)


def _position(fen: str) -> Position:
    try:
        return Position.from_fen(fen)
    except FenError as error:
        raise click.BadParameter(str(error), param_hint="FEN") from None


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="taldau")
def main() -> None:
    """taldau: batch analysis of recorded Togyz Kumalak and backgammon games."""


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def validate(paths: tuple[str, ...], as_json: bool) -> None:
    """Read and replay every game under PATHS (files, directories, .zip, .tar.gz) and report bad ones."""
    summary = Summary()
    games = []
    for check in check_paths(paths):
        summary.add(check)
        if as_json:
            games.append(check.to_json())
        elif not check.valid:
            click.echo(describe(check))
    if as_json:
        click.echo(json.dumps({"summary": summary.to_json(), "games": games}, ensure_ascii=False))
    else:
        click.echo(
            f"{summary.games} games, {summary.valid} valid, {summary.invalid} invalid, {summary.plies} plies"
        )
    sys.exit(0 if summary.invalid == 0 else 1)


@main.command()
@click.argument("fen")
def show(fen: str) -> None:
    """Draw the position of a Togyz FEN: pits, kazans, tuzdyks and side to move."""
    click.echo(render(_position(fen)))


@main.command("perft")
@click.option("--game", type=click.Choice(GAMES), default="togyz", show_default=True)
@click.option("--fen", default=START_FEN, show_default="start position", help="Position to count from.")
@click.option("--depth", type=click.IntRange(0, 30), required=True, help="Plies to count.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def perft_command(game: str, fen: str, depth: int, as_json: bool) -> None:
    """Count the legal move sequences of DEPTH plies (the standard check of a rules core) and time it."""
    result = perft(_position(fen), depth)
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
            f"depth {depth}: {result.nodes} nodes in {result.seconds:.3f} s, {result.nps:,.0f} nodes/s"
        )
