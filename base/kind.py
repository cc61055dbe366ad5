"""The face every game shows the rest of taldau: a ``GameKind`` (recognise, read, describe and identify its
games, carry a task's games to the analyser as JSON data) and, once the game has an engine, an ``Analyser``
(judge every decision of a task). ``analysis``, ``workers`` and the CLI's game-generic commands see the games
only through these Protocols, so that none of them branches on the game. Each game implements them in its own
``kind.py``.

The shape of an analysis, the same for both games:

- A *task* is what one worker analyses at once: one Togyz Kumalak game, or one backgammon match (its
  games in order, so that the match score and the cube carry from game to game, with the judgements the
  file holds). ``GameKind.same_task`` says which consecutive games of a file make one task. A task
  carries its games as they were read and replayed, once, when the archive was planned: ``encode`` turns
  them into plain JSON data (a task crosses Redis as JSON), ``decode`` rebuilds the same games from it by
  the game's rules, reading no text.
- ``Analyser.review`` takes a task's valid games as ``decode`` rebuilt them and returns one
  ``GameAnalysis`` per game, in order: a ``Decision`` per decision (a Togyz move; a backgammon checker
  play, cube decision or take decision), each with what it loses in the analyser's own scale
  (``MarkScale``: for Togyz the drop of winning chances through the win curve, for backgammon equity in
  EMG, the normalised match-winning chances of GNU Backgammon) and the scale's thresholds for each mark.
- ``analysis`` does the rest once for every game: marks from the thresholds, per-player statistics, the
  rows of the Parquet tables, planning and skipping; the Celery time limits come from
  ``Analyser.time_budget``.

Opening books (``taldau.analysis.book``) ask a kind for each replayed game's opening and result
(``GameKind.opening``) and for the book keys of positions (``book_key``, ``book_keys``); an engine plays
from a book through ``OpeningBook``.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, ClassVar, Protocol, TypeVar, runtime_checkable

import numpy as np
from taldau.base.records import RecordError, RecordFile

Game = TypeVar("Game")

TaskData = Any
"""A task's games as ``GameKind.encode`` writes them: plain JSON data (dicts with string keys, lists,
strings, numbers, booleans, None), which ``json.dumps`` writes and ``json.loads`` reads back equal."""


@dataclass(frozen=True)
class MatchFacts:
    """Where a game stands in its match, for a game played in matches to a number of points (backgammon):
    the match ``length`` in points (0 for a session of single games), the ``score`` of both players before
    the game (index = side), the ``stake`` the game was played for when it ended (backgammon: the cube's
    value), and the side that won it (None while unfinished) with the ``points`` won (the stake times what
    the win was worth)."""

    length: int
    score: tuple[int, int]
    stake: int
    winner: int | None
    points: int | None


@dataclass(frozen=True)
class GameFacts:
    """What a check of an archive reports about one replayed game, in the same shape for every game.
    ``headers`` are the record's tag pairs (a backgammon game has its match's); ``details`` holds the
    game's own fields (Togyz kazans; backgammon winner, points and cube), as JSON values; ``match`` where
    the game stands in its match (None for a game that is not part of one: Togyz). ``warnings`` are what
    is odd in the record but leaves the game valid (a written result the replay does not take as it
    stands, say), positioned as errors are."""

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
    match: MatchFacts | None = None
    warnings: tuple[RecordError, ...] = ()

    @property
    def valid(self) -> bool:
        return not self.errors


@dataclass(frozen=True)
class Limit:
    """How deep to analyse, the one limit every command and both games are given: stop after ``depth``
    plies (0 or more), ``nodes`` nodes (1 or more) or ``movetime`` seconds per decision (above 0),
    whichever comes first; all None means the analyser's default. ``level`` is a named level of review
    (backgammon's ``quick``, ``standard``, ``deep``, ``world``), which ``depth`` may go with. Each game's
    analyser turns it into its engine's own search (``Analyser.search``) and refuses, with a ValueError,
    what its engine cannot do (backgammon counts plies, not nodes; Togyz has no levels). A value out of
    range is a ValueError."""

    depth: int | None = None
    nodes: int | None = None
    movetime: float | None = None
    level: str | None = None

    def __post_init__(self) -> None:
        if self.depth is not None and self.depth < 0:
            raise ValueError(f"depth {self.depth} is out of range: 0 or more")
        if self.nodes is not None and self.nodes < 1:
            raise ValueError(f"nodes {self.nodes} is out of range: 1 or more")
        if self.movetime is not None and not self.movetime > 0:
            raise ValueError(f"movetime {self.movetime} is out of range: above 0")

    @property
    def stops(self) -> bool:
        """Whether a depth, a node count or a time is given (a search with none would not stop)."""
        return self.depth is not None or self.nodes is not None or self.movetime is not None

    def __str__(self) -> str:
        """``depth 12``, ``nodes 300000, time 0.5``: the stops given, as settings and headers name them."""
        parts = [
            f"{name} {value}"
            for name, value in (("depth", self.depth), ("nodes", self.nodes), ("time", self.movetime))
            if value
        ]
        return ", ".join(parts + ([f"level {self.level}"] if self.level else []))


STORED = "stored"
"""The level of review that takes the judgements the record files hold as the analysis, searching nothing
(``GameKind.stored``)."""


MOVE = "move"
"""The kind of decision every game has (``Decision.kind``): a move on the board (a Togyz sowing, a
backgammon checker play). A game with other decisions declares their kinds itself (backgammon's cube and
take decisions, ``games.backgammon.rules.cube.DecisionKind``), as strings that equal their values."""


def move_numbers(turns: Iterable[tuple[int, str]]) -> list[int]:
    """The record's move number of each decision of a game, given as (side, kind) in order, numbered as
    a record's lines number them (Togyz ``1. 76(10) 23``; a Jellyfish match file's ``1) 31: 8/5 6/5
    64: 24/18 18/14``): the first player opens a line and the second closes it, or opens a line of his
    own when the first has not (a game the second player begins); so the first player's answer to the
    second's decision opens the next line. A decision that is not a move followed by its maker's move is
    one turn: deciding before moving, then moving (one cell of the record; backgammon: not doubling, then
    rolling)."""
    numbers: list[int] = []
    number, open_line, previous = 0, False, None
    for side, kind in turns:
        if previous is not None and previous[0] == side and previous[1] != MOVE and kind == MOVE:
            numbers.append(number)  # the move after deciding before it: the same cell
        elif side == 0 or not open_line:
            number += 1
            open_line = side == 0
            numbers.append(number)
        else:
            open_line = False
            numbers.append(number)
        previous = (side, kind)
    return numbers


def settled_label(judged: str | None, depth: int | None, loss_se: float | None) -> str | None:
    """How a decision in doubt was settled again, as gnubg's and XG's users read it (``3-ply``;
    ``rollout, 648 trials, ±0.031``: with the standard error of its loss), from its ``judged``, ``depth``
    (the review's plies) and ``loss_se``; None where the review's own plies judged it (or the record
    predates ``judged``)."""
    if judged is None or judged == f"{depth}-ply":
        return None
    return judged if loss_se is None else f"{judged}, ±{loss_se:.3f}"


def pov(value: float, side: int) -> float:
    """A value one side gains as the other loses (a score, an equity, winning chances) turned between the
    first player's point of view and ``side``'s (0 the first player, 1 the second): kept for the first,
    negated for the second, the same turn either way (python-chess's ``PovScore`` does it for chess)."""
    return value if side == 0 else -value


class Mark(StrEnum):
    """A decision's mark by what it loses, as annotators write it after the move: ``?!`` (gnubg's doubtful;
    an inaccuracy), ``?`` (bad; a mistake), ``??`` (very bad; a blunder). A forced decision has none."""

    DOUBTFUL = "?!"
    BAD = "?"
    VERY_BAD = "??"

    @property
    def label(self) -> str:
        """gnubg's name: doubtful, bad, very bad."""
        return self.name.lower().replace("_", " ")

    @property
    def word(self) -> str:
        """The name players of both games read in reports: inaccuracy, mistake, blunder."""
        return MARK_WORDS[self]

    @property
    def severity(self) -> int:
        """1, 2, 3 for ``?!``, ``?``, ``??`` (0 is no mark)."""
        return MARKS.index(self) + 1


MARKS = tuple(Mark)  # mildest first
MARK_WORDS = {Mark.DOUBTFUL: "inaccuracy", Mark.BAD: "mistake", Mark.VERY_BAD: "blunder"}


def mark_for(loss: float, thresholds: tuple[float, float, float]) -> Mark | None:
    """The one mark rule of both games and every report: a decision that loses at least a threshold
    (doubtful, bad, very bad: rising, in the scale's unit) gets that threshold's mark, the worst it
    reaches; below the first, none."""
    for mark, threshold in zip(reversed(MARKS), reversed(thresholds), strict=True):
        if loss >= threshold:
            return mark
    return None


@dataclass(frozen=True)
class MarkScale:
    """What a decision's ``drop`` is measured in (``name``) and where each mark starts: ``thresholds`` for
    doubtful ``?!``, bad ``?`` and very bad ``??``.

    Where the scale is one the players' error rates are known in (backgammon's EMG), it also carries the
    rating bands of an error rate (``ratings``: the error per counted decision below which each band
    starts, best first, the last one unbounded) and XG's performance rating factor (``pr_factor``: PR =
    factor x error per counted decision); a scale without them (Togyz winning chances) rates no one.
    """

    name: str
    thresholds: tuple[float, float, float]
    ratings: tuple[tuple[float, str], ...] = ()
    pr_factor: float | None = None

    def __post_init__(self) -> None:
        low, middle, high = self.thresholds
        if not 0 < low <= middle <= high:
            raise ValueError(f"mark thresholds must rise from above 0: {self.thresholds}")

    def mark(self, loss: float) -> Mark | None:
        """The mark of a decision that loses ``loss`` on this scale (``mark_for``)."""
        return mark_for(loss, self.thresholds)

    def rating(self, error_rate: float) -> str | None:
        """The band of a player who loses ``error_rate`` per counted decision (None: the scale has none)."""
        return next((band for below, band in self.ratings if error_rate < below), None)

    def performance(self, error_rate: float) -> float | None:
        """XG's performance rating (PR) of ``error_rate`` (None: the scale has none)."""
        return None if self.pr_factor is None else self.pr_factor * error_rate


COLUMN_TYPES = ("string", "bool", "int8", "int16", "int32", "int64", "uint64", "float64")
"""The types a decision's column may have, by the names Arrow gives them (``taldau.schemas`` turns each
into its Arrow type: the games declare their columns without importing pyarrow)."""


@dataclass(frozen=True)
class DetailColumn:
    """A column of the ``moves`` table that one game's decisions fill (the others leave it null): its
    ``name``, its ``type`` (one of ``COLUMN_TYPES``) and what it holds (``doc``, the Parquet field's
    description). Every such column is nullable."""

    name: str
    type: str
    doc: str

    def __post_init__(self) -> None:
        if self.type not in COLUMN_TYPES:
            raise ValueError(f"column {self.name}: type {self.type!r} is not one of {COLUMN_TYPES}")


@dataclass(frozen=True)
class ColumnGroup:
    """A game's columns of the ``moves`` table that follow the common column ``after`` (a field of
    ``Decision``, or ``mark``), in order: where a game's columns stand in the one table every game
    shares."""

    after: str
    columns: tuple[DetailColumn, ...]


class DecisionDetail(Protocol):
    """The part of a decision that only its game records (``Decision.detail``): each game declares its own
    frozen dataclass (``GameKind.detail``), its columns in the ``moves`` table, how it is written to them
    and read back, and what it adds to a player's figures.

    ``columns`` names the game's columns and where they go; ``values`` is this detail as those columns
    hold it (a value per column name); ``of_values`` reads a detail back from a row of the table (a
    mapping of column names, a missing column read as null); ``side_figures`` sums what the game adds to
    one side's figures (``taldau.schemas.SideFigures``' fields by name) over ``side``, that side's
    decisions of ``game`` (all the decisions the figures are made over): {} for a game that adds none."""

    columns: ClassVar[tuple[ColumnGroup, ...]]

    def values(self) -> dict[str, object]: ...

    @classmethod
    def of_values(cls, row: Mapping[str, object]) -> DecisionDetail: ...

    @classmethod
    def side_figures(cls, side: Sequence[Decision], game: Sequence[Decision]) -> dict[str, object]: ...


@dataclass(frozen=True)
class Decision:
    """One decision of a game as the engine judges it: the part every game has, and its game's own
    (``detail``).

    - ``ply``: the decision's index in its game, from 0. ``side`` 0 is the first player (Togyz White; in
      backgammon the match's first player, the left column of a Jellyfish record, gnubg's player 0).
    - ``kind``: ``MOVE`` for a move on the board (Togyz sowing, backgammon checker play), else one of the
      game's own kinds of decision (backgammon: ``cube``, whether to double before rolling, and ``take``,
      the answer to a double).
    - ``position``: the position before the decision as text (Togyz FEN; backgammon gnubg's Position ID),
      ``key`` its stable 64-bit key.
    - ``played``, ``best`` and ``pv``: the action taken, the engine's best one and its principal variation,
      in the record's notation (backgammon: the play as gnubg writes it, ``24/20 13/8``; for a cube
      decision ``no double`` / ``double``, for a take decision ``take`` / ``pass`` / ``beaver``).
    - ``score_best`` / ``score_played``: what the position is worth after the best / the played action,
      first player's side, in the game's unit (Togyz kumalak; backgammon cubeful equity in EMG).
    - ``loss``: what the action taken gives away against the best one, from the mover's side, in the
      game's unit, never below 0: the error summed into the players' figures. ``drop``: the loss the marks
      are set by, in the analyser's ``MarkScale`` (mover's side; it may be a hair below 0 when the played
      action searched better than the best one did).
    - ``chance_before`` / ``chance_after``: the winning chances after the best / the played action, first
      player's side, in [-1, 1].
    - ``forced``: the only legal action; ``counted``: counts in the players' error rates (never a forced
      one).
    - How it was judged: ``depth``, ``seldepth``, ``nodes`` and ``seconds`` of the search; ``judged``
      where a decision in doubt was settled again deeper than the review's own search (``3-ply``;
      ``rollout, 648 trials``) and ``loss_se`` the standard error of its loss where a sampled judgement
      (a rollout) settled it; None where the search judged it alone.
    - The reference, where the record file holds another program's judgement of the decision (eXtreme
      Gammon's analysis in a ``.xg`` file, GNU Backgammon's in an analysed SGF; any game's record may hold
      one): ``reference`` who judged and at what level (``XG Roller++``, ``gnubg 2-ply``),
      ``reference_best`` its best action in the notation of ``best`` and ``reference_loss`` what it says
      the action taken lost, in the unit of ``loss``; None where the file holds none.
    - ``detail``: what only the decision's game records, in its own frozen dataclass
      (``DecisionDetail``: Togyz the plies to a forced result; backgammon the dice, the match's state and
      the cube, cubeless equities, the luck of the roll, match winning chances); None for a game that
      records nothing more.
    """

    ply: int
    side: int
    kind: str
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
    forced: bool
    counted: bool
    depth: int
    seldepth: int
    nodes: int
    seconds: float
    judged: str | None = None
    loss_se: float | None = None
    reference: str | None = None
    reference_best: str | None = None
    reference_loss: float | None = None
    detail: DecisionDetail | None = None

    def __post_init__(self) -> None:
        if self.forced and self.counted:
            raise ValueError(f"decision {self.ply}: a forced decision is never counted")


@dataclass(frozen=True)
class GameAnalysis:
    """The decisions of one game of a task, in the order they were taken."""

    decisions: tuple[Decision, ...]


@dataclass(frozen=True)
class Annotation:
    """What an analysis adds to a game written back: a mark per decision index (``?!``, ``?``, ``??``),
    record headers (the annotator, the players' figures) and the decisions themselves, for formats that
    print the engine's verdicts (backgammon's analysis text)."""

    marks: Mapping[int, str]
    headers: Mapping[str, str]
    decisions: tuple[Decision, ...] = ()


class EngineSearch(Protocol):
    """A game engine's own search settings, made of a ``Limit`` by its analyser; the rest of taldau only
    names it (``str``), in settings and headers."""

    def __str__(self) -> str: ...


@runtime_checkable
class Analyser(Protocol):
    """A game's engine as the batch analysis uses it: its search for the user's limit, its version (part
    of the settings key), its mark scale, the time a task may take, and the review of one task."""

    @property
    def scale(self) -> MarkScale:
        """What decisions' ``drop`` is measured in, and the default thresholds of the marks."""
        ...

    def search(self, limit: Limit) -> EngineSearch:
        """The engine's search for the user's ``limit`` (its default when it says nothing); ValueError for
        what the engine cannot do."""
        ...

    def version(self) -> str:
        """The engine and everything its verdicts depend on (weights, curve), as one string."""
        ...

    def engine_name(self) -> str:
        """The name of the engine actually loaded, as users choose it (backgammon ``own``, ``gnubg``,
        ``sage``; Togyz ``own``): the one asked for, or the one that stands in for it."""
        ...

    def fallback(self) -> str | None:
        """None when the engine asked for is the one loaded, else one line for the user saying which engine
        stands in and why (backgammon's ``sage`` on a machine where bgsage cannot run)."""
        ...

    def time_budget(self, limit: Limit, decisions: int) -> float:
        """Seconds that a task of ``decisions`` decisions may take at most within ``limit``, with room
        for a slow machine (the Celery time limits are made of it)."""
        ...

    def warm(self) -> None:
        """Load the engine and its compiled kernels (numba compiles them on a machine's first use, which
        takes a minute or more), so that no task's time limit is spent on that."""
        ...

    def review(
        self,
        games: Sequence[Any],
        limit: Limit,
        progress: Callable[[int], object] | None = None,
    ) -> list[GameAnalysis]:
        """Every game of ``games``, the valid games of one task in order as its kind decoded them
        (``GameKind.decode``), judged decision by decision; ``progress`` hears how many more decisions are
        judged as the review goes (Togyz: each move; backgammon: each game of the match), for a display."""
        ...

    def annotate(self, games: Sequence[Any], notes: Sequence[Annotation], form: str) -> str:
        """``games`` (the valid games of one task, in order, as ``review`` takes them) written back with
        ``notes`` (one per game, in order), in the game's record ``form`` (Togyz: scoresheet ``short`` or
        ``full``)."""
        ...


@dataclass(frozen=True)
class OpeningPly:
    """One move of a game's opening as an opening book counts it.

    ``key`` is the book's 64-bit key of the position before the move (see ``GameKind.book_keys``: the
    position's own key for Togyz; for backgammon the board as the player on roll sees it, whoever that
    player is in the match), ``position`` its text (Togyz FEN, backgammon gnubg Position ID), ``mover``
    the side that moved (0 the first player: Togyz White, backgammon the match's first player), ``dice``
    the roll played (backgammon, high die first: ``31``, ``66``; "" for Togyz), ``move`` the move in
    record notation (Togyz ``76(24)``; backgammon ``8/5 6/5``, "" when the roll could not be played) and
    ``after`` the book key of the position it leads to."""

    key: int
    position: str
    mover: int
    dice: str
    move: str
    after: int


@dataclass(frozen=True)
class Opening:
    """What an opening book takes from one replayed game: its first moves (``plies``, up to the book's
    depth or to the first move the rules refuse), and how the game ended for each side.

    ``points``: what each side scored (index = side): Togyz 1 for a win, 1/2 for a draw, 0 for a loss;
    backgammon the points the winner took (cube, gammon and backgammon included, as the match or money
    session counted them) and 0 for the loser; None when the record gives no result. ``big_win``: the
    winner won more than a plain win (backgammon: a gammon or a backgammon, which an opening book counts
    in its ``gammon`` columns; never for Togyz). ``ratings``: each side's rating as the headers give it
    (None where they do not); ``date`` the game's date from the headers."""

    plies: tuple[OpeningPly, ...]
    points: tuple[float, float] | None
    big_win: bool
    ratings: tuple[float | None, float | None]
    date: datetime.date | None


_DATE = re.compile(r"\s*(\d{4})[.\-/](\d{1,2})[.\-/](\d{1,2})")
_RATING = re.compile(r"\s*(\d+(?:[.,]\d+)?)")


def header_date(text: str | None) -> datetime.date | None:
    """The date of a record header (``2024.12.26``, ``2024-12-26``, ``2024/12/26``); None for a missing,
    partial (``2024.??.??``) or impossible one."""
    found = _DATE.match(text or "")
    if found is None:
        return None
    try:
        return datetime.date(*(int(part) for part in found.groups()))
    except ValueError:
        return None


def header_rating(text: str | None) -> float | None:
    """The rating of a record header: its leading number (``1200``; gnubg's ``1534.12/310``, the games
    played after the slash; a decimal comma read as a point); None when it has none."""
    found = _RATING.match(text or "")
    return None if found is None else float(found.group(1).replace(",", "."))


class OpeningBook(Protocol):
    """An opening book as an engine plays from it (``taldau.analysis.book.BookPlayer``): given a position's
    book key and roll (backgammon; "" for Togyz), a move in record notation among those that scored well
    there and that ``sound`` accepts (the engine's check that it does not refute the move), or None."""

    def choose(self, key: int, dice: str, sound: Callable[[str], bool]) -> str | None: ...


@runtime_checkable
class GameKind(Protocol[Game]):
    """A game as the rest of taldau sees it: its record files and games, and its analyser (None while the
    game has no engine for the batch). ``Game`` is the game's own replayed-game type, which only its
    kind looks into."""

    name: ClassVar[str]
    book_plies: ClassVar[int]
    """How deep an opening book goes by default, in moves (backgammon: checker plays)."""
    plies_words: ClassVar[tuple[str, str]]
    """What ``GameFacts.plies`` counts, in the players' words: singular and plural (Togyz moves,
    backgammon rolls)."""

    engines: ClassVar[tuple[str, ...]]
    """The engines its analyser can use, by name, the default first; () when it has one engine only."""

    detail: ClassVar[type[DecisionDetail] | None]
    """The type of its decisions' own part (``Decision.detail``): its columns of the ``moves`` table, how
    a row is read back, what it adds to a player's figures; None for a game that records nothing more."""

    @property
    def analyser(self) -> Analyser | None: ...

    @property
    def stored(self) -> Analyser | None:
        """The analyser that takes the judgements the game's record files hold (another program's
        analysis kept in them) as the analysis, searching nothing (``--level stored``: STORED); None for a
        game whose records hold none."""
        ...

    def analyser_with(self, engine: str) -> Analyser:
        """The analyser of the engine called ``engine`` (one of ``engines``); ValueError for a game that has
        no choice of engine or an engine that cannot be loaded."""
        ...

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
        """The id of a valid game, made of its content (``taldau.base.identity.game_id``: its players, its
        moves, its date where the record gives one): the same game gets the same id in any run, on any
        machine, from any record of it."""
        ...

    def former_identity(self, game: Game) -> str:
        """The id folders and books written before ``identity`` named a valid game by
        (``taldau.base.identity.former_game_id``: every header hashed with the moves)."""
        ...

    def same_task(self, first: Game, second: Game) -> bool:
        """Whether ``second``, read right after ``first``, belongs to the same task (the same match)."""
        ...

    def encode(self, games: Sequence[Game]) -> TaskData:
        """The games of one task (as ``read_file`` replayed them, ``same_task`` together) as plain JSON
        data, for the task to carry to the analyser."""
        ...

    def decode(self, data: TaskData, source: str) -> list[Game]:
        """The games of a task's ``data`` (``encode``'s), every one in order, rebuilt by the rules as they
        were replayed when encoded, reading no text (a task queued as record text by an earlier taldau, a
        string, is read as text, from ``source``)."""
        ...

    def opening(self, game: Game, plies: int) -> Opening:
        """The first ``plies`` moves of a replayed game (fewer when its replay stopped sooner) and how it
        ended, as an opening book counts them."""
        ...

    def book_key(self, position: str) -> int:
        """The book key of a position written as text (Togyz FEN, backgammon Position ID); raises
        ValueError for text that is not a position."""
        ...

    def book_keys(self, keys: np.ndarray, sides: np.ndarray) -> np.ndarray:
        """The book keys of positions an analysis stored by their own ``keys`` (the ``moves`` table's
        ``key``), with ``sides`` the player deciding in each."""
        ...

    def svg(
        self, position: str, played: str | None = None, best: str | None = None, match_id: str | None = None
    ) -> str:
        """A board diagram: the ``position`` (as a ``moves`` row holds it, ``fen`` with its ``match_id``
        where the game has one, or as ``taldau show`` reads it) as a standalone SVG element, with the
        action ``played`` and the engine's ``best`` one (record notation) drawn on it when given; raises
        ValueError when the text is not a position of this game."""
        ...
