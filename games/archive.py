"""Archives of game records: files, directories, ``.zip`` and ``.tar.gz`` files, read as named byte blobs.

Game-agnostic: it yields the bytes of every record file with a name that says where it came from
(``archive.zip:2024/round1.pgn``); a file that cannot be read becomes a ``Source`` with an ``error`` instead
of stopping the walk.
"""

from __future__ import annotations

import lzma
import tarfile
import zipfile
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

# Files taken from directories and archives; a path named explicitly is always read.
RECORD_SUFFIXES = frozenset({".pgn", ".txt", ".tsv", ".csv", ".mat", ".sgf", ".tk", ".tkz"})
ARCHIVE_SUFFIXES = (".zip", ".tar.gz", ".tgz", ".tar")
# What reading a damaged compressed member raises besides the archive modules' own errors: zipfile lets the
# decompressors' errors through (zlib.error, LZMAError) and raises EOFError for a truncated stream.
DECOMPRESSION_ERRORS = (EOFError, zlib.error, lzma.LZMAError)
# NotImplementedError: a zip that needs a newer zip version than Python reads; UnicodeDecodeError: a zip
# member name marked UTF-8 that is not.
ARCHIVE_ERRORS = (
    OSError,
    zipfile.BadZipFile,
    tarfile.TarError,
    NotImplementedError,
    UnicodeDecodeError,
    *DECOMPRESSION_ERRORS,
)


@dataclass(frozen=True)
class Source:
    """One record file: a display name, its bytes, or the reason it could not be read."""

    name: str
    data: bytes = b""
    error: str | None = None


def _is_archive(name: str) -> bool:
    return name.lower().endswith(ARCHIVE_SUFFIXES)


def _is_record(name: str) -> bool:
    path = PurePosixPath(name)
    hidden = any(part.startswith(".") or part == "__MACOSX" for part in path.parts)
    return not hidden and (path.suffix.lower() in RECORD_SUFFIXES or _is_archive(name))


def _zip_sources(path: Path, name: str) -> Iterator[Source]:
    with zipfile.ZipFile(path) as archive:
        for member in sorted(archive.infolist(), key=lambda info: info.filename):
            # a member with no name is no record (and zipfile's is_dir raises IndexError on it)
            if not member.filename or member.is_dir() or not _is_record(member.filename):
                continue
            member_name = f"{name}:{member.filename}"
            try:
                yield Source(member_name, archive.read(member))
            except (zipfile.BadZipFile, OSError, RuntimeError, *DECOMPRESSION_ERRORS) as error:
                yield Source(member_name, error=f"cannot read archive member: {error}")


def _tar_sources(path: Path, name: str) -> Iterator[Source]:
    with tarfile.open(path) as archive:
        members = sorted((m for m in archive.getmembers() if m.isfile()), key=lambda m: m.name)
        for member in members:
            if not _is_record(member.name):
                continue
            member_name = f"{name}:{member.name}"
            try:
                stream = archive.extractfile(member)
                yield Source(member_name, stream.read() if stream is not None else b"")
            except (tarfile.TarError, OSError, *DECOMPRESSION_ERRORS) as error:
                yield Source(member_name, error=f"cannot read archive member: {error}")


def _file_sources(path: Path) -> Iterator[Source]:
    name = str(path)
    try:
        if _is_archive(name):
            opener = _zip_sources if name.lower().endswith(".zip") else _tar_sources
            yield from opener(path, name)
        else:
            yield Source(name, path.read_bytes())
    except ARCHIVE_ERRORS as error:
        yield Source(name, error=f"cannot read {'archive' if _is_archive(name) else 'file'}: {error}")


def iter_sources(paths: Iterable[str | Path]) -> Iterator[Source]:
    """Every record file under ``paths``, in a stable order (directories walked sorted)."""
    for given in paths:
        path = Path(given)
        if path.is_dir():
            for child in sorted(path.rglob("*")):
                if child.is_file() and _is_record(str(child.relative_to(path))):
                    yield from _file_sources(child)
        elif path.exists():
            yield from _file_sources(path)
        else:
            yield Source(str(path), error="no such file or directory")
