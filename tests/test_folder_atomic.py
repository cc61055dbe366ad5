"""An analysis folder's two tables change together or not at all (issue 54, item 1): compaction writes a new
generation of both beside the old and switches them with one rename of the manifest. Interrupted at every
write (a full disk, or a kill), the readers see the old consistent folder or the new one, never a mix, and
the same run again finishes it with nothing lost; a real full disk (a tmpfs) is one line with the space
needed; a folder made inconsistent or damaged by anything else is refused by every reader with one line
that says what to run; a manifest.json that is not taldau's is never overwritten."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from conftest import EXAMPLES
from taldau.analysis.folder import MANIFEST, FolderError, open_folder
from taldau.base import files as base_files
from taldau.schemas import files as schema_files
from taldau.workers.store import FolderFull, ResultStore, RunRecord

TALDAU = str(Path(sys.executable).with_name("taldau"))


class Killed(BaseException):
    """A kill at a write: nothing after it runs but ``finally`` blocks (as SIGKILL, but for those)."""


def _state(folder: Path) -> tuple[list[str], int]:
    """What a reader sees: the game ids of ``games`` and the number of ``moves`` rows; FolderError when the
    folder is refused."""
    opened = open_folder(folder)
    games = sorted(opened.table("games", ["game_id"]).column("game_id").to_pylist())
    return games, opened.table("moves", ["game_id"]).num_rows


def _split(source: Path) -> tuple[list[tuple[str, pa.Table, pa.Table]], str, dict[str, Any]]:
    """The games of the analysed folder ``source``, each as a task (its id, moves and games rows), with the
    folder's settings key and settings."""
    opened = open_folder(source)
    games = pq.read_table(opened.files("games")[0])
    moves = pq.read_table(opened.files("moves")[0])
    tasks = []
    for game_id in games.column("game_id").to_pylist():
        own = pc.field("game_id") == game_id
        tasks.append((game_id, moves.filter(own), games.filter(own)))
    return tasks, opened.key, opened.manifest.settings


@pytest.fixture
def two_runs(analysed_examples: dict[str, Path], tmp_path: Path) -> Callable[[Path], tuple[Any, Any]]:
    """A maker of a folder where a first run compacted 4 games and a second run's 3 others (and one of the
    first again) wait in parts; it returns what a reader sees before and after the second compaction."""
    tasks, key, settings = _split(analysed_examples["togyz"])

    def make(folder: Path) -> tuple[Any, Any]:
        store = ResultStore(folder, key)
        for task in tasks[:4]:
            store.write(*task)
        store.compact(settings, RunRecord("first", frozenset(task[0] for task in tasks[:4])))
        for task in tasks[3:]:
            store.write(*task)
        before = _state(folder)
        every = sorted(task[0] for task in tasks)
        after = (every, sum(task[1].num_rows for task in tasks))
        return before, after

    make.store = lambda folder: ResultStore(folder, key)  # type: ignore[attr-defined]
    make.settings = settings  # type: ignore[attr-defined]
    make.run = RunRecord("second", frozenset(task[0] for task in tasks[3:]))  # type: ignore[attr-defined]
    return make


@pytest.fixture
def writes(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[int, str], None]]:
    """Arms a fault at the ``n``-th write of the folder (a file published, or one removed): ``full`` has
    the disk fill up halfway through that file (ENOSPC), ``kill`` stops everything at it."""
    armed: dict[str, Any] = {"at": 0, "count": 0, "how": "full"}
    publish, unlink = base_files.publish, Path.unlink

    def strike() -> bool:
        armed["count"] += 1
        return armed["count"] == armed["at"]

    def faulty_publish(path: Path, write: Callable[[Path], object]) -> None:
        if not strike():
            return publish(path, write)
        if armed["how"] == "kill":
            raise Killed()

        def half(temporary: Path) -> None:
            temporary.write_bytes(b"PAR1" + b"\0" * 100)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        return publish(path, half)

    def faulty_unlink(self: Path, missing_ok: bool = False) -> None:
        if self.name != ".lock" and not self.name.startswith(".") and strike() and armed["how"] == "kill":
            raise Killed()
        return unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(base_files, "publish", faulty_publish)
    monkeypatch.setattr(schema_files, "publish", faulty_publish)
    monkeypatch.setattr(Path, "unlink", faulty_unlink)

    def arm(at: int, how: str) -> None:
        armed.update(at=at, count=0, how=how)

    yield arm


