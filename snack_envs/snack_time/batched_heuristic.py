"""Snack Time's rule-based bot in numba: `heuristic.HeuristicPolicy`, transcribed for the batched engine.

`heuristic_from_obs(obs, masks, out)` plays `HeuristicPolicy.act` on each row of a batch of observations
(float32 [R, D], `observation.LAYOUT`) and masks (int8 [R, A]) at once, so that a batch of games (or a
training run against the bot) need not call the Python bot row by row. `batched.Kernel.heuristic_actions`
calls it; tests/snack_time/test_time_native_heuristic.py holds it to the Python bot action for action.

It is the same bot, not an approximation: the same menus (`quality`, `prospect`), trait, damage and
entrance choices, and the same pipe potential over the same `Sheet` (networks, frontiers, distance fields,
gaps, `without` and `after`), computed in the same floating-point order: sums left to right as written in
Python, `sum()` of a menu's worths as the running Python's `sum` adds floats (3.11: in order; 3.12 on:
Neumaier-compensated), the powers of GAMMA and the unseen cards' worths taken from Python itself. So two
actions rate equal here exactly when they do in Python, and the first best legal action (`best`, in action
order; tuple keys compared entry by entry) is the one both play. Only what cannot change a value differs:
`prospect` is the best quality over every way of filling the open slots (the recursion's maximum, without
the recursion), the networks' frontiers are cell sets kept as booleans (their order changes no distance),
the distance fields are filled from a queue rather than by layers (the same distances), and the pieces of
one cell that lead to the same neighbours are rated once (`after` reads only those sides).

The bot reads its observation only. It takes Advanced traps from the observation's `options` entries
(the Python bot from its constructor's `advanced_traps`: the same wherever the observation comes from a
game with those options); the player count and the other options play no part in either. A row with no
legal action gets -1 (the Python bot raises there). Each decision kind rates only the actions of its own
block (traits, pipes, damages, entrances): the masks of the game never mix them.
"""

from __future__ import annotations


import numba
import numpy as np

from snack_envs.core.batched import python_sum_add, python_sum_result
from snack_envs.snack_time import heuristic as H
from snack_envs.snack_time.actions import DAMAGE_BASE, ENTRANCE_BASE, NUM_ACTIONS, PIPE_BASE, TRAIT_BASE
from snack_envs.snack_time.components import (
    BADGE,
    CREATURE_CELLS,
    DAMAGE,
    NEIGHBOURS,
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
    SIZE,
    SNACK_SLOTS,
    TRAIT_SLOTS,
    E,
    N,
    S,
    W,
)
from snack_envs.snack_time.observation import CREATURE_FEATURES, LAYOUT

# --- observation offsets (LAYOUT's fields) ---------------------------------------------------------------------
_S = LAYOUT.slices
O_MAP = _S["own_map"].start
O_MARKS = _S["map_marks"].start
O_CREATURES = _S["own_creatures"].start
O_PHASE = _S["phase"].start
O_ROUND = _S["round"].start
O_LAST_ROUND = _S["last_round"].start
O_ROW = _S["row"].start
O_TRAPS_LYING = _S["traps_lying"].start
O_UNSEEN = _S["unseen"].start
O_DECK = _S["deck"].start
O_ADVANCED_TRAPS = _S["options"].start + 2  # the options entries: rat_snacks, advanced_entrances, advanced_traps
OBS_SIZE = LAYOUT.size
CELL_ENTRIES = _S["own_map"].stop // NUM_CELLS  # 6 entries a cell in own_map and in map_marks
ROW_ENTRIES = (_S["row"].stop - O_ROW) // NUM_ENTRANCES  # 6: value, Eyes, Teeth, Tentacles, Badge, Damage
# a creature's features (H's own_creatures offsets)
F_HAVE, F_OPEN, F_EATEN = H.HAVE.start, H.OPEN, H.EATEN
assert _S["options"].stop - _S["options"].start == 3 and H.HAVE.stop - H.HAVE.start == 3
PH_ENTRANCE, PH_TRAITS, PH_PIPES = 0, 2, 3  # the phase one-hot entries the bot tells apart (else: a damage)

