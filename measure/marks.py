"""How right the marks are (``taldau bench marks``): a fixed sample of real games reviewed at the limit
under test and again at a much deeper reference, and the marks compared decision by decision.

For each mark (``?!``, ``?``, ``??``), *precision* is the share of the decisions the limit under test marks
so that the reference marks so too, and *recall* the share of the decisions the reference marks so that the
limit under test finds; both also "at least": ``?`` or worse, ``?!`` or worse, since calling a blunder a
mistake is a smaller error than missing it. The losses (the game's unit, kumalak for Togyz) are compared
by their correlation over the same decisions. Forced decisions are never marked and are left out.

The sample is spread evenly over the archive's valid games that have at least one move (game ``i * n /
count`` of ``n``), so that it is the same on every run and covers its whole span. Nothing here knows the
game: it goes through the ``GameKind`` and ``Analyser`` faces.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import as_completed
from dataclasses import asdict, dataclass
from pathlib import Path
from statistics import StatisticsError, correlation
from typing import Any

from taldau.analysis.validation import valid_games
from taldau.base.files import write_bytes_atomic
from taldau.base.jit import is_writable, user_cache_root
from taldau.base.kind import (
    MARKS,
    Analyser,
    Decision,
    GameAnalysis,
    GameKind,
    Limit,
    Mark,
    MarkScale,
)
from taldau.base.processes import worker_pool
from taldau.base.records import ReadLimits
from taldau.measure.agreement import MarkAgreement, rounded, spread_sample


def sample_games(kind: GameKind[Any], archive: Path, count: int) -> list[Any]:
    """``count`` tasks of the valid games of ``kind`` in ``archive`` that have a move (one resigned or
    abandoned before it began has no decision to compare), spread evenly over them, each as its first
    such game: a Togyz game is a task, a backgammon match (all its games) is one. ValueError when there
    are none."""
    tasks: dict[str, Any] = {}
    for replayed in valid_games([archive], lambda message: None, kind.name, ReadLimits()):
        if kind.facts(replayed).plies > 0:
            tasks.setdefault(json.dumps(kind.encode([replayed]), sort_keys=True), replayed)
    if not tasks:
        raise ValueError(f"{archive} holds no valid {kind.name} game with a move to sample")
    return spread_sample(list(tasks.values()), count)


@dataclass(frozen=True)
class MarksComparison:
    """A tested review against the reference: decisions compared, those with the same mark (or none), each
    mark's agreement exactly and at least, and the correlation of the losses (None if either is constant)."""

    decisions: int
    same: int
    exact: tuple[MarkAgreement, ...]
    at_least: tuple[MarkAgreement, ...]
    loss_correlation: float | None

    def to_json(self) -> dict[str, Any]:
        return {
            "decisions": self.decisions,
            "same_mark": self.same,
            "marks": [agreement.to_json() for agreement in self.exact],
            "at_least": [agreement.to_json() for agreement in self.at_least],
            "loss_correlation": rounded(self.loss_correlation),
        }


def _severity(mark: Mark | None) -> int:
    """0 for no mark, then 1, 2, 3 for ``?!``, ``?``, ``??``."""
    return 0 if mark is None else mark.severity


def _paired(
    tested: Sequence[GameAnalysis], reference: Sequence[GameAnalysis]
) -> list[tuple[int, Decision, Decision]]:
    """The decisions that are not forced, each with the reference's of the same ply and the index of its
    game in the sample; ValueError when the reviews are not of the same games."""
    pairs = []
    for index, (game, deep) in enumerate(zip(tested, reference, strict=True)):
        for decision, truth in zip(game.decisions, deep.decisions, strict=True):
            if decision.ply != truth.ply or decision.played != truth.played:
                raise ValueError(f"the reviews differ at ply {decision.ply}: not the same game")
            if not decision.forced:
                pairs.append((index, decision, truth))
    return pairs


def blunder_disagreements(
    tested: Sequence[GameAnalysis], reference: Sequence[GameAnalysis], scale: MarkScale
) -> list[dict[str, Any]]:
    """The decisions that one review marks as blunders (``??``) and the other does not: the game (its index
    in the sample), ply (from 1, as the ``moves`` table counts it), position, move played and both drops,
    so that a reader can search them again, deeper, and say which review was right."""
    blunder = Mark.VERY_BAD
    return [
        {
            "game": index,
            "ply": decision.ply + 1,  # counted from 1, as the moves table and the report count plies
            "position": decision.position,
            "played": decision.played,
            "drop": rounded(decision.drop),
            "reference_drop": rounded(truth.drop),
        }
        for index, decision, truth in _paired(tested, reference)
        if (scale.mark(decision.drop) is blunder) != (scale.mark(truth.drop) is blunder)
    ]


