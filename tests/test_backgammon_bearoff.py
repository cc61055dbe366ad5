"""The one-sided bear-off database: its index, the plays it considers, its distributions against answers
worked out by hand and against an independent exact solver over the rules core's plays, the two-sided race
probabilities, and the file it is kept in.

Home boards are written as {point: checkers} maps, points 1..6 counted from the side's own home board;
checkers not placed are borne off. Rolls are 36 equally likely ordered pairs: a non-double such as 6-5
comes 2 ways in 36, a double once.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Mapping
from fractions import Fraction
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from taldau.games.backgammon import Position
from taldau.games.backgammon.engine import bearoff
from taldau.games.backgammon.engine.bearoff import (
    MAX_ROLLS,
    POSITIONS,
    BearoffDatabase,
    bearoff_index,
    bearoff_probabilities,
    bearoff_row,
    is_bearoff,
    load_bearoff_database,
)
from taldau.games.backgammon.engine.probabilities import PROBABILITIES

Counts = tuple[int, ...]  # checkers on points 1..6
ROLLS = [(high, low) for high in range(1, 7) for low in range(1, high + 1)]
SMALL = 4  # the exact solver covers every home board of up to this many checkers (210 boards)


def weight(dice: tuple[int, int]) -> Fraction:
    return Fraction(1 if dice[0] == dice[1] else 2, 36)


def counts_of(points: Mapping[int, int]) -> Counts:
    counts = [0] * 6
    for point, checkers in points.items():
        counts[point - 1] = checkers
    return tuple(counts)


def row(points: Mapping[int, int]) -> np.ndarray:
    """The rules core's 25-entry row of a home board."""
    cells = np.zeros(25, dtype=np.int8)
    cells[:6] = counts_of(points)
    return cells


def board(mover: Mapping[int, int], opponent: Mapping[int, int]) -> np.ndarray:
    """A bear-off board: row 1 the side on roll, row 0 the other side, each on its own home points."""
    return np.stack([row(opponent), row(mover)])


def index(points: Mapping[int, int]) -> int:
    return int(bearoff_index(row(points)))


def home_boards(most: int) -> list[Counts]:
    """Every home board of 0..``most`` checkers."""
    found = []
    for counts in itertools.product(range(most + 1), repeat=6):
        if sum(counts) <= most:
            found.append(counts)
    return found


@pytest.fixture(scope="module")
def database(tmp_path_factory: pytest.TempPathFactory) -> BearoffDatabase:
    return load_bearoff_database(tmp_path_factory.mktemp("bearoff"))


def distribution(database: BearoffDatabase, points: Mapping[int, int], first: bool = False) -> list[float]:
    """The distribution of a home board up to its last roll with any probability."""
    values = (database.first if first else database.off)[index(points)]
    last = int(np.flatnonzero(values)[-1])
    return values[: last + 1].tolist()


# --- the index


def test_index_numbers_every_home_board_once_and_round_trips() -> None:
    boards = home_boards(15)
    assert len(boards) == POSITIONS == 54_264
    indices = {int(bearoff_index(np.array(counts, dtype=np.int8))) for counts in boards}
    assert indices == set(range(POSITIONS))
    for i in range(POSITIONS):
        assert bearoff_index(bearoff_row(i)) == i
    assert index({}) == 0
    assert index({6: 15}) == POSITIONS - 1
    assert bearoff_row(POSITIONS - 1).tolist() == [0] * 5 + [15] + [0] * 19
    with pytest.raises(ValueError):
        bearoff_row(POSITIONS)


def test_index_reads_only_the_home_points() -> None:
    cells = row({1: 2, 4: 3})
    cells[12] = 5  # a checker far away and one on the bar are not part of the home board's index
    cells[24] = 1
    assert bearoff_index(cells) == index({1: 2, 4: 3})


# --- the plays of one roll, against the rules core


def rules_core_results(counts: Counts, dice: tuple[int, int]) -> set[tuple[int, bool]]:
    """(index, bore off) of every board the rules core's legal plays leave, the other side's 15 checkers
    waiting on its own ace point (the mover's 24-point), out of the way."""
    cells = np.zeros((2, 25), dtype=np.int8)
    cells[1, :6] = counts
    cells[0, 0] = 15
    found = set()
    for play in Position(cells).plays(dice):
        mover_after = play.result.board[0]  # the result is seen from the next player: the mover is row 0
        found.add((int(bearoff_index(mover_after)), int(mover_after.sum()) < sum(counts)))
    return found


