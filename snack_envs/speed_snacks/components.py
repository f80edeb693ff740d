"""Speed Snacks' components as one data table (see shared/rules/COMPONENTS.md).

Cards are stored by kind (cards of one kind are alike): 0..5 the six snacks,
then the Hurry-up and the Cockroach.

FACT: 2 players; 66 Snack cards, 11 of each of sushi, Döner, fries, pizza,
hamburger, hot dog; 5 Hurry-up cards; 9 toques; 5 customer-order piles and 5
kitchen piles per player; the round is scored when the 4th Hurry-up is placed;
first to 5 toques wins; Module 1 adds 10 Cockroach cards; Module 4 has 15 Menu
cards, the 15 pairs of two different snacks, 7 dealt to each player, a hand of 2.
ASSUMPTION (DEFAULT in COMPONENTS.md, replace with real data when known):
- the 6 Dish-of-the-Day cards are one per snack; a dish taken by one player is
  gone for the other that round;
- the 6 XXL cards are one per snack; an XXL card scores +3 with exactly 3
  matching snacks on it, else -3.
"""

from __future__ import annotations

from itertools import combinations

SNACKS = ("sushi", "Döner", "fries", "pizza", "hamburger", "hot dog")
NUM_SNACKS = len(SNACKS)
HURRY_UP = NUM_SNACKS  # card kind 6
COCKROACH = NUM_SNACKS + 1  # card kind 7
NUM_KINDS = NUM_SNACKS + 2
KIND_NAMES = SNACKS + ("Hurry up!", "cockroach")

COPIES_PER_SNACK = 11
NUM_HURRY_UPS = 5
NUM_COCKROACHES = 10
HURRY_UPS_TO_END = 4  # the round ends at once when the 4th Hurry-up is placed

NUM_TOQUES = 9
TOQUES_TO_WIN = 5

CUSTOMER_PILES = 5
KITCHEN_PILES = 5

DISHES = tuple(range(NUM_SNACKS))  # ASSUMPTION: one Dish-of-the-Day card per snack
XXL_CARDS = tuple(range(NUM_SNACKS))  # ASSUMPTION: one XXL card per snack
XXL_TARGET = 3  # exactly this many matching snacks fulfil an XXL order
XXL_BONUS, XXL_PENALTY = 3, -3  # ASSUMPTION (the rulebook's numbers)

MENUS = tuple(combinations(range(NUM_SNACKS), 2))  # the 15 Menu cards: pairs of different snacks
MENUS_PER_PLAYER = 7
MENU_HAND = 2
MENU_POINT_COST, MENU_CHANGE_COST, MENU_TOQUE_COST = 1, 2, 3


def deck_counts(health_department: bool) -> list[int]:
    """How many cards of each kind are shuffled into the draw pile of a round."""
    return [COPIES_PER_SNACK] * NUM_SNACKS + [NUM_HURRY_UPS, NUM_COCKROACHES if health_department else 0]


def new_deck(health_department: bool) -> list[int]:
    """The round's cards by kind, unshuffled."""
    return [kind for kind, n in enumerate(deck_counts(health_department)) for _ in range(n)]
