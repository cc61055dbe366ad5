"""Checking whole archives of game records: every game read, replayed and summarised, none skipped.

Each file's game is recognised from its content (a backgammon match file or a Togyz Kumalak record), so
one archive may hold both."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taldau.base.archive import Refused, iter_sources
from taldau.base.identity import FirstFound
from taldau.base.kind import GameFacts, GameKind
from taldau.base.records import ReadLimits, RecordError, RecordFile, UnreadableFile
from taldau.games.registry import FALLBACK, detect_game, game_kind

from .accounting import Inputs, NotUsed, Place, Unused, count


@dataclass(frozen=True)
class Unreadable:
    """A source that could not be read at all (a broken archive member, say)."""

    source: str
    reason: str


@dataclass(frozen=True)
class GameCheck:
    """The verdict on one game of an archive. ``index`` 0 stands for a source with no readable game
    (``read`` False: a source not read at all). ``identity`` is a valid game's id, as ``analyze`` names
    it (``taldau.base.identity``: two records of one game have ids of the same game)."""

    game: str
    facts: GameFacts
    identity: str | None = None
    read: bool = True

    @property
    def valid(self) -> bool:
        return self.facts.valid

    @property
    def source(self) -> str:
        return self.facts.source

    @property
    def index(self) -> int:
        return self.facts.index

    @property
    def plies(self) -> int:
        return self.facts.plies

    @property
    def errors(self) -> tuple[RecordError, ...]:
        return self.facts.errors

    def to_json(self) -> dict[str, object]:
        """The per-game object of ``taldau validate --json``."""
        facts = self.facts
        return {
            "source": facts.source,
            "index": facts.index,
            "game": self.game,
            "format": facts.format,
            "plies": facts.plies,
            "result": facts.result,
            "termination": facts.termination,
            **facts.details,
            "errors": [{"line": e.line, "column": e.column, "message": e.message} for e in facts.errors],
            "warnings": [{"line": w.line, "column": w.column, "message": w.message} for w in facts.warnings],
        }


@dataclass
class Summary:
    """Counts over all checked inputs, as every command counts them (``taldau.analysis.accounting``), and
    the plies of the distinct games (``plies_by_game``: of each game, which counts them in its own words)."""

    inputs: Inputs = field(default_factory=Inputs)
    plies: int = 0
    plies_by_game: dict[str, int] = field(default_factory=dict)
    _first: FirstFound[Place] = field(default_factory=FirstFound, repr=False)

    @property
    def games(self) -> int:
        return self.inputs.games

    @property
    def valid(self) -> int:
        return self.inputs.valid

    @property
    def invalid(self) -> int:
        return self.inputs.invalid

    @property
    def unread(self) -> int:
        """The files with no game: not records, or not read."""
        return self.inputs.not_records + self.inputs.not_read

    def add(self, check: GameCheck) -> NotUsed | None:
        """Count one check; returns the note of what is not a game (a file with no game record, a source not
        read) or a duplicate of a game counted before, None for a game counted."""
        facts = check.facts
        if facts.index == 0:
            reason = Unused.NOT_RECORD if check.read else Unused.NOT_READ
            detail = facts.errors[0].message if facts.errors else ""
            note = NotUsed(facts.source, 0, reason, detail)
            self.inputs.skip(note)
            return note
        if check.identity is not None:
            first = self._first.first(check.identity, Place(facts.source, facts.index))
            if first != Place(facts.source, facts.index):
                note = NotUsed(facts.source, facts.index, Unused.DUPLICATE, first=first)
                self.inputs.skip(note)
                return note
        self.inputs.game(facts.source, check.valid)
        self.plies += check.plies
        self.plies_by_game[check.game] = self.plies_by_game.get(check.game, 0) + check.plies
        return None

    def to_json(self) -> dict[str, int]:
        return {**self.inputs.counts(), "plies": self.plies}

    def text(self) -> str:
        """The summary line: ``9 files, 4 games: 3 valid, 1 invalid, 261 moves; 3 not records`` (Togyz
        moves, backgammon rolls; each named by its game when both are there)."""
        inputs = self.inputs
        named = len(self.plies_by_game) > 1
        plies = "".join(
            f", {count(number, *_words(game, named))}" for game, number in sorted(self.plies_by_game.items())
        )
        line = (
            f"{count(inputs.files, 'file')}, {count(inputs.games, 'game')}: {inputs.valid} valid, "
            f"{inputs.invalid} invalid{plies}"
        )
        others = inputs.others()
        return f"{line}; {others}" if others else line


def _words(game: str, named: bool) -> tuple[str, str]:
    """What ``game`` counts in plies (``GameKind.plies_words``), after its name when ``named``."""
    words = game_kind(game).plies_words
    return (f"{game} {words[0]}", f"{game} {words[1]}") if named else words


@dataclass(frozen=True)
class FileGame:
    """Which game a file holds, as its reading tells (``archive_files``): the kind that reads it
    (``game``), whether that kind is the one that reads any text (``fallback``: ``registry.FALLBACK``), and
    whether the first of its games is a game (``holds``), not the record of a file with none."""

    source: str
    game: str
    fallback: bool
    holds: bool


def archive_files(
    paths: Iterable[str | Path], limits: ReadLimits
) -> Iterator[tuple[GameKind[Any], Any] | Unreadable | FileGame]:
    """``archive_games``, and which game each file holds (``FileGame``: before its first game, or for the
    fallback kind right after it, which tells whether the file holds a game; none for a file skipped by
    its name or not read)."""
    for source in iter_sources(paths, limits):
        if isinstance(source, Refused):
            yield Unreadable(source.name, source.reason)
            continue
        try:
            kind = detect_game(source)
            fallback = isinstance(kind, FALLBACK)
            told = source.skipped is not None
            if not fallback and not told:
                told = True
                yield FileGame(source.name, kind.name, fallback, True)
            for game in kind.read_file(source):
                yield kind, game
                if not told:
                    told = True
                    yield FileGame(source.name, kind.name, fallback, kind.facts(game).index > 0)
            if not told:
                yield FileGame(source.name, kind.name, fallback, False)
        except UnreadableFile as error:  # the readers report what they can; this is what they cannot
            yield Unreadable(source.name, str(error))


def archive_games(
    paths: Iterable[str | Path], limits: ReadLimits
) -> Iterator[tuple[GameKind[Any], Any] | Unreadable]:
    """Every game under ``paths`` (files, directories, archives, ``.gz`` files) read and replayed one at a
    time, in order, with the kind of game it is, within ``limits``; a source that is not read (refused, or
    failing to be read) comes as ``Unreadable``. The game is of its kind's own type, which only the kind
    looks into."""
    for item in archive_files(paths, limits):
        if not isinstance(item, FileGame):
            yield item


def valid_games(
    paths: Iterable[str | Path],
    skipped: Callable[[str], None],
    game: str = "togyz",
    limits: ReadLimits | None = None,
) -> Iterator[Any]:
    """The valid games of kind ``game`` under ``paths``; every unreadable source, invalid game or game of
    another kind is told to ``skipped``."""
    for item in archive_games(paths, limits or ReadLimits()):
        if isinstance(item, Unreadable):
            skipped(f"{item.source}: {item.reason}")
            continue
        kind, replayed = item
        facts = kind.facts(replayed)
        if kind.name != game:
            skipped(f"{facts.source}, game {facts.index}: skipped: a {kind.name} game, not {game}")
        elif facts.errors:
            skipped(f"{facts.source}, game {facts.index}: skipped: {facts.errors[0]}")
        else:
            yield replayed


def check_paths(paths: Iterable[str | Path], limits: ReadLimits) -> Iterator[GameCheck]:
    """Read and replay every game under ``paths`` (files, directories, archives, ``.gz`` files), one check
    each, within ``limits``."""
    for item in archive_games(paths, limits):
        if isinstance(item, Unreadable):
            error = RecordError(0, 0, item.reason)
            facts = GameFacts(item.source, 0, "unknown", 0, None, "unfinished", (error,))
            yield GameCheck("unknown", facts, read=False)
        else:
            kind, game = item
            facts = kind.facts(game)
            identity = kind.identity(game) if facts.valid else None
            yield GameCheck(kind.name, facts, identity)


def _where(facts: GameFacts) -> str:
    """``file, game 3 (white vs black)``: a game as messages name it."""
    where = f"{facts.source}" if facts.index == 0 else f"{facts.source}, game {facts.index}"
    if any(facts.players):
        where += f" ({' vs '.join(facts.players)})"
    return where


def _location(problem: RecordError) -> str:
    return f"line {problem.line}, column {problem.column}: " if problem.line else ""


def describe(check: GameCheck) -> str:
    """One line naming a bad game and its first error, for people."""
    facts = check.facts
    first = facts.errors[0]
    more = f" (+{len(facts.errors) - 1} more)" if len(facts.errors) > 1 else ""
    return f"{_where(facts)}: {_location(first)}{first.message}{more}"


def describe_warnings(check: GameCheck) -> list[str]:
    """One line per warning of a game (none for most), naming the game, for people."""
    facts = check.facts
    return [f"{_where(facts)}: warning: {_location(w)}{w.message}" for w in facts.warnings]


def games_found(paths: Iterable[str | Path], limits: ReadLimits) -> list[str]:
    """The names of the games whose records lie under ``paths``, in the order first met, from each file's
    content (its first lines: the games are not read). A file that only the fallback game's readers take
    (they take any text: ``taldau.games.registry.FALLBACK``) names that game when its first game is one, or
    when no file is of another game: notes, an empty file or a Go SGF beside backgammon matches do not
    make a folder of two games. Files skipped by their names (``README.md``) name none."""
    found: list[str] = []
    unsure: str | None = None  # the fallback's game, taken so far only by files with no game of it
    for source in iter_sources(paths, limits):
        if isinstance(source, Refused) or source.skipped is not None:
            continue
        try:
            kind = detect_game(source)
            if kind.name in found:
                continue
            if isinstance(kind, FALLBACK) and not _holds_game(kind, source):
                unsure = kind.name
                continue
        except UnreadableFile:
            continue
        found.append(kind.name)
    return found if found or unsure is None else [unsure]


def games_held(files: Iterable[FileGame]) -> list[str]:
    """``games_found`` of the files an archive's reading told (``archive_files``), none opened again."""
    found: list[str] = []
    unsure: str | None = None  # the fallback's game, taken so far only by files with no game of it
    for file in files:
        if file.game in found:
            continue
        if file.fallback and not file.holds:
            unsure = file.game
            continue
        found.append(file.game)
    return found if found or unsure is None else [unsure]


def _holds_game(kind: GameKind[Any], source: RecordFile) -> bool:
    """Whether the first of ``kind``'s games in ``source`` is a game (not the record of a file with none)."""
    first = next(iter(kind.read_file(source)), None)
    return first is not None and kind.facts(first).index > 0


def auto_game(paths: Iterable[str | Path], limits: ReadLimits, default: str = "togyz") -> str:
    """The game to analyse when the user does not say: the only game under ``paths``, or ``default`` when
    they hold several (or none); the others' games are then listed as skipped."""
    found = games_found(paths, limits)
    return found[0] if len(found) == 1 else default
