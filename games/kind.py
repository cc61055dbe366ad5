"""The face every game shows the rest of taldau: a ``GameKind`` (recognise, read, describe and identify its
games, write a task back as text) and, once the game has an engine, an ``Analyser`` (judge every decision
of a task). ``analysis``, ``workers`` and the CLI's game-generic commands see the games only through these
Protocols, so that none of them branches on the game. Each game implements them in its own ``kind.py``.

The shape of an analysis, the same for both games:

- A *task* is what one worker analyses at once, written as record text small enough for a task queue: one
  Togyz Kumalak game (written back as PlayOK text), or one backgammon match (its games in order, written
  back as Jellyfish match text, so that the match score and the cube carry from game to game).
  ``GameKind.same_task`` says which consecutive games of a file make one task, ``task_text`` writes them.
- ``Analyser.review`` reads a task's text with the game's own readers and returns one ``GameAnalysis`` per
  valid game of it, in order: a ``Decision`` per decision (a Togyz move; a backgammon checker play, cube
  decision or take decision), each with what it loses in the analyser's own scale (``MarkScale``: for
  Togyz the drop of winning chances through the win curve, for backgammon equity in EMG, the normalised
  match-winning chances of GNU Backgammon) and the scale's thresholds for each mark.
- ``analysis`` does the rest once for every game: marks from the thresholds, per-player statistics, the
  rows of the Parquet tables, planning and skipping; the Celery time limits come from
  ``Analyser.time_budget``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import ClassVar, Protocol, TypeVar, runtime_checkable

from taldau.games.records import RecordError, RecordFile

Game = TypeVar("Game")


@dataclass(frozen=True)
class GameFacts:
    """What a check of an archive reports about one replayed game, in the same shape for every game.
    ``headers`` are the record's tag pairs (a backgammon game has its match's); ``details`` holds the
    game's own fields (Togyz kazans; backgammon winner, points and cube), as JSON values."""

    source: str
    index: int
    format: str
    plies: int
    result: str | None
    termination: str
    errors: tuple[RecordError, ...]
    headers: dict[str, str] = field(default_factory=dict)
    players: tuple[str, ...] = ()
    details: dict[str, object] = field(default_factory=dict)

    @property
    def valid(self) -> bool:
        return not self.errors


@dataclass(frozen=True)
class AnalysisOptions:
    """What the user may say about how deep to analyse: plies (``depth``), ``nodes`` or seconds per
    decision (``movetime``); all None means the analyser's default."""

    depth: int | None = None
    nodes: int | None = None
    movetime: float | None = None


class DecisionKind(StrEnum):
    """What a decision decides: a move (a Togyz sowing, a backgammon checker play), whether to double
    (``cube``) or whether to take a double (``take``)."""

    MOVE = "move"
    CUBE = "cube"
    TAKE = "take"


@dataclass(frozen=True)
class MarkScale:
    """What a decision's ``drop`` is measured in (``name``) and where each mark starts: ``thresholds`` for
    doubtful ``?!``, bad ``?`` and very bad ``??``."""

    name: str
    thresholds: tuple[float, float, float]


@dataclass(frozen=True)
class Decision:
    """One decision of a game as the engine judges it.

    ``side`` 0 is the first player (Togyz White). ``position`` is the position before the decision as text
    (Togyz FEN; backgammon Position ID and Match ID) and ``key`` its stable 64-bit key. ``played``,
    ``best`` and ``pv`` are in the record's notation. Scores and winning chances are from the first
    player's side, in the game's unit (kumalak for Togyz); ``loss`` is what the played action gives away
    against the best one, mover's side, in the game's unit; ``drop`` is the loss the marks are set by, in
    the analyser's ``MarkScale`` (mover's side; it may be a hair below 0 when the played move searched
    better than the best one did). Plies to a forced result are from the mover's side (positive: the mover
    wins), None without one. ``forced``: the only legal action, never marked.
    """

    ply: int
    side: int
    kind: DecisionKind
    dice: tuple[int, int] | None
    position: str
    key: int
    played: str
    best: str
    pv: str
    score_best: float
    score_played: float
    loss: float
    drop: float
    chance_before: float
    chance_after: float
    plies_to_result_best: int | None
    plies_to_result_played: int | None
    forced: bool
    depth: int
    seldepth: int
    nodes: int
    seconds: float


@dataclass(frozen=True)
class GameAnalysis:
    """The decisions of one game of a task, in the order they were taken."""

    decisions: tuple[Decision, ...]


@dataclass(frozen=True)
class Annotation:
    """What an analysis adds to a game written back: a mark per decision index (``?!``, ``?``, ``??``) and
    record headers (the annotator, the players' figures)."""

    marks: Mapping[int, str]
    headers: Mapping[str, str]


class EngineLimit(Protocol):
    """A game engine's own limit; the rest of taldau only names it (``str``), in settings and headers."""

    def __str__(self) -> str: ...


@runtime_checkable
class Analyser(Protocol):
    """A game's engine as the batch analysis uses it: its limit from the user's options, its version (part
    of the settings key), its mark scale, the time a task may take, and the review of one task."""

    @property
    def scale(self) -> MarkScale:
        """What decisions' ``drop`` is measured in, and the default thresholds of the marks."""
        ...

    def limit(self, options: AnalysisOptions) -> EngineLimit:
        """The engine's limit for the user's options (its default when they say nothing)."""
        ...

    def version(self) -> str:
        """The engine and everything its verdicts depend on (weights, curve), as one string."""
        ...

    def time_budget(self, options: AnalysisOptions, decisions: int) -> float:
        """Seconds that a task of ``decisions`` decisions may take at most with these options, with room
        for a slow machine (the Celery time limits are made of it)."""
        ...

    def review(self, text: str, source: str, options: AnalysisOptions) -> list[GameAnalysis]:
        """Every valid game of a task's record ``text``, in order, judged decision by decision."""
        ...

    def annotate(self, text: str, source: str, notes: Sequence[Annotation], form: str) -> str:
        """The valid games of a task's record ``text`` written back with ``notes`` (one per valid game, in
        order), in the game's record ``form`` (Togyz: scoresheet ``short`` or ``full``)."""
        ...


@runtime_checkable
class GameKind(Protocol[Game]):
    """A game as the rest of taldau sees it: its record files and games, and its analyser (None while the
    game has no engine for the batch). ``Game`` is the game's own replayed-game type, which only its
    kind looks into."""

    name: ClassVar[str]

    @property
    def analyser(self) -> Analyser | None: ...

    def recognises(self, file: RecordFile) -> bool:
        """Whether ``file`` holds this game's records, reading no further than it needs to tell."""
        ...

    def read_file(self, file: RecordFile) -> Iterator[Game]:
        """Every game of ``file`` read and replayed, one at a time, in order."""
        ...

    def read_games(self, data: bytes, source: str) -> Iterator[Game]:
        """Every game of a record file's bytes, read and replayed, in order."""
        ...

    def facts(self, game: Game) -> GameFacts:
        """What a check reports about a replayed game."""
        ...

    def identity(self, game: Game) -> str:
        """The content-derived id of a game: the same game gets the same id in any run, on any machine."""
        ...

    def same_task(self, first: Game, second: Game) -> bool:
        """Whether ``second``, read right after ``first``, belongs to the same task (the same match)."""
        ...

    def task_text(self, games: Sequence[Game]) -> str:
        """The games of one task written back as record text that reads back to the same games."""
        ...
