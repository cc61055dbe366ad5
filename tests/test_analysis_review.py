"""Reviewing games: marks on a planted blunder, forced moves, real games end to end, rows as Arrow/Parquet."""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest
from helpers import make_position
from taldau.analysis.identity import game_id
from taldau.analysis.review import ReviewSettings, move_accuracy, review_game, review_headers
from taldau.analysis.winchance import WinCurve, fit_win_curve
from taldau.games.togyz import Game, Position, read_games, write_scoresheet
from taldau.games.togyz.chances import load_win_curve
from taldau.games.togyz.engine import Engine, Limit
from taldau.schemas import MOVES_SCHEMA, MOVES_SCHEMA_VERSION, moves_table

LIMIT = Limit(depth=6)


def record(position: Position, pits: list[int]) -> Game:
    """A one-game record starting from ``position`` with the given moves, read back through the reader."""
    tokens, current = [], position
    for pit in pits:
        tokens.append(current.san(pit))
        current = current.play(pit)
    dots = "." if position.turn == 0 else "..."
    text = f'[FEN "{position.fen()}"]\n\n{position.move_number}{dots} ' + " ".join(tokens) + " *\n"
    (game,) = read_games(text.encode(), "test.pgn")
    assert game.valid, game.errors
    return game


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine()


def test_a_planted_blunder_is_marked(engine: Engine) -> None:
    # White wins at once with 91(82) but plays 89; Black answers with its best move.
    start = make_position([0, 0, 0, 0, 0, 0, 0, 1, 2], [1, 3, 3, 3, 3, 3, 3, 3, 3], white_kazan=80)
    game = record(start, [8, 1])
    review = review_game(game, engine, load_win_curve(), ReviewSettings(LIMIT))
    blunder, reply = review.plies
    assert (blunder.move, blunder.best_move, blunder.mark) == ("89", "91(82)", "??")
    assert blunder.score_best == 999.0 and blunder.score_played < 0  # win in 1 -> a lost position
    assert blunder.win_chance_before == 1.0 and blunder.win_chance_after == -1.0
    assert blunder.loss == pytest.approx(999.0 - blunder.score_played)
    assert reply.move == reply.best_move and reply.mark is None and reply.loss == 0
    assert reply.score_played == reply.score_best  # the played move is the best: the same evaluation
    white, black = review.players
    assert (white.blunders, white.mistakes, white.inaccuracies) == (1, 0, 0)
    assert white.accuracy < 5 and black.accuracy == pytest.approx(100.0, abs=0.01) and black.blunders == 0
    assert review.marks == {0: "??"}


def test_forced_moves_are_flagged_not_marked(engine: Engine) -> None:
    start = make_position([1, 0, 0, 0, 0, 0, 0, 0, 0], [5, 5, 5, 5, 5, 5, 5, 5, 3], black_kazan=80)
    game = record(start, [1, 9])
    first, second = review_game(game, engine, load_win_curve(), ReviewSettings(LIMIT)).plies
    assert first.forced and first.mark is None and first.score_best == -998.0
    assert not second.forced and second.score_best == -999.0  # White's side: Black wins in 1


def test_real_games_end_to_end(togyz_examples: Path, engine: Engine) -> None:
    games = list(read_games((togyz_examples / "playok-2024-2025-sample.pgn").read_bytes(), "sample"))
    curve = load_win_curve()
    for game in (games[5], games[2]):  # 24 and 62 plies
        review = review_game(game, engine, curve, ReviewSettings(Limit(depth=4)))
        assert [row.ply for row in review.plies] == list(range(game.plies))
        assert [row.move for row in review.plies] == [s.notation for s in game.sowings]
        for row in review.plies:
            assert row.fen == game.positions[row.ply].fen() and row.side == row.ply % 2
            assert -1 <= row.win_chance_after <= 1 and row.loss >= 0 and row.depth >= 4
            assert row.pv.split()[0] == row.best_move
            assert row.mark in (None, "?!", "?", "??")
        players = review.players
        assert sum(p.moves for p in players) == game.plies
        # The annotated scoresheet reads back as the same game with the marks as glyphs.
        text = write_scoresheet(game, marks=review.marks, headers=review_headers(review, "taldau, depth 4"))
        (again,) = read_games(text.encode(), "annotated")
        assert again.valid and again.moves == game.moves
        assert {i: m.glyph for i, m in enumerate(again.record.moves) if m.glyph} == review.marks
        assert again.record.headers["WhiteAccuracy"] == f"{players[0].accuracy:.1f}"


