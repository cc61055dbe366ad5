"""Make ``analysis/``: GNU Backgammon's own 0-ply analysis of a few real matches (every checker play and
every cube decision judged, marked and summed up per player), to test taldau's match analysis against
(the tests only read the JSON).

Needs GNU Backgammon 1.07 (Debian package ``gnubg``; the binary is ``/usr/games/gnubg``) and the real matches
of ``../shared/data/backgammon/bglab/`` beside the checkout. Run it from the checkout with the project's
Python (taldau and ``gnubg-nn`` installed: the last step compares gnubg-nn with gnubg):

    .venv/bin/python tests/data/backgammon/gnubg/analysis_fixtures.py

It copies the chosen match files into ``analysis/`` and runs this same file inside gnubg
(``gnubg -t -q -p analysis_fixtures.py`` with ``TALDAU_GNUBG_ANALYSIS`` set), where the module ``gnubg``
imports each match (``import mat``), analyses it (``analyse match``) with the settings of ``ANALYSIS``,
and reads the analysis back with ``gnubg.match(analysis=1, boards=1, statistics=1)``. For each match it
writes ``analysis/<name>.json`` (layout in README.md); cube verdicts come from ``gnubg.cfevaluate`` on the
same position and cube (whose No double and Double/take equities must equal the stored analysis), Match IDs
from ``gnubg.matchid``, and the rating texts from gnubg's own text export of the match, which is also
checked, decision by decision, against the Position and Match IDs of the JSON. The text export of
``TEXT_EXPORTED`` is kept: ``analysis/<name>-export.txt``, ``<name>-export_002.txt``... (one file per game).

Last, outside gnubg, it evaluates with gnubg-nn at 0-ply the positions after each played and best play and
the positions of the cube decisions, and prints by how much gnubg-nn's probabilities differ from gnubg's.
The output is deterministic except the "Output generated" date at the end of each text export file.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

if "TALDAU_GNUBG_ANALYSIS" in os.environ:  # inside gnubg, which runs scripts without __file__
    HERE = Path(os.environ["TALDAU_GNUBG_ANALYSIS"])
    BGLAB = Path(os.environ["TALDAU_GNUBG_BGLAB"])
else:
    HERE = Path(__file__).resolve().parent
    BGLAB = HERE.parents[3].parent / "shared" / "data" / "backgammon" / "bglab"
OUT = HERE / "analysis"

# The matches, under a short name, and the bglab file each comes from ("." = a file of this folder).
MATCHES = {
    "galaxy-4219674": "lasse/match4219674.txt",  # 3 points, 2 games: a pass, a take, the Crawford game
    "galaxy-812135": "lasse/match812135.txt",  # 3 points, 4 games: Crawford and post-Crawford games
    "galaxy-3989909": "lasse/match3989909.txt",  # 3 points, 3 games, Crawford and post-Crawford, 2 takes
    "galaxy-6983184": "lasse/match6983184.txt",  # 5 points, 2 games: 4 doubles, redoubles, 3 takes
    "galaxy-7931006": "lasse/match7931006.txt",  # 5 points, 4 games: 3 passes and a take
    "galaxy-2906190": "Llabba/match2906190.txt",  # 5 points, 4 games: 3 passes, the Crawford game
    "galaxy-13000456": "lasse/match13000456.txt",  # 7 points, 2 games: 4 doubles, 3 takes
    "galaxy-12456124": "lasse/match12456124.txt",  # 7 points, 2 games: 5 doubles, all taken
    "studio-iradch49": "Llabba/Llabba - Iradch49 7pt Backgammon Studio 2023_05_15 18_07_54.txt",
    "recorded-money": ".",  # the money session recorded-money.mat of this folder: a beaver, a resignation
}
TEXT_EXPORTED = "galaxy-4219674"

# gnubg 1.07's defaults, set explicitly; the move filters are left at gnubg's defaults (they matter only
# above 0-ply) and chequer play uses gnubg's pruning nets as it does by default.
ANALYSIS = [
    "set analysis chequerplay evaluation plies 0",
    "set analysis chequerplay evaluation cubeful on",
    "set analysis chequerplay evaluation deterministic on",
    "set analysis chequerplay evaluation noise 0",
    "set analysis cubedecision evaluation plies 0",
    "set analysis cubedecision evaluation cubeful on",
    "set analysis cubedecision evaluation deterministic on",
    "set analysis cubedecision evaluation noise 0",
    "set analysis threshold doubtful 0.03",
    "set analysis threshold bad 0.06",
    "set analysis threshold verybad 0.12",
    "set analysis threshold lucky 0.3",
    "set analysis threshold verylucky 0.6",
    "set analysis threshold unlucky 0.3",
    "set analysis threshold veryunlucky 0.6",
    "set analysis moves on",
    "set analysis cube on",
    "set analysis luck on",
    "set output mwc off",  # the text export prints normalised equities (EMG), as the JSON's "equity"
]
SKILL_LEVELS = ((0.12, "very bad"), (0.06, "bad"), (0.03, "doubtful"))  # equity lost, gnubg's mark
LUCK_MARKS = {"verygood": "very lucky", "good": "lucky", "bad": "unlucky", "verybad": "very unlucky"}
CLOSE_CUBE = 0.16  # gnubg's isCloseCubedecision: doubling costs less than this
RATINGS = ("Chequerplay rating", "Luck rating", "Cube decision rating", "Overall rating")
FIELDS = (
    "game", "move_number", "player", "kind", "dice", "position_id", "match_id", "action", "moves", "forced",
    "candidates", "probabilities", "cubeless_equity", "equities", "mwc", "verdict", "close", "best", "played",
    "loss", "loss_mwc", "mark", "luck", "luck_mark",
)  # fmt: skip
DIGITS = 7  # decimals kept: gnubg computes in single precision


# ---------------------------------------------------------------------------------------------------------
# Inside gnubg
# ---------------------------------------------------------------------------------------------------------


def rounded(value: float | None) -> float | None:
    return None if value is None else round(float(value), DIGITS)


def probabilities(values) -> list[float]:
    return [round(float(p), DIGITS) for p in values]


def skill_mark(loss: float) -> str | None:
    """gnubg's mark of an error of ``loss`` (EMG, >= 0): strictly above each threshold."""
    for level, name in SKILL_LEVELS:
        if loss > level:
            return name
    return None


