"""Cubeful equities and cube decisions from the cubeless probabilities of a position, as gnubg makes them
at 0-ply.

Words: the *cube* (doubling cube) shows the stake; before rolling, the player on roll (the *roller*) may
*double* when the cube is *centred* (nobody owns it) or his own; the opponent *takes* (plays on for twice
the stake and owns the cube) or *passes* (loses the current stake at once); in money play he may also
*beaver* (take and redouble at once, keeping the cube). *Cubeless* probabilities ignore the cube;
*cubeful* equity counts what the cube is worth to the side that can use it. *Cube efficiency* ``x`` says
how well a player can use it: 0 is a *dead* cube (never turned again), 1 a fully *live* one (doubled at
exactly the right moment). A *take point* is the winning chance below which the taker should pass; a
*cash point* the one at which the doubler's double is a pass.

Method (Rick Janowski, "Take-Points in Money Games", 1993, in the form of gnubg's ``eval.c``:
``Cl2CfMoney``, ``Cl2CfMatchCentered/Owned/XOwned``, ``GetPoints``, ``EvalEfficiency``): the cubeful value
is ``(1 - x) * dead + x * live``, where *dead* is the cubeless value and *live* the value with a perfectly
efficient cube, piecewise linear in the roller's winning chance ``p`` between the points where a player
cashes or passes.

- Money (values per unit of the current cube), with W = 1 + (win gammon + win backgammon) / win and
  L = 1 + (lose gammon + lose backgammon) / (1 - win), the average sizes of a win and a loss: the live take
  point is TP = (L - 1/2) / (W + L + 1/2) and the cash point CP = (L + 1) / (W + L + 1/2), which are
  Janowski's take point (L - 1/2) / (W + L + x/2) at x = 1 and one minus the opponent's. The live value is
  linear through (0, -L), (TP, -1), (CP, +1), (1, +W) for a centred cube; (0, -L), (CP, +1), (1, +W) when
  the roller owns it; (0, -L), (TP, -1), (1, +W) when the opponent does. The Jacoby rule (gammons single
  while the cube is centred) sets the dead value to 2p - 1 and the centred live ends to -1 and +1.
  With no gammons the interpolation gives the take point 1/2 / (2 + x/2): 25% for a dead cube, 20% for a
  live one, 21.4% at x = 0.68.
- Match play (values as match winning chances, MWC, from the match equity table, ``met``): the dead value
  is the MWC expected over the six results (single, gammon, backgammon won or lost at the cube's stake).
  The cash points come from ``GetPoints``: for each cube level from the highest useful one (both players'
  needs covered by twice the cube) down to the current one, player i's dead cash point is
  (DTL - DP) / (DTL - DTW) and its live one 1 - CP_opponent(next level) * (DP - DTW) / (RDP - DTW), with,
  from i's side, DP the MWC of winning the current stake, DTW / DTL of winning / losing twice it (gammon
  mixes by the position's gammon ratios) and RDP of losing twice it (the opponent's redouble, passed).
  The live MWC is linear between the MWC of losing (gammon mix) at p = 0, of the opponent's cash at
  1 - CP_opponent, of the roller's cash at CP_roller and of winning (gammon mix) at p = 1, the segments
  present depending on who may double, as for money.
- The cube is dead, and cubeful = cubeless (as MWC) exactly, in the Crawford game, at 1-away 1-away, and
  when both players need no more than the cube's value (gnubg's ``fDoCubeful``).

Cube efficiency (gnubg's ``EvalEfficiency``): 0.68 for contact (and crashed) positions; for a race
0.55 + 0.00125 * (the roller's pip count), clipped to [0.6, 0.7]; 0.6 when both sides are bearing off.

Equities are normalised as gnubg's EMG (equivalent to money game): in money play the value per unit of
the current cube; in match play ``mwc_to_emg``: EMG = (2 * MWC - (Mw + Ml)) / (Mw - Ml), with Mw and Ml
the roller's MWC after winning and after losing a single game at the current cube (gnubg's ``mwc2eq``;
``emg_to_mwc`` is its inverse ``eq2mwc``). So Double, pass is always +1, and an error in EMG means the same
for both players (their EMGs are opposite).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from enum import Enum
from functools import cached_property, lru_cache

import numpy as np
from taldau.base.jit import njit

from ..rules.board import MOVER, pip_counts
from ..rules.cube import MatchState
from ..rules.met import MatchEquityTable, kazaross_xg2
from .bearoff import is_bearoff
from .model import CONTACT, position_class
from .probabilities import equity

CONTACT_EFFICIENCY = 0.68
RACE_EFFICIENCY_BASE = 0.55
RACE_EFFICIENCY_PER_PIP = 0.00125
RACE_EFFICIENCY_MIN = 0.6
RACE_EFFICIENCY_MAX = 0.7
BEAROFF_EFFICIENCY = 0.6
OPTIONAL_TOLERANCE = 1e-5  # gnubg's isOptional: a double worth no double within this is optional
# gnubg beavers a double only while Double/take is in [-2, 0): a taker who would be too good to redouble
# (more than +1 per doubled stake) takes (seen in gnubg 1.07's answers: tests/data/backgammon/gnubg/cube.json)
BEAVER_FLOOR = -2.0
_EPSILON = 1e-7  # gnubg's Cl2CfMoney: a win chance this close to 0 or 1 makes the cube dead


def cube_efficiency(board: np.ndarray) -> float:
    """Cube efficiency ``x`` of a (2, 25) board (row 1 the side on roll), as gnubg's ``EvalEfficiency``."""
    if position_class(board) == CONTACT:
        return CONTACT_EFFICIENCY
    if is_bearoff(board):
        return BEAROFF_EFFICIENCY
    pips = int(pip_counts(board)[MOVER])
    return min(
        RACE_EFFICIENCY_MAX, max(RACE_EFFICIENCY_MIN, RACE_EFFICIENCY_BASE + RACE_EFFICIENCY_PER_PIP * pips)
    )


