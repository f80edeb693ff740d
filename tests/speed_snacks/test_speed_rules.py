"""Speed Snacks against its rulebook: components, the worked examples, scripted ticks, every module's rules."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from snack_envs.core.game import ConfigError, IllegalActionError
from snack_envs.speed_snacks import components as C
from snack_envs.speed_snacks.rules import (
    CUSTOMER,
    DRAW_XXL,
    HURRY,
    HURRY_NEW,
    INSPECT,
    INSPECTION,
    KITCHEN,
    MENU,
    MENU_CHANGE,
    MENU_KEEP,
    MENU_POINT,
    MENU_TOQUE,
    NEW_CUSTOMER,
    NEW_KITCHEN,
    NUM_ACTIONS,
    OVER,
    PLAY,
    SLIDE,
    TAKE_DISH,
    WAIT,
    XXL_PLACE,
    SpeedSnacks,
    fulfilled_menus,
)
from tests.speed_snacks.scripted import BURGER, DONER, FRIES, HOTDOG, HU, PIZZA, ROACH, SUSHI, menu_id, put_on_top, table

ALL_MODULES = dict(health_department=True, dish_of_the_day=True, xxl=True, menu=True)


def new_round_deck(health_department: bool = False) -> list[int]:
    return C.new_deck(health_department)  # sorted by kind: the top cards are sushi


# --- components and setup -----------------------------------------------------------------------
def test_components_match_the_rulebook_and_assumptions():
    assert C.deck_counts(False) == [11] * 6 + [5, 0] and sum(C.deck_counts(False)) == 71
    assert C.deck_counts(True) == [11] * 6 + [5, 10]
    assert len(C.MENUS) == 15 and set(C.MENUS) == set(combinations(range(6), 2))
    assert C.DISHES == C.XXL_CARDS == tuple(range(6))
    assert (C.NUM_TOQUES, C.TOQUES_TO_WIN, C.HURRY_UPS_TO_END) == (9, 5, 4)
    assert SpeedSnacks.num_actions_for(2, {}) == NUM_ACTIONS == 75
    with pytest.raises(ConfigError, match="num_players"):
        SpeedSnacks(3)
    with pytest.raises(ConfigError, match="speed_0"):
        SpeedSnacks(2, speed_0=0.0)
    with pytest.raises(ConfigError, match="kitchen_obs"):
        SpeedSnacks(2, kitchen_obs="all")


def test_setup_deals_a_card_to_each_player_the_starting_player_first():
    deck = new_round_deck()
    deck.remove(PIZZA), deck.remove(HU)
    deck = [PIZZA, HU] + deck  # top first
    game = SpeedSnacks(2, np.random.default_rng(0), deck=deck, starting_player=1)
    assert game.hands == [HU, PIZZA]  # the starting player (seat 1) drew the top card
    assert len(game.deck) == 69 and game.round == 1 and game.phase == PLAY
    assert game.customer == [] and game.kitchens == [[], []] and game.toques == [0, 0]
    with pytest.raises(ConfigError, match="deck"):
        SpeedSnacks(2, deck=[PIZZA] * 71)


def test_modules_set_up_their_cards():
    game = SpeedSnacks(2, np.random.default_rng(1), **ALL_MODULES)
    assert len(game.deck) + 2 == 81  # 10 cockroaches shuffled in
    assert sorted(game.dishes_left) == list(range(6)) and sorted(game.xxl_pile) == list(range(6))
    assert [len(h) for h in game.menu_hands] == [2, 2] and [len(p) for p in game.menu_piles] == [5, 5]
    assert len(game.menus_out) == 1  # the 15th Menu card is not used
    assert not game.invariant_violations()


# --- the rulebook's scoring example --------------------------------------------------------------
def scoring_example(**options):
    """Pizza and hot dog are each ordered twice, Döner once; three piles already carry a Hurry-up.
    Seat 0 (player A) holds the 4th Hurry-up, seat 1 (player B) a pizza."""
    return table(
        customer=[[PIZZA, HU], [HOTDOG, HU], [DONER, HU], [PIZZA], [HOTDOG]],
        kitchens=(
            [[DONER, PIZZA], [SUSHI], [HOTDOG], [BURGER, PIZZA], [FRIES]],  # 2 + 0 + 2 + 2 + 0 = 6
            [[DONER], [PIZZA], [HOTDOG], [BURGER], [HOTDOG]],  # 1 + 2 + 2 + 0 + 2 = 7
        ),
        hands=(HU, PIZZA),
        **options,
    )


def test_the_rulebook_scoring_example_6_against_7_and_the_4th_hurry_up_ends_the_round():
    game = scoring_example()
    assert game.round_points() == [6, 7]
    assert game.legal_actions(0) == [HURRY + 3, HURRY + 4]  # the Hurry-up must go on a pile without one
    next_deck = new_round_deck()
    game.apply_joint([HURRY + 3, KITCHEN + 0], order=[0, 1], deck=next_deck)
    # The 4th Hurry-up resolved first: the round ended at once, B's pizza stayed in hand and was lost.
    assert game.last_tick["result"] == ["done", "stopped"]
    scored = game.last_round
    assert scored["points"] == [6, 7] and scored["winners"] == [1]
    assert scored["kitchens"][1][0] == [DONER] and scored["customer"][3] == [PIZZA, HU]
    assert game.toques == [0, 1] and game.round_result() == [-1.0, 1.0]
    # A new round: every card shuffled back, the loser (A) starts and draws first.
    assert game.round == 2 and game.phase == PLAY and game.starting_player == 0
    assert game.hands == [next_deck[0], next_deck[1]] and len(game.deck) == 69
    assert game.customer == [] and game.kitchens == [[], []] and game.hurry_ups == 0
    assert not game.invariant_violations()


def test_resolution_order_decides_whether_a_placement_beats_the_4th_hurry_up():
    game = scoring_example()
    game.apply_joint([HURRY + 3, KITCHEN + 0], order=[1, 0])
    # B resolved first: the pizza went on B's Döner pile (now worth 2), then A's Hurry-up ended the round.
    assert game.last_tick["result"] == ["done", "done"] and game.last_tick["order"] == [1, 0]
    assert game.last_round["kitchens"][1][0] == [DONER, PIZZA]
    assert game.last_round["points"] == [6, 8] and game.toques == [0, 1]


def test_the_resolution_order_is_drawn_from_the_seeded_rng():
    firsts = []
    for seed in range(300):
        game = table(customer=[[SUSHI]], hands=(PIZZA, FRIES), seed=seed)
        game.apply_joint([CUSTOMER + 0, NEW_CUSTOMER])
        first = game.last_tick["order"][0]
        firsts.append(first)
        # Both placed, in the drawn order: the second card went on top or into the new pile.
        assert game.customer == ([[SUSHI, PIZZA], [FRIES]])
        again = table(customer=[[SUSHI]], hands=(PIZZA, FRIES), seed=seed)
        again.apply_joint([CUSTOMER + 0, NEW_CUSTOMER])
        assert again.last_tick["order"][0] == first  # same seed, same order
    assert 0.4 < np.mean(firsts) < 0.6


# --- Hurry-up ----------------------------------------------------------------------------------
def test_a_hurry_up_resolved_first_stops_the_other_placement_and_the_card_stays_in_hand():
    game = table(customer=[[PIZZA, HU], [SUSHI]], hands=(HU, FRIES))
    put_on_top(game, DONER)
    game.apply_joint([HURRY + 1, CUSTOMER + 1], order=[0, 1])
    assert game.last_tick["result"] == ["done", "stopped"]
    assert game.customer == [[PIZZA, HU], [SUSHI, HU]] and game.hurry_ups == 2
    assert game.hands == [DONER, FRIES]  # A drew the next card; B still holds the fries
    assert game.phase == PLAY  # only the 2nd Hurry-up

    game = table(customer=[[PIZZA, HU], [SUSHI]], hands=(HU, FRIES))
    game.apply_joint([HURRY + 1, NEW_CUSTOMER], order=[1, 0])  # B first: both go through
    assert game.last_tick["result"] == ["done", "done"]
    assert game.customer == [[PIZZA, HU], [SUSHI, HU], [FRIES]]


def test_two_hurry_ups_in_one_tick_the_first_resolved_stops_the_other():
    game = table(customer=[[PIZZA, HU], [SUSHI]], hands=(HU, HU))
    game.apply_joint([HURRY + 1, HURRY + 1], order=[1, 0])
    assert game.last_tick["result"] == ["stopped", "done"] and game.hurry_ups == 2 and game.hands[0] == HU
    assert game.legal_actions(0) == [HURRY_NEW]  # every pile is closed now
    game.apply_joint([HURRY_NEW, game.legal_actions(1)[0]], order=[0, 1])
    assert game.customer[2] == [HU] and game.hurry_ups == 3


def test_a_hurry_up_interrupts_any_action_of_the_other_player():
    game = table(customer=[[SUSHI]], hands=(HU, PIZZA), dish_of_the_day=True, xxl=True)
    game.apply_joint([HURRY + 0, TAKE_DISH + PIZZA], order=[0, 1])
    assert game.last_tick["result"] == ["done", "stopped"] and game.dish == [None, None]
    game = table(customer=[[SUSHI]], hands=(HU, PIZZA), dish_of_the_day=True, xxl=True)
    game.apply_joint([HURRY + 0, DRAW_XXL], order=[0, 1])
    assert game.last_tick["result"] == ["done", "stopped"] and game.xxl_cards == [[], []]


def test_the_first_starting_player_is_drawn_from_the_rng():
    assert {SpeedSnacks(2, np.random.default_rng(seed)).starting_player for seed in range(20)} == {0, 1}


def test_a_hurry_up_is_played_at_once_and_never_on_a_closed_pile():
    game = table(customer=[[PIZZA, HU], [SUSHI]], hands=(HU, PIZZA))
    assert WAIT not in game.legal_actions(0)
    assert game.legal_actions(0) == [HURRY + 1]
    assert CUSTOMER + 0 not in game.legal_actions(1) and CUSTOMER + 1 in game.legal_actions(1)  # closed pile
    with pytest.raises(IllegalActionError, match="legal actions"):
        game.apply_joint([HURRY + 0, WAIT])


def test_a_hurry_up_that_no_pile_can_take_opens_a_closed_pile_and_one_snack_may_slide_under_it():
    game = table(hands=(HU, PIZZA))
    assert game.legal_actions(0) == [HURRY_NEW]  # no customer order yet
    put_on_top(game, SUSHI)
    game.apply_joint([HURRY_NEW, WAIT])
    assert game.customer == [[HU]] and game.hurry_ups == 1
    assert SLIDE + 0 in game.legal_actions(1) and CUSTOMER + 0 not in game.legal_actions(1)
    assert game.legal_actions(0)[0] == WAIT and SLIDE + 0 in game.legal_actions(0)  # sushi in hand now
    game.apply_joint([WAIT, SLIDE + 0])
    assert game.customer == [[PIZZA, HU]]
    assert SLIDE + 0 not in game.legal_actions(0)  # once only
    assert game.round_points() == [0, 0]
    game.kitchens[0] = [[game.deck.pop(game.deck.index(PIZZA))]]
    game._legal_cache.clear()
    assert game.round_points()[0] == 1  # the slid snack is a customer order

    # Every pile already closed: again a new pile.
    game = table(customer=[[PIZZA, HU], [SUSHI, HU]], hands=(HU, FRIES))
    assert game.legal_actions(0) == [HURRY_NEW]
    game.apply_joint([HURRY_NEW, NEW_CUSTOMER], order=[1, 0])
    # B's fries opened an open pile first, so A's Hurry-up could no longer open a new one.
    assert game.customer == [[PIZZA, HU], [SUSHI, HU], [FRIES]]
    assert game.last_tick["result"] == ["blocked", "done"] and game.hands[0] == HU
    assert game.legal_actions(0) == [HURRY + 2]


def test_an_action_made_illegal_by_the_earlier_one_does_nothing():
    game = table(customer=[[SUSHI], [PIZZA], [FRIES], [DONER]], hands=(BURGER, HOTDOG))
    game.apply_joint([NEW_CUSTOMER, NEW_CUSTOMER], order=[1, 0])
    assert game.customer[4] == [HOTDOG] and len(game.customer) == 5
    assert game.last_tick["result"] == ["blocked", "done"] and game.hands[0] == BURGER  # the 6th pile is not allowed

    game = table(customer=[[HU]], hands=(PIZZA, SUSHI))
    game.apply_joint([SLIDE + 0, SLIDE + 0], order=[0, 1])
    assert game.customer == [[PIZZA, HU]] and game.hands[1] == SUSHI


# --- the end of a round -------------------------------------------------------------------------
def test_the_round_ends_when_both_players_wait_long_enough():
    game = table(customer=[[PIZZA]], kitchens=([[PIZZA]], [[SUSHI]]), hands=(FRIES, DONER), idle_ticks=3)
    game.apply_joint([WAIT, WAIT])
    game.apply_joint([WAIT, KITCHEN + 0])  # a placement resets the count
    assert game.idle == 0
    game.apply_joint([WAIT, WAIT])
    game.apply_joint([WAIT, WAIT])
    assert game.round == 1 and game.idle == 2
    game.apply_joint([WAIT, WAIT])
    assert game.round == 2 and game.last_round["points"] == [1, 0] and game.toques == [1, 0]
    assert game.last_round["kitchens"][1] == [[SUSHI, DONER]]
    assert game.starting_player == 1  # the loser starts the next round


def test_toques_ties_and_the_starting_player():
    # A tie gives both a toque; the player with fewer toques then starts.
    game = table(kitchens=([[PIZZA]], [[SUSHI]]), hands=(FRIES, DONER), toques=(2, 1), idle_ticks=1)
    game.apply_joint([WAIT, WAIT])
    assert game.last_round["points"] == [0, 0] and game.toques == [3, 2] and game.round_result() == [0.0, 0.0]
    assert game.starting_player == 1
    # Still tied on toques: the rng decides (scriptable), and both seats occur.
    starters = set()
    for seed in range(30):
        game = table(hands=(FRIES, DONER), toques=(1, 1), idle_ticks=1, seed=seed)
        game.apply_joint([WAIT, WAIT])
        starters.add(game.starting_player)
    assert starters == {0, 1}
    game = table(hands=(FRIES, DONER), toques=(1, 1), idle_ticks=1)
    game.apply_joint([WAIT, WAIT], starting_player=1)
    assert game.starting_player == 1


def test_first_to_five_toques_wins_and_a_simultaneous_fifth_is_withheld():
    game = table(hands=(FRIES, DONER), toques=(4, 4), idle_ticks=1)
    game.apply_joint([WAIT, WAIT])  # a tie: both would reach 5
    assert game.toques == [4, 4] and not game.game_over and game.last_round["withheld"]
    assert game.round == 2 and game.phase == PLAY
    put_on_top(game, PIZZA)
    game.customer = [[game.deck.pop(game.deck.index(PIZZA))]]
    game.kitchens = [[[game.deck.pop(game.deck.index(PIZZA))]], []]
    game._legal_cache.clear()
    game.apply_joint([WAIT, WAIT])
    assert game.game_over and game.phase == OVER and game.toques == [5, 4] and game.winners() == [0]
    assert game.round_result() == [1.0, -1.0] and game.legal_actions(0) == [] and not game.invariant_violations()
    with pytest.raises(IllegalActionError, match="over"):
        game.apply_joint([WAIT, WAIT])

    game = table(hands=(FRIES, DONER), toques=(4, 3), idle_ticks=1)
    game.apply_joint([WAIT, WAIT])  # tied round, but only seat 0 reaches 5
    assert game.game_over and game.toques == [5, 4]


# --- speed ----------------------------------------------------------------------------------------
def test_speed_is_the_chance_that_an_action_goes_through():
    game = table(customer=[[SUSHI]], hands=(PIZZA, FRIES), speed_1=0.5)
    game.apply_joint([CUSTOMER + 0, CUSTOMER + 0], through=[True, False])
    assert game.last_tick["result"] == ["done", "missed"] and game.hands[1] == FRIES
    assert game.customer == [[SUSHI, PIZZA]] and game.idle == 0  # a missed action is not waiting

    went = []
    for seed in range(400):
        game = table(customer=[[SUSHI]], hands=(PIZZA, FRIES), speed_0=0.3, seed=seed)
        game.apply_joint([CUSTOMER + 0, CUSTOMER + 0])
        went.append(game.last_tick["result"][0] == "done")
        assert game.last_tick["result"][1] == "done"  # speed 1: always
    assert 0.22 < np.mean(went) < 0.38


def test_at_full_speed_the_rng_is_only_used_for_the_order():
    game = table(customer=[[SUSHI]], hands=(PIZZA, FRIES))
    state = game.rng.bit_generator.state
    game.apply_joint([CUSTOMER + 0, WAIT])
    assert game.rng.bit_generator.state == state


# --- Module 1: Health Department ----------------------------------------------------------------
def test_a_cockroach_must_go_to_the_kitchen():
    game = table(customer=[[SUSHI], [HU]], kitchens=([[PIZZA]], []), hands=(ROACH, PIZZA), health_department=True)
    assert game.legal_actions(0) == [WAIT, KITCHEN + 0, NEW_KITCHEN]
    assert CUSTOMER + 0 in game.legal_actions(1)


def test_health_inspection_and_a_cockroach_on_top():
    game = table(
        customer=[[PIZZA, HU], [SUSHI, HU], [DONER, HU], [PIZZA]],
        kitchens=(
            [[ROACH, ROACH, PIZZA], [SUSHI], [ROACH]],  # pizza 2 + sushi 1 + cockroach on top 0 = 3
            [[PIZZA, ROACH, PIZZA], [DONER]],  # 2 + 1 = 3
        ),
        hands=(HU, SUSHI),
        health_department=True,
    )
    assert game.round_points() == [3, 3]
    game.apply_joint([HURRY + 3, WAIT])
    assert game.phase == INSPECTION
    assert game.legal_actions(0) == [INSPECT + 0, INSPECT + 1]  # seat 0 inspects one of seat 1's 2 piles
    assert game.legal_actions(1) == [INSPECT + 0, INSPECT + 1, INSPECT + 2]
    game.apply_joint([INSPECT + 1, INSPECT + 0])  # both choose at once
    # Seat 1 found 2 cockroaches in seat 0's first pile; seat 0 found none in seat 1's Döner pile.
    assert game.last_round["penalties"] == [2, 0] and game.last_round["points"] == [1, 3]
    assert game.toques == [0, 1]


def test_nothing_to_inspect_means_waiting():
    game = table(customer=[[PIZZA, HU], [SUSHI, HU], [DONER, HU], [PIZZA]], kitchens=([[ROACH]], []),
                 hands=(HU, SUSHI), health_department=True)
    game.apply_joint([HURRY + 3, WAIT])
    assert game.legal_actions(0) == [WAIT] and game.legal_actions(1) == [INSPECT + 0]
    game.apply_joint([WAIT, INSPECT + 0])
    assert game.last_round["penalties"] == [1, 0] and game.last_round["points"] == [-1, 0]
    game = table(customer=[[PIZZA, HU], [SUSHI, HU], [DONER, HU], [PIZZA]], hands=(HU, SUSHI), health_department=True)
    game.apply_joint([HURRY + 3, WAIT])
    assert game.round == 2  # no kitchen at all: no inspection step


# --- Module 2: Dish of the Day --------------------------------------------------------------------
def test_the_dish_of_the_day_example_three_doner_on_top_give_3():
    game = table(
        customer=[[PIZZA]],  # nobody orders Döner: the customers do not matter for the dish
        kitchens=([[DONER], [PIZZA, DONER], [DONER], [SUSHI]], [[PIZZA]]),
        hands=(FRIES, SUSHI),
        dish=(DONER, None),
        dish_of_the_day=True,
    )
    assert game.round_points() == [3, 1]


def test_each_player_takes_one_dish_and_it_is_gone_for_the_other():
    game = table(hands=(FRIES, SUSHI), dish_of_the_day=True)
    assert [a for a in game.legal_actions(0) if a >= TAKE_DISH] == [TAKE_DISH + s for s in range(6)]
    game.apply_joint([TAKE_DISH + PIZZA, TAKE_DISH + PIZZA], order=[1, 0])
    assert game.dish == [None, PIZZA] and game.last_tick["result"] == ["blocked", "done"]
    assert TAKE_DISH + PIZZA not in game.legal_actions(0)
    assert not any(TAKE_DISH <= a < INSPECT for a in game.legal_actions(1))  # one per round
    assert game.hands == [FRIES, SUSHI]  # taking a dish draws no card
    game.apply_joint([TAKE_DISH + SUSHI, WAIT])
    assert game.dish == [SUSHI, PIZZA]
    assert sorted(game.dishes_left) == sorted({SUSHI, DONER, FRIES, PIZZA, BURGER, HOTDOG} - {SUSHI, PIZZA})


# --- Module 3: XXL ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "stack, points",
    [([PIZZA] * 3, 3), ([PIZZA] * 2, -3), ([PIZZA] * 4, -3), ([PIZZA, PIZZA, SUSHI], -3), ([], -3)],
)
def test_xxl_scores_3_for_exactly_three_matching_snacks_else_minus_3(stack, points):
    game = table(hands=(FRIES, SUSHI), xxl_cards=([(PIZZA, stack)], [(SUSHI, [SUSHI] * 3)]), xxl=True)
    assert game.round_points() == [points, 3]  # no customer orders: XXL points only


def test_drawing_an_xxl_card_and_placing_snacks_on_it():
    game = SpeedSnacks(2, np.random.default_rng(0), xxl=True, health_department=True, starting_player=0,
                       xxl_order=[HOTDOG, PIZZA, SUSHI, DONER, FRIES, BURGER])
    assert DRAW_XXL in game.legal_actions(0)
    game.apply_joint([DRAW_XXL, DRAW_XXL], order=[0, 1])
    assert game.xxl_cards == [[HOTDOG], [PIZZA]] and game.xxl_stacks == [[[]], [[]]] and len(game.xxl_pile) == 4
    # A snack may go on one's own XXL card; a cockroach or a Hurry-up may not.
    for card, allowed in ((HOTDOG, True), (SUSHI, True), (ROACH, False), (HU, False)):
        test = game.copy()
        test.deck.append(test.hands[0])
        test.deck.remove(card)
        test.hands[0] = card
        test._legal_cache.clear()
        assert (XXL_PLACE + 0 in test.legal_actions(0)) == allowed
        assert XXL_PLACE + 1 not in test.legal_actions(0)  # seat 0 has one XXL card
    test = game.copy()
    test.deck.append(test.hands[0])
    test.deck.remove(HOTDOG)
    test.hands[0] = HOTDOG
    test._legal_cache.clear()
    test.apply_joint([XXL_PLACE + 0, WAIT])
    assert test.xxl_stacks[0] == [[HOTDOG]] and not test.invariant_violations()
    # At the end of the round every XXL card goes back into a reshuffled XXL pile.
    game.apply_joint([WAIT, WAIT])
    game.apply_joint([WAIT, WAIT])
    game.apply_joint([WAIT, WAIT], xxl_order=[SUSHI, PIZZA, HOTDOG, DONER, FRIES, BURGER])
    assert game.round == 2 and game.xxl_cards == [[], []] and game.xxl_pile[-1] == SUSHI
    assert game.last_round["points"] == [-3, -3]  # an XXL card with nothing on it


# --- Module 4: Menu ---------------------------------------------------------------------------------
def test_menu_fulfilment_needs_separate_cards_for_both_menus():
    pizza_burger, burger_fries = menu_id(PIZZA, BURGER), menu_id(BURGER, FRIES)
    # Two Menus ask for 2 hamburgers in all: both need 2 hamburgers face up.
    assert fulfilled_menus([pizza_burger, burger_fries], [PIZZA, BURGER, FRIES, BURGER]) == [pizza_burger, burger_fries]
    assert fulfilled_menus([pizza_burger, burger_fries], [PIZZA, BURGER, FRIES]) == [pizza_burger]  # the older one
    assert fulfilled_menus([burger_fries, pizza_burger], [PIZZA, BURGER, FRIES]) == [burger_fries]
    assert fulfilled_menus([pizza_burger], [PIZZA, ROACH]) == []
    assert fulfilled_menus([pizza_burger], [BURGER, PIZZA, SUSHI]) == [pizza_burger]
    # The reading `menu_fulfil="newer"`: the Menu drawn last.
    assert fulfilled_menus([pizza_burger, burger_fries], [PIZZA, BURGER, FRIES], "newer") == [burger_fries]
    assert fulfilled_menus([pizza_burger, burger_fries], [PIZZA, BURGER, SUSHI], "newer") == [pizza_burger]


@pytest.mark.parametrize("prefer, fulfilled, kept", [("held_longer", (PIZZA, BURGER), (BURGER, FRIES)),
                                                     ("newer", (BURGER, FRIES), (PIZZA, BURGER))])
def test_when_either_menu_but_not_both_can_be_fulfilled_the_option_picks_which(prefer, fulfilled, kept):
    game = menu_round(kitchens=([[PIZZA], [BURGER], [FRIES]], [[SUSHI]]),
                      menu_hands=([(PIZZA, BURGER), (BURGER, FRIES)], []), menu_fulfil=prefer)
    game.apply_joint([HURRY + 3, WAIT])
    assert game.menus_fulfilled[0] == [menu_id(*fulfilled)] and game.menu_hands[0] == [menu_id(*kept)]


def menu_round(kitchens, menu_hands, fulfilled=(0, 0), toques=(0, 0), starting_player=0, **kw):
    """The 4th Hurry-up in seat 0's hand ends the round at the next tick; customers order pizza 2x, sushi 1x."""
    return table(
        customer=[[PIZZA, HU], [SUSHI, HU], [DONER, HU], [PIZZA]],
        kitchens=kitchens, hands=(HU, FRIES), menu_hands=menu_hands, fulfilled=fulfilled, toques=toques,
        starting_player=starting_player, menu=True, **kw,
    )


