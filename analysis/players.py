"""Players followed across archives: who is who, and each player's figures over every analysed game, by
period, with 95% intervals.

Who is who. A player is recognised by a normalised name (``taldau.base.names.name_key``, by which a game's
identity names its players too): Unicode compatibility forms, case, runs of white space, the site prefixes
of online exports (``playok:``, ``galaxy:`` ...) and the Cyrillic letters of Kazakh and Russian names,
transliterated to Latin, so that ``Магжан`` and ``magzhan`` are one player. An aliases file (``Aliases``)
merges names the user knows to be one player; names that look alike but are not merged (``look_alike``:
the same letters once digits, punctuation and one letter are left out) are listed, for the user to
decide.

Figures. Everything comes from the ``games`` table, which holds each side's sums per game (decisions
counted, error, checker and cube parts, accuracy, marks, luck): a player's error rate is the summed error
over the summed counted decisions of their games, PR (backgammon) its scale's factor times that, and so
on. Intervals (for MIN_GAMES games or more; none where every game is alike, such as the score of a player
who lost every game, which resampling cannot widen) are bootstrap intervals over games, not decisions:
the decisions of one game share its player's form that day and are not independent; resampling whole
games keeps that (its coverage is checked by simulation in ``tests/test_players.py``). A Togyz player's
performance rating is the mean rating of the opponents plus 400 log10(s / (1 - s)) for the score s, over
the games whose opponent's rating the record gives.

Why a function and not a fourth table: the figures are sums over the games table (a second for a whole
archive), and what they group depends on the aliases and the period asked, which change after the
analysis; a stored table would go stale as soon as an alias is added.
"""

from __future__ import annotations

import codecs
import math
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from taldau.base.identity import FirstFound
from taldau.base.kind import MarkScale
from taldau.base.names import name_key
from taldau.games.registry import analyser

from .folder import AnalysisFolder, FolderError, open_folder
from .tally import Tally, tally_of_row

# Where records write the date of a game (PGN and Togyz archives ``Date``; Jellyfish files of gnubg,
# BackgammonGalaxy and Backgammon Studio ``EventDate``, as the SGF reader names ``DT`` too; lichess's PGN
# ``UTCDate``), and its event (``Event``; BackgammonGalaxy writes none: its ``Site``).
DATE_HEADERS = ("Date", "EventDate", "UTCDate")
EVENT_HEADERS = ("Event", "Site")
PERIODS = ("month", "year", "event")
# The figures a player is shown by, in order, as (heading, ``Figures`` field): where the game's scale rates
# players (a PR: backgammon), and where it does not (Togyz); the first is the one a form graph follows.
RATED_FIGURES = (("PR", "pr"), ("Checker PR", "checker_pr"), ("Cube PR", "cube_pr"), ("Luck/game", "luck"))
PLAIN_FIGURES = (("Accuracy", "accuracy"), ("Error rate", "error_rate"), ("Performance", "performance"))
MIN_GAMES = 8  # the fewest games an interval is given for: fewer resample too coarsely to mean anything


def _alphabetical(name: str) -> tuple[str, str]:
    """The order names are listed in: alphabetical in any case, ``Lasse`` before ``lasse``, the same on
    every run (a set of names iterates in another order each process)."""
    return name.casefold(), name


def _skeleton(key: str) -> str:
    """A name key's letters alone: what ``look_alike`` compares."""
    return "".join(letter for letter in key if letter.isalpha())


class AliasError(ValueError):
    """An aliases file that cannot be read: the message names the file and line."""


