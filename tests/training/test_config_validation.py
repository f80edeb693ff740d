"""Configs checked whole on load (issue 17): policy names, checkpoint paths and options before any training,
integer settings in scientific notation, configs of one's own anywhere on disk, malformed YAML by file and line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from snack_envs.core.game import ConfigError
from snack_envs.training.config import CONFIG_DIR, load_config

ROOT = Path(__file__).resolve().parents[2]
RABBITS = ROOT / "checkpoints" / "snack_rabbits_v0.zip"
WARS = ROOT / "checkpoints" / "snack_wars_v0.zip"


# --- 3: every policy name, checkpoint path and option is checked on load ---------------------------------
@pytest.mark.parametrize(
    "overrides, message",
    [
        (["eval.opponents=[heurstic]"],
         r"eval\.opponents\[0\]='heurstic' is no policy \(did you mean 'heuristic'\?\): use one of 'random', 'heuristic', 'lookahead', 'search' or the path"),
        (["eval.opponents=[random, runs/nowhere/final.zip]"], r"eval\.opponents\[1\]='runs/nowhere/final.zip': no checkpoint at"),
        ([f"eval.opponents=[{WARS}]"], r"eval\.opponents\[0\]=.*trained on snack_wars_v0, not snack_rabbits_v0"),
        (["eval.opponents=[random, random]"], r"eval\.opponents\[1\]='random' is listed twice"),
        (["init_from=runs/nowhere/final.zip"], r"init_from='runs/nowhere/final.zip': no checkpoint at runs/nowhere/final.zip \(a relative path is read from the current folder"),
        ([f"init_from={WARS}"], r"init_from=.*trained on snack_wars_v0, not snack_rabbits_v0"),
        ([f"init_from={RABBITS}", "algo.net_arch=[16]"], r"init_from=.*its network \(policy mlp, net_arch \[256, 256\]\) is not"),
        (["env.options={suns_per_fence: 2, colour: red}"], r"colour"),
        (["env.options={max_steps: -5}"], r"max_steps must be a positive int"),
        (["env.reward=wins"], r"reward='wins' is not one of"),
        (["imitation.dagger_rounds=-1"], r"imitation\.dagger_rounds=-1 is out of range \[0, 1000\]"),
        (["imitation.dagger_game=3"], r"unknown config key 'imitation\.dagger_game' \(did you mean 'imitation\.dagger_games'\?\)"),
        (["imitation.teacher=lookahead"], r"imitation\.teacher='lookahead' is not one of"),
        (["imitation.teacher=search"], r"imitation\.teacher=search: the search bot plays Snack Time and Snack Wars only, not snack_rabbits_v0"),
        (["imitation.search={samples: 8}"], r"imitation\.search sets the search teacher's budget: it needs imitation\.teacher=search"),
        (["imitation.search={sample: 8}"], r"unknown config key 'imitation\.search\.sample' \(did you mean 'imitation\.search\.samples'\?\)"),
    ],
    ids=["misspelt-policy", "missing-checkpoint", "checkpoint-of-another-game", "twice", "init-from-missing",
         "init-from-another-game", "init-from-another-network", "unknown-option", "bad-option-value", "bad-reward",
         "dagger-rounds-out-of-range", "dagger-key-misspelt", "unknown-teacher", "search-teacher-for-rabbits",
         "search-budget-without-search", "search-budget-misspelt"],
)
def test_a_bad_policy_checkpoint_or_option_fails_on_load(overrides, message):
    with pytest.raises(ConfigError, match=message):
        load_config("snack_rabbits", overrides)


def test_the_search_teachers_budget_is_checked_on_load_and_reaches_the_teacher():
    from snack_envs.training.imitate import make_teacher

    with pytest.raises(ConfigError, match=r"imitation\.teacher=search: search: need 1 <= first <= samples .*first=8, samples=4"):
        load_config("snack_wars", ["imitation.teacher=search", "imitation.search={samples: 4, first: 8}"])
    with pytest.raises(ConfigError, match=r"imitation\.search\.objective='score' is not one of"):
        load_config("snack_wars", ["imitation.teacher=search", "imitation.search={objective: score}"])
    config = load_config("snack_wars", ["imitation.teacher=search",
                                        "imitation.search={samples: 16, first: 4, keep: 2, objective: win}"])
    teacher = make_teacher(config, 2, seed=0)
    assert (teacher.samples, teacher.first, teacher.keep, teacher.objective) == (16, 4, 2, "win")


def test_a_bad_policy_fails_before_the_backend_writes_anything(tmp_path):
    from snack_envs.training.backends import sb3

    config = load_config("quickstart")
    config["eval"]["opponents"] = ["random", "heurstic"]  # a config built by hand, past load_config
    run = tmp_path / "run"
    with pytest.raises(ConfigError, match=r"eval\.opponents\[1\]='heurstic' is no policy"):
        sb3.train(config, run)
    assert not run.exists()


# --- 5: integer settings take integral floats and scientific notation ----------------------------------
def test_integer_settings_take_scientific_notation_and_refuse_fractions(tmp_path):
    config = load_config(None, ["timesteps=1e5", "n_envs=64.0", "eval.every=2.5e4", "algo.net_arch=[64.0, 1e2]", "algo.learning_rate=1e-4"])
    assert config["timesteps"] == 100_000 and type(config["timesteps"]) is int
    assert config["n_envs"] == 64 and type(config["n_envs"]) is int and config["eval"]["every"] == 25_000
    assert config["algo"]["net_arch"] == [64, 100] and all(type(n) is int for n in config["algo"]["net_arch"])
    assert config["algo"]["learning_rate"] == 1e-4
    own = tmp_path / "mine.yaml"
    own.write_text("timesteps: 3e5\nalgo:\n  learning_rate: 1e-4\n  n_steps: 1.0e2\n")  # YAML 1.1 reads 1e5 as a string
    config = load_config(own)
    assert (config["timesteps"], config["algo"]["learning_rate"], config["algo"]["n_steps"]) == (300_000, 1e-4, 100)

    with pytest.raises(ConfigError, match=re.escape("timesteps=1.5 must be an integer (a whole number, such as 100000 or 1e5)")):
        load_config(None, ["timesteps=1.5e0"])
    with pytest.raises(ConfigError, match=re.escape("algo.net_arch=[64, 1.5] must be a non-empty list of positive integers")):
        load_config(None, ["algo.net_arch=[64, 1.5]"])
    with pytest.raises(ConfigError, match=re.escape("timesteps=inf must be a finite number")):
        load_config(None, ["timesteps=.inf"])
    own.write_text("timesteps: '1e5'\n")  # quoted: a string, not a number
    with pytest.raises(ConfigError, match=re.escape(f"{own}: timesteps='1e5' must be an integer (a string: write the number without quotes)")):
        load_config(own)


# --- 9: a config of one's own, anywhere on disk; malformed YAML by file and line ----------------------------
def test_a_config_of_ones_own_anywhere_extends_its_neighbours_then_the_shipped_configs(tmp_path, monkeypatch):
    elsewhere = tmp_path / "work"
    (elsewhere / "cfg").mkdir(parents=True)
    (elsewhere / "shared").mkdir()
    monkeypatch.chdir(elsewhere)
    shipped_base = load_config(CONFIG_DIR / "base.yaml")

    Path("cfg/mine.yaml").write_text("env:\n  name: snack_wars_v0\n")  # no extends: the base beside it, else the shipped one
    config = load_config("cfg/mine.yaml")
    assert config["env"]["name"] == "snack_wars_v0" and config["algo"] == shipped_base["algo"]
    Path("cfg/named.yaml").write_text("extends: base\nseed: 7\n")
    assert load_config("cfg/named.yaml")["seed"] == 7
    Path("cfg/wars.yaml").write_text("extends: snack_wars\nseed: 8\n")  # a shipped game config by name
    assert load_config("cfg/wars.yaml") == {**load_config("snack_wars"), "seed": 8}

    Path("shared/parent.yaml").write_text("seed: 9\nalgo:\n  gamma: 0.9\n")  # a parent of one's own, relative to the file
    Path("cfg/child.yaml").write_text("extends: ../shared/parent\ntimesteps: 1000\n")
    config = load_config(elsewhere / "cfg" / "child.yaml")
    assert (config["seed"], config["algo"]["gamma"], config["timesteps"]) == (9, 0.9, 1000)
    Path("cfg/base.yaml").write_text("extends: " + str(CONFIG_DIR / "base.yaml") + "\nseed: 11\n")  # a base of one's own wins
    assert load_config("cfg/mine.yaml")["seed"] == 11

    Path("cfg/orphan.yaml").write_text("extends: nowhere\n")
    with pytest.raises(ConfigError, match=r"cfg/orphan.yaml: extends: config file 'nowhere' not found \(looked for cfg/nowhere.yaml"):
        load_config("cfg/orphan.yaml")
    with pytest.raises(ConfigError, match=r"config file 'cfg/absent.yaml' not found .*shipped configs: \['base', 'quickstart'"):
        load_config("cfg/absent.yaml")


def test_malformed_yaml_is_a_config_error_naming_the_file_and_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("seed: 1\ntimesteps: 5: 6\n")
    with pytest.raises(ConfigError, match=re.escape(f"{bad}, line 2, column 13: malformed YAML: mapping values are not allowed here")):
        load_config(bad)
    bad.write_text("- just\n- a list\n")
    with pytest.raises(ConfigError, match=re.escape(f"{bad}: a config must be a mapping of keys to values, not list")):
        load_config(bad)
    with pytest.raises(ConfigError, match=re.escape("override 'algo.net_arch=[16', line 1, column 4: malformed YAML")):
        load_config(None, ["algo.net_arch=[16"])
