"""Loaded by the worker processes of test_celery's crash test (via PYTHONPATH): analysing a game whose
Event header is "crash" kills the process, as a record that crashes the engine would."""

import json
import os
import signal

import taldau.workers.run as run

_analyse = run.analyse_task


def _crashing(task, settings):
    if '"Event": "crash"' in json.dumps(task.data):  # the game's headers, as its task carries them
        os.kill(os.getpid(), signal.SIGKILL)
    return _analyse(task, settings)


run.analyse_task = _crashing
