"""Training configs as data: base.yaml, merged under one YAML per game, validated on load.

The shipped configs are the repository's configs/ folder, installed as the package data of
`snack_envs.training.configs` and found with importlib.resources (`CONFIG_DIR`) in every layout.

    config = load_config("configs/snack_rabbits.yaml", overrides=["timesteps=50000", "algo.learning_rate=1e-4"])
    config = load_config("snack_rabbits")  # a shipped config by name, from any folder and any install

    config = load_config("~/my_configs/wars.yaml")  # a file of one's own: its parent beside it, else the shipped one

A config may name its parent with `extends:` (default: base). A parent, like the
config itself, is looked for beside the file that names it, then among the
shipped configs, so a config of one's own anywhere on disk extends the shipped
base. Every key must be one the schema below knows, with a value of the right
type and range; anything else is a ConfigError that names the key (and the
file). Integer settings take integral floats and scientific notation
(`timesteps: 1e5`); `1.5e0` is refused. Numbers and dates are read as YAML 1.2
reads them (`010` is ten, not octal 8; `1:30` and `2026-12-07` are strings, not
90 and a date). Policy names (`eval.opponents`),
checkpoint paths (`init_from`, checkpoints among `eval.opponents`) and game
options are checked here, on load, so that a bad one never fails a run late.
A run's config.json is checked the same way when the run is resumed
(`check_config`, `load_run_config`).

A recipe of several runs in a row is one config with `stages:`, a list of
partial configs; stage k's config is the config (less `stages`) with stage k's
keys merged over it (`stage_configs`), and every stage's whole config is
checked on load, its errors naming `stages[i]` (i from 0: stage i + 1). A
stage after the first starts from the final weights of the one before it (its
`init_from`, set when it runs) and imitates (clones a teacher, runs DAgger)
only where it sets `imitation.games` or `imitation.dagger_rounds` itself.
Three keys only a stage may set make a recipe a tree rather than a line:
`start: {stage: K}` starts it from stage K's final weights instead (a branch), `start: {stage: K, timesteps: S}` from stage K's weights
at S timesteps (its first update at or past S, which stage K then keeps in
`<run>/stageK/keep/`: its `keep_at`); a stage that sets only
`average: [K1, K2, ...]` trains nothing: its weights are the average of those
stages' final weights (training/average.py); and one that sets only
`select: {stage: K, at: [S, ...], against, players, games, seeds}` trains
nothing either: its weights are those of stage K's checkpoint, among its final
one and those it kept at each S, with the best mean win share against
`against` over `games` games at each of `players` counts and each of `seeds`
(its config is stage K's, so it plays K's player counts). `--set key=value` sets a key
every stage shares (one a stage sets itself is refused: ambiguous);
`--set stages[i].key=value` sets it for one stage. The runs: training/recipe.py.
"""

from __future__ import annotations

import copy
import difflib
import json
import math
import re
import stat
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from snack_envs import specs
from snack_envs.core.game import ConfigError


class _Loader(yaml.SafeLoader):
    """PyYAML's safe loader, reading numbers and dates as YAML 1.2 does (see below), and refusing a mapping that sets
    one key twice (PyYAML keeps the last one silently)."""

    def construct_mapping(self, node, deep=False):
        """SafeLoader's mapping, after checking that no key is set twice in it (a key that a merge,
        `<<: *anchor`, brings in may be set again: that is what a merge is for)."""
        if isinstance(node, yaml.MappingNode):
            first_line: dict = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=deep)
                try:
                    line = first_line.get(key)
                except TypeError:  # an unhashable key: SafeLoader's own error says so
                    continue
                if line is not None:
                    raise yaml.constructor.ConstructorError(
                        "while constructing a mapping", node.start_mark,
                        f"duplicate key {key!r} (first set on line {line + 1})", key_node.start_mark)
                first_line[key] = key_node.start_mark.line
        return super().construct_mapping(node, deep=deep)


