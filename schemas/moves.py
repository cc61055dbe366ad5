"""The ``moves`` table: one row per analysed decision of a game (a Togyz move; a backgammon checker play,
cube decision or take decision: ``kind``).

Sides: what a position is worth (``score_*``, ``cubeless_*``, ``chance_*``) is stored from the first
player's side (Togyz White; backgammon the match's first player), so that it reads along a game; what a
decision costs or brings the player who makes it (``loss``, ``drop``, ``loss_mwc``, ``luck``, ``mark``,
the cube equities, the plies to a forced result) from that player's side.

Togyz Kumalak rows: scores are in kumalak; a forced result is its own value, the plies to it in
``plies_to_result_best`` / ``plies_to_result_played`` (its score stays ``+-(1000 - plies)``, so that scores
sort). ``loss`` is in kumalak, at most ``games.togyz.review.LOSS_CAP`` (20 kumalak). Winning chances are in
[-1, 1] through the win curve. ``kind`` is ``move``; the backgammon columns are null.

Backgammon rows: ``position`` holds gnubg's Position ID, ``match_id`` its Match ID; scores are cubeful
equities in EMG (gnubg's normalised equity: in a match, match winning chances rescaled to money-game
units) and ``loss`` (= ``drop``) the equity lost in EMG; winning chances are 2 x the cubeless
probability of winning the game - 1.

``counted`` says whether a decision counts in the players' error rates (the games table's figures):
their mean loss is the mean of ``loss`` over the counted decisions.

Columns: the table is one table for every game, its columns assembled from the registered games
(``taldau.games.registry``): those every game's rows fill (``CommonColumns``: the fields of the decision
record, ``taldau.base.kind.Decision``, with the game id and the mark) and each game's own, which the game
declares with its part of the decision (``GameKind.detail``: its ``columns``, each group placed after the
common column it names, with a plain type that ``pa.type_for_alias`` reads); another game's rows leave them
null. The order, names and types are those the table has always had (a test pins them).

Numbering: ``ply`` counts a game's decisions as players count moves, from 1 (the first decision of a game is
1): a Togyz game's ply N is its Nth half-move (White's first move is 1, Black's answer 2; in a game from the
start, the record's move ``k`` is plies ``2k - 1`` and ``2k``); a backgammon game's decisions are numbered in
order, every checker play, cube and take decision counted (the match file's move number, each player's half of
a Jellyfish line, is ``taldau.base.kind.move_numbers`` of the rows' ``side`` and ``kind``). ``side`` is the
deciding player counted from 0, as every table counts sides: 0 the first player (Togyz White, backgammon
Player 1, a Jellyfish file's left column), 1 the second.

Version 2 added the two plies columns and capped ``loss`` (version 1 stored forced results in it as up to
2,000 kumalak). Version 3 added ``kind`` and the backgammon columns from ``dice`` on, and ``counted``;
version 2 files read with them null. Version 4 counts ``ply`` from 1 (files before it count from 0:
``plies_from_one`` reads them as version 4 counts). Version 5 added ``judged`` and ``loss_se`` (how a
backgammon decision was judged, and the standard error of a loss a rollout settled); files before it read
with them null. Version 6 added ``luck_mwc`` (a roll's luck in match winning chances); files before it
read with it null. Version 7 names every column as the decision record (``taldau.base.kind.Decision``,
and its game's part) names its field (``position``, ``played``, ``best``, ``chance_before``,
``chance_after`` were ``fen``, ``move``, ``best_move``, ``win_chance_before``, ``win_chance_after``:
``RENAMED_IN_7``) and stores ``drop``, the loss the marks were set by; ``as_current`` reads every earlier
file as version 7 has it.
Version 8 added the reference: ``reference``, ``reference_best`` and ``reference_loss``, the judgement of
the decision that the record file holds (XG's in a ``.xg``, gnubg's in an analysed SGF); files before it
read with them null.

A folder analysed ``--level stored`` holds the files' own judgements as the analysis: ``loss``, ``drop``
and ``best`` are the reference's; a decision the file did not judge has loss 0, no mark, ``counted`` false
and null reference columns (not judged), and ``judged`` is null throughout (the reference says who
judged); the values the file does not give (scores, winning chances, cube equities, luck) are 0 or null.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import Field, astuple, dataclass, field, fields, make_dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from taldau.base.kind import ColumnGroup, settled_label
from taldau.games.registry import KINDS

from .columns import column, column_names, columns_of, table_schema

MOVES_SCHEMA_VERSION = "8"
FIRST_PLY_FROM_ONE = 4  # the first version whose ``ply`` counts from 1
FIRST_WITH_DROP = 7  # the first version that stores ``drop`` and names the columns as ``Decision`` does
# The columns version 7 renamed: their names before it -> today's (the fields of ``base.kind.Decision``).
RENAMED_IN_7 = {
    "fen": "position",
    "move": "played",
    "best_move": "best",
    "win_chance_before": "chance_before",
    "win_chance_after": "chance_after",
}


@dataclass(frozen=True, kw_only=True)
class CommonColumns:
    """The columns of the ``moves`` table that every game's rows fill (the fields of
    ``taldau.base.kind.Decision`` but its ``detail``, with the game's id and the decision's mark), in the
    table's order: each field a column, its Arrow type and meaning declared with it."""

    game_id: str = column(pa.string(), "content-derived id of the game")
    ply: int = column(
        pa.int32(),
        "the decision's number in the game, from 1: Togyz the ply (White's first move 1, Black's answer 2); "
        "backgammon every checker play, cube and take decision in order",
    )
    side: int = column(
        pa.int8(), "player deciding: 0 the first player (Togyz White, backgammon Player 1), 1 the second"
    )
    kind: str = column(pa.string(), "move (Togyz move, backgammon checker play), cube (double or not), take")
    position: str = column(
        pa.string(), "position before the decision: Togyz FEN, backgammon gnubg Position ID"
    )
    key: int = column(pa.uint64(), "stable 64-bit key of the position before the decision")
    played: str = column(
        pa.string(), "action taken, record notation (backgammon cube: double, take, pass...)"
    )
    best: str = column(pa.string(), "engine's best action")
    pv: str = column(pa.string(), "engine's principal variation, record notation")
    score_best: float = column(
        pa.float64(),
        "score after the best action, first player's side: Togyz kumalak, backgammon cubeful EMG",
    )
    score_played: float = column(
        pa.float64(),
        "score after the action taken, first player's side: Togyz kumalak, backgammon cubeful EMG",
    )
    loss: float = column(
        pa.float64(),
        "score lost by the action taken, decider's side: Togyz kumalak, 0 to the most one move can lose "
        "(games.togyz.review.LOSS_CAP); backgammon EMG, >= 0",
    )
    drop: float = column(
        pa.float64(),
        "what the marks are set by, decider's side, in the analyser's scale: Togyz winning chances given "
        "away (0 to 2), backgammon EMG (the loss); a hair below 0 where the action taken searched better",
    )
    chance_before: float = column(
        pa.float64(),
        "winning chances with the best action, first player's side, -1 to 1 "
        "(backgammon: 2 x cubeless game-winning probability - 1)",
    )
    chance_after: float = column(
        pa.float64(), "winning chances after the action taken, first player's side, -1 to 1"
    )
    mark: str | None = column(
        pa.string(), "?! inaccuracy (doubtful), ? mistake (bad), ?? blunder (very bad)", nullable=True
    )
    forced: bool = column(pa.bool_(), "the only legal action")
    counted: bool = column(
        pa.bool_(),
        "counts in the error rate: Togyz moves not forced; backgammon plays not forced, close or "
        "actual cube and take decisions",
    )
    depth: int = column(pa.int16(), "search depth reached (backgammon: plies)")
    seldepth: int = column(pa.int16(), "deepest ply reached")
    nodes: int = column(pa.int64(), "nodes (positions evaluated) for this decision")
    seconds: float = column(pa.float64(), "search time for this decision")
    judged: str | None = column(
        pa.string(),
        "backgammon: how the decision was judged: its plies ('2-ply'), or where a decision in doubt was "
        "settled again, deeper plies ('3-ply') or a rollout ('rollout, 648 trials')",
        nullable=True,
        default=None,
    )
    loss_se: float | None = column(
        pa.float64(),
        "backgammon: standard error of loss (EMG) where a rollout judged the decision, else null",
        nullable=True,
        default=None,
    )
    reference: str | None = column(
        pa.string(),
        "who judged the decision in the record file, at what level ('XG Roller++', 'XG 4-ply', "
        "'gnubg 2-ply'), where the file holds a judgement of it (null before schema 8)",
        nullable=True,
        default=None,
    )
    reference_best: str | None = column(
        pa.string(),
        "the reference's best action, in the notation of best",
        nullable=True,
        default=None,
    )
    reference_loss: float | None = column(
        pa.float64(),
        "what the reference says the action taken lost, in the unit of loss (backgammon EMG), >= 0",
        nullable=True,
        default=None,
    )


