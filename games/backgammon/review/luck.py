"""The luck of a roll, as gnubg measures it: how much better (or worse) a roll leaves the player who rolled
it than the average roll would have, each roll valued by its best play.

Words for readers who do not know the game: before each turn the player on roll throws two dice; the 36
throws fall into 21 *rolls* (a double such as 6-6 is one throw in 36, a non-double such as 6-5 two). The
*luck* of a roll is the value of the position after the roll's best play minus the average of that value
over the 21 rolls, weighted by the throws they stand for (gnubg's ``LuckNormal``). The game's opening roll
is special: ties are thrown again, so it is one of the 15 non-doubles, and either player may be the one
who moves with it; its luck averages over those 30 cases (gnubg's ``LuckFirst``).

Over the rolls of one position the luck averages to exactly zero, whatever evaluator values the plays.
That is what makes it a *control variate*: a game's result minus the luck of its rolls has the same
expectation as the result, with much less spread when the evaluator is good (``match`` reports both).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import StrEnum
from itertools import pairwise

import numpy as np

from ..engine import Evaluator
from ..engine.analyse import after_plays
from ..engine.probabilities import equities
from ..rules.board import ROLL_COUNTS
from ..rules.position import ROLLS, Dice, Position


class LuckMark(StrEnum):
    """How lucky a roll was for the player who rolled it, as a short glyph. gnubg marks rolls with words
    (very lucky, lucky, unlucky, very unlucky: above +0.6 / +0.3, below -0.3 / -0.6 EMG of luck) and its
    SGF with ``GB``/``GW`` ("good for Black/White") of 1 or 2; XG with words as well: neither prints a glyph,
    so these are taldau's."""

    VERY_LUCKY = "++"
    LUCKY = "+"
    UNLUCKY = "-"
    VERY_UNLUCKY = "--"


RollValues = Callable[[Position, Sequence[Dice]], np.ndarray]
"""For a position and rolls, the value of each roll's best play for the player on roll."""

OPENING_ROLLS: tuple[Dice, ...] = tuple(roll for roll in ROLLS if roll[0] != roll[1])


def roll_luck(values: RollValues, position: Position, dice: Sequence[int], opening: bool) -> float:
    """The luck of rolling ``dice`` in ``position`` for the player on roll, by ``values``: the roll's value
    minus the average over the rolls (``LuckNormal``); for the game's ``opening`` roll, minus the average
    over the 15 non-doubles moved by either player (``LuckFirst``)."""
    high, low = max(dice), min(dice)
    if opening:
        mine = values(position, OPENING_ROLLS)
        theirs = values(position.swapped(), OPENING_ROLLS)
        mean = (mine.sum() - theirs.sum()) / (2 * len(OPENING_ROLLS))
        return float(mine[OPENING_ROLLS.index((high, low))] - mean)
    every = values(position, ROLLS)
    return float(every[ROLLS.index((high, low))] - float(every @ ROLL_COUNTS) / 36.0)


def best_plays(
    evaluator: Evaluator,
    position: Position,
    rolls: Sequence[Dice],
    plies: int,
    utility: Callable[[np.ndarray], np.ndarray],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every play of every roll of ``rolls`` in ``position``, evaluated by ``evaluator`` at ``plies`` in one
    call: the boards the plays leave (mover in row MOVER), their probabilities from the mover's side, and
    for each roll the index of its best play by ``utility`` of those probabilities (the first of equal)."""
    results = []
    for roll in rolls:
        buffers, count = position._generate(roll)
        results.append(buffers.boards[:count].copy())
    boards = np.concatenate(results)
    probabilities = after_plays(evaluator, boards, plies)
    value = utility(probabilities)
    bounds = np.cumsum([0] + [len(plays) for plays in results])
    best = np.array([start + int(np.argmax(value[start:stop])) for start, stop in pairwise(bounds)])
    return boards, probabilities, best


def cubeless_roll_values(evaluator: Evaluator, plies: int = 0) -> RollValues:
    """``RollValues`` in cubeless equity: each roll's best play picked and valued by ``evaluator`` at
    ``plies`` (``best_plays``)."""

    def values(position: Position, rolls: Sequence[Dice]) -> np.ndarray:
        _, probabilities, best = best_plays(evaluator, position, rolls, plies, equities)
        return equities(probabilities[best])

    return values
