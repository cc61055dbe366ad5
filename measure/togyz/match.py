"""Engine matches: two players play each opening with both colours; the score, with its 95% interval, is how
engine changes are judged (``taldau match``). A player is anything that can start a game and choose a move
(``TogyzPlayer``); it is made in each worker process from a picklable recipe (``PlayerSpec``): our engine with
its settings and limit (``EngineSpec``), or another program such as the AlphaZero net of
``taldau.measure.togyz.alphazero``. Our engine may play from an opening book (``book``): in a position of the
book it plays a book move the engine does not refute (``review.book_move``).

Besides the score, each game keeps its moves, the time each side used, and how it ended: a kazan (store)
above 81, or atsyrau (the side to move has no stones on its row: the other side takes the stones left on
its own row, then the kazans decide)."""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import as_completed
from dataclasses import dataclass
from typing import Protocol

from taldau.base.kind import Limit, OpeningBook
from taldau.base.processes import worker_pool
from taldau.games.togyz.engine import Engine, EngineSettings
from taldau.games.togyz.position import Position, Side, Termination
from taldau.games.togyz.review import book_move
from taldau.measure.agreement import MIN_MATCH_GAMES, wilson_interval

MAX_PLIES = 600  # no real game comes near this; a longer game is adjudicated on its kazans
ADJUDICATED = "adjudicated"  # TogyzGameResult.termination of a game stopped at MAX_PLIES


class TogyzPlayer(Protocol):
    """One side of a match game: told when a game starts, asked for a move (a pit 1..9) in a position."""

    def new_game(self) -> None: ...

    def choose(self, position: Position) -> int: ...


class PlayerSpec(Protocol):
    """A picklable recipe of a player, made anew in each process that plays games."""

    def player(self) -> TogyzPlayer: ...


class EnginePlayer:
    """Our engine within a limit, from an opening book while the book has a sound move."""

    def __init__(self, engine: Engine, limit: Limit, book: OpeningBook | None = None) -> None:
        self.engine, self.limit, self.book = engine, limit, book

    def new_game(self) -> None:
        """Forget the engine's tables."""
        self.engine.new_game()

    def choose(self, position: Position) -> int:
        """The book's move if it has a sound one, else the engine's best within the limit."""
        pit = None if self.book is None else book_move(self.book, position, self.engine, self.limit)
        return self.engine.analyse(position, self.limit).best if pit is None else pit


@dataclass(frozen=True)
class EngineSpec:
    """Our engine with ``settings`` searching within ``limit``, playing from ``book`` when given."""

    settings: EngineSettings
    limit: Limit
    book: OpeningBook | None = None

    def player(self) -> EnginePlayer:
        return EnginePlayer(Engine(self.settings), self.limit, self.book)


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
class TogyzGameResult:
    """One match game, seen from player A.

    ``score_a``: 1, 0.5 or 0. ``moves``: the pits played from the start, the opening included.
    ``termination``: ``kazan``, ``atsyrau`` or ``adjudicated`` (stopped at ``MAX_PLIES``, decided by the
    kazans). ``kazans``: White's and Black's final counts, after the atsyrau collection; ``rows``: the
    stones left on White's and Black's rows in the last position (those the collection took).
    ``a_seconds``/``b_seconds``: thinking time of each player over its ``a_moves``/``b_moves`` moves.
    """

    opening: tuple[int, ...]
    a_is_white: bool
    score_a: float
    plies: int
    moves: tuple[int, ...]
    final_fen: str
    termination: str
    kazans: tuple[int, int]
    rows: tuple[int, int]
    a_seconds: float
    b_seconds: float
    a_moves: int
    b_moves: int

    @property
    def a_side(self) -> Side:
        return Side.WHITE if self.a_is_white else Side.BLACK

    def ending(self) -> str:
        """How the game ended, from A's side: who reached above 81, or who was starved at atsyrau with
        the kazans and rows before the collection and the final score."""
        a, b = self.a_side, self.a_side.opponent
        final = f"{self.kazans[a]}-{self.kazans[b]}"
        if self.termination == Termination.ATSYRAU.value:
            stuck = a if self.rows[a] == 0 else b
            before = [self.kazans[side] - (self.rows[side] if side is not stuck else 0) for side in (a, b)]
            taker = "B" if stuck is a else "A"
            return (
                f"atsyrau after {self.plies} plies: {'A' if stuck is a else 'B'} to move with no stones; "
                f"kazans {before[0]}-{before[1]}, rows A {self.rows[a]} B {self.rows[b]}; "
                f"{taker} takes its row: {final}"
            )
        if self.termination == Termination.KAZAN.value:
            winner = "A" if self.kazans[a] > self.kazans[b] else "B"
            return (
                f"kazan above 81 after {self.plies} plies ({winner}): {final}, "
                f"rows A {self.rows[a]} B {self.rows[b]}"
            )
        return f"adjudicated after {self.plies} plies on kazans {final}"

    def to_json(self) -> dict[str, object]:
        return {
            "opening": list(self.opening),
            "a_is_white": self.a_is_white,
            "score_a": self.score_a,
            "plies": self.plies,
            "termination": self.termination,
            "kazans": list(self.kazans),
            "rows": list(self.rows),
            "a_seconds": self.a_seconds,
            "b_seconds": self.b_seconds,
            "a_moves": self.a_moves,
            "b_moves": self.b_moves,
            "ending": self.ending(),
            "final_fen": self.final_fen,
            "moves": "".join(str(pit) for pit in self.moves),
        }


