"""Backgammon behind taldau's common face (``taldau.base.kind``): match records (Jellyfish .mat/.txt, gnubg
SGF, XG) read and replayed game by game. A task is one match: its games in order, carried as JSON data
(the match as read, with the judgements the file holds, XG's and gnubg's: ``records.task``) and replayed
from it, so that the score and the cube carry from game to game as they did at the table.

The analyser (``BackgammonAnalyser``) reviews a match as GNU Backgammon's "analyse match" does
(``review.review_match``: every checker play, cube decision and take decision judged in cubeful equity,
EMG, with gnubg's marks and the luck of every roll) and hands the decisions on in the common shape
(``taldau.base.kind.Decision``), values of positions from the match's first player's side, each with the
judgement the file holds of it as its reference (``verdicts``). ``StoredAnalyser`` takes those judgements
as the analysis (``--level stored``), evaluating nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import ClassVar

import numpy as np
from taldau.base.identity import former_game_id, game_id
from taldau.base.kind import (
    Annotation,
    Decision,
    GameAnalysis,
    GameFacts,
    Limit,
    MarkScale,
    MatchFacts,
    Opening,
    OpeningPly,
    header_date,
    header_rating,
    pov,
)
from taldau.base.records import RecordFile

from . import recognises as is_backgammon
from .engine import Evaluator
from .engine.analyse import DEFAULT_ENGINE, ENGINES, EngineChoice, choose_evaluator
from .engine.cubeful import CubeEquities, cubeless_emg
from .records.record import ActionKind
from .records.replay import Game, read_games, replay_file
from .records.task import decode_task, encode_match
from .records.writer import format_action
from .review.analysis_text import analysis_text
from .review.cubes import CubeChoice, CubeReview
from .review.decision import BackgammonDetail
from .review.levels import DEFAULT_LEVEL, LEVEL_PLIES, ReviewedDecision, ReviewSettings
from .review.marks import EMG_SCALE
from .review.match import MatchReview, review_match
from .review.plays import MoveDecision
from .review.verdicts import reference, stored_analyses
from .rules.position import Position
from .rules.position_text import read_position
from .svg import render_svg

DEFAULT_PLIES = LEVEL_PLIES[DEFAULT_LEVEL]  # gnubg's default analysis, 2 plies
BOOK_PLIES = 10  # an opening book's default depth, in checker plays (five of each player)
# The 8-bit code pages of backgammon files that are not UTF-8, most used first: the sites' and programs'
# Western European Windows-1252 (Latin-1's superset), then Windows-1251.
ENCODINGS = ("cp1252", "cp1251")
# Seconds per decision at each ply with the shipped nets on one core of this machine kind (a 2-ply
# decision: the checker play with the move filter, the cube decision and the luck of the roll), as
# measured with `taldau bench speed --game backgammon`; a task may take MARGIN times as long.
SECONDS_PER_DECISION = (0.01, 0.05, 0.4, 20.0)
# The plies the warm-up reviews at: 1 ply runs every kernel that 2 plies and more do (the cube look-ahead
# above 0 plies; sage's deeper plies are bgsage's C++, our own nets' run the 1-ply kernels again). A 2-ply
# warm-up compiled nothing a real match's 2-ply review needed (with numba's cache empty, after warming at 0
# and 1 ply, a 2-ply review of a match compiled no kernel, for sage and for own) and cost every process
# that warms 1.2 s of CPU with sage (BENCHMARKS.md, issue 57, fourth session).
WARM_PLIES = (0, 1)
MARGIN = 5
IN_DOUBT = 0.25  # the share of decisions in doubt (deep and world levels), as measured on real matches
ROLLOUT_TRIAL_SECONDS = 0.1  # one cubeful trial played to the end, variance reduced (bgsage, one core)
# A short match whose review runs the compiled kernels of a review: checker plays, a double and its take.
WARM_UP_MATCH = """ 3 point match

 Game 1
 white : 0                      black : 0
  1) 31: 8/5 6/5                 64: 24/18 18/14
  2)  Doubles => 2                Takes
  3) 52: 13/8 6/4               43: 13/9 13/10
