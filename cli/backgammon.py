"""The commands of backgammon alone: ``plays`` (a roll's legal plays, ranked or rolled out) and ``eval`` (a
position before the roll). ``train`` is in ``cli.train``, ``match`` (both games) in ``cli.match``."""

from __future__ import annotations

import json
import sys
from typing import Any

import click
from taldau.cli.options import BACKGAMMON_PLIES, EX_USAGE, JSON, engine_option, say, whole_option
from taldau.cli.progress import progress_line
from taldau.games.backgammon.answers import (
    context_json,
    evaluation_json,
    match_context,
    plays_json,
    rank_roll,
    ranked_plays_json,
    rolled_plays_json,
    rollout_plays,
)
from taldau.games.backgammon.engine import PROBABILITIES, Evaluator
from taldau.games.backgammon.engine.analyse import choose_evaluator
from taldau.games.backgammon.rules.position_text import PositionSetup, read_position

PROBABILITY_LABELS = ("W", "WG", "WBG", "LG", "LBG")  # gnubg's short names of the five probabilities
ENGINE = engine_option("Plies are gnubg's for every engine.")


def backgammon_position(text: str) -> PositionSetup:
    """A backgammon position from a gnubg Position ID, GNUbgID or XGID."""
    try:
        return read_position(text)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint="POSITION") from None


def evaluator(engine: str) -> Evaluator:
    """The evaluator named on the command line, or the one that stands in for it (``own`` for a ``sage``
    that cannot run here: one line on stderr says so); exit 1 with the reason when it cannot be loaded."""
    try:
        choice = choose_evaluator(engine)
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    if choice.fallback is not None:
        say(choice.fallback)
    return choice.evaluator


def _rollout(engine: str, trials: int, seed: int, threads: int) -> Any:
    """bgsage's rollouts (``engine.sage.SageRollout``) of ``trials`` trials from ``seed``: exit 2 when the
    engine chosen is not ``sage`` (own and gnubg have no rollouts for users), 1 when bgsage cannot run."""
    if engine != "sage":
        say(f"error: the engine {engine} has no rollouts: rollouts are bgsage's, give --engine sage")
        sys.exit(EX_USAGE)
    from taldau.games.backgammon.engine.sage import RolloutSettings, SageRollout, SageUnavailable

    try:
        return SageRollout(RolloutSettings(trials=trials, seed=seed, threads=threads))
    except SageUnavailable as error:
        raise click.ClickException(f"{error}: no rollout") from None


def rollout_options(function):
    """--rollout, --trials, --seed, --threads: for plays and eval."""

    def with_rollout(name: str, kind: click.ParamType, default: int, help: str) -> Any:
        return click.option(
            name, type=kind, default=default, show_default=True, help=f"With --rollout: {help}"
        )

    for option in (
        with_rollout(
            "--threads",
            click.IntRange(min=1),
            1,
            "C++ threads of the rollout (the numbers do not depend on them).",
        ),
        with_rollout("--seed", click.INT, 42, "the seed of the dice."),
        with_rollout("--trials", click.IntRange(min=1), 1296, "games played out per position."),
        click.option(
            "--rollout",
            is_flag=True,
            help="Roll out (with --engine sage: bgsage's rollouts, games played to the end with variance "
            "reduction), with the standard error of every number.",
        ),
    ):
        function = option(function)
    return function


def _labelled(values: dict[str, float], digits: int) -> str:
    """The five probabilities (or their errors) under gnubg's short names: ``W 0.551 WG 0.124 ...``."""
    return " ".join(
        f"{label} {values[name]:.{digits}f}"
        for label, name in zip(PROBABILITY_LABELS, PROBABILITIES, strict=True)
    )


