"""Which games exist and where each of their parts lives: one `GameSpec` per game.

Everything else looks a game up here, by env name (`get("snack_wars_v0")`) or
by the rules' game name (`for_game("snack_wars")`), instead of turning names
into module paths or asking whether a game is simultaneous. A spec names its
parts by convention (`snack_envs.<game>.rules`, `.env`, `.observation`,
`.heuristic`, `.picture`) and loads them on first use, so importing this module,
or `snack_envs`, loads no game and no RL library.

A fifth game is its folder, one spec in `SPECS`, and the two-line entry-point
module `snack_envs/<game>_v<N>.py` (PettingZoo's import convention needs a real
module there).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, ClassVar


@dataclass(frozen=True)
class GameSpec:
    name: str  # the rules' game name and its package folder, e.g. "snack_wars"
    version: int  # the env version (DESIGN.md's rule: it changes when behaviour changes)
    title: str
    rules: str  # class names in the game's modules
    env: str
    encoder: str
    simultaneous: bool = False  # players act at the same time: a ParallelEnv first, an AEC view second
    batched: bool = False  # has a batched native engine: `<game>.batched.Kernel` (see snack_envs.batched)
    solo: str | None = None  # "module:Class" of a single-player Gymnasium env, registered as `solo_gym_id`
    solo_gym_id: str | None = None
    # An env's own keywords beside its game's options (core.env): a bot has no use for them, and the options
    # a bot is built with (a training config's env.options) may hold them.
    ENV_KEYWORDS: ClassVar[tuple[str, ...]] = ("max_steps", "shuffle_seats")

    @property
    def env_name(self) -> str:
        return f"{self.name}_v{self.version}"

    @property
    def package(self) -> str:
        return f"snack_envs.{self.name}"

    @property
    def gym_id(self) -> str:
        """The single-agent Gymnasium id: 'snack_wars' v0 -> 'SnackWars-v0'."""
        return "".join(part.capitalize() for part in self.name.split("_")) + f"-v{self.version}"

    @property
    def pettingzoo_id(self) -> str:
        """PettingZoo's registry id: 'snack_envs/snack_wars-v0'."""
        return f"snack_envs/{self.name}-v{self.version}"

    def module(self, part: str):
        """One of the game's modules: "rules", "env", "observation", "heuristic", "picture"..."""
        return importlib.import_module(f"{self.package}.{part}")

    @property
    def rules_class(self) -> type:
        return getattr(self.module("rules"), self.rules)

    @property
    def env_class(self) -> type:
        return getattr(self.module("env"), self.env)

    @property
    def encoder_class(self) -> type:
        return getattr(self.module("observation"), self.encoder)

    def entry_points(self):
        """The public module `snack_envs.<env_name>` (env, raw_env, parallel_env...)."""
        return importlib.import_module(f"snack_envs.{self.env_name}")

    def raw_env(self, **kwargs: Any):
        """The unwrapped env of the game's own API: a ParallelEnv if simultaneous, else an AEC env."""
        entry = self.entry_points()
        return entry.raw_parallel_env(**kwargs) if self.simultaneous else entry.raw_env(**kwargs)

    def game_options(self, env_options: dict[str, Any]) -> dict[str, Any]:
        """`env_options`, the keywords of an env of this game, checked (a misspelt option or a bad value is a
        ConfigError): the game's options, merged over their defaults; ENV_KEYWORDS are left out."""
        from snack_envs.core.game import check_options

        given = {key: value for key, value in env_options.items() if key not in self.ENV_KEYWORDS}
        return check_options(self.name, self.rules_class.options, given)

    def heuristic(self, num_players: int, **options: Any):
        """The game's rule-based bot (`<game>.heuristic.HeuristicPolicy`) for `num_players` and the env's
        keywords `options`, both checked as the env checks them (a ConfigError)."""
        self.rules_class.check_num_players(num_players)
        self.game_options(options)
        return self.module("heuristic").HeuristicPolicy(num_players=num_players, **options)


SPECS: tuple[GameSpec, ...] = (
    GameSpec(
        "snack_rabbits", 0, "Snack Rabbits", rules="SnackRabbits", env="SnackRabbitsEnv", encoder="RabbitsEncoder",
        batched=True,
    ),
    GameSpec(
        "snack_time", 0, "Snack Time", rules="SnackTime", env="SnackTimeEnv", encoder="SnackTimeEncoder",
        solo="snack_envs.snack_time.solo:SnackTimeSoloEnv", solo_gym_id="SnackTimeSolo-v0",
        batched=True,
    ),
    GameSpec("snack_wars", 0, "Snack Wars", rules="SnackWars", env="SnackWarsEnv", encoder="WarsEncoder",
             batched=True),
    GameSpec(
        "speed_snacks", 1, "Speed Snacks", rules="SpeedSnacks", env="SpeedSnacksEnv", encoder="SpeedSnacksEncoder",
        simultaneous=True, batched=True,
    ),
)
BY_ENV_NAME = {spec.env_name: spec for spec in SPECS}
BY_GAME = {spec.name: spec for spec in SPECS}
ENV_NAMES = tuple(BY_ENV_NAME)

# Env versions replaced by a newer one (DESIGN.md's version rule), and why: asking for one is an
# error that names its successor, as PettingZoo does for its own retired versions.
RETIRED = {
    "speed_snacks_v0": "speed_snacks_v1 (Module 1's inspection no longer shows the face-down kitchen tops)",
}


class RetiredEnvError(ImportError):
    """An env version that a newer one replaced."""


class UnknownEnvError(ValueError):
    """A name that is no env of this package."""


def get(env_name: str) -> GameSpec:
    """The spec of an env by name ("snack_wars_v0"); a clear error for a retired or unknown name."""
    spec = BY_ENV_NAME.get(env_name) if isinstance(env_name, str) else None
    if spec is None:
        if isinstance(env_name, str) and env_name in RETIRED:
            raise RetiredEnvError(f"{env_name} is retired; use {RETIRED[env_name]}")
        raise UnknownEnvError(f"unknown env {env_name!r}; known envs: {', '.join(ENV_NAMES)}")
    return spec


def for_game(game_name: str) -> GameSpec:
    """The spec of the game whose rules are named `game_name` ("snack_wars", a `Game.name`)."""
    return BY_GAME[game_name]
