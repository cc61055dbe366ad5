"""The typed messages of the worker boundary keep their wire formats: a run's ``RunSpec`` as every message
carries it, a task's report as the result backend stores it, an output folder's manifest as
``manifest.json`` holds it, and the status as `taldau status --json` prints it."""

from __future__ import annotations

import json
import pickle

from taldau.analysis.accounting import Inputs, NotUsed, Unused
from taldau.analysis.batch import BatchSettings
from taldau.analysis.folder import Counts, Failure, FolderSettings, Manifest, Skipped
from taldau.base.kind import Limit
from taldau.workers.messages import RunSpec, TaskReport
from taldau.workers.status import QueueStatus, RunningGame, RunStatus, Withdrawal


def test_a_run_spec_goes_over_the_wire_as_before_and_never_carries_a_loaded_engine() -> None:
    settings = BatchSettings(game="togyz", limit=Limit(depth=3))
    wire = {"id": "run", "out": "/out", "settings": settings.to_json(), "key": "k", "redo": False}
    spec = RunSpec("run", "/out", settings, "k")
    assert json.dumps(spec.to_json()) == json.dumps(wire)
    assert (
        RunSpec.from_json(json.loads(json.dumps(wire)))
        == spec
        == RunSpec("run", "/out", wire["settings"], "k")
    )
    older = wire | {
        "settings": {"game": "togyz", "depth": 3, "nodes": None, "thresholds": None, "engine": None}
    }
    assert RunSpec.from_json(older) == spec  # a message of a client from before the one Limit
    _ = settings.analyser  # loaded here: a pool process is handed the settings, not the engine
    data = pickle.dumps(spec)
    assert b"analyser" not in data and pickle.loads(data) == spec


def test_a_task_report_reads_back_and_an_older_one_counts_one_game() -> None:
    report = TaskReport("t", "a.pgn", 2, "ok", 1, 40, 38, "analysed", "k", "worker@host", None, "rows:t")
    assert TaskReport.from_json(json.loads(json.dumps(report.to_json()))) == report
    older = {"task": "t", "source": "a.pgn", "index": 2, "status": "ok", "plies": 40, "outcome": "exists"}
    assert (TaskReport.from_json(older).games, TaskReport.from_json(older).decisions) == (1, 0)


def test_a_manifest_writes_its_keys_in_order_and_reads_back() -> None:
    inputs = Inputs()
    inputs.game("a.pgn", valid=True)
    inputs.skip(NotUsed("m.mat", 1, Unused.OTHER_GAME, "a backgammon game; this run analyses togyz"))
    manifest = Manifest(
        key="k",
        settings=FolderSettings("togyz", "depth 1"),
        run="run",
        counts=Counts(games=1, ok=0, invalid=0, failed=1, plies=0),
        failures=(Failure("a.pgn", 1, "failed", "boom"),),
        skipped=(Skipped("m.mat", 1, "a backgammon game; this run analyses togyz"),),
        inputs=inputs,
        folder=Counts(games=3, ok=2, invalid=0, failed=1, plies=90),
    )
    written = manifest.to_json()
    keys = ["key", "settings", "schemas", "run", "counts", "failures", "skipped", "inputs", "folder"]
    assert list(written) == keys
    assert list(written["inputs"])[:4] == ["files", "games", "analysed", "failed"]
    assert written["failures"] == [{"source": "a.pgn", "index": 1, "status": "failed", "error": "boom"}]
    assert Manifest.from_json(json.loads(json.dumps(written))).to_json() == written


def test_the_status_reads_back_from_its_json() -> None:
    status = QueueStatus(
        "redis://h:6379/0",
        3,
        ("w@h",),
        (RunningGame("w@h", "t", "a.pgn", 1, "run"),),
        (RunStatus("run", "/o", 2),),
    )
    assert QueueStatus.from_json(json.loads(json.dumps(status.to_json()))) == status
    withdrawal = Withdrawal("run", "/o", 2, 0, 1)
    assert Withdrawal.from_json(withdrawal.to_json()) == withdrawal
