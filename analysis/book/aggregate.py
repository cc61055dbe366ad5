"""An opening book's ``positions`` and ``moves`` tables from its inputs' ``plies`` and ``evals`` rows, by
Arrow group-bys (``taldau.schemas.book`` says what every column means).

The group-bys run single-threaded so that their results (means of floats included) depend on the rows'
order only, and the rows come in the order of their parts' names: the same inputs give the same book bit
for bit, however many builds and merges they went through.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.compute as pc
from taldau.schemas.book import BOOK_MOVES_SCHEMA, BOOK_POSITIONS_SCHEMA

RESULT_SUMS = ("wins", "draws", "losses", "points_won", "points_lost", "gammons_won", "gammons_lost")


def _results(plies: pa.Table) -> pa.Table:
    """The plies with their result columns from the mover's side, as counts of 0 or 1 (null without a
    result, so that sums skip them)."""
    won, lost = plies["points_for"], plies["points_against"]
    win = pc.greater(won, lost)
    loss = pc.less(won, lost)
    gammon = plies["gammon"]
    columns = {
        "wins": win,
        "draws": pc.equal(won, lost),
        "losses": loss,
        "points_won": won,
        "points_lost": lost,
        "gammons_won": pc.and_(win, gammon),
        "gammons_lost": pc.and_(loss, gammon),
    }
    for name, column in columns.items():
        kind = pa.float64() if name.startswith("points") else pa.int64()
        plies = plies.append_column(name, column.cast(kind))
    return plies


def _summed(plies: pa.Table, keys: list[str], extra: list[tuple[str, str]]) -> pa.Table:
    """Games, results, ratings and dates summed up per ``keys``, with ``extra`` aggregations."""
    aggregations = [
        ("game_id", "count"),
        *((name, "sum") for name in RESULT_SUMS),
        ("rating", "mean"),
        ("opponent_rating", "mean"),
        ("date", "min"),
        ("date", "max"),
        *extra,
    ]
    table = plies.group_by(keys, use_threads=False).aggregate(aggregations)
    names = {"game_id_count": "games", "rating_mean": "mean_rating", "date_min": "first_date"}
    names["opponent_rating_mean"] = "mean_opponent_rating"
    names |= {"date_max": "last_date", **{f"{name}_sum": name for name in RESULT_SUMS}}
    table = _zero_filled(_renamed(table, names), list(RESULT_SUMS))  # no result in a group sums to null
    played = pc.add(table["points_won"], table["points_lost"])
    score = pc.if_else(pc.greater(played, 0), pc.divide(table["points_won"], played), None)
    return table.append_column("score", score)


def _renamed(table: pa.Table, names: dict[str, str]) -> pa.Table:
    return table.rename_columns([names.get(name, name) for name in table.column_names])


def _zero_filled(table: pa.Table, names: list[str]) -> pa.Table:
    """``names`` with their nulls (nothing counted: no evaluation joined) as 0."""
    for name in names:
        table = table.set_column(table.column_names.index(name), name, pc.fill_null(table[name], 0))
    return table


def _evals(evals: pa.Table, keys: list[str], value: str) -> pa.Table:
    """The evaluations per ``keys``: how many, the mean of ``value``, and how many were marked."""
    table = evals.group_by(keys, use_threads=False).aggregate(
        [(value, "count"), (value, "mean"), ("marked", "sum")]
    )
    return _renamed(table, {f"{value}_count": "analysed", f"{value}_mean": "eval", "marked_sum": "marked"})


def _best_moves(evals: pa.Table) -> pa.Table:
    """The engine's best move of each position and roll: the one its analyses named most often (the first
    in sort order among equals)."""
    named = evals.group_by(["key", "dice", "best_move"], use_threads=False).aggregate(
        [("best_move", "count")]
    )
    named = named.sort_by(
        [
            ("key", "ascending"),
            ("dice", "ascending"),
            ("best_move_count", "descending"),
            ("best_move", "ascending"),
        ]
    )
    best = named.group_by(["key", "dice"], use_threads=False).aggregate([("best_move", "first")])
    return _renamed(best, {"best_move_first": "best_move"})


def aggregate(plies: pa.Table, evals: pa.Table, min_games: int = 1) -> tuple[pa.Table, pa.Table]:
    """The ``positions`` and ``moves`` tables of a book from all its ``plies`` and ``evals`` rows, keeping
    the positions reached in at least ``min_games`` games (over every roll, for backgammon) and every move
    played there; sorted by key and roll, moves by games played (most first) then move."""
    plies = _results(plies)
    moves = _renamed(_summed(plies, ["key", "dice", "move"], [("after", "min")]), {"after_min": "after"})
    positions = _renamed(
        _summed(plies, ["key", "dice"], [("position", "min"), ("ply", "min")]),
        {"position_min": "position", "ply_min": "ply"},
    )
    before = pc.subtract(positions["ply"], pa.scalar(1, positions.schema.field("ply").type))
    positions = positions.set_column(positions.schema.get_field_index("ply"), "ply", before)  # plies before
    reached = plies.group_by(["key"], use_threads=False).aggregate([("game_id", "count")])
    kept = reached.filter(pc.greater_equal(reached["game_id_count"], min_games))["key"].combine_chunks()
    moves = moves.filter(pc.is_in(moves["key"], value_set=kept))
    positions = positions.filter(pc.is_in(positions["key"], value_set=kept))

    position_evals = _evals(evals, ["key", "dice"], "eval_position").drop_columns(["marked"])
    positions = positions.join(position_evals, ["key", "dice"], join_type="left outer")
    positions = positions.join(_best_moves(evals), ["key", "dice"], join_type="left outer")
    moves = moves.join(
        _evals(evals, ["key", "dice", "move"], "eval_move"), ["key", "dice", "move"], join_type="left outer"
    )
    moves = moves.join(
        positions.select(["key", "dice", "best_move"]), ["key", "dice"], join_type="left outer"
    )
    moves = moves.append_column("best", pc.fill_null(pc.equal(moves["move"], moves["best_move"]), False))
    positions = _zero_filled(positions, ["analysed"])
    moves = _zero_filled(moves, ["analysed", "marked"])
    positions = positions.sort_by([("key", "ascending"), ("dice", "ascending")])
    moves = moves.sort_by(
        [("key", "ascending"), ("dice", "ascending"), ("games", "descending"), ("move", "ascending")]
    )
    return (
        positions.select(BOOK_POSITIONS_SCHEMA.names).cast(BOOK_POSITIONS_SCHEMA),
        moves.select(BOOK_MOVES_SCHEMA.names).cast(BOOK_MOVES_SCHEMA),
    )
