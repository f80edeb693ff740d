"""Snack Wars' batched kernel: B games as struct-of-arrays state, stepped in numba.

The rules are `snack_wars.rules` (the reference), transcribed: the same draw
up to 9 (reshuffling the discard pile when the draw pile runs out, at a turn's
end or in the middle of a draw), the same choose / steal / discard phases, the
same automatic passes of full collections, the same scoring. Chance is the
deal (a shuffle of the 60 cards) and the reshuffles, each a Fisher-Yates
shuffle on the env's own stream; a step reshuffles at most once (see the
rules' docstring: the rebuilt pile always completes the draw), and `outcomes`
gives that order as the reference's `reshuffle=` keyword. Observations and
masks are `WarsEncoder`'s and the rules' legal actions, entry for entry;
tests/differential holds the two engines together.

`Kernel.heuristic_actions` (from observations and masks) and
`Kernel.heuristic_seats` (from the kernel state) are `heuristic.HeuristicPolicy`
in numba: the same projected lead, computed in the same floating-point order,
so they pick the same action (tests/snack_wars/test_wars_batched.py compares them).
"""

from __future__ import annotations


import numba
import numpy as np

from snack_envs.core.batched import below, python_sum_add, python_sum_result
from snack_envs.snack_wars import heuristic as H
from snack_envs.snack_wars.components import (
    COLLECTION_SIZE,
    FAMILY_OF,
    FIRST_BONUS,
    FOOD_COPIES,
    MULTICOLOUR_BONUS,
    MULTICOLOUR_POINTS,
    NUM_CARDS,
    NUM_FOODS,
    NUM_KINDS,
    NUM_TYPES,
    RACCOON,
    RACCOON_BONUS,
    VALUES,
    copies_by_type,
)
from snack_envs.snack_wars.observation import LAYOUT
from snack_envs.snack_wars.rules import (
    DISCARD,
    MAX_PLAYERS,
    NUM_ACTIONS,
    PHASES,
    STEAL,
    STOP_STEALING,
    SnackWars,
)

CHOOSE_, STEALING_, DISCARDING_ = 0, 1, 2  # phases, in the order of rules.PHASES (the observation's one-hot)
NINE = COLLECTION_SIZE
VALUES_A = np.array(VALUES, np.int64)
FAMILY_OF_A = np.array(FAMILY_OF, np.int64)

# Observation offsets (LAYOUT's fields, in order).
O_COLL = LAYOUT.slices["collections"].start
O_RACC = LAYOUT.slices["raccoons"].start
O_DRAWN = LAYOUT.slices["drawn"].start
O_PHASE = LAYOUT.slices["phase"].start
O_STEALS = LAYOUT.slices["steals_left"].start
O_STOLEN = LAYOUT.slices["stolen"].start
O_PILE = LAYOUT.slices["draw_pile_size"].start
O_DISCARD = LAYOUT.slices["discard"].start
O_TO_ACT = LAYOUT.slices["to_act"].start
O_SEATED = LAYOUT.slices["seated"].start
OBS_SIZE = LAYOUT.size
assert O_SEATED + MAX_PLAYERS == OBS_SIZE

# The heuristic's weights, as the Python bot uses them (the Multicolour term as Python computes it).
LEAD_HOLDS_A = np.array(H.LEAD_HOLDS, np.float64)
LEAD_SAFE = H.LEAD_SAFE
FAMILY_HOPE = H.FAMILY_HOPE
RACCOON_HOPE = H.RACCOON_HOPE
TABLE_SLOT = H.TABLE_SLOT
MULTI_TERM_A = np.array([MULTICOLOUR_POINTS * H.MULTI_HOPE**k for k in range(4)], np.float64)


# --- the rules ------------------------------------------------------------------------------------------------
@numba.njit(cache=True, inline="always")
def _reshuffle(b, rng, deck, top, discard, resh):
    """The discard pile, shuffled, becomes the draw pile (deck[b, top:]); the old pile is empty."""
    k = 0
    for t in range(NUM_TYPES):
        k += discard[b, t]
    start = NUM_CARDS - k
    i = start
    for t in range(NUM_TYPES):
        for _ in range(discard[b, t]):
            deck[b, i] = t
            i += 1
        discard[b, t] = 0
    for i in range(k - 1, 0, -1):  # Fisher-Yates over deck[start:]
        j = below(rng, b, i + 1)
        deck[b, start + i], deck[b, start + j] = deck[b, start + j], deck[b, start + i]
    top[b] = start
    resh[b] = start  # the order, for `outcomes`: deck[b, start:] until the next reshuffle


