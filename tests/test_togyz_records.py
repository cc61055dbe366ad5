"""Record readers and writers: every format read and checked, round trips, corrupt records reported."""

from __future__ import annotations

from pathlib import Path

import pytest
from taldau.games.togyz import (
    Game,
    Position,
    Termination,
    read_games,
    write_playok,
    write_scoresheet,
)
from taldau.games.togyz.records import detect_format

EXAMPLE_FORMATS = {
    "playok-2024-2025-sample.pgn": ("playok", 7),
    "app-export.pgn": ("export", 2),
    "tournament-book.txt": ("book", 2),
    "compact.txt": ("compact", 3),
    "scoresheet.txt": ("scoresheet", 2),
}


def games_of(text: str | bytes, source: str = "test.pgn") -> list[Game]:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return list(read_games(data, source))


def example_games(folder: Path, name: str) -> list[Game]:
    return games_of((folder / name).read_bytes(), name)


def pits(game: Game) -> list[int]:
    return [sowing.pit for sowing in game.sowings]


@pytest.mark.parametrize("name", sorted(EXAMPLE_FORMATS))
def test_examples_are_detected_and_replay_cleanly(togyz_examples: Path, name: str) -> None:
    form, count = EXAMPLE_FORMATS[name]
    assert detect_format((togyz_examples / name).read_text(encoding="utf-8-sig")) == form
    games = example_games(togyz_examples, name)
    assert len(games) == count
    for game in games:
        assert game.valid, game.errors
        assert game.record.format == form
        assert game.plies == len(game.record.moves)


def test_the_same_real_game_reads_alike_in_every_format(togyz_examples: Path) -> None:
    playok = example_games(togyz_examples, "playok-2024-2025-sample.pgn")
    # Game 2 of the sample (a kazan win, 84-54) is also game 1 of the export and game 2 of the compact file.
    export = example_games(togyz_examples, "app-export.pgn")[0]
    compact = example_games(togyz_examples, "compact.txt")[1]
    assert pits(export) == pits(compact) == pits(playok[1])
    assert export.final == compact.final == playok[1].final
    assert playok[1].kazans == (84, 54) and playok[1].termination is Termination.KAZAN
    # The book holds the sample's games 3 (a resignation) and 7 (an 81-81 atsyrau draw).
    book = example_games(togyz_examples, "tournament-book.txt")
    assert [pits(game) for game in book] == [pits(playok[2]), pits(playok[6])]
    assert [game.result for game in book] == ["0-1", "1/2-1/2"]
    assert book[1].termination is Termination.ATSYRAU and book[1].kazans == (81, 81)


def test_export_keeps_headers_bom_and_cyrillic_tuzdyk_marks(togyz_examples: Path) -> None:
    raw = (togyz_examples / "app-export.pgn").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and "х".encode() in raw
    first, second = example_games(togyz_examples, "app-export.pgn")
    assert first.record.headers["ID"] == "A-1001" and first.record.headers["WhiteTime"] == "600"
    assert {move.text[-1] for move in first.record.moves if move.tuzdyk} <= set("xXх")
    assert second.record.result is None and second.result == "0-1"  # no result written; the kazan decides


def test_compact_score_prefix_is_checked(togyz_examples: Path) -> None:
    games = example_games(togyz_examples, "compact.txt")
    assert games[0].record.final_score == (30, 132) and games[0].kazans == (30, 132)
    line = (togyz_examples / "compact.txt").read_text().splitlines()[0]
    wrong = games_of(line.replace("30-132", "31-131"), "compact.txt")[0]
    assert [e.message for e in wrong.errors] == ["final score 31-131 recorded, but the moves end 30-132"]


ROUND_TRIP_WRITERS = {
    "playok": write_playok,
    "scoresheet-short": lambda game: write_scoresheet(game, "short"),
    "scoresheet-full": lambda game: write_scoresheet(game, "full"),
}


