"""Tests from a mutation probe of the four observation encoders (snack_wars, snack_rabbits, speed_snacks and
snack_time `observation.py`). The golden trajectories hash only the acting seat's view in the turn-based
games, so these pin every seat's view, written out again from the state and the rulebooks:

- Snack Wars, Snack Rabbits and Snack Time: in random games, each seat's vector equals a field-by-field
  reading of the state from that seat (viewer first, then the players to its left), on and off turn:
  to_act, the damage target (the viewer's own only), the opponents' sheets in order;
- every observation of those games lies inside the layout's bounds; one-hot and flag fields are bounded
  by 1, counts by the most the components allow (9 cheeses in Snack Wars, the 12-card vegetable in Snack
  Rabbits), Speed Snacks' round points by the scoring extremes;
- Snack Time's caches never go stale (the module docstring's promise): a fresh encoder shows a pipe already
  on cell 0; a kept one shows a state edited by hand (crossed traits, the row, the deck) or a new game
  handed in after a played one exactly as a fresh encoder does;
- the Snack Time GRID spec binds each cell's pipe and entrance actions to that cell.
"""

from __future__ import annotations

import numpy as np
import pytest

from snack_envs.snack_rabbits.components import VALUES as RABBIT_VALUES
from snack_envs.snack_rabbits.observation import LAYOUT as RABBITS_LAYOUT
from snack_envs.snack_rabbits.observation import RabbitsEncoder
from snack_envs.snack_rabbits.rules import MAX_PLAYERS as RABBITS_MAX
from snack_envs.snack_rabbits.rules import SnackRabbits
from snack_envs.snack_time.actions import NUM_ACTIONS as TIME_ACTIONS
from snack_envs.snack_time.actions import decode
from snack_envs.snack_time.components import (
    FIRST_TRAP,
    MAX_VALUE,
    NUM_CELLS,
    NUM_CREATURES,
    PED_VALUE,
    SNACK_SLOTS,
    E,
    N,
    S,
    W,
)
from snack_envs.snack_time.observation import GRID as TIME_GRID
from snack_envs.snack_time.observation import LAYOUT as TIME_LAYOUT
from snack_envs.snack_time.observation import OPPONENT_FEATURES, SnackTimeEncoder
from snack_envs.snack_time.rules import MAX_PLAYERS as TIME_MAX
from snack_envs.snack_time.rules import SnackTime
from snack_envs.snack_wars.components import NUM_KINDS as WAR_KINDS
from snack_envs.snack_wars.components import copies_by_type
from snack_envs.snack_wars.observation import LAYOUT as WARS_LAYOUT
from snack_envs.snack_wars.observation import WarsEncoder
from snack_envs.snack_wars.rules import MAX_PLAYERS as WARS_MAX
from snack_envs.snack_wars.rules import PHASES, SnackWars
from snack_envs.speed_snacks.observation import LAYOUT as SPEED_LAYOUT
from snack_envs.speed_snacks.observation import SpeedSnacksEncoder
from snack_envs.speed_snacks.rules import HURRY, INSPECT, WAIT
from tests.helpers import random_legal
from tests.snack_time.time_scripted import NW, draw_path, new_game, set_traits
from tests.speed_snacks.scripted import DONER, FRIES, HU, PIZZA, ROACH, SUSHI, table


def played(game, seed: int, on_step) -> None:
    """Play `game` to its end with random legal actions, calling on_step(game) before every action."""
    rng = np.random.default_rng(seed)
    while not game.game_over:
        on_step(game)
        game.apply(random_legal(game.action_mask(game.current_player), rng))
    on_step(game)


def decoded(layout, vec: np.ndarray) -> dict:
    return {name: vec[s].tolist() for name, s in layout.slices.items()}


def every_seat_reads_as(game, encoder, layout, expected) -> None:
    """Over a random game to its end: each seat's view of each position, on and off turn, decodes to
    expected(game, seat) and lies inside the layout's bounds."""
    def check(g):
        for seat in range(g.num_players):
            vec = encoder.encode(g, seat)
            assert decoded(layout, vec) == expected(g, seat), (seat, g.current_player)
            assert (layout.low <= vec).all() and (vec <= layout.high).all()

    played(game, game.num_players, check)


