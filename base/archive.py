"""Archives of game records: files, directories, ``.zip``, tar (``.tar``, ``.tar.gz``, ``.tgz``, bzip2 and xz
too) and single compressed files (``games.pgn.gz``), walked as named record files whose bytes are streamed.

Game-agnostic: it yields every record file with a name that says where it came from
(``archive.zip:2024/round1.pgn``) and a way to open its bytes; nothing is extracted to disk and nothing is
read whole into memory. Every file of a directory is yielded: one whose name says it holds no record
(``README.md``, ``games.pgn.bak``) as a ``RecordFile.not_read`` that says so, unread; an archive's members
that are not record files by name are passed over. What cannot or may not be read becomes a ``Refused``
with its name and the reason,
and the walk goes on: a broken archive, a member larger than ``ReadLimits.max_member_bytes`` or compressed
more than ``max_ratio`` to 1 (a zip bomb), a member whose path climbs out of the archive (``../x.pgn``,
``/x.pgn``), a link, an archive inside an archive, an archive or directory with no record file at all, and a
path that is no regular file (a FIFO, a socket, a device, a broken link: given, or found in a directory),
which is never opened: a FIFO would block the walk until a writer came.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import re
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path, PurePosixPath
from typing import IO, BinaryIO

from taldau.base.files import not_regular, open_regular
from taldau.base.records import MIB, ReadLimits, RecordFile, UnreadableFile, read_at_least

# Files read from directories and archives, also when compressed (``.pgn.gz``); a file of a directory with no
# suffix is read too (its content decides), one of another suffix is not; a path named explicitly is always
# read.
RECORD_SUFFIXES = frozenset({".pgn", ".txt", ".tsv", ".csv", ".mat", ".sgf", ".xg", ".tk", ".tkz"})
ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")
COMPRESSED_SUFFIX = ".gz"
_SUFFIX = re.compile(r"\.[A-Za-z0-9_~-]{1,16}")  # what a suffix looks like (``.pgn``, ``.md``, ``.bak``)
GZIP_MAGIC = b"\x1f\x8b"
SPOOL_BYTES = 8 * MIB  # a tar member is copied aside to be read more than once: in memory up to this size
SMALL_FILE_BYTES = 1 * MIB  # a file or zip member this small is read once; its readers then read memory
_Stream = IO[bytes] | io.BufferedIOBase | io.RawIOBase
# What a damaged archive or compressed stream raises besides the archive modules' own errors: the
# decompressors' errors (zlib.error, LZMAError), EOFError for a truncated stream, NotImplementedError for a
# zip that needs a newer zip version than Python reads, UnicodeDecodeError for a member name marked UTF-8
# that is not.
_BROKEN = (
    OSError,
    EOFError,
    zlib.error,
    lzma.LZMAError,
    zipfile.BadZipFile,
    tarfile.TarError,
    RuntimeError,
    NotImplementedError,
    UnicodeDecodeError,
)


@dataclass(frozen=True)
class Refused:
    """A file, archive member, archive or directory that is not read, and why."""

    name: str
    reason: str


def _is_archive(name: str) -> bool:
    return name.lower().endswith(ARCHIVE_SUFFIXES)


def _is_compressed(name: str) -> bool:
    """A single compressed record file such as ``games.pgn.gz`` (not a compressed tar)."""
    return name.lower().endswith(COMPRESSED_SUFFIX) and not _is_archive(name)


def _is_hidden(name: str) -> bool:
    """Whether a path has a hidden part (``.git/``, ``.x.pgn``) or a macOS resource folder."""
    parts = PurePosixPath(name.replace("\\", "/")).parts
    return any(part.startswith(".") or part == "__MACOSX" for part in parts if part not in ("..", "/"))


def _record_suffix(name: str) -> str:
    """The suffix that says what a file holds (``.pgn`` of ``games.pgn`` and ``games.pgn.gz``, ``.md``), ""
    for a name with none: no dot, or after its last dot something no suffix looks like (``v1.2 notes``)."""
    path = PurePosixPath(name.replace("\\", "/"))
    if _is_compressed(name):
        path = path.with_suffix("")
    return path.suffix.lower() if _SUFFIX.fullmatch(path.suffix) else ""


def _is_record(name: str) -> bool:
    return not _is_hidden(name) and (_record_suffix(name) in RECORD_SUFFIXES or _is_archive(name))


def _not_record(name: str) -> str | None:
    """Why a file found in a directory is not read, its name saying it holds no record (``notes.md``,
    ``games.pgn.bak``, ``photo.jpg``); None for a record file or an archive by name, and for a name with no
    suffix, whose content decides (``games``, ``TODO``)."""
    if _is_record(name) or not (suffix := _record_suffix(name)):
        return None
    written = PurePosixPath(name).name.lower()
    shown = written[written.rindex(suffix) :]  # with .gz when compressed: notes.md.gz
    return f"a {shown} file, not a record: skipped"


def _climbs_out(name: str) -> bool:
    """Whether a member's path is absolute or climbs out of the archive (``../x.pgn``)."""
    path = PurePosixPath(name.replace("\\", "/"))
    return path.is_absolute() or ".." in path.parts or (len(name) > 1 and name[1] == ":")


