"""An opening book as a folder: its inputs' parts, the tables aggregated from them, the lookup file and a
manifest. Building, resuming and merging are all "add the parts that are missing, then aggregate":

    book.json                       settings (game, depth), the judge of its evaluations (game, engine and
                                    limit), schema versions, min games, inputs and counts
    plies/<digest>.parquet          one part per record file read (``taldau.schemas.book``'s ``plies``)
    evals/<digest>.parquet          one part per analysis folder read (``evals``)
    positions.parquet, moves.parquet  the book (``positions`` and ``moves`` tables)
    lookup.npy                      the compact sorted lookup file (``lookup``)

A part is named by the digest of its input's content and the book's settings, and carries its input's
report (what it counted and skipped) in its Parquet metadata. A build skips the inputs whose part is there
(so an interrupted build resumes where it stopped), and merging two books copies the parts the target
lacks: the tables are then aggregated from the same parts, in the same order, as one build over all the
inputs would, so they are the same.

A book's evaluations are one judge's (``players.AnalysisJudge``: one game, engine and search limit), so
that they compare: a build or merge that would mix analyses judged otherwise is refused, naming both, as
``taldau players`` refuses them. Each evaluation part records its judge; parts of books built before that
have their engine alone, and mix only with one another.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from taldau.base.files import publish, write_text_atomic
from taldau.base.identity import FirstFound
from taldau.base.records import ReadLimits
from taldau.schemas.book import (
    BOOK_EVALS_SCHEMA,
    BOOK_MOVES_SCHEMA,
    BOOK_PLIES_SCHEMA,
    BOOK_POSITIONS_SCHEMA,
    BOOK_SCHEMA_VERSION,
)
from taldau.schemas.files import write_atomic

from ..accounting import Inputs
from ..folder import FolderError, is_analysis_folder
from ..players import AnalysisJudge, judged_alike
from .aggregate import aggregate
from .inputs import (
    BookSettings,
    Input,
    InputReport,
    analysis_input,
    read_analysis,
    read_records,
    record_inputs,
)
from .lookup import LOOKUP_VERSION, Lookup, write_lookup

MANIFEST = "book.json"
REPORT_KEY = b"taldau.book_input"
PARTS = {"plies": BOOK_PLIES_SCHEMA, "evals": BOOK_EVALS_SCHEMA}


class BookMismatch(ValueError):
    """A book folder holds a book of other settings than asked for (another game or depth), or books or
    analyses judged otherwise would mix."""


def _mismatch(folder: Path, stored: dict[str, Any], asked: dict[str, Any]) -> str:
    """The refusal of a build into ``folder`` whose book has other settings, for people (one line)."""
    if (stored.get("game"), stored.get("max_ply")) == (asked["game"], asked["max_ply"]):
        return (
            f"{folder} holds a book of schema {stored.get('schema')}, and this version writes schema "
            f"{asked['schema']}: build the book again in another --out folder"
        )
    return (
        f"{folder} holds a book of {stored.get('game')} games {stored.get('max_ply')} plies deep, not of "
        f"{asked['game']} games {asked['max_ply']} plies deep: give --game {stored.get('game')} --max-ply "
        f"{stored.get('max_ply')} to grow it, or another --out folder"
    )


@dataclass
class BuildReport:
    """What one build or merge did: the inputs it read now, those it found already read (``resumed``), those
    whose earlier content it replaced (``replaced``: a file that changed since, an analysis folder that
    grew), and those it could not read at all (``unread``); ``manifest`` is the book's after it."""

    read: list[InputReport] = field(default_factory=list)
    resumed: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    unread: list[InputReport] = field(default_factory=list)
    manifest: dict[str, Any] = field(default_factory=dict)
    resumed_reports: list[InputReport] = field(default_factory=list)
    copies: list[tuple[InputReport, str]] = field(default_factory=list)

    def inputs(self) -> Inputs:
        """This build's record files and their games, counted as ``validate`` and ``analyze`` count them
        (``taldau.analysis.accounting``): a file of the same content as an earlier one of the build
        (``copies``, with the earlier one's name) has only duplicates, a game of a file found in another
        file before counts as a duplicate there."""
        stored = {entry["digest"]: entry for entry in self.manifest.get("inputs", [])}
        tally = Inputs(files=len(self.unread), not_read=len(self.unread))
        originals = [InputReport.from_json(stored.get(r.digest, r.to_json())) for r in self.read]
        originals += [InputReport.from_json(stored.get(r.digest, r.to_json())) for r in self.resumed_reports]
        counted = [(report, False) for report in originals] + [(report, True) for report, _ in self.copies]
        for report, copy in counted:
            if report.kind != "records":
                continue
            valid = report.games - report.partial
            tally.files += 1
            tally.not_records += report.not_record
            tally.other_game += report.other_game
            tally.invalid += report.partial
            tally.duplicates += report.duplicates + (valid if copy else 0)
            tally.valid += 0 if copy else valid
        tally.games = tally.valid + tally.invalid
        return tally


