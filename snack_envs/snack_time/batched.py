"""Snack Time's batched kernel: B games as struct-of-arrays state, stepped in numba.

The rules are `snack_time.rules` and `snack_time.sheet` (the reference), transcribed: the same
phases and cursor, the same union-find of the pipe networks (path halving included, so `parent`,
`members` and `reach` match field for field), the same events and end reasons. Observations are
`SnackTimeEncoder`'s and masks the rules' legal actions, entry for entry; tests/differential holds
the two engines together.

Chance. The deal (row, deck, entrance rolls) is drawn from the env's stream in numba. The dice of
every round are drawn at the deal too, all 26 rounds' worth (`MAX_ROUNDS`: a game has at most one
roll a round), and kept as the reference's `scripted_rolls` state field, which the reference pops
one a round exactly as the kernel does: an exported game rolls the batch's dice, whatever its rng.
(A loaded game keeps the scripted rolls it came with; when they run out the kernel rolls from the
stream.) The one chance a step draws is Advanced traps' reshuffle of a sprung trap
(`rules._spring_trap`), which `outcomes` gives as the reference's `trap_inserts=` keyword.
"""

from __future__ import annotations

import numba
import numpy as np

from snack_envs.core.batched import below, uniform
from snack_envs.snack_time.components import (
    CREATURE_CELLS,
    FIRST_TRAP,
    KING_ZONE,
    NEIGHBOURS,
    NUM_CARDS,
    NUM_CELLS,
    NUM_PEDESTRIANS,
    OPPOSITE,
    PATTERNS,
    PED_CONSEQUENCE,
    PED_NEEDS,
    PED_VALUE,
    PIPE_DIE_FACES,
    TRAIT_DIE_FACES,
    BADGE as _BADGE,
    DAMAGE as _DAMAGE,
)
from snack_envs.snack_time.observation import LAYOUT
from snack_envs.snack_time.rules import MAX_ROUNDS, NUM_ACTIONS, SnackTime

# --- tables -----------------------------------------------------------------------------------------------
NB = np.full((NUM_CELLS, 4), -1, np.int64)  # neighbour by side N, E, S, W (bits 1, 2, 4, 8)
for _cell in range(NUM_CELLS):
    for _bit, _nb in NEIGHBOURS[_cell]:
        NB[_cell, _bit.bit_length() - 1] = _nb
BACK = np.array([OPPOSITE[1 << d] for d in range(4)], np.int64)
CREATURE_AT = np.full(NUM_CELLS, -1, np.int64)
for _c, _cell in enumerate(CREATURE_CELLS):
    CREATURE_AT[_cell] = _c
KING = np.array([sum(1 << c for c in KING_ZONE[cell]) for cell in range(NUM_CELLS)], np.uint64)
INNER = np.zeros(NUM_CELLS, np.bool_)
for _r in range(1, 7):
    for _col in range(1, 7):
        INNER[_r * 8 + _col] = True
PAT_OPEN = np.array([o for _, o in PATTERNS], np.int64)
PAT_PIECE = np.array([p for p, _ in PATTERNS], np.int64)
VALUE = np.array(PED_VALUE, np.int64)
NEEDS = np.array(PED_NEEDS, np.int64)
CONS = np.array(PED_CONSEQUENCE, np.int64)
TRAIT_FACE = np.array(TRAIT_DIE_FACES, np.int64)
PIPE_FACE = np.array(PIPE_DIE_FACES, np.int64)
BADGE, DAMAGE = int(_BADGE), int(_DAMAGE)
NUM_ENT = 5

PHASES = ("entrance", "trap", "place", "snack", "over")
P_ENT, P_TRAP, P_PLACE, P_SNACK, P_OVER = range(5)
REASONS = ("a player fed every creature 3 snacks", "a player marked the last badge",
           "a creature was completely killed", "the deck cannot refill the row")
EVENT_NAMES = ("trap", "rat ignored", "rat", "snack", "damage")
EVENT_LEN = (1, 1, 1, 4, 3)

# G: the scalar fields of a game
PH, CUR, OVER, RND, C0, C1, C2, ENDING, NENT, DLEN, NDISC, ROLLED, RAT, RHEAD, RCOUNT, NEV, NREAS, NINS = range(18)
INS0, INS_CAP = 18, 256  # G[INS0:]: where each trap sprung in the current step went back (`outcomes`)
NG = INS0 + INS_CAP
# cards: deck, row, discard, trap spots, entrances
DECK0, ROW0, DISC0, TRAP0, ENT0 = 0, 35, 40, 70, 75
NCARDS_F = 80
# PL: one player's small fields
LINKS, HEALTHY, CROSSED, SNACKS, NSN, BADGES_F, TLEFT, PLEFT, PLEN, PEND = 0, 4, 16, 28, 40, 44, 45, 48, 51, 52
PEND_CAP = 96
NPL = PEND + PEND_CAP
# MP planes
M_PIPES, M_ACCEPT, M_PARENT, M_REACH = range(4)
ROLL_CAP = 40
EV_CAP = 400

TRAIT_BASE, PIPE_BASE, DAMAGE_BASE, ENTRANCE_BASE = 0, 12, 652, 664
U1 = np.uint64(1)

