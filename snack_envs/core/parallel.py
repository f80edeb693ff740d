"""The shared machinery for games in which the players act at the same time.

Its rules-layer base is `core.game.SimultaneousGame`. `SimultaneousEnv` is the PettingZoo ParallelEnv on top;
it reuses `SnackEnvBase` (keyword checks, seeding, seat shuffling, spaces,
observations, final rewards, rendering) and adds what a parallel env needs:
joint steps, truncation at the game-length bound, JSON snapshots, and a
"round" reward mode for games played over rounds. `StandardParallelWrapper`
is the illegal-move policy of the public `parallel_env()`, the parallel twin
of `StandardAECWrapper`; `ParallelAECView` is PettingZoo's `parallel_to_aec`
(the AEC view `env()`) with the hot attributes forwarded directly.

Reward modes of a `SimultaneousEnv` (`reward=`):
- "win" (default): at the end, +1 to each winner, -1 to each loser, 0 to all
  if every player shares the win (see `core.env.final_rewards`).
- "score": at the end, the final score over the game's score scale.
- "round": after every scored round, the game's `round_result()` (+1 to the
  round's winner, -1 to the loser, 0 to all on a tie); nothing at the end.
A subclass narrows `reward_modes` to those its game supports.
Rewards are 0 on every other step; truncation gives no end-of-game reward.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import numpy as np
from pettingzoo import ParallelEnv
from pettingzoo.utils.agent_selector import AgentSelector
from pettingzoo.utils.conversions import parallel_to_aec_wrapper
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers import BaseParallelWrapper, OrderEnforcingWrapper

from snack_envs.core.env import DirectForwarding, SnackEnvBase, assert_in_action_space, final_rewards
from snack_envs.core.game import ConfigError, IllegalActionError, SimultaneousGame, finite_float


class SimultaneousEnv(SnackEnvBase, ParallelEnv):
    """A PettingZoo ParallelEnv over a `SimultaneousGame` (see the module docstring).

    The raw env raises IllegalActionError, with the state unchanged, for an
    illegal action, an action for an agent not in the episode, or a missing
    agent; the public `parallel_env()` wraps it in `StandardParallelWrapper`."""

    reward_modes: ClassVar[tuple[str, ...]] = ("win", "score", "round")

    def __init__(self, **kwargs):
        SnackEnvBase.__init__(self, **kwargs)
        self.metadata = dict(self.metadata, name=self.env_name)
        self.agents: list[str] = []
        self.halted = False  # ended without the game ending (truncation, illegal move): masks are zero
        self.illegal_move_by: list[str] = []  # who ended the episode with an illegal action, if anyone did
        self._no_mask = np.zeros(self.num_actions, np.int8)

    def reset(self, seed: int | None = None, options: dict | None = None):
        self._new_game(self._check_reset(seed, options))
        self.agents = list(self.possible_agents)
        self.halted, self.illegal_move_by = False, []
        return {a: self.observe(a) for a in self.agents}, {a: {} for a in self.agents}

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.agent_seats[agent]
        mask = self._no_mask.copy() if self.halted else self.game.action_mask(seat)
        return {"observation": self.encoder.encode(self.game, seat), "action_mask": mask}

    def seat_actions(self, actions: Any) -> dict[int, Any]:
        """`actions` (agent -> action) by seat; IllegalActionError for unknown, finished or missing agents."""
        if self.game is None:
            raise IllegalActionError(f"{self.env_name}: step() before reset(); call reset() first")
        if not self.agents:
            raise IllegalActionError(f"{self.env_name}: the episode is over; call reset()")
        if not isinstance(actions, Mapping):
            raise IllegalActionError(f"{self.env_name}: actions must be a dict agent -> action, got {actions!r}")
        unknown = [a for a in actions if a not in self.agents]
        missing = [a for a in self.agents if a not in actions]
        if unknown or missing:
            raise IllegalActionError(
                f"{self.env_name}: one action for each agent in {self.agents} is needed"
                + (f"; not in the episode: {unknown}" if unknown else "")
                + (f"; missing: {missing}" if missing else "")
            )
        return {self.agent_seats[a]: act for a, act in actions.items()}

    def step(self, actions: dict[str, Any]):
        return self._step_seats(self.seat_actions(actions))

    def _step_seats(self, by_seat: dict[int, Any]):
        game = self.game
        game.apply_joint(by_seat)
        self.num_steps += 1
        agents = self.agents
        rewards = dict.fromkeys(agents, 0.0)
        if self.reward_mode == "round":
            result = game.round_result()
            if result is not None:
                rewards = {a: result[self.agent_seats[a]] for a in agents}
        over = game.game_over
        if over:
            if self.reward_mode != "round":
                rewards = self._final_rewards()
            infos = self._final_infos()
        else:
            infos = {a: {} for a in agents}
            self.halted = self.num_steps >= self.max_steps
        terminations = dict.fromkeys(agents, over)
        truncations = dict.fromkeys(agents, self.halted)
        observations = {a: self.observe(a) for a in agents}
        if over or self.halted:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def end_for_illegal_actions(self, offenders: list[str], illegal_reward: float = -1.0):
        """End the episode because `offenders` chose illegal actions: `illegal_reward` to each, 0 to the rest."""
        agents = self.agents
        self.halted, self.illegal_move_by = True, list(offenders)
        observations = {a: self.observe(a) for a in agents}
        rewards = {a: (illegal_reward if a in offenders else 0.0) for a in agents}
        infos = self._illegal_move_infos(agents)
        self.agents = []
        return observations, rewards, dict.fromkeys(agents, True), dict.fromkeys(agents, False), infos

    def _illegal_move_infos(self, agents: list[str]) -> dict[str, dict]:
        """Each agent's infos at an end for illegal actions: who chose them."""
        return {a: {"illegal_move_by": list(self.illegal_move_by)} for a in agents}

    # --- snapshots (see SnackEnvBase.state_dict) ------------------------------------
    def _episode_state(self) -> dict[str, Any]:
        return {"halted": self.halted, "illegal_move_by": list(self.illegal_move_by)}

    EPISODE_KEYS = ("halted", "illegal_move_by")
    KEYS_ADDED_SINCE_0_1 = ("illegal_move_by",)

    def _check_episode_state(self, data, game, seat_agents, agents):
        halted = data["halted"]
        if type(halted) is not bool:
            raise ConfigError(f"snapshot halted = {halted!r} must be true or false")
        offenders = data.get("illegal_move_by", [])
        self._check_agent_list("illegal_move_by", offenders)
        if offenders and (game.game_over or not halted):
            raise ConfigError(f"snapshot illegal_move_by = {offenders} with game_over = {game.game_over}, "
                              f"halted = {halted}: an illegal move halts a game that is not over")
        ended = game.game_over or halted
        if ended and agents or not ended and set(agents) != set(self.possible_agents):
            raise ConfigError(f"snapshot agents = {agents} with game_over = {game.game_over}, halted = {halted}: "
                              "every agent takes part until the episode ends, none after")
        if not ended:
            self._check_under_way(data["num_steps"])
        return {"halted": halted, "illegal_move_by": list(offenders)}

    def _load_episode_state(self, episode: dict[str, Any]) -> None:
        self.halted, self.illegal_move_by = episode["halted"], episode["illegal_move_by"]


