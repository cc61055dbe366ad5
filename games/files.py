"""Files written so that a reader never sees half of one: filled under a temporary name of the writer's
own beside the final name (skipped by readers' globs, which never match a leading dot), synced, then
renamed over the final name. Concurrent writers of the same file leave one whole file, the last one's.

The lowest layer of the package (games, schemas, analysis and workers all write through it), so it
knows nothing of what is written: the caller passes the function that fills the temporary file."""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import Callable
from pathlib import Path


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
    """Have ``write`` fill a temporary name of this writer's own beside ``path``, sync it and rename it
    over ``path``; the temporary file never outlives a failure."""
    temporary = temporary_name(path)
    try:
        write(temporary)
        with open(temporary, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def write_bytes_atomic(data: bytes, path: Path) -> None:
    """Write ``data`` to ``path`` through ``publish``."""
    publish(path, lambda temporary: temporary.write_bytes(data))


def write_text_atomic(text: str, path: Path) -> None:
    """Write ``text`` to ``path`` in UTF-8 through ``publish``."""
    write_bytes_atomic(text.encode("utf-8"), path)