@dataclass(frozen=True)
class Aliases:
    """Names the user knows to be one player: each name key -> the name the player is shown by. Read from
    a text file (``read``) of lines ``Shown name = other spelling, another one``; ``#`` starts a comment."""

    shown: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def read(cls, path: str | Path) -> Aliases:
        """The aliases of the file at ``path``; AliasError naming the file and line for a line that is not
        ``name = names``, a name given to two players, or a byte that is not UTF-8; AliasError naming the
        file for a file that cannot be read."""
        shown: dict[str, str] = {}
        try:
            data = Path(path).read_bytes().removeprefix(codecs.BOM_UTF8)
            text = data.decode("utf-8")
        except OSError as error:
            raise AliasError(f"{path}: cannot be read: {error.strerror or error}") from None
        except UnicodeDecodeError as error:
            line = data.count(b"\n", 0, error.start) + 1
            raise AliasError(
                f"{path}, line {line}: byte 0x{data[error.start]:02x} is not UTF-8 (save the file as UTF-8)"
            ) from None
        for number, line in enumerate(text.splitlines(), start=1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            name, equals, others = line.partition("=")
            names = [name.strip(), *(other.strip() for other in others.split(","))]
            if not equals or not all(names):
                raise AliasError(f"{path}, line {number}: write a player as 'Shown name = other name, ...'")
            for spelling in names:
                key = name_key(spelling)
                if shown.get(key, names[0]) != names[0]:
                    raise AliasError(f"{path}, line {number}: {spelling!r} is already {shown[key]!r}")
                shown[key] = names[0]
        return cls(shown)

    def key(self, name: str) -> str:
        """The key of the player ``name`` belongs to (the alias's shown name's key where one merges it)."""
        key = name_key(name)
        return name_key(self.shown[key]) if key in self.shown else key


def look_alike(names: Iterable[str], aliases: Aliases = Aliases()) -> list[tuple[str, ...]]:
    """Names seen as different players that may be one: groups whose letters agree once digits and
    punctuation are left out (``toni2012`` and ``toni``), and pairs of names of five letters or more one
    letter apart (``aizhan`` and ``aizhanm``; never chained, so ``madiar`` and ``madina`` stay apart from
    ``aldiar``); names the aliases already merge are one player and not listed. Each group sorted, the
    groups in order of their first name."""
    spelled: dict[str, str] = {}
    for name in names:  # the first spelling of a player stands for it
        spelled.setdefault(aliases.key(name), name)
    by_skeleton: dict[str, list[str]] = defaultdict(list)
    for key, name in spelled.items():
        if len(_skeleton(key)) >= 3:
            by_skeleton[_skeleton(key)].append(name)
    found = {tuple(sorted(group, key=_alphabetical)) for group in by_skeleton.values() if len(group) > 1}
    by_deletion: dict[str, set[str]] = defaultdict(set)
    for skeleton in by_skeleton:
        if len(skeleton) >= 5:
            by_deletion[skeleton].add(skeleton)
            for index in range(len(skeleton)):
                by_deletion[skeleton[:index] + skeleton[index + 1 :]].add(skeleton)
    for skeletons in by_deletion.values():
        for first in skeletons:
            for second in skeletons:
                if first < second and abs(len(first) - len(second)) <= 1:
                    pair = by_skeleton[first][:1] + by_skeleton[second][:1]
                    found.add(tuple(sorted(pair, key=_alphabetical)))
    return sorted(found, key=lambda group: tuple(name.casefold() for name in group))


@dataclass(frozen=True)
class Sitting:
    """One player's side of one analysed game: who (the name as written and the player's key), the game
    (id, record file, match task, date, event), the opponent, the result (``score`` 1, 0.5 or 0; None
    when unfinished; ``points`` won or lost, backgammon), the opponent's rating as the record gives it,
    and the side's tally of the game (its sums in the games table: counted decisions, error, marks, luck)."""

    name: str
    key: str
    game_id: str
    source: str
    task: str | None
    in_match: bool
    date: str
    event: str
    opponent: str
    opponent_key: str
    score: float | None
    points: int | None
    opponent_rating: float | None
    tally: Tally

    def period(self, by: str | None) -> str:
        """The period the game falls in: ``2024-12`` (month), ``2024`` (year), its event, or ``all``."""
        if by is None:
            return "all"
        if by == "event":
            return self.event or "(no event)"
        digits = re.findall(r"\d+", self.date)
        if not digits or len(digits[0]) != 4:
            return "(no date)"
        return digits[0] if by == "year" or len(digits) < 2 else f"{digits[0]}-{int(digits[1]):02d}"


def side_score(result: str | None, winner: int | None, side: int) -> float | None:
    """A side's score in a game: 1 a win, 0.5 a draw, 0 a loss, from the winner (backgammon) or the
    written result (Togyz ``1-0``, ``0-1``, ``1/2-1/2``); None for an unfinished game."""
    if winner is not None:
        return 1.0 if winner == side else 0.0
    first = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}.get((result or "").replace(" ", ""))
    return None if first is None else (first if side == 0 else 1.0 - first)


