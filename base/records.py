"""What every game's record readers share: the limits of a read, the error type that points into a record, a
capped error list, and record files read as decoded lines.

A record file is read line by line, never whole: bytes are decoded per line, as UTF-8 where they are (a
UTF-8 BOM is dropped and UTF-16 with a BOM is decoded), else in the file's 8-bit code page, and a line longer
than the limit is skipped through without being kept, so that reading costs memory for one line and one game,
not for the file.

The code page of a file that is not all UTF-8 is detected once, on its first lines that are not (at most
DETECT_BYTES of them), by charset-normalizer; where that is unsure (short texts: a name or two), the code
pages the game's players use win (``RecordFile.encodings``: Windows-1251 for Kazakh and Russian Togyz
archives, Windows-1252 for backgammon sites), as long as they read the text no worse.
"""

from __future__ import annotations

import codecs
import io
import re
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import BinaryIO, NamedTuple

import charset_normalizer

MAX_ERRORS_PER_GAME = 10
EXCERPT_CHARS = 40  # how much of a token or line an error message quotes
MAX_MESSAGE_CHARS = 300  # an error message longer than this is shortened, whatever it quotes
KIB = 1024
MIB = 1024 * KIB
CHUNK_BYTES = 64 * KIB  # how much of a file is read at a time
BINARY_SNIFF_BYTES = 8000  # a NUL byte this early makes a file binary (as git decides)
DETECT_BYTES = 64 * KIB  # at most this much of a file's lines that are not UTF-8 tells its code page
FALLBACK_ENCODING = "cp1252"  # the code page of a file no game prefers one for and detection cannot place


@dataclass(frozen=True)
class ReadLimits:
    """How much a read of records may take; what lies past a limit is refused with a positioned error.

    ``max_plies``: the longest game read, in plies (backgammon: actions); a longer game is cut there, an error
    in that game. ``max_line_bytes``: the longest line; a longer one is skipped, an error in the game it falls
    in. ``max_token_chars``: the longest token (a move or other word, a comment, an SGF property value).
    ``max_member_bytes``: the largest archive member or decompressed ``.gz`` file. ``max_ratio``: the highest
    compression ratio (bytes out per byte in) of an archive member, a ``.gz`` file or a compressed tar,
    checked once more than ``ratio_grace_bytes`` came out.
    """

    max_plies: int = 10_000
    max_line_bytes: int = 1 * MIB
    max_token_chars: int = 10_000
    max_member_bytes: int = 256 * MIB
    max_ratio: int = 100
    ratio_grace_bytes: int = 1 * MIB

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"ReadLimits.{name} must be a positive integer, not {value!r}")

    @property
    def game_cut(self) -> str:
        """The error of a game cut at ``max_plies``."""
        return f"more than {self.max_plies:,} plies in one game (the limit): the rest of the game is not read"


def excerpt(text: str) -> str:
    """``text`` quoted for a message: whole when short, else its start and its length."""
    if len(text) <= EXCERPT_CHARS:
        return repr(text)
    return f"{text[:EXCERPT_CHARS]!r}... ({len(text):,} characters)"


@dataclass(frozen=True)
class RecordError:
    """A problem in a record, at a 1-based line and column of its source (0 when not tied to one).

    A message longer than MAX_MESSAGE_CHARS is shortened, so that no record can make a report huge."""

    line: int
    column: int
    message: str

    def __post_init__(self) -> None:
        if len(self.message) > MAX_MESSAGE_CHARS:
            half = MAX_MESSAGE_CHARS // 2
            shortened = f"{self.message[:half]} [...] {self.message[-half:]}"
            object.__setattr__(self, "message", shortened)

    def __str__(self) -> str:
        return f"line {self.line}, column {self.column}: {self.message}"


def append_error(
    errors: list[RecordError], line: int, column: int, message: str, what: str = "errors"
) -> None:
    """Append an error (or, ``what`` saying so, a warning) to a game's list, in the order found, keeping at
    most MAX_ERRORS_PER_GAME and a note that more exist."""
    if len(errors) < MAX_ERRORS_PER_GAME:
        errors.append(RecordError(line, column, message))
    elif len(errors) == MAX_ERRORS_PER_GAME:
        errors.append(RecordError(line, column, f"further {what} in this game are not listed"))


def capped(errors: list[RecordError], what: str = "errors") -> list[RecordError]:
    """``errors`` (of a game and of what came before it, in order) as ``append_error`` keeps them: at most
    MAX_ERRORS_PER_GAME, then one note that more exist."""
    if len(errors) <= MAX_ERRORS_PER_GAME + 1:
        return errors
    more = errors[MAX_ERRORS_PER_GAME]
    return [
        *errors[:MAX_ERRORS_PER_GAME],
        RecordError(more.line, more.column, f"further {what} in this game are not listed"),
    ]