@pytest.mark.parametrize("how", ["full", "kill"])
def test_compaction_interrupted_at_every_write_leaves_the_old_folder_or_the_new(
    two_runs: Any, writes: Callable[[int, str], None], tmp_path: Path, how: str
) -> None:
    """For each write of a compaction in turn (each table file of the new generation, the manifest, each
    old file and part removed): a fault there leaves the readers the folder before or after, whole, and
    the same compaction again gives the folder after."""
    seen = {"before": 0, "after": 0}
    at = 0
    while True:
        at += 1
        folder = tmp_path / f"{how}-{at}"
        before, after = two_runs(folder)
        store = two_runs.store(folder)
        writes(at, how)
        try:
            store.compact(two_runs.settings, two_runs.run)
            finished = True
        except (Killed, FolderFull):
            finished = False
        writes(0, how)
        state = _state(folder)
        assert state in (before, after), (at, state)
        seen["before" if state == before else "after"] += 1
        if finished:
            break
        store.compact(two_runs.settings, two_runs.run)  # the run again
        assert _state(folder) == after, at
        assert not list(folder.glob("parts/*/games/*"))  # a moves part stopped alone waits out its day
        left = {path.name for name in ("moves", "games") for path in (folder / name).iterdir()}
        assert left == {open_folder(folder).files(name)[0].name for name in ("moves", "games")}
    assert seen["before"] >= 3 and seen["after"] >= 1 and at >= (4 if how == "full" else 8), seen


def test_a_full_disk_is_folder_full_naming_the_space_and_the_rerun(
    two_runs: Any, writes: Callable[[int, str], None], tmp_path: Path
) -> None:
    """ENOSPC at the first table file: FolderFull names the folder, the space needed and what to run; the
    new generation's files are gone, the parts kept."""
    folder = tmp_path / "full"
    before, _ = two_runs(folder)
    writes(1, "full")
    with pytest.raises(FolderFull) as raised:
        two_runs.store(folder).compact(two_runs.settings, two_runs.run)
    said = str(raised.value)
    assert said.startswith(f"{folder}: the disk is full (No space left on device)"), said
    assert "MB free" in said and "run the same `taldau analyze` again to finish" in said, said
    assert _state(folder) == before
    assert sorted(path.name for path in (folder / "games").iterdir()) == [
        open_folder(folder).files("games")[0].name
    ]
    assert len(list((folder / "parts").glob("*/games/part-*.parquet"))) == 4


def _tmpfs(path: Path, size: str) -> None:
    """Mount a tmpfs of ``size`` at ``path``, or skip saying why."""
    path.mkdir()
    if os.geteuid() != 0:
        pytest.skip("a tmpfs is mounted by root only: the full disk is shown by the fault injected above")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True
    )
    if mounted.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")


@pytest.mark.slow
def test_a_real_full_disk_during_analyze_is_one_line_and_the_rerun_finishes(tmp_path: Path) -> None:
    """On a tmpfs filled up to a little less than compaction needs, `taldau analyze` into a folder that
    holds an earlier run: exit 2, one line naming the folder and the space, no traceback; the reports of
    the folder still read the earlier run whole; with space freed the same command finishes it."""
    disk = tmp_path / "disk"
    _tmpfs(disk, "4m")
    try:
        out = disk / "out"
        first = [
            TALDAU,
            "analyze",
            str(EXAMPLES / "togyz" / "playok-2024-2025-sample.pgn"),
            "--out",
            str(out),
        ]
        options = ["--depth", "1", "--jobs", "1"]
        assert subprocess.run([*first, *options], capture_output=True).returncode == 0
        before = _state(out)
        used = sum(path.stat().st_size for path in out.rglob("*.parquet"))
        filler = disk / "filler"
        free = shutil.disk_usage(disk).free
        filler.write_bytes(b"\0" * (free - used))  # room for the parts, not for compacting
        second = [TALDAU, "analyze", str(EXAMPLES / "togyz" / "compact.txt"), "--out", str(out), *options]
        result = subprocess.run(second, capture_output=True, text=True)
        said = result.stdout + result.stderr
        assert result.returncode == 2, said
        assert "Traceback" not in said, said
        errors = [line for line in said.splitlines() if line.startswith("error:")]
        assert len(errors) == 1 and f"{out}: the disk is full" in errors[0], said
        assert "run the same `taldau analyze` again to finish" in errors[0]
        assert _state(out) == before
        filler.unlink()
        again = subprocess.run(second, capture_output=True, text=True)
        assert again.returncode == 0, again.stdout + again.stderr
        games, moves = _state(out)
        assert len(games) == len(before[0]) + 3 and moves > before[1]
    finally:
        subprocess.run(["umount", str(disk)], check=False)


