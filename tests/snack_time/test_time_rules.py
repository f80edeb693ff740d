"""Snack Time against its rulebook: components, the worked examples, scripted rounds for every rule."""

from __future__ import annotations

import numpy as np
import pytest

from snack_envs.core.game import ConfigError, IllegalActionError
from snack_envs.snack_time.components import (
    BADGE,
    DAMAGE,
    INNER_CELLS,
    KING_ZONE,
    PATTERNS,
    PEDESTRIANS,
    PIPE_DIE_FACES,
    TRAIT_DIE_FACES,
    cell_of,
    parse_cell,
    solo_rank,
)
from snack_envs.snack_time.rules import (
    DAMAGE_BASE,
    PIPE_BASE,
    SnackTime,
    damage_action,
    entrance_action,
    pipe_action,
    trait_action,
)
from tests.snack_time.time_scripted import (
    EYE,
    HARMLESS_ROLL,
    INEDIBLE_ROW,
    NE,
    NW,
    SE,
    SW,
    TENTACLE,
    TOOTH,
    TRAP,
    E,
    I,
    L,
    N,
    S,
    T,
    W,
    draw_path,
    finish_round,
    new_game,
    set_traits,
    the_step_that_starts_round_2,
    values,
)

def bits(*entrances: int) -> int:
    """Entrance numbers 1..5 as the bitmask of `links`."""
    return sum(1 << (k - 1) for k in entrances)


def play_round(game: SnackTime) -> None:
    """Play the round to its end with the first legal action each time."""
    start = game.round
    while game.round == start and not game.game_over:
        game.apply(game.legal_actions()[0])


# --- components ----------------------------------------------------------------------------------
def test_the_invented_pedestrians_follow_the_documented_shape():
    assert len(PEDESTRIANS) == 30
    assert sorted(p.value for p in PEDESTRIANS) == sorted(list(range(1, 11)) * 3)
    counts = [sum(p.needs) for p in PEDESTRIANS]
    assert min(counts) == 0 and max(counts) == 4
    by_value = [np.mean([sum(p.needs) for p in PEDESTRIANS if p.value == v]) for v in range(1, 11)]
    assert by_value == sorted(by_value)  # requirements grow with the value
    assert sum(p.consequence == BADGE for p in PEDESTRIANS) == 10  # a third
    assert sum(p.consequence == DAMAGE for p in PEDESTRIANS) == 5  # a sixth
    # a perfect creature: a value-10 card without Damage that 4 traits can meet
    assert any(p.value == 10 and sum(p.needs) == 4 and p.consequence != DAMAGE for p in PEDESTRIANS)


def test_dice_and_the_ten_opening_patterns():
    assert sorted(TRAIT_DIE_FACES) == [EYE, EYE, TOOTH, TOOTH, TENTACLE, TENTACLE]
    assert sorted(PIPE_DIE_FACES) == [I, I, L, L, T, T]
    assert len(PATTERNS) == len({o for _, o in PATTERNS}) == 10
    by_piece = {piece: [o for p, o in PATTERNS if p == piece] for piece in (I, L, T)}
    assert sorted(by_piece[I]) == sorted([N | S, E | W])
    assert sorted(by_piece[L]) == sorted([N | E, E | S, S | W, W | N])
    assert sorted(by_piece[T]) == sorted([15 & ~W, 15 & ~N, 15 & ~E, 15 & ~S])


# --- setup: the sewer entrances ----------------------------------------------------------------------
def test_the_rulebook_example_a3_then_b4_is_rolled_again():
    rolls = ["A3", "B4", "A3", "B4", "D5", "F1", "A6", "F6"]
    game = SnackTime(2, np.random.default_rng(0), entrance_rolls=rolls)
    assert parse_cell("B4") in KING_ZONE[parse_cell("A3")]  # diagonal neighbours
    assert game.entrances == [parse_cell(x) for x in ("A3", "D5", "F1", "A6", "F6")]


def test_when_no_space_is_left_the_entrances_are_rolled_again_from_the_start():
    boxed = ["B2", "E2", "B5", "E5"]  # their neighbourhoods cover all 36 spaces
    assert set().union(*(KING_ZONE[parse_cell(x)] for x in boxed)) >= set(INNER_CELLS)
    game = SnackTime(1, np.random.default_rng(0), entrance_rolls=boxed + ["A1", "C1", "E1", "A3", "C3"])
    assert game.entrances == [parse_cell(x) for x in ("A1", "C1", "E1", "A3", "C3")]


