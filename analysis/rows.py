"""The decision record (``taldau.base.kind.Decision``) as a ``moves`` row and back: one mapping, used by
the batch to write what it judged and by ``annotate`` to rebuild the decisions an analysis stored.

Every column is the decision's field of the same name (version 7 of the table named them so) except those
converted: the kind and the luck mark as their strings, the dice as
two digits, the cube's equities in columns of their own, the mark beside the decision, and the ply: the
decision's index from 0 in the game's review, its number from 1 in the table (as players count moves: see
``taldau.schemas.moves``)."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from taldau.base.kind import CubeEquities, Decision, DecisionKind, LuckMark, Mark
from taldau.schemas import MoveRow
from taldau.schemas.columns import column_names

from .review import GameReview, MarkedDecision

_CUBE_COLUMNS = tuple(item.name for item in fields(CubeEquities))
_CONVERTED = {"game_id", "ply", "kind", "dice", "mark", "luck_mark", *_CUBE_COLUMNS}
_SAME_NAME = tuple(name for name in column_names(MoveRow) if name not in _CONVERTED)


def move_row(game_id: str, row: MarkedDecision) -> MoveRow:
    """The ``moves`` row of a marked decision of game ``game_id``."""
    decision, cube = row.decision, row.decision.cube
    return MoveRow(
        game_id=game_id,
        ply=decision.ply + 1,
        **{name: getattr(decision, name) for name in _SAME_NAME},
        **{name: None if cube is None else getattr(cube, name) for name in _CUBE_COLUMNS},
        kind=str(decision.kind),
        dice=None if decision.dice is None else "".join(str(die) for die in decision.dice),
        mark=row.mark,
        luck_mark=None if decision.luck_mark is None else str(decision.luck_mark),
    )


def move_rows(game_id: str, review: GameReview) -> list[MoveRow]:
    """The ``moves`` rows of a reviewed game."""
    return [move_row(game_id, row) for row in review.decisions]


def marked_decision(row: dict[str, Any]) -> MarkedDecision:
    """A ``moves`` row (as a dict of its columns, as version 7 names and counts them: see
    ``schemas.moves.as_current``; a backgammon column missing reads as null) as the decision it stores,
    with its stored mark."""
    dice, luck_mark = row.get("dice"), row.get("luck_mark")
    cube = None
    if row.get("verdict") is not None:
        cube = CubeEquities(*(row[name] for name in _CUBE_COLUMNS))
    decision = Decision(
        ply=row["ply"] - 1,
        **{name: row.get(name) for name in _SAME_NAME},
        kind=DecisionKind(row["kind"]),
        dice=None if dice is None else (int(dice[0]), int(dice[1])),
        cube=cube,
        luck_mark=None if luck_mark is None else LuckMark(luck_mark),
    )
    return MarkedDecision(decision, None if row["mark"] is None else Mark(row["mark"]))
