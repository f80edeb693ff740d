"""Snack Rabbits' native heuristic chooses exactly what the Python bot chooses."""

from __future__ import annotations

import numpy as np
import pytest

from snack_envs import specs
from tests.helpers import option_sets

pytest.importorskip("numba")
from snack_envs import batched  # noqa: E402

SPEC = specs.get("snack_rabbits_v0")


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_the_native_heuristic_picks_the_python_bots_action(num_players):
    """Over 10,000+ positions of half-bot, half-random play, every option set."""
    positions = 0
    for k, options in enumerate(option_sets(SPEC.rules_class)):
        venv = batched.make(SPEC.env_name, num_envs=64, num_players=num_players, seed=k, **options)
        bot = SPEC.heuristic(num_players, **options)
        obs, mask, player = venv.reset()
        rng = np.random.default_rng(k)
        for _ in range(60):
            native = venv.kernel.heuristic_actions(obs, mask)
            python = np.array([bot.act(obs[i], mask[i]) for i in range(len(obs))])
            assert np.array_equal(native, python), np.flatnonzero(native != python)
            positions += len(obs)
            random = (rng.random(mask.shape) * mask).argmax(1)
            obs, mask, player, *_ = venv.step(np.where(rng.random(len(obs)) < 0.5, native, random))
    assert positions >= 10_000
