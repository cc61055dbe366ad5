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
rules. The result is the one after the moves, else (as PGN readers take it) the ``[Result "..."]`` tag's: many
exports write it only there; a tag that disagrees with the result after the moves is a warning, the moves'
result is kept. A problem is attached to its game as a ``RecordError`` and reading goes on with the next game.
A file is read line by line and each game is yielded as soon as it is read, so memory holds one line and one
game, whatever the file's size; ``ReadLimits`` bounds both (see ``games.records``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from taldau.base.records import (
    SGF_GAMES,
    HeaderNames,
    ReadLimits,
    RecordError,
    RecordFile,
    RecordLine,
    StrayText,
    UnreadableFile,
    append_error,
    excerpt,
    sgf_game,
    text_lines,
)

from .notation import TUZDYK_MARKS, MoveText, NotationError, add_suffix, parse_move

FORMATS = ("playok", "export", "book", "compact", "scoresheet")
# The results as written (after the moves or in the ``Result`` tag) and as read; ``*`` is no result.
RESULTS = {
    "1-0": "1-0",
    "0-1": "0-1",
    "1/2-1/2": "1/2-1/2",
    "½-½": "1/2-1/2",
    "0.5-0.5": "1/2-1/2",
    "*": None,
}
# The tags read under one spelling whatever their case (PGN's seven, the ratings, times and set-up tags that
# PlayOK, lichess-like sites and apps write); an app's ``Start`` (when the game started, date and time) is
# the game's ``Date`` where the record has none.
HEADERS = HeaderNames(
    [
        "Event",
        "Site",
        "Date",
        "Round",
        "White",
        "Black",
        "Result",
        "WhiteElo",
        "BlackElo",
        "Time",
        "TimeControl",
        "EventDate",
        "UTCDate",
        "UTCTime",
        "Termination",
        "Annotator",
        "PlyCount",
        "FEN",
        "SetUp",
        "WhiteTime",
        "BlackTime",
        "WhiteTitle",
        "BlackTitle",
        "ID",
    ],
    {"Start": "Date"},
)
NO_GAME_TEXT = "no game record: text with no move, move number, tag or result"
# The 8-bit code pages of Togyz archives that are not UTF-8, most used first: Kazakh and Russian ones
# (Windows-1251), then Western European ones (Windows-1252, Latin-1's superset).
ENCODINGS = ("cp1251", "cp1252")


@dataclass(frozen=True)
class MoveNumber:
    """A move number token such as ``12.`` (White to move) or ``12...`` (Black to move)."""

    number: int
    black: bool
    line: int
    column: int


@dataclass(frozen=True)
class UnreadableMovetext:
    """Where movetext could not be read; the replay stops here, the error itself is in ``errors``."""

    line: int
    column: int


