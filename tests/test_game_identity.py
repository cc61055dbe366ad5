"""A game's identity is its content (issue 54, item 4): its players as ``players`` knows them and its moves,
and its date where both records have one. The same game in two formats or under other tags is one game,
named as a duplicate by ``validate``, ``analyze``, ``players`` and books; games that only share their
moves stay apart; a folder written with the former ids (every header hashed) is recognised, not analysed
again."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest
from click.testing import CliRunner
from taldau.analysis.annotate import StoredAnalysis, annotate_stored
from taldau.analysis.book import BookSettings, build_book
from taldau.analysis.folder import open_folder
from taldau.analysis.players import players
from taldau.analysis.validation import Summary, check_paths
from taldau.base.identity import FirstFound, former_game_id, game_id, same_game
from taldau.base.records import ReadLimits
from taldau.cli.main import main
from taldau.games.backgammon.kind import BackgammonKind
from taldau.games.backgammon.records.writer import write_jellyfish
from taldau.games.registry import game_kind
from taldau.games.togyz.kind import TogyzKind

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
PLAYOK = EXAMPLES / "togyz" / "playok-2024-2025-sample.pgn"
APP = EXAMPLES / "togyz" / "app-export.pgn"
SGF = EXAMPLES / "backgammon" / "gnubg-galaxy-8170603.sgf"
MOVES = "1. 76(10) 98 2. 66 87(4) 1-0"  # a short game: the line two different games may share


def game(white: str, black: str, date: str | None = None, event: str = "e") -> str:
    """A short PlayOK record of MOVES between ``white`` and ``black``, dated when ``date`` is given."""
    dated = "" if date is None else f'[Date "{date}"]\n'
    return f'[Event "{event}"]\n{dated}[White "{white}"]\n[Black "{black}"]\n\n{MOVES}\n\n'


def notes(*paths: Path) -> tuple[list[str], Summary]:
    """What ``validate`` notes of ``paths`` (duplicates, files with no game), and its summary."""
    summary, said = Summary(), []
    for check in check_paths(paths, ReadLimits()):
        note = summary.add(check)
        if note is not None:
            said.append(note.describe())
    return said, summary


def analyze(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["analyze", *args, "--depth", "1", "--jobs", "1"])
    return result.exit_code, result.stdout, result.stderr


def test_the_app_export_repeats_two_playok_games_and_each_is_named_a_duplicate() -> None:
    kind = TogyzKind()
    first, second = [g for g in kind.read_games(APP.read_bytes(), str(APP)) if kind.facts(g).valid]
    sample = list(kind.read_games(PLAYOK.read_bytes(), str(PLAYOK)))
    # the bug: every header hashed, so the same game under other tags had another id
    assert first.moves == sample[1].moves and kind.former_identity(first) != kind.former_identity(sample[1])
    assert same_game(kind.identity(first), kind.identity(sample[1]))
    assert same_game(kind.identity(second), kind.identity(sample[3]))
    said, summary = notes(PLAYOK, APP)
    assert said == [
        f"{APP}, game 1: duplicate of {PLAYOK}, game 2",
        f"{APP}, game 2: duplicate of {PLAYOK}, game 4",
    ]
    assert (summary.games, summary.inputs.duplicates) == (7, 2)
    said, _ = notes(APP, PLAYOK)  # in the other order, the PlayOK games are the copies
    assert said == [
        f"{PLAYOK}, game 2: duplicate of {APP}, game 1",
        f"{PLAYOK}, game 4: duplicate of {APP}, game 2",
    ]


def test_validate_names_the_duplicates_on_the_command_line() -> None:
    result = CliRunner().invoke(main, ["validate", str(PLAYOK), str(APP)])
    assert result.exit_code == 0, result.output
    assert f"{APP}, game 1: duplicate of {PLAYOK}, game 2" in result.output
    assert "2 files, 7 games: 7 valid, 0 invalid, 581 moves; 2 duplicates" in result.output


def test_players_count_abeke93_s_two_games_once_each(tmp_path: Path) -> None:
    out = tmp_path / "out"
    code, _, stderr = analyze(str(PLAYOK), str(APP), "--out", str(out))
    assert code == 0, stderr
    assert f"{APP}, game 1: duplicate of {PLAYOK}, game 2" in stderr
    by_name = {player.name: player.overall.games for player in players([out]).players}
    assert by_name["abeke93"] == 2 and by_name["aianat12"] == 2
    # the app export analysed in a folder of its own: across folders, a game counts once too
    apart = tmp_path / "apart"
    assert analyze(str(APP), "--out", str(apart))[0] == 0
    both = {player.name: player.overall.games for player in players([out, apart]).players}
    assert both == by_name


def test_a_book_of_both_counts_the_opening_once(tmp_path: Path) -> None:
    report = build_book([PLAYOK, APP], tmp_path / "book", BookSettings())
    counts = report.manifest["counts"]
    assert counts["games"] == 7 and report.inputs().duplicates == 2
    single = build_book([PLAYOK], tmp_path / "single", BookSettings()).manifest["counts"]
    assert (counts["plies"], counts["positions"], counts["moves"]) == (
        single["plies"],
        single["positions"],
        single["moves"],
    )


def test_games_that_share_their_moves_but_not_their_players_stay_two(tmp_path: Path) -> None:
    (tmp_path / "a.pgn").write_text(game("aigerim", "nurlan") + game("Bolat", "Dana"), encoding="utf-8")
    (tmp_path / "b.pgn").write_text(game("PlayOK: Aigerim", "NURLAN", event="other"), encoding="utf-8")
    said, summary = notes(tmp_path / "a.pgn", tmp_path / "b.pgn")
    assert said == [f"{tmp_path / 'b.pgn'}, game 1: duplicate of {tmp_path / 'a.pgn'}, game 1"]
    assert summary.games == 2  # the same moves between other players: another game
    (tmp_path / "c.pgn").write_text(game("nurlan", "aigerim"), encoding="utf-8")  # colours swapped
    assert notes(tmp_path / "a.pgn", tmp_path / "c.pgn")[1].games == 3


def test_a_dated_and_an_undated_record_are_one_game_two_dates_two(tmp_path: Path) -> None:
    (tmp_path / "undated.pgn").write_text(game("aigerim", "nurlan"), encoding="utf-8")
    (tmp_path / "dated.pgn").write_text(
        game("aigerim", "nurlan", "2024.12.26") + game("aigerim", "nurlan", "2025-01-03"), encoding="utf-8"
    )
    said, summary = notes(tmp_path / "undated.pgn", tmp_path / "dated.pgn")
    # the undated record is the first dated one's game; the game of another day is another game
    assert said == [f"{tmp_path / 'dated.pgn'}, game 1: duplicate of {tmp_path / 'undated.pgn'}, game 1"]
    assert summary.games == 2
    said, summary = notes(tmp_path / "dated.pgn", tmp_path / "undated.pgn")
    assert said == [f"{tmp_path / 'undated.pgn'}, game 1: duplicate of {tmp_path / 'dated.pgn'}, game 1"]
    assert summary.games == 2
    out = tmp_path / "out"  # analysed: two games, each with its own id and rows
    code, stdout, stderr = analyze(
        str(tmp_path / "dated.pgn"), str(tmp_path / "undated.pgn"), "--out", str(out)
    )
    assert code == 0 and "2 games: 2 analysed" in stdout and "1 duplicate" in stdout, stderr
    assert [player.overall.games for player in players([out]).players] == [2, 2]


def test_an_id_is_its_content_s_digits_then_its_date_s() -> None:
    day = datetime.date(2024, 12, 26)
    a = game_id("togyz", ("Aigerim", "nurlan"), "fen", [8, 8, 2], day)
    assert len(a) == 16 and int(a, 16) >= 0
    assert a == game_id("togyz", ("playok:aigerim", "NURLAN"), "fen", [8, 8, 2], day)
    assert a != game_id("togyz", ("nurlan", "aigerim"), "fen", [8, 8, 2], day)
    assert a != game_id("togyz", ("aigerim", "nurlan"), "fen", [8, 8, 3], day)
    undated = game_id("togyz", ("aigerim", "nurlan"), "fen", [8, 8, 2], None)
    later = game_id("togyz", ("aigerim", "nurlan"), "fen", [8, 8, 2], day + datetime.timedelta(days=1))
    assert same_game(a, undated) and same_game(undated, later) and not same_game(a, later)
    former = former_game_id("togyz", {"White": "a", "Black": "b"}, "fen", [8, 8, 2])
    assert former == former_game_id("togyz", {"Black": "b", "White": "a"}, "fen", [8, 8, 2])
    assert former != former_game_id("togyz", {"White": "a", "Black": "b", "Site": "x"}, "fen", [8, 8, 2])
    found: FirstFound[str] = FirstFound()
    assert found.first(undated, "u") == "u" and found.first(later, "l") == "u"
    assert found.first(a, "a") == "a"  # the undated game took the later date: this is another game
    assert found.find(a) == "a" and found.find(undated) == "u"


def test_a_match_as_mat_and_as_sgf_is_one_match(tmp_path: Path) -> None:
    kind = BackgammonKind()
    sgf = list(kind.read_games(SGF.read_bytes(), str(SGF)))
    text = write_jellyfish(sgf[0].match)  # as another program exports it: other tags, no date
    lines = [line for line in text.splitlines() if not line.startswith(("; [Site", "; [EventDate"))]
    mat = tmp_path / "match.mat"
    mat.write_text('; [Transcriber "someone"]\n' + "\n".join(lines) + "\n", encoding="utf-8")
    again = list(kind.read_games(mat.read_bytes(), str(mat)))
    assert [len(g.record.actions) for g in again] == [len(g.record.actions) for g in sgf]
    assert all(kind.former_identity(a) != kind.former_identity(b) for a, b in zip(sgf, again, strict=True))
    assert all(same_game(kind.identity(a), kind.identity(b)) for a, b in zip(sgf, again, strict=True))
    said, summary = notes(SGF, mat)
    assert len(said) == len(sgf) and all("duplicate of" in line for line in said)
    assert summary.games == len(sgf) and len({kind.identity(g) for g in sgf}) == len(sgf)


def test_a_folder_of_former_ids_is_recognised_not_analysed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "out"
    with monkeypatch.context() as patch:  # a run of the version that hashed every header
        patch.setattr(TogyzKind, "identity", TogyzKind.former_identity)
        code, _, stderr = analyze(str(PLAYOK), "--out", str(out))
        assert code == 0, stderr
    kind = game_kind("togyz")
    sample = list(kind.read_games(PLAYOK.read_bytes(), str(PLAYOK)))
    former = {kind.former_identity(g) for g in sample}
    stored = {row["game_id"] for row in StoredAnalysis.open(out).games.values()}
    assert stored == former and not stored & {kind.identity(g) for g in sample}
    moves = list(open_folder(out).rows("moves"))
    code, stdout, stderr = analyze(str(PLAYOK), str(APP), "--out", str(out))
    assert code == 0, stderr
    assert "7 resumed" in stderr and "2 duplicates" in stdout  # none analysed again, the copies named
    again = open_folder(out)
    assert list(again.rows("moves")) == moves
    assert {row["game_id"] for row in again.rows("games")} == former
    assert again.manifest.counts.games == 7 and again.manifest.folder.games == 7  # none lost
    assert {player.name: player.overall.games for player in players([out]).players}["abeke93"] == 2
    texts = [item for item in annotate_stored(StoredAnalysis.open(out), "short") if isinstance(item, str)]
    assert len(texts) == 7  # the stored judgements are found under the former ids
    code, _, stderr = analyze(str(PLAYOK), "--out", str(out), "--no-resume")
    assert code == 0, stderr
    renamed = open_folder(out)  # analysed again: stored under the content ids, the former rows dropped
    assert {row["game_id"] for row in renamed.rows("games")} == {kind.identity(g) for g in sample}
    assert renamed.manifest.folder.games == 7 and renamed.table("moves").num_rows == len(moves)
