"""Compiled alpha-beta search for Togyz Kumalak: negamax with principal-variation search, a transposition
table, move ordering, quiescence on captures and exact scores for decided positions.

Scores are in centi-kumalak from the side to move; a forced result is ``WIN - plies`` (won in that many
plies) or its negation, and a draw by the rules is 0. The search runs one iteration (one depth) per call of
``search_root``; ``engine`` drives iterative deepening and the limits. All working memory lives in a
``Tables`` object allocated once, so the hot path allocates nothing, and it travels as five arrays: numba
counts references atomically for every array a function receives, and with a dozen arrays that counting
took half of the search's time.

Repetition: the rules let a player claim a draw when a position comes back a third time (see the docs'
"End of game"; the seed texts say nothing more). The engine assumes what a chess engine does: a position
that repeats one earlier in the searched line, with the same player to move, is a draw (score 0), since the
side that wants the draw can go round the cycle again and claim it; the other side must avoid it. A stone
never leaves a kazan, so only positions with the same kazans (the same stones on the board) can repeat, and
the search only looks back while the kazans are unchanged. The line starts at the searched position: the
game's earlier positions are not known to the engine. Repetition scores enter the transposition table like
any other (the usual trade of chess engines: a value that depended on the path can be reused on another).
With them, solving an endgame whose lines go round in cycles finishes instead of deepening to MAX_PLY.

Settings (``options``): transposition table on/off, ordering heuristics on/off, quiescence depth,
late-move reductions, and the evaluation weights, so that the plain alpha-beta baseline of ``taldau match``
runs through the same code. Late-move reductions (on by default, from the fourth move): a quiet move (not
the table's move, no capture, no killer) ordered late, from the given index on, is first searched one ply
shallower with a null window, and again at full depth only if it beats alpha there; with deep reductions,
a quiet move from a second index on is searched two plies shallower where six or more plies remain.

Starvation extension (off unless set): a move after which the side to move holds at most the given number
of stones on its row, with more stones on the board than where the engine solves endgames, is searched
one ply deeper, at most ``STARVED_EXTENSIONS`` times on one line (so the tree cannot explode), and never
reduced. These are the endings where a player who leads on kazan runs out of moves and the opponent
collects every stone left at atsyrau (issue 43): the line that decides them is longer than the search's
depth, and the extension lets the search follow the starving side's last moves.

Pruning by the static evaluation (each off unless set; only in null-window nodes, away from forced
results and with more stones on the board than where the engine solves endgames): null-move pruning (the
side to move passes, and if a search ``R`` plies shallower still fails high, so does the node); static
pruning (within three plies of the horizon, a node whose evaluation exceeds beta by a margin per ply
remaining fails high at once); futility pruning (within three plies of the horizon, where the evaluation
is a margin per ply below alpha, quiet moves after the first are not searched). Passing is not a move of
the game: it asks whether the side to move could afford to do nothing, which in Togyz is usually true
while stones are plentiful. A pruned node counts as a guess (``HORIZON``), so a tree with one is never
taken as solved.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
from taldau.base.jit import njit, unowned

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

# Table entry, in the lower half of its word (the key's upper half above it, so that a slot is one 8-byte
# word and twice as many fit the processor's caches): score (16 bits) | depth (8) | bound (2) | move (4) |
# heuristic (1). A slot is chosen by the key's lower bits and checked by its upper 32.
EXACT, LOWER, UPPER = 1, 2, 3
NO_MOVE = 15
LOW_HALF = np.uint64(0xFFFFFFFF)  # a table word: the key's upper half, then the entry in the lower half
NO_KEY = np.uint64(0)  # a position key not known yet (a real key of 0 is only computed again)
# ``stack`` holds one state per ply, then from row SIBLINGS the next sibling of each ply's current child
SIBLINGS = MAX_PLY + 2

# ``work`` (int64) has one row per ply; its columns:
MOVES = 0  # 9: the moves of the ply, best first
MOVE_SCORES = 9  # 9: their ordering scores
GAINS = 18  # 18: what each pit would capture (the mover's nine, then the opponent's), from the evaluation
KILLERS = 36  # 2: quiet moves that refuted other moves at this ply
PV_LENGTH = 38
PV = 39  # MAX_PLY + 1: the principal variation from this ply
KEY = PV + MAX_PLY + 1  # the position's key (its bits as int64), set when a repetition could follow
KAZANS = KEY + 1  # both kazans together: they only grow, so a position repeats only at an equal total
NULLED = KAZANS + 1  # 1 when the position was reached by a null move (no second one follows it)
EXTENDED = NULLED + 1  # starvation extensions taken on the line from the root to this ply
WORK_COLUMNS = EXTENDED + 1
# ... and one last row, GLOBAL, for the values of the whole search:
GLOBAL = MAX_PLY + 1
NODES, NODE_LIMIT, ABORTED, SELDEPTH, HORIZON = 0, 1, 2, 3, 4  # statistics and the node limit
USE_TT, USE_ORDERING, QUIESCENCE = 8, 9, 10  # options
REDUCTION = 11  # late-move reductions: 0 none, else the index (from 0) of the first move reduced
HISTORY = 12  # 18: history of quiet cutoffs by side and pit
DEEP_REDUCTION = HISTORY + 2 * PITS  # 0 none, else the index of the first move reduced two plies (depth 6+)
NULL_MOVE = DEEP_REDUCTION + 1  # null-move pruning: 0 none, else the reduction R
PRUNE_STONES = NULL_MOVE + 1  # pruning by the evaluation only with more stones than this on the board
STATIC_MARGIN = PRUNE_STONES + 1  # static (reverse futility) pruning: 0 none, else the margin per ply
FUTILITY_MARGIN = STATIC_MARGIN + 1  # futility pruning of quiet moves: 0 none, else the margin per ply
STARVED = FUTILITY_MARGIN + 1  # starvation extension: 0 none, else the most stones on a starving row
PRUNE_DEPTH = 3  # static and futility pruning only this close to the horizon
NULL_DEPTH = 3  # null-move pruning only this far from it
STARVED_EXTENSIONS = 4  # the most starvation extensions on one line from the root


@dataclass
class Tables:
    """All the search's working memory: the position stack (one state per ply), the transposition table
    (key, entry) and ``work`` (moves, ordering, killers, PVs per ply; statistics, options, history)."""

    stack: np.ndarray
    tt: np.ndarray
    work: np.ndarray

    @classmethod
    def allocate(cls, tt_bits: int) -> Tables:
        """Tables with a transposition table of 2**tt_bits entries (8 bytes each)."""
        tables = cls(
            stack=np.zeros((SIBLINGS + MAX_PLY + 2, STATE_SIZE), dtype=STATE_DTYPE),
            tt=np.zeros((1 << tt_bits, 1), dtype=np.uint64),
            work=np.zeros((MAX_PLY + 2, WORK_COLUMNS), dtype=np.int64),
        )
        tables._forget_moves()  # the table is zero already: no second pass over it
        return tables

    @property
    def stats(self) -> np.ndarray:
        """Nodes, node limit, abort flag, seldepth, horizon count (a view into ``work``)."""
        return self.work[GLOBAL, :8]

    def clear(self) -> None:
        """Forget everything learnt: transposition table, killers and history (a new game)."""
        self.tt[:] = 0
        self._forget_moves()

    def _forget_moves(self) -> None:
        """No killer moves, no history."""
        self.work[:GLOBAL, KILLERS : KILLERS + 2] = -1
        self.work[GLOBAL, HISTORY : HISTORY + 2 * PITS] = 0


def _prefetch_intrinsic() -> Any:
    """The compiled ``prefetch_row``: asks the processor to bring row ``row`` of a 2-D array into its
    caches (LLVM's ``prefetch``), without waiting for it and without any effect on the program."""
    from llvmlite import ir
    from numba.core import cgutils, types
    from numba.extending import intrinsic

    @intrinsic
    def prefetch_row(typingctx: Any, table: Any, row: Any) -> Any:
        if not isinstance(table, types.Array) or table.ndim != 2 or not isinstance(row, types.Integer):
            return None

        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            array = context.make_array(signature.args[0])(context, builder, value=args[0])
            index = context.cast(builder, args[1], signature.args[1], types.intp)
            zero = context.get_constant(types.intp, 0)
            pointer = cgutils.get_item_pointer(context, builder, signature.args[0], array, [index, zero])
            raw = builder.bitcast(pointer, ir.IntType(8).as_pointer())
            word = ir.IntType(32)
            kind = ir.FunctionType(ir.VoidType(), [raw.type, word, word, word])
            prefetch = cgutils.get_or_insert_function(builder.module, kind, "llvm.prefetch.p0")
            builder.call(prefetch, [raw, word(0), word(3), word(1)])  # a read, kept in every cache level
            return context.get_dummy_value()

        return types.none(table, row), codegen

    return prefetch_row


def _no_prefetch(table: np.ndarray, row: int) -> None:
    """``prefetch_row`` where numba is disabled: nothing to do."""


prefetch_row = _no_prefetch if numba.config.DISABLE_JIT else _prefetch_intrinsic()


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


@njit(cache=True, inline="always")
def _repeats(state, ply, work, keys, key):
    """Whether ``stack[ply]`` repeats a position earlier in the line, same player to move (plies
    ``ply - 2``, ``ply - 4``, ... back to the last change of the kazans), and the position's key: ``key``
    when the caller knew it (not NO_KEY), else computed here if a repetition could follow, else NO_KEY.
    Records the key (where a repetition could follow) and the kazans in row ``ply`` for the plies below."""
    total = np.int64(state[KAZAN]) + np.int64(state[KAZAN + 1])
    work[ply, KAZANS] = total
    if ply < 2 or work[ply - 2, KAZANS] != total:
        return False, key
    if key == NO_KEY:
        key = position_key(state, keys)
    work[ply, KEY] = np.int64(key)
    earlier = ply - 2
    while earlier >= 0 and work[earlier, KAZANS] == total:
        if work[earlier, KEY] == np.int64(key):
            return True, key
        earlier -= 2
    return False, key


@njit(cache=True)
def _order(state, ply, tt_move, work, use_ordering, gains_known):
    """Fill row ``ply``'s MOVES with the legal pits, best first (table move, captures, killers, history);
    ``gains_known``: row ``ply``'s GAINS hold each pit's capture already (the evaluation ran here)."""
    side = state[SIDE]
    count = 0
    for pit in range(PITS):
        if state[side * PITS + pit] == 0:
            continue
        gain = work[ply, GAINS + pit] if gains_known else capture_of(state, side, pit)
        if not use_ordering:
            score = 0
        elif pit == tt_move:
            score = 1 << 40
        elif gain > 0:
            score = (1 << 30) + gain
        elif pit == work[ply, KILLERS]:
            score = (1 << 29) + 1
        elif pit == work[ply, KILLERS + 1]:
            score = 1 << 29
        else:
            score = min(work[GLOBAL, HISTORY + side * PITS + pit], 1 << 28)
        _insert(work, ply, count, pit, score)
        count += 1
    return count


@njit(cache=True)
def _insert(work, ply, count, pit, score):
    """Insert ``pit`` with ``score`` into the ``count`` moves of row ``ply``, kept sorted best first."""
    slot = count
    while slot > 0 and work[ply, MOVE_SCORES + slot - 1] < score:
        work[ply, MOVES + slot] = work[ply, MOVES + slot - 1]
        work[ply, MOVE_SCORES + slot] = work[ply, MOVE_SCORES + slot - 1]
        slot -= 1
    work[ply, MOVES + slot] = pit
    work[ply, MOVE_SCORES + slot] = score


@njit(cache=True, inline="always")
def _starving(child, work, ply):
    """1 when the move that led to ``child`` (searched from row ``ply``) earns a starvation extension: the
    side to move in ``child`` holds at most the STARVED setting's stones on its row (but has some), more
    stones are on the board than where the engine solves endgames, and the line has taken fewer than
    ``STARVED_EXTENSIONS``; else 0."""
    limit = work[GLOBAL, STARVED]
    if limit == 0 or work[ply, EXTENDED] >= STARVED_EXTENSIONS:
        return 0
    base = child[SIDE] * PITS
    row = 0
    for pit in range(PITS):
        row += child[base + pit]
    if row == 0 or row > limit:
        return 0
    if STONES - child[KAZAN] - child[KAZAN + 1] <= work[GLOBAL, PRUNE_STONES]:
        return 0
    return 1


@njit(cache=True)
def quiescence(ply, alpha, beta, qdepth, stack, tt, work, weights, keys):
    """Stand pat on the static evaluation or go on with captures only, up to ``qdepth`` plies."""
    state = stack[ply]
    work[ply, PV_LENGTH] = ply
    work[GLOBAL, NODES] += 1
    if ply > work[GLOBAL, SELDEPTH]:
        work[GLOBAL, SELDEPTH] = ply
    decided = terminal_score(state, ply)
    if decided != INF:
        return decided
    work[GLOBAL, HORIZON] += 1
    stand = evaluate(state, weights, work, ply, GAINS)
    if stand >= beta or qdepth <= 0 or ply >= MAX_PLY:
        return stand
    if stand > alpha:
        alpha = stand
    # Captures, largest first, from the gains the evaluation just computed.
    count = 0
    for pit in range(PITS):
        gain = work[ply, GAINS + pit]
        if gain > 0:
            _insert(work, ply, count, pit, gain)
            count += 1
    best = stand
    child = stack[ply + 1]
    for index in range(count):
        child[:] = state
        sow(child, work[ply, MOVES + index])
        score = -quiescence(ply + 1, -beta, -alpha, qdepth - 1, stack, tt, work, weights, keys)
        if score > best:
            best = score
            if score > alpha:
                alpha = score
                if score >= beta:
                    break
    return best


@njit(cache=True)
def negamax(ply, depth, alpha, beta, key, stack, tt, work, weights, keys):
    """Alpha-beta value of ``stack[ply]`` searched ``depth`` plies deep, with its PV in row ``ply``;
    ``key``: the position's key when the caller has it, else 0 (then computed here where needed)."""
    state = stack[ply]
    work[ply, PV_LENGTH] = ply
    decided = terminal_score(state, ply)
    if decided != INF:
        work[GLOBAL, NODES] += 1
        return decided
    repeated, key = _repeats(state, ply, work, keys, key)
    if repeated:
        work[GLOBAL, NODES] += 1
        return 0
    if depth <= 0 or ply >= MAX_PLY:
        return quiescence(ply, alpha, beta, work[GLOBAL, QUIESCENCE], stack, tt, work, weights, keys)
    work[GLOBAL, NODES] += 1
    if ply > work[GLOBAL, SELDEPTH]:
        work[GLOBAL, SELDEPTH] = ply
    if work[GLOBAL, NODES] >= work[GLOBAL, NODE_LIMIT]:
        work[GLOBAL, ABORTED] = 1
        return 0

    use_tt = work[GLOBAL, USE_TT] != 0
    if key == NO_KEY:
        key = position_key(state, keys)
    work[ply, KEY] = np.int64(key)
    slot = np.int64(key & np.uint64(tt.shape[0] - 1))
    tt_move = -1
    word = tt[slot, 0] if use_tt else np.uint64(0)
    if use_tt and (word ^ key) >> np.uint64(32) == 0:
        entry = np.int64(word & LOW_HALF)
        stored_move = (entry >> 26) & 15
        if stored_move != NO_MOVE:
            tt_move = stored_move
        if (entry >> 16) & 255 >= depth and beta - alpha == 1:
            score = _from_tt((entry & 65535) - 32768, ply)
            bound = (entry >> 24) & 3
            if bound == EXACT or (bound == LOWER and score >= beta) or (bound == UPPER and score <= alpha):
                if (entry >> 30) & 1:
                    work[GLOBAL, HORIZON] += 1
                return score

    child = stack[ply + 1]
    # Pruning by the static evaluation: in null-window nodes away from forced results, and not where the
    # engine solves endgames (a pruned node is a guess, so the tree would never count as solved).
    static = INF
    futile = False
    if (
        beta - alpha == 1
        and -WIN_BOUND < beta < WIN_BOUND
        and STONES - state[KAZAN] - state[KAZAN + 1] > work[GLOBAL, PRUNE_STONES]
    ):
        near = depth <= PRUNE_DEPTH
        margin = work[GLOBAL, STATIC_MARGIN] if near else 0
        futility = work[GLOBAL, FUTILITY_MARGIN] if near else 0
        null_move = work[GLOBAL, NULL_MOVE] if depth >= NULL_DEPTH and work[ply, NULLED] == 0 else 0
        if margin > 0 or futility > 0 or null_move > 0:
            static = evaluate(state, weights, work, ply, GAINS)
        if margin > 0 and static - margin * depth >= beta:
            work[GLOBAL, HORIZON] += 1
            return static - margin * depth
        if null_move > 0 and static >= beta:
            child[:] = state
            child[SIDE] = 1 - state[SIDE]
            work[ply + 1, NULLED] = 1  # set for the null move's search alone (the row is 0 otherwise)
            work[ply + 1, EXTENDED] = work[ply, EXTENDED]
            score = -negamax(
                ply + 1, depth - 1 - null_move, -beta, -beta + 1, NO_KEY, stack, tt, work, weights, keys
            )
            work[ply + 1, NULLED] = 0
            if work[GLOBAL, ABORTED]:
                return 0
            if score >= beta:
                work[GLOBAL, HORIZON] += 1
                return beta
        futile = futility > 0 and static + futility * depth <= alpha

    horizon_before = work[GLOBAL, HORIZON]
    original_alpha = alpha
    gains_known = static != INF
    count = _order(state, ply, tt_move, work, work[GLOBAL, USE_ORDERING] != 0, gains_known)
    best = -INF
    best_move = NO_MOVE
    next_key = NO_KEY
    next_index = -1  # the move whose state and key are in row SIBLINGS + ply and next_key
    for index in range(count):
        pit = work[ply, MOVES + index]
        if futile and index > 0 and work[ply, MOVE_SCORES + index] < (1 << 30):
            # A quiet move this far below alpha, this near the horizon: not searched.
            work[GLOBAL, HORIZON] += 1
            if best < static:
                best = static
            continue
        child_key = NO_KEY
        if index == next_index:
            child[:] = stack[SIBLINGS + ply]  # sown already, to prefetch its table entry
            child_key = next_key
        else:
            child[:] = state
            sow(child, pit)
        extend = _starving(child, work, ply)
        work[ply + 1, EXTENDED] = work[ply, EXTENDED] + extend
        next_depth = depth - 1 + extend
        if use_tt and next_depth > 0:
            # The child probes the table: start bringing its entry in, and the next sibling's, whose
            # wait the child's subtree then hides; both keys (and the sibling's state) are kept for their
            # searches.
            mask = np.uint64(tt.shape[0] - 1)
            if child_key == NO_KEY:
                child_key = position_key(child, keys)
            prefetch_row(tt, np.int64(child_key & mask))
            if index + 1 < count:
                sibling = stack[SIBLINGS + ply]
                sibling[:] = state
                sow(sibling, work[ply, MOVES + index + 1])
                next_key = position_key(sibling, keys)
                next_index = index + 1
                prefetch_row(tt, np.int64(next_key & mask))
        if index == 0:
            score = -negamax(ply + 1, next_depth, -beta, -alpha, child_key, stack, tt, work, weights, keys)
        else:
            late = work[GLOBAL, REDUCTION]
            reduced = (
                late > 0
                and index >= late
                and depth >= 3
                and extend == 0
                and work[ply, MOVE_SCORES + index] < (1 << 29)
            )
            score = alpha + 1
            if reduced:
                deep = work[GLOBAL, DEEP_REDUCTION]
                cut = 2 if deep > 0 and index >= deep and depth >= 6 else 1
                reduced_depth = next_depth - cut
                score = -negamax(
                    ply + 1, reduced_depth, -alpha - 1, -alpha, child_key, stack, tt, work, weights, keys
                )
            if score > alpha and not work[GLOBAL, ABORTED]:
                score = -negamax(
                    ply + 1, next_depth, -alpha - 1, -alpha, child_key, stack, tt, work, weights, keys
                )
            if alpha < score < beta and not work[GLOBAL, ABORTED]:
                score = -negamax(
                    ply + 1, next_depth, -beta, -alpha, child_key, stack, tt, work, weights, keys
                )
        if work[GLOBAL, ABORTED]:
            return 0
        if score > best:
            best = score
            best_move = pit
            if score > alpha:
                alpha = score
                work[ply, PV + ply] = pit
                for deeper in range(ply + 1, work[ply + 1, PV_LENGTH]):
                    work[ply, PV + deeper] = work[ply + 1, PV + deeper]
                work[ply, PV_LENGTH] = max(work[ply + 1, PV_LENGTH], ply + 1)
                if score >= beta:
                    gain = work[ply, GAINS + pit] if gains_known else capture_of(state, state[SIDE], pit)
                    if gain == 0:
                        if work[ply, KILLERS] != pit:
                            work[ply, KILLERS + 1] = work[ply, KILLERS]
                            work[ply, KILLERS] = pit
                        work[GLOBAL, HISTORY + state[SIDE] * PITS + pit] += depth * depth
                    break

    if use_tt:
        bound = UPPER if best <= original_alpha else (LOWER if best >= beta else EXACT)
        heuristic = 1 if work[GLOBAL, HORIZON] != horizon_before else 0
        tt[slot, 0] = (key & ~LOW_HALF) | np.uint64(
            _pack(_to_tt(best, ply), depth, bound, best_move, heuristic)
        )
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
    work,
    weights,
    keys,
):
    """One iteration at ``depth`` over ``root_moves`` (searched in the order given).

    The ``multipv`` best moves get exact scores in ``root_scores`` (``root_exact`` 1) and their PVs in
    ``root_pvs``; the others get upper bounds. Returns how many root moves were completed before an abort.
    """
    # the recursion below would count references to these arrays at every node (see ``unowned``)
    stack, tt, work = unowned(stack), unowned(tt), unowned(work)
    weights, keys = unowned(weights), unowned(keys)
    state = stack[0]
    child = stack[1]
    work[0, KEY] = np.int64(position_key(state, keys))
    work[0, KAZANS] = np.int64(state[KAZAN]) + np.int64(state[KAZAN + 1])
    # Plain int64 arguments: one compiled specialisation of the recursive kernels (literal constants
    # would make numba compile, and cache, several).
    one, infinity = np.int64(1), np.int64(INF)
    top = np.full(multipv, -INF, dtype=np.int64)  # the best exact scores so far, descending
    exact_count = 0
    work[0, EXTENDED] = 0
    for index in range(root_moves.shape[0]):
        pit = root_moves[index]
        child[:] = state
        sow(child, pit)
        extend = _starving(child, work, 0)
        work[1, EXTENDED] = extend
        next_depth = depth - 1 + extend
        if exact_count < multipv:
            score = -negamax(one, next_depth, -infinity, infinity, NO_KEY, stack, tt, work, weights, keys)
            exact = True
        else:
            kth = top[multipv - 1]
            score = -negamax(one, next_depth, -kth - 1, -kth, NO_KEY, stack, tt, work, weights, keys)
            exact = False
            if score > kth and not work[GLOBAL, ABORTED]:
                score = -negamax(one, next_depth, -infinity, -kth, NO_KEY, stack, tt, work, weights, keys)
                exact = True
        if work[GLOBAL, ABORTED]:
            return index
        root_scores[index] = score
        root_exact[index] = 1 if exact else 0
        if exact:
            exact_count += 1
            root_pvs[index, 0] = pit
            length = max(work[1, PV_LENGTH], 1)
            for deeper in range(1, length):
                root_pvs[index, deeper] = work[1, PV + deeper]
            root_pv_lengths[index] = length
            slot = multipv - 1
            if score > top[slot]:
                while slot > 0 and top[slot - 1] < score:
                    top[slot] = top[slot - 1]
                    slot -= 1
                top[slot] = score
    return root_moves.shape[0]