@numba.njit(cache=True, inline="always")
def _draw(b, rng, deck, top, discard, drawn, size, current, resh):
    """The current player draws up to 9, reshuffling the discard pile if the draw pile runs out."""
    need = NINE - size[b, current[b]]
    t = top[b]
    while need > 0:
        if t == NUM_CARDS:
            _reshuffle(b, rng, deck, top, discard, resh)
            t = top[b]
            if t == NUM_CARDS:  # cannot happen (see the rules' docstring)
                break
        drawn[b, deck[b, t]] += 1
        t += 1
        need -= 1
    top[b] = t


@numba.njit(cache=True)
def _deal(which, rng, copies, deck, top, discard, coll, size, raccoons, drawn, phase, steals_left, stolen,
          current, over, turn, n_passed, resh):
    for b in range(which.shape[0]):
        if not which[b]:
            continue
        i = 0
        for t in range(NUM_TYPES):
            for _ in range(copies[t]):
                deck[b, i] = t
                i += 1
        for i in range(NUM_CARDS - 1, 0, -1):  # Fisher-Yates
            j = below(rng, b, i + 1)
            deck[b, i], deck[b, j] = deck[b, j], deck[b, i]
        top[b] = 0
        discard[b] = 0
        coll[b] = 0
        size[b] = 0
        raccoons[b] = 0
        drawn[b] = 0
        phase[b] = CHOOSE_
        steals_left[b] = 0
        stolen[b] = 0
        current[b] = 0
        over[b] = False
        turn[b] = 0
        n_passed[b] = 0
        resh[b] = -1
        _draw(b, rng, deck, top, discard, drawn, size, current, resh)


@numba.njit(cache=True, inline="always")
def _can_steal(b, p, size):
    n = size.shape[1]
    for q in range(n):
        if q != p and size[b, q] > 0:
            return True
    return False


@numba.njit(cache=True)
def _score(b, coll, raccoons, out, win):
    """Env b's scores (rules.SnackWars.scores) into out[b], and the seats sharing the best one into win[b]."""
    n = coll.shape[1]
    for p in range(n):
        out[b, p] = 0.0
    for f in range(NUM_FOODS):
        best, leader, ties = 0, -1, 0
        for p in range(n):
            c = coll[b, p, f]
            if c > best:
                best, leader, ties = c, p, 1
            elif c == best:
                ties += 1
        if best > 0 and ties == 1:
            out[b, leader] += VALUES_A[f]
    for p in range(n):
        fam0, fam1, fam2 = 0, 0, 0
        for f in range(NUM_FOODS):
            fam = FAMILY_OF_A[f]
            if fam == 0:
                fam0 += coll[b, p, f]
            elif fam == 1:
                fam1 += coll[b, p, f]
            else:
                fam2 += coll[b, p, f]
        if coll[b, p, FIRST_BONUS]:
            out[b, p] += fam0
        if coll[b, p, FIRST_BONUS + 1]:
            out[b, p] += fam1
        if coll[b, p, FIRST_BONUS + 2]:
            out[b, p] += fam2
        if coll[b, p, MULTICOLOUR_BONUS] and min(fam0, min(fam1, fam2)) > 0:
            out[b, p] += MULTICOLOUR_POINTS
        if coll[b, p, RACCOON_BONUS]:
            out[b, p] += raccoons[b, p]
    best = out[b, 0]
    for p in range(1, n):
        best = max(best, out[b, p])
    for p in range(n):
        win[b, p] = out[b, p] == best


@numba.njit(cache=True)
def _score_where(which, coll, raccoons, out, win):
    for b in range(which.shape[0]):
        if which[b]:
            _score(b, coll, raccoons, out, win)


