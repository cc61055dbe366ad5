"""bgsage's nets (the Open Sage engine, PyPI ``bgsage``, MPL-2.0 with its weights, a pinned dependency) as an
``Evaluator``: a stronger cubeless evaluation than ours at the same plies, searched by bgsage's own C++.

Its facts, checked against the package (see the tests):

- A board is 26 ints from the view of one side, *the mover*: index p (1..24) is the mover's point p,
  positive for the mover's checkers and negative for the opponent's; index 25 is the mover's bar and
  index 0 the opponent's bar, both positive. ``to_sage`` and ``from_sage`` convert from and to the rules
  core's (2, 25) layout, with row ``MOVER`` as bgsage's mover.
- Its nets judge a position *after* a play, before the opponent rolls, and answer the five probabilities
  in gnubg's order from the side that just played. A board before the roll for the side on roll is the
  board after the other side's play, so ``evaluate`` hands bgsage each board with its rows swapped and
  turns the answer back to the side on roll.
- Its levels count the raw net as one: its ``1ply`` is gnubg's 0-ply, ``2ply`` gnubg's 1-ply, ``3ply``
  gnubg's 2-ply, ``4ply`` gnubg's 3-ply. ``plies`` here keep gnubg's numbering: plies p is its level
  p + 1. Its deeper levels pick the replies inside the search with their own move filter.
- Its raw ``evaluate_board(post, pre)`` picks the net (by game plan) from the board ``pre`` before the
  play, so one position gets different numbers depending on the play that led to it. Its batch call for
  positions after a play (``batch_evaluate_post_move``) passes the position as both, which is the one
  evaluation of a position whatever came before; that is the call used here. Its exact one-sided
  bear-off database answers bear-offs, as in its own analyses.
- Its batch calls run in C++ threads, as many as their ``n_threads`` (0: every core). That count, not the
  environment variable ``BGBOT_MULTIPLY_THREADS`` (which only its ``BgBotAnalyzer`` reads), sets them;
  an evaluator here uses ``threads`` of them, 1 by default, so that a pool of N processes runs N threads.
- Its move generator returns the unchanged board as the one "play" of a roll that cannot be played, and
  each ``cube_action`` call reloads its weights unless the analyser is kept; neither matters here: plays
  come from our rules core and its cube verdicts are not used (cube, match equity and marks stay ours).
- Its x86-64 build needs AVX2 and has no fallback (an older CPU would die on an illegal instruction), so
  ``load_sage`` checks the CPU's flags before importing it and raises ``SageUnavailable`` instead.
"""

from __future__ import annotations

import hashlib
import platform
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from importlib import metadata
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from ..rules.board import BAR, MOVER, OPPONENT, POINTS
from ..rules.cube import MatchState
from .probabilities import (
    PROBABILITIES,
    WIN,
    WIN_BACKGAMMON,
    WIN_GAMMON,
    equities,
    final_probabilities,
    flipped,
)

MAX_PLIES = 3  # its 4ply, the deepest level its batch calls offer
SAGE_ROW = 26
X86 = frozenset({"x86_64", "amd64", "i386", "i686", "x86"})
INSTALL_HINT = "install it with pip install 'bgsage==2.0.20260907'"


class SageUnavailable(RuntimeError):
    """bgsage cannot run here (a CPU without AVX2, a platform without its wheel, a broken install); the
    message says why in one line."""


def cpu_flags() -> frozenset[str] | None:
    """The CPU's feature flags in lower case (``avx2``, ...), read without importing bgsage: from
    ``/proc/cpuinfo`` on Linux, ``IsProcessorFeaturePresent`` on Windows, ``sysctl`` on macOS; None when
    they cannot be read."""
    if sys.platform.startswith("linux"):
        try:
            text = Path("/proc/cpuinfo").read_text(errors="replace")
        except OSError:
            return None
        for line in text.splitlines():
            name, _, value = line.partition(":")
            if name.strip() in ("flags", "Features"):
                return frozenset(value.lower().split())
        return None
    if sys.platform == "win32":
        import ctypes

        kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined,unused-ignore]
        present = kernel32.IsProcessorFeaturePresent(40)  # PF_AVX2_INSTRUCTIONS_AVAILABLE
        return frozenset({"avx2"} if present else set())
    if sys.platform == "darwin":
        import subprocess

        try:
            text = subprocess.run(
                ["sysctl", "-n", "machdep.cpu.features", "machdep.cpu.leaf7_features"],
                capture_output=True,
                text=True,
                timeout=10,
            ).stdout
        except (OSError, subprocess.SubprocessError):
            return None
        return frozenset(text.lower().split())
    return None


