"""Snack Time's observation encoder: one flat float32 vector from a seat's point of view.

Order: the viewer's map, the marks every sheet shares (rats, entrances), the
viewer's creatures and round state, the table (row, traps, unseen cards,
deck), the options, then the opponents, seat-relative: opponent r is the player
r seats to the left. Map blocks are cell-major, cell = row * 8 + col. Every
sheet, the row and the dice are public; the deck's order is not encoded (only
its size, its traps, and which pedestrians have not been turned over yet,
which every player can count).

Caches, and why they cannot go stale: an observation is computed at every
step and a step changes a few of its entries, so each seat keeps its last
vector and rewrites only the entries whose content changed. Every cache is
keyed on the game state the encoder reads itself, at every call: a part is
rewritten when the state it encodes differs from the copy kept of what the
vector shows now, never because the rules said something changed (the rules
keep nothing for the encoder). So any change of the state, by play, by hand
or another game handed in, shows at the next call, and a new encoder gives
the same vector as one that has encoded a thousand games. In order:
- the map: the cells whose pipe, accepting sides (`SnackTime.accept`) or
  connection to a creature (`wet`) differ from what the view shows;
- the dice, the dice left to draw, and the one-hot turn entries;
- the blocks the seats share (map marks, the table) and each seat's summary
  (score, badges, snacks and traits per creature: the viewer's own score and
  badges, and the opponents' blocks), built once per content in the encoder
  and tagged with a serial number, which tells a seat whether it holds the
  latest;
- the viewer's creatures: a creature's entries are rebuilt only when its
  traits, crossed traits, snacks or links differ.
Blocks are written through a memoryview of the seat's vector, from prebuilt
float arrays; the caller gets a copy. Pickling or copying an encoder keeps
its settings and drops its caches (they hold memoryviews, and a fresh
encoder encodes alike).
"""

from __future__ import annotations

import struct
from array import array

import numpy as np

from snack_envs.core.layout import Field, ObservationLayout
from snack_envs.snack_time.components import (
    BADGE,
    BADGES,
    DAMAGE,
    E,
    FIRST_TRAP,
    MAX_RATS_PER_CELL,
    MAX_VALUE,
    N,
    NUM_CELLS,
    NUM_CREATURES,
    NUM_ENTRANCES,
    NUM_PEDESTRIANS,
    PED_CONSEQUENCE,
    PED_NEEDS,
    PED_VALUE,
    S,
    SIZE,
    TRAIT_SLOTS,
    W,
)
from snack_envs.snack_time.actions import ENTRANCE_BASE, PIPE_BASE
from snack_envs.snack_time.rules import MAX_PLAYERS, MAX_ROUNDS, NUM_PATTERNS, SnackTime

OPPONENTS = MAX_PLAYERS - 1
CREATURE_FEATURES = 15
OPPONENT_FEATURES = 2 + 2 * NUM_CREATURES
LOW_SCORE, HIGH_SCORE = SnackTime.score_range

LAYOUT = ObservationLayout(
    [
        Field(
            "own_map", NUM_CELLS * 6, 1,
            "own map, cell-major (`reshape(8, 8, 6)`), per cell: pipe openings N, E, S, W; 1 if empty and next "
            "to an opening (a pipe can be drawn there now); 1 for a pipe or entrance whose network reaches a creature",
        ),
        Field(
            "map_marks", NUM_CELLS * 6, MAX_RATS_PER_CELL,
            "marks shared by every sheet, cell-major (`reshape(8, 8, 6)`), per cell: rats drawn there (0..4, Rat "
            "Snacks); entrance 1..5 there (one-hot)",
        ),
        Field(
            "own_creatures", NUM_CREATURES * CREATURE_FEATURES, 3 * MAX_VALUE,
            "per creature NW, NE, SW, SE: uncrossed Eye/Tooth/Tentacle, crossed Eye/Tooth/Tentacle, open slots, "
            "snacks eaten, their value, satisfaction, connected to entrance 1..5",
        ),
        Field("own_badges", 1, BADGES, "badges crossed off"),
        Field("own_score", 1, HIGH_SCORE, "own score as the sheet stands", low=LOW_SCORE),
        Field("dice", 6, 3, "this round's dice: Eyes, Teeth, Tentacles, then I, L, T pieces"),
        Field("own_to_draw", 6, 3, "dice the viewer has still to draw this round: traits, then pieces"),
        Field("phase", 5, 1, "one-hot decision now: entrance choice, trap damage, traits, pipes, snack damage"),
        Field("own_damage_target", NUM_CREATURES, 1, "one-hot: the viewer's creature losing a trait now"),
        Field("round", 1, MAX_ROUNDS, "round number"),
        Field("last_round", 1, 1, "1 once an end condition has come up: this round is the last"),
        Field(
            "row", NUM_ENTRANCES * 6, MAX_VALUE,
            "per entrance 1..5, the pedestrian there: value, Eyes, Teeth, Tentacles needed, Badge, Damage",
        ),
        Field("traps_lying", NUM_ENTRANCES, 1, "a trap card lies on location 1..5"),
        Field("unseen", NUM_PEDESTRIANS, 1, "pedestrian cards not turned over yet (still in the deck)"),
        Field("deck", 2, NUM_PEDESTRIANS, "cards in the deck, traps among them"),
        Field("options", 3, 1, "rat_snacks, advanced_entrances, advanced_traps"),
        Field(
            "opponents", OPPONENTS * OPPONENT_FEATURES, HIGH_SCORE,
            "per opponent, seat-relative: score, badges, snacks eaten per creature, uncrossed traits per creature",
            low=LOW_SCORE,
        ),
        Field("to_act", MAX_PLAYERS, 1, "one-hot: the player to act, viewer first"),
        Field("seated", MAX_PLAYERS, 1, "1 for each seat in play, viewer first"),
    ]
)


