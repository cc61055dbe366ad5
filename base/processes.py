"""Worker processes: how many a machine can hold, and that they die with the process that started them.

Every pool of taldau (``analyze``'s local pool, ``worker``'s Celery pool, ``match``, ``bench marks``) and
every thread count (``train --threads``) is checked against one ceiling before anything starts: at most
``PROCESSES_PER_CORE`` per core this process may run on, and at most as many worker processes as the memory
available holds at the measured size of one (``WORKER_MB``). And every pool's children die with their
parent, also when the parent is killed with SIGKILL, which no handler of the parent can see: on Linux each
child asks the kernel for a SIGKILL when its parent goes (``prctl(PR_SET_PDEATHSIG)``), and checks that
the parent did not go before it asked. Elsewhere that is not done (no such call).

The sizes are the resident memory of a process that loaded a game's engine and warmed it (``Analyser.warm``)
on its own, numba's cache full, measured on 2026-12-04 on Linux x86-64 (Python 3.11, numba 0.68): Togyz
Kumalak 160 MB, backgammon 218 MB (its nets and bear-off database), both engines (a ``taldau worker`` pool
process) 190 to 197 MB, under backgammon's alone. A pool child forked from a parent that warmed the engine
first, as the local pool's are, shares most of that with it: after analysing, 164 MB resident of which
32 MB its own (Togyz, depth 8), 284 MB resident (the parent's compiler memory included) of which 44 MB its
own (backgammon, 1 ply). The ceiling takes the larger, resident figure: what a worker comes to when
nothing stays shared.
"""

from __future__ import annotations

import ctypes
import gc
import os
import signal
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

PROCESSES_PER_CORE = 4  # more than this many CPU-bound processes per core only adds memory and switching
WORKER_MB = {"togyz": 160, "backgammon": 220}  # a worker's resident memory once its engine is warm
PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>


@dataclass(frozen=True)
class Ceiling:
    """The most worker processes (or threads) this machine takes now, and why: ``cores`` and
    ``per_core`` give the processor's bound, ``available_mb`` and ``worker_mb`` the memory's (None when
    it is not known or does not apply)."""

    count: int
    cores: int
    per_core: int = PROCESSES_PER_CORE
    available_mb: int | None = None
    worker_mb: int | None = None

    def reason(self) -> str:
        """Why the ceiling is what it is, in words: the bound that sets it."""
        by_cores = self.cores * self.per_core
        if self.available_mb is not None and self.worker_mb and self.count < by_cores:
            return (
                f"{self.available_mb:,} MB of memory available holds {self.count} worker processes of "
                f"about {self.worker_mb} MB"
            )
        return f"{self.per_core} per core on {self.cores} {'core' if self.cores == 1 else 'cores'}"

    def refusal(self, count: int, what: str) -> str | None:
        """The one-line message refusing ``count`` ``what`` (``processes``, ``threads``) above the
        ceiling; None when the count is within it."""
        if count <= self.count:
            return None
        return f"{count:,} {what} is more than this machine takes: at most {self.count} ({self.reason()})"


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it), at least one."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def _meminfo_kb(field: str, meminfo: Path) -> int | None:
    """A ``field`` of ``/proc/meminfo``, in kB; None when the file or the field is not there."""
    try:
        lines = meminfo.read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        name, _, value = line.partition(":")
        if name == field and value.split():
            return int(value.split()[0])
    return None


def _cgroup_room(cgroup: Path) -> int | None:
    """Bytes this process's cgroup (v2) lets it still use, when it has a limit; None otherwise."""
    try:
        limit = (cgroup / "memory.max").read_text().strip()
        used = (cgroup / "memory.current").read_text().strip()
    except OSError:
        return None
    if not limit.isdigit() or not used.isdigit():
        return None  # "max": no limit
    return max(0, int(limit) - int(used))


def available_memory(
    meminfo: Path = Path("/proc/meminfo"), cgroup: Path = Path("/sys/fs/cgroup")
) -> int | None:
    """Bytes of memory available for new processes without swapping: Linux's ``MemAvailable`` (bounded by
    the room left under a cgroup's memory limit), else the free physical pages where the system counts
    them; None where neither is known."""
    found = _meminfo_kb("MemAvailable", meminfo)
    available = None if found is None else found * 1024
    if available is None:
        try:
            available = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (AttributeError, ValueError, OSError):
            available = None
    room = _cgroup_room(cgroup)
    if room is not None:
        available = room if available is None else min(available, room)
    return available


def ceiling(worker_mb: int | None, cores: int | None = None, available: int | None = None) -> Ceiling:
    """The most worker processes of ``worker_mb`` MB each that this machine takes now (threads:
    ``worker_mb`` None, the cores' bound alone); ``cores`` and ``available`` (bytes) are measured when not
    given."""
    cores = usable_cores() if cores is None else cores
    count = cores * PROCESSES_PER_CORE
    available_mb = None
    if worker_mb:
        available = available_memory() if available is None else available
        if available is not None:
            available_mb = available // 2**20
            count = min(count, max(1, available_mb // worker_mb))
    return Ceiling(count, cores, PROCESSES_PER_CORE, available_mb, worker_mb if available_mb else None)


def worker_size(game: str | None) -> int:
    """The measured size in MB of a worker process of ``game`` (None, or a game not measured: the largest,
    which also holds every engine loaded)."""
    return WORKER_MB.get(game or "", max(WORKER_MB.values()))


def die_with_parent(parent: int) -> None:
    """Have the kernel kill this process (SIGKILL) when its parent goes, and go at once if the parent
    ``parent`` (its process id) is already gone, as happens when it dies before this runs. Linux only; a
    no-op elsewhere. For a pool's initializer, in the child."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:
        os._exit(1)  # the parent died between the fork and the prctl: the kernel will not tell us


def freeze_heap() -> None:
    """Collect the garbage, then move every object left into the collector's permanent generation
    (``gc.freeze``), for a process that has loaded and warmed its engines and will fork its workers: the
    collector never traverses those objects again (numba's compiled kernels and their types, the nets), in
    this process or in the children forked from it, which inherit the generation; their full collections
    during a review then visit only what the review made (about 4% of a backgammon review's CPU before, a
    third of that after: BENCHMARKS.md, issue 57, fourth session). A forked child also keeps sharing the
    pages of those objects with its parent instead of copying them when the collector writes to them."""
    gc.collect()
    gc.freeze()


@contextmanager
def frozen_heap() -> Iterator[None]:
    """The heap frozen (``freeze_heap``) for the duration, for a process that forks its workers within and
    goes on after (a local run called as a library): the objects go back to the collector's care at the
    end, in this process; the children forked meanwhile keep theirs frozen."""
    freeze_heap()
    try:
        yield
    finally:
        gc.unfreeze()


def _start_worker(parent: int, initializer: Callable[[], object] | None) -> None:
    """A pool child's start: die with ``parent``, then run ``initializer``."""
    die_with_parent(parent)
    if initializer is not None:
        initializer()


def worker_pool(processes: int, initializer: Callable[[], object] | None = None) -> ProcessPoolExecutor:
    """A ``ProcessPoolExecutor`` of ``processes`` processes that die with this one, each running
    ``initializer`` first (when given). Create it from the thread that lives as long as the pool: the
    kernel's parent-death signal follows the thread that forked."""
    return ProcessPoolExecutor(
        max_workers=processes, initializer=_start_worker, initargs=(os.getpid(), initializer)
    )