@click.command()
@click.argument("position", required=False)
@click.argument("dice", required=False)
@click.option(
    "--batch", "batch_file", type=click.File("rb"), help="Lines 'POSITION_ID DICE' (UTF-8); '-' for stdin."
)
@click.option(
    "--depth",
    "--plies",
    "depth",
    type=click.IntRange(0, BACKGAMMON_PLIES),
    help="Rank the plays by the engine at this depth in plies (gnubg's numbering; --plies: the same).",
)
@ENGINE
@rollout_options
@JSON
def plays(
    position: str | None,
    dice: str | None,
    batch_file: Any,
    depth: int | None,
    engine: str,
    rollout: bool,
    trials: int,
    seed: int,
    threads: int,
    as_json: bool,
) -> None:
    """List the legal backgammon plays of DICE (like 31) in POSITION (a gnubg Position ID, GNUbgID or
    XGID), each with the resulting position's Position ID from the next player's side. With --depth N,
    ranked best first by the engine at N plies (gnubg's: 0 the raw evaluation, 2 its default analysis)
    by cubeful equity (EMG) in the match context POSITION carries (an XGID's or GNUbgID's score, cube,
    owner, Crawford, Jacoby; a bare Position ID: money, cube centred, Jacoby), as analyze ranks a play,
    said on the first line; each play with its cubeful equity, the difference to the best, its cubeless
    equity and the five probabilities (win, win gammon, win backgammon, lose gammon, lose backgammon).
    With --batch, one JSON line per input line, the engine loaded once; a bad line gets a JSON line with
    its error and the rest go on. With --rollout (--engine sage), the best plays of the ranking at --depth
    (0 by default: up to 5 within 0.08) are rolled out cubeful in the same context and ranked by the
    rollout, each with its standard errors; exit 2 with an engine that has no rollouts."""
    if rollout:
        if batch_file is not None or position is None or dice is None:
            raise click.UsageError("--rollout takes POSITION and DICE, not --batch")
        _plays_rollout(position, dice, depth or 0, _rollout(engine, trials, seed, threads), as_json)
        return
    ranking = None if depth is None else evaluator(engine)

    def payload_of(position: str, dice: str) -> dict[str, Any]:
        if ranking is None or depth is None:
            return plays_json(position, dice)
        return ranked_plays_json(ranking, position, dice, depth)

    if batch_file is not None:
        if position is not None:
            raise click.UsageError("give either POSITION DICE or --batch FILE")
        sys.exit(_plays_batch(batch_file, payload_of))
    if position is None or dice is None:
        raise click.UsageError("give POSITION and DICE, or --batch FILE")
    try:
        payload = payload_of(position, dice)
    except ValueError as error:
        raise click.BadParameter(str(error)) from None
    if as_json:
        click.echo(json.dumps(payload))
        return
    if depth is not None:
        click.echo(f"context: {payload['context']['text']}")
    for rank, play in enumerate(payload["plays"], start=1):
        move = play["move"] or "(no move)"
        if depth is None:
            click.echo(f"{move:<28} {play['result']}")
            continue
        click.echo(
            f"{rank:>3}. {move:<24} {play['equity']:+.4f} {play['difference']:+.4f} "
            f"{play['plies']}-ply  cubeless {play['cubeless_equity']:+.4f}  "
            f"{_labelled(play['probabilities'], 3)}"
        )


def _plays_batch(lines: Any, payload_of: Any) -> int:
    """``plays --batch``: one JSON line per input line (of bytes: a line that is not UTF-8 is a bad one
    too), a bad one with its error; the exit code."""
    failed = False
    for number, raw in enumerate(lines, start=1):
        line = raw.decode("utf-8", errors="replace")
        if not line.strip():
            continue
        fields = line.split()
        try:
            raw.decode("utf-8")
            if len(fields) != 2:
                raise ValueError("expected 'POSITION_ID DICE'")
            payload = payload_of(fields[0], fields[1])
        except UnicodeDecodeError as error:
            failed = True
            payload = {"line": number, "input": line.strip(), "error": f"not UTF-8 text: {error.reason}"}
        except ValueError as error:
            failed = True
            payload = {"line": number, "input": line.strip(), "error": str(error)}
        click.echo(json.dumps(payload))
    return 1 if failed else 0


