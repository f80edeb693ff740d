"""Snack Wars' rules against the rulebook: components, its worked examples, every option and edge case."""

from __future__ import annotations

import numpy as np
import pytest

from snack_envs.core.game import ConfigError, IllegalActionError
from snack_envs.snack_wars.components import FAMILY_OF, FOODS, NUM_CARDS, VALUES, copies_by_type, max_score
from snack_envs.snack_wars.rules import (
    DISCARD,
    DISCARDING,
    NUM_ACTIONS,
    STEALING,
    STOP_STEALING,
    SnackWars,
    steal_action,
)
from tests.snack_wars.wars_positions import (
    AMERICAN_B,
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
    held,
    on_table,
    position,
    recomputed_scores,
)


def state_of(game: SnackWars) -> dict:
    data = game.to_dict()
    data.pop("rng")
    return data


# --- components and options ----------------------------------------------------------------
@pytest.mark.parametrize("food_copies", ["equal", "value"])
def test_the_deck_holds_45_food_10_raccoon_and_5_bonus_cards(food_copies):
    copies = copies_by_type(food_copies)
    assert sum(copies) == NUM_CARDS == 60
    assert sum(copies[:9]) == 45 and copies[RACCOON] == 10 and copies[FRENCH_B:RACCOON] == (1,) * 5
    expected = [5] * 9 if food_copies == "equal" else [1, 2, 3, 4, 5, 6, 7, 8, 9]
    assert list(copies[:9]) == expected
    game = SnackWars(2, np.random.default_rng(1), food_copies=food_copies)
    cards = game.deck + [t for t, n in enumerate(game.drawn) for _ in range(n)]
    assert [cards.count(t) for t in range(15)] == list(copies)


def test_food_values_and_families_follow_the_rulebook_and_the_assumed_table():
    names = {f.name: f for f in FOODS}
    assert names["donut"].value == 7 and names["croissant"].value == 5  # the rulebook's examples
    assert VALUES == tuple(range(1, 10))  # one kind per value 1..9
    for family in range(3):  # the assumption: each family totals 15
        assert sum(v for v, f in zip(VALUES, FAMILY_OF) if f == family) == 15
    assert {FOODS[k].name for k in (MACARON, CROISSANT, CHEESE)} == {"macaron", "croissant", "cheese"}


def test_bad_options_and_scripted_decks_are_clear_errors():
    with pytest.raises(ConfigError, match="food_copies"):
        SnackWars(2, np.random.default_rng(0), food_copies="double")
    with pytest.raises(ConfigError, match="scripted deck"):
        SnackWars(2, np.random.default_rng(0), deck=[DONUT] * 60)
    with pytest.raises(ConfigError, match="num_players"):
        SnackWars(6)


def test_the_first_player_draws_nine_cards_from_the_top():
    cards = [t for t, n in enumerate(copies_by_type("equal")) for _ in range(n)]
    top = [cards[i] for i in np.random.default_rng(5).permutation(60)]
    game = SnackWars(3, np.random.default_rng(0), deck=top)
    assert game.current_player == 0 and game.phase == "choose"
    assert game.drawn == [top[:9].count(t) for t in range(15)]
    assert game.deck == top[9:]


# --- the rulebook's examples ------------------------------------------------------------------
def test_delphine_with_3_cards_draws_6_and_takes_the_3_donuts():
    alain, delphine = 0, 1
    game = position(
        2,
        {delphine: {MACARON: 1, SUSHI: 1, RAMEN: 1}},
        draw=[CHEESE] * 3 + [TEMPURA] * 2 + [BURGER] * 4,
        then=[DONUT, CROISSANT, DONUT, RACCOON, DONUT, FRENCH_B],
    )
    game.apply(CHEESE)  # Alain's turn; then Delphine draws
    assert game.current_player == delphine
    assert sum(game.drawn) == 6  # 6 + 3 = 9
    assert on_table(game.drawn) == {"croissant": 1, "donut": 3, "French bonus": 1, "raccoon": 1}
    assert game.legal_actions() == [CROISSANT, DONUT, FRENCH_B, RACCOON]
    game.apply(DONUT)  # the cards of value 7
    assert held(game, delphine) == {"macaron": 1, "sushi": 1, "ramen": 1, "donut": 3}
    assert sum(game.collections[delphine]) == 6
    # The unused cards were discarded: Alain's and Delphine's.
    assert on_table(game.discard) == {"croissant": 1, "burger": 4, "shrimp tempura": 2, "French bonus": 1, "raccoon": 1}
    assert game.current_player == alain and sum(game.drawn) == 6


