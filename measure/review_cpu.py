"""``taldau bench review``: the CPU each decision of ``taldau analyze`` costs, against the code of an
earlier commit installed beside the current one, the two run in turn on the same record files, so that a
gain is a ratio measured on one machine in one run; and whether both analyses say the same.

The earlier commit is installed once, in ``<cache>/taldau/bench-review/<sha>/`` (``$XDG_CACHE_HOME``, by
default ``~/.cache``): its tree as ``git archive`` gives it (``tree/``), a venv (``venv/``) made by this
interpreter's ``python -m venv`` with that tree installed by pip (``--no-deps``, not editable), which sees
the current environment's third-party packages through a ``.pth`` line naming this interpreter's
site-packages (a path line: that folder's own ``.pth`` files, the current editable taldau's among them,
are not run, so ``taldau`` there is the old tree's). Later runs reuse it.

Each round runs, for every game met, ``taldau analyze`` of a one-decision record (the start-up: imports,
the engine loaded, the kernels read from numba's cache) by the old code then the new, then every archive
file by the old code then the new (ABAB...), each a subprocess ``analyze FILE --out FRESH --game G --jobs 1
--no-resume`` timed by the CPU (user + system) of it and its children, and by the wall clock. Before the
rounds each version analyses the start-up record once untimed, so that no timed run compiles the kernels
(a run that did, its source files changed meanwhile, is counted in ``compiled``). The moves tables of the
first round are read back (``analysis.folder``, which reads every layout and schema version) and compared
decision by decision, matched by record file, game number in it and decision number (game ids changed
between versions; a game one version drops as a duplicate and the other analyses is counted apart):
backgammon agrees where the best action and the mark are the same, Togyz where the mark is.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import site
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path
from typing import Any

import pyarrow as pa
from taldau.analysis.folder import FolderError, open_folder
from taldau.analysis.validation import games_found
from taldau.base.records import ReadLimits

DEFAULT_ROUNDS = 2
EXAMPLES = 5  # differing decisions shown per game
CACHE_FOLDER = ("taldau", "bench-review")
PTH_NAME = "taldau-bench-review-current-env.pth"
READY = "ready.json"
# What a run writes on stderr when it compiles the kernels (``base.jit.compiling_notice``).
COMPILING = "compiling the"
# Environment variables a child must not inherit: another tree on the path, a broker that turns
# ``analyze`` into a Celery client.
UNSET = ("PYTHONPATH", "TALDAU_BROKER")
# The one-decision record analysed to measure a version's start-up, per game.
STARTUP_RECORDS = {
    "togyz": ("startup.pgn", '[Event "start-up"]\n[White "a"]\n[Black "b"]\n[Result "*"]\n\n1. 87 *\n'),
    "backgammon": (
        "startup.txt",
        " 1 point match\n\n Game 1\n a : 0                          b : 0\n  1) 31: 8/5 6/5\n",
    ),
}
# Where a decision of each game agrees: the columns that must be the same in both analyses.
AGREEING = {"backgammon": ("best", "mark"), "togyz": ("mark",)}
COMPARED = ["source", "index", "ply", "kind", "played", "best", "mark"]  # the columns ``compare`` reads
OLD, NEW = "old", "new"


class ReviewError(ValueError):
    """What stops the measurement, in one line naming the file, folder or commit concerned."""


@dataclass(frozen=True)
class Installed:
    """An earlier commit ``sha`` installed in ``folder``: its ``tree`` and the ``taldau`` command of its
    venv."""

    sha: str
    folder: Path

    @property
    def tree(self) -> Path:
        return self.folder / "tree"

    @property
    def venv(self) -> Path:
        return self.folder / "venv"

    @property
    def python(self) -> Path:
        return self.venv / "bin" / "python"

    @property
    def taldau(self) -> Path:
        return self.venv / "bin" / "taldau"


def _git(repo: Path, *arguments: str, what: str) -> subprocess.CompletedProcess[bytes]:
    """``git -C repo arguments``; ReviewError saying ``what`` failed, with git's last line, otherwise."""
    try:
        done = subprocess.run(["git", "-C", str(repo), *arguments], capture_output=True, check=False)
    except FileNotFoundError:
        raise ReviewError(f"{repo}: git is not installed: {what} needs it") from None
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip().splitlines()
        raise ReviewError(f"{repo}: {what}: {said[-1] if said else f'git exited {done.returncode}'}")
    return done


