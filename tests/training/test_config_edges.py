"""Edges of training/config.py that a mutation probe found no test for: the value checks of each kind of
setting (booleans are not numbers, lists must be lists, the largest seed and player count), optional and
required strings, malformed YAML, `extends` chains, `--set` parsing, a recipe's stages and overrides, the
checks of policies and of init_from's network, and a run's config.json. Each bad input must be a
ConfigError that names the key, never a traceback nor a value let through."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from snack_envs.core.game import ConfigError
from snack_envs.training.config import (
    CONFIG_DIR, STAGE_SCHEMA, check_config, find_config, load_config, load_run_config, stage_configs, validate, yaml_load,
)
from tests.helpers import CHECKPOINTS, recipe_of


def refused(overrides: list[str], message: str, path=None) -> None:
    """load_config(path, overrides) raises a ConfigError whose text holds `message`."""
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_config(path, overrides)


def recipe(tmp_path: Path, stage: str) -> Path:
    """A two-stage recipe over quickstart whose second stage is `stage` (YAML flow mapping)."""
    path = tmp_path / "recipe.yaml"
    path.write_text(f"extends: quickstart\nstages:\n  - {{}}\n  - {stage}\n")
    return path


# --- numbers: booleans are not numbers -------------------------------------------------------------------
@pytest.mark.parametrize("override, message", [
    ("seed=true", "seed=True must be an integer"),
    ("algo.gamma=false", "algo.gamma=False must be a number"),
])
def test_a_boolean_is_not_a_number(override, message):
    refused([override], message)


@pytest.mark.parametrize("text, value", [("010", 10), ("-010", -10), ("1_000_000", 1_000_000), ("0x1f", 31), ("0o17", 15),
                                         ("1e5", 1e5), ("1.0e-4", 1e-4), (".5", 0.5), ("1.", 1.0), ("1:30", "1:30"),
                                         ("0b101", "0b101"), ("[1, 010]", [1, 10])])
def test_numbers_are_read_as_yaml_1_2_reads_them(text, value):
    """YAML 1.1 (PyYAML's own) read `010` as octal 8 and `1:30` as base-60 90: a seed or a count written so was
    another number without a word. Now `010` is ten and `1:30` a string, which a number's check refuses."""
    assert yaml_load(text, "x") == value and type(yaml_load(text, "x")) is type(value)


def test_a_count_written_in_base_60_is_refused_not_read_as_seconds():
    refused(["timesteps=1:30"], "timesteps='1:30' must be an integer (a string: write the number without quotes)")
    assert load_config(None, ["seed=010"])["seed"] == 10


@pytest.mark.parametrize("text", ["2026-12-07", "2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10 -5"])
def test_a_date_is_a_string_as_in_yaml_1_2(text):
    """YAML 1.1 read dates as datetime objects, so a run folder named for its day was refused from a file
    and from `--set` alike ("output_dir=datetime.date(2026, 12, 7) must be of type str"); no key takes a date."""
    assert yaml_load(text, "x") == text
    assert load_config(None, [f"output_dir={text}"])["output_dir"] == text
    refused([f"seed={text}"], f"seed='{text}' must be an integer")


HUGE = "9" * 400  # an integer past the largest float (about 1.8e308)


@pytest.mark.parametrize("override, key", [(f"seed={HUGE}", "seed"), (f"algo.gamma={HUGE}", "algo.gamma"),
                                           (f"env.num_players=[{HUGE}]", "env.num_players[0]"),
                                           (f"imitation.games=-{HUGE}", "imitation.games")])
def test_an_integer_too_large_for_a_float_is_out_of_range_not_an_overflow(override, key):
    """math.isfinite and float() of such an int raised OverflowError, a traceback naming no key."""
    refused([override], f"--set {override}: {key}=")


def test_select_seeds_too_large_for_a_float_are_refused_naming_the_key():
    with pytest.raises(ConfigError, match=r"select\.seeds=.* must be a non-empty list of seeds"):
        validate({"select": {"seeds": [int(HUGE)]}}, STAGE_SCHEMA)


@pytest.mark.parametrize("parent", ["snack_wars", "no_such_config_anywhere", "null"])
def test_set_extends_is_refused_since_the_files_are_read_before_the_overrides(parent, tmp_path):
    """It was checked as a string and merged after the chain of files was read, then dropped: a run of the
    config's own parent, the override without effect."""
    own = tmp_path / "own.yaml"
    own.write_text("timesteps: 1000\n")
    refused([f"extends={parent}"], "extends names a config file's parent and is read from the files", own)


# --- strings: optional ones take null, required ones do not, neither takes another type -------------------
@pytest.mark.parametrize("override, message", [
    ("output_dir=null", "output_dir=None must be of type str"),
    ("env.name=null", "env.name=None must be of type str"),
    ("init_from=5", "init_from=5 must be of type str"),
    ("extends=5", "extends=5 must be of type str"),
])
def test_a_string_setting_refuses_another_type_and_only_an_optional_one_takes_null(override, message):
    refused([override], message)


def test_an_optional_string_setting_takes_null():
    assert load_config(None, ["init_from=null"])["init_from"] is None


# --- lists of positive integers ----------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["64", "[]", "[true]", "[a]", "[0]", "{64: 1}"])
def test_net_arch_must_be_a_non_empty_list_of_positive_integers(value):
    refused([f"algo.net_arch={value}"], "must be a non-empty list of positive integers")


# --- a network's size: bounded, so that a typo is refused on load, not a torch allocation failure ---------------
@pytest.mark.parametrize("override, message", [
    ("algo.net_arch=[100000000]", "algo.net_arch=[100000000] is too large: at most 16 hidden layers of at most 4,096 units each"),
    ("algo.net_arch=[64, 4097]", "algo.net_arch=[64, 4097] is too large: at most 16 hidden layers of at most 4,096 units each"),
    ("algo.net_arch=[" + ", ".join(["8"] * 17) + "]",
     "algo.net_arch has 17 entries, too many: at most 16 hidden layers of at most 4,096 units each"),
    ("algo.grid.dilations=[1, 65]", "algo.grid.dilations=[1, 65] is too large: at most 16 residual blocks of dilation at most 64 each"),
    ("algo.grid.dilations=[" + ", ".join(["1"] * 17) + "]",
     "algo.grid.dilations has 17 entries, too many: at most 16 residual blocks of dilation at most 64 each"),
    ("algo.grid.channels=1025", "algo.grid.channels=1025 is out of range [1, 1024]"),
], ids=["width", "second-width", "layers", "dilation", "blocks", "channels"])
def test_a_network_past_its_documented_bounds_is_refused_naming_them(override, message):
    """algo.net_arch=[100000000] was taken and died in torch (can't allocate 34 GB); dilations had no bound either."""
    refused([override], message)


def test_a_network_at_its_bounds_loads():
    config = load_config(None, ["algo.net_arch=[" + ", ".join(["4096"] * 16) + "]", "algo.grid.channels=1024",
                                "algo.grid.dilations=[" + ", ".join(["64"] * 16) + "]"])
    assert config["algo"]["net_arch"] == [4096] * 16 and config["algo"]["grid"] == {"channels": 1024, "dilations": [64] * 16}


# --- sections: a section of the schema must be a mapping -------------------------------------------------------
@pytest.mark.parametrize("override, message", [
    ("algo=5", "algo must be a mapping, got 5"),
    ("algo.grid=[1]", "algo.grid must be a mapping, got [1]"),
    ("stages=[{}, {algo: 3}]", "stages[1].algo must be a mapping, got 3"),
])
def test_a_section_given_as_a_plain_value_is_refused_naming_it(override, message):
    refused([override], message)


def test_validate_names_the_whole_config_when_it_is_not_a_mapping():
    with pytest.raises(ConfigError, match=re.escape("config must be a mapping, got 5")):
        validate(5)


# --- merging: env.options is replaced whole, by a child config and by --set ------------------------------------
def test_game_options_are_replaced_whole_not_merged(tmp_path):
    parent = tmp_path / "parent.yaml"
    parent.write_text("env:\n  options: {suns_per_fence: 3}\n")
    child = tmp_path / "child.yaml"
    child.write_text("extends: parent\nenv:\n  options: {max_steps: 100}\n")
    assert load_config(parent)["env"]["options"] == {"suns_per_fence": 3}
    assert load_config(child)["env"]["options"] == {"max_steps": 100}
    assert load_config(parent, ["env.options={max_steps: 50}"])["env"]["options"] == {"max_steps": 50}


# --- lists of strings: eval.opponents -------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["random", "[1]", "[random, 2]"])
def test_eval_opponents_must_be_a_list_of_strings(value):
    refused([f"eval.opponents={value}"], "must be a list of strings")


# --- stages: a non-empty list of mappings, none setting a key of the whole recipe --------------------------------
@pytest.mark.parametrize("value", ["5", "[]", "[1]", "[{}, 2]", "{a: 1}"])
def test_stages_must_be_a_non_empty_list_of_mappings(value):
    refused([f"stages={value}"], "stages must be a non-empty list of mappings, one partial config per stage")


@pytest.mark.parametrize("key", ["output_dir: x", "extends: base", "stages: [{}]"])
def test_a_stage_may_not_set_a_key_of_the_whole_recipe(tmp_path, key):
    top = key.split(":")[0]
    refused([], f"stages[1].{top}: {top} is the whole recipe's, set at the top of the config, not in a stage",
            recipe(tmp_path, f"{{{key}}}"))


# --- a select stage's seeds ----------------------------------------------------------------------------------
@pytest.mark.parametrize("seeds", ["5", "[]", "[true]", "[a]", "[1.5]", "[-1]", "[2147483648]"])
def test_a_select_stages_seeds_must_be_a_non_empty_list_of_seeds(tmp_path, seeds):
    path = recipe(tmp_path, f"{{select: {{seeds: {seeds}}}}}")
    refused([], "stages[1].select.seeds=", path)
    refused([], "must be a non-empty list of seeds (integers from 0 to 2**31 - 1)", path)


def test_a_select_stage_takes_the_largest_seed(tmp_path):
    path = recipe(tmp_path, "{select: {stage: 1, at: [100], against: random, players: [2], games: 2, seeds: [0, 2147483647]}}")
    path.write_text(path.read_text().replace("  - {}\n", "  - {timesteps: 300}\n"))
    config = load_config(path)
    assert config["stages"][1]["select"]["seeds"] == [0, 2**31 - 1]


# --- player counts: from 1 to 16 for the schema, then the game's own range ---------------------------------------
@pytest.mark.parametrize("value, message", [
    ("17", "env.num_players=17 is out of range [1, 16]"),
    ("[2, 17]", "env.num_players[1]=17 is out of range [1, 16]"),
    ("16", "env: snack_rabbits is played by 2 to 4 players, got num_players=16"),
])
def test_a_player_count_is_checked_against_the_schemas_range_then_the_games(value, message):
    refused([f"env.num_players={value}"], message)


# --- extends: a loop is named where it closes; a chain of up to 11 files loads -----------------------------------
def test_an_extends_loop_is_refused_naming_the_file_it_loops_back_to(tmp_path):
    (tmp_path / "a.yaml").write_text("extends: b\n")
    (tmp_path / "b.yaml").write_text("extends: a\n")
    with pytest.raises(ConfigError) as error:
        load_config(tmp_path / "a.yaml")
    assert str(error.value) == f"config 'extends' chain loops back to {tmp_path / 'a.yaml'}"


def chain(folder: Path, files: int) -> Path:
    """`files` configs of one's own in `folder`, c0 extending c1 ... extending the shipped base; c0."""
    folder.mkdir()
    for i in range(files):
        (folder / f"c{i}.yaml").write_text((f"extends: c{i + 1}\n" if i < files - 1 else "") + f"seed: {i}\n")
    return folder / "c0.yaml"


def test_an_extends_chain_of_eleven_files_loads_and_a_longer_one_is_refused_as_too_long_not_as_a_loop(tmp_path):
    assert load_config(chain(tmp_path / "ten", 10))["seed"] == 0  # ten of one's own over the shipped base
    with pytest.raises(ConfigError) as error:
        load_config(chain(tmp_path / "eleven", 11))
    assert str(error.value).startswith("config 'extends' chain is longer than 11 files (at ")
    assert "loops" not in str(error.value)


# --- config files: an empty one is its parent; one that is not text is named -------------------------------------
@pytest.mark.parametrize("text", ["# nothing set here\n", ""], ids=["comment", "zero-bytes"])
def test_an_empty_config_file_is_its_parent(text, tmp_path):
    empty = tmp_path / "empty.yaml"
    empty.write_text(text)
    assert load_config(empty) == load_config("base")


@pytest.mark.parametrize("make, kind", [
    (lambda folder: Path(os.devnull), "a character device"),
    (lambda folder: (os.mkfifo(folder / "pipe.yaml"), folder / "pipe.yaml")[1], "a named pipe"),
    (lambda folder: (folder / "dir.yaml").mkdir() or folder / "dir.yaml", "a folder"),
], ids=["dev-null", "fifo", "folder"])
def test_a_config_path_that_is_there_but_no_regular_file_is_named_as_such_not_as_missing(make, kind, tmp_path):
    """--config /dev/null said "not found" (a FIFO too, which reading would have waited on for ever)."""
    path = make(tmp_path)
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(error.value) == f"config file {str(path)!r} is not a regular file: {path} is {kind}; give a YAML file"
    extends = tmp_path / "child.yaml"
    extends.write_text(f"extends: {path}\n")
    refused([], f"{extends}: extends: config file {str(path)!r} is not a regular file: {path} is {kind}", extends)


# --- a key set twice in one mapping: refused, naming the file, the key and both lines --------------------------------
@pytest.mark.parametrize("text, where", [
    ("algo:\n  learning_rate: 1e-3\n  learning_rate: 5e-4\n",
     "line 3, column 3: malformed YAML: duplicate key 'learning_rate' (first set on line 2)"),
    ("seed: 1\ntimesteps: 64\nseed: 2\n", "line 3, column 1: malformed YAML: duplicate key 'seed' (first set on line 1)"),
    ("eval: {games: 2, games: 4}\n", "line 1, column 18: malformed YAML: duplicate key 'games' (first set on line 1)"),
], ids=["nested", "top-level", "flow-mapping"])
def test_a_key_set_twice_in_one_mapping_is_refused_naming_the_file_the_key_and_its_lines(text, where, tmp_path):
    """PyYAML keeps the last of two `learning_rate:` lines under `algo:` silently."""
    path = tmp_path / "twice.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(error.value) == f"{path}, {where}"


def test_a_key_set_twice_in_an_override_is_refused_and_a_key_a_merge_brings_in_may_be_set_again():
    refused(["algo={gamma: 0.9, gamma: 0.8}"], "override 'algo={gamma: 0.9, gamma: 0.8}', line 1, column 14: malformed YAML: "
                                                "duplicate key 'gamma' (first set on line 1)")
    merged = yaml_load("defaults: &defaults {gamma: 0.9, n_epochs: 4}\nalgo:\n  <<: *defaults\n  gamma: 0.8\n", "merge")
    assert merged["algo"] == {"gamma": 0.8, "n_epochs": 4}
    assert yaml_load("a: {1: x, 2: y}\nb: {a: 1}\n", "distinct") == {"a": {1: "x", 2: "y"}, "b": {"a": 1}}


def test_a_config_file_that_is_not_text_is_a_config_error_naming_it(tmp_path):
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"seed: \xff\xfe\n")
    refused([], f"config file {binary} cannot be read: ", binary)


