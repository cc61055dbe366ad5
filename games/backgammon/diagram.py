"""A text drawing of a backgammon position, in the layout of gnubg's ASCII board: the player on roll
(``X``) at the bottom moving anticlockwise to its home board on the right, points numbered from its side,
the bar in the middle, checkers borne off and pip counts beside."""

from __future__ import annotations

from .rules import board as core
from .rules.cube import MatchState
from .rules.position import Position

ROWS = 5  # checkers drawn per point; a taller stack shows its count in the last row


def _cell(count: int, row: int, mark: str) -> str:
    if count <= row:
        return "   "
    if row == ROWS - 1 and count > ROWS:
        return f"{count:>2} "
    return f" {mark} "


def _half(points: list[tuple[int, str]], row: int) -> str:
    return "".join(_cell(count, row, mark) for count, mark in points)


def cube_and_score(state: MatchState) -> tuple[str, str]:
    """The cube in words (``2, owned by player 1``) and the score (``3-1 (7-point match, Crawford game)``),
    for the text and the SVG drawings alike."""
    owner = "centred" if state.cube_owner is None else f"owned by player {state.cube_owner + 1}"
    length = "money" if state.rules.money else f"{state.rules.length}-point match"
    crawford = ", Crawford game" if state.crawford_game else ""
    return f"{state.cube}, {owner}", f"{state.score[0]}-{state.score[1]} ({length}{crawford})"


def render(position: Position, state: MatchState | None = None, dice: tuple[int, int] | None = None) -> str:
    """The board with ``X`` on roll at the bottom, ``O`` at the top; match state and dice if given."""
    board = position.board
    mover, opponent = board[core.MOVER], board[core.OPPONENT]

    def stack(point: int) -> tuple[int, str]:
        """Checkers on the mover's ``point`` (1..24) and whose they are."""
        if mover[point - 1]:
            return int(mover[point - 1]), "X"
        return int(opponent[24 - point]), "O"

    top_left = [stack(p) for p in range(13, 19)]
    top_right = [stack(p) for p in range(19, 25)]
    bottom_left = [stack(p) for p in range(12, 6, -1)]
    bottom_right = [stack(p) for p in range(6, 0, -1)]
    lines = [" +13-14-15-16-17-18-+---+19-20-21-22-23-24-+"]
    for row in range(ROWS):
        bar = f" {opponent[core.BAR]:>1} " if row == 0 and opponent[core.BAR] else "   "
        lines.append(f" |{_half(top_left, row)}|{bar}|{_half(top_right, row)}|")
    lines.append(" |                  |BAR|                  |")
    for row in reversed(range(ROWS)):
        bar = f" {mover[core.BAR]:>1} " if row == 0 and mover[core.BAR] else "   "
        lines.append(f" |{_half(bottom_left, row)}|{bar}|{_half(bottom_right, row)}|")
    lines.append(" +12-11-10--9--8--7-+---+-6--5--4--3--2--1-+")
    pips_x, pips_o = position.pips()
    off_x, off_o = position.borne_off(core.MOVER), position.borne_off(core.OPPONENT)
    on_roll = position.turn
    lines.append(f" X = player {on_roll + 1} (on roll): pips {pips_x}, off {off_x}")
    lines.append(f" O = player {2 - on_roll}: pips {pips_o}, off {off_o}")
    if dice is not None:
        lines.append(f" Dice: {dice[0]}{dice[1]}")
    if state is not None:
        cube, score = cube_and_score(state)
        lines.append(f" Cube: {cube}")
        lines.append(f" Score: {score}")
    lines.append(f" Position ID: {position.position_id()}")
    return "\n".join(lines)
