"""``taldau bench speed``: rules-core and search speed, and the cost of reviewing a real game."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from taldau.base.kind import Limit
from taldau.games.togyz.chances import load_win_curve
from taldau.games.togyz.engine import Engine, EngineSettings, named_settings
from taldau.games.togyz.perft import perft
from taldau.games.togyz.position import Position
from taldau.games.togyz.replay import Game, read_games
from taldau.games.togyz.review import VERIFICATION, review_game, review_limit

# A real game of 93 plies (the archive's average is 92.6): PlayOK, 2024-12-26, 1-0 by kazan, compact form.
BENCH_GAME = "799799445492886239928859281997296897889496883958979684472919984316826398973827853859188798469"
SEARCH_PLIES = (0, 15, 30, 45, 60, 75)  # the fixed position set: these plies of BENCH_GAME
SEARCH_NODES = 1_000_000
SEARCH_DEPTH = 11  # nodes to this depth on the same set: what a change of the search's efficiency saves
PERFT_DEPTH = 7


def bench_game() -> Game:
    """BENCH_GAME replayed."""
    (game,) = read_games(BENCH_GAME.encode(), "bench")
    return game


def run_bench(
    limit: Limit | None = None, progress: Callable[[str, int, int], None] | None = None
) -> dict[str, Any]:
    """Perft nodes/s, search nodes/s on the fixed position set and the nodes to SEARCH_DEPTH there (the
    full-width search and the default one, with late-move reductions and pruning), and seconds to review
    BENCH_GAME as the batch analysis does (at ``limit``, else the review's default, with its verification).
    ``progress(step, done, total)`` is told each step's work as it goes: ``perft``, ``search`` (positions),
    ``depth`` (searches to SEARCH_DEPTH), ``review`` (plies)."""
    tell = progress or (lambda step, done, total: None)
    limit = limit or review_limit()
    tell("perft", 0, 1)
    result = perft(Position.start(), PERFT_DEPTH)
    game = bench_game()

    engine = Engine()
    engine.analyse(Position.start(), Limit(depth=2))  # load the compiled kernels before timing
    nodes, seconds = 0, 0.0
    for done, ply in enumerate(SEARCH_PLIES):
        tell("search", done, len(SEARCH_PLIES))
        engine.new_game()
        info = engine.analyse(game.positions[ply], Limit(nodes=SEARCH_NODES))
        nodes += info.nodes
        seconds += info.seconds

    depth_nodes = {}
    searches = iter(range(2 * len(SEARCH_PLIES)))
    for name, settings in (("full", named_settings("full")), ("default", EngineSettings())):
        searcher = Engine(settings)
        total = 0
        for ply in SEARCH_PLIES:
            tell("depth", next(searches), 2 * len(SEARCH_PLIES))
            total += searcher.analyse(game.positions[ply], Limit(depth=SEARCH_DEPTH)).nodes
            searcher.new_game()
        depth_nodes[name] = total

    reviewed = [0]  # the moves judged so far

    def judged(moves: int) -> None:
        reviewed[0] += moves
        tell("review", reviewed[0], game.plies)

    tell("review", 0, game.plies)
    started = time.perf_counter()
    review = review_game(
        game,
        engine,
        load_win_curve(),
        limit,
        verification=VERIFICATION,
        judged=judged,
    )
    review_seconds = time.perf_counter() - started
    depths = [decision.depth for decision in review.decisions]
    return {
        "perft": {"depth": PERFT_DEPTH, "nodes": result.nodes, "nps": round(result.nps)},
        "search": {
            "positions": len(SEARCH_PLIES),
            "nodes": nodes,
            "seconds": round(seconds, 3),
            "nps": round(nodes / seconds),
        },
        "depth_nodes": {"depth": SEARCH_DEPTH, **depth_nodes},
        "game": {
            "plies": game.plies,
            "limit": str(limit),
            "seconds": round(review_seconds, 2),
            "seconds_per_ply": round(review_seconds / game.plies, 4),
            "mean_depth": round(sum(depths) / len(depths), 1),
            "min_depth": min(depths),
        },
    }
