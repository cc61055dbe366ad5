"""Compiled core of backgammon: the board as a small integer array and every legal play of a roll.

Words of the game for readers who do not know it: each side has 15 *checkers* on 24 *points*, numbered
1..24 from that side's own *home board* (points 1..6) and moved towards point 1; a checker that is *hit*
(a lone checker, a *blot*, landed on by an opposing one) goes to the *bar* and must *enter* into the
opponent's home board before anything else moves; with all 15 checkers home a side *bears off* (takes
checkers off the board). A *play* is everything a side does with one roll: both dice, four moves on a
double, or as many as the rules allow.

The board is an ``int8`` array of shape (2, 25) in gnubg's order: row ``OPPONENT`` (0) holds the side not
on roll, row ``MOVER`` (1) the side on roll; in each row index i is that side's point i + 1 counted from
its own home board and index ``BAR`` (24) its bar. Checkers borne off are 15 minus the row's sum. One
side's point p is the other side's point 25 - p (index i faces index 23 - i).

A single checker move is a pair of indices (from, to): from ``BAR`` when entering, to ``OFF`` (-1) when
bearing off. Everything here is ``njit(cache=True)``; with ``NUMBA_DISABLE_JIT=1`` it runs as plain Python.
"""

from __future__ import annotations

import numpy as np
from taldau.base.jit import njit
from taldau.base.zobrist import splitmix64_words

OPPONENT = 0
MOVER = 1
POINTS = 24
BAR = 24
OFF = -1
CHECKERS = 15
ROW = 25
ILLEGAL = -100

MAX_PLAYS = 8192  # distinct results of one roll; the real maximum is far lower (a few thousand at most)
TABLE_SIZE = 16384  # open-addressing table that finds a repeated result, a power of two above MAX_PLAYS

# Zobrist words: one per (row, index, checkers 0..15). A constant of the key definition, not state.
KEY_WORDS = splitmix64_words(2 * ROW * (CHECKERS + 1), 0xBA6A77)
KEY_WORDS.flags.writeable = False

BOARD_DTYPE = np.int8

# The 21 distinct rolls (higher die, lower die), in the order of ``position.ROLLS``, and how many of the 36
# ordered rolls each stands for (2 for a non-double, 1 for a double).
ROLL_DICE = np.array([(high, low) for high in range(1, 7) for low in range(1, high + 1)], dtype=np.int64)
ROLL_COUNTS = np.array([1 if high == low else 2 for high, low in ROLL_DICE], dtype=np.int64)
ROLL_DICE.flags.writeable = False
ROLL_COUNTS.flags.writeable = False


def start_board() -> np.ndarray:
    """The starting position: 2 checkers on the 24-point, 5 on 13, 3 on 8 and 5 on 6, for both sides."""
    board = np.zeros((2, ROW), dtype=BOARD_DTYPE)
    for row in (OPPONENT, MOVER):
        board[row, 23] = 2
        board[row, 12] = 5
        board[row, 7] = 3
        board[row, 5] = 5
    return board


@njit(cache=True, inline="always")
def _word(row: int, index: int, count: int, words: np.ndarray) -> np.uint64:
    return words[(row * ROW + index) * (CHECKERS + 1) + count]


@njit(cache=True)
def board_key(board: np.ndarray, words: np.ndarray) -> np.uint64:
    """Zobrist key of a board (both rows); ``words`` is KEY_WORDS."""
    key = np.uint64(0)
    for row in range(2):
        for index in range(ROW):
            key ^= _word(row, index, board[row, index], words)
    return key


@njit(cache=True, inline="always")
def destination(board: np.ndarray, start: int, die: int) -> int:
    """Where the mover's checker at index ``start`` lands with ``die``: an index, OFF, or ILLEGAL."""
    mover = board[MOVER]
    if mover[start] == 0:
        return ILLEGAL
    if mover[BAR] > 0 and start != BAR:
        return ILLEGAL
    end = start - die
    if end >= 0:
        if board[OPPONENT, 23 - end] >= 2:
            return ILLEGAL
        return end
    for index in range(6, ROW):  # bearing off needs every checker home
        if mover[index] > 0:
            return ILLEGAL
    if end == OFF:
        return OFF
    for index in range(start + 1, 6):  # a higher die bears off only from the highest point
        if mover[index] > 0:
            return ILLEGAL
    return OFF


@njit(cache=True, inline="always")
def next_source(board: np.ndarray, start: int) -> int:
    """The highest index at or below ``start`` holding a checker of the mover that may move: only the
    bar while a checker waits there; -1 when there is none."""
    mover = board[MOVER]
    if mover[BAR] > 0:
        return BAR if start >= BAR else -1
    while start >= 0 and mover[start] == 0:
        start -= 1
    return start


