"""Backgammon position strings: GNU Backgammon's Position ID and Match ID, and eXtreme Gammon's XGID.

Words for readers who do not know the game: each player has 15 *checkers* on 24 *points* (the places a
checker stands), numbered 1..24 from that player's own *home board* (points 1..6), so one player's point p is
the other's point 25 - p. A hit checker waits on the *bar* until it enters again; checkers taken off at the
end are *borne off*. The *cube* (doubling cube) holds the stake, 1, 2, 4, ...; a player may *double* (offer
twice the stake) before rolling, and the opponent *takes* (and then *owns* the cube: only the owner may
double again) or *drops* (passes, losing the current stake). A *beaver* is an immediate redouble by the
taker. Matches are played to N points; in the *Crawford* game, the first after a player reaches N - 1, no
one may double. Money play (length 0) just adds up points, and may use the *Jacoby* rule (gammons count
single while the cube is centred).

Boards follow the package's convention (gnubg's): an int8 array of shape (2, 25), row 0 the side NOT on
roll, row 1 the side on roll, index i of a row that side's point i + 1 counted from its own side, index 24
its bar; borne-off checkers are 15 minus the row sum. Players are numbered 0 and 1 as gnubg numbers them.

Position ID (``4HPwATDgc/ABMA`` is the start): 14 base64 characters (alphabet ``A-Za-z0-9+/``, no padding)
of an 80-bit key. For row 0 then row 1, for each point 1..24 and then the bar, one 1 bit per checker and a
0 bit after the point; bits fill bytes from the lowest bit of the first byte up; unused bits are 0.

Match ID (``cAngAAAAAAAE`` is the start of a 7-point match): 12 base64 characters of 9 bytes, read as one
little-endian number whose bits are, from bit 0: cube log2 (4 bits), cube owner (2; 3 = centred), dice
owner (the player on roll), Crawford game, game state (3), turn (the player to act: the taker when a double
is offered), doubled, resignation offered (2: 1 single, 2 gammon, 3 backgammon), die 1 (3), die 2 (3; 0 0 =
not rolled), match length (15), player 0's score (15), player 1's score (15), and bit 66, which gnubg sets
when the Jacoby rule is off (so gnubg's match IDs of matches end in ``E`` while the scores stay small).
gnubg never writes bits 67..71 (and ignores them when reading); they are rejected here.

XGID (``XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:7:10`` is the start of a 7-point match), as eXtreme
Gammon writes it: 26 board characters from the *bottom* player's side (0: the top player's bar, 1..24: the
bottom player's points 1..24, 25: the bottom player's bar; ``A``..``O`` 1..15 bottom checkers, ``a``..``o``
top ones, ``-`` empty), then cube log2, cube owner (1 bottom, -1 top, 0 centred), turn (1 bottom, -1 top),
dice (``00`` not rolled, ``52`` rolled, ``D`` doubled, ``B`` beavered, ``R`` raccooned), bottom score, top
score, Crawford (match play) or Jacoby + 2 * beaver (money play), match length (0 money), max cube log2.
Here XG's bottom player is gnubg's player 1 and the top player gnubg's player 0. gnubg (1.07) reads XGIDs
(``set xgid``) without writing them: an XGID with the bottom player on turn comes out exactly so (scores,
cube owner, turn); with the top player on turn gnubg renumbers the players to make the player on roll its
player 1. tests/data/backgammon/gnubg/ids.json holds hundreds of XGIDs that gnubg reads back to the
position they were made from. gnubg cannot read a ``D`` XGID (it drops the double).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

CHECKERS = 15
POINTS = 24
BAR = 24
POSITION_ID_LENGTH = 14
MATCH_ID_LENGTH = 12
ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
MAX_FIELD = (1 << 15) - 1  # match length and scores have 15 bits in a Match ID
MAX_CUBE_LOG2 = 15
GAME_STATES = (0, 1, 2, 3, 4)  # none, playing, over, resigned, dropped (gnubg's numbering)
XG_CUBE_ACTIONS = ("D", "B", "R")
XG_PREFIX = "XGID="


def _check_alphabet(text: str, length: int, what: str) -> None:
    """Raises ValueError unless text has the given length and only base64 characters."""
    if not isinstance(text, str):
        raise ValueError(f"{what} must be a string, not {type(text).__name__}")
    if len(text) != length:
        raise ValueError(f"{what} {text!r} has {len(text)} characters, expected {length}")
    for index, char in enumerate(text):
        if char not in ALPHABET:
            raise ValueError(f"{what} {text!r} has a bad character {char!r} at position {index + 1}")


def _decode_base64(text: str, length: int, size: int, what: str) -> int:
    """The little-endian number held by a base64 string of a given length encoding size bytes."""
    _check_alphabet(text, length, what)
    padded = text + "=" * (-len(text) % 4)
    data = base64.b64decode(padded, validate=True)
    if base64.b64encode(data).decode().rstrip("=") != text:
        raise ValueError(f"{what} {text!r} has bits set after its last byte")
    assert len(data) == size
    return int.from_bytes(data, "little")


def _encode_base64(value: int, size: int) -> str:
    """The base64 string (no padding) of a number written as size little-endian bytes."""
    return base64.b64encode(value.to_bytes(size, "little")).decode().rstrip("=")


def check_board(board: object) -> np.ndarray:
    """The board as a read-only int8 (2, 25) array; ValueError if it is not a legal arrangement: wrong
    shape, negative counts, more than 15 checkers a side, or both sides on one point."""
    array = np.asarray(board)
    if array.shape != (2, POINTS + 1):
        raise ValueError(f"a board has shape (2, 25), not {array.shape}")
    if not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"a board holds checker counts (integers), not {array.dtype}")
    if (array < 0).any():
        raise ValueError("a board cannot hold a negative number of checkers")
    for side in (0, 1):
        total = int(array[side].sum())
        if total > CHECKERS:
            raise ValueError(f"row {side} of the board has {total} checkers, more than {CHECKERS}")
    shared = np.flatnonzero(array[0, :POINTS] * array[1, POINTS - 1 :: -1])
    if shared.size:
        index = int(shared[0])
        raise ValueError(
            f"both sides have checkers on one point: row 0's point {index + 1}, row 1's {POINTS - index}"
        )
    checked = array.astype(np.int8)
    checked.flags.writeable = False
    return checked


def position_id(board: object) -> str:
    """gnubg's Position ID of a board (row 0 the side not on roll, row 1 the side on roll)."""
    rows = check_board(board)
    key = 0
    bit = 0
    for side in (0, 1):
        for count in rows[side]:
            key |= ((1 << int(count)) - 1) << bit  # count 1 bits, then a 0 bit
            bit += int(count) + 1
    return _encode_base64(key, 10)


