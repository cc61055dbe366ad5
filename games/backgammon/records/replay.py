"""Replaying backgammon match records with the rules core: every play legal for its dice, every cube action
legal for the match state, the points of every game as the rules give them, scores carried game to game.

A problem becomes a ``RecordError`` of its game (line and column in the file, the move number in the
message). An illegal play or cube action stops that game's replay; a wrong claim about a legal one (a hit
marked where none happened, a wrong cube value) does not, so every disagreement shows. The next game goes
on from the score the record announces.

A written result that the replay does not take as it stands is a warning, not an error: the game's plays
are all legal and worth analysing. As GNU Backgammon does when it imports such a record, a game played to
its end counts what the board gives (a gammon written ``Wins 1 point`` counts 2), a resignation written for
points no resignation is worth counts the resignation of ``points / cube`` rounded up, held to 1..3 times
the cube (``Wins 4016 point`` at cube 4: a backgammon, 12), and the next game starts from the score its
record announces: the match score carries on with the written result when the next game's score line
says so, else with the replay's. Backgammon Studio's ``61: ????``, a roll whose play it could not record,
ends the game's replay there, with a warning; the game keeps its plays up to it. A play the record flags as
not legal and keeps with the position after it (``Action.after``: eXtreme Gammon does) is read as the record
reads it, from that position, with a warning.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from enum import Enum
from math import ceil

import numpy as np
from taldau.base.records import ReadLimits, RecordError, RecordFile, append_error, capped

from ..rules import board as core
from ..rules.cube import CubeError, MatchState, Rules
from ..rules.position import GameValue, Play, Position, point_name
from .readers import read_matches
from .record import Action, ActionKind, GameRecord, MatchRecord, Segment


class Termination(Enum):
    """How a game ended: played to the end, a double passed, a resignation, a forfeit, or not at all."""

    BORNE_OFF = "borne off"
    DROPPED = "dropped"
    RESIGNED = "resigned"
    FORFEITED = "forfeited"  # the whole match awarded, as some servers write when a player leaves
    UNFINISHED = "unfinished"


@dataclass(frozen=True)
class Step:
    """One decision of a replayed game: the action as recorded, the position and match state before it,
    and for a roll the legal play it was matched to."""

    action: Action
    position: Position
    state: MatchState
    play: Play | None = None


@dataclass
class Game:
    """One game of a match, replayed: its steps, how it ended, who won how many points, and what is wrong
    with the record (``errors``) or merely odd (``warnings``)."""

    match: MatchRecord
    record: GameRecord
    start: MatchState
    steps: list[Step] = field(default_factory=list)
    position: Position | None = None
    termination: Termination = Termination.UNFINISHED
    winner: int | None = None
    points: int = 0
    value: GameValue | None = None
    errors: list[RecordError] = field(default_factory=list)
    warnings: list[RecordError] = field(default_factory=list)
    end: MatchState | None = None
    carried: tuple[int, int] | None = None  # (winner, points) the match score carries on with

    @property
    def cube(self) -> int:
        """The cube value where the replay ended."""
        return (self.end or self.start).cube

    @property
    def valid(self) -> bool:
        return not self.errors

    @property
    def plies(self) -> int:
        """Rolls played (dances included)."""
        return sum(1 for step in self.steps if step.action.kind is ActionKind.ROLL)

    @property
    def score_after(self) -> tuple[int, int]:
        """The match score after this game as the replay carries it on (the next game starts from the
        score its own record announces, which may differ)."""
        if self.carried is None:
            return self.start.score
        return self.start.next_game(*self.carried).score

    @property
    def source(self) -> str:
        return self.match.source

    @property
    def index(self) -> int:
        return self.record.index

    def add_error(self, line: int, column: int, message: str) -> None:
        append_error(self.errors, line, column, message)


def rules_of(match: MatchRecord) -> Rules:
    """The rules a match record says it was played under."""
    limit = match.headers.get("CubeLimit", "").strip()
    return Rules(
        length=match.length,
        crawford=match.crawford,
        jacoby=match.jacoby,
        beavers=match.beavers,
        cube_limit=int(limit) if re.fullmatch(r"\d{1,9}", limit) else 0,
    )


def replay_match(match: MatchRecord) -> list[Game]:
    """Replay every game of a match, carrying the score from game to game."""
    state = MatchState(rules_of(match))
    games: list[Game] = []
    for number, record in enumerate(match.games):
        mismatch = None
        if record.score is not None and record.score != state.score:
            if games:
                mismatch = RecordError(
                    record.line,
                    0,
                    f"game {record.index} starts at {record.score[0]}-{record.score[1]}, but the games "
                    f"before it give {state.score[0]}-{state.score[1]}",
                )
                state = replace(state, score=record.score)
            else:
                state = _recorded_from(state, record.score)
        if state.over and mismatch is None:
            mismatch = RecordError(
                record.line,
                0,
                f"game {record.index} after the end of the match (won at {state.score[0]}-{state.score[1]})",
            )
        following = match.games[number + 1] if number + 1 < len(match.games) else None
        game = replay_game(match, record, state, following)
        if mismatch is not None:
            game.errors.insert(0, mismatch)
        games.append(game)
        if game.carried is not None:
            state = state.next_game(*game.carried)
        # else: no result anywhere, the next game starts from the same score
        if record.match_won and not state.over:
            game.add_error(
                record.result_line or record.line,
                0,
                f"the record says the game wins the match, but the score becomes {state.score[0]}-"
                f"{state.score[1]} in a match to {state.rules.length or 'no length (money)'}",
            )
    return games


def _recorded_from(state: MatchState, score: tuple[int, int]) -> MatchState:
    """The state of a match recorded from the middle, at ``score``: a player at N-1 and the other behind
    means the Crawford game (the record cannot tell whether it was played already)."""
    rules = state.rules
    crawford = rules.crawford and not rules.money and max(score) == rules.length - 1 > min(score)
    return replace(state, score=score, crawford_game=crawford)


def replay_game(
    match: MatchRecord, record: GameRecord, start: MatchState, following: GameRecord | None = None
) -> Game:
    """Replay one game from the match state ``start``; ``following`` is the next game's record, whose
    announced score tells which result the match went on with when this game's written one is wrong."""
    game = Game(match, record, start, errors=list(record.errors), warnings=list(record.warnings))
    state = start
    position: Position | None = None
    stopped = bool(record.errors)
    last = record.actions[-1] if record.actions else None
    for number, action in enumerate(record.actions):
        if stopped:
            break
        where = f"move {action.number}: " if action.number else ""
        if game.termination is not Termination.UNFINISHED:
            game.add_error(
                action.line, action.column, f"{where}{action.kind.value} after the end of the game"
            )
            break
        if position is None:
            if action.kind is not ActionKind.ROLL or action.dice is None:
                game.add_error(action.line, action.column, f"{where}a game starts with a roll")
                break
            position = Position.start(action.player)
        step_position, step_state = position, state
        try:
            if action.unrecorded:
                refused = _roll_refused(action, position, state)
                if refused is not None:
                    game.add_error(action.line, action.column, f"{where}{refused}")
                    stopped = True
                    continue
                game.steps.append(Step(action, step_position, step_state))
                game.warnings.append(_unrecorded(action, len(record.actions) - number - 1, where))
                break
            if action is last and _rolled_then_resigned(action, position, record):
                game.warnings.append(
                    RecordError(
                        action.line,
                        action.column,
                        f"{where}dice rolled and no play written: the game ended by resignation",
                    )
                )
                game.steps.append(Step(action, step_position, step_state))
                continue
            if action.kind is ActionKind.ROLL:
                play = _roll(game, action, position, state, where)
                if play is None:
                    stopped = True
                    continue
                game.steps.append(Step(action, step_position, step_state, play))
                position = play.result
                outcome = position.outcome()
                if outcome is not None:
                    game.termination = Termination.BORNE_OFF
                    game.winner = outcome.winner
                    game.value = outcome.value
                    game.points = state.points(outcome.value)
                continue
            state = _cube(game, action, position, state, where)
            game.steps.append(Step(action, step_position, step_state))
        except CubeError as error:
            game.add_error(action.line, action.column, f"{where}{error}")
            stopped = True
    game.position = position
    game.end = state
    claim = _check_result(game, record, state, stopped)
    game.carried = _carried(game, record, claim, following)
    return game