class _Counting(io.RawIOBase):
    """A stream that counts the bytes read from it (the compressed side of a decompression)."""

    def __init__(self, inner: _Stream) -> None:
        super().__init__()
        self.inner = inner
        self.consumed = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.inner.read(len(buffer))
        self.consumed += len(data)
        buffer[: len(data)] = data
        return len(data)

    def close(self) -> None:
        self.inner.close()
        super().close()


class _Bounded(io.RawIOBase):
    """The bytes of ``inner`` (a member or a decompressed stream), refused with UnreadableFile once more than
    ``max_bytes`` came out (None: no such limit) or, past the grace, more than ``max_ratio`` times the
    ``compressed`` bytes it came from; errors of a broken stream become UnreadableFile too."""

    def __init__(
        self, inner: _Stream, compressed: Callable[[], int], limits: ReadLimits, max_bytes: int | None
    ) -> None:
        super().__init__()
        self.inner = inner
        self.compressed = compressed
        self.limits = limits
        self.max_bytes = max_bytes
        self.produced = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        try:
            data = self.inner.read(len(buffer))
        except _BROKEN as error:
            raise UnreadableFile(f"cannot read: {error}") from error
        self.produced += len(data)
        self.check()
        buffer[: len(data)] = data
        return len(data)

    def check(self) -> None:
        """Raise UnreadableFile when the bytes so far pass a limit."""
        limits = self.limits
        if self.max_bytes is not None and self.produced > self.max_bytes:
            raise UnreadableFile(f"refused: larger than the limit of {self.max_bytes:,} bytes uncompressed")
        compressed = max(self.compressed(), 1)
        if self.produced > limits.ratio_grace_bytes and self.produced > limits.max_ratio * compressed:
            raise UnreadableFile(
                f"refused: compressed more than the limit of {limits.max_ratio}:1 ({self.produced:,} bytes "
                f"from {compressed:,}; a zip bomb?)"
            )

    def close(self) -> None:
        self.inner.close()
        super().close()


def _decompressing(raw: _Stream, limits: ReadLimits, max_bytes: int | None) -> BinaryIO:
    """The decompressed bytes of a gzip, bzip2 or xz stream (told by its first bytes), within the limits;
    any other stream as it is."""
    counting = _Counting(raw)
    buffered = io.BufferedReader(counting)
    magic = buffered.peek(6)[:6]
    inner: _Stream
    if magic.startswith(GZIP_MAGIC):
        inner = gzip.GzipFile(fileobj=buffered, mode="rb")
    elif magic.startswith(b"BZh"):
        inner = bz2.BZ2File(buffered)
    elif magic.startswith(b"\xfd7zXZ\x00"):
        inner = lzma.LZMAFile(buffered)  # noqa: SIM115 (closed with the stream returned)
    else:
        inner = buffered
    return io.BufferedReader(_Bounded(inner, lambda: counting.consumed, limits, max_bytes))


