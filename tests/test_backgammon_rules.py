"""Backgammon rules as the library plays them: play notation, the legal plays of hand-made positions, the
end of a game, invariants of every legal play, the cube and match scoring, and positions read from text.

Every expected answer is worked out by hand from the rules in ../shared/docs/backgammon.md ("Rules") and
written out here. Positions are built from {point: checkers} maps, points counted from each side's own home
board as players write them (25 = bar); checkers not placed are borne off.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Mapping, Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from taldau.games.backgammon import CubeError, GameValue, MatchState, Outcome, Play, Position, Rules
from taldau.games.backgammon.rules.position_text import read_position

START_ID = "4HPwATDgc/ABMA"
START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:7:10"  # backgammon.md: a 7-point match
BAR, OFF = 25, 0
NOT_ON_ROLL, ON_ROLL = 0, 1  # board rows
Move = tuple[int, int]


def make(mover: Mapping[int, int], opponent: Mapping[int, int] | None = None, turn: int = 0) -> Position:
    """A position from the checkers of the side on roll (``mover``) and of the other side, each a map
    {point: checkers} with points 1..24 counted from that side's own home board and 25 for its bar."""
    board = np.zeros((2, 25), dtype=np.int8)
    for row, checkers in ((ON_ROLL, mover), (NOT_ON_ROLL, opponent or {})):
        for point, count in checkers.items():
            board[row, point - 1] = count
    return Position(board, turn)


def texts(position: Position, dice: Sequence[int]) -> set[str]:
    """The notation of every legal play of ``dice``."""
    return {play.text for play in position.plays(dice)}


def play_of(position: Position, dice: Sequence[int], moves: Sequence[Move]) -> Play:
    """The one legal play of ``dice`` ending where the single moves (from, to) end."""
    target = position.play_moves(moves)
    found = [play for play in position.plays(dice) if play.result == target]
    assert len(found) == 1, f"{moves} is not one legal play of {dice}"
    return found[0]


# --- notation


@pytest.mark.parametrize(
    ("position", "dice", "moves", "text"),
    [
        pytest.param(
            make({13: 1, 24: 2}, {18: 1, 6: 2}), (6, 2), [(13, 7), (7, 5)], "13/7*/5", id="hit-on-the-way"
        ),
        pytest.param(make({24: 2}, {5: 2}), (2, 2), [(24, 22), (24, 22)], "24/22(2)", id="repeated"),
        pytest.param(make({25: 2, 13: 3}, {6: 2}), (6, 3), [(25, 22)], "bar/22", id="bar"),
        pytest.param(make({6: 1}), (6, 5), [(6, 0)], "6/off", id="off"),
        pytest.param(Position.start(), (6, 5), [(24, 18), (18, 13)], "24/13", id="one-checker-both-dice"),
        pytest.param(
            Position.start(),
            (6, 6),
            [(24, 18), (24, 18), (13, 7), (13, 7)],
            "24/18(2) 13/7(2)",
            id="doubles",
        ),
        pytest.param(Position.start(), (3, 1), [(6, 5), (13, 10)], "13/10 6/5", id="highest-first"),
        pytest.param(
            make({25: 1, 13: 2}, {6: 2}), (6, 3), [(25, 22), (13, 7)], "bar/22 13/7", id="bar-first"
        ),
        pytest.param(make({6: 1, 5: 1}), (6, 1), [(5, 4), (6, 0)], "6/off 5/4", id="off-first-by-point"),
    ],
)
def test_notation(position: Position, dice: tuple[int, int], moves: list[Move], text: str) -> None:
    assert play_of(position, dice, moves).text == text


def test_notation_of_a_hit_on_the_way_records_the_hit() -> None:
    play = play_of(make({13: 1, 24: 2}, {18: 1, 6: 2}), (6, 2), [(13, 7), (7, 5)])
    assert play.hits == (7,)
    assert play.result.board[ON_ROLL, BAR - 1] == 1  # the hit checker waits on the bar, its owner on roll


def test_notation_of_two_checkers_hitting_together() -> None:
    # 4-4: both checkers from the 8-point go to 4, hitting the blot there; nothing else can move
    # (20 and 16 are held, and no checker bears off while one stands on 24)
    position = make({8: 2, 24: 1}, {21: 1, 5: 2, 9: 2})
    assert texts(position, (4, 4)) == {"8/4*(2)"}


