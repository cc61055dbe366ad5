"""Files written so that a reader never sees half of one: filled under a temporary name of the writer's
own beside the final name (skipped by readers' globs, which never match a leading dot), synced, then
renamed over the final name. Concurrent writers of the same file leave one whole file, the last one's.

The lowest layer of the package (games, schemas, analysis and workers all write through it), so it
knows nothing of what is written: the caller passes the function that fills the temporary file.

Files are read only when they are regular files (or links to one): a FIFO blocks its reader until a writer
comes, a device may never end, a socket cannot be read; ``not_regular`` says what such a path is, and
``open_regular`` opens a file without blocking and refuses it if it is not a regular one.

Commands that write ask ``unwritable`` (a folder) or ``unwritable_file`` first, before any work: one line
for the user instead of an error deep inside the work."""

from __future__ import annotations

import json
import os
import secrets
import socket
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO


def _kind(mode: int) -> str:
    """What a file of ``mode`` that is not a regular file is."""
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


def not_regular(path: Path) -> str | None:
    """Why ``path`` is not a file to read (``a FIFO (named pipe)``, ``a socket``, ``a device``, ``a broken
    link``), None for a regular file or a link to one. A path that does not exist raises OSError."""
    try:
        mode = path.stat().st_mode
    except OSError:
        if path.is_symlink():
            return f"a broken link (to {os.readlink(path)})"
        raise
    return None if stat.S_ISREG(mode) else _kind(mode)


class NotRegularFile(OSError):
    """A path to read that is not a regular file (a FIFO, a socket, a device)."""


def open_regular(path: Path) -> BinaryIO:
    """``path`` opened for reading in binary, if it is a regular file; raises NotRegularFile otherwise,
    without waiting for a FIFO's writer."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegularFile(f"{_kind(mode)}, not a regular file: not read")
        os.set_blocking(descriptor, True)
        return os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise


def temporary_name(path: Path) -> Path:
    """A temporary name beside ``path`` that names its writer: ``.<name>~<host>~<pid>~<random>.tmp``."""
    return path.with_name(f".{path.name}~{socket.gethostname()}~{os.getpid()}~{secrets.token_hex(4)}.tmp")


def temporary_writer(temporary: Path) -> tuple[str, int] | None:
    """The host and process id that ``temporary_name`` put in ``temporary``'s name; None for a name it
    did not make."""
    try:
        _, host, pid, _ = temporary.name.removesuffix(".tmp").split("~")
        return host, int(pid)
    except ValueError:
        return None


def publish(path: Path, write: Callable[[Path], object]) -> None:
    """Have ``write`` fill a temporary name of this writer's own beside ``path``, sync it, rename it over
    ``path`` and sync the folder; the temporary file never outlives a failure."""
    temporary = temporary_name(path)
    try:
        write(temporary)
        with open(temporary, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    sync_folder(path.parent)


def sync_folder(folder: Path) -> None:
    """Sync ``folder``'s entries (a rename in it survives a power cut once this returns); a file system
    that cannot sync a folder is left to its own order."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


def write_bytes_atomic(data: bytes, path: Path) -> None:
    """Write ``data`` to ``path`` through ``publish``."""
    publish(path, lambda temporary: temporary.write_bytes(data))


def append_json_line(record: object, path: Path) -> None:
    """``record`` appended to ``path`` as one line of compact JSON, flushed and synced (a file of lines
    that a stopped writer leaves whole but for a torn last line), its folder made if need be."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(record, separators=(",", ":")) + "\n")
        handle.flush()
        os.fsync(handle.fileno())


def json_lines(path: Path) -> Iterator[Any]:
    """The records of a file of JSON lines (``append_json_line``'s), in order; a line that does not parse
    (the torn last line of a stopped writer) is skipped, a missing file has none."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return
    for line in lines:
        try:
            yield json.loads(line)
        except ValueError:
            continue


def write_text_atomic(text: str, path: Path) -> None:
    """Write ``text`` to ``path`` in UTF-8 through ``publish``."""
    write_bytes_atomic(text.encode("utf-8"), path)


def unwritable(folder: str | Path) -> str | None:
    """Why files cannot be written in ``folder`` (made, with the folders above it, when missing), in a few
    words that name the folder at fault (``out is a file, not a folder``, ``/srv: permission denied``,
    ``/mnt/cd: read-only file system``); None when they can. Nothing is made: a nameless temporary file is
    tried in ``folder``, or in the nearest folder above it that exists when it does not."""
    probe = Path(folder)
    while True:
        try:
            mode = probe.stat().st_mode
            break
        except (FileNotFoundError, NotADirectoryError, PermissionError):
            if probe.parent == probe:  # the root, or "." that cannot be entered
                return f"{probe}: cannot be entered"
            probe = probe.parent  # missing, under a file, or in a folder that cannot be entered
    if not stat.S_ISDIR(mode):
        what = "a file" if stat.S_ISREG(mode) else _kind(mode)
        return f"{probe} is {what}, not a folder"
    try:
        tempfile.TemporaryFile(dir=probe).close()
    except OSError as error:
        return f"{probe}: {(error.strerror or str(error)).lower()}"
    return None


def unwritable_file(path: str | Path) -> str | None:
    """Why ``path`` cannot be written as a file (it is a folder, or its folder is ``unwritable``); None
    when it can."""
    path = Path(path)
    if path.is_dir():
        return f"{path} is a folder, not a file"
    return unwritable(path.parent)
