"""Speed Snacks' observation encoder: one flat float32 vector from a seat's point of view.

Own features come first, then the opponent's. Never encoded: the draw pile's
order, the opponent's hand, the opponent's face-down cards (kitchen and XXL
cards; their top kitchen cards only once they are turned face up at scoring,
which comes after Module 1's inspection), the opponent's Menu hand, the XXL
pile's order, and the round's points before scoring (they depend on the
opponent's face-down cards).

The own kitchen has two modes (option `kitchen_obs`): "placed" shows the own
kitchen and XXL cards as placed (a player remembers them); "sizes" shows only
pile sizes, so a recurrent agent must remember what it placed. The vector has
the same layout in both modes; the fields that "sizes" hides are zeros (the
top cards show again at scoring, when they are face up).

During Module 1's inspection the tops are still face down ("Before you carry
out scoring, you must add the following step"; basic scoring starts by turning
them face up), so the inspector chooses a pile by its size alone.
"""

from __future__ import annotations

import numpy as np

from snack_envs.core.layout import Field, ObservationLayout
from snack_envs.speed_snacks.components import (
    COCKROACH,
    COPIES_PER_SNACK,
    CUSTOMER_PILES,
    HURRY_UP,
    HURRY_UPS_TO_END,
    KITCHEN_PILES,
    MENU_HAND,
    MENUS,
    MENUS_PER_PLAYER,
    NUM_KINDS,
    NUM_SNACKS,
    TOQUES_TO_WIN,
    XXL_CARDS,
    deck_counts,
)
from snack_envs.speed_snacks.rules import DRAW_XXL, INSPECTION, MENU, MODULES, PLAY, SpeedSnacks, tops_face_up

MAX_CARDS = sum(deck_counts(True))  # 81
NUM_XXL = len(XXL_CARDS)
TOP_KINDS = NUM_KINDS - 1  # a kitchen card: a snack or a cockroach (index 6 here)
MIN_POINTS, MAX_POINTS = -30, 50  # 10 cockroaches and 6 failed XXL cards; 5 x 5 orders + 5 dish + 6 x 3 XXL + 1

LAYOUT = ObservationLayout(
    [
        Field("phase", 3, 1, "one-hot: play, inspection (Module 1), Menu decisions (Module 4)"),
        Field("menu_decider", 2, 1, "Menu phase: who decides now, one-hot, me first"),
        Field("hand", NUM_KINDS + 1, 1, "my card in hand, one-hot: 6 snacks, Hurry-up, cockroach, none"),
        Field("customer_piles", CUSTOMER_PILES * 9, 1,
              "per customer pile 1..5: present, ordered snack one-hot (6), closed by a Hurry-up, slide-under open"),
        Field("orders", NUM_SNACKS, CUSTOMER_PILES, "customer orders per snack"),
        Field("hurry_ups", 1, HURRY_UPS_TO_END, "Hurry-ups placed this round"),
        Field("draw_pile", 1, MAX_CARDS, "cards in the draw pile"),
        Field("idle", 1, 100, "ticks in a row in which both players waited"),
        Field("kitchen_sizes", 2 * KITCHEN_PILES, MAX_CARDS,
              "cards in each kitchen pile, mine then the opponent's (0: no pile)"),
        Field("my_kitchen_tops", KITCHEN_PILES * TOP_KINDS, 1,
              "my top kitchen cards one-hot (6 snacks, cockroach); 'sizes' mode: only once face up (scoring, after the inspection)"),
        Field("my_kitchen_contents", KITCHEN_PILES * TOP_KINDS, COPIES_PER_SNACK,
              "'placed' mode: my kitchen piles' cards by kind (6 snacks, cockroach); 0 in 'sizes' mode"),
        Field("opp_kitchen_tops", KITCHEN_PILES * TOP_KINDS, 1,
              "once face up (scoring, after the inspection): the opponent's top cards, one-hot"),
        Field("toques", 2, TOQUES_TO_WIN, "toques, me first"),
        Field("starting_player", 2, 1, "the round's starting player, one-hot, me first"),
        Field("round_points", 2, MAX_POINTS, "once the tops are face up: points so far this round, me first (0 in play and inspection)", MIN_POINTS),
        Field("penalties", 2, 10, "Module 1: cockroach points found by the inspections, me first"),
        Field("dishes_left", NUM_SNACKS, 1, "Module 2: Dish-of-the-Day cards still on the table"),
        Field("dishes_taken", 2 * NUM_SNACKS, 1, "Module 2: dish taken this round, one-hot, mine then the opponent's"),
        Field("xxl_pile", 1, NUM_XXL, "Module 3: XXL cards in the XXL pile"),
        Field("my_xxl", NUM_XXL * (1 + NUM_SNACKS), 1,
              "Module 3: per XXL card of mine: present, its snack one-hot ('sizes' mode: on the tick it is drawn only)"),
        Field("xxl_stacks", 2 * NUM_XXL, 6 * COPIES_PER_SNACK,
              "Module 3: cards on each XXL card, mine then the opponent's"),
        Field("my_xxl_matching", NUM_XXL, 6 * COPIES_PER_SNACK,
              "Module 3, 'placed' mode: matching snacks on each XXL card of mine"),
        Field("opp_xxl", 1, NUM_XXL, "Module 3: XXL cards the opponent has drawn"),
        Field("my_menus", MENU_HAND * NUM_SNACKS, 1, "Module 4: per Menu card in my hand, its two snacks (two-hot)"),
        Field("menus_fulfilled", 2, MENUS_PER_PLAYER, "Module 4: fulfilled Menu cards held, me first"),
        Field("menu_piles", 2, MENUS_PER_PLAYER, "Module 4: Menu cards in the face-down piles, me first"),
        Field("opp_menu_hand", 1, MENU_HAND, "Module 4: Menu cards in the opponent's hand"),
        Field("modules", 4, 1, "modules in play: health department, dish of the day, XXL, menu"),
        Field("speeds", 2, 1, "the speed option of each player, me first"),
    ]
)

