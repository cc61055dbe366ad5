"""``taldau bench review`` (``measure.review_cpu``): the decision-by-decision comparison of two moves
tables, and a real run of the command against the checkout's own HEAD installed beside it, on a game of
each kind: both versions say the same on every decision (no timed assertion: the ratio is only shown)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest
from click.testing import CliRunner
from taldau.cli.main import main
from taldau.measure import review_cpu
from taldau.measure.review_cpu import COMPARED, ReviewError, compare, repository, resolve_commit

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _table(rows: list[tuple[str, int, int, str, str, str, str | None]]) -> pa.Table:
    """A moves table as ``decisions`` reads it: (source, index, ply, kind, played, best, mark) per row."""
    columns = list(zip(*rows, strict=True))
    types = [pa.string(), pa.int64(), pa.int32(), pa.string(), pa.string(), pa.string(), pa.string()]
    return pa.table(
        {name: pa.array(values, type) for name, values, type in zip(COMPARED, columns, types, strict=True)}
    )


TOGYZ_ROWS = [
    ("a.pgn", 1, 1, "move", "87", "87", None),
    ("a.pgn", 1, 2, "move", "22", "99", "?"),
    ("a.pgn", 2, 1, "move", "93", "93", None),
    ("a.pgn", 2, 2, "move", "11", "44", "?!"),
]


def test_identical_tables_agree_on_every_decision() -> None:
    agreement = compare(_table(TOGYZ_ROWS), _table(TOGYZ_ROWS), "togyz")
    assert (agreement.decisions, agreement.share, agreement.examples) == (4, 1.0, ())
    assert agreement.to_json()["differ"] == 0


def test_a_differing_mark_is_counted_and_named() -> None:
    new = [*TOGYZ_ROWS[:3], ("a.pgn", 2, 2, "move", "11", "44", "??")]
    agreement = compare(_table(TOGYZ_ROWS), _table(new), "togyz")
    assert agreement.share == 0.75 and agreement.same_mark == 3 and agreement.same_best == 4
    (example,) = agreement.examples
    assert example.text() == "a.pgn game 2 decision 2 (move 11): best 44 -> 44, mark ?! -> ??"


def test_backgammon_agrees_on_best_play_and_mark_and_rows_only_one_holds_are_counted_apart() -> None:
    old = _table(
        [
            ("m.txt", 1, 1, "move", "8/5 6/5", "8/5 6/5", None),
            ("m.txt", 1, 2, "move", "24/18 13/9", "24/14", "?"),
            ("m.txt", 1, 3, "cube", "double", "No double", "?!"),
            ("m.txt", 2, 1, "move", "13/9 13/10", "13/9 13/10", None),
        ]
    )
    new = _table(
        [
            ("m.txt", 1, 1, "move", "8/5 6/5", "8/5 6/5", None),
            ("m.txt", 1, 2, "move", "24/18 13/9", "24/18 18/14", "?"),  # same mark, another best
            ("m.txt", 1, 3, "cube", "double", "No double", "?!"),
            ("m.txt", 3, 1, "move", "13/9 13/10", "13/9 13/10", None),
        ]
    )
    agreement = compare(old, new, "backgammon")
    assert (agreement.decisions, agreement.same_mark, agreement.same_best, agreement.agreeing) == (3, 3, 2, 2)
    assert (agreement.only_old, agreement.only_new) == (1, 1)
    assert agreement.judged_by == "best and mark"
    assert [example.where for example in agreement.examples] == ["m.txt game 1 decision 2"]


def test_an_unknown_commit_is_one_line_naming_the_checkout() -> None:
    with pytest.raises(ReviewError, match="unknown commit no-such-commit") as raised:
        resolve_commit(repository(), "no-such-commit")
    assert "\n" not in str(raised.value)


def test_a_folder_outside_any_checkout_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ReviewError, match="not a git checkout"):
        repository(tmp_path)


def test_the_cache_follows_xdg_cache_home(tmp_path: Path) -> None:
    assert review_cpu.default_cache({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "taldau" / "bench-review"


def _togyz_opening(folder: Path, moves: int = 8) -> Path:
    """The first ``moves`` moves of the PlayOK sample's first game (unfinished: result ``*``), alone in a
    file under ``folder``."""
    text = (EXAMPLES / "togyz" / "playok-2024-2025-sample.pgn").read_text(encoding="utf-8")
    headers, body = text.split("\n[Event ")[0].split("\n\n", 1)
    cut = body.split(f"{moves + 1}.")[0].split()
    path = folder / "opening.pgn"
    headers = headers.replace('[Result "0-1"]', '[Result "*"]')
    path.write_text(f"{headers}\n\n{' '.join(cut)} *\n", encoding="utf-8")
    return path


@pytest.mark.slow
def test_bench_review_against_head_agrees_everywhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """HEAD installed beside the current code (in a cache under tmp_path), both run on a Togyz game and
    a small backgammon money session: the same decisions, the same marks and best plays on all of them,
    and the install is reused by a second call."""
    monkeypatch.setattr(review_cpu, "default_cache", lambda environ=None: tmp_path / "cache")
    archives = [str(_togyz_opening(tmp_path)), str(EXAMPLES / "backgammon" / "gnubg-money-session.mat")]
    result = CliRunner().invoke(
        main, ["bench", "review", *archives, "--against", "HEAD", "--rounds", "1", "--json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["against"] == resolve_commit(repository(), "HEAD") and report["rounds"] == 1
    assert set(report["games"]) == {"togyz", "backgammon"}
    for game, figures in report["games"].items():
        assert figures["decisions"]["old"] == figures["decisions"]["new"] > 0, game
        agreement = figures["agreement"]
        assert agreement["agreement"] == 1.0 and agreement["differ"] == 0, (game, agreement["examples"])
        assert agreement["only_old"] == agreement["only_new"] == 0
        assert agreement["judged_by"] == ("best and mark" if game == "backgammon" else "mark")
        assert figures["settings"]["old"] == figures["settings"]["new"]
        for key in ("cpu_seconds", "wall_seconds", "startup_cpu_seconds"):
            assert len(figures[key]["old"]) == len(figures[key]["new"]) == 1
            assert all(value > 0 for value in figures[key]["old"] + figures[key]["new"])
        assert {"ratio", "ratio_without_startup", "ms_per_decision", "compiled_runs"} <= set(figures)
        assert figures["ratio"]["median"] > 0
    installed = (tmp_path / "cache" / report["against"]).resolve()
    assert (installed / review_cpu.READY).is_file()
    said: list[str] = []
    again = review_cpu.install(report["against"], repository(), tmp_path / "cache", said.append)
    assert again.folder.resolve() == installed and said == []  # reused, not installed again
    text = CliRunner().invoke(main, ["bench", "review", archives[1], "--against", "HEAD", "--rounds", "1"])
    assert text.exit_code == 0, text.output
    assert "backgammon:" in text.stdout and "same best and mark on 100.00%" in text.stdout


def test_an_archive_of_no_game_is_one_line_naming_it(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("notes, no record\n")
    result = CliRunner().invoke(main, ["bench", "review", str(tmp_path), "--against", "HEAD"])
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        f"error: {tmp_path}: no record of either game: give one game's record files"
    ]
