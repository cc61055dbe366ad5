"""The doubling cube and the score of a match or a money session.

Words: the *cube* shows the stake (1, 2, 4, ...); a player who may double offers twice the stake before
rolling; the opponent *takes* (and then owns the cube: only the owner may redouble) or *passes* (drops),
losing the current stake. In money play a taker may *beaver*: redouble at once and keep the cube. A match is
played to N points; the *Crawford* game, the first game after a player reaches N - 1, is played without the
cube, which comes back in the games after it (*post-Crawford*). The *Jacoby* rule (money play) counts gammons
and backgammons as single games while the cube has not been turned. *Automatic doubles* (money play, by
agreement): each tie of the opening roll doubles the cube, up to a limit.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum

from taldau.base.kind import MOVE

from .position import GameValue


class DecisionKind(StrEnum):
    """What a backgammon decision decides (``Decision.kind``, the ``moves`` table's ``kind``): a checker
    play (``move``, every game's ``base.kind.MOVE``), whether to double before rolling (``cube``) or
    whether to take a double (``take``)."""

    MOVE = MOVE
    CUBE = "cube"
    TAKE = "take"


class CubeError(ValueError):
    """A cube action the rules do not allow in the current state."""


@dataclass(frozen=True)
class Rules:
    """Settings of a match (``length`` > 0) or a money session (``length`` 0). ``cube_limit`` is the
    highest cube value (0 for none); ``automatic_doubles`` caps the doubles of tied opening rolls."""

    length: int = 0
    crawford: bool = True
    jacoby: bool = True
    beavers: bool = True
    automatic_doubles: int = 0
    cube_limit: int = 0

    @property
    def money(self) -> bool:
        return self.length == 0


@dataclass(frozen=True)
class MatchState:
    """Where a match stands: the score of players 0 and 1, whether the current game is the Crawford game
    or comes after it, and the cube: its value, its owner (None while centred) and a pending offer (the
    player who doubled and is waiting for an answer)."""

    rules: Rules = Rules()
    score: tuple[int, int] = (0, 0)
    crawford_game: bool = False
    post_crawford: bool = False
    cube: int = 1
    cube_owner: int | None = None
    offered_by: int | None = None

    @property
    def over(self) -> bool:
        """True when a player has reached the match length (never in money play)."""
        return not self.rules.money and max(self.score) >= self.rules.length

    @property
    def winner(self) -> int | None:
        """The winner of a finished match."""
        if not self.over:
            return None
        return 0 if self.score[0] >= self.rules.length else 1

    def can_double(self, player: int) -> bool:
        """Whether ``player`` may offer the cube now (before rolling)."""
        try:
            self.double(player)
        except CubeError:
            return False
        return True

    def double(self, player: int) -> MatchState:
        """``player`` offers the cube at twice the stake; raises CubeError when that is not allowed."""
        if self.over:
            raise CubeError("the match is over")
        if self.crawford_game:
            raise CubeError("no doubling in the Crawford game")
        if self.offered_by is not None:
            raise CubeError("the cube is already offered")
        if self.cube_owner is not None and self.cube_owner != player:
            raise CubeError(f"player {player + 1} does not own the cube (player {self.cube_owner + 1} does)")
        if self.rules.cube_limit and self.cube * 2 > self.rules.cube_limit:
            raise CubeError(f"the cube is at its limit of {self.rules.cube_limit}")
        return replace(self, offered_by=player)

    def _answering(self, player: int, action: str) -> int:
        if self.offered_by is None:
            raise CubeError(f"{action} with no cube offered")
        if player == self.offered_by:
            raise CubeError(f"player {player + 1} {action} their own double")
        return self.offered_by

    def take(self, player: int) -> MatchState:
        """``player`` takes the offered cube: the stake doubles and ``player`` owns the cube."""
        self._answering(player, "takes")
        return replace(self, cube=self.cube * 2, cube_owner=player, offered_by=None)

    def beaver(self, player: int) -> MatchState:
        """``player`` takes and at once redoubles, keeping the cube (money play with beavers only)."""
        self._answering(player, "beavers")
        if not self.rules.money or not self.rules.beavers:
            raise CubeError("beavers are allowed only in money play that allows them")
        if self.rules.cube_limit and self.cube * 4 > self.rules.cube_limit:
            raise CubeError(f"a beaver would take the cube over its limit of {self.rules.cube_limit}")
        return replace(self, cube=self.cube * 4, cube_owner=player, offered_by=None)

    def drop(self, player: int) -> tuple[int, int]:
        """``player`` passes the offered cube: returns (winner, points), the stake before the double."""
        return self._answering(player, "passes"), self.cube

    def automatic_double(self) -> MatchState:
        """The cube doubled by a tied opening roll, when the rules allow one more (money play)."""
        if not self.rules.money or self.cube_owner is not None:
            return self
        doubles = self.cube.bit_length() - 1
        if doubles >= self.rules.automatic_doubles:
            return self
        if self.rules.cube_limit and self.cube * 2 > self.rules.cube_limit:
            return self
        return replace(self, cube=self.cube * 2)

    def points(self, value: GameValue) -> int:
        """Points of a game won with ``value`` at the current cube (Jacoby: in money play a gammon or
        backgammon counts single while the cube is centred, automatic doubles included)."""
        if self.rules.money and self.rules.jacoby and self.cube_owner is None:
            return self.cube
        return value.value * self.cube

    def next_game(self, winner: int, points: int) -> MatchState:
        """The state at the start of the next game after ``winner`` scored ``points``."""
        score = list(self.score)
        score[winner] += points
        crawford_game = False
        post_crawford = self.post_crawford or self.crawford_game
        if self.rules.crawford and not self.rules.money and not post_crawford:
            crawford_game = self.rules.length - 1 <= max(score) < self.rules.length
        return MatchState(
            rules=self.rules,
            score=(score[0], score[1]),
            crawford_game=crawford_game,
            post_crawford=post_crawford,
        )
