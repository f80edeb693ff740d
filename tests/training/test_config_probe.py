"""Cases found by a mutation probe of training/config.py that the other config tests (test_config_edges.py,
test_config_validation.py, test_recipes.py, ...) did not pin down: the range of every numeric setting, of a
run and of a recipe's stage (each end is taken, a value just past either is refused naming the range), which
of them take only whole numbers (an integral float becomes an int, a fraction is refused), an unknown game, a
run's config.json that is no mapping, an override without `=`, `vec_env: batched` for a game without a batched
engine, opponent weights all 0, and a run's JSON file whose number is a string or a bool. Every bad input must
be a ConfigError naming the key; nothing here trains or plays a game."""

from __future__ import annotations

import json
import re

import pytest

from snack_envs.core.game import ConfigError
from snack_envs.training.config import STAGE_SCHEMA, check_config, load_config, read_run_json, validate

# (dotted key, low, high) of each numeric setting, as a config of one run (SCHEMA) or a stage (STAGE_SCHEMA) sets it.
RANGES = [
    ("seed", 0, 2**31 - 1), ("timesteps", 0, 10**9), ("n_envs", 1, 256), ("torch_threads", 1, 64),
    ("algo.learning_rate", 0, 1), ("algo.n_steps", 8, 10**6), ("algo.batch_size", 8, 10**6), ("algo.n_epochs", 1, 100),
    ("algo.gamma", 0, 1), ("algo.gae_lambda", 0, 1), ("algo.ent_coef", 0, 1), ("algo.vf_coef", 0, 10),
    ("algo.clip_range", 0, 1), ("algo.max_grad_norm", 0, 100), ("algo.grid.channels", 1, 1024),
    ("opponents.random", 0, 1), ("opponents.heuristic", 0, 1), ("opponents.self", 0, 1),
    ("opponents.snapshot_every", 1, 10**9), ("opponents.max_snapshots", 1, 1000),
    ("eval.every", 1, 10**9), ("eval.games", 1, 10**6), ("eval.final_games", 1, 10**6),
    ("imitation.games", 0, 10**7), ("imitation.epochs", 1, 1000), ("imitation.dagger_rounds", 0, 1000),
    ("imitation.dagger_games", 1, 10**7), ("imitation.dagger_epochs", 1, 1000), ("imitation.workers", 1, 256),
    ("imitation.search.samples", 1, 10**6), ("imitation.search.first", 1, 10**6), ("imitation.search.keep", 1, 10**6),
    ("env.num_players", 1, 16),
    ("start.stage", 1, 10**4), ("start.timesteps", 1, 10**9), ("select.stage", 1, 10**4), ("select.games", 1, 10**6),
]


def nested(key: str, value) -> dict:
    """{"a": {"b": value}} for key "a.b"."""
    out = value
    for part in reversed(key.split(".")):
        out = {part: out}
    return out


def leaf(config: dict, key: str):
    for part in key.split("."):
        config = config[part]
    return config


@pytest.mark.parametrize("key, low, high", RANGES, ids=[key for key, _, _ in RANGES])
def test_each_numeric_setting_takes_its_ends_and_refuses_a_value_past_either_naming_its_range(key, low, high):
    for value in (low, high):
        assert leaf(validate(nested(key, value), STAGE_SCHEMA), key) == value
    for value in (low - 1, high + 1):
        with pytest.raises(ConfigError, match=re.escape(f"{key}={value!r} is out of range [{low}, {high}]")):
            validate(nested(key, value), STAGE_SCHEMA)


# The settings that take a fraction; every other one of RANGES is a whole number.
FRACTIONAL = {"algo.learning_rate", "algo.gamma", "algo.gae_lambda", "algo.ent_coef", "algo.vf_coef", "algo.clip_range",
              "algo.max_grad_norm", "opponents.random", "opponents.heuristic", "opponents.self"}


