"""The decision record (``taldau.base.kind.Decision``) as a ``moves`` row and back: one mapping, used by
the batch to write what it judged and by ``annotate`` to rebuild the decisions an analysis stored.

Every common column is the decision's field of the same name (version 7 of the table named them so)
except the mark, stored beside the decision, and the ply: the decision's index from 0 in the game's
review, its number from 1 in the table (as players count moves: see ``taldau.schemas.moves``). The game's
own columns are its decision's ``detail`` as the detail writes them (``DecisionDetail.values``) and reads
them back (``of_values``, the game's ``GameKind.detail``)."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from taldau.base.kind import Decision, GameKind, Mark
from taldau.schemas import MoveRow
from taldau.schemas.moves import CommonColumns

from .review import GameReview, MarkedDecision

_CONVERTED = {"game_id", "ply", "mark"}
_SAME_NAME = tuple(item.name for item in fields(CommonColumns) if item.name not in _CONVERTED)


def move_row(game_id: str, row: MarkedDecision) -> MoveRow:
    """The ``moves`` row of a marked decision of game ``game_id``."""
    decision = row.decision
    detail = {} if decision.detail is None else decision.detail.values()
    return MoveRow(  # type: ignore[call-arg]
        game_id=game_id,
        ply=decision.ply + 1,
        **{name: getattr(decision, name) for name in _SAME_NAME},
        **detail,
        mark=row.mark,
    )


def move_rows(game_id: str, review: GameReview) -> list[MoveRow]:
    """The ``moves`` rows of a reviewed game."""
    return [move_row(game_id, row) for row in review.decisions]


def marked_decision(row: dict[str, Any], kind: GameKind[Any]) -> MarkedDecision:
    """A ``moves`` row of a game of ``kind`` (as a dict of its columns, as version 7 names and counts
    them: see ``schemas.moves.as_current``; a column missing reads as null) as the decision it stores,
    with its stored mark."""
    decision = Decision(
        ply=row["ply"] - 1,
        **{name: row.get(name) for name in _SAME_NAME},
        detail=None if kind.detail is None else kind.detail.of_values(row),
    )
    return MarkedDecision(decision, None if row["mark"] is None else Mark(row["mark"]))
