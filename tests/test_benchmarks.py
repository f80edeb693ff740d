"""The benchmark scripts still run against today's code: each, at its smallest size, exits 0, leaves no
temporary files behind and prints a row per thing it measures; a bad argument is one line and exit status 2, as
the commands' are. Their figures are not checked (speed is never asserted in tests)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_benchmark(script: str, *args: str) -> str:
    """The script's stdout, once it has exited 0 and left nothing in its temporary folder but torch's shared cache."""
    with tempfile.TemporaryDirectory() as tmp:
        result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), *args], cwd=ROOT,
                                capture_output=True, text=True, timeout=300, env={**os.environ, "TMPDIR": tmp})
        assert result.returncode == 0, result.stderr[-3000:]
        assert [path.name for path in Path(tmp).iterdir() if not path.name.startswith("torchinductor_")] == []
    return result.stdout


def test_batched_prints_each_env():
    out = run_benchmark("batched.py", "--seconds", "0.02", "--batches", "2", "--no-compile",
                        "--envs", "snack_rabbits_v0", "speed_snacks_v1")
    assert [line.split()[0] for line in out.splitlines() if line.split()[:1] in (["snack_rabbits_v0"], ["speed_snacks_v1"])] \
        == ["snack_rabbits_v0", "speed_snacks_v1"]


def test_random_play_prints_each_env_beside_connect_four():
    out = run_benchmark("random_play.py", "--steps", "100", "--rounds", "1", "--envs", "snack_wars_v0")
    assert "connect_four_v3" in out and "snack_wars_v0 raw_env()" in out


@pytest.mark.parametrize("env, budget, zero, rounding", [("snack_time_v0", "4:1:1", "0.0", 0.11),
                                                          ("snack_wars_v0", "16", "0.000", 0.0011)])
def test_search_headroom_pairs_every_player_on_the_same_games(env, budget, zero, rounding):
    out = run_benchmark("search_headroom.py", "--env", env, "--games", "4", "--budgets", budget, "--clairvoyant", budget)
    rows = {line[:24].strip(): line[24:].split() for line in out.splitlines()[2:]}
    assert list(rows) == ["heuristic", "agent", f"search {budget}", f"clairvoyant search {budget}"]
    assert rows["heuristic"][3:6] == [zero, f"[{zero},", f"{zero}]"]  # its difference to itself
    for name in ("agent", f"search {budget}", f"clairvoyant search {budget}"):  # paired: the mean difference is the difference of the means
        assert abs(float(rows[name][3]) - (float(rows[name][0]) - float(rows["heuristic"][0]))) <= rounding


def test_training_speed_prints_each_path():
    out = run_benchmark("training_speed.py", "--timesteps", "2048")
    assert all(path in out for path in ("dummy, 8 envs", "batched, 64 envs", "free VecEnv"))


def test_search_headroom_shows_a_dash_for_a_player_with_no_finished_game():
    """Unfinished games are nan and left out; with none finished there is no mean to print (it stopped on
    unpacking None)."""
    import importlib.util

    import numpy as np

    pytest.importorskip("numba")
    spec = importlib.util.spec_from_file_location("search_headroom", ROOT / "benchmarks" / "search_headroom.py")
    headroom = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(headroom)
    assert headroom.interval(np.array([np.nan, np.nan]), 2) == "-"
    assert headroom.interval(np.array([1.0, np.nan, 3.0]), 2) == "  2.00 [0.04, 3.96]"  # 2 -+ 1.96 * sqrt(2) / sqrt(2)


@pytest.mark.parametrize("script, args, message", [
    ("batched.py", ["--seconds", "0"], "argument --seconds: must be a finite number above 0, got 0"),
    ("batched.py", ["--envs", "snack_wars_v9"], "argument --envs: unknown env 'snack_wars_v9'"),
    ("random_play.py", ["--rounds", "0"], "argument --rounds: must be 1 or more, got 0"),
    ("search_headroom.py", ["--budgets", "0"], "a budget is samples[:first[:keep]], each a positive int, got '0'"),
    ("search_headroom.py", ["--games", "0"], "argument --games: must be 1 or more, got 0"),
    ("training_speed.py", ["--config", "no_such_config"], "config file 'no_such_config' not found"),
])
def test_a_benchmark_tells_a_bad_argument_in_one_line_and_exits_2(script, args, message):
    """They divided by zero (--seconds 0, --rounds 0, --games 0) or raised a traceback for an unknown env,
    a budget of 0 or a missing config."""
    result = subprocess.run([sys.executable, str(ROOT / "benchmarks" / script), *args], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(f"{script}: error: ") and message in result.stderr
