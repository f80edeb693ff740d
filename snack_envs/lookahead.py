"""A one-ply lookahead bot for every game: an opponent independent of the heuristic bots.

Issue 19 asks how trained agents do against opponents they never trained with. This bot is one:
it shares no code or idea with `<game>/heuristic.py`; it plays from the rules engine itself.

    policy = make_policy("lookahead", "snack_wars_v0", num_players=3, seed=0)
    action = policy.act_game(env.game, seat)     # what core.rollout.play calls

How it chooses: for each legal action of its seat it applies the action to a copy of the game,
scores the result with a static evaluation from its seat's point of view, and plays the best;
ties go to its own rng. Chance in the step (dice, a reshuffle, the next round's roll) is drawn
from the bot's own seeded Generator: `SAMPLES[game]` tries per action, and try i of every action
uses the same chance stream i (common random numbers), so actions are compared on the same luck.

It sees the true state, hidden information included: the draw piles' order, the other players'
hands and face-down cards. That makes it a tougher and different opponent, not a fair player.

Speed Snacks is simultaneous: the other seat's move in the same tick is unknown, and the bot
assumes it waits (or, where it may not wait, e.g. a Hurry-up in hand, takes its first legal action).

Static evaluations, from the state as it stands, finished or not (plus `WIN` for a sole win).
"Margin" is own value less the best rival's:
- Snack Rabbits: margin of score (majorities as they stand) + a white die's worth
  (`RABBITS_DIE`: 1.5 before Farmer Brown shows, when dice still buy hops; nothing after).
- Snack Wars: margin of majorities as they stand (a tie shares `WARS_TIE` of the value among the
  tied), Bonus points as they stand, and `WARS_SLOT[players]` per empty slot (a card still to pick).
- Snack Time: own value only (players never interact): score as it stands + for each creature with
  snack slots left, slots left x `TIME_FILL` x (mean worth of the pedestrians its traits can eat +
  its traits) x `TIME_GAMMA` ** (pipes still missing to an entrance; 0 once linked).
- Speed Snacks: margin of `SPEED_TOQUE` x toques + this round's points as the table stands.
The weights are set by hand, but for `WARS_SLOT`, picked by a few 200-game matches against the
heuristic at each player count (the slot value matters most there); Snack Time's few alternatives
scored alike in solo games.

Speed: a copy is the game's attributes pickled once per decision and unpickled per try (several
times cheaper than `Game.copy`, which rebuilds an rng and a checked state); the step is the rules'
own `_apply_joint` on an action known to be legal. In Snack Time, pipes that the evaluation cannot
tell apart are scored once (`GROUPS`, `time_groups`).
"""

from __future__ import annotations

import pickle
from functools import lru_cache
from typing import Callable

import numpy as np

from snack_envs import specs
from snack_envs.core.game import Game
from snack_envs.core.rollout import GamePolicy
from snack_envs.snack_time import components as time_parts
from snack_envs.snack_time.actions import DAMAGE_BASE, PIPE_BASE
from snack_envs.snack_time.sheet import ALL_SIDES, CREATURE_AT, OPEN_SIDES
from snack_envs.snack_wars import components as wars_parts

WIN = 1000.0  # a finished game that the seat wins alone: it outweighs any margin
SAMPLES = {"snack_rabbits": 8, "snack_wars": 1, "snack_time": 1, "speed_snacks": 1}  # tries per action


def margin(values: list[float], seat: int) -> float:
    """`seat`'s value less the best other seat's (its value alone when playing solo)."""
    others = values[:seat] + values[seat + 1:]
    return values[seat] - max(others) if others else values[seat]


# --- Snack Rabbits ----------------------------------------------------------------------------------
RABBITS_DIE = (1.5, 0.0)  # a white die held: before Farmer Brown is revealed, after (then only hops count)


def rabbits_value(game, seat: int) -> float:
    die = RABBITS_DIE[game.farmer_revealed]
    return margin([sum(points) + die * white for points, white in zip(game.kind_points(), game.white)], seat)


# --- Snack Wars ----------------------------------------------------------------------------------------
WARS_TIE = 0.5  # a tied majority: this share of the food's value, split among the tied
# An empty collection slot (a card still to pick), by player count: worth most with 2 players, where
# the rival who fills up first passes and the player with room left picks alone.
WARS_SLOT = {2: 12.0, 3: 2.0, 4: 1.0, 5: 1.0}