OBS = LAYOUT.slices
MAP_END = OBS["own_map"].stop
OWN_START = OBS["own_creatures"].start
BADGES_AT, SCORE_AT = OBS["own_badges"].start, OBS["own_score"].start
DICE_START, TO_DRAW_START = OBS["dice"].start, OBS["own_to_draw"].start
PHASE_START, TARGET_START = OBS["phase"].start, OBS["own_damage_target"].start
ROUND_AT, LAST_ROUND_AT = OBS["round"].start, OBS["last_round"].start
ROW_START, TRAPS_START, UNSEEN_START, DECKF_START = (OBS["row"].start, OBS["traps_lying"].start,
                                                    OBS["unseen"].start, OBS["deck"].start)
OPTIONS_START, OPP_START = OBS["options"].start, OBS["opponents"].start
TO_ACT_START, SEATED_START = OBS["to_act"].start, OBS["seated"].start
OBS_SIZE = LAYOUT.size


# --- the sheet: networks ------------------------------------------------------------------------------------
@numba.njit(cache=True)
def _root(MP, b, p, cell):
    while MP[b, p, M_PARENT, cell] != cell:
        MP[b, p, M_PARENT, cell] = MP[b, p, M_PARENT, MP[b, p, M_PARENT, cell]]
        cell = MP[b, p, M_PARENT, cell]
    return cell


@numba.njit(cache=True)
def _connect(b, p, cell, openings, CM, MP, members, wet, PL):
    MP[b, p, M_ACCEPT, cell] = 0
    MP[b, p, M_PARENT, cell] = cell
    members[b, p, cell] = U1 << np.uint64(cell)
    k = CM[b, 1, cell]
    reach = (1 << (4 + k)) if k >= 0 else 0
    for d in range(4):
        if not (openings >> d) & 1:
            continue
        nb = NB[cell, d]
        if nb < 0:
            continue
        back = BACK[d]
        if CREATURE_AT[nb] >= 0:
            reach |= 1 << CREATURE_AT[nb]
        elif MP[b, p, M_PIPES, nb] == 0 and CM[b, 1, nb] < 0:
            MP[b, p, M_ACCEPT, nb] |= back
        elif (MP[b, p, M_PIPES, nb] & back) or CM[b, 1, nb] >= 0:
            root = _root(MP, b, p, nb)
            if root != cell:
                MP[b, p, M_PARENT, root] = cell
                members[b, p, cell] |= members[b, p, root]
                reach |= MP[b, p, M_REACH, root]
    MP[b, p, M_REACH, cell] = reach
    creatures = reach & 15
    if creatures:
        for c in range(4):
            if (creatures >> c) & 1:
                PL[b, p, LINKS + c] |= reach >> 4
        wet[b, p] |= members[b, p, cell]


# --- the round -------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def _event(G, events, b, kind, x0, x1, x2, x3):
    e = G[b, NEV]
    if e < EV_CAP:
        events[b, e, 0] = kind
        events[b, e, 1] = x0
        events[b, e, 2] = x1
        events[b, e, 3] = x2
        events[b, e, 4] = x3
    G[b, NEV] = e + 1


@numba.njit(cache=True)
def _add_reason(G, reasons, b, r):
    for i in range(G[b, NREAS]):
        if reasons[b, i] == r:
            return
    reasons[b, G[b, NREAS]] = r
    G[b, NREAS] += 1


@numba.njit(cache=True)
def _finish(G, reasons, b, r):
    if r >= 0:
        _add_reason(G, reasons, b, r)
    G[b, PH] = P_OVER
    G[b, OVER] = 1
    G[b, CUR] = -1


@numba.njit(cache=True)
def _end_after_round(G, reasons, b, r):
    G[b, ENDING] = 1
    _add_reason(G, reasons, b, r)


@numba.njit(cache=True)
def _mark_badge(G, reasons, PL, b, p):
    if PL[b, p, BADGES_F] < 9:
        PL[b, p, BADGES_F] += 1
        if PL[b, p, BADGES_F] == 9:
            _end_after_round(G, reasons, b, 1)


@numba.njit(cache=True)
def _push_pending(PL, b, p, c):
    m = PL[b, p, PLEN]
    if m < PEND_CAP:
        PL[b, p, PEND + m] = c
        PL[b, p, PLEN] = m + 1


@numba.njit(cache=True)
def _pop_pending(PL, b, p):
    m = PL[b, p, PLEN]
    for i in range(m - 1):
        PL[b, p, PEND + i] = PL[b, p, PEND + i + 1]
    PL[b, p, PLEN] = m - 1


@numba.njit(cache=True)
def _spring_trap(b, n, cfg, card, G, cards, reasons, PL, events, rng):
    k = card - FIRST_TRAP
    _event(G, events, b, 0, k, 0, 0, 0)
    for p in range(n):
        _mark_badge(G, reasons, PL, b, p)
        for c in range(4):
            if (PL[b, p, LINKS + c] >> k) & 1:
                _push_pending(PL, b, p, c)
    if cfg[2]:
        m = G[b, DLEN]
        at = below(rng, b, m + 1)
        if G[b, NINS] < INS_CAP:
            G[b, INS0 + G[b, NINS]] = at
        G[b, NINS] += 1
        for i in range(m, at, -1):
            cards[b, DECK0 + i] = cards[b, DECK0 + i - 1]
        cards[b, DECK0 + at] = card
        G[b, DLEN] = m + 1
    else:
        cards[b, TRAP0 + k] = 1


