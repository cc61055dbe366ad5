"""``taldau bench marks``: how right the marks are, on a fixed sample of real games (``measure.marks``)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
from taldau.analysis.accounting import count
from taldau.base.kind import Limit
from taldau.cli.options import (
    BOTH_GAMES_LIMIT,
    JSON,
    REVIEW_DEFAULT,
    engine_option,
    game_option,
    whole_option,
    within_ceiling,
)
from taldau.cli.progress import progress_line
from taldau.games.registry import game_kind
from taldau.games.togyz.engine import named_settings
from taldau.games.togyz.review import Verification
from taldau.measure.marks import ReviewCache, run_marks_bench, sample_games

ARCHIVES = {  # each game's real archive beside the checkout, sampled unless --archive is given
    "togyz": "../shared/data/togyz/playok-2024-2025.pgn",
    "backgammon": "../shared/data/backgammon/bglab",
}
SAMPLE = 30
REFERENCE_DEPTH = {"togyz": 18, "backgammon": 3}  # each game's deep reference: Togyz plies, gnubg's plies


@click.command()
@game_option("The game measured.")
@BOTH_GAMES_LIMIT.showing(depth=f"{REVIEW_DEFAULT}")
@whole_option("--games", default=SAMPLE, help="Games of the sample.")
@click.option(
    "--archive",
    type=click.Path(exists=True, path_type=Path),
    help="The real games to sample (default: the game's archive in ../shared/data).",
)
@click.option(
    "--reference-depth",
    type=click.IntRange(1, 60),
    help="The reference's depth [default: 18 for Togyz, 3 plies for backgammon].",
)
@click.option(
    "--reference-settings",
    default="default",
    show_default=True,
    metavar="SETTINGS",
    help="Togyz: the reference's search settings, named as for match "
    "(default, full, lmr, lmrN, lmrN-M, each with +nullR, +staticM, +futilityM).",
)
@click.option(
    "--one-search",
    is_flag=True,
    help="Togyz: also review with the played move valued by the next position.",
)
@click.option(
    "--also",
    "variants",
    multiple=True,
    metavar="SETTINGS[:DEPTH]",
    help="Togyz: also review with these search settings (default, full, lmr, lmrN, lmrN-M, each with "
    "+nullR, +staticM, +futilityM), at DEPTH if given, without verification; repeatable.",
)
@click.option(
    "--review-with",
    "reviewed",
    multiple=True,
    metavar="SETTINGS",
    help="Togyz: also review with these search settings (named as for --also) and the default review's "
    "verification stages, as the default review is made but for the settings; repeatable.",
)
@click.option(
    "--verify",
    "verifications",
    multiple=True,
    metavar="DROP+PLIES[,...]",
    help="Togyz: also review with the decisions that give away DROP winning chances or more searched again "
    "PLIES deeper (for example 0.2+4; 0.2+4d0 without deep reductions, dN from move N + 1), in stages; "
    "repeatable.",
)
@engine_option("The engine whose review is measured.", both_games=True)
@whole_option(
    "--jobs", default=1, help="Processes reviewing games side by side (each game's time is summed)."
)
@JSON
def marks(
    game: str,
    depth: int | None,
    nodes: int | None,
    movetime: float | None,
    games: int,
    archive: Path | None,
    reference_depth: int | None,
    reference_settings: str,
    one_search: bool,
    variants: tuple[str, ...],
    reviewed: tuple[str, ...],
    verifications: tuple[str, ...],
    engine: str | None,
    jobs: int,
    as_json: bool,
) -> None:
    """How right the marks are: --games games spread over --archive reviewed at the limit given and by the
    same engine at --reference-depth; the marks' precision and recall against the reference's, with their
    95% intervals, and the seconds. The reference's reviews are kept in the user's cache, so a run stopped
    half way goes on where it was."""
    marks_bench(
        game,
        BOTH_GAMES_LIMIT.given(depth, nodes, movetime),
        games,
        reference_depth,
        None if archive is None else str(archive),
        one_search,
        as_json,
        variants,
        within_ceiling(jobs, "--jobs", game),
        reference_settings,
        verifications,
        engine,
        reviewed,
    )


def _named(name: str, option: str) -> Any:
    """The Togyz search settings ``name`` (``engine.named_settings``), or a usage error of ``option``."""
    try:
        return named_settings(name)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint=option) from None


def _verification(text: str) -> tuple[Verification, ...]:
    """``DROP+PLIES[,DROP+PLIES...]`` as verification stages, or a usage error of --verify."""
    try:
        return Verification.parse(text)
    except ValueError as error:
        raise click.BadParameter(f"{text}: {error}", param_hint="--verify") from None


def marks_bench(
    game: str,
    limit: Limit,
    games: int | None,
    reference_depth: int | None,
    archive: str | None,
    one_search: bool,
    as_json: bool,
    variants: tuple[str, ...] = (),
    jobs: int = 1,
    reference_settings: str = "default",
    verifications: tuple[str, ...] = (),
    engine: str | None = None,
    reviewed: tuple[str, ...] = (),
) -> None:
    """Review ``games`` games spread over ``archive`` (None: the game's, ``ARCHIVES``) within ``limit`` and
    at the reference depth (None: the game's, ``REFERENCE_DEPTH``) by the game's default engine or
    ``engine`` (backgammon); print the marks' precision and recall against the reference, and the seconds.
    The reference's reviews are kept in the user's cache (``ReviewCache``), so a run stopped half way goes
    on where it was."""
    kind = game_kind(game)
    togyz_only = {
        "--one-search": one_search,
        "--also": variants,
        "--verify": verifications,
        "--review-with": reviewed,
        "--reference-settings": reference_settings != "default",
    }
    if game != "togyz" and any(togyz_only.values()):
        given = ", ".join(name for name, value in togyz_only.items() if value)
        raise click.UsageError(f"{given}: for Togyz only")
    analyser = kind.analyser if engine is None else kind.analyser_with(engine)
    if analyser is None:
        raise click.UsageError(f"taldau has no {game} engine")
    if (fallback := analyser.fallback()) is not None:
        click.echo(fallback, err=True)
    reference_depth = reference_depth or REFERENCE_DEPTH[game]
    archive = archive or ARCHIVES[game]
    if not Path(archive).exists():
        raise click.UsageError(
            f"bench marks samples the games of {archive}, which does not exist: give --archive"
        )
    try:
        sample = sample_games(kind, Path(archive), games or SAMPLE)
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    tested: dict[str, Any] = {"default": (analyser, limit)}
    if one_search:
        tested["one_search"] = (replace(analyser, one_search=True), limit)  # type: ignore[type-var]
    reference = analyser  # the same engine, deeper: backgammon's reviews have no other settings
    if game == "togyz":
        reference = replace(  # type: ignore[type-var]
            analyser, settings=_named(reference_settings, "--reference-settings"), verification=()
        )
    for variant in variants:
        name, _, depth = variant.partition(":")
        settings = _named(name, "--also")
        if depth and not depth.isdigit():
            raise click.BadParameter(f"{variant}: the depth after ':' is a whole number", param_hint="--also")
        tested_limit = Limit(depth=int(depth), level=limit.level) if depth else limit
        tested[variant] = (replace(analyser, settings=settings, verification=()), tested_limit)  # type: ignore[type-var]
    for name in reviewed:
        tested[f"review {name}"] = (replace(analyser, settings=_named(name, "--review-with")), limit)  # type: ignore[type-var]
    for text in verifications:
        tested[f"verify {text}"] = (replace(analyser, verification=_verification(text)), limit)  # type: ignore[type-var]
    with progress_line("reviewing", "game") as shown:
        report = run_marks_bench(
            kind,
            sample,
            tested,
            (reference, Limit(depth=reference_depth)),
            analyser.scale,
            jobs,
            ReviewCache.default(),
            lambda done, total: shown.update(done, total),
        )
    report["archive"] = archive
    if as_json:
        click.echo(json.dumps(report))
        return
    _print_report(report, list(tested), archive, reference_depth)


def _print_report(report: dict[str, Any], tested: list[str], archive: str, reference_depth: int) -> None:
    """The marks bench's ``report`` as text: the sample and the reference, then each review ``tested``."""
    click.echo(
        f"{count(report['games'], 'game')} of {archive} ({report['decisions']} decisions); reference depth "
        f"{reference_depth}: {report['reference']['seconds']} s ({report['reference']['cached_games']} "
        "games from the cache)"
    )
    for name in tested:
        entry = report[name]
        against = entry["against_reference"]
        click.echo(
            f"{name} {entry['limit']}: {entry['seconds']} s; same mark as the reference on "
            f"{against['same_mark']} of {against['decisions']}; "
            f"loss correlation {against['loss_correlation']}"
        )
        for agreement in against["marks"] + against["at_least"][:-1]:
            click.echo(
                f"  {agreement['mark']}: precision {agreement['precision']} ({agreement['both']}/"
                f"{agreement['tested']}{_interval(agreement['precision_95'])}), recall "
                f"{agreement['recall']} ({agreement['both']}/{agreement['reference']}"
                f"{_interval(agreement['recall_95'])})"
            )
        click.echo(
            f"  blunders that one of the two marks and the other does not: "
            f"{len(entry['blunder_disagreements'])} (--json lists them)"
        )
        for key, value in entry.items():
            if key.startswith("against_default"):
                click.echo(f"  marks as the default review's: {value['same_mark']} of {value['decisions']}")
            elif key.startswith("seconds_ratio"):
                click.echo(f"  seconds / the default review's: {value}")


def _interval(ends: list[float] | None) -> str:
    """A share's 95% interval as the text report prints it after its counts (nothing without one)."""
    return "" if ends is None else f", 95% {ends[0]}-{ends[1]}"
