"""A rule-based Snack Wars player: the baseline that trained agents must beat.

It reads only its own observation and judges every decision by one number,
its projected lead: its projected score minus its opponents' average. A
player's projected score counts
- each food it leads (strictly), worth the food's value times the chance the
  lead holds: LEAD_SAFE once no rival has the room, or the cards left outside
  the collections, to catch up (only a steal could break it), else
  LEAD_HOLDS[lead];
- its Bonus cards as they stand, plus what its room can still bring: a family
  bonus FAMILY_HOPE points per empty slot, Multicolour 5 points times
  MULTI_HOPE per family still missing (nothing without the room for them),
  the Raccoon Bonus one point per raccoon harvested plus RACCOON_HOPE;
- TABLE_SLOT / players points per empty slot. This term matters most: every
  turn draws back up to 9, so a player who fills slowly gets more picks, and
  the last to fill up can still overtake majorities while the others pass.
  A card must earn more than the slot it fills, so it takes one cheese over
  four macarons, and the raccoons (which fill no slot) when nothing drawn is
  worth a slot. Stealing costs a slot and gives the victim one back, so it
  steals only cards that swing more than that: rarely with 2 players (a
  steal must swing 14 points), often with 4 or 5.
Choose: the option (a Food value, a Bonus card, or the raccoons, valued by
the steals it would make) that raises the projected lead most. Steal: the
card that raises it most (a rival's majority card or bonus, a card that wins
a majority), until no steal raises it. Discard: the stolen card whose loss
lowers it least.

The weights were set by matches of the bot against a copy with one weight
changed. With 3 to 5 players, measuring the lead against the opponents'
average did better than against the best opponent (with 2 they are the
same), and a slot was worth less than with 2.
"""

from __future__ import annotations

import numpy as np

from snack_envs.core.rollout import check_position
from snack_envs.snack_wars.components import (
    COLLECTION_SIZE,
    FAMILY_OF,
    FIRST_BONUS,
    FOOD_COPIES,
    MULTICOLOUR_BONUS,
    MULTICOLOUR_POINTS,
    NUM_FOODS,
    NUM_KINDS,
    RACCOON,
    RACCOON_BONUS,
    VALUES,
)
from snack_envs.snack_wars.observation import LAYOUT
from snack_envs.snack_wars.rules import DISCARD, NUM_ACTIONS, STEAL, STOP_STEALING, steal_action

LEAD_HOLDS = (0.0, 0.6, 0.8, 0.9)  # chance a lead of 1, 2, 3+ cards holds while rivals can still catch up
LEAD_SAFE = 0.95  # no rival has the room or the cards to catch up (a steal still could)
FAMILY_HOPE = 0.4  # family cards a family bonus can expect per empty slot
MULTI_HOPE = 0.6  # chance of finding each family the Multicolour card still lacks
RACCOON_HOPE = 1.0  # raccoons the Raccoon Bonus can still expect
TABLE_SLOT = 14.0  # an empty slot is worth TABLE_SLOT / players points (a card still to pick)

FOOD_KINDS = range(NUM_FOODS)
FAMILY_FOODS = tuple(tuple(f for f in FOOD_KINDS if FAMILY_OF[f] == family) for family in range(3))


def projected_scores(colls: list[list[int]], raccoons: list[int], copies: tuple[int, ...]) -> list[float]:
    """Each player's projected final score (see the module docstring); colls[0] is the viewer's."""
    n = len(colls)
    rooms = [COLLECTION_SIZE - sum(c) for c in colls]
    slot = TABLE_SLOT / n
    scores = [slot * room for room in rooms]
    for f, counts in zip(FOOD_KINDS, zip(*colls)):
        top = max(counts)
        lead = top - sorted(counts)[-2]
        if lead > 0:
            leader = counts.index(top)
            left = copies[f] - sum(counts)  # in the draw pile, the discard pile or on the table
            threat = min(left, max(rooms[:leader] + rooms[leader + 1 :]))
            hold = LEAD_SAFE if lead > threat else LEAD_HOLDS[min(lead, 3)]
            scores[leader] += VALUES[f] * hold
    for p, coll in enumerate(colls):
        if not any(coll[FIRST_BONUS:]):
            continue
        room = rooms[p]
        families = [sum(coll[f] for f in foods) for foods in FAMILY_FOODS]
        for family in range(3):
            if coll[FIRST_BONUS + family]:
                scores[p] += families[family] + FAMILY_HOPE * room
        if coll[MULTICOLOUR_BONUS]:
            missing = families.count(0)
            if missing <= room:
                scores[p] += MULTICOLOUR_POINTS * MULTI_HOPE**missing
        if coll[RACCOON_BONUS]:
            scores[p] += raccoons[p] + RACCOON_HOPE
    return scores


