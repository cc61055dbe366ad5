"""eXtreme Gammon's match files (``games/backgammon/records/xg.py``): the sample match saved by XG as
``.xg`` gives the games of XG's own ``.mat`` and ``.txt`` exports and of gnubg's ``.sgf``, XG's stored
analysis is read for every decision XG analysed, and damaged files cost one error and never the other
games."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from conftest import SHARED_DATA
from fuzz.seeds import XG_RECORD, xg_file, xg_records
from taldau.base.records import ReadLimits, RecordFile
from taldau.cli.main import main
from taldau.games.backgammon import ActionKind, Position, Termination, read_games
from taldau.games.backgammon.records.jellyfish import read_jellyfish
from taldau.games.backgammon.records.replay import Game, replay_file
from taldau.games.backgammon.records.xg import read_xg
from taldau.games.backgammon.review.cubes import CubeChoice
from taldau.games.backgammon.rules.cube import DecisionKind

SAMPLE = SHARED_DATA / "backgammon" / "xg"
XG = SAMPLE / "hsbt-paris-2023.xg"
needs_sample = pytest.mark.skipif(
    not XG.exists(), reason="needs ../shared/data/backgammon/xg (the XG sample)"
)


def replayed(path: Path) -> list[Game]:
    return list(replay_file(RecordFile(str(path), lambda: path.open("rb"), ReadLimits())))


def fields(game: Game) -> dict[str, Any]:
    """Everything a game is, whatever file it was read from: a roll never played is one whether the file
    writes it ``????`` (unrecorded) or as dice alone before a resignation (gnubg's SGF)."""
    steps = [
        (
            step.action.player,
            step.action.kind,
            tuple(sorted(step.action.dice or ())),
            step.action.value,
            step.play.result if step.play is not None else None,
        )
        for step in game.steps
    ]
    return {
        "players": game.match.players,
        "length": game.match.length,
        "crawford": game.match.crawford,
        "jacoby": game.match.jacoby,
        "beavers": game.match.beavers,
        "index": game.index,
        "score": game.start.score,
        "crawford game": game.start.crawford_game,
        "steps": steps,
        "winner": game.winner,
        "points": game.points,
        "termination": game.termination,
        "value": game.value,
        "cube": game.cube,
        "valid": game.valid,
    }


@needs_sample
@pytest.mark.parametrize("other", ["hsbt-paris-2023.mat", "hsbt-paris-2023.txt", "hsbt-paris-2023.sgf"])
def test_the_sample_gives_the_same_games_in_every_format(other: str) -> None:
    ours, theirs = replayed(XG), replayed(SAMPLE / other)
    assert len(ours) == len(theirs) == 7
    for game, twin in zip(ours, theirs, strict=True):
        mine, expected = fields(game), fields(twin)
        for name in mine:
            assert mine[name] == expected[name], (game.index, name)


@needs_sample
def test_the_sample_s_match() -> None:
    match = read_xg(XG.read_bytes(), XG.name)
    assert match.errors == [] and match.warnings == [] and match.format == "xg"
    assert match.players == ("Kévin Unger", "Maxence Job") and match.length == 7
    headers = match.headers
    assert (headers["Event"], headers["Round"], headers["EventDate"], headers["EventTime"]) == (
        "HSBT Paris 2023",
        "Tableau Or 2",
        "2023.11.26",
        "09.30",
    )
    assert (headers["Crawford"], headers["Jacoby"], headers["Beaver"], headers["CubeLimit"]) == (
        "On",
        "Off",
        "Off",
        "1024",
    )
    games = replayed(XG)
    assert [game.valid for game in games] == [True] * 7
    assert [(game.winner, game.points) for game in games] == [
        (0, 1),
        (0, 2),
        (1, 1),
        (1, 1),
        (1, 2),
        (0, 2),
        (0, 2),
    ]
    assert [game.termination for game in games].count(Termination.RESIGNED) == 3
    assert games[-1].record.match_won and sum(len(game.steps) for game in games) == 348


@needs_sample
def test_the_xg_file_and_xg_s_mat_export_are_one_match() -> None:
    kind_games = {path.suffix: replayed(path) for path in (XG, SAMPLE / "hsbt-paris-2023.mat")}
    from taldau.games.registry import game_kind

    kind = game_kind("backgammon")
    ids = {suffix: [kind.identity(game) for game in games] for suffix, games in kind_games.items()}
    assert ids[".xg"] == ids[".mat"]


def verdicts(kind: DecisionKind) -> list[tuple[int, int, str, str, str, float]]:
    match = read_xg(XG.read_bytes(), XG.name)
    return [
        (game.index, action.number, action.text, verdict.level, verdict.best, verdict.loss)
        for game in match.games
        for action in game.actions
        for verdict in action.verdicts
        if verdict.kind is kind
    ]


@needs_sample
def test_xg_s_analysis_is_kept_for_every_decision_it_analysed() -> None:
    match = read_xg(XG.read_bytes(), XG.name)
    rolls = [action for game in match.games for action in game.actions if action.kind is ActionKind.ROLL]
    plays = [action for action in rolls if not action.unrecorded]
    # every play XG analysed (all 331 played, the three rolls before a resignation were not)
    assert all(sum(v.kind is DecisionKind.MOVE for v in action.verdicts) == 1 for action in plays)
    assert len(plays) == 331 and all(action.verdicts[-1].judge == "XG" for action in plays)
    moves, cubes, takes = (verdicts(kind) for kind in DecisionKind)
    assert len(cubes) == 202 and len(takes) == 7
    assert {verdict[3] for verdict in moves} == {"XG Roller++", "4-ply", "3-ply", "2-ply", "book"}
    assert all(verdict[5] >= 0 for verdict in moves + cubes + takes)
    answers = {str(choice) for choice in CubeChoice}
    assert {verdict[4] for verdict in cubes + takes} <= answers
    # by hand, from the file's records: game 1, move 2, Maxence Job's 11 (XG Roller++: 24/22(2), -0.0561)
    assert moves[3][:5] == (1, 2, "11: 24/23 23/22 22/21 21/20", "XG Roller++", "24/22(2)")
    assert moves[3][5] == pytest.approx(0.056139, abs=1e-6)
    # game 4, move 11: a take passed (no double 0.9182, double/take 0.9939, double/pass 1: take, 0.0061)
    [passed] = [verdict for verdict in takes if verdict[:2] == (4, 11)]
    assert passed[2:5] == ("Drops", "XG Roller++", "take") and passed[5] == pytest.approx(0.006051, abs=1e-6)
    # game 5, move 9: a double XG calls wrong at 4-ply (no double 0.1132 against double/take -0.1710)
    [doubled] = [verdict for verdict in cubes if verdict[:3] == (5, 9, "Doubles => 2")]
    assert doubled[2:5] == ("Doubles => 2", "4-ply", "no double")
    assert doubled[5] == pytest.approx(0.284224, abs=1e-6)
    # game 1, move 15: no double where XG doubles (and the opponent would pass): 1 - 0.9783
    [waited] = [verdict for verdict in cubes if verdict[:3] == (1, 15, "41: 4/off 3/2")]
    assert waited[3:] == ("XG Roller++", "double", pytest.approx(0.021711, abs=1e-6))


@needs_sample
def test_xg_s_best_plays_are_legal_plays_of_the_replayed_positions() -> None:
    for game in replayed(XG):
        for step in game.steps:
            for verdict in step.action.verdicts:
                if verdict.kind is DecisionKind.MOVE:
                    assert step.action.dice is not None
                    legal = {play.text for play in step.position.plays(step.action.dice)}
                    assert verdict.best in legal, (game.index, step.action.number, verdict.best)


@needs_sample
def test_validate_and_analyze_the_xg_file(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["validate", str(XG)])
    assert result.exit_code == 0, result.output
    assert "1 file, 7 games: 7 valid, 0 invalid" in result.output
    out = tmp_path / "analysis"
    command = ["analyze", str(XG), "--out", str(out), "--depth", "0", "--jobs", "1"]
    result = CliRunner().invoke(main, command)
    assert result.exit_code == 0, result.output
    assert "7 games" in result.output


@needs_sample
def test_a_directory_reads_the_xg_file() -> None:
    result = CliRunner().invoke(main, ["validate", str(SAMPLE)])
    assert "hsbt-paris-2023.xg: a .xg file" not in result.output
    assert "21 games: 21 valid, 0 invalid" in result.output


# --- damaged files ------------------------------------------------------------------------------------------


def one_line(data: bytes, name: str = "broken.xg") -> list[str]:
    """What validate says of a file holding ``data``: its problems, one line each."""
    games = list(read_games(data, name))
    return [str(error) for game in games for error in game.errors]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "not a backgammon record"),
        (b"RGMX" + bytes(9000), "binary data (NUL bytes), not a text game record"),
        (b"RGMH" + bytes(100), "the file ends inside XG's header"),
        (b"RGMH" + bytes(20000), "the archive's directory is missing"),
    ],
)
def test_a_file_that_is_not_xg_s_is_one_error(data: bytes, message: str) -> None:
    [line] = one_line(data)
    assert message in line


