"""What a report shows, read from a ``taldau analyze`` output folder (its manifest's settings and its
``games`` and ``moves`` tables, through ``taldau.analysis.folder``) into typed rows, and the figures derived
from them (each player's figures over the archive, the worst blunders).

The games are read whole (a row each); the decisions game by game (``Archive.with_moves``), a batch of the
``moves`` table at a time, so that a report holds one game's decisions at once, whatever the archive's
size: a page is written as its game's decisions arrive, and what the index and the player pages need of
them is kept small (counts, the worst blunders in a ``Worst`` of bounded size, and what the judgements the
record files hold say in a ``ReferenceTally``: two numbers per player and game). The decisions are the
table's own rows (``taldau.schemas.MoveRow``), made straight from its columns (``move_rows_of``). Nothing
here knows the game: the values are the tables' own (see ``taldau.schemas``).
"""

from __future__ import annotations

import heapq
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from taldau.base.kind import MARKS, Mark, MarkScale, move_numbers
from taldau.schemas import MoveRow, SideFigures, move_rows_of

from ..accounting import count
from ..folder import AnalysisFolder, FolderError, FolderSettings, open_folder
from ..players import (
    DATE_HEADERS,
    EVENT_HEADERS,
    SIDES,
    Bootstrap,
    Estimate,
    PlayersReport,
    Sitting,
    scale_of,
    sittings_of,
)
from ..tally import Tally, tally_of

MARK_NAMES = {mark: mark.word for mark in MARKS}
MARK_PLURALS = {Mark.DOUBTFUL: "inaccuracies", Mark.BAD: "mistakes", Mark.VERY_BAD: "blunders"}
DIAGRAM_MARKS = (Mark.BAD, Mark.VERY_BAD)  # the marks whose positions a game page draws
BATCH_ROWS = 16_384  # rows of a table read at a time


def disputed(move: MoveRow) -> bool:
    """Whether the reference (the judgement the record file holds: XG's, gnubg's) picks another best than
    ours for ``move``."""
    return move.reference is not None and move.reference_best is not None and move.best != move.reference_best


def judge_of(reference: str) -> str:
    """The program a reference names, without its level: ``XG`` of ``XG Roller++``, ``gnubg`` of ``gnubg
    2-ply`` (the reader names the judge first)."""
    return reference.split(" ", 1)[0]


def judges(references: Iterable[str]) -> str:
    """The programs of ``references`` as one name: ``XG``, ``XG and gnubg``; "" for none."""
    return " and ".join(sorted({judge_of(reference) for reference in references}, key=str.casefold))


@dataclass
class ReferenceTally:
    """What the judgements the record files hold (the reference: XG's, gnubg's) say of the games added:
    the decisions each reference judged (by its name, ``XG Roller++``), how many of them have a best
    other than ours (``disputed``), and for each spelling of a player's name, game by game, the
    reference's summed loss and count of the side's counted decisions it judged (``games``: a pair a game,
    as a games list holds a row a game)."""

    references: Counter[str] = field(default_factory=Counter)
    disputed: int = 0
    games: dict[str, list[tuple[float, int]]] = field(default_factory=lambda: defaultdict(list))

    @property
    def judge(self) -> str:
        """The programs that judged, as one name (``judges``)."""
        return judges(self.references)

    def add(self, game: ReportGame) -> None:
        """Count ``game``'s decisions (nothing where the reference judged none of them)."""
        judged = [move for move in game.moves if move.reference is not None]
        if not judged:
            return
        self.references.update(move.reference for move in judged if move.reference is not None)
        self.disputed += sum(disputed(move) for move in judged)
        for side, name in enumerate(game.names):
            losses = [
                move.reference_loss
                for move in judged
                if move.side == side and move.counted and move.reference_loss is not None
            ]
            if name is not None:
                self.games[name].append((sum(losses, 0.0), len(losses)))

    def pr(self, spelling: str, scale: MarkScale | None) -> float | None:
        """The PR by the reference of the player named ``spelling`` (``scale``'s factor x the reference's
        mean loss over the counted decisions it judged, as ``PlayerTally.pr`` is made of ours); None where it
        judged none or the scale has no PR."""
        games = self.games.get(spelling, [])
        judged = sum(count for _, count in games)
        if scale is None or scale.pr_factor is None or not judged:
            return None
        return scale.pr_factor * sum(loss for loss, _ in games) / judged

    def estimates(self, roster: PlayersReport, scale: MarkScale | None) -> dict[str, Estimate]:
        """Each player of ``roster`` (by the name shown, over every spelling) with the PR by the reference
        and its interval bootstrapped over games (the players' ``Bootstrap``, from ``MIN_GAMES`` games
        on, ``roster``'s settings); none where the scale has no PR."""
        if scale is None or scale.pr_factor is None:
            return {}
        rng = np.random.default_rng(roster.settings.seed)
        found = {}
        for player in roster.players:
            games = [game for spelling in player.spellings for game in self.games.get(spelling, ())]
            numerator = np.array([loss for loss, _ in games], dtype=np.float64)
            denominator = np.array([count for _, count in games], dtype=np.float64)
            bootstrap = Bootstrap(len(games), roster.settings, rng)
            found[player.name] = bootstrap.ratio(numerator, denominator, scale.pr_factor)
        return found


