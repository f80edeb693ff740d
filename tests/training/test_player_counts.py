"""One policy for several player counts (issue 19): `env.num_players: [2, 3, 4]` in a config trains one
network on every count at once (a game's observations and actions have one size at every count), the
checkpoint's metadata lists the counts (`player_counts`), and `load_policy`, `snack-play` and `init_from`
accept each of them and refuse the rest."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from snack_envs.checkpoints import CheckpointError, load_policy, player_counts  # noqa: E402
from snack_envs.core.game import ConfigError  # noqa: E402
from snack_envs.training import play  # noqa: E402
from snack_envs.training.backends.sb3 import make_vec_env  # noqa: E402
from snack_envs.training.config import load_config  # noqa: E402
from tests.helpers import CHECKPOINTS, relabelled_checkpoint  # noqa: E402


def multi_count_checkpoint(tmp_path: Path, counts: list[int]) -> Path:
    """The shipped Snack Rabbits weights, relabelled as trained for `counts`."""
    return relabelled_checkpoint(tmp_path, "snack_rabbits_v0", counts)


def test_a_config_takes_one_player_count_or_a_list_of_distinct_ones():
    assert load_config("snack_rabbits", ["env.num_players=[2, 3, 4]"])["env"]["num_players"] == [2, 3, 4]
    assert load_config("snack_rabbits", ["env.num_players=3"])["env"]["num_players"] == 3
    for bad, message in [("[2, 2]", "distinct"), ("[]", "non-empty"), ("[2, 0]", r"num_players\[1\]=0 is out of range"),
                         ("[2, 1.5]", r"num_players\[1\]=1.5 must be an integer")]:
        with pytest.raises(ConfigError, match=message):
            load_config("snack_rabbits", [f"env.num_players={bad}"])
    with pytest.raises(ConfigError, match="env: .*5"):  # Snack Rabbits seats 2 to 4
        load_config("snack_rabbits", ["env.num_players=[2, 5]"])


def test_the_batched_training_envs_play_every_count_side_by_side(tmp_path):
    config = load_config("snack_rabbits", ["env.num_players=[2, 3, 4]", "n_envs=9", "algo.batch_size=64"])
    vec = make_vec_env(config, tmp_path)
    assert vec.num_envs == 9 and [part.num_players for part in vec.parts] == [2, 3, 4]
    obs = vec.reset()
    assert obs.shape == (9, 85) and vec.env_method("action_masks")[8].shape == (49,)
    rng = np.random.default_rng(0)
    ended = np.zeros(9, int)
    for _ in range(300):
        masks = vec.action_masks()
        obs, rewards, dones, infos = vec.step((rng.random(masks.shape) * masks).argmax(1))
        ended += dones
        for k, part in enumerate(vec.parts):  # rows 3k..3k+2 are part k's games, each of (2, 3, 4)[k] players
            assert np.array_equal(obs[3 * k:3 * k + 3], part._learner_obs())
            assert np.array_equal(vec.action_masks()[3 * k:3 * k + 3], part.action_masks())
            assert all(part.batch.export(i).num_players == (2, 3, 4)[k] for i in range(3))
    assert (ended > 0).all()


def test_a_checkpoint_plays_every_count_its_metadata_lists_and_no_other(tmp_path):
    path = multi_count_checkpoint(tmp_path, [2, 3, 4])
    assert player_counts(json.loads(path.with_suffix(".json").read_text())) == [2, 3, 4]
    for n in (2, 3, 4):
        load_policy(path, "snack_rabbits_v0", n)
    load_policy(path, "snack_rabbits_v0", np.int64(3))  # a numpy integer is an int, as the envs take it
    with pytest.raises(CheckpointError, match=r"supports num_players in \[2, 3, 4\] only .* not num_players=5$"):
        load_policy(path, "snack_rabbits_v0", 5)
    with pytest.raises(CheckpointError, match=r"num_players='3' is not an int"):
        load_policy(path, "snack_rabbits_v0", "3")
    with pytest.raises(CheckpointError, match="supports num_players=2 only"):
        load_policy(relabelled_checkpoint(tmp_path, "snack_wars_v0", [2]), "snack_wars_v0", 3)


def test_snack_play_seats_a_multi_count_checkpoint_at_each_of_its_counts(tmp_path):
    path = multi_count_checkpoint(tmp_path, [2, 3, 4])
    for n in (3, 4):
        said = []
        assert play.play("snack_rabbits_v0", [str(path)], n, seat=n - 1, seed=1, ask=lambda _: "q", say=said.append) is None
        assert said[0].endswith(", ".join(f"player_{i} ({path.stem})" for i in range(n - 1)))


def test_init_from_takes_a_checkpoint_of_other_player_counts(tmp_path):
    config = load_config("snack_rabbits", ["env.num_players=[3, 4]", f"init_from={CHECKPOINTS / 'snack_rabbits_v0.zip'}"])
    assert config["init_from"].endswith("snack_rabbits_v0.zip")
    with pytest.raises(ConfigError, match="trained on speed_snacks_v1"):
        load_config("snack_rabbits", ["env.num_players=[3, 4]", f"init_from={CHECKPOINTS / 'speed_snacks_v1.zip'}"])


def test_a_run_on_several_counts_records_them_and_evaluates_each(tmp_path):
    from snack_envs.training.backends.sb3 import train

    config = load_config("snack_rabbits", ["env.num_players=[2, 3]", "timesteps=256", "n_envs=4", "algo.n_steps=64",
                                           "algo.batch_size=128", "eval.every=100000", "eval.games=2",
                                           "eval.final_games=2", "algo.net_arch=[16]"])
    result = train(config, tmp_path / "run")
    meta = json.loads((tmp_path / "run" / "final.json").read_text())
    assert meta["player_counts"] == [2, 3] and meta["num_players"] == 2
    assert sorted(result["evaluation"]) == ["heuristic@2p", "heuristic@3p", "random@2p", "random@3p"]
    assert result["evaluation"]["heuristic@3p"]["num_players"] == 3
    load_policy(tmp_path / "run" / "final.zip", "snack_rabbits_v0", 3)
