"""Playing from an opening book: among the moves of a position that were played often enough and scored
well for the side that played them, those the engine does not refute, one chosen at random in proportion
to how often it was played; the same seed chooses the same move in the same position, on any machine."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .lookup import Lookup, LookupMove


@dataclass(frozen=True)
class BookPlayer:
    """The book in ``folder`` as an engine plays from it (``taldau.base.kind.OpeningBook``).

    A move is a candidate when it was played in at least ``min_games`` games with a result and scored
    within ``margin`` of the best-scoring such move (scores are shares of the points, 0 to 1); the engine
    then vets the candidates (``sound``). The lookup file is opened (memory-mapped) at each choice, so a
    player pickles to the worker processes of a match as its folder's name."""

    folder: str
    min_games: int = 3
    margin: float = 0.1
    seed: int = 0

    def candidates(self, key: int, dice: str = "") -> list[LookupMove]:
        """The moves that scored well in the position ``key`` (and roll), most played first."""
        played = [
            move
            for move in Lookup(Path(self.folder) / "lookup.npy").find(key, dice)
            if move.score is not None and move.wins + move.draws + move.losses >= self.min_games
        ]
        if not played:
            return []
        best = max(move.score or 0.0 for move in played)
        return [move for move in played if (move.score or 0.0) >= best - self.margin]

    def choose(self, key: int, dice: str, sound: Callable[[str], bool]) -> str | None:
        """A candidate that ``sound`` accepts, at random by games played; None when there is none."""
        moves = [move for move in self.candidates(key, dice) if sound(move.move)]
        if not moves:
            return None
        digest = hashlib.sha256(f"{self.seed} {key} {dice}".encode()).digest()
        chooser = random.Random(int.from_bytes(digest[:8], "little"))
        return chooser.choices([move.move for move in moves], weights=[move.games for move in moves])[0]