def unavailable_reason() -> str | None:
    """Why bgsage cannot be loaded on this machine before trying (an x86 CPU without AVX2, or one whose
    flags cannot be read); None when nothing stands in the way."""
    if platform.machine().lower() not in X86:
        return None  # its other builds (macOS arm64) need no check; a missing wheel shows at import
    flags = cpu_flags()
    if flags is None:
        return "bgsage needs a CPU with AVX2, and this machine's CPU flags cannot be read"
    if "avx2" not in flags:
        return "bgsage needs a CPU with AVX2, which this machine's CPU lacks"
    return None


def load_sage() -> ModuleType:
    """bgsage's C++ module ``bgbot_cpp``, after checking that this CPU can run it; raises
    ``SageUnavailable`` with the reason when it cannot be loaded."""
    reason = unavailable_reason()
    if reason is not None:
        raise SageUnavailable(reason)
    try:
        import bgbot_cpp  # type: ignore[import-not-found,unused-ignore]
        import bgsage  # noqa: F401  # type: ignore[import-not-found,unused-ignore]
    except ImportError as error:
        raise SageUnavailable(f"bgsage cannot be imported ({error}): {INSTALL_HINT}") from None
    return bgbot_cpp


def sage_available() -> bool:
    """Whether bgsage can be loaded here."""
    try:
        load_sage()
    except SageUnavailable:
        return False
    return True


def to_sage(boards: np.ndarray) -> np.ndarray:
    """bgsage's boards (n, 26) of rules-core boards (n, 2, 25) (or one (2, 25) board: one (26,) row), from
    the view of row ``MOVER``: its point i + 1 holds ``boards[:, MOVER, i]`` and minus the opponent's
    checkers on the opponent's point 24 - i."""
    boards = np.asarray(boards)
    single = boards.ndim == 2
    boards = boards.reshape(-1, 2, BAR + 1).astype(np.int64)
    out = np.zeros((boards.shape[0], SAGE_ROW), dtype=np.int64)
    out[:, 1 : POINTS + 1] = boards[:, MOVER, :POINTS] - boards[:, OPPONENT, POINTS - 1 :: -1]
    out[:, SAGE_ROW - 1] = boards[:, MOVER, BAR]
    out[:, 0] = boards[:, OPPONENT, BAR]
    return out[0] if single else out


def from_sage(boards: np.ndarray | list) -> np.ndarray:
    """The rules core's boards (n, 2, 25) ``int8`` of bgsage's (n, 26) (or one board of 26), its mover in
    row ``MOVER``: the inverse of ``to_sage``."""
    boards = np.asarray(boards, dtype=np.int64)
    single = boards.ndim == 1
    boards = boards.reshape(-1, SAGE_ROW)
    out = np.zeros((boards.shape[0], 2, BAR + 1), dtype=np.int8)
    points = boards[:, 1 : POINTS + 1]
    out[:, MOVER, :POINTS] = np.maximum(points, 0)
    out[:, OPPONENT, :POINTS] = np.maximum(-points, 0)[:, ::-1]
    out[:, MOVER, BAR] = boards[:, SAGE_ROW - 1]
    out[:, OPPONENT, BAR] = boards[:, 0]
    return out[0] if single else out


