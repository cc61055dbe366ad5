"""Our cube decisions set beside XG's on an XG file that holds XG's analysis (``taldau bench cube-bias``,
issue 55, item 5): for every cube decision XG analysed, its No double, Double/take and Double/pass (EMG,
the roller's) by four judges:

- ``XG``: XG's own equities, as the file stores them (every figure against XG is 0 for it);
- ``ours``: our review at the given settings (``review.review_cube``: the evaluator's probabilities, the
  cubeful look-ahead near the decision, the 0-ply formula elsewhere);
- ``formula, our probabilities``: our 0-ply cube formula (``cubeful.cube_decision``: Janowski's cube
  efficiency, the match equity table) on the probabilities our review judged from;
- ``formula, XG's probabilities``: the same formula on XG's own cubeless probabilities of the position,
  which the file stores: what stays of a bias here lies in our cube model, not in the nets;
- ``rollouts`` (where asked, on the decisions near either point only): bgsage's cubeful rollouts of No
  double and Double/take in the match's context, the truth both are measured against.

The figures: the mean of a judge's Double/take minus Double/pass less XG's near the take (XG's
|Double/take - Double/pass| within ``NEAR``), the same for No double minus Double/take near the double
(XG's |No double - min(Double/take, Double/pass)| within ``NEAR``), each with its standard error over
decisions, and how often the judge's action is XG's (double or not; take or pass), over every decision and
split by the score (the taker 2-away or less, money) and the cube's value.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from taldau.games.backgammon.engine import Evaluator
from taldau.games.backgammon.engine.cubeful import CubeDecision, cube_decision, cube_efficiency
from taldau.games.backgammon.engine.sage import SageRollout
from taldau.games.backgammon.records.replay import Step, read_games
from taldau.games.backgammon.records.xg import cube_probabilities
from taldau.games.backgammon.review.cubes import review_cube
from taldau.games.backgammon.review.levels import ReviewSettings
from taldau.games.backgammon.review.verdicts import verdict_of
from taldau.games.backgammon.rules.cube import DecisionKind

from .judge import mean_and_error

NEAR = 0.16  # XG's margin (EMG) within which a decision counts as near (gnubg's CLOSE_CUBE)
XG = "XG"
OURS = "ours"
FORMULA_OURS = "formula, our probabilities"
FORMULA_XG = "formula, XG's probabilities"
ROLLOUTS = "bgsage's rollouts"
JUDGES = (XG, OURS, FORMULA_OURS, FORMULA_XG)

Equities = tuple[float, float, float]  # No double, Double/take, Double/pass (EMG, the roller's)


@dataclass(frozen=True)
class CubeCase:
    """One cube decision XG analysed: where it is (game index, step), the taker's points to go (None in
    money play), the cube's value, and each judge's equities (``JUDGES``; ``ROLLOUTS`` where rolled
    out)."""

    game: int
    step: int
    taker_away: int | None
    cube: int
    equities: dict[str, Equities]

    @property
    def near_take(self) -> bool:
        """XG's Double/take within ``NEAR`` of its Double/pass."""
        _, double_take, double_pass = self.equities[XG]
        return abs(double_take - double_pass) <= NEAR

    @property
    def near_double(self) -> bool:
        """XG's No double within ``NEAR`` of its double with the right answer."""
        no_double, double_take, double_pass = self.equities[XG]
        return abs(no_double - min(double_take, double_pass)) <= NEAR

    def doubles(self, judge: str) -> bool:
        """Whether ``judge`` doubles: the double, with the right answer, worth more than No double."""
        no_double, double_take, double_pass = self.equities[judge]
        return min(double_take, double_pass) > no_double

    def takes(self, judge: str) -> bool:
        """Whether ``judge`` takes: Double/take worth no more to the roller than Double/pass."""
        _, double_take, double_pass = self.equities[judge]
        return double_take <= double_pass

    def take_bias(self, judge: str) -> float:
        """``judge``'s Double/take minus Double/pass less XG's."""
        return _take_margin(self.equities[judge]) - _take_margin(self.equities[XG])

    def double_bias(self, judge: str) -> float:
        """``judge``'s No double minus Double/take less XG's."""
        return _double_margin(self.equities[judge]) - _double_margin(self.equities[XG])


def _take_margin(equities: Equities) -> float:
    return equities[1] - equities[2]


def _double_margin(equities: Equities) -> float:
    return equities[0] - equities[1]


@dataclass(frozen=True)
class Bias:
    """A mean difference over ``count`` decisions with its standard error."""

    count: int
    mean: float
    error: float

    @classmethod
    def of(cls, values: list[float]) -> Bias:
        """The mean of ``values`` and its standard error."""
        mean, error = mean_and_error(values)
        return cls(len(values), mean, error)