# --- which plays are legal


@pytest.mark.parametrize(
    ("position", "dice", "expected"),
    [
        # 24/20 alone would leave the 6 unplayable (20/14 and 8/2 blocked): both dice must be played
        pytest.param(
            make({24: 1, 8: 1}, {11: 2, 23: 2}), (6, 4), {"24/18 8/4"}, id="both-dice-when-possible"
        ),
        # 24/18 is blocked, so is 19/13 after the 5: only the 5 can be played
        pytest.param(make({24: 1}, {7: 2, 12: 2}), (6, 5), {"24/19"}, id="only-one-die"),
        # 24/18 or 24/20, never both (14 is blocked): the higher die
        pytest.param(make({24: 1}, {11: 2}), (6, 4), {"24/18"}, id="either-not-both-higher-die"),
        # 24/21/18 and 13/10; 18/15 and 10/7 are blocked: three of the four 3s
        pytest.param(make({24: 1, 13: 1}, {10: 2, 18: 2}), (3, 3), {"24/18 13/10"}, id="doubles-in-part"),
        # two on the bar, the 6-point closed: one enters with the 3, and the 6 may not move another checker
        pytest.param(make({25: 2, 13: 3}, {6: 2}), (6, 3), {"bar/22"}, id="bar-entry-first"),
        pytest.param(
            make({25: 1, 13: 3}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2}), (6, 3), {""}, id="closed-board"
        ),
        # bearing off exactly, or moving inside first and bearing off the 3 with the 5
        pytest.param(make({5: 1, 3: 1}), (5, 3), {"5/off 3/off", "5/2 3/off"}, id="bear-off-exactly"),
        pytest.param(make({3: 1, 2: 1}), (6, 5), {"3/off 2/off"}, id="higher-die-from-highest-point"),
        # the 5 cannot take off the checker on 4 while one stands on 6 (and 6/1, 6/2 are blocked)
        pytest.param(
            make({6: 1, 4: 1}, {24: 2, 23: 2}), (5, 4), {"4/off"}, id="higher-die-not-past-a-checker"
        ),
        pytest.param(make({6: 1, 4: 1}, {24: 2, 23: 2}), (5, 5), {""}, id="higher-die-not-past-a-checker-55"),
        # 2/off is available, moving inside instead is legal too
        pytest.param(
            make({6: 2, 2: 1}), (2, 1), {"6/5 6/4", "6/3", "6/4 2/1", "6/5 2/off"}, id="moving-inside-instead"
        ),
        # a hit checker enters, and no checker bears off while it is outside the home board
        pytest.param(
            make({25: 1, 6: 3, 1: 1}), (6, 5), {"bar/14", "bar/19 6/1"}, id="re-enter-before-bear-off"
        ),
        # one checker, two move orders: one play
        pytest.param(make({10: 1}), (2, 1), {"10/7"}, id="dedup-one-checker"),
        pytest.param(
            make({20: 1, 10: 1}),
            (1, 1),
            {"20/16", "20/17 10/9", "20/18 10/8", "20/19 10/7", "10/6"},
            id="dedup-doubles",
        ),
    ],
)
def test_legal_plays(position: Position, dice: tuple[int, int], expected: set[str]) -> None:
    plays = position.plays(dice)
    assert {play.text for play in plays} == expected
    assert len(plays) == len(expected)  # one play per distinct result


def test_the_16_opening_plays_of_31() -> None:
    assert texts(Position.start(), (3, 1)) == {
        "24/23 24/21", "24/20", "24/21 8/7", "24/21 6/5", "24/23 13/10", "13/9", "13/10 8/7", "13/10 6/5",
        "24/23 8/5", "8/7 8/5", "8/5 6/5", "8/4", "24/23 6/3", "8/7 6/3", "6/5 6/3", "6/2",
    }  # fmt: skip


def test_opening_66_has_eleven_plays() -> None:
    # 24/18 (at most 2), 13/7 and 8/2 (at most 3): 18/12 and 7/1 are blocked
    assert len(Position.start().plays((6, 6))) == 11


def test_no_legal_play_passes_the_turn() -> None:
    position = make({25: 1, 13: 3}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2}, turn=1)
    (play,) = position.plays((6, 3))
    assert play.moves == () and play.result == position.swapped()


# --- the end of a game


