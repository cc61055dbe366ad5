"""Make the GNU Backgammon fixtures of this folder from gnubg itself (the tests only read them).

Needs GNU Backgammon 1.07 (Debian package ``gnubg``; the binary is ``/usr/games/gnubg``) and the real
matches of ``../shared/data/backgammon/bglab/`` beside the checkout. Run it with any Python 3, from anywhere:

    python3 tests/data/backgammon/gnubg/make_fixtures.py

It runs this same file inside gnubg (``gnubg -t -q -p make_fixtures.py``, with the job named in the
environment variable ``TALDAU_GNUBG_JOB``), where the module ``gnubg`` reads the matches, and writes:

- ``ids.json``: positions along real matches and two money sessions, with gnubg's Position ID, Match ID,
  board, the match fields gnubg reports (cube, owner, turn, dice, score, ...), and an XGID when gnubg reads
  that XGID back to the same position (gnubg reads XGIDs but never writes them);
- ``<name>.sgf`` and ``<name>.mat``: gnubg's own exports of six bglab matches, and ``results.json`` with
  gnubg's reading of their games;
- ``recorded-money.sgf`` and ``.mat``: a short money session entered command by command (beaver,
  rejected and accepted resignations, a drop) to see how gnubg writes them;
- ``bglab-results.json``: gnubg's reading of every bglab match: per game the winner, the points and how it
  ended, or the error when gnubg fails on the file (gnubg 1.07 aborts on some files; the file is then
  recorded with the error and the others go on in a new gnubg process).

The output is deterministic except the dates gnubg writes into ``recorded-money.*``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

if "TALDAU_GNUBG_BGLAB" in os.environ:  # inside gnubg, which runs scripts without __file__
    BGLAB = Path(os.environ["TALDAU_GNUBG_BGLAB"])
    HERE = Path.cwd()
else:
    HERE = Path(__file__).resolve().parent
    BGLAB = HERE.parents[3].parent / "shared" / "data" / "backgammon" / "bglab"

# Matches exported by gnubg to SGF and MAT, under a short name.
EXPORTED = {
    "galaxy-6800849": "lasse/match6800849.txt",  # 3 points, Crawford and post-Crawford games
    "galaxy-8170603": "lasse/match8170603.txt",  # 19 doubles in 18 games
    "galaxy-10030560": "lasse/match10030560.txt",  # resignations, Galaxy's "Losses" lines
    "studio-selbs": "Llabba/Selbs - Llabba 13pt Backgammon Studio 2023_03_24 18_10_57.txt",  # 18 doubles
    "studio-iradch49": "Llabba/Llabba - Iradch49 7pt Backgammon Studio 2023_05_15 18_07_54.txt",
    "studio-moderntavla31": "Llabba/Moderntavla31 - Llabba 9pt Backgammon Studio 2023_09_20 21_30_21.txt",
}

# Matches walked position by position for ids.json: the exported ones and a 1-point match.
WALKED = EXPORTED | {"galaxy-1501137": "lasse/match1501137.txt"}

# A money session entered by hand: player 0 is alice, player 1 bob, whoever wins the opening roll.
RECORDED = """set dice 3 1
move 8/5 6/5
double
beaver
take
set dice 6 4
move 24/14
double
take
set dice 5 5
move 13/3(2)
resign 2
reject
set dice 2 1
move 13/11 6/5
resign 1
accept
new game
set dice 4 2
move 8/4 6/4
double
drop"""

SETTINGS = [
    "set display off",
    "set confirm new off",
    "set confirm save off",
    "set automatic game off",
    "set automatic roll off",
    "set automatic move off",
    "set rng mersenne",
    "set seed 11",
]

IDS_TARGET = 360  # records kept in ids.json
PER_TAG = 24  # records kept for each special kind of position before filling up to IDS_TARGET
MAX_CUBE_LOG2 = 10  # written in the last XGID field (gnubg ignores it)
XG_LETTERS = "ABCDEFGHIJKLMNOP"


# ---------------------------------------------------------------------------------------------------------
# Inside gnubg
# ---------------------------------------------------------------------------------------------------------


def capture(gnubg, command: str, scratch: Path) -> list[str]:
    """Runs a gnubg command and returns the lines it printed, boards left out."""
    import ctypes

    libc = ctypes.CDLL(None)
    sys.stdout.flush()
    sys.stderr.flush()
    libc.fflush(None)
    fd = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    saved = os.dup(1), os.dup(2)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    try:
        gnubg.command(command)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        libc.fflush(None)
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(saved[0])
        os.close(saved[1])
        os.close(fd)
    board_line = re.compile(r"^\s*$|^ ?[|^v+]|^ *GNU Backgammon +Position ID|^ +Match ID")
    text = scratch.read_text(errors="replace")
    return [line.strip() for line in text.splitlines() if not board_line.match(line)]


def session_score(gnubg) -> list[int]:
    """The score of the current money session, as gnubg shows it."""
    found = re.search(r"is: .* (\d+), .* (\d+) \(", gnubg.show("score"))
    return [int(found.group(1)), int(found.group(2))]


def snapshot(gnubg, source: str) -> dict:
    """The current position: gnubg's board, IDs and the match fields its Python module reports (none
    when the match is over: gnubg.cubeinfo() fails once a score reaches the length)."""
    ids = {
        "source": source,
        "board": [list(row) for row in gnubg.board()],
        "position_id": gnubg.positionid(),
        "match_id": gnubg.matchid(),
    }
    try:
        cube = gnubg.cubeinfo()
    except Exception:  # gnubg raises a bare Exception("error in SetCubeInfo")
        return ids
    pos = gnubg.posinfo()
    length = cube["matchto"]
    return ids | {
        "cube": cube["cube"],
        "cube_owner": cube["cubeowner"],
        "dice_owner": cube["move"],
        "crawford": bool(cube["crawford"]),
        "jacoby": bool(cube["jacoby"]),
        "game_state": pos["gamestate"],
        "turn": pos["turn"],
        "doubled": bool(pos["doubled"]),
        "resigned": pos["resigned"],
        "dice": list(pos["dice"]),
        "length": length,
        "score": list(cube["score"]) if length else session_score(gnubg),
    }


def walk(gnubg, source: str, records: list[dict]) -> None:
    """Appends every position of the loaded match or session, game by game ('next roll' steps)."""
    games = gnubg.match(0, 0, 0, 0)["games"]
    gnubg.navigate()
    for index in range(len(games)):
        if index:
            gnubg.navigate(game=1)
        previous = None
        while True:
            record = snapshot(gnubg, f"{source} game {index + 1}")
            key = record["position_id"], record["match_id"]
            if key == previous:
                break
            records.append(record)
            previous = key
            gnubg.command("next roll")


def xgid_of(record: dict, beavers: bool) -> str:
    """The XGID of a position where the player on roll has no decision pending; bottom = player 1."""
    board, roller = record["board"], record["dice_owner"]
    bottom, top = (board[1], board[0]) if roller == 1 else (board[0], board[1])
    cells = ["-"] * 26
    for i in range(24):
        if bottom[i]:
            cells[i + 1] = XG_LETTERS[bottom[i] - 1]
        if top[i]:
            cells[24 - i] = XG_LETTERS[top[i] - 1].lower()
    if bottom[24]:
        cells[25] = XG_LETTERS[bottom[24] - 1]
    if top[24]:
        cells[0] = XG_LETTERS[top[24] - 1].lower()
    owner = {-1: 0, 1: 1, 0: -1}[record["cube_owner"]]
    dice = "{}{}".format(*record["dice"])
    # the field after the scores: Crawford in a match, Jacoby + 2 * beavers in money play
    rules = int(record["crawford"]) if record["length"] else int(record["jacoby"]) + 2 * int(beavers)
    fields = [
        "".join(cells),
        record["cube"].bit_length() - 1,
        owner,
        1 if roller == 1 else -1,
        dice,
        record["score"][1],
        record["score"][0],
        rules,
        record["length"],
        MAX_CUBE_LOG2,
    ]
    return "XGID=" + ":".join(str(field) for field in fields)


def xgid_confirmed(gnubg, record: dict, xgid: str) -> bool:
    """Whether gnubg reads the XGID back to the record's position (gnubg makes the roller player 1)."""
    gnubg.command("set xgid " + xgid)
    cube, pos = gnubg.cubeinfo(), gnubg.posinfo()
    roller = record["dice_owner"]
    owner = record["cube_owner"]
    if owner != -1:
        owner = 1 if owner == roller else 0
    score = record["score"] if roller == 1 else record["score"][::-1]
    length = cube["matchto"]
    got = (
        gnubg.positionid(),
        cube["cube"],
        cube["cubeowner"],
        cube["move"],
        pos["turn"],
        list(pos["dice"]),
        bool(cube["crawford"]),
        length,
        list(cube["score"]) if length else session_score(gnubg),
    )
    want = (
        record["position_id"],
        record["cube"],
        owner,
        1,
        1,
        record["dice"],
        record["crawford"],
        record["length"],
        list(score),
    )
    if length == 0:
        got += (bool(cube["jacoby"]),)
        want += (record["jacoby"],)
    return got == want


