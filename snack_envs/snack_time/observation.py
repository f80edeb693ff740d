"""Snack Time's observation encoder: one flat float32 vector from a seat's point of view.

Order: the viewer's map, the marks every sheet shares (rats, entrances), the
viewer's creatures and round state, the table (row, traps, unseen cards,
deck), the options, then the opponents, seat-relative: opponent r is the player
r seats to the left. Map blocks are cell-major, cell = row * 8 + col. Every
sheet, the row and the dice are public; the deck's order is not encoded (only
its size, its traps, and which pedestrians have not been turned over yet,
which every player can count).

Speed: an observation is computed at every step, and a step changes a few of
its entries, so each seat keeps its last vector and rewrites only what changed:
- the map, the dice (rolled and left to draw) and the one-hot turn entries are
  compared at every call (the map as one int made of the rules' `map_bytes`,
  then only the cells whose byte differs are rewritten);
- the rest is looked at only when the rules' revision counters moved
  (`SnackTime.revision` for what the seats share, `sheet_revisions[p]` for p's
  sheet), and then by content: a block is rebuilt only if the content it
  encodes differs from what it was built from. The shared blocks (marks,
  table) and the opponents' summaries are built once per content and tagged
  with a serial number, which tells a seat whether it holds the latest.
Blocks are written through a memoryview from prebuilt float arrays; the caller
gets a copy. After editing a game's state by hand, call `game.state_changed()`
before encoding it again (see `SnackTime.state_changed`).
"""

from __future__ import annotations

import struct
from array import array

import numpy as np

