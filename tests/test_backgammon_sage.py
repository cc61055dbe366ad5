"""The ``sage`` evaluator (bgsage's nets behind the ``Evaluator`` protocol): the board conversion against our
rules core on random and real positions, the points of view and plies against bgsage's own calls, sane
values, and the stand-in ``own`` where bgsage cannot run (simulated: a CPU without AVX2, a missing wheel).

The tests that need bgsage skip, saying why, on a machine where it cannot load; the stand-in's tests run
everywhere."""

from __future__ import annotations

import pickle
import sys
from importlib import metadata
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from conftest import EXAMPLES, SHARED_DATA, needs_sage
from taldau.games.backgammon import ActionKind, Position, read_games
from taldau.games.backgammon.engine import sage
from taldau.games.backgammon.engine.analyse import (
    DEFAULT_ENGINE,
    ENGINES,
    Search,
    analyse,
    choose_evaluator,
    load_evaluator,
)
from taldau.games.backgammon.engine.probabilities import LOSE_GAMMON, WIN, WIN_GAMMON
from taldau.games.backgammon.rules import board as core
from taldau.games.backgammon.rules.position import ROLLS

BGLAB = SHARED_DATA / "backgammon" / "bglab"


@pytest.fixture(scope="module")
def evaluator() -> sage.SageEvaluator:
    return sage.SageEvaluator()


@pytest.fixture(scope="module")
def cpp() -> ModuleType:
    """bgsage's C++ module."""
    return sage.load_sage()


def random_positions(games: int, seed: int) -> list[tuple[Position, tuple[int, int]]]:
    """Every position before a roll, with its roll, of ``games`` games of random legal plays (seeded)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(games):
        position = Position.start()
        while position.outcome() is None:
            dice = (int(rng.integers(1, 7)), int(rng.integers(1, 7)))
            out.append((position, dice))
            plays = position.plays(dice)
            position = plays[int(rng.integers(len(plays)))].result
    return out


def real_positions(paths: list[Path]) -> list[tuple[Position, tuple[int, int]]]:
    """Every position before a roll, with the roll, of the matches in ``paths``."""
    out = []
    for path in paths:
        for game in read_games(path.read_bytes(), str(path)):
            for step in game.steps:
                if step.action.kind is ActionKind.ROLL and step.action.dice is not None:
                    out.append((step.position, step.action.dice))
    return out


BUNDLED = sorted(
    path for path in (EXAMPLES / "backgammon").iterdir() if path.suffix in (".txt", ".mat", ".sgf")
)


def our_results(position: Position, dice: tuple[int, int]) -> np.ndarray:
    """The rules core's result boards of ``dice`` (mover still in row MOVER), one per distinct play."""
    buffers, count = position._generate(dice)
    return buffers.boards[:count].copy()


def check_plays(
    cpp: ModuleType, positions: list[tuple[Position, tuple[int, int]]], every_roll: bool = False
) -> int:
    """Assert, for each position and its roll (or all 21 rolls), that every result board converts to
    bgsage's and back unchanged and that bgsage's ``possible_moves`` gives exactly our set of results;
    returns the number of dances (rolls with no legal play) met."""
    dances = 0
    for position, rolled in positions:
        before = sage.to_sage(position.board)
        assert np.array_equal(sage.from_sage(before), position.board)
        for dice in ROLLS if every_roll else (rolled,):
            ours = our_results(position, dice)
            converted = sage.to_sage(ours)
            assert np.array_equal(sage.from_sage(converted), ours)
            theirs = {tuple(board) for board in cpp.possible_moves(before.tolist(), *dice)}
            assert theirs == {tuple(board) for board in converted.tolist()}, (position, dice)
            if len(ours) == 1 and np.array_equal(ours[0], position.board):
                dances += 1  # both give the unchanged board as the one play
    return dances


# --- the board conversion ---------------------------------------------------------------------------------