def projected_lead(colls: list[list[int]], raccoons: list[int], copies: tuple[int, ...]) -> float:
    scores = projected_scores(colls, raccoons, copies)
    return scores[0] - sum(scores[1:]) / (len(scores) - 1)


class HeuristicPolicy:
    name = "heuristic"

    def __init__(self, num_players: int = 2, food_copies: str = "equal", **options):
        self.num_players = num_players
        self.copies = FOOD_COPIES[food_copies]

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        observation, action_mask = check_position("Snack Wars heuristic", observation, action_mask, LAYOUT.size,
                                                  NUM_ACTIONS)
        mask = action_mask.tolist()
        legal = [a for a in range(NUM_ACTIONS) if mask[a]]
        if len(legal) == 1:
            return legal[0]
        values = observation.astype(int).tolist()
        o = {name: values[part] for name, part in LAYOUT.slices.items()}
        n = sum(o["seated"])
        colls = [o["collections"][p * NUM_KINDS : (p + 1) * NUM_KINDS] for p in range(n)]
        raccoons = o["raccoons"][:n]
        if o["phase"][0]:
            return self.choose(colls, raccoons, o["drawn"], legal)
        if o["phase"][1]:
            action, _ = self.best_steal(colls, raccoons, mask)
            return action
        return self.discard(colls, raccoons, legal)

    def lead(self, colls: list[list[int]], raccoons: list[int]) -> float:
        return projected_lead(colls, raccoons, self.copies)

    def choose(self, colls, raccoons, drawn, legal: list[int]) -> int:
        mine = colls[0]
        room = COLLECTION_SIZE - sum(mine)
        best_action, best_value = legal[0], float("-inf")
        for action in legal:
            after = [c[:] for c in colls]
            racc = raccoons[:]
            if action == RACCOON:
                racc[0] += drawn[RACCOON]
                value = self.lead(after, racc)
                for _ in range(drawn[RACCOON]):  # the steals it would make
                    steal, gain = self.best_steal(after, racc, None)
                    if steal == STOP_STEALING:
                        break
                    self.move(after, steal)
                    value += gain
            else:
                after[0][action] += min(drawn[action], room) if action < NUM_FOODS else 1
                value = self.lead(after, racc)
            if value > best_value:
                best_action, best_value = action, value
        return best_action

    def best_steal(self, colls, raccoons, mask: list[int] | None) -> tuple[int, float]:
        """The steal that raises the projected lead most, with its gain; STOP_STEALING if none does."""
        before = self.lead(colls, raccoons)
        best_action, best_gain = STOP_STEALING, 0.0
        for r in range(1, len(colls)):
            victim = colls[r]
            for kind in range(NUM_KINDS):
                action = steal_action(r, kind)
                if not victim[kind] or (mask is not None and not mask[action]):
                    continue
                victim[kind] -= 1
                colls[0][kind] += 1
                gain = self.lead(colls, raccoons) - before
                victim[kind] += 1
                colls[0][kind] -= 1
                if gain > best_gain:
                    best_action, best_gain = action, gain
        return best_action, best_gain

    @staticmethod
    def move(colls, steal: int) -> None:
        r, kind = divmod(steal - STEAL, NUM_KINDS)
        colls[r + 1][kind] -= 1
        colls[0][kind] += 1

    def discard(self, colls, raccoons, legal: list[int]) -> int:
        def lead_without(action: int) -> float:
            colls[0][action - DISCARD] -= 1
            value = self.lead(colls, raccoons)
            colls[0][action - DISCARD] += 1
            return value

        return max(legal, key=lead_without)

