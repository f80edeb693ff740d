"""TorchRL for every snack env, through TorchRL's own `PettingZooWrapper` with action masks.

    from snack_envs.integrations.torchrl import make_env
    env = make_env("snack_rabbits_v0", num_players=3, seed=0)
    rollout = env.rollout(1000)   # random legal actions, one game

Needs `pip install "snack-envs[torchrl]"`. `make_env` wraps the public env with
`use_mask=True`, which TorchRL requires for turn-based (AEC) envs:

- Turn-based games (the AEC `env()`): one group per agent; each group's
  "mask" says whether that agent acts in the step, and "action_mask" (the
  env's own mask, moved out of the observation) holds its legal actions, which
  TorchRL also writes into the action spec, so `env.rand_action()` and random
  rollouts are legal. Feed it to `torchrl.modules.MaskedCategorical` in a policy.
- Simultaneous games (`parallel_env()`): the agents "player_<i>" form one group
  "player", with the same "mask" and "action_mask" entries.
- The vector observation sits at (group, "observation", "observation").
- `raw=True` wraps `raw_env()` / `raw_parallel_env()` instead, which raise
  IllegalActionError on an illegal action (the public envs end the game with -1).
- `return_state=True` adds the env's global `state()` (every agent's
  observation, in agent order) under "state", for a centralised critic.
"""

from __future__ import annotations

from typing import Any

from snack_envs import extras, specs
from snack_envs.core.game import check_bool

with extras.needed("snack_envs.integrations.torchrl"):
    from torchrl.envs import PettingZooWrapper


def make_env(env_name: str, seed: int | None = None, raw: bool = False, return_state: bool = False,
             **env_kwargs: Any) -> PettingZooWrapper:
    """The game as a TorchRL env (see the module docstring); `env_kwargs` go to the game. `return_state`:
    each step also holds the env's global `state()` under "state" (every agent's observation, for a
    centralised critic such as MAPPO's)."""
    spec = specs.get(env_name)
    check_bool(raw, "raw", "make_env")
    check_bool(return_state, "return_state", "make_env")
    if raw:
        env = spec.raw_env(**env_kwargs)
    else:
        entry = spec.entry_points()
        env = (entry.parallel_env if spec.simultaneous else entry.env)(**env_kwargs)
    return PettingZooWrapper(env, use_mask=True, categorical_actions=True, seed=seed, return_state=return_state)
