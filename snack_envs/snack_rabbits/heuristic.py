"""A rule-based Snack Rabbits player: the baseline that trained agents must beat.

It reads only its own observation. For every fence with cards and every
number of white dice it may roll, it weighs the haul against the dice:

    expected value = P(some die >= height) * (points - DIE_COST * dice lost)

where "points" is the change in its own score (a vegetable scores its full
value once it holds at least as many as anybody else, 1 per card otherwise)
plus the points the haul would have given the opponent it helps most: in a
race for majorities, a card denied counts about as much as a card gained. It hops on the best option if that is worth more than a stop
(an extra die is worth about STOP_VALUE points later); once Farmer Brown is
out, stopping only delays the end, so it hops whenever it can gain something.
A stop with an empty pool takes from the opponent holding the most dice.
"""

from __future__ import annotations

import numpy as np

from snack_envs.core.rollout import check_position
from snack_envs.snack_rabbits.components import FENCES, NUM_FENCES, NUM_KINDS, VALUES
from snack_envs.snack_rabbits.observation import LAYOUT
from snack_envs.snack_rabbits.rules import DICE_CHOICES, MAX_PLAYERS, NUM_ACTIONS, STOP, TAKE_FROM

DIE_COST = 0.5  # points a white die is worth to keep
STOP_VALUE = 3.0  # points a stop (one more die) is worth before Farmer Brown
DENIAL = 1.0  # weight of the points the haul would have given the opponent it helps most


def added_points(cards: list[int], mine: list[int], best_other: list[int]) -> float:
    gain = 0.0
    for kind, c in enumerate(cards):
        if c:
            m, o = mine[kind], best_other[kind]
            before = VALUES[kind] if m and m >= o else m
            after = VALUES[kind] if m + c >= o else m + c
            gain += after - before
    return gain


class HeuristicPolicy:
    name = "heuristic"

    def __init__(self, num_players: int = 2, **options):
        self.num_players = num_players

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        observation, action_mask = check_position("Snack Rabbits heuristic", observation, action_mask, LAYOUT.size,
                                                  NUM_ACTIONS)
        values = observation.astype(int).tolist()
        o = {name: values[part] for name, part in LAYOUT.slices.items()}
        mask = action_mask.tolist()
        fences = [o["fences"][f * NUM_KINDS : (f + 1) * NUM_KINDS] for f in range(NUM_FENCES)]
        hands = [o["collections"][p * NUM_KINDS : (p + 1) * NUM_KINDS] for p in range(self.num_players)]
        mine, others = hands[0], hands[1:]
        best_other = [max(column) for column in zip(*others)]
        # For each opponent: the most any other player (me included) holds of each kind.
        rivals_best = [[max(column) for column in zip(mine, *others[:i], *others[i + 1 :])] for i in range(len(others))]
        best_action, best_value = None, float("-inf")
        for f, cards in enumerate(fences):
            if not any(cards):
                continue
            gain = added_points(cards, mine, best_other) + DENIAL * max(
                added_points(cards, hand, rival) for hand, rival in zip(others, rivals_best)
            )
            miss = (FENCES[f] - 1) / 6
            for w in range(DICE_CHOICES):
                action = f * DICE_CHOICES + w
                if mask[action]:
                    value = (1 - miss ** (1 + w)) * (gain - DIE_COST * w)
                    if value > best_value:
                        best_action, best_value = action, value
        threshold = 0.0 if o["farmer_revealed"][0] else STOP_VALUE
        if best_action is not None and best_value > threshold:
            return best_action
        if mask[STOP]:
            return STOP
        takes = [a for a in range(TAKE_FROM, TAKE_FROM + MAX_PLAYERS - 1) if mask[a]]
        if takes:
            return max(takes, key=lambda a: o["white_dice"][a - TAKE_FROM + 1])
        return mask.index(1)
