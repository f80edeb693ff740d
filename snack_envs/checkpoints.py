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
import zipfile
from functools import lru_cache
from pathlib import Path
from typing import IO, Any, Callable

import numpy as np

from snack_envs import extras, specs
from snack_envs.core.game import ConfigError, check_bool, is_int
from snack_envs.core.rollout import SeededPolicy, check_position

FORMAT = "snack-envs-checkpoint/1"
RLLIB_RUN_FORMAT = "snack-envs-rllib-checkpoint/1"  # what `snack-train --backend rllib` writes beside <run>/final


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


def umask() -> int:
    """The process's umask (the mode bits a new file does not get)."""
    try:  # Linux: read it without changing it
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomic(path: Path, write: Callable[[IO], Any], mode: str = "w") -> None:
    """`write(file)` into a temporary file opened with `mode` ("w" or "wb"), synced, then renamed to `path`,
    so a crash never leaves half a file. The file gets the mode a plain `open(path, "w")` would give it
    (0666 less the umask), not the temporary file's 0600."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as error:  # named after `path`, not the temporary file the user never asked for
        raise type(error)(error.errno, error.strerror, str(path)) from None
    try:
        with os.fdopen(fd, mode) as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o666 & ~umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json_atomic(path: Path, data: dict) -> None:
    """`data` as JSON, written whole or not at all (`write_atomic`)."""
    write_atomic(path, lambda f: json.dump(data, f, indent=2, sort_keys=True, default=str))


def save_checkpoint(model, path: str | Path, metadata: dict[str, Any]) -> Path:
    """Save model and metadata, each file written whole or not at all (`write_atomic`)."""
    path = Path(path).with_suffix(".zip")
    write_atomic(path, model.save, "wb")  # SB3 saves into an open binary file as into a path
    write_json_atomic(path.with_suffix(".json"), {"format": FORMAT, **metadata, "library_versions": library_versions()})
    return path


def read_metadata(path: str | Path, formats: tuple[str, ...] = (FORMAT,)) -> dict[str, Any]:
    """A checkpoint's metadata (the JSON file beside it), refused unless its format is one of `formats`."""
    meta_path = Path(path).with_suffix(".json")
    if Path(path).is_dir():  # else "<folder>.json is missing", as if a checkpoint's metadata were lost
        raise CheckpointError(f"{path} is a folder, not a checkpoint (a .zip file with its .json metadata beside it)")
    if not meta_path.exists():
        raise CheckpointError(f"{meta_path} is missing: a checkpoint needs its metadata file" if Path(path).exists()
                              else f"no checkpoint at {path}")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise CheckpointError(f"{meta_path}, line {error.lineno}: the metadata is not valid JSON ({error.msg})") from None
    except UnicodeDecodeError as error:
        raise CheckpointError(f"{meta_path}: the metadata is not UTF-8 text (byte {error.start}): not JSON") from None
    if not isinstance(meta, dict) or meta.get("format") not in formats:
        found = meta.get("format") if isinstance(meta, dict) else type(meta).__name__
        raise CheckpointError(f"{meta_path}: unknown checkpoint format {found!r}, expected "
                              f"{' or '.join(map(repr, formats))}")
    return meta


FACTS = ("env_version", "num_players", "observation_size", "num_actions")


def player_counts(meta: dict[str, Any]) -> list[int]:
    """Every player count a checkpoint plays: its metadata's `player_counts` (a checkpoint trained on
    several counts at once), else the one `num_players` it was trained for."""
    counts = meta.get("player_counts") or [meta["num_players"]]
    if not isinstance(counts, list) or not all(isinstance(n, int) and not isinstance(n, bool) for n in counts):
        raise CheckpointError(f"the checkpoint's player_counts {counts!r} is not a list of integers")
    return sorted(set(counts))