@pytest.mark.parametrize(
    ("loser", "value"),
    [
        pytest.param({6: 14}, GameValue.SINGLE, id="loser-bore-off-one"),
        pytest.param({19: 1, 6: 13}, GameValue.SINGLE, id="bore-off-one-with-one-in-winners-home"),
        pytest.param({6: 15}, GameValue.GAMMON, id="none-off"),
        pytest.param({18: 1, 6: 14}, GameValue.GAMMON, id="none-off-one-on-winners-7"),
        pytest.param({25: 1, 6: 14}, GameValue.BACKGAMMON, id="on-the-bar"),
        pytest.param({19: 1, 6: 14}, GameValue.BACKGAMMON, id="in-winners-home"),
        pytest.param({23: 1, 6: 14}, GameValue.BACKGAMMON, id="on-winners-2"),
    ],
)
def test_outcome_after_the_last_checker_is_borne_off(loser: dict[int, int], value: GameValue) -> None:
    position = make({1: 1}, loser, turn=1)
    (play,) = position.plays((2, 1))
    assert play.text == "1/off"
    assert play.result.turn == 0
    assert play.result.outcome() == Outcome(1, value)


def test_outcome_when_the_side_on_roll_has_finished() -> None:
    assert make({}, {6: 15}, turn=0).outcome() == Outcome(0, GameValue.GAMMON)


def test_no_outcome_while_both_sides_have_checkers() -> None:
    assert Position.start().outcome() is None
    assert make({1: 1}, {6: 1}).outcome() is None


def test_result_is_seen_from_the_next_player() -> None:
    start = Position.from_position_id(START_ID, turn=0)
    play = play_of(start, (3, 1), [(8, 5), (6, 5)])
    assert play.text == "8/5 6/5"
    assert play.result.turn == 1
    assert play.result.position_id() == "sGfwATDgc/ABMA"
    assert play.result.board[NOT_ON_ROLL, 4] == 2  # the player who just moved now holds its 5-point


# --- invariants of every legal play


def random_position(seed: int, turns: int) -> Position:
    """The position after up to ``turns`` random plays from the start, chosen with ``random.Random(seed)``;
    stops before a play that would end the game."""
    chooser = random.Random(seed)
    position = Position.start()
    for _ in range(turns):
        play = chooser.choice(position.plays((chooser.randint(1, 6), chooser.randint(1, 6))))
        if play.result.outcome() is not None:
            break
        position = play.result
    return position


def dice_orders(dice: tuple[int, int], count: int) -> set[tuple[int, ...]]:
    """The dice that ``count`` single moves of a play may have used, in playing order."""
    high, low = max(dice), min(dice)
    if high == low:
        return {(high,) * count}
    return {(high, low)[:count], (low, high)[:count]}


def unused_pips(position: Position, moves: Sequence[Move], dice: Sequence[int]) -> int | None:
    """Replay single moves with the given dice, each checked on its own: from a point holding a checker
    (from the bar first), by exactly its die to a point with fewer than 2 opposing checkers, or off with
    every checker home, by its die or by a higher die from the highest point. Returns the pips the
    bear-offs by a higher die left unused, or None when a move is not legal with its die."""
    mover = position.board[ON_ROLL].astype(int)
    opponent = position.board[NOT_ON_ROLL]
    unused = 0
    for (start, end), die in zip(moves, dice, strict=True):
        if mover[start - 1] == 0 or (mover[BAR - 1] and start != BAR):
            return None
        if end != OFF:
            if start - end != die or opponent[24 - end] >= 2:
                return None
        else:
            higher_checkers = mover[start:24].any()  # points start+1 .. 24
            if mover[6:25].any() or start > die or (start < die and higher_checkers):
                return None
            unused += die - start
        mover[start - 1] -= 1
        if end != OFF:
            mover[end - 1] += 1
    return unused


def test_the_single_move_checker_itself() -> None:
    blocked_bear_off = make({6: 1, 4: 1}, {24: 2, 23: 2})
    assert unused_pips(blocked_bear_off, [(4, 0)], (4,)) == 0
    assert unused_pips(blocked_bear_off, [(4, 0)], (5,)) is None  # a checker stands higher, on 6
    assert unused_pips(blocked_bear_off, [(6, 1)], (5,)) is None  # the 1-point is held
    assert unused_pips(make({3: 1, 2: 1}), [(3, 0), (2, 0)], (6, 5)) == 6  # 3 + 3 pips unused
    assert unused_pips(make({8: 1, 2: 1}), [(2, 0)], (2,)) is None  # not all checkers home
    assert unused_pips(make({25: 1, 8: 1}), [(8, 5)], (3,)) is None  # the bar first


