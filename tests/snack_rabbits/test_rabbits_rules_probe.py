"""Snack Rabbits rules that a mutation probe of rules.py found unpinned: each test names the rule
(or the state contract) it pins."""

from __future__ import annotations

import json

import numpy as np
import pytest

from snack_envs.core.game import ConfigError
from snack_envs.snack_rabbits.components import CARD_FENCE, CARD_KIND, FARMER_BROWN, NUM_CARDS, sun_cards
from snack_envs.snack_rabbits.rules import STOP, SnackRabbits, hop_action
from tests.helpers import snapshot_refused


def full_deck() -> list[int]:
    return list(range(NUM_CARDS)) + [FARMER_BROWN]


@pytest.mark.parametrize("deck", [
    [0] * (NUM_CARDS + 1),  # a card many times
    list(range(NUM_CARDS)),  # no Farmer Brown
    full_deck()[1:],  # a card missing
    full_deck() + [0],  # a card too many
])
def test_a_scripted_deck_must_hold_the_63_cards_and_farmer_brown_once(deck):
    """The draw pile is the 63 vegetable cards and Farmer Brown: a scripted deck that is not is refused."""
    with pytest.raises(ConfigError, match="scripted deck"):
        SnackRabbits(2, np.random.default_rng(0), deck=deck)


def test_a_scripted_deck_may_be_an_array_and_the_state_stays_json_native():
    """State fields hold JSON-native values: a deck scripted as a numpy array plays like the same list."""
    order = full_deck()
    game = SnackRabbits(2, np.random.default_rng(0), deck=np.array(order))
    same = SnackRabbits(2, np.random.default_rng(0), deck=order)
    assert all(type(c) is int for c in game.deck + game.revealed_this_turn)
    game.apply(STOP)
    same.apply(STOP)
    assert game == same
    json.dumps(game.to_dict()["state"])


def test_no_new_turn_begins_after_the_hop_that_empties_the_last_space():
    """The game ends as soon as Farmer Brown is out and every space is empty: the hop that empties the
    last space ends it, and no further turn begins (what that last turn turned over stays shown)."""
    tomato2 = next(c for c in range(NUM_CARDS) if c not in sun_cards(2) and CARD_FENCE[c] == 0)
    deck = [tomato2, FARMER_BROWN] + [c for c in range(NUM_CARDS) if c != tomato2]
    game = SnackRabbits(2, np.random.default_rng(0), deck=deck)
    game.apply(STOP)  # seat 1's turn turns over Farmer Brown; the space under fence 2 still holds a card
    assert game.revealed_this_turn == [FARMER_BROWN] and not game.game_over and game.current_player == 1
    assert SnackRabbits.from_dict(game.to_dict()) == game  # play goes on after Farmer Brown: a sound state
    game.apply(hop_action(2, 0), roll=[2])
    assert game.game_over and game.current_player == -1 and game.turn == 2
    assert game.revealed_this_turn == [FARMER_BROWN]
    assert "Turned over: Farmer Brown" in game.render_text()


# --- impossible snapshots: from_dict refuses a state the rules cannot reach, naming why ---------------
def test_loading_checks_the_turn_the_reveals_and_the_last_hop():
    """The turn count starts at 0; a card is turned over once; a hop is by a seat of the game and rolls
    the personal die and 0 to 8 white dice, each showing 1..6."""
    game = SnackRabbits(2, np.random.default_rng(0), deck=full_deck())
    snapshot_refused(game, lambda s: s.__setitem__("turn", -1), r"turn = -1 is out of range")
    card = game.revealed_this_turn[0]
    snapshot_refused(game, lambda s: s.__setitem__("revealed_this_turn", [card, card]),
            r"revealed_this_turn = .* holds an item twice")
    for roll in ([3], [1, 2, 3, 4, 5, 6, 1, 2, 3]):  # the personal die alone, or with all 8 white dice
        game.last_hop = {"player": 1, "fence": 0, "roll": roll, "taken": 0}
        assert SnackRabbits.from_dict(game.to_dict()) == game
    snapshot_refused(game, lambda s: s["last_hop"].__setitem__("roll", [0, 6]), r"last_hop\['roll'\]\[0\] = 0 is out of range 1..6")
    snapshot_refused(game, lambda s: s["last_hop"].__setitem__("player", -1), r"last_hop\['player'\] = -1 is out of range 0..1")
    snapshot_refused(game, lambda s: s["last_hop"].__setitem__("player", 2), r"last_hop\['player'\] = 2 is out of range 0..1")


