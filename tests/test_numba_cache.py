"""numba's cache stays out of the installed package: it goes to the user's cache folder, or nowhere.

Each test copies the ``games`` and ``base`` packages into a private ``site`` folder, as an install would
lay them out, and compiles one kernel in a fresh interpreter that imports that copy, with HOME and the
cache variables pointed at private folders.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from taldau.base import jit

CACHE_FILES = ("*.nbi", "*.nbc")
COMPILE_A_KERNEL = (
    "import taldau.games, taldau.games.togyz.board as board; "
    "print(taldau.games.__file__); print(board.is_over(board.start_state()))"
)


def install_copy(tmp_path: Path, read_only: bool = False) -> Path:
    """A copy of the games and base packages under ``tmp_path/site/taldau``; ``read_only`` makes every
    package folder refuse a ``__pycache__`` folder (a file of that name stands in its place), as a read-only
    install does even for root."""
    site = tmp_path / "site"
    for package in ("games", "base"):
        shutil.copytree(
            ROOT / package, site / "taldau" / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    if read_only:
        for init in (site / "taldau").rglob("__init__.py"):
            (init.parent / "__pycache__").write_text("")
    return site


def cache_files(folder: Path) -> list[Path]:
    """Every numba cache file (index and data) under ``folder``."""
    return sorted(path for pattern in CACHE_FILES for path in folder.rglob(pattern))


def compile_kernel(tmp_path: Path, site: Path, **variables: str) -> None:
    """Compiles and runs a Togyz kernel from the copy at ``site`` with HOME at ``tmp_path/home`` and the
    given variables as the only cache settings; fails when the interpreter fails."""
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    env |= {"HOME": str(tmp_path / "home"), "PYTHONPATH": str(site), "PYTHONDONTWRITEBYTECODE": "1"}
    env |= variables
    done = subprocess.run(
        [sys.executable, "-c", COMPILE_A_KERNEL], env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    imported_from, result = done.stdout.split()
    assert Path(imported_from).is_relative_to(site)
    assert result == "False"


def unwritable(tmp_path: Path) -> Path:
    """A path no one can create, root included: it lies under a regular file."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    return blocker / "cache"


@pytest.mark.parametrize(
    ("variables", "expected"),
    [
        ({}, "home/.cache/taldau/numba"),
        ({"XDG_CACHE_HOME": "{tmp}/xdg"}, "xdg/taldau/numba"),
        ({"NUMBA_CACHE_DIR": "{tmp}/numba"}, "numba"),
        ({"NUMBA_CACHE_DIR": "{unwritable}", "XDG_CACHE_HOME": "{tmp}/xdg"}, "xdg/taldau/numba"),
    ],
    ids=["home", "xdg", "numba-cache-dir", "numba-cache-dir-unwritable"],
)
def test_the_cache_lands_in_the_user_cache_folder_and_never_beside_the_sources(
    tmp_path: Path, variables: dict[str, str], expected: str
) -> None:
    site = install_copy(tmp_path)
    compile_kernel(
        tmp_path,
        site,
        **{k: v.format(tmp=tmp_path, unwritable=unwritable(tmp_path)) for k, v in variables.items()},
    )
    assert cache_files(tmp_path / expected), f"no cache files under {expected}"
    assert cache_files(site) == []
    assert all(path.is_relative_to(tmp_path / expected) for path in cache_files(tmp_path))


def test_a_read_only_install_without_a_writable_cache_folder_still_runs_the_kernels(tmp_path: Path) -> None:
    site = install_copy(tmp_path, read_only=True)
    nowhere = str(unwritable(tmp_path))
    compile_kernel(tmp_path, site, HOME=nowhere, XDG_CACHE_HOME=nowhere, NUMBA_CACHE_DIR=nowhere)
    assert cache_files(tmp_path) == []


def test_the_cache_folder_follows_the_sources(tmp_path: Path) -> None:
    site = install_copy(tmp_path)
    packages = (site / "taldau" / "base", site / "taldau" / "games")
    before = jit.source_digest(packages)
    assert jit.source_digest(packages) == before
    with (packages[1] / "togyz" / "board.py").open("a") as board:
        board.write("\n")
    assert jit.source_digest(packages) != before
