"""Speed Snacks drawn as a picture: the customer orders in the middle, each player's hand, kitchen
piles, toques and module cards (Dish of the Day, XXL, Menus) above and below.

A seat's view shows exactly what its observation encodes
(`snack_envs.speed_snacks.observation`):
- its own hand; the opponent's hand only as a card back (during play);
- kitchen cards lie face down: the opponent's piles show only their sizes;
  its own show their top card and what they hold by kind (no order) with
  `kitchen_obs="placed"`, only sizes with `"sizes"`; every top card shows at
  scoring, when they are turned face up (after Module 1's inspection);
- customer piles show their top snack (or the snack under a Hurry-up), not
  how many cards lie below;
- its own XXL cards (`"placed"`: their snack and matching cards) and Menu
  hand; the opponent's only as backs and counts.
The spectator's view (`viewer=None`) shows everything: both hands, every
kitchen pile from bottom to top, the customer piles' heights, every XXL and
Menu card. The viewer's side is drawn at the bottom; the spectator sees
seat 0 at the bottom.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from snack_envs.core.picture import ACTIVE, BAD, INK, MUTED, PANEL_EDGE, WHITE, Canvas, mix, view_label
from snack_envs.speed_snacks.components import (
    COCKROACH,
    CUSTOMER_PILES,
    HURRY_UP,
    HURRY_UPS_TO_END,
    KITCHEN_PILES,
    MENUS,
    TOQUES_TO_WIN,
)
from snack_envs.speed_snacks.rules import INSPECTION, MENU, PLAY, SpeedSnacks, top_snack, tops_face_up

SNACK_COLOURS = (
    (238, 120, 110),  # sushi
    (186, 136, 74),  # Doner
    (236, 188, 30),  # fries
    (200, 44, 44),  # pizza
    (118, 72, 40),  # hamburger
    (232, 120, 24),  # hot dog
)
SHORT = ("sushi", "doner", "fries", "pizza", "burger", "hot dog")
HURRY_COLOUR = (214, 30, 36)
ROACH_COLOUR = (70, 54, 40)
MENU_COLOUR = (90, 110, 90)

WIDTH, MARGIN, GAP = 1000, 14, 10
CARD_W, CARD_H = 76, 100
SEAT_H = 196
TOP_Y = 52
MIDDLE_Y = TOP_Y + SEAT_H + GAP
MIDDLE_H = 166
BOTTOM_Y = MIDDLE_Y + MIDDLE_H + GAP
HEIGHT = BOTTOM_Y + SEAT_H + GAP + 28


def draw(game: SpeedSnacks, viewer: int | None, names: Sequence[str]):
    """The table from `viewer`'s seat (hiding what its observation leaves out), or everything (None)."""
    c = Canvas(WIDTH, HEIGHT)
    status = {PLAY: "play", INSPECTION: "scoring: inspection", MENU: "scoring: Menu cards"}.get(game.phase, "game over")
    c.title_bar("Speed Snacks", f"round {game.round}, tick {game.tick}: {status}", view_label(viewer, names))
    me = 0 if viewer is None else viewer
    _draw_seat(c, game, 1 - me, TOP_Y, viewer, names)
    _draw_middle(c, game, viewer, names)
    _draw_seat(c, game, me, BOTTOM_Y, viewer, names)
    c.footer(_footer(game, names))
    return c.image


# --- cards -------------------------------------------------------------------------------------------
def snack_card(c: Canvas, x, y, kind: int, w: int = CARD_W, h: int = CARD_H, count: int | None = None, note=None) -> None:
    """A card by kind: a snack (its name on a plate of its colour), a Hurry-up or a cockroach."""
    if kind == HURRY_UP:
        c.card(x, y, w, h, "Hurry up!", HURRY_COLOUR, value="!", subtitle=note)
        return
    if kind == COCKROACH:
        c.card(x, y, w, h, "cockroach", ROACH_COLOUR, subtitle=note, count=count)
        _roach(c, x + w / 2, y + h / 2 + 4, min(w, h) / 5)
        return
    colour = SNACK_COLOURS[kind]
    c.card(x, y, w, h, SHORT[kind], colour, subtitle=note, count=count)
    r = min(w, h) / 4
    cy = y + h / 2 + (2 if note is None else -2)
    c.circle(x + w / 2, cy, r + 3, fill=WHITE, outline=mix(colour, INK, 0.3), width=2)
    c.circle(x + w / 2, cy, r - 2, fill=colour)
    c.text(x + w / 2, cy, SHORT[kind][:2].title(), max(10, int(r * 0.9)), mix(colour, INK, 0.75) if sum(colour) > 450 else WHITE, anchor="mm")


