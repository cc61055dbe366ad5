"""The 2,398 real games of the shared PlayOK archive replay with every recorded claim confirmed, read from
the file or streamed from an archive."""

from __future__ import annotations

import gzip
import io
import tarfile
import zipfile
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import pytest
from taldau.base.archive import iter_sources
from taldau.base.records import ReadLimits, RecordFile
from taldau.games.togyz import GameRecord, Termination, read_file, read_games, read_records

pytestmark = pytest.mark.archive


@pytest.mark.slow
def test_every_real_game_replays_and_agrees_with_its_result(playok_archive: Path) -> None:
    games = list(read_games(playok_archive.read_bytes(), playok_archive.name))
    assert len(games) == 2_398
    invalid = [(game.record.index, game.errors[0]) for game in games if not game.valid]
    assert invalid == []
    assert all(game.plies == len(game.record.moves) for game in games)
    endings = Counter(game.termination for game in games)
    assert endings[Termination.KAZAN] + endings[Termination.ATSYRAU] + endings[Termination.RECORD] == 2_398
    for game in games:
        if game.termination in (Termination.KAZAN, Termination.ATSYRAU):
            assert game.outcome is not None and game.outcome.result == game.record.headers["Result"]
        # PlayOK marks exactly the atsyrau endings with {zero}.
        assert ("zero" in game.record.comments) == (game.termination is Termination.ATSYRAU)
    assert max(max(game.kazans) for game in games if game.termination is Termination.KAZAN) == 103


@pytest.mark.slow
def test_the_real_archive_reads_alike_plain_gzipped_zipped_and_tarred(
    playok_archive: Path, tmp_path: Path
) -> None:
    """Streamed through a .gz, a .zip and a .tar.gz within the default limits, the archive gives the same
    2,398 records, none cut: its longest game (371 plies) and line are far below the limits."""
    data = playok_archive.read_bytes()
    (tmp_path / "archive.pgn.gz").write_bytes(gzip.compress(data))
    with zipfile.ZipFile(tmp_path / "archive.zip", "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("playok.pgn", data)
    with tarfile.open(tmp_path / "archive.tar.gz", "w:gz") as archive:
        info = tarfile.TarInfo("playok.pgn")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))

    def summary(records: Iterable[GameRecord]) -> list[tuple[dict[str, str], list[int], bool]]:
        return [
            (record.headers, [move.pit for move in record.moves], not record.errors) for record in records
        ]

    plain = summary(read_records(data, "playok.pgn"))
    assert len(plain) == 2_398 and all(ok for _, _, ok in plain)
    assert max(len(moves) for _, moves, _ in plain) == 371
    for name in ("archive.pgn.gz", "archive.zip", "archive.tar.gz"):
        read = [
            summary(read_file(s))
            for s in iter_sources([tmp_path / name], ReadLimits())
            if isinstance(s, RecordFile)
        ]
        assert read == [plain], name
