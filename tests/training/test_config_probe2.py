"""More cases found by a mutation probe of training/config.py that the other config tests did not pin down:
a list of player counts that is empty or names one twice, opponent weights where only `random` (or only
`heuristic`) is above 0, a run's config.json written before the optional keys existed (each may be left
out; a required one is named), `stages: null`, a stage after the first that sets `init_from`, the ends of
`start.timesteps` and `select.at` (the source stage's own timesteps is refused, one below it taken), a
`start.timesteps` or `select` whose source stage trains nothing (an `average` or a `select`), a first stage
that names an earlier one, an `average` of fewer than two distinct stages, a stage that trains nothing and
sets another key, a `select` that plays solo, plays a count its stage does not train on or names a misspelt
bot, the stage configs of a recipe with `start`, `average` and `select` (none keeps those keys, so each is a
run's config that loads again on resume), `--set stages[i].key=value` (stage i + 1 only), a shared `--set`
of a key no stage sets on a recipe whose stages set others, a later stage that changes the game, the policy
or the grid network, `algo.batch_size` against `algo.n_steps * n_envs`, the search teacher's
`objective: margin`, an unknown key like no known one and a bot's name like no bot's (no hint), the exact
message for a number that is no number, an `init_from` at an absolute path that is not there and one whose
metadata leaves out `algo.policy`, and digit separators. Every bad input must be a ConfigError naming the
key; nothing here trains or plays a game."""

from __future__ import annotations

import copy
import json
import re
import shutil

import pytest

from snack_envs.core.game import ConfigError
from snack_envs.training.config import check_config, load_config, stage_configs
from tests.helpers import CHECKPOINTS, recipe_of


def refused(message: str, path=None, overrides: list[str] | None = None) -> None:
    """load_config(path, overrides) raises a ConfigError whose text holds `message`."""
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_config(path, overrides)


# --- env.num_players: a list must be non-empty and name each count once ------------------------------------------
@pytest.mark.parametrize("value", ["[]", "[2, 2]", "[2, 3, 2]"])
def test_a_list_of_player_counts_that_is_empty_or_names_a_count_twice_is_refused(value):
    refused(f"env.num_players={value} must be a player count or a non-empty list of distinct player counts",
            overrides=[f"env.num_players={value}"])


def test_a_list_of_distinct_player_counts_is_taken():
    assert load_config(None, ["env.num_players=[2, 3]"])["env"]["num_players"] == [2, 3]


# --- opponents: any one weight above 0 is enough -----------------------------------------------------------------
@pytest.mark.parametrize("weights", ["{random: 1, heuristic: 0, self: 0}", "{random: 0, heuristic: 0.5, self: 0}"])
def test_opponent_weights_with_only_random_or_only_heuristic_above_zero_are_taken(weights):
    assert load_config(None, [f"opponents={weights}"])["opponents"]["self"] == 0


# --- a run's config.json may lack the keys added later ---------------------------------------------------------------
OPTIONAL = [("env", "options"), ("algo", "policy"), ("algo", "grid"), ("eval", "final_games"), ("imitation", "teacher"),
            ("imitation", "workers"), (None, "init_from"), (None, "keep_at")]


@pytest.mark.parametrize("section, key", OPTIONAL, ids=[f"{s}.{k}" if s else k for s, k in OPTIONAL])
def test_a_config_without_an_optional_key_is_still_a_whole_config(section, key):
    """A run's config.json written before such a key existed resumes: only the other keys are required."""
    config = load_config(None, ["keep_at=[100]"])
    del (config[section] if section else config)[key]
    checked = check_config(config, resume=True)
    assert key not in (checked[section] if section else checked)


@pytest.mark.parametrize("section, key", [("eval", "games"), ("imitation", "epochs"), (None, "seed")])
def test_a_config_without_a_required_key_is_refused_naming_it(section, key):
    config = load_config(None)
    del (config[section] if section else config)[key]
    name = f"{section}.{key}" if section else key
    with pytest.raises(ConfigError, match=re.escape(f"config is missing [{name!r}]")):
        check_config(config)