def _rating(text: str | None) -> float | None:
    try:
        value = float(text) if text else None
    except ValueError:
        return None
    return value if value is not None and value > 0 and math.isfinite(value) else None


SIDES = ("white", "black")  # the games table's prefixes of the first and the second player's columns


def sittings(folder: AnalysisFolder, aliases: Aliases = Aliases()) -> list[Sitting]:
    """Both named sides of every analysed game of ``folder`` (a side the record names no one is left out),
    in the table's order."""
    found = []
    for batch in folder.batches("games", rows=4_096):  # the table's Python rows would outweigh the sittings
        found += sittings_of(batch.to_pylist(), aliases)
    return found


def sittings_of(rows: Iterable[Mapping[str, Any]], aliases: Aliases = Aliases()) -> list[Sitting]:
    """Both named sides of every analysed game of ``rows`` (``games`` rows), in their order."""
    found = []
    for row in rows:
        if row["status"] != "ok":
            continue
        headers = dict(row.get("headers") or [])
        date = next((headers[name] for name in DATE_HEADERS if headers.get(name)), "")
        event = next((headers[name] for name in EVENT_HEADERS if headers.get(name)), "")
        names = (row.get("white"), row.get("black"))
        for side, prefix in enumerate(SIDES):
            name, opponent = names[side], names[1 - side]
            if not name:
                continue
            found.append(
                Sitting(
                    name=name,
                    key=aliases.key(name),
                    game_id=row["game_id"],
                    source=row["source"],
                    task=row.get("task"),
                    in_match=row.get("match_length") is not None,
                    date=date,
                    event=event,
                    opponent=opponent or "",
                    opponent_key=aliases.key(opponent) if opponent else "",
                    score=side_score(row.get("result"), row.get("winner"), side),
                    points=None
                    if row.get("points") is None or row.get("winner") is None
                    else (row["points"] if row["winner"] == side else -row["points"]),
                    opponent_rating=_rating(row.get(f"{SIDES[1 - side]}_elo")),
                    tally=tally_of_row(row, prefix),
                )
            )
    return found


@dataclass(frozen=True)
class Estimate:
    """A figure (None where there are no decisions to make it of) and its interval (None below
    ``MIN_GAMES`` games, and where every resample is alike: never one of no width)."""

    value: float | None
    low: float | None = None
    high: float | None = None

    @staticmethod
    def within(value: float, low: float, high: float) -> Estimate:
        """``value`` with the interval from ``low`` to ``high``, or with none where it has no width: every
        resample alike (a player who lost every game), nothing it could claim 95% of."""
        if high - low <= 1e-9 * max(1.0, abs(value)):
            return Estimate(value)
        return Estimate(value, low, high)

    def to_json(self) -> dict[str, float | None]:
        return {name: None if value is None else round(value, 6) for name, value in asdict(self).items()}

    def __str__(self) -> str:
        if self.value is None:
            return "-"
        if self.low is None or self.high is None:
            return f"{self.value:.2f}"
        return f"{self.value:.2f} [{self.low:.2f}, {self.high:.2f}]"


@dataclass(frozen=True)
class PlayerSettings:
    """How players are figured: ``by`` period (None, ``month``, ``year``, ``event``), only players with at
    least ``min_decisions`` counted decisions, the ``player`` asked (None: everyone), and the bootstrap's
    ``resamples``, ``confidence`` and ``seed`` (the same seed gives the same intervals). ``also``: other
    periods to group each player's games by besides ``by`` (``Player.also``), each with the intervals
    players grouped by it alone get (one reading of the folders serves the report's months and events)."""

    by: str | None = None
    min_decisions: int = 1
    player: str | None = None
    resamples: int = 2000
    confidence: float = 0.95
    seed: int = 46
    also: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if any(by is not None and by not in PERIODS for by in (self.by, *self.also)):
            wrong = next(by for by in (self.by, *self.also) if by not in PERIODS)
            raise ValueError(f"players are grouped by {', '.join(PERIODS)}, not {wrong!r}")
        if self.resamples < 100 or not 0 < self.confidence < 1:
            raise ValueError("give 100 or more resamples and a confidence between 0 and 1")


CHUNK = 1_000_000  # picks of resampled games worked on at once


