"""Togyz FEN, PlayStrategy's position string, read and written.

``9S,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 0 0 S 1`` is the start position. Fields: the board,
White's (South) kazan, Black's (North) kazan, side to move (``S`` White, ``N`` Black), full-move number.
The board gives Black's row first as White sees it (Black's pit 9 first, pit 1 last), ``/``, then White's
pits 1 to 9. A pit is ``<n>S`` for n >= 1 stones, a bare number k for a run of k empty pits, and ``t`` for
a tuzdyk, which belongs to the player who does not own that row.
"""

from __future__ import annotations

import numpy as np

from .board import (
    CELLS,
    KAZAN,
    MOVE_NUMBER,
    NO_TUZDYK,
    PITS,
    SIDE,
    STATE_DTYPE,
    STATE_SIZE,
    STONES,
    TUZDYK,
)

START_FEN = "9S,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 0 0 S 1"
# The state keeps the move number in 16 bits and every move counts it up: a FEN starts at most here, far
# beyond any real game, so that over 22,000 moves more still fit.
MAX_MOVE_NUMBER = 10_000


class FenError(ValueError):
    """A Togyz FEN that cannot describe a position; the message says which field is wrong and why."""


def _count(text: str) -> int | None:
    """The number ``text`` writes in ASCII digits; None for anything else, and for a number of more than
    nine digits, which no count of this game needs."""
    if not text.isascii() or not text.isdigit() or len(text.lstrip("0")) > 9:
        return None
    return int(text)


def _parse_row(text: str, row_name: str) -> list[int | None]:
    """Pits of one row in written order; ``None`` marks a tuzdyk."""
    pits: list[int | None] = []
    for item in text.split(","):
        stones = _count(item[:-1]) if item.endswith("S") else None
        run = _count(item)
        if item == "t":
            pits.append(None)
        elif stones is not None and stones >= 1:
            if stones > STONES:
                raise FenError(f"{row_name} row: {item!r} holds more than the {STONES} stones of the game")
            pits.append(stones)
        elif run is not None and run >= 1:
            if len(pits) + run > PITS:
                raise FenError(f"{row_name} row describes {len(pits) + run} pits, not 9")
            pits.extend([0] * run)
        else:
            raise FenError(f"{row_name} row: {item!r} is not a pit ('<n>S', a run of empty pits, or 't')")
    if len(pits) != PITS:
        raise FenError(f"{row_name} row describes {len(pits)} pits, not 9")
    return pits


def parse_fen(fen: str) -> np.ndarray:
    """The state array of a Togyz FEN, checked for 162 stones and the tuzdyk rules; raises FenError."""
    fields = fen.split()
    if len(fields) != 5:
        raise FenError(
            "a Togyz FEN has 5 fields (board, White's kazan, Black's kazan, side to move, move number), "
            f"this has {len(fields)}"
        )
    board, white_kazan, black_kazan, side, move_number = fields
    rows = board.split("/")
    if len(rows) != 2:
        raise FenError("the board field must hold two rows separated by '/'")
    black_row = _parse_row(rows[0], "Black's")[::-1]  # written from Black's pit 9 down to pit 1
    white_row = _parse_row(rows[1], "White's")

    state = np.zeros(STATE_SIZE, dtype=STATE_DTYPE)
    state[TUZDYK] = state[TUZDYK + 1] = NO_TUZDYK
    for row_side, row in ((0, white_row), (1, black_row)):
        owner = 1 - row_side  # a tuzdyk on a row belongs to the other player
        for index, stones in enumerate(row):
            cell = row_side * PITS + index
            if stones is None:
                if state[TUZDYK + owner] != NO_TUZDYK:
                    raise FenError(f"{_name(owner)} has two tuzdyks; a player makes at most one")
                if index == PITS - 1:
                    raise FenError("a tuzdyk can never be on pit 9")
                state[TUZDYK + owner] = cell
            else:
                state[cell] = stones
    both = state[TUZDYK] != NO_TUZDYK and state[TUZDYK + 1] != NO_TUZDYK
    if both and state[TUZDYK] % PITS == state[TUZDYK + 1] % PITS:
        raise FenError("the two tuzdyks are on pits with the same number, which the rules forbid")

    for offset, text, name in ((0, white_kazan, "White's kazan"), (1, black_kazan, "Black's kazan")):
        kazan = _count(text)
        if kazan is None or kazan > STONES:
            raise FenError(f"{name} {text!r} is not a number of stones (0 to {STONES})")
        state[KAZAN + offset] = kazan
    if side not in ("S", "N"):
        raise FenError(f"side to move must be 'S' (White) or 'N' (Black), not {side!r}")
    state[SIDE] = 0 if side == "S" else 1
    number = _count(move_number)
    if number is None or not 1 <= number <= MAX_MOVE_NUMBER:
        raise FenError(f"move number {move_number!r} must be a whole number from 1 to {MAX_MOVE_NUMBER}")
    state[MOVE_NUMBER] = number

    total = int(state[: CELLS + 2].sum(dtype=np.int64))
    if total != STONES:
        raise FenError(f"the position holds {total} stones, not {STONES}")
    return state


def _name(side: int) -> str:
    return "White" if side == 0 else "Black"


def _format_row(items: list[str]) -> str:
    """Join pit items, merging consecutive empty pits into one run count."""
    out: list[str] = []
    run = 0
    for item in items:
        if item == "0":
            run += 1
            continue
        if run:
            out.append(str(run))
            run = 0
        out.append(item)
    if run:
        out.append(str(run))
    return ",".join(out)


def format_fen(state: np.ndarray) -> str:
    """The Togyz FEN of a state array."""
    tuzdyks = {int(state[TUZDYK]), int(state[TUZDYK + 1])}

    def item(cell: int) -> str:
        if cell in tuzdyks:
            return "t"
        return f"{state[cell]}S" if state[cell] > 0 else "0"

    black = _format_row([item(PITS + index) for index in reversed(range(PITS))])
    white = _format_row([item(index) for index in range(PITS)])
    side = "S" if state[SIDE] == 0 else "N"
    return f"{black}/{white} {state[KAZAN]} {state[KAZAN + 1]} {side} {state[MOVE_NUMBER]}"
