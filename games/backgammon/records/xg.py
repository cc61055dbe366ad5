"""Reading eXtreme Gammon's match files (``.xg``) into ``MatchRecord``s, with XG's own analysis of each
decision kept on its action (``record.Verdict``).

The layout is the one XG's maker publishes (extremegammon.com/XGformat.aspx): a header of 8,232 bytes that
opens with ``RGMH``, a JPEG thumbnail, then a ZLibArchive: compressed files, their directory (532 bytes an
entry) and 36 closing bytes that say where the directory and the files start and hold a CRC-32 of them. The
file read here is the archive's ``temp.xg``, a run of records of 2,560 bytes: a match header (players, event,
date, length, rules), then for each game a game header (its number and starting score), before each roll a
cube entry (the roller's cube decision and, when doubled, the answer: take, pass or beaver), a move entry
for each roll (the dice, the play, and XG's candidate plays with their equities) and a game footer (the
winner, the points and how the game ended: played out, passed, resigned), then a match footer. Rollouts
(``temp.xgr``), comments (``temp.xgc``) and the thumbnail are not read.

Players are numbered as in the other readers: player 0 is XG's player 1 (the left column of XG's ``.mat``
export), player 1 XG's player 2. A play is written as XG lists it, one checker move a segment (``24/23
23/22``), as XG's own ``.mat`` export writes it. A roll XG records as not played (dice rolled, then a
resignation) is a roll marked ``unrecorded``, as the ``????`` of a Jellyfish file. A resignation is the
game's result, as in Jellyfish files: the replay reads a game that ends unfinished with a winner as resigned.
A play XG flags as invalid (XG keeps such plays) carries the position XG records after it
(``Action.after``), which the replay takes, with a warning.

XG's analysis, where the file holds it, becomes one ``Verdict`` per decision: a checker play's best
candidate at its level and the error XG stored for the play made (``ErrMove``: XG's equity, cubeful, in the
match's context, EMG); a cube decision's best action from XG's equities of no double, double/take and
double/pass, and the errors XG stored (``ErrCube``, ``ErrTake``). A roll's action holds the verdict on not
doubling before it (where XG judged it) and then on its play.

What is wrong makes an error of the game it is found in (a record out of range: its number and kind named),
and that game's later records up to the next game are passed over; the other games are kept. A file cut
short or damaged keeps the games before the damage; one that inflates past ``ReadLimits`` (a zip bomb), that
is not XG's, or that is not a backgammon match (Nackgammon, Hypergammon, Longgammon) is one error, no game.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

import numpy as np
from taldau.base.records import (
    ReadLimits,
    RecordError,
    RecordFile,
    UnreadableFile,
    append_error,
    read_at_least,
)

from ..rules import board as core
from ..rules.cube import DecisionKind
from ..rules.position import Position, notation
from .record import OFF, Action, ActionKind, GameRecord, MatchRecord, Segment, Verdict
from .writer import format_action

FORMAT = "xg"
MAGIC = b"RGMH"  # the first bytes of every XG file (its header's magic number, $484D4752)
HEADER_BYTES = 8232  # XG's file header (TRichGameHeader)
TAIL = struct.Struct("<Iiiiii12x")  # the archive's closing record: CRC-32, files, version, sizes, flag
ENTRY = struct.Struct("<256s256siiiIBB2x")  # one file of the archive's directory
GAME_FILE = "temp.xg"
MAX_ARCHIVE_FILES = 64  # XG writes four; a directory claiming more is damaged
RECORD_BYTES = 2560
GAME_MAGIC = 0x494C4D44  # a match header's mark ("DMLI")
NOT_ANALYSED = -1000.0  # XG's error of a decision it did not analyse
UNLIMITED = 99999  # XG's match length of a money session
CHUNK_BYTES = 1 << 16
JUDGE = "XG"
EPOCH = datetime(1899, 12, 30)  # day 0 of a Delphi date (TDateTime)

# The kinds of record, by the ninth byte of each.
MATCH_HEADER, GAME_HEADER, CUBE, MOVE, GAME_FOOTER, MATCH_FOOTER = range(6)
CUBE_EVAL = struct.Struct("<7f")  # a cube entry's Eval: lose BG, lose G, lose, win, win G, win BG, equity
RECORD_NAMES = ("match header", "game header", "cube entry", "move entry", "game footer", "match footer")
VARIATIONS = ("backgammon", "Nackgammon", "Hypergammon", "Longgammon")
# XG's analysis levels (its PLAYERLEVEL table, and 998, which it gives opening plays from its book).
LEVELS = {
    0: "1-ply",
    1: "2-ply",
    2: "3-ply",
    3: "4-ply",
    4: "5-ply",
    5: "6-ply",
    6: "7-ply",
    12: "3-ply red",
    100: "rollout",
    998: "book",
    1000: "XG Roller",
    1001: "XG Roller+",
    1002: "XG Roller++",
}
# Where a match header holds what is read of it (offsets in the record).
MATCH_FIELDS = struct.Struct("<i i 4B d d i i d")  # at 92: length, variation, Crawford..., Elo, exp, date
UNICODE_FROM = 24  # the file version from which names are in UTF-16 (before: 8-bit strings)
TRANSCRIBER_FROM = 30
CUBE_LIMIT_FROM = 8
POSITION = struct.Struct("<26b")
CANDIDATES = 32


class XgError(ValueError):
    """A file or record that cannot be read as XG's; its message says what is wrong."""