def seat_order(seat: int, n: int) -> list[int]:
    """The seats as a viewer lists them: itself, then the players 1, 2, ... seats to its left."""
    return [(seat + r) % n for r in range(n)]


def to_act_row(game, seat: int, most: int) -> list[int]:
    row = [0] * most
    if not game.game_over:
        row[seat_order(seat, game.num_players).index(game.current_player)] = 1
    return row


# --- Snack Wars ------------------------------------------------------------------------------------------
def wars_expected(game: SnackWars, seat: int) -> dict:
    """A Snack Wars view written out field by field from the state (every card on the table is public)."""
    n, order = game.num_players, seat_order(seat, game.num_players)
    collections = []
    for p in order:
        collections += game.collections[p]
    return {
        "collections": collections + [0] * (WAR_KINDS * (WARS_MAX - n)),
        "raccoons": [game.raccoons[p] for p in order] + [0] * (WARS_MAX - n),
        "drawn": list(game.drawn),
        "phase": [0, 0, 0] if game.game_over else [int(p == game.phase) for p in PHASES],
        "steals_left": [game.steals_left],
        "stolen": list(game.stolen),
        "draw_pile_size": [len(game.deck)],
        "discard": list(game.discard),
        "to_act": to_act_row(game, seat, WARS_MAX),
        "seated": [1] * n + [0] * (WARS_MAX - n),
    }


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_wars_every_seat_sees_the_table_rotated_to_itself_at_every_step(num_players):
    """Each seat's Snack Wars view, on and off turn, is the state read from that seat, inside the bounds."""
    food_copies = "value" if num_players % 2 else "equal"
    game = SnackWars(num_players, np.random.default_rng(num_players), food_copies=food_copies)
    every_seat_reads_as(game, WarsEncoder(num_players, game.config), WARS_LAYOUT, wars_expected)


def test_wars_to_act_names_the_player_to_act_by_seats_to_the_viewers_left():
    """With 5 players, seat s sees player p to act at row (p - s) mod 5, for every pair."""
    game = SnackWars(5, np.random.default_rng(0))
    encoder = WarsEncoder(5, game.config)
    to_act = WARS_LAYOUT.slices["to_act"]
    for actor in range(5):
        game.current_player = actor
        for seat in range(5):
            assert encoder.encode(game, seat)[to_act].tolist() == [float(r == (actor - seat) % 5) for r in range(5)]


def test_wars_bounds_are_the_most_copies_of_a_kind_and_1_for_one_hot_fields():
    """Collections reach 9 (the cheeses with food_copies="value"); phase, to_act and seated are 0/1."""
    most = max(copies_by_type("value")[:WAR_KINDS])
    assert most == 9
    for name, high in (("collections", most), ("drawn", most), ("stolen", most), ("steals_left", most),
                       ("phase", 1), ("to_act", 1), ("seated", 1)):
        s = WARS_LAYOUT.slices[name]
        assert WARS_LAYOUT.high[s].tolist() == [high] * (s.stop - s.start), name
        assert not WARS_LAYOUT.low[s].any(), name


# --- Snack Rabbits ---------------------------------------------------------------------------------------
def rabbits_expected(game: SnackRabbits, seat: int) -> dict:
    """A Snack Rabbits view written out from the state: the table is public, the draw order is not."""
    n, order = game.num_players, seat_order(seat, game.num_players)
    fences, collections = [], []
    for space in game.fences:
        fences += space
    for p in order:
        collections += game.collections[p]
    unseen = [value - sum(space[k] for space in game.fences) - sum(c[k] for c in game.collections)
              for k, value in enumerate(RABBIT_VALUES)]
    return {
        "fences": fences,
        "collections": collections + [0] * (len(RABBIT_VALUES) * (RABBITS_MAX - n)),
        "white_dice": [game.white[p] for p in order] + [0] * (RABBITS_MAX - n),
        "pool": [game.pool],
        "unseen": unseen,
        "draw_pile": [len(game.deck)],
        "farmer_revealed": [int(game.farmer_revealed)],
        "to_act": to_act_row(game, seat, RABBITS_MAX),
        "seated": [1] * n + [0] * (RABBITS_MAX - n),
    }


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_rabbits_every_seat_sees_the_table_rotated_to_itself_at_every_step(num_players):
    """Each seat's Snack Rabbits view, on and off turn, is the state read from that seat, inside the bounds."""
    game = SnackRabbits(num_players, np.random.default_rng(num_players))
    every_seat_reads_as(game, RabbitsEncoder(num_players, game.config), RABBITS_LAYOUT, rabbits_expected)


