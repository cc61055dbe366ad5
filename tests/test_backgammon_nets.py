"""taldau's own backgammon evaluator (``games/backgammon/engine``): the inputs the nets see, the position
classes and the sanity rules of the probabilities, the net's forward pass and gradient step, gnubg's plies
over the nets, and the weights files, each against answers worked out by hand or by an independent plain
Python computation over the rules core's plays (``Position.plays``).

Boards are written as {point: checkers} maps for each side, points 1..24 counted from that side's own home
board and 25 for its bar; the side on roll (row MOVER) moves from high points to low. One side's point p is
the other side's point 25 - p. Rolls are 36 equally likely ordered pairs: a non-double such as 6-5 comes 2
ways in 36, a double once.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from taldau.games.backgammon.engine.analyse import Search
from taldau.games.backgammon.engine.bearoff import is_bearoff
from taldau.games.backgammon.engine.inputs import (
    ESCAPES,
    FEATURE_NAMES,
    FEATURES,
    INPUTS,
    MAX_NONZERO,
    POINT_INPUTS,
    encode,
    encode_dense,
    hitting_rolls,
    shots,
)
from taldau.games.backgammon.engine.model import CONTACT, RACE, NetPair, position_class, sanitise
from taldau.games.backgammon.engine.net import (
    EVALUATION_VERSION,
    OUTPUTS,
    SCRATCH_PER_UNIT,
    Net,
    forward,
    forward_points,
    forward_points_after,
    point_sums,
    train_step,
)
from taldau.games.backgammon.engine.own import OwnEvaluator
from taldau.games.backgammon.engine.plies import PRUNED_PLAYS
from taldau.games.backgammon.engine.weights import SHIPPED, load_nets, load_pruning, save_nets, weights_digest
from taldau.games.backgammon.rules.board import (
    KEY_WORDS,
    MOVER,
    OPPONENT,
    ROLL_COUNTS,
    ROLL_DICE,
    generate_plays,
    start_board,
    swap_into,
)
from taldau.games.backgammon.rules.position import PlayBuffers, Position
from taldau.games.backgammon.training.supervised import selfplay_positions
from taldau.games.backgammon.training.td import self_play
from taldau.measure.backgammon.match import BackgammonPlayer, dice_sequence, play_game

ROLLS: list[tuple[int, int]] = [(high, low) for high, low in ROLL_DICE.tolist()]
WEIGHTS: list[int] = ROLL_COUNTS.tolist()


def side(points: Mapping[int, int]) -> np.ndarray:
    """One row of the rules core's board from {point 1..24 or 25 for the bar: checkers}."""
    cells = np.zeros(25, dtype=np.int8)
    for point, checkers in points.items():
        cells[point - 1] = checkers
    return cells


def board(mover: Mapping[int, int], opponent: Mapping[int, int]) -> np.ndarray:
    """A board with ``mover`` on roll (row 1) and ``opponent`` (row 0), each in its own points; checked by
    ``Position`` (at most 15 checkers a side, never both sides on one point)."""
    cells = np.ascontiguousarray(np.stack([side(opponent), side(mover)]))
    Position(cells)
    return cells


def equity_of(p: np.ndarray) -> float:
    """Cubeless equity of five probabilities, the formula of ``engine/__init__``'s docstring."""
    return float(2.0 * p[0] - 1.0 + p[1] - p[3] + p[2] - p[4])


def flip(p: np.ndarray) -> np.ndarray:
    """The same probabilities from the other side: win <-> lose, gammons and backgammons exchanged."""
    return np.array([1.0 - p[0], p[3], p[4], p[1], p[2]])


def assert_consistent(p: np.ndarray, where: str) -> None:
    """All in [0, 1]; win >= win gammon >= win backgammon; lose (1 - win) >= lose gammon >= lose bg."""
    assert np.all(p >= 0.0) and np.all(p <= 1.0), (where, p)
    assert p[0] >= p[1] >= p[2], (where, p)
    assert 1.0 - p[0] >= p[3] - 1e-12 and p[3] >= p[4], (where, p)


@pytest.fixture(scope="module")
def shipped() -> OwnEvaluator:
    return OwnEvaluator.load()


@pytest.fixture(scope="module")
def selfplay_boards(shipped: OwnEvaluator) -> np.ndarray:
    """Positions before a roll in 30 games of the shipped nets against themselves (about 1,700)."""
    return selfplay_positions(shipped.nets, 30, seed=11)


# --- inputs: Tesauro's encoding


def test_start_position_encoding_is_tesauros() -> None:
    """Both sides have 2 checkers on their 24-point, 5 on 13, 3 on 8, 5 on 6. Each point p of the side on
    roll has units 4 * (p - 1) .. 4 * (p - 1) + 3 (at least 1, 2, 3 checkers, (n - 3) / 2 beyond three);
    the opponent's start 100 further on. Five checkers give 1, 1, 1, 1.0; three give 1, 1, 1 (excess 0,
    not written); two give 1, 1."""
    expected = np.zeros(INPUTS, dtype=np.float32)
    for base in (0, 100):
        expected[base + 20 : base + 24] = [1, 1, 1, 1.0]  # 6-point, 5 checkers
        expected[base + 28 : base + 31] = [1, 1, 1]  # 8-point, 3 checkers
        expected[base + 48 : base + 52] = [1, 1, 1, 1.0]  # 13-point, 5 checkers
        expected[base + 92 : base + 94] = [1, 1]  # 24-point, 2 checkers
    # features per side (side on roll at 200, opponent at 215): nothing borne off (0); pips 2 * 24 + 5 * 13
    # + 3 * 8 + 5 * 6 = 167 -> 1.67; one home point made (the 6) -> 1/6; longest prime 1 (no two made points
    # adjacent) -> 1/6; two checkers back (the 24-point) -> 2/15; no blots, so no shots, double shots or
    # pips lost -> 0; rearmost checker and rearmost made point on the 24 -> 24/25 and 24/24; the most
    # advanced anchor is the 24 (the opponent's ace point) -> 1/6; to pass the opponent's rearmost checker
    # (on the mover's 1-point) each checker must move all its pips but one: 167 - 15 = 152 -> 1.52.
    # Escapes: the back checkers face the opponent's 6, 8 and 13 (5, 7 and 12 pips in front): sums 5 (4
    # rolls), 7 (6), 12 (1) and 5-5 (both dice blocked) stop them, 24 rolls escape -> 24/36. Containment: a
    # checker on the opponent's 23 faces the mover's 6, 8, 13 at 4, 6, 11 pips: sums 4 (3 rolls), 6 (5), 11
    # (2), and 4-4, 6-6, 6-4 (both dice blocked, 4) stop it, 22 escape, the fewest from the opponent's
    # 16-point to the bar -> (36 - 22) / 36.
    assert FEATURE_NAMES[:7] == ("off", "pips", "home_points", "prime", "back", "blots", "shots")
    later = "double_shots pip_loss rear back_anchor forward_anchor contact_pips escapes contain"
    assert FEATURE_NAMES[7:] == tuple(later.split())
    assert POINT_INPUTS == 200 and INPUTS == 230
    per_side = [
        0.0,
        1.67,
        1 / 6,
        1 / 6,
        2 / 15,
        0.0,
        0.0,
        0.0,
        0.0,
        24 / 25,
        1.0,
        1 / 6,
        1.52,
        24 / 36,
        14 / 36,
    ]
    for base in (200, 215):
        expected[base : base + FEATURES] = per_side
    dense = encode_dense(start_board())
    np.testing.assert_allclose(dense, expected, rtol=1e-6, atol=0)
    assert np.count_nonzero(dense) == 2 * (4 + 3 + 4 + 2 + 10)