def test_rolled_entrances_are_inner_spaces_never_adjacent_and_the_same_for_everyone():
    for seed in range(300):
        game = SnackTime(3, np.random.default_rng(seed))
        assert len(set(game.entrances)) == 5 and set(game.entrances) <= set(INNER_CELLS)
        for a in game.entrances:
            assert not any(b in KING_ZONE[a] for b in game.entrances if b != a)
    assert len({tuple(SnackTime(1, np.random.default_rng(s)).entrances) for s in range(20)}) > 15


def test_advanced_mode_players_take_turns_choosing_entrances_anywhere():
    game = new_game(2, advanced_entrances=True)
    assert (game.phase, game.round, game.current_player) == ("entrance", 0, 0)
    corners = {cell_of(0, 0), cell_of(0, 7), cell_of(7, 0), cell_of(7, 7)}
    assert {a - entrance_action(0) for a in game.legal_actions()} == set(range(64)) - corners
    game.apply(entrance_action(">1"))  # on the ring, next to the NE creature
    assert game.current_player == 1
    assert game.links[0][NE] == game.links[1][NE] == bits(1)  # an entrance next to a creature connects
    assert entrance_action(">2") not in game.legal_actions() and entrance_action("F2") not in game.legal_actions()
    with pytest.raises(IllegalActionError):
        game.apply(entrance_action("F0"))  # diagonal to >1
    for seat, name in zip([1, 0, 1, 0], ["<3", "C3", "E5", "A6"]):
        assert game.current_player == seat
        game.apply(entrance_action(name))
    assert game.entrances == [parse_cell(x) for x in (">1", "<3", "C3", "E5", "A6")]
    assert (game.phase, game.round, game.current_player) == ("place", 1, 0)
    with pytest.raises(ConfigError, match="entrance_rolls"):
        SnackTime(1, np.random.default_rng(0), advanced_entrances=True, entrance_rolls=["A1"])


# --- traits ------------------------------------------------------------------------------------------
def test_both_traits_go_on_creatures_with_an_open_slot():
    game = new_game(2, rolls=[([EYE, TENTACLE], [I, I, I], None)])
    assert game.legal_actions() == [trait_action(t, c) for t in (EYE, TENTACLE) for c in range(4)]
    game.apply(trait_action(EYE, NW))
    assert game.legal_actions() == [trait_action(TENTACLE, c) for c in range(4)]
    game.apply(trait_action(TENTACLE, NW))
    assert game.healthy[0][NW] == [1, 0, 1] and game.traits_left[0] == [0, 0, 0]
    assert all(a >= PIPE_BASE for a in game.legal_actions())  # now the pipes


def test_a_crossed_slot_is_not_open_and_the_second_trait_is_skipped_without_a_slot():
    game = new_game(2, rolls=[([EYE, TENTACLE], [I, I, I], None)])
    for c in (NW, NE, SW):
        set_traits(game, 1, c, eyes=2, crossed=(0, 2, 0))
    set_traits(game, 1, SE, teeth=2, crossed=(1, 0, 0))  # one open slot left
    finish_round_for_seat(game, 0)
    assert game.current_player == 1
    assert game.legal_actions() == [trait_action(EYE, SE), trait_action(TENTACLE, SE)]
    game.apply(trait_action(TENTACLE, SE))
    assert game.traits_left[1] == [0, 0, 0]  # the Eye had nowhere to go
    assert all(a >= PIPE_BASE for a in game.legal_actions())


def finish_round_for_seat(game: SnackTime, seat: int) -> None:
    while game.current_player == seat and game.phase == "place":
        game.apply(game.legal_actions()[0])


