"""Every option of every command says what it is for, and the default it takes when not given."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from taldau.cli.main import main
from taldau.games.backgammon.kind import DEFAULT_PLIES
from taldau.games.togyz.review import REVIEW_DEPTH


def commands(command: click.Command, context: click.Context) -> Iterator[tuple[click.Command, click.Context]]:
    """``command`` and every command below it, each with its context under its group's (as `--help` of it
    would make), so that what a group's ``context_settings`` give its commands holds."""
    yield command, context
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            yield from commands(sub, click.Context(sub, parent=context, info_name=name))


def options() -> list[tuple[str, click.Option, click.Context]]:
    """Every option of every command but --help, with the command's path and its context."""
    found = []
    root = click.Context(main, info_name="taldau", **main.context_settings)
    for command, context in commands(main, root):
        path = context.command_path
        for parameter in command.get_params(context):
            if isinstance(parameter, click.Option) and parameter.name != "help":
                found.append((path, parameter, context))
    return found


def test_the_tree_is_walked() -> None:
    paths = {path for path, _, _ in options()}
    assert {"taldau analyze", "taldau book build", "taldau worker", "taldau annotate"} <= paths


@pytest.mark.parametrize("path, option, context", options(), ids=lambda value: getattr(value, "name", value))
def test_every_option_is_described_with_its_default(path: str, option: click.Option, context: click.Context):
    """A help text of its own; a default that is given (not None, not a flag's) shown in it."""
    assert (option.help or "").strip(), f"{path} {option.opts[0]} has no help"
    default = option.get_default(context, call=False)
    if default is not None and default is not click.core.UNSET and not option.is_flag:
        record = option.get_help_record(context)
        assert record is not None and "default:" in record[1], f"{path} {option.opts[0]}: {record}"


def test_the_depth_options_say_each_game_s_default() -> None:
    """The limits a command takes when none is given are read from the games, named once: one Togyz depth
    for analyze, annotate, bench speed and search (issue 54: 12, 12 and 13), and fit-curve's own says why
    it is shallower."""
    runner = CliRunner()
    for command in (["analyze"], ["annotate"], ["bench", "speed"]):
        text = " ".join(runner.invoke(main, [*command, "--help"], terminal_width=200).output.split())
        assert f"[default: (Togyz {REVIEW_DEPTH}, backgammon {DEFAULT_PLIES})" in text, text
    text = " ".join(runner.invoke(main, ["search", "--help"], terminal_width=200).output.split())
    assert (
        f"[default: ({REVIEW_DEPTH}); 1<=x<=100]" in text and "Its depth unless given is a review's" in text
    )
    text = " ".join(runner.invoke(main, ["fit-curve", "--help"], terminal_width=200).output.split())
    assert "[default: (8); 1<=x<=100]" in text
    assert f"Its depth unless given is 8, not the {REVIEW_DEPTH} of every other search" in text


def test_the_backgammon_plies_are_one_range() -> None:
    """Every command that takes backgammon plies offers the same range (eval and plies offered 0 to 4)."""
    runner = CliRunner()
    for command in (["eval"], ["plays"], ["bench", "gnubg"]):
        text = " ".join(runner.invoke(main, [*command, "--help"], terminal_width=200).output.split())
        assert "0<=x<=3" in text and "0<=x<=4" not in text, command
    for command in (["analyze"], ["bench", "speed"]):
        text = " ".join(runner.invoke(main, [*command, "--help"], terminal_width=200).output.split())
        assert "backgammon 0 to 3" in text, command


def test_level_on_togyz_names_what_analyze_takes(tmp_path: Path) -> None:
    """Issue 54, item 12: --level on a Togyz analysis suggested --movetime, which analyze does not take."""
    archive = Path(__file__).resolve().parent / "data" / "book" / "three.pgn"
    command = ["analyze", str(archive), "--out", str(tmp_path / "out"), "--level", "quick"]
    result = CliRunner().invoke(main, command)
    assert result.exit_code == 2 and not (tmp_path / "out").exists()
    assert "Error: --level is backgammon's: Togyz takes --depth or --nodes\n" in result.output
    assert "--movetime" not in result.output


def test_the_engine_default_is_said_once() -> None:
    """bench speed --engine shows one default line, the engine it times."""
    text = " ".join(CliRunner().invoke(main, ["bench", "speed", "--help"], terminal_width=200).output.split())
    engine = text.split("--engine [own|gnubg|sage]")[1].split("--decisions")[0]
    assert engine.count("default") == 1 and "backgammon: own" in engine, engine


def _help(*command: str) -> str:
    """The help of ``command`` on one line."""
    return " ".join(CliRunner().invoke(main, [*command, "--help"], terminal_width=200).output.split())


def test_bench_help_shows_the_benches_own_defaults() -> None:
    """The defaults in bench's help are the constants the benches run with, declared once."""
    from taldau.cli.marks import SAMPLE
    from taldau.measure.capacity import CapacityBench
    from taldau.measure.soak import SoakSettings
    from taldau.workers.defaults import RESULTS, SERVICE_DEPTH, SOAK_GAMES, WORKER_RATE

    text = _help("bench", "soak")
    assert SoakSettings().games == SOAK_GAMES and f"synthetic archive [{SOAK_GAMES:,}]" in text, text
    assert f"Games of the sample. [default: {SAMPLE};" in _help("bench", "marks")
    text = _help("bench", "capacity")
    capacity = CapacityBench(Path("."))
    assert capacity.results == RESULTS and f"of each game [{RESULTS:,}]" in text
    assert capacity.depth == SERVICE_DEPTH and f"review depth [{SERVICE_DEPTH}]" in text
    assert f"at depth {SERVICE_DEPTH})" in _help("bench", "service")
    assert capacity.worker_rate == WORKER_RATE and f"games per second [{WORKER_RATE}, BENCHMARKS.md]" in text


def test_book_max_ply_shows_each_game_s_book_plies() -> None:
    """book build --max-ply's default is each game kind's ``book_plies``."""
    from taldau.games.registry import KINDS

    text = _help("book", "build")
    shown = ", ".join(f"{kind.name} {kind.book_plies}" for kind in KINDS)
    assert f"[default: ({shown})" in text, text
