"""Speed Snacks' batched kernel: B games as struct-of-arrays state, stepped in numba.

The rules are `speed_snacks.rules` (the reference), transcribed tick for tick:
the same speed draws (one uniform per non-wait action of a seat slower than 1),
the same resolution-order draw when both actions go through, the same re-check
of the second action and Hurry-up interrupt, the same scoring, inspection,
Menu decisions and round hand-over (the loser starts; after a tie with equal
toques the rng decides). Chance is drawn in the reference's order (Menu deal,
starting player, deck, XXL pile at the deal; speeds, order, then starting
player, deck, XXL pile for a round that starts in a tick), so every draw maps
onto one of the reference's scripts (`outcomes`). Observations and masks are
`SpeedSnacksEncoder`'s and the rules' legal actions, entry for entry;
tests/differential holds the two engines together.

State: one int32 row per env (`S`, fields at the offsets below) and one int8
row of cards (`C`: the draw pile, the customer piles, the kitchens, the XXL
stacks, and a copy of the last round's table for `last_round`), plus a bool
`game_over`. Piles are fixed-capacity slices with a length field. Capacities,
from the component counts (81 cards at most: 66 snacks, 5 Hurry-ups, 10
cockroaches):
- the draw pile: 81 cards. It is dealt into positions 0..n-1 (top = n-1) and a
  draw only lowers n, so the whole round's order stays readable (`outcomes`);
- a customer pile: 67 (the 66 snacks and one Hurry-up; a cockroach never goes
  there, a second Hurry-up never on the same pile);
- a kitchen pile: 76 (the 66 snacks and 10 cockroaches; never a Hurry-up);
- an XXL stack: 66 (snacks only);
- counts: 5 customer piles, 5 kitchen piles a player, 6 XXL cards, 7 Menu cards
  a player's pile and fulfilled, 2 in a Menu hand, 15 Menu cards out of play.

Speed: the fields that masks and observations read come first in a row, with
each pile's top card (and a customer pile's order) kept there as cards are
placed, so neither reads the card row; both write over every pile slot with
boolean arithmetic rather than branch per present pile, and index
`out[b, k, i]` rather than take a row view (numba reference-counts views).

`Kernel.heuristic_act` is `heuristic.HeuristicPolicy` natively, its memory per
env and seat in the kernel (see there).
"""

from __future__ import annotations

import numba
import numpy as np

from snack_envs.core.batched import below, uniform
from snack_envs.speed_snacks.components import (
    COCKROACH,
    COPIES_PER_SNACK,
    CUSTOMER_PILES,
    HURRY_UP,
    HURRY_UPS_TO_END,
    KITCHEN_PILES,
    MENU_HAND,
    MENUS,
    MENUS_PER_PLAYER,
    NUM_COCKROACHES,
    NUM_KINDS,
    NUM_HURRY_UPS,
    NUM_SNACKS,
    TOQUES_TO_WIN,
    XXL_BONUS,
    XXL_CARDS,
    XXL_PENALTY,
    XXL_TARGET,
)
from snack_envs.speed_snacks.heuristic import HeuristicPolicy
from snack_envs.speed_snacks.observation import LAYOUT
from snack_envs.speed_snacks.rules import (
    CUSTOMER,
    DRAW_XXL,
    HURRY,
    HURRY_NEW,
    INSPECT,
    KITCHEN,
    MENU_CHANGE,
    MENU_KEEP,
    MENU_POINT,
    MENU_TOQUE,
    NEW_CUSTOMER,
    NEW_KITCHEN,
    NUM_ACTIONS,
    SLIDE,
    TAKE_DISH,
    WAIT,
    XXL_PLACE,
    SpeedSnacks,
)

# --- capacities (see the module docstring) ---------------------------------------------------------------
MAX_CARDS = COPIES_PER_SNACK * NUM_SNACKS + NUM_HURRY_UPS + NUM_COCKROACHES  # 81
CAP_CUST = COPIES_PER_SNACK * NUM_SNACKS + 1  # 67
CAP_KIT = COPIES_PER_SNACK * NUM_SNACKS + NUM_COCKROACHES  # 76
CAP_STK = COPIES_PER_SNACK * NUM_SNACKS  # 66
NUM_XXL = len(XXL_CARDS)
NUM_MENUS = len(MENUS)
NK = KITCHEN_PILES
NC = CUSTOMER_PILES
TK = NUM_SNACKS + 1  # a kitchen card's kind as counted: 6 snacks, then the cockroach (index 6)

# phases and tick results, as ints
PLAY, INSPECTION, MENU, OVER = 0, 1, 2, 3
PHASE_NAMES = ("play", "inspection", "menu", "over")
R_WAIT, R_MISSED, R_STOPPED, R_BLOCKED, R_DONE = 0, 1, 2, 3, 4
RESULT_NAMES = ("wait", "missed", "stopped", "blocked", "done")

# config vector (float64)
CF_HEALTH, CF_DISH, CF_XXL, CF_MENU, CF_IDLE, CF_NEWER, CF_TIE_OTHER, CF_PLACED = 0, 1, 2, 3, 4, 5, 6, 7
NUM_CF = 8

MENU_A = np.array([m[0] for m in MENUS], np.int64)
MENU_B = np.array([m[1] for m in MENUS], np.int64)

# --- the int32 state row: field offsets (hot fields first) ---------------------------------------------
_size = 0


def _field(n: int = 1) -> int:
    global _size
    start = _size
    _size += n
    return start


# hot fields first (what masks and observations read), each env's row in a few cache lines
PHASE = _field()
HAND = _field(2)  # -1: none
NCUST = _field()
CTOP = _field(NC)  # each customer pile's top card
CORD = _field(NC)  # the snack it orders (-1: a lone Hurry-up)
CUSTLEN = _field(NC)
NKIT = _field(2)
KTOP = _field(2 * NK)  # each kitchen pile's top card
KITLEN = _field(2 * NK)
NXP = _field()  # XXL pile size
NXC = _field(2)
DISH = _field(2)  # -1: none
DLEFT = _field(NUM_SNACKS)  # 1 where that Dish of the Day is still on the table
NMORD = _field()
MORD = _field(2)
NMFUL = _field(2)
HURRY_UPS = _field()
NDECK = _field()
IDLE = _field()
TOQ = _field(2)
START = _field()
PEN = _field(2)
MBONUS = _field(2)
MCHG = _field(4)  # per seat (pile, snack); pile -1: none
LT_VALID = _field()
LT_ACT = _field(2)
LT_RES = _field(2)
LT_NORD = _field()
LT_ORD = _field(2)
RS_VALID = _field()
RS = _field(2)
# the chance outcomes of the last step
OC_PLAY = _field()  # a tick of play: `through` applies
OC_THROUGH = _field(2)
OC_ORDER = _field()  # both went through: `order` (LT_ORD) was drawn
OC_NEWROUND = _field()  # a round started in this step: `deck`, `xxl_order`
OC_STARTER = _field()  # -1, or the starting player drawn for it
ROUND = _field()
TICK = _field()
XXLC = _field(2 * NUM_XXL)
XLEN = _field(2 * NUM_XXL)
XMATCH = _field(2 * NUM_XXL)  # matching snacks on each XXL card
NMHAND = _field(2)
MHAND = _field(2 * MENU_HAND)  # held longest first
NMPILE = _field(2)
KITCNT = _field(2 * NK * TK)  # cards by kind in each kitchen pile
XXLPILE = _field(NUM_XXL)  # top = NXP - 1
MPILE = _field(2 * MENUS_PER_PLAYER)  # top = NMPILE - 1
MFUL = _field(2 * MENUS_PER_PLAYER)
NMOUT = _field()
MOUT = _field(NUM_MENUS)
INSP = _field(2)  # -1: none
# last_round
LR_VALID = _field()
LR_ROUND = _field()
LR_POINTS = _field(2)
LR_NWIN = _field()
LR_WIN = _field(2)
LR_START = _field()
LR_NCUST = _field()
LR_CUSTLEN = _field(NC)
LR_NKIT = _field(2)
LR_KITLEN = _field(2 * NK)
LR_DISH = _field(2)
LR_NXC = _field(2)
LR_XXLC = _field(2 * NUM_XXL)
LR_XLEN = _field(2 * NUM_XXL)
LR_PEN = _field(2)
LR_INSP = _field(2)
LR_MBONUS = _field(2)
LR_MCHG = _field(4)
LR_TQB = _field(2)
LR_TQA = _field(2)
LR_WITHHELD = _field()
NUM_S = _size

# --- the int8 card row ---------------------------------------------------------------------------------
_size = 0
DECK = _field(MAX_CARDS)
CUST = _field(NC * CAP_CUST)
KIT = _field(2 * NK * CAP_KIT)
STK = _field(2 * NUM_XXL * CAP_STK)
LR_CUST = _field(NC * CAP_CUST)
LR_KIT = _field(2 * NK * CAP_KIT)
LR_STK = _field(2 * NUM_XXL * CAP_STK)
NUM_C = _size
del _size

