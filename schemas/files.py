"""Tables written to disk so that a reader never sees half a file (``taldau.base.files``: a temporary
name of the writer's own, skipped by readers' ``*.parquet`` globs, synced, then renamed over the final
name)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from taldau.base.files import publish


def write_atomic(table: pa.Table, path: Path) -> None:
    """Write ``table`` to ``path`` as zstd-compressed Parquet through a temporary file, synced and renamed."""
    publish(path, lambda temporary: pq.write_table(table, temporary, compression="zstd"))