def check_plays(position: Position, dice: tuple[int, int]) -> list[tuple[Play, int]]:
    """Assert the invariants of every legal play of ``dice`` in ``position``; returns each play with the
    pips its bear-offs by a higher die left unused."""
    plays = list(position.plays(dice))
    assert len({play.result for play in plays}) == len(plays)
    assert len({len(play.moves) for play in plays}) == 1  # everyone plays as many dice as the rules demand
    assert len(plays[0].moves) <= (4 if dice[0] == dice[1] else 2)
    mover_pips, opponent_pips = position.pips()
    checked = []
    for play in plays:
        result = play.result
        assert result.turn == 1 - position.turn
        assert Position(result.board, result.turn) == result  # a valid board: <= 15 a side, points not shared
        # checkers: the mover's leave only by bearing off, the opponent's never leave the board
        off_moves = sum(end == OFF for _, end in play.moves)
        assert result.borne_off(NOT_ON_ROLL) == position.borne_off(ON_ROLL) + off_moves
        assert result.board[ON_ROLL].sum() == position.board[NOT_ON_ROLL].sum()
        assert result.borne_off(NOT_ON_ROLL) + result.board[NOT_ON_ROLL].sum() == 15
        # pips drop by the dice used, less what a bear-off by a higher die leaves unused
        drop = mover_pips - result.pips()[1]
        used = dice_orders(dice, len(play.moves))
        unused = {order: unused_pips(position, play.moves, order) for order in used}
        fits = [waste for order, waste in unused.items() if waste is not None and drop == sum(order) - waste]
        assert fits, (position, dice, play.moves)
        checked.append((play, min(fits)))
        # each hit sends a blot standing on the mover's point h (the opponent's 25 - h) to the bar: +h pips
        assert result.pips()[0] - opponent_pips == sum(play.hits)
        assert result.board[ON_ROLL, BAR - 1] - position.board[NOT_ON_ROLL, BAR - 1] == len(play.hits)
        assert Position.from_position_id(result.position_id(), result.turn) == result
    return checked


@settings(max_examples=150, deadline=None, derandomize=True)
@given(
    seed=st.integers(min_value=0, max_value=2**32 - 1),
    turns=st.integers(min_value=0, max_value=200),
    dice=st.tuples(st.integers(1, 6), st.integers(1, 6)),
)
def test_invariants_of_plays_in_random_positions(seed: int, turns: int, dice: tuple[int, int]) -> None:
    check_plays(random_position(seed, turns), dice)


def seeded_turns(games: int, seed: int = 2026) -> Iterator[tuple[Position, tuple[int, int]]]:
    """Every (position, roll) met in ``games`` random games played to the end from the start."""
    chooser = random.Random(seed)
    for _ in range(games):
        position = Position.start(turn=chooser.randint(0, 1))
        while position.outcome() is None:
            dice = (chooser.randint(1, 6), chooser.randint(1, 6))
            yield position, dice
            position = chooser.choice(position.plays(dice)).result


def test_invariants_along_whole_games_reach_every_kind_of_move() -> None:
    seen = {"hit": 0, "enter": 0, "off": 0, "off by a higher die": 0, "no move": 0, "part of a roll": 0}
    for position, dice in seeded_turns(6):
        checked = check_plays(position, dice)
        moves = len(checked[0][0].moves)
        seen["no move"] += moves == 0
        seen["part of a roll"] += 0 < moves < (4 if dice[0] == dice[1] else 2)
        for play, unused in checked:
            seen["hit"] += bool(play.hits)
            seen["enter"] += any(start == BAR for start, _ in play.moves)
            seen["off"] += any(end == OFF for _, end in play.moves)
            seen["off by a higher die"] += unused > 0
    assert all(seen.values()), seen


# --- the cube and the score


MONEY = Rules()


def test_take_doubles_the_cube_and_the_taker_owns_it() -> None:
    offered = MatchState(MONEY).double(0)
    assert (offered.cube, offered.offered_by) == (1, 0)
    taken = offered.take(1)
    assert (taken.cube, taken.cube_owner, taken.offered_by) == (2, 1, None)


