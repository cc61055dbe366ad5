"""The ``games`` table: one row per game of an analysed archive, analysed or not.

``status`` is ``ok`` (analysed), ``invalid`` (the record breaks the rules or cannot be read; ``error`` says
where) or ``failed`` (the analysis itself failed; ``error`` says why). Per side: counts of each mark,
accuracy (0 to 100) and mean loss in the game's unit: the mean of the ``moves`` table's ``loss`` over the
side's moves not ``forced``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import cast

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


def games_table(rows: Iterable[Mapping[str, object]]) -> pa.Table:
    """Rows (dicts with GAMES_SCHEMA's names; missing ones are null) as a table of GAMES_SCHEMA."""
    rows = list(rows)
    columns = {name: [row.get(name) for row in rows] for name in GAMES_SCHEMA.names}
    columns["headers"] = [list(cast(Mapping[str, str], h or {}).items()) for h in columns["headers"]]
    return pa.Table.from_pydict(columns, schema=GAMES_SCHEMA)