@numba.njit(cache=True)
def _step(actions, live, rng, deck, top, discard, coll, size, raccoons, drawn, phase, steals_left, stolen,
          current, over, turn, passed, n_passed, resh, final, win):
    n = size.shape[1]
    for b in range(actions.shape[0]):
        if not live[b] or over[b]:
            continue
        resh[b] = -1
        p = current[b]
        a = actions[b]
        ph = phase[b]
        if ph == CHOOSE_:
            if a < NUM_FOODS:  # all the Food cards of that value; what does not fit is discarded with the rest
                kept = min(drawn[b, a], NINE - size[b, p])
                coll[b, p, a] += kept
                size[b, p] += kept
                drawn[b, a] -= kept
            elif a < RACCOON:
                coll[b, p, a] += 1
                size[b, p] += 1
                drawn[b, a] -= 1
            else:
                raccoons[b, p] += drawn[b, RACCOON]
                steals_left[b] = drawn[b, RACCOON]
                drawn[b, RACCOON] = 0
                phase[b] = STEALING_
                if _can_steal(b, p, size):
                    continue
                steals_left[b] = 0  # nobody has a card to steal
        elif ph == STEALING_:
            if a != STOP_STEALING:
                r = (a - STEAL) // NUM_KINDS
                kind = (a - STEAL) % NUM_KINDS
                victim = (p + r + 1) % n
                coll[b, victim, kind] -= 1
                size[b, victim] -= 1
                coll[b, p, kind] += 1
                size[b, p] += 1
                stolen[b, kind] += 1
                steals_left[b] -= 1
                if steals_left[b] and _can_steal(b, p, size):
                    continue
            steals_left[b] = 0  # stopped, no raccoon left, or nothing left to steal
        else:
            kind = a - DISCARD
            coll[b, p, kind] -= 1
            size[b, p] -= 1
            stolen[b, kind] -= 1
            discard[b, kind] += 1
        if size[b, p] > NINE:
            phase[b] = DISCARDING_
            continue
        # The end of the turn: the unused cards are discarded, then the turn passes or the game ends.
        for t in range(NUM_TYPES):
            discard[b, t] += drawn[b, t]
            drawn[b, t] = 0
        for k in range(NUM_KINDS):
            stolen[b, k] = 0
        phase[b] = CHOOSE_
        turn[b] += 1
        n_passed[b] = 0
        smallest = NINE
        for q in range(n):
            smallest = min(smallest, size[b, q])
        if smallest == NINE:
            over[b] = True
            current[b] = -1
            _score(b, coll, raccoons, final, win)
            continue
        if top[b] == NUM_CARDS:
            _reshuffle(b, rng, deck, top, discard, resh)
        q = (p + 1) % n
        while size[b, q] == NINE:  # a full collection passes
            passed[b, n_passed[b]] = q
            n_passed[b] += 1
            q = (q + 1) % n
        current[b] = q
        _draw(b, rng, deck, top, discard, drawn, size, current, resh)


@numba.njit(cache=True)
def _masks(seats, out, coll, drawn, phase, stolen, current, over):
    n = coll.shape[1]
    for b in range(seats.shape[0]):
        o = out[b]
        for a in range(NUM_ACTIONS):
            o[a] = 0
        p = seats[b]
        if over[b] or p != current[b]:
            continue
        ph = phase[b]
        if ph == CHOOSE_:
            for t in range(NUM_TYPES):
                if drawn[b, t]:
                    o[t] = 1
        elif ph == STEALING_:
            for r in range(1, n):
                v = (p + r) % n
                base = STEAL + (r - 1) * NUM_KINDS
                for k in range(NUM_KINDS):
                    if coll[b, v, k]:
                        o[base + k] = 1
            o[STOP_STEALING] = 1
        else:
            for k in range(NUM_KINDS):
                if stolen[b, k]:
                    o[DISCARD + k] = 1


