"""The batched engine's shared machinery: many games of one env stepped at once in native code.

A game's batched kernel (`snack_envs/<game>/batched.py`, class `Kernel`) keeps
the state of B games as struct-of-arrays numpy arrays and steps, encodes and
masks them in numba `@njit` functions. `BatchedEnv` wraps a kernel and adds,
once for every game, what the PettingZoo envs do in `core.env`:

- the same keyword checks and errors as the env (a probe env validates them);
- one random stream per env (xoshiro256**, seeded from `seed` by numpy's
  SeedSequence), so the same seed gives the same batch in any process;
- seat shuffling (which agent sits in which seat, drawn per game), reward
  modes (`win`, `score`, `margin`, and a game's per-round results), the
  `max_steps` truncation, and the automatic reset of finished games;
- bad input refused before anything changes, naming the env, agent and legal
  actions;
- `export(i)` / `load(i, game)`: env i as a reference `Game` (rules.py) and back;
- `final_scores` / `final_winners` ([B, n] by agent): the scores and winners of each game
  that ended by its rules in the last step, kept before the automatic reset deals anew; with
  `final_observations=True`, `final_obs` ([B, n, D]) each agent's last observation of each game
  that ended (by its rules or cut at `max_steps`);
- `reset(seed=s)`: the streams restarted, as in a new batch built with seed s.

Agents are numbered as in the env (`player_0` is agent 0); `player[b]` is the
agent to act in env b, and rewards are by agent. The kernel works in seats.

The kernel interface (all arrays length B in the first axis):
    Kernel(num_envs, num_players, config); .num_actions; .obs_size
    .deal(which, rng)                   new games where `which` (bool [B])
    .seat_agents(which, agent_of_seat)  (optional) the seating of those games, int64 [B, n]: agent by seat,
                                        for a kernel whose options belong to agents (Speed Snacks' speeds);
                                        such a kernel also has .seat_config(i): env i's options by seat
    .step(seat_actions, live, rng)      one decision in every env where `live` (bool [B]); turn-based:
                                        int64 [B]; simultaneous: int64 [B, n] by seat
    .to_act() -> int64 [B]              the seat to act (turn-based kernels)
    .over() -> bool [B]
    .masks(seats, out)                  int8 [B, A]: legal actions of `seats` ([B] or [B, n])
    .encode(seats, out)                 float32 [B, D] (or [B, n, D]) for those seats
    .scores() -> float64 [B, n]; .winners() -> bool [B, n]   of finished games, by seat
    .round_results() -> float32 [B, n]  (games with a "round" reward) of the last step
    .export(i) -> Game; .load(i, game)
    .outcomes(i) -> dict                the chance outcomes of env i's last step, as the keywords
                                        that script them in the reference `Game.apply_joint`
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from snack_envs import extras, specs
from snack_envs.core.game import ConfigError, Game, IllegalActionError, check_bool, check_count, check_options, check_seed, is_int

with extras.needed("the batched engine (snack_envs.batched)"):
    import numba

# --- one random stream per env: xoshiro256** (Blackman & Vigna), state uint64 [B, 4] --------------------
U64 = numba.uint64


@numba.njit(inline="always")
def _rotl(x, k):
    return (x << U64(k)) | (x >> U64(64 - k))


@numba.njit(inline="always")
def next_u64(state, i):
    s = state[i]
    result = _rotl(s[1] * U64(5), 7) * U64(9)
    t = s[1] << U64(17)
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = _rotl(s[3], 45)
    return result


@numba.njit(inline="always")
def uniform(state, i):
    """A float in [0, 1) with 53 random bits."""
    return (next_u64(state, i) >> U64(11)) * (1.0 / 9007199254740992.0)


@numba.njit(inline="always")
def below(state, i, n):
    """An int in [0, n), uniform (the 2^-53 bias of a float draw is far below any test's reach)."""
    return int(uniform(state, i) * n)


@numba.njit(cache=True)
def _draw_seats(state, which, agent_of_seat, seat_of_agent, shuffle):
    n = agent_of_seat.shape[1]
    for b in range(which.shape[0]):
        if not which[b]:
            continue
        for s in range(n):
            agent_of_seat[b, s] = s
        if shuffle:
            for s in range(n - 1, 0, -1):  # Fisher-Yates
                j = below(state, b, s + 1)
                agent_of_seat[b, s], agent_of_seat[b, j] = agent_of_seat[b, j], agent_of_seat[b, s]
        for s in range(n):
            seat_of_agent[b, agent_of_seat[b, s]] = s


@numba.njit(cache=True)
def first_illegal(actions, mask, live):
    """The first (env, agent) whose action is out of range or not in its mask, among live envs, flattened
    as env * agents + agent (-1 if every action is legal). actions int64 [B, k], mask int8 [B, k, A]."""
    num_actions = mask.shape[2]
    for b in range(actions.shape[0]):
        if not live[b]:
            continue
        for k in range(actions.shape[1]):
            a = actions[b, k]
            if a < 0 or a >= num_actions or not mask[b, k, a]:
                return b * actions.shape[1] + k
    return -1


@numba.njit(cache=True)
def sample_legal(mask, state, out):
    """One uniformly random legal action per row of `mask` (int8 [R, A]) into `out` (int64 [R]; -1 for a
    row with none), drawn from the xoshiro256** stream `state[0]` (uint64 [1, 4])."""
    for r in range(mask.shape[0]):
        count = 0
        for a in range(mask.shape[1]):
            count += mask[r, a] != 0
        out[r] = -1
        if count:
            k = below(state, 0, count)
            for a in range(mask.shape[1]):
                if mask[r, a]:
                    if k == 0:
                        out[r] = a
                        break
                    k -= 1


# --- Python's sum() of floats, for native bots that must break ties exactly as their Python originals ----------
NEUMAIER_SUM = sys.version_info >= (3, 12)  # from 3.12, sum() of floats compensates its rounding errors


@numba.njit(inline="always")
def python_sum_add(total, comp, x):
    """One item of `sum()` over floats (started at 0): the new (total, compensation)."""
    t = total + x
    if NEUMAIER_SUM:
        if abs(total) >= abs(x):
            comp += (total - t) + x
        else:
            comp += (x - t) + total
    return t, comp


@numba.njit(inline="always")
def python_sum_result(total, comp):
    """What `sum()` returns after its items were added by `python_sum_add`."""
    if NEUMAIER_SUM and comp != 0.0 and np.isfinite(comp):
        return total + comp
    return total


def seed_streams(seed: int, num_envs: int) -> np.ndarray:
    """Independent xoshiro256** states for `num_envs` envs from one seed (never all-zero)."""
    state = np.random.SeedSequence(seed).generate_state(num_envs * 4, np.uint64).reshape(num_envs, 4)
    state[~state.any(axis=1), 0] = 1
    return state


def stream_rng(state_row: np.ndarray) -> np.random.Generator:
    """A numpy Generator seeded from one env's stream as it stands (reading it changes nothing)."""
    return np.random.default_rng([int(w) for w in state_row])


# --- rewards ------------------------------------------------------------------------------------------------
def final_rewards(scores: np.ndarray, winners: np.ndarray, mode: str, score_range: tuple[float, float]) -> np.ndarray:
    """Terminal rewards by seat for finished games, [B, n]: the batched twin of `core.env.final_rewards`."""
    low, high = score_range
    if mode == "score":
        return scores / max(abs(low), abs(high))
    if mode == "margin":
        n = scores.shape[1]
        if n == 1:
            return scores / (high - low)
        best_other = np.stack([np.delete(scores, p, axis=1).max(axis=1) for p in range(n)], axis=1)
        return (scores - best_other) / (high - low)
    everyone = winners.all(axis=1, keepdims=True)
    return np.where(everyone, 0.0, np.where(winners, 1.0, -1.0))


def check_int_array(name: str, value: Any, shape: tuple[int, ...]) -> np.ndarray:
    """`value` as a fresh int64 array, if it is an integer array of `shape`; else an IllegalActionError
    naming `name` (a float array is not truncated, nor a list of strings parsed)."""
    array = np.asarray(value)
    if array.dtype.kind not in "iu":
        raise IllegalActionError(f"{name} must be an integer array of shape {shape}, got dtype {array.dtype}")
    if array.shape != shape:
        raise IllegalActionError(f"{name} must have shape {shape}, got {array.shape}")
    return array.astype(np.int64)  # a copy: the caller's array may change while the kernel reads this


@numba.njit(cache=True)
def _count_steps(live, over, steps, max_steps, terminated, truncated):
    """After a kernel step: count it in the envs that moved and mark their ended games; returns how many ended."""
    ended = 0
    for b in range(live.shape[0]):
        steps[b] += live[b]
        terminated[b] = live[b] and over[b]
        truncated[b] = live[b] and not over[b] and steps[b] >= max_steps
        ended += terminated[b] or truncated[b]
    return ended


class BatchedEnv:
    """`num_envs` games of one env, stepped together (see the module docstring)."""

    def __init__(
        self,
        env_name: str,
        num_envs: int,
        num_players: int | None = None,
        seed: int = 0,
        reward: str = "win",
        max_steps: int | None = None,
        shuffle_seats: bool = True,
        auto_reset: bool = True,
        final_observations: bool = False,
        **options: Any,
    ):
        self.spec = spec = specs.get(env_name)
        check_count(num_envs, "num_envs")
        if not is_int(seed) or seed < 0:
            raise ConfigError(f"seed must be a non-negative int, got {seed!r}")
        check_bool(auto_reset, "auto_reset")
        check_bool(final_observations, "final_observations")
        if options.get("render_mode") is not None:
            raise ConfigError(f"the batched engine draws nothing (render_mode={options['render_mode']!r}): "
                              "render a game it exports, e.g. export(0).render_text()")
        # The env itself checks every keyword, so both engines accept and refuse the same ones.
        probe = spec.env_class(num_players=num_players, reward=reward, max_steps=max_steps,
                               shuffle_seats=shuffle_seats, **options)
        self.env_name = env_name
        self.num_envs = B = int(num_envs)
        self.num_players = n = probe.num_players
        self.reward_mode = reward
        self.max_steps = probe.max_steps
        self.shuffle_seats = bool(shuffle_seats)
        self.simultaneous = spec.simultaneous
        self.game_class: type[Game] = spec.rules_class
        # The options as the game takes them (by seat) with every agent in its own seat; a kernel with
        # `seat_agents` reseats those that belong to agents for each new game.
        self.config = check_options(self.game_class.name, self.game_class.options, probe._seat_options())
        self.kernel = spec.module("batched").Kernel(B, n, self.config)
        self.num_actions = self.kernel.num_actions
        self.observation_size = self.kernel.obs_size
        assert self.num_actions == probe.num_actions and self.observation_size == probe.encoder.layout.size
        self._seed_streams(seed)
        self.agent_of_seat = np.zeros((B, n), np.int64)
        self.seat_of_agent = np.zeros((B, n), np.int64)
        self.steps = np.zeros(B, np.int64)
        # auto_reset=False (tests, search): a finished game stays as it ended, its env no longer live.
        self.auto_reset = bool(auto_reset)
        self.live = np.ones(B, np.bool_)
        self.envs = np.arange(B)
        self._shape = shape = (B, n) if self.simultaneous else (B,)
        self._mask = np.zeros(shape + (self.num_actions,), np.int8)  # the masks last returned (a private copy)
        self._obs = np.zeros(shape + (self.observation_size,), np.float32)  # the observations last returned
        self._seats = np.zeros(shape, np.int64)
        self._started = False
        self._ended_outcomes: dict[int, dict] = {}
        # The results of the games that ended by their rules in the last step, by agent (other envs: as they were).
        self.final_scores = np.zeros((B, n), np.float64)
        self.final_winners = np.zeros((B, n), np.bool_)
        # final_observations=True (SB3's terminal_observation): every agent's observation of each game that
        # ended in the last step, [B, n, D] by agent, encoded before the new deal (other envs: as they were).
        self.final_observations = bool(final_observations)
        self.final_obs = np.zeros((B, n, self.observation_size) if final_observations else (0, n, 0), np.float32)

    def _seed_streams(self, seed: int) -> None:
        self.rng = seed_streams(int(seed), self.num_envs)
        self._action_stream = np.random.SeedSequence([int(seed), 1]).generate_state(4, np.uint64).reshape(1, 4)

    # --- the episode loop ------------------------------------------------------------------------------
    def reset(self, seed: int | None = None):
        """New games in every env. Turn-based: (obs [B, D], mask [B, A], player [B]); simultaneous:
        (obs [B, n, D], mask [B, n, A]) with agents in the second axis. A `seed` restarts the random
        streams as the constructor's `seed` does: `reset(seed=s)` then deals what a new batch built with
        seed s deals."""
        seed = check_seed(seed, self.env_name)
        if seed is not None:
            self._seed_streams(seed)
        self._new_games(np.ones(self.num_envs, bool))
        self._ended_outcomes = {}  # the games that ended at the last step are gone, and with them their last chance
        self._started = True
        return self._observe()

    def step(self, actions, envs: np.ndarray | None = None):
        """One decision in every env: the acting agent's action (turn-based, int [B]) or every agent's
        (simultaneous, int [B, n] by agent). Returns obs, mask, (player,) rewards [B, n] by agent,
        terminated, truncated; a finished game's env starts a new game at once (the obs is the new game's).
        `envs` (bool [B]) steps only those envs; the others ignore their actions and stay as they are."""
        self._check_dealt("step")
        B, n = self.num_envs, self.num_players
        given = check_int_array("actions", actions, self._shape)  # by agent (simultaneous) or the acting agent's
        live = self._live_among(envs)
        if first_illegal(given.reshape(B, -1), self._mask.reshape(B, -1, self.num_actions), live) >= 0:
            self._refuse(given, live)
        # The kernel takes actions by seat: seat s of env b holds agent agent_of_seat[b, s].
        seat_actions = given[self.envs[:, None], self.agent_of_seat] if self.simultaneous else given
        self.kernel.step(seat_actions, live, self.rng)
        terminated, truncated = np.empty(B, np.bool_), np.empty(B, np.bool_)
        ended = _count_steps(live, self.kernel.over(), self.steps, self.max_steps, terminated, truncated)
        rewards = np.zeros((B, n), np.float32)
        if self.reward_mode == "round":  # only envs that moved
            rewards[self.envs[:, None], self.agent_of_seat] = np.where(live[:, None], self.kernel.round_results(), 0.0)
        if terminated.any():
            done = np.flatnonzero(terminated)
            scores, winners = self.kernel.scores()[done], self.kernel.winners()[done]
            self.final_scores[done[:, None], self.agent_of_seat[done]] = scores
            self.final_winners[done[:, None], self.agent_of_seat[done]] = winners
            if self.reward_mode != "round":
                rewards[done[:, None], self.agent_of_seat[done]] = final_rewards(
                    scores, winners, self.reward_mode, self.game_class.score_range)
        self._ended_outcomes = {}
        if ended:
            ended = terminated | truncated
            if self.auto_reset:  # keep what a replay of the last step needs, before the new deal
                self._ended_outcomes = {i: self.kernel.outcomes(i) for i in np.flatnonzero(ended)}
                if self.final_observations:
                    self._keep_final_obs(ended)
                self._new_games(ended)
            else:
                self.live &= ~ended
        return (*self._observe(), rewards, terminated, truncated)

    def _keep_final_obs(self, ended: np.ndarray) -> None:
        """Every agent's observation of the `ended` games (bool [B]) into `final_obs`, by agent."""
        if self.simultaneous:  # every agent at once, by agent
            out = np.empty((self.num_envs, self.num_players, self.observation_size), np.float32)
            self.kernel.encode(self.seat_of_agent, out)
            self.final_obs[ended] = out[ended]
            return
        out = np.empty((self.num_envs, self.observation_size), np.float32)
        for agent in range(self.num_players):
            self.kernel.encode(np.ascontiguousarray(self.seat_of_agent[:, agent]), out)
            self.final_obs[ended, agent] = out[ended]

    def _new_games(self, which: np.ndarray) -> None:
        _draw_seats(self.rng, which, self.agent_of_seat, self.seat_of_agent, self.shuffle_seats)
        if hasattr(self.kernel, "seat_agents"):
            self.kernel.seat_agents(which, self.agent_of_seat)
        self.kernel.deal(which, self.rng)
        self.steps[which] = 0
        self.live |= which

    def _observe(self):
        if self.simultaneous:
            self._seats[:] = self.seat_of_agent
        else:
            self._seats[:] = self.kernel.to_act()
        self.kernel.masks(self._seats, self._mask)
        if not self.live.all():
            self._mask[~self.live] = 0  # a finished or truncated game: nobody may act
        # Fresh arrays for the caller (the kernels write every entry), so what a step returned stays as it was.
        self._obs = np.empty(self._shape + (self.observation_size,), np.float32)
        self.kernel.encode(self._seats, self._obs)
        if self.simultaneous:  # the seats were given by agent, so these are by agent too
            return self._obs, self._mask.copy()
        return self._obs, self._mask.copy(), self.agent_of_seat[self.envs, self._seats]

    def _refuse(self, given: np.ndarray, live: np.ndarray) -> None:
        """Name the first env whose action is illegal; nothing has changed."""
        for b in range(self.num_envs):
            agents = range(self.num_players) if self.simultaneous else [None]
            for agent in agents if live[b] else ():
                action = int(given[b] if agent is None else given[b, agent])
                mask = self._mask[b] if agent is None else self._mask[b, agent]
                if agent is None:
                    agent = int(self.agent_of_seat[b, self._seats[b]])
                if not (0 <= action < self.num_actions and mask[action]):
                    raise IllegalActionError(
                        f"{self.env_name}: env {b}: action {action} is illegal for player_{agent} "
                        f"(seat {self.seat_of_agent[b, agent]}); legal actions: {np.flatnonzero(mask).tolist()}"
                    )

    def random_actions(self) -> np.ndarray:
        """A uniformly random legal action for each decision now due, shaped as `step` takes them (-1 where
        none is legal), drawn natively from a stream of its own: the games' streams are not touched."""
        self._check_dealt("random_actions")
        actions = np.empty(self._shape, np.int64)
        sample_legal(self._mask.reshape(-1, self.num_actions), self._action_stream, actions.reshape(-1))
        return actions

    def heuristic_actions(self, envs: np.ndarray | None = None) -> np.ndarray:
        """The game's heuristic bot (`<game>.heuristic.HeuristicPolicy`), native, for the decisions now due:
        int64 [B] for the agent to act (turn-based) or [B, n] for every agent (simultaneous); -1 where no
        action is legal, or outside `envs` (bool [B]) if given. Speed Snacks' bot remembers what it saw:
        ask it every tick, for every env it plays in, for its memory to follow the game, as the Python
        bot must be."""
        self._check_dealt("heuristic_actions")
        which = self._live_among(envs)
        kernel = self.kernel
        if hasattr(kernel, "heuristic_act"):  # a bot with memory, one per env and agent row
            return kernel.heuristic_act(self._obs, self._mask, which)
        actions = np.full(self._shape, -1, np.int64)
        actions[which] = kernel.heuristic_actions(self._obs[which], self._mask[which]).reshape(
            (-1,) + self._shape[1:])
        return actions

    # --- reference games --------------------------------------------------------------------------------
    def export(self, i: int) -> Game:
        """Env i as a reference `Game`, its rng seeded from env i's stream (the stream is not advanced)."""
        self._check_dealt("export")
        game = self.kernel.export(self._env_index(i))
        game.rng = stream_rng(self.rng[i])
        return game

    def load(self, i: int, game: Game) -> None:
        """Set env i to the position of reference `game` (same game, options and player count). The batch's
        masks and observations are read afresh, so `step`, `random_actions` and `heuristic_actions` take
        env i as it is now; `observe()` returns them. Only after `reset()`, which would deal env i anew."""
        self._check_dealt("load")  # reset() would deal the loaded game away
        i = self._env_index(i)
        config = self.kernel.seat_config(i) if hasattr(self.kernel, "seat_config") else self.config
        if type(game) is not self.game_class or game.num_players != self.num_players or game.config != config:
            raise ConfigError(f"env {i} plays {self.game_class.name} with {self.num_players} players and options "
                              f"{config} (by seat); the game given does not match")
        problems = game.invariant_violations()
        if problems:
            raise ConfigError(f"the game given breaks its invariants: {problems}")
        self.kernel.load(i, game)
        self._ended_outcomes.pop(i, None)  # the game that ended there is gone, and with it its last step
        self.steps[i] = 0
        self.live[i] = not game.game_over
        self._observe()  # the masks the next step is checked against, and the bots' observations

    def outcomes(self, i: int) -> dict:
        """The chance outcomes of env i's last step, as keywords that script them in the reference game
        (also when that step ended the game and a new one was dealt)."""
        self._check_dealt("outcomes")
        i = self._env_index(i)
        return self._ended_outcomes[i] if i in self._ended_outcomes else self.kernel.outcomes(i)

    def observe(self):
        """The current observations, masks (and, turn-based, the agents to act), as `reset` returns them."""
        self._check_dealt("observe")
        return self._observe()

    def agent_seats(self, i: int) -> list[int]:
        """Env i's seat of each agent."""
        self._check_dealt("agent_seats")
        return self.seat_of_agent[self._env_index(i)].tolist()

    def _check_dealt(self, call: str) -> None:
        """Before the first `reset()` no game is dealt: the kernel's arrays are zeros, which are no position."""
        if not self._started:
            raise IllegalActionError(f"call reset() before {call}(): no game is dealt yet")

    def _live_among(self, envs: Any) -> np.ndarray:
        """The live envs among `envs` (bool [B]; None: all), refusing anything else: an array of env
        indices read as bools would pick other envs."""
        if envs is None:
            return self.live
        array = np.asarray(envs)
        if array.dtype != np.bool_ or array.shape != (self.num_envs,):
            raise IllegalActionError(f"envs must be a bool array of shape ({self.num_envs},) (True: that env), "
                                     f"got dtype {array.dtype} and shape {array.shape}")
        return self.live & array

    def _env_index(self, i: int) -> int:
        if not is_int(i) or not 0 <= i < self.num_envs:
            raise ConfigError(f"env index must be an int in 0..{self.num_envs - 1}, got {i!r}")
        return int(i)
