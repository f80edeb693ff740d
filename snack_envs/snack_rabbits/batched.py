"""Snack Rabbits' batched kernel: B games as struct-of-arrays state, stepped in numba.

The rules are `snack_rabbits.rules` (the reference), transcribed: the same deal
(the 63 cards shuffled, Farmer Brown among the bottom 11), the same sun chains,
the same dice (`roll_dice`: one uniform draw per die), the same majorities.
Observations and masks are `RabbitsEncoder`'s and the rules' legal actions,
entry for entry; tests/differential holds the two engines together.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from snack_envs.core.batched import below, uniform
from snack_envs.snack_rabbits.components import (
    CARD_FENCE,
    CARD_KIND,
    DIE_SIDES,
    FARMER_BROWN,
    FARMER_DEPTH,
    FENCES,
    NUM_CARDS,
    NUM_FENCES,
    NUM_KINDS,
    VALUES,
    WHITE_DICE,
    sun_cards,
)
from snack_envs.snack_rabbits.heuristic import DENIAL, DIE_COST, STOP_VALUE
from snack_envs.snack_rabbits.observation import LAYOUT
from snack_envs.snack_rabbits.rules import DICE_CHOICES, MAX_PLAYERS, NUM_ACTIONS, NUM_HOPS, STOP, TAKE_FROM, SnackRabbits

DECK = NUM_CARDS + 1  # the 63 vegetable cards and Farmer Brown
MAX_REVEALED = DECK  # a turn reveals one card and one more per sun card turned over (up to 60 suns)
CARD_FENCE_A = np.array(CARD_FENCE, np.int64)
CARD_KIND_A = np.array(CARD_KIND, np.int64)
FENCES_A = np.array(FENCES, np.int64)
VALUES_A = np.array(VALUES, np.int64)


@numba.njit(cache=True)
def _spaces_empty(fences, b):
    for f in range(NUM_FENCES):
        for k in range(NUM_KINDS):
            if fences[b, f, k]:
                return False
    return True


@numba.njit(cache=True)
def _start_turn(b, deck, top, fences, farmer, revealed, n_revealed, is_sun, over, current):
    """Turn over cards (sun chains included) unless Farmer Brown is out; end the game if due."""
    n_revealed[b] = 0
    while not farmer[b]:
        card = deck[b, top[b]]
        top[b] += 1
        revealed[b, n_revealed[b]] = card
        n_revealed[b] += 1
        if card == FARMER_BROWN:
            farmer[b] = True
            break
        fences[b, CARD_FENCE_A[card], CARD_KIND_A[card]] += 1
        if not is_sun[card]:
            break
    if farmer[b] and _spaces_empty(fences, b):
        over[b] = True
        current[b] = -1


@numba.njit(cache=True)
def _deal(which, rng, deck, top, fences, collections, white, pool, farmer, current, over, turn,
          revealed, n_revealed, hop_player, is_sun):
    for b in range(which.shape[0]):
        if not which[b]:
            continue
        # rng.permutation(63), then Farmer Brown inserted len - k places from the end, k < 11.
        order = np.arange(NUM_CARDS)
        for i in range(NUM_CARDS - 1, 0, -1):
            j = below(rng, b, i + 1)
            order[i], order[j] = order[j], order[i]
        at = NUM_CARDS - below(rng, b, FARMER_DEPTH)
        for i in range(at):
            deck[b, i] = order[i]
        deck[b, at] = FARMER_BROWN
        for i in range(at, NUM_CARDS):
            deck[b, i + 1] = order[i]
        top[b] = 0
        fences[b] = 0
        collections[b] = 0
        white[b] = 0
        pool[b] = WHITE_DICE
        farmer[b] = False
        current[b] = 0
        over[b] = False
        turn[b] = 0
        hop_player[b] = -1
        _start_turn(b, deck, top, fences, farmer, revealed, n_revealed, is_sun, over, current)


@numba.njit(cache=True)
def _step(actions, live, rng, deck, top, fences, collections, white, pool, farmer, current, over, turn,
          revealed, n_revealed, hop_player, hop_fence, hop_roll, hop_dice, hop_taken, is_sun):
    n = white.shape[1]
    for b in range(actions.shape[0]):
        if not live[b] or over[b]:
            continue
        p = current[b]
        action = actions[b]
        hop_player[b] = -1
        if action < NUM_HOPS:
            fence = action // DICE_CHOICES
            extra = action % DICE_CHOICES
            best = 0
            for d in range(1 + extra):
                die = int(uniform(rng, b) * DIE_SIDES) + 1
                hop_roll[b, d] = die
                best = max(best, die)
            taken = 0
            if best >= FENCES_A[fence]:
                for k in range(NUM_KINDS):
                    taken += fences[b, fence, k]
                    collections[b, p, k] += fences[b, fence, k]
                    fences[b, fence, k] = 0
                white[b, p] -= extra
                pool[b] += extra
            hop_player[b], hop_fence[b], hop_dice[b], hop_taken[b] = p, fence, 1 + extra, taken
        elif action == STOP:
            if pool[b] > 0:
                pool[b] -= 1
                white[b, p] += 1
        else:
            victim = (p + action - TAKE_FROM + 1) % n
            white[b, victim] -= 1
            white[b, p] += 1
        turn[b] += 1
        if farmer[b] and _spaces_empty(fences, b):
            over[b] = True
            current[b] = -1
            continue
        current[b] = (p + 1) % n
        _start_turn(b, deck, top, fences, farmer, revealed, n_revealed, is_sun, over, current)


@numba.njit(cache=True)
def _masks(seats, out, fences, white, pool, over, current):
    n = white.shape[1]
    out[:] = 0
    for b in range(seats.shape[0]):
        p = seats[b]
        if over[b] or p != current[b]:
            continue
        for f in range(NUM_FENCES):
            cards = 0
            for k in range(NUM_KINDS):
                cards += fences[b, f, k]
            if cards:
                for w in range(white[b, p] + 1):
                    out[b, f * DICE_CHOICES + w] = 1
        if pool[b] > 0:
            out[b, STOP] = 1
        else:
            any_take = False
            for r in range(1, n):
                if white[b, (p + r) % n]:
                    out[b, TAKE_FROM + r - 1] = 1
                    any_take = True
            if not any_take:
                out[b, STOP] = 1


@numba.njit(cache=True)
def _encode(seats, out, fences, collections, white, pool, top, farmer, over, current):
    n = white.shape[1]
    for b in range(seats.shape[0]):
        seat = seats[b]
        o = out[b]
        o[:] = 0.0
        i = 0
        for f in range(NUM_FENCES):
            for k in range(NUM_KINDS):
                o[i] = fences[b, f, k]
                i += 1
        for r in range(n):
            p = (seat + r) % n
            for k in range(NUM_KINDS):
                o[i + r * NUM_KINDS + k] = collections[b, p, k]
        i += MAX_PLAYERS * NUM_KINDS
        for r in range(n):
            o[i + r] = white[b, (seat + r) % n]
        i += MAX_PLAYERS
        o[i] = pool[b]
        i += 1
        for k in range(NUM_KINDS):
            seen = 0
            for f in range(NUM_FENCES):
                seen += fences[b, f, k]
            for p in range(n):
                seen += collections[b, p, k]
            o[i + k] = VALUES_A[k] - seen
        i += NUM_KINDS
        o[i] = DECK - top[b]
        o[i + 1] = 1.0 if farmer[b] else 0.0
        i += 2
        if not over[b]:
            o[i + (current[b] - seat) % n] = 1.0
        i += MAX_PLAYERS
        for r in range(n):
            o[i + r] = 1.0


@numba.njit(cache=True)
def _scores(collections, out):
    n = collections.shape[1]
    for b in range(collections.shape[0]):
        for p in range(n):
            out[b, p] = 0.0
        for k in range(NUM_KINDS):
            best = 0
            for p in range(n):
                best = max(best, collections[b, p, k])
            for p in range(n):
                c = collections[b, p, k]
                out[b, p] += VALUES_A[k] if best > 0 and c == best else c


FENCES_AT = LAYOUT.slices["fences"].start
COLLECTIONS_AT = LAYOUT.slices["collections"].start
WHITE_AT = LAYOUT.slices["white_dice"].start
FARMER_AT = LAYOUT.slices["farmer_revealed"].start


@numba.njit(cache=True)
def _added_points(obs, fence_at, hand_at, best):
    """`heuristic.added_points`: the points a fence's cards add to the hand at `hand_at` against `best`."""
    gain = 0.0
    for k in range(NUM_KINDS):
        c = int(obs[fence_at + k])
        if c:
            m, o = int(obs[hand_at + k]), best[k]
            before = VALUES_A[k] if m and m >= o else m
            after = VALUES_A[k] if m + c >= o else m + c
            gain += after - before
    return gain


