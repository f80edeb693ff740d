"""The RL bookkeeping shared by every snack env, written once.

`SnackEnvBase` holds what turn-based and simultaneous envs share: keyword
checking, the single seeded `numpy.random.Generator`, seat shuffling, spaces
(built once), observations from a seat's point of view, final rewards,
rendering and JSON snapshots. `TurnBasedEnv` adds PettingZoo's AEC protocol on
top (turns, dead steps, truncation at the game-length bound, the raw env's
illegal-action error). A game plugs in with a rules class (`core.game.Game`)
and an encoder (an object with `layout` and `encode(game, seat)`), nothing more.

Reward modes (`reward=`):
- "win" (default): at the end, +1 to each winner, -1 to each loser; 0 to all
  if every player shares the win.
- "score": at the end, the final score divided by the game's score scale
  (the largest absolute score it can produce), so it lies in [-1, 1].
- "margin": at the end, the final score less the best other player's (solo:
  the score itself), divided by the width of the game's score range, so it
  lies in [-1, 1]. It ranks outcomes as "win" does where the margin decides,
  with a far smaller variance in games of chance, which speeds up learning.
Rewards are 0 on every other step, and 0 for all on truncation.
"""

from __future__ import annotations

import warnings
import weakref
from collections.abc import Callable, Mapping
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from snack_envs.core.game import (
    ConfigError, Game, IllegalActionError, check_bool, check_count, check_seed, finite_float, is_bool,
)

REWARD_MODES = ("win", "score", "margin")
MAX_STEPS_LIMIT = 2**63 - 1  # the most max_steps may be: the batched engine (core/batched.py) counts in int64


def final_rewards(game: Game, mode: str) -> list[float]:
    """Terminal rewards by seat for a finished game (see the module docstring)."""
    if mode == "score":
        scale = max(abs(game.score_range[0]), abs(game.score_range[1]))
        return [float(s) / scale for s in game.scores()]
    if mode == "margin":
        low, high = game.score_range
        scores = [float(s) for s in game.scores()]
        if len(scores) == 1:
            return [scores[0] / (high - low)]
        return [(s - max(scores[:p] + scores[p + 1 :])) / (high - low) for p, s in enumerate(scores)]
    winners = set(game.winners())
    if len(winners) == game.num_players:
        return [0.0] * game.num_players
    return [1.0 if p in winners else -1.0 for p in range(game.num_players)]


