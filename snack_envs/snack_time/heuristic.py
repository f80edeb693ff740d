"""A rule-based Snack Time player: the baseline that trained agents must beat.

It reads only its own observation and plays its own sheet as well as it can
(players never interact). A snack is worth its value plus a point for each
trait the creature ends with, and a connected creature must eat every
pedestrian it meets whose needs its traits meet, until it holds three. So:
grow a creature's traits first, keep it one pipe short of the entrances
meanwhile, then join it when good pedestrians are about to pass.

- Menu: `quality(traits)` is the mean worth of the pedestrians still to come
  (the row and the unseen cards) that a creature with those traits can eat;
  worth = value, less BADGE_COST for a Badge and DAMAGE_COST for a Damage.
  Few traits open only cheap pedestrians; four mixed ones (2-1-1) the 8s and
  10s too. `prospect` is the best quality that filling the open slots reaches.
- Traits: each goes where it adds most: a point per snack the creature will
  hold (those eaten, FILL of the others) plus the snacks still to eat times
  the rise of its prospect. So fed creatures' open slots get filled (sure
  points) and a hungry creature grows toward a full, mixed set.
- Damage: cross off the trait whose loss lowers the menu least.
- Pipes: each piece goes where it raises a potential most. For each hungry
  creature, the worth of its remaining snacks times, over the entrances
  nearest first, SPREAD ** k * GAMMA ** (pipes still needed on the grid of
  empty cells). A creature with an open trait slot is not ready: a link
  counts only UNREADY of a pipe away, so it waits one pipe short (until round
  LATE, or the last round). A new link of a ready creature also counts SNIPE
  times how much better than its menu's mean the pedestrians stopping there
  in the next LOOKAHEAD rounds are (so it joins when a 10 is passing, not a
  1), less TRAP for the chance that the entrance's trap, still in the deck,
  damages it. Rats on pipes reaching a creature count a point each. A tie
  goes to the piece on no shortest path of a hungry creature.
- Entrances (Advanced): a cell ENTRANCE_STEPS from the creature with the
  fewest entrances near it: close, with room to wait one pipe short.

The weights were set by solo games of variants (a subclass changing one
weight) on the same seeds. Over 300 such games, against its mean of 88.7:
joining creatures as soon as possible scored 79.5, links without the SNIPE
timing 81.2, the trait rule without the prospect (the menu as it stands)
85.7, no trap risk 86.8. Random play scores about 25.
"""

from __future__ import annotations

import numpy as np

from snack_envs.core.rollout import check_position
from snack_envs.snack_time.components import (
    BADGE,
    CREATURE_CELLS,
    DAMAGE,
    NEIGHBOURS,
    NUM_CELLS,
    NUM_CREATURES,
    NUM_ENTRANCES,
    NUM_PATTERNS,
    OPPOSITE,
    PATTERNS,
    PED_CONSEQUENCE,
    PED_NEEDS,
    PED_VALUE,
    SIZE,
    SNACK_SLOTS,
    E,
    N,
    S,
    W,
)
from snack_envs.snack_time.observation import CREATURE_FEATURES, LAYOUT
from snack_envs.snack_time.actions import DAMAGE_BASE, ENTRANCE_BASE, NUM_ACTIONS, PIPE_BASE, TRAIT_BASE

SLICES = LAYOUT.slices
ROW = SLICES["row"].start
CREATURE_AT = tuple(CREATURE_CELLS.index(c) if c in CREATURE_CELLS else -1 for c in range(NUM_CELLS))
SIDES = tuple(tuple((bit, nb, OPPOSITE[bit]) for bit, nb in NEIGHBOURS[c]) for c in range(NUM_CELLS))
OPENINGS = tuple(openings for _, openings in PATTERNS)
FAR = 99  # pipes needed where no path of empty cells exists
# own_creatures features of a creature (see the observation layout)
HAVE, OPEN, EATEN = slice(0, 3), 6, 7