def test_rabbits_bounds_are_the_most_cards_of_a_kind_and_1_for_flags():
    """A collection or the unseen cards of a kind reach 12 (the 12-card vegetable); flags are 0/1."""
    for name, high in (("collections", max(RABBIT_VALUES)), ("unseen", max(RABBIT_VALUES)),
                       ("farmer_revealed", 1), ("to_act", 1), ("seated", 1)):
        s = RABBITS_LAYOUT.slices[name]
        assert RABBITS_LAYOUT.high[s].tolist() == [high] * (s.stop - s.start), name


# --- Snack Time ------------------------------------------------------------------------------------------
TIME_PHASES = {"entrance": 0, "trap": 1, "snack": 4}


def time_expected(game: SnackTime, seat: int) -> dict:
    """The Snack Time fields that depend on the seat, written out from the state: the viewer's sheet and
    turn, and the opponents' sheet summaries, seat-relative (opponent r is r seats to the left)."""
    n, order = game.num_players, seat_order(seat, game.num_players)
    own_map = []
    for cell in range(NUM_CELLS):
        pipe = game.pipes[seat][cell]
        own_map += [int(pipe & side > 0) for side in (N, E, S, W)]
        own_map += [int(game.accept[seat][cell] > 0), game.wet[seat] >> cell & 1]
    phase, target = [0] * 5, [0] * NUM_CREATURES
    if not game.game_over:
        if game.phase == "place":
            phase[2 if any(game.traits_left[game.current_player]) else 3] = 1
        else:
            phase[TIME_PHASES[game.phase]] = 1
            if game.current_player == seat and game.phase != "entrance":
                target[game.pending[seat][0]] = 1
    opponents = []
    for p in order[1:]:
        opponents += [game.score(p), game.badges[p]]
        opponents += [len(eaten) for eaten in game.snacks[p]] + [sum(have) for have in game.healthy[p]]
    return {
        "own_map": own_map,
        "own_badges": [game.badges[seat]],
        "own_score": [game.score(seat)],
        "own_to_draw": list(game.traits_left[seat]) + list(game.pipes_left[seat]),
        "phase": phase,
        "own_damage_target": target,
        "opponents": opponents + [0] * (OPPONENT_FEATURES * (TIME_MAX - n)),
        "to_act": to_act_row(game, seat, TIME_MAX),
        "seated": [1] * n + [0] * (TIME_MAX - n),
    }


@pytest.mark.parametrize("num_players", [3, 4])
def test_time_every_seat_sees_its_own_sheet_and_its_left_neighbours_at_every_step(num_players):
    """Each seat's Snack Time view (kept and fresh encoders) shows its sheet, turn and opponents in order."""
    game = SnackTime(num_players, np.random.default_rng(num_players), rat_snacks=True, advanced_traps=True)
    kept = SnackTimeEncoder(num_players, game.config)
    names = list(time_expected(game, 0))

    def check(g):
        for seat in range(num_players):
            vec = kept.encode(g, seat)
            assert np.array_equal(vec, SnackTimeEncoder(num_players, g.config).encode(g, seat))
            shown = decoded(TIME_LAYOUT, vec)
            assert {k: shown[k] for k in names} == time_expected(g, seat), (seat, g.current_player, g.phase)
            assert (TIME_LAYOUT.low <= vec).all() and (vec <= TIME_LAYOUT.high).all()

    played(game, num_players, check)


def test_time_a_fresh_encoder_shows_a_pipe_already_on_the_first_cell():
    """A new encoder reading a sheet with a pipe on cell 0 (entrance column, row 0) shows its openings."""
    game = new_game(2)
    draw_path(game, 0, ["A0", "<0", "<1"])  # cell 0 gets a pipe opening east (to A0) and south (to <1)
    assert game.pipes[0][0] == E | S
    for seat in (0, 1):
        own = TIME_LAYOUT.unpack(SnackTimeEncoder(2, game.config).encode(game, seat))["own_map"].reshape(8, 8, 6)
        assert own[0, 0, :4].tolist() == ([0, 1, 1, 0] if seat == 0 else [0, 0, 0, 0])


