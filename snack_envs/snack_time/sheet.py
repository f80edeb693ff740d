"""One player's sheet in Snack Time: the pipe map and its networks, the creatures' traits and
snacks, the badges, and what the sheet scores.

The state is kept by seat in fields of `SnackTime` (plain lists, so a game is
JSON data; `sheet[p]` below is seat p's entry):
- `pipes[p][cell]`: the openings (N | E | S | W bits) of the pipe drawn there, 0 for none;
- `accept[p][cell]`: for an empty cell, its sides facing a creature, an
  entrance or a pipe's opening: a pipe may be drawn there if one of its
  openings faces one of them (0: no pipe may go there now);
- the networks, a union-find forest over the pipe and entrance cells:
  `parent[p][cell]` (-1 off the forest), and at each root `members[p][root]`
  (the network's cells as bits) and `reach[p][root]` (its creatures as bits
  0..3 | its entrances as bits 4..8);
- `links[p][c]`: the entrances creature c reaches, as bits;
- `wet[p]`: the pipe and entrance cells whose network reaches a creature, as bits;
- `healthy[p][c]` and `crossed[p][c]`: creature c's uncrossed and crossed-off
  traits, counted [Eye, Tooth, Tentacle]; `snacks[p][c]`: the cards it ate;
- `badges[p]`: the badges marked.

Drawing a pipe or an entrance (`_connect`) joins the networks it opens onto:
every new path runs through the new cell, so `links` and `wet` only grow
there. `flood` recomputes what a network reaches with a plain flood fill, and
`_sheet_violations` holds all of the above against it.

One derived summary is kept beside the state, rebuilt by `from_dict` and
`state_changed`: `fits[p]`, one byte per action, 1 for a pipe placement whose
pattern opens onto an accepting side of its cell (`fits_of(accept[p])`). The
legal-action mask needs it at every pipe decision, the commonest decision of
the game: the mask is then one `&` with the pieces left, where building it
from `accept` would walk the 64 cells at every step. A pipe changes the
accepting sides of at most its cell and 4 neighbours, and `_connect` rewrites
those rows of `fits` with them.
"""

from __future__ import annotations

from snack_envs.snack_time.actions import DAMAGE_BASE, FIT_ROWS, NUM_ACTIONS, PIPE_AT, PIPE_BASE
from snack_envs.snack_time.components import (
    BADGE_PENALTY,
    BADGES,
    BADGES_PER_PENALTY,
    CREATURE_CELLS,
    CREATURE_NAMES,
    E,
    N,
    NEIGHBOURS,
    NUM_CELLS,
    NUM_CREATURES,
    NUM_PATTERNS,
    OPPOSITE,
    PED_VALUE,
    PIPE_DICE,
    S,
    SNACK_SLOTS,
    TRAIT_DICE,
    TRAIT_SLOTS,
    W,
    cell_name,
)

ALL_SIDES = N | E | S | W  # an entrance or a creature opens to every side
CREATURE_AT = tuple(CREATURE_CELLS.index(c) if c in CREATURE_CELLS else -1 for c in range(NUM_CELLS))
# SIDES[cell]: (side, neighbour, the neighbour's side facing the cell) for each side inside the map.
SIDES = tuple(tuple((bit, nb, OPPOSITE[bit]) for bit, nb in NEIGHBOURS[c]) for c in range(NUM_CELLS))
# OPEN_SIDES[cell][openings]: (neighbour, its side facing the cell) for each of `openings` inside the map.
OPEN_SIDES = tuple(
    tuple(tuple((nb, back) for bit, nb, back in SIDES[c] if openings & bit) for openings in range(16))
    for c in range(NUM_CELLS)
)
CREATURE_BITS = (1 << NUM_CREATURES) - 1  # the creatures' part of a network's `reach`
CREATURES_IN = tuple(tuple(c for c in range(NUM_CREATURES) if b >> c & 1) for b in range(1 << NUM_CREATURES))


