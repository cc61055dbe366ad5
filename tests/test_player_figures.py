"""Players' figures over decisions, the same code for both games: a hand-made backgammon-like game with
figures computed by hand, GNU Backgammon's own statistics of its analysis of 10 real matches, the Togyz
figures against the moves table, and the Parquet of `taldau analyze` in pandas and DuckDB."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pandas
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from conftest import EXAMPLES, GNUBG_FIXTURES
from helpers import make_decision
from taldau.analysis.batch import game_row
from taldau.analysis.review import GameReview, judge, player_stats, review_headers
from taldau.analysis.rows import move_rows
from taldau.base.kind import Decision, GameAnalysis, GameFacts, MarkScale, MatchFacts
from taldau.cli.main import main
from taldau.games.backgammon.engine.cubeful import CubeEquities, emg_to_mwc, game_result_mwc
from taldau.games.backgammon.review.analysis_text import figures, luck_rating, statistics
from taldau.games.backgammon.review.decision import CUBE_ERRORS
from taldau.games.backgammon.review.luck import LuckMark
from taldau.games.backgammon.review.marks import EMG_SCALE
from taldau.games.backgammon.rules.cube import DecisionKind, MatchState, Rules
from taldau.games.backgammon.rules.ids import MatchId
from taldau.games.backgammon.rules.position_text import state_from_match_id
from taldau.games.togyz.kind import SCALE as TOGYZ_SCALE
from taldau.schemas import GAMES_SCHEMA, MOVES_SCHEMA, GameRow, SideFigures, Status, games_table, moves_table
from taldau.schemas.games import SIDE_STATS

MOVE, CUBE, TAKE = DecisionKind.MOVE, DecisionKind.CUBE, DecisionKind.TAKE


def decision(ply: int, side: int, kind: DecisionKind, loss: float, **fields: Any) -> Decision:
    """A backgammon decision losing ``loss`` with what the figures read (``fields``: counted, forced, luck,
    luck_mark, loss_mwc, luck_mwc, cube, dice, played, match_id); the rest is filler."""
    backgammon = {"position": "4HPwATDgc/ABMA", "key": ply, "match_id": "cAlgAAAAAAAE"} | fields
    return make_decision(
        ply=ply, side=side, kind=kind, score_played=-loss, loss=loss, drop=loss, **backgammon
    )


# A backgammon-like game. Side 0: plays losing 0.05 (?!) and 0.13 (??), a forced play (luck +0.65), a
# close cube decision losing 0.2 (??), a cube decision that is not close. Side 1: plays losing 0.004 and 0,
# a take losing nothing, a cube decision that is not close.
DOUBLE = CubeEquities(0.41, 0.13, 1.0, "No redouble, take")
GAME = GameAnalysis(
    (
        decision(0, 0, MOVE, 0.05, dice=(3, 1), luck=0.1, loss_mwc=0.01, played="8/5 6/5"),
        decision(1, 1, CUBE, 0.0, counted=False, loss_mwc=0.0),
        decision(2, 1, MOVE, 0.004, dice=(6, 6), luck=-0.65, luck_mark=LuckMark.VERY_UNLUCKY, loss_mwc=0.001),
        decision(3, 0, MOVE, 0.0, forced=True, counted=False, luck=0.65, luck_mark=LuckMark.VERY_LUCKY),
        decision(4, 1, CUBE, 0.0, counted=False),
        decision(5, 1, MOVE, 0.0, dice=(2, 1), luck=0.0, loss_mwc=0.0),
        decision(6, 0, CUBE, 0.2, cube=DOUBLE, played="double", loss_mwc=0.04),
        decision(7, 1, TAKE, 0.0, cube=CubeEquities(-0.41, -0.13, -1.0, "No redouble, take"), loss_mwc=0.0),
        decision(8, 0, MOVE, 0.13, dice=(5, 4), luck=-0.3, loss_mwc=0.03),
        decision(9, 0, CUBE, 0.0, counted=False),
    )
)


def kinds(review: GameReview, side: int) -> tuple[int, int, int]:
    """``side``'s decisions of kind move, of kinds cube and take, and forced ones."""
    decisions = [row.decision for row in review.decisions if row.decision.side == side]
    moves = sum(decision.kind is DecisionKind.MOVE for decision in decisions)
    return moves, len(decisions) - moves, sum(decision.forced for decision in decisions)


