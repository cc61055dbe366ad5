"""Training the own backgammon nets (``training/train.py``, ``td.py``, ``supervised.py``): TD(lambda)
self-play reproducible from its seed and resumable from its checkpoint, the supervised fit lowering its
error on positions it trains on and on positions it never saw, and labelling resumable from its work folder
without evaluating a position twice.

Nets are tiny (8 hidden units) and runs a few games long, so that the tests stay fast; the compiled kernels
take the same array types as the real runs, so nothing is compiled twice.
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import cast

import numpy as np
import pytest
from taldau.games.backgammon.engine.analyse import Search, analyse
from taldau.games.backgammon.engine.bearoff import is_bearoff
from taldau.games.backgammon.engine.model import NetPair
from taldau.games.backgammon.engine.net import Net
from taldau.games.backgammon.engine.own import OwnEvaluator
from taldau.games.backgammon.engine.plies import work_memory
from taldau.games.backgammon.engine.probabilities import final_probabilities
from taldau.games.backgammon.engine.weights import load_nets, weights_digest
from taldau.games.backgammon.rules.position import ROLLS, Position
from taldau.games.backgammon.training.supervised import (
    Stage,
    SupervisedSettings,
    best_results,
    fit,
    fit_epoch,
    label,
    match_positions,
    run_supervised,
    selfplay_positions,
    training_positions,
    with_candidates,
)
from taldau.games.backgammon.training.train import TdProgress, TdSettings, chunk_seed, run_td

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "backgammon"
TINY = TdSettings(games=4, contact_hidden=8, race_hidden=8, chunk=2, checkpoint_every=2, seed=3)


def same_nets(first: NetPair, second: NetPair) -> bool:
    return all(np.array_equal(a, b) for a, b in zip(first.arrays(), second.arrays(), strict=True))


@pytest.fixture(scope="module")
def shipped() -> OwnEvaluator:
    return OwnEvaluator.load()


@pytest.fixture(scope="module")
def labelled(shipped: OwnEvaluator) -> tuple[np.ndarray, np.ndarray]:
    """300 distinct positions (no bear-offs, no finished games) from self-play of the shipped nets, and
    their 0-ply probabilities by the shipped evaluator: a fixed labelled set."""
    boards = selfplay_positions(shipped.nets, 12, seed=21)
    boards = np.unique(boards[[not is_bearoff(cells) for cells in boards]], axis=0)
    assert len(boards) >= 300
    boards = np.ascontiguousarray(boards[np.random.default_rng(0).permutation(len(boards))[:300]])
    return boards, shipped.evaluate(boards, 0)


# --- TD(lambda)


class Stop(Exception):
    """Raised by a progress callback to stop a run, as an interrupted process would."""


def test_td_is_reproducible_and_changes_the_weights(tmp_path: Path) -> None:
    seen: list[TdProgress] = []
    first = run_td(TINY, tmp_path / "a.npz", seen.append)
    second = run_td(TINY, tmp_path / "b.npz")
    assert same_nets(first, second)
    start = NetPair(Net.random(8, TINY.seed), Net.random(8, TINY.seed + 1))
    assert not np.array_equal(first.contact.w1, start.contact.w1)
    assert weights_digest(first) != weights_digest(start)
    assert [progress.games_done for progress in seen] == [2, 4]
    assert all(progress.games == 4 and progress.plies_per_game > 0 for progress in seen)
    # the checkpoint holds the returned nets and the progress
    stored, meta = load_nets(tmp_path / "a.npz")
    assert same_nets(stored, first)
    assert meta == {"stage": "td", "settings": asdict(TINY), "games_done": 4}
    # another seed plays other games
    other = run_td(TdSettings(**{**asdict(TINY), "seed": 4}), tmp_path / "c.npz")
    assert not same_nets(other, first)


def test_td_resumes_from_its_checkpoint_as_if_never_stopped(tmp_path: Path) -> None:
    """A run stopped after its first chunk (its checkpoint written) and started again with the same
    settings ends with exactly the weights of a run that was never stopped."""
    whole = run_td(TINY, tmp_path / "whole.npz")

    def stop_after_first_chunk(progress: TdProgress) -> None:
        if progress.games_done == TINY.chunk:
            raise Stop

    checkpoint = tmp_path / "stopped.npz"
    with pytest.raises(Stop):
        run_td(TINY, checkpoint, stop_after_first_chunk)
    _, meta = load_nets(checkpoint)
    assert meta["games_done"] == TINY.chunk
    resumed_progress: list[TdProgress] = []
    resumed = run_td(TINY, checkpoint, resumed_progress.append)
    assert [progress.games_done for progress in resumed_progress] == [4]  # only the second chunk played
    assert same_nets(resumed, whole)
    # a finished run resumed plays nothing and returns its nets
    assert same_nets(run_td(TINY, checkpoint), whole)


def test_td_stop_at_leaves_the_checkpoint_an_uninterrupted_run_passes(tmp_path: Path) -> None:
    """``stop_at`` ends the run early at a checkpoint the same command then goes on from: a teacher net
    taken from the middle of a run can be remade exactly."""
    whole = run_td(TINY, tmp_path / "whole.npz")
    halfway = run_td(TINY, tmp_path / "part.npz", stop_at=2)
    _, meta = load_nets(tmp_path / "part.npz")
    assert meta["games_done"] == 2 and weights_digest(halfway) != weights_digest(whole)
    assert weights_digest(run_td(TINY, tmp_path / "part.npz")) == weights_digest(whole)
    with pytest.raises(ValueError, match="multiple of 2"):
        run_td(TINY, tmp_path / "odd.npz", stop_at=3)


def test_td_refuses_a_checkpoint_of_other_settings(tmp_path: Path) -> None:
    checkpoint = tmp_path / "run.npz"
    run_td(TINY, checkpoint)
    for change in ({"seed": 9}, {"games": 6}, {"lam": 0.5}):
        with pytest.raises(ValueError, match=r"run\.npz"):
            run_td(TdSettings(**{**asdict(TINY), **change}), checkpoint)


def test_td_rate_and_chunk_seeds() -> None:
    settings = TdSettings(games=100, rate_start=0.1, rate_end=0.02)
    assert settings.rate(0) == pytest.approx(0.1)
    assert settings.rate(50) == pytest.approx(0.06)
    assert settings.rate(100) == pytest.approx(0.02)
    assert settings.rate(500) == pytest.approx(0.02)
    seeds = {chunk_seed(1, chunk) for chunk in range(50)} | {chunk_seed(2, chunk) for chunk in range(50)}
    assert len(seeds) == 100
    assert chunk_seed(1, 7) == chunk_seed(1, 7)


# --- supervised fit


def test_tiny_net_fit_lowers_training_and_held_out_error(labelled: tuple[np.ndarray, np.ndarray]) -> None:
    """A tiny pair of nets (8 hidden units, random weights) fitted to the shipped evaluator's 0-ply
    probabilities of 300 positions: the mean squared error falls on the 240 it trains on and on the 60
    held out."""
    boards, targets = labelled
    nets = NetPair(Net.random(8, 1), Net.random(8, 2))
    before = nets.copy()
    settings = SupervisedSettings(epochs=12, rate=0.05, holdout=0.2, seed=1)
    stages: list[Stage] = []
    fitted, history = fit(nets, boards, targets, settings, stages.append)
    assert same_nets(nets, before)  # the nets given are left alone
    assert len(history) == settings.epochs + 1
    (train_before, held_before), (train_after, held_after) = history[0], history[-1]
    assert train_after < 0.5 * train_before
    assert held_after < 0.7 * held_before
    assert [stage.done for stage in stages] == list(range(1, 13))
    assert all(stage.step == "fit" for stage in stages)
    # the fitted nets themselves, over all 300 positions, sit between their training and held-out errors
    everything = fit_epoch(fitted.arrays(), boards, targets, np.arange(len(boards)), 0.0, False)
    assert min(train_after, held_after) <= everything <= max(train_after, held_after)


# --- labelling, resumable


class CountingEvaluator:
    """The shipped evaluator, counting the boards it is asked to evaluate."""

    def __init__(self, inner: OwnEvaluator) -> None:
        self.inner = inner
        self.calls = 0
        self.boards = 0

    @property
    def version(self) -> str:
        return self.inner.version

    def evaluate(self, boards: np.ndarray, plies: int = 0) -> np.ndarray:
        self.calls += 1
        self.boards += len(boards)
        return self.inner.evaluate(boards, plies)


def test_label_resumes_from_its_work_folder(
    shipped: OwnEvaluator, labelled: tuple[np.ndarray, np.ndarray], tmp_path: Path
) -> None:
    boards = labelled[0][:10]
    counting = CountingEvaluator(shipped)
    evaluator = cast(OwnEvaluator, counting)
    first = label(evaluator, boards, 1, tmp_path, chunk=4)
    assert counting.calls == 3 and counting.boards == 10  # chunks of 4, 4, 2
    np.testing.assert_array_equal(first, shipped.evaluate(boards, 1))
    (folder,) = tmp_path.iterdir()  # one folder per set of boards, evaluator, plies and chunk size
    assert folder.name.startswith("labels-1ply-")
    assert sorted(path.name for path in folder.iterdir()) == ["00000000.npy", "00000004.npy", "00000008.npy"]
    again = label(evaluator, boards, 1, tmp_path, chunk=4)
    assert counting.calls == 3  # everything read back
    np.testing.assert_array_equal(again, first)
    # a run stopped before its second chunk was kept: only that chunk is evaluated again
    (folder / "00000004.npy").unlink()
    resumed = label(evaluator, boards, 1, tmp_path, chunk=4)
    assert counting.calls == 4 and counting.boards == 14
    np.testing.assert_array_equal(resumed, first)
    # labels of another depth are other files
    label(evaluator, boards, 0, tmp_path, chunk=4)
    assert counting.calls == 7


def test_label_does_not_return_labels_of_other_boards(
    shipped: OwnEvaluator, labelled: tuple[np.ndarray, np.ndarray], tmp_path: Path
) -> None:
    """Positions come from self-play of the current nets (``training_positions``), so a supervised run
    restarted with other nets or settings but the same work folder labels other boards: label() must then
    evaluate them (or refuse with ValueError), not hand back the first run's labels."""
    boards = labelled[0]
    label(shipped, boards[:8], 0, tmp_path, chunk=4)
    others = boards[8:16]
    try:
        labels = label(shipped, others, 0, tmp_path, chunk=4)
    except ValueError:
        return
    np.testing.assert_array_equal(labels, shipped.evaluate(others, 0))


