"""Names and texts read from records never drive the terminal (issue 54, item 3): every control character
(C0 but the line break, DEL, C1) that a command writes is escaped as ``\\u001b``, in every command, under
CliRunner and as a real process; a progress bar keeps its own cursor movements; ``--json`` stays JSON and
reads back to the names as recorded."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result
from conftest import EXAMPLES
from taldau.cli.main import main
from taldau.cli.progress import progress_line
from taldau.cli.terminal import CONTROLS, EscapedStream, escaped, escaped_output

OSC52 = "\x1b]52;c;aGVsbG8=\x07"  # writes "hello" to the clipboard on some terminals
WHITE = f"{OSC52}Eve\x01\x08\x7f\x85\x9b"
BLACK = "Bob\x9d\x1b[2J\x0b!"
EVENT = "Cup\x1b]0;pwned\x07\x0c\x9c!"
RAW = re.compile("[" + "".join(chr(code) for code in CONTROLS if code != 0x0A) + "]")
TAIL = re.compile(r"\\u0{0,3}$|\\u[0-9a-f]{0,3}(?![0-9a-f])")  # an escape cut short


def evil_archive(folder: Path) -> Path:
    """A folder of a PlayOK game whose players, event and comment hold control characters, and of a game
    with one in a move (invalid); returns it."""
    text = (EXAMPLES / "togyz" / "playok-2024-2025-sample.pgn").read_text(encoding="utf-8")
    game = "[Event" + text.split("\n\n[Event")[5]  # 24 plies
    game = re.sub(r'\[White "[^"]*"\]', f'[White "{WHITE}"]', game)
    game = re.sub(r'\[Black "[^"]*"\]', f'[Black "{BLACK}"]', game)
    game = re.sub(r'\[Event "[^"]*"\]', f'[Event "{EVENT}"]', game)
    game = game.replace("\n\n1.", "\n\n{a comment\x1b]52;c;eA==\x07\x9b}\n1.", 1)
    bad = f'[Event "{EVENT}"]\n[White "{WHITE}"]\n[Black "{BLACK}"]\n\n1. 87(10) 8\x1b[2J6 *\n'
    folder.mkdir()
    (folder / "evil.pgn").write_text(game + "\n" + bad, encoding="utf-8")
    return folder


def clean(result: Result | subprocess.CompletedProcess[str], name: str) -> str:
    """The command's stdout and stderr together once they are free of raw control characters, tracebacks
    and escapes cut short."""
    output = result.stdout + result.stderr
    assert "Traceback" not in output, (name, output)
    assert RAW.search(output) is None, (name, output)
    return output


@pytest.fixture(scope="module")
def evil(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The archive, and its analysis at depth 1."""
    root = tmp_path_factory.mktemp("evil")
    records = evil_archive(root / "records")
    out = root / "analysis"
    result = CliRunner().invoke(
        main, ["analyze", str(records), "--out", str(out), "--depth", "1", "--jobs", "1", "--game", "togyz"]
    )
    clean(result, "analyze")
    assert result.exit_code == 1  # one game invalid
    return {"records": records, "analysis": out, "root": root}


def test_escaped_escapes_every_control_but_the_line_break_and_cuts_between_characters() -> None:
    assert escaped(WHITE) == "\\u001b]52;c;aGVsbG8=\\u0007Eve\\u0001\\u0008\\u007f\\u0085\\u009b"
    assert escaped("a\tb\r\nc") == "a\\u0009b\\u000d\nc" and escaped("Магжан é ₸") == "Магжан é ₸"
    assert json.loads(f'"{escaped(WHITE)}"') == WHITE  # JSON's own escape
    name = "a" * 20 + OSC52
    assert escaped(name, 23) == "a" * 20 and escaped(name, 26) == "a" * 20 + "\\u001b"
    assert all(TAIL.search(escaped(name, width)) is None for width in range(40))


def test_a_stream_escapes_what_it_is_given_and_takes_no_bytes() -> None:
    shown = io.StringIO()
    stream = EscapedStream(shown)
    assert stream.write(BLACK) == len(BLACK) and shown.getvalue() == escaped(BLACK)
    with pytest.raises(TypeError):
        stream.write(b"")  # type: ignore[arg-type]  # how click tells a binary stream