def test_menus_are_fulfilled_at_scoring_and_the_leader_decides_first():
    game = menu_round(
        kitchens=([[PIZZA], [SUSHI], [BURGER]], [[PIZZA], [FRIES], [DONER]]),  # 2+1+0 = 3 against 2+0+1 = 3
        menu_hands=([(PIZZA, SUSHI), (BURGER, HOTDOG)], [(PIZZA, FRIES), (SUSHI, DONER)]),
        fulfilled=(0, 2),
        starting_player=1,
    )
    game.menus_fulfilled[0] = []
    game.apply_joint([HURRY + 3, WAIT])
    assert game.phase == MENU
    assert [len(f) for f in game.menus_fulfilled] == [1, 3]  # seat 0: pizza/sushi; seat 1: pizza/fries
    assert game.menu_hands == [[menu_id(BURGER, HOTDOG)], [menu_id(SUSHI, DONER)]]
    # Points tied at 3: the starting player (seat 1) decides first, the other has only "wait".
    assert game.menu_order == [1, 0]
    assert game.legal_actions(0) == [WAIT]
    assert MENU_TOQUE in game.legal_actions(1) and MENU_KEEP in game.legal_actions(1)
    game.apply_joint([WAIT, MENU_POINT])
    assert game.round_points() == [3, 4] and len(game.menus_fulfilled[1]) == 2
    assert game.legal_actions(0) == [MENU_KEEP, MENU_POINT] and game.legal_actions(1) == [WAIT]
    game.apply_joint([MENU_POINT, WAIT])
    assert game.last_round["points"] == [4, 4] and game.toques == [1, 1]
    assert game.last_round["menu_bonus"] == [1, 1] and len(game.menus_out) == 1 + 2
    assert game.round == 2 and all(len(h) == 2 for h in game.menu_hands)  # hands topped up to 2
    assert not game.invariant_violations()