class CubeAction(Enum):
    """The right cube action as gnubg names it (the roller's action, then the taker's answer)."""

    NO_DOUBLE_TAKE = "No double, take"
    NO_DOUBLE_BEAVER = "No double, beaver"
    DOUBLE_TAKE = "Double, take"
    DOUBLE_PASS = "Double, pass"
    DOUBLE_BEAVER = "Double, beaver"
    TOO_GOOD_TAKE = "Too good to double, take"
    TOO_GOOD_PASS = "Too good to double, pass"
    OPTIONAL_DOUBLE_TAKE = "Optional double, take"
    OPTIONAL_DOUBLE_PASS = "Optional double, pass"
    OPTIONAL_DOUBLE_BEAVER = "Optional double, beaver"
    NO_REDOUBLE_TAKE = "No redouble, take"
    NO_REDOUBLE_BEAVER = "No redouble, beaver"
    REDOUBLE_TAKE = "Redouble, take"
    REDOUBLE_PASS = "Redouble, pass"
    REDOUBLE_BEAVER = "Redouble, beaver"
    TOO_GOOD_REDOUBLE_TAKE = "Too good to redouble, take"
    TOO_GOOD_REDOUBLE_PASS = "Too good to redouble, pass"
    OPTIONAL_REDOUBLE_TAKE = "Optional redouble, take"
    OPTIONAL_REDOUBLE_PASS = "Optional redouble, pass"
    OPTIONAL_REDOUBLE_BEAVER = "Optional redouble, beaver"
    NOT_AVAILABLE = "Cube not available"

    @property
    def doubles(self) -> bool:
        """Whether the roller should double (optional doubles included)."""
        return self.name.startswith(("DOUBLE", "REDOUBLE", "OPTIONAL"))


class Response(Enum):
    """The taker's answer to a double."""

    TAKE = "take"
    PASS = "pass"
    BEAVER = "beaver"


class CubeMistake(Enum):
    """Kinds of cube errors, gnubg's words."""

    MISSED_DOUBLE = "missed double"
    WRONG_DOUBLE = "wrong double"
    WRONG_TAKE = "wrong take"
    WRONG_PASS = "wrong pass"


@dataclass(frozen=True)
class CubeDecision:
    """The cube decision of the roller before his roll: cubeful equities in EMG from his side of No double,
    Double/take and Double/pass (Double/pass is +1), the right action, the taker's right answer, whether the
    roller may double at all, whether a beaver is allowed, and in match play the same three values as MWC
    (``mwc``; None in money play)."""

    no_double: float
    double_take: float
    double_pass: float
    action: CubeAction
    response: Response
    available: bool
    beaver_allowed: bool
    mwc: tuple[float, float, float] | None = None

    def answered(self, response: Response) -> float:
        """The roller's equity (EMG) after doubling and the taker answering ``response`` (a beaver doubles
        the stake of a take, the taker keeping the cube)."""
        if response is Response.PASS:
            return self.double_pass
        if response is Response.BEAVER:
            if not self.beaver_allowed:
                raise ValueError("beavers are not allowed here")
            return 2.0 * self.double_take
        return self.double_take

    @property
    def double(self) -> float:
        """The roller's equity (EMG) after doubling, the taker answering right."""
        return self.answered(self.response)

    @property
    def best(self) -> float:
        """The roller's equity (EMG) with the right cube action (No double when the cube is not available)."""
        return max(self.no_double, self.double) if self.available else self.no_double


