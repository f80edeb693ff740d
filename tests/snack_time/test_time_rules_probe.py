"""Snack Time's rules engine: behaviour a mutation probe of `rules.py` found unpinned by the other tests."""

from __future__ import annotations

import numpy as np
import pytest

from snack_envs.core.game import ConfigError
from snack_envs.snack_time.components import INNER_CELLS, parse_cell
from snack_envs.snack_time.rules import SnackTime, trait_action
from tests.snack_time.time_scripted import (
    ENTRANCES,
    EYE,
    HARMLESS_ROLL,
    I,
    INEDIBLE_ROW,
    NE,
    NW,
    SE,
    SW,
    TRAP,
    deck_with,
    finish_round,
    new_game,
    the_step_that_starts_round_2,
)


@pytest.mark.parametrize("bad", [64, -1])
def test_a_scripted_entrance_roll_off_the_map_is_a_clear_error(bad):
    """A scripted location-dice roll names a cell of the map: one off it is refused, not silently rerolled."""
    with pytest.raises(ConfigError, match="no cell"):
        SnackTime(1, np.random.default_rng(0), entrance_rolls=[bad] + ENTRANCES)


def test_a_trap_insert_above_the_top_of_the_deck_is_refused_and_changes_nothing():
    """Advanced traps: a scripted reshuffle index runs 0 (top) .. len(deck) (bottom); -1 is refused."""
    game = new_game(1, top=[TRAP[0], 0], advanced_traps=True)
    action = the_step_that_starts_round_2(game)
    before = game.copy()
    with pytest.raises(ConfigError, match="deck index"):
        game.apply(action, trap_inserts=[-1])
    assert game == before


@pytest.mark.parametrize("kind", [tuple, np.array])
def test_a_scripted_deck_of_any_sequence_becomes_plain_int_lists(kind):
    """The state is JSON data: a deck scripted as a tuple or an array is dealt into lists of ints,
    and the row can move on (round 2 pops and inserts)."""
    deck = deck_with(INEDIBLE_ROW, [0])
    game = SnackTime(1, np.random.default_rng(0), deck=kind(deck), entrance_rolls=ENTRANCES,
                      rolls=[HARMLESS_ROLL] * 3)
    assert type(game.row) is list and type(game.deck) is list
    assert all(type(c) is int for c in game.row + game.deck)
    finish_round(game)
    assert game.round == 2 and game.row == [0] + INEDIBLE_ROW[:4]


def test_apply_refuses_scripted_outcomes_other_than_trap_inserts():
    """Snack Time scripts its dice at construction: a step given other outcomes is a clear error."""
    game = new_game(1)
    with pytest.raises(ConfigError, match="at construction"):
        game.apply(game.legal_actions()[0], rolls=[])


def test_more_trap_inserts_than_traps_sprung_are_refused_and_change_nothing():
    """Advanced traps: one insert per trap sprung in the step; a spare one (here the trap goes deep into
    the deck, so the next card drawn is a pedestrian and only one trap springs) is refused."""
    game = new_game(1, top=[TRAP[0], 0], advanced_traps=True)
    action = the_step_that_starts_round_2(game)
    before = game.copy()
    with pytest.raises(ConfigError, match="only 1 were sprung"):
        game.apply(action, trap_inserts=[3, 3])
    assert game == before
    game.apply(action, trap_inserts=[3])
    assert game.round == 2 and game.deck.index(TRAP[0]) == 2


def test_a_scripted_entrance_roll_outside_the_location_dice_grid_is_rolled_again():
    """Rolled entrances come from the location dice (A-F x 1-6): a scripted roll on the map's outer ring
    (a creature's corner, column "<" or row 0) is not a space the dice can show; the next roll is used."""
    game = SnackTime(1, np.random.default_rng(0), entrance_rolls=["<3", "<0", "D0", ">7"] + ENTRANCES)
    assert game.entrances == [parse_cell(x) for x in ENTRANCES]


def test_a_rat_drawn_on_the_sheets_is_logged_as_an_event():
    """Rat Snacks: the round's events name the rat drawn (and only an ignored roll reads "rat ignored")."""
    game = new_game(1, rolls=[([EYE, EYE], [I, I, I], "B3")], rat_snacks=True)
    assert ["rat", parse_cell("B3")] in game.events
    assert not any(e[0] == "rat ignored" for e in game.events)


def test_the_solo_rating_rates_seat_0_by_default():
    """`solo_rank()` without a seat rates the first player's score (the solo player's)."""
    game = new_game(2)
    game.snacks[0][NW] = [27, 27, 27]  # three value-10 cards: seat 0 scores 30, seat 1 nothing
    assert game.score(0) == 30 and game.score(1) == 0
    assert game.solo_rank() == game.solo_rank(0) == "Truly Horrible" != game.solo_rank(1)


