"""The exact one-sided bear-off database: how many rolls a side needs to bear off, for every home board.

Words of the game for readers who do not know it: once all 15 of a side's checkers stand in its *home board*
(its points 1..6) the side *bears off*, taking checkers off the board; whoever has borne off all 15 first
wins. A die bears off a checker from the point of its number (a 4 from the 4-point), a higher die bears off
from the highest occupied point when no checker stands higher, and a die may instead move a checker inside
the home board (a 2 from the 6-point to the 4-point). A *roll* is two dice; doubles are played four times.
The loser wins a *gammon* for the winner when he has borne off no checker at all.

When both sides have every remaining checker on their own home points the two armies can never meet again,
so each side's future depends on its own checkers alone: a *race*. For one side's home board (0..15
checkers spread over its six points: C(21, 6) = 54,264 boards) the database holds two distributions over
r = 0..MAX_ROLLS rolls:

- ``off[i, r]``: the probability that the side bears off its last checker with its r-th roll, playing each
  roll to make the expected number of rolls to bear everything off as small as possible;
- ``first[i, r]``: the probability that it bears off its first checker with its r-th roll, playing each
  roll to make the expected number of rolls to the first checker off as small as possible (what matters
  when a gammon is at stake). A board without checkers has ``off[i, 0] = first[i, 0] = 1``.

This is gnubg's *one-sided* database: each side is played for its own race alone, so the two-sided
probabilities that ``bearoff_probabilities`` combines from two such distributions are those of players who
always race for their mean number of rolls (the same approximation gnubg makes with this database).

Both are built by dynamic programming over the 21 distinct rolls (the 15 non-doubles twice as likely as the
6 doubles): the distribution of a board is the average, over the rolls, of the distribution of the board
left by that roll's best play, shifted by one roll. Every play moves checkers down or off, so the boards it
leaves come earlier in the index order below and are known before they are needed. Among plays equally
good (equal expected rolls within ``TIE``) the one leaving the board of the lower index is taken, so the
distributions are defined exactly, not by the order plays happen to be generated.

The index of a board (``bearoff_index``) is a perfect hash by the combinatorial number system: with
``T[p]`` the checkers on points p..6, the six numbers ``T[7 - m] + m - 1`` (m = 1..6) strictly increase
within 0..20 and ``sum C(T[7 - m] + m - 1, m)`` numbers the boards 0..54,263 without gaps; the empty board
is 0, fifteen checkers on the 6-point the last. Moving a checker down or off lowers some ``T[p]`` and none
rises, so a play always leads to a lower index.

The database is built in a few seconds on first use and kept on disk (``load_bearoff_database``) in the
user's cache folder beside numba's compiled kernels (``~/.cache/taldau/bearoff/``), as a ``.npz`` named by
``BEAROFF_VERSION``, written to a temporary name and renamed, and built again when missing or unreadable.
There is no module-level database: callers load one ``BearoffDatabase`` and pass it (or its arrays, to
the compiled functions) to whatever needs it.
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass
from math import comb
from pathlib import Path

import numpy as np
from taldau.base.files import publish
from taldau.base.jit import is_writable, njit, user_cache_root
from taldau.games.backgammon.rules.board import BAR, CHECKERS, MOVER, OPPONENT, ROLL_COUNTS, ROLL_DICE, ROW

from .probabilities import LOSE_BACKGAMMON, LOSE_GAMMON, WIN, WIN_BACKGAMMON, WIN_GAMMON

HOME_POINTS = 6
POSITIONS = comb(CHECKERS + HOME_POINTS, HOME_POINTS)  # 54,264 home boards of 0..15 checkers
MAX_ROLLS = 32  # the longest bear-off takes 30 rolls (15 checkers on the 6-point rolling 2-1 each time)
BEAROFF_VERSION = 1  # changes whenever the stored arrays could: the rules of play, tie-breaks, MAX_ROLLS
TIE = 1e-12  # expected numbers of rolls closer than this are equal; the lower index then wins the tie

# C(n, k) for n = 0..21, k = 0..6: a constant of the index, frozen into the compiled code.
BINOMIALS = np.array(
    [[comb(n, k) for k in range(HOME_POINTS + 1)] for n in range(CHECKERS + HOME_POINTS + 1)],
    dtype=np.int64,
)
BINOMIALS.flags.writeable = False


MAX_RESULTS = 256  # boards one roll can leave, counted with repeats; at most 2 * 6 * 6 or C(9, 4) = 126

_FILE_STEM = "one-sided"


# --- the index


@njit(cache=True)
def bearoff_index(row: np.ndarray) -> int:
    """Index 0..54,263 of one side's home board: ``row`` is that side's row of the rules core's board (or
    any array whose first six entries are the checkers on points 1..6); the rest of the row is not read,
    and the six counts must add up to at most 15."""
    index = 0
    above = 0  # checkers on this point and higher
    for point in range(HOME_POINTS - 1, -1, -1):
        above += row[point]
        m = HOME_POINTS - point
        index += BINOMIALS[above + m - 1, m]
    return index


@njit(cache=True)
def bearoff_counts(index: int, counts: np.ndarray) -> None:
    """Write into ``counts`` (at least six entries) the checkers on points 1..6 of the board with this
    ``bearoff_index``: the inverse of the index."""
    rest = index
    higher = 0  # checkers above the point being decoded
    for m in range(HOME_POINTS, 0, -1):
        x = CHECKERS + m - 1
        while BINOMIALS[x, m] > rest:
            x -= 1
        rest -= BINOMIALS[x, m]
        above = x - m + 1  # checkers on point 7 - m and higher
        if m < HOME_POINTS:
            counts[HOME_POINTS - 1 - m] = higher - above  # point 6 - m
        higher = above
    counts[HOME_POINTS - 1] = higher


def bearoff_row(index: int) -> np.ndarray:
    """The rules core's row (25 ``int8``: points 1..24, bar) of the home board with this index."""
    if not 0 <= index < POSITIONS:
        raise ValueError(f"a bear-off index is 0..{POSITIONS - 1}, not {index}")
    row = np.zeros(ROW, dtype=np.int8)
    counts = np.zeros(HOME_POINTS, dtype=np.int64)
    bearoff_counts(index, counts)
    row[:HOME_POINTS] = counts
    return row