@pytest.mark.parametrize("tie_first, starting_player, order", [("starting_player", 1, [1, 0]),
                                                                ("starting_player", 0, [0, 1]),
                                                                ("other_player", 1, [0, 1]),
                                                                ("other_player", 0, [1, 0])])
def test_on_tied_points_the_option_says_who_decides_on_menus_first(tie_first, starting_player, order):
    game = menu_round(kitchens=([[PIZZA]], [[PIZZA]]), menu_hands=([], []), fulfilled=(1, 1),
                      starting_player=starting_player, menu_tie_first=tie_first)
    game.apply_joint([HURRY + 3, WAIT])
    assert game.round_points() == [2, 2] and game.menu_order == order
    game = menu_round(kitchens=([[PIZZA]], [[SUSHI]]), menu_hands=([], []), fulfilled=(1, 1),
                      starting_player=starting_player, menu_tie_first=tie_first)
    game.apply_joint([HURRY + 3, WAIT])
    assert game.menu_order == [0, 1]  # not tied: the leader decides first, whatever the option


def test_giving_up_two_menus_changes_a_top_card_and_the_points_are_recalculated():
    game = menu_round(
        kitchens=([[PIZZA], [FRIES], [FRIES]], [[PIZZA], [SUSHI]]),  # 2 against 3
        menu_hands=([(BURGER, HOTDOG)], []), fulfilled=(2, 0), dish_of_the_day=True, dish=(PIZZA, None),
    )
    assert game.round_points() == [2 + 1, 3]  # seat 0's dish: one pizza on top
    game.apply_joint([HURRY + 3, WAIT])
    assert game.menu_order == [0]  # only seat 0 holds fulfilled Menus (points tied, seat 0 started)
    change = MENU_CHANGE + 1 * 6 + PIZZA  # count kitchen pile 2's fries as a pizza
    assert change in game.legal_actions(0) and MENU_CHANGE + 1 * 6 + FRIES not in game.legal_actions(0)
    assert MENU_TOQUE not in game.legal_actions(0)
    game.apply_joint([change, WAIT])
    assert game.last_round["menu_changed"][0] == [1, PIZZA]
    assert game.last_round["points"] == [2 + 2 + 2, 3]  # two pizzas ordered twice, and two for the dish
    assert game.toques == [1, 0] and game.menus_fulfilled[0] == []