# observation offsets
_SL = LAYOUT.slices
O_PHASE = _SL["phase"].start
O_DECIDER = _SL["menu_decider"].start
O_HAND = _SL["hand"].start
O_CUST = _SL["customer_piles"].start
O_ORDERS = _SL["orders"].start
O_HURRY = _SL["hurry_ups"].start
O_DRAW = _SL["draw_pile"].start
O_IDLE = _SL["idle"].start
O_KSIZES = _SL["kitchen_sizes"].start
O_MYTOPS = _SL["my_kitchen_tops"].start
O_MYCONT = _SL["my_kitchen_contents"].start
O_OPPTOPS = _SL["opp_kitchen_tops"].start
O_TOQ = _SL["toques"].start
O_START = _SL["starting_player"].start
O_POINTS = _SL["round_points"].start
O_PEN = _SL["penalties"].start
O_DLEFT = _SL["dishes_left"].start
O_DTAKEN = _SL["dishes_taken"].start
O_XPILE = _SL["xxl_pile"].start
O_MYXXL = _SL["my_xxl"].start
O_XSTACKS = _SL["xxl_stacks"].start
O_XMATCH = _SL["my_xxl_matching"].start
O_OPPXXL = _SL["opp_xxl"].start
O_MYMENUS = _SL["my_menus"].start
O_MFUL = _SL["menus_fulfilled"].start
O_MPILES = _SL["menu_piles"].start
O_OPPMHAND = _SL["opp_menu_hand"].start
O_MODULES = _SL["modules"].start
O_SPEEDS = _SL["speeds"].start
OBS_SIZE = LAYOUT.size


# --- small accessors ------------------------------------------------------------------------------------
@numba.njit(inline="always")
def _push_cust(S, C, b, i, card):
    n = S[b, CUSTLEN + i]
    C[b, CUST + i * CAP_CUST + n] = card
    S[b, CUSTLEN + i] = n + 1
    S[b, CTOP + i] = card
    if card != HURRY_UP:
        S[b, CORD + i] = card
    elif n == 0:
        S[b, CORD + i] = -1


@numba.njit(inline="always")
def _push_kit(S, C, b, p, i, card):
    k = p * NK + i
    n = S[b, KITLEN + k]
    C[b, KIT + k * CAP_KIT + n] = card
    S[b, KITLEN + k] = n + 1
    S[b, KTOP + k] = card
    S[b, KITCNT + k * TK + min(card, TK - 1)] += 1


@numba.njit(inline="always")
def _orders(S, C, b, orders):
    for s in range(NUM_SNACKS):
        orders[s] = 0
    for i in range(S[b, NCUST]):
        s = S[b, CORD + i]
        if s >= 0:
            orders[s] += 1


@numba.njit(cache=True)
def _round_points(S, C, b, p, orders):
    """Seat p's points in the current round's scoring (`orders` from `_orders`)."""
    total = 0
    dish = S[b, DISH + p]
    changed_pile = S[b, MCHG + 2 * p]
    for i in range(S[b, NKIT + p]):
        t = S[b, KTOP + p * NK + i]
        if i == changed_pile:
            t = S[b, MCHG + 2 * p + 1]
        if t < NUM_SNACKS:
            total += orders[t]
        if dish >= 0 and t == dish:
            total += 1
    for j in range(S[b, NXC + p]):
        k = p * NUM_XXL + j
        if S[b, XLEN + k] == XXL_TARGET and S[b, XMATCH + k] == XXL_TARGET:
            total += XXL_BONUS
        else:
            total += XXL_PENALTY
    return total - S[b, PEN + p] + S[b, MBONUS + p]


# --- a round -------------------------------------------------------------------------------------------
@numba.njit(cache=True)
def _start_round(S, C, b, starter, cfg, rng):
    S[b, ROUND] += 1
    S[b, PHASE] = PLAY
    S[b, START] = starter
    # the draw pile: the round's cards shuffled (Fisher-Yates), top = last
    k = 0
    for kind in range(NUM_SNACKS):
        for _ in range(COPIES_PER_SNACK):
            C[b, DECK + k] = kind
            k += 1
    for _ in range(NUM_HURRY_UPS):
        C[b, DECK + k] = HURRY_UP
        k += 1
    if cfg[CF_HEALTH]:
        for _ in range(NUM_COCKROACHES):
            C[b, DECK + k] = COCKROACH
            k += 1
    for i in range(k - 1, 0, -1):
        j = below(rng, b, i + 1)
        t = C[b, DECK + i]
        C[b, DECK + i] = C[b, DECK + j]
        C[b, DECK + j] = t
    S[b, NCUST] = 0
    for i in range(NC):
        S[b, CUSTLEN + i] = 0
    for i in range(2):
        S[b, NKIT + i] = 0
    for i in range(2 * NK):
        S[b, KITLEN + i] = 0
    for i in range(2 * NK * TK):
        S[b, KITCNT + i] = 0
    S[b, HURRY_UPS] = 0
    S[b, IDLE] = 0
    S[b, HAND + starter] = C[b, DECK + k - 1]
    S[b, HAND + 1 - starter] = C[b, DECK + k - 2]
    S[b, NDECK] = k - 2
    dish = 1 if cfg[CF_DISH] else 0
    for s in range(NUM_SNACKS):
        S[b, DLEFT + s] = dish
    S[b, DISH] = -1
    S[b, DISH + 1] = -1
    if cfg[CF_XXL]:
        for i in range(NUM_XXL):
            S[b, XXLPILE + i] = i
        for i in range(NUM_XXL - 1, 0, -1):
            j = below(rng, b, i + 1)
            t = S[b, XXLPILE + i]
            S[b, XXLPILE + i] = S[b, XXLPILE + j]
            S[b, XXLPILE + j] = t
        S[b, NXP] = NUM_XXL
    else:
        S[b, NXP] = 0
    for i in range(2):
        S[b, NXC + i] = 0
    for i in range(2 * NUM_XXL):
        S[b, XLEN + i] = 0
        S[b, XMATCH + i] = 0
    for p in range(2):  # Menu hands are topped up to 2 before each round
        while S[b, NMHAND + p] < MENU_HAND and S[b, NMPILE + p] > 0:
            S[b, NMPILE + p] -= 1
            S[b, MHAND + p * MENU_HAND + S[b, NMHAND + p]] = S[b, MPILE + p * MENUS_PER_PLAYER + S[b, NMPILE + p]]
            S[b, NMHAND + p] += 1
    for p in range(2):
        S[b, INSP + p] = -1
        S[b, PEN + p] = 0
        S[b, MBONUS + p] = 0
        S[b, MCHG + 2 * p] = -1
        S[b, MCHG + 2 * p + 1] = 0
    S[b, NMORD] = 0


@numba.njit(cache=True)
def _deal(which, rng, S, C, over, cfg):
    for b in range(which.shape[0]):
        if not which[b]:
            continue
        S[b, :] = 0
        over[b] = False
        if cfg[CF_MENU]:
            deal = np.arange(NUM_MENUS)
            for i in range(NUM_MENUS - 1, 0, -1):
                j = below(rng, b, i + 1)
                deal[i], deal[j] = deal[j], deal[i]
            # seat 0's pile holds deal[0:7] with deal[0] on top (top = last); seat 1's deal[7:14]
            for k in range(MENUS_PER_PLAYER):
                S[b, MPILE + k] = deal[MENUS_PER_PLAYER - 1 - k]
                S[b, MPILE + MENUS_PER_PLAYER + k] = deal[2 * MENUS_PER_PLAYER - 1 - k]
            S[b, NMPILE] = MENUS_PER_PLAYER
            S[b, NMPILE + 1] = MENUS_PER_PLAYER
            S[b, NMOUT] = NUM_MENUS - 2 * MENUS_PER_PLAYER
            for k in range(NUM_MENUS - 2 * MENUS_PER_PLAYER):
                S[b, MOUT + k] = deal[2 * MENUS_PER_PLAYER + k]
        S[b, OC_STARTER] = -1
        starter = below(rng, b, 2)
        _start_round(S, C, b, starter, cfg, rng)


@numba.njit(inline="always")
def _play_mask(S, C, b, p, out, k):
    """The legal actions of seat p in a tick of play, into out[b, k] (zeroed by the caller). Written as
    out[b, k, a], not through a row view (a view per row costs reference counting), and over every pile
    slot with boolean arithmetic instead of branches (fixed trip counts: few mispredicted branches)."""
    hand = S[b, HAND + p]
    n_cust = S[b, NCUST]
    if hand == HURRY_UP:
        any_open = False
        for i in range(n_cust):
            if S[b, CTOP + i] != HURRY_UP:
                out[b, k, HURRY + i] = 1
                any_open = True
        if not any_open:
            out[b, k, HURRY_NEW] = 1
        return
    out[b, k, WAIT] = 1
    snack = hand < NUM_SNACKS  # else a cockroach: kitchen only
    for i in range(NC):
        present = i < n_cust
        closed = S[b, CTOP + i] == HURRY_UP
        out[b, k, CUSTOMER + i] = snack & present & (not closed)
        out[b, k, SLIDE + i] = snack & present & closed & (S[b, CUSTLEN + i] == 1)
    out[b, k, NEW_CUSTOMER] = snack & (n_cust < NC)
    n_xxl = S[b, NXC + p]
    for j in range(NUM_XXL):
        out[b, k, XXL_PLACE + j] = snack & (j < n_xxl)
    n_kit = S[b, NKIT + p]
    for i in range(NK):
        out[b, k, KITCHEN + i] = i < n_kit
    out[b, k, NEW_KITCHEN] = n_kit < NK
    out[b, k, DRAW_XXL] = S[b, NXP] > 0
    no_dish = S[b, DISH + p] < 0
    for s in range(NUM_SNACKS):
        out[b, k, TAKE_DISH + s] = no_dish & (S[b, DLEFT + s] != 0)