def test_drop_gives_the_doubler_the_stake_before_the_double() -> None:
    assert MatchState(MONEY).double(0).drop(1) == (0, 1)
    assert MatchState(MONEY).double(0).take(1).double(1).drop(0) == (1, 2)


def test_only_the_owner_redoubles() -> None:
    taken = MatchState(MONEY).double(0).take(1)
    assert not taken.can_double(0) and taken.can_double(1)
    with pytest.raises(CubeError, match="does not own the cube"):
        taken.double(0)
    redoubled = taken.double(1).take(0)
    assert (redoubled.cube, redoubled.cube_owner) == (4, 0)


def test_cube_answers_need_an_offer_from_the_other_player() -> None:
    with pytest.raises(CubeError, match="no cube offered"):
        MatchState(MONEY).take(1)
    with pytest.raises(CubeError, match="their own double"):
        MatchState(MONEY).double(0).take(0)
    with pytest.raises(CubeError, match="already offered"):
        MatchState(MONEY).double(0).double(0)


def test_crawford_game_follows_from_the_scores() -> None:
    seven = MatchState(Rules(length=7), score=(5, 5))
    crawford = seven.next_game(1, 1)
    assert (crawford.score, crawford.crawford_game, crawford.post_crawford) == ((5, 6), True, False)
    assert not crawford.can_double(0) and not crawford.can_double(1)
    with pytest.raises(CubeError, match="Crawford"):
        crawford.double(0)
    after = crawford.next_game(0, 1)
    assert (after.score, after.crawford_game, after.post_crawford) == ((6, 6), False, True)
    assert after.can_double(0) and after.can_double(1)
    assert after.double(1).take(0).cube == 2


def test_crawford_game_comes_once_and_only_at_n_minus_1() -> None:
    seven = Rules(length=7)
    assert MatchState(seven, score=(4, 0)).next_game(0, 2).crawford_game  # 4 + gammon = 6
    assert not MatchState(seven, score=(4, 0)).next_game(0, 1).crawford_game
    post = MatchState(seven, score=(6, 4), post_crawford=True).next_game(1, 1)
    assert (post.score, post.crawford_game, post.post_crawford) == ((6, 5), False, True)
    assert not MatchState(Rules(length=7, crawford=False), score=(5, 5)).next_game(0, 1).crawford_game
    assert not MatchState(MONEY, score=(5, 5)).next_game(0, 1).crawford_game


def test_beaver_only_in_money_play() -> None:
    beavered = MatchState(MONEY).double(0).beaver(1)
    assert (beavered.cube, beavered.cube_owner, beavered.offered_by) == (4, 1, None)
    with pytest.raises(CubeError, match="money play"):
        MatchState(Rules(length=7)).double(0).beaver(1)
    with pytest.raises(CubeError, match="money play"):
        MatchState(Rules(beavers=False)).double(0).beaver(1)


def test_jacoby_counts_gammons_only_once_the_cube_is_turned() -> None:
    centred = MatchState(MONEY)
    assert [centred.points(value) for value in GameValue] == [1, 1, 1]
    taken = centred.double(0).take(1)
    assert [taken.points(value) for value in GameValue] == [2, 4, 6]
    assert [MatchState(Rules(jacoby=False)).points(value) for value in GameValue] == [1, 2, 3]
    assert [MatchState(Rules(length=7)).points(value) for value in GameValue] == [1, 2, 3]  # not in a match


def test_jacoby_after_an_automatic_double() -> None:
    doubled = MatchState(Rules(automatic_doubles=1)).automatic_double()
    assert (doubled.cube, doubled.cube_owner) == (2, None)
    assert doubled.points(GameValue.GAMMON) == 2


def test_automatic_doubles_up_to_the_limit() -> None:
    state = MatchState(Rules(automatic_doubles=2))
    cubes = []
    for _ in range(4):
        state = state.automatic_double()
        cubes.append(state.cube)
    assert cubes == [2, 4, 4, 4] and state.cube_owner is None
    assert MatchState(MONEY).automatic_double().cube == 1
    assert MatchState(Rules(length=7, automatic_doubles=2)).automatic_double().cube == 1


