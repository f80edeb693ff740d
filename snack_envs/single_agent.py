"""A single-agent Gymnasium view of any snack env: one learner against opponent policies.

    from snack_envs.single_agent import SingleAgentEnv
    env = SingleAgentEnv("snack_rabbits_v0", opponents=["heuristic"], num_players=2)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.action_masks().nonzero()[0][0])

- The learner takes a random seat each episode (drawn from the seeded rng);
  every other seat is played by an opponent policy drawn per episode from
  `opponents` (policies, or specs "random" / "heuristic" / "lookahead" / "search" / a checkpoint path),
  or by `opponent_sampler(rng) -> Policy` when given (self-play pools).
- Opponents move inside `step()` (in a turn-based game until the learner is
  to act again or the game ends; in a simultaneous game in the same tick), so
  the reward returned is the learner's own, also when an opponent's move ends
  the game.
- Observations are the learner's flat vector; `action_masks()` (a method of
  this class, so sb3-contrib's MaskablePPO finds it through DummyVecEnv and
  SubprocVecEnv) gives the legal actions, and so does `info["action_mask"]`
  after every reset and step (booleans, all False once the episode has
  ended), for Gymnasium's vector envs, which pass infos but no methods.
- An action is an integer: a Python or numpy int, or a 0-d integer array.
  Anything else (a float, a string, a bool) raises IllegalActionError and
  changes nothing; it is never cast.
- An illegal action (SB3's and Gymnasium's env checkers sample unmasked
  actions) ends the episode with `illegal_reward` (default -1) and
  `info["illegal_action"] = True`, the convention of PettingZoo's
  TerminateIllegalWrapper; `illegal_action="raise"` raises instead.
- `reset(seed=...)` takes a non-negative int or None; `reset(options=...)`
  takes no option (an unknown one is a ConfigError).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import gymnasium
import numpy as np

from snack_envs import specs
from snack_envs.agents import Policy, make_policy
from snack_envs.core.game import ConfigError, IllegalActionError, action_int, check_reset_options, check_seed, finite_float
from snack_envs.core.rollout import is_policy


class SingleAgentEnv(gymnasium.Env):
    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 2}  # rgb_array: Gymnasium's RecordVideo works

    def __init__(
        self,
        env_name: str,
        opponents: Sequence[Policy | str] = ("random",),
        opponent_sampler: Callable[[np.random.Generator], Policy] | None = None,
        illegal_action: str = "penalize",
        illegal_reward: float = -1.0,
        render_mode: str | None = None,
        **env_kwargs: Any,
    ):
        spec = specs.get(env_name)
        if isinstance(opponents, str) or hasattr(opponents, "act"):
            opponents = [opponents]  # one spec ("heuristic") or one policy: a pool of one
        elif not isinstance(opponents, Sequence):
            raise ConfigError(f"opponents must be a policy spec, a policy, or a list of them, got {opponents!r}")
        self.env_name = env_name
        self.parallel = spec.simultaneous
        self.raw = spec.raw_env(render_mode=render_mode, **env_kwargs)
        if illegal_action not in ("penalize", "raise"):
            raise ConfigError(f"illegal_action={illegal_action!r} is not one of ['penalize', 'raise']")
        self.illegal_action = illegal_action
        self.illegal_reward = finite_float(illegal_reward, "illegal_reward", env_name)
        self.render_mode = render_mode
        self.num_players = self.raw.num_players
        options = {k: v for k, v in env_kwargs.items() if k in self.raw.game_class.options}
        strangers = [o for o in opponents if not isinstance(o, str) and not hasattr(o, "act")]
        if strangers:
            raise ConfigError(f"opponents must be policy specs or policies (with act), not {strangers[0]!r}")
        self.opponent_pool = [
            make_policy(o, env_name, self.num_players, **options) if isinstance(o, str) else o for o in opponents
        ]
        if not self.opponent_pool and opponent_sampler is None and self.num_players > 1:  # solo: none to seat
            raise ConfigError("give at least one opponent policy or an opponent_sampler")
        if opponent_sampler is not None and not callable(opponent_sampler):
            raise ConfigError(f"opponent_sampler must be a function of a Generator, got {opponent_sampler!r}")
        self.opponent_sampler = opponent_sampler
        agent = self.raw.possible_agents[0]
        self.observation_space = self.raw.observation_space(agent)["observation"]
        self.action_space = self.raw.action_space(agent)
        self._rng = np.random.default_rng()
        self.learner: str = agent
        self.opponents: dict[str, Policy] = {}
        self._done = True

    # --- episode -------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        seed = check_seed(seed, self.env_name)
        check_reset_options(options, self.env_name)
        super().reset(seed=seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        raw = self.raw
        game_seed = int(self._rng.integers(2**62))
        if self.parallel:
            self._observations, _ = raw.reset(seed=game_seed)
        else:
            raw.reset(seed=game_seed)
        self.learner = raw.possible_agents[int(self._rng.integers(self.num_players))]
        self.opponents = {}
        for agent in raw.possible_agents:
            if agent != self.learner:
                policy = self._draw_opponent()
                policy.reset(int(self._rng.integers(2**62)))
                self.opponents[agent] = policy
        self._done = False
        self._parallel_end = (False, False, {})
        if not self.parallel:  # a reward to the learner meanwhile is none of its doing: reset returns none
            self._play_opponents()
        if self._done:  # no game ends before every seat has moved, unless max_steps cuts it
            raise ConfigError(f"{self.env_name}: max_steps={raw.max_steps} cut the game before the learner's first "
                              f"move; give a max_steps of at least a round of moves")
        info = {"learner": self.learner, "opponents": {a: p.name for a, p in self.opponents.items()}}
        return self._learner_obs(), dict(info, action_mask=self.action_masks())

    def _draw_opponent(self) -> Policy:
        if self.opponent_sampler is not None:
            policy = self.opponent_sampler(self._rng)
            if not is_policy(policy):
                raise ConfigError(f"opponent_sampler returned {policy!r}, which is no policy (reset, and act or "
                                  "act_game)")
            return policy
        return self.opponent_pool[int(self._rng.integers(len(self.opponent_pool)))]

    def step(self, action):
        if self._done:
            raise RuntimeError("step() before reset() or after the episode ended; call reset()")
        action = action_int(action, self.env_name)
        if not (0 <= action < self.action_space.n and self.action_masks()[action]):
            if self.illegal_action == "raise":
                raise IllegalActionError(f"{self.env_name}: action {action} is not legal for the learner")
            self._done = True
            info = {"illegal_action": True, "action_mask": self.action_masks()}
            return self._learner_obs(), self.illegal_reward, True, False, info
        if self.parallel:
            reward = self._step_parallel(action)
        else:
            self.raw.step(action)
            reward = self._play_opponents()
        terminated, truncated = self._episode_end()
        info = dict(self._learner_info()) if self._done else {}
        info["action_mask"] = self.action_masks()
        return self._learner_obs(), reward, terminated, truncated, info

    def _play_opponents(self) -> float:
        """Let opponents move until the learner is to act or the game ends; the learner's reward meanwhile."""
        raw = self.raw
        while not (raw.terminations[self.learner] or raw.truncations[self.learner]):
            agent = raw.agent_selection
            if agent == self.learner:
                break
            raw.step(self._opponent_action(agent))
        self._episode_end()
        return float(raw._cumulative_rewards[self.learner])

    def _opponent_action(self, agent: str, obs: dict | None = None) -> int:
        """The opponent's move: from its observation, or from the game for a bot that plays from the rules
        engine (`uses_game`: lookahead, search), as `core.rollout.play` asks it."""
        policy, raw = self.opponents[agent], self.raw
        if getattr(policy, "uses_game", False):
            return policy.act_game(raw.game, raw.agent_seats[agent])
        obs = raw.observe(agent) if obs is None else obs
        return policy.act(obs["observation"], obs["action_mask"])

    def _step_parallel(self, action: int) -> float:
        actions = {self.learner: action}
        for agent in self.opponents:
            actions[agent] = self._opponent_action(agent, self._observations[agent])
        self._observations, rewards, terms, truncs, infos = self.raw.step(actions)
        self._parallel_end = (terms.get(self.learner, True), truncs.get(self.learner, False), infos.get(self.learner, {}))
        return float(rewards.get(self.learner, 0.0))

    def _episode_end(self) -> tuple[bool, bool]:
        if self.parallel:
            terminated, truncated, _ = self._parallel_end
        else:
            terminated = bool(self.raw.terminations.get(self.learner, False))
            truncated = bool(self.raw.truncations.get(self.learner, False))
        self._done = terminated or truncated
        return terminated, truncated

    def _learner_info(self) -> dict:
        if self.parallel:
            return self._parallel_end[2]
        return self.raw.infos.get(self.learner, {})

    def _learner_obs(self) -> np.ndarray:
        if self.parallel:
            obs = self._observations.get(self.learner)
            # a copy: after an illegal action the same stored observation is returned again
            return obs["observation"].copy() if obs is not None else np.zeros(self.observation_space.shape, self.observation_space.dtype)
        return self.raw.observe(self.learner)["observation"]

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner now, as booleans (all False once the episode has ended)."""
        if self._done:
            return np.zeros(self.action_space.n, dtype=bool)
        if self.parallel:
            return self._observations[self.learner]["action_mask"].astype(bool)
        return self.raw.observe(self.learner)["action_mask"].astype(bool)

    def render(self):
        return self.raw.render()

    def close(self):
        self.raw.close()
