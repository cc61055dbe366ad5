"""The levels of a backgammon review: how deeply each decision is judged, and what every judged decision
carries (``ReviewedDecision``: its place, the Position ID and Match ID before it, the equity lost in EMG,
gnubg's mark, how it was judged).

Cube decisions at plies above 0 are judged by gnubg's cubeful look-ahead (``cube_plies``) wherever they
are close (``ReviewSettings.cube_doubt``), by the 0-ply formula on the deeper probabilities elsewhere.

Levels (``LEVELS``, ``ReviewSettings.of_level``): ``quick`` and ``standard`` judge every decision at their
plies; ``deep`` and ``world`` judge again the decisions *in doubt* (``Doubt``: near a mark threshold,
among close best plays, near the doubling or take point), at DEEP_PLIES or by bgsage's cubeful rollouts in
the match's context (``Settle``); at DEEP_PLIES, every cube decision within CLOSE_CUBE of the doubling or
the take point, where the review's even plies set Double/take too low against Double/pass (bgsage's
rollouts and XG agree; BENCHMARKS.md, "The cube against XG's"). Every decision says how it was judged
(``ReviewedDecision.judged``) and, where a rollout judged it, the standard error of its loss.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from taldau.base.kind import Mark, MarkScale

from ..engine import Evaluator
from ..engine.analyse import Search, engine_search
from ..engine.cubeful import emg_to_mwc
from ..engine.sage import RolloutSettings, SageRollout
from ..rules.cube import DecisionKind, MatchState
from ..rules.ids import MatchId
from ..rules.met import MatchEquityTable, kazaross_xg2
from .luck import LuckMark
from .marks import EMG_SCALE

CLOSE_CUBE = 0.16  # gnubg's isCloseCubedecision: doubling costs less than this
CUBE_DOUBT = 0.2  # cube decisions with No double and the double this close (EMG) are looked at cubeful
DEEP_PLIES = 3  # the plies at which the deep level judges again the checker plays in doubt
# the world level's rollouts of the decisions in doubt: 648 trials in 9 batches of 72 (each stratified)
WORLD_ROLLOUT = RolloutSettings(trials=648, batches=9)


@dataclass(frozen=True)
class Doubt:
    """When a decision's verdict is in doubt, worth judging again more deeply (``Settle``), in EMG:

    - a checker play whose loss lies within ``band`` of a mark's threshold (its mark could go either way);
    - a checker play among the best plays of its roll that lie within ``close`` of one another (which of
      them is best could turn), in a position with contact (in a race or a bear-off the review's plies are
      all but exact);
    - a cube decision whose No double and double (the taker answering right) lie within ``cube`` of each
      other (near the doubling point), or a double, and its answer, whose Double/take and Double/pass do
      (near the take point).

    A forced play never is."""

    band: float = 0.015
    close: float = 0.01
    cube: float = 0.05

    def __post_init__(self) -> None:
        if min(self.band, self.close, self.cube) < 0:
            raise ValueError(f"the doubt's bands must be 0 or more, not {self}")

    def __str__(self) -> str:
        return f"band {self.band}, close {self.close}, cube {self.cube}"


@dataclass(frozen=True)
class Settle:
    """How the decisions in doubt (``Doubt``) are judged again: at ``plies`` (checker plays in doubt, and
    the cube decisions within CLOSE_CUBE of the doubling or the take point, by the cubeful look-ahead at
    those plies) or by bgsage's cubeful ``rollout`` in the match's context (checker plays and cube
    decisions in doubt), one of the two. Of a roll's plays, up to ``plays`` are judged again: the best,
    the one played, and the next best within the doubt's ``close`` of the best."""

    plies: int | None = None
    rollout: RolloutSettings | None = None
    plays: int = 3

    def __post_init__(self) -> None:
        if (self.plies is None) == (self.rollout is None):
            raise ValueError("settle decisions in doubt either at plies or by a rollout, one of the two")
        if self.plies is not None and self.plies < 1:
            raise ValueError(f"settling plies must be 1 or more, not {self.plies}")
        if self.plays < 2:
            raise ValueError(f"settling compares at least 2 plays, not {self.plays}")

    @property
    def label(self) -> str:
        """How a decision settled so is described: ``3-ply`` or ``rollout, 648 trials``."""
        return f"{self.plies}-ply" if self.rollout is None else self.rollout.label

    def __str__(self) -> str:
        return f"{self.plies}-ply" if self.rollout is None else str(self.rollout)


