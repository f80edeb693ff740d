"""Snack Wars rules that a mutation probe of rules.py found unpinned (or pinned only by the
batched-engine comparison): each test names the rule it pins."""

from __future__ import annotations


from snack_envs.snack_wars.rules import CHOOSE, DISCARDING, STEALING, STOP_STEALING, SnackWars, steal_action
from tests.helpers import snapshot_refused
from tests.snack_wars.wars_positions import (
    BURGER,
    CHEESE,
    CROISSANT,
    DONUT,
    JAPANESE_B,
    MACARON,
    MILKSHAKE,
    RACCOON,
    RAMEN,
    SUSHI,
    TEMPURA,
    held,
    position,
)


def test_nobody_is_shown_as_passed_once_the_game_is_over():
    """`passed` lists the players who passed in this turn only: after the last turn there is no next
    turn, so nobody passed, even if a full collection passed just before."""
    full = {DONUT: 3, BURGER: 3, MILKSHAKE: 3}
    game = position(3, {0: {SUSHI: 3, RAMEN: 3, TEMPURA: 2}, 1: full, 2: {CHEESE: 4, CROISSANT: 4}},
                    draw=[TEMPURA], then=[CHEESE])
    game.apply(TEMPURA)
    assert game.passed == [1] and game.current_player == 2
    game.apply(CHEESE)  # the last collection completes: the game ends
    assert game.game_over and game.passed == []
    assert "Passed" not in game.render_text(names=["A", "B", "C"])


def test_a_steal_phase_with_raccoons_left_but_no_card_to_steal_ends_by_itself():
    """Steals are optional and one card each; a steal phase with no card left to steal ends by itself
    (no "stop" decision is asked), even with raccoons left over (they stay beside the collection)."""
    game = position(2, {1: {CHEESE: 1}}, draw=[RACCOON, RACCOON, RACCOON])
    game.apply(RACCOON)
    assert game.phase == STEALING and game.steals_left == 3
    assert game.legal_actions() == [steal_action(1, CHEESE), STOP_STEALING]
    game.apply(steal_action(1, CHEESE))  # the opponent's only card: nothing is left to steal
    assert game.current_player == 1 and game.phase == CHOOSE and game.steals_left == 0
    assert held(game, 0) == {"cheese": 1} and game.collections[1] == [0] * 14
    assert game.raccoons == [3, 0]
    assert game.invariant_violations() == []


# --- impossible snapshots: from_dict refuses a state the rules cannot reach, naming why ---------------
def choosing() -> SnackWars:
    """Seat 0 (3 cards) to choose among 6 drawn; seat 1 holds 8; the rest of the cards in the draw pile."""
    game = position(2, {0: {SUSHI: 3}, 1: {DONUT: 3, BURGER: 3, CHEESE: 2}}, draw=[RAMEN] * 5 + [TEMPURA])
    assert SnackWars.from_dict(game.to_dict()) == game
    return game


def discarding() -> SnackWars:
    """Seat 0 stole 2 donuts past 9 (a hand-set position, as in test_wars_rules) and must discard 1."""
    game = position(2, {0: {SUSHI: 3, RAMEN: 3}, 1: {DONUT: 3, CHEESE: 3, JAPANESE_B: 1, SUSHI: 2}},
                    draw=[RACCOON, RACCOON, RACCOON])
    game.apply(RACCOON)
    game.deck.remove(CROISSANT)
    game.deck.remove(CROISSANT)
    game.collections[0][CROISSANT] += 2
    game._legal_cache.clear()
    game.apply(steal_action(1, DONUT))
    game.apply(steal_action(1, DONUT))
    game.apply(STOP_STEALING)
    assert game.phase == DISCARDING and sum(game.collections[0]) == 10
    assert SnackWars.from_dict(game.to_dict()) == game  # the thief may hold 10 while discarding
    return game


def take_from_deck(state, kind: int, seat: int, n: int = 1) -> None:
    for _ in range(n):
        state["deck"].remove(kind)
    state["collections"][seat][kind] += n


def test_a_collection_above_9_is_refused_but_the_discarding_thiefs():
    """A collection never holds more than 9 cards ("you cannot have more than 9 cards"), save the
    thief's between stealing past 9 and discarding the excess stolen cards."""
    above_9 = r"impossible: seat {}'s collection .* is negative or above 9"
    snapshot_refused(choosing(), lambda s: take_from_deck(s, CHEESE, 1, 2), above_9.format(1))  # another seat
    def chooser_holds_10(state):
        take_from_deck(state, MACARON, 0, 5)
        take_from_deck(state, MILKSHAKE, 0, 2)

    snapshot_refused(choosing(), chooser_holds_10, above_9.format(0))
    snapshot_refused(discarding(), lambda s: take_from_deck(s, BURGER, 1, 3), above_9.format(1))  # the robbed seat


