"""What a user reads first (issue 42): the worker's ready line logged at INFO, not as a warning; an output
folder of other settings named by what differs; progress while `annotate` works."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from taldau.workers import supervisor
from taldau.workers.celery_app import ServiceSettings


class _FakeWorker:
    """Celery's worker as far as ``run_worker`` uses it: ready at once, then stopped."""

    exitcode = 0

    def start(self) -> None:
        from celery import signals

        signals.worker_ready.send(sender=self)


class _FakeApp:
    def Worker(self, **_: Any) -> _FakeWorker:  # noqa: N802 (Celery's name)
        return _FakeWorker()


def test_the_worker_s_ready_line_is_logged_at_info(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture
) -> None:
    """Once it takes tasks the worker logs one INFO line (the password masked), and prints nothing: what
    is written to stderr under Celery shows as a WARNING."""
    from taldau.workers import celery_app

    monkeypatch.setattr(celery_app, "make_app", lambda broker, service: _FakeApp())
    settings = supervisor.WorkerSettings(
        "redis://:secret@127.0.0.1:6379/0", ServiceSettings(), 3, hostname="one@here"
    )
    with caplog.at_level(logging.INFO):
        stop = supervisor.run_worker(settings)
    assert stop.exit_code == 0
    ready = [record for record in caplog.records if ": ready, engines loaded" in record.getMessage()]
    assert [record.levelno for record in ready] == [logging.INFO]
    assert ready[0].getMessage().startswith("taldau worker one@here: ready, engines loaded, 3 processes")
    assert "secret" not in ready[0].getMessage()
    assert capsys.readouterr() == ("", "")
