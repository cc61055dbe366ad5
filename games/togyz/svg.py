"""A Togyz Kumalak position drawn as an SVG picture, as White sees the board (the layout of ``diagram``):
Black's pits 9..1 along the top, White's pits 1..9 along the bottom, the two kazans (stores) between the
rows. Every pit shows its stones as small circles and their number; a tuzdyk (a pit won by the player
across the board: whatever falls into it goes to its owner's kazan) is drawn crossed and says whose it is.

The move played and the engine's best move can be drawn on top as arrows from the origin pit to the pit
where the last stone falls (red for the move played, green for the best one), so that a reader sees both
sowings at a glance. The picture scales to its container (``viewBox``) and needs no script or font.
"""

from __future__ import annotations

import math

from taldau.base.svg import BEST, INK, PLAYED, arrow, document, text

from .board import STONES
from .position import Position, Side

PIT_W, PIT_H, GAP = 56, 96, 6
LEFT, TOP = 34, 30
KAZAN_H = 34
WIDTH = LEFT * 2 + 9 * PIT_W + 8 * GAP
ROW_Y = {Side.BLACK: TOP, Side.WHITE: TOP + PIT_H + 2 * KAZAN_H + 2 * GAP + 12}
HEIGHT = ROW_Y[Side.WHITE] + PIT_H + 64
STONE_CAP = 60  # stones drawn one by one per pit; a fuller pit shows the first 60 and its number


def pit_centre(side: Side, pit: int) -> tuple[float, float]:
    """Where the middle of ``side``'s pit (1..9) is drawn: White's run left to right, Black's right to
    left, as the players face each other across the board."""
    column = pit - 1 if side is Side.WHITE else 9 - pit
    return LEFT + column * (PIT_W + GAP) + PIT_W / 2, ROW_Y[side] + PIT_H / 2


def _stones(count: int) -> str:
    """Circles for ``count`` stones in a grid that fits a pit above its number, from the pit's top middle
    (placed with a ``translate``)."""
    shown = min(count, STONE_CAP)
    columns = 3 if shown <= 12 else 4 if shown <= 24 else 6
    step = (PIT_W - 10) / columns
    radius = min(step / 2 - 1, 5.5)
    rows = math.ceil(shown / columns) if shown else 0
    step_y = min(step, (PIT_H - 30) / max(rows, 1))
    circles = []
    for index in range(shown):
        row, column = divmod(index, columns)
        x = -(columns - 1) * step / 2 + column * step
        y = 8 + radius + row * step_y
        circles.append(f'<circle class="stone" cx="{x:.1f}" cy="{y:.1f}" r="{radius:.1f}"/>')
    return "".join(circles)


def _sowing(position: Position, text: str | None) -> tuple[int, Side, int] | None:
    """The origin pit, and the side and pit where the last stone falls, of a move written in record
    notation (``76``, ``76X``, ``76(24)``: the first digit is the origin pit); None for no move or one
    that is not legal here."""
    if not text or not text[0].isdigit():
        return None
    pit = int(text[0])
    if not position.is_legal(pit):
        return None
    sowing = position.sow(pit)
    return pit, sowing.destination_side, sowing.destination


