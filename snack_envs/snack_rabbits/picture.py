"""Snack Rabbits drawn as a picture: the fences with their vegetables, the draw pile, Farmer Brown,
the white-dice pool, the last hop's dice, and each player's dice and collection.

Everything on the table is public in Snack Rabbits (only the draw order is
hidden, and no picture shows it), so a seat's view differs from the
spectator's only in its "you" tag and title.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from snack_envs.core.picture import (
    ACTIVE,
    GOOD,
    INK,
    MUTED,
    PANEL_EDGE,
    Canvas,
    mix,
    view_label,
)
from snack_envs.snack_rabbits.components import CARD_FENCE, CARD_KIND, FARMER_BROWN, FENCES, VALUES, VEGETABLES, WHITE_DICE
from snack_envs.snack_rabbits.rules import SnackRabbits

VEGETABLE_COLOURS = (
    (214, 48, 39),  # tomato
    (240, 135, 0),  # carrot
    (118, 178, 20),  # lettuce
    (206, 50, 128),  # radish
    (160, 112, 58),  # onion
    (40, 140, 118),  # cabbage
    (236, 186, 20),  # pumpkin
)
PLAYER_COLOURS = ((52, 120, 200), (200, 70, 60), (60, 150, 80), (150, 90, 180))
WOOD = (150, 104, 60)
FARMER = (176, 40, 36)

WIDTH, MARGIN, GAP = 1000, 14, 10
TOP_Y, TOP_H = 52, 132
FENCE_Y, FENCE_H = TOP_Y + TOP_H + GAP, 312
PLAYER_Y, PLAYER_H = FENCE_Y + FENCE_H + GAP, 200
HEIGHT = PLAYER_Y + PLAYER_H + GAP + 28


def draw(game: SnackRabbits, viewer: int | None, names: Sequence[str]):
    """The table (the same for every viewer: nothing is hidden but the draw order)."""
    c = Canvas(WIDTH, HEIGHT)
    status = "game over" if game.game_over else f"turn {game.turn + 1}: {names[game.current_player]} to act"
    c.title_bar("Snack Rabbits", status, view_label(viewer, names))
    _draw_top_row(c, game, names)
    _draw_fences(c, game)
    _draw_players(c, game, viewer, names)
    c.footer(_footer(game, names))
    return c.image


def _veg_card(c: Canvas, x, y, kind: int, count: int | None = None, w: int = 54, h: int = 66, sun: bool = False) -> None:
    c.card(x, y, w, h, VEGETABLES[kind], VEGETABLE_COLOURS[kind], value=VALUES[kind], subtitle="points", count=count)
    if sun:
        _sun(c, x + 10, y + h - 10, 7)


def _sun(c: Canvas, cx, cy, r) -> None:
    for k in range(8):
        angle = k * np.pi / 4
        c.line([(cx + r * np.cos(angle), cy + r * np.sin(angle)), (cx + 1.7 * r * np.cos(angle), cy + 1.7 * r * np.sin(angle))],
               (235, 170, 0), 2)
    c.circle(cx, cy, r, fill=(250, 200, 30), outline=(215, 150, 0))


def _draw_top_row(c: Canvas, game: SnackRabbits, names) -> None:
    y, h = TOP_Y, TOP_H
    # Draw pile and Farmer Brown.
    x, w = MARGIN, 220
    top = c.panel(x, y, w, h, "Draw pile")
    c.pile(x + 16, top + 6, 56, 66, len(game.deck), caption=f"{len(game.deck)} cards")
    fx = x + 120
    if game.farmer_revealed:
        c.card(fx, top + 2, 70, 66, "Farmer", FARMER, value="!", subtitle="Brown is out")
    else:
        c.card_back(fx, top + 2, 70, 66, "?")
        c.text(fx + 35, top + 72, "Farmer Brown", 11, MUTED, anchor="ma")
        c.text(fx + 35, top + 84, "not yet out", 11, MUTED, anchor="ma")
    # Cards turned over this turn (a sun chain shows several).
    x += w + GAP
    w = 330
    top = c.panel(x, y, w, h, "Turned over this turn")
    cx = x + 14
    shown = game.revealed_this_turn[-5:]
    for card in shown:
        if card == FARMER_BROWN:
            c.card(cx, top + 4, 54, 66, "Farmer", FARMER, value="!", subtitle="Brown")
        else:
            _veg_card(c, cx, top + 4, CARD_KIND[card], sun=card in game.suns)
            c.text(cx + 27, top + 74, f"to fence {FENCES[CARD_FENCE[card]]}", 11, MUTED, anchor="ma")
        cx += 62
    if not shown:
        c.text(x + 14, top + 30, "nothing (Farmer Brown is out)", 13, MUTED)
    elif any(card in game.suns for card in shown):
        c.text(x + w - 12, y + 12, "sun: turn another", 11, MUTED, anchor="ra")
    # The white-dice pool.
    x += w + GAP
    w = 180
    top = c.panel(x, y, w, h, f"Pool: {game.pool} white dice")
    for i in range(WHITE_DICE):
        dx, dy = x + 14 + (i % 4) * 40, top + 6 + (i // 4) * 40
        if i < game.pool:
            c.die(dx, dy, 32)
        else:
            c.box(dx, dy, 32, 32, fill=None, outline=mix(PANEL_EDGE, (255, 255, 255), 0.6), radius=6)
    # The last hop, with its dice.
    x += w + GAP
    w = WIDTH - MARGIN - x
    top = c.panel(x, y, w, h, "Last hop")
    hop = game.last_hop
    if not hop:
        c.text(x + 14, top + 8, "none this turn" if game.turn else "no hop yet", 13, MUTED)
        return
    height = FENCES[hop["fence"]]
    made = max(hop["roll"]) >= height
    c.text(x + 14, top + 2, f"{names[hop['player']]} over fence {height}", 13, INK, max_width=w - 24)
    dx = x + 14
    for i, value in enumerate(hop["roll"][:7]):
        colour = PLAYER_COLOURS[hop["player"]] if i == 0 else (255, 255, 255)
        c.die(dx, top + 22, 26, value, fill=colour, pips=(255, 255, 255) if i == 0 else INK)
        dx += 30
    result = f"made it: +{hop['taken']} cards" if hop["taken"] else ("made it" if made else "failed")
    c.text(x + 14, top + 56, result, 14, GOOD if made else (196, 56, 48))


def _draw_fences(c: Canvas, game: SnackRabbits) -> None:
    w = (WIDTH - 2 * MARGIN - 4 * GAP) // 5
    for f, height in enumerate(FENCES):
        x = MARGIN + f * (w + GAP)
        space = game.fences[f]
        total = sum(space)
        top = c.panel(x, FENCE_Y, w, FENCE_H, f"Fence {height}: {total} card{'s' if total != 1 else ''}")
        _fence(c, x + 10, top, w - 20, 48, height)
        cy, col = top + 60, 0
        cards_x = x + (w - 3 * 50 - 2 * 12) // 2
        for kind, count in enumerate(space):
            if not count:
                continue
            _veg_card(c, cards_x + col * 62, cy, kind, count, w=50)
            col += 1
            if col == 3:
                col, cy = 0, cy + 74
        if not total:
            c.text(x + w / 2, top + 100, "empty", 14, MUTED, anchor="mm")


def _fence(c: Canvas, x, y, w, h, height: int) -> None:
    """A picket fence whose pickets grow with its height; a sign with the number to roll."""
    rail = mix(WOOD, (255, 255, 255), 0.15)
    c.draw.rectangle((x, y + h - 16, x + w, y + h - 10), fill=rail)
    c.draw.rectangle((x, y + h - 32, x + w, y + h - 26), fill=rail)
    picket_h = 18 + height * 5
    for px in range(int(x) + 4, int(x + w) - 8, 16):
        top = y + h - picket_h
        c.draw.polygon([(px, top + 5), (px + 5, top), (px + 10, top + 5), (px + 10, y + h), (px, y + h)], fill=WOOD,
                       outline=mix(WOOD, INK, 0.4))
    cx = x + w / 2
    c.box(cx - 22, y + h - 44, 44, 32, fill=(250, 244, 228), outline=mix(WOOD, INK, 0.4), radius=5, width=2)
    c.text(cx, y + h - 28, f"{height}+", 20, INK, anchor="mm")


def _draw_players(c: Canvas, game: SnackRabbits, viewer: int | None, names) -> None:
    n = game.num_players
    w = (WIDTH - 2 * MARGIN - (n - 1) * GAP) // n
    points = game.kind_points()
    for p in range(n):
        x = MARGIN + p * (w + GAP)
        active = not game.game_over and p == game.current_player
        top = c.panel(x, PLAYER_Y, w, PLAYER_H, names[p], active=active, viewer=p == viewer)
        c.die(x + 14, top, 28, fill=PLAYER_COLOURS[p], label="own", pips=(255, 255, 255))
        dx = x + 50
        for i in range(game.white[p]):
            c.die(dx + i * 24, top + 4, 20)
        c.text(dx + max(game.white[p], 0) * 24 + 4, top + 14, f"+{game.white[p]} white", 12, MUTED, anchor="lm")
        # The collection: one chip per vegetable, gold-framed where this player holds a majority.
        chip_w = min(52, (w - 28 - 3 * 4) // 4)
        for kind in range(len(VEGETABLES)):
            cx = x + 14 + (kind % 4) * (chip_w + 4)
            cy = top + 38 + (kind // 4) * 52
            count = game.collections[p][kind]
            leads = count and points[p][kind] == VALUES[kind]
            colour = VEGETABLE_COLOURS[kind] if count else (215, 212, 205)
            c.box(cx, cy, chip_w, 46, fill=mix(colour, (255, 255, 255), 0.75), outline=ACTIVE if leads else colour,
                  radius=6, width=3 if leads else 1)
            c.text(cx + chip_w / 2, cy + 10, VEGETABLES[kind], 10, INK if count else MUTED, anchor="mm", max_width=chip_w - 4)
            c.text(cx + chip_w / 2, cy + 29, count, 18, INK if count else MUTED, anchor="mm")
        score = game.scores()[p]
        label = "final score" if game.game_over else "points now"
        c.text(x + w - 12, PLAYER_Y + 12, f"{label}: {score:g}", 13, INK, anchor="ra")


def _footer(game: SnackRabbits, names) -> str:
    if game.game_over:
        scores = game.scores()
        winners = game.winners()
        return "Final: " + ", ".join(f"{names[p]} {scores[p]:g}" for p in range(game.num_players)) + \
            " - winner" + ("s: " if len(winners) > 1 else ": ") + ", ".join(names[p] for p in winners)
    return (f"{names[game.current_player]} chooses: hop a fence (roll at least its number with the own die and any "
            f"white dice) or stop and take a white die. Gold frame: majority held.")


def example(seed: int = 0, decisions: int = 30) -> tuple[SnackRabbits, list[str]]:
    """A mid-game position of 3 players (seeded play that hops with few dice about half the time,
    else stops), for the docs picture."""
    rng = np.random.default_rng(seed)
    game = SnackRabbits(3, np.random.default_rng(seed))
    for _ in range(decisions):
        legal = game.legal_actions()
        hops = [a for a in legal if a < 45 and a % 9 <= 2]
        stops = [a for a in legal if a >= 45]
        game.apply(int(hops[rng.integers(len(hops))] if hops and rng.random() < 0.45 else stops[0]))
        if game.game_over:
            break
    return game, ["Ada", "Ben", "Cleo"]
