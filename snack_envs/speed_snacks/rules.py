"""Speed Snacks' rules (shared/rules/speed_snacks.txt): state and transitions, no RL code.

Two players act at the same time. The game runs in ticks: in a tick each
player gives one action, and `apply_joint` resolves both. A game is a series
of rounds; a round is a play phase followed by scoring, which may ask for
decisions (Module 1's inspection, Module 4's Menu cards).

Actions (75, the same whatever the modules; the mask shows what is legal):
- 0        wait (also the only action of a player with nothing to decide);
- 1..5     place the snack in hand on customer pile i (1-based in strings);
- 6        open a new customer pile with the snack in hand;
- 7..11    place the card in hand (snack or cockroach) face down on kitchen pile i;
- 12       open a new kitchen pile with it;
- 13..17   Hurry-up in hand: place it on customer pile i, closing it;
- 18       Hurry-up in hand: open a new customer pile with it (no pile can take it);
- 19..23   slide the snack in hand under the lone Hurry-up of customer pile i;
- 24..29   (Module 3) place the snack in hand on one's j-th XXL card;
- 30       (Module 3) draw an XXL card;
- 31..36   (Module 2) take the Dish of the Day of snack s;
- 37..41   (Module 1, scoring) inspect the opponent's kitchen pile i;
- 42       (Module 4, scoring) give up no Menu card;
- 43       (Module 4) give up 1 fulfilled Menu card: +1 point;
- 44..73   (Module 4) give up 2: count the top card of kitchen pile i as snack s (44 + 6 i + s);
- 74       (Module 4) give up 3: take a toque.
After a placement the next card is drawn at once (not after the 4th Hurry-up).
Piles keep their index for the whole round; a new pile gets the next one.

A tick of play: each action that is not "wait" goes through with the
player's `speed` probability (drawn from the rng, none drawn at speed 1).
When both go through, the order in which they resolve is drawn from the rng.
Each action is checked again when it resolves; one that the other player's
earlier action has made illegal (the last free customer pile taken, the same
dish taken, the pile slid under) does nothing. A Hurry-up that resolves first
stops the other player's action in that tick (the card stays in hand).

Readings chosen where the rulebook is silent:
- Ticks, waiting, the seeded resolution order and the Hurry-up interrupt
  follow COMPONENTS.md. A Hurry-up "interrupts the game", so it stops any
  action of the other player in that tick, also drawing an XXL card or taking
  a dish.
- A Hurry-up in hand is called "immediately": its holder cannot wait or do
  anything else until it is placed. Any other card may be held (waiting).
- The round ends when both players chose "wait" in `idle_ticks` ticks in a
  row (default 3): "neither of you wants to place a card". Cards still in hand
  at the end of a round are lost to it.
- DERIVED: the draw pile never runs out during play. At most 3 Hurry-ups lie
  on the piles, so when the pile is empty both hands hold the last two, and
  the next one placed is the 4th (after which nobody draws).
- The starting player of a round draws the first card, the other player the
  second, before the first tick. The first round's starting player is drawn
  from the rng (food stains are not modelled). After a tied round with equal
  toques, the rng decides ("whoever calls faster").
- A Hurry-up goes on a customer pile without one; only when every pile has one
  (or there is none) does it open a new pile, which is closed at once. A Snack
  card may be slid under such a lone Hurry-up once; the pile then counts as a
  customer order for that snack. The snack under a Hurry-up stays visible and
  counts as the pile's order.
- Module 1: both players choose the pile to inspect at the same time (the
  choices are independent). A player whose opponent has no kitchen pile has
  nothing to inspect. A cockroach must go to the kitchen; it may not go on an
  XXL card.
- Module 2: taking a dish is an action of its own in a tick of play (not
  with a Hurry-up in hand).
- Module 3: drawing an XXL card is an action of its own; the XXL pile is
  reshuffled each round and unplaced XXL cards go back. XXL cards drawn score
  whether or not anything was placed on them (an empty one is -3).
- Module 4: a Menu is fulfilled by two face-up top kitchen cards of its
  snacks (a cockroach fulfils nothing); both Menus need four separate cards.
  Fulfilled Menus are kept (face up, public) until given up.
- Module 4, two readings the rulebook leaves open, each a DEFAULT with an
  option:
  - `menu_fulfil`: when either Menu alone but not both can be fulfilled, the
    rulebook lets the player choose. DEFAULT "held_longer": the one held
    longer is fulfilled; "newer": the one drawn last. The choice changes no
    points in this scoring, only which card stays in hand for later rounds,
    so it is not a decision here: a decision would add actions and a phase to
    every module set's spaces.
  - `menu_tie_first`: "The player who ... has more points must decide first
    ...; then the other player, after them (in case of a tie, the player who
    was not the starting player of the round)". DEFAULT "starting_player":
    the parenthesis names who decides *after*, so on a tie the starting
    player decides first; "other_player": the parenthesis names who decides
    first.
  Giving up 2 changes one top snack card (not a cockroach) for the rest of
  this scoring, Dish of the Day included.
- Toques: a toque taken with 3 Menus counts at once. When both players have 5
  or more after a scoring, both go back to 4 and another round is played (the
  5th is withheld); otherwise a player with 5 wins (a 6th is never needed).
- The loser of a round is the player with fewer points in it, whatever the
  Menu toques.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from snack_envs.core.game import (
    Boolean,
    ConfigError,
    IntIn,
    Items,
    ListOf,
    NumberIn,
    OneOf,
    Option,
    OrNone,
    Record,
    SimultaneousGame,
)
from snack_envs.speed_snacks.components import (
    COCKROACH,
    CUSTOMER_PILES,
    HURRY_UP,
    HURRY_UPS_TO_END,
    KIND_NAMES,
    KITCHEN_PILES,
    MENU_CHANGE_COST,
    MENU_HAND,
    MENU_POINT_COST,
    MENU_TOQUE_COST,
    MENUS,
    MENUS_PER_PLAYER,
    NUM_COCKROACHES,
    NUM_KINDS,
    NUM_SNACKS,
    NUM_TOQUES,
    SNACKS,
    TOQUES_TO_WIN,
    XXL_BONUS,
    XXL_CARDS,
    XXL_PENALTY,
    XXL_TARGET,
    deck_counts,
    new_deck,
)

WAIT = 0
CUSTOMER = 1
NEW_CUSTOMER = CUSTOMER + CUSTOMER_PILES  # 6
KITCHEN = NEW_CUSTOMER + 1  # 7
NEW_KITCHEN = KITCHEN + KITCHEN_PILES  # 12
HURRY = NEW_KITCHEN + 1  # 13
HURRY_NEW = HURRY + CUSTOMER_PILES  # 18
SLIDE = HURRY_NEW + 1  # 19
XXL_PLACE = SLIDE + CUSTOMER_PILES  # 24
DRAW_XXL = XXL_PLACE + len(XXL_CARDS)  # 30
TAKE_DISH = DRAW_XXL + 1  # 31
INSPECT = TAKE_DISH + NUM_SNACKS  # 37
MENU_KEEP = INSPECT + KITCHEN_PILES  # 42
MENU_POINT = MENU_KEEP + 1  # 43
MENU_CHANGE = MENU_POINT + 1  # 44
MENU_TOQUE = MENU_CHANGE + KITCHEN_PILES * NUM_SNACKS  # 74
NUM_ACTIONS = MENU_TOQUE + 1  # 75

# Kitchen actions by the number of piles: each pile, and a new one while there are fewer than 5.
KITCHEN_ACTIONS = tuple(
    tuple(KITCHEN + i for i in range(n)) + ((NEW_KITCHEN,) if n < KITCHEN_PILES else ())
    for n in range(KITCHEN_PILES + 1)
)
XXL_PLACE_ACTIONS = tuple(tuple(XXL_PLACE + j for j in range(n)) for n in range(len(XXL_CARDS) + 1))

PLAY, INSPECTION, MENU, OVER = "play", "inspection", "menu", "over"
PHASES = (PLAY, INSPECTION, MENU)


def tops_face_up(phase: str) -> bool:
    """Whether the kitchens' top cards lie face up: from the scoring step on, not during play or
    Module 1's inspection, which the rulebook adds *before* scoring turns them face up."""
    return phase == MENU or phase == OVER

