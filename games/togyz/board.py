"""Compiled core of Togyz Kumalak: the board as a small integer array, sowing, legal moves, position key.

Vocabulary for readers who do not know the game: each player owns nine *pits* (otau) and a *kazan*
(store); the stones are *kumalak*. A move (sowing) empties one of the mover's pits and drops the stones
one by one anticlockwise. A *tuzdyk* is an opponent pit that a player has claimed for the rest of the game:
every stone falling into it goes to the claimer's kazan.

The state of a position is one ``int16`` array of ``STATE_SIZE`` cells:

- cells 0..8: White's pits 1..9; cells 9..17: Black's pits 1..9. Sowing runs from cell i to cell i+1,
  and from cell 17 back to cell 0, which is exactly the anticlockwise order of the rules;
- ``KAZAN + side``: the kazans (side 0 is White, 1 is Black);
- ``TUZDYK + side``: the board cell of that side's tuzdyk (always on the opponent's row), or -1;
- ``SIDE``: the side to move; ``MOVE_NUMBER``: the full-move number, from 1.

Everything here is ``njit(cache=True)``; with ``NUMBA_DISABLE_JIT=1`` it runs as plain Python.
"""

from __future__ import annotations

import numpy as np
from taldau.base.jit import njit
from taldau.base.zobrist import splitmix64_words

PITS = 9
CELLS = 18
KAZAN = 18
TUZDYK = 20
SIDE = 22
MOVE_NUMBER = 23
STATE_SIZE = 24

STONES = 162
STONES_PER_PIT = 9
WINNING_KAZAN = 82  # a kazan above 81 (half of the stones) wins at once
NO_TUZDYK = -1

STATE_DTYPE = np.int16


def start_state() -> np.ndarray:
    """The opening position: 9 stones in every pit, empty kazans, no tuzdyks, White to move, move 1."""
    state = np.zeros(STATE_SIZE, dtype=STATE_DTYPE)
    state[:CELLS] = STONES_PER_PIT
    state[TUZDYK] = NO_TUZDYK
    state[TUZDYK + 1] = NO_TUZDYK
    state[MOVE_NUMBER] = 1
    return state


@njit(cache=True)
def is_over(state: np.ndarray) -> bool:
    """True when the game has ended: a kazan above 81, or the side to move has no stones (atsyrau)."""
    if state[KAZAN] >= WINNING_KAZAN or state[KAZAN + 1] >= WINNING_KAZAN:
        return True
    base = state[SIDE] * PITS
    for pit in range(PITS):
        if state[base + pit] > 0:
            return False
    return True


@njit(cache=True)
def legal_mask(state: np.ndarray) -> int:
    """Bit p (0..8) is set when pit p+1 of the side to move is a legal origin; 0 when the game is over."""
    if state[KAZAN] >= WINNING_KAZAN or state[KAZAN + 1] >= WINNING_KAZAN:
        return 0
    base = state[SIDE] * PITS
    mask = 0
    for pit in range(PITS):
        if state[base + pit] > 0:
            mask |= 1 << pit
    return mask


@njit(cache=True, inline="always")
def sow(state: np.ndarray, pit: int) -> tuple[int, int, bool]:
    """Play pit ``pit`` (0..8) of the side to move in place; the pit must be non-empty.

    Returns ``(last, captured, tuzdyk)``: the board cell (0..17) where the last stone fell, the stones
    taken by the last stone (an even count, or the 3 of a new tuzdyk) and whether a tuzdyk was made.
    """
    side = state[SIDE]
    origin = side * PITS + pit
    stones = state[origin]
    state[origin] = 0
    if stones == 1:
        last = origin + 1
        if last == CELLS:
            last = 0
        state[last] += 1
    else:
        # n stones fill the n consecutive cells starting at the origin itself, lapping when n > 18.
        laps = stones // CELLS
        if laps > 0:
            for cell in range(CELLS):
                state[cell] += laps
        cell = origin
        for _ in range(stones - laps * CELLS):
            state[cell] += 1
            cell += 1
            if cell == CELLS:
                cell = 0
        last = (origin + stones - 1) % CELLS

    # Stones that fell into a tuzdyk belong to its owner's kazan.
    for owner in range(2):
        tuzdyk = state[TUZDYK + owner]
        if tuzdyk >= 0 and state[tuzdyk] > 0:
            state[KAZAN + owner] += state[tuzdyk]
            state[tuzdyk] = 0

    captured = 0
    made_tuzdyk = False
    opponent = 1 - side
    if last // PITS == opponent and last != state[TUZDYK + side]:
        count = state[last]
        if count % 2 == 0:
            state[KAZAN + side] += count
            state[last] = 0
            captured = count
        elif count == 3 and state[TUZDYK + side] < 0 and last % PITS != PITS - 1:
            theirs = state[TUZDYK + opponent]
            if theirs < 0 or theirs % PITS != last % PITS:
                state[TUZDYK + side] = last
                state[KAZAN + side] += 3
                state[last] = 0
                captured = 3
                made_tuzdyk = True

    state[SIDE] = opponent
    if side == 1:
        state[MOVE_NUMBER] += 1
    return last, captured, made_tuzdyk


# Zobrist words, one flat read-only array: one per (cell, count) for the 18 pits and 2 kazans, then one per
# (side, tuzdyk cell or none), then one for Black to move. A constant of the key definition, not state.
KEY_TUZDYKS_AT = 20 * (STONES + 1)
KEY_BLACK_AT = KEY_TUZDYKS_AT + 2 * (CELLS + 1)
KEY_WORDS = np.concatenate(
    [
        splitmix64_words(KEY_TUZDYKS_AT, 0x7A1DA0),
        splitmix64_words(2 * (CELLS + 1), 0x7A1DA1),
        splitmix64_words(1, 0x7A1DA2),
    ]
)
KEY_WORDS.flags.writeable = False


@njit(cache=True, inline="always")
def position_key(state: np.ndarray, words: np.ndarray) -> np.uint64:
    """Zobrist key of pits, kazans, tuzdyks and side to move (not the move number); ``words`` is KEY_WORDS."""
    key = np.uint64(0)
    for cell in range(CELLS + 2):
        key ^= words[cell * (STONES + 1) + state[cell]]
    for owner in range(2):
        key ^= words[KEY_TUZDYKS_AT + owner * (CELLS + 1) + state[TUZDYK + owner] + 1]
    if state[SIDE] == 1:
        key ^= words[KEY_BLACK_AT]
    return key
