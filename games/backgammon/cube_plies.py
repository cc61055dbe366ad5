"""Cube decisions at the review's plies, as gnubg makes them: a cubeful look-ahead, not the 0-ply cube
formula applied to deeper cubeless probabilities.

Words: the *roller* is the player on roll, before his roll, who may double; a *cube position* is the cube
as it stands for him (a ``MatchState`` and whose turn it is); *cubeful* values count what the cube is worth
(see ``cubeful``). ``ND``, ``DT`` and ``DP`` are the roller's values after No double, Double/take and
Double/pass.

Method (gnubg's ``EvaluatePositionCubeful4``, ``MakeCubePos`` and ``GetECF3`` in ``eval.c``): at ``plies``
> 0 the value of each cube position is the average, over the 21 rolls weighted by how many of the 36 they
stand for, of minus the opponent's value after the roller's best play of the roll, that value taken at
``plies - 1``. At 0-ply it is Janowski's interpolation (``cubeful``) on the evaluator's raw probabilities.
Below the root, each player on roll takes his best cube action at every node: where he may double, his
value is ND, or the smaller of DT and DP when both are at least ND (gnubg's ``GetECF3``); so each level
follows every cube position the players could reach (at 2 plies: 2 at the root, 4, then 8 at the
leaves). The best play of each roll is the one with the best cubeful 0-ply value with the cube as it stands,
after the opponent's best cube action (gnubg's ``FindBestMoveInEval``), chosen among the ``PLAY_CHOICES``
best by cubeless 0-ply equity (gnubg sorts by its pruning nets and keeps 10). The cubeless probabilities
are averaged over the same tree, so that they belong to the same look-ahead as the cubeful values.

Values are kept as gnubg keeps them: in money play per unit of the cube position's own cube (a doubled
cube's values count twice at the level above), in a match as the roller's match winning chance (MWC).

Where it differs from gnubg: positions where both sides are bearing off are valued by Janowski's formula
on the bear-off database's probabilities, where gnubg's money play uses its exact cubeful bear-off
equities.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from .board import ROLL_COUNTS, ROLL_DICE
from .cube import MatchState
from .cubeful import (
    CubeDecision,
    before_offer,
    cube_efficiency,
    cubeful_equity,
    cubeful_mwc,
    decide,
    emg_to_mwc,
    may_double,
    mwc_to_emg,
)
from .engine import Analysis, Limit, analyse, exact_probabilities
from .eval import Evaluator
from .eval.probabilities import flipped
from .met import MatchEquityTable
from .position import Position

PLAY_CHOICES = 10  # the plays of a roll judged cubeful at 0-ply, as gnubg's PRUNE_MOVES
PLAY_MARGIN = 0.08  # ... of those, the ones within this cubeless equity of the best


def after_play_equity(
    probabilities: np.ndarray, result: np.ndarray, state: MatchState, player: int, table: MatchEquityTable
) -> float:
    """Cubeful EMG of ``player`` after his play at 0-ply: ``probabilities`` his cubeless ones, ``result`` the
    board left with the opponent on roll (row MOVER), the cube as ``state`` (before any offer) has it. The
    opponent then takes his best cube action: the play is worth minus his cubeful equity with No double,
    or with a double (take or pass) when that is better for him, as gnubg values it."""
    value = _after_play(probabilities, result, state, player, table)
    return value if state.rules.money else mwc_to_emg(value, state, player, table)


def _after_play(
    probabilities: np.ndarray, result: np.ndarray, moving: MatchState, mover: int, table: MatchEquityTable
) -> float:
    """``after_play_equity`` as the look-ahead keeps values: money per unit of the cube, match MWC."""
    opponent = 1 - mover
    view = flipped(probabilities[np.newaxis])[0]
    efficiency = cube_efficiency(result)
    doubled = _doubled(moving, opponent) if may_double(moving, opponent) else None
    theirs = _best_action(
        _leaf(view, moving, opponent, efficiency, table),
        _leaf(view, doubled, opponent, efficiency, table),
        moving,
        opponent,
        table,
    )
    assert theirs is not None
    return -theirs if moving.rules.money else 1.0 - theirs


def plied_cube_decision(
    evaluator: Evaluator, position: Position, state: MatchState, plies: int, table: MatchEquityTable
) -> tuple[tuple[float, ...], CubeDecision]:
    """The cube decision of the player on roll in ``position`` with the cube as ``state`` has it (before any
    offer), looked at ``plies`` ahead as gnubg does (see the module): his cubeless probabilities over the
    same look-ahead and the decision (``cubeful.CubeDecision``, its values in EMG)."""
    state = before_offer(state)
    roller = position.turn
    probabilities, (no_double, double_take) = _node(
        evaluator, position, (state, _doubled(state, roller)), plies, True, state, table, None
    )
    assert no_double is not None and double_take is not None
    plain = tuple(float(p) for p in probabilities)
    if state.rules.money:
        return plain, decide((no_double, 2.0 * double_take, 1.0), None, state, roller, table)
    cash = emg_to_mwc(1.0, state, roller, table)
    return plain, decide(None, (no_double, double_take, cash), state, roller, table)


def _doubled(state: MatchState, roller: int) -> MatchState:
    """The cube after ``roller`` doubles and the opponent takes, whether or not the rules let him double
    now: where he may not, Double/take is still valued, as the 0-ply formula values it."""
    return replace(state, cube=2 * state.cube, cube_owner=1 - roller, offered_by=None)


def _node(
    evaluator: Evaluator,
    position: Position,
    spots: Sequence[MatchState | None],
    plies: int,
    top: bool,
    moving: MatchState,
    table: MatchEquityTable,
    known: np.ndarray | None,
) -> tuple[np.ndarray, list[float | None]]:
    """The roller's cubeless probabilities and his value in each cube position of ``spots`` (None: a cube
    position that cannot arise), ``plies`` ahead; ``top``: the root, where the roller's own cube action is
    the caller's to decide; ``moving``: the cube as it stands, by which plays are chosen; ``known``: the
    position's 0-ply probabilities when the caller has them."""
    roller = position.turn
    expanded: list[MatchState | None] = []
    for spot in spots:
        expanded.append(spot)
        can = spot is not None and not top and may_double(spot, roller)
        expanded.append(_doubled(spot, roller) if can else None)
    exact = exact_probabilities(position.board)
    if exact is not None or plies == 0:
        if exact is not None:
            probabilities = exact
        elif known is not None:
            probabilities = known
        else:
            probabilities = evaluator.evaluate(position.board[np.newaxis], 0)[0]
        efficiency = cube_efficiency(position.board)
        raw = [_leaf(probabilities, spot, roller, efficiency, table) for spot in expanded]
    else:
        probabilities = np.zeros(5)
        sums = np.zeros(len(expanded))
        for dice, weight in zip(ROLL_DICE, ROLL_COUNTS, strict=True):
            analysis = analyse(evaluator, position, tuple(dice), Limit(0))
            rank = _best_play(analysis, moving, roller, table)
            child = analysis.play(rank).play.result
            below = flipped(analysis.probabilities[rank][np.newaxis])[0]
            child_probabilities, child_values = _node(
                evaluator, child, expanded, plies - 1, False, moving, table, below
            )
            probabilities += weight * flipped(child_probabilities[np.newaxis])[0]
            for index, value in enumerate(child_values):
                if value is not None:
                    sums[index] += weight * (-value if moving.rules.money else 1.0 - value)
        probabilities /= 36.0
        raw = [None if spot is None else float(sums[index] / 36.0) for index, spot in enumerate(expanded)]
    values = [
        _best_action(raw[2 * index], raw[2 * index + 1], spot, roller, table)
        for index, spot in enumerate(spots)
    ]
    return probabilities, values


