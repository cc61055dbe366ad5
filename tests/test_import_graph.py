"""The layers of the house (docs/architecture.md): data flows one way, from records to rows to
Parquet, so each top-level package imports only those below it, and the game packages know nothing of
Celery, Redis, Parquet or the command line. Read from the source with ``ast``: every import, at the top
of a module or inside a function, absolute or relative."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("base", "games", "schemas", "analysis", "workers", "measure", "cli")
# What each package may not import: the layers above it, and for the lower ones the service's libraries.
FORBIDDEN: dict[str, set[str]] = {
    "base": {"taldau.games", "taldau.analysis", "taldau.schemas", "taldau.workers", "taldau.measure"}
    | {"taldau.cli", "pyarrow", "celery", "redis", "kombu", "click"},
    "games": {"taldau.analysis", "taldau.schemas", "taldau.workers", "taldau.measure", "taldau.cli"}
    | {"pyarrow", "celery", "redis", "kombu", "click"},
    "schemas": {
        "taldau.games",
        "taldau.analysis",
        "taldau.workers",
        "taldau.measure",
        "taldau.cli",
        "celery",
        "redis",
        "click",
    },
    "analysis": {"taldau.workers", "taldau.measure", "taldau.cli", "celery", "redis", "kombu", "click"},
    "workers": {"taldau.measure", "taldau.cli", "click"},
    "measure": {"taldau.cli", "click"},
    "cli": set(),
}
# What a package may import although a rule above bans it: the schemas assemble the ``moves`` table's columns
# from the registered games (each game declares its own), so they see the games through the registry alone.
ALLOWED: dict[str, set[str]] = {"schemas": {"taldau.games.registry"}}


def imports(path: Path, package: str) -> list[tuple[int, str]]:
    """Every module ``path`` imports, by line, relative imports resolved against its place in ``taldau``."""
    module = ["taldau", package, *path.relative_to(ROOT / package).with_suffix("").parts]
    if module[-1] == "__init__":
        module.pop()
    else:
        module.pop()  # a module's relative imports start from its package
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module[: len(module) - node.level + 1]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            found.append((node.lineno, name))
    return found


def _sources(package: str) -> list[Path]:
    return sorted(path for path in (ROOT / package).rglob("*.py") if ".venv" not in path.parts)


def test_relative_imports_are_resolved() -> None:
    found = dict(imports(ROOT / "analysis" / "book" / "book.py", "analysis"))
    assert "taldau.analysis.accounting" in found.values()  # from ..accounting import Inputs
    assert "taldau.analysis.book.aggregate" in found.values()  # from .aggregate import aggregate


@pytest.mark.parametrize("package", PACKAGES)
def test_each_package_imports_only_the_layers_below_it(package: str) -> None:
    wrong = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in _sources(package)
        for line, name in imports(path, package)
        if any(name == banned or name.startswith(f"{banned}.") for banned in FORBIDDEN[package])
        and name not in ALLOWED.get(package, set())
    ]
    assert _sources(package) and wrong == []


GAME_PACKAGES = ("taldau.games.togyz", "taldau.games.backgammon")


@pytest.mark.parametrize("package", ["schemas", "analysis", "workers"])
def test_the_layers_between_the_games_and_the_command_line_name_no_game(package: str) -> None:
    """What analyses, stores and serves games knows them only through ``base.kind`` and
    ``games.registry``: a new game is registered, never named there."""
    named = [
        f"{path.relative_to(ROOT)}:{line} imports {name}"
        for path in _sources(package)
        for line, name in imports(path, package)
        if any(name == game or name.startswith(f"{game}.") for game in GAME_PACKAGES)
    ]
    assert named == []
