"""Training configs as data: configs/base.yaml, merged under one YAML per game, validated on load.

    config = load_config("configs/snack_rabbits.yaml", overrides=["timesteps=50000", "algo.learning_rate=1e-4"])
    config = load_config("snack_rabbits")  # a shipped config by name, from any folder and any install

A game config may name its parent with `extends:` (default: base.yaml beside it).
Every key must be one the schema below knows, with a value of the right type
and range; anything else is a ConfigError that names the key.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

import yaml

from snack_envs import specs
from snack_envs.core.game import ConfigError


def _config_dir() -> Path:
    """configs/ of the source tree, or the copy a non-editable install puts under share/."""
    source = Path(__file__).resolve().parent.parent / "configs"
    installed = Path(sys.prefix) / "share" / "snack-envs" / "configs"
    return source if source.is_dir() or not installed.is_dir() else installed


CONFIG_DIR = _config_dir()
DEFAULT_CONFIG = CONFIG_DIR / "quickstart.yaml"


def _num(low=None, high=None, integer=False):
    def check(key, value):
        if isinstance(value, bool) or not isinstance(value, int if integer else (int, float)):
            raise ConfigError(f"{key}={value!r} must be {'an integer' if integer else 'a number'}")
        if low is not None and value < low or high is not None and value > high:
            raise ConfigError(f"{key}={value!r} is out of range [{low}, {high}]")
        return value

    return check


def _choice(*options):
    def check(key, value):
        if value not in options:
            raise ConfigError(f"{key}={value!r} is not one of {list(options)}")
        return value

    return check


def _type(kind, optional=False):
    def check(key, value):
        if value is None and optional or isinstance(value, kind):
            return value
        raise ConfigError(f"{key}={value!r} must be of type {kind.__name__}")

    return check


def _int_list(key, value):
    if not isinstance(value, list) or not value or not all(isinstance(v, int) and v > 0 for v in value):
        raise ConfigError(f"{key}={value!r} must be a non-empty list of positive integers")
    return value


def _str_list(key, value):
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{key}={value!r} must be a list of strings")
    return value


SCHEMA: dict[str, Any] = {
    "extends": _type(str, optional=True),
    "env": {
        "name": _type(str),
        "num_players": _num(1, 16, integer=True),
        "reward": _type(str),
        "options": _type(dict),
    },
    "seed": _num(0, 2**31 - 1, integer=True),
    "timesteps": _num(1, 10**9, integer=True),
    "n_envs": _num(1, 256, integer=True),
    "vec_env": _choice("dummy", "subproc", "batched"),
    "torch_threads": _num(1, 64, integer=True),
    "algo": {
        "learning_rate": _num(0, 1),
        "n_steps": _num(8, 10**6, integer=True),
        "batch_size": _num(8, 10**6, integer=True),
        "n_epochs": _num(1, 100, integer=True),
        "gamma": _num(0, 1),
        "gae_lambda": _num(0, 1),
        "ent_coef": _num(0, 1),
        "vf_coef": _num(0, 10),
        "clip_range": _num(0, 1),
        "max_grad_norm": _num(0, 100),
        "net_arch": _int_list,
        "policy": _choice("mlp", "grid"),
    },
    "opponents": {
        "random": _num(0, 1),
        "heuristic": _num(0, 1),
        "self": _num(0, 1),
        "snapshot_every": _num(1, 10**9, integer=True),
        "max_snapshots": _num(1, 1000, integer=True),
    },
    "eval": {
        "every": _num(1, 10**9, integer=True),
        "games": _num(1, 10**6, integer=True),
        "final_games": _num(1, 10**6, integer=True),
        "opponents": _str_list,
    },
    "output_dir": _type(str),
    "init_from": _type(str, optional=True),
    "imitation": {
        "games": _num(0, 10**7, integer=True),
        "epochs": _num(1, 1000, integer=True),
    },
}


def validate(config: dict[str, Any], schema: dict[str, Any] = SCHEMA, prefix: str = "") -> dict[str, Any]:
    if not isinstance(config, dict):
        raise ConfigError(f"{prefix.rstrip('.') or 'config'} must be a mapping, got {config!r}")
    for key, value in config.items():
        full = prefix + str(key)
        if key not in schema:
            raise ConfigError(f"unknown config key {full!r}; known keys here: {sorted(schema)}")
        rule = schema[key]
        if isinstance(rule, dict):
            validate(value, rule, full + ".")
        else:
            rule(full, value)
    return config


def merge(base: dict, override: dict) -> dict:
    out = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict) and key != "options":
            out[key] = merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def read_yaml(path: Path) -> dict:
    if not path.exists():
        raise ConfigError(f"config file {path} does not exist")
    data = yaml.safe_load(path.read_text()) or {}
    return validate(data)


def parse_override(text: str) -> dict:
    """'algo.learning_rate=1e-4' -> {'algo': {'learning_rate': 0.0001}}."""
    if "=" not in text:
        raise ConfigError(f"override {text!r} must look like key.sub=value")
    key, raw = text.split("=", 1)
    value = yaml.safe_load(raw)
    if isinstance(value, str) and raw.strip().lower().replace("e", "").replace("-", "").replace(".", "").isdigit():
        value = float(raw)  # YAML 1.1 reads "1e-4" as a string
    out: dict = {}
    node = out
    parts = key.strip().split(".")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value
    return out


def load_config(path: str | Path | None = None, overrides: list[str] | None = None) -> dict[str, Any]:
    """Load a game config over its parent(s), apply overrides, validate, and check completeness."""
    path = Path(path) if path else DEFAULT_CONFIG
    shipped = CONFIG_DIR / path.with_suffix(".yaml").name
    if not path.exists() and shipped.exists():
        path = shipped  # a shipped config by name: "snack_wars"
    chain = []
    while path is not None:
        data = read_yaml(path)
        chain.append(data)
        parent = data.get("extends", None if path.name == "base.yaml" else "base.yaml")
        path = (path.parent / parent) if parent else None
        if len(chain) > 10:
            raise ConfigError("config 'extends' chain is too long (a cycle?)")
    config: dict = {}
    for data in reversed(chain):
        config = merge(config, data)
    for text in overrides or []:
        config = merge(config, validate(parse_override(text)))
    config.pop("extends", None)
    missing = [f"{section}.{key}" if section else key for section, key in _required(config)]
    if missing:
        raise ConfigError(f"config is missing {missing}")
    if config["algo"]["batch_size"] > config["algo"]["n_steps"] * config["n_envs"]:
        raise ConfigError("algo.batch_size must not exceed algo.n_steps * n_envs")
    weights = [config["opponents"][k] for k in ("random", "heuristic", "self")]
    if sum(weights) <= 0:
        raise ConfigError("opponents: the random, heuristic and self weights must not all be 0")
    _check_env(config["env"])
    if config["vec_env"] == "batched" and not specs.get(config["env"]["name"]).batched:
        raise ConfigError(f"vec_env=batched: {config['env']['name']} has no batched engine yet (use dummy or subproc)")
    if config["algo"].get("policy") == "grid" and grid_spec(config["env"]["name"]) is None:
        raise ConfigError(f"algo.policy=grid needs a game played on a grid; {config['env']['name']} has none (use mlp)")
    return config


def grid_spec(env_name: str) -> dict | None:
    """The game's map layout for `algo.policy: grid` (its observation module's GRID), or None."""
    return getattr(specs.get(env_name).module("observation"), "GRID", None)


def _required(config):
    for key, rule in SCHEMA.items():
        if key in ("extends", "init_from"):
            continue
        if key not in config:
            yield "", key
        elif isinstance(rule, dict):
            for sub in rule:
                if sub not in config[key] and sub not in ("options", "vf_coef", "max_grad_norm", "policy", "final_games"):
                    yield key, sub


def _check_env(env_cfg: dict) -> None:
    """Build the env once so that a bad game option or player count fails at load time."""
    if env_cfg["name"] not in specs.ENV_NAMES:
        raise ConfigError(f"env.name={env_cfg['name']!r} is not one of {list(specs.ENV_NAMES)}")
    specs.get(env_cfg["name"]).raw_env(num_players=env_cfg["num_players"], reward=env_cfg["reward"], **env_cfg.get("options", {}))