@numba.njit(cache=True)
def _heuristic(obs, mask, n, out):
    """`heuristic.HeuristicPolicy.act` for each row, in the same arithmetic (ties: the first action)."""
    best = np.zeros(NUM_KINDS, np.int64)
    for row in range(obs.shape[0]):
        o, m = obs[row], mask[row]
        best_action, best_value = -1, -np.inf
        for f in range(NUM_FENCES):
            fence_at = FENCES_AT + f * NUM_KINDS
            cards = 0
            for k in range(NUM_KINDS):
                cards += int(o[fence_at + k])
            if not cards:
                continue
            for k in range(NUM_KINDS):  # the most any opponent holds
                best[k] = 0
                for p in range(1, n):
                    best[k] = max(best[k], int(o[COLLECTIONS_AT + p * NUM_KINDS + k]))
            gain = _added_points(o, fence_at, COLLECTIONS_AT, best)
            denied = -np.inf
            for i in range(1, n):  # the haul given to opponent i, against everybody else
                for k in range(NUM_KINDS):
                    best[k] = 0
                    for p in range(n):
                        if p != i:
                            best[k] = max(best[k], int(o[COLLECTIONS_AT + p * NUM_KINDS + k]))
                denied = max(denied, _added_points(o, fence_at, COLLECTIONS_AT + i * NUM_KINDS, best))
            gain = gain + DENIAL * denied
            miss = (FENCES_A[f] - 1) / 6
            for w in range(DICE_CHOICES):
                action = f * DICE_CHOICES + w
                if m[action]:
                    value = (1 - math.pow(miss, 1 + w)) * (gain - DIE_COST * w)
                    if value > best_value:
                        best_action, best_value = action, value
        threshold = 0.0 if o[FARMER_AT] else STOP_VALUE
        if best_action >= 0 and best_value > threshold:
            out[row] = best_action
        elif m[STOP]:
            out[row] = STOP
        else:
            out[row] = -1
            most = -1
            for a in range(TAKE_FROM, TAKE_FROM + MAX_PLAYERS - 1):
                if m[a] and o[WHITE_AT + a - TAKE_FROM + 1] > most:
                    out[row], most = a, o[WHITE_AT + a - TAKE_FROM + 1]
            if out[row] < 0:
                for a in range(NUM_ACTIONS):
                    if m[a]:
                        out[row] = a
                        break