def test_cube_limit() -> None:
    state = MatchState(Rules(cube_limit=4)).double(0).take(1).double(1).take(0)
    assert state.cube == 4 and not state.can_double(0)
    with pytest.raises(CubeError, match="limit of 4"):
        state.double(0)


def test_cube_limit_holds_for_beavers_and_automatic_doubles() -> None:
    redoubled = MatchState(Rules(cube_limit=4)).double(0).take(1).double(1)
    with pytest.raises(CubeError):
        redoubled.beaver(0)
    state = MatchState(Rules(cube_limit=4, automatic_doubles=3))
    for _ in range(3):
        state = state.automatic_double()
    assert state.cube == 4


def test_match_over_and_winner() -> None:
    state = MatchState(Rules(length=3), score=(2, 0), crawford_game=True)
    assert not state.over and state.winner is None
    final = state.next_game(1, 2).next_game(1, 1)
    assert final.score == (2, 3) and final.over and final.winner == 1
    assert not final.can_double(0) and not final.can_double(1)
    money = MatchState(MONEY).next_game(0, 64)
    assert not money.over and money.winner is None


def test_no_double_once_the_match_is_over() -> None:
    with pytest.raises(CubeError):
        MatchState(Rules(length=3), score=(3, 0)).double(0)


# --- positions read from text


def test_read_a_gnubg_id() -> None:
    setup = read_position("224DAgKY58EBYA:UQk3AgAACAAE")  # read by gnubg 1.07 (tests/data/.../ids.json)
    expected = make(
        {4: 2, 6: 4, 8: 4, 13: 3, 25: 2}, {1: 2, 2: 2, 3: 2, 4: 3, 5: 2, 6: 2, 13: 1, 20: 1}, turn=1
    )
    assert setup.position == expected and setup.position.position_id() == "224DAgKY58EBYA"
    state = setup.state
    assert state is not None
    assert (state.rules.length, state.score, state.cube, state.cube_owner) == (17, (0, 1), 2, 1)
    assert (state.crawford_game, state.post_crawford, state.offered_by) == (False, False, None)
    assert setup.dice == (6, 5)


def test_read_the_xgid_start_of_a_7_point_match() -> None:
    setup = read_position(START_XGID)
    assert setup.position == Position.start(turn=1)  # XG's bottom player is gnubg's player 1
    state = setup.state
    assert state is not None
    assert (state.rules.length, state.score, state.cube, state.cube_owner) == (7, (0, 0), 1, None)
    assert (state.crawford_game, state.post_crawford, state.rules.cube_limit) == (False, False, 1024)
    assert setup.dice is None


def test_read_an_xgid_of_a_crawford_game() -> None:
    setup = read_position("XGID=-b----E-C---eE---c-e----B-:0:0:-1:54:0:2:1:3:10")
    assert setup.position == Position.start(turn=0)
    state = setup.state
    assert state is not None
    assert (state.rules.length, state.score, state.crawford_game) == (3, (2, 0), True)
    assert not state.can_double(0)
    assert setup.dice == (5, 4)


def test_read_a_bare_position_id() -> None:
    setup = read_position(f" {START_ID} ")
    assert (setup.position, setup.state, setup.dice) == (Position.start(turn=0), None, None)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "position ID '' has 0 characters, expected 14"),
        ("4HPwATDgc/ABM", "has 13 characters, expected 14"),
        ("//////////////", "has bits set after its last byte"),
        ("4HPwATDgc/ABMA:cAngAAAAAAA", "match ID 'cAngAAAAAAA' has 11 characters, expected 12"),
        (START_XGID.rsplit(":", 1)[0], "has 9 fields, expected 10"),
        (START_XGID.replace(":0:0:1:00:", ":0:0:2:00:"), "turn 2 is not 1 (bottom) or -1 (top)"),
        (START_XGID.replace(":1:00:", ":1:77:"), "dice (7, 7) are not two values from 1 to 6"),
        (START_XGID.replace("B-:", "Z-:"), "bad board character 'Z' on point 24"),
        (START_XGID.replace("B-:", "BB:"), "has 17 checkers, more than 15"),
    ],
)
def test_bad_position_text(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        read_position(text)


def test_read_an_xgid_with_a_lower_case_prefix() -> None:
    assert read_position("xgid=" + START_XGID.removeprefix("XGID=")).position == Position.start(turn=1)
