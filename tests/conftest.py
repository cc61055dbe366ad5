"""Shared test fixtures: where the bundled examples and the shared real archives are."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SHARED_DATA = ROOT.parent / "shared" / "data"
GNUBG_FIXTURES = ROOT / "tests" / "data" / "backgammon" / "gnubg"

# The bglab matches (under SHARED_DATA / "backgammon" / "bglab") that GNU Backgammon 1.07 imported and saved
# as SGF and exported as .mat in GNUBG_FIXTURES (made by its make_fixtures.py).
GNUBG_EXPORTS = {
    "galaxy-6800849": "lasse/match6800849.txt",
    "galaxy-8170603": "lasse/match8170603.txt",
    "galaxy-10030560": "lasse/match10030560.txt",
    "studio-selbs": "Llabba/Selbs - Llabba 13pt Backgammon Studio 2023_03_24 18_10_57.txt",
    "studio-iradch49": "Llabba/Llabba - Iradch49 7pt Backgammon Studio 2023_05_15 18_07_54.txt",
    "studio-moderntavla31": "Llabba/Moderntavla31 - Llabba 9pt Backgammon Studio 2023_09_20 21_30_21.txt",
}


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
