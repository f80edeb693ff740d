"""Snack Time's actions: the 728 action ids (their layout is in the `rules` module docstring:
trait draws, pipe draws, damage choices, entrance choices, the same for every option and player
count), encoding and decoding them, their text, and the read-only tables the rules build the
legal actions from (`TRAIT_CHOICES`, `DAMAGE_CHOICES`, and for pipes `PIECE_MASKS` with a
sheet's `fits`).
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from snack_envs.snack_time.components import (
    CREATURE_NAMES,
    NUM_CELLS,
    NUM_CREATURES,
    NUM_PATTERNS,
    PATTERN_OF,
    PATTERNS,
    PIECES,
    TRAITS,
    cell_name,
    openings_str,
    parse_cell,
)

TRAIT_BASE = 0
PIPE_BASE = TRAIT_BASE + len(TRAITS) * NUM_CREATURES  # 12
DAMAGE_BASE = PIPE_BASE + NUM_CELLS * NUM_PATTERNS  # 652
ENTRANCE_BASE = DAMAGE_BASE + NUM_CREATURES * len(TRAITS)  # 664
NUM_ACTIONS = ENTRANCE_BASE + NUM_CELLS  # 728


# --- encoding and decoding ---------------------------------------------------------------------------
def trait_action(trait: int, creature: int) -> int:
    return TRAIT_BASE + trait * NUM_CREATURES + creature


def pipe_action(cell: int | str, openings: int) -> int:
    """Draw the pipe that opens to `openings` (N | E | S | W bits) at `cell` (a number or a name like "A3")."""
    cell = parse_cell(cell) if isinstance(cell, str) else cell
    if openings not in PATTERN_OF:
        raise ValueError(f"no pipe piece opens to {openings_str(openings) or 'nothing'}")
    return PIPE_BASE + cell * NUM_PATTERNS + PATTERN_OF[openings]


def damage_action(creature: int, trait: int) -> int:
    return DAMAGE_BASE + creature * len(TRAITS) + trait


def entrance_action(cell: int | str) -> int:
    return ENTRANCE_BASE + (parse_cell(cell) if isinstance(cell, str) else cell)


def decode(action: int) -> tuple[str, int, int]:
    """An action id as (kind, a, b): ("trait", trait, creature), ("pipe", cell, pattern),
    ("damage", creature, trait) or ("entrance", cell, 0)."""
    if action < PIPE_BASE:
        trait, creature = divmod(action - TRAIT_BASE, NUM_CREATURES)
        return "trait", trait, creature
    if action < DAMAGE_BASE:
        cell, pattern = divmod(action - PIPE_BASE, NUM_PATTERNS)
        return "pipe", cell, pattern
    if action < ENTRANCE_BASE:
        creature, trait = divmod(action - DAMAGE_BASE, len(TRAITS))
        return "damage", creature, trait
    return "entrance", action - ENTRANCE_BASE, 0


def action_to_str(action: int) -> str:
    if not 0 <= action < NUM_ACTIONS:
        return f"<no action {action}>"
    kind, a, b = decode(action)
    if kind == "trait":
        return f"draw a {TRAITS[a]} on creature {CREATURE_NAMES[b]}"
    if kind == "pipe":
        piece, openings = PATTERNS[b]
        return f"draw pipe {PIECES[piece]} ({openings_str(openings)}) at {cell_name(a)}"
    if kind == "damage":
        return f"cross off a {TRAITS[b]} on creature {CREATURE_NAMES[a]}"
    return f"place the next sewer entrance at {cell_name(a)}"


# --- the tables the legal actions are built from (masks: read-only int8 arrays of NUM_ACTIONS) ---------
def frozen_mask(actions: Sequence[int]) -> np.ndarray:
    """A read-only int8 mask of NUM_ACTIONS with `actions` set."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    mask[list(actions)] = 1
    mask.setflags(write=False)
    return mask


NO_ACTIONS = frozen_mask(())


def kinds_present(counts: Sequence[int]) -> int:
    """Which of three kinds (traits or pieces) `counts` holds, as bits: bit i set when counts[i] > 0."""
    a, b, c = counts
    return (a > 0) | (b > 0) << 1 | (c > 0) << 2


def choice(actions: Sequence[int]) -> tuple[tuple[int, ...], np.ndarray]:
    """A set of legal actions both ways: the sorted ids and their read-only mask."""
    actions = tuple(sorted(actions))
    return actions, frozen_mask(actions)


# TRAIT_CHOICES[trait dice left, as bits][creatures with an open slot, as bits]: every pair of the two drawn.
TRAIT_CHOICES = tuple(
    tuple(
        choice([
            trait_action(t, c) for t in range(len(TRAITS)) if left >> t & 1
            for c in range(NUM_CREATURES) if open_creatures >> c & 1
        ])
        for open_creatures in range(1 << NUM_CREATURES)
    )
    for left in range(1 << len(TRAITS))
)
# DAMAGE_CHOICES[creature][its uncrossed traits, as bits]: the traits it may lose.
DAMAGE_CHOICES = tuple(
    tuple(choice([damage_action(c, t) for t in range(len(TRAITS)) if have >> t & 1]) for have in range(8))
    for c in range(NUM_CREATURES)
)
# The pipe placements as a mask are `fits & PIECE_MASKS[pieces left, as bits]`. `fits` (one byte per
# action, see `sheet.fits_of`) holds at PIPE_AT[cell] the FIT_ROWS row of the cell's accepting sides:
# the patterns with an opening that faces one of them; PIECE_MASKS the pipe actions of the pieces left.
PIPE_AT = tuple(PIPE_BASE + cell * NUM_PATTERNS for cell in range(NUM_CELLS))
FIT_ROWS = tuple(bytes(bool(openings & accept) for _, openings in PATTERNS) for accept in range(16))
PIECE_MASKS = tuple(
    frozen_mask([PIPE_AT[cell] + i for cell in range(NUM_CELLS) for i, (piece, _) in enumerate(PATTERNS)
                 if left >> piece & 1])
    for left in range(1 << len(PIECES))
)
