"""Make ``eval.json``: GNU Backgammon's own cubeless probabilities of ~40 varied positions at 0 and 1 ply,
to check taldau's gnubg backend (``gnubg-nn``) against gnubg itself (the tests only read the JSON).

Needs GNU Backgammon 1.07 (Debian package ``gnubg``; the binary is ``/usr/games/gnubg``). Run it with any
Python 3, from anywhere:

    python3 tests/data/backgammon/gnubg/eval_fixtures.py

It runs this same file inside gnubg (``gnubg -t -q -p eval_fixtures.py`` with ``TALDAU_GNUBG_EVAL`` set),
where the module ``gnubg`` evaluates each position (``gnubg.evaluate`` with a cubeless, deterministic eval
context and money cube info) and classifies it (``gnubg.classifypos``). The positions: the hand-made ones
of ``HAND_MADE`` (bar, blitz, gammonish, backgammonish, races, bear-offs, primes, crashed, ace-point) and
positions of real matches from ``ids.json`` (this folder), a few of each gnubg class, in file order.
The output is deterministic.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

# (Position ID, what it shows); row 1 of each board (the second half of the ID) is the side on roll.
HAND_MADE = [
    ("4HPwATDgc/ABMA", "the starting position"),
    ("sGfwATDgc/ABMA", "after the opening 31 played 8/5 6/5: the opponent's new 5-point"),
    ("bDsHBwDgc/ABUA", "mover on the bar against a 4-point board"),
    ("2J6DBwDgc/ABYA", "mover with two checkers on the bar"),
    ("4Bx8AGy27QwGAA", "blitz: opponent on the bar against the mover's 5-point board"),
    ("4Dr4YEBtdw8AAA", "gammonish: mover bearing off, opponent's checkers far back"),
    ("4Dz4ADjW7gAAAA", "backgammonish: opponent stuck on the mover's ace point"),
    ("zG4bAwC0nZsBAA", "race, even (both near 80 pips)"),
    ("gIeHdwDb7g4AAA", "race, mover far ahead"),
    ("2+4OAACAh4d3AA", "race, mover far behind"),
    ("TQAAoAIAAAAAAA", "two-sided bear-off: 3 against 4 checkers"),
    ("tW0AAGi7ewAAAA", "one-sided bear-off: 15 home against 10 home"),
    ("YNvGADSwbUMANg", "prime against prime"),
    ("4HbwAQPvHQMAMA", "crashed board: mover's checkers piled on low points"),
    ("ttsAAGC7OwAAAw", "ace-point game"),
    ("2+4OAAABAAAAAA", "last checker: the mover bears off with any roll"),
]

# gnubg 1.07's position classes (eval.h), and how many real positions of each to take from ids.json.
CLASSES = {
    0: "over",
    1: "hypergammon1",
    2: "hypergammon2",
    3: "hypergammon3",
    4: "bearoff2",
    5: "bearoff-ts",
    6: "bearoff1",
    7: "bearoff-os",
    8: "race",
    9: "crashed",
    10: "contact",
}
FROM_MATCHES = {10: 12, 9: 4, 8: 6, 7: 2, 6: 2, 5: 2, 4: 2}
PLIES = (0, 1)

OUT = "eval.json"


def inside_gnubg(here: Path) -> None:
    """Evaluate the positions with the ``gnubg`` module and write ``eval.json``."""
    import gnubg  # type: ignore[import-not-found]

    cube = gnubg.cubeinfo(1, -1, 0, 0, (0, 0), 0, 0)  # money, centred cube: cubeless numbers do not care

    def context(plies: int) -> dict:
        return {"cubeful": 0, "plies": plies, "deterministic": 1, "noise": 0.0}

    chosen = [(position_id, label) for position_id, label in HAND_MADE]
    taken = dict.fromkeys(FROM_MATCHES, 0)
    seen = {position_id for position_id, _ in chosen}
    records = json.loads((here / "ids.json").read_text())["records"]
    for record in records:
        position_id = record["position_id"]
        if position_id in seen:
            continue
        seen.add(position_id)
        kind = gnubg.classifypos(gnubg.positionfromid(position_id), 0)
        if taken.get(kind, 0) < FROM_MATCHES.get(kind, 0):
            taken[kind] += 1
            chosen.append((position_id, f"real match: {record.get('source', 'bglab')}"))

    positions = []
    for position_id, label in chosen:
        board = gnubg.positionfromid(position_id)
        entry = {
            "position_id": position_id,
            "label": label,
            "class": CLASSES.get(gnubg.classifypos(board, 0), "unknown"),
            "board": [list(row) for row in board],
        }
        for plies in PLIES:
            *probabilities, equity = gnubg.evaluate(board, cube, context(plies))
            entry[f"ply{plies}"] = [round(p, 8) for p in probabilities]
            entry[f"ply{plies}_equity"] = round(equity, 8)
        positions.append(entry)
    about = (
        "GNU Backgammon 1.07.001 (Debian) cubeless probabilities (win, win gammon, win backgammon, lose "
        "gammon, lose backgammon) and cubeless equity of each position before the roll, from the side on "
        "roll (board row 1), at 0 and 1 ply (deterministic, gnubg's default pruning), by eval_fixtures.py."
    )
    text = json.dumps({"about": about, "positions": positions}, indent=1)
    (here / OUT).write_text(text + "\n")


def main() -> None:
    here = Path(__file__).resolve().parent
    gnubg = os.environ.get("GNUBG", "/usr/games/gnubg")
    environment = dict(os.environ, TALDAU_GNUBG_EVAL="1")
    subprocess.run(
        [gnubg, "-t", "-q", "-p", str(Path(__file__).resolve())],
        cwd=here,
        env=environment,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    count = len(json.loads((here / OUT).read_text())["positions"])
    print(f"wrote {count} positions to {here / OUT}", file=sys.stderr)


if "TALDAU_GNUBG_EVAL" in os.environ:  # inside gnubg, which runs scripts without __file__, from the folder
    inside_gnubg(Path.cwd())
elif __name__ == "__main__":
    main()
