"""The Speed Snacks heuristic bot: legal play with every module, clear decisions in set positions, its memory
in "sizes" mode, and a clear win over random."""

from __future__ import annotations

from itertools import product

import pytest

from snack_envs import speed_snacks_v1
from snack_envs.agents import RandomPolicy, heuristic_policy
from snack_envs.single_agent import SingleAgentEnv
from snack_envs.speed_snacks.heuristic import HeuristicPolicy
from snack_envs.speed_snacks.observation import SpeedSnacksEncoder
from snack_envs.speed_snacks.rules import (
    CUSTOMER,
    DRAW_XXL,
    HURRY,
    INSPECT,
    INSPECTION,
    KITCHEN,
    MENU,
    MENU_CHANGE,
    MENU_KEEP,
    MENU_POINT,
    MENU_TOQUE,
    MODULES,
    NEW_CUSTOMER,
    NEW_KITCHEN,
    PLAY,
    TAKE_DISH,
    WAIT,
    XXL_PLACE,
    SpeedSnacks,
)
from tests.helpers import Checked, play_first_legal
from tests.speed_snacks.scripted import BURGER, DONER, FRIES, HOTDOG, HU, PIZZA, ROACH, SUSHI, table
from snack_envs.training.evaluate import head_to_head, play_game

ENV = "speed_snacks_v1"
ALL_MODULES = dict.fromkeys(MODULES, True)


def decision(game: SpeedSnacks, seat: int = 0) -> int:
    """What the heuristic in `seat` plays, from that seat's observation and mask only."""
    policy = HeuristicPolicy(2, **game.config)
    observation = SpeedSnacksEncoder(2, game.config).encode(game, seat)
    return policy.act(observation, game.action_mask(seat))


def end_play(game: SpeedSnacks) -> None:
    """Seat 0 places the 4th Hurry-up (in hand, at most one customer pile open): the round's play ends."""
    assert game.hurry_ups == 3 and game.hands[0] == HU and len(game.legal_actions(0)) == 1
    game.apply_joint([game.legal_actions(0)[0], WAIT])
    assert game.phase != PLAY


CLOSED = [[SUSHI, HU], [DONER, HU], [FRIES, HU]]  # three closed orders: one of each


# --- legal play ------------------------------------------------------------------------------------
@pytest.mark.parametrize("flags", list(product([False, True], repeat=len(MODULES))),
                         ids=lambda flags: "".join("1" if f else "0" for f in flags))
def test_it_plays_only_legal_actions(flags):
    for seed in range(3):
        options = dict(zip(MODULES, flags), kitchen_obs="sizes" if seed == 1 else "placed")
        if seed == 2:
            options.update(speed_0=0.6, speed_1=0.9, idle_ticks=1)
        bots = [Checked(heuristic_policy(ENV, 2, **options)) for _ in range(2)]
        # Against random in either seat, and (seed 2) against itself: one policy object per seat.
        lineup = bots if seed == 2 else [bots[0], RandomPolicy(seed)][:: 1 if seed else -1]
        result = play_game(ENV, lineup, seed=seed, **options)
        assert result["finished"]
    assert bots[0].decisions > 50


def test_it_serves_as_the_opponent_of_a_single_agent_env():
    """The simultaneous case: the opponent acts in the same tick as the learner."""
    env = SingleAgentEnv(ENV, opponents=["heuristic"], kitchen_obs="sizes", **ALL_MODULES)
    assert env.opponent_pool[0].name == "heuristic" and not env.opponent_pool[0].placed
    terminated, info = play_first_legal(env, seed=1)
    assert terminated and not info.get("illegal_action")


def test_in_sizes_mode_it_remembers_its_tops_and_plays_as_if_it_saw_them():
    """With kitchen_obs="sizes" it tracks its own top cards (slow players: some actions miss) and decides as
    the same bot reading them from a "placed" observation would (XXL cards aside: their snack stays hidden)."""
    options = dict(health_department=True, dish_of_the_day=True, menu=True, speed_0=0.7, speed_1=0.8)
    env = speed_snacks_v1.raw_parallel_env(shuffle_seats=False, kitchen_obs="sizes", **options)
    observations, _ = env.reset(seed=3)
    game = env.game
    placed = SpeedSnacksEncoder(2, dict(game.config, kitchen_obs="placed"))
    bots = [HeuristicPolicy(2, kitchen_obs="sizes", **options) for _ in range(2)]
    twins = [HeuristicPolicy(2, kitchen_obs="placed", **options) for _ in range(2)]
    checked = 0
    while env.agents:
        actions = {}
        for seat, agent in enumerate(env.possible_agents):
            obs = observations[agent]
            phase, tops = game.phase, [pile[-1] for pile in game.kitchens[seat]]
            twin = twins[seat].act(placed.encode(game, seat), obs["action_mask"])
            actions[agent] = bots[seat].act(obs["observation"], obs["action_mask"])
            if phase == PLAY:
                assert bots[seat].memory[: len(tops)] == tops
                checked += len(tops)
            assert actions[agent] == twin
        observations, *_ = env.step(actions)
    assert checked > 500