def compact_results(counts: Counts, dice: tuple[int, int]) -> set[tuple[int, bool]]:
    results = np.empty(bearoff.MAX_RESULTS, dtype=np.int64)
    bore = np.empty(bearoff.MAX_RESULTS, dtype=np.bool_)
    work = np.array(counts, dtype=np.int64)
    count = bearoff.roll_results(work, dice[0], dice[1], results, bore)
    assert work.tolist() == list(counts), "roll_results must leave the board as it found it"
    return set(zip(results[:count].tolist(), bore[:count].tolist(), strict=True))


def test_roll_results_are_the_rules_cores_plays() -> None:
    rng = np.random.default_rng(10)
    full = [tuple(int(c) for c in rng.multinomial(15, [1 / 6] * 6)) for _ in range(40)]
    for counts in [c for c in home_boards(SMALL) if sum(c) > 0] + full:
        for dice in ROLLS:
            expected = rules_core_results(counts, dice)
            assert compact_results(counts, dice) == expected, (counts, dice)
            here = index(dict(enumerate(counts, start=1)))
            assert all(result < here for result, _ in expected), "a play must lower the index"


# --- distributions worked out by hand


def test_one_checker_on_the_ace_point_is_off_with_the_first_roll(database: BearoffDatabase) -> None:
    # every die bears off a checker from the ace point
    assert distribution(database, {1: 1}) == pytest.approx([0.0, 1.0], abs=1e-15)
    assert distribution(database, {1: 1}, first=True) == pytest.approx([0.0, 1.0], abs=1e-15)
    assert database.mean_off[index({1: 1})] == pytest.approx(1.0, abs=1e-15)


def test_nothing_left_is_off_after_no_roll(database: BearoffDatabase) -> None:
    assert distribution(database, {}) == [1.0]
    assert distribution(database, {}, first=True) == [1.0]


def test_one_checker_on_the_six_point(database: BearoffDatabase) -> None:
    # Off in one roll when the dice reach 6 pips: a non-double a-b moves a then bears off with b (exact
    # or higher from the highest point) whenever a + b >= 6, and a double d moves it 4d >= 6 pips for
    # d >= 2. Failing: 2-1, 3-1, 4-1, 3-2 (2/36 each) and 1-1 (1/36), 9/36 = 1/4; each leaves the checker
    # on the 3-, 2- or 1-point, which every roll (at least 3 pips) bears off.
    assert distribution(database, {6: 1}) == pytest.approx([0.0, 0.75, 0.25], abs=1e-15)
    assert database.mean_off[index({6: 1})] == pytest.approx(1.25, abs=1e-15)


def test_two_checkers_on_the_six_point(database: BearoffDatabase) -> None:
    # Both off in one roll: a non-double gives one die to each checker, and only a 6 bears off from the
    # 6-point while the other checker still stands there, so no non-double (6-6 is a double). Doubles
    # need every checker's moves within four dice: 6-6 (one die each), 5-5 (6/1 6/1 1/off 1/off), 4-4
    # (6/2 6/2 2/off 2/off), 3-3 (6/3/off twice); 2-2 needs three dice per checker and 1-1 six. 4/36.
    assert database.off[index({6: 2}), 1] == pytest.approx(4 / 36, abs=1e-15)
    assert database.off[index({6: 2}), 0] == 0.0


def test_fifteen_checkers_on_the_ace_point(database: BearoffDatabase) -> None:
    # Every die bears off one checker and there is no choice: a non-double takes 2 off (30/36), a double
    # 4 (6/36). The distribution of rolls until 15 are off, by the number of checkers left:
    @cache
    def rolls(left: int) -> tuple[Fraction, ...]:
        if left <= 0:
            return (Fraction(1),)
        after = [(Fraction(30, 36), rolls(left - 2)), (Fraction(6, 36), rolls(left - 4))]
        out = [Fraction(0)] * (1 + max(len(d) for _, d in after))
        for p, d in after:
            for r, q in enumerate(d):
                out[r + 1] += p * q
        return tuple(out)

    expected = [float(p) for p in rolls(15)]
    assert len(expected) - 1 == 8  # seven non-doubles and one more take 15 off in 8 rolls at most
    assert expected[4] == pytest.approx(float(Fraction(6, 36) ** 4))  # four doubles: 16 >= 15
    assert distribution(database, {1: 15}) == pytest.approx(expected, abs=1e-14)
    # the first checker always comes off with the first roll
    assert distribution(database, {1: 15}, first=True) == pytest.approx([0.0, 1.0], abs=1e-15)


