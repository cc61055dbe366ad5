"""Reading Jellyfish match text (``.mat``, ``.txt``) as gnubg, BackgammonGalaxy, Backgammon Studio and
eXtreme Gammon write it, into ``MatchRecord``s.

A match is optional ``; [Key "Value"]`` headers, an ``N point match`` line and games: `` Game N``, the score
line `` lasse : 0     simon_haag : 0``, then numbered lines ``  7) 43: 13/9 13/10     Doubles => 2`` of up to
two cells, the left one player 0's, the right one player 1's, and a ``Wins N point(s)`` cell in the winner's
column. Column widths vary by producer, so lines are split into cells at the tokens that start a cell, and a
lone cell is placed by its column against the game's score line and checked against the turn order.
Nothing here checks the rules: ``replay`` does.

What the producers write differently (all read here):

- gnubg: `` 7 point match`` with a leading space, every die move apart (``22/16 16/13``), ``25/22`` and
  ``6/0``, ``*`` hits, ``62:`` alone for dice rolled before a resignation, ``Wins 2 points`` on its own line
  or in the free right cell of the last line, no ``and the match``;
- BackgammonGalaxy: gnubg's layout, ``25/20`` and ``0``, no ``*``, ``Cannot Move`` or a bare ``63:`` for a
  roll that cannot be played, a non-standard ``Losses N point`` cell (ignored, with a warning), a
  match-winning game's points capped at what the winner needed, a forfeit written as a game without
  actions, and at times the row of a game's result after the move number again, on the line of the last
  roll (``20) ... 66: 3/0 3/0 2/0 2/0 20)  Losses 2 point  Wins 2 point``) or on a line of its own
  (``20)  20)  Losses 2 point  Wins 2 point``): read as a row of its own;
- Backgammon Studio: wider columns (numbers ``  10)`` push the line one column right), ``bar/20``,
  ``6/off``, ``13/7*/5``, ``24/22(2)``, ``8/4*(2)``, ``Wins`` on a numbered line, an empty numbered line at
  the end of a game, ``61: ????`` for a roll whose play it could not record, mostly dice rolled before a
  resignation (read as a roll marked ``unrecorded``: the replay stops there);
- eXtreme Gammon: ``25/20``, ``6/0``, one checker move a segment, no ``*``, ``33: ???`` for dice rolled and
  never played (a resignation followed: read as Backgammon Studio's ``????``), and at times its headers name
  the players the other way round from its columns and score lines (its ``Match ID`` negated): the columns
  win, the headers of the two players are read swapped.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from taldau.base.records import (
    HeaderNames,
    ReadLimits,
    RecordError,
    RecordLine,
    StrayText,
    append_error,
    excerpt,
    text_lines,
)

from .record import BAR, OFF, Action, ActionKind, GameRecord, MatchRecord, Segment

FORMAT = "jellyfish"

# The headers read under one spelling whatever their case: those of gnubg, BackgammonGalaxy, Backgammon Studio
# and eXtreme Gammon.
HEADERS = HeaderNames(
    [
        "Site",
        "Match ID",
        "Event",
        "Round",
        "Player 1",
        "Player 2",
        "Player 1 Elo",
        "Player 2 Elo",
        "EventDate",
        "EventTime",
        "Date",
        "Variation",
        "Unrated",
        "Crawford",
        "Jacoby",
        "Beaver",
        "CubeLimit",
        "ClockType",
        "Transcriber",
        "Annotator",
        "Place",
    ]
)
# The key keeps its blanks (stripped when read): \s* on both sides of a lazy key backtracks cubically.
HEADER = re.compile(r'^\s*;\s*\[(?P<key>[^"\]]*)"(?P<value>.*)"\s*\]\s*$')
# Numbers have at most 18 digits: more than any count in a match needs (and than the SGF reader's nine digits
# become, one game later or a few doubles on), where Python refuses to read numbers thousands of digits long.
MAX_DIGITS = 18
NUMBER = rf"\d{{1,{MAX_DIGITS}}}"  # a number the readers read: MAX_DIGITS digits at most
MATCH_LENGTH = re.compile(r"^\s*(?P<length>\d+)\s+points?\s+match\b", re.IGNORECASE)
GAME = re.compile(rf"^\s*Game\s+(?P<index>{NUMBER})\s*$", re.IGNORECASE)
# Linear time on any line: the names keep the blanks around them (stripped when read) and the blanks after the
# left score are taken whole (\s++), as blanks that two parts could share backtrack cubically; the lookahead
# settles first whether the line ends in a score at all.
SCORE = re.compile(
    rf"^(?=.*:\s*{NUMBER}\s*$)(?P<left>.*?):\s*(?P<s0>{NUMBER})\s++(?P<right>.*?):\s*(?P<s1>{NUMBER})\s*$"
)
NUMBERED = re.compile(rf"^\s*(?P<number>{NUMBER})\)")
MOVE_NUMBER = re.compile(rf"^(?P<number>{NUMBER})\)$")  # a move number standing as a token of its own
DICE = re.compile(r"^(?P<d1>\d)(?P<d2>\d):$")
TOKEN = re.compile(r"\S+")
SEGMENT = re.compile(rf"^(?P<body>[^()]+)(?:\((?P<count>{NUMBER})\))?$")
PLACE = re.compile(r"^(?P<place>bar|off|\d{1,2})(?P<hit>\*?)$", re.IGNORECASE)
WINS = re.compile(
    rf"^(?:Wins|Losses)\s+(?P<points>{NUMBER})\s+points?(?P<match>\s+and\s+the\s+match)?$", re.IGNORECASE
)
CUBE = re.compile(rf"^(?:Doubles|Redoubles|Beavers)\s*=>\s*(?P<value>{NUMBER})$", re.IGNORECASE)

# Words that open a cell (besides a dice token such as ``43:``).
CELL_WORDS = {
    "doubles": ActionKind.DOUBLE,
    "redoubles": ActionKind.DOUBLE,
    "takes": ActionKind.TAKE,
    "accepts": ActionKind.TAKE,
    "drops": ActionKind.DROP,
    "passes": ActionKind.DROP,
    "beavers": ActionKind.BEAVER,
    "wins": None,
    "losses": None,
}
NO_PLAY = ("cannot move", "can't move", "")
UNKNOWN_PLAYS = ("????", "???")  # a play not recorded: Backgammon Studio's, eXtreme Gammon's
DEFAULT_RIGHT_COLUMN = 33  # gnubg's layout (0-based), used until a game's score line says otherwise
LEFT_CELL_COLUMN = 6
SIDES = ("left", "right")


class SegmentError(ValueError):
    """A written piece of a play that is not ``from/to`` with points, ``bar``, ``off`` and marks."""


def parse_segment(text: str) -> Segment:
    """The segment a token such as ``13/7*/5``, ``24/22(2)``, ``bar/22`` or ``6/off`` stands for; raises
    SegmentError when it is not one."""
    match = SEGMENT.match(text)
    if match is None:
        raise SegmentError(f"bad segment {text!r}")
    parts = match["body"].split("/")
    if len(parts) < 2:
        raise SegmentError(f"bad segment {text!r}: not from/to")
    count = int(match["count"]) if match["count"] else 1
    if not 1 <= count <= 4:
        raise SegmentError(f"bad segment {text!r}: repetition ({count}) is not 1 to 4")
    places: list[int] = []
    hits: list[int] = []
    for position, part in enumerate(parts):
        place = PLACE.match(part)
        if place is None:
            raise SegmentError(f"bad segment {text!r}: {part!r} is not a point, bar or off")
        word = place["place"].lower()
        first, last = position == 0, position == len(parts) - 1
        if word == "bar":
            point = BAR
        elif word == "off":
            point = OFF
        else:
            point = int(word)
        if (point == BAR and not first) or (point == OFF and not last) or not OFF <= point <= BAR:
            raise SegmentError(f"bad segment {text!r}: {part!r} cannot stand there")
        if place["hit"]:
            if first or point == OFF:
                raise SegmentError(f"bad segment {text!r}: a hit cannot be marked on {part!r}")
            hits.append(point)
        places.append(point)
    return Segment(places[0], places[-1], count, tuple(hits), tuple(places[1:-1]))


@dataclass(frozen=True)
class Cell:
    """The tokens of one cell of a line: where it starts and ends (0-based columns), its words and the column
    of each word."""

    column: int
    end: int
    words: tuple[str, ...]
    columns: tuple[int, ...]


@dataclass
class Row:
    """One numbered row of a line: its move number, its cells and the tokens that stand before any cell.
    ``shift`` is how many columns right of the line's own number the row's number stands: a line holds one
    row (shift 0), but BackgammonGalaxy sometimes writes the row of a game's result on the line of its last
    roll, after the move number again (``20) 43: 13/9 9/6     66: 3/0 3/0 2/0 2/0 20)  Losses 2 point
    Wins 2 point and the match``), and that row's cells are placed in columns from its own number."""

    move: int
    shift: int = 0
    cells: list[Cell] = field(default_factory=list)
    stray: list[tuple[int, str]] = field(default_factory=list)