def board_from_position_id(text: str) -> np.ndarray:
    """The board (int8, shape (2, 25), read-only) of a gnubg Position ID; ValueError if corrupt."""
    key = _decode_base64(text, POSITION_ID_LENGTH, 10, "position ID")
    board = np.zeros((2, POINTS + 1), dtype=np.int8)
    bit = 0
    for side in (0, 1):
        for index in range(POINTS + 1):
            count = 0
            while bit < 80 and key >> bit & 1:
                count += 1
                bit += 1
            if bit == 80:
                raise ValueError(f"position ID {text!r} holds more checkers than fit in 80 bits")
            if count > CHECKERS:
                raise ValueError(f"position ID {text!r} puts {count} checkers on one point of row {side}")
            board[side, index] = count
            bit += 1
    if key >> bit:
        raise ValueError(f"position ID {text!r} has bits left over after both sides")
    try:
        return check_board(board)
    except ValueError as error:
        raise ValueError(f"position ID {text!r}: {error}") from None


@dataclass(frozen=True)
class MatchId:
    """The fields of gnubg's Match ID. ``cube`` is the cube value (1, 2, 4, ...); ``cube_owner`` -1 when
    centred, else the owner; ``dice_owner`` the player on roll; ``turn`` the player to act (the opponent
    while a double or a resignation is offered); ``game_state`` 0 no game, 1 playing, 2 over, 3 resigned,
    4 dropped; ``resigned`` the resignation offered (0 none, 1 single, 2 gammon, 3 backgammon); ``dice``
    (0, 0) before the roll, else the dice in the order gnubg keeps them; ``length`` 0 for money play;
    ``score`` by player; ``jacoby`` whether the Jacoby rule is on (bit 66 holds its negation)."""

    cube: int = 1
    cube_owner: int = -1
    dice_owner: int = 0
    crawford: bool = False
    game_state: int = 1
    turn: int = 0
    doubled: bool = False
    resigned: int = 0
    dice: tuple[int, int] = (0, 0)
    length: int = 0
    score: tuple[int, int] = (0, 0)
    jacoby: bool = False

    def __post_init__(self) -> None:
        for name in ("cube", "cube_owner", "dice_owner", "game_state", "turn", "resigned", "length"):
            object.__setattr__(self, name, _whole(getattr(self, name), name.replace("_", " ")))
        for name in ("crawford", "doubled", "jacoby"):
            object.__setattr__(self, name, bool(getattr(self, name)))
        object.__setattr__(self, "dice", _pair(self.dice, "dice"))
        object.__setattr__(self, "score", _pair(self.score, "score"))
        if self.cube < 1 or self.cube & (self.cube - 1) or self.cube > 1 << MAX_CUBE_LOG2:
            raise ValueError(f"cube value {self.cube} is not a power of 2 from 1 to {1 << MAX_CUBE_LOG2}")
        if self.cube_owner not in (-1, 0, 1):
            raise ValueError(f"cube owner {self.cube_owner} is not -1 (centred), 0 or 1")
        for name in ("dice_owner", "turn"):
            if getattr(self, name) not in (0, 1):
                raise ValueError(f"{name} {getattr(self, name)} is not a player (0 or 1)")
        if self.game_state not in GAME_STATES:
            raise ValueError(f"game state {self.game_state} is not one of {GAME_STATES}")
        if self.resigned not in (0, 1, 2, 3):
            raise ValueError(f"resignation {self.resigned} is not 0 (none), 1, 2 or 3")
        _check_dice(self.dice, allow_unrolled=True)
        if not 0 <= self.length <= MAX_FIELD:
            raise ValueError(f"match length {self.length} is not 0..{MAX_FIELD}")
        if not all(0 <= points <= MAX_FIELD for points in self.score):
            raise ValueError(f"score {self.score} is not two numbers 0..{MAX_FIELD}")

    def encode(self) -> str:
        """The 12-character Match ID."""
        fields = (
            (self.cube.bit_length() - 1, 4),
            (3 if self.cube_owner == -1 else self.cube_owner, 2),
            (self.dice_owner, 1),
            (int(self.crawford), 1),
            (self.game_state, 3),
            (self.turn, 1),
            (int(self.doubled), 1),
            (self.resigned, 2),
            (self.dice[0], 3),
            (self.dice[1], 3),
            (self.length, 15),
            (self.score[0], 15),
            (self.score[1], 15),
            (int(not self.jacoby), 1),
        )
        key = 0
        bit = 0
        for value, width in fields:
            key |= value << bit
            bit += width
        return _encode_base64(key, 9)

    @classmethod
    def decode(cls, text: str) -> MatchId:
        """The fields of a 12-character Match ID; ValueError if it is corrupt."""
        key = _decode_base64(text, MATCH_ID_LENGTH, 9, "match ID")
        if key >> 67:
            raise ValueError(f"match ID {text!r} has bits set after bit 66, which gnubg never writes")

        def take(start: int, width: int) -> int:
            return key >> start & ((1 << width) - 1)

        owner = take(4, 2)
        if owner == 2:
            raise ValueError(f"match ID {text!r} has cube owner 2 (only 0, 1 or 3 = centred exist)")
        try:
            return cls(
                cube=1 << take(0, 4),
                cube_owner=-1 if owner == 3 else owner,
                dice_owner=take(6, 1),
                crawford=bool(take(7, 1)),
                game_state=take(8, 3),
                turn=take(11, 1),
                doubled=bool(take(12, 1)),
                resigned=take(13, 2),
                dice=(take(15, 3), take(18, 3)),
                length=take(21, 15),
                score=(take(36, 15), take(51, 15)),
                jacoby=not take(66, 1),
            )
        except ValueError as error:
            raise ValueError(f"match ID {text!r}: {error}") from None