def _old_layout(source: Path, folder: Path) -> Path:
    """A copy of the analysed folder ``source`` as taldau wrote it before the manifest listed its files
    (``<key>-00000.parquet``, no ``tables``)."""
    shutil.copytree(source, folder)
    manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    manifest.pop("tables")
    key = manifest["key"]
    (folder / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    for name in ("moves", "games"):
        (file,) = (folder / name).iterdir()
        file.rename(folder / name / f"{key}-00000.parquet")
    return folder


def test_a_folder_written_before_generations_reads_and_is_checked(
    analysed_examples: dict[str, Path], tmp_path: Path
) -> None:
    """A folder of the layout before reads as it did; with its games compacted and its moves not (the
    full disk of the audit: the manifest's totals then disagree), it is refused with the rerun hint; the
    next run's compaction moves it to a generation and removes the old files."""
    source = analysed_examples["togyz"]
    old = _old_layout(source, tmp_path / "old")
    assert _state(old) == _state(source)
    manifest = open_folder(old).manifest
    ResultStore(old, manifest.key).compact(manifest.settings, RunRecord("again", frozenset()))
    assert _state(old) == _state(source)
    assert [path.name for path in (old / "moves").iterdir()] == [f"{manifest.key}.1-00000.parquet"]
    broken = _old_layout(source, tmp_path / "broken")
    games = next((broken / "games").iterdir())
    table = pq.read_table(games)
    pq.write_table(pa.concat_tables([table, table.slice(0, 2)]), games)  # 2 games more than the manifest says
    with pytest.raises(FolderError) as refused:
        open_folder(broken)
    said = str(refused.value)
    assert said.startswith(
        f"{broken}: inconsistent analysis folder (moves/ 581 rows where it records 581, "
    ), said
    assert "games/ 9 rows where it records 7" in said and f"--out {broken}` again to finish it" in said, said


def test_a_damaged_table_file_is_refused_by_every_reader_in_one_line(
    analysed_examples: dict[str, Path], tmp_path: Path
) -> None:
    """A moves file truncated, then one overwritten with other bytes: `report`, `players`, `annotate` and
    `analyze` into it each say which file is damaged and what to do, exit non-zero, no traceback."""
    from click.testing import CliRunner
    from taldau.cli.main import main

    for damage in ("truncated", "overwritten"):
        folder = tmp_path / damage
        shutil.copytree(analysed_examples["togyz"], folder)
        moves = open_folder(folder).files("moves")[0]
        data = moves.read_bytes()
        moves.write_bytes(data[: len(data) // 2] if damage == "truncated" else b"not parquet" * 100)
        archive = str(EXAMPLES / "togyz" / "playok-2024-2025-sample.pgn")
        commands = [
            ["report", str(folder), "--out", str(tmp_path / f"report-{damage}")],
            ["players", str(folder)],
            ["annotate", str(folder)],
            ["analyze", archive, "--out", str(folder), "--depth", "1", "--jobs", "1"],
        ]
        for command in commands:
            result = CliRunner().invoke(main, command)
            said = result.output + (result.stderr if result.stderr_bytes is not None else "")
            assert (result.exit_code != 0 and result.exception is None) or isinstance(
                result.exception, SystemExit
            ), (
                command,
                said,
            )
            assert "Traceback" not in said, (command, said)
            assert f"{moves}: damaged Parquet file" in said, (command, said)


def test_a_first_run_killed_says_to_run_it_again(two_runs: Any, tmp_path: Path) -> None:
    """Parts and no manifest (a first run killed before it compacted): readers say so and what to run."""
    folder = tmp_path / "killed"
    two_runs(folder)
    (folder / MANIFEST).unlink()
    for name in ("moves", "games"):
        shutil.rmtree(folder / name)
    with pytest.raises(
        FolderError, match=r"a `taldau analyze` run into it has not finished .* again to finish it"
    ):
        open_folder(folder)


def test_analyze_never_overwrites_a_manifest_that_is_not_its_own(tmp_path: Path) -> None:
    """A folder with another program's manifest.json: refused with one line, the file untouched."""
    from click.testing import CliRunner
    from taldau.cli.main import main

    out = tmp_path / "theirs"
    out.mkdir()
    theirs = json.dumps({"name": "my project", "version": 3})
    (out / MANIFEST).write_text(theirs, encoding="utf-8")
    archive = str(EXAMPLES / "togyz" / "compact.txt")
    result = CliRunner().invoke(main, ["analyze", archive, "--out", str(out), "--depth", "1", "--jobs", "1"])
    assert result.exit_code == 2, result.output
    assert f"{out / MANIFEST}: not a manifest taldau wrote" in result.output
    assert (out / MANIFEST).read_text(encoding="utf-8") == theirs
    assert sorted(path.name for path in out.iterdir()) == [MANIFEST]
