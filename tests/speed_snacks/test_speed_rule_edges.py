"""Speed Snacks' rules at their edges, where a mutation probe of `speed_snacks/rules.py` found no test:

- each invariant names a table the rulebook forbids: cards lost or made up, a 6th pile, a customer
  pile with a card on its Hurry-up or two Hurry-ups, a cockroach among the orders, Hurry-ups miscounted,
  play after the 4th Hurry-up or with an empty hand, a kitchen pile empty or holding a Hurry-up, XXL
  cards without their stacks or with a card that is no snack on them, module cards lost, doubled or
  present without their module, a third Menu card in hand, toques past 5 or past the 9 of the box, a
  game over that is not, a Menu phase with nobody to decide, an inspection with nothing to inspect, and
  a pile index past the piles; a penalty other than the cockroaches in the pile inspected, an
  inspection's or Menu decision's result before its phase, a Menu hand not topped up from its pile, more
  Menu cards at a seat than were dealt to it, and play after both players waited it out. Each is broken by hand in a position reached by seeded play (which
  breaks none), and a snapshot holding it is refused (by the field's range where that comes first);
- the text a player reads: every action id described apart, piles counted from 1, snacks by name; the
  table rendered for a seat hides the other seat's hand, face-down kitchen tops, XXL snacks and Menu
  cards, shows them to their owner (with `kitchen_obs="sizes"` only the sizes of its own face-down cards, as
  its observation) and to a spectator, and shows the round's points once they are known;
- snapshots, scripts and scores: a snapshot field out of its range (a round, tick or waiting count below
  its start, a card of no kind, a Menu bonus past 0..1, a seat twice in the Menu order, a Menu change to no
  snack, a last tick or round naming no action, no seat, a seat twice or an XXL card twice, a kitchen pile
  past 0..4, a penalty or toques below 0, a round result past -1..1) is refused; a scripted resolution
  order or `through` that is not one per seat, or a deck, XXL pile or Menu deal that is not the box's
  cards, is refused before anything changes; ticks count from 0; scores are toques from 0 to 5
  (`score_range`), and before the end the seats with the most toques are the winners;
- Module 4's advantages send their Menu cards back to the box, and a 5th toque taken with Menus plus the
  round's toque make 5, not 6.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from snack_envs.core.game import ConfigError
from snack_envs.speed_snacks.components import COCKROACH, HURRY_UP, KIND_NAMES, MENUS, NUM_KINDS, NUM_SNACKS, SNACKS
from snack_envs.speed_snacks.rules import (CUSTOMER, DRAW_XXL, HURRY, HURRY_NEW, INSPECT, INSPECTION, KITCHEN, MENU,
                                           MENU_CHANGE, MENU_KEEP, MENU_POINT, MENU_TOQUE, NEW_CUSTOMER, NEW_KITCHEN,
                                           NUM_ACTIONS, PLAY, SLIDE, TAKE_DISH, WAIT, XXL_PLACE, SpeedSnacks)
from tests.helpers import set_at
from tests.speed_snacks.scripted import DONER, FRIES, HU, PIZZA, SUSHI, table

ALL_MODULES = {"health_department": True, "dish_of_the_day": True, "xxl": True, "menu": True}


def play_until(seed: int, stop, **options) -> SpeedSnacks:
    """A game of random legal play (seeded) stopped at the first tick where `stop(game)` holds."""
    game = SpeedSnacks(2, np.random.default_rng(seed), **options)
    policy = np.random.default_rng(seed)
    while not stop(game):
        assert not game.game_over, "the seeded game ended before the position looked for"
        game.apply_joint([int(policy.choice(game.legal_actions(p))) for p in (0, 1)])
    assert game.invariant_violations() == []
    return game


def full_table(game: SpeedSnacks) -> bool:
    """Play in a later round, every module's pieces on the table, a Hurry-up and a cockroach still to draw."""
    return (game.phase == PLAY and game.round >= 2 and game.hurry_ups <= 2 and game.toques[0] != game.toques[1]
            and HURRY_UP in game.deck and COCKROACH in game.deck
            and any(len(pile) > 1 and pile[-1] == HURRY_UP for pile in game.customer)
            and any(pile[-1] != HURRY_UP for pile in game.customer)
            and 0 < len(game.kitchens[0]) != len(game.kitchens[1]) > 0 and all(map(any, game.xxl_stacks))
            and None not in game.dish and all(game.menu_hands) and any(game.menus_fulfilled)
            and len(game.last_tick["order"]) == 2)


