"""What ships: every top-level package of the source tree is mapped in ``pyproject.toml``, copied by the
Dockerfile and let through ``.dockerignore`` (which leaves out everything it does not list), so a new
package cannot be left out of the wheel or the image without a test failing."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def mapped_packages() -> set[str]:
    """The folders ``pyproject.toml`` maps to ``taldau.<folder>``."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    return set(setuptools["package-dir"].values())


def test_every_source_folder_is_a_mapped_package() -> None:
    assert {path.parent.name for path in ROOT.glob("*/__init__.py")} == mapped_packages()


def test_the_image_copies_every_package_and_the_build_context_lets_each_through() -> None:
    copied = set(re.findall(r"^COPY (\S+) \1$", (ROOT / "Dockerfile").read_text(), re.MULTILINE))
    allowed = set(re.findall(r"^!(\S+)/$", (ROOT / ".dockerignore").read_text(), re.MULTILINE))
    assert mapped_packages() <= copied
    assert copied <= allowed
