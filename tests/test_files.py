"""Files published whole (``taldau.base.files``): a reader sees the old file or the new one, never half,
and a failed write leaves nothing behind."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
from taldau.base.files import publish, temporary_name, temporary_writer, write_text_atomic


def test_a_published_file_replaces_the_old_one_and_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "manifest.json"
    write_text_atomic("old\n", path)
    write_text_atomic("new: ü\n", path)
    assert path.read_text(encoding="utf-8") == "new: ü\n"
    assert [entry.name for entry in tmp_path.iterdir()] == ["manifest.json"]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "table.parquet"
    path.write_bytes(b"whole")

    def half_then_fail(temporary: Path) -> None:
        temporary.write_bytes(b"ha")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        publish(path, half_then_fail)
    assert path.read_bytes() == b"whole"
    assert [entry.name for entry in tmp_path.iterdir()] == ["table.parquet"]


def test_temporary_names_are_hidden_and_name_their_writer(tmp_path: Path) -> None:
    first, second = temporary_name(tmp_path / "a.parquet"), temporary_name(tmp_path / "a.parquet")
    assert first != second
    assert first.name.startswith(".a.parquet~") and first.suffix == ".tmp"
    assert temporary_writer(first) == (socket.gethostname(), os.getpid())
    assert temporary_writer(tmp_path / ".a.parquet.tmp") is None  # not a name it made
    first.write_bytes(b"part")
    assert not list(tmp_path.glob("*.parquet"))  # readers' globs never match them