def test_time_flag_and_one_hot_fields_are_bounded_by_1():
    """The map bits, phase, damage target, last round, traps, unseen cards, options, to_act and seated are 0/1."""
    for name in ("own_map", "phase", "own_damage_target", "last_round", "traps_lying", "unseen", "options",
                 "to_act", "seated"):
        s = TIME_LAYOUT.slices[name]
        assert TIME_LAYOUT.high[s].tolist() == [1] * (s.stop - s.start), name


def test_time_grid_binds_every_pipe_and_entrance_action_to_its_cell():
    """The GRID spec's cell actions are each cell's pipe patterns and its entrance, and its planes the two maps."""
    bound = {}
    for base, per_cell in TIME_GRID["cell_actions"]:
        for cell in range(NUM_CELLS):
            for k in range(per_cell):
                bound[base + cell * per_cell + k] = cell
    cell_kinds = {"pipe", "entrance"}
    expected = {a: decode(a)[1] for a in range(TIME_ACTIONS) if decode(a)[0] in cell_kinds}
    assert bound == expected
    assert TIME_GRID["planes"] == [[TIME_LAYOUT.slices["own_map"].start, 6], [TIME_LAYOUT.slices["map_marks"].start, 6]]
    assert TIME_GRID["height"] * TIME_GRID["width"] == NUM_CELLS


# --- Speed Snacks ----------------------------------------------------------------------------------------
def test_speed_one_hot_fields_are_bounded_by_1_and_round_points_hold_the_scoring_extremes():
    """One-hot, flag and speed fields are 0..1; round points reach down to -28 (10 cockroaches, 6 failed
    XXL cards at -3) and up to 49 (5 x 5 orders, 5 for the dish, 6 XXL cards at 3, 1 more)."""
    for name in ("phase", "menu_decider", "hand", "customer_piles", "my_kitchen_tops", "opp_kitchen_tops",
                 "starting_player", "dishes_left", "dishes_taken", "my_xxl", "my_menus", "modules", "speeds"):
        s = SPEED_LAYOUT.slices[name]
        assert SPEED_LAYOUT.high[s].tolist() == [1] * (s.stop - s.start), name
        assert not SPEED_LAYOUT.low[s].any(), name
    s = SPEED_LAYOUT.slices["round_points"]
    assert (SPEED_LAYOUT.low[s] <= -10 - 6 * 3).all() and (SPEED_LAYOUT.high[s] >= 5 * 5 + 5 + 6 * 3 + 1).all()


def test_time_an_encoder_shows_crossed_traits_changed_by_hand_with_the_rest_unchanged():
    """A kept encoder shows a change of crossed traits alone (state edited by hand) as a fresh one does."""
    game = new_game(2)
    set_traits(game, 0, NW, eyes=1, teeth=1)
    kept = SnackTimeEncoder(2, game.config)
    for seat in (0, 1):
        kept.encode(game, seat)
    set_traits(game, 0, NW, eyes=1, teeth=1, crossed=(1, 0, 1))  # the same healthy traits and snacks
    vec = kept.encode(game, 0)
    assert np.array_equal(vec, SnackTimeEncoder(2, game.config).encode(game, 0))
    creature = TIME_LAYOUT.unpack(vec)["own_creatures"].reshape(NUM_CREATURES, -1)[NW]
    assert creature[:7].tolist() == [1, 1, 0, 1, 0, 1, 0]  # uncrossed, crossed, open slots 4 - 2 - 2


def test_time_a_creature_that_ate_three_tens_shows_30_inside_the_bounds():
    """Snacks worth 3 x 10 (the most a creature can eat) encode as 30, within own_creatures' bound."""
    tens = [card for card, value in enumerate(PED_VALUE) if value == MAX_VALUE][:SNACK_SLOTS]
    assert len(tens) == SNACK_SLOTS == 3
    game = new_game(2)  # (the eaten cards stay in the deck: the encoder reads the sheet only)
    set_traits(game, 0, NW, eyes=2, teeth=1, tentacles=1)
    game.snacks[0][NW] = list(tens)
    vec = SnackTimeEncoder(2, game.config).encode(game, 0)
    creature = TIME_LAYOUT.unpack(vec)["own_creatures"].reshape(NUM_CREATURES, -1)[NW]
    assert creature[7:10].tolist() == [3, 30, 12]  # snacks, their value, satisfaction 3 x 4 traits
    assert (TIME_LAYOUT.low <= vec).all() and (vec <= TIME_LAYOUT.high).all()
    assert set(TIME_LAYOUT.high[TIME_LAYOUT.slices["own_creatures"]].tolist()) == {30}  # the bound is tight


