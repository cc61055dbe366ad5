"""Writing the report: ``index.html``, one page per analysed game under ``games/`` and per player under
``players/``, and the project's own stylesheet and script beside them. Pages are made from the Jinja2
templates of this package's ``templates/`` folder; the graphs and board diagrams are SVG written inline,
so that the report opens from disk with no server, no network and no script (the script only makes the
tables sortable).

Board diagrams come from each game's kind (``GameKind.svg``): the report never looks into a position.

The folder is read once (``open_archive``: its games, and the sittings its players' figures are summed
from, ``taldau.analysis.players.roster_of``, with their months and events at once). The report is written
game by game (``Archive.with_moves``): each game's page as its decisions are read,
and for the index and the player pages only what they show of them (``Kept``: counts, openings, the
worst blunders in a ``Worst`` of bounded size), so that its memory follows the largest game, not the
archive. It writes only into a folder of its own (``output.ReportFolder``).
"""

from __future__ import annotations

import hashlib
import re
import shutil
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape
from taldau.base.kind import GameKind, Mark, MarkScale
from taldau.base.names import name_key
from taldau.games.registry import game_kind
from taldau.schemas import MoveRow

from ..accounting import count
from ..folder import FolderError
from ..players import (
    MIN_GAMES,
    Estimate,
    Player,
    PlayerSettings,
    PlayersReport,
    roster_of,
    scale_of,
    shown_figures,
    side_score,
)
from .book import BookMove, BookView
from .data import (
    DIAGRAM_MARKS,
    MARK_NAMES,
    MARK_PLURALS,
    MARKS,
    Archive,
    Blunder,
    ReferenceTally,
    ReportError,
    ReportGame,
    Worst,
    disputed,
    open_archive,
)
from .graph import evaluation_graph, form_graph
from .output import ReportFolder

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
    environment.globals.update(
        MARKS=MARKS, MARK_NAMES=MARK_NAMES, MARK_PLURALS=MARK_PLURALS, disputed=disputed
    )
    environment.tests["disputed"] = disputed
    return environment


def write_report(
    folder: str | Path,
    out: str | Path,
    query: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    book: str | Path | None = None,
) -> ReportSummary:
    """The report of the analysis in ``folder`` written into ``out`` (created; an earlier report's files
    there are replaced), only for the games that match ``query`` when given (see ``ReportGame.matches``).
    ``progress(done, total)`` is told once the games are read (none done) and after each game page. With
    ``book`` (an opening book's folder, of the analysis' game), each game page's move list says how every
    move of the book's plies stands in it (see ``BookView``). Raises ``ReportError``, before anything is
    written, for a folder that is not an analysis' output, a book that cannot be opened or is of another
    game, and an ``out`` that holds files no report wrote (``ReportFolder``)."""
    target = ReportFolder.claim(out)
    archive = open_archive(folder, query)  # the folder's one reading: the games, and the players' sittings
    try:  # the players, with their months and events: their bootstrap is the report's largest need of memory
        found = roster_of([archive.stored], [archive.sittings], PlayerSettings(by="month", also=("event",)))
    except FolderError as error:
        raise ReportError(str(error)) from None
    opened = _book(book, archive)
    analysed = archive.analysed
    roster = found if analysed else None
    pages = player_pages([found.name for found in roster.players]) if roster else {}
    written = ["index.html", "report.css", "report.js", *(game.page for game in analysed), *pages.values()]
    target.begin(written)
    out = target.path
    for name in ("games", *(["players"] if pages else [])):
        (out / name).mkdir(exist_ok=True)
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
    page = environment.get_template("game.html")
    kinds = {name: game_kind(name) for name in {game.game for game in analysed}}
    order = {game.game_id: index for index, game in enumerate(analysed)}
    tally = Kept.of(roster)
    if progress is not None:
        progress(0, len(analysed))
    for done, game in enumerate(archive.with_moves(), start=1):
        index = order[game.game_id]
        drawn = [diagram(kinds[game.game], move) for move in game.moves if move.mark in DIAGRAM_MARKS]
        in_book = opened.moves(game.moves) if opened else {}
        text = page.render(
            game=game,
            graph=evaluation_graph(game.moves, game.players, game.move_label, game.axis),
            diagrams=drawn,
            in_book=in_book,
            previous=analysed[index - 1] if index else None,
            next=analysed[index + 1] if index + 1 < len(analysed) else None,
            root="../",
            **common,
        )
        (out / game.page).write_text(text, encoding="utf-8")
        tally.add(index, analysed[index], game, in_book, len(drawn))
        if progress is not None:
            progress(done, len(analysed))
    figures: dict[str, Player] = {}
    reference = reference_prs(tally.reference, roster, scale_of(archive.settings.game))
    if roster is not None:
        figures = _player_pages(roster, pages, tally, kinds, environment, out, common, reference)
    index_text = environment.get_template("index.html").render(
        archive=archive,
        games=archive.games,
        sections=archive.sections(),
        analysed=analysed,
        decisions=tally.decisions,
        plies=sum(game.plies for game in analysed),
        judged=sorted(tally.judged.items()),
        marks=tally.marks,
        players=archive.players(),
        player_pages={spelling: pages[found.name] for found in roster.players for spelling in found.spellings}
        if roster
        else {},
        player_figures=figures,
        reference=reference,
        references=tally.reference.references.most_common(),
        differ=tally.reference.disputed,
        worst=tally.worst.worst(),
        root="",
        **common,
    )
    (out / "index.html").write_text(index_text, encoding="utf-8")
    target.finish(written)
    return ReportSummary(out, len(archive.games), len(analysed) + 1 + len(pages), tally.diagrams)


