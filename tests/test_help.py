"""Every option of every command says what it is for, and the default it takes when not given."""

from __future__ import annotations

from collections.abc import Iterator

import click
import pytest
from click.testing import CliRunner
from taldau.cli.main import main
from taldau.games.backgammon.kind import DEFAULT_PLIES
from taldau.games.togyz.engine import DEFAULT_DEPTH
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
    """The limits a command takes when none is given are read from the games, named once."""
    runner = CliRunner()
    for command in ("analyze", "annotate"):
        text = " ".join(runner.invoke(main, [command, "--help"], terminal_width=200).output.split())
        assert f"Togyz {REVIEW_DEPTH}, backgammon {DEFAULT_PLIES}" in text, text
    text = " ".join(runner.invoke(main, ["search", "--help"], terminal_width=200).output.split())
    assert f"[default: ({DEFAULT_DEPTH})" in text


def test_the_engine_default_is_said_once() -> None:
    """bench --engine shows one default line for its modes, not two that disagree."""
    text = " ".join(CliRunner().invoke(main, ["bench", "--help"], terminal_width=200).output.split())
    engine = text.split("--engine [own|gnubg|sage]")[1].split("--decisions")[0]
    assert engine.count("default") == 1 and "[own]" not in engine, engine
