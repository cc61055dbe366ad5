"""How strong each engine's checker plays are: every engine and level picks its play on real decisions, and
a deeper reference judges the picks (``taldau bench engines``).

The decisions are checker plays of real matches (every Jellyfish .txt/.mat and SGF file under a folder,
read and replayed by the package's own readers) with more than one legal play, drawn with a seed: the
draw is a seeded permutation of all of them cut to the number asked, so a smaller run is a prefix of a
larger one and shares its cached reference.

The reference is ``engine.analyse`` of a deep level (bgsage at gnubg's 3 plies by default, its ``4ply``),
with gnubg's move filter over the reference's own 0-ply ranking (16 plays within 0.32 by default, the
review's filter): each play that survives the filter gets its equity at the reference's plies. A pick
outside that set is evaluated by the reference too (``analyse``'s ``include``), so every pick has its
equity at the same depth. The loss of a pick is the reference's equity of its own best play minus that of
the pick, never below 0: a pick the filter dropped that the reference, asked about it, likes better than
its own best loses nothing (counted in ``beats_reference``).

The reference's answers are kept per decision in the user's cache folder (``taldau/strength/``, one JSON
line per decision in a file named by the reference's engine version, plies and filter), written as each
decision is done: a stopped run resumes there, and later runs with the same reference take no time for it.

CPU time is ``time.process_time`` around each engine's own ``analyse`` call, nothing else; the engines
take turns decision by decision, so a busy machine slows them alike. Every evaluator runs on one thread.
"""

from __future__ import annotations

import hashlib
import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from taldau.base.files import append_json_line, json_lines
from taldau.base.jit import is_writable, user_cache_root
from taldau.games.backgammon.engine import Evaluator
from taldau.games.backgammon.engine.analyse import Search, analyse, choose_evaluator, engine_search
from taldau.games.backgammon.records.record import ActionKind
from taldau.games.backgammon.records.replay import Step
from taldau.games.backgammon.review.levels import match_id
from taldau.games.backgammon.rules.cube import MatchState
from taldau.games.backgammon.rules.position import Position

CACHE_FORMAT = "strength-1"
DEFAULT_DECISIONS = 500
DEFAULT_SEED = 2026
DEFAULT_REFERENCE = "sage:3:16/0.32"  # gnubg's broad move filter: the judge looks at every sensible play
DEFAULT_LEVELS = ("own:0", "own:1", "own:2", "sage:0", "sage:1", "sage:2", "sage:2:16/0.32")
GNUBG_LEVELS = ("gnubg:0", "gnubg:1", "gnubg:2")
RECORD_SUFFIXES = (".txt", ".mat", ".sgf")
BGLAB = Path("../shared/data/backgammon/bglab")  # the real matches beside the checkout
# how the levels and the reference rank a roll's plays here: by engine.analyse alone, the score and cube
# of the decision's match left out (review.rank_plays ranks in context: bench judge, analyze, plays)
RANKING = "cubeless money equity, not in the match's context"


@dataclass(frozen=True)
class Level:
    """An engine and the limit it analyses at, written ``engine:plies`` (the engine's own move filter,
    its reviews', ``engine_search``) or ``engine:plies:candidates/threshold``."""

    engine: str
    limit: Search

    @classmethod
    def parse(cls, text: str) -> Level:
        """``sage:3``, ``own:2``, ``sage:3:8/0.16``; ValueError for anything else."""
        parts = text.strip().split(":")
        if len(parts) not in (2, 3) or not parts[0] or not parts[1].isdigit():
            raise ValueError(f"a level is engine:plies or engine:plies:candidates/threshold, not {text!r}")
        if len(parts) == 2:
            return cls(parts[0], engine_search(parts[0], int(parts[1])))
        candidates, _, threshold = parts[2].partition("/")
        try:
            return cls(
                parts[0], Search(int(parts[1]), candidates=int(candidates), threshold=float(threshold))
            )
        except ValueError:
            raise ValueError(
                f"a level is engine:plies or engine:plies:candidates/threshold, not {text!r}"
            ) from None

    def __str__(self) -> str:
        if self.limit == engine_search(self.engine, self.limit.plies):
            return f"{self.engine}:{self.limit.plies}"
        return f"{self.engine}:{self.limit.plies}:{self.limit.candidates}/{self.limit.threshold:g}"