def play_game(opening: Sequence[int], a: TogyzPlayer, b: TogyzPlayer, a_is_white: bool) -> TogyzGameResult:
    """Play from the opening to the end (or ``MAX_PLIES``), A with White when ``a_is_white``."""
    position = _after(opening)
    a.new_game()
    b.new_game()
    moves = list(opening)
    seconds, counts = [0.0, 0.0], [0, 0]  # A's, B's
    while not position.is_game_over() and len(moves) < MAX_PLIES:
        index = 0 if (position.turn is Side.WHITE) == a_is_white else 1
        started = time.perf_counter()
        pit = (a, b)[index].choose(position)
        seconds[index] += time.perf_counter() - started
        counts[index] += 1
        moves.append(pit)
        position = position.play(pit)
    outcome = position.outcome()
    rows = (sum(position.pits(Side.WHITE)), sum(position.pits(Side.BLACK)))
    if outcome is not None:
        winner, termination, kazans = outcome.winner, outcome.termination.value, outcome.kazans
    else:  # adjudicated on the kazans
        kazans = (position.kazan(Side.WHITE), position.kazan(Side.BLACK))
        winner = None if kazans[0] == kazans[1] else (Side.WHITE if kazans[0] > kazans[1] else Side.BLACK)
        termination = ADJUDICATED
    a_side = Side.WHITE if a_is_white else Side.BLACK
    return TogyzGameResult(
        opening=tuple(opening),
        a_is_white=a_is_white,
        score_a=0.5 if winner is None else 1.0 if winner is a_side else 0.0,
        plies=len(moves),
        moves=tuple(moves),
        final_fen=position.fen(),
        termination=termination,
        kazans=kazans,
        rows=rows,
        a_seconds=seconds[0],
        b_seconds=seconds[1],
        a_moves=counts[0],
        b_moves=counts[1],
    )


def _play_pair(job: tuple[tuple[int, ...], PlayerSpec, PlayerSpec]) -> list[TogyzGameResult]:
    """Both colours of one opening (runs in a worker process with its own players). Each player first
    makes one throwaway move from the start, so that loading or compiling its kernels in a fresh process
    is not counted as its thinking time."""
    opening, spec_a, spec_b = job
    a, b = spec_a.player(), spec_b.player()
    for player in (a, b):
        player.new_game()
        player.choose(Position.start())
    return [play_game(opening, a, b, True), play_game(opening, a, b, False)]


