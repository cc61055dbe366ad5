"""Compiled alpha-beta search for Togyz Kumalak: negamax with principal-variation search, a transposition
table, move ordering, quiescence on captures and exact scores for decided positions.

Scores are in centi-kumalak from the side to move; a forced result is ``WIN - plies`` (won in that many
plies) or its negation, and a draw by the rules is 0. The search runs one iteration (one depth) per call of
``search_root``; ``engine`` drives iterative deepening and the limits. All working memory lives in a
``Tables`` object allocated once, so the hot path allocates nothing.

Settings (``options``): transposition table on/off, ordering heuristics on/off, quiescence depth, and the
evaluation weights, so that the plain alpha-beta baseline of ``taldau match`` runs through the same code.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from .board import (
    KAZAN,
    PITS,
    SIDE,
    STATE_DTYPE,
    STATE_SIZE,
    STONES,
    WINNING_KAZAN,
    position_key,
    sow,
)
from .evaluate import capture_of, evaluate

MAX_PLY = 128
INF = 32_000
WIN = 30_000
WIN_BOUND = WIN - MAX_PLY  # scores beyond this are forced results
DRAW_KAZAN = STONES // 2

# Table entry, beside its key: score (16 bits) | depth (8) | bound (2) | move (4) | heuristic (1).
EXACT, LOWER, UPPER = 1, 2, 3
NO_MOVE = 15

# Indexes into ``stats``.
NODES, NODE_LIMIT, ABORTED, SELDEPTH, HORIZON = 0, 1, 2, 3, 4
# Indexes into ``options``.
USE_TT, USE_ORDERING, QUIESCENCE = 0, 1, 2


@dataclass
class Tables:
    """All the search's working memory: position stack, transposition table, killers, history, PVs."""

    stack: np.ndarray
    tt: np.ndarray
    killers: np.ndarray
    history: np.ndarray
    pv: np.ndarray
    pv_length: np.ndarray
    moves: np.ndarray
    move_scores: np.ndarray
    gains: np.ndarray
    stats: np.ndarray

    @classmethod
    def allocate(cls, tt_bits: int) -> Tables:
        """Tables with a transposition table of 2**tt_bits entries (16 bytes each)."""
        size = 1 << tt_bits
        return cls(
            stack=np.zeros((MAX_PLY + 2, STATE_SIZE), dtype=STATE_DTYPE),
            tt=np.zeros((size, 2), dtype=np.uint64),
            killers=np.full((MAX_PLY + 1, 2), -1, dtype=np.int64),
            history=np.zeros((2, PITS), dtype=np.int64),
            pv=np.zeros((MAX_PLY + 1, MAX_PLY + 1), dtype=np.int64),
            pv_length=np.zeros(MAX_PLY + 1, dtype=np.int64),
            moves=np.zeros((MAX_PLY + 1, PITS), dtype=np.int64),
            move_scores=np.zeros((MAX_PLY + 1, PITS), dtype=np.int64),
            gains=np.zeros((MAX_PLY + 1, 2 * PITS), dtype=np.int64),
            stats=np.zeros(8, dtype=np.int64),
        )

    def arrays(self) -> tuple:
        """The working arrays in the order the kernels take them."""
        return (
            self.stack,
            self.tt,
            self.killers,
            self.history,
            self.pv,
            self.pv_length,
            self.moves,
            self.move_scores,
            self.gains,
            self.stats,
        )

    def clear(self) -> None:
        """Forget everything learnt: transposition table, killers and history (a new game)."""
        self.tt[:] = 0
        self.killers[:] = -1
        self.history[:] = 0


@njit(cache=True)
def _pack(score: int, depth: int, bound: int, move: int, heuristic: int) -> np.int64:
    return np.int64(
        (score + 32768) | (min(depth, 255) << 16) | (bound << 24) | (move << 26) | (heuristic << 30)
    )


