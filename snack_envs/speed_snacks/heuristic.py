"""A rule-based Speed Snacks player: the baseline that trained agents must beat.

It reads only its own observation and judges a card by one number, its
projected lead: what its kitchen would score now, less what the opponent's
hidden kitchen is expected to score. A player puts snacks where they are
ordered, so the opponent is expected to show OPP_FOLLOWS of its piles as the
orders stand (each snack in proportion to its orders), plus OPP_DISH tops of
the snack of its Dish of the Day. Its own projection counts, besides the
orders for each top card, POTENTIAL per snack on top (orders may still come),
SLOT per free kitchen pile, its Dish of the Day (or DISH_HOPE times the best
one still on the table) and MENU_VALUE per Menu card its tops would fulfil.

Play: every card is placed at once (a card held draws nothing while the
opponent plays on), where it raises the projected lead most. In the kitchen a
snack opens a pile or covers the top in least demand, so a top in demand is
never wasted; in the middle it creates or strengthens demand for its own tops
and covers orders the opponent is expected to fill (on a tie it prefers the
middle: an order nobody of mine needs is better covered). A matching snack on
an unfinished XXL card is worth XXL_STEP (three of them turn -3 into +3).
- Hurry-up: on the order worth the most to it against the opponent, locking it
  in; an order slid under a lone Hurry-up earns SLIDE_LOCK for the same reason.
- Cockroach: onto a pile topped by a cockroach; else a new pile while one is
  free (a snack on top keeps its POTENTIAL, ordered or not); else the pile
  whose top is worth least (a snack nobody orders first).
- Dish of the Day: the one matching the most tops, once DISH_MATCHES match
  (one will do after the third Hurry-up).
- XXL: draw a card (its snack is unknown) only while its own expected draws
  left in the round (DRAWS_FOR_XXL) leave a good chance to fill it, one
  unfinished card at a time, and never in "sizes" mode, whose observation
  shows an XXL card's snack only on the tick it is drawn (this bot does not
  keep track of it).
- Waiting: only when the opponent placed nothing in the last tick and its lead
  is at least WAIT_LEAD points: if both keep waiting, the round ends.
- Inspection: the opponent's biggest pile (its tops are still face down then,
  so a bigger pile is all that promises more cockroaches; the first on a tie).
- Menu cards: three for a toque when it can; else the cheapest choice (+1
  point, or one top counted as another snack) that turns the round into a win
  or a tie, allowing for what the opponent's fulfilled Menus can still do
  after it; else it keeps them.

It keeps a little memory (reset by `reset`): the last tick's draw pile and
opposing kitchen sizes (to tell whether the opponent waited) and, with
kitchen_obs="sizes", its own top cards (a pile that grew got the card it
held). So one policy object follows one seat of one game at a time.
The weights are class attributes (a variant to compare is a subclass); they
were set by matches against a copy with one weight changed. In those matches,
ignoring the opponent, or spreading its tops evenly over the snacks, did much
worse than expecting it to follow the orders.
"""

from __future__ import annotations

import numpy as np

from snack_envs.core.rollout import check_position
from snack_envs.speed_snacks.components import (
    COCKROACH,
    HURRY_UP,
    HURRY_UPS_TO_END,
    KITCHEN_PILES,
    MENU_HAND,
    NUM_HURRY_UPS,
    NUM_SNACKS,
    XXL_TARGET,
)
from snack_envs.speed_snacks.observation import LAYOUT, NUM_XXL, TOP_KINDS
from snack_envs.speed_snacks.rules import (
    CUSTOMER,
    DRAW_XXL,
    HURRY,
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
)

SLICES = tuple(LAYOUT.slices.items())
SNACKS = range(NUM_SNACKS)
UNKNOWN = -1  # a top card forgotten ("sizes" mode)


def one_hot_index(block: list[int]) -> int:
    return block.index(1) if 1 in block else UNKNOWN


