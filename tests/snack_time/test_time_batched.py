"""Snack Time's batched kernel beside the reference, on what the generic differential test does not
reach: how its chance is handed to the reference (scripted rolls in the state, the trap reshuffle
as `outcomes`' `trap_inserts`) and a loaded game's round trip."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba")
from snack_envs.core.batched import BatchedEnv  # noqa: E402
from snack_envs.snack_time.rules import MAX_ROUNDS  # noqa: E402


def test_a_trap_reshuffle_is_handed_to_the_public_export_as_its_scripted_inserts():
    """Advanced traps: every step's `outcomes` replay it on `venv.export`'s game, reshuffles included."""
    venv = BatchedEnv("snack_time_v0", num_envs=16, num_players=1, seed=4, advanced_traps=True, auto_reset=False)
    obs, mask, _ = venv.reset()
    rng = np.random.default_rng(0)
    reshuffles = 0
    while venv.live.any():
        games = {i: venv.export(i) for i in np.flatnonzero(venv.live)}
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in mask])
        obs, mask, *_ = venv.step(actions)
        for i, game in games.items():
            inserts = venv.outcomes(i).get("trap_inserts", [])
            reshuffles += len(inserts)
            game.apply(int(actions[i]), **venv.outcomes(i))
            assert game == venv.export(i), f"env {i}"
    assert reshuffles > 10
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
