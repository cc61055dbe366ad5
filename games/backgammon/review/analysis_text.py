"""A reviewed match as an analysis text in the manner of GNU Backgammon's text export (``export match
text``), for ``taldau annotate``: the match and its players by name, then per game the score, every
decision under the match file's own move number (``12)``, the numbers of its Jellyfish lines, the same as
the report's), the game's result and the players' statistics side by side in gnubg's words (chequerplay,
luck, cube, overall: errors in EMG and mEMG, with match winning chances in match play, gnubg's rating
bands, XG's PR, the actual and luck-adjusted results and the FIBS ratings); after the last game the same
table for the whole match.

The decisions come in the common shape (``taldau.base.kind.Decision``) with their marks, from a fresh
review or from the rows of a stored analysis, so that both print the same text.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from taldau.base.kind import MARKS, Annotation, Decision, move_numbers, pov, settled_label
from taldau.base.tally import Tally

from ..engine.cubeful import game_result_mwc
from ..records.replay import Game
from ..rules.cube import DecisionKind
from ..rules.ids import MatchId
from ..rules.met import MatchEquityTable
from .cubes import CubeChoice
from .decision import CUBE_ERRORS, BackgammonDetail, cube_error_sums, detail_of
from .levels import ReviewSettings
from .luck import LuckMark
from .marks import EMG_SCALE

MATCH_HEADERS = ("Event", "Round", "Site", "EventDate")  # what the heading names of the match, if known
LABEL_WIDTH = 41  # gnubg's statistics: the label's column, then one column per player
COLUMN_WIDTH = 24
FIBS_OFFSET = 2050.0  # gnubg's rating offset: the FIBS rating of a player who makes no error


@dataclass
class StatContext:
    """One player's statistics over some decisions (a game's, the match's), as gnubg's statistics (its
    ``statcontext``) count them: what every game's players are figured by, in the one tally of players'
    figures (``tally``, ``taldau.base.tally.Tally``: the counted checker plays, ``unforced``, and cube and
    take decisions, ``close`` or actual ones, with their errors in EMG, and the luck in EMG over every
    roll); and what gnubg's table adds: checker plays (``moves``, forced ones too, marks by glyph, error in
    match winning chances), rolls by luck mark, cube and take decisions (all, doubles, takes, passes, error
    in match winning chances, and ``cube_errors``: for each of gnubg's kinds of cube error,
    ``CUBE_ERRORS``, the count, the EMG and the MWC lost). ``mwc`` is False in money play, where no
    decision has a loss in match winning chances.

    The luck is also counted in the unit of a result, as gnubg's luck-adjusted result needs it:
    ``luck_mwc`` in match winning chances (None where a roll's luck has none: an analysis stored before
    moves schema 6), ``luck_points`` in points in money play (EMG x the cube). ``result`` is what the
    player won or lost in the games counted (MWC in match play, points in money; None before a game
    ended); ``luck_adjusted`` that result less his luck plus his opponent's (both set by ``figures``)."""

    tally: Tally = field(default_factory=Tally)
    moves: int = 0
    move_marks: tuple[int, int, int] = (0, 0, 0)
    checker_mwc: float = 0.0
    luck_marks: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)
    luck_mwc: float | None = 0.0
    luck_points: float = 0.0
    result: float | None = None
    luck_adjusted: float | None = None
    cube_decisions: int = 0
    doubles: int = 0
    takes: int = 0
    passes: int = 0
    cube_mwc: float = 0.0
    cube_errors: tuple[tuple[int, float, float], ...] = ((0, 0.0, 0.0),) * len(CUBE_ERRORS)
    mwc: bool = False

    @property
    def unforced(self) -> int:
        return self.tally.moves_counted

    @property
    def checker_error(self) -> float:
        return self.tally.moves_error

    @property
    def close(self) -> int:
        return self.tally.others_counted

    @property
    def cube_error(self) -> float:
        return self.tally.others_error

    @property
    def luck(self) -> float:
        luck = self.tally.figure("luck")
        return 0.0 if luck is None else luck

    @property
    def error(self) -> float:
        return self.checker_error + self.cube_error

    @property
    def error_mwc(self) -> float:
        return self.checker_mwc + self.cube_mwc

    @property
    def counted(self) -> int:
        return self.unforced + self.close