# --- pipes -------------------------------------------------------------------------------------------
def test_a_pipe_must_open_onto_a_creature_an_entrance_or_a_pipe_opening():
    game = new_game(1, rolls=[([EYE, EYE], [L, I, I], None)])
    game.apply(trait_action(EYE, SE))
    game.apply(trait_action(EYE, SE))
    legal = game.legal_actions()
    cells = {(a - PIPE_BASE) // 10 for a in legal}
    anchors = [cell_of(0, 0), cell_of(0, 7), cell_of(7, 0), cell_of(7, 7)] + game.entrances
    expected = {
        cell_of(r + dr, c + dc)
        for r, c in (divmod(x, 8) for x in anchors)
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
        if 0 <= r + dr < 8 and 0 <= c + dc < 8
    } - set(anchors)
    assert cells == expected
    # A0 touches the NW creature (W) and entrance 1 (S): a pattern must open W or S.
    assert pipe_action("A0", E | W) in legal and pipe_action("A0", N | S) in legal
    assert pipe_action("A0", N | E) not in legal  # opens onto the map's edge and an empty cell only
    assert pipe_action("A0", N | E | S) not in legal  # no T was rolled
    with pytest.raises(IllegalActionError, match="legal actions"):
        game.apply(pipe_action("B0", E | W))


def test_pipes_connect_creatures_through_entrances_but_not_where_openings_do_not_face():
    game = new_game(1, rolls=[([EYE, EYE], [L, I, I], None), ([EYE, EYE], [I, I, I], None)])
    for _ in range(2):
        game.apply(trait_action(EYE, SE))
    game.apply(pipe_action("A0", S | W))  # NW -> entrance 1
    assert game.links[0][NW] == bits(1)
    assert pipe_action("B0", E | W) not in game.legal_actions()  # A0 opens S and W: B0 takes no pipe
    game.apply(pipe_action("B1", E | W))  # entrance 1 -> entrance 2: the network runs through entrance 1
    assert game.links[0][NW] == bits(1, 2)
    game.apply(pipe_action(">6", N | S))  # SE's own pipe
    assert game.links[0][SE] == 0
    assert (game.round, game.phase) == (2, "place")
    game.apply(trait_action(EYE, SW))
    game.apply(trait_action(EYE, SW))
    game.apply(pipe_action("F6", E | W))  # W faces entrance 5, E faces the closed W side of >6
    assert game.links[0][SE] == 0
    creatures, entrances, _ = game.flood(0, parse_cell("F6"))
    assert (creatures, entrances) == (0, bits(5))
    assert game.invariant_violations() == []


def test_a_creature_is_an_end_point_networks_do_not_run_through_it():
    game = new_game(1)
    draw_path(game, 0, ["<0", "<1", "A1"])  # NW's south side -> entrance 1
    draw_path(game, 0, [">0", "F0", "E0", "D0", "C0", "B0", "A0", "<0"])  # NE -> NW's east side
    assert game.links[0][NW] == bits(1)
    assert game.links[0][NE] == 0
    assert [m for m in game.invariant_violations() if "dice" not in m] == []  # pipes drawn by hand here


def test_pieces_with_no_place_are_skipped():
    game = new_game(2)
    free = [c for c in range(64) if game._free(1, c)]
    for cell in free:  # seat 1's map is full
        game._draw_pipe(1, cell, N | S)
    finish_round_for_seat(game, 0)
    assert game.current_player == 1
    game.apply(trait_action(TOOTH, SE))
    game.apply(trait_action(TOOTH, SE))
    assert game.round == 2 and game.current_player == 0  # seat 1's three pipes were skipped
    assert sum(1 for o in game.pipes[1] if o) == len(free)


# --- snacking ----------------------------------------------------------------------------------------
def test_the_rulebook_example_jamie_and_kyle_snack_at_entrance_1():
    one_eye = 4  # value 2, needs one Eye
    assert PEDESTRIANS[one_eye].needs == (1, 0, 0)
    game = new_game(2, row=[one_eye] + INEDIBLE_ROW[1:])
    jamie, kyle = 0, 1
    draw_path(game, jamie, ["<0", "A0", "A1"])
    draw_path(game, jamie, ["<7", "<6", "<5", "<4", "<3", "<2", "<1", "A1"])
    set_traits(game, jamie, NW, eyes=1)
    set_traits(game, jamie, SW, eyes=1)
    draw_path(game, kyle, ["<0", "A0", "A1"])
    set_traits(game, kyle, NW, eyes=1)
    finish_round(game)
    assert values(game, jamie, NW) == values(game, jamie, SW) == values(game, kyle, NW) == [2]
    assert values(game, jamie, NE) == values(game, kyle, SW) == []
    assert game.row[1] == one_eye  # not removed: it walks on to entrance 2


def test_a_requirement_counts_uncrossed_traits_only():
    two_eyes = 13  # value 5, needs two Eyes, Badge
    game = new_game(3, row=[two_eyes, 24, 22, 15, 11])
    for p in range(3):
        draw_path(game, p, ["<0", "A0", "A1"])
    set_traits(game, 0, NW, eyes=1)
    set_traits(game, 1, NW, eyes=1, crossed=(1, 0, 0))
    set_traits(game, 2, NW, eyes=2, teeth=1)
    finish_round(game)
    assert [values(game, p, NW) for p in range(3)] == [[], [], [5]]
    assert game.badges == [0, 0, 1]


def test_snacking_is_forced_and_goes_in_entrance_order():
    game = new_game(1, row=[3, 27] + INEDIBLE_ROW[2:])  # entrance 1: value 2, nothing needed; 2: value 10
    draw_path(game, 0, ["<0", "A0", "A1"])
    draw_path(game, 0, ["A1", "B1", "C1"])
    set_traits(game, 0, NW, eyes=2, teeth=1, tentacles=1)  # meets both
    game.snacks[0][NW] = [0, 1]  # one skull left
    finish_round(game)
    assert values(game, 0, NW) == [1, 1, 2]  # the 2 at entrance 1 comes first; then the creature is full


def test_one_creature_can_snack_at_several_entrances_in_a_round():
    game = new_game(1, row=[4, 7] + INEDIBLE_ROW[2:])  # value 2 needs an Eye; value 3 needs an Eye, Badge
    draw_path(game, 0, ["<0", "A0", "A1"])
    draw_path(game, 0, ["A1", "B1", "C1"])
    set_traits(game, 0, NW, eyes=1)
    finish_round(game)
    assert values(game, 0, NW) == [2, 3] and game.badges == [1]


@pytest.mark.parametrize("crossed, eaten", [(EYE, [3]), (TENTACLE, [3, 2])])
def test_a_damage_at_entrance_1_can_stop_a_snack_at_entrance_2(crossed, eaten):
    # entrance 1: value 3, needs a Tentacle, Damage; entrance 2: value 2, needs an Eye
    game = new_game(1, row=[8, 4] + INEDIBLE_ROW[2:])
    draw_path(game, 0, ["<0", "A0", "A1"])
    draw_path(game, 0, ["A1", "B1", "C1"])
    set_traits(game, 0, NW, eyes=1, tentacles=1)
    finish_round(game)
    assert (game.phase, game.current_player, values(game, 0, NW)) == ("snack", 0, [3])
    assert game.legal_actions() == [damage_action(NW, EYE), damage_action(NW, TENTACLE)]
    game.apply(damage_action(NW, crossed))
    assert values(game, 0, NW) == eaten
    assert game.crossed[0][NW][crossed] == 1 and game.round == 2


# --- traps -------------------------------------------------------------------------------------------
def test_traps_mark_a_badge_for_everyone_and_damage_the_creatures_connected_to_their_entrance():
    game = new_game(2, top=[TRAP[0], TRAP[2], 0])  # round 2 draws trap 1, trap 3, then pedestrian 0
    draw_path(game, 0, ["<0", "A0", "A1"])
    set_traits(game, 0, NW, eyes=1, teeth=1)
    draw_path(game, 1, ["<0", "A0", "A1"])  # connected too, but no trait to lose
    row = list(game.row)
    finish_round(game)
    assert (game.round, game.phase, game.current_player) == (2, "trap", 0)
    assert game.badges == [2, 2]
    assert game.trap_spots == [True, False, True, False, False]
    assert game.row == [0] + row[:4] and game.discard == [row[4]]
    assert game.dice_traits == [] and game.dice_pipes == []  # rolled after the trap choices
    assert game.legal_actions() == [damage_action(NW, EYE), damage_action(NW, TOOTH)]
    game.apply(damage_action(NW, TOOTH))
    assert game.healthy[0][NW] == [1, 0, 0] and game.crossed[0][NW] == [0, 1, 0]
    assert (game.phase, game.current_player) == ("place", 0) and game.dice_traits == HARMLESS_ROLL[0]
    assert [m for m in game.invariant_violations() if "dice" not in m] == []  # pipes and traits drawn by hand


def test_two_traps_hit_a_creature_twice_but_only_while_it_has_a_trait():
    game = new_game(1, top=[TRAP[0], TRAP[1], 0])
    draw_path(game, 0, ["<0", "A0", "A1"])
    draw_path(game, 0, ["A1", "B1", "C1"])  # NW reaches entrances 1 and 2
    set_traits(game, 0, NW, eyes=1)
    finish_round(game)
    assert game.pending[0] == [NW, NW]
    game.apply(damage_action(NW, EYE))
    assert game.phase == "place"  # the second damage finds nothing to cross off
    assert game.badges == [2]


def test_advanced_traps_are_shuffled_back_and_a_killed_creature_ends_the_game():
    game = new_game(1, top=[TRAP[0], 0], advanced_traps=True)
    draw_path(game, 0, ["<0", "A0", "A1"])
    set_traits(game, 0, NW, eyes=1, crossed=(2, 1, 0))  # one trait left, three slots crossed
    finish_round(game)
    assert game.trap_spots == [False] * 5 and TRAP[0] in game.deck and len(game.deck) == 29
    game.apply(damage_action(NW, EYE))
    assert game.ending and not game.game_over  # the round is finished first
    finish_round(game)
    assert game.game_over and game.end_reasons == ["a creature was completely killed"]


@pytest.mark.parametrize("killed_when, ends", [("all_slots", False), ("no_healthy_trait", True)])
def test_a_creature_losing_its_only_trait_with_empty_slots_left_is_killed_only_in_one_reading(killed_when, ends):
    # "completely killed (no remaining traits)": one trait written, three slots empty, and it loses that trait.
    game = new_game(1, top=[TRAP[0], 0], advanced_traps=True, killed_when=killed_when)
    draw_path(game, 0, ["<0", "A0", "A1"])
    set_traits(game, 0, NW, eyes=1)
    finish_round(game)
    game.apply(damage_action(NW, EYE))
    assert game.healthy[0][NW] == [0, 0, 0] and sum(game.crossed[0][NW]) == 1
    finish_round(game)
    assert game.game_over == ends
    assert game.end_reasons == (["a creature was completely killed"] if ends else [])


def test_without_advanced_traps_a_killed_creature_does_not_end_the_game():
    game = new_game(1, top=[TRAP[0], 0])
    draw_path(game, 0, ["<0", "A0", "A1"])
    set_traits(game, 0, NW, eyes=1, crossed=(2, 1, 0))
    finish_round(game)
    game.apply(damage_action(NW, EYE))
    finish_round(game)
    assert not game.game_over and game.round == 3


# --- the end -----------------------------------------------------------------------------------------
def test_feeding_every_creature_three_snacks_ends_the_game_after_the_round():
    game = new_game(2, row=[0] + INEDIBLE_ROW[1:])  # entrance 1: value 1, needs nothing
    for c in (NE, SW, SE):
        game.snacks[0][c] = [1, 3, 6]
    game.snacks[0][NW] = [0, 0]
    for p in (0, 1):
        draw_path(game, p, ["<0", "A0", "A1"])
    finish_round(game)
    assert game.game_over and game.end_reasons == ["a player fed every creature 3 snacks"]
    assert values(game, 0, NW) == [1, 1, 1]
    assert values(game, 1, NW) == [1]  # the round was finished for everyone
    assert game.legal_actions() == [] and game.current_player == -1


def test_the_last_badge_ends_the_game_after_the_round_and_no_badge_is_marked_past_nine():
    game = new_game(2, row=[2, 7] + INEDIBLE_ROW[2:])  # two Badge cards: nothing needed; one Eye
    game.badges = [8, 0]
    for p in (0, 1):
        draw_path(game, p, ["<0", "A0", "A1"])
        draw_path(game, p, ["A1", "B1", "C1"])
        set_traits(game, p, NW, eyes=1)
    finish_round(game)
    assert game.badges == [9, 2]
    assert game.game_over and game.end_reasons == ["a player marked the last badge"]


def test_a_trap_that_marks_the_last_badge_lets_the_round_finish():
    game = new_game(1, top=[TRAP[3], 0])
    game.badges = [8]
    finish_round(game)
    assert game.badges == [9] and game.ending and not game.game_over and game.phase == "place"
    finish_round(game)
    assert game.game_over and game.round == 2


def test_the_game_ends_when_the_deck_cannot_refill_the_row():
    game = new_game(1)
    pedestrians = [c for c in game.deck if c < TRAP[0]]
    game.deck = [c for c in game.deck if c >= TRAP[0]]  # only traps left
    game.discard += pedestrians
    finish_round(game)
    assert game.game_over and game.round == 1 and game.end_reasons == ["the deck cannot refill the row"]
    assert game.invariant_violations() == []


# --- scoring -----------------------------------------------------------------------------------------
def card_of_value(value: int, needs_at_most: int = 4) -> int:
    return next(i for i, p in enumerate(PEDESTRIANS) if p.value == value and sum(p.needs) <= needs_at_most)


def test_the_rulebook_example_carls_score_is_67():
    game = new_game(1)
    game.snacks[0][NW] = [card_of_value(2), card_of_value(8), card_of_value(10)]
    set_traits(game, 0, NW, eyes=2, teeth=1, crossed=(0, 0, 1))  # damaged once: 3 traits left
    set_traits(game, 0, NE, eyes=1)
    set_traits(game, 0, SW, teeth=2)
    game.snacks[0][SE] = [27, 27, 27]
    set_traits(game, 0, SE, eyes=2, teeth=1, tentacles=1)
    game.badges = [7]
    assert game.creature_points(0, NW) == (20, 9)
    assert game.creature_points(0, NE) == game.creature_points(0, SW) == (0, 0)
    assert sum(game.creature_points(0, SE)) == 42  # the perfect creature
    assert game.badge_penalty(0) == 4
    assert game.score(0) == game.scores()[0] == 29 + 0 + 0 + 42 - 4 == 67


def test_satisfaction_is_snacks_times_uncrossed_traits_at_most_12():
    game = new_game(1)
    for snacks in range(4):
        for traits in range(5):
            game.snacks[0][NW] = [0] * snacks
            set_traits(game, 0, NW, eyes=traits, crossed=(0, 0, 4 - traits))
            assert game.creature_points(0, NW)[1] == snacks * traits <= 12


def test_every_three_badges_cost_two_points():
    game = new_game(1)
    penalties = []
    for badges in range(10):
        game.badges = [badges]
        penalties.append(game.score(0))
    assert penalties == [0, 0, 0, -2, -2, -2, -4, -4, -4, -6]


# --- rat snacks --------------------------------------------------------------------------------------
def test_the_rulebook_example_madis_8_rat_points():
    game = new_game(1, entrances=["A1", "C1", "A3", "A6", "C6"], rat_snacks=True)
    path = [">0", ">1", ">2", "F2", "E2", "D2", "D3", "C3", "B3", "B4", "C4", "D4", "E4", "F4", "F5",
            "E5", "D5", "D6", "E6", "F6"]
    draw_path(game, 0, path)
    for name in ("B3", "D3", "D5", "E6", "E2", "F4", "F2", "F2"):
        game.rats[parse_cell(name)] += 1
    assert game.rat_points(0) == 8 and game.score(0) == 8
    game.rats[parse_cell("F6")] += 1  # the path's end: no pipe there
    game.rats[parse_cell("B2")] += 1
    assert game.rat_points(0) == 8


def test_rats_are_rolled_each_round_four_at_most_and_never_on_an_entrance():
    rolls = [([EYE, EYE], [I, I, I], "B3")] * 5 + [([EYE, EYE], [I, I, I], "A1")]
    game = new_game(1, rolls=rolls, rat_snacks=True)
    seen = []
    for _ in range(6):
        seen.append(game.rats[parse_cell("B3")])
        assert game.rat_roll == parse_cell("B3" if game.round <= 5 else "A1")  # this round's roll, in the state
        play_round(game)
        if game.round == 6:
            assert ["rat ignored", parse_cell("A1")] in game.events
    assert seen == [1, 2, 3, 4, 4, 4]
    assert game.rats[parse_cell("A1")] == 0 and sum(game.rats) == 4
    quiet = new_game(1, rolls=rolls)  # without the module the location dice are not used
    play_round(quiet)
    assert sum(quiet.rats) == 0 and quiet.rat_roll is None


def test_the_location_dice_reach_every_space_of_a_f_by_1_6():
    cells = {SnackTime(1, np.random.default_rng(seed), rat_snacks=True).rat_roll for seed in range(400)}
    assert cells == set(INNER_CELLS)  # a letter die and a number die: 36 spaces, each 1/36 a roll


# --- solo mode ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "score, rats, rank",
    [
        (168, False, "Near Perfect"), (130, False, "Near Perfect"), (129, False, "Leaderboard"),
        (90, False, "Very Impressive"), (89, False, "Good Game"), (45, False, "Keep Practicing"),
        (44, False, "Truly Horrible"), (25, False, "Truly Horrible"), (24, False, "You Might Be Playing Wrong"),
        (-6, False, "You Might Be Playing Wrong"), (137, True, "Near Perfect"), (136, True, "Leaderboard"),
        (32, True, "Truly Horrible"), (31, True, "You Might Be Playing Wrong"),
    ],
)
def test_the_solo_rating_table(score, rats, rank):
    assert solo_rank(score, rats) == rank


