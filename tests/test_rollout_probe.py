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


def test_play_refuses_policies_that_do_not_match_the_agents_or_a_watch_that_is_no_function():
    """A missing agent failed in KeyError mid-game, a list in TypeError, a spec string in AttributeError, and a
    policy for an agent the game has not was ignored; each is named before the game is reset."""
    from snack_envs import snack_wars_v0
    from snack_envs.core.game import ConfigError

    env = snack_wars_v0.env()
    both = {"player_0": RandomPolicy(), "player_1": RandomPolicy()}
    for policies, message in [
        ({"player_0": RandomPolicy()}, r"exactly the agents \['player_0', 'player_1'\]: missing \['player_1'\]"),
        ({**both, "player_7": RandomPolicy()}, r"missing \[\], not agents of the game \['player_7'\]"),
        ({**both, "player_0": "random"}, r"the policy of player_0 is no policy \(reset, and act or act_game\): 'random'"),
        (list(both.values()), r"policies must be a dict agent -> policy, got \["),
    ]:
        with pytest.raises(ConfigError, match=r"^play: .*" + message):
            play(env, policies, seed=0)
    with pytest.raises(ConfigError, match=r"^play: watch must be a function \(env, actions\) -> bool or None, got 3$"):
        play(env, both, seed=0, watch=3)
    assert play(env, both, seed=0)["finished"]
