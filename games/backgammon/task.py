"""A backgammon task's text: the match it analyses, as it travels to the analyser (a process of the pool, a
Celery worker) and back into games there.

The match is written as JSON of its ``MatchRecord``, every game, action and the judgements the file holds
(``record.Verdict``: XG's analysis of a ``.xg``, gnubg's of an analysed SGF) kept, which Jellyfish text,
the task text of taldau before, cannot carry. Fields at their default are left out, so that the text stays
small. ``task_games`` reads it back, and still reads a task written as Jellyfish text (a message queued by
an older client).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import MISSING, fields, is_dataclass
from enum import Enum
from typing import Any

from taldau.base.kind import DecisionKind
from taldau.base.records import RecordError

from .record import Action, ActionKind, GameRecord, MatchRecord, Segment, Verdict
from .replay import Game, match_games, read_games

TASK_MARK = "taldau backgammon match"  # the value of "task" that says a text is a match as JSON


def task_text(match: MatchRecord) -> str:
    """The whole ``match`` (every game of it, in order, with its verdicts) as a task's text."""
    return json.dumps({"task": TASK_MARK, "match": _plain(match)}, ensure_ascii=False, separators=(",", ":"))


def task_games(data: bytes, source: str) -> Iterator[Game]:
    """The games of a task's text, replayed in order, as read from ``source``: the match as JSON
    (``task_text``), or record bytes (Jellyfish text, as tasks were written before)."""
    if data.lstrip()[:1] != b"{":
        yield from read_games(data, source)
        return
    found = json.loads(data)
    if not isinstance(found, dict) or found.get("task") != TASK_MARK:
        raise ValueError(f"{source}: not a backgammon task")
    match = _match(found["match"])
    match.source = source
    yield from match_games(match)


def _plain(value: Any) -> Any:
    """``value`` as JSON values: a dataclass as an object of its fields not at their default, an enum as
    its value, a tuple as a list."""
    if is_dataclass(value) and not isinstance(value, type):
        return {
            item.name: _plain(getattr(value, item.name))
            for item in fields(value)
            if not _at_default(item, getattr(value, item.name))
        }
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    return value


def _at_default(item: Any, value: Any) -> bool:
    if item.default is not MISSING:
        return bool(value == item.default)
    if item.default_factory is not MISSING:
        return bool(value == item.default_factory())
    return False


def _errors(values: list[Mapping[str, Any]] | None) -> list[RecordError]:
    return [RecordError(**value) for value in values or []]


def _segment(value: Mapping[str, Any]) -> Segment:
    return Segment(**{**value, "hits": tuple(value.get("hits", ())), "via": tuple(value.get("via", ()))})


def _verdict(value: Mapping[str, Any]) -> Verdict:
    equities = value.get("equities")
    return Verdict(
        **{
            **value,
            "kind": DecisionKind(value["kind"]),
            "equities": None if equities is None else (equities[0], equities[1], equities[2]),
        }
    )


def _action(value: Mapping[str, Any]) -> Action:
    dice = value.get("dice")
    return Action(
        **{
            **value,
            "kind": ActionKind(value["kind"]),
            "dice": None if dice is None else (int(dice[0]), int(dice[1])),
            "segments": tuple(_segment(item) for item in value.get("segments", ())),
            "verdicts": tuple(_verdict(item) for item in value.get("verdicts", ())),
        }
    )


def _game(value: Mapping[str, Any]) -> GameRecord:
    score = value.get("score")
    return GameRecord(
        **{
            **value,
            "score": None if score is None else (int(score[0]), int(score[1])),
            "actions": [_action(item) for item in value.get("actions", ())],
            "errors": _errors(value.get("errors")),
            "warnings": _errors(value.get("warnings")),
        }
    )


def _match(value: Mapping[str, Any]) -> MatchRecord:
    players = value.get("players", ("", ""))
    return MatchRecord(
        **{
            **value,
            "players": (players[0], players[1]),
            "games": [_game(item) for item in value.get("games", ())],
            "errors": _errors(value.get("errors")),
            "warnings": _errors(value.get("warnings")),
        }
    )