def compare_marks(
    tested: Sequence[GameAnalysis], reference: Sequence[GameAnalysis], scale: MarkScale
) -> MarksComparison:
    """The marks of ``tested`` against those of ``reference`` (the same games, in the same order), both at
    ``scale``'s thresholds, over the decisions that are not forced."""
    pairs = [(decision, truth) for _, decision, truth in _paired(tested, reference)]
    severities = [
        (_severity(scale.mark(decision.drop)), _severity(scale.mark(truth.drop))) for decision, truth in pairs
    ]
    exact, at_least = [], []
    for level, mark in enumerate(MARKS, start=1):
        exact.append(
            MarkAgreement(
                mark,
                sum(mine == level for mine, _ in severities),
                sum(theirs == level for _, theirs in severities),
                sum(mine == theirs == level for mine, theirs in severities),
            )
        )
        at_least.append(
            MarkAgreement(
                f"{mark} or worse" if level < len(MARKS) else mark,
                sum(mine >= level for mine, _ in severities),
                sum(theirs >= level for _, theirs in severities),
                sum(mine >= level and theirs >= level for mine, theirs in severities),
            )
        )
    try:
        losses = correlation([decision.loss for decision, _ in pairs], [truth.loss for _, truth in pairs])
    except StatisticsError:  # fewer than two decisions, or a constant loss
        losses = None
    return MarksComparison(
        len(pairs),
        sum(mine == theirs for mine, theirs in severities),
        tuple(exact),
        tuple(at_least),
        losses,
    )


@dataclass(frozen=True)
class ReviewedSample:
    """The sample reviewed once: its analyses, in the sample's order, the seconds the reviews took (summed
    over the games, each timed where it ran: the same figure whatever the number of processes) and how many
    analyses came from the cache instead."""

    analyses: tuple[GameAnalysis, ...]
    seconds: float
    cached: int = 0


@dataclass(frozen=True)
class ReviewCache:
    """Reviews kept on disk, one file per task, analyser version and limit: a deep reference costs hours
    and is the same on every run, so a bench run that is stopped goes on where it was, and later runs
    compare new settings with the same reference at once. Files are pickles of the task's ``GameAnalysis``
    tuple written by this code under a name that digests everything the review depends on."""

    directory: Path

    @classmethod
    def default(cls) -> ReviewCache | None:
        """``taldau/marks`` in the user's cache folder (``$XDG_CACHE_HOME`` or ``~/.cache``), or None
        when none is writable."""
        root = user_cache_root(os.environ)
        if root is None or not is_writable(root / "taldau" / "marks"):
            return None
        return cls(root / "taldau" / "marks")

    def path(self, kind: GameKind[Any], analyser: Analyser, limit: Limit, game: Any) -> Path:
        """The file of the review of ``game``'s task: its name digests the game, the analyser's version
        (what its results depend on, as in a batch run's settings key) and the limit."""
        text = "|".join((CACHE_FORMAT, kind.name, kind.identity(game), analyser.version(), repr(limit)))
        return self.directory / f"{hashlib.sha256(text.encode()).hexdigest()[:32]}.pickle"

    def load(self, path: Path) -> tuple[GameAnalysis, ...] | None:
        """The review stored at ``path``; None when there is none (or it is unreadable)."""
        try:
            with path.open("rb") as handle:
                analyses = pickle.load(handle)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
            return None
        if isinstance(analyses, tuple) and all(isinstance(item, GameAnalysis) for item in analyses):
            return analyses
        return None

    def store(self, path: Path, analyses: tuple[GameAnalysis, ...]) -> None:
        """Keep ``analyses`` at ``path`` (written whole under another name, then renamed)."""
        write_bytes_atomic(pickle.dumps(analyses, protocol=pickle.HIGHEST_PROTOCOL), path)


CACHE_FORMAT = "marks-cache-2"  # changes when what a cached review holds changes


def _review_one(
    analyser: Analyser, kind: GameKind[Any], data: Any, limit: Limit
) -> tuple[tuple[GameAnalysis, ...], float]:
    """One task (its games as ``kind`` encodes them) reviewed, its valid games, with the seconds it took:
    what a process of the pool runs."""
    started = time.perf_counter()
    games = [game for game in kind.decode(data, "marks-bench") if kind.facts(game).valid]
    analyses = tuple(analyser.review(games, limit))
    return analyses, time.perf_counter() - started


