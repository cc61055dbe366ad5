"""GNU Backgammon's own analysis of real matches beside ours, as a benchmark: the time each takes and how
far our marks agree with gnubg's (``compare_with_gnubg``).

gnubg here is Debian's ``gnubg`` program (``apt-get install gnubg``), an optional reference: nothing else in
taldau needs it. It analyses each match in a process of its own through ``gnubg_analysis.py`` on one thread,
and its CPU time is read from the operating system's accounts of that process; ours is the CPU time of
``review.review_match`` at the same plies, the evaluator's default review (its move filter,
``ReviewSettings.of_engine``; gnubg's is its default, up to 16 plays within 0.32 at 0-ply). Both are timed in
turn, match by match, so that a busy machine slows both alike.

Agreement is measured on the checker plays both analyses judge (paired by game, Position ID and dice): for
each of gnubg's marks (doubtful ``?!``, bad ``?``, very bad ``??``), the precision and recall of ours
taking gnubg's as the reference; the correlation of the equity lost; and the mean absolute difference of
the equity lost. Cube decisions are compared as players read them, by each player's total cube error over
the match (gnubg's "Error total EMG" under "Cube decisions"; ours the sum of the losses of his cube and take
decisions), paired by name: the share of players within ``CUBE_TOLERANCE`` of gnubg's, their
correlation and mean absolute difference.
"""

from __future__ import annotations

import json
import math
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from taldau.base.kind import Mark
from taldau.games.backgammon.engine import Evaluator
from taldau.games.backgammon.kind import WARM_UP_MATCH
from taldau.games.backgammon.records.replay import read_games
from taldau.games.backgammon.review.levels import ReviewSettings
from taldau.games.backgammon.review.match import MatchReview, review_match
from taldau.games.backgammon.review.plays import MoveDecision
from taldau.games.backgammon.rules.cube import DecisionKind
from taldau.measure.agreement import MarkAgreement, rounded, spread_sample

SCRIPT = Path(__file__).resolve().with_name("gnubg_analysis.py")
GNUBG_MARKS = {mark.label: mark for mark in Mark}  # gnubg's names of its marks
CUBE_TOLERANCE = 0.05  # a player's cube error agrees with gnubg's within this (EMG)


def gnubg_program() -> str | None:
    """The path of Debian's gnubg program, or None when it is not installed."""
    return shutil.which("gnubg") or next(
        (path for path in ("/usr/games/gnubg", "/usr/bin/gnubg") if os.access(path, os.X_OK)), None
    )


def spread_matches(folder: Path, count: int) -> list[Path]:
    """``count`` Jellyfish match files under ``folder`` (``.txt``, ``.mat``; sorted by path), evenly spread
    over all of them: a fixed sample for benchmarks."""
    files = sorted(path for path in folder.rglob("*") if path.suffix in (".txt", ".mat") and path.is_file())
    return spread_sample(files, count)


def gnubg_analysis(program: str, match: Path, plies: int) -> tuple[dict, float]:
    """gnubg's analysis of ``match`` at ``plies`` (see ``gnubg_analysis.py``: ``plays``, its analysed checker
    plays; ``cube_errors``, each player's cube error by name) and the CPU seconds its process took;
    RuntimeError when gnubg fails."""
    with tempfile.TemporaryDirectory(prefix="taldau-gnubg-") as folder:
        out = Path(folder) / "plays.json"
        environment = os.environ | {
            "TALDAU_GNUBG_MATCH": str(match.resolve()),
            "TALDAU_GNUBG_OUT": str(out),
            "TALDAU_GNUBG_PLIES": str(plies),
        }
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run(
            [program, "-t", "-q", "-p", str(SCRIPT)], env=environment, capture_output=True, text=True
        )
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0 or not out.exists():
            raise RuntimeError(f"gnubg could not analyse {match}: {done.stderr.strip()[-500:]}")
        seconds = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        return json.loads(out.read_text(encoding="utf-8")), seconds


@dataclass(frozen=True)
class GnubgComparison:
    """What ``compare_with_gnubg`` measured: the plies, our engine (its version) and review settings,
    matches, paired checker plays (and those not paired), CPU
    seconds of both analyses and their ratio, the agreement per mark and over any mark, the correlation of
    the equity lost and its mean absolute difference (EMG), over the unforced paired plays; and the players
    paired by name with their cube errors compared (see the module)."""

    plies: int
    engine: str
    review: str
    matches: int
    plays: int
    unpaired: int
    seconds_ours: float
    seconds_gnubg: float
    marks: dict[str, MarkAgreement]
    any_mark: MarkAgreement
    loss_correlation: float
    loss_difference: float
    cube_players: int
    cube_within: float
    cube_correlation: float
    cube_difference: float

    @property
    def time_ratio(self) -> float:
        """Our CPU time over gnubg's (below 1: we are faster)."""
        return self.seconds_ours / self.seconds_gnubg

    def to_json(self) -> dict:
        data = asdict(self)
        data["marks"] = {name: agreement.to_json() for name, agreement in self.marks.items()}
        data["any_mark"] = self.any_mark.to_json()
        data["time_ratio"] = rounded(self.time_ratio)
        return data


