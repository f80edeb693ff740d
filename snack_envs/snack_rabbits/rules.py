"""Snack Rabbits' rules (shared/rules/snack_rabbits.txt): state and transitions, no RL code.

A turn is one decision. The card reveal at the start of a turn (with its sun
chain) is chance, done when the turn begins, so the player to act always sees
the spaces as they are after the reveal.

Actions (49, the same for 2 to 4 players):
- 0..44   hop: fence index f (heights 2..6) and w white dice rolled beside the
          personal die, action = f * 9 + w;
- 45      stop: take a white die from the pool (or, when the pool is empty and
          no other player holds one, stop with nothing to take);
- 46..48  stop with the pool empty: take a white die from the player r = 1..3
          seats to the left (r = 1 plays next).

Readings chosen where the rulebook is silent:
- Hopping over an empty fence is not allowed: a hop is an attempt to take the
  cards under a fence, and with none it could only lose dice.
- When the pool is empty, taking a die from a player who holds one is
  required (the stop is "take an additional die"); the player chooses whom.
- The game ends as soon as Farmer Brown has been revealed and every space is
  empty, which can happen at the reveal itself.
- Cards below Farmer Brown are never revealed and stay in the draw pile.
"""

from __future__ import annotations

from typing import Sequence

from snack_envs.core.game import (
    Boolean,
    ConfigError,
    Game,
    IntIn,
    Items,
    ListOf,
    Option,
    OrNone,
    Record,
    majority_holders,
    roll_dice,
)
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
    VEGETABLES,
    WHITE_DICE,
    sun_cards,
)

DICE_CHOICES = WHITE_DICE + 1  # 0..8 white dice rolled
NUM_HOPS = NUM_FENCES * DICE_CHOICES
STOP = NUM_HOPS
TAKE_FROM = STOP + 1  # TAKE_FROM + r - 1 takes from the player r seats to the left
MAX_PLAYERS = 4
NUM_ACTIONS = TAKE_FROM + MAX_PLAYERS - 1


def hop_action(fence_height: int, white_dice: int) -> int:
    return FENCES.index(fence_height) * DICE_CHOICES + white_dice


