"""Writing the report: ``index.html``, one page per analysed game under ``games/`` and per player under
``players/``, and the project's own stylesheet and script beside them. Pages are made from the Jinja2
templates of this package's ``templates/`` folder; the graphs and board diagrams are SVG written inline,
so that the report opens from disk with no server, no network and no script (the script only makes the
tables sortable).

Board diagrams come from each game's kind (``GameKind.svg``): the report never looks into a position.
"""

from __future__ import annotations

import re
import shutil
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from taldau.base.kind import GameKind, Mark
from taldau.games.registry import game_kind
from taldau.schemas import MoveRow

from ..accounting import count
from ..players import MIN_GAMES, Player, PlayerSettings, players, shown_figures, side_score
from .book import BookMove, BookView
from .data import DIAGRAM_MARKS, MARK_NAMES, MARK_PLURALS, MARKS, Archive, Game, ReportError, read_archive
from .graph import evaluation_graph, form_graph

STATIC = Path(__file__).with_name("static")
WORST = 25  # blunders listed on the index


@dataclass(frozen=True)
class Diagram:
    """A mistake or blunder drawn: the position before the move (``svg``) and what both moves are worth
    to the player who made it."""

    move: MoveRow
    svg: str
    played: str
    best: str


@dataclass(frozen=True)
class ReportSummary:
    """What a report holds: its folder, the games listed, the pages written and the diagrams drawn."""

    out: Path
    games: int
    pages: int
    diagrams: int


def number(value: float | None) -> str:
    """A score or loss at a precision that suits its size: 12.3, 1.25, 0.043."""
    if value is None:
        return ""
    size = abs(value)
    return f"{value:.1f}" if size >= 10 else f"{value:.2f}" if size >= 1 else f"{value:.3f}"


def _worth(move: MoveRow, best: bool) -> str:
    """A move's score and winning chances from its maker's side (with the plies to a forced result)."""
    score = move.sign * (move.score_best if best else move.score_played)
    plies = move.plies_to_result_best if best else move.plies_to_result_played
    chances = move.chance_before if best else move.chance_after
    percent = (move.sign * chances + 1) * 50
    forced = ""
    if plies is not None:
        forced = f", {'wins' if plies > 0 else 'loses'} in {abs(plies)} plies"
    return f"score {score:+.3g}{forced}, winning chances {percent:.0f}%"


def diagram(kind: GameKind[Any], move: MoveRow) -> Diagram:
    """The position before ``move`` with the move played and the best one drawn by its game's ``kind``."""
    try:
        svg = kind.svg(move.position, move.played, move.best, move.match_id)
    except ValueError as error:  # a position the kind cannot read: said on the page, the rest is drawn
        svg = f'<p class="error">position not drawn: {error}</p>'
    return Diagram(move, svg, _worth(move, best=False), _worth(move, best=True))