# A cell of the own_map block as one byte, its "map code": the pipe's openings | CAN_TAKE_PIPE |
# REACHES_CREATURE; MAP_TABLE[code] -> the cell's 6 own_map entries.
CAN_TAKE_PIPE, REACHES_CREATURE = 16, 32
MAP_TABLE = np.array(
    [[b & N > 0, b & E > 0, b & S > 0, b & W > 0, b & CAN_TAKE_PIPE > 0, b & REACHES_CREATURE > 0] for b in range(64)],
    np.float32,
)
MAP_ROWS = tuple(array("f", row) for row in MAP_TABLE.tolist())  # the same, as arrays for memoryview writes
# LINK_ROWS[links as bits] -> the 5 "connected to entrance k" entries of a creature.
LINK_ROWS = tuple(array("f", [link >> k & 1 for k in range(NUM_ENTRANCES)]) for link in range(1 << NUM_ENTRANCES))
MAP_END = LAYOUT.slices["own_map"].stop
MARKS_END = LAYOUT.slices["map_marks"].stop
OWN_START = LAYOUT.slices["own_creatures"].start
BADGES_AT, SCORE_AT = LAYOUT.slices["own_badges"].start, LAYOUT.slices["own_score"].start
DICE_START, TO_DRAW_START = LAYOUT.slices["dice"].start, LAYOUT.slices["own_to_draw"].start
PHASE_START, TARGET_START = LAYOUT.slices["phase"].start, LAYOUT.slices["own_damage_target"].start
ROUND_AT, LAST_ROUND_AT = LAYOUT.slices["round"].start, LAYOUT.slices["last_round"].start
TABLE_START, TABLE_END = LAYOUT.slices["row"].start, LAYOUT.slices["deck"].stop
OPPONENTS_START = LAYOUT.slices["opponents"].start
TO_ACT_START = LAYOUT.slices["to_act"].start
PHASE_INDEX = {"entrance": 0, "trap": 1, "snack": 4}
ROW_FEATURES = tuple(
    (PED_VALUE[c], *PED_NEEDS[c], PED_CONSEQUENCE[c] == BADGE, PED_CONSEQUENCE[c] == DAMAGE)
    for c in range(NUM_PEDESTRIANS)
)
HEAD_FEATURES = CREATURE_FEATURES - NUM_ENTRANCES  # a creature's entries before its links
# Pack the table and sheet summary blocks (faster than array() from a list).
TABLE_STRUCT = struct.Struct(f"{TABLE_END - TABLE_START}f")
SUMMARY_STRUCT = struct.Struct(f"{OPPONENT_FEATURES}f")


def map_code(pipes: list[int], accept: list[int], wet: int, cell: int) -> int:
    """The map code of a cell (see MAP_TABLE) from a sheet's pipes, accepting sides and wet cells."""
    return pipes[cell] | (CAN_TAKE_PIPE if accept[cell] else 0) | (REACHES_CREATURE if wet >> cell & 1 else 0)


def packed_block(packer: struct.Struct, values) -> array:
    """`values` as a float32 array (through `packer`: faster than array() from a list)."""
    block = array("f")
    block.frombytes(packer.pack(*values))
    return block