def _picks(rng: np.random.Generator, games: int, resamples: int) -> np.ndarray:
    """``resamples`` rows of ``games`` games drawn with replacement, as ``rng.integers`` draws them in one
    call, held as 32-bit numbers (a player of 28,720 games: 230 MB, not 460)."""
    picks = np.empty((resamples, games), dtype=np.int32)
    rows = max(1, CHUNK // games)
    for start in range(0, resamples, rows):
        stop = min(start + rows, resamples)
        picks[start:stop] = rng.integers(0, games, (stop - start, games))
    return picks


class Bootstrap:
    """Bootstrap intervals of figures summed over games: one set of resampled games, drawn once per player
    and period, serves every figure, so the intervals of one player agree with each other."""

    def __init__(self, games: int, settings: PlayerSettings, rng: np.random.Generator) -> None:
        self.settings, self.rng = settings, rng
        self.picks = _picks(rng, games, settings.resamples) if games >= MIN_GAMES else None
        tail = (1 - settings.confidence) / 2
        self.quantiles = (tail, 1 - tail)

    def _chunks(self) -> list[np.ndarray]:
        """The resampled games a million picks at a time (what one step of a figure's arithmetic holds)."""
        assert self.picks is not None
        return np.array_split(self.picks, max(1, self.picks.size // CHUNK))

    def ratio(self, numerator: np.ndarray, denominator: np.ndarray, factor: float = 1.0) -> Estimate:
        """``factor`` x sum(numerator) / sum(denominator) over the games, with its bootstrap-t interval:
        the resampled ratios studentized by their spread over games (a ratio's standard error from its
        games' residuals), which keeps its coverage where a skewed figure (errors: most games clean, a few
        costly) leaves the plain percentiles short. None over no denominator."""
        total = float(denominator.sum())
        if total <= 0:
            return Estimate(None)
        ratio = float(numerator.sum()) / total
        if self.picks is None:
            return Estimate(factor * ratio)
        spread = math.sqrt(float(np.sum((numerator - ratio * denominator) ** 2))) / total
        if spread == 0:  # every game at the same rate (all lost, all clean): nothing to resample
            return Estimate(factor * ratio)
        studentized = []
        for rows in self._chunks():
            top, bottom = numerator[rows], denominator[rows]
            sums = bottom.sum(axis=1)
            resampled = top.sum(axis=1) / np.where(sums > 0, sums, 1.0)
            spreads = np.sqrt(np.sum((top - resampled[:, None] * bottom) ** 2, axis=1)) / np.where(
                sums > 0, sums, 1.0
            )
            kept = (sums > 0) & (spreads > 0)
            studentized.append((resampled[kept] - ratio) / spreads[kept])
        pooled = np.concatenate(studentized)
        if pooled.size == 0:
            return Estimate(factor * ratio)
        low, high = np.quantile(pooled, self.quantiles)
        lowest = 0.0 if numerator.min() >= 0 else -math.inf  # a sum of losses or counts is never below 0
        return Estimate.within(
            factor * ratio, factor * max(ratio - high * spread, lowest), factor * (ratio - low * spread)
        )

    def performance(self, scores: np.ndarray, ratings: np.ndarray) -> Estimate:
        """The performance rating of ``scores`` against opponents of ``ratings`` (mean rating plus
        400 log10(s / (1 - s)), the score kept half a game from 0 and from all), with its interval."""

        def rating(score: np.ndarray, opponents: np.ndarray, games: int) -> np.ndarray:
            share = np.clip(score, 0.5 / games, 1 - 0.5 / games)
            return opponents + 400 * np.log10(share / (1 - share))

        games = len(scores)
        if games == 0:
            return Estimate(None)
        value = float(rating(scores.mean(), ratings.mean(), games))
        if self.picks is None:
            return Estimate(value)
        values = np.concatenate(
            [rating(scores[rows].mean(axis=1), ratings[rows].mean(axis=1), games) for rows in self._chunks()]
        )
        low, high = np.quantile(values, self.quantiles)
        return Estimate.within(value, float(low), float(high))


@dataclass(frozen=True)
class Figures:
    """A player's figures over some games: how many games, matches (backgammon tasks) and counted
    decisions; the error rate (mean loss per counted decision, in the scale's unit) and its checker and
    cube parts; PR (the scale's factor times those, backgammon) and the rating band of the error rate;
    accuracy and the marks per 100 counted decisions; the luck per game (backgammon, EMG); the score (the
    share of the points of finished games) and the Togyz performance rating. Each estimate with its
    interval over games."""

    games: int
    matches: int
    decisions: int
    error_rate: Estimate
    checker_error_rate: Estimate
    cube_error_rate: Estimate
    pr: Estimate
    checker_pr: Estimate
    cube_pr: Estimate
    rating: str | None
    accuracy: Estimate
    marks_per_100: tuple[Estimate, Estimate, Estimate]
    luck: Estimate
    score: Estimate
    performance: Estimate

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for name, value in vars(self).items():
            if isinstance(value, Estimate):
                data[name] = value.to_json()
            elif name == "marks_per_100":
                data[name] = dict(zip(("?!", "?", "??"), (mark.to_json() for mark in value), strict=True))
            else:
                data[name] = value
        return data


def figures(games: Sequence[Sitting], scale: MarkScale | None, bootstrap: Bootstrap) -> Figures:
    """The figures of ``games`` (one player's), in ``scale`` (its PR factor and rating bands, where it
    has them), with ``bootstrap``'s intervals over those games."""

    def column(name: str) -> np.ndarray:
        return np.array([getattr(game.tally, name) for game in games], dtype=np.float64)

    counted = column("counted")
    factor = None if scale is None else scale.pr_factor
    error = bootstrap.ratio(column("error"), counted)
    checker = bootstrap.ratio(column("moves_error"), column("moves_counted"))
    cube = bootstrap.ratio(column("others_error"), column("others_counted"))

    def pr(numerator: str, denominator: str) -> Estimate:
        return (
            Estimate(None)
            if factor is None
            else bootstrap.ratio(column(numerator), column(denominator), factor)
        )

    accuracy = column("accuracy_sum")
    marks = np.array([game.tally.marks for game in games], dtype=np.float64).reshape(len(games), 3)
    luck = np.array([game.tally.figure("luck") or 0 for game in games], dtype=np.float64)
    finished = np.array([game.score is not None for game in games])
    scores = np.array([game.score or 0.0 for game in games], dtype=np.float64)
    rated = np.array([game.score is not None and game.opponent_rating is not None for game in games])
    ratings = np.array([game.opponent_rating or 0.0 for game in games], dtype=np.float64)
    ones = np.ones(len(games))
    performance = Estimate(None)
    if rated.any():  # over the games with a rated opponent, resampled apart
        rated_games = Bootstrap(int(rated.sum()), bootstrap.settings, bootstrap.rng)
        performance = rated_games.performance(scores[rated], ratings[rated])
    return Figures(
        games=len(games),
        matches=len({(game.source, game.task) for game in games if game.in_match}),
        decisions=int(counted.sum()),
        error_rate=error,
        checker_error_rate=checker,
        cube_error_rate=cube,
        pr=pr("error", "counted"),
        checker_pr=pr("moves_error", "moves_counted"),
        cube_pr=pr("others_error", "others_counted"),
        rating=None if scale is None or error.value is None else scale.rating(error.value),
        accuracy=bootstrap.ratio(accuracy, counted),
        marks_per_100=(
            bootstrap.ratio(marks[:, 0], counted, 100.0),
            bootstrap.ratio(marks[:, 1], counted, 100.0),
            bootstrap.ratio(marks[:, 2], counted, 100.0),
        ),
        luck=Estimate(None) if scale is None or scale.pr_factor is None else bootstrap.ratio(luck, ones),
        score=bootstrap.ratio(scores * finished, finished.astype(np.float64)),
        performance=performance,
    )


@dataclass(frozen=True)
class HeadToHead:
    """A player's results against one opponent: games, wins, draws and losses, and the points won less
    the points lost (backgammon; 0 for Togyz)."""

    opponent: str
    games: int
    wins: int
    draws: int
    losses: int
    points: int


@dataclass(frozen=True)
class Player:
    """One player over the archives: the name shown (the alias's, else the most used spelling), every
    spelling seen, the figures over all the games, by period (in order), the results head to head (most
    games first) and by each of ``PlayerSettings.also``'s periods (``also``, not in the JSON)."""

    name: str
    spellings: tuple[str, ...]
    overall: Figures
    periods: dict[str, Figures]
    head_to_head: tuple[HeadToHead, ...]
    also: dict[str, dict[str, Figures]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "spellings": list(self.spellings),
            **self.overall.to_json(),
            "periods": {period: figures.to_json() for period, figures in self.periods.items()},
            "head_to_head": [asdict(row) for row in self.head_to_head],
        }


@dataclass(frozen=True)
class PlayersReport:
    """The players of one or more analysis folders of one game, engine and settings (``judge``: the
    engine and its limit, as the folders' manifests name them; ``rated``: whether its scale rates players
    by a PR), those left out for too few decisions, and the names that may be one player but are not
    merged."""

    game: str
    judge: str
    rated: bool
    folders: tuple[str, ...]
    players: tuple[Player, ...]
    fewer_decisions: int
    look_alike: tuple[tuple[str, ...], ...]
    settings: PlayerSettings

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "judge": self.judge,
            "rated": self.rated,
            "folders": list(self.folders),
            "by": self.settings.by,
            "confidence": self.settings.confidence,
            "players": [player.to_json() for player in self.players],
            "fewer_decisions": self.fewer_decisions,
            "look_alike": [list(group) for group in self.look_alike],
        }


def open_folders(paths: Sequence[str | Path]) -> list[AnalysisFolder]:
    """The analysis folders at ``paths``, all of one game, engine and limit: PR and marks depend on the
    judge, so folders judged otherwise are refused (FolderError naming both and how each was judged)."""
    folders = [open_folder(path) for path in paths]
    first = folders[0]
    for other in folders[1:]:
        judged_alike((str(first.path), AnalysisJudge.of(first)), (str(other.path), AnalysisJudge.of(other)))
    return folders


@dataclass(frozen=True)
class AnalysisJudge:
    """How an analysis judged its decisions: the game, the engine's version and the search limit, which
    its figures and marks depend on (``label``: the engine as people read it,
    ``FolderSettings.engine_label``, not compared)."""

    game: str
    engine: str
    limit: str
    label: str = field(default="", compare=False)

    @classmethod
    def of(cls, folder: AnalysisFolder) -> AnalysisJudge:
        settings = folder.settings
        return cls(settings.game, settings.engine, settings.limit, settings.engine_label)

    def __str__(self) -> str:
        return f"{self.game}, {self.label or self.engine}, {self.limit}"

    def to_json(self) -> dict[str, str]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, str]) -> AnalysisJudge:
        return cls(**data)


