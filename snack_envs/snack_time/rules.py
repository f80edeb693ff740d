"""Snack Time's rules (shared/rules/snack_time.txt): state and transitions, no RL code.

Every player fills in a sheet of their own: an 8x8 pipe map with a creature in
each corner and the 5 sewer entrances shared by all (see `components` for the
map, the dice and the invented pedestrian table). Players share the dice, the
row of pedestrians and the traps; nothing one player draws changes another's
options. That is why the AEC sequencing below is harmless: within a round the
seats decide one after another, and a later seat sees the placements an
earlier seat made this round, which changes none of its options.

A round, as a sequence of decisions:
1. (not in round 1) the row moves on and a card is drawn for entrance 1;
   traps drawn on the way mark a badge for everyone and queue one damage for
   each creature connected to the trap's entrance. Then, seat by seat, each
   player chooses the trait crossed off for each queued damage ("trap" phase).
2. The dice are rolled (after the trap choices: the rulebook rolls in step 2).
   With Rat Snacks, the rat is drawn at once on every sheet.
3. Seat by seat ("place" phase): the player draws both traits, then the three
   pipes in the order of their choice.
4. Seat by seat ("snack" phase): snacking resolves creature by creature, each
   creature at entrances 1 to 5 in order; a Damage consequence stops the
   resolution until the player has chosen the trait to cross off, which can
   stop a later snack of that creature.
5. If an end condition came up during the round, the game ends now.
In Advanced mode with chosen entrances, setup adds an "entrance" phase: seat
k mod n places entrance k + 1.

Actions (728, the same for every option and player count):
- 0..11     draw a trait: TRAIT_BASE + trait * 4 + creature (trait Eye, Tooth,
            Tentacle; creature NW, NE, SW, SE);
- 12..651   draw a pipe: PIPE_BASE + cell * 10 + pattern (cell = row * 8 + col;
            pattern indexes `components.PATTERNS`, which names the piece);
- 652..663  cross off a trait: DAMAGE_BASE + creature * 3 + trait;
- 664..727  place the next sewer entrance: ENTRANCE_BASE + cell (Advanced).
The mask allows exactly the legal ones; a decision with no legal option is
skipped by the rules (a trait with no open slot, pipes with no place, a damage
to a creature with no trait left), so the player to act always has one.

Readings chosen where the rulebook is silent (see COMPONENTS.md too):
- Trait slots are interchangeable, so a placement names the trait and the
  creature, and a damage the trait crossed off. Satisfaction counts the
  creature's filled, uncrossed trait slots (an empty slot holds no trait).
- A pipe goes on an empty cell (not a creature, not an entrance) and at least
  one of its openings must face a creature, an entrance or a pipe's opening;
  its other openings may face a wall, a closed pipe side or the map's edge and
  join nothing. So every pipe belongs to a network that leads to a creature
  or an entrance. Any piece has an orientation opening to any side, so either
  every remaining piece has a place or none has; then all are skipped.
- Networks: an entrance is a 4-way junction a network passes through; a
  creature is an end point; an entrance next to a creature (possible only
  with chosen entrances) is connected to it.
- A creature snacks at most once per entrance per round (once on each
  pedestrian it meets); several of its entrances can feed it in one round.
  Creatures are resolved one after another: a consequence hits only the eater
  or the player's badges, so their order changes nothing.
- A Badge past the ninth is not marked (the penalty stays at -6).
- A damage to a creature with no uncrossed trait does nothing, also when a
  second trap hits a creature whose last trait the first one took.
- End: a player with 12 snacks, a player's ninth badge, or (Advanced traps) a
  "completely killed" creature ends the game at the end of the round.
- "Completely killed (no remaining traits)" has two readings (option
  `killed_when`). DEFAULT "all_slots": all 4 trait slots crossed off, so a
  creature with empty slots left is not dead (it can still grow traits).
  "no_healthy_trait": a damage crosses off its last uncrossed trait, even
  with empty slots left (it had at least one trait, the one just lost). The
  option is not in the observation. If the deck holds no pedestrian when the row
  must move on, the game ends before that round (nothing moves).
- Entrance rolls: a roll on an entrance or next to one (diagonals included)
  is rolled again; if no legal space is left (B2, E2, B5, E5 block all 36),
  the entrances rolled so far are erased and the rolling starts over.
- Chosen entrances (Advanced): any cell but the creatures' corners, the
  no-adjacency rule kept, chosen before round 1 with the row already dealt.
- Advanced traps: a drawn trap goes back into the deck at a uniformly random
  place (a shuffle), so it never lies on its location.
- Rat Snacks: the letter die names the column and the number die the row of
  the inner area; one rat a round; a roll on an entrance or on a space that
  holds 4 rats adds nothing. A rat does not block a pipe; it scores 1 when its
  cell's pipe belongs to a network that reaches a creature.
- Solo rating: the table's top rank is open-ended (a perfect sheet scores
  168 > 167) and its last rank takes every score below 25 (+7 with rats).
- Game length: a player makes at most 16 trait placements (16 slots), 55 pipe
  placements (60 cells less 5 entrances) and 16 damage choices (each crosses
  off a trait placed earlier), plus 5 entrance choices in all: a game has at
  most 87 n + 5 decisions, the `default_max_steps`; no game is truncated there.
  The deck also bounds the rounds: each round after the first draws one of
  the 25 pedestrians left, so there are at most 26.

Where things are: `actions` (the action ids, their text, the mask tables),
`sheet` (one player's sheet: the map and its networks, traits, snacks,
scoring), `text` (render_text), and here the game: setup, the phases of a
round, snacking, damage, the end conditions, the checks and the state as data.
The state is plain JSON data (`state_fields`); besides it the rules keep only
`entrance_at` (the entrance on each cell) and the sheets' `fits` (see
`sheet`), both rebuilt by `from_dict` and `state_changed`. The observation
encoder keeps its own caches, keyed on the state it reads: the rules keep
nothing for it.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from snack_envs.core.game import (
    Boolean,
    ConfigError,
    Game,
    IntIn,
    Items,
    ListOf,
    OneOf,
    Option,
    OrNone,
    Satisfies,
    count_by,
    roll_dice,
)
from snack_envs.snack_time import text
from snack_envs.snack_time.actions import (  # the action ids, importable from here too
    DAMAGE_BASE,
    DAMAGE_CHOICES,
    ENTRANCE_BASE,
    NO_ACTIONS,
    NUM_ACTIONS,
    PIECE_MASKS,
    PIPE_BASE,
    TRAIT_BASE,
    TRAIT_CHOICES,
    action_to_str as describe_action,
    choice,
    damage_action,
    decode,
    entrance_action,
    kinds_present,
    pipe_action,
    trait_action,
)
from snack_envs.snack_time.components import (
    BADGE,
    BADGE_PENALTY,
    BADGES,
    BADGES_PER_PENALTY,
    DAMAGE,
    FIRST_TRAP,
    INNER_CELLS,
    KING_ZONE,
    MAX_RATS_PER_CELL,
    NUM_CARDS,
    NUM_CELLS,
    NUM_CREATURES,
    NUM_ENTRANCES,
    NUM_PATTERNS,
    NUM_PEDESTRIANS,
    PATTERNS,
    PED_CONSEQUENCE,
    PED_NEEDS,
    PIPE_DICE,
    PIPE_DIE_FACES,
    SNACK_SLOTS,
    TRAIT_DICE,
    TRAIT_DIE_FACES,
    TRAIT_SLOTS,
    cell_name,
    cell_of,
    parse_cell,
    solo_rank,
)
from snack_envs.snack_time.sheet import ALL_SIDES, CREATURE_AT, SheetRules, fits_of

MAX_PLAYERS = 8
MAX_SCORE_PER_CREATURE = SNACK_SLOTS * 10 + SNACK_SLOTS * TRAIT_SLOTS  # 42
MAX_ROUNDS = 1 + NUM_PEDESTRIANS - NUM_ENTRANCES  # 26: each later round draws one pedestrian
DECISIONS_PER_PLAYER = NUM_CREATURES * TRAIT_SLOTS * 2 + (NUM_CELLS - NUM_CREATURES - NUM_ENTRANCES)  # 87
INNER_BITS = sum(1 << cell for cell in INNER_CELLS)  # where the location dice can fall
KING_BITS = tuple(sum(1 << c for c in KING_ZONE[cell]) for cell in range(NUM_CELLS))
CHOICES_KEYS = tuple(("choices", p) for p in range(MAX_PLAYERS))  # `_legal_cache` keys of `_legal_choices`
PHASES = ("entrance", "trap", "place", "snack", "over")
END_REASONS = ("a player fed every creature 3 snacks", "a player marked the last badge",
               "a creature was completely killed", "the deck cannot refill the row")
PIPE_PATTERNS = (0,) + tuple(openings for _, openings in PATTERNS)  # what a cell of `pipes` may hold
ALL_CELLS = (1 << NUM_CELLS) - 1


def _event_ok(event: Any, num_players: int) -> bool:
    """Whether `event` is one of `SnackTime.events`' forms (see `text.event_str`)."""
    kind, *rest = event
    if not all(type(x) is int for x in rest):
        return False
    if kind == "trap":
        return len(rest) == 1 and 0 <= rest[0] < NUM_ENTRANCES
    if kind in ("rat", "rat ignored"):
        return len(rest) == 1 and rest[0] in INNER_CELLS
    if kind == "snack":
        p, c, k, card = rest
        return 0 <= p < num_players and 0 <= c < NUM_CREATURES and 0 <= k < NUM_ENTRANCES and 0 <= card < FIRST_TRAP
    if kind == "damage":
        p, c, trait = rest
        return 0 <= p < num_players and 0 <= c < NUM_CREATURES and 0 <= trait < 3
    return False