def test_same_limit_same_review(togyz_examples: Path) -> None:
    game = list(read_games((togyz_examples / "playok-2024-2025-sample.pgn").read_bytes(), "sample"))[5]
    settings = ReviewSettings(Limit(depth=5))
    first = review_game(game, Engine(), load_win_curve(), settings)
    second = review_game(game, Engine(), load_win_curve(), settings)
    assert first.plies == [
        row.__class__(**{**row.__dict__, "seconds": first.plies[i].seconds})
        for i, row in enumerate(second.plies)
    ]


def test_marks_follow_the_thresholds() -> None:
    settings = ReviewSettings(Limit(depth=1))
    assert [settings.mark(drop) for drop in (0.05, 0.1, 0.19, 0.2, 0.3, 1.5)] == [
        None,
        "?!",
        "?!",
        "?",
        "??",
        "??",
    ]
    custom = ReviewSettings(Limit(depth=1), thresholds=(0.05, 0.1, 0.15))
    assert custom.mark(0.12) == "?"
    with pytest.raises(ValueError):
        ReviewSettings(Limit(depth=1), thresholds=(0.3, 0.2, 0.1))
    assert move_accuracy(0.5, 0.5) == pytest.approx(100.0, abs=0.01)
    assert move_accuracy(1.0, -1.0) == 0.0


def test_win_curve_fit_recovers_a_known_curve() -> None:
    import numpy as np

    rng = np.random.default_rng(3)
    scores = rng.normal(0, 8, 20_000)
    progress = rng.uniform(0, 1, 20_000)
    truth = WinCurve(0.15, 0.25)
    expected = np.array([(1 + truth.chances(s, p)) / 2 for s, p in zip(scores, progress, strict=True)])
    results = (rng.uniform(0, 1, 20_000) < expected).astype(float)
    fitted = fit_win_curve(scores, progress, results)
    assert fitted.scale == pytest.approx(0.15, abs=0.02) and fitted.phase_scale == pytest.approx(
        0.25, abs=0.05
    )
    assert fitted.chances(0.0, 0.5) == 0.0 and fitted.chances(3.0, 0.2, forced=-5) == -1.0


def test_rows_as_arrow_and_parquet(tmp_path: Path, togyz_examples: Path, engine: Engine) -> None:
    game = list(read_games((togyz_examples / "playok-2024-2025-sample.pgn").read_bytes(), "sample"))[5]
    review = review_game(game, engine, load_win_curve(), ReviewSettings(Limit(depth=3)))
    identity = game_id("togyz", game.record.headers, game.positions[0].fen(), game.moves)
    table = moves_table(identity, review.plies)
    assert table.schema.equals(MOVES_SCHEMA, check_metadata=True)
    assert table.schema.metadata[b"taldau.schema_version"] == MOVES_SCHEMA_VERSION.encode()
    assert table.num_rows == game.plies and set(table.column("game_id").to_pylist()) == {identity}
    pq.write_table(table, tmp_path / "moves.parquet")
    back = pq.read_table(tmp_path / "moves.parquet", schema=MOVES_SCHEMA)
    assert back.to_pylist() == table.to_pylist()
    assert back.column("key").to_pylist()[0] == game.positions[0].key


def test_game_id_depends_on_content_only() -> None:
    a = game_id("togyz", {"White": "a", "Black": "b"}, "fen", [8, 8, 2])
    assert a == game_id("togyz", {"Black": "b", "White": "a"}, "fen", [8, 8, 2]) and len(a) == 16
    assert a != game_id("togyz", {"White": "a", "Black": "b"}, "fen", [8, 8, 3])