def test_a_negative_count_is_a_broken_invariant_and_refused_naming_the_field():
    """Card counts are never negative: the invariant check says so, and loading names the field."""
    game = choosing()
    game.collections[1][CHEESE] = -1
    assert any("seat 1's collection" in p and "negative" in p for p in game.invariant_violations())
    snapshot_refused(choosing(), lambda s: s["collections"][1].__setitem__(CHEESE, -1),
            r"collections\[1\]\[8\] = -1 is out of range")


def test_the_player_to_choose_is_below_9_and_has_drawn():
    """A player holding 9 passes, and a player to choose has drawn cards to complete their 9."""
    def holds_9(state):
        take_from_deck(state, CHEESE, 0)
        state["drawn"][RAMEN] -= 5
        state["collections"][0][RAMEN] += 5  # 3 + 1 + 5 = 9, a tempura still on the table

    snapshot_refused(choosing(), holds_9, r"is to choose with a full collection")

    def drew_nothing(state):
        state["discard"] = [d + n for d, n in zip(state["discard"], state["drawn"])]
        state["drawn"] = [0] * 15

    snapshot_refused(choosing(), drew_nothing, r"the player to choose has drawn nothing")


def test_a_finished_game_has_every_collection_at_9_and_nothing_on_the_table():
    """The game ends when all players have completed their collection of 9, the unused cards discarded."""
    full = {0: {DONUT: 3, BURGER: 3, MILKSHAKE: 3}, 1: {SUSHI: 3, RAMEN: 3, TEMPURA: 3}}
    game = position(2, full)
    assert game.game_over and SnackWars.from_dict(game.to_dict()) == game

    def one_card_short(state):
        state["collections"][0][DONUT] -= 1
        state["deck"].append(DONUT)

    def a_card_on_the_table(state):
        state["deck"].remove(CHEESE)
        state["drawn"][CHEESE] += 1

    snapshot_refused(game, one_card_short, r"game ended with a collection below 9")
    snapshot_refused(game, a_card_on_the_table, r"game ended with a collection below 9 or cards on the table")


def test_the_discard_phase_needs_a_collection_above_9_and_stolen_cards():
    """Only a thief above 9 discards, and only from the cards stolen this turn."""
    def down_to_9(state):
        state["collections"][0][SUSHI] -= 1
        state["discard"][SUSHI] += 1

    def nothing_stolen(state):
        state["stolen"] = [0] * 14

    snapshot_refused(discarding(), down_to_9, r"the discard phase without a collection above 9")
    snapshot_refused(discarding(), nothing_stolen, r"the discard phase without a collection above 9 or a stolen card")


def test_loading_refuses_out_of_range_cards_counts_and_steals():
    """Card types are 0..14, counts and steals are never negative."""
    snapshot_refused(choosing(), lambda s: s["deck"].append(15), r"deck\[\d+\] = 15 is out of range 0..14")
    snapshot_refused(choosing(), lambda s: s["deck"].append(-1), r"deck\[\d+\] = -1 is out of range 0..14")

    def negative_discard(state):
        state["discard"][MACARON] = -1
        state["deck"].append(MACARON)

    snapshot_refused(choosing(), negative_discard, r"discard\[0\] = -1 is out of range")
    game = position(2, {1: {CHEESE: 2}}, draw=[RACCOON, RACCOON])
    game.apply(RACCOON)
    assert game.phase == STEALING
    snapshot_refused(game, lambda s: s.__setitem__("steals_left", -1), r"steals_left = -1 is out of range")


def test_loading_refuses_a_seat_passed_twice_or_every_seat_passed():
    """Players who passed are other seats than the one to act, each once."""
    game = position(3, {1: {DONUT: 3, BURGER: 3, MILKSHAKE: 3}}, draw=[SUSHI])
    snapshot_refused(game, lambda s: s.__setitem__("passed", [1, 1]), r"passed = \[1, 1\] holds an item twice")
    game = position(2, draw=[SUSHI])
    snapshot_refused(game, lambda s: s.__setitem__("passed", [0, 1]), r"passed = \[0, 1\] must hold at most 1 item")


def test_steals_are_left_only_in_the_steal_phase_and_stolen_cards_lie_in_the_thiefs_collection():
    """Each raccoon taken allows one steal in that turn's steal phase, and a stolen card goes into the
    thief's collection (to be discarded from there if past 9)."""
    snapshot_refused(choosing(), lambda s: s.__setitem__("steals_left", 2), r"2 steals left outside the steal phase")

    def stole_a_cheese_not_held(state):
        state["stolen"][CHEESE] = 1

    snapshot_refused(discarding(), stole_a_cheese_not_held, r"stolen cards .* not in the thief's collection")


def test_loading_refuses_a_negative_turn_and_a_seat_that_does_not_exist_as_passed():
    """The turn count starts at 0; the players who passed are seats of this game."""
    snapshot_refused(choosing(), lambda s: s.__setitem__("turn", -1), r"turn = -1 is out of range")
    snapshot_refused(position(2, draw=[SUSHI]), lambda s: s.__setitem__("passed", [2]), r"passed\[0\] = 2 is out of range 0..1")