def test_solo_mode_is_one_player_rated_at_the_end():
    game = SnackTime(1, np.random.default_rng(4))
    while not game.game_over:
        game.apply(game.legal_actions()[-1])
    assert game.solo_rank() == solo_rank(game.score(0), False)
    assert "->" in game.render_text()


# --- rounds, step by step ------------------------------------------------------------------------------
def test_a_scripted_round_state_after_each_step():
    rolls = [([EYE, TOOTH], [L, I, T], None)]
    game = new_game(2, row=[4] + INEDIBLE_ROW[1:], rolls=rolls)

    def where():
        p = game.current_player
        return game.round, game.phase, p, game.traits_left[p], game.pipes_left[p]

    assert where() == (1, "place", 0, [1, 1, 0], [1, 1, 1])
    game.apply(trait_action(TOOTH, NW))
    assert where() == (1, "place", 0, [1, 0, 0], [1, 1, 1])
    game.apply(trait_action(EYE, NW))
    assert where() == (1, "place", 0, [0, 0, 0], [1, 1, 1])
    game.apply(pipe_action("A0", S | W))
    assert where() == (1, "place", 0, [0, 0, 0], [1, 0, 1]) and game.links[0][NW] == bits(1)
    game.apply(pipe_action("B1", N | E | W))
    game.apply(pipe_action(">6", N | S))
    assert where() == (1, "place", 1, [1, 1, 0], [1, 1, 1])  # seat 1's turn with the same dice
    assert game.snacks[0][NW] == []  # snacking waits for every player's placements
    for action in (trait_action(EYE, SE), trait_action(TOOTH, SE), pipe_action(">6", N | S),
                   pipe_action("F7", E | S | W), pipe_action(">5", S | W)):
        game.apply(action)
    assert values(game, 0, NW) == [2] and values(game, 1, SE) == []
    assert where() == (2, "place", 0, [0, 2, 0], [3, 0, 0])  # round 2, the harmless dice
    assert game.invariant_violations() == []