def _roach(c: Canvas, cx, cy, r) -> None:
    for dy in (-0.5, 0, 0.5):
        c.line([(cx - r * 1.3, cy + dy * r - r * 0.3), (cx + r * 1.3, cy + dy * r + r * 0.3)], INK, 2)
    c.draw.ellipse((cx - r * 0.7, cy - r, cx + r * 0.7, cy + r), fill=(120, 80, 50), outline=INK)
    c.circle(cx, cy - r, r * 0.35, fill=INK)


def _hat(c: Canvas, x, y, size: int, won: bool) -> None:
    """A chef's toque: white with a dark edge when won, faint when not (drawn edge first, then fill,
    so the puffs merge into one silhouette)."""
    fill = WHITE if won else mix(PANEL_EDGE, WHITE, 0.7)
    edge = INK if won else mix(PANEL_EDGE, WHITE, 0.2)
    puffs = ((0.3, 0.38, 0.2), (0.5, 0.28, 0.25), (0.7, 0.38, 0.2))
    band = (x + size * 0.24, y + size * 0.45, x + size * 0.76, y + size * 0.92)
    for grow, colour in ((2, edge), (0, fill)):
        for fx, fy, fr in puffs:
            c.circle(x + fx * size, y + fy * size, fr * size + grow, fill=colour)
        c.draw.rectangle((band[0] - grow, band[1], band[2] + grow, band[3] + grow), fill=colour)
    c.line([(band[0], band[3] - size * 0.14), (band[2], band[3] - size * 0.14)], edge, 1)


def _menu_card(c: Canvas, x, y, menu: int | None, w: int = 50, h: int = 64) -> None:
    """A Menu card: its two snacks, or its back (menu=None)."""
    if menu is None:
        c.card_back(x, y, w, h, "menu", MENU_COLOUR)
        return
    c.card(x, y, w, h, "menu", MENU_COLOUR)
    for i, snack in enumerate(MENUS[menu]):
        cy = y + 28 + i * 18
        c.circle(x + 10, cy, 5, fill=SNACK_COLOURS[snack])
        c.text(x + 18, cy, SHORT[snack], 10, INK, anchor="lm", max_width=w - 20)


def _contents(pile: list[int], ordered: bool) -> str:
    """A pile's cards in words: the ones under the top card, top first (`ordered`), or all by kind."""
    names = SHORT + ("hurry", "roach")
    if ordered:
        under = pile[-2::-1]
        return "under: " + ", ".join(names[k] for k in under) if under else "1 card"
    counts = [(names[k], pile.count(k)) for k in sorted(set(pile))]
    return "holds " + ", ".join(f"{n} {name}" for name, n in counts)


# --- the two sides -------------------------------------------------------------------------------------
def _draw_seat(c: Canvas, game: SpeedSnacks, p: int, y: int, viewer, names) -> None:
    spectator = viewer is None
    mine = viewer == p
    placed = game.config["kitchen_obs"] == "placed"
    scoring = tops_face_up(game.phase)
    starts = " (starts the round)" if game.starting_player == p else ""
    title = f"{names[p]}{starts}"
    top = c.panel(MARGIN, y, WIDTH - 2 * MARGIN, SEAT_H, title, viewer=mine)
    # Toques, at the top right.
    for t in range(TOQUES_TO_WIN):
        _hat(c, WIDTH - MARGIN - 14 - (TOQUES_TO_WIN - t) * 30, y + 6, 28, t < game.toques[p])
    c.text(WIDTH - MARGIN - 14 - TOQUES_TO_WIN * 30 - 8, y + 20, f"toques {game.toques[p]}/{TOQUES_TO_WIN}", 12, MUTED, anchor="rm")
    # The hand.
    x = MARGIN + 14
    c.text(x, top, "hand", 11, MUTED)
    hand = game.hands[p]
    if spectator or mine:
        if hand is None:
            c.box(x, top + 16, CARD_W, CARD_H, fill=None, outline=PANEL_EDGE, radius=8)
            c.text(x + CARD_W / 2, top + 16 + CARD_H / 2, "no card", 11, MUTED, anchor="mm")
        else:
            snack_card(c, x, top + 16, hand)
    elif game.phase == PLAY:
        c.card_back(x, top + 16, CARD_W, CARD_H, "?")
    # The kitchen: piles of cards placed face down.
    x += CARD_W + 26
    c.text(x, top, "kitchen (face down)" if not scoring else "kitchen (top cards face up: scoring)", 11, MUTED)
    for i in range(KITCHEN_PILES):
        px = x + i * (CARD_W + 14)
        if i >= len(game.kitchens[p]):
            c.box(px, top + 16, CARD_W, CARD_H, fill=None, outline=mix(PANEL_EDGE, WHITE, 0.6), radius=8)
            continue
        pile = game.kitchens[p][i]
        shows_top = spectator or scoring or (mine and placed)
        if shows_top:
            if len(pile) > 1:
                c.card_back(px + 4, top + 12, CARD_W, CARD_H)
            snack_card(c, px, top + 16, pile[-1])
        else:
            c.pile(px, top + 16, CARD_W, CARD_H, len(pile), label=len(pile))
        caption = f"{len(pile)} card{'s' if len(pile) != 1 else ''}"
        if spectator:
            caption = _contents(pile, ordered=True)
        elif mine and placed:
            caption = _contents(pile, ordered=False)
        c.text(px + CARD_W / 2, top + 20 + CARD_H, caption, 10, MUTED, anchor="ma", max_width=CARD_W + 12)
    # The modules: Dish of the Day, XXL cards, Menu cards.
    x += KITCHEN_PILES * (CARD_W + 14) + 12
    _draw_modules(c, game, p, x, top, spectator, mine, placed)