@dataclass(frozen=True)
class CubeEquities:
    """What a cube decision is worth as a decision record keeps it (``decision.BackgammonDetail.cube``), in
    cubeful equity (EMG) from the deciding player's side: not doubling (``no_double``), doubling and the
    opponent taking (``double_take``) or passing (``double_pass``), and the analyser's verdict in its own
    words (gnubg's ``No double, take``, ``Double, pass``, ``Too good to double, pass``, ``No redouble,
    take`` ...). For a take decision (the answer to a double) the equities are the doubler's negated and
    the verdict stays the doubler's, as gnubg prints it."""

    no_double: float
    double_take: float
    double_pass: float
    verdict: str


@dataclass(frozen=True)
class _Scene:
    """The cube seen from the roller's side: ``owner`` +1 roller, 0 centred, -1 opponent; in match play
    the away counts, whether this game has a player 1-away (then the next games are post-Crawford) and
    the Crawford game flag."""

    money: bool
    jacoby: bool
    cube: int
    owner: int
    away: int = 0
    opponent_away: int = 0
    crawford_game: bool = False
    one_away_game: bool = False
    crawford_rule: bool = True
    table: MatchEquityTable | None = None

    @classmethod
    def of(cls, state: MatchState, roller: int, table: MatchEquityTable | None) -> _Scene:
        """The scene of ``roller`` in ``state``; the same object for the same arguments (``_scene_of``), so
        that its match equities are looked up once however many cube decisions ask."""
        return _scene_of(state, roller, table)

    @classmethod
    def _make(cls, state: MatchState, roller: int, table: MatchEquityTable | None) -> _Scene:
        if roller not in (0, 1):
            raise ValueError(f"the roller must be player 0 or 1, not {roller!r}")
        if state.over:
            raise ValueError("the match is over")
        owner = 0 if state.cube_owner is None else (1 if state.cube_owner == roller else -1)
        rules = state.rules
        if rules.money:
            return cls(money=True, jacoby=rules.jacoby and owner == 0, cube=state.cube, owner=owner)
        away = rules.length - state.score[roller]
        opponent_away = rules.length - state.score[1 - roller]
        return cls(
            money=False,
            jacoby=False,
            cube=state.cube,
            owner=owner,
            away=away,
            opponent_away=opponent_away,
            crawford_game=state.crawford_game,
            one_away_game=min(away, opponent_away) == 1,
            crawford_rule=rules.crawford,
            table=table or kazaross_xg2(),
        )

    @cached_property
    def _afters(self) -> dict[int, float]:
        """``after``'s answers so far: a cube decision asks for the same few scores many times."""
        return {}

    def after(self, points: int) -> float:
        """Roller's MWC after he wins ``points`` (negative: loses) in this game (gnubg's ``getME``)."""
        known = self._afters.get(points)
        if known is None:
            known = self._afters[points] = self._after(points)
        return known

    def _after(self, points: int) -> float:
        assert self.table is not None
        away = self.away - max(points, 0)
        opponent_away = self.opponent_away - max(-points, 0)
        if away <= 0:
            return 1.0
        if opponent_away <= 0:
            return 0.0
        post_crawford = self.one_away_game or not self.crawford_rule
        return self.table.mwc(away, opponent_away, post_crawford)

    @cached_property
    def cash_stakes(
        self,
    ) -> tuple[tuple[tuple[float, tuple[float, ...], tuple[float, ...], float], ...], ...]:
        """For ``_cash_points``, at each cube level from the current one up to the highest useful one (both
        players' needs covered by twice the cube) and for each player (0 the roller): his MWC after a
        pass at that stake, after winning twice it (single, gammon, backgammon), after losing twice it,
        and after passing a redouble; made once per scene."""
        levels = [self.cube]
        while self.away - 2 * levels[-1] > 0 or self.opponent_away - 2 * levels[-1] > 0:
            levels.append(2 * levels[-1])
        return tuple(
            tuple(
                (
                    _player_mwc(self, player, stake),
                    tuple(_player_mwc(self, player, n * stake) for n in (2, 4, 6)),
                    tuple(_player_mwc(self, player, -n * stake) for n in (2, 4, 6)),
                    _player_mwc(self, player, -2 * stake),
                )
                for player in (0, 1)
            )
            for stake in levels
        )

    @cached_property
    def match_constants(self) -> tuple[np.ndarray, np.ndarray]:
        """What ``_match_values`` reads of the scene, made once: the roller's MWC after winning and after
        losing 1, 2 and 3 times the cube (``_AFTERS``), and ``cash_stakes`` as an (levels, 2, 8) array
        (empty where the cube is dead: no cash points are asked for)."""
        afters = np.array([self.after(points * self.cube) for points in _AFTERS], dtype=np.float64)
        stakes = np.zeros((0, 2, 8), dtype=np.float64)
        if self.cubeful:
            stakes = np.array(
                [
                    [
                        [double_pass, *wins, *losses, redouble_pass]
                        for double_pass, wins, losses, redouble_pass in level
                    ]
                    for level in self.cash_stakes
                ],
                dtype=np.float64,
            ).reshape(-1, 2, 8)
        return afters, stakes

    @property
    def cubeful(self) -> bool:
        """Whether the cube is alive in match play (gnubg's ``fDoCubeful``)."""
        dead = self.away <= self.cube and self.opponent_away <= self.cube
        return not (dead or (self.away == 1 and self.opponent_away == 1) or self.crawford_game)

    def doubled(self) -> _Scene:
        """The scene after the roller doubles and the opponent takes (made once per scene)."""
        return self._doubled

    @cached_property
    def _doubled(self) -> _Scene:
        return replace(self, cube=2 * self.cube, owner=-1, jacoby=False)