def consistent(probabilities: np.ndarray) -> np.ndarray:
    """Rows of probabilities with bgsage's own clamp (its ``Probabilities``): gammons at most wins (or
    losses), backgammons at most gammons; the win probability is left as it is."""
    out = np.array(probabilities, dtype=np.float64)
    win = out[:, WIN]
    out[:, WIN_GAMMON] = np.minimum(out[:, WIN_GAMMON], win)
    out[:, WIN_BACKGAMMON] = np.minimum(out[:, WIN_BACKGAMMON], out[:, WIN_GAMMON])
    out[:, 3] = np.minimum(out[:, 3], 1.0 - win)
    out[:, 4] = np.minimum(out[:, 4], out[:, 3])
    return out


class SageEvaluator:
    """bgsage's evaluation of positions before the roll, for the side on roll (the ``Evaluator`` protocol),
    at gnubg's plies 0..``MAX_PLIES``, each call one batch on ``threads`` C++ threads.

    A board whose game is over (the side not on roll has borne off every checker) gets the exact result
    from ``final_probabilities`` without asking bgsage. Construction loads bgsage's production nets and
    bear-off database (the deeper levels on first use) and raises ``SageUnavailable`` when bgsage cannot
    run here. Every call answers the same numbers for the same boards, whatever earlier calls evaluated:
    bgsage's deeper levels go through its cubeful evaluation engine, whose per-thread cache of inner nodes
    is kept from call to call but keyed by the whole board (checked on each hit), the plies, the cube and
    the nets, so that a hit is the number a fresh search finds, to the bit (``tests/test_backgammon_sage.py``;
    keeping it saves nothing measurable either: BENCHMARKS.md, issue 57, sixth session).
    """

    name = "sage"

    def __init__(self, threads: int = 1) -> None:
        if threads < 1:
            raise ValueError(f"threads must be 1 or more, not {threads}")
        self.threads = threads
        self._cpp = load_sage()
        from bgsage.weights import (  # type: ignore[import-not-found,unused-ignore]
            bearoff_db_path,
            default_weights,
        )

        self._weights = default_weights()
        self._database = self._cpp.BearoffDB()
        database = bearoff_db_path()
        if database is None or not self._database.load(database):
            raise SageUnavailable(f"bgsage's bear-off database cannot be loaded: {INSTALL_HINT}")
        weights = self._weights
        raw = self._cpp.create_strategy(
            weights.strategy_type, weights.weight_paths_list, weights.hidden_sizes_list
        )
        self._strategies: dict[int, Any] = {0: self._cpp.BearoffStrategy(raw, self._database)}

    def _strategy(self, plies: int) -> Any:
        """The C++ strategy of gnubg's ``plies`` (its level plies + 1), made on first use."""
        if plies not in self._strategies:
            weights = self._weights
            strategy = self._cpp.create_multipy(
                weights.strategy_type,
                weights.weight_paths_list,
                weights.hidden_sizes_list,
                n_plies=plies + 1,
                parallel_evaluate=False,
                parallel_threads=0,
            )
            self._cpp.multipy_set_bearoff_db(strategy, self._database)
            self._strategies[plies] = strategy
        return self._strategies[plies]

    @cached_property
    def version(self) -> str:
        """``bgsage <version> <model> weights <digest>``: the package's version, its production model and
        a digest of every weights file and the bear-off database it loads."""
        from bgsage.weights import (  # type: ignore[import-not-found,unused-ignore]
            PRODUCTION_MODEL,
            bearoff_db_path,
        )

        digest = hashlib.sha256()
        for path in sorted({*self._weights.weight_paths_list, bearoff_db_path()}):
            digest.update(Path(path).name.encode())
            digest.update(Path(path).read_bytes())
        return f"bgsage {metadata.version('bgsage')} {PRODUCTION_MODEL} weights {digest.hexdigest()[:8]}"

    def evaluate(self, boards: np.ndarray, plies: int = 0) -> np.ndarray:
        """The probabilities of each (2, 25) board of ``boards`` at ``plies`` (0..MAX_PLIES, gnubg's
        numbering), from the side on roll (see ``Evaluator``)."""
        if not 0 <= plies <= MAX_PLIES:
            raise ValueError(f"plies must be 0..{MAX_PLIES} for bgsage, not {plies}")
        boards = np.asarray(boards).reshape(-1, 2, BAR + 1)
        out = np.empty((boards.shape[0], 5), dtype=np.float64)
        finished = boards[:, OPPONENT].sum(axis=1) == 0
        for row in np.flatnonzero(finished):
            final_probabilities(boards[row], out[row])
        going = np.flatnonzero(~finished)
        if len(going):
            # the side not on roll has just played: bgsage's mover, its answer from that side
            rows = to_sage(boards[going, ::-1]).tolist()
            strategy = self._strategy(plies)
            if plies == 0 and self.threads == 1:
                # the raw nets one board at a time, the position as both boards as the batch call passes
                # it: the batch call's numbers at two thirds of its cost (no tuples, no dicts of results)
                evaluate = strategy.evaluate_board
                found = [evaluate(row, row)["probs"] for row in rows]
            else:
                centered = self._cpp.CubeOwner.CENTERED
                positions = [(row, centered) for row in rows]
                results = self._cpp.batch_evaluate_post_move(positions, strategy, self.threads, jacoby=False)
                found = [result["probs"] for result in results]
            out[going] = flipped(consistent(np.array(found)))
        return out

    def __reduce__(self) -> tuple:
        """Pickled as the wish for one: another process loads its own nets."""
        return (SageEvaluator, (self.threads,))

    def __repr__(self) -> str:
        return f"SageEvaluator({self.version!r}, threads={self.threads})"


