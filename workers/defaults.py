"""The defaults of the service's benches (``taldau bench service``, ``--soak``, ``--capacity``), declared
once: the benches run with them and the command's help shows them, without importing the benches (Celery,
Redis) to print a help text."""

from __future__ import annotations

SERVICE_DEPTH = 8  # the limit of the bundled Togyz games
SOAK_GAMES = 10_000  # random games in the soak's synthetic archive
SOAK_DEPTH = 1  # the soak's search depth
# One worker process's Togyz games per second: BENCHMARKS.md, "Batch service", `taldau bench service`,
# `--jobs 1` (one process): 40 games in 21.6 s, 1.85 games/s, the 40 bundled games at depth 8, the bench's
# default (2026-11-29, python-svc).
WORKER_RATE = 1.85
RESULTS = 2_000  # finished tasks collected, and task messages queued, of each game
