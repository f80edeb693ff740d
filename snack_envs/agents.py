"""Policies that play any snack env from what a seat observes: random, heuristic, trained checkpoints.

A policy is any object with `act(observation, action_mask) -> int` (the two
arrays of an env's observation dict) and `reset(seed)` (called at the start of
each game, so stochastic policies are reproducible). The policies here take one
position at a time: a batch, a vector of another game's size or a mask that
allows nothing is a ValueError naming it (`core.rollout.check_position`). `make_policy(spec, ...)`
builds one from a short spec: "random", "heuristic", "lookahead" (`snack_envs.lookahead`: it
plays from the env's game, not the observation; see `uses_game`), "search" (Snack Time and Snack
Wars: `snack_envs.search`, also from the game), a checkpoint `.zip` (Stable-Baselines3) or an
RLlib checkpoint folder.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol

import numpy as np

from snack_envs import specs
from snack_envs.core.game import ConfigError, check_seed
from snack_envs.core.rollout import RandomPolicy  # noqa: F401 (defined beside SeededPolicy; its public name is here)


POLICY_NAMES = ("random", "heuristic", "lookahead", "search")  # the bots a spec names; else a checkpoint


class Policy(Protocol):
    name: str

    def reset(self, seed: int | None = None) -> None: ...

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int: ...


def heuristic_policy(env_name: str, num_players: int, **env_options) -> Policy:
    """The game's rule-based baseline (its `heuristic.HeuristicPolicy`)."""
    return specs.get(env_name).heuristic(num_players, **env_options)


def make_policy(spec: str | os.PathLike, env_name: str, num_players: int, seed: int | None = None,
                **env_options) -> Policy:
    """"random", "heuristic", "lookahead", "search", or the path of a checkpoint (.zip) trained on `env_name`,
    for a game of `num_players` with the env's keywords `env_options` (and the search's budget keywords; a
    ConfigError if the game is not played by that many, if an option is misspelt or out of range as the env
    would say, or if `seed` is neither None nor a non-negative int; the deterministic ones ignore it)."""
    game = specs.get(env_name)
    game.rules_class.check_num_players(num_players)
    check_seed(seed, "make_policy")
    if not isinstance(spec, (str, os.PathLike)):
        raise ConfigError(f"a policy is named by a string or a path, got {spec!r}: use "
                          f"{', '.join(map(repr, POLICY_NAMES))} or a checkpoint path")
    spec = os.fspath(spec)
    if spec == "heuristic":
        return heuristic_policy(env_name, num_players, **env_options)
    if spec == "lookahead":
        from snack_envs.lookahead import LookaheadPolicy

        return LookaheadPolicy(env_name, num_players, seed, **env_options)
    if spec == "search":
        from snack_envs.search import SearchPolicy

        return SearchPolicy(env_name, num_players, seed, **env_options)
    game.game_options(env_options)  # the bots above check theirs; the rest read none, but a misspelt one says so
    if spec == "random":
        return RandomPolicy(seed)
    if Path(spec).is_dir():  # an RLlib checkpoint folder (snack-train --backend rllib)
        from snack_envs.integrations.rllib import load_policy as load_rllib_policy

        return load_rllib_policy(spec, env_name=env_name, num_players=num_players)
    if spec.endswith(".zip") or Path(spec).exists():
        from snack_envs.checkpoints import load_policy

        return load_policy(spec, env_name=env_name, num_players=num_players)
    raise ConfigError(f"unknown policy {spec!r}: use {', '.join(map(repr, POLICY_NAMES))} or a checkpoint path")