# Rollouts, bgsage's: a user's way to settle a disputed play, as gnubg's and XG's rollouts are.

Progress = Callable[[int, int], None]  # told (done, total) trials of a rollout
DEFAULT_TRIALS = 1296  # gnubg's and bgsage's default: 36 x 36, the first two rolls stratified


@dataclass(frozen=True)
class RolloutSettings:
    """A rollout's settings: ``trials`` games per position, the dice from ``seed``, on ``threads`` C++
    threads (the numbers do not depend on the threads); ``truncation``: the rolls each trial plays before
    it stops at the raw evaluation (0: every trial plays to the end of the game). Variance reduction (the
    luck of every roll taken out) is always on: it costs about 20 times a plain trial and cuts the variance
    about 50 times (measured on a middle game, BENCHMARKS.md).

    ``batches``: the batched rollouts (``SageRollout.after_play_cubeful``, ``cube_decision``,
    ``after_play_batches``) play their trials in that many batches of equal size, on seeds ``seed``,
    ``seed + 1``, ...: the batches' results measure the standard error of a difference between positions
    rolled out on the same dice (the plays of a roll, No double and Double/take), which each position's own
    standard error overstates. A batch of a multiple of 36 trials keeps the first roll exactly stratified."""

    trials: int = DEFAULT_TRIALS
    seed: int = 42
    threads: int = 1
    truncation: int = 0
    batches: int = 1

    def __post_init__(self) -> None:
        if self.trials < 1 or self.threads < 1:
            raise ValueError(f"a rollout needs at least one trial on one thread, not {self}")
        if self.batches < 1 or self.trials % self.batches:
            raise ValueError(f"{self.trials} trials do not split into {self.batches} equal batches")
        if self.truncation < 0:
            raise ValueError(f"truncation must be 0 (none) or more rolls, not {self.truncation}")

    def __str__(self) -> str:
        cut = f", truncated at {self.truncation}" if self.truncation else ""
        return f"rollout of {self.trials} trials{cut}, seed {self.seed}"

    @property
    def label(self) -> str:
        """How a decision settled by this rollout reads, as gnubg's and XG's users read it:
        ``rollout, 1296 trials`` (``, truncated at 7`` when truncated)."""
        cut = f", truncated at {self.truncation}" if self.truncation else ""
        return f"rollout, {self.trials} trials{cut}"

    def to_json(self) -> dict[str, Any]:
        return {
            "trials": self.trials,
            "seed": self.seed,
            "variance_reduction": True,
            "truncation": self.truncation or None,
        }


