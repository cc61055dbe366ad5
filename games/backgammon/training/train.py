"""Training the backgammon nets, stage by stage, reproducibly and resumably.

Stage ``td``: TD(lambda) self-play from random weights (``td.self_play``), in chunks of games whose dice
come from a seed derived from the run's seed and the chunk's number, so a run stopped and resumed from its
checkpoint plays exactly the games an uninterrupted run would have played. A checkpoint (the weights file
format of ``weights``, with the progress in its meta) is written every ``checkpoint_every`` games and at
the end.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from ..engine.model import NetPair
from ..engine.net import Net
from ..engine.weights import load_nets, save_nets
from ..rules.board import KEY_WORDS, start_board
from .td import self_play


@dataclass(frozen=True)
class TdSettings:
    """A TD(lambda) self-play run: ``games`` in all, learning rate falling linearly from ``rate_start`` to
    ``rate_end`` over the run, chunks of ``chunk`` games per compiled call."""

    games: int = 1_000_000
    contact_hidden: int = 128
    race_hidden: int = 64
    lam: float = 0.7
    rate_start: float = 0.1
    rate_end: float = 0.02
    seed: int = 1
    chunk: int = 1000
    checkpoint_every: int = 20_000

    def rate(self, games_done: int) -> float:
        """The learning rate after ``games_done`` games."""
        share = min(1.0, games_done / max(1, self.games))
        return self.rate_start + (self.rate_end - self.rate_start) * share


@dataclass(frozen=True)
class TdProgress:
    """Where a run stands: games done of the total, games per second over the last chunk, and the last
    chunk's share of gammons and backgammons and mean squared update error."""

    games_done: int
    games: int
    games_per_second: float
    plies_per_game: float
    gammons: float
    error: float


def chunk_seed(seed: int, chunk: int) -> int:
    """The dice seed of chunk number ``chunk`` of a run seeded ``seed``."""
    return int(np.random.SeedSequence([seed, chunk]).generate_state(1)[0])


def run_td(
    settings: TdSettings,
    checkpoint: Path,
    progress: Callable[[TdProgress], None] = lambda _: None,
    stop_at: int | None = None,
) -> NetPair:
    """Run (or resume, when ``checkpoint`` exists and was made with the same settings) the TD stage;
    returns the trained nets, also left in ``checkpoint``. ``stop_at`` stops the run after that many games
    (a multiple of ``chunk``): the checkpoint is then the one an uninterrupted run passes through, and the
    same command without ``stop_at`` goes on from it."""
    if stop_at is not None and stop_at % settings.chunk:
        raise ValueError(f"stop after a multiple of {settings.chunk} games, not {stop_at}")
    last = settings.games if stop_at is None else min(stop_at, settings.games)
    checkpoint = Path(checkpoint)
    games_done = 0
    if checkpoint.exists():
        nets, meta = load_nets(checkpoint)
        if meta.get("settings") != asdict(settings):
            raise ValueError(
                f"{checkpoint} was made with other settings ({meta.get('settings')}); "
                "choose another checkpoint or the same settings"
            )
        games_done = int(meta["games_done"])
    else:
        nets = NetPair(
            Net.random(settings.contact_hidden, settings.seed),
            Net.random(settings.race_hidden, settings.seed + 1),
        )
    start = start_board()
    since_checkpoint = 0
    stats = np.zeros(8, dtype=np.int64)
    while games_done < last:
        games = min(settings.chunk, settings.games - games_done)
        chunk = games_done // settings.chunk
        stats[:] = 0
        began = time.perf_counter()
        self_play(
            nets.arrays(),
            KEY_WORDS,
            start,
            games,
            chunk_seed(settings.seed, chunk),
            settings.lam,
            settings.rate(games_done),
            True,
            stats,
            np.zeros((0, 2, 25), dtype=np.int8),
        )
        elapsed = time.perf_counter() - began
        games_done += games
        since_checkpoint += games
        if since_checkpoint >= settings.checkpoint_every or games_done in (settings.games, last):
            meta = {"stage": "td", "settings": asdict(settings), "games_done": games_done}
            save_nets(checkpoint, nets, meta)
            since_checkpoint = 0
        progress(
            TdProgress(
                games_done=games_done,
                games=settings.games,
                games_per_second=games / elapsed if elapsed > 0 else 0.0,
                plies_per_game=stats[1] / max(1, stats[0]),
                gammons=(stats[3] + stats[4]) / max(1, stats[0]),
                error=stats[6] / 1e6 / max(1, stats[1]),
            )
        )
    return nets
