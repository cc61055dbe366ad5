"""Cubeless money games between two backgammon players, with duplicate dice, to measure one evaluator
against another (``taldau match --game backgammon --a own:2 --b gnubg:0``).

Duplicate dice cut the luck out of the comparison: each dice sequence (from a numpy Generator seeded with
the match seed and the pair's number) is played twice, A sitting in seat 0 in the first game and in seat 1
in the second. The opening roll is the rules': seat 0 rolls the first die and seat 1 the second, ties roll
again, and the higher die moves first with both numbers; after it the seats take the sequence's rolls
turn by turn. So whatever dice A had in one game, B has in the other. Games are played to the end (the
doubling cube is not used) and score 1, 2 (gammon) or 3 (backgammon) points for the winner.

A's result is its points per game with a 95% margin: 1.96 standard errors of the per-pair means (each
pair's two games are one sample, since they share their dice).

A player may play from an opening book (``Player.book``): for a roll the book has a sound play of, it plays
that one (``book_play``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from taldau.games.kind import OpeningBook

from .engine import Limit, analyse, load_evaluator
from .eval import Evaluator
from .position import Dice, Play, Position

MAX_PLIES = 2000  # far above any real game (a few hundred rolls at most); a game beyond it is a bug
Z95 = 1.96
REFUTED = 0.06  # EMG: a book play this much worse than the engine's best (gnubg's "bad") is not played


def book_play(
    book: OpeningBook,
    evaluator: Evaluator,
    position: Position,
    dice: Dice,
    limit: Limit,
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
class Player:
    """A side of a match: an evaluator and the limit it plays at; ``label`` names it in reports."""

    evaluator: Evaluator
    limit: Limit
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


def parse_player(spec: str, evaluators: dict[str, Evaluator] | None = None) -> Player:
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
    return Player(evaluators[name], Limit(plies=plies), f"{name}:{plies}")


def dice_sequence(seed: int, pair: int) -> Iterator[Dice]:
    """The rolls of one duplicate pair, endless: the same for both of its games."""
    generator = np.random.default_rng([seed, pair])
    while True:
        yield from ((first, second) for first, second in generator.integers(1, 7, size=(64, 2)).tolist())


@dataclass(frozen=True)
class GameResult:
    """One game of a match: its pair, the seat A sat in (0 or 1), whether A won, the points (1, 2, 3),
    the plies (rolls) played and the rolls themselves, opening roll first (as seat 0, seat 1 rolled it)."""

    pair: int
    a_seat: int
    a_won: bool
    value: int
    plies: int
    rolls: tuple[Dice, ...]

    @property
    def a_points(self) -> int:
        """A's points: + the value when A won, - when B did."""
        return self.value if self.a_won else -self.value


@dataclass(frozen=True)
class MatchResult:
    """A's results over the games of a match, in pairs of duplicate games."""

    a: str
    b: str
    games: tuple[GameResult, ...]

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

    def pair_means(self) -> list[float]:
        """A's mean points per game in each duplicate pair (a pair cut short counts its games)."""
        pairs: dict[int, list[int]] = {}
        for game in self.games:
            pairs.setdefault(game.pair, []).append(game.a_points)
        return [sum(points) / len(points) for points in pairs.values()]

    @property
    def margin(self) -> float | None:
        """95% margin of ``points_per_game``: 1.96 standard errors of the pair means; None below 2 pairs."""
        means = self.pair_means()
        if len(means) < 2:
            return None
        return Z95 * float(np.std(means, ddof=1)) / math.sqrt(len(means))

    def wins(self, a_side: bool, value: int) -> int:
        """Games A (``a_side``) or B won with ``value`` points (1 single, 2 gammon, 3 backgammon)."""
        return sum(1 for game in self.games if game.a_won == a_side and game.value == value)

    def to_json(self) -> dict[str, Any]:
        margin = self.margin
        return {
            "a": self.a,
            "b": self.b,
            "games": self.played,
            "points": self.points,
            "points_per_game": round(self.points_per_game, 6),
            "margin": None if margin is None else round(margin, 6),
            "a_wins": sum(1 for game in self.games if game.a_won),
            "a_gammons": self.wins(True, 2),
            "a_backgammons": self.wins(True, 3),
            "b_wins": sum(1 for game in self.games if not game.a_won),
            "b_gammons": self.wins(False, 2),
            "b_backgammons": self.wins(False, 3),
        }

    def __str__(self) -> str:
        margin = self.margin
        spread = "" if margin is None else f" ± {margin:.3f}"
        return (
            f"{self.a} vs {self.b}: {self.points_per_game:+.3f}{spread} points per game for A over "
            f"{self.played} games (A: {self.wins(True, 2)} gammons, {self.wins(True, 3)} backgammons; "
            f"B: {self.wins(False, 2)} gammons, {self.wins(False, 3)} backgammons)"
        )


def play_game(a: Player, b: Player, a_seat: int, rolls: Iterator[Dice], pair: int = 0) -> GameResult:
    """One cubeless game to the end with A in seat ``a_seat``, taking the dice from ``rolls``; raises
    RuntimeError if it lasts beyond ``MAX_PLIES`` rolls."""
    seats = (a, b) if a_seat == 0 else (b, a)
    used: list[Dice] = []
    for opening in rolls:  # seat 0 rolls the first die, seat 1 the second; a tie rolls again
        used.append(opening)
        if opening[0] != opening[1]:
            break
    position = Position.start(turn=0 if opening[0] > opening[1] else 1)
    dice = opening
    for ply in range(1, MAX_PLIES + 1):
        position = seats[position.turn].choose(position, dice)
        outcome = position.outcome()
        if outcome is not None:
            return GameResult(
                pair=pair,
                a_seat=a_seat,
                a_won=outcome.winner == a_seat,
                value=outcome.value.value,
                plies=ply,
                rolls=tuple(used),
            )
        dice = next(rolls)
        used.append(dice)
    raise RuntimeError(f"game of pair {pair} did not end within {MAX_PLIES} plies: {a.label} vs {b.label}")


def run_match(
    a: Player,
    b: Player,
    games: int,
    seed: int = 0,
    progress: Callable[[GameResult], None] | None = None,
) -> MatchResult:
    """``games`` cubeless games (an even number: pairs of duplicate games) of A against B from ``seed``;
    ``progress`` is called after each game."""
    if games < 2 or games % 2:
        raise ValueError(f"games are played in duplicate pairs: give an even number, not {games}")
    results = []
    for pair in range(games // 2):
        for a_seat in (0, 1):
            result = play_game(a, b, a_seat, dice_sequence(seed, pair), pair)
            results.append(result)
            if progress is not None:
                progress(result)
    return MatchResult(a.label, b.label, tuple(results))
