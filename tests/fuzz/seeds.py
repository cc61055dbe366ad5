"""Seed inputs for every fuzz target, cut from the repository's real examples and fixtures.

    .venv/bin/python tests/fuzz/seeds.py OUT_DIR

writes ``OUT_DIR/<target>/<name>`` files (each at most ``MAX_SEED`` bytes: long records are cut at game
boundaries). The stored corpus (``tests/fuzz/corpus``) is these seeds and what fuzzing found, minimised with
libFuzzer's ``-merge=1``.
"""

from __future__ import annotations

import io
import itertools
import json
import re
import sys
import tarfile
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
GNUBG = ROOT / "tests" / "data" / "backgammon" / "gnubg"
MAX_SEED = 8192

TOGYZ_FENS = (
    "9S,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 0 0 S 1",
    "10S,9S,9S,9S,9S,9S,t,9S,9S/9S,1,9S,9S,9S,9S,9S,9S,9S 13 4 N 5",
    "2,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 18 0 N 1",
    "9S,9S,9S,9S,9S,9S,t,9S,9S/9S,9S,t,9S,9S,9S,9S,9S,9S 18 0 S 1",
    "t,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 9 0 S 1",
    "9/9 81 81 S 40",
)


Seeds = Callable[[], Iterator[tuple[str, bytes]]]  # one target's (name, data) seeds
SEEDS: dict[str, Seeds] = {}  # target -> its seeds, in the order written


def seed_source(function: Seeds) -> Seeds:
    """Declare ``function`` the seeds of the fuzz target of the same name."""
    SEEDS[function.__name__] = function
    return function


def _pieces(text: str, starts: re.Pattern[str]) -> Iterator[str]:
    """``text`` cut before each match of ``starts`` into pieces of at most MAX_SEED bytes."""
    cuts = [match.start() for match in starts.finditer(text)] or [0]
    cuts = [0, *cuts[1:], len(text)] if cuts[0] else [*cuts, len(text)]
    piece = ""
    for start, end in itertools.pairwise(cuts):
        chunk = text[start:end]
        if piece and len((piece + chunk).encode()) > MAX_SEED:
            yield piece
            piece = ""
        piece += chunk
    if piece:
        yield piece[: MAX_SEED // 2] if len(piece.encode()) > MAX_SEED else piece


@seed_source
def togyz_records() -> Iterator[tuple[str, bytes]]:
    for path in sorted((EXAMPLES / "togyz").iterdir()):
        text = path.read_text(encoding="utf-8-sig")
        for number, piece in enumerate(_pieces(text, re.compile(r"^\[Event ", re.MULTILINE))):
            yield f"{path.stem}-{number}", piece.encode()


@seed_source
def togyz_fen() -> Iterator[tuple[str, bytes]]:
    for number, fen in enumerate(TOGYZ_FENS):
        yield f"fen-{number}", fen.encode()


def _backgammon_files(suffixes: tuple[str, ...]) -> Iterator[Path]:
    for folder in (EXAMPLES / "backgammon", GNUBG):
        yield from sorted(path for path in folder.iterdir() if path.suffix in suffixes)


@seed_source
def backgammon_jellyfish() -> Iterator[tuple[str, bytes]]:
    for path in _backgammon_files((".mat", ".txt")):
        text = path.read_text(encoding="utf-8")
        first = re.search(r"^\s*Game\s+\d+\s*$", text, re.MULTILINE)
        head = text[: first.start()] if first else ""
        pieces = _pieces(text, re.compile(r"^\s*Game\s+\d+\s*$", re.MULTILINE))
        for number, piece in enumerate(pieces):
            yield f"{path.stem}-{number}", (piece if piece.startswith(head) else head + piece).encode()


@seed_source
def backgammon_sgf() -> Iterator[tuple[str, bytes]]:
    for path in _backgammon_files((".sgf",)):
        text = path.read_text(encoding="utf-8")
        # Analysis properties make up most of gnubg's files; the reader ignores them.
        text = re.sub(r"(?:GS|A|DA)\[[^\]]*\]", "", text)
        for number, piece in enumerate(_pieces(text, re.compile(r"\(;FF"))):
            yield f"{path.stem}-{number}", piece.encode()


@seed_source
def backgammon_ids() -> Iterator[tuple[str, bytes]]:
    records = json.loads((GNUBG / "ids.json").read_text())["records"]
    for number, record in enumerate(records[::12]):
        yield f"position-{number}", record["position_id"].encode()
        yield f"match-{number}", record["match_id"].encode()
        yield f"gnubg-{number}", f"{record['position_id']}:{record['match_id']}".encode()
        if "xgid" in record:
            yield f"xgid-{number}", record["xgid"].encode()


@seed_source
def detect() -> Iterator[tuple[str, bytes]]:
    yield from togyz_records()
    yield from backgammon_jellyfish()
    yield from backgammon_sgf()


def _small_files() -> list[tuple[str, bytes]]:
    return [
        (f"games/{path.name}", path.read_bytes())
        for path in sorted((EXAMPLES / "togyz").iterdir())
        if path.stat().st_size < 1500
    ]


@seed_source
def archive() -> Iterator[tuple[str, bytes]]:
    from fuzz.targets import ARCHIVE_SUFFIXES

    files = _small_files()
    for method in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", compression=method) as archive:
            for name, data in files:
                archive.writestr(name, data)
        yield f"zip-{method}", bytes([ARCHIVE_SUFFIXES.index(".zip")]) + buffer.getvalue()
    for suffix, mode in ((".tar", "w"), (".tar.gz", "w:gz")):
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode=mode) as archive:  # type: ignore[call-overload]
            for name, data in files:
                info = tarfile.TarInfo(name)
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
        yield f"tar-{mode[2:] or 'plain'}", bytes([ARCHIVE_SUFFIXES.index(suffix)]) + buffer.getvalue()
    directory = b"\x00".join(part for name, data in files for part in (name.encode(), data))
    yield "directory", bytes([ARCHIVE_SUFFIXES.index("/")]) + directory


def main() -> None:
    """Write every target's seeds under the folder given as the only argument."""
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} OUT_DIR")
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    out = Path(sys.argv[1])
    for target, seeds in SEEDS.items():
        folder = out / target
        folder.mkdir(parents=True, exist_ok=True)
        for name, data in seeds():
            (folder / name).write_bytes(data[:MAX_SEED])


if __name__ == "__main__":
    main()