def repository(start: Path | None = None) -> Path:
    """The git checkout the running taldau comes from (or the one holding ``start``); ReviewError when it
    is not one."""
    here = start if start is not None else Path(__file__).resolve().parent.parent
    done = _git(here, "rev-parse", "--show-toplevel", what="not a git checkout")
    return Path(done.stdout.decode().strip())


def resolve_commit(repo: Path, commit: str) -> str:
    """The full sha of ``commit`` in ``repo``; ReviewError when the checkout does not know it."""
    done = _git(
        repo, "rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}", what=f"unknown commit {commit}"
    )
    return done.stdout.decode().strip()


def describe_current(repo: Path) -> str:
    """The current code as people read it: the checkout's short HEAD, with ``+ uncommitted changes`` when
    its tracked files differ from it."""
    head = _git(repo, "rev-parse", "--short", "HEAD", what="no HEAD").stdout.decode().strip()
    changed = _git(repo, "status", "--porcelain", "--untracked-files=no", what="git status").stdout.strip()
    return f"{head} + uncommitted changes" if changed else head


def default_cache(environ: Mapping[str, str] = os.environ) -> Path:
    """Where installs of earlier commits go: ``$XDG_CACHE_HOME/taldau/bench-review``, by default under
    ``~/.cache``."""
    base = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).joinpath(*CACHE_FOLDER)


def _child_environment() -> dict[str, str]:
    """This process's environment less what would change which code or executor a child runs."""
    return {name: value for name, value in os.environ.items() if name not in UNSET}


def _run(command: Sequence[str | Path], what: str, where: Path) -> subprocess.CompletedProcess[str]:
    """``command`` run to its end, its output captured; ReviewError naming ``where`` and saying ``what``
    failed, with the command's last line, when it exits other than 0."""
    done = subprocess.run(
        [str(part) for part in command], capture_output=True, text=True, env=_child_environment(), check=False
    )
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines()
        raise ReviewError(f"{where}: {what} failed: {said[-1] if said else f'exit {done.returncode}'}")
    return done


def _link_current_environment(installed: Installed) -> None:
    """Write the ``.pth`` that shows the old venv this interpreter's site-packages (rewritten on every use,
    so that it names the environment of the run)."""
    found = list(installed.venv.glob("lib/python*/site-packages"))
    if len(found) != 1:
        raise ReviewError(f"{installed.venv}: no single site-packages folder in the venv")
    (found[0] / PTH_NAME).write_text("".join(f"{line}\n" for line in current_site_packages()))


def current_site_packages() -> list[str]:
    """The site-packages folders this interpreter imports from, in its order: its own, and those its
    ``.pth`` files or its environment put on the path (a venv that borrows another's packages)."""
    named = [entry for entry in sys.path if Path(entry).name in ("site-packages", "dist-packages")]
    return [entry for entry in dict.fromkeys([*site.getsitepackages(), *named]) if Path(entry).is_dir()]


def _check(installed: Installed) -> None:
    """ReviewError unless the old venv imports taldau from its own install and ``taldau --help`` runs."""
    done = _run(
        [installed.python, "-c", "import taldau.cli.main as m; print(m.__file__)"],
        "importing taldau from the old venv",
        installed.venv,
    )
    imported = Path(done.stdout.strip()).resolve()
    if not imported.is_relative_to(installed.venv.resolve()):
        raise ReviewError(f"{installed.venv}: its python imports taldau from {imported}, not its own install")
    _run([installed.taldau, "--help"], "taldau --help", installed.taldau)


def install(sha: str, repo: Path, cache: Path, say: Callable[[str], object] = lambda _: None) -> Installed:
    """Commit ``sha`` of ``repo`` installed beside the current code in ``cache/<sha>`` (reused when an
    earlier run made it and it still checks), checked: its venv imports its own taldau and runs
    ``taldau --help``. ``say`` is told when it installs."""
    installed = Installed(sha, cache / sha)
    if (installed.folder / READY).is_file():
        _link_current_environment(installed)
        try:
            _check(installed)
            return installed
        except ReviewError as error:
            say(f"installing {sha[:10]} again: {error}")
        shutil.rmtree(installed.folder)
    say(f"installing {sha[:10]} into {installed.folder} (once)")
    shutil.rmtree(installed.folder, ignore_errors=True)  # an install that did not finish
    installed.tree.mkdir(parents=True)
    archive = _git(repo, "archive", "--format=tar", sha, what=f"git archive {sha}").stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        if hasattr(tarfile, "data_filter"):
            tar.extractall(installed.tree, filter="data")
        else:  # Python before 3.11.4: git's own archive, trusted
            tar.extractall(installed.tree)
    _run([sys.executable, "-m", "venv", installed.venv], "python -m venv", installed.venv)
    _run(
        [installed.python, "-m", "pip", "install", "--quiet", "--no-deps", installed.tree],
        "pip install --no-deps",
        installed.tree,
    )
    _link_current_environment(installed)
    _check(installed)
    (installed.folder / READY).write_text(json.dumps({"sha": sha, "python": sys.executable}) + "\n")
    return installed


