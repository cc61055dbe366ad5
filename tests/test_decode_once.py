"""Each game's text is parsed once on the walk of an archive from ``analyze`` to Parquet: in the reading of
the plan, never again (not to choose the game, not to check a task, not to review it), and a task carries
its games as plain JSON data that its kind rebuilds them from."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import taldau.games.backgammon.records.replay as backgammon_replay
import taldau.games.backgammon.records.task as backgammon_task
import taldau.games.togyz.records as togyz_records
from taldau.analysis.batch import ArchivePlan, BatchSettings, GameTask, analyse_task, plan
from taldau.analysis.folder import open_folder
from taldau.base.kind import STORED, Limit
from taldau.games.registry import game_kind
from taldau.games.togyz.writers import write_playok
from taldau.workers.messages import RunSpec
from taldau.workers.run import Finished, run_analysis, run_task

EXAMPLES = Path(__file__).parent.parent / "examples"


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> Counter[tuple[str, int]]:
    """How many times each game's text is parsed, by (source, index): the games' parse entry points
    (Togyz's movetext and compact readers, backgammon's match readers) counting what they yield."""
    counts: Counter[tuple[str, int]] = Counter()
    read = togyz_records._read

    def counted_read(*args: Any) -> Iterator[togyz_records.GameRecord]:
        for record in read(*args):
            counts[(record.source, record.index)] += 1
            yield record

    monkeypatch.setattr(togyz_records, "_read", counted_read)
    matches = backgammon_replay.read_matches

    def counted_matches(*args: Any) -> Iterator[Any]:
        for match in matches(*args):
            for game in match.games:
                counts[(match.source, game.index)] += 1
            yield match

    for module in (backgammon_replay, backgammon_task):
        monkeypatch.setattr(module, "read_matches", counted_matches)
    return counts


def inline(tasks: list[GameTask], spec: RunSpec, finished: Finished) -> None:
    """An executor that runs each task in this process, so that its parses are counted here."""
    for task in tasks:
        finished([run_task(task, spec)])


@pytest.mark.parametrize(
    ("folder", "limit"), [("togyz", Limit(depth=1)), ("backgammon", Limit(level=STORED))]
)
def test_analyze_parses_each_game_once(
    folder: str, limit: Limit, parses: Counter[tuple[str, int]], tmp_path: Path
) -> None:
    archive = ArchivePlan.read([EXAMPLES / folder])  # --game auto: the game comes with the reading
    game = archive.game()
    assert game == folder
    manifest = run_analysis(archive, tmp_path / "out", BatchSettings(game, limit), inline)
    assert manifest.counts.ok > 0 and manifest.counts.failed == 0
    stored = open_folder(tmp_path / "out").rows("games")
    analysed = {(row["source"], row["index"]) for row in stored}
    assert analysed and analysed <= set(parses)
    assert set(parses.values()) == {1}, parses  # every game read, each parsed once


@pytest.mark.parametrize(("folder", "game"), [("togyz", "togyz"), ("backgammon", "backgammon")])
def test_a_task_round_trips_through_json(folder: str, game: str) -> None:
    settings = BatchSettings(game)
    kind = game_kind(game)
    tasks = [item for item in plan([EXAMPLES / folder], settings) if isinstance(item, GameTask)]
    assert tasks
    for task in tasks:
        sent = json.loads(json.dumps(task.to_json()))
        again = GameTask.from_json(sent)
        assert again == task  # the data is plain JSON already: nothing changes on the way
        games, before = again.decoded(kind), task.decoded(kind)
        assert [kind.facts(one) for one in games] == [kind.facts(one) for one in before]
        assert [kind.identity(games[one.place]) for one in task.games] == [one.game_id for one in task.games]


def test_an_older_task_of_record_text_still_analyses(parses: Counter[tuple[str, int]]) -> None:
    """A task queued by an earlier taldau carried its game as PlayOK text: a worker reads it as text."""
    settings = BatchSettings("togyz", Limit(depth=1))
    task = next(
        item for item in plan([EXAMPLES / "togyz" / "compact.txt"], settings) if isinstance(item, GameTask)
    )
    (game,) = task.decoded(game_kind("togyz"))
    older = {**task.to_json(), "record": write_playok(game)}
    del older["data"], older["game"]
    moves, rows = analyse_task(GameTask.from_json(older), settings)
    assert moves.num_rows == game.plies and [row.game_id for row in rows] == [task.games[0].game_id]
    assert parses[(task.source, task.index)] == 2  # read by the plan, then its text by the worker
