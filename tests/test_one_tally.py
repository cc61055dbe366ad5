"""One tally of players' figures: for every player of an analysed archive, ``taldau players --json`` and the
report's index and player page give the same figures (games, counted decisions, accuracy or PR, error
rate, marks per 100, score and rating band, each estimate with its interval); and the tally summed over a
match's games derives what its decisions give at once. The archives are the ``analysed_examples``
fixture's (7 Togyz games, a backgammon match); ``same_figures`` is the check itself, for any folder."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from taldau.analysis.players import Estimate, shown_figures
from taldau.analysis.report.site import number
from taldau.cli.main import main
from test_report import tables


def _estimate(data: dict[str, float | None]) -> str:
    """An estimate of ``players --json`` as a page prints it."""
    return str(Estimate(data["value"], data["low"], data["high"]))


def same_figures(folder: Path, out: Path) -> int:
    """Assert that every player of ``folder`` has the same figures in ``taldau players --json`` as on the
    index of ``taldau report`` (each of the player's spellings, a row each) and on the player's page;
    the number of players checked."""
    runner = CliRunner()
    result = runner.invoke(main, ["players", str(folder), "--json"])
    assert result.exit_code == 0, result.output
    roster: dict[str, Any] = json.loads(result.output)
    result = runner.invoke(main, ["report", str(folder), "--out", str(out)])
    assert result.exit_code == 0, result.output
    index = (out / "index.html").read_text(encoding="utf-8")
    rows = {row[0]: row for row in tables(index)["sortable players"][1:]}
    pages = {}
    for page in (out / "players").glob("*.html"):
        html = page.read_text(encoding="utf-8")
        pages[re.search(r"<h1>(.*?)</h1>", html).group(1)] = tables(html)  # type: ignore[union-attr]
    rated = roster["rated"]
    columns = shown_figures(rated)
    for player in roster["players"]:
        mine = [rows[spelling] for spelling in player["spellings"]]
        assert sum(int(row[1]) for row in mine) == player["games"]
        assert sum(int(row[2]) for row in mine) == player["decisions"]
        if len(mine) == 1:  # one spelling: its row is the player's
            (row,) = mine
            figure = player["pr" if rated else "accuracy"]
            value = figure["value"]
            assert row[3] == ("" if value is None else f"{value:.1f}")
            interval = "" if figure["low"] is None else f"{figure['low']:.1f}\u2013{figure['high']:.1f}"
            assert row[4] == interval
            assert row[-3] == number(player["error_rate"]["value"])
            marks = [player["marks_per_100"][glyph]["value"] for glyph in ("?!", "?", "??")]
            if player["decisions"]:
                assert abs(float(row[-2]) - sum(marks)) < 0.051 and abs(float(row[-1]) - marks[2]) < 0.051
        (figures,) = pages[player["name"]]["figures"][1:]
        expected = [str(player["games"]), *([str(player["matches"])] if rated else [])]
        expected += [str(player["decisions"]), *(_estimate(player[name]) for _, name in columns)]
        assert figures[: len(expected)] == expected, player["name"]
        marks_shown = ", ".join(
            f"{glyph} {_estimate(player['marks_per_100'][glyph])}" for glyph in ("?!", "?", "??")
        )
        assert " ".join(figures[len(expected)].split()) == marks_shown
        assert figures[len(expected) + 1] == _estimate(player["score"])
        if rated:
            assert figures[len(expected) + 2] == (player["rating"] or "")
    return len(roster["players"])


def test_players_and_the_report_give_every_player_the_same_figures(
    analysed_examples: dict[str, Path], tmp_path: Path
) -> None:
    for game, folder in analysed_examples.items():
        assert same_figures(folder, tmp_path / game) > 1


def test_a_tally_summed_over_games_derives_what_the_decisions_of_all_of_them_give() -> None:
    """The hand-made backgammon-like game of ``test_player_figures`` split in two games: each side's
    tallies of both added give the sums and figures of one tally of all the decisions, and a games row's
    side read back gives the tally it was written from."""
    from taldau.analysis.review import judge
    from taldau.analysis.tally import Tally, side_figures, tally_of
    from taldau.games.backgammon.review.decision import BackgammonDetail
    from taldau.games.backgammon.review.marks import EMG_SCALE
    from test_player_figures import GAME

    marked = [(row.decision, row.mark) for row in judge(GAME, EMG_SCALE).decisions]
    first, second = marked[:6], marked[6:]

    def tally(part: list[Any], side: int) -> Tally:
        game = [decision for decision, _ in part]
        mine = [pair for pair in part if pair[0].side == side]
        return Tally.of_decisions(mine, game, BackgammonDetail)

    for side in (0, 1):
        added, whole = tally(first, side) + tally(second, side), tally(marked, side)
        assert (added.games, whole.games) == (2, 1)
        for name in ("decisions", "counted", "moves_counted", "others_counted", "marks", "reference_counted"):
            assert getattr(added, name) == getattr(whole, name)
        for name in ("error", "moves_error", "others_error", "accuracy_sum", "reference_loss"):
            assert abs(getattr(added, name) - getattr(whole, name)) < 1e-12
        assert dict(added.own).keys() == dict(whole.own).keys()
        for name, value in whole.own:
            assert value is None or abs(added.figure(name) - value) < 1e-12  # type: ignore[operator]
        assert abs(added.pr(EMG_SCALE) - whole.pr(EMG_SCALE)) < 1e-9  # type: ignore[operator]
        assert added.rating(EMG_SCALE) == whole.rating(EMG_SCALE)
        read = tally_of(side_figures(whole, EMG_SCALE))
        assert read.counted == whole.counted and read.error == whole.error
        assert dict(read.own) == dict(whole.own)
        assert abs(read.accuracy_sum - whole.accuracy_sum) < 1e-9