# --- bad input -----------------------------------------------------------------------------------------
def test_bad_scripts_and_options_are_clear_errors():
    with pytest.raises(ConfigError, match="35 cards"):
        SnackTime(1, np.random.default_rng(0), deck=list(range(34)))
    with pytest.raises(ConfigError, match="35 cards"):
        SnackTime(1, np.random.default_rng(0), deck=[TRAP[0]] + [c for c in range(35) if c != TRAP[0]])
    with pytest.raises(ConfigError, match="scripted roll"):
        SnackTime(1, np.random.default_rng(0), rolls=[([EYE], [I, I, I], None)])
    with pytest.raises(ConfigError, match="A-F x 1-6"):
        SnackTime(1, np.random.default_rng(0), rolls=[([EYE, EYE], [I, I, I], "<3")])
    for traits, pieces in (([EYE, 3], [I, I, I]), ([EYE, EYE], [I, 3, I]), ([EYE, -1], [I, I, I])):
        with pytest.raises(ConfigError, match="each 0..2"):  # a die has 3 faces
            SnackTime(1, np.random.default_rng(0), rolls=[(traits, pieces, None)])
    with pytest.raises(ConfigError, match="rat_snacks"):
        SnackTime(1, np.random.default_rng(0), rat_snacks="yes")
    with pytest.raises(ConfigError, match="num_players"):
        SnackTime(9, np.random.default_rng(0))