def test_speed_an_inspection_that_finds_all_10_cockroaches_shows_10_inside_the_bounds():
    """Module 1: a pile of all 10 cockroaches inspected shows a penalty of 10 for its owner, within bounds."""
    game = table(customer=[[PIZZA, HU], [SUSHI, HU], [DONER, HU], [PIZZA]], kitchens=([[PIZZA]], [[ROACH] * 10]),
                 hands=(HU, FRIES), menu_hands=([], []), fulfilled=(1, 0), health_department=True, menu=True)
    game.apply_joint([HURRY + 3, WAIT])  # the 4th Hurry-up: the inspection follows
    game.apply_joint([INSPECT + 0, INSPECT + 0])
    assert game.penalties == [0, 10]
    for me, seen in ((0, [0, 10]), (1, [10, 0])):
        vec = SpeedSnacksEncoder(2, game.config).encode(game, me)
        assert vec[SPEED_LAYOUT.slices["penalties"]].tolist() == seen
        assert (SPEED_LAYOUT.low <= vec).all() and (vec <= SPEED_LAYOUT.high).all()


def test_time_three_pipe_dice_of_one_piece_show_3_inside_the_bounds():
    """The dice and dice-to-draw fields reach 3 (three pipe dice showing one piece), bounded by exactly that."""
    game = new_game(2)  # every round rolls two Teeth and three I pieces
    vec = SnackTimeEncoder(2, game.config).encode(game, 1)
    assert TIME_LAYOUT.unpack(vec)["dice"].tolist() == [0, 2, 0, 3, 0, 0]
    assert TIME_LAYOUT.unpack(vec)["own_to_draw"].tolist() == [0, 2, 0, 3, 0, 0]
    assert (TIME_LAYOUT.low <= vec).all() and (vec <= TIME_LAYOUT.high).all()
    for name in ("dice", "own_to_draw"):
        assert set(TIME_LAYOUT.high[TIME_LAYOUT.slices[name]].tolist()) == {3}, name


def test_time_an_encoder_handed_a_new_game_after_a_played_one_shows_the_new_game():
    """A kept encoder that showed a played game's sheets shows a fresh game exactly as a new encoder does."""
    options = dict(rat_snacks=True, advanced_entrances=True)  # a fresh sheet: 8 cells next to the creatures
    played_game = SnackTime(2, np.random.default_rng(5), **options)
    kept = SnackTimeEncoder(2, played_game.config)
    played(played_game, 5, lambda g: [kept.encode(g, seat) for seat in (0, 1)])
    assert any(played_game.pipes[0])
    fresh_game = SnackTime(2, np.random.default_rng(6), **options)
    for seat in (0, 1):
        assert np.array_equal(kept.encode(fresh_game, seat), SnackTimeEncoder(2, fresh_game.config).encode(fresh_game, seat))


def test_time_an_encoder_shows_the_row_or_the_deck_changed_by_hand_with_the_rest_unchanged():
    """A kept encoder shows a reordered row, or a card moved from the deck to the discard, as a fresh one does."""
    game = new_game(2)
    kept = SnackTimeEncoder(2, game.config)
    kept.encode(game, 0)
    game.row[0], game.row[1] = game.row[1], game.row[0]  # the same deck and traps, pedestrians swapped
    assert np.array_equal(kept.encode(game, 0), SnackTimeEncoder(2, game.config).encode(game, 0))
    card = next(c for c in game.deck if c < FIRST_TRAP)
    game.deck.remove(card)  # the same row and traps, one pedestrian out of the deck
    game.discard.append(card)
    assert not game.invariant_violations()
    vec = kept.encode(game, 0)
    assert np.array_equal(vec, SnackTimeEncoder(2, game.config).encode(game, 0))
    assert TIME_LAYOUT.unpack(vec)["unseen"][card] == 0