def _whole(value: object, what: str) -> int:
    """The value as an int; ValueError unless it is a whole number (bool excluded)."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{what} {value!r} is not a whole number")
    return int(value)


def _pair(values: object, what: str) -> tuple[int, int]:
    """Two whole numbers as a tuple; ValueError otherwise."""
    if isinstance(values, str) or not isinstance(values, Iterable):
        raise ValueError(f"{what} {values!r} is not a pair of numbers")
    items = tuple(values)
    if len(items) != 2:
        raise ValueError(f"{what} {values!r} is not a pair of numbers")
    return _whole(items[0], what), _whole(items[1], what)


def _check_dice(dice: tuple[int, int], allow_unrolled: bool) -> None:
    """Raises ValueError unless dice are two values 1..6 (or (0, 0) when allowed)."""
    if allow_unrolled and dice == (0, 0):
        return
    if not all(1 <= die <= 6 for die in dice):
        raise ValueError(f"dice {dice!r} are not two values from 1 to 6" + (" or (0, 0)" * allow_unrolled))


def gnubg_id(board: object, match: MatchId) -> str:
    """gnubg's GNUbgID ``positionid:matchid``."""
    return f"{position_id(board)}:{match.encode()}"


def parse_gnubg_id(text: str) -> tuple[np.ndarray, MatchId]:
    """The board and match fields of a GNUbgID ``positionid:matchid``."""
    parts = text.strip().split(":")
    if len(parts) != 2:
        raise ValueError(f"GNUbgID {text!r} is not 'positionid:matchid'")
    return board_from_position_id(parts[0]), MatchId.decode(parts[1])


