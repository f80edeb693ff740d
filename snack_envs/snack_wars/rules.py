"""Snack Wars' rules (shared/rules/snack_wars.txt): state and transitions, no RL code.

A turn is one or more decisions by the same player. The draw is chance, done
when the turn begins, so the player to act always sees the cards drawn. Then:
- "choose": take all Food cards of one value, one Bonus card, or all Raccoon
  cards (an option is offered only if the drawn cards hold it);
- "steal" (after taking Raccoon cards): one decision per raccoon, steal one
  card of a kind from an opponent, or stop stealing;
- "discard" (if stealing took the collection past 9): one decision per excess
  card, which stolen card to discard.
The unused drawn cards are then discarded and the turn passes.

Actions (86, the same for 2 to 5 players); a card's type is its value - 1 for
foods, 9..13 for the Bonus cards, 14 for the Raccoon (see components):
- 0..8    take all the drawn Food cards of value v (action v - 1);
- 9..13   take the drawn Bonus card of that type (French, Japanese, American,
          Multicolour, Raccoon);
- 14      take all the drawn Raccoon cards;
- 15..70  steal one card of kind k (0..13) from the opponent r = 1..4 seats to
          the left (r = 1 plays next): action 15 + (r - 1) * 14 + k;
- 71      stop stealing (give up the raccoons' remaining steals);
- 72..85  discard one card of kind k stolen this turn: action 72 + k (only
          legal in hand-set positions, see below).

Readings chosen where the rulebook is silent:
- A player whose collection holds 9 at the start of their turn passes
  automatically: the rulebook gives them no choice ("they must pass"), so no
  decision is asked of them and play goes on to the next player below 9.
- The game ends at the end of the first turn after which every collection
  holds 9 (the rulebook's "as soon as": mid-turn, a steal always leaves the
  victim below 9, so the end can only come at a turn's end).
- Raccoon cards taken stay face down beside the collection for the rest of the
  game, used or not: they never count toward the 9, cannot be stolen, and each
  scores 1 point with the Raccoon Bonus ("harvested during the game"). Their
  number is public. Drawn Raccoon cards that are not taken are discarded.
- Bonus cards count toward the 9 and can be stolen; they have no culinary
  family (the Multicolour card shows the three symbols but counts for none).
- Steals are optional, one card each, from any opponent's collection; steals
  may go to different opponents. A steal phase with no card left to steal
  ends by itself (no "stop" decision is asked).
- Stealing past 9 is allowed; the thief then discards, one decision per card,
  down to 9, choosing among the cards stolen this turn. Excess Food cards
  (more than the room left up to 9) are discarded with the unused cards.
  Both rules are implemented, but neither can apply in a game played from the
  start: a player draws exactly 9 - (collection) cards, so the Food cards of
  one value, or the raccoons (hence the steals), taken that turn always fit.
  The discard actions are therefore only legal in hand-set positions.
- The discard pile is public; the draw pile's order is hidden (its contents
  follow from the public cards).
- Reshuffle: at the end of a turn, an empty draw pile is replaced by the
  shuffled discard pile; a draw that empties the draw pile also reshuffles the
  discard pile and goes on drawing. With 60 cards and at most 5 players a draw
  can always be completed: the others hold at most 36 collection cards and 10
  raccoons, leaving at least 14 - own collection cards for the drawer.
- Game length: every game ends. Let D be the cards missing from all
  collections (9n at the start, 0 at the end). A turn that takes Food or a
  Bonus card lowers D by at least 1; a raccoon turn leaves it unchanged (a
  steal moves a card, and the thief cannot pass 9, above). Raccoon cards never
  return to play, so there are at most 10 raccoon turns, and at most 10
  steal-or-stop decisions in all (each uses up at least one raccoon). A game
  therefore has at most 9n + 10 + 10 decisions: `default_max_steps`. The env
  truncates there, so only a smaller `max_steps` set by the user truncates.
"""

from __future__ import annotations

from typing import Sequence

from snack_envs.core.game import ConfigError, Game, IntIn, Items, ListOf, OneOf, Option
from snack_envs.snack_wars.components import (
    AMERICAN_BONUS,
    COLLECTION_SIZE,
    FAMILIES,
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
    TYPE_NAMES,
    VALUES,
    copies_by_type,
    max_score,
)

MAX_PLAYERS = 5
TAKE_RACCOONS = RACCOON  # 14; actions 0..13 take the card type of the same number
STEAL = NUM_TYPES  # 15
STOP_STEALING = STEAL + (MAX_PLAYERS - 1) * NUM_KINDS  # 71
DISCARD = STOP_STEALING + 1  # 72
NUM_ACTIONS = DISCARD + NUM_KINDS  # 86

CHOOSE, STEALING, DISCARDING = "choose", "steal", "discard"
PHASES = (CHOOSE, STEALING, DISCARDING)


