"""``taldau worker`` as a library: a Celery worker of taldau in this process, its engines loaded before it
takes tasks (it logs one INFO line once it takes them), started again in a fresh process image (the same
process id) when Celery stops it on an error (kombu can fail so while the broker restarts). A worker stopped
by a signal or a warm shutdown stays stopped; on SIGTERM (Celery's warm shutdown, with late acknowledgement)
it finishes the tasks it runs and gives those it holds reserved back to the queue.

A worker needs nothing but the broker: the task carries its record, and its rows go back through Redis
(``results``)."""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .celery_app import ServiceSettings

EX_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports a command stopped by Ctrl-C
RESTART_PAUSE = 2.0  # seconds between Celery stopping on an error and the worker starting again


@dataclass(frozen=True)
class WorkerSettings:
    """One worker: its ``broker`` (a URL that ``broker.parse_broker`` accepts), how it uses it, its pool's
    ``concurrency``, its ``hostname`` (NAME@HOST with %h for this host; None: taldau-<process id>@<host>)
    and Celery's ``loglevel``."""

    broker: str
    service: ServiceSettings
    concurrency: int
    hostname: str | None = None
    loglevel: str = "INFO"


@dataclass(frozen=True)
class Stop:
    """How Celery's worker stopped: its exit ``code`` and the ``signal`` that asked it to (None when it
    stopped of itself, on an error or a warm shutdown)."""

    code: int | None
    signal: str | None

    @property
    def restarts(self) -> bool:
        """Whether the worker starts again: Celery stopped on an error, not asked to by a signal."""
        return self.signal is None and self.code not in (0, None)

    @property
    def exit_code(self) -> int:
        """The exit code of a worker that stays stopped (Celery exits 1 on Ctrl-C, which is no error)."""
        if self.signal is not None:
            return EX_INTERRUPTED if self.signal == "SIGINT" else self.code or 0
        return self.code or 0


def load_engines(say: Callable[[str], object]) -> None:
    """Every game's engine loaded (compiled on a machine's first use; ``say`` tells so), before Celery forks
    its pool: the children inherit the engines compiled, and no task's time limit is spent compiling them
    (which also leaves a child unable to analyse when a limit strikes in the middle); then the heap frozen
    (``freeze_heap``), so that the children's garbage collections skip what the warm-up left."""
    from taldau.base.jit import warm_kernels
    from taldau.base.processes import freeze_heap
    from taldau.games.registry import NAMES, analyser

    for name in NAMES:
        warm_kernels(name, analyser(name).warm, lambda line, game=name: say(f"{game}: {line}"))
    freeze_heap()


def ready_line(hostname: str, settings: WorkerSettings) -> str:
    """The line a worker logs once it takes tasks: its name, its processes and its broker (masked)."""
    from taldau.analysis.accounting import count

    from .broker import safe_url

    processes = count(settings.concurrency, "process", "processes")
    return f"taldau worker {hostname}: ready, engines loaded, {processes} taking games from " + safe_url(
        settings.broker
    )


def run_worker(settings: WorkerSettings) -> Stop:
    """Run Celery's worker of ``settings`` in this process until it stops, logging ``ready_line`` at INFO
    once it takes tasks (through Celery's logging, as its own lines: a print would show as a WARNING,
    Celery logging what is written to stderr so); its pool's processes die with this one (Celery asks the
    kernel too, without closing the race of a parent that dies before the child asks)."""
    from celery import signals
    from celery.utils.nodenames import host_format
    from taldau.base.processes import die_with_parent

    from .celery_app import make_app

    app = make_app(settings.broker, settings.service)
    hostname = host_format(settings.hostname or f"taldau-{os.getpid()}@%h")
    celery_worker = app.Worker(
        hostname=hostname,
        concurrency=settings.concurrency,
        loglevel=settings.loglevel,
        pool_cls="prefork",
        without_gossip=True,
        without_mingle=True,
    )
    stopped_by: list[str] = []  # the signal that asked Celery to stop (its own handlers' report)
    signals.worker_shutting_down.connect(lambda sig, **_: stopped_by.append(sig), weak=False)
    parent = os.getpid()
    signals.worker_process_init.connect(lambda **_: die_with_parent(parent), weak=False)
    ready = ready_line(hostname, settings)
    signals.worker_ready.connect(lambda **_: logging.getLogger(__name__).info(ready), weak=False)
    celery_worker.start()
    return Stop(celery_worker.exitcode, stopped_by[0] if stopped_by else None)


def supervise(settings: WorkerSettings, again: Sequence[str], say: Callable[[str], object]) -> int:
    """Run the worker; the exit code once it stays stopped. When Celery stops it on an error, ``say`` so
    and run ``again`` (a command line as ``sys.argv`` holds one: the script, then its arguments) with this
    Python in this process's place."""
    stop = run_worker(settings)
    if stop.restarts:
        say(f"taldau worker: Celery stopped (exit code {stop.code}); restarting in {RESTART_PAUSE:.0f} s")
        time.sleep(RESTART_PAUSE)
        sys.stdout.flush()
        sys.stderr.flush()
        os.execv(sys.executable, [sys.executable, *again])
    return stop.exit_code
