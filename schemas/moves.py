"""The ``moves`` table: one row per analysed decision of a game (a Togyz move; a backgammon checker play,
cube decision or take decision: ``kind``).

Sides: what a position is worth (``score_*``, ``cubeless_*``, ``win_chance_*``) is stored from the first
player's side (Togyz White; backgammon the match's first player), so that it reads along a game; what a
decision costs or brings the player who makes it (``loss``, ``loss_mwc``, ``luck``, ``mark``, the cube
equities, the plies to a forced result) from that player's side.

Togyz Kumalak rows: scores are in kumalak; a forced result is its own value, the plies to it in
``plies_to_result_best`` / ``plies_to_result_played`` (its score stays ``+-(1000 - plies)``, so that scores
sort). ``loss`` is in kumalak, at most ``games.togyz.review.LOSS_CAP`` (20 kumalak). Winning chances are in
[-1, 1] through the win curve. ``kind`` is ``move``; the backgammon columns are null.

Backgammon rows: ``fen`` holds gnubg's Position ID, ``match_id`` its Match ID; scores are cubeful equities
in EMG (gnubg's normalised equity: in a match, match winning chances rescaled to money-game units) and
``loss`` the equity lost in EMG; winning chances are 2 x the cubeless probability of winning the game - 1.

``counted`` says whether a decision counts in the players' error rates (the games table's figures):
their mean loss is the mean of ``loss`` over the counted decisions.

Version 2 added the two plies columns and capped ``loss`` (version 1 stored forced results in it as up to
2,000 kumalak). Version 3 added ``kind`` and the backgammon columns from ``dice`` on, and ``counted``;
version 2 files read with them null.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import astuple, dataclass, fields

import pyarrow as pa
from taldau.games.togyz.review import LOSS_CAP

MOVES_SCHEMA_VERSION = "3"


def _field(name: str, kind: pa.DataType, doc: str, nullable: bool = False) -> pa.Field:
    return pa.field(name, kind, nullable=nullable, metadata={"doc": doc})


MOVES_SCHEMA = pa.schema(
    [
        _field("game_id", pa.string(), "content-derived id of the game"),
        _field("ply", pa.int32(), "decision index in the game, from 0"),
        _field("side", pa.int8(), "player deciding: 0 the first player (Togyz White), 1 the second"),
        _field("kind", pa.string(), "move (Togyz move, backgammon checker play), cube (double or not), take"),
        _field(
            "dice",
            pa.string(),
            "backgammon: the dice of a checker play as rolled, two digits ('31', '66'); null otherwise",
            nullable=True,
        ),
        _field("fen", pa.string(), "position before the decision: Togyz FEN, backgammon gnubg Position ID"),
        _field("match_id", pa.string(), "backgammon: gnubg Match ID before the decision", nullable=True),
        _field("key", pa.uint64(), "stable 64-bit key of the position before the decision"),
        _field("move", pa.string(), "action taken, record notation (backgammon cube: double, take, pass...)"),
        _field("best_move", pa.string(), "engine's best action"),
        _field("pv", pa.string(), "engine's principal variation, record notation"),
        _field(
            "score_best",
            pa.float64(),
            "score after the best action, first player's side: Togyz kumalak, backgammon cubeful EMG",
        ),
        _field(
            "score_played",
            pa.float64(),
            "score after the action taken, first player's side: Togyz kumalak, backgammon cubeful EMG",
        ),
        _field(
            "loss",
            pa.float64(),
            f"score lost by the action taken, decider's side: Togyz kumalak, 0 to {LOSS_CAP:g}; "
            "backgammon EMG, >= 0",
        ),
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
        _field(
            "win_chance_before",
            pa.float64(),
            "winning chances with the best action, first player's side, -1 to 1 "
            "(backgammon: 2 x cubeless game-winning probability - 1)",
        ),
        _field(
            "win_chance_after",
            pa.float64(),
            "winning chances after the action taken, first player's side, -1 to 1",
        ),
        _field(
            "mark",
            pa.string(),
            "?! inaccuracy (doubtful), ? mistake (bad), ?? blunder (very bad)",
            nullable=True,
        ),
        _field("forced", pa.bool_(), "the only legal action"),
        _field(
            "counted",
            pa.bool_(),
            "counts in the error rate: Togyz moves not forced; backgammon plays not forced, close or "
            "actual cube and take decisions",
        ),
        _field("depth", pa.int16(), "search depth reached (backgammon: plies)"),
        _field("seldepth", pa.int16(), "deepest ply reached"),
        _field("nodes", pa.int64(), "nodes (positions evaluated) for this decision"),
        _field("seconds", pa.float64(), "search time for this decision"),
        _field(
            "cubeless_best",
            pa.float64(),
            "backgammon: cubeless equity after the best action (a cube decision: before the roll), EMG, "
            "first player's side",
            nullable=True,
        ),
        _field(
            "cubeless_played",
            pa.float64(),
            "backgammon: cubeless equity after the action taken, EMG, first player's side",
            nullable=True,
        ),
        _field(
            "no_double",
            pa.float64(),
            "backgammon cube and take decisions: cubeful equity of No double, EMG, decider's side",
            nullable=True,
        ),
        _field(
            "double_take",
            pa.float64(),
            "backgammon cube and take decisions: cubeful equity of Double, take, EMG, decider's side",
            nullable=True,
        ),
        _field(
            "double_pass",
            pa.float64(),
            "backgammon cube and take decisions: cubeful equity of Double, pass, EMG, decider's side",
            nullable=True,
        ),
        _field(
            "verdict",
            pa.string(),
            "backgammon cube and take decisions: the right cube action in gnubg's words (the doubler's)",
            nullable=True,
        ),
        _field(
            "luck",
            pa.float64(),
            "backgammon checker plays: luck of the roll, EMG, mover's side (equity after the roll minus "
            "the average over all rolls)",
            nullable=True,
        ),
        _field(
            "luck_mark",
            pa.string(),
            "backgammon: ++ very lucky, + lucky, - unlucky, -- very unlucky",
            nullable=True,
        ),
        _field(
            "loss_mwc",
            pa.float64(),
            "backgammon match play: match winning chances lost, 0 to 1, decider's side",
            nullable=True,
        ),
    ],
    metadata={"taldau.table": "moves", "taldau.schema_version": MOVES_SCHEMA_VERSION},
)


@dataclass(frozen=True, kw_only=True)
class MoveRow:
    """One row of the ``moves`` table (the columns' meanings are in MOVES_SCHEMA's field docs); the
    backgammon columns default to null."""

    game_id: str
    ply: int
    side: int
    kind: str
    dice: str | None = None
    fen: str
    match_id: str | None = None
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
    counted: bool
    depth: int
    seldepth: int
    nodes: int
    seconds: float
    cubeless_best: float | None = None
    cubeless_played: float | None = None
    no_double: float | None = None
    double_take: float | None = None
    double_pass: float | None = None
    verdict: str | None = None
    luck: float | None = None
    luck_mark: str | None = None
    loss_mwc: float | None = None


_ROW_FIELDS = [field.name for field in fields(MoveRow)]


def moves_table(rows: Iterable[MoveRow]) -> pa.Table:
    """Rows as a table of MOVES_SCHEMA."""
    values = [astuple(row) for row in rows]
    columns = {name: [value[index] for value in values] for index, name in enumerate(_ROW_FIELDS)}
    return pa.Table.from_pydict(columns, schema=MOVES_SCHEMA)
