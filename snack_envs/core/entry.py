"""Builds a game's public entry points (`env`, `raw_env`, `parallel_env`) the PettingZoo way."""

from __future__ import annotations

from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from snack_envs.core.env import TurnBasedEnv, wrap_aec


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
        return turn_based_aec_to_parallel(env(**kwargs))

    return env, raw_env, parallel_env
