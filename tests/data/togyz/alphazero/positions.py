"""Make ``positions.txt``: the Togyz positions (one FEN a line) on which our port of the AlphaZero net and
search of nitromir/togyzkumalak-engine is checked against theirs (``theirs.py`` then judges them).

Half come from random play (seeded; every stage of the game, tuzdyks and starved rows included), half from
real games of the PlayOK archive beside the checkout. Run from the checkout with the project's Python:

    .venv/bin/python tests/data/togyz/alphazero/positions.py ../shared/data/togyz/playok-2024-2025.pgn
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from taldau.games.togyz import Position, read_games

HERE = Path(__file__).resolve().parent
RANDOM = 25
REAL = 25
SEED = 43


def random_positions(count: int, seed: int) -> list[Position]:
    """``count`` positions, each after a random number of random moves from the start (game not over)."""
    rng = random.Random(seed)
    found: list[Position] = []
    while len(found) < count:
        position, target = Position.start(), rng.randint(4, 160)
        for _ in range(target):
            if position.is_game_over():
                break
            position = position.play(rng.choice(position.legal_moves()))
        if not position.is_game_over():
            found.append(position)
    return found


def real_positions(archive: Path, count: int, seed: int) -> list[Position]:
    """``count`` positions from games spread over ``archive``, each at a ply spread over its game."""
    rng = random.Random(seed)
    games = [
        game for game in read_games(archive.read_bytes(), str(archive)) if game.valid and game.plies > 20
    ]
    chosen = [games[index * len(games) // count] for index in range(count)]
    found = []
    for game in chosen:
        position = game.positions[rng.randint(6, game.plies - 1)]
        found.append(position if not position.is_game_over() else game.positions[game.plies // 2])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive", type=Path)
    parser.add_argument("--out", type=Path, default=HERE / "positions.txt")
    args = parser.parse_args()
    positions = random_positions(RANDOM, SEED) + real_positions(args.archive, REAL, SEED)
    args.out.write_text("".join(f"{position.fen()}\n" for position in positions), encoding="utf-8")
    print(f"{len(positions)} positions -> {args.out}")


if __name__ == "__main__":
    main()