# --- set positions ---------------------------------------------------------------------------------
def test_it_covers_a_kitchen_top_nobody_orders_and_never_one_in_demand():
    game = table(customer=[[HOTDOG], [BURGER, HOTDOG], [SUSHI]],
                 kitchens=([[HOTDOG], [FRIES], [PIZZA], [DONER], [BURGER]], ()), hands=(SUSHI, BURGER))
    assert decision(game) in (KITCHEN + 1, KITCHEN + 2, KITCHEN + 3, KITCHEN + 4)


def test_it_puts_a_snack_in_the_kitchen_where_it_is_ordered():
    # Two hot dog orders: a hot dog on the kitchen pile whose fries nobody wants is worth 2 points.
    game = table(customer=[[HOTDOG], [HOTDOG], [PIZZA]],
                 kitchens=([[PIZZA], [FRIES], [PIZZA], [SUSHI, PIZZA], [BURGER, PIZZA]], ()), hands=(HOTDOG, BURGER))
    assert decision(game) == KITCHEN + 1


def test_it_creates_demand_for_its_own_tops_without_covering_one_of_its_orders():
    # Three pizzas on top in its kitchen: a pizza order is worth 3; covering the fries order would cost 1.
    game = table(customer=[[FRIES], [SUSHI], [DONER]],
                 kitchens=([[PIZZA], [PIZZA], [PIZZA], [FRIES], [BURGER]], ()), hands=(PIZZA, BURGER))
    assert decision(game) in (CUSTOMER + 1, CUSTOMER + 2, NEW_CUSTOMER)


def test_a_hurry_up_locks_in_the_order_that_favours_it_most():
    game = table(customer=[[SUSHI], [PIZZA], [HOTDOG]], kitchens=([[PIZZA], [PIZZA], [BURGER]], [[FRIES]]),
                 hands=(HU, BURGER))
    assert decision(game) == HURRY + 1


def test_a_cockroach_goes_onto_a_cockroach_else_a_free_pile_else_the_top_worth_least():
    """As the module docstring says: a snack on top keeps its POTENTIAL whatever its orders, so with a pile free
    the cockroach opens it rather than bury fries nobody orders (the docstring said it buried them)."""
    game = table(customer=[[HOTDOG], [PIZZA]], kitchens=([[HOTDOG], [SUSHI, ROACH], [PIZZA]], ()),
                 hands=(ROACH, BURGER), health_department=True)
    assert decision(game) == KITCHEN + 1
    game = table(customer=[[HOTDOG], [PIZZA]], kitchens=([[HOTDOG], [FRIES]], ()), hands=(ROACH, BURGER),
                 health_department=True)
    assert decision(game) == NEW_KITCHEN
    game = table(customer=[[HOTDOG], [PIZZA], [SUSHI], [BURGER]],
                 kitchens=([[HOTDOG], [PIZZA], [FRIES], [BURGER], [SUSHI]], ()), hands=(ROACH, BURGER),
                 health_department=True)
    assert decision(game) == KITCHEN + 2


def test_it_takes_the_dish_of_the_day_matching_most_of_its_tops():
    kitchen = [[PIZZA], [PIZZA], [BURGER], [PIZZA]]
    game = table(customer=[[BURGER]], kitchens=(kitchen, ()), hands=(SUSHI, BURGER), dish_of_the_day=True)
    assert decision(game) == TAKE_DISH + PIZZA
    game = table(customer=[[BURGER]], kitchens=(kitchen, ()), hands=(SUSHI, BURGER), dish=(None, PIZZA),
                 dish_of_the_day=True)
    assert decision(game) not in range(TAKE_DISH, TAKE_DISH + 6)  # the opponent has the pizza: one burger is too few


def test_it_fills_its_xxl_card_only_with_the_snack_it_asks_for():
    game = table(customer=[[SUSHI]], kitchens=([[FRIES]], ()), hands=(PIZZA, BURGER),
                 xxl_cards=([(PIZZA, [PIZZA, PIZZA])], ()), xxl=True)
    assert decision(game) == XXL_PLACE
    game = table(customer=[[SUSHI]], kitchens=([[FRIES]], ()), hands=(SUSHI, BURGER),
                 xxl_cards=([(PIZZA, [PIZZA]), (FRIES, [FRIES, FRIES, FRIES])], ()), xxl=True)
    assert decision(game) not in (XXL_PLACE, XXL_PLACE + 1)


