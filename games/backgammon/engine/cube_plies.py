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
from dataclasses import dataclass, replace

import numpy as np

from ..rules import board as core
from ..rules.board import ROLL_COUNTS, ROLL_DICE
from ..rules.cube import MatchState
from ..rules.met import MatchEquityTable
from ..rules.position import PlayBuffers, Position
from . import Evaluator
from .analyse import after_plays, exact_probabilities
from .cubeful import (
    CubeDecision,
    before_offer,
    cube_efficiency,
    cubeful_values,
    decide,
    emg_to_mwc,
    may_double,
    mwc_to_emg,
)
from .probabilities import equities, flipped

PLAY_CHOICES = 10  # the plays of a roll judged cubeful at 0-ply, as gnubg's PRUNE_MOVES
PLAY_MARGIN = 0.08  # ... of those, the ones within this cubeless equity of the best

Spots = Sequence[MatchState | None]


def after_play_equity(
    probabilities: np.ndarray, result: np.ndarray, state: MatchState, player: int, table: MatchEquityTable
) -> float:
    """Cubeful EMG of ``player`` after his play at 0-ply: ``probabilities`` his cubeless ones, ``result`` the
    board left with the opponent on roll (row MOVER), the cube as ``state`` (before any offer) has it. The
    opponent then takes his best cube action: the play is worth minus his cubeful equity with No double,
    or with a double (take or pass) when that is better for him, as gnubg values it."""
    value = float(_after_plays(np.asarray(probabilities)[np.newaxis], [result], state, player, table)[0])
    return value if state.rules.money else mwc_to_emg(value, state, player, table)


def after_play_equities(
    probabilities: np.ndarray,
    results: Sequence[np.ndarray],
    state: MatchState,
    player: int,
    table: MatchEquityTable,
) -> np.ndarray:
    """``after_play_equity`` of many plays at once, the same numbers: row k of ``probabilities`` (n, 5) and
    board k of ``results`` are one play's."""
    rows = np.asarray(probabilities, dtype=np.float64).reshape(-1, 5)
    if len(rows) == 0:
        return np.empty(0, dtype=np.float64)
    values = _after_plays(rows, results, state, player, table)
    if state.rules.money:
        return values
    return np.array([mwc_to_emg(value, state, player, table) for value in values.tolist()], dtype=np.float64)


