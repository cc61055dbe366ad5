"""``taldau annotate`` as a library: the games of some records written back with their review (Togyz
scoresheets with marks and the players' figures, backgammon matches as an analysis text), judged afresh by
the game's engine or read from the rows of an earlier ``taldau analyze`` (its output folder), so that the
CLI only parses and prints.

From a stored analysis nothing is searched again: the ``moves`` rows hold every judgement (the position,
the move played, the best one, the loss, the mark, the cube equities and the luck), from which the
decisions are rebuilt in the common shape and marked as they were stored. What the rows do not hold is the
record itself (a Togyz scoresheet is written from the replayed game and its headers; a backgammon analysis
text needs the match's players, score, results and resignations), so the records are read again from the
``games`` rows' ``source`` (the path ``analyze`` was given, or ``archive.zip:member``), planned into tasks
as ``analyze`` planned them, and each task's games found by their content-derived id: a record file that is
gone or changed is said, with the file and game, and the other games are written.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taldau.base.kind import Limit
from taldau.base.records import ReadLimits
from taldau.games.registry import game_kind
from taldau.schemas import GameRow

from .accounting import NotUsed, Unused
from .batch import ArchivePlan, BatchSettings, GameTask, TaskGame, plan
from .folder import FolderError, FolderSettings, open_folder
from .review import GameReview, MarkedDecision, annotation, player_stats, review_task
from .rows import marked_decision


@dataclass(frozen=True)
class NotAnnotated:
    """An input under the paths that is not written (a file that is no record, an invalid game, a game of
    the other kind, a duplicate, a game missing from the stored analysis), said in one line for people."""

    message: str

    def __str__(self) -> str:
        return self.message


@dataclass
class StoredAnalysis:
    """The judgements of a ``taldau analyze`` output folder: its settings (the manifest's), its analysed
    games' rows by game id and their decisions in order."""

    folder: Path
    settings: FolderSettings
    games: dict[str, dict[str, Any]]
    decisions: dict[str, list[MarkedDecision]] = field(default_factory=dict)

    @classmethod
    def open(cls, folder: str | Path) -> StoredAnalysis:
        """The analysis in ``folder``; FolderError when it is not one or holds no analysed game."""
        stored = open_folder(folder)
        games = {row["game_id"]: row for row in stored.rows("games") if row["status"] == "ok"}
        if not games:
            raise FolderError(f"{stored.path}: no analysed game in this analysis")
        decisions: dict[str, list[MarkedDecision]] = defaultdict(list)
        kind = game_kind(stored.settings.game)
        for row in stored.rows("moves"):
            if row["game_id"] in games:
                decisions[row["game_id"]].append(marked_decision(row, kind))
        for rows in decisions.values():
            rows.sort(key=lambda marked: marked.decision.ply)
        return cls(stored.path, stored.settings, games, dict(decisions))

    @property
    def game(self) -> str:
        return self.settings.game

    @property
    def annotator(self) -> str:
        """The annotator header of what it writes: taldau at the analysis' limit."""
        return f"taldau, {self.settings.limit}"

    def record_files(self) -> list[str]:
        """The record files (or archives) to read again for the analysed games' text, in the order of the
        games; FolderError naming the first game whose record is gone."""
        files: list[str] = []
        for row in sorted(self.games.values(), key=lambda row: (row["source"], row["index"])):
            found = _record_file(row["source"])
            if found is None:
                raise FolderError(
                    f"{self.folder}: {row['source']}, game {row['index']}: the record file is gone (annotate "
                    "reads the records again for their text: run it where `taldau analyze` ran, or give "
                    "the records)"
                )
            if found not in files:
                files.append(found)
        return files

    def stored_id(self, game: TaskGame) -> str | None:
        """The id ``game`` is stored under in the analysis: its id, or its former id in an analysis written
        before game ids were made of content; None when the analysis does not hold it."""
        return next((name for name in (game.game_id, game.former_id) if name in self.games), None)

    def reviews(self, task: GameTask, scale: Any) -> list[GameReview] | None:
        """The stored reviews of ``task``'s games, in order; None when one of them is not in the analysis
        (or was analysed from another text of the record)."""
        reviews = []
        for game in task.games:
            stored = self.stored_id(game)
            marked = None if stored is None else self.decisions.get(stored)
            if stored is None or (marked is None and game.plies):
                return None
            rows = tuple(marked or ())
            reviews.append(GameReview(rows, player_stats(rows, scale)))
        return reviews


def _record_file(source: str) -> str | None:
    """The file to read for a ``games`` row's ``source``: itself, or the archive of ``archive:member``;
    None when neither exists."""
    if Path(source).is_file():
        return source
    head = source
    while ":" in head:
        head = head.rsplit(":", 1)[0]
        if Path(head).is_file():
            return head
    return None


def annotate(
    paths: Iterable[str | Path] | ArchivePlan,
    game: str,
    limit: Limit,
    form: str,
    limits: ReadLimits | None = None,
    engine: str | None = None,
    say: Callable[[str], None] = lambda line: None,
    progress: Callable[[int], object] | None = None,
) -> Iterator[str | NotAnnotated]:
    """Every valid game of ``game`` under ``paths`` (or of an archive read already: ``ArchivePlan``) reviewed
    within ``limit`` by ``engine`` (None: the game's default) and written back with its review in ``form``, a
    task (a Togyz game, a backgammon match) at a time; a ``NotAnnotated`` note for each input that is not
    written. ValueError at once when the limit or the engine do not suit the game. An engine named is named in
    the annotator (the one that ran: a stand-in's name where it stood in, and ``say`` hears the line that says
    so). ``progress`` hears the decisions judged as the reviews go (``Analyser.review``), for a display: a
    match takes a while."""
    settings = BatchSettings(game=game, limit=limit, engine=engine)
    search = settings.search()
    if settings.fallback is not None:
        say(settings.fallback)
    named = "" if engine is None else f"{settings.analyser.engine_name()} "
    annotator = f"taldau, {named}{search}"
    return _annotated(paths, settings, form, annotator, limits or ReadLimits(), progress)


def _annotated(
    paths: Iterable[str | Path] | ArchivePlan,
    settings: BatchSettings,
    form: str,
    annotator: str,
    limits: ReadLimits,
    progress: Callable[[int], object] | None = None,
) -> Iterator[str | NotAnnotated]:
    tools, kind = settings.analyser, settings.kind()
    planned = paths.for_game(settings) if isinstance(paths, ArchivePlan) else plan(paths, settings, limits)
    for item in planned:
        if isinstance(item, GameTask):
            games = _valid_games(item, kind)
            reviews = review_task(tools, games, settings.limit, progress)
            notes = [annotation(review, annotator) for review in reviews]
            yield tools.annotate(games, notes, form)
        else:
            yield _not_annotated(item)


def annotate_stored(
    stored: StoredAnalysis, form: str, limits: ReadLimits | None = None
) -> Iterator[str | NotAnnotated]:
    """The analysed games of ``stored`` written back as ``annotate`` writes them, from the stored
    judgements (no search), their records read again from their sources (see ``record_files``)."""
    settings = BatchSettings(game=stored.game)
    tools = settings.analyser
    for item in plan(stored.record_files(), settings, limits or ReadLimits()):
        if isinstance(item, NotUsed) and item.reason is Unused.OTHER_GAME:
            continue  # a game of another kind: not part of this analysis
        if not isinstance(item, GameTask):
            yield _not_annotated(item)  # an invalid game's row: it was not analysed either
            continue
        if not any(stored.stored_id(game) is not None for game in item.games):
            continue  # another game of the same files that this analysis did not hold
        reviews = stored.reviews(item, tools.scale)
        if reviews is None:
            yield NotAnnotated(
                f"{item.source}, game {item.index}: skipped: the record no longer matches the analysis in "
                f"{stored.folder}"
            )
            continue
        notes = [annotation(review, stored.annotator) for review in reviews]
        yield tools.annotate(_valid_games(item, settings.kind()), notes, form)


def _valid_games(task: GameTask, kind: Any) -> list[Any]:
    """The valid games of ``task``, rebuilt from its data (``GameKind.decode``), in order."""
    games = task.decoded(kind)
    return [games[game.place] for game in task.games]


def _not_annotated(item: NotUsed | GameRow) -> NotAnnotated:
    """The note of a planned item that is not a task: an input not used, or an invalid game's row."""
    if isinstance(item, NotUsed):
        return NotAnnotated(item.describe())
    return NotAnnotated(f"{item.source}, game {item.index}: skipped: {item.error}")
