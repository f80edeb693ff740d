"""Snack Time's batched kernel beside the reference, on what the generic differential test does not
reach: how its chance is handed to the reference (scripted rolls in the state, the trap reshuffle
replayed by the exported rng) and a loaded game's round trip."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")
from snack_envs.core.batched import BatchedEnv, below, seed_streams  # noqa: E402
from snack_envs.snack_time.batched import StreamReplay  # noqa: E402
from snack_envs.snack_time.rules import MAX_ROUNDS  # noqa: E402

import numba  # noqa: E402


@numba.njit(cache=True)
def _draws(state, n, out):
    for i in range(out.shape[0]):
        out[i] = below(state, 0, n + i)


def test_the_exported_rng_replays_the_kernel_stream():
    state = seed_streams(3, 1)
    replay = StreamReplay(state[0].copy())
    out = np.zeros(50, np.int64)
    _draws(state, 7, out)
    assert [replay.integers(7 + i) for i in range(50)] == out.tolist()


@pytest.mark.parametrize("options", [{}, {"rat_snacks": True, "advanced_entrances": True, "advanced_traps": True}])
def test_a_dealt_game_holds_its_dice_and_survives_a_round_trip(options):
    venv = BatchedEnv("snack_time_v0", num_envs=3, num_players=3, seed=1, **options)
    venv.reset()
    game = venv.export(0)
    assert not game.invariant_violations()
    assert venv.outcomes(0) == {}
    rolled = 1 if game.dice_traits else 0
    assert len(game.scripted_rolls) == MAX_ROUNDS - rolled  # the rolls of every round, drawn at the deal
    assert all((rat is not None) == options.get("rat_snacks", False) for _, _, rat in game.scripted_rolls)
    venv.load(2, game)
    assert venv.export(2) == game
    obs, mask, _ = venv.observe()
    assert np.array_equal(obs[2], obs[0]) and np.array_equal(mask[2], mask[0])