def test_first_checker_off_from_fifteen_on_the_six_point(database: BearoffDatabase) -> None:
    # With 14 others on the 6-point, a checker leaves only from the 6-point with an exact 6 or after
    # moving down to be borne off exactly: any roll with a 6 (11/36), 5-1 and 4-2 (4/36: 6/1/off,
    # 6/2/off), 3-3 (6/3/off) and 2-2 (6/4/2/off) (2/36). 4-4 and 5-5 leave it on the 2- or 1-point
    # behind the checkers still on the 6-point. 17/36.
    assert database.first[index({6: 15}), 1] == pytest.approx(17 / 36, abs=1e-15)


# --- every distribution


def test_distributions_sum_to_one_within_max_rolls(database: BearoffDatabase) -> None:
    for values in (database.off, database.first):
        assert values.shape == (POSITIONS, MAX_ROLLS + 1)
        assert values.dtype == np.float64
        assert (values >= 0).all()
        assert np.abs(values.sum(axis=1) - 1.0).max() < 1e-12
        assert not values[:, 31:].any()  # the longest bear-off takes 30 rolls: the columns after are empty
    assert database.off[POSITIONS - 1, 30] > 0  # 15 on the 6-point rolling 2-1 thirty times
    assert database.off[1:, 0].sum() == 0.0  # checkers left need at least one roll


def test_arrays_are_read_only(database: BearoffDatabase) -> None:
    for array in (database.off, database.first, database.mean_off, database.mean_first):
        with pytest.raises(ValueError):
            array[0, ...] = 0.5


# --- the independent exact solver


@cache
def solve(counts: Counts) -> tuple[Fraction, tuple[Fraction, ...], Fraction, tuple[Fraction, ...]]:
    """(expected rolls to bear off, its distribution, expected rolls to the first checker off, its
    distribution) in exact fractions, from the legal plays of ``Position.plays``; each roll's play is the
    one leaving the fewest expected rolls, the lowest bear-off index among equals (the database's rule)."""
    if sum(counts) == 0:
        return Fraction(0), (Fraction(1),), Fraction(0), (Fraction(1),)
    mean = Fraction(1)
    mean_first = Fraction(1)
    dist: dict[int, Fraction] = {}
    dist_first: dict[int, Fraction] = {}
    cells = np.zeros((2, 25), dtype=np.int8)
    cells[1, :6] = counts
    for dice in ROLLS:
        p = weight(dice)
        results = []
        bore_off = False
        for play in Position(cells).plays(dice):
            left = play.result.board[0]
            after = tuple(int(c) for c in left[:6])
            bore_off = bore_off or sum(after) < sum(counts)
            results.append((solve(after), int(bearoff_index(left))))
        (best_mean, best_dist, _, _), _ = min(results, key=lambda item: (item[0][0], item[1]))
        mean += p * best_mean
        for r, q in enumerate(best_dist):
            dist[r + 1] = dist.get(r + 1, Fraction(0)) + p * q
        if bore_off:
            dist_first[1] = dist_first.get(1, Fraction(0)) + p
            continue
        (_, _, first_mean, first_dist), _ = min(results, key=lambda item: (item[0][2], item[1]))
        mean_first += p * first_mean
        for r, q in enumerate(first_dist):
            dist_first[r + 1] = dist_first.get(r + 1, Fraction(0)) + p * q

    def listed(values: dict[int, Fraction]) -> tuple[Fraction, ...]:
        return tuple(values.get(r, Fraction(0)) for r in range(max(values) + 1))

    return mean, listed(dist), mean_first, listed(dist_first)


def test_database_equals_an_exact_solver_over_the_rules_cores_plays(database: BearoffDatabase) -> None:
    for counts in home_boards(SMALL):
        mean, dist, mean_first, dist_first = solve(counts)
        i = int(bearoff_index(np.array(counts, dtype=np.int8)))
        assert database.mean_off[i] == pytest.approx(float(mean), abs=1e-13), counts
        assert database.mean_first[i] == pytest.approx(float(mean_first), abs=1e-13), counts
        expected = np.zeros(MAX_ROLLS + 1)
        expected[: len(dist)] = [float(q) for q in dist]
        np.testing.assert_allclose(database.off[i], expected, rtol=0, atol=1e-14, err_msg=str(counts))
        expected[:] = 0
        expected[: len(dist_first)] = [float(q) for q in dist_first]
        np.testing.assert_allclose(database.first[i], expected, rtol=0, atol=1e-14, err_msg=str(counts))


# --- two-sided races


def probabilities(database: BearoffDatabase, mover: Mapping[int, int], opponent: Mapping[int, int]) -> dict:
    out = np.full(5, np.nan)
    bearoff_probabilities(board(mover, opponent), database.off, database.first, out)
    return dict(zip(PROBABILITIES, out.tolist(), strict=True))