def test_held_white_dice_are_never_negative():
    """The 8 white dice are in the pool or held: a negative holding breaks the dice invariant even when
    the total still comes to 8."""
    game = SnackRabbits(2, np.random.default_rng(0), deck=full_deck())
    game.white, game.pool = [-1, 1], 8
    assert any(p.startswith("white dice") for p in game.invariant_violations())
    game.white, game.pool = [8, 1], -1
    assert any(p.startswith("white dice") for p in game.invariant_violations())


def test_loading_refuses_a_hop_over_a_fence_that_does_not_exist():
    """There are 5 fences (heights 2 to 6), indices 0..4."""
    game = SnackRabbits(2, np.random.default_rng(0), deck=full_deck())
    game.last_hop = {"player": 0, "fence": 4, "roll": [6], "taken": 0}
    assert SnackRabbits.from_dict(game.to_dict()) == game
    snapshot_refused(game, lambda s: s["last_hop"].__setitem__("fence", 5), r"last_hop\['fence'\] = 5 is out of range 0..4")


def test_farmer_brown_is_either_revealed_or_in_the_draw_pile():
    """Revealing Farmer Brown puts him face up on the draw pile: he is then out of the draw pile's cards."""
    game = SnackRabbits(2, np.random.default_rng(0), deck=full_deck())
    snapshot_refused(game, lambda s: s.__setitem__("farmer_revealed", True), r"Farmer Brown is both revealed and in the draw pile")


def test_a_game_with_farmer_brown_out_and_every_space_empty_is_over():
    """"Keep playing until there are no more vegetable cards in the spaces. Then the game ends.\""""
    game = SnackRabbits(2, np.random.default_rng(0), deck=full_deck())

    def farmer_out_spaces_empty(state):
        state["deck"].remove(FARMER_BROWN)
        state["farmer_revealed"] = True
        for f, space in enumerate(state["fences"]):
            state["collections"][0] = [a + b for a, b in zip(state["collections"][0], space)]
            state["fences"][f] = [0] * len(space)

    snapshot_refused(game, farmer_out_spaces_empty, r"game_over = False, but the game ends exactly when Farmer Brown")


def test_loading_refuses_a_hop_with_no_die_and_a_card_that_does_not_exist():
    """A hop always rolls the personal die; cards are numbered 0..62, Farmer Brown 63."""
    game = SnackRabbits(2, np.random.default_rng(0), deck=full_deck())
    game.last_hop = {"player": 0, "fence": 0, "roll": [2], "taken": 0}
    snapshot_refused(game, lambda s: s["last_hop"].__setitem__("roll", []), r"last_hop\['roll'\] = \[\] must hold")
    snapshot_refused(game, lambda s: s["last_hop"].__setitem__("roll", [6] * 10), r"last_hop\['roll'\] = .* must hold")
    snapshot_refused(game, lambda s: s["deck"].append(-1), r"deck\[\d+\] = -1 is out of range 0..63")


def test_loading_refuses_a_negative_vegetable_count_even_when_the_totals_balance():
    """Players hold whole cards: a count of -1 offset by an extra card elsewhere is still impossible."""
    game = SnackRabbits(2, np.random.default_rng(0), deck=full_deck())

    def owes_a_card(state):
        state["collections"][0][0] = -1
        state["collections"][1][0] = 1

    snapshot_refused(game, owes_a_card, r"collections\[0\]\[0\] = -1 is out of range")


def test_loading_refuses_a_card_twice_in_the_draw_pile_and_a_negative_take():
    """Each card exists once (even if the count per vegetable still adds up); a hop takes 0 or more cards."""
    game = SnackRabbits(2, np.random.default_rng(0), deck=full_deck())

    def a_card_twice(state):
        first = state["deck"][0]
        twin = next(c for c in state["deck"][1:] if c != FARMER_BROWN and CARD_KIND[c] == CARD_KIND[first])
        state["deck"][state["deck"].index(twin)] = first

    snapshot_refused(game, a_card_twice, r"deck = .* holds an item twice")
    game.last_hop = {"player": 0, "fence": 0, "roll": [2], "taken": 0}
    snapshot_refused(game, lambda s: s["last_hop"].__setitem__("taken", -1), r"last_hop\['taken'\] = -1 is out of range")

