"""A backgammon position drawn as an SVG picture, in the layout of gnubg's board (and of ``diagram``): the
player on roll at the bottom, moving anticlockwise to its home board on the right, points numbered from its
side (1..12 along the bottom from right to left, 13..24 along the top from left to right), the bar in the
middle, the checkers borne off in the tray on the right (the mover's at the bottom), the dice rolled, and
the doubling cube with its value beside the player who owns it (in the middle while centred).

Every checker is drawn, a tall stack squeezed to fit its point and labelled with its count; so the
picture always shows 15 checkers per player: on the points, on the bar and borne off.

The play made and the engine's best play can be drawn on top, each checker move an arrow from the point
it leaves to the point it reaches (red for the play made, green for the best one). Cube and take
decisions (``double``, ``take``, ``pass``...) have no arrows: the legend names both actions.
"""

from __future__ import annotations

from collections.abc import Sequence

from taldau.base.svg import BEST, INK, PLAYED, Point, arrow, document, text

from .diagram import cube_and_score
from .records.jellyfish import SegmentError, parse_segment
from .records.record import BAR, OFF, Segment
from .rules import board as core
from .rules.cube import MatchState
from .rules.position import Dice, Position

POINT_W = 40  # a point's width; a checker is a little narrower
RADIUS = 18
POINT_H = 5 * 2 * RADIUS  # five checkers fit a point
CUBE_W = 56  # the column left of the board where the cube stands
BOARD_X = CUBE_W
BAR_X = BOARD_X + 6 * POINT_W
RIGHT_X = BAR_X + POINT_W
TRAY_X = RIGHT_X + 6 * POINT_W + 8
WIDTH = TRAY_X + 56
TOP = 26  # the board's top edge, under the top point numbers
MIDDLE = TOP + POINT_H + 22  # the middle of the board, where the dice lie
BOTTOM = MIDDLE + 22 + POINT_H  # the board's bottom edge
HEIGHT = BOTTOM + 24 + 3 * 20 + 8  # point numbers, then three lines of legend
COLOURS = ("#f5f0e6", "#37474f")  # player 1's checkers light, player 2's dark, as on a board
PIPS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}


def point_x(point: int) -> float:
    """The middle of the mover's ``point`` (1..24) across the board."""
    if point <= 6:
        return RIGHT_X + (6 - point + 0.5) * POINT_W
    if point <= 12:
        return BOARD_X + (12 - point + 0.5) * POINT_W
    if point <= 18:
        return BOARD_X + (point - 13 + 0.5) * POINT_W
    return RIGHT_X + (point - 19 + 0.5) * POINT_W


def _stack(x: float, count: int, base: float, direction: int, player: int, room: float) -> list[str]:
    """``count`` checkers of ``player`` piled from ``base`` towards the middle (``direction`` -1 up, 1
    down) within ``room`` units, squeezed when they do not fit, the count written on the last one when
    more than five."""
    if not count:
        return []
    step = 2 * RADIUS if count * 2 * RADIUS <= room else (room - 2 * RADIUS) / (count - 1)
    parts = []
    for index in range(count):
        y = base + direction * (RADIUS + index * step)
        parts.append(
            f'<circle class="checker" data-player="{player}" cx="{x:.1f}" cy="{y:.1f}" r="{RADIUS - 1}" '
            f'fill="{COLOURS[player]}" stroke="#212121" stroke-width="1.2"/>'
        )
    if count > 5:
        y = base + direction * (RADIUS + (count - 1) * step) + 5
        parts.append(text(x, y, str(count), 14, "middle", fill=COLOURS[1 - player], bold=True))
    return parts


def _place(point: int, mover: bool) -> Point:
    """Where an arrow touches ``point`` of the mover (1..24, ``BAR``, ``OFF``): a little in from the edge
    of its point, the middle of the bar's lower half, the mover's tray."""
    if point == BAR:
        return BAR_X + POINT_W / 2, MIDDLE + 60
    if point == OFF:
        return TRAY_X + 24, BOTTOM - 60
    return point_x(point), (BOTTOM - 2.5 * RADIUS) if point <= 12 else (TOP + 2.5 * RADIUS)


def segments(play: str | None) -> list[Segment] | None:
    """The checker moves of a play written as gnubg writes it (``24/20 13/8``, ``bar/22*``, ``6/off(2)``);
    None for anything else (a cube action, a roll that could not be played)."""
    if not play:
        return None
    try:
        return [parse_segment(token) for token in play.split()]
    except SegmentError:
        return None


def _arrows(play: list[Segment], colour: str, kind: str, bend: float) -> list[str]:
    return [
        arrow(
            [_place(place, True) for place in (segment.start, *segment.via, segment.end)],
            colour,
            kind,
            bend,
            f"x{segment.count}" if segment.count > 1 else "",
        )
        for segment in play
    ]


def _die(x: float, y: float, value: int, player: int) -> str:
    size = 32
    pips = "".join(
        f'<circle cx="{x + size / 2 + dx * 8:.1f}" cy="{y + size / 2 + dy * 8:.1f}" r="3.2" '
        f'fill="{COLOURS[1 - player]}"/>'
        for dx, dy in PIPS[value]
    )
    return (
        f'<g class="die" data-value="{value}"><rect x="{x:.1f}" y="{y:.1f}" width="{size}" height="{size}" '
        f'rx="5" fill="{COLOURS[player]}" stroke="#212121"/>{pips}</g>'
    )