POSITIONS = {
    "play": lambda: play_until(0, full_table, **ALL_MODULES),
    "inspection": lambda: play_until(0, lambda g: g.phase == INSPECTION, **ALL_MODULES),
    "menu": lambda: play_until(0, lambda g: g.phase == MENU and len(g.kitchens[0]) != len(g.kitchens[1]),
                               **ALL_MODULES),
    "over": lambda: play_until(3, lambda g: g.game_over, **ALL_MODULES),  # won 5 to 4: all 9 toques out
    "base game": lambda: play_until(0, lambda g: g.tick == 20),
}


# --- invariants ----------------------------------------------------------------------------------------
def take(game: SpeedSnacks, kind: int) -> int:
    game.deck.remove(kind)
    return kind


def open_pile(game: SpeedSnacks) -> list[int]:
    return next(pile for pile in game.customer if pile[-1] != HURRY_UP)


def closed_pile(game: SpeedSnacks) -> list[int]:
    return next(pile for pile in game.customer if pile[-1] == HURRY_UP)


def place_hurry_ups(game: SpeedSnacks, until: int) -> None:
    """Hurry-ups from the draw pile placed as the rules place them, counted, until `until` lie on the piles."""
    while game.hurry_ups < until:
        take(game, HURRY_UP)
        opened = [pile for pile in game.customer if pile[-1] != HURRY_UP]
        opened[0].append(HURRY_UP) if opened else game.customer.append([HURRY_UP])
        game.hurry_ups += 1


def seat_with_more_kitchen_piles(game: SpeedSnacks) -> int:
    return 0 if len(game.kitchens[0]) > len(game.kitchens[1]) else 1


def inspect_past(game: SpeedSnacks) -> None:
    p = seat_with_more_kitchen_piles(game)  # so the index still fits the inspector's own kitchen
    game.inspected[p] = len(game.kitchens[1 - p])


def change_past(game: SpeedSnacks) -> None:
    p = 1 - seat_with_more_kitchen_piles(game)  # so the index still fits the opponent's kitchen
    game.menu_changed[p] = [len(game.kitchens[p]), SUSHI]


def uninspected_penalty(game: SpeedSnacks) -> None:
    game.inspected[0] = None  # seat 0 inspected nothing, yet seat 1 pays for cockroaches
    game.penalties[1] = max(game.penalties[1], 1)


def menus_held(game: SpeedSnacks, p: int) -> int:
    return len(game.menu_piles[p]) + len(game.menu_hands[p]) + len(game.menus_fulfilled[p])


def empty_kitchens(game: SpeedSnacks) -> None:
    for kitchen in game.kitchens:
        game.deck += [card for pile in kitchen for card in pile]
        kitchen.clear()


def case(what, position, edit, words, refusal=None):
    """`words`: the problem's; `refusal`: the snapshot's, where the field's own range refuses it first."""
    return pytest.param(position, edit, words, refusal or words, id=what)


