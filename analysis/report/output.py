"""The folder a report is written into, and what of it is the report's own: a report writes only into an
empty (or missing) folder or into one where it wrote before, and there replaces or removes only the files
it wrote, so that no file of the user's is ever deleted or overwritten.

What a report wrote is listed in its marker, ``.taldau-report`` (JSON: who wrote it and the files, by
their path under the folder). The marker is written before the pages, listing the files of the earlier
report with those about to be written (a report stopped halfway leaves a folder its next run accepts), and
once they are written, listing exactly those (the earlier report's others are removed then).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from taldau.base.files import write_text_atomic

from .data import ReportError

MARKER = ".taldau-report"
WRITER = "taldau report"


@dataclass(frozen=True)
class ReportFolder:
    """A folder a report may write into (``claim``), with the files an earlier report there wrote."""

    path: Path
    own: frozenset[str]

    @classmethod
    def claim(cls, path: str | Path) -> ReportFolder:
        """``path`` as a report's folder: missing, empty, or holding a marker of an earlier report.
        ReportError naming the folder and why otherwise (files that no report listed, or a marker that
        cannot be read)."""
        folder = Path(path)
        marker = folder / MARKER
        if folder.exists() and not folder.is_dir():
            raise ReportError(f"{folder}: a file, not a folder: give --out a folder")
        if not folder.exists() or not any(item.is_file() or item.is_symlink() for item in folder.rglob("*")):
            return cls(folder, frozenset())  # missing, or no file in it (empty folders at most)
        if not marker.is_file():
            raise ReportError(
                f"{folder}: holds files that taldau report did not write (no {MARKER} listing them): "
                "give --out an empty or new folder, or the folder of an earlier report"
            )
        try:
            data = json.loads(marker.read_text(encoding="utf-8"))
            if data.get("writer") != WRITER:
                raise ValueError(f"written by {data.get('writer')!r}")
            files = frozenset(str(name) for name in data["files"])
        except (OSError, ValueError, TypeError, KeyError, AttributeError) as error:
            raise ReportError(
                f"{marker}: not a marker taldau report wrote ({error}): give --out an empty or new folder"
            ) from None
        if any(Path(name).is_absolute() or ".." in Path(name).parts for name in files):
            raise ReportError(f"{marker}: lists files outside {folder}: give --out an empty or new folder")
        return cls(folder, files)

    def begin(self, files: Iterable[str]) -> None:
        """Make the folder ready for ``files`` (paths under it): ReportError, before anything is written,
        when one of them is a file no report listed; else the marker lists them with the earlier report's
        files."""
        wanted = set(files)
        for name in sorted(wanted - self.own):
            if (self.path / name).exists() or (self.path / name).is_symlink():
                raise ReportError(
                    f"{self.path}: {name} is not a file taldau report wrote: move it away, or give --out "
                    "an empty or new folder"
                )
        self._mark(wanted | self.own)

    def finish(self, files: Iterable[str]) -> None:
        """Once ``files`` are written: remove the earlier report's files that are not among them, and
        list ``files`` alone in the marker."""
        wanted = set(files)
        for name in sorted(self.own - wanted):
            (self.path / name).unlink(missing_ok=True)
        self._mark(wanted)

    def _mark(self, files: set[str]) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"writer": WRITER, "files": sorted(files)}, indent=1, ensure_ascii=False) + "\n"
        write_text_atomic(text, self.path / MARKER)