LEVELS = ("quick", "standard", "deep", "world")
"""The named levels of review, each a preset of ``ReviewSettings`` (``ReviewSettings.of_level``): ``quick``
at 0-ply; ``standard`` at gnubg's 2 plies (its default analysis, cube decisions by the cubeful look-ahead);
``deep``, standard with the checker plays in doubt and the cube decisions within CLOSE_CUBE of the
doubling or the take point judged again at DEEP_PLIES; ``world``, standard with
the checker plays and cube decisions in doubt settled by rollouts (WORLD_ROLLOUT)."""
DEFAULT_LEVEL = "standard"
LEVEL_PLIES = {"quick": 0, "standard": 2, "deep": 2, "world": 2}  # each level's plies unless given


@dataclass(frozen=True)
class ReviewSettings:
    """How a match is reviewed: ``plies`` for checker plays (gnubg's default analysis is 2-ply, with its
    move filter: up to ``candidates`` plays within ``threshold`` cubeless equity of the best at 0-ply go
    deeper), ``cube_plies`` for cube decisions (None: the same as ``plies``; see ``cube_doubt``),
    ``luck_plies`` for the luck of the rolls (0, as gnubg; ``luck`` False skips luck), the marks'
    ``scale`` (equity lost, EMG, with gnubg's thresholds: ``marks.EMG_SCALE``), the luck marks'
    thresholds, and the match equity table.

    Cube decisions are judged as gnubg judges them at ``cube_plies``: by a cubeful look-ahead
    (``cube_plies.plied_cube_decision``) wherever the player doubled, answered a double, or the 0-ply cube
    formula on the cube plies' probabilities finds No double and the double within ``cube_doubt`` (EMG) of
    each other; elsewhere the formula decides, its verdict too clear for the look-ahead to turn
    (BENCHMARKS.md, "Cube decisions at the review's plies"). ``cube_doubt`` 0 leaves every cube decision
    to the formula, ``math.inf`` sends every one to the look-ahead."""

    plies: int = 2
    cube_plies: int | None = None
    cube_doubt: float = CUBE_DOUBT
    luck_plies: int = 0
    candidates: int = 16
    threshold: float = 0.32
    scale: MarkScale = EMG_SCALE
    lucky: float = 0.3
    very_lucky: float = 0.6
    luck: bool = True
    table: MatchEquityTable = field(default_factory=kazaross_xg2)
    level: str = DEFAULT_LEVEL
    doubt: Doubt = Doubt()
    settle: Settle | None = None

    def __post_init__(self) -> None:
        if self.level not in LEVELS:
            raise ValueError(f"unknown level of review {self.level!r}: choose one of {', '.join(LEVELS)}")
        if self.settle is not None and self.settle.plies is not None and self.settle.plies <= self.plies:
            raise ValueError(
                f"settling at {self.settle.plies} plies is no deeper than the review's {self.plies}"
            )
        if min(self.plies, self.luck_plies, 0 if self.cube_plies is None else self.cube_plies) < 0:
            raise ValueError("plies must be 0 or more")
        if not self.cube_doubt >= 0:
            raise ValueError(f"cube_doubt must be 0 or more, not {self.cube_doubt}")
        if not 0 <= self.lucky <= self.very_lucky:
            raise ValueError("the luck thresholds must grow: lucky <= very lucky")

    def __str__(self) -> str:
        """The settings the results depend on, short: ``standard: 2-ply 5/0.08, cube 2-ply cubeful within
        0.2, luck 0-ply, marks 0.03/0.06/0.12, Kazaross-XG2`` (with ``in doubt (...) 3-ply`` where decisions
        in doubt are settled)."""
        luck = f"luck {self.luck_plies}-ply" if self.luck else "no luck"
        cube = f"cube {self.cube_depth}-ply"
        if self.cube_depth > 0 and self.cube_doubt > 0:
            cube += f" cubeful within {self.cube_doubt}"
        settle = "" if self.settle is None else f", in doubt ({self.doubt}) {self.settle}"
        if self.settle is not None and self.settle.plies is not None:
            settle += f", cube within {CLOSE_CUBE} {self.settle}"
        return (
            f"{self.level}: {self.plies}-ply {self.candidates}/{self.threshold}, {cube}{settle}, {luck}, "
            f"marks {'/'.join(str(threshold) for threshold in self.scale.thresholds)}, {self.table.name}"
        )

    @property
    def search(self) -> Search:
        """The search of checker plays."""
        return Search(self.plies, candidates=self.candidates, threshold=self.threshold)

    @property
    def cube_depth(self) -> int:
        """The plies of cube decisions."""
        return self.plies if self.cube_plies is None else self.cube_plies

    def mark(self, loss: float) -> Mark | None:
        """gnubg's mark of an error of ``loss`` (EMG) on the review's scale (the one rule, ``mark_for``)."""
        return self.scale.mark(loss)

    def luck_mark(self, luck: float) -> LuckMark | None:
        """gnubg's mark of a roll's luck (EMG)."""
        if luck > self.very_lucky:
            return LuckMark.VERY_LUCKY
        if luck > self.lucky:
            return LuckMark.LUCKY
        if luck < -self.very_lucky:
            return LuckMark.VERY_UNLUCKY
        if luck < -self.lucky:
            return LuckMark.UNLUCKY
        return None

    @property
    def judged(self) -> str:
        """How a checker play not settled again is judged: ``2-ply``."""
        return f"{self.plies}-ply"

    @property
    def cube_judged(self) -> str:
        """How a cube decision not settled again is judged: ``2-ply``."""
        return f"{self.cube_depth}-ply"

    @classmethod
    def of_engine(cls, engine: str, plies: int) -> ReviewSettings:
        """The standard review by the evaluator named ``engine`` (``Evaluator.name``) at ``plies``: its move
        filter (``engine.engine_search``), gnubg's conventions for the rest."""
        return cls.of_level(DEFAULT_LEVEL, engine, plies)

    @classmethod
    def of_level(cls, level: str, engine: str, plies: int | None = None) -> ReviewSettings:
        """The review of the named ``level`` (``LEVELS``) by the evaluator named ``engine``, with its move
        filter (``engine.engine_search``); ``plies`` in place of the level's own (0 for quick, 2 for the
        others) where given."""
        if level not in LEVELS:
            raise ValueError(f"unknown level of review {level!r}: choose one of {', '.join(LEVELS)}")
        plies = LEVEL_PLIES[level] if plies is None else plies
        settle = {"deep": Settle(plies=DEEP_PLIES), "world": Settle(rollout=WORLD_ROLLOUT)}.get(level)
        search = engine_search(engine, plies)
        return cls(
            plies=plies,
            candidates=search.candidates,
            threshold=search.threshold,
            level=level,
            settle=settle,
        )


