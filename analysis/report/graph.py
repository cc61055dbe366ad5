"""The evaluation graph of a game as an SVG picture: the first player's winning chances after every decision
(one point per decision: a Togyz ply; a backgammon checker play, cube or take decision), so that the light
area under the line is the first player's share and the dark area above it the second player's; every
marked decision is a dot (yellow ``?!``, orange ``?``, red ``??``) that links to its move in the page's
move list, named as the move list names it (``Ply 8``, ``Move 6``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from html import escape

from taldau.base.kind import Mark
from taldau.schemas import MoveRow

from ..players import Estimate
from .data import MARK_NAMES

WIDTH, HEIGHT = 720, 240
LEFT, RIGHT, TOP, BOTTOM = 44, 10, 12, 28
DOT_COLOURS = {Mark.DOUBTFUL: "#f9a825", Mark.BAD: "#ef6c00", Mark.VERY_BAD: "#c62828"}


def chance(move: MoveRow) -> float:
    """The first player's winning chances after ``move``, 0 to 1."""
    return min(1.0, max(0.0, (move.chance_after + 1) / 2))


def _ply(move: MoveRow) -> str:
    return f"Ply {move.ply}"


def evaluation_graph(
    moves: Sequence[MoveRow],
    names: tuple[str, str],
    named: Callable[[MoveRow], str] = _ply,
    axis: str | None = None,
) -> str:
    """The graph of a game's ``moves`` (in order) with the players' ``names`` (first, second) at the side
    of their areas; each dot titled by ``named`` of its move (the page's ``ReportGame.move_label``; by default
    ``Ply N``) and the points captioned ``axis`` (by default ``ply (1 to N)``)."""
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    count = max(len(moves), 1)

    def x(index: int) -> float:
        return LEFT + (index + 0.5) * plot_w / count

    def y(value: float) -> float:
        return TOP + (1 - value) * plot_h

    points = [(x(index), y(chance(move))) for index, move in enumerate(moves)]
    line = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
    bottom = TOP + plot_h
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="graph" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'width="100%" role="img" aria-label="Winning chances over the game, {len(moves)} decisions" '
        f'data-decisions="{len(moves)}">',
        f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="#455a64"/>',
    ]
    if points:
        area = f"{points[0][0]:.1f},{bottom} {line} {points[-1][0]:.1f},{bottom}"
        parts.append(f'<polygon points="{area}" fill="#eceff1"/>')
    for value, label in ((0.0, "0%"), (0.5, "50%"), (1.0, "100%")):
        parts.append(
            f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{y(value):.1f}" y2="{y(value):.1f}" '
            f'stroke="#90a4ae" stroke-dasharray="{"4 4" if value == 0.5 else "0"}"/>'
            f'<text x="{LEFT - 4}" y="{y(value) + 4:.1f}" font-size="11" text-anchor="end">{label}</text>'
        )
    parts.append(
        f'<polyline class="evaluation" points="{line}" fill="none" stroke="#1565c0" stroke-width="2"/>'
    )
    for (px, py), move in zip(points, moves, strict=True):
        if move.mark in DOT_COLOURS:
            title = f"{named(move)}: {move.played}{move.mark} ({MARK_NAMES[move.mark]})"
            parts.append(
                f'<a href="#ply-{move.ply}"><circle class="mark" data-mark="{escape(move.mark)}" '
                f'cx="{px:.1f}" cy="{py:.1f}" r="5" fill="{DOT_COLOURS[move.mark]}" stroke="#212121">'
                f"<title>{escape(title)}</title></circle></a>"
            )
    first, second = (escape(name) for name in names)
    parts += [
        f'<text x="{LEFT + 6}" y="{bottom - 6}" font-size="12" fill="#263238">{first}</text>',
        f'<text x="{LEFT + 6}" y="{TOP + 14}" font-size="12" fill="#eceff1">{second}</text>',
        f'<text x="{LEFT + plot_w / 2:.0f}" y="{HEIGHT - 8}" font-size="11" text-anchor="middle">'
        f"{escape(axis or f'ply (1 to {len(moves)})')}</text>",
        "</svg>",
    ]
    return "".join(parts)


def form_graph(periods: Sequence[tuple[str, Estimate]], figure: str) -> str:
    """A player's form over time: ``figure`` (its name, for the axis) of each period in order as a line,
    its interval as a band around it (where the period has one), each point titled with its period."""
    known = [(label, estimate) for label, estimate in periods if estimate.value is not None]
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    values = [v for _, e in known for v in (e.value, e.low, e.high) if v is not None]
    low, high = (min(values), max(values)) if values else (0.0, 1.0)
    if high - low < 1e-9:
        low, high = low - 1.0, high + 1.0
    count = max(len(known), 1)

    def x(index: int) -> float:
        return LEFT + (index + 0.5) * plot_w / count

    def y(value: float) -> float:
        return TOP + (high - value) / (high - low) * plot_h

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="form" viewBox="0 0 {WIDTH} {HEIGHT}" width="100%" '
        f'role="img" aria-label="{escape(figure)} by period, {len(known)} periods" '
        f'data-periods="{len(known)}">',
        f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="#fafafa" stroke="#cfd8dc"/>',
    ]
    for value in (low, (low + high) / 2, high):
        parts.append(
            f'<text x="{LEFT - 4}" y="{y(value) + 4:.1f}" font-size="11" text-anchor="end">{value:.2f}</text>'
        )
    banded = [(index, e) for index, (_, e) in enumerate(known) if e.low is not None and e.high is not None]
    if len(banded) > 1:
        upper = [f"{x(index):.1f},{y(e.high):.1f}" for index, e in banded]  # type: ignore[arg-type]
        lower = [f"{x(index):.1f},{y(e.low):.1f}" for index, e in reversed(banded)]  # type: ignore[arg-type]
        parts.append(f'<polygon class="band" points="{" ".join(upper + lower)}" fill="#bbdefb"/>')
    points = [(x(index), y(e.value)) for index, (_, e) in enumerate(known)]  # type: ignore[arg-type]
    parts.append(
        f'<polyline class="value" points="{" ".join(f"{px:.1f},{py:.1f}" for px, py in points)}" '
        f'fill="none" stroke="#1565c0" stroke-width="2"/>'
    )
    for (px, py), (label, estimate) in zip(points, known, strict=True):
        parts.append(
            f'<circle cx="{px:.1f}" cy="{py:.1f}" r="4" fill="#1565c0"><title>{escape(label)}: '
            f"{escape(str(estimate))}</title></circle>"
        )
    first, last = (escape(known[0][0]), escape(known[-1][0])) if known else ("", "")
    parts += [
        f'<text x="{LEFT}" y="{HEIGHT - 8}" font-size="11">{first}</text>',
        f'<text x="{LEFT + plot_w}" y="{HEIGHT - 8}" font-size="11" text-anchor="end">{last}</text>',
        f'<text x="{LEFT + plot_w / 2:.0f}" y="{HEIGHT - 8}" font-size="11" text-anchor="middle">'
        f"{escape(figure)} by period, the band its 95% interval</text>",
        "</svg>",
    ]
    return "".join(parts)
