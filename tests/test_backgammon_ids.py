"""Position strings of backgammon (gnubg Position ID and Match ID, XGID) against GNU Backgammon's own answers.

``tests/data/backgammon/gnubg/ids.json`` holds positions read by gnubg 1.07 along real matches (see the
README there); every record is checked both ways. Random boards and fields check the round trips, and
corrupt strings must be refused with a ValueError.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from taldau.games.backgammon.rules.ids import (
    MatchId,
    XgId,
    board_from_position_id,
    check_board,
    gnubg_id,
    parse_gnubg_id,
    position_id,
)

FIXTURES = Path(__file__).parent / "data" / "backgammon" / "gnubg"
RECORDS = json.loads((FIXTURES / "ids.json").read_text())["records"]
WITH_FIELDS = [record for record in RECORDS if "cube" in record]
WITH_XGID = [record for record in RECORDS if "xgid" in record]

START_ROW = [0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0]
START = np.array([START_ROW, START_ROW], dtype=np.int8)
START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:7:10"


def record_id(record: dict) -> str:
    """A readable test id: where the position comes from and its GNUbgID."""
    return f"{record['source']} {record['position_id']}:{record['match_id']}"


def match_fields(record: dict) -> MatchId:
    """The Match ID fields gnubg's Python module reported for a record."""
    return MatchId(
        cube=record["cube"],
        cube_owner=record["cube_owner"],
        dice_owner=record["dice_owner"],
        crawford=record["crawford"],
        game_state=record["game_state"],
        turn=record["turn"],
        doubled=record["doubled"],
        resigned=record["resigned"],
        dice=tuple(record["dice"]),
        length=record["length"],
        score=tuple(record["score"]),
        jacoby=record["jacoby"],
    )


# --- known answers


def test_start_position_id() -> None:
    assert position_id(START) == "4HPwATDgc/ABMA"
    assert np.array_equal(board_from_position_id("4HPwATDgc/ABMA"), START)


def test_position_id_after_31_puts_the_mover_first() -> None:
    # White played 31 as 8/5 6/5 from the start: White is now the side not on roll, row 0.
    moved = START.copy()
    moved[0, 7] -= 1  # 8/5
    moved[0, 5] -= 1  # 6/5
    moved[0, 4] += 2
    assert position_id(moved) == "sGfwATDgc/ABMA"
    assert np.array_equal(board_from_position_id("sGfwATDgc/ABMA"), moved)


def test_start_match_id_of_a_7_point_match() -> None:
    match = MatchId.decode("cAngAAAAAAAE")
    assert match == MatchId(cube=1, cube_owner=-1, dice_owner=1, turn=1, game_state=1, length=7)
    assert not match.jacoby  # bit 66 is set: gnubg turns the Jacoby rule off in matches
    assert match.encode() == "cAngAAAAAAAE"


def test_gnubg_id() -> None:
    text = "4HPwATDgc/ABMA:cAngAAAAAAAE"
    board, match = parse_gnubg_id(text)
    assert np.array_equal(board, START)
    assert gnubg_id(board, match) == text


def test_start_xgid() -> None:
    xgid = XgId.parse(START_XGID)
    assert np.array_equal(xgid.board, START)
    assert (xgid.turn, xgid.cube, xgid.cube_owner, xgid.dice, xgid.score) == (1, 1, -1, (0, 0), (0, 0))
    assert (xgid.length, xgid.crawford, xgid.max_cube) == (7, False, 1024)
    assert xgid.format() == START_XGID
    assert XgId.parse(START_XGID.removeprefix("XGID=")) == xgid
    # gnubg's `set xgid` of this XGID gives exactly this Match ID (bottom = player 1, on roll)
    assert xgid.match_id().encode() == "cAngAAAAAAAE"


