"""What a user reads first (issue 42): the worker's ready line logged at INFO, not as a warning; an output
folder of other settings named by what differs; progress while `annotate` works."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import EXAMPLES
from taldau.cli.main import main
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


def test_a_clash_of_settings_names_what_differs() -> None:
    """Each setting that differs with both values; the engine's version left out when the engine differs;
    the keys only when nothing named differs."""
    from taldau.workers.manifest import settings_clash

    found = {"game": "backgammon", "limit": "2-ply", "thresholds": [0.02, 0.04], "engine": "own-1"}
    found["engine_name"] = "own"
    asked = found | {"limit": "1-ply", "engine": "sage-2", "engine_name": "sage"}
    text = settings_clash("out", found, asked, ("aaa", "bbb"))
    assert text == (
        "out holds results of other settings (limit 2-ply there, 1-ply asked; engine own there, sage asked); "
        "use another --out directory"
    )
    thresholds = settings_clash("out", found, found | {"thresholds": [0.03, 0.04]}, ("aaa", "bbb"))
    assert "(thresholds 0.02/0.04 there, 0.03/0.04 asked)" in thresholds
    assert "settings key aaa there, bbb asked" in settings_clash("out", found, found, ("aaa", "bbb"))


def test_analyze_into_a_folder_of_another_depth_says_both_depths(tmp_path: Path) -> None:
    """The refusal names the depths, not the settings key (a hash)."""
    archive, out = EXAMPLES / "togyz" / "compact.txt", tmp_path / "out"
    runner = CliRunner()
    first = runner.invoke(main, ["analyze", str(archive), "--out", str(out), "--depth", "1", "--jobs", "1"])
    assert first.exit_code in (0, 1), first.output
    refused = runner.invoke(main, ["analyze", str(archive), "--out", str(out), "--depth", "2", "--jobs", "1"])
    assert refused.exit_code == 2
    assert "other settings (limit depth 1 there, depth 2 asked)" in refused.output, refused.output


@pytest.mark.parametrize(
    "record, options",
    [("togyz/compact.txt", ["--depth", "1"]), ("backgammon/gnubg-money-session.mat", ["--depth", "0"])],
)
def test_annotate_shows_its_progress_on_stderr(record: str, options: list[str]) -> None:
    """Lines of decisions judged on stderr as the review goes, the last the total; stdout only the games."""
    import re

    result = CliRunner().invoke(main, ["annotate", str(EXAMPLES / record), *options])
    assert result.exit_code == 0, result.output
    shown = [line for line in result.stderr.splitlines() if line.startswith("annotating: ")]
    assert shown and all(re.fullmatch(r"annotating: [\d,]+ decisions", line) for line in shown), result.stderr
    counts = [int(line.split()[1].replace(",", "")) for line in shown]
    assert counts == sorted(counts) and counts[-1] > 1
    assert "annotating" not in result.stdout