_XG_INT = re.compile(r"-?\d+")


@dataclass(frozen=True, eq=False)
class XgId:
    """An XGID position with players numbered as gnubg does: XG's bottom player is player 1, the top
    player player 0. ``board`` follows the package convention, row 1 being the side whose turn it is;
    ``turn`` is that player (for ``D``, ``B`` and ``R`` the player who doubled); ``cube_owner`` -1 when
    centred; ``dice`` (0, 0) before the roll, the two dice, or ``"D"`` (double offered), ``"B"`` (beaver)
    or ``"R"`` (raccoon); ``score`` by player (so (top, bottom), the reverse of the XGID text);
    ``crawford`` applies to match play, ``jacoby`` and ``beaver`` (the rules in force) to money play;
    ``max_cube`` is the highest cube value allowed."""

    board: np.ndarray
    turn: int
    cube: int = 1
    cube_owner: int = -1
    dice: tuple[int, int] | str = (0, 0)
    score: tuple[int, int] = (0, 0)
    crawford: bool = False
    jacoby: bool = False
    beaver: bool = False
    length: int = 0
    max_cube: int = 1 << 10

    def __post_init__(self) -> None:
        object.__setattr__(self, "board", check_board(self.board))
        for name in ("turn", "cube", "cube_owner", "length", "max_cube"):
            object.__setattr__(self, name, _whole(getattr(self, name), name.replace("_", " ")))
        for name in ("crawford", "jacoby", "beaver"):
            object.__setattr__(self, name, bool(getattr(self, name)))
        if not isinstance(self.dice, str):
            object.__setattr__(self, "dice", _pair(self.dice, "dice"))
        object.__setattr__(self, "score", _pair(self.score, "score"))
        if self.turn not in (0, 1):
            raise ValueError(f"turn {self.turn} is not a player (0 top or 1 bottom)")
        for name in ("cube", "max_cube"):
            value = getattr(self, name)
            if value < 1 or value & (value - 1) or value > 1 << MAX_CUBE_LOG2:
                raise ValueError(f"{name} {value} is not a power of 2 from 1 to {1 << MAX_CUBE_LOG2}")
        if self.cube_owner not in (-1, 0, 1):
            raise ValueError(f"cube owner {self.cube_owner} is not -1 (centred), 0 or 1")
        if isinstance(self.dice, str):
            if self.dice not in XG_CUBE_ACTIONS:
                raise ValueError(f"dice {self.dice!r} are not two dice nor one of {XG_CUBE_ACTIONS}")
        else:
            _check_dice(self.dice, allow_unrolled=True)
        if self.length < 0:
            raise ValueError(f"match length {self.length} is negative")
        if not all(points >= 0 for points in self.score):
            raise ValueError(f"score {self.score} is not two numbers from 0")
        if self.length and (self.jacoby or self.beaver):
            raise ValueError("the Jacoby and beaver rules belong to money play, not to a match")
        if not self.length and self.crawford:
            raise ValueError("the Crawford rule belongs to match play, not to money play")

    def _key(self) -> tuple:
        return (
            self.board.tobytes(),
            self.turn,
            self.cube,
            self.cube_owner,
            self.dice,
            self.score,
            self.crawford,
            self.jacoby,
            self.beaver,
            self.length,
            self.max_cube,
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, XgId) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    @classmethod
    def parse(cls, text: str) -> XgId:
        """The position of an XGID (with or without its ``XGID=`` prefix); ValueError if it is malformed."""
        body = text.strip()
        if body.startswith(XG_PREFIX):
            body = body[len(XG_PREFIX) :]
        fields = body.split(":")
        if len(fields) != 10:
            raise ValueError(f"XGID {text!r} has {len(fields)} fields, expected 10")
        cells, cube_log2, owner, turn, dice, bottom_score, top_score, rules, length, max_log2 = fields
        for name, value in (
            ("cube", cube_log2),
            ("cube owner", owner),
            ("turn", turn),
            ("bottom score", bottom_score),
            ("top score", top_score),
            ("rules", rules),
            ("match length", length),
            ("max cube", max_log2),
        ):
            if not _XG_INT.fullmatch(value):
                raise ValueError(f"XGID {text!r}: {name} {value!r} is not a whole number")
        if int(owner) not in (-1, 0, 1):
            raise ValueError(f"XGID {text!r}: cube owner {owner} is not 1, 0 or -1")
        if int(turn) not in (-1, 1):
            raise ValueError(f"XGID {text!r}: turn {turn} is not 1 (bottom) or -1 (top)")
        for name, value in (("cube", cube_log2), ("max cube", max_log2)):
            if not 0 <= int(value) <= MAX_CUBE_LOG2:
                raise ValueError(f"XGID {text!r}: {name} log2 {value} is not 0..{MAX_CUBE_LOG2}")
        match_length = int(length)
        if not 0 <= int(rules) <= (1 if match_length else 3):
            raise ValueError(f"XGID {text!r}: rules field {rules} is out of range for this kind of play")
        bottom, top = _xg_rows(cells, text)
        mover = 1 if int(turn) == 1 else 0
        try:
            return cls(
                board=np.array([top, bottom] if mover == 1 else [bottom, top], dtype=np.int8),
                turn=mover,
                cube=1 << int(cube_log2),
                cube_owner={0: -1, 1: 1, -1: 0}[int(owner)],
                dice=_xg_dice(dice, text),
                score=(int(top_score), int(bottom_score)),
                crawford=bool(int(rules)) if match_length else False,
                jacoby=bool(int(rules) & 1) if not match_length else False,
                beaver=bool(int(rules) & 2) if not match_length else False,
                length=match_length,
                max_cube=1 << int(max_log2),
            )
        except ValueError as error:
            raise ValueError(f"XGID {text!r}: {error}") from None

    def format(self) -> str:
        """The XGID text, with its ``XGID=`` prefix."""
        mover, other = self.board[1], self.board[0]
        bottom, top = (mover, other) if self.turn == 1 else (other, mover)
        cells = ["-"] * 26
        for index in range(POINTS):
            if bottom[index]:
                cells[index + 1] = chr(ord("A") + bottom[index] - 1)
            if top[index]:
                cells[POINTS - index] = chr(ord("a") + top[index] - 1)
        if bottom[BAR]:
            cells[25] = chr(ord("A") + bottom[BAR] - 1)
        if top[BAR]:
            cells[0] = chr(ord("a") + top[BAR] - 1)
        dice = self.dice if isinstance(self.dice, str) else f"{self.dice[0]}{self.dice[1]}"
        rules = int(self.crawford) if self.length else int(self.jacoby) + 2 * int(self.beaver)
        fields = (
            "".join(cells),
            self.cube.bit_length() - 1,
            {-1: 0, 1: 1, 0: -1}[self.cube_owner],
            1 if self.turn == 1 else -1,
            dice,
            self.score[1],
            self.score[0],
            rules,
            self.length,
            self.max_cube.bit_length() - 1,
        )
        return XG_PREFIX + ":".join(str(field) for field in fields)

    @classmethod
    def from_match_id(
        cls, board: object, match: MatchId, beaver: bool = False, max_cube: int = 1 << 10
    ) -> XgId:
        """The XGID of a gnubg position (board with the dice owner as row 1) where the player on roll is
        to roll or double, or a double is offered (``D``). ValueError for what an XGID cannot hold: a
        resignation offered, a game over, or gnubg's beaver state (the beaverer's redouble pending)."""
        if match.game_state != 1 or match.resigned:
            raise ValueError("an XGID holds a game in play with no resignation offered")
        if match.doubled and match.turn == match.dice_owner:
            raise ValueError("gnubg's beaver state (a redouble offered back to the doubler) has no XGID form")
        return cls(
            board=check_board(board),
            turn=match.dice_owner,
            cube=match.cube,
            cube_owner=match.cube_owner,
            dice="D" if match.doubled else match.dice,
            score=match.score,
            crawford=match.crawford if match.length else False,
            jacoby=match.jacoby if not match.length else False,
            beaver=beaver if not match.length else False,
            length=match.length,
            max_cube=max_cube,
        )

    def match_id(self) -> MatchId:
        """gnubg's Match ID fields of this position (player numbers kept: bottom = 1); ValueError for the
        beaver and raccoon states, which gnubg's Match ID cannot hold."""
        if self.dice in ("B", "R"):
            raise ValueError(f"the XGID cube state {self.dice!r} has no gnubg Match ID form")
        doubled = self.dice == "D"
        return MatchId(
            cube=self.cube,
            cube_owner=self.cube_owner,
            dice_owner=self.turn,
            crawford=self.crawford,
            game_state=1,
            turn=1 - self.turn if doubled else self.turn,
            doubled=doubled,
            dice=self.dice if isinstance(self.dice, tuple) else (0, 0),
            length=self.length,
            score=self.score,
            jacoby=self.jacoby,
        )


