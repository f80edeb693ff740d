"""Scripted Speed Snacks tables for the tests: a game whose piles, hands and modules are set by hand.

Every card put on the table is taken out of the draw pile, so the cards stay
conserved and `invariant_violations()` stays empty.
"""

from __future__ import annotations

import numpy as np

from snack_envs.speed_snacks.components import COCKROACH, HURRY_UP, MENUS
from snack_envs.speed_snacks.rules import SpeedSnacks

SUSHI, DONER, FRIES, PIZZA, BURGER, HOTDOG = range(6)
HU, ROACH = HURRY_UP, COCKROACH


def menu_id(a: int, b: int) -> int:
    return MENUS.index((min(a, b), max(a, b)))


def table(
    customer=(),
    kitchens=((), ()),
    hands=(None, None),
    toques=(0, 0),
    starting_player=0,
    xxl_cards=((), ()),
    dish=(None, None),
    menu_hands=None,
    fulfilled=(0, 0),
    seed=0,
    **options,
) -> SpeedSnacks:
    """A game in its first round's play with the given table (cards by kind; piles bottom first).

    `xxl_cards`: per seat, (snack, [cards on it]) pairs; `menu_hands`: per seat, Menu snack pairs in hand;
    `fulfilled`: per seat, how many fulfilled Menu cards it holds (taken from its Menu pile, or where that is
    empty from the cards out)."""
    game = SpeedSnacks(2, np.random.default_rng(seed), starting_player=starting_player, **options)
    deck = game.deck + [h for h in game.hands if h is not None]

    def take(kind: int) -> int:
        deck.remove(kind)
        return kind

    game.customer = [[take(c) for c in pile] for pile in customer]
    game.kitchens = [[[take(c) for c in pile] for pile in seat] for seat in kitchens]
    for p, cards in enumerate(xxl_cards):
        for snack, stack in cards:
            game.xxl_pile.remove(snack)
            game.xxl_cards[p].append(snack)
            game.xxl_stacks[p].append([take(c) for c in stack])
    game.hands = [None if h is None else take(h) for h in hands]
    game.deck = deck
    game.hurry_ups = sum(pile.count(HU) for pile in game.customer)
    game.toques = list(toques)
    for p, snack in enumerate(dish):
        if snack is not None:
            game.dishes_left.remove(snack)
            game.dish[p] = snack
    if menu_hands is not None:  # the other Menu cards fill the piles (7 a seat; none behind a short hand) or are out
        wanted = [[menu_id(*pair) for pair in pairs] for pairs in menu_hands]
        rest = [m for m in range(len(MENUS)) if m not in wanted[0] + wanted[1]]
        game.menu_hands = wanted
        for p in (0, 1):
            n = 7 - len(wanted[p]) if len(wanted[p]) == 2 else 0  # a short hand: its pile is spent
            game.menu_piles[p], rest = rest[:n], rest[n:]
        game.menus_out = rest
    for p, n in enumerate(fulfilled):
        for _ in range(n):
            game.menus_fulfilled[p].append((game.menu_piles[p] or game.menus_out).pop())
    game._legal_cache.clear()
    problems = game.invariant_violations()
    assert not problems, problems
    return game


def put_on_top(game: SpeedSnacks, *kinds: int) -> None:
    """Make `kinds` the next cards drawn, in this order."""
    for kind in reversed(kinds):
        game.deck.remove(kind)
        game.deck.append(kind)