@dataclass(frozen=True)
class Timing:
    """One ``taldau analyze`` run: the ``cpu`` seconds of it and its children (user + system), its
    ``wall`` seconds, and whether it ``compiled`` the kernels."""

    cpu: float
    wall: float
    compiled: bool = False


def analyze(taldau: Path, archive: Path, out: Path, game: str) -> Timing:
    """``taldau analyze archive --out out --game game --jobs 1 --no-resume`` run by the ``taldau`` command
    given, timed; ReviewError naming the archive when it fails (exit 1, some games invalid, is not)."""
    command = [taldau, "analyze", archive, "--out", out, "--game", game, "--jobs", "1", "--no-resume"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [str(part) for part in command],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=_child_environment(),
        check=False,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1) or not (out / "manifest.json").is_file():
        said = done.stderr.strip().splitlines()
        raise ReviewError(
            f"{archive}: {taldau} analyze exited {done.returncode}: {said[-1] if said else 'no output'}"
        )
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return Timing(cpu, wall, COMPILING in done.stderr)


def game_of(archive: Path) -> str:
    """The game whose records ``archive`` holds (from the files' first lines); ReviewError naming it when
    it holds none or both."""
    found = games_found([archive], ReadLimits())
    if len(found) != 1:
        what = "no record of either game" if not found else f"records of {' and '.join(found)}"
        raise ReviewError(f"{archive}: {what}: give one game's record files")
    if found[0] not in STARTUP_RECORDS:
        raise ReviewError(f"{archive}: no start-up record for {found[0]}")
    return found[0]


@dataclass(frozen=True)
class Analysed:
    """What one ``taldau analyze`` folder holds for the comparison: its ``table`` of decisions with their
    record file and game number (``COMPARED``'s columns), the ``games`` analysed (status ok), and the
    ``settings`` it names (the limit and the engine)."""

    table: pa.Table
    games: int
    settings: str


def decisions(folder: Path) -> Analysed:
    """The decisions of the analysis folder ``folder``, whatever version's layout and schema it has
    (``analysis.folder`` reads them as today's); ReviewError naming the folder when it cannot be read."""
    try:
        opened = open_folder(folder)
        games = opened.table("games", ["game_id", "source", "index", "status"])
        moves = opened.table("moves", ["game_id", "ply", "kind", "played", "best", "mark"])
    except FolderError as error:
        raise ReviewError(str(error)) from None
    columns = games.to_pydict()
    where = dict(zip(columns["game_id"], zip(columns["source"], columns["index"], strict=True), strict=True))
    ids = moves.column("game_id").to_pylist()
    missing = next((game for game in ids if game not in where), None)
    if missing is not None:
        raise ReviewError(f"{folder}: decisions of game {missing}, which its games table lacks")
    table = moves.drop_columns(["game_id"])
    table = table.append_column("source", pa.array([where[game][0] for game in ids], pa.string()))
    table = table.append_column("index", pa.array([where[game][1] for game in ids], pa.int64()))
    settings = opened.settings
    return Analysed(
        table.select(COMPARED),
        sum(status == "ok" for status in columns["status"]),
        f"{settings.limit}; {settings.engine_label}",
    )


@dataclass(frozen=True)
class Difference:
    """A decision the two analyses judge differently: ``where`` (record file, game, decision number),
    its ``kind``, the action ``played``, and each version's best action and mark."""

    where: str
    kind: str
    played: str
    best: tuple[str | None, str | None]
    mark: tuple[str | None, str | None]

    def text(self) -> str:
        old_mark, new_mark = (mark or "none" for mark in self.mark)
        return (
            f"{self.where} ({self.kind} {self.played}): best {self.best[0]} -> {self.best[1]}, "
            f"mark {old_mark} -> {new_mark}"
        )


