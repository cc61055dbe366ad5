"""Backgammon behind taldau's common face (``taldau.games.kind``): match records (Jellyfish .mat/.txt, gnubg
SGF) read and replayed game by game. A task is one match: its games in order, written back as Jellyfish
match text, so that the score and the cube carry from game to game as they did at the table.

No analyser yet (``analyser`` is None): the batch lists backgammon matches as skipped.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import ClassVar

from taldau.games.identity import game_id
from taldau.games.kind import Analyser, GameFacts
from taldau.games.records import RecordFile

from . import recognises as is_backgammon
from .replay import Game, read_games, replay_file
from .writer import format_action, write_jellyfish


class BackgammonKind:
    """Backgammon matches and money sessions; recognised by their content."""

    name: ClassVar[str] = "backgammon"
    analyser: Analyser | None = None

    def recognises(self, file: RecordFile) -> bool:
        return is_backgammon(file)

    def read_file(self, file: RecordFile) -> Iterator[Game]:
        return replay_file(file)

    def read_games(self, data: bytes, source: str) -> Iterator[Game]:
        return read_games(data, source)

    def facts(self, game: Game) -> GameFacts:
        match = game.match
        winner = game.winner
        points = game.points if winner is not None else None
        result = None if winner is None else (f"{points}-0" if winner == 0 else f"0-{points}")
        return GameFacts(
            source=game.source,
            index=game.index,
            format=match.format,
            plies=game.plies,
            result=result,
            termination=game.termination.value,
            errors=tuple(game.errors),
            headers=dict(match.headers),
            players=match.players,
            details={
                "players": list(match.players),
                "match_length": match.length,
                "score": list(game.start.score),
                "score_after": list(game.score_after),
                "winner": None if winner is None else winner + 1,
                "winner_name": None if winner is None else match.players[winner],
                "points": points,
                "value": None if game.value is None else game.value.name.lower(),
                "cube": game.cube,
                "warnings": [
                    {"line": w.line, "column": w.column, "message": w.message} for w in game.warnings
                ],
            },
        )

    def identity(self, game: Game) -> str:
        """A hash of the match's headers, players and length, the game's number and starting score, and
        its actions as Jellyfish writes them (the same from a .mat file or an SGF one)."""
        match, start = game.match, game.start
        score = f"{start.score[0]}-{start.score[1]}"
        opening = f"{match.length} {' / '.join(match.players)} game {game.index} at {score}"
        actions = [f"{act.player}:{format_action(act) or act.kind.value}" for act in game.record.actions]
        return game_id(self.name, match.headers, opening, actions)

    def same_task(self, first: Game, second: Game) -> bool:
        """Games of one match make one task."""
        return first.match is second.match

    def task_text(self, games: Sequence[Game]) -> str:
        """The whole match of ``games`` as Jellyfish text (every game of it, in order)."""
        (match,) = {id(game.match): game.match for game in games}.values()
        return write_jellyfish(match)
