"""Tables written to disk so that a reader never sees half a file: through a temporary name of the writer's
own (skipped by readers' ``*.parquet`` globs), synced, then renamed over the final name."""

from __future__ import annotations

import os
import secrets
import socket
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq


def temporary_name(path: Path) -> Path:
    """A temporary name beside ``path`` that names its writer: ``.<name>~<host>~<pid>~<random>.tmp``."""
    return path.with_name(f".{path.name}~{socket.gethostname()}~{os.getpid()}~{secrets.token_hex(4)}.tmp")


def write_atomic(table: pa.Table, path: Path) -> None:
    """Write ``table`` to ``path`` through a temporary file of this writer's own, synced and renamed."""
    temporary = temporary_name(path)
    try:
        pq.write_table(table, temporary, compression="zstd")
        with open(temporary, "rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)


def write_bytes_atomic(data: bytes, path: Path) -> None:
    """Write ``data`` to ``path`` as ``write_atomic`` writes a table: a temporary name, synced, renamed."""
    temporary = temporary_name(path)
    try:
        with open(temporary, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
