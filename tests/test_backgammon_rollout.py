"""Variance-reduced truncated rollouts (``games/backgammon/engine/rollout.py``), the deeper teacher of the
supervised stage. Known answers: a one-roll rollout is the 1-ply value exactly (the luck of its roll is
taken out whatever the dice); a two-roll rollout's expectation is the 2-ply value, and with its first roll
spread over the 36 throws and the second roll's luck taken out it lands within a few thousandths of it;
a finished game is exact; threads change nothing."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from taldau.games.backgammon.engine.own import OwnEvaluator
from taldau.games.backgammon.engine.probabilities import equities
from taldau.games.backgammon.engine.rollout import Rollout
from taldau.games.backgammon.training.supervised import label, selfplay_positions


@pytest.fixture(scope="module")
def shipped() -> OwnEvaluator:
    return OwnEvaluator.load()


@pytest.fixture(scope="module")
def boards(shipped: OwnEvaluator) -> np.ndarray:
    """Eight positions before a roll from self-play of the shipped nets, early and late in the games."""
    return np.ascontiguousarray(selfplay_positions(shipped.nets, 2, seed=4)[5:85:10])


def test_one_roll_is_the_1ply_value_exactly(shipped: OwnEvaluator, boards: np.ndarray) -> None:
    for seed in (1, 2):
        rolled = shipped.rollout(boards, Rollout(trials=7, steps=1, seed=seed))
        np.testing.assert_allclose(rolled, shipped.evaluate(boards, 1), rtol=0, atol=1e-12)


def test_two_rolls_land_on_the_2ply_value(shipped: OwnEvaluator, boards: np.ndarray) -> None:
    rolled = shipped.rollout(boards, Rollout(trials=36, steps=2, seed=3))
    two_ply = shipped.evaluate(boards, 2)
    assert np.abs(rolled - two_ply).max() < 0.01
    assert np.abs(equities(rolled) - equities(two_ply)).max() < 0.01
    # and not because every value is alike: the positions differ by far more than that
    assert np.ptp(equities(two_ply)) > 0.2


def test_deeper_rollouts_are_consistent_and_reproducible(shipped: OwnEvaluator, boards: np.ndarray) -> None:
    settings = Rollout(trials=12, steps=6, seed=5)
    rolled = shipped.rollout(boards, settings)
    assert np.all(rolled >= 0.0) and np.all(rolled <= 1.0)
    assert np.all(rolled[:, 0] >= rolled[:, 1]) and np.all(rolled[:, 1] >= rolled[:, 2])
    assert np.all(1.0 - rolled[:, 0] >= rolled[:, 3]) and np.all(rolled[:, 3] >= rolled[:, 4])
    np.testing.assert_array_equal(shipped.rollout(boards, settings, threads=2), rolled)
    assert not np.array_equal(shipped.rollout(boards, Rollout(12, 6, seed=6)), rolled)


def test_a_finished_game_is_exact(shipped: OwnEvaluator) -> None:
    finished = np.zeros((1, 2, 25), dtype=np.int8)
    finished[0, 1, 5] = 15  # the side on roll still has all 15; the other has borne off all of its
    np.testing.assert_array_equal(shipped.rollout(finished, Rollout(3, 4)), [[0, 0, 0, 1, 0]])


def test_bad_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="at least one trial"):
        Rollout(trials=0)


def test_rollout_labels_are_kept_apart_from_ply_labels(
    shipped: OwnEvaluator, boards: np.ndarray, tmp_path: Path
) -> None:
    """Labels by rollout live in their own folder: they are never read back as n-ply labels, and a
    resumed run reads them back instead of rolling out again (board ``i`` seeded ``seed + i``)."""
    settings = Rollout(trials=4, steps=3, seed=9)
    rolled = label(shipped, boards, 2, tmp_path, 4, rollout=settings)
    np.testing.assert_array_equal(rolled, shipped.rollout(boards, settings))
    assert sorted(folder.name.split("-")[1] for folder in tmp_path.iterdir()) == ["rollout4x3"]
    np.testing.assert_array_equal(label(shipped, boards, 2, tmp_path, 4, rollout=settings), rolled)
    np.testing.assert_array_equal(label(shipped, boards, 1, tmp_path, 4), shipped.evaluate(boards, 1))
