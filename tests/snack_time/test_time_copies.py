"""Snack Time envs can be pickled and deep-copied, before reset and mid-game, through every entry point,
and every copy then plays on exactly like the original."""

from __future__ import annotations

import copy
import pickle

import gymnasium
import numpy as np
import pytest

import snack_envs  # noqa: F401  (registers the Gymnasium ids)
from snack_envs import snack_time_v0
from snack_envs.snack_time.solo import SOLO_ENV_ID

OPTIONS = {"rat_snacks": True, "advanced_traps": True}


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

    def mask(self) -> np.ndarray | None:
        obs, _, term, trunc, _ = self.env.last()
        return None if term or trunc else obs["action_mask"]

    def step(self, action: int | None) -> None:
        self.env.step(action)


class ParallelDriver:
    """`parallel_env()`: the turn-based game seen as ticks of joint actions (only the agent to act moves)."""

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

    def mask(self) -> np.ndarray | None:
        observations = self.last[0]
        return next((o["action_mask"] for o in observations.values() if o["action_mask"].any()), None)

    def step(self, action: int | None) -> None:
        observations, rewards, terms, truncs, _ = self.env.step({a: action for a in self.env.agents})
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

    def mask(self) -> np.ndarray | None:
        return None if self.done() else self.env.unwrapped.action_masks()

    def step(self, action: int | None) -> None:
        self.last = self.env.step(action)[:4]


MAKERS = {
    "env": lambda: AECDriver(snack_time_v0.env(**OPTIONS)),
    "raw_env": lambda: AECDriver(snack_time_v0.raw_env(**OPTIONS)),
    "parallel_env": lambda: ParallelDriver(snack_time_v0.parallel_env(**OPTIONS)),
    "SnackTime-v0": lambda: GymDriver(gymnasium.make("SnackTime-v0", **OPTIONS)),
    "SnackTimeSolo-v0": lambda: GymDriver(gymnasium.make(SOLO_ENV_ID, **OPTIONS)),
}


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
    """The same action in every driver: a random legal one of the first driver's agent to act (None on a
    dead step)."""
    mask = drivers[0].mask()
    action = None if mask is None else int(rng.choice(np.flatnonzero(mask)))
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
    assert play_in_lockstep(drivers, np.random.default_rng(0)) > 30


@pytest.mark.parametrize("kind", list(MAKERS))
def test_envs_copied_mid_game_play_on_like_the_original(kind):
    original = MAKERS[kind]()
    original.reset(seed=11)
    rng = np.random.default_rng(1)
    for _ in range(30):
        random_step([original], rng)
    assert not original.done()
    assert play_in_lockstep(copies(original), rng) > 0