def _unrecorded(action: Action, later: int, where: str) -> RecordError:
    """The warning for a roll whose play the record does not know, where the replay stops with ``later``
    actions of the game left."""
    assert action.dice is not None
    rolled = f"{action.dice[0]}{action.dice[1]}"
    if later:
        plural = "s" if later > 1 else ""
        stop = f"the replay of this game stops here ({later} later action{plural} not replayed)"
    else:
        stop = "the last action of the game"
    return RecordError(
        action.line, action.column, f"{where}{rolled}: ????: the play was not recorded, {stop}"
    )


@dataclass(frozen=True)
class Claim:
    """A written result the replay does not take as it stands: its line and what is wrong with it."""

    line: int
    message: str


def _carried(
    game: Game, record: GameRecord, claim: Claim | None, following: GameRecord | None
) -> tuple[int, int] | None:
    """The result (winner, points) the match score carries on with after ``game``, None for none.

    A valid game carries its own result. Where the written result is wrong (``claim``), the replay's result
    carries on unless the next game's score line is the one the written result gives; either way a warning
    says which. A game the replay could not finish carries the record's result, so that one broken game does
    not make the games after it look wrong too."""
    if claim is not None:
        assert game.winner is not None and record.winner is not None
        written = record.winner, record.points or 0
        ours = game.winner, game.points
        after_written = game.start.next_game(*written).score
        carried, why = ours, ""
        if following is not None and following.score == after_written != game.start.next_game(*ours).score:
            carried, why = written, f" as written, as game {following.index}'s score line says"
        score = game.start.next_game(*carried).score
        game.warnings.append(
            RecordError(
                claim.line,
                0,
                f"{claim.message}; the match score carries on from {score[0]}-{score[1]}, with player "
                f"{carried[0] + 1} winning {carried[1]}{why}",
            )
        )
        return carried
    if game.winner is not None and game.valid:
        return game.winner, game.points
    if record.winner is not None and record.points is not None:
        return record.winner, record.points
    if game.winner is not None:
        return game.winner, game.points
    return None