def _book(book: str | Path | None, archive: Archive) -> BookView | None:
    """The opening book at ``book`` opened for the report of ``archive``; ReportError when it cannot be
    opened or is a book of another game than the analysis'."""
    if book is None:
        return None
    try:
        opened = BookView.open(book)
    except ValueError as error:
        raise ReportError(f"--book {book}: {error}") from None
    if opened.game != archive.settings.game:
        raise ReportError(
            f"--book {book}: a book of {opened.game} games, and {archive.folder} holds an analysis of "
            f"{archive.settings.game} games: give a book of {archive.settings.game}"
        )
    return opened


def player_pages(names: Sequence[str]) -> dict[str, str]:
    """Each player's page under ``players/`` by the name the player is shown by: the name as players are
    recognised by (``name_key``: Cyrillic in Latin letters, ``Магжан`` as ``magzhan``), in ASCII letters,
    digits and ``_``, anything else as ``-``; where two names come out alike, or a name as nothing, it is
    followed by a digest of the name, so that each page is a player's own and keeps its name from one
    report to the next."""
    slugs = {name: _slug(name) for name in names}
    taken = Counter(slugs.values())
    pages = {}
    for name, slug in slugs.items():
        if not slug or taken[slug] > 1:
            digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
            slug = f"{slug or 'player'}-{digest}"
        pages[name] = f"players/{slug}.html"
    return pages


def _slug(name: str) -> str:
    latin = unicodedata.normalize("NFKD", name_key(name)).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9_]+", "-", latin).strip("-")[:40].rstrip("-")


OPENING_PLIES = 4  # the decisions of a game that name its opening on a player's page
PLAYER_WORST = 10  # blunders drawn on a player's page


@dataclass(frozen=True)
class PlayerOpening:
    """The first moves of some of a player's games (``moves``: Togyz moves, backgammon checker plays), the
    colour the player had, how many games and the player's score in them (None when none finished), and
    how the opening's last move stands in the report's opening book (None without one, or outside it)."""

    moves: str
    side: str
    games: int
    score: float | None
    book: BookMove | None = None


@dataclass(frozen=True)
class Played:
    """The opening of one of a player's games, as the player's page counts it: where the game and the
    player's side come in the report (``order``: the game's index, the side), the side, the opening's
    moves, the player's score and the book's word on its last move."""

    order: tuple[int, int]
    side: int
    moves: str
    score: float | None
    book: BookMove | None


@dataclass
class Kept:
    """What the index and the player pages keep of the games as their pages are written: the decisions,
    how many were judged each way (backgammon's settled in doubt), of each mark, the diagrams drawn and
    the worst blunders; for each player (by the name shown) the openings played and the worst blunders;
    what the judgements the record files hold say of the games (``reference``). ``owners``: each spelling
    of a name, the players (names shown) it is."""

    owners: dict[str, list[str]]
    decisions: int = 0
    diagrams: int = 0
    judged: Counter[str] = field(default_factory=Counter)
    marks: dict[Mark, int] = field(default_factory=lambda: dict.fromkeys(MARKS, 0))
    worst: Worst = field(default_factory=lambda: Worst(WORST))
    openings: dict[str, list[Played]] = field(default_factory=lambda: defaultdict(list))
    blunders: dict[str, Worst] = field(default_factory=dict)
    reference: ReferenceTally = field(default_factory=ReferenceTally)

    @classmethod
    def of(cls, roster: PlayersReport | None) -> Kept:
        """An empty tally for the players of ``roster``."""
        owners: dict[str, list[str]] = defaultdict(list)
        for found in roster.players if roster else ():
            for spelling in found.spellings:
                owners[spelling].append(found.name)
        return cls(owners)

    def add(
        self, index: int, listed: ReportGame, game: ReportGame, in_book: dict[int, BookMove], diagrams: int
    ) -> None:
        """Count ``game`` (``listed`` without its decisions), the ``index``-th analysed game, with the
        book's word on its moves and the ``diagrams`` drawn on its page."""
        self.decisions += len(game.moves)
        self.diagrams += diagrams
        self.judged.update(move.judged for move in game.moves if move.judged)
        self.reference.add(game)
        for position, move in enumerate(game.moves):
            if move.mark in self.marks:
                self.marks[move.mark] += 1
            if move.mark == Mark.VERY_BAD:
                self.worst.offer(Blunder(listed, move, game.move_label(move)), (index, position))
        plays = [move for move in game.moves if move.kind == "move"][:OPENING_PLIES]  # not cube decisions
        opening = " ".join(move.played for move in plays)
        known = in_book.get(plays[-1].ply) if plays else None
        for side, name in enumerate(game.names):
            for shown in self.owners.get(name, ()) if name is not None else ():
                score = side_score(game.result, game.winner, side)
                self.openings[shown].append(Played((index, side), side, opening, score, known))
                worst = self.blunders.setdefault(shown, Worst(PLAYER_WORST))
                for position, move in enumerate(game.moves):
                    if move.side == side and move.mark == Mark.VERY_BAD:
                        worst.offer(Blunder(listed, move, game.move_label(move)), (index, side, position))


