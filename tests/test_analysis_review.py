"""Reviewing games: marks on a planted blunder, forced moves, real games end to end, rows as Arrow/Parquet."""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from helpers import make_position
from taldau.analysis.batch import BatchSettings, GameTask, analyse_task, plan
from taldau.analysis.review import (
    GameReview,
    judge,
    move_accuracy,
    review_headers,
)
from taldau.analysis.rows import move_rows
from taldau.base.kind import Decision, Limit, Mark, MarkScale, mark_for
from taldau.base.winchance import WinCurve, fit_win_curve
from taldau.games.togyz import Game, Position, read_games, write_scoresheet
from taldau.games.togyz.chances import load_win_curve
from taldau.games.togyz.decision import TogyzDetail
from taldau.games.togyz.engine import Engine, EngineSettings
from taldau.games.togyz.kind import SCALE, TogyzKind
from taldau.games.togyz.review import LOSS_CAP, VERIFICATION, Verification, review_game
from taldau.schemas import MOVES_SCHEMA, MOVES_SCHEMA_VERSION, RENAMED_IN_7, MoveRow, as_current, moves_table

LIMIT = Limit(depth=6)
VERSION_3_COLUMNS = {
    "kind",
    "dice",
    "match_id",
    "counted",
    "cubeless_best",
    "cubeless_played",
    "no_double",
    "double_take",
    "double_pass",
    "verdict",
    "luck",
    "luck_mark",
    "loss_mwc",
}
VERSION_5_COLUMNS = {"judged", "loss_se"}
VERSION_8_COLUMNS = {"reference", "reference_best", "reference_loss"}


def plies(decision: Decision) -> TogyzDetail:
    """A Togyz decision's own part: the plies to a forced result."""
    assert isinstance(decision.detail, TogyzDetail)
    return decision.detail


def reviewed(game: Game, engine: Engine, limit: Limit = LIMIT) -> tuple[list[MoveRow], GameReview]:
    """The game judged by the Togyz engine, marked at the Togyz thresholds, as ``moves`` rows."""
    review = judge(review_game(game, engine, load_win_curve(), limit), SCALE)
    return move_rows("g", review), review


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


@pytest.mark.slow
def test_a_planted_blunder_is_marked(engine: Engine) -> None:
    # White wins at once with 91(82) but plays 89; Black answers with its best move.
    start = make_position([0, 0, 0, 0, 0, 0, 0, 1, 2], [1, 3, 3, 3, 3, 3, 3, 3, 3], white_kazan=80)
    game = record(start, [8, 1])
    (blunder, reply), review = reviewed(game, engine)
    assert (blunder.played, blunder.best, blunder.mark) == ("89", "91(82)", "??")
    assert blunder.score_best == 999.0 and blunder.score_played < 0  # win in 1 -> a lost position
    assert blunder.chance_before == 1.0 and blunder.chance_after == -1.0
    assert blunder.loss == LOSS_CAP  # kumalak, never the 1993 between "win in 1" and "loss in 6"
    assert (blunder.plies_to_result_best, blunder.plies_to_result_played) == (1, -6)
    assert reply.played == reply.best and reply.mark is None and reply.loss == 0
    assert reply.score_played == reply.score_best  # the played move is the best: the same evaluation
    white, black = review.players
    assert (white.blunders, white.mistakes, white.inaccuracies) == (1, 0, 0)
    assert white.accuracy < 5 and black.accuracy == pytest.approx(100.0, abs=0.01) and black.blunders == 0
    assert review.marks == {0: "??"}


def test_forced_moves_are_flagged_not_marked(engine: Engine) -> None:
    start = make_position([1, 0, 0, 0, 0, 0, 0, 0, 0], [5, 5, 5, 5, 5, 5, 5, 5, 3], black_kazan=80)
    game = record(start, [1, 9])
    (first, second), _ = reviewed(game, engine)
    assert first.forced and first.mark is None and first.score_best == -998.0
    assert not second.forced and second.score_best == -999.0  # White's side: Black wins in 1
    assert second.plies_to_result_best == second.plies_to_result_played == 1  # the mover's side: Black's
    assert first.plies_to_result_best == first.plies_to_result_played == -2