def test_xgid_orientation() -> None:
    # Bottom (player 1) played 8/5 6/5 and top (player 0) is on roll: gnubg reads the board as sGfwATDgc/ABMA.
    xgid = XgId.parse("XGID=-b---BD-B---eE---c-e----B-:1:1:-1:31:2:3:0:7:10")
    assert position_id(xgid.board) == "sGfwATDgc/ABMA"
    assert (xgid.turn, xgid.cube, xgid.cube_owner, xgid.dice, xgid.score) == (0, 2, 1, (3, 1), (3, 2))


def test_doubled_xgid_maps_to_gnubg_doubled_state() -> None:
    xgid = XgId.parse("XGID=-b----E-C---eE---c-e----B-:1:-1:-1:D:2:4:0:7:10")
    match = xgid.match_id()
    assert (match.dice_owner, match.turn, match.doubled, match.dice, match.cube) == (0, 1, True, (0, 0), 2)
    assert (
        XgId.from_match_id(xgid.board, match).format()
        == "XGID=-b----E-C---eE---c-e----B-:1:-1:-1:D:2:4:0:7:10"
    )


# --- every position gnubg read


def test_fixture_size() -> None:
    assert len(RECORDS) >= 300
    assert len(WITH_XGID) >= 200


@pytest.mark.parametrize("record", RECORDS, ids=record_id)
def test_gnubg_position_ids(record: dict) -> None:
    board = np.array(record["board"], dtype=np.int8)
    assert position_id(board) == record["position_id"]
    assert np.array_equal(board_from_position_id(record["position_id"]), board)
    assert MatchId.decode(record["match_id"]).encode() == record["match_id"]


@pytest.mark.parametrize("record", WITH_FIELDS, ids=record_id)
def test_gnubg_match_ids(record: dict) -> None:
    fields = match_fields(record)
    assert MatchId.decode(record["match_id"]) == fields
    assert fields.encode() == record["match_id"]


@pytest.mark.parametrize("record", WITH_XGID, ids=record_id)
def test_gnubg_confirmed_xgids(record: dict) -> None:
    xgid = XgId.parse(record["xgid"])
    assert np.array_equal(xgid.board, np.array(record["board"]))
    assert xgid.turn == record["dice_owner"]
    assert (xgid.cube, xgid.cube_owner, xgid.dice) == (
        record["cube"],
        record["cube_owner"],
        tuple(record["dice"]),
    )
    assert (xgid.score, xgid.length) == (tuple(record["score"]), record["length"])
    assert xgid.crawford == (record["crawford"] and record["length"] > 0)
    assert xgid.jacoby == (record["jacoby"] and record["length"] == 0)
    assert xgid.format() == record["xgid"]
    assert xgid.match_id() == match_fields(record)
    money = record["length"] == 0  # both money sessions allowed beavers
    assert XgId.from_match_id(record["board"], match_fields(record), beaver=money).format() == record["xgid"]


def test_gnubg_doubled_positions_as_xgid() -> None:
    doubled = [record for record in WITH_FIELDS if record["doubled"] and record["game_state"] == 1]
    assert doubled
    for record in doubled:
        match = match_fields(record)
        if match.turn == match.dice_owner:  # the beaverer's redouble pending: no XGID form
            with pytest.raises(ValueError, match="beaver"):
                XgId.from_match_id(record["board"], match)
            continue
        xgid = XgId.from_match_id(record["board"], match)
        assert xgid.dice == "D"
        assert xgid.match_id() == match
        assert XgId.parse(xgid.format()) == xgid


def test_xgid_refuses_what_it_cannot_hold() -> None:
    over = next(record for record in WITH_FIELDS if record["game_state"] != 1)
    with pytest.raises(ValueError, match="game in play"):
        XgId.from_match_id(over["board"], match_fields(over))
    with pytest.raises(ValueError, match="no gnubg Match ID"):
        XgId.parse("XGID=-b----E-C---eE---c-e----B-:1:0:1:B:0:0:3:0:10").match_id()


# --- round trips


