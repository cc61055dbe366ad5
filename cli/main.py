"""The ``taldau`` command: parses arguments, calls the library, prints. Results on stdout, the rest on stderr.

Exit codes: 0 success, 1 some games invalid, 2 usage error (click's own).
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
from taldau.analysis.accounting import Inputs, count
from taldau.analysis.validation import (
    Summary,
    auto_game,
    check_paths,
    describe,
    describe_warnings,
    valid_games,
)
from taldau.analysis.winchance import fit_win_curve
from taldau.cli.book import book, book_option, book_player
from taldau.cli.marks import marks_bench, marks_options
from taldau.cli.progress import progress_line
from taldau.cli.report import report, write_svg
from taldau.games.backgammon import parse_dice
from taldau.games.backgammon.bench import run_bench as run_backgammon_bench
from taldau.games.backgammon.diagram import render as render_backgammon
from taldau.games.backgammon.engine import (
    DEFAULT_ENGINE,
    ENGINES,
    analyse,
    choose_evaluator,
    engine_limit,
    evaluate_position,
    load_evaluator,
    rollout_plays,
)
from taldau.games.backgammon.eval import PROBABILITIES, Evaluator
from taldau.games.backgammon.eval.pruning import PruningSettings
from taldau.games.backgammon.eval.supervised import SupervisedSettings
from taldau.games.backgammon.match import DEFAULT_A, DEFAULT_B, DEFAULT_JUDGE
from taldau.games.backgammon.position_text import PositionSetup, read_position
from taldau.games.backgammon.strength import DEFAULT_LEVELS, DEFAULT_REFERENCE
from taldau.games.kind import AnalysisOptions
from taldau.games.records import ReadLimits
from taldau.games.togyz import START_FEN, FenError, Position, perft
from taldau.games.togyz.bench import run_bench
from taldau.games.togyz.diagram import render
from taldau.games.togyz.engine import Engine, EngineSettings, Limit, default_limit, named_settings
from taldau.games.togyz.evaluate import load_weights
from taldau.games.togyz.match import openings, run_match
from taldau.games.togyz.review import book_move, judge_move, review_limit
from taldau.games.togyz.tuning import curve_samples, dumps, samples, tune_weights

GAMES = ("togyz",)
BENCH_GAMES = ("togyz", "backgammon")
MATCH_GAMES = ("togyz", "backgammon")
PROBABILITY_LABELS = ("W", "WG", "WBG", "LG", "LBG")  # gnubg's short names of the five probabilities
PRUNE_POSITIONS = PruningSettings().positions  # the pruning stage's own positions and fit


def _say(line: str) -> None:
    """Print one line for the user on stderr."""
    click.echo(line, err=True)


def _limit(
    depth: int | None, nodes: int | None, movetime: float | None, default: Limit | None = None
) -> Limit:
    """The one search limit given on the command line, or ``default``."""
    given = [value for value in (depth, nodes, movetime) if value is not None]
    if len(given) > 1:
        raise click.UsageError("give one of --depth, --nodes or --movetime")
    if not given:
        if default is None:
            raise click.UsageError("give --depth, --nodes or --movetime")
        return default
    return Limit(depth=depth, nodes=nodes, time=movetime)


def _limit_options(function):
    """--depth / --nodes / --movetime, for commands of both games."""
    function = click.option("--movetime", type=click.FloatRange(min=0, min_open=True), help="Seconds.")(
        function
    )
    function = click.option("--nodes", type=click.IntRange(min=1), help="Nodes to search.")(function)
    return click.option(
        "--depth", type=click.IntRange(0, 100), help="Plies to search (Togyz at least 1; backgammon 0 to 3)."
    )(function)


_ENGINE_HELP = (
    "Backgammon: own (taldau's nets), gnubg (with gnubg-nn installed) or sage (bgsage's nets; own stands in, "
    f"with one line saying so, where bgsage cannot run) [default: {DEFAULT_ENGINE}]. Togyz has one engine."
)

_backgammon_engine_option = click.option(
    "--engine",
    type=click.Choice(ENGINES),
    default=DEFAULT_ENGINE,
    show_default=True,
    help="own (taldau's nets), gnubg (with gnubg-nn installed) or sage (bgsage's nets; own stands in, "
    "with one line saying so, where it cannot run). Plies are gnubg's for every engine.",
)


def _togyz_limit_options(function):
    """--depth / --nodes / --movetime, for the commands of Togyz alone."""
    function = click.option(
        "--movetime",
        type=click.FloatRange(min=0, min_open=True),
        help="Seconds to search (the result then depends on the machine's speed).",
    )(function)
    function = click.option("--nodes", type=click.IntRange(min=1), help="Positions to search.")(function)
    return click.option(
        "--depth",
        type=click.IntRange(1, 100),
        help="Moves ahead to search (plies: one side's moves, 1 to 100).",
    )(function)


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


def _games(paths: tuple[str, ...]):
    """The valid games under ``paths``; the others are reported on stderr."""
    return valid_games(paths, lambda message: click.echo(message, err=True), limits=ReadLimits())


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
        click.echo(f"error: no game found under {' '.join(paths)}", err=True)
    sys.exit(0 if summary.inputs.problems == 0 and summary.games > 0 else 1)


def _backgammon_position(text: str) -> PositionSetup:
    """A backgammon position from a gnubg Position ID, GNUbgID or XGID."""
    try:
        return read_position(text)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="POSITION") from None


def _is_backgammon(text: str) -> bool:
    """Whether a position argument is backgammon's (a gnubg Position ID, GNUbgID or XGID) rather than a
    Togyz FEN, which always has commas and spaces."""
    return "," not in text and " " not in text.strip()


@main.command()
@click.argument("position")
@click.option("--svg", "svg", type=click.Path(dir_okay=False), help="Write the board as an SVG picture here.")
def show(position: str, svg: str | None) -> None:
    """Draw a position: a Togyz FEN (pits, kazans, tuzdyks, side to move) or a backgammon gnubg Position ID,
    GNUbgID (PositionID:MatchID) or XGID (points, bar, borne off, pips, cube and score)."""
    if svg:
        write_svg(position, svg, _is_backgammon(position))
    elif _is_backgammon(position):
        setup = _backgammon_position(position)
        click.echo(render_backgammon(setup.position, setup.state, setup.dice))
    else:
        click.echo(render(_position(position)))


def _plays_payload(position: str, dice: str) -> dict[str, Any]:
    """The legal plays of ``dice`` in ``position`` as the JSON object of ``taldau plays``; raises
    ValueError for a bad position or dice."""
    setup = read_position(position)
    plays = setup.position.plays(parse_dice(dice))
    return {
        "position": position,
        "dice": dice,
        "plays": [{"move": play.text, "result": play.result.position_id()} for play in plays],
    }


def _ranked_payload(evaluator: Evaluator, position: str, dice: str, plies: int) -> dict[str, Any]:
    """The plays of ``dice`` in ``position`` ranked by ``evaluator`` at ``plies``, as the JSON object of
    ``taldau plays --plies``; raises ValueError for a bad position or dice."""
    setup = read_position(position)
    analysis = analyse(evaluator, setup.position, parse_dice(dice), engine_limit(evaluator.name, plies))
    return {"position": position, "dice": dice} | {
        key: value for key, value in analysis.to_json().items() if key not in ("position", "dice")
    }


def _evaluator(engine: str) -> Evaluator:
    """The evaluator named on the command line, or the one that stands in for it (``own`` for a ``sage``
    that cannot run here: one line on stderr says so); exit 1 with the reason when it cannot be loaded."""
    try:
        choice = choose_evaluator(engine)
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    if choice.fallback is not None:
        click.echo(choice.fallback, err=True)
    return choice.evaluator


def _rollout(engine: str, trials: int, seed: int, threads: int):
    """bgsage's rollouts (``eval.sage.SageRollout``) of ``trials`` trials from ``seed``: exit 2 when the
    engine chosen is not ``sage`` (own and gnubg have no rollouts for users), 1 when bgsage cannot run."""
    if engine != "sage":
        click.echo(
            f"error: the engine {engine} has no rollouts: rollouts are bgsage's, give --engine sage", err=True
        )
        sys.exit(EX_USAGE)
    from taldau.games.backgammon.eval.sage import RolloutSettings, SageRollout, SageUnavailable

    try:
        return SageRollout(RolloutSettings(trials=trials, seed=seed, threads=threads))
    except SageUnavailable as error:
        raise click.ClickException(f"{error}: no rollout") from None


def _rollout_options(function):
    """--rollout, --trials, --seed, --threads: for plays and eval."""
    function = click.option(
        "--threads",
        type=click.IntRange(min=1),
        default=1,
        show_default=True,
        help="With --rollout: C++ threads of the rollout (the numbers do not depend on them).",
    )(function)
    function = click.option(
        "--seed", type=int, default=42, show_default=True, help="With --rollout: the seed of the dice."
    )(function)
    function = click.option(
        "--trials",
        type=click.IntRange(min=1),
        default=1296,
        show_default=True,
        help="With --rollout: games played out per position.",
    )(function)
    return click.option(
        "--rollout",
        is_flag=True,
        help="Roll out (with --engine sage: bgsage's rollouts, games played to the end with variance "
        "reduction), with the standard error of every number.",
    )(function)


def _errors_text(errors: dict[str, float]) -> str:
    """``SE W 0.004 WG 0.003 ...``: the standard errors of the five probabilities."""
    return "SE " + " ".join(
        f"{label} {errors[name]:.4f}" for label, name in zip(PROBABILITY_LABELS, PROBABILITIES, strict=True)
    )


def _probability_text(probabilities: dict[str, float]) -> str:
    """``W 0.551 WG 0.124 WBG 0.005 LG 0.174 LBG 0.013``: gnubg's short names."""
    return " ".join(
        f"{label} {probabilities[name]:.3f}"
        for label, name in zip(PROBABILITY_LABELS, PROBABILITIES, strict=True)
    )