BROKEN = [
    case("a card lost", "play", lambda g: g.deck.pop(), "cards by kind"),
    case("a card made up", "play", lambda g: g.kitchens[1][0].append(SUSHI), "cards by kind"),
    case("a 6th customer pile", "play", lambda g: g.customer.extend([take(g, SUSHI)] for _ in range(6 - len(g.customer))),
         "more than 5 piles", r"customer = .* at most 5 items, not 6"),
    case("a 6th kitchen pile (seat 1)", "play",
         lambda g: g.kitchens[1].extend([take(g, SUSHI)] for _ in range(6 - len(g.kitchens[1]))),
         "more than 5 piles", r"kitchens\[1\] = .* at most 5 items, not 6"),
    case("a snack on a Hurry-up", "play", lambda g: closed_pile(g).append(take(g, SUSHI)), "malformed"),
    case("a second Hurry-up on a closed pile", "play",
         lambda g: (closed_pile(g).append(take(g, HURRY_UP)), setattr(g, "hurry_ups", g.hurry_ups + 1)), "malformed"),
    case("an empty customer pile", "play", lambda g: g.customer.append([]), "malformed"),
    case("a cockroach on a customer pile", "play", lambda g: open_pile(g).append(take(g, COCKROACH)),
         "cockroach among the customer orders"),
    case("a cockroach under a customer order", "play", lambda g: closed_pile(g).insert(0, take(g, COCKROACH)),
         "cockroach among the customer orders"),
    case("a Hurry-up counted but not placed", "play", lambda g: setattr(g, "hurry_ups", g.hurry_ups + 1),
         "Hurry-ups on the piles"),
    case("a Hurry-up placed but not counted", "play", lambda g: open_pile(g).append(take(g, HURRY_UP)),
         "Hurry-ups on the piles"),
    case("all 5 Hurry-ups placed and counted", "menu", lambda g: place_hurry_ups(g, 5),
         "5 Hurry-ups on the piles, 5 counted", r"hurry_ups = 5 is out of range"),
    case("play after the 4th Hurry-up", "play", lambda g: place_hurry_ups(g, 4), "play goes on after the 4th Hurry-up"),
    case("an empty hand in play", "play", lambda g: (g.deck.append(g.hands[1]), g.hands.__setitem__(1, None)),
         "play goes on .* with an empty hand"),
    case("an empty kitchen pile", "play", lambda g: g.kitchens[1].append([]), "an empty kitchen pile"),
    case("a Hurry-up at the bottom of a kitchen pile", "play", lambda g: g.kitchens[1][0].insert(0, take(g, HURRY_UP)),
         "Hurry-up in a kitchen"),
    case("an XXL stack without its card", "play", lambda g: g.xxl_pile.append(g.xxl_cards[1].pop()),
         "XXL cards and stacks differ"),
    case("an XXL card without its stack", "play", lambda g: g.deck.extend(g.xxl_stacks[1].pop()),
         "XXL cards and stacks differ"),
    case("a cockroach under an XXL card's snacks", "play", lambda g: g.xxl_stacks[1][0].insert(0, take(g, COCKROACH)),
         "not a snack on an XXL card"),
    case("a Hurry-up on an XXL card", "play",
         lambda g: (g.xxl_stacks[1][0].append(take(g, HURRY_UP))), "not a snack on an XXL card"),
    case("an XXL card held by both seats", "play",
         lambda g: (g.xxl_cards[1].append(g.xxl_cards[0][0]), g.xxl_stacks[1].append([])), r"XXL cards \["),
    case("an XXL card in the base game", "base game",
         lambda g: (g.xxl_cards[0].append(SUSHI), g.xxl_stacks[0].append([])), r"XXL cards \["),
    case("one Dish of the Day taken by both", "play", lambda g: g.dish.__setitem__(1, g.dish[0]), "Dish-of-the-Day"),
    case("a taken Dish of the Day still on the table", "play", lambda g: g.dishes_left.append(g.dish[0]),
         "Dish-of-the-Day"),
    case("a Dish of the Day in the base game", "base game", lambda g: g.dish.__setitem__(1, SUSHI), "Dish-of-the-Day"),
    case("a fulfilled Menu card lost", "play", lambda g: next(filter(None, g.menus_fulfilled)).pop(), r"Menu cards \["),
    case("a Menu card in the base game", "base game", lambda g: g.menus_out.append(0), r"Menu cards \["),
    case("a third Menu card in hand", "play", lambda g: g.menu_hands[1].append(g.menus_out.pop()),
         "more than 2 Menu cards"),
    case("a 6th toque", "play", lambda g: g.toques.__setitem__(0, 6), r"toques \[6", r"toques\[0\] = 6 is out of range"),
    case("a toque below none", "play", lambda g: g.toques.__setitem__(1, -1), r"toques \[.*-1\]",
         r"toques\[1\] = -1 is out of range"),
    case("10 toques of the 9", "play", lambda g: setattr(g, "toques", [5, 5]), r"toques \[5, 5\]"),
    case("game over in play", "play", lambda g: setattr(g, "game_over", True), "game over without a player at 5"),
    case("the over phase, game going on", "over", lambda g: setattr(g, "game_over", False), "game over without"),
    case("game over with nobody at 5", "over", lambda g: setattr(g, "toques", [min(t, 4) for t in g.toques]),
         "game over without a player at 5"),
    case("the Menu phase with nobody to decide", "menu", lambda g: g.menu_order.clear(), "the Menu phase lasts"),
    case("a Menu decision left in play", "play", lambda g: g.menu_order.append(1), "the Menu phase lasts"),
    case("a Menu decision for a seat without a fulfilled Menu", "menu",
         lambda g: g.menu_order.append(next(p for p in (0, 1) if not g.menus_fulfilled[p])), "the Menu phase lasts"),
    case("an inspection in the base game", "base game", lambda g: setattr(g, "phase", INSPECTION),
         "inspection without Module 1"),
    case("an inspection with no kitchen pile", "inspection", empty_kitchens, "without a kitchen pile to inspect"),
    case("an inspected pile past the opponent's piles", "menu", inspect_past, "which the opponent lacks"),
    case("a Menu change past the own piles", "menu", change_past, "Menu change names kitchen pile .* which it lacks"),
    case("a penalty the inspection did not find", "menu", lambda g: g.penalties.__setitem__(0, g.penalties[0] + 1),
         "seat 0's penalty is .* but the pile seat 1 inspected holds"),
    case("a penalty without an inspection", "menu", uninspected_penalty,
         "seat 1's penalty is [1-9], but the pile seat 0 inspected holds 0"),
    case("an inspection's result in play", "play", lambda g: g.inspected.__setitem__(0, 0),
         "phase 'play' with the results of an inspection"),
    case("a Menu point taken before the Menu phase", "inspection", lambda g: g.menu_bonus.__setitem__(1, 1),
         "phase 'inspection' with the results of an inspection or a Menu decision"),
    case("a Menu change before the Menu phase", "play", lambda g: g.menu_changed.__setitem__(0, [0, SUSHI]),
         "with the results of an inspection or a Menu decision"),
    case("a Menu hand not topped up from its pile", "play",
         lambda g: g.menus_out.append(next(h for h, pile in zip(g.menu_hands, g.menu_piles) if pile).pop()),
         "a Menu hand below 2 cards while its pile has more"),
    case("more Menu cards at a seat than dealt to it", "play",
         lambda g: g.menus_fulfilled[1].extend(g.menus_out.pop() for _ in range(8 - menus_held(g, 1))),
         "seat 1 holds more than the 7 Menu cards dealt to it"),
    case("play after both players waited the ticks that end it", "play",
         lambda g: setattr(g, "idle", g.config["idle_ticks"]), "play goes on after both players waited"),
]


