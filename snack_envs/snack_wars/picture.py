"""Snack Wars drawn as a picture: the draw pile, the cards drawn this turn, the discard pile, and each
player's collection (cards by kind, with value and culinary family) and Raccoon cards.

Every card on the table is public in Snack Wars (only the draw pile's order is
hidden, and no picture shows it), so a seat's view differs from the
spectator's only in its "you" tag and title.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from snack_envs.core.picture import ACTIVE, INK, MUTED, Canvas, mix, view_label
from snack_envs.snack_wars.components import (
    AMERICAN,
    COLLECTION_SIZE,
    FAMILIES,
    FAMILY_OF,
    FIRST_BONUS,
    FOODS,
    FRENCH,
    JAPANESE,
    MULTICOLOUR_BONUS,
    NUM_FOODS,
    NUM_TYPES,
    RACCOON,
    RACCOON_BONUS,
)
from snack_envs.snack_wars.rules import CHOOSE, STEALING, SnackWars

FAMILY_COLOURS = {FRENCH: (46, 96, 186), JAPANESE: (200, 48, 60), AMERICAN: (226, 146, 24)}
MULTI_COLOUR = (128, 84, 170)
RACCOON_COLOUR = (92, 92, 100)
BONUS_LABELS = ("French", "Japanese", "American", "Multi", "Raccoon")
SHORT_NAMES = {"shrimp tempura": "tempura"}

WIDTH, MARGIN, GAP = 1000, 14, 10
CARD_W, CARD_H = 58, 80
TOP_Y, TOP_H = 52, 176
ROW_H = 132


def height_for(num_players: int) -> int:
    return TOP_Y + TOP_H + GAP + num_players * (ROW_H + 8) + 4 + 28


def type_colour(t: int) -> tuple[int, int, int]:
    if t < NUM_FOODS:
        return FAMILY_COLOURS[FAMILY_OF[t]]
    if t < MULTICOLOUR_BONUS:
        return FAMILY_COLOURS[t - FIRST_BONUS]
    if t == MULTICOLOUR_BONUS:
        return MULTI_COLOUR
    return RACCOON_COLOUR


def draw_card(c: Canvas, x, y, t: int, count: int | None = None, w: int = CARD_W, h: int = CARD_H, outline=None) -> None:
    """A card of type `t`: a food (name, value, family), a Bonus card, or a Raccoon."""
    colour = type_colour(t)
    if t < NUM_FOODS:
        food = FOODS[t]
        c.card(x, y, w, h, SHORT_NAMES.get(food.name, food.name), colour, value=food.value, subtitle=FAMILIES[food.family], count=count, outline=outline)
    elif t < RACCOON:
        c.card(x, y, w, h, "bonus", colour, value=None, subtitle=None, count=count, outline=outline)
        ink, mid = mix(colour, INK, 0.45), y + (h + min(22, h // 3)) / 2 - 4
        big = max(12, h // 4)
        if t == MULTICOLOUR_BONUS:
            for i, fam in enumerate((FRENCH, JAPANESE, AMERICAN)):
                c.circle(x + w / 2 - w / 5 + w / 5 * i, mid - big / 2, max(2, w // 14), fill=FAMILY_COLOURS[fam])
            c.text(x + w / 2, mid + 6, "+5", big, ink, anchor="mm")
            c.text(x + w / 2, y + h - 10, "all 3 kinds", 10, ink, anchor="mm", max_width=w - 6)
        elif t == RACCOON_BONUS:
            _raccoon(c, x + w / 2, mid, max(5, min(w, h) // 6))
            c.text(x + w / 2, y + h - 10, "+1 each", 10, ink, anchor="mm", max_width=w - 6)
        else:
            c.text(x + w / 2, mid - big / 4, "+1", big, ink, anchor="mm")
            c.text(x + w / 2, mid + big / 2 + 2, "each", 10, ink, anchor="mm")
            c.text(x + w / 2, y + h - 10, BONUS_LABELS[t - FIRST_BONUS], 10, ink, anchor="mm", max_width=w - 6)
    else:
        c.card(x, y, w, h, "raccoon", colour, value=None, count=count, outline=outline)
        _raccoon(c, x + w / 2, y + h / 2 + 6, min(w, h) // 4)


def _raccoon(c: Canvas, cx, cy, r) -> None:
    """A raccoon's face: grey head, ears, black mask, white eyes."""
    grey, dark = (150, 150, 158), (40, 40, 44)
    c.circle(cx - r * 0.75, cy - r * 0.8, r * 0.38, fill=grey, outline=dark)
    c.circle(cx + r * 0.75, cy - r * 0.8, r * 0.38, fill=grey, outline=dark)
    c.circle(cx, cy, r, fill=grey, outline=dark)
    c.draw.rounded_rectangle((cx - r * 0.9, cy - r * 0.35, cx + r * 0.9, cy + r * 0.2), radius=r * 0.25, fill=dark)
    c.circle(cx - r * 0.38, cy - r * 0.08, max(1.5, r * 0.16), fill=(255, 255, 255))
    c.circle(cx + r * 0.38, cy - r * 0.08, max(1.5, r * 0.16), fill=(255, 255, 255))
    c.circle(cx, cy + r * 0.55, max(1.5, r * 0.16), fill=dark)


