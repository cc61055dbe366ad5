"""The Togyz Kumalak rules core against known answers: perft, hand-checked sowings, endings, FEN, key."""

from __future__ import annotations

import pytest
from helpers import make_position
from taldau.games.togyz import START_FEN, FenError, Position, Side, Termination, perft

PERFT = {1: 9, 2: 73, 3: 613, 4: 5_199, 5: 43_184}


@pytest.mark.parametrize(("depth", "nodes"), sorted(PERFT.items()))
def test_perft_from_start_matches_published_counts(depth: int, nodes: int) -> None:
    assert perft(Position.start(), depth).nodes == nodes


def test_first_tuzdyk_appears_at_depth_four() -> None:
    def tuzdyks_at(depth: int) -> int:
        frontier = [Position.start()]
        for _ in range(depth):
            frontier = [p.play(m) for p in frontier for m in p.legal_moves()]
        return sum(1 for p in frontier if p.tuzdyk(Side.WHITE) or p.tuzdyk(Side.BLACK))

    assert tuzdyks_at(3) == 0
    assert tuzdyks_at(4) > 0


def test_start_position() -> None:
    start = Position.start()
    assert start.fen() == START_FEN
    assert start.pits(Side.WHITE) == (9,) * 9 and start.pits(Side.BLACK) == (9,) * 9
    assert start.turn is Side.WHITE and start.move_number == 1
    assert start.legal_moves() == list(range(1, 10))
    assert start.outcome() is None


def test_first_stone_goes_back_into_the_origin_pit() -> None:
    # 87(10) opens the first game of the real archive: 9 stones from pit 8 reach Black's pit 7.
    sowing = Position.start().sow(8)
    after = sowing.position
    assert after.pits(Side.WHITE) == (9, 9, 9, 9, 9, 9, 9, 1, 10)
    assert after.pits(Side.BLACK) == (10, 10, 10, 10, 10, 10, 0, 9, 9)
    assert (sowing.destination, sowing.destination_side) == (7, Side.BLACK)
    assert sowing.captured == 10 and sowing.kazan == 10 and not sowing.tuzdyk
    assert after.turn is Side.BLACK and after.move_number == 1


def test_single_stone_moves_to_the_next_pit() -> None:
    position = make_position([1, 0, 0, 0, 0, 0, 0, 0, 5], [5] * 9, white_kazan=60)
    sowing = position.sow(1)
    assert sowing.position.pits(Side.WHITE)[:2] == (0, 1)
    assert (sowing.destination, sowing.destination_side, sowing.captured) == (2, Side.WHITE, 0)


def test_single_stone_from_pit_nine_crosses_to_the_opponent() -> None:
    # Black's pit 1 holds 3: one more makes 4, an even count, captured.
    position = make_position([0, 0, 0, 0, 0, 0, 0, 0, 1], [3, 5, 5, 5, 5, 5, 5, 5, 5], white_kazan=60)
    sowing = position.sow(9)
    assert (sowing.destination, sowing.destination_side, sowing.captured) == (1, Side.BLACK, 4)
    assert sowing.position.kazan(Side.WHITE) == 64


def test_twenty_stones_lap_the_board_and_pass_the_origin_again() -> None:
    position = make_position([20, 1, 1, 1, 1, 1, 1, 1, 1], [1] * 9, white_kazan=60)
    sowing = position.sow(1)
    white, black = sowing.position.pits(Side.WHITE), sowing.position.pits(Side.BLACK)
    # Stones 1..18 go round once (origin included), stone 19 lands in the origin again, stone 20 in pit 2.
    assert white == (2, 3, 2, 2, 2, 2, 2, 2, 2)
    assert black == (2,) * 9
    assert (sowing.destination, sowing.destination_side, sowing.captured) == (2, Side.WHITE, 0)


def test_odd_count_in_opponent_pit_takes_nothing() -> None:
    position = make_position([0, 0, 0, 0, 0, 0, 0, 0, 2], [4, 5, 5, 5, 5, 5, 5, 5, 5], white_kazan=60)
    sowing = position.sow(9)  # pit 9 keeps one stone, Black's pit 1 goes from 4 to 5
    assert (sowing.destination, sowing.destination_side, sowing.captured, sowing.landed) == (
        1,
        Side.BLACK,
        0,
        5,
    )
    assert sowing.position.kazan(Side.WHITE) == 60 and sowing.position.pits(Side.BLACK)[0] == 5


