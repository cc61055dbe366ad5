"""The 2,398 real games of the shared PlayOK archive replay with every recorded claim confirmed."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from taldau.games.togyz import Termination, read_games

pytestmark = pytest.mark.archive


def test_every_real_game_replays_and_agrees_with_its_result(playok_archive: Path) -> None:
    games = list(read_games(playok_archive.read_bytes(), playok_archive.name))
    assert len(games) == 2_398
    invalid = [(game.record.index, game.errors[0]) for game in games if not game.valid]
    assert invalid == []
    assert all(game.plies == len(game.record.moves) for game in games)
    endings = Counter(game.termination for game in games)
    assert endings[Termination.KAZAN] + endings[Termination.ATSYRAU] + endings[Termination.RECORD] == 2_398
    for game in games:
        if game.termination in (Termination.KAZAN, Termination.ATSYRAU):
            assert game.outcome is not None and game.outcome.result == game.record.headers["Result"]
        # PlayOK marks exactly the atsyrau endings with {zero}.
        assert ("zero" in game.record.comments) == (game.termination is Termination.ATSYRAU)
    assert max(max(game.kazans) for game in games if game.termination is Termination.KAZAN) == 103
