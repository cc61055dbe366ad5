"""The ``games`` table: one row per game of an analysed archive, analysed or not.

``status`` is ``ok`` (analysed), ``invalid`` (the record breaks the rules or cannot be read; ``error`` says
where) or ``failed`` (the analysis itself failed; ``error`` says why). Per side: counts of each mark,
accuracy (0 to 100) and mean loss in the game's unit: the mean of the ``moves`` table's ``loss`` over the
side's moves not ``forced``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

import pyarrow as pa

GAMES_SCHEMA_VERSION = "1"
HEADER_COLUMNS = {
    "Event": "event",
    "Site": "site",
    "Date": "date",
    "Round": "round",
    "White": "white",
    "Black": "black",
    "WhiteElo": "white_elo",
    "BlackElo": "black_elo",
}
SIDE_STATS = ("inaccuracies", "mistakes", "blunders", "accuracy", "mean_loss")


class Status(StrEnum):
    """How a game ended up in the table (the ``status`` column holds these strings)."""

    OK = "ok"  # analysed
    INVALID = "invalid"  # the record breaks the rules or cannot be read
    FAILED = "failed"  # the analysis itself failed


@dataclass(frozen=True)
class SideFigures:
    """One side's figures over an analysed game: counts of each mark, accuracy (0 to 100), mean loss."""

    inaccuracies: int
    mistakes: int
    blunders: int
    accuracy: float
    mean_loss: float


@dataclass(frozen=True)
class GameRow:
    """One row of the ``games`` table. The header columns (``event``, ``white``...) are read from
    ``headers`` (HEADER_COLUMNS); the sides' figures are null unless the game was analysed."""

    game_id: str
    game: str
    source: str
    index: int
    status: Status
    settings: str
    format: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    result: str | None = None
    termination: str | None = None
    plies: int = 0
    error: str | None = None
    white: SideFigures | None = None
    black: SideFigures | None = None

    def columns(self) -> dict[str, object]:
        """The row as GAMES_SCHEMA's columns."""
        row: dict[str, object] = {
            "game_id": self.game_id,
            "game": self.game,
            "source": self.source,
            "index": self.index,
            "format": self.format,
            "headers": list(self.headers.items()),
            "result": self.result,
            "termination": self.termination,
            "plies": self.plies,
            "status": str(self.status),
            "error": self.error,
            "settings": self.settings,
        }
        for header, column in HEADER_COLUMNS.items():
            row[column] = self.headers.get(header)
        for side, figures in (("white", self.white), ("black", self.black)):
            for name in SIDE_STATS:
                row[f"{side}_{name}"] = None if figures is None else getattr(figures, name)
        return row


def _side_fields(side: str) -> list[pa.Field]:
    return [
        pa.field(f"{side}_inaccuracies", pa.int32(), nullable=True),
        pa.field(f"{side}_mistakes", pa.int32(), nullable=True),
        pa.field(f"{side}_blunders", pa.int32(), nullable=True),
        pa.field(f"{side}_accuracy", pa.float64(), nullable=True),
        pa.field(f"{side}_mean_loss", pa.float64(), nullable=True),
    ]


GAMES_SCHEMA = pa.schema(
    [
        pa.field("game_id", pa.string(), nullable=False),
        pa.field("game", pa.string(), nullable=False),
        pa.field("source", pa.string(), nullable=False),
        pa.field("index", pa.int32(), nullable=False),
        pa.field("format", pa.string(), nullable=True),
        *[pa.field(column, pa.string(), nullable=True) for column in HEADER_COLUMNS.values()],
        pa.field("headers", pa.map_(pa.string(), pa.string()), nullable=True),
        pa.field("result", pa.string(), nullable=True),
        pa.field("termination", pa.string(), nullable=True),
        pa.field("plies", pa.int32(), nullable=False),
        pa.field("status", pa.string(), nullable=False),
        pa.field("error", pa.string(), nullable=True),
        *_side_fields("white"),
        *_side_fields("black"),
        pa.field("settings", pa.string(), nullable=False),
    ],
    metadata={"taldau.table": "games", "taldau.schema_version": GAMES_SCHEMA_VERSION},
)


def games_table(rows: Iterable[GameRow]) -> pa.Table:
    """Rows as a table of GAMES_SCHEMA."""
    records = [row.columns() for row in rows]
    return pa.Table.from_pydict(
        {name: [record[name] for record in records] for name in GAMES_SCHEMA.names}, schema=GAMES_SCHEMA
    )
