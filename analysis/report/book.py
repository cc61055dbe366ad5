"""How the moves of a game stand in an opening book (``taldau report --book``): for every decision of the
book's first plies whose position the book holds, the games in which the played move was played there, its
score from the mover's side, and whether it is the book's most played move there.

Positions are found through the book's own queries (``taldau.analysis.book.query``): the ``moves`` row's
``position`` (a Togyz FEN, or a backgammon Position ID as the player on roll sees it) gives the book key, and
for backgammon the roll picks the entry (the book keys a roll high die first: ``31``, not ``13``). Cube
decisions are no book moves, and only the book's first ``max_ply`` moves (backgammon: checker plays) are
looked up. Openings repeat, so each position (and roll) is looked up once per report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from taldau.analysis.accounting import count
from taldau.analysis.book import Book
from taldau.analysis.book.query import Entry, entries, position_key
from taldau.schemas import MoveRow


@dataclass(frozen=True)
class BookMove:
    """A played move as the book knows it: the games that reached its position (with its roll), the games
    in which this move was played there (0: not among the book's moves), its score in percent from the
    mover's side (None without a decided game), and the book's most played move there with its games."""

    reached: int
    games: int
    score: float | None
    top_move: str
    top_games: int

    @property
    def most_played(self) -> bool:
        """Whether the move is (one of) the book's most played there."""
        return self.games > 0 and self.games == self.top_games

    @property
    def title(self) -> str:
        """The tooltip of the move list's book cell."""
        if self.games == 0:
            games = count(self.top_games, "game")
            return f"not in the book here; its most played move is {self.top_move} ({games})"
        score = "" if self.score is None else f", score {self.score:.0f}%"
        if self.most_played:
            top = "the book's most played move here"
        else:
            top = f"the book's most played move here is {self.top_move} ({count(self.top_games, 'game')})"
        return f"played in {self.games} of {count(self.reached, 'game')} here{score}; {top}"


@dataclass
class BookView:
    """An opening book opened for a report, with the entries it looked up so far (by key and roll)."""

    folder: Path
    book: Book
    plies: int
    found: dict[tuple[int, str | None], Entry | None] = field(default_factory=dict)

    @classmethod
    def open(cls, folder: str | Path) -> BookView:
        """The book in ``folder`` (made by ``taldau book build``); ValueError when there is none."""
        book = Book(folder).check()
        return cls(Path(folder), book, book.settings().plies)

    @property
    def game(self) -> str:
        return self.book.settings().game

    def entry(self, position: str, dice: str | None) -> Entry | None:
        """The book's entry of ``position`` (text in the game's notation) with the roll ``dice`` (high die
        first; None for Togyz), or None when the book does not hold it."""
        key = position_key(self.book, position)
        if (key, dice) not in self.found:
            found = entries(self.book, key, dice)
            self.found[key, dice] = found[0] if found else None
        return self.found[key, dice]

    def moves(self, moves: list[MoveRow]) -> dict[int, BookMove]:
        """The book's word on each of a game's ``moves`` (in order) whose position it holds, by ply."""
        known: dict[int, BookMove] = {}
        plays = [move for move in moves if move.kind == "move"][: self.plies]
        for move in plays:
            dice = "".join(sorted(move.dice, reverse=True)) if move.dice else None
            entry = self.entry(move.position, dice)
            if entry is None or not entry.moves:
                continue
            top = entry.moves[0]
            same = next((found for found in entry.moves if found.move == move.played), None)
            known[move.ply] = BookMove(
                reached=entry.games,
                games=same.games if same else 0,
                score=None if same is None or same.score is None else 100 * same.score,
                top_move=top.move,
                top_games=top.games,
            )
        return known
