"""The Snack Wars heuristic bot: legal play, clear decisions in set positions, and a clear win over random."""

from __future__ import annotations

import pytest

from snack_envs.agents import RandomPolicy, heuristic_policy
from snack_envs.single_agent import SingleAgentEnv
from snack_envs.snack_wars.heuristic import HeuristicPolicy
from snack_envs.snack_wars.observation import WarsEncoder
from snack_envs.snack_wars.rules import DISCARD, DISCARDING, STEALING, STOP_STEALING, SnackWars, steal_action
from tests.helpers import Checked, play_first_legal
from tests.snack_wars.wars_positions import (
    BURGER,
    CHEESE,
    CROISSANT,
    DONUT,
    MACARON,
    MILKSHAKE,
    MULTI_B,
    RACCOON,
    RAMEN,
    SUSHI,
    TEMPURA,
    position,
)
from snack_envs.training.evaluate import head_to_head, play_game


def decision(game: SnackWars, seat: int = 0) -> int:
    """What the heuristic in `seat` plays, from that seat's observation and mask only."""
    policy = HeuristicPolicy(game.num_players, **game.config)
    observation = WarsEncoder(game.num_players, game.config).encode(game, seat)
    return policy.act(observation, game.action_mask(seat))


# --- legal play ------------------------------------------------------------------------------------
@pytest.mark.parametrize("food_copies", ["equal", "value"])
@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_it_plays_only_legal_actions(num_players, food_copies):
    bot = Checked(heuristic_policy("snack_wars_v0", num_players, food_copies=food_copies))
    for seed in range(24):
        # Alternate mixed tables (bot and random seats, both kinds in every seat) and all-bot tables.
        lineup = [bot if seed % 3 == 2 or (seat + seed) % 2 else RandomPolicy() for seat in range(num_players)]
        result = play_game("snack_wars_v0", lineup, seed=seed, num_players=num_players, food_copies=food_copies)
        assert result["finished"]
    assert bot.decisions > 24 * num_players


def test_it_serves_as_the_opponent_of_a_single_agent_env():
    env = SingleAgentEnv("snack_wars_v0", opponents=["heuristic"], num_players=3, food_copies="value")
    assert env.opponent_pool[0].name == "heuristic" and env.opponent_pool[0].copies == tuple(range(1, 10))
    terminated, info = play_first_legal(env, seed=1)
    assert terminated and not info.get("illegal_action")


# --- set positions ---------------------------------------------------------------------------------
def test_it_takes_the_food_that_wins_a_majority_over_a_higher_one_that_does_not():
    # The rival holds 2 cheeses: one more cheese wins nothing; a first donut wins the donut majority.
    game = position(2, {0: {SUSHI: 2, RAMEN: 2, BURGER: 3}, 1: {CHEESE: 2, MILKSHAKE: 3}}, draw=[CHEESE, DONUT])
    assert decision(game) == DONUT


def test_it_takes_one_valuable_card_rather_than_many_cheap_ones():
    # Four macarons would win the macaron majority (1 point) but fill four slots.
    game = position(2, {1: {SUSHI: 2}}, draw=[MACARON] * 4 + [CHEESE, SUSHI, SUSHI, RAMEN, RAMEN])
    assert decision(game) == CHEESE


def test_it_takes_the_multicolour_card_once_it_holds_every_family():
    game = position(2, {0: {CROISSANT: 1, SUSHI: 1, BURGER: 1}, 1: {RAMEN: 2}},
                    draw=[MULTI_B, MACARON, MACARON, MILKSHAKE, MILKSHAKE, SUSHI])
    assert decision(game) == MULTI_B


def test_with_nothing_worth_a_slot_it_takes_the_raccoons_which_fill_none():
    # Every food drawn is either held in majority by the rival already or worth a point or two.
    game = position(2, {0: {SUSHI: 3}, 1: {CHEESE: 3, MACARON: 3}},
                    draw=[RACCOON, MACARON, MACARON, CHEESE, MILKSHAKE, MILKSHAKE])
    assert decision(game) == RACCOON


def test_it_steals_the_card_that_breaks_the_rivals_majority():
    # All five cheeses are held: the rival's 3 against 2 is safe, one steal turns it into 3 against 2 for the thief.
    game = position(2, {0: {CHEESE: 2, SUSHI: 3}, 1: {CHEESE: 3, MACARON: 3, MILKSHAKE: 2}},
                    draw=[RACCOON, RAMEN, RAMEN, BURGER])
    game.apply(RACCOON)
    assert game.phase == STEALING
    assert decision(game) == steal_action(1, CHEESE)
    game.apply(steal_action(1, CHEESE))
    assert game.collections[0][CHEESE] == 3 and game.collections[1][CHEESE] == 2


def test_it_steals_from_the_rival_whose_majority_breaks():
    # Four players, value n has n copies: every tempura (8) is held, seat 2 leads with 4 against 3 and 1.
    # One taken from seat 2 wins the majority; one taken from seat 1 only ties it.
    game = position(4, {0: {TEMPURA: 3, SUSHI: 1}, 1: {TEMPURA: 1, BURGER: 3}, 2: {TEMPURA: 4, MILKSHAKE: 2},
                        3: {DONUT: 3, CHEESE: 3}},
                    draw=[RACCOON, RACCOON, RAMEN, RAMEN, CROISSANT], food_copies="value")
    game.apply(RACCOON)
    assert decision(game) == steal_action(2, TEMPURA)


def test_it_stops_stealing_when_no_steal_gains_anything():
    # The rival holds only cards whose majorities are the thief's already, or worth a point.
    game = position(2, {0: {DONUT: 3, SUSHI: 3}, 1: {DONUT: 1, MACARON: 1}}, draw=[RACCOON, RAMEN, RAMEN])
    game.apply(RACCOON)
    assert game.phase == STEALING and decision(game) == STOP_STEALING


def test_it_discards_the_least_valuable_stolen_card():
    """A thief past 9 (a hand-set position, as in the rules' tests) keeps the donut that wins a majority."""
    game = position(2, {0: {SUSHI: 3, RAMEN: 3}, 1: {DONUT: 1, MACARON: 3, CHEESE: 3}}, draw=[RACCOON, RACCOON, RACCOON])
    game.apply(RACCOON)
    game.deck.remove(CROISSANT), game.deck.remove(CROISSANT)
    game.collections[0][CROISSANT] += 2
    game.state_changed()
    game.apply(steal_action(1, DONUT))
    game.apply(steal_action(1, MACARON))
    game.apply(STOP_STEALING)
    assert game.phase == DISCARDING and game.legal_actions() == [DISCARD + MACARON, DISCARD + DONUT]
    assert decision(game) == DISCARD + MACARON


# --- strength --------------------------------------------------------------------------------------
def test_it_beats_random_clearly():
    """300 two-player games, seats alternated. Measured over 1000 games (seed 0): 0.990, Wilson 95% [0.982, 0.995]."""
    result = head_to_head("snack_wars_v0", HeuristicPolicy(2), RandomPolicy(0), games=300, num_players=2, seed=0)
    assert result["unfinished"] == 0
    assert result["win_rate_ci95"][0] > 0.9, result