# The vector is built as bytes (every entry but two is a small non-negative int)
# from precomputed pieces, then widened to float32: much faster than a list of floats.


def one_hot(index: int, size: int) -> bytes:
    return bytes(1 if i == index else 0 for i in range(size))


def zeros(*names: str) -> bytes:
    return bytes(sum(LAYOUT.slices[n].stop - LAYOUT.slices[n].start for n in names))


HAND_ONE_HOT = tuple(one_hot(k, NUM_KINDS + 1) for k in range(NUM_KINDS + 1))  # index 8: no card
SNACK_ONE_HOT = tuple(one_hot(s, NUM_SNACKS) for s in range(NUM_SNACKS))
# A kitchen card by kind, one-hot over (6 snacks, cockroach); kind 6 (Hurry-up) never lies in a kitchen.
TOP_ONE_HOT = tuple(one_hot(min(k, TOP_KINDS - 1), TOP_KINDS) for k in range(NUM_KINDS))
NO_SNACK = bytes(NUM_SNACKS)
NO_TOPS = tuple(bytes(TOP_KINDS * n) for n in range(KITCHEN_PILES + 1))  # by number of missing piles
PHASE_ONE_HOT = {PLAY: b"\1\0\0", INSPECTION: b"\0\1\0", MENU: b"\0\0\1"}
KITCHEN_KINDS = tuple(range(NUM_SNACKS)) + (COCKROACH,)
# A customer pile's 9 entries: present, ordered snack one-hot, closed, slide-under open.
OPEN_PILE = tuple(b"\1" + SNACK_ONE_HOT[s] + b"\0\0" for s in range(NUM_SNACKS))
CLOSED_PILE = tuple(b"\1" + SNACK_ONE_HOT[s] + b"\1\0" for s in range(NUM_SNACKS))
LONE_HURRY_UP = b"\1" + NO_SNACK + b"\1\1"
NO_PILES = tuple(bytes(9 * n) for n in range(CUSTOMER_PILES + 1))
NO_XXL_CARDS = tuple(bytes((1 + NUM_SNACKS) * n) for n in range(NUM_XXL + 1))
MENU_SNACKS = tuple(bytes(1 if s in pair else 0 for s in range(NUM_SNACKS)) for pair in MENUS)
PAD = (0,) * max(KITCHEN_PILES, NUM_XXL)
ROUND_POINTS = LAYOUT.slices["round_points"].start
SPEEDS = LAYOUT.slices["speeds"].start
NO_DISHES = zeros("dishes_left", "dishes_taken")
NO_XXL = zeros("xxl_pile", "my_xxl", "xxl_stacks", "my_xxl_matching", "opp_xxl")
NO_MENUS = zeros("my_menus", "menus_fulfilled", "menu_piles", "opp_menu_hand")

_PILE_COUNTS: dict[tuple, bytes] = {}


def pile_counts(pile: list[int]) -> bytes:
    """A kitchen pile's cards by kind (6 snacks, cockroach), memoised: a pile is encoded on many ticks."""
    key = tuple(pile)
    counts = _PILE_COUNTS.get(key)
    if counts is None:
        if len(_PILE_COUNTS) > 100_000:
            _PILE_COUNTS.clear()
        counts = _PILE_COUNTS[key] = bytes(pile.count(k) for k in KITCHEN_KINDS)
    return counts


