"""The env's observation at every step of whole games equals a fresh encoding: a brand-new
`SnackTimeEncoder` on a copy of the game (`Game.from_dict(game.to_dict())`). The env's encoder keeps its
last vectors and rewrites only what changed; any change it misses shows here as a stale entry."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from snack_envs import snack_time_v0
from snack_envs.snack_time.actions import DAMAGE_BASE, ENTRANCE_BASE
from snack_envs.snack_time.observation import LAYOUT, SnackTimeEncoder
from snack_envs.snack_time.rules import SnackTime

OPTION_SETS = [
    dict(rat_snacks=rats, advanced_entrances=entrances, advanced_traps=traps)
    for rats, entrances, traps in itertools.product((False, True), repeat=3)
] + [dict(advanced_traps=True, killed_when="no_healthy_trait")]
ALL_SEATS_EVERY = 5  # every this many steps, every seat's observation is checked, not only the mover's


def stale_fields(env, agents: list[str]) -> list[tuple[str, str]]:
    """(agent, slice) wherever `env.observe(agent)` differs from a fresh encoding of a copy of the game."""
    game = env.game
    copied = SnackTime.from_dict(game.to_dict())
    stale = []
    for agent in agents:
        fresh = SnackTimeEncoder(game.num_players, game.config).encode(copied, env.agent_seats[agent])
        seen = env.observe(agent)["observation"]
        if not np.array_equal(seen, fresh):
            parts = [name for name, part in LAYOUT.slices.items() if not np.array_equal(seen[part], fresh[part])]
            stale += [(agent, name) for name in parts or ["vector"]]
    return stale


def play_checking_every_step(num_players: int, options: dict, seed: int) -> dict:
    """A seeded random game to the end; returns how many decisions of each kind it had."""
    env = snack_time_v0.raw_env(num_players=num_players, **options)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    kinds = {"damage": 0, "entrance": 0, "steps": 0}
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        step = kinds["steps"]
        checked = env.agents if step % ALL_SEATS_EVERY == 0 else [agent]
        assert stale_fields(env, checked) == [], f"seed {seed}, step {step}"
        if term or trunc:
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        if DAMAGE_BASE <= action < ENTRANCE_BASE:
            kinds["damage"] += 1
        elif action >= ENTRANCE_BASE:
            kinds["entrance"] += 1
        env.step(action)
        kinds["steps"] += 1
    assert env.game.game_over
    return kinds


@pytest.mark.parametrize("options", OPTION_SETS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
@pytest.mark.parametrize("num_players", [1, 2, 4])
def test_every_observation_equals_a_fresh_encoding(num_players, options):
    kinds = {"damage": 0, "entrance": 0}
    for seed in range(2):
        for kind, count in play_checking_every_step(num_players, options, seed).items():
            kinds[kind] = kinds.get(kind, 0) + count
    assert kinds["damage"] > 0  # the games made damage choices (traps, Damage pedestrians)
    assert (kinds["entrance"] > 0) == options.get("advanced_entrances", False)
