"""A Togyz position's search and a judged move as JSON objects (``taldau search --json``); the command prints
these objects as they are, and its text from the same objects."""

from __future__ import annotations

from typing import Any

from .engine import AnalysisInfo, Line
from .position import Position
from .review import Judgement


def search_line(position: Position, line: Line) -> dict[str, Any]:
    """One line of a Togyz search: its move, score (as a number and as text) and principal variation."""
    return {
        "move": position.san(line.move),
        "score": float(line.score),
        "score_text": str(line.score),
        "pv": position.variation_san(line.pv).split(),
    }


def search_json(position: Position, info: AnalysisInfo, multipv: int = 1) -> dict[str, Any]:
    """``taldau search --json``: the best line and the search's statistics, with every line under
    ``lines`` when ``multipv`` asked for more than one."""
    lines = [search_line(position, line) for line in info.lines]
    payload: dict[str, Any] = {
        "best": lines[0]["move"],
        "score": lines[0]["score"],
        "score_text": lines[0]["score_text"],
        "pv": lines[0]["pv"],
        "depth": info.depth,
        "seldepth": info.seldepth,
        "nodes": info.nodes,
        "nps": round(info.nps),
        "seconds": round(info.seconds, 4),
        "solved": info.solved,
    }
    if multipv > 1:
        payload["lines"] = lines
    return payload


def judged_json(position: Position, pit: int, judged: Judgement, mark: str | None) -> dict[str, Any]:
    """``taldau search --played PIT --json``: the move from ``pit`` judged against the best, with its
    ``mark``."""
    return {
        "best": position.san(judged.best.best),
        "played": position.san(pit),
        "score_best": float(judged.best.score),
        "score_played": float(judged.played.score),
        "loss": round(judged.loss, 4),
        "drop": round(judged.drop, 4),
        "mark": mark,
        "depth": judged.best.depth,
        "nodes": judged.nodes,
    }