def check_fits(meta: dict[str, Any], env_name: str | None, num_players: int | None) -> dict[str, Any]:
    """Refuse metadata made for another game, env version, player count or shape; returns the env's facts
    (for `num_players` when given, else for the count the checkpoint was trained for)."""
    missing = [key for key in ("env_name", *FACTS) if key not in meta]
    if missing:
        raise CheckpointError(f"the checkpoint's metadata lacks {missing}")
    trained_on, players = meta["env_name"], meta["num_players"]
    counts = player_counts(meta)
    if players not in counts:  # its facts (sizes) are checked at num_players: a count it does not claim to play
        raise CheckpointError(f"the checkpoint's num_players {players!r} is not among its player_counts {counts}")
    if not isinstance(trained_on, str):  # a list or dict would fail in hashing, naming nothing
        raise CheckpointError(f"checkpoint was trained on {trained_on!r}, which is no env of this package "
                              f"(known envs: {', '.join(specs.ENV_NAMES)})")
    if trained_on in specs.RETIRED:
        raise CheckpointError(f"checkpoint was trained on {trained_on}, which is retired; "
                              f"retrain it on {specs.RETIRED[trained_on]}")
    if trained_on not in specs.ENV_NAMES:
        raise CheckpointError(f"checkpoint was trained on {trained_on!r}, which is no env of this package "
                              f"(known envs: {', '.join(specs.ENV_NAMES)})")
    if env_name is not None and trained_on != env_name:
        raise CheckpointError(f"checkpoint was trained on {trained_on}, not {env_name}")
    if num_players is not None:  # a Python or numpy integer, as Game.check_num_players takes it
        if not is_int(num_players):
            raise CheckpointError(f"num_players={num_players!r} is not an int")
        num_players = int(num_players)
    if num_players is not None and num_players not in counts:
        supported = f"num_players={counts[0]} only" if len(counts) == 1 else f"num_players in {counts} only"
        raise CheckpointError(f"checkpoint supports {supported} (it was trained for {'/'.join(map(str, counts))}-player "
                              f"{trained_on}), not num_players={num_players}")
    options = meta.get("env_options")
    if options is not None and not isinstance(options, dict):
        raise CheckpointError(f"the checkpoint's env_options {options!r} is not a mapping of option names to values")
    if "num_players" in (options or {}):  # the count is the metadata's num_players; twice, raw_env fails in TypeError
        raise CheckpointError(f"the checkpoint's env_options {options!r} set num_players, which is the metadata's own field")
    facts = _env_facts(trained_on, players, options)
    for key in FACTS:
        if meta[key] != facts[key]:
            raise CheckpointError(f"checkpoint {key} is {meta[key]!r} but {trained_on} here has {facts[key]!r}")
    if num_players is not None and num_players != players:
        facts = _env_facts(trained_on, num_players, options)
    return facts


def _env_facts(trained_on: str, num_players: int, options: dict | None) -> dict[str, Any]:
    """`env_facts`, a player count or option that the env refuses being a CheckpointError (the metadata's fault)."""
    try:
        return env_facts(trained_on, num_players, options)
    except ConfigError as error:
        raise CheckpointError(f"{trained_on} here refuses the checkpoint's num_players={num_players!r} or "
                              f"env_options {options!r}: {error}") from None


def check_network(observation_size: int | None, num_actions: int | None, facts: dict[str, Any]) -> None:
    """Refuse a network whose input or output size is not the env's: weights made for another game or version."""
    if (observation_size, num_actions) != (facts["observation_size"], facts["num_actions"]):
        raise CheckpointError(
            f"its network takes {observation_size} observation values and scores {num_actions} actions, but "
            f"{facts['env_name']} ({facts['num_players']} players) has {facts['observation_size']} and "
            f"{facts['num_actions']}: the weights were made for another game, version or player count"
        )


def masked_sample(logits: np.ndarray, action_mask: np.ndarray, rng: np.random.Generator) -> int:
    """An action drawn by `rng` from the softmax of `logits` over the actions `action_mask` allows."""
    legal = np.flatnonzero(action_mask)
    z = np.asarray(logits, np.float64)[legal]
    p = np.exp(z - z.max())
    return int(legal[rng.choice(len(legal), p=p / p.sum())])


