"""The one loop that plays an episode of any snack env; every tool that runs games uses it.

    from snack_envs import specs
    from snack_envs.agents import RandomPolicy
    from snack_envs.core.rollout import play
    env = specs.get("snack_wars_v0").raw_env(num_players=3, shuffle_seats=False)
    result = play(env, {agent: RandomPolicy() for agent in env.possible_agents}, seed=0)

It drives a raw env of either API: an AEC env (turn-based games: the agent
to act moves) or a ParallelEnv (simultaneous games: every agent in the
episode moves each step), until the episode ends.

A policy with `uses_game = True` (`GamePolicy`: `snack_envs.lookahead`, `snack_envs.search`)
is asked `act_game(env.game, seat)` with its agent's seat instead of `act(observation, action_mask)`.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np
from pettingzoo import ParallelEnv

from snack_envs.core.game import ConfigError, check_seed

Watcher = Callable[[Any, "dict[str, int] | None"], "bool | None"]


class SeededPolicy:
    """The base of the policies that draw from their own rng: `reset(seed)` (at the start of each game,
    `policy_seed`) reseeds it, so that a game replays alike."""

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(check_seed(seed, type(self).__name__))

    def reset(self, seed: int | None = None) -> None:
        if check_seed(seed, type(self).__name__) is not None:
            self.rng = np.random.default_rng(seed)


def check_mask(who: str, action_mask: Any, num_actions: int | None = None) -> np.ndarray:
    """`action_mask` as an array if it is one position's mask (of `num_actions` entries, unless None) that
    allows at least one action; else a ValueError naming `who` and what is wrong."""
    action_mask = _one_position(who, "action mask", action_mask, num_actions)
    if not action_mask.any():
        raise ValueError(f"{who}: the action mask allows no action (an agent that is done steps with None)")
    return action_mask


def check_position(who: str, observation: Any, action_mask: Any, size: int | None = None,
                   num_actions: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The `Policy.act` input as arrays: one observation vector of `size` entries and one action mask of
    `num_actions` (either not checked where None) allowing at least one action; else a ValueError that
    names `who` and what is wrong (a batch, a vector of another game, a done agent's empty mask)."""
    return (_one_position(who, "observation", observation, size),
            check_mask(who, action_mask, num_actions))


def _one_position(who: str, what: str, value: Any, length: int | None) -> np.ndarray:
    array = np.asarray(value)
    if array.ndim != 1 or (length is not None and len(array) != length):
        expected = f"shape ({length},)" if length is not None else "one axis"
        batch = " (one position is asked for, not a batch)" if array.ndim > 1 else ""
        raise ValueError(f"{who}: an {what} must have {expected}; got shape {array.shape}{batch}")
    return array


class RandomPolicy(SeededPolicy):
    """Uniform over the legal actions (public as `snack_envs.agents.RandomPolicy`)."""

    name = "random"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        action_mask = check_mask("RandomPolicy", action_mask)  # it plays any game: the observation is not read
        legal = np.flatnonzero(action_mask)
        return int(legal[self.rng.integers(len(legal))])


class GamePolicy(SeededPolicy):
    """The base of the bots that play from the env's game, not from an observation (`uses_game`): their
    `act` says to call `act_game(game, seat)` instead."""

    name = "game policy"
    uses_game = True

    @staticmethod
    def check_num_players(env_name: str, num_players: Any) -> int:
        """`num_players` if a game of `env_name` is played by that many, else a ConfigError."""
        from snack_envs import specs

        return specs.get(env_name).rules_class.check_num_players(num_players)

    @staticmethod
    def check_env_options(env_name: str, env_options: dict[str, Any]) -> dict[str, Any]:
        """`env_options`, the keywords of an env of `env_name`, checked: `GameSpec.game_options`."""
        from snack_envs import specs

        return specs.get(env_name).game_options(env_options)

    def check_game(self, game: Any, seat: Any) -> None:
        """Refuse a position this bot cannot play, naming it: a game other than its `env_name`'s, one of
        another player count than it was made for (`num_players`), or a seat that is not an int of the game."""
        from snack_envs import specs

        rules_class = specs.get(self.env_name).rules_class
        if not isinstance(game, rules_class):
            raise ConfigError(f"{self.name}: this bot plays {rules_class.__name__} ({self.env_name}); the game "
                              f"given is a {type(game).__name__}")
        if game.num_players != self.num_players:
            raise ConfigError(f"{self.name}: this bot was made for {self.num_players} players, the game has "
                              f"{game.num_players}")
        if not game.is_seat(seat):
            raise ConfigError(f"{self.name}: seat must be an int in 0..{game.num_players - 1}, got {seat!r}")

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        raise TypeError(
            f"{type(self).__name__} plays from the rules engine, not from an observation: call "
            "act_game(game, seat) with the env's game (core.rollout.play does so for a policy with uses_game)"
        )

    def act_game(self, game: Any, seat: int) -> int:
        raise NotImplementedError