# --- positions and the whole stage


def test_training_positions_are_distinct_and_leave_bearoffs_out(shipped: OwnEvaluator) -> None:
    settings = SupervisedSettings(selfplay_games=6, max_positions=150, seed=5)
    boards = training_positions(shipped.nets, settings)
    assert len(boards) == 150
    assert len(np.unique(boards, axis=0)) == 150
    for cells in boards:
        Position(cells)
        assert not is_bearoff(cells)
        assert cells[0].sum() > 0 and cells[1].sum() > 0
    np.testing.assert_array_equal(training_positions(shipped.nets, settings), boards)


def test_match_positions_of_a_bundled_match() -> None:
    """The boards before each roll of a real match (the bundled Galaxy match): legal boards, the first of
    each game the starting position."""
    boards = match_positions([str(EXAMPLES / "galaxy-6800849.txt")])
    assert len(boards) > 50
    for cells in boards:
        Position(cells)
    start = Position.start().board
    assert np.array_equal(boards[0], start)
    assert match_positions([str(EXAMPLES / "no-such-file.txt")]).shape == (0, 2, 25)


def test_run_supervised_writes_fitted_nets_and_resumes_its_labels(
    shipped: OwnEvaluator, tmp_path: Path
) -> None:
    settings = SupervisedSettings(
        selfplay_games=2, max_positions=60, label_plies=0, epochs=2, chunk=25, seed=2
    )
    out, work = tmp_path / "fitted.npz", tmp_path / "work"
    history = run_supervised(shipped, settings, out, work)
    assert len(history) == 3
    nets, meta = load_nets(out)
    assert meta["stage"] == "supervised"
    assert meta["from"] == shipped.version
    assert meta["positions"] == 60
    assert meta["settings"] == {**asdict(settings), "matches": []}
    assert weights_digest(nets) != weights_digest(shipped.nets)
    assert len(list(work.glob("labels-0ply-*/*.npy"))) == 3
    stages: list[Stage] = []
    assert run_supervised(shipped, settings, out, work, stages.append) == history
    assert not [stage for stage in stages if stage.step == "label"]  # labels read back, none computed
    # another net (a later checkpoint, say) taught by the same teacher reuses the teacher's labels
    student = OwnEvaluator(NetPair(Net.random(16, 1), Net.random(8, 2)), None)
    stages.clear()
    taught = run_supervised(student, settings, tmp_path / "student.npz", work, stages.append, teacher=shipped)
    assert not [stage for stage in stages if stage.step == "label"]
    assert taught[-1][0] < taught[0][0]  # the student moved towards the teacher's labels
    _, meta = load_nets(tmp_path / "student.npz")
    assert meta["teacher"] == shipped.version and meta["from"] == student.version