@dataclass(frozen=True)
class RolloutResult:
    """A position rolled out: the five probabilities and the cubeless equity from one side (the side on
    roll before a roll, the side that played after a play), each with its standard error (``errors``,
    ``equity_error``); ``exact`` when the game is over (the result, errors 0)."""

    probabilities: tuple[float, ...]
    errors: tuple[float, ...]
    equity: float
    equity_error: float
    trials: int
    exact: bool = False

    def flipped(self) -> RolloutResult:
        """The same result from the other side."""
        order = [0, 3, 4, 1, 2]  # its win, win gammon, win backgammon, lose gammon, lose backgammon
        probabilities = flipped(np.array([self.probabilities]))[0]
        return RolloutResult(
            tuple(float(p) for p in probabilities),
            tuple(self.errors[k] for k in order),
            -self.equity,
            self.equity_error,
            self.trials,
            self.exact,
        )

    def to_json(self) -> dict[str, Any]:
        names = PROBABILITIES
        return {
            "equity": round(self.equity, 6),
            "equity_se": round(self.equity_error, 6),
            "probabilities": {name: round(p, 6) for name, p in zip(names, self.probabilities, strict=True)},
            "standard_errors": {name: round(e, 6) for name, e in zip(names, self.errors, strict=True)},
            "trials": self.trials,
            "exact": self.exact,
        }


