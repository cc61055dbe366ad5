"""Judging a Togyz Kumalak game move by move: the engine's best move against the move played, both scores,
the kumalak lost and the winning chances before and after (through the win curve).

Scores and winning chances are stored from White's side; ``loss`` and plies to a forced result from the
mover's side. Positions are analysed from the last to the first, so that the engine's table carries what it
learnt about the end of the game back to its start, except the game's first ``OPENING_PLIES`` (the
openings that real archives repeat from game to game): each of those decisions is judged from a fresh
table, so that its judgement depends only on the position, the move played and the limit, and a process
that meets it again in another game takes it from its ``OpeningJudgements`` instead of searching again.

The move played, when it is not the engine's best, is searched on its own as a root move of the position,
at the same limit. ``one_search`` (not the default) takes its value from the position it leads to instead,
searched just before at the same limit and seen from the other side (``Score.before_the_move``), and
searches it on its own only where that value does not compare with the best move's: at the last ply
(nothing searched after it), when one search found a forced result or solved its tree and the other did
not (a proof seen from one side only: the other side's value is a guess at the limit), and when the move
brings the stones on the board down to where the engine solves endgames (``solve_stones``: the position
after it searched to the end, the one before it to the limit). Measured with ``taldau bench marks
--one-search`` (BENCHMARKS.md): at depth 12 it saved only a tenth of the time (the played move's own search
is cheap, probably because the table is warm from the position's search just before) and marked a few
more ``?`` that a deeper reference does not (its value comes from one ply deeper than the other moves'),
so it is not the default.

A ``Verification`` searches again, deeper, the decisions that may deserve a mark: those whose move gives
away at least its ``drop`` of winning chances by their last search are searched once more (the best move
and the move played) ``plies`` deeper than the limit, and judged by that search; stages follow one
another (the default's each with a larger drop and more plies), so that only the decisions still at stake
are searched deepest. Marks are where a review is read first and where a shallow search errs most costly
(a blunder that is not one, or one that is missed), and they are few, so the deeper look costs a fraction
of the review. It applies to depth limits only (a node or time limit has no depth to add to).

The default review (``REVIEW_DEPTH``, ``VERIFICATION``) searches every position to depth 12, then the
decisions that give away 0.08 winning chances or more to 13, those still at 0.15 to 15 and those still at
0.25, the blunders in the making, to 18: on 60 real games of the marks bench it marks closer to a
depth-18 reference than depth 13 alone (the same mark more often, the losses better correlated, more
blunders found and far fewer false ones) in 1.17x its time (BENCHMARKS.md, "Verification"). Its searches
reduce by two plies every quiet move the late-move reductions shorten, from the fourth on (the engine's
``deep_reductions``), except in the first stage, which sets most of the ``?!`` marks: from the sixth move
on, 55 unseen games took about a fifth less CPU than with no such reductions, with the same mark on 98.3%
of the plies; from the fourth, 30 unseen games take 0.88x the CPU of the sixth's, with marks closer to a
depth-18 reference (BENCHMARKS.md, "Togyz: deeper reductions" and "Togyz: two-ply reductions from the
fourth move", issue 57).

The marks and the players' figures are the batch's (``taldau.analysis.review``): a move's ``drop`` (the
winning chances it gives away) is what they are set by.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from taldau.base.kind import MOVE, Decision, GameAnalysis, Limit, OpeningBook, pov
from taldau.base.winchance import WinCurve

from .decision import TogyzDetail
from .engine import AnalysisInfo, Engine, Score
from .position import Position
from .replay import Game

LOSS_CAP = 20.0  # the most one move can lose, in kumalak: a move's loss and so a player's mean loss


def move_loss(best: Score, played: Score) -> float:
    """What the played move gives away against the best one, from the mover's side, in kumalak: from 0 to
    ``LOSS_CAP``, and so averaged as it is stored.

    A forced result is no amount of kumalak: throwing a forced win away or walking into a forced loss loses
    the cap; between two forced results of the same sign nothing is lost (how much sooner or later the
    result comes is told by the plies, not the loss).
    """
    best_plies, played_plies = best.plies_to_result, played.plies_to_result
    if best_plies is None and played_plies is None:
        return min(max(0.0, float(best) - float(played)), LOSS_CAP)
    if best_plies is not None and played_plies is not None and (best_plies > 0) == (played_plies > 0):
        return 0.0
    throws_a_win_away = best_plies is not None and best_plies > 0
    walks_into_a_loss = played_plies is not None and played_plies < 0
    return LOSS_CAP if throws_a_win_away or walks_into_a_loss else 0.0


def _search_of_move(
    engine: Engine, position: Position, move: int, best: AnalysisInfo, limit: Limit
) -> AnalysisInfo:
    """The search that values ``move``: ``best`` (the position's own search) when it is the best move, else
    the move searched on its own at ``limit``."""
    return best if move == best.best else engine.evaluate_move(position, move, limit)


REFUTED = 2.0  # kumalak: a book move the engine finds this much worse than its own best is not played


def book_move(
    book: OpeningBook, position: Position, engine: Engine, limit: Limit, refuted: float = REFUTED
) -> int | None:
    """A move of ``book`` for ``position`` (its origin pit) that the engine does not refute: one that loses
    less than ``refuted`` kumalak against the engine's best at ``limit`` (``move_loss``); None when the book
    has none. The engine searches only when the book has a candidate."""
    pits = {position.san(pit): pit for pit in position.legal_moves()}
    searched: list[AnalysisInfo] = []

    def sound(text: str) -> bool:
        pit = pits.get(text)
        if pit is None:  # a book of other rules, or a damaged one: never play what is not legal
            return False
        if not searched:
            searched.append(engine.analyse(position, limit))
        best = searched[0]
        played = _search_of_move(engine, position, pit, best, limit)
        return move_loss(best.score, played.score) < refuted

    chosen = book.choose(position.key, "", sound)
    return None if chosen is None else pits[chosen]


@dataclass(frozen=True)
class Verification:
    """Which decisions a review searches again and how much deeper: those whose move gives away at least
    ``drop`` winning chances (0 to 2) by the last search of them, ``plies`` deeper than the review's limit
    (see the module docstring); ``deep_reductions``, where given, the stage's searches' own
    (``EngineSettings.deep_reductions``: 0 for none; None: the engine's)."""

    drop: float
    plies: int
    deep_reductions: int | None = None

    def __post_init__(self) -> None:
        if not 0 < self.drop <= 2 or self.plies < 1 or (self.deep_reductions or 0) < 0:
            raise ValueError(
                f"a verification needs a drop in (0, 2], at least one ply and no negative reductions: {self}"
            )

    def __str__(self) -> str:
        reductions = "" if self.deep_reductions is None else f"d{self.deep_reductions}"
        return f"{self.drop:g}+{self.plies}{reductions}"

    @classmethod
    def parse(cls, text: str) -> tuple[Verification, ...]:
        """Stages written as ``str`` gives them, comma-separated (``0.1+3,0.2+6``, ``0.08+1d0`` for a stage
        without deep reductions); ValueError if not."""
        stages = []
        for part in text.split(","):
            found = re.fullmatch(r"([0-9.]+)\+([0-9]+)(?:d([0-9]+))?", part.strip())
            if found is None:
                raise ValueError(
                    f"{part!r}: a verification stage is DROP+PLIES, such as 0.2+4, or DROP+PLIESdN for "
                    "deep reductions from move N + 1 in its searches (d0: none)"
                )
            drop, plies, deep = found.groups()
            stages.append(cls(float(drop), int(plies), None if deep is None else int(deep)))
        return tuple(stages)


REVIEW_DEPTH = 12  # every Togyz search's depth unless given (a review's before its verification)
# The default's stages: the first, which sets most ``?!``, without the engine's deep reductions.
VERIFICATION = (Verification(0.08, 1, deep_reductions=0), Verification(0.15, 3), Verification(0.25, 6))


def review_limit() -> Limit:
    """The limit of every Togyz search when none is given: ``taldau analyze`` and ``taldau annotate``
    (with ``VERIFICATION``), ``taldau search`` and ``taldau bench speed``: depth 12."""
    return Limit(depth=REVIEW_DEPTH)


def _comparable(
    before: AnalysisInfo, after: AnalysisInfo, position: Position, next_position: Position, engine: Engine
) -> bool:
    """Whether ``after`` (the search of ``next_position``, the position the move played leads to) values
    the move played on the same footing as ``before`` values the best move (see the module docstring)."""
    if before.solved != after.solved or before.score.is_forced != after.score.is_forced:
        return False
    solve = engine.settings.solve_stones
    return (position.stones_on_board() <= solve) == (next_position.stones_on_board() <= solve)


def _chances(curve: WinCurve, score: Score, progress: float) -> float:
    """The mover's winning chances at ``score`` (kumalak or a forced result) this far into the game."""
    return curve.chances(float(score), progress, score.plies_to_result)


@dataclass(frozen=True)
class Judgement:
    """One move judged on its own, as a review judges a decision: the position's search (its best move),
    the played move's search (the same one when it is the best), what the move loses in kumalak
    (``move_loss``) and the winning chances it gives away (``drop``, what the marks are set by)."""

    best: AnalysisInfo
    played: AnalysisInfo
    loss: float
    drop: float

    @property
    def nodes(self) -> int:
        """Nodes of both searches (one when the move played is the best)."""
        return _spent(self.best, self.played)[0]


def judge_move(position: Position, move: int, engine: Engine, curve: WinCurve, limit: Limit) -> Judgement:
    """The move from pit ``move`` (1 to 9) of ``position`` judged against the engine's best at ``limit``,
    with no verification: a review's verdict on one decision, searched again alone, for example deeper
    than a review can afford, to settle which of two reviews marked it right."""
    info = engine.analyse(position, limit)
    played = _search_of_move(engine, position, move, info, limit)
    progress = position.progress()
    drop = _chances(curve, info.score, progress) - _chances(curve, played.score, progress)
    return Judgement(info, played, move_loss(info.score, played.score), drop)


def _spent(info: AnalysisInfo, played: AnalysisInfo) -> tuple[int, float]:
    """Nodes and seconds of a decision's search and of the played move's own search (if it had one)."""
    if played is info:
        return info.nodes, info.seconds
    return info.nodes + played.nodes, info.seconds + played.seconds


def _search_decision(
    engine: Engine,
    game: Game,
    ply: int,
    limit: Limit,
    searched_after: AnalysisInfo | None,
    one_search: bool,
) -> tuple[AnalysisInfo, AnalysisInfo, Score]:
    """The search of the position at ``ply``, the search that values the move played (the same one when it
    is the best) and the played move's score."""
    position, move = game.positions[ply], game.moves[ply]
    info = engine.analyse(position, limit)
    if move == info.best:
        return info, info, info.score
    if (
        one_search
        and searched_after is not None
        and _comparable(info, searched_after, position, game.positions[ply + 1], engine)
    ):
        return info, info, searched_after.score.before_the_move()
    played = engine.evaluate_move(position, move, limit)
    return info, played, played.score


OPENING_PLIES = 12  # a review's first plies judged from a fresh table and shared by the games of a process


@dataclass(frozen=True)
class Searched:
    """What the searches of one decision found: the position's first search at the review's limit
    (``first``, which the ply before compares with under ``one_search``), its last search (after any
    verification), the played move's score by the search that valued it, and the nodes and seconds of all
    of them."""

    first: AnalysisInfo
    info: AnalysisInfo
    played_score: Score
    nodes: int
    seconds: float


@dataclass
class OpeningJudgements:
    """The judgements of the openings' decisions, kept for the other games a process reviews: the decisions
    of a game's first ``plies`` plies are each searched from a fresh table (the engine's ``new_game``), so
    that a decision's judgement depends only on the position, the move played and the limit, never on the
    game around it or on the games reviewed before, and the same decision in another game takes it from
    here instead of searching again. Real archives repeat their openings: the 2,398 PlayOK games hold
    23,891 decisions in their first 12 plies, which two processes judged in 7,505 searches, each from a
    fresh table at 1.1 times the cost of one from the table the game's later plies left (BENCHMARKS.md,
    issue 57, seventh session). A decision taken from here carries the nodes and
    seconds of the searches that judged it. Up to ``size`` judgements are kept, the least recently used
    forgotten first."""

    plies: int = OPENING_PLIES
    size: int = 20_000
    _kept: OrderedDict[tuple[object, ...], Searched] = field(default_factory=OrderedDict, repr=False)

    def __post_init__(self) -> None:
        if self.plies < 0 or self.size < 1:
            raise ValueError(f"opening judgements need 0 or more plies and room for one: {self}")

    def __len__(self) -> int:
        return len(self._kept)

    def get(self, key: tuple[object, ...]) -> Searched | None:
        """The judgement kept under ``key``, None if none."""
        found = self._kept.get(key)
        if found is not None:
            self._kept.move_to_end(key)
        return found

    def keep(self, key: tuple[object, ...], searched: Searched) -> None:
        """Keep ``searched`` under ``key``, forgetting the least recently used beyond ``size``."""
        self._kept[key] = searched
        while len(self._kept) > self.size:
            self._kept.popitem(last=False)


def _judge_decision(
    engine: Engine,
    game: Game,
    ply: int,
    curve: WinCurve,
    limit: Limit,
    searched_after: AnalysisInfo | None,
    one_search: bool,
    verification: Sequence[Verification],
    forced: bool,
) -> Searched:
    """The searches of the decision at ``ply``: at ``limit``, then, unless the move was ``forced``, the
    verification's stages while the move still gives away their drop (see ``Verification``)."""
    progress = game.positions[ply].progress()
    first, played, played_score = _search_decision(engine, game, ply, limit, searched_after, one_search)
    info = first
    nodes, seconds = _spent(info, played)
    for stage in () if forced or limit.depth is None else verification:
        drop = _chances(curve, info.score, progress) - _chances(curve, played_score, progress)
        if drop < stage.drop or (info.solved and played.solved):
            break
        deeper = replace(limit, depth=limit.depth + stage.plies)
        with engine.deep_reductions(stage.deep_reductions):
            info, played, played_score = _search_decision(engine, game, ply, deeper, None, False)
        more_nodes, more_seconds = _spent(info, played)
        nodes, seconds = nodes + more_nodes, seconds + more_seconds
    return Searched(first, info, played_score, nodes, seconds)


def review_game(
    game: Game,
    engine: Engine,
    curve: WinCurve,
    limit: Limit,
    one_search: bool = False,
    verification: Sequence[Verification] = (),
    judged: Callable[[int], object] | None = None,
    openings: OpeningJudgements | None = None,
) -> GameAnalysis:
    """Every move of ``game`` judged: best move, both evaluations, loss, winning chances; ``judged`` hears
    1 as each move is (for a display).

    ``one_search``: value a played move that is not the best by the search of the position after it, where
    that compares (see the module docstring), instead of searching it on its own. ``verification``: search
    the decisions that may deserve a mark again, deeper, stage by stage: each stage the decisions that the
    last search still finds to give away its drop (see ``Verification``). ``openings``: judge the decisions
    of the game's first ``openings.plies`` plies each from a fresh table, taking those already judged from
    it and keeping the others there (``OpeningJudgements``; ``one_search`` does not apply to them)."""
    engine.new_game()
    decisions: list[Decision] = []
    moves, stages = game.moves, tuple(verification)
    searched_after: AnalysisInfo | None = None  # the search of the position after the move (ply + 1)
    for ply in reversed(range(len(moves))):
        position, move = game.positions[ply], moves[ply]
        side = int(position.turn)
        progress = position.progress()
        forced = len(position.legal_moves()) == 1
        fen = position.fen()
        shared = openings if openings is not None and ply < openings.plies else None
        key = (engine.settings, limit, stages, fen, move)
        searched = None if shared is None else shared.get(key)
        if searched is None:
            if shared is not None:
                engine.new_game()
            compared = searched_after if shared is None else None
            searched = _judge_decision(engine, game, ply, curve, limit, compared, one_search, stages, forced)
            if shared is not None:
                shared.keep(key, searched)
        searched_after = searched.first  # the next (earlier) ply compares with a search at the same limit
        info, played_score = searched.info, searched.played_score
        best_score = info.score
        before, after = _chances(curve, best_score, progress), _chances(curve, played_score, progress)
        decisions.append(
            Decision(
                ply=ply,
                side=side,
                kind=MOVE,
                position=fen,
                key=position.key,
                played=position.san(move),
                best=position.san(info.best),
                pv=position.variation_san(info.pv),
                score_best=pov(float(best_score), side),
                score_played=pov(float(played_score), side),
                loss=move_loss(best_score, played_score),
                drop=before - after,
                chance_before=pov(before, side),
                chance_after=pov(after, side),
                forced=forced,
                counted=not forced,
                depth=info.depth,
                seldepth=info.seldepth,
                nodes=searched.nodes,
                seconds=searched.seconds,
                detail=TogyzDetail(best_score.plies_to_result, played_score.plies_to_result),
            )
        )
        if judged is not None:
            judged(1)
    decisions.reverse()
    return GameAnalysis(tuple(decisions))