def _rolled_then_resigned(action: Action, position: Position, record: GameRecord) -> bool:
    """Whether the game's last action is dice rolled with no play written although one could be made,
    in a game with a recorded winner: programs write that when a player resigns after rolling."""
    if action.kind is not ActionKind.ROLL or action.segments or action.dice is None or record.winner is None:
        return False
    return action.player == position.turn and bool(position.plays(action.dice)[0].moves)


def _roll_refused(action: Action, position: Position, state: MatchState) -> str | None:
    """Why a roll cannot come now (another player's turn, a cube offer waiting), None when it can."""
    if action.player != position.turn:
        return f"player {action.player + 1} rolls, but it is player {position.turn + 1}'s turn"
    if state.offered_by is not None:
        return "a roll while the cube offer waits for an answer"
    return None


def _roll(game: Game, action: Action, position: Position, state: MatchState, where: str) -> Play | None:
    """The legal play an action's segments describe, or None (with an error) when there is none."""
    line, column = action.line, action.column
    refused = _roll_refused(action, position, state)
    if refused is not None:
        game.add_error(line, column, f"{where}{refused}")
        return None
    assert action.dice is not None
    dice = action.dice
    rolled = f"{dice[0]}{dice[1]}"
    if action.after:
        return _as_recorded(game, action, position, f"{where}{rolled}")
    if not action.segments:
        plays = position.plays(dice)
        if plays[0].moves:
            examples = ", ".join(play.text for play in plays[:3])
            game.add_error(
                line,
                column,
                f"{where}no play written for {rolled}, but it can be played (for example {examples})",
            )
            return None
        return plays[0]
    checkers = np.array(position.board[core.MOVER], dtype=np.int16)
    for segment in action.segments:
        start = core.BAR if segment.start == 25 else segment.start - 1
        if not 0 <= segment.start <= 25 or not 0 <= segment.end <= 24 or segment.end >= segment.start:
            game.add_error(line, column, f"{where}{_written(segment)} does not move towards home")
            return None
        checkers[start] -= segment.count
        if segment.end:
            checkers[segment.end - 1] += segment.count
        if checkers[start] < 0:
            game.add_error(
                line,
                column,
                f"{where}{_written(segment)}: no checker of player "
                f"{action.player + 1} on {point_name(segment.start)}",
            )
            return None
    candidates = position.plays_leaving(dice, checkers.astype(np.int8))
    if not candidates:
        legal = position.plays(dice)
        shown = ", ".join(play.text or "(no move)" for play in legal[:6])
        more = f" and {len(legal) - 6} more" if len(legal) > 6 else ""
        written = " ".join(_written(segment) for segment in action.segments)
        game.add_error(line, column, f"{where}{rolled}: {written} is not a legal play; legal: {shown}{more}")
        return None
    return _chosen(game, action, candidates, f"{where}{rolled}")


