"""Trained policies on disk: a MaskablePPO `.zip` beside a `.json` metadata file of the same name.

    from snack_envs.checkpoints import load_policy
    policy = load_policy("checkpoints/snack_rabbits_v0.zip", env_name="snack_rabbits_v0")
    action = policy.act(obs["observation"], obs["action_mask"])

The metadata names the game, its env version and options, the observation
and action sizes, the training config, seed, timesteps, wall time, library
versions and evaluation results. `load_policy` refuses a checkpoint made for
another game, env version, player count or shape, with an error saying which.
Needs the `train` extra (torch, sb3-contrib).
"""

from __future__ import annotations

import importlib
import json
import os
import platform
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from snack_envs import specs

FORMAT = "snack-envs-checkpoint/1"


class CheckpointError(ValueError):
    """A checkpoint that does not fit the env it is asked to play."""


def library_versions() -> dict[str, str]:
    versions = {"python": platform.python_version()}
    for name in ("snack_envs", "numpy", "gymnasium", "pettingzoo", "torch", "stable_baselines3", "sb3_contrib"):
        try:
            versions[name] = importlib.import_module(name).__version__
        except ImportError:
            pass
    return versions


def env_facts(env_name: str, num_players: int, options: dict | None = None) -> dict[str, Any]:
    """What a checkpoint must match: game version, sizes, player count."""
    raw = specs.get(env_name).raw_env(num_players=num_players, **(options or {}))
    agent = raw.possible_agents[0]
    return {
        "env_name": env_name,
        "env_version": raw.game_class.version,
        "num_players": num_players,
        "observation_size": int(raw.observation_space(agent)["observation"].shape[0]),
        "num_actions": int(raw.action_space(agent).n),
    }


def write_json_atomic(path: Path, data: dict) -> None:
    """Write through a temporary file and rename, so a crash never leaves half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp") as tmp:
        json.dump(data, tmp, indent=2, sort_keys=True, default=str)
    os.replace(tmp.name, path)


def save_checkpoint(model, path: str | Path, metadata: dict[str, Any]) -> Path:
    """Save model and metadata atomically (each file is renamed into place when complete)."""
    path = Path(path).with_suffix(".zip")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.stem + ".partial.zip")
    model.save(tmp)
    os.replace(tmp, path)
    write_json_atomic(path.with_suffix(".json"), {"format": FORMAT, **metadata, "library_versions": library_versions()})
    return path


def read_metadata(path: str | Path) -> dict[str, Any]:
    meta_path = Path(path).with_suffix(".json")
    if not meta_path.exists():
        raise CheckpointError(f"{meta_path} is missing: a checkpoint needs its metadata file")
    meta = json.loads(meta_path.read_text())
    if meta.get("format") != FORMAT:
        raise CheckpointError(f"{meta_path}: unknown checkpoint format {meta.get('format')!r}, expected {FORMAT!r}")
    return meta


def check_fits(meta: dict[str, Any], env_name: str | None, num_players: int | None) -> None:
    if meta["env_name"] in specs.RETIRED:
        raise CheckpointError(f"checkpoint was trained on {meta['env_name']}, which is retired; "
                              f"retrain it on {specs.RETIRED[meta['env_name']]}")
    if env_name is not None and meta["env_name"] != env_name:
        raise CheckpointError(f"checkpoint was trained on {meta['env_name']}, not {env_name}")
    facts = env_facts(meta["env_name"], num_players or meta["num_players"], meta.get("env_options"))
    for key in ("env_version", "num_players", "observation_size", "num_actions"):
        if meta.get(key) != facts[key]:
            raise CheckpointError(
                f"checkpoint {key} is {meta.get(key)!r} but {meta['env_name']} here has {facts[key]!r}"
            )


def masked_sample(logits: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
    """An action drawn by `rng` from the softmax of `logits` over the actions `action_mask` allows."""
    legal = np.flatnonzero(action_mask)
    z = np.asarray(logits, np.float64)[legal]
    p = np.exp(z - z.max())
    return int(legal[rng.choice(len(legal), p=p / p.sum())])


class LogitsPolicy:
    """A policy that scores the actions with logits (`logits(observation, action_mask)`): deterministic,
    the best legal action; otherwise one drawn from the masked softmax by its own generator, which
    `reset(seed)` reseeds, so that a seeded game replays alike (the `Policy` contract)."""

    def __init__(self, name: str, deterministic: bool = True, seed: int | None = None):
        self.name = name
        self.deterministic = deterministic
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def logits(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def best(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        return int(legal[np.argmax(self.logits(observation, action_mask)[legal])])

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        if self.deterministic:
            return self.best(observation, action_mask)
        return masked_sample(self.logits(observation, action_mask), action_mask, self.rng)


class CheckpointPolicy(LogitsPolicy):
    """A trained MaskablePPO policy acting from the env's own observation vector and action mask."""

    def __init__(self, model, name: str, deterministic: bool = True, seed: int | None = None):
        super().__init__(name, deterministic, seed)
        self.model = model

    def logits(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        import torch

        policy = self.model.policy
        obs, _ = policy.obs_to_tensor(observation)
        with torch.no_grad():
            distribution = policy.get_distribution(obs, action_masks=action_mask.astype(bool)[None])
        return distribution.distribution.logits[0].numpy()

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Actions for a batch of positions in one forward pass (the batched engine's opponents):
        the masked argmax, or draws from the masked softmax by this policy's generator."""
        import torch

        policy = self.model.policy
        obs, _ = policy.obs_to_tensor(observations)
        with torch.no_grad():
            logits = policy.get_distribution(obs, action_masks=action_masks.astype(bool)).distribution.logits.numpy()
        if self.deterministic:
            return logits.argmax(-1)
        z = np.exp(logits - logits.max(-1, keepdims=True)) * action_masks  # masked logits are very negative anyway
        cumulative = np.cumsum(z, -1)
        draws = self.rng.random(len(z))[:, None] * cumulative[:, -1:]
        return (cumulative <= draws).sum(-1)

    def best(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """What `model.predict(..., deterministic=True)` plays (SB3's own argmax)."""
        action, _ = self.model.predict(observation, action_masks=action_mask.astype(bool), deterministic=True)
        return int(action)


@lru_cache(maxsize=32)
def _load_model(path: str, mtime: float):
    from sb3_contrib import MaskablePPO

    return MaskablePPO.load(path, device="cpu")


def load_policy(
    path: str | Path, env_name: str | None = None, num_players: int | None = None, deterministic: bool = True
) -> CheckpointPolicy:
    """Load a checkpoint after checking that it fits `env_name` with `num_players` (see module docstring)."""
    path = Path(path)
    if not path.exists():
        raise CheckpointError(f"no checkpoint at {path}")
    meta = read_metadata(path)
    check_fits(meta, env_name, num_players)
    model = _load_model(str(path.resolve()), path.stat().st_mtime)
    return CheckpointPolicy(model, name=path.stem, deterministic=deterministic)