# --- the plays of one roll, for bear-off boards only


@njit(cache=True, inline="always")
def _may_move(counts: np.ndarray, start: int, die: int) -> bool:
    """Whether a checker on index ``start`` (point start + 1) may move with ``die``: inside the home board
    or off with the die of its point, always; off with a higher die only from the highest occupied point."""
    if counts[start] == 0:
        return False
    if start - die >= -1:
        return True
    higher = 0
    for point in range(start + 1, HOME_POINTS):
        higher += counts[point]
    return higher == 0


@njit(cache=True)
def roll_results(counts: np.ndarray, die1: int, die2: int, results: np.ndarray, bore: np.ndarray) -> int:
    """The boards one roll can leave from a home board with ``counts`` (checkers on points 1..6, at least
    one; restored on return): writes ``results[k]`` the index of the k-th and ``bore[k]`` whether its play
    bore off a checker, and returns how many, repeats included.

    In a bear-off every die can be played while a checker is left (a die too high for a point bears off
    the highest checker, one too low moves it down), so every play uses both dice, four on a double, unless
    the last checker goes off first: the rules' demand to use as many dice as possible removes nothing
    here, which ``Position.plays`` confirms in the tests. A double's moves are tried from non-rising
    points only, as the rules core does: the same moves in another order leave the same board.
    """
    doubles = die1 == die2
    steps = 4 if doubles else 2
    dice = np.empty(4, dtype=np.int64)
    starts = np.empty(4, dtype=np.int64)
    ends = np.empty(4, dtype=np.int64)
    left = 0
    for point in range(HOME_POINTS):
        left += counts[point]
    count = 0
    for order in range(1 if doubles else 2):
        if doubles:
            dice[:] = die1
        else:
            dice[0] = die1 if order == 0 else die2
            dice[1] = die2 if order == 0 else die1
        depth = 0
        starts[0] = HOME_POINTS - 1
        while depth >= 0:
            start = starts[depth]
            while start >= 0 and not _may_move(counts, start, dice[depth]):
                start -= 1
            if start < 0:  # every checker tried at this depth: take back the move that led here
                depth -= 1
                if depth >= 0:
                    counts[starts[depth]] += 1
                    if ends[depth] >= 0:
                        counts[ends[depth]] -= 1
                    else:
                        left += 1
                    starts[depth] -= 1
                continue
            end = start - dice[depth]
            starts[depth] = start
            ends[depth] = end
            counts[start] -= 1
            if end >= 0:
                counts[end] += 1
            else:
                left -= 1
            if depth + 1 == steps or left == 0:
                if count >= results.shape[0]:
                    raise ValueError("more plays than MAX_RESULTS")
                results[count] = bearoff_index(counts)
                bore[count] = False
                for step in range(depth + 1):
                    if ends[step] < 0:
                        bore[count] = True
                count += 1
                counts[start] += 1
                if end >= 0:
                    counts[end] -= 1
                else:
                    left += 1
                starts[depth] = start - 1
            else:
                depth += 1
                starts[depth] = start if doubles else HOME_POINTS - 1
    return count