def record_money_session(gnubg, records: list[dict], out: Path) -> None:
    """Plays RECORDED by hand, keeping every position (offered resignations included), and exports it."""
    for command in [
        "set player 0 human",
        "set player 1 human",
        "set player 0 name alice",
        "set player 1 name bob",
        "set beavers 3",
        "set jacoby off",
        "new session",
    ]:
        gnubg.command(command)
    records.append(snapshot(gnubg, "recorded-money"))
    for command in RECORDED.splitlines():
        gnubg.command(command)
        records.append(snapshot(gnubg, f"recorded-money after '{command}'"))
    gnubg.command(f'save match "{out}/recorded-money.sgf"')
    gnubg.command(f'export match mat "{out}/recorded-money.mat"')


def play_money_session(gnubg, records: list[dict]) -> None:
    """Lets gnubg play four money games against itself (0-ply, Jacoby and beavers on) and walks them."""
    for command in ["set jacoby on", "set beavers 3"]:
        gnubg.command(command)
    for player in (0, 1):
        gnubg.command(f"set player {player} gnubg")
        gnubg.command(f"set player {player} name gnubg{player}")
        gnubg.command(f"set player {player} chequerplay evaluation plies 0")
        gnubg.command(f"set player {player} cubedecision evaluation plies 0")
    gnubg.command("new session")
    for _ in range(3):
        gnubg.command("new game")
    walk(gnubg, "money session", records)


