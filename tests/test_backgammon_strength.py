"""The strength bench (``measure.backgammon.strength``): engines judged by a deeper reference on real
decisions, here a tiny run on the bundled matches with a shallow reference (bgsage at 1 ply). Skips where
bgsage cannot load."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import EXAMPLES, needs_sage
from taldau.games.backgammon.engine.analyse import Search
from taldau.measure.backgammon.strength import (
    Level,
    ReferenceCache,
    StrengthReport,
    measure_strength,
    strength_decisions,
)

pytestmark = needs_sage

MATCHES = EXAMPLES / "backgammon"
LEVELS = ("own:0", "sage:0", "sage:1")
REFERENCE = "sage:1"
COUNT = 12


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("strength")


@pytest.fixture(scope="module")
def report(cache: Path) -> StrengthReport:
    return measure_strength(MATCHES, COUNT, 7, LEVELS, REFERENCE, cache)


def test_levels_parse() -> None:
    # each engine's own move filter unless one is given: sage's 5/0.08, gnubg's 16/0.32 for own
    assert Level.parse("sage:3") == Level("sage", Search(3, candidates=5, threshold=0.08))
    assert str(Level.parse("sage:3")) == "sage:3" == str(Level.parse("sage:3:5/0.08"))
    assert Level.parse("own:2") == Level("own", Search(plies=2))
    assert str(Level.parse("own:2:16/0.32")) == "own:2"
    assert str(Level.parse("sage:3:16/0.32")) == "sage:3:16/0.32"
    assert Level.parse("own:2:8/0.16") == Level("own", Search(2, candidates=8, threshold=0.16))
    assert str(Level.parse("own:2:8/0.16")) == "own:2:8/0.16"
    for bad in ("sage", "sage:x", ":2", "own:2:8", "own:2:8/x"):
        with pytest.raises(ValueError):
            Level.parse(bad)


def test_decisions_are_seeded_prefixes_with_a_choice() -> None:
    many = strength_decisions(MATCHES, 20, 7)
    assert len(many) == 20
    assert [d.key for d in strength_decisions(MATCHES, 8, 7)] == [d.key for d in many[:8]]
    assert [d.key for d in strength_decisions(MATCHES, 20, 8)] != [d.key for d in many]
    assert all(len(d.position.plays(d.dice)) >= 2 for d in many)


def test_a_missing_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="not a folder"):
        measure_strength(tmp_path / "absent", 5, 1, LEVELS, REFERENCE, tmp_path)
    with pytest.raises(FileNotFoundError, match="no match records"):
        measure_strength(tmp_path, 5, 1, LEVELS, REFERENCE, tmp_path)


def test_the_report(report: StrengthReport) -> None:
    assert report.decisions == COUNT
    assert report.reference == REFERENCE
    assert report.reference_version.startswith("bgsage ")
    assert [level.level for level in report.levels] == list(LEVELS)
    for level in report.levels:
        assert level.decisions == COUNT
        assert all(loss >= 0 for loss in level.losses)
        assert 0 <= level.agreement <= 1
        assert level.cpu_ms > 0
    itself = report.levels[LEVELS.index(REFERENCE)]
    assert itself.losses == (0.0,) * COUNT  # the reference's picks lose nothing against themselves
    assert itself.agreement == 1
    assert itself.outside == 0


def test_the_cache_gives_the_same_report(report: StrengthReport, cache: Path) -> None:
    again = measure_strength(MATCHES, COUNT, 7, LEVELS, REFERENCE, cache)
    assert again == report  # every measured number but the CPU times
    assert again.cached == COUNT
    assert report.cached == 0
    assert again.reference_seconds == 0


def test_a_torn_cache_line_is_ignored(report: StrengthReport, tmp_path: Path) -> None:
    assert report.cache_file is not None
    lines = Path(report.cache_file).read_text(encoding="utf-8").splitlines()
    stored = tmp_path / Path(report.cache_file).name
    stored.write_text("\n".join(lines[:3]) + "\n" + lines[3][:20], encoding="utf-8")
    cache = ReferenceCache(tmp_path, Level.parse(REFERENCE), report.reference_version)
    assert cache.path == stored
    assert len(cache.answers) == 3
    resumed = measure_strength(MATCHES, COUNT, 7, LEVELS, REFERENCE, tmp_path)
    assert resumed == report
    assert resumed.cached == 3


def test_json_round_trip(report: StrengthReport) -> None:
    text = json.dumps(report.to_json())
    back = StrengthReport.from_json(json.loads(text))
    assert back == report
    assert back.to_json() == report.to_json()
    assert report.lines()[0].startswith(f"{COUNT} decisions of real matches")