# --- building the database


@njit(cache=True)
def _best(results: np.ndarray, bore: np.ndarray, count: int, means: np.ndarray, skip_bearing: bool) -> int:
    """The index among ``results[:count]`` with the fewest expected rolls in ``means`` (ties within TIE to
    the lower index); with ``skip_bearing``, only among plays that bore nothing off (-1 if none)."""
    best = -1
    best_mean = 0.0
    for k in range(count):
        if skip_bearing and bore[k]:
            continue
        candidate = results[k]
        mean = means[candidate]
        if best < 0 or mean < best_mean - TIE or (mean <= best_mean + TIE and candidate < best):
            best = candidate
            best_mean = mean
    return best


@njit(cache=True)
def build_distributions(rolls: int) -> tuple:
    """The database's arrays ``(off, first)``, each (POSITIONS, rolls + 1) ``float64``, by dynamic
    programming in index order (module docstring)."""
    off = np.zeros((POSITIONS, rolls + 1), dtype=np.float64)
    first = np.zeros((POSITIONS, rolls + 1), dtype=np.float64)
    mean_off = np.zeros(POSITIONS, dtype=np.float64)
    mean_first = np.zeros(POSITIONS, dtype=np.float64)
    off[0, 0] = 1.0
    first[0, 0] = 1.0
    counts = np.zeros(HOME_POINTS, dtype=np.int64)
    results = np.empty(MAX_RESULTS, dtype=np.int64)
    bore = np.empty(MAX_RESULTS, dtype=np.bool_)
    for index in range(1, POSITIONS):
        bearoff_counts(index, counts)
        expected_off = 1.0
        expected_first = 1.0
        for roll in range(ROLL_DICE.shape[0]):
            weight = ROLL_COUNTS[roll] / 36.0
            count = roll_results(counts, ROLL_DICE[roll, 0], ROLL_DICE[roll, 1], results, bore)
            best = _best(results, bore, count, mean_off, False)
            for r in range(1, rolls + 1):
                off[index, r] += weight * off[best, r - 1]
            expected_off += weight * mean_off[best]
            bears = False
            for k in range(count):
                if bore[k]:
                    bears = True
            if bears:  # a checker off with this roll: nothing does better
                first[index, 1] += weight
            else:
                best = _best(results, bore, count, mean_first, True)
                for r in range(1, rolls + 1):
                    first[index, r] += weight * first[best, r - 1]
                expected_first += weight * mean_first[best]
        mean_off[index] = expected_off
        mean_first[index] = expected_first
    return off, first


@njit(cache=True)
def mean_rolls(distributions: np.ndarray) -> np.ndarray:
    """Expected number of rolls of each row of an (n, rolls + 1) distribution over 0..rolls rolls."""
    out = np.zeros(distributions.shape[0], dtype=np.float64)
    for index in range(distributions.shape[0]):
        total = 0.0
        for r in range(1, distributions.shape[1]):
            total += r * distributions[index, r]
        out[index] = total
    return out


