"""An analysis folder's verdicts set beside the reference its record files hold (``taldau bench
reference``): XG's analysis stored in a ``.xg``, gnubg's in an analysed SGF, which ``taldau analyze`` keeps
in the moves table's ``reference`` columns beside ours (``docs/judging.md``).

What is measured, over the folder's analysis at its own level:

- **agreement**: the share of the counted decisions the reference judged where our best is the
  reference's best, with Wilson's 95% interval over decisions (``measure.agreement``), for every decision
  and for checker plays and cube decisions apart;
- **our picks scored by the reference's own equities**: not available. A record file keeps the
  reference's loss of the action played, not the equities of its other candidates, so our pick is scored
  by the reference only where the player played it; those disputed decisions are counted, and the
  reference's mean loss of our pick there given, as a part, not the whole;
- **PR both ways**, each player's (500 x EMG lost per counted decision) by our losses and by the
  reference's losses of the same counted decisions, each with its 95% interval bootstrapped over games
  (``analysis.players.Bootstrap``, from ``MIN_GAMES`` games on);
- **the disputed decisions settled**: where our best and the reference's differ, both actions rolled out
  by bgsage (``SageRollout``), cubeful in the decision's match context as ``taldau plays --rollout`` and
  ``analyze --level world`` roll a play out, on the same dice, so that the difference of the two carries
  the standard error of a paired comparison (``RolloutSettings.batches``): who was right, by how much.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taldau.analysis.players import Estimate, PlayerSettings, players, scale_of
from taldau.analysis.report.data import ReferenceTally, disputed, judges, open_archive
from taldau.games.backgammon.engine.cubeful import Response
from taldau.games.backgammon.engine.sage import CubefulRollout, RolloutSettings, SageRollout
from taldau.games.backgammon.review.cubes import decision_of
from taldau.games.backgammon.rules.position import parse_dice
from taldau.games.backgammon.rules.position_text import read_position
from taldau.measure.agreement import spread_sample, wilson_interval
from taldau.schemas import MoveRow

DEFAULT_DECISIONS = 100  # disputed decisions rolled out unless told
DEFAULT_TRIALS = 216  # trials per action rolled out: 6 batches of 36, the first roll stratified in each
BATCHES = 6  # batches of a rollout where the trials split into them: the paired standard error
SURE = 2.0  # a difference beyond this many standard errors says who was right
NOT_SCORED = (
    "not available: the record files keep the reference's loss of the action played, not its candidates' "
    "equities"
)


@dataclass(frozen=True)
class Agreement:
    """How often our best is the reference's over ``decisions`` counted decisions it judged (``what``:
    every one, the checker plays, the cube and take decisions)."""

    what: str
    decisions: int
    same: int

    @property
    def share(self) -> float | None:
        return self.same / self.decisions if self.decisions else None

    @property
    def interval(self) -> tuple[float, float] | None:
        """Wilson's 95% interval of the share, over decisions."""
        return wilson_interval(self.same, self.decisions)

    def to_json(self) -> dict[str, Any]:
        return {
            "what": self.what,
            "decisions": self.decisions,
            "same": self.same,
            "share": self.share,
            "interval": None if self.interval is None else list(self.interval),
        }


@dataclass(frozen=True)
class PlayerPR:
    """A player's PR over the folder's games by our losses (``ours``, the figure ``taldau players`` gives)
    and by the reference's losses of the counted decisions it judged (``reference``), each with its
    interval over the ``games``."""

    name: str
    games: int
    counted: int
    judged: int
    ours: Estimate
    reference: Estimate

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "games": self.games,
            "counted": self.counted,
            "judged": self.judged,
            "pr": self.ours.to_json(),
            "reference_pr": self.reference.to_json(),
        }


@dataclass(frozen=True)
class Disputed:
    """A decision the reference judged whose best is not ours: where it is (game, ply, the side that
    decided, its kind, the position and match context as the moves table writes them, the roll), what
    was played, our best and loss, the reference's (who judged), best and loss."""

    game_id: str
    ply: int
    side: int
    kind: str
    dice: str | None
    position: str
    match_id: str | None
    played: str
    best: str
    loss: float
    reference: str
    reference_best: str
    reference_loss: float

    @classmethod
    def of_move(cls, move: MoveRow) -> Disputed:
        """The disputed decision of a moves row."""
        return cls(**{name: getattr(move, name) for name in cls.__dataclass_fields__})


