"""Loaded by the worker processes of some test_celery tests (via PYTHONPATH): analysing a game whose Event
header is "hold" writes the file TALDAU_TEST_HOLDING and waits until the file TALDAU_TEST_RELEASE exists,
so that a test can act while a worker is in the middle of a game (kill it, interrupt the client, look). The
game's soft time limit (a minute) does not end the hold; its hard limit does."""

import json
import os
import time
from pathlib import Path

import taldau.workers.run as run
from celery.exceptions import SoftTimeLimitExceeded

_analyse = run.analyse_task


def _holding(task, settings):
    if '"Event": "hold"' in json.dumps(task.data):  # the game's headers, as its task carries them
        Path(os.environ["TALDAU_TEST_HOLDING"]).write_text(f"{os.getpid()}\n")
        release = Path(os.environ["TALDAU_TEST_RELEASE"])
        deadline = time.monotonic() + 600
        while not release.exists() and time.monotonic() < deadline:
            try:
                time.sleep(0.05)
            except SoftTimeLimitExceeded:  # a loaded machine: hold on until the hard limit
                continue
    return _analyse(task, settings)


run.analyse_task = _holding
