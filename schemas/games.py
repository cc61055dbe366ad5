"""The ``games`` table: one row per game of an analysed archive, analysed or not.

``status`` is ``ok`` (analysed), ``invalid`` (the record breaks the rules or cannot be read; ``error`` says
where) or ``failed`` (the analysis itself failed; ``error`` says why). ``task`` is the id of the task the game
was analysed in: a Togyz game is its own task, a backgammon match one task of all its games.

Match columns (backgammon; null for Togyz): the match length (0 for money play), both players' scores before
the game, the cube's value when the game ended, and the side that won it with the points won.

Numbering, the same in every table and JSON output: sides count from 0 (``winner`` here, ``side`` in the
``moves`` table, ``mover`` in a book, ``winner`` in ``taldau validate --json``): 0 the first player (Togyz
White, backgammon Player 1), 1 the second; ``index`` counts a record file's games from 1; ``plies`` is a
count (a Togyz game's moves, a backgammon game's rolls played) and the ``moves`` table numbers its
decisions from 1.

Per side (``white_*`` for the first player, Togyz White or backgammon's first player; ``black_*`` for the
second), over the side's decisions of the game (the ``moves`` rows; figures in the game's unit: Togyz kumalak,
backgammon EMG):

- ``decisions`` (every decision, ``forced`` ones too), ``counted`` (those counted in the error rate:
  ``moves.counted``), counts of each mark;
- ``error``: the sum of ``loss`` over the counted decisions, ``checker_error`` / ``cube_error`` the same
  over ``kind`` move / cube and take, with ``checker_counted`` / ``cube_counted`` decisions (Togyz: every
  move is a checker decision, the cube columns are 0);
- ``mean_loss``: error / counted, the error rate (backgammon: x 1000 gives gnubg's error rate in mEMG);
  ``accuracy``: the mean over the counted decisions of lichess's accuracy of the drop in winning chances
  (0 to 100);
- ``error_mwc`` (match winning chances lost, backgammon match play), ``pr`` (XG's performance rating, 500 x
  mean loss in EMG), ``luck`` (the sum of the rolls' luck, EMG; ``luck_mwc`` in match winning chances, match
  play) and ``rating`` (gnubg's band of the error
  rate, ``Supernatural`` ... ``Awful!``): null where the game's analyser has none of them (Togyz).

A row carries one game's figures. A match's (a task's) are the same sums over its games, which readers
derive: ``group by task`` and ``sum(white_error) / sum(white_counted)`` is the match's error rate (x 500 its
PR; its rating band from the bounds of ``taldau.games.backgammon.review.marks.GNUBG_RATINGS``),
``sum(white_accuracy * white_counted) / sum(white_counted)`` its accuracy; in Python the rows' tallies added
(``analysis.tally.Tally.of_row``), or ``analysis.review.player_stats`` over the decisions of all the match's
games, give the same figures.

Version 2 added ``task``, the match columns and, per side, every figure after ``mean_loss``; version 1 files
read with them null. Version 3 added the kinds of cube error, version 4 ``luck_mwc``, version 5
``reference_pr`` (each player's PR by the judgements the record file holds); files before read with them
null.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

import pyarrow as pa

from .columns import column, column_names, columns_of, described, table_schema

GAMES_SCHEMA_VERSION = "5"
# the first and the second player's names where the record has no White / Black header (backgammon)
PLAYER_NOTE = {"White": "; else the first player's name", "Black": "; else the second player's name"}
HEADER_COLUMNS = {
    "Event": "event",
    "Site": "site",
    "Date": "date",
    "Round": "round",
    "White": "white",
    "Black": "black",
    "WhiteElo": "white_elo",
    "BlackElo": "black_elo",
}


class Status(StrEnum):
    """How a game ended up in the table (the ``status`` column holds these strings)."""

    OK = "ok"  # analysed
    INVALID = "invalid"  # the record breaks the rules or cannot be read
    FAILED = "failed"  # the analysis itself failed


@dataclass(frozen=True)
class SideFigures:
    """One side's figures over some decisions (a game's: the columns ``white_<name>`` / ``black_<name>``;
    a match's, summed over its games), in the game's unit (Togyz kumalak, backgammon EMG); each field a
    column, declared with its type and meaning (the games table's side columns are generated from them).
    The figures after ``mean_loss`` are None where they do not apply (and in files of version 1)."""

    inaccuracies: int = column(pa.int32(), "decisions marked ?! (inaccuracy, doubtful)", True)
    mistakes: int = column(pa.int32(), "decisions marked ? (mistake, bad)", True)
    blunders: int = column(pa.int32(), "decisions marked ?? (blunder, very bad)", True)
    accuracy: float = column(pa.float64(), "mean accuracy of the counted decisions, 0 to 100", True)
    mean_loss: float = column(
        pa.float64(), "error rate: error / counted, Togyz kumalak, backgammon EMG (x 1000: mEMG)", True
    )
    decisions: int | None = column(pa.int32(), "every decision of the side, forced ones too", True, None)
    counted: int | None = column(pa.int32(), "decisions counted in the error rate", True, None)
    error: float | None = column(
        pa.float64(), "loss summed over the counted decisions, Togyz kumalak, backgammon EMG", True, None
    )
    checker_counted: int | None = column(pa.int32(), "counted decisions of kind move", True, None)
    checker_error: float | None = column(pa.float64(), "error over the decisions of kind move", True, None)
    cube_counted: int | None = column(
        pa.int32(), "counted decisions of kinds cube and take (0 for Togyz)", True, None
    )
    cube_error: float | None = column(
        pa.float64(), "error over the decisions of kinds cube and take (0 for Togyz)", True, None
    )
    error_mwc: float | None = column(
        pa.float64(), "match winning chances lost, 0 to 1 (backgammon match play)", True, None
    )
    pr: float | None = column(
        pa.float64(), "XG's performance rating: 500 x mean loss in EMG (backgammon)", True, None
    )
    luck: float | None = column(pa.float64(), "luck of the side's rolls summed, EMG (backgammon)", True, None)
    rating: str | None = column(
        pa.string(), "gnubg's band of the error rate, Supernatural ... Awful! (backgammon)", True, None
    )
    # gnubg's kinds of cube error (games.backgammon.review.decision.CUBE_ERRORS), each counted and its loss
    # summed (EMG)
    missed_doubles_below_cp: int | None = column(
        pa.int32(), "no double where Double, take was right (backgammon; null before schema 3)", True, None
    )
    missed_doubles_below_cp_error: float | None = column(
        pa.float64(), "EMG lost by the missed doubles below the cash point", True, None
    )
    missed_doubles_above_cp: int | None = column(
        pa.int32(), "no double where Double, pass was right (backgammon)", True, None
    )
    missed_doubles_above_cp_error: float | None = column(
        pa.float64(), "EMG lost by the missed doubles above the cash point", True, None
    )
    wrong_doubles_below_dp: int | None = column(
        pa.int32(), "doubles where No double was right, not too good to double (backgammon)", True, None
    )
    wrong_doubles_below_dp_error: float | None = column(
        pa.float64(), "EMG lost by the wrong doubles below the doubling point", True, None
    )
    wrong_doubles_above_tg: int | None = column(
        pa.int32(), "doubles where the roller was too good to double (backgammon)", True, None
    )
    wrong_doubles_above_tg_error: float | None = column(
        pa.float64(), "EMG lost by the wrong doubles above the too-good point", True, None
    )
    wrong_takes: int | None = column(
        pa.int32(), "takes or beavers where a pass was right (backgammon)", True, None
    )
    wrong_takes_error: float | None = column(pa.float64(), "EMG lost by the wrong takes", True, None)
    wrong_passes: int | None = column(pa.int32(), "passes where a take was right (backgammon)", True, None)
    wrong_passes_error: float | None = column(pa.float64(), "EMG lost by the wrong passes", True, None)
    luck_mwc: float | None = column(
        pa.float64(),
        "luck of the side's rolls summed, match winning chances (backgammon match play; null before "
        "schema 4)",
        True,
        None,
    )
    reference_pr: float | None = column(
        pa.float64(),
        "PR by the reference (the judgements the record file holds: XG's, gnubg's), 500 x the mean "
        "reference_loss of the counted decisions it judged (backgammon; null where it judged none, and "
        "before schema 5)",
        True,
        None,
    )

    @property
    def marks(self) -> tuple[int, int, int]:
        """The counts of ``?!``, ``?`` and ``??`` (0 where a file of an early version stored none)."""
        return (self.inaccuracies or 0, self.mistakes or 0, self.blunders or 0)

    @classmethod
    def of_row(cls, row: dict[str, object], side: str) -> SideFigures:
        """One side's figures of a ``games`` row read back (``side``: ``white`` or ``black``, the columns'
        prefix), the sums a file of an early version lacks as 0 (``counted``, ``error``)."""
        figures = {name: row.get(f"{side}_{name}") for name in SIDE_STATS}
        return cls(**{**figures, "counted": figures["counted"] or 0, "error": figures["error"] or 0.0})


SIDE_STATS = column_names(SideFigures)


@dataclass(frozen=True)
class GameRow:
    """One row of the ``games`` table. The header columns (``event``, ``white``...) are read from
    ``headers`` (HEADER_COLUMNS), ``white`` and ``black`` from ``players`` (the first and the second
    player's names, as the game's facts give them) when the headers have no White / Black; the sides'
    figures are null unless the game was analysed; the match columns are null for a game that is not part
    of a match."""

    game_id: str
    game: str
    source: str
    index: int
    status: Status
    settings: str
    format: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    players: tuple[str, ...] = ()
    result: str | None = None
    termination: str | None = None
    plies: int = 0
    error: str | None = None
    white: SideFigures | None = None
    black: SideFigures | None = None
    task: str | None = None
    match_length: int | None = None
    match_score: tuple[int, int] | None = None
    cube: int | None = None
    winner: int | None = None
    points: int | None = None

    def columns(self) -> dict[str, object]:
        """The row as GAMES_SCHEMA's columns."""
        row: dict[str, object] = {
            "game_id": self.game_id,
            "game": self.game,
            "source": self.source,
            "index": self.index,
            "format": self.format,
            "headers": list(self.headers.items()),
            "result": self.result,
            "termination": self.termination,
            "plies": self.plies,
            "status": str(self.status),
            "error": self.error,
            "task": self.task,
            "match_length": self.match_length,
            "white_match_score": None if self.match_score is None else self.match_score[0],
            "black_match_score": None if self.match_score is None else self.match_score[1],
            "cube": self.cube,
            "winner": self.winner,
            "points": self.points,
            "settings": self.settings,
        }
        for header, name in HEADER_COLUMNS.items():
            row[name] = self.headers.get(header)
        if len(self.players) == 2:
            row["white"] = row["white"] or self.players[0]
            row["black"] = row["black"] or self.players[1]
        for side, figures in (("white", self.white), ("black", self.black)):
            for name in SIDE_STATS:
                row[f"{side}_{name}"] = None if figures is None else getattr(figures, name)
        return row