def test_last_stone_on_own_side_never_captures() -> None:
    position = make_position([3, 1, 0, 0, 0, 0, 0, 0, 0], [5] * 9, white_kazan=60)
    sowing = position.sow(1)  # pits 1, 2, 3: pit 3 now holds 1, pit 2 holds 2 (even, but own side)
    assert sowing.captured == 0 and sowing.position.kazan(Side.WHITE) == 60
    assert sowing.position.pits(Side.WHITE)[:3] == (1, 2, 1)


def test_three_in_an_opponent_pit_makes_a_tuzdyk() -> None:
    position = make_position([0, 0, 0, 0, 0, 0, 0, 0, 4], [1, 1, 2, 5, 5, 5, 5, 5, 5], white_kazan=60)
    sowing = position.sow(9)  # pit 9 keeps 1, Black's pits 1, 2, 3 get one each: pit 3 holds 3
    assert sowing.tuzdyk and sowing.captured == 3
    after = sowing.position
    assert after.tuzdyk(Side.WHITE) == 3 and after.tuzdyk(Side.BLACK) is None
    assert after.pits(Side.BLACK)[:3] == (2, 2, 0)
    assert after.kazan(Side.WHITE) == 63


def test_no_tuzdyk_on_pit_nine() -> None:
    position = make_position([0, 0, 0, 0, 0, 0, 0, 0, 10], [1, 1, 1, 1, 1, 1, 1, 1, 2], white_kazan=70)
    sowing = position.sow(9)
    assert sowing.destination == 9 and sowing.position.pits(Side.BLACK)[8] == 3
    assert not sowing.tuzdyk and sowing.position.tuzdyk(Side.WHITE) is None


def test_only_one_tuzdyk_per_player() -> None:
    position = make_position([0, 0, 0, 0, 0, 0, 0, 0, 6], ["t", 1, 1, 1, 2, 5, 5, 5, 5], white_kazan=60)
    assert position.tuzdyk(Side.WHITE) == 1
    sowing = position.sow(9)  # last stone makes Black's pit 5 hold 3
    assert sowing.destination == 5 and not sowing.tuzdyk
    assert sowing.position.pits(Side.BLACK)[4] == 3 and sowing.position.tuzdyk(Side.WHITE) == 1


def test_no_tuzdyk_opposite_the_opponents_tuzdyk() -> None:
    # Black's tuzdyk is White's pit 4, so White may not make Black's pit 4 a tuzdyk.
    position = make_position([0, 0, 0, "t", 0, 0, 0, 0, 5], [1, 1, 1, 2, 5, 5, 5, 5, 5], white_kazan=60)
    sowing = position.sow(9)
    assert sowing.destination == 4 and sowing.position.pits(Side.BLACK)[3] == 3 and not sowing.tuzdyk
    assert position.sow(9).position.tuzdyk(Side.WHITE) is None


def test_stones_falling_into_a_tuzdyk_go_to_its_owner() -> None:
    # White owns Black's pit 2. Black sows 12 from pit 1: own pits 1..9 then White's 1..3.
    position = make_position(
        [1, 1, 5, 5, 5, 5, 5, 5, 5], [12, "t", 1, 1, 1, 1, 1, 1, 1], white_kazan=50, turn="N"
    )
    sowing = position.sow(1)
    after = sowing.position
    assert after.pits(Side.BLACK)[1] == 0
    assert after.kazan(Side.WHITE) == 51
    assert (sowing.destination, sowing.destination_side) == (3, Side.WHITE)
    assert sowing.captured == 6 and after.kazan(Side.BLACK) == position.kazan(Side.BLACK) + 6


def test_a_tuzdyk_is_never_a_legal_origin() -> None:
    position = make_position(["t", 0, 0, 0, 0, 0, 0, 0, 1], [5] * 9, white_kazan=60, turn="S")
    assert position.legal_moves() == [9]
    assert not position.is_legal(1)
    assert "empty" in position.illegal_reason(2)


def test_kazan_above_81_wins_at_once() -> None:
    position = make_position([0, 0, 0, 0, 0, 0, 0, 0, 2], [1, 5, 5, 5, 5, 5, 5, 5, 5], white_kazan=80)
    after = position.play(9)  # Black's pit 1 reaches 2: captured, White's kazan 82
    outcome = after.outcome()
    assert outcome is not None and outcome.termination is Termination.KAZAN
    assert outcome.winner is Side.WHITE and outcome.result == "1-0" and outcome.kazans[0] == 82
    assert after.legal_moves() == [] and after.is_game_over()