def job_ids(gnubg, work: Path) -> None:
    """Collects positions of the WALKED matches and of two money sessions, with confirmed XGIDs."""
    records: list[dict] = []
    for short, name in WALKED.items():
        gnubg.command(f'import mat "{BGLAB / name}"')
        walk(gnubg, short, records)
    play_money_session(gnubg, records)
    record_money_session(gnubg, records, work)
    unique = {}
    for record in records:
        unique.setdefault((record["position_id"], record["match_id"]), record)
    records = list(unique.values())
    refused = 0
    for record in records:
        simple = record.get("game_state") == 1 and not record["doubled"] and not record["resigned"]
        if simple and record["turn"] == record["dice_owner"]:
            xgid = xgid_of(record, beavers=record["length"] == 0)
            if xgid_confirmed(gnubg, record, xgid):
                record["xgid"] = xgid
            else:
                refused += 1
    (work / "ids-all.json").write_text(json.dumps({"records": records, "xgid_refused": refused}))


def job_exports(gnubg, work: Path) -> None:
    """Exports the EXPORTED matches to SGF and MAT and writes gnubg's reading of their games."""
    results = {}
    for short, name in EXPORTED.items():
        gnubg.command(f'import mat "{BGLAB / name}"')
        gnubg.command(f'save match "{work / short}.sgf"')
        gnubg.command(f'export match mat "{work / short}.mat"')
        match = gnubg.match(0, 0, 0, 0)
        info = match["match-info"]
        games = []
        for game in match["games"]:
            game_info = game["info"]
            winner = winner_of(game)
            before = [game_info["score-X"], game_info["score-O"]]
            after = list(before)
            after[winner] += game_info["points-won"]
            games.append(
                {
                    "winner": winner,
                    "points": game_info["points-won"],
                    "ended": ending(game),
                    "crawford": game_info.get("crawford", False),
                    "score_before": before,
                    "score_after": after,
                }
            )
        results[short] = {
            "source": name,
            "players": [info["X"]["name"], info["O"]["name"]],
            "length": info["match-length"],
            "final_score": games[-1]["score_after"],
            "games": games,
        }
    lines = []
    for short, result in results.items():
        games = ",\n  ".join(json.dumps(game) for game in result.pop("games"))
        head = json.dumps(result)[:-1]
        lines.append(f'{json.dumps(short)}: {head}, "games": [\n  {games}]}}')
    (work / "results.json").write_text("{\n" + ",\n".join(lines) + "\n}\n")


def winner_of(game: dict) -> int | None:
    """gnubg's winner of a game as a player number (gnubg's Python module says X for 0, O for 1)."""
    return {"X": 0, "O": 1}.get(game["info"].get("winner"))


def ending(game: dict) -> str:
    """How gnubg says a game ended: 'resigned', 'dropped', 'played' (to the end) or 'unfinished'."""
    info = game["info"]
    if info.get("winner") is None:
        return "unfinished"
    if info.get("resigned"):
        return "resigned"
    if game["game"] and game["game"][-1]["action"] == "drop":
        return "dropped"
    return "played"


