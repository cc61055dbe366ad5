"""Togyz Kumalak behind taldau's common face (``taldau.base.kind``): its records, and its analyser (the
alpha-beta engine with the winning-chance curve fitted on real games).

A task is one game, carried as JSON data (``task``: its headers and moves) and replayed from it. A move's
``drop`` is the winning chances it gives away (chances in [-1, 1] through the win curve), marked ``?!`` /
``?`` / ``??`` from 0.1 / 0.2 / 0.3.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import ClassVar

import numpy as np
from taldau.base.identity import former_game_id, game_id
from taldau.base.kind import (
    Annotation,
    GameAnalysis,
    GameFacts,
    Limit,
    MarkScale,
    Opening,
    OpeningPly,
    header_date,
    header_rating,
)
from taldau.base.records import RecordFile
from taldau.base.winchance import WinCurve

from .chances import load_win_curve
from .decision import TogyzDetail
from .engine import Engine, EngineSettings, engine_version
from .position import Position
from .records import ENCODINGS
from .replay import Game, read_games, replay_file
from .review import (
    OPENING_PLIES,
    REVIEW_DEPTH,
    VERIFICATION,
    OpeningJudgements,
    Verification,
    review_game,
    review_limit,
)
from .svg import render_svg
from .task import decode_task, encode_game
from .writers import write_scoresheet

SCALE = MarkScale("winning chances, -1 to 1, through the win curve", (0.1, 0.2, 0.3))
# Per ply at the default limit: 0.2 s was measured for the full-width depth 12 (BENCHMARKS.md), and is
# kept for the default review (depth 12 with reductions, pruning and verification: about 0.2x that time) as
# room for slower machines; about 2.5 times more per extra ply of depth.
SECONDS_PER_PLY = 0.2
DEPTH_FACTOR = 2.5
NODES_PER_SECOND = 3e6
MARGIN = 5  # a task may take five times its measured cost
BOOK_PLIES = 30  # an opening book's default depth, in moves (15 of each side)
POINTS = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}  # what each side scores


@dataclass(frozen=True)
class TogyzAnalyser:
    """The Togyz engine as the batch analysis uses it (see ``taldau.base.kind.Analyser``).

    ``one_search``: the played move valued by the next position's search where that compares (see
    ``review_game``); not the default, kept to measure it (``taldau bench marks --one-search``).
    ``settings``: how the engine searches (the default engine's unless a benchmark tries others).
    ``verification``: the stages in which decisions are searched again deeper (see ``review_game``; the
    default review's unless a benchmark tries others, none for a node or time limit). ``opening_plies``:
    the plies of each game judged from a fresh table and shared by the games this analyser reviews
    (``review.OpeningJudgements``, kept in ``openings``, each analyser its own: one per process); 0 for
    none."""

    curve: WinCurve
    one_search: bool = False
    settings: EngineSettings = field(default_factory=EngineSettings)
    verification: tuple[Verification, ...] = VERIFICATION
    opening_plies: int = OPENING_PLIES
    openings: OpeningJudgements = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "openings", OpeningJudgements(self.opening_plies))

    @property
    def scale(self) -> MarkScale:
        return SCALE

    def search(self, limit: Limit) -> Limit:
        """The limit itself, or the review's (``review.review_limit``) where it gives no stop."""
        if limit.level is not None:
            raise ValueError("levels of review are backgammon's: Togyz takes a depth, nodes or a movetime")
        if limit.depth == 0:
            raise ValueError("a Togyz review searches 1 ply or more, not depth 0")
        return limit if limit.stops else review_limit()

    def version(self) -> str:
        """The engine's version with its settings; a review that values played moves by the next
        position's search, verifies decisions deeper, or judges the openings from a fresh table, says
        so."""
        version = engine_version(self.settings) + (" one-search" if self.one_search else "")
        stages = ",".join(str(stage) for stage in self.verification)
        openings = f" fresh-openings {self.opening_plies}" if self.opening_plies else ""
        return version + (f" verify {stages}" if stages else "") + openings

    def engine_name(self) -> str:
        return "own"

    def fallback(self) -> str | None:
        return None

    def time_budget(self, limit: Limit, decisions: int) -> float:
        """Five times the measured cost: 0.2 s per ply at the default depth, about 2.5 times more per extra
        ply of depth; a node or time limit costs two searches of that many nodes (at 3 million nodes/s) or
        seconds per ply."""
        limit = self.search(limit)
        if limit.nodes is not None:
            per_ply = 2 * limit.nodes / NODES_PER_SECOND
        elif limit.movetime is not None:
            per_ply = 2 * limit.movetime
        else:
            per_ply = SECONDS_PER_PLY * DEPTH_FACTOR ** ((limit.depth or REVIEW_DEPTH) - REVIEW_DEPTH)
        return MARGIN * per_ply * decisions

    def warm(self) -> None:
        """A shallow search of the start position: the search's kernels."""
        Engine(self.settings).analyse(Position.start(), Limit(depth=2))

    def review(
        self,
        games: Sequence[Game],
        limit: Limit,
        progress: Callable[[int], object] | None = None,
    ) -> list[GameAnalysis]:
        engine, limit = Engine(self.settings), self.search(limit)
        return [
            review_game(
                game, engine, self.curve, limit, self.one_search, self.verification, progress, self.openings
            )
            for game in games
        ]

    def annotate(self, games: Sequence[Game], notes: Sequence[Annotation], form: str) -> str:
        return "".join(
            write_scoresheet(game, form, marks=note.marks, headers=note.headers)
            for game, note in zip(games, notes, strict=True)
        )


class TogyzKind:
    """Togyz Kumalak records (PlayOK, scoresheets, compact strings, opening books) and its analyser. It
    recognises any file: it is the last kind asked."""

    name: ClassVar[str] = "togyz"
    book_plies: ClassVar[int] = BOOK_PLIES
    plies_words: ClassVar[tuple[str, str]] = ("move", "moves")
    encodings: ClassVar[tuple[str, ...]] = ENCODINGS
    engines: ClassVar[tuple[str, ...]] = ()  # one engine, its own search
    """The code pages its players' archives use where they are not UTF-8 (see ``RecordFile.encodings``)."""
    detail: ClassVar[type[TogyzDetail]] = TogyzDetail  # the plies to a forced result

    @cached_property
    def analyser(self) -> TogyzAnalyser:
        """The engine with the shipped win curve, read once per kind."""
        return TogyzAnalyser(load_win_curve())

    @property
    def stored(self) -> None:
        """Togyz records hold no engine's judgements to take as an analysis."""
        return None

    def analyser_with(self, engine: str) -> TogyzAnalyser:
        """Togyz Kumalak has one engine: ValueError for any choice."""
        raise ValueError(f"Togyz Kumalak has one engine, taldau's own search: no engine {engine!r} to choose")

    def recognises(self, file: RecordFile) -> bool:
        return True

    def read_file(self, file: RecordFile) -> Iterator[Game]:
        return replay_file(file.preferring(self.encodings))

    def read_games(self, data: bytes, source: str) -> Iterator[Game]:
        return read_games(data, source)

    def facts(self, game: Game) -> GameFacts:
        record = game.record
        players = tuple(record.headers[name] for name in ("White", "Black") if name in record.headers)
        return GameFacts(
            source=record.source,
            index=record.index,
            format=record.format,
            plies=game.plies,
            result=game.result,
            termination=game.termination.value,
            errors=tuple(game.errors),
            headers=dict(record.headers),
            players=players,
            details={"players": list(players), "kazans": list(game.kazans)},
            warnings=tuple(game.warnings),
        )

    def identity(self, game: Game) -> str:
        """The players (``White``, ``Black``), the start position's FEN and the moves (origin pits), and the
        date as ``opening`` reads it."""
        headers = game.record.headers
        players = (headers.get("White", ""), headers.get("Black", ""))
        date = self.opening(game, 0).date
        return game_id(self.name, players, game.positions[0].fen(), game.moves, date)

    def former_identity(self, game: Game) -> str:
        """A hash of the headers, the start position's FEN and the moves (origin pits)."""
        return former_game_id(self.name, game.record.headers, game.positions[0].fen(), game.moves)

    def same_task(self, first: Game, second: Game) -> bool:
        return False

    def encode(self, games: Sequence[Game]) -> dict[str, object]:
        """The task's one game: its headers and moves (``task.encode_game``)."""
        (game,) = games
        return encode_game(game)

    def decode(self, data: object, source: str) -> list[Game]:
        """The task's game replayed from its moves (``task.decode_task``)."""
        return decode_task(data, source)

    def opening(self, game: Game, plies: int) -> Opening:
        """The first ``plies`` moves keyed by the positions' own keys (pits, kazans, tuzdyks and the side
        to move: two move orders to one position meet); the result as the rules ended the game, else as
        recorded; the ratings of ``WhiteElo`` / ``BlackElo`` and the date of ``Date``."""
        headers = game.record.headers
        moves = tuple(
            OpeningPly(
                key=before.key,
                position=before.fen(),
                mover=int(before.turn),
                dice="",
                move=sowing.notation,
                after=sowing.position.key,
            )
            for before, sowing in zip(game.positions[:plies], game.sowings[:plies], strict=False)
        )
        return Opening(
            plies=moves,
            points=POINTS.get(game.result or ""),
            big_win=False,
            ratings=(header_rating(headers.get("WhiteElo")), header_rating(headers.get("BlackElo"))),
            date=header_date(headers.get("Date")),
        )

    def book_key(self, position: str) -> int:
        """The key of a Togyz FEN (a bad FEN raises FenError, a ValueError)."""
        return Position.from_fen(position).key

    def book_keys(self, keys: np.ndarray, sides: np.ndarray) -> np.ndarray:
        """A Togyz position's book key is its own key."""
        return keys

    def svg(
        self, position: str, played: str | None = None, best: str | None = None, match_id: str | None = None
    ) -> str:
        """The FEN's board (a Togyz position has no match: ``match_id`` stays None) with the moves as
        arrows."""
        return render_svg(Position.from_fen(position), played, best)