def steal_action(seats_left: int, kind: int) -> int:
    """The action stealing a card of `kind` from the opponent `seats_left` (1..4) seats to the left."""
    return STEAL + (seats_left - 1) * NUM_KINDS + kind


def family_counts(collection: Sequence[int]) -> list[int]:
    counts = [0] * len(FAMILIES)
    for food in range(NUM_FOODS):
        counts[FAMILY_OF[food]] += collection[food]
    return counts


class SnackWars(Game):
    name = "snack_wars"
    version = 0
    min_players, max_players, default_players = 2, MAX_PLAYERS, 2
    score_range = (0.0, float(max_score()))
    options = {
        "food_copies": Option(
            "equal",
            'copies of each food: "equal" (ASSUMPTION: 5 of each) or "value" (value n has n copies)',
            choices=tuple(FOOD_COPIES),
        ),
    }
    scripted_outcomes = ("deck",)
    state_fields = (
        "deck", "discard", "collections", "raccoons", "drawn", "phase", "steals_left", "stolen",
        "current_player", "game_over", "turn", "passed",
    )

    @classmethod
    def num_actions_for(cls, num_players, config):
        return NUM_ACTIONS

    @classmethod
    def default_max_steps(cls, num_players: int) -> int:
        return 9 * num_players + 20  # a proven bound on the decisions in a game: see the module docstring

    def _setup(self, deck: Sequence[int] | None = None) -> None:
        """Shuffle and let seat 0 draw. `deck` (tests) scripts the draw pile, top card first, as card types."""
        copies = copies_by_type(self.config["food_copies"])
        if deck is None:
            cards = [t for t, n in enumerate(copies) for _ in range(n)]
            deck = [cards[i] for i in self.rng.permutation(NUM_CARDS).tolist()]
        else:
            deck = [int(t) for t in deck]
            if sorted(deck) != [t for t, n in enumerate(copies) for _ in range(n)]:
                raise ConfigError(f"a scripted deck must hold the 60 cards {dict(zip(TYPE_NAMES, copies))}, as types 0..14")
        self.deck = deck
        self.discard = [0] * NUM_TYPES
        self.collections = [[0] * NUM_KINDS for _ in range(self.num_players)]
        self.raccoons = [0] * self.num_players
        self.drawn = [0] * NUM_TYPES
        self.phase = CHOOSE
        self.steals_left = 0
        self.stolen = [0] * NUM_KINDS
        self.current_player = 0
        self.game_over = False
        self.turn = 0
        self.passed: list[int] = []
        self._draw()

    @classmethod
    def state_specs(cls, num_players, config):
        copies = copies_by_type(config["food_copies"])
        by_type = Items(*(IntIn(0, c) for c in copies))
        by_kind = Items(*(IntIn(0, c) for c in copies[:NUM_KINDS]))
        return {
            "deck": ListOf(IntIn(0, NUM_TYPES - 1), max_len=NUM_CARDS),
            "discard": by_type,
            "collections": ListOf(by_kind, length=num_players),
            "raccoons": ListOf(IntIn(0, copies[RACCOON]), length=num_players),
            "drawn": by_type,
            "phase": OneOf(*PHASES),
            "steals_left": IntIn(0, copies[RACCOON]),
            "stolen": by_kind,
            "turn": IntIn(0),
            "passed": ListOf(IntIn(0, num_players - 1), max_len=num_players - 1, unique=True),
        }

    # --- transitions -----------------------------------------------------------
    def _draw(self, reshuffle: Sequence[int] | None = None) -> None:
        """The current player draws up to 9, reshuffling the discard pile if the draw pile runs out."""
        need = COLLECTION_SIZE - sum(self.collections[self.current_player])
        drawn, deck = self.drawn, self.deck
        while need > 0:
            if not deck:
                self._reshuffle(reshuffle)
                reshuffle, deck = None, self.deck
                if not deck:  # cannot happen with 60 cards and at most 5 players (see the docstring)
                    break
            taken = deck[:need]
            del deck[:need]
            for t in taken:
                drawn[t] += 1
            need -= len(taken)

    def _reshuffle(self, order: Sequence[int] | None) -> None:
        """The discard pile, shuffled (or in the scripted `order`, top first), becomes the draw pile."""
        cards = [t for t, n in enumerate(self.discard) if n for _ in range(n)]
        if order is None:
            self.deck = [cards[i] for i in self.rng.permutation(len(cards)).tolist()]
        else:
            order = [int(t) for t in order]
            if sorted(order) != cards:
                raise ConfigError(f"a scripted reshuffle must hold the discard pile's cards {cards}, got {order}")
            self.deck = order
            self._scripted_reshuffle_used = True
        self.discard = [0] * NUM_TYPES

    def _legal_actions(self, p: int) -> list[int]:
        if self.phase == CHOOSE:
            return [t for t, n in enumerate(self.drawn) if n]
        if self.phase == STEALING:
            return self._steals(p) + [STOP_STEALING]
        return [DISCARD + k for k, n in enumerate(self.stolen) if n]

    def _steals(self, p: int) -> list[int]:
        n = self.num_players
        actions = []
        for r in range(1, n):
            base = STEAL + (r - 1) * NUM_KINDS
            actions += [base + k for k, c in enumerate(self.collections[(p + r) % n]) if c]
        return actions

    def _apply(self, action: int, reshuffle: Sequence[int] | None = None) -> None:
        """Apply a legal action. `reshuffle` (tests) scripts the order, top first, of the draw pile
        made from the discard pile in this step; it must match a reshuffle that happens."""
        if reshuffle is None:
            self._act(action, None)
            return
        saved = self.to_dict()
        self._scripted_reshuffle_used = False
        try:
            self._act(action, reshuffle)
            if not self._scripted_reshuffle_used:
                raise ConfigError("a reshuffle was scripted but the draw pile was not rebuilt in this step")
        except ConfigError:
            for field in self.state_fields:
                setattr(self, field, saved["state"][field])
            raise

    def _act(self, action: int, reshuffle: Sequence[int] | None) -> None:
        p = self.current_player
        mine = self.collections[p]
        if self.phase == CHOOSE:
            drawn = self.drawn
            if action < NUM_FOODS:
                # All the Food cards of that value; what does not fit is discarded with the rest.
                kept = min(drawn[action], COLLECTION_SIZE - sum(mine))
                mine[action] += kept
                drawn[action] -= kept
            elif action < RACCOON:
                mine[action] += 1
                drawn[action] -= 1
            else:
                self.raccoons[p] += drawn[RACCOON]
                self.steals_left = drawn[RACCOON]
                drawn[RACCOON] = 0
                self.phase = STEALING
                if self._steals(p):
                    return
                self.steals_left = 0  # nobody has a card to steal
        elif self.phase == STEALING:
            if action != STOP_STEALING:
                r, kind = divmod(action - STEAL, NUM_KINDS)
                self.collections[(p + r + 1) % self.num_players][kind] -= 1
                mine[kind] += 1
                self.stolen[kind] += 1
                self.steals_left -= 1
                if self.steals_left and self._steals(p):
                    return
            self.steals_left = 0  # stopped, no raccoon left, or nothing left to steal
        else:
            kind = action - DISCARD
            mine[kind] -= 1
            self.stolen[kind] -= 1
            self.discard[kind] += 1
        if sum(mine) > COLLECTION_SIZE:
            self.phase = DISCARDING
            return
        self._end_turn(reshuffle)

    def _end_turn(self, reshuffle: Sequence[int] | None) -> None:
        """Discard what is left of the draw, reshuffle an empty draw pile, and pass the turn or end the game."""
        self.discard = [d + n for d, n in zip(self.discard, self.drawn)]
        self.drawn = [0] * NUM_TYPES
        self.stolen = [0] * NUM_KINDS
        self.phase = CHOOSE
        self.turn += 1
        sizes = [sum(c) for c in self.collections]
        if min(sizes) == COLLECTION_SIZE:
            self.game_over = True
            self.current_player = -1
            self.passed = []
            return
        if not self.deck:
            self._reshuffle(reshuffle)
            reshuffle = None
        # Players whose collection holds 9 pass; someone below 9 exists, or the game would be over.
        p = (self.current_player + 1) % self.num_players
        self.passed = []
        while sizes[p] == COLLECTION_SIZE:
            self.passed.append(p)
            p = (p + 1) % self.num_players
        self.current_player = p
        self._draw(reshuffle)

    # --- scoring ---------------------------------------------------------------
    def food_majorities(self) -> list[int]:
        """For each food kind, the seat with strictly the most cards of it, or -1 (nobody, or a tie)."""
        leaders = []
        for food in range(NUM_FOODS):
            counts = [c[food] for c in self.collections]
            best = max(counts)
            leaders.append(counts.index(best) if best and counts.count(best) == 1 else -1)
        return leaders

    def score_details(self) -> list[dict[str, int]]:
        """Each seat's points by source: "majorities" and one entry per Bonus card held."""
        details = [{"majorities": 0} for _ in range(self.num_players)]
        for food, leader in enumerate(self.food_majorities()):
            if leader >= 0:
                details[leader]["majorities"] += VALUES[food]
        for p, coll in enumerate(self.collections):
            families = family_counts(coll)
            for bonus in range(FIRST_BONUS, AMERICAN_BONUS + 1):
                if coll[bonus]:
                    details[p][TYPE_NAMES[bonus]] = families[bonus - FIRST_BONUS]
            if coll[MULTICOLOUR_BONUS]:
                details[p][TYPE_NAMES[MULTICOLOUR_BONUS]] = MULTICOLOUR_POINTS if min(families) > 0 else 0
            if coll[RACCOON_BONUS]:
                details[p][TYPE_NAMES[RACCOON_BONUS]] = self.raccoons[p]
        return details

    def scores(self) -> list[float]:
        return [float(sum(d.values())) for d in self.score_details()]

    def invariant_violations(self) -> list[str]:
        problems = []
        copies = copies_by_type(self.config["food_copies"])
        for t, expected in enumerate(copies):
            held = sum(c[t] for c in self.collections) if t < NUM_KINDS else sum(self.raccoons)
            found = held + self.deck.count(t) + self.discard[t] + self.drawn[t]
            if found != expected:
                problems.append(f"{TYPE_NAMES[t]}: {found} cards accounted for, not {expected}")
        for p, coll in enumerate(self.collections):
            if min(coll) < 0 or sum(coll) > COLLECTION_SIZE and (p != self.current_player or self.phase == CHOOSE):
                problems.append(f"seat {p}'s collection {coll} is negative or above 9")
        if self.phase != STEALING and self.steals_left:
            problems.append(f"{self.steals_left} steals left outside the steal phase")
        if self.game_over:
            if any(sum(c) != COLLECTION_SIZE for c in self.collections) or any(self.drawn):
                problems.append("the game ended with a collection below 9 or cards on the table")
        else:
            mine = self.collections[self.current_player]
            if any(s > m for s, m in zip(self.stolen, mine)):
                problems.append(f"stolen cards {self.stolen} not in the thief's collection {mine}")
            if not any(self.drawn) and self.phase == CHOOSE:
                problems.append("the player to choose has drawn nothing")
            if sum(mine) >= COLLECTION_SIZE and self.phase == CHOOSE:
                problems.append(f"seat {self.current_player} is to choose with a full collection (a full one passes)")
            if self.phase == DISCARDING and (sum(mine) <= COLLECTION_SIZE or not any(self.stolen)):
                problems.append("the discard phase without a collection above 9 or a stolen card to discard")
            if self.phase == STEALING and not self.steals_left:
                problems.append("the steal phase with no steal left")
        return problems

    # --- text --------------------------------------------------------------------
    def action_to_str(self, action: int) -> str:
        if 0 <= action < NUM_FOODS:
            return f"take all the Food cards of value {action + 1} ({TYPE_NAMES[action]})"
        if FIRST_BONUS <= action < RACCOON:
            return f"take the {TYPE_NAMES[action]} card"
        if action == TAKE_RACCOONS:
            return "take all the Raccoon cards"
        if STEAL <= action < STOP_STEALING:
            r, kind = divmod(action - STEAL, NUM_KINDS)
            return f"steal a {TYPE_NAMES[kind]} card from the player {r + 1} seat{'s' if r else ''} to the left"
        if action == STOP_STEALING:
            return "stop stealing"
        if DISCARD <= action < NUM_ACTIONS:
            return f"discard a stolen {TYPE_NAMES[action - DISCARD]} card"
        return f"<no action {action}>"

    @staticmethod
    def cards_str(counts: Sequence[int]) -> str:
        return ", ".join(f"{TYPE_NAMES[t]} x{n}" for t, n in enumerate(counts) if n) or "-"

    def render_text(self, viewer: int | None = None, names: Sequence[str] | None = None) -> str:
        """Everything on the table is public in Snack Wars (the draw pile's order aside), so every viewer sees the same."""
        names = self.view_names(viewer, names)
        if self.game_over:
            status = f"game over after {self.turn} turns"
        else:
            status = f"turn {self.turn + 1}: {names[self.current_player]} to {self.phase}"
            if self.phase == STEALING:
                status += f" ({self.steals_left} steal{'s' if self.steals_left != 1 else ''} left)"
        lines = [
            f"Snack Wars, {status}. "
            f"Draw pile {len(self.deck)} cards; discard pile: {self.cards_str(self.discard)}."
        ]
        if self.passed:
            lines.append("Passed (collection of 9): " + ", ".join(names[p] for p in self.passed))
        if not self.game_over:
            lines.append(f"On the table: {self.cards_str(self.drawn)}")
            if any(self.stolen):
                lines.append(f"Stolen this turn: {self.cards_str(self.stolen)}")
        scores = self.scores() if self.game_over else None
        for p, coll in enumerate(self.collections):
            tail = f"  -> {scores[p]:g} points" if scores else ""
            lines.append(f"  {names[p]}: {sum(coll)}/9 | {self.cards_str(coll)} | raccoons {self.raccoons[p]}{tail}")
        return "\n".join(lines)
