"""The backgammon engine's one entry point, in the shape of python-chess's ``engine.analyse(board, limit)``:
``analyse(evaluator, position, dice, Search(plies=2))`` ranks every legal play of a roll, best first, with
its five cubeless probabilities, its cubeless equity, the plies it was evaluated at and its difference to
the best play.

gnubg's search: every play is evaluated at 0-ply in one batched call (the boards straight from the rules
core's buffers, no Python object per play); with ``plies`` > 0 the candidates that survive gnubg's move
filter (up to ``candidates`` plays within ``threshold`` equity of the best at 0-ply) are evaluated again at
``plies`` in a second batched call. The evaluator (``own``, ``gnubg``, ``sage``) does the look-ahead inside
its ``evaluate``. Plays the filter dropped keep their 0-ply numbers and rank below every play evaluated
deeper. ``include`` (or ``evaluate_play``) forces a play through the filter: match analysis judges the play
actually made at the same plies as the best one.

Points of view: a play leaves the opponent on roll, so each result board is turned around (its two rows
swapped) before the evaluator sees it, and its probabilities are turned back (``flipped``) to the side
that played. A play that bears off the last checker gets the exact result (1, 2 or 3 points) without
asking the evaluator. Everything is deterministic: ties keep the rules core's order of plays.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, NamedTuple, cast

import numpy as np

from ..rules import board as core
from ..rules.position import Dice, Play, PlayBuffers, Position, check_dice
from . import Evaluator
from .probabilities import PROBABILITIES, equities, final_probabilities, flipped

ENGINES = ("own", "gnubg", "sage")
DEFAULT_ENGINE = "sage"  # chosen by measurement: see engine_search and BENCHMARKS.md (issue 35)


@dataclass(frozen=True)
class Search:
    """How deep the backgammon engine looks (what its analyser makes of the user's ``base.kind.Limit``):
    ``plies`` (gnubg's: 0 the raw evaluation, 2 its default analysis) and the move
    filter before the deeper plies: keep up to ``candidates`` plays within ``threshold`` (cubeless equity)
    of the best play at 0-ply."""

    plies: int = 0
    candidates: int = 16
    threshold: float = 0.32

    def __post_init__(self) -> None:
        if self.plies < 0:
            raise ValueError(f"plies must be 0 or more, not {self.plies}")
        if self.candidates < 1:
            raise ValueError(f"candidates must be 1 or more, not {self.candidates}")
        if self.threshold < 0:
            raise ValueError(f"threshold must be 0 or more, not {self.threshold}")

    def __str__(self) -> str:
        return f"{self.plies}-ply"


def engine_search(engine: str, plies: int) -> Search:
    """The search an engine's analyses use at ``plies`` (gnubg's numbering): gnubg's default move filter,
    up to 16 plays within 0.32 at 0-ply, for ``own`` and ``gnubg``; up to 5 within 0.08 for ``sage``,
    whose 0-ply ranks the candidates well enough that the narrower filter agrees with a deeper reference
    as often as gnubg's at a third of the CPU (BENCHMARKS.md, "Backgammon engines against a deeper
    reference"). ``engine`` is the name of the evaluator that runs (``Evaluator.name``), so a stand-in
    for ``sage`` searches as its own engine does."""
    if engine == "sage":
        return Search(plies, candidates=5, threshold=0.08)
    return Search(plies)


@dataclass(frozen=True)
class PositionEvaluation:
    """A position evaluated before the roll: the five probabilities and the cubeless equity, from the
    side on roll, at ``plies``."""

    probabilities: tuple[float, ...]
    equity: float
    plies: int
    exact: bool = False  # the game is over: the numbers are its result, not an estimate

    def to_json(self) -> dict[str, Any]:
        return {
            "plies": self.plies,
            "equity": round(self.equity, 6),
            "probabilities": {
                name: round(p, 6) for name, p in zip(PROBABILITIES, self.probabilities, strict=True)
            },
            "exact": self.exact,
        }


@dataclass(frozen=True)
class RankedPlay:
    """One play of an analysis: its rank (0 the best), the play, the five probabilities and cubeless
    equity of the position it leaves, from the side that played, the plies it was evaluated at, and
    ``difference``, its equity minus the best play's (0 for the best, negative below)."""

    rank: int
    play: Play
    probabilities: tuple[float, ...]
    equity: float
    plies: int
    difference: float

    def to_json(self) -> dict[str, Any]:
        return {
            "move": self.play.text,
            "result": self.play.result.position_id(),
            "plies": self.plies,
            "equity": round(self.equity, 6),
            "difference": round(self.difference, 6),
            "probabilities": {
                name: round(p, 6) for name, p in zip(PROBABILITIES, self.probabilities, strict=True)
            },
        }


class _Generated(NamedTuple):
    """The generator's output for one roll, cut to its plays (what ``Position._plays`` reads)."""

    boards: np.ndarray
    moves: np.ndarray
    lengths: np.ndarray


@dataclass(frozen=True, eq=False)
class Analysis:
    """The plays of one roll ranked best first. The arrays are in rank order: ``indices`` (each play's
    place in the rules core's order), ``probabilities`` (n, 5), ``equities`` and ``plies``. ``Play``
    objects are made only when asked for (``best``, ``play(rank)``, ``plays``).

    ``evaluated`` counts the boards handed to the evaluator (0-ply and deeper calls together)."""

    position: Position
    dice: Dice
    limit: Search
    engine: str
    indices: np.ndarray
    probabilities: np.ndarray
    equities: np.ndarray
    plies: np.ndarray
    evaluated: int
    seconds: float
    _generated: _Generated

    def __len__(self) -> int:
        return len(self.indices)

    def play(self, rank: int) -> RankedPlay:
        """The play at ``rank`` (0 the best)."""
        index = int(self.indices[rank])
        (play,) = self.position._plays(cast(PlayBuffers, self._generated), [index])
        return RankedPlay(
            rank=rank,
            play=play,
            probabilities=tuple(float(p) for p in self.probabilities[rank]),
            equity=float(self.equities[rank]),
            plies=int(self.plies[rank]),
            difference=float(self.equities[rank] - self.equities[0]),
        )

    @cached_property
    def best(self) -> RankedPlay:
        return self.play(0)

    @cached_property
    def plays(self) -> tuple[RankedPlay, ...]:
        """Every play, best first."""
        return tuple(self.play(rank) for rank in range(len(self)))

    def rank_of(self, play: Play) -> int:
        """The rank of ``play`` (matched by the position it leaves); ValueError if not a play of this roll."""
        return int(np.flatnonzero(self.indices == _index_of(self._generated.boards, play, self.position))[0])

    def to_json(self) -> dict[str, Any]:
        return {
            "position": self.position.position_id(),
            "dice": f"{self.dice[0]}{self.dice[1]}",
            "engine": self.engine,
            "plies": self.limit.plies,
            "plays": [ranked.to_json() for ranked in self.plays],
        }


@dataclass(frozen=True)
class EngineChoice:
    """The evaluator loaded for an engine name, and ``fallback``: None when it is the engine asked for,
    else one line saying which engine stands in and why, for the caller to show the user."""

    evaluator: Evaluator
    fallback: str | None = None


def choose_evaluator(name: str) -> EngineChoice:
    """The evaluator users choose by name: ``own`` (taldau's shipped nets), a weights file of our nets
    (``.npz``, as ``taldau train`` writes), ``gnubg`` (gnubg's, needs the extra ``taldau[gnubg]``) or
    ``sage`` (bgsage's, on one C++ thread). Where bgsage cannot run (a CPU without AVX2, a platform
    without its wheel) ``own`` stands in for ``sage``, with the reason in ``fallback``. Raises ValueError
    for an unknown name or another evaluator that cannot be loaded."""
    if name == "sage":
        from .sage import SageEvaluator, SageUnavailable

        try:
            return EngineChoice(SageEvaluator())
        except SageUnavailable as error:
            return EngineChoice(choose_evaluator("own").evaluator, f"{error}: using the engine own instead")
    if name == "gnubg":
        from .gnubg import GnubgEvaluator

        try:
            return EngineChoice(GnubgEvaluator())
        except ImportError as error:
            raise ValueError(str(error)) from None
    if name == "own" or name.endswith(".npz"):
        from pathlib import Path

        from .own import OwnEvaluator

        try:
            return EngineChoice(OwnEvaluator.load() if name == "own" else OwnEvaluator.load(Path(name)))
        except (OSError, ValueError) as error:
            raise ValueError(f"taldau's own backgammon evaluator cannot be loaded: {error}") from None
    raise ValueError(
        f"unknown backgammon engine {name!r}: choose one of {', '.join(ENGINES)} or a weights file (.npz)"
    )


def load_evaluator(name: str) -> Evaluator:
    """The evaluator of ``choose_evaluator(name)``, the stand-in included: callers that tell the user
    which engine ran use ``choose_evaluator`` and show its ``fallback``."""
    return choose_evaluator(name).evaluator


def exact_probabilities(board: np.ndarray) -> np.ndarray | None:
    """The result of a finished game on ``board`` as probabilities from the side on roll (a (5,) array),
    whichever side has borne off everything; None while the game goes on."""
    out = np.zeros(5, dtype=np.float64)
    if final_probabilities(board, out):
        return out
    if final_probabilities(board[::-1], out):
        return flipped(out[np.newaxis])[0]
    return None


def evaluate_position(evaluator: Evaluator, position: Position, plies: int = 0) -> PositionEvaluation:
    """The probabilities and cubeless equity of ``position`` before the roll, from the side on roll, at
    ``plies``; the exact result when the game is over."""
    exact = exact_probabilities(position.board)
    probabilities = exact if exact is not None else evaluator.evaluate(position.board[np.newaxis], plies)[0]
    return PositionEvaluation(
        probabilities=tuple(float(p) for p in probabilities),
        equity=float(equities(probabilities[np.newaxis])[0]),
        plies=plies,
        exact=exact is not None,
    )


def after_plays(evaluator: Evaluator, results: np.ndarray, plies: int) -> np.ndarray:
    """Probabilities, from the side that played, of the boards ``results`` (n, 2, 25) left by plays (the
    mover still in row ``MOVER``): each is turned around for the evaluator and its answer turned back;
    a board where the mover has borne off everything gets the exact result without the evaluator."""
    turned = np.ascontiguousarray(results[:, ::-1])
    out = np.empty((len(results), 5), dtype=np.float64)
    finished = turned[:, core.OPPONENT].sum(axis=1) == 0
    for row in np.flatnonzero(finished):
        final_probabilities(turned[row], out[row])
    going = np.flatnonzero(~finished)
    if len(going):
        out[going] = evaluator.evaluate(turned[going], plies)
    return flipped(out)


def _index_of(boards: np.ndarray, play: Play, position: Position) -> int:
    """Where ``play`` is among the generated result ``boards`` (mover's side), by the position it leaves."""
    matches = np.flatnonzero((boards[:, ::-1] == play.result.board).all(axis=(1, 2)))
    if len(matches) == 0 or play.result.turn != 1 - position.turn:
        raise ValueError(f"{play.text or '(no move)'} is not a play of this roll in {position!r}")
    return int(matches[0])


def candidates(equity: np.ndarray, limit: Search) -> np.ndarray:
    """gnubg's move filter: the indices of up to ``limit.candidates`` plays within ``limit.threshold`` of
    the best 0-ply ``equity``, best first (ties in the given order)."""
    order = np.argsort(-equity, kind="stable")
    kept = order[: limit.candidates]
    return kept[equity[kept] >= equity[order[0]] - limit.threshold]


def analyse(
    evaluator: Evaluator,
    position: Position,
    dice: Sequence[int],
    limit: Search | None = None,
    include: Sequence[Play] = (),
) -> Analysis:
    """Every legal play of ``dice`` in ``position``, ranked best first (see the module's docstring).

    ``include``: plays (of this roll) evaluated at ``limit.plies`` even when the move filter drops them;
    ValueError if one is not a play of this roll. A roll that cannot be played has the one empty play.
    """
    limit = limit or Search()
    started = time.perf_counter()
    dice = check_dice(dice)
    buffers, count = position._generate(dice)
    generated = _Generated(
        buffers.boards[:count].copy(), buffers.moves[:count].copy(), buffers.lengths[:count].copy()
    )
    probabilities = after_plays(evaluator, generated.boards, 0)
    plies = np.zeros(count, dtype=np.int64)
    evaluated = count
    if limit.plies > 0:
        deep = candidates(equities(probabilities), limit).tolist()
        for play in include:
            index = _index_of(generated.boards, play, position)
            if index not in deep:
                deep.append(index)
        probabilities[deep] = after_plays(evaluator, generated.boards[deep], limit.plies)
        plies[deep] = limit.plies
        evaluated += len(deep)
    else:
        for play in include:
            _index_of(generated.boards, play, position)
    equity = equities(probabilities)
    # deeper plies first, then by equity, ties in the generator's order
    ranked = np.lexsort((np.arange(count), -equity, -plies))
    return Analysis(
        position=position,
        dice=dice,
        limit=limit,
        engine=evaluator.name,
        indices=ranked,
        probabilities=probabilities[ranked],
        equities=equity[ranked],
        plies=plies[ranked],
        evaluated=evaluated,
        seconds=time.perf_counter() - started,
        _generated=generated,
    )


def evaluate_play(
    evaluator: Evaluator, position: Position, dice: Sequence[int], play: Play, limit: Search | None = None
) -> RankedPlay:
    """``play`` judged at ``limit`` like the best play of its roll, even if the move filter would drop it:
    its rank, probabilities, equity and difference to the best."""
    analysis = analyse(evaluator, position, dice, limit, include=(play,))
    return analysis.play(analysis.rank_of(play))