def menus_fulfilled(menus: list[tuple[int, int]], tops: list[int]) -> int:
    """How many of the Menu cards in hand the tops fulfil (both need four separate cards)."""
    if not menus:
        return 0
    need = [0] * NUM_SNACKS
    for a, b in menus:
        need[a] += 1
        need[b] += 1
    if all(tops.count(s) >= need[s] for s in SNACKS):
        return len(menus)
    return int(any(a in tops and b in tops for a, b in menus))


class HeuristicPolicy:
    name = "heuristic"

    POTENTIAL = 1.5  # a snack on top of a kitchen pile, whatever its orders now
    SLOT = 0.2  # a free kitchen pile
    DISH_HOPE = 0.5  # the best Dish of the Day still on the table, per matching top
    MENU_VALUE = 1.5  # a Menu card the tops fulfil
    XXL_STEP = 3.0  # a matching snack on an unfinished XXL card
    OPP_FOLLOWS = 0.5  # the share of the opponent's piles expected to show snacks as they are ordered
    OPP_DISH = 1.0  # expected opponent tops of the snack of its Dish of the Day
    SLIDE_LOCK = 0.5  # an order slid under a Hurry-up cannot be covered: this times its worth to me
    WAIT_LEAD = 4.0  # the lead at which it lets the round end when the opponent waits
    DISH_MATCHES = 3  # tops matching a Dish of the Day before it takes it
    DRAWS_FOR_XXL = 20.0  # expected own draws left in the round needed to draw an XXL card

    def __init__(self, num_players: int = 2, kitchen_obs: str = "placed", menu_tie_first: str = "starting_player",
                 **options):
        self.placed = kitchen_obs == "placed"
        self.starter_first_on_a_tie = menu_tie_first == "starting_player"
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        self.memory = [UNKNOWN] * KITCHEN_PILES  # "sizes" mode: my top card on each kitchen pile
        self.last_sizes = [0] * KITCHEN_PILES
        self.last_hand = UNKNOWN
        self.last_seen = (0, [])  # the draw pile and the opponent's kitchen sizes last tick
        self.last_drew = False  # whether my last action drew a card

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        observation, action_mask = check_position("Speed Snacks heuristic", observation, action_mask, LAYOUT.size,
                                                  NUM_ACTIONS)
        values = observation.astype(int).tolist()
        o = {name: values[part] for name, part in SLICES}
        hand = one_hot_index(o["hand"])
        if not self.placed:
            self.remember(o["kitchen_sizes"][:KITCHEN_PILES], hand)
        mask = action_mask.tolist()
        legal = [a for a in range(NUM_ACTIONS) if mask[a]]
        if len(legal) == 1:
            return legal[0]
        if o["phase"][1]:
            return self.inspect(o, legal)
        if o["phase"][2]:
            return self.menu_decision(o, legal)
        return self.play(o, hand, legal)

    def remember(self, sizes: list[int], hand: int) -> None:
        """Only I place cards in my kitchen: a pile that grew got the card I held."""
        if any(s < last for s, last in zip(sizes, self.last_sizes)):  # a new round, an empty kitchen
            self.memory = [UNKNOWN] * KITCHEN_PILES
        for i, (s, last) in enumerate(zip(sizes, self.last_sizes)):
            if s == last + 1:
                self.memory[i] = self.last_hand
        self.last_sizes, self.last_hand = sizes, hand

    # --- reading the table ----------------------------------------------------------------------------
    def read(self, o: dict) -> None:
        """The facts every decision uses, as attributes."""
        sizes = o["kitchen_sizes"]
        self.piles = sum(1 for s in sizes[:KITCHEN_PILES] if s)
        if self.placed or o["phase"][2]:  # face up at scoring (the Menu decisions)
            tops = [one_hot_index(o["my_kitchen_tops"][i * TOP_KINDS : (i + 1) * TOP_KINDS]) for i in range(self.piles)]
            self.tops = [COCKROACH if t == TOP_KINDS - 1 else t for t in tops]
        else:
            self.tops = self.memory[: self.piles]
        self.orders = o["orders"]
        taken = o["dishes_taken"]
        self.dish = one_hot_index(taken[:NUM_SNACKS])
        opp_dish = one_hot_index(taken[NUM_SNACKS:])
        self.dishes_left = [s for s in SNACKS if o["dishes_left"][s]]
        my_menus = o["my_menus"]
        self.menus = []
        for m in range(MENU_HAND):
            pair = [s for s in SNACKS if my_menus[m * NUM_SNACKS + s]]
            if pair:
                self.menus.append(tuple(pair))
        # The opponent's tops: a player puts snacks where they are ordered, and its Dish of the Day on top.
        opp_piles = sum(1 for s in sizes[KITCHEN_PILES:] if s)
        ordered = sum(self.orders)
        share = self.OPP_FOLLOWS * opp_piles / ordered if ordered else 0.0
        self.opp = [share * n for n in self.orders]
        if opp_dish != UNKNOWN:
            self.opp[opp_dish] += self.OPP_DISH

    def value(self, tops: list[int], orders: list[int]) -> float:
        """My projected lead with these tops and orders (see the module docstring)."""
        mine = self.SLOT * (KITCHEN_PILES - len(tops))
        for t in tops:
            if 0 <= t < NUM_SNACKS:
                mine += orders[t] + self.POTENTIAL
        if self.dish != UNKNOWN:
            mine += tops.count(self.dish)
        elif self.dishes_left:
            mine += self.DISH_HOPE * max(tops.count(s) for s in self.dishes_left)
        mine += self.MENU_VALUE * menus_fulfilled(self.menus, tops)
        return mine - sum(w * n for w, n in zip(self.opp, orders))

    def points_lead(self) -> float:
        """The round's expected margin if it ended now."""
        mine = sum(self.orders[t] + (t == self.dish) for t in self.tops if 0 <= t < NUM_SNACKS)
        return mine - sum(w * n for w, n in zip(self.opp, self.orders))

    def worth(self, snack: int) -> float:
        """What one more order of `snack` is worth to me, less what it is expected to give the opponent."""
        return self.tops.count(snack) - self.opp[snack]

    # --- play -----------------------------------------------------------------------------------------
    def play(self, o: dict, hand: int, legal: list[int]) -> int:
        # Only placements draw a card: an unchanged opposing kitchen and a draw pile that shrank by no more than
        # my own placement (if I made one) in the last tick mean that the opponent placed nothing.
        seen = o["draw_pile"][0], o["kitchen_sizes"][KITCHEN_PILES:]
        self.opponent_waited = seen[1] == self.last_seen[1] and 0 <= self.last_seen[0] - seen[0] <= self.last_drew
        action = self.choose(o, hand, legal)
        self.last_seen, self.last_drew = seen, WAIT < action < DRAW_XXL
        return action

    def choose(self, o: dict, hand: int, legal: list[int]) -> int:
        self.read(o)
        tops, orders = self.tops, self.orders
        if hand == HURRY_UP:  # more than one open pile to close
            return max(legal, key=lambda a: self.worth(self.pile_snack(o, a - HURRY)))
        dishes = [a for a in legal if TAKE_DISH <= a < TAKE_DISH + NUM_SNACKS]
        if dishes:
            best = max(dishes, key=lambda a: (tops.count(a - TAKE_DISH), orders[a - TAKE_DISH]))
            matches = tops.count(best - TAKE_DISH)
            if matches >= self.DISH_MATCHES or matches and o["hurry_ups"][0] >= HURRY_UPS_TO_END - 1:
                return best
        if DRAW_XXL in legal and self.placed and self.xxl_draw_pays(o):
            return DRAW_XXL
        if self.opponent_waited and self.points_lead() >= self.WAIT_LEAD:
            return WAIT  # let the round end while ahead
        base = self.value(tops, orders)
        best_action, best_gain = WAIT, float("-inf")
        for action in legal:
            gain = self.gain(o, hand, action, base)
            if gain > best_gain:
                best_action, best_gain = action, gain
        return best_action

    @staticmethod
    def pile_snack(o: dict, i: int) -> int:
        return one_hot_index(o["customer_piles"][i * 9 + 1 : i * 9 + 7])

    def gain(self, o: dict, card: int, action: int, base: float) -> float:
        """How much placing `card` by `action` raises the projected lead (-inf: never)."""
        tops, orders = self.tops, self.orders
        if KITCHEN <= action <= NEW_KITCHEN:
            after = tops + [card] if action == NEW_KITCHEN else tops[:]
            if action < NEW_KITCHEN:
                after[action - KITCHEN] = card
            return self.value(after, orders) - base
        if CUSTOMER <= action <= NEW_CUSTOMER or SLIDE <= action < XXL_PLACE:
            after = orders[:]
            after[card] += 1
            if action < NEW_CUSTOMER:
                after[self.pile_snack(o, action - CUSTOMER)] -= 1
            lock = self.SLIDE_LOCK * self.worth(card) if action >= SLIDE else 0.0
            return self.value(tops, after) - base + lock
        if XXL_PLACE <= action < XXL_PLACE + NUM_XXL:
            j = action - XXL_PLACE
            snack = one_hot_index(o["my_xxl"][j * (1 + NUM_SNACKS) + 1 : (j + 1) * (1 + NUM_SNACKS)])
            stack, matching = o["xxl_stacks"][j], o["my_xxl_matching"][j]
            if snack == card and stack == matching < XXL_TARGET:
                return self.XXL_STEP
        return float("-inf")  # WAIT is the starting point; dishes and XXL draws are decided before

    def xxl_draw_pays(self, o: dict) -> bool:
        """Draw an XXL card when none of mine is unfinished and enough of the round is left to fill it."""
        for j in range(NUM_XXL):
            if o["my_xxl"][j * (1 + NUM_SNACKS)] and o["my_xxl_matching"][j] < XXL_TARGET:
                return False
        placed = o["hurry_ups"][0]
        cards = o["draw_pile"][0] + 2  # the deck and both hands
        # The round ends with the 4th of the Hurry-ups still out: about this many draws away, half of them mine.
        draws_left = (HURRY_UPS_TO_END - placed) * cards / (NUM_HURRY_UPS - placed + 1)
        return draws_left / 2 >= self.DRAWS_FOR_XXL

    # --- scoring decisions ----------------------------------------------------------------------------
    def inspect(self, o: dict, legal: list[int]) -> int:
        sizes = o["kitchen_sizes"][KITCHEN_PILES:]
        return max(legal, key=lambda action: sizes[action - INSPECT])

    def menu_decision(self, o: dict, legal: list[int]) -> int:
        if MENU_TOQUE in legal:
            return MENU_TOQUE
        self.read(o)
        mine, theirs = o["round_points"]
        # Deciding first, I face what the opponent's fulfilled Menu cards can still add after me.
        first = mine > theirs or mine == theirs and o["starting_player"][0 if self.starter_first_on_a_tie else 1]
        held = o["menus_fulfilled"][1] if first else 0
        threat = (0, 1, max(self.orders))[min(held, 2)]

        def outcome(action: int) -> tuple[float, int]:
            if action == MENU_POINT:
                gain, cost = 1, 1
            elif MENU_CHANGE <= action < MENU_TOQUE:
                pile, snack = divmod(action - MENU_CHANGE, NUM_SNACKS)
                old = self.tops[pile]
                gain = self.orders[snack] - self.orders[old] + (snack == self.dish) - (old == self.dish)
                cost = 2
            else:
                gain, cost = 0, 0
            diff = mine + gain - theirs - threat
            return (1.0 if diff > 0 else 0.5 if diff == 0 else 0.0), -cost

        best = max(legal, key=outcome)
        return best if outcome(best)[0] > outcome(MENU_KEEP)[0] else MENU_KEEP