def _plays_rollout(position: str, dice: str, plies: int, rollout: Any, as_json: bool) -> None:
    """``plays --rollout``: the best plays at ``plies`` (ranked by bgsage in the position's match context)
    rolled out cubeful in that context, with their standard errors."""
    from taldau.games.backgammon.engine.sage import SageEvaluator

    try:
        ranking = rank_roll(SageEvaluator(), position, dice, plies)
    except ValueError as error:
        raise click.BadParameter(str(error)) from None
    with progress_line("rolling out", "trial") as shown:
        rolled = rollout_plays(rollout, ranking, progress=shown.update)
    payload = rolled_plays_json(position, dice, rollout, plies, ranking, rolled)
    if as_json:
        click.echo(json.dumps(payload))
        return
    click.echo(f"{rollout.name} {rollout.settings}, cubeful, variance reduction; the best of {plies}-ply")
    click.echo(f"context: {payload['context']['text']}")
    for rank, play in enumerate(payload["plays"], start=1):
        click.echo(
            f"{rank:>3}. {play['move'] or '(no move)':<24} {play['equity']:+.4f} "
            f"±{play['equity_se']:.4f} {play['difference']:+.4f}  {_labelled(play['probabilities'], 3)}"
        )
        click.echo(f"{'':<29}SE {_labelled(play['standard_errors'], 4)}")


@click.command("eval")
@click.argument("position")
@whole_option(
    "--depth",
    "--plies",
    "depth",
    least=0,
    most=BACKGAMMON_PLIES,
    default=0,
    help="Plies to look ahead (gnubg's numbering; --plies: the same).",
)
@ENGINE
@rollout_options
@JSON
def eval_command(
    position: str, depth: int, engine: str, rollout: bool, trials: int, seed: int, threads: int, as_json: bool
) -> None:
    """Evaluate a backgammon POSITION (a gnubg Position ID, GNUbgID or XGID) before the roll, from the side
    on roll: the five cubeless probabilities (win, win gammon, win backgammon, lose gammon, lose
    backgammon; gammons count backgammons too) and the cubeless equity, at --depth; then the match
    context POSITION carries (an XGID's or GNUbgID's score, cube, owner, Crawford, Jacoby; a bare Position
    ID: money, cube centred, Jacoby) and the cube decision in it as analyze judges it: No double,
    Double/take, Double/pass and the cubeful equity (EMG). With --rollout (--engine sage) a cubeless
    rollout, each number with its standard error (exit 2 with another engine)."""
    setup = backgammon_position(position)
    if rollout:
        roller = _rollout(engine, trials, seed, threads)
        with progress_line("rolling out", "trial") as shown:
            rolled = roller.before_roll(setup.position.board, shown.update)
        context = context_json(match_context(setup), setup.position.turn)
        if as_json:
            payload = {"position": position, "engine": roller.name, "rollout": roller.settings.to_json()}
            click.echo(json.dumps(payload | {"context": context, "cubeless": True} | rolled.to_json()))
            return
        exact = ", exact: the game is over" if rolled.exact else ", variance reduction"
        click.echo(f"{roller.name} {roller.settings}{exact}, cubeless (context: {context['text']})")
        click.echo(f"equity {rolled.equity:+.4f} ±{rolled.equity_error:.4f} (one standard error)")
        click.echo(_labelled(rolled.to_json()["probabilities"], 3))
        click.echo(f"SE {_labelled(rolled.to_json()['standard_errors'], 4)}")
        return
    chosen = evaluator(engine)
    payload = evaluation_json(chosen, position, depth)
    if as_json:
        click.echo(json.dumps(payload))
        return
    exact = ", exact: the game is over" if payload["exact"] else ""
    click.echo(f"{chosen.name} {depth}-ply{exact}")
    click.echo(f"equity {payload['equity']:+.4f}")
    click.echo(_labelled(payload["probabilities"], 3))
    click.echo(f"context: {payload['context']['text']}")
    cube = payload["cube"]
    if cube is None:
        return
    if not cube["available"]:
        click.echo(
            f"cubeful equity {cube['cubeful_equity']:+.4f} (EMG), no double: the cube is not available "
            "to the side on roll (the opponent's, the Crawford game, dead or at its limit)"
        )
        return
    click.echo(
        f"cubeful equity {cube['cubeful_equity']:+.4f} (EMG): No double {cube['no_double']:+.4f}, "
        f"Double/take {cube['double_take']:+.4f}, Double/pass {cube['double_pass']:+.4f}: {cube['action']}"
    )
