"""A Togyz Kumalak task as it travels to the analyser (a process of the pool, a Celery worker): one replayed
game as plain JSON data, and the game rebuilt from it there by the rules, no text read again.

What a task carries of a game is what its analysis and its write-back need: where it was read (source,
index, format), its headers with the result kept in step with the game (as a written record of it has
them: ``writers.task_headers``), and its moves as origin pits; the decode replays those moves from the
start position the headers give (their ``FEN``). The record's own notation (the claims each move makes,
move numbers, glyphs, comments) was checked when the game was read and planned, and is not carried. A
task that is record text (written by an earlier taldau, still queued) is read as text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .notation import MoveText
from .records import GameRecord
from .replay import Game, read_games, replay
from .writers import task_headers


def encode_game(game: Game) -> dict[str, Any]:
    """A replayed game as a task's JSON data: ``decode_game`` rebuilds it."""
    record = game.record
    return {
        "source": record.source,
        "index": record.index,
        "format": record.format,
        "headers": task_headers(game),
        "moves": game.moves,
        "result": game.result,
    }


def decode_game(data: Mapping[str, Any]) -> Game:
    """The game of a task's JSON data (``encode_game``), replayed from its start position by the rules."""
    moves = [MoveText(int(pit), None, str(pit), 0, 0) for pit in data["moves"]]
    record = GameRecord(
        source=str(data["source"]),
        index=int(data["index"]),
        format=str(data["format"]),
        line=0,
        headers={str(name): str(value) for name, value in data["headers"].items()},
        items=list(moves),
        result=data["result"],
    )
    return replay(record)


def decode_task(data: Any, source: str) -> list[Game]:
    """The games of a task: its JSON data (``encode_game``'s, one game), or the record text an earlier
    taldau queued (read as text)."""
    if isinstance(data, str):
        return list(read_games(data.encode("utf-8"), source))
    return [decode_game(data)]
