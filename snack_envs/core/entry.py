"""Builds a game's public entry points the PettingZoo way.

Turn-based games: `env` (AEC, standard wrapper chain), `raw_env` (AEC, raises
on illegal actions), `parallel_env` (PettingZoo's turn-based parallel view).
Simultaneous games: `parallel_env` (primary), `raw_parallel_env`, and the AEC
views `env` / `raw_env` through PettingZoo's `parallel_to_aec` layers
(`core.parallel.ParallelAECView`).
"""

from __future__ import annotations

from collections.abc import Mapping

from pettingzoo.utils.conversions import turn_based_aec_to_parallel_wrapper

from snack_envs.core.env import TurnBasedEnv, wrap_aec
from snack_envs.core.game import IllegalActionError
from snack_envs.core.parallel import SimultaneousEnv, aec_view, wrap_parallel


class TurnBasedParallelView(turn_based_aec_to_parallel_wrapper):
    """PettingZoo's turn_based_aec_to_parallel, with the joint action checked as the simultaneous games'
    parallel envs check it: a dict that names no agent outside the episode and holds the action of the agent
    to act (the others' actions are ignored), else IllegalActionError, with nothing changed."""

    def step(self, actions):
        if self.agents:
            name = self.aec_env.unwrapped.env_name
            if not isinstance(actions, Mapping):
                raise IllegalActionError(f"{name}: actions must be a dict agent -> action, got {actions!r}")
            unknown = [a for a in actions if a not in self.agents]
            if unknown:
                raise IllegalActionError(f"{name}: not in the episode: {unknown} (agents: {self.agents})")
            acting = self.aec_env.agent_selection
            if acting not in actions:
                raise IllegalActionError(f"{name}: no action for {acting}, the agent to act")
        return super().step(actions)


def turn_based_entry_points(raw_cls: type[TurnBasedEnv]):
    """Return (env, raw_env, parallel_env) for a turn-based env class."""

    def env(**kwargs):
        """The env with PettingZoo's standard wrapper chain (illegal move: -1 to the mover, game over)."""
        return wrap_aec(raw_cls(**kwargs))

    def raw_env(**kwargs):
        """The env without wrappers: an illegal action raises IllegalActionError and changes nothing."""
        return raw_cls(**kwargs)

    def parallel_env(**kwargs):
        """A parallel view (PettingZoo's turn_based_aec_to_parallel over `env()`): only the agent to act moves."""
        return TurnBasedParallelView(env(**kwargs))

    return env, raw_env, parallel_env


def parallel_entry_points(raw_cls: type[SimultaneousEnv]):
    """Return (parallel_env, raw_parallel_env, env, raw_env) for a simultaneous env class."""

    def parallel_env(**kwargs):
        """The parallel env with the standard illegal-move policy (-1 to each offender, game over)."""
        return wrap_parallel(raw_cls(**kwargs))

    def raw_parallel_env(**kwargs):
        """The parallel env without wrappers: a bad joint action raises IllegalActionError and changes nothing."""
        return raw_cls(**kwargs)

    def env(**kwargs):
        """The AEC view (PettingZoo's parallel_to_aec layers over `parallel_env()`): agents act in turn."""
        return aec_view(parallel_env(**kwargs))

    def raw_env(**kwargs):
        """The AEC view over `raw_parallel_env()`: a bad joint action raises IllegalActionError."""
        return aec_view(raw_cls(**kwargs))

    return parallel_env, raw_parallel_env, env, raw_env
