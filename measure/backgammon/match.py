"""Cubeless money games between two backgammon players, with duplicate dice, to measure one evaluator
against another (``taldau match --game backgammon --a own:2 --b gnubg:0``).

Duplicate dice cut the luck out of the comparison: each dice sequence (from a numpy Generator seeded with
the match seed and the pair's number) is played twice, A sitting in seat 0 in the first game and in seat 1
in the second. The opening roll is the rules': seat 0 rolls the first die and seat 1 the second, ties roll
again, and the higher die moves first with both numbers; after it the seats take the sequence's rolls
turn by turn. So whatever dice A had in one game, B has in the other. Games are played to the end (the
doubling cube is not used) and score 1, 2 (gammon) or 3 (backgammon) points for the winner.

A's result is its points per game with a 95% margin: Student's t times the standard error of the per-pair
means (each pair's two games are one sample, since they share their dice); none below ``MIN_MATCH_GAMES``
games, nor where every pair scored the same.

Duplicate dice cancel the luck of the dice only as long as the two games of a pair stay alike; once the
players' choices part them, the same rolls fall in other positions. With a *judge* (an evaluator, at 0-ply)
the match also reports A's **luck-adjusted** result, as gnubg reports one: each game's points minus the
luck of every roll in it (``luck``: A's rolls counted for A, B's against), each roll's luck measured by
the judge. The luck of the rolls of a position averages to exactly zero, so the adjusted result has the
same expectation as the plain one whatever the judge, and far less spread when the judge is good: the
same margin from several times fewer games.

Games run on ``jobs`` processes, pairs handed out in batches; the results are the same whatever ``jobs``.

A player may play from an opening book (``BackgammonPlayer.book``): for a roll the book has a sound play
of, it plays that one (``book_play``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
from taldau.base.kind import OpeningBook
from taldau.base.processes import worker_pool
from taldau.games.backgammon.engine import Evaluator
from taldau.games.backgammon.engine.analyse import Search, analyse, engine_search, load_evaluator
from taldau.games.backgammon.review.luck import RollValues, cubeless_roll_values, roll_luck
from taldau.games.backgammon.rules.position import Dice, Play, Position
from taldau.measure.agreement import MIN_MATCH_GAMES, t95

MAX_PLIES = 2000  # far above any real game (a few hundred rolls at most); a game beyond it is a bug
PAIRS_PER_TASK = 25  # duplicate pairs a worker process plays per task (each task carries the players)
REFUTED = 0.06  # EMG: a book play this much worse than the engine's best (gnubg's "bad") is not played
# The players and judge of a match nobody names: engines every install has (gnubg needs gnubg-nn), A the
# nets looking two plies ahead, B the same nets alone: what the plies are worth.
DEFAULT_A, DEFAULT_B, DEFAULT_JUDGE = "own:2", "own:0", "own"


def book_play(
    book: OpeningBook,
    evaluator: Evaluator,
    position: Position,
    dice: Dice,
    limit: Search,
    refuted: float = REFUTED,
) -> Play | None:
    """A play of ``book`` for ``dice`` in ``position`` that the engine does not refute: one that loses less
    than ``refuted`` cubeless equity (EMG) against the engine's best at ``limit``; None when the book has
    none. The book is keyed by the board as the player on roll sees it and by the roll high die first."""
    plays = {play.text: play for play in position.plays(dice)}

    def sound(text: str) -> bool:
        play = plays.get(text)
        if play is None:  # not a play of this roll: never play it
            return False
        analysis = analyse(evaluator, position, dice, limit, include=(play,))
        return float(analysis.equities[0] - analysis.equities[analysis.rank_of(play)]) < refuted

    high, low = sorted(dice, reverse=True)
    chosen = book.choose(position.key ^ position.turn, f"{high}{low}", sound)
    return None if chosen is None else plays[chosen]


@dataclass(frozen=True)
class BackgammonPlayer:
    """A side of a match: an evaluator and the limit it plays at; ``label`` names it in reports."""

    evaluator: Evaluator
    limit: Search
    label: str
    book: OpeningBook | None = None

    def choose(self, position: Position, dice: Dice) -> Position:
        """The position after this player's play of ``dice`` (its book's, else its best), from the next
        player's side."""
        if self.book is not None:
            play = book_play(self.book, self.evaluator, position, dice, self.limit)
            if play is not None:
                return play.result
        return analyse(self.evaluator, position, dice, self.limit).best.play.result


def parse_player(spec: str, evaluators: dict[str, Evaluator] | None = None) -> BackgammonPlayer:
    """A player from ``ENGINE[:PLIES]`` such as ``own:2``, ``gnubg:0`` or ``nets.npz:1`` (a weights file of
    our nets; plies default to 0). Evaluators
    already loaded can be passed in ``evaluators`` (by engine name) and new ones are added to it, so that
    two players of one engine share it. ValueError for a bad spec or an engine that cannot be loaded."""
    name, _, plies_text = spec.rpartition(":") if ":" in spec else (spec, "", "")
    try:
        plies = int(plies_text) if plies_text else 0
    except ValueError:
        raise ValueError(f"bad player {spec!r}: expected ENGINE[:PLIES] such as own:2 or gnubg:0") from None
    evaluators = {} if evaluators is None else evaluators
    if name not in evaluators:
        evaluators[name] = load_evaluator(name)
    return BackgammonPlayer(evaluators[name], engine_search(evaluators[name].name, plies), f"{name}:{plies}")