def _as_cell(value: Any) -> int:
    cell = parse_cell(value) if isinstance(value, str) else int(value)
    if not 0 <= cell < NUM_CELLS:
        raise ConfigError(f"no cell {value!r}")
    return cell


class SnackTime(SheetRules, Game):
    """The game (see the module docstring). Its state is the JSON-native fields in `state_fields`;
    what happens on one player's sheet is in `SheetRules` (`sheet`)."""

    name = "snack_time"
    version = 0
    min_players, max_players, default_players = 1, MAX_PLAYERS, 2
    # Lowest: nothing eaten and 9 badges. Highest: four perfect creatures and a connected rat every round.
    score_range = (-float(BADGES // BADGES_PER_PENALTY * BADGE_PENALTY), float(4 * MAX_SCORE_PER_CREATURE + MAX_ROUNDS))
    options = {
        "rat_snacks": Option(False, "the Rat Snacks module: a rat a round on the location dice, +1 per connected rat"),
        "advanced_entrances": Option(
            False, "Advanced mode: players take turns choosing the entrances, anywhere on the map"
        ),
        "advanced_traps": Option(
            False, "Advanced mode: drawn traps are shuffled back; a completely killed creature ends the game"
        ),
        "killed_when": Option(
            "all_slots", "Advanced traps: a creature is 'completely killed' when 'all_slots' (DEFAULT: all 4 trait "
            "slots crossed off) or 'no_healthy_trait' (a damage crossed off its last uncrossed trait)",
            choices=("all_slots", "no_healthy_trait"),
        ),
    }
    scripted_outcomes = ("deck", "entrance_rolls", "rolls")
    _trap_inserts: list[int] | None = None  # `_apply(trap_inserts=...)`'s script while it runs
    state_fields = (
        "phase", "current_player", "game_over", "round", "cursor", "ending", "end_reasons",
        "entrances", "deck", "row", "discard", "trap_spots",
        "dice_traits", "dice_pipes", "rat_roll", "rats",
        "pipes", "accept", "parent", "members", "reach", "links", "wet", "healthy", "crossed", "snacks", "badges",
        "pending", "traits_left", "pipes_left", "scripted_rolls", "events",
    )

    @classmethod
    def num_actions_for(cls, num_players, config):
        return NUM_ACTIONS

    @classmethod
    def default_max_steps(cls, num_players: int) -> int:
        return DECISIONS_PER_PLAYER * num_players + NUM_ENTRANCES

    # --- setup ---------------------------------------------------------------------------------
    def _setup(
        self,
        deck: Sequence[int] | None = None,
        entrance_rolls: Sequence[Any] | None = None,
        rolls: Sequence[Sequence[Any]] | None = None,
    ) -> None:
        """Deal and set up the sheets. Scripts for tests:
        - `deck`: all 35 card ids (pedestrians 0..29, trap for entrance k 30 + k - 1): the first
          5 (pedestrians) are dealt to entrances 1..5, the rest is the draw pile, top first;
        - `entrance_rolls`: location-dice rolls (cells, or names like "A3") used before the rng;
        - `rolls`: the dice of the next rounds, each (traits, pipes, rat): 2 trait ids, 3 piece
          ids and the rat's cell (a name, a cell, or None); used before the rng."""
        n = self.num_players
        if deck is None:
            order = self.rng.permutation(NUM_PEDESTRIANS).tolist()
            rest = order[NUM_ENTRANCES:] + list(range(FIRST_TRAP, NUM_CARDS))
            self.row = order[:NUM_ENTRANCES]
            self.deck = [rest[i] for i in self.rng.permutation(len(rest)).tolist()]
        else:
            deck = [int(c) for c in deck]
            if sorted(deck) != list(range(NUM_CARDS)) or max(deck[:NUM_ENTRANCES]) >= FIRST_TRAP:
                raise ConfigError("a scripted deck holds each of the 35 cards once, pedestrians in its first 5")
            self.row, self.deck = deck[:NUM_ENTRANCES], deck[NUM_ENTRANCES:]
        self.scripted_rolls = [self._check_roll(r) for r in (rolls or [])]
        self.discard: list[int] = []
        self.trap_spots = [False] * NUM_ENTRANCES
        self.rats = [0] * NUM_CELLS
        self.dice_traits: list[int] = []
        self.dice_pipes: list[int] = []
        self.rat_roll: int | None = None
        self.entrances: list[int] = []
        self.entrance_at = [-1] * NUM_CELLS
        self._new_sheets()
        self.pending: list[list[int]] = [[] for _ in range(n)]  # creatures whose damage is to be chosen
        self.traits_left = [[0, 0, 0] for _ in range(n)]  # dice still to draw this round
        self.pipes_left = [[0, 0, 0] for _ in range(n)]
        self.round = 0
        self.cursor = [0, 0, 0]  # where the phase stands: seat (and, snacking, creature and entrance)
        self.ending = False
        self.end_reasons: list[str] = []
        self.events: list[list] = []
        self.game_over = False
        self.current_player = 0
        if self.config["advanced_entrances"]:
            if entrance_rolls:
                raise ConfigError("entrance_rolls script the rolled entrances; with advanced_entrances players choose")
            self.phase = "entrance"
        else:
            for cell in self._roll_entrances([_as_cell(r) for r in (entrance_rolls or [])]):
                self._add_entrance(cell)
            self.phase = "trap"
            self._start_round()
        self._advance()

    @classmethod
    def state_specs(cls, num_players, config):
        n = num_players
        card, cell, trait_counts = IntIn(0, NUM_CARDS - 1), IntIn(0, NUM_CELLS - 1), Items(*[IntIn(0, TRAIT_SLOTS)] * 3)
        by_seat = lambda spec: ListOf(spec, length=n)  # noqa: E731
        by_cell = lambda spec: ListOf(spec, length=NUM_CELLS)  # noqa: E731
        by_creature = lambda spec: ListOf(spec, length=NUM_CREATURES)  # noqa: E731
        return {
            "phase": OneOf(*PHASES),
            "round": IntIn(0, MAX_ROUNDS),
            "cursor": Items(IntIn(0, n), IntIn(0, NUM_CREATURES - 1), IntIn(0, NUM_ENTRANCES)),
            "ending": Boolean(),
            "end_reasons": ListOf(OneOf(*END_REASONS), unique=True),
            "entrances": ListOf(cell, max_len=NUM_ENTRANCES, unique=True),
            "deck": ListOf(card, max_len=NUM_CARDS, unique=True),
            "row": ListOf(IntIn(0, FIRST_TRAP - 1), length=NUM_ENTRANCES, unique=True),
            "discard": ListOf(card, max_len=NUM_CARDS, unique=True),
            "trap_spots": ListOf(Boolean(), length=NUM_ENTRANCES),
            "dice_traits": ListOf(IntIn(0, 2), length=(0, 2)),
            "dice_pipes": ListOf(IntIn(0, 2), length=(0, 3)),
            "rat_roll": OrNone(OneOf(*INNER_CELLS)),
            "rats": by_cell(IntIn(0, MAX_RATS_PER_CELL)),
            "pipes": by_seat(by_cell(OneOf(*PIPE_PATTERNS))),
            "accept": by_seat(by_cell(IntIn(0, ALL_SIDES))),
            "parent": by_seat(by_cell(IntIn(-1, NUM_CELLS - 1))),
            "members": by_seat(by_cell(IntIn(0, ALL_CELLS))),
            "reach": by_seat(by_cell(IntIn(0, (1 << (NUM_CREATURES + NUM_ENTRANCES)) - 1))),
            "links": by_seat(by_creature(IntIn(0, (1 << NUM_ENTRANCES) - 1))),
            "wet": by_seat(IntIn(0, ALL_CELLS)),
            "healthy": by_seat(by_creature(trait_counts)),
            "crossed": by_seat(by_creature(trait_counts)),
            "snacks": by_seat(by_creature(ListOf(IntIn(0, FIRST_TRAP - 1), max_len=SNACK_SLOTS))),
            "badges": by_seat(IntIn(0, BADGES)),
            "pending": by_seat(ListOf(IntIn(0, NUM_CREATURES - 1))),
            "traits_left": by_seat(Items(*[IntIn(0, 2)] * 3)),
            "pipes_left": by_seat(Items(*[IntIn(0, 3)] * 3)),
            "scripted_rolls": ListOf(Satisfies(lambda r: cls._check_roll(r) == r,
                                               "[2 traits, 3 pieces (each 0..2), the rat's inner cell or None]")),
            "events": ListOf(Satisfies(lambda e: _event_ok(e, n), "an event: [\"trap\", k], [\"rat\" or \"rat ignored\", "
                                       "cell], [\"snack\", seat, creature, k, card] or [\"damage\", seat, creature, trait]")),
        }

    @staticmethod
    def _check_roll(roll: Sequence[Any]) -> list:
        try:
            traits, pipes, rat = roll
            traits, pipes = [int(t) for t in traits], [int(p) for p in pipes]
        except (TypeError, ValueError):
            raise ConfigError(f"a scripted roll is (2 traits, 3 pieces, rat cell or None), got {roll!r}") from None
        if len(traits) != 2 or len(pipes) != 3 or not all(0 <= x < 3 for x in traits + pipes):
            raise ConfigError(f"a scripted roll needs 2 traits and 3 pieces, each 0..2, got {roll!r}")
        if rat is not None and _as_cell(rat) not in INNER_CELLS:
            raise ConfigError(f"the location dice name a space of A-F x 1-6, not {rat!r}")
        return [traits, pipes, None if rat is None else _as_cell(rat)]

    def _entrance_allowed(self, cell: int, placed: Sequence[int]) -> bool:
        return CREATURE_AT[cell] < 0 and not any(e in KING_ZONE[cell] for e in placed)

    def _roll_entrances(self, scripted: list[int]) -> list[int]:
        """The rulebook's procedure: roll the location dice, roll again next to an entrance."""
        placed: list[int] = []
        blocked = 0  # the cells next to an entrance placed, or on one, as bits (`_entrance_allowed`)
        while len(placed) < NUM_ENTRANCES:
            if not INNER_BITS & ~blocked:
                placed, blocked = [], 0  # boxed in: start over (see the module docstring)
            if scripted:
                cell = scripted.pop(0)
            else:
                letter, number = roll_dice(self.rng, 2)
                cell = cell_of(number, letter)
            if 0 <= cell < NUM_CELLS and INNER_BITS >> cell & 1 and not blocked >> cell & 1:
                placed.append(cell)
                blocked |= KING_BITS[cell]
        return placed

    def _add_entrance(self, cell: int) -> None:
        self.entrance_at[cell] = len(self.entrances)
        self.entrances.append(cell)
        for p in range(self.num_players):
            self._connect(p, cell, ALL_SIDES)

    # --- rounds ----------------------------------------------------------------------------------
    def _start_round(self) -> None:
        """Step 1 of a round: (after round 1) the row moves on and traps spring on the way."""
        self.events = []
        if self.round > 0:
            if not any(card < FIRST_TRAP for card in self.deck):
                self._finish("the deck cannot refill the row")
                return
            self.discard.append(self.row.pop())
            while True:
                card = self.deck.pop(0)
                if card < FIRST_TRAP:
                    self.row.insert(0, card)
                    break
                self._spring_trap(card)
        self.round += 1
        self.dice_traits, self.dice_pipes, self.rat_roll = [], [], None
        self.phase = "trap"
        self.cursor = [0, 0, 0]

    def _spring_trap(self, card: int) -> None:
        k = card - FIRST_TRAP
        self.events.append(["trap", k])
        for p in range(self.num_players):
            self._mark_badge(p)
            links = self.links[p]
            self.pending[p].extend(c for c in range(NUM_CREATURES) if links[c] >> k & 1)
        if self.config["advanced_traps"]:
            if self._trap_inserts is not None:
                if not self._trap_inserts:
                    raise ConfigError("trap_inserts scripted fewer reshuffled traps than were sprung in this step")
                at = self._trap_inserts.pop(0)
                if not 0 <= at <= len(self.deck):
                    raise ConfigError(f"a trap goes back at a deck index 0..{len(self.deck)}, not {at}")
            else:
                at = int(self.rng.integers(len(self.deck) + 1))
            self.deck.insert(at, card)
        else:
            self.trap_spots[k] = True

    def _roll(self) -> None:
        """Step 2: the dice (and with Rat Snacks, the rat drawn on every sheet)."""
        rat_snacks = self.config["rat_snacks"]
        if self.scripted_rolls:
            traits, pipes, rat = self.scripted_rolls.pop(0)
        else:
            faces = roll_dice(self.rng, 7 if rat_snacks else 5)
            traits = [TRAIT_DIE_FACES[face - 1] for face in faces[:2]]
            pipes = [PIPE_DIE_FACES[face - 1] for face in faces[2:5]]
            rat = cell_of(faces[6], faces[5]) if rat_snacks else None  # the number die's row, the letter's column
        self.dice_traits, self.dice_pipes = traits, pipes
        self.traits_left = [count_by(traits, 3) for _ in range(self.num_players)]
        self.pipes_left = [count_by(pipes, 3) for _ in range(self.num_players)]
        if rat_snacks and rat is not None:
            self.rat_roll = rat
            if self.entrance_at[rat] >= 0 or self.rats[rat] >= MAX_RATS_PER_CELL:
                self.events.append(["rat ignored", rat])
            else:
                self.rats[rat] += 1
                self.events.append(["rat", rat])

    def _needs_placement(self, p: int) -> bool:
        """Whether p still has a trait or pipe to draw; drops the dice that cannot be drawn."""
        left = self.traits_left[p]
        if any(left):
            if self._creatures_with_open_slot(p):
                return True
            left[:] = [0, 0, 0]
        left = self.pipes_left[p]
        if any(left):
            if any(self.accept[p]):  # either every piece has a place or none has
                return True
            left[:] = [0, 0, 0]
        return False

    def _prune_pending(self, p: int) -> bool:
        """Drop queued damages that cannot hit (no trait left); whether one remains."""
        pending, healthy = self.pending[p], self.healthy[p]
        while pending and not any(healthy[pending[0]]):
            pending.pop(0)
        return bool(pending)

    def _next_seat(self, needs_decision) -> bool:
        """Move the cursor to the first seat from it on for which `needs_decision(seat)`; True if
        there is one (it is then the player to act)."""
        p = self.cursor[0]
        while p < self.num_players and not needs_decision(p):
            p += 1
        if p == self.num_players:
            return False
        self.cursor[0] = self.current_player = p
        return True

    def _advance(self) -> None:
        """Run the rules until a player has a decision to make or the game is over."""
        while not self.game_over:
            if self.phase == "entrance":
                if len(self.entrances) < NUM_ENTRANCES:
                    self.current_player = len(self.entrances) % self.num_players
                    return
                self._start_round()
            elif self.phase == "trap":
                if self._next_seat(self._prune_pending):
                    return
                self._roll()
                self.phase, self.cursor = "place", [0, 0, 0]
            elif self.phase == "place":
                if self._next_seat(self._needs_placement):
                    return
                self.phase, self.cursor = "snack", [0, 0, 0]
            else:
                if self._resolve_snacks():
                    return
                if any(all(len(eaten) == SNACK_SLOTS for eaten in sheet) for sheet in self.snacks):
                    self._end_after_round("a player fed every creature 3 snacks")
                if self.ending:
                    self._finish()
                else:
                    self._start_round()

    # --- snacking ----------------------------------------------------------------------------------
    def _resolve_snacks(self) -> bool:
        """Step 4 from the cursor (seat, creature, entrance) on; True when paused for a damage choice."""
        n = self.num_players
        p, c, k = self.cursor
        while p < n:
            links = self.links[p]
            while c < NUM_CREATURES:
                while links[c] >> k:  # c reaches an entrance from k on
                    if links[c] >> k & 1 and self._snack(p, c, k):
                        self.cursor = [p, c, k + 1]
                        self.current_player = p
                        return True
                    k += 1
                c, k = c + 1, 0
            p, c = p + 1, 0
        self.cursor = [n, 0, 0]
        return False

    def _snack(self, p: int, c: int, k: int) -> bool:
        """p's creature c, which reaches entrance k, eats the pedestrian there if it has a snack slot
        left and the traits the pedestrian needs; True if a damage is now to be chosen."""
        eaten, have, card = self.snacks[p][c], self.healthy[p][c], self.row[k]
        if len(eaten) == SNACK_SLOTS or any(h < need for h, need in zip(have, PED_NEEDS[card])):
            return False
        eaten.append(card)
        self.events.append(["snack", p, c, k, card])
        if PED_CONSEQUENCE[card] == BADGE:
            self._mark_badge(p)
        elif PED_CONSEQUENCE[card] == DAMAGE and any(have):
            self.pending[p].append(c)
            return True
        return False

    # --- badges, damage and the end -------------------------------------------------------------------
    def _mark_badge(self, p: int) -> None:
        if self.badges[p] < BADGES:
            self.badges[p] += 1
            if self.badges[p] == BADGES:
                self._end_after_round("a player marked the last badge")

    def _cross_off(self, p: int, c: int, trait: int) -> None:
        """The damage choice: creature c of p loses an uncrossed `trait`."""
        self.pending[p].pop(0)
        self.healthy[p][c][trait] -= 1
        self.crossed[p][c][trait] += 1
        self.events.append(["damage", p, c, trait])
        if self.config["advanced_traps"] and self._completely_killed(p, c):
            self._end_after_round("a creature was completely killed")

    def _completely_killed(self, p: int, c: int) -> bool:
        """Advanced traps' end condition for a creature that has just lost a trait (option `killed_when`)."""
        if self.config["killed_when"] == "all_slots":
            return sum(self.crossed[p][c]) == TRAIT_SLOTS
        return sum(self.healthy[p][c]) == 0

    def _end_after_round(self, reason: str) -> None:
        self.ending = True
        if reason not in self.end_reasons:
            self.end_reasons.append(reason)

    def _finish(self, reason: str | None = None) -> None:
        if reason and reason not in self.end_reasons:
            self.end_reasons.append(reason)
        self.phase = "over"
        self.game_over = True
        self.current_player = -1

    # --- actions -----------------------------------------------------------------------------------
    def _legal_actions(self, p: int) -> list[int]:
        actions, mask = self._legal_choices(p)
        return list(actions) if actions is not None else mask.nonzero()[0].tolist()

    def _legal_mask(self, p: int) -> np.ndarray:
        """p's legal actions as a read-only mask."""
        return self._legal_choices(p)[1]

    def _legal_choices(self, p: int) -> tuple[tuple[int, ...] | None, np.ndarray]:
        """p's legal actions, (ids, mask): a prebuilt table entry, or for pipe placements (None, the
        mask `fits & PIECE_MASKS[pieces left]`); kept in `_legal_cache`, so forgotten with the
        lists whenever the state changes."""
        if self.game_over or p != self.current_player:
            return (), NO_ACTIONS
        choices = self._legal_cache.get(CHOICES_KEYS[p])
        if choices is None:
            choices = self._legal_cache[CHOICES_KEYS[p]] = self._find_choices(p)
        return choices

    def _find_choices(self, p: int) -> tuple[tuple[int, ...] | None, np.ndarray]:
        if self.phase == "place":
            if any(self.traits_left[p]):
                return TRAIT_CHOICES[kinds_present(self.traits_left[p])][self._creatures_with_open_slot(p)]
            return None, np.frombuffer(self.fits[p], np.int8) & PIECE_MASKS[kinds_present(self.pipes_left[p])]
        if self.phase in ("trap", "snack"):
            c = self.pending[p][0]
            return DAMAGE_CHOICES[c][kinds_present(self.healthy[p][c])]
        return choice([entrance_action(c) for c in range(NUM_CELLS) if self._entrance_allowed(c, self.entrances)])

    def action_mask(self, player: int | None = None) -> np.ndarray:
        return self._legal_mask(self.current_player if player is None else self.check_seat(player)).copy()

    def _apply(self, action: int, trap_inserts: Sequence[int] | None = None, **outcomes) -> None:
        """Apply a legal action. `trap_inserts` (tests; Advanced traps) scripts where each trap sprung in
        this step goes back into the deck: its index in the deck as it stands (0 = top, len(deck) =
        bottom), one for each trap sprung, in order. The dice are scripted at construction (`rolls=`)."""
        if outcomes:
            raise ConfigError(f"snack_time scripts its dice at construction (rolls=...), not {sorted(outcomes)}")
        if trap_inserts is None:
            self._act(action)
            return
        saved = self.copy()
        self._trap_inserts = [int(at) for at in trap_inserts]
        try:
            self._act(action)
            if self._trap_inserts:
                raise ConfigError(f"trap_inserts scripted {len(trap_inserts)} reshuffled trap(s) but only "
                                  f"{len(trap_inserts) - len(self._trap_inserts)} were sprung in this step")
        except ConfigError:
            self.__dict__.update(saved.__dict__)  # derived fields (`fits`, `entrance_at`) and rng included
            raise
        finally:
            self._trap_inserts = None

    def _act(self, action: int) -> None:
        p = self.current_player
        kind, a, b = decode(action)
        if kind == "trait":
            self.healthy[p][b][a] += 1
            self.traits_left[p][a] -= 1
        elif kind == "pipe":
            piece, openings = PATTERNS[b]
            self._draw_pipe(p, a, openings)
            self.pipes_left[p][piece] -= 1
        elif kind == "damage":
            self._cross_off(p, a, b)
        else:
            self._add_entrance(a)
        self._advance()

    # --- results -----------------------------------------------------------------------------------
    def scores(self) -> list[float]:
        return [float(self.score(p)) for p in range(self.num_players)]

    def solo_rank(self, p: int = 0) -> str:
        """The rulebook's solo rating of p's score (shifted by 7 with Rat Snacks)."""
        return solo_rank(self.score(p), self.config["rat_snacks"])

    # --- checks ------------------------------------------------------------------------------------------
    def invariant_violations(self) -> list[str]:
        problems = []
        lying = [FIRST_TRAP + k for k, trap in enumerate(self.trap_spots) if trap]
        cards = self.deck + self.row + self.discard + lying
        if sorted(cards) != list(range(NUM_CARDS)):
            problems.append(f"cards: deck, row, discard and trap spots hold {sorted(cards)}, not each of 35 once")
        if len(self.row) != NUM_ENTRANCES or any(c >= FIRST_TRAP for c in self.row + self.discard):
            problems.append(f"row {self.row} / discard {self.discard}: only pedestrians, 5 in the row")
        if self.config["advanced_traps"] and any(self.trap_spots):
            problems.append("advanced traps: a trap lies on a location")
        rats = self.rats
        if sum(rats) > self._rolls_so_far() or max(rats) > MAX_RATS_PER_CELL or any(rats[e] for e in self.entrances):
            problems.append(f"rats: {self.rats}")
        if self.phase != "entrance" and len(self.entrances) != NUM_ENTRANCES:
            problems.append(f"entrances: {self.entrances}")
        for a in self.entrances:
            if CREATURE_AT[a] >= 0 or any(b != a and b in KING_ZONE[a] for b in self.entrances):
                problems.append(f"entrance at {cell_name(a)} is on a creature or next to another")
        for p in range(self.num_players):
            problems += [f"seat {p}: {m}" for m in self._sheet_violations(p)]
        if self.game_over != (self.phase == "over"):
            problems.append(f"phase {self.phase!r} with game_over = {self.game_over} (the phase is 'over' exactly then)")
        p = self.current_player
        if self.phase in ("trap", "place", "snack") and not self.game_over and self.cursor[0] != p:
            problems.append(f"cursor {self.cursor} does not point at the player to act, seat {p}")
        if self.phase in ("trap", "snack") and p >= 0 and not self.pending[p]:
            problems.append(f"phase {self.phase!r}, but seat {p} has no damage to choose")
        if self.phase == "entrance" and (not self.config["advanced_entrances"] or len(self.entrances) >= NUM_ENTRANCES):
            problems.append("phase 'entrance' without advanced_entrances or with every entrance placed")
        if not self.game_over:
            problems += self._round_violations()
        problems += self._end_violations()
        return problems

    def _rolls_so_far(self) -> int:
        """How many times the dice have been rolled: once a round, after its trap phase."""
        return self.round - 1 if self.phase == "trap" else self.round

    def _end_violations(self) -> list[str]:
        """The end agrees with the sheets: the game ends after this round (`ending`) exactly when a reason
        is given before it is over, an ended game gives one, and each reason holds. The last badge and,
        with Advanced traps counting every slot, a creature with all 4 slots crossed off, are reasons as
        soon as they happen."""
        fed, last_badge, killed, deck_out = END_REASONS
        reasons, problems = self.end_reasons, []
        if self.ending != bool(reasons) and not self.game_over or self.game_over and not reasons:
            problems.append(f"ending = {self.ending} with end reasons {reasons} (game over: {self.game_over})")
        if (BADGES in self.badges) != (last_badge in reasons):
            problems.append(f"badges {self.badges} with end reasons {reasons}")
        if fed in reasons and not any(all(len(eaten) == SNACK_SLOTS for eaten in sheet) for sheet in self.snacks):
            problems.append(f"end reason {fed!r}, but no sheet has 3 snacks for every creature")
        advanced, crossed = self.config["advanced_traps"], [sum(c) for sheet in self.crossed for c in sheet]
        all_slots = advanced and self.config["killed_when"] == "all_slots"
        if killed in reasons and not (advanced and max(crossed)) or all_slots and (TRAIT_SLOTS in crossed) != (
                killed in reasons):
            problems.append(f"end reason {killed!r} given or missing against creatures crossed off {crossed}")
        if deck_out in reasons and (not self.game_over or any(card < FIRST_TRAP for card in self.deck)):
            problems.append(f"end reason {deck_out!r} with pedestrians left in the deck or the game going on")
        return problems

    def _round_violations(self) -> list[str]:
        """Where the round stands agrees with its phase: the dice lie on the table while players draw and
        snack; a seat yet to draw has all of them to draw, one that has drawn none; a damage waits only for
        its seat's choice (in the trap phase, also for a later seat's); the cursor holds a creature and an
        entrance only while snacking."""
        problems = []
        phase, seat = self.phase, self.current_player
        rolled = phase in ("place", "snack")
        if (len(self.dice_traits), len(self.dice_pipes)) != ((TRAIT_DICE, PIPE_DICE) if rolled else (0, 0)):
            problems.append(f"dice {self.dice_traits} {self.dice_pipes} in phase {phase!r}")
        dice = count_by(self.dice_traits, 3) + count_by(self.dice_pipes, 3)
        for p in range(self.num_players):
            left = self.traits_left[p] + self.pipes_left[p]
            if phase == "place" and p > seat:
                left_ok = left == dice
            elif phase == "place" and p == seat:
                left_ok = all(a <= b for a, b in zip(left, dice))
            else:
                left_ok = not any(left)
            if not left_ok:
                problems.append(f"seat {p}: dice to draw {self.traits_left[p]} {self.pipes_left[p]} in phase "
                                f"{phase!r} with dice {self.dice_traits} {self.dice_pipes}")
            if phase == "snack" and p == seat:
                waits = self.pending[p] == [self.cursor[1]]
            else:
                waits = not self.pending[p] or phase == "trap" and p >= seat
            if not waits:
                problems.append(f"seat {p}: damages {self.pending[p]} to choose in phase {phase!r}")
        if phase != "snack" and self.cursor[1:] != [0, 0]:
            problems.append(f"cursor {self.cursor} in phase {phase!r} (a creature and an entrance only while snacking)")
        return problems

    # --- state as data ------------------------------------------------------------------------------------
    def _after_load(self) -> None:
        self._rebuild_derived()

    def state_changed(self) -> None:
        """Call after editing state fields by hand: forgets the cached legal actions and rebuilds
        `entrance_at` and `fits` from the state."""
        super().state_changed()
        self._rebuild_derived()

    def _rebuild_derived(self) -> None:
        self.entrance_at = [-1] * NUM_CELLS
        for k, cell in enumerate(self.entrances):
            self.entrance_at[cell] = k
        self.fits = [fits_of(accept) for accept in self.accept]

    # --- text ------------------------------------------------------------------------------------------
    def action_to_str(self, action: int) -> str:
        return describe_action(action)

    def render_text(self, viewer: int | None = None, names: Sequence[str] | None = None) -> str:
        """Every sheet, the row and the dice are public; only the deck's order is hidden."""
        return text.render_text(self, self.view_names(viewer, names))


__all__ = [
    "SnackTime", "MAX_PLAYERS", "MAX_ROUNDS", "NUM_ACTIONS", "NUM_PATTERNS", "TRAIT_BASE", "PIPE_BASE",
    "DAMAGE_BASE", "ENTRANCE_BASE", "trait_action", "pipe_action", "damage_action", "entrance_action",
]