# --- stages ---------------------------------------------------------------------------------------------------------
def test_stages_null_is_a_config_of_one_run(tmp_path):
    path = tmp_path / "one.yaml"
    path.write_text("extends: quickstart\ntimesteps: 500\nstages: null\n")
    config = load_config(path)
    assert "stages" not in config and config["timesteps"] == 500
    assert stage_configs(config) == [config]


def test_a_stage_after_the_first_that_sets_init_from_is_refused(tmp_path):
    refused("stages[1] (stage 2): init_from: a stage after the first starts from the weights of one before it",
            recipe_of(tmp_path, "{}", "{init_from: some.zip}"))


def test_a_stage_override_sets_that_stage_only(tmp_path):
    path = recipe_of(tmp_path, "{timesteps: 300}", "{timesteps: 400}", "{timesteps: 500}")
    config = load_config(path, ["stages[1].timesteps=450", "stages[0].algo.gamma=0.5"])
    assert [stage["timesteps"] for stage in stage_configs(config)] == [300, 450, 500]
    assert [stage["algo"]["gamma"] for stage in stage_configs(config)] == [0.5, 0.99, 0.99]


def test_a_shared_override_of_a_key_no_stage_sets_reaches_every_stage_of_a_recipe_whose_stages_set_others(tmp_path):
    path = recipe_of(tmp_path, "{timesteps: 300, algo: {learning_rate: 1.0e-4}}", "{env: {options: {}}, eval: {games: 7}}")
    config = load_config(path, ["seed=5", "algo.gamma=0.5", "eval.every=300"])
    assert [(s["seed"], s["algo"]["gamma"], s["eval"]["every"]) for s in stage_configs(config)] == [(5, 0.5, 300)] * 2


@pytest.mark.parametrize("source, key", [("start: {stage: 1, timesteps: %d}", "start.timesteps"),
                                         ("select: {stage: 1, at: [%d], against: random, players: [2], games: 2, seeds: [0]}",
                                          "select.at")])
def test_a_checkpoint_at_the_source_stages_own_timesteps_is_refused_and_one_step_below_is_taken(tmp_path, source, key):
    """The source stage's final weights are at its timesteps: a kept checkpoint must come before them."""
    with pytest.raises(ConfigError, match=re.escape("stages[1] (stage 2): " + key)) as error:
        load_config(recipe_of(tmp_path, "{timesteps: 300}", "{%s}" % (source % 300)))
    assert "below stage 1's timesteps (300)" in str(error.value)
    stages = stage_configs(load_config(recipe_of(tmp_path, "{timesteps: 300}", "{%s}" % (source % 299))))
    assert stages[0]["keep_at"] == [299]


AVERAGE = "{average: [1, 2]}"
SELECT = "{select: {stage: %d, at: [100], against: random, players: [2], games: 2, seeds: [0]}}"


@pytest.mark.parametrize("source, trains_nothing", [(AVERAGE, "average"), (SELECT % 2, "select")])
@pytest.mark.parametrize("later, message", [
    ("{start: {stage: 3, timesteps: 100}}", "start.timesteps: stage 3 trains nothing, so it has only its final weights"),
    (SELECT % 3, "select.stage: stage 3 trains nothing, so it has only its final weights to pick from"),
])
def test_a_checkpoint_of_a_stage_that_trains_nothing_is_refused(tmp_path, source, trains_nothing, later, message):
    path = recipe_of(tmp_path, "{timesteps: 300}", "{timesteps: 300}", source, later)
    refused(f"stages[3] (stage 4): {message}", path)


def test_a_start_from_the_final_weights_of_a_stage_that_trains_nothing_is_taken(tmp_path):
    path = recipe_of(tmp_path, "{timesteps: 300}", "{timesteps: 300}", AVERAGE, "{start: {stage: 3}}")
    assert len(stage_configs(load_config(path))) == 4