@numba.njit(inline="always")
def _play_legal(S, b, p, a):
    """Whether action a of seat p is legal in a tick of play (`_play_mask`'s entry a, without the mask):
    the re-check of the action that resolves second."""
    hand = S[b, HAND + p]
    n_cust = S[b, NCUST]
    if hand == HURRY_UP:
        if HURRY <= a < HURRY_NEW:
            return a - HURRY < n_cust and S[b, CTOP + a - HURRY] != HURRY_UP
        if a == HURRY_NEW:
            for i in range(n_cust):
                if S[b, CTOP + i] != HURRY_UP:
                    return False
            return True
        return False
    if a == WAIT:
        return True
    if a < NEW_CUSTOMER:
        return hand < NUM_SNACKS and a - CUSTOMER < n_cust and S[b, CTOP + a - CUSTOMER] != HURRY_UP
    if a == NEW_CUSTOMER:
        return hand < NUM_SNACKS and n_cust < NC
    if a < NEW_KITCHEN:
        return a - KITCHEN < S[b, NKIT + p]
    if a == NEW_KITCHEN:
        return S[b, NKIT + p] < NK
    if a <= HURRY_NEW:
        return False
    if a < XXL_PLACE:
        i = a - SLIDE
        return hand < NUM_SNACKS and i < n_cust and S[b, CTOP + i] == HURRY_UP and S[b, CUSTLEN + i] == 1
    if a < DRAW_XXL:
        return hand < NUM_SNACKS and a - XXL_PLACE < S[b, NXC + p]
    if a == DRAW_XXL:
        return S[b, NXP] > 0
    if a < INSPECT:
        return S[b, DISH + p] < 0 and S[b, DLEFT + a - TAKE_DISH] != 0
    return False


@numba.njit(inline="always")
def _play(S, C, b, p, action):
    """Carry out a legal play-phase action of seat p."""
    hand = S[b, HAND + p]
    if action < NEW_CUSTOMER:
        _push_cust(S, C, b, action - CUSTOMER, hand)
    elif action == NEW_CUSTOMER:
        i = S[b, NCUST]
        S[b, NCUST] = i + 1
        S[b, CUSTLEN + i] = 0
        _push_cust(S, C, b, i, hand)
    elif action < NEW_KITCHEN:
        _push_kit(S, C, b, p, action - KITCHEN, hand)
    elif action == NEW_KITCHEN:
        i = S[b, NKIT + p]
        S[b, NKIT + p] = i + 1
        _push_kit(S, C, b, p, i, hand)
    elif action <= HURRY_NEW:
        if action == HURRY_NEW:
            i = S[b, NCUST]
            S[b, NCUST] = i + 1
            S[b, CUSTLEN + i] = 0
        else:
            i = action - HURRY
        _push_cust(S, C, b, i, HURRY_UP)
        S[b, HURRY_UPS] += 1
        if S[b, HURRY_UPS] == HURRY_UPS_TO_END:
            S[b, HAND + p] = -1  # the round ends at once: no card is drawn
            return
    elif action < XXL_PLACE:  # slide under a lone Hurry-up
        i = action - SLIDE
        C[b, CUST + i * CAP_CUST] = hand
        C[b, CUST + i * CAP_CUST + 1] = HURRY_UP
        S[b, CUSTLEN + i] = 2
        S[b, CORD + i] = hand
    elif action < DRAW_XXL:
        k = p * NUM_XXL + action - XXL_PLACE
        n = S[b, XLEN + k]
        C[b, STK + k * CAP_STK + n] = hand
        S[b, XLEN + k] = n + 1
        if hand == S[b, XXLC + k]:
            S[b, XMATCH + k] += 1
    elif action == DRAW_XXL:
        n = S[b, NXP] - 1
        S[b, NXP] = n
        j = S[b, NXC + p]
        k = p * NUM_XXL + j
        S[b, XXLC + k] = S[b, XXLPILE + n]
        S[b, XLEN + k] = 0
        S[b, XMATCH + k] = 0
        S[b, NXC + p] = j + 1
        return
    else:
        s = action - TAKE_DISH
        S[b, DISH + p] = s
        S[b, DLEFT + s] = 0
        return
    n = S[b, NDECK] - 1  # never empty here (see the rules' docstring)
    S[b, NDECK] = n
    S[b, HAND + p] = C[b, DECK + n]


@numba.njit(cache=True)
def _finish_round(S, C, b, over, cfg, rng, orders):
    """Hand out the toque(s), end the game or start the next round."""
    _orders(S, C, b, orders)
    p0 = _round_points(S, C, b, 0, orders)
    p1 = _round_points(S, C, b, 1, orders)
    S[b, LR_TQB] = S[b, TOQ]
    S[b, LR_TQB + 1] = S[b, TOQ + 1]
    if p0 == p1:
        S[b, LR_NWIN] = 2
        S[b, LR_WIN] = 0
        S[b, LR_WIN + 1] = 1
        S[b, RS] = 0
        S[b, RS + 1] = 0
        S[b, TOQ] += 1
        S[b, TOQ + 1] += 1
        w = -1
    else:
        w = 0 if p0 > p1 else 1
        S[b, LR_NWIN] = 1
        S[b, LR_WIN] = w
        S[b, RS + w] = 1
        S[b, RS + 1 - w] = -1
        S[b, TOQ + w] += 1
    S[b, RS_VALID] = 1
    r0 = S[b, TOQ] >= TOQUES_TO_WIN
    r1 = S[b, TOQ + 1] >= TOQUES_TO_WIN
    withheld = r0 and r1
    if withheld:  # both at 5 at once: another round decides; the 5th is withheld
        S[b, TOQ] = TOQUES_TO_WIN - 1
        S[b, TOQ + 1] = TOQUES_TO_WIN - 1
    elif r0:
        S[b, TOQ] = TOQUES_TO_WIN
    elif r1:
        S[b, TOQ + 1] = TOQUES_TO_WIN
    # last_round: a copy of the table as it was scored
    S[b, LR_VALID] = 1
    S[b, LR_ROUND] = S[b, ROUND]
    S[b, LR_POINTS] = p0
    S[b, LR_POINTS + 1] = p1
    S[b, LR_START] = S[b, START]
    S[b, LR_NCUST] = S[b, NCUST]
    for i in range(S[b, NCUST]):
        n = S[b, CUSTLEN + i]
        S[b, LR_CUSTLEN + i] = n
        for k in range(n):
            C[b, LR_CUST + i * CAP_CUST + k] = C[b, CUST + i * CAP_CUST + k]
    for p in range(2):
        S[b, LR_NKIT + p] = S[b, NKIT + p]
        for i in range(S[b, NKIT + p]):
            q = p * NK + i
            n = S[b, KITLEN + q]
            S[b, LR_KITLEN + q] = n
            for k in range(n):
                C[b, LR_KIT + q * CAP_KIT + k] = C[b, KIT + q * CAP_KIT + k]
        S[b, LR_NXC + p] = S[b, NXC + p]
        for j in range(S[b, NXC + p]):
            q = p * NUM_XXL + j
            n = S[b, XLEN + q]
            S[b, LR_XXLC + q] = S[b, XXLC + q]
            S[b, LR_XLEN + q] = n
            for k in range(n):
                C[b, LR_STK + q * CAP_STK + k] = C[b, STK + q * CAP_STK + k]
        S[b, LR_DISH + p] = S[b, DISH + p]
        S[b, LR_PEN + p] = S[b, PEN + p]
        S[b, LR_INSP + p] = S[b, INSP + p]
        S[b, LR_MBONUS + p] = S[b, MBONUS + p]
        S[b, LR_MCHG + 2 * p] = S[b, MCHG + 2 * p]
        S[b, LR_MCHG + 2 * p + 1] = S[b, MCHG + 2 * p + 1]
        S[b, LR_TQA + p] = S[b, TOQ + p]
    S[b, LR_WITHHELD] = 1 if withheld else 0
    if (r0 or r1) and not withheld:
        S[b, PHASE] = OVER
        over[b] = True
        return
    if w >= 0:
        starter = 1 - w  # the loser starts
    elif S[b, TOQ] != S[b, TOQ + 1]:
        starter = 0 if S[b, TOQ] < S[b, TOQ + 1] else 1
    else:
        starter = below(rng, b, 2)
        S[b, OC_STARTER] = starter
    S[b, OC_NEWROUND] = 1
    _start_round(S, C, b, starter, cfg, rng)