@pytest.mark.parametrize("key, low, high", RANGES, ids=[key for key, _, _ in RANGES])
def test_a_whole_number_setting_takes_an_integral_float_as_an_int_and_refuses_a_fraction(key, low, high):
    taken = leaf(validate(nested(key, float(high)), STAGE_SCHEMA), key)
    half = low + 0.5
    if key in FRACTIONAL:
        assert (taken, type(taken)) == (high, float)
        assert leaf(validate(nested(key, half), STAGE_SCHEMA), key) == half
    else:
        assert (taken, type(taken)) == (high, int)
        message = f"{key}={half!r} must be an integer (a whole number, such as 100000 or 1e5)"
        with pytest.raises(ConfigError, match=re.escape(message)):
            validate(nested(key, half), STAGE_SCHEMA)


def test_an_unknown_game_is_a_config_error_listing_the_games():
    with pytest.raises(ConfigError, match=re.escape("env.name='snack_wars' is not one of [")) as error:
        load_config(None, ["env.name=snack_wars"])
    assert "'snack_wars_v0'" in str(error.value)


def test_a_runs_config_that_is_not_a_mapping_is_refused_naming_its_source_and_type():
    with pytest.raises(ConfigError, match=re.escape("run/config.json: a config must be a mapping of keys to values, not list")):
        check_config([1], source="run/config.json")


@pytest.mark.parametrize("text", ["seed", "algo.gamma:0.9"])
def test_an_override_without_an_equals_sign_is_refused_saying_how_one_looks(text):
    with pytest.raises(ConfigError, match=re.escape(f"--set {text}: override {text!r} must look like key.sub=value")):
        load_config(None, [text])


def test_vec_env_batched_is_refused_for_a_game_without_a_batched_engine_and_the_others_are_not(monkeypatch):
    """Every shipped game has a batched engine: a spec patched to have none stands for a game added without one."""
    import dataclasses

    from snack_envs import specs

    real_get = specs.get
    monkeypatch.setattr(specs, "get", lambda name: dataclasses.replace(real_get(name), batched=False))
    message = "vec_env=batched: snack_rabbits_v0 has no batched engine yet (use dummy or subproc)"
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_config("quickstart", ["vec_env=batched"])
    for vec_env in ("dummy", "subproc"):
        assert load_config("quickstart", [f"vec_env={vec_env}"])["vec_env"] == vec_env


def test_opponent_weights_that_are_all_zero_are_refused_and_one_above_zero_is_enough():
    with pytest.raises(ConfigError, match=re.escape("opponents: the random, heuristic and self weights must not all be 0")):
        load_config(None, ["opponents={random: 0, heuristic: 0, self: 0}"])
    assert load_config(None, ["opponents={random: 0, heuristic: 0, self: 0.01}"])["opponents"]["self"] == 0.01


@pytest.mark.parametrize("meta, message", [
    ({"timesteps": 10, "wall_time_s": "1.5"}, "its wall_time_s are not a number"),
    ({"timesteps": 10, "wall_time_s": True}, "its wall_time_s are not a number"),
    ({"timesteps": 10.0, "wall_time_s": 1.5}, "its timesteps are not a whole number"),
    ({"timesteps": False, "wall_time_s": 1.5}, "its timesteps are not a whole number"),
    ({"timesteps": 10, "wall_time_s": 2}, None),
])
def test_a_runs_json_file_names_a_key_that_is_no_number_or_no_whole_number(meta, message, tmp_path):
    """read_run_json's `numbers` and `whole`, as for a checkpoint's metadata: a bool is neither."""
    path = tmp_path / "meta.json"
    path.write_text(json.dumps(meta))

    def read():
        return read_run_json(path, "a checkpoint's metadata", whole=("timesteps",), numbers=("wall_time_s",))

    if message is None:
        assert read() == meta
    else:
        with pytest.raises(ConfigError, match=re.escape(f"{path} is not a checkpoint's metadata: {message}")):
            read()
