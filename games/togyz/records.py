"""Reading Togyz Kumalak game records in every format players keep them in.

Formats (see the project's togyz.md), detected automatically per file:

- ``playok``: PlayOK's PGN-like export, ``[Tag "value"]`` headers and wrapped movetext
  ``1. 87(10) 87(10) 2. 22 99(22) ... 0-1 {zero}``;
- ``export``: tournament database and app exports, optional headers, one full move per line ``1. 76 98``,
  tuzdyk marks ``x``/``X``/``х``, the result may be missing, the file may start with a UTF-8 BOM;
- ``book``: printed tournament books, ``N.<TAB>ww<TAB>bb`` lines closed by ``Result 1 - 0`` or
  ``Result 0,5 - 0,5``;
- ``compact``: one game per line, one origin-pit digit per ply, optionally prefixed with the final score
  ``82-10, 95857232999``;
- ``scoresheet``: the official scoresheet, short ``1. 7:6 (10) 9-8`` or full ``1. 79:610 79:610`` form,
  with glyphs.

Readers only split text into ``GameRecord``s and parse tokens; ``replay`` checks the moves against the
rules. A problem is attached to its game as a ``RecordError`` and reading goes on with the next game.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from taldau.games.records import RecordError, append_error, decode_record

from .notation import TUZDYK_MARKS, MoveText, NotationError, add_suffix, parse_move

FORMATS = ("playok", "export", "book", "compact", "scoresheet")
RESULTS = {"1-0": "1-0", "0-1": "0-1", "1/2-1/2": "1/2-1/2", "½-½": "1/2-1/2", "*": None}


@dataclass(frozen=True)
class MoveNumber:
    """A move number token such as ``12.`` (White to move) or ``12...`` (Black to move)."""

    number: int
    black: bool
    line: int
    column: int


@dataclass(frozen=True)
class Unreadable:
    """Where movetext could not be read; the replay stops here, the error itself is in ``errors``."""

    line: int
    column: int


@dataclass
class GameRecord:
    """One game as read from a record: headers, movetext items and the recorded result, not yet replayed.

    ``index`` counts games from 1 within ``source``; index 0 stands for the source itself when it holds no
    readable game at all (empty, binary). ``items`` holds moves, move numbers and unreadable spots in
    written order.
    ``final_score`` is the (White, Black) score prefix of compact strings. ``errors`` holds what went
    wrong while reading; the replay adds its own.
    """

    source: str
    index: int
    format: str
    line: int
    headers: dict[str, str] = field(default_factory=dict)
    items: list[MoveText | MoveNumber | Unreadable] = field(default_factory=list)
    result: str | None = None
    result_at: tuple[int, int] | None = None
    comments: list[str] = field(default_factory=list)
    final_score: tuple[int, int] | None = None
    errors: list[RecordError] = field(default_factory=list)

    @property
    def moves(self) -> list[MoveText]:
        """The recorded moves, in order."""
        return [item for item in self.items if isinstance(item, MoveText)]

    def add_error(self, line: int, column: int, message: str) -> None:
        """Attach a reading error."""
        append_error(self.errors, line, column, message)


def read_records(data: bytes, source: str) -> Iterator[GameRecord]:
    """Every game record in one file's bytes; a file with no readable game yields one index-0 record."""
    try:
        text = decode_record(data)
    except ValueError as error:
        record = GameRecord(source, 0, "unknown", 1)
        record.add_error(1, 1, str(error))
        yield record
        return
    found = False
    for record in read_text(text, source):
        found = True
        yield record
    if not found:
        record = GameRecord(source, 0, "unknown", 1)
        record.add_error(1, 1, "empty file: no game record found" if not text.strip() else "no game found")
        yield record


def read_text(text: str, source: str) -> Iterator[GameRecord]:
    """Every game record in ``text``, in the format detected for it."""
    form = detect_format(text)
    if form == "compact":
        yield from _read_compact(text, source)
    else:
        yield from _read_movetext(text, source, form)


_COMPACT_LINE = re.compile(r"(?:(?P<white>\d{1,9})\s*-\s*(?P<black>\d{1,9})\s*,\s*)?(?P<plies>[1-9]+)")
_BOOK_LINE = re.compile(r"^[ \t]*(?:\d+\.\t|Result[ \t]+\d)", re.MULTILINE)
_SCORESHEET_MOVE = re.compile(r"(?<![\w/.])[1-9]\d*[:\-][1-9]\d*(?![\w/])")
_EXPORT_LINE = re.compile(r"\d+\.\s*\S+(?:\s+\S+)?(?:\s+(?:1-0|0-1|1/2-1/2|\*))?")
_HEADER_LINE = re.compile(r"^[ \t]*\[.*$", re.MULTILINE)


