"""Run inside GNU Backgammon (``gnubg -t -q -p gnubg_analysis.py``; gnubg's embedded Python provides the
module ``gnubg``): analyse one match file as gnubg's "analyse match" does, at the plies and on the threads
the environment names, and write every analysed checker play and each player's cube error as JSON.
``reference.gnubg_analysis`` runs it; nothing in taldau imports it.

Environment: ``TALDAU_GNUBG_MATCH`` (a Jellyfish match file), ``TALDAU_GNUBG_OUT`` (the JSON written),
``TALDAU_GNUBG_PLIES`` (chequer play and cube decisions; the move filter stays gnubg's default, up to 16
plays within 0.32 at 0-ply). Each play: the game (0-based), the Position ID before it (gnubg's ``board``),
the dice, the candidates gnubg analysed, the equity lost (best minus played, cubeful EMG as gnubg's
analysis prints it) and gnubg's mark (``doubtful``, ``bad``, ``very bad`` or null). Each player's cube
error: the total EMG his cube and take decisions lost over the match (gnubg's statistics, "Error total EMG"
under "Cube decisions"), by his name.
"""

import json
import os

import gnubg  # type: ignore[import-not-found]  # only inside gnubg

CUBE_ERROR_KINDS = (
    "missed-double-below-cp",
    "missed-double-above-cp",
    "wrong-double-below-dp",
    "wrong-double-above-tg",
    "wrong-take",
    "wrong-drop",
)
SETUP = [
    "set threads 1",
    "set display off",
    "set analysis moves on",
    "set analysis cube on",
    "set analysis luck on",
    "set analysis threshold doubtful 0.03",
    "set analysis threshold bad 0.06",
    "set analysis threshold verybad 0.12",
]


def main() -> None:
    plies = int(os.environ["TALDAU_GNUBG_PLIES"])
    for command in [
        *SETUP,
        f"set analysis chequerplay evaluation plies {plies}",
        f"set analysis cubedecision evaluation plies {plies}",
        "set analysis chequerplay evaluation cubeful on",
        "set analysis chequerplay evaluation deterministic on",
        "set analysis chequerplay evaluation noise 0",
        "set analysis cubedecision evaluation cubeful on",
        "set analysis cubedecision evaluation deterministic on",
        "set analysis cubedecision evaluation noise 0",
        f'import mat "{os.environ["TALDAU_GNUBG_MATCH"]}"',
        "analyse match",
    ]:
        gnubg.command(command)
    plays = []
    match = gnubg.match(1, 1, 1, 0)  # with the analysis, the boards and the statistics
    for index, game in enumerate(match["games"]):
        for record in game["game"]:
            analysis = record.get("analysis", {})
            if record.get("action") != "move" or not analysis.get("moves"):
                continue
            candidates = analysis["moves"]
            best, played = candidates[0], candidates[analysis["imove"]]
            plays.append(
                {
                    "game": index,
                    "position_id": record["board"],
                    "dice": sorted(record["dice"], reverse=True),
                    "candidates": len(candidates),
                    "loss": max(0.0, best["score"] - played["score"]),
                    "mark": analysis.get("skill"),
                }
            )
    # gnubg's "error-skill" of the cube is a rate (per close decision); its total is the sum of the kinds
    cube_errors = {
        match["match-info"][side]["name"]: sum(
            match["stats"][side]["cube"][f"err-{kind}-skill"] for kind in CUBE_ERROR_KINDS
        )
        for side in ("X", "O")
    }
    with open(os.environ["TALDAU_GNUBG_OUT"], "w", encoding="utf-8") as handle:
        json.dump({"plays": plays, "cube_errors": cube_errors}, handle)


main()
