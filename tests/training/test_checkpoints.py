"""Every committed checkpoint loads and plays legal games at every player count it claims (that it still
clears its bar: test_shipped_bar.py, slow), and checkpoints average."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from snack_envs.agents import heuristic_policy  # noqa: E402
from snack_envs.checkpoints import load_policy, player_counts, read_metadata  # noqa: E402
from snack_envs.training.evaluate import play_game  # noqa: E402

CHECKPOINT_DIR = Path(__file__).resolve().parents[2] / "checkpoints"  # the repository's shipped checkpoints
CHECKPOINTS = sorted(CHECKPOINT_DIR.glob("*.zip"))
REQUIRED = {"env_name", "env_version", "env_options", "num_players", "observation_size", "num_actions", "config",
            "seed", "timesteps", "wall_time_s", "library_versions", "evaluation", "bar"}


def test_there_is_a_checkpoint():
    assert CHECKPOINTS, "no committed checkpoint under checkpoints/"


@pytest.mark.parametrize("path", CHECKPOINTS, ids=lambda p: Path(p).stem)
def test_committed_checkpoint_loads_and_plays_legal_games(path):
    meta = read_metadata(path)
    assert REQUIRED <= set(meta), REQUIRED - set(meta)
    for n in player_counts(meta):
        policy = load_policy(path, env_name=meta["env_name"], num_players=n)
        heuristic = heuristic_policy(meta["env_name"], n, **meta["env_options"])
        for seed in range(max(n, 4)):  # the raw env raises on any illegal action
            lineup = [policy if s == seed % n else heuristic for s in range(n)]
            result = play_game(meta["env_name"], lineup, seed, num_players=n, **meta["env_options"])
            assert result["finished"]
    assert (CHECKPOINT_DIR / "README.md").read_text().count(f"`{path.name}`") >= 1  # its part of the README


@pytest.mark.parametrize("deterministic", [True, False])
def test_a_policy_refuses_a_mask_that_allows_nothing_instead_of_playing_an_illegal_action(deterministic):
    """`act` raises; `act_batch` answers -1 for that row and acts in the others."""
    import numpy as np

    policy = load_policy(CHECKPOINT_DIR / "snack_wars_v0.zip", "snack_wars_v0", 2, deterministic=deterministic)
    observation = np.zeros(policy.model.observation_space.shape, np.float32)
    with pytest.raises(ValueError, match="the action mask allows no action"):
        policy.act(observation, np.zeros(policy.model.action_space.n, np.int8))
    masks = np.zeros((3, policy.model.action_space.n), np.int8)
    masks[0, [3, 7]] = masks[2, 5] = 1  # row 1 allows nothing: -1 there, as the batched engine's bots answer
    actions = policy.act_batch(np.stack([observation] * 3), masks)
    assert actions[0] in (3, 7) and actions[1] == -1 and actions[2] == 5


@pytest.mark.parametrize("path", CHECKPOINTS, ids=lambda p: Path(p).stem)
def test_a_committed_checkpoints_lineage_names_recipes_and_checkpoints_in_the_repository(path):
    """Each run behind a shipped checkpoint is named by a config in configs/ (`recipe`) or a file in the repository
    (`checkpoint`, at a `commit` when it has since been replaced): never a path in a temporary folder."""
    root = CHECKPOINT_DIR.parent
    lineage = read_metadata(path).get("lineage", [])
    for entry in lineage:
        named = [entry[key] for key in ("recipe", "checkpoint") if key in entry]
        assert named, f"{path.name}: a lineage entry names neither a recipe nor a checkpoint: {entry}"
        for name in named:
            assert not Path(name).is_absolute() and (root / name).is_file(), f"{path.name}: {name} is not in the repository"
    assert all(entry.get("recipe", "configs/").startswith("configs/") for entry in lineage)


def test_averaging_checkpoints_gives_the_mean_weights_and_refuses_other_envs(tmp_path, capsys):
    import time

    import torch
    from sb3_contrib import MaskablePPO

    from snack_envs.checkpoints import CheckpointError, save_checkpoint
    from snack_envs.training.average import average
    from snack_envs.training.config import load_config
    from snack_envs.training.backends.sb3 import make_vec_env
    from snack_envs.training.run import checkpoint_metadata

    def tiny(name, seed, config_name="snack_rabbits"):
        config = load_config(config_name, ["n_envs=1", "algo.n_steps=64", "algo.batch_size=64", "algo.net_arch=[16]"])
        model = MaskablePPO("MlpPolicy", make_vec_env(config, tmp_path / name), seed=seed, device="cpu",
                            policy_kwargs={"net_arch": [16]}, n_steps=64, batch_size=64)
        meta = checkpoint_metadata(config, 64, {"started": time.time()})
        return save_checkpoint(model, tmp_path / f"{name}.zip", meta), model

    (a, model_a), (b, model_b) = tiny("a", 1), tiny("b", 2)
    out = average(tmp_path / "soup.zip", [a, b], timesteps=128, wall_time_s=1.0, note="test")
    soup = load_policy(out, "snack_rabbits_v0").model.policy.state_dict()
    for key, value in model_a.policy.state_dict().items():
        assert torch.allclose(soup[key], (value + model_b.policy.state_dict()[key]) / 2)
    meta = read_metadata(out)
    assert meta["timesteps"] == 128 and [m["path"] for m in meta["averaged_from"]] == [str(a), str(b)]
    assert meta["player_counts"] == read_metadata(a)["player_counts"] == [2]  # the counts it plays, kept
    wars, _ = tiny("w", 3, "snack_wars")
    with pytest.raises(CheckpointError, match="env_name"):
        average(tmp_path / "bad.zip", [a, wars], timesteps=1, wall_time_s=1.0)

    # The command keeps work on disk: an OUT that exists is refused, unchanged, unless --force replaces it.
    from snack_envs.training.average import main

    before = a.read_bytes(), a.with_suffix(".json").read_bytes()
    argv = [str(a), str(a), str(b), "--timesteps", "128", "--wall-time-s", "1"]
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2 and (a.read_bytes(), a.with_suffix(".json").read_bytes()) == before
    assert f"{a} exists: give another OUT, or --force" in capsys.readouterr().err
    main([*argv, "--force"])
    assert read_metadata(a)["averaged_from"][0]["path"] == str(a)


def test_loading_a_checkpoint_leaves_the_global_random_generators_as_they_were(tmp_path):
    # SB3's load seeds Python's, numpy's and torch's global generators with the checkpoint's saved seed; a
    # training run that loads snapshots of itself would start its own random streams over at each one.
    import random
    import shutil

    import numpy as np
    import torch

    copy = tmp_path / "agent.zip"  # a path no earlier load has cached
    shutil.copy(CHECKPOINT_DIR / "snack_rabbits_v0.zip", copy)
    shutil.copy(CHECKPOINT_DIR / "snack_rabbits_v0.json", copy.with_suffix(".json"))
    random.seed(11)
    np.random.seed(12)
    torch.manual_seed(13)
    expected = random.random(), np.random.random(), torch.rand(1).item()
    random.seed(11)
    np.random.seed(12)
    torch.manual_seed(13)
    load_policy(copy, env_name="snack_rabbits_v0", num_players=2)
    assert (random.random(), np.random.random(), torch.rand(1).item()) == expected


@pytest.mark.parametrize("out", ["soup.txt", "soup.v2", "soup.json"])
def test_averaging_refuses_an_out_that_is_no_zip_instead_of_writing_under_another_name(tmp_path, capsys, out):
    from snack_envs.training.average import main

    with pytest.raises(SystemExit) as stopped:
        main([str(tmp_path / out), "a.zip", "b.zip", "--timesteps", "1", "--wall-time-s", "1"])
    assert stopped.value.code == 2 and list(tmp_path.iterdir()) == []
    assert f"is no .zip: the checkpoint would be written as {tmp_path / Path(out).stem}.zip" in capsys.readouterr().err