class SpeedSnacksEncoder:
    """Encodes a `SpeedSnacks` state for one seat (see the module docstring and LAYOUT)."""

    layout = LAYOUT

    def __init__(self, num_players: int, config: dict):
        self.placed = config["kitchen_obs"] == "placed"
        self.modules = [bool(config[m]) for m in MODULES]
        self.constant = bytes(self.modules)

    def encode(self, game: SpeedSnacks, me: int) -> np.ndarray:
        opp = 1 - me
        phase = game.phase
        scoring = tops_face_up(phase)
        placed = self.placed
        decider = game.menu_order[0] if phase == MENU else -1
        hand = game.hands[me]
        parts = [
            PHASE_ONE_HOT.get(phase, b"\0\0\0"),
            bytes((decider == me, decider == opp)),
            HAND_ONE_HOT[NUM_KINDS if hand is None else hand],
        ]
        customer = game.customer
        orders = [0] * NUM_SNACKS
        for pile in customer:
            top = pile[-1]
            if top != HURRY_UP:
                parts.append(OPEN_PILE[top])
                orders[top] += 1
            elif len(pile) > 1:
                top = pile[-2]
                parts.append(CLOSED_PILE[top])
                orders[top] += 1
            else:
                parts.append(LONE_HURRY_UP)
        parts.append(NO_PILES[CUSTOMER_PILES - len(customer)])
        mine, theirs = game.kitchens[me], game.kitchens[opp]
        missing = KITCHEN_PILES - len(mine)
        parts.append(bytes(
            orders + [game.hurry_ups, len(game.deck), game.idle]
            + [len(pile) for pile in mine] + [0] * missing
            + [len(pile) for pile in theirs] + [0] * (KITCHEN_PILES - len(theirs))
        ))
        if placed or scoring:
            parts += [TOP_ONE_HOT[pile[-1]] for pile in mine]
            parts.append(NO_TOPS[missing])
        else:
            parts.append(NO_TOPS[KITCHEN_PILES])
        if placed:
            parts += [pile_counts(pile) for pile in mine]
            parts.append(NO_TOPS[missing])
        else:
            parts.append(NO_TOPS[KITCHEN_PILES])
        if scoring:
            parts += [TOP_ONE_HOT[pile[-1]] for pile in theirs]
            parts.append(NO_TOPS[KITCHEN_PILES - len(theirs)])
        else:
            parts.append(NO_TOPS[KITCHEN_PILES])
        toques, penalties = game.toques, game.penalties
        # toques, starting player, round points (set below), penalties
        parts.append(bytes((toques[me], toques[opp], game.starting_player == me, game.starting_player == opp,
                            0, 0, penalties[me], penalties[opp])))
        health, dish, xxl, menu = self.modules
        if dish:
            taken = game.dish
            parts.append(bytes(s in game.dishes_left for s in range(NUM_SNACKS)))
            parts.append(NO_SNACK if taken[me] is None else SNACK_ONE_HOT[taken[me]])
            parts.append(NO_SNACK if taken[opp] is None else SNACK_ONE_HOT[taken[opp]])
        else:
            parts.append(NO_DISHES)
        if xxl:
            my_cards, my_stacks, their_stacks = game.xxl_cards[me], game.xxl_stacks[me], game.xxl_stacks[opp]
            parts.append(bytes((len(game.xxl_pile),)))
            # "sizes" mode: a player looks at an XXL card as they draw it (rulebook, Module 3),
            # so the card drawn in the last tick shows its snack, once.
            last = game.last_tick
            just_drawn = len(my_cards) - 1 if not placed and last and last["actions"][me] == DRAW_XXL \
                and last["result"][me] == "done" else -1
            for i, snack in enumerate(my_cards):
                parts.append(b"\1")
                parts.append(SNACK_ONE_HOT[snack] if placed or i == just_drawn else NO_SNACK)
            parts.append(NO_XXL_CARDS[NUM_XXL - len(my_cards)])
            pad_mine, pad_theirs = PAD[: NUM_XXL - len(my_stacks)], PAD[: NUM_XXL - len(their_stacks)]
            matching = [stack.count(snack) for snack, stack in zip(my_cards, my_stacks)] if placed else []
            parts.append(bytes(
                [len(s) for s in my_stacks] + list(pad_mine) + [len(s) for s in their_stacks] + list(pad_theirs)
                + matching + [0] * (NUM_XXL - len(matching)) + [len(game.xxl_cards[opp])]
            ))
        else:
            parts.append(NO_XXL)
        if menu:
            menus = game.menu_hands[me]
            parts += [MENU_SNACKS[m] for m in menus]
            parts.append(NO_SNACK * (MENU_HAND - len(menus)))
            parts.append(bytes((len(game.menus_fulfilled[me]), len(game.menus_fulfilled[opp]),
                                len(game.menu_piles[me]), len(game.menu_piles[opp]), len(game.menu_hands[opp]))))
        else:
            parts.append(NO_MENUS)
        parts.append(self.constant)
        parts.append(b"\0\0")  # speeds, set below
        vec = np.frombuffer(b"".join(parts), np.uint8).astype(np.float32)
        if scoring:
            points = game.round_points()
            vec[ROUND_POINTS] = points[me]
            vec[ROUND_POINTS + 1] = points[opp]
        config = game.config
        vec[SPEEDS] = config["speed_0"] if me == 0 else config["speed_1"]
        vec[SPEEDS + 1] = config["speed_1"] if me == 0 else config["speed_0"]
        return vec
