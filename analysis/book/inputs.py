"""What an opening book is built from, one input at a time: a record file's games become ``plies`` rows,
an analysis folder's judged moves become ``evals`` rows (the tables of ``taldau.schemas.book``).

Reading a record file walks its games one by one (a replay is move by move, unavoidably) and appends each
opening move to plain column lists, which become one Arrow table per file; everything after that is
columnar (``aggregate``). An analysis folder is read as Arrow and turned into ``evals`` rows without a
Python loop over its rows.

A game the rules refuse somewhere counts up to the move refused (the replay stops there) and is reported
by file, game and line; an unreadable file is reported and the other inputs go on.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from taldau.base.archive import Refused, iter_sources
from taldau.base.identity import FirstFound
from taldau.base.kind import GameKind
from taldau.base.records import ReadLimits, RecordFile, UnreadableFile
from taldau.games.registry import detect_game, game_kind
from taldau.schemas.book import BOOK_EVALS_SCHEMA, BOOK_PLIES_SCHEMA, BOOK_SCHEMA_VERSION

from ..accounting import NotUsed, Place, Unused, place_id
from ..folder import open_folder
from ..players import AnalysisJudge
from ..validation import GameCheck, describe

HASH_CHUNK = 1 << 20


@dataclass(frozen=True)
class BookSettings:
    """What a book's inputs depend on: the game and how deep the book goes (``max_ply`` plies, a game's
    first plies: Togyz moves, backgammon checker plays, a roll that could not be played included; None:
    the game's own default, 30 for Togyz, 10 for backgammon). Books of the same settings merge.
    """

    game: str = "togyz"
    max_ply: int | None = None

    def kind(self) -> GameKind[Any]:
        return game_kind(self.game)

    @property
    def plies(self) -> int:
        return self.kind().book_plies if self.max_ply is None else self.max_ply

    def describe(self) -> dict[str, Any]:
        """The settings as the manifest stores them and every input's digest includes."""
        return {"game": self.game, "max_ply": self.plies, "schema": BOOK_SCHEMA_VERSION}


@dataclass
class InputReport:
    """What one input gave: its name, its ``digest`` (what names its part), the games counted, those of them
    with errors (``partial``: counted up to the first move the rules refuse, whole when the errors are only
    wrong claims about legal moves), the opening moves taken (``rows``) and what was reported (a bad game
    by file, game and line; a file of another game; an unreadable file). What was not counted, as
    ``taldau.analysis.accounting`` names it: ``not_record`` (1 for a file with no game record),
    ``other_game`` (the games of a file of the other game), ``duplicates`` (games found again in the same
    file; those found in another input are counted when the book is aggregated). ``engine``: the engine
    whose judgements an analysis folder brings (``FolderSettings.engine_label``), None for a record file;
    ``judge``: how the folder judged them (``players.AnalysisJudge`` as JSON: game, engine and limit; None
    for a record file, and in books built before it was recorded)."""

    source: str
    digest: str
    kind: str  # "records" or "analysis"
    games: int = 0
    partial: int = 0
    rows: int = 0
    skipped: list[str] = field(default_factory=list)
    not_record: int = 0
    other_game: int = 0
    duplicates: int = 0
    engine: str | None = None
    judge: dict[str, str] | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> InputReport:
        return cls(**data)

    def judged(self, game: str) -> AnalysisJudge | None:
        """How the analysis folder of this report judged its values (None for a record file); in a book
        built before the judge was recorded, its engine alone and the limit as not recorded, so that it
        stays alike to another such part and to no recorded judge."""
        if self.kind != "analysis":
            return None
        if self.judge is not None:
            return AnalysisJudge.from_json(self.judge)
        return AnalysisJudge(
            game, self.engine or "an unknown engine", "a limit not recorded", self.engine or ""
        )