@dataclass(frozen=True)
class TogyzMatchResult:
    """Settings A's results against B: wins, draws, losses, the score with its 95% interval, and the Elo
    gap."""

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
    def interval(self) -> tuple[float, float] | None:
        """The 95% interval of the score: Wilson's, a draw half a win, so that it stays honest at 0% and
        100% (an interval of a normal approximation would be empty there); None below ``MIN_MATCH_GAMES``
        games."""
        if self.games < MIN_MATCH_GAMES:
            return None
        return wilson_interval(self.wins + 0.5 * self.draws, self.games)

    @staticmethod
    def elo(score: float) -> str:
        """The Elo gap of ``score`` as text (``+inf`` at 100%, ``-inf`` at 0%)."""
        if score <= 0.0 or score >= 1.0:
            return "+inf" if score >= 1.0 else "-inf"
        return f"{400.0 * math.log10(score / (1.0 - score)):+.0f}"

    def __str__(self) -> str:
        score = f"score {100 * self.score:.1f}%"
        interval = self.interval
        if interval is None:
            shown = f"{score} (no interval below {MIN_MATCH_GAMES} games), Elo {self.elo(self.score)}"
        else:
            low, high = interval
            shown = (
                f"{score} [{100 * low:.1f}%, {100 * high:.1f}%], "
                f"Elo {self.elo(self.score)} [{self.elo(low)}, {self.elo(high)}]"
            )
        return f"{self.games} games: +{self.wins} ={self.draws} -{self.losses}, {shown}"

    def to_json(self) -> dict[str, object]:
        interval = self.interval
        counts = {name: getattr(self, name) for name in ("games", "wins", "draws", "losses", "score")}
        return counts | {"interval": None if interval is None else list(interval)}


@dataclass(frozen=True)
class MatchReport:
    """A match seen from player A: the score, every game, the time a move of each player, A's losses."""

    result: TogyzMatchResult
    games: list[TogyzGameResult]

    @property
    def a_seconds_per_move(self) -> float:
        return sum(game.a_seconds for game in self.games) / max(1, sum(game.a_moves for game in self.games))

    @property
    def b_seconds_per_move(self) -> float:
        return sum(game.b_seconds for game in self.games) / max(1, sum(game.b_moves for game in self.games))

    @property
    def losses(self) -> list[TogyzGameResult]:
        return [game for game in self.games if game.score_a == 0.0]

    def lines(self) -> list[str]:
        """The score, the time a move of each side, and one line per loss of A saying how it ended."""
        out = [
            str(self.result),
            f"time a move: A {self.a_seconds_per_move:.3g} s, B {self.b_seconds_per_move:.3g} s",
        ]
        for game in self.losses:
            colour = "White" if game.a_is_white else "Black"
            opening = "".join(str(pit) for pit in game.opening)
            out.append(f"  loss, opening {opening}, A {colour}: {game.ending()}")
        return out

    def to_json(self) -> dict[str, object]:
        return self.result.to_json() | {
            "a_seconds_per_move": self.a_seconds_per_move,
            "b_seconds_per_move": self.b_seconds_per_move,
            "games_played": [game.to_json() for game in self.games],
        }


def run_players(
    spec_a: PlayerSpec,
    spec_b: PlayerSpec,
    lines: Iterable[tuple[int, ...]],
    jobs: int = 1,
    progress: Callable[[int, int], None] | None = None,
) -> MatchReport:
    """Play every opening twice (colours swapped), ``jobs`` processes side by side; A's report.
    ``progress(done, total)`` is told the games finished, both colours of an opening at a time."""
    work = [(tuple(line), spec_a, spec_b) for line in lines]
    tell = progress or (lambda done, total: None)
    tell(0, 2 * len(work))
    if jobs > 1 and len(work) > 1:
        with worker_pool(min(jobs, len(work))) as pool:
            futures = [pool.submit(_play_pair, job) for job in work]
            for done, _ in enumerate(as_completed(futures), 1):
                tell(2 * done, 2 * len(work))
            pairs = [future.result() for future in futures]
    else:
        pairs = []
        for job in work:
            pairs.append(_play_pair(job))
            tell(2 * len(pairs), 2 * len(work))
    games = [game for pair in pairs for game in pair]
    wins = sum(1 for game in games if game.score_a == 1.0)
    draws = sum(1 for game in games if game.score_a == 0.5)
    return MatchReport(TogyzMatchResult(wins, draws, len(games) - wins - draws), games)


def run_match(
    settings_a: EngineSettings,
    settings_b: EngineSettings,
    limit: Limit,
    lines: Iterable[tuple[int, ...]],
    jobs: int = 1,
    book: OpeningBook | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[TogyzMatchResult, list[TogyzGameResult]]:
    """Our engine with settings A against settings B at the same limit, every opening twice (colours
    swapped); A plays from ``book``; ``progress`` as ``run_players`` tells it."""
    specs = EngineSpec(settings_a, limit, book), EngineSpec(settings_b, limit)
    report = run_players(*specs, lines, jobs, progress)
    return report.result, report.games