def test_alain_takes_one_bonus_card_of_the_two_drawn():
    game = position(2, draw=[JAPANESE_B, SUSHI, MULTI_B, SUSHI, RAMEN, RAMEN, RAMEN, DONUT, BURGER])
    assert {JAPANESE_B, MULTI_B} <= set(game.legal_actions())
    game.apply(JAPANESE_B)
    assert held(game, 0) == {"Japanese bonus": 1}  # one and only one
    assert game.discard[MULTI_B] == 1 and game.discard[SUSHI] == 2 and game.discard[RAMEN] == 3


def test_mathilde_steals_one_donut_from_delphine_and_two_from_joseph():
    mathilde, delphine, joseph, alain = range(4)
    game = position(
        4,
        {
            mathilde: {CROISSANT: 2, FRENCH_B: 1, MULTI_B: 1},
            delphine: {DONUT: 3, MACARON: 2, SUSHI: 2, JAPANESE_B: 1, RAMEN: 1},
            joseph: {DONUT: 2, BURGER: 3, CHEESE: 2, MILKSHAKE: 2},
            alain: {TEMPURA: 2, RAMEN: 1},
        },
        draw=[RACCOON, CHEESE, RACCOON, SUSHI, RACCOON],
        then=[TEMPURA],
    )
    assert game.legal_actions() == [SUSHI, CHEESE, RACCOON]
    game.apply(RACCOON)
    assert (game.current_player, game.phase, game.steals_left, game.raccoons) == (mathilde, STEALING, 3, [3, 0, 0, 0])
    text = game.render_text(names=["Mathilde", "Delphine", "Joseph", "Alain"])
    assert "Mathilde to steal (3 steals left)" in text and "On the table: sushi x1, cheese x1" in text
    assert "Delphine: 9/9 | macaron x2, sushi x2, ramen x1, donut x3, Japanese bonus x1 | raccoons 0" in text
    assert sum(game.collections[mathilde]) == 4  # raccoons lie beside the collection, not in it
    legal = set(game.legal_actions())
    assert {steal_action(1, DONUT), steal_action(2, DONUT), steal_action(3, TEMPURA), STOP_STEALING} <= legal
    assert steal_action(3, DONUT) not in legal  # Alain has no donut
    assert len(legal) == 5 + 4 + 2 + 1  # every kind each opponent holds, and stop

    game.apply(steal_action(1, DONUT))
    assert (game.current_player, game.steals_left) == (mathilde, 2)
    game.apply(steal_action(2, DONUT))
    game.apply(steal_action(2, DONUT))  # the last raccoon: the turn ends
    assert held(game, mathilde) == {"croissant": 2, "donut": 3, "French bonus": 1, "Multicolour bonus": 1}
    assert game.collections[delphine][DONUT] == 2 and game.collections[joseph][DONUT] == 0
    assert game.raccoons == [3, 0, 0, 0]
    assert on_table(game.discard) == {"sushi": 1, "cheese": 1}
    # The robbed Delphine draws back up to 9: one card.
    assert game.current_player == delphine and on_table(game.drawn) == {"shrimp tempura": 1}
    game.apply(TEMPURA)
    assert game.current_player == joseph and sum(game.drawn) == 2  # robbed twice: two cards


