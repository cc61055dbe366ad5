"""`taldau annotate DIR` on a `taldau analyze` output folder: the stored judgements are written back as the
same text as annotating the records afresh at the same settings, and nothing is searched again (the
analysers' review raises in the second half of each test)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from taldau.analysis.annotate import StoredAnalysis, annotate_stored
from taldau.analysis.folder import FolderError
from taldau.cli.main import main
from taldau.games.backgammon.kind import BackgammonAnalyser
from taldau.games.togyz.kind import TogyzAnalyser

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _no_search(*args: object, **kwargs: object) -> None:
    raise AssertionError("annotate from an analysis searched again")


def _fresh_then_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, record: Path, game: str, depth: str
) -> tuple[str, str]:
    """The annotated text of ``record`` afresh, then from an analysis of it at the same depth (with the
    analyser's review made to raise)."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(record, tmp_path / record.name)
    runner = CliRunner()
    options = ["--game", game, "--depth", depth]
    fresh = runner.invoke(main, ["annotate", record.name, *options, "--form", "full"])
    assert fresh.exit_code == 0, fresh.output
    made = runner.invoke(main, ["analyze", record.name, "--out", "run", *options, "--jobs", "1"])
    assert made.exit_code == 0, made.output
    monkeypatch.setattr(TogyzAnalyser, "review", _no_search)
    monkeypatch.setattr(BackgammonAnalyser, "review", _no_search)
    stored = runner.invoke(main, ["annotate", "run", "--form", "full"])
    assert stored.exit_code == 0, stored.output
    return fresh.stdout, stored.stdout


def test_a_togyz_analysis_annotates_as_the_records_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = EXAMPLES / "togyz" / "scoresheet.txt"
    fresh, stored = _fresh_then_stored(tmp_path, monkeypatch, record, "togyz", "2")
    assert "Annotator" in fresh and "WhiteAccuracy" in fresh
    assert stored == fresh


@pytest.mark.slow
def test_a_backgammon_analysis_annotates_as_the_records_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = EXAMPLES / "backgammon" / "galaxy-6800849.txt"
    fresh, stored = _fresh_then_stored(tmp_path, monkeypatch, record, "backgammon", "0")
    assert fresh.startswith("lasse - simon_haag, 3-point match") and "Match statistics" in fresh
    assert stored == fresh


def test_an_analysis_whose_records_are_gone_says_which(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copy(EXAMPLES / "togyz" / "scoresheet.txt", "game.txt")
    runner = CliRunner()
    made = runner.invoke(main, ["analyze", "game.txt", "--out", "run", "--depth", "1", "--jobs", "1"])
    assert made.exit_code == 0, made.output
    Path("game.txt").unlink()
    with pytest.raises(FolderError, match=r"game\.txt, game 1: the record file is gone"):
        list(annotate_stored(StoredAnalysis.open("run"), "short"))
    result = runner.invoke(main, ["annotate", "run"])
    assert result.exit_code == 1 and "game.txt, game 1: the record file is gone" in result.output
    refused = runner.invoke(main, ["annotate", "run", "--depth", "3"])
    assert refused.exit_code == 2 and "at its own settings" in refused.output


def test_an_analysis_with_nothing_left_to_annotate_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 54, item 7: a record replaced by a text of no game, and a folder a killed first run left with
    no manifest: each said, then one error line, exit 1."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(EXAMPLES / "togyz" / "scoresheet.txt", "game.txt")
    runner = CliRunner()
    made = runner.invoke(main, ["analyze", "game.txt", "--out", "run", "--depth", "1", "--jobs", "1"])
    assert made.exit_code == 0, made.output
    Path("game.txt").write_text("no game any more\n")
    result = runner.invoke(main, ["annotate", "run"])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.splitlines()[-1] == "error: no game annotated under run"
    Path("killed/games").mkdir(parents=True)
    result = runner.invoke(main, ["annotate", "killed"])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.splitlines()[-1] == "error: no game annotated under killed"
