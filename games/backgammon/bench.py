"""Benchmark of the backgammon rules core: full-turn legal play sets generated per second on a fixed set
of positions and rolls taken from seeded random games (bar entries and bear-offs included)."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

import numpy as np

from . import board as core
from .position import Position


@dataclass(frozen=True)
class BenchResult:
    """Play sets generated (one per position and roll), plays in them, seconds, and the rate of the
    Python API (``Position.plays``, which also builds a value object and notation per play)."""

    turns: int
    plays: int
    seconds: float
    api_turns: int
    api_seconds: float

    @property
    def turns_per_second(self) -> float:
        return self.turns / self.seconds

    @property
    def api_turns_per_second(self) -> float:
        return self.api_turns / self.api_seconds

    def to_json(self) -> dict[str, float | int]:
        return {
            "turns": self.turns,
            "plays": self.plays,
            "seconds": round(self.seconds, 6),
            "turns_per_second": round(self.turns_per_second),
            "api_turns": self.api_turns,
            "api_turns_per_second": round(self.api_turns_per_second),
        }


def bench_positions(games: int = 40, seed: int = 2026) -> tuple[np.ndarray, np.ndarray]:
    """Boards (n, 2, 25) and rolls (n, 2) met in ``games`` random games played from the start, one per
    turn: a fixed set for a given seed."""
    chooser = random.Random(seed)
    boards, rolls = [], []
    for _ in range(games):
        position = Position.start()
        while position.outcome() is None:
            dice = (chooser.randint(1, 6), chooser.randint(1, 6))
            boards.append(np.array(position.board))
            rolls.append(dice)
            position = chooser.choice(position.plays(dice)).result
    return np.stack(boards), np.array(rolls, dtype=np.int64)


def run_bench(repeat: int = 20, games: int = 40) -> BenchResult:
    """Generate the play sets of the fixed position set ``repeat`` times in the compiled core, and once
    through the Python API."""
    boards, rolls = bench_positions(games)
    core.count_plays(boards[:1], rolls[:1], core.KEY_WORDS, 1)  # compile outside the clock
    started = time.perf_counter()
    plays = core.count_plays(boards, rolls, core.KEY_WORDS, repeat)
    seconds = time.perf_counter() - started
    started = time.perf_counter()
    for board, roll in zip(boards, rolls, strict=True):
        Position(board).plays((int(roll[0]), int(roll[1])))
    api_seconds = time.perf_counter() - started
    return BenchResult(len(boards) * repeat, int(plays), seconds, len(boards), api_seconds)