"""


@dataclass(frozen=True)
class BackgammonAnalyser:
    """An evaluator (``engine``: ``sage``, bgsage's nets, by default; ``own``, taldau's; ``gnubg`` with the
    optional gnubg-nn) reviewing whole matches (see ``taldau.base.kind.Analyser``). ``depth`` in the
    user's limit's depth is the plies, gnubg's numbering for every engine (sage's own "3ply" is depth 2).

    Where ``sage`` cannot run here, ``own`` stands in (``fallback`` says so): ``version``, and with it the
    settings key, is the loaded evaluator's, so a worker whose sage fell back computes another key than a
    client whose sage loaded, and its results are refused rather than mixed in."""

    engine: str = DEFAULT_ENGINE

    @cached_property
    def choice(self) -> EngineChoice:
        """The evaluator of ``engine`` (or its stand-in), loaded once."""
        return choose_evaluator(self.engine)

    @property
    def evaluator(self) -> Evaluator:
        return self.choice.evaluator

    @property
    def scale(self) -> MarkScale:
        return EMG_SCALE

    def search(self, limit: Limit) -> ReviewSettings:
        """The review's settings: the named ``level`` (``review.LEVELS``; standard by default), its plies
        (gnubg's 2, quick's 0) or ``depth`` for plays and cube, with the move filter of the engine that runs
        (``engine.engine_search``)."""
        if limit.nodes is not None or limit.movetime is not None:
            raise ValueError("backgammon analysis is limited by plies (--depth), not nodes or time")
        if limit.depth is not None and not 0 <= limit.depth < len(SECONDS_PER_DECISION):
            raise ValueError(
                f"backgammon analysis goes 0 to {len(SECONDS_PER_DECISION) - 1} plies, not {limit.depth}"
            )
        level = limit.level or DEFAULT_LEVEL
        return ReviewSettings.of_level(level, self.engine_name(), limit.depth)

    def version(self) -> str:
        return self.evaluator.version

    def engine_name(self) -> str:
        return self.evaluator.name

    def fallback(self) -> str | None:
        return self.choice.fallback

    def time_budget(self, limit: Limit, decisions: int) -> float:
        """MARGIN times the measured cost of a decision at the review's plies, and of settling the ones in
        doubt where the level does (``settle_seconds``)."""
        settings = self.search(limit)
        return MARGIN * (SECONDS_PER_DECISION[settings.plies] + settle_seconds(settings)) * decisions

    def warm(self) -> None:
        """Review WARM_UP_MATCH at WARM_PLIES: its checker plays, cube decisions and take decisions run the
        kernels that any match's do (a race or bearing off compiles a few more, in seconds)."""
        games = list(read_games(WARM_UP_MATCH.encode(), "warm-up"))
        for plies in WARM_PLIES:
            review_match(games, self.evaluator, ReviewSettings(plies=plies))

    def review(
        self,
        games: Sequence[Game],
        limit: Limit,
        progress: Callable[[int], object] | None = None,
    ) -> list[GameAnalysis]:
        """The valid games of a match, ``games``, reviewed in order with the match state carried
        (``progress`` hears each game's decisions once it is reviewed)."""
        games = list(games)
        return game_analyses(games, review_match(games, self.evaluator, self.search(limit), progress))

    def annotate(self, games: Sequence[Game], notes: Sequence[Annotation], form: str) -> str:
        """The match's valid games as an analysis text in the manner of gnubg's text export
        (``analysis_text``): the players by name, per game the score, every decision under the match
        file's move number (a checker play with its mark, the best play and the equity lost, the luck of
        the roll; a cube or take decision with its three cubeful equities and the proper action), the
        result and gnubg's statistics table, then the match's. ``form`` ``full`` lists every decision,
        ``short`` only the marked ones and the cube actions taken."""
        return analysis_text(list(games), notes, form)


STORED_SEARCH = "stored: the judgements the match files hold, nothing searched"


