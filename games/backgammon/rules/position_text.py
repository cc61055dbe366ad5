"""Backgammon positions given as text, as players paste them from gnubg and eXtreme Gammon: a bare gnubg
Position ID, a GNUbgID (``PositionID:MatchID``) or an XGID, with what each says of the cube, the score and
the dice."""

from __future__ import annotations

from dataclasses import dataclass

from .cube import MatchState, Rules
from .ids import MatchId, XgId, parse_gnubg_id
from .position import Dice, Position


@dataclass(frozen=True)
class PositionSetup:
    """A position read from text: the checkers and the player on roll, the match state when the text
    gives one, and the dice when they have been rolled."""

    position: Position
    state: MatchState | None = None
    dice: Dice | None = None


def _dice(dice: tuple[int, int] | str) -> Dice | None:
    if isinstance(dice, str) or dice == (0, 0):
        return None
    return max(dice), min(dice)


def _state(
    rules: Rules, score: tuple[int, int], crawford: bool, cube: int, owner: int, offered_by: int | None
) -> MatchState:
    """A match state from the fields both position strings carry (``owner`` -1 when centred); a score at
    N-1 outside the Crawford game means post-Crawford."""
    post_crawford = rules.length > 0 and not crawford and max(score) == rules.length - 1
    return MatchState(
        rules=rules,
        score=score,
        crawford_game=crawford,
        post_crawford=post_crawford,
        cube=cube,
        cube_owner=None if owner < 0 else owner,
        offered_by=offered_by,
    )


def state_from_match_id(match: MatchId) -> MatchState:
    """The match state a gnubg Match ID describes."""
    money = match.length == 0
    rules = Rules(length=match.length, jacoby=match.jacoby and money, beavers=money)
    offered_by = match.dice_owner if match.doubled else None
    return _state(rules, match.score, match.crawford, match.cube, match.cube_owner, offered_by)


def state_from_xgid(xgid: XgId) -> MatchState:
    """The match state an XGID describes."""
    rules = Rules(length=xgid.length, jacoby=xgid.jacoby, beavers=xgid.beaver, cube_limit=xgid.max_cube)
    offered_by = xgid.turn if xgid.dice == "D" else None
    return _state(rules, xgid.score, xgid.crawford, xgid.cube, xgid.cube_owner, offered_by)


def read_position(text: str) -> PositionSetup:
    """A position from a gnubg Position ID (player 0 on roll), a GNUbgID or an XGID; raises ValueError
    naming what is wrong."""
    text = text.strip()
    if text[:5].upper() == "XGID=":
        xgid = XgId.parse("XGID=" + text[5:])
        return PositionSetup(Position(xgid.board, xgid.turn), state_from_xgid(xgid), _dice(xgid.dice))
    if ":" in text:
        board, match = parse_gnubg_id(text)
        return PositionSetup(Position(board, match.dice_owner), state_from_match_id(match), _dice(match.dice))
    return PositionSetup(Position.from_position_id(text))
