"""A backgammon roll's plays as JSON objects (``taldau plays --json``): listed, ranked by an engine, or rolled
out; the command prints these objects as they are, and its text from the same objects."""

from __future__ import annotations

from typing import Any

from .engine import RolledPlay, analyse, engine_search
from .eval import Evaluator
from .position import parse_dice
from .position_text import read_position


def plays_json(position: str, dice: str) -> dict[str, Any]:
    """``taldau plays --json``: the legal plays of ``dice`` (like ``31``) in the backgammon ``position``,
    each with the Position ID it leaves; raises ValueError for a bad position or dice."""
    setup = read_position(position)
    plays = setup.position.plays(parse_dice(dice))
    return {
        "position": position,
        "dice": dice,
        "plays": [{"move": play.text, "result": play.result.position_id()} for play in plays],
    }


def ranked_plays_json(evaluator: Evaluator, position: str, dice: str, plies: int) -> dict[str, Any]:
    """``taldau plays --plies N --json``: the plays of ``dice`` in ``position`` ranked by ``evaluator``
    at ``plies``; raises ValueError for a bad position or dice."""
    analysis = analyse_roll(evaluator, position, dice, plies)
    return {"position": position, "dice": dice} | {
        key: value for key, value in analysis.to_json().items() if key not in ("position", "dice")
    }


def analyse_roll(evaluator: Evaluator, position: str, dice: str, plies: int) -> Any:
    """``engine.analyse`` of ``dice`` in the backgammon ``position`` (a Position ID, GNUbgID or XGID) at
    ``plies`` with the engine's move filter (``engine.engine_search``); raises ValueError for a bad
    position or dice."""
    setup = read_position(position)
    return analyse(evaluator, setup.position, parse_dice(dice), engine_search(evaluator.name, plies))


def rolled_plays_json(
    position: str, dice: str, rollout: Any, plies: int, rolled: tuple[RolledPlay, ...]
) -> dict[str, Any]:
    """``taldau plays --rollout --json``: the plays ``rolled`` out by ``rollout`` (an
    ``eval.sage.SageRollout``), the best of the ranking at ``plies``."""
    return {
        "position": position,
        "dice": dice,
        "engine": rollout.name,
        "plies": plies,
        "rollout": rollout.settings.to_json(),
        "plays": [play.to_json() for play in rolled],
    }