@dataclass(frozen=True)
class Input:
    """One input of a build: a record file (``file``) or an analysis folder (``folder``), with the digest
    of its content and the settings, which names its part: the same content gives the same part in any
    build, so a build resumes past the inputs it has, and merging books counts a file once. ``engine``:
    an analysis folder's engine (``FolderSettings.engine_label``), ``judge`` how it judged
    (``AnalysisJudge``)."""

    name: str
    digest: str
    file: RecordFile | None = None
    folder: Path | None = None
    engine: str | None = None
    judge: AnalysisJudge | None = None


def _digest(settings: BookSettings, what: str, chunks: Iterator[bytes]) -> str:
    hasher = hashlib.sha256(json.dumps([settings.describe(), what], sort_keys=True).encode())
    for chunk in chunks:
        hasher.update(chunk)
    return hasher.hexdigest()[:24]


def _file_chunks(file: RecordFile) -> Iterator[bytes]:
    with file.open() as stream:
        while chunk := stream.read(HASH_CHUNK):
            yield chunk


def _folder_chunks(folder: Path) -> Iterator[bytes]:
    for path in open_folder(folder).files("moves"):
        with path.open("rb") as stream:
            while chunk := stream.read(HASH_CHUNK):
                yield chunk


def record_inputs(
    paths: list[str | Path], settings: BookSettings, limits: ReadLimits
) -> Iterator[Input | InputReport]:
    """Every record file under ``paths`` as an input; a source that cannot be read comes as a report of
    nothing counted, with the reason."""
    for source in iter_sources(paths, limits):
        if isinstance(source, Refused):
            yield InputReport(source.name, "", "records", skipped=[f"{source.name}: {source.reason}"])
            continue
        try:
            digest = _digest(settings, "records", _file_chunks(source))
        except OSError as error:
            yield InputReport(source.name, "", "records", skipped=[f"{source.name}: cannot read: {error}"])
            continue
        yield Input(source.name, digest, file=source)


def analysis_input(folder: str | Path, settings: BookSettings) -> Input:
    """An analysis folder as an input; ValueError when it is not one or analysed another game."""
    stored = open_folder(folder)
    game = stored.settings.game
    if game != settings.game:
        raise ValueError(f"{stored.path}: an analysis of {game} games, and this book is of {settings.game}")
    digest = _digest(settings, "analysis", _folder_chunks(stored.path))
    return Input(
        str(stored.path),
        digest,
        folder=stored.path,
        engine=stored.settings.engine_label,
        judge=AnalysisJudge.of(stored),
    )


def read_records(item: Input, settings: BookSettings) -> tuple[pa.Table, InputReport]:
    """The ``plies`` rows of a record file's games (see the module's docstring)."""
    assert item.file is not None
    report = InputReport(item.name, item.digest, "records")
    kind = settings.kind()
    plies = settings.plies
    columns: dict[str, list[Any]] = {name: [] for name in BOOK_PLIES_SCHEMA.names}
    try:
        found = detect_game(item.file)
        if found.name != settings.game:
            report.skipped.append(f"{item.name}: {found.name} games; this book is of {settings.game}")
            report.other_game = sum(found.facts(game).index > 0 for game in found.read_file(item.file))
            return BOOK_PLIES_SCHEMA.empty_table(), report
        first: FirstFound[Place] = FirstFound()  # where each valid game of the file was found first
        for game in kind.read_file(item.file):
            facts = kind.facts(game)
            if facts.index == 0:  # no game record in the file
                report.not_record += 1
                detail = facts.errors[0].message if facts.errors else "no game found"
                report.skipped.append(NotUsed(item.name, 0, Unused.NOT_RECORD, detail).describe())
                continue
            if facts.errors:
                report.skipped.append(describe(GameCheck(kind.name, facts)))
                report.partial += 1
                identity = place_id(kind.name, facts)
            else:
                identity = kind.identity(game)
                place = first.first(identity, Place(facts.source, facts.index))
                if place != Place(facts.source, facts.index):
                    report.duplicates += 1
                    duplicate = NotUsed(facts.source, facts.index, Unused.DUPLICATE, first=place)
                    report.skipped.append(duplicate.describe())
                    continue
            opening = kind.opening(game, plies)
            report.games += 1
            points = opening.points
            for ply, move in enumerate(opening.plies, start=1):  # the first ply of a game is 1
                side = move.mover
                columns["game_id"].append(identity)
                columns["ply"].append(ply)
                columns["key"].append(move.key)
                columns["position"].append(move.position)
                columns["dice"].append(move.dice)
                columns["move"].append(move.move)
                columns["mover"].append(side)
                columns["after"].append(move.after)
                columns["points_for"].append(None if points is None else points[side])
                columns["points_against"].append(None if points is None else points[1 - side])
                columns["gammon"].append(opening.big_win)
                columns["rating"].append(opening.ratings[side])
                columns["opponent_rating"].append(opening.ratings[1 - side])
                columns["date"].append(opening.date)
    except UnreadableFile as error:
        report.skipped.append(f"{item.name}: {error}")
    table = pa.Table.from_pydict(columns, schema=BOOK_PLIES_SCHEMA)
    report.rows = table.num_rows
    return table, report