def render_svg(position: Position, played: str | None = None, best: str | None = None) -> str:
    """The position as a standalone SVG element, with the move ``played`` and the ``best`` move (record
    notation) drawn as arrows when given (one arrow when they are the same move)."""
    mover = position.turn
    moves = {"played": _sowing(position, played), "best": _sowing(position, best)}
    origins = {name: move[0] for name, move in moves.items() if move is not None}
    parts = [f'<rect width="{WIDTH}" height="{HEIGHT}" rx="10" fill="#f3e3c3"/>']
    for side in Side:
        parts += _row(position, side, origins if side is mover else {})
    kazan_w = 9 * PIT_W + 8 * GAP
    for row, side in enumerate((Side.BLACK, Side.WHITE)):
        y = ROW_Y[Side.BLACK] + PIT_H + GAP + 6 + row * (KAZAN_H + GAP)
        parts += [
            f'<g class="kazan" data-side="{side.name.lower()}" data-stones="{position.kazan(side)}">',
            f'<rect x="{LEFT}" y="{y}" width="{kazan_w}" height="{KAZAN_H}" rx="14" fill="#d7b17a" '
            'stroke="#8d6e63"/>',
            text(WIDTH / 2, y + 23, f"{side.label}'s kazan: {position.kazan(side)}", 16, "middle"),
            "</g>",
        ]
    for name, colour, bend in (("best", BEST, -1.0), ("played", PLAYED, 1.0)):
        move = moves[name]
        if move is None or (name == "best" and moves["played"] == move):
            continue
        pit, side, destination = move
        parts.append(arrow([pit_centre(mover, pit), pit_centre(side, destination)], colour, name, bend))
    words = [(f"{mover.label} to move, move {position.move_number}", INK)]
    if played and moves["played"]:
        words.append((f"played {played}", PLAYED))
    if best and moves["best"]:
        words.append((f"best {best}" + (" (the move played)" if best == played else ""), BEST))
    x = LEFT
    for word, colour in words:
        parts.append(text(x, HEIGHT - 18, word, 15, fill=colour, bold=colour != INK))
        x += 9 * len(word) + 24
    return document(WIDTH, HEIGHT, "togyz", f"Togyz Kumalak position, {mover.label} to move", parts)


def _row(position: Position, side: Side, origins: dict[str, int]) -> list[str]:
    """``side``'s nine pits: stones and their number, or the tuzdyk cross; the origin pits of the moves
    drawn (``origins``: ``played`` / ``best`` to a pit of this row) outlined in the arrows' colours."""
    parts = []
    tuzdyk = position.tuzdyk(side.opponent)
    number_y = -8 if side is Side.BLACK else PIT_H + 18
    for pit, count in enumerate(position.pits(side), 1):
        cx, _ = pit_centre(side, pit)
        outline = PLAYED if origins.get("played") == pit else BEST if origins.get("best") == pit else ""
        stroke = f'stroke="{outline}" stroke-width="3"' if outline else 'stroke="#8d6e63" stroke-width="1.5"'
        inside = _inside(None if pit != tuzdyk else side.opponent.label, count)
        parts.append(
            f'<g class="pit" data-side="{side.name.lower()}" data-pit="{pit}" data-stones="{count}" '
            f'transform="translate({cx - PIT_W / 2:.1f},{ROW_Y[side]})"><rect width="{PIT_W}" '
            f'height="{PIT_H}" rx="12" fill="#e2c28f" {stroke}/>{inside}'
            f"{text(PIT_W / 2, number_y, str(pit), 12, 'middle', fill='#6d4c41')}</g>"
        )
    return parts


def _inside(tuzdyk_of: str | None, count: int) -> str:
    """What a pit holds, from its top left corner: its stones and their number (drawn once per count at
    import, so that a report of thousands of diagrams stays fast), or for a tuzdyk a cross and whose it
    is."""
    if tuzdyk_of is None:
        return _PIT_INSIDE[count]
    return (
        f'<path class="tuzdyk" d="M10,10 L{PIT_W - 10},{PIT_H - 22} M{PIT_W - 10},10 L10,{PIT_H - 22}" '
        'stroke="#5d4037" stroke-width="4"/>' + text(PIT_W / 2, PIT_H - 6, f"{tuzdyk_of}'s", 10, "middle")
    )


_PIT_INSIDE = tuple(
    f'<g transform="translate({PIT_W / 2:.1f},0)">{_stones(count)}</g>'
    + text(PIT_W / 2, PIT_H - 8, str(count), 15, "middle", bold=True)
    for count in range(STONES + 1)
)
