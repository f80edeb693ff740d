"""The shared core: the rules base class, observation layouts and the env machinery every game uses."""

from snack_envs.core.game import ConfigError, Game, IllegalActionError, Option

__all__ = ["ConfigError", "Game", "IllegalActionError", "Option"]