class Cube:
    """The cube and score of the game being walked, as gnubg's cube-info dictionaries need them."""

    def __init__(self, gnubg, length: int, score: tuple[int, int], crawford: bool) -> None:
        self.gnubg = gnubg
        self.length, self.score, self.crawford = length, score, crawford
        self.value, self.owner = 1, -1

    def info(self, player: int) -> dict:
        info = self.gnubg.cubeinfo(
            self.value, self.owner, player, self.length, self.score, int(self.crawford), 0
        )
        info["score"] = self.score  # gnubg.cubeinfo drops a money session's score, which Match IDs hold
        return info

    def match_id(self, player: int, turn: int, dice=(0, 0), doubled: bool = False) -> str:
        return self.gnubg.matchid(
            self.info(player), self.gnubg.posinfo(turn, 0, int(doubled), 1, tuple(dice))
        )

    def to_mwc(self, equity: float, player: int) -> float | None:
        return None if not self.length else self.gnubg.eq2mwc(equity, self.info(player))


def play_text(gnubg, moves, position_id: str) -> str:
    """gnubg's notation of a play given as (from, to) pairs (bar 25, off 0)."""
    if not moves:
        return ""
    flat = [point for move in moves for point in move]
    return gnubg.movetupletostring(tuple(flat + [0] * (8 - len(flat))), gnubg.positionfromid(position_id))