def test_state_changed_forgets_the_legal_actions_worked_out_before_a_hand_edit():
    """After editing the state by hand, `state_changed()` makes the legal actions follow the new state:
    a creature whose four trait slots were just filled takes no trait."""
    game = new_game(1, rolls=[([EYE, EYE], [I, I, I], None)])
    assert trait_action(EYE, NW) in game.legal_actions()
    game.healthy[0][NW] = [4, 0, 0]
    game.state_changed()
    assert game.legal_actions() == [trait_action(EYE, c) for c in (NE, SW, SE)]
    assert game.action_mask()[trait_action(EYE, NW)] == 0


def test_a_later_unscripted_trap_is_shuffled_back_by_the_rng_after_a_scripted_step():
    """Advanced traps: `trap_inserts` scripts only the step it is given to; a trap sprung in a later step
    goes back into the deck at a random place, with no script needed."""
    game = new_game(1, top=[TRAP[0], 0, TRAP[1], 1], advanced_traps=True)
    action = the_step_that_starts_round_2(game)
    game.apply(action, trap_inserts=[len(game.deck) - 1])  # trap 1 to the bottom
    assert game.round == 2 and game.deck[-1] == TRAP[0] and game.deck[0] == TRAP[1]
    game.apply(the_step_that_starts_round_2(game))  # round 3 springs trap 2, unscripted
    assert game.round == 3 and ["trap", 1] in game.events and TRAP[1] in game.deck
    assert game.invariant_violations() == []


def test_snapshot_events_at_the_low_end_of_each_field_are_accepted():
    """The event log's fields run from 0: seat 0, creature NW, entrance 1, pedestrian card 0, trait Eye."""
    game = new_game(2)
    data = game.to_dict()
    data["state"]["events"] = [["trap", 0], ["rat ignored", INNER_CELLS[0]], ["snack", 0, 0, 0, 0],
                               ["damage", 0, 0, 0]]
    assert SnackTime.from_dict(data).events == data["state"]["events"]


def test_a_cursor_that_does_not_point_at_the_player_to_act_breaks_an_invariant():
    """While a round is played the cursor's seat is the player to act; a state where they differ is flagged."""
    game = new_game(2)
    assert game.invariant_violations() == [] and game.cursor[0] == game.current_player == 0
    game.cursor[0] = 1
    assert any("cursor" in m for m in game.invariant_violations())


def test_an_entrance_next_to_another_breaks_an_invariant():
    """No two sewer entrances may be adjacent, diagonally included: a state holding two is flagged."""
    game = new_game(1)
    game.entrances[1] = parse_cell("B2")  # diagonal to entrance 1 at A1
    assert any("next to another" in m for m in game.invariant_violations())


@pytest.mark.parametrize("field", ["entrances", "deck", "row", "discard"])
def test_a_snapshot_holding_a_cell_or_card_twice_is_refused(field):
    """Each entrance is on its own cell and each card is in one place once: a repeat is refused on load."""
    game = new_game(2)
    finish_round(game)  # round 2: one card in the discard
    data = game.to_dict()
    items = data["state"][field]
    if len(items) > 1:
        items[1] = items[0]
    else:
        items.append(items[0])
    with pytest.raises(ConfigError, match="twice"):
        SnackTime.from_dict(data)


def test_seat_0_in_the_trap_phase_without_a_damage_to_choose_breaks_an_invariant():
    """The trap and snack phases stop only for a damage choice: seat 0 to act there with none is flagged."""
    game = new_game(2)
    game.phase = "trap"
    assert game.current_player == 0 and game.pending[0] == []
    assert any("no damage to choose" in m for m in game.invariant_violations())


def test_a_snapshot_network_bitmask_past_the_64_cells_is_refused():
    """`wet` holds one bit per cell of the 8x8 map: a 65th bit is out of range."""
    data = new_game(1).to_dict()
    data["state"]["wet"][0] = 1 << 64
    with pytest.raises(ConfigError, match="out of range"):
        SnackTime.from_dict(data)


def test_a_game_under_way_with_fewer_than_five_entrances_breaks_an_invariant():
    """Every sheet has the 5 sewer entrances once the entrance phase is over."""
    game = new_game(1)
    game.entrances.pop()
    assert any(m.startswith("entrances:") for m in game.invariant_violations())