class ReportError(ValueError):
    """The folder is not a ``taldau analyze`` output folder (no manifest, no tables): the message says
    which folder and what is missing."""


@dataclass(frozen=True)
class ReportGame:
    """One ``games`` row as a report shows it; ``moves`` are its decisions in order (empty unless the
    game was analysed, ``status`` ``ok``)."""

    game_id: str
    game: str
    source: str
    index: int
    status: str
    error: str | None
    headers: dict[str, str]
    result: str | None
    termination: str | None
    plies: int
    sides: tuple[SideFigures, SideFigures] | None
    match_length: int | None
    match_score: tuple[int, int] | None
    cube: int | None
    names: tuple[str | None, str | None] = (None, None)
    moves: list[MoveRow] = field(default_factory=list)
    task: str | None = None
    winner: int | None = None
    points: int | None = None

    @property
    def players(self) -> tuple[str, str]:
        """Both players' names (``first player`` / ``second player`` when the record has none)."""
        return self.names[0] or "first player", self.names[1] or "second player"

    @property
    def title(self) -> str:
        white, black = self.players
        return f"{white} - {black}"

    @property
    def page(self) -> str:
        """The game's page, relative to the report's folder."""
        return f"games/{self.game_id}.html"

    @property
    def event(self) -> str:
        """The event the record names (its site when it names none), or ""."""
        return next((self.headers[name] for name in EVENT_HEADERS if self.headers.get(name)), "")

    @property
    def date(self) -> str:
        """The date the record gives, under whichever header its format uses, or ""."""
        return next((self.headers[name] for name in DATE_HEADERS if self.headers.get(name)), "")

    @property
    def in_match(self) -> bool:
        """Whether the game is part of a match (backgammon; its rows have the match columns)."""
        return self.match_length is not None

    @cached_property
    def numbers(self) -> dict[int, int]:
        """Each decision's number as a report shows it, by ply: in a match the match file's own move number
        (the number of its Jellyfish line, each player's half of it, as ``taldau annotate`` prints it),
        else the ply (the table's, from 1)."""
        if not self.in_match:
            return {move.ply: move.ply for move in self.moves}
        found = move_numbers((move.side, move.kind) for move in self.moves)
        return {move.ply: number for move, number in zip(self.moves, found, strict=True)}

    @property
    def numbered(self) -> str:
        """What a decision's number counts: ``Move`` (a match's move number) or ``Ply``."""
        return "Move" if self.in_match else "Ply"

    def move_label(self, move: MoveRow) -> str:
        """``Move 7`` (a match's move number) or ``Ply 8``: the same words in the graph, the move list and
        the captions."""
        return f"{self.numbered} {self.numbers[move.ply]}"

    @property
    def axis(self) -> str:
        """The evaluation graph's caption under its points (one per decision): ``ply (1 to 62)``, or in a
        match ``move (1 to 34), 121 decisions``."""
        if not self.moves:
            return f"{self.numbered.lower()}"
        first, last = self.numbers[self.moves[0].ply], self.numbers[self.moves[-1].ply]
        span = f"{self.numbered.lower()} ({first} to {last})"
        return f"{span}, {count(len(self.moves), 'decision')}" if self.in_match else span

    @property
    def name(self) -> str:
        """The game named for a list of the whole archive: its players, its number in its record file and
        the file (``lasse - simon_haag, game 3 of galaxy-6800849.txt``)."""
        return f"{self.title}, game {self.index} of {Path(self.source).name}"

    def matches(self, query: str) -> bool:
        """Whether ``query`` (any case) is part of a player's name, the event, site, date or round, the
        record file's name or the game's id."""
        words = [*self.players, self.source, self.game_id, self.date]
        words += [self.headers.get(name, "") for name in ("Event", "Site", "Round")]
        needle = query.casefold()
        return any(needle in word.casefold() for word in words)


