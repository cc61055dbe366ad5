"""``taldau bench soak``: a synthetic archive of distinct random Togyz Kumalak games pushed through Celery
while a chaos loop kills worker processes and restarts Redis, then checked against a local-pool run.

The archive: ``games`` random legal games (seeded; each ends by the rules or stops unfinished after a
random number of plies), written with the PlayOK writer. The run: a private Redis with an append-only file,
two ``taldau worker`` processes of one pool child each, and the client of ``taldau analyze --broker``. The
chaos: every few seconds a random worker process is killed with SIGKILL, a pool child (its worker starts
another) or a worker's main process (its pool with it; the worker is started again), except over the last
1% of the games (see ``Chaos``); Redis is restarted when the run passes each of ``redis_restarts`` evenly
spaced fractions of its games. The checks: every game
stored exactly once, all ``ok``, and the rows equal to a local-pool run of the same archive at the same
limit (tables sorted; the ``seconds`` column, a timing, left out); and what the run left in Redis.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
from taldau.analysis.batch import BatchSettings
from taldau.base.kind import Limit
from taldau.games.togyz import Game, GameRecord, Position, Sowing, write_playok
from taldau.measure.local_service import PrivateRedis, WorkerProcess
from taldau.schemas import GAMES_SCHEMA, MOVES_SCHEMA, Status
from taldau.workers.celery_app import ServiceSettings, redis_client
from taldau.workers.client import celery_executor
from taldau.workers.defaults import SOAK_DEPTH, SOAK_GAMES
from taldau.workers.run import Progress, local_executor, run_analysis


@dataclass(frozen=True)
class SoakSettings:
    """The size of the soak and how hard the chaos hits. The visibility timeout is short so that tasks of
    killed workers come back within the run (a task at depth 1 takes a fraction of a second)."""

    games: int = SOAK_GAMES
    depth: int = SOAK_DEPTH
    seed: int = 2026
    shortest: int = 20  # plies of an unfinished random game: at least
    longest: int = 80  # and at most
    kill_every: tuple[float, float] = (3.0, 6.0)  # seconds between kills, drawn uniformly
    kills: int | None = None  # stop killing after this many (None: until the calm end)
    calm_end: float = 0.01  # the last games run without kills (a fraction of them; see Chaos)
    redis_restarts: int = 2
    workers: int = 2
    visibility_timeout: int = 60
    look_every: float = 15.0  # the client's: seconds without a result before it looks for lost games


def random_game(rng: random.Random, index: int, plies: int) -> Game:
    """A game of random legal moves from the start, up to ``plies`` plies or the end by the rules."""
    position = Position.start()
    positions = [position]
    sowings: list[Sowing] = []
    while len(sowings) < plies and (moves := position.legal_moves()):
        sowing = position.sow(rng.choice(moves))
        sowings.append(sowing)
        position = sowing.position
        positions.append(position)
    headers = {"Event": f"soak {index}", "White": "random", "Black": "random"}
    record = GameRecord(source="soak.pgn", index=index, format="playok", line=1, headers=headers)
    return Game(record, positions, sowings, position.outcome())


def synthetic_archive(settings: SoakSettings) -> str:
    """``settings.games`` distinct random games in PlayOK's format, the same for the same seed."""
    rng = random.Random(settings.seed)
    seen: set[tuple[int, ...]] = set()
    texts: list[str] = []
    while len(texts) < settings.games:
        game = random_game(rng, len(texts) + 1, rng.randint(settings.shortest, settings.longest))
        if tuple(game.moves) in seen:
            continue
        seen.add(tuple(game.moves))
        texts.append(write_playok(game))
    return "\n".join(texts)


def _log(message: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} soak: {message}", file=sys.stderr, flush=True)


