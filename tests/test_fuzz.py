"""The fuzz targets of tests/fuzz, without atheris: the stored corpus replayed through every target, and a few
thousand seeded generated inputs (corpus entries with random edits, and texts built from each format's
tokens) through hypothesis. The long coverage-guided runs are in BENCHMARKS.md ("Fuzzing")."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from fuzz.targets import TARGETS, comparable
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from taldau.base.archive import Refused, iter_sources
from taldau.base.records import ReadLimits, UnreadableFile
from taldau.games.backgammon.records.jellyfish import read_jellyfish
from taldau.games.backgammon.records.readers import detect_format as detect_backgammon
from taldau.games.backgammon.records.record import Action, ActionKind, GameRecord, MatchRecord, Segment
from taldau.games.backgammon.records.replay import rules_of
from taldau.games.backgammon.records.sgf import read_sgf
from taldau.games.backgammon.records.writer import write_jellyfish
from taldau.games.togyz import read_games as read_togyz_games
from taldau.games.togyz.fen import FenError, parse_fen

FUZZ = Path(__file__).resolve().parent / "fuzz"
CORPUS = FUZZ / "corpus"  # the minimised corpus of each target
REGRESSIONS = FUZZ / "regressions"  # inputs that broke a target once, kept whole
EXAMPLES_PER_TARGET = 300

# Pieces of each target's input language; generated inputs are random sequences of them and of stray text.
TOKENS: dict[str, tuple[str, ...]] = {
    "togyz_records": (
        "1.",
        "2.",
        "12...",
        "1-0",
        "0-1",
        "1/2-1/2",
        "*",
        "{zero}",
        "{",
        "}",
        ";",
        "\n",
        " ",
        "\t",
        '[Event "x"]\n',
        '[FEN "9S,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S 0 0 S 1"]\n',
        "76",
        "87(10)",
        "22X",
        "7:6",
        "9-8",
        "79:610",
        "(10)",
        "!",
        "?!",
        "=",
        "х",
        "Result 1 - 0",
        "Result 0,5 - 0,5",
        "1.\t76\t98\n",
        "82-10, ",
        "95857232999",
        "99999999999",
        "\ufeff",
    ),
    "togyz_fen": ("9S", "t", "1", "9", "0", ",", "/", " ", "S", "N", "162", "10S", "²", "99999999999"),
    "backgammon_jellyfish": (
        " 7 point match\n",
        " 0 point match\n",
        " Game 1\n",
        " Game 2\n",
        " a : 0",
        "     b : 0\n",
        "  1)",
        " 31:",
        " 64:",
        " 8/5",
        " 6/5",
        " 24/18",
        " 13/7*/5",
        " 24/22(2)",
        " bar/20",
        " 6/off",
        " 25/22",
        " 6/0",
        " Doubles => 2",
        " Takes",
        " Drops",
        " Beavers => 4",
        " Wins 1 point",
        " Wins 2 points and the match",
        " Losses 2 point",
        " Cannot Move",
        " ????",
        "\n",
        "      ",
        '; [Player 1 "a"]\n',
        '; [Crawford "Off"]\n',
        '; [CubeLimit "8"]\n',
        " 99999999999",
    ),
    "backgammon_sgf": (
        "(;FF[4]GM[6]",
        "MI[length:7][game:0][ws:0][bs:0]",
        "MI[game:1]",
        "PW[a]PB[b]",
        "RU[Crawford]",
        "RE[W+2]",
        "RE[B+1R]",
        ";B[31hegf]",
        ";W[64xrrn]",
        ";W[double]",
        ";B[take]",
        ";B[drop]",
        ";W[beaver]",
        ";PL[W]DI[62]",
        "CV[2]",
        "(",
        ")",
        ";",
        "[",
        "]",
        "\\",
        " ",
        "\n",
        "99999999999",
    ),
    "backgammon_xg": ("\x00", "\x01", "\xff", "x\x9c", "temp.xg", "RGMH", "DMLI", "\x00" * 64),
    "backgammon_ids": (
        "4HPwATDgc/ABMA",
        "cAngAAAAAAAE",
        ":",
        "XGID=",
        "-b----E-C---eE---c-e----B-",
        "0",
        "1",
        "-1",
        "00",
        "52",
        "D",
        "B",
        "R",
        "7",
        "10",
        "A",
        "a",
        "/",
        "+",
        " ",
        "99999999999",
    ),
}
TOKENS["detect"] = TOKENS["togyz_records"] + TOKENS["backgammon_jellyfish"] + TOKENS["backgammon_sgf"]
TOKENS["archive"] = ("\x00", "\x01", "\x05", "PK\x03\x04", "ustar", "\x1f\x8b\x08", "a.pgn", "b/c.txt")


def corpus(target: str) -> list[Path]:
    """The stored inputs of one target: its corpus and its regressions."""
    kept = [CORPUS / target, REGRESSIONS / target]
    return [path for folder in kept if folder.is_dir() for path in sorted(folder.iterdir())]


@st.composite
def generated(draw: st.DrawFn, target: str) -> bytes:
    """A stored input with a few random edits, or a random sequence of the target's tokens and stray
    characters (drawn from one seeded generator: cheap to make, so the examples go to the readers)."""
    rng = draw(st.randoms(use_true_random=False))
    if rng.random() < 0.5:
        data = bytearray(rng.choice(corpus(target)).read_bytes())
        for _ in range(rng.randint(1, 8)):
            at = rng.randint(0, len(data))
            data[at : at + rng.randint(0, 16)] = rng.randbytes(rng.randint(0, 16))
        return bytes(data)
    tokens = TOKENS[target]
    pieces = [rng.choice(tokens) if rng.random() < 0.8 else chr(rng.randint(0, 0x44F)) for _ in range(60)]
    return "".join(pieces[: rng.randint(0, 60)]).encode("utf-8", errors="surrogatepass")


def test_every_target_has_a_corpus_and_tokens() -> None:
    assert sorted(TOKENS) == sorted(TARGETS)
    assert all(corpus(target) for target in TARGETS)


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_stored_corpus(target: str) -> None:
    for path in corpus(target):
        TARGETS[target](path.read_bytes())


@pytest.mark.parametrize("target", sorted(TARGETS))
def test_generated_inputs(target: str) -> None:
    @settings(
        max_examples=EXAMPLES_PER_TARGET,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(generated(target))
    def check(data: bytes) -> None:
        TARGETS[target](data)

    check()


# --- inputs that fuzzing found: each raised an exception the reader's contract does not allow -------------

START_ROWS = "9S,9S,9S,9S,9S,9S,9S,9S,9S/9S,9S,9S,9S,9S,9S,9S,9S,9S"
HUGE = "9" * 5000  # past Python's 4300-digit limit for reading a number


@pytest.mark.parametrize(
    ("fen", "reason"),
    [
        (START_ROWS.replace("9S", "99999S", 1) + " 0 0 S 1", "'99999S' holds more than the 162 stones"),
        (START_ROWS.replace("9S", "²S", 1) + " 0 0 S 1", "'²S' is not a pit"),
        ("999999999,9S/" + START_ROWS.split("/")[1] + " 0 0 S 1", "describes 999999999 pits, not 9"),
        (f"{START_ROWS} 99999 0 S 1", "White's kazan '99999' is not a number of stones"),
        (f"{START_ROWS} 0 {HUGE} S 1", "Black's kazan '9999"),
        (f"{START_ROWS} 0 0 S ²", "move number '²' must be a whole number"),
    ],
)
def test_fen_counts_out_of_range_are_fen_errors(fen: str, reason: str) -> None:
    with pytest.raises(FenError, match=reason):
        parse_fen(fen)


@pytest.mark.parametrize(
    ("record", "message"),
    [
        (f"1. 11({HUGE})", "has an unreadable suffix"),
        ("1. 11(9999999999)", "'11(9999999999)' has an unreadable suffix '(9999999999)'"),
        (f"1. 1{HUGE}:1{HUGE}", "token longer than the limit of 10,000 characters: '1999"),
        (f"{HUGE}-1, 11", "(5,003 characters): the full scoresheet form needs ':' or '-'"),
        (f'[FEN "{START_ROWS.replace("9S", "99999S", 1)} 0 0 S 1"]\n1. 11', "FEN header: Black's row"),
    ],
)
def test_togyz_records_with_huge_numbers_report_errors(record: str, message: str) -> None:
    games = list(read_togyz_games(record.encode(), "huge.txt"))
    assert len(games) == 1
    assert message in games[0].errors[0].message


def test_jellyfish_numbers_too_long_are_record_errors() -> None:
    text = f" 1 point match\n Game 1\n a : 0  b : 0\n  1) 31: 8/5 6/5\n      Wins {HUGE} points\n"
    [match] = read_jellyfish(text, "huge.mat")
    [error] = match.games[0].errors
    assert (error.line, error.column) == (5, 7) and error.message.startswith("bad result 'Wins 9999")
    [match] = read_jellyfish(f" {HUGE} point match\n Game 1\n a : 0  b : 0\n  1) 31: 8/5 6/5\n", "huge.mat")
    assert match.length == 0 and match.errors[0].message.startswith(f"match length '{HUGE[:10]}")


def test_sgf_numbers_that_are_not_counts_are_ignored() -> None:
    text = f"(;FF[4]GM[6]MI[length:3][game:{HUGE}][ws:²][bs:1]CV[²];W[31hegf])"
    [match] = read_sgf(text, "huge.sgf")
    [game] = match.games
    assert (match.length, game.index, game.score) == (3, 1, None)
    [match] = read_sgf("(;FF[4]GM[6]MI[length:3][game:0][ws:-5][bs:1];W[31hegf])", "negative.sgf")
    assert match.games[0].score is None


def test_cube_limit_header_of_other_digits_is_no_limit() -> None:
    text = ' ; [CubeLimit "²"]\n 0 point match\n Game 1\n a : 0  b : 0\n  1) 31: 8/5 6/5\n'
    [match] = read_jellyfish(text, "limit.mat")
    assert match.headers["CubeLimit"] == "²" and rules_of(match).cube_limit == 0


def test_jellyfish_writer_keeps_long_names_apart_on_the_score_line() -> None:
    game = GameRecord(index=1, line=0, score=(0, 3))
    play = (Segment(8, 5), Segment(6, 5))
    game.actions.append(Action(0, ActionKind.ROLL, 0, 0, dice=(3, 1), segments=play))
    long_name = "Backgammon Studio player with a long name"
    match = MatchRecord("made", "jellyfish", {}, (long_name, "b"), 5, [game])
    text = write_jellyfish(match)
    assert f" {long_name} : 0 b : 3" in text.splitlines()
    [again] = read_jellyfish(text, "written")
    assert again.games[0].score == (0, 3) and again.games[0].errors == []


def test_sgf_names_and_places_keep_to_one_line() -> None:
    text = "(;FF[4]GM[6]MI[length:3][game:0][ws:0][bs:0]PW[ann\nlee]PB[bob]"
    text += "PC[Back\r\ngammon\tClub];W[31hegf])"
    [match] = read_sgf(text, "lines.sgf")
    assert match.players == ("ann lee", "bob")
    assert (match.headers["Player 1"], match.headers["Site"]) == ("ann lee", "Back  gammon Club")
    [again] = read_jellyfish(write_jellyfish(match), "written")
    assert again.errors == [] and (again.players, again.headers) == (match.players, match.headers)


def _walk(path: Path) -> list[tuple[str, bytes | str]]:
    """What the archive walk gives for ``path``: each record file's name with its bytes, or with the reason
    it was refused or could not be read."""
    found: list[tuple[str, bytes | str]] = []
    for source in iter_sources([path], ReadLimits()):
        if isinstance(source, Refused):
            found.append((source.name, source.reason))
            continue
        try:
            with source.open() as stream:
                found.append((source.name, stream.read()))
        except UnreadableFile as error:
            found.append((source.name, str(error)))
    return found


def _zip(path: Path, method: int, members: dict[str, bytes]) -> bytes:
    with zipfile.ZipFile(path, "w", compression=method) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path.read_bytes()


@pytest.mark.parametrize(
    ("method", "error"),
    [(zipfile.ZIP_DEFLATED, "invalid distance code"), (zipfile.ZIP_LZMA, "Corrupt input data")],
)
def test_damaged_zip_member_is_refused_and_others_read(tmp_path: Path, method: int, error: str) -> None:
    path = tmp_path / "games.zip"
    data = bytearray(_zip(path, method, {"a.pgn": b"1. 76 98\n" * 200, "b.pgn": b"1. 76 98\n"}))
    offset = 36 if method == zipfile.ZIP_DEFLATED else 39  # inside a.pgn's compressed data
    data[offset : offset + 4] = b"\x00\xff\x13\x37"
    path.write_bytes(data)
    first, second = _walk(path)
    assert first[0] == f"{path}:a.pgn" and isinstance(first[1], str) and error in first[1]
    assert second == (f"{path}:b.pgn", b"1. 76 98\n")


def test_zip_of_an_unknown_zip_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "games.zip"
    data = bytearray(_zip(path, zipfile.ZIP_DEFLATED, {"a.pgn": b"1. 76 98\n" * 200}))
    central = data.find(b"PK\x01\x02")
    data[central + 6] = 255  # "version needed to extract" 25.5
    path.write_bytes(data)
    [(name, reason)] = _walk(path)
    assert name.startswith(str(path)) and isinstance(reason, str) and reason.endswith("zip file version 25.5")


# Lines on which the readers' patterns backtracked for minutes (measured on 4,000-character lines: the score
# line 165 s, the header 124 s; a text of 8,000 blank lines took 5 s to recognise). The inputs are in the
# regressions corpus; here the same lines are checked to read as they did.


def test_a_score_line_of_blanks_is_unreadable_text() -> None:
    [match] = read_jellyfish(" 1 point match\n Game 1\n" + "\t" * 4000 + ":1 x\n", "blanks.mat")
    [error] = match.games[0].errors
    assert match.games[0].score is None and (error.line, error.column, error.message) == (
        3,
        4001,
        "unreadable ':1 x'",
    )


def test_score_lines_keep_their_names_and_columns() -> None:
    text = " 1 point match\n Game 1\n  ann lee : 0     bob : 1 \n  1) 31: 8/5 6/5\n"
    [match] = read_jellyfish(text, "score.mat")
    assert match.players == ("ann lee", "bob") and match.games[0].score == (0, 1)


def test_header_keys_lose_their_blanks_and_a_header_of_blanks_is_ignored() -> None:
    text = "; [" + " " * 4000 + 'x\n; [ Player 1  "ann" ]\n 1 point match\n Game 1\n a : 0   b : 0\n'
    [match] = read_jellyfish(text, "headers.mat")
    assert match.headers == {"Player 1": "ann"} and match.players == ("ann", "")


def test_blank_lines_are_no_backgammon_and_a_match_after_them_is() -> None:
    assert detect_backgammon("\n" * 8000 + "x") is None
    assert detect_backgammon("\n" * 8000 + " 7 point match\n") == "jellyfish"
    assert detect_backgammon(" \n" * 100 + " Game 1\n\n  1) 31: 8/5 6/5\n") == "jellyfish"


def test_sgf_game_numbers_and_names_that_look_like_scores_survive_the_jellyfish_writer() -> None:
    text = "(;FF[4]GM[6]MI[length:3][game:999999999][ws:0][bs:1]PW[a : 1 x]PB[b];W[31hefe])"
    [match] = read_sgf(text, "odd.sgf")
    written = write_jellyfish(match)
    assert " Game 1000000000" in written and " a . 1 x : 0" in written
    [again] = read_jellyfish(written, "written")
    assert again.errors == [] and again.games[0].errors == []
    assert (again.players, again.games[0].index, again.games[0].score) == (
        ("a : 1 x", "b"),
        1000000000,
        (0, 1),
    )


def test_a_long_left_name_leaves_the_columns_as_they_are() -> None:
    game = GameRecord(index=1, line=0, score=(0, 0), winner=1, points=1)
    game.actions.append(
        Action(1, ActionKind.ROLL, 0, 0, dice=(5, 3), segments=(Segment(8, 3), Segment(6, 3)))
    )
    long_name = "a player whose name is far longer than gnubg's column of thirty-one"
    match = MatchRecord("made", "jellyfish", {}, (long_name, "b"), 0, [game])
    lines = write_jellyfish(match).splitlines()
    assert f" {long_name} : 0 b : 0" in lines and "  1)                             53: 8/3 6/3" in lines
    [again] = read_jellyfish("\n".join(lines), "written")
    assert again.games[0].errors == [] and comparable(again) == comparable(match)


def test_fen_move_numbers_stop_where_the_count_still_fits() -> None:
    with pytest.raises(FenError, match="move number '32767' must be a whole number from 1 to 10000"):
        parse_fen(f"{START_ROWS} 0 0 S 32767")
    record = f'[FEN "{START_ROWS} 0 0 S 10000"]\n\n10000. 76 98 10001. 11\n'
    [game] = read_togyz_games(record.encode(), "late.pgn")
    numbers = [position.move_number for position in game.positions]
    assert game.valid and numbers == [10000, 10000, 10001, 10001]


def test_sgf_match_information_around_blanks_python_does_not_strip() -> None:
    [match] = read_sgf("(;FF[4]GM[6]MI[length:\x1e3\x1e][game:\x1e0][ws:0][bs:1];W[31hefe])", "blanks.sgf")
    assert (match.length, match.games[0].index, match.games[0].score) == (3, 1, (0, 1))


def test_zip_member_without_a_name_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "games.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("x.pgn", b"1. 76 98\n")
        archive.writestr("b.pgn", b"1. 11\n")
    data = path.read_bytes()
    path.write_bytes(data.replace(b"x.pgn", b"\x00" * 5))  # zipfile cuts a name at its first NUL
    assert _walk(path) == [(f"{path}:b.pgn", b"1. 11\n")]


def test_zip_with_a_member_name_marked_utf8_that_is_not_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "games.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("é.pgn", b"1. 76 98\n")  # a non-ASCII name: zipfile marks it UTF-8
    path.write_bytes(path.read_bytes().replace("é".encode(), b"\xfe\xff"))
    [(name, reason)] = _walk(path)
    assert name == str(path) and isinstance(reason, str)
    assert reason.startswith("cannot read archive: 'utf-8' codec can't decode")


def test_score_line_keeps_a_left_name_whose_colon_is_no_score() -> None:
    game = GameRecord(index=1, line=0, score=(0, 2))
    play = (Segment(8, 5), Segment(6, 5))
    game.actions.append(Action(0, ActionKind.ROLL, 0, 0, dice=(3, 1), segments=play))
    match = MatchRecord("made", "jellyfish", {}, ("Selbs) 65: 24/18", "b"), 5, [game])
    assert " Selbs) 65: 24/18 : 0           b : 2" in write_jellyfish(match).splitlines()
    [again] = read_jellyfish(write_jellyfish(match), "written")
    assert comparable(again) == comparable(match)


def test_score_line_keeps_a_left_name_ending_in_a_colon_and_digits() -> None:
    text = " 3 point match\n Game 1\n Selbs :    55: 0     paese : 0\n  1) 31: 8/5 6/5\n"
    [match] = read_jellyfish(text, "odd.mat")
    assert match.players == ("Selbs :    55", "paese")
    written = write_jellyfish(match)
    assert " Selbs :    55: 0               paese : 0" in written.splitlines()
    [again] = read_jellyfish(written, "written")
    assert comparable(again) == comparable(match)


def test_a_long_left_name_and_no_right_name_leave_the_columns_as_they_are() -> None:
    game = GameRecord(index=1, line=0, score=(0, 8))
    game.actions.append(
        Action(1, ActionKind.ROLL, 0, 0, dice=(2, 1), segments=(Segment(13, 11), Segment(6, 5)))
    )
    match = MatchRecord(
        "made",
        "jellyfish",
        {},
        ("a left name far longer than gnubg's column, long enough to pass the middle", ""),
        0,
        [game],
    )
    [again] = read_jellyfish(write_jellyfish(match), "written")
    assert again.games[0].errors == [] and comparable(again) == comparable(match)
