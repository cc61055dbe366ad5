"""Run one fuzz target under atheris (libFuzzer), with coverage of taldau's readers and the archive modules.

    .venv/bin/pip install -e '.[fuzz]'
    .venv/bin/python tests/fuzz/run.py TARGET [libFuzzer options] [CORPUS_DIR ...]

For example, fuzzing the Togyz readers into a scratch corpus seeded from the stored one:

    mkdir -p /tmp/corpus && .venv/bin/python tests/fuzz/run.py togyz_records /tmp/corpus \\
        tests/fuzz/corpus/togyz_records -max_len=8192 -timeout=10 -runs=1000000

and minimising a corpus back into the repository: ``-merge=1 tests/fuzz/corpus/TARGET /tmp/corpus``.
Targets: see ``targets.TARGETS``. A crash is written by libFuzzer as ``crash-<sha1>`` in the working
directory (``-artifact_prefix=`` moves it).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import atheris

# The compiled rules cores (numba compiles the functions from their bytecode, which instrumenting would
# change) stay uninstrumented; everything else taldau reads records with is.
COMPILED = [
    "taldau.games.togyz.board",
    "taldau.games.togyz.search",
    "taldau.games.togyz.perft",
    "taldau.games.togyz.evaluate",
    "taldau.games.togyz.tuning",
    "taldau.games.backgammon.rules.board",
]
INSTRUMENTED = ["taldau.games", "zipfile", "tarfile", "gzip", "fuzz"]
TARGET_VARIABLE = "TALDAU_FUZZ_TARGET"  # how the processes libFuzzer starts (-merge, -fork) learn the target


def main() -> None:
    """Fuzz the target named by the first argument; the other arguments go to libFuzzer."""
    if TARGET_VARIABLE in os.environ:
        name = os.environ[TARGET_VARIABLE]
    elif len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        sys.exit(f"usage: {sys.argv[0]} TARGET [libFuzzer options] [CORPUS_DIR ...]")
    else:
        name = os.environ[TARGET_VARIABLE] = sys.argv.pop(1)
    # libFuzzer starts its helper processes with the shell command argv[0]: this interpreter and script
    sys.argv[0] = f"{sys.executable} {Path(__file__).resolve()}"
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    with atheris.instrument_imports(include=INSTRUMENTED, exclude=COMPILED):
        from fuzz.targets import TARGETS
    if name not in TARGETS:
        sys.exit(f"unknown target {name!r}; targets: {', '.join(TARGETS)}")
    atheris.Setup(sys.argv, TARGETS[name])
    atheris.Fuzz()


if __name__ == "__main__":
    main()
