"""Write gnubg-reading.json: GNU Backgammon's reading of every record of this folder (the tests only read it).

Needs GNU Backgammon 1.07 (Debian package ``gnubg``; the binary is ``/usr/games/gnubg``). Run it with any
Python 3, from anywhere:

    python3 tests/data/backgammon/odd-records/gnubg_reading.py

It runs this same file inside gnubg (``gnubg -t -q -p gnubg_reading.py``), where the module ``gnubg``
imports each record (``import mat``) and reports, per game, the score gnubg starts it from, the winner
(0 = the left column), the points won, how it ended and how many actions gnubg kept, with the messages
gnubg printed while importing the file.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SETTINGS = [
    "set display off",
    "set confirm new off",
    "set automatic game off",
    "set automatic roll off",
    "set automatic move off",
    "set player 0 human",
    "set player 1 human",
]


def imported(gnubg, path: Path, scratch: Path) -> tuple[dict | str, list[str]]:
    """gnubg's match after importing ``path`` (or the error gnubg gives for it), and the lines gnubg
    printed meanwhile."""
    import ctypes

    libc = ctypes.CDLL(None)
    sys.stdout.flush()
    libc.fflush(None)
    fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    saved = os.dup(1)
    os.dup2(fd, 1)
    try:
        gnubg.command(f'import mat "{path}"')
    finally:
        sys.stdout.flush()
        libc.fflush(None)
        os.dup2(saved, 1)
        os.close(saved)
        os.close(fd)
    printed = [line.strip() for line in scratch.read_text(errors="replace").splitlines()]
    messages = [line for line in printed if line.startswith(("Unrecognised", "WARNING", "Error"))]
    try:
        return gnubg.match(0, 0, 0, 0), messages
    except Exception as error:  # gnubg raises a bare Exception ("First game missing from match")
        return str(error), messages


def run_inside_gnubg() -> None:
    """Imports every record of this folder and writes what gnubg read."""
    import gnubg

    here = Path(os.environ["TALDAU_GNUBG_HERE"])
    sys.path.insert(0, str(here.parent / "gnubg"))
    from make_fixtures import ending, winner_of  # gnubg's words for a game's winner and ending

    for command in SETTINGS:
        gnubg.command(command)
    readings = {}
    with tempfile.TemporaryDirectory() as scratch:
        for path in sorted(here.glob("*.txt")):
            match, messages = imported(gnubg, path, Path(scratch) / "printed.txt")
            if isinstance(match, str):
                readings[path.name] = {"error": match, "messages": messages}
                continue
            games = []
            for game in match["games"]:
                info = game["info"]
                games.append(
                    {
                        "score": [info["score-X"], info["score-O"]],
                        "winner": winner_of(game),
                        "points": info.get("points-won") or 0,
                        "ended": ending(game),
                        "actions": len(game["game"]),
                    }
                )
            readings[path.name] = {"games": games, "messages": messages}
    lines = [f"{json.dumps(name)}: {json.dumps(reading)}" for name, reading in readings.items()]
    (here / "gnubg-reading.json").write_text("{\n" + ",\n".join(lines) + "\n}\n")


def main() -> None:
    """Runs this file inside a headless gnubg."""
    here = Path(__file__).resolve().parent
    gnubg = shutil.which("gnubg") or "/usr/games/gnubg"
    done = subprocess.run(
        [gnubg, "-t", "-q", "-p", str(here / "gnubg_reading.py")],
        env=dict(os.environ, TALDAU_GNUBG_HERE=str(here)),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode:
        sys.exit(f"gnubg failed ({done.returncode}): {done.stderr[-3000:]}")
    print((here / "gnubg-reading.json").read_text(), end="")


if "TALDAU_GNUBG_HERE" in os.environ:
    run_inside_gnubg()
elif __name__ == "__main__":
    main()