def test_a_snapshot_whose_event_log_names_what_the_game_lacks_is_refused():
    from snack_envs.snack_time.components import FIRST_TRAP, NUM_CREATURES, NUM_ENTRANCES

    game = new_game(2)
    good = [["trap", 0], ["rat", INNER_CELLS[0]], ["snack", 1, 3, 4, FIRST_TRAP - 1], ["damage", 1, 3, 2]]
    data = game.to_dict()
    data["state"]["events"] = good
    SnackTime.from_dict(data)
    for bad in (["trap", NUM_ENTRANCES], ["trap", -1], ["rat", 0], ["rat ignored", 0, 1],
                ["snack", 2, 0, 0, 0], ["snack", -1, 0, 0, 0], ["snack", 0, NUM_CREATURES, 0, 0],
                ["snack", 0, 0, NUM_ENTRANCES, 0], ["snack", 0, 0, -1, 0], ["snack", 0, 0, 0, FIRST_TRAP],
                ["damage", 2, 0, 0], ["damage", 0, NUM_CREATURES, 0], ["damage", 0, 0, 3], ["damage", 0, 0, -1],
                ["feast", 0]):
        data["state"]["events"] = [bad]
        with pytest.raises(ConfigError, match="an event"):
            SnackTime.from_dict(data)


