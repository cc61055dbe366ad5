"""What crosses the worker boundary besides the task itself (``analysis.batch.GameTask``): the run a task
belongs to (``RunSpec``), what the task reports back (``TaskReport``), and the report with the task's rows
(``TaskResult``).

``RunSpec`` and ``TaskReport`` go over the wire as their ``to_json()``, read back with ``from_json``: the
arguments and the result of the Celery task (Celery's JSON serializer). A task's rows travel beside its
report: through Redis as Arrow IPC bytes (``results``), or from a local pool's process as the tables.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from typing import Any

import pyarrow as pa
from taldau.analysis.batch import BatchSettings


@dataclass(frozen=True)
class RunSpec:
    """What every task of a run carries besides its task: the run's id, the absolute output folder, the
    settings (given as their JSON, they are read) and their key as the client computes it, and whether
    tasks already stored are analysed again (``--no-resume``)."""

    id: str
    out: str
    settings: BatchSettings
    key: str
    redo: bool = False

    def __post_init__(self) -> None:
        if isinstance(self.settings, Mapping):
            object.__setattr__(self, "settings", BatchSettings.from_json(dict(self.settings)))

    def __reduce__(self) -> tuple[Callable[[dict[str, Any]], RunSpec], tuple[dict[str, Any]]]:
        """Pickled as its JSON, as a Celery message carries it: the settings key this process computed from
        the engine it loaded stays here, so that each process computes its own and one of another engine
        is refused."""
        return RunSpec.from_json, (self.to_json(),)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "out": self.out,
            "settings": self.settings.to_json(),
            "key": self.key,
            "redo": self.redo,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> RunSpec:
        return cls(**{**data, "settings": BatchSettings.from_json(data["settings"])})


@dataclass(frozen=True)
class TaskReport:
    """What a task reports to the client: its status (``ok`` unless a game of it is not), games, plies and
    decisions (its ``moves`` rows), what was done (``analysed``; ``failed``: failed rows made without an
    analysis; ``exists``: stored before; ``refused``), the settings key it computed, the worker that ran it,
    a problem if any (why it was refused), and ``rows``: the Redis key holding its rows on their way to the
    client (None when they travel otherwise, or there are none)."""

    task: str
    source: str
    index: int
    status: str
    games: int
    plies: int
    decisions: int
    outcome: str
    key: str
    worker: str | None = None
    problem: str | None = None
    rows: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TaskReport:
        """A report as a worker sent it (one of an earlier version may lack ``games``: one, ``decisions``:
        none, and ``key``)."""
        return cls(**{"games": 1, "decisions": 0, "key": "", **data})


@dataclass(frozen=True)
class TaskResult:
    """A task's report and its rows for the output folder's one writer: ``moves`` (None when it has none: a
    failed task) and ``games`` (None when there is nothing to store: refused, or stored before)."""

    report: TaskReport
    moves: pa.Table | None = None
    games: pa.Table | None = None
