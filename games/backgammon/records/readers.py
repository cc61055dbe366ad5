"""Reading backgammon record files of any supported format: the format is recognised from the text, and an
eXtreme Gammon file by its name or its first bytes."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from taldau.base.records import ReadLimits, RecordFile, RecordLine, UnreadableFile, text_lines

from .jellyfish import JellyfishReader
from .record import MatchRecord
from .sgf import read_sgf_lines
from .xg import is_xg, read_xg_file

FORMATS = ("jellyfish", "sgf", "xg")

_SGF_GAME = re.compile(r"GM\s*\[\s*6\s*\]")
# A line's leading blanks are [^\S\n]*, not \s*: from each line start \s* would run on through every blank
# line after it, quadratic in a text of many blank lines.
_MATCH_LINE = re.compile(r"^[^\S\n]*\d+\s+points?\s+match\b", re.IGNORECASE | re.MULTILINE)
_GAME_LINE = re.compile(r"^[^\S\n]*Game\s+\d+\s*$", re.IGNORECASE | re.MULTILINE)
_MOVE_LINE = re.compile(r"^[^\S\n]*\d+\)\s+(?:[1-6][1-6]:|Doubles\b|Takes\b|Drops\b|Wins\b)", re.MULTILINE)
_NUMBERED_LINE = re.compile(r"^[^\S\n]*\d+\)", re.MULTILINE)
_BLOCK_LINES = (16, 256)  # lines looked at together: a first block (the signs are near the top), then more


def detect_format(text: str) -> str | None:
    """``"sgf"`` for gnubg SGF, ``"jellyfish"`` for Jellyfish match text, None for anything else (a Togyz
    record, say)."""
    return detect_lines(text_lines(text))


def detect_lines(lines: Iterable[RecordLine]) -> str | None:
    """``detect_format`` of a file's lines, reading no further than it needs (refused lines say nothing)."""
    head = ""  # the first two characters of the text that are not white space: "(" and ";" for SGF
    sgf_game = jellyfish = game_line = numbered = False
    block: list[str] = []
    for line in lines:
        if line.refused is not None:
            continue
        if head in ("", "("):
            rest = line.text if head else line.text.lstrip("\ufeff \t")
            if not head:
                head, rest = rest[:1], rest[1:]
            if head == "(":
                head += rest.lstrip()[:1]
        block.append(line.text)
        if len(block) < _BLOCK_LINES[line.number > _BLOCK_LINES[0]]:
            continue
        text = "\n".join(block)
        block.clear()
        sgf_game = sgf_game or _SGF_GAME.search(text) is not None
        jellyfish = jellyfish or bool(_MATCH_LINE.search(text) or _MOVE_LINE.search(text))
        game_line = game_line or _GAME_LINE.search(text) is not None
        numbered = numbered or _NUMBERED_LINE.search(text) is not None
        if head == "(;" and sgf_game:
            return "sgf"
        if head not in ("", "(", "(;") and (jellyfish or (game_line and numbered)):
            return "jellyfish"
    text = "\n".join(block)
    if head == "(;" and (sgf_game or _SGF_GAME.search(text)):
        return "sgf"
    jellyfish = jellyfish or bool(_MATCH_LINE.search(text) or _MOVE_LINE.search(text))
    game_line = game_line or _GAME_LINE.search(text) is not None
    numbered = numbered or _NUMBERED_LINE.search(text) is not None
    return "jellyfish" if jellyfish or (game_line and numbered) else None


def read_match_records(data: bytes, source: str, limits: ReadLimits | None = None) -> list[MatchRecord]:
    """The matches of a record file's bytes (see ``read_matches``)."""
    return list(read_matches(RecordFile.of_bytes(data, source, limits or ReadLimits())))


def read_matches(file: RecordFile) -> Iterator[MatchRecord]:
    """The matches of a record file, read line by line (a Jellyfish file one match at a time; an XG file,
    binary, whole); undecodable or unrecognised data gives one match with an error at line 0, and so does a
    file that cannot be read on."""
    if is_xg(file):
        yield from read_xg_file(file)
        return
    try:
        kind = detect_lines(file.lines())
        if kind == "sgf":
            yield from read_sgf_lines(file.lines(), file.name, file.limits)
        elif kind == "jellyfish":
            yield from JellyfishReader(file.name, file.limits).read(file.lines())
        else:
            message = "not a backgammon record (neither Jellyfish match text nor gnubg SGF)"
            yield MatchRecord.unreadable(file.name, message)
    except UnreadableFile as error:
        yield MatchRecord.unreadable(file.name, str(error))
