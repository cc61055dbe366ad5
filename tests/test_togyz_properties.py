"""Properties of random play that the rules guarantee, checked with hypothesis."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from taldau.games.togyz import Position, Side, Termination

choices = st.lists(st.integers(min_value=0, max_value=8), min_size=1, max_size=300)


def _check_invariants(position: Position) -> None:
    pits = {side: position.pits(side) for side in Side}
    kazans = position.kazan(Side.WHITE) + position.kazan(Side.BLACK)
    assert sum(pits[Side.WHITE]) + sum(pits[Side.BLACK]) + kazans == 162
    assert all(n >= 0 for side in Side for n in pits[side])
    tuzdyks = {side: position.tuzdyk(side) for side in Side}
    for side, pit in tuzdyks.items():
        if pit is not None:
            assert 1 <= pit <= 8, "a tuzdyk is never on pit 9"
            assert pits[side.opponent][pit - 1] == 0, "a tuzdyk always stays empty"
            if position.turn is side.opponent:
                assert pit not in position.legal_moves(), "a tuzdyk is never a legal origin"
    if None not in tuzdyks.values():
        assert tuzdyks[Side.WHITE] != tuzdyks[Side.BLACK], "tuzdyks are never mirrored"


@settings(max_examples=300, deadline=None)
@given(choices)
def test_random_play_keeps_the_rules_invariants(picks: list[int]) -> None:
    position = Position.start()
    made: dict[Side, int] = {Side.WHITE: 0, Side.BLACK: 0}
    for pick in picks:
        moves = position.legal_moves()
        if not moves:
            break
        sowing = position.sow(moves[pick % len(moves)])
        if sowing.tuzdyk:
            made[position.turn] += 1
        # Once made, a tuzdyk stays where it is for the rest of the game.
        for side in Side:
            if position.tuzdyk(side) is not None:
                assert sowing.position.tuzdyk(side) == position.tuzdyk(side)
        position = sowing.position
        _check_invariants(position)
        assert Position.from_fen(position.fen()) == position
    assert max(made.values()) <= 1, "at most one tuzdyk per player"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=8), min_size=200, max_size=400))
@pytest.mark.slow
def test_games_played_to_the_end_have_a_consistent_outcome(picks: list[int]) -> None:
    position = Position.start()
    for pick in picks:
        moves = position.legal_moves()
        if not moves:
            break
        position = position.play(moves[pick % len(moves)])
    outcome = position.outcome()
    if outcome is None:
        assert position.legal_moves()
        return
    assert not position.legal_moves()
    assert sum(outcome.kazans) == 162 or outcome.termination is Termination.KAZAN
    if outcome.winner is None:
        assert outcome.kazans == (81, 81)
    else:
        assert outcome.kazans[outcome.winner] >= 82