class HeuristicPolicy:
    name = "heuristic"

    BADGE_COST = 0.7  # 3 badges cost 2 points
    DAMAGE_COST = 2.5  # a trait lost: a point per snack held, and a narrower menu
    FILL = 0.8  # the share of its empty snack slots a creature is expected to fill
    GAMMA = 0.6  # a link one more pipe away is worth GAMMA as much
    SPREAD = 0.3  # the k-th nearest entrance of a creature counts SPREAD ** k
    UNREADY = 0.3  # a link of a creature with an open trait slot, as a share of one a pipe away
    LATE = 12  # from this round on every creature is ready
    SNIPE = 8.0  # weight of a new link's first pedestrians' worth above the menu's mean
    LOOKAHEAD = 3  # rounds of pedestrians known to stop at an entrance that SNIPE looks at
    DECAY = 0.7  # a pedestrian a round later counts DECAY as much
    TRAP = 6.0  # cost of a new link per snack at stake, times the chance its entrance's trap comes
    TRAP_HORIZON = 6.0  # rounds over which a trap still in the deck may come
    RAT = 1.0  # potential per rat on a pipe that reaches a creature
    ENTRANCE_STEPS = 3  # entrances this many steps from a creature: two pipes join them

    def __init__(self, num_players: int = 2, advanced_traps: bool = False, **options):
        self.num_players = num_players
        self.advanced_traps = advanced_traps

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return self.best_actions(observation, action_mask)[0]

    def best_actions(self, observation: np.ndarray, action_mask: np.ndarray) -> list[int]:
        """Every legal action the heuristic rates best, in action order; `act` plays the first. (Most pipe
        decisions have several: equally good cells far from every network, mirror-image pieces.)"""
        observation, action_mask = check_position("Snack Time heuristic", observation, action_mask, LAYOUT.size,
                                                  NUM_ACTIONS)
        legal = np.flatnonzero(action_mask).tolist()
        if len(legal) == 1:
            return legal
        o = observation.tolist()
        phase = o[SLICES["phase"]]
        if phase[0]:
            return self.entrance(o, legal)
        self.read(o)
        if phase[2]:
            return self.trait(legal)
        if phase[3]:
            return self.pipe(o, legal)
        return self.damage(legal)

    def read(self, o: list) -> None:
        block = o[SLICES["own_creatures"]]
        self.creatures = [block[c * CREATURE_FEATURES : (c + 1) * CREATURE_FEATURES] for c in range(NUM_CREATURES)]
        self.row = [o[ROW + 6 * k : ROW + 6 * k + 6] for k in range(NUM_ENTRANCES)]  # value, needs, Badge, Damage
        self.pool = [(self.worth(card[0], card[4], card[5]), card[1:4]) for card in self.row]
        for card, unseen in enumerate(o[SLICES["unseen"]]):
            if unseen:
                consequence = PED_CONSEQUENCE[card]
                card_worth = self.worth(PED_VALUE[card], consequence == BADGE, consequence == DAMAGE)
                self.pool.append((card_worth, PED_NEEDS[card]))
        self.round = o[SLICES["round"].start]
        self.last_round = o[SLICES["last_round"].start]
        self.traps_lying = o[SLICES["traps_lying"]]
        self.deck, self.traps = o[SLICES["deck"]]
        self._quality: dict = {}
        self._prospect: dict = {}

    # --- menus, traits, damage -----------------------------------------------------------------------
    def worth(self, value: float, badge: float, damage: float) -> float:
        return value - self.BADGE_COST * badge - self.DAMAGE_COST * damage

    def quality(self, have) -> float:
        """Mean worth of the pedestrians to come that a creature with traits `have` can eat."""
        key = tuple(have)
        if key not in self._quality:
            menu = [w for w, need in self.pool if edible(need, key)]
            self._quality[key] = sum(menu) / len(menu) if menu else 0.0
        return self._quality[key]

    def prospect(self, have, open_slots: int) -> float:
        """The best menu quality that filling the open slots can reach."""
        key = (*have, open_slots)
        if key not in self._prospect:
            best = self.quality(have)
            for trait in range(3 if open_slots > 0 else 0):
                more = list(have)
                more[trait] += 1
                best = max(best, self.prospect(more, open_slots - 1))
            self._prospect[key] = best
        return self._prospect[key]

    def ready(self, f: list) -> bool:
        return not f[OPEN] or self.round >= self.LATE or bool(self.last_round)

    def trait(self, legal: list[int]) -> list[int]:
        def gain(action: int) -> float:
            trait, c = divmod(action - TRAIT_BASE, NUM_CREATURES)
            f = self.creatures[c]
            have, open_slots, eaten = f[HAVE], f[OPEN], f[EATEN]
            hungry = SNACK_SLOTS - eaten
            more = list(have)
            more[trait] += 1
            rise = self.prospect(more, open_slots - 1) - self.prospect(have, open_slots)
            return eaten + self.FILL * hungry + hungry * rise + 0.01 * sum(have)

        return best(legal, gain)

    def damage(self, legal: list[int]) -> list[int]:
        def kept(action: int) -> float:
            c, trait = divmod(action - DAMAGE_BASE, 3)
            have = list(self.creatures[c][HAVE])
            have[trait] -= 1
            return self.quality(have)

        return best(legal, kept)

    # --- entrances (Advanced) ---------------------------------------------------------------------------
    def entrance(self, o: list, legal: list[int]) -> list[int]:
        marks = o[SLICES["map_marks"]]
        near = [0] * NUM_CREATURES  # entrances placed within 3 steps of each creature
        for cell in range(NUM_CELLS):
            if any(marks[cell * 6 + 1 : cell * 6 + 6]):
                for c, home in enumerate(CREATURE_CELLS):
                    near[c] += manhattan(cell, home) <= 3

        def score(action: int) -> tuple:
            cell = action - ENTRANCE_BASE
            c = min(range(NUM_CREATURES), key=lambda c: manhattan(cell, CREATURE_CELLS[c]))
            centre = abs(cell // SIZE - 3.5) + abs(cell % SIZE - 3.5)
            return -near[c], -abs(manhattan(cell, CREATURE_CELLS[c]) - self.ENTRANCE_STEPS), -centre

        return best(legal, score)

    # --- pipes -------------------------------------------------------------------------------------------
    def link_worth(self, c: int) -> tuple[float, float]:
        """(worth of creature c's remaining snacks, a link's value relative to being a pipe away)."""
        f = self.creatures[c]
        hungry = SNACK_SLOTS - f[EATEN]
        if hungry <= 0:
            return 0.0, 1.0
        each = self.quality(f[HAVE]) + sum(f[HAVE]) + self.FILL * f[OPEN]
        return hungry * each, 1.0 if self.ready(f) else self.UNREADY * self.GAMMA

    def new_link(self, c: int, k: int) -> float:
        """What joining creature c to entrance k now adds beyond the potential: the worth above its menu's
        mean of the first pedestrians it will eat there (those now at k, k-1, ...), less the trap risk."""
        f = self.creatures[c]
        have, eaten = f[HAVE], f[EATEN]
        hungry = SNACK_SLOTS - eaten
        value = 0.0
        if hungry and self.ready(f):
            mean, weight, ate = self.quality(have), self.SNIPE, 0
            for j in range(k, max(k - int(self.LOOKAHEAD), -1), -1):
                card = self.row[j]
                if ate == hungry:
                    break
                if edible(card[1:4], have):
                    value += weight * (self.worth(card[0], card[4], card[5]) - mean)
                    ate += 1
                weight *= self.DECAY
        if self.traps and not self.last_round and (self.advanced_traps or not self.traps_lying[k]):
            chance = min(1.0, self.TRAP_HORIZON / max(self.deck, 1))
            value -= self.TRAP * chance * (eaten + self.FILL * hungry)
        return value

    def pipe(self, o: list, legal: list[int]) -> list[int]:
        sheet = Sheet(o)
        weights = [self.link_worth(c) for c in range(NUM_CREATURES)]
        extra = [[self.new_link(c, k) for k in range(NUM_ENTRANCES)] for c in range(NUM_CREATURES)]
        gamma, spread = self.GAMMA, self.SPREAD

        cache: dict = {}

        def contribution(c: int, row: list[int]) -> float:
            value = 0.0
            for k in range(NUM_ENTRANCES):
                if row[k] == 0 and not sheet.links[c] >> k & 1:
                    value += extra[c][k]
            scale, link = weights[c]
            if scale:
                total, share = 0.0, 1.0
                for d in sorted(row):
                    total += share * (link if d == 0 else gamma**d)
                    share *= spread
                value += scale * total
            return value

        def evaluate(action: int) -> tuple[float, float]:
            y, pattern = divmod(action - PIPE_BASE, NUM_PATTERNS)
            dists, wetted, creatures = sheet.after(y, OPENINGS[pattern])
            base = sheet.without(y)
            if y not in cache:
                cache[y] = (
                    [contribution(c, base[c]) for c in range(NUM_CREATURES)],
                    [weights[c][0] * sheet.on_path(c, y) for c in range(NUM_CREATURES)],
                )
            unchanged, blocking = cache[y]
            value, blocked = self.RAT * wetted, 0.0
            for c in range(NUM_CREATURES):
                value += unchanged[c] if dists[c] is base[c] else contribution(c, dists[c])
                if not creatures >> c & 1:
                    blocked += blocking[c]
            # Tie-break: a piece on a shortest path of a hungry creature that does not use it.
            return value, -blocked

        return best(legal, evaluate)


class Sheet:
    """The viewer's map read back from the observation: networks, links, and pipe distances.

    Distances count the pipes still needed, ignoring the shapes of the pieces:
    1 from an empty cell on a network's frontier (an empty cell that one of
    its openings faces), one more per empty cell further out."""

    def __init__(self, o: list):
        own, marks = o[SLICES["own_map"]], o[SLICES["map_marks"]]
        openings, rats, entrance_at = [0] * NUM_CELLS, [0] * NUM_CELLS, [-1] * NUM_CELLS
        for cell in range(NUM_CELLS):
            m = marks[cell * 6 : cell * 6 + 6]
            rats[cell] = m[0]
            if any(m[1:]):
                entrance_at[cell] = m.index(1, 1) - 1
                openings[cell] = N | E | S | W
            else:
                b = own[cell * 6 : cell * 6 + 4]
                openings[cell] = (N if b[0] else 0) | (E if b[1] else 0) | (S if b[2] else 0) | (W if b[3] else 0)
        self.openings, self.rats = openings, rats
        self.empty = empty = [not openings[c] and CREATURE_AT[c] < 0 for c in range(NUM_CELLS)]
        # Networks of pipes and entrances joined by facing openings; creatures touch them.
        self.net = net = [-1] * NUM_CELLS
        self.nets = nets = []  # (entrances as bits, creatures as bits, frontier, rats on it)
        for start in range(NUM_CELLS):
            if not openings[start] or net[start] >= 0:
                continue
            ents = creatures = count = 0
            frontier, stack = set(), [start]
            net[start] = len(nets)
            while stack:
                cell = stack.pop()
                count += rats[cell]
                if entrance_at[cell] >= 0:
                    ents |= 1 << entrance_at[cell]
                for bit, nb, back in SIDES[cell]:
                    if not openings[cell] & bit:
                        continue
                    if CREATURE_AT[nb] >= 0:
                        creatures |= 1 << CREATURE_AT[nb]
                    elif empty[nb]:
                        frontier.add(nb)
                    elif openings[nb] & back and net[nb] < 0:
                        net[nb] = len(nets)
                        stack.append(nb)
            nets.append((ents, creatures, frontier, count))
        # Each creature: its links and frontier (its empty neighbours and those of the networks it touches).
        self.links, fronts = [0] * NUM_CREATURES, []
        for c, home in enumerate(CREATURE_CELLS):
            front = {nb for _, nb in NEIGHBOURS[home] if empty[nb]}
            for ents, creatures, frontier, _ in nets:
                if creatures >> c & 1:
                    self.links[c] |= ents
                    front |= frontier
            fronts.append(front)
        # Distance fields to each network holding an entrance, and to each creature.
        self.target = [-1] * NUM_ENTRANCES  # entrance -> its network
        self.fields = {}
        for i, (ents, _, frontier, _) in enumerate(nets):
            if ents:
                self.fields[i] = bfs(frontier, empty)
                for k in range(NUM_ENTRANCES):
                    if ents >> k & 1:
                        self.target[k] = i
        self.creature_fields = [bfs(front, empty) for front in fronts]
        # gap[c][i]: (pipes needed from creature c to entrance network i, the frontier cell that
        # gives it, the best without that cell); 0 when linked.
        self.gap = []
        for c in range(NUM_CREATURES):
            row = {}
            for i, field in self.fields.items():
                if self.links[c] & nets[i][0]:
                    row[i] = (0, -1, 0)
                    continue
                d1 = d2 = FAR
                arg = -1
                for cell in fronts[c]:
                    d = field[cell]
                    if d < d1:
                        d1, d2, arg = d, d1, cell
                    elif d < d2:
                        d2 = d
                row[i] = (d1, arg, d2)
            self.gap.append(row)
        self._without: dict = {}

    def without(self, y: int) -> list[list[int]]:
        """Each creature's distance to each entrance once empty cell y is taken (by a piece that
        joins none of them): y no longer counts as a frontier cell."""
        rows = self._without.get(y)
        if rows is None:
            rows = self._without[y] = []
            for gap in self.gap:
                row = []
                for i in self.target:
                    d1, arg, d2 = gap.get(i, (FAR, -1, FAR))
                    row.append(d2 if arg == y else d1)
                rows.append(row)
        return rows

    def after(self, y: int, opens: int) -> tuple[list[list[int]], int, int]:
        """A pipe with openings `opens` drawn at empty cell y: each creature's distance to each entrance
        (the very rows of `without(y)` for the creatures it changes nothing for), the rats it brings onto
        a creature's network, and the creatures its network reaches."""
        joined, creatures, ends = set(), 0, []
        for bit, nb, back in SIDES[y]:
            if not opens & bit:
                continue
            if CREATURE_AT[nb] >= 0:
                creatures |= 1 << CREATURE_AT[nb]
            elif self.empty[nb]:
                ends.append(nb)
            elif self.openings[nb] & back:
                joined.add(self.net[nb])
        ents = 0
        for i in joined:
            ents |= self.nets[i][0]
            creatures |= self.nets[i][1]
        base = self.without(y)
        dists = list(base)
        if creatures:  # the creatures' network grows: by the new open ends, and by what it joins
            merged = [0 if ents >> k & 1 else FAR for k in range(NUM_ENTRANCES)]
            for k in range(NUM_ENTRANCES):
                if merged[k]:
                    field = self.fields[self.target[k]]
                    merged[k] = min([base[c][k] for c in range(NUM_CREATURES) if creatures >> c & 1]
                                    + [field[end] for end in ends])
            for c in range(NUM_CREATURES):
                if creatures >> c & 1:
                    row = [min(a, b) for a, b in zip(base[c], merged)]
                    if row != base[c]:
                        dists[c] = row
        grown = [k for k in range(NUM_ENTRANCES) if self.target[k] in joined]
        if grown:  # entrance networks grow toward the other creatures, and join each other
            for c in range(NUM_CREATURES):
                if creatures >> c & 1:
                    continue
                field, row = self.creature_fields[c], base[c]
                near = min([row[k] for k in grown] + [field[end] for end in ends])
                if any(row[k] > near for k in grown):
                    dists[c] = [min(d, near) if k in grown else d for k, d in enumerate(row)]
        wetted = 0
        if creatures:
            wetted = self.rats[y] + sum(self.nets[i][3] for i in joined if not self.nets[i][1])
        return dists, wetted, creatures

    def on_path(self, c: int, y: int) -> int:
        """How many of creature c's unmade links have a shortest path through empty cell y."""
        through = self.creature_fields[c][y]
        return sum(
            1 for i, field in self.fields.items() if 0 < self.gap[c][i][0] == through + field[y] - 1
        )


def best(legal: list[int], key) -> list[int]:
    """The actions of `legal` with the highest key, in their order."""
    keys = [key(action) for action in legal]
    top = max(keys)
    return [action for action, k in zip(legal, keys) if k == top]


def edible(needs, have) -> bool:
    return needs[0] <= have[0] and needs[1] <= have[1] and needs[2] <= have[2]


def manhattan(a: int, b: int) -> int:
    return abs(a // SIZE - b // SIZE) + abs(a % SIZE - b % SIZE)


def bfs(sources, empty: list[bool]) -> list[int]:
    """Pipes needed to join from each empty cell: 1 on the sources, one more per step over empty cells."""
    dist = [FAR] * NUM_CELLS
    layer = list(sources)
    for cell in layer:
        dist[cell] = 1
    d = 1
    while layer:
        d += 1
        nxt = []
        for cell in layer:
            for _, nb in NEIGHBOURS[cell]:
                if empty[nb] and dist[nb] == FAR:
                    dist[nb] = d
                    nxt.append(nb)
        layer = nxt
    return dist