def _draw_modules(c: Canvas, game: SpeedSnacks, p: int, x: int, y: int, spectator: bool, mine: bool, placed: bool) -> None:
    cfg = game.config
    right = WIDTH - MARGIN - 12
    if not any(cfg[m] for m in ("dish_of_the_day", "xxl", "menu")):
        return
    if cfg["dish_of_the_day"]:
        c.text(x, y, "dish", 11, MUTED)
        if game.dish[p] is None:
            c.box(x, y + 16, 50, 64, fill=None, outline=mix(PANEL_EDGE, WHITE, 0.5), radius=6)
        else:
            snack_card(c, x, y + 16, game.dish[p], w=50, h=64)
        x += 62
    if cfg["xxl"]:
        c.text(x, y, "XXL", 11, MUTED)
        for j, (snack, stack) in enumerate(zip(game.xxl_cards[p], game.xxl_stacks[p])):
            jx, jy = x + (j % 3) * 42, y + 16 + (j // 3) * 72
            notes = [f"{len(stack)} on"]
            if spectator or (mine and placed):
                c.card(jx, jy, 36, 44, "XXL", SNACK_COLOURS[snack])
                c.text(jx + 18, jy + 30, SHORT[snack][:2].title(), 11, INK, anchor="mm")
                notes.append(f"{stack.count(snack)} match")  # it scores with exactly 3 matching
            else:
                c.card_back(jx, jy, 36, 44, "XXL")
            for line, note in enumerate(notes):
                c.text(jx + 18, jy + 46 + 11 * line, note, 9, MUTED, anchor="ma", max_width=40)
        if not game.xxl_cards[p]:
            c.text(x, y + 22, "none", 11, MUTED)
        x += 126
    if cfg["menu"]:
        c.text(x, y, f"menus: {len(game.menus_fulfilled[p])} fulfilled, {len(game.menu_piles[p])} in pile", 11, MUTED,
               max_width=right - x)
        for j, menu in enumerate(game.menu_hands[p]):
            _menu_card(c, x + j * 56, y + 16, menu if spectator or mine else None)
        for j in range(len(game.menus_fulfilled[p])):
            fx = x + 118 + j * 8
            if fx + 30 < right:
                c.box(fx, y + 16, 30, 40, fill=mix(MENU_COLOUR, WHITE, 0.6), outline=MENU_COLOUR, radius=5)
        if game.menus_fulfilled[p]:
            c.text(x + 118, y + 60, "fulfilled", 10, MUTED)


# --- the middle of the table ----------------------------------------------------------------------------
def _draw_middle(c: Canvas, game: SpeedSnacks, viewer, names) -> None:
    spectator = viewer is None
    x, y = MARGIN, MIDDLE_Y
    w = 14 + CUSTOMER_PILES * (CARD_W + 14) + 4
    top = c.panel(x, y, w, MIDDLE_H, "Customer orders", size=14)
    for i in range(CUSTOMER_PILES):
        px = x + 14 + i * (CARD_W + 14)
        if i >= len(game.customer):
            c.box(px, top, CARD_W, CARD_H, fill=None, outline=mix(PANEL_EDGE, WHITE, 0.5), radius=8)
            c.text(px + CARD_W / 2, top + CARD_H / 2, "free", 11, MUTED, anchor="mm")
            continue
        pile = game.customer[i]
        snack = top_snack(pile)
        closed = pile[-1] == HURRY_UP
        if snack is None:
            snack_card(c, px, top, HURRY_UP, note="slide under")
        else:
            snack_card(c, px, top, snack)
            if closed:  # the Hurry-up lies across the order
                c.box(px - 3, top + CARD_H - 30, CARD_W + 6, 20, fill=HURRY_COLOUR, outline=WHITE, radius=5, width=2)
                c.text(px + CARD_W / 2, top + CARD_H - 20, "Hurry up!", 11, WHITE, anchor="mm")
        caption = f"order {i + 1}" + (f": {len(pile)} cards" if spectator else "")
        c.text(px + CARD_W / 2, top + CARD_H + 4, caption, 10, MUTED, anchor="ma")
    # Draw pile, Hurry-ups, waiting, and the modules' shared cards.
    x += w + GAP
    w = WIDTH - MARGIN - x
    top = c.panel(x, y, w, MIDDLE_H, "Table", size=14)
    c.pile(x + 14, top + 4, 54, 72, len(game.deck), caption=f"draw {len(game.deck)}")
    ix = x + 88
    c.text(ix, top, f"Hurry-ups {game.hurry_ups}/{HURRY_UPS_TO_END}", 12, INK)
    for h in range(HURRY_UPS_TO_END):
        c.box(ix + h * 22, top + 18, 18, 18, fill=HURRY_COLOUR if h < game.hurry_ups else WHITE,
              outline=HURRY_COLOUR, radius=4)
    c.text(ix, top + 44, f"both waited {game.idle}/{game.config['idle_ticks']} ticks", 12, INK)
    line = top + 64
    if game.phase != PLAY and (tops_face_up(game.phase) or viewer is None):
        points = game.round_points()
        c.text(ix, line, f"points: {names[0]} {points[0]}, {names[1]} {points[1]}", 12, ACTIVE, max_width=x + w - ix - 10)
        line += 18
    if any(game.penalties):
        c.text(ix, line, f"cockroach penalties: {game.penalties[0]} / {game.penalties[1]}", 12, BAD, max_width=x + w - ix - 10)
        line += 18
    if game.config["dish_of_the_day"]:
        c.text(ix, line, "dishes left:", 11, MUTED)
        for j, s in enumerate(game.dishes_left):
            c.circle(ix + 74 + j * 16, line + 7, 6, fill=SNACK_COLOURS[s], outline=INK)
        line += 18
    if game.config["xxl"]:
        c.text(ix, line, f"XXL pile: {len(game.xxl_pile)}", 11, MUTED)


def _footer(game: SpeedSnacks, names) -> str:
    if game.game_over:
        winner = [p for p in (0, 1) if game.toques[p] >= TOQUES_TO_WIN]
        return f"Game over: {names[winner[0]] if winner else 'nobody'} has {TOQUES_TO_WIN} toques."
    parts = []
    if game.last_tick:
        t = game.last_tick
        acts = [f"{names[p]} {_short_action(game, t['actions'][p])} ({t['result'][p]})" for p in (0, 1)]
        parts.append("Last tick: " + "; ".join(acts))
    if game.last_round:
        r = game.last_round
        parts.append(f"round {r['round']} scored: {names[0]} {r['points'][0]}, {names[1]} {r['points'][1]}")
    return " | ".join(parts) or "Both players act at once: place the card in hand on an order or in the kitchen."


def _short_action(game: SpeedSnacks, action: int) -> str:
    text = game.action_to_str(action)
    for long, short in (("place the snack in hand on ", "snack to "), ("place the card in hand face down on ", "card to "),
                        ("open a new ", "new "), (" with the snack in hand", ""), (" with the card in hand", "")):
        text = text.replace(long, short)
    return text


def example(seed: int = 4, ticks: int = 80) -> tuple[SpeedSnacks, list[str]]:
    """A position in a round's play with Dish of the Day, XXL and Menu cards (seeded random play that
    waits less often than it acts), for the docs picture."""
    rng = np.random.default_rng(seed)
    game = SpeedSnacks(2, np.random.default_rng(seed), dish_of_the_day=True, xxl=True, menu=True)
    for _ in range(ticks):
        actions = []
        for p in (0, 1):
            legal = game.legal_actions(p)
            busy = [a for a in legal if a != 0] or legal
            actions.append(int(busy[rng.integers(len(busy))]))
        game.apply_joint(actions)
        if game.game_over:
            break
    return game, ["Ada", "Ben"]