@pytest.mark.parametrize("writer", sorted(ROUND_TRIP_WRITERS))
@pytest.mark.parametrize("name", sorted(EXAMPLE_FORMATS))
def test_read_write_read_gives_the_same_games(togyz_examples: Path, name: str, writer: str) -> None:
    games = example_games(togyz_examples, name)
    text = "\n".join(ROUND_TRIP_WRITERS[writer](game) for game in games)
    again = games_of(text, f"{name}.{writer}")
    assert len(again) == len(games)
    for before, after in zip(games, again, strict=True):
        assert after.valid, after.errors
        assert pits(after) == pits(before)
        assert after.final == before.final
        assert after.result == before.result and after.termination == before.termination
        for name_, value in before.record.headers.items():
            assert after.record.headers[name_] == (before.result or "*" if name_ == "Result" else value)


def test_playok_writer_reproduces_the_archive_text(togyz_examples: Path) -> None:
    text = (togyz_examples / "playok-2024-2025-sample.pgn").read_text()
    written = "\n".join(write_playok(game) for game in games_of(text))
    assert written.split() == text.split()


def test_scoresheet_glyphs_and_draw_offers_survive_a_round_trip() -> None:
    text = '[Event "glyphs"]\n\n1. 7:6 (10)! 9-8?! 2. 6-6= 8:7?? *\n'
    (game,) = games_of(text)
    assert game.valid, game.errors
    assert [move.glyph for move in game.record.moves] == ["!", "?!", None, "??"]
    assert [move.draw_offer for move in game.record.moves] == [False, False, True, False]
    (again,) = games_of(write_scoresheet(game, "full"))
    assert [move.glyph for move in again.record.moves] == ["!", "?!", None, "??"]
    assert again.record.moves[2].draw_offer
    marked = write_scoresheet(game, "short", marks={1: "??"})
    assert [move.glyph for move in games_of(marked)[0].record.moves] == [None, "??", None, None]


def test_seed_scoresheet_examples() -> None:
    short = games_of("1. 7:6 (10) 9-8 2. 6-6 8:7")[0]
    assert short.valid and short.record.format == "scoresheet" and short.plies == 4
    assert short.final.kazan(0) == 10 and short.final.kazan(1) == 4
    # The seed's full-form example is a real game, except that it writes ':' on the quiet move 510:511
    # and 231 (pit 2 holding 31) where pit 2 holds 13.
    seed = "1. 79:610 79:610 2. 510:511 910:912 3. 111:212 810:814 4. 231:512 92:13х 5. 92:114!"
    game = games_of(seed)[0]
    assert [(e.line, e.column) for e in game.errors] == [(1, 21), (1, 59)]
    assert "written with ':' (capturing), but the move takes nothing" in game.errors[0].message
    assert "recorded 31 stones in pit 2, but it holds 13" in game.errors[1].message
    fixed = games_of(seed.replace("510:511", "510-511").replace("231:", "213:"))[0]
    assert fixed.valid, fixed.errors
    assert fixed.plies == 9 and fixed.final.tuzdyk(1) == 1


# --- corrupt records: each names line, column and token, and the next game is still read ------------------

GOOD = '[Event "good"]\n[Result "*"]\n\n1. 87(10) 87(10) 2. 22 99(22) *\n'


def corrupt_then_good(movetext: str) -> tuple[Game, Game]:
    first, second = games_of(f'[Event "bad"]\n[Result "*"]\n\n{movetext}\n\n{GOOD}')
    assert second.valid and second.plies == 4, "the game after a bad one is read as usual"
    return first, second