def judged_alike(first: tuple[str, AnalysisJudge], other: tuple[str, AnalysisJudge]) -> None:
    """FolderError naming both analyses (each a name and its judge) and how each was judged, unless one
    judge made them: figures and values judged otherwise do not mix."""
    if first[1] != other[1]:
        raise FolderError(
            f"{first[0]} and {other[0]} were judged differently, and their figures do not mix: "
            f"{first[1]} against {other[1]}"
        )


def scale_of(game: str) -> MarkScale | None:
    """The mark scale of a game's analyser (None for a game without one)."""
    try:
        return analyser(game).scale
    except (ValueError, KeyError):
        return None


def _head_to_head(games: Sequence[Sitting], shown: Mapping[str, str]) -> tuple[HeadToHead, ...]:
    rows: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
    for game in games:
        if not game.opponent_key:
            continue
        row = rows[game.opponent_key]
        row[0] += 1
        if game.score is not None:
            row[1 if game.score == 1 else 2 if game.score == 0.5 else 3] += 1
        row[4] += game.points or 0
    found = [HeadToHead(shown.get(key, key), *counts) for key, counts in rows.items()]
    return tuple(sorted(found, key=lambda row: (-row.games, row.opponent.casefold())))


def players(
    paths: Sequence[str | Path], settings: PlayerSettings = PlayerSettings(), aliases: Aliases = Aliases()
) -> PlayersReport:
    """Every player of the analysis folders at ``paths`` (one game, engine and limit: ``open_folders``)
    with their figures, by ``settings``' period, most games first; only ``settings.player`` where given
    (any of its spellings or aliases)."""
    folders = open_folders(paths)
    return roster_of(folders, [sittings(folder, aliases) for folder in folders], settings, aliases)


