"""A search bot for the games with a face-down draw pile (Snack Time, Snack Wars): heuristic playouts on the
batched kernel from each legal action.

    policy = make_policy("search", "snack_wars_v0", num_players=2, seed=0)
    action = policy.act_game(env.game, seat)     # what core.rollout.play and the arena call

How it chooses (one step of policy improvement over the game's heuristic, by Monte Carlo): for each legal
action of its seat it plays the game out from the action, every seat played by the heuristic (in numba, on
the game's batched kernel), and plays the action with the best mean outcome. The outcome is the final score
solo; with more players, by default (`objective="margin"`) its score less the best rival's, or with
`objective="win"` its share of the win (1, 1/k for a win shared by k, or 0: what a match counts). Every
action gets `first` playouts; the `keep` best of them get more, up to `samples` each (successive halving:
the actions that are clearly worse are not played out further). Playout i of every action has the same deal
and the same chance stream (common random numbers), so actions are compared on the same luck. Ties go to the
lower action id.

It plays fair: only the draw pile's order is hidden in these games (discards, collections and the board are
open), and each playout deals the pile's cards (the unseen ones, known as a set) in a new random order and
draws new chance (dice, reshuffles) from the bot's own seeded Generator. It never reads the pile's true order
or, in Snack Time, the dice that a game dealt by the batched engine has rolled ahead.

A game takes part through two methods of its kernel: `hidden_pile(b)` (the field and columns of env b's draw
pile) and `forget_chance(b)` (drop any chance the kernel drew ahead). Budgets (`samples:first:keep`) differ by
game, as a playout costs: Snack Time's default 32:4:4 takes about 9 seconds a solo game on one core; Snack
Wars' 512:512:1 about 0.4 seconds a 2-player game.
"""

from __future__ import annotations

import numpy as np

from snack_envs.core.batched import seed_streams
from snack_envs.core.game import ConfigError, Game, is_int
from snack_envs.core.rollout import GamePolicy

# The default budget (samples, first, keep), by the rules' name.
BUDGETS = {"snack_time": (32, 4, 4), "snack_wars": (512, 512, 1)}
# The margin is the default objective: in Snack Wars, 2 players, 512 playouts an action, over the same
# 1,000 deals against the heuristic (benchmarks/search_headroom.py), playing for the margin won 0.591
# [0.562, 0.620] and playing for the win 0.565 [0.535, 0.595] (a win is a noisier signal than a margin).
OBJECTIVES = ("margin", "win")


def check_game(env_name: str) -> str:
    """The rules' name of `env_name`'s game if the search plays it (a key of BUDGETS), else a ConfigError."""
    from snack_envs import specs

    game = specs.get(env_name).rules_class.name
    if game not in BUDGETS:
        raise ConfigError(f"the search bot plays Snack Time and Snack Wars only, not {env_name}")
    return game


