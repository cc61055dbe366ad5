"""A Togyz review's openings judged from a fresh table and shared by the games of a process: the same
judgement as a lone search, whatever games came before, kept within its bound."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from taldau.base.kind import Decision, Limit, pov
from taldau.games.togyz import Game, read_games
from taldau.games.togyz.chances import load_win_curve
from taldau.games.togyz.engine import Engine, EngineSettings
from taldau.games.togyz.kind import TogyzAnalyser
from taldau.games.togyz.review import OpeningJudgements, judge_move, review_game

LIMIT = Limit(depth=5)


@pytest.fixture(scope="module")
def sample(togyz_examples: Path) -> list[Game]:
    """The bundled PlayOK games: the third, fifth and seventh open with the same move (pit 7), the fifth
    and seventh with the same two."""
    return list(read_games((togyz_examples / "playok-2024-2025-sample.pgn").read_bytes(), "sample"))


def without_time(decisions: tuple[Decision, ...]) -> list[Decision]:
    """The decisions with their seconds set aside (the one figure a second search does not repeat)."""
    return [replace(decision, seconds=0.0) for decision in decisions]


def test_an_opening_is_judged_as_a_lone_search_from_a_fresh_table_would(sample: list[Game]) -> None:
    game, curve = sample[4], load_win_curve()
    analysis = review_game(game, Engine(), curve, LIMIT, openings=OpeningJudgements(plies=4))
    warm = review_game(game, Engine(), curve, LIMIT)
    for ply, decision in enumerate(analysis.decisions[:4]):
        position, move = game.positions[ply], game.moves[ply]
        alone = judge_move(position, move, Engine(), curve, LIMIT)
        side = int(position.turn)
        assert decision.score_best == pov(float(alone.best.score), side)
        assert decision.score_played == pov(float(alone.played.score), side)
        assert decision.best == position.san(alone.best.best) and decision.nodes == alone.nodes
    # the later plies are searched as before, the table carrying what it learnt from the game's end
    assert without_time(analysis.decisions[4:]) == without_time(warm.decisions[4:])
    # ... and the openings' searches, without the later plies' table, visit other nodes
    assert [d.nodes for d in analysis.decisions[:4]] != [d.nodes for d in warm.decisions[:4]]


def test_a_games_review_does_not_depend_on_the_games_reviewed_before(sample: list[Game]) -> None:
    curve = load_win_curve()
    alone, after_others = TogyzAnalyser(curve, opening_plies=4), TogyzAnalyser(curve, opening_plies=4)
    (lone,) = alone.review([sample[6]], LIMIT)
    *_, shared = after_others.review([sample[2], sample[4], sample[6]], LIMIT)
    assert without_time(shared.decisions) == without_time(lone.decisions)
    # 12 opening decisions, of which the 7th game's first two were judged in the 5th and the 5th's first
    # in the 3rd: 9 judgements kept
    assert len(after_others.openings) == 9 and len(alone.openings) == 4


def test_the_default_review_shares_its_openings_and_says_so(sample: list[Game]) -> None:
    analyser = TogyzAnalyser(load_win_curve())
    assert analyser.opening_plies == 12 and analyser.version().endswith(" fresh-openings 12")
    other = replace(analyser, settings=EngineSettings(deep_reductions=5))
    assert other.openings is not analyser.openings  # judgements of other settings are never mixed
    none = TogyzAnalyser(load_win_curve(), opening_plies=0)
    assert "fresh-openings" not in none.version()
    (plain,) = none.review([sample[5]], LIMIT)
    assert len(none.openings) == 0
    again = review_game(sample[5], Engine(), none.curve, LIMIT, verification=none.verification)
    assert without_time(plain.decisions) == without_time(again.decisions)


def test_opening_judgements_keep_the_most_recently_used_within_their_size(sample: list[Game]) -> None:
    game, curve = sample[0], load_win_curve()
    judgements = OpeningJudgements(plies=3, size=2)
    review_game(game, Engine(), curve, Limit(depth=2), openings=judgements)
    # plies 2, 1, 0 judged in that order: ply 2's forgotten
    assert len(judgements) == 2
    kept = [key[-1] for key in judgements._kept]
    assert kept == [game.moves[1], game.moves[0]]
    with pytest.raises(ValueError, match="room for one"):
        OpeningJudgements(size=0)