def test_a_thrown_away_forced_win_loses_the_cap_and_keeps_its_plies(engine: Engine) -> None:
    # White wins at once with 91(82) and in 3 with 12; 69 leaves about +34 kumalak and no forced result.
    start = make_position([2, 0, 4, 0, 0, 4, 5, 0, 2], [3, 6, 4, 6, 2, 4, 2, 5, 3], white_kazan=78)
    rows = {pit: reviewed(record(start, [pit]), engine)[0][0] for pit in (9, 1, 6)}
    assert {pit: (row.best, row.played) for pit, row in rows.items()} == {
        9: ("91(82)", "91(82)"),
        1: ("91(82)", "12"),
        6: ("91(82)", "69"),
    }
    thrown = rows[6]
    assert thrown.loss == LOSS_CAP == 20.0 and thrown.mark == "?!"  # chances 1 -> about 0.9
    assert (thrown.plies_to_result_best, thrown.plies_to_result_played) == (1, None)
    assert 20 < thrown.score_played < 50  # the move played has a score in kumalak, and no forced result
    slower = rows[1]  # still a forced win, two plies later: no kumalak lost, the plies tell the rest
    assert slower.loss == 0.0 and slower.mark is None
    assert (slower.plies_to_result_best, slower.plies_to_result_played) == (1, 3)
    best = rows[9]
    assert best.loss == 0.0 and (best.plies_to_result_best, best.plies_to_result_played) == (1, 1)
    table = moves_table([thrown, slower]).to_pydict()
    assert table["loss"] == [20.0, 0.0]
    assert (table["plies_to_result_best"], table["plies_to_result_played"]) == ([1, 1], [None, 3])


def test_the_moves_mean_loss_is_the_games_mean_loss(togyz_examples: Path) -> None:
    # Real games at depth 3: the second and fourth end in forced results (losses of 970 kumalak before the
    # cap), the third has losses above the cap without one.
    settings = BatchSettings(limit=Limit(depth=3))
    tasks = list(plan([togyz_examples / "playok-2024-2025-sample.pgn"], settings))
    capped = forced_results = 0
    for task in (tasks[1], tasks[2], tasks[3], tasks[5]):
        assert isinstance(task, GameTask)
        moves, (row,) = analyse_task(task, settings)
        means = dict(
            duckdb.sql("select side, avg(loss) from moves where not forced group by side").fetchall()
        )
        assert row.white is not None and row.black is not None
        assert means == {0: pytest.approx(row.white.mean_loss), 1: pytest.approx(row.black.mean_loss)}
        assert pc.min(moves["loss"]).as_py() >= 0.0 and pc.max(moves["loss"]).as_py() <= LOSS_CAP
        capped += pc.sum(pc.equal(moves["loss"], LOSS_CAP)).as_py() or 0
        forced_results += moves["plies_to_result_best"].null_count < moves.num_rows
    assert capped >= 4 and forced_results == 2


def test_real_games_end_to_end(togyz_examples: Path, engine: Engine) -> None:
    games = list(read_games((togyz_examples / "playok-2024-2025-sample.pgn").read_bytes(), "sample"))
    curve = load_win_curve()
    for game in (games[5], games[2]):  # 24 and 62 plies
        review = judge(review_game(game, engine, curve, Limit(depth=4)), SCALE)
        rows = move_rows("g", review)
        assert [row.ply for row in rows] == list(range(1, game.plies + 1))  # White's first move is ply 1
        assert [row.played for row in rows] == [s.notation for s in game.sowings]
        for row in rows:  # ply N is played from the position after N - 1 plies, White on odd plies
            assert row.position == game.positions[row.ply - 1].fen() and row.side == (row.ply - 1) % 2
            assert -1 <= row.chance_after <= 1 and row.loss >= 0 and row.depth >= 4
            assert row.pv.split()[0] == row.best
            assert row.mark in (None, "?!", "?", "??")
        players = review.players
        assert sum(p.decisions for p in players) == game.plies
        # The annotated scoresheet reads back as the same game with the marks as glyphs.
        text = write_scoresheet(game, marks=review.marks, headers=review_headers(review, "taldau, depth 4"))
        (again,) = read_games(text.encode(), "annotated")
        assert again.valid and again.moves == game.moves
        assert {i: m.glyph for i, m in enumerate(again.record.moves) if m.glyph} == review.marks
        assert again.record.headers["WhiteAccuracy"] == f"{players[0].accuracy:.1f}"


def test_same_limit_same_review(togyz_examples: Path) -> None:
    game = list(read_games((togyz_examples / "playok-2024-2025-sample.pgn").read_bytes(), "sample"))[5]
    first = review_game(game, Engine(), load_win_curve(), Limit(depth=5)).decisions
    second = review_game(game, Engine(), load_win_curve(), Limit(depth=5)).decisions
    assert list(first) == [replace(row, seconds=first[i].seconds) for i, row in enumerate(second)]