@pytest.mark.parametrize("field, path", [("members", ("members", 0, 0)), ("cursor", ("cursor", 0)), ("cursor", ("cursor", 2))])
def test_a_snapshot_with_a_negative_bitmask_or_cursor_is_refused(field, path):
    """Network bitmasks and the cursor's seat count from 0: -1 is out of range."""
    data = new_game(1).to_dict()
    target = data["state"]
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = -1
    with pytest.raises(ConfigError, match=f"{field}.*out of range"):
        SnackTime.from_dict(data)


@pytest.mark.parametrize("event", [["damage", 0, 0, 1.0], ["snack", 0, 0, 0, -1], ["snack", 0, 0.0, 0, 0],
                                   ["snack", 0, -1, 0, 0], ["damage", 0, -1, 0]])
def test_a_snapshot_event_with_one_float_or_a_negative_card_among_ints_is_refused(event):
    """Every field of an event is an int in range: one float among ints, card -1 or creature -1 is refused."""
    data = new_game(2).to_dict()
    data["state"]["events"] = [event]
    with pytest.raises(ConfigError, match="an event"):
        SnackTime.from_dict(data)


def test_with_advanced_traps_a_single_trap_lying_on_a_location_breaks_an_invariant():
    """Advanced traps shuffle a drawn trap back into the deck: none ever lies on a location."""
    game = new_game(1, advanced_traps=True)
    game.deck.remove(TRAP[0])
    game.trap_spots[0] = True
    assert game.invariant_violations() == ["advanced traps: a trap lies on a location"]


def test_a_rat_on_a_sewer_entrance_breaks_an_invariant():
    """Rat Snacks: a roll on a sewer entrance adds nothing, so no rat is ever drawn on one."""
    game = new_game(1, rat_snacks=True, rolls=[([EYE, EYE], [I, I, I], None)])
    game.rats[game.entrances[0]] = 1
    assert any(m.startswith("rats:") for m in game.invariant_violations())


def test_a_snapshot_with_a_negative_pipe_die_is_refused():
    """The pipe dice show one of 3 pieces, 0..2."""
    data = new_game(1).to_dict()
    data["state"]["dice_pipes"] = [-1, 0, 0]
    with pytest.raises(ConfigError, match="dice_pipes.*out of range"):
        SnackTime.from_dict(data)


@pytest.mark.parametrize("path, value, field", [
    (("row", 0), 30, "row"),  # a trap card: only pedestrians (0..29) stand in the row
    (("row", 0), -1, "row"),
    (("parent", 0, 0), 64, "parent"),  # a network's root is a cell 0..63 (or -1: none)
    (("healthy", 0, 0, 0), -1, "healthy"),  # a creature holds 0..4 traits of a kind
    (("round",), -1, "round"),
    (("dice_pipes", 0), 3, "dice_pipes"),  # a pipe die shows one of 3 pieces
    (("cursor", 1), 4, "cursor"),  # snacking stands at creature 0..3
])
def test_a_snapshot_value_outside_its_fields_range_is_refused(path, value, field):
    """The state's fields hold what the game can hold; a value past either end is refused on load."""
    data = new_game(1).to_dict()
    target = data["state"]
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(ConfigError, match=f"{field}.*out of range"):
        SnackTime.from_dict(data)


def test_an_entrance_on_the_nw_creature_breaks_an_invariant():
    """No sewer entrance lies on a creature's corner, the NW one (cell 0) included."""
    game = new_game(1)
    game.entrances[0] = parse_cell("<0")
    assert any("on a creature" in m for m in game.invariant_violations())


def test_a_game_marked_over_outside_the_over_phase_breaks_an_invariant():
    """The phase is "over" exactly when the game is over."""
    game = new_game(1)
    game.game_over = True
    assert any("game_over" in m for m in game.invariant_violations())


def test_a_card_missing_from_every_pile_breaks_an_invariant():
    """The 35 cards are each in the deck, the row, the discard or on a trap spot, once."""
    game = new_game(1)
    game.deck.pop()
    assert any(m.startswith("cards:") for m in game.invariant_violations())


@pytest.mark.parametrize("path, value", [(("wet", 0), (1 << 64) - 1), (("parent", 0, 63), 63)])
def test_the_top_of_a_fields_range_passes_the_range_check(path, value):
    """Every one of the 64 cells as a bitmask, and cell 63 as a network root, are in range: such a
    snapshot gets past the range check (and is refused here only as inconsistent with the pipes)."""
    data = new_game(1).to_dict()
    target = data["state"]
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    with pytest.raises(ConfigError, match="impossible") as refused:
        SnackTime.from_dict(data)
    assert "out of range" not in str(refused.value)
