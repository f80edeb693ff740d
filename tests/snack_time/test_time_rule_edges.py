"""Snack Time's rules at their edges, where a mutation probe of `snack_time/rules.py` found no test:

- the score range is exactly the worst and the best sheet the rulebook allows (the observation's
  score bounds and the reward's scale come from it);
- a seat that is not to act has no legal action, although it shares the dice of the seat that is;
- the invariants catch a trap card among the pedestrians (row or discard) and an entrance phase
  left open once the five entrances are placed;
- a snapshot is refused, naming the field, when it holds what no game can: an event with a field
  that is not an int, or a value past what its field can hold (cards, cells, dice, creatures);
- and when its fields do not fit together (found by editing snapshots at random): dice to draw against
  the dice rolled, damages and the cursor against the phase, the network forest's parents, the end
  against the sheets.
"""

from __future__ import annotations

import pytest

from snack_envs.core.game import ConfigError
from snack_envs.snack_time.components import (
    BADGES,
    FIRST_TRAP,
    NUM_CARDS,
    NUM_CELLS,
    NUM_CREATURES,
    NUM_ENTRANCES,
    PED_VALUE,
    SNACK_SLOTS,
    TRAIT_SLOTS,
    parse_cell,
)
from snack_envs.snack_time.rules import MAX_ROUNDS, SnackTime, entrance_action
from tests.helpers import combined, set_at
from tests.snack_time.time_scripted import HARMLESS_ROLL, NE, NW, TRAP, draw_path, finish_round, new_game, set_traits


# --- the score range -------------------------------------------------------------------------------------
def test_the_score_range_runs_from_nine_badges_and_no_snack_to_four_perfect_creatures_and_a_rat_a_round():
    """Rulebook: all 9 badges cost -6; a creature scores at most 3 snacks of the best value plus a
    satisfaction of 12 (3 snacks x 4 traits); with Rat Snacks one rat is drawn a round, and a game
    has at most 26 rounds (each after the first draws one of the 25 pedestrians left)."""
    worst = new_game(1, rat_snacks=True)
    worst.badges = [BADGES]
    assert worst.score(0) == -6 == SnackTime.score_range[0]

    best = new_game(1, entrances=["A1", "C1", "A3", "A6", "C6"], rat_snacks=True)
    best_card = PED_VALUE.index(max(PED_VALUE))
    for creature in range(NUM_CREATURES):
        best.snacks[0][creature] = [best_card] * SNACK_SLOTS
        set_traits(best, 0, creature, eyes=2, teeth=1, tentacles=1)
    # Madi's path (rulebook example): its cells reach creature NE; 4 rats a cell at most, 26 in all.
    draw_path(best, 0, [">0", ">1", ">2", "F2", "E2", "D2", "D3", "C3", "B3", "B4", "C4", "D4", "E4"])
    for name, rats in (("F2", 4), ("E2", 4), ("D2", 4), ("D3", 4), ("C3", 4), ("B3", 4), ("B4", 2)):
        best.rats[parse_cell(name)] = rats
    best.round = MAX_ROUNDS
    assert sum(best.rats) == MAX_ROUNDS == 26 and best.rat_points(0) == 26
    per_creature = SNACK_SLOTS * max(PED_VALUE) + SNACK_SLOTS * TRAIT_SLOTS
    assert per_creature == 3 * 10 + 12 == 42
    assert best.score(0) == 4 * 42 + 26 == 194 == SnackTime.score_range[1]


# --- whose decision it is --------------------------------------------------------------------------------
def test_a_seat_not_to_act_has_no_legal_action_even_with_the_same_dice_still_to_draw():
    """Seat by seat: while seat 0 draws this round's dice, seat 1 (which will draw the same dice
    next) has an all-zero mask, in the rules and in its observation."""
    from snack_envs.snack_time_v0 import raw_env

    game = new_game(2)
    assert game.phase == "place" and game.current_player == 0 and game.traits_left[1] == [0, 2, 0]
    assert game.action_mask(0).any()
    assert not game.action_mask(1).any() and game.legal_actions(1) == []
    env = raw_env(num_players=2)
    env.reset(seed=0)
    assert env.agent_selection == "player_0"
    assert env.observe("player_0")["action_mask"].any() and not env.observe("player_1")["action_mask"].any()


# --- invariants --------------------------------------------------------------------------------------------
def test_a_trap_card_among_the_pedestrians_breaks_an_invariant():
    """A drawn trap goes onto its location card (or back into the deck), never into the row or the
    discard pile, which get pedestrians only. TRAP[0] is the lowest trap id (FIRST_TRAP)."""
    in_discard = new_game(1)
    in_discard.deck.remove(TRAP[0])
    in_discard.discard.append(TRAP[0])
    in_row = new_game(1)
    in_row.deck[in_row.deck.index(TRAP[0])] = in_row.row[0]
    in_row.row[0] = TRAP[0]
    for game in (in_discard, in_row):
        problems = game.invariant_violations()
        assert any("only pedestrians" in p for p in problems), problems
    data = in_discard.to_dict()  # the discard's field holds any card: the invariant refuses the snapshot
    with pytest.raises(ConfigError, match="only pedestrians"):
        SnackTime.from_dict(data)