def test_the_side_on_roll_with_one_checker_on_the_ace_point_wins(database: BearoffDatabase) -> None:
    for opponent in ({1: 1}, {6: 15}, {2: 3, 5: 4}):
        p = probabilities(database, {1: 1}, opponent)
        assert p["win"] == pytest.approx(1.0, abs=1e-15)
        assert p["win_gammon"] == (pytest.approx(1.0, abs=1e-15) if sum(opponent.values()) == 15 else 0.0)
        assert p["lose_gammon"] == 0.0
        assert p["win_backgammon"] == p["lose_backgammon"] == 0.0


def test_certainties_stay_within_one(database: BearoffDatabase) -> None:
    """Two checkers on the ace point are off with any roll, a gammon against 15 checkers none of which
    is off: the sums of products that make win and win gammon came to 1 + 4.4e-16 here (seen in
    self-play) before the gammons were held to the wins; exactly 1, and never above the win."""
    p = probabilities(database, {1: 2}, {3: 3, 4: 3, 5: 2, 6: 7})
    assert p["win"] == 1.0 and p["win_gammon"] == 1.0
    rng = np.random.default_rng(3)
    for _ in range(300):
        # up to 3 points of 1 to 3 checkers for the mover, of 2 or 4 for the opponent: at most 12 a side
        mover = {int(k): int(rng.integers(1, 4)) for k in rng.choice(6, 3) + 1}
        opponent = {int(k): 2 * int(rng.integers(1, 3)) for k in rng.choice(6, 3) + 1}
        q = probabilities(database, mover, opponent)
        assert 0.0 <= q["win_gammon"] <= q["win"] <= 1.0
        assert 0.0 <= q["lose_gammon"] <= 1.0 - q["win"]


def test_one_checker_each_on_the_six_point(database: BearoffDatabase) -> None:
    # The mover is off with his first roll 3/4 of the time; otherwise (1/4) the opponent is off with his
    # first roll 3/4 of the time, and if not the mover surely is with his second: 3/4 + 1/4 * 1/4.
    assert probabilities(database, {6: 1}, {6: 1})["win"] == pytest.approx(13 / 16, abs=1e-15)
    # against one checker on the ace point he wins only when off with his first roll
    assert probabilities(database, {6: 1}, {1: 1})["win"] == pytest.approx(3 / 4, abs=1e-15)


def test_a_gammon_against_fifteen_checkers_on_the_six_point(database: BearoffDatabase) -> None:
    # The mover (one checker on the 6-point) is off with his first roll (3/4) before the opponent rolls,
    # else surely with his second (1/4), a gammon when the opponent's first roll took no checker off
    # (19/36 by test_first_checker_off_from_fifteen_on_the_six_point): 3/4 + 1/4 * 19/36 = 127/144.
    p = probabilities(database, {6: 1}, {6: 15})
    assert p["win"] == pytest.approx(1.0, abs=1e-15)
    assert p["win_gammon"] == pytest.approx(127 / 144, abs=1e-15)
    assert p["lose_gammon"] == 0.0


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ({6: 1}, {6: 1}),
        ({6: 15}, {1: 1}),
        ({6: 15}, {3: 2, 5: 1}),
        ({1: 5, 2: 5, 3: 5}, {4: 4, 6: 11}),
        ({2: 7, 4: 8}, {1: 1, 2: 2, 3: 3}),
    ],
)
def test_swapping_the_side_on_roll(database: BearoffDatabase, first: dict, second: dict) -> None:
    # With X, Y the rolls each needs: P(X <= Y) + P(Y <= X) = 1 + P(X = Y); and the side with 15 checkers
    # is gammoned by the other one on roll with P(X <= F) and with himself on roll with P(X < F), F his
    # rolls to a first checker off: the two differ by P(X = F).
    a, b = index(first), index(second)
    ties = float(database.off[a] @ database.off[b])
    p, q = probabilities(database, first, second), probabilities(database, second, first)
    assert p["win"] + q["win"] == pytest.approx(1.0 + ties, abs=1e-12)
    if sum(first.values()) == 15:
        assert q["win_gammon"] - p["lose_gammon"] == pytest.approx(
            float(database.off[b] @ database.first[a]), abs=1e-12
        )
    assert all(0.0 <= value <= 1.0 for value in p.values())
    assert p["win_gammon"] <= p["win"]


def test_is_bearoff() -> None:
    assert is_bearoff(board({6: 15}, {1: 3}))
    assert is_bearoff(board({}, {}))
    far = board({6: 14}, {1: 3})
    far[1, 6] = 1  # a checker on the mover's 7-point
    assert not is_bearoff(far)
    barred = board({6: 14}, {1: 3})
    barred[0, 24] = 1  # a checker of the opponent on the bar
    assert not is_bearoff(barred)