def test_atsyrau_the_opponent_collects_the_rest() -> None:
    position = make_position([0] * 9, [3, 0, 0, 0, 0, 0, 0, 0, 1], white_kazan=80, turn="S")
    outcome = position.outcome()
    assert outcome is not None and outcome.termination is Termination.ATSYRAU
    assert outcome.kazans == (80, 82) and outcome.winner is Side.BLACK and outcome.result == "0-1"


def test_atsyrau_at_81_each_is_a_draw() -> None:
    position = make_position([0] * 9, [2, 0, 0, 0, 0, 0, 0, 0, 0], white_kazan=81, turn="S")
    outcome = position.outcome()
    assert outcome is not None and outcome.winner is None and outcome.result == "1/2-1/2"
    assert outcome.kazans == (81, 81)


def test_atsyrau_is_judged_only_when_the_stuck_player_is_to_move() -> None:
    # White empties his side with his last stone; Black is to move and refills White's side.
    position = make_position([0, 0, 0, 0, 0, 0, 0, 0, 1], [2, 3, 3, 3, 3, 3, 3, 3, 12], white_kazan=60)
    after = position.play(9)
    assert after.pits(Side.WHITE) == (0,) * 9 and after.turn is Side.BLACK
    assert after.outcome() is None
    refilled = after.play(9)
    assert sum(refilled.pits(Side.WHITE)) > 0 and refilled.outcome() is None


def test_fen_round_trip_and_documented_example() -> None:
    fen = "10S,9S,9S,9S,9S,9S,t,9S,9S/9S,1,9S,9S,9S,9S,9S,9S,9S 13 4 N 5"
    position = Position.from_fen(fen)
    assert position.fen() == fen
    assert position.tuzdyk(Side.WHITE) == 3 and position.pits(Side.WHITE)[1] == 0
    assert position.pits(Side.BLACK)[8] == 10 and position.turn is Side.BLACK and position.move_number == 5
    assert Position.from_fen("2,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 18 0 N 1").pits(Side.BLACK)[
        7:
    ] == (0, 0)


@pytest.mark.parametrize(
    ("fen", "reason"),
    [
        ("9S,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 1 0 S 1", "163 stones"),
        ("9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 9 0 S 1", "8 pits"),
        ("t,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 9 0 S 1", "pit 9"),
        ("9S,9S,9S,9S,9S,9S,t,9S,9S/9S,9S,t,9S,9S,9S,9S,9S,9S 18 0 S 1", "same number"),
        ("9S,9S,9S,9S,9S,t,t,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 18 0 S 1", "two tuzdyks"),
        ("9S,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 0 0 W 1", "side to move"),
        ("9S,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9s 0 0 S 1", "'9s' is not a pit"),
        ("9S,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 0 0 S", "5 fields"),
    ],
)
def test_invalid_fens_say_why(fen: str, reason: str) -> None:
    with pytest.raises(FenError, match=reason):
        Position.from_fen(fen)


def test_key_is_stable_and_ignores_only_the_move_number() -> None:
    start = Position.start()
    # Pinned: the key is part of stored analyses and must never change between versions or machines.
    assert start.key == 0x5F8702DACE703EDE
    later = Position.from_fen(START_FEN.replace(" 1", " 7"))
    assert later.key == start.key and later != start
    black_to_move = Position.from_fen(START_FEN.replace(" S ", " N "))
    assert black_to_move.key != start.key


def test_keys_separate_every_distinct_position_to_depth_four() -> None:
    frontier = [Position.start()]
    seen: dict[int, bytes] = {}
    for _ in range(4):
        frontier = [p.play(m) for p in frontier for m in p.legal_moves()]
        for position in frontier:
            layout = position.state[:23].tobytes()
            assert seen.setdefault(position.key, layout) == layout
    assert len(seen) > 4_000


def test_illegal_moves_raise() -> None:
    position = make_position([0, 0, 0, 0, 0, 0, 0, 0, 1], [5] * 9, white_kazan=60)
    with pytest.raises(ValueError, match="empty"):
        position.sow(3)
    with pytest.raises(ValueError, match="no pit 10"):
        position.sow(10)