@main.command()
@click.argument("position", required=False)
@click.argument("dice", required=False)
@click.option("--batch", "batch_file", type=click.File("r"), help="Lines 'POSITION_ID DICE'; '-' for stdin.")
@click.option("--plies", type=click.IntRange(0, 4), help="Rank the plays by the engine at this many plies.")
@_backgammon_engine_option
@_rollout_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def plays(
    position: str | None,
    dice: str | None,
    batch_file: Any,
    plies: int | None,
    engine: str,
    rollout: bool,
    trials: int,
    seed: int,
    threads: int,
    as_json: bool,
) -> None:
    """List the legal backgammon plays of DICE (like 31) in POSITION (a gnubg Position ID, GNUbgID or
    XGID), each with the resulting position's Position ID from the next player's side. With --plies N,
    ranked best first by the engine at N plies (gnubg's: 0 the raw evaluation, 2 its default analysis),
    each with its cubeless equity, the difference to the best and the five probabilities (win, win gammon,
    win backgammon, lose gammon, lose backgammon). With --batch, one JSON line per input line, the engine
    loaded once; a bad line gets a JSON line with its error and the rest go on. With --rollout (--engine
    sage), the best plays of the ranking at --plies (0 by default: up to 5 within 0.08) are rolled out and
    ranked by the rollout, each with its standard errors; exit 2 with an engine that has no rollouts."""
    if rollout:
        if batch_file is not None or position is None or dice is None:
            raise click.UsageError("--rollout takes POSITION and DICE, not --batch")
        _plays_rollout(position, dice, plies or 0, _rollout(engine, trials, seed, threads), as_json)
        return
    evaluator = None if plies is None else _evaluator(engine)

    def payload_of(position: str, dice: str) -> dict[str, Any]:
        if evaluator is None or plies is None:
            return _plays_payload(position, dice)
        return _ranked_payload(evaluator, position, dice, plies)

    if batch_file is not None:
        if position is not None:
            raise click.UsageError("give either POSITION DICE or --batch FILE")
        failed = False
        for number, line in enumerate(batch_file, start=1):
            if not line.strip():
                continue
            fields = line.split()
            try:
                if len(fields) != 2:
                    raise ValueError("expected 'POSITION_ID DICE'")
                payload = payload_of(fields[0], fields[1])
            except ValueError as error:
                failed = True
                payload = {"line": number, "input": line.strip(), "error": str(error)}
            click.echo(json.dumps(payload))
        sys.exit(1 if failed else 0)
    if position is None or dice is None:
        raise click.UsageError("give POSITION and DICE, or --batch FILE")
    try:
        payload = payload_of(position, dice)
    except ValueError as error:
        raise click.BadParameter(str(error)) from None
    if as_json:
        click.echo(json.dumps(payload))
        return
    if plies is None:
        for play in payload["plays"]:
            click.echo(f"{play['move'] or '(no move)':<28} {play['result']}")
        return
    for rank, play in enumerate(payload["plays"], start=1):
        click.echo(
            f"{rank:>3}. {play['move'] or '(no move)':<24} {play['equity']:+.4f} {play['difference']:+.4f} "
            f"{play['plies']}-ply  {_probability_text(play['probabilities'])}"
        )


def _plays_rollout(position: str, dice: str, plies: int, rollout: Any, as_json: bool) -> None:
    """``plays --rollout``: the best plays at ``plies`` rolled out, with their standard errors."""
    try:
        setup = read_position(position)
        evaluator = _ranking_evaluator()
        analysis = analyse(evaluator, setup.position, parse_dice(dice), engine_limit(evaluator.name, plies))
    except ValueError as error:
        raise click.BadParameter(str(error)) from None
    rolled = rollout_plays(rollout, analysis)
    if as_json:
        payload = {
            "position": position,
            "dice": dice,
            "engine": rollout.name,
            "plies": plies,
            "rollout": rollout.settings.to_json(),
            "plays": [play.to_json() for play in rolled],
        }
        click.echo(json.dumps(payload))
        return
    click.echo(f"{rollout.name} {rollout.settings}, variance reduction; the best of {plies}-ply")
    for play in rolled:
        result = play.result.to_json()
        click.echo(
            f"{play.rank + 1:>3}. {play.play.text or '(no move)':<24} {result['equity']:+.4f} "
            f"±{result['equity_se']:.4f} {play.difference:+.4f}  {_probability_text(result['probabilities'])}"
        )
        click.echo(f"{'':<29}{_errors_text(result['standard_errors'])}")


def _ranking_evaluator() -> Evaluator:
    """bgsage's evaluator, which ranks the plays before a rollout."""
    from taldau.games.backgammon.eval.sage import SageEvaluator

    return SageEvaluator()


