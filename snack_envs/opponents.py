"""Who plays the seats beside the learner: one draw per seat and per episode, for both training backends.

    mix = OpponentMix({"random": 0.2, "heuristic": 0.3, "self": 0.5})
    mix = mix.with_snapshots(["step4096.zip"])   # frozen copies of the learner, oldest first
    mix.draw(rng)                                # "random", "heuristic", or one of the snapshots

The config's `opponents:` weights choose between random play, the game's
heuristic bot and a frozen snapshot of the learner (one of them uniformly).
Until the first snapshot exists, the "self" weight goes to the heuristic.
Each seat draws on its own, so the opponents of an n-player game are
independent draws. A snapshot is whatever the backend keeps: the SB3 backend
a loaded checkpoint policy (`snack_envs.training.backends.sb3.OpponentPool`), RLlib a
module id (`snack_envs.integrations.rllib.OpponentMapping`).

It lives in the package, not in `training/`, because the RLlib integration
(`snack_envs.integrations.rllib`) uses it too. Only numpy here: it must not
import the policies (`snack_envs.agents`), which import the integrations.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from snack_envs.core.game import ConfigError, is_bool, is_int

KINDS = ("random", "heuristic", "self")


class OpponentMix:
    """The opponent weights and the snapshots to draw from (see the module docstring). A weight missing
    from `weights` is 0; a kind that is not one of KINDS is refused, as is a weight that is no finite
    number of at least 0 (ConfigError, a ValueError)."""

    def __init__(self, weights: Mapping[str, float], snapshots: Sequence[Any] = ()):
        if not isinstance(weights, Mapping):
            raise ConfigError(f"the opponent weights must be a mapping of {', '.join(KINDS)} to weights, got {weights!r}")
        if unknown := sorted(set(weights) - set(KINDS), key=str):  # a misspelt kind would weigh 0 unseen
            raise ConfigError(f"unknown opponent kind(s) {unknown}; the kinds are {list(KINDS)}")
        if bad := {k: w for k, w in weights.items() if is_bool(w) or not isinstance(w, (int, float, np.integer, np.floating))}:
            raise ConfigError(f"the opponent weights must be numbers, not {bad}")  # never a cast "1" or True
        self.weights = {k: float(weights.get(k, 0.0)) for k in KINDS}
        if bad := {k: w for k, w in self.weights.items() if not 0 <= w < float("inf")}:  # NaN fails too
            raise ConfigError(f"the opponent weights must be finite and at least 0, not {bad}")
        if sum(self.weights.values()) <= 0:
            raise ConfigError("the opponent weights (random, heuristic, self) must not all be 0")
        self.snapshots = _snapshots(snapshots)

    def with_snapshots(self, snapshots: Sequence[Any], keep: int | None = None) -> "OpponentMix":
        """The same weights over `snapshots`, only the newest `keep` (at least 1) of them if given."""
        check_keep(keep, "keep")
        snapshots = _snapshots(snapshots)
        return OpponentMix(self.weights, snapshots[-keep:] if keep else snapshots)

    def probabilities(self) -> np.ndarray:
        """Of random, heuristic, self (KINDS), normalised; "self" goes to the heuristic until a snapshot exists."""
        w = self.weights
        if self.snapshots:
            p = np.array([w["random"], w["heuristic"], w["self"]])
        else:
            p = np.array([w["random"], w["heuristic"] + w["self"], 0.0])
        return p / p.sum()

    def draw_many(self, rng: np.random.Generator, count: int) -> tuple[np.ndarray, np.ndarray]:
        """`count` seats' opponents at once: their kinds (indices into KINDS) and, where the kind is
        "self", which snapshot (an index into `snapshots`; -1 elsewhere)."""
        kinds = rng.choice(len(KINDS), size=count, p=self.probabilities())
        which = np.where(kinds == KINDS.index("self"), rng.integers(max(len(self.snapshots), 1), size=count), -1)
        return kinds, which

    def draw(self, rng: np.random.Generator) -> Any:
        """One seat's opponent: "random", "heuristic", or a snapshot (each as likely as the others)."""
        kind = KINDS[int(rng.choice(len(KINDS), p=self.probabilities()))]
        if kind == "self":
            return self.snapshots[int(rng.integers(len(self.snapshots)))]
        return kind


def check_keep(keep: Any, name: str) -> None:
    """How many snapshots to keep: None (all of them) or an int of at least 1, else a ConfigError naming `name`."""
    if keep is not None and (not is_int(keep) or keep < 1):
        raise ConfigError(f"{name}={keep!r}: keep at least 1 snapshot (an int), or give None to keep them all")


def weights_in(section: Mapping[str, Any]) -> dict[str, Any]:
    """The weights of a training config's `opponents:` section, without its other keys (`snapshot_every`,
    `max_snapshots`), for `OpponentMix`."""
    return {kind: section[kind] for kind in KINDS}


def _snapshots(snapshots: Sequence[Any]) -> tuple:
    """`snapshots` as a tuple; a string is refused, not read as one snapshot per letter."""
    if isinstance(snapshots, (str, bytes)) or not isinstance(snapshots, Sequence):
        raise ConfigError(f"snapshots must be a sequence (a list or tuple) of snapshots, got {snapshots!r}")
    return tuple(snapshots)