def _rolls(dice: pa.ChunkedArray) -> pa.Array:
    """The dice of the ``moves`` table (as rolled, null for Togyz) high die first, "" for none: mapped
    through their few distinct values."""
    values = pc.fill_null(dice, "").combine_chunks().dictionary_encode()
    dictionary = values.dictionary.to_pylist()
    ordered = pa.array(["".join(sorted(text, reverse=True)) for text in dictionary], pa.string())
    return ordered.take(values.indices)


def read_analysis(item: Input, settings: BookSettings) -> tuple[pa.Table, InputReport]:
    """The ``evals`` rows of an analysis folder: its games' first ``max_ply`` plies (checker plays for
    backgammon; cube decisions are not book moves), values turned to the mover's side and keys to the
    game's book keys."""
    assert item.folder is not None
    judge = None if item.judge is None else item.judge.to_json()
    report = InputReport(item.name, item.digest, "analysis", engine=item.engine, judge=judge)
    columns = ["game_id", "ply", "side", "kind", "dice", "key", "played", "best"]
    columns += ["score_best", "score_played", "mark"]
    moves = open_folder(item.folder).table("moves", columns)
    if not moves.num_rows:
        return BOOK_EVALS_SCHEMA.empty_table(), report
    moves = moves.filter(pc.equal(moves["kind"], "move")).sort_by(
        [("game_id", "ascending"), ("ply", "ascending")]
    )
    games = moves["game_id"].combine_chunks().dictionary_encode().indices.to_numpy()
    starts = np.flatnonzero(np.r_[True, games[1:] != games[:-1]]) if len(games) else np.zeros(0, np.int64)
    report.games = len(starts)
    rank = np.arange(len(games)) - np.repeat(starts, np.diff(np.r_[starts, len(games)]))
    moves = moves.append_column("rank", pa.array(rank, pa.int16())).filter(pa.array(rank < settings.plies))
    sides = moves["side"].to_numpy()
    sign = pa.array(1.0 - 2.0 * sides)
    keys = settings.kind().book_keys(moves["key"].to_numpy(), sides)
    table = pa.table(
        {
            "game_id": moves["game_id"],
            "ply": pc.add(moves["rank"], pa.scalar(1, pa.int16())),  # from 1, as the plies rows count
            "key": pa.array(keys, pa.uint64()),
            "dice": _rolls(moves["dice"]),
            "move": moves["played"],  # the book's own names
            "best_move": moves["best"],
            "eval_move": pc.multiply(moves["score_played"], sign),
            "eval_position": pc.multiply(moves["score_best"], sign),
            "marked": pc.is_valid(moves["mark"]),
        },
        schema=BOOK_EVALS_SCHEMA,
    )
    report.rows = table.num_rows
    return table, report