def test_sparse_encoding_lists_exactly_the_nonzero_inputs() -> None:
    """``encode`` writes (index, value) pairs, no index twice and no zero value; a side with 15 checkers
    each on its own place cannot be built, so take a crowded position: 8 checkers on one point give the
    excess unit (8 - 3) / 2 = 2.5; a checker on the bar uses the bar's units (index 24 -> 96..99)."""
    cells = board({25: 1, 6: 8, 1: 6}, {23: 2, 13: 1, 12: 1, 11: 11})
    indices = np.empty(MAX_NONZERO, dtype=np.int64)
    values = np.empty(MAX_NONZERO, dtype=np.float32)
    features = np.empty(FEATURES, dtype=np.float32)
    count = encode(cells, INPUTS, indices, values, features)
    assert len(set(indices[:count].tolist())) == count
    assert np.all(values[:count] != 0.0)
    dense = encode_dense(cells)
    assert dense[96] == 1.0 and dense[97] == 0.0  # one checker on the bar
    np.testing.assert_array_equal(dense[20:24], [1, 1, 1, 2.5])  # 8 checkers on the 6-point
    np.testing.assert_array_equal(dense[0:4], [1, 1, 1, 1.5])  # 6 on the ace point
    # the opponent's blots on its 13 and 12 are the mover's 12 and 13. The mover's checkers on 6 and 1 are
    # past them; the one on the bar enters on point 25 - die and needs 12 pips to the 13: 6-6 (bar/19/13*),
    # 4-4 (bar/21/17/13*), 3-3 (bar/22/19/16/13*), all landing points open (the opponent's 11 checkers
    # stand on the mover's 14); the 12 would need 13 pips: no roll. The opponent's "shots" input: 3 / 36.
    assert dense[215 + 6] == pytest.approx(3 / 36)


@pytest.mark.parametrize(
    ("distance", "rolls"),
    [
        # direct: the 11 rolls with a 1; no combination sums to 1
        (1, 11),
        # the 11 rolls with a 6, plus 5-1 (2), 4-2 (2), 3-3 (1: 3+3), 2-2 (1: 2+2+2) = 17
        (6, 17),
        # no die reaches 7: 6-1, 5-2, 4-3 (2 each) = 6; no double divides 7
        (7, 6),
        # 6-2, 5-3 (2 each), 4-4 (4+4), 2-2 (2+2+2+2) = 6
        (8, 6),
        # 6-6, 4-4 (three steps), 3-3 (four steps) = 3
        (12, 3),
        # 5-5 three steps (15) is the only way
        (15, 1),
        # 5-5 four steps; 6-6 reaches 18 or 24, 4-4 at most 16
        (20, 1),
    ],
)
def test_hitting_rolls_lone_attacker_open_board(distance: int, rolls: int) -> None:
    """A lone attacker (side on roll) on its 24-point and the opponent's lone checker ``distance`` pips in
    front of it, nothing else on the board: every landing point is open."""
    target = 24 - distance  # the blot on the mover's point ``target``
    opponent = {25 - target: 1}
    cells = board({24: 1}, opponent)
    assert hitting_rolls(cells, MOVER) == rolls
    # the same position seen from the other side: the attacker is row 0 there
    assert hitting_rolls(np.ascontiguousarray(cells[::-1]), OPPONENT) == rolls


def test_hitting_rolls_blocking_points() -> None:
    """A lone attacker on 13, a blot 6 pips away on the 7 (17 rolls, as above) and opponent points made
    in between. Made points at 1 and 5 pips in front (the 12 and the 8) block both halves of 5-1 (13/12
    and 13/8 are closed): 17 - 2 = 15. A made point 3 pips in front (the 10) blocks 3-3 (13/10/7): 16.
    Both: 14."""
    blot = {18: 1}  # the mover's 7-point is the opponent's 18
    assert hitting_rolls(board({13: 1}, blot), MOVER) == 17
    assert hitting_rolls(board({13: 1}, {**blot, 13: 2, 17: 2}), MOVER) == 15  # mover's 12 and 8 blocked
    assert hitting_rolls(board({13: 1}, {**blot, 15: 2}), MOVER) == 16  # mover's 10 blocked
    assert hitting_rolls(board({13: 1}, {**blot, 13: 2, 17: 2, 15: 2}), MOVER) == 14


def test_hitting_rolls_doubles_need_open_landing_points() -> None:
    """Blot 8 pips away (6 rolls: 6-2, 5-3, 4-4, 2-2). A made point 4 pips in front of the attacker
    stops 4-4 (lands there first) and 2-2 (2, 4, 6, 8: the second step lands there): 4 left. Blot 12 away
    (6-6, 4-4, 3-3) with a point 6 in front: 6-6 (6, 12) and 3-3 (3, 6, 9, 12) stopped, 4-4 left: 1."""
    assert hitting_rolls(board({20: 1}, {13: 1}), MOVER) == 6  # blot on mover's 12
    assert hitting_rolls(board({20: 1}, {13: 1, 9: 2}), MOVER) == 4  # mover's 16 made by the opponent
    assert hitting_rolls(board({20: 1}, {17: 1}), MOVER) == 3  # blot on mover's 8
    assert hitting_rolls(board({20: 1}, {17: 1, 11: 2}), MOVER) == 1  # mover's 14 made