class Book:
    """An opening book folder (see the module's docstring)."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)

    @property
    def manifest_path(self) -> Path:
        return self.folder / MANIFEST

    def manifest(self) -> dict[str, Any]:
        """The book's manifest; ValueError when the folder holds no book."""
        try:
            return json.loads(self.manifest_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise ValueError(f"{self.folder}: no opening book here (no {MANIFEST})") from None

    def check(self) -> Book:
        """This book, once built; ValueError when the folder holds no book or a build that did not finish
        (run it again: it resumes)."""
        if "counts" not in self.manifest():
            raise ValueError(f"{self.folder}: the book's build did not finish; run it again to resume")
        return self

    def settings(self) -> BookSettings:
        stored = self.manifest()["settings"]
        return BookSettings(game=stored["game"], max_ply=stored["max_ply"])

    def prepare(self, settings: BookSettings) -> None:
        """Make the folder for a book of ``settings``; BookMismatch when it holds a book of others."""
        if self.manifest_path.exists():
            stored = self.manifest()["settings"]
            if stored != settings.describe():
                raise BookMismatch(_mismatch(self.folder, stored, settings.describe()))
        for name in PARTS:
            (self.folder / name).mkdir(parents=True, exist_ok=True)
        if not self.manifest_path.exists():
            self._write_manifest({"settings": settings.describe()})

    def part(self, table: str, digest: str) -> Path:
        return self.folder / table / f"{digest}.parquet"

    def parts(self, table: str) -> list[Path]:
        """The parts of ``plies`` or ``evals``, in the order of their names."""
        return sorted((self.folder / table).glob("*.parquet"))

    def add(self, table: str, rows: pa.Table, report: InputReport) -> None:
        """Store one input's rows with its report, atomically."""
        metadata = {**(rows.schema.metadata or {}), REPORT_KEY: json.dumps(report.to_json()).encode()}
        write_atomic(rows.replace_schema_metadata(metadata), self.part(table, report.digest))

    def reports(self) -> list[InputReport]:
        """The reports of every input of the book, by part name."""
        return [report for table in PARTS for _, report in self._reports(table)]

    def report(self, table: str, digest: str) -> InputReport:
        """The report of the input whose part is ``digest``."""
        metadata = pq.read_schema(self.part(table, digest)).metadata or {}
        return InputReport.from_json(json.loads(metadata[REPORT_KEY]))

    def _reports(self, table: str) -> list[tuple[Path, InputReport]]:
        found = []
        for path in self.parts(table):
            metadata = pq.read_schema(path).metadata or {}
            found.append((path, InputReport.from_json(json.loads(metadata[REPORT_KEY]))))
        return found

    def judges(self, besides: Iterable[str] = ()) -> list[tuple[str, AnalysisJudge]]:
        """The analyses whose values the book's ``evals`` hold, each named with how it judged, but those
        named in ``besides`` (inputs read again)."""
        reports = [report for _, report in self._reports("evals")]
        if not reports:
            return []
        game, left_out = self.settings().game, set(besides)
        found = []
        for report in reports:
            judge = report.judged(game)
            if judge is not None and report.source not in left_out:
                found.append((report.source, judge))
        return found

    def judge(self) -> AnalysisJudge | None:
        """How the book's evaluations were judged (None: the book holds none)."""
        judges = self.judges()
        return judges[0][1] if judges else None

    def drop_earlier(self, table: str, source: str) -> bool:
        """Remove the parts of ``table`` read from ``source`` (an input read again after it changed, so
        that its games count once); whether there was one."""
        stale = [path for path, report in self._reports(table) if report.source == source]
        for path in stale:
            path.unlink()
        return bool(stale)

    def rows(self, table: str) -> pa.Table:
        """Every part of ``plies`` or ``evals`` as one table, in the order of the parts' names."""
        schema = PARTS[table]
        tables = [
            pq.read_table(path, schema=schema).replace_schema_metadata(None) for path in self.parts(table)
        ]
        return pa.concat_tables([schema.empty_table().replace_schema_metadata(None), *tables])

    def unique_plies(self) -> tuple[pa.Table, dict[Path, int]]:
        """The ``plies`` rows of every part, but those of a game found in an earlier part (in the order of
        the parts' names): a game in two files (or in two records, ``taldau.base.identity``) counts once.
        Returns them and, per part, the number of its games found before."""
        schema = PARTS["plies"]
        earlier: FirstFound[str] = FirstFound()  # the games of the parts before, by id
        found_before: dict[Path, int] = {}
        tables = [schema.empty_table().replace_schema_metadata(None)]
        for path in self.parts("plies"):
            rows = pq.read_table(path, schema=schema).replace_schema_metadata(None)
            ids = pc.unique(rows["game_id"]).to_pylist()
            before = [identity for identity in ids if earlier.find(identity) is not None]
            if before:
                found_before[path] = len(before)
                keep = pc.invert(pc.is_in(rows["game_id"], value_set=pa.array(sorted(before), pa.string())))
                rows = rows.filter(keep)
            for identity in ids:
                earlier.first(identity, identity)
            tables.append(rows)
        return pa.concat_tables(tables), found_before

    def finish(self, min_games: int) -> dict[str, Any]:
        """Aggregate every part into the ``positions`` and ``moves`` tables and the lookup file, then the
        manifest; returns the manifest."""
        plies, found_before = self.unique_plies()
        positions, moves = aggregate(plies, self.rows("evals"), min_games)
        write_atomic(positions, self.folder / "positions.parquet")
        write_atomic(moves, self.folder / "moves.parquet")
        publish(self.folder / "lookup.npy", lambda temporary: write_lookup(moves, temporary))
        reports = []
        for table in PARTS:
            for path, report in self._reports(table):
                report.games -= found_before.get(path, 0)
                report.duplicates += found_before.get(path, 0)
                reports.append(report)
        records = [report for report in reports if report.kind == "records"]
        judge = self.judge()
        manifest = {
            "settings": self.settings().describe(),
            "engine": None if judge is None else judge.label,
            "judge": None if judge is None else judge.to_json(),
            "min_games": min_games,
            "schemas": {"book": BOOK_SCHEMA_VERSION, "lookup": LOOKUP_VERSION},
            "counts": {
                "games": sum(report.games for report in records),
                "partial": sum(report.partial for report in records),
                "plies": plies.num_rows,
                "analysed_games": sum(report.games for report in reports if report.kind == "analysis"),
                "evaluations": sum(report.rows for report in reports if report.kind == "analysis"),
                "positions": positions.num_rows,
                "moves": moves.num_rows,
            },
            "inputs": [report.to_json() for report in reports],
        }
        self._write_manifest(manifest)
        return manifest

    def _write_manifest(self, manifest: dict[str, Any]) -> None:
        write_text_atomic(json.dumps(manifest, indent=2, ensure_ascii=False) + "\n", self.manifest_path)

    def positions(self, where: pc.Expression | None = None) -> pa.Table:
        """The ``positions`` table, or its rows that match ``where`` (read without the others)."""
        return pq.read_table(self.folder / "positions.parquet", schema=BOOK_POSITIONS_SCHEMA, filters=where)

    def moves(self) -> pa.Table:
        return pq.read_table(self.folder / "moves.parquet", schema=BOOK_MOVES_SCHEMA)

    def lookup(self) -> Lookup:
        return Lookup(self.folder / "lookup.npy")


def build_book(
    paths: Iterable[str | Path],
    out: str | Path,
    settings: BookSettings,
    analyses: Iterable[str | Path] = (),
    min_games: int = 1,
    limits: ReadLimits | None = None,
    progress: Callable[[InputReport], None] = lambda report: None,
    found: Callable[[int], None] = lambda inputs: None,
) -> BuildReport:
    """Build (or grow, or resume) the book in ``out`` from the record files under ``paths`` and the
    analysis folders ``analyses`` (an analysis folder among ``paths`` counts as one of ``analyses``: it
    brings the engine's judgements, the games come from their records). Inputs already in the book are
    not read again; an input read before under the same name with other content (a file that changed,
    an analysis folder that grew) replaces its earlier part; ``found`` hears how many inputs there are
    before any is read, ``progress`` of every input read. BookMismatch, before anything is read, when the
    analysis folders and the book's evaluations were not all judged alike."""
    book = Book(out)
    given = list(paths)
    records = [path for path in given if not is_analysis_folder(path)]
    folders = [*analyses, *(path for path in given if is_analysis_folder(path))]
    judged = [analysis_input(folder, settings) for folder in folders]
    again = {item.name for item in judged}
    _one_judge([*book.judges(besides=again), *((item.name, item.judge) for item in judged if item.judge)])
    book.prepare(settings)
    report = BuildReport()
    met: dict[str, str] = {}  # the digests of this build's inputs, with the first input of each
    items: list[Input | InputReport] = list(record_inputs(records, settings, limits or ReadLimits()))
    items += judged
    found(len(items))
    for item in items:
        if isinstance(item, InputReport):
            report.unread.append(item)
            progress(item)
            continue
        table = "plies" if item.file is not None else "evals"
        reader = read_records if item.file is not None else read_analysis
        if book.part(table, item.digest).exists():
            if item.digest in met:  # the same content as an input before it: read for its report only
                _, copy = reader(item, settings)
                report.copies.append((copy, met[item.digest]))
                progress(copy)
            else:
                report.resumed.append(item.name)
                report.resumed_reports.append(book.report(table, item.digest))
            met.setdefault(item.digest, item.name)
            continue
        met[item.digest] = item.name
        rows, read = reader(item, settings)
        if book.drop_earlier(table, item.name):
            report.replaced.append(item.name)
        book.add(table, rows, read)
        report.read.append(read)
        progress(read)
    report.manifest = book.finish(min_games)
    return report


def _one_judge(named: list[tuple[str, AnalysisJudge]]) -> None:
    """BookMismatch unless one judge made the values of every analysis or book ``named`` (each with its
    judge), by ``players.judged_alike``: a book's values compare only then."""
    for other in named[1:]:
        try:
            judged_alike(named[0], other)
        except FolderError as error:
            raise BookMismatch(
                f"{error}; a book holds one judge's values: build another book (another --out folder)"
            ) from None


def merge_books(books: Iterable[str | Path], out: str | Path, min_games: int | None = None) -> BuildReport:
    """Merge ``books`` into the book in ``out`` (which may be one of them): the parts it lacks are copied,
    then the tables aggregated, with ``min_games`` (None: the first book's). BookMismatch when the books
    were built with other settings or their evaluations were judged otherwise (by another engine or
    limit), before anything is copied."""
    sources = [Book(folder) for folder in books]
    if not sources:
        raise ValueError("no book to merge")
    settings = sources[0].settings()
    if min_games is None:
        min_games = int(sources[0].manifest().get("min_games", 1))
    target = Book(out)
    for source in sources:
        if source.settings() != settings:
            raise BookMismatch(f"{source.folder} was built with other settings than {sources[0].folder}")
    _one_judge([(str(book.folder), judge) for book in [target, *sources] if (judge := book.judge())])
    target.prepare(settings)
    report = BuildReport()
    for source in sources:
        for table in PARTS:
            for path in source.parts(table):
                copy = target.part(table, path.stem)
                if copy.exists():
                    report.resumed.append(path.name)
                    continue
                publish(copy, lambda temporary, source=path: shutil.copyfile(source, temporary))
    report.manifest = target.finish(min_games)
    return report