class _SeatView:
    """One seat's last observation, kept whole, and copies of the state each of its parts shows
    (the template's zeros to begin with)."""

    __slots__ = ("buf", "mv", "map", "wet", "dice_traits", "dice_pipes", "traits_left", "pipes_left",
                 "hot", "marks", "round", "ending", "table", "healthy", "crossed", "snacks", "links", "summaries")

    def __init__(self, template: np.ndarray, num_players: int):
        self.buf = template.copy()
        self.mv = memoryview(self.buf)  # entries and blocks are written through it (cheaper than numpy's indexing)
        self.map = self.wet = 0  # the map shown (see `_write_map`) and its wet cells
        self.dice_traits, self.dice_pipes = [], []  # the dice the dice entries show (none: zeros)
        self.traits_left, self.pipes_left = [0, 0, 0], [0, 0, 0]  # the own_to_draw entries
        self.hot = (-1, -1, -1)  # the phase, own_damage_target and to_act entries set to 1 (-1: none)
        self.marks = self.table = -1  # serial of the shared block held
        self.round = self.ending = 0
        # The creatures shown: traits, crossed traits, snacks (copies; None: not written yet), links.
        self.healthy, self.crossed, self.snacks = [None] * NUM_CREATURES, [None] * NUM_CREATURES, [None] * NUM_CREATURES
        self.links = [0] * NUM_CREATURES
        self.summaries = [-1] * num_players  # serial of the sheet summary held, by relative seat (0: own)