@main.command("eval")
@click.argument("position")
@click.option("--plies", type=click.IntRange(0, 4), default=0, show_default=True, help="Plies to look ahead.")
@_backgammon_engine_option
@_rollout_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def eval_command(
    position: str, plies: int, engine: str, rollout: bool, trials: int, seed: int, threads: int, as_json: bool
) -> None:
    """Evaluate a backgammon POSITION (a gnubg Position ID, GNUbgID or XGID) before the roll, from the side
    on roll: the five cubeless probabilities (win, win gammon, win backgammon, lose gammon, lose
    backgammon; gammons count backgammons too) and the cubeless equity, at --plies; with --rollout
    (--engine sage) by a rollout, each number with its standard error (exit 2 with another engine)."""
    setup = _backgammon_position(position)
    if rollout:
        roller = _rollout(engine, trials, seed, threads)
        rolled = roller.before_roll(setup.position.board)
        if as_json:
            payload = {"position": position, "engine": roller.name, "rollout": roller.settings.to_json()}
            click.echo(json.dumps(payload | rolled.to_json()))
            return
        exact = ", exact: the game is over" if rolled.exact else ", variance reduction"
        click.echo(f"{roller.name} {roller.settings}{exact}")
        click.echo(f"equity {rolled.equity:+.4f} ±{rolled.equity_error:.4f} (one standard error)")
        click.echo(_probability_text(rolled.to_json()["probabilities"]))
        click.echo(_errors_text(rolled.to_json()["standard_errors"]))
        return
    evaluator = _evaluator(engine)
    result = evaluate_position(evaluator, setup.position, plies)
    if as_json:
        click.echo(json.dumps({"position": position, "engine": evaluator.name} | result.to_json()))
        return
    payload = result.to_json()
    exact = ", exact: the game is over" if result.exact else ""
    click.echo(f"{evaluator.name} {plies}-ply{exact}")
    click.echo(f"equity {result.equity:+.4f}")
    click.echo(_probability_text(payload["probabilities"]))


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
            f"depth {depth}: {count(result.nodes, 'node')} in {result.seconds:.3f} s, "
            f"{result.nps:,.0f} nodes/s"
        )