@dataclass(frozen=True)
class StoredAnalyser:
    """The judgements a match file holds taken as its analysis (``--level stored``; see
    ``taldau.base.kind.Analyser``): XG's of a ``.xg``, gnubg's of an analysed SGF, evaluating nothing, so
    that an archive analysed by XG gets its players' figures, reports and books at no cost
    (``verdicts.stored_analyses``). Its version, and with it the settings key, names no engine."""

    @property
    def scale(self) -> MarkScale:
        return EMG_SCALE

    def search(self, limit: Limit) -> str:
        """STORED_SEARCH; ValueError where the limit asks for a search (plies, nodes, time)."""
        if limit.stops:
            raise ValueError(
                f"--level {limit.level} searches nothing: give no --depth, --nodes or --movetime"
            )
        return STORED_SEARCH

    def version(self) -> str:
        return "stored judgements"

    def engine_name(self) -> str:
        return "stored"

    def fallback(self) -> str | None:
        return None

    def time_budget(self, limit: Limit, decisions: int) -> float:
        """What replaying a match takes, with room: SECONDS_PER_DECISION's quickest per decision, MARGIN
        times."""
        return MARGIN * SECONDS_PER_DECISION[0] * decisions

    def warm(self) -> None:
        """Replay WARM_UP_MATCH as a stored review does: the kernels of the rules (the legal plays) are the
        only ones it runs."""
        stored_analyses(list(read_games(WARM_UP_MATCH.encode(), "warm-up")))

    def review(
        self,
        games: Sequence[Game],
        limit: Limit,
        progress: Callable[[int], object] | None = None,
    ) -> list[GameAnalysis]:
        """The valid games of a match, ``games``, judged by the verdicts its file holds."""
        analyses = stored_analyses(list(games))
        if progress is not None:
            for analysis in analyses:
                progress(len(analysis.decisions))
        return analyses

    def annotate(self, games: Sequence[Game], notes: Sequence[Annotation], form: str) -> str:
        """As ``BackgammonAnalyser.annotate``."""
        return analysis_text(list(games), notes, form)


def settle_seconds(settings: ReviewSettings) -> float:
    """What settling the decisions in doubt adds to a decision's seconds, on average: IN_DOUBT of them,
    each with up to ``Settle.plays`` plays judged again at the settling plies (SECONDS_PER_DECISION,
    which judges about as many) or rolled out (ROLLOUT_TRIAL_SECONDS a trial)."""
    settle = settings.settle
    if settle is None:
        return 0.0
    if settle.rollout is None:
        assert settle.plies is not None
        return IN_DOUBT * SECONDS_PER_DECISION[min(settle.plies, len(SECONDS_PER_DECISION) - 1)]
    return IN_DOUBT * settle.plays * settle.rollout.trials * ROLLOUT_TRIAL_SECONDS


def game_analyses(games: Sequence[Game], review: MatchReview) -> list[GameAnalysis]:
    """The review of the match of ``games`` (``review.review_match`` of them) in the common shape: one
    ``GameAnalysis`` per game, in order."""
    return [
        GameAnalysis(tuple(_decision(game, ply, decision) for ply, decision in enumerate(reviewed.decisions)))
        for game, reviewed in zip(games, review.games, strict=True)
    ]