@numba.njit(cache=True)
def _start_round(b, n, cfg, G, cards, reasons, PL, events, rng):
    G[b, NEV] = 0
    if G[b, RND] > 0:
        m = G[b, DLEN]
        any_ped = False
        for i in range(m):
            if cards[b, DECK0 + i] < FIRST_TRAP:
                any_ped = True
                break
        if not any_ped:
            _finish(G, reasons, b, 3)
            return
        cards[b, DISC0 + G[b, NDISC]] = cards[b, ROW0 + 4]
        G[b, NDISC] += 1
        while True:
            m = G[b, DLEN]
            card = cards[b, DECK0]
            for i in range(m - 1):
                cards[b, DECK0 + i] = cards[b, DECK0 + i + 1]
            G[b, DLEN] = m - 1
            if card < FIRST_TRAP:
                for i in range(4, 0, -1):
                    cards[b, ROW0 + i] = cards[b, ROW0 + i - 1]
                cards[b, ROW0] = card
                break
            _spring_trap(b, n, cfg, card, G, cards, reasons, PL, events, rng)
    G[b, RND] += 1
    G[b, ROLLED] = 0
    G[b, RAT] = -1
    G[b, PH] = P_TRAP
    G[b, C0] = 0
    G[b, C1] = 0
    G[b, C2] = 0


@numba.njit(cache=True)
def _draw_roll(rng, b, rolls, r, rat_snacks):
    """roll_dice: one uniform a die, 7 dice with Rat Snacks (letter, then number), else 5."""
    for i in range(2):
        rolls[b, r, i] = TRAIT_FACE[int(uniform(rng, b) * 6)]
    for i in range(3):
        rolls[b, r, 2 + i] = PIPE_FACE[int(uniform(rng, b) * 6)]
    if rat_snacks:
        letter = int(uniform(rng, b) * 6) + 1
        number = int(uniform(rng, b) * 6) + 1
        rolls[b, r, 5] = number * 8 + letter
    else:
        rolls[b, r, 5] = -1


@numba.njit(cache=True)
def _roll(b, n, cfg, G, dice, CM, PL, rolls, events, rng):
    if G[b, RCOUNT] > 0:
        r = G[b, RHEAD]
        G[b, RHEAD] = r + 1
        G[b, RCOUNT] -= 1
    else:  # a loaded game whose scripted rolls ran out
        r = ROLL_CAP - 1
        _draw_roll(rng, b, rolls, r, cfg[0])
    for i in range(5):
        dice[b, i] = rolls[b, r, i]
    rat = rolls[b, r, 5]
    G[b, ROLLED] = 1
    for p in range(n):
        for t in range(3):
            PL[b, p, TLEFT + t] = 0
            PL[b, p, PLEFT + t] = 0
        for i in range(2):
            PL[b, p, TLEFT + dice[b, i]] += 1
        for i in range(3):
            PL[b, p, PLEFT + dice[b, 2 + i]] += 1
    if cfg[0] and rat >= 0:
        G[b, RAT] = rat
        if CM[b, 1, rat] >= 0 or CM[b, 0, rat] >= 4:
            _event(G, events, b, 1, rat, 0, 0, 0)
        else:
            CM[b, 0, rat] += 1
            _event(G, events, b, 2, rat, 0, 0, 0)


@numba.njit(cache=True)
def _open_creatures(PL, b, p):
    bits = 0
    for c in range(4):
        used = 0
        for t in range(3):
            used += PL[b, p, HEALTHY + c * 3 + t] + PL[b, p, CROSSED + c * 3 + t]
        if used < 4:
            bits |= 1 << c
    return bits


@numba.njit(cache=True)
def _needs_placement(MP, PL, b, p):
    if PL[b, p, TLEFT] or PL[b, p, TLEFT + 1] or PL[b, p, TLEFT + 2]:
        if _open_creatures(PL, b, p):
            return True
        for t in range(3):
            PL[b, p, TLEFT + t] = 0
    if PL[b, p, PLEFT] or PL[b, p, PLEFT + 1] or PL[b, p, PLEFT + 2]:
        for cell in range(NUM_CELLS):
            if MP[b, p, M_ACCEPT, cell]:
                return True
        for t in range(3):
            PL[b, p, PLEFT + t] = 0
    return False


@numba.njit(cache=True)
def _prune_pending(PL, b, p):
    while PL[b, p, PLEN] > 0:
        c = PL[b, p, PEND]
        if PL[b, p, HEALTHY + c * 3] or PL[b, p, HEALTHY + c * 3 + 1] or PL[b, p, HEALTHY + c * 3 + 2]:
            return True
        _pop_pending(PL, b, p)
    return False


@numba.njit(cache=True)
def _snack(b, p, c, k, G, cards, reasons, PL, events):
    card = cards[b, ROW0 + k]
    if PL[b, p, NSN + c] == 3:
        return False
    healthy_any = False
    for t in range(3):
        h = PL[b, p, HEALTHY + c * 3 + t]
        if h < NEEDS[card, t]:
            return False
        if h:
            healthy_any = True
    PL[b, p, SNACKS + c * 3 + PL[b, p, NSN + c]] = card
    PL[b, p, NSN + c] += 1
    _event(G, events, b, 3, p, c, k, card)
    if CONS[card] == BADGE:
        _mark_badge(G, reasons, PL, b, p)
    elif CONS[card] == DAMAGE and healthy_any:
        _push_pending(PL, b, p, c)
        return True
    return False