@numba.njit(cache=True)
def _after_inspection(S, C, b, over, cfg, rng, orders):
    """Top cards are face up now: fulfil Menus, then let Menu holders decide, leader first."""
    if cfg[CF_MENU]:
        have = np.zeros(8, np.int64)
        need = np.zeros(NUM_SNACKS, np.int64)
        for p in range(2):
            have[:] = 0
            need[:] = 0
            for i in range(S[b, NKIT + p]):
                have[S[b, KTOP + p * NK + i]] += 1
            n = S[b, NMHAND + p]
            h = MHAND + p * MENU_HAND
            for m in range(n):
                need[MENU_A[S[b, h + m]]] += 1
                need[MENU_B[S[b, h + m]]] += 1
            every = True
            for s in range(NUM_SNACKS):
                if have[s] < need[s]:
                    every = False
            done = -1  # the hand index fulfilled alone; n: all of them
            if every:
                done = n
            else:
                for r in range(n):
                    m = n - 1 - r if cfg[CF_NEWER] else r
                    if have[MENU_A[S[b, h + m]]] and have[MENU_B[S[b, h + m]]]:
                        done = m
                        break
            if done == n:
                for m in range(n):
                    S[b, MFUL + p * MENUS_PER_PLAYER + S[b, NMFUL + p]] = S[b, h + m]
                    S[b, NMFUL + p] += 1
                S[b, NMHAND + p] = 0
            elif done >= 0:
                S[b, MFUL + p * MENUS_PER_PLAYER + S[b, NMFUL + p]] = S[b, h + done]
                S[b, NMFUL + p] += 1
                for m in range(done, n - 1):
                    S[b, h + m] = S[b, h + m + 1]
                S[b, NMHAND + p] = n - 1
        _orders(S, C, b, orders)
        p0 = _round_points(S, C, b, 0, orders)
        p1 = _round_points(S, C, b, 1, orders)
        if p0 != p1:
            first = 0 if p0 > p1 else 1
        elif not cfg[CF_TIE_OTHER]:
            first = S[b, START]
        else:
            first = 1 - S[b, START]
        k = 0
        if S[b, NMFUL + first]:
            S[b, MORD + k] = first
            k += 1
        if S[b, NMFUL + 1 - first]:
            S[b, MORD + k] = 1 - first
            k += 1
        S[b, NMORD] = k
        if k:
            S[b, PHASE] = MENU
            return
    _finish_round(S, C, b, over, cfg, rng, orders)


@numba.njit(cache=True)
def _end_play(S, C, b, over, cfg, rng, orders):
    if cfg[CF_HEALTH] and (S[b, NKIT] or S[b, NKIT + 1]):
        S[b, PHASE] = INSPECTION
    else:
        _after_inspection(S, C, b, over, cfg, rng, orders)


@numba.njit(cache=True)
def _step(actions, live, rng, S, C, over, cfg, speeds):
    orders = np.zeros(NUM_SNACKS, np.int64)
    idle_ticks = int(cfg[CF_IDLE])
    for b in range(actions.shape[0]):
        if not live[b] or over[b]:
            continue
        S[b, OC_PLAY] = 0
        S[b, OC_ORDER] = 0
        S[b, OC_NEWROUND] = 0
        S[b, OC_STARTER] = -1
        S[b, RS_VALID] = 0
        S[b, TICK] += 1
        a0 = actions[b, 0]
        a1 = actions[b, 1]
        phase = S[b, PHASE]
        if phase == PLAY:
            S[b, OC_PLAY] = 1
            S[b, LT_RES] = R_WAIT
            S[b, LT_RES + 1] = R_WAIT
            ng = 0
            for p in range(2):
                a = a0 if p == 0 else a1
                ok = True
                if a != WAIT:
                    speed = speeds[b, p]
                    ok = speed >= 1.0 or uniform(rng, b) < speed
                    if ok:
                        S[b, LT_ORD + ng] = p
                        ng += 1
                    else:
                        S[b, LT_RES + p] = R_MISSED
                S[b, OC_THROUGH + p] = 1 if ok else 0
            if ng == 2:
                S[b, OC_ORDER] = 1
                if uniform(rng, b) < 0.5:
                    S[b, LT_ORD] = 0
                    S[b, LT_ORD + 1] = 1
                else:
                    S[b, LT_ORD] = 1
                    S[b, LT_ORD + 1] = 0
            round_over = False
            interrupted = False
            for i in range(ng):
                p = S[b, LT_ORD + i]
                a = a0 if p == 0 else a1
                if interrupted:
                    S[b, LT_RES + p] = R_STOPPED
                    continue
                if i > 0 and not _play_legal(S, b, p, a):
                    S[b, LT_RES + p] = R_BLOCKED
                    continue
                _play(S, C, b, p, a)
                S[b, LT_RES + p] = R_DONE
                if HURRY <= a <= HURRY_NEW:
                    interrupted = True
                    round_over = S[b, HURRY_UPS] == HURRY_UPS_TO_END
            if a0 == WAIT and a1 == WAIT:
                S[b, IDLE] += 1
            else:
                S[b, IDLE] = 0
            S[b, LT_VALID] = 1
            S[b, LT_ACT] = a0
            S[b, LT_ACT + 1] = a1
            S[b, LT_NORD] = ng
            if round_over or S[b, IDLE] >= idle_ticks:
                _end_play(S, C, b, over, cfg, rng, orders)
        elif phase == INSPECTION:
            for p in range(2):
                a = a0 if p == 0 else a1
                if a != WAIT:
                    pile = a - INSPECT
                    S[b, INSP + p] = pile
                    S[b, PEN + 1 - p] = S[b, KITCNT + ((1 - p) * NK + pile) * TK + TK - 1]
            _after_inspection(S, C, b, over, cfg, rng, orders)
        else:  # the Menu decisions
            p = S[b, MORD]
            S[b, MORD] = S[b, MORD + 1]
            S[b, NMORD] -= 1
            a = a0 if p == 0 else a1
            given_up = 0
            if a == MENU_POINT:
                given_up = 1
                S[b, MBONUS + p] = 1
            elif MENU_CHANGE <= a < MENU_TOQUE:
                given_up = 2
                S[b, MCHG + 2 * p] = (a - MENU_CHANGE) // NUM_SNACKS
                S[b, MCHG + 2 * p + 1] = (a - MENU_CHANGE) % NUM_SNACKS
            elif a == MENU_TOQUE:
                given_up = 3
                S[b, TOQ + p] += 1
            for _ in range(given_up):  # back to the box
                S[b, NMFUL + p] -= 1
                S[b, MOUT + S[b, NMOUT]] = S[b, MFUL + p * MENUS_PER_PLAYER + S[b, NMFUL + p]]
                S[b, NMOUT] += 1
            if S[b, NMORD] == 0:
                _finish_round(S, C, b, over, cfg, rng, orders)


@numba.njit(cache=True)
def _masks(seats, out, S, C, over):
    """The masks of `seats` into `out` (zeroed by the caller)."""
    for b in range(seats.shape[0]):
        for k in range(seats.shape[1]):
            if over[b]:
                continue
            p = seats[b, k]
            phase = S[b, PHASE]
            if phase == PLAY:
                _play_mask(S, C, b, p, out, k)
            elif phase == INSPECTION:
                n = S[b, NKIT + 1 - p]
                if n:
                    for i in range(n):
                        out[b, k, INSPECT + i] = 1
                else:
                    out[b, k, WAIT] = 1
            elif S[b, MORD] != p:
                out[b, k, WAIT] = 1
            else:
                have = S[b, NMFUL + p]
                out[b, k, MENU_KEEP] = 1
                if have >= 1:
                    out[b, k, MENU_POINT] = 1
                if have >= 2:
                    for i in range(S[b, NKIT + p]):
                        top = S[b, KTOP + p * NK + i]
                        if top < NUM_SNACKS:
                            for s in range(NUM_SNACKS):
                                if s != top:
                                    out[b, k, MENU_CHANGE + i * NUM_SNACKS + s] = 1
                if have >= 3:
                    out[b, k, MENU_TOQUE] = 1


