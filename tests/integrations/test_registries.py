"""Gymnasium and PettingZoo registries: every game has its ids, they build the right envs, checkers pass."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pettingzoo
import pytest

import snack_envs
from snack_envs import registration, specs
from snack_envs.single_agent import SingleAgentEnv
from tests.helpers import play_aec

ENVS = list(snack_envs.ENV_NAMES)
GYMNASIUM_IDS = registration.gymnasium_ids()
PETTINGZOO_IDS = registration.register_pettingzoo()


def gym_id(name: str) -> str:
    return specs.get(name).gym_id


class CountingPolicy:
    """Scripted opponent: the first legal action; counts its calls."""

    name = "counting"

    def __init__(self):
        self.calls = 0

    def reset(self, seed=None):
        pass

    def act(self, observation, action_mask):
        self.calls += 1
        return int(np.flatnonzero(action_mask)[0])


def play_parallel_view(env, seed: int) -> int:
    """Random legal play of a parallel env; agents with an empty mask (not to act in a turn-based view) send 0."""
    rng = np.random.default_rng(seed)
    observations, _ = env.reset(seed=seed)
    steps = 0
    while env.agents:
        masks = {a: observations[a]["action_mask"] for a in env.agents}
        assert any(m.any() for m in masks.values()), "nobody may act"
        actions = {a: int(rng.choice(np.flatnonzero(m))) if m.any() else 0 for a, m in masks.items()}
        observations, *_ = env.step(actions)
        steps += 1
    return steps


def test_import_registers_every_game_without_heavy_libraries():
    code = (
        "import json, sys, gymnasium, snack_envs\n"
        "assert not {'torch', 'ray', 'torchrl'} & set(sys.modules), 'a heavy library was imported'\n"
        "print(json.dumps(sorted(i for i in gymnasium.registry if i in snack_envs.registration.gymnasium_ids())))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == sorted(GYMNASIUM_IDS)
    assert {gym_id(name) for name in ENVS} <= set(GYMNASIUM_IDS)
    assert gym_id("snack_rabbits_v0") == "SnackRabbits-v0"
    assert gym_id("speed_snacks_v1") == "SpeedSnacks-v1"
    assert specs.get("snack_time_v0").solo_gym_id in GYMNASIUM_IDS


def test_the_envs_need_only_numpy_gymnasium_and_pettingzoo():
    import tomllib

    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]
    assert sorted(re.split(r"[<>=!~ \[]", d)[0] for d in project["dependencies"]) == ["gymnasium", "numpy", "pettingzoo"]
    code = (
        "import json, sys\n"
        "before = set(sys.modules)\n"
        "import gymnasium, numpy as np, pettingzoo, snack_envs\n"
        "from snack_envs import registration\n"
        "for env_id in registration.gymnasium_ids():\n"
        "    env = gymnasium.make(env_id); env.reset(seed=0)\n"
        "    env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))\n"
        "for env_id in registration.register_pettingzoo():\n"
        "    pettingzoo.make('aec', env_id).reset(seed=0); pettingzoo.make('parallel', env_id).reset(seed=0)\n"
        "from importlib.metadata import packages_distributions\n"
        "dists = packages_distributions()\n"
        "print(json.dumps(sorted({d for m in set(sys.modules) - before for d in dists.get(m.split('.')[0], [])})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    base = {"numpy", "gymnasium", "pettingzoo", "cloudpickle", "farama-notifications", "typing-extensions", "snack-envs"}
    used = {d.lower().replace("_", "-") for d in json.loads(out)}
    assert used <= base, f"distributions beyond the base dependencies (and theirs): {used - base}"


@pytest.mark.parametrize("name", ENVS)
def test_gymnasium_id_builds_the_single_agent_adapter_for_the_game(name):
    env = gymnasium.make(gym_id(name), num_players=2)
    adapter = env.unwrapped
    assert isinstance(adapter, SingleAgentEnv) and adapter.env_name == name and adapter.num_players == 2
    obs, info = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    assert adapter.action_masks().any()
    assert set(info["opponents"].values()) == {"random"}  # the default opponent


@pytest.mark.parametrize("env_id", GYMNASIUM_IDS)
def test_gymnasium_and_sb3_checkers_pass(env_id):
    from gymnasium.utils.env_checker import check_env as gym_check

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gym_check(gymnasium.make(env_id).unwrapped, skip_render_check=True)
        sb3 = pytest.importorskip("stable_baselines3.common.env_checker")
        sb3.check_env(gymnasium.make(env_id).unwrapped)


@pytest.mark.parametrize("name", ENVS)
def test_the_opponent_is_configurable_and_plays_inside_step(name):
    opponent = CountingPolicy()
    env = gymnasium.make(gym_id(name), opponents=[opponent])
    obs, info = env.reset(seed=0)
    assert set(info["opponents"].values()) == {"counting"}
    rng = np.random.default_rng(0)
    done = False
    while not done:
        legal = np.flatnonzero(env.unwrapped.action_masks())
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        done = terminated or truncated
    assert opponent.calls > 0
    assert not info.get("illegal_action", False)


@pytest.mark.parametrize("name", ENVS)
def test_an_illegal_action_ends_the_episode_with_the_documented_penalty(name):
    env = gymnasium.make(gym_id(name))
    env.reset(seed=1)
    illegal = np.flatnonzero(~env.unwrapped.action_masks())
    obs, reward, terminated, truncated, info = env.step(int(illegal[0]))
    mask = info.pop("action_mask")  # every step's info carries the mask: none is legal once the episode ended
    assert (reward, terminated, truncated, info) == (-1.0, True, False, {"illegal_action": True})
    assert mask.dtype == bool and not mask.any()
    raising = gymnasium.make(gym_id(name), illegal_action="raise")
    raising.reset(seed=1)
    with pytest.raises(snack_envs.core.game.IllegalActionError):
        raising.step(int(illegal[0]))


@pytest.mark.skipif(not PETTINGZOO_IDS, reason="this PettingZoo has no registry")
@pytest.mark.parametrize("name", ENVS)
def test_pettingzoo_registry_makes_the_public_envs(name):
    env_id = specs.get(name).pettingzoo_id
    module = specs.get(name).entry_points()
    aec = pettingzoo.make("aec", env_id, num_players=2)
    assert type(aec) is type(module.env()) and aec.possible_agents == ["player_0", "player_1"]
    assert play_aec(aec, seed=5)["steps"] > 0
    par = pettingzoo.make("parallel", f"snack_envs/{name}")  # the module's name works too ("_v0" -> "-v0")
    assert type(par) is type(module.parallel_env()) and isinstance(par, pettingzoo.ParallelEnv)
    assert play_parallel_view(par, seed=5) > 0


def test_pettingzoo_registration_is_skipped_where_pettingzoo_has_no_registry(monkeypatch):
    monkeypatch.delattr(pettingzoo, "register", raising=False)
    monkeypatch.delattr(pettingzoo, "aec_registry", raising=False)
    assert registration.register_pettingzoo() == []