def test_a_backgammon_like_game_gives_the_figures_computed_by_hand() -> None:
    review = judge(GAME, EMG_SCALE)
    assert [row.mark for row in review.decisions] == [
        "?!",
        None,
        None,
        None,
        None,
        None,
        "??",
        None,
        "??",
        None,
    ]
    first, second = review.players
    # Side 0: 2 plays and a cube decision counted; 0.05 + 0.13 checker, 0.2 cube = 0.38 over 3 = 0.12667.
    assert (*kinds(review, 0), first.decisions) == (3, 2, 1, 5)
    assert (first.checker_counted, first.cube_counted, first.counted) == (2, 1, 3)
    assert first.checker_error == pytest.approx(0.18) and first.cube_error == pytest.approx(0.2)
    assert first.error == pytest.approx(0.38) and first.mean_loss == pytest.approx(0.38 / 3)
    assert first.pr == pytest.approx(500 * 0.38 / 3) and first.rating == "Awful!"
    assert (first.inaccuracies, first.mistakes, first.blunders) == (1, 0, 2)
    assert first.luck == pytest.approx(0.1 + 0.65 - 0.3)  # every roll's luck, the forced play's too
    assert first.error_mwc == pytest.approx(0.08)
    # Side 1: 2 plays and a take counted, 0.004 lost over 3 = 0.00133: Supernatural, PR 0.667.
    assert kinds(review, 1) == (2, 3, 0)
    assert (second.checker_counted, second.cube_counted) == (2, 1)
    assert second.error == pytest.approx(0.004) and second.cube_error == 0.0
    assert second.mean_loss == pytest.approx(0.004 / 3) and second.pr == pytest.approx(2 / 3)
    assert second.rating == "Supernatural" and second.luck == pytest.approx(-0.65)
    assert second.error_mwc == pytest.approx(0.001)
    headers = review_headers(review, "taldau")
    assert (headers["WhitePR"], headers["WhiteRating"], headers["BlackLuck"]) == ("63.3", "Awful!", "-0.650")


def test_the_rows_of_a_backgammon_like_game() -> None:
    review = judge(GAME, EMG_SCALE)
    moves = moves_table(move_rows("g", review))
    assert moves.schema.equals(MOVES_SCHEMA, check_metadata=True)
    rows = moves.to_pylist()
    kinds = ["move", "cube", "move", "move", "cube", "move", "cube", "take", "move", "cube"]
    assert [row["kind"] for row in rows] == kinds
    assert [row["dice"] for row in rows[:4]] == ["31", None, "66", None]
    assert [row["counted"] for row in rows] == [
        True,
        False,
        True,
        False,
        False,
        True,
        True,
        True,
        True,
        False,
    ]
    double = rows[6]
    assert (double["no_double"], double["double_take"], double["double_pass"]) == (0.41, 0.13, 1.0)
    assert (double["verdict"], double["played"], double["mark"], double["luck"]) == (
        "No redouble, take",
        "double",
        "??",
        None,
    )
    assert rows[7]["double_pass"] == -1.0 and rows[0]["no_double"] is None
    assert [row["luck_mark"] for row in rows[:4]] == [None, None, "--", "++"]
    assert (rows[0]["match_id"], rows[0]["position"], rows[0]["loss_mwc"]) == (
        "cAlgAAAAAAAE",
        "4HPwATDgc/ABMA",
        0.01,
    )
    # What the games table stores of it, and the match columns of a game in a match.
    white, black = review.players
    facts = GameFacts(
        "m.mat", 2, "jellyfish", 10, "0-4", "double passed", (), match=MatchFacts(5, (1, 3), 2, 1, 4)
    )
    row = game_row(facts, "g", "backgammon", Status.OK, "key")
    (stored,) = games_table(
        [GameRow(**{**row.__dict__, "white": white, "black": black, "task": "t"})]
    ).to_pylist()
    assert (stored["match_length"], stored["white_match_score"], stored["black_match_score"]) == (5, 1, 3)
    assert (stored["cube"], stored["winner"], stored["points"], stored["task"]) == (2, 1, 4, "t")
    assert (stored["white_decisions"], stored["white_counted"], stored["white_checker_counted"]) == (5, 3, 2)
    assert stored["white_cube_error"] == pytest.approx(0.2) and stored["white_rating"] == "Awful!"
    assert stored["black_pr"] == pytest.approx(2 / 3) and stored["black_luck"] == pytest.approx(-0.65)
    assert stored["white_mean_loss"] == pytest.approx(0.38 / 3)


