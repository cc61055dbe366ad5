"""What a user reads first (issue 42): the worker's ready line logged at INFO, not as a warning; an output
folder of other settings named by what differs; progress while `annotate` works."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import EXAMPLES
from taldau.cli.main import main
from taldau.workers import supervisor
from taldau.workers.celery_app import ServiceSettings


class _FakeWorker:
    """Celery's worker as far as ``run_worker`` uses it: ready at once, then stopped."""

    exitcode = 0

    def start(self) -> None:
        from celery import signals

        signals.worker_ready.send(sender=self)


class _FakeApp:
    def Worker(self, **_: Any) -> _FakeWorker:  # Celery's name
        return _FakeWorker()


def test_the_worker_s_ready_line_is_logged_at_info(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture
) -> None:
    """Once it takes tasks the worker logs one INFO line (the password masked), and prints nothing: what
    is written to stderr under Celery shows as a WARNING."""
    from taldau.workers import celery_app

    monkeypatch.setattr(celery_app, "make_app", lambda broker, service: _FakeApp())
    settings = supervisor.WorkerSettings(
        "redis://:secret@127.0.0.1:6379/0", ServiceSettings(), 3, hostname="one@here"
    )
    with caplog.at_level(logging.INFO):
        stop = supervisor.run_worker(settings)
    assert stop.exit_code == 0
    ready = [record for record in caplog.records if ": ready, engines loaded" in record.getMessage()]
    assert [record.levelno for record in ready] == [logging.INFO]
    assert ready[0].getMessage().startswith("taldau worker one@here: ready, engines loaded, 3 processes")
    assert "secret" not in ready[0].getMessage()
    assert capsys.readouterr() == ("", "")


def test_a_clash_of_settings_names_what_differs() -> None:
    """Each setting that differs with both values; the engine's version left out when the engine differs;
    the keys only when nothing named differs."""
    from taldau.workers.store import settings_clash

    found = {"game": "backgammon", "limit": "2-ply", "thresholds": [0.02, 0.04], "engine": "own-1"}
    found["engine_name"] = "own"
    asked = found | {"limit": "1-ply", "engine": "sage-2", "engine_name": "sage"}
    text = settings_clash("out", found, asked, ("aaa", "bbb"))
    assert text == (
        "out holds results of other settings (limit 2-ply there, 1-ply asked; engine own there, sage asked); "
        "use another --out directory"
    )
    thresholds = settings_clash("out", found, found | {"thresholds": [0.03, 0.04]}, ("aaa", "bbb"))
    assert "(thresholds 0.02/0.04 there, 0.03/0.04 asked)" in thresholds
    assert "settings key aaa there, bbb asked" in settings_clash("out", found, found, ("aaa", "bbb"))


def test_analyze_into_a_folder_of_another_depth_says_both_depths(tmp_path: Path) -> None:
    """The refusal names the depths, not the settings key (a hash)."""
    archive, out = EXAMPLES / "togyz" / "compact.txt", tmp_path / "out"
    runner = CliRunner()
    first = runner.invoke(main, ["analyze", str(archive), "--out", str(out), "--depth", "1", "--jobs", "1"])
    assert first.exit_code in (0, 1), first.output
    refused = runner.invoke(main, ["analyze", str(archive), "--out", str(out), "--depth", "2", "--jobs", "1"])
    assert refused.exit_code == 2
    assert "other settings (limit depth 1 there, depth 2 asked)" in refused.output, refused.output


@pytest.mark.parametrize(
    "record, options",
    [("togyz/compact.txt", ["--depth", "1"]), ("backgammon/gnubg-money-session.mat", ["--depth", "0"])],
)
def test_annotate_shows_its_progress_on_stderr(record: str, options: list[str]) -> None:
    """Lines of decisions judged on stderr as the review goes, the last the total; stdout only the games."""
    import re

    result = CliRunner().invoke(main, ["annotate", str(EXAMPLES / record), *options])
    assert result.exit_code == 0, result.output
    shown = [line for line in result.stderr.splitlines() if line.startswith("annotating: ")]
    assert shown and all(re.fullmatch(r"annotating: [\d,]+ decisions?", line) for line in shown), (
        result.stderr
    )
    counts = [int(line.split()[1].replace(",", "")) for line in shown]
    assert counts == sorted(counts) and counts[-1] > 1
    assert "annotating" not in result.stdout


