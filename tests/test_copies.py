"""Every env can be pickled and deep-copied, before reset and mid-game, through every entry point (AEC,
raw AEC, parallel, raw parallel, the Gymnasium ids), and every copy then plays on exactly like the original.
Speed Snacks' AEC view copied with its parallel env still follows snapshots loaded into that copy."""

from __future__ import annotations

import copy
import pickle

import gymnasium
import numpy as np
import pytest

import snack_envs  # noqa: F401  (registers the Gymnasium ids)
from snack_envs import specs
from tests.helpers import env_module, every_switch_on, random_legal


class AECDriver:
    """`env()` / `raw_env()`: one agent step at a time."""

    def __init__(self, env):
        self.env = env

    def reset(self, seed: int) -> None:
        self.env.reset(seed=seed)

    def done(self) -> bool:
        return not self.env.agents

    def record(self) -> tuple:
        env = self.env
        obs, reward, term, trunc, _ = env.last()
        return (env.agent_selection, obs["observation"], obs["action_mask"], reward, term, trunc,
                dict(env.rewards), dict(env.terminations), dict(env.truncations))

    def choose(self, rng: np.random.Generator) -> int | None:
        obs, _, term, trunc, _ = self.env.last()
        return None if term or trunc else random_legal(obs["action_mask"], rng)

    def step(self, action: int | None) -> None:
        self.env.step(action)


class ParallelDriver:
    """`parallel_env()` / `raw_parallel_env()`: joint actions (in a turn-based game only the agent to act's
    counts)."""

    def __init__(self, env):
        self.env = env
        self.last = None

    def reset(self, seed: int) -> None:
        self.last = (self.env.reset(seed=seed)[0], {}, {}, {})

    def done(self) -> bool:
        return not self.env.agents

    def record(self) -> tuple:
        observations, rewards, terms, truncs = self.last
        flat = [(a, o["observation"], o["action_mask"]) for a, o in sorted(observations.items())]
        return flat, rewards, terms, truncs

    def choose(self, rng: np.random.Generator) -> dict:
        observations = self.last[0]
        return {a: random_legal(o["action_mask"], rng) if o["action_mask"].any() else 0
                for a, o in sorted(observations.items()) if a in self.env.agents}

    def step(self, actions: dict) -> None:
        observations, rewards, terms, truncs, _ = self.env.step(actions)
        self.last = (observations, rewards, terms, truncs)


class GymDriver:
    """`gymnasium.make(...)`: the learner's steps (opponents move inside `step`)."""

    def __init__(self, env):
        self.env = env
        self.last = None

    def reset(self, seed: int) -> None:
        obs, _ = self.env.reset(seed=seed)
        self.last = (obs, 0.0, False, False)

    def done(self) -> bool:
        return self.last[2] or self.last[3]

    def record(self) -> tuple:
        return (*self.last, self.env.unwrapped.action_masks())

    def choose(self, rng: np.random.Generator) -> int:
        return random_legal(self.env.unwrapped.action_masks(), rng)

    def step(self, action: int | None) -> None:
        self.last = self.env.step(action)[:4]


def makers() -> dict:
    """Every entry point of every env, by id: a function that makes a driver of a fresh env."""
    out = {}
    for spec in specs.SPECS:
        module, options = env_module(spec.env_name), every_switch_on(spec.rules_class)
        for entry, driver in (("env", AECDriver), ("raw_env", AECDriver), ("parallel_env", ParallelDriver),
                              ("raw_parallel_env", ParallelDriver)):
            if hasattr(module, entry):
                out[f"{spec.env_name}.{entry}"] = lambda m=getattr(module, entry), d=driver, o=options: d(m(**o))  # noqa: B008
        for gym_id in (spec.gym_id, spec.solo_gym_id):
            if gym_id:
                out[gym_id] = lambda i=gym_id, o=options: GymDriver(gymnasium.make(i, **o))
    return out


MAKERS = makers()


def same(a, b) -> bool:
    """Equal records: arrays by value, containers item by item."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


def random_step(drivers: list, rng: np.random.Generator) -> None:
    """The same action in every driver: random legal ones of the first driver's (None on a dead step)."""
    action = drivers[0].choose(rng)
    for driver in drivers:
        driver.step(action)


def play_in_lockstep(drivers: list, rng: np.random.Generator) -> int:
    """Step every driver alike to the end, checking at every step that they all show the same thing."""
    steps = 0
    while not drivers[0].done():
        first = drivers[0].record()
        for other in drivers[1:]:
            assert not other.done() and same(first, other.record()), f"copies differ at step {steps}"
        random_step(drivers, rng)
        steps += 1
    assert all(d.done() for d in drivers)
    return steps


def copies(driver) -> list:
    return [driver, pickle.loads(pickle.dumps(driver)), copy.deepcopy(driver)]


@pytest.mark.parametrize("kind", list(MAKERS))
def test_envs_copied_before_reset_play_like_the_original(kind):
    drivers = copies(MAKERS[kind]())
    for driver in drivers:
        driver.reset(seed=7)
    assert play_in_lockstep(drivers, np.random.default_rng(0)) > 5


@pytest.mark.parametrize("kind", list(MAKERS))
def test_envs_copied_mid_game_play_on_like_the_original(kind):
    original = MAKERS[kind]()
    original.reset(seed=11)
    rng = np.random.default_rng(1)
    for _ in range(5):
        random_step([original], rng)
    assert not original.done()
    assert play_in_lockstep(copies(original), rng) > 0


@pytest.mark.parametrize("entry", ["env", "raw_env"])
def test_a_copied_speed_snacks_aec_view_follows_snapshots_loaded_into_its_own_env(entry):
    make = getattr(env_module("speed_snacks_v1"), entry)
    original, source = make(), make()
    original.reset(seed=3)
    source.reset(seed=8)
    rng = np.random.default_rng(0)
    for _ in range(40):  # a position unlike the original's
        source.step(random_legal(source.last()[0]["action_mask"], rng))
    before = original.last()[0]["observation"]
    assert not np.array_equal(before, source.last()[0]["observation"])
    for copied in (pickle.loads(pickle.dumps(original)), copy.deepcopy(original)):
        copied.unwrapped.load_state_dict(source.unwrapped.state_dict())
        assert np.array_equal(copied.last()[0]["observation"], source.last()[0]["observation"])
        assert np.array_equal(original.last()[0]["observation"], before)  # the original is not the copy