def test_the_played_move_is_valued_by_the_next_positions_search(togyz_examples: Path) -> None:
    # One search per position: a move that is not the best is worth what the search of the position after
    # it (the next row, same limit) found, from the other side; searched on its own only where that does
    # not compare (forced results, the last ply, endgames the engine solves).
    game = list(read_games((togyz_examples / "playok-2024-2025-sample.pgn").read_bytes(), "sample"))[2]
    curve, limit = load_win_curve(), Limit(depth=5)
    one = review_game(game, Engine(), curve, limit, one_search=True).decisions
    two = review_game(game, Engine(), curve, limit).decisions
    taken = 0
    for row, after in pairwise(one):
        stones = Position.from_fen(after.position).stones_on_board()
        proven = plies(row).plies_to_result_best or plies(after).plies_to_result_best
        if row.played == row.best or stones <= 16 or proven:
            continue
        assert row.score_played == after.score_best  # both from White's side
        taken += 1
    assert taken >= 10
    # Searching the played moves too costs more nodes (deterministic counts; what the tables carry from
    # one search to the next differs, so the positions' own searches may differ a little).
    assert sum(row.nodes for row in one) < sum(row.nodes for row in two)
    last = one[-1]  # nothing was searched after the last move: its own search
    assert (last.played == last.best) or last.score_played != last.score_best


def test_verification_judges_the_decisions_that_lose_much_by_a_deeper_search(togyz_examples: Path) -> None:
    # Plain alpha-beta (no table, no ordering, no pruning) finds the minimax value of a depth whatever was
    # searched before, so each row can be checked against fresh searches: a decision whose move gives away
    # at least the drop at depth 3 is judged at depth 5 (both moves), every other one as without it.
    game = list(read_games((togyz_examples / "playok-2024-2025-sample.pgn").read_bytes(), "sample"))[2]
    curve, settings = load_win_curve(), EngineSettings.plain()
    verification = Verification(drop=0.1, plies=2)
    plain = review_game(game, Engine(settings), curve, Limit(depth=3)).decisions
    verified = review_game(
        game, Engine(settings), curve, Limit(depth=3), verification=[verification]
    ).decisions
    fresh = Engine(settings)
    deeper = 0
    for shallow, row in zip(plain, verified, strict=True):
        if shallow.forced or shallow.drop < verification.drop:
            assert row == replace(shallow, seconds=row.seconds)
            continue
        deeper += 1
        position = Position.from_fen(row.position)
        white = -1 if position.turn else 1  # scores are stored from White's side
        pit = next(pit for pit in position.legal_moves() if position.san(pit) == row.played)
        best = fresh.analyse(position, Limit(depth=5))
        played = fresh.evaluate_move(position, pit, Limit(depth=5))
        assert (row.depth, row.best, row.score_best) == (
            5,
            position.san(best.best),
            white * float(best.score),
        )
        assert row.score_played == white * float(played.score)
        assert row.nodes > shallow.nodes
    assert deeper >= 5
    never = review_game(game, Engine(settings), curve, Limit(depth=3), verification=[Verification(2.0, 2)])
    assert [replace(row, seconds=0.0) for row in never.decisions] == [
        replace(row, seconds=0.0) for row in plain
    ]
    with pytest.raises(ValueError):
        Verification(drop=0.0, plies=2)


def test_a_stage_searches_with_its_own_deep_reductions() -> None:
    # The default's first stage searches without the engine's deep reductions: its searches are those of an
    # engine set so (same move, score and nodes from an empty table), and the engine's own come back after.
    middle = Position.start().play(3).play(5).play(7)
    engine = Engine()
    assert engine.settings.deep_reductions == 3 and VERIFICATION[0].deep_reductions == 0
    with engine.deep_reductions(VERIFICATION[0].deep_reductions):
        inside = engine.analyse(middle, Limit(depth=10))
    engine.new_game()
    after = engine.analyse(middle, Limit(depth=10))
    unreduced = Engine(replace(EngineSettings(), deep_reductions=0)).analyse(middle, Limit(depth=10))
    reduced = Engine().analyse(middle, Limit(depth=10))
    found = [(info.best, info.score.value, info.nodes) for info in (inside, after, unreduced, reduced)]
    assert found[0] == found[2] and found[1] == found[3] and found[0][2] > found[1][2]
    # written as the engine version and --verify write them
    assert ",".join(str(stage) for stage in VERIFICATION) == "0.08+1d0,0.15+3,0.25+6"
    assert Verification.parse("0.08+1d0,0.15+3,0.25+6") == VERIFICATION
    for bad in ("0.1+2d", "0.1+2x0", "0.1", "0.1+2d-1"):
        with pytest.raises(ValueError, match="verification stage"):
            Verification.parse(bad)