@numba.njit(cache=True)
def _encode(seats, out, S, C, cfg, speeds):
    """The observations of `seats` into `out`: each row zeroed, then the entries that may not be 0.

    Loops run over every pile or card slot, not only the present ones (absent ones hold zero sizes and
    counts, and write a 0 inside their own block): fixed trip counts, far fewer mispredicted branches."""
    orders = np.zeros(NUM_SNACKS, np.int64)
    placed = cfg[CF_PLACED] != 0.0
    dish_on, xxl_on, menu_on = cfg[CF_DISH] != 0.0, cfg[CF_XXL] != 0.0, cfg[CF_MENU] != 0.0
    modules = np.zeros(4, np.float32)
    for m in range(4):
        modules[m] = 1.0 if cfg[CF_HEALTH + m] else 0.0
    for b in range(seats.shape[0]):
        phase = S[b, PHASE]
        scoring = phase == MENU or phase == OVER
        _orders(S, C, b, orders)
        n_cust = S[b, NCUST]
        for k in range(seats.shape[1]):
            me = seats[b, k]
            opp = 1 - me
            for d in range(OBS_SIZE):  # zero the row while it is in cache (cheaper than a separate fill)
                out[b, k, d] = 0.0
            if phase < OVER:
                out[b, k, O_PHASE + phase] = 1.0
            if phase == MENU:
                out[b, k, O_DECIDER + (0 if S[b, MORD] == me else 1)] = 1.0
            hand = S[b, HAND + me]
            out[b, k, O_HAND + (8 if hand < 0 else hand)] = 1.0
            for i in range(n_cust):
                base = O_CUST + 9 * i
                out[b, k, base] = 1.0
                order = S[b, CORD + i]
                if S[b, CTOP + i] != HURRY_UP:
                    out[b, k, base + 1 + order] = 1.0
                elif order >= 0:
                    out[b, k, base + 1 + order] = 1.0
                    out[b, k, base + 7] = 1.0
                else:
                    out[b, k, base + 7] = 1.0
                    out[b, k, base + 8] = 1.0
            for s in range(NUM_SNACKS):
                out[b, k, O_ORDERS + s] = orders[s]
            out[b, k, O_HURRY] = S[b, HURRY_UPS]
            out[b, k, O_DRAW] = S[b, NDECK]
            out[b, k, O_IDLE] = S[b, IDLE]
            n_mine = S[b, NKIT + me]
            n_theirs = S[b, NKIT + opp]
            for i in range(NK):  # an absent pile has size 0
                out[b, k, O_KSIZES + i] = S[b, KITLEN + me * NK + i]
                out[b, k, O_KSIZES + NK + i] = S[b, KITLEN + opp * NK + i]
            if placed or scoring:
                for i in range(NK):
                    out[b, k, O_MYTOPS + TK * i + min(S[b, KTOP + me * NK + i], TK - 1)] = i < n_mine
            if placed:
                for q in range(NK * TK):  # an absent pile counts no cards
                    out[b, k, O_MYCONT + q] = S[b, KITCNT + me * NK * TK + q]
            if scoring:
                for i in range(NK):
                    out[b, k, O_OPPTOPS + TK * i + min(S[b, KTOP + opp * NK + i], TK - 1)] = i < n_theirs
            out[b, k, O_TOQ] = S[b, TOQ + me]
            out[b, k, O_TOQ + 1] = S[b, TOQ + opp]
            out[b, k, O_START + (0 if S[b, START] == me else 1)] = 1.0
            if scoring:
                out[b, k, O_POINTS] = _round_points(S, C, b, me, orders)
                out[b, k, O_POINTS + 1] = _round_points(S, C, b, opp, orders)
            out[b, k, O_PEN] = S[b, PEN + me]
            out[b, k, O_PEN + 1] = S[b, PEN + opp]
            if dish_on:
                for s in range(NUM_SNACKS):
                    out[b, k, O_DLEFT + s] = S[b, DLEFT + s]
                if S[b, DISH + me] >= 0:
                    out[b, k, O_DTAKEN + S[b, DISH + me]] = 1.0
                if S[b, DISH + opp] >= 0:
                    out[b, k, O_DTAKEN + NUM_SNACKS + S[b, DISH + opp]] = 1.0
            if xxl_on:
                out[b, k, O_XPILE] = S[b, NXP]
                n_cards = S[b, NXC + me]
                just_drawn = -1
                if not placed and S[b, LT_VALID] and S[b, LT_ACT + me] == DRAW_XXL and S[b, LT_RES + me] == R_DONE:
                    just_drawn = n_cards - 1
                for j in range(NUM_XXL):  # an absent card: no stack, nothing matching
                    q = me * NUM_XXL + j
                    present = j < n_cards
                    out[b, k, O_MYXXL + (1 + NUM_SNACKS) * j] = present
                    out[b, k, O_MYXXL + (1 + NUM_SNACKS) * j + 1 + S[b, XXLC + q]] = present and (
                        placed or j == just_drawn)
                    out[b, k, O_XSTACKS + j] = S[b, XLEN + q]
                    out[b, k, O_XSTACKS + NUM_XXL + j] = S[b, XLEN + opp * NUM_XXL + j]
                    if placed:
                        out[b, k, O_XMATCH + j] = S[b, XMATCH + q]
                out[b, k, O_OPPXXL] = S[b, NXC + opp]
            if menu_on:
                n_menus = S[b, NMHAND + me]
                for m in range(MENU_HAND):
                    menu = S[b, MHAND + me * MENU_HAND + m]
                    out[b, k, O_MYMENUS + NUM_SNACKS * m + MENU_A[menu]] = m < n_menus
                    out[b, k, O_MYMENUS + NUM_SNACKS * m + MENU_B[menu]] = m < n_menus
                out[b, k, O_MFUL] = S[b, NMFUL + me]
                out[b, k, O_MFUL + 1] = S[b, NMFUL + opp]
                out[b, k, O_MPILES] = S[b, NMPILE + me]
                out[b, k, O_MPILES + 1] = S[b, NMPILE + opp]
                out[b, k, O_OPPMHAND] = S[b, NMHAND + opp]
            for m in range(4):
                out[b, k, O_MODULES + m] = modules[m]
            out[b, k, O_SPEEDS] = speeds[b, me]
            out[b, k, O_SPEEDS + 1] = speeds[b, opp]


# --- the heuristic bot, natively -------------------------------------------------------------------------
# `heuristic.HeuristicPolicy.act`, row by row, in the same float arithmetic and the same tie-breaking (the
# first best action in increasing order). Its memory per seat lives in an int32 row per env and per row of
# the batch's second axis (`H`): the fields below, reset by `deal`.
_size = 0
H_MEMORY = _field(NK)  # "sizes" mode: my top card on each kitchen pile (-1: unknown)
H_LAST_SIZES = _field(NK)
H_LAST_HAND = _field()
H_SEEN = _field()  # 0 until `play` first ran (the bot's last_seen is (0, []) until then)
H_SEEN_DRAW = _field()
H_SEEN_OPP = _field(NK)
H_LAST_DREW = _field()
NUM_H = _size
del _size
H_INITIAL = np.zeros(NUM_H, np.int32)
H_INITIAL[H_MEMORY:H_MEMORY + NK] = -1
H_INITIAL[H_LAST_HAND] = -1
# weights, as floats: HeuristicPolicy's class attributes (a subclass's, see `Kernel.heuristic_act`)
W_NAMES = ("POTENTIAL", "SLOT", "DISH_HOPE", "MENU_VALUE", "XXL_STEP", "OPP_FOLLOWS", "OPP_DISH", "SLIDE_LOCK",
           "WAIT_LEAD", "DISH_MATCHES", "DRAWS_FOR_XXL")
(W_POTENTIAL, W_SLOT, W_DISH_HOPE, W_MENU_VALUE, W_XXL_STEP, W_OPP_FOLLOWS, W_OPP_DISH, W_SLIDE_LOCK, W_WAIT_LEAD,
 W_DISH_MATCHES, W_DRAWS_FOR_XXL) = range(len(W_NAMES))
UNKNOWN = -1
NEG_INF = -np.inf


@numba.njit(inline="always")
def _one_hot(v, start, size):
    """`heuristic.one_hot_index` of v[start:start + size] (as ints)."""
    for i in range(size):
        if int(v[start + i]) == 1:
            return i
    return UNKNOWN


@numba.njit(inline="always")
def _count(tops, n, x):
    c = 0
    for i in range(n):
        if tops[i] == x:
            c += 1
    return c


@numba.njit(cache=True)
def _h_value(tops, n, orders, opp, dish, dishes_left, menus, n_menus, w):
    """`HeuristicPolicy.value`: my projected lead with these tops and orders."""
    mine = w[W_SLOT] * (NK - n)
    for i in range(n):
        t = tops[i]
        if 0 <= t < NUM_SNACKS:
            mine += orders[t] + w[W_POTENTIAL]
    if dish != UNKNOWN:
        mine += _count(tops, n, dish)
    else:
        best = -1
        for s in range(NUM_SNACKS):
            if dishes_left[s]:
                best = max(best, _count(tops, n, s))
        if best >= 0:
            mine += w[W_DISH_HOPE] * best
    mine += w[W_MENU_VALUE] * _h_menus_fulfilled(menus, n_menus, tops, n)
    theirs = 0.0
    for s in range(NUM_SNACKS):
        theirs += opp[s] * orders[s]
    return mine - theirs


@numba.njit(cache=True)
def _h_menus_fulfilled(menus, n_menus, tops, n):
    """`heuristic.menus_fulfilled`."""
    if n_menus == 0:
        return 0
    need = np.zeros(NUM_SNACKS, np.int64)
    for m in range(n_menus):
        need[menus[m, 0]] += 1
        need[menus[m, 1]] += 1
    every = True
    for s in range(NUM_SNACKS):
        if _count(tops, n, s) < need[s]:
            every = False
    if every:
        return n_menus
    for m in range(n_menus):
        if _count(tops, n, menus[m, 0]) and _count(tops, n, menus[m, 1]):
            return 1
    return 0


@numba.njit(inline="always")
def _h_worth(tops, n, opp, snack):
    """`HeuristicPolicy.worth` (a snack of -1 reads opp[-1], as Python does)."""
    return _count(tops, n, snack) - opp[snack % NUM_SNACKS]