def _record_file(name: str, opener: Callable[[], BinaryIO], limits: ReadLimits) -> RecordFile | Refused:
    """A record file opened by ``opener``; a compressed one (``.pgn.gz``) is decompressed as it is read,
    within the member limits, and refused when it is not gzip data."""
    if not _is_compressed(name):
        return RecordFile(name, opener, limits)
    try:
        with opener() as stream:
            magic = read_at_least(stream, len(GZIP_MAGIC))
    except UnreadableFile as error:
        return Refused(name, str(error))
    except OSError as error:
        return Refused(name, f"cannot read file: {error}")
    if not magic.startswith(GZIP_MAGIC):
        return Refused(name, f"not gzip data (its name ends in {COMPRESSED_SUFFIX}): not read")
    return RecordFile(name, lambda: _decompressing(opener(), limits, limits.max_member_bytes), limits)


def _member_refusal(member_name: str, is_file: bool) -> str | None:
    """Why an archive member with a record's name is not read, if it is not."""
    if _climbs_out(member_name):
        return "its path is absolute or climbs out of the archive: refused, not read"
    if not is_file:
        return "a link or special file, not a record file: not read"
    if _is_archive(member_name):
        return "an archive inside an archive: not read (unpack it first)"
    return None


def _zip_sources(path: Path, name: str, limits: ReadLimits) -> Iterator[RecordFile | Refused]:
    with open_regular(path) as handle, zipfile.ZipFile(handle) as archive:
        found = False
        for member in sorted(archive.infolist(), key=lambda info: info.filename):
            # a member with no name is no record (and zipfile's is_dir raises IndexError on it)
            if not member.filename or member.is_dir() or not _is_record(member.filename):
                continue
            found = True
            member_name = f"{name}:{member.filename}"
            refusal = _member_refusal(member.filename, True)
            if refusal is None and member.file_size > limits.max_member_bytes:
                refusal = (
                    f"refused: {member.file_size:,} bytes uncompressed, "
                    f"larger than the limit of {limits.max_member_bytes:,}"
                )
            ratio = member.file_size / max(member.compress_size, 1)
            if refusal is None and member.file_size > limits.ratio_grace_bytes and ratio > limits.max_ratio:
                refusal = (
                    f"refused: compressed {ratio:,.0f}:1 ({member.file_size:,} bytes from "
                    f"{member.compress_size:,}), more than the limit of {limits.max_ratio}:1 (a zip bomb?)"
                )
            if refusal is not None:
                yield Refused(member_name, refusal)
                continue

            def open_member(member: zipfile.ZipInfo = member) -> BinaryIO:
                try:
                    stream = archive.open(member)
                except ValueError as error:  # the walk has moved on and closed the archive
                    raise UnreadableFile(f"archive member opened too late: {error}") from error
                except _BROKEN as error:
                    raise UnreadableFile(f"cannot read archive member: {error}") from error
                size = member.compress_size
                return io.BufferedReader(_Bounded(stream, lambda: size, limits, limits.max_member_bytes))

            if member.file_size <= SMALL_FILE_BYTES and not _is_compressed(member.filename):
                yield _held(member_name, open_member, limits)
            else:
                yield _record_file(member_name, open_member, limits)
        if not found:
            yield Refused(name, "no game record file in this archive")


class _Spooled(io.RawIOBase):
    """A fresh read of a spooled copy, which closing leaves open for the next read."""

    def __init__(self, spool: _Stream) -> None:
        super().__init__()
        self.spool = spool
        spool.seek(0)

    def close(self) -> None:
        super().close()  # the spool stays open

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: bytearray | memoryview) -> int:  # type: ignore[override]
        data = self.spool.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)


def _spooled(spool: _Stream) -> BinaryIO:
    if spool.closed:
        raise UnreadableFile("archive member opened too late: the walk has moved on")
    return io.BufferedReader(_Spooled(spool))