@dataclass
class _StrayRun:
    """The run of stray lines being read: the list its warning is in, at which place, where it starts, what
    it quotes, and its last line."""

    warnings: list[RecordError]
    place: int
    line: int
    column: int
    quote: str
    last_line: int


class StrayText:
    """Text outside any game (a file's title line, a note between two games, a record of the other game
    pasted above): skipped, and told as a warning of the game it stands next to, never an error of it.
    Adjacent stray lines are one warning, which quotes the first and says which lines it covers."""

    def __init__(self) -> None:
        self.run: _StrayRun | None = None

    def add(self, warnings: list[RecordError], line: int, column: int, text: str) -> None:
        """A stray line ``text`` at ``line`` and ``column``, told in ``warnings``."""
        run = self.run
        if run is not None and run.warnings is warnings and run.last_line == line - 1:
            run.last_line = line
            message = f"text outside any game, lines {run.line}-{line}, skipped: {run.quote}"
            warnings[run.place] = RecordError(run.line, run.column, message)
            return
        quote = excerpt(text)
        if len(warnings) >= MAX_ERRORS_PER_GAME:
            append_error(warnings, line, column, f"text outside any game, skipped: {quote}", "warnings")
            self.run = None
            return
        warnings.append(RecordError(line, column, f"text outside any game, skipped: {quote}"))
        self.run = _StrayRun(warnings, len(warnings) - 1, line, column, quote, line)


class HeaderNames:
    """The header names a game's readers know, each in its one spelling, so that every lookup of a header
    (a rating, a date, a player) is by that spelling alone: a record's header named so in another case
    (``WhiteELO``, ``player 1``) is read under it (``spelling``), and one named by an alias (an app's
    ``Start`` for PGN's ``Date``) under the name it stands for, where the record has no header of that name
    (``settled``). Names the readers do not know keep the spelling they are written in."""

    def __init__(self, names: Iterable[str], aliases: Mapping[str, str] | None = None) -> None:
        self.aliases: Mapping[str, str] = MappingProxyType(dict(aliases or {}))
        spellings = {name.casefold(): name for name in (*names, *self.aliases)}
        self._spellings: Mapping[str, str] = MappingProxyType(spellings)

    def spelling(self, name: str) -> str:
        """``name`` as the readers spell it (``WhiteElo`` for ``WHITEELO``), or as written when unknown."""
        return self._spellings.get(name.casefold(), name)

    def settled(self, headers: dict[str, str]) -> dict[str, str]:
        """``headers`` (read under ``spelling``) with each alias renamed, in its place, to the name it stands
        for where ``headers`` has no header of that name; ``headers`` itself when no alias applies."""
        renamed = {
            alias: name for alias, name in self.aliases.items() if alias in headers and name not in headers
        }
        if not renamed:
            return headers
        return {renamed.get(name, name): value for name, value in headers.items()}


# The games of SGF's ``GM`` property (the SGF specification's list) that a message names; others are named
# by their number.
SGF_GAMES = {
    1: "Go",
    2: "Othello",
    3: "chess",
    4: "Gomoku",
    5: "Nine Men's Morris",
    6: "backgammon",
    7: "xiangqi",
    8: "shogi",
}
SGF_HEAD_LINES = 64  # an SGF's first node, where its GM stands, is looked for in this many lines
_SGF_GM = re.compile(r"\bGM\s*\[\s*(\d{1,9})\s*\]")


def sgf_game(lines: Iterable[RecordLine]) -> int | None:
    """The game an SGF text is of, by the ``GM`` property of its first lines (``1`` Go, ``6`` backgammon:
    ``SGF_GAMES``); None for a text that does not open as an SGF game tree (``(;``) or names no game there."""
    head = ""
    for line in lines:
        if line.number > SGF_HEAD_LINES:
            return None
        if line.refused is not None:
            continue
        if not head:
            head = "".join(line.text.split())[:2]
            if not head:
                continue
            if head[0] != "(":
                return None
        found = _SGF_GM.search(line.text)
        if found is not None:
            return int(found.group(1))
    return None


class UnreadableFile(Exception):
    """A record file that cannot be read (on): not text, an I/O error, a broken or refused archive member."""


class RecordLine(NamedTuple):
    """One line of a record file, without its line break. ``refused`` says why a line was not read (too long,
    NUL bytes), quoting its start; its ``text`` is then empty."""

    number: int
    text: str
    refused: str | None = None


