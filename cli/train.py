"""``taldau train``: the backgammon nets trained by self-play (td), fitted to their own deeper plies
(supervised), or their pruning nets fitted (prune) (``games.backgammon.training``); this module parses,
calls and shows the progress."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
from taldau.analysis.accounting import count
from taldau.cli.options import game_option, whole_option, within_ceiling
from taldau.cli.outputs import writable_file
from taldau.cli.progress import progress_line
from taldau.games.backgammon.training.pruning import PruningSettings
from taldau.games.backgammon.training.supervised import SupervisedSettings

PRUNE_POSITIONS = PruningSettings().positions  # the pruning stage's own positions and fit


def _nets_option(*names: str, help: str) -> Callable[[Any], Any]:
    """An option naming a weights file of the nets, one that exists."""
    return click.option(*names, type=click.Path(exists=True, dir_okay=False), help=help)


def _fit_option(
    name: str, kind: click.ParamType, help: str, supervised: object, prune: object
) -> Callable[[Any], Any]:
    """An option of the supervised and prune stages, not given by default: its help ends with each stage's
    own default (``supervised``, ``prune``)."""
    return click.option(
        name, type=kind, help=f"supervised, prune: {help} [default: {supervised}; prune: {prune}]"
    )


@click.command()
@game_option("The game (backgammon only).", default="backgammon", only="backgammon")
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
@click.option(
    "--seed",
    type=int,
    default=1,
    help="Seed of the random draws (self-play dice, the order of the positions, rollouts).",
)
@_nets_option("--start", "start_from", help="supervised, prune: nets to improve (default the shipped ones).")
@click.option(
    "--matches",
    multiple=True,
    type=click.Path(exists=True),
    help="supervised, prune: real match records to take positions from.",
)
@_fit_option(
    "--positions",
    click.IntRange(min=1),
    "at most this many positions (prune: before a roll, each giving its plays)",
    f"{SupervisedSettings.max_positions:,}",
    f"{PRUNE_POSITIONS.max_positions:,}",
)
@whole_option(
    "--depth",
    "--plies",
    "depth",
    least=0,
    most=3,
    default=SupervisedSettings.label_plies,
    help="supervised: the labels' search depth in plies (--plies: the same).",
)
@_fit_option(
    "--epochs",
    click.IntRange(min=1),
    "passes over the positions",
    SupervisedSettings.epochs,
    PRUNE_POSITIONS.epochs,
)
@_fit_option(
    "--rate",
    click.FloatRange(min=0.0, min_open=True),
    "learning rate of the first epoch, falling linearly to a tenth by the last",
    SupervisedSettings.rate,
    PRUNE_POSITIONS.rate,
)
@click.option(
    "--stop-at",
    type=click.IntRange(min=1),
    help="td: stop after this many games of the run (its checkpoint then, resumable to --games).",
)
@_nets_option(
    "--teacher",
    help="supervised: nets that play the self-play games and label the positions (default: --start).",
)
@whole_option(
    "--threads", default=SupervisedSettings.threads, help="supervised: threads that compute the labels."
)
@whole_option(
    "--candidates",
    least=0,
    default=SupervisedSettings.candidates,
    help="supervised: also label the results of this many best plays of one random roll of each position.",
)
@click.option(
    "--rollout",
    type=(click.IntRange(min=1), click.IntRange(min=1)),
    default=None,
    metavar="TRIALS STEPS",
    help="supervised: label by variance-reduced rollouts of TRIALS trials of STEPS rolls instead of --depth.",
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
    depth: int,
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
    writable_file(out)
    from taldau.games.backgammon.engine.own import OwnEvaluator
    from taldau.games.backgammon.training.pruning import run_pruning
    from taldau.games.backgammon.training.supervised import run_supervised

    threads = within_ceiling(threads, "--threads", what="threads")
    if stage == "td":
        _self_play(out, games, seed, stop_at)
        return
    try:
        evaluator = OwnEvaluator.load(Path(start_from)) if start_from else OwnEvaluator.load()
        labeller = OwnEvaluator.load(Path(teacher)) if teacher else evaluator
    except ValueError as error:
        raise click.ClickException(str(error)) from None
    base = PRUNE_POSITIONS if stage == "prune" else SupervisedSettings()
    settings = replace(
        base,
        selfplay_games=base.selfplay_games if games is None else games,
        matches=matches,
        max_positions=base.max_positions if positions is None else positions,
        label_plies=0 if stage == "prune" else depth,
        epochs=base.epochs if epochs is None else epochs,
        rate=base.rate if rate is None else rate,
        seed=seed,
        threads=threads,
        candidates=candidates,
        rollout_trials=base.rollout_trials if rollout is None else rollout[0],
        rollout_steps=base.rollout_steps if rollout is None else rollout[1],
    )
    if stage == "prune":
        history = _staged(
            "pruning", lambda shown: run_pruning(evaluator, PruningSettings(settings), Path(out), shown)
        )
        click.echo(f"wrote {out}: pruning nets' held-out error {history[0][1]:.5f} -> {history[-1][1]:.5f}")
        return
    history = _staged(
        "supervised",
        lambda shown: run_supervised(evaluator, settings, Path(out), Path(out + ".work"), shown, labeller),
    )
    click.echo(f"wrote {out}: held-out error {history[0][1]:.5f} -> {history[-1][1]:.5f}")


def _staged(label: str, run: Callable[[Callable[[Any], None]], Any]) -> Any:
    """What ``run`` returns, given the progress of its stages (``supervised.Stage``: step, done of total,
    note) to show under ``label``."""
    with progress_line(label, "") as shown:
        return run(lambda s: shown.update(s.done, s.total, s.note, unit=s.step, plural=s.step))


def _self_play(out: str, games: int | None, seed: int, stop_at: int | None) -> None:
    """``train --stage td``: ``games`` games of self-play (resumed from ``out``), stopped at ``stop_at``."""
    from taldau.games.backgammon.training.train import TdSettings, run_td

    settings = TdSettings(seed=seed) if games is None else TdSettings(games=games, seed=seed)
    with progress_line("self-play", "game", settings.games) as shown:
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
