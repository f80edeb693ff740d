"""Random Snack Time games through the AEC env: no error, every game ends within the bound, cards and
networks stay sound, scores equal an independent recomputation, the mask is never empty for the agent
to act (checked by `random_legal`)."""

from __future__ import annotations

import pytest

from snack_envs import snack_time_v0
from snack_envs.snack_time.components import BADGES, FIRST_TRAP
from tests.helpers import play_aec
from tests.snack_time.time_scripted import recomputed_score

CONFIGS = {
    "base": {},
    "rats": {"rat_snacks": True},
    "chosen_entrances": {"advanced_entrances": True},
    "deadly_traps": {"advanced_traps": True},
    "deadly_traps_killing_the_last_healthy_trait": {"advanced_traps": True, "killed_when": "no_healthy_trait"},
    "everything": {"rat_snacks": True, "advanced_entrances": True, "advanced_traps": True},
}


def check_end(game) -> None:
    """Each end reason given is true of the final state, and at least one is given."""
    assert game.game_over and game.end_reasons
    for reason in game.end_reasons:
        if reason == "the deck cannot refill the row":
            assert all(card >= FIRST_TRAP for card in game.deck)
        elif reason == "a player marked the last badge":
            assert BADGES in game.badges
        elif reason == "a player fed every creature 3 snacks":
            assert any(all(len(s) == 3 for s in sheet) for sheet in game.snacks)
        else:
            assert reason == "a creature was completely killed" and game.config["advanced_traps"]
            if game.config["killed_when"] == "all_slots":
                assert any(sum(c) == 4 for sheet in game.crossed for c in sheet)
            else:  # a damage crossed off a creature's last healthy trait (it may have drawn new traits since)
                assert any(sum(c) for sheet in game.crossed for c in sheet)


def run_random_games(num_players: int, options: dict, games: int, check_every: int, first_seed: int = 0) -> None:
    env = snack_time_v0.raw_env(num_players=num_players, **options)
    for seed in range(first_seed, first_seed + games):
        steps = 0

        def check(e):
            nonlocal steps
            steps += 1
            if steps % check_every == 0:
                assert e.game.invariant_violations() == [], f"seed {seed}, step {steps}"  # noqa: B023

        result = play_aec(env, seed, check)
        game = env.game
        assert result["steps"] <= env.max_steps, f"seed {seed}: {result['steps']} steps"
        check_end(game)
        assert game.invariant_violations() == []
        assert game.scores() == [float(recomputed_score(game, p)) for p in range(num_players)]


@pytest.mark.parametrize("config", list(CONFIGS))
@pytest.mark.parametrize("num_players", [1, 2, 4])
def test_random_games(num_players, config):
    run_random_games(num_players, CONFIGS[config], games=8, check_every=7)


@pytest.mark.slow
@pytest.mark.parametrize("config", list(CONFIGS))
@pytest.mark.parametrize("num_players", [1, 2, 4])
def test_1000_random_games(num_players, config):
    run_random_games(num_players, CONFIGS[config], games=1000, check_every=50, first_seed=10_000)


def test_the_largest_table_eight_players():
    run_random_games(8, CONFIGS["everything"], games=2, check_every=25)
