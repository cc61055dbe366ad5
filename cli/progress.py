"""Progress on stderr for the long commands (``analyze``, ``annotate``, ``book build``, ``train``, ``report``,
``match``, ``bench``, backgammon rollouts): a rich bar
when stderr is a terminal (and stdout is not, for a command that prints its results as it goes), otherwise a
plain line now and then (the first, one every few seconds, the last), so that a log of a run in the
background says how far it got without a line per item."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import click
from taldau.analysis.accounting import count
from taldau.cli.terminal import escaped, escaped_output, unescaped

PLAIN_EVERY = 5.0  # seconds between two plain progress lines


def _noun(number: int, unit: str, plural: str) -> str:
    """``unit`` as ``count`` says it of ``number`` items (``game``, ``games``); none for no unit."""
    return count(number, unit, plural).partition(" ")[2] if unit else ""


class ProgressLine:
    """The progress of one command in ``unit`` (game, file: the singular; ``plural`` when it does not just
    take an s) under ``label`` (analysing, reading): ``update`` it with what is done, ``note`` a line that
    must be read (a skipped game, say). The noun agrees with the total when one is known (1/1 game, 1/5
    games), else with what is done (1 game)."""

    def __init__(
        self,
        label: str,
        unit: str,
        total: int | None = None,
        every: float = PLAIN_EVERY,
        bar: Any = None,
        plural: str = "",
    ) -> None:
        self.label = label
        self.unit = unit
        self.plural = plural
        self.total = total
        self.every = every
        self._bar = bar  # a started rich Progress on a terminal, else None
        shown = _noun(total if total is not None else 0, unit, plural)
        self._task = None if bar is None else bar.add_task(label, total=total, detail="", unit=shown)
        self._last: float | None = None  # when the last plain line was written
        self._done: int | None = None  # what it said was done
        self._unsaid: tuple[int, str] | None = None  # the last update not written yet, and its detail

    def update(
        self,
        done: int,
        total: int | None = None,
        detail: str = "",
        unit: str | None = None,
        plural: str = "",
    ) -> None:
        """``done`` of ``total`` (or of the total given before) items, with a ``detail`` such as a rate;
        ``unit`` (and its ``plural``) names the items from now on (a run of several steps)."""
        if total is not None:
            self.total = total
        if unit is not None:
            self.unit, self.plural = unit, plural
        noun = _noun(done if self.total is None else self.total, self.unit, self.plural)
        if self._bar is not None:
            self._bar.update(self._task, completed=done, total=self.total, detail=escaped(detail), unit=noun)
            return
        now = time.perf_counter()
        finished = self.total is not None and done >= self.total
        if done != self._done and (self._last is None or finished or now - self._last >= self.every):
            self._last, self._done, self._unsaid = now, done, None
            of = "" if self.total is None else f"/{self.total:,}"
            more = f", {detail}" if detail else ""
            click.echo(f"{self.label}: {done:,}{of}{' ' if noun else ''}{noun}{more}", err=True)
        elif done != self._done:
            self._unsaid = done, detail

    def finish(self) -> None:
        """The last update as a plain line when it was not written (the bar shows it already)."""
        if self._unsaid is not None:
            done, detail = self._unsaid
            self._last = None
            self.update(done, detail=detail)

    def note(self, line: str) -> None:
        """One line of its own on stderr (above the bar on a terminal)."""
        if self._bar is not None:
            self._bar.console.print(escaped(line), markup=False, highlight=False, soft_wrap=True)
        else:
            click.echo(line, err=True)


@contextmanager
def progress_line(
    label: str,
    unit: str,
    total: int | None = None,
    every: float = PLAIN_EVERY,
    prints: bool = False,
    plural: str = "",
) -> Iterator[ProgressLine]:
    """A ``ProgressLine`` of ``unit`` (its ``plural`` when not unit + s) shown while the block runs; the bar
    stops at its end, also when it raises; plain lines end with the last update. A command that ``prints``
    its results on stdout as it goes gets the bar only when stdout is not the terminal (a bar would take its
    lines), and its stdout left alone."""
    from rich.console import Console

    console = Console(file=unescaped(sys.stderr))  # the bar's own cursor movements reach the terminal
    if not console.is_terminal or (prints and Console().is_terminal):
        shown = ProgressLine(label, unit, total, every, plural=plural)
        yield shown
        shown.finish()
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    bar = Progress(
        TextColumn(label),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[unit]}"),
        TextColumn("{task.fields[detail]}"),
        TimeRemainingColumn(),
        console=console,
        redirect_stdout=not prints,
    )
    with bar, escaped_output():  # what the bar takes from stdout and stderr to show above it, escaped
        yield ProgressLine(label, unit, total, every, bar, plural)
