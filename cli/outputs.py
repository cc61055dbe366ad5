"""The outputs of the commands that write, checked before any work (``base.files.unwritable``): a folder
or file that cannot be written is one line on stderr naming it and why, and exit 2, instead of a traceback
once the work is done."""

from __future__ import annotations

import sys

from taldau.base.files import unwritable, unwritable_file
from taldau.cli.options import EX_USAGE, say


def _refuse(option: str, path: str, why: str) -> None:
    """Exit 2 with one line saying that ``option`` ``path`` cannot be written, and ``why``."""
    say(f"error: cannot write {option} {path}: {why}")
    sys.exit(EX_USAGE)


def writable_folder(folder: str, option: str = "--out") -> str:
    """``folder`` once files can be written in it (it is made later, by the work, when missing), else exit
    2 with one line naming ``option``, the folder and why."""
    why = unwritable(folder)
    if why is not None:
        _refuse(option, folder, why)
    return folder


def writable_file(path: str, option: str = "--out") -> str:
    """``path`` once it can be written as a file, else exit 2 with one line naming ``option``, the file and
    why."""
    why = unwritable_file(path)
    if why is not None:
        _refuse(option, path, why)
    return path