class SageRollout:
    """bgsage's rollouts of positions: every trial a game played to the end (or ``truncation`` rolls),
    its checker plays chosen by bgsage's raw nets (gnubg's 0-ply), its bear-offs by the exact database,
    with variance reduction (the luck of every roll taken out, as gnubg's rollouts do) and the first rolls
    stratified. Every position of a call is rolled out on the same dice (the seed set again before each), so
    the plays of one roll are compared on common dice, and the same settings give the same numbers on any
    machine.

    Our own rollouts (``engine.rollout``, truncated, for training labels) report no standard errors and run
    our nets only: a user's rollout is bgsage's. Raises ``SageUnavailable`` where bgsage cannot run."""

    name = "sage"

    def __init__(self, settings: RolloutSettings | None = None) -> None:
        self.settings = settings or RolloutSettings()
        self._cpp = load_sage()
        from bgsage.weights import (  # type: ignore[import-not-found,unused-ignore]
            bearoff_db_path,
            default_weights,
        )

        weights = default_weights()
        database = self._cpp.BearoffDB()
        path = bearoff_db_path()
        if path is None or not database.load(path):
            raise SageUnavailable(f"bgsage's bear-off database cannot be loaded: {INSTALL_HINT}")
        self._database = database
        self._strategy = self._cpp.create_rollout(
            weights.strategy_type,
            weights.weight_paths_list,
            weights.hidden_sizes_list,
            n_trials=self.settings.trials // self.settings.batches,
            truncation_depth=self.settings.truncation,
            n_threads=self.settings.threads,
            seed=self.settings.seed,
            enable_vr=True,
        )
        self._cpp.rollout_set_bearoff_db(self._strategy, database)

    def _mover(self, board: np.ndarray, progress: Progress | None = None) -> RolloutResult:
        """The rollout of ``board`` (2, 25) left by a play of row ``MOVER``, from that side; ``progress(done,
        total)`` told the trials played as they finish (bgsage calls it after each trial)."""
        if self.settings.batches != 1:
            raise ValueError("a cubeless rollout plays its trials in one batch")
        won = _won(board)
        return won if won is not None else self._batch(to_sage(board).tolist(), self.settings.seed, progress)

    def _batch(self, position: list[int], seed: int, progress: Progress | None = None) -> RolloutResult:
        """One batch of trials (``trials / batches``) of bgsage's ``position`` left by a play, on ``seed``,
        from the side that played."""
        self._strategy.set_seed(seed)
        result = self._strategy.evaluate_board(position, position, progress=progress)
        probabilities = consistent(np.array([result["probs"]], dtype=np.float64))
        return RolloutResult(
            tuple(float(p) for p in probabilities[0]),
            tuple(float(e) for e in result["prob_std_errors"]),
            float(equities(probabilities)[0]),
            float(result["std_error"]),
            self.settings.trials // self.settings.batches,
        )

    def after_play(self, board: np.ndarray, progress: Progress | None = None) -> RolloutResult:
        """The rollout of the board (2, 25) a play leaves, its player still in row ``MOVER``, from the side
        that played; ``progress(done, total)`` told the trials played (none for a game already over)."""
        return self._mover(np.asarray(board), progress)

    def before_roll(self, board: np.ndarray, progress: Progress | None = None) -> RolloutResult:
        """The rollout of a position before the roll (2, 25), side on roll in row ``MOVER``, from that side:
        the other side has just played; ``progress`` as ``after_play`` tells it."""
        board = np.asarray(board)
        out = np.zeros(5, dtype=np.float64)
        if final_probabilities(board, out):
            return RolloutResult(
                tuple(float(p) for p in out), (0.0,) * 5, float(equities(out[np.newaxis])[0]), 0.0, 0, True
            )
        return self._mover(np.ascontiguousarray(board[::-1]), progress).flipped()

    def after_play_batches(self, board: np.ndarray) -> tuple[RolloutResult, ...]:
        """The cubeless rollout of the board (2, 25) a play leaves (its player still in row ``MOVER``), from
        the side that played, batch by batch (``RolloutSettings.batches``, on seeds ``seed``, ``seed + 1``,
        ...): the batches' spread measures the error of a difference between plays rolled out on the same
        dice. A game the play has won is its exact result, once per batch."""
        won = _won(np.asarray(board))
        if won is not None:
            return (won,) * self.settings.batches
        position = to_sage(np.asarray(board)).tolist()
        settings = self.settings
        return tuple(self._batch(position, settings.seed + batch) for batch in range(settings.batches))

    def after_play_cubeful(
        self, board: np.ndarray, state: MatchState, player: int, progress: Progress | None = None
    ) -> CubefulRollout | None:
        """The cubeful rollout of the board (2, 25) a play of ``player`` leaves (his checkers still in row
        ``MOVER``), in the match's context ``state`` (score, cube, Crawford; the cube before the opponent's
        turn, beavers not valued, as gnubg's analysis values them): his cubeful equity (EMG) with the
        opponent's best cube action at the start of every turn of every trial, each player doubling,
        taking and passing as bgsage's cube judges at 0-ply. None for a game the play has just won: the
        result needs no rollout. ``progress(done, total)`` told the trials played, of all batches."""
        board = np.asarray(board)
        if _won(board) is not None:
            return None
        position = to_sage(board).tolist()
        size = self.settings.trials // self.settings.batches
        results = []
        for batch in range(self.settings.batches):
            self._strategy.set_seed(self.settings.seed + batch)
            told = None if progress is None else _offset(progress, batch * size, self.settings.trials)
            results.append(
                self._strategy.cubeful_evaluate_board(
                    position, position, **self._cube(state, player), progress=told
                )
            )
        probabilities = consistent(np.array([result["probs"] for result in results], dtype=np.float64))
        errors = np.array([result["prob_std_errors"] for result in results], dtype=np.float64)
        return CubefulRollout(
            tuple(float(result["cubeful_equity"]) for result in results),
            tuple(float(result["cubeful_se"]) for result in results),
            tuple(float(p) for p in probabilities.mean(axis=0)),
            self.settings.trials,
            tuple(float(e) for e in np.sqrt(np.square(errors).sum(axis=0)) / len(results)),
        )

    def cube_decision(self, board: np.ndarray, state: MatchState, roller: int) -> CubeRollout:
        """The cubeful rollouts of No double and Double/take of ``roller``, on roll before his roll with the
        board (2, 25) (his checkers in row ``MOVER``), in the match's context ``state``: his equities (EMG,
        Double/take at the doubled stake per unit of the current cube) batch by batch, and his cubeless
        probabilities before the roll. Both are rolled out on the same dice."""
        position = to_sage(np.asarray(board)).tolist()
        results = []
        for batch in range(self.settings.batches):
            self._strategy.set_seed(self.settings.seed + batch)
            results.append(self._strategy.cube_decision(position, **self._cube(state, roller)))
        probabilities = consistent(np.array([result["probs"] for result in results], dtype=np.float64))
        return CubeRollout(
            CubefulRollout(
                tuple(float(result["equity_nd"]) for result in results),
                tuple(float(result["equity_nd_se"]) for result in results),
                (),
                self.settings.trials,
            ),
            CubefulRollout(
                tuple(float(result["equity_dt"]) for result in results),
                tuple(float(result["equity_dt_se"]) for result in results),
                (),
                self.settings.trials,
            ),
            tuple(float(p) for p in probabilities.mean(axis=0)),
        )

    def _cube(self, state: MatchState, player: int) -> dict[str, Any]:
        """bgsage's words for the cube and score as ``player`` sees them (beavers off)."""
        owners = self._cpp.CubeOwner
        if state.cube_owner is None:
            owner = owners.CENTERED
        else:
            owner = owners.PLAYER if state.cube_owner == player else owners.OPPONENT
        rules = state.rules
        away = (
            (0, 0)
            if rules.money
            else (rules.length - state.score[player], rules.length - state.score[1 - player])
        )
        return {
            "cube_value": state.cube,
            "owner": owner,
            "away1": away[0],
            "away2": away[1],
            "is_crawford": state.crawford_game,
            "jacoby": rules.money and rules.jacoby,
            "beaver": False,
            "max_cube_value": rules.cube_limit,
        }


