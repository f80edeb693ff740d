"""Edges of a recipe's stages (`config.stage_configs`) and of where the shipped configs are found
(`config._config_dir`) that a mutation probe of those two functions found no test for."""

from __future__ import annotations

import re
import zipfile
from types import SimpleNamespace

import pytest

from snack_envs.core.game import ConfigError
from snack_envs.training import config as config_module
from snack_envs.training.config import CONFIG_DIR, load_config, stage_configs
from tests.helpers import recipe_of


def test_the_shipped_configs_are_a_folder_on_disk_and_a_zipped_import_is_refused_naming_the_package(tmp_path, monkeypatch):
    """importlib.resources gives the configs package as a folder in every pip install; a zipped import (a
    Traversable that is no Path) cannot be read with open() and is an ImportError saying to install with pip."""
    assert config_module._config_dir() == CONFIG_DIR and (CONFIG_DIR / "quickstart.yaml").is_file()
    archive = tmp_path / "snack_envs.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("snack_envs/training/configs/quickstart.yaml", (CONFIG_DIR / "quickstart.yaml").read_text())
    asked = []

    def files(package):
        asked.append(package)
        return zipfile.Path(archive, "snack_envs/training/configs/")

    monkeypatch.setattr(config_module, "resources", SimpleNamespace(files=files))
    with pytest.raises(ImportError, match=re.escape("snack_envs.training.configs is not a folder on disk (") +
                       r".*" + re.escape("): install snack-envs with pip")):
        config_module._config_dir()
    assert asked == ["snack_envs.training.configs"]


def test_a_select_stage_picking_from_the_stage_just_before_it_plays_that_stages_config_without_its_keep_at(tmp_path):
    """A pick plays the weights its source stage trained, so it runs with that stage's whole config, also when
    the source is the stage right before it; it trains nothing, so it keeps no checkpoints: the recipe's keep_at
    stays with the training stages (the source's with the pick's candidates added), not with the pick."""
    path = recipe_of(tmp_path, "{timesteps: 300}", "{timesteps: 400, algo: {learning_rate: 1.0e-4}}",
                     "{select: {stage: 2, at: [100], against: random, players: [2], games: 2, seeds: [0]}}",
                     top="keep_at: [50]\n")
    first, second, picked = stage_configs(load_config(path))
    assert (picked["timesteps"], picked["algo"]["learning_rate"]) == (400, 1e-4)
    assert "keep_at" not in picked and picked["init_from"] is None
    assert (first["keep_at"], second["keep_at"]) == ([50], [50, 100])


SELECT = "select: {%sat: [100], against: random, players: [2], games: 2, seeds: [0]}"


@pytest.mark.parametrize("source, error", [
    (SELECT % "", "select is missing ['stage']"),
    ("start: {timesteps: 100}", "start={'timesteps': 100} must name a stage"),
    (SELECT % "stage: 9, ", "select.stage=9 must be an earlier stage (1 to 1)"),
    ("start: {stage: 9, timesteps: 100}", "start.stage=9 must be an earlier stage (1 to 1)"),
])
def test_a_select_or_start_naming_no_stage_or_one_past_the_recipe_is_refused_as_such_not_a_traceback(tmp_path, source, error):
    """The stages are merged (stage_configs, which keeps a checkpoint for each start and select in the stage
    they name) before their sources are checked: a select or start that names no stage, or one past the
    recipe's last, must reach that check and be a ConfigError saying so, not a TypeError or IndexError."""
    with pytest.raises(ConfigError, match=re.escape(f"stages[1] (stage 2): {error}")):
        load_config(recipe_of(tmp_path, "{timesteps: 300}", "{%s}" % source))


def test_a_later_stage_that_sets_only_dagger_rounds_imitates_with_the_recipes_games_and_its_own_rounds():
    """Stage k > 1 imitates where it sets imitation.games or imitation.dagger_rounds: rounds alone count too
    (its games come from the recipe); a stage setting neither gets both 0."""
    config = {"timesteps": 300, "imitation": {"games": 3, "dagger_rounds": 2},
              "stages": [{}, {"imitation": {"dagger_rounds": 4}}, {"imitation": {"teacher": "search"}}]}
    first, second, third = stage_configs(config)
    assert first["imitation"] == {"games": 3, "dagger_rounds": 2}
    assert second["imitation"] == {"games": 3, "dagger_rounds": 4}
    assert third["imitation"] == {"games": 0, "dagger_rounds": 0, "teacher": "search"}


def test_a_recipe_that_extends_nothing_and_lacks_sections_is_refused_naming_them_not_a_traceback(tmp_path):
    """`extends: null` leaves out base.yaml: the stages are merged (a later stage's imitation reset where the
    recipe has no imitation section at all) before the missing keys are named."""
    path = tmp_path / "bare.yaml"
    path.write_text("extends: null\nenv: {name: snack_rabbits_v0, num_players: 2}\ntimesteps: 300\n"
                    "stages:\n  - {}\n  - {timesteps: 200}\n")
    with pytest.raises(ConfigError, match=re.escape("stages[0] (stage 1): config is missing [") + r".*'imitation'\]$"):
        load_config(path)
    assert stage_configs({"timesteps": 300, "stages": [{}, {}]})[1]["imitation"] == {"games": 0, "dagger_rounds": 0}