@lru_cache(maxsize=4096)
def _scene_of(state: MatchState, roller: int, table: MatchEquityTable | None) -> _Scene:
    """``_Scene._make``, remembered: a review meets a few cube positions many times."""
    return _Scene._make(state, roller, table)


_AFTERS = (1, 2, 3, -1, -2, -3)  # the results, in cubes won (negative: lost), of ``_Scene.match_constants``


def _rows(probabilities: Sequence[float] | np.ndarray) -> np.ndarray:
    """Probabilities as the (n, 5) float64 rows the kernels read (one row for a single position)."""
    return np.ascontiguousarray(np.asarray(probabilities, dtype=np.float64).reshape(-1, 5))


def _efficiencies(efficiency: float | np.ndarray, rows: int) -> np.ndarray:
    """A cube efficiency per row: one for all, or one each."""
    return np.ascontiguousarray(np.broadcast_to(np.asarray(efficiency, dtype=np.float64), (rows,)))


def cubeful_values(
    probabilities: np.ndarray,
    state: MatchState,
    player: int,
    efficiency: float | np.ndarray = CONTACT_EFFICIENCY,
    table: MatchEquityTable | None = None,
) -> np.ndarray:
    """``player``'s cubeful values at 0-ply, one per row of ``probabilities`` (n, 5) (his cubeless
    probabilities, on roll, the cube staying as it is in ``state`` this turn), with ``efficiency`` one cube
    efficiency for all rows or one per row: in money play per unit of the cube (``cubeful_equity``), in a
    match as MWC (``cubeful_mwc``). The one computation behind both, for many positions at once."""
    return _values(_Scene.of(state, player, table), _rows(probabilities), efficiency)


def _values(scene: _Scene, rows: np.ndarray, efficiency: float | np.ndarray) -> np.ndarray:
    """``cubeful_values`` in ``scene``: money equity per unit of its cube, or match MWC."""
    efficiencies = _efficiencies(efficiency, len(rows))
    out = np.empty(len(rows), dtype=np.float64)
    if scene.money:
        _money_values(rows, efficiencies, scene.owner, scene.jacoby, out)
    else:
        afters, stakes = scene.match_constants
        _match_values(rows, efficiencies, scene.owner, scene.cubeful, afters, stakes, out)
    return out


@njit(cache=True, inline="always")
def _ratio(numerator: float, denominator: float) -> float:
    """numerator / denominator, 1 when the denominator vanishes (a cash that changes nothing)."""
    return numerator / denominator if denominator != 0.0 else 1.0