def is_xg(file: RecordFile) -> bool:
    """Whether a record file is XG's, by its first bytes (XG's mark; its name does not decide: a match read
    from a ``.xg`` file travels to the analysis as Jellyfish text under the file's name); a file that cannot
    be opened is not."""
    try:
        with file.open() as stream:
            return read_at_least(stream, len(MAGIC))[: len(MAGIC)] == MAGIC
    except (OSError, EOFError, UnreadableFile, zlib.error):
        return False


def read_xg_file(file: RecordFile) -> Iterator[MatchRecord]:
    """The match of an XG file (one; with an error and no game when the file cannot be read)."""
    limits = file.limits
    try:
        with file.open() as stream:
            data = read_at_least(stream, limits.max_member_bytes + 1)
    except (OSError, EOFError, zlib.error) as error:
        yield MatchRecord.unreadable(file.name, f"cannot read: {error}", FORMAT)
        return
    except UnreadableFile as error:
        yield MatchRecord.unreadable(file.name, str(error), FORMAT)
        return
    if len(data) > limits.max_member_bytes:
        yield MatchRecord.unreadable(
            file.name, f"refused: larger than the limit of {limits.max_member_bytes:,} bytes", FORMAT
        )
        return
    yield read_xg(data, file.name, limits)


def read_xg(data: bytes, source: str, limits: ReadLimits | None = None) -> MatchRecord:
    """The match of an XG file's bytes: its games, or one error (and no game) when the file is not XG's, is
    refused or holds no match; problems of a game are errors of that game."""
    limits = limits or ReadLimits()
    try:
        contents = game_file(data, limits)
    except XgError as error:
        return MatchRecord.unreadable(source, str(error), FORMAT)
    return XgReader(source, limits).read(contents)


# --- the container ----------------------------------------------------------------------------------------


@dataclass
class GameFile:
    """The bytes of the archive's game file (``temp.xg``) as far as they could be read, why they end early
    (``cut``: a file cut short or damaged, None when whole), and what is odd about the container."""

    data: bytes
    cut: str | None = None
    warnings: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Stored:
    """Where the game file lies in the archive: its offset, compressed size (None: up to the archive's
    end), whether it is compressed, its size and CRC-32 (None where the directory could not be read)."""

    start: int
    size: int | None
    compressed: bool = True
    length: int | None = None
    crc: int | None = None