@numba.njit(cache=True)
def _h_row(v, m, H, placed, starter_first, w, legal, tops, after, orders, after_orders, opp, dishes_left, menus):
    """One row: `HeuristicPolicy.act(v, m)` with its memory in H (a row of the memory array)."""
    n_legal = 0
    for a in range(NUM_ACTIONS):
        if m[a]:
            legal[n_legal] = a
            n_legal += 1
    if n_legal == 0:
        return -1
    hand = _one_hot(v, O_HAND, (NUM_KINDS + 1))
    if not placed:  # remember: only I place cards in my kitchen, so a pile that grew got the card I held
        shrank = False
        for i in range(NK):
            if int(v[O_KSIZES + i]) < H[H_LAST_SIZES + i]:
                shrank = True
        if shrank:
            for i in range(NK):
                H[H_MEMORY + i] = UNKNOWN
        for i in range(NK):
            size = int(v[O_KSIZES + i])
            if size == H[H_LAST_SIZES + i] + 1:
                H[H_MEMORY + i] = H[H_LAST_HAND]
            H[H_LAST_SIZES + i] = size
        H[H_LAST_HAND] = hand
    if n_legal == 1:
        return legal[0]
    if int(v[O_PHASE + 1]):  # inspection: the opponent's biggest pile, the first on a tie
        best, best_size = legal[0], int(v[O_KSIZES + NK + legal[0] - INSPECT])
        for k in range(1, n_legal):
            size = int(v[O_KSIZES + NK + legal[k] - INSPECT])
            if size > best_size:
                best, best_size = legal[k], size
        return best
    menu_phase = int(v[O_PHASE + 2]) != 0
    if menu_phase and m[MENU_TOQUE]:
        return MENU_TOQUE
    # --- read: the facts every decision uses
    piles = 0
    for i in range(NK):
        if int(v[O_KSIZES + i]):
            piles += 1
    if placed or menu_phase:
        for i in range(piles):
            t = _one_hot(v, O_MYTOPS + i * TK, TK)
            tops[i] = COCKROACH if t == TK - 1 else t
    else:
        for i in range(piles):
            tops[i] = H[H_MEMORY + i]
    ordered = 0
    for s in range(NUM_SNACKS):
        orders[s] = int(v[O_ORDERS + s])
        ordered += orders[s]
    dish = _one_hot(v, O_DTAKEN, NUM_SNACKS)
    opp_dish = _one_hot(v, O_DTAKEN + NUM_SNACKS, NUM_SNACKS)
    for s in range(NUM_SNACKS):
        dishes_left[s] = int(v[O_DLEFT + s]) != 0
    n_menus = 0
    for j in range(MENU_HAND):
        found = 0
        for s in range(NUM_SNACKS):
            if int(v[O_MYMENUS + j * NUM_SNACKS + s]) and found < 2:
                menus[n_menus, found] = s
                found += 1
        if found:
            n_menus += 1
    opp_piles = 0
    for i in range(NK):
        if int(v[O_KSIZES + NK + i]):
            opp_piles += 1
    share = w[W_OPP_FOLLOWS] * opp_piles / ordered if ordered else 0.0
    for s in range(NUM_SNACKS):
        opp[s] = share * orders[s]
    if opp_dish != UNKNOWN:
        opp[opp_dish] += w[W_OPP_DISH]
    if menu_phase:
        return _h_menu(v, m, legal, n_legal, tops, piles, orders, dish, starter_first)
    # --- play: did the opponent place nothing since my last decision in play?
    draw = int(v[O_DRAW])
    waited = H[H_SEEN] != 0 and 0 <= H[H_SEEN_DRAW] - draw <= H[H_LAST_DREW]
    for i in range(NK):
        if int(v[O_KSIZES + NK + i]) != H[H_SEEN_OPP + i]:
            waited = False
    action = _h_choose(v, legal, n_legal, hand, placed, waited, tops, piles, after, orders, after_orders, opp, dish,
                       dishes_left, menus, n_menus, w)
    H[H_SEEN] = 1
    H[H_SEEN_DRAW] = draw
    for i in range(NK):
        H[H_SEEN_OPP + i] = int(v[O_KSIZES + NK + i])
    H[H_LAST_DREW] = 1 if WAIT < action < DRAW_XXL else 0
    return action


@numba.njit(cache=True)
def _h_choose(v, legal, n_legal, hand, placed, waited, tops, n, after, orders, after_orders, opp, dish, dishes_left,
              menus, n_menus, w):
    """`HeuristicPolicy.choose`."""
    if hand == HURRY_UP:  # the open order worth the most to me against the opponent
        best, best_worth = -1, NEG_INF
        for k in range(n_legal):
            a = legal[k]
            worth = _h_worth(tops, n, opp, _one_hot(v, O_CUST + (a - HURRY) * 9 + 1, NUM_SNACKS))
            if best < 0 or worth > best_worth:
                best, best_worth = a, worth
        return best
    best_dish, best_count, best_orders = -1, -1, -1
    for k in range(n_legal):
        a = legal[k]
        if TAKE_DISH <= a < TAKE_DISH + NUM_SNACKS:
            s = a - TAKE_DISH
            c = _count(tops, n, s)
            if best_dish < 0 or c > best_count or c == best_count and orders[s] > best_orders:
                best_dish, best_count, best_orders = a, c, orders[s]
    if best_dish >= 0:
        if best_count >= w[W_DISH_MATCHES] or best_count and int(v[O_HURRY]) >= HURRY_UPS_TO_END - 1:
            return best_dish
    has_draw = False
    for k in range(n_legal):
        if legal[k] == DRAW_XXL:
            has_draw = True
    if has_draw and placed and _h_xxl_draw_pays(v, w):
        return DRAW_XXL
    if waited:
        mine = 0
        for i in range(n):
            t = tops[i]
            if 0 <= t < NUM_SNACKS:
                mine += orders[t] + (1 if t == dish else 0)
        theirs = 0.0
        for s in range(NUM_SNACKS):
            theirs += opp[s] * orders[s]
        if mine - theirs >= w[W_WAIT_LEAD]:
            return WAIT  # let the round end while ahead
    base = _h_value(tops, n, orders, opp, dish, dishes_left, menus, n_menus, w)
    best_action, best_gain = WAIT, NEG_INF
    for k in range(n_legal):
        a = legal[k]
        gain = NEG_INF
        if KITCHEN <= a <= NEW_KITCHEN:
            for i in range(n):
                after[i] = tops[i]
            n_after = n
            if a == NEW_KITCHEN:
                after[n] = hand
                n_after = n + 1
            else:
                after[a - KITCHEN] = hand
            gain = _h_value(after, n_after, orders, opp, dish, dishes_left, menus, n_menus, w) - base
        elif CUSTOMER <= a <= NEW_CUSTOMER or SLIDE <= a < XXL_PLACE:
            for s in range(NUM_SNACKS):
                after_orders[s] = orders[s]
            after_orders[hand] += 1
            if a < NEW_CUSTOMER:
                after_orders[_one_hot(v, O_CUST + (a - CUSTOMER) * 9 + 1, NUM_SNACKS) % NUM_SNACKS] -= 1
            lock = w[W_SLIDE_LOCK] * _h_worth(tops, n, opp, hand) if a >= SLIDE else 0.0
            gain = _h_value(tops, n, after_orders, opp, dish, dishes_left, menus, n_menus, w) - base + lock
        elif XXL_PLACE <= a < XXL_PLACE + NUM_XXL:
            j = a - XXL_PLACE
            snack = _one_hot(v, O_MYXXL + j * (1 + NUM_SNACKS) + 1, NUM_SNACKS)
            stack, matching = int(v[O_XSTACKS + j]), int(v[O_XMATCH + j])
            if snack == hand and stack == matching and matching < XXL_TARGET:
                gain = w[W_XXL_STEP]
        if gain > best_gain:
            best_action, best_gain = a, gain
    return best_action


@numba.njit(cache=True)
def _h_xxl_draw_pays(v, w):
    """`HeuristicPolicy.xxl_draw_pays`: no unfinished XXL card of mine, and enough of the round left."""
    for j in range(NUM_XXL):
        if int(v[O_MYXXL + j * (1 + NUM_SNACKS)]) and int(v[O_XMATCH + j]) < XXL_TARGET:
            return False
    placed = int(v[O_HURRY])
    cards = int(v[O_DRAW]) + 2
    draws_left = (HURRY_UPS_TO_END - placed) * cards / (NUM_HURRY_UPS - placed + 1)
    return draws_left / 2 >= w[W_DRAWS_FOR_XXL]


@numba.njit(cache=True)
def _h_menu(v, m, legal, n_legal, tops, n, orders, dish, starter_first):
    """`HeuristicPolicy.menu_decision` (a toque is taken before)."""
    mine, theirs = int(v[O_POINTS]), int(v[O_POINTS + 1])
    starter = int(v[O_START + (0 if starter_first else 1)])
    first = mine > theirs or mine == theirs and starter != 0
    held = int(v[O_MFUL + 1]) if first else 0
    top_orders = 0
    for s in range(NUM_SNACKS):
        top_orders = max(top_orders, orders[s])
    threat = 0 if held == 0 else 1 if held == 1 else top_orders
    best, best_score, best_cost = -1, -1.0, 0
    keep_score = -1.0
    for k in range(n_legal):
        a = legal[k]
        if a == MENU_POINT:
            gain, cost = 1, 1
        elif MENU_CHANGE <= a < MENU_TOQUE:
            pile, snack = (a - MENU_CHANGE) // NUM_SNACKS, (a - MENU_CHANGE) % NUM_SNACKS
            old = tops[pile]
            gain = orders[snack] - orders[old % NUM_SNACKS] + (1 if snack == dish else 0) - (1 if old == dish else 0)
            cost = 2
        else:
            gain, cost = 0, 0
        diff = mine + gain - theirs - threat
        score = 1.0 if diff > 0 else 0.5 if diff == 0 else 0.0
        if a == MENU_KEEP:
            keep_score = score
        if best < 0 or score > best_score or score == best_score and -cost > -best_cost:
            best, best_score, best_cost = a, score, cost
    if keep_score < 0:  # MENU_KEEP not legal: outcome(MENU_KEEP) is (1.0 or 0.5 or 0.0) by the same rule
        diff = mine - theirs - threat
        keep_score = 1.0 if diff > 0 else 0.5 if diff == 0 else 0.0
    return best if best_score > keep_score else MENU_KEEP


