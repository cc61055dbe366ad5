"""The review of checker plays: for each roll, the play made and the best play of the roll at
``ReviewSettings.plies``, ranked by cubeful equity in the match's context, and the luck of the roll.

Words for readers who do not know the game: a *play* is all the checker moves of one roll of the two dice;
it is *forced* when the roll allows one play only (or none: the player *dances*).

- **move**: gnubg's move filter goes before the deeper plies, the played play always evaluated as deep as
  the best; the plays are ranked by
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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..engine import Evaluator
from ..engine.analyse import Analysis, RankedPlay, after_plays, analyse
from ..engine.cube_plies import after_play_equities, after_play_equity
from ..engine.cubeful import cubeless_mwc
from ..engine.model import CONTACT, position_class
from ..engine.probabilities import equities
from ..engine.sage import CubefulRollout
from ..records.replay import Step
from ..rules.cube import DecisionKind, MatchState
from ..rules.met import MatchEquityTable
from ..rules.position import Dice, Play, Position
from . import luck
from .levels import (
    Judge,
    ReviewedDecision,
    ReviewSettings,
    judge_for,
    match_id,
    mwc_difference,
    without_beavers,
)
from .luck import LuckMark


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


def review_play(evaluator: Evaluator, step: Step, settings: ReviewSettings) -> MoveDecision:
    """The review of the checker play of one ``step`` (a roll with its play) as ``review_match`` makes it
    (its game and step numbers 0; the luck of the roll as the game's later rolls, when ``settings.luck``)."""
    if step.play is None or step.action.dice is None:
        raise ValueError("only a roll with its play has a checker play to review")
    return move_review(judge_for(evaluator, settings), step, 0, 0, opening=False)


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
    state = without_beavers(state)
    analysis = analyse(evaluator, position, dice, settings.search, include=include)
    # judged cubeful among the plays evaluated at the analysis plies (in rank order, deepest first)
    judged = tuple(
        analysis.play(rank) for rank in range(int(np.count_nonzero(analysis.plies == analysis.plies[0])))
    )
    values = after_play_equities(
        analysis.probabilities[: len(judged)],
        [ranked.play.result.board for ranked in judged],
        state,
        position.turn,
        settings.table,
    )
    return PlaysInContext(analysis, state, settings.table, judged, values)


def move_review(judge: Judge, step: Step, game: int, number: int, opening: bool) -> MoveDecision:
    """The review of the checker play of ``step`` (a roll with its play); ``opening``: the game's first
    roll (for the luck). A play in doubt is judged again where the settings settle (``_settle``)."""
    evaluator, settings = judge.evaluator, judge.settings
    position, play, dice = step.position, step.play, step.action.dice
    state = without_beavers(step.state)
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
        loss_mwc=mwc_difference(loss, state, player, settings.table),
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
        luck_mwc=None if luck is None else mwc_difference(luck, state, player, settings.table),
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
    judge: Judge, boards: Sequence[np.ndarray], values: np.ndarray, state: MatchState, player: int
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
    return after_play_equities(probabilities[best], boards[best, ::-1], state, player, settings.table)


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
