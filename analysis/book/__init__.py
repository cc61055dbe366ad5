"""Opening books from archives and analyses, for every game: for each position of the openings (and each
roll, for backgammon) the moves played there, how they scored for the side that played them, who played
them and when, and what the engine thought of them.

``build_book`` reads record files and analysis folders into per-input parts of a book folder,
``aggregate`` turns the parts into the ``positions`` and ``moves`` tables by Arrow group-bys,
``merge_books`` joins books as one build over all their inputs would, ``Lookup`` finds a position's moves
in the compact sorted lookup file, and ``choose_move`` picks a move to play from them. Nothing here looks
into a game: the game's kind gives the openings and the keys (``GameKind.opening``, ``book_key``,
``book_keys``).
"""

from .aggregate import aggregate
from .book import Book, BookMismatch, BuildReport, build_book, merge_books
from .inputs import BookSettings, InputReport
from .lookup import LOOKUP_DTYPE, Lookup, LookupMove

__all__ = [
    "LOOKUP_DTYPE",
    "Book",
    "BookMismatch",
    "BookSettings",
    "BuildReport",
    "InputReport",
    "Lookup",
    "LookupMove",
    "aggregate",
    "build_book",
    "merge_books",
]