@pytest.mark.parametrize("position, edit, words, refusal", BROKEN)
def test_a_table_the_rules_forbid_breaks_an_invariant_and_its_snapshot_is_refused(position, edit, words, refusal):
    game = POSITIONS[position]()
    assert game.invariant_violations() == []
    edit(game)
    problems = game.invariant_violations()
    assert any(re.search(words, p) for p in problems), problems
    with pytest.raises(ConfigError, match=refusal):
        SpeedSnacks.from_dict(game.to_dict())


def test_a_pile_index_inside_the_piles_breaks_no_invariant():
    """The last pile is still a pile: the index checks stop exactly past it."""
    game = POSITIONS["menu"]()
    p = 1 - seat_with_more_kitchen_piles(game)
    game.inspected[p] = len(game.kitchens[1 - p]) - 1
    game.penalties[1 - p] = game.kitchens[1 - p][-1].count(COCKROACH)
    game.menu_changed[p] = [len(game.kitchens[p]) - 1, SUSHI]
    assert game.invariant_violations() == []


def test_an_inspection_with_one_kitchen_to_inspect_breaks_no_invariant():
    """The inspection is played if either seat has a pile; the seat facing an empty kitchen only waits."""
    game = play_until(18, lambda g: g.phase == INSPECTION and not all(g.kitchens), **ALL_MODULES)
    empty = game.kitchens.index([])
    assert game.legal_actions(1 - empty) == [WAIT]
    assert game.legal_actions(empty) == [INSPECT + i for i in range(len(game.kitchens[1 - empty]))]


# --- text ------------------------------------------------------------------------------------------------
def test_every_action_has_its_own_description_piles_counted_from_1_and_snacks_by_name():
    game = POSITIONS["play"]()
    text = [game.action_to_str(a) for a in range(NUM_ACTIONS)]
    assert len(set(text)) == NUM_ACTIONS
    assert text[WAIT] == "wait"
    for i in range(5):
        assert text[CUSTOMER + i].startswith("place the snack") and text[CUSTOMER + i].endswith(f"customer pile {i + 1}")
        assert text[KITCHEN + i].endswith(f"face down on kitchen pile {i + 1}")
        assert text[HURRY + i].startswith("Hurry up!") and f"customer pile {i + 1}, closing it" in text[HURRY + i]
        assert text[SLIDE + i].startswith("slide") and text[SLIDE + i].endswith(f"customer pile {i + 1}")
        assert text[INSPECT + i].startswith("inspect") and f"kitchen pile {i + 1} for" in text[INSPECT + i]
        for s in range(NUM_SNACKS):
            assert text[MENU_CHANGE + NUM_SNACKS * i + s].endswith(f"kitchen pile {i + 1} as {SNACKS[s]}")
    for j in range(6):
        assert text[XXL_PLACE + j].endswith(f"XXL card {j + 1}")
        assert text[TAKE_DISH + j].endswith(f"Dish of the Day: {SNACKS[j]}")
    assert "new customer pile" in text[NEW_CUSTOMER] and "Hurry" not in text[NEW_CUSTOMER]
    assert "new kitchen pile" in text[NEW_KITCHEN]
    assert text[HURRY_NEW].startswith("Hurry up!") and "new customer pile" in text[HURRY_NEW]
    assert text[DRAW_XXL] == "draw an XXL card"
    assert (text[MENU_KEEP], text[MENU_POINT], text[MENU_TOQUE]) == (
        "give up no Menu card", "give up 1 Menu card: +1 point", "give up 3 Menu cards: take a toque")
    assert all(text[MENU_CHANGE + k].startswith("give up 2 Menu cards") for k in range(MENU_TOQUE - MENU_CHANGE))
    assert game.action_to_str(NUM_ACTIONS) == f"<no action {NUM_ACTIONS}>" and game.action_to_str(-1) == "<no action -1>"


