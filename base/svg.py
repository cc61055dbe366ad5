"""What the SVG board diagrams of both games share (``games/togyz/svg.py``, ``games/backgammon/svg.py``): the
frame of a picture and the arrows that show a move, red for the move played and green for the engine's best.

The pictures are plain SVG elements, written as text: they scale to their container (``viewBox``), need no
script, no external font and no ids (an arrowhead is a triangle, not a ``marker``), so that any number of
them can stand in one HTML page, or alone in a ``.svg`` file.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

PLAYED = "#c62828"  # red: the move played
BEST = "#2e7d32"  # green: the engine's best move
INK = "#3e2723"

Point = tuple[float, float]


def document(width: float, height: float, kind: str, label: str, body: Sequence[str]) -> str:
    """A standalone ``<svg>`` element of ``width`` x ``height`` units (shown at most that many pixels wide,
    narrower on a small screen), with CSS class ``board <kind>`` and ``label`` for screen readers."""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="board {kind}" viewBox="0 0 {width:g} {height:g}" '
        f'width="100%" style="max-width:{width:g}px" role="img" aria-label="{escape(label)}">'
        + "".join(body)
        + "</svg>"
    )


def text(
    x: float,
    y: float,
    words: str,
    size: float = 14,
    anchor: str = "start",
    fill: str = INK,
    bold: bool = False,
) -> str:
    """A ``<text>`` element in a sans-serif face; ``words`` are escaped."""
    weight = ' font-weight="bold"' if bold else ""
    return (
        f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size:g}" text-anchor="{anchor}" font-family="sans-serif" '
        f'fill="{fill}"{weight}>{escape(words)}</text>'
    )


def arrow(points: Sequence[Point], colour: str, kind: str, bend: float = 1.0, note: str = "") -> str:
    """An arrow through ``points`` (a curve bent to one side per leg, ``bend`` -1 to 1 picks the side and
    how much), its head a triangle at the last point; a loop when it starts where it ends (a sowing that
    laps the board). ``note`` (such as ``x2``) is written beside the head. CSS class ``arrow <kind>``."""
    legs: list[str] = []
    (x1, y1) = points[0]
    control: Point = points[0]
    for x2, y2 in points[1:]:
        if (x1, y1) == (x2, y2):
            control = (x1 + 40, y1 - 70)
            legs.append(f"C{x1 - 40:.1f},{y1 - 70:.1f} {control[0]:.1f},{control[1]:.1f} {x2:.1f},{y2:.1f}")
        else:
            length = math.hypot(x2 - x1, y2 - y1)
            offset = bend * min(length, 160) / 2
            control = (
                (x1 + x2) / 2 - (y2 - y1) / length * offset,
                (y1 + y2) / 2 + (x2 - x1) / length * offset,
            )
            legs.append(f"Q{control[0]:.1f},{control[1]:.1f} {x2:.1f},{y2:.1f}")
        x1, y1 = x2, y2
    angle = math.atan2(y1 - control[1], x1 - control[0])
    head = [(x1, y1)] + [
        (x1 - 13 * math.cos(angle + turn), y1 - 13 * math.sin(angle + turn)) for turn in (-0.4, 0.4)
    ]
    start = points[0]
    parts = [
        f'<g class="arrow {kind}"><path d="M{start[0]:.1f},{start[1]:.1f} {" ".join(legs)}" fill="none" '
        f'stroke="{colour}" stroke-width="4" stroke-opacity="0.85" stroke-linecap="round"/>',
        f'<polygon points="{" ".join(f"{x:.1f},{y:.1f}" for x, y in head)}" fill="{colour}"/>',
    ]
    if note:
        parts.append(text(x1 + 8, y1 - 8, note, 13, fill=colour, bold=True))
    parts.append("</g>")
    return "".join(parts)
