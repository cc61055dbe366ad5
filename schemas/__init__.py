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
from .moves import (
    MOVES_SCHEMA,
    MOVES_SCHEMA_VERSION,
    RENAMED_IN_7,
    MoveRow,
    as_current,
    move_rows_of,
    moves_table,
)

__all__ = [
    "GAMES_SCHEMA",
    "GAMES_SCHEMA_VERSION",
    "HEADER_COLUMNS",
    "MOVES_SCHEMA",
    "MOVES_SCHEMA_VERSION",
    "RENAMED_IN_7",
    "GameRow",
    "MoveRow",
    "SideFigures",
    "Status",
    "as_current",
    "games_table",
    "move_rows_of",
    "moves_table",
]