def split_rows(line: str, start: int, move: int, origin: int | None) -> list[Row]:
    """The rows of ``line`` from column ``start`` on: the first one numbered ``move``, then one for each move
    number token (``20)``) met on the line when the line itself is numbered, its number at column
    ``origin`` (None for an unnumbered line, whose tokens all belong to one row)."""
    rows = [Row(move)]
    current: list[re.Match[str]] = []

    def close() -> None:
        if current:
            words = tuple(token[0] for token in current)
            columns = tuple(token.start() for token in current)
            rows[-1].cells.append(Cell(current[0].start(), current[-1].end(), words, columns))
            current.clear()

    for token in TOKEN.finditer(line, start):
        word = token[0]
        number = MOVE_NUMBER.match(word)
        if number is not None and origin is not None:
            close()
            rows.append(Row(int(number["number"]), token.start() - origin))
        elif DICE.match(word) or word.lower() in CELL_WORDS:
            close()
            current.append(token)
        elif current:
            current.append(token)
        else:
            rows[-1].stray.append((token.start(), word))
    close()
    return rows


@dataclass(frozen=True)
class Spot:
    """Where a cell is read: its 1-based line and the move number of that line (0 when unnumbered)."""

    line: int
    move: int

    @property
    def where(self) -> str:
        """The prefix of messages about this line: ``move 7: `` (nothing when unnumbered)."""
        return f"move {self.move}: " if self.move else ""