@st.composite
def boards(draw: st.DrawFn) -> np.ndarray:
    """Legal boards: up to 15 checkers a side, never both sides on one point."""
    owners = draw(st.lists(st.sampled_from([None, 0, 1]), min_size=24, max_size=24))  # by row 0's index
    board = np.zeros((2, 25), dtype=np.int8)
    for side in (0, 1):
        places = [24] + [i for i in range(24) if owners[i if side == 0 else 23 - i] == side]
        for _ in range(draw(st.integers(0, 15))):
            board[side, draw(st.sampled_from(places))] += 1
    return board


DICE = st.one_of(st.just((0, 0)), st.tuples(st.integers(1, 6), st.integers(1, 6)))
CUBES = st.sampled_from([1 << power for power in range(16)])
MATCH_IDS = st.builds(
    MatchId,
    cube=CUBES,
    cube_owner=st.sampled_from([-1, 0, 1]),
    dice_owner=st.integers(0, 1),
    crawford=st.booleans(),
    game_state=st.integers(0, 4),
    turn=st.integers(0, 1),
    doubled=st.booleans(),
    resigned=st.integers(0, 3),
    dice=DICE,
    length=st.integers(0, 32767),
    score=st.tuples(st.integers(0, 32767), st.integers(0, 32767)),
    jacoby=st.booleans(),
)


@given(boards())
def test_position_id_round_trip(board: np.ndarray) -> None:
    text = position_id(board)
    assert len(text) == 14
    assert np.array_equal(board_from_position_id(text), board)


@given(MATCH_IDS)
def test_match_id_round_trip(match: MatchId) -> None:
    text = match.encode()
    assert len(text) == 12
    assert MatchId.decode(text) == match


@st.composite
def xgids(draw: st.DrawFn) -> XgId:
    """XGIDs of legal boards with any cube state, in match or money play."""
    length = draw(st.integers(0, 25))
    return XgId(
        board=draw(boards()),
        turn=draw(st.integers(0, 1)),
        cube=draw(CUBES),
        cube_owner=draw(st.sampled_from([-1, 0, 1])),
        dice=draw(st.one_of(DICE, st.sampled_from(["D", "B", "R"]))),
        score=draw(st.tuples(st.integers(0, 99), st.integers(0, 99))),
        crawford=draw(st.booleans()) if length else False,
        jacoby=False if length else draw(st.booleans()),
        beaver=False if length else draw(st.booleans()),
        length=length,
        max_cube=draw(CUBES),
    )


@given(xgids())
def test_xgid_round_trip(xgid: XgId) -> None:
    assert XgId.parse(xgid.format()) == xgid


# --- corrupt strings


