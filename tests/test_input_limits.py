"""Reading untrusted input within ``ReadLimits``: over-long lines and tokens, over-long games, zip, tar and
gzip bombs, archive members whose paths climb out, UTF-16, ``.gz`` files; and, with hypothesis, random bytes
and random zips through the archive walker: no exception escapes, every error is positioned."""

from __future__ import annotations

import gzip
import io
import tarfile
import tempfile
import tracemalloc
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from taldau.analysis.validation import GameCheck, check_paths
from taldau.base.archive import Refused, iter_sources
from taldau.base.records import KIB, MAX_MESSAGE_CHARS, MIB, ReadLimits, RecordFile
from taldau.games.backgammon import read_games as read_backgammon
from taldau.games.togyz import read_games as read_togyz
from taldau.games.togyz import replay_file

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
COMPACT = (EXAMPLES / "togyz" / "compact.txt").read_text().splitlines()  # three games: 92, 107, 24 plies
PLAYOK = (EXAMPLES / "togyz" / "playok-2024-2025-sample.pgn").read_bytes()  # seven games
GALAXY = (EXAMPLES / "backgammon" / "galaxy-6800849.txt").read_bytes()  # four games
SGF = (EXAMPLES / "backgammon" / "gnubg-galaxy-8170603.sgf").read_bytes()  # eighteen games


def peak_bytes(work: Callable[[], object]) -> int:
    """The most memory Python held at once (traced allocations) while ``work`` ran."""
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def walk(*paths: Path, limits: ReadLimits | None = None) -> list[GameCheck]:
    return list(check_paths(paths, limits or ReadLimits()))


def refused(path: Path, limits: ReadLimits) -> dict[str, str]:
    """The refusals of a walk over ``path``: name -> reason."""
    return {item.name: item.reason for item in iter_sources([path], limits) if isinstance(item, Refused)}


def zeros(size: int, byte: bytes = b"\0") -> io.RawIOBase:
    """A stream of ``size`` zero bytes (or other ``byte``s), made as it is read."""

    class Zeros(io.RawIOBase):
        left = size

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
            count = min(len(buffer), self.left)
            buffer[:count] = byte * count
            self.left -= count
            return count

    return Zeros()


def write_zip_member(archive: zipfile.ZipFile, name: str, stream: io.RawIOBase) -> None:
    with archive.open(name, "w", force_zip64=True) as member:
        while chunk := stream.read(MIB):
            member.write(chunk)


# Over-long lines, tokens and games


def test_an_overlong_line_costs_only_the_game_it_falls_in() -> None:
    limits = ReadLimits(max_line_bytes=1_000)
    compact = f"{COMPACT[0]}\n{'7' * 5_000}\n{COMPACT[1]}\n".encode()
    games = list(read_togyz(compact, "compact.txt", limits))
    assert [(game.record.index, game.valid) for game in games] == [(1, True), (2, False), (3, True)]
    [error] = games[1].errors
    assert (error.line, error.column) == (2, 1)
    assert error.message == (f"line of 5,000 bytes, longer than the limit of 1,000 bytes: {'7' * 40!r}...")

    first, rest = PLAYOK.split(b"\n\n[Event", 1)  # the first game, then the six others
    playok = first + b"\n" + b"x" * 5_000 + b"\n\n[Event" + rest
    games = list(read_togyz(playok, "playok.pgn", limits))
    assert [game.valid for game in games] == [True, False, True, True, True, True, True, True]
    line = first.count(b"\n") + 2
    assert [(e.line, e.column) for e in games[1].errors] == [(line, 1)]
    assert games[2].record.headers["Round"] == "2"


def test_a_huge_line_is_skipped_in_little_memory() -> None:
    data = b"1" * (8 * MIB)  # one line: the 200 MB line made 330 bytes of objects per byte
    games: list[object] = []
    peak = peak_bytes(lambda: games.extend(read_togyz(data, "huge.txt", ReadLimits())))
    assert len(games) == 1 and peak < 4 * MIB


def test_a_huge_token_is_refused_and_quoted_short() -> None:
    limits = ReadLimits(max_token_chars=100)
    (game,) = read_togyz(b"1. 76 " + b"8" * 500 + b" 2. 11 *\n", "token.pgn", limits)
    [error] = game.errors
    assert (error.line, error.column, game.plies) == (1, 7, 1)
    assert error.message == (
        "token longer than the limit of 100 characters: "
        "'8888888888888888888888888888888888888888'... (500 characters)"
    )
    (game,) = read_togyz(b"1. 76 " + b"8" * 500 + b" 2. 11 *\n", "token.pgn")  # within the default limit
    needs = "the full scoresheet form needs ':' or '-' between its two halves"
    assert game.errors[0].message == f"{'8' * 40!r}... (500 characters): {needs}"