def cube_decision(gnubg, cube: Cube, record: dict, player: int, context: dict) -> dict:
    """The cube analysis of a record (a double, or a roll where the player could have doubled), from the
    view of ``player``, who holds the cube decision."""
    analysis = record["analysis"]
    info = cube.info(player)
    board = gnubg.positionfromid(record["board"])
    optimal, no_double, take, drop, _, verdict = gnubg.cfevaluate(board, info, context)
    stored = [analysis["nd-cubeful-eq"], analysis["dt-cubeful-eq"]]
    if cube.length:
        stored = [gnubg.mwc2eq(value, info) for value in stored]
    if abs(stored[0] - no_double) > 1e-5 or abs(stored[1] - take) > 1e-5:
        raise RuntimeError(
            f"cfevaluate disagrees with the analysis at {record['board']}: the cube state is off"
        )
    cubeless = gnubg.evaluate(board, info, context)[5]
    equities = {"no_double": no_double, "double_take": take, "double_pass": drop, "optimal": optimal}
    return {
        "probabilities": probabilities(analysis["probs"]),
        "cubeless_equity": rounded(cubeless),
        "equities": {key: rounded(value) for key, value in equities.items()},
        "mwc": None
        if not cube.length
        else {key: rounded(cube.to_mwc(value, player)) for key, value in equities.items()},
        "verdict": verdict,
        "close": no_double - min(take, drop) < CLOSE_CUBE or optimal - no_double > 1e-7,
    }


def with_loss(decision: dict, chosen: str, cube: Cube, player: int) -> dict:
    """Adds the equity lost by the action taken (EMG and MWC) and its mark."""
    equities = decision["equities"]
    loss = max(0.0, equities["optimal"] - equities[chosen])
    decision["loss"] = rounded(loss)
    if cube.length:
        mwc = decision["mwc"]
        decision["loss_mwc"] = rounded(max(0.0, mwc["optimal"] - mwc[chosen]))
    else:
        decision["loss_mwc"] = None
    decision["mark"] = skill_mark(loss)
    return decision


def response(decision: dict, action: str, cube: Cube) -> dict:
    """The take-or-pass decision answering a double, from the taker's view (gnubg's equities negated)."""
    answer = {key: decision[key] for key in ("game", "move_number", "position_id")}
    answer |= {"player": 1 - decision["player"], "kind": "take", "dice": None, "action": action}
    view = {key: -value for key, value in decision["equities"].items() if key != "optimal"}
    view["optimal"] = max(view["double_take"], view["double_pass"])  # the taker picks the better answer
    answer["probabilities"] = [
        1 - decision["probabilities"][0],
        *decision["probabilities"][3:],
        *decision["probabilities"][1:3],
    ]
    answer["probabilities"] = probabilities(answer["probabilities"])
    answer["cubeless_equity"] = -decision["cubeless_equity"]
    answer["equities"] = {key: rounded(value) for key, value in view.items()}
    if cube.length:
        mwc = {key: 1 - value for key, value in decision["mwc"].items() if key != "optimal"}
        mwc["optimal"] = max(mwc["double_take"], mwc["double_pass"])
        answer["mwc"] = {key: rounded(value) for key, value in mwc.items()}
    else:
        answer["mwc"] = None
    answer["verdict"] = decision["verdict"]
    answer["close"] = True
    chosen = "double_take" if action in ("take", "beaver") else "double_pass"
    return with_loss(answer, chosen, cube, 1 - decision["player"])


