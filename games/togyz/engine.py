"""The Togyz Kumalak engine, in the shape of python-chess's ``engine.analyse(board, limit, multipv)``.

``Engine(settings).analyse(position, Limit(depth=12))`` returns an ``AnalysisInfo``: the best lines with
their scores from the side to move (``Score``: kumalak, or a forced result such as "win in 7"), depth,
seldepth, nodes, nps and time. Depth and node limits are deterministic: the same position, limit and
history of calls on an engine give the same answer on any machine. A time limit is not.

The engine keeps its transposition table, killers and history between calls, as a chess engine does
within one game; ``new_game()`` forgets them.

A time limit counts searching only: the compiled kernels are loaded (or compiled, on the first run after
an install) before the clock starts, so that a fresh process at ``--movetime 0.2`` searches as deep as a
warm one instead of spending its budget in numba.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace

import numpy as np
from taldau.base.kind import Limit

from . import board
from .evaluate import FEATURES, N_FEATURES, capture_of, kazan_only_weights, load_weights
from .position import Position, Side
from .search import (
    ABORTED,
    DEEP_REDUCTION,
    FUTILITY_MARGIN,
    GLOBAL,
    HORIZON,
    MAX_PLY,
    NODE_LIMIT,
    NODES,
    NULL_MOVE,
    PRUNE_STONES,
    QUIESCENCE,
    REDUCTION,
    SELDEPTH,
    STARVED,
    STATIC_MARGIN,
    USE_ORDERING,
    USE_TT,
    WIN,
    WIN_BOUND,
    Tables,
    search_root,
)

# What the search finds at given settings: raised whenever a change to the search (or to what a setting
# means) changes its results, so that analyses stored by another search are never taken for this one's.
SEARCH_VERSION = 2
FORCED_BASE = 1000.0  # forced results as kumalak: +-(1000 - plies), beyond any kazan difference


def load_search_kernels(weights: np.ndarray) -> None:
    """Make the search's compiled kernels ready in this process (read from numba's cache, or compiled)
    by one depth-1 search of the start position on throwaway tables: what a time limit must not pay for.

    Nothing is done when they are ready already (numba lists the signatures it holds) or when numba is
    disabled (``NUMBA_DISABLE_JIT=1``: plain Python, nothing to compile).
    """
    if getattr(search_root, "signatures", None) != []:
        return
    tables = Tables.allocate(tt_bits=1)
    tables.stack[0] = board.start_state()
    tables.stats[NODE_LIMIT] = np.iinfo(np.int64).max
    moves = np.arange(board.PITS, dtype=np.int64)
    count = len(moves)
    search_root(
        1,
        1,
        moves,
        np.zeros(count, dtype=np.int64),
        np.zeros(count, dtype=np.int64),
        np.zeros((count, MAX_PLY + 1), dtype=np.int64),
        np.zeros(count, dtype=np.int64),
        tables.stack,
        tables.tt,
        tables.work,
        weights,
        board.KEY_WORDS,
    )


def engine_version(settings: EngineSettings | None = None) -> str:
    """What a stored analysis depends on: the package version, a digest of the evaluation weights, the
    search's version and, for search settings other than the base ones, a digest of those that differ
    (``EngineSettings.differences``: a setting added later leaves the older settings' digests alone)."""
    import hashlib
    from importlib import metadata

    weights = _weights_text(load_weights())
    digest = hashlib.sha256(weights.encode()).hexdigest()[:8]
    version = f"taldau {metadata.version('taldau')} togyz-eval {digest} search {SEARCH_VERSION}"
    differences = (settings or EngineSettings()).differences()
    if not differences:
        return version
    return f"{version} settings {hashlib.sha256(differences.encode()).hexdigest()[:8]}"


def _weights_text(weights: np.ndarray) -> str:
    """The weights as the engine version digests them: plain numbers, without the trailing zeros (features
    added later that weigh nothing change no search, so they leave the digest of the weights before them
    alone, as a setting at its base value leaves the settings' digest)."""
    values = [float(value) for value in weights]
    while values and values[-1] == 0.0:
        values.pop()
    return ",".join(f"{value:.6g}" for value in values)


@dataclass(frozen=True, order=True)
class Score:
    """A score from the side to move: centi-kumalak, or a forced result ``WIN - plies`` / its negation."""

    value: int

    @property
    def is_forced(self) -> bool:
        return abs(self.value) > WIN_BOUND

    @property
    def plies_to_result(self) -> int | None:
        """Plies to a forced result: positive when the side to move wins, negative when it loses."""
        if not self.is_forced:
            return None
        return WIN - self.value if self.value > 0 else -(WIN + self.value)

    @property
    def kumalak(self) -> float:
        """The score in kumalak; forced results map to +-(1000 - plies), above any kazan difference."""
        plies = self.plies_to_result
        if plies is None:
            return self.value / 100
        return FORCED_BASE - plies if plies > 0 else -(FORCED_BASE + plies)

    def __float__(self) -> float:
        return self.kumalak

    def __neg__(self) -> Score:
        return Score(-self.value)

    def before_the_move(self) -> Score:
        """This score of the position after a move, as the player who made that move sees it: negated, and
        a forced result one ply further away (a loss in 3 for the side to move is a win in 4 for the
        player who moved into it)."""
        if not self.is_forced:
            return -self
        return Score(-self.value + 1 if self.value > 0 else -self.value - 1)

    def __str__(self) -> str:
        plies = self.plies_to_result
        if plies is None:
            return f"{self.value / 100:+.2f}"
        return f"win in {plies}" if plies > 0 else f"loss in {-plies}"


@dataclass(frozen=True)
class Line:
    """One analysed line: its first move (origin pit 1..9), score and principal variation."""

    move: int
    score: Score
    pv: tuple[int, ...]


@dataclass(frozen=True)
class AnalysisInfo:
    """What a search found: ``lines`` best first (``multipv`` of them), and the search statistics."""

    lines: tuple[Line, ...]
    depth: int
    seldepth: int
    nodes: int
    seconds: float
    solved: bool = False  # the tree was searched to the end of the game: the score is exact

    @property
    def best(self) -> int:
        return self.lines[0].move

    @property
    def score(self) -> Score:
        return self.lines[0].score

    @property
    def pv(self) -> tuple[int, ...]:
        return self.lines[0].pv

    @property
    def nps(self) -> float:
        return self.nodes / self.seconds if self.seconds > 0 else 0.0


@dataclass(frozen=True)
class EngineSettings:
    """How the engine searches; ``plain()`` is the baseline alpha-beta with a kazan-difference evaluation.

    ``weights``: evaluation weights (None: the packaged tuned ones). ``quiescence``: plies of capture-only
    search beyond the horizon. ``solve_stones``: with this many stones or fewer left on the board, a depth
    limit is exceeded until the game is solved, within ``solve_nodes`` nodes; ``solve_row_stones``: the same
    where either player's row holds this many stones or fewer (but some), however many are on the board:
    the starved endings, where a lead on kazan is lost to atsyrau (issue 43; 0 for none).
    ``late_move_reductions``: 0 for none, else the index of the first move searched one ply shallower when
    it is quiet (see ``search``); the default, 3, at the default depth 13 reviews a game in 0.58x the time of
    the full-width search at depth 12, with marks at least as right against deeper references with and without
    reductions (BENCHMARKS.md, "Togyz Kumalak marks"). ``deep_reductions``: with late-move reductions, 0
    for none, else the index of the first quiet move searched two plies shallower where six or more plies
    remain; the default, 3 (from the fourth move, so every move late-move reductions shorten, where six
    plies or more remain), which a review's first stage leaves out (``review``). From the sixth move (5,
    the default of the fourth and fifth sessions of issue 57) it reviewed 55 unseen games in about a fifth
    less CPU than none, with the same mark on 98.3% of their plies; from the fourth, 30 unseen games of the
    marks bench take 0.88x the CPU of the sixth's, with marks closer to a depth-18 reference (the same mark
    on 2,834 plies of 2,909 against 2,822; ``?`` or worse found 37 times of 44 against 29) but one of its 15
    ``??`` missed (BENCHMARKS.md, "Togyz: deeper reductions", and "Togyz: two-ply reductions from the
    fourth move", issue 57). ``null_move``, ``static_margin``, ``futility_margin``: pruning by the
    evaluation, 0 for none (see ``search``): the default, static and futility pruning at 150 centi-kumalak
    per ply and no null move, reviews the marks bench's 30 games at depth 13 in 0.30x the time of late-move
    reductions alone and 0.20x that of the full-width depth 12, with marks as right as the latter's against
    a depth-15 reference; null-move pruning made marks worse at every depth tried (BENCHMARKS.md).
    ``starved_extension``: 0 for none, else the most stones on the row of the side to move for which a
    move is searched one ply deeper (``search``: the endings where a player starves, issue 43).
    """

    weights: tuple[float, ...] | None = None
    transposition_table: bool = True
    ordering: bool = True
    quiescence: int = 6
    tt_bits: int = 20
    solve_stones: int = 16
    solve_nodes: int = 1_000_000
    solve_row_stones: int = 0
    late_move_reductions: int = 3
    deep_reductions: int = 3
    null_move: int = 0
    static_margin: int = 150
    futility_margin: int = 150
    starved_extension: int = 0

    def differences(self) -> str:
        """The settings that differ from the base ones (the defaults of the first release of each), as
        ``name=value`` text in field order; empty for the base settings."""
        return ",".join(
            f"{name}={_setting_text(value)}"
            for name, value in asdict(self).items()
            if value != _BASE_SETTINGS.get(name, _NO_BASE)
        )

    @classmethod
    def plain(cls) -> EngineSettings:
        """Plain alpha-beta: kazan difference only, no table, no ordering, no quiescence, no solving, no
        reductions, no pruning."""
        return cls(
            weights=tuple(kazan_only_weights()),
            transposition_table=False,
            ordering=False,
            quiescence=0,
            tt_bits=10,
            solve_stones=0,
            late_move_reductions=0,
            deep_reductions=0,
            static_margin=0,
            futility_margin=0,
        )


# Each setting's value in the base search; a new setting is given the value that leaves the search as it
# was, so that adding it changes no existing digest.
_BASE_SETTINGS = {
    "weights": None,
    "transposition_table": True,
    "ordering": True,
    "quiescence": 6,
    "tt_bits": 20,
    "solve_stones": 16,
    "solve_nodes": 1_000_000,
    "solve_row_stones": 0,
    "late_move_reductions": 0,
    "deep_reductions": 0,
    "null_move": 0,
    "static_margin": 0,
    "futility_margin": 0,
    "starved_extension": 0,
}
_NO_BASE = object()

# The evaluation weights shipped before the ending features (ENDING, RUNWAY, COLLECT: issue 43), fitted by
# ``taldau tune`` at shrink 0.5 on the PlayOK archive; the features added since weigh 0 here, so that the
# ``today`` settings play the evaluation of before.
WEIGHTS_BEFORE_ENDINGS = (
    ("KAZAN", 100.0),
    ("BOARD", 12.32),
    ("MOBILITY", 227.28),
    ("CAPTURE", 70.0),
    ("THREAT", -18.58),
    ("TUZDYK_1", 1383.79),
    ("TUZDYK_2", 1575.05),
    ("TUZDYK_3", 1068.09),
    ("TUZDYK_4", 1044.42),
    ("TUZDYK_5", 3515.63),
    ("TUZDYK_6", 3006.97),
    ("TUZDYK_7", 2995.87),
    ("TUZDYK_8", 1809.2),
    ("ATSYRAU", -247.45),
)


def weights_before_endings() -> tuple[float, ...]:
    """``WEIGHTS_BEFORE_ENDINGS`` in FEATURES order, 0 for the features added since."""
    named = dict(WEIGHTS_BEFORE_ENDINGS)
    return tuple(named.get(name, 0.0) for name in FEATURES)


def _setting_text(value: object) -> str:
    """A setting as ``differences`` writes it: weights as plain numbers (the same text whatever numpy's
    repr), anything else by its repr."""
    if isinstance(value, tuple):
        return "(" + ",".join(f"{float(number):.6g}" for number in value) + ")"
    return repr(value)


def named_settings(name: str) -> EngineSettings:
    """Search settings by name: ``default``; ``today`` (the search and evaluation weights of before issue
    43, ``WEIGHTS_BEFORE_ENDINGS``, none of the ending settings and none of the deep reductions that came
    with issue 57: the default of then, pinned); ``endings`` (the default's search with the weights fitted
    with the ending features, ``weights-endings.json``); ``plain`` (``EngineSettings.plain``); ``full``
    (no late-move reductions, no pruning); ``lmr`` (late-move reductions from the fourth move, no pruning:
    the default until 2026-12-02); ``lmrN`` (from move N + 1);
    ``lmrN-M`` (and two plies from move M + 1, M >= N: ``lmrN-N`` reduces every such move two plies);
    any of these but ``plain`` followed by pruning terms,
    each ``+nullR`` (null-move pruning, reduction R), ``+staticM`` (static pruning, margin M),
    ``+futilityM`` (futility pruning, margin M), ``+starvedN`` (starvation extension at N stones on a
    row) or ``+rowN`` (solving where a row holds N stones or fewer), as ``lmr+null3+static100``.
    ValueError for any other name."""
    base, *terms = name.split("+")
    if base == "plain" and not terms:
        return EngineSettings.plain()
    settings = _base_settings(base)
    if settings is None:
        known = (
            "default, today, endings, plain, full, lmr, lmrN or lmrN-M (M >= N), "
            "then +nullR, +staticM, +futilityM, +starvedN, +rowN"
        )
        raise ValueError(f"unknown search settings {name!r}: {known}")
    for term in terms:
        found = re.fullmatch(r"(null|static|futility|starved|row)([1-9][0-9]{0,3})", term)
        if found is None:
            raise ValueError(
                f"unknown pruning term {term!r} in {name!r}: +nullR, +staticM, +futilityM, +starvedN or +rowN"
            )
        settings = replace(settings, **{_PRUNING_TERMS[found.group(1)]: int(found.group(2))})
    return settings


_PRUNING_TERMS = {
    "null": "null_move",
    "static": "static_margin",
    "futility": "futility_margin",
    "starved": "starved_extension",
    "row": "solve_row_stones",
}


def _base_settings(name: str) -> EngineSettings | None:
    """The settings ``named_settings`` starts from (without pruning terms), or None for an unknown name."""
    if name == "default":
        return EngineSettings()
    if name == "today":
        return EngineSettings(
            weights=weights_before_endings(), deep_reductions=0, starved_extension=0, solve_row_stones=0
        )
    if name == "endings":
        return EngineSettings(weights=tuple(load_weights(packaged="weights-endings.json")))
    # the searches of before: no pruning and none of the ending settings (issue 43)
    unpruned = EngineSettings(static_margin=0, futility_margin=0, solve_row_stones=0, starved_extension=0)
    if name == "full":
        return replace(unpruned, late_move_reductions=0, deep_reductions=0)
    if name == "lmr":
        return replace(unpruned, late_move_reductions=3, deep_reductions=0)
    found = re.fullmatch(r"lmr([1-9][0-9]?)(?:-([1-9][0-9]?))?", name)
    if found is None or (found.group(2) is not None and int(found.group(2)) < int(found.group(1))):
        return None
    return replace(
        unpruned, late_move_reductions=int(found.group(1)), deep_reductions=int(found.group(2) or 0)
    )


@dataclass
class Engine:
    """A searcher with its own tables; not shared between threads or processes."""

    settings: EngineSettings = field(default_factory=EngineSettings)

    def __post_init__(self) -> None:
        weights = load_weights() if self.settings.weights is None else np.array(self.settings.weights)
        if weights.shape != (N_FEATURES,):
            raise ValueError(f"expected {N_FEATURES} evaluation weights, got {weights.shape}")
        self._tables = Tables.allocate(self.settings.tt_bits)
        work = self._tables.work
        work[GLOBAL, USE_TT] = int(self.settings.transposition_table)
        work[GLOBAL, USE_ORDERING] = int(self.settings.ordering)
        work[GLOBAL, QUIESCENCE] = self.settings.quiescence
        work[GLOBAL, REDUCTION] = self.settings.late_move_reductions
        work[GLOBAL, DEEP_REDUCTION] = self.settings.deep_reductions  # read only where a move is reduced
        work[GLOBAL, NULL_MOVE] = self.settings.null_move
        work[GLOBAL, PRUNE_STONES] = self.settings.solve_stones
        work[GLOBAL, STATIC_MARGIN] = self.settings.static_margin
        work[GLOBAL, FUTILITY_MARGIN] = self.settings.futility_margin
        work[GLOBAL, STARVED] = self.settings.starved_extension
        # The weights, then scratch space for the features (see evaluate).
        self._weights = np.concatenate([weights.astype(np.float64), np.zeros(N_FEATURES)])

    def new_game(self) -> None:
        """Forget the transposition table, killers and history."""
        self._tables.clear()

    @contextmanager
    def deep_reductions(self, first: int | None) -> Iterator[None]:
        """The searches within search with ``first`` as their ``EngineSettings.deep_reductions`` (0: none;
        None: the settings' own), as a review's stage may; the settings' own again after."""
        work = self._tables.work
        work[GLOBAL, DEEP_REDUCTION] = self.settings.deep_reductions if first is None else first
        try:
            yield
        finally:
            work[GLOBAL, DEEP_REDUCTION] = self.settings.deep_reductions

    def analyse(
        self, position: Position, limit: Limit, multipv: int = 1, moves: list[int] | None = None
    ) -> AnalysisInfo:
        """Search ``position`` within ``limit`` (its depth of 1 or more, nodes or movetime: the first
        reached stops; ValueError for none, depth 0 or a level); ``moves`` restricts the root moves (pits
        1..9)."""
        if not limit.stops or limit.depth == 0 or limit.level is not None:
            raise ValueError(f"a Togyz search needs a depth of 1 or more, nodes or a movetime, not {limit!r}")
        legal = position.legal_moves()
        if not legal:
            raise ValueError(f"no legal moves: the game is over ({position.fen()})")
        if moves is not None:
            illegal = [pit for pit in moves if pit not in legal]
            if illegal or not moves:
                raise ValueError(f"moves {illegal or moves} are not legal in {position.fen()}")
            legal = [pit for pit in legal if pit in moves]
        multipv = max(1, min(multipv, len(legal)))
        state = position.state
        side = int(state[board.SIDE])
        # Captures first, then by pit: the order of the first iteration.
        order = sorted((pit - 1 for pit in legal), key=lambda pit: -capture_of(state, side, pit))
        return self._iterate(position, np.array(order, dtype=np.int64), limit, multipv)

    def evaluate_move(self, position: Position, move: int, limit: Limit) -> AnalysisInfo:
        """The score and line of ``move`` (a pit 1..9) at ``limit``, searched like any root move."""
        return self.analyse(position, limit, moves=[move])

    def _iterate(self, position: Position, order: np.ndarray, limit: Limit, multipv: int) -> AnalysisInfo:
        """Iterative deepening over ``order`` until the limit, a proven result or a solved tree."""
        if limit.movetime is not None:
            load_search_kernels(self._weights)
        tables = self._tables
        stats = tables.stats
        stats[:] = 0
        tables.stack[0] = position.state
        count = len(order)
        scores = np.zeros(count, dtype=np.int64)
        exact = np.zeros(count, dtype=np.int64)
        pvs = np.zeros((count, MAX_PLY + 1), dtype=np.int64)
        pv_lengths = np.zeros(count, dtype=np.int64)

        # With few stones left a depth limit is passed until the game is solved, within solve_nodes.
        solving = position.stones_on_board() <= self.settings.solve_stones or self._starving(position)
        max_depth = MAX_PLY - 1 if limit.depth is None or solving else min(limit.depth, MAX_PLY - 1)
        unlimited = np.iinfo(np.int64).max
        node_cap = limit.nodes or unlimited
        started = time.perf_counter()
        deadline = None if limit.movetime is None else started + limit.movetime

        # The last completed iteration: its root arrays (each iteration reorders copies of them), depth,
        # seldepth and whether it solved the tree; its lines are made once, at the end.
        completed: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, int, int, bool] | None
        completed = None
        solve_end = 0
        for depth in range(1, max_depth + 1):
            # Depth 1 always completes (nine moves and their captures), so there is always an answer.
            stats[NODE_LIMIT] = unlimited if depth == 1 else node_cap
            if solving and limit.depth is not None and depth > limit.depth:
                if depth == limit.depth + 1:
                    solve_end = int(stats[NODES]) + self.settings.solve_nodes
                stats[NODE_LIMIT] = min(node_cap, solve_end)
            if deadline is not None and depth > 1:
                elapsed = time.perf_counter() - started
                nps = stats[NODES] / elapsed if elapsed > 0 and stats[NODES] > 1000 else 1e6
                budget = int(max(deadline - started - elapsed, 0.0) * nps) + 1
                stats[NODE_LIMIT] = min(node_cap, stats[NODES] + budget)
            stats[ABORTED] = 0
            horizon_before = int(stats[HORIZON])
            exact[:] = 0
            search_root(
                depth,
                multipv,
                order,
                scores,
                exact,
                pvs,
                pv_lengths,
                tables.stack,
                tables.tt,
                tables.work,
                self._weights,
                board.KEY_WORDS,
            )
            if stats[ABORTED]:
                break
            solved = int(stats[HORIZON]) == horizon_before
            completed = (order, scores, exact, pvs, pv_lengths, depth, int(stats[SELDEPTH]), solved)
            # Next iteration: best lines first, then the rest by their bounds.
            ranked = np.argsort(-np.where(exact[:count] == 1, scores, scores - 1), kind="stable")
            order, scores, exact = order[ranked], scores[ranked], exact[ranked]
            pvs, pv_lengths = pvs[ranked], pv_lengths[ranked]
            # The best exact line is first now (ties keep search order, as in ``_lines``).
            plies = Score(int(scores[0])).plies_to_result
            if solved or (plies is not None and abs(plies) <= depth):
                break
            if limit.depth is not None and depth >= limit.depth and not solving:
                break
            if deadline is not None and time.perf_counter() - started > 0.5 * limit.movetime:  # type: ignore[operator]
                break
        assert completed is not None
        done_order, done_scores, done_exact, done_pvs, done_lengths, done_depth, seldepth, solved = completed
        return AnalysisInfo(
            lines=self._lines(done_order, done_scores, done_exact, done_pvs, done_lengths)[:multipv],
            depth=done_depth,
            seldepth=seldepth,
            nodes=int(stats[NODES]),
            seconds=time.perf_counter() - started,
            solved=solved,
        )

    def _starving(self, position: Position) -> bool:
        """Whether a row holds ``solve_row_stones`` stones or fewer (but some): an ending to solve."""
        limit = self.settings.solve_row_stones
        return limit > 0 and any(0 < sum(position.pits(side)) <= limit for side in Side)

    @staticmethod
    def _lines(order, scores, exact, pvs, pv_lengths) -> tuple[Line, ...]:
        """Exactly scored root moves as Lines, best first (ties keep search order)."""
        picked = [index for index in range(len(order)) if exact[index]]
        picked.sort(key=lambda index: -scores[index])
        return tuple(
            Line(
                move=int(order[index]) + 1,
                score=Score(int(scores[index])),
                pv=tuple(int(pit) + 1 for pit in pvs[index, : pv_lengths[index]]),
            )
            for index in picked
        )