def test_hitting_rolls_without_blots_or_from_in_front() -> None:
    """No blot: 0. A blot behind every attacker cannot be hit (checkers move forward only): 0. A checker
    of the defender on the bar is not a blot on the board: 0. Two attackers share their rolls: checkers
    1 and 2 pips behind one blot hit with any roll holding a 1 or a 2: 36 - 16 (both dice 3..6) = 20."""
    assert hitting_rolls(start_board(), MOVER) == 0
    assert hitting_rolls(start_board(), OPPONENT) == 0
    assert hitting_rolls(board({5: 2, 3: 1}, {15: 1, 21: 2}), MOVER) == 0  # blot on mover's 10, behind
    assert hitting_rolls(board({24: 2}, {25: 1, 6: 2}), MOVER) == 0
    assert hitting_rolls(board({12: 1, 11: 1}, {15: 1}), MOVER) == 20  # blot on mover's 10


def test_hitting_rolls_from_the_bar() -> None:
    """An attacker on the bar enters on point 25 - die: a blot on the mover's 19 (the opponent's 6) is 6
    pips from the bar: 17 rolls, as on the open board."""
    assert hitting_rolls(board({25: 1}, {6: 1}), MOVER) == 17


def _rules_hitting_rolls(cells: np.ndarray) -> int:
    """Of the 36 rolls, those with which some legal play of the side on roll hits (the rules core)."""
    position = Position(cells)
    hitting = [any(play.hits for play in position.plays(roll)) for roll in ROLLS]
    return sum(weight for weight, hits in zip(WEIGHTS, hitting, strict=True) if hits)


def _one_checker_hits(cells: np.ndarray) -> tuple[int, int, int]:
    """What the side on roll threatens, counted as a player counts it: for each of the 36 rolls, the
    opponent's blots that one checker, moving die after die (either order; four times on a double), each
    step onto a point the opponent has not made, lands on before the dice run out. Returns the rolls that
    hit a blot, the rolls that hit two or more, and the pips lost summed over the rolls (each roll taking
    the blot whose loss is largest: a blot on the attacker's point p stands on its own 25 - p and loses p
    pips when sent to the bar). Another checker moving first cannot open a point
    (only hitting changes the opponent's points), so one checker at a time suffices; this ignores the rule
    that both dice must be played when possible (the larger when only one can)."""
    mover, opponent = cells[MOVER], cells[OPPONENT]
    shots = double = loss = 0
    for (high, low), weight in zip(ROLLS, WEIGHTS, strict=True):
        orders = [[high] * 4] if high == low else [[high, low], [low, high]]
        blots: set[int] = set()
        for start in range(25):
            if mover[start] == 0:
                continue
            for order in orders:
                spot = start
                for die in order:
                    spot -= die
                    if spot < 0 or opponent[23 - spot] >= 2:
                        break
                    if opponent[23 - spot] == 1:
                        blots.add(spot)
        shots += weight if blots else 0
        double += weight if len(blots) >= 2 else 0
        loss += weight * (max(blots) + 1 if blots else 0)
    return shots, double, loss


def _one_checker_hitting_rolls(cells: np.ndarray) -> int:
    """The rolls of 36 that hit, by ``_one_checker_hits``."""
    return _one_checker_hits(cells)[0]


def _attacker_views(boards: np.ndarray) -> list[np.ndarray]:
    """Each board as it stands and turned around (the other side attacking), without the attacker (row
    MOVER) on the bar: the feature ignores that a checker on the bar must enter before anything moves."""
    views = []
    for cells in boards:
        for view in (cells, cells[::-1]):
            if view[MOVER, 24] == 0:
                views.append(np.ascontiguousarray(view))
    return views


@pytest.mark.slow
def test_hitting_rolls_against_brute_force_over_the_rules(selfplay_boards: np.ndarray) -> None:
    """On self-play positions (each side as attacker, none on the bar), the feature agrees with the rules
    core wherever the rules' must-play-both-dice rule takes no hit away (the one-checker count equals the
    rules' count), and elsewhere lies between them; and it always equals the one-checker count."""
    views = _attacker_views(selfplay_boards[::3])
    assert len(views) > 800
    with_blots = 0
    for cells in views:
        feature = hitting_rolls(cells, MOVER)
        assert feature == hitting_rolls(np.ascontiguousarray(cells[::-1]), OPPONENT)
        rules = _rules_hitting_rolls(cells)
        shots = _one_checker_hitting_rolls(cells)
        assert rules <= shots
        assert feature == shots, Position(cells).position_id()
        with_blots += feature > 0
    assert with_blots > 200  # the comparison is not all zeros


def test_shots_double_shots_and_pip_loss_against_brute_force(selfplay_boards: np.ndarray) -> None:
    """The three threat counts of ``shots`` equal the one-checker brute force on self-play positions,
    each side as attacker; enough of them have double shots for the comparison to mean something."""
    views = _attacker_views(selfplay_boards[::3])
    doubles = 0
    for cells in views:
        assert shots(cells, MOVER) == _one_checker_hits(cells), Position(cells).position_id()
        doubles += shots(cells, MOVER)[1] > 0
    assert doubles > 50


def test_double_shots_and_pip_loss_handmade() -> None:
    """A lone attacker on its 24 and two blots in front of it, on the mover's 23 and 22 (1 and 2 pips).
    Rolls with a 1 hit the 23 (11), rolls with a 2 or 1-1 the 22 (12): shots 20 (the rolls with a 1 or
    a 2), double shots 2-1 and 1-1 (3). The blot on the 23 loses 23 pips, the one on the 22 loses 22: the
    11 rolls with a 1 cost 23, the 9 with a 2 and no 1 cost 22: 451 pips over the 36 rolls. The features
    are the opponent's (at 215): double shots 3/36, pip loss 451 / (36 * 24)."""
    cells = board({24: 1}, {2: 1, 3: 1})
    assert shots(cells, MOVER) == (20, 3, 451)
    dense = encode_dense(cells)
    base = POINT_INPUTS + FEATURES
    assert dense[base + FEATURE_NAMES.index("shots")] == pytest.approx(20 / 36)
    assert dense[base + FEATURE_NAMES.index("double_shots")] == pytest.approx(3 / 36)
    assert dense[base + FEATURE_NAMES.index("pip_loss")] == pytest.approx(451 / (36 * 24))