@needs_sample
def test_a_file_cut_short_keeps_the_games_before_the_cut() -> None:
    data = XG.read_bytes()
    games = list(read_games(data[: len(data) // 2], "cut.xg"))
    valid = [game for game in games if game.valid]
    assert len(valid) >= 3 and not games[-1].valid
    [error] = games[-1].errors
    assert "cut short" in error.message and f"game {games[-1].index}" in error.message


@needs_sample
def test_a_damaged_record_spoils_its_game_only() -> None:
    records = bytearray(xg_records(XG))
    first_move = next(n for n in range(len(records) // XG_RECORD) if records[n * XG_RECORD + 8] == 3)
    at = 70 * XG_RECORD  # a move entry of game 2
    assert records[at + 8] == 3 and first_move < 70
    struct.pack_into("<2i", records, at + 100, 9, 1)
    games = list(read_games(xg_file(bytes(records)), "damaged.xg"))
    assert [game.valid for game in games] == [True, False, True, True, True, True, True]
    [error] = games[1].errors
    assert error.message.startswith("record 71 (move entry): dice 9 and 1 are not two dice")
    records[5 * XG_RECORD + 8] = 77  # a record of no kind XG writes, in game 1
    games = list(read_games(xg_file(bytes(records)), "damaged.xg"))
    assert [game.valid for game in games][:3] == [False, False, True]
    assert "record 6 (kind 77): not a record XG writes" in games[0].errors[0].message


def test_a_zip_bomb_is_refused() -> None:
    bomb = xg_file(bytes(64 << 20), 9)
    [line] = one_line(bomb, "bomb.xg")
    assert "refused: compressed more than the limit of 100:1" in line


@needs_sample
def test_a_checksum_that_does_not_match_is_a_warning() -> None:
    data = bytearray(XG.read_bytes())
    data[-36:-32] = bytes(4)
    match = read_xg(bytes(data), "crc.xg")
    assert [str(w) for w in match.warnings] == [
        "line 0, column 0: the archive's checksum does not match: the file may be damaged"
    ]
    assert len(match.games) == 7 and not any(game.errors for game in match.games)


@needs_sample
def test_a_play_xg_flags_invalid_is_read_from_the_position_xg_records() -> None:
    records = bytearray(xg_records(XG))
    at = 3 * XG_RECORD  # game 1's first move: 51 played 13/8 24/23, made 13/7 24/23 here (not legal)
    assert records[at + 8] == 3 and struct.unpack_from("<8i", records, at + 68)[:4] == (12, 7, 23, 22)
    struct.pack_into("<4i", records, at + 68, 12, 6, 23, 22)
    after = list(struct.unpack_from("<26b", records, at + 35))
    after[8], after[7] = after[8] - 1, after[7] + 1  # the checker stands on 7, not 8
    struct.pack_into("<26b", records, at + 35, *after)
    struct.pack_into("<i", records, at + 2480, 2)
    game = next(iter(read_games(xg_file(bytes(records)), "invalid.xg")))
    first = game.steps[0]
    assert first.play is not None and first.play.text == "24/23 13/7"
    mover = first.play.result.board[0]  # the mover's checkers, now on the side not on roll
    assert (mover[6], mover[7], mover[12], mover[22], mover[23]) == (1, 3, 4, 1, 1)
    assert "flagged by the record as not a legal play" in str(game.warnings[0])
    assert isinstance(first.play.result, Position)


# --- XG's .mat export ---------------------------------------------------------------------------------------

XG_MAT = """; [Player 1 "Maxence Job"]
; [Player 2 "Kevin Unger"]
; [Match ID "-755933700"]

1 point match

 Game 1
 Kevin Unger : 0                 Maxence Job : 0
  1) 51: 13/8 24/23              33: ???
      Wins 1 point and the match
"""


def test_xg_s_mat_export_reads_as_xg_meant() -> None:
    [match] = read_jellyfish(XG_MAT, "xg.mat")
    assert match.players == ("Kevin Unger", "Maxence Job")
    assert (match.headers["Player 1"], match.headers["Player 2"]) == ("Kevin Unger", "Maxence Job")
    [game] = list(read_games(XG_MAT.encode(), "xg.mat"))
    assert game.valid and game.termination is Termination.RESIGNED and game.winner == 0
    assert game.steps[-1].action.unrecorded
    [warning] = game.warnings
    assert "33: ????: the play was not recorded, the last action of the game" in warning.message