class _RowMethods:
    """What a ``MoveRow`` answers besides its columns."""

    side: int
    judged: str | None
    depth: int
    loss_se: float | None

    @property
    def sign(self) -> int:
        """+1 when the first player decides, -1 for the second: turns first-player values to the mover's."""
        return 1 if self.side == 0 else -1

    @property
    def settled(self) -> str | None:
        """How the decision was settled again where it was in doubt (``rollout, 648 trials, ±0.031``), or
        None (``base.kind.settled_label``)."""
        return settled_label(self.judged, self.depth, self.loss_se)


# The plain types a game declares its columns in (``base.kind.COLUMN_TYPES``, Arrow's names) as Python's.
_PYTHON_TYPES: dict[str, type] = {"string": str, "bool": bool, "float64": float}


def _game_columns(groups: Iterable[ColumnGroup]) -> Iterator[tuple[str, ColumnGroup]]:
    """Every registered game's column groups, in the registry's order, with the game's name."""
    for kind in KINDS:
        if kind.detail is not None:
            yield from ((kind.name, group) for group in kind.detail.columns)
    yield from (("", group) for group in groups)


def assembled(extra: Iterable[ColumnGroup] = ()) -> list[tuple[str, Any, Field[Any]]]:
    """The ``moves`` table's columns as dataclass fields (name, type, field): the common ones
    (``CommonColumns``) with each registered game's own (``GameKind.detail``'s ``columns``, and
    ``extra`` groups after them) each placed after the column its group names, a game's after those of
    the games registered before it that follow the same column. A column declared twice (by two games,
    or by a game and the common ones) is a ValueError: the table has one column of each name."""
    specs = [
        (item.name, item.type, field(default=item.default, metadata=item.metadata))
        for item in fields(CommonColumns)
    ]
    names = [name for name, _, _ in specs]
    last: dict[str, str] = {}
    for game, group in _game_columns(extra):
        if group.after not in names:
            raise ValueError(f"{game}: no column {group.after!r} to put {group.columns} after")
        at = names.index(last.get(group.after, group.after)) + 1
        for offset, declared in enumerate(group.columns):
            if declared.name in names:
                raise ValueError(f"{game}: the moves table has a column {declared.name!r} already")
            kind = _PYTHON_TYPES.get(declared.type, int)
            item = column(pa.type_for_alias(declared.type), declared.doc, nullable=True, default=None)
            specs.insert(at + offset, (declared.name, kind | None, item))
            names.insert(at + offset, declared.name)
        last[group.after] = group.columns[-1].name
    return specs