def job_bglab(gnubg, work: Path) -> None:
    """Appends gnubg's reading of every bglab match not read yet to bglab.jsonl (resumable)."""
    journal = work / "bglab.jsonl"
    started = set()
    if journal.exists():
        started = {json.loads(line)["file"] for line in journal.read_text().splitlines()}
    names = sorted(str(path.relative_to(BGLAB)) for path in BGLAB.rglob("*.txt"))
    for player in (0, 1):
        gnubg.command(f"set player {player} human")
    with journal.open("a") as out:
        for name in names:
            if name in started:
                continue
            out.write(json.dumps({"file": name, "started": True}) + "\n")
            out.flush()
            for command in ["set player 0 name -", "set player 1 name -", "new match 1"]:
                gnubg.command(command)
            messages = capture(gnubg, f'import mat "{BGLAB / name}"', work / "capture.txt")
            match = gnubg.match(0, 0, 0, 0)
            names_read = [match["match-info"]["X"]["name"], match["match-info"]["O"]["name"]]
            entry: dict = {"file": name}
            if names_read == ["-", "-"] and match["match-info"]["match-length"] == 1:
                entry["error"] = "; ".join(messages) or "gnubg read no match"
            else:
                games = match["games"]
                entry["games"] = [[winner_of(g), g["info"].get("points-won", 0), ending(g)] for g in games]
                warnings = list(dict.fromkeys(message for message in messages if message))
                if warnings:
                    entry["warnings"] = warnings
            out.write(json.dumps(entry) + "\n")
            out.flush()


def run_job() -> None:
    """Runs the job named in TALDAU_GNUBG_JOB inside gnubg."""
    import gnubg

    work = Path(os.environ["TALDAU_GNUBG_WORK"])
    for command in SETTINGS:
        gnubg.command(command)
    {"ids": job_ids, "exports": job_exports, "bglab": job_bglab}[os.environ["TALDAU_GNUBG_JOB"]](gnubg, work)


# ---------------------------------------------------------------------------------------------------------
# Outside gnubg
# ---------------------------------------------------------------------------------------------------------


def script_in_gnubg(
    script: Path, env: dict[str, str], cwd: Path | None = None, timeout: float | None = None
) -> subprocess.CompletedProcess:
    """Runs the Python ``script`` inside a headless gnubg; what it prints is dropped, its errors kept."""
    gnubg = shutil.which("gnubg") or "/usr/games/gnubg"
    return subprocess.run(
        [gnubg, "-t", "-q", "-p", str(script)],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        timeout=timeout,
        check=False,
    )


def run_gnubg(job: str, work: Path) -> subprocess.CompletedProcess:
    """Runs this file inside a headless gnubg for one job."""
    env = dict(os.environ, TALDAU_GNUBG_JOB=job, TALDAU_GNUBG_WORK=str(work), TALDAU_GNUBG_BGLAB=str(BGLAB))
    return script_in_gnubg(HERE / "make_fixtures.py", env, timeout=1800)


def tags(record: dict) -> list[str]:
    """The special kinds of position a record shows, to keep some of each in ids.json."""
    if "cube" not in record:
        return ["match over"]
    board, length, score = record["board"], record["length"], record["score"]
    found = {
        "doubled": record["doubled"],
        "resign offered": record["resigned"] and record["game_state"] == 1,
        "over": record["game_state"] == 2,
        "resigned": record["game_state"] == 3,
        "dropped": record["game_state"] == 4,
        "cube owned by 0": record["cube_owner"] == 0,
        "cube owned by 1": record["cube_owner"] == 1,
        "cube 4 or more": record["cube"] >= 4,
        "crawford": record["crawford"],
        "post-crawford": length and not record["crawford"] and length - 1 in score and max(score) < length,
        "money": length == 0,
        "bar": board[0][24] or board[1][24],
        "bear-off": sum(board[0]) < 15 or sum(board[1]) < 15,
        "doublet rolled": record["dice"][0] and record["dice"][0] == record["dice"][1],
        "player 0 on roll": record["dice_owner"] == 0,
        "xgid": "xgid" in record,
    }
    return [tag for tag, present in found.items() if present]