@dataclass(frozen=True)
class VersionAgreement:
    """The two analyses of a ``game``'s decisions side by side: the ``decisions`` both hold, how many
    have the same best action, the same mark, both; those only one holds; a few ``examples`` of the
    decisions that disagree by ``AGREEING``."""

    game: str
    decisions: int
    same_best: int
    same_mark: int
    same_both: int
    only_old: int = 0
    only_new: int = 0
    examples: tuple[Difference, ...] = ()

    @property
    def judged_by(self) -> str:
        """What must be the same for a decision to agree: ``best and mark`` or ``mark``."""
        return " and ".join(AGREEING[self.game])

    @property
    def agreeing(self) -> int:
        return self.same_both if AGREEING[self.game] == ("best", "mark") else self.same_mark

    @property
    def share(self) -> float | None:
        """The share of the decisions both hold that agree (None when there are none)."""
        return self.agreeing / self.decisions if self.decisions else None

    def to_json(self) -> dict[str, Any]:
        return {
            "judged_by": self.judged_by,
            "agreement": self.share,
            "decisions": self.decisions,
            "differ": self.decisions - self.agreeing,
            "same_best": self.same_best,
            "same_mark": self.same_mark,
            "same_best_and_mark": self.same_both,
            "only_old": self.only_old,
            "only_new": self.only_new,
            "examples": [example.text() for example in self.examples],
        }


def _keyed(table: pa.Table) -> dict[tuple[str, int, int], dict[str, Any]]:
    """``table``'s rows by (record file, game number, decision number)."""
    return {(row["source"], row["index"], row["ply"]): row for row in table.select(COMPARED).to_pylist()}


def compare(old: pa.Table, new: pa.Table, game: str) -> VersionAgreement:
    """The decisions of ``old`` and ``new`` (tables with ``COMPARED``'s columns) matched by record file,
    game number and decision number and compared: best action, mark, and agreement as ``AGREEING`` has it
    for ``game``."""
    if game not in AGREEING:
        raise ValueError(f"no agreement defined for {game!r}: {', '.join(AGREEING)}")
    before, after = _keyed(old), _keyed(new)
    both = sorted(before.keys() & after.keys())
    same_best = same_mark = same_both = 0
    examples: list[Difference] = []
    for key in both:
        was, now = before[key], after[key]
        best, mark = was["best"] == now["best"], was["mark"] == now["mark"]
        same_best += best
        same_mark += mark
        same_both += best and mark
        agrees = all(was[name] == now[name] for name in AGREEING[game])
        if not agrees and len(examples) < EXAMPLES:
            source, index, ply = key
            examples.append(
                Difference(
                    f"{Path(source).name} game {index} decision {ply}",
                    str(now["kind"]),
                    str(now["played"]),
                    (was["best"], now["best"]),
                    (was["mark"], now["mark"]),
                )
            )
    return VersionAgreement(
        game,
        len(both),
        same_best,
        same_mark,
        same_both,
        len(before.keys() - after.keys()),
        len(after.keys() - before.keys()),
        tuple(examples),
    )


def _spread(values: Sequence[float]) -> dict[str, float | list[float] | None]:
    """The median of ``values`` and their range, rounded (None when there are none)."""
    if not values:
        return {"median": None, "range": None}
    return {
        "median": round(statistics.median(values), 3),
        "range": [round(min(values), 3), round(max(values), 3)],
    }