def play_out(kernel, streams: np.ndarray) -> np.ndarray:
    """Play every game of `kernel` to its end with the heuristic in every seat; their scores [B, n]."""
    B = kernel.over().shape[0]
    obs = np.zeros((B, kernel.obs_size), np.float32)
    mask = np.zeros((B, kernel.num_actions), np.int8)
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

    def __init__(self, env_name: str, num_players: int, seed: int | None = None, samples: int | None = None,
                 first: int | None = None, keep: int | None = None, objective: str = "margin", **env_options):
        from snack_envs import specs

        game = check_game(env_name)
        spec = specs.get(env_name)
        self.check_num_players(env_name, num_players)
        self.check_env_options(env_name, env_options)
        for name, value in (("samples", samples), ("first", first), ("keep", keep)):
            if value is not None and not is_int(value):
                raise ConfigError(f"search: {name} must be an int, not {value!r}")
        default = dict(zip(("samples", "first", "keep"), BUDGETS[game]))
        samples = default["samples"] if samples is None else samples
        first = min(default["first"], samples) if first is None else first
        keep = default["keep"] if keep is None else keep
        if not 1 <= first <= samples or keep < 1:
            raise ConfigError(f"search: need 1 <= first <= samples and keep >= 1, not first={first}, "
                              f"samples={samples}, keep={keep}")
        if objective not in OBJECTIVES:
            raise ConfigError(f"search: objective must be one of {', '.join(OBJECTIVES)}, not {objective!r}")
        super().__init__(seed)
        self.kernel_class = spec.module("batched").Kernel
        self.env_name, self.num_players, self.objective = env_name, num_players, objective
        self.samples, self.first, self.keep = samples, first, keep

    def act_game(self, game: Game, seat: int) -> int:
        """The action for `seat` in `game` (left unchanged): the legal one with the best mean playout."""
        self.check_game(game, seat)
        legal = game.legal_actions(seat)
        if not legal:
            raise ValueError(f"seat {seat} has no legal action now")
        if len(legal) == 1:
            return legal[0]
        values = self.action_values(game, seat)
        return legal[int(np.argmax(values))]

    def best_actions(self, game: Game, seat: int) -> list[int]:
        """The legal actions of `seat` that share the best mean playout (`act_game` plays the first): a
        teacher's label for imitation (`training.imitate`), where the search is indifferent among them."""
        self.check_game(game, seat)
        legal = game.legal_actions(seat)
        if len(legal) == 1:
            return legal
        values = self.action_values(game, seat)
        return [a for a, v in zip(legal, values) if np.isclose(v, values.max())]

    def action_values(self, game: Game, seat: int) -> np.ndarray:
        """The mean playout outcome of each legal action of `seat` (in `legal_actions` order); an action
        dropped after the first round of playouts keeps its mean over those."""
        self.check_game(game, seat)
        legal = np.asarray(game.legal_actions(seat), np.int64)
        root = self._root(game)
        streams = seed_streams(int(self.rng.integers(2**62)), self.samples)  # playout k's chance: row k
        columns = root.hidden_pile(0)[1]
        deals = [self.rng.permutation(columns.stop - columns.start) for _ in range(self.samples)]
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

    def _root(self, game: Game):
        """`game` in a one-game kernel, without the chance its kernel drew ahead (a playout draws its own)."""
        root = self.kernel_class(1, game.num_players, game.config)
        root.load(0, game)
        root.forget_chance(0)
        return root

    def _deal(self, root, kernel, deals: list) -> None:
        """Deal the unseen cards of `root`'s draw pile in each order of `deals` into `kernel`'s games (game
        a * K + k gets deal k): their order is hidden, so only the set of them is read."""
        field, columns = root.hidden_pile(0)
        pile = np.sort(getattr(root, field)[0, columns])
        for k, order in enumerate(deals):
            getattr(kernel, field)[k::len(deals), columns] = pile[order]

    def _play(self, root, seat: int, actions: np.ndarray, deals: list, streams: np.ndarray) -> np.ndarray:
        """The sum over `deals` of each action's playout outcome for `seat`."""
        K, n = len(deals), root.num_players
        kernel = self.kernel_class(len(actions) * K, n, root.config)
        for name, value in vars(root).items():  # the state arrays: one row per game
            if isinstance(value, np.ndarray) and value.shape[:1] == (1,):
                getattr(kernel, name)[:] = value[0]
        self._deal(root, kernel, deals)
        streams = np.tile(streams, (len(actions), 1))  # playout a * K + k: deal k
        kernel.step(np.repeat(actions, K), np.ones(len(actions) * K, bool), streams)
        scores = play_out(kernel, streams)
        if n == 1:
            outcome = scores[:, 0]
        elif self.objective == "win":
            winners = kernel.winners()
            outcome = np.where(winners[:, seat], 1.0 / np.maximum(winners.sum(axis=1), 1), 0.0)
        else:
            outcome = scores[:, seat] - np.delete(scores, seat, axis=1).max(axis=1)
        return outcome.reshape(len(actions), K).sum(axis=1)