@dataclass(frozen=True, eq=False)
class BearoffDatabase:
    """The one-sided bear-off database, read-only: ``off`` and ``first`` are (POSITIONS, MAX_ROLLS + 1)
    ``float64`` distributions over rolls 0..MAX_ROLLS indexed by ``bearoff_index``; ``mean_off`` and
    ``mean_first`` (POSITIONS,) their expected numbers of rolls (a race net's handy inputs)."""

    off: np.ndarray
    first: np.ndarray
    mean_off: np.ndarray
    mean_first: np.ndarray

    @classmethod
    def from_distributions(cls, off: np.ndarray, first: np.ndarray) -> BearoffDatabase:
        """The database of two distributions, after checking them (ValueError): shape, finite, each row
        summing to 1. The arrays are copied read-only."""
        arrays = []
        for name, array in (("off", off), ("first", first)):
            array = np.array(array, dtype=np.float64)
            if array.shape != (POSITIONS, MAX_ROLLS + 1):
                raise ValueError(f"{name} has shape {array.shape}, not {(POSITIONS, MAX_ROLLS + 1)}")
            if not np.isfinite(array).all() or (array < 0).any():
                raise ValueError(f"{name} holds values that are not probabilities")
            if np.abs(array.sum(axis=1) - 1.0).max() > 1e-9:
                raise ValueError(f"a row of {name} does not sum to 1")
            array.flags.writeable = False
            arrays.append(array)
        means = [mean_rolls(array) for array in arrays]
        for array in means:
            array.flags.writeable = False
        return cls(arrays[0], arrays[1], means[0], means[1])

    def probabilities(self, boards: np.ndarray) -> np.ndarray:
        """The five probabilities (``PROBABILITIES`` order, side on roll's view) of each bear-off board of
        an (n, 2, 25) array; ValueError if one is not a bear-off (``is_bearoff``)."""
        boards = np.asarray(boards, dtype=np.int8).reshape(-1, 2, ROW)
        out = np.empty((boards.shape[0], 5), dtype=np.float64)
        if not bearoff_probabilities_many(boards, self.off, self.first, out):
            raise ValueError("a board is not a bear-off: a checker stands above its 6-point or on the bar")
        return out


def build_bearoff_database() -> BearoffDatabase:
    """Build the database in memory (a few seconds, plus numba's compilation the first time)."""
    off, first = build_distributions(MAX_ROLLS)
    return BearoffDatabase.from_distributions(off, first)


def default_cache_dir(environ: Mapping[str, str] | None = None) -> Path | None:
    """Where the database is kept: ``taldau/bearoff`` in the user's cache folder (games.jit's
    ``user_cache_root``: ``$XDG_CACHE_HOME`` or ``~/.cache``), or None when it is not writable."""
    root = user_cache_root(os.environ if environ is None else environ)
    if root is None:
        return None
    directory = root / "taldau" / "bearoff"
    return directory if is_writable(directory) else None


def database_path(directory: Path) -> Path:
    """The database's file in ``directory``, named by BEAROFF_VERSION."""
    return directory / f"{_FILE_STEM}-v{BEAROFF_VERSION}.npz"


def _read(path: Path) -> BearoffDatabase | None:
    """The database stored at ``path``, or None when it is missing, unreadable, of another version or
    fails ``from_distributions``' checks."""
    try:
        with np.load(path, allow_pickle=False) as stored:
            if int(stored["version"]) != BEAROFF_VERSION:
                return None
            return BearoffDatabase.from_distributions(stored["off"], stored["first"])
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile):
        return None


def _write_atomic(database: BearoffDatabase, path: Path) -> None:
    """Store the database at ``path`` through a temporary file of this writer's own, synced and renamed,
    so that a reader never sees half a file and concurrent writers leave one whole file."""

    def write(temporary: Path) -> None:
        with open(temporary, "wb") as handle:
            np.savez_compressed(
                handle, version=np.int64(BEAROFF_VERSION), off=database.off, first=database.first
            )

    publish(path, write)