@numba.njit(cache=True)
def _encode(seats, out, top, discard, coll, raccoons, drawn, phase, steals_left, stolen, current, over):
    n = coll.shape[1]
    for b in range(seats.shape[0]):
        seat = seats[b]
        o = out[b]
        for r in range(MAX_PLAYERS):
            if r < n:
                p = (seat + r) % n
                for k in range(NUM_KINDS):
                    o[O_COLL + r * NUM_KINDS + k] = coll[b, p, k]
                o[O_RACC + r] = raccoons[b, p]
                o[O_SEATED + r] = 1.0
            else:
                for k in range(NUM_KINDS):
                    o[O_COLL + r * NUM_KINDS + k] = 0.0
                o[O_RACC + r] = 0.0
                o[O_SEATED + r] = 0.0
            o[O_TO_ACT + r] = 0.0
        for t in range(NUM_TYPES):
            o[O_DRAWN + t] = drawn[b, t]
            o[O_DISCARD + t] = discard[b, t]
        for k in range(NUM_KINDS):
            o[O_STOLEN + k] = stolen[b, k]
        for i in range(3):
            o[O_PHASE + i] = 0.0
        if not over[b]:
            o[O_PHASE + phase[b]] = 1.0
            o[O_TO_ACT + (current[b] - seat) % n] = 1.0
        o[O_STEALS] = steals_left[b]
        o[O_PILE] = NUM_CARDS - top[b]


# --- the heuristic (heuristic.HeuristicPolicy, transcribed) ---------------------------------------------------
@numba.njit(cache=True)
def _lead(colls, racc, copies, scores):
    """heuristic.projected_lead: colls [n, 14] and racc [n] seat-relative, the viewer first."""
    n = colls.shape[0]
    slot = TABLE_SLOT / n
    rooms = np.empty(MAX_PLAYERS, np.int64)
    for p in range(n):
        s = 0
        for k in range(NUM_KINDS):
            s += colls[p, k]
        rooms[p] = NINE - s
        scores[p] = slot * rooms[p]
    for f in range(NUM_FOODS):
        top, second, leader, total = -(1 << 40), -(1 << 40), -1, 0
        for p in range(n):
            c = colls[p, f]
            total += c
            if c > top:
                second = top
                top, leader = c, p
            elif c > second:
                second = c
        lead = top - second
        if lead > 0:
            left = copies[f] - total
            most_room = -(1 << 40)
            for p in range(n):
                if p != leader and rooms[p] > most_room:
                    most_room = rooms[p]
            threat = min(left, most_room)
            hold = LEAD_SAFE if lead > threat else LEAD_HOLDS_A[min(lead, 3)]
            scores[leader] += VALUES_A[f] * hold
    for p in range(n):
        any_bonus = False
        for k in range(FIRST_BONUS, NUM_KINDS):
            if colls[p, k]:
                any_bonus = True
        if not any_bonus:
            continue
        room = rooms[p]
        fam0, fam1, fam2 = 0, 0, 0
        for f in range(NUM_FOODS):
            fam = FAMILY_OF_A[f]
            if fam == 0:
                fam0 += colls[p, f]
            elif fam == 1:
                fam1 += colls[p, f]
            else:
                fam2 += colls[p, f]
        if colls[p, FIRST_BONUS]:
            scores[p] += fam0 + FAMILY_HOPE * room
        if colls[p, FIRST_BONUS + 1]:
            scores[p] += fam1 + FAMILY_HOPE * room
        if colls[p, FIRST_BONUS + 2]:
            scores[p] += fam2 + FAMILY_HOPE * room
        if colls[p, MULTICOLOUR_BONUS]:
            missing = (fam0 == 0) + (fam1 == 0) + (fam2 == 0)
            if missing <= room:
                scores[p] += MULTI_TERM_A[missing]
        if colls[p, RACCOON_BONUS]:
            scores[p] += racc[p] + RACCOON_HOPE
    # sum(scores[1:]), as the running Python sums a list of floats
    total, comp = 0.0, 0.0
    for p in range(1, n):
        total, comp = python_sum_add(total, comp, scores[p])
    return scores[0] - python_sum_result(total, comp) / (n - 1)


@numba.njit(cache=True)
def _best_steal(colls, racc, copies, scores, use_mask, mask):
    """heuristic.best_steal: (action, gain), STOP_STEALING if no steal raises the projected lead."""
    n = colls.shape[0]
    before = _lead(colls, racc, copies, scores)
    best_action, best_gain = STOP_STEALING, 0.0
    for r in range(1, n):
        for kind in range(NUM_KINDS):
            action = STEAL + (r - 1) * NUM_KINDS + kind
            if not colls[r, kind] or (use_mask and not mask[action]):
                continue
            colls[r, kind] -= 1
            colls[0, kind] += 1
            gain = _lead(colls, racc, copies, scores) - before
            colls[r, kind] += 1
            colls[0, kind] -= 1
            if gain > best_gain:
                best_action, best_gain = action, gain
    return best_action, best_gain