@dataclass
class JellyfishGameState:
    """What reading a game needs to remember: its columns, the turn order so far and whether it is over."""

    game: GameRecord
    right_column: int = DEFAULT_RIGHT_COLUMN
    expected: int | None = None  # the player whose action comes next, None when either may act
    doubled_by: int | None = None  # the player whose double waits for an answer
    over: bool = False
    cut: bool = False  # the game reached the limit of actions: the rest of it is not kept

    def side(self, column: int) -> int:
        """The player whose column ``column`` (0-based) falls in."""
        return 1 if column >= (LEFT_CELL_COLUMN + self.right_column) // 2 else 0


class JellyfishReader:
    """Reads one text, line by line, into matches; each problem becomes a ``RecordError`` and reading goes on.
    A game keeps at most ``limits.max_plies`` actions; a line refused as too long is an error of its game."""

    def __init__(self, source: str, limits: ReadLimits) -> None:
        self.source = source
        self.limits = limits
        self.matches: list[MatchRecord] = []
        self.score_names: list[tuple[str, str] | None] = []  # per match: the names of its first score line
        self.length_seen = False
        self.state: JellyfishGameState | None = None
        self.stray = StrayText()

    @property
    def match(self) -> MatchRecord | None:
        """The match being read."""
        return self.matches[-1] if self.matches else None

    def read(self, lines: Iterable[RecordLine]) -> Iterator[MatchRecord]:
        """All matches of the lines (at least one, holding an error when they have none), each yielded as
        soon as the next one begins."""
        for line in lines:
            if line.refused is not None:
                self.refuse(line.number, line.refused)
            elif len(line.text) > self.limits.max_token_chars and any(
                len(word) > self.limits.max_token_chars for word in line.text.split()
            ):
                limit = f"{self.limits.max_token_chars:,}"
                self.refuse(line.number, f"a token longer than the limit of {limit} characters: not read")
            else:
                self.read_line(line.number, line.text)
            while len(self.matches) > 1:  # a match has begun: the one before it is complete
                yield self.finish(self.matches.pop(0), self.score_names.pop(0))
        if not self.matches:
            empty = MatchRecord(self.source, FORMAT)
            empty.errors.append(RecordError(0, 0, "no backgammon match found in Jellyfish text"))
            yield empty
        else:
            yield self.finish(self.matches.pop(), self.score_names.pop())

    def refuse(self, number: int, message: str) -> None:
        """A line that is not read: an error of the game it falls in (of the match before any game)."""
        if self.state is not None:
            self.state.game.add_error(number, 1, message)
        else:
            append_error(self.open_match().errors, number, 1, message)

    def open_match(self, new: bool = False) -> MatchRecord:
        """The match being read, or a new one when ``new`` or when there is none yet."""
        if new or not self.matches:
            self.matches.append(MatchRecord(self.source, FORMAT))
            self.score_names.append(None)
            self.length_seen = False
            self.state = None
        return self.matches[-1]

    def read_line(self, number: int, line: str) -> None:
        """Reads one line of the text."""
        stripped = line.strip()
        if not stripped:
            return
        started = self.match is not None and bool(self.match.games)
        if stripped.startswith(";"):
            header = HEADER.match(line)
            if header is not None:
                name = HEADERS.spelling(" ".join(header["key"].split()))
                self.open_match(new=started).headers[name] = header["value"].strip()
            return
        if (length := MATCH_LENGTH.match(line)) is not None and len(length["length"]) > MAX_DIGITS:
            message = f"match length {excerpt(length['length'])} not read: the match is read as money play"
            append_error(self.open_match(new=started).errors, number, length.start("length") + 1, message)
            return
        if length is not None:
            self.open_match(new=started or self.length_seen).length = int(length["length"])
            self.length_seen = True
            return
        if (game := GAME.match(line)) is not None:
            record = GameRecord(index=int(game["index"]), line=number)
            self.open_match().games.append(record)
            self.state = JellyfishGameState(record)
            return
        state = self.state
        waiting = state is not None and state.game.score is None and not state.game.actions
        if waiting and NUMBERED.match(line) is None and (score := SCORE.match(line)) is not None:
            self.read_score(score)
            return
        self.read_cells(number, line)

    def read_score(self, score: re.Match[str]) -> None:
        """Reads a game's score line; the right player's name marks where the right column starts."""
        assert self.state is not None
        self.state.game.score = (int(score["s0"]), int(score["s1"]))
        # names run together (one blank between, a left name longer than its column) or no right name say
        # nothing of the columns: the default layout stands then
        if score["right"] and score.start("right") - score.end("s0") > 1:
            self.state.right_column = score.start("right")
        if self.score_names[-1] is None:
            self.score_names[-1] = (score["left"].strip(), score["right"].strip())

    def read_cells(self, number: int, line: str) -> None:
        """Reads a numbered line, or an unnumbered one holding cells (``Wins 1 point`` on its own line)."""
        numbered = NUMBERED.match(line)
        if numbered is not None:
            rows = split_rows(line, numbered.end(), int(numbered["number"]), numbered.start("number"))
        else:
            rows = split_rows(line, 0, 0, None)
        written = [row for row in rows if row.cells or row.stray]
        if not written:
            return
        state, first = self.state, written[0]
        prose = numbered is None and not any(row.cells for row in written)
        if prose and (state is None or state.over):
            # a title or note before the first game or after a game's result: skipped, with a warning
            warnings = self.open_match().warnings if state is None else state.game.warnings
            self.stray.add(warnings, number, first.stray[0][0] + 1, line.strip())
            return
        if state is None:  # moves before any game's header: a game that cannot be placed
            column = first.cells[0].column if first.cells else first.stray[0][0]
            message = f"{Spot(number, first.move).where}text outside any game: {excerpt(line.strip())}"
            append_error(self.open_match().errors, number, column + 1, message)
            return
        for row in written:
            self.read_row(Spot(number, row.move), line, row)

    def read_row(self, spot: Spot, line: str, row: Row) -> None:
        """Reads the cells of one row of a line: up to two, the left one player 0's."""
        assert self.state is not None
        state = self.state
        game = state.game
        cells, stray = row.cells, row.stray
        if stray:
            text = " ".join(word for _, word in stray)
            game.add_error(spot.line, stray[0][0] + 1, f"{spot.where}unreadable {excerpt(text)}")
        if len(cells) > 2:
            extra = " ".join(" ".join(cell.words) for cell in cells[2:])
            game.add_error(
                spot.line,
                cells[2].column + 1,
                f"{spot.where}more than two cells on one line: {extra!r} ignored",
            )
            cells = cells[:2]
        if len(cells) == 2 and state.side(cells[0].column - row.shift) == 1:
            game.add_error(
                spot.line,
                cells[0].column + 1,
                f"{spot.where}the left cell {' '.join(cells[0].words)!r} stands in the right column",
            )
        for position, cell in enumerate(cells):
            player = position if len(cells) == 2 else state.side(cell.column - row.shift)
            self.read_cell(spot, line[cell.column : cell.end], cell, player, lone=len(cells) == 1)

    def read_cell(self, spot: Spot, text: str, cell: Cell, player: int, lone: bool) -> None:
        """Reads one cell placed in player ``player``'s column: a roll, a cube action or a result. A ``lone``
        cell (the only one of its line) in the column of the player whose turn it is not is reported and
        given to the player whose turn it is."""
        assert self.state is not None
        state = self.state
        if cell.words[0].lower() in ("wins", "losses"):
            self.read_result(spot, cell, player)
            return
        if state.over:
            state.game.add_error(spot.line, cell.column + 1, f"{spot.where}{text!r} after the game's result")
            return
        if state.expected is not None and player != state.expected:
            side, turn = SIDES[player], SIDES[state.expected]
            message = f"{spot.where}{text.strip()!r} in the {side} column, but the {turn} player is to act"
            state.game.add_error(spot.line, cell.column + 1, message)
            if lone:
                player = state.expected
        if DICE.match(cell.words[0]):
            action = self.read_roll(spot, cell, text, player)
        else:
            action = self.read_cube(spot, cell, text, player)
        if action is not None and len(state.game.actions) >= self.limits.max_plies:
            if not state.cut:
                state.cut = True
                message = f"{spot.where}{self.limits.game_cut}"
                state.game.add_error(spot.line, cell.column + 1, message)
        elif action is not None:
            self.check_cube(spot, action)
            state.game.actions.append(action)
        state.expected = 1 - player

    def read_roll(self, spot: Spot, cell: Cell, text: str, player: int) -> Action | None:
        """A roll cell ``43: 13/9 13/10`` (no segments: the roll could not be played)."""
        assert self.state is not None
        game = self.state.game
        column = cell.column + 1
        dice = (int(cell.words[0][0]), int(cell.words[0][1]))
        if not all(1 <= value <= 6 for value in dice):
            game.add_error(spot.line, column, f"{spot.where}bad dice {cell.words[0]!r}")
            return None
        rest = cell.words[1:]
        segments: list[Segment] = []
        unrecorded = len(rest) == 1 and rest[0] in UNKNOWN_PLAYS
        if unrecorded or " ".join(rest).lower() in NO_PLAY:
            pass
        else:
            for word, at in zip(rest, cell.columns[1:], strict=True):
                try:
                    segments.append(parse_segment(word))
                except SegmentError as error:
                    game.add_error(spot.line, at + 1, f"{spot.where}{error}")
        return Action(
            player, ActionKind.ROLL, spot.line, column, spot.move, dice, tuple(segments), 0, text, unrecorded
        )

    def read_cube(self, spot: Spot, cell: Cell, text: str, player: int) -> Action | None:
        """A cube cell: ``Doubles => 2``, ``Takes``, ``Drops``, ``Beavers => 4``."""
        assert self.state is not None
        game = self.state.game
        column = cell.column + 1
        kind = CELL_WORDS[cell.words[0].lower()]
        assert kind is not None
        written = " ".join(cell.words)
        value = 0
        if kind in (ActionKind.DOUBLE, ActionKind.BEAVER):
            cube = CUBE.match(written)
            if cube is None:
                game.add_error(
                    spot.line,
                    column,
                    f"{spot.where}bad cube action {written!r} (expected like 'Doubles => 2')",
                )
                return None
            value = int(cube["value"])
        elif len(cell.words) > 1:
            game.add_error(
                spot.line,
                cell.columns[1] + 1,
                f"{spot.where}unexpected {' '.join(cell.words[1:])!r} after {cell.words[0]!r}",
            )
        return Action(player, kind, spot.line, column, spot.move, None, (), value, text)

    def read_result(self, spot: Spot, cell: Cell, player: int) -> None:
        """A ``Wins N point(s) [and the match]`` cell, or Galaxy's ``Losses N point`` (ignored)."""
        assert self.state is not None
        game = self.state.game
        column = cell.column + 1
        written = " ".join(cell.words)
        result = WINS.match(written)
        if result is None:
            game.add_error(spot.line, column, f"{spot.where}bad result {written!r}")
        elif cell.words[0].lower() == "losses":
            game.warnings.append(
                RecordError(spot.line, column, f"{spot.where}non-standard {written!r} ignored")
            )
        elif game.winner is not None:
            game.add_error(spot.line, column, f"{spot.where}a second result {written!r}")
        else:
            game.winner = player
            game.points = int(result["points"])
            game.match_won = bool(result["match"])
            game.result_line = spot.line
            self.state.over = True

    def check_cube(self, spot: Spot, action: Action) -> None:
        """Reports an answer to no double; notes a double waiting for its answer and a dropped one."""
        assert self.state is not None
        state = self.state
        if action.kind in (ActionKind.TAKE, ActionKind.DROP, ActionKind.BEAVER) and state.doubled_by is None:
            message = f"{spot.where}{action.text.strip()!r} with no double offered"
            state.game.add_error(action.line, action.column, message)
        if action.kind in (ActionKind.DOUBLE, ActionKind.BEAVER):
            state.doubled_by = action.player
        elif action.kind in (ActionKind.TAKE, ActionKind.ROLL):
            state.doubled_by = None
        elif action.kind is ActionKind.DROP:
            state.over = True

    def finish(self, match: MatchRecord, names: tuple[str, str] | None) -> MatchRecord:
        """Sets the players from the headers or else the first score line (the headers swapped where they name
        the score line's players the other way round); reports a match with no game."""
        named = (match.headers.get("Player 1", ""), match.headers.get("Player 2", ""))
        if names is not None and named[0] != named[1] and names == named[::-1]:
            for first, second in (("Player 1", "Player 2"), ("Player 1 Elo", "Player 2 Elo")):
                if first in match.headers and second in match.headers:
                    match.headers[first], match.headers[second] = match.headers[second], match.headers[first]
        if "Player 1" in match.headers or "Player 2" in match.headers:
            match.players = (match.headers.get("Player 1", ""), match.headers.get("Player 2", ""))
        elif names is not None:
            match.players = names
        if not match.games:
            append_error(match.errors, 0, 0, "no game in this match")
        return match


def read_jellyfish(text: str, source: str, limits: ReadLimits | None = None) -> list[MatchRecord]:
    """The matches of a Jellyfish match text (normally one; at least one, with an error when the text holds
    none)."""
    return list(JellyfishReader(source, limits or ReadLimits()).read(text_lines(text)))