@main.command()
@click.argument("fen")
@_togyz_limit_options
@click.option("--multipv", type=click.IntRange(1, 9), default=1, show_default=True, help="Lines to show.")
@click.option(
    "--played",
    type=click.IntRange(1, 9),
    help="Judge the move from this pit (1 to 9) against the best, as a review does: its score, the kumalak "
    "it loses, the winning chances it gives away and its mark.",
)
@book_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
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
    refute when the book has one."""
    position = _position(fen)
    if position.is_game_over():
        raise click.BadParameter("the game is over in this position", param_hint="FEN")
    if played is not None:
        if book_path is not None or multipv > 1:
            raise click.UsageError("--played judges one move: it does not go with --book or --multipv")
        _judge(position, played, _limit(depth, nodes, movetime, default_limit()), as_json)
        return
    if book_path is not None:
        pit = book_move(
            book_player(book_path, seed), position, Engine(), _limit(depth, nodes, movetime, default_limit())
        )
        if pit is not None:
            click.echo(
                json.dumps({"best": position.san(pit), "book": True})
                if as_json
                else f"book move {position.san(pit)}"
            )
            return
    info = Engine().analyse(position, _limit(depth, nodes, movetime, default_limit()), multipv=multipv)
    lines: list[dict[str, Any]] = [
        {
            "move": position.san(line.move),
            "score": float(line.score),
            "score_text": str(line.score),
            "pv": position.variation_san(line.pv).split(),
        }
        for line in info.lines
    ]
    if as_json:
        payload = {
            "best": lines[0]["move"],
            "score": lines[0]["score"],
            "score_text": lines[0]["score_text"],
            "pv": lines[0]["pv"],
            "depth": info.depth,
            "seldepth": info.seldepth,
            "nodes": info.nodes,
            "nps": round(info.nps),
            "seconds": round(info.seconds, 4),
            "solved": info.solved,
        }
        if multipv > 1:
            payload["lines"] = lines
        click.echo(json.dumps(payload))
        return
    for rank, line in enumerate(lines, 1):
        click.echo(f"{rank}. {line['move']:<8} {line['score_text']:>10}  {' '.join(line['pv'])}")
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
        payload = {
            "best": position.san(judged.best.best),
            "played": position.san(pit),
            "score_best": float(judged.best.score),
            "score_played": float(judged.played.score),
            "loss": round(judged.loss, 4),
            "drop": round(judged.drop, 4),
            "mark": mark,
            "depth": judged.best.depth,
            "nodes": judged.nodes,
        }
        click.echo(json.dumps(payload))
        return
    click.echo(
        f"played {position.san(pit)} {judged.played.score}, best {position.san(judged.best.best)} "
        f"{judged.best.score}: loses {judged.loss:.2f} kumalak, {judged.drop:.3f} winning chances"
        f"{f' ({mark})' if mark else ''}; depth {judged.best.depth}"
    )


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option(
    "--game",
    type=click.Choice(["auto", *BENCH_GAMES]),
    default="auto",
    show_default=True,
    help="The game to annotate (auto: the only game of the archive; Togyz Kumalak when it holds both); "
    "records of the other game are listed as skipped.",
)
@_limit_options
@click.option("--engine", type=click.Choice(ENGINES), help=_ENGINE_HELP)
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
    engine: str | None,
    form: str,
) -> None:
    """Analyse every decision of the games in PATHS and print them with marks and statistics: Togyz games
    as scoresheets, backgammon matches as an analysis text in the manner of gnubg's export. PATHS may
    instead be one `taldau analyze` output folder: its stored judgements are printed, nothing is searched
    again (its records are read again from where analyze read them, for their text)."""
    from taldau.analysis import annotate as annotating

    if sum(value is not None for value in (depth, nodes, movetime)) > 1:
        raise click.UsageError("give one of --depth, --nodes or --movetime")
    try:
        if any(annotating.is_analysis_folder(path) for path in paths):
            if len(paths) > 1 or game != "auto" or (depth, nodes, movetime, engine) != (None,) * 4:
                raise click.UsageError(
                    "an analysis folder is annotated alone, at its own settings (no other path, --game, "
                    "--depth, --nodes, --movetime or --engine)"
                )
            items = annotating.annotate_stored(annotating.StoredAnalysis.open(paths[0]), form, ReadLimits())
        else:
            chosen = auto_game(paths, ReadLimits()) if game == "auto" else game
            options = AnalysisOptions(depth, nodes, movetime)
            try:
                items = annotating.annotate(paths, chosen, options, form, ReadLimits(), engine, _say)
            except ValueError as error:
                raise click.UsageError(str(error)) from None
        for item in items:
            click.echo(str(item), err=isinstance(item, annotating.NotAnnotated))
    except annotating.AnalysisFolderError as error:
        raise click.ClickException(str(error)) from None


@main.command()
@click.option("--game", type=click.Choice(BENCH_GAMES), default="togyz", show_default=True)
@_limit_options
@click.option("--service", is_flag=True, help="Time the batch analysis: local pools and Celery.")
@click.option(
    "--broker", envvar="TALDAU_BROKER", help="With --service: a Redis URL (default: a private one)."
)
@click.option(
    "--archive",
    type=click.Path(exists=True, path_type=Path),
    help="With --service: the records to analyse (default: 40 bundled Togyz games at depth 8); with --marks: "
    "the real games to sample (default: ../shared/data/togyz/playok-2024-2025.pgn).",
)
@click.option(
    "--runs",
    default="local_1,local_2,celery_2",
    show_default=True,
    help="With --service: the executors to time, local_N or celery_N (N processes), comma-separated.",
)
@click.option("--soak", is_flag=True, help="Push random games through Celery under chaos; check the Parquet.")
@click.option(
    "--games",
    "soak_games",
    type=click.IntRange(min=1),
    help="With --soak: games in the synthetic archive [10,000]; with --marks: games of the sample [30].",
)
@click.option("--keep", type=click.Path(file_okay=False), help="With --soak: work (and keep all) here.")
@click.option(
    "--engine",
    type=click.Choice(ENGINES),
    help="With --game backgammon: the evaluator to time on real decisions [default: own]; with --marks or "
    f"--against-gnubg, the engine whose review is judged [default: {DEFAULT_ENGINE}].",
)
@click.option(
    "--decisions",
    type=click.IntRange(min=1),
    help="With --game backgammon: decisions of the real matches in ../shared/data/backgammon/bglab "
    "(the bundled examples when absent) [200; with --engines 500].",
)
@click.option(
    "--engines",
    "strength",
    is_flag=True,
    help="With --game backgammon: each engine and level (own, sage 0-2 plies; gnubg's when installed) picks "
    "its play on --decisions real decisions of --archive (default: bglab) drawn with --seed, judged by "
    "--reference: mean loss, agreement, CPU per decision (the reference cached in ~/.cache/taldau/strength).",
)
@click.option(
    "--seed", type=int, default=2026, show_default=True, help="With --engines: the draw of decisions."
)
@click.option(
    "--reference",
    default=DEFAULT_REFERENCE,
    show_default=True,
    help="With --engines: the judge, ENGINE:PLIES[:CANDIDATES/THRESHOLD] (gnubg's plies).",
)
@click.option(
    "--levels",
    help="With --engines: the levels judged, comma-separated ENGINE:PLIES[:CANDIDATES/THRESHOLD] "
    f"[{','.join(DEFAULT_LEVELS)}].",
)
@click.option(
    "--against-gnubg",
    "matches",
    type=click.IntRange(min=1),
    help="With --game backgammon: analyse this many real matches (spread over bglab) with the own nets and "
    "with Debian's gnubg at --depth plies (2 by default), in turn: CPU time and agreement of the marks.",
)
@marks_options
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def bench(
    game: str,
    depth: int | None,
    nodes: int | None,
    movetime: float | None,
    service: bool,
    broker: str | None,
    archive: Path | None,
    runs: str,
    soak: bool,
    soak_games: int | None,
    keep: str | None,
    engine: str | None,
    decisions: int | None,
    strength: bool,
    seed: int,
    reference: str,
    levels: str | None,
    matches: int | None,
    marks: bool,
    reference_depth: int,
    one_search: bool,
    reference_settings: str,
    variants: tuple[str, ...],
    verifications: tuple[str, ...],
    jobs: int,
    as_json: bool,
) -> None:
    """Measure perft and search speed and the time to review a real 93-ply game (at the analysis limit);
    with --service, the batch analysis of --archive at --depth (default: 40 bundled Togyz games at depth 8)
    timed on each executor of --runs (decisions/s and the ratios between them); with
    --soak, a synthetic archive of random games through Celery while worker processes are killed and Redis
    restarted, checked against a local run (exit 1 if a check fails).
    With --game backgammon (no --service): full-turn legal play sets generated per second on a fixed
    position set, then the evaluator's (--engine, own by default) 0-ply evaluations per second and
    engine.analyse's decisions per second at 0 and 2 plies on real decisions, beside gnubg's best_move at
    0, 1 and 2 plies and how often both pick the same play (with gnubg-nn installed)."""
    if soak:
        from taldau.workers.soak import SoakSettings, run_soak

        soak_report = run_soak(
            SoakSettings(games=soak_games or 10_000, depth=depth or 1), Path(keep) if keep else None
        )
        click.echo(json.dumps(soak_report) if as_json else json.dumps(soak_report, indent=2))
        sys.exit(0 if soak_report["passed"] else 1)
    if marks:
        jobs = _within_ceiling(jobs, "--jobs", game)
        options = AnalysisOptions(depth, nodes, movetime)
        marks_bench(
            game,
            options,
            soak_games,
            reference_depth,
            None if archive is None else str(archive),
            one_search,
            as_json,
            variants,
            jobs,
            reference_settings,
            verifications,
            engine,
        )
        return
    if game == "backgammon" and strength:
        from taldau.cli.strength import backgammon_strength

        backgammon_strength(archive, decisions, seed, reference, levels, as_json)
        return
    if game == "backgammon" and matches is not None:
        _backgammon_against_gnubg(matches, 2 if depth is None else depth, as_json, engine or DEFAULT_ENGINE)
        return
    if service:
        from taldau.workers.bench import ServiceBench, check_runs, run_service_bench

        if archive is None and game != "togyz":
            raise click.UsageError(f"--service --game {game} needs --archive")
        broker = broker and _broker(broker)
        try:
            chosen = check_runs(runs.split(","))
        except ValueError as error:
            raise click.UsageError(str(error)) from None
        report = run_service_bench(ServiceBench(game, archive, depth, chosen, broker))
        if as_json:
            click.echo(json.dumps(report))
            return
        for name in chosen:
            run = report[name]
            click.echo(
                f"{name}: {count(run['tasks'], 'task')}, {count(run['games'], 'game')}, "
                f"{run['decisions']:,} decisions in {run['seconds']} s: {run['games_per_second']} games/s, "
                f"{run['decisions_per_second']:,} decisions/s"
            )
        if report["speedup_local_2"] is not None:
            click.echo(f"two local processes: {report['speedup_local_2']}x one ({report['limit']})")
        if report["celery_vs_local_2"] is not None:
            click.echo(
                f"Celery with two workers: {report['celery_vs_local_2']}x two local processes "
                f"({report['limit']})"
            )
        return
    if game == "backgammon":
        result = run_backgammon_bench()
        engine_report = _backgammon_engine_report(engine or "own", decisions or 200)
        if as_json:
            click.echo(json.dumps({**result.to_json(), "engine": engine_report.to_json()}))
            return
        click.echo(
            f"{result.turns:,} play sets ({result.plays:,} plays) in {result.seconds:.3f} s: "
            f"{result.turns_per_second:,.0f} play sets/s; through Position.plays: "
            f"{result.api_turns_per_second:,.0f} play sets/s"
        )
        if result.gnubg is not None:
            click.echo(
                f"gnubg_nn.moves on the same sets: {result.gnubg.turns_per_second:,.0f} play sets/s "
                f"(ours {result.turns_per_second / result.gnubg.turns_per_second:.2f}x); sets whose number "
                f"of plays differs from ours: {result.gnubg.count_mismatches}"
            )
        for line in _engine_bench_lines(engine_report):
            click.echo(line)
        return
    report = run_bench(_limit(depth, nodes, movetime, review_limit()))
    if as_json:
        click.echo(json.dumps(report))
        return
    perft_, search_, game_ = report["perft"], report["search"], report["game"]
    click.echo(f"perft depth {perft_['depth']}: {perft_['nps']:,} nodes/s")
    click.echo(f"search, {search_['positions']} positions: {search_['nps']:,} nodes/s")
    depth_nodes = report["depth_nodes"]
    click.echo(
        f"nodes to depth {depth_nodes['depth']} there: {depth_nodes['default']:,}; full width (no "
        f"reductions, no pruning) {depth_nodes['full']:,}"
    )
    click.echo(
        f"review of a {game_['plies']}-ply game at {game_['limit']}: {game_['seconds']} s "
        f"({game_['seconds_per_ply']} s per ply, mean depth {game_['mean_depth']})"
    )


def _engine_bench_lines(report) -> list[str]:
    """The text lines of an ``EngineBench``."""
    lines = [
        f"{report.engine} ({report.version}), {report.decisions} decisions of real matches",
        f"0-ply evaluations: {report.evaluations_per_second:,.0f}/s one board per call, "
        f"{report.batched_per_second:,.0f}/s in one call of {report.boards:,} boards",
    ]
    for label, seconds in report.analyse_seconds.items():
        lines.append(
            f"engine.analyse at {label}: {seconds * 1000:.2f} ms per decision "
            f"({1 / seconds:,.1f} decisions/s)"
        )
    for plies, rate in (report.gnubg_best_move_per_second or {}).items():
        lines.append(f"gnubg best_move at {plies}-ply: {rate:,.1f} decisions/s")
    if report.time_against_gnubg is not None:
        lines.append(
            f"analyse at 2-ply 8/0.16 takes {report.time_against_gnubg:.2f}x gnubg's 2-ply best_move time "
            "(the two timed in turn on each decision)"
        )
    for label, agreement in (report.best_move_agreement or {}).items():
        loss = (report.gnubg_equity_loss or {}).get(label, 0.0)
        lines.append(
            f"analyse at {label} picks gnubg's play in {agreement:.1%} of decisions; "
            f"the others give up {loss:.4f} on average by gnubg's own evaluation at the same plies"
        )
    return lines


def _backgammon_against_gnubg(matches: int, plies: int, as_json: bool, engine: str) -> None:
    """``reference.compare_with_gnubg`` of ``engine``'s default review on ``matches`` real matches of
    ../shared/data (the bundled examples when absent), printed."""
    from pathlib import Path

    from taldau.games.backgammon.reference import compare_with_gnubg, spread_matches

    folder = Path("../shared/data/backgammon/bglab")
    if not folder.is_dir():
        folder = Path(__file__).resolve().parent.parent / "examples" / "backgammon"
    try:
        report = compare_with_gnubg(spread_matches(folder, matches), _evaluator(engine), plies)
    except RuntimeError as error:
        raise click.ClickException(str(error)) from None
    if as_json:
        click.echo(json.dumps(report.to_json()))
        return
    click.echo(
        f"{report.matches} matches at {plies}-ply, ours {report.engine}, {report.review}; "
        f"{report.plays} unforced checker plays paired "
        f"({report.unpaired} not): CPU {report.seconds_ours} s ours, {report.seconds_gnubg} s gnubg "
        f"({report.time_ratio:.2f}x its time)"
    )
    for name, agreement in [*report.marks.items(), ("any mark", report.any_mark)]:
        precision = "n/a" if agreement.precision is None else f"{agreement.precision:.2f}"
        recall = "n/a" if agreement.recall is None else f"{agreement.recall:.2f}"
        click.echo(
            f"{name:>8}: gnubg {agreement.reference}, ours {agreement.tested}, both {agreement.both}; "
            f"precision {precision}, recall {recall}"
        )
    click.echo(
        f"equity lost: correlation {report.loss_correlation:.3f}, "
        f"mean absolute difference {report.loss_difference:.4f} EMG"
    )


def _backgammon_engine_report(engine: str, decisions: int):
    """``run_engine_bench`` of ``engine`` on decisions of the real matches in ../shared/data, or of the
    bundled examples when those are absent."""
    from taldau.games.backgammon.bench import real_decisions, run_engine_bench

    folder = Path("../shared/data/backgammon/bglab")
    if not folder.is_dir():
        folder = Path(__file__).resolve().parent.parent / "examples" / "backgammon"
    return run_engine_bench(_evaluator(engine), real_decisions(folder, decisions))


@main.command()
@click.option("--game", type=click.Choice(MATCH_GAMES), default="togyz", show_default=True)
@click.option(
    "--a",
    "first",
    help="Togyz: search settings (default, plain, full, lmr, lmrN, lmrN-M, each but plain with +nullR, "
    "+staticM, +futilityM) or a weights file [default: default]. "
    "Backgammon: ENGINE:PLIES such as own:2, sage:2 (bgsage; own stands in where it cannot run), gnubg:0 "
    "(with gnubg-nn installed) or nets.npz:0 (our nets from "
    f"a weights file) [default: {DEFAULT_A}].",
)
@click.option(
    "--b",
    "second",
    help="Togyz: search settings (default, plain, full, lmr, lmrN, lmrN-M, each but plain with +nullR, "
    "+staticM, +futilityM) or a weights file [default: plain]. "
    f"Backgammon: ENGINE:PLIES as for --a [default: {DEFAULT_B}: the same nets without lookahead].",
)
@_limit_options
@click.option(
    "--openings",
    "count",
    type=click.IntRange(1, 613),
    default=100,
    show_default=True,
    help="Togyz: openings (three-ply lines); each is played with both colours.",
)
@click.option(
    "--games",
    type=click.IntRange(min=2),
    default=100,
    show_default=True,
    help="Backgammon: games, an even number (pairs of duplicate games).",
)
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Backgammon: seed of the dice; of the book's choices.",
)
@click.option("--jobs", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default="cores")
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
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
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
    as_json: bool,
) -> None:
    """Play A against B and report A's score. Togyz: engine settings over a set of openings, both colours.
    Backgammon: cubeless money games to the end, each dice sequence played twice with colours swapped
    (duplicate dice); A's points per game with a 95% margin, plain and luck-adjusted."""
    jobs = _within_ceiling(jobs, "--jobs", game)
    if game == "backgammon":
        _backgammon_match(
            first or DEFAULT_A, second or DEFAULT_B, games, seed, as_json, book_path, judge, jobs
        )
        return
    first, second = first or "default", second or "plain"
    limit = _limit(depth, nodes, movetime, Limit(nodes=5_000))
    player = None if book_path is None else book_player(book_path, seed)
    result, _ = run_match(
        _engine_settings(first), _engine_settings(second), limit, openings(count), jobs, player
    )
    if as_json:
        click.echo(
            json.dumps(
                {
                    "a": first,
                    "b": second,
                    "limit": str(limit),
                    "games": result.games,
                    "wins": result.wins,
                    "draws": result.draws,
                    "losses": result.losses,
                    "score": result.score,
                    "margin": result.margin,
                }
            )
        )
    else:
        click.echo(f"{first} vs {second} at {limit}: {result}")