def game_file(data: bytes, limits: ReadLimits) -> GameFile:
    """The game file of an XG file's bytes; raises XgError for a file that is not XG's or inflates past the
    limits. The archive's directory, at the end of the file, says where the game file lies; a file cut short
    has none, and its game file is read from the archive's start as far as it goes."""
    if data[: len(MAGIC)] != MAGIC:
        raise XgError(f"not an eXtreme Gammon file: it does not open with XG's mark {MAGIC.decode()!r}")
    if len(data) < HEADER_BYTES:
        size = f"{len(data):,} of {HEADER_BYTES:,} bytes"
        raise XgError(f"the file ends inside XG's header ({size}): cut short")
    header_size, thumbnail_offset, thumbnail_size = struct.unpack_from("<Iqi", data, 8)
    archive_start = header_size + max(thumbnail_offset, 0) + max(thumbnail_size, 0)
    warnings: list[str] = []
    try:
        stored = _directory(data, limits, warnings)
    except XgError as error:
        if not HEADER_BYTES <= archive_start < len(data):
            raise XgError(f"{error}, and the header does not say where the archive starts") from error
        warnings.append(f"{error}: the games are read from the archive's start as far as they go")
        stored = Stored(archive_start, None)
    end = len(data) if stored.size is None else stored.start + stored.size
    if not stored.compressed:
        raw = data[stored.start : end]
        cut = None if stored.size is None or len(raw) == stored.size else "the game file is cut short"
        return GameFile(raw, cut, warnings)
    contents, cut = _inflate(memoryview(data)[stored.start : end], limits)
    if cut is None and stored.length is not None and len(contents) != stored.length:
        cut = f"the game file holds {len(contents):,} bytes where the archive says {stored.length:,}"
    if cut is None and stored.crc is not None and zlib.crc32(contents) != stored.crc:
        warnings.append("the game file's checksum does not match the archive's: it may be damaged")
    return GameFile(contents, cut, warnings)