MODULES = ("health_department", "dish_of_the_day", "xxl", "menu")


def top_snack(pile: list[int]) -> int | None:
    """The snack a customer pile orders: its top card, or the one under its Hurry-up (None if there is none)."""
    top = pile[-1]
    if top != HURRY_UP:
        return top
    return pile[-2] if len(pile) > 1 else None


def order_counts(customer: list[list[int]]) -> list[int]:
    """Customer orders by snack."""
    counts = [0] * NUM_SNACKS
    for pile in customer:
        snack = top_snack(pile)
        if snack is not None:
            counts[snack] += 1
    return counts


def xxl_points(snack: int, stack: list[int]) -> int:
    return XXL_BONUS if len(stack) == XXL_TARGET and all(c == snack for c in stack) else XXL_PENALTY


def fulfilled_menus(hand: list[int], tops: list[int], prefer: str = "held_longer") -> list[int]:
    """Which Menu cards of `hand` (held longest first) the face-up kitchen cards `tops` fulfil (both need
    4 separate cards); when either one alone can be, `prefer` picks (option `menu_fulfil`)."""
    have = [0] * NUM_KINDS
    for card in tops:
        have[card] += 1
    need = [0] * NUM_SNACKS
    for menu in hand:
        for snack in MENUS[menu]:
            need[snack] += 1
    if all(have[s] >= need[s] for s in range(NUM_SNACKS)):
        return list(hand)
    for menu in (hand if prefer == "held_longer" else hand[::-1]):
        a, b = MENUS[menu]
        if have[a] and have[b]:
            return [menu]
    return []