def _backgammon_match(
    first: str,
    second: str,
    games: int,
    seed: int,
    as_json: bool,
    book_path: str | None = None,
    judge: str = "own",
    jobs: int = 1,
) -> None:
    """``taldau match --game backgammon``: duplicate-dice cubeless games of two ENGINE:PLIES players, the
    luck of every roll measured by ``judge`` (an engine name, or none)."""
    from taldau.games.backgammon.match import parse_player
    from taldau.games.backgammon.match import run_match as run_backgammon_match

    if games % 2:
        raise click.BadParameter("give an even number (pairs of duplicate games)", param_hint="--games")
    evaluators: dict[str, Evaluator] = {}
    try:
        for spec in (first, second, judge):  # each engine loaded once; a stand-in said so
            name = spec.rpartition(":")[0] if ":" in spec else spec
            if name != "none" and name not in evaluators:
                evaluators[name] = _evaluator(name)
        a, b = parse_player(first, evaluators), parse_player(second, evaluators)
        luck_judge = None if judge == "none" else evaluators.get(judge) or load_evaluator(judge)
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    if book_path is not None:
        a = replace(a, book=book_player(book_path, seed, "backgammon"))
    show_progress = sys.stderr.isatty()

    def progress(game) -> None:
        done = 2 * game.pair + game.a_seat + 1
        if show_progress and (done % 100 == 0 or done == games):
            click.echo(f"{done}/{games} games", err=True)

    result = run_backgammon_match(a, b, games, seed, progress, luck_judge, jobs)
    click.echo(json.dumps(result.to_json() | {"seed": seed}) if as_json else str(result))