@njit(cache=True, inline="always")
def _line(x0: float, y0: float, x1: float, y1: float, x: float) -> float:
    """The value at ``x`` of the line through (x0, y0) and (x1, y1); y1 when the two x coincide."""
    return y1 if x1 == x0 else y0 + (y1 - y0) * (x - x0) / (x1 - x0)


@njit(cache=True)
def _match_values(
    probabilities: np.ndarray,
    efficiency: np.ndarray,
    owner: int,
    cubeful: bool,
    afters: np.ndarray,
    stakes: np.ndarray,
    out: np.ndarray,
) -> None:
    """Roller's cubeful MWC at 0-ply of each row of ``probabilities`` into ``out`` (gnubg's
    ``Cl2CfMatch``), the cube as ``_Scene.match_constants`` (``afters``, ``stakes``), ``owner`` and
    ``cubeful`` describe it; where the cube is dead, the cubeless MWC (the MWC expected over the results)."""
    top = stakes.shape[0] - 1
    live = np.zeros((2, max(top + 1, 1)))
    ratios = np.zeros((2, 2))
    for row in range(probabilities.shape[0]):
        win = probabilities[row, 0]
        win_gammon = probabilities[row, 1]
        win_backgammon = probabilities[row, 2]
        lose_gammon_all = probabilities[row, 3]
        lose_backgammon_all = probabilities[row, 4]
        # gnubg's rG0, rBG0, rG1, rBG1: of the roller's wins the share of gammons only and of backgammons;
        # of his losses the same
        lose = 1.0 - win
        gammon = (win_gammon - win_backgammon) / win if win > 0.0 else 0.0
        backgammon = win_backgammon / win if win > 0.0 else 0.0
        lose_gammon = (lose_gammon_all - lose_backgammon_all) / lose if lose > 0.0 else 0.0
        lose_backgammon = lose_backgammon_all / lose if lose > 0.0 else 0.0
        # the roller's MWC after winning / losing at the cube with these shares
        single = 1.0 - gammon - backgammon
        win_all = single * afters[0] + gammon * afters[1] + backgammon * afters[2]
        single = 1.0 - lose_gammon - lose_backgammon
        lose_all = single * afters[3] + lose_gammon * afters[4] + lose_backgammon * afters[5]
        dead = win * win_all + (1.0 - win) * lose_all
        if not cubeful:
            out[row] = dead
            continue
        # live-cube cash points of each player as his own winning chance (gnubg's GetPoints)
        ratios[0, 0], ratios[0, 1] = gammon, backgammon
        ratios[1, 0], ratios[1, 1] = lose_gammon, lose_backgammon
        for level in range(top, -1, -1):
            for player in range(2):
                gammon_p, backgammon_p = ratios[player, 0], ratios[player, 1]
                lose_gammon_p, lose_backgammon_p = ratios[1 - player, 0], ratios[1 - player, 1]
                stake = stakes[level, player]
                double_pass, redouble_pass = stake[0], stake[7]
                take_win = (
                    (1.0 - gammon_p - backgammon_p) * stake[1] + gammon_p * stake[2] + backgammon_p * stake[3]
                )
                take_lose = (
                    (1.0 - lose_gammon_p - lose_backgammon_p) * stake[4]
                    + lose_gammon_p * stake[5]
                    + lose_backgammon_p * stake[6]
                )
                if level == top:
                    live[player, level] = _ratio(take_lose - double_pass, take_lose - take_win)
                else:
                    opponent = live[1 - player, level + 1]
                    live[player, level] = 1.0 - opponent * _ratio(
                        double_pass - take_win, redouble_pass - take_win
                    )
        roller_cash, opponent_cash = live[0, 0], live[1, 0]
        p = win
        cash = afters[0]
        opponent_cashes = afters[3]
        opponent_too_good = 1.0 - opponent_cash  # the roller's chance at which the opponent cashes
        if owner <= 0 and p <= opponent_too_good:  # the opponent may double: he cashes at his point
            value = _line(0.0, lose_all, opponent_too_good, opponent_cashes, p)
        elif owner == 0 and p < roller_cash:  # centred: between the two cash points
            value = _line(opponent_too_good, opponent_cashes, roller_cash, cash, p)
        elif owner == 0:
            value = _line(roller_cash, cash, 1.0, win_all, p)
        elif owner > 0 and p <= roller_cash:  # the roller owns the cube
            value = _line(0.0, lose_all, roller_cash, cash, p)
        elif owner > 0:
            value = _line(roller_cash, cash, 1.0, win_all, p)
        else:  # the opponent owns the cube
            value = _line(opponent_too_good, opponent_cashes, 1.0, win_all, p)
        out[row] = (1.0 - efficiency[row]) * dead + efficiency[row] * value


