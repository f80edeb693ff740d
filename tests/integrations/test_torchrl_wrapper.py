"""TorchRL's PettingZooWrapper with masks: one rollout of a whole game per env, legal actions only."""

from __future__ import annotations

import warnings

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
