"""Backgammon's part of the decision record (``taldau.base.kind.Decision.detail``): what a backgammon
decision records besides what every game's does (its kinds of decision are ``rules.cube.DecisionKind``), the
``moves`` table's columns that hold it, and the figures it adds to a player's (gnubg's kinds of cube error,
the luck, the match winning chances lost).

Words: the *cube* (doubling cube) shows the stake; before rolling, a player may *double*, and the opponent
*takes* (plays on for twice the stake) or *passes* (loses the current stake). *EMG* (equivalent to money
game) is gnubg's normalised equity; *MWC* are match winning chances (0 to 1); *cubeless* equity ignores the
cube. The *luck* of a roll is the equity after it minus the average over all rolls (``luck``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from taldau.base.kind import MOVE, ColumnGroup, Decision, DetailColumn

from ..engine.cubeful import CubeEquities
from ..rules.cube import DecisionKind
from .luck import LuckMark

# gnubg's kinds of cube error, as its statistics name them, each with its column name. CP: the cash point,
# where the double is a pass; DP: the doubling point, below which a double is wrong; TG: too good, where
# the roller should play on for a gammon rather than double.
CUBE_ERRORS = (
    ("missed_doubles_below_cp", "Missed doubles below CP"),
    ("missed_doubles_above_cp", "Missed doubles above CP"),
    ("wrong_doubles_below_dp", "Wrong doubles below DP"),
    ("wrong_doubles_above_tg", "Wrong doubles above TG"),
    ("wrong_takes", "Wrong takes"),
    ("wrong_passes", "Wrong passes"),
)

_BEFORE_MOVE = (
    DetailColumn(
        "dice",
        "string",
        "backgammon: the dice of a checker play as rolled, two digits ('31', '66'); null otherwise",
    ),
)
_AFTER_POSITION = (DetailColumn("match_id", "string", "backgammon: gnubg Match ID before the decision"),)
_AFTER_SEARCH = (
    DetailColumn(
        "cubeless_best",
        "float64",
        "backgammon: cubeless equity after the best action (a cube decision: before the roll), EMG, "
        "first player's side",
    ),
    DetailColumn(
        "cubeless_played",
        "float64",
        "backgammon: cubeless equity after the action taken, EMG, first player's side",
    ),
    DetailColumn(
        "no_double",
        "float64",
        "backgammon cube and take decisions: cubeful equity of No double, EMG, decider's side",
    ),
    DetailColumn(
        "double_take",
        "float64",
        "backgammon cube and take decisions: cubeful equity of Double, take, EMG, decider's side",
    ),
    DetailColumn(
        "double_pass",
        "float64",
        "backgammon cube and take decisions: cubeful equity of Double, pass, EMG, decider's side",
    ),
    DetailColumn(
        "verdict",
        "string",
        "backgammon cube and take decisions: the right cube action in gnubg's words (the doubler's)",
    ),
    DetailColumn(
        "luck",
        "float64",
        "backgammon checker plays: luck of the roll, EMG, mover's side (equity after the roll minus "
        "the average over all rolls)",
    ),
    DetailColumn("luck_mark", "string", "backgammon: ++ very lucky, + lucky, - unlucky, -- very unlucky"),
    DetailColumn(
        "loss_mwc", "float64", "backgammon match play: match winning chances lost, 0 to 1, decider's side"
    ),
)
_AFTER_JUDGED = (
    DetailColumn(
        "luck_mwc",
        "float64",
        "backgammon match play: luck of the roll in match winning chances, mover's side (null before "
        "schema 6)",
    ),
)
_CUBE_COLUMNS = ("no_double", "double_take", "double_pass", "verdict")


@dataclass(frozen=True)
class BackgammonDetail:
    """What a backgammon decision records besides what every game's does (``Decision.detail``).

    ``dice`` as rolled (None for cube and take decisions); ``match_id``: gnubg's Match ID before the
    decision (cube, score, dice); ``cubeless_best`` / ``cubeless_played``: cubeless equities (EMG, first
    player's side) after the best / the played action (a cube or take decision has one, before the roll,
    in both); ``cube``: the three cubeful equities and the verdict of a cube or take decision (None for a
    play); ``luck``: the luck of the roll (EMG, mover's side; None for cube and take decisions) and
    ``luck_mark`` its mark; ``loss_mwc`` / ``luck_mwc``: the loss and the luck in match winning chances
    (0 to 1; None in money play).

    Its columns keep the names the ``moves`` table has always given them: ``dice`` as two digits, the
    cube's equities and verdict in columns of their own, the luck mark as its glyph."""

    columns: ClassVar[tuple[ColumnGroup, ...]] = (
        ColumnGroup("kind", _BEFORE_MOVE),
        ColumnGroup("position", _AFTER_POSITION),
        ColumnGroup("seconds", _AFTER_SEARCH),
        ColumnGroup("loss_se", _AFTER_JUDGED),
    )

    dice: tuple[int, int] | None = None
    match_id: str | None = None
    cubeless_best: float | None = None
    cubeless_played: float | None = None
    cube: CubeEquities | None = None
    luck: float | None = None
    luck_mark: LuckMark | None = None
    loss_mwc: float | None = None
    luck_mwc: float | None = None

    def values(self) -> dict[str, object]:
        """This detail as the ``moves`` table's columns hold it."""
        cube = self.cube
        return {
            "dice": None if self.dice is None else "".join(str(die) for die in self.dice),
            "match_id": self.match_id,
            "cubeless_best": self.cubeless_best,
            "cubeless_played": self.cubeless_played,
            **{name: None if cube is None else getattr(cube, name) for name in _CUBE_COLUMNS},
            "luck": self.luck,
            "luck_mark": None if self.luck_mark is None else str(self.luck_mark),
            "loss_mwc": self.loss_mwc,
            "luck_mwc": self.luck_mwc,
        }

    @classmethod
    def of_values(cls, row: Mapping[str, object]) -> BackgammonDetail:
        """The detail a ``moves`` row stores (a column missing, as in older files, reads as null)."""
        dice, luck_mark = row.get("dice"), row.get("luck_mark")
        cube = None
        if row.get("verdict") is not None:
            cube = CubeEquities(*(row[name] for name in _CUBE_COLUMNS))  # type: ignore[arg-type]
        return cls(
            dice=None if dice is None else (int(str(dice)[0]), int(str(dice)[1])),
            match_id=row.get("match_id"),  # type: ignore[arg-type]
            cubeless_best=row.get("cubeless_best"),  # type: ignore[arg-type]
            cubeless_played=row.get("cubeless_played"),  # type: ignore[arg-type]
            cube=cube,
            luck=row.get("luck"),  # type: ignore[arg-type]
            luck_mark=None if luck_mark is None else LuckMark(luck_mark),
            loss_mwc=row.get("loss_mwc"),  # type: ignore[arg-type]
            luck_mwc=row.get("luck_mwc"),  # type: ignore[arg-type]
        )

    @classmethod
    def side_figures(cls, side: Sequence[Decision], game: Sequence[Decision]) -> dict[str, object]:
        """What backgammon adds to one side's figures over its decisions ``side`` of ``game``: the match
        winning chances lost (``error_mwc``, over the counted decisions) and the luck (``luck`` in EMG,
        ``luck_mwc`` in match winning chances, over every decision), each a sum where any decision of
        ``game`` has it, else None; and the kinds of cube error (``CUBE_ERRORS``, over the counted cube and
        take decisions: each kind's count and EMG lost), where the game has a cube (any luck or cube
        decision)."""
        details = [detail_of(decision) for decision in game]
        has_mwc = any(detail.loss_mwc is not None for detail in details)
        has_luck = any(detail.luck is not None for detail in details)
        has_luck_mwc = any(detail.luck_mwc is not None for detail in details)
        has_cube = has_luck or any(decision.kind != MOVE for decision in game)
        counted = [decision for decision in side if decision.counted]
        mwc_lost = [found for d in counted if (found := detail_of(d).loss_mwc) is not None]
        luck = [found for d in side if (found := detail_of(d).luck) is not None]
        luck_mwc = [found for d in side if (found := detail_of(d).luck_mwc) is not None]
        figures: dict[str, object] = {
            "error_mwc": sum(mwc_lost) if has_mwc else None,
            "luck": sum(luck) if has_luck else None,
            "luck_mwc": sum(luck_mwc) if has_luck_mwc else None,
        }
        if has_cube:
            figures |= _cube_errors([decision for decision in counted if decision.kind != MOVE])
        return figures


_NONE = BackgammonDetail()


def detail_of(decision: Decision) -> BackgammonDetail:
    """A backgammon decision's own part (an empty one where it has none)."""
    detail = decision.detail
    return detail if isinstance(detail, BackgammonDetail) else _NONE


def cube_error_kind(decision: Decision) -> int | None:
    """The index in ``CUBE_ERRORS`` of a cube or take decision's loss (None: a move, or no loss), as gnubg
    sorts them: a missed double is above the cash point when Double/take is worth more than Double/pass
    (the double would be passed), a wrong double above the too-good point when No double is worth more
    than Double/pass; a take or a beaver that loses is a wrong take, a pass that loses a wrong pass."""
    cube = detail_of(decision).cube
    if decision.kind == MOVE or decision.loss <= 0 or cube is None:
        return None
    if decision.kind == DecisionKind.CUBE:
        if decision.played == "double":
            return 3 if cube.no_double > cube.double_pass else 2
        return 1 if cube.double_take > cube.double_pass else 0
    return 5 if decision.played == "pass" else 4


def cube_error_sums(counted: Sequence[Decision]) -> tuple[tuple[int, float, float], ...]:
    """The counted cube and take decisions' errors by gnubg's kinds (``CUBE_ERRORS``, in order): each
    kind's count, EMG lost and match winning chances lost (0 where a decision has none), summed in the
    decisions' order: the one sum of them, that a player's figures and gnubg's statistics print."""
    sums = [(0, 0.0, 0.0)] * len(CUBE_ERRORS)
    for decision in counted:
        kind = cube_error_kind(decision)
        if kind is not None:
            count, emg, mwc = sums[kind]
            sums[kind] = (count + 1, emg + decision.loss, mwc + (detail_of(decision).loss_mwc or 0.0))
    return tuple(sums)


def _cube_errors(counted: Sequence[Decision]) -> dict[str, object]:
    """The counted cube and take decisions' errors by gnubg's kinds (``cube_error_sums``): each kind's
    count and EMG lost, as ``SideFigures`` names them."""
    figures: dict[str, object] = {}
    for (name, _), (count, emg, _mwc) in zip(CUBE_ERRORS, cube_error_sums(counted), strict=True):
        figures[name] = count
        figures[f"{name}_error"] = emg
    return figures