def wars_value(game, seat: int) -> float:
    n = game.num_players
    slot = WARS_SLOT[n]
    values = [slot * (wars_parts.COLLECTION_SIZE - sum(c)) for c in game.collections]
    for food, food_value in enumerate(wars_parts.VALUES):
        counts = [c[food] for c in game.collections]
        best = max(counts)
        if best:
            leaders = [p for p in range(n) if counts[p] == best]
            share = food_value if len(leaders) == 1 else food_value * WARS_TIE / len(leaders)
            for p in leaders:
                values[p] += share
    for p, details in enumerate(game.score_details()):
        values[p] += sum(details.values()) - details["majorities"]  # the Bonus cards as they stand
    return margin(values, seat)


# --- Snack Time ------------------------------------------------------------------------------------------
TIME_FILL = 0.7  # share of a creature's open snack slots it can expect to fill
TIME_GAMMA = 0.7  # a creature's prospects, discounted per pipe still missing to an entrance
TIME_BADGE, TIME_DAMAGE = 0.7, 2.0  # what a pedestrian's Badge or Damage costs


@lru_cache(maxsize=1)
def _time_worth() -> dict[tuple[int, int, int], float]:
    """Mean worth (value less its consequence's cost) of the pedestrians a creature with these
    traits can eat, for every trait count (Eyes, Teeth, Tentacles)."""
    cost = {time_parts.BADGE: TIME_BADGE, time_parts.DAMAGE: TIME_DAMAGE}
    pedestrians = list(zip(time_parts.PED_VALUE, time_parts.PED_NEEDS, time_parts.PED_CONSEQUENCE))
    slots = range(time_parts.TRAIT_SLOTS + 1)
    worth = {}
    for e in slots:
        for t in slots:
            for x in slots:
                edible = [v - cost.get(c, 0.0) for v, needs, c in pedestrians
                          if needs[0] <= e and needs[1] <= t and needs[2] <= x]
                worth[e, t, x] = sum(edible) / len(edible)
    return worth