def test_rating_bands_and_pr_come_from_the_scale() -> None:
    rates = (
        0.0,
        0.00199,
        0.002,
        0.0049,
        0.005,
        0.0119,
        0.012,
        0.0179,
        0.018,
        0.0259,
        0.026,
        0.0349,
        0.035,
        1.0,
    )
    assert [EMG_SCALE.rating(rate) for rate in rates] == [
        "Supernatural",
        "Supernatural",
        "World class",  # gnubg's bands are "below": the bound itself is the next band
        "World class",
        "Expert",
        "Advanced",
        "Intermediate",
        "Intermediate",
        "Casual player",
        "Casual player",
        "Beginner",
        "Beginner",
        "Awful!",
        "Awful!",
    ]
    assert EMG_SCALE.performance(0.01) == pytest.approx(5.0)
    assert TOGYZ_SCALE.rating(0.0) is None and TOGYZ_SCALE.performance(0.01) is None
    plain = MarkScale("plain", (0.1, 0.2, 0.3))
    (first, _) = player_stats(judge(GAME, plain).decisions, plain)
    assert first.pr is None and first.rating is None and first.mean_loss == pytest.approx(0.38 / 3)


def test_a_forced_decision_is_never_counted() -> None:
    with pytest.raises(ValueError, match="forced"):
        decision(0, 0, MOVE, 0.0, forced=True)


def test_side_figures_are_the_games_side_columns() -> None:
    side_columns = [name for name in GAMES_SCHEMA.names if name.startswith("white_")]
    assert [f"white_{name}" for name in SIDE_STATS] == side_columns[2:]  # after the Elo header, match score
    assert list(SIDE_STATS[:5]) == ["inaccuracies", "mistakes", "blunders", "accuracy", "mean_loss"]
    assert SideFigures(1, 2, 3, 88.5, 1.25).rating is None


# gnubg's marks and luck marks by name, as its analysis fixtures write them.
GNUBG_MARKS = {"doubtful": "?!", "bad": "?", "very bad": "??", None: None}
GNUBG_LUCK = {"very lucky": "++", "lucky": "+", "unlucky": "-", "very unlucky": "--", None: None}


def gnubg_decisions(game: dict) -> list[Decision]:
    """A game of gnubg's analysis as Decisions: a play counts unless forced, a cube or take decision when
    gnubg calls it close or actual. gnubg neither analyses nor counts a beaver: it is left out. A roll's
    luck in match winning chances is ours from gnubg's EMG at the decision's Match ID (``luck_mwc``)."""
    decisions = []
    for ply, item in enumerate(game["decisions"]):
        if item["action"] == "beaver":
            continue
        kind = DecisionKind(item["kind"])
        forced = item.get("forced", False)
        decisions.append(
            decision(
                ply,
                item["player"],
                kind,
                item["loss"],
                counted=not forced if kind is MOVE else item["close"],
                forced=forced,
                luck=item.get("luck"),
                luck_mark=None if item.get("luck_mark") is None else LuckMark(GNUBG_LUCK[item["luck_mark"]]),
                loss_mwc=item["loss_mwc"],
                cube=None if kind is MOVE else gnubg_equities(item),
                played="" if kind is MOVE else item["action"],
                match_id=item["match_id"],
                luck_mwc=luck_mwc(item.get("luck"), item["match_id"], item["player"]),
            )
        )
    return decisions