LUCK_ORDER = (LuckMark.VERY_LUCKY, LuckMark.LUCKY, None, LuckMark.UNLUCKY, LuckMark.VERY_UNLUCKY)
LUCK_RATINGS = {
    LuckMark.VERY_LUCKY: "Go to Las Vegas",
    LuckMark.LUCKY: "Good dice, man!",
    None: "None",
    LuckMark.UNLUCKY: "Bad dice, man!",
    LuckMark.VERY_UNLUCKY: "Go to bed",
}


def luck_rating(side: StatContext) -> str:
    """gnubg's luck rating of a player (``getLuckRating``): his luck per move (EMG, over every checker play,
    forced ones too) times 10, marked as a roll's luck is (``ReviewSettings.luck_mark``: above 0.3 lucky,
    0.6 very lucky); ``n/a`` without moves."""
    if not side.moves:
        return "n/a"
    return LUCK_RATINGS[ReviewSettings().luck_mark(10 * side.luck / side.moves)]


def game_results(game: Game, table: MatchEquityTable | None = None) -> tuple[float, float] | None:
    """What each player (index = side) won in ``game``: in a match the match winning chances gained (the
    winner's MWC after the game less his MWC at the score before it), in money play the points; None for
    a game that did not end."""
    if game.winner is None:
        return None
    won = float(game.points)
    if not game.start.rules.money:
        won = game_result_mwc(game.start, game.winner, game.points, table)
    return (won, -won) if game.winner == 0 else (-won, won)


def figures(
    decisions: Iterable[tuple[Decision, str | None]], results: tuple[float, float] | None = None
) -> tuple[StatContext, StatContext]:
    """Both players' statistics (index = side) over marked decisions (each side's tally of them, and what
    gnubg's table adds), with the players' ``results`` (as ``game_results`` gives them, summed over the
    games counted; None before a game ended) and the results adjusted for their luck."""
    marked = list(decisions)
    game = [decision for decision, _ in marked]

    def tally(side: int) -> Tally:
        return Tally.of_decisions([pair for pair in marked if pair[0].side == side], game, BackgammonDetail)

    sides = (StatContext(tally(0)), StatContext(tally(1)))
    cube_counted: tuple[list[Decision], list[Decision]] = ([], [])  # each side's counted cube and takes
    for decision, mark in marked:
        player, detail = sides[decision.side], detail_of(decision)
        player.mwc = player.mwc or detail.loss_mwc is not None
        mwc = detail.loss_mwc or 0.0
        if decision.kind == DecisionKind.MOVE:
            player.moves += 1
            if detail.luck is not None:
                if detail.luck_mwc is None or player.luck_mwc is None:
                    player.luck_mwc = None
                else:
                    player.luck_mwc += detail.luck_mwc
                if detail.match_id is not None:
                    player.luck_points += detail.luck * MatchId.decode(detail.match_id).cube
                place = LUCK_ORDER.index(detail.luck_mark)
                player.luck_marks = tuple(  # type: ignore[assignment]
                    count + (index == place) for index, count in enumerate(player.luck_marks)
                )
            if mark in MARKS:
                place = MARKS.index(mark)
                player.move_marks = tuple(  # type: ignore[assignment]
                    count + (index == place) for index, count in enumerate(player.move_marks)
                )
            if decision.counted:
                player.checker_mwc += mwc
            continue
        player.cube_decisions += 1
        player.doubles += decision.played == CubeChoice.DOUBLE
        player.takes += decision.played in (CubeChoice.TAKE, CubeChoice.BEAVER)
        player.passes += decision.played == CubeChoice.PASS
        if decision.counted:
            player.cube_mwc += mwc
            cube_counted[decision.side].append(decision)
    for player, counted in zip(sides, cube_counted, strict=True):
        player.cube_errors = cube_error_sums(counted)
    if results is not None:
        in_match = any(side.mwc for side in sides)
        lucks = [side.luck_mwc if in_match else side.luck_points for side in sides]
        for side, player in enumerate(sides):
            player.result = results[side]
            mine, theirs = lucks[side], lucks[1 - side]
            if mine is not None and theirs is not None:
                player.luck_adjusted = results[side] - mine + theirs
    return sides