def test_the_entrance_phase_after_the_fifth_entrance_breaks_an_invariant():
    game = new_game(2, advanced_entrances=True)
    for cell in ("A1", "C1", "E3", "B5", "E6"):
        assert game.phase == "entrance" and game.invariant_violations() == []
        game.apply(entrance_action(cell))
    assert game.phase != "entrance" and game.invariant_violations() == []
    game.phase = "entrance"  # by hand: the five entrances are placed, nothing is left to choose
    assert "phase 'entrance' without advanced_entrances or with every entrance placed" in game.invariant_violations()


# --- snapshots ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("event", [["trap", "0"], ["trap", 0.0], ["trap", True], ["rat", float(parse_cell("B3"))],
                                   ["snack", 0, 0, 0, "1"], ["damage", 0, 0, None]])
def test_a_snapshot_event_with_a_field_that_is_not_an_int_is_refused(event):
    data = new_game(2).to_dict()
    data["state"]["events"] = [event]
    with pytest.raises(ConfigError, match="an event"):
        SnackTime.from_dict(data)


EMPTY_CELL = parse_cell("C3")  # no pipe, no entrance: not a node of any network
OUT_OF_RANGE = [  # (what, edit of the state, the message naming the field)
    ("an entrance past the last cell", set_at("entrances.0", NUM_CELLS),
     r"entrances\[0\] = 64 is out of range 0\.\.63"),
    ("a card id past the last card", set_at("deck.0", NUM_CARDS), r"deck\[0\] = 35 is out of range 0\.\.34"),
    ("an end reason twice", set_at("end_reasons", ["a player marked the last badge"] * 2),
     r"end_reasons = .* holds an item twice"),
    ("a trait die past the third face kind", set_at("dice_traits", [0, 3]),
     r"dice_traits\[1\] = 3 is out of range 0\.\.2"),
    ("a reach past the 4 creatures and 5 entrances", set_at(f"reach.0.{EMPTY_CELL}", 1 << 9),
     r"reach\[0\]\[\d+\] = 512 is out of range 0\.\.511"),
    ("a link past entrance 5", set_at("links.0.0", 1 << NUM_ENTRANCES),
     r"links\[0\]\[0\] = 32 is out of range 0\.\.31"),
    ("a trap card eaten", set_at("snacks.0.0", [FIRST_TRAP]),
     r"snacks\[0\]\[0\]\[0\] = 30 is out of range 0\.\.29"),
    ("a trap card eaten (entrance 2's)", set_at("snacks.0.0", [FIRST_TRAP + 1]),
     r"snacks\[0\]\[0\]\[0\] = 31 is out of range 0\.\.29"),
    ("a damage to a fifth creature", set_at("pending.1", [NUM_CREATURES]),
     r"pending\[1\]\[0\] = 4 is out of range 0\.\.3"),
    ("four pieces of a kind to draw from three dice", set_at("pipes_left.0", [4, 0, 0]),
     r"pipes_left\[0\]\[0\] = 4 is out of range 0\.\.3"),
]


@pytest.mark.parametrize("what, edit, message", OUT_OF_RANGE, ids=[case[0] for case in OUT_OF_RANGE])
def test_a_snapshot_value_past_what_its_field_can_hold_is_refused_naming_the_field(what, edit, message):
    """5 entrances on 64 cells, 35 cards of which 30 pedestrians (the only cards a creature eats),
    3 trait kinds, 3 pipe dice, 4 creatures; each end reason is given once."""
    game = new_game(2)
    data = game.to_dict()
    edit(data["state"])
    with pytest.raises(ConfigError, match=message):
        SnackTime.from_dict(data)
    assert SnackTime.from_dict(game.to_dict()) == game  # the unedited snapshot loads



