"""The common face of both games (``taldau.base.kind``): both kinds and the Togyz analyser satisfy the
Protocols, files go to the right game, a task's text replays to the same games (a backgammon match is one
task), the Celery time budget is the analyser's, and rows keep the Parquet tables' columns and values."""

from __future__ import annotations

import json
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import pytest
from taldau.analysis.batch import BatchSettings, GameTask, plan
from taldau.analysis.folder import FolderSettings
from taldau.base.kind import Analyser, GameKind, Limit
from taldau.base.records import ReadLimits, RecordFile
from taldau.games.backgammon import read_matches
from taldau.games.backgammon.kind import BackgammonKind
from taldau.games.registry import KINDS, NAMES, analyser, detect_game, game_kind
from taldau.games.togyz import Game
from taldau.games.togyz.kind import TogyzKind
from taldau.schemas import GAMES_SCHEMA, MOVES_SCHEMA, GameRow, MoveRow, SideFigures, Status, games_table

BACKGAMMON_EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "backgammon"

# The first game of examples/backgammon/galaxy-6800849.txt as eXtreme Gammon exports a match: its own
# headers, no leading blank before the match length, wider name column.
XG_EXPORT = """; [Site "eXtreme Gammon"]
; [Match ID "412"]
; [Player 1 "lasse"]
; [Player 2 "simon_haag"]
; [EventDate "2024.03.30"]
; [EventTime "08.58"]
; [Variation "Backgammon"]
; [Crawford "On"]
; [Jacoby "Off"]
; [Beaver "Off"]
; [Unrated "Off"]
; [CubeLimit "1024"]
; [Transcriber "eXtreme Gammon"]

3 point match

 Game 1
 lasse : 0                              simon_haag : 0
  1) 43: 13/9 13/10                     64: 8/2 6/2
  2) 53: 10/5 8/5                       43: 13/9 13/10
  3) 43: 13/9 24/21                     54: 9/4 8/4
  4) 53: 25/20 20/17                    53: 25/22 13/8
  5) 53: 25/20 20/17                    51: 25/24 6/1
  6) 61: 25/24 17/11                    62: 25/23 24/18
  7)  Doubles => 2                       Drops
      Wins 1 point
"""


def record_file(data: bytes, name: str) -> RecordFile:
    return RecordFile.of_bytes(data, name, ReadLimits())


def tasks_of(kind: GameKind[Any], games: list[Any]) -> list[list[Any]]:
    """Consecutive games grouped into tasks as the kind says."""
    tasks: list[list[Any]] = []
    for game in games:
        if tasks and kind.same_task(tasks[-1][-1], game):
            tasks[-1].append(game)
        else:
            tasks.append([game])
    return tasks


def test_both_kinds_satisfy_the_protocols() -> None:
    kinds = [kind() for kind in KINDS]
    assert NAMES == ("togyz", "backgammon") and all(isinstance(kind, GameKind) for kind in kinds)
    assert [type(game_kind(name)) for name in NAMES] == [TogyzKind, BackgammonKind]
    assert isinstance(TogyzKind().analyser, Analyser) and isinstance(analyser("togyz"), Analyser)
    assert isinstance(BackgammonKind().analyser, Analyser) and isinstance(analyser("backgammon"), Analyser)
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        game_kind("chess")

    class HalfAKind:  # reads records but cannot write a task back
        name = "half"
        analyser = None

        def recognises(self, file: RecordFile) -> bool:
            return True

    assert not isinstance(HalfAKind(), GameKind) and not isinstance(TogyzKind(), Analyser)


@pytest.mark.parametrize(
    ("name", "game"),
    [
        ("gnubg-money-session.mat", "backgammon"),
        ("gnubg-galaxy-8170603.sgf", "backgammon"),
        ("galaxy-6800849.txt", "backgammon"),
        ("studio-llabba-iradch49.txt", "backgammon"),
        ("xg-export.txt", "backgammon"),
        ("../togyz/playok-2024-2025-sample.pgn", "togyz"),
        ("../togyz/app-export.pgn", "togyz"),
        ("../togyz/scoresheet.txt", "togyz"),
        ("../togyz/compact.txt", "togyz"),
    ],
)
def test_detect_game_by_content(name: str, game: str) -> None:
    data = XG_EXPORT.encode() if name == "xg-export.txt" else (BACKGAMMON_EXAMPLES / name).read_bytes()
    kind = detect_game(record_file(data, name))
    assert kind.name == game
    games = list(kind.read_file(record_file(data, name)))
    assert games and all(kind.facts(one).valid for one in games)


@pytest.mark.parametrize(
    "name", ["gnubg-galaxy-8170603.sgf", "galaxy-6800849.txt", "gnubg-money-session.mat", "xg-export.txt"]
)
def test_a_backgammon_match_is_one_task_whose_data_replays_to_the_same_games(name: str) -> None:
    data = XG_EXPORT.encode() if name == "xg-export.txt" else (BACKGAMMON_EXAMPLES / name).read_bytes()
    kind = BackgammonKind()
    games = list(kind.read_file(record_file(data, name)))
    tasks = tasks_of(kind, games)
    matches = list(read_matches(record_file(data, name)))
    assert len(tasks) == len(matches) and [len(task) for task in tasks] == [len(m.games) for m in matches]
    for task in tasks:
        data = json.loads(json.dumps(kind.encode(task)))  # as a Celery message carries it
        again = kind.decode(data, "task")
        assert len(again) == len(task) > 0
        # The same games: results, scores, cube, plies, warnings and the match's headers, and the same ids.
        assert [replace(kind.facts(game), source="", format="") for game in again] == [
            replace(kind.facts(game), source="", format="") for game in task
        ]
        assert [kind.identity(game) for game in again] == [kind.identity(game) for game in task]
    ids = [kind.identity(game) for game in games]
    assert len(set(ids)) == len(ids)  # every game of the match its own id