def fits_of(accept: list[int]) -> bytearray:
    """The `fits` of a sheet with these accepting sides (see the module docstring)."""
    return bytearray(bytes(PIPE_BASE) + b"".join(FIT_ROWS[a] for a in accept) + bytes(NUM_ACTIONS - DAMAGE_BASE))


def _empty_accept() -> list[int]:
    """The accepting sides of an empty sheet: the sides of the cells next to a creature facing it."""
    accept = [0] * NUM_CELLS
    for cell in CREATURE_CELLS:
        for bit, nb in NEIGHBOURS[cell]:
            accept[nb] |= OPPOSITE[bit]
    return accept


EMPTY_ACCEPT = tuple(_empty_accept())
EMPTY_FITS = bytes(fits_of(EMPTY_ACCEPT))


class SheetRules:
    """The part of `SnackTime` that concerns one sheet; methods take the seat `p`. Besides the
    sheets' fields (see the module docstring) it reads the game's `entrances`, `entrance_at` (the
    entrance on each cell, -1 for none), `rats`, `round` and `config`."""

    num_players: int
    config: dict
    _legal_cache: dict
    entrances: list[int]
    entrance_at: list[int]
    rats: list[int]
    round: int

    def _new_sheets(self) -> None:
        n = self.num_players
        self.pipes = [[0] * NUM_CELLS for _ in range(n)]
        self.accept = [list(EMPTY_ACCEPT) for _ in range(n)]
        self.parent = [[-1] * NUM_CELLS for _ in range(n)]
        self.members = [[0] * NUM_CELLS for _ in range(n)]
        self.reach = [[0] * NUM_CELLS for _ in range(n)]
        self.links = [[0] * NUM_CREATURES for _ in range(n)]
        self.wet = [0] * n
        self.healthy = [[[0, 0, 0] for _ in range(NUM_CREATURES)] for _ in range(n)]
        self.crossed = [[[0, 0, 0] for _ in range(NUM_CREATURES)] for _ in range(n)]
        self.snacks = [[[] for _ in range(NUM_CREATURES)] for _ in range(n)]
        self.badges = [0] * n
        self.fits = [bytearray(EMPTY_FITS) for _ in range(n)]

    # --- traits ------------------------------------------------------------------------------------
    def open_slots(self, p: int, c: int) -> int:
        return TRAIT_SLOTS - sum(self.healthy[p][c]) - sum(self.crossed[p][c])

    def _creatures_with_open_slot(self, p: int) -> int:
        """p's creatures with an empty trait slot, as bits. Kept in `_legal_cache` (forgotten whenever
        the state changes): a trait draw asks twice, is there one to draw and which."""
        key = ("open", p)
        if key not in self._legal_cache:
            self._legal_cache[key] = sum(1 << c for c in range(NUM_CREATURES) if self.open_slots(p, c) > 0)
        return self._legal_cache[key]

    # --- the map -----------------------------------------------------------------------------------
    def _free(self, p: int, cell: int) -> bool:
        """Whether `cell` of p's map is empty: no creature, entrance or pipe."""
        return not self.pipes[p][cell] and self.entrance_at[cell] < 0 and CREATURE_AT[cell] < 0

    def _draw_pipe(self, p: int, cell: int, openings: int) -> None:
        self.pipes[p][cell] = openings
        self._connect(p, cell, openings)

    def _connect(self, p: int, cell: int, openings: int) -> None:
        """Open the new pipe or entrance at `cell` (with `openings`) onto its neighbours on p's map:
        an empty cell it opens onto now accepts a pipe on that side, and the networks that open
        back onto it join its own; then the creatures its network reaches reach its entrances."""
        parent, members, reach, accept = self.parent[p], self.members[p], self.reach[p], self.accept[p]
        pipes, entrance_at = self.pipes[p], self.entrance_at
        fits = self.fits[p]  # its rows change with the accepting sides (see the module docstring)
        accept[cell] = 0
        fits[PIPE_AT[cell]:PIPE_AT[cell] + NUM_PATTERNS] = FIT_ROWS[0]
        parent[cell], members[cell] = cell, 1 << cell  # `cell` is the root of the joined network
        reach[cell] = 1 << (NUM_CREATURES + entrance_at[cell]) if entrance_at[cell] >= 0 else 0
        for nb, back in OPEN_SIDES[cell][openings]:
            if CREATURE_AT[nb] >= 0:
                reach[cell] |= 1 << CREATURE_AT[nb]
            elif not pipes[nb] and entrance_at[nb] < 0:  # an empty cell (`_free`)
                accept[nb] |= back
                fits[PIPE_AT[nb]:PIPE_AT[nb] + NUM_PATTERNS] = FIT_ROWS[accept[nb]]
            elif pipes[nb] & back or entrance_at[nb] >= 0:  # a network opening back onto the cell
                root = self._root(p, nb)
                if root != cell:
                    parent[root] = cell
                    members[cell] |= members[root]
                    reach[cell] |= reach[root]
        creatures = reach[cell] & CREATURE_BITS
        if creatures:
            links = self.links[p]
            for c in CREATURES_IN[creatures]:
                links[c] |= reach[cell] >> NUM_CREATURES
            self.wet[p] |= members[cell]

    def _root(self, p: int, cell: int) -> int:
        """The root of the network through `cell` (halving the path on the way)."""
        parent = self.parent[p]
        while parent[cell] != cell:
            parent[cell] = parent[parent[cell]]
            cell = parent[cell]
        return cell

    def _root_of(self, p: int, cell: int) -> int:
        """The root `parent` leads to from `cell`, changing nothing; -1 if it leads off the forest or
        round a loop (a loaded state that `_root` would misread: it halves a loop into a new root)."""
        parent = self.parent[p]
        for _ in range(NUM_CELLS):
            if parent[cell] == cell:
                return cell
            cell = parent[cell]
            if cell < 0:
                return -1
        return -1

    def flood(self, p: int, start: int) -> tuple[int, int, int]:
        """What the network through `start` reaches on p's map, not passing through creatures:
        (creatures as bits, entrances as bits, pipe and entrance cells as bits). A plain flood fill,
        used by the checks; play keeps the same facts up to date with the union-find above."""
        pipes, entrance_at = self.pipes[p], self.entrance_at
        seen, stack = 1 << start, [start]
        creatures = 1 << CREATURE_AT[start] if CREATURE_AT[start] >= 0 else 0
        entrances = cells = 0
        while stack:
            cell = stack.pop()
            if entrance_at[cell] >= 0:
                entrances |= 1 << entrance_at[cell]
                openings = ALL_SIDES
                cells |= 1 << cell
            elif CREATURE_AT[cell] >= 0:
                openings = ALL_SIDES
            else:
                openings = pipes[cell]
                cells |= 1 << cell
            for bit, nb, back in SIDES[cell]:
                if openings & bit and not seen >> nb & 1:
                    if CREATURE_AT[nb] >= 0:
                        creatures |= 1 << CREATURE_AT[nb]
                    elif pipes[nb] & back or entrance_at[nb] >= 0:
                        seen |= 1 << nb
                        stack.append(nb)
        return creatures, entrances, cells

    # --- scoring ------------------------------------------------------------------------------------
    def creature_points(self, p: int, c: int) -> tuple[int, int]:
        """(value of the snacks eaten, satisfaction = snacks x uncrossed traits, at most 12)."""
        eaten = self.snacks[p][c]
        if not eaten:
            return 0, 0
        return sum(PED_VALUE[card] for card in eaten), len(eaten) * sum(self.healthy[p][c])

    def rat_points(self, p: int) -> int:
        """The rats on p's cells whose network reaches a creature (Rat Snacks)."""
        wet = self.wet[p]
        return sum(count for cell, count in enumerate(self.rats) if count and wet >> cell & 1)

    def badge_penalty(self, p: int) -> int:
        return self.badges[p] // BADGES_PER_PENALTY * BADGE_PENALTY

    def score(self, p: int) -> int:
        """The sheet's score as it stands: snacks + satisfaction + rats - badge penalty."""
        total = -self.badge_penalty(p)
        for c in range(NUM_CREATURES):
            value, satisfaction = self.creature_points(p, c)
            total += value + satisfaction
        if self.config["rat_snacks"]:
            total += self.rat_points(p)
        return total

    # --- checks --------------------------------------------------------------------------------------
    def _sheet_violations(self, p: int) -> list[str]:
        """Seat p's sheet against its rules and against a recomputation of everything play keeps up
        to date (networks, links, wet cells, accepting sides, `fits`)."""
        problems = []
        pipes = self.pipes[p]
        if not 0 <= self.badges[p] <= BADGES:
            problems.append(f"badges {self.badges[p]}")
        for c in range(NUM_CREATURES):
            if min(self.healthy[p][c] + self.crossed[p][c]) < 0 or self.open_slots(p, c) < 0:
                problems.append(f"{CREATURE_NAMES[c]}: traits {self.healthy[p][c]}, crossed {self.crossed[p][c]}")
            if len(self.snacks[p][c]) > SNACK_SLOTS:
                problems.append(f"creature {CREATURE_NAMES[c]} ate {len(self.snacks[p][c])} snacks")
        # What is drawn and what is still to draw this round come from the dice rolled so far.
        if sum(1 for o in pipes if o) + sum(self.pipes_left[p]) > PIPE_DICE * self._rolls_so_far():
            problems.append("more pipes than dice rolled")
        if sum(map(sum, self.healthy[p] + self.crossed[p])) + sum(self.traits_left[p]) > TRAIT_DICE * self._rolls_so_far():
            problems.append("more traits than dice rolled")
        wet = 0
        for c, cell in enumerate(CREATURE_CELLS):
            _, reached, cells = self.flood(p, cell)
            wet |= cells
            if reached != self.links[p][c]:
                problems.append(f"{CREATURE_NAMES[c]}: links {self.links[p][c]:05b}, recomputed {reached:05b}")
        if wet != self.wet[p]:
            problems.append("connected cells differ from a recomputation")
        if self.fits[p] != fits_of(self.accept[p]):
            problems.append("fits differ from a recomputation")
        anchored = 0
        for start in list(CREATURE_CELLS) + self.entrances:
            anchored |= self.flood(p, start)[2]
        parent, members, reach = self.parent[p], self.members[p], self.reach[p]
        networks = 0  # the cells of the networks whose root has been met
        for cell in range(NUM_CELLS):
            if (parent[cell] >= 0) != bool(pipes[cell] or self.entrance_at[cell] >= 0):
                problems.append(f"network forest: {cell_name(cell)} is a node iff it holds a pipe or an entrance")
            elif parent[cell] == cell:
                creatures, reached, cells = self.flood(p, cell)
                if (members[cell], reach[cell]) != (cells, creatures | reached << NUM_CREATURES):
                    problems.append(f"network at {cell_name(cell)}: union-find and flood fill disagree")
                elif networks & cells:
                    problems.append(f"network forest: {cell_name(cell)} is a second root of one network")
                networks |= cells
            elif parent[cell] >= 0:
                root = self._root_of(p, cell)
                if root < 0 or not members[root] >> cell & 1:
                    problems.append(f"network forest: {cell_name(cell)} does not lead to the root of its network")
        for cell in range(NUM_CELLS):
            on_board = self.entrance_at[cell] < 0 and CREATURE_AT[cell] < 0
            if pipes[cell] and (not anchored >> cell & 1 or not on_board):
                problems.append(f"pipe at {cell_name(cell)} off any network, or on a creature or entrance")
            expected = 0
            if self._free(p, cell):
                for bit, nb in NEIGHBOURS[cell]:
                    if CREATURE_AT[nb] >= 0 or self.entrance_at[nb] >= 0 or pipes[nb] & OPPOSITE[bit]:
                        expected |= bit
            if self.accept[p][cell] != expected:
                problems.append(f"accepting sides at {cell_name(cell)}: {self.accept[p][cell]}, expected {expected}")
        return problems
