"""Backgammon (nardy, qisqa tavla) with the doubling cube, money and match play, in rooms: ``rules`` (the
play generator, positions and their strings: gnubg Position ID and Match ID, XGID; the cube, the match
score and the match equity table), ``records`` (Jellyfish .mat/.txt, gnubg SGF, eXtreme Gammon .xg, read,
replayed and written), ``engine`` (evaluators, a roll's plays ranked, cube decisions), ``training`` (how
the own nets are made) and ``review`` (a match judged as gnubg's analysis judges it); at the top the
common face (``kind``), diagrams and a roll's plays as JSON (``answers``). This module gives the names
readers of records use most.

Words of the game used throughout: *point*, one of the 24 places a checker stands, numbered 1..24 from the
mover's home board; *bar*, where hit checkers wait to enter; *off*, the checkers borne off; *blot*, a lone
checker that can be hit; *play*, all the checker moves of one roll; *cube*, the doubling cube; *Crawford*,
the match game played without the cube.
"""

from taldau.base.records import RecordFile, UnreadableFile

from .records.readers import FORMATS, detect_format, detect_lines, read_match_records, read_matches
from .records.record import Action, ActionKind, GameRecord, MatchRecord, Segment
from .records.replay import Game, Termination, read_games, replay_file, replay_match
from .records.xg import is_xg
from .rules.cube import CubeError, MatchState, Rules
from .rules.position import ROLLS, Dice, GameValue, Outcome, Play, Position, parse_dice


def recognises(file: RecordFile) -> bool:
    """Whether a record file holds backgammon (a Jellyfish match file, gnubg SGF, an XG file by its name or
    first bytes), reading no further than it needs to tell; a file that cannot be read is not recognised."""
    if is_xg(file):
        return True
    try:
        return detect_lines(file.lines()) is not None
    except UnreadableFile:
        return False


__all__ = [
    "FORMATS",
    "ROLLS",
    "Action",
    "ActionKind",
    "CubeError",
    "Dice",
    "Game",
    "GameRecord",
    "GameValue",
    "MatchRecord",
    "MatchState",
    "Outcome",
    "Play",
    "Position",
    "Rules",
    "Segment",
    "Termination",
    "detect_format",
    "parse_dice",
    "read_games",
    "read_match_records",
    "read_matches",
    "recognises",
    "replay_file",
    "replay_match",
]