# --- the bot's weights, as the Python bot holds them -------------------------------------------------------------
P = H.HeuristicPolicy
BADGE_COST, DAMAGE_COST, FILL, SPREAD = P.BADGE_COST, P.DAMAGE_COST, P.FILL, P.SPREAD
UNREADY_LINK = P.UNREADY * P.GAMMA  # a link's value when its creature is not ready (link_worth)
LATE, SNIPE, LOOKAHEAD, DECAY = P.LATE, P.SNIPE, int(P.LOOKAHEAD), P.DECAY
TRAP, TRAP_HORIZON, RAT, ENTRANCE_STEPS = P.TRAP, P.TRAP_HORIZON, P.RAT, P.ENTRANCE_STEPS
TRAIT_TIE = 0.01  # trait(): gain's last term, 0.01 * the traits the creature has
ENTRANCE_NEAR = 3  # entrance(): an entrance counts as near a creature within this many steps
CENTRE = (SIZE - 1) / 2  # entrance(): the map's centre row and column (3.5)
FAR = H.FAR
GAMMA_POW = np.array([P.GAMMA**d for d in range(FAR + 1)], np.float64)  # gamma ** d as Python computes it
NO_NET = -1

# --- tables ----------------------------------------------------------------------------------------------------
NB_COUNT = np.zeros(NUM_CELLS, np.int64)  # H.SIDES: (bit, neighbour, its side facing back), in NEIGHBOURS order
NB_BIT = np.zeros((NUM_CELLS, 4), np.int64)
NB_CELL = np.zeros((NUM_CELLS, 4), np.int64)
NB_BACK = np.zeros((NUM_CELLS, 4), np.int64)
for _cell in range(NUM_CELLS):
    NB_COUNT[_cell] = len(NEIGHBOURS[_cell])
    for _j, (_bit, _nb) in enumerate(NEIGHBOURS[_cell]):
        NB_BIT[_cell, _j], NB_CELL[_cell, _j], NB_BACK[_cell, _j] = _bit, _nb, OPPOSITE[_bit]
CREATURE_AT = np.array(H.CREATURE_AT, np.int64)
HOME = np.array(CREATURE_CELLS, np.int64)
OPENINGS = np.array([openings for _, openings in PATTERNS], np.int64)
ALL_SIDES = N | E | S | W  # an entrance opens to every side
# The pool's unseen cards: their worth as HeuristicPolicy.worth computes it, and their needs.
UNSEEN_WORTH = np.array([P().worth(PED_VALUE[card], PED_CONSEQUENCE[card] == BADGE, PED_CONSEQUENCE[card] == DAMAGE)
                         for card in range(NUM_PEDESTRIANS)], np.float64)
UNSEEN_NEEDS = np.array(PED_NEEDS, np.float64)
POOL_SIZE = NUM_ENTRANCES + NUM_PEDESTRIANS
Q_SIDE = TRAIT_SLOTS + 1  # the menus' cache: traits 0..4 of each kind (and open slots 0..4)
Q_SIZE = Q_SIDE**3  # quality's entries, then prospect's


# --- menus ----------------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def _quality(h0, h1, h2, pool_w, pool_n, npool, qcache, qdone):
    """HeuristicPolicy.quality: the mean worth of the pool's pedestrians that a creature with traits
    (h0, h1, h2) can eat, summed as Python's sum() of the menu; cached by traits in qcache / qdone."""
    key = -1
    if 0 <= h0 < Q_SIDE and 0 <= h1 < Q_SIDE and 0 <= h2 < Q_SIDE:
        key = (int(h0) * Q_SIDE + int(h1)) * Q_SIDE + int(h2)
        if qdone[key]:
            return qcache[key]
    total, comp, count = 0.0, 0.0, 0
    for i in range(npool):
        if pool_n[i, 0] <= h0 and pool_n[i, 1] <= h1 and pool_n[i, 2] <= h2:
            total, comp = python_sum_add(total, comp, pool_w[i])
            count += 1
    total = python_sum_result(total, comp)
    q = total / count if count else 0.0
    if key >= 0:
        qcache[key] = q
        qdone[key] = True
    return q


