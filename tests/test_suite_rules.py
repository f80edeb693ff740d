"""The suite's own rules (pyproject.toml's pytest settings, tests/conftest.py): a test that hangs fails at
the per-test timeout instead of stalling the suite; `slow` tests run without that limit."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

SLEEPERS = """\
import time

import pytest


def test_hangs():
    time.sleep(30)


@pytest.mark.slow
def test_slow_and_long():
    time.sleep(2)
"""


def test_a_hanging_test_fails_at_the_timeout_and_a_slow_test_has_none(tmp_path):
    (tmp_path / "test_sleepers.py").write_text(SLEEPERS)

    def run(*args: str) -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(ROOT),
                   "-p", "tests.conftest", "-p", "no:cacheprovider", "-o", "timeout=1", "-q", *args,
                   str(tmp_path / "test_sleepers.py")]
        return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=120)

    hung = run("-m", "not slow")
    assert hung.returncode == 1 and "Timeout (>1.0s) from pytest-timeout" in hung.stdout and "1 failed" in hung.stdout, hung.stdout
    slow = run("-m", "slow")
    assert slow.returncode == 0 and "1 passed" in slow.stdout, slow.stdout