SCORING_EXAMPLE = {
    0: {DONUT: 3, SUSHI: 1, RAMEN: 1, TEMPURA: 1, MILKSHAKE: 1, BURGER: 1, JAPANESE_B: 1},  # Delphine
    1: {CROISSANT: 2, MACARON: 1, SUSHI: 1, DONUT: 1, RAMEN: 1, TEMPURA: 1, FRENCH_B: 1, MULTI_B: 1},  # Mathilde
    2: {RAMEN: 1, TEMPURA: 1, MILKSHAKE: 1, BURGER: 1, MACARON: 1, CHEESE: 2, AMERICAN_B: 1, RACCOON_B: 1},  # Joseph
}


def test_the_scoring_example_delphine_10_mathilde_13_nobody_scores_sushi():
    game = position(3, SCORING_EXAMPLE, raccoons=[0, 0, 1])
    assert game.food_majorities()[SUSHI] == -1  # tied: no points for Sushi
    assert game.food_majorities()[DONUT] == 0 and game.food_majorities()[CROISSANT] == 1
    details = game.score_details()
    assert details[0] == {"majorities": 7, "Japanese bonus": 3}
    assert details[1] == {"majorities": 5, "French bonus": 3, "Multicolour bonus": 5}
    assert details[2] == {"majorities": 9, "American bonus": 2, "Raccoon bonus": 1}
    assert game.scores() == [10.0, 13.0, 12.0]


def test_the_scoring_example_as_the_last_turn_of_a_game():
    colls = {p: dict(c) for p, c in SCORING_EXAMPLE.items()}
    del colls[1][MULTI_B]
    game = position(3, colls, raccoons=[0, 0, 1], draw=[MULTI_B], current=1)
    assert not game.game_over and sum(game.drawn) == 1
    game.apply(MULTI_B)
    assert game.game_over and game.current_player == -1 and game.legal_actions() == []
    assert game.scores() == [10.0, 13.0, 12.0] and game.winners() == [1]
    assert game.invariant_violations() == []
    text = game.render_text(names=["Delphine", "Mathilde", "Joseph"])
    assert "game over" in text and "Mathilde: 9/9" in text and "13 points" in text


# --- scoring rules ------------------------------------------------------------------------------
def test_majority_ties_score_for_nobody():
    game = position(3, {0: {DONUT: 2, CHEESE: 1}, 1: {DONUT: 2, SUSHI: 2}, 2: {DONUT: 1, SUSHI: 3}})
    majorities = game.food_majorities()
    assert majorities[DONUT] == -1  # 2, 2, 1: the top is tied
    assert majorities[CHEESE] == 0 and majorities[SUSHI] == 2 and majorities[MACARON] == -1  # nobody holds one
    assert game.scores() == [9.0, 0.0, 3.0]


def test_a_tied_total_is_a_shared_victory():
    game = position(2, {0: {CHEESE: 1}, 1: {TEMPURA: 1, MACARON: 1}})
    assert game.scores() == [9.0, 9.0] and game.winners() == [0, 1]


def test_bonus_cards_count_food_of_their_family_only_and_multicolour_needs_every_family():
    game = position(2, {0: {FRENCH_B: 1, MULTI_B: 1, JAPANESE_B: 1, CHEESE: 2, SUSHI: 1}})
    d = game.score_details()[0]
    assert d["French bonus"] == 2 and d["Japanese bonus"] == 1  # Bonus cards belong to no family
    assert d["Multicolour bonus"] == 0  # no American card
    game.collections[0][DONUT] = 1
    assert game.score_details()[0]["Multicolour bonus"] == 5


def test_the_highest_score_is_57_and_reachable():
    assert max_score() == 57 and SnackWars.score_range == (0.0, 57.0)
    best = {CHEESE: 1, TEMPURA: 1, DONUT: 1, BURGER: 1, CROISSANT: 1, RAMEN: 1, SUSHI: 1, MULTI_B: 1, RACCOON_B: 1}
    game = position(2, {0: best}, raccoons=[10, 0], current=1)
    assert game.scores()[0] == 57.0 == recomputed_scores(game.collections, game.raccoons)[0]