def _periods(
    games: Sequence[Sitting],
    by: str | None,
    scale: MarkScale | None,
    settings: PlayerSettings,
    rng: np.random.Generator,
) -> dict[str, Figures]:
    """A player's ``games`` grouped by period ``by`` (none for None), each group's figures with
    intervals drawn from ``rng``."""
    if not by:
        return {}
    periods: dict[str, list[Sitting]] = defaultdict(list)
    for game in games:
        periods[game.period(by)].append(game)
    return {
        period: figures(part, scale, Bootstrap(len(part), settings, rng))
        for period, part in sorted(periods.items())
    }


def _drawn_over(games: Sequence[Sitting], settings: PlayerSettings, rng: np.random.Generator) -> None:
    """Draw from ``rng`` what ``figures`` of ``games`` draws (its resamples of the games, and of those
    with a rated opponent), so that a grouping's own stream of resamples is the one it has alone."""
    Bootstrap(len(games), settings, rng)
    rated = sum(game.score is not None and game.opponent_rating is not None for game in games)
    if rated:
        Bootstrap(rated, settings, rng)


def roster_of(
    folders: Sequence[AnalysisFolder],
    found_in: Sequence[Sequence[Sitting]],
    settings: PlayerSettings = PlayerSettings(),
    aliases: Aliases = Aliases(),
) -> PlayersReport:
    """``players`` of ``folders`` whose sittings (``found_in``, one list a folder, by ``aliases``) are
    read: a game analysed in two folders counts once."""
    seen: dict[str, Sitting] = {}
    earlier: FirstFound[str] = FirstFound()  # the games of the folders before, by id
    for found in found_in:  # a game analysed in two folders (from one record of it or two) counts once
        for sitting in found:
            first = earlier.find(sitting.game_id) or sitting.game_id
            seen.setdefault(f"{first}:{sitting.key}", sitting)
        for sitting in found:
            earlier.first(sitting.game_id, sitting.game_id)
    by_player: dict[str, list[Sitting]] = defaultdict(list)
    for sitting in seen.values():
        by_player[sitting.key].append(sitting)
    shown = {key: _shown(key, games, aliases) for key, games in by_player.items()}
    wanted = None if settings.player is None else aliases.key(settings.player)
    scale = scale_of(folders[0].settings.game)
    rng = np.random.default_rng(settings.seed)
    streams = {by: np.random.default_rng(settings.seed) for by in settings.also}
    players_found, fewer = [], 0
    for key in sorted(by_player, key=lambda key: (-len(by_player[key]), shown[key].casefold())):
        games = by_player[key]
        if wanted is not None and key != wanted:
            continue
        if sum(game.tally.counted for game in games) < settings.min_decisions:
            fewer += 1
            continue
        for stream in streams.values():
            _drawn_over(games, settings, stream)
        players_found.append(
            Player(
                name=shown[key],
                spellings=tuple(sorted({game.name for game in games}, key=_alphabetical)),
                overall=figures(games, scale, Bootstrap(len(games), settings, rng)),
                periods=_periods(games, settings.by, scale, settings, rng),
                head_to_head=_head_to_head(games, shown),
                also={by: _periods(games, by, scale, settings, stream) for by, stream in streams.items()},
            )
        )
    names = sorted({sitting.name for sitting in seen.values()}, key=_alphabetical)
    return PlayersReport(
        game=folders[0].settings.game,
        judge=str(AnalysisJudge.of(folders[0])),
        rated=scale is not None and scale.pr_factor is not None,
        folders=tuple(str(folder.path) for folder in folders),
        players=tuple(players_found),
        fewer_decisions=fewer,
        look_alike=tuple(look_alike(names, aliases)),
        settings=settings,
    )


def _shown(key: str, games: Sequence[Sitting], aliases: Aliases) -> str:
    """The name a player is shown by: the alias file's, else the spelling of most of their games."""
    if key in aliases.shown:
        return aliases.shown[key]
    counts: dict[str, int] = defaultdict(int)
    for game in games:
        counts[game.name] += 1
    return min(counts, key=lambda name: (-counts[name], name))


def shown_figures(rated: bool) -> tuple[tuple[str, str], ...]:
    """The figures a player is shown by (``RATED_FIGURES`` where the scale rates players, else
    ``PLAIN_FIGURES``)."""
    return RATED_FIGURES if rated else PLAIN_FIGURES