class StandardParallelWrapper(BaseParallelWrapper):
    """The public parallel env's policy for bad actions, like StandardAECWrapper's for turn-based envs.

    An action outside the action space fails an assertion; a missing or
    unknown agent raises IllegalActionError; an illegal action (one the mask
    forbids) ends the episode with -1 for each agent that chose one and 0 for
    the others, with PettingZoo's warning. Stepping before reset() raises
    IllegalActionError; stepping after the end warns and returns empty dicts
    (PettingZoo's convention)."""

    def __init__(self, env: SimultaneousEnv, illegal_reward: float = -1.0):
        super().__init__(env)
        self._raw = env
        self._illegal_reward = finite_float(illegal_reward, "illegal_reward", type(self).__name__)

    agents = property(lambda self: self._raw.agents)
    possible_agents = property(lambda self: self._raw.possible_agents)

    def observation_space(self, agent):
        return self._raw.observation_spaces[agent]

    def action_space(self, agent):
        return self._raw.action_spaces[agent]

    def step(self, actions):
        raw = self._raw
        if raw.game is None:
            raise IllegalActionError(f"{raw.env_name}: step() before reset(); call reset() first")
        if not raw.agents:
            EnvLogger.warn_step_after_terminated_truncated()
            return {}, {}, {}, {}, {}
        by_seat = raw.seat_actions(actions)
        game = raw.game
        offenders = []
        for seat, action in by_seat.items():
            agent = raw.seat_agents[seat]
            assert_in_action_space(raw, agent, action)
            if not game.legal_actions(seat).count(int(action)):
                offenders.append(agent)
        if not offenders:
            return raw._step_seats(by_seat)
        EnvLogger.warn_on_illegal_move()
        return raw.end_for_illegal_actions(offenders, self._illegal_reward)