def _environment() -> Environment:
    environment = Environment(
        loader=PackageLoader("taldau.analysis.report", "templates"),
        autoescape=select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters["number"] = number
    environment.filters["count"] = count
    environment.globals.update(MARKS=MARKS, MARK_NAMES=MARK_NAMES, MARK_PLURALS=MARK_PLURALS)
    return environment


def write_report(
    folder: str | Path,
    out: str | Path,
    query: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    book: str | Path | None = None,
) -> ReportSummary:
    """The report of the analysis in ``folder`` written into ``out`` (created; pages of an earlier report
    there are replaced), only for the games that match ``query`` when given (see ``Game.matches``).
    ``progress(done, total)`` is told once the Parquet is read (none done) and after each game page. With
    ``book`` (an opening book's folder), each game page's move list says how every move of the book's plies
    stands in it (see ``BookView``). Raises ``ReportError`` for a folder that is not an analysis' output or a
    book that cannot be opened."""
    archive = read_archive(folder, query)
    opened = None
    if book is not None:
        try:
            opened = BookView.open(book)
        except ValueError as error:
            raise ReportError(f"--book {book}: {error}") from None
    out = Path(out)
    (out / "games").mkdir(parents=True, exist_ok=True)
    for stale in (out / "games").glob("*.html"):  # an earlier report's pages: its games may be others
        stale.unlink()
    for name in ("report.css", "report.js"):
        shutil.copyfile(STATIC / name, out / name)
    environment = _environment()
    common = {
        "settings": archive.settings,
        "folder": str(archive.folder),
        "query": query,
        "version": version("taldau"),
        "made": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "book": opened,
    }
    analysed = archive.analysed
    page = environment.get_template("game.html")
    diagrams = 0
    kinds = {name: game_kind(name) for name in {game.game for game in analysed}}
    if progress is not None:
        progress(0, len(analysed))
    for index, game in enumerate(analysed):
        drawn = [diagram(kinds[game.game], move) for move in game.moves if move.mark in DIAGRAM_MARKS]
        diagrams += len(drawn)
        text = page.render(
            game=game,
            graph=evaluation_graph(game.moves, game.players, game.move_label, game.axis),
            diagrams=drawn,
            in_book=opened.moves(game.moves) if opened and opened.game == game.game else {},
            previous=analysed[index - 1] if index else None,
            next=analysed[index + 1] if index + 1 < len(analysed) else None,
            root="../",
            **common,
        )
        (out / game.page).write_text(text, encoding="utf-8")
        if progress is not None:
            progress(index + 1, len(analysed))
    pages, roster = _player_pages(archive, analysed, kinds, environment, out, common)
    index_text = environment.get_template("index.html").render(
        archive=archive,
        games=archive.games,
        sections=archive.sections(),
        analysed=analysed,
        decisions=sum(len(game.moves) for game in analysed),
        plies=sum(game.plies for game in analysed),
        judged=sorted(
            Counter(move.judged for game in analysed for move in game.moves if move.judged).items()
        ),
        marks=archive.mark_counts(),
        players=archive.players(),
        player_pages=pages,
        player_figures=roster,
        worst=archive.worst(WORST),
        root="",
        **common,
    )
    (out / "index.html").write_text(index_text, encoding="utf-8")
    return ReportSummary(out, len(archive.games), len(analysed) + 1 + len(set(pages.values())), diagrams)


OPENING_PLIES = 4  # the decisions of a game that name its opening on a player's page
PLAYER_WORST = 10  # blunders drawn on a player's page


@dataclass(frozen=True)
class Opening:
    """The first moves of some of a player's games (``moves``: Togyz moves, backgammon checker plays), the
    colour the player had, how many games and the player's score in them (None when none finished), and
    how the opening's last move stands in the report's opening book (None without one, or outside it)."""

    moves: str
    side: str
    games: int
    score: float | None
    book: BookMove | None = None


@dataclass(frozen=True)
class Worst:
    """A blunder of a player's, drawn, with its game."""

    game: Game
    move: MoveRow
    diagram: Diagram


def _player_pages(
    archive: Archive,
    analysed: list[Game],
    kinds: dict[str, GameKind[Any]],
    environment: Environment,
    out: Path,
    common: dict[str, Any],
) -> tuple[dict[str, str], dict[str, Player]]:
    """One page per player of the analysed games under ``players/`` (``taldau.analysis.players``: figures
    with intervals, form by month, by event, head to head, openings and worst blunders drawn), and by each
    spelling of each player's name the page and the player's figures, for the index's links and
    intervals."""
    if not analysed:
        return {}, {}
    roster = players([archive.folder], PlayerSettings(by="month"))
    events = {found.name: found for found in players([archive.folder], PlayerSettings(by="event")).players}
    folder = out / "players"
    folder.mkdir(exist_ok=True)
    for stale in folder.glob("*.html"):
        stale.unlink()
    template = environment.get_template("player.html")
    pages: dict[str, str] = {}
    figures: dict[str, Player] = {}
    columns = shown_figures(roster.rated)
    heading, figure = columns[0]  # the form graph follows the first
    by_name: dict[str, list[tuple[int, int]]] = defaultdict(list)  # a name -> (game's index, side), once
    for index, item in enumerate(analysed):
        for side, name in enumerate(item.names):
            if name is not None:
                by_name[name].append((index, side))
    for number, found in enumerate(roster.players, start=1):
        page = f"players/{number}-{re.sub(r'[^A-Za-z0-9_-]+', '_', found.name)[:40]}.html"
        places = sorted(place for spelling in found.spellings for place in by_name.get(spelling, ()))
        sides = [(analysed[index], side) for index, side in places]  # in the games' order, as they come
        text = template.render(
            player=found,
            rated=roster.rated,
            columns=columns,
            min_games=MIN_GAMES,
            form_figure=heading,
            form=form_graph(
                [(period, getattr(part, figure)) for period, part in found.periods.items()], heading
            ),
            events=events[found.name].periods if found.name in events else {},
            openings=_openings(sides, common["book"]),
            opening_plies=OPENING_PLIES,
            worst=_worst(sides, kinds),
            root="../",
            **common,
        )
        (out / page).write_text(text, encoding="utf-8")
        pages.update(dict.fromkeys(found.spellings, page))
        figures.update(dict.fromkeys(found.spellings, found))
    return pages, figures


def _openings(sides: list[tuple[Game, int]], book: BookView | None) -> list[Opening]:
    counts: dict[tuple[str, int], list[float | None]] = defaultdict(list)
    in_book: dict[tuple[str, int], BookMove | None] = {}
    for item, side in sides:
        plays = [move for move in item.moves if move.kind == "move"][:OPENING_PLIES]  # not cube decisions
        moves = " ".join(move.played for move in plays)
        counts[moves, side].append(side_score(item.result, item.winner, side))
        if (moves, side) not in in_book and book is not None and book.game == item.game and plays:
            in_book[moves, side] = book.moves(item.moves).get(plays[-1].ply)
    openings = []
    for (moves, side), scores in counts.items():
        finished = [score for score in scores if score is not None]
        score = sum(finished) / len(finished) if finished else None
        openings.append(
            Opening(moves, ("first", "second")[side], len(scores), score, in_book.get((moves, side)))
        )
    return sorted(openings, key=lambda opening: (-opening.games, opening.moves))


def _worst(sides: list[tuple[Game, int]], kinds: dict[str, GameKind[Any]]) -> list[Worst]:
    blunders = [
        (item, move)
        for item, side in sides
        for move in item.moves
        if move.side == side and move.mark == Mark.VERY_BAD
    ]
    blunders.sort(key=lambda pair: (-pair[1].loss, -pair[1].drop))
    return [Worst(item, move, diagram(kinds[item.game], move)) for item, move in blunders[:PLAYER_WORST]]
