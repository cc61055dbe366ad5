"""Tables written to disk so that a reader never sees half a file: through a temporary name of the writer's
own (skipped by readers' ``*.parquet`` globs), synced, then renamed over the final name."""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq


def temporary_name(path: Path) -> Path:
    """A temporary name beside ``path`` that names its writer: ``.<name>~<host>~<pid>~<random>.tmp``."""
    return path.with_name(f".{path.name}~{socket.gethostname()}~{os.getpid()}~{secrets.token_hex(4)}.tmp")


def write_atomic(table: pa.Table, path: Path) -> None:
    """Write ``table`` to ``path`` through a temporary file of this writer's own, synced and renamed."""
    _publish(path, lambda temporary: pq.write_table(table, temporary, compression="zstd"))


def write_bytes_atomic(data: bytes, path: Path) -> None:
    """Write ``data`` to ``path`` as ``write_atomic`` writes a table: a temporary name, synced, renamed."""
    _publish(path, lambda temporary: temporary.write_bytes(data))


def _publish(path: Path, write: Callable[[Path], object]) -> None:
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