@njit(cache=True)
def _money_values(
    probabilities: np.ndarray, efficiency: np.ndarray, owner: int, jacoby: bool, out: np.ndarray
) -> None:
    """Roller's cubeful money equity per unit of the cube at 0-ply of each row of ``probabilities`` into
    ``out`` (gnubg's ``Cl2CfMoney``), the cube's ``owner`` +1 roller, 0 centred, -1 opponent."""
    for row in range(probabilities.shape[0]):
        win = probabilities[row, 0]
        win_gammon = probabilities[row, 1]
        win_backgammon = probabilities[row, 2]
        lose_gammon = probabilities[row, 3]
        lose_backgammon = probabilities[row, 4]
        dead = 2.0 * win - 1.0
        if not jacoby:
            dead += win_gammon - lose_gammon + win_backgammon - lose_backgammon
        if win <= _EPSILON or win >= 1.0 - _EPSILON:
            out[row] = dead
            continue
        w = 1.0 + (win_gammon + win_backgammon) / win
        loss = 1.0 + (lose_gammon + lose_backgammon) / (1.0 - win)
        take_point = (loss - 0.5) / (w + loss + 0.5)
        cash_point = (loss + 1.0) / (w + loss + 0.5)
        if owner == 0:
            if win < take_point:
                live = -1.0 if jacoby else -loss + (loss - 1.0) * win / take_point
            elif win < cash_point:
                live = -1.0 + 2.0 * (win - take_point) / (cash_point - take_point)
            else:
                live = 1.0 if jacoby else 1.0 + (w - 1.0) * (win - cash_point) / (1.0 - cash_point)
        elif owner > 0:
            if win < cash_point:
                live = -loss + (1.0 + loss) * win / cash_point
            else:
                live = 1.0 + (w - 1.0) * (win - cash_point) / (1.0 - cash_point)
        elif win < take_point:
            live = -loss + (loss - 1.0) * win / take_point
        else:
            live = -1.0 + (w + 1.0) * (win - take_point) / (1.0 - take_point)
        out[row] = (1.0 - efficiency[row]) * dead + efficiency[row] * live


def _player_mwc(scene: _Scene, player: int, points: int) -> float:
    """MWC of ``player`` (0 the roller) after he wins ``points`` (negative: loses) in this game."""
    return scene.after(points) if player == 0 else 1.0 - scene.after(-points)


def _match_mwc(scene: _Scene, probabilities: Sequence[float] | np.ndarray, efficiency: float) -> float:
    """Roller's cubeful MWC at 0-ply of one position (gnubg's ``Cl2CfMatch``)."""
    return float(_values(scene, _rows(probabilities), efficiency)[0])


def _money_equity(scene: _Scene, probabilities: Sequence[float] | np.ndarray, efficiency: float) -> float:
    """Roller's cubeful money equity per unit of the scene's cube at 0-ply (gnubg's ``Cl2CfMoney``)."""
    return float(_values(scene, _rows(probabilities), efficiency)[0])


def _dead_mwc(scene: _Scene, probabilities: Sequence[float] | np.ndarray) -> float:
    """Roller's cubeless MWC: the MWC expected over the results at the scene's cube."""
    afters, stakes = scene.match_constants
    out = np.empty(1, dtype=np.float64)
    _match_values(_rows(probabilities), np.zeros(1), scene.owner, False, afters, stakes, out)
    return float(out[0])


def _emg(scene: _Scene, mwc: float) -> float:
    win, lose = scene.after(scene.cube), scene.after(-scene.cube)
    return (2.0 * mwc - (win + lose)) / (win - lose)


def mwc_to_emg(mwc: float, state: MatchState, player: int, table: MatchEquityTable | None = None) -> float:
    """``player``'s MWC in a match as EMG at the current cube (gnubg's ``mwc2eq``):
    (2 * MWC - (Mw + Ml)) / (Mw - Ml), Mw / Ml his MWC after winning / losing a single game now."""
    scene = _Scene.of(state, player, table)
    if scene.money:
        raise ValueError("money play has no match winning chances")
    return _emg(scene, mwc)


