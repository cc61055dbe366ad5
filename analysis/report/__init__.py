"""The report people look at: a static HTML site made from a ``taldau analyze`` output folder (``index.html``
with the archive at a glance, the players' table and the worst blunders; one page per game with its
evaluation graph, its moves with their marks and a board diagram of every mistake and blunder). It opens
from disk: no server, no network; the graphs and diagrams are SVG written by the project.

``open_archive`` and ``read_archive`` (``data``) read the Parquet into typed rows (the decisions game by game,
or all at once), ``write_report`` (``site``) writes the pages, only into a folder of its own (``output``).
"""

from .data import Archive, ReportError, open_archive, read_archive
from .site import ReportSummary, write_report

__all__ = ["Archive", "ReportError", "ReportSummary", "open_archive", "read_archive", "write_report"]