@numba.njit(cache=True)
def _resolve_snacks(b, n, G, cards, reasons, PL, events):
    p, c, k = G[b, C0], G[b, C1], G[b, C2]
    while p < n:
        while c < 4:
            links = PL[b, p, LINKS + c]
            while links >> k:
                if (links >> k) & 1 and _snack(b, p, c, k, G, cards, reasons, PL, events):
                    G[b, C0], G[b, C1], G[b, C2] = p, c, k + 1
                    G[b, CUR] = p
                    return True
                k += 1
            c, k = c + 1, 0
        p, c = p + 1, 0
    G[b, C0], G[b, C1], G[b, C2] = n, 0, 0
    return False


@numba.njit(cache=True)
def _advance(b, n, cfg, G, cards, reasons, dice, CM, MP, PL, rolls, events, rng):
    while not G[b, OVER]:
        ph = G[b, PH]
        if ph == P_ENT:
            if G[b, NENT] < NUM_ENT:
                G[b, CUR] = G[b, NENT] % n
                return
            _start_round(b, n, cfg, G, cards, reasons, PL, events, rng)
        elif ph == P_TRAP:
            p = G[b, C0]
            while p < n and not _prune_pending(PL, b, p):
                p += 1
            if p < n:
                G[b, C0] = p
                G[b, CUR] = p
                return
            _roll(b, n, cfg, G, dice, CM, PL, rolls, events, rng)
            G[b, PH] = P_PLACE
            G[b, C0], G[b, C1], G[b, C2] = 0, 0, 0
        elif ph == P_PLACE:
            p = G[b, C0]
            while p < n and not _needs_placement(MP, PL, b, p):
                p += 1
            if p < n:
                G[b, C0] = p
                G[b, CUR] = p
                return
            G[b, PH] = P_SNACK
            G[b, C0], G[b, C1], G[b, C2] = 0, 0, 0
        else:
            if _resolve_snacks(b, n, G, cards, reasons, PL, events):
                return
            for p in range(n):
                full = True
                for c in range(4):
                    if PL[b, p, NSN + c] != 3:
                        full = False
                        break
                if full:
                    _end_after_round(G, reasons, b, 0)
                    break
            if G[b, ENDING]:
                _finish(G, reasons, b, -1)
            else:
                _start_round(b, n, cfg, G, cards, reasons, PL, events, rng)


@numba.njit(cache=True)
def _add_entrance(b, n, cell, G, cards, CM, MP, members, wet, PL):
    k = G[b, NENT]
    CM[b, 1, cell] = k
    cards[b, ENT0 + k] = cell
    G[b, NENT] = k + 1
    for p in range(n):
        _connect(b, p, cell, 15, CM, MP, members, wet, PL)


@numba.njit(cache=True)
def _deal(which, n, cfg, G, cards, reasons, dice, CM, MP, members, wet, PL, rolls, events, rng):
    order = np.empty(NUM_PEDESTRIANS, np.int64)
    rest = np.empty(NUM_CARDS - NUM_ENT, np.int64)
    for b in range(which.shape[0]):
        if not which[b]:
            continue
        G[b, :] = 0
        cards[b, :] = 0
        CM[b, 0, :] = 0
        CM[b, 1, :] = -1
        MP[b, :, M_PIPES, :] = 0
        MP[b, :, M_PARENT, :] = -1
        MP[b, :, M_REACH, :] = 0
        members[b] = 0
        wet[b] = 0
        PL[b] = 0
        for p in range(n):
            for cell in range(NUM_CELLS):
                MP[b, p, M_ACCEPT, cell] = 0
            for c in range(4):
                cc = CREATURE_CELLS_A[c]
                for d in range(4):
                    nb = NB[cc, d]
                    if nb >= 0:
                        MP[b, p, M_ACCEPT, nb] |= BACK[d]
        G[b, RAT] = -1
        # the deal: the pedestrians shuffled, 5 to the row, the rest shuffled with the traps
        for i in range(NUM_PEDESTRIANS):
            order[i] = i
        for i in range(NUM_PEDESTRIANS - 1, 0, -1):
            j = below(rng, b, i + 1)
            order[i], order[j] = order[j], order[i]
        for i in range(NUM_ENT):
            cards[b, ROW0 + i] = order[i]
        m = 0
        for i in range(NUM_ENT, NUM_PEDESTRIANS):
            rest[m] = order[i]
            m += 1
        for card in range(FIRST_TRAP, NUM_CARDS):
            rest[m] = card
            m += 1
        for i in range(m - 1, 0, -1):
            j = below(rng, b, i + 1)
            rest[i], rest[j] = rest[j], rest[i]
        for i in range(m):
            cards[b, DECK0 + i] = rest[i]
        G[b, DLEN] = m
        # the dice of every round, drawn now (exported as the reference's scripted rolls)
        for r in range(MAX_ROUNDS):
            _draw_roll(rng, b, rolls, r, cfg[0])
        G[b, RHEAD] = 0
        G[b, RCOUNT] = MAX_ROUNDS
        if cfg[1]:
            G[b, PH] = P_ENT
        else:
            placed = np.zeros(NUM_ENT, np.int64)
            count = 0
            blocked = np.uint64(0)
            while count < NUM_ENT:
                free = False
                for cell in range(NUM_CELLS):
                    if INNER[cell] and not (blocked >> np.uint64(cell)) & U1:
                        free = True
                        break
                if not free:
                    count = 0
                    blocked = np.uint64(0)
                letter = int(uniform(rng, b) * 6) + 1
                number = int(uniform(rng, b) * 6) + 1
                cell = number * 8 + letter
                if not (blocked >> np.uint64(cell)) & U1:
                    placed[count] = cell
                    count += 1
                    blocked |= KING[cell]
            for i in range(NUM_ENT):
                _add_entrance(b, n, placed[i], G, cards, CM, MP, members, wet, PL)
            G[b, PH] = P_TRAP
            _start_round(b, n, cfg, G, cards, reasons, PL, events, rng)
        _advance(b, n, cfg, G, cards, reasons, dice, CM, MP, PL, rolls, events, rng)