NAMES = ["Ann", "Bob"]


def seat_lines(text: str) -> list[str]:
    return [next(line for line in text.splitlines() if line.startswith(f"  {name}:")) for name in NAMES]


def assert_header(text: str, game: SpeedSnacks, status: str) -> None:
    assert text.startswith(f"Speed Snacks, round {game.round}, tick {game.tick} ({status}). "
                           f"Toques: Ann {game.toques[0]}, Bob {game.toques[1]}. "
                           f"Starting player: {NAMES[game.starting_player]}.\n")
    assert (f"Draw pile {len(game.deck)} cards; Hurry-ups placed {game.hurry_ups}/4; "
            f"both waiting {game.idle}/3 ticks.") in text


def menu_text(menu: int) -> str:
    return "/".join(SNACKS[s] for s in MENUS[menu])


def test_the_play_table_shows_each_seat_its_own_cards_and_the_spectator_everything():
    game = POSITIONS["play"]()
    for viewer in (0, 1, None):
        text = game.render_text(viewer, NAMES)
        assert_header(text, game, "play")
        orders = [f"{i + 1}) {SNACKS[[c for c in pile if c != HURRY_UP][-1]]}" + (" + Hurry up!" if HURRY_UP in pile else "")
                  for i, pile in enumerate(game.customer)]
        assert "Customer orders: " + "  ".join(orders) in text
        assert "Dishes of the Day left: " + ", ".join(SNACKS[s] for s in game.dishes_left) + "\n" in text
        assert f"XXL pile: {len(game.xxl_pile)} cards" in text
        assert "Points so far" not in text  # no scoring in play
        for p, line in enumerate(seat_lines(text)):
            assert f"| dish {SNACKS[game.dish[p]]}" in line  # a Dish of the Day lies open
            assert f"fulfilled {len(game.menus_fulfilled[p])}" in line  # fulfilled Menus lie face up
            sizes = [f"[{len(pile)}: " for pile in game.kitchens[p]]
            assert all(size in line for size in sizes)
            if viewer in (p, None):
                assert f"hand {KIND_NAMES[game.hands[p]]} |" in line
                assert " ".join(f"[{len(pile)}: {KIND_NAMES[pile[-1]]}]" for pile in game.kitchens[p]) in line
                assert ", ".join(f"{SNACKS[c]} x{len(s)}" for c, s in zip(game.xxl_cards[p], game.xxl_stacks[p])) in line
                assert "Menus: " + ", ".join(map(menu_text, game.menu_hands[p])) + ";" in line
            else:
                assert "hand a card |" in line
                assert " ".join(f"[{len(pile)}: ?]" for pile in game.kitchens[p]) in line
                assert ", ".join(f"? x{len(s)}" for s in game.xxl_stacks[p]) in line
                assert f"Menus: {len(game.menu_hands[p])} cards;" in line
        tick = game.last_tick
        assert (f"Last tick: Ann {game.action_to_str(tick['actions'][0])}: {tick['result'][0]}; "
                f"Bob {game.action_to_str(tick['actions'][1])}: {tick['result'][1]} "
                f"(resolved {NAMES[tick['order'][0]]} first)") in text
        points = game.last_round["points"]
        assert f"Round {game.round - 1} scored: Ann {points[0]}, Bob {points[1]} points\n" in text + "\n"
    assert "seat 0: hand" in game.render_text(None) and "seat 1: hand" in game.render_text(None)


def test_a_lone_hurry_up_orders_nothing_and_shows_a_slide_is_open():
    game = play_until(1, lambda g: [HURRY_UP] in g.customer, **ALL_MODULES)
    pile = game.customer.index([HURRY_UP]) + 1
    assert f"{pile}) - + Hurry up! (slide under open)" in game.render_text()


def test_xxl_cards_show_on_their_holders_line_only_and_their_snack_to_the_holder_only():
    game = play_until(0, lambda g: not g.xxl_cards[0] and g.xxl_cards[1], **ALL_MODULES)
    for viewer in (0, 1):
        ann, bob = seat_lines(game.render_text(viewer, NAMES))
        assert "XXL" not in ann
        assert f"| XXL {SNACKS[game.xxl_cards[1][0]] if viewer == 1 else '?'} x{len(game.xxl_stacks[1][0])}" in bob


