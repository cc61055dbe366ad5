"""The ``taldau`` command: the group and its commands, each in the module of its game or purpose. Results
on stdout, the rest on stderr.

Exit codes: 0 success, 1 some games invalid, 2 usage error (click's own).
"""

from __future__ import annotations

import click
from taldau.cli.archives import annotate, validate
from taldau.cli.backgammon import eval_command, plays
from taldau.cli.bench import bench
from taldau.cli.book import book
from taldau.cli.match import match
from taldau.cli.players import players_command
from taldau.cli.report import report, show
from taldau.cli.service import analyze, cancel, status, worker
from taldau.cli.togyz import fit_curve, perft_command, search, tune
from taldau.cli.train import train

__all__ = ["main"]


# Every command's help shows each option's default (a computed one in words: show_default="cores").
@click.group(context_settings={"help_option_names": ["-h", "--help"], "show_default": True})
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
