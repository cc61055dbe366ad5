"""Writing a ``MatchRecord`` as Jellyfish match text in gnubg's layout, which every reader of the format
understands: ``; [Key "Value"]`` headers, `` N point match``, then per game `` Game N``, the score line,
numbered lines of two fixed-width cells and the result in the winner's column."""

from __future__ import annotations

from .jellyfish import SCORE
from .record import BAR, OFF, Action, ActionKind, GameRecord, MatchRecord, Segment

CELL_WIDTH = 28  # a left cell, as gnubg pads it
SCORE_WIDTH = 31  # the left player's "name : score", as gnubg pads it
LEFT_RESULT = " " * 6
RIGHT_RESULT = " " * 34


def format_segment(segment: Segment) -> str:
    """``13/7*/5``, ``24/22(2)``, ``bar/22``, ``6/off``: a segment as Jellyfish text."""

    def place(point: int, marked: bool) -> str:
        name = "bar" if point == BAR else "off" if point == OFF else str(point)
        return name + ("*" if marked and point in segment.hits else "")

    middle = [place(point, True) for point in segment.via]
    text = "/".join([place(segment.start, False), *middle, place(segment.end, True)])
    return text + (f"({segment.count})" if segment.count > 1 else "")


def format_action(action: Action) -> str:
    """The cell of one action: ``43: 13/9 13/10``, ``61: ????`` (a play not recorded), `` Doubles => 2``,
    `` Takes``... ("" for the kinds that Jellyfish text has no words for: resignations)."""
    if action.kind is ActionKind.ROLL:
        dice = f"{action.dice[0]}{action.dice[1]}:" if action.dice else "00:"
        if action.unrecorded:
            return f"{dice} ????"
        return " ".join([dice, *(format_segment(segment) for segment in action.segments)])
    if action.kind is ActionKind.DOUBLE:
        return f" Doubles => {action.value}"
    if action.kind is ActionKind.BEAVER:
        return f" Beavers => {action.value}"
    if action.kind is ActionKind.TAKE:
        return " Takes"
    if action.kind is ActionKind.DROP:
        return " Drops"
    return ""


def format_result(game: GameRecord) -> str:
    """The ``Wins N point(s) [and the match]`` cell of a game ("" when the record names no winner)."""
    if game.winner is None or game.points is None:
        return ""
    plural = "" if game.points == 1 else "s"
    suffix = " and the match" if game.match_won else ""
    return f"Wins {game.points} point{plural}{suffix}"


def turn_rows(actions: list[Action]) -> list[list[str]]:
    """The actions laid out as [left cell, right cell] rows: player 0 opens a row, player 1 closes it."""
    rows: list[list[str]] = []
    open_right = False  # whether the last row waits for its right cell
    for action in actions:
        cell = format_action(action)
        if not cell:
            continue
        if action.player == 0:
            rows.append([cell, ""])
            open_right = True
        elif open_right:
            rows[-1][1] = cell
            open_right = False
        else:
            rows.append(["", cell])
    return rows


def score_line(players: tuple[str, str], score: tuple[int, int]) -> str:
    """A game's score line. A left name that the reader would take for the score is written with its score
    right after it (``a :1: 0``), or else (``a : 1 b``) with dots for its colons (the headers keep the
    players' names as they are)."""
    dotted = players[0].replace(":", ".")
    for name, colon in ((players[0], " : "), (players[0], ": "), (dotted, " : ")):
        left = f"{name}{colon}{score[0]}"
        gap = " " if len(left) >= SCORE_WIDTH else ""  # a long name still leaves space before the right one
        line = f" {left:<{SCORE_WIDTH}}{gap}{players[1]} : {score[1]}"
        read = SCORE.match(line)
        if read is not None and read["left"].strip() == name.strip():
            break
    return line


def write_game(game: GameRecord, players: tuple[str, str]) -> list[str]:
    """The lines of one game. As gnubg does, the result goes on its own line in the winner's column, or
    into the last row when the right player wins and that row's right cell is free."""
    lines = [f" Game {game.index}"]
    if game.score is not None:
        lines.append(score_line(players, game.score))
    rows = turn_rows(game.actions)
    result = format_result(game)
    if result and game.winner == 1 and rows and rows[-1][0] and not rows[-1][1]:
        rows[-1][1], result = " " + result, ""
    for number, (left_cell, right_cell) in enumerate(rows, start=1):
        padded = f"{left_cell:<{CELL_WIDTH}}" if right_cell else left_cell
        if right_cell and len(left_cell) >= CELL_WIDTH:
            padded += " "
        lines.append(f"{number:>3}) {padded}{right_cell}".rstrip())
    if result:
        lines.append((RIGHT_RESULT if game.winner == 1 else LEFT_RESULT) + result)
    return lines


def write_jellyfish(match: MatchRecord) -> str:
    """The match as Jellyfish text in gnubg's layout; reading it back gives the same match."""
    lines = [f'; [{key} "{value}"]' for key, value in match.headers.items()]
    if lines:
        lines.append("")
    lines += [f" {match.length} point match", ""]
    for game in match.games:
        lines += write_game(game, match.players)
        lines.append("")
    return "\n".join(lines) + "\n"