@dataclass(frozen=True)
class Settled:
    """A disputed decision rolled out: the cubeful equity (EMG, the decider's) of our best and of the
    reference's, and of their difference (ours less the reference's) with its standard error; ``note``
    says why a decision was not rolled out (the equities then None)."""

    decision: Disputed
    ours: float | None = None
    theirs: float | None = None
    difference: float | None = None
    error: float | None = None
    note: str | None = None

    @property
    def right(self) -> str | None:
        """``ours``, ``reference`` (the better by more than ``SURE`` standard errors), or ``neither`` (within
        them); None where not rolled out."""
        if self.difference is None or self.error is None:
            return None
        if abs(self.difference) <= SURE * self.error:
            return "neither"
        return "ours" if self.difference > 0 else "reference"

    def to_json(self) -> dict[str, Any]:
        decision = self.decision
        return {
            "game_id": decision.game_id,
            "ply": decision.ply,
            "side": decision.side,
            "kind": decision.kind,
            "dice": decision.dice,
            "position": decision.position,
            "match_id": decision.match_id,
            "played": decision.played,
            "best": decision.best,
            "reference": decision.reference,
            "reference_best": decision.reference_best,
            "equity": _rounded(self.ours),
            "reference_equity": _rounded(self.theirs),
            "difference": _rounded(self.difference),
            "difference_se": _rounded(self.error),
            "right": self.right,
            "note": self.note,
        }


@dataclass(frozen=True)
class Settlement:
    """The disputed decisions rolled out (``settled``; those not rolled out have a note), by a rollout of
    ``rollout`` settings."""

    rollout: RolloutSettings
    settled: tuple[Settled, ...]

    @property
    def rolled(self) -> list[Settled]:
        return [item for item in self.settled if item.difference is not None]

    @property
    def counts(self) -> Counter[str]:
        """How many went to ours, to the reference's, to neither."""
        return Counter(item.right for item in self.rolled if item.right is not None)

    @property
    def mean(self) -> tuple[float, float] | None:
        """The mean difference, ours less the reference's (EMG a decision), and its standard error (the
        decisions' own, taken as independent)."""
        rolled = self.rolled
        if not rolled:
            return None
        mean = sum(item.difference or 0.0 for item in rolled) / len(rolled)
        error = math.sqrt(sum((item.error or 0.0) ** 2 for item in rolled)) / len(rolled)
        return mean, error

    def to_json(self) -> dict[str, Any]:
        mean = self.mean
        return {
            "rollout": {**self.rollout.to_json(), "batches": self.rollout.batches, "cubeful": True},
            "rolled_out": len(self.rolled),
            "right": dict(self.counts),
            "mean_difference": None if mean is None else _rounded(mean[0]),
            "mean_difference_se": None if mean is None else _rounded(mean[1]),
            "decisions": [item.to_json() for item in self.settled],
        }


@dataclass(frozen=True)
class ReferenceReport:
    """A folder's analysis beside its reference: the folder, our level and engine, the references and the
    decisions each judged, the agreement, the disputed decisions where the player played our pick (and
    the reference's mean loss of it there), each player's PR both ways, the disputed decisions, and their
    settlement where rolled out."""

    folder: str
    limit: str
    engine: str
    references: dict[str, int]
    agreement: tuple[Agreement, ...]
    played_ours: int
    played_ours_loss: float | None
    players: tuple[PlayerPR, ...]
    disputed: tuple[Disputed, ...]
    settlement: Settlement | None = None
    settings: PlayerSettings = field(default_factory=PlayerSettings)

    @property
    def judges(self) -> str:
        """The programs that judged, as one name: ``XG``, ``XG and gnubg``."""
        return judges(self.references)

    def to_json(self) -> dict[str, Any]:
        return {
            "folder": self.folder,
            "limit": self.limit,
            "engine": self.engine,
            "references": self.references,
            "judges": self.judges,
            "agreement": [agreement.to_json() for agreement in self.agreement],
            "scored_by_reference": NOT_SCORED,
            "played_ours": {"decisions": self.played_ours, "reference_loss": _rounded(self.played_ours_loss)},
            "confidence": self.settings.confidence,
            "players": [player.to_json() for player in self.players],
            "disputed": len(self.disputed),
            "disputed_kinds": dict(Counter(decision.kind for decision in self.disputed)),
            "settlement": None if self.settlement is None else self.settlement.to_json(),
        }


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 6)


def against_reference(folder: str | Path, settings: PlayerSettings | None = None) -> ReferenceReport:
    """The analysis in ``folder`` beside the reference its record files hold (see the module), read game by
    game (``Archive.with_moves``); ValueError for a folder of a game without PR or one whose moves no
    reference judged, ``ReportError`` for one that cannot be read."""
    settings = settings or PlayerSettings()
    archive = open_archive(folder)
    scale = scale_of(archive.settings.game)
    if scale is None or scale.pr_factor is None:
        raise ValueError(f"{folder}: a {archive.settings.game} analysis has no reference to set beside it")
    tally = ReferenceTally()
    kinds: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # (decisions, same)
    found: list[Disputed] = []
    played_ours: list[float] = []
    for game in archive.with_moves():
        tally.add(game)
        for move in game.moves:
            if move.reference is None:
                continue
            if disputed(move):
                found.append(Disputed.of_move(move))
                if move.played == move.best and move.reference_loss is not None:
                    played_ours.append(move.reference_loss)
            if move.counted and move.reference_loss is not None:
                kind = "checker plays" if move.kind == "move" else "cube and take decisions"
                kinds[kind][0] += 1
                kinds[kind][1] += not disputed(move)
    if not tally.references:
        raise ValueError(
            f"{folder}: no decision has a reference: analyse XG's .xg files or gnubg's analysed .sgf, "
            "whose record holds their judgements"
        )
    every = Agreement("every decision", sum(n for n, _ in kinds.values()), sum(s for _, s in kinds.values()))
    roster = players([archive.folder], settings)
    by_reference = tally.estimates(roster, scale)
    return ReferenceReport(
        folder=str(archive.folder),
        limit=archive.settings.limit,
        engine=archive.settings.engine_label,
        references=dict(tally.references.most_common()),
        agreement=(every, *(Agreement(what, *kinds[what]) for what in sorted(kinds))),
        played_ours=len(played_ours),
        played_ours_loss=sum(played_ours) / len(played_ours) if played_ours else None,
        players=tuple(
            PlayerPR(
                player.name,
                player.overall.games,
                player.overall.decisions,
                sum(count for spelling in player.spellings for _, count in tally.games.get(spelling, ())),
                player.overall.pr,
                by_reference[player.name],
            )
            for player in roster.players
        ),
        disputed=tuple(found),
        settings=settings,
    )