def emg_to_mwc(emg: float, state: MatchState, player: int, table: MatchEquityTable | None = None) -> float:
    """``player``'s EMG in a match as MWC (gnubg's ``eq2mwc``, the inverse of ``mwc_to_emg``)."""
    scene = _Scene.of(state, player, table)
    if scene.money:
        raise ValueError("money play has no match winning chances")
    win, lose = scene.after(scene.cube), scene.after(-scene.cube)
    return 0.5 * ((win - lose) * emg + win + lose)


def game_result_mwc(
    start: MatchState, winner: int, points: int, table: MatchEquityTable | None = None
) -> float:
    """The match winning chances ``winner`` gains by winning ``points`` in a game that began at ``start``:
    his MWC after it minus his MWC at the score before it (gnubg's ``getME`` minus ``getMEAtScore``, the
    "actual result" of its statistics)."""
    scene = _Scene.of(start, winner, table)
    if scene.money:
        raise ValueError("money play has no match winning chances")
    assert scene.table is not None
    post_crawford = (scene.one_away_game and not scene.crawford_game) or not scene.crawford_rule
    return scene.after(points) - scene.table.mwc(scene.away, scene.opponent_away, post_crawford)


def cubeless_mwc(
    probabilities: Sequence[float] | np.ndarray,
    state: MatchState,
    player: int,
    table: MatchEquityTable | None = None,
) -> float:
    """MWC of ``player`` whose cubeless probabilities these are, in a match, ignoring the cube's future
    (the cube keeps its value): the MWC expected over the results of the game."""
    scene = _Scene.of(state, player, table)
    if scene.money:
        raise ValueError("money play has no match winning chances")
    return _dead_mwc(scene, probabilities)


def cubeless_emg(
    probabilities: Sequence[float] | np.ndarray,
    state: MatchState,
    player: int,
    table: MatchEquityTable | None = None,
) -> float:
    """Cubeless equity in EMG of ``player`` whose probabilities these are, as gnubg prints it: in money play
    the cubeless equity (``engine.probabilities.equity``; gammons count in full, Jacoby rule or not), in a
    match ``mwc_to_emg`` of ``cubeless_mwc``."""
    scene = _Scene.of(state, player, table)
    if scene.money:
        return float(equity(np.asarray(probabilities, dtype=np.float64)))
    return _emg(scene, _dead_mwc(scene, probabilities))


def cubeful_equity(
    probabilities: Sequence[float] | np.ndarray,
    state: MatchState,
    player: int,
    efficiency: float = CONTACT_EFFICIENCY,
    table: MatchEquityTable | None = None,
) -> float:
    """Cubeful equity in EMG of ``player``, on roll with these cubeless probabilities, the cube staying as
    it is in ``state`` this turn (No double, or the cube not his to turn). The position after a checker
    play, with the opponent on roll, is worth minus the opponent's ``cubeful_equity``."""
    scene = _Scene.of(state, player, table)
    if scene.money:
        return _money_equity(scene, probabilities, efficiency)
    return _emg(scene, _match_mwc(scene, probabilities, efficiency))


def cubeful_mwc(
    probabilities: Sequence[float] | np.ndarray,
    state: MatchState,
    player: int,
    efficiency: float = CONTACT_EFFICIENCY,
    table: MatchEquityTable | None = None,
) -> float:
    """``cubeful_equity`` as the MWC of ``player`` (match play only)."""
    scene = _Scene.of(state, player, table)
    if scene.money:
        raise ValueError("money play has no match winning chances")
    return _match_mwc(scene, probabilities, efficiency)


def cube_decision(
    probabilities: Sequence[float] | np.ndarray,
    state: MatchState,
    roller: int,
    efficiency: float = CONTACT_EFFICIENCY,
    table: MatchEquityTable | None = None,
) -> CubeDecision:
    """The cube decision of ``roller`` (the player on roll, before rolling, whose cubeless probabilities
    these are) in ``state`` (before any offer): the three cubeful equities, the right action and the
    taker's right answer (gnubg's ``FindCubeDecision``). The roller may double when the rules allow it
    (``MatchState.can_double``: not the Crawford game, the cube his or centred, under its limit) and, in
    a match, when he needs more points than the cube's value (otherwise his cube is dead)."""
    state = before_offer(state)
    scene = _Scene.of(state, roller, table)
    doubled = scene.doubled()
    if scene.money:
        values = (
            _money_equity(scene, probabilities, efficiency),
            2.0 * _money_equity(doubled, probabilities, efficiency),
            1.0,
        )
        return decide(values, None, state, roller, table)
    mwc = (
        _match_mwc(scene, probabilities, efficiency),
        _match_mwc(doubled, probabilities, efficiency),
        scene.after(scene.cube),
    )
    return decide(None, mwc, state, roller, table)