def _directory(data: bytes, limits: ReadLimits, warnings: list[str]) -> Stored:
    """Where the archive's directory says the game file lies; raises XgError when there is no readable
    directory (a file cut short, say), and notes a checksum that does not match in ``warnings``."""
    if len(data) < HEADER_BYTES + TAIL.size:
        raise XgError("the archive's directory is missing")
    crc, files, _, directory_size, archive_size, compressed = TAIL.unpack_from(data, len(data) - TAIL.size)
    directory_start = len(data) - TAIL.size - directory_size
    archive_start = directory_start - archive_size
    if not (0 < files <= MAX_ARCHIVE_FILES and directory_size > 0 and archive_size >= 0) or not (
        HEADER_BYTES <= archive_start <= directory_start
    ):
        raise XgError("the archive's directory is missing or damaged (the file may be cut short)")
    if zlib.crc32(memoryview(data)[archive_start : len(data) - TAIL.size]) != crc:
        warnings.append("the archive's checksum does not match: the file may be damaged")
    raw = memoryview(data)[directory_start : len(data) - TAIL.size]
    if compressed:
        listing, cut = _inflate(raw, limits)
        if cut is not None:
            raise XgError(f"the archive's directory cannot be read ({cut})")
    else:
        listing = bytes(raw)
    for number in range(min(files, len(listing) // ENTRY.size)):
        name, _, length, size, start, file_crc, method, _ = ENTRY.unpack_from(listing, number * ENTRY.size)
        if name[1 : 1 + name[0]].decode("latin-1").lower() != GAME_FILE:
            continue
        if not (start >= 0 and size >= 0 and archive_start + start + size <= directory_start):
            raise XgError(f"the archive's directory puts {GAME_FILE} outside the archive")
        return Stored(archive_start + start, size, method == 0, length, file_crc)
    raise XgError(f"the archive holds no {GAME_FILE} (XG's game file)")


def _inflate(compressed: memoryview, limits: ReadLimits) -> tuple[bytes, str | None]:
    """The bytes of a zlib stream and why they end early (the stream damaged or cut short; None when it
    ends whole); raises XgError once more than ``max_member_bytes`` come out or, past the grace, more than
    ``max_ratio`` times the bytes they came from (a zip bomb)."""
    inflater = zlib.decompressobj()
    parts: list[bytes] = []
    produced = taken = 0
    pending = b""
    while not inflater.eof:
        if not pending:
            if taken >= len(compressed):
                return b"".join(parts), "the compressed game data ends early: the file is cut short"
            pending = bytes(compressed[taken : taken + CHUNK_BYTES])
            taken += len(pending)
        try:
            out = inflater.decompress(pending, CHUNK_BYTES)
        except zlib.error as error:
            return b"".join(parts), f"the compressed game data is damaged ({error})"
        pending = inflater.unconsumed_tail
        produced += len(out)
        used = max(taken - len(pending), 1)
        if produced > limits.max_member_bytes:
            raise XgError(f"refused: larger than the limit of {limits.max_member_bytes:,} bytes uncompressed")
        if produced > limits.ratio_grace_bytes and produced > limits.max_ratio * used:
            raise XgError(
                f"refused: compressed more than the limit of {limits.max_ratio}:1 ({produced:,} bytes from "
                f"{used:,}; a zip bomb?)"
            )
        parts.append(out)
    return b"".join(parts), None


# --- the records ------------------------------------------------------------------------------------------


def _short_string(record: bytes, offset: int, size: int) -> str:
    """A Delphi ``string[size]``: a length byte, then 8-bit text."""
    length = min(record[offset], size)
    return record[offset + 1 : offset + 1 + length].decode("cp1252", errors="replace").strip()


def _wide_string(record: bytes, offset: int) -> str:
    """XG's ``TShortUnicodeString``: 129 UTF-16 characters, ended by a NUL."""
    text = record[offset : offset + 258].decode("utf-16-le", errors="replace")
    return text.split("\0", 1)[0].strip()


def _i32(record: bytes, offset: int) -> int:
    return int(struct.unpack_from("<i", record, offset)[0])


def _f64(record: bytes, offset: int) -> float:
    return float(struct.unpack_from("<d", record, offset)[0])


def level_name(level: int) -> str:
    """An XG analysis level by its name (``4-ply``, ``XG Roller++``)."""
    return LEVELS.get(level, f"level {level}")


def mover_board(cells: tuple[int, ...]) -> np.ndarray:
    """The (2, 25) board, in gnubg's order, of one of XG's positions seen from the mover's side (26 counts:
    index 1..24 the points, the mover's checkers positive and the opponent's negative, 25 the mover's bar,
    0 the opponent's); raises ValueError when it is no legal arrangement."""
    board = np.zeros((2, core.ROW), dtype=np.int8)
    for point in range(1, 25):
        count = cells[point]
        if count > 0:
            board[core.MOVER, point - 1] = count
        elif count < 0:
            board[core.OPPONENT, 24 - point] = -count
    board[core.MOVER, core.BAR] = abs(cells[25])
    board[core.OPPONENT, core.BAR] = abs(cells[0])
    return Position(board).board


def _checker_moves(values: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    """XG's list of checker moves (from, to pairs of 0-based points, 24 the bar, a ``to`` below 0 off: the
    point the die would reach; ended by a ``from`` of -1) in our points (bar 25, off 0); raises ValueError
    for a move that is none."""
    moves: list[tuple[int, int]] = []
    for at in range(0, len(values), 2):
        start, end = values[at], values[at + 1]
        if start == -1:
            break
        if not (0 <= start <= 24 and end < start <= end + 6):
            raise ValueError(f"checker move from {start} to {end} (XG's numbers) is none")
        moves.append((start + 1, end + 1 if end >= 0 else OFF))
    return tuple(moves)


def _segments(moves: tuple[tuple[int, int], ...]) -> tuple[Segment, ...]:
    return tuple(Segment(start, end) for start, end in moves)


@dataclass
class XgGameState:
    """A game being read: its record, the Jellyfish row its actions stand on, a cube verdict waiting for
    the roll after it, and whether its records are passed over after an error."""

    game: GameRecord
    row: int = 0
    open_right: bool = False
    waiting: Verdict | None = None
    spoiled: bool = False
    cut: bool = False


class XgReader:
    """Reads XG's game file, record by record, into a match; each problem becomes a ``RecordError``."""

    def __init__(self, source: str, limits: ReadLimits) -> None:
        self.source = source
        self.limits = limits
        self.match = MatchRecord(source, FORMAT)
        self.state: XgGameState | None = None
        self.version = 0

    def read(self, contents: GameFile) -> MatchRecord:
        """The match of a game file."""
        match, data = self.match, contents.data
        for warning in contents.warnings:
            match.warnings.append(RecordError(0, 0, warning))
        count = len(data) // RECORD_BYTES
        if count == 0 or data[8] != MATCH_HEADER:
            reason = contents.cut or "its first record is not a match header"
            match.errors.append(RecordError(0, 0, f"no XG match could be read: {reason}"))
            return match
        try:
            self.read_match_header(data[:RECORD_BYTES])
        except XgError as error:
            match.errors.append(RecordError(0, 0, f"record 1 ({RECORD_NAMES[MATCH_HEADER]}): {error}"))
            return match
        ended = False
        for number in range(1, count):
            record = data[number * RECORD_BYTES : (number + 1) * RECORD_BYTES]
            ended = self.read_record(number + 1, record)
            if ended:
                break
        if not ended:
            partial = "the game file ends inside a record" if len(data) % RECORD_BYTES else ""
            self.cut_short(contents.cut or partial)
        if not match.games:
            append_error(match.errors, 0, 0, "no game in this match")
        return match

    def cut_short(self, why: str) -> None:
        """The game file ended before the match footer: an error of the game it ends in, when it is cut."""
        state = self.state
        if not why:
            return
        if state is None or state.game.winner is not None:
            append_error(self.match.errors, 0, 0, f"{why}: the games after the last one read are lost")
        else:
            state.game.add_error(0, 0, f"{why}: the rest of game {state.game.index} is lost")

    def read_match_header(self, record: bytes) -> None:
        """The players, event, date, length and rules of the match."""
        if _i32(record, 556) != GAME_MAGIC:
            raise XgError("not XG's match header (its mark is missing)")
        self.version = version = _i32(record, 552)
        fields = MATCH_FIELDS.unpack_from(record, 92)
        length, variation, crawford, jacoby, beaver, auto, elo1, elo2, exp1, exp2, date = fields
        if variation != 0:
            name = VARIATIONS[variation] if 0 <= variation < len(VARIATIONS) else f"variation {variation}"
            raise XgError(f"a match of {name}, not backgammon: not read")
        if not 0 <= length <= UNLIMITED:
            raise XgError(f"match length {length} is none")
        if version >= UNICODE_FROM:
            names = (_wide_string(record, at) for at in (622, 880, 1138, 1396, 1654))
            event, player1, player2, site, round_ = names
        else:
            player1, player2 = _short_string(record, 9, 40), _short_string(record, 50, 40)
            event, site, round_ = (_short_string(record, at, 128) for at in (136, 283, 417))
        match = self.match
        match.length = 0 if length == UNLIMITED else length
        match.players = (player1, player2)
        headers: dict[str, str] = {}
        for name, value in (("Site", site), ("Match ID", str(_i32(record, 268))), ("Event", event)):
            if value:
                headers[name] = value
        if round_:
            headers["Round"] = round_
        headers["Player 1"], headers["Player 2"] = player1, player2
        headers["Player 1 Elo"] = f"{elo1:.2f}/{exp1}"
        headers["Player 2 Elo"] = f"{elo2:.2f}/{exp2}"
        when = _date(date)
        if when is not None:
            headers["EventDate"] = when.strftime("%Y.%m.%d")
            headers["EventTime"] = when.strftime("%H.%M")
        headers["Variation"] = "Backgammon"
        headers["Crawford"] = "On" if crawford else "Off"
        headers["Jacoby"] = "On" if jacoby else "Off"
        headers["Beaver"] = "On" if beaver else "Off"
        limit = _i32(record, 612) if version >= CUBE_LIMIT_FROM else 0
        if 0 < limit < 31:
            headers["CubeLimit"] = str(2**limit)
        if version >= TRANSCRIBER_FROM and (transcriber := _wide_string(record, 1960)):
            headers["Transcriber"] = transcriber
        match.headers = headers
        if auto:
            match.warnings.append(RecordError(0, 0, "automatic doubles are on: read as if off"))

    def read_record(self, number: int, record: bytes) -> bool:
        """Reads one record (``number`` counts from 1); True at the match footer."""
        kind = record[8]
        if kind == MATCH_FOOTER:
            return True
        if kind == GAME_HEADER:
            self.open_game(number, record)
            return False
        state = self.state
        name = RECORD_NAMES[kind] if kind < len(RECORD_NAMES) else f"kind {kind}"
        where = f"record {number} ({name})"
        if state is None:
            append_error(self.match.errors, 0, 0, f"{where} outside any game: passed over")
            return False
        if state.spoiled and (kind != GAME_FOOTER or state.game.winner is not None):
            return False  # a spoiled game's result is still read: the match score carries on from it
        try:
            if kind == CUBE:
                self.read_cube(state, record)
            elif kind == MOVE:
                self.read_move(state, record)
            elif kind == GAME_FOOTER:
                self.read_footer(state, record)
            else:
                raise XgError("not a record XG writes")
        except (XgError, ValueError) as error:
            state.game.add_error(0, 0, f"{where}: {error}; the rest of game {state.game.index} is not read")
            state.spoiled = True
        return False

    def open_game(self, number: int, record: bytes) -> None:
        """A game header: a new game, at the score it gives."""
        score1, score2 = _i32(record, 12), _i32(record, 16)
        index = len(self.match.games) + 1
        game = GameRecord(index=index, line=0)
        self.match.games.append(game)
        self.state = XgGameState(game)
        game_number = _i32(record, 48)
        if game_number != index:
            game.warnings.append(RecordError(0, 0, f"record {number}: XG numbers this game {game_number}"))
        if not (0 <= score1 <= UNLIMITED and 0 <= score2 <= UNLIMITED):
            game.add_error(0, 0, f"record {number} (game header): score {score1}-{score2} is none")
            self.state.spoiled = True
            return
        game.score = (score1, score2)
        if self.version >= 26 and _i32(record, 64):
            game.add_error(0, 0, f"record {number}: automatic doubles in this game are not read")
            self.state.spoiled = True

    def add(self, state: XgGameState, action: Action) -> None:
        """Appends an action to the game, numbered by the row a Jellyfish file writes it on."""
        if len(state.game.actions) >= self.limits.max_plies:
            if not state.cut:
                state.cut = True
                state.game.add_error(0, 0, self.limits.game_cut)
            return
        if action.player == 0:
            state.row += 1
            state.open_right = True
        elif state.open_right:
            state.open_right = False
        else:
            state.row += 1
        action = replace(action, number=state.row)
        state.game.actions.append(replace(action, text=format_action(action).strip()))

    def read_cube(self, state: XgGameState, record: bytes) -> None:
        """A cube entry: the roller's cube decision, and the answer to a double."""
        actif, double, take = _i32(record, 12), _i32(record, 16), _i32(record, 20)
        player = _player(actif)
        cube_at = _i32(record, 32)
        if not -30 <= cube_at <= 30:
            raise XgError(f"cube {cube_at} is none")
        analysed = _cube_analysis(record)
        state.waiting = None
        if double not in (0, 1):
            return  # no cube decision there (the opening roll, a cube the opponent owns, Crawford)
        doubler = analysed.doubler() if analysed is not None else None
        if double == 0:
            state.waiting = doubler
            return
        cube = 2 ** abs(cube_at)
        self.add(state, Action(player, ActionKind.DOUBLE, 0, 0, value=cube * 2, verdicts=_some(doubler)))
        taker = analysed.taker(take) if analysed is not None else None
        if take == 1:
            self.add(state, Action(1 - player, ActionKind.TAKE, 0, 0, verdicts=_some(taker)))
        elif take == 0:
            self.add(state, Action(1 - player, ActionKind.DROP, 0, 0, verdicts=_some(taker)))
        elif take == 2:
            beaver = Action(1 - player, ActionKind.BEAVER, 0, 0, value=cube * 4, verdicts=_some(taker))
            self.add(state, beaver)
            if _i32(record, 24) == 2:
                raise XgError("a raccoon (the beaver redoubled): not read")
        else:
            raise XgError(f"answer {take} to a double is none")

    def read_move(self, state: XgGameState, record: bytes) -> None:
        """A move entry: a roll and its play, with XG's analysis of it."""
        player = _player(_i32(record, 64))
        first, second = struct.unpack_from("<2i", record, 100)
        if not (1 <= first <= 6 and 1 <= second <= 6):
            raise XgError(f"dice {first} and {second} are not two dice")
        dice = (int(first), int(second))
        played = record[2308] != 0
        verdicts = _some(state.waiting)
        state.waiting = None
        if not played:  # dice rolled and not played: a resignation followed
            rolled = Action(player, ActionKind.ROLL, 0, 0, dice=dice, unrecorded=True, verdicts=verdicts)
            self.add(state, rolled)
            return
        moves = _checker_moves(struct.unpack_from("<8i", record, 68))
        after = ""
        invalid = _i32(record, 2480)
        if invalid:
            board = mover_board(POSITION.unpack_from(record, 35))
            after = Position(board[::-1], 1 - player).position_id()
        verdicts += _some(_play_verdict(record, player, dice))
        segments = _segments(moves)
        action = Action(player, ActionKind.ROLL, 0, 0, dice=dice, segments=segments, verdicts=verdicts)
        action = replace(action, after=after)
        self.add(state, action)

    def read_footer(self, state: XgGameState, record: bytes) -> None:
        """A game footer: the winner and the points won."""
        winner, points = _i32(record, 24), _i32(record, 28)
        game = state.game
        if winner not in (1, -1) or not 0 < points <= UNLIMITED:
            raise XgError(f"result (winner {winner}, {points} points) is none")
        game.winner, game.points = _player(winner), points
        if self.match.length and game.score is not None:
            game.match_won = game.score[game.winner] + points >= self.match.length
        state.spoiled = True  # nothing of this game comes after its footer


def _player(actif: int) -> int:
    """Our player of XG's (1 or -1); raises XgError for another number."""
    if actif not in (1, -1):
        raise XgError(f"player {actif} is neither 1 nor -1")
    return 0 if actif == 1 else 1


def _date(days: float) -> datetime | None:
    """A Delphi date (days since 30 December 1899) as a date and time; None for none (0) or nonsense."""
    if not 1 <= days <= 200_000:  # 2447 at most
        return None
    return EPOCH + timedelta(days=days)


def _some(verdict: Verdict | None) -> tuple[Verdict, ...]:
    return () if verdict is None else (verdict,)


@dataclass(frozen=True)
class CubeAnalysis:
    """XG's analysis of a cube decision: its level, its equities of no double, double/take and
    double/pass (the doubler's, in EMG per cube), and the errors it stored for the double and the answer."""

    level: str
    no_double: float
    double_take: float
    double_pass: float
    double_error: float
    take_error: float
    beaver_error: float

    @property
    def equities(self) -> tuple[float, float, float]:
        """No double, Double/take and Double/pass, as a ``Verdict`` holds them."""
        return (self.no_double, self.double_take, self.double_pass)

    def doubler(self) -> Verdict | None:
        """The verdict on doubling (or not), None where XG did not judge it."""
        if self.double_error == NOT_ANALYSED:
            return None
        best = "double" if min(self.double_take, self.double_pass) > self.no_double else "no double"
        return Verdict(JUDGE, self.level, DecisionKind.CUBE, best, abs(self.double_error), self.equities)

    def taker(self, take: int) -> Verdict | None:
        """The verdict on the answer ``take`` (XG's: 0 pass, 1 take, 2 beaver), None where not judged."""
        error = self.beaver_error if take == 2 else self.take_error
        if error == NOT_ANALYSED:
            return None
        best = "take" if self.double_take <= self.double_pass else "pass"
        return Verdict(JUDGE, self.level, DecisionKind.TAKE, best, abs(error), self.equities)


def _cube_analysis(record: bytes) -> CubeAnalysis | None:
    """XG's analysis stored in a cube entry, None where it holds none."""
    level = _i32(record, 232)
    if level < 0:
        return None
    no_double, double_take, double_pass = struct.unpack_from("<3f", record, 152)
    return CubeAnalysis(
        level_name(level),
        float(no_double),
        float(double_take),
        float(double_pass),
        _f64(record, 200),
        _f64(record, 216),
        _f64(record, 240),
    )


def cube_probabilities(
    data: bytes, limits: ReadLimits | None = None
) -> dict[tuple[float, ...], tuple[float, ...]]:
    """XG's cubeless probabilities of each cube decision it analysed in the XG file ``data``, the roller's
    (win, win gammon, win backgammon, lose gammon, lose backgammon, as our evaluators give them), keyed by
    XG's equities of that decision (``Verdict.equities``); raises XgError for a file that is not XG's."""
    contents = game_file(data, limits or ReadLimits()).data
    found: dict[tuple[float, ...], tuple[float, ...]] = {}
    for start in range(0, len(contents) - RECORD_BYTES + 1, RECORD_BYTES):
        record = contents[start : start + RECORD_BYTES]
        analysed = _cube_analysis(record) if record[8] == CUBE else None
        if analysed is not None:
            lose_bg, lose_g, _, win, win_g, win_bg, _ = CUBE_EVAL.unpack_from(record, 124)
            found[analysed.equities] = tuple(float(p) for p in (win, win_g, win_bg, lose_g, lose_bg))
    return found


def _play_verdict(record: bytes, player: int, dice: tuple[int, int]) -> Verdict | None:
    """XG's verdict on ``player``'s play of ``dice``: its best candidate (written as the legal play that
    leaves the same position is), at the level it judged it, and the error it stored for the play made;
    None where XG did not analyse the play."""
    error = _f64(record, 2312)
    candidates = _i32(record, 188)
    if error == NOT_ANALYSED or _i32(record, 2472) < 0 or not 0 < candidates <= CANDIDATES:
        return None
    position = Position(mover_board(POSITION.unpack_from(record, 124)), player)
    best = _checker_moves(struct.unpack_from("<8b", record, 1024))
    result = position.play_moves(best)
    same = [play.text for play in position.plays(dice) if play.result == result]
    text = same[0] if same else notation(position.board, best)[0]
    level = struct.unpack_from("<h", record, 1280)[0]
    loss = -error if error else 0.0  # XG stores a play's error as the equity given up, negative
    return Verdict(JUDGE, level_name(level), DecisionKind.MOVE, text, loss)
