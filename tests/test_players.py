"""Players across archives (``taldau.analysis.players``, ``taldau players``): names recognised through
case, spaces, site prefixes and Cyrillic letters; aliases merge spellings and look-alike names are listed
until merged; the figures are the games table's sums, checked against DuckDB's own sums; folders judged
otherwise are refused; and the intervals, bootstrapped over games, cover the truth 95% of the time in a
simulation where the decisions of a game share its player's form."""

from __future__ import annotations

import json
import math
from pathlib import Path

import duckdb
import numpy as np
import pytest
from click.testing import CliRunner
from conftest import EXAMPLES
from taldau.analysis.players import (
    AliasError,
    Aliases,
    Bootstrap,
    PlayerSettings,
    look_alike,
    name_key,
    players,
)
from taldau.cli.main import main


def test_a_name_is_known_through_case_spaces_site_prefixes_and_cyrillic_letters() -> None:
    assert name_key("  Magzhan ") == name_key("MAGZHAN") == name_key("PlayOK: magzhan") == "magzhan"
    assert name_key("Магжан") == "magzhan" and name_key("Әлібек  Құрманов") == "alibek qurmanov"
    assert name_key("galaxy/Lasse") == "lasse" and name_key("ｌａｓｓｅ") == "lasse"  # full-width letters
    assert name_key("toni2012") != name_key("toni")  # digits are part of a name


def test_aliases_merge_spellings_and_say_which_line_is_wrong(tmp_path: Path) -> None:
    path = tmp_path / "aliases.txt"
    path.write_text("# who is who\nMagzhan Ali = magzhan, Магжан2  # the same man\n\ntoni = toni2012\n")
    aliases = Aliases.read(path)
    assert aliases.key("MAGZHAN") == aliases.key("магжан2") == aliases.key("Magzhan Ali") == "magzhan ali"
    assert aliases.shown["toni2012"] == "toni" and aliases.key("someone") == "someone"
    path.write_text("toni = toni2012\nnobody\n")
    with pytest.raises(AliasError, match=rf"{path}, line 2: write a player as"):
        Aliases.read(path)
    path.write_text("toni = toni2012\nantonia = TONI2012\n")
    with pytest.raises(AliasError, match=rf"{path}, line 2: 'TONI2012' is already 'toni'"):
        Aliases.read(path)


def test_look_alike_names_are_listed_until_an_alias_merges_them() -> None:
    names = ["toni2012", "toni", "Toni", "aizhan", "aizhanm", "abeke93", "bolat"]
    assert look_alike(names) == [("aizhan", "aizhanm"), ("toni", "toni2012")]  # Toni is toni
    merged = Aliases({"toni2012": "toni", "toni": "toni"})
    assert look_alike(names, merged) == [("aizhan", "aizhanm")]


def test_a_performance_rating_is_the_opponents_mean_and_the_score_s_logistic_difference() -> None:
    even = Bootstrap(4, PlayerSettings(), np.random.default_rng(1))
    assert even.performance(np.array([1, 0, 1, 0.0]), np.array([1400, 1600, 1500, 1500.0])).value == 1500
    three = even.performance(np.array([1, 1, 1, 0.0]), np.full(4, 1500.0))
    assert (
        three.value == pytest.approx(1500 + 400 * math.log10(3)) and three.low is None
    )  # 4 games: no interval
    perfect = even.performance(np.ones(4), np.full(4, 1500.0))  # kept half a game from all: 3.5 of 4
    assert perfect.value == pytest.approx(1500 + 400 * math.log10(3.5 / 0.5))


def _simulated_player(games: int, rate: float, rng: np.random.Generator) -> tuple[np.ndarray, ...]:
    """One player's games: each its own count of decisions and its own form (the mean loss of its
    decisions, around ``rate``: gamma-distributed, so some games go badly), most decisions losing nothing
    and the others an exponential loss. The true error rate is ``rate``. Per game: the error, the counted
    decisions and the sum of the squared losses."""
    counted = rng.poisson(40, games) + 10
    form = rng.gamma(2.0, rate / 2.0, games)
    losses = [
        rng.exponential(mean / 0.3, count) * (rng.random(count) < 0.3)
        for count, mean in zip(counted, form, strict=True)
    ]
    errors = np.array([np.sum(game) for game in losses])
    squares = np.array([np.sum(game**2) for game in losses])
    return errors, counted.astype(np.float64), squares