def luck_mwc(luck: float | None, match_id: str, player: int) -> float | None:
    """A roll's luck (EMG) in match winning chances at the Match ID's score and cube, as the review converts
    it (None in money play and for no luck)."""
    state = state_from_match_id(MatchId.decode(match_id))
    if luck is None or state.rules.money:
        return None
    return emg_to_mwc(luck, state, player) - emg_to_mwc(0.0, state, player)


def gnubg_equities(item: dict) -> CubeEquities | None:
    """The cubeful equities and verdict of one of gnubg's cube or take decisions (None where gnubg has none:
    the doubler's acceptance of a beaver)."""
    equities = item["equities"]
    if equities is None:
        return None
    return CubeEquities(
        equities["no_double"], equities["double_take"], equities["double_pass"], item["verdict"]
    )


def check_against_gnubg(review: GameReview, statistics: list[dict], match_play: bool) -> None:
    for side, (ours, theirs) in enumerate(zip(review.players, statistics, strict=True)):
        checker, cube, overall = theirs["checker"], theirs["cube"], theirs["overall"]
        moves, cube_decisions, _ = kinds(review, side)
        assert (moves, ours.checker_counted) == (checker["moves"], checker["unforced"])
        assert (cube_decisions, ours.cube_counted) == (cube["decisions"], cube["close"])
        assert ours.checker_error == pytest.approx(checker["error"], abs=1e-6)
        assert ours.cube_error == pytest.approx(cube["error"], abs=1e-6)
        assert 1000 * ours.mean_loss == pytest.approx(overall["error_rate"], rel=1e-4, abs=1e-6)
        assert (ours.rating or "n/a") == overall["rating"]
        assert ours.pr == pytest.approx(0.5 * overall["error_rate"], rel=1e-4, abs=1e-6)  # 500 x EMG rate
        assert ours.luck == pytest.approx(theirs["luck"]["total"], abs=1e-6)
        for name, _ in CUBE_ERRORS:  # gnubg's kinds of cube error: count and EMG lost
            count, error = getattr(ours, name), getattr(ours, f"{name}_error")
            assert (count, error) == (cube[name][0], pytest.approx(cube[name][1], abs=1e-6)), name
        if match_play:  # gnubg's money-play "MWC" is no match winning chance; taldau leaves it null
            assert ours.error_mwc == pytest.approx(overall["error_mwc"], abs=1e-6)


@pytest.mark.parametrize("path", sorted((GNUBG_FIXTURES / "analysis").glob("*.json")), ids=lambda p: p.stem)
def test_gnubg_s_decisions_give_gnubg_s_statistics(path: Path) -> None:
    # gnubg 1.07's own analysis (tests/data/backgammon/gnubg/README.md): its decisions through taldau's
    # generic figures give its per-game and per-match statistics.
    match = json.loads(path.read_text(encoding="utf-8"))
    every: list = []
    for game in match["games"]:
        review = judge(GameAnalysis(tuple(gnubg_decisions(game))), EMG_SCALE)
        kept = [item for item in game["decisions"] if item["action"] != "beaver"]
        assert [row.mark for row in review.decisions] == [GNUBG_MARKS[item["mark"]] for item in kept]
        check_against_gnubg(review, game["statistics"], match["length"] > 0)
        every += review.decisions
    whole = GameReview(tuple(every), player_stats(every, EMG_SCALE))
    check_against_gnubg(whole, match["statistics"], match["length"] > 0)


