"""Snack Time drawn as a picture: the row of pedestrians at the sewer entrances (with the traps lying
there), the dice, the deck, and every player's sheet: the 8x8 map with its pipes (blue where the
network reaches a creature), entrances, creatures and rats, and each creature's traits and snacks.

Every sheet, the row and the dice are public (only the deck's order is
hidden, and no picture shows it), so a seat's view shows the same as the
spectator's, with the viewer's own sheet first, as in its observation.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from snack_envs.core.picture import ACTIVE, BAD, INK, MUTED, PANEL_EDGE, WHITE, Canvas, mix, view_label
from snack_envs.snack_time.components import (
    BADGE,
    BADGES,
    BADGES_PER_PENALTY,
    COL_LABELS,
    CREATURE_CELLS,
    CREATURE_NAMES,
    DAMAGE,
    FIRST_TRAP,
    NUM_CREATURES,
    NUM_ENTRANCES,
    PED_CONSEQUENCE,
    PED_NEEDS,
    PED_VALUE,
    PIECE_I,
    PIECE_L,
    PIECES,
    SIZE,
    SNACK_SLOTS,
    TRAIT_SLOTS,
    E,
    N,
    S,
    W,
    cell_name,
)
from snack_envs.snack_time.rules import SnackTime
from snack_envs.snack_time.text import decision_str, event_str

CREATURE_COLOURS = ((136, 84, 180), (34, 150, 140), (226, 120, 40), (214, 70, 130))
TRAIT_COLOURS = ((60, 120, 200), (238, 232, 210), (160, 70, 160))
WET, DRY = (52, 128, 210), (150, 146, 138)
INNER, OUTER = (250, 247, 240), (226, 220, 206)

WIDTH, MARGIN, GAP = 1000, 14, 10
TOP_Y, TOP_H = 52, 176
CELL = 32
SHEET_W = (WIDTH - 2 * MARGIN - GAP) // 2
SHEET_H = 330


def height_for(num_players: int) -> int:
    rows = (num_players + 1) // 2
    return TOP_Y + TOP_H + GAP + rows * (SHEET_H + GAP) + 28


def draw(game: SnackTime, viewer: int | None, names: Sequence[str]):
    """The row, the dice and every sheet (public); a seat's own sheet comes first in its view."""
    n = game.num_players
    c = Canvas(WIDTH, height_for(n))
    c.title_bar("Snack Time", _status(game, names), view_label(viewer, names))
    _draw_row(c, game)
    _draw_dice(c, game)
    _draw_deck(c, game)
    order = list(range(n)) if viewer is None else [(viewer + r) % n for r in range(n)]
    for i, p in enumerate(order):
        x = MARGIN + (i % 2) * (SHEET_W + GAP)
        y = TOP_Y + TOP_H + GAP + (i // 2) * (SHEET_H + GAP)
        _draw_sheet(c, game, p, x, y, viewer, names)
    c.footer(_footer(game, names))
    return c.image


def _status(game: SnackTime, names) -> str:
    if game.game_over:
        return f"round {game.round}: game over"
    p = game.current_player
    last = " (last round)" if game.ending else ""
    return f"round {game.round}{last}: {names[p]} to {decision_str(game)}"


# --- the shared table -------------------------------------------------------------------------------
def trait_icon(c: Canvas, x, y, size: int, trait: int, crossed: bool = False) -> None:
    """A trait as a small picture: an eye, a tooth, or a tentacle; crossed off with a red X."""
    colour = TRAIT_COLOURS[trait]
    if crossed:
        colour = mix(colour, (170, 170, 170), 0.5)
    cx, cy, r = x + size / 2, y + size / 2, size / 2 - 2
    if trait == 0:  # eye
        c.draw.ellipse((cx - r, cy - r * 0.6, cx + r, cy + r * 0.6), fill=WHITE, outline=INK, width=1)
        c.circle(cx, cy, r * 0.42, fill=colour)
        c.circle(cx, cy, r * 0.18, fill=INK)
    elif trait == 1:  # tooth
        c.draw.polygon([(cx - r * 0.8, cy - r * 0.8), (cx + r * 0.8, cy - r * 0.8), (cx + r * 0.2, cy + r),
                        (cx, cy + r * 0.2), (cx - r * 0.2, cy + r)], fill=colour, outline=INK)
    else:  # tentacle
        points = [(cx - r + 2 * r * t / 8, cy + r * 0.5 * np.sin(t * 1.2) - r * 0.3 + r * 0.6 * t / 8) for t in range(9)]
        c.line(points, colour, max(2, size // 6))
        c.circle(points[-1][0], points[-1][1], max(1.5, size / 14), fill=colour)
    if crossed:
        c.line([(x + 2, y + 2), (x + size - 2, y + size - 2)], BAD, 2)
        c.line([(x + size - 2, y + 2), (x + 2, y + size - 2)], BAD, 2)


def pipe_glyph(c: Canvas, x, y, size: int, openings: int, colour=WET, width: int | None = None) -> None:
    """A pipe piece: thick strokes from the middle of a cell to each open side."""
    cx, cy = x + size / 2, y + size / 2
    width = width or max(4, size // 3)
    ends = {N: (cx, y), E: (x + size, cy), S: (cx, y + size), W: (x, cy)}
    for bit, end in ends.items():
        if openings & bit:
            c.line([(cx, cy), end], colour, width)
    c.circle(cx, cy, width / 2, fill=colour)


def _draw_row(c: Canvas, game: SnackTime) -> None:
    x, y, w = MARGIN, TOP_Y, 5 * 100 + 22
    top = c.panel(x, y, w, TOP_H, "Pedestrians at the sewer entrances", size=14)
    for k, card in enumerate(game.row):
        cx = x + 12 + k * 100
        where = cell_name(game.entrances[k]) if k < len(game.entrances) else "?"
        consequence = PED_CONSEQUENCE[card]
        band = (120, 110, 96) if consequence not in (BADGE, DAMAGE) else ((200, 150, 30) if consequence == BADGE else BAD)
        c.card(cx, top, 92, 112, f"{k + 1} at {where}", band, value=None)
        c.text(cx + 46, top + 42, PED_VALUE[card], 28, INK, anchor="mm")
        c.text(cx + 46, top + 60, "snack value", 10, MUTED, anchor="mm")
        needs = [t for t in range(3) for _ in range(PED_NEEDS[card][t])]
        if needs:
            for i, t in enumerate(needs[:4]):
                trait_icon(c, cx + 46 - 10 * len(needs[:4]) + 20 * i, top + 70, 20, t)
        else:
            c.text(cx + 46, top + 80, "needs nothing", 10, MUTED, anchor="mm")
        label = {BADGE: "+ badge", DAMAGE: "+ damage"}.get(consequence)
        if label:
            c.text(cx + 46, top + 100, label, 12, band, anchor="mm")
        if game.trap_spots[k]:
            c.pill(cx + 46 - 22, top + 116, "TRAP", BAD, 11)


def _draw_dice(c: Canvas, game: SnackTime) -> None:
    x = MARGIN + 5 * 100 + 22 + GAP
    w = 262
    top = c.panel(x, TOP_Y, w, TOP_H, "Dice this round", size=14)
    if not game.dice_traits:
        c.text(x + 14, top + 20, "not rolled yet", 13, MUTED)
        return
    c.text(x + 14, top, "traits", 11, MUTED)
    for i, t in enumerate(game.dice_traits):
        c.die(x + 14 + i * 48, top + 14, 40)
        trait_icon(c, x + 20 + i * 48, top + 20, 28, t)
    c.text(x + 14, top + 62, "pipes", 11, MUTED)
    shapes = {PIECE_I: N | S, PIECE_L: N | E}
    for i, piece in enumerate(game.dice_pipes):
        dx = x + 14 + i * 48
        c.die(dx, top + 76, 40)
        openings = shapes.get(piece, E | S | W)
        pipe_glyph(c, dx + 6, top + 82, 28, openings, WET, 8)
        c.text(dx + 34, top + 108, PIECES[piece], 10, MUTED, anchor="ma")
    if game.config["rat_snacks"]:
        c.text(x + 170, top, "rat", 11, MUTED)
        rat = cell_name(game.rat_roll) if game.rat_roll is not None else "-"
        c.die(x + 170, top + 14, 40, label=rat)


def _draw_deck(c: Canvas, game: SnackTime) -> None:
    x = MARGIN + 5 * 100 + 22 + GAP + 262 + GAP
    w = WIDTH - MARGIN - x
    top = c.panel(x, TOP_Y, w, TOP_H, "Deck", size=14)
    traps = sum(1 for card in game.deck if card >= FIRST_TRAP)
    c.pile(x + (w - 60) / 2, top + 6, 60, 80, len(game.deck), caption=f"{len(game.deck)} cards")
    c.text(x + w / 2, top + 106, f"{traps} trap{'s' if traps != 1 else ''} inside", 12, BAD if traps else MUTED, anchor="ma")


# --- a sheet ------------------------------------------------------------------------------------------
def _draw_sheet(c: Canvas, game: SnackTime, p: int, x: int, y: int, viewer, names) -> None:
    active = not game.game_over and p == game.current_player
    top = c.panel(x, y, SHEET_W, SHEET_H, f"{names[p]}: {game.score(p)} points", active=active, viewer=p == viewer)
    # The badge track: 9 boxes, a penalty every third.
    bx = x + SHEET_W - 14 - BADGES * 15
    c.text(bx - 6, y + 19, "badges", 11, MUTED, anchor="rm")
    for b in range(BADGES):
        fill = BAD if b < game.badges[p] else WHITE
        c.box(bx + b * 15, y + 12, 13, 14, fill=fill, outline=mix(PANEL_EDGE, INK, 0.3), radius=3)
        if (b + 1) % BADGES_PER_PENALTY == 0 and b + 1 < BADGES:  # a penalty of 2 every third badge
            c.line([(bx + b * 15 + 14, y + 10), (bx + b * 15 + 14, y + 28)], INK, 1)
    _draw_map(c, game, p, x + 26, top + 16, active)
    cx = x + 26 + SIZE * CELL + 14
    for k in range(NUM_CREATURES):
        _draw_creature(c, game, p, k, cx, top + 2 + k * 68, x + SHEET_W - 10 - cx)


def _draw_map(c: Canvas, game: SnackTime, p: int, x: int, y: int, active: bool) -> None:
    pipes, wet = game.pipes[p], game.wet[p]
    for col in range(SIZE):
        c.text(x + col * CELL + CELL / 2, y - 3, COL_LABELS[col], 11, MUTED, anchor="mb")
    for row in range(SIZE):
        c.text(x - 5, y + row * CELL + CELL / 2, row, 11, MUTED, anchor="rm")
    c.draw.rectangle((x, y, x + SIZE * CELL, y + SIZE * CELL), fill=OUTER, outline=PANEL_EDGE)
    c.draw.rectangle((x + CELL, y + CELL, x + (SIZE - 1) * CELL, y + (SIZE - 1) * CELL), fill=INNER)
    for i in range(1, SIZE):
        c.line([(x + i * CELL, y), (x + i * CELL, y + SIZE * CELL)], mix(PANEL_EDGE, WHITE, 0.3), 1)
        c.line([(x, y + i * CELL), (x + SIZE * CELL, y + i * CELL)], mix(PANEL_EDGE, WHITE, 0.3), 1)
    drawing_pipes = active and game.phase == "place" and not any(game.traits_left[p]) and any(game.pipes_left[p])
    for cell in range(SIZE * SIZE):
        row, col = divmod(cell, SIZE)
        cx, cy = x + col * CELL, y + row * CELL
        if pipes[cell]:
            pipe_glyph(c, cx, cy, CELL, pipes[cell], WET if wet >> cell & 1 else DRY)
        elif drawing_pipes and game.accept[p][cell]:
            c.circle(cx + CELL / 2, cy + CELL / 2, 3, fill=ACTIVE)
    for k, cell in enumerate(game.entrances):
        row, col = divmod(cell, SIZE)
        cx, cy = x + col * CELL + CELL / 2, y + row * CELL + CELL / 2
        c.circle(cx, cy, CELL / 2 - 3, fill=(70, 66, 60), outline=WET if wet >> cell & 1 else INK, width=3)
        c.text(cx, cy, k + 1, 14, WHITE, anchor="mm")
        if game.trap_spots[k]:
            c.circle(cx + CELL / 2 - 6, cy - CELL / 2 + 6, 5, fill=BAD)
    for k, cell in enumerate(CREATURE_CELLS):
        row, col = divmod(cell, SIZE)
        cx, cy = x + col * CELL + CELL / 2, y + row * CELL + CELL / 2
        c.circle(cx, cy, CELL / 2 - 2, fill=CREATURE_COLOURS[k], outline=INK, width=1)
        c.text(cx, cy, CREATURE_NAMES[k], 11, WHITE, anchor="mm")
    if game.config["rat_snacks"]:
        for cell, count in enumerate(game.rats):
            if count:
                row, col = divmod(cell, SIZE)
                rx, ry = x + col * CELL + CELL - 9, y + row * CELL + CELL - 9
                c.circle(rx, ry, 7, fill=(150, 112, 104), outline=WHITE)  # a rat (or several)
                c.text(rx, ry, count, 10, WHITE, anchor="mm")


def _draw_creature(c: Canvas, game: SnackTime, p: int, k: int, x: int, y: int, w: int) -> None:
    colour = CREATURE_COLOURS[k]
    c.box(x, y, w, 62, fill=mix(colour, WHITE, 0.88), outline=mix(colour, WHITE, 0.4), radius=8)
    c.circle(x + 12, y + 12, 7, fill=colour)
    c.text(x + 24, y + 12, CREATURE_NAMES[k], 12, INK, anchor="lm")
    links = game.links[p][k]
    ents = ",".join(str(e + 1) for e in range(NUM_ENTRANCES) if links >> e & 1) or "-"
    c.text(x + 50, y + 12, f"entrances {ents}", 10, MUTED, anchor="lm", max_width=w - 100)
    value, satisfaction = game.creature_points(p, k)
    c.text(x + w - 8, y + 12, f"{value}+{satisfaction}", 12, INK, anchor="rm")
    # Trait slots: uncrossed traits, crossed ones, then empty slots.
    slots = [(t, False) for t in range(3) for _ in range(game.healthy[p][k][t])]
    slots += [(t, True) for t in range(3) for _ in range(game.crossed[p][k][t])]
    for i in range(TRAIT_SLOTS):
        sx = x + 8 + i * 23
        c.box(sx, y + 26, 22, 22, fill=WHITE, outline=mix(colour, WHITE, 0.3), radius=4)
        if i < len(slots):
            trait_icon(c, sx + 1, y + 27, 20, slots[i][0], crossed=slots[i][1])
    # Snack slots: the values eaten.
    eaten = game.snacks[p][k]
    for i in range(SNACK_SLOTS):
        sx = x + 8 + TRAIT_SLOTS * 23 + 6 + i * 22
        if i < len(eaten):
            c.circle(sx + 10, y + 37, 10, fill=colour)
            c.text(sx + 10, y + 37, PED_VALUE[eaten[i]], 11, WHITE, anchor="mm")
        else:
            c.circle(sx + 10, y + 37, 9, fill=None, outline=mix(colour, WHITE, 0.4))


def _footer(game: SnackTime, names) -> str:
    if game.game_over:
        scores = game.scores()
        reasons = "; ".join(game.end_reasons)
        text = "Final: " + ", ".join(f"{names[p]} {scores[p]:g}" for p in range(game.num_players))
        if game.num_players == 1:
            text += f" ({game.solo_rank(0)})"
        return text + (f" - {reasons}" if reasons else "")
    if game.events:
        return "This round: " + "; ".join(event_str(e, names) for e in game.events[-4:])
    return "Blue pipes reach a creature; each creature snacks on the pedestrians at the entrances its pipes reach."


def example(seed: int = 0, decisions: int = 110) -> tuple[SnackTime, list[str]]:
    """A mid-game position of 2 players (seeded random play), for the docs picture."""
    rng = np.random.default_rng(seed)
    game = SnackTime(2, np.random.default_rng(seed))
    for _ in range(decisions):
        legal = game.legal_actions()
        game.apply(int(legal[rng.integers(len(legal))]))
        if game.game_over:
            break
    return game, ["Ada", "Ben"]


__all__ = ["draw", "example", "height_for", "pipe_glyph", "trait_icon"]