@dataclass(frozen=True)
class GameComparison:
    """One game's archives analysed by both versions over the rounds: per round and version the CPU and
    wall seconds of all its archives and of one start-up; the ``decisions`` and ``games`` each version
    wrote, the settings each names, the ``agreement``, and the timed runs that ``compiled``."""

    game: str
    archives: tuple[str, ...]
    games: dict[str, int]
    decisions: dict[str, int]
    settings: dict[str, str]
    cpu: dict[str, tuple[float, ...]]
    wall: dict[str, tuple[float, ...]]
    startup: dict[str, tuple[float, ...]]
    agreement: VersionAgreement
    compiled: int = 0

    def per_decision(self, version: str, without_startup: bool = False) -> list[float]:
        """CPU seconds per decision of ``version``, one per round (less one start-up per archive file
        when ``without_startup``)."""
        count = max(self.decisions[version], 1)
        runs = len(self.archives)
        return [
            (cpu - (runs * startup if without_startup else 0.0)) / count
            for cpu, startup in zip(self.cpu[version], self.startup[version], strict=True)
        ]

    def ratios(self, without_startup: bool = False) -> list[float]:
        """Old CPU per decision over new, one per round; none where a new figure is not positive (the
        start-up as long as the run)."""
        pairs = zip(
            self.per_decision(OLD, without_startup), self.per_decision(NEW, without_startup), strict=True
        )
        return [old / new for old, new in pairs if new > 0 and old > 0]

    def to_json(self) -> dict[str, Any]:
        def ms(values: list[float]) -> float | None:
            return round(statistics.median(values) * 1000, 3) if values else None

        return {
            "game": self.game,
            "archives": list(self.archives),
            "games": self.games,
            "decisions": self.decisions,
            "settings": self.settings,
            "cpu_seconds": {
                version: [round(value, 3) for value in self.cpu[version]] for version in (OLD, NEW)
            },
            "wall_seconds": {
                version: [round(value, 3) for value in self.wall[version]] for version in (OLD, NEW)
            },
            "startup_cpu_seconds": {
                version: [round(value, 3) for value in self.startup[version]] for version in (OLD, NEW)
            },
            "ms_per_decision": {version: ms(self.per_decision(version)) for version in (OLD, NEW)},
            "ms_per_decision_without_startup": {
                version: ms(self.per_decision(version, True)) for version in (OLD, NEW)
            },
            "ratio": _spread(self.ratios()),
            "ratio_without_startup": _spread(self.ratios(True)),
            "agreement": self.agreement.to_json(),
            "compiled_runs": self.compiled,
        }

    def lines(self) -> list[str]:
        """The text lines of this game's figures."""
        figures = self.to_json()
        ms, bare = figures["ms_per_decision"], figures["ms_per_decision_without_startup"]
        ratio, without = figures["ratio"], figures["ratio_without_startup"]
        startup = {version: statistics.median(self.startup[version]) for version in (OLD, NEW)}
        cpu = {version: statistics.median(self.cpu[version]) for version in (OLD, NEW)}
        wall = {version: statistics.median(self.wall[version]) for version in (OLD, NEW)}
        agreement = self.agreement
        lines = [
            f"{self.game}: {len(self.archives)} file(s), {self.games[NEW]} games, {self.decisions[NEW]:,} "
            f"decisions (old {self.decisions[OLD]:,})",
            f"  old: {self.settings[OLD]}",
            f"  new: {self.settings[NEW]}",
            f"  CPU (median of {len(self.cpu[NEW])} rounds) old {cpu[OLD]:.2f} s, new {cpu[NEW]:.2f} s; "
            f"wall old {wall[OLD]:.2f} s, new {wall[NEW]:.2f} s",
            f"  per decision: old {ms[OLD]} ms, new {ms[NEW]} ms: {_ratio_text(ratio)}",
            f"  without start-up (old {startup[OLD]:.2f} s, new {startup[NEW]:.2f} s a run): old {bare[OLD]} "
            f"ms, new {bare[NEW]} ms: {_ratio_text(without)}",
        ]
        share = "-" if agreement.share is None else f"{agreement.share:.2%}"
        lines.append(
            f"  same {agreement.judged_by} on {share} of {agreement.decisions:,} decisions both hold "
            f"({agreement.decisions - agreement.agreeing} differ; same best {agreement.same_best:,}, "
            f"same mark {agreement.same_mark:,}; only in old {agreement.only_old}, only in new "
            f"{agreement.only_new})"
        )
        lines.extend(f"    {example.text()}" for example in agreement.examples)
        if self.compiled:
            lines.append(
                f"  warning: {self.compiled} timed run(s) compiled the kernels (their sources changed)"
            )
        return lines


def _ratio_text(ratio: Mapping[str, Any]) -> str:
    """A ratio's median and range over the rounds, in words."""
    if ratio["median"] is None:
        return "no ratio"
    low, high = ratio["range"]
    return f"old/new {ratio['median']:.2f} (rounds {low:.2f} to {high:.2f}; above 1: the new takes less CPU)"


