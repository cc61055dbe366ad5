"""Engine matches: two engine settings play each opening with both colours; the score, with an error margin,
is how engine changes are judged (``taldau match``). Settings A may play from an opening book (``book``):
in a position of the book it plays a book move the engine does not refute (``review.book_move``)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from taldau.games.kind import OpeningBook
from taldau.games.processes import worker_pool

from .engine import Engine, EngineSettings, Limit
from .position import Position, Side
from .review import book_move

MAX_PLIES = 600  # no real game comes near this; a longer game is adjudicated on its kazans


def openings(count: int, plies: int = 3) -> list[tuple[int, ...]]:
    """``count`` distinct opening lines of ``plies`` moves, spread evenly over all of them (deterministic)."""
    lines: list[tuple[int, ...]] = [()]
    for _ in range(plies):
        lines = [(*line, pit) for line in lines for pit in _after(line).legal_moves()]
    if count >= len(lines):
        return lines
    step = len(lines) / count
    return [lines[int(index * step)] for index in range(count)]


def _after(line: Sequence[int]) -> Position:
    position = Position.start()
    for pit in line:
        position = position.play(pit)
    return position


@dataclass(frozen=True)
class GameResult:
    """One match game: the opening, which settings had White, and the score of settings A (1, 0.5, 0)."""

    opening: tuple[int, ...]
    a_is_white: bool
    score_a: float
    plies: int


def play_game(
    opening: Sequence[int],
    white: Engine,
    black: Engine,
    limit: Limit,
    books: tuple[OpeningBook | None, OpeningBook | None] = (None, None),
) -> tuple[float, int]:
    """Play from the opening to the end, each side from its book (``books``: White's, Black's; None for
    none) while the book has a sound move; returns White's score (1, 0.5, 0) and the plies played."""
    position = _after(opening)
    white.new_game()
    black.new_game()
    plies = len(opening)
    while not position.is_game_over() and plies < MAX_PLIES:
        engine = white if position.turn is Side.WHITE else black
        book = books[position.turn]
        pit = None if book is None else book_move(book, position, engine, limit)
        position = position.play(engine.analyse(position, limit).best if pit is None else pit)
        plies += 1
    outcome = position.outcome()
    if outcome is not None:
        winner = outcome.winner
    else:  # adjudicated on the kazans
        white_kazan, black_kazan = position.kazan(Side.WHITE), position.kazan(Side.BLACK)
        winner = (
            None if white_kazan == black_kazan else (Side.WHITE if white_kazan > black_kazan else Side.BLACK)
        )
    return (0.5 if winner is None else 1.0 if winner is Side.WHITE else 0.0), plies


def _play_pair(
    job: tuple[tuple[int, ...], EngineSettings, EngineSettings, Limit, OpeningBook | None],
) -> list[GameResult]:
    """Both colours of one opening (runs in a worker process with its own engines); A plays from its book."""
    opening, settings_a, settings_b, limit, book = job
    a, b = Engine(settings_a), Engine(settings_b)
    white_score, plies = play_game(opening, a, b, limit, (book, None))
    first = GameResult(opening, True, white_score, plies)
    white_score, plies = play_game(opening, b, a, limit, (None, book))
    return [first, GameResult(opening, False, 1.0 - white_score, plies)]


@dataclass(frozen=True)
class MatchResult:
    """Settings A's results against B: wins, draws, losses, score with a 95% margin, and the Elo gap."""

    wins: int
    draws: int
    losses: int

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        return (self.wins + 0.5 * self.draws) / self.games

    @property
    def margin(self) -> float:
        """Half-width of the 95% confidence interval of the score (normal approximation per game)."""
        mean = self.score
        variance = (
            self.wins * (1 - mean) ** 2 + self.draws * (0.5 - mean) ** 2 + self.losses * mean**2
        ) / self.games
        return 1.96 * math.sqrt(variance / self.games)

    @staticmethod
    def elo(score: float) -> float:
        score = min(max(score, 1e-6), 1 - 1e-6)
        return -400.0 * math.log10(1.0 / score - 1.0)

    def __str__(self) -> str:
        low, high = self.score - self.margin, self.score + self.margin
        return (
            f"{self.games} games: +{self.wins} ={self.draws} -{self.losses}, "
            f"score {100 * self.score:.1f}% +- {100 * self.margin:.1f}%, "
            f"Elo {self.elo(self.score):+.0f} [{self.elo(low):+.0f}, {self.elo(high):+.0f}]"
        )


def run_match(
    settings_a: EngineSettings,
    settings_b: EngineSettings,
    limit: Limit,
    lines: Iterable[tuple[int, ...]],
    jobs: int = 1,
    book: OpeningBook | None = None,
) -> tuple[MatchResult, list[GameResult]]:
    """Play every opening twice (colours swapped) and total settings A's score; A plays from ``book``."""
    work = [(tuple(line), settings_a, settings_b, limit, book) for line in lines]
    if jobs > 1 and len(work) > 1:
        with worker_pool(min(jobs, len(work))) as pool:
            pairs = list(pool.map(_play_pair, work))
    else:
        pairs = [_play_pair(job) for job in work]
    games = [game for pair in pairs for game in pair]
    wins = sum(1 for game in games if game.score_a == 1.0)
    draws = sum(1 for game in games if game.score_a == 0.5)
    return MatchResult(wins, draws, len(games) - wins - draws), games
