"""Snack Rabbits' components as one data table (see shared/rules/COMPONENTS.md).

FACT / DERIVED: 63 vegetable cards, a vegetable worth n has n cards; tomato 6,
carrot 7, onion 10; fences 2..6; 8 white dice; Farmer Brown among the bottom
11 cards of the draw pile.
ASSUMPTION (DEFAULT in COMPONENTS.md, replace with real data when known):
- the names lettuce 8, radish 9, cabbage 11, pumpkin 12;
- which fence a card shows: each vegetable's cards are dealt round-robin over
  fences 2..6, vegetable k starting at fence index k (13/13/13/12/12 per fence);
- sun cards: `suns_per_fence` per fence (default 2, 10 in all), spread
  evenly over the cards dealt to that fence in the table order below;
- dice are ordinary d6.
"""

from __future__ import annotations

from dataclasses import dataclass

VEGETABLES = ("tomato", "carrot", "lettuce", "radish", "onion", "cabbage", "pumpkin")
VALUES = (6, 7, 8, 9, 10, 11, 12)
FENCES = (2, 3, 4, 5, 6)
NUM_KINDS = len(VEGETABLES)
NUM_FENCES = len(FENCES)
NUM_CARDS = sum(VALUES)  # 63
WHITE_DICE = 8
DIE_SIDES = 6
FARMER_BROWN = NUM_CARDS  # card id of Farmer Brown, after the 63 vegetable cards
FARMER_DEPTH = 11  # Farmer Brown lies among the bottom 11 cards


@dataclass(frozen=True)
class Card:
    kind: int  # index into VEGETABLES
    fence: int  # index into FENCES
    rank_at_fence: int  # order in which the card was dealt to its fence (for sun placement)


def build_cards() -> tuple[Card, ...]:
    cards, dealt = [], [0] * NUM_FENCES
    for kind, value in enumerate(VALUES):
        for copy in range(value):
            fence = (kind + copy) % NUM_FENCES
            cards.append(Card(kind, fence, dealt[fence]))
            dealt[fence] += 1
    return tuple(cards)


CARDS = build_cards()
CARD_KIND = tuple(c.kind for c in CARDS)
CARD_FENCE = tuple(c.fence for c in CARDS)


def sun_cards(suns_per_fence: int) -> frozenset[int]:
    """Ids of the cards that show a sun: at each fence, every `step`-th card dealt there
    (step = 12 // suns_per_fence), so the suns spread over several vegetables."""
    if suns_per_fence == 0:
        return frozenset()
    step = 12 // suns_per_fence
    return frozenset(
        i for i, c in enumerate(CARDS) if c.rank_at_fence % step == 0 and c.rank_at_fence // step < suns_per_fence
    )