@dataclass(frozen=True)
class ReviewReport:
    """``bench review``'s measurement: the earlier commit ``against`` and the ``current`` code, the
    ``rounds``, and each game's figures."""

    against: str
    current: str
    rounds: int
    games: tuple[GameComparison, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        return {
            "against": self.against,
            "current": self.current,
            "rounds": self.rounds,
            "processes": 1,
            "games": {review.game: review.to_json() for review in self.games},
        }

    def lines(self) -> list[str]:
        lines = [
            f"old {self.against[:10]} against new {self.current}: {self.rounds} rounds alternated "
            "(old, new), taldau analyze --jobs 1, CPU of the process and its worker"
        ]
        for review in self.games:
            lines.extend(review.lines())
        return lines


def _current_taldau() -> Path:
    """The ``taldau`` command of the running interpreter's environment."""
    command = Path(sys.executable).with_name("taldau")
    if not command.is_file():
        raise ReviewError(f"{command}: no taldau command beside this python")
    return command


def review_cpu(
    archives: Iterable[Path],
    commit: str,
    rounds: int = DEFAULT_ROUNDS,
    cache: Path | None = None,
    progress: Callable[[int, int], object] | None = None,
    say: Callable[[str], object] = lambda _: None,
) -> ReviewReport:
    """The record files ``archives`` analysed ``rounds`` times in turn by the code of ``commit`` (installed
    in ``cache``, by default ``default_cache()``) and by the current code, one process each, timed and
    compared by game (module docstring). ``progress(done, total)`` is told the runs as they end, ``say``
    what it installs. ReviewError, one line naming the file, when a step fails."""
    if rounds < 1:
        raise ReviewError(f"rounds: at least 1, not {rounds}")
    files = list(dict.fromkeys(Path(archive).absolute() for archive in archives))
    if not files:
        raise ReviewError("no archive given")
    for archive in files:
        if not archive.exists():
            raise ReviewError(f"{archive}: no such file")
    of_game = {archive: game_of(archive) for archive in files}
    repo = repository()
    sha = resolve_commit(repo, commit)
    installed = install(sha, repo, cache if cache is not None else default_cache(), say)
    commands = {OLD: installed.taldau, NEW: _current_taldau()}
    played = list(dict.fromkeys(of_game.values()))
    total = rounds * 2 * (len(played) + len(files))
    done = 0
    timed: dict[tuple[str, str, int], Timing] = {}  # (version, archive or start-up, round)
    with tempfile.TemporaryDirectory(prefix="taldau-bench-review-") as scratch:
        root = Path(scratch)
        startups: dict[str, Path] = {}
        for game in played:
            name, text = STARTUP_RECORDS[game]
            startups[game] = root / name
            startups[game].write_text(text)
            for version in (OLD, NEW):  # warm: the kernels compiled or loaded once, untimed
                analyze(commands[version], startups[game], root / f"warm-{version}-{game}", game)
        kept: dict[tuple[str, str], Analysed] = {}  # (version, archive): the first round's decisions
        for number in range(rounds):
            runs = [(f"startup-{game}", startups[game], game) for game in played]
            runs += [(str(archive), archive, of_game[archive]) for archive in files]
            for step, (label, path, game) in enumerate(runs):
                for version in (OLD, NEW):
                    out = root / f"round{number}-{step}-{version}"
                    timed[version, label, number] = analyze(commands[version], path, out, game)
                    done += 1
                    if progress is not None:
                        progress(done, total)
                    if number == 0 and path in files:
                        kept[version, label] = decisions(out)
                    shutil.rmtree(out)
    reviews = [
        _game_review(game, [str(a) for a in files if of_game[a] == game], timed, kept, rounds)
        for game in played
    ]
    return ReviewReport(sha, describe_current(repo), rounds, tuple(reviews))


def _game_review(
    game: str,
    archives: list[str],
    timed: Mapping[tuple[str, str, int], Timing],
    kept: Mapping[tuple[str, str], Analysed],
    rounds: int,
) -> GameComparison:
    """One ``game``'s figures: its ``archives``' runs of ``timed`` summed per version and round, beside
    the start-up's, and the first round's decisions (``kept``) compared."""
    versions = (OLD, NEW)
    tables = {
        version: pa.concat_tables([kept[version, archive].table for archive in archives])
        for version in versions
    }

    def summed(version: str, what: str) -> tuple[float, ...]:
        return tuple(
            sum(getattr(timed[version, archive, number], what) for archive in archives)
            for number in range(rounds)
        )

    labels = {*archives, f"startup-{game}"}
    return GameComparison(
        game=game,
        archives=tuple(archives),
        games={version: sum(kept[version, archive].games for archive in archives) for version in versions},
        decisions={version: tables[version].num_rows for version in versions},
        settings={version: kept[version, archives[0]].settings for version in versions},
        cpu={version: summed(version, "cpu") for version in versions},
        wall={version: summed(version, "wall") for version in versions},
        startup={
            version: tuple(timed[version, f"startup-{game}", number].cpu for number in range(rounds))
            for version in versions
        },
        agreement=compare(tables[OLD], tables[NEW], game),
        compiled=sum(timing.compiled for (_, label, _), timing in timed.items() if label in labels),
    )
