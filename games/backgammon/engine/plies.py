"""gnubg's plies over our own evaluation, compiled: 0-ply is the raw evaluation (the bear-off database when
both sides are bearing off, else the contact or race net); n-ply averages, over the 21 rolls weighted by how
many of the 36 they stand for, the position after the best play of the roll chosen at 0-ply and evaluated at
(n - 1)-ply. That is how gnubg defines its plies, so figures can be compared with its own.

Choosing a play at 0-ply inside a deeper ply is most of the work. As gnubg does, a *pruning* pair of
small nets over the point units alone (see ``inputs``) first sorts every play of a roll, and only the
``PRUNED_PLAYS`` best of them (or all, when there are no more) are judged by the full nets; the play
chosen is the best of those by the full nets. Without pruning nets every play is judged by the full nets.

The *model* the kernels take is one tuple: the nets' arrays (``NetPair.arrays()``: the contact net's
four, the race net's four), the bear-off database's two (``off``, ``first``; give arrays of length 0
to let the race net answer bear-offs too, as self-play training does) and the pruning nets' arrays (the
same eight; a ``w1`` of no rows turns pruning off). The *work* tuple is scratch memory
made by ``work_memory``, one set of play buffers per ply of look-ahead, so nothing is allocated per
position.
"""

from __future__ import annotations

import numpy as np
from taldau.base.jit import njit, prange

from ..rules.board import KEY_WORDS, MAX_PLAYS, ROLL_COUNTS, ROLL_DICE, TABLE_SIZE, generate_plays, swap_into
from .bearoff import bearoff_probabilities, is_bearoff
from .inputs import FEATURES, MAX_NONZERO
from .model import RACE, evaluate_nets, position_class, sanitise
from .net import SCRATCH_PER_UNIT, forward_points, forward_points_after, point_sums
from .probabilities import equity, final_probabilities, flip_into

MAX_PLIES = 3
PRUNED_PLAYS = 5  # the plays of a roll the full nets judge after the pruning nets have sorted them


def work_memory(hidden: int) -> tuple[np.ndarray, ...]:
    """Scratch for the kernels with nets of at most ``hidden`` units and up to MAX_PLIES of look-ahead."""
    return _work_memory(hidden, KEY_WORDS)


@njit(cache=True)
def _work_memory(hidden: int, words: np.ndarray) -> tuple:
    """``work_memory``, made inside compiled code (one per thread of ``evaluate_many_threads``)."""
    levels = MAX_PLIES
    return (
        np.empty(MAX_NONZERO, dtype=np.int64),
        np.empty(MAX_NONZERO, dtype=np.float32),
        np.empty(FEATURES, dtype=np.float32),
        np.empty(SCRATCH_PER_UNIT * hidden, dtype=np.float32),
        np.empty((levels, MAX_PLAYS, 2, 25), dtype=np.int8),
        np.empty((levels, MAX_PLAYS, 4, 2), dtype=np.int8),
        np.empty((levels, MAX_PLAYS), dtype=np.int8),
        np.empty((levels, MAX_PLAYS), dtype=np.uint64),
        np.empty((levels, MAX_PLAYS), dtype=np.int64),
        np.full(TABLE_SIZE, -1, dtype=np.int64),
        np.empty((levels + 1, 2, 25), dtype=np.int8),
        np.empty((levels + 1, 5), dtype=np.float64),
        words,
        np.empty((levels, MAX_PLAYS), dtype=np.float64),
        np.empty((levels, MAX_PLAYS), dtype=np.bool_),
        np.empty((2, 25), dtype=np.int8),
        np.empty(hidden, dtype=np.float32),
    )


@njit(cache=True, inline="always")
def evaluate0(board: np.ndarray, model: tuple, work: tuple, out: np.ndarray) -> None:
    """The 0-ply probabilities of ``board`` (side on roll in row MOVER) into ``out``: exact when the game
    is over or both sides are bearing off and the model has the database, else the nets'."""
    if final_probabilities(board, out):
        return
    off = model[1]
    if off.shape[0] > 0 and is_bearoff(board):
        bearoff_probabilities(board, off, model[2], out)
        return
    evaluate_nets(board, model[0], work[0], work[1], work[2], work[3], out)


