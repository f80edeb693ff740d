"""TorchRL's PettingZooWrapper with masks: one rollout of a whole game per env, legal actions only."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import snack_envs

torchrl = pytest.importorskip("torchrl")
torch = pytest.importorskip("torch")
from torchrl.envs.utils import check_env_specs  # noqa: E402

from snack_envs.integrations.torchrl import make_env  # noqa: E402

ENVS = list(snack_envs.ENV_NAMES)
pytestmark = pytest.mark.filterwarnings("ignore:PettingZoo in TorchRL is tested")


@pytest.mark.parametrize("name", ENVS)
def test_one_masked_rollout_plays_a_whole_game_with_legal_actions(name):
    # The raw env raises IllegalActionError on an illegal action, so a finished rollout proves the masks were used.
    env = make_env(name, seed=0, raw=True, num_players=2)
    bound = snack_envs.make(name, num_players=2).unwrapped.max_steps
    rollout = env.rollout(bound + 5, break_when_any_done=True)
    assert rollout["next", "done"][-1].all() and not rollout["next", "done"][:-1].any()
    acted = 0
    for group, agents in env.group_map.items():
        mask = rollout[group, "mask"]  # which agents of the group act in each step
        action = rollout[group, "action"]
        legal = rollout[group, "action_mask"].gather(-1, action.unsqueeze(-1)).squeeze(-1)
        assert legal[mask].all(), f"{group}: an acting agent took an action its mask forbids"
        acted += int(mask.sum())
    assert acted >= rollout.batch_size[0]  # every step had an agent to act
    for group in env.group_map:  # reward="win": 0 until the end, then +1 / -1 (0 on a full tie or truncation)
        reward = rollout["next", group, "reward"]
        assert not reward[:-1].any() and set(reward[-1].flatten().tolist()) <= {-1.0, 0.0, 1.0}


@pytest.mark.parametrize("name", ENVS)
def test_torchrl_spec_check_on_the_public_env(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env_specs(make_env(name, seed=1), seed=1)


@pytest.mark.parametrize("name", ENVS)
def test_return_state_gives_the_envs_global_state_at_every_step(name):
    env = make_env(name, seed=2, return_state=True, num_players=2)
    rollout = env.rollout(30, break_when_any_done=True)
    pettingzoo_env = env._env  # the wrapped PettingZoo env, left at the rollout's last step
    assert rollout["next", "state"].shape[-1] == pettingzoo_env.state_space.shape[0]
    assert np.array_equal(rollout["next", "state"][-1].numpy(), pettingzoo_env.state())
    assert not torch.equal(rollout["state"][0], rollout["next", "state"][-1])  # it follows the game


@pytest.mark.parametrize("flag", ["raw", "return_state"])
def test_make_env_takes_its_flags_as_bools_only(flag):
    """Read by their truth, raw="no" built the raw env and return_state=1 was taken as True."""
    from snack_envs.core.game import ConfigError

    for value in ("no", 1, None):
        with pytest.raises(ConfigError, match=rf"make_env: {flag} must be a bool, got {value!r}"):
            make_env("snack_rabbits_v0", **{flag: value})
    assert make_env("snack_rabbits_v0", **{flag: np.bool_(False)}) is not None