class SnackRabbits(Game):
    name = "snack_rabbits"
    version = 0
    min_players, max_players, default_players = 2, MAX_PLAYERS, 2
    # Highest score: the majority in every vegetable, 6 + 7 + ... + 12.
    score_range = (0.0, float(sum(VALUES)))
    options = {
        "suns_per_fence": Option(2, "sun cards per fence (ASSUMPTION: 2, i.e. 10 in all)", low=0, high=12),
    }
    scripted_outcomes = ("deck",)
    state_fields = (
        "deck", "fences", "collections", "white", "pool", "farmer_revealed",
        "current_player", "game_over", "turn", "revealed_this_turn", "last_hop",
    )

    @classmethod
    def num_actions_for(cls, num_players, config):
        return NUM_ACTIONS

    @classmethod
    def default_max_steps(cls, num_players: int) -> int:
        # About 40 to 60 turns reveal the cards; a few dozen more clear the spaces.
        # 400 decisions is far beyond any game in which players still hop.
        return 400

    def _setup(self, deck: Sequence[int] | None = None) -> None:
        """Deal. `deck` (tests) scripts the draw pile, top card first: all 63 cards and Farmer Brown."""
        if deck is None:
            order = self.rng.permutation(NUM_CARDS).tolist()
            # Farmer Brown is shuffled into the bottom 11 cards: uniform among the last 11 places.
            order.insert(len(order) - int(self.rng.integers(FARMER_DEPTH)), FARMER_BROWN)
            deck = order
        else:
            deck = [int(c) for c in deck]
            if sorted(deck) != list(range(NUM_CARDS + 1)):
                raise ConfigError("a scripted deck must hold each of the 63 cards and Farmer Brown once")
        self.suns = sun_cards(self.config["suns_per_fence"])
        self.deck = deck
        self.fences = [[0] * NUM_KINDS for _ in range(NUM_FENCES)]
        self.collections = [[0] * NUM_KINDS for _ in range(self.num_players)]
        self.white = [0] * self.num_players
        self.pool = WHITE_DICE
        self.farmer_revealed = False
        self.current_player = 0
        self.game_over = False
        self.turn = 0
        self.revealed_this_turn: list[int] = []
        self.last_hop: dict | None = None
        self._start_turn()

    def _after_load(self) -> None:
        self.suns = sun_cards(self.config["suns_per_fence"])

    @classmethod
    def state_specs(cls, num_players, config):
        card, kinds = IntIn(0, FARMER_BROWN), Items(*(IntIn(0, value) for value in VALUES))
        return {
            "deck": ListOf(card, max_len=NUM_CARDS + 1, unique=True),
            "fences": ListOf(kinds, length=NUM_FENCES),
            "collections": ListOf(kinds, length=num_players),
            "white": ListOf(IntIn(0, WHITE_DICE), length=num_players),
            "pool": IntIn(0, WHITE_DICE),
            "farmer_revealed": Boolean(),
            "turn": IntIn(0),
            "revealed_this_turn": ListOf(card, max_len=NUM_CARDS + 1, unique=True),
            "last_hop": OrNone(Record(
                player=IntIn(0, num_players - 1), fence=IntIn(0, NUM_FENCES - 1),
                roll=ListOf(IntIn(1, DIE_SIDES), length=tuple(range(1, DICE_CHOICES + 1))), taken=IntIn(0, NUM_CARDS),
            )),
        }

    # --- transitions -----------------------------------------------------------
    def _start_turn(self) -> None:
        """Turn over cards (sun chains included) unless Farmer Brown is out; end the game if due."""
        self.revealed_this_turn = []
        while not self.farmer_revealed:
            card = self.deck.pop(0)
            self.revealed_this_turn.append(card)
            if card == FARMER_BROWN:
                self.farmer_revealed = True
                break
            self.fences[CARD_FENCE[card]][CARD_KIND[card]] += 1
            if card not in self.suns:
                break
        if self.farmer_revealed and self.spaces_empty():
            self.game_over = True
            self.current_player = -1

    def spaces_empty(self) -> bool:
        return not any(any(space) for space in self.fences)

    def _legal_actions(self, p: int) -> list[int]:
        dice = range(self.white[p] + 1)
        actions = [f * DICE_CHOICES + w for f in range(NUM_FENCES) if any(self.fences[f]) for w in dice]
        if self.pool > 0:
            actions.append(STOP)
        else:
            takes = [TAKE_FROM + r - 1 for r in range(1, self.num_players) if self.white[(p + r) % self.num_players]]
            actions.extend(takes or [STOP])
        return actions

    def _apply(self, action: int, roll: Sequence[int] | None = None) -> None:
        """Apply a legal action. `roll` (tests) scripts a hop's dice: personal die first, then the white dice."""
        p = self.current_player
        self.last_hop = None
        if action < NUM_HOPS:
            fence, white = divmod(action, DICE_CHOICES)
            if roll is None:
                roll = roll_dice(self.rng, 1 + white, DIE_SIDES)
            elif len(roll) != 1 + white or not all(1 <= d <= DIE_SIDES for d in roll):
                raise ConfigError(f"a scripted roll needs {1 + white} dice of 1..{DIE_SIDES}, got {list(roll)}")
            success = max(roll) >= FENCES[fence]
            taken = sum(self.fences[fence]) if success else 0
            if success:
                mine = self.collections[p]
                for kind, count in enumerate(self.fences[fence]):
                    mine[kind] += count
                self.fences[fence] = [0] * NUM_KINDS
                self.white[p] -= white
                self.pool += white
            self.last_hop = {"player": p, "fence": fence, "roll": [int(d) for d in roll], "taken": taken}
        elif action == STOP:
            if self.pool > 0:
                self.pool -= 1
                self.white[p] += 1
        else:
            victim = (p + action - TAKE_FROM + 1) % self.num_players
            self.white[victim] -= 1
            self.white[p] += 1
        self.turn += 1
        if self.farmer_revealed and self.spaces_empty():
            self.game_over = True
            self.current_player = -1
            return
        self.current_player = (p + 1) % self.num_players
        self._start_turn()

    # --- scoring ---------------------------------------------------------------
    def kind_points(self) -> list[list[int]]:
        """Points by seat and vegetable: the value for every tied majority, else 1 per card."""
        points = [[0] * NUM_KINDS for _ in range(self.num_players)]
        for kind in range(NUM_KINDS):
            counts = [c[kind] for c in self.collections]
            leaders = majority_holders(counts)
            for p in range(self.num_players):
                points[p][kind] = VALUES[kind] if p in leaders else counts[p]
        return points

    def scores(self) -> list[float]:
        return [float(sum(row)) for row in self.kind_points()]

    def invariant_violations(self) -> list[str]:
        problems = []
        for kind, value in enumerate(VALUES):
            held = sum(c[kind] for c in self.collections) + sum(space[kind] for space in self.fences)
            in_deck = sum(1 for card in self.deck if card != FARMER_BROWN and CARD_KIND[card] == kind)
            if held + in_deck != value:
                problems.append(f"{VEGETABLES[kind]}: {held + in_deck} cards accounted for, not {value}")
        if (FARMER_BROWN in self.deck) == self.farmer_revealed:
            problems.append("Farmer Brown is both revealed and in the draw pile, or neither")
        if self.pool + sum(self.white) != WHITE_DICE or self.pool < 0 or min(self.white) < 0:
            problems.append(f"white dice: pool {self.pool} + held {self.white} != {WHITE_DICE}")
        if self.game_over != (self.farmer_revealed and self.spaces_empty()):
            problems.append(f"game_over = {self.game_over}, but the game ends exactly when Farmer Brown is revealed "
                            "and every space is empty")
        return problems

    # --- text --------------------------------------------------------------------
    def action_to_str(self, action: int) -> str:
        if 0 <= action < NUM_HOPS:
            fence, white = divmod(action, DICE_CHOICES)
            dice = "only the personal die" if white == 0 else f"the personal die and {white} white {'die' if white == 1 else 'dice'}"
            return f"hop fence {FENCES[fence]} rolling {dice}"
        if action == STOP:
            return "stop: take a white die from the pool"
        if TAKE_FROM <= action < NUM_ACTIONS:
            r = action - TAKE_FROM + 1
            return f"stop: take a white die from the player {r} seat{'s' if r > 1 else ''} to the left"
        return f"<no action {action}>"

    @staticmethod
    def card_str(card: int) -> str:
        return "Farmer Brown" if card == FARMER_BROWN else f"{VEGETABLES[CARD_KIND[card]]} (fence {FENCES[CARD_FENCE[card]]})"

    def render_text(self, viewer: int | None = None, names: Sequence[str] | None = None) -> str:
        """Everything on the table is public in Snack Rabbits, so every viewer sees the same."""
        names = self.view_names(viewer, names)
        status = "game over" if self.game_over else f"{names[self.current_player]} to act"
        lines = [
            f"Snack Rabbits, turn {self.turn + 1}: {status}. "
            f"Draw pile {len(self.deck)} cards; Farmer Brown {'revealed' if self.farmer_revealed else 'not yet revealed'}."
        ]
        if self.revealed_this_turn:
            suns = ["*" if c in self.suns else "" for c in self.revealed_this_turn]
            lines.append("Turned over: " + ", ".join(self.card_str(c) + s for c, s in zip(self.revealed_this_turn, suns)) + "  (* = sun)")
        for f, height in enumerate(FENCES):
            body = ", ".join(f"{VEGETABLES[k]} x{n}" for k, n in enumerate(self.fences[f]) if n) or "-"
            lines.append(f"  fence {height}: {body}")
        lines.append(f"White dice in the pool: {self.pool}")
        scores = self.scores() if self.game_over else None
        for p in range(self.num_players):
            coll = ", ".join(f"{VEGETABLES[k]} {n}" for k, n in enumerate(self.collections[p]) if n) or "no vegetables"
            tail = f"  -> {scores[p]:g} points" if scores else ""
            lines.append(f"  {names[p]}: personal die + {self.white[p]} white | {coll}{tail}")
        if self.last_hop:
            h = self.last_hop
            result = f"made it, took {h['taken']} cards" if h["taken"] else ("made it" if max(h["roll"]) >= FENCES[h["fence"]] else "failed")
            lines.append(f"Last hop: {names[h['player']]} over fence {FENCES[h['fence']]} rolled {h['roll']}: {result}")
        return "\n".join(lines)
