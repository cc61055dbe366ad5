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
import struct
import sys
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
GNUBG = ROOT / "tests" / "data" / "backgammon" / "gnubg"
XG_SAMPLE = ROOT.parent / "shared" / "data" / "backgammon" / "xg" / "hsbt-paris-2023.xg"
XG_RECORD = 2560
# XG's header of a file with no thumbnail: its mark, version 1, its size (8,232 bytes), no thumbnail.
XG_HEADER = struct.pack("<4sIIqI", b"RGMH", 1, 8232, 0, 0).ljust(8232, b"\x00")
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


def xg_archive(game_file: bytes, level: int = 6) -> bytes:
    """What follows an eXtreme Gammon file's header when it holds ``game_file`` (XG's ``temp.xg``: its
    2,560-byte records) and no thumbnail: the game file compressed with zlib at ``level``, the archive's
    directory of that one file and the archive's closing record with its CRC-32."""
    data = zlib.compress(game_file, level)
    name = b"\x07temp.xg"
    sizes = (len(game_file), len(data), 0, zlib.crc32(game_file))
    entry = struct.pack("<256s256siiiIBB2x", name, b"", *sizes, 0, 0)
    directory = zlib.compress(entry)
    body = data + directory
    return body + struct.pack("<Iiiiii12x", zlib.crc32(body), 1, 1, len(directory), len(data), 1)


def xg_file(game_file: bytes, level: int = 6) -> bytes:
    """An eXtreme Gammon file holding ``game_file`` (see ``xg_archive``) after XG's header."""
    return XG_HEADER + xg_archive(game_file, level)


def xg_records(path: Path) -> bytes:
    """The game file (``temp.xg``) of an eXtreme Gammon file."""
    data = path.read_bytes()
    _, _, _, directory_size, archive_size, _ = struct.unpack_from("<Iiiiii", data, len(data) - 36)
    start = len(data) - 36 - directory_size - archive_size
    return zlib.decompressobj().decompress(data[start:])


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
def backgammon_xg() -> Iterator[tuple[str, bytes]]:
    """The sample's shortest games, each with the match's header and footer, as the archive of an XG file of
    its own (the target adds XG's header, longer than a seed), and the start of the whole sample's."""
    if not XG_SAMPLE.exists():
        return
    records = xg_records(XG_SAMPLE)
    cut = [records[at : at + XG_RECORD] for at in range(0, len(records), XG_RECORD)]
    starts = [number for number, record in enumerate(cut) if record[8] == 1] + [len(cut) - 1]
    for game, (start, end) in enumerate(itertools.pairwise(starts), start=1):
        data = xg_archive(b"".join([cut[0], *cut[start:end], cut[-1]]), 9)
        if len(data) <= MAX_SEED:
            yield f"hsbt-paris-2023-game{game}", data
    yield "hsbt-paris-2023-cut", XG_SAMPLE.read_bytes()[len(XG_HEADER) + 12135 :][:MAX_SEED]


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
