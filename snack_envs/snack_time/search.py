"""A search bot for Snack Time: the heuristic's playouts on the batched kernel, from each legal action.

    policy = make_policy("search", "snack_time_v0", num_players=1, seed=0)
    action = policy.act_game(env.game, seat)     # what core.rollout.play and the arena call

How it chooses (one step of policy improvement over `heuristic`, by Monte Carlo): for each legal
action of its seat it plays the game out from the action, every seat played by the heuristic
(`batched_heuristic`, in numba), and plays the action with the best mean outcome: its final score
solo, its score less the best rival's with more players. Every action gets `first` playouts; the
`keep` best of them get more, up to `samples` each (successive halving: the actions that are
clearly worse are not played out further). Playout i of every action has the same deal and the
same dice stream (common random numbers), so actions are compared on the same luck. Ties go to the
lower action id.

It plays fair: only the deck's order is hidden in Snack Time, and each playout deals the deck's
cards (the unseen ones, known as a set) in a new random order and rolls new dice, from the bot's
own seeded Generator. It never reads the deck's true order or the scripted rolls of a game dealt
by the batched engine.

It is slow next to the other bots: with the defaults (32 playouts for each of the 4 best actions, 4
for the others: a few hundred a decision) a solo game takes about 13 seconds on one core, and a game
with more players longer.
"""

from __future__ import annotations

import copy

import numpy as np

from snack_envs.core.batched import seed_streams
from snack_envs.core.game import ConfigError, check_options
from snack_envs.core.rollout import GamePolicy
from snack_envs.snack_time import batched as kernel_fields
from snack_envs.snack_time.batched import OBS_SIZE, Kernel
from snack_envs.snack_time.rules import NUM_ACTIONS, SnackTime

STATE_FIELDS = ("G", "cards", "reasons", "dice", "CM", "MP", "members", "wet", "PL", "rolls", "events")
SAMPLES, FIRST, KEEP = 32, 4, 4


def play_out(kernel: Kernel, streams: np.ndarray) -> np.ndarray:
    """Play every game of `kernel` to its end with the heuristic in every seat; their scores [B, n]."""
    B = kernel.G.shape[0]
    obs = np.zeros((B, OBS_SIZE), np.float32)
    mask = np.zeros((B, NUM_ACTIONS), np.int8)
    while True:
        live = ~kernel.over()
        if not live.any():
            return kernel.scores()
        seats = kernel.to_act()
        kernel.masks(seats, mask)
        kernel.encode(seats, obs)
        actions = kernel.heuristic_actions(obs, mask)
        actions[~live] = 0
        kernel.step(actions, live, streams)


class SearchPolicy(GamePolicy):
    """Heuristic playouts from each legal action (see the module docstring). It needs the game: tools call
    `act_game(game, seat)` for a policy with `uses_game`; `act(observation, action_mask)` raises."""

    name = "search"

    def __init__(self, env_name: str, num_players: int, seed: int | None = None, samples: int = SAMPLES,
                 first: int = FIRST, keep: int = KEEP, **env_options):
        from snack_envs import specs

        spec = specs.get(env_name)
        if spec.rules_class is not SnackTime:
            raise ConfigError(f"the search bot plays Snack Time only, not {env_name}")
        check_options(spec.name, spec.rules_class.options, env_options)  # a misspelt option fails here
        if not 1 <= first <= samples or keep < 1:
            raise ConfigError(f"search: need 1 <= first <= samples and keep >= 1, not first={first}, "
                              f"samples={samples}, keep={keep}")
        super().__init__(seed)
        self.env_name, self.num_players = env_name, num_players
        self.samples, self.first, self.keep = samples, first, keep

    def act_game(self, game: SnackTime, seat: int) -> int:
        """The action for `seat` in `game` (left unchanged): the legal one with the best mean playout."""
        legal = game.legal_actions(seat)
        if not legal:
            raise ValueError(f"seat {seat} has no legal action now")
        if len(legal) == 1:
            return legal[0]
        values = self.action_values(game, seat)
        return legal[int(np.argmax(values))]

    def action_values(self, game: SnackTime, seat: int) -> np.ndarray:
        """The mean playout outcome of each legal action of `seat` (in `legal_actions` order); an action
        dropped after the first round of playouts keeps its mean over those."""
        legal = np.asarray(game.legal_actions(seat), np.int64)
        root = self._root(game)
        streams = seed_streams(int(self.rng.integers(2**62)), self.samples)  # playout k's dice: row k
        deals = [self.rng.permutation(int(root.G[0, kernel_fields.DLEN])) for _ in range(self.samples)]
        totals = self._play(root, seat, legal, deals[:self.first], streams[:self.first])
        values = totals / self.first
        if self.samples > self.first and len(legal) > self.keep:
            best = np.argsort(-values, kind="stable")[:self.keep]
            more = self._play(root, seat, legal[best], deals[self.first:], streams[self.first:])
            values[best] = (totals[best] + more) / self.samples
        elif self.samples > self.first:
            more = self._play(root, seat, legal, deals[self.first:], streams[self.first:])
            values = (totals + more) / self.samples
        return values

    def _root(self, game: SnackTime) -> Kernel:
        """`game` in a one-game kernel, without its scripted rolls (so that a playout rolls new dice from its
        own stream) and its events (which a playout never reads)."""
        if game.num_players != self.num_players:
            raise ConfigError(f"search: this bot was made for {self.num_players} players, the game has "
                              f"{game.num_players}")
        bare = copy.copy(game)
        bare.scripted_rolls, bare.events = [], []
        root = Kernel(1, game.num_players, game.config)
        root.load(0, bare)
        return root

    def _play(self, root: Kernel, seat: int, actions: np.ndarray, deals: list, streams: np.ndarray) -> np.ndarray:
        """The sum over `deals` of each action's playout outcome for `seat`."""
        K, n = len(deals), root.num_players
        kernel = Kernel(len(actions) * K, n, root.config)
        for field in STATE_FIELDS:
            getattr(kernel, field)[:] = getattr(root, field)[0]
        start, length = kernel_fields.DECK0, int(root.G[0, kernel_fields.DLEN])
        deck = np.sort(root.cards[0, start:start + length])  # the unseen cards as a set: their order is hidden
        for k, order in enumerate(deals):
            kernel.cards[k::K, start:start + length] = deck[order]
        streams = np.tile(streams, (len(actions), 1))  # playout a * K + k: deal k
        kernel.step(np.repeat(actions, K), np.ones(len(actions) * K, bool), streams)
        scores = play_out(kernel, streams)
        outcome = scores[:, seat]
        if n > 1:
            outcome = outcome - np.delete(scores, seat, axis=1).max(axis=1)
        return outcome.reshape(len(actions), K).sum(axis=1)
