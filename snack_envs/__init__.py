"""snack-envs: PettingZoo environments for four snack-themed tabletop games.

    from snack_envs import snack_rabbits_v0
    env = snack_rabbits_v0.env(num_players=3)

`make(name, **kwargs)` builds an env by name; `ENV_NAMES` lists them (every
`snack_envs/<game>_v<N>.py` entry-point module).
"""

from __future__ import annotations

import importlib
import pkgutil
import re

__version__ = "0.1.0"

ENV_NAMES = tuple(
    sorted(m.name for m in pkgutil.iter_modules(__path__) if re.fullmatch(r"[a-z_]+_v\d+", m.name))
)


def __getattr__(name: str):
    if name in ENV_NAMES:
        return importlib.import_module(f"snack_envs.{name}")
    raise AttributeError(f"module 'snack_envs' has no attribute {name!r}")


def make(name: str, parallel: bool = False, **kwargs):
    """Build an env by its name (e.g. "snack_rabbits_v0"): `env()`, or `parallel_env()` with parallel=True."""
    if name not in ENV_NAMES:
        raise ValueError(f"unknown env {name!r}; known envs: {list(ENV_NAMES)}")
    module = importlib.import_module(f"snack_envs.{name}")
    return module.parallel_env(**kwargs) if parallel else module.env(**kwargs)

from snack_envs import registration  # noqa: E402,F401  (Gymnasium and PettingZoo ids; see registration.py)