def dice_sequence(seed: int, pair: int) -> Iterator[Dice]:
    """The rolls of one duplicate pair, endless: the same for both of its games."""
    generator = np.random.default_rng([seed, pair])
    while True:
        yield from ((first, second) for first, second in generator.integers(1, 7, size=(64, 2)).tolist())


@dataclass(frozen=True)
class BackgammonGameResult:
    """One game of a match: its pair, the seat A sat in (0 or 1), whether A won, the points (1, 2, 3),
    the plies (rolls) played and the rolls themselves, opening roll first (as seat 0, seat 1 rolled it);
    with a judge, ``a_luck``: the luck of A's rolls minus the luck of B's (cubeless equity)."""

    pair: int
    a_seat: int
    a_won: bool
    value: int
    plies: int
    rolls: tuple[Dice, ...]
    a_luck: float | None = None

    @property
    def a_points(self) -> int:
        """A's points: + the value when A won, - when B did."""
        return self.value if self.a_won else -self.value

    @property
    def adjusted_points(self) -> float | None:
        """A's points less A's luck (None without a judge)."""
        return None if self.a_luck is None else self.a_points - self.a_luck


@dataclass(frozen=True)
class BackgammonMatchResult:
    """A's results over the games of a match, in pairs of duplicate games."""

    a: str
    b: str
    games: tuple[BackgammonGameResult, ...]
    judge: str | None = None

    @property
    def played(self) -> int:
        return len(self.games)

    @property
    def points(self) -> int:
        """A's points over all games."""
        return sum(game.a_points for game in self.games)

    @property
    def points_per_game(self) -> float:
        return self.points / self.played if self.games else 0.0

    def pair_means(self, adjusted: bool = False) -> list[float]:
        """A's mean points per game in each duplicate pair (a pair cut short counts its games); luck-adjusted
        points with ``adjusted`` (every game must have been judged)."""
        pairs: dict[int, list[float]] = {}
        for game in self.games:
            points = game.adjusted_points if adjusted else game.a_points
            if points is None:
                raise ValueError(f"game {game.pair}/{game.a_seat} was played without a judge: no luck")
            pairs.setdefault(game.pair, []).append(points)
        return [sum(points) / len(points) for points in pairs.values()]

    @property
    def margin(self) -> float | None:
        """95% margin of ``points_per_game`` over the pair means (``_margin``)."""
        return _margin(self.pair_means())

    @property
    def judged(self) -> bool:
        """Whether every game has its luck (the match was played with a judge)."""
        return bool(self.games) and all(game.a_luck is not None for game in self.games)

    @property
    def adjusted_points_per_game(self) -> float | None:
        """A's luck-adjusted points per game; None without a judge."""
        if not self.judged:
            return None
        return sum(game.adjusted_points or 0.0 for game in self.games) / self.played

    @property
    def adjusted_margin(self) -> float | None:
        """95% margin of ``adjusted_points_per_game`` (over the pairs, as ``margin``)."""
        return _margin(self.pair_means(adjusted=True)) if self.judged else None

    def wins(self, a_side: bool, value: int) -> int:
        """Games A (``a_side``) or B won with ``value`` points (1 single, 2 gammon, 3 backgammon)."""
        return sum(1 for game in self.games if game.a_won == a_side and game.value == value)

    def to_json(self) -> dict[str, Any]:
        margin, adjusted, adjusted_margin = self.margin, self.adjusted_points_per_game, self.adjusted_margin
        return {
            "a": self.a,
            "b": self.b,
            "games": self.played,
            "points": self.points,
            "points_per_game": round(self.points_per_game, 6),
            "margin": None if margin is None else round(margin, 6),
            "judge": self.judge,
            "adjusted_points_per_game": None if adjusted is None else round(adjusted, 6),
            "adjusted_margin": None if adjusted_margin is None else round(adjusted_margin, 6),
            "a_wins": sum(1 for game in self.games if game.a_won),
            "a_gammons": self.wins(True, 2),
            "a_backgammons": self.wins(True, 3),
            "b_wins": sum(1 for game in self.games if not game.a_won),
            "b_gammons": self.wins(False, 2),
            "b_backgammons": self.wins(False, 3),
        }

    def __str__(self) -> str:
        def spread(margin: float | None) -> str:
            return "" if margin is None else f" ± {margin:.3f}"

        def unmeasured(margin: float | None) -> str:  # why a figure has no margin
            if margin is not None:
                return ""
            if self.played < MIN_MATCH_GAMES:
                return f" (no margin below {MIN_MATCH_GAMES} games)"
            return " (no margin: every pair scored the same)"

        adjusted = self.adjusted_points_per_game
        luck = (
            ""
            if adjusted is None
            else f"; luck-adjusted by {self.judge}: {adjusted:+.3f}{spread(self.adjusted_margin)}"
            f"{unmeasured(self.adjusted_margin)}"
        )
        return (
            f"{self.a} vs {self.b}: {self.points_per_game:+.3f}{spread(self.margin)} points per game for A "
            f"over {self.played} games{unmeasured(self.margin)}{luck} (A: {self.wins(True, 2)} gammons, "
            f"{self.wins(True, 3)} backgammons; B: {self.wins(False, 2)} gammons, {self.wins(False, 3)} "
            "backgammons)"
        )