MoveRow = make_dataclass("MoveRow", assembled(), bases=(_RowMethods,), frozen=True, kw_only=True)
MoveRow.__module__ = __name__
MoveRow.__doc__ = """One row of the ``moves`` table: the common columns (``CommonColumns``) and each
registered game's own (``GameKind.detail``), in the table's order, each field a column with its Arrow type
and meaning (MOVES_SCHEMA is generated from them); a game's columns default to null (another game's rows
leave them so)."""

MOVES_SCHEMA = table_schema("moves", MOVES_SCHEMA_VERSION, columns_of(MoveRow))


_ROW_FIELDS = column_names(MoveRow)


def as_current(table: pa.Table) -> pa.Table:
    """A ``moves`` table read from one file (its schema metadata kept) as today's version has it: ``ply``
    counted from 1 (files before version 4 count from 0), the columns renamed in version 7 under their
    names of today, and, in a file before version 7, ``drop`` as it was computed then: the loss of a
    backgammon row (one with a Match ID), the winning chances given away from the mover's side for a
    Togyz row. A column the file lacks stays absent (the reader fills it with nulls)."""
    version = (table.schema.metadata or {}).get(b"taldau.schema_version", b"").decode()
    if not version.isdigit() or int(version) >= FIRST_WITH_DROP:
        return table
    if "ply" in table.column_names and int(version) < FIRST_PLY_FROM_ONE:
        index = table.column_names.index("ply")
        one = pa.scalar(1, table.field(index).type)
        table = table.set_column(index, table.field(index), pc.add(table.column(index), one))
    table = table.rename_columns([RENAMED_IN_7.get(name, name) for name in table.column_names])
    if "drop" not in table.column_names and {"side", "chance_before", "chance_after"} <= set(
        table.column_names
    ):
        sign = pc.if_else(pc.equal(table["side"], 0), 1.0, -1.0)
        drop = pc.multiply(sign, pc.subtract(table["chance_before"], table["chance_after"]))
        if "match_id" in table.column_names and "loss" in table.column_names:
            drop = pc.if_else(pc.is_valid(table["match_id"]), table["loss"], drop)
        table = table.append_column("drop", drop.cast(pa.float64()))
    return table


def move_rows_of(table: pa.Table) -> list[MoveRow]:
    """Every row of a ``moves`` table of today's schema (all its columns, in order) as a ``MoveRow``, made
    straight from the table's values, which its schema has already checked: a whole archive's 260,000 rows
    in a second or two, three times faster than through ``__init__``."""
    if tuple(table.column_names) != _ROW_FIELDS:
        raise ValueError(f"a moves table of version {MOVES_SCHEMA_VERSION} has the columns {_ROW_FIELDS}")
    rows = []
    for values in zip(*(array.to_pylist() for array in table.columns), strict=True):
        row = object.__new__(MoveRow)
        row.__dict__.update(zip(_ROW_FIELDS, values, strict=True))
        rows.append(row)
    return rows


def moves_table(rows: Iterable[MoveRow]) -> pa.Table:
    """Rows as a table of MOVES_SCHEMA."""
    values = [astuple(row) for row in rows]
    columns = {name: [value[index] for value in values] for index, name in enumerate(_ROW_FIELDS)}
    return pa.Table.from_pydict(columns, schema=MOVES_SCHEMA)
