"""``taldau players``: each player's figures over one or more analysis folders, with 95% intervals
(``taldau.analysis.players``)."""

from __future__ import annotations

import json
import sys

import click
from taldau.analysis.folder import FolderError
from taldau.analysis.players import (
    MIN_GAMES,
    PERIODS,
    AliasError,
    Aliases,
    Estimate,
    Figures,
    Player,
    PlayerSettings,
    players,
    shown_figures,
)
from taldau.cli.options import EX_USAGE, JSON, say
from taldau.cli.terminal import escaped


@click.command("players")
@click.argument("folders", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False))
@click.option("--player", metavar="NAME", help="Only this player (any spelling or alias of the name).")
@click.option("--by", type=click.Choice(PERIODS), help="Also the figures of each month, year or event.")
@click.option(
    "--min-decisions",
    type=click.IntRange(min=0),
    default=1,
    help="Leave out players with fewer counted decisions.",
)
@click.option(
    "--aliases",
    type=click.Path(exists=True, dir_okay=False),
    help="A text file of players known by several names, one a line: 'Shown name = other name, ...'.",
)
@JSON
def players_command(
    folders: tuple[str, ...],
    player: str | None,
    by: str | None,
    min_decisions: int,
    aliases: str | None,
    as_json: bool,
) -> None:
    """Each player's figures over the analysed games of FOLDERS (`taldau analyze` output folders of one
    game, engine and settings: folders judged otherwise are refused), most games first: games, matches
    and counted decisions; backgammon PR (overall, checker play, cube) with gnubg's rating band and the
    luck per game; Togyz accuracy, mean loss in kumalak and a performance rating from the results and the
    opponents' ratings; marks per 100 decisions, the score, and with --player the results head to head.
    Each figure of a player with 8 games or more comes with its 95% interval, bootstrapped over games. A
    player is recognised across files by a normalised name (case, spaces, site prefixes, Cyrillic or Latin
    letters); names that may be one player but are not merged by --aliases are listed at the end. `taldau
    report` draws a page per player from the same figures."""
    try:
        known = Aliases() if aliases is None else Aliases.read(aliases)
        settings = PlayerSettings(by=by, min_decisions=min_decisions, player=player)
        report = players(folders, settings, known)
    except (FolderError, AliasError) as error:
        say(f"error: {error}")
        sys.exit(EX_USAGE)
    if not report.players:  # nothing to show is a failure, as validate's no game
        who = "player" if player is None else f"player {player!r}"
        say(f"error: no {who} with {min_decisions} or more counted decisions in {' '.join(folders)}")
        sys.exit(1)
    if as_json:
        click.echo(json.dumps(report.to_json()))
        return
    click.echo(f"judged by {report.judge}; {len(report.folders)} folder(s)")
    columns = shown_figures(report.rated)
    click.echo(
        _line("player", "games", "matches", "decisions", [heading for heading, _ in columns] + ["score"])
    )
    for found in report.players:
        click.echo(_row(found.name, found.overall, columns))
        for period, figures in found.periods.items():
            click.echo(_row(f"  {period}", figures, columns))
        if player is not None:
            _details(found)
    if any(_without_interval(found, columns) for found in report.players):
        click.echo(
            f"A figure shown without its interval is of fewer than {MIN_GAMES} games, or of games all alike "
            "(a player who lost every game): resampling them gives no width."
        )
    if report.fewer_decisions:
        click.echo(
            f"{report.fewer_decisions} players with fewer than {min_decisions} counted decisions left out"
        )
    if report.look_alike:
        click.echo(
            "Names that may be one player (merge them in an --aliases file: 'Shown name = other name'):"
        )
        for group in report.look_alike:
            click.echo(f"  {', '.join(group)}")


def _line(name: str, games: object, matches: object, decisions: object, figures: list[str]) -> str:
    return f"{name:<24}{games:>6}{matches:>8}{decisions:>10}  " + "  ".join(f"{text:<22}" for text in figures)


def _estimates(figures: Figures, columns: tuple[tuple[str, str], ...]) -> list[Estimate]:
    """The figures of ``columns`` and the score."""
    return [getattr(figures, attribute) for _, attribute in columns] + [figures.score]


def _row(name: str, figures: Figures, columns: tuple[tuple[str, str], ...]) -> str:
    values = [str(estimate) for estimate in _estimates(figures, columns)]
    return _line(escaped(name, 23), figures.games, figures.matches or "", figures.decisions, values).rstrip()


def _without_interval(found: Player, columns: tuple[tuple[str, str], ...]) -> bool:
    """Whether a figure shown of ``found`` (overall or by period) has a value but no interval."""
    return any(
        estimate.value is not None and estimate.low is None
        for figures in (found.overall, *found.periods.values())
        for estimate in _estimates(figures, columns)
    )


def _details(found: Player) -> None:
    """A player's spellings, marks, rating band and results head to head."""
    overall = found.overall
    click.echo(f"  spellings: {', '.join(found.spellings)}")
    marks = ", ".join(
        f"{mark} {value}" for mark, value in zip(("?!", "?", "??"), overall.marks_per_100, strict=True)
    )
    click.echo(f"  marks per 100 decisions: {marks}")
    if overall.rating is not None:
        click.echo(f"  rating band: {overall.rating}")
    for row in found.head_to_head:
        points = f", points {row.points:+d}" if row.points else ""
        click.echo(
            f"  against {row.opponent}: {row.games} games, {row.wins} won, {row.draws} drawn, "
            f"{row.losses} lost{points}"
        )
