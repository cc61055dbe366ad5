"""Notices: every file taldau bundles that is not code (example archives, weights, tables, the benchmark's
games) and every dependency it names in ``pyproject.toml`` is listed in ``NOTICES.md`` with its source and
licence, and nothing listed there is gone, so that a new example, data file or dependency without a notice
fails here. The project's own licence is ``LICENSE``, the one ``pyproject.toml`` names."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
OWN_CODE = ("templates", "static")  # the report's pages, styles and script: taldau's own code
NOT_LISTED = {"NOTICE", "LICENSE-bglab.md", "README.md"}  # notices and notes about the files themselves


def notice_table(heading: str) -> list[list[str]]:
    """The rows (cells) of the table under ``## heading`` in NOTICES.md."""
    text = (ROOT / "NOTICES.md").read_text(encoding="utf-8")
    section = text.split(f"## {heading}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")][2:]  # past the head and rule
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]


def listed_files() -> set[str]:
    return {path for row in notice_table("Bundled files") for path in re.findall(r"`([^`]+)`", row[0])}


def package_folder(package: str) -> Path:
    """The source folder of a ``taldau.*`` package, through ``package-dir``."""
    mapped = PYPROJECT["tool"]["setuptools"]["package-dir"]
    parent = max((name for name in mapped if package == name or package.startswith(f"{name}.")), key=len)
    return ROOT / mapped[parent] / Path(*package[len(parent) :].split(".")[1:])


def bundled_files() -> set[str]:
    """The examples and every package-data file of the wheel, but the report's own code and notices."""
    found = {path for path in (ROOT / "examples").rglob("*") if path.is_file()}
    for package, patterns in PYPROJECT["tool"]["setuptools"]["package-data"].items():
        folder = package_folder(package)
        found |= {path for pattern in patterns for path in folder.glob(pattern) if path.is_file()}
    return {
        path.relative_to(ROOT).as_posix()
        for path in found
        if path.name not in NOT_LISTED and not set(OWN_CODE) & set(path.relative_to(ROOT).parts)
    }


def dependency_names() -> set[str]:
    """Every package ``pyproject.toml`` depends on, its extras' too (not taldau's own extras)."""
    project = PYPROJECT["project"]
    requirements = project["dependencies"] + [
        item for extra in project["optional-dependencies"].values() for item in extra
    ]
    names = {re.match(r"[A-Za-z0-9_.-]+", item).group(0).lower() for item in requirements}  # type: ignore[union-attr]
    return names - {"taldau"}


def test_every_bundled_file_has_a_notice_and_every_notice_a_file() -> None:
    bundled = bundled_files()
    assert {"examples/togyz/playok-2024-2025-sample.pgn", "games/backgammon/engine/nets.npz"} <= bundled
    assert bundled - listed_files() == set(), "bundled without a notice in NOTICES.md"
    assert {path for path in listed_files() if not (ROOT / path).is_file()} == set(), "listed, not there"


def test_every_dependency_has_its_licence_and_source() -> None:
    rows = {row[0]: row for row in notice_table("Dependencies")}
    assert dependency_names() - set(rows) == set(), "a dependency of pyproject.toml missing in NOTICES.md"
    assert set(rows) - dependency_names() == set(), "NOTICES.md names a package taldau no longer uses"
    assert all(licence and source.startswith("https://") for _, licence, source in rows.values())
    assert rows["bgsage"][1].startswith("MPL-2.0") and "weights" in rows["bgsage"][1]


def test_the_project_licence_is_the_one_pyproject_names() -> None:
    assert PYPROJECT["project"]["license"] == "MIT"
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License\n")