def _decision(game: Game, ply: int, reviewed: ReviewedDecision) -> Decision:
    """A reviewed decision in the common shape (see ``taldau.base.kind.Decision``)."""
    step = game.steps[reviewed.step]
    player = reviewed.player
    common = {
        "ply": ply,
        "side": player,
        "kind": reviewed.kind,
        "position": reviewed.position_id,
        "key": step.position.key,
        "loss": reviewed.loss,
        "drop": reviewed.loss,
        "judged": reviewed.judged,
        "loss_se": reviewed.loss_se,
        "nodes": 0,
        "seconds": 0.0,
        **reference(step, reviewed.kind),
    }
    if isinstance(reviewed, MoveDecision):
        state = step.state
        return Decision(
            **common,
            played=reviewed.played,
            best=reviewed.best,
            pv=reviewed.best,
            score_best=pov(reviewed.best_equity, player),
            score_played=pov(reviewed.played_equity, player),
            chance_before=pov(2 * reviewed.best_probabilities[0] - 1, player),
            chance_after=pov(2 * reviewed.played_probabilities[0] - 1, player),
            forced=reviewed.forced,
            counted=not reviewed.forced,
            depth=reviewed.plies,
            seldepth=reviewed.plies,
            detail=BackgammonDetail(
                dice=(int(reviewed.dice[0]), int(reviewed.dice[1])),
                match_id=reviewed.match_id,
                cubeless_best=pov(cubeless_emg(reviewed.best_probabilities, state, player), player),
                cubeless_played=pov(cubeless_emg(reviewed.played_probabilities, state, player), player),
                luck=reviewed.luck,
                luck_mark=reviewed.luck_mark,
                loss_mwc=reviewed.loss_mwc,
                luck_mwc=reviewed.luck_mwc,
            ),
        )
    assert isinstance(reviewed, CubeReview)
    chance = pov(2 * reviewed.probabilities[0] - 1, player)
    cubeless = pov(reviewed.cubeless_equity, player)
    return Decision(
        **common,
        played=str(reviewed.action),
        best=str(reviewed.best),
        pv=str(reviewed.best),
        score_best=pov(reviewed.optimal, player),
        score_played=pov(reviewed.optimal - reviewed.loss, player),
        chance_before=chance,
        chance_after=chance,
        forced=False,
        counted=reviewed.close and reviewed.action is not CubeChoice.BEAVER,
        depth=reviewed.plies,
        seldepth=reviewed.plies,
        detail=BackgammonDetail(
            match_id=reviewed.match_id,
            cubeless_best=cubeless,
            cubeless_played=cubeless,
            cube=CubeEquities(
                reviewed.no_double, reviewed.double_take, reviewed.double_pass, reviewed.verdict
            ),
            loss_mwc=reviewed.loss_mwc,
        ),
    )


def _actions(game: Game) -> list[str]:
    """A game's actions as its identity hashes them: each player's, as Jellyfish writes it."""
    return [f"{act.player}:{format_action(act) or act.kind.value}" for act in game.record.actions]