# --- --set: the key must be dotted names, none empty -------------------------------------------------------------
@pytest.mark.parametrize("text", ["=5", " =1", "algo..gamma=1", ".seed=1", "seed.=1"])
def test_an_override_with_an_empty_key_or_key_part_is_refused(text):
    refused([text], f"--set {text}: override {text!r} must look like key.sub=value")


def test_a_stage_override_on_a_config_without_stages_is_refused():
    refused(["stages[0].seed=1"], "--set stages[0].seed=1: the config has 0 stages (no stages)")


def test_a_stage_override_past_the_last_stage_names_the_stages_there_are(tmp_path):
    refused(["stages[2].seed=1"], "--set stages[2].seed=1: the config has 2 stages (stages[0] to stages[1])",
            recipe(tmp_path, "{}"))
    refused(["stages=[{}]", "stages[1].seed=1"], "--set stages[1].seed=1: the config has 1 stage (stages[0] to stages[0])")


def test_a_shared_override_of_a_key_one_stage_sets_is_refused_naming_it(tmp_path):
    refused(["timesteps=5"], "--set timesteps=5: stages[0] sets timesteps itself, so this would not change it: set it "
                             "for one stage with --set stages[0].timesteps=...", recipe_of(tmp_path, "{timesteps: 1000}", "{}"))