def _tar_sources(path: Path, name: str, limits: ReadLimits) -> Iterator[RecordFile | Refused]:
    """The record members of a tar, in archive order: read as one stream (decompressed within the ratio
    limit), each record member copied aside so that it can be read more than once. A limit passed stops
    the archive there (the rest of the stream would have to be decompressed to reach the next member)."""
    with open_regular(path) as raw, _decompressing(raw, limits, None) as stream:
        found = False
        reading = name  # what the stream is read for: a member being copied, else the archive
        try:
            with tarfile.open(fileobj=stream, mode="r|") as archive:
                for member in archive:
                    if member.isdir() or not _is_record(member.name):
                        continue
                    found = True
                    member_name = f"{name}:{member.name}"
                    refusal = _member_refusal(member.name, member.isfile())
                    if refusal is None and member.size > limits.max_member_bytes:
                        refusal = (
                            f"refused: {member.size:,} bytes, larger than the limit of "
                            f"{limits.max_member_bytes:,}"
                        )
                    if refusal is not None:
                        yield Refused(member_name, refusal)
                        continue
                    with tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES) as spool:
                        reading = member_name
                        content = archive.extractfile(member)
                        assert content is not None  # a regular file
                        while chunk := content.read(1 * MIB):
                            spool.write(chunk)
                        reading = name
                        yield _record_file(member_name, partial(_spooled, spool), limits)
        except UnreadableFile as error:
            yield Refused(reading, f"{error}; the rest of the archive is not read")
            return
        if not found:
            yield Refused(name, "no game record file in this archive")


def _held(name: str, opener: Callable[[], BinaryIO], limits: ReadLimits) -> RecordFile | Refused:
    """A small record file read once into memory (within the limits ``opener`` keeps)."""
    try:
        with opener() as stream:
            return RecordFile.of_bytes(stream.read(), name, limits)
    except UnreadableFile as error:
        return Refused(name, str(error))
    except OSError as error:
        return Refused(name, f"cannot read file: {error}")


def _file_sources(path: Path, limits: ReadLimits) -> Iterator[RecordFile | Refused]:
    name = str(path)
    if not _is_archive(name):

        def open_file() -> BinaryIO:
            return open_regular(path)

        small = path.stat().st_size <= SMALL_FILE_BYTES and not _is_compressed(name)
        yield _held(name, open_file, limits) if small else _record_file(name, open_file, limits)
        return
    opener = _zip_sources if name.lower().endswith(".zip") else _tar_sources
    try:
        yield from opener(path, name, limits)
    except _BROKEN as error:
        yield Refused(name, f"cannot read archive: {error}")


def _special(path: Path) -> Refused | None:
    """A path that is no regular file (nor a link to one) refused with what it is; None for a file to read."""
    try:
        kind = not_regular(path)
    except OSError as error:  # gone since it was listed, or not allowed to look
        return Refused(str(path), f"cannot read file: {error}")
    return None if kind is None else Refused(str(path), f"{kind}, not a regular file: not read")


def iter_sources(paths: Iterable[str | Path], limits: ReadLimits) -> Iterator[RecordFile | Refused]:
    """Every record file under ``paths``, in a stable order (directories walked sorted, zip members sorted,
    tar members in archive order), each to be read before the walk moves on; what is not read is Refused."""
    for given in paths:
        path = Path(given)
        if path.is_dir():
            found = False
            for child in sorted(path.rglob("*")):
                relative = str(child.relative_to(path))
                if child.is_dir() or _is_hidden(relative):
                    continue
                found = True
                refusal = _special(child)
                if refusal is not None:
                    yield refusal
                elif (reason := _not_record(relative)) is not None:
                    yield RecordFile.not_read(str(child), reason, limits)
                else:
                    yield from _file_sources(child, limits)
            if not found:
                yield Refused(str(path), "no game record file in this directory")
        elif path.exists() or path.is_symlink():
            refusal = _special(path)
            if refusal is not None:
                yield refusal
            else:
                yield from _file_sources(path, limits)
        else:
            yield Refused(str(path), "no such file or directory")