class SnackTimeEncoder:
    layout = LAYOUT

    def __init__(self, num_players: int, config: dict):
        self.num_players = num_players
        self.config = dict(config)
        self.rat_snacks = config["rat_snacks"]
        self.template = LAYOUT.pack(
            {
                "options": [float(config[k]) for k in ("rat_snacks", "advanced_entrances", "advanced_traps")],
                "seated": [1.0] * num_players + [0.0] * (MAX_PLAYERS - num_players),
            }
        )
        # Each seat's last vector and what its parts show (see the module docstring). The caches below
        # are keyed by the content they encode, so they serve any games in any order.
        self._views = [_SeatView(self.template, num_players) for _ in range(num_players)]
        self._serial = 0
        self._marks: tuple = (None, None, None, -1, 0)  # (rats, entrances, block, serial, cells with rats as bits)
        self._table: tuple = (None, None, None, None, -1)  # (row, deck, trap_spots, block, serial)
        # By seat: ((healthy, snacks, badges, wet cells with rats, marks serial), block, serial).
        self._summaries: list[tuple] = [(None, None, -1)] * num_players
        self._heads: dict[tuple, array] = {}  # creature content -> its first HEAD_FEATURES entries

    def __getstate__(self) -> dict:
        """Pickled and copied without the caches (they hold memoryviews; a fresh encoder encodes alike)."""
        return {"num_players": self.num_players, "config": self.config}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["num_players"], state["config"])

    def _next_serial(self) -> int:
        self._serial += 1
        return self._serial

    # --- blocks, built once per content ------------------------------------------------------------------
    def encode_marks(self, game: SnackTime) -> None:
        """Build the map_marks block (rats and entrances) of `game` into the cache: it changes at most
        once a round."""
        marks = [0] * (NUM_CELLS * 6)
        marks[::6] = game.rats
        for k, cell in enumerate(game.entrances):
            marks[cell * 6 + 1 + k] = 1
        rat_bits = sum(1 << cell for cell, count in enumerate(game.rats) if count)
        self._marks = (list(game.rats), list(game.entrances), array("f", marks), self._next_serial(), rat_bits)

    def encode_table(self, game: SnackTime) -> None:
        """Build the block of the row, the traps, the unseen pedestrians and the deck of `game` into
        the cache: the same until the row moves."""
        values: list = []
        for card in game.row:
            values += ROW_FEATURES[card]
        values += game.trap_spots
        unseen = [0] * NUM_PEDESTRIANS
        traps = 0
        for card in game.deck:
            if card < FIRST_TRAP:
                unseen[card] = 1
            else:
                traps += 1
        values += unseen
        values += (len(game.deck), traps)
        block = packed_block(TABLE_STRUCT, values)
        self._table = (list(game.row), list(game.deck), list(game.trap_spots), block, self._next_serial())

    def encode_creature(self, have: list[int], lost: list[int], eaten: list[int]) -> array:
        """A creature's entries but its links: traits, crossed traits, open slots, snacks, their
        value, satisfaction."""
        value = sum([PED_VALUE[card] for card in eaten])
        key = (*have, *lost, len(eaten), value)
        head = self._heads.get(key)
        if head is None:
            traits = sum(have)
            entries = [*have, *lost, TRAIT_SLOTS - traits - sum(lost), len(eaten), value, len(eaten) * traits]
            head = self._heads[key] = array("f", entries)
        return head

    def encode_summary(self, game: SnackTime, p: int, marks_serial: int, rat_bits: int) -> None:
        """Build seat p's summary into the cache: [score, badges, snacks per creature, traits per
        creature]. With Rat Snacks, `marks_serial` and `rat_bits` are the marks block's serial and
        the cells holding rats (the rats on cells that reach a creature count in the score); else
        both are 0. The cache keeps the content it was made of (see `_write_summaries`)."""
        (h0, h1, h2, h3), (e0, e1, e2, e3) = game.healthy[p], game.snacks[p]
        block = packed_block(SUMMARY_STRUCT, (
            game.score(p), game.badges[p], len(e0), len(e1), len(e2), len(e3), sum(h0), sum(h1), sum(h2), sum(h3),
        ))
        content = ([h0[:], h1[:], h2[:], h3[:]], [e0[:], e1[:], e2[:], e3[:]], game.badges[p], game.wet[p] & rat_bits,
                   marks_serial)
        self._summaries[p] = (content, block, self._next_serial())

    # --- the vector --------------------------------------------------------------------------------------
    def encode(self, game: SnackTime, seat: int) -> np.ndarray:
        view = self._views[seat]
        self._write_map(view, game.pipes[seat], game.accept[seat], game.wet[seat])
        self._write_turn(view, game, seat)
        marks_serial, rat_bits = self._write_shared(view, game)
        if not self.rat_snacks:
            marks_serial = rat_bits = 0  # the rats count for nothing
        self._write_creatures(view, game.healthy[seat], game.crossed[seat], game.snacks[seat], game.links[seat])
        self._write_summaries(view, game, seat, marks_serial, rat_bits)
        return view.buf.copy()

    def _write_map(self, view: _SeatView, pipes: list[int], accept: list[int], wet: int) -> None:
        """own_map: the cells whose pipe, accepting sides or wetness differ from what the view shows."""
        # A byte a cell: the pipe's openings, its accepting sides << 4 (each at most 15).
        shown = int.from_bytes(bytearray(pipes), "little") | int.from_bytes(bytearray(accept), "little") << 4
        if shown == view.map and wet == view.wet:
            return
        cells = wet ^ view.wet  # the cells to rewrite, as bits
        changed = shown ^ view.map
        while changed:
            cell = ((changed & -changed).bit_length() - 1) >> 3  # a byte that changed
            changed &= ~(0xFF << (cell << 3))
            cells |= 1 << cell
        view.map, view.wet = shown, wet
        if cells.bit_count() > 16:  # a new game, say: the whole block in one lookup
            codes = [map_code(pipes, accept, wet, cell) for cell in range(NUM_CELLS)]
            MAP_TABLE.take(codes, 0, view.buf[:MAP_END].reshape(NUM_CELLS, 6))
            return
        mv = view.mv
        while cells:
            low = cells & -cells
            cells ^= low
            cell = low.bit_length() - 1
            mv[cell * 6:cell * 6 + 6] = MAP_ROWS[map_code(pipes, accept, wet, cell)]

    def _write_turn(self, view: _SeatView, game: SnackTime, seat: int) -> None:
        """dice, own_to_draw, phase, own_damage_target, to_act: the entries most steps change."""
        mv = view.mv
        dice_traits, dice_pipes = game.dice_traits, game.dice_pipes
        if dice_traits != view.dice_traits or dice_pipes != view.dice_pipes:
            view.dice_traits, view.dice_pipes = list(dice_traits), list(dice_pipes)
            mv[DICE_START], mv[DICE_START + 1], mv[DICE_START + 2] = (
                dice_traits.count(0), dice_traits.count(1), dice_traits.count(2))
            mv[DICE_START + 3], mv[DICE_START + 4], mv[DICE_START + 5] = (
                dice_pipes.count(0), dice_pipes.count(1), dice_pipes.count(2))
        left = game.traits_left[seat]
        if left != view.traits_left:
            mv[TO_DRAW_START], mv[TO_DRAW_START + 1], mv[TO_DRAW_START + 2] = left
            view.traits_left = list(left)
        left = game.pipes_left[seat]
        if left != view.pipes_left:
            mv[TO_DRAW_START + 3], mv[TO_DRAW_START + 4], mv[TO_DRAW_START + 5] = left
            view.pipes_left = list(left)
        if game.game_over:
            hot = (-1, -1, -1)
        else:  # the phase, the damage target and the player to act, one-hot
            actor = game.current_player
            phase = game.phase
            target_at = -1
            if phase == "place":
                phase_at = PHASE_START + (2 if any(game.traits_left[actor]) else 3)
            else:
                phase_at = PHASE_START + PHASE_INDEX[phase]
                if actor == seat and phase != "entrance":
                    target_at = TARGET_START + game.pending[seat][0]
            hot = (phase_at, target_at, TO_ACT_START + (actor - seat) % self.num_players)
        if hot != view.hot:
            for old, new in zip(view.hot, hot):
                if old != new:
                    if old >= 0:
                        mv[old] = 0
                    if new >= 0:
                        mv[new] = 1
            view.hot = hot

    def _write_shared(self, view: _SeatView, game: SnackTime) -> tuple[int, int]:
        """map_marks, round, last_round and the table; returns the marks' serial and the cells with rats."""
        mv = view.mv
        rats, entrances, block, marks_serial, rat_bits = self._marks
        if rats != game.rats or entrances != game.entrances:
            self.encode_marks(game)
            rats, entrances, block, marks_serial, rat_bits = self._marks
        if view.marks != marks_serial:
            mv[MAP_END:MARKS_END] = block
            view.marks = marks_serial
        if game.round != view.round:
            mv[ROUND_AT] = view.round = game.round
        if game.ending != view.ending:
            mv[LAST_ROUND_AT] = view.ending = int(game.ending)
        row, deck, traps_lying, block, serial = self._table
        if row != game.row or deck != game.deck or traps_lying != game.trap_spots:
            self.encode_table(game)
            row, deck, traps_lying, block, serial = self._table
        if view.table != serial:
            mv[TABLE_START:TABLE_END] = block
            view.table = serial
        return marks_serial, rat_bits

    def _write_creatures(self, view: _SeatView, healthy: list, crossed: list, snacks: list, links: list) -> None:
        """own_creatures: only the creatures whose traits, crossed traits, snacks or links changed."""
        mv = view.mv
        if view.healthy != healthy or view.crossed != crossed or view.snacks != snacks:
            for c in range(NUM_CREATURES):
                have, lost, eaten = healthy[c], crossed[c], snacks[c]
                if view.healthy[c] != have or view.crossed[c] != lost or view.snacks[c] != eaten:
                    start = OWN_START + c * CREATURE_FEATURES
                    mv[start:start + HEAD_FEATURES] = self.encode_creature(have, lost, eaten)
                    view.healthy[c], view.crossed[c], view.snacks[c] = list(have), list(lost), list(eaten)
        if view.links != links:
            for c in range(NUM_CREATURES):
                if view.links[c] != links[c]:
                    view.links[c] = link = links[c]
                    start = OWN_START + c * CREATURE_FEATURES + HEAD_FEATURES
                    mv[start:start + NUM_ENTRANCES] = LINK_ROWS[link]

    def _write_summaries(self, view: _SeatView, game: SnackTime, seat: int, marks_serial: int, rat_bits: int) -> None:
        """own_badges and own_score from the viewer's sheet summary, and the opponents' summaries,
        seat-relative; a summary is rebuilt when the content it was made of changed, and written
        when the view does not hold it (its serial)."""
        n = self.num_players
        healthy, snacks, badges, wet = game.healthy, game.snacks, game.badges, game.wet
        for r in range(n):
            p = (seat + r) % n
            content, block, serial = self._summaries[p]
            if content != (healthy[p], snacks[p], badges[p], wet[p] & rat_bits, marks_serial):
                self.encode_summary(game, p, marks_serial, rat_bits)
                content, block, serial = self._summaries[p]
            if view.summaries[r] != serial:
                view.summaries[r] = serial
                if r == 0:
                    view.mv[SCORE_AT], view.mv[BADGES_AT] = block[0], block[1]
                else:
                    start = OPPONENTS_START + (r - 1) * OPPONENT_FEATURES
                    view.mv[start:start + OPPONENT_FEATURES] = block


# The map as planes for a convolutional policy (snack_envs.networks.GridPolicy): the cell-major
# own_map and map_marks blocks, and the action blocks bound to a cell (pipes, entrances).
GRID = {
    "height": SIZE,
    "width": SIZE,
    "planes": [[LAYOUT.slices["own_map"].start, 6], [LAYOUT.slices["map_marks"].start, 6]],
    "cell_actions": [[PIPE_BASE, NUM_PATTERNS], [ENTRANCE_BASE, 1]],
    "features": "snack_envs.snack_time.map_features:map_features",  # networks and pipe distances (torch)
}