def _xg_rows(cells: str, text: str) -> tuple[list[int], list[int]]:
    """The bottom and top players' rows (points 1..24 from each side's own home, then bar) of XGID cells."""
    if len(cells) != 26:
        raise ValueError(f"XGID {text!r}: the board has {len(cells)} characters, expected 26")
    bottom = [0] * (POINTS + 1)
    top = [0] * (POINTS + 1)
    for index, char in enumerate(cells):
        if char == "-":
            continue
        if "A" <= char <= "P" and index != 0:
            bottom[BAR if index == 25 else index - 1] = ord(char) - ord("A") + 1
        elif "a" <= char <= "p" and index != 25:
            top[BAR if index == 0 else POINTS - index] = ord(char) - ord("a") + 1
        else:
            place = {0: "the top bar", 25: "the bottom bar"}.get(index, f"point {index}")
            raise ValueError(f"XGID {text!r}: bad board character {char!r} on {place}")
    return bottom, top


def _xg_dice(dice: str, text: str) -> tuple[int, int] | str:
    """The dice field of an XGID: (0, 0), two dice, or one of D, B, R."""
    if dice in XG_CUBE_ACTIONS:
        return dice
    if len(dice) == 2 and dice.isdigit():
        return int(dice[0]), int(dice[1])
    raise ValueError(f"XGID {text!r}: dice {dice!r} are not 00, two dice, D, B or R")
