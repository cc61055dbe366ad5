"""The ``moves`` table: one row per analysed ply of a game.

Scores and winning chances are stored from White's (the first player's) side; ``loss``, ``mark`` and the
plies to a forced result from the mover's side. Scores are in the game's unit (kumalak for Togyz Kumalak); a
forced result is its own value, the plies to it in ``plies_to_result_best`` / ``plies_to_result_played``
(its score stays ``+-(1000 - plies)``, so that scores sort). ``loss`` is in the game's unit, at most
``games.togyz.review.LOSS_CAP`` (20 kumalak): the games table's mean loss is the mean of ``loss`` over the
moves not ``forced``. Winning chances are in [-1, 1].

Version 2 added the two plies columns and capped ``loss`` (version 1 stored forced results in it as up to
2,000 kumalak).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import astuple, dataclass, fields

import pyarrow as pa
from taldau.games.togyz.review import LOSS_CAP

MOVES_SCHEMA_VERSION = "2"


def _field(name: str, kind: pa.DataType, doc: str, nullable: bool = False) -> pa.Field:
    return pa.field(name, kind, nullable=nullable, metadata={"doc": doc})


MOVES_SCHEMA = pa.schema(
    [
        _field("game_id", pa.string(), "content-derived id of the game"),
        _field("ply", pa.int32(), "ply index from 0"),
        _field("side", pa.int8(), "mover: 0 White, 1 Black"),
        _field("fen", pa.string(), "position before the move"),
        _field("key", pa.uint64(), "stable 64-bit key of the position before the move"),
        _field("move", pa.string(), "move played, record notation"),
        _field("best_move", pa.string(), "engine's best move"),
        _field("pv", pa.string(), "engine's principal variation, record notation"),
        _field("score_best", pa.float64(), "score of the best move, White's side"),
        _field("score_played", pa.float64(), "score of the move played, White's side"),
        _field("loss", pa.float64(), f"score lost by the move played, mover's side, 0 to {LOSS_CAP:g}"),
        _field(
            "plies_to_result_best",
            pa.int16(),
            "plies to a forced result after the best move, mover's side (> 0 a win), else null",
            nullable=True,
        ),
        _field(
            "plies_to_result_played",
            pa.int16(),
            "plies to a forced result after the move played, mover's side (> 0 a win), else null",
            nullable=True,
        ),
        _field("win_chance_before", pa.float64(), "winning chances with the best move, White's side"),
        _field("win_chance_after", pa.float64(), "winning chances after the move played, White's side"),
        _field("mark", pa.string(), "?! inaccuracy, ? mistake, ?? blunder", nullable=True),
        _field("forced", pa.bool_(), "the only legal move"),
        _field("depth", pa.int16(), "search depth reached"),
        _field("seldepth", pa.int16(), "deepest ply reached"),
        _field("nodes", pa.int64(), "nodes searched for this ply"),
        _field("seconds", pa.float64(), "search time for this ply"),
    ],
    metadata={"taldau.table": "moves", "taldau.schema_version": MOVES_SCHEMA_VERSION},
)


@dataclass(frozen=True)
class MoveRow:
    """One row of the ``moves`` table (the columns' meanings are in MOVES_SCHEMA's field docs)."""

    game_id: str
    ply: int
    side: int
    fen: str
    key: int
    move: str
    best_move: str
    pv: str
    score_best: float
    score_played: float
    loss: float
    plies_to_result_best: int | None
    plies_to_result_played: int | None
    win_chance_before: float
    win_chance_after: float
    mark: str | None
    forced: bool
    depth: int
    seldepth: int
    nodes: int
    seconds: float


_ROW_FIELDS = [field.name for field in fields(MoveRow)]


def moves_table(rows: Iterable[MoveRow]) -> pa.Table:
    """Rows as a table of MOVES_SCHEMA."""
    values = [astuple(row) for row in rows]
    columns = {name: [value[index] for value in values] for index, name in enumerate(_ROW_FIELDS)}
    return pa.Table.from_pydict(columns, schema=MOVES_SCHEMA)