@numba.njit(cache=True)
def _prospect(h0, h1, h2, open_slots, pool_w, pool_n, npool, qcache, qdone):
    """HeuristicPolicy.prospect: the best quality over every way of adding up to `open_slots` traits (the
    recursion's maximum: a maximum of the same values, so the same value); cached by traits and slots in
    qcache / qdone after quality's entries."""
    k = int(open_slots) if open_slots > 0 else 0
    key = -1
    if 0 <= h0 < Q_SIDE and 0 <= h1 < Q_SIDE and 0 <= h2 < Q_SIDE and k < Q_SIDE:
        key = Q_SIZE + ((int(h0) * Q_SIDE + int(h1)) * Q_SIDE + int(h2)) * Q_SIDE + k
        if qdone[key]:
            return qcache[key]
    best = _quality(h0, h1, h2, pool_w, pool_n, npool, qcache, qdone)
    for a in range(k + 1):
        for b in range(k + 1 - a):
            for c in range(k + 1 - a - b):
                if a + b + c:
                    q = _quality(h0 + a, h1 + b, h2 + c, pool_w, pool_n, npool, qcache, qdone)
                    if q > best:
                        best = q
    if key >= 0:
        qcache[key] = best
        qdone[key] = True
    return best


@numba.njit(cache=True)
def _read_pool(o, pool_w, pool_n):
    """HeuristicPolicy.read's pool: the row's pedestrians (worth, needs) in entrance order, then the
    unseen cards in card order; returns its size."""
    npool = 0
    for k in range(NUM_ENTRANCES):
        at = O_ROW + ROW_ENTRIES * k
        pool_w[npool] = o[at] - BADGE_COST * o[at + 4] - DAMAGE_COST * o[at + 5]
        pool_n[npool, 0], pool_n[npool, 1], pool_n[npool, 2] = o[at + 1], o[at + 2], o[at + 3]
        npool += 1
    for card in range(NUM_PEDESTRIANS):
        if o[O_UNSEEN + card] != 0.0:
            pool_w[npool] = UNSEEN_WORTH[card]
            pool_n[npool, 0], pool_n[npool, 1], pool_n[npool, 2] = (
                UNSEEN_NEEDS[card, 0], UNSEEN_NEEDS[card, 1], UNSEEN_NEEDS[card, 2])
            npool += 1
    return npool


@numba.njit(cache=True)
def _ready(o, c):
    """HeuristicPolicy.ready for creature c."""
    at = O_CREATURES + c * CREATURE_FEATURES
    return o[at + F_OPEN] == 0.0 or o[O_ROUND] >= LATE or o[O_LAST_ROUND] != 0.0


@numba.njit(cache=True)
def _trait(o, mask, pool_w, pool_n, npool, qcache, qdone):
    """HeuristicPolicy.trait: the first legal trait draw with the highest gain."""
    best_action, best_gain = -1, 0.0
    for action in range(TRAIT_BASE, TRAIT_BASE + 3 * NUM_CREATURES):
        if not mask[action]:
            continue
        trait, c = divmod(action - TRAIT_BASE, NUM_CREATURES)
        at = O_CREATURES + c * CREATURE_FEATURES
        h0, h1, h2 = o[at + F_HAVE], o[at + F_HAVE + 1], o[at + F_HAVE + 2]
        open_slots, eaten = o[at + F_OPEN], o[at + F_EATEN]
        hungry = SNACK_SLOTS - eaten
        m0, m1, m2 = h0 + (trait == 0), h1 + (trait == 1), h2 + (trait == 2)
        rise = (_prospect(m0, m1, m2, open_slots - 1, pool_w, pool_n, npool, qcache, qdone)
                - _prospect(h0, h1, h2, open_slots, pool_w, pool_n, npool, qcache, qdone))
        traits = 0.0 + h0 + h1 + h2  # sum(have)
        gain = eaten + FILL * hungry + hungry * rise + TRAIT_TIE * traits
        if best_action < 0 or gain > best_gain:
            best_action, best_gain = action, gain
    return best_action


@numba.njit(cache=True)
def _damage(o, mask, pool_w, pool_n, npool, qcache, qdone):
    """HeuristicPolicy.damage: the first legal trait to cross off whose loss leaves the best menu."""
    best_action, best_kept = -1, 0.0
    for action in range(DAMAGE_BASE, DAMAGE_BASE + 3 * NUM_CREATURES):
        if not mask[action]:
            continue
        c, trait = divmod(action - DAMAGE_BASE, 3)
        at = O_CREATURES + c * CREATURE_FEATURES + F_HAVE
        kept = _quality(o[at] - (trait == 0), o[at + 1] - (trait == 1), o[at + 2] - (trait == 2),
                        pool_w, pool_n, npool, qcache, qdone)
        if best_action < 0 or kept > best_kept:
            best_action, best_kept = action, kept
    return best_action