def move_decision(gnubg, cube: Cube, record: dict, game: int, number: int, player: int) -> dict:
    """A roll and the play made with it."""
    analysis = record.get("analysis", {})
    dice = list(record["dice"])
    decision = {
        "game": game,
        "move_number": number,
        "player": player,
        "kind": "move",
        "dice": dice,
        "position_id": record["board"],
        "match_id": cube.match_id(player, player, dice),
        "action": play_text(gnubg, record["move"], record["board"]),
        "moves": [list(move) for move in record["move"]],
    }
    candidates = analysis.get("moves", [])
    decision["candidates"] = len(candidates)
    decision["forced"] = len(candidates) <= 1
    if candidates:
        best, played = candidates[0], candidates[analysis["imove"]]
        for key, entry in (("best", best), ("played", played)):
            decision[key] = {
                "action": play_text(gnubg, entry["move"], record["board"]),
                "moves": [list(move) for move in entry["move"]],
                "probabilities": probabilities(entry["probs"]),
                "equity": rounded(entry["score"]),
                "mwc": rounded(cube.to_mwc(entry["score"], player)),
            }
        decision["loss"] = rounded(best["score"] - played["score"])
        decision["loss_mwc"] = (
            None if not cube.length else rounded(decision["best"]["mwc"] - decision["played"]["mwc"])
        )
    else:
        decision["best"] = decision["played"] = None
        decision["loss"] = 0.0
        decision["loss_mwc"] = 0.0 if cube.length else None
    decision["mark"] = analysis.get("skill")
    decision["luck"] = rounded(analysis.get("luck-value"))
    decision["luck_mark"] = LUCK_MARKS.get(analysis.get("luck"))
    if decision["mark"] != (None if decision["forced"] else skill_mark(decision["loss"])):
        raise RuntimeError(f"gnubg's mark {decision['mark']} is not the threshold's at {record['board']}")
    return decision


def walk_game(gnubg, game: dict, index: int, length: int, context: dict) -> tuple[dict, list[dict]]:
    """The match state at the start of a game and its decisions in order."""
    info = game["info"]
    score = (info["score-X"], info["score-O"])
    crawford = bool(info.get("crawford", False))
    post_crawford = bool(length) and not crawford and length - 1 in score
    cube = Cube(gnubg, length, score, crawford)
    decisions: list[dict] = []
    offer: dict | None = None
    accepting: dict | None = None
    for number, record in enumerate(game["game"], start=1):
        action = record["action"]
        player = {"X": 0, "O": 1}[record["player"]]
        if action == "move":
            if "nd-cubeful-eq" in record.get("analysis", {}):
                decision = {
                    "game": index,
                    "move_number": number,
                    "player": player,
                    "kind": "cube",
                    "dice": None,
                }
                decision |= {"position_id": record["board"], "match_id": cube.match_id(player, player)}
                decision |= {"action": "no double"} | cube_decision(gnubg, cube, record, player, context)
                decision = with_loss(decision, "no_double", cube, player)
                if decision["mark"] != record["analysis"].get("cube-skill"):
                    raise RuntimeError(f"gnubg marks the no double at {record['board']} otherwise")
                decisions.append(decision)
            decisions.append(move_decision(gnubg, cube, record, index, number, player))
        elif action == "double" and offer is not None and player != offer["player"]:  # a beaver
            decisions.append(response(offer, "beaver", cube) | {"match_id": offer["take_match_id"]})
            cube.value, cube.owner = cube.value * 4, player
            offer = None
            beaver = {"game": index, "move_number": number + 1, "player": 1 - player, "kind": "take"}
            beaver |= {"dice": None, "position_id": record["board"], "match_id": None, "action": "take"}
            beaver |= dict.fromkeys(("probabilities", "cubeless_equity", "equities", "mwc", "verdict"))
            beaver |= {"close": True, "loss": 0.0, "loss_mwc": None, "mark": None}
            accepting = beaver  # the doubler accepts the beaver: gnubg counts a take it does not analyse
        elif action == "double":
            decision = {"game": index, "move_number": number, "player": player, "kind": "cube", "dice": None}
            decision |= {"position_id": record["board"], "match_id": cube.match_id(player, player)}
            decision |= {"action": "double"} | cube_decision(gnubg, cube, record, player, context)
            decision["close"] = True  # gnubg counts "close or actual" cube decisions
            decision = with_loss(
                decision,
                "double_take"
                if decision["equities"]["double_take"] < decision["equities"]["double_pass"]
                else "double_pass",
                cube,
                player,
            )
            if decision["mark"] != record["analysis"].get("skill"):
                raise RuntimeError(
                    f"gnubg marks the double at {record['board']} {record['analysis'].get('skill')}"
                )
            decisions.append(decision)
            offer = decision | {"take_match_id": cube.match_id(player, 1 - player, doubled=True)}
        elif action in ("take", "drop") and offer is not None:
            answer = response(offer, "take" if action == "take" else "pass", cube)
            answer["move_number"] = number
            if answer["mark"] != record.get("analysis", {}).get("skill"):
                raise RuntimeError(f"gnubg marks the {action} at {offer['position_id']} otherwise")
            decisions.append(answer | {"match_id": offer["take_match_id"]})
            if action == "take":
                cube.value, cube.owner = cube.value * 2, player
            offer = None
        elif action == "take" and accepting is not None:
            decisions.append(accepting)
            accepting = None
    # the doubled positions keep the doubler's Position ID; the take decision is numbered as gnubg's
    # text export numbers it (the record after the double)
    return {
        "index": index,
        "length": length,
        "score": list(score),
        "crawford": crawford,
        "post_crawford": post_crawford,
        "winner": {"X": 0, "O": 1}.get(info.get("winner")),
        "points": info.get("points-won", 0),
        "resigned": bool(info.get("resigned", False)),
    }, decisions


