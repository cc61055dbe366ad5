"""Reading an opening book for people: a position's moves (``taldau book show``) and the main lines from the
start (``taldau book tree``). Moves come from the lookup file; a position's own figures (its text, the
engine's value and best move) from the ``positions`` table."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from .book import Book
from .lookup import LookupMove

START = "start"


@dataclass(frozen=True)
class Entry:
    """A position of the book with one roll (backgammon; "" for Togyz): its text, the games that reached
    it and how many of them have a known result (``results``), the engine's mean value of it and best move
    (None without analyses), and its moves, most played first."""

    key: int
    dice: str
    position: str
    games: int
    results: int
    eval: float | None
    best_move: str | None
    moves: tuple[LookupMove, ...]

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["moves"] = [move_json(move) for move in self.moves]
        return data


def move_json(move: LookupMove) -> dict[str, Any]:
    """A book move as JSON: its record's fields, the games with a result its score rests on and the score."""
    return {**asdict(move), "results": move.results, "score": move.score}


def position_key(book: Book, position: str) -> int:
    """The book key of ``position``: a position's text in the game's notation (Togyz FEN, backgammon
    Position ID), ``start`` for the book's most played first position, or a key in decimal or ``0x`` hex.
    ValueError for anything else."""
    text = position.strip()
    if text == START:
        first = book.positions(pc.field("ply") == 0)
        if first.num_rows == 0:
            raise ValueError("the book has no first position")
        totals = first.group_by("key").aggregate([("games", "sum")]).sort_by([("games_sum", "descending")])
        return int(totals["key"][0].as_py())
    if text.lower().startswith("0x"):
        return int(text, 16)
    if text.isdigit():
        return int(text)
    return book.settings().kind().book_key(text)


def entries(book: Book, key: int, dice: str | None = None) -> list[Entry]:
    """The book's entries of the position ``key`` (one per roll for backgammon; only ``dice``'s when
    given), each with its moves."""
    moves = book.lookup().find(key, dice)
    rows = book.positions(pc.field("key") == pa.scalar(key, pa.uint64())).to_pylist()
    found = []
    for row in rows:
        if dice is not None and row["dice"] != dice:
            continue
        own = tuple(move for move in moves if move.dice == row["dice"])
        results = row["wins"] + row["draws"] + row["losses"]
        found.append(
            Entry(
                key, row["dice"], row["position"], row["games"], results, row["eval"], row["best_move"], own
            )
        )
    return found


@dataclass(frozen=True)
class BookLine:
    """One move of the tree of main lines: how deep it is (0 for the first moves), the roll it answers
    (backgammon) and the move with its figures."""

    depth: int
    move: LookupMove


def main_lines(book: Book, depth: int, width: int = 3, key: int | None = None) -> list[BookLine]:
    """The tree of the book's main lines from ``key`` (None: the start), ``depth`` moves deep, the
    ``width`` most played moves of each position (of each roll, for backgammon), depth first."""
    lookup = book.lookup()
    lines: list[BookLine] = []

    def walk(at: int, level: int) -> None:
        if level == depth:
            return
        shown: dict[str, int] = {}
        for move in lookup.find(at):
            if shown.get(move.dice, 0) == width:
                continue
            shown[move.dice] = shown.get(move.dice, 0) + 1
            lines.append(BookLine(level, move))
            walk(move.after, level + 1)

    walk(position_key(book, START) if key is None else key, 0)
    return lines
