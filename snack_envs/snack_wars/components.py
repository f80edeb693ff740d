"""Snack Wars' components as one data table (see shared/rules/COMPONENTS.md).

FACT: 60 cards: 45 Food cards of 9 kinds, 10 Raccoon cards, 5 Bonus cards
(French, Japanese, American, Multicolour, Raccoon); each food kind has a value
1..9 and a culinary family (French, Japanese, American).
DERIVED: donut = 7, croissant = 5 (the rulebook's examples).
ASSUMPTION (DEFAULT in COMPONENTS.md, replace with real data when known):
- the other values and families, chosen so that each family totals 15:
  French macaron 1, croissant 5, cheese 9; Japanese sushi 3, ramen 4,
  shrimp tempura 8; American milk-shake 2, burger 6, donut 7;
- food copies: 5 of each kind (`food_copies="equal"`, the default), or value n
  has n copies (`food_copies="value"`, 1 + ... + 9 = 45);
- one Bonus card of each of the 5 kinds.

Cards are identified by type, not by copy (copies of a kind are alike):
types 0..8 are the foods in value order (type = value - 1), 9..13 the Bonus
cards, 14 the Raccoon. Types 0..13 are the "kinds" a collection can hold.
"""

from __future__ import annotations

from itertools import combinations
from typing import NamedTuple

FRENCH, JAPANESE, AMERICAN = 0, 1, 2
FAMILIES = ("French", "Japanese", "American")


class Food(NamedTuple):
    name: str
    value: int
    family: int


# In value order, so that a food's type is its value - 1.
FOODS = (
    Food("macaron", 1, FRENCH),
    Food("milk-shake", 2, AMERICAN),
    Food("sushi", 3, JAPANESE),
    Food("ramen", 4, JAPANESE),
    Food("croissant", 5, FRENCH),
    Food("burger", 6, AMERICAN),
    Food("donut", 7, AMERICAN),
    Food("shrimp tempura", 8, JAPANESE),
    Food("cheese", 9, FRENCH),
)
BONUSES = ("French bonus", "Japanese bonus", "American bonus", "Multicolour bonus", "Raccoon bonus")

NUM_FOODS = len(FOODS)  # 9
NUM_BONUSES = len(BONUSES)  # 5
NUM_KINDS = NUM_FOODS + NUM_BONUSES  # 14 kinds a collection can hold
FIRST_BONUS = NUM_FOODS  # type of the French bonus
FRENCH_BONUS, JAPANESE_BONUS, AMERICAN_BONUS, MULTICOLOUR_BONUS, RACCOON_BONUS = range(FIRST_BONUS, NUM_KINDS)
RACCOON = NUM_KINDS  # type 14
NUM_TYPES = NUM_KINDS + 1  # 15
NUM_RACCOONS = 10
NUM_CARDS = 60
COLLECTION_SIZE = 9
MULTICOLOUR_POINTS = 5

TYPE_NAMES = tuple(f.name for f in FOODS) + BONUSES + ("raccoon",)
VALUES = tuple(f.value for f in FOODS)
FAMILY_OF = tuple(f.family for f in FOODS)

FOOD_COPIES = {
    "equal": (5,) * NUM_FOODS,  # ASSUMPTION (DEFAULT)
    "value": VALUES,  # the other reading: value n has n copies
}


def copies_by_type(food_copies: str) -> tuple[int, ...]:
    """How many cards of each type (0..14) the deck holds; 60 in all."""
    copies = FOOD_COPIES[food_copies] + (1,) * NUM_BONUSES + (NUM_RACCOONS,)
    assert sum(copies) == NUM_CARDS
    return copies


def max_score() -> int:
    """The highest score one player can reach (for reward scaling).

    Nine collection cards, some of them Bonus cards, the rest foods of distinct
    kinds (a second card of a kind adds at most one family point, a new kind
    at least its value and that point), and every Raccoon card harvested."""
    best = 0
    for num_bonuses in range(NUM_BONUSES + 1):
        for bonuses in combinations(range(FIRST_BONUS, NUM_KINDS), num_bonuses):
            for foods in combinations(range(NUM_FOODS), COLLECTION_SIZE - num_bonuses):
                families = [FAMILY_OF[f] for f in foods]
                score = sum(VALUES[f] for f in foods)
                score += sum(families.count(b - FRENCH_BONUS) for b in bonuses if b <= AMERICAN_BONUS)
                if MULTICOLOUR_BONUS in bonuses and len(set(families)) == len(FAMILIES):
                    score += MULTICOLOUR_POINTS
                if RACCOON_BONUS in bonuses:
                    score += NUM_RACCOONS
                best = max(best, score)
    return best
