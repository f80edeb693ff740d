"""Snack Rabbits' observation encoder: one flat float32 vector from a seat's point of view.

Players appear seat-relative: index 0 is the viewer, index r the player r
seats to the left (who plays r turns later). Everything on the table is
public; the draw order, and so where Farmer Brown lies, is not encoded.
"""

from __future__ import annotations

import numpy as np

from snack_envs.core.layout import Field, ObservationLayout
from snack_envs.snack_rabbits.components import NUM_CARDS, NUM_FENCES, NUM_KINDS, VALUES, WHITE_DICE
from snack_envs.snack_rabbits.rules import MAX_PLAYERS, SnackRabbits

LAYOUT = ObservationLayout(
    [
        Field("fences", NUM_FENCES * NUM_KINDS, 13, "cards in each fence's space (fence 2..6) by vegetable"),
        Field("collections", MAX_PLAYERS * NUM_KINDS, 12, "each player's vegetables by kind, viewer first (absent seats 0)"),
        Field("white_dice", MAX_PLAYERS, WHITE_DICE, "white dice each player holds, viewer first"),
        Field("pool", 1, WHITE_DICE, "white dice in the general pool"),
        Field("unseen", NUM_KINDS, 12, "vegetable cards of each kind not yet turned over"),
        Field("draw_pile", 1, NUM_CARDS + 1, "cards in the draw pile (Farmer Brown included while hidden)"),
        Field("farmer_revealed", 1, 1, "1 once Farmer Brown has been turned over"),
        Field("to_act", MAX_PLAYERS, 1, "one-hot: the player to act, viewer first"),
        Field("seated", MAX_PLAYERS, 1, "1 for each seat in play, viewer first"),
    ]
)


class RabbitsEncoder:
    layout = LAYOUT

    def __init__(self, num_players: int, config: dict):
        self.num_players = num_players

    def encode(self, game: SnackRabbits, seat: int) -> np.ndarray:
        n = self.num_players
        out: list[float] = []
        for space in game.fences:
            out += space
        order = [(seat + r) % n for r in range(n)]
        for p in order:
            out += game.collections[p]
        # Every vegetable card not in a space or a collection is still face down.
        seen = [sum(column) for column in zip(*game.fences, *game.collections)]
        out += [0] * (NUM_KINDS * (MAX_PLAYERS - n))
        out += [game.white[p] for p in order] + [0] * (MAX_PLAYERS - n)
        out.append(game.pool)
        out += [VALUES[k] - seen[k] for k in range(NUM_KINDS)]
        out.append(len(game.deck))
        out.append(1 if game.farmer_revealed else 0)
        to_act = [0] * MAX_PLAYERS
        if not game.game_over:
            to_act[(game.current_player - seat) % n] = 1
        out += to_act
        out += [1] * n + [0] * (MAX_PLAYERS - n)
        return np.fromiter(out, np.float32, LAYOUT.size)