@njit(cache=True, inline="always")
def move_checker(board: np.ndarray, start: int, end: int, key: np.uint64, words: np.ndarray) -> tuple:
    """Move the mover's checker from ``start`` to ``end`` (hitting a blot there); returns (key, hit)."""
    count = board[MOVER, start]
    key ^= _word(MOVER, start, count, words) ^ _word(MOVER, start, count - 1, words)
    board[MOVER, start] = count - 1
    hit = False
    if end >= 0:
        count = board[MOVER, end]
        key ^= _word(MOVER, end, count, words) ^ _word(MOVER, end, count + 1, words)
        board[MOVER, end] = count + 1
        facing = 23 - end
        if board[OPPONENT, facing] == 1:
            hit = True
            bar = board[OPPONENT, BAR]
            key ^= _word(OPPONENT, facing, 1, words) ^ _word(OPPONENT, facing, 0, words)
            key ^= _word(OPPONENT, BAR, bar, words) ^ _word(OPPONENT, BAR, bar + 1, words)
            board[OPPONENT, facing] = 0
            board[OPPONENT, BAR] = bar + 1
    return key, hit


@njit(cache=True, inline="always")
def unmove_checker(board: np.ndarray, start: int, end: int, hit: bool) -> None:
    """Take back ``move_checker`` (the caller restores its own copy of the key)."""
    board[MOVER, start] += 1
    if end >= 0:
        board[MOVER, end] -= 1
        if hit:
            board[OPPONENT, 23 - end] = 1
            board[OPPONENT, BAR] -= 1


@njit(cache=True, inline="always")
def _same(first: np.ndarray, second: np.ndarray) -> bool:
    for row in range(2):
        for index in range(ROW):
            if first[row, index] != second[row, index]:
                return False
    return True


@njit(cache=True, inline="always")
def _record(
    board: np.ndarray,
    key: np.uint64,
    path: np.ndarray,
    used: int,
    pips: int,
    count: int,
    best: np.ndarray,
    boards: np.ndarray,
    moves: np.ndarray,
    lengths: np.ndarray,
    keys: np.ndarray,
    slots: np.ndarray,
    table: np.ndarray,
) -> int:
    """Keep one candidate play if it uses as many dice (then pips) as the best so far and its result is
    new; returns the new count of kept plays. ``best`` holds (dice used, pips) of the kept plays."""
    if used < best[0] or (used == best[0] and pips < best[1]):
        return count
    if used > best[0] or pips > best[1]:
        for kept in range(count):  # a longer play exists: everything kept so far is illegal
            table[slots[kept]] = -1
        count = 0
        best[0] = used
        best[1] = pips
    slot = np.int64(key & np.uint64(TABLE_SIZE - 1))
    while table[slot] >= 0:
        other = table[slot]
        if keys[other] == key and _same(boards[other], board):
            return count
        slot = (slot + 1) & (TABLE_SIZE - 1)
    if count >= MAX_PLAYS:
        raise ValueError("more distinct plays than MAX_PLAYS")
    table[slot] = count
    slots[count] = slot
    keys[count] = key
    boards[count] = board
    lengths[count] = used
    for step in range(4):
        moves[count, step, 0] = path[step, 0] if step < used else 0
        moves[count, step, 1] = path[step, 1] if step < used else 0
    return count + 1


