"""The repository passes its linter: ruff with pyproject.toml's rules (unused imports and variables,
undefined names, late-bound loop variables in closures, ...). ruff comes with the `dev` extra."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_repository_passes_ruff():
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed (the dev extra)")
    result = subprocess.run([ruff, "check", "--no-cache", "--output-format", "concise", str(ROOT)],
                            capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