def _walk_cases(tmp_path: Path) -> list[tuple[str, list[str], int, str]]:
    """Every input of issue 42 that once lost games or showed a traceback, as the command a user ran, the
    exit code expected and a line it must print."""
    from test_stray_text import NOTE, TITLE, match_lines, with_note_between

    def folder(name: str, files: dict[str, str]) -> str:
        path = tmp_path / name
        path.mkdir()
        for file, text in files.items():
            (path / file).write_text(text, encoding="utf-8")
        return str(path)

    match = "\n".join(match_lines()) + "\n"
    togyz = "\n".join((EXAMPLES / "togyz" / "app-export.pgn").read_text(encoding="utf-8").splitlines()[:12])
    compact = (EXAMPLES / "togyz" / "compact.txt").read_text(encoding="utf-8")
    noted = folder("noted", {"match.txt": f"{NOTE}\n{match}"})
    between = folder("between", {"match.txt": "\n".join(with_note_between(match_lines())) + "\n"})
    mixed = folder("mixed", {"match.txt": f"{togyz}\n{match}"})
    quick = folder("quick", {"quick.txt": f"{TITLE}\n{compact}"})
    cut = folder("cut", {"cut.txt": "\n".join(match_lines()[:40]) + "\n"})
    empty = folder("empty", {})
    out = str(tmp_path / "out")
    depth0 = ["--depth", "0", "--jobs", "1"]
    return [
        ("validate", ["validate", noted], 0, "warning: line 1, column 1: text outside any game, skipped"),
        (
            "analyze",
            ["analyze", noted, "--out", f"{out}1", *depth0],
            0,
            "4 games: 4 analysed, 0 invalid, 0 failed",
        ),
        ("analyze", ["analyze", between, "--out", f"{out}2", *depth0], 0, "4 analysed, 0 invalid, 0 failed"),
        ("analyze", ["analyze", mixed, "--game", "backgammon", "--out", f"{out}3", *depth0], 0, "4 analysed"),
        ("validate", ["validate", quick], 0, "3 games: 3 valid, 0 invalid"),
        ("book", ["book", "build", quick, "--out", f"{out}4"], 0, "3 games"),
        ("validate", ["validate", cut], 0, "stops after move 12 with no result: read as unfinished"),
        ("analyze", ["analyze", empty, "--out", f"{out}5"], 1, "no record of either game"),
        (
            "analyze",
            ["analyze", noted, "--out", f"{out}6", "--broker", "redis://127.0.0.1:1/0"],
            69,
            "127.0.0.1:1",
        ),
    ]


@pytest.mark.slow
def test_no_case_of_first_contact_shows_a_traceback(tmp_path: Path) -> None:
    """Each case of issue 42 run as a real `taldau` process: the exit code expected, the line that says
    what happened, no traceback; an empty run and an unreachable broker leave no folder."""
    import subprocess
    import sys

    taldau = str(Path(sys.executable).with_name("taldau"))
    for name, args, code, line in _walk_cases(tmp_path):
        result = subprocess.run([taldau, *args], capture_output=True, text=True, timeout=600)
        said = result.stdout + result.stderr
        assert "Traceback" not in said, (name, args, said)
        assert result.returncode == code, (name, args, said)
        assert line in said, (name, args, said)
    assert not (tmp_path / "out5").exists() and not (tmp_path / "out6").exists()