@main.command()
@click.option("--game", type=click.Choice(GAMES), default="togyz", show_default=True)
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
    document = tune_weights(samples(_games(paths)), shrink=shrink, source=" ".join(paths))
    _write(dumps(document), out)


@main.command()
@click.option("--game", type=click.Choice(["backgammon"]), default="backgammon", show_default=True)
@click.option(
    "--stage",
    type=click.Choice(["td", "supervised", "prune"]),
    default="td",
    show_default=True,
    help="td: self-play from random weights; supervised: fit the nets to their own deeper plies; "
    "prune: fit the small nets that sort plays inside the plies to the nets' 0-ply.",
)
@click.option("--out", type=click.Path(dir_okay=False), required=True, help="Weights file to write.")
@click.option(
    "--games", type=click.IntRange(min=1), help="td: self-play games in all; supervised: games sampled."
)
@click.option("--seed", type=int, default=1, show_default=True)
@click.option(
    "--start",
    "start_from",
    type=click.Path(exists=True, dir_okay=False),
    help="supervised, prune: nets to improve (default the shipped ones).",
)
@click.option(
    "--matches",
    multiple=True,
    type=click.Path(exists=True),
    help="supervised, prune: real match records to take positions from.",
)
@click.option(
    "--positions",
    type=click.IntRange(min=1),
    help="supervised, prune: at most this many positions (prune: before a roll, each giving its plays) "
    f"[default: {SupervisedSettings.max_positions:,}; prune: {PRUNE_POSITIONS.max_positions:,}]",
)
@click.option(
    "--plies",
    type=click.IntRange(0, 3),
    default=SupervisedSettings.label_plies,
    show_default=True,
    help="supervised: plies of the labels.",
)
@click.option(
    "--epochs",
    type=click.IntRange(min=1),
    help="supervised, prune: passes over the positions "
    f"[default: {SupervisedSettings.epochs}; prune: {PRUNE_POSITIONS.epochs}]",
)
@click.option(
    "--rate",
    type=click.FloatRange(min=0.0, min_open=True),
    help="supervised, prune: learning rate of the first epoch, falling linearly to a tenth by the last "
    f"[default: {SupervisedSettings.rate}; prune: {PRUNE_POSITIONS.rate}]",
)
@click.option(
    "--stop-at",
    type=click.IntRange(min=1),
    help="td: stop after this many games of the run (its checkpoint then, resumable to --games).",
)
@click.option(
    "--teacher",
    type=click.Path(exists=True, dir_okay=False),
    help="supervised: nets that play the self-play games and label the positions (default: --start).",
)
@click.option(
    "--threads",
    type=click.IntRange(min=1),
    default=SupervisedSettings.threads,
    show_default=True,
    help="supervised: threads that compute the labels.",
)
@click.option(
    "--candidates",
    type=click.IntRange(min=0),
    default=SupervisedSettings.candidates,
    show_default=True,
    help="supervised: also label the results of this many best plays of one random roll of each position.",
)
@click.option(
    "--rollout",
    type=(click.IntRange(min=1), click.IntRange(min=1)),
    default=None,
    metavar="TRIALS STEPS",
    help="supervised: label by variance-reduced rollouts of TRIALS trials of STEPS rolls instead of --plies.",
)
def train(
    game: str,
    stage: str,
    out: str,
    games: int | None,
    seed: int,
    start_from: str | None,
    matches: tuple[str, ...],
    positions: int | None,
    plies: int,
    epochs: int | None,
    rate: float | None,
    stop_at: int | None,
    teacher: str | None,
    threads: int,
    candidates: int,
    rollout: tuple[int, int] | None,
) -> None:
    """Train the backgammon nets. td and supervised resume where they stopped: td from OUT (a checkpoint
    of the same settings), supervised from its labels in OUT.work/; prune takes a minute or two. Options
    not given take the stage's own defaults (``SupervisedSettings``; ``PruningSettings`` for prune)."""
    from taldau.games.backgammon.eval.own import OwnEvaluator
    from taldau.games.backgammon.eval.pruning import run_pruning
    from taldau.games.backgammon.eval.supervised import run_supervised
    from taldau.games.backgammon.eval.train import TdSettings, run_td

    threads = _within_ceiling(threads, "--threads", what="threads")
    if stage == "td":
        settings = TdSettings(seed=seed) if games is None else TdSettings(games=games, seed=seed)
        with progress_line("self-play", "games", settings.games) as shown:
            try:
                run_td(
                    settings,
                    Path(out),
                    lambda p: shown.update(
                        p.games_done,
                        detail=f"{p.games_per_second:,.0f} games/s, "
                        f"{p.plies_per_game:.0f} plies/game, error {p.error:.4f}",
                    ),
                    stop_at,
                )
            except ValueError as error:
                raise click.ClickException(str(error)) from None
        played = settings.games if stop_at is None else min(stop_at, settings.games)
        click.echo(f"wrote {out} after {count(played, 'game')} of self-play")
        return
    try:
        evaluator = OwnEvaluator.load(Path(start_from)) if start_from else OwnEvaluator.load()
        labeller = OwnEvaluator.load(Path(teacher)) if teacher else evaluator
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    given = {
        "selfplay_games": games,
        "max_positions": positions,
        "epochs": epochs,
        "rate": rate,
        "rollout_trials": None if rollout is None else rollout[0],
        "rollout_steps": None if rollout is None else rollout[1],
    }
    settings = replace(
        PRUNE_POSITIONS if stage == "prune" else SupervisedSettings(),
        matches=matches,
        label_plies=0 if stage == "prune" else plies,
        threads=threads,
        seed=seed,
        candidates=candidates,
        **{name: value for name, value in given.items() if value is not None},
    )
    if stage == "prune":
        with progress_line("pruning", "") as shown:
            history = run_pruning(
                evaluator,
                PruningSettings(settings),
                Path(out),
                lambda s: shown.update(s.done, s.total, s.note, unit=s.step),
            )
        click.echo(f"wrote {out}: pruning nets' held-out error {history[0][1]:.5f} -> {history[-1][1]:.5f}")
        return
    with progress_line("supervised", "") as shown:
        history = run_supervised(
            evaluator,
            settings,
            Path(out),
            Path(out + ".work"),
            lambda s: shown.update(s.done, s.total, s.note, unit=s.step),
            labeller,
        )
    click.echo(f"wrote {out}: held-out error {history[0][1]:.5f} -> {history[-1][1]:.5f}")


