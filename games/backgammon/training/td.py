"""Self-play training by temporal differences, TD(lambda), as TD-Gammon learnt: the nets play both sides at
0-ply and after each game move every position's evaluation towards its lambda-return, the mix of the
evaluations that followed it and the game's result (Sutton's forward view, applied once the game is over).

Everything runs compiled: a call plays and learns from a batch of games with no Python object per position.
The dice come from numba's generator seeded by the caller, so a batch is reproducible from its seed.
"""

from __future__ import annotations

import numpy as np
from taldau.base.jit import njit

from ..engine.model import evaluate_nets, net_scratch, train_nets
from ..engine.probabilities import WIN_BACKGAMMON, WIN_GAMMON, equity, final_probabilities, flip_into
from ..rules.board import generate_plays, play_buffers, swap_into

MAX_GAME_PLIES = 1000  # a self-play game longer than this is cut off (and counted); none have come close


@njit(cache=True)
def self_play(
    nets: tuple,
    words: np.ndarray,
    start: np.ndarray,
    games: int,
    seed: int,
    lam: float,
    rate: float,
    learn: bool,
    stats: np.ndarray,
    keep: np.ndarray,
) -> None:
    """The nets (``NetPair.arrays()``, changed in place) play ``games`` games against themselves from
    ``start`` (a board, usually the starting position), learning after each one when ``learn``.
    ``stats`` (int64, 8) accumulates: games, plies, single wins, gammons, backgammons, cut-off games,
    (scaled by 1e6) the summed squared error of the updates, and the positions kept: every position
    before a roll is copied into ``keep`` (k, 2, 25) while there is room (give a (0, 2, 25) array to
    keep none)."""
    np.random.seed(seed)
    indices, values, features, hidden, delta, out = net_scratch(nets)
    flipped = np.empty(5, dtype=np.float64)
    boards, moves, lengths, keys, slots, table = play_buffers()
    history = np.empty((MAX_GAME_PLIES, 2, 25), dtype=np.int8)
    estimates = np.empty((MAX_GAME_PLIES, 5), dtype=np.float64)
    target = np.empty(5, dtype=np.float64)
    mixed = np.empty(5, dtype=np.float64)
    board = np.empty((2, 25), dtype=np.int8)
    swapped = np.empty((2, 25), dtype=np.int8)
    result = np.empty(5, dtype=np.float64)
    for _ in range(games):
        board[:] = start
        plies = 0
        finished = False
        while plies < MAX_GAME_PLIES:
            history[plies] = board
            evaluate_nets(board, nets, indices, values, features, hidden, out)
            estimates[plies] = out
            die1 = np.random.randint(1, 7)
            die2 = np.random.randint(1, 7)
            while plies == 0 and die1 == die2:  # the opening roll is never a double
                die2 = np.random.randint(1, 7)
            count = generate_plays(board, die1, die2, words, boards, moves, lengths, keys, slots, table)
            best = 0
            best_equity = -10.0
            for play in range(count):
                swap_into(boards[play], swapped)
                if not final_probabilities(swapped, out):
                    evaluate_nets(swapped, nets, indices, values, features, hidden, out)
                flip_into(out, flipped)
                value = equity(flipped)
                if value > best_equity:
                    best_equity = value
                    best = play
            swap_into(boards[best], board)
            plies += 1
            if final_probabilities(board, out):
                flip_into(out, result)  # the result from the winner's side, who played last
                finished = True
                break
        stats[0] += 1
        stats[1] += plies
        for ply in range(plies):
            if stats[7] < keep.shape[0]:
                keep[stats[7]] = history[ply]
                stats[7] += 1
        if not finished:
            stats[5] += 1
            continue
        if result[WIN_BACKGAMMON] > 0.5:
            stats[4] += 1
        elif result[WIN_GAMMON] > 0.5:
            stats[3] += 1
        else:
            stats[2] += 1
        if not learn:
            continue
        # lambda-returns from the last position back to the first; each is from the side on roll there
        target[:] = result
        for ply in range(plies - 1, -1, -1):
            if ply < plies - 1:
                for k in range(5):
                    mixed[k] = (1.0 - lam) * estimates[ply + 1, k] + lam * target[k]
                flip_into(mixed, target)
            error = train_nets(
                history[ply], target, rate, nets, indices, values, features, hidden, delta, out
            )
            stats[6] += int(error * 1e6)