@numba.njit(cache=True)
def _heuristic_one(colls, racc, drawn, ph, mask, copies, after, after_racc, scores):
    """HeuristicPolicy.act for one seat-relative position; -1 if no action is legal."""
    n = colls.shape[0]
    legal, first = 0, -1
    for a in range(NUM_ACTIONS):
        if mask[a]:
            legal += 1
            if first < 0:
                first = a
    if legal <= 1:
        return first
    if ph == CHOOSE_:
        room = NINE
        for k in range(NUM_KINDS):
            room -= colls[0, k]
        best_action, best_value = first, -np.inf
        for action in range(NUM_TYPES):
            if not mask[action]:
                continue
            after[:n] = colls
            after_racc[:n] = racc
            a_colls, a_racc = after[:n], after_racc[:n]
            if action == RACCOON:
                a_racc[0] += drawn[RACCOON]
                value = _lead(a_colls, a_racc, copies, scores)
                for _ in range(drawn[RACCOON]):  # the steals it would make
                    steal, gain = _best_steal(a_colls, a_racc, copies, scores, False, mask)
                    if steal == STOP_STEALING:
                        break
                    r = (steal - STEAL) // NUM_KINDS
                    kind = (steal - STEAL) % NUM_KINDS
                    a_colls[r + 1, kind] -= 1
                    a_colls[0, kind] += 1
                    value += gain
            else:
                a_colls[0, action] += min(drawn[action], room) if action < NUM_FOODS else 1
                value = _lead(a_colls, a_racc, copies, scores)
            if value > best_value:
                best_action, best_value = action, value
        return best_action
    if ph == STEALING_:
        after[:n] = colls
        steal, _ = _best_steal(after[:n], racc, copies, scores, True, mask)
        return steal
    # discard: the first legal action whose loss leaves the highest projected lead
    after[:n] = colls
    a_colls = after[:n]
    best_action, best_value = -1, -np.inf
    for action in range(DISCARD, NUM_ACTIONS):
        if not mask[action]:
            continue
        a_colls[0, action - DISCARD] -= 1
        value = _lead(a_colls, racc, copies, scores)
        a_colls[0, action - DISCARD] += 1
        if best_action < 0 or value > best_value:
            best_action, best_value = action, value
    return best_action


@numba.njit(cache=True)
def _heuristic_state(seats, out, copies, coll, raccoons, drawn, phase, stolen, current, over):
    """The bot's action for `seats` in every env (-1 where that seat is not to act), from the kernel state."""
    B, n = coll.shape[0], coll.shape[1]
    colls_all = np.zeros((MAX_PLAYERS, NUM_KINDS), np.int64)  # sliced to n rows, as in heuristic_from_obs
    racc_all = np.zeros(MAX_PLAYERS, np.int64)
    colls, racc = colls_all[:n], racc_all[:n]
    dr = np.zeros(NUM_TYPES, np.int64)
    mask = np.zeros((1, NUM_ACTIONS), np.int8)
    one_seat = np.zeros(1, np.int64)
    after = np.zeros((MAX_PLAYERS, NUM_KINDS), np.int64)
    after_racc = np.zeros(MAX_PLAYERS, np.int64)
    scores = np.zeros(MAX_PLAYERS, np.float64)
    for b in range(B):
        seat = seats[b]
        if over[b] or seat != current[b]:
            out[b] = -1
            continue
        for r in range(n):
            p = (seat + r) % n
            for k in range(NUM_KINDS):
                colls[r, k] = coll[b, p, k]
            racc[r] = raccoons[b, p]
        for t in range(NUM_TYPES):
            dr[t] = drawn[b, t]
        one_seat[0] = seat
        _masks(one_seat, mask, coll[b:b + 1], drawn[b:b + 1], phase[b:b + 1], stolen[b:b + 1],
               current[b:b + 1], over[b:b + 1])
        out[b] = _heuristic_one(colls, racc, dr, phase[b], mask[0], copies, after, after_racc, scores)