def policy_seed(seed: int | None, seat: int) -> int | None:
    """The seed each policy is reset with at the start of a game, so stochastic policies replay alike."""
    return None if seed is None else seed * 97 + seat


def is_policy(player: Any) -> bool:
    """Whether `player` plays as a policy: it has `reset(seed)`, and `act(observation, action_mask)` or, with
    `uses_game`, `act_game(game, seat)`."""
    return hasattr(player, "reset") and (
        hasattr(player, "act") or (getattr(player, "uses_game", False) and hasattr(player, "act_game")))


def check_players(env, policies: Any) -> None:
    """`policies` must map each of `env`'s agents, and nothing else, to a policy (`is_policy`), else a
    ConfigError naming what is wrong."""
    if not isinstance(policies, Mapping):
        raise ConfigError(f"play: policies must be a dict agent -> policy, got {policies!r}")
    agents = list(env.possible_agents)
    missing, unknown = [a for a in agents if a not in policies], [a for a in policies if a not in agents]
    if missing or unknown:
        raise ConfigError(f"play: policies must be given for exactly the agents {agents}: missing {missing}, "
                          f"not agents of the game {unknown}")
    for agent in agents:
        if not is_policy(policies[agent]):
            raise ConfigError(f"play: the policy of {agent} is no policy (reset, and act or act_game): "
                              f"{policies[agent]!r}")


def play(env, policies: Mapping[str, Any], seed: int | None = None, watch: Watcher | None = None) -> dict:
    """Reset `env` with `seed` and play it to the end with `policies` (agent -> Policy).

    Each policy is reset first (`policy_seed`). `watch(env, actions)` is called after the reset
    (actions None) and after every step (the actions of that step, agent -> action); when it returns
    True the episode stops there. Returns, by seat: `scores` and `winners` (None while unfinished),
    `finished` (the game ended by its rules), `truncated`, and `steps` (env steps taken)."""
    seed = check_seed(seed, "play")
    check_players(env, policies)
    if watch is not None and not callable(watch):
        raise ConfigError(f"play: watch must be a function (env, actions) -> bool or None, got {watch!r}")
    for seat, agent in enumerate(env.possible_agents):
        policies[agent].reset(policy_seed(seed, seat))
    parallel = isinstance(env, ParallelEnv)
    if parallel:
        observations, _ = env.reset(seed=seed)
    else:
        env.reset(seed=seed)
    steps, stopped = 0, bool(watch and watch(env, None))
    while not stopped:
        if parallel:
            if not env.agents:
                break
            actions = {
                a: policies[a].act_game(env.game, env.agent_seats[a]) if getattr(policies[a], "uses_game", False)
                else policies[a].act(observations[a]["observation"], observations[a]["action_mask"])
                for a in env.agents
            }
            observations, *_ = env.step(actions)
        else:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                break
            policy = policies[agent]
            if getattr(policy, "uses_game", False):
                actions = {agent: policy.act_game(env.game, env.agent_seats[agent])}
            else:
                obs = env.observe(agent)
                actions = {agent: policy.act(obs["observation"], obs["action_mask"])}
            env.step(actions[agent])
        steps += 1
        stopped = bool(watch and watch(env, actions))
    game = env.game
    finished = game.game_over
    return {
        "scores": game.scores() if finished else None,
        "winners": game.winners() if finished else None,
        "finished": finished,
        "truncated": not finished and not stopped,
        "steps": steps,
    }