def test_with_kitchen_obs_sizes_a_seat_reads_only_the_sizes_of_its_own_face_down_cards():
    """As its observation (and picture) show them: the owner must remember its kitchen tops and XXL snacks;
    its hand and Menu cards stay in view, and the spectator sees everything."""
    game = play_until(0, lambda g: all(g.kitchens) and all(g.xxl_cards), **ALL_MODULES, kitchen_obs="sizes")
    for viewer in (0, 1, None):
        for p, line in enumerate(seat_lines(game.render_text(viewer, NAMES))):
            tops = [KIND_NAMES[pile[-1]] if viewer is None else "?" for pile in game.kitchens[p]]
            assert " ".join(f"[{len(pile)}: {top}]" for pile, top in zip(game.kitchens[p], tops)) in line
            snacks = [SNACKS[c] if viewer is None else "?" for c in game.xxl_cards[p]]
            assert ", ".join(f"{c} x{len(s)}" for c, s in zip(snacks, game.xxl_stacks[p])) in line
            assert (f"hand {KIND_NAMES[game.hands[p]]} |" in line) == (viewer in (p, None))


def test_the_base_game_table_has_no_module_pieces():
    text = POSITIONS["base game"]().render_text()
    assert "Dishes of the Day" not in text and "XXL" not in text and "Menus" not in text


def test_at_the_inspection_the_tops_stay_face_down_and_only_the_spectator_sees_the_points():
    game = POSITIONS["inspection"]()
    placer = game.last_tick["actions"].index(next(a for a in game.last_tick["actions"] if HURRY <= a <= HURRY_NEW))
    points = game.round_points()
    for viewer in (0, 1, None):
        text = game.render_text(viewer, NAMES)
        assert_header(text, game, "scoring: inspection")
        assert "hand - |" in seat_lines(text)[placer]  # the 4th Hurry-up's placer draws no card
        other = 1 - viewer if viewer is not None else None
        if other is not None:
            assert "?]" in seat_lines(text)[other] and "?]" not in seat_lines(text)[viewer]
            assert "Points so far" not in text
        else:
            assert "?" not in text
            assert f"Points so far: Ann {points[0]}, Bob {points[1]}" in text


def test_in_the_menu_phase_the_tops_are_face_up_and_everyone_sees_the_points():
    game = POSITIONS["menu"]()
    points = game.round_points()
    for viewer in (0, 1, None):
        text = game.render_text(viewer, NAMES)
        assert_header(text, game, "scoring: Menu cards")
        for p, line in enumerate(seat_lines(text)):
            assert " ".join(f"[{len(pile)}: {KIND_NAMES[pile[-1]]}]" for pile in game.kitchens[p]) in line
        assert f"Points so far: Ann {points[0]}, Bob {points[1]}" in text
        if viewer is not None and game.hands[1 - viewer] is not None:
            assert "hand a card |" in seat_lines(text)[1 - viewer]  # the card in hand stays hidden


def test_the_game_over_table_shows_no_points_to_come_and_the_last_round():
    game = POSITIONS["over"]()
    text = game.render_text(None, NAMES)
    assert_header(text, game, "game over")
    assert "Points so far" not in text
    points = game.last_round["points"]
    assert f"Round {game.round} scored: Ann {points[0]}, Bob {points[1]} points" in text


def test_a_round_that_would_give_both_players_the_5th_toque_says_it_is_withheld():
    """Players who only wait (a Hurry-up in hand must go down) tie every round at 0 points: after 4
    rounds both have 4 toques, and the 5th round's toque is withheld from both."""
    game = SpeedSnacks(2, np.random.default_rng(0), **ALL_MODULES)
    while game.round < 6:
        game.apply_joint([WAIT if WAIT in game.legal_actions(p) else game.legal_actions(p)[0] for p in (0, 1)])
        if game.idle:
            text = game.render_text()
            assert f"both waiting {game.idle}/3 ticks." in text
            assert "Last tick: seat 0 wait: wait; seat 1 wait: wait\n" in text + "\n"
        if not game.customer:  # no Hurry-up placed yet this round, and nothing else is
            assert "Customer orders: none" in game.render_text() and "kitchen empty" in game.render_text()
        if game.last_round and game.round_result() is not None:
            assert game.last_round["withheld"] == (game.last_round["round"] == 5)
            line = game.render_text().splitlines()[-1]
            assert line.startswith(f"Round {game.last_round['round']} scored: seat 0 0, seat 1 0 points")
            assert line.endswith("; the 5th toque is withheld") == (game.last_round["round"] == 5)
    assert game.toques == [4, 4] and game.invariant_violations() == []


# --- snapshots, scripts and scores ------------------------------------------------------------------------
def field(position, path, value, why):
    return pytest.param(position, path, value, id=f"{path[6:]} = {value}: {why}")


