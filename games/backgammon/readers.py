"""Reading backgammon record files of any supported format: the format is recognised from the text."""

from __future__ import annotations

import re

from taldau.games.records import RecordError, decode_record

from .jellyfish import read_jellyfish
from .record import MatchRecord
from .sgf import read_sgf

FORMATS = ("jellyfish", "sgf")

_SGF_GAME = re.compile(r"GM\s*\[\s*6\s*\]")
# A line's leading blanks are [^\S\n]*, not \s*: from each line start \s* would run on through every blank
# line after it, quadratic in a text of many blank lines.
_MATCH_LINE = re.compile(r"^[^\S\n]*\d+\s+points?\s+match\b", re.IGNORECASE | re.MULTILINE)
_GAME_LINE = re.compile(r"^[^\S\n]*Game\s+\d+\s*$", re.IGNORECASE | re.MULTILINE)
_MOVE_LINE = re.compile(r"^[^\S\n]*\d+\)\s+(?:[1-6][1-6]:|Doubles\b|Takes\b|Drops\b|Wins\b)", re.MULTILINE)
_NUMBERED_LINE = re.compile(r"^[^\S\n]*\d+\)", re.MULTILINE)


def detect_format(text: str) -> str | None:
    """``"sgf"`` for gnubg SGF, ``"jellyfish"`` for Jellyfish match text, None for anything else (a Togyz
    record, say)."""
    head = text.lstrip("\ufeff \t\r\n")
    if head.startswith("(") and head[1:].lstrip().startswith(";") and _SGF_GAME.search(text):
        return "sgf"
    if _MATCH_LINE.search(text) or _MOVE_LINE.search(text):
        return "jellyfish"
    if _GAME_LINE.search(text) and _NUMBERED_LINE.search(text):
        return "jellyfish"
    return None


def read_match_records(data: bytes, source: str) -> list[MatchRecord]:
    """The matches of a record file; undecodable or unrecognised data gives one match with an error at
    line 0."""
    try:
        text = decode_record(data)
    except ValueError as error:
        return [_unreadable(source, str(error))]
    kind = detect_format(text)
    if kind == "sgf":
        return read_sgf(text, source)
    if kind == "jellyfish":
        return read_jellyfish(text, source)
    return [_unreadable(source, "not a backgammon record (neither Jellyfish match text nor gnubg SGF)")]


def _unreadable(source: str, message: str) -> MatchRecord:
    """A match standing for a file that could not be read."""
    match = MatchRecord(source, "")
    match.errors.append(RecordError(0, 0, message))
    return match
