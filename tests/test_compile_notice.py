"""Issue 42: a run says that it compiles the kernels only when numba does compile them, whatever filled its
cache, and with the time that compiling takes (``base.jit.FIRST_COMPILE_SECONDS``)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOGYZ = ROOT / "examples" / "togyz" / "scoresheet.txt"  # two Togyz Kumalak games
TALDAU = str(Path(sys.executable).with_name("taldau"))
RUN = {"capture_output": True, "text": True, "timeout": 900, "cwd": ROOT}
WARM = "from taldau.games.registry import analyser; analyser('togyz').warm()"


@pytest.mark.slow
def test_a_cache_filled_by_another_process_says_no_compiling(tmp_path: Path) -> None:
    # numba's cache filled by a process that is not `analyze` (as `annotate`, `bench` or a test would):
    # the run after it loads every kernel from the cache, and says nothing of compiling
    env = os.environ | {"NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    warmed = subprocess.run([sys.executable, "-c", WARM], env=env, **RUN)
    assert warmed.returncode == 0, warmed.stderr
    command = [TALDAU, "analyze", str(TOGYZ), "--jobs", "1", "--depth", "1", "--out", str(tmp_path / "out")]
    run = subprocess.run(command, env=env, **RUN)
    assert run.returncode == 0, run.stderr
    assert "compiling" not in run.stderr
