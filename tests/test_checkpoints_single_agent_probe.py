"""Gaps that a mutation probe of `snack_envs/checkpoints.py` and `snack_envs/single_agent.py` found: each test
here fails on a mutant of one of them that the rest of the suite (the checkpoint, single-agent, adapter and
bad-input tests) let through.

Pinned, through the public API: a `SingleAgentEnv`'s opponents are every seat but the learner's, in every
episode (the learner changes seats between episodes); opponents given as a collection that is no sequence
are refused by name; a one-player game (Snack Time solo) has a single-agent view with no opponents, and its
checkpoint's metadata fits it; `load_policy` refuses a damaged checkpoint file
by name."""

from __future__ import annotations

import json

import numpy as np
import pytest

from snack_envs.checkpoints import check_fits
from snack_envs.core.game import ConfigError
from snack_envs.single_agent import SingleAgentEnv
from tests.helpers import CHECKPOINTS


# --- SingleAgentEnv: who the opponents are ---------------------------------------------------------------
@pytest.mark.parametrize("name, num_players", [("snack_wars_v0", 3), ("speed_snacks_v1", 2)])
def test_the_opponents_of_every_episode_are_every_seat_but_the_learners(name, num_players):
    """The learner takes a new seat each episode: the seat it left is an opponent's, the one it takes is not
    (a stale opponent there would be named in info and, in a simultaneous game, play the learner's move)."""
    env = SingleAgentEnv(name, opponents=["random"], num_players=num_players)
    seats = set()
    for seed in range(12):
        _, info = env.reset(seed=seed)
        seats.add(info["learner"])
        assert set(info["opponents"]) == set(env.raw.possible_agents) - {info["learner"]}
        assert set(env.opponents) == set(info["opponents"])
    assert len(seats) > 1  # the learner did change seats


@pytest.mark.parametrize("opponents", [{"random"}, {"random": 1.0}, (spec for spec in ["random"])],
                         ids=["a set", "a dict", "a generator"])
def test_opponents_in_a_collection_that_is_no_sequence_are_refused_naming_it(opponents):
    with pytest.raises(ConfigError, match=r"opponents must be a policy spec, a policy, or a list of them, got "):
        SingleAgentEnv("snack_rabbits_v0", opponents=opponents)


# --- a one-player game ------------------------------------------------------------------------------------
def test_a_one_player_game_is_a_single_agent_view_without_opponents_that_plays_to_its_end():
    env = SingleAgentEnv("snack_time_v0", num_players=1)
    obs, info = env.reset(seed=0)
    assert info["learner"] == "player_0" and info["opponents"] == {}
    assert obs.shape == env.observation_space.shape == env.raw.observation_space("player_0")["observation"].shape
    assert env.action_space.n == env.raw.action_space("player_0").n
    terminated = truncated = False
    for _ in range(500):
        obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        assert env.observation_space.contains(obs) and np.isfinite(reward)
        if terminated or truncated:
            break
    assert terminated and not truncated and not info["action_mask"].any()


def test_the_shipped_solo_checkpoints_metadata_fits_one_player_only():
    meta = json.loads((CHECKPOINTS / "snack_time_v0_solo.json").read_text())
    facts = check_fits(meta, "snack_time_v0", 1)
    assert facts["num_players"] == 1
    assert (facts["observation_size"], facts["num_actions"]) == (meta["observation_size"], meta["num_actions"])
    assert check_fits(meta, None, None) == facts


@pytest.mark.parametrize("content", [b"not a zip at all", b""], ids=["another file", "an empty file"])
def test_load_policy_refuses_weights_that_are_no_zip_beside_fitting_metadata_naming_the_path(content, tmp_path):
    pytest.importorskip("sb3_contrib")
    from snack_envs.checkpoints import CheckpointError, load_policy

    path = tmp_path / "damaged.zip"
    path.write_bytes(content)
    path.with_suffix(".json").write_text((CHECKPOINTS / "snack_rabbits_v0.json").read_text())
    with pytest.raises(CheckpointError, match=r"damaged.zip: .*damaged.zip is not a checkpoint: not a zip file"):
        load_policy(path, "snack_rabbits_v0", 2)