class SpeedSnacks(SimultaneousGame):
    name = "speed_snacks"
    version = 1
    min_players = max_players = default_players = 2
    score_range = (0.0, float(TOQUES_TO_WIN))  # toques
    options = {
        "health_department": Option(False, "Module 1: cockroaches, inspection at scoring"),
        "dish_of_the_day": Option(False, "Module 2: take one Dish of the Day per round"),
        "xxl": Option(False, "Module 3: XXL orders"),
        "menu": Option(False, "Module 4: Menu cards"),
        "speed_0": Option(1.0, "probability that seat 0's action goes through in a tick of play", low=0.01, high=1.0),
        "speed_1": Option(1.0, "probability that seat 1's action goes through in a tick of play", low=0.01, high=1.0),
        "idle_ticks": Option(3, "the round ends when both players wait this many ticks in a row", low=1, high=100),
        "menu_fulfil": Option(
            "held_longer", "Module 4, when either Menu but not both can be fulfilled: which one is "
            "(DEFAULT 'held_longer'; 'newer': the one drawn last)", choices=("held_longer", "newer"),
        ),
        "menu_tie_first": Option(
            "starting_player", "Module 4, points tied: who decides on Menu cards first "
            "(DEFAULT 'starting_player'; 'other_player': the round's other player)",
            choices=("starting_player", "other_player"),
        ),
        "kitchen_obs": Option(
            "placed", "own kitchen in the observation: 'placed' (as placed) or 'sizes' (pile sizes only)",
            choices=("placed", "sizes"),
        ),
    }
    scripted_outcomes = ("deck", "starting_player", "xxl_order", "menu_deal")
    state_fields = (
        "round", "tick", "phase", "starting_player", "deck", "hands", "customer", "kitchens", "hurry_ups", "idle",
        "toques", "dishes_left", "dish", "xxl_pile", "xxl_cards", "xxl_stacks", "menu_piles", "menu_hands",
        "menus_fulfilled", "menus_out", "inspected", "penalties", "menu_order", "menu_bonus", "menu_changed",
        "last_tick", "last_round", "round_scored", "current_player", "game_over",
    )

    @classmethod
    def num_actions_for(cls, num_players, config):
        return NUM_ACTIONS

    @classmethod
    def default_max_steps(cls, num_players: int) -> int:
        # At full speed a round lasts at most 90 * idle_ticks + 3 ticks whatever the
        # players do (see the random-game tests); random play takes about 30 ticks a
        # round and 7 rounds (at most about 400 ticks) a game. Only rounds tied at 4
        # toques each can prolong a game: 3000 ticks allows for 10 of the longest
        # rounds. The env divides it by the slower player's speed.
        return 3000

    # --- setup -------------------------------------------------------------------
    def _setup(self, deck=None, starting_player=None, xxl_order=None, menu_deal=None) -> None:
        """Scripts (tests): `deck` (the first round's draw pile by kind, top first), `starting_player`,
        `xxl_order` (the XXL pile, top first), `menu_deal` (the 15 Menu ids: 7 to seat 0, 7 to seat 1, 1 unused)."""
        cfg = self.config
        self._check_scripts(deck, xxl_order)
        self.current_player = -1
        self.game_over = False
        self.round = 0
        self.tick = 0
        self.toques = [0, 0]
        self.menu_piles: list[list[int]] = [[], []]
        self.menu_hands: list[list[int]] = [[], []]
        self.menus_fulfilled: list[list[int]] = [[], []]
        self.menus_out: list[int] = []
        if cfg["menu"]:
            deal = self.rng.permutation(len(MENUS)).tolist() if menu_deal is None else [int(m) for m in menu_deal]
            if sorted(deal) != list(range(len(MENUS))):
                raise ConfigError("a scripted menu_deal must hold each of the 15 Menu ids once")
            # Piles are face down, top = last: seat 0's pile holds deal[0:7] with deal[0] on top.
            self.menu_piles = [deal[MENUS_PER_PLAYER - 1::-1], deal[2 * MENUS_PER_PLAYER - 1:MENUS_PER_PLAYER - 1:-1]]
            self.menus_out = deal[2 * MENUS_PER_PLAYER:]
        self.last_round: dict | None = None
        self.last_tick: dict | None = None  # the last tick of play: actions, resolution order, results
        self.round_scored: list[float] | None = None
        if starting_player is None:
            starting_player = int(self.rng.integers(2))
        self._start_round(starting_player, deck, xxl_order)

    def _start_round(self, starter: int, deck=None, xxl_order=None) -> None:
        cfg = self.config
        self.round += 1
        self.phase = PLAY
        self.starting_player = starter
        if deck is None:
            self.deck = self.rng.permutation(new_deck(cfg["health_department"])).tolist()
        else:
            self.deck = [int(c) for c in reversed(deck)]  # top = last
        self.customer: list[list[int]] = []
        self.kitchens: list[list[list[int]]] = [[], []]
        self.hurry_ups = 0
        self.idle = 0
        self.hands: list[int | None] = [None, None]
        self.hands[starter] = self.deck.pop()
        self.hands[1 - starter] = self.deck.pop()
        self.dishes_left = list(range(NUM_SNACKS)) if cfg["dish_of_the_day"] else []
        self.dish: list[int | None] = [None, None]
        if cfg["xxl"]:
            self.xxl_pile = self.rng.permutation(len(XXL_CARDS)).tolist() if xxl_order is None else list(xxl_order)[::-1]
        else:
            self.xxl_pile = []
        self.xxl_cards: list[list[int]] = [[], []]
        self.xxl_stacks: list[list[list[int]]] = [[], []]
        for p in (0, 1):  # Menu hands are topped up to 2 before each round
            while len(self.menu_hands[p]) < MENU_HAND and self.menu_piles[p]:
                self.menu_hands[p].append(self.menu_piles[p].pop())
        self.inspected: list[int | None] = [None, None]
        self.penalties = [0, 0]
        self.menu_order: list[int] = []
        self.menu_bonus = [0, 0]
        self.menu_changed: list[list[int] | None] = [None, None]

    def _check_scripts(self, deck, xxl_order) -> None:
        """Scripted chance must be a permutation of the real cards (checked before anything changes)."""
        if deck is not None and sorted(deck) != new_deck(self.config["health_department"]):
            raise ConfigError("a scripted deck must hold exactly the round's cards (see components.new_deck)")
        if xxl_order is not None and sorted(xxl_order) != list(XXL_CARDS):
            raise ConfigError("a scripted xxl_order must hold each XXL card once")

    @classmethod
    def state_specs(cls, num_players, config):
        kind, snack, menu = IntIn(0, NUM_KINDS - 1), IntIn(0, NUM_SNACKS - 1), IntIn(0, len(MENUS) - 1)
        kitchen_pile = IntIn(0, KITCHEN_PILES - 1)
        both = lambda spec: Items(spec, spec)  # noqa: E731
        kitchen = ListOf(ListOf(kind), max_len=KITCHEN_PILES)
        menus = ListOf(menu, unique=True)
        changed = OrNone(Items(kitchen_pile, snack))
        return {
            "round": IntIn(1),
            "tick": IntIn(0),
            "phase": OneOf(PLAY, INSPECTION, MENU, OVER),
            "starting_player": IntIn(0, 1),
            "deck": ListOf(kind, max_len=len(new_deck(True))),
            "hands": both(OrNone(kind)),
            "customer": ListOf(ListOf(kind), max_len=CUSTOMER_PILES),
            "kitchens": both(kitchen),
            "hurry_ups": IntIn(0, HURRY_UPS_TO_END),
            "idle": IntIn(0, config["idle_ticks"]),
            "toques": both(IntIn(0, TOQUES_TO_WIN)),
            "dishes_left": ListOf(snack, unique=True),
            "dish": both(OrNone(snack)),
            "xxl_pile": ListOf(snack, unique=True),
            "xxl_cards": both(ListOf(snack, unique=True)),
            "xxl_stacks": both(ListOf(ListOf(kind))),
            "menu_piles": both(menus),
            "menu_hands": both(menus),
            "menus_fulfilled": both(menus),
            "menus_out": menus,
            "inspected": both(OrNone(kitchen_pile)),
            "penalties": both(IntIn(0, NUM_COCKROACHES)),
            "menu_order": ListOf(IntIn(0, 1), max_len=2, unique=True),
            "menu_bonus": both(IntIn(0, 1)),
            "menu_changed": both(changed),
            "last_tick": OrNone(Record(
                actions=both(IntIn(0, NUM_ACTIONS - 1)), order=ListOf(IntIn(0, 1), max_len=2, unique=True),
                result=both(OneOf("wait", "missed", "stopped", "blocked", "done")),
            )),
            "last_round": OrNone(Record(
                round=IntIn(1), points=both(IntIn()), winners=ListOf(IntIn(0, 1), length=(1, 2), unique=True),
                starting_player=IntIn(0, 1), customer=ListOf(ListOf(kind), max_len=CUSTOMER_PILES),
                kitchens=both(kitchen), dish=both(OrNone(snack)), xxl_cards=both(ListOf(snack, unique=True)),
                xxl_stacks=both(ListOf(ListOf(kind))), penalties=both(IntIn(0, NUM_COCKROACHES)),
                inspected=both(OrNone(kitchen_pile)), menu_bonus=both(IntIn(0, 1)), menu_changed=both(changed),
                toques_before=both(IntIn(0, TOQUES_TO_WIN)), toques_after=both(IntIn(0, TOQUES_TO_WIN)),
                withheld=Boolean(),
            )),
            "round_scored": OrNone(both(NumberIn(-1, 1))),
        }

    # --- legal actions -------------------------------------------------------------
    def _legal_actions(self, p: int) -> list[int]:
        phase = self.phase
        if phase == PLAY:
            return self._play_actions(p)
        if phase == INSPECTION:
            piles = len(self.kitchens[1 - p])
            return [INSPECT + i for i in range(piles)] if piles else [WAIT]
        if self.menu_order[0] != p:
            return [WAIT]
        have = len(self.menus_fulfilled[p])
        actions = [MENU_KEEP]
        if have >= MENU_POINT_COST:
            actions.append(MENU_POINT)
        if have >= MENU_CHANGE_COST:
            for i, pile in enumerate(self.kitchens[p]):
                if pile[-1] < NUM_SNACKS:
                    actions += [MENU_CHANGE + i * NUM_SNACKS + s for s in range(NUM_SNACKS) if s != pile[-1]]
        if have >= MENU_TOQUE_COST:
            actions.append(MENU_TOQUE)
        return actions

    def _play_actions(self, p: int) -> list[int]:
        hand = self.hands[p]
        customer = self.customer
        if hand == HURRY_UP:
            open_piles = [HURRY + i for i, pile in enumerate(customer) if pile[-1] != HURRY_UP]
            return open_piles or [HURRY_NEW]
        actions = [WAIT]
        if hand < NUM_SNACKS:
            lone = []
            for i, pile in enumerate(customer):
                if pile[-1] != HURRY_UP:
                    actions.append(CUSTOMER + i)
                elif len(pile) == 1:
                    lone.append(SLIDE + i)
            if len(customer) < CUSTOMER_PILES:
                actions.append(NEW_CUSTOMER)
            actions += KITCHEN_ACTIONS[len(self.kitchens[p])]
            actions += lone
            actions += XXL_PLACE_ACTIONS[len(self.xxl_cards[p])]
        else:  # a cockroach goes to the kitchen
            actions += KITCHEN_ACTIONS[len(self.kitchens[p])]
        if self.xxl_pile:
            actions.append(DRAW_XXL)
        if self.dishes_left and self.dish[p] is None:
            actions += [TAKE_DISH + s for s in self.dishes_left]
        return actions

    def action_mask(self, player: int | None = None) -> np.ndarray:
        mask = bytearray(NUM_ACTIONS)  # faster than fancy indexing for a handful of actions
        for action in self.legal_actions(player):
            mask[action] = 1
        return np.frombuffer(mask, np.int8)

    # --- transitions ---------------------------------------------------------------
    def _apply_joint(self, actions: dict[int, int], order=None, through=None, **next_round) -> None:
        """Resolve one tick. Scripts (tests): `order` (the seats in resolution order when both act),
        `through` (per seat, whether a non-wait action goes through, instead of the speed draw);
        `deck`, `starting_player`, `xxl_order` for a round that starts in this tick."""
        # Scripts are checked before anything changes.
        unknown = sorted(set(next_round) - set(self.scripted_outcomes))
        if unknown:  # a misspelt script would be dropped, and the tick drawn
            raise ConfigError(f"speed_snacks scripts a tick with order, through, {', '.join(self.scripted_outcomes)}; "
                              f"not {unknown}")
        if order is not None and sorted(order) != [0, 1] or through is not None and len(through) != 2:
            raise ConfigError(f"scripted order must be [0, 1] or [1, 0] and through 2 bools: {order!r}, {through!r}")
        self._check_scripts(next_round.get("deck"), next_round.get("xxl_order"))
        self.round_scored = None
        self.tick += 1
        if self.phase == PLAY:
            self._play_tick(actions, order, through, next_round)
        elif self.phase == INSPECTION:
            for p in (0, 1):
                if actions[p] != WAIT:
                    pile = actions[p] - INSPECT
                    self.inspected[p] = pile
                    self.penalties[1 - p] = self.kitchens[1 - p][pile].count(COCKROACH)
            self._after_inspection(next_round)
        else:
            self._menu_decision(self.menu_order.pop(0), actions, next_round)

    def _play_tick(self, actions, order, through, next_round) -> None:
        result = ["wait", "wait"]
        going = []
        for p in (0, 1):
            if actions[p] != WAIT:
                speed = self.config["speed_0" if p == 0 else "speed_1"]
                ok = bool(through[p]) if through is not None else speed >= 1.0 or self.rng.random() < speed
                if ok:
                    going.append(p)
                else:
                    result[p] = "missed"
        if len(going) == 2:
            if order is None:
                going = [0, 1] if self.rng.random() < 0.5 else [1, 0]
            else:
                going = [int(s) for s in order]
        round_over = False
        interrupted = False
        for i, p in enumerate(going):
            action = actions[p]
            if interrupted:
                result[p] = "stopped"
                continue
            if i > 0 and action not in self._play_actions(p):
                result[p] = "blocked"
                continue
            self._play(p, action)
            result[p] = "done"
            if HURRY <= action <= HURRY_NEW:
                interrupted = True
                round_over = self.hurry_ups == HURRY_UPS_TO_END
        self.idle = self.idle + 1 if actions[0] == WAIT and actions[1] == WAIT else 0
        self.last_tick = {"actions": [actions[0], actions[1]], "order": going, "result": result}
        if round_over or self.idle >= self.config["idle_ticks"]:
            self._end_play(next_round)

    def _play(self, p: int, action: int) -> None:
        """Carry out a legal play-phase action of seat `p`."""
        hand = self.hands[p]
        if action < NEW_CUSTOMER:
            self.customer[action - CUSTOMER].append(hand)
        elif action == NEW_CUSTOMER:
            self.customer.append([hand])
        elif action < NEW_KITCHEN:
            self.kitchens[p][action - KITCHEN].append(hand)
        elif action == NEW_KITCHEN:
            self.kitchens[p].append([hand])
        elif action <= HURRY_NEW:
            if action == HURRY_NEW:
                self.customer.append([HURRY_UP])
            else:
                self.customer[action - HURRY].append(HURRY_UP)
            self.hurry_ups += 1
            if self.hurry_ups == HURRY_UPS_TO_END:
                self.hands[p] = None  # the round ends at once: no card is drawn
                return
        elif action < XXL_PLACE:
            self.customer[action - SLIDE].insert(0, hand)
        elif action < DRAW_XXL:
            self.xxl_stacks[p][action - XXL_PLACE].append(hand)
        elif action == DRAW_XXL:
            self.xxl_cards[p].append(self.xxl_pile.pop())
            self.xxl_stacks[p].append([])
            return
        else:
            snack = action - TAKE_DISH
            self.dish[p] = snack
            self.dishes_left.remove(snack)
            return
        self.hands[p] = self.deck.pop()  # never empty here (see the module docstring)

    def _end_play(self, next_round: dict) -> None:
        """The round's play is over: inspection (Module 1) if anyone has a pile to inspect, then scoring."""
        if self.config["health_department"] and (self.kitchens[0] or self.kitchens[1]):
            self.phase = INSPECTION
        else:
            self._after_inspection(next_round)

    def _after_inspection(self, next_round: dict) -> None:
        """Top cards are face up now: fulfil Menus, then let Menu holders decide, leader first."""
        if self.config["menu"]:
            for p in (0, 1):
                done = fulfilled_menus(self.menu_hands[p], [pile[-1] for pile in self.kitchens[p]],
                                       self.config["menu_fulfil"])
                for menu in done:
                    self.menu_hands[p].remove(menu)
                    self.menus_fulfilled[p].append(menu)
            points = self.round_points()
            if points[0] != points[1]:
                first = 0 if points[0] > points[1] else 1
            elif self.config["menu_tie_first"] == "starting_player":
                first = self.starting_player
            else:
                first = 1 - self.starting_player
            self.menu_order = [p for p in (first, 1 - first) if self.menus_fulfilled[p]]
            if self.menu_order:
                self.phase = MENU
                return
        self._finish_round(next_round)

    def _menu_decision(self, p: int, actions: dict[int, int], next_round: dict) -> None:
        action = actions[p]
        given_up = 0
        if action == MENU_POINT:
            given_up = MENU_POINT_COST
            self.menu_bonus[p] = 1
        elif MENU_CHANGE <= action < MENU_TOQUE:
            given_up = MENU_CHANGE_COST
            self.menu_changed[p] = list(divmod(action - MENU_CHANGE, NUM_SNACKS))
        elif action == MENU_TOQUE:
            given_up = MENU_TOQUE_COST
            self.toques[p] += 1
        for _ in range(given_up):  # back to the box
            self.menus_out.append(self.menus_fulfilled[p].pop())
        if not self.menu_order:
            self._finish_round(next_round)

    def _finish_round(self, next_round: dict) -> None:
        """Hand out the toque(s), end the game or start the next round."""
        points = self.round_points()
        if points[0] == points[1]:
            winners, result = [0, 1], [0.0, 0.0]
        else:
            w = 0 if points[0] > points[1] else 1
            winners, result = [w], [1.0, -1.0] if w == 0 else [-1.0, 1.0]
        toques_before = list(self.toques)
        for w in winners:
            self.toques[w] += 1
        reached = [p for p in (0, 1) if self.toques[p] >= TOQUES_TO_WIN]
        if len(reached) == 2:  # both at 5 at once: another round decides; the 5th is withheld
            self.toques = [TOQUES_TO_WIN - 1] * 2
        elif reached:
            self.toques[reached[0]] = TOQUES_TO_WIN
        self.last_round = {
            "round": self.round, "points": points, "winners": winners, "starting_player": self.starting_player,
            "customer": [list(pile) for pile in self.customer],
            "kitchens": [[list(pile) for pile in k] for k in self.kitchens],
            "dish": list(self.dish), "xxl_cards": [list(c) for c in self.xxl_cards],
            "xxl_stacks": [[list(s) for s in k] for k in self.xxl_stacks], "penalties": list(self.penalties),
            "inspected": list(self.inspected), "menu_bonus": list(self.menu_bonus),
            "menu_changed": [None if c is None else list(c) for c in self.menu_changed],
            "toques_before": toques_before, "toques_after": list(self.toques), "withheld": len(reached) == 2,
        }
        self.round_scored = result
        if len(reached) == 1:
            self.phase = OVER
            self.game_over = True
            return
        if len(winners) == 1:
            starter = 1 - winners[0]  # the loser starts
        elif self.toques[0] != self.toques[1]:
            starter = 0 if self.toques[0] < self.toques[1] else 1
        else:
            starter = next_round.get("starting_player")
            if starter is None:
                starter = int(self.rng.integers(2))
        self._start_round(starter, next_round.get("deck"), next_round.get("xxl_order"))

    # --- scoring ---------------------------------------------------------------------
    def kitchen_tops(self, p: int) -> list[int]:
        """Top card of each of `p`'s kitchen piles, as counted (a Menu change applied)."""
        tops = [pile[-1] for pile in self.kitchens[p]]
        changed = self.menu_changed[p]
        if changed is not None:
            tops[changed[0]] = changed[1]
        return tops

    def round_points(self) -> list[int]:
        """Each seat's points in the current round's scoring, from the table as it is now."""
        orders = order_counts(self.customer)
        points = []
        for p in (0, 1):
            tops = self.kitchen_tops(p)
            total = sum(orders[t] for t in tops if t < NUM_SNACKS)
            if self.dish[p] is not None:
                total += tops.count(self.dish[p])
            for snack, stack in zip(self.xxl_cards[p], self.xxl_stacks[p]):
                total += xxl_points(snack, stack)
            points.append(total - self.penalties[p] + self.menu_bonus[p])
        return points

    def round_result(self) -> list[float] | None:
        return self.round_scored

    def scores(self) -> list[float]:
        return [float(t) for t in self.toques]

    def winners(self) -> list[int]:
        if self.game_over:
            return [p for p in (0, 1) if self.toques[p] >= TOQUES_TO_WIN]
        return super().winners()

    def invariant_violations(self) -> list[str]:
        cfg = self.config
        problems = []
        counts = [0] * NUM_KINDS
        for card in self.deck:
            counts[card] += 1
        for card in self.hands:
            if card is not None:
                counts[card] += 1
        for pile in self.customer:
            for card in pile:
                counts[card] += 1
        for kitchen in self.kitchens:
            for pile in kitchen:
                for card in pile:
                    counts[card] += 1
        for stacks in self.xxl_stacks:
            for stack in stacks:
                for card in stack:
                    counts[card] += 1
        if counts != deck_counts(cfg["health_department"]):
            problems.append(f"cards by kind {counts}, expected {deck_counts(cfg['health_department'])}")
        if len(self.customer) > CUSTOMER_PILES or any(len(k) > KITCHEN_PILES for k in self.kitchens):
            problems.append("more than 5 piles")
        closed = 0
        for pile in self.customer:
            hurries = pile.count(HURRY_UP)
            closed += hurries
            if not pile or hurries > 1 or hurries == 1 and pile[-1] != HURRY_UP:
                problems.append(f"customer pile {pile} is malformed")
            if COCKROACH in pile:
                problems.append("a cockroach among the customer orders")
        if closed != self.hurry_ups or self.hurry_ups > HURRY_UPS_TO_END:
            problems.append(f"{closed} Hurry-ups on the piles, {self.hurry_ups} counted")
        if self.phase == PLAY and (self.hurry_ups >= HURRY_UPS_TO_END or None in self.hands):
            problems.append("play goes on after the 4th Hurry-up, or with an empty hand")
        for kitchen in self.kitchens:
            if any(not pile or HURRY_UP in pile for pile in kitchen):
                problems.append("an empty kitchen pile or a Hurry-up in a kitchen")
        for p in (0, 1):
            if len(self.xxl_cards[p]) != len(self.xxl_stacks[p]):
                problems.append("XXL cards and stacks differ in number")
            if any(c >= NUM_SNACKS for stack in self.xxl_stacks[p] for c in stack):
                problems.append("a card that is not a snack on an XXL card")
        xxl = sorted(self.xxl_pile + self.xxl_cards[0] + self.xxl_cards[1])
        if xxl != (list(XXL_CARDS) if cfg["xxl"] else []):
            problems.append(f"XXL cards {xxl}")
        dishes = sorted(self.dishes_left + [d for d in self.dish if d is not None])
        if dishes != (list(range(NUM_SNACKS)) if cfg["dish_of_the_day"] else []):
            problems.append(f"Dish-of-the-Day cards {dishes}")
        menus = sorted(self.menus_out + [m for group in (self.menu_piles, self.menu_hands, self.menus_fulfilled)
                                         for cards in group for m in cards])
        if cfg["menu"] and menus != list(range(len(MENUS))) or not cfg["menu"] and menus:
            problems.append(f"Menu cards {menus}")
        if any(len(h) > MENU_HAND for h in self.menu_hands):
            problems.append("more than 2 Menu cards in a hand")
        if sum(self.toques) > NUM_TOQUES or not all(0 <= t <= TOQUES_TO_WIN for t in self.toques):
            problems.append(f"toques {self.toques}")
        if self.game_over != (self.phase == OVER) or self.game_over and max(self.toques) != TOQUES_TO_WIN:
            problems.append("game over without a player at 5 toques, or the reverse")
        if (self.phase == MENU) != bool(self.menu_order) or any(not self.menus_fulfilled[p] for p in self.menu_order):
            problems.append(f"phase {self.phase!r} with menu_order {self.menu_order}: the Menu phase lasts while a "
                            "player with a fulfilled Menu card is still to decide")
        if self.phase == INSPECTION and not (cfg["health_department"] and any(self.kitchens)):
            problems.append("an inspection without Module 1 or without a kitchen pile to inspect")
        for p in (0, 1):
            if self.inspected[p] is not None and self.inspected[p] >= len(self.kitchens[1 - p]):
                problems.append(f"seat {p} inspected kitchen pile {self.inspected[p]}, which the opponent lacks")
            if self.menu_changed[p] is not None and self.menu_changed[p][0] >= len(self.kitchens[p]):
                problems.append(f"seat {p}'s Menu change names kitchen pile {self.menu_changed[p][0]}, which it lacks")
            pile, opponent = self.inspected[p], self.kitchens[1 - p]
            found = opponent[pile].count(COCKROACH) if pile is not None and pile < len(opponent) else 0
            if self.penalties[1 - p] != found:
                problems.append(f"seat {1 - p}'s penalty is {self.penalties[1 - p]}, but the pile seat {p} inspected "
                                f"holds {found} cockroaches")
            if len(self.menu_piles[p]) + len(self.menu_hands[p]) + len(self.menus_fulfilled[p]) > MENUS_PER_PLAYER:
                problems.append(f"seat {p} holds more than the {MENUS_PER_PLAYER} Menu cards dealt to it")
        if self.phase in (PLAY, INSPECTION):  # the round's inspection and Menu decisions are still to come
            if self.inspected != [None, None] or self.menu_bonus != [0, 0] or self.menu_changed != [None, None]:
                problems.append(f"phase {self.phase!r} with the results of an inspection or a Menu decision")
            if any(self.menu_piles[p] and len(self.menu_hands[p]) < MENU_HAND for p in (0, 1)):
                problems.append(f"a Menu hand below {MENU_HAND} cards while its pile has more")
        if self.phase == PLAY and self.idle >= self.config["idle_ticks"]:
            problems.append(f"play goes on after both players waited {self.idle} ticks")
        return problems

    # --- text --------------------------------------------------------------------------
    def action_to_str(self, action: int) -> str:
        if action == WAIT:
            return "wait"
        if CUSTOMER <= action < NEW_CUSTOMER:
            return f"place the snack in hand on customer pile {action - CUSTOMER + 1}"
        if action == NEW_CUSTOMER:
            return "open a new customer pile with the snack in hand"
        if KITCHEN <= action < NEW_KITCHEN:
            return f"place the card in hand face down on kitchen pile {action - KITCHEN + 1}"
        if action == NEW_KITCHEN:
            return "open a new kitchen pile with the card in hand"
        if HURRY <= action < HURRY_NEW:
            return f"Hurry up! on customer pile {action - HURRY + 1}, closing it"
        if action == HURRY_NEW:
            return "Hurry up! opening a new customer pile (no pile can take it)"
        if SLIDE <= action < XXL_PLACE:
            return f"slide the snack in hand under the Hurry-up of customer pile {action - SLIDE + 1}"
        if XXL_PLACE <= action < DRAW_XXL:
            return f"place the snack in hand on my XXL card {action - XXL_PLACE + 1}"
        if action == DRAW_XXL:
            return "draw an XXL card"
        if TAKE_DISH <= action < INSPECT:
            return f"take the Dish of the Day: {SNACKS[action - TAKE_DISH]}"
        if INSPECT <= action < MENU_KEEP:
            return f"inspect the opponent's kitchen pile {action - INSPECT + 1} for cockroaches"
        if action == MENU_KEEP:
            return "give up no Menu card"
        if action == MENU_POINT:
            return "give up 1 Menu card: +1 point"
        if MENU_CHANGE <= action < MENU_TOQUE:
            pile, snack = divmod(action - MENU_CHANGE, NUM_SNACKS)
            return f"give up 2 Menu cards: count the top card of kitchen pile {pile + 1} as {SNACKS[snack]}"
        if action == MENU_TOQUE:
            return "give up 3 Menu cards: take a toque"
        return f"<no action {action}>"

    def render_text(self, viewer: int | None = None, names: Sequence[str] | None = None) -> str:
        """The table; with a `viewer` seat, what that player may not see is hidden, as in its observation
        (with `kitchen_obs="sizes"` its own face-down kitchen tops and XXL snacks too: it must remember them)."""
        names = self.view_names(viewer, names)
        face_up = tops_face_up(self.phase)
        placed = self.config["kitchen_obs"] == "placed"
        status = {PLAY: "play", INSPECTION: "scoring: inspection", MENU: "scoring: Menu cards", OVER: "game over"}
        lines = [
            f"Speed Snacks, round {self.round}, tick {self.tick} ({status[self.phase]}). "
            f"Toques: {names[0]} {self.toques[0]}, {names[1]} {self.toques[1]}. "
            f"Starting player: {names[self.starting_player]}.",
            f"Draw pile {len(self.deck)} cards; Hurry-ups placed {self.hurry_ups}/{HURRY_UPS_TO_END}; "
            f"both waiting {self.idle}/{self.config['idle_ticks']} ticks.",
        ]
        orders = []
        for i, pile in enumerate(self.customer):
            snack = top_snack(pile)
            text = SNACKS[snack] if snack is not None else "-"
            if pile[-1] == HURRY_UP:
                text += " + Hurry up!" + (" (slide under open)" if len(pile) == 1 else "")
            orders.append(f"{i + 1}) {text}")
        lines.append("Customer orders: " + ("  ".join(orders) or "none"))
        if self.config["dish_of_the_day"]:
            lines.append("Dishes of the Day left: " + (", ".join(SNACKS[s] for s in self.dishes_left) or "none"))
        if self.config["xxl"]:
            lines.append(f"XXL pile: {len(self.xxl_pile)} cards")
        for p in (0, 1):
            sees = viewer is None or viewer == p
            sees_placed = viewer is None or viewer == p and placed  # its own face-down cards
            hand = self.hands[p]
            hand_text = "-" if hand is None else (KIND_NAMES[hand] if sees else "a card")
            piles = []
            for pile in self.kitchens[p]:
                shown = sees_placed or face_up
                top = KIND_NAMES[pile[-1]] if shown else "?"
                piles.append(f"[{len(pile)}: {top}]")
            line = f"  {names[p]}: hand {hand_text} | kitchen {' '.join(piles) or 'empty'}"
            if self.dish[p] is not None:
                line += f" | dish {SNACKS[self.dish[p]]}"
            if self.xxl_cards[p]:
                xxl = [f"{SNACKS[c] if sees_placed else '?'} x{len(s)}"
                       for c, s in zip(self.xxl_cards[p], self.xxl_stacks[p])]
                line += " | XXL " + ", ".join(xxl)
            if self.config["menu"]:
                held = self.menu_hands[p]
                hand_menus = ", ".join("/".join(SNACKS[s] for s in MENUS[m]) for m in held) if sees else f"{len(held)} cards"
                line += f" | Menus: {hand_menus}; fulfilled {len(self.menus_fulfilled[p])}"
            lines.append(line)
        if self.phase != PLAY and self.phase != OVER and (face_up or viewer is None):
            points = self.round_points()
            lines.append(f"Points so far: {names[0]} {points[0]}, {names[1]} {points[1]}")
        if self.last_tick:
            t = self.last_tick
            lines.append("Last tick: " + "; ".join(
                f"{names[p]} {self.action_to_str(t['actions'][p])}: {t['result'][p]}" for p in (0, 1)
            ) + (f" (resolved {names[t['order'][0]]} first)" if len(t["order"]) == 2 else ""))
        if self.last_round:
            r = self.last_round
            lines.append(f"Round {r['round']} scored: {names[0]} {r['points'][0]}, {names[1]} {r['points'][1]} points"
                         + ("; the 5th toque is withheld" if r["withheld"] else ""))
        return "\n".join(lines)