@needs_sage
def test_start_and_layout_match_bgsage(cpp: ModuleType) -> None:
    """The start is bgsage's STARTING_BOARD; the mover's bar is index 25, the opponent's index 0, and the
    opponent's point p is the mover's 25 - p, negative."""
    from bgsage import STARTING_BOARD

    assert sage.to_sage(core.start_board()).tolist() == STARTING_BOARD
    board = np.zeros((2, 25), dtype=np.int8)
    board[core.MOVER, core.BAR] = 2
    board[core.OPPONENT, core.BAR] = 1
    board[core.MOVER, 5] = 13  # the mover's 6-point
    board[core.OPPONENT, 2] = 14  # the opponent's 3-point, the mover's 22-point
    expected = [1] + [0] * 24 + [2]
    expected[6] = 13
    expected[22] = -14
    assert sage.to_sage(board).tolist() == expected
    assert np.array_equal(sage.from_sage(expected), board)


@needs_sage
def test_every_play_of_random_positions_matches_bgsage(cpp: ModuleType) -> None:
    """Every legal play of every roll of positions from random games: bgsage's plays are exactly ours and
    every result board converts back unchanged, dances included."""
    positions = random_positions(games=12, seed=35)
    assert len(positions) > 1000
    dances = check_plays(cpp, positions[::5], every_roll=True)
    assert dances > 0  # a checker on the bar facing a closed or nearly closed board


@needs_sage
def test_every_play_of_the_bundled_matches_matches_bgsage(cpp: ModuleType) -> None:
    """Every roll of the bundled real matches, and every roll of a tenth of their positions."""
    positions = real_positions(BUNDLED)
    assert len(positions) == 743
    check_plays(cpp, positions)
    check_plays(cpp, positions[::10], every_roll=True)


@needs_sage
@pytest.mark.archive
@pytest.mark.slow
def test_every_play_of_real_matches_matches_bgsage(cpp: ModuleType) -> None:
    """Every roll of 235 real bglab matches (every fifth)."""
    if not BGLAB.is_dir():
        pytest.skip(f"real matches not found at {BGLAB} (they live in ../shared/data beside the checkout)")
    positions = real_positions(sorted(BGLAB.rglob("*.txt"))[::5])
    assert len(positions) > 20000
    check_plays(cpp, positions)


@needs_sage
def test_a_dance_is_the_unchanged_board_on_both_sides(cpp: ModuleType) -> None:
    """A checker on the bar facing a closed board: our one empty play and bgsage's unchanged board."""
    board = np.zeros((2, 25), dtype=np.int8)
    board[core.OPPONENT, :6] = 2  # the opponent's closed home board
    board[core.OPPONENT, 23] = 3
    board[core.MOVER, core.BAR] = 1
    board[core.MOVER, 5] = 14
    position = Position(board)
    (play,) = position.plays((6, 5))
    assert play.moves == ()
    assert check_plays(cpp, [(position, (6, 5))]) == 1


# --- points of view and plies -----------------------------------------------------------------------------


@needs_sage
def test_colour_swap_agrees_with_bgsage_flip_and_invert(
    evaluator: sage.SageEvaluator, cpp: ModuleType
) -> None:
    """Swapping the rows (the other colour's view) is bgsage's ``flip_board``, and our numbers for the side
    on roll are bgsage's own numbers for the other side's position after its play, inverted."""
    from bgsage import invert_probs

    boards = np.array([position.board for position, _ in real_positions(BUNDLED)[::15]])
    raw = cpp.BearoffStrategy(
        cpp.create_strategy(
            evaluator._weights.strategy_type,
            evaluator._weights.weight_paths_list,
            evaluator._weights.hidden_sizes_list,
        ),
        evaluator._database,
    )
    ours = evaluator.evaluate(boards, 0)
    for board, probabilities in zip(boards, ours, strict=True):
        mover_view = sage.to_sage(board).tolist()
        assert sage.to_sage(board[::-1]).tolist() == cpp.flip_board(mover_view)
        post = cpp.flip_board(mover_view)  # the side not on roll has just played
        theirs = invert_probs(list(raw.evaluate_board(post, post)["probs"]))
        assert probabilities == pytest.approx(theirs, abs=1e-6)


@needs_sage
def test_plies_zero_are_bgsage_1ply_raw_numbers(evaluator: sage.SageEvaluator) -> None:
    """Our 0 plies are bgsage's ``1ply`` (its raw nets, as its analyser gives them after a play)."""
    from bgsage import BgBotAnalyzer, invert_probs

    analyser = BgBotAnalyzer(eval_level="1ply", cubeful=False)
    boards = np.array([position.board for position, _ in real_positions(BUNDLED)[::25]])
    theirs = [
        invert_probs(analyser.post_move_analytics(board).probs.to_list())
        for board in sage.to_sage(boards[:, ::-1]).tolist()
    ]
    assert evaluator.evaluate(boards, 0) == pytest.approx(np.array(theirs), abs=1e-6)


