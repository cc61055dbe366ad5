"""Worker processes are bounded and die with their parent; a first run compiles once, in the parent.

``analyze --jobs`` (and ``worker --concurrency``, ``match --jobs``, ``bench --jobs``, ``train --threads``)
above the machine's ceiling is refused before anything starts; a pool never has more processes than tasks;
a SIGKILLed ``analyze`` leaves no worker process behind; the local pool warms the run's game in the parent
before it forks, saying once that it compiles when numba's cache does not hold the kernels yet.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numba
import pytest
from click.testing import CliRunner
from conftest import EXAMPLES, ROOT
from helpers import alive
from taldau.base import jit
from taldau.base.processes import Ceiling, available_memory, ceiling, die_with_parent, worker_size
from taldau.cli.main import main

TALDAU = str(Path(sys.executable).parent / "taldau")
TWO_GAMES = EXAMPLES / "togyz" / "app-export.pgn"  # two Togyz Kumalak games: two tasks
RUN = {"capture_output": True, "text": True, "timeout": 900, "cwd": ROOT}  # a command's run, in subprocess


# The ceiling


def test_ceiling_is_four_processes_per_core_when_memory_holds_them() -> None:
    found = ceiling(worker_mb=100, cores=2, available=10_000 * 2**20)
    assert found.count == 8
    assert found.reason() == "4 per core on 2 cores"
    assert found.refusal(8, "processes") is None
    assert found.refusal(9, "processes") == (
        "9 processes is more than this machine takes: at most 8 (4 per core on 2 cores)"
    )


def test_ceiling_is_what_memory_holds_at_a_worker_size() -> None:
    found = ceiling(worker_mb=200, cores=16, available=1_000 * 2**20)
    assert found == Ceiling(count=5, cores=16, available_mb=1_000, worker_mb=200)
    assert found.reason() == "1,000 MB of memory available holds 5 worker processes of about 200 MB"
    assert ceiling(worker_mb=200, cores=16, available=10 * 2**20).count == 1  # always one at least


def test_threads_are_bounded_by_the_cores_alone() -> None:
    assert ceiling(worker_mb=None, cores=3, available=1).count == 12


def test_available_memory_reads_memavailable_bounded_by_the_cgroup(tmp_path: Path) -> None:
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:       32000000 kB\nMemFree:  1000 kB\nMemAvailable:   2048 kB\n")
    no_cgroup = tmp_path / "no-cgroup"
    assert available_memory(meminfo, no_cgroup) == 2048 * 1024
    cgroup = tmp_path / "cgroup"
    cgroup.mkdir()
    (cgroup / "memory.max").write_text("3000000\n")
    (cgroup / "memory.current").write_text("2000000\n")
    assert available_memory(meminfo, cgroup) == 1_000_000
    (cgroup / "memory.max").write_text("max\n")
    assert available_memory(meminfo, cgroup) == 2048 * 1024


def test_available_memory_without_meminfo_falls_back_to_the_free_pages(tmp_path: Path) -> None:
    found = available_memory(tmp_path / "none", tmp_path / "none")
    assert found is None or found > 0


def test_analyze_refuses_jobs_above_the_ceiling_before_making_anything(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["analyze", str(TWO_GAMES), "--out", str(out), "--jobs", "100000"])
    assert result.exit_code == 2
    limit = ceiling(worker_size("togyz")).count
    assert f"100,000 processes is more than this machine takes: at most {limit} (" in result.output
    assert not out.exists()


@pytest.mark.parametrize(
    "command",
    [
        ["worker", "--broker", "redis://127.0.0.1:1/0", "--concurrency", "100000"],
        ["match", "--jobs", "100000", "--games", "2"],
        ["bench", "marks", "--jobs", "100000"],
        ["train", "--threads", "100000", "--out", "never"],
    ],
)
def test_every_pool_refuses_a_count_above_the_ceiling(
    command: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # nothing may be made here
    result = CliRunner().invoke(main, command)
    assert result.exit_code == 2, result.output
    assert "100,000" in result.output and "more than this machine takes: at most" in result.output
    assert list(tmp_path.iterdir()) == []


# Processes: no more than tasks, parent warmed, none left behind


POOL_RUN = """
import json, multiprocessing, sys
from taldau.base.kind import Limit
from taldau.analysis.batch import BatchSettings
from taldau.games.togyz import search
from taldau.workers.run import local_executor, run_analysis

before = bool(search.search_root.signatures)
children = set()
def progress(state):
    children.update(child.pid for child in multiprocessing.active_children())
said = []
settings = BatchSettings(game="togyz", limit=Limit(depth=1))
run_analysis([sys.argv[1]], sys.argv[2], settings, local_executor(8, said.append), progress=progress)
print(json.dumps({"before": before, "after": bool(search.search_root.signatures), "children": len(children)}))
"""


@pytest.mark.slow
def test_a_pool_of_eight_for_two_tasks_starts_two_processes_forked_from_a_warm_parent(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", POOL_RUN, str(TWO_GAMES), str(tmp_path / "out")], **RUN)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.splitlines()[-1])
    assert found["children"] == 2
    # the parent never searches a position itself: its search kernel is compiled by the warm-up alone
    assert found == {"before": False, "after": True, "children": 2}


FROZEN_RUN = """
import gc, json
from types import SimpleNamespace
import taldau.workers.run as run