def player_statistics(stats: dict, ratings: dict[str, str]) -> dict:
    """gnubg's statistics of one player (one game or the match), errors as positive amounts."""
    moves, cube, dice = stats["moves"], stats["cube"], stats["dice"]

    def rate(total: float, count: int) -> float | None:
        return rounded(1000 * total / count) if count else None

    kinds = [
        ("missed_doubles_below_cp", "missed-double-below-cp"),
        ("missed_doubles_above_cp", "missed-double-above-cp"),
        ("wrong_doubles_below_dp", "wrong-double-below-dp"),
        ("wrong_doubles_above_tg", "wrong-double-above-tg"),
        ("wrong_takes", "wrong-take"),
        ("wrong_passes", "wrong-drop"),
    ]
    rolls = dice["marked-rolls"]
    # gnubg's module gives the cube's error-skill and error-cost per close decision (its text export
    # prints the totals): the totals are the sums of the six kinds of cube error
    cube_error = sum(cube[f"err-{key}-skill"] for _, key in kinds)
    cube_error_mwc = sum(cube[f"err-{key}-cost"] for _, key in kinds)
    if abs(cube_error - cube["error-skill"] * max(1, cube["close-cube"])) > 1e-5:
        raise RuntimeError(
            f"gnubg's cube error rate {cube['error-skill']} is not its total {cube_error} per decision"
        )
    error = moves["error-skill"] + cube_error
    decisions = moves["unforced-moves"] + cube["close-cube"]
    return {
        "checker": {
            "moves": moves["total-moves"],
            "unforced": moves["unforced-moves"],
            "marks": {name: moves["marked"][name] for name in ("doubtful", "bad", "very bad")},
            "error": rounded(moves["error-skill"]),
            "error_mwc": rounded(moves["error-cost"]),
            "error_rate": rate(moves["error-skill"], moves["unforced-moves"]),
            "rating": ratings["Chequerplay rating"],
        },
        "cube": {
            "decisions": cube["total-cube"],
            "close": cube["close-cube"],
            "doubles": cube["n-doubles"],
            "takes": cube["n-takes"],
            "passes": cube["n-drops"],
            **{name: [cube[key], rounded(cube[f"err-{key}-skill"])] for name, key in kinds},
            "error": rounded(cube_error),
            "error_mwc": rounded(cube_error_mwc),
            "error_rate": rate(cube_error, cube["close-cube"]),
            "rating": ratings["Cube decision rating"],
        },
        "luck": {
            "marks": {
                "very lucky": rolls["verygood"],
                "lucky": rolls["good"],
                "unlucky": rolls["bad"],
                "very unlucky": rolls["verybad"],
            },
            "total": rounded(dice["luck"]),
            "total_mwc": rounded(dice["luck-cost"]),
            "rate": rate(dice["luck"], moves["total-moves"]),
            "rating": ratings["Luck rating"],
        },
        "overall": {
            "error": rounded(error),
            "error_mwc": rounded(moves["error-cost"] + cube_error_mwc),
            "error_rate": rate(error, decisions),
            "rating": ratings["Overall rating"],
        },
    }


