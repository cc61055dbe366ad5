"""An analysis folder repeated: its tables ``times`` over, each copy's games with ids, record files and
match tasks of their own, so that what grows with an archive (the report's memory: BENCHMARKS.md, "HTML
report") can be measured on archives larger than those at hand.

Made at the Parquet level: copies of the records themselves would be the same games (a game's identity is
its content) and be analysed once. A copy's game id is its number in four hex digits before the original
id, its record files are under ``copy-<number>/``, so that each copy's rows keep the order ``taldau
analyze`` writes (``moves`` by game and ply, ``games`` by file and index) and the copies follow each
other. The folder's manifest is the original's, with its counts times ``times`` and the copies' files
listed.

    python -m taldau.measure.repeated /tmp/bglab-quick /tmp/bglab-x10 --times 10
"""

from __future__ import annotations

import argparse
import shutil
from dataclasses import replace
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
from taldau.analysis.folder import TABLES, Counts, ManifestTables, manifest_file, open_folder
from taldau.base.files import write_text_atomic
from taldau.schemas.files import write_atomic

MOST_COPIES = 0x10000  # four hex digits of a copy's number


def _prefixed(table: pa.Table, column: str, prefix: str) -> pa.Table:
    """``table`` with ``prefix`` before every value of ``column`` (nulls kept)."""
    index = table.column_names.index(column)
    values = pc.binary_join_element_wise(pa.scalar(prefix), table.column(index), "")
    return table.set_column(index, table.field(index), values)


def _times(counts: Counts, times: int) -> Counts:
    return replace(
        counts,
        games=counts.games * times,
        ok=counts.ok * times,
        invalid=counts.invalid * times,
        failed=counts.failed * times,
        plies=counts.plies * times,
        judged={way: number * times for way, number in counts.judged.items()},
    )


def repeat_folder(source: str | Path, out: str | Path, times: int) -> Path:
    """The analysis folder at ``source`` written ``times`` over into ``out`` (replaced if it is a folder
    this made before: its manifest and tables); returns ``out``."""
    if not 1 <= times <= MOST_COPIES:
        raise ValueError(f"times from 1 to {MOST_COPIES}, not {times}")
    stored = open_folder(source)
    target = Path(out)
    for name in TABLES:
        shutil.rmtree(target / name, ignore_errors=True)
        (target / name).mkdir(parents=True)
    tables = {name: stored.table(name) for name in TABLES}
    files: dict[str, list[str]] = {name: [] for name in TABLES}
    for copy in range(times):
        prefix = f"{copy:04x}"
        copies = {
            "moves": _prefixed(tables["moves"], "game_id", prefix),
            "games": _prefixed(
                _prefixed(_prefixed(tables["games"], "game_id", prefix), "task", prefix),
                "source",
                f"copy-{prefix}/",
            ),
        }
        for name, table in copies.items():
            file = f"{stored.key}.1-{copy:05d}.parquet"
            write_atomic(table, target / name / file)
            files[name].append(file)
    manifest = replace(
        stored.manifest,
        counts=_times(stored.manifest.counts, times),
        folder=_times(stored.manifest.folder, times),
        tables=ManifestTables(
            generation=1,
            files={name: tuple(files[name]) for name in TABLES},
            rows={name: tables[name].num_rows * times for name in TABLES},
        ),
        folder_stored=True,
    )
    write_text_atomic(manifest.text(), manifest_file(target))
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", help="an analysis folder (`taldau analyze --out`)")
    parser.add_argument("out", help="the folder to write")
    parser.add_argument("--times", type=int, default=10, help="copies of the source's tables")
    arguments = parser.parse_args()
    print(repeat_folder(arguments.source, arguments.out, arguments.times))


if __name__ == "__main__":
    main()
