"""Snack Time as text: the whole table (`render_text`), a sheet's map, the decision to make,
and the events of the round. Every sheet, the row and the dice are public; only the deck's
order is hidden, so every viewer reads the same text."""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

from snack_envs.snack_time.components import (
    BADGES,
    COL_LABELS,
    CREATURE_NAMES,
    FIRST_TRAP,
    NUM_CREATURES,
    NUM_ENTRANCES,
    PED_VALUE,
    PIECES,
    SIZE,
    TRAITS,
    E,
    N,
    S,
    W,
    card_str,
    cell_name,
    cell_of,
)
from snack_envs.snack_time.sheet import ALL_SIDES, CREATURE_AT

if TYPE_CHECKING:
    from snack_envs.snack_time.rules import SnackTime

GLYPHS = {
    N | S: "│", E | W: "─", N | E: "└", E | S: "┌", S | W: "┐", W | N: "┘",
    N | E | S: "├", E | S | W: "┬", S | W | N: "┤", W | N | E: "┴",
}


def render_text(game: SnackTime, names: Sequence[str]) -> str:
    if game.game_over:
        status = "game over (" + "; ".join(game.end_reasons) + ")"
    else:
        status = f"{names[game.current_player]} to act: {decision_str(game)}"
    lines = [f"Snack Time, round {game.round}: {status}"]
    traps_left = sum(1 for c in game.deck if c >= FIRST_TRAP)
    lines.append(f"Deck: {len(game.deck)} cards ({traps_left} traps); discard: {len(game.discard)}")
    for k, card in enumerate(game.row):
        cell = cell_name(game.entrances[k]) if k < len(game.entrances) else "?"
        trap = "  [trap lies here]" if game.trap_spots[k] else ""
        lines.append(f"  entrance {k + 1} ({cell}): {card_str(card)}{trap}")
    if game.dice_traits:
        rat = "" if game.rat_roll is None else f" | rat {cell_name(game.rat_roll)}"
        lines.append(
            "Dice: " + " ".join(TRAITS[t] for t in game.dice_traits) + " | "
            + " ".join(PIECES[i] for i in game.dice_pipes) + rat
        )
    for event in game.events:
        lines.append("  " + event_str(event, names))
    for p in range(game.num_players):
        lines.append("")
        lines.append(f"{names[p]}: {game.score(p)} points, badges {game.badges[p]}/{BADGES}"
                     + (f" -> {game.solo_rank(p)}" if game.game_over and game.num_players == 1 else ""))
        lines += render_map(game, p)
        for c in range(NUM_CREATURES):
            traits = " ".join(TRAITS[t] for t in range(3) for _ in range(game.healthy[p][c][t]))
            crossed = " ".join("x" + TRAITS[t] for t in range(3) for _ in range(game.crossed[p][c][t]))
            eaten = ", ".join(str(PED_VALUE[card]) for card in game.snacks[p][c]) or "-"
            ents = ",".join(str(k + 1) for k in range(NUM_ENTRANCES) if game.links[p][c] >> k & 1) or "-"
            value, satisfaction = game.creature_points(p, c)
            lines.append(
                f"  {CREATURE_NAMES[c]}: traits [{' '.join(filter(None, (traits, crossed))) or '-'}] "
                f"snacks [{eaten}] entrances [{ents}] = {value} + {satisfaction}"
            )
    return "\n".join(lines)


def decision_str(game: SnackTime) -> str:
    """The decision the player to act makes now."""
    p = game.current_player
    if game.phase == "entrance":
        return f"choose where entrance {len(game.entrances) + 1} goes"
    if game.phase in ("trap", "snack"):
        return f"cross off a trait of creature {CREATURE_NAMES[game.pending[p][0]]} ({game.phase} damage)"
    if any(game.traits_left[p]):
        return "draw traits: " + " ".join(TRAITS[t] for t in range(3) for _ in range(game.traits_left[p][t]))
    return "draw pipes: " + " ".join(PIECES[i] for i in range(3) for _ in range(game.pipes_left[p][i]))


def event_str(event: list, names: Sequence[str]) -> str:
    """One of `SnackTime.events`: ["trap", k], ["rat" or "rat ignored", cell],
    ["snack", p, creature, k, card] or ["damage", p, creature, trait]."""
    kind = event[0]
    if kind == "trap":
        return f"trap sprung at entrance {event[1] + 1}: everyone marks a badge"
    if kind in ("rat", "rat ignored"):
        return f"{kind} at {cell_name(event[1])}"
    if kind == "snack":
        _, p, c, k, card = event
        return f"{names[p]}'s {CREATURE_NAMES[c]} snacks on {card_str(card)} at entrance {k + 1}"
    _, p, c, trait = event
    return f"{names[p]} crosses off a {TRAITS[trait]} on {CREATURE_NAMES[c]}"


def render_map(game: SnackTime, p: int) -> list[str]:
    """p's map, a line per row (and the rats beside it with Rat Snacks)."""
    pipes, rats = game.pipes[p], game.rats
    show_rats = game.config["rat_snacks"]

    def openings(cell: int) -> int:
        return ALL_SIDES if game.entrance_at[cell] >= 0 or CREATURE_AT[cell] >= 0 else pipes[cell]

    header = "    " + " ".join(COL_LABELS)
    lines = [header + ("      rats: " + " ".join(COL_LABELS) if show_rats else "")]
    for r in range(SIZE):
        text = ""
        for col in range(SIZE):
            cell = cell_of(r, col)
            if col:
                left = cell - 1
                joined = openings(left) & E and openings(cell) & W and (pipes[left] or pipes[cell])
                text += "─" if joined else " "
            text += glyph(game, p, cell)
        if show_rats:
            text += "      " + " ".join(str(rats[cell_of(r, c)] or "·") for c in range(SIZE))
        lines.append(f"  {r} {text}")
    return lines


def glyph(game: SnackTime, p: int, cell: int) -> str:
    if CREATURE_AT[cell] >= 0:
        return "◤◥◣◢"[CREATURE_AT[cell]]
    if game.entrance_at[cell] >= 0:
        return "①②③④⑤"[game.entrance_at[cell]]
    return GLYPHS.get(game.pipes[p][cell], "·")