class BackgammonKind:
    """Backgammon matches and money sessions; recognised by their content."""

    name: ClassVar[str] = "backgammon"
    book_plies: ClassVar[int] = BOOK_PLIES
    plies_words: ClassVar[tuple[str, str]] = ("roll", "rolls")  # dances included
    encodings: ClassVar[tuple[str, ...]] = ENCODINGS
    """The code pages its players' files use where they are not UTF-8 (see ``RecordFile.encodings``)."""
    engines: ClassVar[tuple[str, ...]] = (
        DEFAULT_ENGINE,
        *(name for name in ENGINES if name != DEFAULT_ENGINE),
    )
    detail: ClassVar[type[BackgammonDetail]] = BackgammonDetail  # dice, match, cube, luck, MWC

    @cached_property
    def analyser(self) -> BackgammonAnalyser:
        """The default engine's analyser."""
        return BackgammonAnalyser()

    @cached_property
    def stored(self) -> StoredAnalyser:
        """The judgements the match files hold (XG's, gnubg's) as the analysis."""
        return StoredAnalyser()

    def analyser_with(self, engine: str) -> BackgammonAnalyser:
        """The analyser of ``engine`` (``own``, ``gnubg``, ``sage``); its evaluator is loaded on first use."""
        if engine not in ENGINES:
            raise ValueError(f"unknown backgammon engine {engine!r}: choose one of {', '.join(ENGINES)}")
        return BackgammonAnalyser(engine)

    def recognises(self, file: RecordFile) -> bool:
        return is_backgammon(file)

    def read_file(self, file: RecordFile) -> Iterator[Game]:
        return replay_file(file.preferring(self.encodings))

    def read_games(self, data: bytes, source: str) -> Iterator[Game]:
        """Every game of a record file's bytes, read and replayed."""
        return read_games(data, source)

    def facts(self, game: Game) -> GameFacts:
        match = game.match
        winner = game.winner
        points = game.points if winner is not None else None
        result = None if winner is None else (f"{points}-0" if winner == 0 else f"0-{points}")
        return GameFacts(
            source=game.source,
            index=game.index,
            format=match.format,
            plies=game.plies,
            result=result,
            termination=game.termination.value,
            errors=tuple(game.errors),
            headers=dict(match.headers),
            players=match.players,
            match=MatchFacts(match.length, game.start.score, game.cube, winner, points),
            details={
                "players": list(match.players),
                "match_length": match.length,
                "score": list(game.start.score),
                "score_after": list(game.score_after),
                "winner": winner,
                "winner_name": None if winner is None else match.players[winner],
                "points": points,
                "value": None if game.value is None else game.value.name.lower(),
                "cube": game.cube,
            },
            warnings=tuple(game.warnings),
        )

    def identity(self, game: Game) -> str:
        """The match's players and length, the game's number and starting score, and its actions as
        Jellyfish writes them (the same from a .mat file or an SGF one), and the date as ``opening`` reads
        it."""
        match, start = game.match, game.start
        opening = f"{match.length} game {game.index} at {start.score[0]}-{start.score[1]}"
        return game_id(self.name, match.players, opening, _actions(game), self.opening(game, 0).date)

    def former_identity(self, game: Game) -> str:
        """A hash of the match's headers, players and length, the game's number and starting score, and
        its actions as Jellyfish writes them."""
        match, start = game.match, game.start
        score = f"{start.score[0]}-{start.score[1]}"
        opening = f"{match.length} {' / '.join(match.players)} game {game.index} at {score}"
        return former_game_id(self.name, match.headers, opening, _actions(game))

    def same_task(self, first: Game, second: Game) -> bool:
        """Games of one match make one task."""
        return first.match is second.match

    def encode(self, games: Sequence[Game]) -> dict[str, object]:
        """The whole match of ``games`` (every game of it, in order, as read, with the judgements its file
        holds) as JSON data (``task.encode_match``)."""
        (match,) = {id(game.match): game.match for game in games}.values()
        return encode_match(match)

    def decode(self, data: object, source: str) -> list[Game]:
        """Every game of the match, replayed from the match as read (``task.decode_task``)."""
        return decode_task(data, source)

    def opening(self, game: Game, plies: int) -> Opening:
        """The first ``plies`` checker plays (cube actions are not book moves), each keyed by the board as
        the player on roll sees it, so that the same opening meets whichever player of the match rolled
        first; the result the match score carries on with (the replay's, or the record's where the replay
        could not finish: ``Game.carried``), a gammon when the board or the resignation said so; ratings
        from ``Player 1 Elo`` / ``Player 2 Elo`` and the date from ``EventDate`` (SGF's ``DT``)."""
        moves: list[OpeningPly] = []
        for step in game.steps:
            if len(moves) == plies:
                break
            if step.action.kind is not ActionKind.ROLL or step.play is None or step.action.dice is None:
                continue
            before, after = step.position, step.play.result
            high, low = sorted(step.action.dice, reverse=True)
            moves.append(
                OpeningPly(
                    key=before.key ^ before.turn,
                    position=before.position_id(),
                    mover=step.action.player,
                    dice=f"{high}{low}",
                    move=step.play.text,
                    after=after.key ^ after.turn,
                )
            )
        headers = game.match.headers
        points: tuple[float, float] | None = None
        if game.carried is not None:
            winner, won = game.carried
            points = (float(won), 0.0) if winner == 0 else (0.0, float(won))
        return Opening(
            plies=tuple(moves),
            points=points,
            big_win=game.value is not None and game.value.value >= 2,
            ratings=(
                header_rating(headers.get("Player 1 Elo")),
                header_rating(headers.get("Player 2 Elo")),
            ),
            date=header_date(headers.get("EventDate") or headers.get("Date")),
        )

    def book_key(self, position: str) -> int:
        """The board of a gnubg Position ID as the player on roll sees it (a bad ID raises ValueError)."""
        return Position.from_position_id(position).key

    def book_keys(self, keys: np.ndarray, sides: np.ndarray) -> np.ndarray:
        """A position's key names the player on roll (its lowest bit, by ``Position.key``); the book's
        does not."""
        return np.bitwise_xor(keys.astype(np.uint64), sides.astype(np.uint64))

    def svg(
        self, position: str, played: str | None = None, best: str | None = None, match_id: str | None = None
    ) -> str:
        """The board of a gnubg Position ID (with its Match ID: the player on roll, cube, score and dice),
        GNUbgID or XGID, with the plays as arrows."""
        setup = read_position(position if match_id is None else f"{position}:{match_id}")
        return render_svg(setup.position, setup.state, setup.dice, played, best)