class LogitsPolicy(SeededPolicy):
    """A policy that scores the actions with logits (`logits(observation, action_mask)`): deterministic,
    the best legal action; otherwise one drawn from the masked softmax by its own generator, which
    `reset(seed)` reseeds, so that a seeded game replays alike (the `Policy` contract). `act` refuses an
    observation or mask whose size is not `observation_size` or `num_actions` (where a subclass knows them)."""

    observation_size: int | None = None
    num_actions: int | None = None

    def __init__(self, name: str, deterministic: bool = True, seed: int | None = None):
        check_bool(deterministic, "deterministic", name)
        super().__init__(seed)
        self.name = name
        self.deterministic = bool(deterministic)

    def logits(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def best(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        return int(legal[np.argmax(self.logits(observation, action_mask)[legal])])

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        observation, action_mask = check_position(self.name, observation, action_mask, self.observation_size,
                                                  self.num_actions)
        if self.deterministic:
            return self.best(observation, action_mask)
        return masked_sample(self.logits(observation, action_mask), action_mask, self.rng)


class CheckpointPolicy(LogitsPolicy):
    """A trained MaskablePPO policy acting from the env's own observation vector and action mask."""

    def __init__(self, model, name: str, deterministic: bool = True, seed: int | None = None):
        super().__init__(name, deterministic, seed)
        self.model = model
        self.observation_size = int(model.observation_space.shape[0])
        self.num_actions = int(model.action_space.n)

    def logits(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        import torch

        policy = self.model.policy
        obs, _ = policy.obs_to_tensor(observation)
        with torch.no_grad():
            distribution = policy.get_distribution(obs, action_masks=action_mask.astype(bool)[None])
        return distribution.distribution.logits[0].numpy()

    def act_batch(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """Actions for a batch of positions in one forward pass (the batched engine's opponents):
        the masked argmax, or draws from the masked softmax by this policy's generator; -1 for a row whose
        mask allows no action, as the batched engine's `heuristic_actions` answers."""
        import torch

        policy = self.model.policy
        obs, _ = policy.obs_to_tensor(observations)
        with torch.no_grad():
            logits = policy.get_distribution(obs, action_masks=action_masks.astype(bool)).distribution.logits.numpy()
        if self.deterministic:
            actions = logits.argmax(-1)
        else:
            z = np.exp(logits - logits.max(-1, keepdims=True)) * action_masks  # masked logits are very negative anyway
            cumulative = np.cumsum(z, -1)
            draws = self.rng.random(len(z))[:, None] * cumulative[:, -1:]
            actions = (cumulative <= draws).sum(-1)
        return np.where(action_masks.any(-1), actions, -1)

    def best(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """What `model.predict(..., deterministic=True)` plays (SB3's own argmax)."""
        action, _ = self.model.predict(observation, action_masks=action_mask.astype(bool), deterministic=True)
        return int(action)


def load_model(path: str | Path):
    """`MaskablePPO.load(path)` on the CPU, less its side effect: it seeds the process's global generators
    (Python's, numpy's and torch's) with the seed saved in the checkpoint, so a training run that loads a
    snapshot of itself as an opponent would start its own random streams over at each one."""
    import random

    with extras.needed("loading a checkpoint"):
        import torch
        from sb3_contrib import MaskablePPO

    check_archive(path)
    saved = random.getstate(), np.random.get_state(), torch.get_rng_state()
    try:
        return MaskablePPO.load(path, device="cpu")
    finally:
        random.setstate(saved[0])
        np.random.set_state(saved[1])
        torch.set_rng_state(saved[2])


def check_archive(path: str | Path) -> None:
    """Refuse, with a CheckpointError naming `path`, a file that is no Stable-Baselines3 save: not a zip
    (another kind of file, or one cut short), or a zip without SB3's `data` entry. SB3 itself would raise a
    ValueError or an AssertionError that names neither the file nor the problem."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = archive.namelist()
    except zipfile.BadZipFile:
        raise CheckpointError(f"{path} is not a checkpoint: not a zip file (another kind of file, or one "
                              "damaged or cut short)") from None
    if "data" not in names:
        raise CheckpointError(f"{path} is not a checkpoint: a zip file without Stable-Baselines3's 'data' entry")


@lru_cache(maxsize=32)
def _load_model(path: str, mtime: float):
    return load_model(path)


def load_policy(
    path: str | Path, env_name: str | None = None, num_players: int | None = None, deterministic: bool = True
) -> CheckpointPolicy:
    """Load a checkpoint after checking that it fits `env_name` with `num_players` (see module docstring):
    its metadata, then its network's input and output sizes. A misfit is a CheckpointError naming the path."""
    path = Path(path)
    check_bool(deterministic, "deterministic", path.stem)  # before loading the model, which takes seconds
    if not path.is_file():
        raise CheckpointError(f"no checkpoint at {path}")
    try:
        facts = check_fits(read_metadata(path), env_name, num_players)
        model = _load_model(str(path.resolve()), path.stat().st_mtime)
        check_network(_size(model.observation_space), getattr(model.action_space, "n", None), facts)
    except CheckpointError as error:
        raise CheckpointError(f"{path}: {error}") from None
    return CheckpointPolicy(model, name=path.stem, deterministic=deterministic)


def _size(space) -> int | None:
    """The length of a flat observation space (None for any other)."""
    shape = getattr(space, "shape", None)
    return int(shape[0]) if shape is not None and len(shape) == 1 else None