@njit(cache=True, inline="always")
def _prune(board: np.ndarray, boards: np.ndarray, count: int, level: int, model: tuple, work: tuple) -> None:
    """Mark in ``work[14][level]`` the plays the full nets will judge: the PRUNED_PLAYS best of the
    ``count`` result ``boards`` of plays from ``board`` by the pruning nets (the first of equal ones), or
    all of them. Finished games and bear-offs are valued exactly, as ``evaluate0`` does. The pruning nets
    are called here directly rather than through ``evaluate_nets``, which takes the whole model and costs
    twice as much per play at this net size, and each play of the class of ``board`` is valued from the
    hidden sums of ``board`` itself, changing only the places the play changed (gnubg's way)."""
    kept = work[14][level]
    pruning = model[3]
    if pruning[0].shape[0] == 0 or count <= PRUNED_PLAYS:
        kept[:count] = True
        return
    scores = work[13][level]
    candidate = work[10][level]
    probabilities = work[11][level]
    mine = work[11][level + 1]
    hidden = work[3]
    base = work[15]
    base_sums = work[16]
    moves = work[5][level]
    lengths = work[6][level]
    swap_into(board, base)  # seen by the side that rolls next, as the candidates are
    base_race = position_class(base) == RACE
    if base_race:
        point_sums(base, pruning[4], pruning[5], base_sums)
    else:
        point_sums(base, pruning[0], pruning[1], base_sums)
    for play in range(count):
        kept[play] = False
        swap_into(boards[play], candidate)
        if final_probabilities(candidate, probabilities):
            pass
        elif model[1].shape[0] > 0 and is_bearoff(candidate):
            bearoff_probabilities(candidate, model[1], model[2], probabilities)
        else:
            race = position_class(candidate) == RACE
            if race:
                w1, b1, w2, b2 = pruning[4], pruning[5], pruning[6], pruning[7]
            else:
                w1, b1, w2, b2 = pruning[0], pruning[1], pruning[2], pruning[3]
            if race == base_race:
                forward_points_after(
                    candidate, base, base_sums, moves[play], lengths[play], w1, w2, b2, hidden, probabilities
                )
            else:  # the play broke the last contact: the race net from scratch
                forward_points(candidate, w1, b1, w2, b2, hidden, probabilities)
            sanitise(candidate, race, probabilities)
        flip_into(probabilities, mine)
        scores[play] = equity(mine)
    for _ in range(PRUNED_PLAYS):
        next_best(scores, kept, count)


@njit(cache=True, inline="always")
def next_best(scores: np.ndarray, kept: np.ndarray, count: int) -> int:
    """The play of the first ``count`` with the highest score not yet ``kept`` (the first of equal ones),
    marked kept and returned; -1 when every one is kept."""
    best = -1
    for play in range(count):
        if not kept[play] and (best < 0 or scores[play] > scores[best]):
            best = play
    if best >= 0:
        kept[best] = True
    return best


@njit(cache=True)
def best_reply(
    board: np.ndarray,
    die1: int,
    die2: int,
    level: int,
    model: tuple,
    work: tuple,
    chosen: np.ndarray,
    out: np.ndarray,
) -> None:
    """The play of ``die1``-``die2`` the side on roll in ``board`` picks at 0-ply: its result, seen by the
    other side (who is then on roll), into ``chosen``, and that result's 0-ply probabilities from the other
    side's point of view into ``out``. Ties keep the first play generated (deterministic)."""
    boards = work[4][level]
    count = generate_plays(
        board,
        die1,
        die2,
        work[12],
        boards,
        work[5][level],
        work[6][level],
        work[7][level],
        work[8][level],
        work[9],
    )
    _prune(board, boards, count, level, model, work)
    kept = work[14][level]
    candidate = work[10][level]
    probabilities = work[11][level]
    mine = work[11][level + 1]
    best_equity = -10.0
    for play in range(count):
        if not kept[play]:
            continue
        swap_into(boards[play], candidate)
        evaluate0(candidate, model, work, probabilities)
        flip_into(probabilities, mine)
        value = equity(mine)
        if value > best_equity:
            best_equity = value
            chosen[:] = candidate
            out[:] = probabilities