def _escapes_by_hand(blocked: set[int]) -> int:
    """Of the 36 rolls, those whose sum lands on a point not in ``blocked`` (distances in front of the
    checker) with at least one of its dice landing on an open point too (gnubg's count of escapes)."""
    total = 0
    for (high, low), weight in zip(ROLLS, WEIGHTS, strict=True):
        if high + low not in blocked and not (high in blocked and low in blocked):
            total += weight
    return total


def test_escape_table_handmade() -> None:
    """Nothing in front: all 36 rolls escape. A six-point prime right in front: none. The point 6 pips
    in front made: 5-1, 4-2 (4 rolls), 3-3 (1) land on it and 6-6 cannot move (1): 30. Five points made
    1..5 pips in front: only a 6 gets out (11 rolls)."""
    assert ESCAPES[0] == 36
    assert ESCAPES[0b111111] == 0
    assert ESCAPES[1 << 5] == 30
    assert ESCAPES[0b11111] == 11
    for mask in range(0, 1 << 12, 37):
        assert ESCAPES[mask] == _escapes_by_hand({d for d in range(1, 13) if mask & (1 << (d - 1))})


def test_escapes_and_containment_against_brute_force(selfplay_boards: np.ndarray) -> None:
    """The ``escapes`` and ``contain`` features of both sides, counted again point by point on the board
    for self-play positions: the escapes of the side's rearmost checker past the other side's made
    points, and 36 less the fewest escapes of an opponent's checker on its 16-point to the bar."""
    names = FEATURE_NAMES.index("escapes"), FEATURE_NAMES.index("contain")
    for cells in selfplay_boards[::5]:
        dense = encode_dense(cells)
        for order, row in enumerate((MOVER, OPPONENT)):
            mine, theirs = cells[row], cells[1 - row]
            rear = max(index for index in range(25) if mine[index] > 0)

            def blocked(start: int, holder: np.ndarray) -> set[int]:
                return {d for d in range(1, min(start, 12) + 1) if holder[23 - (start - d)] >= 2}

            least = min(_escapes_by_hand(blocked(start, mine)) for start in range(15, 25))
            base = POINT_INPUTS + order * FEATURES
            assert dense[base + names[0]] == pytest.approx(_escapes_by_hand(blocked(rear, theirs)) / 36)
            assert dense[base + names[1]] == pytest.approx((36 - least) / 36)


def test_hitting_rolls_counts_a_roll_whose_only_hit_the_rules_forbid_handmade() -> None:
    """The one-checker count on a position where the rules forbid the only hit (the docstring says the
    feature counts such rolls):
    mover on 14 (one checker) and 4 (14 checkers); the opponent has a blot on the mover's 11 and a made
    point on the mover's 7. Shots at 3 pips: the 11 rolls with a 3, plus 2-1 (2) and 1-1 (1) = 14."""
    cells = board({14: 1, 4: 14}, {14: 1, 18: 2, 1: 12})
    assert _one_checker_hitting_rolls(cells) == 14
    assert hitting_rolls(cells, MOVER) == 14
    # the rules: with 4-3, 14/11* leaves the 4 unplayable (11/7 is blocked, nothing may bear off), while
    # 14/10 4/1 plays both dice, so 14/10 4/1 is the only legal play and 4-3 does not hit: 12
    assert [play.text for play in Position(cells).plays((4, 3))] == ["14/10 4/1"]
    assert _rules_hitting_rolls(cells) == 12


# --- model: position classes and sanity rules


def test_position_class_by_hand() -> None:
    assert position_class(start_board()) == CONTACT
    # both sides all in their home boards: a race
    assert position_class(board({6: 5, 5: 5, 4: 5}, {6: 5, 5: 5, 4: 5})) == RACE
    # mover's rearmost on 13, the opponent's rearmost on its 11 (the mover's 14): passed, a race
    assert position_class(board({13: 1, 6: 14}, {11: 1, 6: 14})) == RACE
    # the opponent's rearmost on its 13 (the mover's 12): the mover's checker on 13 can still hit it
    assert position_class(board({13: 1, 6: 14}, {13: 1, 6: 14})) == CONTACT
    # a checker on the bar enters into the other's home board, where the other's checkers are: contact
    assert position_class(board({25: 1, 6: 14}, {6: 15})) == CONTACT
    assert position_class(board({6: 15}, {25: 1, 6: 14})) == CONTACT
    # one checker each: the mover's on its 24 is behind the opponent's on its 2 (the mover's 23): contact;
    # both on their own ace points they have passed each other: a race
    assert position_class(board({24: 1}, {2: 1})) == CONTACT
    assert position_class(board({1: 1}, {1: 1})) == RACE


def _sanitised(cells: np.ndarray, race: bool, raw: list[float]) -> list[float]:
    out = np.array(raw, dtype=np.float64)
    sanitise(cells, race, out)
    return out.tolist()


def test_sanitise_orders_the_probabilities() -> None:
    """Nobody has borne off, contact: win gammon <= win, win backgammon <= win gammon; lose gammon <=
    lose = 1 - win, lose backgammon <= lose gammon."""
    cells = start_board()
    assert _sanitised(cells, False, [0.3, 0.5, 0.6, 0.9, 0.95]) == pytest.approx([0.3, 0.3, 0.3, 0.7, 0.7])
    assert _sanitised(cells, False, [0.6, 0.2, 0.1, 0.3, 0.05]) == pytest.approx([0.6, 0.2, 0.1, 0.3, 0.05])
    assert _sanitised(cells, False, [0.6, 0.2, 0.4, 0.3, 0.35]) == pytest.approx([0.6, 0.2, 0.2, 0.3, 0.3])


def test_sanitise_zeroes_gammons_of_a_side_that_has_borne_off() -> None:
    raw = [0.5, 0.2, 0.1, 0.2, 0.1]
    mover_off = board({6: 14}, {20: 2, 6: 13})  # the mover has borne off one: it cannot lose a gammon
    assert _sanitised(mover_off, False, raw) == pytest.approx([0.5, 0.2, 0.1, 0.0, 0.0])
    opponent_off = board({20: 2, 6: 13}, {6: 14})
    assert _sanitised(opponent_off, False, raw) == pytest.approx([0.5, 0.0, 0.0, 0.2, 0.1])


