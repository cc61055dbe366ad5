"""What several commands share: the search limit's options and their check, the backgammon ``--engine``
option, process counts within what the machine takes, the broker URL and the service's settings, and the
exit codes."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

import click
from taldau.base.kind import STORED, Limit
from taldau.games.backgammon.engine.analyse import DEFAULT_ENGINE, ENGINES
from taldau.games.backgammon.engine.plies import MAX_PLIES
from taldau.games.backgammon.kind import DEFAULT_PLIES
from taldau.games.backgammon.review.levels import LEVELS
from taldau.games.registry import NAMES
from taldau.games.togyz.review import REVIEW_DEPTH

BOTH_GAMES = NAMES  # the --game of the commands of either game: the registry's names
EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "backgammon"  # the bundled matches
JSON = click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
EX_USAGE = 2  # click's own exit code for a usage error
EX_UNAVAILABLE = 69  # Celery's own exit code for an unreachable broker or no workers
EX_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command stopped by Ctrl-C

Command = TypeVar("Command", bound=Callable[..., Any])


def game_option(help: str, default: str = "togyz", auto: bool = False, only: str | None = None) -> Any:
    """--game, the one option of every command that names its game: ``default`` (``auto`` adds the choice
    ``auto``: the game the records hold), or ``only`` that game for a command of one game."""
    choices = [only] if only is not None else [*(["auto"] if auto else []), *BOTH_GAMES]
    return click.option("--game", type=click.Choice(choices), default=default, show_default=True, help=help)


def say(line: str) -> None:
    """Print one line for the user on stderr."""
    click.echo(line, err=True)


@dataclass(frozen=True)
class LimitOptions:
    """--depth, --nodes and --movetime as one command's help says them: what each means there (no
    ``movetime``: the command has no --movetime) and the least depth it takes. Used as a decorator, it adds
    the options; ``given`` and ``limit`` read them back. ``depth_default`` and ``nodes_default`` say the
    limit the command takes when none is given, as its help shows it (``showing`` sets them per command)."""

    depth: str
    nodes: str
    movetime: str | None = None
    least_depth: int = 0
    depth_default: str | None = None
    nodes_default: str | None = None

    def showing(self, depth: str | None = None, nodes: str | None = None) -> LimitOptions:
        """These options, their help showing ``depth`` (or ``nodes``) as the command's default limit."""
        return replace(self, depth_default=depth, nodes_default=nodes)

    @property
    def stops(self) -> str:
        """The options that stop a search in this command, as its help names them."""
        return "--depth, --nodes or --movetime" if self.movetime is not None else "--depth or --nodes"

    def __call__(self, function: Command) -> Command:
        if self.movetime is not None:
            function = click.option(
                "--movetime", type=click.FloatRange(min=0, min_open=True), help=self.movetime
            )(function)
        function = click.option(
            "--nodes", type=click.IntRange(min=1), show_default=self.nodes_default, help=self.nodes
        )(function)
        return click.option(
            "--depth",
            type=click.IntRange(self.least_depth, 100),
            show_default=self.depth_default,
            help=self.depth,
        )(function)

    def given(
        self, depth: int | None, nodes: int | None, movetime: float | None = None, level: str | None = None
    ) -> Limit:
        """The limit given on the command line (nothing given: all None), with the review's ``level``; a
        usage error when more than one of depth, nodes and movetime is (the options' ranges keep each in
        range)."""
        stops = {"--depth": depth, "--nodes": nodes, "--movetime": movetime}
        if sum(value is not None for value in stops.values()) > 1:
            raise click.UsageError(
                "give one of --depth, --nodes or --movetime"
                if self.movetime is not None
                else "give at most one of --depth and --nodes"
            )
        return Limit(depth, nodes, movetime, level)

    def limit(self, depth: int | None, nodes: int | None, movetime: float | None, default: Limit) -> Limit:
        """The Togyz search limit given on the command line, or ``default`` when none is."""
        given = self.given(depth, nodes, movetime)
        return given if given.stops else default


BACKGAMMON_PLIES = MAX_PLIES  # the most of gnubg's plies that every backgammon engine searches
BOTH_GAMES_LIMIT = LimitOptions(
    depth=f"Plies to search (Togyz at least 1; backgammon 0 to {MAX_PLIES}).",
    nodes="Nodes to search.",
    movetime="Seconds.",
)
TOGYZ_LIMIT = LimitOptions(
    depth="Moves ahead to search (plies: one side's moves, 1 to 100).",
    nodes="Positions to search.",
    movetime="Seconds to search (the result then depends on the machine's speed).",
    least_depth=1,
)
ANALYSIS_LIMIT = LimitOptions(
    depth=f"Plies to search per position (Togyz at least 1; backgammon 0 to {MAX_PLIES}, gnubg's plies for "
    "every engine: sage's own 3ply is --depth 2).",
    nodes="Nodes to search per position.",
)
REVIEW_DEFAULT = f"Togyz {REVIEW_DEPTH}, backgammon {DEFAULT_PLIES}"  # a review's depth unless given
TOGYZ_DEFAULT = f"{REVIEW_DEPTH}"  # every Togyz search's depth unless given (``review.review_limit``)