def test_the_default_review_verifies_in_its_stages(togyz_examples: Path) -> None:
    # The batch's analyser at depth 3: stages to depths 4, 6 and 9 (0.08+1, 0.15+3, 0.25+6). A decision
    # stops at the first stage whose drop its last search does not reach, so its depth and drop agree
    # (away from the endgames the engine solves, where a depth limit is passed anyway, and from forced
    # results, which end a search before its depth).
    analyser = TogyzKind().analyser
    assert analyser.verification == VERIFICATION and "verify 0.08+1d0,0.15+3,0.25+6" in analyser.version()
    text = (togyz_examples / "playok-2024-2025-sample.pgn").read_text()
    games = list(read_games(text.encode(), "sample"))[:4]
    below = {3: 0.08, 4: 0.15, 6: 0.25}  # the drop a decision judged at this depth stays below
    depths = []
    for game in games:
        (analysis,) = analyser.review([game], Limit(depth=3))
        for row in analysis.decisions:
            proven = (
                plies(row).plies_to_result_best is not None or plies(row).plies_to_result_played is not None
            )
            if row.forced or proven or Position.from_fen(row.position).stones_on_board() <= 16:
                continue
            assert row.depth in (3, 4, 6, 9)
            assert row.drop < below.get(row.depth, 2.0)
            depths.append(row.depth)
    assert {3, 4, 6, 9} <= set(depths)
    # A node limit has no depth to add to: nothing is verified.
    limit = Limit(nodes=2_000)
    (verified,) = analyser.review(games[:1], limit)
    (plain,) = replace(analyser, verification=()).review(games[:1], limit)
    assert [replace(row, seconds=0.0) for row in verified.decisions] == [
        replace(row, seconds=0.0) for row in plain.decisions
    ]


def test_marks_follow_the_thresholds() -> None:
    assert SCALE.thresholds == (0.1, 0.2, 0.3)
    assert [SCALE.mark(drop) for drop in (0.05, 0.1, 0.19, 0.2, 0.3, 1.5)] == [
        None,
        "?!",
        "?!",
        "?",
        "??",
        "??",
    ]
    assert mark_for(0.12, (0.05, 0.1, 0.15)) is Mark.BAD
    with pytest.raises(ValueError, match="must rise"):
        MarkScale("chances", (0.3, 0.2, 0.1))
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
    identity = TogyzKind().identity(game)
    table = moves_table(move_rows(identity, reviewed(game, engine, Limit(depth=3))[1]))
    assert table.schema.equals(MOVES_SCHEMA, check_metadata=True)
    assert table.schema.metadata[b"taldau.schema_version"] == MOVES_SCHEMA_VERSION.encode()
    assert table.num_rows == game.plies and set(table.column("game_id").to_pylist()) == {identity}
    pq.write_table(table, tmp_path / "moves.parquet")
    back = pq.read_table(tmp_path / "moves.parquet", schema=MOVES_SCHEMA)
    assert back.to_pylist() == table.to_pylist()
    assert back.column("key").to_pylist()[0] == game.positions[0].key


def test_a_version_1_moves_file_reads_as_today_s(tmp_path: Path) -> None:
    # Version 1 had no plies columns (nor version 3's, 5's or 7's ``drop``), counted plies from 0 and named
    # its columns as before version 7; the schema grows by columns, so old files still read.
    before = {today: then for then, today in RENAMED_IN_7.items()}
    version_1 = pa.schema(
        [
            field.with_name(before.get(field.name, field.name))
            for field in MOVES_SCHEMA
            if not field.name.startswith("plies_to_result")
            and field.name
            not in VERSION_3_COLUMNS | VERSION_5_COLUMNS | VERSION_8_COLUMNS | {"luck_mwc", "drop"}
        ],
        metadata={b"taldau.schema_version": b"1"},
    )
    strings = {
        "game_id": "g",
        "fen": "f",
        "move": "12",
        "best_move": "91",
        "pv": "",
        "mark": None,
        "forced": False,
    }
    chances = {
        "side": 1,
        "win_chance_before": -0.25,
        "win_chance_after": 0.5,
    }  # White's side: Black lost 0.75
    row = dict.fromkeys(version_1.names, 0) | strings | chances
    pq.write_table(pa.Table.from_pylist([row], version_1), tmp_path / "v1.parquet")
    (back,) = as_current(pq.read_table(tmp_path / "v1.parquet")).to_pylist()
    assert (back["ply"], back["position"], back["played"], back["best"]) == (1, "f", "12", "91")
    assert (back["chance_before"], back["chance_after"], back["drop"]) == (-0.25, 0.5, 0.75)
    assert not {"plies_to_result_best", "fen", "move", "win_chance_after"} & set(back)
    assert MOVES_SCHEMA_VERSION == "8"