def test_a_togyz_task_is_one_game_carried_as_its_headers_and_moves(togyz_examples: Path) -> None:
    kind = TogyzKind()
    data = (togyz_examples / "playok-2024-2025-sample.pgn").read_bytes()
    games: list[Game] = list(kind.read_file(record_file(data, "sample")))
    assert len(tasks_of(kind, games)) == len(games) > 1
    for game in games:
        (again,) = kind.decode(json.loads(json.dumps(kind.encode([game]))), "task")
        assert again.moves == game.moves and kind.identity(again) == kind.identity(game)
        assert replace(kind.facts(again), warnings=()) == replace(kind.facts(game), warnings=())


def test_plan_yields_a_task_per_togyz_game_and_skips_backgammon(togyz_examples: Path) -> None:
    settings = BatchSettings(limit=Limit(depth=1))
    items = list(plan([togyz_examples / "compact.txt", BACKGAMMON_EXAMPLES / "galaxy-6800849.txt"], settings))
    tasks = [item for item in items if isinstance(item, GameTask)]
    assert tasks and all(len(task.games) == 1 and task.id == task.games[0].game_id for task in tasks)
    skipped = [item for item in items if not isinstance(item, GameTask)]
    assert [(item.index, getattr(item, "detail", "")) for item in skipped] == [
        (index, "a backgammon game; this run analyses togyz") for index in (1, 2, 3, 4)
    ]
    assert GameTask.from_json(tasks[0].to_json()) == tasks[0]


def test_the_celery_time_budget_is_the_analyser_s() -> None:
    """Togyz states five times 0.2 s per ply at the default depth, 12 (2.5 times more per extra ply), and
    five times two searches of the node limit at 3 million nodes/s; the batch settings pass it on for a
    task's plies."""
    togyz = TogyzKind().analyser
    assert togyz.time_budget(Limit(), 100) == pytest.approx(100.0)  # the default depth
    assert togyz.time_budget(Limit(depth=13), 100) == pytest.approx(250.0)
    assert togyz.time_budget(Limit(nodes=300_000), 100) == pytest.approx(100.0)
    assert BatchSettings(limit=Limit(depth=14)).time_budget(371) == pytest.approx(5 * 0.2 * 2.5**2 * 371)


def test_settings_key_and_thresholds_come_from_the_analyser() -> None:
    settings = BatchSettings(limit=Limit(depth=3))
    record = settings.record()
    assert record.thresholds == (0.1, 0.2, 0.3) and record.limit == "depth 3" and record.key == settings.key
    assert FolderSettings.from_json(json.loads(json.dumps(record.to_json()))) == record
    assert BatchSettings.from_json(settings.to_json()) == settings and len(settings.key) == 12
    assert BatchSettings(limit=Limit(depth=4)).key != settings.key
    # the flat depth, nodes, level and thresholds of settings written before the one Limit read the same
    older = {"game": "togyz", "depth": 3, "nodes": None, "thresholds": None, "engine": None, "level": None}
    assert BatchSettings.from_json(older) == settings and BatchSettings.from_json(older).key == settings.key


def test_rows_keep_the_tables_columns_and_status_strings() -> None:
    assert [field.name for field in fields(MoveRow)] == MOVES_SCHEMA.names
    assert [str(status) for status in Status] == ["ok", "invalid", "failed"]
    figures = SideFigures(1, 2, 3, 88.5, 1.25)
    row = GameRow(
        "g", "togyz", "a.pgn", 3, Status.OK, "key", "playok", {"White": "A", "Event": "E"}, white=figures
    )
    (stored,) = games_table([row]).to_pylist()
    assert stored["status"] == "ok" and (stored["white"], stored["event"], stored["black"]) == (
        "A",
        "E",
        None,
    )
    assert stored["headers"] == [("White", "A"), ("Event", "E")]
    assert (stored["white_blunders"], stored["white_accuracy"], stored["black_accuracy"]) == (3, 88.5, None)
    assert games_table([row]).schema.equals(GAMES_SCHEMA, check_metadata=True)


def test_a_limit_is_in_range_and_stops_at_the_first_of_its_stops() -> None:
    assert Limit(depth=0).depth == 0 and Limit() == Limit(None, None, None, None) and not Limit().stops
    both = Limit(depth=2, nodes=1_000)  # several stops: the first reached ends the search
    assert both.stops and str(both) == "depth 2, nodes 1000" and str(Limit(movetime=0.5)) == "time 0.5"
    assert str(Limit(depth=2, level="deep")) == "depth 2, level deep"
    for wrong in ({"depth": -1}, {"nodes": 0}, {"movetime": 0.0}):
        with pytest.raises(ValueError, match="out of range"):
            Limit(**wrong)
