"""The tables of an opening book (``taldau book build``): what it was built from, and what it says.

A book is a folder (see ``taldau.analysis.book``). Two tables hold its inputs, one Parquet part per record
file or analysis folder it read, so that books merge exactly and a build resumes where it stopped:

- ``plies``: one row per move of a game's opening (up to the book's depth): the position before it, the
  move, the side that made it and how the game ended for that side.
- ``evals``: one row per move an analysis (``taldau analyze``) judged in an opening: the engine's value
  of the move played and of the position with its best move, the best move and whether the move was
  marked.

Two tables say what the book knows, aggregated from every input part:

- ``positions``: one row per position of the book (per position and roll for backgammon, whose book says
  "which play for 31 at the start").
- ``moves``: one row per move played in a position (and roll).

Plies count as players count them, from 1: the ``plies`` and ``evals`` rows' ``ply`` is the move's in its game
(the first move is ply 1; backgammon counts checker plays, a roll that could not be played included, cube
decisions not), and a position's ``ply`` the plies played before it (0 at the start). ``mover`` counts sides
from 0 as every table does: 0 the first player (Togyz White, backgammon Player 1), 1 the second. Version 2
counts ``ply`` from 1 (version 1 from 0).

Positions are named by the game's 64-bit book key (``GameKind.book_keys``: Togyz the position's own key;
backgammon the board as the player on roll sees it), so that two move orders to one position make one
entry. ``dice`` is "" for Togyz, the roll high die first for backgammon (``31``, ``66``).

Results are from the side to move ("the mover"): Togyz wins, draws and losses, points 1, 1/2 and 0 a game;
backgammon the points won and lost (cube, gammons and backgammons included, as the match or money session
counted them) and the gammons (a backgammon counts as a gammon too). ``score`` is the share of the points
that went to the mover: Togyz (wins + draws / 2) / games with a result, backgammon points won / points
played. A game without a result counts in ``games`` and in nothing of the results. Engine values are from
the mover's side too, in the analysis' unit (Togyz kumalak, backgammon cubeful EMG).
"""

from __future__ import annotations

import pyarrow as pa

from .columns import described, table_schema

BOOK_SCHEMA_VERSION = "2"


KEY = described("key", pa.uint64(), "the book key of the position before the move")
DICE = described("dice", pa.string(), "backgammon: the roll, high die first ('31'); '' for Togyz")
MOVE = described("move", pa.string(), "the move in record notation ('' : a roll that could not be played)")

BOOK_PLIES_SCHEMA = table_schema(
    "book_plies",
    BOOK_SCHEMA_VERSION,
    [
        described("game_id", pa.string(), "content-derived id of the game"),
        described("ply", pa.int16(), "the move's ply in the game, from 1 (the game's first move is 1)"),
        KEY,
        described("position", pa.string(), "the position before the move: Togyz FEN, gnubg Position ID"),
        DICE,
        MOVE,
        described("mover", pa.int8(), "the side that moved: 0 the first player, 1 the second"),
        described("after", pa.uint64(), "the book key of the position after the move"),
        described("points_for", pa.float64(), "what the mover scored in the game; null: no result"),
        described("points_against", pa.float64(), "what the mover's opponent scored; null: no result"),
        described("gammon", pa.bool_(), "backgammon: the game's winner won a gammon or backgammon"),
        described("rating", pa.float64(), "the mover's rating from the record's headers"),
        described("opponent_rating", pa.float64(), "the mover's opponent's rating from the record's headers"),
        described("date", pa.date32(), "the game's date from the record's headers"),
    ],
)

BOOK_EVALS_SCHEMA = table_schema(
    "book_evals",
    BOOK_SCHEMA_VERSION,
    [
        described("game_id", pa.string(), "content-derived id of the analysed game"),
        described(
            "ply", pa.int16(), "the move's ply among the game's moves (backgammon: checker plays), from 1"
        ),
        KEY,
        DICE,
        MOVE,
        described("best_move", pa.string(), "the engine's best move in the position"),
        described("eval_move", pa.float64(), "the engine's value after the move played, mover's side"),
        described("eval_position", pa.float64(), "the engine's value after its best move, mover's side"),
        described("marked", pa.bool_(), "the move was marked ?!, ? or ??"),
    ],
)

_RESULTS = [
    described("games", pa.int64(), "games (a position reached twice in one game counts twice)"),
    described("wins", pa.int64(), "games the mover won"),
    described("draws", pa.int64(), "games drawn (Togyz)"),
    described("losses", pa.int64(), "games the mover lost"),
    described("points_won", pa.float64(), "points the mover scored over the games"),
    described("points_lost", pa.float64(), "points the mover's opponents scored"),
    described("gammons_won", pa.int64(), "backgammon: games the mover won by a gammon or backgammon"),
    described("gammons_lost", pa.int64(), "backgammon: games the mover lost by a gammon or backgammon"),
    described("score", pa.float64(), "points_won / (points_won + points_lost); null without a result"),
    described("mean_rating", pa.float64(), "the movers' mean rating, over the games that give one"),
    described("mean_opponent_rating", pa.float64(), "their opponents' mean rating, where given"),
    described("first_date", pa.date32(), "the earliest game's date"),
    described("last_date", pa.date32(), "the latest game's date"),
    described("analysed", pa.int64(), "engine evaluations of it from analyses"),
]

BOOK_POSITIONS_SCHEMA = table_schema(
    "book_positions",
    BOOK_SCHEMA_VERSION,
    [
        KEY,
        DICE,
        described("position", pa.string(), "the position as text (the first of its texts in sort order)"),
        described("ply", pa.int16(), "the fewest plies it was reached in (0: a starting position)"),
        *_RESULTS,
        described("eval", pa.float64(), "the engine's mean value of the position (after its best move)"),
        described(
            "best_move", pa.string(), "the engine's best move here, the most often named (played or not)"
        ),
    ],
)

BOOK_MOVES_SCHEMA = table_schema(
    "book_moves",
    BOOK_SCHEMA_VERSION,
    [
        KEY,
        DICE,
        MOVE,
        described("after", pa.uint64(), "the book key of the position the move leads to"),
        *_RESULTS,
        described("eval", pa.float64(), "the engine's mean value after the move"),
        described("marked", pa.int64(), "times analyses marked it ?!, ? or ??"),
        described("best", pa.bool_(), "it is the position's best_move"),
    ],
)
