"""``taldau report`` in a real browser: Debian's Chromium, headless, driven by Selenium through chromedriver,
renders the reports of two small archives analysed at a shallow limit (the ``analysed_examples`` fixture:
7 Togyz Kumalak games, one backgammon match). Every page must load without a console error, every link
inside the report must reach its page and its anchor, and each game's graph must have one point per ply and
one dot per mark, counted against the Parquet the report was made from.

Screenshots of an index (desktop width) and a game page (phone width) are kept as artifacts, never
compared: in the folder named by TALDAU_TEST_ARTIFACTS when it is set, else in pytest's temporary folder
(``pytest --basetemp DIR`` keeps them in DIR). The tests skip, saying why, without Chromium and chromedriver
(``apt-get install chromium chromium-driver``; ``.ci/run`` installs them) or Selenium (the ``test`` extra).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from taldau.cli.main import main

pytestmark = pytest.mark.browser

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (the test extra)")
if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
    pytest.skip(
        f"Chromium or chromedriver not found ({CHROMIUM}, {CHROMEDRIVER}): "
        "apt-get install chromium chromium-driver",
        allow_module_level=True,
    )


@pytest.fixture(scope="module")
def browser() -> Iterator[webdriver.Chrome]:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    options.add_argument("--window-size=1000,900")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=CHROMEDRIVER))
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def reports(analysed_examples: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each analysed archive's report, written by the command line."""
    written = {}
    for game, folder in analysed_examples.items():
        out = tmp_path_factory.mktemp(f"report-{game}")
        result = CliRunner().invoke(main, ["report", str(folder), "--out", str(out)])
        assert result.exit_code == 0, result.output
        written[game] = out
    return written


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = os.environ.get("TALDAU_TEST_ARTIFACTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        return Path(folder)
    return tmp_path_factory.mktemp("screenshots")


def visit(browser: webdriver.Chrome, page: Path) -> dict[str, object]:
    """Load ``page``; its console errors, the links in it (resolved) and the ids it has."""
    browser.get_log("browser")  # drop what earlier pages logged
    browser.get(page.as_uri())
    assert browser.execute_script("return document.readyState") == "complete"
    links = browser.execute_script(
        "return Array.from(document.querySelectorAll('a[href]'), a => new URL(a.getAttribute('href'), "
        "document.baseURI).href)"
    )
    ids = browser.execute_script("return Array.from(document.querySelectorAll('[id]'), e => e.id)")
    errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    return {"errors": errors, "links": links, "ids": set(ids), "title": browser.title}


@pytest.mark.parametrize("game", ["togyz", "backgammon"])
def test_every_page_loads_without_errors_and_every_link_resolves(
    browser: webdriver.Chrome, reports: dict[str, Path], analysed_examples: dict[str, Path], game: str
) -> None:
    out = reports[game]
    players = sorted((out / "players").glob("*.html"))
    pages = [out / "index.html", *sorted((out / "games").glob("*.html")), *players]
    games = pq.read_table(analysed_examples[game] / "games")
    named = set(games["white"].to_pylist()) | set(games["black"].to_pylist())
    assert len(players) == len(named - {None}) > 0  # a page per player, linked from the index
    assert len(pages) == 1 + pc.sum(pc.equal(games["status"], "ok")).as_py() + len(players)
    seen = {page.resolve(): visit(browser, page) for page in pages}
    for page, found in seen.items():
        assert found["errors"] == [], f"{page}: {found['errors']}"
    internal = 0
    for page, found in seen.items():
        for link in found["links"]:
            parts = urlsplit(link)
            assert parts.scheme == "file", f"{page}: a link leaves the report: {link}"
            target = Path(unquote(parts.path)).resolve()
            assert target in seen, f"{page}: {link} is not a page of the report"
            if parts.fragment:
                assert parts.fragment in seen[target]["ids"], f"{page}: {link} has no such anchor"
            internal += 1
    assert internal > 2 * len(pages)  # every game page links its moves, the index every game and player
    for page in players:  # the form graph draws a point for every month
        browser.get(page.as_uri())
        drawn = browser.execute_script(
            "return document.querySelector('svg.form polyline.value').points.numberOfItems"
        )
        assert drawn == browser.execute_script(
            "return Number(document.querySelector('svg.form').dataset.periods)"
        )


@pytest.mark.parametrize("game", ["togyz", "backgammon"])
def test_each_graph_has_one_point_per_ply_and_one_dot_per_mark(
    browser: webdriver.Chrome, reports: dict[str, Path], analysed_examples: dict[str, Path], game: str
) -> None:
    moves = pq.read_table(analysed_examples[game] / "moves", columns=["game_id", "mark"]).to_pylist()
    plies: dict[str, int] = {}
    marks: dict[str, int] = {}
    for row in moves:
        plies[row["game_id"]] = plies.get(row["game_id"], 0) + 1
        marks[row["game_id"]] = marks.get(row["game_id"], 0) + (row["mark"] is not None)
    assert sum(marks.values()) > 0
    for game_id, count in plies.items():
        browser.get((reports[game] / "games" / f"{game_id}.html").as_uri())
        points = browser.execute_script(
            "return document.querySelector('svg.graph polyline.evaluation').points.numberOfItems"
        )
        dots = browser.execute_script("return document.querySelectorAll('svg.graph a circle.mark').length")
        assert (points, dots) == (count, marks[game_id]), game_id


def full_page(browser: webdriver.Chrome, page: Path, width: int, path: Path) -> None:
    browser.set_window_size(width, 900)
    browser.get(page.as_uri())
    height = browser.execute_script("return document.documentElement.scrollHeight")
    browser.set_window_size(width, min(height + 140, 12000))
    assert browser.save_screenshot(str(path))
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_screenshots_of_an_index_and_a_game_page_are_kept(
    browser: webdriver.Chrome, reports: dict[str, Path], artifacts: Path
) -> None:
    out = reports["togyz"]
    full_page(browser, out / "index.html", 1000, artifacts / "report-index.png")
    game = sorted((out / "games").glob("*.html"))[0]
    full_page(browser, game, 412, artifacts / "report-game-phone.png")
    backgammon = sorted((reports["backgammon"] / "games").glob("*.html"))[0]
    full_page(browser, backgammon, 1000, artifacts / "report-backgammon-game.png")
    # At phone width nothing but the scrolling tables is wider than the screen.
    browser.set_window_size(412, 900)
    browser.get(game.as_uri())
    overflow = browser.execute_script(
        "return Array.from(document.querySelectorAll('svg, main > h1, section > p, dl'))"
        ".filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1).length"
    )
    assert overflow == 0


def test_the_players_table_sorts_in_the_browser_and_reads_without_script(
    browser: webdriver.Chrome, reports: dict[str, Path]
) -> None:
    index = reports["togyz"] / "index.html"
    browser.get(index.as_uri())
    column = "Array.from(document.querySelectorAll('table.players tbody tr'), r => r.cells[1].textContent)"
    served = browser.execute_script(f"return {column}")
    assert served == sorted(served, key=int, reverse=True)  # most games first, as written
    browser.execute_script("document.querySelectorAll('table.players th')[3].click()")  # accuracy
    accuracy = browser.execute_script(
        "return Array.from(document.querySelectorAll('table.players tbody tr'), r => r.cells[3].textContent)"
    )
    assert accuracy == sorted(accuracy, key=float, reverse=True) and len(accuracy) == len(served)


def test_a_match_shows_its_score_line_above_its_games(
    browser: webdriver.Chrome, reports: dict[str, Path]
) -> None:
    """The Backgammon Studio match: its heading row is shown with the match's length and players, and its
    game's event and date come from the file's ``Event`` and ``EventDate``."""
    browser.get((reports["backgammon"] / "index.html").as_uri())
    heading = browser.execute_script(
        "const row = document.querySelector('table.games tr.match-heading');"
        "return row && row.getBoundingClientRect().height > 0 ? row.textContent : null"
    )
    assert heading is not None and heading.startswith("7-point match, Llabba ")
    assert "Llabba: PR " in heading and "Iradch49: PR " in heading
    event = browser.execute_script(
        "return document.querySelector('table.games tbody tr:not(.match-heading)').cells[4].textContent"
    )
    assert event.strip() == "Online match 2023.05.15"