@dataclass(frozen=True)
class PositionRoll:
    """A checker-play decision of a real match: the position before the roll and the dice."""

    position: Position
    dice: tuple[int, int]

    @property
    def key(self) -> str:
        """The decision as the cache knows it: gnubg's Position ID (from the side on roll) and the dice,
        high die first."""
        high, low = sorted(self.dice, reverse=True)
        return f"{self.position.position_id()} {high}{low}"


@dataclass(frozen=True)
class Drawn:
    """A checker play of a real match: where it is (file, game, step) and the replayed step."""

    source: str
    game: int
    number: int
    step: Step

    @property
    def state(self) -> MatchState:
        """The match state the play is judged in: before any offer, beavers not valued (as the review)."""
        state = self.step.state
        return replace(state, rules=replace(state.rules, beavers=False), offered_by=None)

    @property
    def key(self) -> str:
        """The decision as the cache knows it: gnubg's Position ID and Match ID (score, cube, dice)."""
        player = self.step.position.turn
        dice = self.step.action.dice
        assert dice is not None
        return f"{self.step.position.position_id()}:{match_id(self.state, player, dice)}"


def draw_decisions(folder: Path, count: int, seed: int) -> list[Drawn]:
    """``count`` checker plays with two or more legal plays of the matches under ``folder`` (files sorted
    by path), by a permutation seeded with ``seed``; FileNotFoundError when ``folder`` holds no match."""
    from taldau.base.records import ReadLimits
    from taldau.games.backgammon.records.replay import read_games

    files = sorted(p for p in Path(folder).rglob("*") if p.suffix in RECORD_SUFFIXES and p.is_file())
    if not files:
        raise FileNotFoundError(f"no match records (.txt, .mat, .sgf) under {folder}")
    found: list[Drawn] = []
    for path in files:
        for index, game in enumerate(read_games(path.read_bytes(), str(path), ReadLimits())):
            for number, step in enumerate(game.steps):
                dice = step.action.dice
                if step.action.kind is not ActionKind.ROLL or dice is None or step.play is None:
                    continue
                if step.position._generate(dice)[1] >= 2:
                    found.append(Drawn(path.name, index, number, step))
    order = np.random.default_rng(seed).permutation(len(found))
    return [found[int(index)] for index in order[:count]]


def strength_decisions(
    folder: Path, count: int = DEFAULT_DECISIONS, seed: int = DEFAULT_SEED
) -> list[PositionRoll]:
    """``draw_decisions`` as the positions and dice they are judged by here (a smaller ``count`` gives a
    prefix of a larger one); FileNotFoundError when ``folder`` holds no match."""
    decisions = []
    for item in draw_decisions(folder, count, seed):
        dice = item.step.action.dice
        assert dice is not None
        decisions.append(PositionRoll(item.step.position, (int(dice[0]), int(dice[1]))))
    return decisions


@dataclass
class Judged:
    """The reference's answer for one decision: its best play (by the Position ID it leaves), the equity at
    the reference's plies of every play its filter kept (``equities``), and of picks outside that set,
    evaluated as they are asked about (``extra``)."""

    best: str
    equities: dict[str, float]
    extra: dict[str, float] = field(default_factory=dict)

    def equity(self, result: str) -> float | None:
        """The reference's equity of the play leaving ``result``; None when it has none yet."""
        value = self.equities.get(result)
        return self.extra.get(result) if value is None else value

    def to_json(self, key: str) -> dict[str, Any]:
        return {"decision": key, "best": self.best, "equities": self.equities, "extra": self.extra}