@njit(cache=True)
def _plied(board: np.ndarray, plies: int, model: tuple, work: tuple, out: np.ndarray) -> None:
    """``plies``-ply (1 <= plies <= MAX_PLIES) probabilities of ``board`` into ``out``: the average over the
    rolls of the value after the side on roll's best play at 0-ply, that value the chosen result's 0-ply one
    at 1-ply, else its (plies - 1)-ply one (exact where the play ends the game). Depth first over a stack
    of one position per ply rather than a recursion: numba cannot load recursive functions from its cache."""
    boards = np.empty((plies + 1, 2, 25), dtype=np.int8)  # boards[d]: the position being valued at d-ply
    rolls = np.zeros(plies + 1, dtype=np.int64)  # the roll of boards[d] being played
    totals = np.zeros((plies + 1, 5), dtype=np.float64)  # boards[d]'s rolls so far, weighted
    values = np.empty((plies + 1, 5), dtype=np.float64)  # the value of the roll of boards[d], seen after it
    mine = np.empty(5, dtype=np.float64)
    boards[plies] = board
    depth = plies
    while True:
        roll = rolls[depth]
        if roll < 21:
            chosen = boards[depth - 1]
            dice = ROLL_DICE[roll]
            best_reply(boards[depth], dice[0], dice[1], depth - 1, model, work, chosen, values[depth])
            if depth > 1 and not final_probabilities(chosen, values[depth]):
                depth -= 1  # the chosen result valued one ply less deep first
                rolls[depth] = 0
                for k in range(5):
                    totals[depth, k] = 0.0
                continue
        elif depth == plies:
            for k in range(5):
                out[k] = totals[depth, k] / 36.0
            return
        else:  # every roll of boards[depth] played: its value is that of the roll above
            depth += 1
            for k in range(5):
                values[depth, k] = totals[depth - 1, k] / 36.0
        flip_into(values[depth], mine)
        for k in range(5):
            totals[depth, k] += ROLL_COUNTS[rolls[depth]] * mine[k]
        rolls[depth] += 1


@njit(cache=True)
def evaluate_plied(board: np.ndarray, plies: int, model: tuple, work: tuple, out: np.ndarray) -> None:
    """The ``plies``-ply probabilities of ``board`` into ``out`` (0 <= plies <= MAX_PLIES)."""
    if final_probabilities(board, out):
        return
    if plies == 0:
        evaluate0(board, model, work, out)
    else:
        _plied(board, min(plies, MAX_PLIES), model, work, out)


@njit(cache=True)
def evaluate_many(boards: np.ndarray, plies: int, model: tuple, work: tuple, out: np.ndarray) -> None:
    """``evaluate_plied`` of each of ``boards`` (n, 2, 25) into ``out`` (n, 5)."""
    for index in range(boards.shape[0]):
        evaluate_plied(boards[index], plies, model, work, out[index])


@njit(cache=True, parallel=True)
def evaluate_many_threads(
    boards: np.ndarray, plies: int, model: tuple, hidden: int, words: np.ndarray, out: np.ndarray
) -> None:
    """``evaluate_many`` spread over numba's threads, each board with scratch of its own: the same numbers,
    for jobs that label many positions on every core of one machine."""
    cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2 = model[0]  # numba's parallel loops take arrays, not
    off, first = model[1], model[2]  # nested tuples: the model is taken apart here, built again inside
    pw1, pb1, pw2, pb2, qw1, qb1, qw2, qb2 = model[3]
    for index in prange(boards.shape[0]):
        work = _work_memory(hidden, words)
        local = (
            (cw1, cb1, cw2, cb2, rw1, rb1, rw2, rb2),
            off,
            first,
            (pw1, pb1, pw2, pb2, qw1, qb1, qw2, qb2),
        )
        evaluate_plied(boards[index], plies, local, work, out[index])
