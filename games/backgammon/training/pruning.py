"""The pruning stage: small nets over the point units alone, fitted to the full nets' own 0-ply values,
that sort the plays of a roll inside the deeper plies so that the full nets judge only the best few
(see ``plies``). gnubg prunes the same way; the pruning nets change which play is picked only when their
order and the full nets' order disagree beyond the ``PRUNED_PLAYS`` kept.

They learn the positions they will sort: for positions before a roll (from self-play and real matches,
as the supervised stage gathers them), every play of one random roll, seen from the side then on roll,
labelled by the full nets at 0-ply. Finished games and bear-offs are left out: both are answered exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
from taldau.base.jit import njit

from ..engine.inputs import POINT_INPUTS
from ..engine.model import NetPair
from ..engine.net import Net
from ..engine.own import OwnEvaluator
from ..engine.weights import save_nets
from ..rules.board import KEY_WORDS, generate_plays, play_buffers, swap_into
from .supervised import Stage, SupervisedSettings, fit, live, training_positions


@dataclass(frozen=True)
class PruningSettings:
    """Positions before a roll as the supervised stage gathers them (``positions``: its games, matches,
    count and seed, and the fit's epochs, rate and held-out share), each giving every play of one random
    roll; nets of ``contact_hidden`` and ``race_hidden`` units."""

    positions: SupervisedSettings = field(
        default_factory=lambda: SupervisedSettings(max_positions=40_000, label_plies=0, epochs=8)
    )
    contact_hidden: int = 16
    race_hidden: int = 8


@njit(cache=True)
def _results_of_rolls(boards: np.ndarray, seed: int, words: np.ndarray, out: np.ndarray) -> int:
    """Every play of one random roll (seeded) of each of ``boards``, its result seen from the side then
    on roll, into ``out`` while there is room; returns how many were written."""
    np.random.seed(seed)
    results, moves, lengths, keys, slots, table = play_buffers()
    written = 0
    for index in range(boards.shape[0]):
        die1 = np.random.randint(1, 7)
        die2 = np.random.randint(1, 7)
        count = generate_plays(boards[index], die1, die2, words, results, moves, lengths, keys, slots, table)
        for play in range(count):
            if written == out.shape[0]:
                return written
            swap_into(results[play], out[written])
            written += 1
    return written


def pruning_positions(evaluator: OwnEvaluator, settings: PruningSettings) -> np.ndarray:
    """The distinct live, non-bear-off results of every play of one roll of the gathered positions."""
    before = training_positions(evaluator.nets, settings.positions)
    out = np.empty((len(before) * 40, 2, 25), dtype=np.int8)
    written = _results_of_rolls(before, settings.positions.seed, KEY_WORDS, out)
    return np.ascontiguousarray(np.unique(live(out[:written]), axis=0))


def run_pruning(
    evaluator: OwnEvaluator,
    settings: PruningSettings,
    out: Path,
    progress: Callable[[Stage], None] = lambda _: None,
) -> list[tuple[float, float]]:
    """Fit pruning nets to ``evaluator``'s full nets and write both to ``out``, the evaluator's meta kept
    and the pruning stage's settings and error history added. Returns that history."""
    boards = pruning_positions(evaluator, settings)
    progress(Stage("label", len(boards), len(boards), "0-ply of the full nets"))
    labels = OwnEvaluator(evaluator.nets, None).evaluate(boards, 0)
    seed = settings.positions.seed
    start = NetPair(
        Net.random(settings.contact_hidden, seed, POINT_INPUTS),
        Net.random(settings.race_hidden, seed + 1, POINT_INPUTS),
    )
    pruning, history = fit(start, boards, labels, settings.positions, progress)
    meta = {
        **evaluator.meta,
        "pruning": {"settings": asdict(settings), "positions": len(boards), "errors": history},
    }
    save_nets(out, evaluator.nets, meta, pruning)
    return history