def read_export(files: list[Path]) -> tuple[list[tuple[str, str]], list[list[dict[str, str]]]]:
    """From gnubg's text export of a match: the (Position ID, Match ID) of each record shown, and the
    rating texts of each statistics block (one per game, then the match), per player."""
    ids, blocks = [], []
    for path in files:
        lines = path.read_text().splitlines()
        for number, line in enumerate(lines):
            if line.startswith(" GNU Backgammon  Position ID:"):
                ids.append((line.split(":")[1].strip(), lines[number + 1].split(":")[1].strip()))
            elif line.startswith(("Game statistics for game", "Match statistics")):
                blocks.append([{}, {}])
            elif blocks and line.startswith(RATINGS):
                label, *values = re.split(r"\s{2,}", line.strip())
                for player, value in enumerate(values[:2]):
                    blocks[-1][player][label] = value
    return ids, blocks


def check_ids(short: str, decisions: list[dict], shown: list[tuple[str, str]]) -> None:
    """The IDs of the decisions equal those of gnubg's text export, record by record (the export shows
    no board for a roll's implicit no-double; it writes game state 0 on the opening roll's Match ID)."""
    boarded = [d for d in decisions if not (d["kind"] == "cube" and d["action"] == "no double")]
    if len(boarded) != len(shown):
        raise RuntimeError(
            f"{short}: {len(boarded)} decisions with a board, gnubg's export shows {len(shown)}"
        )
    for decision, (position_shown, match_shown) in zip(boarded, shown, strict=True):
        if decision["match_id"] is None:  # the acceptance of a beaver: gnubg's own ID
            decision["match_id"] = match_shown
        position, match = decision["position_id"], decision["match_id"]
        if position != position_shown or (
            match != match_shown and not same_but_game_state(match, match_shown)
        ):
            raise RuntimeError(
                f"{short}: IDs {position}:{match}, gnubg's export {position_shown}:{match_shown}"
            )


def same_but_game_state(one: str, other: str) -> bool:
    """Whether two Match IDs differ only in the game state bits (8..10)."""

    def key(text: str) -> int:
        return int.from_bytes(base64.b64decode(text), "little") & ~(0b111 << 8)

    return key(one) == key(other)


def analyse(gnubg, short: str, path: Path, work: Path) -> dict:
    """Imports, analyses and exports one match; returns its JSON."""
    for command in ["set player 0 name -", "set player 1 name -", "new match 1"]:
        gnubg.command(command)
    gnubg.command(f'import mat "{path}"')
    gnubg.command("analyse match")
    export = work / short / f"{short}-export.txt"
    export.parent.mkdir(parents=True, exist_ok=True)
    gnubg.command(f'export match text "{export}"')
    files = sorted(export.parent.glob(f"{short}-export*.txt"))
    shown, blocks = read_export(files)
    match = gnubg.match(1, 1, 1, 1)  # verbose: the marks of takes and passes too
    context = {"cubeful": 1, "plies": 0, "deterministic": 1, "noise": 0.0}
    length = match["match-info"]["match-length"]
    games, everything = [], []
    for index, game in enumerate(match["games"]):
        entry, decisions = walk_game(gnubg, game, index, length, context)
        entry["decisions"] = decisions
        entry["statistics"] = [
            player_statistics(game["stats"][side], blocks[index][player]) for player, side in enumerate("XO")
        ]
        check_statistics(short, entry)
        games.append(entry)
        everything += decisions
    check_ids(short, everything, shown)
    info = match["match-info"]
    return {
        "players": [info["X"]["name"], info["O"]["name"]],
        "length": length,
        "games": games,
        "statistics": [
            player_statistics(match["stats"][side], blocks[-1][player]) for player, side in enumerate("XO")
        ],
        "text_export": [path.name for path in files] if short == TEXT_EXPORTED else None,
        "_files": [str(path) for path in files],
    }