CREATURE_CELLS_A = np.array(CREATURE_CELLS, np.int64)


@numba.njit(cache=True)
def _step(actions, live, n, cfg, G, cards, reasons, dice, CM, MP, members, wet, PL, rolls, events, rng):
    for b in range(actions.shape[0]):
        if not live[b] or G[b, OVER]:
            continue
        G[b, NINS] = 0
        a = actions[b]
        p = G[b, CUR]
        if a < PIPE_BASE:
            t, c = a // 4, a % 4
            PL[b, p, HEALTHY + c * 3 + t] += 1
            PL[b, p, TLEFT + t] -= 1
        elif a < DAMAGE_BASE:
            cell, pat = (a - PIPE_BASE) // 10, (a - PIPE_BASE) % 10
            MP[b, p, M_PIPES, cell] = PAT_OPEN[pat]
            _connect(b, p, cell, PAT_OPEN[pat], CM, MP, members, wet, PL)
            PL[b, p, PLEFT + PAT_PIECE[pat]] -= 1
        elif a < ENTRANCE_BASE:
            c, t = (a - DAMAGE_BASE) // 3, (a - DAMAGE_BASE) % 3
            _pop_pending(PL, b, p)
            PL[b, p, HEALTHY + c * 3 + t] -= 1
            PL[b, p, CROSSED + c * 3 + t] += 1
            _event(G, events, b, 4, p, c, t, 0)
            if cfg[2]:
                if cfg[3]:
                    killed = (PL[b, p, HEALTHY + c * 3] + PL[b, p, HEALTHY + c * 3 + 1]
                              + PL[b, p, HEALTHY + c * 3 + 2]) == 0
                else:
                    killed = (PL[b, p, CROSSED + c * 3] + PL[b, p, CROSSED + c * 3 + 1]
                              + PL[b, p, CROSSED + c * 3 + 2]) == 4
                if killed:
                    _end_after_round(G, reasons, b, 2)
        else:
            _add_entrance(b, n, a - ENTRANCE_BASE, G, cards, CM, MP, members, wet, PL)
        _advance(b, n, cfg, G, cards, reasons, dice, CM, MP, PL, rolls, events, rng)


# --- masks, observations, scores --------------------------------------------------------------------------
@numba.njit(cache=True)
def _masks(seats, out, G, cards, CM, MP, PL):
    for b in range(out.shape[0]):
        out[b, :] = 0
        p = seats[b]
        if G[b, OVER] or p != G[b, CUR]:
            continue
        ph = G[b, PH]
        if ph == P_PLACE:
            if PL[b, p, TLEFT] or PL[b, p, TLEFT + 1] or PL[b, p, TLEFT + 2]:
                open_c = _open_creatures(PL, b, p)
                for t in range(3):
                    if PL[b, p, TLEFT + t]:
                        for c in range(4):
                            if (open_c >> c) & 1:
                                out[b, TRAIT_BASE + t * 4 + c] = 1
            else:
                for cell in range(NUM_CELLS):
                    acc = MP[b, p, M_ACCEPT, cell]
                    if acc:
                        for i in range(10):
                            if PL[b, p, PLEFT + PAT_PIECE[i]] and PAT_OPEN[i] & acc:
                                out[b, PIPE_BASE + cell * 10 + i] = 1
        elif ph == P_TRAP or ph == P_SNACK:
            c = PL[b, p, PEND]
            for t in range(3):
                if PL[b, p, HEALTHY + c * 3 + t]:
                    out[b, DAMAGE_BASE + c * 3 + t] = 1
        elif ph == P_ENT:
            blocked = np.uint64(0)
            for i in range(G[b, NENT]):
                blocked |= KING[cards[b, ENT0 + i]]
            for cell in range(NUM_CELLS):
                if CREATURE_AT[cell] < 0 and not (blocked >> np.uint64(cell)) & U1:
                    out[b, ENTRANCE_BASE + cell] = 1