def test_a_shared_override_of_a_key_several_stages_set_is_refused_naming_them(tmp_path):
    refused(["timesteps=5"], "--set timesteps=5: stages[0], stages[1] set timesteps itself, so this would not change "
                             "them: set it for one stage with --set stages[0].timesteps=...",
            recipe_of(tmp_path, "{timesteps: 1000}", "{timesteps: 2000}"))


def test_a_shared_override_of_game_options_is_refused_when_a_stage_sets_its_own(tmp_path):
    refused(["env.options={suns_per_fence: 3}"], "stages[1] sets env.options itself",
            recipe_of(tmp_path, "{}", "{env: {options: {max_steps: 50}}}"))


def test_a_stage_with_an_empty_section_sets_nothing_so_a_shared_override_reaches_it(tmp_path):
    config = load_config(recipe_of(tmp_path, "{}", "{algo: {}}"), ["algo.gamma=0.9"])
    assert [stage["algo"]["gamma"] for stage in stage_configs(config)] == [0.9, 0.9]


def test_an_average_of_the_first_two_stages_loads_and_one_naming_a_stage_twice_is_refused(tmp_path):
    assert load_config(recipe_of(tmp_path, "{}", "{}", "{average: [1, 2]}"))["stages"][2] == {"average": [1, 2]}
    refused([], "stages[2] (stage 3): average=[1, 1, 2] must name two or more distinct earlier stages (1 to 2)",
            recipe_of(tmp_path, "{}", "{}", "{average: [1, 1, 2]}"))


