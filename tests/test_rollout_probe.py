"""The episode loop's policy bases (snack_envs/core/rollout.py), beyond tests/test_small_modules_probe.py:
a bot built on `GamePolicy` that does not say how it plays from the game (no `act_game` of its own) is a
clear NotImplementedError, on its own and in `play`, not a None move handed to the env."""

from __future__ import annotations

import pytest

from snack_envs import specs
from snack_envs.core.rollout import GamePolicy, RandomPolicy, play


class Unfinished(GamePolicy):
    """A game bot that forgot to write `act_game`."""

    name = "unfinished"


def test_a_game_policy_without_its_own_act_game_refuses_to_move():
    env = specs.get("snack_wars_v0").raw_env(num_players=2, shuffle_seats=False)
    env.reset(seed=0)
    with pytest.raises(NotImplementedError):
        Unfinished().act_game(env.game, 0)
    first, second = env.possible_agents
    with pytest.raises(NotImplementedError):
        play(env, {first: Unfinished(), second: RandomPolicy(0)}, seed=0)
