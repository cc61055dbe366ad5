"""What every game's record readers share: the error type that points into a record, a capped error list,
and the decoding of record files to text."""

from __future__ import annotations

from dataclasses import dataclass

MAX_ERRORS_PER_GAME = 10


@dataclass(frozen=True)
class RecordError:
    """A problem in a record, at a 1-based line and column of its source (0 when not tied to one)."""

    line: int
    column: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}, column {self.column}: {self.message}"


def append_error(errors: list[RecordError], line: int, column: int, message: str) -> None:
    """Append an error to a game's list, keeping at most MAX_ERRORS_PER_GAME and a note that more exist."""
    if len(errors) < MAX_ERRORS_PER_GAME:
        errors.append(RecordError(line, column, message))
    elif len(errors) == MAX_ERRORS_PER_GAME:
        errors.append(RecordError(line, column, "further errors in this game are not listed"))


def decode_record(data: bytes) -> str:
    """Text of a record file: UTF-8 (BOM allowed), else Windows-1251; raises ValueError for binary data."""
    if b"\x00" in data:
        raise ValueError("binary data (NUL bytes), not a text game record")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1251", errors="replace")