@lru_cache(maxsize=16)
def _entrance_distances(entrances: tuple[int, ...]) -> tuple[int, ...]:
    """For each cell, the Manhattan distance to the nearest of `entrances`."""
    size = time_parts.SIZE
    return tuple(min(abs(cell // size - e // size) + abs(cell % size - e % size) for e in entrances)
                 for cell in range(time_parts.NUM_CELLS))


def _pipes_missing(game, p: int, creature: int, distances: tuple[int, ...]) -> int | None:
    """Pipes still needed to join an unlinked creature's network to an entrance: the least distance to
    an entrance from an empty cell the network opens onto (a pipe there extends it); None if none."""
    pipes, entrance_at = game.pipes[p], game.entrance_at
    start = time_parts.CREATURE_CELLS[creature]
    seen, stack, best = {start}, [(start, ALL_SIDES)], None
    while stack:
        cell, openings = stack.pop()
        for nb, back in OPEN_SIDES[cell][openings]:
            if pipes[nb]:
                if pipes[nb] & back and nb not in seen:  # the network goes on there
                    seen.add(nb)
                    stack.append((nb, pipes[nb]))
            elif entrance_at[nb] < 0 and CREATURE_AT[nb] < 0 and (best is None or distances[nb] < best):
                best = distances[nb]
    return best


def time_value(game, seat: int) -> float:
    worth = _time_worth()
    distances = _entrance_distances(tuple(game.entrances)) if game.entrances else None
    value = float(game.score(seat))
    links = game.links[seat]
    for creature, (eaten, healthy) in enumerate(zip(game.snacks[seat], game.healthy[seat])):
        left = time_parts.SNACK_SLOTS - len(eaten)
        if not left:
            continue
        if links[creature]:
            reach = 1.0
        else:
            missing = _pipes_missing(game, seat, creature, distances) if distances else None
            reach = 0.0 if missing is None else TIME_GAMMA ** missing
        value += left * TIME_FILL * (worth[healthy[0], healthy[1], healthy[2]] + sum(healthy)) * reach
    return value


def time_groups(game, seat: int) -> Callable[[int], object]:
    """`time_value` reads the creatures' networks, never the rest of the map: every pipe drawn on a cell
    next to none of them (no creature, no cell of `wet`) leaves the value as it is, and draws the same
    chance, so those pipes form one group, scored once (most pipe choices; several times faster). Not quite
    exactly: on a nearly full map such a pipe can still change whether the seat has places left for its
    other pipes (2 decisions in 5,000 of random play scored differently)."""
    wet, neighbours = game.wet[seat], time_parts.NEIGHBOURS

    def group(action: int) -> object:
        if PIPE_BASE <= action < DAMAGE_BASE:
            cell = (action - PIPE_BASE) // time_parts.NUM_PATTERNS
            if not any(wet >> nb & 1 or CREATURE_AT[nb] >= 0 for _, nb in neighbours[cell]):
                return "elsewhere"
        return action

    return group


# --- Speed Snacks -------------------------------------------------------------------------------------------
SPEED_TOQUE = 10.0  # a toque, against one point of this round's lead


def speed_value(game, seat: int) -> float:
    return margin([SPEED_TOQUE * t + points for t, points in zip(game.toques, game.round_points())], seat)


EVALUATIONS: dict[str, Callable[[Game, int], float]] = {
    "snack_rabbits": rabbits_value,
    "snack_wars": wars_value,
    "snack_time": time_value,
    "speed_snacks": speed_value,
}
# Actions that a game's evaluation cannot tell apart, scored once per group: game -> (game, seat) -> action -> group.
GROUPS: dict[str, Callable[[Game, int], Callable[[int], object]]] = {"snack_time": time_groups}


class LookaheadPolicy(GamePolicy):
    """One-ply lookahead on the rules engine (see the module docstring). It needs the game: tools call
    `act_game(game, seat)` for a policy with `uses_game`; `act(observation, action_mask)` raises."""

    name = "lookahead"

    def __init__(self, env_name: str, num_players: int, seed: int | None = None, **env_options):
        super().__init__(seed)
        spec = specs.get(env_name)
        self.check_num_players(env_name, num_players)
        self.check_env_options(env_name, env_options)
        self.env_name, self.num_players = env_name, num_players
        self.evaluate = EVALUATIONS[spec.name]
        self.samples = SAMPLES[spec.name]
        self.groups = GROUPS.get(spec.name)
        self.chance = np.random.Generator(np.random.PCG64(0))  # the copies' rng, its state set per try

    def act_game(self, game: Game, seat: int) -> int:
        """The action for `seat` in `game` (left unchanged): the best legal one by `action_values`."""
        self.check_game(game, seat)
        legal = game.legal_actions(seat)
        if len(legal) == 1:
            return legal[0]
        values = self.action_values(game, seat)
        best = max(values)
        ties = [a for a, v in zip(legal, values) if v >= best - 1e-9]
        return ties[0] if len(ties) == 1 else ties[int(self.rng.integers(len(ties)))]

    def action_values(self, game: Game, seat: int, grouped: bool = True) -> list[float]:
        """The value of each legal action of `seat` (in `legal_actions` order): the sum over the tries of
        the evaluation after the step. `grouped=False` scores every action even where `GROUPS` says it
        need not (for checking the groups)."""
        self.check_game(game, seat)
        legal = game.legal_actions(seat)
        if not legal:
            raise ValueError(f"seat {seat} has no legal action now")
        # The other seats to act (Speed Snacks) take their first legal action: wait (0) where they may.
        others = {p: game.legal_actions(p)[0] for p in game.players_to_act() if p != seat}
        streams = [np.random.PCG64(int(s)).state for s in self.rng.integers(2**63, size=self.samples)]
        attrs = dict(game.__dict__, _legal_cache={})
        del attrs["rng"]
        frozen = pickle.dumps(attrs, pickle.HIGHEST_PROTOCOL)
        cls, chance, evaluate = type(game), self.chance, self.evaluate
        group = self.groups(game, seat) if self.groups and grouped else None
        scored: dict[object, float] = {}  # group (or action) -> value
        values = []
        for action in legal:
            key = group(action) if group else action
            if key not in scored:
                total = 0.0
                for stream in streams:
                    chance.bit_generator.state = stream
                    copy = cls.__new__(cls)
                    copy.__dict__.update(pickle.loads(frozen))
                    copy.rng = chance
                    copy._apply_joint({seat: action, **others})
                    total += self.judge(copy, seat, evaluate)
                scored[key] = total
            values.append(scored[key])
        return values

    @staticmethod
    def judge(game: Game, seat: int, evaluate: Callable[[Game, int], float]) -> float:
        """`evaluate`, plus `WIN` once the game is over with `seat` its sole winner. A loss costs nothing
        extra: a bot losing anyway must not stall to put off the end (in Rabbits, after Farmer Brown, both
        players could take dice forever)."""
        value = evaluate(game, seat)
        if game.game_over and game.winners() == [seat] and game.num_players > 1:
            value += WIN
        return value
