"""Shared test fixtures: where the bundled examples and the shared real archives are."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def togyz_examples() -> Path:
    """The repository's own Togyz Kumalak examples, one file per record format."""
    return EXAMPLES / "togyz"


@pytest.fixture(scope="session")
def playok_archive() -> Path:
    """The shared archive of 2,398 real PlayOK games; tests skip when it is not beside the checkout."""
    path = SHARED_DATA / "togyz" / "playok-2024-2025.pgn"
    if not path.exists():
        pytest.skip(f"real archive not found at {path} (it lives in ../shared/data beside the checkout)")
    return path