def wrap_parallel(env: SimultaneousEnv) -> ParallelEnv:
    """The public `parallel_env()` chain: see StandardParallelWrapper."""
    return StandardParallelWrapper(env)


class ParallelAECView(DirectForwarding, OrderEnforcingWrapper):
    """PettingZoo's `parallel_to_aec`: its parallel_to_aec_wrapper inside its OrderEnforcingWrapper.

    The same two layers and behaviour, with the attributes every AEC loop reads
    forwarded directly: PettingZoo's wrappers reach them through two
    `__getattr__` hops each, a large share of a cheap step."""

    def __init__(self, par_env: ParallelEnv):
        super().__init__(parallel_to_aec_wrapper(par_env))
        self._view = self._inner = self.env
        self._raw: SimultaneousEnv = par_env.unwrapped
        # Over the raw env (`raw_env()`), stepping before reset() or after the end, or an illegal action, raises
        # IllegalActionError as the turn-based raw envs do; over the public env (`env()`), PettingZoo's order
        # checks answer, and StandardParallelWrapper ends the episode at the end of a tick with an illegal action.
        self._raw_order_errors = isinstance(par_env, SimultaneousEnv)
        # Over the public env, an action outside the space fails its assertion when its agent steps, as in the
        # turn-based env(): queued, it failed only at the tick's last step, and stayed queued.
        self._space_checked = isinstance(par_env, StandardParallelWrapper)
        self._follow_snapshots()

    def step(self, action) -> None:
        view, raw = self._inner, self._raw
        agent = view.agent_selection if self._has_reset and view.agents else None  # None: not reset, or over
        done = agent is not None and (view.terminations[agent] or view.truncations[agent])
        if done and action is not None:
            # As AECEnv._was_dead_step answers, before parallel_to_aec_wrapper drops the tick's queued actions.
            raise ValueError("when an agent is dead, the only valid action is None")
        if self._raw_order_errors:
            if not self._has_reset:
                raise IllegalActionError(f"{raw.env_name}: step() before reset(); call reset() first")
            if not view.agents:
                raise IllegalActionError(f"{raw.env_name}: step() after the episode ended (every agent is done); "
                                         "call reset() to start a new one")
            if not done:
                # Refused now, with nothing queued: every action of a tick is checked against the same state.
                raw.game.check_action(action, raw.agent_seats[agent])
        elif self._space_checked and agent is not None and not done:
            assert_in_action_space(raw, agent, action)
        super().step(action)

    def _start_from_snapshot(self) -> None:
        """After the parallel env loads a snapshot: the view starts a tick there, its observations, agents
        and flags read from the env (an action queued for the tick that was interrupted is dropped)."""
        raw, view = self._raw, self._view
        agents = list(raw.agents)
        view._observations = {a: raw.observe(a) for a in raw.possible_agents}
        view.agents, view._live_agents = agents, agents[:]
        view._actions = dict.fromkeys(agents)
        view._agent_selector = AgentSelector(agents)
        if agents:
            view.agent_selection = view._agent_selector.reset()
        over, offenders = raw.game.game_over, raw.illegal_move_by
        view.terminations = dict.fromkeys(raw.possible_agents, over or bool(offenders))
        view.truncations = dict.fromkeys(raw.possible_agents, raw.halted and not over and not offenders)
        if over:
            view.infos = raw._final_infos()
        else:
            view.infos = raw._illegal_move_infos(raw.possible_agents) if offenders else {a: {} for a in raw.possible_agents}
        view.rewards = dict.fromkeys(raw.possible_agents, 0.0)
        view._cumulative_rewards = dict.fromkeys(raw.possible_agents, 0.0)
        self._has_reset = self._has_updated = True

    # What OrderEnforcingWrapper refuses before reset.
    _order_checked = frozenset(
        {"rewards", "terminations", "truncations", "infos", "agent_selection", "num_agents", "agents"}
    )

    def observe(self, agent):
        return self._view._observations[agent]

    def __getattr__(self, name: str):
        """Also reach the parallel env's own attributes (`game`, `num_actions`, `state_dict`...)."""
        try:
            return super().__getattr__(name)
        except AttributeError:
            if name.startswith("_") or name in self._order_checked:
                raise
            return getattr(self._view.env, name)


def aec_view(par_env: ParallelEnv) -> ParallelAECView:
    """The AEC view of a parallel env (see ParallelAECView)."""
    return ParallelAECView(par_env)


__all__ = [
    "ParallelAECView", "SimultaneousEnv", "SimultaneousGame", "StandardParallelWrapper",
    "aec_view", "final_rewards", "wrap_parallel",
]