from snack_envs.core.layout import Field, ObservationLayout
from snack_envs.snack_time.components import (
    BADGE,
    BADGE_PENALTY,
    BADGES,
    BADGES_PER_PENALTY,
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
from snack_envs.snack_time.rules import (
    CAN_TAKE_PIPE, ENTRANCE_BASE, MAX_PLAYERS, MAX_ROUNDS, NUM_PATTERNS, PIPE_BASE, REACHES_CREATURE, SnackTime,
)

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


# MAP_TABLE[byte of the rules' `map_bytes`] -> the 6 `own_map` channels of a cell.
MAP_TABLE = np.array(
    [[b & N > 0, b & E > 0, b & S > 0, b & W > 0, b & CAN_TAKE_PIPE > 0, b & REACHES_CREATURE > 0] for b in range(64)],
    np.float32,
)
MAP_ROWS = tuple(array("f", row) for row in MAP_TABLE.tolist())  # the same, as arrays for memoryview writes
# LINK_ROWS[links as bits] -> the 5 "connected to entrance k" entries of a creature.
LINK_ROWS = tuple(array("f", [link >> k & 1 for k in range(NUM_ENTRANCES)]) for link in range(1 << NUM_ENTRANCES))
MAP_END = LAYOUT.slices["own_map"].stop
MARKS_END = LAYOUT.slices["map_marks"].stop
OWN_START, CREATURES_END = LAYOUT.slices["own_creatures"].start, LAYOUT.slices["own_creatures"].stop
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
# Pack the table and opponent blocks (faster than array() from a list).
TABLE_STRUCT = struct.Struct(f"{TABLE_END - TABLE_START}f")
OPPONENT_STRUCT = struct.Struct(f"{OPPONENT_FEATURES}f")


class _SeatView:
    """One seat's last observation, kept whole, and the content each of its parts was built from
    (what the vector holds now: the template's zeros to begin with)."""

    __slots__ = ("buf", "mv", "map", "map_rows", "game", "revision", "sheets", "marks", "rat_bits", "sheet",
                 "points", "rat_key", "rat_points", "badges", "score", "dice_traits", "dice_pipes", "traits_left",
                 "pipes_left", "hot", "round", "ending", "table", "opponents")

    def __init__(self, template: np.ndarray, num_players: int):
        self.buf = template.copy()
        self.mv = memoryview(self.buf)  # entries and blocks are written through it (cheaper than numpy's indexing)
        self.map = int.from_bytes(bytes(NUM_CELLS), "little")  # the map_bytes the own_map block shows, as an int
        self.map_rows = self.buf[:MAP_END].reshape(NUM_CELLS, 6)
        # The game, its `revision` and `sheet_revisions` the rest was last checked against.
        self.game: SnackTime | None = None
        self.revision = -1
        self.sheets: list[int] = []
        self.marks = self.table = -1  # serial of the shared block held
        self.rat_bits = 0  # the cells with rats in the marks held, as bits
        # The creatures block's content: links, healthy, crossed, snacks (copies of the creatures'),
        # and each creature's points; None for a creature not written yet.
        self.sheet = tuple([None] * NUM_CREATURES for _ in range(4))
        self.points = [0] * NUM_CREATURES
        self.rat_key: tuple | None = None
        self.rat_points = 0
        self.badges = self.score = self.round = self.ending = 0
        self.dice_traits, self.dice_pipes = [], []  # the dice the dice entries show (none: zeros)
        self.traits_left, self.pipes_left = [0, 0, 0], [0, 0, 0]  # the own_to_draw entries
        self.hot = (-1, -1, -1)  # the phase, own_damage_target and to_act entries set to 1 (-1: none)
        self.opponents = [-1] * num_players  # serial of the opponent block held, by relative seat


class SnackTimeEncoder:
    layout = LAYOUT

    def __init__(self, num_players: int, config: dict):
        self.num_players = num_players
        self.rat_snacks = config["rat_snacks"]
        self.template = LAYOUT.pack(
            {
                "options": [float(config[k]) for k in ("rat_snacks", "advanced_entrances", "advanced_traps")],
                "seated": [1.0] * num_players + [0.0] * (MAX_PLAYERS - num_players),
            }
        )
        # Each seat's last vector and what its parts were built from (see the module docstring). The
        # caches below are keyed by the content they encode, so they serve any games in any order.
        self._views = [_SeatView(self.template, num_players) for _ in range(num_players)]
        self._serial = 0
        self._marks: tuple = (None, None, None, -1, 0)  # (rats, entrances, block, serial, cells with rats as bits)
        self._table: tuple = (None, None, None, None, -1)  # (row, deck, trap_spots, block, serial)
        # By seat: (badges, wet cells with rats, rats serial, healthy, snacks, block, serial).
        self._opponents: list[tuple] = [(None,) * 7] * num_players
        self._heads: dict[tuple, tuple] = {}  # creature content -> (its first HEAD_FEATURES entries, points)

    def _next_serial(self) -> int:
        self._serial += 1
        return self._serial

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
        block = memoryview(TABLE_STRUCT.pack(*values)).cast("f")
        self._table = (list(game.row), list(game.deck), list(game.trap_spots), block, self._next_serial())

    def encode_creature(self, have: list[int], lost: list[int], eaten: list[int]) -> tuple[array, int]:
        """A creature's entries but its links (traits, crossed traits, open slots, snacks, their
        value, satisfaction) and its points (snacks + satisfaction)."""
        value = sum([PED_VALUE[card] for card in eaten]) if eaten else 0
        key = (*have, *lost, len(eaten), value)
        head = self._heads.get(key)
        if head is None:
            traits = have[0] + have[1] + have[2]
            satisfaction = len(eaten) * traits
            open_slots = TRAIT_SLOTS - traits - lost[0] - lost[1] - lost[2]
            entries = [*have, *lost, open_slots, len(eaten), value, satisfaction]
            head = self._heads[key] = (array("f", entries), value + satisfaction)
        return head

    def encode_opponent(self, game: SnackTime, p: int, rats_serial: int, rat_bits: int) -> tuple[memoryview, int]:
        """Build opponent p's score and sheet summary into the cache: [score, badges, snacks per
        creature, traits per creature]; return it and its serial. With Rat Snacks, `rats_serial` and
        `rat_bits` are the marks block's serial and the cells holding rats (the rats on wet cells
        count in the score); else both are 0."""
        (h0, h1, h2, h3), (e0, e1, e2, e3) = game.healthy[p], game.snacks[p]
        block = memoryview(OPPONENT_STRUCT.pack(
            game.score(p), game.badges[p], len(e0), len(e1), len(e2), len(e3), sum(h0), sum(h1), sum(h2), sum(h3),
        )).cast("f")
        serial = self._next_serial()
        self._opponents[p] = (
            game.badges[p], game.wet[p] & rat_bits, rats_serial, [list(h) for h in game.healthy[p]],
            [list(e) for e in game.snacks[p]], block, serial,
        )
        return block, serial

    def encode(self, game: SnackTime, seat: int) -> np.ndarray:
        n = self.num_players
        view = self._views[seat]
        mv = view.mv
        # own_map: the cells whose byte in the rules' `map_bytes` changed (a step changes a few).
        map_bytes = game.map_bytes[seat]
        held = int.from_bytes(map_bytes, "little")
        changed = held ^ view.map
        if changed:
            view.map = held
            if changed.bit_count() > 16:  # a new game, say: the whole block in one lookup
                MAP_TABLE.take(np.frombuffer(map_bytes, np.uint8), 0, view.map_rows)
            else:
                while changed:
                    cell = ((changed & -changed).bit_length() - 1) >> 3
                    mv[cell * 6:cell * 6 + 6] = MAP_ROWS[map_bytes[cell]]
                    changed &= ~(0xFF << (cell << 3))
        # dice, own_to_draw, phase, own_damage_target, to_act: the entries most steps change.
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
                left = game.traits_left[actor]
                phase_at = PHASE_START + (2 if left[0] or left[1] or left[2] else 3)
            else:
                phase_at = PHASE_START + PHASE_INDEX[phase]
                if actor == seat and phase != "entrance":
                    target_at = TARGET_START + game.pending[seat][0]
            hot = (phase_at, target_at, TO_ACT_START + (actor - seat) % n)
        if hot != view.hot:
            for old, new in zip(view.hot, hot):
                if old != new:
                    if old >= 0:
                        mv[old] = 0
                    if new >= 0:
                        mv[new] = 1
            view.hot = hot
        # The rest changes only with the rules' revisions (most pipe placements leave them).
        sheets = game.sheet_revisions
        held_sheets = view.sheets if view.game is game else None  # None: check every sheet
        if held_sheets is not None and view.revision == game.revision:
            if held_sheets == sheets:
                return view.buf.copy()
            marks_serial, rat_bits = view.marks, view.rat_bits  # the marks, dice, round and table held still hold
        else:
            view.game, view.revision = game, game.revision
            # map_marks: shared by the seats.
            rats, entrances, block, marks_serial, rat_bits = self._marks
            if rats != game.rats or entrances != game.entrances:
                self.encode_marks(game)
                rats, entrances, block, marks_serial, rat_bits = self._marks
            if view.marks != marks_serial:
                mv[MAP_END:MARKS_END] = block
                view.marks, view.rat_bits = marks_serial, rat_bits
                if self.rat_snacks:
                    held_sheets = None  # the rats count in every score
            # round, last_round.
            if game.round != view.round:
                mv[ROUND_AT] = view.round = game.round
            if game.ending != view.ending:
                mv[LAST_ROUND_AT] = view.ending = int(game.ending)
            # The table: shared by the seats.
            row, deck, traps_lying, block, serial = self._table
            if row != game.row or deck != game.deck or traps_lying != game.trap_spots:
                self.encode_table(game)
                row, deck, traps_lying, block, serial = self._table
            if view.table != serial:
                mv[TABLE_START:TABLE_END] = block
                view.table = serial
        view.sheets = list(sheets)
        if not self.rat_snacks:
            marks_serial = rat_bits = 0  # the rats count for nothing
        if held_sheets is None or held_sheets[seat] != sheets[seat]:
            # own_creatures: only the creatures whose content changed.
            healthy, crossed, snacks = game.healthy[seat], game.crossed[seat], game.snacks[seat]
            links = game.links[seat]
            held_links, held_healthy, held_crossed, held_snacks = view.sheet
            if held_healthy != healthy or held_crossed != crossed or held_snacks != snacks:
                for c in range(NUM_CREATURES):
                    have, lost, eaten = healthy[c], crossed[c], snacks[c]
                    if held_healthy[c] != have or held_crossed[c] != lost or held_snacks[c] != eaten:
                        start = OWN_START + c * CREATURE_FEATURES
                        mv[start:start + HEAD_FEATURES], view.points[c] = self.encode_creature(have, lost, eaten)
                        held_healthy[c], held_crossed[c], held_snacks[c] = list(have), list(lost), list(eaten)
            if held_links != links:
                for c in range(NUM_CREATURES):
                    if held_links[c] != links[c]:
                        held_links[c] = link = links[c]
                        start = OWN_START + c * CREATURE_FEATURES + HEAD_FEATURES
                        mv[start:start + NUM_ENTRANCES] = LINK_ROWS[link]
            # own_badges, own_score.
            points = view.points
            badges = game.badges[seat]
            score = points[0] + points[1] + points[2] + points[3] - badges // BADGES_PER_PENALTY * BADGE_PENALTY
            if self.rat_snacks:  # the rats on cells that reach a creature
                rat_key = (game.wet[seat] & rat_bits, marks_serial)
                if view.rat_key != rat_key:
                    view.rat_key, view.rat_points = rat_key, game.rat_points(seat)
                score += view.rat_points
            if badges != view.badges:
                mv[BADGES_AT] = view.badges = badges
            if score != view.score:
                mv[SCORE_AT] = view.score = score
        # The opponents, seat-relative: those whose sheet changed.
        if n > 1:
            held = view.opponents
            opponents = self._opponents
            for r in range(1, n):
                p = (seat + r) % n
                if held_sheets is not None and held_sheets[p] == sheets[p]:
                    continue
                badges, wet, rats, healthy, snacks, block, serial = opponents[p]
                if (
                    badges != game.badges[p] or healthy != game.healthy[p] or snacks != game.snacks[p]
                    or rats != marks_serial or wet != game.wet[p] & rat_bits
                ):
                    block, serial = self.encode_opponent(game, p, marks_serial, rat_bits)
                if held[r] != serial:
                    start = OPPONENTS_START + (r - 1) * OPPONENT_FEATURES
                    mv[start:start + OPPONENT_FEATURES] = block
                    held[r] = serial
        return view.buf.copy()


# The map as planes for a convolutional policy (snack_envs.networks.GridPolicy): the cell-major
# own_map and map_marks blocks, and the action blocks bound to a cell (pipes, entrances).
GRID = {
    "height": SIZE,
    "width": SIZE,
    "planes": [[LAYOUT.slices["own_map"].start, 6], [LAYOUT.slices["map_marks"].start, 6]],
    "cell_actions": [[PIPE_BASE, NUM_PATTERNS], [ENTRANCE_BASE, 1]],
    "features": "snack_envs.snack_time.map_features:map_features",  # networks and pipe distances (torch)
}