@numba.njit(cache=True)
def _score(b, p, rat_snacks, CM, wet, PL):
    total = -(PL[b, p, BADGES_F] // 3 * 2)
    for c in range(4):
        k = PL[b, p, NSN + c]
        if k:
            h = PL[b, p, HEALTHY + c * 3] + PL[b, p, HEALTHY + c * 3 + 1] + PL[b, p, HEALTHY + c * 3 + 2]
            for i in range(k):
                total += VALUE[PL[b, p, SNACKS + c * 3 + i]]
            total += k * h
    if rat_snacks:
        w = wet[b, p]
        for cell in range(NUM_CELLS):
            if CM[b, 0, cell] and (w >> np.uint64(cell)) & U1:
                total += CM[b, 0, cell]
    return total


@numba.njit(cache=True)
def _encode(seats, out, n, cfg, G, cards, dice, CM, MP, wet, PL):
    for b in range(out.shape[0]):
        o = out[b]
        o[:] = 0.0
        s = seats[b]
        w = wet[b, s]
        for cell in range(NUM_CELLS):
            pipe = MP[b, s, M_PIPES, cell]
            at = cell * 6
            o[at] = pipe & 1
            o[at + 1] = (pipe >> 1) & 1
            o[at + 2] = (pipe >> 2) & 1
            o[at + 3] = (pipe >> 3) & 1
            o[at + 4] = 1.0 if MP[b, s, M_ACCEPT, cell] else 0.0
            o[at + 5] = 1.0 if (w >> np.uint64(cell)) & U1 else 0.0
            o[MAP_END + at] = CM[b, 0, cell]
        for k in range(G[b, NENT]):
            o[MAP_END + cards[b, ENT0 + k] * 6 + 1 + k] = 1.0
        for c in range(4):
            at = OWN_START + c * 15
            traits = 0
            lost = 0
            for t in range(3):
                o[at + t] = PL[b, s, HEALTHY + c * 3 + t]
                o[at + 3 + t] = PL[b, s, CROSSED + c * 3 + t]
                traits += PL[b, s, HEALTHY + c * 3 + t]
                lost += PL[b, s, CROSSED + c * 3 + t]
            k = PL[b, s, NSN + c]
            value = 0
            for i in range(k):
                value += VALUE[PL[b, s, SNACKS + c * 3 + i]]
            o[at + 6] = 4 - traits - lost
            o[at + 7] = k
            o[at + 8] = value
            o[at + 9] = k * traits
            links = PL[b, s, LINKS + c]
            for e in range(NUM_ENT):
                o[at + 10 + e] = (links >> e) & 1
        if G[b, ROLLED]:
            for i in range(2):
                o[DICE_START + dice[b, i]] += 1.0
            for i in range(3):
                o[DICE_START + 3 + dice[b, 2 + i]] += 1.0
        for t in range(3):
            o[TO_DRAW_START + t] = PL[b, s, TLEFT + t]
            o[TO_DRAW_START + 3 + t] = PL[b, s, PLEFT + t]
        if not G[b, OVER]:
            actor = G[b, CUR]
            ph = G[b, PH]
            if ph == P_PLACE:
                if PL[b, actor, TLEFT] or PL[b, actor, TLEFT + 1] or PL[b, actor, TLEFT + 2]:
                    o[PHASE_START + 2] = 1.0
                else:
                    o[PHASE_START + 3] = 1.0
            else:
                o[PHASE_START + (0 if ph == P_ENT else (1 if ph == P_TRAP else 4))] = 1.0
                if actor == s and ph != P_ENT:
                    o[TARGET_START + PL[b, s, PEND]] = 1.0
            o[TO_ACT_START + (actor - s) % n] = 1.0
        o[ROUND_AT] = G[b, RND]
        o[LAST_ROUND_AT] = G[b, ENDING]
        for k in range(NUM_ENT):
            card = cards[b, ROW0 + k]
            at = ROW_START + k * 6
            o[at] = VALUE[card]
            o[at + 1] = NEEDS[card, 0]
            o[at + 2] = NEEDS[card, 1]
            o[at + 3] = NEEDS[card, 2]
            o[at + 4] = 1.0 if CONS[card] == BADGE else 0.0
            o[at + 5] = 1.0 if CONS[card] == DAMAGE else 0.0
            o[TRAPS_START + k] = cards[b, TRAP0 + k]
        traps = 0
        for i in range(G[b, DLEN]):
            card = cards[b, DECK0 + i]
            if card < FIRST_TRAP:
                o[UNSEEN_START + card] = 1.0
            else:
                traps += 1
        o[DECKF_START] = G[b, DLEN]
        o[DECKF_START + 1] = traps
        for i in range(3):
            o[OPTIONS_START + i] = cfg[4 + i]
        for r in range(n):
            p = (s + r) % n
            score = _score(b, p, cfg[0], CM, wet, PL)
            if r == 0:
                o[SCORE_AT] = score
                o[BADGES_AT] = PL[b, p, BADGES_F]
            else:
                at = OPP_START + (r - 1) * 10
                o[at] = score
                o[at + 1] = PL[b, p, BADGES_F]
                for c in range(4):
                    o[at + 2 + c] = PL[b, p, NSN + c]
                    o[at + 6 + c] = (PL[b, p, HEALTHY + c * 3] + PL[b, p, HEALTHY + c * 3 + 1]
                                     + PL[b, p, HEALTHY + c * 3 + 2])
            o[SEATED_START + r] = 1.0


@numba.njit(cache=True)
def _scores(n, rat_snacks, CM, wet, PL, out, win):
    for b in range(out.shape[0]):
        best = -1 << 30
        for p in range(n):
            out[b, p] = _score(b, p, rat_snacks, CM, wet, PL)
            best = max(best, int(out[b, p]))
        for p in range(n):
            win[b, p] = out[b, p] == best


# --- the kernel ----------------------------------------------------------------------------------------------
class Kernel:
    """B games of Snack Time (see `snack_envs.core.batched` for the interface)."""

    num_actions = NUM_ACTIONS
    obs_size = OBS_SIZE
    game_class = SnackTime

    def __init__(self, num_envs: int, num_players: int, config: dict):
        B, n = num_envs, num_players
        self.num_players, self.config = n, dict(config)
        self.cfg = np.array([config["rat_snacks"], config["advanced_entrances"], config["advanced_traps"],
                             config["killed_when"] == "no_healthy_trait", config["rat_snacks"],
                             config["advanced_entrances"], config["advanced_traps"]], np.int64)
        self.G = np.zeros((B, NG), np.int64)
        self.G[:, OVER] = 1
        self.cards = np.zeros((B, NCARDS_F), np.int64)
        self.reasons = np.zeros((B, 4), np.int64)
        self.dice = np.zeros((B, 5), np.int64)
        self.CM = np.zeros((B, 2, NUM_CELLS), np.int64)
        self.MP = np.zeros((B, n, 4, NUM_CELLS), np.int64)
        self.members = np.zeros((B, n, NUM_CELLS), np.uint64)
        self.wet = np.zeros((B, n), np.uint64)
        self.PL = np.zeros((B, n, NPL), np.int64)
        self.rolls = np.zeros((B, ROLL_CAP, 6), np.int64)
        self.events = np.zeros((B, EV_CAP, 5), np.int64)
        self._scores = np.zeros((B, n), np.float64)
        self._winners = np.zeros((B, n), np.bool_)

    def _state(self):
        return (self.G, self.cards, self.reasons, self.dice, self.CM, self.MP, self.members, self.wet, self.PL,
                self.rolls, self.events)

    def deal(self, which: np.ndarray, rng: np.ndarray) -> None:
        _deal(np.asarray(which, np.bool_), self.num_players, self.cfg, *self._state(), rng)

    def step(self, actions: np.ndarray, live: np.ndarray, rng: np.ndarray) -> None:
        _step(np.asarray(actions, np.int64), np.asarray(live, np.bool_), self.num_players, self.cfg,
              *self._state(), rng)

    def to_act(self) -> np.ndarray:
        return np.maximum(self.G[:, CUR], 0)

    def over(self) -> np.ndarray:
        return self.G[:, OVER].astype(np.bool_)

    def masks(self, seats: np.ndarray, out: np.ndarray) -> None:
        _masks(np.asarray(seats, np.int64), out, self.G, self.cards, self.CM, self.MP, self.PL)

    def encode(self, seats: np.ndarray, out: np.ndarray) -> None:
        _encode(np.asarray(seats, np.int64), out, self.num_players, self.cfg, self.G, self.cards, self.dice,
                self.CM, self.MP, self.wet, self.PL)

    def scores(self) -> np.ndarray:
        _scores(self.num_players, self.cfg[0], self.CM, self.wet, self.PL, self._scores, self._winners)
        return self._scores.copy()

    def winners(self) -> np.ndarray:
        _scores(self.num_players, self.cfg[0], self.CM, self.wet, self.PL, self._scores, self._winners)
        return self._winners.copy()

    # --- the reference engine ---------------------------------------------------------------------------
    def outcomes(self, b: int) -> dict:
        """Advanced traps: where each trap sprung in the last step went back into the deck, as the
        reference `_apply`'s `trap_inserts=` keyword (the dice are in the exported state)."""
        sprung = int(self.G[b, NINS])
        if sprung > INS_CAP:
            raise RuntimeError(f"env {b}: {sprung} traps were reshuffled in one step, more than the {INS_CAP} kept")
        return {"trap_inserts": self.G[b, INS0:INS0 + sprung].tolist()} if sprung else {}

    def export(self, b: int) -> SnackTime:
        n = self.num_players
        G, cards, PL, MP = self.G[b], self.cards[b], self.PL[b], self.MP[b]
        ev = []
        for e in self.events[b, : min(int(G[NEV]), EV_CAP)].tolist():
            ev.append([EVENT_NAMES[e[0]], *e[1:1 + EVENT_LEN[e[0]]]])
        rolls = []
        for r in self.rolls[b, G[RHEAD]: G[RHEAD] + G[RCOUNT]].tolist():
            rolls.append([r[:2], r[2:5], None if r[5] < 0 else r[5]])
        rolled = bool(G[ROLLED])
        state = {
            "phase": PHASES[int(G[PH])],
            "current_player": int(G[CUR]),
            "game_over": bool(G[OVER]),
            "round": int(G[RND]),
            "cursor": [int(G[C0]), int(G[C1]), int(G[C2])],
            "ending": bool(G[ENDING]),
            "end_reasons": [REASONS[r] for r in self.reasons[b, : G[NREAS]].tolist()],
            "entrances": cards[ENT0: ENT0 + G[NENT]].tolist(),
            "deck": cards[DECK0: DECK0 + G[DLEN]].tolist(),
            "row": cards[ROW0: ROW0 + 5].tolist(),
            "discard": cards[DISC0: DISC0 + G[NDISC]].tolist(),
            "trap_spots": [bool(x) for x in cards[TRAP0: TRAP0 + 5]],
            "dice_traits": self.dice[b, :2].tolist() if rolled else [],
            "dice_pipes": self.dice[b, 2:5].tolist() if rolled else [],
            "rat_roll": None if G[RAT] < 0 else int(G[RAT]),
            "rats": self.CM[b, 0].tolist(),
            "pipes": MP[:, M_PIPES].tolist(),
            "accept": MP[:, M_ACCEPT].tolist(),
            "parent": MP[:, M_PARENT].tolist(),
            "members": [[int(x) for x in row] for row in self.members[b].tolist()],
            "reach": MP[:, M_REACH].tolist(),
            "links": PL[:, LINKS:LINKS + 4].tolist(),
            "wet": [int(x) for x in self.wet[b].tolist()],
            "healthy": PL[:, HEALTHY:HEALTHY + 12].reshape(n, 4, 3).tolist(),
            "crossed": PL[:, CROSSED:CROSSED + 12].reshape(n, 4, 3).tolist(),
            "snacks": [[PL[p, SNACKS + c * 3: SNACKS + c * 3 + PL[p, NSN + c]].tolist() for c in range(4)]
                       for p in range(n)],
            "badges": PL[:, BADGES_F].tolist(),
            "pending": [PL[p, PEND: PEND + PL[p, PLEN]].tolist() for p in range(n)],
            "traits_left": PL[:, TLEFT:TLEFT + 3].tolist(),
            "pipes_left": PL[:, PLEFT:PLEFT + 3].tolist(),
            "scripted_rolls": rolls,
            "events": ev,
        }
        game = SnackTime.from_state(n, dict(self.config), state)
        return game

    def load(self, b: int, game: SnackTime) -> None:
        from snack_envs.core.game import ConfigError

        n = self.num_players
        if len(game.scripted_rolls) > ROLL_CAP - 1 or len(game.events) > EV_CAP or any(
                len(q) > PEND_CAP for q in game.pending):
            raise ConfigError("the game given holds more scripted rolls, events or pending damages than the kernel")
        G = self.G[b]
        G[:] = 0
        G[PH] = PHASES.index(game.phase)
        G[CUR] = game.current_player
        G[OVER] = int(game.game_over)
        G[RND] = game.round
        G[C0], G[C1], G[C2] = game.cursor
        G[ENDING] = int(game.ending)
        G[NENT] = len(game.entrances)
        G[DLEN] = len(game.deck)
        G[NDISC] = len(game.discard)
        G[ROLLED] = int(bool(game.dice_traits))
        G[RAT] = -1 if game.rat_roll is None else game.rat_roll
        G[RCOUNT] = len(game.scripted_rolls)
        G[NEV] = len(game.events)
        G[NREAS] = len(game.end_reasons)
        self.reasons[b, : len(game.end_reasons)] = [REASONS.index(r) for r in game.end_reasons]
        cards = self.cards[b]
        cards[:] = 0
        cards[DECK0: DECK0 + len(game.deck)] = game.deck
        cards[ROW0: ROW0 + 5] = game.row
        cards[DISC0: DISC0 + len(game.discard)] = game.discard
        cards[TRAP0: TRAP0 + 5] = [int(x) for x in game.trap_spots]
        cards[ENT0: ENT0 + len(game.entrances)] = game.entrances
        self.dice[b] = 0
        if game.dice_traits:
            self.dice[b, :2] = game.dice_traits
            self.dice[b, 2:5] = game.dice_pipes
        self.CM[b, 0] = game.rats
        self.CM[b, 1] = -1
        for k, cell in enumerate(game.entrances):
            self.CM[b, 1, cell] = k
        self.MP[b, :, M_PIPES] = game.pipes
        self.MP[b, :, M_ACCEPT] = game.accept
        self.MP[b, :, M_PARENT] = game.parent
        self.MP[b, :, M_REACH] = game.reach
        self.members[b] = np.array(game.members, np.uint64)
        self.wet[b] = np.array(game.wet, np.uint64)
        PL = self.PL[b]
        PL[:] = 0
        for p in range(n):
            PL[p, LINKS:LINKS + 4] = game.links[p]
            PL[p, HEALTHY:HEALTHY + 12] = np.ravel(game.healthy[p])
            PL[p, CROSSED:CROSSED + 12] = np.ravel(game.crossed[p])
            for c in range(4):
                eaten = game.snacks[p][c]
                PL[p, NSN + c] = len(eaten)
                PL[p, SNACKS + c * 3: SNACKS + c * 3 + len(eaten)] = eaten
            PL[p, BADGES_F] = game.badges[p]
            PL[p, TLEFT:TLEFT + 3] = game.traits_left[p]
            PL[p, PLEFT:PLEFT + 3] = game.pipes_left[p]
            PL[p, PLEN] = len(game.pending[p])
            PL[p, PEND: PEND + len(game.pending[p])] = game.pending[p]
        for r, (traits, pipes, rat) in enumerate(game.scripted_rolls):
            self.rolls[b, r] = [*traits, *pipes, -1 if rat is None else rat]
        names = {name: i for i, name in enumerate(EVENT_NAMES)}
        self.events[b] = 0
        for e, event in enumerate(game.events):
            self.events[b, e, 0] = names[event[0]]
            self.events[b, e, 1: len(event)] = event[1:]

    # --- for the search bot (snack_envs.search) -----------------------------------------------------------
    def hidden_pile(self, b: int) -> tuple[str, slice]:
        """Where env b's deck lies (field, columns): the cards whose order no player sees."""
        return "cards", slice(DECK0, DECK0 + int(self.G[b, DLEN]))

    def forget_chance(self, b: int) -> None:
        """Forget the dice env b rolled ahead (a deal rolls every round's at once, the reference's scripted
        rolls): later rounds roll from the stream instead."""
        self.G[b, RCOUNT] = 0

    def heuristic_actions(self, obs, mask):
        """`heuristic.HeuristicPolicy.act` for each row of observations [R, D] and masks [R, A] (int64 [R];
        -1 where no action is legal). The bot keeps no memory and draws no chance, so a row's action depends
        on that row alone (see `batched_heuristic`)."""
        from snack_envs.snack_time.batched_heuristic import heuristic_from_obs

        obs = np.ascontiguousarray(obs, np.float32).reshape(-1, OBS_SIZE)
        mask = np.ascontiguousarray(mask, np.int8).reshape(-1, NUM_ACTIONS)
        out = np.empty(obs.shape[0], np.int64)
        heuristic_from_obs(obs, mask, out)
        return out
