"""Gaps that a second mutation probe of `snack_envs/checkpoints.py` and `snack_envs/single_agent.py` found: each
test here fails on a mutant of one of them that the rest of the suite (the checkpoint, single-agent and earlier
probe tests) let through.

Pinned, through the public API: in a simultaneous game the `SingleAgentEnv`'s reward is a float (Gymnasium's
`step` contract) and its observation and mask are the learner's own; an `illegal_action` mode that is neither
"penalize" nor "raise" is refused by name (not played as "penalize"); of several opponents that are no
policies, the first is the one named. A `LogitsPolicy` plays Python ints, sampling or not, and so does a loaded
checkpoint (a numpy integer is no JSON number: a recorded game's actions could not be written); a
`LogitsPolicy` refuses a `deterministic` that is no bool; `check_fits` refuses metadata whose observation
size, action count or env version is not the game's, naming the field; `library_versions` names every library
installed of those it lists."""

from __future__ import annotations

import importlib.util
import json
import re

import numpy as np
import pytest

from snack_envs.checkpoints import CheckpointError, LogitsPolicy, check_fits, library_versions, masked_sample
from snack_envs.core.game import ConfigError
from snack_envs.single_agent import SingleAgentEnv
from tests.helpers import CHECKPOINTS

TURN_BASED, SIMULTANEOUS = "snack_rabbits_v0", "speed_snacks_v1"


def first_legal(env) -> int:
    return int(np.flatnonzero(env.action_masks())[0])


# --- SingleAgentEnv: Gymnasium's API ---------------------------------------------------------------------
def test_a_simultaneous_games_observation_is_the_learners_own_and_its_reward_a_float():
    """The simultaneous branch of `step` returns the reward the parallel env gave the learner (it went
    missing, None, unnoticed)."""
    env = SingleAgentEnv(SIMULTANEOUS, opponents=["random"])
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        learner = info["learner"]
        np.testing.assert_array_equal(obs, env.raw.observe(learner)["observation"])
        assert obs.any()
        for _ in range(5):
            obs, reward, terminated, truncated, info = env.step(first_legal(env))
            assert type(reward) is float
            if terminated or truncated:
                break
            np.testing.assert_array_equal(obs, env.raw.observe(learner)["observation"])
            np.testing.assert_array_equal(info["action_mask"], env.raw.observe(learner)["action_mask"].astype(bool))


# --- SingleAgentEnv: refusing bad settings by name ---------------------------------------------------------
@pytest.mark.parametrize("illegal_action", ["ignore", "Raise", None])
def test_an_unknown_illegal_action_mode_is_refused_naming_it(illegal_action):
    with pytest.raises(ConfigError, match=rf"illegal_action={re.escape(repr(illegal_action))} is not one of "):
        SingleAgentEnv(TURN_BASED, opponents=["random"], illegal_action=illegal_action)


def test_of_several_opponents_that_are_no_policies_the_first_is_named():
    with pytest.raises(ConfigError, match=r"\(with act\), not 3$"):
        SingleAgentEnv(TURN_BASED, opponents=["random", 3, 4.5])


# --- checkpoints: a sampling policy's actions -------------------------------------------------------------
class FixedLogits(LogitsPolicy):
    def logits(self, observation, action_mask):
        return np.array([0.0, 1.0, 2.0, 0.5])


def test_a_sampling_logits_policy_and_masked_sample_play_python_ints():
    rng = np.random.default_rng(0)
    mask = np.array([1, 0, 1, 1], np.int8)
    assert {type(masked_sample(np.zeros(4), mask, rng)) for _ in range(20)} == {int}
    policy = FixedLogits("fixed", deterministic=False, seed=0)
    actions = [policy.act(np.zeros(2), mask) for _ in range(30)]
    assert {type(a) for a in actions} == {int} and set(actions) <= {0, 2, 3}
    assert type(FixedLogits("fixed").act(np.zeros(2), mask)) is int


@pytest.mark.parametrize("deterministic", ["no", 0, None])
def test_a_logits_policy_refuses_a_deterministic_that_is_no_bool(deterministic):
    """Read by its truth, "no" would mean deterministic."""
    with pytest.raises(ConfigError, match=rf"deterministic must be a bool, got {re.escape(repr(deterministic))}"):
        FixedLogits("fixed", deterministic=deterministic)


# --- checkpoints: metadata ---------------------------------------------------------------------------------
@pytest.mark.parametrize("key", ["observation_size", "num_actions", "env_version"])
def test_check_fits_refuses_metadata_whose_sizes_or_version_are_not_the_games_naming_the_field(key):
    meta = json.loads((CHECKPOINTS / "snack_rabbits_v0.json").read_text())
    check_fits(meta, "snack_rabbits_v0", 2)
    with pytest.raises(CheckpointError, match=rf"checkpoint {key} is {meta[key] + 1!r} but snack_rabbits_v0 here has"):
        check_fits(dict(meta, **{key: meta[key] + 1}), "snack_rabbits_v0", 2)


def test_library_versions_names_every_installed_library_it_lists():
    versions = library_versions()
    for name in ("snack_envs", "numpy", "gymnasium", "pettingzoo", "torch", "stable_baselines3", "sb3_contrib"):
        assert (name in versions) == (importlib.util.find_spec(name) is not None), name
    assert versions["python"]


def test_a_loaded_checkpoints_best_action_is_a_python_int():
    """`CheckpointPolicy.best` plays what SB3's `predict` answers, a numpy array, as an int."""
    pytest.importorskip("sb3_contrib")
    from snack_envs.checkpoints import load_policy

    env = SingleAgentEnv(TURN_BASED, opponents=["random"])
    obs, info = env.reset(seed=0)
    action = load_policy(CHECKPOINTS / "snack_rabbits_v0.zip", TURN_BASED, 2).act(obs, info["action_mask"])
    assert type(action) is int and info["action_mask"][action]