def _as_recorded(game: Game, action: Action, position: Position, where: str) -> Play | None:
    """A play the record flags as not legal and keeps, read from the position it records after it (the
    legal play that leaves that position, where there is one), with a warning; None, with an error, when
    the recorded position is none."""
    assert action.dice is not None
    try:
        result = Position.from_position_id(action.after, 1 - action.player)
    except ValueError as error:
        game.add_error(action.line, action.column, f"{where}: the position recorded after the play: {error}")
        return None
    legal = [play for play in position.plays(action.dice) if play.result == result]
    moves = tuple((segment.start, segment.end) for segment in action.segments for _ in range(segment.count))
    play = legal[0] if legal else Play(moves, result, position.board)
    written = play.text or "no move"
    message = f"{where}: {written}: flagged by the record as not a legal play; read from the position"
    game.warnings.append(RecordError(action.line, action.column, f"{message} it records after it"))
    return play


def _chosen(game: Game, action: Action, candidates: tuple[Play, ...], where: str) -> Play:
    """Of the legal plays that leave the mover's checkers as written (they differ only in what they hit),
    the one whose route passes the points the record writes, honouring its ``*`` hit marks."""
    marked = {point for segment in action.segments for point in segment.hits}
    if len(candidates) == 1 and not marked:
        return candidates[0]
    written = {point for segment in action.segments for point in (segment.end, *segment.via)}

    def fit(play: Play) -> tuple[bool, int, bool, int]:
        landings = {end for _, end in play.moves}
        hits = set(play.hits)
        return marked <= hits, len(landings & written), hits == marked, -len(hits)

    play = max(candidates, key=fit)
    wrong = sorted(marked - set(play.hits))
    if wrong:
        points = ", ".join(str(point) for point in wrong)
        game.add_error(
            action.line,
            action.column,
            f"{where} {play.text}: marked a hit on {points}, but no checker was hit there",
        )
    return play


def _written(segment: Segment) -> str:
    text = f"{point_name(segment.start)}/{point_name(segment.end)}"
    return text + (f"({segment.count})" if segment.count > 1 else "")


def _cube(game: Game, action: Action, position: Position, state: MatchState, where: str) -> MatchState:
    """The match state after a cube or resignation action; raises CubeError when it is not allowed."""
    kind = action.kind
    line, column = action.line, action.column
    if kind is ActionKind.DOUBLE:
        if action.player != position.turn:
            raise CubeError(
                f"player {action.player + 1} doubles, but it is player {position.turn + 1}'s turn"
            )
        state = state.double(action.player)
        if action.value and action.value != state.cube * 2:
            game.add_error(line, column, f"{where}the cube goes to {state.cube * 2}, not {action.value}")
    elif kind is ActionKind.TAKE:
        state = state.take(action.player)
    elif kind is ActionKind.BEAVER:
        state = state.beaver(action.player)
        if action.value and action.value != state.cube:
            game.add_error(line, column, f"{where}the beaver makes the cube {state.cube}, not {action.value}")
    elif kind is ActionKind.DROP:
        winner, points = state.drop(action.player)
        game.termination = Termination.DROPPED
        game.winner, game.points = winner, points
    elif kind is ActionKind.RESIGN:
        if not 1 <= action.value <= 3:
            raise CubeError(
                f"a resignation offers a single game, a gammon or a backgammon, not {action.value}"
            )
        game.value = GameValue(action.value)
    elif kind is ActionKind.ACCEPT:
        if game.value is None:
            raise CubeError("a resignation accepted, but none was offered")
        game.termination = Termination.RESIGNED
        game.winner = action.player
        game.points = state.points(game.value)
    elif kind is ActionKind.REJECT:
        game.value = None
    return state


