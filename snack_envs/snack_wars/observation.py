"""Snack Wars' observation encoder: one flat float32 vector from a seat's point of view.

Players appear seat-relative: row 0 is the viewer, row r the player r seats to
the left (who plays r turns later), so a steal action's r names the row it
steals from. Every card on the table is public (collections, the Raccoon cards
beside them, the cards drawn this turn, the discard pile). The draw pile's
contents are every card not shown elsewhere, a linear function of the vector,
so only its size is encoded; its order is hidden and never encoded.
"""

from __future__ import annotations

import numpy as np

from snack_envs.core.layout import Field, ObservationLayout
from snack_envs.snack_wars.components import NUM_CARDS, NUM_KINDS, NUM_RACCOONS, NUM_TYPES
from snack_envs.snack_wars.rules import MAX_PLAYERS, PHASES, SnackWars

KIND_HIGH = 9  # the most copies of a kind (cheese with food_copies="value")

LAYOUT = ObservationLayout(
    [
        Field("collections", MAX_PLAYERS * NUM_KINDS, KIND_HIGH,
              "each player's collection by kind (9 foods by value, then the 5 bonuses), viewer first (absent seats 0)"),
        Field("raccoons", MAX_PLAYERS, NUM_RACCOONS, "Raccoon cards beside each collection, viewer first"),
        Field("drawn", NUM_TYPES, KIND_HIGH, "cards drawn this turn still on the table, by type (kinds, then raccoon)"),
        Field("phase", len(PHASES), 1, "one-hot phase of the turn: choose, steal, discard"),
        Field("steals_left", 1, KIND_HIGH, "steals the raccoons taken this turn still allow"),
        Field("stolen", NUM_KINDS, KIND_HIGH, "cards stolen this turn by kind (the ones a thief past 9 discards from)"),
        Field("draw_pile_size", 1, NUM_CARDS, "cards in the draw pile (its contents: the cards shown nowhere else)"),
        Field("discard", NUM_TYPES, NUM_RACCOONS, "discard pile contents by type"),
        Field("to_act", MAX_PLAYERS, 1, "one-hot: the player to act, viewer first"),
        Field("seated", MAX_PLAYERS, 1, "1 for each seat in play, viewer first"),
    ]
)
PHASE_ONE_HOT = {phase: [1 if p == phase else 0 for p in PHASES] for phase in PHASES}
NO_PHASE, NOBODY = [0] * len(PHASES), [0] * MAX_PLAYERS  # once the game is over


class WarsEncoder:
    layout = LAYOUT

    def __init__(self, num_players: int, config: dict):
        self.num_players = num_players
        absent = MAX_PLAYERS - num_players
        self.absent_rows = [0] * (NUM_KINDS * absent)
        self.absent_seats = [0] * absent
        self.seated = [1] * num_players + self.absent_seats
        self.to_act = [[1 if r == i else 0 for i in range(MAX_PLAYERS)] for r in range(num_players)]
        self.orders = [[(seat + r) % num_players for r in range(num_players)] for seat in range(num_players)]

    def encode(self, game: SnackWars, seat: int) -> np.ndarray:
        order = self.orders[seat]
        collections, raccoons = game.collections, game.raccoons
        out: list[int] = []
        for p in order:
            out += collections[p]
        out += self.absent_rows
        out += [raccoons[p] for p in order]
        out += self.absent_seats
        out += game.drawn
        over = game.game_over
        out += NO_PHASE if over else PHASE_ONE_HOT[game.phase]
        out.append(game.steals_left)
        out += game.stolen
        out.append(len(game.deck))
        out += game.discard
        out += NOBODY if over else self.to_act[(game.current_player - seat) % self.num_players]
        out += self.seated
        return np.fromiter(out, np.float32, LAYOUT.size)