# Numbers as YAML 1.2 reads them: `1e5` and `1.0e-4` are numbers (YAML 1.1 reads strings), `010` is ten
# and `1:30` a string (YAML 1.1 reads octal 8 and base-60 90: a seed or a count written so would be another
# number without a word). Kept from YAML 1.1: digit separators (`1_000_000`); hex is `0x1f`, octal `0o17`.
# Dates are strings, as in YAML 1.2 (no key takes a date; `output_dir: 2026-12-07` names a folder).
_INT, _FLOAT, _DATE = "tag:yaml.org,2002:int", "tag:yaml.org,2002:float", "tag:yaml.org,2002:timestamp"
_Loader.yaml_implicit_resolvers = {first: [(tag, regexp) for tag, regexp in resolvers if tag not in (_INT, _FLOAT, _DATE)]
                                   for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
_Loader.add_implicit_resolver(_INT, re.compile(r"^[-+]?(?:[0-9][0-9_]*|0x[0-9a-fA-F][0-9a-fA-F_]*|0o[0-7][0-7_]*)$"), list("-+0123456789"))
_Loader.add_implicit_resolver(_FLOAT, re.compile(
    r"^(?:[-+]?[0-9][0-9_]*(?:\.[0-9_]*(?:[eE][-+]?[0-9]+)?|[eE][-+]?[0-9]+)|[-+]?\.[0-9][0-9_]*(?:[eE][-+]?[0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"), list("-+0123456789."))


def _construct_int(loader: _Loader, node) -> int:
    text = loader.construct_scalar(node).replace("_", "")
    digits = text.lstrip("+-")
    base = {"0x": 16, "0o": 8}.get(digits[:2], 10)
    return (-1 if text.startswith("-") else 1) * int(digits[2:] if base != 10 else digits, base)


_Loader.add_constructor(_INT, _construct_int)


def yaml_load(text: str, source: str) -> Any:
    """Parse YAML text; malformed YAML is a ConfigError naming `source` and the line."""
    try:
        return yaml.load(text, Loader=_Loader)
    except RecursionError:  # PyYAML composes nested collections recursively
        raise ConfigError(f"{source}: malformed YAML: collections nested too deeply") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"{source}, line {mark.line + 1}, column {mark.column + 1}" if mark is not None else source
        problem = getattr(error, "problem", None) or str(error)
        raise ConfigError(f"{where}: malformed YAML: {' '.join(str(problem).split())}") from None


def _config_dir() -> Path:
    """The shipped configs: package data of `snack_envs.training.configs` (the repository's configs/,
    which pyproject.toml maps to that package), found with importlib.resources wherever the package
    is: an editable install, a wheel in a venv, --user, --prefix."""
    root = resources.files("snack_envs.training.configs")
    if not isinstance(root, Path):  # a zipped import, which no pip install makes
        raise ImportError(f"snack_envs.training.configs is not a folder on disk ({root!r}): install snack-envs with pip")
    return root


CONFIG_DIR = _config_dir()
DEFAULT_CONFIG = CONFIG_DIR / "quickstart.yaml"


def _num(low=None, high=None, integer=False):
    """A number in [low, high]; with `integer`, a whole one, given as an int or an integral float (1e5)."""

    def check(key, value):
        kind = "an integer" if integer else "a number"
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            quoted = " (a string: write the number without quotes)" if isinstance(value, str) else ""
            raise ConfigError(f"{key}={value!r} must be {kind}{quoted}")
        if isinstance(value, float) and not math.isfinite(value):  # an int is finite; one past 1.8e308 has no float
            raise ConfigError(f"{key}={value!r} must be a finite number")
        if integer and isinstance(value, float):
            if not value.is_integer():
                raise ConfigError(f"{key}={value!r} must be an integer (a whole number, such as 100000 or 1e5)")
            value = int(value)
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
    whole = isinstance(value, list) and all(
        not isinstance(v, bool) and (isinstance(v, int) or isinstance(v, float) and v.is_integer()) and v > 0 for v in value)
    if not value or not whole:
        raise ConfigError(f"{key}={value!r} must be a non-empty list of positive integers")
    return [int(v) for v in value]


def _sizes(most: int, longest: int, limits: str):
    """A network's sizes: `_int_list`, at most `longest` entries of at most `most` each (`limits` says so in
    words); a network past these bounds asks for more memory than a machine has, and failed in torch."""

    def check(key, value):
        value = _int_list(key, value)
        if len(value) > longest:
            raise ConfigError(f"{key} has {len(value)} entries, too many: {limits}")
        if max(value) > most:
            raise ConfigError(f"{key}={value!r} is too large: {limits}")
        return value

    return check


# The bounds of a network's size: an MLP's hidden layers (algo.net_arch), the grid policy's channels per
# cell (algo.grid.channels) and its residual blocks, one per dilation (algo.grid.dilations).
NET_ARCH_MAX_WIDTH, NET_ARCH_MAX_LAYERS = 4096, 16
GRID_MAX_CHANNELS, GRID_MAX_DILATION, GRID_MAX_BLOCKS = 1024, 64, 16


def _seeds(key, value):
    """A non-empty list of seeds (integers from 0)."""
    if not isinstance(value, list) or not value or not all(
            not isinstance(v, bool) and (isinstance(v, int) or isinstance(v, float) and v.is_integer()) and 0 <= v < 2**31
            for v in value):
        raise ConfigError(f"{key}={value!r} must be a non-empty list of seeds (integers from 0 to 2**31 - 1)")
    return [int(v) for v in value]


def _keep_at(key, value):
    """`keep_at`: timesteps at which a run keeps a checkpoint (an empty list: none)."""
    return _int_list(key, value) if value != [] else []


def _players(key, value):
    """A player count, or a list of them (one policy trained on several counts: `num_players: [2, 3, 4]`)."""
    count = _num(1, 16, integer=True)
    if not isinstance(value, list):
        return count(key, value)
    counts = [count(f"{key}[{i}]", v) for i, v in enumerate(value)]
    if not counts or len(set(counts)) != len(counts):
        raise ConfigError(f"{key}={value!r} must be a player count or a non-empty list of distinct player counts")
    return counts


def _player_list(key, value):
    """A player count or a list of them, as a list."""
    counts = _players(key, value)
    return counts if isinstance(counts, list) else [counts]


def player_counts(config: dict[str, Any]) -> list[int]:
    """The player counts a run trains and evaluates on: `env.num_players` as a list."""
    n = config["env"]["num_players"]
    return list(n) if isinstance(n, list) else [n]


def _str_list(key, value):
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{key}={value!r} must be a list of strings")
    return value


def _stages(key, value):
    """`stages:` a non-empty list of partial configs (None: no stages), each checked against the schema."""
    if value is None:
        return None
    if not isinstance(value, list) or not value or not all(isinstance(stage, dict) for stage in value):
        raise ConfigError(f"{key} must be a non-empty list of mappings, one partial config per stage, not {value!r}")
    for i, stage in enumerate(value):
        for top in ("stages", "extends", "output_dir"):
            if top in stage:
                raise ConfigError(f"{key}[{i}].{top}: {top} is the whole recipe's, set at the top of the config, not in a stage")
        validate(stage, STAGE_SCHEMA, f"{key}[{i}].")
    return value


SCHEMA: dict[str, Any] = {
    "extends": _type(str, optional=True),
    "env": {
        "name": _type(str),
        "num_players": _players,
        "reward": _type(str),
        "options": _type(dict),
    },
    "seed": _num(0, 2**31 - 1, integer=True),
    "timesteps": _num(0, 10**9, integer=True),
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
        "net_arch": _sizes(NET_ARCH_MAX_WIDTH, NET_ARCH_MAX_LAYERS,
                           f"at most {NET_ARCH_MAX_LAYERS} hidden layers of at most {NET_ARCH_MAX_WIDTH:,} units each"),
        "policy": _choice("mlp", "grid"),
        "grid": {"channels": _num(1, GRID_MAX_CHANNELS, integer=True),
                 "dilations": _sizes(GRID_MAX_DILATION, GRID_MAX_BLOCKS,
                                     f"at most {GRID_MAX_BLOCKS} residual blocks of dilation at most {GRID_MAX_DILATION} each")},
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
        "teacher": _choice("heuristic", "search"),
        "games": _num(0, 10**7, integer=True),
        "epochs": _num(1, 1000, integer=True),
        "dagger_rounds": _num(0, 1000, integer=True),
        "dagger_games": _num(1, 10**7, integer=True),
        "dagger_epochs": _num(1, 1000, integer=True),
        "workers": _num(1, 256, integer=True),
        "search": {
            "samples": _num(1, 10**6, integer=True),
            "first": _num(1, 10**6, integer=True),
            "keep": _num(1, 10**6, integer=True),
            "objective": _choice("margin", "win"),
        },
    },
    "keep_at": _keep_at,
    "stages": _stages,
}
# What a stage of a recipe may set: any key but those of the whole recipe, and where it starts from.
STAGE_SCHEMA: dict[str, Any] = {
    **{k: v for k, v in SCHEMA.items() if k not in ("stages", "extends", "output_dir")},
    "start": {"stage": _num(1, 10**4, integer=True), "timesteps": _num(1, 10**9, integer=True)},
    "average": _int_list,
    "select": {
        "stage": _num(1, 10**4, integer=True),
        "at": _int_list,
        "against": _type(str),
        "players": _player_list,
        "games": _num(1, 10**6, integer=True),
        "seeds": _seeds,
    },
}
# The keys of a stage that say where its weights come from, not how it trains (`stage_configs` drops them).
STAGE_SOURCE_KEYS = ("start", "average", "select")
# The stages that train nothing: their weights are other stages' (averaged, or one picked).
NO_TRAINING = ("average", "select")
# Keys every stage of a recipe must share: a stage starts from the weights of the one before it.
SHARED_BY_STAGES = (("env", "name"), ("algo", "policy"), ("algo", "net_arch"), ("algo", "grid"))


