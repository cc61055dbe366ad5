"""Building positions for tests: Togyz from pit lists (through the FEN parser), backgammon boards from
checker counts per point, and the match state of a case of gnubg's cube fixtures."""

from __future__ import annotations

import numpy as np
from taldau.games.backgammon.cube import MatchState, Rules
from taldau.games.togyz import Position


def _row(pits: list[int | str]) -> str:
    return ",".join("t" if pit == "t" else (f"{pit}S" if pit else "1") for pit in pits)


def make_position(
    white: list[int | str],
    black: list[int | str],
    white_kazan: int | None = None,
    black_kazan: int | None = None,
    turn: str = "S",
    move_number: int = 10,
) -> Position:
    """A position from White's and Black's pits 1..9 (``"t"`` for a tuzdyk on that row).

    The kazan left as None takes the stones needed for 162 in all.
    """
    on_board = sum(p for p in white + black if p != "t")
    if white_kazan is None:
        white_kazan = 162 - on_board - (black_kazan or 0)
    if black_kazan is None:
        black_kazan = 162 - on_board - white_kazan
    board = f"{_row(list(reversed(black)))}/{_row(white)}"
    return Position.from_fen(f"{board} {white_kazan} {black_kazan} {turn} {move_number}")


def backgammon_board(mover: dict[int, int], opponent: dict[int, int]) -> np.ndarray:
    """A backgammon board from {point: checkers} of each side, points 1..24 from that side, 25 the bar;
    ``mover`` is on roll (row 1)."""
    cells = np.zeros((2, 25), dtype=np.int8)
    for row, side in ((1, mover), (0, opponent)):
        for point, count in side.items():
            cells[row, point - 1] = count
    return cells


def gnubg_case_state(case: dict) -> MatchState:
    """The match state of a case of ``tests/data/backgammon/gnubg/cube*.json`` (made by cube_fixtures.py,
    beavers allowed as gnubg was told)."""
    length, score = case["length"], tuple(case["score"])
    one_away = bool(length) and max(score) == length - 1
    return MatchState(
        Rules(length=length, jacoby=case["jacoby"], beavers=True),
        score=score,
        crawford_game=case["crawford"],
        post_crawford=one_away and not case["crawford"],
        cube=case["cube"],
        cube_owner=None if case["cube_owner"] == -1 else case["cube_owner"],
    )