@needs_sage
def test_one_ply_is_the_average_of_the_best_replies(evaluator: sage.SageEvaluator) -> None:
    """gnubg's numbering: 1 ply is the average over the 21 rolls of the best play at 0 plies (bgsage's
    ``2ply``), and 2 plies is bgsage's ``3ply``."""
    from bgsage import batch_post_move_evaluate, invert_probs

    position = analyse(evaluator, Position.start(), (3, 1)).best.play.result
    average = np.zeros(5)
    for dice, count in zip(core.ROLL_DICE.tolist(), core.ROLL_COUNTS.tolist(), strict=True):
        average += count * np.array(analyse(evaluator, position, tuple(dice)).best.probabilities)
    assert evaluator.evaluate(position.board[np.newaxis], 1)[0] == pytest.approx(average / 36, abs=1e-6)
    (deeper,) = batch_post_move_evaluate(
        [{"board": sage.to_sage(position.board[::-1]).tolist()}], eval_level="3ply", n_threads=1
    )
    assert evaluator.evaluate(position.board[np.newaxis], 2)[0] == pytest.approx(
        invert_probs(deeper.probs.to_list()), abs=1e-6
    )


@needs_sage
def test_sane_values(evaluator: sage.SageEvaluator) -> None:
    """The start gives the side on roll a little over half at every ply; a won race is near 1 for the
    side ahead whichever side is on roll; a finished game is its exact result."""
    start = core.start_board()[np.newaxis]
    for plies in range(3):
        (probabilities,) = evaluator.evaluate(start, plies)
        assert 0.5 < probabilities[WIN] < 0.56
        assert 0.1 < probabilities[WIN_GAMMON] < 0.2 and 0.1 < probabilities[LOSE_GAMMON] < 0.2
    race = np.zeros((2, 25), dtype=np.int8)
    race[core.MOVER, :2] = [1, 1]  # two checkers left, on the 1- and 2-points
    race[core.OPPONENT, 6:12] = [3, 3, 3, 2, 2, 2]  # fifteen checkers still to come home
    ahead_on_roll, ahead_not_on_roll = evaluator.evaluate(np.array([race, race[::-1]]), 0)
    assert ahead_on_roll[WIN] > 0.999
    assert ahead_not_on_roll[WIN] < 0.01  # the side behind, on roll
    over = np.zeros((2, 25), dtype=np.int8)
    over[core.MOVER, 0] = 15  # the side not on roll has borne everything off: a gammon
    assert evaluator.evaluate(over[np.newaxis], 2)[0].tolist() == [0, 0, 0, 1, 0]


@needs_sage
def test_same_numbers_whatever_the_batch_threads_or_process(evaluator: sage.SageEvaluator) -> None:
    """A board's numbers do not depend on the other boards of the call, on the threads, or on the process
    (the evaluator pickles as the wish for one)."""
    boards = np.array([position.board for position, _ in real_positions(BUNDLED)[::60]])
    together = evaluator.evaluate(boards, 1)
    alone = np.array([evaluator.evaluate(board[np.newaxis], 1)[0] for board in boards[::-1]])[::-1]
    assert np.array_equal(together, alone)
    assert np.array_equal(sage.SageEvaluator(threads=2).evaluate(boards, 1), together)
    again = pickle.loads(pickle.dumps(evaluator))
    assert again.threads == 1 and again.version == evaluator.version
    with pytest.raises(ValueError, match=r"plies must be 0\.\.3"):
        evaluator.evaluate(boards, 4)