def draw(game: SnackWars, viewer: int | None, names: Sequence[str]):
    """The table (the same for every viewer: nothing is hidden but the draw pile's order)."""
    c = Canvas(WIDTH, height_for(game.num_players))
    c.title_bar("Snack Wars", _status(game, names), view_label(viewer, names))
    _draw_top_row(c, game)
    majorities = game.food_majorities()
    scores = game.scores()
    y = TOP_Y + TOP_H + GAP
    for p in range(game.num_players):
        _draw_player(c, game, p, y, viewer, names, majorities, scores[p])
        y += ROW_H + 8
    c.footer(_footer(game, names, scores))
    return c.image


def _status(game: SnackWars, names) -> str:
    if game.game_over:
        return f"game over after {game.turn} turns"
    who = names[game.current_player]
    if game.phase == CHOOSE:
        return f"turn {game.turn + 1}: {who} to choose"
    if game.phase == STEALING:
        return f"turn {game.turn + 1}: {who} to steal ({game.steals_left} left)"
    return f"turn {game.turn + 1}: {who} to discard a stolen card"


def _draw_top_row(c: Canvas, game: SnackWars) -> None:
    y, h = TOP_Y, TOP_H
    x, w = MARGIN, 104
    top = c.panel(x, y, w, h, "Draw pile")
    c.pile(x + 20, top + 10, CARD_W, CARD_H, len(game.deck), caption=f"{len(game.deck)} cards")
    # The cards drawn this turn.
    x += w + GAP
    w = 9 * (CARD_W + 12) + 14
    title = {CHOOSE: "Drawn this turn: take one value, one bonus, or the raccoons",
             STEALING: "Raccoons taken: steal from another collection",
             }.get(game.phase, "Discard down to 9 among the stolen cards")
    top = c.panel(x, y, w, h, "Drawn this turn" if game.game_over else title, size=14)
    cx = x + 14
    for t in range(NUM_TYPES):
        if game.drawn[t]:
            draw_card(c, cx, top + 8, t, game.drawn[t])
            cx += CARD_W + 12
    if any(game.stolen):
        c.text(cx + 4, top + 8, "stolen this turn:", 12, MUTED)
        sx = cx + 4
        for t, n in enumerate(game.stolen):
            if n:
                draw_card(c, sx, top + 26, t, n, w=40, h=54)
                sx += 46
    elif game.phase == STEALING:
        c.text(cx + 4, top + 30, f"{game.steals_left} steal{'s' if game.steals_left != 1 else ''} left", 16, INK)
    elif not any(game.drawn):
        c.text(x + 14, top + 30, "nothing on the table", 14, MUTED)
    # The discard pile, by type: a colour swatch, the card and how many.
    x += w + GAP
    w = WIDTH - MARGIN - x
    total = sum(game.discard)
    top = c.panel(x, y, w, h, f"Discard pile: {total}", size=14)
    shown = [t for t in range(NUM_TYPES) if game.discard[t]]
    rows = max(1, (h - (top - y) - 6) // 17)
    col_w = (w - 20) // 2
    for i, t in enumerate(shown[: 2 * rows]):
        tx, ty = x + 10 + (i // rows) * col_w, top + (i % rows) * 17
        c.box(tx, ty + 1, 12, 12, fill=type_colour(t), outline=None, radius=3)
        c.text(tx + 16, ty + 7, f"{type_label(t)} x{game.discard[t]}", 11, INK, anchor="lm", max_width=col_w - 20)
    if not shown:
        c.text(x + 14, top + 20, "empty", 13, MUTED)


def type_label(t: int) -> str:
    if t < NUM_FOODS:
        return f"{FOODS[t].value} {SHORT_NAMES.get(FOODS[t].name, FOODS[t].name)}"
    if t < RACCOON:
        return ("Fr.", "Jp.", "Am.", "Multi", "Racc.")[t - FIRST_BONUS] + " bonus"
    return "raccoon"


def _draw_player(c: Canvas, game: SnackWars, p: int, y: int, viewer, names, majorities, score: float) -> None:
    x, w = MARGIN, WIDTH - 2 * MARGIN
    coll = game.collections[p]
    active = not game.game_over and p == game.current_player
    passed = " (passes: collection full)" if p in game.passed else ""
    top = c.panel(x, y, w, ROW_H, f"{names[p]}: {sum(coll)}/{COLLECTION_SIZE} cards{passed}", active=active, viewer=p == viewer)
    label = "final score" if game.game_over else "points now"
    c.text(x + w - 14, y + 12, f"{label}: {score:g}", 14, INK, anchor="ra")
    cx = x + 14
    for t in range(RACCOON):
        if coll[t]:
            if t < NUM_FOODS and majorities[t] == p:
                c.box(cx - 3, top - 3, CARD_W + 6, CARD_H + 6, fill=ACTIVE, outline=None, radius=9)
            draw_card(c, cx, top, t, coll[t])
            cx += CARD_W + 12
    if not sum(coll):
        c.text(cx, top + 30, "no cards yet", 14, MUTED)
    # Raccoon cards lie face down beside the collection; their number is public.
    rx = x + w - 14 - 150
    c.text(rx, top + 4, "Raccoon cards", 12, MUTED)
    if game.raccoons[p]:
        c.pile(rx, top + 20, 44, 56, game.raccoons[p], label=game.raccoons[p], colour=RACCOON_COLOUR)
        _raccoon(c, rx + 80, top + 48, 14)
    else:
        c.text(rx, top + 30, "none", 13, MUTED)


def _footer(game: SnackWars, names, scores) -> str:
    if game.game_over:
        winners = game.winners()
        return "Final: " + ", ".join(f"{names[p]} {scores[p]:g}" for p in range(game.num_players)) + \
            " - winner" + ("s: " if len(winners) > 1 else ": ") + ", ".join(names[p] for p in winners)
    return "Gold frame: the food majority this player holds (it scores the food's value). Card colours: " \
        "blue French, red Japanese, amber American."


def example(seed: int = 5, decisions: int = 9) -> tuple[SnackWars, list[str]]:
    """A mid-game position of 3 players (seeded random play), for the docs picture."""
    rng = np.random.default_rng(seed)
    game = SnackWars(3, np.random.default_rng(seed))
    for _ in range(decisions):
        legal = game.legal_actions()
        game.apply(int(legal[rng.integers(len(legal))]))
        if game.game_over:
            break
    return game, ["Ada", "Ben", "Cleo"]
