"""Snack Wars as an env: observations, multi-step turns, the game-length bound, random-game invariants."""

from __future__ import annotations

import numpy as np
import pytest

from snack_envs import snack_wars_v0
from snack_envs.core.env import final_rewards
from snack_envs.snack_wars.components import copies_by_type
from snack_envs.snack_wars.observation import LAYOUT, WarsEncoder
from snack_envs.snack_wars.rules import CHOOSE, DISCARDING, NUM_ACTIONS, STOP_STEALING, SnackWars, steal_action
from tests.helpers import play_aec
from tests.snack_wars.wars_positions import (
    BURGER,
    CHEESE,
    CROISSANT,
    DONUT,
    FRENCH_B,
    JAPANESE_B,
    MACARON,
    MILKSHAKE,
    MULTI_B,
    RACCOON,
    RACCOON_B,
    RAMEN,
    SUSHI,
    TEMPURA,
    position,
    recomputed_scores,
)


def mathilde_position(**kw) -> SnackWars:
    return position(
        4,
        {0: {CROISSANT: 2, FRENCH_B: 1}, 1: {DONUT: 3, SUSHI: 2}, 2: {DONUT: 2, BURGER: 3}, 3: {TEMPURA: 2}},
        raccoons=[0, 1, 0, 2],
        draw=[RACCOON, CHEESE, RACCOON, SUSHI, RACCOON, CHEESE],
        **kw,
    )


# --- observations --------------------------------------------------------------------------------
def test_observation_slices_show_the_table_from_the_viewers_seat():
    game = mathilde_position()
    encoder = WarsEncoder(4, game.config)
    obs = LAYOUT.unpack(encoder.encode(game, seat=1))
    rows = obs["collections"].reshape(5, 14)
    assert rows[0][DONUT] == 3 and rows[0][SUSHI] == 2  # the viewer (seat 1) first
    assert rows[1][BURGER] == 3 and rows[2][TEMPURA] == 2 and rows[3][CROISSANT] == 2  # seats 2, 3, 0
    assert not rows[4].any()  # no fifth player
    assert list(obs["raccoons"]) == [1, 0, 2, 0, 0]
    assert list(obs["drawn"][[CHEESE, SUSHI, RACCOON]]) == [2, 1, 3] and obs["drawn"].sum() == 6
    assert list(obs["phase"]) == [1, 0, 0] and obs["steals_left"][0] == 0
    assert list(obs["to_act"]) == [0, 0, 0, 1, 0]  # seat 0 acts: three seats to the viewer's left
    assert list(obs["seated"]) == [1, 1, 1, 1, 0]
    assert obs["draw_pile_size"][0] == len(game.deck) == 60 - 15 - 3 - 6  # collections, raccoons, drawn

    game.apply(RACCOON)
    obs = LAYOUT.unpack(encoder.encode(game, seat=0))
    assert list(obs["phase"]) == [0, 1, 0] and obs["steals_left"][0] == 3
    assert list(obs["raccoons"]) == [3, 1, 0, 2, 0]
    # A steal's opponent r is row r of the thief's own view.
    rows = obs["collections"].reshape(5, 14)
    for r in (1, 2, 3):
        for kind in range(14):
            assert (steal_action(r, kind) in game.legal_actions()) == (rows[r][kind] > 0)
    game.apply(steal_action(2, BURGER))
    obs = LAYOUT.unpack(encoder.encode(game, seat=0))
    assert obs["stolen"][BURGER] == 1 and obs["steals_left"][0] == 2


def test_the_discard_pile_is_shown_and_the_draw_order_is_not():
    a = mathilde_position()
    b = mathilde_position()
    b.deck = list(reversed(b.deck))  # differs only in the hidden order of the draw pile
    assert a.deck != b.deck
    encoder = WarsEncoder(4, a.config)
    for seat in range(4):
        assert np.array_equal(encoder.encode(a, seat), encoder.encode(b, seat))
    a.apply(CHEESE)
    obs = LAYOUT.unpack(encoder.encode(a, 0))
    assert list(obs["discard"][[SUSHI, RACCOON]]) == [1, 3]


def test_the_docstring_documents_every_slice_and_the_action_space():
    doc = snack_wars_v0.__doc__
    for field in LAYOUT.fields:
        assert f"`{field.name}`" in doc
    assert f"Discrete({NUM_ACTIONS})" in doc and f"Box({LAYOUT.size},)" in doc