SELECT = "{select: {stage: %d, at: [500], against: random, players: [2], games: 2, seeds: [0]}}"


@pytest.mark.parametrize("first, second, picked", [(300, 1000, 2), (1000, 300, 1)])
def test_a_select_stage_is_checked_against_the_stage_it_names_not_another(tmp_path, first, second, picked):
    """select.at=[500] lies within the stage it picks from (1000 steps), not within the other one (300)."""
    path = recipe_of(tmp_path, f"{{timesteps: {first}}}", f"{{timesteps: {second}}}", SELECT % picked)
    assert load_config(path)["stages"][2]["select"]["stage"] == picked


def test_a_select_stage_runs_with_the_config_of_the_stage_it_picks_from(tmp_path):
    path = recipe_of(tmp_path, "{timesteps: 300, env: {num_players: [2, 3]}}", "{timesteps: 400}",
                     "{select: {stage: 1, at: [100], against: random, players: [3], games: 2, seeds: [0]}}")
    first, _, picked = stage_configs(load_config(path))
    assert (picked["timesteps"], picked["env"]["num_players"]) == (300, [2, 3])
    assert first["keep_at"] == [100] and "keep_at" not in picked  # stage 1 keeps the checkpoint the pick plays


def test_an_override_splits_at_its_first_equals_sign_only():
    assert load_config(None, ["output_dir=runs/lr=1e-4"])["output_dir"] == "runs/lr=1e-4"


