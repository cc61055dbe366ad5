"""Loaded by the worker of test_celery's restart test (via PYTHONPATH): the first acknowledgement of a
finished task fails the way kombu fails when a task is acknowledged while the broker reconnects (an
AttributeError that Celery calls an unrecoverable error, and the worker stops). A marker file makes it
happen once: the restarted worker is normal."""

import os
from pathlib import Path

from kombu.message import Message

_ack = Message.ack
_marker = Path(os.environ["TALDAU_TEST_MARKER"])


def _failing_once(self, multiple=False):
    if not _marker.exists():
        _marker.write_text("failed once\n")
        raise AttributeError("'NoneType' object has no attribute 'hostname'")
    return _ack(self, multiple=multiple)


Message.ack = _failing_once