class SnackEnvBase:
    """Shared machinery; see the module docstring. Subclasses set the class attributes."""

    game_class: ClassVar[type[Game]]
    encoder_class: ClassVar[type]
    env_name: ClassVar[str]
    reward_modes: ClassVar[tuple[str, ...]] = REWARD_MODES
    # Not parallelizable: PettingZoo's aec_to_parallel steps every agent each cycle, where one agent moves at a
    # time; it refuses, and `parallel_env()` is the turn-based games' parallel API. (Speed Snacks' AEC view,
    # PettingZoo's parallel_to_aec, sets the key to True itself.)
    metadata: dict[str, Any] = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 2,
                                "is_parallelizable": False}

    def __init__(
        self,
        num_players: int | None = None,
        reward: str = "win",
        render_mode: str | None = None,
        max_steps: int | None = None,
        shuffle_seats: bool = True,
        **options,
    ):
        game_cls = self.game_class
        unknown = sorted(set(options) - set(game_cls.options))
        if unknown:
            known = sorted(["num_players", "reward", "render_mode", "max_steps", "shuffle_seats", *game_cls.options])
            raise ConfigError(f"unknown keyword(s) {unknown} for {self.env_name}; known keywords: {known}")
        self.num_players = game_cls.check_num_players(game_cls.default_players if num_players is None else num_players)
        if reward not in self.reward_modes:
            raise ConfigError(f"reward={reward!r} is not one of {list(self.reward_modes)}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(f"render_mode={render_mode!r} is not one of {self.metadata['render_modes']}")
        if max_steps is None:
            max_steps = game_cls.default_max_steps(self.num_players)
        check_count(max_steps, "max_steps")
        if max_steps > MAX_STEPS_LIMIT:  # the batched engine counts steps in int64
            raise ConfigError(f"max_steps must be at most {MAX_STEPS_LIMIT} (2**63 - 1), got {max_steps!r}")
        check_bool(shuffle_seats, "shuffle_seats")
        # Probe the options once, so a bad value fails here and not at reset.
        probe = game_cls(self.num_players, np.random.default_rng(0), **options)
        self.game_options = dict(options)
        self.reward_mode = reward
        self.render_mode = render_mode
        self.max_steps = int(max_steps)
        self.shuffle_seats = bool(shuffle_seats)
        self.num_actions = probe.num_actions
        self.encoder = self.encoder_class(self.num_players, probe.config)
        layout = self.encoder.layout
        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(layout.low, layout.high, (layout.size,), layout.dtype),
                "action_mask": spaces.Box(0, 1, (self.num_actions,), np.int8),
            }
        )
        act_space = spaces.Discrete(self.num_actions)
        n = self.num_players
        self.state_space = spaces.Box(np.tile(layout.low, n), np.tile(layout.high, n), (n * layout.size,), layout.dtype)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._rng = np.random.default_rng()
        self.game: Game | None = None
        self.seat_agents: list[str] = list(self.possible_agents)
        self.agent_seats: dict[str, int] = {a: i for i, a in enumerate(self.possible_agents)}
        self._load_listeners: list[weakref.WeakMethod] = []  # wrappers to bring up to date after a snapshot load

    def on_snapshot_load(self, listener: Callable[[], None]) -> None:
        """Call the bound method `listener` after each `load_state_dict` (held weakly)."""
        self._load_listeners.append(weakref.WeakMethod(listener))

    def __getstate__(self) -> dict:
        # A copy has no wrappers yet: each copied wrapper registers again (its __setstate__).
        return dict(self.__dict__, _load_listeners=[])

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # --- seeding and setup ---------------------------------------------------
    def _check_reset(self, seed: Any, options: Any) -> int | None:
        """A reset's arguments, checked before anything changes: the seed a non-negative int or None
        (ConfigError otherwise), the options None or a dict. These envs take no reset option: PettingZoo's
        API test resets with an arbitrary one and expects it accepted, so an unknown option is ignored with
        a warning naming it instead of an error (the Gymnasium views refuse one)."""
        seed = check_seed(seed, self.env_name)
        if options is not None and not isinstance(options, Mapping):
            raise ConfigError(f"{self.env_name}: reset options must be a dict or None, got {options!r}")
        if options:
            warnings.warn(f"{self.env_name}: reset option(s) {sorted(options, key=str)} ignored: this env takes none",
                          UserWarning, stacklevel=3)
        return seed

    def _new_game(self, seed: int | None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        order = self._rng.permutation(self.num_players) if self.shuffle_seats else range(self.num_players)
        self.seat_agents = [self.possible_agents[i] for i in order]
        self.agent_seats = {a: s for s, a in enumerate(self.seat_agents)}
        self.game = self.game_class(self.num_players, self._rng, **self._seat_options())
        self.num_steps = 0

    def _seat_options(self) -> dict[str, Any]:
        """The game options for the seats as just shuffled (a hook for options given per agent)."""
        return self.game_options

    def agents_alike(self) -> bool:
        """Whether every agent plays the same game, as here where no option is given per agent: then a
        learner may always be the same agent (the seats are shuffled), else it must play each of them."""
        return True

    # --- observations ---------------------------------------------------------
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_seats[agent]
        return {"observation": self.encoder.encode(self.game, seat), "action_mask": self.game.action_mask(seat)}

    def action_mask(self, agent: str) -> np.ndarray:
        return self.game.action_mask(self.agent_seats[agent])

    def state(self) -> np.ndarray:
        """PettingZoo's global view for centralised training (a MAPPO or QMIX critic's input; `state_space`):
        every agent's observation vector, in `possible_agents` order. So it holds what any player knows and
        nothing that none does (the draw pile's order stays hidden); in a finished game, the final position."""
        if self.game is None:
            raise IllegalActionError(f"{self.env_name}: state() before reset(); call reset() first")
        return np.concatenate([self.encoder.encode(self.game, self.agent_seats[a]) for a in self.possible_agents])

    def action_to_str(self, action: int) -> str:
        return self.game.action_to_str(int(action))

    def _final_rewards(self) -> dict[str, float]:
        by_seat = final_rewards(self.game, self.reward_mode)
        return {self.seat_agents[s]: r for s, r in enumerate(by_seat)}

    def _final_infos(self) -> dict[str, dict]:
        scores = self.game.scores()
        winners = self.game.winners()
        return {
            self.seat_agents[s]: {"score": scores[s], "winner": s in winners, "seat": s}
            for s in range(self.num_players)
        }

    # --- snapshots ---------------------------------------------------------------
    def state_dict(self) -> dict[str, Any]:
        """Everything needed to resume this episode exactly, as JSON-native data."""
        if self.game is None:
            raise IllegalActionError(f"{self.env_name}: state_dict() before reset(); call reset() first")
        return {
            "env": self.env_name,
            "game": self.game.to_dict(),
            "seat_agents": list(self.seat_agents),
            "num_steps": self.num_steps,
            "agents": list(self.agents),
            **self._episode_state(),
        }

    # The keys of every snapshot, and those `_episode_state` adds.
    SNAPSHOT_KEYS: ClassVar[tuple[str, ...]] = ("env", "game", "seat_agents", "num_steps", "agents")
    EPISODE_KEYS: ClassVar[tuple[str, ...]] = ()
    # Keys a snapshot written by snack-envs 0.1.0 lacks; `_check_episode_state` gives each its default.
    KEYS_ADDED_SINCE_0_1: ClassVar[tuple[str, ...]] = ()

    def load_state_dict(self, data: dict[str, Any]) -> None:
        """Resume the episode a `state_dict` describes. Everything is checked before anything changes: a
        snapshot of another env or size, a missing or unknown key, or a value the env or the rules cannot
        reach (see `Game.from_dict`) is a ConfigError naming it, and the env is left as it was."""
        if not isinstance(data, Mapping):
            raise ConfigError(f"a snapshot is a dict as state_dict() gives it, not {type(data).__name__}")
        if data.get("env") != self.env_name:
            raise ConfigError(f"snapshot is for {data.get('env')!r}, not {self.env_name!r}")
        keys = self.SNAPSHOT_KEYS + self.EPISODE_KEYS
        missing = [k for k in keys if k not in data and k not in self.KEYS_ADDED_SINCE_0_1]
        unknown = sorted(set(data) - set(keys), key=str)
        if missing or unknown:
            problem = f"lacks the key(s) {missing}" if missing else f"has unknown key(s) {unknown}"
            raise ConfigError(f"snapshot {problem}")
        game = self.game_class.from_dict(data["game"])
        if game.num_players != self.num_players:
            raise ConfigError(f"snapshot has {game.num_players} players, this env {self.num_players}")
        seat_agents, agents = data["seat_agents"], data["agents"]
        if type(seat_agents) is not list or sorted(seat_agents, key=str) != sorted(self.possible_agents):
            raise ConfigError(f"snapshot seat_agents = {seat_agents!r} must list each of {self.possible_agents} once")
        self._check_agent_list("agents", agents)
        num_steps = data["num_steps"]
        if type(num_steps) is not int or num_steps < 0:
            raise ConfigError(f"snapshot num_steps = {num_steps!r} must be a non-negative int")
        episode = self._check_episode_state(data, game, list(seat_agents), list(agents))
        # Every check passed: now the env changes.
        self.game, self._rng = game, game.rng
        self.seat_agents = list(seat_agents)
        self.agent_seats = {a: s for s, a in enumerate(self.seat_agents)}
        self.num_steps = num_steps
        self.agents = list(agents)
        self._load_episode_state(episode)
        for ref in self._load_listeners:
            listener = ref()
            if listener is not None:
                listener()

    def _check_agent_list(self, key: str, value: Any) -> None:
        """A snapshot's `key` is a list of distinct agents of this env, else a ConfigError naming it (membership
        first: an unhashable entry is refused, not a TypeError)."""
        if (type(value) is not list or not all(a in self.possible_agents for a in value)
                or len(set(value)) != len(value)):
            raise ConfigError(f"snapshot {key} = {value!r} must be a list of distinct agents of {self.possible_agents}")

    def _check_under_way(self, num_steps: int) -> None:
        """A snapshot of an episode under way is short of max_steps, where this env would have truncated it."""
        if num_steps >= self.max_steps:
            raise ConfigError(f"snapshot num_steps = {num_steps} in an episode under way, but this env "
                              f"truncates every episode at max_steps = {self.max_steps}")

    def _check_episode_state(self, data: dict[str, Any], game: Game, seat_agents: list[str],
                             agents: list[str]) -> dict[str, Any]:
        """The API-specific rest of a snapshot (`EPISODE_KEYS`), checked against the game: a ConfigError
        naming what is wrong, else the values `_load_episode_state` sets (copies, so the snapshot can change)."""
        raise NotImplementedError

    def _episode_state(self) -> dict[str, Any]:
        """The API-specific rest of a snapshot (turns and rewards, or the halted flag)."""
        raise NotImplementedError

    def _load_episode_state(self, episode: dict[str, Any]) -> None:
        """Set the values `_check_episode_state` returned."""
        raise NotImplementedError

    # --- rendering --------------------------------------------------------------
    def render(self, viewer: str | None = None):
        """Draw the table: "ansi" returns text, "rgb_array" an HxWx3 uint8 picture (Pillow, the `render`
        extra; see `snack_envs.core.picture`), "human" shows the picture in a window where a display and
        Tk exist, else prints the text. `viewer` (an agent name) draws only what that seat may see;
        None is the spectator's view, which shows everything."""
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi', 'rgb_array' or 'human'.")
            return None
        check_viewer(viewer, self.possible_agents)
        if self.game is None:
            return None if self.render_mode == "rgb_array" else "(call reset() first)"
        seat = None if viewer is None else self.agent_seats[viewer]
        if self.render_mode == "rgb_array":
            from snack_envs.core.picture import draw_game, to_array

            return to_array(draw_game(self.game, seat, self.seat_agents))
        if self.render_mode == "human":
            try:
                from snack_envs.core import picture

                if picture.window_available() and picture.show_in_window(
                    picture.draw_game(self.game, seat, self.seat_agents), self.env_name
                ):
                    return None
            except ImportError:  # no Pillow: text it is
                pass
            print(self.game.render_text(viewer=seat, names=self.seat_agents))
            return None
        return self.game.render_text(viewer=seat, names=self.seat_agents)

    def close(self) -> None:
        if self.render_mode == "human":
            from snack_envs.core.picture import close_window

            close_window()


class TurnBasedEnv(SnackEnvBase, AECEnv):
    """A PettingZoo AEC env over a turn-based `Game` (see the module docstring)."""

    def __init__(self, **kwargs):
        SnackEnvBase.__init__(self, **kwargs)
        AECEnv.__init__(self)
        self.metadata = dict(self.metadata, name=self.env_name)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        self._new_game(self._check_reset(seed, options))
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self._finish_if_over()
        if not self.game.game_over:
            self.agent_selection = self.seat_agents[self.game.current_player]

    def step(self, action) -> None:
        if self.game is None:
            raise IllegalActionError(f"{self.env_name}: step() before reset(); call reset() first")
        if not self.agents:
            raise IllegalActionError(f"{self.env_name}: step() after the episode ended (every agent is done); "
                                     "call reset() to start a new one")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        game = self.game
        seat = self.agent_seats[agent]
        game.apply(action, seat)
        self.num_steps += 1
        self._cumulative_rewards[agent] = 0.0
        if not self._finish_if_over():
            self.agent_selection = self.seat_agents[game.current_player]
        if self.render_mode == "human":
            self.render()

    def _finish_if_over(self) -> bool:
        """Set terminal rewards, or truncate at the bound; True once the episode has ended."""
        if self.game.game_over:
            self.rewards = self._final_rewards()
            self.infos = self._final_infos()
            self.terminations = {a: True for a in self.agents}
        elif self.num_steps >= self.max_steps:
            self.truncations = {a: True for a in self.agents}
        else:
            return False
        self._accumulate_rewards()
        self.agent_selection = self.agents[0]
        self._deads_step_first()
        return True

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        observation = self.encoder.encode(self.game, self.agent_seats[agent])
        return {"observation": observation, "action_mask": self.action_mask(agent)}

    def action_mask(self, agent: str) -> np.ndarray:
        """The agent's legal actions: none unless it is to act in an episode it is still in."""
        seat = self.agent_seats[agent]
        game = self.game
        if game.game_over or agent not in self.agents or self.truncations[agent] or seat != game.current_player:
            return np.zeros(self.num_actions, np.int8)
        return game.action_mask(seat)

    # --- snapshots (see SnackEnvBase.state_dict) ------------------------------------
    def _episode_state(self) -> dict[str, Any]:
        return {
            "agent_selection": self.agent_selection,
            "rewards": dict(self.rewards),
            "cumulative_rewards": dict(self._cumulative_rewards),
            "terminations": dict(self.terminations),
            "truncations": dict(self.truncations),
            "infos": {a: dict(i) for a, i in self.infos.items()},
        }

    EPISODE_KEYS = ("agent_selection", "rewards", "cumulative_rewards", "terminations", "truncations", "infos")

    def _check_episode_state(self, data, game, seat_agents, agents):
        present = set(agents)

        def by_agent(key: str, ok, what: str) -> dict:
            value = data[key]
            if type(value) is not dict or set(value) != present or not all(ok(v) for v in value.values()):
                raise ConfigError(f"snapshot {key} = {value!r} must map each agent of {agents} to {what}")
            return dict(value)

        def is_number(v) -> bool:
            return isinstance(v, (int, float)) and not isinstance(v, bool) and np.isfinite(v)

        rewards = by_agent("rewards", is_number, "a finite number")
        cumulative = by_agent("cumulative_rewards", is_number, "a finite number")
        terminations = by_agent("terminations", lambda v: type(v) is bool, "true or false")
        truncations = by_agent("truncations", lambda v: type(v) is bool, "true or false")
        infos = {a: dict(i) for a, i in by_agent("infos", lambda v: type(v) is dict, "a dict").items()}
        selected = data["agent_selection"]
        if selected not in self.possible_agents or agents and selected not in present:
            raise ConfigError(
                f"snapshot agent_selection = {selected!r} must be one of the agents {agents or self.possible_agents}"
            )
        ended = any(terminations.values()) or any(truncations.values())
        if game.game_over and agents and not all(terminations.values()):
            raise ConfigError(
                f"snapshot terminations = {terminations} while the game is over: every agent is terminated"
            )
        if not game.game_over and not agents and data["num_steps"] < self.max_steps:
            raise ConfigError(f"snapshot agents = [] in a game under way at step {data['num_steps']} of "
                              f"{self.max_steps}: an episode every agent has left ended, by the rules or at max_steps")
        if not game.game_over and ended and agents and (
                not all(truncations.values()) or len(set(terminations.values())) > 1
                or not any(terminations.values()) and data["num_steps"] < self.max_steps):
            raise ConfigError(
                f"snapshot terminations = {terminations}, truncations = {truncations} at step {data['num_steps']} "
                f"of {self.max_steps} in a game under way: it ends for every agent at once, all truncated at "
                "max_steps, or all terminated and truncated after an illegal move")
        if not game.game_over and not ended and agents:
            self._check_under_way(data["num_steps"])
            if present != set(self.possible_agents):
                raise ConfigError(f"snapshot agents = {agents} in a game under way: every agent takes part")
            to_act = seat_agents[game.current_player]
            if selected != to_act:
                raise ConfigError(f"snapshot agent_selection = {selected!r}, but seat {game.current_player} "
                                  f"({to_act!r}) is to act")
        return {"agent_selection": selected, "rewards": rewards, "_cumulative_rewards": cumulative,
                "terminations": terminations, "truncations": truncations, "infos": infos}

    def _load_episode_state(self, episode: dict[str, Any]) -> None:
        for name, value in episode.items():
            setattr(self, name, value)
        self._skip_agent_selection = None


def assert_in_action_space(raw: "SnackEnvBase", agent: str, action: Any) -> None:
    """The public envs' out-of-bounds check, PettingZoo's: an AssertionError for an action outside `agent`'s
    action space, with gymnasium's `Discrete.contains` spelt out for ints, which it also makes quicker: an int
    of any size is compared, not converted (10**20 raised OverflowError). A bool, an int to `Discrete` but no
    action to the game, is the game's IllegalActionError, as in `raw_env()`, whether or not 0 or 1 is legal."""
    if type(action) is int or isinstance(action, np.integer):  # a bool's type is bool, not int
        in_space = 0 <= action < raw.num_actions
    elif is_bool(action):
        raw.game.check_action(action, raw.agent_seats[agent])  # raises: an action must be an int
        in_space = False
    else:
        in_space = action is not None and raw.action_spaces[agent].contains(action)
    assert in_space, "action is not in action space"


def check_viewer(viewer: str | None, agents: list[str]) -> None:
    """A viewer to draw the table for is one of `agents`, or None (the spectator); else a ConfigError."""
    if viewer is not None and viewer not in agents:
        raise ConfigError(f"viewer={viewer!r} is not one of {agents} (None: the spectator's view)")


class DirectForwarding:
    """For wrappers over an AEC env (set as `self._inner`): the attributes every loop reads,
    forwarded in one hop and refused before reset as OrderEnforcingWrapper does. PettingZoo's
    wrappers reach them through a `__getattr__` per layer, a large share of a cheap step.

    Also: a snapshot loaded into the raw env beneath (`self._raw`) starts play in the wrapper, through
    its `_start_from_snapshot`, once `_follow_snapshots()` is called, and in each copy of it."""

    _inner: AECEnv
    _raw: SnackEnvBase

    def _follow_snapshots(self) -> None:
        self._raw.on_snapshot_load(self._start_from_snapshot)

    def __setstate__(self, state: dict) -> None:  # copy.deepcopy, pickle: follow the copied env's snapshots
        self.__dict__.update(state)
        self._follow_snapshots()

    def _start_from_snapshot(self) -> None:
        raise NotImplementedError

    def _ready(self, name: str):
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return self._inner

    agents = property(lambda self: self._ready("agents").agents)
    agent_selection = property(lambda self: self._ready("agent_selection").agent_selection)
    rewards = property(lambda self: self._ready("rewards").rewards)
    terminations = property(lambda self: self._ready("terminations").terminations)
    truncations = property(lambda self: self._ready("truncations").truncations)
    infos = property(lambda self: self._ready("infos").infos)
    _cumulative_rewards = property(lambda self: self._inner._cumulative_rewards)
    possible_agents = property(lambda self: self._inner.possible_agents)


class StandardAECWrapper(DirectForwarding, wrappers.OrderEnforcingWrapper):
    """PettingZoo's standard wrapper chain for classic games, fused into one layer.

    Same behaviour as TerminateIllegalWrapper(illegal_reward=-1) inside
    AssertOutOfBoundsWrapper inside OrderEnforcingWrapper, step for step
    (tests/test_api.py plays both side by side): calls out of order are
    refused, an out-of-range action fails an assertion, and an illegal move
    ends the episode with PettingZoo's warning, -1 for the mover and 0 for
    everyone else, every agent both terminated and truncated (as PettingZoo
    sets them), infos unchanged. A snapshot loaded into the env inside
    (`env.unwrapped.load_state_dict`) starts play as reset() does. One layer
    instead of three, with the hot attributes forwarded directly, because the
    three-layer chain spends most of a step forwarding attribute lookups
    through `__getattr__`.
    """

    def __init__(self, env: TurnBasedEnv, illegal_reward: float = -1.0):
        super().__init__(env)
        self._raw = self._inner = env
        self._illegal_reward = finite_float(illegal_reward, "illegal_reward", type(self).__name__)
        self._follow_snapshots()

    def _start_from_snapshot(self) -> None:
        """A snapshot loaded into the env starts play from it, as reset() would (as Speed Snacks' view does)."""
        self._has_reset = self._has_updated = True

    def observation_space(self, agent):
        return self._raw.observation_spaces[agent]

    def action_space(self, agent):
        return self._raw.action_spaces[agent]

    def step(self, action) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        raw = self._raw
        if not raw.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._has_updated = True
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            raw.step(action)
            return
        assert_in_action_space(raw, agent, action)
        if raw.game.legal_actions(raw.agent_seats[agent]).count(int(action)):
            raw.step(action)
            return
        EnvLogger.warn_on_illegal_move()
        raw._cumulative_rewards[agent] = 0.0
        raw.terminations = {a: True for a in raw.agents}
        raw.truncations = {a: True for a in raw.agents}
        raw.rewards = {a: 0.0 for a in raw.agents}
        raw.rewards[agent] = self._illegal_reward
        raw._accumulate_rewards()
        raw._deads_step_first()


def wrap_aec(env: TurnBasedEnv) -> AECEnv:
    """The public `env()` chain: see StandardAECWrapper."""
    return StandardAECWrapper(env)


__all__ = ["StandardAECWrapper", "TurnBasedEnv", "SnackEnvBase", "assert_in_action_space", "check_viewer", "wrap_aec", "final_rewards", "IllegalActionError",
           "ConfigError"]