def before_offer(state: MatchState) -> MatchState:
    """``state`` without a pending offer (the same object when there is none)."""
    return state if state.offered_by is None else replace(state, offered_by=None)


def may_double(state: MatchState, roller: int) -> bool:
    """Whether ``roller`` may double in ``state`` and it can matter: the rules allow it
    (``MatchState.can_double``) and, in a match, he needs more points than the cube's value (otherwise his
    cube is dead)."""
    if not state.can_double(roller):
        return False
    return state.rules.money or state.rules.length - state.score[roller] > state.cube


def decide(
    values: tuple[float, float, float] | None,
    mwc: tuple[float, float, float] | None,
    state: MatchState,
    roller: int,
    table: MatchEquityTable | None = None,
) -> CubeDecision:
    """The cube decision of ``roller`` in ``state`` (before any offer) from his No double, Double/take and
    Double/pass values, however they were found (at 0-ply here, deeper in ``cube_plies``): in money play
    ``values`` (EMG: per unit of the current cube, Double/take at the doubled stake), in a match ``mwc``
    (his MWC, converted to EMG here). The right action and the taker's right answer follow gnubg's
    ``FindCubeDecision``."""
    state = before_offer(state)
    scene = _Scene.of(state, roller, table)
    if scene.money:
        if values is None:
            raise ValueError("money play decides on EMG values")
        limit = state.rules.cube_limit
        beaver_allowed = state.rules.beavers and (not limit or 4 * state.cube <= limit)
        mwc = None
    else:
        if mwc is None:
            raise ValueError("match play decides on MWC values")
        values = (_emg(scene, mwc[0]), _emg(scene, mwc[1]), _emg(scene, mwc[2]))
        beaver_allowed = False
    no_double, double_take, double_pass = values
    available = may_double(state, roller)
    if beaver_allowed and BEAVER_FLOOR <= double_take < 0.0:
        response = Response.BEAVER
    elif double_pass > double_take:
        response = Response.TAKE
    else:
        response = Response.PASS
    action = _action(no_double, double_take, double_pass, response, available, redouble=scene.owner > 0)
    return CubeDecision(no_double, double_take, double_pass, action, response, available, beaver_allowed, mwc)


def _action(
    no_double: float,
    double_take: float,
    double_pass: float,
    response: Response,
    available: bool,
    redouble: bool,
) -> CubeAction:
    """gnubg's name of the right action; a double counts with the taker's right answer (a beaver: twice
    Double/take)."""
    if not available:
        return CubeAction.NOT_AVAILABLE
    prefix = "REDOUBLE" if redouble else "DOUBLE"
    doubled = {Response.TAKE: double_take, Response.PASS: double_pass, Response.BEAVER: 2.0 * double_take}[
        response
    ]
    answer = response.name
    if doubled >= no_double:
        optional = "OPTIONAL_" if abs(doubled - no_double) <= OPTIONAL_TOLERANCE else ""
        return CubeAction[f"{optional}{prefix}_{answer}"]
    if no_double > double_pass:
        return CubeAction[
            f"TOO_GOOD_{'REDOUBLE_' if redouble else ''}{'PASS' if double_take > double_pass else 'TAKE'}"
        ]
    return CubeAction[f"NO_{prefix}_{answer}"]


def double_error(decision: CubeDecision, doubled: bool) -> tuple[CubeMistake | None, float]:
    """The roller's error (EMG, >= 0) in doubling or not: a missed double or a wrong double, or (None, 0)
    when his choice was right or the cube was not his to turn. The double is valued with the taker's
    right answer."""
    if not decision.available:
        return None, 0.0
    chosen = decision.double if doubled else decision.no_double
    loss = decision.best - chosen
    if loss <= 0.0:
        return None, 0.0
    return (CubeMistake.WRONG_DOUBLE if doubled else CubeMistake.MISSED_DOUBLE), loss


def response_error(decision: CubeDecision, response: Response) -> tuple[CubeMistake | None, float]:
    """The taker's error (EMG, >= 0; his EMG is minus the roller's) in answering a double with
    ``response``: a wrong pass or a wrong take (a take or beaver when another answer was right)."""
    loss = decision.answered(response) - decision.double
    if loss <= 0.0:
        return None, 0.0
    return (CubeMistake.WRONG_PASS if response is Response.PASS else CubeMistake.WRONG_TAKE), loss