def _row(label: str, values: Sequence[str]) -> str:
    return (f"{label:<{LABEL_WIDTH}}" + "".join(f"{value:<{COLUMN_WIDTH}}" for value in values)).rstrip()


def _amount(emg: float, mwc: float | None, in_match: bool) -> str:
    """gnubg's ``-0.095 ( -2.383%)``: an equity, with its MWC in match play (where known)."""
    return f"{emg:+.3f} ({100 * mwc:+7.3f}%)" if in_match and mwc is not None else f"{emg:+.3f}"


def _per_move(emg: float, mwc: float | None, count: int, in_match: bool) -> str:
    """gnubg's ``-19.0   ( -0.477%)``: an equity per decision in mEMG (MWC in match play, where known), n/a
    for none."""
    if not count:
        return "n/a"
    rate = f"{1000 * emg / count:+.1f}"
    return f"{rate:<7} ({100 * mwc / count:+7.3f}%)" if in_match and mwc is not None else rate


def _error_total(emg: float, mwc: float, in_match: bool) -> str:
    """An error as the equity it lost (negative)."""
    return _amount(-emg, -mwc, in_match)


def _error_count(count: int, emg: float, mwc: float, in_match: bool) -> str:
    """gnubg's ``1 (-0.028 ( -0.702%))``: how many errors of a kind and what they lost (the count alone
    for none)."""
    return f"{count:4d}" + (f" ({_error_total(emg, mwc, in_match)})" if count else "")


def _error_rate(emg: float, mwc: float, count: int, in_match: bool) -> str:
    """An error per decision as the equity it lost (negative)."""
    return _per_move(-emg, -mwc, count, in_match)


def _rating(error: float, count: int) -> str:
    """gnubg's band of an error rate (``n/a`` without decisions)."""
    return (EMG_SCALE.rating(error / count) or "n/a") if count else "n/a"


def statistics(title: str, names: Sequence[str], sides: Sequence[StatContext], length: int = 0) -> list[str]:
    """gnubg's statistics table: its four parts, a column per player (``length``: the match's, 0 for money
    play, for the FIBS ratings)."""
    in_match = any(side.mwc for side in sides)
    unit = "EMG (MWC)" if in_match else "EMG"
    rate_unit = "mEMG (MWC)" if in_match else "mEMG"

    def row(label: str, value: object) -> str:
        return _row(label, [value(side) if callable(value) else str(value) for side in sides])

    def errors(rating: str, error: str, mwc: str, counted: str) -> list[str]:
        """The error total, the error rate and the rating band of the figures named ``error`` (EMG) and
        ``mwc`` over the ``counted`` decisions."""

        def total(side: StatContext) -> str:
            return _error_total(getattr(side, error), getattr(side, mwc), in_match)

        def rate(side: StatContext) -> str:
            return _error_rate(getattr(side, error), getattr(side, mwc), getattr(side, counted), in_match)

        def band(side: StatContext) -> str:
            return _rating(getattr(side, error), getattr(side, counted))

        return [row(f"Error total {unit}", total), row(f"Error rate {rate_unit}", rate), row(rating, band)]

    lines = [title, "", _row("Player", names), "", "Chequerplay statistics", ""]
    lines += [
        row("Total moves", lambda side: f"{side.moves:4d}"),
        row("Unforced moves", lambda side: f"{side.unforced:4d}"),
        row("Unmarked moves", lambda side: f"{side.unforced - sum(side.move_marks):4d}"),
    ]
    for label, index in (("doubtful", 0), ("bad", 1), ("very bad", 2)):
        lines.append(row(f"Moves marked {label}", lambda side, i=index: f"{side.move_marks[i]:4d}"))
    lines += [
        *errors("Chequerplay rating", "checker_error", "checker_mwc", "unforced"),
        "",
        "Luck statistics",
        "",
    ]
    for label, index in (
        ("Rolls marked very lucky", 0),
        ("Rolls marked lucky", 1),
        ("Rolls unmarked", 2),
        ("Rolls marked unlucky", 3),
        ("Rolls marked very unlucky", 4),
    ):
        lines.append(row(label, lambda side, i=index: f"{side.luck_marks[i]:4d}"))
    lines += [
        row(f"Luck total {unit}", lambda side: _amount(side.luck, side.luck_mwc, in_match)),
        row(f"Luck rate {rate_unit}", lambda side: _per_move(side.luck, side.luck_mwc, side.moves, in_match)),
        row("Luck rating", luck_rating),
        "",
        "Cube statistics",
        "",
        row("Total cube decisions", lambda side: f"{side.cube_decisions:4d}"),
        row("Close or actual cube decisions", lambda side: f"{side.close:4d}"),
        row("Doubles", lambda side: f"{side.doubles:4d}"),
        row("Takes", lambda side: f"{side.takes:4d}"),
        row("Passes", lambda side: f"{side.passes:4d}"),
        *(
            row(f"{label} ({unit})", lambda side, i=index: _error_count(*side.cube_errors[i], in_match))
            for index, (_, label) in enumerate(CUBE_ERRORS)
        ),
        *errors("Cube decision rating", "cube_error", "cube_mwc", "close"),
        "",
        "Overall statistics",
        "",
        *errors("Overall rating", "error", "error_mwc", "counted"),
        row(
            "Performance rating (PR, XG)",
            lambda side: f"{EMG_SCALE.performance(side.error / side.counted):.1f}" if side.counted else "n/a",
        ),
        *_result_rows(sides, in_match, length),
        "",
    ]
    return lines