def test_an_illegal_action_is_refused_and_changes_nothing():
    game = new_game(2)
    before = game.to_json()
    for action in (DAMAGE_BASE, pipe_action("C3", N | S), 728, -1):
        with pytest.raises(IllegalActionError, match="legal actions: 4 \\(draw a Tooth on creature NW\\)"):
            game.apply(action)
        assert game.to_json() == before
    with pytest.raises(IllegalActionError, match="player 1 is not to act"):
        game.apply(trait_action(TOOTH, NW), 1)


def test_text_for_actions_and_the_map():
    assert SnackTime.action_to_str(None, pipe_action("A0", S | W)) == "draw pipe L (S+W) at A0"
    assert SnackTime.action_to_str(None, trait_action(TENTACLE, SE)) == "draw a Tentacle on creature SE"
    assert SnackTime.action_to_str(None, damage_action(NE, TOOTH)) == "cross off a Tooth on creature NE"
    assert SnackTime.action_to_str(None, entrance_action("<3")) == "place the next sewer entrance at <3"
    game = new_game(1)
    draw_path(game, 0, ["<0", "A0", "A1"])
    lines = game.render_text(names=["Madi"]).splitlines()
    assert "  0 ◤─┐ · · · · · ◥" in lines and "  1 · ① · ② · · · ·" in lines
    assert any("NW: traits [-] snacks [-] entrances [1]" in line for line in lines)