def _audit_cases(tmp_path: Path, analysed: Path) -> list[tuple[str, list[str], int, str]]:
    """Each finding of issue 54's audit that a command can show, as the command a user ran, the exit code
    expected and a line it must print (the analysed folder ``analysed`` is the PlayOK sample at depth 1)."""
    import json
    import shutil

    togyz = EXAMPLES / "togyz"
    sample, app = str(togyz / "playok-2024-2025-sample.pgn"), str(togyz / "app-export.pgn")
    damaged = tmp_path / "damaged"
    shutil.copytree(analysed, damaged)
    (moves,) = (damaged / "moves").iterdir()
    moves.write_bytes(moves.read_bytes()[:200])
    killed = tmp_path / "killed" / "parts" / "abc" / "games"
    killed.mkdir(parents=True)
    shutil.copy(next((analysed / "games").iterdir()), killed / "part-0123.parquet")
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "manifest.json").write_text(json.dumps({"name": "my project"}), encoding="utf-8")
    mine = tmp_path / "mine"
    (mine / "games").mkdir(parents=True)
    for name, text in {"index.html": "<p>mine</p>", "games/notes.html": "<p>notes</p>"}.items():
        (mine / name).write_text(text, encoding="utf-8")
    records = tmp_path / "records"
    records.mkdir()
    shutil.copy(togyz / "compact.txt", records / "games.txt")
    (records / "notes.txt").write_text("Bring the clocks on Saturday, and the boards.\n", encoding="utf-8")
    (records / "README.md").write_text("# Our club's games\n", encoding="utf-8")
    (records / "games.pgn.bak").write_text("old\n", encoding="utf-8")
    go = tmp_path / "go.sgf"
    go.write_text("(;GM[1]FF[4]SZ[19];B[pd];W[dp])\n", encoding="utf-8")
    fake = tmp_path / "one.pgn.gz"
    fake.write_bytes((togyz / "compact.txt").read_bytes())
    evil = tmp_path / "evil.pgn"
    evil.write_text(
        (togyz / "app-export.pgn").read_text(encoding="utf-8").replace("abeke93", "\x1b]52;c;aGk=\x07Eve", 1),
        encoding="utf-8",
    )
    aliases = tmp_path / "aliases.txt"
    aliases.write_bytes(b"Bob = bobby\nAl\xe9 = ali\n")
    empty = tmp_path / "empty"
    empty.mkdir()
    out = tmp_path / "out"
    depth1 = ["--depth", "1", "--jobs", "1"]
    return [
        (
            "report of a damaged folder",
            ["report", str(damaged), "--out", f"{out}1"],
            2,
            "damaged Parquet file",
        ),
        ("players of a damaged folder", ["players", str(damaged)], 2, "damaged Parquet file"),
        ("annotate of a damaged folder", ["annotate", str(damaged)], 1, "damaged Parquet file"),
        (
            "analyze into a damaged folder",
            ["analyze", sample, "--out", str(damaged), *depth1],
            2,
            "damaged Parquet",
        ),
        (
            "report of a killed first run",
            ["report", str(tmp_path / "killed"), "--out", f"{out}2"],
            2,
            "again to finish it",
        ),
        (
            "analyze into another's manifest",
            ["analyze", sample, "--out", str(theirs), *depth1],
            2,
            "not a manifest taldau wrote",
        ),
        ("report into a user's folder", ["report", str(analysed), "--out", str(mine)], 2, str(mine)),
        ("a control character", ["annotate", str(evil), "--depth", "1"], 0, "\\u001b]52;c;aGk=\\u0007Eve"),
        ("the same game twice", ["validate", sample, app], 0, "app-export.pgn, game 1: duplicate of"),
        ("files that are not records", ["validate", str(records)], 0, "README.md: a .md file, not a record"),
        ("a Go SGF", ["validate", str(go)], 1, "a Go SGF (GM[1]), not a game taldau reads"),
        ("a .gz that is not gzip", ["validate", str(fake)], 1, "not gzip data"),
        ("annotate with nothing", ["annotate", str(empty)], 1, "error: no game annotated"),
        (
            "players of nobody",
            ["players", str(analysed), "--player", "nobody"],
            1,
            "error: no player 'nobody'",
        ),
        (
            "aliases not UTF-8",
            ["players", str(analysed), "--aliases", str(aliases)],
            2,
            "line 2: byte 0xe9 is not UTF-8",
        ),
        ("eval beyond 3 plies", ["eval", "4HPwATDgc/ABMA", "--depth", "4"], 2, "0<=x<=3"),
        (
            "--jobs with --broker",
            ["analyze", sample, "--out", f"{out}3", "--jobs", "2", "--broker", "redis://127.0.0.1:1/0"],
            2,
            "--jobs 2 runs local processes",
        ),
        (
            "--level on Togyz",
            ["analyze", sample, "--out", f"{out}4", "--level", "quick"],
            2,
            "--level is backgammon's",
        ),
        ("a match of 2 games", ["match", "--openings", "1", *depth1], 0, "no interval below 10 games"),
    ]


@pytest.mark.slow
def test_no_case_of_the_audit_shows_a_traceback(tmp_path: Path, analysed_examples: dict[str, Path]) -> None:
    """Each case of issue 54 run as a real `taldau` process: the exit code expected, the line that says
    what happened, no traceback, no raw control character; the user's files left as they were."""
    import subprocess
    import sys

    taldau = str(Path(sys.executable).with_name("taldau"))
    for name, args, code, line in _audit_cases(tmp_path, analysed_examples["togyz"]):
        result = subprocess.run([taldau, *args], capture_output=True, text=True, timeout=600)
        said = result.stdout + result.stderr
        assert "Traceback" not in said, (name, args, said)
        assert result.returncode == code, (name, args, said)
        assert line in said, (name, args, said)
        assert not {character for character in said if ord(character) < 32 and character not in "\n\r"}, name
    assert (tmp_path / "mine" / "games" / "notes.html").read_text(encoding="utf-8") == "<p>notes</p>"
    assert (tmp_path / "theirs" / "manifest.json").read_text(encoding="utf-8") == '{"name": "my project"}'