class ReferenceCache:
    """The reference's answers, one JSON line per decision (a later line for the same decision adds
    plays) in ``directory/<digest>.jsonl``, the digest naming the reference's engine version, plies and
    filter. A torn last line (a run stopped while writing) is ignored."""

    def __init__(self, directory: Path, reference: Level, version: str) -> None:
        limit = reference.limit
        parts = (CACHE_FORMAT, reference.engine, version, limit.plies, limit.candidates, limit.threshold)
        text = "|".join(repr(part) if isinstance(part, float) else str(part) for part in parts)
        self.path = Path(directory) / f"{hashlib.sha256(text.encode()).hexdigest()[:24]}.jsonl"
        self.answers: dict[str, Judged] = {}
        for record in json_lines(self.path):
            try:
                key, best = record["decision"], record["best"]
                values = {str(k): float(v) for k, v in record["equities"].items()}
                extra = {str(k): float(v) for k, v in record.get("extra", {}).items()}
            except (ValueError, KeyError, TypeError, AttributeError):
                continue
            judged = self.answers.setdefault(key, Judged(best, values))
            judged.extra.update(extra)

    @staticmethod
    def default_directory() -> Path | None:
        """``taldau/strength`` in the user's cache folder (``$XDG_CACHE_HOME`` or ``~/.cache``), or None
        when none is writable."""
        root = user_cache_root(os.environ)
        if root is None or not is_writable(root / "taldau" / "strength"):
            return None
        return root / "taldau" / "strength"

    def store(self, key: str, judged: Judged, added: dict[str, float] | None = None) -> None:
        """Keep ``judged`` for ``key`` (only ``added``, new picks outside its set, when given), appended
        and synced."""
        self.answers[key] = judged
        record = judged.to_json(key) if added is None else Judged(judged.best, {}, added).to_json(key)
        append_json_line(record, self.path)