def _side_fields(side: str) -> list[pa.Field]:
    name = "first player (Togyz White)" if side == "white" else "second player (Togyz Black)"
    return columns_of(SideFigures, f"{side}_", f"{name}: ")


GAMES_SCHEMA = table_schema(
    "games",
    GAMES_SCHEMA_VERSION,
    [
        described("game_id", pa.string(), "content-derived id of the game", nullable=False),
        described("game", pa.string(), "the game: togyz, backgammon", nullable=False),
        described("source", pa.string(), "the record file", nullable=False),
        described("index", pa.int32(), "the game's number in its record file, from 1", nullable=False),
        described("format", pa.string(), "the record's format"),
        *[
            described(column, pa.string(), f"the record's {header} header{PLAYER_NOTE.get(header, '')}")
            for header, column in HEADER_COLUMNS.items()
        ],
        described("headers", pa.map_(pa.string(), pa.string()), "every header of the record"),
        described("result", pa.string(), "the result as the record gives it"),
        described("termination", pa.string(), "how the game ended"),
        described(
            "plies",
            pa.int32(),
            "plies played: Togyz moves (a moves row each); backgammon rolls played, dances included (the "
            "moves rows add the cube and take decisions)",
            nullable=False,
        ),
        described("status", pa.string(), "ok, invalid or failed", nullable=False),
        described("error", pa.string(), "why the game is invalid or failed"),
        described(
            "task", pa.string(), "id of the task the game was analysed in (a Togyz game, a backgammon match)"
        ),
        described("match_length", pa.int32(), "backgammon: points to win the match, 0 for money play"),
        described("white_match_score", pa.int32(), "backgammon: the first player's score before the game"),
        described("black_match_score", pa.int32(), "backgammon: the second player's score before the game"),
        described("cube", pa.int32(), "backgammon: the cube's value when the game ended"),
        described(
            "winner",
            pa.int8(),
            "backgammon: the side that won the game, counted from 0 as every side: 0 the first player "
            "(Player 1), 1 the second (Player 2)",
        ),
        described("points", pa.int32(), "backgammon: the points the winner won"),
        *_side_fields("white"),
        *_side_fields("black"),
        described("settings", pa.string(), "the settings key of the analysis", nullable=False),
    ],
)


def games_table(rows: Iterable[GameRow]) -> pa.Table:
    """Rows as a table of GAMES_SCHEMA."""
    records = [row.columns() for row in rows]
    return pa.Table.from_pydict(
        {name: [record[name] for record in records] for name in GAMES_SCHEMA.names}, schema=GAMES_SCHEMA
    )