@njit(cache=True)
def _to_tt(score: int, ply: int) -> int:
    """Forced results are stored as distance from the stored node, not from the root."""
    if score > WIN_BOUND:
        return score + ply
    if score < -WIN_BOUND:
        return score - ply
    return score


@njit(cache=True)
def _from_tt(score: int, ply: int) -> int:
    if score > WIN_BOUND:
        return score - ply
    if score < -WIN_BOUND:
        return score + ply
    return score


@njit(cache=True)
def terminal_score(state: np.ndarray, ply: int) -> int:
    """The exact score of a decided position for the side to move, or INF when the game goes on."""
    me = state[SIDE]
    mine = state[KAZAN + me]
    theirs = state[KAZAN + 1 - me]
    if mine >= WINNING_KAZAN:
        return WIN - ply
    if theirs >= WINNING_KAZAN:
        return -(WIN - ply)
    base = me * PITS
    for pit in range(PITS):
        if state[base + pit] > 0:
            return INF
    # Atsyrau: the side to move has no stones; the opponent collects everything left on the board.
    if mine == DRAW_KAZAN:
        return 0
    return -(WIN - ply)


@njit(cache=True)
def _order(state, ply, tt_move, killers, history, moves, move_scores, use_ordering):
    """Fill ``moves[ply]`` with the legal pits, best first (table move, captures, killers, history)."""
    side = state[SIDE]
    count = 0
    for pit in range(PITS):
        if state[side * PITS + pit] == 0:
            continue
        gain = capture_of(state, side, pit)
        if not use_ordering:
            score = 0
        elif pit == tt_move:
            score = 1 << 40
        elif gain > 0:
            score = (1 << 30) + gain
        elif pit == killers[ply, 0]:
            score = (1 << 29) + 1
        elif pit == killers[ply, 1]:
            score = 1 << 29
        else:
            score = min(history[side, pit], 1 << 28)
        # Insertion sort: at most nine moves.
        slot = count
        while slot > 0 and move_scores[ply, slot - 1] < score:
            moves[ply, slot] = moves[ply, slot - 1]
            move_scores[ply, slot] = move_scores[ply, slot - 1]
            slot -= 1
        moves[ply, slot] = pit
        move_scores[ply, slot] = score
        count += 1
    return count


# The kernels take every array as its own argument, in the order of ``Tables.arrays()`` followed by the
# engine's constants (weights, scratch, options, key words): arrays unpacked from a tuple cost numba an
# atomic reference count each time, and that was a third of the search's time.


@njit(cache=True)
def quiescence(
    ply,
    alpha,
    beta,
    qdepth,
    stack,
    tt,
    killers,
    history,
    pv,
    pv_length,
    moves,
    move_scores,
    gains_table,
    stats,
    weights,
    scratch,
    options,
    key_pits,
    key_tuzdyks,
    key_black,
):
    """Stand pat on the static evaluation or go on with captures only, up to ``qdepth`` plies."""
    state = stack[ply]
    pv_length[ply] = ply
    stats[NODES] += 1
    if ply > stats[SELDEPTH]:
        stats[SELDEPTH] = ply
    decided = terminal_score(state, ply)
    if decided != INF:
        return decided
    stats[HORIZON] += 1
    gains = gains_table[ply]
    stand = evaluate(state, weights, scratch, gains)
    if stand >= beta or qdepth <= 0 or ply >= MAX_PLY:
        return stand
    if stand > alpha:
        alpha = stand
    # Captures, largest first, from the gains the evaluation just computed.
    count = 0
    for pit in range(PITS):
        gain = gains[pit]
        if gain == 0:
            continue
        slot = count
        while slot > 0 and move_scores[ply, slot - 1] < gain:
            moves[ply, slot] = moves[ply, slot - 1]
            move_scores[ply, slot] = move_scores[ply, slot - 1]
            slot -= 1
        moves[ply, slot] = pit
        move_scores[ply, slot] = gain
        count += 1
    best = stand
    child = stack[ply + 1]
    for index in range(count):
        child[:] = state
        sow(child, moves[ply, index])
        score = -quiescence(
            ply + 1,
            -beta,
            -alpha,
            qdepth - 1,
            stack,
            tt,
            killers,
            history,
            pv,
            pv_length,
            moves,
            move_scores,
            gains_table,
            stats,
            weights,
            scratch,
            options,
            key_pits,
            key_tuzdyks,
            key_black,
        )
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                if score >= beta:
                    break
    return best