# --- passing and the end of the game --------------------------------------------------------
def test_a_player_holding_9_passes_without_a_decision_and_the_game_ends_when_all_hold_9():
    full = {DONUT: 3, BURGER: 3, MILKSHAKE: 3}
    game = position(3, {0: {SUSHI: 3, RAMEN: 3, TEMPURA: 2}, 1: full, 2: {CHEESE: 4, CROISSANT: 4}},
                    draw=[TEMPURA], then=[CHEESE])
    game.apply(TEMPURA)  # seat 0 completes its collection; seat 2 still has 8
    assert not game.game_over
    assert game.passed == [1] and game.current_player == 2  # seat 1 passed: no decision asked of it
    assert on_table(game.drawn) == {"cheese": 1}
    assert "Passed (collection of 9): B" in game.render_text(names=["A", "B", "C"])
    game.apply(CHEESE)
    assert game.game_over and game.current_player == -1 and game.turn == 2


def test_the_players_who_passed_are_those_of_this_turn_only():
    full = {DONUT: 3, BURGER: 3, MILKSHAKE: 3}
    game = position(3, {0: {SUSHI: 3, RAMEN: 3, TEMPURA: 2}, 1: full, 2: {CHEESE: 4, CROISSANT: 3}},
                    draw=[SUSHI], then=[CHEESE, CROISSANT])
    game.apply(SUSHI)  # seat 0 completes its 9; seat 1 holds 9 and passes
    assert game.passed == [1] and game.current_player == 2
    game.apply(CHEESE)  # seat 2 reaches 8; seats 0 and 1 hold 9 and pass
    assert game.passed == [0, 1] and game.current_player == 2 and game.turn == 2
    game = position(3, {1: full}, draw=[SUSHI] * 3 + [RAMEN] * 2 + [TEMPURA] * 2 + [CROISSANT] * 2,
                    then=[CHEESE] * 5 + [CROISSANT] * 3)
    game.apply(SUSHI)  # seat 0 (3 cards) to seat 1, who passes, to seat 2
    assert game.passed == [1] and game.current_player == 2
    game.apply(CHEESE)  # seat 2 to seat 0: nobody passes on the way
    assert game.passed == [] and game.current_player == 0


def test_a_robbed_player_keeps_playing_after_the_thief_completes_9():
    game = position(2, {0: {SUSHI: 4, RAMEN: 4}, 1: {DONUT: 5, BURGER: 4}}, draw=[RACCOON], then=[CHEESE])
    game.apply(RACCOON)
    game.apply(steal_action(1, BURGER))
    assert [sum(c) for c in game.collections] == [9, 8]
    assert not game.game_over and game.current_player == 1 and on_table(game.drawn) == {"cheese": 1}
    game.apply(CHEESE)
    assert game.game_over and game.scores() == [float(4 + 3 + 0), float(7 + 6 + 9)]


# --- raccoons ---------------------------------------------------------------------------------
def test_stealing_a_bonus_card():
    game = position(2, {0: {SUSHI: 3, RAMEN: 3, TEMPURA: 2}, 1: {DONUT: 5, JAPANESE_B: 1, MILKSHAKE: 3}},
                    draw=[RACCOON])
    game.apply(RACCOON)
    assert steal_action(1, JAPANESE_B) in game.legal_actions()
    game.apply(steal_action(1, JAPANESE_B))
    assert held(game, 0)["Japanese bonus"] == 1 and game.collections[1][JAPANESE_B] == 0
    assert game.score_details()[0]["Japanese bonus"] == 8


def test_raccoon_cards_are_not_stealable_and_stay_beside_the_collection_used_or_not():
    game = position(2, {0: {RACCOON_B: 1, SUSHI: 5}, 1: {CHEESE: 2}}, raccoons=[1, 4],
                    draw=[RACCOON, RACCOON, RACCOON])
    game.apply(RACCOON)
    assert game.raccoons == [4, 4]
    assert game.legal_actions() == [steal_action(1, CHEESE), STOP_STEALING]  # no raccoon to steal
    game.apply(steal_action(1, CHEESE))
    assert game.phase == STEALING and game.steals_left == 2  # more steals are possible
    game.apply(STOP_STEALING)
    assert game.current_player == 1 and game.steals_left == 0
    assert game.raccoons == [4, 4]  # the unused raccoon stays too
    assert game.score_details()[0]["Raccoon bonus"] == 4  # every raccoon harvested counts
    assert game.discard[RACCOON] == 0