def test_each_stage_config_of_a_recipe_with_start_average_and_select_is_a_run_config_that_loads_again(tmp_path):
    """A stage's config is written as its run's config.json and checked again on resume: it keeps none of the
    keys only a stage may set (start, average, select), and each is a whole config of one run."""
    path = recipe_of(tmp_path, "{}", "{start: {stage: 1, timesteps: 100}}", AVERAGE, SELECT % 2, top="timesteps: 300\n")
    for stage in stage_configs(load_config(path)):
        assert not {"start", "average", "select", "stages"} & set(stage)
        assert check_config(copy.deepcopy(stage), resume=True)["timesteps"] == 300


# --- the search teacher ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("objective", ["margin", "win"])
def test_the_search_teachers_objective_takes_margin_and_win(objective):
    config = load_config("snack_wars", ["imitation.teacher=search", f"imitation.search={{samples: 8, first: 2, keep: 1, "
                                                                    f"objective: {objective}}}"])
    assert config["imitation"]["search"]["objective"] == objective


def test_a_search_teacher_budget_that_sets_only_the_samples_is_taken():
    config = load_config("snack_wars", ["env.num_players=2", "imitation.teacher=search", "imitation.search={samples: 8}"])
    assert config["imitation"]["search"] == {"samples": 8}


# --- messages that must not mislead ---------------------------------------------------------------------------------
def test_an_unknown_key_like_no_known_one_is_refused_without_a_hint():
    refused("unknown config key 'zzzzzzzz'; known keys here: [", overrides=["zzzzzzzz=1"])


@pytest.mark.parametrize("source", ["start: {stage: 1}", "average: [1, 2]", SELECT[1:-1] % 1])
def test_a_first_stage_that_names_an_earlier_stage_is_refused_saying_it_has_none(tmp_path, source):
    key = source.split(":")[0]
    refused(f"stages[0] (stage 1): {key} names earlier stages; stage 1 has none (init_from starts it from a checkpoint)",
            recipe_of(tmp_path, "{%s}" % source, "{}"))


# --- average and select -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("sources", ["[1]", "[1, 1]", "[1, 3]"])
def test_an_average_of_fewer_than_two_distinct_earlier_stages_is_refused(tmp_path, sources):
    path = recipe_of(tmp_path, "{timesteps: 300}", "{timesteps: 300}", "{average: %s}" % sources)
    refused(f"stages[2] (stage 3): average={sources} must name two or more "
            f"distinct earlier stages (1 to 2)", path)


@pytest.mark.parametrize("kind, stage", [("average", AVERAGE[1:-1]), ("select", SELECT[1:-1] % 1)])
def test_a_stage_that_trains_nothing_and_sets_another_key_is_refused_naming_it(tmp_path, kind, stage):
    path = recipe_of(tmp_path, "{timesteps: 300}", "{timesteps: 300}", "{%s, timesteps: 500}" % stage)
    refused(f"stages[2] (stage 3): a stage that {'averages weights' if kind == 'average' else 'selects a checkpoint'} "
            f"trains nothing, so it sets {kind} alone, not ['timesteps']", path)


@pytest.mark.parametrize("players, message", [
    ("[1, 2]", "select.players=[1, 2]: a pick plays matches against select.against, and solo (1 player) has no opponent"),
    ("[2, 4]", "select.players=[2, 4]: stage 1 trains on [2, 3] players only"),
])
def test_a_select_playing_solo_or_a_count_its_stage_does_not_train_on_is_refused(tmp_path, players, message):
    stage = "{select: {stage: 1, at: [100], against: random, players: %s, games: 2, seeds: [0]}}" % players
    refused(f"stages[1] (stage 2): {message}", recipe_of(tmp_path, "{timesteps: 300, env: {num_players: [2, 3]}}", stage))


def test_a_select_against_a_misspelt_bot_is_refused_on_load(tmp_path):
    stage = "{select: {stage: 1, at: [100], against: randon, players: [2], games: 2, seeds: [0]}}"
    refused("stages[1] (stage 2): select.against='randon' is no policy (did you mean 'random'?)",
            recipe_of(tmp_path, "{timesteps: 300}", stage))