def test_analyze_writes_parquet_of_the_new_schemas_with_togyz_figures_from_its_moves(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["analyze", str(EXAMPLES), "--out", str(out), "--depth", "2", "--json"])
    assert result.exit_code == 0, result.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["schemas"] == {"moves": "8", "games": "5"}
    for table in ("moves", "games"):
        (part,) = (out / table).glob("*.parquet")
        assert pq.read_schema(part).metadata[b"taldau.schema_version"] == (b"8" if table == "moves" else b"5")
    moves, games = pandas.read_parquet(out / "moves"), pandas.read_parquet(out / "games")
    assert len(games) == 13 and (games["status"] == "ok").all() and (games["task"] == games["game_id"]).all()
    assert set(moves["kind"]) == {"move"} and (moves["counted"] == ~moves["forced"]).all()
    empty = [
        "dice",
        "match_id",
        "no_double",
        "verdict",
        "luck",
        "luck_mark",
        "loss_mwc",
        "cubeless_best",
        "judged",
    ]
    assert moves[empty].isna().all().all()
    togyz_nulls = [
        "match_length",
        "cube",
        "winner",
        "points",
        "white_pr",
        "black_rating",
        "white_wrong_takes",
    ]
    assert games[togyz_nulls].isna().all().all()
    # Each side's figures are its moves' sums, in DuckDB over the Parquet folders.
    sums = duckdb.sql(
        f"""
        select g.game_id, m.side, count(*) as decisions, sum(m.counted::int) as counted,
               sum(case when m.counted then m.loss else 0 end) as error,
               avg(m.loss) filter (m.counted) as rate,
               any_value(case when m.side = 0 then g.white_decisions else g.black_decisions end) as d,
               any_value(case when m.side = 0 then g.white_counted else g.black_counted end) as c,
               any_value(case when m.side = 0 then g.white_error else g.black_error end) as e,
               any_value(case when m.side = 0 then g.white_checker_error else g.black_checker_error end)
                   as ce,
               any_value(case when m.side = 0 then g.white_cube_error else g.black_cube_error end) as cu,
               any_value(case when m.side = 0 then g.white_mean_loss else g.black_mean_loss end) as ml
        from read_parquet('{out}/moves/*.parquet') m
        join read_parquet('{out}/games/*.parquet') g using (game_id)
        group by all
        """
    ).fetchall()
    assert len(sums) == 26  # two sides of each of the 13 games (the app export's two are duplicates)
    for _, _, decisions, counted, error, rate, d, c, e, ce, cu, ml in sums:
        assert (decisions, counted) == (d, c) and error == pytest.approx(e) == pytest.approx(ce)
        assert cu == 0.0 and ml == pytest.approx(rate)


@pytest.mark.parametrize("path", sorted((GNUBG_FIXTURES / "analysis").glob("*.json")), ids=lambda p: p.stem)
def test_gnubg_s_decisions_give_gnubg_s_luck_rating(path: Path) -> None:
    """gnubg 1.07's own analysis: its rolls' luck summed by ``analysis_text.figures`` gives the luck rating
    of its statistics ("Go to bed" ... "Go to Las Vegas"), per player over the match."""
    match = json.loads(path.read_text(encoding="utf-8"))
    decisions = [item for game in match["games"] for item in gnubg_decisions(game)]
    sides = figures((item, None) for item in decisions)
    ratings = [luck_rating(ours) for ours in sides]
    assert ratings == [theirs["luck"]["rating"] for theirs in match["statistics"]]


@pytest.mark.parametrize("path", sorted((GNUBG_FIXTURES / "analysis").glob("*.json")), ids=lambda p: p.stem)
def test_gnubg_s_luck_gives_gnubg_s_luck_in_match_winning_chances_or_points(path: Path) -> None:
    """gnubg 1.07's own analysis: its rolls' luck in EMG, converted to match winning chances at each roll's
    score and cube as our review converts it (points, EMG x cube, in money play), sums to the luck its
    statistics give in those units, per player over the match."""
    match = json.loads(path.read_text(encoding="utf-8"))
    decisions = [item for game in match["games"] for item in gnubg_decisions(game)]
    sides = figures((item, None) for item in decisions)
    for ours, theirs in zip(sides, match["statistics"], strict=True):
        luck = ours.luck_mwc if match["length"] else ours.luck_points
        assert luck == pytest.approx(theirs["luck"]["total_mwc"], abs=2e-6)


