"""The second training stage: nets taught the engine's own deeper search.

Positions come from self-play of the current nets and from real matches (the positions before each roll)
and, where asked (``candidates``), from the plays the nets weigh against each other: for a gathered
position and one random roll, the results of the roll's best few plays by 0-ply. Those are the positions
whose order decides a play, most of them off the games' paths (no one plays the second-best play), so
training on them teaches the nets to rank alternatives, not only to value the positions good play reaches.
Each is labelled with the current evaluator's probabilities at ``label_plies`` (2-ply by default, which
plays clearly better than the 0-ply nets it is built on); the nets are then fitted to those labels by
gradient descent on the cross-entropy, a share of the positions held out to report the loss on positions
the fit never saw. Bear-offs are left out: the database answers them exactly.

Labelling is the costly part (a 2-ply evaluation is some 10,000 raw ones), so labels are written to a work
folder chunk by chunk and a stopped run resumes where it stopped.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, replace
from functools import partial
from pathlib import Path

import numpy as np
from taldau.base.archive import iter_sources
from taldau.base.files import publish
from taldau.base.jit import njit
from taldau.base.records import ReadLimits, RecordFile

from ..engine.bearoff import is_bearoff
from ..engine.model import NetPair, evaluate_nets, net_scratch, train_nets
from ..engine.own import OwnEvaluator
from ..engine.plies import evaluate0, next_best, work_memory
from ..engine.probabilities import equity, final_probabilities
from ..engine.rollout import Rollout
from ..engine.weights import save_nets
from ..records.record import ActionKind
from ..records.replay import replay_file
from ..rules.board import KEY_WORDS, generate_plays, start_board, swap_into
from .td import self_play


@dataclass(frozen=True)
class SupervisedSettings:
    """Positions from ``selfplay_games`` games and from the matches under ``matches``, labelled at
    ``label_plies``; ``epochs`` passes of gradient descent at ``rate`` falling linearly to a tenth;
    ``holdout`` of the positions kept apart to measure the fit; labels computed on ``threads`` threads.
    ``candidates`` above 0 adds, for each gathered position, the results of that many best plays (by the
    teacher's 0-ply) of one random roll; ``max_positions`` then counts them too. ``rollout_trials``
    above 0 labels by variance-reduced rollouts of that many trials of ``rollout_steps`` rolls instead
    of by the plies."""

    selfplay_games: int = 2000
    matches: tuple[str, ...] = ()
    max_positions: int = 100_000
    label_plies: int = 2
    epochs: int = 10
    rate: float = 0.02
    holdout: float = 0.1
    seed: int = 1
    chunk: int = 500
    threads: int = 1
    candidates: int = 0
    rollout_trials: int = 0
    rollout_steps: int = 6

    @property
    def rollout(self) -> Rollout | None:
        """The rollout that labels the positions, or None when the plies do."""
        if self.rollout_trials <= 0:
            return None
        return Rollout(self.rollout_trials, self.rollout_steps, self.seed)


@dataclass(frozen=True)
class Stage:
    """Progress of a supervised run: ``step`` ("label" or "fit"), done of total, and a note."""

    step: str
    done: int
    total: int
    note: str = ""


def match_positions(paths: Iterable[str], limits: ReadLimits | None = None) -> np.ndarray:
    """The boards before every roll of every game in the backgammon records under ``paths`` (files,
    folders, archives), side on roll in row MOVER; unreadable files and games are passed over."""
    boards: list[np.ndarray] = []
    for source in iter_sources(paths, limits or ReadLimits()):
        if not isinstance(source, RecordFile):
            continue
        for game in replay_file(source):
            for step in game.steps:
                if step.action.kind is ActionKind.ROLL:
                    boards.append(step.position.board)
    return np.array(boards, dtype=np.int8).reshape(-1, 2, 25)


def selfplay_positions(nets: NetPair, games: int, seed: int) -> np.ndarray:
    """Every position before a roll in ``games`` games of the nets against themselves at 0-ply."""
    keep = np.empty((games * 120, 2, 25), dtype=np.int8)
    stats = np.zeros(8, dtype=np.int64)
    work = nets.copy()
    self_play(work.arrays(), KEY_WORDS, start_board(), games, seed, 0.0, 0.0, False, stats, keep)
    return keep[: stats[7]]


def training_positions(nets: NetPair, settings: SupervisedSettings) -> np.ndarray:
    """The distinct positions to label, bear-offs and finished games left out, in a seeded random order,
    at most ``max_positions``."""
    boards = np.concatenate(
        [selfplay_positions(nets, settings.selfplay_games, settings.seed), match_positions(settings.matches)]
    )
    keep = [not is_bearoff(board) and board[0].sum() > 0 and board[1].sum() > 0 for board in boards]
    boards = np.unique(boards[np.array(keep, dtype=bool)], axis=0)
    order = np.random.default_rng(settings.seed).permutation(len(boards))
    return np.ascontiguousarray(boards[order[: settings.max_positions]])


@njit(cache=True)
def best_results(
    boards: np.ndarray, count: int, seed: int, model: tuple, work: tuple, out: np.ndarray
) -> int:
    """For each of ``boards`` (side on roll in row MOVER) and one random roll (from ``seed``), the
    results of the roll's ``count`` best plays by the 0-ply of ``model`` (all its plays when it has no
    more; the first of equal ones), each seen by the side then on roll, into ``out`` while there is room;
    returns how many were written. ``work`` is ``plies.work_memory``'s scratch."""
    np.random.seed(seed)
    plays = work[4][0]
    scores = work[13][0]
    kept = work[14][0]
    candidate = work[10][0]
    probabilities = work[11][0]
    moves, lengths, keys, slots, table = work[5][0], work[6][0], work[7][0], work[8][0], work[9]
    written = 0
    for index in range(boards.shape[0]):
        die1 = np.random.randint(1, 7)
        die2 = np.random.randint(1, 7)
        total = generate_plays(boards[index], die1, die2, work[12], plays, moves, lengths, keys, slots, table)
        for play in range(total):
            swap_into(plays[play], candidate)
            evaluate0(candidate, model, work, probabilities)
            scores[play] = -equity(probabilities)  # the other side's view turned back to the mover's
            kept[play] = False
        for _ in range(min(count, total)):
            best = next_best(scores, kept, total)
            if written == out.shape[0]:
                return written
            swap_into(plays[best], out[written])
            written += 1
    return written