def review_sample(
    kind: GameKind[Any],
    analyser: Analyser,
    games: Sequence[Any],
    limit: Limit,
    jobs: int = 1,
    cache: ReviewCache | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ReviewedSample:
    """The task of every game of ``games`` reviewed by ``analyser`` within ``limit``, on ``jobs`` processes
    (the analyses of all the tasks' games, in order); with a ``cache``, tasks reviewed before are read from
    it and the others kept in it as each one ends. ``progress(done, total)`` is told the games done (those
    from the cache at once) as each one ends."""
    analyses: dict[int, tuple[GameAnalysis, ...]] = {}
    paths: dict[int, Path] = {}
    if cache is not None:
        for index, game in enumerate(games):
            paths[index] = cache.path(kind, analyser, limit, game)
            stored = cache.load(paths[index])
            if stored is not None:
                analyses[index] = stored
    cached = len(analyses)
    todo = [index for index in range(len(games)) if index not in analyses]
    seconds = 0.0
    tell = progress or (lambda done, total: None)
    tell(cached, len(games))

    def keep(index: int, reviewed: tuple[GameAnalysis, ...], spent: float) -> None:
        nonlocal seconds
        analyses[index] = reviewed
        seconds += spent
        if cache is not None:
            cache.store(paths[index], reviewed)
        tell(len(analyses), len(games))

    if jobs <= 1 or len(todo) <= 1:
        for index in todo:
            keep(index, *_review_one(analyser, kind, kind.encode([games[index]]), limit))
    else:
        # Each process loads the kernels before its first game, so that no game's time counts them.
        with worker_pool(min(jobs, len(todo)), analyser.warm) as pool:
            futures = {
                pool.submit(_review_one, analyser, kind, kind.encode([games[index]]), limit): index
                for index in todo
            }
            for future in as_completed(futures):
                keep(futures[future], *future.result())
    every = tuple(analysis for index in range(len(games)) for analysis in analyses[index])
    return ReviewedSample(every, seconds, cached)


def run_marks_bench(
    kind: GameKind[Any],
    games: Sequence[Any],
    tested: Mapping[str, tuple[Analyser, Limit]],
    reference: tuple[Analyser, Limit],
    scale: MarkScale,
    jobs: int = 1,
    cache: ReviewCache | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Review ``games`` with the reference and with each tested analyser (by name), and compare: seconds,
    each tested review against the reference, and the first tested review against the others (how many
    marks change between them). The reference's reviews are kept in ``cache`` (when given) and read
    from it on later runs; the tested ones are always reviewed again, since their time is measured.
    ``progress(done, total)`` is told the games reviewed of all the reviews (the reference's first)."""
    total = len(games) * (1 + len(tested))

    def told(before: int) -> Callable[[int, int], None] | None:
        """The progress of one review of the sample, after ``before`` games of the others."""
        if progress is None:
            return None
        tell = progress
        return lambda done, _: tell(before + done, total)

    analyser, limit = reference
    analyser.warm()
    deep = review_sample(kind, analyser, games, limit, jobs, cache, told(0))
    reviews: dict[str, ReviewedSample] = {}
    for number, (name, (tested_analyser, tested_limit)) in enumerate(tested.items(), start=1):
        tested_analyser.warm()
        reviews[name] = review_sample(
            kind, tested_analyser, games, tested_limit, jobs, progress=told(number * len(games))
        )
    decisions = sum(len(analysis.decisions) for analysis in deep.analyses)
    report: dict[str, Any] = {
        "games": len(games),
        "decisions": decisions,
        "reference": {
            "limit": _limit(limit),
            "version": analyser.version(),
            "seconds": round(deep.seconds, 1),
            "cached_games": deep.cached,
        },
    }
    first = next(iter(reviews), None)
    for name, sample in reviews.items():
        entry: dict[str, Any] = {
            "limit": _limit(tested[name][1]),
            "seconds": round(sample.seconds, 1),
            "against_reference": compare_marks(sample.analyses, deep.analyses, scale).to_json(),
            "blunder_disagreements": blunder_disagreements(sample.analyses, deep.analyses, scale),
        }
        if first is not None and name != first:
            entry[f"against_{first}"] = compare_marks(
                sample.analyses, reviews[first].analyses, scale
            ).to_json()
            entry[f"seconds_ratio_to_{first}"] = round(sample.seconds / max(reviews[first].seconds, 1e-9), 2)
        report[name] = entry
    return report


def _limit(limit: Limit) -> dict[str, Any]:
    given = {name: value for name, value in asdict(limit).items() if value is not None}
    return given or {"default": True}
