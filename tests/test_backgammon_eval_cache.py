"""The evaluation cache (games/backgammon/engine/cache.py): the inner evaluator's numbers, each board
evaluated once per plies while the table holds it, a bounded table, and a match's review through it the
same as the review of each game without it."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import numpy as np
import pytest
from taldau.games.backgammon.engine.analyse import load_evaluator
from taldau.games.backgammon.engine.cache import CachedEvaluator
from taldau.games.backgammon.records.replay import read_games
from taldau.games.backgammon.review.levels import ReviewSettings
from taldau.games.backgammon.review.match import review_game, review_match
from taldau.games.backgammon.rules import board as core
from taldau.games.backgammon.rules.board import ROLL_DICE
from taldau.games.backgammon.rules.position import PlayBuffers, Position

FOLDER = Path(__file__).resolve().parent / "data" / "backgammon" / "gnubg" / "analysis"


class Recording:
    """Evaluates each board by its bytes (a fixed pseudo-random function of them) and records what it was
    asked: the boards and plies of each call."""

    name = "recording"
    version = "1"

    def __init__(self) -> None:
        self.calls: list[tuple[np.ndarray, int]] = []

    def evaluate(self, boards: np.ndarray, plies: int = 0) -> np.ndarray:
        boards = np.asarray(boards)
        self.calls.append((boards.copy(), plies))
        out = np.empty((len(boards), 5))
        for row, board in enumerate(boards):
            seed = int.from_bytes(board.tobytes()[:8] + board.tobytes()[-8:], "little") + plies
            out[row] = np.random.default_rng([seed, len(board.tobytes()), int(board.sum())]).random(5)
        return out


def some_boards(count: int) -> np.ndarray:
    """``count`` different boards: the plays of the rolls from the start and from the plays they leave."""
    buffers = PlayBuffers()
    found: list[np.ndarray] = []
    start = Position.start().board
    for high, low in ROLL_DICE.tolist():
        plays = core.generate_plays(start, high, low, core.KEY_WORDS, *buffers.arrays())
        found.extend(board[::-1].copy() for board in buffers.boards[:plays])
    boards = np.unique(np.stack(found), axis=0)
    assert len(boards) >= count
    return np.ascontiguousarray(boards[:count])


def test_the_inner_evaluators_numbers_each_board_once() -> None:
    inner = Recording()
    cached = CachedEvaluator(inner)
    boards = some_boards(30)
    asked = np.concatenate([boards[:10], boards[:10], boards[5:20]])  # repeats within one call
    first = cached.evaluate(asked, 0)
    np.testing.assert_array_equal(first, Recording().evaluate(asked, 0))
    assert len(inner.calls) == 1 and len(inner.calls[0][0]) == 20  # each distinct board once
    assert (cached.hits, cached.misses) == (0, 20)
    again = cached.evaluate(boards, 0)  # 20 known, 10 new
    np.testing.assert_array_equal(again, Recording().evaluate(boards, 0))
    assert len(inner.calls) == 2
    np.testing.assert_array_equal(inner.calls[1][0], boards[20:])
    assert (cached.hits, cached.misses) == (20, 30)
    cached.evaluate(boards[3:7], 0)
    assert len(inner.calls) == 2  # all known: the inner evaluator is not called
    deeper = cached.evaluate(boards[:4], 2)  # another plies is another evaluation
    np.testing.assert_array_equal(deeper, Recording().evaluate(boards[:4], 2))
    assert inner.calls[-1][1] == 2 and len(inner.calls) == 3
    assert cached.name == "recording" and cached.version == "1"
    assert cached.evaluate(boards[:0], 0).shape == (0, 5)


def test_the_table_is_bounded_and_forgets_the_oldest_first() -> None:
    inner = Recording()
    cached = CachedEvaluator(inner, capacity=8)
    boards = some_boards(20)
    for start in range(0, 20, 5):
        cached.evaluate(boards[start : start + 5], 0)
        assert len(cached) <= 8
    assert len(cached) == 8
    calls = len(inner.calls)
    np.testing.assert_array_equal(cached.evaluate(boards[12:], 0), Recording().evaluate(boards[12:], 0))
    assert len(inner.calls) == calls  # the last 8 are held
    np.testing.assert_array_equal(cached.evaluate(boards[:3], 0), Recording().evaluate(boards[:3], 0))
    assert len(inner.calls) == calls + 1  # the first were forgotten, evaluated again
    big = cached.evaluate(boards, 1)  # more than the table holds in one call
    np.testing.assert_array_equal(big, Recording().evaluate(boards, 1))
    assert len(cached) == 8
    with pytest.raises(ValueError):
        CachedEvaluator(inner, capacity=0)


def test_a_batch_is_answered_as_its_boards_one_by_one() -> None:
    """Why the cache changes no number: the evaluators answer a board the same in any call."""
    evaluator = load_evaluator("own")
    boards = some_boards(40)
    for plies in (0, 1):
        together = evaluator.evaluate(boards, plies)
        alone = np.concatenate([evaluator.evaluate(boards[at : at + 1], plies) for at in range(len(boards))])
        np.testing.assert_array_equal(together, alone)
        np.testing.assert_array_equal(together, evaluator.evaluate(boards[::-1], plies)[::-1])


def test_a_matchs_review_through_the_cache_is_each_games_review_without_it() -> None:
    source = FOLDER / "galaxy-4219674.txt"
    games = list(read_games(source.read_bytes(), source.name))[:2]
    evaluator = load_evaluator("own")
    settings = ReviewSettings(plies=1)
    review = review_match(games, evaluator, settings)
    alone = [review_game(game, evaluator, settings, index) for index, game in enumerate(games)]
    assert [asdict(game) for game in review.games] == [asdict(game) for game in alone]
    assert sum(len(game.decisions) for game in alone) > 20
