"""The ``taldau`` command: the group and its commands, each in the module of its game or purpose. Results
on stdout, the rest on stderr.

Exit codes (docs/usage.md): 0 success, 1 invalid input or nothing to do (some games invalid, no game found
or annotated, no player found: one ``error:`` line), 2 usage error (click's own), 69 no broker or worker,
130 stopped by Ctrl-C. Every command writes with control characters escaped (``cli.terminal``).
"""

from __future__ import annotations

from typing import Any

import click
from taldau.cli.archives import annotate, validate
from taldau.cli.backgammon import eval_command, plays
from taldau.cli.bench import bench
from taldau.cli.book import book
from taldau.cli.match import match
from taldau.cli.players import players_command
from taldau.cli.report import report, show
from taldau.cli.service import analyze, cancel, status, worker
from taldau.cli.terminal import escaped_output
from taldau.cli.togyz import fit_curve, perft_command, search, tune
from taldau.cli.train import train

__all__ = ["main"]


class EscapingGroup(click.Group):
    """A group whose commands, their errors and click's own messages included, write stdout and stderr with
    every control character escaped (``cli.terminal``)."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        with escaped_output():
            return super().main(*args, **kwargs)


# Every command's help shows each option's default (a computed one in words: show_default="cores").
@click.group(
    cls=EscapingGroup, context_settings={"help_option_names": ["-h", "--help"], "show_default": True}
)
@click.version_option(package_name="taldau")
def main() -> None:
    """taldau: batch analysis of recorded Togyz Kumalak and backgammon games."""


for command in (
    validate,
    show,
    plays,
    eval_command,
    perft_command,
    search,
    annotate,
    bench,
    match,
    tune,
    train,
    fit_curve,
    analyze,
    worker,
    status,
    cancel,
    book,
    report,
    players_command,
):
    main.add_command(command)