# --- snapshots no game can reach ------------------------------------------------------------------------------
# Two rounds of the harmless roll (two Teeth, three I pipes) played by both seats: round 3, seat 0 to draw.
# Seat 0's pipes up column ">" form one network, rooted at D2 (cell 23): 23 <- 31 <- 39 <- 47 <- 55.
ROOT, PIPE, NEXT_PIPE = 23, 39, 47
UNREACHABLE = [  # (what, edit of the state, the message of the check that refuses it)
    ("a network's parents running round a loop", set_at(f"parent.0.{PIPE}", NEXT_PIPE),
     r"network forest: \S+ does not lead to the root of its network"),
    ("a parent off the network", set_at(f"parent.0.{PIPE}", 9),  # entrance 1's own network
     r"network forest: \S+ does not lead to the root of its network"),
    ("a network with a second root", combined(set_at(f"parent.0.{PIPE}", PIPE), lambda s: s["members"][0].__setitem__(
        PIPE, s["members"][0][ROOT]), lambda s: s["reach"][0].__setitem__(PIPE, s["reach"][0][ROOT])),
     r"network forest: \S+ is a second root of one network"),
    ("pipes drawn and to draw past the dice of the rounds so far", set_at("round", 2), "more pipes than dice rolled"),
    ("traits drawn and to draw past the dice of the rounds so far", set_at("round", 2), "more traits than dice rolled"),
    ("a seat yet to draw missing a die", set_at("pipes_left.1", [2, 0, 0]), r"seat 1: dice to draw \[0, 2, 0\] \[2, 0, 0\]"),
    ("the seat drawing with a die the dice do not show", set_at("traits_left.0", [0, 2, 1]),
     r"seat 0: dice to draw \[0, 2, 1\]"),
    ("no pipe dice while players draw", set_at("dice_pipes", []), r"dice \[1, 1\] \[\] in phase 'place'"),
    ("a damage waiting in the drawing phase", set_at("pending.1", [0]), r"seat 1: damages \[0\] to choose in phase 'place'"),
    ("a creature in the cursor outside snacking", set_at("cursor", [0, 2, 0]), r"cursor \[0, 2, 0\] in phase 'place'"),
    ("the last badge marked without ending the game", set_at("badges.1", BADGES), r"badges \[\d, 9\] with end reasons \[\]"),
    ("the game ending after the round for no reason", set_at("ending", True), r"ending = True with end reasons \[\]"),
    ("an end reason without the game ending", set_at("end_reasons", ["a player marked the last badge"]),
     r"ending = False with end reasons"),
    ("every creature fed, as no sheet is", combined(set_at("ending", True),
                                                    set_at("end_reasons", ["a player fed every creature 3 snacks"])),
     "no sheet has 3 snacks for every creature"),
    ("a creature completely killed without Advanced traps", combined(set_at("ending", True),
                                                                     set_at("end_reasons", ["a creature was completely killed"])),
     "end reason 'a creature was completely killed' given or missing"),
    ("the deck out while pedestrians are left in it", combined(set_at("ending", True),
                                                               set_at("end_reasons", ["the deck cannot refill the row"])),
     "end reason 'the deck cannot refill the row' with pedestrians left"),
]


@pytest.mark.parametrize("what, edit, message", UNREACHABLE, ids=[case[0] for case in UNREACHABLE])
def test_a_snapshot_no_game_can_reach_is_refused(what, edit, message):
    """Found by editing snapshots at random: each of these loaded, and play from it then ran off the rules (more
    pipes drawn than the dice gave, a seat with a damage to choose and no legal action, a network whose root
    the union-find never reaches, which `_root` would misread, halving a loop into a new root)."""
    game = new_game(2)
    finish_round(game)
    finish_round(game)
    assert (game.round, game.phase, game.current_player) == (3, "place", 0)
    assert [c for c in range(NUM_CELLS) if game.parent[0][c] >= 0 and c not in (9, 11, 29, 42, 53)] == [
        23, 31, 39, 47, 55, 62]
    assert game.parent[0][PIPE] == 31 and game.parent[0][NEXT_PIPE] == PIPE and game.parent[0][ROOT] == ROOT
    data = game.to_dict()
    edit(data["state"])
    with pytest.raises(ConfigError, match=message):
        SnackTime.from_dict(data)
    assert SnackTime.from_dict(game.to_dict()) == game  # the unedited snapshot loads


def test_killed_creatures_and_the_last_badge_end_the_game_as_they_happen():
    """With Advanced traps counting all 4 slots, a creature with its 4 slots crossed off is an end reason at
    once, as the last badge is; a snapshot that has one without the other is refused."""
    game = new_game(2, advanced_traps=True)
    finish_round(game)
    data = game.to_dict()
    data["state"]["crossed"][0][NW] = [TRAIT_SLOTS, 0, 0]
    data["state"]["round"] = 10  # so that the dice rolled so far gave those traits
    with pytest.raises(ConfigError, match="given or missing against creatures crossed off"):
        SnackTime.from_dict(data)
    data["state"]["ending"], data["state"]["end_reasons"] = True, ["a creature was completely killed"]
    assert SnackTime.from_dict(data).end_reasons == ["a creature was completely killed"]


def test_the_trap_phase_counts_the_dice_of_the_rounds_before_it():
    """A round's dice are rolled after its trap phase: in round r's trap phase r - 1 rolls have drawn at most
    r - 1 rats, so one more is refused there (the roll to come would draw one too many)."""
    game = new_game(1, rat_snacks=True, top=[TRAP[0]], rolls=[(*HARMLESS_ROLL[:2], "B3")])
    draw_path(game, 0, [">0", "F0", "E0", "D0", "C0", "B0", "A0", "A1"])  # NE -> entrance 1, where the trap lands
    set_traits(game, 0, NE, eyes=1)
    game.round = 10  # so that the pipes drawn by hand fit the dice
    finish_round(game)
    assert (game.phase, game.round, game.rats[parse_cell("B3")], sum(game.rats)) == ("trap", 11, 1, 1)
    data = game.to_dict()
    for cell, rats in [("C3", 4), ("D3", 4), ("C4", 1)]:  # 10 rats in all: one a roll
        data["state"]["rats"][parse_cell(cell)] = rats
    SnackTime.from_dict(data)
    data["state"]["rats"][parse_cell("C4")] = 2
    with pytest.raises(ConfigError, match="rats: "):
        SnackTime.from_dict(data)