def gnubg_results(game: dict, length: int) -> tuple[float, float] | None:
    """What each player won in a game of gnubg's analysis (``analysis_text.game_results``' figures): the
    match winning chances the winner gained, or the points in money play."""
    if game["winner"] is None:
        return None
    won = float(game["points"])
    if length:
        start = MatchState(
            rules=Rules(length=length),
            score=tuple(game["score"]),
            crawford_game=game["crawford"],
            post_crawford=game["post_crawford"],
        )
        won = game_result_mwc(start, game["winner"], game["points"])
    return (won, -won) if game["winner"] == 0 else (-won, won)


def gnubg_rows(text: str, title: str) -> list[str]:
    """The rows of gnubg's text export after the overall rating, in the statistics under ``title``, with
    their trailing spaces cut."""
    part = text[text.index(title) :]
    part = part[part.index("Overall rating") :]
    rows = part.split("\n")[1:]
    return [row.rstrip() for row in rows[: rows.index("")]]


def test_gnubg_s_results_luck_adjusted_results_and_fibs_ratings_for_each_game_and_the_match() -> None:
    """gnubg 1.07's text export of a 3-point match of two games (a redouble passed, a take, the Crawford
    game): its rows Actual result, Luck adjusted result, Luck based FIBS rating diff., Error based abs.
    FIBS rating and the rating losses of checker play and cube, for each game and the match, are our
    statistics' from gnubg's own decisions (the luck in MWC converted by us), to the printed digit."""
    match = json.loads((GNUBG_FIXTURES / "analysis" / "galaxy-4219674.json").read_text(encoding="utf-8"))
    exports = [
        (GNUBG_FIXTURES / "analysis" / name).read_text(encoding="utf-8")
        for name in ("galaxy-4219674-export.txt", "galaxy-4219674-export_002.txt")
    ]
    everything: list[tuple[Decision, str | None]] = []
    totals = [0.0, 0.0]
    for number, game in enumerate(match["games"], start=1):
        marked = [(item, None) for item in gnubg_decisions(game)]
        results = gnubg_results(game, match["length"])
        assert results is not None
        totals = [total + result for total, result in zip(totals, results, strict=True)]
        ours = statistics("Game", ["lasse", "fickle"], figures(marked, results), match["length"])
        title = f"Game statistics for game {number}"
        assert after_rating(ours) == gnubg_rows(exports[number - 1], title)
        everything += marked
    ours = statistics(
        "Match", ["lasse", "fickle"], figures(everything, (totals[0], totals[1])), match["length"]
    )
    assert after_rating(ours) == gnubg_rows(exports[1], "Match statistics")


def after_rating(lines: list[str]) -> list[str]:
    """Our statistics' rows after the overall rating and XG's PR (which gnubg does not print)."""
    rows = gnubg_rows("\n".join(lines), lines[0])
    assert rows[0].startswith("Performance rating")
    return rows[1:]


@pytest.mark.parametrize("path", sorted((GNUBG_FIXTURES / "analysis").glob("*.json")), ids=lambda p: p.stem)
def test_gnubg_s_decisions_give_gnubg_s_kinds_of_cube_error(path: Path) -> None:
    """gnubg 1.07's own analysis: its cube and take decisions sorted by ``analysis_text.cube_error_kind``
    give the counts and errors of its statistics' rows "Missed doubles below CP" ... "Wrong passes", per
    player over the match."""
    match = json.loads(path.read_text(encoding="utf-8"))
    decisions = [item for game in match["games"] for item in gnubg_decisions(game)]
    sides = figures((item, None) for item in decisions)
    keys = [name for name, _ in CUBE_ERRORS]
    for ours, theirs in zip(sides, match["statistics"], strict=True):
        for key, (count, emg, _) in zip(keys, ours.cube_errors, strict=True):
            assert (count, emg) == (
                theirs["cube"][key][0],
                pytest.approx(theirs["cube"][key][1], abs=1e-6),
            ), key