@dataclass(frozen=True)
class PlayerTally:
    """A player's figures over the games of a report, derived from the player's ``Tally`` of them (its
    sums: games, counted decisions, error, accuracy, marks): accuracy, error rate, its performance rating
    in the game's ``scale`` (None where it has none) and marks per 100 counted decisions."""

    name: str
    tally: Tally = field(default_factory=Tally)
    scale: MarkScale | None = None

    @property
    def games(self) -> int:
        return self.tally.games

    @property
    def counted(self) -> int:
        return self.tally.counted

    @property
    def marks(self) -> tuple[int, int, int]:
        return self.tally.marks

    @property
    def accuracy(self) -> float | None:
        return self.tally.accuracy

    @property
    def mean_loss(self) -> float | None:
        return self.tally.mean_loss

    @property
    def pr(self) -> float | None:
        """The performance rating of the error rate over all the player's games (backgammon: 500 x EMG
        lost per counted decision, gnubg's and XG's PR); None where the game's scale has none (Togyz)."""
        return self.tally.pr(self.scale)

    def per_100(self, marks: int) -> float | None:
        return self.tally.per_100(marks)


@dataclass(frozen=True)
class MatchSide:
    """One player's figures over the analysed games of a match, summed from its ``games`` rows as the
    ``games`` table's notes say (error / counted is the error rate; PR and rating band from it through
    the analyser's scale: None where the scale has none)."""

    name: str
    counted: int
    error: float
    pr: float | None
    rating: str | None

    @property
    def mean_loss(self) -> float | None:
        return self.error / self.counted if self.counted else None


@dataclass(frozen=True)
class Match:
    """The games of one match (backgammon), in order, its score line and each player's figures over its
    analysed games (None when none was analysed)."""

    games: list[ReportGame]
    sides: tuple[MatchSide, MatchSide] | None

    @property
    def players(self) -> tuple[str, str]:
        return self.games[0].players

    @property
    def score(self) -> tuple[int, int] | None:
        """The score after the last game of the match (the score before it and the points it won)."""
        last = self.games[-1]
        if last.match_score is None:
            return None
        score = list(last.match_score)
        if last.winner is not None and last.points:
            score[last.winner] += last.points
        return score[0], score[1]

    @property
    def title(self) -> str:
        """``7-point match, Alice 7 - Bob 4`` (``money session, ...`` for money play)."""
        length = self.games[0].match_length
        kind = f"{length}-point match" if length else "money session"
        if self.score is None:
            return f"{kind}, {self.players[0]} - {self.players[1]}"
        return f"{kind}, {self.players[0]} {self.score[0]} - {self.players[1]} {self.score[1]}"


def _match_sides(games: list[ReportGame], scale: MarkScale | None) -> tuple[MatchSide, MatchSide] | None:
    analysed = [game for game in games if game.sides is not None]
    if not analysed:
        return None
    found = []
    for side, name in enumerate(games[0].players):
        tally = sum((tally_of(game.sides[side]) for game in analysed if game.sides), Tally())
        found.append(MatchSide(name, tally.counted, tally.error, tally.pr(scale), tally.rating(scale)))
    return found[0], found[1]


@dataclass(frozen=True)
class Section:
    """Rows of the index's games table: the games of one match under its heading, or games that are not
    part of a match (``match`` None); ``games`` with their numbers in the table."""

    match: Match | None
    games: list[tuple[int, ReportGame]]


