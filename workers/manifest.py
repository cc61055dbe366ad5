"""An output folder's manifest (``manifest.json``): the settings of its results and the schema versions, what
the last run's games came to (counts, failures, games of another game skipped, every input accounted for),
and the totals of the folder. ``Manifest.to_json`` is what the file holds, key for key and in that order."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from taldau.analysis.accounting import Inputs
from taldau.schemas import GAMES_SCHEMA_VERSION, MOVES_SCHEMA_VERSION, Status

SETTING_NAMES = {"engine_name": "engine", "engine": "engine version", "schemas": "table versions"}


def _setting(value: Any) -> str:
    """One setting as a user reads it: lists and mappings spelled out, an absent one as "none"."""
    if value is None:
        return "none"
    if isinstance(value, dict):
        return ", ".join(f"{name} {_setting(item)}" for name, item in value.items())
    if isinstance(value, list | tuple):
        return "/".join(str(item) for item in value)
    return str(value)


def settings_clash(out: str, found: dict[str, Any], asked: dict[str, Any], keys: tuple[str, str]) -> str:
    """Why a run may not write into ``out``: its results were made with the settings ``found`` (its
    manifest's ``settings``), the run asks for ``asked`` (``BatchSettings.manifest()``); each setting that
    differs named with both values (the engine's version only when the engine is the same), else the two
    settings ``keys`` (found, asked)."""
    names = [name for name in dict.fromkeys([*found, *asked]) if found.get(name) != asked.get(name)]
    if "engine_name" in names and "engine" in names:
        names.remove("engine")
    differences = "; ".join(
        f"{SETTING_NAMES.get(name, name)} {_setting(found.get(name))} there, {_setting(asked.get(name))} "
        "asked"
        for name in names
    )
    what = differences or f"settings key {keys[0]} there, {keys[1]} asked"
    return f"{out} holds results of other settings ({what}); use another --out directory"


def schema_versions() -> dict[str, str]:
    """The versions of the ``moves`` and ``games`` tables this taldau writes."""
    return {"moves": MOVES_SCHEMA_VERSION, "games": GAMES_SCHEMA_VERSION}


@dataclass(frozen=True)
class Counts:
    """The ``games`` rows of some games by status, their ``plies`` (``moves`` rows), and how many of
    those were ``judged`` each way (the ``moves`` column: backgammon's ``2-ply``, and ``3-ply`` or
    ``rollout, 648 trials`` for the decisions in doubt a level settled again; empty for Togyz)."""

    games: int
    ok: int
    invalid: int
    failed: int
    plies: int
    judged: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, games: pa.Table, moves: pa.Table) -> Counts:
        """The counts of ``games`` rows and of their ``moves`` rows."""
        statuses = games.column("status").to_pylist()
        judged: dict[str, int] = {}
        if "judged" in moves.column_names:
            for entry in pc.value_counts(moves.column("judged").drop_null()).to_pylist():
                judged[entry["values"]] = entry["counts"]
        return cls(
            games=games.num_rows,
            ok=statuses.count(Status.OK),
            invalid=statuses.count(Status.INVALID),
            failed=statuses.count(Status.FAILED),
            plies=moves.num_rows,
            judged=dict(sorted(judged.items())),
        )

    def to_json(self) -> dict[str, int]:
        return asdict(self)


@dataclass(frozen=True)
class Failure:
    """A game of the run that is not ``ok``: where it is, its status and why."""

    source: str
    index: int
    status: str
    error: str | None


@dataclass(frozen=True)
class Skipped:
    """A valid game of another kind than the run's, not analysed."""

    source: str
    index: int
    reason: str


@dataclass(frozen=True)
class Manifest:
    """What ``manifest.json`` holds: the settings ``key`` and the ``settings`` it names
    (``BatchSettings.manifest()``), the ``schemas`` versions, the last ``run``'s id, its games' ``counts``,
    ``failures`` and ``skipped`` games, its ``inputs`` (with the games ``analysed`` and ``failed`` among the
    valid ones), and the ``folder``'s counts of every game stored under the key, other runs' too."""

    key: str
    settings: dict[str, Any]
    run: str
    counts: Counts
    failures: tuple[Failure, ...]
    skipped: tuple[Skipped, ...]
    inputs: Inputs
    folder: Counts
    schemas: dict[str, str] = field(default_factory=schema_versions)

    def to_json(self) -> dict[str, Any]:
        found = self.inputs.to_json()
        head = {"files": found.pop("files"), "games": found.pop("games")}
        return {
            "key": self.key,
            "settings": self.settings,
            "schemas": self.schemas,
            "run": self.run,
            "counts": self.counts.to_json(),
            "failures": [asdict(failure) for failure in self.failures],
            "skipped": [asdict(game) for game in self.skipped],
            "inputs": {**head, "analysed": self.counts.ok, "failed": self.counts.failed, **found},
            "folder": {"counts": self.folder.to_json()},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Manifest:
        return cls(
            key=data["key"],
            settings=data["settings"],
            run=data["run"],
            counts=Counts(**data["counts"]),
            failures=tuple(Failure(**failure) for failure in data["failures"]),
            skipped=tuple(Skipped(**game) for game in data["skipped"]),
            inputs=Inputs.from_json(data["inputs"]),
            folder=Counts(**data["folder"]["counts"]),
            schemas=data["schemas"],
        )