@dataclass(frozen=True)
class JudgeFigures:
    """One judge against XG over a set of decisions (``where``): the Double/take minus Double/pass bias
    near the take, the No double minus Double/take bias near the double, and on how many of the
    ``decisions`` its double-or-not and its take-or-pass are XG's; ``take_near`` the Double/take minus
    Double/pass bias over the decisions near either (near the take or near the double)."""

    judge: str
    where: str
    take: Bias
    double: Bias
    take_near: Bias
    decisions: int
    same_double: int
    same_take: int


@dataclass(frozen=True)
class CubeBias:
    """Every cube decision XG analysed in ``source``, judged by ``JUDGES`` at ``settings``."""

    source: str
    settings: str
    cases: tuple[CubeCase, ...]

    @property
    def judges(self) -> tuple[str, ...]:
        """The judges of the report: ``JUDGES``, then ``ROLLOUTS`` where decisions were rolled out."""
        rolled = any(ROLLOUTS in case.equities for case in self.cases)
        return (*JUDGES, ROLLOUTS) if rolled else JUDGES

    def figures(
        self, judge: str, where: str = "all", keep: Callable[[CubeCase], bool] | None = None
    ) -> JudgeFigures:
        """``judge`` against XG over the decisions ``keep`` keeps (all by default), named ``where``."""
        cases = [case for case in self.cases if judge in case.equities and (keep is None or keep(case))]
        return JudgeFigures(
            judge,
            where,
            Bias.of([case.take_bias(judge) for case in cases if case.near_take]),
            Bias.of([case.double_bias(judge) for case in cases if case.near_double]),
            Bias.of([case.take_bias(judge) for case in cases if case.near_take or case.near_double]),
            len(cases),
            sum(case.doubles(judge) == case.doubles(XG) for case in cases),
            sum(case.takes(judge) == case.takes(XG) for case in cases),
        )

    def splits(self, judge: str) -> list[JudgeFigures]:
        """``judge`` against XG over every decision, then by score (money, the taker 2-away or less, 3-away
        or more) and by the cube's value, the empty splits left out."""
        splits: list[tuple[str, Callable[[CubeCase], bool]]] = [
            ("money", lambda case: case.taker_away is None),
            ("taker <= 2-away", lambda case: case.taker_away is not None and case.taker_away <= 2),
            ("taker >= 3-away", lambda case: case.taker_away is not None and case.taker_away > 2),
        ]
        for cube in sorted({case.cube for case in self.cases}):
            splits.append((f"cube {cube}", lambda case, cube=cube: case.cube == cube))
        figures = [self.figures(judge)] + [self.figures(judge, name, keep) for name, keep in splits]
        return [figure for figure in figures if figure.decisions]


def cube_bias(
    path: Path, evaluator: Evaluator, settings: ReviewSettings, rollout: SageRollout | None = None
) -> CubeBias:
    """Every cube decision XG analysed in the XG file at ``path`` (a double and its answer are one
    decision), judged by XG, by our review at ``settings`` with ``evaluator``, and by our cube formula on
    our probabilities and on XG's (``JUDGES``); those near either point also by ``rollout`` where given
    (``ROLLOUTS``: No double and Double/take rolled out on the same dice, Double/pass exact)."""
    data = path.read_bytes()
    xg_probabilities = cube_probabilities(data)
    cases: list[CubeCase] = []
    for index, game in enumerate(read_games(data, str(path))):
        for number, step in _cube_steps(game.steps):
            verdict = verdict_of(step.action, DecisionKind.CUBE)
            assert verdict is not None and verdict.equities is not None
            position, state = step.position, step.state
            probabilities, ours = review_cube(evaluator, position, state, settings)
            efficiency = cube_efficiency(position.board)
            roller = position.turn
            equities = {
                XG: verdict.equities,
                OURS: _values(ours),
                FORMULA_OURS: _values(
                    cube_decision(probabilities, state, roller, efficiency, settings.table)
                ),
                FORMULA_XG: _values(
                    cube_decision(
                        xg_probabilities[verdict.equities], state, roller, efficiency, settings.table
                    )
                ),
            }
            rules = state.rules
            away = None if rules.money else rules.length - state.score[1 - roller]
            case = CubeCase(index, number, away, state.cube, equities)
            if rollout is not None and (case.near_take or case.near_double):
                rolled = rollout.cube_decision(position.board, state, roller)
                equities[ROLLOUTS] = (rolled.no_double.equity, rolled.double_take.equity, equities[OURS][2])
            cases.append(case)
    return CubeBias(str(path), str(settings), tuple(cases))


def _cube_steps(steps: list[Step]) -> Iterator[tuple[int, Step]]:
    """The steps (with their index) that hold XG's verdict on a cube decision with its equities: a roll
    before which XG judged not doubling, a double."""
    for number, step in enumerate(steps):
        verdict = verdict_of(step.action, DecisionKind.CUBE)
        if verdict is not None and verdict.equities is not None:
            yield number, step


def _values(decision: CubeDecision) -> Equities:
    return (decision.no_double, decision.double_take, decision.double_pass)