@needs_sage
def test_deeper_numbers_do_not_depend_on_what_bgsage_kept(evaluator: sage.SageEvaluator) -> None:
    """bgsage keeps inner nodes of its deeper searches from call to call (its cubeful evaluation engine's
    cache): a board's numbers after other boards' calls, after its own, and after the cache is emptied are
    the same bits, so that what a review finds does not depend on what was evaluated before."""
    boards = np.array([position.board for position, _ in real_positions(BUNDLED)[::150]])
    assert len(boards) >= 3
    first = evaluator.evaluate(boards[:1], 2)
    for plies in (1, 2):
        evaluator.evaluate(boards[1:], plies)
    assert np.array_equal(evaluator.evaluate(boards[:1], 2), first)  # answered from what was kept
    evaluator._strategy(2).clear_cache()
    assert np.array_equal(evaluator.evaluate(boards[:1], 2), first)  # searched afresh
    assert np.array_equal(sage.SageEvaluator().evaluate(boards[:1], 2), first)  # by another evaluator


@needs_sage
def test_engine_registry_and_analysis(evaluator: sage.SageEvaluator) -> None:
    """``sage`` is one of the engines (the default), named with bgsage's version and weights, and its
    analysis of the opening 31 makes the 5-point."""
    assert "sage" in ENGINES and DEFAULT_ENGINE == "sage"
    choice = choose_evaluator("sage")
    assert choice.fallback is None and choice.evaluator.name == "sage"
    assert evaluator.version.startswith(f"bgsage {metadata.version('bgsage')} ")
    assert evaluator.version == choice.evaluator.version
    for plies in (0, 1):
        analysis = analyse(evaluator, Position.start(), (3, 1), Search(plies=plies))
        assert analysis.engine == "sage"
        assert analysis.best.play.text == "8/5 6/5"


# --- the stand-in where bgsage cannot run -----------------------------------------------------------------


def test_a_cpu_without_avx2_gets_own_with_the_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    """On an x86 CPU without AVX2 (or whose flags cannot be read) bgsage is not imported and ``own`` stands
    in, with one line saying why."""
    monkeypatch.setattr(sage.platform, "machine", lambda: "x86_64")
    monkeypatch.setattr(sage, "cpu_flags", lambda: frozenset({"fpu", "sse2", "avx"}))
    with pytest.raises(sage.SageUnavailable, match="AVX2"):
        sage.load_sage()
    choice = choose_evaluator("sage")
    assert choice.evaluator.name == "own"
    assert choice.fallback == (
        "bgsage needs a CPU with AVX2, which this machine's CPU lacks: using the engine own instead"
    )
    assert "\n" not in choice.fallback
    assert load_evaluator("sage").name == "own"
    monkeypatch.setattr(sage, "cpu_flags", lambda: None)
    assert "cannot be read" in (choose_evaluator("sage").fallback or "")


def test_a_platform_without_bgsage_gets_own_with_the_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    """Where bgsage's module cannot be imported (no wheel for the platform), ``own`` stands in."""
    monkeypatch.setattr(sage, "unavailable_reason", lambda: None)
    monkeypatch.setitem(sys.modules, "bgbot_cpp", None)  # import bgbot_cpp now raises ImportError
    choice = choose_evaluator("sage")
    assert choice.evaluator.name == "own"
    assert choice.fallback is not None and choice.fallback.startswith("bgsage cannot be imported")
    assert "pip install 'bgsage==" in choice.fallback


def test_other_cpus_need_no_flag_check(monkeypatch: pytest.MonkeyPatch) -> None:
    """macOS arm64 (and any non-x86 machine) is not checked for AVX2; x86 with AVX2 passes."""

    def unreadable() -> frozenset[str]:
        raise AssertionError("the flags are read only on x86")

    monkeypatch.setattr(sage.platform, "machine", lambda: "arm64")
    monkeypatch.setattr(sage, "cpu_flags", unreadable)
    assert sage.unavailable_reason() is None
    monkeypatch.setattr(sage.platform, "machine", lambda: "AMD64")
    monkeypatch.setattr(sage, "cpu_flags", lambda: frozenset({"sse2", "avx2"}))
    assert sage.unavailable_reason() is None


def test_the_cpu_flags_are_read_on_linux() -> None:
    """On Linux the flags come from /proc/cpuinfo, and say whether the CPU has AVX2."""
    if not sys.platform.startswith("linux"):
        pytest.skip("reads /proc/cpuinfo")
    flags = sage.cpu_flags()
    assert flags is not None and len(flags) > 5
    assert ("avx2" in flags) == ("avx2" in Path("/proc/cpuinfo").read_text().split())
