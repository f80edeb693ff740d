"""The batched kernels with numba's bounds checks on (`NUMBA_BOUNDSCHECK=1`): numba compiles array reads and
writes without them, so a kernel that reads past an array (an empty slice's row 0, one entry past a mask row)
can still agree with the reference wherever the memory it lands on happens to hold the right value, and one
that writes past an array corrupts another silently. This runs the differential tests and each game's
batched tests again in a subprocess with the checks on (its own numba cache: code compiled with them is not
the default build's), so any access out of bounds is an IndexError there. Slow: every kernel is compiled
afresh and runs some times slower."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("numba")

ROOT = Path(__file__).resolve().parents[2]
FILES = ["tests/differential/test_batched.py", "tests/differential/test_batched_kernels_probe.py",
         "tests/differential/test_time_kernel_probe.py", "tests/snack_wars/test_wars_batched.py",
         "tests/snack_rabbits/test_rabbits_batched.py", "tests/snack_time/test_time_batched.py",
         "tests/snack_time/test_time_native_heuristic.py", "tests/speed_snacks/test_speed_batched.py"]


@pytest.mark.slow
def test_the_differential_tests_pass_with_numbas_bounds_checks_on(tmp_path):
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    command = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-n", "0", *FILES]
    run = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=3600)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
