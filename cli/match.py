"""``taldau match``: A against B, in either game. Togyz: engine settings (or our engine against the
AlphaZero net of nitromir/togyzkumalak-engine) over a set of openings, both colours. Backgammon: cubeless
money games with duplicate dice, plain and luck-adjusted. This module parses, calls ``taldau.measure`` and
prints."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import click
from taldau.base.kind import Limit
from taldau.cli.backgammon import evaluator
from taldau.cli.book import book_player
from taldau.cli.options import (
    BOTH_GAMES_LIMIT,
    JSON,
    game_option,
    processes_option,
    whole_option,
    within_ceiling,
)
from taldau.cli.progress import progress_line
from taldau.games.backgammon.engine import Evaluator
from taldau.games.backgammon.engine.analyse import load_evaluator
from taldau.games.togyz.engine import EngineSettings, named_settings
from taldau.games.togyz.evaluate import load_weights
from taldau.measure.backgammon.match import DEFAULT_A, DEFAULT_B, DEFAULT_JUDGE
from taldau.measure.togyz.alphazero import AlphaZeroSpec
from taldau.measure.togyz.match import EngineSpec, openings, run_match, run_players

MATCH_NODES = 5_000  # a Togyz match's search limit unless one is given
SETTINGS_NAMES = "default, plain, full, lmr, lmrN, lmrN-M, each but plain with +nullR, +staticM, +futilityM"


def _engine_settings(spec: str) -> EngineSettings:
    """Named search settings (``engine.named_settings``: default, plain, full, lmr, lmrN, lmrN-M, each but
    plain with +nullR, +staticM, +futilityM), or a weights JSON file for the default search."""
    try:
        return named_settings(spec)
    except ValueError:
        pass
    try:
        return EngineSettings(weights=tuple(load_weights(spec)))
    except (OSError, ValueError, KeyError) as error:
        raise click.BadParameter(f"{spec}: {error}") from None


@click.command()
@game_option("The game played.")
@click.option(
    "--a",
    "first",
    help=f"Togyz: search settings ({SETTINGS_NAMES}) or a weights file [default: default]. "
    "Backgammon: ENGINE:PLIES such as own:2, sage:2 (bgsage; own stands in where it cannot run), gnubg:0 "
    "(with gnubg-nn installed) or nets.npz:0 (our nets from "
    f"a weights file) [default: {DEFAULT_A}].",
)
@click.option(
    "--b",
    "second",
    help=f"Togyz: search settings ({SETTINGS_NAMES}) or a weights file [default: plain]. "
    f"Backgammon: ENGINE:PLIES as for --a [default: {DEFAULT_B}: the same nets without lookahead].",
)
@BOTH_GAMES_LIMIT.showing(nodes=f"Togyz {MATCH_NODES:,}")
@whole_option(
    "--openings",
    "count",
    most=613,
    default=100,
    help="Togyz: openings (three-ply lines); each is played with both colours.",
)
@whole_option(
    "--games", least=2, default=100, help="Backgammon: games, an even number (pairs of duplicate games)."
)
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Backgammon: seed of the dice; of the book's choices.",
)
@processes_option("--jobs", "Processes playing games side by side (fewer when memory is short).")
@click.option(
    "--book",
    "book_path",
    type=click.Path(exists=True, file_okay=False),
    help="A's opening book (backgammon: its opening rolls).",
)
@click.option(
    "--judge",
    default=DEFAULT_JUDGE,
    show_default=True,
    help="Backgammon: the evaluator (own, sage, gnubg with gnubg-nn installed, FILE.npz) that measures each "
    "roll's luck at 0-ply for the luck-adjusted result, or none.",
)
@click.option(
    "--opponent",
    type=click.Choice(("engine", "alphazero")),
    default="engine",
    show_default=True,
    help="Togyz: B is our engine (settings --b), or the AlphaZero net of nitromir/togyzkumalak-engine with "
    "its MCTS (an independent program, on NumPy); the report then adds each side's time a move and how "
    "each of A's losses ended.",
)
@whole_option(
    "--simulations",
    least=2,
    default=400,
    help="Togyz, with --opponent alphazero: the net's MCTS simulations a move.",
)
@JSON
def match(
    game: str,
    first: str | None,
    second: str | None,
    depth: int | None,
    nodes: int | None,
    movetime: float | None,
    count: int,
    games: int,
    seed: int,
    jobs: int,
    book_path: str | None,
    judge: str,
    opponent: str,
    simulations: int,
    as_json: bool,
) -> None:
    """Play A against B and report A's score. Togyz: engine settings over a set of openings, both colours.
    Backgammon: cubeless money games to the end, each dice sequence played twice with colours swapped
    (duplicate dice); A's points per game with a 95% margin, plain and luck-adjusted."""
    jobs = within_ceiling(jobs, "--jobs", game)
    if game == "backgammon":
        backgammon_match(
            first or DEFAULT_A, second or DEFAULT_B, games, seed, as_json, book_path, judge, jobs
        )
        return
    if opponent == "alphazero" and second is not None:
        raise click.UsageError("--b is our engine's settings; with --opponent alphazero, B is the net")
    first, second = first or "default", second or "plain"
    limit = BOTH_GAMES_LIMIT.limit(depth, nodes, movetime, Limit(nodes=MATCH_NODES))
    player = None if book_path is None else book_player(book_path, seed)
    if opponent == "alphazero":
        net = AlphaZeroSpec(simulations=simulations)
        with progress_line("playing", "game") as shown:
            a = EngineSpec(_engine_settings(first), limit, player)
            report = run_players(a, net, openings(count), jobs, shown.update)
        if as_json:
            click.echo(json.dumps({"a": first, "b": str(net), "limit": str(limit)} | report.to_json()))
            return
        click.echo(f"{first} at {limit} vs {net}:")
        for line in report.lines():
            click.echo(line)
        return
    with progress_line("playing", "game") as shown:
        a, b = _engine_settings(first), _engine_settings(second)
        result, _ = run_match(a, b, limit, openings(count), jobs, player, shown.update)
    if not as_json:
        click.echo(f"{first} vs {second} at {limit}: {result}")
        return
    click.echo(json.dumps({"a": first, "b": second, "limit": str(limit)} | result.to_json()))