@njit(cache=True)
def negamax(
    ply,
    depth,
    alpha,
    beta,
    stack,
    tt,
    killers,
    history,
    pv,
    pv_length,
    moves,
    move_scores,
    gains_table,
    stats,
    weights,
    scratch,
    options,
    key_pits,
    key_tuzdyks,
    key_black,
):
    """Alpha-beta value of ``stack[ply]`` searched ``depth`` plies deep, with its PV in ``pv[ply]``."""
    state = stack[ply]
    pv_length[ply] = ply
    decided = terminal_score(state, ply)
    if decided != INF:
        stats[NODES] += 1
        return decided
    if depth <= 0 or ply >= MAX_PLY:
        return quiescence(
            ply,
            alpha,
            beta,
            options[QUIESCENCE],
            stack,
            tt,
            killers,
            history,
            pv,
            pv_length,
            moves,
            move_scores,
            gains_table,
            stats,
            weights,
            scratch,
            options,
            key_pits,
            key_tuzdyks,
            key_black,
        )
    stats[NODES] += 1
    if ply > stats[SELDEPTH]:
        stats[SELDEPTH] = ply
    if stats[NODES] >= stats[NODE_LIMIT]:
        stats[ABORTED] = 1
        return 0

    use_tt = options[USE_TT] != 0
    key = position_key(state, key_pits, key_tuzdyks, key_black)
    slot = np.int64(key & np.uint64(tt.shape[0] - 1))
    tt_move = -1
    if use_tt and tt[slot, 0] == key:
        entry = np.int64(tt[slot, 1])
        stored_move = (entry >> 26) & 15
        if stored_move != NO_MOVE:
            tt_move = stored_move
        if (entry >> 16) & 255 >= depth and beta - alpha == 1:
            score = _from_tt((entry & 65535) - 32768, ply)
            bound = (entry >> 24) & 3
            if bound == EXACT or (bound == LOWER and score >= beta) or (bound == UPPER and score <= alpha):
                if (entry >> 30) & 1:
                    stats[HORIZON] += 1
                return score

    horizon_before = stats[HORIZON]
    original_alpha = alpha
    count = _order(state, ply, tt_move, killers, history, moves, move_scores, options[USE_ORDERING] != 0)
    child = stack[ply + 1]
    best = -INF
    best_move = NO_MOVE
    for index in range(count):
        pit = moves[ply, index]
        child[:] = state
        sow(child, pit)
        if index == 0:
            score = -negamax(
                ply + 1,
                depth - 1,
                -beta,
                -alpha,
                stack,
                tt,
                killers,
                history,
                pv,
                pv_length,
                moves,
                move_scores,
                gains_table,
                stats,
                weights,
                scratch,
                options,
                key_pits,
                key_tuzdyks,
                key_black,
            )
        else:
            score = -negamax(
                ply + 1,
                depth - 1,
                -alpha - 1,
                -alpha,
                stack,
                tt,
                killers,
                history,
                pv,
                pv_length,
                moves,
                move_scores,
                gains_table,
                stats,
                weights,
                scratch,
                options,
                key_pits,
                key_tuzdyks,
                key_black,
            )
            if alpha < score < beta and not stats[ABORTED]:
                score = -negamax(
                    ply + 1,
                    depth - 1,
                    -beta,
                    -alpha,
                    stack,
                    tt,
                    killers,
                    history,
                    pv,
                    pv_length,
                    moves,
                    move_scores,
                    gains_table,
                    stats,
                    weights,
                    scratch,
                    options,
                    key_pits,
                    key_tuzdyks,
                    key_black,
                )
        if stats[ABORTED]:
            return 0
        if score > best:
            best = score
            best_move = pit
            if score > alpha:
                alpha = score
                pv[ply, ply] = pit
                for deeper in range(ply + 1, pv_length[ply + 1]):
                    pv[ply, deeper] = pv[ply + 1, deeper]
                pv_length[ply] = max(pv_length[ply + 1], ply + 1)
                if score >= beta:
                    if capture_of(state, state[SIDE], pit) == 0:
                        if killers[ply, 0] != pit:
                            killers[ply, 1] = killers[ply, 0]
                            killers[ply, 0] = pit
                        history[state[SIDE], pit] += depth * depth
                    break

    if use_tt:
        bound = UPPER if best <= original_alpha else (LOWER if best >= beta else EXACT)
        heuristic = 1 if stats[HORIZON] != horizon_before else 0
        tt[slot, 0] = key
        tt[slot, 1] = np.uint64(_pack(_to_tt(best, ply), depth, bound, best_move, heuristic))
    return best