def test_database_probabilities_of_many_boards(database: BearoffDatabase) -> None:
    boards = np.stack([board({6: 1}, {6: 1}), board({1: 1}, {6: 15})])
    out = database.probabilities(boards)
    assert out.shape == (2, 5)
    assert out[0, 0] == pytest.approx(13 / 16, abs=1e-15)
    assert out[1, :2] == pytest.approx([1.0, 1.0], abs=1e-15)
    far = board({6: 14}, {1: 3})
    far[1, 6] = 1
    with pytest.raises(ValueError, match="not a bear-off"):
        database.probabilities(far[None])


# --- the file it is kept in


def test_stored_once_and_read_back(tmp_path: Path, database: BearoffDatabase) -> None:
    path = bearoff.database_path(tmp_path)
    built = load_bearoff_database(tmp_path)
    assert path.exists()
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary file left behind
    stamp = path.stat().st_mtime_ns
    read = load_bearoff_database(tmp_path)
    assert path.stat().st_mtime_ns == stamp
    for got in (built, read):
        np.testing.assert_array_equal(got.off, database.off)
        np.testing.assert_array_equal(got.first, database.first)


@pytest.mark.parametrize("damage", ["garbage", "truncated", "other-version"])
def test_a_damaged_file_is_built_again(tmp_path: Path, database: BearoffDatabase, damage: str) -> None:
    path = bearoff.database_path(tmp_path)
    bearoff._write_atomic(database, path)
    assert bearoff._read(path) is not None
    if damage == "garbage":
        path.write_bytes(b"not a database")
    elif damage == "truncated":
        path.write_bytes(path.read_bytes()[:1000])
    else:
        np.savez(path.with_suffix(".tmp.npz"), version=np.int64(0), off=database.off, first=database.first)
        os.replace(path.with_suffix(".tmp.npz"), path)
    assert bearoff._read(path) is None
    rebuilt = load_bearoff_database(tmp_path)
    np.testing.assert_array_equal(rebuilt.off, database.off)
    assert bearoff._read(path) is not None


def test_default_cache_dir_follows_the_users_cache_folder(tmp_path: Path) -> None:
    assert bearoff.default_cache_dir({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "taldau" / "bearoff"
    assert bearoff.default_cache_dir({"HOME": str(tmp_path / "home")}) == (
        tmp_path / "home" / ".cache" / "taldau" / "bearoff"
    )


# --- against GNU Backgammon's own one-sided database (optional: PyPI gnubg-nn)


def test_agrees_with_gnubgs_one_sided_database(database: BearoffDatabase) -> None:
    # gnubg stores its distributions in 16 bits and picks plays by means computed from them, so where two
    # plays are nearly equal it may take the other one: the distributions agree to a few thousandths and
    # the expected rolls, which such choices barely move, to a few ten-thousandths.
    gnubg = pytest.importorskip("gnubg_nn", reason="GNU Backgammon's bindings (PyPI gnubg-nn) not installed")
    for i in range(1, POSITIONS):
        theirs = np.array(gnubg.bearoff_probabilities(tuple(int(c) for c in bearoff_row(i)[:6])))
        ours = database.off[i, 1:]
        assert ours[len(theirs) :].sum() < 1e-4, i  # gnubg leaves out tails below its 16 bits
        np.testing.assert_allclose(ours[: len(theirs)], theirs, rtol=0, atol=5e-3, err_msg=str(i))
        mean = float(np.arange(1, len(theirs) + 1) @ theirs / theirs.sum())
        assert database.mean_off[i] == pytest.approx(mean, abs=5e-4), i


def test_race_probabilities_agree_with_gnubg(database: BearoffDatabase) -> None:
    # With seven checkers or more on a side gnubg evaluates a bear-off from its one-sided database as
    # bearoff_probabilities does; a side of 15 checkers makes gammons possible.
    gnubg = pytest.importorskip("gnubg_nn", reason="GNU Backgammon's bindings (PyPI gnubg-nn) not installed")
    rng = np.random.default_rng(7)
    for _ in range(300):
        cells = np.zeros((2, 25), dtype=np.int8)
        for side in (0, 1):
            checkers = 15 if rng.random() < 0.4 else int(rng.integers(7, 16))
            cells[side, :6] = rng.multinomial(checkers, [1 / 6] * 6)
        ours = np.empty(5)
        bearoff_probabilities(cells, database.off, database.first, ours)
        theirs = np.array(gnubg.probabilities(cells.tolist(), 0))
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-4, err_msg=str(cells[:, :6].tolist()))