def load_bearoff_database(directory: Path | None = None) -> BearoffDatabase:
    """The database, read from ``directory`` (default ``default_cache_dir()``) or built and stored there
    when it is missing or unreadable; built in memory only when there is no writable cache folder.

    Deliberately not cached in the process: load it once and pass it on."""
    if directory is None:
        directory = default_cache_dir()
        if directory is None:
            return build_bearoff_database()
    path = database_path(directory)
    database = _read(path)
    if database is None:
        database = build_bearoff_database()
        try:
            directory.mkdir(parents=True, exist_ok=True)
            _write_atomic(database, path)
        except OSError:
            pass  # a cache that cannot be written only costs the next process a rebuild
    return database


# --- two-sided races


@njit(cache=True, inline="always")
def is_bearoff(board: np.ndarray) -> bool:
    """Whether both sides of a (2, 25) board have every checker left on their own points 1..6 (none
    higher, none on the bar): then no checker can ever be hit again and the database settles the race."""
    for row in range(2):
        for index in range(HOME_POINTS, BAR + 1):
            if board[row, index] != 0:
                return False
    return True


@njit(cache=True)
def bearoff_probabilities(board: np.ndarray, off: np.ndarray, first: np.ndarray, out: np.ndarray) -> None:
    """Write into ``out`` (5 ``float64``) the probabilities, in ``PROBABILITIES`` order, of the side on roll
    (row MOVER, who rolls first) of a bear-off board (``is_bearoff``, not checked here), from the
    database's ``off`` and ``first``.

    With X the mover's rolls to bear off and Y the opponent's, the mover wins when X <= Y (he rolls
    first). He wins a gammon when the opponent still has all 15 checkers and none is off after the
    opponent's first X - 1 rolls (the opponent's rolls to a first checker off F >= X); he loses one when he
    has 15 checkers and the opponent finishes before his first is off (Y < his F). Backgammons need a
    checker of the loser in the winner's home board or on the bar: impossible here, so 0.
    """
    mover = bearoff_index(board[MOVER])
    opponent = bearoff_index(board[OPPONENT])
    mover_left = 0
    opponent_left = 0
    for index in range(HOME_POINTS):
        mover_left += board[MOVER, index]
        opponent_left += board[OPPONENT, index]
    last = off.shape[1] - 1
    win = 0.0
    win_gammon = 0.0
    lose_gammon = 0.0
    opponent_later = 0.0  # P(Y >= x)
    opponent_first_later = 0.0  # P(opponent's F >= x)
    mover_first_later = 0.0  # P(mover's F >= x + 1)
    for x in range(last, -1, -1):
        opponent_later += off[opponent, x]
        opponent_first_later += first[opponent, x]
        win += off[mover, x] * opponent_later
        if opponent_left == CHECKERS:
            win_gammon += off[mover, x] * opponent_first_later
        if mover_left == CHECKERS:
            lose_gammon += off[opponent, x] * mover_first_later
        mover_first_later += first[mover, x]
    out[WIN] = min(win, 1.0)  # sums of products can pass a certainty by a rounding error
    out[WIN_GAMMON] = min(win_gammon, out[WIN])
    out[WIN_BACKGAMMON] = 0.0
    out[LOSE_GAMMON] = min(lose_gammon, 1.0 - out[WIN])
    out[LOSE_BACKGAMMON] = 0.0


@njit(cache=True)
def bearoff_probabilities_many(
    boards: np.ndarray, off: np.ndarray, first: np.ndarray, out: np.ndarray
) -> bool:
    """``bearoff_probabilities`` of each board of an (n, 2, 25) array into the rows of ``out`` (n, 5);
    returns False, leaving the rest of ``out`` unwritten, at the first board that is not a bear-off."""
    for k in range(boards.shape[0]):
        if not is_bearoff(boards[k]):
            return False
        bearoff_probabilities(boards[k], off, first, out[k])
    return True
