"""Shared test fixtures: where the bundled examples and the shared real archives are."""

from __future__ import annotations

from pathlib import Path

import pytest
from taldau.games.backgammon.engine import sage

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
SHARED_DATA = ROOT.parent / "shared" / "data"


def _sage_missing() -> str:
    """Why bgsage cannot load on this machine ("" when it can): its CPU check, then its import."""
    try:
        sage.load_sage()
    except sage.SageUnavailable as error:
        return str(error)
    return ""


SAGE_MISSING = _sage_missing()
needs_sage = pytest.mark.skipif(bool(SAGE_MISSING), reason=f"bgsage cannot load here: {SAGE_MISSING}")
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


@pytest.fixture(scope="session")
def analysed_examples(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two small archives analysed at a shallow limit, once per session, each in its own folder (a folder
    holds one game's analysis): the bundled PlayOK sample (7 Togyz Kumalak games, depth 1) and a Backgammon
    Studio match (1 game, 118 decisions, 0 plies)."""
    from click.testing import CliRunner
    from taldau.cli.main import main

    archives = {
        "togyz": (EXAMPLES / "togyz" / "playok-2024-2025-sample.pgn", "1"),
        "backgammon": (EXAMPLES / "backgammon" / "studio-llabba-iradch49.txt", "0"),
    }
    folders = {}
    for game, (archive, depth) in archives.items():
        out = tmp_path_factory.mktemp(f"analysed-{game}")
        command = [
            "analyze",
            str(archive),
            "--game",
            game,
            "--out",
            str(out),
            "--depth",
            depth,
            "--jobs",
            "1",
        ]
        result = CliRunner().invoke(main, command)
        assert result.exit_code == 0, result.output
        folders[game] = out
    return folders


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (``-n``, the suite's default) the tests that start Redis and Celery workers
    (``service``) or drive Chromium (``browser``) run one after another on one worker each (``--dist
    loadgroup``): each already starts processes of its own, and their fault tests wait on real timeouts
    that a machine oversubscribed by two of them at once could stretch."""
    for item in items:
        for marker in ("service", "browser"):
            if item.get_closest_marker(marker) is not None:
                item.add_marker(pytest.mark.xdist_group(marker))