@dataclass(frozen=True)
class Archive:
    """What a report shows: the analysis folder (``stored``: its manifest's settings) and its games (those
    the query kept) in the tables' order (by record file and index), without their decisions unless read
    with them (``read_archive``); ``with_moves`` brings each analysed game's decisions, one game at a
    time. ``sittings``: both named sides of every analysed game of the folder, whatever the query, read
    from the same rows, for its players' figures (``taldau.analysis.players.roster_of``)."""

    stored: AnalysisFolder
    games: list[ReportGame]
    sittings: list[Sitting] = field(default_factory=list)

    @property
    def folder(self) -> Path:
        return self.stored.path

    @property
    def settings(self) -> FolderSettings:
        return self.stored.settings

    @property
    def analysed(self) -> list[ReportGame]:
        return [game for game in self.games if game.status == "ok"]

    @property
    def has_pr(self) -> bool:
        """Whether the analysis rates its players (PR and rating band: backgammon)."""
        return any(side.pr is not None for game in self.analysed for side in game.sides or ())

    def sections(self) -> list[Section]:
        """The games in the tables' order, those of a match grouped under it (a match: the games of one
        record file and task, in order; its invalid games join it by their file), the others as they
        come."""
        groups: list[tuple[bool, list[tuple[int, ReportGame]]]] = []  # (a match's, its numbered games)
        by_match: dict[tuple[str, str], list[tuple[int, ReportGame]]] = {}
        tasks = {game.source: game.task for game in self.games if game.in_match and game.task}
        for number, game in enumerate(self.games, start=1):
            if not game.in_match:
                if not groups or groups[-1][0]:
                    groups.append((False, []))
                groups[-1][1].append((number, game))
                continue
            key = (game.source, game.task or tasks.get(game.source) or "")
            if key not in by_match:
                by_match[key] = []
                groups.append((True, by_match[key]))
            by_match[key].append((number, game))
        sections = []
        for in_match, numbered in groups:
            if not in_match:
                sections.append(Section(None, numbered))
                continue
            numbered.sort(key=lambda pair: pair[1].index)
            games = [game for _, game in numbered]
            sections.append(Section(Match(games, _match_sides(games, scale_of(games[0].game))), numbered))
        return sections

    def players(self) -> list[PlayerTally]:
        """Every named player's figures over the analysed games (each spelling of a name its own), most
        games first."""
        tallies: dict[str, Tally] = {}
        scales: dict[str, MarkScale | None] = {}  # by game
        played: dict[str, str] = {}  # each name's game, the first it is seen in
        for game in self.analysed:
            if game.game not in scales:
                scales[game.game] = scale_of(game.game)
            for name, side in zip(game.names, game.sides or (), strict=False):
                if name is not None:
                    tallies[name] = tallies.get(name, Tally()) + tally_of(side)
                    played.setdefault(name, game.game)
        found = [PlayerTally(name, tally, scales[played[name]]) for name, tally in tallies.items()]
        return sorted(found, key=lambda player: (-player.games, player.name.casefold()))

    def with_moves(self) -> Iterator[ReportGame]:
        """Each analysed game with its decisions (in order of ply), one at a time, in the ``moves`` table's
        order (by game id; a game without decisions last), read ``BATCH_ROWS`` rows at a time: only one
        game's decisions are made into rows at once. ReportError when the table cannot be read, or holds
        a game's decisions apart (not the order ``taldau analyze`` writes)."""
        wanted = {game.game_id: game for game in self.analysed}
        done: set[str] = set()
        current: tuple[str, list[MoveRow]] | None = None
        try:
            for batch in self.stored.batches("moves", rows=BATCH_ROWS):
                ids = batch.column("game_id").to_pylist()
                starts = [0, *(row for row in range(1, len(ids)) if ids[row] != ids[row - 1])]
                for start, end in zip(starts, [*starts[1:], len(ids)], strict=True):
                    game_id = ids[start]
                    if current is not None and current[0] != game_id:
                        yield self._played(wanted[current[0]], current[1])
                        current = None
                    if game_id not in wanted:
                        continue
                    if current is None:
                        if game_id in done:
                            raise ReportError(
                                f"{self.folder}: the decisions of game {game_id} are not together in its "
                                "moves table: analyse the archive again into a new --out folder"
                            )
                        done.add(game_id)
                        current = (game_id, [])
                    current[1].extend(move_rows_of(batch.slice(start, end - start)))
        except FolderError as error:
            raise ReportError(str(error)) from None
        if current is not None:
            yield self._played(wanted[current[0]], current[1])
        for game_id, game in wanted.items():
            if game_id not in done:
                yield game

    @staticmethod
    def _played(game: ReportGame, moves: list[MoveRow]) -> ReportGame:
        return replace(game, moves=sorted(moves, key=lambda move: move.ply))