@dataclass(frozen=True)
class ReferencePR:
    """The players' PR by the reference (the judgements the record files hold), named by its ``judge``
    (``XG``): by each spelling of a name as the index lists players (``by_spelling``), and by each player
    of the roster with its interval over games (``by_player``)."""

    judge: str
    by_spelling: dict[str, float | None]
    by_player: dict[str, Estimate]

    def of(self, spelling: str, figures: Mapping[str, Player]) -> Estimate | None:
        """The PR by the reference of the player the index lists as ``spelling``, with the interval of the
        roster's player it is (``figures``: the roster's players by spelling); None where unknown."""
        value = self.by_spelling.get(spelling)
        if value is None:
            return None
        found = self.by_player.get(figures[spelling].name) if spelling in figures else None
        if found is None or found.low is None or found.high is None:
            return Estimate(value)
        return Estimate(value, found.low, found.high)


def reference_prs(
    tally: ReferenceTally, roster: PlayersReport | None, scale: MarkScale | None
) -> ReferencePR | None:
    """The players' PR by the reference of the games ``tally`` counted, by spelling and by ``roster``'s
    player (``ReferenceTally.pr``, ``ReferenceTally.estimates``); None where no decision has a reference,
    or the game's ``scale`` has no PR."""
    if not tally.references or scale is None or scale.pr_factor is None:
        return None
    return ReferencePR(
        tally.judge,
        {spelling: tally.pr(spelling, scale) for spelling in tally.games},
        tally.estimates(roster, scale) if roster is not None else {},
    )


@dataclass(frozen=True)
class DrawnBlunder:
    """A blunder of a player's, drawn."""

    blunder: Blunder
    diagram: Diagram


def _player_pages(
    roster: PlayersReport,
    pages: dict[str, str],
    tally: Kept,
    kinds: dict[str, GameKind[Any]],
    environment: Environment,
    out: Path,
    common: dict[str, Any],
    reference: ReferencePR | None,
) -> dict[str, Player]:
    """One page per player of ``roster`` (``taldau.analysis.players``: figures with intervals, form by
    month, by event (``Player.also``), head to head, openings and worst blunders drawn; the PR by the
    ``reference`` where the record files hold one) at ``pages``, and by each spelling of each player's name
    the player's figures, for the index's intervals."""
    template = environment.get_template("player.html")
    figures: dict[str, Player] = {}
    columns = shown_figures(roster.rated)
    heading, figure = columns[0]  # the form graph follows the first
    for found in roster.players:
        worst = tally.blunders.get(found.name, Worst(PLAYER_WORST)).worst()
        text = template.render(
            player=found,
            rated=roster.rated,
            columns=columns,
            min_games=MIN_GAMES,
            form_figure=heading,
            form=form_graph(
                [(period, getattr(part, figure)) for period, part in found.periods.items()], heading
            ),
            events=found.also.get("event", {}),
            openings=_openings(tally.openings.get(found.name, [])),
            opening_plies=OPENING_PLIES,
            worst=[
                DrawnBlunder(blunder, diagram(kinds[blunder.game.game], blunder.move)) for blunder in worst
            ],
            reference=reference,
            reference_pr=reference.by_player.get(found.name) if reference else None,
            root="../",
            **common,
        )
        (out / pages[found.name]).write_text(text, encoding="utf-8")
        figures.update(dict.fromkeys(found.spellings, found))
    return figures


def _openings(played: list[Played]) -> list[PlayerOpening]:
    """A player's openings (``played``: one per game and side), most played first."""
    counts: dict[tuple[str, int], list[float | None]] = defaultdict(list)
    in_book: dict[tuple[str, int], BookMove | None] = {}
    for item in sorted(played, key=lambda item: item.order):
        counts[item.moves, item.side].append(item.score)
        in_book.setdefault((item.moves, item.side), item.book)
    openings = []
    for (moves, side), scores in counts.items():
        finished = [score for score in scores if score is not None]
        score = sum(finished) / len(finished) if finished else None
        openings.append(
            PlayerOpening(moves, ("first", "second")[side], len(scores), score, in_book.get((moves, side)))
        )
    return sorted(openings, key=lambda opening: (-opening.games, opening.moves))