def test_giving_up_three_menus_takes_a_toque_and_a_fifth_at_once_is_withheld():
    game = menu_round(
        kitchens=([[PIZZA]], [[PIZZA]]), menu_hands=([], []), fulfilled=(3, 0), toques=(3, 4),
    )
    game.apply_joint([HURRY + 3, WAIT])
    game.apply_joint([MENU_TOQUE, WAIT])
    # Seat 0 took a 4th toque, then the tied round gave both a toque: both at 5, so neither gets the 5th.
    assert game.last_round["toques_before"] == [4, 4] and game.toques == [4, 4] and game.last_round["withheld"]
    assert not game.game_over

    game = menu_round(kitchens=([[PIZZA]], [[SUSHI]]), menu_hands=([], []), fulfilled=(3, 0), toques=(3, 1))
    game.apply_joint([HURRY + 3, WAIT])
    game.apply_joint([MENU_TOQUE, WAIT])
    assert game.game_over and game.toques == [5, 1]


# --- bad input ----------------------------------------------------------------------------------------
def test_bad_joint_actions_raise_and_change_nothing():
    game = table(customer=[[SUSHI]], hands=(PIZZA, FRIES))
    before = game.to_json()
    for actions in ([CUSTOMER + 0], {0: CUSTOMER + 0, 1: WAIT, 2: WAIT}, [CUSTOMER + 3, WAIT], [WAIT, 99], [WAIT, "x"]):
        with pytest.raises(IllegalActionError):
            game.apply_joint(actions)
        assert game.to_json() == before
    with pytest.raises(IllegalActionError, match="simultaneous: give every seat's action to apply_joint"):
        game.apply(WAIT, 0)
    assert game.to_json() == before


def test_action_strings_are_distinct_and_readable():
    names = [SpeedSnacks.action_to_str(None, a) for a in range(NUM_ACTIONS)]
    assert len(set(names)) == NUM_ACTIONS and not any(n.startswith("<") for n in names)
    assert "Hurry up" in names[HURRY] and "pizza" in names[TAKE_DISH + PIZZA]
