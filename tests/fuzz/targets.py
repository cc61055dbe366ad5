"""Fuzz targets: one function per record reader, taking arbitrary bytes and asserting the reader's contract.

A target returns None for any input the reader handles as documented and raises (AssertionError, or the
reader's own unexpected exception) otherwise. The contracts:

- record readers (Togyz formats, Jellyfish, SGF, eXtreme Gammon, format detection, archives) never raise: a
  bad record becomes ``RecordError``s in its game, a file that cannot be read an ``UnreadableFile`` (which the
  archive walk reports as unreadable), a refused file or member a ``Refused``;
- position parsers (Togyz FEN, gnubg Position ID, Match ID, GNUbgID, XGID) raise ``ValueError`` (the FEN
  parser its subclass ``FenError``) and nothing else;
- where a writer exists, what was read without error and written back reads again as the same game.

Nothing here imports atheris: ``run.py`` drives these targets under atheris, ``tests/test_fuzz.py`` replays
the stored corpus and a few thousand generated inputs through the same functions.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Callable
from pathlib import Path

from taldau.analysis.validation import Unreadable, archive_games
from taldau.base.archive import Refused, iter_sources
from taldau.base.records import ReadLimits, RecordError, RecordFile, UnreadableFile
from taldau.games import registry
from taldau.games.backgammon.records.jellyfish import read_jellyfish
from taldau.games.backgammon.records.readers import detect_format as detect_backgammon
from taldau.games.backgammon.records.record import MatchRecord
from taldau.games.backgammon.records.replay import Game as BackgammonGame
from taldau.games.backgammon.records.replay import replay_match
from taldau.games.backgammon.records.sgf import read_sgf
from taldau.games.backgammon.records.writer import write_jellyfish
from taldau.games.backgammon.records.xg import read_xg
from taldau.games.backgammon.rules import ids
from taldau.games.backgammon.rules.position_text import read_position
from taldau.games.togyz import Game as TogyzGame
from taldau.games.togyz import read_games as read_togyz_games
from taldau.games.togyz import write_playok, write_scoresheet
from taldau.games.togyz.fen import FenError, format_fen, parse_fen
from taldau.games.togyz.records import FORMATS as TOGYZ_FORMATS
from taldau.games.togyz.records import detect_format as detect_togyz

from fuzz.seeds import XG_HEADER

SOURCE = "fuzz"


def text_of(data: bytes) -> str:
    """The fuzzer's bytes as text, for readers that take text (any byte sequence gives some text)."""
    return data.decode("utf-8", errors="replace")


def _check_errors(errors: list[RecordError], where: str) -> None:
    assert all(isinstance(error, RecordError) for error in errors), where
    for error in errors:
        assert isinstance(error.line, int) and isinstance(error.column, int), (where, error)
        assert error.line >= 0 and error.column >= 0, (where, error)
        str(error)


# --- Togyz Kumalak ---------------------------------------------------------------------------------------


def _togyz_same(game: TogyzGame, again: list[TogyzGame], how: str) -> None:
    """``again`` is ``game`` read back from its written form: one valid game, same moves, result, headers."""
    assert len(again) == 1, (how, len(again))
    other = again[0]
    assert other.valid, (how, other.errors)
    assert other.moves == game.moves, how
    assert other.result == game.result, how
    expected = {name: value for name, value in game.record.headers.items() if name != "Result"}
    got = {name: value for name, value in other.record.headers.items() if name != "Result"}
    assert got == expected, how


def togyz_records(data: bytes) -> None:
    """Every Togyz record format through detection, reading and replay; valid games written back (PlayOK and
    both scoresheet forms) read again as the same game."""
    games = list(read_togyz_games(data, SOURCE))
    assert games, "a file always yields at least one game (index 0 for no game)"
    for game in games:
        assert isinstance(game, TogyzGame)
        assert game.record.format in (*TOGYZ_FORMATS, "unknown")
        _check_errors(game.errors, "togyz game")
        assert len(game.positions) == game.plies + 1
        game.termination, game.result, game.kazans  # noqa: B018 (the properties must not raise)
        if not game.valid:
            continue
        written = write_playok(game)
        _togyz_same(game, list(read_togyz_games(written.encode(), "written")), "playok")
        for form in ("short", "full"):
            written = write_scoresheet(game, form)
            _togyz_same(game, list(read_togyz_games(written.encode(), "written")), form)


def togyz_fen(data: bytes) -> None:
    """The Togyz FEN parser raises FenError only; what it accepts it writes back to an equal position."""
    text = text_of(data)
    try:
        state = parse_fen(text)
    except FenError:
        return
    written = format_fen(state)
    assert (parse_fen(written) == state).all(), (text, written)
    assert format_fen(parse_fen(written)) == written


# --- backgammon ------------------------------------------------------------------------------------------


def comparable(match: MatchRecord) -> tuple[object, ...]:
    """Everything a round trip through the Jellyfish writer must keep (not lines, columns and texts)."""
    games = []
    for game in match.games:
        actions = [(a.player, a.kind, a.dice, a.segments, a.value) for a in game.actions]
        games.append((game.index, game.score, game.winner, game.points, game.match_won, actions))
    return match.headers, match.players, match.length, games


def _clean(match: MatchRecord) -> bool:
    return not match.errors and not match.warnings and all(not g.errors for g in match.games)