# --- a turn of several decisions --------------------------------------------------------------------
def test_a_turn_with_several_decisions_is_several_steps_by_the_same_agent():
    env = snack_wars_v0.raw_env(num_players=4)
    env.reset(seed=0)
    env.game = mathilde_position()
    thief = env.seat_agents[0]
    env.agent_selection = thief
    for action in (RACCOON, steal_action(1, DONUT), steal_action(2, DONUT)):
        env.step(action)
        assert env.agent_selection == thief
        mask = env.observe(thief)["action_mask"]
        assert mask[STOP_STEALING] == 1 and all(env.observe(a)["action_mask"].sum() == 0 for a in env.agents if a != thief)
    env.step(steal_action(3, TEMPURA))  # the third and last steal ends the turn
    assert env.agent_selection == env.seat_agents[1]
    assert env.game.phase == CHOOSE and env.game.raccoons[0] == 3


def test_a_finished_game_pays_the_core_rewards():
    best = {CHEESE: 1, TEMPURA: 1, DONUT: 1, BURGER: 1, CROISSANT: 1, RAMEN: 1, SUSHI: 1, MULTI_B: 1, RACCOON_B: 1}
    game = position(2, {0: best, 1: {MACARON: 5, MILKSHAKE: 3, JAPANESE_B: 1}}, raccoons=[10, 0])
    assert game.game_over and game.scores() == [57.0, 3.0]
    assert final_rewards(game, "score") == [1.0, 3.0 / 57.0]  # the best score possible maps to 1
    assert final_rewards(game, "win") == [1.0, -1.0]


# --- the game-length bound ------------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_the_default_bound_is_9n_plus_20_decisions(num_players):
    assert snack_wars_v0.raw_env(num_players=num_players).max_steps == 9 * num_players + 20


def longest_policy(game: SnackWars, legal: list[int]) -> int:
    """Makes games long: raccoons first, steal one card at a time, take the fewest cards possible."""
    if RACCOON in legal:
        return RACCOON
    steals = [a for a in legal if a != STOP_STEALING]
    if game.phase != CHOOSE:
        return steals[0] if steals else legal[0]
    return min(legal, key=lambda a: (game.drawn[a], a))


@pytest.mark.parametrize("num_players", [2, 5])
def test_games_played_to_be_long_still_end_within_the_bound(num_players):
    env = snack_wars_v0.raw_env(num_players=num_players)
    longest = 0
    for seed in range(100):
        env.reset(seed=seed)
        steps = 0
        while not env.terminations[env.agent_selection]:
            assert not env.truncations[env.agent_selection]
            seat = env.agent_seats[env.agent_selection]
            env.step(longest_policy(env.game, env.game.legal_actions(seat)))
            steps += 1
        longest = max(longest, steps)
    assert env.game.game_over and longest <= env.max_steps


# --- random games ---------------------------------------------------------------------------------
def run_random_games(num_players: int, games: int, food_copies: str = "equal") -> None:
    env = snack_wars_v0.raw_env(num_players=num_players, food_copies=food_copies)

    def check(e):
        game = e.game
        assert game.invariant_violations() == []
        assert game.phase != DISCARDING  # cannot arise in play (see the rules' docstring)
        if not game.game_over and game.phase == CHOOSE:
            # A full draw: collection plus drawn cards make 9, so the food taken always fits.
            assert sum(game.drawn) + sum(game.collections[game.current_player]) == 9
        # The draw pile's contents are the cards shown nowhere else in the observation.
        obs = LAYOUT.unpack(e.encoder.encode(game, 0))
        shown = obs["collections"].reshape(5, 14).sum(0).tolist() + [obs["raccoons"].sum()]
        shown = [s + d + x for s, d, x in zip(shown, obs["drawn"], obs["discard"])]
        copies = copies_by_type(food_copies)
        assert [c - s for c, s in zip(copies, shown)] == [game.deck.count(t) for t in range(15)]
        assert obs["draw_pile_size"][0] == len(game.deck)

    for seed in range(games):
        result = play_aec(env, seed, check)  # asserts a non-empty mask for the agent to act
        game = env.game
        assert game.game_over, f"seed {seed}: truncated after {result['steps']} steps"
        assert result["steps"] <= env.max_steps
        assert all(sum(c) == 9 for c in game.collections)
        assert game.scores() == recomputed_scores(game.collections, game.raccoons)
        assert max(game.scores()) <= game.score_range[1]


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_random_games_keep_every_card_and_end(num_players):
    run_random_games(num_players, games=150)


def test_random_games_with_value_copies():
    run_random_games(3, games=150, food_copies="value")


@pytest.mark.slow
@pytest.mark.parametrize("food_copies", ["equal", "value"])
@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_2000_random_games(num_players, food_copies):
    run_random_games(num_players, games=2000, food_copies=food_copies)
