"""Building positions for tests: Togyz from pit lists (through the FEN parser), backgammon boards from
checker counts per point, and the match state of a case of gnubg's cube fixtures; and a game's decisions and
rows of the moves table made by hand, filler but for what a test names."""

from __future__ import annotations

import re
from dataclasses import fields as fields_of
from pathlib import Path
from typing import Any

import numpy as np
from taldau.base.kind import MOVE, Decision
from taldau.games.backgammon.review.decision import BackgammonDetail
from taldau.games.backgammon.rules.cube import MatchState, Rules
from taldau.games.togyz import START_FEN, Position
from taldau.games.togyz.decision import TogyzDetail
from taldau.schemas import MoveRow

# What a decision's search records, alike in a game's Decision and in a row of the moves table: the start
# position searched to nothing, every number 0, every text empty, counted.
SEARCHED: dict[str, Any] = {
    "position": START_FEN,
    **dict.fromkeys(("played", "best", "pv"), ""),
    **dict.fromkeys(("key", "depth", "seldepth", "nodes"), 0),
    **dict.fromkeys(("score_best", "score_played", "loss", "drop", "chance_before", "chance_after"), 0.0),
    **dict.fromkeys(("plies_to_result_best", "plies_to_result_played"), None),
    "seconds": 0.0,
    "forced": False,
    "counted": True,
}

COMMON = {item.name for item in fields_of(Decision)}
TOGYZ = {item.name for item in fields_of(TogyzDetail)}


def make_decision(**fields: Any) -> Decision:
    """A game's first decision, a move of the first player, with ``SEARCHED``; ``fields`` in place of any of
    these. A field of a game's own part of the decision goes into its ``detail``: a backgammon one
    (``BackgammonDetail``: dice, match_id, cube, luck ...) makes a backgammon decision, else it is Togyz's
    (``TogyzDetail``: the plies to a result)."""
    given = SEARCHED | {"ply": 0, "side": 0, "kind": MOVE} | fields
    common = {name: value for name, value in given.items() if name in COMMON}
    togyz = {name: value for name, value in given.items() if name in TOGYZ}
    backgammon = {name: value for name, value in given.items() if name not in COMMON | TOGYZ}
    detail = BackgammonDetail(**backgammon) if backgammon else TogyzDetail(**togyz)
    return Decision(**common, detail=common.get("detail", detail))


def make_move_row(**fields: Any) -> MoveRow:
    """A row of the moves table: the first move of game ``g``, with ``SEARCHED`` and no mark; ``fields`` in
    place of any of these."""
    first = {"game_id": "g", "ply": 1, "side": 0, "kind": "move", "mark": None}
    return MoveRow(**(SEARCHED | first | fields))


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


def another_game(record: str, event: str) -> str:
    """A PGN game ``record`` as another game of the same moves: its Event header ``event`` (which the
    tests' worker hooks look for) and its White player renamed, a game's identity being its players and
    moves (a copy under another Event alone is a duplicate of the game, analysed once)."""
    renamed = re.sub(r'\[White "([^"]*)"\]', rf'[White "\1 {event}"]', record, count=1)
    return re.sub(r'\[Event "[^"]*"\]', f'[Event "{event}"]', renamed, count=1)


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, dead but not yet reaped by its parent, does not)."""
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
