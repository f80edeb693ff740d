"""Snack Time's components as data (see shared/rules/COMPONENTS.md, section Snack Time).

FACT: 2 trait dice (Eye / Tooth / Tentacle) and 3 pipe dice (I / L / T) each
round, 2 location dice more with the Rat Snacks module (a letter A-F and a
number 1-6); 30 pedestrian cards; 5 trap cards, one per sewer entrance;
5 location cards; 9 badge icons on the score sheet.

The map. ASSUMPTION (DEFAULT in COMPONENTS.md): an 8x8 pipe grid whose inner
6x6 is the A-F x 1-6 area of the location dice; the four creatures sit at the
four corner cells; each creature has 4 trait slots and 3 snack slots. Cells
are numbered row * 8 + col, row 0 at the top. Letters name the columns and
numbers the rows: the inner area is columns A-F (col 1..6) and rows 1-6; the
outer ring is named with column "<" (col 0) or ">" (col 7) and rows 0 and 7,
so "A3" is row 3, col 1 and ">6" is row 6, col 7.

Pipes. A piece is drawn as one of ten opening patterns (bitmasks N=1, E=2,
S=4, W=8): I in 2 orientations, L and T in 4 each; mirroring adds no pattern.

ASSUMPTION (DEFAULT): every trait die shows Eye, Eye, Tooth, Tooth, Tentacle,
Tentacle; every pipe die I, I, L, L, T, T; location dice are fair d6 read as
A-F and 1-6.

INVENTED (DEFAULT in COMPONENTS.md: no card list of the published game is
known; replace `PEDESTRIANS` with the real cards when they are): the 30
pedestrians below, three of each snack value 1..10, with 0 to 4 trait
requirements growing with the value, 10 with a Badge consequence (a third) and
5 with Damage (a sixth). Card 27 (value 10, needs 2 Eyes, a Tooth and a
Tentacle, no consequence) lets a perfect creature (those 4 traits, never
damaged) eat 10 three times: 3 x 10 + 3 x 4 = 42 points, as the rulebook says.
"""

from __future__ import annotations

from typing import NamedTuple

# --- the map ---------------------------------------------------------------------------------
SIZE = 8
NUM_CELLS = SIZE * SIZE
N, E, S, W = 1, 2, 4, 8
OPPOSITE = {N: S, E: W, S: N, W: E}
DIRECTION_NAMES = {N: "N", E: "E", S: "S", W: "W"}
COL_LABELS = "<ABCDEF>"


def cell_of(row: int, col: int) -> int:
    return row * SIZE + col


