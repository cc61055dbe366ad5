"""Backgammon matches through the common face and the batch: the analyser (``games/backgammon/kind.py``)
turns the match review into the shared ``Decision``s, ``analysis`` marks them and sums the players'
figures, and ``taldau analyze --game backgammon`` writes them to Parquet.

Known answers: GNU Backgammon 1.07's own 0-ply analysis of 10 real matches (tests/data/backgammon/gnubg/
analysis/, made by ``analysis_fixtures.py``), reproduced through the whole path with the gnubg-nn
evaluator; and, with our own nets (always), the rows of a real match checked against its replay.
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner
from taldau.analysis.review import judge
from taldau.base.kind import Analyser, Limit
from taldau.cli.main import main
from taldau.games.backgammon.engine.gnubg import gnubg_available
from taldau.games.backgammon.kind import BackgammonAnalyser, BackgammonKind
from taldau.games.backgammon.records.record import ActionKind
from taldau.games.backgammon.records.replay import read_games
from taldau.games.backgammon.review.decision import detail_of
from taldau.games.backgammon.review.marks import EMG_SCALE
from taldau.games.backgammon.rules.cube import DecisionKind
from taldau.games.togyz.kind import TogyzKind

DATA = Path(__file__).resolve().parent / "data" / "backgammon" / "gnubg" / "analysis"
EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "backgammon" / "galaxy-6800849.txt"
LABELS = {None: None, "?!": "doubtful", "?": "bad", "??": "very bad"}


def test_the_backgammon_analyser_has_the_common_face() -> None:
    analyser = BackgammonKind().analyser
    assert isinstance(analyser, Analyser)
    assert analyser.scale == EMG_SCALE
    assert analyser.search(Limit()).plies == 2  # gnubg's default analysis
    assert analyser.search(Limit(depth=0)).plies == 0
    # each engine's own move filter: gnubg's for own, a narrower one for sage (engine.engine_search)
    default_filter = "5/0.08" if analyser.engine_name() == "sage" else "16/0.32"
    review = str(analyser.search(Limit()))
    assert review.startswith(f"standard: 2-ply {default_filter}, cube 2-ply cubeful within 0.2, luck 0-ply")
    own = BackgammonKind().analyser_with("own")
    assert str(own.search(Limit())).startswith(
        "standard: 2-ply 16/0.32, cube 2-ply cubeful within 0.2, luck 0-ply"
    )
    # the named levels: quick at 0-ply; deep and world settle the decisions in doubt, said in the key
    assert str(own.search(Limit(level="quick"))).startswith("quick: 0-ply 16/0.32, cube 0-ply")
    deep = own.search(Limit(level="deep"))
    assert deep.plies == 2 and deep.settle is not None and deep.settle.plies == 3
    assert "in doubt (band 0.015, close 0.01, cube 0.05) 3-ply" in str(deep)
    world = own.search(Limit(level="world", depth=1))
    assert world.plies == 1 and world.settle is not None and world.settle.rollout is not None
    assert "rollout of 648 trials, seed 42" in str(world)
    budgets = [own.time_budget(Limit(level=level), 100) for level in ("standard", "deep", "world")]
    assert budgets == sorted(budgets) and budgets[0] < budgets[1] < budgets[2]
    with pytest.raises(ValueError, match="no deeper"):
        own.search(Limit(level="deep", depth=3))
    with pytest.raises(ValueError, match="levels of review are backgammon's"):
        TogyzKind().analyser.search(Limit(level="deep"))
    with pytest.raises(ValueError, match="plies"):
        analyser.search(Limit(nodes=1000))
    with pytest.raises(ValueError, match="0 to 3"):
        analyser.search(Limit(depth=4))
    budget = analyser.time_budget(Limit(), 100)
    assert budget == pytest.approx(2 * analyser.time_budget(Limit(), 50)) and budget > 0
    assert analyser.version().startswith("bgsage " if analyser.engine_name() == "sage" else "own")
    assert own.version().startswith("own")


@pytest.mark.skipif(
    not gnubg_available(), reason="gnubg-nn (the optional taldau[gnubg] extra) is not installed"
)
def test_gnubgs_own_analysis_through_the_common_face() -> None:
    """Every match of the fixtures reviewed by ``BackgammonAnalyser("gnubg")`` at 0-ply, marked by
    ``analysis.review.judge``: gnubg's losses (within 0.005) and marks on at least 95% of the plays, its
    cube verdicts on the cube and take decisions and their No double equities within 0.01 on 95%, and
    its players' error rates (mEMG over the match, from the generic figures summed over the games)
    within 5% for all players but one (measured: 796 losses and 797 marks of 798 plays, all 367
    verdicts, 365 equities)."""
    analyser = BackgammonAnalyser("gnubg")
    plays = losses = marks = cubes = verdicts = equities = 0
    rates: list[tuple[float, float]] = []
    for path in sorted(DATA.glob("*.json")):
        fixture = json.loads(path.read_text())
        text = (DATA / fixture["file"]).read_text()
        expected = {
            (d["kind"], d["position_id"], d["match_id"]): d
            for game in fixture["games"]
            for d in game["decisions"]
            if d["kind"] == "move" or d["equities"] is not None
        }
        games = [game for game in read_games(text.encode(), fixture["file"]) if game.valid]
        analyses = analyser.review(games, Limit(depth=0))
        reviews = [judge(analysis, EMG_SCALE) for analysis in analyses]
        for review in reviews:
            for marked in review.decisions:
                decision = marked.decision
                detail = detail_of(decision)
                theirs = expected[(decision.kind.value, decision.position, detail.match_id)]
                if decision.kind is DecisionKind.MOVE:
                    plays += 1
                    losses += abs(decision.loss - theirs["loss"]) < 0.005
                    marks += LABELS[marked.mark] == theirs["mark"]
                else:
                    assert detail.cube is not None
                    cubes += 1
                    verdicts += detail.cube.verdict == theirs["verdict"]
                    equities += abs(detail.cube.no_double - theirs["equities"]["no_double"]) < 0.01
        if fixture["length"] == 0:  # money: gnubg counts a beaver's decisions otherwise
            continue
        for side in (0, 1):
            error = sum(review.players[side].error for review in reviews)
            counted = sum(review.players[side].counted for review in reviews)
            rates.append((1000 * error / counted, fixture["statistics"][side]["overall"]["error_rate"]))
    assert plays > 750 and losses >= 0.95 * plays and marks >= 0.95 * plays, (plays, losses, marks)
    assert cubes > 350 and verdicts >= cubes - 3 and equities >= 0.95 * cubes, (cubes, verdicts, equities)
    assert len(rates) == 18
    assert sum(ours == pytest.approx(theirs, rel=0.05) for ours, theirs in rates) >= 17, rates


def test_analyze_writes_a_match_with_its_decisions_and_figures(tmp_path: Path) -> None:
    """`taldau analyze --game backgammon --depth 0` on a real 3-point match (own nets): one games row per
    game with the match score before it as the replay has it, one moves row per roll played and per cube
    and take decision, losses never below 0 and marked at gnubg's thresholds, and each player's error
    in the games table the sum of that player's counted losses in the moves table."""
    out = tmp_path / "out"
    result = CliRunner().invoke(
        main,
        ["analyze", str(EXAMPLE), "--game", "backgammon", "--depth", "0", "--jobs", "1", "--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    games = list(read_games(EXAMPLE.read_bytes(), EXAMPLE.name))
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["counts"]["ok"] == len(games) == 4
    connection = duckdb.connect()
    rows = connection.sql(
        f"select index, match_length, white_match_score, black_match_score, winner, points, "
        f"white_error, black_error, white_counted, black_counted "
        f"from read_parquet('{out}/games/**/*.parquet') order by index"
    ).fetchall()
    assert [(r[1], r[2], r[3], r[4], r[5]) for r in rows] == [
        (3, game.start.score[0], game.start.score[1], game.winner, game.points) for game in games
    ]
    # the players' names in the header columns of the sides (the record has no White / Black headers)
    names = connection.sql(f"select white, black from read_parquet('{out}/games/**/*.parquet')").fetchall()
    assert set(names) == {games[0].match.players} and all(games[0].match.players)
    moves = connection.sql(
        f"select m.game_id, g.index, m.side, m.kind, m.dice, m.loss, m.mark, m.counted, m.forced, "
        f"m.no_double, m.verdict from read_parquet('{out}/moves/**/*.parquet') m "
        f"join read_parquet('{out}/games/**/*.parquet') g using (game_id)"
    ).fetchall()
    for game in games:
        rolls = [s for s in game.steps if s.action.kind is ActionKind.ROLL]
        doubles = [s for s in game.steps if s.action.kind is ActionKind.DOUBLE]
        mine = [m for m in moves if m[1] == game.index]
        assert sum(m[3] == "move" for m in mine) == len(rolls)
        assert sum(m[3] == "take" for m in mine) == len(doubles)
        assert {m[4] for m in mine if m[3] == "move"} == {
            f"{s.action.dice[0]}{s.action.dice[1]}" for s in rolls
        }
    for _, _, _, kind, dice, loss, mark, counted, forced, no_double, verdict in moves:
        assert loss >= 0 and not (forced and (counted or mark))
        low, middle, high = EMG_SCALE.thresholds
        if not forced:
            assert mark == (
                "??" if loss >= high else "?" if loss >= middle else "?!" if loss >= low else None
            )
        assert (dice is None) == (kind != "move") and (verdict is None) == (kind == "move")
        assert (no_double is None) == (kind == "move")
    for index, *_, white_error, black_error, white_counted, black_counted in rows:
        mine = [m for m in moves if m[1] == index and m[7]]
        assert white_error == pytest.approx(sum(m[5] for m in mine if m[2] == 0))
        assert black_error == pytest.approx(sum(m[5] for m in mine if m[2] == 1))
        assert (white_counted, black_counted) == (sum(m[2] == 0 for m in mine), sum(m[2] == 1 for m in mine))


def test_annotate_prints_a_match_with_its_verdicts() -> None:
    """`taldau annotate --game backgammon --form full`: every roll of every game with its play, each
    mark next to its play with the best play and the equity lost, each double with the three equities;
    the short form keeps the marked decisions and the cube actions taken."""
    runner = CliRunner()
    full = runner.invoke(
        main, ["annotate", str(EXAMPLE), "--game", "backgammon", "--depth", "0", "--form", "full"]
    )
    assert full.exit_code == 0, full.output
    games = list(read_games(EXAMPLE.read_bytes(), EXAMPLE.name))
    rolls = sum(step.action.kind is ActionKind.ROLL for game in games for step in game.steps)
    assert full.output.count(" rolls ") == rolls
    assert full.output.count("Game statistics for game ") == len(games)
    marked = [
        line
        for line in full.output.splitlines()
        if line.rstrip().split("  Eq.")[0].endswith(("?!", "?", "??"))
    ]
    assert marked and all("moves" in line or "decision" in line for line in marked)
    short = runner.invoke(main, ["annotate", str(EXAMPLE), "--game", "backgammon", "--depth", "0"])
    assert short.exit_code == 0, short.output
    assert short.output.count("take decision") == full.output.count("take decision") > 0
    assert short.output.count(" rolls ") < rolls
    assert "Proper cube action: " in short.output