def test_taking_raccoons_with_nothing_to_steal_ends_the_turn():
    game = position(2, draw=[RACCOON, DONUT, RACCOON, SUSHI, SUSHI, CHEESE, BURGER, BURGER, RAMEN])
    game.apply(RACCOON)
    assert game.current_player == 1 and game.raccoons == [2, 0] and game.collections[0] == [0] * 14
    assert on_table(game.discard) == {"donut": 1, "sushi": 2, "cheese": 1, "burger": 2, "ramen": 1}


def test_drawn_raccoons_that_are_not_taken_are_discarded():
    game = position(2, draw=[RACCOON, DONUT, DONUT, SUSHI, SUSHI, CHEESE, BURGER, BURGER, RAMEN])
    game.apply(DONUT)
    assert game.discard[RACCOON] == 1 and game.raccoons == [0, 0]


def test_stealing_past_9_then_discarding_from_the_stolen_cards():
    """Cannot arise from a played game (see the rules' docstring), so the position is set by hand:
    two more cards put into the thief's collection after the draw."""
    game = position(2, {0: {SUSHI: 3, RAMEN: 3}, 1: {DONUT: 3, CHEESE: 3, JAPANESE_B: 1, SUSHI: 2}},
                    draw=[RACCOON, RACCOON, RACCOON])
    game.apply(RACCOON)
    game.deck.remove(CROISSANT), game.deck.remove(CROISSANT)
    game.collections[0][CROISSANT] += 2
    game._legal_cache.clear()
    game.apply(steal_action(1, DONUT))
    game.apply(steal_action(1, JAPANESE_B))
    game.apply(steal_action(1, DONUT))
    assert sum(game.collections[0]) == 11 and game.phase == DISCARDING and game.current_player == 0
    assert game.legal_actions() == [DISCARD + DONUT, DISCARD + JAPANESE_B]  # not the cards held before
    game.apply(DISCARD + DONUT)
    assert game.phase == DISCARDING and game.legal_actions() == [DISCARD + DONUT, DISCARD + JAPANESE_B]
    game.apply(DISCARD + JAPANESE_B)
    assert held(game, 0) == {"sushi": 3, "ramen": 3, "croissant": 2, "donut": 1}
    assert held(game, 1) == {"donut": 1, "cheese": 3, "sushi": 2}
    assert game.discard[DONUT] == 1 and game.discard[JAPANESE_B] == 1
    assert game.current_player == 1 and sum(game.drawn) == 3 and game.invariant_violations() == []


def test_food_cards_beyond_the_room_left_are_discarded():
    """Also set by hand: a draw always leaves room for the food taken (see the rules' docstring)."""
    game = position(2, {0: {SUSHI: 3, RAMEN: 3}}, draw=[DONUT, DONUT, DONUT])
    game.deck.remove(SUSHI)
    game.collections[0][SUSHI] += 1
    game.apply(DONUT)
    assert held(game, 0) == {"sushi": 4, "ramen": 3, "donut": 2}
    assert game.discard[DONUT] == 1 and game.invariant_violations() == []


# --- the draw pile -------------------------------------------------------------------------------
def test_an_empty_draw_pile_is_rebuilt_from_the_discard_pile_at_the_end_of_the_turn():
    game = position(2, {0: {SUSHI: 3, RAMEN: 3, TEMPURA: 1}, 1: {DONUT: 3, BURGER: 3, MILKSHAKE: 2}},
                    draw=[CHEESE, CHEESE], pile_is_exactly=True)
    assert game.deck == []
    old_discard = [t for t, n in enumerate(game.discard) for _ in range(n)]
    order = [MULTI_B] + [t for t in old_discard if t != MULTI_B]
    game.apply(CHEESE, reshuffle=order)
    assert game.current_player == 1 and on_table(game.drawn) == {"Multicolour bonus": 1}
    assert game.deck == order[1:] and game.discard == [0] * 15
    assert game.invariant_violations() == []