def detect_format(text: str) -> str:
    """Which of FORMATS ``text`` is written in (``playok`` when nothing more specific fits)."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    if lines and all(_COMPACT_LINE.fullmatch(line) for line in lines):
        return "compact"
    if _BOOK_LINE.search(text):
        return "book"
    movetext = _HEADER_LINE.sub("", text)
    if any(match.group() not in ("1-0", "0-1") for match in _SCORESHEET_MOVE.finditer(movetext)):
        return "scoresheet"
    movetext_lines = [line for line in lines if not line.startswith("[")]
    if movetext_lines and all(_EXPORT_LINE.fullmatch(line) for line in movetext_lines):
        return "export"
    return "playok"


def _read_compact(text: str, source: str) -> Iterator[GameRecord]:
    """Compact strings: each non-blank line one game, each digit the origin pit of one ply."""
    index = 0
    for number, line in enumerate(text.splitlines(), start=1):
        match = _COMPACT_LINE.fullmatch(line.strip())
        if match is None:
            continue
        index += 1
        offset = len(line) - len(line.lstrip()) + match.start("plies")
        record = GameRecord(source, index, "compact", number)
        if match.group("white") is not None:
            record.final_score = (int(match.group("white")), int(match.group("black")))
        for position, digit in enumerate(match.group("plies")):
            column = offset + position + 1
            record.items.append(MoveText(int(digit), None, digit, number, column))
        yield record


_TOKEN = re.compile(
    r"""
    (?P<header>^[ \t]*\[[^\n]*)
    |(?P<book_result>^[ \t]*Result[ \t][^\n]*)
    |(?P<comment>\{[^}]*\}?)
    |(?P<line_comment>;[^\n]*)
    |(?P<space>\s+)
    |(?P<word>[^\s{};]+)
    """,
    re.VERBOSE | re.MULTILINE,
)
_HEADER = re.compile(r'\[\s*(?P<name>[A-Za-z][A-Za-z0-9_]*)\s+"(?P<value>(?:[^"\\]|\\.)*)"\s*\]')
_BOOK_RESULT = re.compile(
    r"Result\s+(?P<white>[01](?:[,.]5)?|0?[,.]5)\s*[-–]\s*(?P<black>[01](?:[,.]5)?|0?[,.]5)"
)
_MOVE_NUMBER = re.compile(r"(?P<number>\d{1,9})\.(?P<black>\.\.)?(?P<rest>.*)")
_SUFFIX_STARTS = "(!?=" + TUZDYK_MARKS  # a word starting so is a detached suffix of the move before: (10), !


class _Lines:
    """Maps text offsets to 1-based (line, column)."""

    def __init__(self, text: str) -> None:
        self._starts = [0] + [match.end() for match in re.finditer("\n", text)]

    def at(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self._starts, offset)
        return line, offset - self._starts[line - 1] + 1


def _book_result(text: str) -> str | None:
    """``Result 1 - 0`` / ``Result 0,5 - 0,5`` as ``1-0`` / ``1/2-1/2``; None if unreadable."""
    match = _BOOK_RESULT.fullmatch(text.strip())
    if match is None:
        return None
    white, black = (float(match.group(side).replace(",", ".")) for side in ("white", "black"))
    return {(1.0, 0.0): "1-0", (0.0, 1.0): "0-1", (0.5, 0.5): "1/2-1/2"}.get((white, black))


def _read_movetext(text: str, source: str, form: str) -> Iterator[GameRecord]:
    """PGN-like text (playok, export, book, scoresheet): headers, move numbers, moves, results, comments."""
    lines = _Lines(text)
    record: GameRecord | None = None
    index = 0
    in_movetext = False  # the current record has had movetext (valid or not) after its headers

    def new_record(line: int) -> GameRecord:
        nonlocal index, in_movetext
        index += 1
        in_movetext = False
        return GameRecord(source, index, form, line)

    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        if kind in ("space", "line_comment"):
            continue
        line, column = lines.at(match.start())
        value = match.group().strip()
        column += len(match.group()) - len(match.group().lstrip())
        if kind == "header":
            if record is None or in_movetext:
                if record is not None:
                    yield record
                record = new_record(line)
            header = _HEADER.fullmatch(value)
            if header is None:
                reason = "header is not closed" if not value.endswith("]") else 'header is not [Name "value"]'
                record.add_error(line, column, f"{reason}: {value[:60]!r}")
            else:
                record.headers[header.group("name")] = header.group("value").replace('\\"', '"')
            continue

        if kind == "comment":
            if record is None:
                continue
            if not value.endswith("}"):
                record.add_error(line, column, "comment '{' is never closed")
            record.comments.append(value.strip("{}").strip())
            continue

        # Everything else belongs to movetext: a result, a move number, a move or a detached suffix.
        number = _MOVE_NUMBER.fullmatch(value) if kind == "word" else None
        starts_game = (
            record is None
            or record.result_at is not None
            or (
                number is not None
                and int(number.group("number")) == 1
                and record.moves
                and not number.group("black")
            )
        )
        if starts_game:
            if record is not None:
                yield record
            record = new_record(line)
        assert record is not None
        in_movetext = True

        if kind == "book_result":
            result = _book_result(value)
            if result is None:
                record.add_error(line, column, f"unreadable result line {value!r}")
                record.items.append(Unreadable(line, column))
            record.result, record.result_at = result, (line, column)
            continue
        if value in RESULTS:
            record.result, record.result_at = RESULTS[value], (line, column)
            continue
        if number is not None:
            record.items.append(
                MoveNumber(int(number.group("number")), bool(number.group("black")), line, column)
            )
            value = number.group("rest")
            column += number.start("rest")
            if not value:
                continue
        if value[0] in _SUFFIX_STARTS and record.items and isinstance(record.items[-1], MoveText):
            merged = add_suffix(record.items[-1], value)
            if merged is None:
                record.add_error(line, column, f"{value!r} repeats a claim already made for the move before")
                record.items.append(Unreadable(line, column))
            else:
                record.items[-1] = merged
            continue
        try:
            record.items.append(parse_move(value, line, column))
        except NotationError as error:
            record.add_error(line, column, str(error))
            record.items.append(Unreadable(line, column))

    if record is not None:
        yield record
