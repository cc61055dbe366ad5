"""Replaying a game record with the rules core, checking every claim the record makes.

Checked: each move is legal; its recorded destination pit, kazan total ``(n)``, tuzdyk mark, scoresheet
separator (``:`` capturing, ``-`` quiet) and full-form stone counts agree with the rules; move numbers
follow the game; the result agrees with a game that ended by the rules; a compact string's score prefix
agrees with the final kazans; PlayOK's ``{zero}`` mark agrees with an atsyrau ending. An illegal move
or an unreadable token stops the replay (the position after it is unknown); a wrong claim about a legal
move is reported and the replay goes on, so one record shows all its disagreements.

A result taken from the ``Result`` tag alone (no result after the moves) that the rules contradict is a
warning, not an error: the rules' result is kept, as backgammon keeps a board's over a written result.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from taldau.base.records import ReadLimits, RecordError, RecordFile, append_error

from .fen import FenError
from .notation import CAPTURE, QUIET, MoveText
from .position import Outcome, Position, Side, Sowing, Termination
from .records import ENCODINGS, GameRecord, MoveNumber, UnreadableMovetext, read_file


@dataclass
class Game:
    """A replayed record: the positions before every move, what each move did, and how the game ended.

    ``positions`` has one more entry than ``sowings``: the position after the last replayed move. The
    replay stops at the first illegal move, so ``plies`` may be fewer than the record's moves when
    ``errors`` is not empty. ``warnings`` are what is odd in the record but leaves the game valid (the
    record's own, and a ``Result`` tag the rules contradict).
    """

    record: GameRecord
    positions: list[Position]
    sowings: list[Sowing]
    outcome: Outcome | None
    errors: list[RecordError] = field(default_factory=list)
    warnings: list[RecordError] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return not self.errors

    @property
    def plies(self) -> int:
        return len(self.sowings)

    @property
    def moves(self) -> list[int]:
        """The replayed moves, as origin pits."""
        return [sowing.pit for sowing in self.sowings]

    @property
    def final(self) -> Position:
        return self.positions[-1]

    @property
    def termination(self) -> Termination:
        if self.outcome is not None:
            return self.outcome.termination
        return Termination.RECORD if self.record.result is not None else Termination.UNFINISHED

    @property
    def result(self) -> str | None:
        """``1-0``, ``0-1`` or ``1/2-1/2``: by the rules when the game ended by them, else as recorded."""
        return self.outcome.result if self.outcome is not None else self.record.result

    @property
    def kazans(self) -> tuple[int, int]:
        """Final (White, Black) kazans, after the atsyrau collection when the game ended that way."""
        if self.outcome is not None:
            return self.outcome.kazans
        return self.final.kazan(Side.WHITE), self.final.kazan(Side.BLACK)


def initial_position(record: GameRecord) -> Position:
    """The start position, or the record's ``[FEN "..."]`` header; raises FenError for a bad FEN."""
    fen = record.headers.get("FEN")
    return Position.from_fen(fen) if fen else Position.start()


def _claim_errors(move: MoveText, before: Position, sowing: Sowing) -> list[str]:
    """What the record says about a legal move that the rules contradict."""
    problems: list[str] = []
    mover = before.turn
    where = f"{sowing.destination_side.label}'s pit {sowing.destination}"
    if move.destination is not None and move.destination != sowing.destination:
        problems.append(f"recorded destination pit {move.destination}, but the last stone falls in {where}")
    if move.kazan is not None and move.kazan != sowing.kazan:
        problems.append(
            f"recorded kazan ({move.kazan}), but {mover.label}'s kazan is {sowing.kazan} after it"
        )
    if move.tuzdyk and not sowing.tuzdyk:
        problems.append("marked as making a tuzdyk, but no tuzdyk is made")
    if sowing.tuzdyk and not move.tuzdyk and move.destination is not None:
        problems.append(f"makes a tuzdyk of {where} but is not marked X")
    gained = sowing.kazan > before.kazan(mover)
    if move.separator == CAPTURE and not gained:
        problems.append("written with ':' (capturing), but the move takes nothing")
    if move.separator == QUIET and sowing.captured:
        problems.append(f"written with '-' (quiet), but the move takes {sowing.captured} stones")
    if move.pit_stones is not None and move.pit_stones != sowing.stones:
        problems.append(f"recorded {move.pit_stones} stones in pit {move.pit}, but it holds {sowing.stones}")
    if move.landed is not None and sowing.landed and move.landed != sowing.landed:
        problems.append(
            f"recorded {move.landed} stones in the destination, but {where} holds {sowing.landed}"
        )
    return problems


def replay(record: GameRecord) -> Game:
    """Replay ``record`` from its start position and check it; never raises for a bad record."""
    errors = list(record.errors)
    warnings = list(record.warnings)
    try:
        position = initial_position(record)
    except FenError as error:
        errors.append(RecordError(record.line, 1, f"FEN header: {error}"))
        return Game(record, [Position.start()], [], None, errors, warnings)
    positions = [position]
    sowings: list[Sowing] = []
    stopped = False

    def report(line: int, column: int, message: str) -> None:
        append_error(errors, line, column, message)

    for item in record.items:
        if isinstance(item, UnreadableMovetext):
            stopped = True
            break
        if isinstance(item, MoveNumber):
            expected_black = position.turn is Side.BLACK
            if item.number != position.move_number or item.black != expected_black:
                due = f"{position.move_number}{'...' if expected_black else '.'}"
                written = f"{item.number}{'...' if item.black else '.'}"
                report(item.line, item.column, f"move number {written} where {due} was due")
            continue
        if position.is_game_over():
            outcome = position.outcome()
            assert outcome is not None
            report(
                item.line,
                item.column,
                f"{_label(position, item)}: the game was already over ({_describe(outcome)})",
            )
            stopped = True
            break
        if not position.is_legal(item.pit):
            report(
                item.line,
                item.column,
                f"{_label(position, item)}: illegal, {position.illegal_reason(item.pit)}",
            )
            stopped = True
            break
        sowing = position.sow(item.pit)
        for problem in _claim_errors(item, position, sowing):
            report(item.line, item.column, f"{_label(position, item)}: {problem}")
        sowings.append(sowing)
        position = sowing.position
        positions.append(position)

    outcome = None if stopped else position.outcome()
    if outcome is not None and record.result is not None and record.result != outcome.result:
        line, column = record.result_at or (record.line, 1)
        if record.result_from_tag:
            message = f"Result tag {record.result}, but the game ended {_describe(outcome)}: that is kept"
            append_error(warnings, line, column, message)
        else:
            report(line, column, f"result {record.result} recorded, but the game ended {_describe(outcome)}")
    if (
        not stopped
        and "zero" in record.comments
        and (outcome is None or outcome.termination is not Termination.ATSYRAU)
    ):
        line, column = record.result_at or (record.line, 1)
        report(line, column, "marked {zero} (atsyrau), but the moves do not end in atsyrau")
    if not stopped and record.final_score is not None:
        final = (
            outcome.kazans
            if outcome is not None
            else (position.kazan(Side.WHITE), position.kazan(Side.BLACK))
        )
        if record.final_score != final:
            score = f"{record.final_score[0]}-{record.final_score[1]}"
            report(record.line, 1, f"final score {score} recorded, but the moves end {final[0]}-{final[1]}")
    return Game(record, positions, sowings, outcome, errors, warnings)


def _label(position: Position, move: MoveText) -> str:
    """``move 12... 76(10)``: a move as error messages name it."""
    dots = "..." if position.turn is Side.BLACK else "."
    return f"move {position.move_number}{dots} {move.text}"


def _describe(outcome: Outcome) -> str:
    """``by atsyrau, 0-1 (70-92)`` style wording of an outcome."""
    white, black = outcome.kazans
    return f"by {outcome.termination.value}, {outcome.result} ({white}-{black})"


def read_games(data: bytes, source: str, limits: ReadLimits | None = None) -> Iterator[Game]:
    """Read and replay every game of one record file's bytes (see ``records.read_records``)."""
    yield from replay_file(RecordFile.of_bytes(data, source, limits or ReadLimits(), ENCODINGS))


def replay_file(file: RecordFile) -> Iterator[Game]:
    """Read and replay every game of a record file, one game at a time (see ``records.read_file``)."""
    for record in read_file(file):
        yield replay(record)
