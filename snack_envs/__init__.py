"""snack-envs: PettingZoo environments for four snack-themed tabletop games.

    from snack_envs import snack_rabbits_v0
    env = snack_rabbits_v0.env(num_players=3)

`make(name, **kwargs)` builds an env by name; `ENV_NAMES` lists them (one per
game, see `snack_envs.specs`). The errors a caller may catch are here too:
`IllegalActionError` (a `raw_env()` refusing an action), `ConfigError` (an
unknown or out-of-range option), `UnknownEnvError`, `RetiredEnvError` and
`MissingExtraError` (an optional package not installed; the message names
the extra). Importing this package loads no RL library:
the Gymnasium and PettingZoo ids are registered once those libraries are
imported (`snack_envs.registration`).
"""

from __future__ import annotations

from importlib import metadata

from snack_envs import specs
from snack_envs.core.game import ConfigError, IllegalActionError
from snack_envs.extras import MissingExtraError
from snack_envs.specs import ENV_NAMES, RETIRED, RetiredEnvError, UnknownEnvError

try:  # one source for the version: pyproject.toml, through the installed package's metadata
    __version__ = metadata.version("snack-envs")
except metadata.PackageNotFoundError:  # a source tree used without installing it
    __version__ = "0+unknown"


def __getattr__(name: str):
    if name in ENV_NAMES or name in RETIRED:
        return specs.get(name).entry_points()
    raise AttributeError(f"module 'snack_envs' has no attribute {name!r}")


def make(name: str, parallel: bool = False, **kwargs):
    """Build an env by its name (e.g. "snack_rabbits_v0"): `env()`, or `parallel_env()` with parallel=True."""
    entry = specs.get(name).entry_points()
    return entry.parallel_env(**kwargs) if parallel else entry.env(**kwargs)


from snack_envs import registration  # noqa: E402

registration.install()

__all__ = ["ENV_NAMES", "RETIRED", "ConfigError", "IllegalActionError", "MissingExtraError", "RetiredEnvError",
           "UnknownEnvError", "make", "specs", "__version__"]
