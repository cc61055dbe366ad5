"""Match equity tables: the chance of winning a match from a score.

Words: in a match to N points a player who has scored s points is *N - s away* (needs that many more). The
*match winning chance* (MWC) of a score is the probability that a player wins the match from there, when
both play well; a *match equity table* (MET) lists it for every pair of away counts. The *Crawford game*
is the first game after a player reaches 1-away: no doubling in it. The games after it are *post-Crawford*:
the trailer doubles at the first chance (the leader's cube is worthless, he needs one point whatever the
stake), so those scores have a table of their own.

The table shipped with taldau is Kazaross-XG2 (``data/kazaross-xg2.xml``, gnubg's ``met/Kazaross-XG2.xml``,
25 points; see ``data/README.md`` for its provenance and licence), read from gnubg's XML format:

- ``<pre-crawford-table>``: rows ``i``, entries ``j`` = MWC of a player ``i + 1`` away against an opponent
  ``j + 1`` away at the start of a game before the Crawford game. As gnubg reads it, row 0 (and column 0)
  is the Crawford game itself: the player 1-away against one ``j + 1`` away, no cube in that game.
- ``<post-crawford-table>`` (``player="both"``): one row, entry ``j`` = MWC of the trailer ``j + 1`` away
  against the leader 1-away in a post-Crawford game (entry 0, both 1-away, is 0.5).
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from functools import cache, cached_property
from importlib import resources
from pathlib import Path

KAZAROSS_XG2 = "kazaross-xg2.xml"


@dataclass(frozen=True)
class MatchEquityTable:
    """A match equity table: ``pre_crawford[i][j]`` is the MWC of a player ``i + 1`` away against one
    ``j + 1`` away (row and column 0: the Crawford game), ``post_crawford[j]`` the MWC of the trailer
    ``j + 1`` away against the leader 1-away after the Crawford game."""

    name: str
    pre_crawford: tuple[tuple[float, ...], ...]
    post_crawford: tuple[float, ...]

    def __hash__(self) -> int:
        """The hash of the table's fields, computed once: cube analysis looks tables up by it often."""
        return self._hash

    @cached_property
    def _hash(self) -> int:
        return hash((self.name, self.pre_crawford, self.post_crawford))

    def __post_init__(self) -> None:
        size = len(self.pre_crawford)
        if size == 0 or any(len(row) != size for row in self.pre_crawford):
            raise ValueError(f"the pre-Crawford table of {self.name!r} is not square")
        if len(self.post_crawford) < size:
            raise ValueError(f"the post-Crawford row of {self.name!r} is shorter than the table")

    @property
    def length(self) -> int:
        """The longest away count the table covers (25 for Kazaross-XG2)."""
        return len(self.pre_crawford)

    def mwc(self, away0: int, away1: int, post_crawford: bool = False) -> float:
        """MWC of player 0 at the start of a game in which player 0 needs ``away0`` points and player 1
        needs ``away1``. 0-away (or less) means that player has won the match. A game with a player
        1-away is the Crawford game unless ``post_crawford`` says it comes after it (with the Crawford rule
        off, every such game counts as post-Crawford). Raises ValueError past the table's length."""
        if away0 <= 0 and away1 <= 0:
            raise ValueError("both players cannot have won the match")
        if away0 <= 0:
            return 1.0
        if away1 <= 0:
            return 0.0
        if max(away0, away1) > self.length:
            raise ValueError(f"{self.name} covers scores up to {self.length}-away, not {max(away0, away1)}")
        if post_crawford and min(away0, away1) == 1:
            if away0 == 1:
                return 1.0 - self.post_crawford[away1 - 1]
            return self.post_crawford[away0 - 1]
        return self.pre_crawford[away0 - 1][away1 - 1]


def read_met(path: Path | str) -> MatchEquityTable:
    """Read a match equity table in gnubg's XML format with explicit entries (the ``parameters`` form,
    which gnubg computes from a formula, is not read: ValueError)."""
    root = ElementTree.parse(path).getroot()
    name = (root.findtext("info/name") or Path(path).stem).strip()
    pre = root.find("pre-crawford-table")
    posts = root.findall("post-crawford-table")
    if pre is None or not posts:
        raise ValueError(f"{path}: no pre-Crawford or post-Crawford table")
    for table in (pre, *posts):
        if table.get("type", "explicit") != "explicit":
            raise ValueError(f"{path}: only explicit tables are read, not {table.get('type')!r}")
    if len(posts) > 1 and any(post.get("player") != str(index) for index, post in enumerate(posts)):
        raise ValueError(f"{path}: post-Crawford tables for players other than '0' and '1'")
    rows = tuple(tuple(float(entry.text or "") for entry in row.findall("me")) for row in pre.findall("row"))
    post_rows = [[float(entry.text or "") for entry in row.findall("me")] for row in posts[0].findall("row")]
    if len(post_rows) != 1:
        raise ValueError(f"{path}: the post-Crawford table must be one row")
    if len(posts) > 1 and posts[1].findall("row"):
        second = [float(entry.text or "") for entry in posts[1].findall("row")[0].findall("me")]
        if second != post_rows[0]:
            raise ValueError(f"{path}: post-Crawford rows that differ by player are not supported")
    return MatchEquityTable(name=name, pre_crawford=rows, post_crawford=tuple(post_rows[0]))


@cache
def kazaross_xg2() -> MatchEquityTable:
    """The Kazaross-XG2 table shipped in the package (read once; the table is immutable)."""
    with resources.as_file(resources.files(__package__) / "data" / KAZAROSS_XG2) as path:
        return read_met(path)
