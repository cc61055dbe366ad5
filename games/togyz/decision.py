"""Togyz Kumalak's part of the decision record (``taldau.base.kind.Decision.detail``): the plies to a
forced result, where the search found one (a position won or lost by force: one side will have more than
81 of the 162 kumalak, the stones, in its kazan, its store, whatever the other plays)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from taldau.base.kind import ColumnGroup, Decision, DetailColumn


@dataclass(frozen=True)
class TogyzDetail:
    """What a Togyz decision records besides what every game's does: ``plies_to_result_best`` /
    ``plies_to_result_played``, the plies to a forced result after the best / the played move, from the
    mover's side (> 0 a win, < 0 a loss), None where the search found none (the scores of such a result
    stay ``+-(1000 - plies)`` kumalak, so that scores sort)."""

    columns: ClassVar[tuple[ColumnGroup, ...]] = (
        ColumnGroup(
            "drop",
            (
                DetailColumn(
                    "plies_to_result_best",
                    "int16",
                    "plies to a forced result after the best move, mover's side (> 0 a win), else null",
                ),
                DetailColumn(
                    "plies_to_result_played",
                    "int16",
                    "plies to a forced result after the move played, mover's side (> 0 a win), else null",
                ),
            ),
        ),
    )

    plies_to_result_best: int | None = None
    plies_to_result_played: int | None = None

    def values(self) -> dict[str, object]:
        """This detail as the ``moves`` table's columns hold it."""
        return {
            "plies_to_result_best": self.plies_to_result_best,
            "plies_to_result_played": self.plies_to_result_played,
        }

    @classmethod
    def of_values(cls, row: Mapping[str, object]) -> TogyzDetail:
        """The detail a ``moves`` row stores (a column missing, as in older files, reads as null)."""
        return cls(row.get("plies_to_result_best"), row.get("plies_to_result_played"))  # type: ignore[arg-type]

    @classmethod
    def side_figures(cls, side: Sequence[Decision], game: Sequence[Decision]) -> dict[str, object]:
        """Togyz adds nothing to a player's figures."""
        return {}