class Kernel:
    """B games of Snack Rabbits (see `snack_envs.core.batched` for the interface)."""

    num_actions = NUM_ACTIONS
    obs_size = LAYOUT.size
    game_class = SnackRabbits

    def __init__(self, num_envs: int, num_players: int, config: dict):
        B, n = num_envs, num_players
        self.num_players, self.config = n, config
        self.is_sun = np.zeros(NUM_CARDS + 1, np.bool_)
        self.is_sun[list(sun_cards(config["suns_per_fence"]))] = True
        self.deck = np.zeros((B, DECK), np.int64)
        self.top = np.zeros(B, np.int64)
        self.fences = np.zeros((B, NUM_FENCES, NUM_KINDS), np.int64)
        self.collections = np.zeros((B, n, NUM_KINDS), np.int64)
        self.white = np.zeros((B, n), np.int64)
        self.pool = np.zeros(B, np.int64)
        self.farmer = np.zeros(B, np.bool_)
        self.current = np.zeros(B, np.int64)
        self.game_over = np.zeros(B, np.bool_)
        self.turn = np.zeros(B, np.int64)
        self.revealed = np.zeros((B, MAX_REVEALED), np.int64)
        self.n_revealed = np.zeros(B, np.int64)
        self.hop_player = np.full(B, -1, np.int64)
        self.hop_fence = np.zeros(B, np.int64)
        self.hop_roll = np.zeros((B, 1 + WHITE_DICE), np.int64)
        self.hop_dice = np.zeros(B, np.int64)
        self.hop_taken = np.zeros(B, np.int64)
        self._scores = np.zeros((B, n), np.float64)

    def deal(self, which: np.ndarray, rng: np.ndarray) -> None:
        _deal(which, rng, self.deck, self.top, self.fences, self.collections, self.white, self.pool, self.farmer,
              self.current, self.game_over, self.turn, self.revealed, self.n_revealed, self.hop_player, self.is_sun)

    def step(self, actions: np.ndarray, live: np.ndarray, rng: np.ndarray) -> None:
        _step(actions, live, rng, self.deck, self.top, self.fences, self.collections, self.white, self.pool, self.farmer,
              self.current, self.game_over, self.turn, self.revealed, self.n_revealed, self.hop_player,
              self.hop_fence, self.hop_roll, self.hop_dice, self.hop_taken, self.is_sun)

    def to_act(self) -> np.ndarray:
        return np.maximum(self.current, 0)

    def over(self) -> np.ndarray:
        return self.game_over

    def masks(self, seats: np.ndarray, out: np.ndarray) -> None:
        _masks(seats, out, self.fences, self.white, self.pool, self.game_over, self.current)

    def encode(self, seats: np.ndarray, out: np.ndarray) -> None:
        _encode(seats, out, self.fences, self.collections, self.white, self.pool, self.top, self.farmer,
                self.game_over, self.current)

    def scores(self) -> np.ndarray:
        _scores(self.collections, self._scores)
        return self._scores

    def winners(self) -> np.ndarray:
        scores = self.scores()
        return scores == scores.max(axis=1, keepdims=True)

    def heuristic_actions(self, obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """`heuristic.HeuristicPolicy.act` for each row of observations [R, D] and masks [R, A] (int64 [R],
        -1 where no action is legal). The bot keeps no memory and draws no chance."""
        obs = np.ascontiguousarray(obs, np.float32).reshape(-1, LAYOUT.size)
        mask = np.ascontiguousarray(mask, np.int8).reshape(-1, NUM_ACTIONS)
        out = np.empty(obs.shape[0], np.int64)
        _heuristic(obs, mask, self.num_players, out)
        return out

    # --- the reference engine ---------------------------------------------------------------------------
    def outcomes(self, b: int) -> dict:
        """A hop's dice, the only chance of a step (a turn's reveals follow the deck, which export shows)."""
        return {"roll": self.hop_roll[b, : self.hop_dice[b]].tolist()} if self.hop_player[b] >= 0 else {}

    def export(self, b: int) -> SnackRabbits:
        n = self.num_players
        last_hop = None
        if self.hop_player[b] >= 0:
            last_hop = {"player": int(self.hop_player[b]), "fence": int(self.hop_fence[b]),
                        "roll": self.hop_roll[b, : self.hop_dice[b]].tolist(), "taken": int(self.hop_taken[b])}
        state = {
            "deck": self.deck[b, self.top[b]:].tolist(),
            "fences": self.fences[b].tolist(),
            "collections": self.collections[b].tolist(),
            "white": self.white[b].tolist(),
            "pool": int(self.pool[b]),
            "farmer_revealed": bool(self.farmer[b]),
            "current_player": int(self.current[b]),
            "game_over": bool(self.game_over[b]),
            "turn": int(self.turn[b]),
            "revealed_this_turn": self.revealed[b, : self.n_revealed[b]].tolist(),
            "last_hop": last_hop,
        }
        return SnackRabbits.from_state(n, dict(self.config), state)

    def load(self, b: int, game: SnackRabbits) -> None:
        deck = list(game.deck)
        self.top[b] = DECK - len(deck)
        self.deck[b, self.top[b]:] = deck
        self.fences[b] = game.fences
        self.collections[b] = game.collections
        self.white[b] = game.white
        self.pool[b] = game.pool
        self.farmer[b] = game.farmer_revealed
        self.current[b] = game.current_player
        self.game_over[b] = game.game_over
        self.turn[b] = game.turn
        revealed = list(game.revealed_this_turn)
        self.n_revealed[b] = len(revealed)
        self.revealed[b, : len(revealed)] = revealed
        hop = game.last_hop
        self.hop_player[b] = -1 if hop is None else hop["player"]
        if hop is not None:
            self.hop_fence[b], self.hop_dice[b], self.hop_taken[b] = hop["fence"], len(hop["roll"]), hop["taken"]
            self.hop_roll[b, : len(hop["roll"])] = hop["roll"]