def spread(items: list, count: int) -> list:
    """Up to count items taken evenly along the list."""
    if len(items) <= count:
        return list(items)
    return [items[i * len(items) // count] for i in range(count)]


def write_ids(everything: dict) -> int:
    """Keeps IDS_TARGET records (PER_TAG of each special kind, the rest evenly) and writes ids.json."""
    records = everything["records"]
    keep: set[int] = set()
    all_tags = sorted({tag for record in records for tag in tags(record)})
    for tag in all_tags:
        keep.update(spread([i for i, record in enumerate(records) if tag in tags(record)], PER_TAG))
    rest = [i for i in range(len(records)) if i not in keep]
    keep.update(spread(rest, max(0, IDS_TARGET - len(keep))))
    chosen = [records[i] for i in sorted(keep)]
    about = (
        "Positions read by GNU Backgammon 1.07 along real matches of ../shared/data/backgammon/bglab and two "
        "money sessions (make_fixtures.py). board is gnubg.board(): row 0 the side not on roll (not the "
        "side to decide: a doubled position keeps the doubler's orientation), row 1 the side on roll "
        "(dice_owner), each row points 1..24 from its own side then the bar. Fields are gnubg's "
        "cubeinfo()/posinfo(): cube value, cube_owner -1 centred, dice_owner (player on roll), turn "
        "(player to act), game_state 0 none 1 playing 2 over 3 resigned 4 dropped, resigned 0..3, dice "
        "(0, 0) not rolled, length 0 money, score by player, jacoby (money Jacoby rule, Match ID bit 66 "
        "is its negation). xgid, only where gnubg reads it back to the same position: bottom = player 1."
    )
    lines = [json.dumps(record, separators=(",", ":")) for record in chosen]
    text = '{"about": ' + json.dumps(about) + ',\n"records": [\n' + ",\n".join(lines) + "\n]}\n"
    (HERE / "ids.json").write_text(text)
    return len(chosen)


def collect_bglab(work: Path) -> dict[str, dict]:
    """Runs the bglab job until every file is read, restarting gnubg after a file that makes it abort."""
    journal = work / "bglab.jsonl"
    while True:
        done = run_gnubg("bglab", work)
        entries: dict[str, dict] = {}
        for line in journal.read_text().splitlines():
            entry = json.loads(line)
            entries[entry["file"]] = entry
        crashed = [name for name, entry in entries.items() if entry.get("started")]
        if done.returncode == 0 and not crashed:
            return entries
        if not crashed:
            raise RuntimeError(f"gnubg failed without a file to blame: {done.stderr[-2000:]}")
        lines = (work / "capture.txt").read_text(errors="replace").splitlines()
        message = " ".join(line.strip() for line in lines if "***" in line) or done.stderr.strip()[-300:]
        with journal.open("a") as out:
            for name in crashed:
                error = f"gnubg aborted (exit status {done.returncode}): {message}"
                out.write(json.dumps({"file": name, "error": error}) + "\n")


def write_bglab(entries: dict[str, dict]) -> None:
    """Writes bglab-results.json, one line per file."""
    lines = []
    for name in sorted(entries):
        value = {key: item for key, item in entries[name].items() if key != "file"}
        lines.append(json.dumps(name) + ": " + json.dumps(value, separators=(",", ":")))
    about = (
        "GNU Backgammon 1.07's reading of every match of ../shared/data/backgammon/bglab (import mat): "
        "per game [winner (gnubg player: 0 = left column), points won, how it ended: played (to the last "
        "checker), dropped (a double passed), resigned (gnubg's reading of a game that stops before the "
        "end), unfinished], the messages gnubg printed, or the error when gnubg fails."
    )
    text = "{" + json.dumps("about") + ": " + json.dumps(about) + ",\n" + ",\n".join(lines) + "\n}\n"
    (HERE / "bglab-results.json").write_text(text)


def main() -> None:
    """Runs the three jobs in gnubg and writes the fixtures."""
    if not BGLAB.is_dir():
        sys.exit(f"bglab matches not found at {BGLAB}")
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        for job in ("ids", "exports"):
            done = run_gnubg(job, work)
            if done.returncode or not (work / ("ids-all.json" if job == "ids" else "results.json")).exists():
                sys.exit(f"gnubg job {job} failed ({done.returncode}): {done.stderr[-3000:]}")
        everything = json.loads((work / "ids-all.json").read_text())
        kept = write_ids(everything)
        for path in work.glob("*.sgf"):
            shutil.copy(path, HERE / path.name)
        for path in work.glob("*.mat"):
            shutil.copy(path, HERE / path.name)
        shutil.copy(work / "results.json", HERE / "results.json")
        entries = collect_bglab(work)
        write_bglab(entries)
    failed = sum("error" in entry for entry in entries.values())
    print(
        f"ids.json: {kept} of {len(everything['records'])} positions "
        f"({everything['xgid_refused']} XGIDs refused by gnubg); "
        f"bglab-results.json: {len(entries)} files, {failed} that gnubg cannot read"
    )


if __name__ == "__main__" and "TALDAU_GNUBG_JOB" not in os.environ:
    main()
elif "TALDAU_GNUBG_JOB" in os.environ:
    run_job()