@main.command("fit-curve")
@click.option("--game", type=click.Choice(GAMES), default="togyz", show_default=True)
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@_togyz_limit_options
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
    """Fit the winning-chance curve on engine scores and results of the real games in PATHS."""
    limit = _limit(depth, nodes, movetime, Limit(depth=8))
    scores, progress, results = curve_samples(samples(_games(paths), every=every), Engine(), limit)
    curve = fit_win_curve(scores, progress, results, source=f"{' '.join(paths)}, {limit}, every {every}")
    _write(curve.to_json(), out)


def _write(text: str, out: str | None) -> None:
    if out is None:
        click.echo(text, nl=False)
    else:
        with open(out, "w", encoding="utf-8") as handle:
            handle.write(text)


EX_UNAVAILABLE = 69  # Celery's own exit code for an unreachable broker or no workers
EX_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command stopped by Ctrl-C
EX_USAGE = 2  # click's own exit code for a usage error


def _broker(url: str) -> str:
    """``url`` once it is a broker URL that taldau reads, else exit 2 with one line saying why (before
    anything is read or made)."""
    from taldau.workers.broker import parse_broker

    try:
        return parse_broker(url).url
    except ValueError as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(EX_USAGE)


def _within_ceiling(count: int, option: str, game: str | None = None, what: str = "processes") -> int:
    """``count`` worker processes of ``game`` (None: every engine loaded), or threads when ``what`` says
    so, once within what this machine takes now (``games.processes.ceiling``): a count given above it is a
    usage error naming ``option`` (exit 2, before anything starts); the option's default is lowered to it."""
    from taldau.games.processes import ceiling, worker_size

    limit = ceiling(None if what == "threads" else worker_size(game))
    refusal = limit.refusal(count, what)
    if refusal is None:
        return count
    context = click.get_current_context()
    name = option.lstrip("-").replace("-", "_")
    if context.get_parameter_source(name) is click.core.ParameterSource.DEFAULT:
        return limit.count
    raise click.BadParameter(refusal, param_hint=option)


def _analysis_detail(state) -> str:
    """What ``analyze``'s progress shows beside the games done (a ``workers.run.Progress``)."""
    rate = state.decisions / max(time.perf_counter() - state.started, 1e-9)
    return (
        f"{rate:,.1f} decisions/s, {state.failed} failed, {state.invalid} invalid, "
        f"{state.games_resumed} resumed"
    )


@main.command()
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True))
@click.option("--out", required=True, type=click.Path(file_okay=False), help="Output directory.")
@click.option(
    "--game",
    type=click.Choice(["auto", *BENCH_GAMES]),
    default="auto",
    show_default=True,
    help="The game to analyse (auto: the only game of the archive; Togyz Kumalak when it holds both); "
    "records of the other game are listed as skipped.",
)
@click.option(
    "--depth",
    type=click.IntRange(0, 100),
    help="Plies to search per position (Togyz at least 1; backgammon 0 to 3, gnubg's plies for every engine: "
    "sage's own 3ply is --depth 2) [backgammon: 2].",
)
@click.option("--nodes", type=click.IntRange(min=1), help="Nodes to search per position.")
@click.option(
    "--engine",
    type=click.Choice(ENGINES),
    help=_ENGINE_HELP + " The engine, its version and level are part of the settings key: results of "
    "different engines never share an output folder.",
)
@click.option("--jobs", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default="cores")
@click.option(
    "--broker", envvar="TALDAU_BROKER", help="Redis URL: run on Celery workers (env TALDAU_BROKER)."
)
@click.option("--resume/--no-resume", default=True, show_default=True, help="Skip games already analysed.")
@click.option("--json", "as_json", is_flag=True, help="Print the manifest's counts as JSON on stdout.")
def analyze(
    paths: tuple[str, ...],
    out: str,
    game: str,
    depth: int | None,
    nodes: int | None,
    engine: str | None,
    jobs: int,
    broker: str | None,
    resume: bool,
    as_json: bool,
) -> None:
    """Analyse every game under PATHS into Parquet under OUT (moves/, games/, manifest.json). OUT
    accumulates: games of other archives analysed there before stay, and the summary counts this run's
    games. Exit 0, 1 when some of this run's games are invalid or failed, 69 when the broker or the workers
    cannot serve the run (unreachable, or a worker that does not store where this client reads), 130 when
    interrupted (a rerun of the same command resumes)."""
    from taldau.analysis.batch import BatchSettings
    from taldau.workers.run import (
        BrokerUnavailable,
        Interrupted,
        Progress,
        WorkerProblem,
        local_executor,
        run_analysis,
    )
    from taldau.workers.store import SettingsMismatch

    if broker:
        broker = _broker(broker)
    if depth is not None and nodes is not None:
        raise click.UsageError("give at most one of --depth and --nodes")
    if game == "auto":
        game = auto_game(paths, ReadLimits())
    settings = BatchSettings(game=game, depth=depth, nodes=nodes, engine=engine)
    try:
        settings.limit()
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    if settings.fallback is not None:
        click.echo(settings.fallback, err=True)
    if broker:
        from taldau.workers.celery_app import ServiceSettings, celery_executor

        try:
            service = ServiceSettings.from_env()
        except ValueError as error:
            raise click.UsageError(str(error)) from None
        executor = celery_executor(broker, service)
    else:
        jobs = _within_ceiling(jobs, "--jobs", game)
        executor = local_executor(jobs, lambda line: shown.note(line))  # says once if it compiles
    last: list[Progress] = []  # the run's progress object, once it reports

    def update(state: Progress) -> None:
        last[:] = [state]
        shown.update(state.games_done, state.games, _analysis_detail(state))

    try:
        with progress_line("analysing", "games") as shown:
            manifest = run_analysis(paths, out, settings, executor, resume=resume, progress=update)
    except SettingsMismatch as error:
        raise click.UsageError(str(error)) from None
    except (BrokerUnavailable, WorkerProblem) as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(EX_UNAVAILABLE)
    except Interrupted as interrupted:
        where = (
            f"{count(interrupted.queued, 'game')} stay queued on the broker and are analysed by the workers"
            if interrupted.queued
            else f"{count(interrupted.left, 'game')} not analysed"
        )
        how = "interrupted"
        if broker:
            from taldau.workers.celery_app import Cancelled

            how = "cancelled by `taldau cancel`" if isinstance(interrupted, Cancelled) else how
        click.echo(f"{how}: {where}; run the same command again to resume", err=True)
        sys.exit(EX_INTERRUPTED)
    counts = manifest["counts"]
    nothing = counts["games"] == 0  # no game of this kind at all (valid, invalid or analysed before)
    inputs = Inputs.from_json(manifest["inputs"])
    for line in inputs.lines():  # every input not analysed, then every game invalid or failed, once each
        click.echo(line, err=True)
    for failure in manifest["failures"]:
        click.echo(
            f"{failure['source']}, game {failure['index']}: {failure['status']}: {failure['error']}", err=True
        )
    others = f"; {inputs.others()}" if inputs.others() else ""
    resumed = last[0].games_resumed if last else 0  # analysed by an earlier run, not again
    if as_json:
        this_run = {"analysed": counts["ok"] - resumed, "resumed": resumed, "decisions": counts["plies"]}
        summary = {"out": out, "key": manifest["key"], **counts, **this_run, "inputs": inputs.counts()}
        click.echo(json.dumps(summary))
    else:
        before = f", {resumed} resumed (analysed before)" if resumed else ""
        click.echo(
            f"{count(inputs.files, 'file')}, {count(counts['games'], 'game')}: {counts['ok'] - resumed} "
            f"analysed{before}, {counts['invalid']} invalid, {counts['failed']} failed, "
            f"{count(counts['plies'], 'decision')}{others} -> {out}"
        )
    if nothing:
        click.echo(f"error: no {game} game to analyse under {' '.join(paths)}", err=True)
    bad = counts["invalid"] + counts["failed"] + inputs.not_records + inputs.not_read
    sys.exit(0 if bad == 0 and not nothing else 1)


