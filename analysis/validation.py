"""Checking whole archives of game records: every game read, replayed and summarised, none skipped.

Each file's game is recognised from its content (a backgammon match file or a Togyz Kumalak record), so
one archive may hold both."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from taldau.games.archive import Refused, iter_sources
from taldau.games.kind import GameFacts, GameKind
from taldau.games.records import ReadLimits, RecordError, UnreadableFile
from taldau.games.registry import detect_game


@dataclass(frozen=True)
class Unreadable:
    """A source that could not be read at all (a broken archive member, say)."""

    source: str
    reason: str


@dataclass(frozen=True)
class GameCheck:
    """The verdict on one game of an archive. ``index`` 0 stands for a source with no readable game."""

    game: str
    facts: GameFacts

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
        }


@dataclass
class Summary:
    """Counts over all checked games; ``unread`` counts the index-0 entries among them (files, archives or
    directories with no readable game)."""

    games: int = 0
    valid: int = 0
    invalid: int = 0
    plies: int = 0
    unread: int = 0

    def add(self, check: GameCheck) -> None:
        self.games += 1
        self.unread += check.index == 0
        self.plies += check.plies
        if check.valid:
            self.valid += 1
        else:
            self.invalid += 1

    def to_json(self) -> dict[str, int]:
        return {"games": self.games, "valid": self.valid, "invalid": self.invalid, "plies": self.plies}


def archive_games(
    paths: Iterable[str | Path], limits: ReadLimits
) -> Iterator[tuple[GameKind[Any], Any] | Unreadable]:
    """Every game under ``paths`` (files, directories, archives, ``.gz`` files) read and replayed one at a
    time, in order, with the kind of game it is, within ``limits``; a source that is not read (refused, or
    failing to be read) comes as ``Unreadable``. The game is of its kind's own type, which only the kind
    looks into."""
    for source in iter_sources(paths, limits):
        if isinstance(source, Refused):
            yield Unreadable(source.name, source.reason)
            continue
        try:
            kind = detect_game(source)
            for game in kind.read_file(source):
                yield kind, game
        except UnreadableFile as error:  # the readers report what they can; this is what they cannot
            yield Unreadable(source.name, str(error))


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
            yield GameCheck("unknown", facts)
        else:
            kind, game = item
            yield GameCheck(kind.name, kind.facts(game))


def describe(check: GameCheck) -> str:
    """One line naming a bad game and its first error, for people."""
    facts = check.facts
    where = f"{facts.source}" if facts.index == 0 else f"{facts.source}, game {facts.index}"
    if any(facts.players):
        where += f" ({' vs '.join(facts.players)})"
    first = facts.errors[0]
    location = f"line {first.line}, column {first.column}: " if first.line else ""
    more = f" (+{len(facts.errors) - 1} more)" if len(facts.errors) > 1 else ""
    return f"{where}: {location}{first.message}{more}"


def games_found(paths: Iterable[str | Path], limits: ReadLimits) -> list[str]:
    """The names of the games whose records lie under ``paths``, in the order first met, from each file's
    content (its first lines: the games are not read)."""
    found: list[str] = []
    for source in iter_sources(paths, limits):
        if isinstance(source, Refused):
            continue
        try:
            name = detect_game(source).name
        except UnreadableFile:
            continue
        if name not in found:
            found.append(name)
    return found


def auto_game(paths: Iterable[str | Path], limits: ReadLimits, default: str = "togyz") -> str:
    """The game to analyse when the user does not say: the only game under ``paths``, or ``default`` when
    they hold several (or none); the others' games are then listed as skipped."""
    found = games_found(paths, limits)
    return found[0] if len(found) == 1 else default