@dataclass(frozen=True, kw_only=True)
class ReviewedDecision:
    """What every decision has: its kind, the game (0-based in the match) and step (index in
    ``Game.steps``) it belongs to, the deciding player, gnubg's Position ID and Match ID before it, the
    equity lost (EMG, >= 0; ``loss_mwc`` the same in match winning chances, None in money play), the
    mark, how it was judged (``judged``: ``2-ply``, ``3-ply``, ``rollout, 648 trials``) and, where a
    rollout judged it, the standard error of the loss (``loss_se``, EMG; None otherwise)."""

    kind: DecisionKind
    game: int
    step: int
    player: int
    position_id: str
    match_id: str
    loss: float
    loss_mwc: float | None
    mark: Mark | None
    judged: str
    loss_se: float | None


@dataclass(frozen=True)
class Judge:
    """What judges a review's decisions: the evaluator, the settings, and bgsage's rollouts where the
    decisions in doubt are settled by them."""

    evaluator: Evaluator
    settings: ReviewSettings
    rollout: SageRollout | None


def judge_for(evaluator: Evaluator, settings: ReviewSettings) -> Judge:
    """The judge of a review: its rollouts loaded where the settings settle decisions by rollouts (raises
    ``engine.sage.SageUnavailable`` where bgsage cannot run)."""
    settle = settings.settle
    rollout = None if settle is None or settle.rollout is None else SageRollout(settle.rollout)
    return Judge(evaluator, settings, rollout)


def match_id(state: MatchState, on_roll: int, dice: Sequence[int] = (0, 0), answering: bool = False) -> str:
    """gnubg's Match ID of ``state`` with ``on_roll`` holding the dice (``dice`` as rolled, (0, 0) before
    the roll); ``answering``: a double is offered and the other player is to answer it."""
    rules = state.rules
    return MatchId(
        cube=state.cube,
        cube_owner=-1 if state.cube_owner is None else state.cube_owner,
        dice_owner=on_roll,
        crawford=state.crawford_game,
        game_state=1,
        turn=1 - on_roll if answering else on_roll,
        doubled=answering,
        dice=(int(dice[0]), int(dice[1])),
        length=rules.length,
        score=state.score,
        jacoby=rules.money and rules.jacoby,
    ).encode()


def without_beavers(state: MatchState) -> MatchState:
    """The state before any offer, with beavers not allowed: gnubg's analysis values the cube without
    them."""
    return replace(state, rules=replace(state.rules, beavers=False), offered_by=None)


def mwc_difference(emg: float, state: MatchState, player: int, table: MatchEquityTable) -> float | None:
    """An EMG difference of ``player`` as MWC (None in money play): the two are linear in each other."""
    if state.rules.money:
        return None
    return emg_to_mwc(emg, state, player, table) - emg_to_mwc(0.0, state, player, table)