class Chaos:
    """Once the first game is done, kills a random worker process every few seconds (up to
    ``settings.kills``) and restarts Redis at given numbers of games done, until stopped.

    The last ``settings.calm_end`` of the games run without kills: when a handful of games are left, every
    kill hits one of them (a worker started again takes seconds to analyse its first game), and a game whose
    worker dies three times is recorded as ``failed`` by design (a record that crashes its worker each time
    must not loop forever), which a soak that wants every game analysed would then count against the
    service.
    """

    def __init__(
        self,
        workers: list[WorkerProcess],
        server: PrivateRedis,
        settings: SoakSettings,
        done: Callable[[], int],
    ) -> None:
        self.workers = workers
        self.server = server
        self.settings = settings
        self.done = done
        self.rng = random.Random(settings.seed + 1)
        step = settings.games / (settings.redis_restarts + 1)
        self.restarts_at = [round(step * (number + 1)) for number in range(settings.redis_restarts)]
        self.events: Counter[str] = Counter()
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopped.set()
        if self.thread.is_alive():
            self.thread.join()

    def _kill_one(self) -> None:
        victims: list[tuple[str, WorkerProcess, int]] = [("main", worker, 0) for worker in self.workers]
        victims += [("child", worker, pid) for worker in self.workers for pid in worker.children()]
        kind, worker, pid = self.rng.choice(victims)
        if kind == "main":
            worker.kill_main()
        else:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:  # it had just ended (recycled or its worker stopping)
                return
        self.events[f"killed {kind}"] += 1
        _log(f"killed a worker's {kind} process at {self.done()} games done")

    def _loop(self) -> None:
        """Every tenth of a second: restart Redis when the next number of games is reached, and kill when
        the next kill is due (the first a few seconds after the first game is done)."""
        next_kill: float | None = None
        while not self.stopped.wait(0.1):
            done = self.done()
            if done == 0:
                continue
            now = time.monotonic()
            if next_kill is None:
                next_kill = now + self.rng.uniform(*self.settings.kill_every)
            if now >= next_kill:  # before a restart due at the same time: a restart takes seconds
                next_kill = now + self.rng.uniform(*self.settings.kill_every)
                kills = self.events["killed main"] + self.events["killed child"]
                calm = done >= self.settings.games * (1 - self.settings.calm_end)
                if not calm and (self.settings.kills is None or kills < self.settings.kills):
                    self._kill_one()
            if self.restarts_at and done >= self.restarts_at[0]:
                self.restarts_at.pop(0)
                _log(f"restarting redis at {done} games done")
                self.server.restart()
                self.events["redis restarts"] += 1


def comparable_rows(out: Path, name: str) -> pa.Table:
    """The compacted ``games`` or ``moves`` rows of ``out`` without timings, sorted by game (and ply): the
    rows two runs of the same archive and settings must agree on."""
    if name == "moves":
        table = pq.read_table(out / "moves", schema=MOVES_SCHEMA).drop_columns(["seconds"])
        return table.sort_by([("game_id", "ascending"), ("ply", "ascending")])
    return pq.read_table(out / "games", schema=GAMES_SCHEMA).sort_by([("game_id", "ascending")])


def _differing_games(first: pa.Table, second: pa.Table) -> int:
    """How many games have rows in one table that the other lacks."""

    def rows(table: pa.Table) -> set[str]:
        return {json.dumps(row, sort_keys=True, default=str) for row in table.to_pylist()}

    return len({json.loads(row)["game_id"] for row in rows(first) ^ rows(second)})