@njit(cache=True)
def search_root(
    depth,
    multipv,
    root_moves,
    root_scores,
    root_exact,
    root_pvs,
    root_pv_lengths,
    stack,
    tt,
    killers,
    history,
    pv,
    pv_length,
    moves,
    move_scores,
    gains_table,
    stats,
    weights,
    scratch,
    options,
    key_pits,
    key_tuzdyks,
    key_black,
):
    """One iteration at ``depth`` over ``root_moves`` (searched in the order given).

    The ``multipv`` best moves get exact scores in ``root_scores`` (``root_exact`` 1) and their PVs in
    ``root_pvs``; the others get upper bounds. Returns how many root moves were completed before an abort.
    """
    state = stack[0]
    child = stack[1]
    # Plain int64 arguments: one compiled specialisation of the recursive kernels (literal constants
    # would make numba compile, and cache, several).
    one, infinity = np.int64(1), np.int64(INF)
    top = np.full(multipv, -INF, dtype=np.int64)  # the best exact scores so far, descending
    exact_count = 0
    for index in range(root_moves.shape[0]):
        pit = root_moves[index]
        child[:] = state
        sow(child, pit)
        if exact_count < multipv:
            score = -negamax(
                one,
                depth - 1,
                -infinity,
                infinity,
                stack,
                tt,
                killers,
                history,
                pv,
                pv_length,
                moves,
                move_scores,
                gains_table,
                stats,
                weights,
                scratch,
                options,
                key_pits,
                key_tuzdyks,
                key_black,
            )
            exact = True
        else:
            kth = top[multipv - 1]
            score = -negamax(
                one,
                depth - 1,
                -kth - 1,
                -kth,
                stack,
                tt,
                killers,
                history,
                pv,
                pv_length,
                moves,
                move_scores,
                gains_table,
                stats,
                weights,
                scratch,
                options,
                key_pits,
                key_tuzdyks,
                key_black,
            )
            exact = False
            if score > kth and not stats[ABORTED]:
                score = -negamax(
                    one,
                    depth - 1,
                    -infinity,
                    -kth,
                    stack,
                    tt,
                    killers,
                    history,
                    pv,
                    pv_length,
                    moves,
                    move_scores,
                    gains_table,
                    stats,
                    weights,
                    scratch,
                    options,
                    key_pits,
                    key_tuzdyks,
                    key_black,
                )
                exact = True
        if stats[ABORTED]:
            return index
        root_scores[index] = score
        root_exact[index] = 1 if exact else 0
        if exact:
            exact_count += 1
            root_pvs[index, 0] = pit
            length = max(pv_length[1], 1)
            for deeper in range(1, length):
                root_pvs[index, deeper] = pv[1, deeper]
            root_pv_lengths[index] = length
            slot = multipv - 1
            if score > top[slot]:
                while slot > 0 and top[slot - 1] < score:
                    top[slot] = top[slot - 1]
                    slot -= 1
                top[slot] = score
    return root_moves.shape[0]