@main.command()
@click.option("--broker", envvar="TALDAU_BROKER", required=True, help="Redis URL (env TALDAU_BROKER).")
@click.option("--concurrency", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default="cores")
@click.option(
    "--hostname",
    "-n",
    help="The worker's name, NAME@HOST (%h: this host's name). Default: taldau-<process id>@<host>.",
)
@click.option("--loglevel", default="INFO", show_default=True)
@click.option("--restarted", is_flag=True, hidden=True, help="Set when the worker starts itself again.")
def worker(broker: str, concurrency: int, hostname: str | None, loglevel: str, restarted: bool) -> None:
    """Run a Celery worker that analyses games for `taldau analyze --broker`. Each worker has its own
    name (host and process id by default), so several on one host are told apart. A worker that Celery stops
    on an error (kombu can fail so while the broker restarts) starts again in a fresh process image with
    the same process id; a worker stopped by a signal (Ctrl-C: exit 130) or a warm shutdown stays stopped.
    Exit 69 when the broker does not answer within 5 s at the start. The engines are loaded (and compiled,
    on a machine's first use) before the worker takes tasks."""
    from celery import signals
    from celery.utils.nodenames import host_format
    from taldau.games.jit import warm_kernels
    from taldau.games.processes import die_with_parent
    from taldau.games.registry import NAMES, analyser
    from taldau.workers.broker import parse_broker, reach
    from taldau.workers.celery_app import ServiceSettings, make_app

    broker = _broker(broker)
    concurrency = _within_ceiling(concurrency, "--concurrency")
    try:
        service = ServiceSettings.from_env()
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    # Once started, a worker rides out a broker restart; at the start, a broker that does not answer within
    # seconds is a mistake (Celery would retry for minutes).
    try:
        problem = None if restarted else reach(parse_broker(broker))
    except KeyboardInterrupt:
        sys.exit(EX_INTERRUPTED)
    if problem is not None:
        click.echo(f"error: {problem}", err=True)
        sys.exit(EX_UNAVAILABLE)
    # Before Celery forks its pool: the children inherit the engines compiled, and no task's time limit is
    # spent compiling them (which also leaves a child unable to analyse when a limit strikes in the middle).
    click.echo("taldau worker: loading the engines", err=True)
    for name in NAMES:
        warm_kernels(
            name, analyser(name).warm, lambda line, game=name: click.echo(f"{game}: {line}", err=True)
        )
    app = make_app(broker, service)
    celery_worker = app.Worker(
        hostname=host_format(hostname or f"taldau-{os.getpid()}@%h"),
        concurrency=concurrency,
        loglevel=loglevel,
        pool_cls="prefork",
        without_gossip=True,
        without_mingle=True,
    )
    stopped_by: list[str] = []  # the signal that asked Celery to stop (its own handlers' report)
    signals.worker_shutting_down.connect(lambda sig, **_: stopped_by.append(sig), weak=False)
    # Celery's pool processes die with this one (Celery asks the kernel too, without closing the race of a
    # parent that dies before the child asks).
    parent = os.getpid()
    signals.worker_process_init.connect(lambda **_: die_with_parent(parent), weak=False)
    celery_worker.start()
    code = celery_worker.exitcode
    if stopped_by:  # Celery exits 1 on Ctrl-C, which is no error to start again after
        sys.exit(EX_INTERRUPTED if stopped_by[0] == "SIGINT" else code or 0)
    if code not in (0, None):
        click.echo(f"taldau worker: Celery stopped (exit code {code}); restarting in 2 s", err=True)
        time.sleep(2.0)
        sys.stdout.flush()
        sys.stderr.flush()
        again = [arg for arg in sys.argv if arg != "--restarted"]
        os.execv(sys.executable, [sys.executable, *again, "--restarted"])
    sys.exit(code or 0)


@main.command()
@click.option("--broker", envvar="TALDAU_BROKER", required=True, help="Redis URL (env TALDAU_BROKER).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object on stdout.")
def status(broker: str, as_json: bool) -> None:
    """Queue depth, workers alive (a real round trip), the games being analysed, and the runs with games
    queued or running (their id, for `taldau cancel`, and output folder). The broker's password is masked."""
    from taldau.workers.run import BrokerUnavailable
    from taldau.workers.status import queue_status

    broker = _broker(broker)
    try:
        report = queue_status(broker)
    except BrokerUnavailable as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(EX_UNAVAILABLE)
    if as_json:
        click.echo(json.dumps(report.to_json()))
        return
    click.echo(
        f"broker {report.broker}: {count(report.queued, 'game')} queued, "
        f"{count(len(report.workers), 'worker')} alive"
    )
    for name in report.workers:
        click.echo(f"  worker {name}")
    for run in report.runs:
        held = f", {run.reserved} reserved" if run.reserved else ""
        click.echo(f"  run {run.id} -> {run.out}: {run.queued} queued{held}, {run.running} running")
    for job in report.running:
        click.echo(f"  {job.worker}: {job.source}, game {job.index}")


@main.command()
@click.argument("run", required=False)
@click.option("--out", type=click.Path(file_okay=False), help="Cancel the runs writing to this folder.")
@click.option("--broker", envvar="TALDAU_BROKER", required=True, help="Redis URL (env TALDAU_BROKER).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object per run on stdout.")
def cancel(run: str | None, out: str | None, broker: str, as_json: bool) -> None:
    """Withdraw the queued games of RUN (its id, as `taldau status` lists it) or of the runs writing to
    --out. Games already running finish and are stored; games a worker holds reserved are dropped; a
    client following the run stops, and the same `analyze` command analyses what is left. Exit 0, 1 when
    no such run has games queued or running, 69 when the broker is unreachable."""
    from taldau.workers.run import BrokerUnavailable
    from taldau.workers.status import UnknownRun, cancel_runs

    if (run is None) == (out is None):
        raise click.UsageError("give RUN or --out DIR (one of them)")
    broker = _broker(broker)
    try:
        withdrawals = cancel_runs(broker, run=run, out=out)
    except UnknownRun as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(1)
    except BrokerUnavailable as error:
        click.echo(f"error: {error}", err=True)
        sys.exit(EX_UNAVAILABLE)
    except ValueError as error:  # TALDAU_VISIBILITY_TIMEOUT
        raise click.UsageError(str(error)) from None
    for withdrawal in withdrawals:
        if as_json:
            click.echo(json.dumps(withdrawal.to_json()))
            continue
        dropped = f", {withdrawal.reserved} reserved dropped" if withdrawal.reserved else ""
        click.echo(
            f"run {withdrawal.run} -> {withdrawal.out}: {count(withdrawal.withdrawn, 'game')} withdrawn"
            f"{dropped}, {withdrawal.running} running finish"
        )


main.add_command(book)
main.add_command(report)