def validate(config: dict[str, Any], schema: dict[str, Any] = SCHEMA, prefix: str = "") -> dict[str, Any]:
    """Check every key and value of `config` (or part of one) against the schema; integral floats of
    integer keys become ints, in place. Returns `config`."""
    if not isinstance(config, dict):
        raise ConfigError(f"{prefix.rstrip('.') or 'config'} must be a mapping, got {config!r}")
    for key, value in config.items():
        full = prefix + str(key)
        if key not in schema:
            close = difflib.get_close_matches(str(key), [str(k) for k in schema], n=1)
            hint = f" (did you mean {prefix + close[0]!r}?)" if close else ""
            raise ConfigError(f"unknown config key {full!r}{hint}; known keys here: {sorted(schema)}")
        rule = schema[key]
        if isinstance(rule, dict):
            validate(value, rule, full + ".")
        else:
            config[key] = rule(full, value)
    return config


def merge(base: dict, override: dict) -> dict:
    out = copy.deepcopy(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict) and key != "options":
            out[key] = merge(out[key], value)
        else:
            out[key] = copy.deepcopy(value)
    return out


def not_a_file(path: Path) -> str | None:
    """What `path` is when it is there but no regular file ("a folder", "a character device", "a named pipe", ...),
    following links; None for a regular file, and for nothing at all."""
    try:
        mode = path.stat().st_mode
    except (OSError, ValueError):
        return None
    kinds = ((stat.S_ISREG, None), (stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"),
             (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a named pipe"), (stat.S_ISSOCK, "a socket"))
    return next((kind for test, kind in kinds if test(mode)), "not a regular file")


def read_yaml(path: Path) -> dict:
    """One config file, parsed and validated (not merged); errors name the file."""
    if not path.is_file():
        kind = not_a_file(path)
        raise ConfigError(f"config file {path} is not a regular file: it is {kind}" if kind else f"config file {path} does not exist")
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"config file {path} cannot be read: {error}") from None
    data = yaml_load(text, str(path))
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: a config must be a mapping of keys to values, not {type(data).__name__}")
    try:
        return validate(data)
    except ConfigError as error:
        raise ConfigError(f"{path}: {error}") from None


def shipped_configs() -> list[str]:
    """The names of the shipped configs, for messages that list them."""
    return sorted(p.stem for p in CONFIG_DIR.glob("*.yaml"))


def find_config(name: str | Path, beside: Path | None = None) -> Path:
    """The config file `name` names: as a path (relative to the folder `beside`, the folder of the file
    that names it, else to the working directory), else a shipped config of that name ("base",
    "snack_wars.yaml"). A ConfigError listing where it looked when there is none, or naming what is there
    when it is no file (a folder "runs/snack_wars" is not taken for the shipped snack_wars)."""
    name = Path(name).expanduser()
    if not name.name:  # ".", "/": a folder, no file name to look for
        raise ConfigError(f"config {str(name)!r} is a folder: give a YAML file, or the name of a shipped config "
                          f"({shipped_configs()})")
    given = name if beside is None or name.is_absolute() else beside / name
    own = [given] if given.suffix else [given.with_name(given.name + ".yaml"), given]
    shipped = CONFIG_DIR / (name.name if name.suffix else name.name + ".yaml")
    for path in own:
        if path.is_file():
            return path
    # A path that is there but no file is named as such, not as missing, and not passed over for a shipped
    # config of the same name; only a bare name ("snack_wars") means the shipped config beside such a folder.
    bare = len(name.parts) == 1 and not name.suffix
    if shipped.is_file() and (bare or not any(map(not_a_file, own))):
        return shipped
    for path in [*own, shipped]:
        if kind := not_a_file(path):
            raise ConfigError(f"config file {str(name)!r} is not a regular file: {path} is {kind}; give a YAML file")
    raise ConfigError(f"config file {str(name)!r} not found (looked for {', '.join(str(p) for p in dict.fromkeys([*own, shipped]))}); "
                      f"shipped configs: {shipped_configs()}")


def recipe_name(name: str | Path | None) -> str:
    """How a run's metadata names the config it was loaded from (`--config name`): a shipped one as
    "configs/<name>.yaml" (the repository's configs/), a file of one's own by its path as given."""
    path = find_config(name) if name else DEFAULT_CONFIG
    if path.resolve().parent == CONFIG_DIR.resolve():
        return f"configs/{path.name}"
    return str(name)


def parse_override(text: str) -> dict:
    """'algo.learning_rate=1e-4' -> {'algo': {'learning_rate': 0.0001}}."""
    if "=" not in text:
        raise ConfigError(f"override {text!r} must look like key.sub=value")
    key, raw = text.split("=", 1)
    if not key.strip() or any(not part for part in key.strip().split(".")):
        raise ConfigError(f"override {text!r} must look like key.sub=value")
    value = yaml_load(raw, f"override {text!r}")
    out: dict = {}
    node = out
    parts = key.strip().split(".")
    for part in parts[:-1]:
        node = node.setdefault(part, {})
    node[parts[-1]] = value
    return out


def load_config(path: str | Path | None = None, overrides: list[str] | None = None) -> dict[str, Any]:
    """Load a config over its parent(s), apply overrides, and check it all (`check_config`)."""
    path = find_config(path) if path else DEFAULT_CONFIG
    chain, seen = [], set()
    while path is not None:
        if path.resolve() in seen:
            raise ConfigError(f"config 'extends' chain loops back to {path}")
        if len(chain) > 10:
            raise ConfigError(f"config 'extends' chain is longer than 11 files (at {path})")
        seen.add(path.resolve())
        data = read_yaml(path)
        chain.append(data)
        parent = data.get("extends", None if path.name == "base.yaml" else "base")
        try:
            path = find_config(parent, beside=path.parent) if parent else None
        except ConfigError as error:
            raise ConfigError(f"{path}: extends: {error}") from None
    config: dict = {}
    for data in reversed(chain):
        config = merge(config, data)
    for text in overrides or []:
        try:
            config = apply_override(config, text)
        except ConfigError as error:
            raise ConfigError(f"--set {text}: {error}") from None
    return check_config(config)


STAGE_OVERRIDE = re.compile(r"\s*stages\[(\d+)\]\.(.*)$", re.S)


def apply_override(config: dict, text: str) -> dict:
    """`config` with one `--set` applied: `key.sub=value` for the whole config (and every stage of a recipe;
    a key that a stage sets itself is refused, as ambiguous), `stages[i].key.sub=value` for stage i + 1 only."""
    stages = config.get("stages") or []
    if match := STAGE_OVERRIDE.match(text):
        i = int(match.group(1))
        if i >= len(stages):
            have = f"stages[0] to stages[{len(stages) - 1}]" if stages else "no stages"
            raise ConfigError(f"the config has {len(stages)} stage{'s' * (len(stages) != 1)} ({have})")
        part = validate(parse_override(match.group(2)), STAGE_SCHEMA, f"stages[{i}].")
        return merge(config, {"stages": [merge(stage, part) if j == i else stage for j, stage in enumerate(stages)]})
    part = validate(parse_override(text))
    if "extends" in part:  # the chain of files is read before the overrides, so this would change nothing
        raise ConfigError("extends names a config file's parent and is read from the files: write it in the "
                          "config, or give the parent itself as --config")
    if stages and "stages" not in part:
        for path in _leaves(part):
            setters = [f"stages[{i}]" for i, stage in enumerate(stages) if any(_nested(path, q) for q in _leaves(stage))]
            if setters:
                key = ".".join(path)
                raise ConfigError(f"{', '.join(setters)} set{'s' * (len(setters) == 1)} {key} itself, so this would not "
                                  f"change {'it' if len(setters) == 1 else 'them'}: set it for one stage with "
                                  f"--set {setters[0]}.{key}=...")
    return merge(config, part)


def _leaves(config: dict, prefix: tuple = ()) -> list[tuple]:
    """The key paths of a (partial) config's values, as `merge` sets them (`env.options` whole)."""
    out = []
    for key, value in config.items():
        if isinstance(value, dict) and key != "options":  # an empty mapping sets nothing (merge keeps what is there)
            out += _leaves(value, prefix + (key,))
        else:
            out.append(prefix + (key,))
    return out


def _nested(a: tuple, b: tuple) -> bool:
    return a[:len(b)] == b or b[:len(a)] == a


def stage_configs(config: dict[str, Any]) -> list[dict[str, Any]]:
    """The whole config of each stage of a recipe (`stages:`), in order; `[config]` for a config without.
    Stage k > 1 imitates only where it sets `imitation.games` or `imitation.dagger_rounds`, and starts from
    the weights `stage_source` names: its `init_from` is None here, set by the recipe's run (training/recipe.py). A stage
    that a later one starts from at S timesteps (`start: {stage, timesteps: S}`) has S in its `keep_at`."""
    base = {key: value for key, value in config.items() if key != "stages"}
    if not config.get("stages"):
        return [copy.deepcopy(base)]
    out = []
    for i, stage in enumerate(config["stages"]):
        full = merge(base, {k: v for k, v in stage.items() if k not in STAGE_SOURCE_KEYS})
        picked_from = (stage.get("select") or {}).get("stage", 0)
        if 1 <= picked_from <= len(out):  # a selection plays what its source stage trained: that stage's config
            full = {k: v for k, v in copy.deepcopy(out[picked_from - 1]).items() if k != "keep_at"}
        if i > 0:
            full["init_from"] = None
            if not {"games", "dagger_rounds"} & set(stage.get("imitation") or {}):
                full.setdefault("imitation", {}).update(games=0, dagger_rounds=0)
        out.append(full)
    for stage in config["stages"]:
        start, select = stage.get("start") or {}, stage.get("select") or {}
        for source_stage, kept in ((start.get("stage", 0), [start.get("timesteps")]), (select.get("stage", 0), select.get("at", []))):
            kept = [at for at in kept if at]
            if kept and 1 <= source_stage <= len(out):
                source = out[source_stage - 1]
                source["keep_at"] = sorted({*source.get("keep_at", []), *kept})
    return out


def stage_source(config: dict[str, Any], k: int) -> dict[str, Any]:
    """Where stage k (from 1) of a recipe gets its starting weights: {"stage": j} (stage j's final weights;
    stage k - 1's unless it says otherwise), {"stage": j, "timesteps": S} (stage j's at S timesteps),
    {"average": [j, ...]} (those stages' final weights averaged; it trains nothing), {"select": {...}} (one of
    stage j's checkpoints, picked by matches; it trains nothing), {} for stage 1."""
    stage = config["stages"][k - 1]
    if stage.get("average"):
        return {"average": list(stage["average"])}
    if stage.get("select"):
        return {"select": dict(stage["select"])}
    if stage.get("start"):
        return dict(stage["start"])
    return {"stage": k - 1} if k > 1 else {}


def load_run_config(run_dir: str | Path) -> dict[str, Any]:
    """The config.json of the training run in `run_dir`, checked as a fresh load is (for --resume)."""
    path = Path(run_dir) / "config.json"
    if not path.is_file():
        raise ConfigError(f"{run_dir} holds no training run ({path} does not exist)")
    return check_config(read_run_json(path, "a run's config"), source=path, resume=True)


def read_run_json(path: Path, what: str, needs: tuple[str, ...] = (), whole: tuple[str, ...] = (),
                  numbers: tuple[str, ...] = ()) -> dict:
    """One of a run's JSON files (config.json, state.json, a checkpoint's metadata, ...), which is `what`
    ("a run's state", ...): a mapping holding the keys `needs`, those of `whole` whole numbers and those of
    `numbers` numbers. A file edited or damaged into anything else (not JSON, not a mapping, a key missing or
    no number) is a ConfigError naming it."""
    try:
        data = json.loads(Path(path).read_text())
    except json.JSONDecodeError as error:
        raise ConfigError(f"{path}, line {error.lineno}: not valid JSON: {error.msg}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path} is not {what}: a mapping expected, not {type(data).__name__}")
    missing = [key for key in (*needs, *whole, *numbers) if key not in data]
    if missing:
        raise ConfigError(f"{path} is not {what}: it lacks {', '.join(missing)}")
    for key in whole:
        if isinstance(data[key], bool) or not isinstance(data[key], int):
            raise ConfigError(f"{path} is not {what}: its {key} are not a whole number")
    for key in numbers:
        if isinstance(data[key], bool) or not isinstance(data[key], (int, float)):
            raise ConfigError(f"{path} is not {what}: its {key} are not a number")
    return data


def check_config(config: dict[str, Any], source: str | Path | None = None, resume: bool = False) -> dict[str, Any]:
    """Check a whole config, as loaded or as a run's config.json: every key, type and range, that none
    is missing, the rules across keys, the game and its options, every policy name and checkpoint path.
    Returns a checked copy (integral floats of integer keys made ints); errors name `source` if given.
    With `resume`, `init_from` (used only when the run started) need no longer exist."""
    try:
        return _check(copy.deepcopy(config), resume)
    except ConfigError as error:
        raise ConfigError(f"{source}: {error}" if source else str(error)) from None


def _check(config: dict[str, Any], resume: bool) -> dict[str, Any]:
    if not isinstance(config, dict):
        raise ConfigError(f"a config must be a mapping of keys to values, not {type(config).__name__}")
    validate(config)
    config.pop("extends", None)
    if config.get("stages") is None:
        config.pop("stages", None)  # `stages: null`: a config of one run, as if it had none
        return _check_run(config, resume)
    stages = stage_configs(config)
    previous = None
    for i, stage in enumerate(stages):
        try:
            if i > 0:
                for section, key in SHARED_BY_STAGES:
                    ours, theirs = stage.get(section, {}).get(key), previous.get(section, {}).get(key)
                    if ours != theirs:
                        raise ConfigError(f"{section}.{key}={ours!r} is not stage {i}'s {theirs!r}: a stage starts from "
                                          f"the weights of one before it, so {', '.join('.'.join(k) for k in SHARED_BY_STAGES)} "
                                          f"stay the same in every stage")
                if config["stages"][i].get("init_from") is not None:
                    raise ConfigError("init_from: a stage after the first starts from the weights of one before it "
                                      "(start: {stage: K} to choose which); only stage 1 (stages[0]) may set init_from")
            _check_source(config["stages"], i, stages)
            _check_run(stage, resume)
        except ConfigError as error:
            raise ConfigError(f"stages[{i}] (stage {i + 1}): {error}") from None
        previous = stage
    return config


def _check_source(raw: list[dict], i: int, stages: list[dict]) -> None:
    """Check stage i + 1's `start`, `average` or `select` (see `stage_source`) against the stages before it."""
    stage = raw[i]
    given = [key for key in STAGE_SOURCE_KEYS if stage.get(key) is not None]
    if len(given) > 1:
        raise ConfigError(f"{' and '.join(given)}: a stage either trains from one stage's weights (start), averages "
                          f"several (average) or picks one of a stage's checkpoints (select), not more than one")
    if i == 0 and given:
        raise ConfigError(f"{given[0]} names earlier stages; stage 1 has none (init_from starts it from a checkpoint)")
    if stage.get("start") is not None:
        start = stage["start"]
        if "stage" not in start:
            raise ConfigError(f"start={start!r} must name a stage: start: {{stage: K}} or {{stage: K, timesteps: S}}")
        if not 1 <= start["stage"] <= i:
            raise ConfigError(f"start.stage={start['stage']} must be an earlier stage (1 to {i})")
        if "timesteps" in start:
            source = raw[start["stage"] - 1]
            if any(source.get(key) is not None for key in NO_TRAINING):
                raise ConfigError(f"start.timesteps: stage {start['stage']} trains nothing, so it has only its final "
                                  f"weights (drop start.timesteps)")
            if start["timesteps"] >= stages[start["stage"] - 1]["timesteps"]:
                raise ConfigError(f"start.timesteps={start['timesteps']} must be below stage {start['stage']}'s timesteps "
                                  f"({stages[start['stage'] - 1]['timesteps']}); for its final weights, drop start.timesteps")
    if stage.get("average") is not None:
        sources = stage["average"]
        if len(set(sources)) < 2 or len(set(sources)) != len(sources) or not all(1 <= j <= i for j in sources):
            raise ConfigError(f"average={sources!r} must name two or more distinct earlier stages (1 to {i})")
        if set(stage) != {"average"}:
            raise ConfigError(f"a stage that averages weights trains nothing, so it sets average alone, not "
                              f"{sorted(set(stage) - {'average'})}")
    if stage.get("select") is not None:
        _check_select(stage, i, raw, stages)


def _check_select(stage: dict, i: int, raw: list[dict], stages: list[dict]) -> None:
    """Check stage i + 1's `select` (training/recipe.py's `select_stage`) against the stage it picks from."""
    select = stage["select"]
    if set(stage) != {"select"}:
        raise ConfigError(f"a stage that selects a checkpoint trains nothing, so it sets select alone, not "
                          f"{sorted(set(stage) - {'select'})}")
    missing = [key for key in STAGE_SCHEMA["select"] if key not in select]
    if missing:
        raise ConfigError(f"select is missing {missing}: select: {{stage: K, at: [timesteps, ...], against: <policy>, "
                          f"players: [counts], games: N, seeds: [seeds]}}")
    if not 1 <= select["stage"] <= i:
        raise ConfigError(f"select.stage={select['stage']} must be an earlier stage (1 to {i})")
    if any(raw[select["stage"] - 1].get(key) is not None for key in NO_TRAINING):
        raise ConfigError(f"select.stage: stage {select['stage']} trains nothing, so it has only its final weights to pick from")
    source = stages[select["stage"] - 1]
    if any(at >= source["timesteps"] for at in select["at"]):
        raise ConfigError(f"select.at={select['at']!r}: each must be below stage {select['stage']}'s timesteps "
                          f"({source['timesteps']}); its final weights are always a candidate")
    counts = select["players"]
    if 1 in counts:
        raise ConfigError(f"select.players={select['players']!r}: a pick plays matches against select.against, and "
                          f"solo (1 player) has no opponent")
    if not set(counts) <= set(player_counts(source)):
        raise ConfigError(f"select.players={select['players']!r}: stage {select['stage']} trains on "
                          f"{player_counts(source)} players only")
    _check_policy("select.against", select["against"], {**source, "env": {**source["env"], "num_players": counts}})


def _check_run(config: dict[str, Any], resume: bool) -> dict[str, Any]:
    """Check the whole config of one run (validated already)."""
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
    _check_policies(config)
    imitation = config.get("imitation") or {}
    if imitation.get("teacher") == "search":
        from snack_envs.search import SearchPolicy

        try:  # builds the teacher once, for its checks of the game and the budget
            SearchPolicy(config["env"]["name"], player_counts(config)[0], 0, **imitation.get("search", {}),
                         **config["env"].get("options", {}))
        except ConfigError as error:
            raise ConfigError(f"imitation.teacher=search: {error}") from None
    elif imitation.get("search"):
        raise ConfigError("imitation.search sets the search teacher's budget: it needs imitation.teacher=search")
    if config.get("init_from") and not resume:
        _check_init_from(config)
    return config


def grid_spec(env_name: str) -> dict | None:
    """The game's map layout for `algo.policy: grid` (its observation module's GRID), or None."""
    return getattr(specs.get(env_name).module("observation"), "GRID", None)


def grid_size(algo: dict) -> dict:
    """The size of `algo.policy: grid`'s network: `algo.grid` over GridPolicy's defaults (a config
    written before algo.grid existed has none). Imports torch: for grid configs only."""
    from snack_envs.networks import GRID_DEFAULTS

    return {**GRID_DEFAULTS, **(algo.get("grid") or {})}


def _required(config):
    for key, rule in SCHEMA.items():
        if key in ("extends", "init_from", "stages", "keep_at"):
            continue
        if key not in config:
            yield "", key
        elif isinstance(rule, dict):
            for sub in rule:
                if sub not in config[key] and sub not in ("options", "vf_coef", "max_grad_norm", "policy", "grid", "final_games",
                                                          "teacher", "workers", "search"):
                    yield key, sub


def _check_env(env_cfg: dict) -> None:
    """Build the env once per player count so that a bad game option or player count fails at load time."""
    if env_cfg["name"] not in specs.ENV_NAMES:
        raise ConfigError(f"env.name={env_cfg['name']!r} is not one of {list(specs.ENV_NAMES)}")
    options = env_cfg.get("options", {})
    for key in ("num_players", "reward"):
        if key in options:
            raise ConfigError(f"env.options.{key}: set env.{key} instead (the options are the game's own keywords)")
    if "render_mode" in options:
        raise ConfigError("env.options.render_mode: training and evaluation draw nothing; leave it out")
    try:
        for n in player_counts({"env": env_cfg}):
            specs.get(env_cfg["name"]).raw_env(num_players=n, reward=env_cfg["reward"], **options)
    except ConfigError as error:
        raise ConfigError(f"env: {error}") from None
    except (TypeError, ValueError) as error:  # an option the game does not take, or a value it refuses
        raise ConfigError(f"env.options={options!r}: {error}") from None


def _check_policy(key: str, spec: str, config: dict) -> None:
    """Build the policy `spec` names (a bot's name or a checkpoint's path) at each of the config's player counts,
    so that a misspelt name or a checkpoint that does not fit fails now."""
    from snack_envs.agents import POLICY_NAMES, make_policy
    from snack_envs.checkpoints import CheckpointError

    env_cfg = config["env"]
    path = Path(spec).expanduser()
    if spec not in POLICY_NAMES and not (spec.endswith(".zip") or path.exists() or "/" in spec):
        close = difflib.get_close_matches(spec, POLICY_NAMES, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ConfigError(f"{key}={spec!r} is no policy{hint}: use one of {', '.join(map(repr, POLICY_NAMES))} or the path of a checkpoint")
    if spec not in POLICY_NAMES and not path.exists():
        raise ConfigError(f"{key}={spec!r}: no checkpoint at {path}")
    try:
        for n in player_counts(config):
            make_policy(spec, env_cfg["name"], n, seed=0, **env_cfg.get("options", {}))
    except (ConfigError, CheckpointError, ValueError, TypeError, KeyError, OSError) as error:
        raise ConfigError(f"{key}={spec!r}: {error}") from None


def _check_policies(config: dict) -> None:
    """Build each policy `eval.opponents` names, and the heuristic if the opponents draw it, so that a
    misspelt name or a checkpoint that does not fit fails now, not at the first evaluation."""
    from snack_envs.agents import make_policy

    env_cfg = config["env"]
    specs_seen = set()
    for i, spec in enumerate(config["eval"]["opponents"]):
        key = f"eval.opponents[{i}]"
        if spec in specs_seen:
            raise ConfigError(f"{key}={spec!r} is listed twice in eval.opponents")
        specs_seen.add(spec)
        _check_policy(key, spec, config)
    if config["opponents"]["heuristic"] > 0 and "heuristic" not in specs_seen:
        try:
            for n in player_counts(config):
                make_policy("heuristic", env_cfg["name"], n, **env_cfg.get("options", {}))
        except (ConfigError, ValueError, TypeError) as error:
            raise ConfigError(f"opponents.heuristic: {error}") from None


def _check_init_from(config: dict) -> None:
    """`init_from`: a checkpoint with metadata, for this game, of this network. It may have been trained
    for other player counts than this run's: a game's observations and actions have one size at every count."""
    from snack_envs.checkpoints import CheckpointError, check_fits, check_network, env_facts, read_metadata

    path = Path(config["init_from"]).expanduser()
    if not path.is_file():
        where = "" if path.is_absolute() else f" (a relative path is read from the current folder, {Path.cwd()})"
        raise ConfigError(f"init_from={config['init_from']!r}: no checkpoint at {path}{where}")
    try:
        meta = read_metadata(path)
        facts = check_fits(meta, config["env"]["name"], None)
        ours = env_facts(config["env"]["name"], player_counts(config)[0], config["env"].get("options"))
        check_network(facts["observation_size"], facts["num_actions"], ours)
    except (CheckpointError, KeyError, ValueError) as error:
        raise ConfigError(f"init_from={config['init_from']!r}: {error}") from None
    algo, theirs = config["algo"], (meta.get("config") or {}).get("algo")
    if theirs:  # the network it was trained with, where its metadata says
        ours_kind, their_kind = algo.get("policy", "mlp"), theirs.get("policy", "mlp")
        if ours_kind != their_kind or ours_kind == "mlp" and list(algo["net_arch"]) != list(theirs.get("net_arch", [])):
            raise ConfigError(f"init_from={config['init_from']!r}: its network (policy {their_kind}, net_arch "
                              f"{theirs.get('net_arch')}) is not algo.policy={ours_kind}, algo.net_arch={algo['net_arch']}")
        if ours_kind == "grid" and grid_size(algo) != grid_size(theirs):
            raise ConfigError(f"init_from={config['init_from']!r}: its grid network ({grid_size(theirs)}) is not "
                              f"algo.grid={grid_size(algo)}")
