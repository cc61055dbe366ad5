"""Arrow schemas of every table taldau writes, each with its version in the schema metadata."""

from .games import (
    GAMES_SCHEMA,
    GAMES_SCHEMA_VERSION,
    HEADER_COLUMNS,
    GameRow,
    SideFigures,
    Status,
    games_table,
)
from .moves import MOVES_SCHEMA, MOVES_SCHEMA_VERSION, MoveRow, moves_table, plies_from_one

__all__ = [
    "GAMES_SCHEMA",
    "GAMES_SCHEMA_VERSION",
    "HEADER_COLUMNS",
    "MOVES_SCHEMA",
    "MOVES_SCHEMA_VERSION",
    "GameRow",
    "MoveRow",
    "SideFigures",
    "Status",
    "games_table",
    "moves_table",
    "plies_from_one",
]