@numba.njit(cache=True)
def heuristic_from_obs(obs, masks, copies, out):
    """The bot's action for each row of observations [B, D] and masks [B, A] (-1 where none is legal)."""
    colls_all = np.zeros((MAX_PLAYERS, NUM_KINDS), np.int64)
    racc_all = np.zeros(MAX_PLAYERS, np.int64)
    dr = np.zeros(NUM_TYPES, np.int64)
    after = np.zeros((MAX_PLAYERS, NUM_KINDS), np.int64)
    after_racc = np.zeros(MAX_PLAYERS, np.int64)
    scores = np.zeros(MAX_PLAYERS, np.float64)
    for b in range(obs.shape[0]):
        o = obs[b]
        n = 0
        for r in range(MAX_PLAYERS):
            n += int(o[O_SEATED + r])
        for r in range(n):
            for k in range(NUM_KINDS):
                colls_all[r, k] = int(o[O_COLL + r * NUM_KINDS + k])
            racc_all[r] = int(o[O_RACC + r])
        for t in range(NUM_TYPES):
            dr[t] = int(o[O_DRAWN + t])
        ph = DISCARDING_
        if o[O_PHASE] != 0.0:
            ph = CHOOSE_
        elif o[O_PHASE + 1] != 0.0:
            ph = STEALING_
        out[b] = _heuristic_one(colls_all[:n], racc_all[:n], dr, ph, masks[b], copies, after, after_racc, scores)