@dataclass(frozen=True)
class LevelResult:
    """One engine level judged by the reference: per decision the loss of its pick (reference equity of
    the reference's best play minus its pick's, at least 0), and the summary: ``mean_loss`` with its
    standard error, ``agreement`` (share of decisions where it picks the reference's play), CPU
    milliseconds per decision of its ``analyse`` calls, ``outside`` (picks the reference's filter had
    dropped, evaluated on request) and ``beats_reference`` (of those, picks the reference rates above
    its own best)."""

    level: str
    version: str
    losses: tuple[float, ...]
    agreed: int  # decisions where it picks the reference's play
    cpu_ms: float = field(compare=False)
    outside: int
    beats_reference: int

    @property
    def decisions(self) -> int:
        return len(self.losses)

    @property
    def agreement(self) -> float:
        return self.agreed / len(self.losses) if self.losses else 0.0

    @property
    def mean_loss(self) -> float:
        return sum(self.losses) / len(self.losses) if self.losses else 0.0

    @property
    def loss_error(self) -> float:
        """The standard error of ``mean_loss``."""
        n = len(self.losses)
        if n < 2:
            return 0.0
        mean = self.mean_loss
        return math.sqrt(sum((x - mean) ** 2 for x in self.losses) / (n - 1) / n)

    def to_json(self) -> dict[str, Any]:
        return {
            "level": self.level,
            "version": self.version,
            "decisions": self.decisions,
            "mean_loss": round(self.mean_loss, 6),
            "mean_loss_se": round(self.loss_error, 6),
            "agreement": round(self.agreement, 6),
            "agreed": self.agreed,
            "cpu_ms_per_decision": round(self.cpu_ms, 4),
            "outside_reference_set": self.outside,
            "beats_reference": self.beats_reference,
            "losses": list(self.losses),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LevelResult:
        return cls(
            level=data["level"],
            version=data["version"],
            losses=tuple(float(x) for x in data["losses"]),
            agreed=int(data["agreed"]),
            cpu_ms=float(data["cpu_ms_per_decision"]),
            outside=int(data["outside_reference_set"]),
            beats_reference=int(data["beats_reference"]),
        )


@dataclass(frozen=True)
class StrengthReport:
    """Every level's ``LevelResult`` on the same ``decisions``, judged by ``reference`` (its version and
    filter), with how many reference answers came from the cache and the reference's CPU seconds (the
    ones computed in this run). Reports compare equal when every measured number but the CPU times is:
    a run on the cache equals the run that filled it."""

    reference: str
    reference_version: str
    reference_filter: str
    decisions: int
    seed: int
    folder: str
    levels: tuple[LevelResult, ...]
    cached: int = field(default=0, compare=False)
    reference_seconds: float = field(default=0.0, compare=False)
    cache_file: str | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "reference": self.reference,
            "reference_version": self.reference_version,
            "reference_filter": self.reference_filter,
            "decisions": self.decisions,
            "seed": self.seed,
            "folder": self.folder,
            "cached": self.cached,
            "reference_seconds": round(self.reference_seconds, 3),
            "cache_file": self.cache_file,
            "ranking": RANKING,
            "levels": [level.to_json() for level in self.levels],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> StrengthReport:
        return cls(
            reference=data["reference"],
            reference_version=data["reference_version"],
            reference_filter=data["reference_filter"],
            decisions=int(data["decisions"]),
            seed=int(data["seed"]),
            folder=data["folder"],
            levels=tuple(LevelResult.from_json(level) for level in data["levels"]),
            cached=int(data["cached"]),
            reference_seconds=float(data["reference_seconds"]),
            cache_file=data.get("cache_file"),
        )

    def lines(self) -> list[str]:
        """The report as text: a header and one line per level."""
        out = [
            f"{self.decisions} decisions of real matches ({self.folder}, seed {self.seed}) judged by "
            f"{self.reference} ({self.reference_version}; filter {self.reference_filter}; "
            f"{self.cached} answers cached, {self.reference_seconds:.1f} s CPU for the rest)",
            f"plays ranked by {RANKING}",
            f"{'level':<16}{'mean loss':>12}{'+-se':>10}{'agreement':>11}{'CPU ms':>10}{'outside':>9}",
        ]
        for level in self.levels:
            out.append(
                f"{level.level:<16}{level.mean_loss:>12.5f}{level.loss_error:>10.5f}{level.agreement:>11.1%}"
                f"{level.cpu_ms:>10.2f}{level.outside:>9}"
            )
        return out


def default_levels() -> tuple[str, ...]:
    """Own and sage at 0, 1 and 2 plies, and gnubg's when gnubg-nn is installed."""
    from taldau.games.backgammon.engine.gnubg import gnubg_available

    return DEFAULT_LEVELS + (GNUBG_LEVELS if gnubg_available() else ())


def load_level_evaluator(engine: str) -> Evaluator:
    """The evaluator of ``engine`` on one thread; ValueError when it cannot run here (no stand-in: a
    measurement of ``sage`` must not measure ``own``)."""
    choice = choose_evaluator(engine)
    if choice.fallback is not None:
        raise ValueError(choice.fallback)
    return choice.evaluator


def run_strength(
    decisions: Sequence[PositionRoll],
    levels: Sequence[str] | None = None,
    reference: str = DEFAULT_REFERENCE,
    cache_directory: Path | None = None,
    seed: int = DEFAULT_SEED,
    folder: str = "",
    progress: Callable[[int, int], None] | None = None,
) -> StrengthReport:
    """Judge each level of ``levels`` (``engine:plies``; ``default_levels()`` when None) by ``reference``
    on ``decisions`` (see the module's docstring). ``cache_directory``: where the reference's answers are
    kept (None: none kept). ``progress(done, total)`` is called after each decision. ``seed`` and
    ``folder`` are only reported."""
    chosen = [Level.parse(text) for text in (default_levels() if levels is None else levels)]
    judge = Level.parse(reference)
    evaluators: dict[str, Evaluator] = {}
    for level in [judge, *chosen]:
        if level.engine not in evaluators:
            evaluators[level.engine] = load_level_evaluator(level.engine)
    referee = evaluators[judge.engine]
    cache = ReferenceCache(cache_directory, judge, referee.version) if cache_directory is not None else None
    answers: dict[str, Judged] = {} if cache is None else cache.answers
    if decisions:  # load nets and compile kernels outside the clock
        first = decisions[0]
        for level in chosen:
            analyse(evaluators[level.engine], first.position, first.dice, level.limit)
    losses: list[list[float]] = [[] for _ in chosen]
    agreeing = [0] * len(chosen)
    seconds = [0.0] * len(chosen)
    outside = [0] * len(chosen)
    beats = [0] * len(chosen)
    cached = 0
    reference_seconds = 0.0
    for done, decision in enumerate(decisions, 1):
        key = decision.key
        judged = answers.get(key)
        if judged is None:
            started = time.process_time()
            analysis = analyse(referee, decision.position, decision.dice, judge.limit)
            reference_seconds += time.process_time() - started
            judged = Judged(
                analysis.best.play.result.position_id(),
                {
                    ranked.play.result.position_id(): ranked.equity
                    for ranked in analysis.plays
                    if ranked.plies == judge.limit.plies
                },
            )
            if cache is not None:
                cache.store(key, judged)
            answers[key] = judged
        else:
            cached += 1
        best_equity = judged.equities[judged.best]
        for index, level in enumerate(chosen):
            evaluator = evaluators[level.engine]
            started = time.process_time()
            pick = analyse(evaluator, decision.position, decision.dice, level.limit).best.play
            seconds[index] += time.process_time() - started
            result = pick.result.position_id()
            if result not in judged.equities:
                outside[index] += 1
            value = judged.equity(result)
            if value is None:
                started = time.process_time()
                ranked = analyse(referee, decision.position, decision.dice, judge.limit, include=(pick,))
                reference_seconds += time.process_time() - started
                value = ranked.play(ranked.rank_of(pick)).equity
                judged.extra[result] = value
                if cache is not None:
                    cache.store(key, judged, {result: value})
            loss = best_equity - value
            if loss < 0:
                beats[index] += 1
            losses[index].append(max(loss, 0.0))
            agreeing[index] += result == judged.best
        if progress is not None:
            progress(done, len(decisions))
    count = max(len(decisions), 1)
    return StrengthReport(
        reference=str(judge),
        reference_version=referee.version,
        reference_filter=f"{judge.limit.candidates} plays within {judge.limit.threshold:g} at 0-ply",
        decisions=len(decisions),
        seed=seed,
        folder=folder,
        levels=tuple(
            LevelResult(
                level=str(level),
                version=evaluators[level.engine].version,
                losses=tuple(losses[index]),
                agreed=agreeing[index],
                cpu_ms=seconds[index] * 1000 / count,
                outside=outside[index],
                beats_reference=beats[index],
            )
            for index, level in enumerate(chosen)
        ),
        cached=cached,
        reference_seconds=reference_seconds,
        cache_file=None if cache is None else str(cache.path),
    )


def measure_strength(
    folder: Path = BGLAB,
    count: int = DEFAULT_DECISIONS,
    seed: int = DEFAULT_SEED,
    levels: Sequence[str] | None = None,
    reference: str = DEFAULT_REFERENCE,
    cache_directory: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> StrengthReport:
    """``run_strength`` on ``count`` decisions of the matches under ``folder`` drawn with ``seed``, the
    reference's answers kept in ``cache_directory`` (the user's cache folder when None, if writable).
    FileNotFoundError when ``folder`` is absent or holds no match; ValueError for a bad level or an
    engine that cannot run here."""
    folder = Path(folder)
    if not folder.is_dir():
        raise FileNotFoundError(f"the real matches are not here: {folder} is not a folder")
    for text in [reference, *(levels or ())]:
        Level.parse(text)  # bad levels fail before the matches are read
    decisions = strength_decisions(folder, count, seed)
    return run_strength(
        decisions,
        levels,
        reference,
        ReferenceCache.default_directory() if cache_directory is None else cache_directory,
        seed,
        str(folder),
        progress,
    )