# --- entrances (Advanced) ----------------------------------------------------------------------------------------
@numba.njit(cache=True)
def _manhattan(a, b):
    return abs(a // SIZE - b // SIZE) + abs(a % SIZE - b % SIZE)


@numba.njit(cache=True)
def _entrance(o, mask):
    """HeuristicPolicy.entrance: the first legal cell with the best (-entrances near its nearest creature,
    -|steps from it - ENTRANCE_STEPS|, -distance from the centre), compared entry by entry."""
    near = np.zeros(NUM_CREATURES, np.int64)
    for cell in range(NUM_CELLS):
        at = O_MARKS + cell * CELL_ENTRIES
        placed = False
        for j in range(1, CELL_ENTRIES):
            if o[at + j] != 0.0:
                placed = True
        if placed:
            for c in range(NUM_CREATURES):
                if _manhattan(cell, HOME[c]) <= ENTRANCE_NEAR:
                    near[c] += 1
    best_action = -1
    b0, b1, b2 = 0, 0, 0.0
    for action in range(ENTRANCE_BASE, ENTRANCE_BASE + NUM_CELLS):
        if not mask[action]:
            continue
        cell = action - ENTRANCE_BASE
        c, steps = 0, _manhattan(cell, HOME[0])
        for other in range(1, NUM_CREATURES):
            d = _manhattan(cell, HOME[other])
            if d < steps:
                c, steps = other, d
        k0 = -near[c]
        k1 = -abs(steps - ENTRANCE_STEPS)
        k2 = -(abs(cell // SIZE - CENTRE) + abs(cell % SIZE - CENTRE))
        if best_action < 0 or k0 > b0 or (k0 == b0 and (k1 > b1 or (k1 == b1 and k2 > b2))):
            best_action, b0, b1, b2 = action, k0, k1, k2
    return best_action


# --- pipes: the sheet (heuristic.Sheet) --------------------------------------------------------------------------
@numba.njit(cache=True)
def _bfs(sources, empty, dist, queue):
    """heuristic.bfs: pipes needed to join from each empty cell, 1 on the `sources` (bool [64])."""
    head, tail = 0, 0
    for cell in range(NUM_CELLS):
        dist[cell] = FAR
    for cell in range(NUM_CELLS):
        if sources[cell]:
            dist[cell] = 1
            queue[tail] = cell
            tail += 1
    while head < tail:
        cell = queue[head]
        head += 1
        for j in range(NB_COUNT[cell]):
            nb = NB_CELL[cell, j]
            if empty[nb] and dist[nb] == FAR:
                dist[nb] = dist[cell] + 1
                queue[tail] = nb
                tail += 1


@numba.njit(cache=True)
def _read_sheet(o, openings, rats, empty, entrance_at, net, net_ents, net_creatures, net_front, net_rats, links,
                fronts, target, field_of, fields, cfields, gap1, gap_arg, gap2, stack, queue):
    """heuristic.Sheet.__init__; returns the numbers of networks and of distance fields. Per cell: openings,
    rats, empty, the entrance there, net; per network: entrances and creatures (bits), frontier (bool [64]),
    rats; per creature: links and frontier; target[k]: entrance k's network; fields[field_of[net]]: that
    network's distance field (the networks holding an entrance, in order); cfields[c]: creature c's;
    gap1 / gap_arg / gap2 [c, field]: Sheet.gap's (pipes needed, the frontier cell giving it, the best
    without that cell)."""
    for cell in range(NUM_CELLS):
        at = O_MARKS + cell * CELL_ENTRIES
        rats[cell] = o[at]
        entrance_at[cell] = -1
        for j in range(1, CELL_ENTRIES):
            if entrance_at[cell] < 0 and o[at + j] == 1.0:
                entrance_at[cell] = j - 1
        placed = False
        for j in range(1, CELL_ENTRIES):
            if o[at + j] != 0.0:
                placed = True
        if placed:
            openings[cell] = ALL_SIDES
        else:
            m = O_MAP + cell * CELL_ENTRIES
            openings[cell] = ((1 if o[m] != 0.0 else 0) | (2 if o[m + 1] != 0.0 else 0)
                              | (4 if o[m + 2] != 0.0 else 0) | (8 if o[m + 3] != 0.0 else 0))
        empty[cell] = openings[cell] == 0 and CREATURE_AT[cell] < 0
        net[cell] = NO_NET
    # Networks of pipes and entrances joined by facing openings; creatures touch them.
    nnets = 0
    for start in range(NUM_CELLS):
        if openings[start] == 0 or net[start] >= 0:
            continue
        i = nnets
        nnets += 1
        ents, creatures, count = 0, 0, 0.0
        for cell in range(NUM_CELLS):
            net_front[i, cell] = False
        top = 0
        stack[top] = start
        top += 1
        net[start] = i
        while top:
            top -= 1
            cell = stack[top]
            count += rats[cell]
            if entrance_at[cell] >= 0:
                ents |= 1 << entrance_at[cell]
            for j in range(NB_COUNT[cell]):
                if not openings[cell] & NB_BIT[cell, j]:
                    continue
                nb = NB_CELL[cell, j]
                if CREATURE_AT[nb] >= 0:
                    creatures |= 1 << CREATURE_AT[nb]
                elif empty[nb]:
                    net_front[i, nb] = True
                elif openings[nb] & NB_BACK[cell, j] and net[nb] < 0:
                    net[nb] = i
                    stack[top] = nb
                    top += 1
        net_ents[i], net_creatures[i], net_rats[i] = ents, creatures, count
    # Each creature: its links and frontier (its empty neighbours and those of the networks it touches).
    for c in range(NUM_CREATURES):
        home = HOME[c]
        links[c] = 0
        for cell in range(NUM_CELLS):
            fronts[c, cell] = False
        for j in range(NB_COUNT[home]):
            nb = NB_CELL[home, j]
            if empty[nb]:
                fronts[c, nb] = True
        for i in range(nnets):
            if net_creatures[i] >> c & 1:
                links[c] |= net_ents[i]
                for cell in range(NUM_CELLS):
                    if net_front[i, cell]:
                        fronts[c, cell] = True
    # Distance fields to each network holding an entrance, and to each creature.
    for k in range(NUM_ENTRANCES):
        target[k] = NO_NET
    nfields = 0
    for i in range(nnets):
        field_of[i] = -1
        if net_ents[i]:
            field_of[i] = nfields
            _bfs(net_front[i], empty, fields[nfields], queue)
            nfields += 1
            for k in range(NUM_ENTRANCES):
                if net_ents[i] >> k & 1:
                    target[k] = i
    for c in range(NUM_CREATURES):
        _bfs(fronts[c], empty, cfields[c], queue)
    for c in range(NUM_CREATURES):
        for i in range(nnets):
            s = field_of[i]
            if s < 0:
                continue
            if links[c] & net_ents[i]:
                gap1[c, s], gap_arg[c, s], gap2[c, s] = 0, -1, 0
                continue
            d1, d2, arg = FAR, FAR, -1
            for cell in range(NUM_CELLS):  # any order: d1, d2 are the two least; arg matters only when d1 < d2
                if not fronts[c, cell]:
                    continue
                d = fields[s, cell]
                if d < d1:
                    d1, d2, arg = d, d1, cell
                elif d < d2:
                    d2 = d
            gap1[c, s], gap_arg[c, s], gap2[c, s] = d1, arg, d2
    return nnets, nfields


@numba.njit(cache=True)
def _without(y, target, field_of, gap1, gap_arg, gap2, base):
    """Sheet.without(y) into base [4, 5]."""
    for c in range(NUM_CREATURES):
        for k in range(NUM_ENTRANCES):
            i = target[k]
            if i < 0:
                base[c, k] = FAR
            else:
                s = field_of[i]
                base[c, k] = gap2[c, s] if gap_arg[c, s] == y else gap1[c, s]


@numba.njit(cache=True)
def _on_path(c, y, nfields, fields, cfields, gap1):
    """Sheet.on_path: how many of creature c's unmade links have a shortest path through empty cell y."""
    through = cfields[c, y]
    count = 0
    for s in range(nfields):
        if 0 < gap1[c, s] and gap1[c, s] == through + fields[s, y] - 1:
            count += 1
    return count


@numba.njit(cache=True)
def _contribution(c, row, links, extra, scale, link, srt):
    """HeuristicPolicy.pipe's contribution(c, row): the new links' extras, then the potential."""
    value = 0.0
    for k in range(NUM_ENTRANCES):
        if row[k] == 0 and not (links[c] >> k & 1):
            value += extra[c, k]
    if scale != 0.0:
        for k in range(NUM_ENTRANCES):  # sorted(row), by insertion
            d = row[k]
            j = k
            while j > 0 and srt[j - 1] > d:
                srt[j] = srt[j - 1]
                j -= 1
            srt[j] = d
        total, share = 0.0, 1.0
        for k in range(NUM_ENTRANCES):
            d = srt[k]
            total += share * (link if d == 0 else GAMMA_POW[d])
            share *= SPREAD
        value += scale * total
    return value


@numba.njit(cache=True)
def _new_link(o, c, k, pool_w, pool_n, npool, qcache, qdone):
    """HeuristicPolicy.new_link(c, k)."""
    at = O_CREATURES + c * CREATURE_FEATURES
    h0, h1, h2 = o[at + F_HAVE], o[at + F_HAVE + 1], o[at + F_HAVE + 2]
    eaten = o[at + F_EATEN]
    hungry = SNACK_SLOTS - eaten
    value = 0.0
    if hungry != 0.0 and _ready(o, c):
        mean, weight, ate = _quality(h0, h1, h2, pool_w, pool_n, npool, qcache, qdone), SNIPE, 0
        for j in range(k, max(k - LOOKAHEAD, -1), -1):
            card = O_ROW + ROW_ENTRIES * j
            if ate == hungry:
                break
            if o[card + 1] <= h0 and o[card + 2] <= h1 and o[card + 3] <= h2:
                worth = o[card] - BADGE_COST * o[card + 4] - DAMAGE_COST * o[card + 5]
                value += weight * (worth - mean)
                ate += 1
            weight *= DECAY
    deck, traps = o[O_DECK], o[O_DECK + 1]
    if traps != 0.0 and o[O_LAST_ROUND] == 0.0 and (o[O_ADVANCED_TRAPS] != 0.0 or o[O_TRAPS_LYING + k] == 0.0):
        chance = min(1.0, TRAP_HORIZON / max(deck, 1.0))
        value -= TRAP * chance * (eaten + FILL * hungry)
    return value


@numba.njit(cache=True)
def _pipe(o, mask, pool_w, pool_n, npool, qcache, qdone, sheet_ints, sheet_bools, rats, net_rats, fields, cfields,
          gaps, extra, scales, links_w, base, dists, srt):
    """HeuristicPolicy.pipe: the first legal piece with the best (potential, -blocked)."""
    openings, entrance_at, net, net_ents, net_creatures, field_of, stack, queue = (
        sheet_ints[0], sheet_ints[1], sheet_ints[2], sheet_ints[3], sheet_ints[4], sheet_ints[5], sheet_ints[6],
        sheet_ints[7])
    links, target = sheet_ints[8, :NUM_CREATURES], sheet_ints[9, :NUM_ENTRANCES]
    empty, fronts, net_front = sheet_bools[0, 0], sheet_bools[1, :NUM_CREATURES], sheet_bools[2]
    gap1, gap_arg, gap2 = gaps[0], gaps[1], gaps[2]
    _, nfields = _read_sheet(o, openings, rats, empty, entrance_at, net, net_ents, net_creatures, net_front, net_rats,
                             links, fronts, target, field_of, fields, cfields, gap1, gap_arg, gap2, stack, queue)
    # weights (link_worth) and extra (new_link)
    for c in range(NUM_CREATURES):
        at = O_CREATURES + c * CREATURE_FEATURES
        h0, h1, h2 = o[at + F_HAVE], o[at + F_HAVE + 1], o[at + F_HAVE + 2]
        hungry = SNACK_SLOTS - o[at + F_EATEN]
        if hungry <= 0:
            scales[c], links_w[c] = 0.0, 1.0
        else:
            quality = _quality(h0, h1, h2, pool_w, pool_n, npool, qcache, qdone)
            each = quality + (0.0 + h0 + h1 + h2) + FILL * o[at + F_OPEN]
            scales[c] = hungry * each
            links_w[c] = 1.0 if _ready(o, c) else UNREADY_LINK
    for c in range(NUM_CREATURES):
        for k in range(NUM_ENTRANCES):
            extra[c, k] = _new_link(o, c, k, pool_w, pool_n, npool, qcache, qdone)
    unchanged = np.empty(NUM_CREATURES, np.float64)
    blocking = np.empty(NUM_CREATURES, np.float64)
    merged = np.empty(NUM_ENTRANCES, np.int64)
    joined = np.empty(4, np.int64)
    ends = np.empty(4, np.int64)
    changed = np.zeros(NUM_CREATURES, np.bool_)
    # A piece's rating depends on the sides of it that lead somewhere (to a creature, an empty cell or a
    # facing opening), the others joining nothing: the ratings of the cell's pieces are kept by those sides.
    known = np.zeros(ALL_SIDES + 1, np.bool_)
    known_value = np.zeros(ALL_SIDES + 1, np.float64)
    known_blocked = np.zeros(ALL_SIDES + 1, np.float64)
    cached_y = -1
    best_action, best_value, best_blocked = -1, 0.0, 0.0
    for action in range(PIPE_BASE, PIPE_BASE + NUM_CELLS * NUM_PATTERNS):
        if not mask[action]:
            continue
        y, pattern = divmod(action - PIPE_BASE, NUM_PATTERNS)
        if y != cached_y:
            cached_y = y
            known[:] = False
            _without(y, target, field_of, gap1, gap_arg, gap2, base)
            for c in range(NUM_CREATURES):
                unchanged[c] = _contribution(c, base[c], links, extra, scales[c], links_w[c], srt)
                blocking[c] = scales[c] * _on_path(c, y, nfields, fields, cfields, gap1)
        opens = 0
        for j in range(NB_COUNT[y]):
            bit = NB_BIT[y, j]
            if OPENINGS[pattern] & bit:
                nb = NB_CELL[y, j]
                if CREATURE_AT[nb] >= 0 or empty[nb] or openings[nb] & NB_BACK[y, j]:
                    opens |= bit
        if known[opens]:
            value, blocked = known_value[opens], known_blocked[opens]
            if value > best_value or (value == best_value and -blocked > -best_blocked):
                best_action, best_value, best_blocked = action, value, blocked
            continue
        # Sheet.after(y, opens)
        njoined, nends, creatures = 0, 0, 0
        for j in range(NB_COUNT[y]):
            if not opens & NB_BIT[y, j]:
                continue
            nb = NB_CELL[y, j]
            if CREATURE_AT[nb] >= 0:
                creatures |= 1 << CREATURE_AT[nb]
            elif empty[nb]:
                ends[nends] = nb
                nends += 1
            elif openings[nb] & NB_BACK[y, j]:
                i = net[nb]
                seen = False
                for m in range(njoined):
                    if joined[m] == i:
                        seen = True
                if not seen:
                    joined[njoined] = i
                    njoined += 1
        ents = 0
        for m in range(njoined):
            ents |= net_ents[joined[m]]
            creatures |= net_creatures[joined[m]]
        for c in range(NUM_CREATURES):
            changed[c] = False
            for k in range(NUM_ENTRANCES):
                dists[c, k] = base[c, k]
        if creatures:  # the creatures' network grows: by the new open ends, and by what it joins
            for k in range(NUM_ENTRANCES):
                if ents >> k & 1:
                    merged[k] = 0
                else:
                    s = field_of[target[k]]
                    low = FAR + 1  # min() of a list holding at least one of the creatures' distances
                    for c in range(NUM_CREATURES):
                        if creatures >> c & 1 and base[c, k] < low:
                            low = base[c, k]
                    for e in range(nends):
                        if fields[s, ends[e]] < low:
                            low = fields[s, ends[e]]
                    merged[k] = low
            for c in range(NUM_CREATURES):
                if creatures >> c & 1:
                    for k in range(NUM_ENTRANCES):
                        if merged[k] < base[c, k]:
                            dists[c, k] = merged[k]
                            changed[c] = True
        grown = 0
        for k in range(NUM_ENTRANCES):
            for m in range(njoined):
                if target[k] == joined[m]:
                    grown |= 1 << k
        if grown:  # entrance networks grow toward the other creatures, and join each other
            for c in range(NUM_CREATURES):
                if creatures >> c & 1:
                    continue
                near = 1 << 30
                for k in range(NUM_ENTRANCES):
                    if grown >> k & 1 and base[c, k] < near:
                        near = base[c, k]
                for e in range(nends):
                    if cfields[c, ends[e]] < near:
                        near = cfields[c, ends[e]]
                farther = False
                for k in range(NUM_ENTRANCES):
                    if grown >> k & 1 and base[c, k] > near:
                        farther = True
                if farther:
                    changed[c] = True
                    for k in range(NUM_ENTRANCES):
                        if grown >> k & 1 and near < base[c, k]:
                            dists[c, k] = near
        wetted = 0.0
        if creatures:
            lying = 0.0  # sum(...) of the joined networks' rats (whole numbers: any order)
            for m in range(njoined):
                if not net_creatures[joined[m]]:
                    lying += net_rats[joined[m]]
            wetted = rats[y] + lying
        # evaluate(action)
        value, blocked = RAT * wetted, 0.0
        for c in range(NUM_CREATURES):
            if changed[c]:
                value += _contribution(c, dists[c], links, extra, scales[c], links_w[c], srt)
            else:
                value += unchanged[c]
            if not creatures >> c & 1:
                blocked += blocking[c]
        known[opens], known_value[opens], known_blocked[opens] = True, value, blocked
        if best_action < 0 or value > best_value or (value == best_value and -blocked > -best_blocked):
            best_action, best_value, best_blocked = action, value, blocked
    return best_action


# --- the bot ------------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def heuristic_from_obs(obs, masks, out):
    """HeuristicPolicy.act for each row of observations [R, D] (float32) and masks [R, A] (int8) into out
    (int64 [R]); -1 for a row with no legal action."""
    o = np.empty(OBS_SIZE, np.float64)
    pool_w = np.empty(POOL_SIZE, np.float64)
    pool_n = np.empty((POOL_SIZE, 3), np.float64)
    qcache = np.empty(Q_SIZE * (1 + Q_SIDE), np.float64)
    qdone = np.zeros(Q_SIZE * (1 + Q_SIDE), np.bool_)
    sheet_ints = np.zeros((10, NUM_CELLS), np.int64)
    sheet_bools = np.zeros((3, NUM_CELLS, NUM_CELLS), np.bool_)
    rats = np.zeros(NUM_CELLS, np.float64)
    net_rats = np.zeros(NUM_CELLS, np.float64)
    fields = np.zeros((NUM_ENTRANCES, NUM_CELLS), np.int64)
    cfields = np.zeros((NUM_CREATURES, NUM_CELLS), np.int64)
    gaps = np.zeros((3, NUM_CREATURES, NUM_ENTRANCES), np.int64)
    extra = np.zeros((NUM_CREATURES, NUM_ENTRANCES), np.float64)
    scales = np.zeros(NUM_CREATURES, np.float64)
    links_w = np.zeros(NUM_CREATURES, np.float64)
    base = np.zeros((NUM_CREATURES, NUM_ENTRANCES), np.int64)
    dists = np.zeros((NUM_CREATURES, NUM_ENTRANCES), np.int64)
    srt = np.zeros(NUM_ENTRANCES, np.int64)
    for r in range(obs.shape[0]):
        mask = masks[r]
        legal, first = 0, -1
        for a in range(NUM_ACTIONS):
            if mask[a]:
                legal += 1
                if first < 0:
                    first = a
        if legal <= 1:
            out[r] = first
            continue
        for i in range(OBS_SIZE):
            o[i] = obs[r, i]
        if o[O_PHASE + PH_ENTRANCE] != 0.0:
            out[r] = _entrance(o, mask)
            continue
        npool = _read_pool(o, pool_w, pool_n)
        qdone[:] = False
        if o[O_PHASE + PH_TRAITS] != 0.0:
            out[r] = _trait(o, mask, pool_w, pool_n, npool, qcache, qdone)
        elif o[O_PHASE + PH_PIPES] != 0.0:
            out[r] = _pipe(o, mask, pool_w, pool_n, npool, qcache, qdone, sheet_ints, sheet_bools, rats, net_rats,
                           fields, cfields, gaps, extra, scales, links_w, base, dists, srt)
        else:
            out[r] = _damage(o, mask, pool_w, pool_n, npool, qcache, qdone)