def _margin(means: list[float]) -> float | None:
    """The half-width of the 95% interval of the mean of ``means`` (one per duplicate pair): Student's t
    times their standard error; None below ``MIN_MATCH_GAMES`` games (half as many pairs), and where every
    pair scored the same (no spread to measure: a zero-width interval would claim certainty)."""
    deviation = float(np.std(means, ddof=1)) if len(means) > 1 else 0.0
    if 2 * len(means) < MIN_MATCH_GAMES or deviation == 0.0:
        return None
    return t95(len(means) - 1) * deviation / math.sqrt(len(means))


def play_game(
    a: BackgammonPlayer,
    b: BackgammonPlayer,
    a_seat: int,
    rolls: Iterator[Dice],
    pair: int = 0,
    judge: Evaluator | None = None,
) -> BackgammonGameResult:
    """One cubeless game to the end with A in seat ``a_seat``, taking the dice from ``rolls``, each roll's
    luck measured by ``judge`` at 0-ply when one is given; raises RuntimeError if it lasts beyond
    ``MAX_PLIES`` rolls."""
    seats = (a, b) if a_seat == 0 else (b, a)
    values: RollValues | None = None if judge is None else cubeless_roll_values(judge)
    used: list[Dice] = []
    for opening in rolls:  # seat 0 rolls the first die, seat 1 the second; a tie rolls again
        used.append(opening)
        if opening[0] != opening[1]:
            break
    position = Position.start(turn=0 if opening[0] > opening[1] else 1)
    dice = opening
    a_luck = 0.0
    for ply in range(1, MAX_PLIES + 1):
        if values is not None:
            luck = roll_luck(values, position, dice, opening=ply == 1)
            a_luck += luck if position.turn == a_seat else -luck
        position = seats[position.turn].choose(position, dice)
        outcome = position.outcome()
        if outcome is not None:
            return BackgammonGameResult(
                pair=pair,
                a_seat=a_seat,
                a_won=outcome.winner == a_seat,
                value=outcome.value.value,
                plies=ply,
                rolls=tuple(used),
                a_luck=None if values is None else a_luck,
            )
        dice = next(rolls)
        used.append(dice)
    raise RuntimeError(f"game of pair {pair} did not end within {MAX_PLIES} plies: {a.label} vs {b.label}")


def play_pairs(
    a: BackgammonPlayer, b: BackgammonPlayer, seed: int, judge: Evaluator | None, pairs: range
) -> list[BackgammonGameResult]:
    """Both games of each duplicate pair in ``pairs`` (A in seat 0, then in seat 1)."""
    return [
        play_game(a, b, a_seat, dice_sequence(seed, pair), pair, judge) for pair in pairs for a_seat in (0, 1)
    ]


def run_match(
    a: BackgammonPlayer,
    b: BackgammonPlayer,
    games: int,
    seed: int = 0,
    progress: Callable[[BackgammonGameResult], None] | None = None,
    judge: Evaluator | None = None,
    jobs: int = 1,
) -> BackgammonMatchResult:
    """``games`` cubeless games (an even number: pairs of duplicate games) of A against B from ``seed``,
    on ``jobs`` processes, each roll's luck measured by ``judge`` when given; ``progress`` is called after
    each game, in the order of the games."""
    if games < 2 or games % 2:
        raise ValueError(f"games are played in duplicate pairs: give an even number, not {games}")
    pairs = games // 2
    batches = [range(start, min(pairs, start + PAIRS_PER_TASK)) for start in range(0, pairs, PAIRS_PER_TASK)]
    play = partial(play_pairs, a, b, seed, judge)
    results: list[BackgammonGameResult] = []
    if jobs > 1 and len(batches) > 1:
        with worker_pool(min(jobs, len(batches))) as pool:
            for batch in pool.map(play, batches):
                results.extend(batch)
                for result in batch if progress is not None else ():
                    progress(result)
    else:
        for pair in range(pairs):
            for result in play(range(pair, pair + 1)):
                results.append(result)
                if progress is not None:
                    progress(result)
    judge_name = None if judge is None else f"{judge.name}:0"
    return BackgammonMatchResult(a.label, b.label, tuple(results), judge_name)