def _as_written(state: MatchState, winner: int, points: int) -> set[int]:
    """The figures a record may write for ``points`` won: the points themselves or, for a game that wins
    the match, the points capped at what the winner needed or at the match length (programs do both)."""
    figures = {points}
    if not state.rules.money and state.score[winner] + points >= state.rules.length:
        figures.add(min(points, state.rules.length - state.score[winner]))
        figures.add(min(points, state.rules.length))
    return figures


def _check_result(game: Game, record: GameRecord, state: MatchState, stopped: bool) -> Claim | None:
    """Compare how the game ended by the rules with the result the record writes; a game the replay did
    not see end takes the written result as a resignation. Returns the written result when the replay
    does not take it as it stands (the game then holds the result read instead)."""
    line = record.result_line or record.line
    if stopped:
        return None
    if record.winner is None:
        if game.termination is not Termination.UNFINISHED:
            game.warnings.append(RecordError(line, 0, f"game {record.index} ends with no result written"))
        else:  # the record stops mid-game: a file cut short, or a game adjourned
            last = record.actions[-1] if record.actions else None
            where = f"after move {last.number}" if last is not None and last.number else "before any move"
            message = f"game {record.index} stops {where} with no result: read as unfinished"
            game.warnings.append(RecordError(last.line if last is not None else line, 0, message))
        return None
    claimed = record.points or 0
    said = f"player {record.winner + 1} wins {claimed}"
    if game.termination is Termination.UNFINISHED:
        # a resignation the record does not write as such: a single game, gammon or backgammon per cube
        needed = state.rules.length - state.score[record.winner]
        if record.match_won and not state.rules.money and claimed == needed > 3 * state.cube:
            game.warnings.append(
                RecordError(
                    line,
                    0,
                    f"{said} and the match: more than a resignation at cube "
                    f"{state.cube} is worth, so the match was forfeited",
                )
            )
            game.termination = Termination.FORFEITED
            game.winner, game.points = record.winner, claimed
            return None
        game.termination = Termination.RESIGNED
        values = [v for v in GameValue if claimed in _as_written(state, record.winner, state.points(v))]
        if values:
            game.winner, game.points, game.value = record.winner, claimed, values[0]
            return None
        # as gnubg reads it: the resignation of claimed / cube rounded up, held to 1..3
        value = GameValue(min(3, max(1, ceil(claimed / state.cube))))
        game.winner, game.points, game.value = record.winner, state.points(value), value
        return Claim(
            line,
            f"{said}: a resignation at cube {state.cube} is worth 1, 2 or 3 times the cube; read as a "
            f"{value.name.lower()} resigned, worth {game.points}",
        )
    assert game.winner is not None
    if record.winner != game.winner or claimed not in _as_written(state, game.winner, game.points):
        how = game.termination.value
        return Claim(
            line, f"{said}, but the game ended {how} with player {game.winner + 1} winning {game.points}"
        )
    return None


def read_games(data: bytes, source: str, limits: ReadLimits | None = None) -> Iterator[Game]:
    """Every game of every match in a record file's bytes, read and replayed, in order."""
    yield from replay_file(RecordFile.of_bytes(data, source, limits or ReadLimits()))


def replay_file(file: RecordFile) -> Iterator[Game]:
    """Every game of every match in a record file, read and replayed, in order."""
    for match in read_matches(file):
        yield from match_games(match)


def match_games(match: MatchRecord) -> list[Game]:
    """Every game of a match record replayed, in order, what belongs to no game of it (an unreadable
    header) an error or warning of the first; a match of no game is one game of index 0 holding its
    errors."""
    if not match.games:
        empty = GameRecord(index=0, line=0, errors=list(match.errors) or [RecordError(0, 0, "no game")])
        return [Game(match, empty, MatchState(rules_of(match)), errors=list(empty.errors))]
    games = replay_match(match)
    # what belongs to no game comes before the first game's own, in the order found
    first = games[0]
    first.errors = capped([*match.errors, *first.errors])
    first.warnings = capped([*match.warnings, *first.warnings], "warnings")
    return games