def rollout_settings(trials: int = DEFAULT_TRIALS, seed: int = 42) -> RolloutSettings:
    """The rollout of ``trials`` trials from ``seed`` that settles disputed decisions: in ``BATCHES``
    batches where the trials split into them (the standard error of a difference measured on common
    dice), else in one (the two actions' errors taken as independent, an upper bound)."""
    return RolloutSettings(trials=trials, seed=seed, batches=BATCHES if trials % BATCHES == 0 else 1)


def settle(
    disputed: Sequence[Disputed],
    rollout: SageRollout,
    decisions: int = DEFAULT_DECISIONS,
    progress: Callable[[int, int], None] | None = None,
) -> Settlement:
    """``decisions`` of the ``disputed`` decisions (spread evenly over them, in the table's order), our best
    and the reference's each rolled out by ``rollout`` in the decision's match context (``settle_one``);
    ``progress(done, total)`` told after each."""
    chosen = spread_sample(list(disputed), decisions)
    settled = []
    for done, decision in enumerate(chosen, start=1):
        settled.append(settle_one(decision, rollout))
        if progress is not None:
            progress(done, len(chosen))
    return Settlement(rollout.settings, tuple(settled))


Valued = tuple[float, CubefulRollout | None]  # an action's cubeful equity and its rollout (None: exact)


def settle_one(decision: Disputed, rollout: SageRollout) -> Settled:
    """Our best and the reference's rolled out cubeful in the decision's match context, the decider's
    equities (EMG): a checker play's two plays after they are played (``SageRollout.after_play_cubeful``),
    a cube decision's No double and Double/take before the roll (``SageRollout.cube_decision``; Double
    the taker's best answer by the rollout, Double/pass exactly 1), a take decision's the same from the
    taker's side. A decision that cannot be rolled out is returned with a note saying why."""
    try:
        setup = read_position(f"{decision.position}:{decision.match_id}")
    except ValueError as error:
        return Settled(decision, note=f"its position cannot be read: {error}")
    if setup.state is None:
        return Settled(decision, note="no match context")
    position, state = setup.position, setup.state
    values: dict[str, Valued] = {}
    if decision.kind == "move":
        if decision.dice is None:
            return Settled(decision, note="no roll")
        plays = {play.text: play for play in position.plays(parse_dice(decision.dice))}
        for text in (decision.best, decision.reference_best):
            if text not in plays:
                return Settled(decision, note=f"{text} is not a play of the roll")
            rolled = rollout.after_play_cubeful(plays[text].result.board[::-1], state, position.turn)
            if rolled is None:
                return Settled(decision, note=f"{text} wins the game: nothing to roll out")
            values[text] = (rolled.equity, rolled)
    else:
        cube = rollout.cube_decision(position.board, state, position.turn)
        found = decision_of((cube.no_double.equity, cube.double_take.equity, 1.0), state, position.turn)
        double: Valued = (
            (found.double_pass, None)
            if found.response is Response.PASS
            else (found.double_take, cube.double_take)
        )
        values = {
            "no double": (found.no_double, cube.no_double),
            "double": double,
            "take": (-found.double_take, cube.double_take),
            "pass": (-found.double_pass, None),
        }
    if decision.best not in values or decision.reference_best not in values:
        return Settled(
            decision, note=f"{decision.kind}: {decision.best} or {decision.reference_best} unknown"
        )
    (ours, ours_rolled), (theirs, theirs_rolled) = values[decision.best], values[decision.reference_best]
    return Settled(decision, ours, theirs, ours - theirs, _difference_error(ours_rolled, theirs_rolled))


def _difference_error(first: CubefulRollout | None, second: CubefulRollout | None) -> float:
    """The standard error of the difference of two values rolled out on the same dice (None: exact)."""
    if first is None:
        return 0.0 if second is None else second.error
    return first.error_of_difference(second)