@dataclass
class GameRecord:
    """One game as read from a record: headers, movetext items and the recorded result, not yet replayed.

    ``index`` counts games from 1 within ``source``; index 0 stands for the source itself when it holds no
    readable game at all (empty, binary). ``items`` holds moves, move numbers and unreadable spots in
    written order.
    ``result`` is the result after the moves, else the ``Result`` tag's (``result_from_tag``), ``result_at``
    where it is written. ``final_score`` is the (White, Black) score prefix of compact strings. ``errors``
    holds what went wrong while reading, ``warnings`` what is merely odd (a ``Result`` tag that disagrees
    with the movetext); the replay adds its own.
    """

    source: str
    index: int
    format: str
    line: int
    headers: dict[str, str] = field(default_factory=dict)
    items: list[MoveText | MoveNumber | UnreadableMovetext] = field(default_factory=list)
    result: str | None = None
    result_at: tuple[int, int] | None = None
    result_from_tag: bool = False
    comments: list[str] = field(default_factory=list)
    final_score: tuple[int, int] | None = None
    errors: list[RecordError] = field(default_factory=list)
    warnings: list[RecordError] = field(default_factory=list)

    @property
    def moves(self) -> list[MoveText]:
        """The recorded moves, in order."""
        return [item for item in self.items if isinstance(item, MoveText)]

    def add_error(self, line: int, column: int, message: str) -> None:
        """Attach a reading error."""
        append_error(self.errors, line, column, message)

    def add_warning(self, line: int, column: int, message: str) -> None:
        """Attach a reading warning."""
        append_error(self.warnings, line, column, message)

    def take_result_tag(self, at: tuple[int, int]) -> None:
        """Settle the result with the ``Result`` tag written at ``at``: the tag's when the movetext has none
        (or ``*``), a warning when both are known and disagree, or when the tag is no result."""
        tag = self.headers.get("Result", "").strip()
        if not tag:
            return
        if tag not in RESULTS:
            self.add_warning(*at, f"Result tag {excerpt(tag)} is not 1-0, 0-1, 1/2-1/2 or *: ignored")
            return
        tagged = RESULTS[tag]
        if tagged is None:
            return
        if self.result is None:
            self.result, self.result_at, self.result_from_tag = tagged, at, True
        elif self.result != tagged:
            where = f" (line {self.result_at[0]})" if self.result_at else ""
            message = f"Result tag {tag} disagrees with the result {self.result} after the moves{where}"
            self.add_warning(*at, f"{message}: the moves' result is kept")


def read_records(data: bytes, source: str, limits: ReadLimits | None = None) -> Iterator[GameRecord]:
    """Every game record in one file's bytes (see ``read_file``), within ``limits`` (the defaults if None)."""
    yield from read_file(RecordFile.of_bytes(data, source, limits or ReadLimits(), ENCODINGS))


def read_file(file: RecordFile) -> Iterator[GameRecord]:
    """Every game record of a record file, in the format detected for it, read line by line and yielded one
    game at a time. A file with no game record yields one index-0 record saying why (empty, prose, an SGF of
    another game, skipped by its name: ``RecordFile.skipped``); a file that cannot be read on (changed under
    the reader, say) ends with one."""
    if file.skipped is not None:
        yield _file_record(file.name, file.skipped)
        return
    try:
        other = sgf_game(file.lines())
        if other is not None:
            game = SGF_GAMES.get(other, f"game {other}")
            yield _file_record(file.name, f"a {game} SGF (GM[{other}]), not a game taldau reads")
            return
        scan = _scan(file.lines())
    except UnreadableFile as error:
        yield _file_record(file.name, str(error))
        return
    if scan.prose:
        yield _file_record(file.name, NO_GAME_TEXT)
        return
    found = False
    try:
        for record in _read(scan.form, file.lines(), file.name, file.limits):
            found = True
            yield record
    except UnreadableFile as error:
        yield _file_record(file.name, f"reading stopped: {error}")
        return
    if not found:
        empty = "empty file: no game record found"
        yield _file_record(file.name, "no game found" if scan.has_text else empty)


def read_text(text: str, source: str, limits: ReadLimits | None = None) -> Iterator[GameRecord]:
    """Every game record in ``text``, in the format detected for it (prose too: it is read as movetext)."""
    yield from _read(_scan(text_lines(text)).form, text_lines(text), source, limits or ReadLimits())


def _read(form: str, lines: Iterable[RecordLine], source: str, limits: ReadLimits) -> Iterator[GameRecord]:
    if form == "compact":
        return _read_compact(lines, source, limits)
    return _MovetextReader(source, form, limits).read(lines)


def _file_record(source: str, message: str) -> GameRecord:
    """The index-0 record standing for a file with no readable game."""
    record = GameRecord(source, 0, "unknown", 1)
    record.add_error(1, 1, message)
    return record