# --- candidate plays as training positions


def test_best_results_are_the_best_plays_of_a_roll_by_0ply(
    shipped: OwnEvaluator, labelled: tuple[np.ndarray, np.ndarray]
) -> None:
    """``best_results`` writes, for each position, the results of the 3 best plays of one random roll by
    the shipped nets' 0-ply: for every position, some roll's 3 best plays by ``engine.analyse`` at 0-ply
    (an independent path: Python play objects, batched evaluation) leave exactly those boards."""
    boards = labelled[0][:12]
    out = np.empty((36, 2, 25), dtype=np.int8)
    written = best_results(boards, 3, 9, shipped.model(), work_memory(shipped.hidden), out)
    start = 0
    for board in boards:
        position = Position(board)
        found = False
        for dice in ROLLS:
            analysis = analyse(shipped, position, dice, Search(plies=0))
            tops = [analysis.play(rank).play.result.board for rank in range(min(3, len(analysis)))]
            if start + len(tops) <= written and all(
                np.array_equal(top, out[start + k]) for k, top in enumerate(tops)
            ):
                found = True
                start += len(tops)
                break
        assert found, f"no roll's best plays leave the boards written for {position.position_id()}"
    assert start == written


def test_with_candidates_adds_distinct_live_positions(shipped: OwnEvaluator) -> None:
    settings = SupervisedSettings(selfplay_games=6, max_positions=120, seed=5, candidates=3)
    before = training_positions(shipped.nets, settings)
    boards = with_candidates(shipped, before, settings)
    assert len(np.unique(boards, axis=0)) == len(boards) <= 120
    scratch = np.empty(5)
    for cells in boards:
        Position(cells)
        assert not is_bearoff(cells) and not final_probabilities(cells, scratch)
    kept = {cells.tobytes() for cells in boards}
    # the first 30 gathered positions, then their plays' results: most of the set is new positions
    assert all(cells.tobytes() in kept for cells in before[:30])
    assert len(boards) > 60
    np.testing.assert_array_equal(with_candidates(shipped, before, settings), boards)