def test_every_command_escapes_the_records_text(evil: dict[str, Path], tmp_path: Path) -> None:
    """validate, analyze, annotate (afresh and from the analysis), players, book build and report: the
    names, event, comment and the bad move, all escaped."""
    records, analysis = str(evil["records"]), str(evil["analysis"])
    runner = CliRunner()
    commands = {
        "validate": ["validate", records],
        "analyze again": ["analyze", records, "--out", analysis, "--depth", "1", "--jobs", "1"],
        "annotate": ["annotate", records, "--depth", "1"],
        "annotate DIR": ["annotate", analysis],
        "players": ["players", analysis, "--by", "event"],
        "players --player": ["players", analysis, "--player", WHITE],
        "book build": ["book", "build", records, "--out", str(tmp_path / "book"), "--min-games", "1"],
        "report": ["report", analysis, "--out", str(tmp_path / "site")],
    }
    seen = ""
    for name, args in commands.items():
        seen += clean(runner.invoke(main, args), name)
    for text in (WHITE, EVENT, "Bob\x9d"):  # (a reader drops the colour and clear-screen codes of BLACK)
        assert escaped(text) in seen, text
    assert "[2J6' is not a move" in seen  # the invalid move, quoted in its error


def test_players_cuts_a_long_name_after_escaping_it(evil: dict[str, Path]) -> None:
    result = CliRunner().invoke(main, ["players", str(evil["analysis"])])
    output = clean(result, "players")
    (row,) = [line for line in output.splitlines() if line.startswith("\\u001b]52")]
    name = row[:24].rstrip()
    assert name == escaped(WHITE, 23) and len(name) <= 23 and TAIL.search(name) is None


def test_json_outputs_read_back_to_the_names_as_recorded(evil: dict[str, Path]) -> None:
    runner = CliRunner()
    validated = runner.invoke(main, ["validate", "--json", str(evil["records"])])
    clean(validated, "validate --json")
    games = json.loads(validated.stdout)["games"]
    assert [game["players"] for game in games] == [[WHITE, BLACK], [WHITE, BLACK]]
    found = runner.invoke(main, ["players", str(evil["analysis"]), "--json", "--by", "event"])
    clean(found, "players --json")
    report = json.loads(found.stdout)
    assert {player["name"] for player in report["players"]} == {WHITE, BLACK}
    assert all(set(player["periods"]) == {EVENT} for player in report["players"])


def test_as_real_processes_no_control_byte_reaches_the_terminal(evil: dict[str, Path]) -> None:
    """The installed command, its stdout and stderr pipes read as bytes: no byte below 0x20 but the line
    break, no DEL, no C1 character."""
    program = Path(sys.executable).with_name("taldau")
    environment = os.environ | {"NUMBA_DISABLE_JIT": os.environ.get("NUMBA_DISABLE_JIT", "0")}
    for args in (
        ["validate", str(evil["records"])],
        ["validate", "--json", str(evil["records"])],
        ["players", str(evil["analysis"])],
        ["annotate", str(evil["analysis"])],
    ):
        done = subprocess.run(
            [str(program), *args], capture_output=True, text=True, encoding="utf-8", env=environment
        )
        clean(done, " ".join(args[:2]))
        if "--json" in args:
            assert json.loads(done.stdout)["games"][0]["players"] == [WHITE, BLACK]


def test_a_progress_bar_keeps_its_cursor_and_escapes_the_lines_above_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On a terminal the bar writes its own control sequences; a note and what a command echoes while the
    bar shows are escaped all the same."""

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stdout", Terminal())
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setenv("TERM", "xterm")
    monkeypatch.setenv("COLUMNS", "200")  # a line of the escaped names unwrapped, whatever ran before
    with escaped_output(), progress_line("reading", "game", 2) as shown:
        shown.note(f"skipped: {WHITE}")
        click.echo(f"said: {BLACK}", err=True)
        shown.update(2)
    written = terminal.getvalue()
    assert escaped(WHITE) in written and escaped(BLACK) in written
    assert OSC52 not in written and "\x1b[2J" not in written
    assert "\x1b[" in written  # the bar's own cursor movements
