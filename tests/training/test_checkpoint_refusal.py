"""`load_policy` refuses a checkpoint that does not fit the game before any game is played (issue 17): weights
paired with another game's metadata, an RLlib checkpoint for another game, metadata for another game, version
or player count, or metadata that is not JSON; each with a CheckpointError naming the path and the problem."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from snack_envs import specs  # noqa: E402
from snack_envs.agents import make_policy  # noqa: E402
from snack_envs.checkpoints import CheckpointError, load_policy  # noqa: E402
from snack_envs.training import evaluate  # noqa: E402
from snack_envs.training.evaluate import play_game  # noqa: E402
from tests.helpers import CHECKPOINTS, relabelled_checkpoint  # noqa: E402


def swapped(tmp_path: Path, weights: str, metadata: str) -> Path:
    """One shipped checkpoint's weights beside another's metadata."""
    path = tmp_path / "swapped.zip"
    shutil.copyfile(CHECKPOINTS / f"{weights}.zip", path)
    shutil.copyfile(CHECKPOINTS / f"{metadata}.json", path.with_suffix(".json"))
    return path


@pytest.mark.parametrize("env_name", [None, "snack_rabbits_v0"])
def test_weights_paired_with_another_games_metadata_are_refused(env_name, tmp_path):
    path = swapped(tmp_path, "snack_wars_v0", "snack_rabbits_v0")
    with pytest.raises(CheckpointError, match=r"swapped.zip: its network takes 134 observation values and scores 86 "
                                              r"actions, but snack_rabbits_v0 \(2 players\) has 85 and 49"):
        load_policy(path, env_name=env_name)


def test_weights_paired_with_another_games_metadata_are_one_line_in_snack_eval(tmp_path, capsys):
    path = swapped(tmp_path, "speed_snacks_v1", "snack_rabbits_v0")
    with pytest.raises(SystemExit) as stop:
        evaluate.main(["--env", "snack_rabbits_v0", "--agents", "random", str(path), "--games", "2"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("snack-eval: error: ") and "swapped.zip: its network takes 294" in err


def test_metadata_for_another_game_version_or_player_count_is_refused_naming_what(tmp_path):
    path = swapped(tmp_path, "snack_rabbits_v0", "snack_rabbits_v0")
    meta = json.loads(path.with_suffix(".json").read_text())
    load_policy(path, "snack_rabbits_v0", 2)  # fits as shipped
    for change, message in [
        ({"env_name": "snack_wars_v0"}, "trained on snack_wars_v0, not snack_rabbits_v0"),
        ({"env_name": "snack_chess_v0"}, "snack_chess_v0'?, which is no env of this package"),
        ({"env_name": "speed_snacks_v0"}, "retired"),
        ({"env_version": 99}, "env_version is 99"),
        ({"num_players": 3, "player_counts": [3]}, "supports num_players=3 only .* not num_players=2"),
    ]:
        path.with_suffix(".json").write_text(json.dumps(dict(meta, **change)))
        with pytest.raises(CheckpointError, match=message):
            load_policy(path, "snack_rabbits_v0", 2)
    path.with_suffix(".json").write_text(json.dumps({k: v for k, v in meta.items() if k != "num_actions"}))
    with pytest.raises(CheckpointError, match=r"lacks \['num_actions'\]"):
        load_policy(path)
    path.with_suffix(".json").write_text('{"format": "snack-envs-checkpoint/1",\n  "env_name": }')
    with pytest.raises(CheckpointError, match=r"swapped.json, line 2: the metadata is not valid JSON"):
        load_policy(path)


def test_a_checkpoint_supports_only_its_player_count_and_says_which(tmp_path):
    path = relabelled_checkpoint(tmp_path, "snack_wars_v0", [2])
    with pytest.raises(CheckpointError, match=rf"{path.name}: checkpoint supports num_players=2 only .* not num_players=3"):
        make_policy(str(path), "snack_wars_v0", 3)


# --- RLlib checkpoints ------------------------------------------------------------------------------------------
def rllib_module_checkpoint(env_name: str, path: Path) -> Path:
    """A freshly built (untrained) learner module of `env_name`, saved as RLlib saves one: no Ray needed."""
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from snack_envs.integrations.rllib import MaskedPPOTorchRLModule

    raw = specs.get(env_name).raw_env(num_players=2)
    agent = raw.possible_agents[0]
    module = RLModuleSpec(module_class=MaskedPPOTorchRLModule, observation_space=raw.observation_space(agent),
                          action_space=raw.action_space(agent), model_config={"fcnet_hiddens": [8]}).build()
    module.save_to_path(str(path))
    return path


def test_an_rllib_checkpoint_for_another_game_is_refused_before_play(tmp_path, capsys):
    pytest.importorskip("ray.rllib")
    from snack_envs.checkpoints import RLLIB_RUN_FORMAT, env_facts, write_json_atomic
    from snack_envs.integrations.rllib import load_policy as load_rllib_policy

    wars = rllib_module_checkpoint("snack_wars_v0", tmp_path / "final")
    with pytest.raises(CheckpointError, match=r"final: its network takes 134 observation values and scores 86 actions, "
                                              r"but snack_rabbits_v0 \(2 players\) has 85 and 49"):
        make_policy(str(wars), "snack_rabbits_v0", 2)  # what snack-eval and snack-play call
    policy = make_policy(str(wars), "snack_wars_v0", 2)  # the right game plays
    assert play_game("snack_wars_v0", [policy, policy], seed=0)["finished"]

    # The run's metadata beside the folder (snack-train --backend rllib writes final.json) is checked first.
    write_json_atomic(tmp_path / "final.json", {"format": RLLIB_RUN_FORMAT, **env_facts("snack_wars_v0", 2)})
    with pytest.raises(CheckpointError, match="final: checkpoint was trained on snack_wars_v0, not snack_rabbits_v0"):
        load_rllib_policy(wars, env_name="snack_rabbits_v0")
    with pytest.raises(CheckpointError, match="supports num_players=2 only"):
        load_rllib_policy(wars, env_name="snack_wars_v0", num_players=3)

    (tmp_path / "empty").mkdir()
    with pytest.raises(CheckpointError, match="empty: not an RLlib checkpoint"):
        make_policy(str(tmp_path / "empty"), "snack_wars_v0", 2)

    # Through the command line: refused in one line (Ray may log its own warnings on the lines before it).
    with pytest.raises(SystemExit) as stop:
        evaluate.main(["--env", "snack_rabbits_v0", "--agents", "random", str(wars), "--games", "2"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "Traceback" not in err
    assert err.splitlines()[-1].startswith("snack-eval: error: ") and "trained on snack_wars_v0" in err.splitlines()[-1]


def edited_metadata(tmp_path: Path, **changes) -> Path:
    """The shipped Snack Rabbits checkpoint beside its metadata with `changes` made."""
    path = tmp_path / "c.zip"
    shutil.copyfile(CHECKPOINTS / "snack_rabbits_v0.zip", path)
    meta = json.loads((CHECKPOINTS / "snack_rabbits_v0.json").read_text())
    path.with_suffix(".json").write_text(json.dumps({**meta, **changes}))
    return path


@pytest.mark.parametrize("env_name", [["snack_rabbits_v0"], {"name": "snack_rabbits_v0"}], ids=["a list", "a dict"])
def test_metadata_whose_env_name_is_no_string_is_no_env_of_this_package(env_name, tmp_path):
    """It failed in TypeError (unhashable), naming neither the file nor the problem. Found by helper-65's probe."""
    with pytest.raises(CheckpointError, match=r"c.zip: checkpoint was trained on .*, which is no env of this package"):
        load_policy(edited_metadata(tmp_path, env_name=env_name), "snack_rabbits_v0")


def test_metadata_whose_env_options_set_num_players_is_refused_naming_the_path(tmp_path):
    """raw_env got num_players twice: a TypeError naming neither the file nor the problem."""
    with pytest.raises(CheckpointError, match=r"c.zip: the checkpoint's env_options .* set num_players"):
        load_policy(edited_metadata(tmp_path, env_options={"num_players": 3}), "snack_rabbits_v0")


def test_metadata_whose_num_players_is_not_among_its_player_counts_is_refused(tmp_path):
    """Its facts were checked at a count it does not claim to play (helper-65's note)."""
    with pytest.raises(CheckpointError, match=r"c.zip: the checkpoint's num_players 2 is not among its player_counts \[3, 4\]"):
        load_policy(edited_metadata(tmp_path, player_counts=[3, 4]), "snack_rabbits_v0")
