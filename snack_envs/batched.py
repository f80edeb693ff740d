"""The batched native engine: many games of one env stepped at once, Pgx-style, in numpy arrays.

    from snack_envs import batched
    venv = batched.make("snack_rabbits_v0", num_envs=1024, num_players=3, seed=0)
    obs, mask, player = venv.reset()      # float32 [B, D], int8 [B, A], int [B]: the agent to act and its view
    obs, mask, player, rewards, terminated, truncated = venv.step(actions)   # actions int [B]; rewards [B, n]
    game = venv.export(i)                 # env i as a reference Game (rules.py)
    venv.load(i, game)                    # and back

Observations and masks are exactly the PettingZoo env's for the same position
and seat, so a checkpoint trained on one plays on the other. Finished games
start again at once: the step that ends a game returns its final rewards and
`terminated` / `truncated`, and the new game's observation. The keywords are
the env's (`num_players`, `reward`, `max_steps`, `shuffle_seats`, game options)
plus `num_envs` and `seed`. Needs the `fast` extra (numba); the first `make`
of a game compiles its kernel (cached on disk afterwards).
See `snack_envs.core.batched` for the machinery.
"""

from __future__ import annotations

from typing import Any

from snack_envs import specs


def available() -> list[str]:
    """The envs that have a batched engine."""
    return [spec.env_name for spec in specs.SPECS if spec.batched]


def make(env_name: str, num_envs: int, **kwargs: Any):
    """`num_envs` games of `env_name` (see the module docstring)."""
    spec = specs.get(env_name)
    if not spec.batched:
        raise specs.UnknownEnvError(f"{env_name} has no batched engine yet; batched envs: {', '.join(available())}")
    from snack_envs.core.batched import BatchedEnv

    return BatchedEnv(env_name, num_envs, **kwargs)