def test_a_game_longer_than_the_limit_is_cut_there() -> None:
    limits = ReadLimits(max_plies=50)
    (game,) = read_togyz(COMPACT[0].encode(), "compact.txt", limits)
    assert game.plies == 50 and len(game.errors) == 1
    offset = COMPACT[0].index(", ") + 2
    assert (game.errors[0].line, game.errors[0].column) == (1, offset + 51)
    assert game.errors[0].message == limits.game_cut

    full = next(read_togyz(PLAYOK, "playok.pgn"))
    cut = next(read_togyz(PLAYOK, "playok.pgn", limits))
    fifty_first = full.record.moves[50]
    assert cut.plies == 50 and [(e.line, e.column, e.message) for e in cut.errors] == [
        (fifty_first.line, fifty_first.column, limits.game_cut)
    ]


@pytest.mark.parametrize(("data", "game"), [(GALAXY, 1), (SGF, 1)])
def test_a_backgammon_game_longer_than_the_limit_is_cut_there(data: bytes, game: int) -> None:
    limits = ReadLimits(max_plies=5)
    full = list(read_backgammon(data, "match"))
    cut = list(read_backgammon(data, "match", limits))
    assert len(cut) == len(full)
    sixth = full[game - 1].record.actions[5]
    [error] = cut[game - 1].errors
    assert (error.line, error.column) == (sixth.line, sixth.column)
    assert error.message.endswith(limits.game_cut)
    assert all(not g.valid for g in cut if len(g.record.actions) >= 5)


def test_an_overlong_sgf_line_costs_only_the_game_whose_tree_holds_it() -> None:
    lines = SGF.decode().splitlines()
    second = [number for number, line in enumerate(lines) if line.startswith("(;")][1] + 2  # 1-based
    lines.insert(second, ";C[" + "x" * 5_000 + "]")  # a comment in game 2's tree
    games = list(read_backgammon("\n".join(lines).encode(), "long.sgf", ReadLimits(max_line_bytes=1_000)))
    assert [g.index for g in games if not g.valid] == [2]
    assert [(e.line, e.column) for e in games[1].errors] == [(second + 1, 1)]
    assert games[1].errors[0].message.startswith("line of 5,004 bytes, longer than the limit of 1,000 bytes")


# Archives: bombs, limits, paths, .gz, UTF-16