OUT_OF_RANGE = [
    field("play", "state.round", 0, "rounds count from 1"),
    field("play", "state.tick", -1, "ticks count from 0"),
    field("play", "state.starting_player", -1, "two players"),
    field("play", "state.starting_player", 2, "two players"),
    field("play", "state.idle", -1, "waiting ticks count from 0"),
    field("play", "state.hands.0", NUM_KINDS, "6 snacks, the Hurry-up and the cockroach"),
    field("menu", "state.menu_bonus.0", -1, "giving up 1 Menu card gives 1 point"),
    field("menu", "state.menu_bonus.0", 2, "giving up 1 Menu card gives 1 point"),
    field("menu", "state.menu_order", [0, 0], "a seat decides on its Menu cards once a round"),
    field("menu", "state.menu_changed.0", [0, -1], "a top card counted as one of the 6 snacks"),
    field("menu", "state.menu_changed.0", [0, NUM_SNACKS], "a top card counted as one of the 6 snacks"),
    field("play", "state.last_tick.actions.0", -1, "75 actions"),
    field("play", "state.last_tick.actions.0", NUM_ACTIONS, "75 actions"),
    field("play", "state.last_tick.order.1", -1, "two players"),
    field("play", "state.last_tick.order.1", 2, "two players"),
    field("play", "state.last_tick.order", [1, 1], "each seat resolved once"),
    field("play", "state.last_round.round", 0, "rounds count from 1"),
    field("play", "state.last_round.winners", [-1], "two players"),
    field("play", "state.last_round.winners", [2], "two players"),
    field("play", "state.last_round.winners", [1, 1], "a seat wins a round's toque once"),
    field("play", "state.last_round.starting_player", -1, "two players"),
    field("play", "state.last_round.starting_player", 2, "two players"),
    field("play", "state.last_round.xxl_cards", [[SUSHI, SUSHI], []], "one XXL card of each snack"),
    field("play", "state.last_round.toques_before", [-1, 0], "toques count from 0"),
    field("play", "state.last_round.toques_after", [0, -1], "toques count from 0"),
    field("play", "state.last_round.penalties.0", -1, "a cockroach found is 1 negative point"),
    field("play", "state.last_round.inspected.0", -1, "kitchen piles count from 0"),
    field("play", "state.last_round.inspected.0", 5, "5 kitchen piles at most"),
    field("play", "state.last_round.menu_bonus.0", -1, "giving up 1 Menu card gives 1 point"),
    field("play", "state.last_round.menu_bonus.0", 2, "giving up 1 Menu card gives 1 point"),
    field("play", "state.round_scored", [2.0, 0.0], "+1 the winner, -1 the loser, 0 on a tie"),
    field("play", "state.round_scored", [0.0, -2.0], "+1 the winner, -1 the loser, 0 on a tie"),
]


@pytest.mark.parametrize("position, path, value", OUT_OF_RANGE)
def test_a_snapshot_field_out_of_its_range_is_refused(position, path, value):
    """Fields no invariant covers (the round number, the Menu bonus, order and change, the records of the last
    tick and round, the round result) or that the invariants could not count (a card of no kind) are refused
    by their range."""
    snapshot = POSITIONS[position]().to_dict()
    set_at(path, value)(snapshot)
    with pytest.raises(ConfigError, match=r"state field .* (is out of range|holds an item twice)"):
        SpeedSnacks.from_dict(snapshot)


def test_a_card_of_a_negative_kind_is_refused_where_the_cards_would_still_add_up():
    """A kind below 0 would be counted as the last kind (a cockroach) by the card count; its range refuses it."""
    game = POSITIONS["play"]()
    snapshot = game.to_dict()
    snapshot["state"]["deck"][game.deck.index(COCKROACH)] = -1
    with pytest.raises(ConfigError, match=r"deck\[\d+\] = -1 is out of range 0\.\.7"):
        SpeedSnacks.from_dict(snapshot)


@pytest.mark.parametrize("script, words", [
    (dict(order=[0, 0]), "scripted order must be"), (dict(order=[1]), "scripted order must be"),
    (dict(through=[True]), "scripted order must be"), (dict(through=[True, True, False]), "scripted order must be"),
    (dict(deck=[SUSHI] * 71), "a scripted deck must hold exactly the round's cards"),
    (dict(xxl_order=[SUSHI] * 6), "a scripted xxl_order must hold each XXL card once"),
    (dict(dek=[SUSHI] * 72), r"speed_snacks scripts a tick with order, through, deck, starting_player, xxl_order, "
                             r"menu_deal; not \['dek'\]"),  # a misspelt script was dropped and the tick drawn
])
def test_a_bad_script_for_a_tick_is_refused_before_it_changes_anything(script, words):
    """A resolution order or `through` not one per seat, or a next round's deck or XXL pile that is not the
    box's cards, is refused before the tick is played, though this tick starts no round."""
    game = POSITIONS["play"]()
    before = game.to_json()
    with pytest.raises(ConfigError, match=words):
        game.apply_joint([WAIT, WAIT], **script)
    assert game.to_json() == before