def test_a_sprung_trap_goes_back_anywhere_in_the_deck_top_to_bottom():
    game = new_game(1, top=[TRAP[0], 0], advanced_traps=True)
    action = the_step_that_starts_round_2(game)
    spots = set()
    for seed in range(400):
        trial = game.copy()
        trial.rng = np.random.default_rng(seed)
        trial.apply(action)
        spots.add(len(trial.deck) - trial.deck.index(TRAP[0]) if TRAP[0] in trial.deck else 0)
    size = len(game.deck) - 1  # the deck the trap went back into, less the pedestrian then drawn for the row
    assert spots >= {1, size}  # the bottom, and as high as the top card under the one drawn


def test_a_scripted_trap_insert_puts_the_sprung_trap_there_and_a_wrong_script_changes_nothing():
    game = new_game(1, top=[TRAP[0], 0], advanced_traps=True)
    action = the_step_that_starts_round_2(game)
    before = game.copy()
    for wrong in ([len(game.deck) + 1], [0, 0], []):  # past the bottom; two traps but one is sprung; none
        with pytest.raises(ConfigError, match="trap"):
            game.apply(action, trap_inserts=wrong)
        assert game == before
    game.apply(action, trap_inserts=[3])  # under the 3 cards on top, then pedestrian 0 goes to the row
    assert game.round == 2 and game.row[0] == 0 and game.deck.index(TRAP[0]) == 2
    assert game.events[0] == ["trap", 0]
