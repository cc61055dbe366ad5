"""The compact lookup file of an opening book, in the spirit of Polyglot's ``.bin`` books: fixed-size
records, one per move of a position (and roll), sorted by the position's 64-bit key, found by binary search
over a memory map. Looking a position up reads a couple of dozen records of the file, however large the
book: no table is loaded.

The file is a NumPy ``.npy`` array of ``LOOKUP_DTYPE`` (its header names the dtype, so any NumPy reads it).
A record holds the key, the key of the position the move leads to, the roll (``dice``: 10 x high die + low
die, 0 for Togyz), the move's text (UTF-8, at most ``MOVE_BYTES`` bytes), its games and results from the
mover's side (see ``taldau.schemas.book``), the engine's mean value after it (NaN when no analysis judged
it), how often analyses marked it, and whether it is the engine's best move there. Records of one position
come by roll, then by games played, most first.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

LOOKUP_VERSION = 1
MOVE_BYTES = 30
LOOKUP_DTYPE = np.dtype(
    [
        ("key", "<u8"),
        ("after", "<u8"),
        ("dice", "u1"),
        ("best", "u1"),
        ("games", "<u4"),
        ("wins", "<u4"),
        ("draws", "<u4"),
        ("losses", "<u4"),
        ("points_won", "<f4"),
        ("points_lost", "<f4"),
        ("eval", "<f4"),
        ("marked", "<u4"),
        ("move", f"S{MOVE_BYTES}"),
    ]
)


def dice_code(dice: str) -> int:
    """A roll as the lookup file stores it: ``31`` is 31, "" (no dice) 0."""
    return int(dice) if dice else 0


def lookup_records(moves: pa.Table) -> np.ndarray:
    """The lookup records of a book's ``moves`` table (sorted as the table is: by key, roll, games)."""
    records = np.zeros(moves.num_rows, LOOKUP_DTYPE)
    records["key"] = moves["key"].to_numpy()
    records["after"] = moves["after"].to_numpy()
    dice = pc.fill_null(moves["dice"], "").to_pylist()
    records["dice"] = [dice_code(roll) for roll in dice]
    records["best"] = moves["best"].to_numpy(zero_copy_only=False)
    for name in ("games", "wins", "draws", "losses", "marked"):
        records[name] = moves[name].to_numpy()
    for name in ("points_won", "points_lost"):
        records[name] = moves[name].to_numpy()
    records["eval"] = pc.fill_null(moves["eval"], float("nan")).to_numpy()
    encoded = [text.encode() for text in moves["move"].to_pylist()]
    too_long = next((text for text in encoded if len(text) > MOVE_BYTES), None)
    if too_long is not None:
        raise ValueError(
            f"move {too_long.decode()!r} is longer than {MOVE_BYTES} bytes: no room in the lookup file"
        )
    records["move"] = encoded
    return records


def write_lookup(moves: pa.Table, path: Path) -> None:
    """Write the lookup file of ``moves`` (a book's ``moves`` table) to ``path``."""
    with open(path, "wb") as stream:
        np.save(stream, lookup_records(moves), allow_pickle=False)


@dataclass(frozen=True)
class LookupMove:
    """One record of the lookup file, decoded."""

    key: int
    dice: str
    move: str
    after: int
    games: int
    wins: int
    draws: int
    losses: int
    points_won: float
    points_lost: float
    eval: float | None
    marked: int
    best: bool

    @property
    def results(self) -> int:
        """The games with a known result, which ``score`` and the W/D/L rest on (``games`` counts the
        others too)."""
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float | None:
        """The share of the points of its ``results`` games that went to the mover; None without one."""
        played = self.points_won + self.points_lost
        return self.points_won / played if played > 0 else None


class Lookup:
    """A lookup file opened as a memory map; ``find`` is a binary search over its keys."""

    def __init__(self, path: str | Path) -> None:
        self.records = np.load(path, mmap_mode="r", allow_pickle=False)
        if self.records.dtype != LOOKUP_DTYPE:
            raise ValueError(f"{path}: not a taldau book lookup file (version {LOOKUP_VERSION})")
        self.keys = self.records["key"]

    def __len__(self) -> int:
        return len(self.records)

    def span(self, key: int) -> tuple[int, int]:
        """The first and past-the-last record of ``key``."""
        return bisect.bisect_left(self.keys, key), bisect.bisect_right(self.keys, key)

    def find(self, key: int, dice: str | None = None) -> list[LookupMove]:
        """The moves of the position ``key`` (only those of the roll ``dice`` when given), by roll, then by
        games played."""
        start, end = self.span(key)
        found = []
        for record in self.records[start:end]:
            roll = int(record["dice"])
            text = "" if roll == 0 else str(roll)
            if dice is not None and text != dice:
                continue
            value = float(record["eval"])
            found.append(
                LookupMove(
                    key=int(record["key"]),
                    dice=text,
                    move=bytes(record["move"]).decode(),
                    after=int(record["after"]),
                    games=int(record["games"]),
                    wins=int(record["wins"]),
                    draws=int(record["draws"]),
                    losses=int(record["losses"]),
                    points_won=float(record["points_won"]),
                    points_lost=float(record["points_lost"]),
                    eval=None if np.isnan(value) else value,
                    marked=int(record["marked"]),
                    best=bool(record["best"]),
                )
            )
        return found
