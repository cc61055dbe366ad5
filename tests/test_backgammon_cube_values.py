"""``cubeful.cubeful_values``, the cubeful values of many positions at once that the look-ahead of
``cube_plies`` asks for by the level: row by row the numbers of ``cubeful_equity`` (money) and
``cubeful_mwc`` (match), whose one formula it is, for every kind of cube."""

from __future__ import annotations

import numpy as np
import pytest
from taldau.games.backgammon.engine.cubeful import cubeful_equity, cubeful_mwc, cubeful_values
from taldau.games.backgammon.rules.cube import MatchState, Rules
from taldau.games.backgammon.rules.met import kazaross_xg2

STATES = [
    MatchState(Rules(jacoby=False)),
    MatchState(Rules()),  # Jacoby: gammons single while the cube is centred
    MatchState(Rules(), cube=2, cube_owner=0),
    MatchState(Rules(), cube=4, cube_owner=1),
    MatchState(Rules(length=7), score=(2, 4)),
    MatchState(Rules(length=7), score=(3, 1), cube=2, cube_owner=0),
    MatchState(Rules(length=7), score=(0, 5), cube=2, cube_owner=1),
    MatchState(Rules(length=5), score=(4, 2), crawford_game=True),  # the cube is dead
    MatchState(Rules(length=5), score=(4, 2), post_crawford=True),
    MatchState(Rules(length=3), score=(1, 1), cube=2, cube_owner=1),  # both need no more than the cube
]


def _probabilities(rows: int) -> np.ndarray:
    """Consistent cubeless probabilities (gammons at most wins, backgammons at most gammons), certain wins
    and losses among them."""
    generator = np.random.default_rng(7)
    win = generator.uniform(0.0, 1.0, rows)
    win[:2] = (0.0, 1.0)
    gammon = win * generator.uniform(0.0, 0.5, rows)
    lose_gammon = (1.0 - win) * generator.uniform(0.0, 0.5, rows)
    share = generator.uniform(0.0, 0.3, rows)
    return np.column_stack([win, gammon, gammon * share, lose_gammon, lose_gammon * share])


@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize("player", [0, 1])
def test_each_row_is_the_single_positions_value(state: MatchState, player: int) -> None:
    table = kazaross_xg2()
    probabilities = _probabilities(40)
    efficiency = np.linspace(0.0, 1.0, len(probabilities))
    values = cubeful_values(probabilities, state, player, efficiency, table)
    assert values.shape == (len(probabilities),)
    single = cubeful_equity if state.rules.money else cubeful_mwc
    expected = [
        single(row, state, player, x, table) for row, x in zip(probabilities, efficiency, strict=True)
    ]
    assert values.tolist() == expected
    # one efficiency for every row
    assert cubeful_values(probabilities, state, player, 0.68, table).tolist() == [
        single(row, state, player, 0.68, table) for row in probabilities
    ]


def test_no_rows_no_values() -> None:
    assert cubeful_values(np.zeros((0, 5)), STATES[0], 0).shape == (0,)
    assert cubeful_values(np.zeros((0, 5)), STATES[4], 0).shape == (0,)
