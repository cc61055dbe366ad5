"""Make ``theirs.json``: what nitromir/togyzkumalak-engine's own code says of ``positions.txt``, for the test
that our NumPy port (``taldau.measure.togyz.alphazero``) reproduces it without torch.

Runs THEIR code: ``backend/alphazero_trainer.py`` (``TogyzkumalakGame``, ``AlphaZeroNetwork``, ``MCTS``)
and the checkpoint ``models/alphazero/best.pth.tar`` of a checkout of their repository, with torch and
NumPy 2 (not the project's environment). Nothing of taldau is imported: the FEN is read here, by its
definition, into their board. Made with::

    git --git-dir=MIRROR archive aab2d9bbb978c6e38811ca1a8491609d8ae9726c togyzkumalak-engine \
        | tar -x -C /tmp/nitro
    python3 -m venv /tmp/torchenv && /tmp/torchenv/bin/pip install torch==2.13.0 numpy
    /tmp/torchenv/bin/python tests/data/togyz/alphazero/theirs.py /tmp/nitro/togyzkumalak-engine

For each position: their canonical board (the mover's view), the net's policy and value, and the root's
visit counts of a fresh ``MCTS`` after 100 and after 400 simulations (``cpuct`` 1, as their app). Then one
game as their app plays it: their MCTS (one tree for the game, ``SEQUENCE_SIMULATIONS`` a move,
temperature 0) has White against seeded random Black moves; each of White's plies keeps the root's visit
counts and the move chosen. Their temperature-0 choice breaks ties with NumPy's global generator, seeded
here, so the output is deterministic.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SIMULATIONS = (100, 400)
SEQUENCE_SIMULATIONS = 100
SEQUENCE_PLIES = 120
SEED = 43


def their_board(fen: str) -> tuple[np.ndarray, int]:
    """Their board (23 float32 cells, White's view) and player (1 White, -1 Black) of a Togyz FEN."""
    rows, white_kazan, black_kazan, side, _ = fen.split()
    north, south = rows.split("/")

    def cells(row: str) -> list[float]:
        out: list[float] = []
        for token in row.split(","):
            if token == "t":
                out.append(-1.0)
            elif token.endswith("S"):
                out.append(float(token[:-1]))
            else:
                out += [0.0] * int(token)
        assert len(out) == 9, row
        return out

    white = cells(south)  # White's pits 1..9
    black = cells(north)[::-1]  # written from Black's pit 9 to pit 1
    board = np.zeros(23, dtype=np.float32)
    board[0:9], board[9:18] = white, black
    for pit in range(9):
        if black[pit] == -1:  # White's tuzdyk, on Black's row
            board[18] = pit + 1
        if white[pit] == -1:
            board[19] = pit + 1
    board[20], board[21] = float(white_kazan), float(black_kazan)
    board[22] = 0 if side == "S" else 1
    return board, 1 if side == "S" else -1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("engine", type=Path, help="their togyzkumalak-engine folder")
    parser.add_argument("--positions", type=Path, default=HERE / "positions.txt")
    parser.add_argument("--out", type=Path, default=HERE / "theirs.json")
    args = parser.parse_args()
    sys.path.insert(0, str(args.engine))
    import torch
    from backend.alphazero_trainer import MCTS, AlphaZeroConfig, AlphaZeroNetwork, TogyzkumalakGame

    torch.set_num_threads(1)
    game = TogyzkumalakGame()
    model = AlphaZeroNetwork(128, 256, 9)
    checkpoint = torch.load(
        args.engine / "models/alphazero/best.pth.tar", map_location="cpu", weights_only=False
    )
    model.load_state_dict(checkpoint["state_dict"])
    model.eval()

    class Wrapper:  # their app's QuickNNetWrapper (ai_engine._alphazero_mcts_move)
        def predict(self, board):
            obs = torch.FloatTensor(game.boardToObservation(board)).unsqueeze(0)
            with torch.no_grad():
                pi, v = model(obs)
                pi = torch.exp(pi)
            return pi.squeeze().cpu().numpy(), float(v.squeeze().cpu().numpy())

    nnet = Wrapper()
    positions = []
    for fen in args.positions.read_text(encoding="utf-8").split("\n"):
        if not fen.strip():
            continue
        board, player = their_board(fen)
        canonical = game.getCanonicalForm(board, player)
        policy, value = nnet.predict(canonical)
        entry = {"fen": fen, "board": canonical.tolist(), "policy": policy.tolist(), "value": value}
        for simulations in SIMULATIONS:
            mcts = MCTS(game, nnet, AlphaZeroConfig(num_mcts_sims=simulations))
            mcts.getActionProb(canonical, temp=0)
            s = game.stringRepresentation(canonical)
            entry[f"visits_{simulations}"] = [mcts.Nsa.get((s, a), 0) for a in range(9)]
        positions.append(entry)
        print(fen, entry["visits_400"], flush=True)

    np.random.seed(SEED)
    rng = random.Random(SEED)
    mcts = MCTS(game, nnet, AlphaZeroConfig(num_mcts_sims=SEQUENCE_SIMULATIONS))
    board, player, moves, plies = game.getInitBoard(), 1, [], []
    while game.getGameEnded(board, player) == 0 and len(moves) < SEQUENCE_PLIES:
        canonical = game.getCanonicalForm(board, player)
        if player == 1:
            probs = mcts.getActionProb(canonical, temp=0)
            s = game.stringRepresentation(canonical)
            action = int(np.argmax(probs))
            plies.append({"ply": len(moves), "visits": [mcts.Nsa.get((s, a), 0) for a in range(9)]})
        else:
            action = rng.choice([a for a in range(9) if game.getValidMoves(canonical, 1)[a]])
        moves.append(action + 1)
        board, player = game.getNextState(board, player, action)
    sequence = {"simulations": SEQUENCE_SIMULATIONS, "moves": moves, "net_plies": plies}
    args.out.write_text(
        json.dumps(
            {
                "source": "nitromir/togyzkumalak-engine aab2d9bbb978c6e38811ca1a8491609d8ae9726c",
                "positions": positions,
                "sequence": sequence,
            }
        )
        + "\n",
        encoding="utf-8",
    )
    print(f"{len(positions)} positions, a game of {len(moves)} plies -> {args.out}")


if __name__ == "__main__":
    main()