def frozen_in_worker(task, spec):
    return gc.get_freeze_count()

run.run_task = frozen_in_worker
run.warm_kernels = lambda *_: None
before = gc.get_freeze_count()
found = []
spec = SimpleNamespace(settings=SimpleNamespace(game="backgammon", analyser=SimpleNamespace(warm=None)))
run.local_executor(1)(["task"], spec, found.extend)
print(json.dumps({"before": before, "worker": found[0], "after": gc.get_freeze_count()}))
"""


def test_the_local_pool_freezes_the_warm_parent_heap_before_forking() -> None:
    """The parent's objects after the warm-up (``frozen_heap``) are in the collector's permanent generation
    when the pool forks, and the worker inherits it: its collections skip them; once the run ends, the
    parent's objects are the collector's again (a library caller's heap is not frozen for good)."""
    done = subprocess.run([sys.executable, "-c", FROZEN_RUN], **RUN)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout.splitlines()[-1])
    assert found["before"] == 0 and found["after"] == 0
    assert found["worker"] > 10_000  # the interpreter's, numpy's and taldau's objects, inherited


def test_freeze_heap_collects_the_garbage_before_freezing() -> None:
    """An unreachable cycle is collected, not frozen for good; what is reachable is frozen."""
    script = (
        "import gc, weakref\n"
        "from taldau.base.processes import freeze_heap\n"
        "class Node: pass\n"
        "kept, lost = Node(), Node()\n"
        "lost.me = lost\n"
        "gone = weakref.ref(lost)\n"
        "del lost\n"
        "freeze_heap()\n"
        "print(gone() is None, gc.get_freeze_count() > 0, gc.get_count()[0] < 10)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], **RUN)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True", "True"]


def _children(parent: int) -> list[int]:
    """The process ids of the live children of ``parent`` (read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == parent and fields[0] != "Z":
                found.append(int(entry.name))
    return found


def _poll(condition, seconds: float) -> bool:
    """Whether ``condition()`` comes true within ``seconds``, asked every tenth of a second."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the parent-death signal is Linux's")
def test_a_sigkilled_analyze_leaves_no_worker_process(tmp_path: Path) -> None:
    archive = EXAMPLES / "togyz" / "playok-2024-2025-sample.pgn"  # 7 games, seconds each at depth 6
    command = [TALDAU, "analyze", str(archive), "--out", str(tmp_path / "out"), "--jobs", "2", "--depth", "6"]
    parent = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
    try:
        # the pool starts once the parent has warmed the engine (minutes on a cold cache)
        assert _poll(lambda: len(_children(parent.pid)) >= 2, 600), "the pool never started"
        workers = _children(parent.pid)
        assert parent.poll() is None, "the run ended before it could be killed"
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    assert _poll(lambda: not any(alive(pid) for pid in workers), 30), "worker processes outlived the parent"


def test_a_child_of_a_dead_parent_goes_at_once() -> None:
    """die_with_parent given a parent that is not this process's parent (it died before): the child
    exits instead of running on as an orphan."""
    child = os.fork()
    if child == 0:
        die_with_parent(os.getppid() + 1_000_000)  # not our parent: as if ours had died and we were adopted
        os._exit(0)  # reached only when die_with_parent lets it run on
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == (1 if sys.platform.startswith("linux") else 0)


# Compiling once


def test_warm_kernels_says_compiling_once_then_never_again(tmp_path: Path) -> None:
    said: list[str] = []
    kernel = numba.njit(cache=False)(lambda x: x + 1)  # a kernel of its own: never compiled before
    compiled = [jit.warm_kernels("backgammon", lambda: kernel(1), said.append, tmp_path) for _ in range(2)]
    assert compiled == [True, False]
    seconds = jit.FIRST_COMPILE_SECONDS["backgammon"]
    notice = f"compiling the backgammon kernels (first run of this version on this machine, about {seconds} s"
    assert said == [f"{notice} on an idle core)"]
    assert jit.warm_kernels("togyz", lambda: kernel(2), said.append, tmp_path) is False  # compiled: silent


def test_without_a_cache_every_run_compiles() -> None:
    said: list[str] = []
    jit.warm_kernels("togyz", numba.njit(cache=False)(lambda: 0), said.append, None)
    assert said == [
        "compiling the togyz kernels (no cache to keep them: every run compiles them, about "
        f"{jit.FIRST_COMPILE_SECONDS['togyz']} s on an idle core)"
    ]


@pytest.mark.slow
def test_analyze_on_an_empty_numba_cache_says_compiling_once(tmp_path: Path) -> None:
    env = os.environ | {"NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    command = [TALDAU, "analyze", str(TWO_GAMES), "--jobs", "2", "--depth", "1"]
    first = subprocess.run([*command, "--out", str(tmp_path / "a")], env=env, **RUN)
    assert first.returncode == 0, first.stderr
    assert first.stderr.count("compiling the togyz kernels (first run of this version on this machine") == 1
    again = subprocess.run([*command, "--out", str(tmp_path / "b")], env=env, **RUN)
    assert again.returncode == 0, again.stderr
    assert "compiling" not in again.stderr