def check_statistics(short: str, game: dict) -> None:
    """gnubg's per-player sums equal the decisions' figures: errors, unforced moves, close cube decisions,
    luck (proves the decisions are read, state-tracked and signed as gnubg itself counts them)."""
    for player, stats in enumerate(game["statistics"]):
        mine = [d for d in game["decisions"] if d["player"] == player]
        moves = [d for d in mine if d["kind"] == "move"]
        cubes = [d for d in mine if d["kind"] != "move" and d["action"] != "beaver"]  # gnubg skips beavers
        sums = {
            "checker error": (sum(d["loss"] for d in moves), stats["checker"]["error"]),
            "cube error": (sum(d["loss"] for d in cubes), stats["cube"]["error"]),
            "luck": (sum(d["luck"] or 0.0 for d in moves), stats["luck"]["total"]),
            "unforced": (sum(not d["forced"] for d in moves), stats["checker"]["unforced"]),
            "close cube": (sum(d["close"] for d in cubes), stats["cube"]["close"]),
            "cube decisions": (len(cubes), stats["cube"]["decisions"]),
        }
        for what, (ours, gnubgs) in sums.items():
            if abs(ours - gnubgs) > 2e-4:
                raise RuntimeError(
                    f"{short} game {game['index'] + 1} player {player}: {what} {ours} != gnubg {gnubgs}"
                )


def inside_gnubg() -> None:
    """Analyses every match and writes the JSON files (and the kept text export) into analysis/."""
    import gnubg  # type: ignore[import-not-found]

    sys.path.insert(0, str(HERE))
    from make_fixtures import SETTINGS  # display, confirmations, automatic play and dice: as for the others

    for command in SETTINGS + ANALYSIS:
        gnubg.command(command)
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        for short in MATCHES:
            source = OUT / match_file_name(short)
            result = analyse(gnubg, short, source, work)
            files = [Path(name) for name in result.pop("_files")]
            if short == TEXT_EXPORTED:
                for path in files:
                    shutil.copy(path, OUT / path.name)
            write_json(short, source.name, result)


def write_json(short: str, file_name: str, result: dict) -> None:
    """Writes analysis/<short>.json, one decision per line, fields in the order of ``FIELDS``."""
    about = (
        "GNU Backgammon 1.07.001 (Debian) 0-ply analysis of the match file " + file_name + " (by "
        "analysis_fixtures.py; fields in README.md). Players 0 and 1 are gnubg's X and O (the left and right "
        "columns of the record). Equities are from the deciding player's view, normalised (EMG, what gnubg "
        "prints); mwc the match winning chances in a match (null in money play); losses and errors >= 0."
    )
    head = {"about": about, "source": MATCHES[short], "file": file_name} | {
        key: result[key] for key in ("players", "length", "text_export")
    }
    parts = ["{" + json.dumps(head)[1:-1] + ',\n"games": [']
    games = []
    for game in result["games"]:
        ordered = [dict(sorted(d.items(), key=lambda item: FIELDS.index(item[0]))) for d in game["decisions"]]
        decisions = ",\n".join(json.dumps(d, separators=(",", ":")) for d in ordered)
        rest = {key: value for key, value in game.items() if key not in ("decisions", "statistics")}
        stats = ",\n".join(json.dumps(s, separators=(",", ":")) for s in game["statistics"])
        games.append(json.dumps(rest)[:-1] + f',\n"statistics": [\n{stats}],\n"decisions": [\n{decisions}]}}')
    parts.append(",\n".join(games) + "],")
    stats = ",\n".join(json.dumps(s, separators=(",", ":")) for s in result["statistics"])
    parts.append(f'"statistics": [\n{stats}]}}')
    (OUT / f"{short}.json").write_text("\n".join(parts) + "\n")


# ---------------------------------------------------------------------------------------------------------
# Outside gnubg
# ---------------------------------------------------------------------------------------------------------