def _result_rows(sides: Sequence[StatContext], in_match: bool, length: int) -> list[str]:
    """gnubg's rows after the overall rating: the actual and the luck-adjusted results (where a game
    ended), and in match play the FIBS rating difference the luck-adjusted result implies (the first
    player's) and each player's FIBS rating from his errors (``fibs_rating``)."""
    lines = []

    def result(value: float | None) -> str:
        if value is None:
            return "n/a"
        return f"{100 * value:+7.2f}%" if in_match else f"{value:+7.3f}"

    if any(side.result for side in sides):
        lines.append(_row("Actual result", [result(side.result) for side in sides]))
        lines.append(_row("Luck adjusted result", [result(side.luck_adjusted) for side in sides]))
        if in_match:
            adjusted = sides[0].luck_adjusted
            chances = None if adjusted is None else 0.5 + adjusted
            difference = "n/a"
            if chances is not None and 0.0 < chances < 1.0:
                difference = f"{relative_fibs_rating(chances, length):+7.2f}"
            lines.append(_row("Luck based FIBS rating diff.", [difference, ""]))
    if not in_match or not length:
        return lines
    ratings = [fibs_rating(side, length) for side in sides]
    for label, index in (
        ("Error based abs. FIBS rating", 0),
        ("Chequerplay errors rating loss", 1),
        ("Cube errors rating loss", 2),
    ):
        values = [None if fibs[index] is None else f"{fibs[index]:6.1f}" for fibs in ratings]
        lines.append(_row(label, [value or "n/a" for value in values]))
    return lines


def relative_fibs_rating(chances: float, length: int) -> float:
    """The FIBS rating difference at which the first of two players wins a ``length``-point match with
    these ``chances`` (0 to 1; gnubg's ``relativeFibsRating``, floored at -2100 as gnubg does)."""
    return max(-2100.0, -2000.0 / math.sqrt(length) * math.log10(1.0 / chances - 1.0))


def fibs_rating(side: StatContext, length: int) -> tuple[float | None, float | None, float | None]:
    """gnubg's FIBS rating of a player from his error rates in an ``length``-point match: the rating
    (``FIBS_OFFSET`` less both losses; None without a counted decision), the rating lost by his checker
    play (error per unforced move x (8798 + 25526 / length); None without one) and by his cube decisions
    (error per close cube decision x (863 - 519 / length); None without one)."""
    checker = side.checker_error / side.unforced * (8798.0 + 25526.0 / length) if side.unforced else None
    cube = side.cube_error / side.close * (863.0 - 519.0 / length) if side.close else None
    rating = FIBS_OFFSET - (checker or 0.0) - (cube or 0.0) if side.counted else None
    return rating, checker, cube