def _check_matches(matches: list[MatchRecord], form: str) -> None:
    """The reader's matches are well formed and replay without raising; error-free ones written as
    Jellyfish read back the same."""
    assert matches, "a text always yields at least one match"
    for match in matches:
        assert isinstance(match, MatchRecord) and match.format == form
        _check_errors(match.errors, "match")
        for record in match.games:
            _check_errors(record.errors, "game record")
            _check_errors(record.warnings, "game record warnings")
        games = replay_match(match)
        for game in games:
            assert isinstance(game, BackgammonGame)
            _check_errors(game.errors, "replayed game")
            _check_errors(game.warnings, "replayed game warnings")
            game.plies, game.cube  # noqa: B018 (the properties must not raise)
        if _clean(match) and all(game.valid for game in games):
            again = read_jellyfish(write_jellyfish(match), "written")
            assert len(again) == 1 and _clean(again[0]), [m.errors for m in again]
            assert comparable(again[0]) == comparable(match)


def backgammon_jellyfish(data: bytes) -> None:
    """Jellyfish match text of every producer: read, replayed, written back when clean."""
    _check_matches(read_jellyfish(text_of(data), SOURCE), "jellyfish")


def backgammon_sgf(data: bytes) -> None:
    """gnubg SGF: read, replayed, written as Jellyfish and read back when clean."""
    _check_matches(read_sgf(text_of(data), SOURCE), "sgf")


def backgammon_xg(data: bytes) -> None:
    """eXtreme Gammon files: ``data`` is what follows XG's header (its archive; the header alone is longer
    than a seed), read, replayed, written as Jellyfish and read back when clean."""
    _check_matches([read_xg(XG_HEADER + data, SOURCE)], "xg")


def _position_id(text: str) -> None:
    board = ids.board_from_position_id(text)
    assert ids.position_id(board) == text


def _match_id(text: str) -> None:
    match = ids.MatchId.decode(text)
    assert match.encode() == text


def _gnubg_id(text: str) -> None:
    board, match = ids.parse_gnubg_id(text)
    again = ids.parse_gnubg_id(ids.gnubg_id(board, match))
    assert (again[0] == board).all() and again[1] == match


def _xgid(text: str) -> None:
    xgid = ids.XgId.parse(text)
    assert ids.XgId.parse(xgid.format()) == xgid


def _read_position(text: str) -> None:
    setup = read_position(text)
    setup.position.position_id()


ID_PARSERS: tuple[Callable[[str], None], ...] = (_position_id, _match_id, _gnubg_id, _xgid, _read_position)


def backgammon_ids(data: bytes) -> None:
    """Position ID, Match ID, GNUbgID, XGID and the text reader over them raise ValueError only; what they
    accept they write back the same."""
    text = text_of(data)
    for parser in ID_PARSERS:
        with contextlib.suppress(ValueError):
            parser(text)


# --- detection and archives --------------------------------------------------------------------------------


def detect(data: bytes) -> None:
    """Format detection of both games and the whole read path the registry gives a file: detect, read,
    replay, facts."""
    text = text_of(data)
    assert detect_togyz(text) in TOGYZ_FORMATS
    assert detect_backgammon(text) in ("jellyfish", "sgf", None)
    file = RecordFile.of_bytes(data, SOURCE, ReadLimits())
    try:
        kind = registry.detect_game(file)
        assert kind.name in registry.NAMES
        for game in kind.read_file(file):
            facts = kind.facts(game)
            _check_errors(list(facts.errors), "facts")
    except UnreadableFile:  # binary data: the archive walk reports it as unreadable
        return


# The first byte of an archive input picks what the bytes are written as; the rest is the file.
ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz", ".gz", "/")


def _write_directory(root: Path, data: bytes) -> None:
    """A directory made from ``data``: NUL-separated name and content pairs, names kept inside ``root``."""
    parts = data.split(b"\x00")
    for name, content in zip(parts[::2], parts[1::2], strict=False):
        clean = [part for part in text_of(name).replace("\\", "/").split("/") if part not in ("", ".", "..")]
        if not clean or any(len(part.encode()) > 100 for part in clean) or len(clean) > 8:
            continue
        path = root.joinpath(*clean)
        if path.exists() and not path.is_file():
            continue
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(content)
        except (NotADirectoryError, FileExistsError, OSError):
            continue


def archive(data: bytes) -> None:
    """Files, directories, zip, tar and gzip archives yield record files or refusals, and every game in them
    reads and replays, or the file comes out unreadable: nothing raises."""
    if not data:
        return
    suffix = ARCHIVE_SUFFIXES[data[0] % len(ARCHIVE_SUFFIXES)]
    with tempfile.TemporaryDirectory(prefix="taldau-fuzz-") as folder:
        if suffix == "/":
            path = Path(folder) / "records"
            path.mkdir()
            _write_directory(path, data[1:])
        else:
            path = Path(folder) / f"records{suffix}"
            path.write_bytes(data[1:])
        limits = ReadLimits()
        for source in iter_sources([path], limits):
            assert isinstance(source, (RecordFile, Refused)) and isinstance(source.name, str)
        for item in archive_games([path], limits):
            if isinstance(item, Unreadable):
                assert isinstance(item.source, str) and isinstance(item.reason, str)
                continue
            kind, game = item
            _check_errors(list(kind.facts(game).errors), "archive game")


TARGETS: dict[str, Callable[[bytes], None]] = {
    "togyz_records": togyz_records,
    "togyz_fen": togyz_fen,
    "backgammon_jellyfish": backgammon_jellyfish,
    "backgammon_sgf": backgammon_sgf,
    "backgammon_xg": backgammon_xg,
    "backgammon_ids": backgammon_ids,
    "detect": detect,
    "archive": archive,
}