@dataclass(frozen=True)
class Blunder:
    """A blunder as a list of the worst shows it: its game (without its decisions), the decision, and the
    decision named as its game's page names it (``Move 7``, ``Ply 8``)."""

    game: ReportGame
    move: MoveRow
    label: str


@dataclass
class Worst:
    """The ``size`` worst blunders offered: by loss, then by winning chances given away, then the first
    offered by ``order`` (a tuple of numbers, its own for every blunder offered); the others are not
    kept."""

    size: int
    kept: list[tuple[float, float, tuple[int, ...], Blunder]] = field(default_factory=list)  # mildest first

    def offer(self, blunder: Blunder, order: tuple[int, ...]) -> None:
        entry = (blunder.move.loss, blunder.move.drop, tuple(-number for number in order), blunder)
        if len(self.kept) < self.size:
            heapq.heappush(self.kept, entry)
        elif self.kept and entry[:3] > self.kept[0][:3]:
            heapq.heapreplace(self.kept, entry)

    def worst(self) -> list[Blunder]:
        """The blunders kept, worst first."""
        return [entry[-1] for entry in sorted(self.kept, key=lambda entry: entry[:3], reverse=True)]


def _game(row: dict[str, Any], strings: dict[str, str]) -> ReportGame:
    """The game of a ``games`` row; its headers' names and values held once in ``strings`` (a record's
    headers repeat from game to game: Site, Event, Variation ...)."""
    headers = {
        strings.setdefault(name, name): strings.setdefault(value, value)
        for name, value in row.get("headers") or []
    }
    white_score, black_score = row.get("white_match_score"), row.get("black_match_score")
    game = ReportGame(
        game_id=row["game_id"],
        game=row["game"],
        source=row["source"],
        index=row["index"],
        status=row["status"],
        error=row.get("error"),
        headers=headers,
        result=row.get("result"),
        termination=row.get("termination"),
        plies=row.get("plies") or 0,
        sides=None,
        match_length=row.get("match_length"),
        match_score=(
            None if white_score is None or black_score is None else (int(white_score), int(black_score))
        ),
        cube=row.get("cube"),
        names=(row.get(SIDES[0]), row.get(SIDES[1])),  # the games table's White / Black, or the players
        task=row.get("task"),
        winner=row.get("winner"),
        points=row.get("points"),
    )
    if row["status"] != "ok":
        return game
    sides = (SideFigures.of_row(row, SIDES[0]), SideFigures.of_row(row, SIDES[1]))
    return ReportGame(**{**{f.name: getattr(game, f.name) for f in fields(ReportGame)}, "sides": sides})


def open_archive(folder: str | Path, query: str | None = None) -> Archive:
    """The analysed archive in ``folder``: its manifest's settings and its games (only those whose
    players, event, site, date, round, file or id contain ``query``, any case, when given), without their
    decisions, and the sittings of all its analysed games; the games table is read once. Raises
    ReportError when the folder is not an analysis' output or cannot be read."""
    strings: dict[str, str] = {}
    games: list[ReportGame] = []
    found: list[Sitting] = []
    try:
        stored = open_folder(folder)
        for batch in stored.batches("games", rows=BATCH_ROWS):  # the one reading of the games table
            rows = batch.to_pylist()
            games += [_game(row, strings) for row in rows]
            found += sittings_of(rows)
    except FolderError as error:
        raise ReportError(str(error)) from None
    if query:
        games = [game for game in games if game.matches(query)]
    return Archive(stored, games, found)


def read_archive(folder: str | Path, query: str | None = None) -> Archive:
    """``open_archive`` with every analysed game's decisions, all held at once (a report reads them game
    by game instead: ``Archive.with_moves``)."""
    archive = open_archive(folder, query)
    played = {game.game_id: game for game in archive.with_moves()}
    return replace(archive, games=[played.get(game.game_id, game) for game in archive.games])