@njit(cache=True)
def generate_plays(
    board: np.ndarray,
    die1: int,
    die2: int,
    words: np.ndarray,
    boards: np.ndarray,
    moves: np.ndarray,
    lengths: np.ndarray,
    keys: np.ndarray,
    slots: np.ndarray,
    table: np.ndarray,
) -> int:
    """Every legal play of the roll ``die1``-``die2`` for the side on roll, one per distinct result.

    Fills, for play k: ``boards[k]`` the resulting board (still from the mover's side), ``moves[k, :n]``
    its single checker moves (from, to) in playing order with n = ``lengths[k]``, ``keys[k]`` the result's
    key. A roll that cannot be played gives one play of no moves. ``table`` (TABLE_SIZE, all -1) is
    working memory left all -1 again. Returns the number of plays.
    """
    doubles = die1 == die2
    dice = np.empty(4, dtype=np.int64)
    orders = 1 if doubles else 2
    steps = 4 if doubles else 2
    work = board.copy()
    path = np.zeros((4, 2), dtype=np.int64)
    hits = np.zeros(4, dtype=np.bool_)
    keystack = np.zeros(5, dtype=np.uint64)
    source = np.zeros(4, dtype=np.int64)
    found = np.zeros(4, dtype=np.bool_)
    best = np.zeros(2, dtype=np.int64)
    count = 0
    for order in range(orders):
        if doubles:
            dice[:] = die1
        elif order == 0:
            dice[0] = max(die1, die2)
            dice[1] = min(die1, die2)
        else:
            dice[0] = min(die1, die2)
            dice[1] = max(die1, die2)
        keystack[0] = board_key(work, words)
        depth = 0
        source[0] = next_source(work, BAR)
        found[0] = False
        while depth >= 0:
            start = source[depth]
            if start < 0:  # every checker tried at this depth
                if not found[depth]:
                    pips = 0
                    for step in range(depth):
                        pips += dice[step]
                    count = _record(
                        work,
                        keystack[depth],
                        path,
                        depth,
                        pips,
                        count,
                        best,
                        boards,
                        moves,
                        lengths,
                        keys,
                        slots,
                        table,
                    )
                depth -= 1
                if depth >= 0:
                    unmove_checker(work, path[depth, 0], path[depth, 1], hits[depth])
                    source[depth] = next_source(work, source[depth] - 1)
                continue
            end = destination(work, start, dice[depth])
            if end == ILLEGAL:
                source[depth] = next_source(work, start - 1)
                continue
            found[depth] = True
            if order == 1 and depth == 1 and start != path[0, 1] and path[0, 0] != BAR and end != OFF:
                # the lower die was played first by another checker, neither move entering from the bar
                # nor bearing off the second: the higher die first gives the same play, already kept
                source[depth] = next_source(work, start - 1)
                continue
            key, hit = move_checker(work, start, end, keystack[depth], words)
            path[depth, 0] = start
            path[depth, 1] = end
            hits[depth] = hit
            keystack[depth + 1] = key
            if depth + 1 == steps:
                pips = 0
                for step in range(steps):
                    pips += dice[step]
                count = _record(
                    work, key, path, steps, pips, count, best, boards, moves, lengths, keys, slots, table
                )
                unmove_checker(work, start, end, hit)
                source[depth] = next_source(work, start - 1)
                continue
            depth += 1
            # doubles: sources never rise, so no set of moves is tried in two orders
            source[depth] = next_source(work, start if doubles else BAR)
            found[depth] = False
    for kept in range(count):
        table[slots[kept]] = -1
    return count


@njit(cache=True)
def play_buffers() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What ``generate_plays`` fills for one roll at a time: ``boards``, ``moves``, ``lengths``, ``keys``,
    ``slots`` and ``table`` (all -1), for up to MAX_PLAYS plays."""
    return (
        np.empty((MAX_PLAYS, 2, ROW), dtype=np.int8),
        np.empty((MAX_PLAYS, 4, 2), dtype=np.int8),
        np.empty(MAX_PLAYS, dtype=np.int8),
        np.empty(MAX_PLAYS, dtype=np.uint64),
        np.empty(MAX_PLAYS, dtype=np.int64),
        np.full(TABLE_SIZE, -1, dtype=np.int64),
    )


@njit(cache=True)
def count_plays(positions: np.ndarray, rolls: np.ndarray, words: np.ndarray, repeat: int) -> int:
    """Generate the full play set of every (position, roll) pair ``repeat`` times; returns the plays
    counted, for benchmarks and checks."""
    boards, moves, lengths, keys, slots, table = play_buffers()
    total = 0
    for _ in range(repeat):
        for i in range(positions.shape[0]):
            total += generate_plays(
                positions[i], rolls[i, 0], rolls[i, 1], words, boards, moves, lengths, keys, slots, table
            )
    return total


@njit(cache=True)
def swap_into(board: np.ndarray, out: np.ndarray) -> None:
    """``board`` with its two rows exchanged into ``out``: the same checkers seen by the other side, as
    when the turn passes after a play."""
    for index in range(ROW):
        out[0, index] = board[1, index]
        out[1, index] = board[0, index]


@njit(cache=True, inline="always")
def rearmost(row: np.ndarray) -> int:
    """The index (0..24, 24 the bar) of the rearmost checker of ``row`` (one side's 25 places), -1 when
    the side has none left."""
    for index in range(ROW - 1, -1, -1):
        if row[index] > 0:
            return index
    return -1


@njit(cache=True)
def pip_counts(board: np.ndarray) -> tuple:
    """Pips each side needs to bear everything off: (opponent's, mover's); the bar counts 25."""
    opponent = 0
    mover = 0
    for index in range(ROW):
        opponent += board[OPPONENT, index] * (index + 1)
        mover += board[MOVER, index] * (index + 1)
    return opponent, mover