def cell_name(cell: int) -> str:
    return COL_LABELS[cell % SIZE] + str(cell // SIZE)


def parse_cell(name: str) -> int:
    """"A3" -> the cell in column A, row 3 (see the module docstring)."""
    col = COL_LABELS.index(name[0].upper() if name[0].isalpha() else name[0])
    return cell_of(int(name[1:]), col)


def _neighbours(cell: int) -> tuple[tuple[int, int], ...]:
    row, col = divmod(cell, SIZE)
    steps = ((N, -1, 0), (E, 0, 1), (S, 1, 0), (W, 0, -1))
    return tuple(
        (bit, cell_of(row + dr, col + dc)) for bit, dr, dc in steps if 0 <= row + dr < SIZE and 0 <= col + dc < SIZE
    )


# NEIGHBOURS[cell]: (direction bit, neighbouring cell) for each side inside the map.
NEIGHBOURS = tuple(_neighbours(c) for c in range(NUM_CELLS))
# KING_ZONE[cell]: the cell and its 8 neighbours, diagonals included (entrance spacing).
KING_ZONE = tuple(
    frozenset(
        cell_of(r, c)
        for r in range(cell // SIZE - 1, cell // SIZE + 2)
        for c in range(cell % SIZE - 1, cell % SIZE + 2)
        if 0 <= r < SIZE and 0 <= c < SIZE
    )
    for cell in range(NUM_CELLS)
)
INNER_CELLS = tuple(cell_of(r, c) for r in range(1, SIZE - 1) for c in range(1, SIZE - 1))

# --- creatures ---------------------------------------------------------------------------------
CREATURE_CELLS = (cell_of(0, 0), cell_of(0, SIZE - 1), cell_of(SIZE - 1, 0), cell_of(SIZE - 1, SIZE - 1))
CREATURE_NAMES = ("NW", "NE", "SW", "SE")
NUM_CREATURES = 4
TRAIT_SLOTS = 4
SNACK_SLOTS = 3
MAX_SATISFACTION = SNACK_SLOTS * TRAIT_SLOTS  # 12

# --- dice ----------------------------------------------------------------------------------------
TRAITS = ("Eye", "Tooth", "Tentacle")
EYE, TOOTH, TENTACLE = range(3)
PIECES = ("I", "L", "T")
PIECE_I, PIECE_L, PIECE_T = range(3)
TRAIT_DICE, PIPE_DICE, LOCATION_DICE = 2, 3, 2
TRAIT_DIE_FACES = (EYE, EYE, TOOTH, TOOTH, TENTACLE, TENTACLE)  # ASSUMPTION
PIPE_DIE_FACES = (PIECE_I, PIECE_I, PIECE_L, PIECE_L, PIECE_T, PIECE_T)  # ASSUMPTION

# The ten opening patterns: (piece, openings).
PATTERNS = (
    (PIECE_I, N | S), (PIECE_I, E | W),
    (PIECE_L, N | E), (PIECE_L, E | S), (PIECE_L, S | W), (PIECE_L, W | N),
    (PIECE_T, N | E | S), (PIECE_T, E | S | W), (PIECE_T, S | W | N), (PIECE_T, W | N | E),
)
NUM_PATTERNS = len(PATTERNS)
PATTERN_OF = {openings: index for index, (_, openings) in enumerate(PATTERNS)}


def openings_str(openings: int) -> str:
    return "+".join(DIRECTION_NAMES[b] for b in (N, E, S, W) if openings & b)


# --- cards -----------------------------------------------------------------------------------------
NO_CONSEQUENCE, BADGE, DAMAGE = range(3)
CONSEQUENCES = ("none", "Badge", "Damage")


class Pedestrian(NamedTuple):
    value: int
    needs: tuple[int, int, int]  # Eyes, Teeth, Tentacles required
    consequence: int


# INVENTED (see the module docstring). Card id = index.
PEDESTRIANS = (
    Pedestrian(1, (0, 0, 0), NO_CONSEQUENCE),
    Pedestrian(1, (0, 0, 0), NO_CONSEQUENCE),
    Pedestrian(1, (0, 0, 0), BADGE),
    Pedestrian(2, (0, 0, 0), NO_CONSEQUENCE),
    Pedestrian(2, (1, 0, 0), NO_CONSEQUENCE),
    Pedestrian(2, (0, 0, 1), BADGE),
    Pedestrian(3, (0, 1, 0), NO_CONSEQUENCE),
    Pedestrian(3, (1, 0, 0), BADGE),
    Pedestrian(3, (0, 0, 1), DAMAGE),
    Pedestrian(4, (0, 0, 1), NO_CONSEQUENCE),
    Pedestrian(4, (1, 1, 0), NO_CONSEQUENCE),
    Pedestrian(4, (0, 2, 0), BADGE),
    Pedestrian(5, (1, 0, 1), NO_CONSEQUENCE),
    Pedestrian(5, (2, 0, 0), BADGE),
    Pedestrian(5, (0, 1, 1), DAMAGE),
    Pedestrian(6, (0, 0, 2), NO_CONSEQUENCE),
    Pedestrian(6, (1, 1, 0), BADGE),
    Pedestrian(6, (1, 1, 1), NO_CONSEQUENCE),
    Pedestrian(7, (2, 1, 0), NO_CONSEQUENCE),
    Pedestrian(7, (0, 2, 1), BADGE),
    Pedestrian(7, (1, 0, 2), DAMAGE),
    Pedestrian(8, (1, 1, 1), NO_CONSEQUENCE),
    Pedestrian(8, (3, 0, 0), BADGE),
    Pedestrian(8, (1, 2, 1), NO_CONSEQUENCE),
    Pedestrian(9, (0, 0, 3), NO_CONSEQUENCE),
    Pedestrian(9, (2, 2, 0), BADGE),
    Pedestrian(9, (1, 1, 2), DAMAGE),
    Pedestrian(10, (2, 1, 1), NO_CONSEQUENCE),
    Pedestrian(10, (1, 2, 1), BADGE),
    Pedestrian(10, (1, 1, 2), DAMAGE),
)
NUM_PEDESTRIANS = len(PEDESTRIANS)  # 30
MAX_VALUE = 10
NUM_ENTRANCES = 5
FIRST_TRAP = NUM_PEDESTRIANS  # card id of the trap for entrance k (0-based) is FIRST_TRAP + k
NUM_CARDS = NUM_PEDESTRIANS + NUM_ENTRANCES  # 35
BADGES = 9
BADGES_PER_PENALTY, BADGE_PENALTY = 3, 2
MAX_RATS_PER_CELL = 4

PED_VALUE = tuple(p.value for p in PEDESTRIANS)
PED_NEEDS = tuple(p.needs for p in PEDESTRIANS)
PED_CONSEQUENCE = tuple(p.consequence for p in PEDESTRIANS)


def card_str(card: int) -> str:
    if card >= FIRST_TRAP:
        return f"trap (entrance {card - FIRST_TRAP + 1})"
    ped = PEDESTRIANS[card]
    needs = " ".join(f"{n}{TRAITS[k][:3]}" for k, n in enumerate(ped.needs) if n) or "nothing"
    tail = "" if ped.consequence == NO_CONSEQUENCE else f", {CONSEQUENCES[ped.consequence]}"
    return f"#{card} value {ped.value} needs {needs}{tail}"


# --- solo mode ---------------------------------------------------------------------------------------
# The rulebook's table: lowest score of each rank, best first; the top rank is open-ended
# (a perfect sheet scores 168 > 167) and the last takes everything below 25.
SOLO_RANKS = (
    (130, "Near Perfect"),
    (110, "Leaderboard"),
    (90, "Very Impressive"),
    (70, "Good Game"),
    (45, "Keep Practicing"),
    (25, "Truly Horrible"),
    (None, "You Might Be Playing Wrong"),
)
RAT_SNACKS_RANK_SHIFT = 7


def solo_rank(score: float, rat_snacks: bool) -> str:
    shift = RAT_SNACKS_RANK_SHIFT if rat_snacks else 0
    for low, name in SOLO_RANKS:
        if low is None or score >= low + shift:
            return name
    raise AssertionError("unreachable")
