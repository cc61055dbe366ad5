"""One position looked at on its own, as ``taldau show``, ``search`` and ``plays`` answer: which game's
notation a position's text is (each game of the registry asked), and the JSON objects of a Togyz search and
of a judged move, and of a backgammon roll's plays listed, ranked by an engine or rolled out. The commands
print these objects as they are, and their text from the same objects."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from taldau.games.registry import NAMES, game_kind

if TYPE_CHECKING:
    from taldau.games.backgammon.engine import RolledPlay
    from taldau.games.backgammon.eval import Evaluator
    from taldau.games.togyz import Position
    from taldau.games.togyz.engine import AnalysisInfo, Line
    from taldau.games.togyz.review import Judgement


def position_game(text: str) -> str:
    """The name of the game whose position ``text`` is (a Togyz FEN; a backgammon gnubg Position ID,
    GNUbgID or XGID): the first game of the registry that reads it; raises ValueError with each game's
    reason when none does."""
    reasons: list[str] = []
    for name in NAMES:
        try:
            game_kind(name).svg(text)
        except ValueError as error:
            reasons.append(f"{name}: {error}")
        else:
            return name
    raise ValueError(f"no game reads {text!r} as a position ({'; '.join(reasons)})")


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


def plays_json(position: str, dice: str) -> dict[str, Any]:
    """``taldau plays --json``: the legal plays of ``dice`` (like ``31``) in the backgammon ``position``,
    each with the Position ID it leaves; raises ValueError for a bad position or dice."""
    from taldau.games.backgammon import parse_dice
    from taldau.games.backgammon.position_text import read_position

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
    ``plies`` with the engine's move filter (``engine.engine_limit``); raises ValueError for a bad
    position or dice."""
    from taldau.games.backgammon import parse_dice
    from taldau.games.backgammon.engine import analyse, engine_limit
    from taldau.games.backgammon.position_text import read_position

    setup = read_position(position)
    return analyse(evaluator, setup.position, parse_dice(dice), engine_limit(evaluator.name, plies))


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