def decision_lines(decision: Decision, number: int, player: str, mark: str | None) -> list[str]:
    """One decision under its move number: a checker play with the roll's luck, the play and its mark,
    the best play and the equity lost; a cube or take decision with its three cubeful equities and the
    proper action. Equities from the deciding player's side."""
    glyph = f" {mark}" if mark else ""
    where = f"{number:>3}) "
    detail = detail_of(decision)
    position = f"  {decision.position}:{detail.match_id}"
    if decision.kind == DecisionKind.MOVE:
        assert detail.dice is not None
        own = pov(decision.score_played, decision.side)
        luck = "" if detail.luck is None else f"  luck {detail.luck:+.3f}"
        mark_of_luck = f" {detail.luck_mark}" if detail.luck_mark else ""
        played = decision.played or "cannot move"
        lines = [f"{where}{player} rolls {detail.dice[0]}{detail.dice[1]}{luck}{mark_of_luck}{position}"]
        lines.append(f"      * {player} moves {played}{glyph}  Eq.: {own:+.3f}")
        if decision.forced:
            lines[-1] += "  (forced)"
        elif decision.loss > 0:
            best = pov(decision.score_best, decision.side)
            lines.append(f"        best {decision.best}  Eq.: {best:+.3f} ({-decision.loss:+.3f})")
        if (how := settled(decision)) is not None:
            lines.append(f"        settled in doubt: {how}")
        return lines
    cube = detail.cube
    what = "cube decision" if decision.kind == DecisionKind.CUBE else "take decision"
    error = f" ({-decision.loss:+.3f})" if decision.loss > 0 else ""
    lines = [f"{where}{player}: {what}, {decision.played}{glyph}{error}{position}"]
    if cube is None:  # a decision the file did not judge, in an analysis of the files' own judgements
        lines.append("        not judged")
        return lines
    lines.append(
        f"        No double {cube.no_double:+.3f}  Double, take {cube.double_take:+.3f}  "
        f"Double, pass {cube.double_pass:+.3f}  Proper cube action: {cube.verdict}"
    )
    if (how := settled(decision)) is not None:
        lines.append(f"        settled in doubt: {how}")
    return lines


def settled(decision: Decision) -> str | None:
    """How a decision in doubt was settled again (``base.kind.settled_label``), or None."""
    return settled_label(decision.judged, decision.depth, decision.loss_se)


def _length(length: int) -> str:
    return f"{length}-point match" if length else "money session"


def analysis_text(games: Sequence[Game], notes: Sequence[Annotation], form: str) -> str:
    """The valid ``games`` of one match with their ``notes`` (one per game, in order) as the analysis
    text: ``form`` ``full`` lists every decision, ``short`` only the marked ones and the cube actions
    taken; the statistics are always over every decision."""
    if not games:
        return ""
    match = games[0].match
    players = match.players
    lines = [f"{players[0]} - {players[1]}, {_length(match.length)}"]
    lines += [f"{key}: {match.headers[key]}" for key in MATCH_HEADERS if match.headers.get(key)]
    annotators = {note.headers["Annotator"] for note in notes if "Annotator" in note.headers}
    lines += [f"Analysis: {annotator}" for annotator in sorted(annotators)]
    lines.append("")
    everything: list[tuple[Decision, str | None]] = []
    totals: tuple[float, float] | None = None
    for game, note in zip(games, notes, strict=True):
        score = ", ".join(f"{name} {points}" for name, points in zip(players, game.start.score, strict=True))
        length = f"match to {match.length} points" if match.length else "money session"
        lines += [f"Game {game.index}: {score} ({length})", ""]
        marked = [(decision, note.marks.get(decision.ply)) for decision in note.decisions]
        numbers = move_numbers((decision.side, decision.kind) for decision in note.decisions)
        for (decision, mark), number in zip(marked, numbers, strict=True):
            quiet = decision.kind == DecisionKind.MOVE or decision.played == CubeChoice.NO_DOUBLE
            if form == "short" and mark is None and quiet:
                continue
            lines += decision_lines(decision, number, players[decision.side], mark)
        if game.winner is not None:
            plural = "" if game.points == 1 else "s"
            lines.append(f"{players[game.winner]} wins {game.points} point{plural}")
        lines.append("")
        results = game_results(game)
        if results is not None:
            totals = results if totals is None else (totals[0] + results[0], totals[1] + results[1])
        title = f"Game statistics for game {game.index}"
        lines += statistics(title, players, figures(marked, results), match.length)
        everything += marked
    lines += statistics("Match statistics", players, figures(everything, totals), match.length)
    return "\n".join(lines)