_COMPACT_LINE = re.compile(r"(?:(?P<white>\d{1,9})\s*-\s*(?P<black>\d{1,9})\s*,\s*)?(?P<plies>[1-9]+)")
_BOOK_LINE = re.compile(r"[ \t]*(?:\d+\.\t|Result[ \t]+\d)")
_SCORESHEET_MOVE = re.compile(r"(?<![\w/.])[1-9]\d*[:\-][1-9]\d*(?![\w/])")
_EXPORT_LINE = re.compile(r"\d+\.\s*\S+(?:\s+\S+)?(?:\s+(?:1-0|0-1|1/2-1/2|\*))?")
_HEADER_LINE = re.compile(r"[ \t]*\[")
# What the lines of the other formats hold and prose does not: a tag pair, a move number (``12.``) or a
# result after moves.
_MOVETEXT_HINT = re.compile(r"^[ \t]*\[|(?<![\w.])\d{1,9}\.(?!\d)|(?:^|\s)(?:1-0|0-1|1/2-1/2)(?:\s|$)")


def detect_format(text: str) -> str:
    """Which of FORMATS ``text`` is written in (``playok`` when nothing more specific fits)."""
    return _scan(text_lines(text)).form


class _Scan(NamedTuple):
    """What a first look at a file's lines found: its format, whether it holds any text, and whether that
    text is prose (no game record: see ``_scan``)."""

    form: str
    has_text: bool
    prose: bool = False


def _is_move_word(word: str) -> bool:
    """Whether a word of movetext reads as a move, or as the suffix of the move before one (``(10)``)."""
    if word[0] in _SUFFIX_STARTS:
        return True
    try:
        parse_move(word, 0, 0)
    except NotationError:
        return False
    return True


def _scan(lines: Iterable[RecordLine]) -> _Scan:
    """The format of a file's lines (see ``detect_format``), whether it holds any text, and whether that
    text is prose, holding nothing of a game record: no tag pair, move number, result, compact string or
    book line, and fewer words that read as moves than words that do not (a note may hold a number or two).
    Refused lines (too long to read) count as text, never as prose, and say nothing about the format."""
    compact = export = scoresheet = False
    not_export = has_text = False
    movetext = False  # a line that is no compact string holds moves or headers (of another format)
    refused = False
    moves = others = 0  # words that read as moves and words that do not, while no line shows movetext
    for line in lines:
        if line.refused is not None:
            has_text = refused = True
            continue
        stripped = line.text.strip()
        if not stripped:
            continue
        has_text = True
        if _BOOK_LINE.match(line.text):
            return _Scan("book", True)  # a book line is never compact, and book comes before the rest
        if _COMPACT_LINE.fullmatch(stripped) is not None:
            compact = True
        elif _MOVETEXT_HINT.search(line.text) is not None:
            movetext = True
        elif not movetext and not compact:
            words = [match.group() for match in _TOKEN.finditer(line.text) if match.lastgroup == "word"]
            read_as_moves = sum(map(_is_move_word, words))  # words of comments are not counted
            moves, others = moves + read_as_moves, others + len(words) - read_as_moves
        if _HEADER_LINE.match(line.text):
            continue
        if not scoresheet and any(
            match.group() not in ("1-0", "0-1") for match in _SCORESHEET_MOVE.finditer(line.text)
        ):
            scoresheet = True
        if not not_export:
            if _EXPORT_LINE.fullmatch(stripped) is None:
                not_export = True
            else:
                export = True
    if compact and not movetext:  # compact strings, and perhaps a title or notes (prose) between them
        return _Scan("compact", has_text)
    prose = not (movetext or compact or refused) and others > moves
    if scoresheet:
        return _Scan("scoresheet", has_text, prose)
    if export and not not_export:
        return _Scan("export", has_text, prose)
    return _Scan("playok", has_text, prose)


def _read_compact(lines: Iterable[RecordLine], source: str, limits: ReadLimits) -> Iterator[GameRecord]:
    """Compact strings: each line one game, each digit the origin pit of one ply. Other lines (a title, a
    note) are skipped, each run of them a warning of the game after it (the last game's, at the end)."""
    index = 0
    stray, before = StrayText(), list[RecordError]()  # the warnings of the text before the next game
    held: GameRecord | None = None  # the game read last, held back for the text after it
    for line in lines:
        record = _compact_record(line, index + 1, source, limits)
        if record is None:
            if line.text.strip():
                column = len(line.text) - len(line.text.lstrip()) + 1
                stray.add(before, line.number, column, line.text.strip())
            continue
        index += 1
        record.warnings[:0], before = before, []
        if held is not None:
            yield held
        held = record
    if held is not None:
        held.warnings += before
        yield held


