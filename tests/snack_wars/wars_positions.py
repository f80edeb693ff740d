"""Hand-set Snack Wars positions for the tests, and an independent score recomputation."""

from __future__ import annotations

import numpy as np

from snack_envs.snack_wars.components import NUM_KINDS, NUM_TYPES, TYPE_NAMES, copies_by_type
from snack_envs.snack_wars.rules import CHOOSE, SnackWars

(MACARON, MILKSHAKE, SUSHI, RAMEN, CROISSANT, BURGER, DONUT, TEMPURA, CHEESE,
 FRENCH_B, JAPANESE_B, AMERICAN_B, MULTI_B, RACCOON_B, RACCOON) = range(NUM_TYPES)


def kinds(cards: dict[int, int]) -> list[int]:
    row = [0] * NUM_KINDS
    for kind, n in cards.items():
        row[kind] = n
    return row


def position(
    num_players: int,
    collections: dict[int, dict[int, int]] | None = None,
    raccoons: list[int] | None = None,
    draw: list[int] = (),
    then: list[int] = (),
    discard: dict[int, int] | None = None,
    pile_is_exactly: bool = False,
    current: int = 0,
    food_copies: str = "equal",
) -> SnackWars:
    """A game at the start of `current`'s turn: the collections and raccoons given, the
    draw pile starting with `draw` then `then`, and `current` having drawn from it.

    The cards left over go to the bottom of the draw pile, or with
    `pile_is_exactly` to the discard pile, so the draw pile is `draw + then`.
    With every collection at 9 the game is over (a position to score)."""
    game = SnackWars(num_players, np.random.default_rng(0), food_copies=food_copies)
    colls = [kinds((collections or {}).get(p, {})) for p in range(num_players)]
    racc = list(raccoons or [0] * num_players)
    disc = [0] * NUM_TYPES
    for t, n in (discard or {}).items():
        disc[t] = n
    left = list(copies_by_type(food_copies))
    for t in range(NUM_KINDS):
        left[t] -= sum(c[t] for c in colls)
    left[RACCOON] -= sum(racc)
    left = [n - d for n, d in zip(left, disc)]
    deck = list(draw) + list(then)
    for t in deck:
        left[t] -= 1
    assert min(left) >= 0, f"more cards than the game has: {dict(zip(TYPE_NAMES, left))}"
    rest = [t for t, n in enumerate(left) for _ in range(n)]
    if pile_is_exactly:
        disc = [d + n for d, n in zip(disc, left)]
    else:
        deck += rest
    game.collections, game.raccoons, game.discard, game.deck = colls, racc, disc, deck
    game.drawn, game.current_player, game.phase = [0] * NUM_TYPES, current, CHOOSE
    game._legal_cache.clear()
    if all(sum(c) == 9 for c in colls):  # a finished game, for scoring
        game.game_over, game.current_player = True, -1
    else:
        game._draw()
    assert game.invariant_violations() == []
    return game


def held(game: SnackWars, seat: int) -> dict[str, int]:
    """A seat's collection as {card name: count}, for readable assertions."""
    return {TYPE_NAMES[k]: n for k, n in enumerate(game.collections[seat]) if n}


def on_table(counts: list[int]) -> dict[str, int]:
    return {TYPE_NAMES[t]: n for t, n in enumerate(counts) if n}


# Families and values written out again, on purpose, instead of read from components.
VALUE = {MACARON: 1, MILKSHAKE: 2, SUSHI: 3, RAMEN: 4, CROISSANT: 5, BURGER: 6, DONUT: 7, TEMPURA: 8, CHEESE: 9}
FAMILY = {
    MACARON: "F", CROISSANT: "F", CHEESE: "F",
    SUSHI: "J", RAMEN: "J", TEMPURA: "J",
    MILKSHAKE: "A", BURGER: "A", DONUT: "A",
}


def recomputed_scores(collections: list[list[int]], raccoons: list[int]) -> list[float]:
    scores = [0.0] * len(collections)
    for food, value in VALUE.items():
        counts = [c[food] for c in collections]
        top = max(counts)
        if top > 0 and counts.count(top) == 1:
            scores[counts.index(top)] += value
    for p, coll in enumerate(collections):
        per_family = {f: sum(coll[k] for k, fam in FAMILY.items() if fam == f) for f in "FJA"}
        for bonus, family in ((FRENCH_B, "F"), (JAPANESE_B, "J"), (AMERICAN_B, "A")):
            if coll[bonus]:
                scores[p] += per_family[family]
        if coll[MULTI_B] and all(per_family.values()):
            scores[p] += 5
        if coll[RACCOON_B]:
            scores[p] += raccoons[p]
    return scores