def test_a_zip_bomb_is_refused_by_name_and_the_rest_is_read(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        write_zip_member(archive, "a-bomb.pgn", zeros(32 * MIB))  # about 32 KB compressed
        archive.writestr("b-good.pgn", PLAYOK)
    assert bomb.stat().st_size < 100 * KIB
    reasons = refused(bomb, ReadLimits())
    assert list(reasons) == [f"{bomb}:a-bomb.pgn"]
    assert reasons[f"{bomb}:a-bomb.pgn"].startswith("refused: compressed 1,0")
    assert "more than the limit of 100:1" in reasons[f"{bomb}:a-bomb.pgn"]
    checks: list[GameCheck] = []
    peak = peak_bytes(lambda: checks.extend(walk(bomb)))
    assert [(c.source.rsplit(":", 1)[1], c.index, c.valid) for c in checks] == [
        ("a-bomb.pgn", 0, False),
        *[("b-good.pgn", index, True) for index in range(1, 8)],
    ]
    assert peak < 8 * MIB

    small = ReadLimits(max_member_bytes=64 * KIB, max_ratio=1_000_000)
    assert refused(bomb, small)[f"{bomb}:a-bomb.pgn"] == (
        "refused: 33,554,432 bytes uncompressed, larger than the limit of 65,536"
    )


def tar_with(path: Path, members: list[tuple[str, int, io.RawIOBase | bytes]], mode: str = "w:gz") -> Path:
    with tarfile.open(path, mode) as archive:
        for name, size, content in members:
            info = tarfile.TarInfo(name)
            info.size = size
            archive.addfile(info, io.BytesIO(content) if isinstance(content, bytes) else content)
    return path


def test_a_tar_bomb_is_refused_and_stops_the_archive(tmp_path: Path) -> None:
    members: list[tuple[str, int, io.RawIOBase | bytes]] = [
        ("1-good.pgn", len(PLAYOK), PLAYOK),
        ("2-bomb.pgn", 32 * MIB, zeros(32 * MIB)),
        ("3-after.pgn", len(PLAYOK), PLAYOK),
    ]
    bomb = tar_with(tmp_path / "bomb.tar.gz", members)
    assert bomb.stat().st_size < 100 * KIB
    checks: list[GameCheck] = []
    peak = peak_bytes(lambda: checks.extend(walk(bomb)))
    assert peak < 8 * MIB
    assert [(c.source.rsplit(":", 1)[1], c.index, c.valid) for c in checks] == [
        *[("1-good.pgn", index, True) for index in range(1, 8)],
        ("2-bomb.pgn", 0, False),
    ]
    message = checks[-1].errors[0].message
    assert message.startswith("refused: compressed more than the limit of 100:1")
    assert message.endswith("the rest of the archive is not read")

    small = ReadLimits(max_member_bytes=64 * KIB)  # refused by its size, then its zeros stop the stream
    reasons = refused(bomb, small)
    assert reasons[f"{bomb}:2-bomb.pgn"] == "refused: 33,554,432 bytes, larger than the limit of 65,536"
    assert reasons[str(bomb)].startswith("refused: compressed more than the limit of 100:1")


@pytest.mark.parametrize(
    ("byte", "message"),
    [(b"0", "refused: compressed more than the limit of 100:1"), (b"\0", "binary data (NUL bytes)")],
)
def test_a_gzip_bomb_is_refused(tmp_path: Path, byte: bytes, message: str) -> None:
    bomb = tmp_path / "bomb.pgn.gz"
    with gzip.open(bomb, "wb") as out:
        stream = zeros(32 * MIB, byte)
        while chunk := stream.read(MIB):
            out.write(chunk)
    checks: list[GameCheck] = []
    peak = peak_bytes(lambda: checks.extend(walk(bomb)))
    assert peak < 8 * MIB
    [check] = checks
    assert check.index == 0 and check.errors[0].message.startswith(message)


def test_members_climbing_out_of_the_archive_are_refused_by_name(tmp_path: Path) -> None:
    good = COMPACT[0].encode()
    tarred = tar_with(
        tmp_path / "paths.tar",
        [("../up.pgn", len(good), good), ("/abs.pgn", len(good), good), ("ok/x.pgn", len(good), good)],
        mode="w",
    )
    with tarfile.open(tarred, "a") as archive:
        link = tarfile.TarInfo("link.pgn")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        archive.addfile(link)
    zipped = tmp_path / "paths.zip"
    with zipfile.ZipFile(zipped, "w") as archive:
        for name in ("../up.pgn", "/abs.pgn", "ok/x.pgn"):
            archive.writestr(zipfile.ZipInfo(name), good)
    for path in (tarred, zipped):
        climbs = "its path is absolute or climbs out of the archive: refused, not read"
        expected = {f"{path}:../up.pgn": climbs, f"{path}:/abs.pgn": climbs}
        if path == tarred:
            expected[f"{path}:link.pgn"] = "a link or special file, not a record file: not read"
        assert refused(path, ReadLimits()) == expected
        read = [c.source for c in walk(path) if c.valid]
        assert read == [f"{path}:ok/x.pgn"]


def test_gz_files_are_read_streamed_alone_and_inside_archives(tmp_path: Path) -> None:
    text = "\n".join(COMPACT).encode()
    (tmp_path / "games.txt.gz").write_bytes(gzip.compress(text))
    (tmp_path / "match.mat.gz").write_bytes(gzip.compress(GALAXY))
    with zipfile.ZipFile(tmp_path / "more.zip", "w") as archive:
        archive.writestr("inner.pgn.gz", gzip.compress(PLAYOK))
    checks = walk(tmp_path)
    counts = {
        name: sum(c.source.endswith(name) and c.valid for c in checks) for name in ("gz", ":inner.pgn.gz")
    }
    assert counts == {"gz": 3 + 4 + 7, ":inner.pgn.gz": 7}
    assert [c.game for c in checks if c.source.endswith("match.mat.gz")] == ["backgammon"] * 4
    (tmp_path / "broken.pgn.gz").write_bytes(gzip.compress(text)[:-20])
    [broken] = walk(tmp_path / "broken.pgn.gz")
    assert broken.index == 0 and "cannot read" in broken.errors[0].message


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be"])
def test_utf16_with_a_bom_reads_like_utf8(encoding: str) -> None:
    text = (EXAMPLES / "togyz" / "app-export.pgn").read_text(encoding="utf-8-sig")
    bom = {"utf-16-le": b"\xff\xfe", "utf-16-be": b"\xfe\xff"}.get(encoding, b"")
    data = bom + text.encode(encoding)
    utf8 = [(g.record.headers, g.moves, g.valid) for g in read_togyz(text.encode(), "a")]
    assert [(g.record.headers, g.moves, g.valid) for g in read_togyz(data, "a")] == utf8
    assert "х" in text  # Cyrillic tuzdyk marks survive
    galaxy = GALAXY.decode()
    matches = list(read_backgammon(bom + galaxy.encode(encoding), "g"))
    assert [g.plies for g in matches] == [g.plies for g in read_backgammon(GALAXY, "g")]


def test_an_empty_archive_or_directory_is_refused(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "empty.zip", "w") as archive:
        archive.writestr("notes.png", b"\x89PNG")
    (tmp_path / "nothing").mkdir()
    assert refused(tmp_path / "empty.zip", ReadLimits()) == {
        f"{tmp_path}/empty.zip": "no game record file in this archive"
    }
    assert refused(tmp_path / "nothing", ReadLimits()) == {
        f"{tmp_path}/nothing": "no game record file in this directory"
    }


def test_limits_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_plies must be a positive integer"):
        ReadLimits(max_plies=0)


# Properties: nothing escapes, every error is positioned

TINY = ReadLimits(
    max_plies=20,
    max_line_bytes=300,
    max_token_chars=40,
    max_member_bytes=4 * KIB,
    max_ratio=8,
    ratio_grace_bytes=512,
)
SAMPLES = [PLAYOK[:3_000], GALAXY[:2_000], SGF[:2_000], "\n".join(COMPACT).encode()]
record_bytes = st.one_of(
    st.binary(max_size=3_000),
    st.text(max_size=2_000).map(str.encode),
    st.sampled_from(["utf-8-sig", "utf-16", "utf-16-be", "cp1251"]).flatmap(
        lambda encoding: st.text(max_size=500).map(lambda t: t.encode(encoding, errors="replace"))
    ),
    st.tuples(
        st.sampled_from(SAMPLES), st.integers(0, 3_000), st.integers(0, 60), st.binary(max_size=60)
    ).map(lambda t: t[0][: t[1]] + t[3] + t[0][t[1] + t[2] :]),
)


def assert_positioned(checks: list[GameCheck], sources: set[str], lines: dict[str, int]) -> None:
    """Every check names one of ``sources``; every error has a line (0 when not tied to one) within the
    file and a column, and a bounded message."""
    assert checks, "every file gives at least one check"
    for check in checks:
        assert check.source in sources and check.index >= 0
        for error in check.errors:
            assert isinstance(error.line, int) and isinstance(error.column, int)
            assert 0 <= error.line <= lines.get(check.source, 0) + 1 and error.column >= 0
            assert error.message and len(error.message) <= MAX_MESSAGE_CHARS + 10


def line_count(data: bytes) -> int:
    """At least the number of lines of ``data`` (in any encoding the readers take)."""
    return data.count(b"\n") + data.count(b"\r") + 1


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(record_bytes, st.sampled_from([".pgn", ".txt", ".mat", ".sgf", ".pgn.gz"]))
def test_random_bytes_never_escape_and_errors_are_positioned(data: bytes, suffix: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"random{suffix}"
        path.write_bytes(gzip.compress(data) if suffix.endswith(".gz") else data)
        for limits in (TINY, ReadLimits()):
            checks = walk(path, limits=limits)
            assert_positioned(checks, {str(path)}, {str(path): line_count(data)})


member_names = st.one_of(
    st.sampled_from(
        ["a.pgn", "b/c.txt", "../up.pgn", "/abs.mat", ".hidden.pgn", "x.sgf", "y.pgn.gz", "z.png"]
    ),
    st.text(alphabet="ab./_", min_size=1, max_size=12).map(lambda name: name + ".pgn"),
)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(member_names, record_bytes, st.booleans()), max_size=6, unique_by=lambda m: m[0]))
def test_random_zips_never_escape_and_name_every_member(members: list[tuple[str, bytes, bool]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "random.zip"
        with zipfile.ZipFile(path, "w") as archive:
            for name, data, deflated in members:
                content = gzip.compress(data) if name.endswith(".gz") else data
                method = zipfile.ZIP_DEFLATED if deflated else zipfile.ZIP_STORED
                archive.writestr(zipfile.ZipInfo(name), content, compress_type=method)
        sources = {str(path)} | {f"{path}:{name}" for name, _, _ in members}
        lines = {f"{path}:{name}": line_count(data) for name, data, _ in members}
        for limits in (TINY, ReadLimits()):
            assert_positioned(walk(path, limits=limits), sources, lines)


def test_a_source_that_fails_while_read_is_reported_not_raised(tmp_path: Path) -> None:
    def failing() -> Iterator[bytes]:
        yield b"1. 76 98 2. 11 23\n"
        raise OSError("device gone")

    class Failing(io.RawIOBase):
        chunks = failing()

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
            data = next(self.chunks, b"")
            buffer[: len(data)] = data
            return len(data)

    file = RecordFile("gone.pgn", lambda: io.BufferedReader(Failing()), ReadLimits())
    [game] = replay_file(file)
    assert game.record.index == 0 and game.errors[0].message == "cannot read: device gone"