def test_a_draw_that_empties_the_pile_reshuffles_and_goes_on_drawing():
    game = position(2, {0: {SUSHI: 3, RAMEN: 3, TEMPURA: 2}, 1: {DONUT: 2, BURGER: 3}},
                    draw=[CHEESE], then=[TEMPURA], pile_is_exactly=True)
    cards = [t for t, n in enumerate(game.discard) for _ in range(n)]
    rest = list(cards)
    for t in (DONUT, RACCOON, MILKSHAKE):
        rest.remove(t)
    game.apply(CHEESE, reshuffle=[DONUT, RACCOON, MILKSHAKE] + rest)  # seat 1 (5 cards) draws 1 + 3
    assert on_table(game.drawn) == {"shrimp tempura": 1, "donut": 1, "milk-shake": 1, "raccoon": 1}
    assert game.discard == [0] * 15 and game.deck == rest
    assert game.invariant_violations() == []


def test_an_unscripted_reshuffle_shuffles_the_discard_pile():
    game = position(2, {0: {SUSHI: 3, RAMEN: 3, TEMPURA: 1}, 1: {DONUT: 3, BURGER: 3, MILKSHAKE: 2}},
                    draw=[CHEESE, CHEESE], pile_is_exactly=True)
    before = sorted(t for t, n in enumerate(game.discard) for _ in range(n))
    game.apply(CHEESE)
    after = game.deck + [t for t, n in enumerate(game.drawn) for _ in range(n)]
    assert sorted(after) == before and game.discard == [0] * 15
    assert game.deck != sorted(game.deck)  # shuffled, not left in order


def test_a_scripted_reshuffle_that_does_not_fit_changes_nothing():
    game = position(2, {0: {SUSHI: 3, RAMEN: 3, TEMPURA: 1}, 1: {DONUT: 3, BURGER: 3, MILKSHAKE: 2}},
                    draw=[CHEESE, CHEESE], pile_is_exactly=True)
    before = state_of(game)
    with pytest.raises(ConfigError, match="scripted reshuffle"):
        game.apply(CHEESE, reshuffle=[DONUT])
    assert state_of(game) == before
    game = position(2, draw=[CHEESE, CHEESE, DONUT, DONUT, SUSHI, SUSHI, SUSHI, RAMEN, RAMEN])
    before = state_of(game)
    with pytest.raises(ConfigError, match="no reshuffle|not rebuilt"):
        game.apply(CHEESE, reshuffle=[])
    assert state_of(game) == before


# --- bad input ---------------------------------------------------------------------------------
def test_actions_of_another_phase_are_illegal_and_change_nothing():
    game = position(2, {1: {DONUT: 2}}, draw=[RACCOON, SUSHI, SUSHI, SUSHI, RAMEN, RAMEN, RAMEN, CHEESE, CHEESE])
    before = state_of(game)
    for action in (steal_action(1, DONUT), STOP_STEALING, DISCARD + DONUT, DONUT, NUM_ACTIONS, -1):
        with pytest.raises(IllegalActionError, match="legal actions: "):
            game.apply(action)
        assert state_of(game) == before
    game.apply(RACCOON)
    before = state_of(game)
    for action in (SUSHI, RACCOON, steal_action(1, SUSHI), steal_action(2, DONUT), DISCARD + DONUT):
        with pytest.raises(IllegalActionError, match="steal a donut card from the player 1 seat to the left"):
            game.apply(action)
        assert state_of(game) == before


def test_every_action_has_its_own_readable_name():
    game = SnackWars(5, np.random.default_rng(0))
    names = [game.action_to_str(a) for a in range(NUM_ACTIONS)]
    assert len(set(names)) == NUM_ACTIONS and not any(n.startswith("<") for n in names)
    assert game.action_to_str(DONUT) == "take all the Food cards of value 7 (donut)"
    assert game.action_to_str(steal_action(4, MULTI_B)) == "steal a Multicolour bonus card from the player 4 seats to the left"
    assert game.action_to_str(NUM_ACTIONS) == f"<no action {NUM_ACTIONS}>"