def key_text(bits: list[int], size: int) -> str:
    """A base64 string (gnubg's alphabet, no padding) of the given little-endian bits, made here by hand."""
    value = sum(1 << bit for bit in bits)
    return base64.b64encode(value.to_bytes(size, "little")).decode().rstrip("=")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("4HPwATDgc/ABM", "13 characters"),
        ("4HPwATDgc/ABMAA", "15 characters"),
        ("", "0 characters"),
        ("4HPwATDgc/AB!A", "bad character '!'"),
        ("4HPwATDgc/ABM=", "bad character '='"),
        ("4HPwATDgc-ABMA", "bad character '-'"),
        ("4HPwATDgc/ABMB", "after its last byte"),  # gnubg ignores the 4 spare bits; we do not
        ("////////////AA", "72 checkers on one point"),  # gnubg: invalid positionid
        (key_text(list(range(16)), 10), "16 checkers on one point"),
        (key_text(list(range(8)) + list(range(9, 17)), 10), "16 checkers"),
        (key_text([60], 10), "left over"),  # the empty board holds 50 bits
        ("AQAAAAAAAgAAAA", "both sides"),  # one checker each on the same point; gnubg: invalid positionid
    ],
)
def test_corrupt_position_ids(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        board_from_position_id(text)


def test_position_id_of_a_wrong_input() -> None:
    with pytest.raises(ValueError, match="must be a string"):
        board_from_position_id(None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("board", "message"),
    [
        (np.zeros((2, 24), dtype=np.int8), "shape"),
        (np.full((2, 25), 1, dtype=np.int8), "25 checkers"),
        (-START, "negative"),
        (START.astype(float), "integers"),
    ],
)
def test_bad_boards(board: np.ndarray, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        position_id(board)
    with pytest.raises(ValueError, match=message):
        check_board(board)


def test_board_with_both_sides_on_a_point() -> None:
    board = START.copy()
    board[0, 0] = 1  # row 0's point 1 is row 1's point 24, where row 1 has two checkers
    board[0, 12] -= 1
    with pytest.raises(ValueError, match="both sides"):
        position_id(board)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("cAngAAAAAAA", "11 characters"),
        ("cAngAAAAAAAEE", "13 characters"),
        ("cAngAAAAAA!E", "bad character '!'"),
        ("cAngAAAAAAAM", "after bit 66"),  # gnubg ignores bit 67; we do not
        ("cAngAAAAAADE", "after bit 66"),  # bits 70 and 71
        (key_text([5], 9), "cube owner 2"),
        (key_text([15, 16, 17, 18], 9), "dice"),  # 7 and 1
        (key_text([15], 9), "dice"),  # 1 and 0: gnubg wants two numbers from 1 to 6
        (key_text([8, 10], 9), "game state 5"),
    ],
)
def test_corrupt_match_ids(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        MatchId.decode(text)


def test_bad_match_fields() -> None:
    with pytest.raises(ValueError, match="power of 2"):
        MatchId(cube=3)
    with pytest.raises(ValueError, match="cube owner"):
        MatchId(cube_owner=2)
    with pytest.raises(ValueError, match="dice"):
        MatchId(dice=(0, 4))
    with pytest.raises(ValueError, match="score"):
        MatchId(score=(1 << 15, 0))
    with pytest.raises(ValueError, match="whole number"):
        MatchId(length=7.0)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:7", "9 fields"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:7:10:1", "11 fields"),
        ("XGID=-b----E-C---eE---c-e----B:0:0:1:00:0:0:0:7:10", "25 characters"),
        ("XGID=-b----E-C---eE---c-e--Z-B-:0:0:1:00:0:0:0:7:10", "bad board character 'Z'"),
        ("XGID=Ab----E-C---eE---c-e----B-:0:0:1:00:0:0:0:7:10", "on the top bar"),
        ("XGID=-b----E-C---eE---c-e----Ba:0:0:1:00:0:0:0:7:10", "on the bottom bar"),
        ("XGID=-b----E-C---eE---c-e----BA:0:0:1:00:0:0:0:7:10", "16 checkers"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:0:00:0:0:0:7:10", "turn 0"),
        ("XGID=-b----E-C---eE---c-e----B-:0:2:1:00:0:0:0:7:10", "cube owner 2"),
        ("XGID=-b----E-C---eE---c-e----B-:16:0:1:00:0:0:0:7:10", "cube log2 16"),
        ("XGID=-b----E-C---eE---c-e----B-:x:0:1:00:0:0:0:7:10", "not a whole number"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:07:0:0:0:7:10", "dice"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:X:0:0:0:7:10", "dice 'X'"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:5:0:0:0:7:10", "dice '5'"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:-1:0:0:7:10", "score"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:2:7:10", "rules field 2"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:4:0:10", "rules field 4"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:-3:10", "match length"),
    ],
)
def test_corrupt_xgids(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        XgId.parse(text)


def test_bad_xgid_fields() -> None:
    with pytest.raises(ValueError, match="Crawford"):
        XgId(board=START, turn=1, crawford=True, length=0)
    with pytest.raises(ValueError, match="Jacoby"):
        XgId(board=START, turn=1, jacoby=True, length=5)
    with pytest.raises(ValueError, match="turn"):
        XgId(board=START, turn=-1)