def test_it_draws_an_xxl_card_early_in_a_round_only():
    game = table(hands=(SUSHI, PIZZA), xxl=True)
    assert decision(game) == DRAW_XXL
    assert decision(table(hands=(SUSHI, PIZZA), xxl=True, kitchen_obs="sizes")) != DRAW_XXL  # it would see the snack once only
    late = table(customer=[[SUSHI, HU], [PIZZA, HU]], hands=(SUSHI, PIZZA), xxl=True)
    assert decision(late) != DRAW_XXL


def test_it_inspects_the_biggest_pile_whatever_lies_face_down_on_top():
    # The tops are still face down during the inspection: a cockroach on top cannot draw the inspector.
    for top in (ROACH, SUSHI):
        game = table(customer=CLOSED, kitchens=([[PIZZA]], [[SUSHI], [DONER, FRIES, PIZZA, BURGER], [PIZZA, top]]),
                     hands=(HU, BURGER), health_department=True)
        end_play(game)
        assert game.phase == INSPECTION and decision(game) == INSPECT + 1


def test_menu_cards_buy_a_toque_when_they_can():
    game = table(customer=CLOSED, kitchens=([[SUSHI]], [[DONER]]), hands=(HU, BURGER), fulfilled=(3, 0), menu=True)
    end_play(game)
    assert game.phase == MENU and decision(game) == MENU_TOQUE


def test_menu_cards_turn_a_lost_round_and_are_kept_otherwise():
    # Orders: sushi twice, Döner and fries once. Menu hands that no top fulfils.
    menus = dict(menu_hands=([(BURGER, HOTDOG)], [(HOTDOG, FRIES)]), menu=True)
    customer = CLOSED + [[SUSHI]]

    def scoring(mine, theirs, fulfilled):
        game = table(customer=customer, kitchens=(mine, theirs), hands=(HU, BURGER), fulfilled=fulfilled, **menus)
        end_play(game)
        assert game.phase == MENU
        return game

    behind = ([[DONER], [PIZZA]], [[SUSHI], [PIZZA]])  # 1 point against 2
    assert decision(scoring(*behind, (1, 0))) == MENU_POINT  # a tie: a toque for each
    assert decision(scoring(*behind, (2, 0))) == MENU_CHANGE + 6 * 1 + SUSHI  # the pizza counts as sushi: a win
    assert decision(scoring([[DONER], [PIZZA]], [[SUSHI], [FRIES]], (1, 0))) == MENU_KEEP  # 1 against 3: no help
    # 3 against 1, deciding first: the opponent's one Menu card can only bring it to 2.
    assert decision(scoring([[SUSHI], [DONER]], [[FRIES]], (2, 1))) == MENU_KEEP


def test_it_lets_the_round_end_when_well_ahead_and_the_opponent_waits():
    def two_ticks(my_tops, opponent_action):
        """Its decision after a tick in which it placed a card and the opponent did `opponent_action`."""
        game = table(customer=[[PIZZA], [PIZZA], [PIZZA]], kitchens=(my_tops, ()), hands=(SUSHI, BURGER))
        bot = HeuristicPolicy(2)
        encoder = SpeedSnacksEncoder(2, game.config)
        first = bot.act(encoder.encode(game, 0), game.action_mask(0))
        assert first != WAIT
        game.apply_joint([first, opponent_action])
        return bot, game, bot.act(encoder.encode(game, 0), game.action_mask(0))

    bot, game, action = two_ticks([[PIZZA], [PIZZA]], WAIT)  # 6 points against none
    assert action == WAIT
    game.apply_joint([WAIT, WAIT])
    assert game.idle == 1 and bot.act(SpeedSnacksEncoder(2, game.config).encode(game, 0), game.action_mask(0)) == WAIT
    assert two_ticks([[PIZZA], [PIZZA]], NEW_KITCHEN)[2] != WAIT  # the opponent plays on
    assert two_ticks([[PIZZA], [SUSHI]], WAIT)[2] != WAIT  # 3 points: not enough of a lead


# --- strength --------------------------------------------------------------------------------------
@pytest.mark.parametrize("options", [{}, ALL_MODULES], ids=["no modules", "all modules"])
def test_it_beats_random_clearly(options):
    """300 games, seats alternated. Measured over 1000 games (seed 0), with no modules and with all four: 1000 wins
    each, Wilson 95% [0.996, 1.000]; random took 0.14 (no modules) and 0.02 (all modules) toques a game."""
    result = head_to_head(ENV, HeuristicPolicy(2, **options), RandomPolicy(0), games=300, seed=0, **options)
    assert result["unfinished"] == 0
    assert result["win_rate_ci95"][0] > 0.95, result