# --- the kernel -----------------------------------------------------------------------------------------------
class Kernel:
    """B games of Snack Wars (see `snack_envs.core.batched` for the interface)."""

    num_actions = NUM_ACTIONS
    obs_size = OBS_SIZE
    game_class = SnackWars

    def __init__(self, num_envs: int, num_players: int, config: dict):
        B, n = num_envs, num_players
        self.num_players, self.config = n, dict(config)
        self.copies = np.array(copies_by_type(config["food_copies"]), np.int64)
        self.food_copies = np.array(FOOD_COPIES[config["food_copies"]], np.int64)
        self.deck = np.zeros((B, NUM_CARDS), np.int8)  # the draw pile is deck[b, top[b]:], top card first
        self.top = np.full(B, NUM_CARDS, np.int64)
        self.discard = np.zeros((B, NUM_TYPES), np.int8)
        self.coll = np.zeros((B, n, NUM_KINDS), np.int8)
        self.size = np.zeros((B, n), np.int8)  # cards in each collection
        self.raccoons = np.zeros((B, n), np.int8)
        self.drawn = np.zeros((B, NUM_TYPES), np.int8)
        self.phase = np.zeros(B, np.int64)
        self.steals_left = np.zeros(B, np.int64)
        self.stolen = np.zeros((B, NUM_KINDS), np.int8)
        self.current = np.zeros(B, np.int64)
        self.game_over = np.zeros(B, np.bool_)
        self.turn = np.zeros(B, np.int64)
        self.passed = np.zeros((B, MAX_PLAYERS), np.int64)
        self.n_passed = np.zeros(B, np.int64)
        self.resh = np.full(B, -1, np.int64)  # where the last step's reshuffled pile starts in deck, or -1
        self._scores = np.zeros((B, n), np.float64)
        self._winners = np.zeros((B, n), np.bool_)

    def deal(self, which: np.ndarray, rng: np.ndarray) -> None:
        _deal(which, rng, self.copies, self.deck, self.top, self.discard, self.coll, self.size, self.raccoons,
              self.drawn, self.phase, self.steals_left, self.stolen, self.current, self.game_over, self.turn,
              self.n_passed, self.resh)

    def step(self, actions: np.ndarray, live: np.ndarray, rng: np.ndarray) -> None:
        _step(actions, live, rng, self.deck, self.top, self.discard, self.coll, self.size, self.raccoons, self.drawn,
              self.phase, self.steals_left, self.stolen, self.current, self.game_over, self.turn, self.passed,
              self.n_passed, self.resh, self._scores, self._winners)

    def to_act(self) -> np.ndarray:
        return np.maximum(self.current, 0)

    def over(self) -> np.ndarray:
        return self.game_over

    def masks(self, seats: np.ndarray, out: np.ndarray) -> None:
        _masks(seats, out, self.coll, self.drawn, self.phase, self.stolen, self.current, self.game_over)

    def encode(self, seats: np.ndarray, out: np.ndarray) -> None:
        _encode(seats, out, self.top, self.discard, self.coll, self.raccoons, self.drawn, self.phase,
                self.steals_left, self.stolen, self.current, self.game_over)

    def scores(self) -> np.ndarray:
        """The scores of finished games, computed once as each game ends (or is loaded finished); the rows of
        games still in play are not kept current."""
        return self._scores

    def winners(self) -> np.ndarray:
        """The seats sharing the best score, in finished games (`SnackWars.winners`)."""
        return self._winners

    def heuristic_actions(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """`heuristic.HeuristicPolicy.act` for each row of observations [R, D] and masks [R, A] of this
        kernel's game (int64 [R]; -1 for a row with no legal action). The bot keeps no memory and draws
        no chance, so a row's action depends on that row alone."""
        obs = np.ascontiguousarray(obs, np.float32).reshape(-1, OBS_SIZE)
        mask = np.ascontiguousarray(mask, np.int8).reshape(-1, NUM_ACTIONS)
        out = np.empty(obs.shape[0], np.int64)
        heuristic_from_obs(obs, mask, self.food_copies, out)
        return out

    def heuristic_seats(self, seats: np.ndarray, out: np.ndarray) -> None:
        """The same bot, for seat seats[b] of every env b, read from the kernel state (no observation
        needed): out int64 [B], -1 where that seat is not to act."""
        _heuristic_state(np.asarray(seats, np.int64), out, self.food_copies, self.coll, self.raccoons, self.drawn,
                         self.phase, self.stolen, self.current, self.game_over)

    # --- for the search bot (snack_envs.search) -----------------------------------------------------------
    def hidden_pile(self, b: int) -> tuple[str, slice]:
        """Where env b's draw pile lies (field, columns): the cards whose order no player sees."""
        return "deck", slice(int(self.top[b]), NUM_CARDS)

    def forget_chance(self, b: int) -> None:
        """Nothing to forget: Snack Wars draws no chance ahead (the pile's order is its only hidden chance,
        and the reshuffles of the discard pile draw from the stream as they come)."""

    # --- the reference engine ---------------------------------------------------------------------------
    def outcomes(self, b: int) -> dict:
        """The last step's reshuffle order (the only chance of a step; the draws follow the deck, which
        export shows), as the reference `_apply`'s `reshuffle=` keyword."""
        start = self.resh[b]
        return {"reshuffle": self.deck[b, start:].tolist()} if start >= 0 else {}

    def export(self, b: int) -> SnackWars:
        n = self.num_players
        state = {
            "deck": self.deck[b, self.top[b]:].tolist(),
            "discard": self.discard[b].tolist(),
            "collections": self.coll[b].tolist(),
            "raccoons": self.raccoons[b].tolist(),
            "drawn": self.drawn[b].tolist(),
            "phase": PHASES[int(self.phase[b])],
            "steals_left": int(self.steals_left[b]),
            "stolen": self.stolen[b].tolist(),
            "current_player": int(self.current[b]),
            "game_over": bool(self.game_over[b]),
            "turn": int(self.turn[b]),
            "passed": self.passed[b, : self.n_passed[b]].tolist(),
        }
        return SnackWars.from_state(n, dict(self.config), state)

    def load(self, b: int, game: SnackWars) -> None:
        deck = list(game.deck)
        self.top[b] = NUM_CARDS - len(deck)
        self.deck[b, self.top[b]:] = deck
        self.discard[b] = game.discard
        self.coll[b] = game.collections
        self.size[b] = self.coll[b].sum(axis=1)
        self.raccoons[b] = game.raccoons
        self.drawn[b] = game.drawn
        self.phase[b] = PHASES.index(game.phase)
        self.steals_left[b] = game.steals_left
        self.stolen[b] = game.stolen
        self.current[b] = game.current_player
        self.game_over[b] = game.game_over
        self.turn[b] = game.turn
        passed = list(game.passed)
        self.n_passed[b] = len(passed)
        self.passed[b, : len(passed)] = passed
        self.resh[b] = -1
        which = np.zeros(self.deck.shape[0], np.bool_)
        which[b] = game.game_over
        _score_where(which, self.coll, self.raccoons, self._scores, self._winners)