def _cube(state: MatchState, mover: int) -> list[str]:
    """The cube left of the board: at the top beside the player across the board when that player owns
    it, at the bottom beside the mover when the mover does, in the middle while centred."""
    owner = state.cube_owner
    y = MIDDLE - 20 if owner is None else (BOTTOM - 48 if owner == mover else TOP + 8)
    holder = "centred" if owner is None else f"player {owner + 1}"
    return [
        f'<g class="cube" data-value="{state.cube}" data-owner="{holder}">',
        f'<rect x="10" y="{y}" width="40" height="40" rx="5" fill="#fffde7" stroke="#212121" '
        'stroke-width="2"/>',
        text(30, y + 27, str(state.cube), 20 if state.cube < 10 else 16, "middle", bold=True),
        "</g>",
    ]


def render_svg(
    position: Position,
    state: MatchState | None = None,
    dice: Dice | None = None,
    played: str | None = None,
    best: str | None = None,
) -> str:
    """The position as a standalone SVG element: the match ``state`` (cube and score) and ``dice`` when
    known, and the play or cube action ``played`` and the ``best`` one when given."""
    board, mover = position.board, position.turn
    parts = [
        f'<rect width="{WIDTH}" height="{HEIGHT}" rx="8" fill="#efe7d6"/>',
        f'<rect x="{BOARD_X}" y="{TOP}" width="{TRAY_X - 8 - BOARD_X}" height="{BOTTOM - TOP}" '
        'fill="#2e6b3f" stroke="#4e342e" stroke-width="3"/>',
        f'<rect x="{BAR_X}" y="{TOP}" width="{POINT_W}" height="{BOTTOM - TOP}" fill="#4e342e"/>',
        f'<rect x="{TRAY_X}" y="{TOP}" width="48" height="{BOTTOM - TOP}" fill="#4e342e" rx="4"/>',
    ]
    for point in range(1, 25):
        x, top = point_x(point), point > 12
        edge, tip = (TOP, TOP + POINT_H) if top else (BOTTOM, BOTTOM - POINT_H)
        colour = "#c8a165" if point % 2 else "#8c3b2e"
        parts.append(
            f'<polygon class="point" points="{x - POINT_W / 2:.1f},{edge} {x + POINT_W / 2:.1f},{edge} '
            f'{x:.1f},{tip}" fill="{colour}"/>'
        )
        label_y = TOP - 8 if top else BOTTOM + 18
        parts.append(text(x, label_y, str(point), 12, "middle"))
    for point in range(1, 25):
        x, top = point_x(point), point > 12
        edge, direction = (TOP, 1) if top else (BOTTOM, -1)
        ours, theirs = int(board[core.MOVER][point - 1]), int(board[core.OPPONENT][24 - point])
        count, player = (ours, mover) if ours else (theirs, 1 - mover)
        parts += _stack(x, count, edge, direction, player, POINT_H + 16)
    bar_x = BAR_X + POINT_W / 2
    parts += _stack(bar_x, int(board[core.MOVER][core.BAR]), MIDDLE + 8, 1, mover, POINT_H - 8)
    parts += _stack(bar_x, int(board[core.OPPONENT][core.BAR]), MIDDLE - 8, -1, 1 - mover, POINT_H - 8)
    for row, player in ((core.MOVER, mover), (core.OPPONENT, 1 - mover)):
        for index in range(position.borne_off(row)):  # the mover's from the bottom up, the other's down
            y = BOTTOM - 13 - index * 11 if row == core.MOVER else TOP + 4 + index * 11
            parts.append(
                f'<rect class="checker off" data-player="{player}" x="{TRAY_X + 6}" y="{y}" width="36" '
                f'height="9" rx="2" fill="{COLOURS[player]}" stroke="#212121"/>'
            )
    if dice is not None:
        parts += [
            _die(RIGHT_X + 2 * POINT_W + offset, MIDDLE - 16, value, mover)
            for offset, value in ((0, dice[0]), (44, dice[1]))
        ]
    if state is not None:
        parts += _cube(state, mover)
    for play, colour, kind, bend in ((best, BEST, "best", -1.0), (played, PLAYED, "played", 1.0)):
        moves = segments(play)
        if moves is not None and not (kind == "best" and play == played):
            parts += _arrows(moves, colour, kind, bend)
    parts += _legend(position, state, dice, played, best)
    label = f"Backgammon position, player {mover + 1} on roll"
    return document(WIDTH, HEIGHT, "backgammon", label, parts)


def _legend(
    position: Position, state: MatchState | None, dice: Dice | None, played: str | None, best: str | None
) -> list[str]:
    """Three lines under the board: who is who with pips, the dice, cube and score, and the two plays."""
    mover = position.turn
    pips_mover, pips_other = position.pips()
    shade = "light" if mover == 0 else "dark"
    who = f"player {mover + 1} on roll (bottom, {shade}): {pips_mover} pips; "
    who += f"player {2 - mover}: {pips_other} pips"
    lines: list[Sequence[tuple[str, str]]] = [[(who, INK)]]
    facts = []
    if dice is not None:
        facts.append(f"dice {dice[0]}{dice[1]}")
    if state is not None:
        cube, score = cube_and_score(state)
        facts.append(f"cube {cube}")
        if state.offered_by is not None:  # a take decision: the double waits for its answer
            facts.append(f"player {state.offered_by + 1} doubles to {2 * state.cube}")
        facts.append(f"score {score}")
    lines.append([("; ".join(facts), INK)])
    moves = []
    if played:
        moves.append((f"played {played}", PLAYED))
    if best:
        moves.append((f"best {best}" + (" (the play made)" if best == played else ""), BEST))
    lines.append(moves)
    parts = []
    for row, words in enumerate(lines):
        x = 10.0
        for word, colour in words:
            parts.append(text(x, BOTTOM + 44 + row * 20, word, 14, fill=colour, bold=colour != INK))
            x += 8 * len(word) + 20
    return parts