@numba.njit(cache=True)
def _heuristic(obs, mask, which, H, placed, starter_first, w, out):
    legal = np.zeros(NUM_ACTIONS, np.int64)
    tops = np.zeros(NK + 1, np.int64)
    after = np.zeros(NK + 1, np.int64)
    orders = np.zeros(NUM_SNACKS, np.int64)
    after_orders = np.zeros(NUM_SNACKS, np.int64)
    opp = np.zeros(NUM_SNACKS, np.float64)
    dishes_left = np.zeros(NUM_SNACKS, np.bool_)
    menus = np.zeros((MENU_HAND, 2), np.int64)
    for b in range(obs.shape[0]):
        for r in range(obs.shape[1]):
            if not which[b]:
                out[b, r] = -1
                continue
            out[b, r] = _h_row(obs[b, r], mask[b, r], H[b, r], placed, starter_first, w, legal, tops, after, orders,
                               after_orders, opp, dishes_left, menus)


@numba.njit(cache=True)
def _results(S, over, stepped, scores, winners, rounds):
    for b in range(S.shape[0]):
        t0, t1 = S[b, TOQ], S[b, TOQ + 1]
        scores[b, 0], scores[b, 1] = t0, t1
        if over[b]:
            winners[b, 0], winners[b, 1] = t0 >= TOQUES_TO_WIN, t1 >= TOQUES_TO_WIN
        else:
            winners[b, 0], winners[b, 1] = t0 >= t1, t1 >= t0
        scored = stepped[b] and S[b, RS_VALID] != 0
        rounds[b, 0] = S[b, RS] if scored else 0.0
        rounds[b, 1] = S[b, RS + 1] if scored else 0.0


