"""Checking whole archives of game records: every game read, replayed and summarised, none skipped."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from taldau.games.archive import iter_sources
from taldau.games.togyz import Game, RecordError, read_games


@dataclass(frozen=True)
class GameCheck:
    """The verdict on one game of an archive. ``index`` 0 stands for a source with no readable game."""

    source: str
    index: int
    format: str
    plies: int
    result: str | None
    termination: str
    kazans: tuple[int, int]
    errors: tuple[RecordError, ...]
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def valid(self) -> bool:
        return not self.errors

    def to_json(self) -> dict[str, object]:
        """The per-game object of ``taldau validate --json``."""
        return {
            "source": self.source,
            "index": self.index,
            "format": self.format,
            "plies": self.plies,
            "result": self.result,
            "termination": self.termination,
            "kazans": list(self.kazans),
            "errors": [{"line": e.line, "column": e.column, "message": e.message} for e in self.errors],
        }


@dataclass
class Summary:
    """Counts over all checked games."""

    games: int = 0
    valid: int = 0
    invalid: int = 0
    plies: int = 0

    def add(self, check: GameCheck) -> None:
        self.games += 1
        self.plies += check.plies
        if check.valid:
            self.valid += 1
        else:
            self.invalid += 1

    def to_json(self) -> dict[str, int]:
        return {"games": self.games, "valid": self.valid, "invalid": self.invalid, "plies": self.plies}


def archive_games(paths: Iterable[str | Path]) -> Iterator[Game | tuple[str, str]]:
    """Every game under ``paths`` (files, directories, .zip, .tar.gz) read and replayed, in order; a source
    that cannot be read comes as ``(source name, reason)``."""
    for source in iter_sources(paths):
        if source.error is not None:
            yield source.name, source.error
        else:
            yield from read_games(source.data, source.name)


def valid_games(paths: Iterable[str | Path], skipped: Callable[[str], None]) -> Iterator[Game]:
    """The valid games under ``paths``; every unreadable source or invalid game is told to ``skipped``."""
    for game in archive_games(paths):
        if not isinstance(game, Game):
            skipped(f"{game[0]}: {game[1]}")
        elif game.valid:
            yield game
        else:
            skipped(f"{game.record.source}, game {game.record.index}: skipped: {game.errors[0]}")


def check_paths(paths: Iterable[str | Path]) -> Iterator[GameCheck]:
    """Read and replay every game under ``paths`` (files, directories, .zip, .tar.gz), one check each."""
    for game in archive_games(paths):
        if not isinstance(game, Game):
            error = RecordError(0, 0, game[1])
            yield GameCheck(game[0], 0, "unknown", 0, None, "unfinished", (0, 0), (error,))
        else:
            yield GameCheck(
                source=game.record.source,
                index=game.record.index,
                format=game.record.format,
                plies=game.plies,
                result=game.result,
                termination=game.termination.value,
                kazans=game.kazans,
                errors=tuple(game.errors),
                headers=dict(game.record.headers),
            )


def describe(check: GameCheck) -> str:
    """One line naming a bad game and its first error, for people."""
    where = f"{check.source}" if check.index == 0 else f"{check.source}, game {check.index}"
    players = " vs ".join(check.headers[name] for name in ("White", "Black") if name in check.headers)
    if players:
        where += f" ({players})"
    first = check.errors[0]
    location = f"line {first.line}, column {first.column}: " if first.line else ""
    more = f" (+{len(check.errors) - 1} more)" if len(check.errors) > 1 else ""
    return f"{where}: {location}{first.message}{more}"
