"""Togyz Kumalak (Kazakh mancala, 2x9 pits): rules core, Togyz FEN, record formats, perft.

Words of the game used throughout: *pit* (otau), one of the nine holes each player owns; *kazan*, a
player's store; *kumalak*, the stones; *tuzdyk*, an opponent pit claimed for the rest of the game;
*atsyrau*, the end reached when the player to move has no stones.
"""

from .fen import START_FEN, FenError
from .notation import MoveText
from .perft import PerftResult, perft
from .position import Outcome, Position, Side, Sowing, Termination
from .records import FORMATS, GameRecord, RecordError, read_file, read_records
from .replay import Game, read_games, replay, replay_file
from .writers import write_playok, write_scoresheet

__all__ = [
    "FORMATS",
    "START_FEN",
    "FenError",
    "Game",
    "GameRecord",
    "MoveText",
    "Outcome",
    "PerftResult",
    "Position",
    "RecordError",
    "Side",
    "Sowing",
    "Termination",
    "perft",
    "read_file",
    "read_games",
    "read_records",
    "replay",
    "replay_file",
    "write_playok",
    "write_scoresheet",
]