@pytest.mark.parametrize(
    ("movetext", "column", "message"),
    [
        ("1. 87(10) 87(10) 2. 89 11 3. 89 12", 30, "move 3. 89: illegal, White's pit 8 is empty"),
        (
            "1. 87(10) 86(10)",
            11,
            "move 1... 86(10): recorded destination pit 6, but the last stone falls in White's pit 7",
        ),
        ("1. 87(12) 87(10)", 4, "move 1. 87(12): recorded kazan (12), but White's kazan is 10 after it"),
        ("1. 87X 87(10)", 4, "move 1. 87X: marked as making a tuzdyk, but no tuzdyk is made"),
        ("1. 87(10) 87(10) 3. 22", 18, "move number 3. where 2. was due"),
        ("1. 87(10) 8@7 2. 22", 11, "'8@7' is not a move"),
        ("1. 87(10) 87(10) 0-1", 18, None),
    ],
)
def test_corrupt_moves_are_reported_where_they_are(movetext: str, column: int, message: str | None) -> None:
    bad, _ = corrupt_then_good(movetext)
    if message is None:  # a wrong result is only an error when the game ended by the rules
        assert bad.valid and bad.result == "0-1" and bad.termination is Termination.RECORD
        return
    assert not bad.valid
    error = bad.errors[0]
    assert (error.line, error.column) == (4, column)
    assert message in error.message


def test_missing_tuzdyk_mark_is_reported(togyz_examples: Path) -> None:
    text = (togyz_examples / "playok-2024-2025-sample.pgn").read_text()
    first = text.split("\n\n[Event")[0]
    broken = first.replace("68X", "68", 1)
    (game,) = games_of(broken)
    assert any("makes a tuzdyk of Black's pit 8 but is not marked X" in e.message for e in game.errors)


def test_wrong_result_of_a_finished_game_is_reported(togyz_examples: Path) -> None:
    text = (togyz_examples / "playok-2024-2025-sample.pgn").read_text()
    first = text.split("\n\n[Event")[0]  # ends 0-1 {zero}: Black wins by atsyrau, 30-132
    (game,) = games_of(first.replace(" 0-1 {zero}", " 1-0 {zero}"))
    assert [e.message for e in game.errors] == [
        "result 1-0 recorded, but the game ended by atsyrau, 0-1 (30-132)"
    ]
    (game,) = games_of(first.replace("46. 91 12 0-1", "46. 91 12 47. 12 0-1"))
    assert "the game was already over (by atsyrau, 0-1 (30-132))" in game.errors[0].message


def test_truncated_header_is_reported_and_the_game_still_read() -> None:
    bad, good = games_of('[Event "cut\n[White "a"]\n\n1. 87(10) 87(10) *\n\n' + GOOD)
    assert [(e.line, e.column) for e in bad.errors] == [(1, 1)]
    assert "header is not closed" in bad.errors[0].message
    assert bad.record.headers == {"White": "a"} and bad.plies == 2
    assert good.valid


def test_garbage_bytes_between_games_are_reported_and_skipped() -> None:
    garbage = bytes(range(0x80, 0xC0)) + b" \xff\xfe junk"
    data = GOOD.encode() + b"\n" + garbage + b"\n\n" + GOOD.encode()
    games = games_of(data)
    assert [game.valid for game in games] == [True, False, True]
    assert games[1].errors[0].line == 6 and "is not a move" in games[1].errors[0].message


def test_binary_and_empty_files_give_one_error_each() -> None:
    (binary,) = games_of(b"\x00\x01\x02PK", "image.bin")
    assert binary.record.index == 0 and "binary data" in binary.errors[0].message
    (empty,) = games_of(b"", "empty.pgn")
    assert empty.record.index == 0 and empty.errors[0].message == "empty file: no game record found"
    (blank,) = games_of(b"  \n\n", "blank.pgn")
    assert "no game record found" in blank.errors[0].message


def test_fen_header_starts_from_a_set_position() -> None:
    fen = "10S,9S,9S,9S,9S,9S,t,9S,9S/9S,1,9S,9S,9S,9S,9S,9S,9S 13 4 N 5"
    (game,) = games_of(f'[FEN "{fen}"]\n\n5... 19 6. 19 *\n')
    assert game.valid, game.errors
    assert game.positions[0] == Position.from_fen(fen) and game.plies == 2
    (bad,) = games_of('[FEN "nonsense"]\n\n1. 11 *\n')
    assert "FEN header" in bad.errors[0].message