def _best_action(
    no_double: float | None,
    doubled: float | None,
    spot: MatchState | None,
    roller: int,
    table: MatchEquityTable,
) -> float | None:
    """The roller's value in cube position ``spot`` with his best cube action (gnubg's ``GetECF3``): No
    double, or where he may double (``doubled``, his value after a take, not None) the smaller of
    Double/take and Double/pass when both are at least No double."""
    if spot is None or doubled is None or no_double is None:
        return no_double
    double_take = 2.0 * doubled if spot.rules.money else doubled
    double_pass = 1.0 if spot.rules.money else emg_to_mwc(1.0, spot, roller, table)
    if double_take >= no_double and double_pass >= no_double:
        return min(double_take, double_pass)
    return no_double


def _leaf(
    probabilities: np.ndarray,
    spot: MatchState | None,
    roller: int,
    efficiency: float,
    table: MatchEquityTable,
) -> float | None:
    """The roller's 0-ply cubeful value in cube position ``spot``: money per unit of its cube, match MWC."""
    if spot is None:
        return None
    if spot.rules.money:
        return cubeful_equity(probabilities, spot, roller, efficiency, table)
    return cubeful_mwc(probabilities, spot, roller, efficiency, table)


def _best_play(analysis: Analysis, moving: MatchState, mover: int, table: MatchEquityTable) -> int:
    """The rank of the best play of ``analysis`` (ranked by cubeless 0-ply equity) by its cubeful 0-ply value
    with the cube as ``moving`` has it, the opponent then taking his best cube action, among the first
    ``PLAY_CHOICES`` within ``PLAY_MARGIN`` of the first; the first on ties."""
    equities = analysis.equities
    count = int(np.count_nonzero(equities[:PLAY_CHOICES] >= equities[0] - PLAY_MARGIN))
    if count <= 1:
        return 0
    values = [
        _after_play(analysis.probabilities[rank], analysis.play(rank).play.result.board, moving, mover, table)
        for rank in range(count)
    ]
    return int(np.argmax(values))