# --- algo.batch_size against n_steps * n_envs -------------------------------------------------------------------------
def test_a_batch_larger_than_an_update_is_refused_and_one_of_an_updates_size_is_taken():
    refused("algo.batch_size must not exceed algo.n_steps * n_envs", overrides=["n_envs=2", "algo.n_steps=8", "algo.batch_size=17"])
    assert load_config(None, ["n_envs=2", "algo.n_steps=8", "algo.batch_size=16"])["algo"]["batch_size"] == 16


# --- what every stage shares ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("config, stage, key, ours, theirs", [
    ("quickstart", "{env: {name: snack_wars_v0}}", "env.name", "'snack_wars_v0'", "'snack_rabbits_v0'"),
    ("snack_time", "{algo: {policy: mlp}}", "algo.policy", "'mlp'", "'grid'"),
    ("snack_time", "{algo: {grid: {channels: 16}}}", "algo.grid", "{'channels': 16, 'dilations': [1, 2]}",
     "{'channels': 32, 'dilations': [1, 2]}"),
])
def test_a_later_stage_that_changes_the_game_or_the_network_is_refused_naming_the_key(tmp_path, config, stage, key, ours, theirs):
    """A stage starts from the weights of the one before it: the game and the network's kind and size stay."""
    path = tmp_path / "stages.yaml"
    path.write_text(f"extends: {config}\nstages:\n  - {{timesteps: 300}}\n  - {stage}\n")
    refused(f"stages[1] (stage 2): {key}={ours} is not stage 1's {theirs}: a stage starts from the weights of one before it",
            path)


# --- numbers and messages ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("text", ["1__0", "10_", "1_0"])
def test_digit_separators_anywhere_after_the_first_digit_are_dropped(tmp_path, text):
    """YAML 1.1's `_` separators: `1__0` and `10_` read as 10 (Python's int() refuses both as written)."""
    path = tmp_path / "seed.yaml"
    path.write_text(f"seed: {text}\n")
    assert load_config(path)["seed"] == 10


@pytest.mark.parametrize("override, message", [
    ("algo.gamma=high", "algo.gamma='high' must be a number (a string: write the number without quotes)"),
    ("algo.gamma=[1]", "algo.gamma=[1] must be a number"),
    ("seed=[1]", "seed=[1] must be an integer"),
])
def test_a_value_that_is_no_number_is_refused_saying_exactly_what_it_must_be(override, message):
    with pytest.raises(ConfigError, match=re.escape(f"--set {override}: {message}") + "$"):
        load_config(None, [override])


def test_a_bot_name_like_no_bot_is_refused_without_a_hint():
    refused("eval.opponents[0]='zzzzzzzz' is no policy: use one of 'random', ", overrides=["eval.opponents=[zzzzzzzz]"])


def test_init_from_an_absolute_path_with_nothing_there_names_just_the_path(tmp_path):
    gone = tmp_path / "gone.zip"
    with pytest.raises(ConfigError, match=re.escape(f"init_from={str(gone)!r}: no checkpoint at {gone}") + "$"):
        load_config(None, [f"init_from={gone}"])


def test_init_from_a_checkpoint_whose_metadata_leaves_out_the_policy_is_an_mlp(tmp_path):
    """A checkpoint's metadata written before algo.policy existed: its network is an MLP."""
    rabbits = CHECKPOINTS / "snack_rabbits_v0.zip"
    shutil.copy(rabbits, tmp_path / "old.zip")
    meta = json.loads(rabbits.with_suffix(".json").read_text())
    del meta["config"]["algo"]["policy"]
    (tmp_path / "old.json").write_text(json.dumps(meta))
    assert load_config("snack_rabbits", [f"init_from={tmp_path / 'old.zip'}"])["init_from"] == str(tmp_path / "old.zip")
