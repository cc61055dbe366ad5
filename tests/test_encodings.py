"""Record files that are not UTF-8 (issue 34, item 7): their code page detected (charset-normalizer), the
game's own preferred where detection is unsure (Togyz: Windows-1251, backgammon: Windows-1252), one test
per encoding seen in real archives, each read back through ``validate --json``.

The files are real games (the bundled PlayOK sample, players ``abeke93`` and ``maks95``; the bundled Galaxy
match, players ``lasse`` and ``simon_haag``) with players renamed and written in the encoding under test.
"""

from __future__ import annotations

import codecs
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import EXAMPLES
from taldau.base.records import ReadLimits, RecordFile, legacy_encoding
from taldau.cli.main import main
from taldau.games.backgammon.kind import BackgammonKind
from taldau.games.togyz import read_games
from taldau.games.togyz.kind import TogyzKind

PLAYOK = (EXAMPLES / "togyz" / "playok-2024-2025-sample.pgn").read_text(encoding="utf-8")
GALAXY = (EXAMPLES / "backgammon" / "galaxy-6800849.txt").read_text(encoding="utf-8")


def players(path: Path) -> list[list[str]]:
    """Each game's players as ``validate --json`` reports them (every game valid)."""
    result = CliRunner().invoke(main, ["validate", "--json", str(path)])
    assert result.exit_code == 0, result.output
    games = json.loads(result.stdout)["games"]
    assert all(game["errors"] == [] for game in games)
    return [game["players"] for game in games]


def renamed_playok(first: str, second: str = "maks95") -> str:
    return PLAYOK.replace("abeke93", first).replace("maks95", second)


def test_togyz_in_windows_1251_with_russian_names(tmp_path: Path) -> None:
    path = tmp_path / "ru.pgn"
    path.write_bytes(renamed_playok("Алексей Смирнов", "Иван Петров").encode("cp1251"))
    found = players(path)
    assert found[:3] == [
        ["Алексей Смирнов", "Иван Петров"],
        ["aianat12", "Алексей Смирнов"],
        ["Иван Петров", "aianat12"],
    ]


def test_togyz_in_latin_1_with_a_german_name(tmp_path: Path) -> None:
    path = tmp_path / "de.pgn"
    path.write_bytes(renamed_playok("Müller").encode("latin-1"))
    assert players(path)[:2] == [["Müller", "maks95"], ["aianat12", "Müller"]]


def test_togyz_one_game_in_latin_1_is_not_read_as_cyrillic(tmp_path: Path) -> None:
    """One game, one name with one letter outside ASCII: the shortest text detection has to place."""
    first = "[Event" + PLAYOK.split("[Event")[1]
    path = tmp_path / "one.pgn"
    path.write_bytes(first.replace("abeke93", "Müller").encode("latin-1"))
    assert players(path) == [["Müller", "maks95"]]


@pytest.mark.parametrize("bom", [b"", codecs.BOM_UTF8], ids=["utf-8", "utf-8-bom"])
def test_togyz_in_utf_8_with_kazakh_names(tmp_path: Path, bom: bytes) -> None:
    path = tmp_path / "kk.pgn"
    path.write_bytes(bom + renamed_playok("Әлібек Қасымов", "Ұлжан Өтегенова").encode("utf-8"))
    found = players(path)
    assert found[0] == ["Әлібек Қасымов", "Ұлжан Өтегенова"] and len(found) == 7
    (game, *_) = read_games(path.read_bytes(), str(path))
    assert game.record.headers["Event"] == "9245757"  # the BOM is not part of the first tag


def test_backgammon_jellyfish_in_windows_1252_with_a_swedish_name(tmp_path: Path) -> None:
    path = tmp_path / "match.txt"
    path.write_bytes(GALAXY.replace("lasse", "Lasse Öster").encode("cp1252"))
    assert players(path) == [["Lasse Öster", "simon_haag"]] * 4


def test_the_games_preference_decides_what_detection_cannot(tmp_path: Path) -> None:
    """Two Cyrillic letters in Windows-1251 are two Latin ones in Windows-1252 (``Ян`` / ``ßí``): nothing
    in so short a text tells them apart, so each game reads them in its players' code page."""
    name = "Ян".encode("cp1251")
    assert name.decode("cp1252") == "ßí"
    togyz = tmp_path / "togyz.pgn"
    togyz.write_bytes(renamed_playok("Ян").encode("cp1251"))
    backgammon = tmp_path / "match.txt"
    backgammon.write_bytes(GALAXY.encode().replace(b"lasse", name))
    assert players(togyz)[0] == ["Ян", "maks95"]
    assert players(backgammon)[0] == ["ßí", "simon_haag"]
    assert TogyzKind.encodings[0] == "cp1251" and BackgammonKind.encodings[0] == "cp1252"
    assert legacy_encoding(name, TogyzKind.encodings) == "cp1251"
    assert legacy_encoding(name, BackgammonKind.encodings) == "cp1252"
    # Where the text says more than the preference, the text wins, for either game.
    assert legacy_encoding("Алексей Смирнов".encode("cp1251"), BackgammonKind.encodings) == "cp1251"
    assert legacy_encoding("Lasse Öster, Müller".encode("cp1252"), TogyzKind.encodings) == "cp1252"


def test_a_legacy_game_past_the_detected_prefix_and_a_mixed_file(tmp_path: Path) -> None:
    """The file is read as a stream: its code page is detected on the first lines that are not UTF-8,
    wherever they are (here after 160 KB of ASCII games); lines that are UTF-8 stay UTF-8."""
    ascii_games = "".join(PLAYOK.replace("PlayOK", f"PlayOK {copy}") for copy in range(30))
    assert len(ascii_games) > 2 * 64 * 1024 and ascii_games.isascii()
    path = tmp_path / "late.pgn"
    path.write_bytes(
        ascii_games.encode()
        + renamed_playok("Алексей Смирнов").encode("cp1251")
        + renamed_playok("Әлібек Қасымов", "Иван Петров").encode("utf-8")
    )
    found = players(path)
    assert len(found) == 32 * 7  # nothing lost or merged
    assert found[30 * 7] == ["Алексей Смирнов", "maks95"]
    assert found[31 * 7] == ["Әлібек Қасымов", "Иван Петров"]


def test_a_record_file_prefers_what_it_is_given() -> None:
    data = renamed_playok("Ян").encode("cp1251")
    plain = RecordFile.of_bytes(data, "f.pgn", ReadLimits())
    assert plain.encodings == () and plain.preferring(("cp1251",)).encodings == ("cp1251",)
    lines = {line.text for line in plain.preferring(("cp1252", "cp1251")).lines()}
    assert '[White "ßí"]' in lines
    lines = {line.text for line in plain.preferring(("cp1251", "cp1252")).lines()}
    assert '[White "Ян"]' in lines
