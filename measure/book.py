"""How fast a book aggregates and answers, on a synthetic load made from a real book (BENCHMARKS.md).

``python -m taldau.measure.book BOOK --times 100`` repeats BOOK's ``plies`` rows ``times`` times as
new games: each copy of a game keeps its opening up to a random move (so the openings stay shared, as in a
real archive) and its positions after that become new ones (their keys mixed with the copy's number), and
the games' results are shuffled among the copies. It reports the aggregation's rows per second and the
Arrow memory it peaked at, the process's peak resident memory, and the lookup file's time per lookup.
"""

from __future__ import annotations

import argparse
import json
import resource
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from taldau.analysis.book.aggregate import aggregate
from taldau.analysis.book.book import Book
from taldau.analysis.book.lookup import Lookup, write_lookup

MIX = 0x9E3779B97F4A7C15  # the golden-ratio word: copies' salts spread over all 64 bits


def synthetic_plies(plies: pa.Table, times: int, seed: int = 0) -> pa.Table:
    """``plies`` repeated ``times`` times as new games (see the module's docstring)."""
    rng = np.random.default_rng(seed)
    games = plies["game_id"].combine_chunks().dictionary_encode()
    game_index = games.indices.to_numpy()
    count = len(games.dictionary)
    ply = plies["ply"].to_numpy().astype(np.int64) - 1  # the plies before the move (the table's from 1)
    keys, after = plies["key"].to_numpy(), plies["after"].to_numpy()
    mover = plies["mover"].to_numpy()
    points_for = pc.fill_null(plies["points_for"], np.nan).to_numpy()
    points_against = pc.fill_null(plies["points_against"], np.nan).to_numpy()
    copies = []
    for copy in range(times):
        parting = rng.integers(2, 31, count)[
            game_index
        ]  # the move where this copy's game leaves the archive's
        salt = np.uint64((copy + 1) * MIX % 2**64)
        new = np.where(ply >= parting, keys ^ salt, keys)
        new_after = np.where(ply + 1 >= parting, after ^ salt, after)
        order = rng.permutation(count)[game_index]  # another game's result
        table = plies.set_column(0, "game_id", pc.binary_join_element_wise(plies["game_id"], str(copy), "-"))
        table = table.set_column(2, "key", pa.array(new, pa.uint64()))
        table = table.set_column(
            table.schema.get_field_index("after"), "after", pa.array(new_after, pa.uint64())
        )
        first = np.searchsorted(game_index, order)  # the other game's first move: White's (Togyz) side
        white_first = mover[first] == 0
        white = np.where(white_first, points_for[first], points_against[first])
        black = np.where(white_first, points_against[first], points_for[first])
        for name, own, other in (("points_for", white, black), ("points_against", black, white)):
            column = pa.array(np.where(mover == 0, own, other), pa.float64(), from_pandas=True)
            table = table.set_column(table.schema.get_field_index(name), name, column)
        copies.append(table)
    return pa.concat_tables(copies)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("book")
    parser.add_argument("--times", type=int, default=100)
    parser.add_argument("--lookups", type=int, default=100_000)
    args = parser.parse_args()
    book = Book(args.book)
    rows = synthetic_plies(book.rows("plies"), args.times)
    evals = book.rows("evals")
    pool = pa.default_memory_pool()
    start = time.perf_counter()
    positions, moves = aggregate(rows, evals)
    seconds = time.perf_counter() - start
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "lookup.npy"
        write_lookup(moves, path)
        lookup = Lookup(path)
        keys = np.random.default_rng(1).choice(positions["key"].to_numpy(), args.lookups)
        begin = time.perf_counter()
        found = sum(len(lookup.find(int(key))) for key in keys)
        per_lookup = (time.perf_counter() - begin) / args.lookups
        size = path.stat().st_size
    print(
        json.dumps(
            {
                "times": args.times,
                "rows": rows.num_rows,
                "positions": positions.num_rows,
                "moves": moves.num_rows,
                "aggregate_seconds": round(seconds, 2),
                "rows_per_second": round(rows.num_rows / seconds),
                "arrow_peak_mib": round(pool.max_memory() / 2**20),
                "process_peak_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
                "lookup_file_mib": round(size / 2**20, 1),
                "lookup_microseconds": round(per_lookup * 1e6, 1),
                "lookup_moves_found": found,
            }
        )
    )


if __name__ == "__main__":
    main()
