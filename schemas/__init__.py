"""Arrow schemas of every table taldau writes, each with its version in the schema metadata."""

from .moves import MOVES_SCHEMA, MOVES_SCHEMA_VERSION, moves_table

__all__ = ["MOVES_SCHEMA", "MOVES_SCHEMA_VERSION", "moves_table"]
