"""The examples in examples/ run, and the README shows each of them as it is."""

from __future__ import annotations

import ast
import os
import runpy
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
STACKS = ["pettingzoo", "gymnasium", "sb3", "rllib", "torchrl"]


def run_in_process(name: str, capsys) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runpy.run_path(str(EXAMPLES / f"{name}_example.py"), run_name="__main__")
    return capsys.readouterr().out


def run_in_subprocess(name: str) -> str:
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0", PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, str(EXAMPLES / f"{name}_example.py")], capture_output=True, text=True,
                         cwd=ROOT, env=env, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_readme_shows_every_example_verbatim():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Use it from PettingZoo, Gymnasium, SB3, RLlib and TorchRL", 1)
    assert len(section) == 2, "the README lacks the 'Use it from ...' section"
    for stack in STACKS:
        assert (EXAMPLES / f"{stack}_example.py").read_text().strip() in section[1], f"{stack}_example.py differs"


def test_readme_shows_the_batched_example_verbatim():
    section = (ROOT / "README.md").read_text().split("## The batched engine", 1)[1].split("\n## ", 1)[0]
    assert (EXAMPLES / "batched_example.py").read_text().strip() in section


def test_batched_example(capsys):
    pytest.importorskip("numba")
    out = run_in_process("batched", capsys)
    won, games = (int(x) for x in out.split("won ", 1)[1].split(" games")[0].split(" of "))
    assert games > 5000 and won > 0.8 * games  # the bot against two random players


def test_checkpoint_example(capsys, monkeypatch):
    pytest.importorskip("sb3_contrib")
    monkeypatch.chdir(ROOT)  # it names the checkpoint as a user in the repository root would
    out = run_in_process("checkpoint", capsys)
    returns = ast.literal_eval(out.split("returns:", 1)[1].splitlines()[0])
    assert sorted(returns) == ["player_0", "player_1"] and sorted(returns.values()) in ([-1.0, 1.0], [0.0, 0.0])


def test_the_checkpoint_pages_include_the_checkpoint_example():
    for page in ("checkpoints.md", "evaluation.md"):
        assert '--8<-- "examples/checkpoint_example.py"' in (ROOT / "docs" / page).read_text(), page


def test_pettingzoo_example(capsys):
    out = run_in_process("pettingzoo", capsys)
    returns = ast.literal_eval(out.split("returns:", 1)[1].splitlines()[0])
    assert sorted(returns) == ["player_0", "player_1", "player_2"] and sorted(returns.values()) in ([-1.0, -1.0, 1.0], [0.0] * 3)
    assert "parallel env agents: ['player_0', 'player_1']" in out


def test_gymnasium_example(capsys):
    out = run_in_process("gymnasium", capsys)
    assert "random learner vs heuristic: return" in out and "final score" in out


def test_torchrl_example(capsys):
    pytest.importorskip("torchrl")
    out = run_in_process("torchrl", capsys)
    assert "random legal game:" in out and "policy game:" in out


@pytest.mark.slow
def test_sb3_example():
    pytest.importorskip("sb3_contrib")
    out = run_in_subprocess("sb3")
    assert "final rewards of 5 games vs random:" in out


@pytest.mark.slow
def test_rllib_example():
    pytest.importorskip("ray.rllib")
    out = run_in_subprocess("rllib")
    assert out.count("iteration") == 2 and "the trained module against itself:" in out