def test_intervals_bootstrapped_over_games_cover_the_true_error_rate_95_percent_of_the_time() -> None:
    """1,000 simulated players of 100 games whose decisions share each game's form: the 95% interval of
    the error rate holds the true rate in 95% +- 2% of them; an interval that takes the decisions as
    independent (what resampling decisions gives) holds it far less often."""
    rng = np.random.default_rng(2026)
    rate, trials, covered, independent = 0.01, 1000, 0, 0
    for _ in range(trials):
        errors, counted, squares = _simulated_player(100, rate, rng)
        estimate = Bootstrap(len(errors), PlayerSettings(), rng).ratio(errors, counted)
        covered += estimate.low <= rate <= estimate.high
        decisions, mean = counted.sum(), errors.sum() / counted.sum()
        spread = 1.96 * math.sqrt((squares.sum() / decisions - mean**2) / decisions)
        independent += abs(mean - rate) <= spread
    assert 0.93 <= covered / trials <= 0.97
    assert independent / trials < 0.85


def test_players_of_an_analysed_match_are_the_games_table_s_sums(analysed_examples: dict[str, Path]) -> None:
    folder = analysed_examples["backgammon"]
    result = CliRunner().invoke(main, ["players", str(folder), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["game"] == "backgammon" and report["judge"].startswith("backgammon, sage")
    by_name = {player["name"]: player for player in report["players"]}
    table = f"'{folder}/games/*.parquet'"
    for side in ("white", "black"):
        name, games, counted, error, cube_counted, cube_error = duckdb.sql(
            f"select {side}, count(*), sum({side}_counted), sum({side}_error), sum({side}_cube_counted), "
            f"sum({side}_cube_error) from {table} where status = 'ok' group by {side}"
        ).fetchall()[0]
        player = by_name[name]
        assert (player["games"], player["matches"], player["decisions"]) == (games, 1, counted)
        assert player["pr"]["value"] == pytest.approx(500 * error / counted, abs=1e-5)
        assert player["cube_pr"]["value"] == pytest.approx(500 * cube_error / cube_counted, abs=1e-5)
        assert player["pr"]["low"] is None  # one game: too few for an interval
    (winner,) = [player for player in report["players"] if player["score"]["value"] == 1.0]
    assert winner["head_to_head"][0]["wins"] == 1 and winner["head_to_head"][0]["points"] > 0


def test_a_player_s_spellings_merge_by_alias_and_periods_add_up(tmp_path: Path) -> None:
    """The PlayOK sample with one game's ``abeke93`` written ``Abeke_93``: two players, listed as look-alike,
    until an alias merges them; their months' games add up to all their games."""
    text = (EXAMPLES / "togyz" / "playok-2024-2025-sample.pgn").read_text(encoding="utf-8")
    first, rest = text.split('[White "abeke93"]', 1)
    (tmp_path / "sample.pgn").write_text(first + '[White "Abeke_93"]' + rest, encoding="utf-8")
    out = tmp_path / "out"
    analysed = CliRunner().invoke(
        main, ["analyze", str(tmp_path / "sample.pgn"), "--out", str(out), "--depth", "1"]
    )
    assert analysed.exit_code == 0, analysed.output
    apart = players([out])
    names = {player.name: player.overall.games for player in apart.players}
    assert names["Abeke_93"] == 1 and names["abeke93"] == 1 and ("abeke93", "Abeke_93") in apart.look_alike
    (tmp_path / "aliases.txt").write_text("abeke93 = Abeke_93\n")
    result = CliRunner().invoke(
        main,
        [
            "players",
            str(out),
            "--aliases",
            str(tmp_path / "aliases.txt"),
            "--player",
            "ABEKE_93",
            "--by",
            "month",
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    (merged,) = report["players"]
    assert (
        merged["name"] == "abeke93"
        and merged["games"] == 2
        and merged["spellings"] == ["abeke93", "Abeke_93"]
    )
    assert sum(period["games"] for period in merged["periods"].values()) == 2
    assert set(merged["periods"]) <= {"2024-12", "2025-01", "2025-02", "2025-03"} | {
        f"2025-{m:02d}" for m in range(1, 13)
    }
    assert not any("abeke93" in group for group in map(tuple, report["look_alike"]))
    assert merged["performance"]["value"] is not None and 0 <= merged["accuracy"]["value"] <= 100


def test_folders_judged_otherwise_are_refused_with_both_named(analysed_examples: dict[str, Path]) -> None:
    togyz, backgammon = analysed_examples["togyz"], analysed_examples["backgammon"]
    result = CliRunner().invoke(main, ["players", str(togyz), str(backgammon)])
    assert result.exit_code == 2
    assert f"{togyz} and {backgammon} were judged differently" in result.output
    assert "togyz, own" in result.output and "backgammon, sage" in result.output


def test_an_interval_of_no_width_is_never_given() -> None:
    """Issue 54, item 11: a player who lost each of 10 games has a score of 0 and no interval (every
    resample is 0: a zero-width "95%" interval would claim certainty), nor a performance interval; a
    player who won some has both."""
    bootstrap = Bootstrap(10, PlayerSettings(), np.random.default_rng(1))
    lost = bootstrap.ratio(np.zeros(10), np.ones(10))
    assert (lost.value, lost.low, lost.high) == (0.0, None, None) and str(lost) == "0.00"
    flat = bootstrap.performance(np.zeros(10), np.full(10, 1500.0))
    assert flat.value is not None and flat.low is None and flat.high is None
    mixed = bootstrap.ratio(np.array([1.0, 0.0] * 5), np.ones(10))
    assert mixed.low is not None and mixed.high is not None and mixed.low < 0.5 < mixed.high


def test_players_says_why_a_figure_has_no_interval(analysed_examples: dict[str, Path]) -> None:
    """Each player of the 7 sample games has fewer than 8: no interval, and one line says why."""
    result = CliRunner().invoke(main, ["players", str(analysed_examples["togyz"])])
    assert result.exit_code == 0, result.output
    assert "[" not in result.stdout.split("A figure shown without", 1)[0].split("\n", 1)[1]
    assert "A figure shown without its interval is of fewer than 8 games, or of games all" in result.stdout


def test_a_player_not_found_is_one_line_and_exit_1(analysed_examples: dict[str, Path]) -> None:
    """Issue 54, item 12: `--player nobody` finds no one: a failure, said in one line."""
    folder = analysed_examples["togyz"]
    for extra in ([], ["--json"]):
        result = CliRunner().invoke(main, ["players", str(folder), "--player", "nobody", *extra])
        assert result.exit_code == 1, result.output
        assert result.stdout == ""
        assert result.stderr == f"error: no player 'nobody' with 1 or more counted decisions in {folder}\n"
    result = CliRunner().invoke(main, ["players", str(folder), "--min-decisions", "100000"])
    assert result.exit_code == 1 and result.stderr.startswith("error: no player with 100000 or more")


def test_an_aliases_file_that_is_not_utf8_is_one_line_naming_file_and_line(
    tmp_path: Path, analysed_examples: dict[str, Path]
) -> None:
    """Issue 54, items 6 and 12: a byte that is not UTF-8 (a Latin-1 é) is named by file and line, exit 2,
    no traceback; a byte order mark is no error."""
    path = tmp_path / "aliases.txt"
    path.write_bytes(b"\xef\xbb\xbftoni = toni2012\nAl\xe9 = ali\n")
    with pytest.raises(AliasError, match=rf"{path}, line 2: byte 0xe9 is not UTF-8"):
        Aliases.read(path)
    result = CliRunner().invoke(main, ["players", str(analysed_examples["togyz"]), "--aliases", str(path)])
    assert result.exit_code == 2
    assert result.stderr == f"error: {path}, line 2: byte 0xe9 is not UTF-8 (save the file as UTF-8)\n"
    path.write_bytes(b"\xef\xbb\xbftoni = toni2012\n")
    assert Aliases.read(path).shown["toni2012"] == "toni"