def _after_plays(
    probabilities: np.ndarray,
    results: Sequence[np.ndarray],
    moving: MatchState,
    mover: int,
    table: MatchEquityTable,
) -> np.ndarray:
    """``after_play_equity`` of each play (row of ``probabilities``, board of ``results``) as the look-ahead
    keeps values: money per unit of the cube, match MWC."""
    opponent = 1 - mover
    view = flipped(np.ascontiguousarray(probabilities, dtype=np.float64))
    efficiency = np.array([cube_efficiency(result) for result in results], dtype=np.float64)
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
    probabilities, (no_double, double_take) = _look_ahead(
        evaluator, position, (state, _doubled(state, roller)), plies, state, table
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


@dataclass
class _Level:
    """The nodes of one level of the look-ahead, all with the same player on roll (``roller``) and the same
    cube positions (``spots``, None: one that cannot arise; ``expanded``: each followed by the cube after
    the roller doubles, None where he may not): their boards (row MOVER the roller), the cubeless
    probabilities where known (leaves) and, once worked out, the roller's values in each spot (NaN for
    None)."""

    roller: int
    spots: Spots
    expanded: Spots
    boards: np.ndarray  # (nodes, 2, 25)
    probabilities: np.ndarray  # (nodes, 5)
    leaf: np.ndarray  # (nodes,) bool
    values: np.ndarray | None = None  # (nodes, len(spots))


def _look_ahead(
    evaluator: Evaluator,
    position: Position,
    spots: Spots,
    plies: int,
    moving: MatchState,
    table: MatchEquityTable,
) -> tuple[np.ndarray, list[float | None]]:
    """The roller's cubeless probabilities and his value in each cube position of ``spots`` (None: a cube
    position that cannot arise) at the root ``position``, ``plies`` ahead (see the module); ``moving``: the
    cube as it stands, by which plays are chosen. The tree is walked a level at a time: every play of every
    roll of every node of a level is evaluated in one call, and the cube arithmetic of a level is done on
    arrays."""
    board = np.ascontiguousarray(position.board)
    exact = exact_probabilities(board)
    root = _Level(
        roller=position.turn,
        spots=spots,
        expanded=[
            value for spot in spots for value in (spot, None)
        ],  # the root's cube action is the caller's
        boards=board[np.newaxis],
        probabilities=np.zeros((1, 5)),
        leaf=np.array([exact is not None or plies == 0]),
    )
    if exact is not None:
        root.probabilities[0] = exact
    elif plies == 0:
        root.probabilities[0] = evaluator.evaluate(board[np.newaxis], 0)[0]
    levels = [root]
    parents: list[np.ndarray] = []  # for each level below the root: the rows of the level above expanded
    while not levels[-1].leaf.all():
        level = levels[-1]
        rows = np.flatnonzero(~level.leaf)
        parents.append(rows)
        levels.append(_children(evaluator, level, rows, moving, table, plies - len(levels)))
    for depth in range(len(levels) - 1, -1, -1):
        level = levels[depth]
        values = np.full((len(level.leaf), 2 * len(level.spots)), np.nan)
        leaves = np.flatnonzero(level.leaf)
        if len(leaves):
            efficiency = np.array([cube_efficiency(b) for b in level.boards[leaves]], dtype=np.float64)
            for index, spot in enumerate(level.expanded):
                value = _leaf(level.probabilities[leaves], spot, level.roller, efficiency, table)
                if value is not None:
                    values[leaves, index] = value
        if depth + 1 < len(levels):
            rows = parents[depth]
            below = levels[depth + 1]
            assert below.values is not None
            # the children of each expanded node, a roll apiece in ROLL_DICE order
            child_values = below.values.reshape(len(rows), len(ROLL_COUNTS), -1)
            child_probabilities = flipped(below.probabilities).reshape(len(rows), len(ROLL_COUNTS), 5)
            mine = -child_values if moving.rules.money else 1.0 - child_values
            sums = np.zeros((len(rows), child_values.shape[2]))
            probabilities = np.zeros((len(rows), 5))
            for roll, weight in enumerate(ROLL_COUNTS.tolist()):
                probabilities += weight * child_probabilities[:, roll]
                sums += weight * mine[:, roll]
            level.probabilities[rows] = probabilities / 36.0
            values[rows] = sums / 36.0
        level.values = np.full((len(level.leaf), len(level.spots)), np.nan)
        for index, spot in enumerate(level.spots):
            best = _best_action(
                None if spot is None else values[:, 2 * index],
                None if level.expanded[2 * index + 1] is None else values[:, 2 * index + 1],
                spot,
                level.roller,
                table,
            )
            if best is not None:
                level.values[:, index] = best
    assert root.values is not None
    values = [None if spot is None else float(root.values[0, index]) for index, spot in enumerate(spots)]
    return root.probabilities[0], values


def _children(
    evaluator: Evaluator,
    level: _Level,
    rows: np.ndarray,
    moving: MatchState,
    table: MatchEquityTable,
    plies: int,
) -> _Level:
    """The level below ``level``: for each node at ``rows`` and each of the 21 rolls (in ``ROLL_DICE``
    order), the position after the roller's best play of the roll (``_best_plays``), ``plies`` ahead of
    it; every play evaluated at 0-ply in one call."""
    roller = level.roller
    buffers = PlayBuffers()
    results = []
    for board in level.boards[rows]:
        for high, low in ROLL_DICE.tolist():
            count = core.generate_plays(board, high, low, core.KEY_WORDS, *buffers.arrays())
            results.append(buffers.boards[:count].copy())
    counts = np.array([len(plays) for plays in results])
    boards = np.concatenate(results)
    probabilities = after_plays(evaluator, boards, 0)
    chosen = _best_plays(probabilities, boards, counts, moving, roller, table)
    children = np.ascontiguousarray(boards[chosen, ::-1])
    known = flipped(probabilities[chosen])
    leaf = np.full(len(chosen), plies == 0)
    for index, child in enumerate(children):
        exact = exact_probabilities(child)
        if exact is not None:
            known[index] = exact
            leaf[index] = True
    opponent = 1 - roller
    expanded = []
    for spot in level.expanded:
        expanded.append(spot)
        can = spot is not None and may_double(spot, opponent)
        expanded.append(_doubled(spot, opponent) if can else None)
    return _Level(opponent, level.expanded, expanded, children, known, leaf)


def _best_plays(
    probabilities: np.ndarray,
    boards: np.ndarray,
    counts: np.ndarray,
    moving: MatchState,
    mover: int,
    table: MatchEquityTable,
) -> np.ndarray:
    """For each roll (its plays in consecutive runs of ``counts`` rows of ``probabilities`` and ``boards``,
    the mover's side), the row of its best play: ranked by cubeless 0-ply equity (ties in the generator's
    order), the best by its cubeful 0-ply value with the cube as ``moving`` has it, the opponent then
    taking his best cube action, among the first ``PLAY_CHOICES`` within ``PLAY_MARGIN`` of the first; the
    first on ties."""
    equity = equities(probabilities)
    roll = np.repeat(np.arange(len(counts)), counts)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    order = np.lexsort((np.arange(len(equity)), -equity, roll))  # each roll's plays, best first
    first = order[starts]
    place = np.arange(len(order)) - starts[roll]  # the rank of each play of ``order`` within its roll
    candidate = (place < PLAY_CHOICES) & (equity[order] >= equity[first][roll] - PLAY_MARGIN)
    choices = np.bincount(roll, weights=candidate, minlength=len(counts))
    chosen = first.copy()
    judged = candidate & (choices[roll] > 1)
    if judged.any():
        plays = order[judged]
        results = np.ascontiguousarray(boards[plays, ::-1])  # as the plays leave them, the opponent on roll
        values = _after_plays(probabilities[plays], results, moving, mover, table)
        rolls = roll[judged]
        # the first play with its roll's best value, in rank order
        top = np.full(len(counts), -np.inf)
        np.maximum.at(top, rolls, values)
        best = np.flatnonzero(values == top[rolls])
        taken, at = np.unique(rolls[best], return_index=True)
        chosen[taken] = plays[best[at]]
    return chosen


def _best_action(
    no_double: np.ndarray | None,
    doubled: np.ndarray | None,
    spot: MatchState | None,
    roller: int,
    table: MatchEquityTable,
) -> np.ndarray | None:
    """The roller's values in cube position ``spot`` with his best cube action (gnubg's ``GetECF3``): No
    double, or where he may double (``doubled``, his values after a take, not None) the smaller of
    Double/take and Double/pass when both are at least No double."""
    if spot is None or doubled is None or no_double is None:
        return no_double
    double_take = 2.0 * doubled if spot.rules.money else doubled
    double_pass = 1.0 if spot.rules.money else emg_to_mwc(1.0, spot, roller, table)
    doubles = (double_take >= no_double) & (double_pass >= no_double)
    return np.where(doubles, np.minimum(double_take, double_pass), no_double)


def _leaf(
    probabilities: np.ndarray,
    spot: MatchState | None,
    roller: int,
    efficiency: np.ndarray,
    table: MatchEquityTable,
) -> np.ndarray | None:
    """The roller's 0-ply cubeful values in cube position ``spot`` of each row of ``probabilities`` (money
    per unit of its cube, match MWC); None where ``spot`` is."""
    if spot is None:
        return None
    return cubeful_values(probabilities, spot, roller, efficiency, table)