BACKGAMMON_ENGINE = DEFAULT_ENGINE  # the backgammon engine when --engine is not given, in every command
ENGINE_NAMES = (
    "own (taldau's nets), gnubg (with gnubg-nn installed) or sage (bgsage's nets; own stands in, with one "
    "line saying so, where bgsage cannot run)"
)


LEVEL_HELP = (
    "Backgammon: the level of review. quick: 0-ply; standard: gnubg's 2 plies, cube decisions by the cubeful "
    "look-ahead; deep: standard, with the checker plays in doubt and the cube decisions within 0.16 of the "
    "doubling or take point judged again at 3 plies; world: standard, "
    "with the checker plays and cube decisions in doubt settled by rollouts (648 trials each, minutes a "
    "decision). In doubt: a loss within 0.015 of a mark's threshold, the best plays within 0.01 of each "
    "other, a cube decision within 0.05 of the doubling or take point. --depth sets the level's plies. "
    "stored: the judgements the match files hold (XG's in a .xg, gnubg's in an analysed SGF) taken as the "
    "analysis, nothing searched; a decision the file did not judge is not counted."
)


def level_option(function: Command) -> Command:
    """--level, the named level of a backgammon review (``review.LEVELS``, or ``stored``: the files' own
    judgements, ``base.kind.STORED``); None unless given."""
    choices = click.Choice([*LEVELS, STORED])
    return click.option("--level", type=choices, show_default="standard", help=LEVEL_HELP)(function)


def engine_option(
    note: str = "", both_games: bool = False, default: str = BACKGAMMON_ENGINE
) -> Callable[[Command], Command]:
    """--engine, the backgammon engine, with ``note`` at the end of its help. In a command of both games
    (``both_games``) it is None unless given, Togyz having one engine (``chosen_engine`` reads it), and its
    help shows ``default`` as the engine then taken (a command whose modes differ says each)."""
    if both_games:
        return click.option(
            "--engine",
            type=click.Choice(ENGINES),
            show_default=f"backgammon: {default}",
            help=f"Backgammon: {ENGINE_NAMES}. Togyz has one engine. {note}".strip(),
        )
    return click.option(
        "--engine",
        type=click.Choice(ENGINES),
        default=BACKGAMMON_ENGINE,
        help=f"{ENGINE_NAMES}. {note}".strip(),
    )


def chosen_engine(engine: str | None, game: str) -> str | None:
    """The engine of ``game`` that --engine names: as given; when not given, None for Togyz and for the
    default of the engines themselves (``engine.DEFAULT_ENGINE``: outputs then name no engine), else
    ``BACKGAMMON_ENGINE``."""
    if engine is not None or game != "backgammon" or BACKGAMMON_ENGINE == DEFAULT_ENGINE:
        return engine
    return BACKGAMMON_ENGINE


def whole_option(
    *names: str, default: int, help: str, least: int = 1, most: int | None = None
) -> Callable[[Command], Command]:
    """A whole number option (``names``: its flags and parameter name) from ``least`` to ``most`` (None: no
    bound), ``default`` unless given, its help showing that default."""
    return click.option(
        *names, type=click.IntRange(least, most), default=default, show_default=True, help=help
    )


def processes_option(name: str, help: str) -> Callable[[Command], Command]:
    """A process count option (``--jobs``, ``--concurrency``): 1 or more, by default the machine's cores
    (shown as such), which ``within_ceiling`` then holds to what memory allows."""
    return click.option(
        name, type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default="cores", help=help
    )


def within_ceiling(count: int, option: str, game: str | None = None, what: str = "processes") -> int:
    """``count`` worker processes of ``game`` (None: every engine loaded), or threads when ``what`` says
    so, once within what this machine takes now (``base.processes.ceiling``): a count given above it is a
    usage error naming ``option`` (exit 2, before anything starts); the option's default is lowered to it."""
    from taldau.base.processes import ceiling, worker_size

    limit = ceiling(None if what == "threads" else worker_size(game))
    refusal = limit.refusal(count, what)
    if refusal is None:
        return count
    context = click.get_current_context()
    name = option.lstrip("-").replace("-", "_")
    if context.get_parameter_source(name) is click.core.ParameterSource.DEFAULT:
        return limit.count
    raise click.BadParameter(refusal, param_hint=option)


def broker_url(url: str) -> str:
    """``url`` once it is a broker URL that taldau reads, else exit 2 with one line saying why (before
    anything is read or made)."""
    from taldau.workers.broker import parse_broker

    try:
        return parse_broker(url).url
    except ValueError as error:
        say(f"error: {error}")
        sys.exit(EX_USAGE)


def service_settings(wait_for_workers: float | None = None) -> Any:
    """The service's settings from the environment (``ServiceSettings.from_env``), waiting for workers
    ``wait_for_workers`` seconds (None: as long as it takes), or a usage error."""
    from dataclasses import replace

    from taldau.workers.celery_app import ServiceSettings

    try:
        return replace(ServiceSettings.from_env(), wait_for_workers=wait_for_workers)
    except ValueError as error:
        raise click.UsageError(str(error)) from None
