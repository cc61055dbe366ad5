"""A rollout judge of the levels of review (``taldau bench judge``): each level reviews
checker plays of real matches in their match context, and bgsage's rollouts settle which play was best.

The decisions are the checker plays of real matches with more than one legal play, drawn by a seeded
permutation (``strength.draw_decisions``: every .txt/.mat/.sgf file under a folder, read and replayed by
the package's own readers; a smaller draw is a prefix of a larger one and shares its cached rollouts).
Each level (``engine:level``, ``sage:standard``; ``gnubg:standard`` is gnubg's nets at gnubg's 2 plies
with gnubg's move filter, where gnubg-nn is installed) reviews each decision as ``review.review_play``
does: its pick (the best play), its loss and mark of the play made, and the CPU it took.

The judge rolls out every play that some level picked and the play made, with bgsage's variance-reduced
rollouts played to the end of the game (``DEFAULT_ROLLOUT``, in batches on the same dice for every play).
A rollout gives the play's cubeless probabilities; the play's value is its cubeful equity in EMG in the
match's context (score, cube, Crawford) by Janowski's formula on those probabilities, as the review values
plays (``cube_plies.after_play_equity``). Cubeless rollouts were chosen over cubeful ones for their noise:
on real positions a cubeful rollout's standard error is 3 to 5 times a cubeless one's at the same trials
(BENCHMARKS.md). A decision is rolled out where it can tell the levels apart: where two levels pick
different plays (*in dispute*), or where some level's loss of the play made lies within ``NEAR`` of a mark
threshold (its mark could be wrong); elsewhere every level's pick and mark stand unchallenged.

What it reports, per level: the mean loss of its picks against the best rolled-out play on the decisions
in dispute (some two picks differ), with its standard error; paired against every other level, the mean
difference of their losses and its standard error; the agreement of its marks of the play made with the
rollout-settled marks, on all decisions and on those whose rollout-settled loss lies within ``NEAR`` of a
mark threshold; and its CPU milliseconds per decision. The rollouts are bgsage's nets playing: they share
that evaluation with the ``sage`` levels, not with ``own`` or ``gnubg``.

The rollouts are kept per decision (one JSON line each, in ``CACHE_FOLDER`` of the checkout, committed, or
the user's cache) as each finishes: a stopped run resumes there, and later runs take no rollout time.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
from taldau.base.files import append_json_line, json_lines
from taldau.games.backgammon.engine.analyse import Search, analyse
from taldau.games.backgammon.engine.cube_plies import after_play_equity
from taldau.games.backgammon.engine.sage import RolloutSettings, SageRollout
from taldau.games.backgammon.review.levels import DEFAULT_LEVEL, LEVELS, ReviewSettings
from taldau.games.backgammon.review.plays import MoveDecision, review_play
from taldau.games.backgammon.rules.cube import MatchState
from taldau.games.backgammon.rules.met import kazaross_xg2
from taldau.games.backgammon.rules.position import Play
from taldau.measure.backgammon.strength import Drawn, load_level_evaluator

CACHE_FORMAT = "judge-1"
DEFAULT_ROLLOUT = RolloutSettings(trials=432, seed=2026, batches=6)  # 6 batches of 72, each stratified
DEFAULT_JUDGE_LEVELS = ("sage:quick", "sage:standard", "sage:deep", "own:standard")
GNUBG_JUDGE_LEVELS = ("gnubg:standard",)
DEFAULT_DRAW = 300
DEFAULT_SEED = 44
NEAR = 0.02  # a rollout-settled loss this close to a mark threshold (EMG) is "near a threshold"
# how the levels and the rollouts rank a roll's plays here: as the review does (review.rank_plays)
RANKING = "cubeful equity in each decision's match context (score, cube, Crawford), as analyze ranks"
MARKING = ReviewSettings()  # the marks' thresholds, the same at every level
CACHE_FOLDER = Path(__file__).resolve().parents[2] / "tests" / "data" / "backgammon" / "judge"


@dataclass(frozen=True)
class JudgeLevel:
    """A level of review by one engine, written ``engine:level`` (``sage:standard``, ``gnubg:standard``)."""

    engine: str
    level: str

    @classmethod
    def parse(cls, text: str) -> JudgeLevel:
        engine, _, level = text.strip().partition(":")
        level = level or DEFAULT_LEVEL
        if not engine or level not in LEVELS or level == "world":
            raise ValueError(
                f"a judged level is engine:level with level quick, standard or deep (world is a rollout "
                f"itself), not {text!r}"
            )
        return cls(engine, level)

    def settings(self, engine: str) -> ReviewSettings:
        """The review of this level by the evaluator named ``engine``, luck left out (not judged here)."""
        return replace(ReviewSettings.of_level(self.level, engine), luck=False)

    def __str__(self) -> str:
        return f"{self.engine}:{self.level}"


@dataclass(frozen=True)
class Rolled:
    """One play rolled out: its notation, and per batch its cubeful EMG for the player who made it (by
    Janowski's formula on the batch's cubeless probabilities, in the match's context)."""

    play: str
    values: tuple[float, ...]

    @property
    def value(self) -> float:
        return float(np.mean(self.values))


def rollout_plays(
    settings: RolloutSettings, boards: Sequence[np.ndarray], state: MatchState, player: int
) -> list[tuple[float, ...]]:
    """Each board (2, 25) left by a play of ``player`` (the opponent on roll in row MOVER) rolled out,
    batch by batch, as the player's cubeful EMG (see the module); runs in any process."""
    rollout = SageRollout(settings)
    table = kazaross_xg2()
    found = []
    for board in boards:
        batches = rollout.after_play_batches(np.ascontiguousarray(board[::-1]))
        found.append(
            tuple(
                after_play_equity(np.array(batch.probabilities), board, state, player, table)
                for batch in batches
            )
        )
    return found


class RolloutCache:
    """The judge's rollouts, one JSON line per decision (a later line for the same decision adds plays),
    in ``folder/<digest>.jsonl``, the digest naming the rollout's settings and bgsage's version. A torn
    last line (a run stopped while writing) is ignored."""

    def __init__(self, folder: Path, settings: RolloutSettings, version: str) -> None:
        rollout = settings.to_json() | {"batches": settings.batches}
        text = f"{CACHE_FORMAT}|{json.dumps(rollout, sort_keys=True)}|{version}"
        self.path = Path(folder) / f"rollouts-{hashlib.sha256(text.encode()).hexdigest()[:16]}.jsonl"
        self.plays: dict[str, dict[str, Rolled]] = {}
        for record in json_lines(self.path):
            try:
                plays = {
                    str(result): Rolled(str(entry["play"]), tuple(float(v) for v in entry["values"]))
                    for result, entry in record["plays"].items()
                }
                self.plays.setdefault(str(record["decision"]), {}).update(plays)
            except (ValueError, KeyError, TypeError, AttributeError):
                continue

    def store(self, key: str, source: str, plays: dict[str, Rolled]) -> None:
        """Keep the rolled ``plays`` (by the Position ID each leaves) of decision ``key``, appended and
        synced."""
        self.plays.setdefault(key, {}).update(plays)
        record = {
            "decision": key,
            "source": source,
            "plays": {
                result: {"play": rolled.play, "values": [round(v, 6) for v in rolled.values]}
                for result, rolled in plays.items()
            },
        }
        append_json_line(record, self.path)


@dataclass(frozen=True)
class JudgedDecision:
    """One decision judged: each level's review of it, and the rolled-out plays (by the Position ID each
    leaves; empty where the decision is not rolled out: ``wants_rollout``)."""

    drawn: Drawn
    reviews: tuple[MoveDecision, ...]
    seconds: tuple[float, ...]
    rolled: dict[str, Rolled]
    results: tuple[str, ...]  # each level's pick, by the Position ID it leaves
    played: str


def wants_rollout(reviews: Sequence[MoveDecision], results: Sequence[str], played: str) -> bool:
    """Whether a decision is rolled out (see the module): its plays differ, and two levels pick different
    ones or some level's loss of the play made lies within NEAR of a mark threshold."""
    if len({*results, played}) < 2:
        return False
    if len(set(results)) > 1:
        return True
    return any(near_threshold(review.loss) for review in reviews)


def near_threshold(loss: float) -> bool:
    """Whether ``loss`` (EMG) lies within NEAR of one of the review's mark thresholds."""
    return any(abs(loss - threshold) <= NEAR for threshold in MARKING.scale.thresholds)


def mean_and_error(values: Sequence[float]) -> tuple[float, float]:
    """The mean of ``values`` and its standard error (0 for fewer than two)."""
    if not values:
        return 0.0, 0.0
    mean = float(np.mean(values))
    if len(values) < 2:
        return mean, 0.0
    return mean, float(np.std(values, ddof=1) / math.sqrt(len(values)))


@dataclass(frozen=True)
class JudgeReport:
    """The levels judged by the rollouts on the same decisions (see the module)."""

    levels: tuple[str, ...]
    verdicts: tuple[JudgedDecision, ...]
    rollout: RolloutSettings
    folder: str
    seed: int
    rolled_now: int  # decisions whose rollouts this run made (the rest came from the cache or need none)
    rollout_seconds: float
    cache_file: str

    def _disputed(self) -> list[JudgedDecision]:
        return [verdict for verdict in self.verdicts if len(set(verdict.results)) > 1]

    def _loss(self, verdict: JudgedDecision, result: str) -> float:
        best = max(rolled.value for rolled in verdict.rolled.values())
        return max(0.0, best - verdict.rolled[result].value)

    def _mark(self, verdict: JudgedDecision) -> str | None:
        """The rollout-settled mark of the play made, at the review's thresholds (the same at every level;
        None where nothing was rolled out: no level saw a loss)."""
        if not verdict.rolled:
            return None
        found = MARKING.mark(self._loss(verdict, verdict.played))
        return None if found is None else str(found)

    def _near(self, verdict: JudgedDecision) -> bool:
        """Whether the rollout-settled loss of the play made lies within NEAR of a mark threshold."""
        return bool(verdict.rolled) and near_threshold(self._loss(verdict, verdict.played))

    def _agrees(self, verdict: JudgedDecision, index: int) -> bool:
        """Whether level ``index``'s mark of the play made is the rollout-settled one."""
        mark = verdict.reviews[index].mark
        return (None if mark is None else str(mark)) == self._mark(verdict)

    def to_json(self) -> dict[str, Any]:
        disputed = self._disputed()
        near = [verdict for verdict in self.verdicts if self._near(verdict)]
        marked = [verdict for verdict in self.verdicts if verdict.rolled]
        levels = []
        for index, level in enumerate(self.levels):
            losses = [self._loss(verdict, verdict.results[index]) for verdict in disputed]
            mean, error = mean_and_error(losses)
            agree = sum(self._agrees(verdict, index) for verdict in near)
            agree_all = sum(self._agrees(verdict, index) for verdict in marked)
            paired = {}
            for other, name in enumerate(self.levels):
                if other != index:
                    differences = [
                        self._loss(v, v.results[index]) - self._loss(v, v.results[other]) for v in disputed
                    ]
                    diff, diff_error = mean_and_error(differences)
                    paired[name] = {"mean": round(diff, 6), "se": round(diff_error, 6)}
            seconds = [verdict.seconds[index] for verdict in self.verdicts]
            levels.append(
                {
                    "level": level,
                    "mean_loss": round(mean, 6),
                    "mean_loss_se": round(error, 6),
                    "agreement_near_threshold": round(agree / len(near), 4) if near else None,
                    "agreement_rolled": round(agree_all / len(marked), 4) if marked else None,
                    "cpu_ms_per_decision": round(1000 * float(np.mean(seconds)), 2) if seconds else None,
                    "minus": paired,
                }
            )
        return {
            "decisions": len(self.verdicts),
            "disputed": len(disputed),
            "rolled": len(marked),
            "near_threshold": len(near),
            "rollout": str(self.rollout),
            "folder": self.folder,
            "seed": self.seed,
            "rolled_now": self.rolled_now,
            "rollout_seconds": round(self.rollout_seconds, 1),
            "cache_file": self.cache_file,
            "ranking": RANKING,
            "levels": levels,
        }

    def lines(self) -> list[str]:
        """The report as text: a header and one line per level."""
        data = self.to_json()
        out = [
            f"{data['decisions']} checker plays of real matches ({self.folder}, seed {self.seed}): "
            f"{data['disputed']} in dispute, {data['rolled']} rolled out ({self.rollout}; {self.rolled_now} "
            f"of them now, {self.rollout_seconds:.0f} s CPU), {data['near_threshold']} near a mark "
            "threshold",
            f"plays ranked by {RANKING}",
            f"{'level':<18}{'mean loss':>11}{'+-se':>9}{'marks near':>12}{'marks':>8}{'CPU ms':>9}",
        ]
        for level in data["levels"]:
            near = level["agreement_near_threshold"]
            rolled = level["agreement_rolled"]
            out.append(
                f"{level['level']:<18}{level['mean_loss']:>11.5f}{level['mean_loss_se']:>9.5f}"
                f"{'' if near is None else f'{near:.1%}':>12}{'' if rolled is None else f'{rolled:.1%}':>8}"
                f"{level['cpu_ms_per_decision'] or 0:>9.1f}"
            )
        return out


def judge_levels(
    drawn: Sequence[Drawn],
    levels: Sequence[str],
    rollout: RolloutSettings = DEFAULT_ROLLOUT,
    cache_folder: Path = CACHE_FOLDER,
    jobs: int = 1,
    seed: int = DEFAULT_SEED,
    folder: str = "",
    progress: Callable[[int, int], None] | None = None,
) -> JudgeReport:
    """Review each of ``drawn`` at every level of ``levels``, roll out on ``jobs`` processes the plays in
    dispute that the cache lacks, and report (see the module). ``seed`` and ``folder`` are only reported."""
    chosen = [JudgeLevel.parse(text) for text in levels]
    evaluators = {level.engine: load_level_evaluator(level.engine) for level in chosen}
    settings = [level.settings(evaluators[level.engine].name) for level in chosen]
    from importlib import metadata

    cache = RolloutCache(cache_folder, rollout, metadata.version("bgsage"))
    reviewed: list[
        tuple[JudgedDecision, dict[str, Play], bool]
    ] = []  # each decision, its plays, whether rolled
    if drawn:  # load nets and compile kernels outside the clock
        for level, review in zip(chosen, settings, strict=True):
            review_play(evaluators[level.engine], drawn[0].step, review)
    for item in drawn:
        reviews, seconds = [], []
        for level, review in zip(chosen, settings, strict=True):
            started = time.process_time()
            reviews.append(review_play(evaluators[level.engine], item.step, review))
            seconds.append(time.process_time() - started)
        dice = item.step.action.dice
        assert dice is not None
        plays = {
            ranked.play.text: ranked.play
            for ranked in analyse(evaluators[chosen[0].engine], item.step.position, dice, Search(0)).plays
        }
        results = tuple(plays[review.best].result.position_id() for review in reviews)
        played = plays[reviews[0].played].result.position_id()
        verdict = JudgedDecision(item, tuple(reviews), tuple(seconds), {}, results, played)
        reviewed.append((verdict, plays, wants_rollout(reviews, results, played)))
    work: list[tuple[Drawn, list[tuple[str, Play]]]] = []
    for verdict, plays, rolls in reviewed:
        if not rolls:
            continue
        wanted = {review.best for review in verdict.reviews} | {verdict.reviews[0].played}
        missing = [
            (plays[text].result.position_id(), plays[text])
            for text in sorted(wanted)
            if plays[text].result.position_id() not in cache.plays.get(verdict.drawn.key, {})
        ]
        if missing:
            work.append((verdict.drawn, missing))
    cpu = 0.0
    for done, (item, found, seconds) in enumerate(_roll(work, rollout, jobs), 1):
        cache.store(item.key, item.source, found)
        cpu += seconds
        if progress is not None:
            progress(done, len(work))
    verdicts = [
        replace(verdict, rolled=dict(cache.plays.get(verdict.drawn.key, {}))) if rolls else verdict
        for verdict, _, rolls in reviewed
    ]
    return JudgeReport(
        levels=tuple(str(level) for level in chosen),
        verdicts=tuple(verdicts),
        rollout=rollout,
        folder=folder,
        seed=seed,
        rolled_now=len(work),
        rollout_seconds=cpu,
        cache_file=str(cache.path),
    )


def _rollout_task(
    settings: RolloutSettings, boards: list[np.ndarray], state: MatchState, player: int
) -> tuple[list[tuple[float, ...]], float]:
    """``rollout_plays`` in a worker process, with its CPU seconds."""
    started = time.process_time()
    found = rollout_plays(settings, boards, state, player)
    return found, time.process_time() - started


def _roll(
    work: Sequence[tuple[Drawn, list[tuple[str, Play]]]], rollout: RolloutSettings, jobs: int
) -> Iterator[tuple[Drawn, dict[str, Rolled], float]]:
    """Each decision of ``work`` with its missing plays rolled out, as they finish (in order), on ``jobs``
    processes (in this one for 1)."""

    def arguments(item: Drawn, plays: list[tuple[str, Play]]) -> tuple[Any, ...]:
        boards = [play.result.board for _, play in plays]
        return rollout, boards, item.state, item.step.position.turn

    def named(plays: list[tuple[str, Play]], values: list[tuple[float, ...]]) -> dict[str, Rolled]:
        return {result: Rolled(play.text, found) for (result, play), found in zip(plays, values, strict=True)}

    if jobs <= 1:
        for item, plays in work:
            values, seconds = _rollout_task(*arguments(item, plays))
            yield item, named(plays, values), seconds
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [pool.submit(_rollout_task, *arguments(item, plays)) for item, plays in work]
        for (item, plays), future in zip(work, futures, strict=True):
            values, seconds = future.result()
            yield item, named(plays, values), seconds


def default_judge_levels() -> tuple[str, ...]:
    """The sage levels and own's standard, and gnubg's standard where gnubg-nn is installed."""
    from taldau.games.backgammon.engine.gnubg import gnubg_available

    return DEFAULT_JUDGE_LEVELS + (GNUBG_JUDGE_LEVELS if gnubg_available() else ())
