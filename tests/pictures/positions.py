"""Scripted positions of every game for the picture tests, and a rendering-tolerant image comparison.

Each `position_<game>(changed=False)` builds a game from scripted chance (decks,
rolls, dice) and moves chosen by a fixed rule, so it is the same on every
machine; `changed=True` gives the same position with one thing on the table
visibly different (for the tests that a picture follows the state and that the
reference comparison is not too tolerant).

References: tests/pictures/reference/<game>.png, half-size greyscale, written by
`python -m tests.pictures.positions` (run it after a deliberate change to a
picture, look at the files, and commit them).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from snack_envs.core.picture import pillow

REFERENCE_DIR = Path(__file__).parent / "reference"
GAMES = ("snack_rabbits", "snack_wars", "snack_time", "speed_snacks")

# --- comparison ---------------------------------------------------------------------------------------
# Pictures are compared as greyscale at an eighth of their size, tile by tile: the score is the largest
# mean absolute difference (0..255) over 4x4 tiles of that small image (32x32 pixels of the picture).
# Font rendering that differs a little between machines (hinting, anti-aliasing, every glyph a pixel
# off diagonally: 7 to 10 here) stays below TOLERANCE; a card, a die or a single pipe that changed
# (25 and more) does not. tests/pictures/test_pictures.py checks both sides.
TOLERANCE = 15.0
TILE = 4
REFERENCE_SCALE = 2  # references are stored at half size
COMPARE_SCALE = 8


def signature(image, scale: int = COMPARE_SCALE) -> np.ndarray:
    Image, _, _ = pillow()
    grey = image.convert("L")
    w, h = (grey.size[0] // scale) * scale, (grey.size[1] // scale) * scale  # whole boxes only
    return np.asarray(grey.crop((0, 0, w, h)).resize((w // scale, h // scale), Image.Resampling.BOX), np.float32)


def difference(a, b) -> float:
    """The largest tile difference between two signatures (inf when their sizes differ)."""
    if a.shape != b.shape:
        return float("inf")
    diff = np.abs(a - b)
    h, w = (diff.shape[0] // TILE) * TILE, (diff.shape[1] // TILE) * TILE
    tiles = diff[:h, :w].reshape(h // TILE, TILE, w // TILE, TILE).mean(axis=(1, 3))
    return float(tiles.max())


def reference_signature(game_name: str) -> np.ndarray:
    Image, _, _ = pillow()
    with Image.open(REFERENCE_DIR / f"{game_name}.png") as ref:
        return signature(ref, COMPARE_SCALE // REFERENCE_SCALE)


def write_reference(game_name: str, image) -> Path:
    Image, _, _ = pillow()
    REFERENCE_DIR.mkdir(parents=True, exist_ok=True)
    w, h = image.size
    path = REFERENCE_DIR / f"{game_name}.png"
    image.convert("L").resize((w // REFERENCE_SCALE, h // REFERENCE_SCALE), Image.Resampling.BOX).save(path, optimize=True)
    return path


# --- positions ------------------------------------------------------------------------------------------
def _pick(legal: list[int], k: int) -> int:
    """A fixed, spread-out choice among the legal actions (the k-th move of a script)."""
    return legal[(k * 7919 + 3) % len(legal)]


def position_snack_rabbits(changed: bool = False):
    from snack_envs.snack_rabbits.components import FARMER_BROWN, NUM_CARDS
    from snack_envs.snack_rabbits.rules import DICE_CHOICES, NUM_HOPS, STOP, SnackRabbits

    deck = [(c * 17) % NUM_CARDS for c in range(NUM_CARDS)]  # a fixed order of the 63 cards
    deck.insert(58, FARMER_BROWN)
    game = SnackRabbits(3, np.random.default_rng(0), deck=deck)
    for k in range(24):
        legal = game.legal_actions()
        hops = [a for a in legal if a < NUM_HOPS and a % DICE_CHOICES <= 1]
        if k % 3 == 2 and hops:
            action = max(hops, key=lambda a: (sum(game.fences[a // DICE_CHOICES]), -a))
            white = action % DICE_CHOICES
            roll = [6 if k % 2 else 1] + [2] * white  # odd moves make it, even ones fail
            game.apply(action, roll=roll)
        else:
            game.apply(STOP if STOP in legal else legal[-1])
    if changed:  # pumpkins on the first fence that has none
        fence = next(f for f, space in enumerate(game.fences) if not space[-1])
        game.fences[fence][-1] += 2
        game.state_changed()
    return game, ["Ada", "Ben", "Cleo"]


def position_snack_wars(changed: bool = False):
    from tests.snack_wars.wars_positions import (
        AMERICAN_B, BURGER, CHEESE, CROISSANT, DONUT, MACARON, MILKSHAKE, MULTI_B, RACCOON, RAMEN, SUSHI, TEMPURA,
        position,
    )

    collections = {
        0: {CHEESE: 2, CROISSANT: 1, MULTI_B: 1},
        1: {BURGER: 2, DONUT: 1, AMERICAN_B: 1, SUSHI: 1},
        2: {TEMPURA: 1, RAMEN: 2},
    }
    if changed:
        collections[2] = {TEMPURA: 1, RAMEN: 2, MACARON: 3}
    game = position(
        3, collections, raccoons=[1, 0, 2], draw=[MILKSHAKE, MILKSHAKE, RACCOON, SUSHI, DONUT, CHEESE],
        discard={MACARON: 1, RACCOON: 1, RAMEN: 1}, current=2,
    )
    return game, ["Ada", "Ben", "Cleo"]


def position_snack_time(changed: bool = False):
    from snack_envs.snack_time.components import NUM_CARDS
    from snack_envs.snack_time.rules import SnackTime

    deck = [4, 12, 21, 7, 27] + [c for c in range(NUM_CARDS) if c not in (4, 12, 21, 7, 27)]
    rolls = [([k % 3, (k + 1) % 3], [k % 3, (k + 2) % 3, 1], None) for k in range(12)]
    game = SnackTime(2, np.random.default_rng(0), deck=deck, entrance_rolls=["B2", "E2", "C5", "F4", "A6"], rolls=rolls)
    for k in range(40):
        game.apply(_pick(game.legal_actions(), k))
    if changed:  # a pipe drawn by hand on the first sheet, where one fits
        cell = next(c for c in range(64) if game.accept[0][c] and not game.pipes[0][c])
        game._draw_pipe(0, cell, 1 | 2 | 4)
        game.state_changed()
    return game, ["Ada", "Ben"]


def position_speed_snacks(changed: bool = False, **options):
    from tests.speed_snacks.scripted import DONER, FRIES, HOTDOG, HU, PIZZA, ROACH, SUSHI, BURGER, table

    modules = dict(health_department=True, dish_of_the_day=True, xxl=True, menu=True)
    modules.update(options)
    customer = [[PIZZA], [SUSHI, FRIES], [DONER, HU], [HU]]
    if changed:
        customer = [[PIZZA], [SUSHI, FRIES, BURGER], [DONER, HU], [HU]]
    game = table(
        customer=customer,
        kitchens=([[SUSHI, PIZZA], [DONER]], [[ROACH, FRIES], [PIZZA], [HOTDOG, HOTDOG, SUSHI]]),
        hands=(SUSHI, FRIES),
        toques=(2, 1),
        starting_player=1,
        xxl_cards=([(PIZZA, [PIZZA, PIZZA])], [(SUSHI, [SUSHI])]),
        dish=(FRIES, None),
        menu_hands=([(PIZZA, SUSHI), (FRIES, DONER)], [(PIZZA, FRIES), (SUSHI, DONER)]),
        fulfilled=(1, 0),
        **modules,
    )
    return game, ["Ada", "Ben"]


POSITIONS = {
    "snack_rabbits": position_snack_rabbits,
    "snack_wars": position_snack_wars,
    "snack_time": position_snack_time,
    "speed_snacks": position_speed_snacks,
}


def render(game_name: str, changed: bool = False, viewer: int | None = None):
    from snack_envs.core.picture import draw_game

    game, names = POSITIONS[game_name](changed)
    return draw_game(game, viewer, names)


if __name__ == "__main__":
    for name in GAMES:
        print("wrote", write_reference(name, render(name)))
