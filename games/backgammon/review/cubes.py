"""The review of cube decisions: the roller's (double or not) and the taker's answer to a double.

Words for readers who do not know the game: before rolling, the player on roll may *double* (offer the
doubling *cube* at twice the stake) when the cube is centred or his; the opponent *takes* (plays on for
twice the stake), *passes* (loses the current stake) or, in money play, *beavers* (takes and redoubles at
once).

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
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np

from ..engine import Evaluator
from ..engine.analyse import evaluate_position
from ..engine.cube_plies import plied_cube_decision
from ..engine.cubeful import (
    CubeDecision,
    CubeMistake,
    Response,
    cube_decision,
    cube_efficiency,
    cubeless_emg,
    decide,
    double_error,
    emg_to_mwc,
    response_error,
)
from ..engine.probabilities import flipped
from ..engine.sage import CubeRollout
from ..records.record import ActionKind
from ..records.replay import Step
from ..rules.cube import DecisionKind, MatchState
from ..rules.met import MatchEquityTable
from ..rules.position import Position
from .levels import (
    CLOSE_CUBE,
    Doubt,
    Judge,
    ReviewedDecision,
    ReviewSettings,
    judge_for,
    match_id,
    mwc_difference,
    without_beavers,
)


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
class JudgedCube:
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
    cube = judge_cube(judge_for(evaluator, settings), position, state, None, doubled=False)
    return cube.probabilities, cube.decision


def judge_cube(
    judge: Judge,
    position: Position,
    state: MatchState,
    known: tuple[Position, tuple[float, ...]] | None,
    doubled: bool,
) -> JudgedCube:
    """The cube decision of the player on roll in ``position`` with the cube as ``state`` has it (before
    his roll or his double); ``known``: a position with its probabilities at the cube plies, used when it
    is this one; ``doubled``: he doubled, so the decision is looked at cubeful (see ``ReviewSettings``),
    and settled by a rollout where it is in doubt and the settings settle by rollouts."""
    evaluator, settings = judge.evaluator, judge.settings
    state = without_beavers(state)
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
    settle = settings.settle
    if settle is None or not decision.available:
        return JudgedCube(probabilities, decision, settings.cube_judged)
    if settle.plies is not None:
        if not cube_near((decision.no_double, decision.double_take, decision.double_pass), CLOSE_CUBE):
            return JudgedCube(probabilities, decision, settings.cube_judged)
        probabilities, decision = plied_cube_decision(
            evaluator, position, state, settle.plies, settings.table
        )
        return JudgedCube(probabilities, decision, settle.label)
    if not cube_in_doubt(decision, doubled, settings.doubt):
        return JudgedCube(probabilities, decision, settings.cube_judged)
    assert judge.rollout is not None
    rolled = judge.rollout.cube_decision(position.board, state, position.turn)
    values = (rolled.no_double.equity, rolled.double_take.equity, 1.0)
    decision = decision_of(values, state, position.turn, settings.table)
    return JudgedCube(rolled.probabilities, decision, settle.label, rolled)


def decision_of(
    values: tuple[float, float, float], state: MatchState, roller: int, table: MatchEquityTable | None = None
) -> CubeDecision:
    """The cube decision of ``roller`` in ``state`` from his No double, Double/take and Double/pass in EMG
    at the current cube, however they were found (a rollout; a judge's analysis a file holds), valued
    without beavers as gnubg's analysis values the cube."""
    state = without_beavers(state)
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


def cube_near(equities: tuple[float, float, float], margin: float) -> bool:
    """Whether a cube decision of the doubler's No double, Double/take and Double/pass ``equities`` (EMG)
    lies within ``margin`` of the doubling point (No double against the double with the right answer) or
    of the take point (Double/take against Double/pass): where the deep level judges it again at an odd
    number of plies, since the review's even plies misjudge both margins there (BENCHMARKS.md, "The cube
    against XG's")."""
    no_double, double_take, double_pass = equities
    return abs(no_double - min(double_take, double_pass)) < margin or abs(double_take - double_pass) < margin


def cube_in_doubt(decision: CubeDecision, doubled: bool, doubt: Doubt) -> bool:
    """Whether a cube decision is in doubt (``Doubt``): No double within ``doubt.cube`` of the double, or,
    where the roller ``doubled``, Double/take within it of Double/pass."""
    if abs(decision.no_double - decision.double) < doubt.cube:
        return True
    return doubled and abs(decision.double_take - decision.double_pass) < doubt.cube


def _judgement(
    kind: DecisionKind, cube: JudgedCube, doubling: Step, loss: float, settings: ReviewSettings
) -> dict[str, Any]:
    """The fields that a cube decision (``kind`` cube, the doubler's) and the answer to a double (take, the
    taker's) state alike: the deciding player, the Position ID and Match ID where ``doubling`` doubles or
    may, the ``loss`` (EMG) also in MWC, its mark, how ``cube`` judged it and with what error, and the plies
    of the cube look-ahead."""
    state = without_beavers(doubling.state)
    doubler = doubling.position.turn
    player = doubler if kind is DecisionKind.CUBE else 1 - doubler
    return {
        "kind": kind,
        "player": player,
        "position_id": doubling.position.position_id(),
        "match_id": match_id(state, doubler, answering=kind is DecisionKind.TAKE),
        "loss": loss,
        "loss_mwc": mwc_difference(loss, state, player, settings.table),
        "mark": settings.mark(loss),
        "judged": cube.judged,
        "loss_se": cube.doubling_error if kind is DecisionKind.CUBE else cube.answer_error,
        "plies": settings.cube_depth,
    }


def doubling_review(
    cube: JudgedCube, step: Step, game: int, number: int, settings: ReviewSettings, doubled: bool
) -> CubeReview:
    """The review of the roller's cube action in ``step``: ``doubled`` or not. The double is valued with
    the taker's right answer (take or pass)."""
    decision = cube.decision
    player = step.position.turn
    state = without_beavers(step.state)
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


def answer_review(
    cube: JudgedCube, doubling: Step, step: Step, game: int, number: int, settings: ReviewSettings
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
    state = without_beavers(doubling.state)
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
