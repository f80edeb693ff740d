"""Snack Time's observation encoder: one flat float32 vector from a seat's point of view.

Order: the viewer's map, the marks every sheet shares (rats, entrances), the
viewer's creatures and round state, the table (row, traps, unseen cards,
deck), the options, then the opponents, seat-relative: opponent r is the player
r seats to the left. Map blocks are cell-major, cell = row * 8 + col. Every
sheet, the row and the dice are public; the deck's order is not encoded (only
its size, its traps, and which pedestrians have not been turned over yet,
which every player can count).

Speed: an observation is computed at every step, so the encoder avoids Python
loops over cells (the map comes from the rules' `map_bytes` through one table
lookup) and keeps the blocks that change at most once a round (marks, table)
or rarely (creatures, opponents) in caches keyed by the very content they
encode, so a cache can never serve a stale block.
"""

from __future__ import annotations

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
    TRAIT_SLOTS,
    W,
)
from snack_envs.snack_time.rules import CAN_TAKE_PIPE, MAX_PLAYERS, MAX_ROUNDS, REACHES_CREATURE, SnackTime

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
LINK_BITS = tuple(tuple(link >> k & 1 for k in range(NUM_ENTRANCES)) for link in range(1 << NUM_ENTRANCES))
MAP_END = LAYOUT.slices["own_map"].stop
MARKS_END = LAYOUT.slices["map_marks"].stop
OWN_START, OWN_END = LAYOUT.slices["own_creatures"].start, LAYOUT.slices["last_round"].stop
TABLE_START, TABLE_END = LAYOUT.slices["row"].start, LAYOUT.slices["deck"].stop
CREATURES_END = LAYOUT.slices["own_creatures"].stop
PHASE_AT = LAYOUT.slices["phase"].start - CREATURES_END
TARGET_AT = LAYOUT.slices["own_damage_target"].start - CREATURES_END
OPPONENTS_START = LAYOUT.slices["opponents"].start
TO_ACT_START = LAYOUT.slices["to_act"].start
PHASE_INDEX = {"entrance": 0, "trap": 1, "snack": 4}
ROW_FEATURES = tuple(
    (PED_VALUE[c], *PED_NEEDS[c], PED_CONSEQUENCE[c] == BADGE, PED_CONSEQUENCE[c] == DAMAGE)
    for c in range(NUM_PEDESTRIANS)
)


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
        # Caches keyed by the content they encode, so they never go stale: the rats, the entrances
        # and the row change at most once a round.
        self._marks: tuple = (None, None, None)
        self._creatures: dict[int, tuple] = {}  # seat -> (content key..., block)
        self._opponents: dict[int, tuple] = {}
        self._table: tuple = (None, None)

    def encode_map(self, game: SnackTime, seat: int, out: np.ndarray) -> None:
        """Write the own_map block into `out`: a MAP_TABLE row per cell of the rules' `map_bytes`."""
        MAP_TABLE.take(np.frombuffer(game.map_bytes[seat], np.uint8), 0, out[:MAP_END].reshape(NUM_CELLS, 6))

    def encode_marks(self, game: SnackTime, rats: bytes) -> np.ndarray:
        """The map_marks block (rats and entrances): it changes at most once a round. `rats`:
        `bytes(game.rats)`, or b"" without the Rat Snacks module (no rats then)."""
        if self._marks[0] != rats or self._marks[1] != game.entrances:
            marks = np.zeros((NUM_CELLS, 6), np.float32)
            marks[:, 0] = game.rats
            for k, cell in enumerate(game.entrances):
                marks[cell, 1 + k] = 1
            self._marks = (rats, list(game.entrances), marks.ravel())
        return self._marks[2]

    def encode_table(self, game: SnackTime) -> np.ndarray:
        """The row, the traps, the unseen pedestrians and the deck: the same until the row moves."""
        key = (bytes(game.row), bytes(game.deck), bytes(game.trap_spots))
        if self._table[0] == key:
            return self._table[1]
        values: list = []
        for card in game.row:
            values += ROW_FEATURES[card]
        values += game.trap_spots
        unseen = [0.0] * NUM_PEDESTRIANS
        traps = 0
        for card in game.deck:
            if card < FIRST_TRAP:
                unseen[card] = 1.0
            else:
                traps += 1
        values += unseen
        values += (len(game.deck), traps)
        block = np.array(values, np.float32)
        self._table = (key, block)
        return block

    def encode_creatures(self, game: SnackTime, seat: int) -> tuple[np.ndarray, int]:
        """The viewer's creatures block and their points (snacks + satisfaction); a pipe step
        mostly leaves them as they were."""
        healthy, crossed, snacks, links = game.healthy[seat], game.crossed[seat], game.snacks[seat], game.links[seat]
        cached = self._creatures.get(seat)
        if cached is not None and cached[:4] == (links, healthy, crossed, snacks):
            return cached[4], cached[5]
        values: list = []
        points = 0
        for have, lost, eaten, link in zip(healthy, crossed, snacks, links):
            traits = have[0] + have[1] + have[2]
            value = sum([PED_VALUE[card] for card in eaten])
            points += value + len(eaten) * traits
            values += have
            values += lost
            values += (TRAIT_SLOTS - traits - lost[0] - lost[1] - lost[2], len(eaten), value, len(eaten) * traits)
            values += LINK_BITS[link]
        block = np.array(values, np.float32)
        self._creatures[seat] = (list(links), [list(h) for h in healthy], [list(c) for c in crossed],
                                 [list(e) for e in snacks], block, points)
        return block, points

    def encode_opponent(self, game: SnackTime, p: int, rats: bytes) -> np.ndarray:
        """Opponent p's score and sheet summary: [score, badges, snacks per creature, traits per creature]."""
        key = (game.badges[p], game.wet[p] if rats else 0, rats)  # wet cells count only for rats
        cached = self._opponents.get(p)
        if cached is not None and cached[0] == key and cached[1] == game.healthy[p] and cached[2] == game.snacks[p]:
            return cached[3]
        sheet = [game.score(p), game.badges[p]] + [len(eaten) for eaten in game.snacks[p]]
        block = np.array(sheet + [sum(have) for have in game.healthy[p]], np.float32)
        self._opponents[p] = (key, [list(h) for h in game.healthy[p]], [list(e) for e in game.snacks[p]], block)
        return block

    def encode(self, game: SnackTime, seat: int) -> np.ndarray:
        n = self.num_players
        out = self.template.copy()
        self.encode_map(game, seat, out)
        rats = bytes(game.rats) if self.rat_snacks else b""
        out[MAP_END:MARKS_END] = self.encode_marks(game, rats)
        out[OWN_START:CREATURES_END], points = self.encode_creatures(game, seat)
        score = points - game.badge_penalty(seat) + (game.rat_points(seat) if self.rat_snacks else 0)
        dice_traits, dice_pipes = game.dice_traits, game.dice_pipes
        turn = [
            game.badges[seat], score,
            dice_traits.count(0), dice_traits.count(1), dice_traits.count(2),
            dice_pipes.count(0), dice_pipes.count(1), dice_pipes.count(2),
            *game.traits_left[seat], *game.pipes_left[seat],
            0, 0, 0, 0, 0, 0, 0, 0, 0, game.round, int(game.ending),
        ]
        if not game.game_over:  # the phase and the damage target, one-hot
            actor = game.current_player
            if game.phase == "place":
                turn[PHASE_AT + (2 if any(game.traits_left[actor]) else 3)] = 1
            else:
                turn[PHASE_AT + PHASE_INDEX[game.phase]] = 1
                if actor == seat and game.phase != "entrance":
                    turn[TARGET_AT + game.pending[seat][0]] = 1
            out[TO_ACT_START + (actor - seat) % n] = 1
        out[CREATURES_END:OWN_END] = turn
        out[TABLE_START:TABLE_END] = self.encode_table(game)
        for r in range(1, n):
            start = OPPONENTS_START + (r - 1) * OPPONENT_FEATURES
            out[start:start + OPPONENT_FEATURES] = self.encode_opponent(game, (seat + r) % n, rats)
        return out