@dataclass(frozen=True)
class RecordFile:
    """A record file: its display name, how to open its bytes, and the limits its reading keeps to.

    ``encodings``: the 8-bit code pages its game's records are written in, most used first, preferred when
    the detection of a file that is not UTF-8 is unsure (none: detection alone decides); a game's kind reads
    its files with its own (``preferring``).

    ``lines`` reads it from the start each time it is called, so a reader may look at a file before reading
    it. Opening must give a fresh stream each time. ``skipped``: why a file is not read at all (``not_read``).
    """

    name: str
    open: Callable[[], BinaryIO]
    limits: ReadLimits
    encodings: tuple[str, ...] = ()
    skipped: str | None = None

    @classmethod
    def not_read(cls, name: str, reason: str, limits: ReadLimits) -> RecordFile:
        """A file whose name says it holds no record (``notes.md``, ``games.pgn.bak``), not read: no lines,
        and ``skipped`` the ``reason``, so that each game's reader finds no game in it and says why."""
        return cls(name, lambda: io.BytesIO(b""), limits, skipped=reason)

    @classmethod
    def of_bytes(
        cls, data: bytes, name: str, limits: ReadLimits, encodings: tuple[str, ...] = ()
    ) -> RecordFile:
        """A record file held in memory."""
        return cls(name, lambda: io.BytesIO(data), limits, encodings)

    def preferring(self, encodings: tuple[str, ...]) -> RecordFile:
        """The same file, read with ``encodings`` preferred where detection is unsure."""
        return replace(self, encodings=encodings)

    def lines(self) -> Iterator[RecordLine]:
        """The lines of the file, decoded; raises UnreadableFile for a file that is not text (a NUL byte in
        its first BINARY_SNIFF_BYTES) or that cannot be read on."""
        try:
            with self.open() as stream:
                yield from _lines(stream, self.limits.max_line_bytes, self.encodings)
        except (OSError, EOFError, zlib.error) as error:
            raise UnreadableFile(f"cannot read: {error}") from error


def text_lines(text: str) -> Iterator[RecordLine]:
    """The lines of a text already in memory (line breaks as in files: ``\\n``, ``\\r\\n``, ``\\r``)."""
    lines = _split_text(text)
    if not lines[-1]:
        lines.pop()  # the text ends with a line break, or is empty
    for number, line in enumerate(lines, start=1):
        yield RecordLine(number, line)


_BREAK = re.compile(rb"\r\n|\r|\n")
_BREAK_TEXT = re.compile(r"\r\n|\r|\n")
_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)


def _split_text(text: str) -> list[str]:
    """``text`` split at its line breaks (most texts have only ``\\n``: split ten times as fast)."""
    return text.split("\n") if "\r" not in text else _BREAK_TEXT.split(text)


def read_at_least(stream: BinaryIO, size: int) -> bytes:
    """At least ``size`` bytes of ``stream`` (fewer only at its end); streams may return short reads."""
    parts: list[bytes] = []
    total = 0
    while total < size:
        chunk = stream.read(max(size - total, CHUNK_BYTES))
        if not chunk:
            break
        parts.append(chunk)
        total += len(chunk)
    return b"".join(parts)


def _chunks(stream: BinaryIO) -> Iterator[bytes]:
    """The bytes of ``stream`` as UTF-8 or 8-bit text: a UTF-8 BOM dropped, UTF-16 (with a BOM) re-encoded
    as UTF-8; raises UnreadableFile when it starts like a binary file."""
    head = read_at_least(stream, BINARY_SNIFF_BYTES)
    rest: Iterator[bytes] = iter(lambda: stream.read(CHUNK_BYTES), b"")
    if head.startswith(_UTF16_BOMS):
        decoder = codecs.getincrementaldecoder("utf-16")(errors="replace")
        head = decoder.decode(head).encode("utf-8", errors="replace")
        rest = _transcoded(rest, decoder)
    elif head.startswith(codecs.BOM_UTF8):
        head = head[len(codecs.BOM_UTF8) :]
    if b"\x00" in head[:BINARY_SNIFF_BYTES]:
        raise UnreadableFile("binary data (NUL bytes), not a text game record")
    yield head
    yield from rest


def _transcoded(chunks: Iterator[bytes], decoder: codecs.IncrementalDecoder) -> Iterator[bytes]:
    """Chunks decoded by ``decoder`` and encoded as UTF-8, with whatever the decoder holds at the end."""
    for chunk in chunks:
        yield decoder.decode(chunk).encode("utf-8", errors="replace")
    yield decoder.decode(b"", final=True).encode("utf-8", errors="replace")


_ASCII = "".join(map(chr, range(128)))


def _extends_ascii(encoding: str) -> bool:
    """Whether ``encoding`` is an 8-bit code page over ASCII: every byte one character, the first 128 as in
    ASCII (so that line breaks, moves and tags read the same whatever the code page)."""
    text = bytes(range(256)).decode(encoding, errors="replace")
    return len(text) == 256 and text[:128] == _ASCII


