"""A text diagram of a Togyz Kumalak position, as White sees the board."""

from __future__ import annotations

from .position import Position, Side

_CELL = 4


def _row(cells: list[str]) -> str:
    return "|" + "|".join(cell.center(_CELL) for cell in cells) + "|"


def render(position: Position) -> str:
    """Black's pits 9..1 on top, White's pits 1..9 below, kazans at the side, tuzdyks shown as ``X``.

    A tuzdyk is drawn on the pit it occupies; it belongs to the player across the board.
    """
    cells: dict[Side, list[str]] = {}
    for side in Side:
        tuzdyk = position.tuzdyk(side.opponent)
        cells[side] = [
            "X" if pit == tuzdyk else (str(n) if n else ".") for pit, n in enumerate(position.pits(side), 1)
        ]
    rule = "+" + "+".join("-" * _CELL for _ in range(9)) + "+"
    numbers = " ".join(str(n).center(_CELL) for n in range(1, 10))
    lines = [
        "        " + " ".join(str(n).center(_CELL) for n in range(9, 0, -1)),
        "        " + rule,
        f"Black   {_row(cells[Side.BLACK][::-1])}  kazan {position.kazan(Side.BLACK)}",
        "        " + rule,
        f"White   {_row(cells[Side.WHITE])}  kazan {position.kazan(Side.WHITE)}",
        "        " + rule,
        "        " + numbers,
    ]
    for side in Side:
        tuzdyk = position.tuzdyk(side)
        if tuzdyk is not None:
            lines.append(f"{side.label}'s tuzdyk: {side.opponent.label}'s pit {tuzdyk}")
    outcome = position.outcome()
    if outcome is not None:
        white, black = outcome.kazans
        lines.append(f"Game over by {outcome.termination.value}: {outcome.result} ({white}-{black})")
    else:
        lines.append(f"{position.turn.label} to move, move {position.move_number}")
    return "\n".join(lines)
