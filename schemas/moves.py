"""The ``moves`` table: one row per analysed ply of a game.

Scores and winning chances are stored from White's (the first player's) side; ``loss``, ``mark`` and the
plies to a forced result from the mover's side. Scores are in the game's unit (kumalak for Togyz Kumalak); a
forced result is its own value, the plies to it in ``plies_to_result_best`` / ``plies_to_result_played``
(its score stays ``+-(1000 - plies)``, so that scores sort). ``loss`` is in the game's unit, at most
``analysis.review.LOSS_CAP`` (20 kumalak): the games table's mean loss is the mean of ``loss`` over the
moves not ``forced``. Winning chances are in [-1, 1].

Version 2 added the two plies columns and capped ``loss`` (version 1 stored forced results in it as up to
2,000 kumalak).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import astuple, fields

import pyarrow as pa
from taldau.analysis.review import LOSS_CAP, PlyReview

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

_REVIEW_FIELDS = [field.name for field in fields(PlyReview)]


def moves_table(game_id: str, plies: Iterable[PlyReview]) -> pa.Table:
    """The rows of one reviewed game as a table of MOVES_SCHEMA."""
    rows = [astuple(ply) for ply in plies]
    columns: dict[str, list[object]] = {"game_id": [game_id] * len(rows)}
    for index, name in enumerate(_REVIEW_FIELDS):
        columns[name] = [row[index] for row in rows]
    return pa.Table.from_pydict({name: columns[name] for name in MOVES_SCHEMA.names}, schema=MOVES_SCHEMA)