def _compact_record(line: RecordLine, index: int, source: str, limits: ReadLimits) -> GameRecord | None:
    """The game of one line of a compact file, None for a line that holds none."""
    if line.refused is not None:
        record = GameRecord(source, index, "compact", line.number)
        record.add_error(line.number, 1, line.refused)
        record.items.append(UnreadableMovetext(line.number, 1))
        return record
    match = _COMPACT_LINE.fullmatch(line.text.strip())
    if match is None:
        return None
    offset = len(line.text) - len(line.text.lstrip()) + match.start("plies")
    record = GameRecord(source, index, "compact", line.number)
    if match.group("white") is not None:
        record.final_score = (int(match.group("white")), int(match.group("black")))
    plies = match.group("plies")
    for position, digit in enumerate(plies[: limits.max_plies]):
        column = offset + position + 1
        record.items.append(MoveText(int(digit), None, digit, line.number, column))
    if len(plies) > limits.max_plies:
        column = offset + limits.max_plies + 1
        record.add_error(line.number, column, limits.game_cut)
        record.items.append(UnreadableMovetext(line.number, column))
    return record


_TOKEN = re.compile(
    r"""
    (?P<header>^[ \t]*\[.*)
    |(?P<book_result>^[ \t]*Result[ \t].*)
    |(?P<comment>\{[^}]*\}?)
    |(?P<line_comment>;.*)
    |(?P<word>[^\s{};]+)
    """,
    re.VERBOSE,
)
_HEADER = re.compile(r'\[\s*(?P<name>[A-Za-z][A-Za-z0-9_]*)\s+"(?P<value>(?:[^"\\]|\\.)*)"\s*\]')
_ESCAPE = re.compile(r'\\([\\"])')  # PGN's two escapes in a tag's value: \\ and \"
_BOOK_RESULT = re.compile(
    r"Result\s+(?P<white>[01](?:[,.]5)?|0?[,.]5)\s*[-–]\s*(?P<black>[01](?:[,.]5)?|0?[,.]5)"
)
_MOVE_NUMBER = re.compile(r"(?P<number>\d{1,9})\.(?P<black>\.\.)?(?P<rest>.*)")
_SUFFIX_STARTS = "(!?=" + TUZDYK_MARKS  # a word starting so is a detached suffix of the move before: (10), !


def _book_result(text: str) -> str | None:
    """``Result 1 - 0`` / ``Result 0,5 - 0,5`` as ``1-0`` / ``1/2-1/2``; None if unreadable."""
    match = _BOOK_RESULT.fullmatch(text.strip())
    if match is None:
        return None
    white, black = (float(match.group(side).replace(",", ".")) for side in ("white", "black"))
    return {(1.0, 0.0): "1-0", (0.0, 1.0): "0-1", (0.5, 0.5): "1/2-1/2"}.get((white, black))


@dataclass
class _Comment:
    """A ``{`` comment still open at the end of a line: where it opened and its text so far."""

    record: GameRecord | None
    line: int
    column: int
    parts: list[str]
    length: int