def live(boards: np.ndarray) -> np.ndarray:
    """The boards of ``boards`` whose game goes on and that are not bear-offs (the database answers
    those): the positions worth a net's training."""
    scratch = np.empty(5, dtype=np.float64)
    keep = [not final_probabilities(board, scratch) and not is_bearoff(board) for board in boards]
    return boards[np.array(keep, dtype=bool)].reshape(-1, 2, 25)


def with_candidates(evaluator: OwnEvaluator, boards: np.ndarray, settings: SupervisedSettings) -> np.ndarray:
    """``boards`` (gathered positions in a seeded random order) with the results of their
    ``settings.candidates`` best plays of one random roll by ``evaluator``'s 0-ply: the first
    ``max_positions // (1 + candidates)`` positions and their candidates, finished games, bear-offs and
    repeats left out, in a seeded random order, at most ``max_positions``."""
    before = boards[: max(1, settings.max_positions // (1 + settings.candidates))]
    out = np.empty((len(before) * settings.candidates, 2, 25), dtype=np.int8)
    written = best_results(
        before, settings.candidates, settings.seed, evaluator.model(), work_memory(evaluator.hidden), out
    )
    every = np.unique(np.concatenate([before, live(out[:written])]), axis=0)
    order = np.random.default_rng(settings.seed).permutation(len(every))
    return np.ascontiguousarray(every[order[: settings.max_positions]])


def label(
    evaluator: OwnEvaluator,
    boards: np.ndarray,
    plies: int,
    work: Path,
    chunk: int,
    progress: Callable[[Stage], None] = lambda _: None,
    threads: int = 1,
    rollout: Rollout | None = None,
) -> np.ndarray:
    """The ``plies``-ply probabilities of every board (or, with ``rollout``, its rollout's, board ``i``
    taking its dice from the rollout's seed plus ``i``), chunk by chunk, each chunk kept in ``work`` and
    read back instead of recomputed when a run resumes. The chunks live in a subfolder named by a digest
    of the boards, the evaluator's version, the plies or rollout and the chunk size, so labels are only
    ever reused for exactly the work that made them."""
    teacher = f"{plies}ply" if rollout is None else f"rollout{rollout.trials}x{rollout.steps}"
    digest = hashlib.sha256(np.ascontiguousarray(boards, dtype=np.int8).tobytes())
    digest.update(f"{evaluator.version} {plies if rollout is None else rollout} {chunk}".encode())
    folder = work / f"labels-{teacher}-{digest.hexdigest()[:16]}"
    folder.mkdir(parents=True, exist_ok=True)
    labels = np.empty((len(boards), 5), dtype=np.float64)
    for start in range(0, len(boards), chunk):
        part = folder / f"{start:08d}.npy"
        stop = min(len(boards), start + chunk)
        if part.exists():
            labels[start:stop] = np.load(part)
            continue
        began = time.perf_counter()
        if rollout is not None:
            seeded = replace(rollout, seed=rollout.seed + start)
            labels[start:stop] = evaluator.rollout(boards[start:stop], seeded, threads)
        elif threads > 1:
            labels[start:stop] = evaluator.evaluate(boards[start:stop], plies, threads)
        else:
            labels[start:stop] = evaluator.evaluate(boards[start:stop], plies)
        publish(part, partial(_save_array, labels[start:stop]))
        rate = (stop - start) / max(1e-9, time.perf_counter() - began)
        progress(Stage("label", stop, len(boards), f"{rate:.1f} positions/s"))
    return labels


def _save_array(array: np.ndarray, path: Path) -> None:
    """Write ``array`` to ``path`` in numpy's ``.npy`` format (to the name given, no suffix added)."""
    with open(path, "wb") as handle:
        np.save(handle, array)


@njit(cache=True)
def fit_epoch(
    nets: tuple,
    boards: np.ndarray,
    targets: np.ndarray,
    order: np.ndarray,
    rate: float,
    learn: bool,
) -> float:
    """One pass over ``boards`` in ``order`` towards ``targets``, each board by its class's net; with
    ``learn`` False the weights are left alone. Returns the mean squared error of the outputs (before
    each step when learning, of the evaluation as the engine uses it otherwise)."""
    indices, values, features, hidden, delta, out = net_scratch(nets)
    total = 0.0
    for k in range(order.shape[0]):
        board = boards[order[k]]
        target = targets[order[k]]
        if learn:
            total += train_nets(board, target, rate, nets, indices, values, features, hidden, delta, out)
            continue
        evaluate_nets(board, nets, indices, values, features, hidden, out)
        for j in range(5):
            total += (out[j] - target[j]) ** 2
    return total / max(1, order.shape[0])


def fit(
    nets: NetPair,
    boards: np.ndarray,
    targets: np.ndarray,
    settings: SupervisedSettings,
    progress: Callable[[Stage], None] = lambda _: None,
) -> tuple[NetPair, list[tuple[float, float]]]:
    """A copy of ``nets`` fitted to ``targets``; with the (training, held-out) mean squared error before
    the first epoch and after each."""
    rng = np.random.default_rng(settings.seed)
    held = int(len(boards) * settings.holdout)
    order = rng.permutation(len(boards))
    test, train = order[:held], order[held:]
    fitted = nets.copy()
    arrays = fitted.arrays()
    history = [
        (
            fit_epoch(arrays, boards, targets, train, 0.0, False),
            fit_epoch(arrays, boards, targets, test, 0.0, False),
        )
    ]
    for epoch in range(settings.epochs):
        rate = settings.rate * (1.0 - 0.9 * epoch / max(1, settings.epochs - 1))
        rng.shuffle(train)
        fit_epoch(arrays, boards, targets, train, rate, True)
        history.append(
            (
                fit_epoch(arrays, boards, targets, train, 0.0, False),
                fit_epoch(arrays, boards, targets, test, 0.0, False),
            )
        )
        progress(Stage("fit", epoch + 1, settings.epochs, f"held-out error {history[-1][1]:.5f}"))
    return fitted, history


def run_supervised(
    evaluator: OwnEvaluator,
    settings: SupervisedSettings,
    out: Path,
    work: Path,
    progress: Callable[[Stage], None] = lambda _: None,
    teacher: OwnEvaluator | None = None,
) -> list[tuple[float, float]]:
    """The whole stage: positions, labels (resumable in ``work``), fit of ``evaluator``'s nets; the fitted
    nets are written to ``out`` with the settings and error history in their meta. Returns the error
    history. ``teacher`` (default: ``evaluator`` itself) plays the self-play games and labels the
    positions, so that labels made once by one net can train another (a later checkpoint, say)."""
    teacher = evaluator if teacher is None else teacher
    boards = training_positions(teacher.nets, settings)
    if settings.candidates > 0:
        boards = with_candidates(teacher, boards, settings)
    plies, chunk, threads = settings.label_plies, settings.chunk, settings.threads
    labels = label(teacher, boards, plies, work, chunk, progress, threads, settings.rollout)
    fitted, history = fit(evaluator.nets, boards, labels, settings, progress)
    meta = {
        "stage": "supervised",
        "settings": asdict(settings),
        "from": evaluator.version,
        "from_meta": evaluator.meta,
        "teacher": teacher.version,
        "positions": len(boards),
        "errors": history,
    }
    save_nets(out, fitted, meta)
    return history