# --- whole-config checks: what is missing, a grid network on a game without a grid ------------------------------
def test_a_config_missing_keys_names_each_by_its_full_path(tmp_path):
    bare = tmp_path / "bare.yaml"
    bare.write_text("extends: null\nenv: {name: snack_rabbits_v0}\nalgo: {gamma: 0.9}\n")
    with pytest.raises(ConfigError) as error:
        load_config(bare)
    assert str(error.value) == (
        "config is missing ['env.num_players', 'env.reward', 'seed', 'timesteps', 'n_envs', 'vec_env', 'torch_threads', "
        "'algo.learning_rate', 'algo.n_steps', 'algo.batch_size', 'algo.n_epochs', 'algo.gae_lambda', 'algo.ent_coef', "
        "'algo.clip_range', 'algo.net_arch', 'opponents', 'eval', 'output_dir', 'imitation']")


def test_a_grid_network_on_a_game_without_a_grid_is_refused():
    refused(["algo.policy=grid"], "algo.policy=grid needs a game played on a grid; snack_rabbits_v0 has none (use mlp)")


def test_a_game_that_refuses_its_options_with_a_type_error_is_a_config_error_naming_env_options(monkeypatch):
    from snack_envs import specs

    real_get = specs.get

    class Refusing:  # the game's spec, whose env refuses every option set with a TypeError
        def __init__(self, name):
            self.spec = real_get(name)

        def __getattr__(self, attr):
            return getattr(self.spec, attr)

        def raw_env(self, **options):
            raise TypeError("a bad option")

    monkeypatch.setattr(specs, "get", Refusing)
    refused(["env.options={suns_per_fence: 3}"], "env.options={'suns_per_fence': 3}: a bad option")


