"""Snack Time's rules (shared/rules/snack_time.txt): state and transitions, no RL code.

Every player fills in a sheet of their own: an 8x8 pipe map with a creature in
each corner and the 5 sewer entrances shared by all (see `components` for the
map, the dice and the invented pedestrian table). Players share the dice, the
row of pedestrians and the traps; nothing one player draws changes another's
options. That is why the AEC sequencing below is harmless: within a round the
seats decide one after another, and a later seat sees the placements an
earlier seat made this round, which changes none of its options.

A round, as a sequence of decisions:
1. (not in round 1) the row moves on and a card is drawn for entrance 1;
   traps drawn on the way mark a badge for everyone and queue one damage for
   each creature connected to the trap's entrance. Then, seat by seat, each
   player chooses the trait crossed off for each queued damage ("trap" phase).
2. The dice are rolled (after the trap choices: the rulebook rolls in step 2).
   With Rat Snacks, the rat is drawn at once on every sheet.
3. Seat by seat ("place" phase): the player draws both traits, then the three
   pipes in the order of their choice.
4. Seat by seat ("snack" phase): snacking resolves creature by creature, each
   creature at entrances 1 to 5 in order; a Damage consequence stops the
   resolution until the player has chosen the trait to cross off, which can
   stop a later snack of that creature.
5. If an end condition came up during the round, the game ends now.
In Advanced mode with chosen entrances, setup adds an "entrance" phase: seat
k mod n places entrance k + 1.

Actions (728, the same for every option and player count):
- 0..11     draw a trait: TRAIT_BASE + trait * 4 + creature (trait Eye, Tooth,
            Tentacle; creature NW, NE, SW, SE);
- 12..651   draw a pipe: PIPE_BASE + cell * 10 + pattern (cell = row * 8 + col;
            pattern indexes `components.PATTERNS`, which names the piece);
- 652..663  cross off a trait: DAMAGE_BASE + creature * 3 + trait;
- 664..727  place the next sewer entrance: ENTRANCE_BASE + cell (Advanced).
The mask allows exactly the legal ones; a decision with no legal option is
skipped by the rules (a trait with no open slot, pipes with no place, a damage
to a creature with no trait left), so the player to act always has one.

Readings chosen where the rulebook is silent (see COMPONENTS.md too):
- Trait slots are interchangeable, so a placement names the trait and the
  creature, and a damage the trait crossed off. Satisfaction counts the
  creature's filled, uncrossed trait slots (an empty slot holds no trait).
- A pipe goes on an empty cell (not a creature, not an entrance) and at least
  one of its openings must face a creature, an entrance or a pipe's opening;
  its other openings may face a wall, a closed pipe side or the map's edge and
  join nothing. So every pipe belongs to a network that leads to a creature
  or an entrance. Any piece has an orientation opening to any side, so either
  every remaining piece has a place or none has; then all are skipped.
- Networks: an entrance is a 4-way junction a network passes through; a
  creature is an end point; an entrance next to a creature (possible only
  with chosen entrances) is connected to it.
- A creature snacks at most once per entrance per round (once on each
  pedestrian it meets); several of its entrances can feed it in one round.
  Creatures are resolved one after another: a consequence hits only the eater
  or the player's badges, so their order changes nothing.
- A Badge past the ninth is not marked (the penalty stays at -6).
- A damage to a creature with no uncrossed trait does nothing, also when a
  second trap hits a creature whose last trait the first one took.
- End: a player with 12 snacks, a player's ninth badge, or (Advanced traps) a
  creature with all 4 trait slots crossed off ("completely killed") ends the
  game at the end of the round. If the deck holds no pedestrian when the row
  must move on, the game ends before that round (nothing moves).
- Entrance rolls: a roll on an entrance or next to one (diagonals included)
  is rolled again; if no legal space is left (B2, E2, B5, E5 block all 36),
  the entrances rolled so far are erased and the rolling starts over.
- Chosen entrances (Advanced): any cell but the creatures' corners, the
  no-adjacency rule kept, chosen before round 1 with the row already dealt.
- Advanced traps: a drawn trap goes back into the deck at a uniformly random
  place (a shuffle), so it never lies on its location.
- Rat Snacks: the letter die names the column and the number die the row of
  the inner area; one rat a round; a roll on an entrance or on a space that
  holds 4 rats adds nothing. A rat does not block a pipe; it scores 1 when its
  cell's pipe belongs to a network that reaches a creature.
- Solo rating: the table's top rank is open-ended (a perfect sheet scores
  168 > 167) and its last rank takes every score below 25 (+7 with rats).
- Game length: a player makes at most 16 trait placements (16 slots), 55 pipe
  placements (60 cells less 5 entrances) and 16 damage choices (each crosses
  off a trait placed earlier), plus 5 entrance choices in all: a game has at
  most 87 n + 5 decisions, the `default_max_steps`; no game is truncated there.
  The deck also bounds the rounds: each round after the first draws one of
  the 25 pedestrians left, so there are at most 26.

Implementation: the networks of each map are a union-find forest over pipe
and entrance cells (`parent`, and at each root `members` and `reach`),
joined when a pipe or entrance is drawn: every new path runs through the new
cell, so `links` (the entrances each creature reaches) and `wet` (the cells of
networks that reach a creature) only grow there. `invariant_violations`
recomputes all of it with a plain flood fill (`flood`). Two derived summaries
are kept up to date by play (and rebuilt by `from_dict`): `map_bytes`, per cell
(openings, can take a pipe, reaches a creature), for the observation encoder,
and `fits`, per action, the pipe placements that open onto an accepting side,
so the legal mask is one `&` with the pieces left (`_legal_mask`). The mask is
cached beside the legal lists and built without them; the list of pipe
placements is made only when asked for. `revision` and `sheet_revisions` count
the changes the observation encoder must re-read (see `state_changed`).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from snack_envs.core.game import ConfigError, Game, Option, count_by
from snack_envs.snack_time.components import (
    BADGE,
    BADGE_PENALTY,
    BADGES,
    BADGES_PER_PENALTY,
    CREATURE_CELLS,
    COL_LABELS,
    CREATURE_NAMES,
    DAMAGE,
    E,
    FIRST_TRAP,
    INNER_CELLS,
    KING_ZONE,
    MAX_RATS_PER_CELL,
    N,
    NEIGHBOURS,
    NUM_CARDS,
    NUM_CELLS,
    NUM_CREATURES,
    NUM_ENTRANCES,
    NUM_PATTERNS,
    NUM_PEDESTRIANS,
    OPPOSITE,
    PATTERNS,
    PED_CONSEQUENCE,
    PED_NEEDS,
    PED_VALUE,
    PIECES,
    PIPE_DIE_FACES,
    S,
    SIZE,
    SNACK_SLOTS,
    TRAIT_DIE_FACES,
    TRAIT_SLOTS,
    TRAITS,
    W,
    card_str,
    cell_name,
    cell_of,
    openings_str,
    parse_cell,
    solo_rank,
)

MAX_PLAYERS = 8
TRAIT_BASE = 0
PIPE_BASE = TRAIT_BASE + len(TRAITS) * NUM_CREATURES  # 12
DAMAGE_BASE = PIPE_BASE + NUM_CELLS * NUM_PATTERNS  # 652
ENTRANCE_BASE = DAMAGE_BASE + NUM_CREATURES * len(TRAITS)  # 664
NUM_ACTIONS = ENTRANCE_BASE + NUM_CELLS  # 728

SIDES = tuple(tuple((bit, nb, OPPOSITE[bit]) for bit, nb in NEIGHBOURS[c]) for c in range(NUM_CELLS))
# OPEN_SIDES[cell][openings] -> (neighbour, its side facing the cell) for each opening inside the map.
OPEN_SIDES = tuple(
    tuple(tuple((nb, back) for bit, nb, back in SIDES[c] if openings & bit) for openings in range(16))
    for c in range(NUM_CELLS)
)
CREATURE_AT = tuple(CREATURE_CELLS.index(c) if c in CREATURE_CELLS else -1 for c in range(NUM_CELLS))
CREATURES_IN = tuple(tuple(c for c in range(NUM_CREATURES) if bits >> c & 1) for bits in range(1 << NUM_CREATURES))
ALL_SIDES = N | E | S | W
CAN_TAKE_PIPE, REACHES_CREATURE = 16, 32  # flags of `map_bytes`
MAX_SCORE_PER_CREATURE = SNACK_SLOTS * 10 + SNACK_SLOTS * TRAIT_SLOTS  # 42
MAX_ROUNDS = 1 + NUM_PEDESTRIANS - NUM_ENTRANCES  # 26: each later round draws one pedestrian
DECISIONS_PER_PLAYER = NUM_CREATURES * TRAIT_SLOTS * 2 + (NUM_CELLS - NUM_CREATURES - NUM_ENTRANCES)  # 87


def _pipe_masks() -> np.ndarray:
    """PIPE_MASKS[pieces available as bits][accepting sides of a cell] -> which of the ten patterns
    may be drawn there (int8)."""
    table = np.zeros((8, 16, NUM_PATTERNS), np.int8)
    for avail in range(8):
        for accept in range(16):
            for i, (piece, openings) in enumerate(PATTERNS):
                table[avail, accept, i] = bool(openings & accept and avail >> piece & 1)
    return table


PIPE_MASKS = _pipe_masks()
# The pipe placements as a mask are `fits & AVAIL_MASKS[pieces available]`: `fits[p]` (see
# `_rebuild_map_bytes`) holds at PIPE_AT[cell] the FIT_ROWS row of the cell's accepting sides, the
# patterns with an opening facing one of them; AVAIL_MASKS[avail] the pipe actions of those pieces.
PIPE_AT = tuple(PIPE_BASE + cell * NUM_PATTERNS for cell in range(NUM_CELLS))
FIT_ROWS = tuple(PIPE_MASKS[7, accept].tobytes() for accept in range(16))


def _frozen_mask(actions: Sequence[int]) -> np.ndarray:
    """A read-only int8 mask of NUM_ACTIONS with `actions` set."""
    mask = np.zeros(NUM_ACTIONS, np.int8)
    mask[list(actions)] = 1
    mask.setflags(write=False)
    return mask


AVAIL_MASKS = tuple(
    _frozen_mask([
        PIPE_AT[cell] + i for cell in range(NUM_CELLS) for i, (piece, _) in enumerate(PATTERNS) if avail >> piece & 1
    ])
    for avail in range(8)
)


# TRAIT_CHOICES[trait dice left as bits][creatures with an open slot as bits] -> (legal actions, mask):
# the trait draws allowed, `TRAIT_BASE + trait * 4 + creature` for each pair.
TRAIT_CHOICES = tuple(
    tuple(
        (actions, _frozen_mask(actions))
        for actions in (
            tuple(
                TRAIT_BASE + t * NUM_CREATURES + c
                for t in range(3) if left >> t & 1 for c in range(NUM_CREATURES) if open_bits >> c & 1
            )
            for open_bits in range(1 << NUM_CREATURES)
        )
    )
    for left in range(8)
)
# DAMAGE_CHOICES[creature][its uncrossed traits as bits] -> (legal actions, mask): the traits it may lose.
DAMAGE_CHOICES = tuple(
    tuple(
        (actions, _frozen_mask(actions))
        for actions in (tuple(DAMAGE_BASE + c * 3 + t for t in range(3) if have >> t & 1) for have in range(8))
    )
    for c in range(NUM_CREATURES)
)
NO_ACTIONS = _frozen_mask(())
MASK_KEYS = tuple(("mask", p) for p in range(MAX_PLAYERS))  # `_legal_cache` keys of the players' masks
INNER_BITS = sum(1 << cell for cell in INNER_CELLS)
KING_BITS = tuple(sum(1 << c for c in KING_ZONE[cell]) for cell in range(NUM_CELLS))


def _initial_sheet() -> tuple[list[int], bytes, bytes]:
    """The accepting sides, `map_bytes` and `fits` of an empty sheet: the cells next to a creature."""
    accept = [0] * NUM_CELLS
    for cell in CREATURE_CELLS:
        for bit, nb in NEIGHBOURS[cell]:
            accept[nb] |= OPPOSITE[bit]
    map_bytes = bytes(CAN_TAKE_PIPE if a else 0 for a in accept)
    fits = bytes(PIPE_BASE) + b"".join(FIT_ROWS[a] for a in accept) + bytes(NUM_ACTIONS - DAMAGE_BASE)
    return accept, map_bytes, fits


EMPTY_ACCEPT, EMPTY_MAP_BYTES, EMPTY_FITS = _initial_sheet()


def trait_action(trait: int, creature: int) -> int:
    return TRAIT_BASE + trait * NUM_CREATURES + creature


def pipe_action(cell: int | str, openings: int) -> int:
    cell = parse_cell(cell) if isinstance(cell, str) else cell
    return PIPE_BASE + cell * NUM_PATTERNS + [o for _, o in PATTERNS].index(openings)


def damage_action(creature: int, trait: int) -> int:
    return DAMAGE_BASE + creature * len(TRAITS) + trait


def entrance_action(cell: int | str) -> int:
    return ENTRANCE_BASE + (parse_cell(cell) if isinstance(cell, str) else cell)


def _as_cell(value: Any) -> int:
    cell = parse_cell(value) if isinstance(value, str) else int(value)
    if not 0 <= cell < NUM_CELLS:
        raise ConfigError(f"no cell {value!r}")
    return cell


class SnackTime(Game):
    name = "snack_time"
    version = 0
    min_players, max_players, default_players = 1, MAX_PLAYERS, 2
    # Lowest: nothing eaten and 9 badges. Highest: four perfect creatures and a connected rat every round.
    score_range = (-float(BADGES // BADGES_PER_PENALTY * BADGE_PENALTY), float(4 * MAX_SCORE_PER_CREATURE + MAX_ROUNDS))
    options = {
        "rat_snacks": Option(False, "the Rat Snacks module: a rat a round on the location dice, +1 per connected rat"),
        "advanced_entrances": Option(
            False, "Advanced mode: players take turns choosing the entrances, anywhere on the map"
        ),
        "advanced_traps": Option(
            False, "Advanced mode: drawn traps are shuffled back; a creature with every trait crossed off ends the game"
        ),
    }
    scripted_outcomes = ("deck", "entrance_rolls", "rolls")
    state_fields = (
        "phase", "current_player", "game_over", "round", "cursor", "ending", "end_reasons",
        "entrances", "deck", "row", "discard", "trap_spots",
        "dice_traits", "dice_pipes", "rat_roll", "rats",
        "pipes", "accept", "parent", "members", "reach", "links", "wet", "healthy", "crossed", "snacks", "badges",
        "pending", "traits_left", "pipes_left", "scripted_rolls", "events",
    )

    @classmethod
    def num_actions_for(cls, num_players, config):
        return NUM_ACTIONS

    @classmethod
    def default_max_steps(cls, num_players: int) -> int:
        return DECISIONS_PER_PLAYER * num_players + NUM_ENTRANCES

    # --- setup ---------------------------------------------------------------------------------
    def _setup(
        self,
        deck: Sequence[int] | None = None,
        entrance_rolls: Sequence[Any] | None = None,
        rolls: Sequence[Sequence[Any]] | None = None,
    ) -> None:
        """Deal and set up the sheets. Scripts for tests:
        - `deck`: all 35 card ids (pedestrians 0..29, trap for entrance k 30 + k - 1): the first
          5 (pedestrians) are dealt to entrances 1..5, the rest is the draw pile, top first;
        - `entrance_rolls`: location-dice rolls (cells, or names like "A3") used before the rng;
        - `rolls`: the dice of the next rounds, each (traits, pipes, rat): 2 trait ids, 3 piece
          ids and the rat's cell (a name, a cell, or None); used before the rng."""
        n = self.num_players
        if deck is None:
            order = self.rng.permutation(NUM_PEDESTRIANS).tolist()
            rest = order[NUM_ENTRANCES:] + list(range(FIRST_TRAP, NUM_CARDS))
            self.row = order[:NUM_ENTRANCES]
            self.deck = [rest[i] for i in self.rng.permutation(len(rest)).tolist()]
        else:
            deck = [int(c) for c in deck]
            if sorted(deck) != list(range(NUM_CARDS)) or max(deck[:NUM_ENTRANCES]) >= FIRST_TRAP:
                raise ConfigError("a scripted deck holds each of the 35 cards once, pedestrians in its first 5")
            self.row, self.deck = deck[:NUM_ENTRANCES], deck[NUM_ENTRANCES:]
        self.scripted_rolls = [self._check_roll(r) for r in (rolls or [])]
        self.discard: list[int] = []
        self.trap_spots = [False] * NUM_ENTRANCES
        self.rats = [0] * NUM_CELLS
        self.dice_traits: list[int] = []
        self.dice_pipes: list[int] = []
        self.rat_roll: int | None = None
        self.pipes = [[0] * NUM_CELLS for _ in range(n)]
        self.accept = [list(EMPTY_ACCEPT) for _ in range(n)]  # the cells next to a creature
        # Networks as a union-find forest over pipe and entrance cells (-1: not in a network); at a
        # root, `members` holds the network's cells as bits and `reach` its creatures | entrances << 4.
        self.parent = [[-1] * NUM_CELLS for _ in range(n)]
        self.members = [[0] * NUM_CELLS for _ in range(n)]
        self.reach = [[0] * NUM_CELLS for _ in range(n)]
        self.links = [[0] * NUM_CREATURES for _ in range(n)]  # per creature: the entrances it reaches, as bits
        self.wet = [0] * n  # pipe and entrance cells whose network reaches a creature, as bits
        self.map_bytes = [bytearray(EMPTY_MAP_BYTES) for _ in range(n)]  # what _rebuild_map_bytes makes of it
        self.fits = [bytearray(EMPTY_FITS) for _ in range(n)]
        self.healthy = [[[0, 0, 0] for _ in range(NUM_CREATURES)] for _ in range(n)]
        self.crossed = [[[0, 0, 0] for _ in range(NUM_CREATURES)] for _ in range(n)]
        self.snacks = [[[] for _ in range(NUM_CREATURES)] for _ in range(n)]
        self.badges = [0] * n
        self.pending: list[list[int]] = [[] for _ in range(n)]
        self.traits_left = [[0, 0, 0] for _ in range(n)]
        self.pipes_left = [[0, 0, 0] for _ in range(n)]
        self.round = 0
        self.cursor = [0, 0, 0]
        self.ending = False
        self.end_reasons: list[str] = []
        self.events: list[list] = []
        self.game_over = False
        self.revision = 0  # see `state_changed`
        self.sheet_revisions = [0] * n
        self.current_player = 0
        self.entrances: list[int] = []
        self.entrance_at = [-1] * NUM_CELLS
        if self.config["advanced_entrances"]:
            if entrance_rolls:
                raise ConfigError("entrance_rolls script the rolled entrances; with advanced_entrances players choose")
            self.phase = "entrance"
        else:
            for cell in self._roll_entrances([_as_cell(r) for r in (entrance_rolls or [])]):
                self._add_entrance(cell)
            self.phase = "trap"
            self._start_round()
        self._advance()

    @staticmethod
    def _check_roll(roll: Sequence[Any]) -> list:
        try:
            traits, pipes, rat = roll
            traits, pipes = [int(t) for t in traits], [int(p) for p in pipes]
        except (TypeError, ValueError):
            raise ConfigError(f"a scripted roll is (2 traits, 3 pieces, rat cell or None), got {roll!r}") from None
        if len(traits) != 2 or len(pipes) != 3 or not all(0 <= x < 3 for x in traits + pipes):
            raise ConfigError(f"a scripted roll needs 2 traits and 3 pieces, each 0..2, got {roll!r}")
        if rat is not None and _as_cell(rat) not in INNER_CELLS:
            raise ConfigError(f"the location dice name a space of A-F x 1-6, not {rat!r}")
        return [traits, pipes, None if rat is None else _as_cell(rat)]

    def _entrance_allowed(self, cell: int, placed: Sequence[int]) -> bool:
        return CREATURE_AT[cell] < 0 and not any(e in KING_ZONE[cell] for e in placed)

    def _roll_entrances(self, scripted: list[int]) -> list[int]:
        """The rulebook's procedure: roll the location dice, roll again next to an entrance."""
        placed: list[int] = []
        blocked = 0  # the cells next to an entrance placed, or on one, as bits (`_entrance_allowed`)
        while len(placed) < NUM_ENTRANCES:
            if not INNER_BITS & ~blocked:
                placed, blocked = [], 0  # boxed in: start over (see the module docstring)
            if scripted:
                cell = scripted.pop(0)
            else:
                letter, number = self.rng.random(2).tolist()  # `roll_dice(self.rng, 2)`, inlined
                cell = cell_of(int(number * 6) + 1, int(letter * 6) + 1)
            if 0 <= cell < NUM_CELLS and INNER_BITS >> cell & 1 and not blocked >> cell & 1:
                placed.append(cell)
                blocked |= KING_BITS[cell]
        return placed

    def _add_entrance(self, cell: int) -> None:
        self.revision += 1
        k = len(self.entrances)
        self.entrances.append(cell)
        self.entrance_at[cell] = k
        for p in range(self.num_players):
            self.map_bytes[p][cell] = 0
            self._connect(p, cell, ALL_SIDES)

    @classmethod
    def from_dict(cls, data):
        game = super().from_dict(data)
        game.entrance_at = [-1] * NUM_CELLS
        for k, cell in enumerate(game.entrances):
            game.entrance_at[cell] = k
        game._rebuild_map_bytes()
        game.revision, game.sheet_revisions = 0, [0] * game.num_players
        return game

    def state_changed(self) -> None:
        """Call after editing state fields by hand: forgets the cached legal actions and bumps the
        revisions. The rules bump `sheet_revisions[p]` whenever they change p's traits, snacks,
        badges or links (or, with Rat Snacks, the cells that reach a creature), and `revision`
        whenever they change anything else an observation shows but the map (`map_bytes`), the
        dice (rolled and left to draw) and whose decision it is: the observation encoder re-reads
        a part only when its revision moved (see `SnackTimeEncoder`)."""
        super().state_changed()
        self.revision += 1
        self.sheet_revisions = [r + 1 for r in self.sheet_revisions]

    def _rebuild_map_bytes(self) -> None:
        """Two per-cell summaries derived from the state and kept up to date by play:
        - `map_bytes[p]`: one byte per cell, its pipe's openings | CAN_TAKE_PIPE | REACHES_CREATURE
          (a pipe or entrance whose network reaches a creature), for the observation encoder;
        - `fits[p]`: one byte per action, 1 for a pipe placement whose pattern opens onto one of the
          cell's accepting sides (whatever pieces are left), for the legal mask."""
        self.map_bytes = [
            bytearray(
                pipes[c] | (CAN_TAKE_PIPE if accept[c] else 0) | (REACHES_CREATURE if wet >> c & 1 else 0)
                for c in range(NUM_CELLS)
            )
            for pipes, accept, wet in zip(self.pipes, self.accept, self.wet)
        ]
        self.fits = [
            bytearray(bytes(PIPE_BASE) + b"".join(FIT_ROWS[a] for a in accept) + bytes(NUM_ACTIONS - DAMAGE_BASE))
            for accept in self.accept
        ]

    # --- the map ---------------------------------------------------------------------------------
    def _free(self, pipes: list[int], cell: int) -> bool:
        return not pipes[cell] and self.entrance_at[cell] < 0 and CREATURE_AT[cell] < 0

    def flood(self, p: int, start: int) -> tuple[int, int, int]:
        """What the network through `start` reaches on p's map, not passing through creatures:
        (creatures as bits, entrances as bits, pipe and entrance cells as bits). A plain flood fill,
        used by the checks; play keeps the same facts up to date with the union-find below."""
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

    def _connect(self, p: int, cell: int, openings: int) -> None:
        """Open the new pipe or entrance at `cell` (with `openings`) onto its neighbours on p's map:
        each empty cell it opens onto now accepts a pipe on that side, and the networks it opens
        onto join; then update links and wet cells: every new path passes through `cell`."""
        parent, members, reach = self.parent[p], self.members[p], self.reach[p]
        pipes, accept, entrance_at = self.pipes[p], self.accept[p], self.entrance_at
        map_bytes, fits = self.map_bytes[p], self.fits[p]
        accept[cell] = 0
        at = PIPE_AT[cell]
        fits[at:at + NUM_PATTERNS] = FIT_ROWS[0]
        parent[cell] = cell
        members[cell] = 1 << cell
        reach[cell] = 1 << (4 + entrance_at[cell]) if entrance_at[cell] >= 0 else 0
        root = cell
        for nb, back in OPEN_SIDES[cell][openings]:
            if CREATURE_AT[nb] >= 0:
                reach[root] |= 1 << CREATURE_AT[nb]
            elif not pipes[nb] and entrance_at[nb] < 0:  # an empty cell (`_free`)
                accept[nb] |= back
                map_bytes[nb] |= CAN_TAKE_PIPE
                at = PIPE_AT[nb]
                fits[at:at + NUM_PATTERNS] = FIT_ROWS[accept[nb]]
            elif parent[nb] >= 0 and (pipes[nb] & back or entrance_at[nb] >= 0):
                other = nb
                while parent[other] != other:
                    parent[other] = parent[parent[other]]
                    other = parent[other]
                if other != root:
                    parent[other] = root
                    members[root] |= members[other]
                    reach[root] |= reach[other]
        creatures = reach[root] & 15
        if creatures:
            entrances = reach[root] >> 4
            if entrances:
                links = self.links[p]
                for c in CREATURES_IN[creatures]:
                    if links[c] | entrances != links[c]:
                        links[c] |= entrances
                        self.sheet_revisions[p] += 1
            new = members[root] & ~self.wet[p]
            if new:
                if self.config["rat_snacks"]:  # the wet cells count in the score only for the rats
                    self.sheet_revisions[p] += 1
                self.wet[p] |= new
                while new:
                    low = new & -new
                    map_bytes[low.bit_length() - 1] |= REACHES_CREATURE
                    new ^= low

    def _draw_pipe(self, p: int, cell: int, openings: int) -> None:
        self.pipes[p][cell] = self.map_bytes[p][cell] = openings
        self._connect(p, cell, openings)

    # --- rounds ----------------------------------------------------------------------------------
    def _start_round(self) -> None:
        self.revision += 1
        self.events = []
        if self.round > 0:
            if not any(card < FIRST_TRAP for card in self.deck):
                self._finish("the deck cannot refill the row")
                return
            self.discard.append(self.row.pop())
            while True:
                card = self.deck.pop(0)
                if card < FIRST_TRAP:
                    self.row.insert(0, card)
                    break
                self._spring_trap(card)
        self.round += 1
        self.dice_traits, self.dice_pipes, self.rat_roll = [], [], None
        self.phase = "trap"
        self.cursor = [0, 0, 0]

    def _spring_trap(self, card: int) -> None:
        k = card - FIRST_TRAP
        self.events.append(["trap", k])
        for p in range(self.num_players):
            self._mark_badge(p)
            links = self.links[p]
            self.pending[p].extend(c for c in range(NUM_CREATURES) if links[c] >> k & 1)
        if self.config["advanced_traps"]:
            self.deck.insert(int(self.rng.integers(len(self.deck) + 1)), card)
        else:
            self.trap_spots[k] = True

    def _mark_badge(self, p: int) -> None:
        self.sheet_revisions[p] += 1
        if self.badges[p] < BADGES:
            self.badges[p] += 1
            if self.badges[p] == BADGES:
                self._end_after_round("a player marked the last badge")

    def _end_after_round(self, reason: str) -> None:
        self.revision += 1
        self.ending = True
        if reason not in self.end_reasons:
            self.end_reasons.append(reason)

    def _finish(self, reason: str | None = None) -> None:
        self.revision += 1
        if reason and reason not in self.end_reasons:
            self.end_reasons.append(reason)
        self.phase = "over"
        self.game_over = True
        self.current_player = -1

    def _roll(self) -> None:
        rat_snacks = self.config["rat_snacks"]
        if rat_snacks:
            self.revision += 1  # a rat (the dice themselves the encoder compares at every step)
        if self.scripted_rolls:
            traits, pipes, rat = self.scripted_rolls.pop(0)
        else:
            dice = self.rng.random(7 if rat_snacks else 5).tolist()  # `roll_dice`, inlined: face int(u * 6) + 1
            traits = [TRAIT_DIE_FACES[int(u * 6)] for u in dice[:2]]
            pipes = [PIPE_DIE_FACES[int(u * 6)] for u in dice[2:5]]
            rat = cell_of(int(dice[6] * 6) + 1, int(dice[5] * 6) + 1) if rat_snacks else None
        self.dice_traits, self.dice_pipes = traits, pipes
        trait_counts, pipe_counts = count_by(traits, 3), count_by(pipes, 3)
        self.traits_left = [list(trait_counts) for _ in range(self.num_players)]
        self.pipes_left = [list(pipe_counts) for _ in range(self.num_players)]
        if rat_snacks and rat is not None:
            self.rat_roll = rat
            if self.entrance_at[rat] >= 0 or self.rats[rat] >= MAX_RATS_PER_CELL:
                self.events.append(["rat ignored", rat])
            else:
                self.rats[rat] += 1
                self.events.append(["rat", rat])

    def open_slots(self, p: int, c: int) -> int:
        return TRAIT_SLOTS - sum(self.healthy[p][c]) - sum(self.crossed[p][c])

    def open_creatures(self, p: int) -> list[int]:
        """p's creatures with an empty trait slot."""
        bits = self._open_bits(p)
        return [c for c in range(NUM_CREATURES) if bits >> c & 1]

    def _open_bits(self, p: int) -> int:
        """p's creatures with an empty trait slot, as bits; kept in `_legal_cache` (a trait draw
        asks twice: is there one to make, and which)."""
        key = ("open", p)
        bits = self._legal_cache.get(key)
        if bits is None:
            h0, h1, h2, h3 = self.healthy[p]  # unrolled over the 4 creatures
            x0, x1, x2, x3 = self.crossed[p]
            bits = self._legal_cache[key] = (
                (h0[0] + h0[1] + h0[2] + x0[0] + x0[1] + x0[2] < TRAIT_SLOTS)
                | (h1[0] + h1[1] + h1[2] + x1[0] + x1[1] + x1[2] < TRAIT_SLOTS) << 1
                | (h2[0] + h2[1] + h2[2] + x2[0] + x2[1] + x2[2] < TRAIT_SLOTS) << 2
                | (h3[0] + h3[1] + h3[2] + x3[0] + x3[1] + x3[2] < TRAIT_SLOTS) << 3
            )
        return bits

    def _needs_placement(self, p: int) -> bool:
        """Whether p still has a trait or pipe to draw; drops the dice that cannot be drawn."""
        left = self.traits_left[p]
        if left[0] or left[1] or left[2]:
            if self._open_bits(p):
                return True
            left[:] = [0, 0, 0]
        left = self.pipes_left[p]
        if left[0] or left[1] or left[2]:
            if self.accept[p].count(0) != NUM_CELLS:  # a cell accepts a pipe (`any`, at C speed)
                return True
            left[:] = [0, 0, 0]
        return False

    def _prune_pending(self, p: int) -> bool:
        """Drop queued damages that cannot hit (no trait left); whether one remains."""
        pending, healthy = self.pending[p], self.healthy[p]
        while pending and not any(healthy[pending[0]]):
            pending.pop(0)
        return bool(pending)

    def _advance(self) -> None:
        """Run the rules until a player has a decision to make or the game is over."""
        n = self.num_players
        while not self.game_over:
            phase = self.phase
            if phase == "place":  # the common case first
                p = self.cursor[0]
                while p < n and not self._needs_placement(p):
                    p += 1
                if p < n:
                    self.cursor[0] = self.current_player = p
                    return
                self.phase = "snack"
                self.cursor = [0, 0, 0]
            elif phase == "trap":
                p = self.cursor[0]
                while p < n and not self._prune_pending(p):
                    p += 1
                if p < n:
                    self.cursor[0] = self.current_player = p
                    return
                self._roll()
                self.phase = "place"
                self.cursor = [0, 0, 0]
            elif phase == "entrance":
                if len(self.entrances) < NUM_ENTRANCES:
                    self.current_player = len(self.entrances) % n
                    return
                self._start_round()
            else:
                if self._resolve_snacks():
                    return
                for eaten in self.snacks:
                    if (len(eaten[0]) == SNACK_SLOTS and len(eaten[1]) == SNACK_SLOTS
                            and len(eaten[2]) == SNACK_SLOTS and len(eaten[3]) == SNACK_SLOTS):
                        self._end_after_round("a player fed every creature 3 snacks")
                        break
                if self.ending:
                    self._finish()
                else:
                    self._start_round()

    def _resolve_snacks(self) -> bool:
        """Snack from the cursor on; True when paused for a damage choice."""
        n, row = self.num_players, self.row
        p, c, k = self.cursor
        while p < n:
            links, healthy, snacks = self.links[p], self.healthy[p], self.snacks[p]
            while c < NUM_CREATURES:
                link, have, eaten = links[c], healthy[c], snacks[c]
                while link and k < NUM_ENTRANCES and len(eaten) < SNACK_SLOTS:
                    if link >> k & 1:
                        card = row[k]
                        need = PED_NEEDS[card]
                        if have[0] >= need[0] and have[1] >= need[1] and have[2] >= need[2]:
                            eaten.append(card)
                            self.sheet_revisions[p] += 1
                            self.events.append(["snack", p, c, k, card])
                            consequence = PED_CONSEQUENCE[card]
                            if consequence == BADGE:
                                self._mark_badge(p)
                            elif consequence == DAMAGE and any(have):
                                self.pending[p].append(c)
                                self.cursor = [p, c, k + 1]
                                self.current_player = p
                                return True
                    k += 1
                c, k = c + 1, 0
            p, c = p + 1, 0
        self.cursor = [n, 0, 0]
        return False

    # --- actions -----------------------------------------------------------------------------------
    def _legal_actions(self, p: int) -> list[int]:
        phase = self.phase
        if phase == "place":
            left = self.traits_left[p]
            if left[0] or left[1] or left[2]:
                choices = TRAIT_CHOICES[(left[0] != 0) | (left[1] != 0) << 1 | (left[2] != 0) << 2]
                return list(choices[self._open_bits(p)][0])
            return self._legal_mask(p).nonzero()[0].tolist()  # up to a few hundred pipe placements
        if phase in ("trap", "snack"):
            c = self.pending[p][0]
            have = self.healthy[p][c]
            return list(DAMAGE_CHOICES[c][(have[0] != 0) | (have[1] != 0) << 1 | (have[2] != 0) << 2][0])
        if phase == "entrance":
            return [ENTRANCE_BASE + cell for cell in range(NUM_CELLS) if self._entrance_allowed(cell, self.entrances)]
        return []

    def _legal_mask(self, p: int) -> np.ndarray:
        """p's legal actions as a mask, built without the list (pipe placements, the common step:
        `fits & AVAIL_MASKS[pieces left]`; the other decisions: prebuilt tables) and kept in
        `_legal_cache`, so it is forgotten with the lists whenever the state changes. Read-only."""
        if self.game_over or p != self.current_player:
            return NO_ACTIONS
        key = MASK_KEYS[p]
        mask = self._legal_cache.get(key)
        if mask is not None:
            return mask
        if self.phase == "place":
            left = self.traits_left[p]
            if left[0] or left[1] or left[2]:
                choices = TRAIT_CHOICES[(left[0] != 0) | (left[1] != 0) << 1 | (left[2] != 0) << 2]
                mask = choices[self._open_bits(p)][1]
            else:
                left = self.pipes_left[p]
                avail = (left[0] > 0) | (left[1] > 0) << 1 | (left[2] > 0) << 2
                mask = np.frombuffer(self.fits[p], np.int8) & AVAIL_MASKS[avail]
        elif self.phase in ("trap", "snack"):
            c = self.pending[p][0]
            have = self.healthy[p][c]
            mask = DAMAGE_CHOICES[c][(have[0] != 0) | (have[1] != 0) << 1 | (have[2] != 0) << 2][1]
        else:
            mask = np.zeros(NUM_ACTIONS, np.int8)
            legal = self.legal_actions(p)
            if legal:
                mask[legal] = 1
        self._legal_cache[key] = mask
        return mask

    def action_mask(self, player: int | None = None) -> np.ndarray:
        return self._legal_mask(self.current_player if player is None else player).copy()

    def check_action(self, action: Any, player: int | None = None) -> int:
        # The common case, a legal plain int of the player to act, read off the mask; anything else
        # goes through the full checks (and their error messages).
        if (
            type(action) is int and 0 <= action < NUM_ACTIONS and not self.game_over
            and (player is None or player == self.current_player)
        ):
            p = self.current_player
            mask = self._legal_cache.get(MASK_KEYS[p])
            if (self._legal_mask(p) if mask is None else mask)[action]:
                return action
        return super().check_action(action, player)

    def _apply(self, action: int, **outcomes) -> None:
        if outcomes:
            raise ConfigError(f"snack_time scripts its dice at construction (rolls=...), not {sorted(outcomes)}")
        p = self.current_player
        if action < PIPE_BASE:
            self.sheet_revisions[p] += 1
            trait, c = divmod(action - TRAIT_BASE, NUM_CREATURES)
            self.healthy[p][c][trait] += 1
            self.traits_left[p][trait] -= 1
        elif action < DAMAGE_BASE:
            cell, pattern = divmod(action - PIPE_BASE, NUM_PATTERNS)
            piece, openings = PATTERNS[pattern]
            self._draw_pipe(p, cell, openings)
            self.pipes_left[p][piece] -= 1
        elif action < ENTRANCE_BASE:
            self.sheet_revisions[p] += 1
            c, trait = divmod(action - DAMAGE_BASE, 3)
            self.pending[p].pop(0)
            self.healthy[p][c][trait] -= 1
            self.crossed[p][c][trait] += 1
            self.events.append(["damage", p, c, trait])
            if self.config["advanced_traps"] and sum(self.crossed[p][c]) == TRAIT_SLOTS:
                self._end_after_round("a creature was completely killed")
        else:
            self._add_entrance(action - ENTRANCE_BASE)
        self._advance()

    # --- scoring --------------------------------------------------------------------------------------
    def creature_points(self, p: int, c: int) -> tuple[int, int]:
        """(value of the snacks eaten, satisfaction = snacks x uncrossed traits, at most 12)."""
        eaten = self.snacks[p][c]
        return sum(PED_VALUE[card] for card in eaten), len(eaten) * sum(self.healthy[p][c])

    def rat_points(self, p: int) -> int:
        wet, rats = self.wet[p], self.rats
        return sum(count for cell, count in enumerate(rats) if count and wet >> cell & 1)

    def badge_penalty(self, p: int) -> int:
        return self.badges[p] // BADGES_PER_PENALTY * BADGE_PENALTY

    def score(self, p: int) -> int:
        """The sheet's score as it stands: snacks + satisfaction + rats - badge penalty."""
        total = 0
        for eaten, have in zip(self.snacks[p], self.healthy[p]):
            if eaten:
                total += sum([PED_VALUE[card] for card in eaten]) + len(eaten) * (have[0] + have[1] + have[2])
        if self.config["rat_snacks"]:
            total += self.rat_points(p)
        return total - self.badges[p] // BADGES_PER_PENALTY * BADGE_PENALTY

    def scores(self) -> list[float]:
        return [float(self.score(p)) for p in range(self.num_players)]

    def solo_rank(self, p: int = 0) -> str:
        """The rulebook's solo rating of p's score (shifted by 7 with Rat Snacks)."""
        return solo_rank(self.score(p), self.config["rat_snacks"])

    # --- checks ------------------------------------------------------------------------------------------
    def invariant_violations(self) -> list[str]:
        problems = []
        lying = [FIRST_TRAP + k for k, trap in enumerate(self.trap_spots) if trap]
        cards = self.deck + self.row + self.discard + lying
        if sorted(cards) != list(range(NUM_CARDS)):
            problems.append(f"cards: deck, row, discard and trap spots hold {sorted(cards)}, not each of 35 once")
        if len(self.row) != NUM_ENTRANCES or any(c >= FIRST_TRAP for c in self.row + self.discard):
            problems.append(f"row {self.row} / discard {self.discard}: only pedestrians, 5 in the row")
        if self.config["advanced_traps"] and any(self.trap_spots):
            problems.append("advanced traps: a trap lies on a location")
        rats = self.rats
        if sum(rats) > self.round or max(rats) > MAX_RATS_PER_CELL or any(rats[e] for e in self.entrances):
            problems.append(f"rats: {self.rats}")
        if self.phase != "entrance" and len(self.entrances) != NUM_ENTRANCES:
            problems.append(f"entrances: {self.entrances}")
        for a in self.entrances:
            if CREATURE_AT[a] >= 0 or any(b != a and b in KING_ZONE[a] for b in self.entrances):
                problems.append(f"entrance at {cell_name(a)} is on a creature or next to another")
        for p in range(self.num_players):
            problems += [f"seat {p}: {m}" for m in self._sheet_violations(p)]
        return problems

    def _sheet_violations(self, p: int) -> list[str]:
        problems = []
        pipes = self.pipes[p]
        if not 0 <= self.badges[p] <= BADGES:
            problems.append(f"badges {self.badges[p]}")
        for c in range(NUM_CREATURES):
            if min(self.healthy[p][c] + self.crossed[p][c]) < 0 or self.open_slots(p, c) < 0:
                problems.append(f"{CREATURE_NAMES[c]}: traits {self.healthy[p][c]}, crossed {self.crossed[p][c]}")
            if len(self.snacks[p][c]) > SNACK_SLOTS:
                problems.append(f"creature {CREATURE_NAMES[c]} ate {len(self.snacks[p][c])} snacks")
        if sum(1 for o in pipes if o) > PIPE_DICE_TOTAL * self.round:
            problems.append("more pipes than dice rolled")
        # Connectivity recomputed from scratch, from each creature, against the incremental links.
        wet = 0
        for c, cell in enumerate(CREATURE_CELLS):
            _, entrances, cells = self.flood(p, cell)
            wet |= cells
            if entrances != self.links[p][c]:
                problems.append(f"{CREATURE_NAMES[c]}: links {self.links[p][c]:05b}, recomputed {entrances:05b}")
        if wet != self.wet[p]:
            problems.append("connected cells differ from a recomputation")
        kept, kept_fits = self.map_bytes[p], self.fits[p]
        self._rebuild_map_bytes()
        if self.map_bytes[p] != kept:
            problems.append("map_bytes differ from a recomputation")
        if self.fits[p] != kept_fits:
            problems.append("fits differ from a recomputation")
        anchored = 0
        for start in list(CREATURE_CELLS) + self.entrances:
            anchored |= self.flood(p, start)[2]
        parent, members, reach = self.parent[p], self.members[p], self.reach[p]
        for cell in range(NUM_CELLS):
            if (parent[cell] >= 0) != bool(pipes[cell] or self.entrance_at[cell] >= 0):
                problems.append(f"network forest: {cell_name(cell)} is a node iff it holds a pipe or an entrance")
            elif parent[cell] == cell:
                creatures, entrances, cells = self.flood(p, cell)
                if (members[cell], reach[cell]) != (cells, creatures | entrances << 4):
                    problems.append(f"network at {cell_name(cell)}: union-find and flood fill disagree")
        for cell in range(NUM_CELLS):
            if pipes[cell] and (not anchored >> cell & 1 or not self._blocked_free(cell)):
                problems.append(f"pipe at {cell_name(cell)} off any network, or on a creature or entrance")
            expected = 0
            if self._free(pipes, cell):
                for bit, nb in NEIGHBOURS[cell]:
                    if CREATURE_AT[nb] >= 0 or self.entrance_at[nb] >= 0 or pipes[nb] & OPPOSITE[bit]:
                        expected |= bit
            if self.accept[p][cell] != expected:
                problems.append(f"accepting sides at {cell_name(cell)}: {self.accept[p][cell]}, expected {expected}")
        return problems

    def _blocked_free(self, cell: int) -> bool:
        return self.entrance_at[cell] < 0 and CREATURE_AT[cell] < 0

    # --- text ------------------------------------------------------------------------------------------
    def action_to_str(self, action: int) -> str:
        if not 0 <= action < NUM_ACTIONS:
            return f"<no action {action}>"
        if action < PIPE_BASE:
            trait, c = divmod(action - TRAIT_BASE, NUM_CREATURES)
            return f"draw a {TRAITS[trait]} on creature {CREATURE_NAMES[c]}"
        if action < DAMAGE_BASE:
            cell, pattern = divmod(action - PIPE_BASE, NUM_PATTERNS)
            piece, openings = PATTERNS[pattern]
            return f"draw pipe {PIECES[piece]} ({openings_str(openings)}) at {cell_name(cell)}"
        if action < ENTRANCE_BASE:
            c, trait = divmod(action - DAMAGE_BASE, 3)
            return f"cross off a {TRAITS[trait]} on creature {CREATURE_NAMES[c]}"
        return f"place the next sewer entrance at {cell_name(action - ENTRANCE_BASE)}"

    def _decision_str(self) -> str:
        p = self.current_player
        if self.phase == "entrance":
            return f"choose where entrance {len(self.entrances) + 1} goes"
        if self.phase in ("trap", "snack"):
            return f"cross off a trait of creature {CREATURE_NAMES[self.pending[p][0]]} ({self.phase} damage)"
        if any(self.traits_left[p]):
            return "draw traits: " + " ".join(TRAITS[t] for t in range(3) for _ in range(self.traits_left[p][t]))
        return "draw pipes: " + " ".join(PIECES[i] for i in range(3) for _ in range(self.pipes_left[p][i]))

    def render_text(self, viewer: int | None = None, names: Sequence[str] | None = None) -> str:
        """Every sheet, the row and the dice are public; only the deck's order is hidden."""
        names = list(names or [f"seat {p}" for p in range(self.num_players)])
        if self.game_over:
            status = "game over (" + "; ".join(self.end_reasons) + ")"
        else:
            status = f"{names[self.current_player]} to act: {self._decision_str()}"
        lines = [f"Snack Time, round {self.round}: {status}"]
        traps_left = sum(1 for c in self.deck if c >= FIRST_TRAP)
        lines.append(f"Deck: {len(self.deck)} cards ({traps_left} traps); discard: {len(self.discard)}")
        for k, card in enumerate(self.row):
            cell = cell_name(self.entrances[k]) if k < len(self.entrances) else "?"
            trap = "  [trap lies here]" if self.trap_spots[k] else ""
            lines.append(f"  entrance {k + 1} ({cell}): {card_str(card)}{trap}")
        if self.dice_traits:
            rat = ""
            if self.rat_roll is not None:
                rat = f" | rat {cell_name(self.rat_roll)}"
            lines.append(
                "Dice: " + " ".join(TRAITS[t] for t in self.dice_traits) + " | "
                + " ".join(PIECES[i] for i in self.dice_pipes) + rat
            )
        for event in self.events:
            lines.append("  " + self._event_str(event, names))
        for p in range(self.num_players):
            lines.append("")
            lines.append(f"{names[p]}: {self.score(p)} points, badges {self.badges[p]}/{BADGES}"
                         + (f" -> {self.solo_rank(p)}" if self.game_over and self.num_players == 1 else ""))
            lines += self.render_map(p)
            for c in range(NUM_CREATURES):
                traits = " ".join(TRAITS[t] for t in range(3) for _ in range(self.healthy[p][c][t]))
                crossed = " ".join("x" + TRAITS[t] for t in range(3) for _ in range(self.crossed[p][c][t]))
                eaten = ", ".join(str(PED_VALUE[card]) for card in self.snacks[p][c]) or "-"
                ents = ",".join(str(k + 1) for k in range(NUM_ENTRANCES) if self.links[p][c] >> k & 1) or "-"
                value, satisfaction = self.creature_points(p, c)
                lines.append(
                    f"  {CREATURE_NAMES[c]}: traits [{' '.join(filter(None, (traits, crossed))) or '-'}] "
                    f"snacks [{eaten}] entrances [{ents}] = {value} + {satisfaction}"
                )
        return "\n".join(lines)

    def _event_str(self, event: list, names: Sequence[str]) -> str:
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

    def render_map(self, p: int) -> list[str]:
        pipes, rats = self.pipes[p], self.rats
        show_rats = self.config["rat_snacks"]

        def openings(cell: int) -> int:
            return ALL_SIDES if self.entrance_at[cell] >= 0 or CREATURE_AT[cell] >= 0 else pipes[cell]

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
                text += self._glyph(p, cell)
            if show_rats:
                text += "      " + " ".join(str(rats[cell_of(r, c)] or "·") for c in range(SIZE))
            lines.append(f"  {r} {text}")
        return lines

    def _glyph(self, p: int, cell: int) -> str:
        if CREATURE_AT[cell] >= 0:
            return "◤◥◣◢"[CREATURE_AT[cell]]
        if self.entrance_at[cell] >= 0:
            return "①②③④⑤"[self.entrance_at[cell]]
        return GLYPHS.get(self.pipes[p][cell], "·")


GLYPHS = {
    N | S: "│", E | W: "─", N | E: "└", E | S: "┌", S | W: "┐", W | N: "┘",
    N | E | S: "├", E | S | W: "┬", S | W | N: "┤", W | N | E: "┴",
}
PIPE_DICE_TOTAL = 3