def _correlation(first: Sequence[float], second: Sequence[float]) -> float:
    """Pearson's correlation of two series (nan when either is constant or shorter than two)."""
    try:
        return statistics.correlation(first, second)
    except statistics.StatisticsError:
        return math.nan


def compare_with_gnubg(
    matches: Sequence[Path],
    evaluator: Evaluator,
    plies: int = 2,
    program: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> GnubgComparison:
    """Analyse each of ``matches`` (Jellyfish files) with ``evaluator`` and with gnubg at ``plies``, in turn,
    and compare (see the module). ``program``: gnubg's path (found on the PATH or in /usr/games if None);
    RuntimeError without one. ``progress(done, total)`` is told the matches done by both, as each ends."""
    program = program or gnubg_program()
    if program is None:
        raise RuntimeError("GNU Backgammon (Debian's gnubg: apt-get install gnubg) is not installed")
    settings = ReviewSettings.of_engine(evaluator.name, plies)
    warm_up = list(read_games(WARM_UP_MATCH.encode(), "warm-up"))
    for depth in range(plies + 1):  # compile the kernels before any timing
        review_match(warm_up, evaluator, ReviewSettings(plies=depth))
    pairs: list[tuple[MoveDecision, dict]] = []
    cube_pairs: list[tuple[float, float]] = []
    unpaired = 0
    seconds_ours = seconds_gnubg = 0.0
    tell = progress or (lambda done, total: None)
    tell(0, len(matches))
    for done, match in enumerate(matches, start=1):
        games = [game for game in read_games(match.read_bytes(), str(match)) if not game.errors]
        started = time.process_time()
        review = review_match(games, evaluator, settings)
        seconds_ours += time.process_time() - started
        analysis, seconds = gnubg_analysis(program, match, plies)
        seconds_gnubg += seconds
        cube_pairs += _cube_errors(games, review, analysis["cube_errors"])
        waiting: dict[tuple, list[dict]] = defaultdict(list)
        for play in analysis["plays"]:
            waiting[(play["game"], play["position_id"], tuple(play["dice"]))].append(play)
        for game in review.games:
            for decision in game.decisions:
                if not isinstance(decision, MoveDecision) or decision.forced:
                    continue
                key = (game.index, decision.position_id, tuple(sorted(decision.dice, reverse=True)))
                if waiting.get(key):
                    pairs.append((decision, waiting[key].pop(0)))
                else:
                    unpaired += 1
        tell(done, len(matches))
    pairs = [(ours, theirs) for ours, theirs in pairs if theirs["candidates"] > 1]

    def agreement(mark: str, of_ours, of_theirs) -> MarkAgreement:
        return MarkAgreement(
            mark=mark,
            tested=sum(of_ours(o) for o, _ in pairs),
            reference=sum(of_theirs(t) for _, t in pairs),
            both=sum(of_ours(o) and of_theirs(t) for o, t in pairs),
        )

    marks = {
        str(mark): agreement(
            str(mark),
            lambda o, mark=mark: o.mark is mark,
            lambda t, mark=mark: GNUBG_MARKS.get(t["mark"]) is mark,
        )
        for mark in (Mark.DOUBTFUL, Mark.BAD, Mark.VERY_BAD)
    }
    ours_losses = [o.loss for o, _ in pairs]
    gnubg_losses = [t["loss"] for _, t in pairs]
    return GnubgComparison(
        plies=plies,
        engine=evaluator.version,
        review=str(settings),
        matches=len(matches),
        plays=len(pairs),
        unpaired=unpaired,
        seconds_ours=round(seconds_ours, 2),
        seconds_gnubg=round(seconds_gnubg, 2),
        marks=marks,
        any_mark=agreement("any", lambda o: o.mark is not None, lambda t: t["mark"] is not None),
        loss_correlation=_correlation(ours_losses, gnubg_losses),
        loss_difference=_mean_difference(ours_losses, gnubg_losses),
        cube_players=len(cube_pairs),
        cube_within=(
            sum(abs(a - b) <= CUBE_TOLERANCE for a, b in cube_pairs) / len(cube_pairs)
            if cube_pairs
            else math.nan
        ),
        cube_correlation=_correlation([a for a, _ in cube_pairs], [b for _, b in cube_pairs]),
        cube_difference=_mean_difference([a for a, _ in cube_pairs], [b for _, b in cube_pairs]),
    )


def _mean_difference(first: Sequence[float], second: Sequence[float]) -> float:
    """The mean absolute difference of paired values (NaN for none)."""
    return statistics.fmean(abs(a - b) for a, b in zip(first, second, strict=True)) if first else math.nan


def _cube_errors(games: Sequence, review: MatchReview, theirs: dict[str, float]) -> list[tuple[float, float]]:
    """(our, gnubg's) total cube error of each player of one match, paired by name; none when the two
    players' names are not two distinct names gnubg knows."""
    if not games:
        return []
    names = games[0].match.players
    if names[0] == names[1] or any(name not in theirs for name in names):
        return []
    ours = [0.0, 0.0]
    for game in review.games:
        for decision in game.decisions:
            if decision.kind in (DecisionKind.CUBE, DecisionKind.TAKE):
                ours[decision.player] += decision.loss
    return [(ours[player], float(theirs[names[player]])) for player in (0, 1)]