def test_a_score_is_a_count_of_toques_from_0_to_5_as_score_range_says():
    """"Whoever first earns their fifth toque wins the game": every game starts at 0 toques a seat and the
    winner ends at 5, the lowest and highest score the game declares."""
    start, over = SpeedSnacks(2, np.random.default_rng(0)), POSITIONS["over"]()
    assert start.scores() == [0.0, 0.0] and sorted(over.scores()) == [4.0, 5.0]
    assert SpeedSnacks.score_range == (0.0, 5.0)


@pytest.mark.parametrize("script, words", [
    (dict(xxl_order=[SUSHI] * 6), "a scripted xxl_order must hold each XXL card once"),
    (dict(xxl_order=list(range(5))), "a scripted xxl_order must hold each XXL card once"),
    (dict(menu_deal=[0] * 15), "a scripted menu_deal must hold each of the 15 Menu ids once"),
    (dict(menu_deal=list(range(14))), "a scripted menu_deal must hold each of the 15 Menu ids once"),
])
def test_a_scripted_xxl_pile_or_menu_deal_that_is_not_the_boxs_cards_is_refused(script, words):
    with pytest.raises(ConfigError, match=words):
        SpeedSnacks(2, np.random.default_rng(0), **ALL_MODULES, **script)


def test_a_game_starts_at_tick_0_and_every_joint_action_is_one_tick():
    """COMPONENTS.md: "the game runs in ticks"; the tick shown is the number of joint actions so far."""
    game = SpeedSnacks(2, np.random.default_rng(0))
    assert game.tick == 0 and "round 1, tick 0 (play)" in game.render_text()
    game.apply_joint([game.legal_actions(p)[0] for p in (0, 1)])
    assert game.tick == 1


def menu_scoring(toques=(0, 0)) -> SpeedSnacks:
    """Scoring after the 4th Hurry-up, in the Menu phase: seat 0 leads 1 point to 0 (its pizza is ordered) and
    alone holds fulfilled Menus, 3 of them."""
    game = table(customer=[[PIZZA, HU], [SUSHI, HU], [DONER, HU]], kitchens=([[PIZZA]], [[FRIES]]), hands=(HU, FRIES),
                 toques=toques, menu_hands=([], []), fulfilled=(3, 0), menu=True)
    game.apply_joint([HURRY_NEW, WAIT])
    assert game.phase == MENU and game.menu_order == [0] and game.round_points() == [1, 0]
    return game


@pytest.mark.parametrize("action, given_up", [(MENU_POINT, 1), (MENU_CHANGE + NUM_SNACKS * 0 + SUSHI, 2),
                                              (MENU_TOQUE, 3)])
def test_each_menu_advantage_sends_its_menu_cards_back_to_the_box(action, given_up):
    """Module 4: "By giving up 1, 2 or 3 fulfilled 'Menu' cards (the cards are then out of the game; return
    them to the box)"; the fulfilled cards not given up are kept."""
    game = menu_scoring()
    fulfilled, out = list(game.menus_fulfilled[0]), list(game.menus_out)
    game.apply_joint([action, WAIT])
    assert game.menus_fulfilled[0] == fulfilled[:3 - given_up]
    assert sorted(game.menus_out) == sorted(out + fulfilled[3 - given_up:])


def test_a_5th_toque_taken_with_menus_then_the_rounds_toque_still_make_5_and_win():
    """Module 4: "take 1 Toque card. (If this is the 5th toque, you must still complete the scoring ...)"; the
    round's toque then goes to the same player, who shows 5 toques (a 6th is never needed) and wins."""
    game = menu_scoring(toques=(4, 2))
    game.apply_joint([MENU_TOQUE, WAIT])
    assert game.last_round["winners"] == [0] and game.toques == [5, 2]
    assert game.game_over and game.winners() == [0] and game.invariant_violations() == []


def test_before_the_end_the_winners_are_the_seats_with_the_most_toques():
    """Only 5 toques win the game; a game cut short (the env's `max_steps`) names the seats with the most toques
    so far, both while the toques are tied."""
    game = POSITIONS["play"]()  # toques differ there
    assert not game.game_over and game.winners() == [game.toques.index(max(game.toques))]
    game = POSITIONS["base game"]()
    assert game.toques == [0, 0] and game.winners() == [0, 1]


@pytest.mark.parametrize("seat", [-1, 2])
def test_a_menu_order_naming_no_seat_is_refused(seat):
    """Two players decide on their Menu cards, each one with a fulfilled Menu; a seat -1 would read as seat 1."""
    snapshot = POSITIONS["menu"]().to_dict()
    state = snapshot["state"]
    state["menus_fulfilled"][1].append(state["menu_piles"][1].pop())  # seat 1 holds a fulfilled Menu too
    state["menu_order"] = [0, seat]
    with pytest.raises(ConfigError, match=rf"menu_order\[1\] = {seat} is out of range 0\.\.1"):
        SpeedSnacks.from_dict(snapshot)