def match_file_name(short: str) -> str:
    """The name of a chosen match's file in analysis/."""
    return f"{short}.mat" if MATCHES[short] == "." else f"{short}.txt"


def copy_matches() -> None:
    """Copies the chosen match files into analysis/ (bglab is MIT; see README.md)."""
    OUT.mkdir(exist_ok=True)
    for short, name in MATCHES.items():
        shutil.copyfile(
            HERE / match_file_name(short) if name == "." else BGLAB / name, OUT / match_file_name(short)
        )


def compare_with_gnubg_nn() -> str:
    """gnubg-nn's 0-ply probabilities against gnubg's on the fixture positions: a summary table."""
    import numpy as np
    from taldau.games.backgammon.engine.gnubg import GnubgEvaluator
    from taldau.games.backgammon.rules.position import Position

    evaluator = GnubgEvaluator()
    theirs, boards, flips = [], [], []
    seen = set()
    for path in sorted(OUT.glob("*.json")):
        for game in json.loads(path.read_text())["games"]:
            for decision in game["decisions"]:
                if decision["kind"] == "cube":
                    before = Position.from_position_id(decision["position_id"])
                    boards.append(before.board)
                    theirs.append(decision["probabilities"])
                    flips.append(False)
                elif decision["kind"] == "move" and decision["played"]:
                    before = Position.from_position_id(decision["position_id"])
                    for key in ("played", "best"):
                        after = before.play_moves(tuple(tuple(move) for move in decision[key]["moves"]))
                        if (after.position_id(), key == "best") in seen or (
                            key == "best" and decision["best"]["moves"] == decision["played"]["moves"]
                        ):
                            continue
                        seen.add((after.position_id(), key == "best"))
                        boards.append(after.board)
                        theirs.append(decision[key]["probabilities"])
                        flips.append(True)
    ours = evaluator.evaluate(np.stack(boards))
    # a position after a play is evaluated for the next player: turn it to the mover's view
    for row, flip in enumerate(flips):
        if flip:
            win, win_g, win_bg, lose_g, lose_bg = ours[row]
            ours[row] = [1 - win, lose_g, lose_bg, win_g, win_bg]
    difference = np.abs(ours - np.asarray(theirs))
    names = ("win", "win gammon", "win backgammon", "lose gammon", "lose backgammon")
    lines = [
        f"gnubg-nn ({evaluator.version}) 0-ply against gnubg 1.07 0-ply on {len(boards)} positions "
        f"({sum(flips)} after a play, {len(flips) - sum(flips)} before a cube decision):",
        "| probability | max abs. difference | mean abs. difference |",
        "|---|---|---|",
    ]
    for column, name in enumerate(names):
        lines.append(f"| {name} | {difference[:, column].max():.5f} | {difference[:, column].mean():.6f} |")
    return "\n".join(lines)


def main() -> None:
    if not BGLAB.is_dir():
        sys.exit(f"bglab matches not found at {BGLAB}")
    from make_fixtures import script_in_gnubg  # beside this file, on the path of a script run outside gnubg

    copy_matches()
    environment = dict(os.environ, TALDAU_GNUBG_ANALYSIS=str(HERE), TALDAU_GNUBG_BGLAB=str(BGLAB))
    done = script_in_gnubg(Path(__file__).resolve(), environment, cwd=HERE)
    if done.returncode or "Traceback" in done.stderr:
        sys.exit(f"gnubg failed ({done.returncode}): {done.stderr[-3000:]}")
    count = sum(len(g["decisions"]) for p in OUT.glob("*.json") for g in json.loads(p.read_text())["games"])
    print(f"wrote {len(MATCHES)} analysed matches ({count} decisions) to {OUT}")
    try:
        print(compare_with_gnubg_nn())
    except ImportError as error:
        print(f"gnubg-nn comparison skipped: {error}")


if "TALDAU_GNUBG_ANALYSIS" in os.environ:
    inside_gnubg()
elif __name__ == "__main__":
    main()