def legacy_encoding(sample: bytes, preferred: Sequence[str] = ()) -> str:
    """The 8-bit code page of ``sample``, text that is not UTF-8: charset-normalizer's best guess among the
    code pages over ASCII, unless one of the ``preferred`` code pages (in order) reads the sample with no
    more chaos (its measure of unlikely characters: a Cyrillic letter inside a Latin word, say) than that
    guess, which is what detection is unsure of in short texts. ``FALLBACK_ENCODING`` when nothing reads
    it."""
    sample = sample[:DETECT_BYTES]
    guess = next((m for m in charset_normalizer.from_bytes(sample) if _extends_ascii(m.encoding)), None)
    for encoding in preferred:
        match = charset_normalizer.from_bytes(sample, cp_isolation=[encoding]).best()
        if match is not None and (guess is None or match.chaos <= guess.chaos):
            return encoding
    if guess is not None:
        return guess.encoding
    return preferred[0] if preferred else FALLBACK_ENCODING


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def _decode(data: bytes, encoding: str) -> str:
    """A line's text: UTF-8, else the file's code page ``encoding``."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode(encoding, errors="replace")


def _lines(stream: BinaryIO, max_bytes: int, preferred: Sequence[str] = ()) -> Iterator[RecordLine]:
    """The decoded lines of ``stream``; a line over ``max_bytes`` is refused (its start kept for messages),
    as is a line holding NUL bytes. Lines that are not UTF-8 are read in the code page detected on the first
    block of lines that holds any (see ``legacy_encoding``), with ``preferred`` code pages first."""
    number = 0
    encoding: str | None = None  # the file's code page, once a line that is not UTF-8 is met
    for item in _split(_chunks(stream), max_bytes):
        if isinstance(item, tuple):
            start, length = item
            number += 1
            text = start.decode("utf-8", errors="replace")[:EXCERPT_CHARS]
            limit = f"longer than the limit of {max_bytes:,} bytes"
            yield RecordLine(number, "", f"line of {length:,} bytes, {limit}: {text!r}...")
            continue
        try:  # the common case: a block of lines in UTF-8, decoded at once
            texts = None if b"\x00" in item else _split_text(item.decode("utf-8"))
        except UnicodeDecodeError:
            texts = None
        if texts is not None:
            for text in texts:
                number += 1
                yield RecordLine(number, text)
            continue
        lines = _BREAK.split(item)
        if encoding is None:
            sample = b"\n".join(data for data in lines if b"\x00" not in data and not _is_utf8(data))
            encoding = legacy_encoding(sample, preferred) if sample else None
        for data in lines:
            number += 1
            text = _decode(data, encoding or FALLBACK_ENCODING)
            if b"\x00" in data:
                yield RecordLine(number, "", f"NUL bytes (binary data) in the line: {excerpt(text)}")
            else:
                yield RecordLine(number, text)


def _split(chunks: Iterator[bytes], max_bytes: int) -> Iterator[bytes | tuple[bytes, int]]:
    """The lines of a stream of chunks: blocks of whole lines, none longer than ``max_bytes`` (joined by their
    line breaks), and ``(start, length)`` for each line longer than that, whose rest is skipped unkept."""
    rest = b""  # the unfinished last line so far, never longer than max_bytes
    skipped: int | None = None  # the length so far of an over-long line being skipped
    head = b""  # the start of that line
    after_cr = False  # the last chunk ended with \r: a \n starting this one belongs to it
    for chunk in chunks:
        if after_cr and chunk.startswith(b"\n"):
            chunk = chunk[1:]
        data = rest + chunk
        after_cr = data.endswith(b"\r")
        body = data[:-1] if after_cr else data
        if skipped is None and len(body) <= max_bytes:  # the common case: no line here can be too long
            cut = len(body) if after_cr else max(body.rfind(b"\n"), body.rfind(b"\r"))
            if cut >= 0:  # the whole lines, without the break after the last of them
                yield body[: cut - 1 if body[cut - 1 : cut + 1] == b"\r\n" else cut]
            rest = body[cut + 1 :]
            continue
        pieces = _BREAK.split(body)
        rest = b"" if after_cr else pieces.pop()  # without a final break, the last piece goes on
        for piece in pieces:
            if skipped is not None:
                yield head, skipped + len(piece)
                skipped = None
            elif len(piece) > max_bytes:
                yield piece[: EXCERPT_CHARS * 4], len(piece)  # enough bytes for EXCERPT_CHARS characters
            else:
                yield piece
        if skipped is not None:
            skipped += len(rest)
            rest = b""
        elif len(rest) > max_bytes:
            head, skipped, rest = rest[: EXCERPT_CHARS * 4], len(rest), b""
    if skipped is not None:
        yield head, skipped
    elif rest:
        yield rest