def test_sanitise_zeroes_backgammons_in_a_race_without_checkers_back() -> None:
    """In a race no checker is hit any more: a side with no checker in the other's home board (its own
    points 19..24) or on the bar cannot be backgammoned. In contact a hit can still send one back."""
    raw = [0.5, 0.2, 0.1, 0.2, 0.1]
    race = board({12: 5, 6: 10}, {12: 5, 6: 10})
    assert position_class(race) == RACE
    assert _sanitised(race, True, raw) == pytest.approx([0.5, 0.2, 0.0, 0.2, 0.0])
    assert _sanitised(race, False, raw) == pytest.approx(raw)  # not a race: left alone
    # the mover still has a checker on its 20 (in the opponent's home board): it can lose a backgammon
    mover_back = board({19: 1, 6: 14}, {5: 15})  # the opponent's 5 is the mover's 20: passed
    assert position_class(mover_back) == RACE
    assert _sanitised(mover_back, True, raw) == pytest.approx([0.5, 0.2, 0.0, 0.2, 0.1])


def test_sanitise_only_lowers_and_always_orders(selfplay_boards: np.ndarray) -> None:
    rng = np.random.default_rng(5)
    for cells in selfplay_boards[::7]:
        raw = rng.uniform(0, 1, 5)
        out = raw.copy()
        sanitise(cells, position_class(cells) == RACE, out)
        assert np.all(out <= raw)
        assert_consistent(out, Position(cells).position_id())


# --- net: forward pass and gradient step


def _dense_forward(net: Net, cells: np.ndarray) -> np.ndarray:
    """The net's outputs by plain numpy on the dense inputs: sigmoid(w2 . sigmoid(x w1 + b1) + b2)."""
    x = encode_dense(cells).astype(np.float64)
    hidden = 1 / (1 + np.exp(-(x @ net.w1.astype(np.float64) + net.b1)))
    return np.asarray(1 / (1 + np.exp(-(net.w2.astype(np.float64) @ hidden + net.b2))))