def check(celery: Path, local: Path, games: int) -> dict[str, Any]:
    """Every game exactly once and ``ok``, and the rows of both runs equal."""
    report: dict[str, Any] = {}
    names = ("games", "moves")
    tables = {name: (comparable_rows(celery, name), comparable_rows(local, name)) for name in names}
    stored, _ = tables["games"]
    moves, _ = tables["moves"]
    ids = stored.column("game_id").to_pylist()
    plies = sum(stored.column("plies").to_pylist())
    pairs = set(zip(moves.column("game_id").to_pylist(), moves.column("ply").to_pylist(), strict=True))
    report["games_stored"] = len(ids)
    report["distinct_games"] = len(set(ids))
    report["ok"] = stored.column("status").to_pylist().count(Status.OK)
    report["plies"] = plies
    report["move_rows"] = moves.num_rows
    report["exactly_once"] = len(ids) == len(set(ids)) == games and moves.num_rows == len(pairs) == plies
    for name, (first, second) in tables.items():
        equal = first.equals(second)
        report[f"{name}_equal_to_local"] = equal
        if not equal:
            report[f"{name}_differing_games"] = _differing_games(first, second)
    report["passed"] = (
        report["exactly_once"]
        and report["ok"] == games
        and report["games_equal_to_local"]
        and report["moves_equal_to_local"]
    )
    return report


def run_soak(settings: SoakSettings, folder: Path | None = None) -> dict[str, Any]:
    """Run the soak (in ``folder``, or a temporary folder removed afterwards) and return its report."""
    with tempfile.TemporaryDirectory(prefix="taldau-soak-") as temporary:
        root = folder or Path(temporary)
        root.mkdir(parents=True, exist_ok=True)
        return _soak(settings, root)


def _soak(settings: SoakSettings, root: Path) -> dict[str, Any]:
    batch = BatchSettings(limit=Limit(depth=settings.depth))
    started = time.perf_counter()
    archive = root / "soak.pgn"
    archive.write_text(synthetic_archive(settings), encoding="utf-8")
    report: dict[str, Any] = {
        "games": settings.games,
        "limit": f"depth {settings.depth}",
        "seed": settings.seed,
        "archive_seconds": round(time.perf_counter() - started, 1),
    }
    _log(f"{settings.games} games written to {archive} in {report['archive_seconds']} s")
    server = PrivateRedis(root / "redis", appendonly=True)
    workers = [
        WorkerProcess(
            server.url,
            root / f"worker-{number}.log",
            concurrency=1,
            env={"TALDAU_VISIBILITY_TIMEOUT": str(settings.visibility_timeout)},
            ready=False,
        )
        for number in range(settings.workers)
    ]
    done = [0]

    def progress(state: Progress) -> None:
        if state.done // 500 > done[0] // 500:
            _log(f"{state.done}/{state.total} games")
        done[0] = state.done

    chaos = Chaos(workers, server, settings, lambda: done[0])
    service = ServiceSettings(visibility_timeout=settings.visibility_timeout, look_every=settings.look_every)
    try:
        chaos.start()
        started = time.perf_counter()
        manifest = run_analysis(
            [archive], root / "celery", batch, celery_executor(server.url, service), progress=progress
        )
        report["celery_seconds"] = round(time.perf_counter() - started, 1)
        chaos.stop()
        report["chaos"] = dict(chaos.events)
        report["deliveries"] = sum(len(worker.received()) for worker in workers)
        client = redis_client(server.url)
        report["left_in_redis"] = sum(
            len(client.keys(pattern))
            for pattern in ("taldau:deliveries:*", "taldau:queued:*", "celery-task-meta-*", "taldau:rows:*")
        )
        report["unacknowledged_left"] = client.hlen("unacked")
    finally:
        chaos.stop()
        for worker in workers:
            worker.stop()
        server.stop()
    stored = manifest.to_json()
    report["celery_counts"] = stored["counts"]
    report["celery_failures"] = stored["failures"]
    _log(f"celery run done in {report['celery_seconds']} s; local pool run of the same archive")
    started = time.perf_counter()
    run_analysis([archive], root / "local", batch, local_executor(settings.workers))
    report["local_seconds"] = round(time.perf_counter() - started, 1)
    report.update(check(root / "celery", root / "local", settings.games))
    _log(f"checks: {'passed' if report['passed'] else 'FAILED'}")
    return report
