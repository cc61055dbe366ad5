"""A backgammon task's text: the match it analyses, as it travels to the analyser (a process of the pool, a
Celery worker) and back into games there.

The match is written as Jellyfish match text, as tasks always were, inside a JSON object that adds what
Jellyfish text cannot carry, action by action (by its game's and its own place in the match): the
judgements the file holds (``record.Verdict``: XG's analysis of a ``.xg``, gnubg's of an analysed SGF) and
the position XG records after a play it flags invalid (``Action.after``). A match with neither costs the
few bytes of the object. ``task_games`` reads it back, and still reads a task that is Jellyfish text alone
(a message queued by an older client).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import replace
from typing import Any

from taldau.base.records import ReadLimits, RecordFile

from ..rules.cube import DecisionKind
from .readers import read_matches
from .record import MatchRecord, Verdict
from .replay import Game, match_games, read_games
from .writer import write_jellyfish

TASK_MARK = "taldau backgammon match"  # the value of "task" that says a text is a match with its notes


def task_text(match: MatchRecord) -> str:
    """The whole ``match`` (every game of it, in order, with what its actions carry) as a task's text."""
    notes = [
        [place, at, [_verdict_values(verdict) for verdict in action.verdicts], action.after]
        for place, game in enumerate(match.games)
        for at, action in enumerate(game.actions)
        if action.verdicts or action.after
    ]
    task = {"task": TASK_MARK, "record": write_jellyfish(match), "notes": notes}
    return json.dumps(task, ensure_ascii=False, separators=(",", ":"))


def task_games(data: bytes, source: str) -> Iterator[Game]:
    """The games of a task's text, replayed in order, as read from ``source``: the match with its notes
    (``task_text``), or record bytes (Jellyfish text, as tasks were written before)."""
    if data.lstrip()[:1] != b"{":
        yield from read_games(data, source)
        return
    task = json.loads(data)
    if not isinstance(task, dict) or task.get("task") != TASK_MARK:
        raise ValueError(f"{source}: not a backgammon task")
    file = RecordFile.of_bytes(task["record"].encode(), source, ReadLimits())
    for match in read_matches(file):
        yield from match_games(_noted(match, task["notes"]))


def _noted(match: MatchRecord, notes: Sequence[Sequence[Any]]) -> MatchRecord:
    """``match`` with each note's verdicts and position after the play on its action; ValueError where an
    action noted is not in the match (the record was not read back as written)."""
    for place, at, verdicts, after in notes:
        if not (0 <= place < len(match.games) and 0 <= at < len(match.games[place].actions)):
            raise ValueError(f"{match.source}: game {place + 1} has no action {at + 1} to note")
        actions = match.games[place].actions
        kept = tuple(_verdict(values) for values in verdicts)
        actions[at] = replace(actions[at], verdicts=kept, after=after)
    return match


def _verdict_values(verdict: Verdict) -> list[Any]:
    return [verdict.judge, verdict.level, str(verdict.kind), verdict.best, verdict.loss, verdict.equities]


def _verdict(values: Sequence[Any]) -> Verdict:
    judge, level, kind, best, loss, equities = values
    cube = None if equities is None else (float(equities[0]), float(equities[1]), float(equities[2]))
    return Verdict(judge, level, DecisionKind(kind), best, float(loss), cube)