def _sparse(cells: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    indices = np.empty(MAX_NONZERO, dtype=np.int64)
    values = np.empty(MAX_NONZERO, dtype=np.float32)
    count = encode(cells, INPUTS, indices, values, np.empty(FEATURES, dtype=np.float32))
    return indices, values, count


def test_forward_equals_dense_numpy(selfplay_boards: np.ndarray) -> None:
    net = Net.random(8, seed=4)
    net.b2[:] = [0.1, -0.2, 0.3, -0.4, 0.5]
    net.b1[:] = np.linspace(-1, 1, 8)
    out = np.empty(OUTPUTS, dtype=np.float64)
    hidden = np.empty(SCRATCH_PER_UNIT * 8, dtype=np.float32)
    for cells in selfplay_boards[::50]:
        indices, values, count = _sparse(cells)
        forward(net.w1, net.b1, net.w2, net.b2, indices, values, count, hidden, out)
        np.testing.assert_allclose(out, _dense_forward(net, cells), atol=1e-5)


def test_train_step_moves_the_output_toward_the_target() -> None:
    """One step of rate r changes the output biases by exactly -r * (output - target) and the output
    weights by -r * (output - target) * hidden; only the first-layer rows of non-zero inputs change; the
    returned error is the squared error before the step; and the outputs move toward the target."""
    net = Net.random(8, seed=2)
    cells = start_board()
    indices, values, count = _sparse(cells)
    target = np.array([0.9, 0.05, 0.0, 0.4, 0.1])
    before = _dense_forward(net, cells)
    old = net.copy()
    hidden = np.empty(SCRATCH_PER_UNIT * 8, dtype=np.float32)
    delta = np.empty(8, dtype=np.float32)
    out = np.empty(OUTPUTS, dtype=np.float64)
    rate = 0.05
    error = train_step(
        net.w1, net.b1, net.w2, net.b2, indices, values, count, target, rate, hidden, delta, out
    )
    assert error == pytest.approx(float(((before - target) ** 2).sum()), rel=1e-5)
    np.testing.assert_allclose(net.b2, old.b2 - rate * (before - target), atol=1e-6)
    np.testing.assert_allclose(net.w2, old.w2 - rate * np.outer(before - target, hidden[:8]), atol=1e-6)
    untouched = np.setdiff1d(np.arange(INPUTS), indices[:count])
    np.testing.assert_array_equal(net.w1[untouched], old.w1[untouched])
    assert not np.array_equal(net.w1[indices[:count]], old.w1[indices[:count]])
    after = _dense_forward(net, cells)
    assert ((after - target) ** 2).sum() < ((before - target) ** 2).sum()
    assert np.all(np.abs(after - target) < np.abs(before - target))
    # many steps: the outputs get close to the target
    for _ in range(2000):
        train_step(net.w1, net.b1, net.w2, net.b2, indices, values, count, target, 0.5, hidden, delta, out)
    np.testing.assert_allclose(_dense_forward(net, cells), target, atol=0.02)


# --- plies: 0-ply, 1-ply, 2-ply against plain Python


def _best_result(evaluator: OwnEvaluator, position: Position, dice: tuple[int, int]) -> np.ndarray:
    """The result board of the play the side on roll picks at 0-ply: the highest cubeless equity from its
    own side (the first of equal ones), the results being seen from the next player's side. With pruning
    nets, only the PRUNED_PLAYS best by the pruning nets (same finals and database) are candidates."""
    plays = position.plays(dice)
    results = np.stack([play.result.board for play in plays])
    values = [equity_of(flip(p)) for p in evaluator.evaluate(results, 0)]
    candidates = list(range(len(plays)))
    if evaluator.pruning is not None and len(plays) > PRUNED_PLAYS:
        sorter = OwnEvaluator(evaluator.pruning, evaluator.database)
        scores = [equity_of(flip(p)) for p in sorter.evaluate(results, 0)]
        candidates = sorted(candidates, key=lambda k: (-scores[k], k))[:PRUNED_PLAYS]
    best = max(candidates, key=lambda k: (values[k], -k))
    return np.ascontiguousarray(results[best])


def _plied(evaluator: OwnEvaluator, cells: np.ndarray, plies: int) -> np.ndarray:
    """gnubg's n-ply in plain Python: 0-ply is the evaluator's; n-ply averages over the 21 rolls (1 or 2
    of 36) the (n - 1)-ply value, flipped to the side on roll, after its best play at 0-ply."""
    if plies == 0 or Position(cells).outcome() is not None:
        return np.asarray(evaluator.evaluate(cells, 0)[0])
    total = np.zeros(5)
    for dice, weight in zip(ROLLS, WEIGHTS, strict=True):
        after = _best_result(evaluator, Position(cells), dice)
        total += weight * flip(_plied(evaluator, after, plies - 1))
    return total / 36


PLY_POSITIONS = {
    "start": start_board(),
    # contact with blots and a prime
    "contact": board({24: 2, 13: 4, 8: 2, 7: 2, 6: 3, 5: 1, 4: 1}, {24: 1, 22: 2, 13: 5, 8: 3, 6: 4}),
    "race": board({12: 3, 9: 4, 6: 4, 4: 4}, {11: 2, 8: 5, 5: 4, 2: 4}),
    # the mover dances (cannot enter) with 6-6, 4-4 and 6-4: its 19 and 21 are made
    "bar": board({25: 1, 13: 4, 8: 3, 6: 5, 5: 2}, {24: 2, 13: 5, 8: 3, 6: 3, 4: 2}),
    # the mover's last checker on its 6: 27 of 36 rolls bear it off (a sum of 6 or more; 1-1, 2-1, 3-1,
    # 3-2, 4-1 do not) and win a backgammon: the opponent has borne off nothing and has checkers on the
    # mover's 5 (its own 20)
    "last_checker": board({6: 1}, {20: 5, 14: 5, 9: 5}),
}


@pytest.fixture(scope="module", params=["pruned", "unpruned"])
def plied(request: pytest.FixtureRequest, shipped: OwnEvaluator) -> OwnEvaluator:
    """The shipped evaluator with its pruning nets, and without (every play judged by the full nets)."""
    assert shipped.pruning is not None
    return shipped if request.param == "pruned" else replace(shipped, pruning=None)


@pytest.mark.parametrize("name", list(PLY_POSITIONS))
def test_one_ply_is_the_average_of_zero_ply_over_the_rolls(plied: OwnEvaluator, name: str) -> None:
    cells = PLY_POSITIONS[name]
    expected = _plied(plied, cells, 1)
    got = plied.evaluate(cells, 1)[0]
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    assert_consistent(got, name)
    if name == "last_checker":
        assert position_class(cells) == CONTACT
        assert got[0] >= 27 / 36 and got[1] >= 27 / 36 and got[2] >= 27 / 36


@pytest.mark.parametrize("name", ["race", "bar"])
def test_two_ply_is_the_average_of_one_ply_over_the_rolls(plied: OwnEvaluator, name: str) -> None:
    cells = PLY_POSITIONS[name]
    np.testing.assert_allclose(plied.evaluate(cells, 2)[0], _plied(plied, cells, 2), rtol=0, atol=1e-12)


def test_pruning_keeps_the_full_nets_choice_almost_always(
    shipped: OwnEvaluator, selfplay_boards: np.ndarray
) -> None:
    """The pruning nets exist to save time, not to change answers: over the rolls of 40 self-play
    positions with more plays than are kept, the full nets' pick survives the pruning in at least 90% of
    the rolls, and the picks it replaces lose, by the full nets' own 0-ply, under 0.005 on average over
    all those rolls; 1-ply values move by little on average."""
    unpruned = replace(shipped, pruning=None)
    boards = selfplay_boards[::40][:40]
    kept = 0
    lost: list[float] = []
    for cells in boards:
        for dice in ROLLS:
            if len(Position(cells).plays(dice)) <= PRUNED_PLAYS:
                continue
            picks = np.stack(
                [_best_result(unpruned, Position(cells), dice), _best_result(shipped, Position(cells), dice)]
            )
            kept += bool(np.array_equal(picks[0], picks[1]))
            best, pruned = (equity_of(flip(p)) for p in unpruned.evaluate(picks, 0))
            assert best >= pruned
            lost.append(best - pruned)
    assert len(lost) > 200 and kept / len(lost) >= 0.9, (kept, len(lost))
    assert float(np.mean(lost)) < 0.005, np.mean(lost)
    difference = np.abs(shipped.evaluate(boards, 1) - unpruned.evaluate(boards, 1)).mean()
    assert difference < 0.01


@pytest.mark.slow
def test_threads_give_the_same_numbers(shipped: OwnEvaluator, selfplay_boards: np.ndarray) -> None:
    """Spreading boards over threads (as labelling does) changes nothing but the time."""
    boards = selfplay_boards[::60]
    np.testing.assert_array_equal(shipped.evaluate(boards, 1, threads=2), shipped.evaluate(boards, 1))


def test_final_positions_are_exact_at_every_ply(shipped: OwnEvaluator) -> None:
    """The side not on roll has borne off everything: the side on roll has lost; a gammon when it bore
    off nothing, a backgammon when it also has a checker on the bar or in the winner's home board."""
    single = board({6: 14}, {})
    gammon = board({18: 5, 6: 10}, {})
    backgammon_home = board({19: 1, 6: 14}, {})
    backgammon_bar = board({25: 1, 6: 14}, {})
    boards = np.stack([single, gammon, backgammon_home, backgammon_bar])
    expected = [[0, 0, 0, 0, 0], [0, 0, 0, 1, 0], [0, 0, 0, 1, 1], [0, 0, 0, 1, 1]]
    for plies in range(4):
        np.testing.assert_array_equal(shipped.evaluate(boards, plies), expected)


def test_bearoffs_use_the_database_exactly(shipped: OwnEvaluator) -> None:
    assert shipped.database is not None
    boards = np.stack(
        [
            board({1: 1}, {1: 1}),  # the mover bears off at once and wins: 1
            board({6: 2}, {1: 1}),  # both off in one roll only with 6-6, 5-5, 4-4, 3-3: 4 of 36
            board({6: 5, 5: 5, 4: 5}, {3: 5, 2: 5, 1: 5}),
            board({6: 1, 1: 2}, {5: 3}),
        ]
    )
    assert all(is_bearoff(cells) for cells in boards)
    got = shipped.evaluate(boards, 0)
    np.testing.assert_array_equal(got, shipped.database.probabilities(boards))
    assert got[0, 0] == 1.0
    assert got[1, 0] == pytest.approx(4 / 36)


def test_probabilities_consistent_at_zero_and_one_ply(
    shipped: OwnEvaluator, selfplay_boards: np.ndarray
) -> None:
    zero = shipped.evaluate(selfplay_boards, 0)
    one = shipped.evaluate(selfplay_boards[::10], 1)
    for plies, table, boards in ((0, zero, selfplay_boards), (1, one, selfplay_boards[::10])):
        for p, cells in zip(table, boards, strict=True):
            assert_consistent(p, f"{plies}-ply {Position(cells).position_id()}")
    # the evaluation is a function of the board: one by one equals the batch
    np.testing.assert_array_equal(shipped.evaluate(selfplay_boards[5], 0)[0], zero[5])


def test_evaluate_rejects_plies_out_of_range(shipped: OwnEvaluator) -> None:
    with pytest.raises(ValueError, match="plies"):
        shipped.evaluate(start_board(), 4)
    with pytest.raises(ValueError, match="plies"):
        shipped.evaluate(start_board(), -1)


# --- weights files


def _tiny_nets(seed: int) -> NetPair:
    return NetPair(Net.random(8, seed), Net.random(4, seed + 1))


def test_weights_round_trip(tmp_path: Path) -> None:
    nets = _tiny_nets(3)
    path = tmp_path / "nets.npz"
    save_nets(path, nets, {"stage": "test", "games": 7})
    loaded, meta = load_nets(path)
    assert meta == {"stage": "test", "games": 7}
    for mine, theirs in zip(nets.arrays(), loaded.arrays(), strict=True):
        np.testing.assert_array_equal(mine, theirs)
        assert theirs.dtype == np.float32
    assert weights_digest(loaded) == weights_digest(nets)
    assert [entry.name for entry in tmp_path.iterdir()] == ["nets.npz"]


def test_digest_and_version_change_with_one_weight(tmp_path: Path) -> None:
    nets = _tiny_nets(3)
    changed = nets.copy()
    changed.race.w2[2, 1] += np.float32(1e-3)
    assert weights_digest(changed) != weights_digest(nets)
    assert len(weights_digest(nets)) == 12
    first, second = tmp_path / "a.npz", tmp_path / "b.npz"
    save_nets(first, nets, {})
    save_nets(second, changed, {})
    one = OwnEvaluator.load(first, database=False)
    other = OwnEvaluator.load(second, database=False)
    assert one.version == f"own{EVALUATION_VERSION}-{weights_digest(nets)}"
    assert one.version != other.version
    assert OwnEvaluator.load(first, database=False).version == one.version


def test_bad_weights_files_raise_value_error_naming_the_file(tmp_path: Path) -> None:
    not_npz = tmp_path / "not-weights.npz"
    not_npz.write_text("hello")
    with pytest.raises(ValueError, match=r"not-weights\.npz"):
        load_nets(not_npz)
    nets = _tiny_nets(1)
    wrong = tmp_path / "wrong-shape.npz"
    arrays = {**nets.contact.arrays("contact"), **nets.race.arrays("race")}
    arrays["race.w1"] = arrays["race.w1"][:-1]  # one input row short
    np.savez(wrong, **arrays)
    with pytest.raises(ValueError, match=r"wrong-shape\.npz"):
        load_nets(wrong)
    with pytest.raises(ValueError, match=r"wrong-shape\.npz"):
        OwnEvaluator.load(wrong, database=False)
    missing = tmp_path / "missing.npz"
    np.savez(missing, **nets.contact.arrays("contact"))
    with pytest.raises(ValueError, match=r"missing\.npz"):
        load_nets(missing)
    with pytest.raises(ValueError, match=r"absent\.npz"):
        load_nets(tmp_path / "absent.npz")


def test_files_of_the_first_seven_features_load_and_answer_as_before(
    tmp_path: Path, selfplay_boards: np.ndarray
) -> None:
    """A file written before the feature list was kept (its nets read the seven first features, no
    ``features`` entry) loads with the later features weighted zero: the contact net answers as plain
    numpy does on the inputs such a net read (the point units, then the seven features of each side)."""
    old_inputs = POINT_INPUTS + 2 * 7
    contact, race = Net.random(8, 3, old_inputs), Net.random(4, 4, old_inputs)
    contact.b1[:] = np.linspace(-1, 1, 8)
    path = tmp_path / "old.npz"
    np.savez(path, meta=np.array("{}"), **contact.arrays("contact"), **race.arrays("race"))
    nets, _ = load_nets(path)
    assert nets.contact.inputs == INPUTS
    read = np.r_[0 : POINT_INPUTS + 7, POINT_INPUTS + FEATURES : POINT_INPUTS + FEATURES + 7]
    out = np.empty(OUTPUTS, dtype=np.float64)
    hidden = np.empty(SCRATCH_PER_UNIT * 8, dtype=np.float32)
    compared = 0
    for cells in selfplay_boards[::40]:
        if position_class(cells) != CONTACT:
            continue
        x = encode_dense(cells)[read].astype(np.float64)
        inner = 1 / (1 + np.exp(-(x @ contact.w1.astype(np.float64) + contact.b1)))
        expected = 1 / (1 + np.exp(-(contact.w2.astype(np.float64) @ inner + contact.b2)))
        indices, values, count = _sparse(cells)
        w1, b1, w2, b2 = nets.contact.w1, nets.contact.b1, nets.contact.w2, nets.contact.b2
        forward(w1, b1, w2, b2, indices, values, count, hidden, out)
        np.testing.assert_allclose(out, expected, atol=1e-5)
        compared += 1
    assert compared > 20
    unknown = tmp_path / "unknown.npz"
    np.savez(
        unknown, features=np.array(["off", "swagger"]), **contact.arrays("contact"), **race.arrays("race")
    )
    with pytest.raises(ValueError, match=r"unknown\.npz.*swagger"):
        load_nets(unknown)


def test_pruning_nets_round_trip_and_enter_the_version(tmp_path: Path) -> None:
    nets = _tiny_nets(3)
    pruning = NetPair(Net.random(4, 5, POINT_INPUTS), Net.random(3, 6, POINT_INPUTS))
    plain, pruned = tmp_path / "plain.npz", tmp_path / "pruned.npz"
    save_nets(plain, nets, {})
    save_nets(pruned, nets, {}, pruning)
    assert load_pruning(plain) is None
    loaded = load_pruning(pruned)
    assert loaded is not None and loaded.contact.inputs == POINT_INPUTS
    for mine, theirs in zip(pruning.arrays(), loaded.arrays(), strict=True):
        np.testing.assert_array_equal(mine, theirs)
    one = OwnEvaluator.load(plain, database=False)
    other = OwnEvaluator.load(pruned, database=False)
    assert other.version == f"{one.version}-prune{weights_digest(pruning)}"
    with pytest.raises(ValueError, match="inputs"):
        NetPair(Net.random(4, 5, POINT_INPUTS), Net.random(3, 6))


def test_shipped_weights_load(shipped: OwnEvaluator) -> None:
    nets, _ = load_nets(SHIPPED)
    assert shipped.version.startswith(f"own{EVALUATION_VERSION}-{weights_digest(nets)}-prune")
    assert nets.contact.w1.shape[0] == INPUTS and nets.race.w1.shape[0] == INPUTS
    pruning = load_pruning(SHIPPED)
    assert pruning is not None and pruning.race.w1.shape[0] == POINT_INPUTS
    assert all(np.isfinite(array).all() for array in nets.arrays())


def test_shipped_weights_play_legal_games_to_the_end(shipped: OwnEvaluator) -> None:
    """Two games of the shipped evaluator against itself through ``match.play_game`` (every play from the
    rules core's legal plays); each ends, with 1, 2 or 3 points."""
    player = BackgammonPlayer(shipped, Search(plies=0), "own:0")
    for pair in range(2):
        result = play_game(player, player, 0, dice_sequence(3, pair), pair)
        assert result.value in (1, 2, 3)
        assert 10 < result.plies < 400


def test_shipped_nets_self_play_finishes_every_game_legally(shipped: OwnEvaluator) -> None:
    """Self-play without learning: every game ends (none cut off), each counted as a single win, gammon or
    backgammon; each kept position is a board the rules accept, and each one after the first of a game is
    the result of a legal play of the one before, turned to the next player's side."""
    games = 12
    keep = np.empty((games * 200, 2, 25), dtype=np.int8)
    stats = np.zeros(8, dtype=np.int64)
    nets = shipped.nets.copy()
    self_play(nets.arrays(), KEY_WORDS, start_board(), games, 9, 0.0, 0.0, False, stats, keep)
    assert stats[0] == games and stats[5] == 0
    assert stats[2] + stats[3] + stats[4] == games
    assert stats[7] == stats[1]  # every position kept
    for mine, theirs in zip(nets.arrays(), shipped.nets.arrays(), strict=True):
        np.testing.assert_array_equal(mine, theirs)  # no learning
    kept = keep[: stats[7]]
    buffers = PlayBuffers()
    starts = 0
    for before, after in itertools.pairwise(kept):
        Position(after)
        if np.array_equal(after, start_board()):
            starts += 1
            continue
        reachable = False
        for high, low in ROLLS:
            count = generate_plays(before, high, low, KEY_WORDS, *buffers.arrays())
            if (buffers.boards[:count, ::-1] == after).all(axis=(1, 2)).any():
                reachable = True
                break
        assert reachable, (Position(before).position_id(), Position(after).position_id())
    assert starts == games - 1


def test_pruning_forward_reads_the_board_as_the_encoding_does(selfplay_boards: np.ndarray) -> None:
    """``forward_points`` (a pruning net straight off the board) gives bit for bit what ``encode`` with
    POINT_INPUTS then ``forward`` give, on every self-play position."""
    net = Net.random(16, 9, POINT_INPUTS)
    indices = np.empty(MAX_NONZERO, dtype=np.int64)
    values = np.empty(MAX_NONZERO, dtype=np.float32)
    hidden = np.empty(SCRATCH_PER_UNIT * 16, dtype=np.float32)
    direct, listed = np.empty(5), np.empty(5)
    for cells in selfplay_boards[::7]:
        count = encode(cells, POINT_INPUTS, indices, values, np.empty(FEATURES, dtype=np.float32))
        assert np.all(indices[:count] < POINT_INPUTS)
        forward(net.w1, net.b1, net.w2, net.b2, indices, values, count, hidden, listed)
        forward_points(cells, net.w1, net.b1, net.w2, net.b2, hidden, direct)
        np.testing.assert_array_equal(direct, listed)


@pytest.mark.slow
def test_pruning_forward_from_the_starting_position_equals_the_full_sums(selfplay_boards: np.ndarray) -> None:
    """``forward_points_after`` (a play valued from the hidden sums of the position it starts from, as the
    plies prune) gives ``forward_points``'s numbers up to float32 rounding, on every play of every roll
    of self-play positions: hits, entering from the bar, bearing off and the fourth unit included."""
    net = Net.random(16, 11, POINT_INPUTS)
    buffers = PlayBuffers()
    base_sums = np.empty(16, dtype=np.float32)
    hidden = np.empty(SCRATCH_PER_UNIT * 16, dtype=np.float32)
    direct, stepped = np.empty(5), np.empty(5)
    base, candidate = np.empty((2, 25), dtype=np.int8), np.empty((2, 25), dtype=np.int8)
    checked = hits = 0
    for cells in selfplay_boards[::13]:
        swap_into(cells, base)
        point_sums(base, net.w1, net.b1, base_sums)
        for high, low in ROLLS:
            count = generate_plays(cells, high, low, KEY_WORDS, *buffers.arrays())
            for play in range(count):
                swap_into(buffers.boards[play], candidate)
                hits += int(candidate[MOVER, 24] > base[MOVER, 24])
                forward_points(candidate, net.w1, net.b1, net.w2, net.b2, hidden, direct)
                forward_points_after(
                    candidate,
                    base,
                    base_sums,
                    buffers.moves[play],
                    buffers.lengths[play],
                    net.w1,
                    net.w2,
                    net.b2,
                    hidden,
                    stepped,
                )
                np.testing.assert_allclose(stepped, direct, rtol=0, atol=2e-6)
                checked += 1
    assert checked > 10_000 and hits > 100