class _MovetextReader:
    """PGN-like text (playok, export, book, scoresheet), line by line: headers, move numbers, moves, results
    and comments, a record yielded as soon as the next one starts.

    A game keeps at most ``max_plies`` moves, twice as many movetext items and as many headers and comments;
    past that the rest of the game is only scanned for where the next game starts. A refused line (too long)
    is an error of the game it falls in, which stops there."""

    def __init__(self, source: str, form: str, limits: ReadLimits) -> None:
        self.source = source
        self.form = form
        self.limits = limits
        self.record: GameRecord | None = None
        self.index = 0
        self.in_movetext = False  # the current record has had movetext (valid or not) after its headers
        self.plies = 0  # moves kept in the current record
        self.cut = False  # the current record reached a limit: the rest of it is not kept
        self.comment: _Comment | None = None
        self.result_tag_at: tuple[int, int] | None = None  # where the current record's Result tag is
        self.finished: list[GameRecord] = []

    def read(self, lines: Iterable[RecordLine]) -> Iterator[GameRecord]:
        """The records of ``lines``, each yielded when the next one starts (the last at the end)."""
        for line in lines:
            self.read_line(line)
            yield from self.finished
            self.finished.clear()
        if self.comment is not None:
            self.close_comment(closed=False)
        if self.record is not None:
            self.finish(self.record)
            yield self.record

    def finish(self, record: GameRecord) -> None:
        """Settle a record read to its end: its headers' aliases (``HEADERS``), its result with its
        ``Result`` tag."""
        record.headers = HEADERS.settled(record.headers)
        if self.result_tag_at is not None:
            record.take_result_tag(self.result_tag_at)

    def new_record(self, line: int) -> GameRecord:
        """Finish the current record (if any) and start the next."""
        if self.record is not None:
            self.finish(self.record)
            self.finished.append(self.record)
        self.index += 1
        self.in_movetext = False
        self.plies = 0
        self.cut = False
        self.result_tag_at = None
        self.record = GameRecord(self.source, self.index, self.form, line)
        return self.record

    def read_line(self, line: RecordLine) -> None:
        """Read one line: the rest of an open comment first, then its tokens."""
        if line.refused is not None:
            self.refuse(line.number, line.refused)
            return
        text = line.text
        start = 0
        if self.comment is not None:
            end = text.find("}")
            self.add_to_comment(text if end < 0 else text[:end])
            if end < 0:
                return
            self.close_comment(closed=True)
            start = end + 1
        for match in _TOKEN.finditer(text, start):  # white space lies between the tokens
            if match.lastgroup != "line_comment":
                self.read_token(match, line.number)

    def refuse(self, number: int, reason: str) -> None:
        """Line ``number`` was not read (too long, not text): an error in the game it falls in, which stops
        there."""
        if self.comment is not None:
            self.close_comment(closed=False)
        record = self.record
        if record is None or record.result_at is not None:
            record = self.new_record(number)
        self.in_movetext = True  # as any unreadable movetext: headers after it start the next game
        record.add_error(number, 1, reason)
        self.keep(record, UnreadableMovetext(number, 1))

    def keep(self, record: GameRecord, item: MoveText | MoveNumber | UnreadableMovetext) -> None:
        """Add a movetext item to the record, unless it is past the game's limits (then say so once)."""
        if self.cut:
            return
        if self.plies < self.limits.max_plies and len(record.items) < 2 * self.limits.max_plies:
            if isinstance(item, MoveText):
                self.plies += 1
            record.items.append(item)
            return
        if isinstance(item, MoveText) and self.plies >= self.limits.max_plies:
            message = self.limits.game_cut
        elif len(record.items) >= 2 * self.limits.max_plies:
            items = f"{2 * self.limits.max_plies:,}"
            message = f"more than {items} movetext items in one game (the limit): the rest is not read"
        else:
            if isinstance(item, MoveText):
                self.plies += 1
            record.items.append(item)
            return
        self.cut = True
        record.add_error(item.line, item.column, message)
        record.items.append(UnreadableMovetext(item.line, item.column))

    def add_to_comment(self, text: str) -> None:
        comment = self.comment
        assert comment is not None
        if comment.length <= self.limits.max_token_chars:
            comment.parts.append(text)
        comment.length += len(text) + 1

    def close_comment(self, closed: bool) -> None:
        """Store the open comment in its record: it was closed by ``}``, or never was."""
        comment = self.comment
        assert comment is not None
        self.comment = None
        record = comment.record
        if record is None:
            return
        if not closed:
            record.add_error(comment.line, comment.column, "comment '{' is never closed")
        if comment.length > self.limits.max_token_chars:
            message = f"comment longer than the limit of {self.limits.max_token_chars:,} characters"
            record.add_error(comment.line, comment.column, message)
        elif not self.cut and len(record.comments) < self.limits.max_plies:
            record.comments.append("\n".join(comment.parts).strip("{}").strip())

    def read_token(self, match: re.Match[str], line: int) -> None:
        """Read one token of a line (not a space or a ``;`` comment)."""
        kind = match.lastgroup
        value = match.group()
        column = match.start() + 1
        if kind != "word":  # headers and book results may start with blanks; only they and comments end so
            column += len(value) - len(value.lstrip())
            value = value.strip()
        if kind == "header":
            header = _HEADER.fullmatch(value)
            name = None if header is None else HEADERS.spelling(header.group("name"))
            # A header after movetext starts the next game, and so does a tag the game has already: a game
            # with no moves (a forfeit) whose result is only in its tag ends where the next one's tags start.
            if self.record is None or self.in_movetext or name in self.record.headers:
                self.new_record(line)
            record = self.record
            assert record is not None
            if header is None or name is None:
                reason = "header is not closed" if not value.endswith("]") else 'header is not [Name "value"]'
                record.add_error(line, column, f"{reason}: {value[:60]!r}")
            elif not self.cut and len(record.headers) < self.limits.max_plies:
                record.headers[name] = _ESCAPE.sub(r"\1", header.group("value")).strip()
                if name == "Result":
                    self.result_tag_at = (line, column)
            return

        if kind == "comment":
            self.comment = _Comment(self.record, line, column, [], 0)
            self.add_to_comment(value)
            if value.endswith("}"):
                self.close_comment(closed=True)
            return

        if len(value) > self.limits.max_token_chars:
            if self.record is None or self.record.result_at is not None:
                self.new_record(line)
            assert self.record is not None
            self.in_movetext = True
            message = f"token longer than the limit of {self.limits.max_token_chars:,} characters"
            self.record.add_error(line, column, f"{message}: {excerpt(value)}")
            self.keep(self.record, UnreadableMovetext(line, column))
            return

        # Everything else belongs to movetext: a result, a move number, a move or a detached suffix.
        number = _MOVE_NUMBER.fullmatch(value) if kind == "word" else None
        record = self.record
        starts_game = (
            record is None
            or record.result_at is not None
            or (
                number is not None
                and int(number.group("number")) == 1
                and not number.group("black")
                and self.plies > 0
            )
        )
        if starts_game:
            record = self.new_record(line)
        assert record is not None
        self.in_movetext = True

        if kind == "book_result":
            result = _book_result(value)
            if result is None:
                record.add_error(line, column, f"unreadable result line {excerpt(value)}")
                self.keep(record, UnreadableMovetext(line, column))
            record.result, record.result_at = result, (line, column)
            return
        if value in RESULTS:
            record.result, record.result_at = RESULTS[value], (line, column)
            return
        if number is not None:
            written = MoveNumber(int(number.group("number")), bool(number.group("black")), line, column)
            self.keep(record, written)
            value = number.group("rest")
            column += number.start("rest")
            if not value:
                return
        if self.cut:
            return
        if value[0] in _SUFFIX_STARTS and record.items and isinstance(record.items[-1], MoveText):
            merged = add_suffix(record.items[-1], value)
            if merged is None:
                message = f"{excerpt(value)} repeats a claim already made for the move before"
                record.add_error(line, column, message)
                self.keep(record, UnreadableMovetext(line, column))
            else:
                record.items[-1] = merged
            return
        try:
            move = parse_move(value, line, column)
        except NotationError as error:
            record.add_error(line, column, str(error))
            self.keep(record, UnreadableMovetext(line, column))
            return
        if self.plies < self.limits.max_plies and len(record.items) < 2 * self.limits.max_plies:
            self.plies += 1  # the common case of ``keep``, inline: most tokens are moves
            record.items.append(move)
        else:
            self.keep(record, move)
