"""One name for each thing (issue 56): no class name is declared in two modules of the package, so that a
reader who meets a name knows which thing it is without looking at the import. The exceptions are the
concepts every game has once, each in its own game package (``PER_GAME``). Read from the source with
``ast``: every class statement, at the top of a module or nested in a function or another class."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("base", "games", "schemas", "analysis", "workers", "measure", "cli")

# The concepts declared once per game package, by name: the modules that declare them, and why.
PER_GAME: dict[str, tuple[frozenset[str], str]] = {
    "Position": (
        frozenset({"games/backgammon/rules/position.py", "games/togyz/position.py"}),
        "a position of the game's rules: a backgammon board and turn, a Togyz Kumalak board and side to move",
    ),
    "Outcome": (
        frozenset({"games/backgammon/rules/position.py", "games/togyz/position.py"}),
        "how a game ends by its rules: backgammon's winner and value, Togyz's kazans and termination",
    ),
    "GameRecord": (
        frozenset({"games/backgammon/records/record.py", "games/togyz/records.py"}),
        "one game as its record file gives it, in the game's own notation and headers",
    ),
    "Game": (
        frozenset({"games/backgammon/records/replay.py", "games/togyz/replay.py"}),
        "a game record replayed by the game's rules (base.kind.GameKind's Game type)",
    ),
    "Termination": (
        frozenset({"games/backgammon/records/replay.py", "games/togyz/position.py"}),
        "how a game ended, in the game's own ways (borne off or dropped; kazan or atsyrau)",
    ),
}


def _module(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def declared() -> dict[str, set[str]]:
    """Each class name of the package's sources: the modules that declare it."""
    found: dict[str, set[str]] = defaultdict(set)
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if ".venv" in path.parts:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            for node in ast.walk(tree):
                if isinstance(node, ast.ClassDef):
                    found[node.name].add(_module(path))
    return found


def test_no_class_name_is_declared_in_two_modules_but_a_concept_per_game() -> None:
    twice = {
        name: sorted(modules)
        for name, modules in declared().items()
        if len(modules) > 1 and (name not in PER_GAME or modules != PER_GAME[name][0])
    }
    assert not twice, (
        "class names declared in more than one module (give each thing a name of its own, or, for a "
        f"concept every game has once, list it in PER_GAME with its reason): {twice}"
    )


def test_each_per_game_concept_is_still_declared_once_per_game() -> None:
    found = declared()
    stale = {
        name: sorted(found.get(name, ()))
        for name, (modules, _) in PER_GAME.items()
        if found.get(name, set()) != modules
    }
    assert not stale, f"PER_GAME names modules that no longer declare the concept, or not alone: {stale}"