class Kernel:
    """B games of Speed Snacks (see `snack_envs.core.batched` for the interface)."""

    num_actions = NUM_ACTIONS
    obs_size = OBS_SIZE
    game_class = SpeedSnacks

    def __init__(self, num_envs: int, num_players: int, config: dict):
        B = num_envs
        self.num_players, self.config = num_players, config
        cfg = np.zeros(NUM_CF, np.float64)
        cfg[CF_HEALTH], cfg[CF_DISH] = config["health_department"], config["dish_of_the_day"]
        cfg[CF_XXL], cfg[CF_MENU] = config["xxl"], config["menu"]
        cfg[CF_IDLE] = config["idle_ticks"]
        cfg[CF_NEWER] = config["menu_fulfil"] == "newer"
        cfg[CF_TIE_OTHER] = config["menu_tie_first"] == "other_player"
        cfg[CF_PLACED] = config["kitchen_obs"] == "placed"
        self.cfg = cfg
        # `speed_0` / `speed_1` belong to the agents player_0 / player_1 (the config is by agent); the kernel
        # reads them by seat, per env, set for each new game by `seat_agents`.
        self.agent_speeds = np.array([config["speed_0"], config["speed_1"]], np.float64)
        self.speeds = np.tile(self.agent_speeds, (B, 1))
        self.S = np.zeros((B, NUM_S), np.int32)
        self.C = np.zeros((B, NUM_C), np.int8)
        self.game_over = np.zeros(B, np.bool_)
        self.stepped = np.zeros(B, np.bool_)  # the envs that the last `step` call moved on
        self._scores = np.zeros((B, 2), np.float64)
        self._winners = np.zeros((B, 2), np.bool_)
        self._round = np.zeros((B, 2), np.float32)
        self.H = np.tile(H_INITIAL, (B, 2, 1))  # the native heuristic's memory, per env and row (see heuristic_act)
        self.heuristic_weights = np.array([float(getattr(HeuristicPolicy, name)) for name in W_NAMES])

    def seat_agents(self, which: np.ndarray, agent_of_seat: np.ndarray) -> None:
        """The agents seated in the new games where `which`: each seat gets its agent's speed."""
        self.speeds[which] = self.agent_speeds[agent_of_seat[which]]

    def deal(self, which: np.ndarray, rng: np.ndarray) -> None:
        _deal(which, rng, self.S, self.C, self.game_over, self.cfg)
        self.H[which] = H_INITIAL  # a new game: the bot forgets (HeuristicPolicy.reset)

    def step(self, actions: np.ndarray, live: np.ndarray, rng: np.ndarray) -> None:
        np.logical_and(live, ~self.game_over, out=self.stepped)
        _step(actions, live, rng, self.S, self.C, self.game_over, self.cfg, self.speeds)

    def over(self) -> np.ndarray:
        return self.game_over

    def masks(self, seats: np.ndarray, out: np.ndarray) -> None:
        out.fill(0)
        _masks(seats, out, self.S, self.C, self.game_over)

    def encode(self, seats: np.ndarray, out: np.ndarray) -> None:
        _encode(seats, out, self.S, self.C, self.cfg, self.speeds)

    def scores(self) -> np.ndarray:
        _results(self.S, self.game_over, self.stepped, self._scores, self._winners, self._round)
        return self._scores

    def winners(self) -> np.ndarray:
        """The reference's `winners()`: at the end, whoever has 5 toques; before it, the most toques."""
        _results(self.S, self.game_over, self.stepped, self._scores, self._winners, self._round)
        return self._winners

    def round_results(self) -> np.ndarray:
        """The reference's `round_result()` after the last `step` call (0 where it scored no round, and in
        envs that call did not move on: their state still shows a round they scored earlier)."""
        _results(self.S, self.game_over, self.stepped, self._scores, self._winners, self._round)
        return self._round

    def heuristic_act(self, obs: np.ndarray, mask: np.ndarray, envs: np.ndarray | None = None) -> np.ndarray:
        """`heuristic.HeuristicPolicy.act` for every env and row of observations [B, 2, D] and masks [B, 2, A]
        (as `BatchedEnv` gives them, by agent): int64 [B, 2], -1 where no action is legal or outside `envs`.

        The bot remembers between calls (its own tops in "sizes" mode, whether the opponent placed a card
        since its last decision), one memory per env and row, forgotten when `deal` starts a new game
        there. So, as the Python bot, it must see every tick of its seat, and a row must stay one agent
        (or one seat) through a game. Not `heuristic_actions`, the stateless hook that batched_sb3 calls
        with a selection of rows: that would lose the memory."""
        obs = np.asarray(obs, np.float32)
        mask = np.asarray(mask, np.int8)
        B = self.S.shape[0]
        if obs.shape != (B, 2, OBS_SIZE) or mask.shape != (B, 2, NUM_ACTIONS):
            raise ValueError(f"obs and mask must have shapes {(B, 2, OBS_SIZE)} and {(B, 2, NUM_ACTIONS)}")
        which = np.ones(B, np.bool_) if envs is None else np.asarray(envs, np.bool_)
        out = np.empty((B, 2), np.int64)
        _heuristic(obs, mask, which, self.H, self.config["kitchen_obs"] == "placed",
                   self.config["menu_tie_first"] == "starting_player", self.heuristic_weights, out)
        return out

    # --- the reference engine ---------------------------------------------------------------------------
    def outcomes(self, b: int) -> dict:
        """The speed draws and resolution order of a tick of play, and the deal of a round that started in it
        (its draw pile and XXL pile top first, and its starting player where the rng chose)."""
        played, through_0, through_1, ordered, new_round, starter = self.S[b, OC_PLAY:OC_STARTER + 1].tolist()
        out: dict = {}
        if played:
            out["through"] = [bool(through_0), bool(through_1)]
            if ordered:
                out["order"] = self.S[b, LT_ORD:LT_ORD + 2].tolist()
        if new_round:
            total = MAX_CARDS if self.config["health_department"] else MAX_CARDS - NUM_COCKROACHES
            out["deck"] = self.C[b, DECK:DECK + total][::-1].tolist()
            if self.config["xxl"]:
                out["xxl_order"] = self.S[b, XXLPILE:XXLPILE + NUM_XXL][::-1].tolist()
            if starter >= 0:
                out["starting_player"] = starter
        return out

    @staticmethod
    def _table(S, C, n_cust, cust_len, cust, n_kit, kit_len, kit, n_xxl, xxl_cards, xxl_len, stk):
        customer = [list(C[cust + i * CAP_CUST: cust + i * CAP_CUST + S[cust_len + i]]) for i in range(S[n_cust])]
        kitchens = [[list(C[kit + (p * NK + i) * CAP_KIT: kit + (p * NK + i) * CAP_KIT + S[kit_len + p * NK + i]])
                     for i in range(S[n_kit + p])] for p in range(2)]
        cards = [S[xxl_cards + p * NUM_XXL: xxl_cards + p * NUM_XXL + S[n_xxl + p]] for p in range(2)]
        stacks = [[list(C[stk + (p * NUM_XXL + j) * CAP_STK: stk + (p * NUM_XXL + j) * CAP_STK
                          + S[xxl_len + p * NUM_XXL + j]]) for j in range(S[n_xxl + p])] for p in range(2)]
        return customer, kitchens, cards, stacks

    def export(self, b: int) -> SpeedSnacks:
        # The state row as a list and the cards as bytes (cards are 0..7): slicing these is far faster than numpy.
        S, C = self.S[b].tolist(), self.C[b].tobytes()

        def opt(v):
            return None if v < 0 else int(v)

        def changed(at):
            return None if S[at] < 0 else [int(S[at]), int(S[at + 1])]

        customer, kitchens, xxl_cards, xxl_stacks = self._table(S, C, NCUST, CUSTLEN, CUST, NKIT, KITLEN, KIT, NXC,
                                                                XXLC, XLEN, STK)
        last_tick = None
        if S[LT_VALID]:
            last_tick = {"actions": [int(S[LT_ACT]), int(S[LT_ACT + 1])],
                         "order": S[LT_ORD:LT_ORD + S[LT_NORD]],
                         "result": [RESULT_NAMES[S[LT_RES]], RESULT_NAMES[S[LT_RES + 1]]]}
        last_round = None
        if S[LR_VALID]:
            lr_customer, lr_kitchens, lr_cards, lr_stacks = self._table(
                S, C, LR_NCUST, LR_CUSTLEN, LR_CUST, LR_NKIT, LR_KITLEN, LR_KIT, LR_NXC, LR_XXLC, LR_XLEN, LR_STK)
            last_round = {
                "round": int(S[LR_ROUND]), "points": S[LR_POINTS:LR_POINTS + 2],
                "winners": S[LR_WIN:LR_WIN + S[LR_NWIN]], "starting_player": int(S[LR_START]),
                "customer": lr_customer, "kitchens": lr_kitchens,
                "dish": [opt(S[LR_DISH]), opt(S[LR_DISH + 1])], "xxl_cards": lr_cards, "xxl_stacks": lr_stacks,
                "penalties": S[LR_PEN:LR_PEN + 2], "inspected": [opt(S[LR_INSP]), opt(S[LR_INSP + 1])],
                "menu_bonus": S[LR_MBONUS:LR_MBONUS + 2],
                "menu_changed": [changed(LR_MCHG), changed(LR_MCHG + 2)],
                "toques_before": S[LR_TQB:LR_TQB + 2], "toques_after": S[LR_TQA:LR_TQA + 2],
                "withheld": bool(S[LR_WITHHELD]),
            }
        state = {
            "round": int(S[ROUND]), "tick": int(S[TICK]), "phase": PHASE_NAMES[S[PHASE]],
            "starting_player": int(S[START]), "deck": list(C[DECK:DECK + S[NDECK]]),
            "hands": [opt(S[HAND]), opt(S[HAND + 1])], "customer": customer, "kitchens": kitchens,
            "hurry_ups": int(S[HURRY_UPS]), "idle": int(S[IDLE]), "toques": S[TOQ:TOQ + 2],
            "dishes_left": [s for s in range(NUM_SNACKS) if S[DLEFT + s]],
            "dish": [opt(S[DISH]), opt(S[DISH + 1])],
            "xxl_pile": S[XXLPILE:XXLPILE + S[NXP]], "xxl_cards": xxl_cards, "xxl_stacks": xxl_stacks,
            "menu_piles": [S[MPILE + p * MENUS_PER_PLAYER: MPILE + p * MENUS_PER_PLAYER + S[NMPILE + p]]
                           for p in range(2)],
            "menu_hands": [S[MHAND + p * MENU_HAND: MHAND + p * MENU_HAND + S[NMHAND + p]] for p in range(2)],
            "menus_fulfilled": [S[MFUL + p * MENUS_PER_PLAYER: MFUL + p * MENUS_PER_PLAYER + S[NMFUL + p]]
                                for p in range(2)],
            "menus_out": S[MOUT:MOUT + S[NMOUT]],
            "inspected": [opt(S[INSP]), opt(S[INSP + 1])], "penalties": S[PEN:PEN + 2],
            "menu_order": S[MORD:MORD + S[NMORD]], "menu_bonus": S[MBONUS:MBONUS + 2],
            "menu_changed": [changed(MCHG), changed(MCHG + 2)],
            "last_tick": last_tick, "last_round": last_round,
            "round_scored": [float(S[RS]), float(S[RS + 1])] if S[RS_VALID] else None,
            "current_player": -1, "game_over": bool(self.game_over[b]),
        }
        return SpeedSnacks.from_state(2, self.seat_config(b), state)

    def seat_config(self, b: int) -> dict:
        """The game options of env b by seat, as the reference game takes them."""
        return dict(self.config, speed_0=float(self.speeds[b, 0]), speed_1=float(self.speeds[b, 1]))

    def load(self, b: int, game: SpeedSnacks) -> None:
        S, C = self.S[b], self.C[b]
        self.speeds[b] = game.config["speed_0"], game.config["speed_1"]
        S[:] = 0
        C[:] = 0

        def put(at, values):
            S[at:at + len(values)] = values

        def none(v):
            return -1 if v is None else v

        def set_changed(at, c):
            S[at], S[at + 1] = (-1, 0) if c is None else c

        def set_table(n_cust, cust_len, cust, n_kit, kit_len, kit, n_xxl, xxl_cards, xxl_len, stk, customer, kitchens,
                      cards, stacks, count=False):
            S[n_cust] = len(customer)
            for i, pile in enumerate(customer):
                S[cust_len + i] = len(pile)
                if count:
                    S[CTOP + i] = pile[-1]
                    S[CORD + i] = pile[-1] if pile[-1] != HURRY_UP else pile[-2] if len(pile) > 1 else -1
                C[cust + i * CAP_CUST: cust + i * CAP_CUST + len(pile)] = pile
            for p in range(2):
                S[n_kit + p] = len(kitchens[p])
                for i, pile in enumerate(kitchens[p]):
                    q = p * NK + i
                    S[kit_len + q] = len(pile)
                    if count:
                        S[KTOP + q] = pile[-1]
                    C[kit + q * CAP_KIT: kit + q * CAP_KIT + len(pile)] = pile
                    if count:
                        for card in pile:
                            S[KITCNT + q * TK + min(card, TK - 1)] += 1
                S[n_xxl + p] = len(cards[p])
                for j, (snack, stack) in enumerate(zip(cards[p], stacks[p])):
                    q = p * NUM_XXL + j
                    S[xxl_cards + q] = snack
                    S[xxl_len + q] = len(stack)
                    C[stk + q * CAP_STK: stk + q * CAP_STK + len(stack)] = stack
                    if count:
                        S[XMATCH + q] = stack.count(snack)

        S[ROUND], S[TICK] = game.round, game.tick
        S[PHASE] = PHASE_NAMES.index(game.phase)
        S[START] = game.starting_player
        S[NDECK] = len(game.deck)
        C[DECK:DECK + len(game.deck)] = game.deck
        put(HAND, [none(h) for h in game.hands])
        set_table(NCUST, CUSTLEN, CUST, NKIT, KITLEN, KIT, NXC, XXLC, XLEN, STK, game.customer, game.kitchens,
                  game.xxl_cards, game.xxl_stacks, count=True)
        S[HURRY_UPS], S[IDLE] = game.hurry_ups, game.idle
        put(TOQ, game.toques)
        for s in game.dishes_left:
            S[DLEFT + s] = 1
        put(DISH, [none(d) for d in game.dish])
        S[NXP] = len(game.xxl_pile)
        put(XXLPILE, game.xxl_pile)
        for p in range(2):
            S[NMPILE + p] = len(game.menu_piles[p])
            put(MPILE + p * MENUS_PER_PLAYER, game.menu_piles[p])
            S[NMHAND + p] = len(game.menu_hands[p])
            put(MHAND + p * MENU_HAND, game.menu_hands[p])
            S[NMFUL + p] = len(game.menus_fulfilled[p])
            put(MFUL + p * MENUS_PER_PLAYER, game.menus_fulfilled[p])
            set_changed(MCHG + 2 * p, game.menu_changed[p])
        S[NMOUT] = len(game.menus_out)
        put(MOUT, game.menus_out)
        put(INSP, [none(i) for i in game.inspected])
        put(PEN, game.penalties)
        S[NMORD] = len(game.menu_order)
        put(MORD, game.menu_order)
        put(MBONUS, game.menu_bonus)
        tick = game.last_tick
        if tick is not None:
            S[LT_VALID] = 1
            put(LT_ACT, tick["actions"])
            S[LT_NORD] = len(tick["order"])
            put(LT_ORD, tick["order"])
            put(LT_RES, [RESULT_NAMES.index(r) for r in tick["result"]])
        if game.round_scored is not None:
            S[RS_VALID] = 1
            put(RS, [int(r) for r in game.round_scored])
        r = game.last_round
        if r is not None:
            S[LR_VALID], S[LR_ROUND], S[LR_START] = 1, r["round"], r["starting_player"]
            put(LR_POINTS, r["points"])
            S[LR_NWIN] = len(r["winners"])
            put(LR_WIN, r["winners"])
            set_table(LR_NCUST, LR_CUSTLEN, LR_CUST, LR_NKIT, LR_KITLEN, LR_KIT, LR_NXC, LR_XXLC, LR_XLEN, LR_STK,
                      r["customer"], r["kitchens"], r["xxl_cards"], r["xxl_stacks"])
            put(LR_DISH, [none(d) for d in r["dish"]])
            put(LR_PEN, r["penalties"])
            put(LR_INSP, [none(i) for i in r["inspected"]])
            put(LR_MBONUS, r["menu_bonus"])
            set_changed(LR_MCHG, r["menu_changed"][0])
            set_changed(LR_MCHG + 2, r["menu_changed"][1])
            put(LR_TQB, r["toques_before"])
            put(LR_TQA, r["toques_after"])
            S[LR_WITHHELD] = int(r["withheld"])
        S[OC_STARTER] = -1
        self.game_over[b] = game.game_over