def _offset(progress: Progress, done: int, total: int) -> Progress:
    """``progress`` told a batch's trials as a share of all the batches': ``done`` before it, of ``total``."""
    return lambda trials, _: progress(done + trials, total)


def _won(board: np.ndarray) -> RolloutResult | None:
    """The exact result, from the side that played, of the board (2, 25) a play leaves (its player in row
    ``MOVER``) where that play has borne off his last checker; None while the game goes on."""
    out = np.zeros(5, dtype=np.float64)
    if not final_probabilities(np.ascontiguousarray(board[::-1]), out):
        return None
    probabilities = flipped(out[np.newaxis])[0]
    return RolloutResult(
        tuple(float(p) for p in probabilities),
        (0.0,) * 5,
        float(equities(probabilities[np.newaxis])[0]),
        0.0,
        0,
        True,
    )


@dataclass(frozen=True)
class CubefulRollout:
    """A cubeful value rolled out in batches (``RolloutSettings.batches``): each batch's value (EMG) and
    its standard error as bgsage measures it, the cubeless ``probabilities`` from the same trials (the
    player's after his play; empty where not asked), the ``trials`` of all batches, and the standard
    errors of the probabilities over all trials (``standard_errors``; empty where not measured)."""

    values: tuple[float, ...]
    errors: tuple[float, ...]
    probabilities: tuple[float, ...]
    trials: int
    standard_errors: tuple[float, ...] = ()

    @property
    def equity(self) -> float:
        """The value over all trials (the batches' mean)."""
        return float(np.mean(self.values))

    @property
    def error(self) -> float:
        """Its standard error, from the batches' own errors."""
        return float(np.sqrt(np.sum(np.square(self.errors)))) / len(self.errors)

    def error_of_difference(self, other: CubefulRollout | None) -> float:
        """The standard error of this value minus ``other`` (None: an exact value) rolled out on the same
        dice: the spread of the batches' differences where there are two or more batches; else the two
        errors taken as independent, an upper bound."""
        if other is None:
            return self.error
        if len(self.values) < 2:
            return float(np.hypot(self.error, other.error))
        differences = np.subtract(self.values, other.values)
        return float(np.std(differences, ddof=1) / np.sqrt(len(differences)))


@dataclass(frozen=True)
class CubeRollout:
    """A cube decision rolled out: the roller's No double and Double/take (EMG), each a ``CubefulRollout``
    on the same dice, and his cubeless probabilities before the roll."""

    no_double: CubefulRollout
    double_take: CubefulRollout
    probabilities: tuple[float, ...]