# --- policies named in eval.opponents ---------------------------------------------------------------------------
@pytest.mark.parametrize("spec", ["mine.zip", "runs/nowhere"])
def test_an_opponent_that_looks_like_a_checkpoint_path_is_looked_for_not_called_no_policy(spec):
    refused([f"eval.opponents=[{spec}]"], f"eval.opponents[0]={spec!r}: no checkpoint at {spec}")


def test_an_opponent_named_by_a_file_in_the_current_folder_is_read_as_a_checkpoint(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("notes").write_text("not a checkpoint\n")
    refused(["eval.opponents=[notes]"], "eval.opponents[0]='notes': notes: notes.json is missing")


def test_the_heuristic_the_opponents_draw_is_built_even_when_eval_leaves_it_out():
    config = load_config(None, ["eval.opponents=[random]"])
    assert config["eval"]["opponents"] == ["random"] and config["opponents"]["heuristic"] > 0


def test_the_heuristic_the_opponents_draw_is_checked_on_load_only_when_they_draw_it(monkeypatch):
    import snack_envs.agents as agents

    real = agents.make_policy

    def make_policy(spec, *args, **kwargs):
        if spec == "heuristic":
            raise ValueError("no heuristic for this game")
        return real(spec, *args, **kwargs)

    monkeypatch.setattr(agents, "make_policy", make_policy)
    refused(["eval.opponents=[random]"], "opponents.heuristic: no heuristic for this game")
    config = load_config(None, ["eval.opponents=[random]", "opponents.heuristic=0"])  # never drawn: never built
    assert config["opponents"]["heuristic"] == 0


# --- init_from: the checkpoint's network must be the config's -------------------------------------------------
TIME = CHECKPOINTS / "snack_time_v0.zip"  # a grid network of the default size, net_arch [256, 256]
RABBITS = CHECKPOINTS / "snack_rabbits_v0.zip"  # an mlp, net_arch [256, 256]


def test_init_from_a_grid_checkpoint_is_refused_for_an_mlp_of_the_same_net_arch():
    refused([f"init_from={TIME}", "algo.policy=mlp", "algo.net_arch=[256, 256]"],
            "its network (policy grid, net_arch [256, 256]) is not algo.policy=mlp, algo.net_arch=[256, 256]", "snack_time")


def test_init_from_a_grid_checkpoint_ignores_net_arch_and_checks_the_grids_size():
    assert load_config("snack_time", [f"init_from={TIME}", "algo.net_arch=[16]"])["algo"]["net_arch"] == [16]
    assert load_config("snack_time", [f"init_from={TIME}"])["init_from"] == str(TIME)
    refused([f"init_from={TIME}", "algo.grid.channels=16"],
            "its grid network ({'channels': 32, 'dilations': [1, 2]}) is not algo.grid={'channels': 16, 'dilations': [1, 2]}",
            "snack_time")


def test_init_from_an_mlp_checkpoint_ignores_the_grid_size():
    assert load_config("snack_rabbits", [f"init_from={RABBITS}", "algo.grid.channels=16"])["algo"]["grid"]["channels"] == 16


def test_init_from_a_checkpoint_whose_metadata_has_no_config_skips_the_network_check(tmp_path):
    shutil.copy(RABBITS, tmp_path / "old.zip")
    meta = json.loads(RABBITS.with_suffix(".json").read_text())
    del meta["config"]
    (tmp_path / "old.json").write_text(json.dumps(meta))
    assert load_config("snack_rabbits", [f"init_from={tmp_path / 'old.zip'}", "algo.net_arch=[16]"])["algo"]["net_arch"] == [16]


# --- a run's config.json, checked when it is resumed -------------------------------------------------------------
def test_a_folder_without_a_config_json_holds_no_run(tmp_path):
    message = f"{tmp_path} holds no training run ({tmp_path / 'config.json'} does not exist)"
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_run_config(tmp_path)


def test_a_runs_config_json_that_is_not_a_mapping_is_refused_naming_the_file(tmp_path):
    (tmp_path / "config.json").write_text("[1, 2]")
    with pytest.raises(ConfigError) as error:
        load_run_config(tmp_path)
    assert str(error.value) == f"{tmp_path / 'config.json'} is not a run's config: a mapping expected, not list"


def test_a_resumed_run_needs_its_init_from_checkpoint_no_longer_but_a_fresh_load_does(tmp_path):
    config = load_config("quickstart")
    config["init_from"] = str(tmp_path / "gone.zip")
    (tmp_path / "config.json").write_text(json.dumps(config))
    assert load_run_config(tmp_path)["init_from"] == str(tmp_path / "gone.zip")
    with pytest.raises(ConfigError, match=re.escape(f"init_from={str(tmp_path / 'gone.zip')!r}: no checkpoint at")):
        check_config(config)


# --- malformed YAML --------------------------------------------------------------------------------------------
def test_malformed_yaml_is_named_in_one_line_without_the_parsers_own_location(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("seed: 1\ntimesteps: 5: 6\n")
    with pytest.raises(ConfigError) as error:
        load_config(bad)
    assert str(error.value) == f"{bad}, line 2, column 13: malformed YAML: mapping values are not allowed here"


def test_yaml_with_a_control_character_is_a_config_error_naming_the_character(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("seed: \x07\n")
    with pytest.raises(ConfigError) as error:
        load_config(bad)
    message = str(error.value)
    assert message.startswith(f"{bad}: malformed YAML: unacceptable character #x0007") and "\n" not in message


@pytest.mark.parametrize("options, message", [
    ("{num_players: 3}", "env.options.num_players: set env.num_players instead"),
    ("{reward: score}", "env.options.reward: set env.reward instead"),
    ("{render_mode: human}", "env.options.render_mode: training and evaluation draw nothing"),
])
def test_env_options_that_belong_elsewhere_are_refused_saying_where(options, message):
    refused([f"env.options={options}"], message)


def test_init_from_a_checkpoint_whose_sizes_are_not_those_of_the_configs_game_options_is_refused(monkeypatch):
    """check_fits checks the checkpoint against its own game options; check_network against the config's.
    No shipped game's sizes depend on an option yet, so one is made to: suns_per_fence=3 adds an observation value."""
    from snack_envs import checkpoints

    real = checkpoints.env_facts

    def env_facts(env_name, num_players, options=None):
        facts = real(env_name, num_players, options)
        if (options or {}).get("suns_per_fence") == 3:
            facts["observation_size"] += 1
        return facts

    monkeypatch.setattr(checkpoints, "env_facts", env_facts)
    assert load_config("snack_rabbits", [f"init_from={RABBITS}"])["init_from"] == str(RABBITS)
    refused([f"init_from={RABBITS}", "env.options={suns_per_fence: 3}"],
            "its network takes 85 observation values and scores 49 actions, but snack_rabbits_v0 (2 players) has 86 and 49",
            "snack_rabbits")


@pytest.mark.parametrize("text, where", [
    ("seed: 1\n? [a]\n: 2\n", "line 2, column 3"),
    ("algo: {{gamma: 1}: 2}\n", "line 1, column 8"),
], ids=["after-a-key", "first-key"])
def test_an_unhashable_key_is_malformed_yaml_naming_its_line_not_a_traceback(text, where, tmp_path):
    """The duplicate-key check skips a key it cannot hash; SafeLoader's own error then names it."""
    path = tmp_path / "unhashable.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError) as error:
        load_config(path)
    assert str(error.value) == f"{path}, {where}: malformed YAML: found unhashable key"


@pytest.mark.parametrize("make, message", [
    (lambda folder: folder / "gone.yaml", "does not exist"),
    (lambda folder: (folder / "dir.yaml").mkdir() or folder / "dir.yaml", "is not a regular file: it is a folder"),
    (lambda folder: Path(os.devnull), "is not a regular file: it is a character device"),
], ids=["missing", "folder", "dev-null"])
def test_read_yaml_names_a_path_that_is_no_regular_file_as_such(make, message, tmp_path):
    """find_config hands read_yaml only files, but the file may go between the two (and the default config is
    read without find_config): read_yaml says what the path is, never reading a folder or a device."""
    from snack_envs.training.config import read_yaml

    path = make(tmp_path)
    with pytest.raises(ConfigError) as error:
        read_yaml(path)
    assert str(error.value) == f"config file {path} {message}"


def test_stage_source_names_where_each_stage_starts_from_as_a_copy(tmp_path):
    """Stage 1 from nothing (init_from), a stage from the one before it unless it names a start, an average or a
    select; each a copy, so that a recipe's run changing what it is handed changes no config."""
    from snack_envs.training.config import stage_source

    select = {"stage": 1, "at": [100], "against": "random", "players": [2], "games": 2, "seeds": [0]}
    config = load_config(recipe_of(tmp_path, "{timesteps: 300}", "{timesteps: 300}", "{start: {stage: 1}}",
                                   "{start: {stage: 2, timesteps: 100}}", "{average: [1, 2]}", json.dumps({"select": select})))
    stages = json.loads(json.dumps(config["stages"]))
    sources = [stage_source(config, k) for k in range(1, 7)]
    assert sources == [{}, {"stage": 1}, {"stage": 1}, {"stage": 2, "timesteps": 100}, {"average": [1, 2]}, {"select": select}]
    sources[2]["stage"] = sources[3]["timesteps"] = sources[5]["select"]["stage"] = 9
    sources[4]["average"].append(3)
    assert config["stages"] == stages


def test_a_config_file_nested_too_deeply_is_malformed_yaml_not_its_parent(tmp_path):
    """PyYAML composes nested collections recursively: a file nested thousands deep is refused as such (it
    used to load silently as its parent when the recursion error was lost)."""
    path = tmp_path / "deep.yaml"
    path.write_text("algo:\n  net_arch: " + "[" * 3000 + "]" * 3000 + "\n")
    with pytest.raises(ConfigError, match=rf"^{re.escape(str(path))}: malformed YAML: collections nested too deeply$"):
        load_config(path)
    assert yaml_load("a: [[1]]", "x") == {"a": [[1]]}


def test_stage_configs_resets_imitation_only_where_a_later_stage_sets_none_and_keeps_each_start():
    """Stage k > 1 imitates only where it sets imitation.games or dagger_rounds (the others get both 0), and a
    stage that a later one starts from at S timesteps keeps a checkpoint at S besides the recipe's keep_at."""
    config = {"seed": 0, "timesteps": 300, "keep_at": [200], "imitation": {"games": 3, "dagger_rounds": 2},
              "stages": [{}, {"imitation": {"games": 5}, "start": {"stage": 1, "timesteps": 100}}, {"timesteps": 50}]}
    first, second, third = stage_configs(config)
    assert first["imitation"] == {"games": 3, "dagger_rounds": 2} and first["keep_at"] == [100, 200]
    assert second["imitation"] == {"games": 5, "dagger_rounds": 2} and second["init_from"] is None
    assert "start" not in second and second["keep_at"] == [200]
    assert third["imitation"] == {"games": 0, "dagger_rounds": 0} and third["timesteps"] == 50
    assert "stages" not in first and config["stages"][1]["imitation"] == {"games": 5}  # the recipe itself untouched


def test_a_folder_given_as_a_path_is_refused_not_passed_over_for_the_shipped_config_of_its_name(tmp_path, monkeypatch):
    """`--config runs/snack_wars` naming a folder loaded the shipped snack_wars.yaml silently; a bare name
    ("snack_wars") beside a folder of that name still means the shipped config."""
    (tmp_path / "runs" / "snack_wars").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ConfigError, match=r"^config file 'runs/snack_wars' is not a regular file: runs/snack_wars is a folder"):
        find_config("runs/snack_wars")
    monkeypatch.chdir(tmp_path / "runs")
    assert find_config("snack_wars") == CONFIG_DIR / "snack_wars.yaml"