def backgammon_match(
    first: str,
    second: str,
    games: int,
    seed: int,
    as_json: bool,
    book_path: str | None,
    judge: str,
    jobs: int,
) -> None:
    """``taldau match --game backgammon``: duplicate-dice cubeless games of two ENGINE:PLIES players, the
    luck of every roll measured by ``judge`` (an engine name, or none)."""
    from taldau.measure.backgammon.match import parse_player
    from taldau.measure.backgammon.match import run_match as run_backgammon_match

    if games % 2:
        raise click.BadParameter("give an even number (pairs of duplicate games)", param_hint="--games")
    evaluators: dict[str, Evaluator] = {}
    try:
        for spec in (first, second, judge):  # each engine loaded once; a stand-in said so
            name = spec.rpartition(":")[0] if ":" in spec else spec
            if name != "none" and name not in evaluators:
                evaluators[name] = evaluator(name)
        a, b = parse_player(first, evaluators), parse_player(second, evaluators)
        luck_judge = None if judge == "none" else evaluators.get(judge) or load_evaluator(judge)
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    if book_path is not None:
        a = replace(a, book=book_player(book_path, seed, "backgammon"))
    with progress_line("playing", "game", games) as shown:

        def played(game: Any) -> None:  # the games come in order: a pair's two seats, pair after pair
            shown.update(2 * game.pair + game.a_seat + 1)

        result = run_backgammon_match(a, b, games, seed, played, luck_judge, jobs)
    click.echo(json.dumps(result.to_json() | {"seed": seed}) if as_json else str(result))
