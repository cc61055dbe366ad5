"""A backgammon task: the match it analyses as plain JSON data, as it travels to the analyser (a process of
the pool, a Celery worker), and the match's games rebuilt from it there by the rules, no text read again.

``encode_match`` writes the match as it was read (``record.MatchRecord``: its headers, players and length,
every game with its announced score, actions, written result and what its reading found wrong, the
judgements the file holds and the positions XG records after a play it flags invalid), nothing left out;
``decode_match`` builds the same record from it and replays it (``replay.match_games``), so that the games
are those the plan replayed. ``task_games`` reads the tasks an earlier taldau queued as text (Jellyfish
match text inside a JSON object with those notes, ``task_text``, or Jellyfish text alone).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from typing import Any

from taldau.base.records import ReadLimits, RecordError, RecordFile

from ..rules.cube import DecisionKind
from .readers import read_matches
from .record import Action, ActionKind, GameRecord, MatchRecord, Segment, Verdict
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


def encode_match(match: MatchRecord) -> dict[str, Any]:
    """The whole ``match`` (every game of it, in order, with everything it was read with) as a task's JSON
    data: ``decode_match`` rebuilds it."""
    return {
        "source": match.source,
        "format": match.format,
        "headers": match.headers,
        "players": list(match.players),
        "length": match.length,
        "games": [_game_values(game) for game in match.games],
        "errors": _problem_values(match.errors),
        "warnings": _problem_values(match.warnings),
    }


def decode_match(data: Mapping[str, Any]) -> list[Game]:
    """The games of a task's JSON data (``encode_match``), replayed in order as the plan replayed them."""
    first, second = data["players"]
    match = MatchRecord(
        source=str(data["source"]),
        format=str(data["format"]),
        headers={str(name): str(value) for name, value in data["headers"].items()},
        players=(str(first), str(second)),
        length=int(data["length"]),
        games=[_game(values) for values in data["games"]],
        errors=_problems(data["errors"]),
        warnings=_problems(data["warnings"]),
    )
    return match_games(match)


def decode_task(data: Any, source: str) -> list[Game]:
    """The games of a task: its JSON data (``encode_match``), or the text an earlier taldau queued
    (``task_games``)."""
    if isinstance(data, str):
        return list(task_games(data.encode("utf-8"), source))
    return decode_match(data)


def _problem_values(problems: Sequence[RecordError]) -> list[list[Any]]:
    return [[problem.line, problem.column, problem.message] for problem in problems]


def _problems(values: Sequence[Sequence[Any]]) -> list[RecordError]:
    return [RecordError(int(line), int(column), str(message)) for line, column, message in values]


def _game_values(game: GameRecord) -> dict[str, Any]:
    return {
        "index": game.index,
        "line": game.line,
        "score": None if game.score is None else list(game.score),
        "actions": [_action_values(action) for action in game.actions],
        "winner": game.winner,
        "points": game.points,
        "match_won": game.match_won,
        "result_line": game.result_line,
        "errors": _problem_values(game.errors),
        "warnings": _problem_values(game.warnings),
    }


def _game(values: Mapping[str, Any]) -> GameRecord:
    score = values["score"]
    return GameRecord(
        index=int(values["index"]),
        line=int(values["line"]),
        score=None if score is None else (int(score[0]), int(score[1])),
        actions=[_action(action) for action in values["actions"]],
        winner=values["winner"],
        points=values["points"],
        match_won=bool(values["match_won"]),
        result_line=int(values["result_line"]),
        errors=_problems(values["errors"]),
        warnings=_problems(values["warnings"]),
    )


def _action_values(action: Action) -> list[Any]:
    """An action as a list: player, kind, line, column, number, dice, segments, value, text, unrecorded,
    verdicts, after."""
    return [
        action.player,
        action.kind.value,
        action.line,
        action.column,
        action.number,
        None if action.dice is None else list(action.dice),
        [[s.start, s.end, s.count, list(s.hits), list(s.via)] for s in action.segments],
        action.value,
        action.text,
        action.unrecorded,
        [_verdict_values(verdict) for verdict in action.verdicts],
        action.after,
    ]


def _action(values: Sequence[Any]) -> Action:
    player, kind, line, column, number, dice, segments, value, text, unrecorded, verdicts, after = values
    return Action(
        player=int(player),
        kind=ActionKind(kind),
        line=int(line),
        column=int(column),
        number=int(number),
        dice=None if dice is None else (int(dice[0]), int(dice[1])),
        segments=tuple(
            Segment(int(start), int(end), int(count), tuple(hits), tuple(via))
            for start, end, count, hits, via in segments
        ),
        value=int(value),
        text=str(text),
        unrecorded=bool(unrecorded),
        verdicts=tuple(_verdict(verdict) for verdict in verdicts),
        after=str(after),
    )
