"""Columns declared once: a row type's dataclass fields carry their Arrow type and description (``column``),
and a table's schema is generated from the row type (``columns_of``, ``table_schema``), so that a column's
name, type, nullability and meaning are written in one place."""

from __future__ import annotations

from dataclasses import MISSING, Field, field, fields
from typing import Any

import pyarrow as pa

ARROW = "arrow"  # the dataclass field metadata key holding the column's pa.Field


def column(kind: pa.DataType, doc: str, nullable: bool = False, default: Any = MISSING) -> Any:
    """A dataclass field that is a table column of Arrow type ``kind`` described by ``doc`` (the Parquet
    field's ``doc`` metadata); nullable columns hold None where the row has no value."""
    metadata = {ARROW: (kind, doc, nullable)}
    return field(metadata=metadata) if default is MISSING else field(default=default, metadata=metadata)


def described(name: str, kind: pa.DataType, doc: str, nullable: bool = True) -> pa.Field:
    """An Arrow field named ``name`` of type ``kind`` whose ``doc`` metadata says what it holds."""
    return pa.field(name, kind, nullable=nullable, metadata={"doc": doc})


def _column_fields(row_type: type) -> list[Field[Any]]:
    return [item for item in fields(row_type) if ARROW in item.metadata]


def column_names(row_type: type) -> tuple[str, ...]:
    """The names of ``row_type``'s columns, in order."""
    return tuple(item.name for item in _column_fields(row_type))


def columns_of(row_type: type, prefix: str = "", doc_prefix: str = "") -> list[pa.Field]:
    """``row_type``'s columns as Arrow fields, in declaration order; ``prefix`` before each name and
    ``doc_prefix`` before each description (one row type for several groups of columns: a side's)."""
    result = []
    for item in _column_fields(row_type):
        kind, doc, nullable = item.metadata[ARROW]
        result.append(described(f"{prefix}{item.name}", kind, f"{doc_prefix}{doc}", nullable))
    return result


def table_schema(table: str, version: str, columns: list[pa.Field]) -> pa.Schema:
    """The schema of table ``table`` at schema ``version`` (both in the schema's metadata)."""
    return pa.schema(columns, metadata={"taldau.table": table, "taldau.schema_version": version})
