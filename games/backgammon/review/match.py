"""Review of a backgammon match as GNU Backgammon's "analyse match" makes it: every checker play and every
cube decision judged and marked, in gnubg's conventions so that the figures can be
set beside gnubg's own.

Words for readers who do not know the game: a *roll* of two dice lets the player on roll move his checkers
(a *play*); a play is *forced* when the roll allows one play only (or none: the player *dances*). Before
rolling, the player may *double* (offer the doubling cube at twice the stake) when the cube is centred or
his; the opponent *takes* (plays on for twice the stake), *passes* (loses the current stake) or, in money
play, *beavers* (takes and redoubles at once). *EMG* (equivalent to money game) is gnubg's normalised
equity: the points a player expects per unit of the current cube, in match play the match winning chances
(MWC) rescaled by ``cubeful.mwc_to_emg``; an error in EMG means the same for both players.

What a review holds (``review_match``):

- **move**: for each roll, the play made and the best play of the roll at ``ReviewSettings.plies`` (gnubg's
  move filter before the deeper plies, the played play always evaluated as deep as the best), ranked by
  CUBEFUL equity in EMG: the position after a play, the opponent on roll with the cube as it stands, is
  worth minus the opponent's equity with his best cube action (No double, or a double taken or passed when
  he may double and that is better for him), each by Janowski's interpolation over the cubeless
  probabilities (``cubeful``), as gnubg values it at 0-ply. The equity lost (>= 0), gnubg's mark
  (``Mark``: ``?!`` doubtful, ``?`` bad, ``??`` very bad, for a loss of 0.03 / 0.06 / 0.12 or more: the rule
  of every game, ``taldau.base.kind.mark_for``), never on
  a forced play. The *luck* of
  the roll (gnubg's ``LuckNormal``): the value of the best play of the roll made minus the average over the
  21 rolls (weighted by the 36 they stand for) of the value of each roll's best play, at
  ``luck_plies`` (0, as gnubg), each roll's best play picked by cubeless equity (match-aware) and valued
  cubeful; the game's opening roll (no doubles possible) averages over the 15 non-double rolls of either
  player (gnubg's ``LuckFirst``). Lucky / unlucky marks above +0.3 / +0.6 (below -0.3 / -0.6).
- **cube**: each roll where the player on roll could double (``cubeful.CubeDecision.available``: the rules
  let him and, in a match, his cube is not dead), but not the game's opening roll, and each actual double:
  the cubeless probabilities before the roll at ``cube_plies``, No double, Double/take, Double/pass and the
  optimal equity (EMG), gnubg's verdict, the error of the action taken (a missed double or a wrong double;
  a double is valued with the taker's right answer, take or pass). gnubg's analysis values the cube without
  beavers (its verdicts read "take" where its hint says "beaver"); so does the review.
- **take**: the answer to a double (take, pass, beaver): the same equities from the taker's side (the
  doubler's negated; the verdict stays the doubler's, as gnubg prints it), the error (wrong take, wrong
  pass; a beaver is judged as one, a take where a beaver was right costs nothing, as gnubg does not judge
  beavers).
- A cube decision is *close* (gnubg's "close or actual" decisions, which count in the error rate) when it
  is an actual double or answer, a missed double, or doubling would cost less than 0.16 (No double minus
  the worse of Double/take and Double/pass).
- The players' figures (error rates, PR, rating bands, luck) are summed from these decisions by the
  game-agnostic ``taldau.analysis.review.player_stats``, as for every game.

Cube decisions at plies above 0 are judged by gnubg's cubeful look-ahead (``cube_plies``) wherever they
are close (``ReviewSettings.cube_doubt``), by the 0-ply formula on the deeper probabilities elsewhere.

Levels (``LEVELS``, ``ReviewSettings.of_level``): ``quick`` and ``standard`` judge every decision at their
plies; ``deep`` and ``world`` judge again the decisions *in doubt* (``Doubt``: near a mark threshold,
among close best plays, near the doubling or take point), at DEEP_PLIES or by bgsage's cubeful rollouts in
the match's context (``Settle``). Every decision says how it was judged (``ReviewedDecision.judged``)
and, where a rollout judged it, the standard error of its loss.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any

import numpy as np
from taldau.base.kind import EMG_SCALE, DecisionKind, LuckMark, Mark, MarkScale
from taldau.base.records import RecordError

from ..engine import Evaluator
from ..engine.analyse import (
    Analysis,
    RankedPlay,
    Search,
    after_plays,
    analyse,
    engine_search,
    evaluate_position,
)
from ..engine.cube_plies import after_play_equity, plied_cube_decision
from ..engine.cubeful import (
    CubeDecision,
    CubeMistake,
    Response,
    cube_decision,
    cube_efficiency,
    cubeless_emg,
    cubeless_mwc,
    decide,
    double_error,
    emg_to_mwc,
    response_error,
)
from ..engine.model import CONTACT, position_class
from ..engine.probabilities import equities, flipped
from ..engine.sage import CubefulRollout, CubeRollout, RolloutSettings, SageRollout
from ..records.record import ActionKind
from ..records.replay import Game, Step
from ..rules.cube import MatchState
from ..rules.ids import MatchId
from ..rules.met import MatchEquityTable, kazaross_xg2
from ..rules.position import Dice, Play, Position
from . import luck

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
    """How the decisions in doubt (``Doubt``) are judged again: at ``plies`` (checker plays; cube decisions
    keep the review's cubeful look-ahead, which already judges every cube decision within ``CUBE_DOUBT``)
    or by bgsage's cubeful ``rollout`` in the match's context (checker plays and cube decisions), one of
    the two. Of a roll's plays, up to ``plays`` are judged again: the best, the one played, and the next
    best within the doubt's ``close`` of the best."""

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
``deep``, standard with the checker plays in doubt judged again at DEEP_PLIES; ``world``, standard with
the checker plays and cube decisions in doubt settled by rollouts (WORLD_ROLLOUT)."""
DEFAULT_LEVEL = "standard"
LEVEL_PLIES = {"quick": 0, "standard": 2, "deep": 2, "world": 2}  # each level's plies unless given


class CubeChoice(StrEnum):
    """The cube action taken: the roller's (no double, double) or the taker's (take, pass, beaver)."""

    NO_DOUBLE = "no double"
    DOUBLE = "double"
    TAKE = "take"
    PASS = "pass"
    BEAVER = "beaver"


ANSWERS = {
    ActionKind.TAKE: CubeChoice.TAKE,
    ActionKind.DROP: CubeChoice.PASS,
    ActionKind.BEAVER: CubeChoice.BEAVER,
}
RESPONSES = {
    CubeChoice.TAKE: Response.TAKE,
    CubeChoice.PASS: Response.PASS,
    CubeChoice.BEAVER: Response.BEAVER,
}


@dataclass(frozen=True)
class ReviewSettings:
    """How a match is reviewed: ``plies`` for checker plays (gnubg's default analysis is 2-ply, with its
    move filter: up to ``candidates`` plays within ``threshold`` cubeless equity of the best at 0-ply go
    deeper), ``cube_plies`` for cube decisions (None: the same as ``plies``; see ``cube_doubt``),
    ``luck_plies`` for the luck of the rolls (0, as gnubg; ``luck`` False skips luck), the marks'
    ``scale`` (equity lost, EMG, with gnubg's thresholds: ``base.kind.EMG_SCALE``), the luck marks'
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


@dataclass(frozen=True, kw_only=True)
class MoveDecision(ReviewedDecision):
    """A checker play: the dice as rolled, the play made and the best play (gnubg's notation, empty for a
    roll that cannot be played), their cubeful equities (EMG) and cubeless probabilities after the play
    from the mover's side, the played play's rank (0 the best) among the ``plays`` legal ones, whether it
    was forced, the plies of the review's search (a play in doubt settled again says how in ``judged``;
    its rank is then among the plays settled), and the luck of the roll (EMG, ``luck_mwc`` in match
    winning chances in match play; None when not analysed)."""

    dice: Dice
    played: str
    best: str
    played_equity: float
    best_equity: float
    played_probabilities: tuple[float, ...]
    best_probabilities: tuple[float, ...]
    rank: int
    plays: int
    forced: bool
    plies: int
    luck: float | None
    luck_mwc: float | None
    luck_mark: LuckMark | None


@dataclass(frozen=True, kw_only=True)
class CubeReview(ReviewedDecision):
    """A cube decision (``kind`` cube) or the answer to a double (``kind`` take), from the deciding
    player's side: the cubeless probabilities before the roll and their cubeless equity (EMG), the cubeful
    equities of No double, Double/take, Double/pass and of the right action (EMG; ``mwc`` the same four as
    MWC in match play), gnubg's verdict (the doubler's), the action taken and the right one (``best``: the
    doubler's double or no double, optional doubles counted as doubles; the taker's right answer), the
    mistake if any, and whether it counts as a close decision."""

    probabilities: tuple[float, ...]
    cubeless_equity: float
    no_double: float
    double_take: float
    double_pass: float
    optimal: float
    mwc: tuple[float, float, float, float] | None
    verdict: str
    action: CubeChoice
    best: CubeChoice
    mistake: CubeMistake | None
    close: bool
    plies: int


@dataclass(frozen=True)
class ReviewedGame:
    """One game of the match reviewed: its place (0-based) and the match state it started from, its result
    as the replay gives it, the record's errors (the review stops where the replay did), the decisions in
    order."""

    index: int
    start: MatchState
    winner: int | None
    points: int
    errors: tuple[RecordError, ...]
    decisions: tuple[ReviewedDecision, ...]


@dataclass(frozen=True)
class MatchReview:
    """A match reviewed: its games, the evaluator's name and
    version, the settings, and the seconds the review took."""

    games: tuple[ReviewedGame, ...]
    engine: str
    version: str
    settings: ReviewSettings
    seconds: float

    @property
    def decisions(self) -> tuple[ReviewedDecision, ...]:
        """Every decision of the match, in order."""
        return tuple(decision for game in self.games for decision in game.decisions)


def review_match(
    games: Iterable[Game],
    evaluator: Evaluator,
    settings: ReviewSettings | None = None,
    progress: Callable[[int], object] | None = None,
) -> MatchReview:
    """Review the replayed games of one match, in order (``replay.read_games`` / ``replay_file`` give them;
    each carries the match state it started from). A game with record errors is reviewed up to where its
    replay stopped, its errors kept. ``progress`` hears each game's number of decisions once it is
    reviewed (for a display)."""
    settings = settings or ReviewSettings()
    started = time.perf_counter()
    judge = _judge(evaluator, settings)
    reviewed: list[ReviewedGame] = []
    for index, game in enumerate(games):
        reviewed.append(_review_game(game, judge, index))
        if progress is not None:
            progress(len(reviewed[-1].decisions))
    reviews = tuple(reviewed)
    return MatchReview(
        games=reviews,
        engine=evaluator.name,
        version=evaluator.version,
        settings=settings,
        seconds=time.perf_counter() - started,
    )


@dataclass(frozen=True)
class _Judge:
    """What judges a review's decisions: the evaluator, the settings, and bgsage's rollouts where the
    decisions in doubt are settled by them."""

    evaluator: Evaluator
    settings: ReviewSettings
    rollout: SageRollout | None


def _judge(evaluator: Evaluator, settings: ReviewSettings) -> _Judge:
    """The judge of a review: its rollouts loaded where the settings settle decisions by rollouts (raises
    ``engine.sage.SageUnavailable`` where bgsage cannot run)."""
    settle = settings.settle
    rollout = None if settle is None or settle.rollout is None else SageRollout(settle.rollout)
    return _Judge(evaluator, settings, rollout)


def review_game(game: Game, evaluator: Evaluator, settings: ReviewSettings, index: int = 0) -> ReviewedGame:
    """Review one replayed game (``index``: its place in the match)."""
    return _review_game(game, _judge(evaluator, settings), index)


def review_play(evaluator: Evaluator, step: Step, settings: ReviewSettings) -> MoveDecision:
    """The review of the checker play of one ``step`` (a roll with its play) as ``review_match`` makes it
    (its game and step numbers 0; the luck of the roll as the game's later rolls, when ``settings.luck``)."""
    if step.play is None or step.action.dice is None:
        raise ValueError("only a roll with its play has a checker play to review")
    return _move(_judge(evaluator, settings), step, 0, 0, opening=False)


def _review_game(game: Game, judge: _Judge, index: int) -> ReviewedGame:
    """``review_game`` by ``judge``."""
    settings = judge.settings
    decisions: list[ReviewedDecision] = []
    offered: tuple[_Cube, Step] | None = None  # the double waiting for its answer
    # the position left by the last play and its probabilities (the next player's) at the cube plies: the
    # played play was evaluated as deep as the analysis goes, so the next cube decision need not again
    known: tuple[Position, tuple[float, ...]] | None = None
    opening = True
    for number, step in enumerate(game.steps):
        kind = step.action.kind
        player = step.action.player
        if kind is ActionKind.ROLL:
            if not opening and step.state.offered_by is None and step.state.can_double(player):
                cube = _cube(judge, step.position, step.state, known, doubled=False)
                if cube.decision.available:
                    decisions.append(_doubling(cube, step, index, number, settings, doubled=False))
            if step.play is not None and step.action.dice is not None:
                move = _move(judge, step, index, number, opening)
                decisions.append(move)
                if move.plies == settings.cube_depth and move.judged == settings.judged:
                    turned = flipped(np.array([move.played_probabilities]))[0]
                    known = step.play.result, tuple(float(p) for p in turned)
            opening = False
        elif kind is ActionKind.DOUBLE:
            cube = _cube(judge, step.position, step.state, known, doubled=True)
            decisions.append(_doubling(cube, step, index, number, settings, doubled=True))
            offered = cube, step
        elif kind in ANSWERS and offered is not None:
            decisions.append(_answer(offered[0], offered[1], step, index, number, settings))
            offered = None
    return ReviewedGame(
        index=index,
        start=game.start,
        winner=game.winner,
        points=game.points,
        errors=tuple(game.errors),
        decisions=tuple(decisions),
    )


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


def _without_beavers(state: MatchState) -> MatchState:
    """The state before any offer, with beavers not allowed: gnubg's analysis values the cube without
    them."""
    return replace(state, rules=replace(state.rules, beavers=False), offered_by=None)


@dataclass(frozen=True)
class _Cube:
    """A cube decision with the cubeless probabilities it was made from (the roller's), how it was judged
    (``ReviewSettings.judged`` or ``Settle.label``) and, where a rollout judged it, its rollout (No double
    and Double/take on the same dice; Double/pass is exact)."""

    probabilities: tuple[float, ...]
    decision: CubeDecision
    judged: str
    rolled: CubeRollout | None = None

    @property
    def doubling_error(self) -> float | None:
        """The standard error of No double minus the double (the taker answering right); None where no
        rollout judged it."""
        if self.rolled is None:
            return None
        taken = self.decision.response is not Response.PASS
        return self.rolled.no_double.error_of_difference(self.rolled.double_take if taken else None)

    @property
    def answer_error(self) -> float | None:
        """The standard error of Double/take minus Double/pass; None where no rollout judged it."""
        return None if self.rolled is None else self.rolled.double_take.error


def review_cube(
    evaluator: Evaluator, position: Position, state: MatchState, settings: ReviewSettings
) -> tuple[tuple[float, ...], CubeDecision]:
    """The cube decision of the player on roll in ``position`` before his roll, in the match context
    ``state``, as the review judges one he did not take (``taldau eval`` shows it): the cubeless
    probabilities it was made from and the decision (No double, Double/take, Double/pass, EMG; its
    ``available`` False where the cube is not his to turn, or dead)."""
    cube = _cube(_judge(evaluator, settings), position, state, None, doubled=False)
    return cube.probabilities, cube.decision


def _cube(
    judge: _Judge,
    position: Position,
    state: MatchState,
    known: tuple[Position, tuple[float, ...]] | None,
    doubled: bool,
) -> _Cube:
    """The cube decision of the player on roll in ``position`` with the cube as ``state`` has it (before
    his roll or his double); ``known``: a position with its probabilities at the cube plies, used when it
    is this one; ``doubled``: he doubled, so the decision is looked at cubeful (see ``ReviewSettings``),
    and settled by a rollout where it is in doubt and the settings settle by rollouts."""
    evaluator, settings = judge.evaluator, judge.settings
    state = _without_beavers(state)
    if known is not None and known[0] == position:
        probabilities = known[1]
    else:
        probabilities = evaluate_position(evaluator, position, settings.cube_depth).probabilities
    decision = cube_decision(
        probabilities, state, position.turn, cube_efficiency(position.board), settings.table
    )
    if settings.cube_depth > 0 and decision.available and settings.cube_doubt > 0:
        margin = abs(decision.no_double - decision.double)
        if doubled or margin < settings.cube_doubt:
            probabilities, decision = plied_cube_decision(
                evaluator, position, state, settings.cube_depth, settings.table
            )
    if judge.rollout is not None and decision.available and cube_in_doubt(decision, doubled, settings.doubt):
        assert settings.settle is not None
        rolled = judge.rollout.cube_decision(position.board, state, position.turn)
        values = (rolled.no_double.equity, rolled.double_take.equity, 1.0)
        decision = decision_of(values, state, position.turn, settings.table)
        return _Cube(rolled.probabilities, decision, settings.settle.label, rolled)
    return _Cube(probabilities, decision, settings.cube_judged)


def decision_of(
    values: tuple[float, float, float], state: MatchState, roller: int, table: MatchEquityTable | None = None
) -> CubeDecision:
    """The cube decision of ``roller`` in ``state`` from his No double, Double/take and Double/pass in EMG
    at the current cube, however they were found (a rollout; a judge's analysis a file holds), valued
    without beavers as gnubg's analysis values the cube."""
    state = _without_beavers(state)
    if state.rules.money:
        return decide(values, None, state, roller)
    no_double, double_take, cash = (emg_to_mwc(value, state, roller, table) for value in values)
    return decide(None, (no_double, double_take, cash), state, roller, table)


def close_cube(equities: tuple[float, float, float], doubled: bool, missed: bool) -> bool:
    """Whether a cube decision counts as gnubg's "close or actual" ones do (its ``isCloseCubedecision``):
    an actual double, a missed double, or doubling that would cost less than CLOSE_CUBE (No double minus
    the worse of Double/take and Double/pass, the doubler's ``equities``)."""
    no_double, double_take, double_pass = equities
    return doubled or missed or no_double - min(double_take, double_pass) < CLOSE_CUBE


def cube_in_doubt(decision: CubeDecision, doubled: bool, doubt: Doubt) -> bool:
    """Whether a cube decision is in doubt (``Doubt``): No double within ``doubt.cube`` of the double, or,
    where the roller ``doubled``, Double/take within it of Double/pass."""
    if abs(decision.no_double - decision.double) < doubt.cube:
        return True
    return doubled and abs(decision.double_take - decision.double_pass) < doubt.cube


def play_in_doubt(values: np.ndarray, played: int, contact: bool, settings: ReviewSettings) -> bool:
    """Whether the checker play at ``played`` among plays of cubeful ``values`` (EMG, the mover's) is in
    doubt (``Doubt``): its loss within ``band`` of a mark's threshold, or, where there is ``contact``, it is
    among two or more best plays within ``close`` of one another."""
    doubt = settings.doubt
    best = float(values.max())
    loss = best - float(values[played])
    if any(abs(loss - threshold) <= doubt.band for threshold in settings.scale.thresholds):
        return True
    return contact and loss <= doubt.close and int(np.count_nonzero(values >= best - doubt.close)) >= 2


def _mwc_difference(emg: float, state: MatchState, player: int, table: MatchEquityTable) -> float | None:
    """An EMG difference of ``player`` as MWC (None in money play): the two are linear in each other."""
    if state.rules.money:
        return None
    return emg_to_mwc(emg, state, player, table) - emg_to_mwc(0.0, state, player, table)


def _judgement(
    kind: DecisionKind, cube: _Cube, doubling: Step, loss: float, settings: ReviewSettings
) -> dict[str, Any]:
    """The fields that a cube decision (``kind`` cube, the doubler's) and the answer to a double (take, the
    taker's) state alike: the deciding player, the Position ID and Match ID where ``doubling`` doubles or
    may, the ``loss`` (EMG) also in MWC, its mark, how ``cube`` judged it and with what error, and the plies
    of the cube look-ahead."""
    state = _without_beavers(doubling.state)
    doubler = doubling.position.turn
    player = doubler if kind is DecisionKind.CUBE else 1 - doubler
    return {
        "kind": kind,
        "player": player,
        "position_id": doubling.position.position_id(),
        "match_id": match_id(state, doubler, answering=kind is DecisionKind.TAKE),
        "loss": loss,
        "loss_mwc": _mwc_difference(loss, state, player, settings.table),
        "mark": settings.mark(loss),
        "judged": cube.judged,
        "loss_se": cube.doubling_error if kind is DecisionKind.CUBE else cube.answer_error,
        "plies": settings.cube_depth,
    }


def _doubling(
    cube: _Cube, step: Step, game: int, number: int, settings: ReviewSettings, doubled: bool
) -> CubeReview:
    """The review of the roller's cube action in ``step``: ``doubled`` or not. The double is valued with
    the taker's right answer (take or pass)."""
    decision = cube.decision
    player = step.position.turn
    state = _without_beavers(step.state)
    mistake, loss = double_error(decision, doubled)
    equities = (decision.no_double, decision.double_take, decision.double_pass)
    close = close_cube(equities, doubled, mistake is CubeMistake.MISSED_DOUBLE)
    mwc = None
    if decision.mwc is not None:
        no_double, double_take, double_pass = decision.mwc
        mwc = (no_double, double_take, double_pass, max(no_double, min(double_take, double_pass)))
    return CubeReview(
        **_judgement(DecisionKind.CUBE, cube, step, loss, settings),
        game=game,
        step=number,
        probabilities=cube.probabilities,
        cubeless_equity=cubeless_emg(cube.probabilities, state, player, settings.table),
        no_double=decision.no_double,
        double_take=decision.double_take,
        double_pass=decision.double_pass,
        optimal=decision.best,
        mwc=mwc,
        verdict=decision.action.value,
        action=CubeChoice.DOUBLE if doubled else CubeChoice.NO_DOUBLE,
        best=CubeChoice.DOUBLE if decision.action.doubles else CubeChoice.NO_DOUBLE,
        mistake=mistake,
        close=close,
    )


def _answer(
    cube: _Cube, doubling: Step, step: Step, game: int, number: int, settings: ReviewSettings
) -> CubeReview:
    """The review of the answer in ``step`` to the double made in ``doubling``, from the taker's side."""
    decision = cube.decision
    doubler = doubling.position.turn
    choice = ANSWERS[step.action.kind]
    judged = decision
    if choice is CubeChoice.BEAVER:  # judged with beavers allowed, as the rules of the session say
        values = (decision.no_double, decision.double_take, decision.double_pass)
        judged = decide(values, None, doubling.state, doubler, settings.table)
    mistake, loss = response_error(judged, RESPONSES[choice])
    state = _without_beavers(doubling.state)
    mwc = None
    if decision.mwc is not None:
        no_double, double_take, double_pass = (1.0 - value for value in decision.mwc)
        mwc = (no_double, double_take, double_pass, max(double_take, double_pass))
    return CubeReview(
        **_judgement(DecisionKind.TAKE, cube, doubling, loss, settings),
        game=game,
        step=number,
        probabilities=tuple(float(p) for p in flipped(np.array([cube.probabilities]))[0]),
        cubeless_equity=-cubeless_emg(cube.probabilities, state, doubler, settings.table),
        no_double=-decision.no_double,
        double_take=-decision.double_take,
        double_pass=-decision.double_pass,
        optimal=max(-decision.double_take, -decision.double_pass),
        mwc=mwc,
        verdict=decision.action.value,
        action=choice,
        best=next(answer for answer, response in RESPONSES.items() if response is judged.response),
        mistake=mistake,
        close=True,
    )


@dataclass(frozen=True, eq=False)
class PlaysInContext:
    """A roll's plays ranked in a match context as the review ranks them: ``analysis`` (``engine.analyse``,
    cubeless, with the review's move filter), the match ``state`` they were valued in (beavers not valued,
    as gnubg's analysis), ``judged`` the plays the search evaluated at its plies (the analysis' first
    ranks, the plays the review compares) and ``values`` their cubeful equities (EMG, the mover's), in the
    analysis' order: the position after a play, the opponent on roll with the cube as it stands, is worth
    minus the opponent's equity after his best cube action (``cube_plies.after_play_equity``)."""

    analysis: Analysis
    state: MatchState
    table: MatchEquityTable
    judged: tuple[RankedPlay, ...]
    values: np.ndarray

    @property
    def player(self) -> int:
        """The player on roll, who plays."""
        return self.analysis.position.turn

    def value(self, ranked: RankedPlay) -> float:
        """The cubeful equity (EMG) of one play of the analysis: the judged ones' ``values``, the others
        (which the move filter kept at 0-ply) valued alike from their 0-ply probabilities."""
        if ranked.rank < len(self.judged):
            return float(self.values[ranked.rank])
        probabilities = self.analysis.probabilities[ranked.rank]
        return after_play_equity(probabilities, ranked.play.result.board, self.state, self.player, self.table)

    def best_first(self) -> list[tuple[RankedPlay, float]]:
        """Every play of the roll with its cubeful equity, best first: the judged plays by their equity,
        then the plays the move filter dropped by theirs (ties in the analysis' order)."""
        valued = [(ranked, self.value(ranked)) for ranked in self.analysis.plays]
        return sorted(valued, key=lambda item: (item[0].rank >= len(self.judged), -item[1]))


def rank_plays(
    evaluator: Evaluator,
    position: Position,
    dice: Sequence[int],
    state: MatchState,
    settings: ReviewSettings,
    include: Sequence[Play] = (),
) -> PlaysInContext:
    """The plays of ``dice`` in ``position`` ranked by cubeful equity in the match context ``state`` (the
    score, match length, cube value and owner, Crawford, Jacoby; beavers are not valued) at the settings'
    plies and move filter, as the review judges a checker play; ``include``: plays evaluated at those
    plies even where the move filter drops them (the play made). ``taldau plays`` ranks by this too."""
    state = _without_beavers(state)
    analysis = analyse(evaluator, position, dice, settings.search, include=include)
    # judged cubeful among the plays evaluated at the analysis plies (in rank order, deepest first)
    judged = tuple(
        analysis.play(rank) for rank in range(int(np.count_nonzero(analysis.plies == analysis.plies[0])))
    )
    values = np.array(
        [
            after_play_equity(
                analysis.probabilities[ranked.rank],
                ranked.play.result.board,
                state,
                position.turn,
                settings.table,
            )
            for ranked in judged
        ]
    )
    return PlaysInContext(analysis, state, settings.table, judged, values)


def _move(judge: _Judge, step: Step, game: int, number: int, opening: bool) -> MoveDecision:
    """The review of the checker play of ``step`` (a roll with its play); ``opening``: the game's first
    roll (for the luck). A play in doubt is judged again where the settings settle (``_settle``)."""
    evaluator, settings = judge.evaluator, judge.settings
    position, play, dice = step.position, step.play, step.action.dice
    state = _without_beavers(step.state)
    assert play is not None and dice is not None
    player = position.turn
    in_context = rank_plays(evaluator, position, dice, state, settings, include=(play,))
    analysis, values, ranked = in_context.analysis, in_context.values, list(in_context.judged)
    probabilities = [ranked_play.probabilities for ranked_play in ranked]
    played_at = analysis.rank_of(play)
    forced = len(analysis) == 1
    plies, judged = int(analysis.plies[0]), settings.judged
    rolled: list[CubefulRollout | None] = []
    contact = position_class(position.board) == CONTACT
    if settings.settle is not None and not forced and play_in_doubt(values, played_at, contact, settings):
        kept = _settled_plays(values, played_at, settings)
        boards = [ranked[at].play.result.board for at in kept]
        values, settled, rolled = _settle(judge, boards, values[kept], state, player)
        ranked = [ranked[at] for at in kept]
        probabilities = [settled[k] or probabilities[at] for k, at in enumerate(kept)]
        played_at, judged = kept.index(played_at), settings.settle.label
    best_at = int(np.argmax(values))
    loss = max(0.0, float(values[best_at] - values[played_at]))
    loss_se = None
    if rolled:  # the error of the played play against the best, or against the runner-up where best
        other = best_at if best_at != played_at else int(np.argsort(-values, kind="stable")[1])
        mine, theirs = rolled[played_at], rolled[other]
        if mine is not None:
            loss_se = mine.error_of_difference(theirs)
        elif theirs is not None:
            loss_se = theirs.error
    luck = roll_luck(evaluator, position, state, dice, opening, settings) if settings.luck else None
    return MoveDecision(
        kind=DecisionKind.MOVE,
        game=game,
        step=number,
        player=player,
        position_id=position.position_id(),
        match_id=match_id(state, player, dice),
        loss=loss,
        loss_mwc=_mwc_difference(loss, state, player, settings.table),
        mark=None if forced else settings.mark(loss),
        judged=judged,
        loss_se=loss_se,
        dice=(int(dice[0]), int(dice[1])),
        played=play.text,
        best=ranked[best_at].play.text,
        played_equity=float(values[played_at]),
        best_equity=float(values[best_at]),
        played_probabilities=probabilities[played_at],
        best_probabilities=probabilities[best_at],
        rank=int(np.count_nonzero(values > values[played_at])),
        plays=len(analysis),
        forced=forced,
        plies=plies,
        luck=luck,
        luck_mwc=None if luck is None else _mwc_difference(luck, state, player, settings.table),
        luck_mark=None if luck is None else settings.luck_mark(luck),
    )


def _settled_plays(values: np.ndarray, played: int, settings: ReviewSettings) -> list[int]:
    """Which plays of a roll in doubt are judged again (indices into ``values``, best first): the best, the
    one ``played``, and the next best within the doubt's ``close`` of the best, up to ``Settle.plays``."""
    assert settings.settle is not None
    order = [int(at) for at in np.argsort(-values, kind="stable")]
    kept = [order[0]] if order[0] == played else [order[0], played]
    best = float(values[order[0]])
    for at in order[1:]:
        if len(kept) >= settings.settle.plays or values[at] < best - settings.doubt.close:
            break
        if at not in kept:
            kept.append(at)
    if len(kept) < 2:  # the played play is the best, nothing within close: its runner-up
        kept.append(order[1])
    return sorted(kept, key=lambda at: -values[at])


def _settle(
    judge: _Judge, boards: Sequence[np.ndarray], values: np.ndarray, state: MatchState, player: int
) -> tuple[np.ndarray, list[tuple[float, ...] | None], list[CubefulRollout | None]]:
    """The plays leaving ``boards`` (the opponent on roll in row MOVER; ``values`` their cubeful EMG at
    the review's plies) judged again as ``Settle`` says: their cubeful EMG, their cubeless probabilities
    (None where unchanged: a game the play has won) and, where rolled out, their rollouts (None for a game
    won, whose value is exact; an empty list at plies)."""
    settings = judge.settings
    settle = settings.settle
    assert settle is not None
    if judge.rollout is None:
        assert settle.plies is not None
        found = after_plays(judge.evaluator, np.stack([board[::-1] for board in boards]), settle.plies)
        settled = np.array(
            [
                after_play_equity(found[k], board, state, player, settings.table)
                for k, board in enumerate(boards)
            ]
        )
        return settled, [tuple(float(p) for p in row) for row in found], []
    settled = values.astype(np.float64)
    probabilities: list[tuple[float, ...] | None] = [None] * len(boards)
    rolled = [judge.rollout.after_play_cubeful(board[::-1], state, player) for board in boards]
    for k, rollout in enumerate(rolled):
        if rollout is not None:
            settled[k], probabilities[k] = rollout.equity, rollout.probabilities
    return settled, probabilities, rolled


def _cubeless_utility(
    probabilities: np.ndarray, state: MatchState, player: int, table: MatchEquityTable
) -> np.ndarray:
    """What ``player`` expects from each row of cubeless ``probabilities`` ignoring the cube: the cubeless
    equity in money play, the cubeless MWC in a match (linear in the probabilities: the MWC of each of the
    six results weighted by its chance)."""
    if state.rules.money:
        return equities(probabilities)
    results = np.array(
        [
            [1, 0, 0, 0, 0],
            [1, 1, 0, 0, 0],
            [1, 1, 1, 0, 0],
            [0, 0, 0, 0, 0],
            [0, 0, 0, 1, 0],
            [0, 0, 0, 1, 1],
        ],
        dtype=np.float64,
    )
    single, gammon, backgammon, lost, lost_gammon, lost_backgammon = (
        cubeless_mwc(result, state, player, table) for result in results
    )
    win, win_gammon, win_backgammon, lose_gammon, lose_backgammon = probabilities.T
    return (
        (win - win_gammon) * single
        + (win_gammon - win_backgammon) * gammon
        + win_backgammon * backgammon
        + (1.0 - win - lose_gammon) * lost
        + (lose_gammon - lose_backgammon) * lost_gammon
        + lose_backgammon * lost_backgammon
    )


def _best_values(
    evaluator: Evaluator,
    position: Position,
    state: MatchState,
    rolls: Sequence[Dice],
    settings: ReviewSettings,
) -> np.ndarray:
    """For each roll, the cubeful EMG of the player on roll after the best play of it (picked by cubeless
    value) at ``luck_plies``: every play of every roll evaluated in one call."""
    player = position.turn

    def utility(probabilities: np.ndarray) -> np.ndarray:
        return _cubeless_utility(probabilities, state, player, settings.table)

    boards, probabilities, best = luck.best_plays(evaluator, position, rolls, settings.luck_plies, utility)
    return np.array(
        [after_play_equity(probabilities[k], boards[k, ::-1], state, player, settings.table) for k in best],
        dtype=np.float64,
    )


def roll_luck(
    evaluator: Evaluator,
    position: Position,
    state: MatchState,
    dice: Sequence[int],
    opening: bool,
    settings: ReviewSettings,
) -> float:
    """The luck (EMG) of rolling ``dice`` in ``position`` (``luck.roll_luck``: gnubg's LuckNormal, or
    LuckFirst for the game's ``opening`` roll), each roll's best play valued cubeful by ``_best_values``."""

    def values(where: Position, rolls: Sequence[Dice]) -> np.ndarray:
        return _best_values(evaluator, where, state, rolls, settings)

    return luck.roll_luck(values, position, dice, opening)
