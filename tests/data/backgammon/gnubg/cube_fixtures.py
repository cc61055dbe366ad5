"""Make ``cube.json``: GNU Backgammon's 0-ply cube analysis (``hint`` before the roll) of positions of real
matches, at their own match state and at made-up ones, to check ``games/backgammon/engine/cubeful.py``; with
``--plies 2``, ``cube-2ply.json``: its 2-ply cube analysis of every ``PLIED_EVERY``-th of the same cases, to
check ``games/backgammon/engine/cube_plies.py``.

Needs GNU Backgammon 1.07 (Debian package ``gnubg``; the binary is ``/usr/games/gnubg``) and taldau
installed (the positions come from replaying this folder's ``*.mat`` files with taldau's reader). Run:

    .venv/bin/python tests/data/backgammon/gnubg/cube_fixtures.py [--plies 2]

For each case gnubg is given the Position ID and a Match ID (dice not rolled, the roller on turn) with
``set matchid`` / ``set board``, and ``hint`` prints its cubeless probabilities (6 digits, ``set output
digits 6``) and its cubeful equities of No double, Double/take, Double/pass in EMG with the proper cube
action, or "You cannot double." Settings: Kazaross-XG2 table, cube decisions at 0 plies (or ``--plies``),
beavers allowed.
The cases: every 6th decision before a roll of the real matches (their own score, cube and Crawford state)
and, for every 4th of those positions, the same position at other states (money with and without the
Jacoby rule, owned cubes, several match scores, Crawford and post-Crawford games).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import tempfile
from pathlib import Path

from taldau.games.backgammon import read_games
from taldau.games.backgammon.records.record import ActionKind
from taldau.games.backgammon.rules.ids import MatchId

HERE = Path(__file__).resolve().parent
GNUBG = "/usr/games/gnubg"
MATCHES = ("galaxy-6800849", "galaxy-8170603", "studio-selbs", "studio-iradch49", "studio-moderntavla31")
REAL_EVERY = 6
VARIED_EVERY = 4
PLIED_EVERY = 20  # with --plies: every 20th case (gnubg's 2-ply takes about a second a case)

# (length, roller's score, opponent's score, cube, owner: "centred" / "roller" / "opponent", crawford, jacoby)
VARIATIONS = (
    (0, 0, 0, 1, "centred", False, True),
    (0, 0, 0, 1, "centred", False, False),
    (0, 0, 0, 2, "roller", False, False),
    (7, 0, 0, 1, "centred", False, False),
    (7, 4, 4, 1, "centred", False, False),
    (7, 2, 5, 2, "roller", False, False),
    (7, 5, 3, 1, "centred", False, False),
    (7, 4, 6, 1, "centred", False, False),
    (7, 3, 6, 1, "centred", False, False),
    (7, 6, 3, 1, "centred", True, False),
    (5, 1, 3, 2, "roller", False, False),
    (17, 5, 9, 4, "roller", False, False),
    (25, 0, 0, 1, "centred", False, False),
)


def cases() -> list[dict]:
    """The positions and states to ask gnubg about, one per (Position ID, Match ID)."""
    real: list[dict] = []
    for name in MATCHES:
        path = HERE / f"{name}.mat"
        for game in read_games(path.read_bytes(), path.name):
            for step in game.steps:
                if step.action.kind not in (ActionKind.ROLL, ActionKind.DOUBLE):
                    continue
                if step.position.outcome() is not None:
                    continue
                state = step.state
                roller = step.position.turn
                real.append(
                    {
                        "source": f"{name} game {game.index + 1}",
                        "position_id": step.position.position_id(),
                        "roller": roller,
                        "length": state.rules.length,
                        "score": list(state.score),
                        "cube": state.cube,
                        "cube_owner": -1 if state.cube_owner is None else state.cube_owner,
                        "crawford": state.crawford_game,
                        "jacoby": False,
                    }
                )
    chosen = real[::REAL_EVERY]
    varied = []
    for index, case in enumerate(chosen[::VARIED_EVERY]):
        roller = case["roller"]
        for length, mine, theirs, cube, owner, crawford, jacoby in VARIATIONS:
            score = [0, 0]
            score[roller], score[1 - roller] = mine, theirs
            owners = {"centred": -1, "roller": roller, "opponent": 1 - roller}
            varied.append(
                case
                | {
                    "source": f"{case['source']} (variation {index})",
                    "length": length,
                    "score": score,
                    "cube": cube,
                    "cube_owner": owners[owner],
                    "crawford": crawford,
                    "jacoby": jacoby,
                }
            )
    unique: dict[tuple[str, str], dict] = {}
    for case in chosen + varied:
        case["match_id"] = MatchId(
            cube=case["cube"],
            cube_owner=case["cube_owner"],
            dice_owner=case["roller"],
            crawford=case["crawford"],
            turn=case["roller"],
            length=case["length"],
            score=tuple(case["score"]),
            jacoby=case["jacoby"],
        ).encode()
        unique.setdefault((case["position_id"], case["match_id"]), case)
    return list(unique.values())


CUBEFUL = re.compile(
    r"^\d\. (No double|No redouble|Double, take|Redouble, take|Double, pass|Redouble, pass)\s+([+-]\d+\.\d+)"
)


def ask_gnubg(all_cases: list[dict], plies: int) -> None:
    """Run gnubg once over every case, its cube decisions at ``plies``, and store its answers in the cases."""
    commands = [
        "set player 0 human",
        "set player 1 human",
        "set matchequitytable /usr/share/gnubg/met/Kazaross-XG2.xml",
        f"set evaluation cubedecision evaluation plies {plies}",
        "set output digits 6",
        "set beavers 3",
    ]
    for case in all_cases:
        commands += [f"set matchid {case['match_id']}", f"set board {case['position_id']}", "hint"]
    with tempfile.TemporaryDirectory() as scratch:
        script = Path(scratch) / "commands.txt"
        script.write_text("\n".join(commands) + "\n")
        with script.open() as stdin:
            # gnubg writes "You cannot double." to stderr; one pipe keeps it in place (gnubg flushes both)
            output = subprocess.run(
                [GNUBG, "-t", "-q"],
                stdin=stdin,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                check=True,
                cwd=scratch,
            ).stdout
    by_key = {(case["position_id"], case["match_id"]): case for case in all_cases}
    position = match = None
    current: dict | None = None
    for line in output.splitlines():
        if "Position ID:" in line:
            position = line.split("Position ID:")[1].strip()
        elif "Match ID   :" in line:
            match = line.split(":")[1].strip()
            current = by_key.get((position or "", match))
        elif current is None:
            continue
        elif line.startswith("You cannot double"):
            current["gnubg"] = {"available": False}
        elif re.match(r"^\d-ply cubeless equity", line):
            current["gnubg"] = {"available": True, "cubeless_equity": float(line.split()[3])}
        elif re.match(r"^\s+\d\.\d+ \d\.\d+ \d\.\d+ - \d\.\d+", line) and "gnubg" in current:
            numbers = [float(value) for value in line.replace("-", " ").split()]
            win, win_gammon, win_backgammon, _, lose_gammon, lose_backgammon = numbers
            current["gnubg"]["probabilities"] = [
                win,
                win_gammon,
                win_backgammon,
                lose_gammon,
                lose_backgammon,
            ]
        elif (found := CUBEFUL.match(line)) and "gnubg" in current:
            key = {"No": "no_double", "Double, take": "double_take", "Double, pass": "double_pass"}
            name = found.group(1).replace("Redouble", "Double")
            current["gnubg"][key.get(name, key["No"])] = float(found.group(2))
        elif line.startswith("Proper cube action:") and "gnubg" in current:
            current["gnubg"]["action"] = re.sub(r"\s*\(.*\)$", "", line.split(":", 1)[1].strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--plies", type=int, default=0, help="gnubg's plies for the cube decisions")
    plies = parser.parse_args().plies
    all_cases = cases() if plies == 0 else cases()[::PLIED_EVERY]
    ask_gnubg(all_cases, plies)
    answered = [case for case in all_cases if "gnubg" in case]
    out = {
        "about": (
            f"GNU Backgammon 1.07.001's {plies}-ply cube analysis (hint before the roll, Kazaross-XG2, "
            "beavers allowed) of positions of real matches at their own and at made-up match states; made by "
            f"cube_fixtures.py{f' --plies {plies}' if plies else ''}. probabilities: gnubg's cubeless ones "
            "(win, win gammon, win backgammon, lose gammon, lose backgammon, cumulative) of the roller (the "
            "player on roll); equities in EMG from the roller's side; available false where gnubg says 'You "
            "cannot double.'"
        ),
        "cases": answered,
    }
    name = "cube.json" if plies == 0 else f"cube-{plies}ply.json"
    (HERE / name).write_text(json.dumps(out, indent=1) + "\n")
    print(f"{len(answered)} of {len(all_cases)} cases answered")


if __name__ == "__main__":
    main()
