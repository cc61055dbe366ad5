"""The decision record's core names no game: ``base/`` declares none of either game's concepts (the
backgammon cube, luck, match winning chances, EMG, gammons, the Crawford and Jacoby rules, beavers; the
Togyz kazan, tuzdyk, atsyrau), each game declares its own part of a decision (``GameKind.detail``), and the
``moves`` table's columns are assembled from the registered games in the order, with the types, the table
has always had (so that DuckDB, pandas and older readers see the same table)."""

from __future__ import annotations

import ast
from pathlib import Path

import pyarrow as pa
import pytest
from taldau.base.kind import ColumnGroup, DetailColumn
from taldau.games.registry import KINDS
from taldau.schemas import MOVES_SCHEMA
from taldau.schemas.moves import CommonColumns, MoveRow, assembled

ROOT = Path(__file__).resolve().parent.parent
GAME_WORDS = (
    "cube",
    "luck",
    "mwc",
    "emg",
    "gammon",
    "crawford",
    "jacoby",
    "beaver",
    "kazan",
    "tuzdyk",
    "atsyrau",
)

# The moves table of schema version 8 as written before the games declared their own columns: every column's
# name, Arrow type and nullability, in order.
PINNED = [
    ("game_id", "string", False),
    ("ply", "int32", False),
    ("side", "int8", False),
    ("kind", "string", False),
    ("dice", "string", True),
    ("position", "string", False),
    ("match_id", "string", True),
    ("key", "uint64", False),
    ("played", "string", False),
    ("best", "string", False),
    ("pv", "string", False),
    ("score_best", "double", False),
    ("score_played", "double", False),
    ("loss", "double", False),
    ("drop", "double", False),
    ("plies_to_result_best", "int16", True),
    ("plies_to_result_played", "int16", True),
    ("chance_before", "double", False),
    ("chance_after", "double", False),
    ("mark", "string", True),
    ("forced", "bool", False),
    ("counted", "bool", False),
    ("depth", "int16", False),
    ("seldepth", "int16", False),
    ("nodes", "int64", False),
    ("seconds", "double", False),
    ("cubeless_best", "double", True),
    ("cubeless_played", "double", True),
    ("no_double", "double", True),
    ("double_take", "double", True),
    ("double_pass", "double", True),
    ("verdict", "string", True),
    ("luck", "double", True),
    ("luck_mark", "string", True),
    ("loss_mwc", "double", True),
    ("judged", "string", True),
    ("loss_se", "double", True),
    ("luck_mwc", "double", True),
    ("reference", "string", True),
    ("reference_best", "string", True),
    ("reference_loss", "double", True),
]


def declared_names(source: str) -> list[tuple[int, str, str]]:
    """Every name a module's ``source`` declares, by line and what it is: classes, functions, their
    arguments, fields (annotated names) and constants (assigned names)."""
    found: list[tuple[int, str, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            found.append((node.lineno, "class", node.name))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.append((node.lineno, "function", node.name))
        elif isinstance(node, ast.arg):
            found.append((node.lineno, "argument", node.arg))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            found.append((node.lineno, "field", node.target.id))
        elif isinstance(node, ast.Assign):
            names = (
                name for target in node.targets for name in ast.walk(target) if isinstance(name, ast.Name)
            )
            found.extend((node.lineno, "constant", name.id) for name in names)
    return found


def game_names(source: str) -> list[str]:
    """The names ``source`` declares that hold a game word, as ``what name``."""
    return [
        f"{what} {name}"
        for _, what, name in declared_names(source)
        if any(w in name.lower() for w in GAME_WORDS)
    ]


def test_base_declares_no_name_of_either_games_concepts() -> None:
    named = {
        path.name: found
        for path in sorted((ROOT / "base").glob("*.py"))
        if (found := game_names(path.read_text(encoding="utf-8")))
    }
    assert named == {}


def test_the_check_finds_each_kind_of_name() -> None:
    source = (
        "class CubeEquities:\n    luck_mwc: float\n\n"
        "def is_crawford(kazan: int) -> None:\n    EMG_SCALE = 1\n\nclass Side:\n    GAMMON = 2\n"
    )
    assert sorted(game_names(source)) == [
        "argument kazan",
        "class CubeEquities",
        "constant EMG_SCALE",
        "constant GAMMON",
        "field luck_mwc",
        "function is_crawford",
    ]


def test_the_moves_schema_is_the_table_it_has_always_been() -> None:
    assert [(field.name, str(field.type), field.nullable) for field in MOVES_SCHEMA] == PINNED
    assert [field.name for field in MOVES_SCHEMA] == [name for name, _, _ in assembled()]
    assert MOVES_SCHEMA.names == list(MoveRow.__dataclass_fields__)


def test_the_moves_schema_is_assembled_from_the_registered_games() -> None:
    common = [item for item in CommonColumns.__dataclass_fields__]
    declared = {
        column.name: (kind.name, column)
        for kind in KINDS
        if kind.detail is not None
        for group in kind.detail.columns
        for column in group.columns
    }
    # every column is either common or one game's, each declared once, and the table has nothing else
    assert set(common).isdisjoint(declared) and sorted(MOVES_SCHEMA.names) == sorted([*common, *declared])
    assert {declared[name][0] for name in ("dice", "match_id", "luck", "verdict", "luck_mwc")} == {
        "backgammon"
    }
    assert {declared[name][0] for name in ("plies_to_result_best", "plies_to_result_played")} == {"togyz"}
    for name, (_, column) in declared.items():
        field = MOVES_SCHEMA.field(name)
        assert field.nullable and field.type == pa.type_for_alias(column.type)
        assert field.metadata[b"doc"].decode() == column.doc
    # the common columns keep their order, a game's columns follow the one their group names
    assert [name for name in MOVES_SCHEMA.names if name in common] == common
    for kind in KINDS:
        for group in kind.detail.columns if kind.detail is not None else ():
            at = MOVES_SCHEMA.names.index(group.after) + 1
            assert MOVES_SCHEMA.names[at : at + len(group.columns)] == [
                column.name for column in group.columns
            ]


def test_a_new_games_columns_go_where_it_says_and_may_not_take_a_name() -> None:
    extra = ColumnGroup("reference_loss", (DetailColumn("moves_to_win", "int16", "a third game's own"),))
    names = [name for name, _, _ in assembled([extra])]
    assert names == [*MOVES_SCHEMA.names, "moves_to_win"]
    with pytest.raises(ValueError, match="already"):
        assembled([ColumnGroup("seconds", (DetailColumn("luck", "float64", "taken"),))])
    with pytest.raises(ValueError, match="no column"):
        assembled([ColumnGroup("nowhere", (DetailColumn("x", "float64", "lost"),))])
    with pytest.raises(ValueError, match="type"):
        DetailColumn("x", "decimal", "no such type")
