"""Edge cases of `snack_envs.checkpoints` that a mutation probe of the module found no test for: the metadata's
format and player counts as `read_metadata`, `player_counts` and `check_fits` check them, the files
`save_checkpoint` and `write_atomic` write, and how `masked_sample` and `CheckpointPolicy.act_batch` draw.
Each checkpoint here is a shipped one copied (and perhaps relabelled) into a temporary folder, or a fake
model that only saves bytes: no training."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from snack_envs import checkpoints
from snack_envs.checkpoints import (
    FORMAT,
    RLLIB_RUN_FORMAT,
    CheckpointError,
    check_fits,
    env_facts,
    masked_sample,
    player_counts,
    read_metadata,
    save_checkpoint,
    write_json_atomic,
)
from tests.helpers import CHECKPOINTS, relabelled_checkpoint


def shipped_metadata(game: str) -> dict:
    return json.loads((CHECKPOINTS / f"{game}.json").read_text())


def copied_checkpoint(tmp_path: Path, game: str, metadata_text: str | None = None) -> Path:
    """The shipped `game` checkpoint copied into `tmp_path`, its metadata file replaced by `metadata_text` if given."""
    path = tmp_path / f"{game}.zip"
    shutil.copyfile(CHECKPOINTS / f"{game}.zip", path)
    text = (CHECKPOINTS / f"{game}.json").read_text() if metadata_text is None else metadata_text
    path.with_suffix(".json").write_text(text)
    return path


# --- read_metadata: the format ----------------------------------------------------------------------------------
def test_metadata_of_another_format_is_refused_naming_the_format_found_and_the_one_expected(tmp_path):
    meta = shipped_metadata("snack_wars_v0")
    path = copied_checkpoint(tmp_path, "snack_wars_v0", json.dumps(dict(meta, format="other-checkpoint/9")))
    with pytest.raises(CheckpointError, match=r"snack_wars_v0.json: unknown checkpoint format 'other-checkpoint/9', "
                                              r"expected 'snack-envs-checkpoint/1'$"):
        read_metadata(path)
    path.with_suffix(".json").write_text(json.dumps({k: v for k, v in meta.items() if k != "format"}))
    with pytest.raises(CheckpointError, match="unknown checkpoint format None"):
        read_metadata(path)


def test_metadata_is_read_only_in_the_formats_asked_for():
    path = CHECKPOINTS / "snack_wars_v0.zip"
    assert read_metadata(path)["format"] == FORMAT
    assert read_metadata(path, (RLLIB_RUN_FORMAT, FORMAT))["format"] == FORMAT
    with pytest.raises(CheckpointError, match=rf"unknown checkpoint format '{FORMAT}', expected '{RLLIB_RUN_FORMAT}'$"):
        read_metadata(path, (RLLIB_RUN_FORMAT,))
    with pytest.raises(CheckpointError, match=r"expected 'a/1' or 'b/1'$"):
        read_metadata(path, ("a/1", "b/1"))


@pytest.mark.parametrize("text, kind", [("[1, 2]", "list"), ('"snack-envs-checkpoint/1"', "str"), ("null", "NoneType")])
def test_metadata_that_is_not_a_json_object_is_refused_naming_its_type(text, kind, tmp_path):
    path = copied_checkpoint(tmp_path, "snack_wars_v0", text)
    with pytest.raises(CheckpointError, match=rf"unknown checkpoint format '{kind}'"):
        read_metadata(path)



def test_metadata_that_is_not_utf8_text_is_refused_naming_the_file(tmp_path):
    path = copied_checkpoint(tmp_path, "snack_wars_v0")
    path.with_suffix(".json").write_bytes(b'{"format": "\xff"}')
    with pytest.raises(CheckpointError, match=r"snack_wars_v0.json: the metadata is not UTF-8 text \(byte 12\)"):
        read_metadata(path)


@pytest.mark.parametrize("content", [b"not a zip at all", b"", None], ids=["other-file", "empty-file", "zip-without-data"])
def test_a_file_that_is_no_sb3_save_is_refused_by_check_archive_naming_it(content, tmp_path):
    import zipfile

    path = tmp_path / "weights.zip"
    if content is None:
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("policy.pth", b"")
    else:
        path.write_bytes(content)
    with pytest.raises(CheckpointError, match=r"weights.zip is not a checkpoint: "):
        checkpoints.check_archive(path)
    checkpoints.check_archive(CHECKPOINTS / "snack_wars_v0.zip")  # a real one passes

def test_read_metadata_says_whether_the_checkpoint_or_only_its_metadata_is_missing(tmp_path):
    with pytest.raises(CheckpointError, match=r"no checkpoint at .*nothing.zip$"):
        read_metadata(tmp_path / "nothing.zip")
    (tmp_path / "weights.zip").write_bytes(b"zip")
    with pytest.raises(CheckpointError, match=r"weights.json is missing: a checkpoint needs its metadata file$"):
        read_metadata(tmp_path / "weights.zip")


# --- player_counts ---------------------------------------------------------------------------------------------
def test_player_counts_are_the_listed_counts_sorted_without_repeats_else_the_one_trained_for():
    assert player_counts({"num_players": 2, "player_counts": [4, 2, 4, 3]}) == [2, 3, 4]
    assert player_counts({"num_players": 3}) == [3]
    assert player_counts({"num_players": 3, "player_counts": []}) == [3]
    assert player_counts({"num_players": 3, "player_counts": None}) == [3]


@pytest.mark.parametrize("counts", ["23", [2, "3"], [2, True], [2, 3.0], [None], (2, 3), {"2": 2}])
def test_player_counts_that_are_not_a_list_of_integers_are_refused(counts):
    with pytest.raises(CheckpointError, match=r"the checkpoint's player_counts .* is not a list of integers"):
        player_counts({"num_players": 2, "player_counts": counts})


def test_a_num_players_that_is_not_an_integer_is_refused_when_there_is_no_player_counts():
    with pytest.raises(CheckpointError, match=r"player_counts \['2'\] is not a list of integers"):
        player_counts({"num_players": "2"})


def test_a_checkpoint_whose_player_counts_are_not_integers_is_refused_by_load_policy_naming_the_path(tmp_path):
    pytest.importorskip("sb3_contrib")
    from snack_envs.checkpoints import load_policy

    path = copied_checkpoint(tmp_path, "snack_wars_v0", json.dumps(dict(shipped_metadata("snack_wars_v0"),
                                                                         player_counts=[2, "3"])))
    with pytest.raises(CheckpointError, match=r"snack_wars_v0.zip: the checkpoint's player_counts \[2, '3'\]"):
        load_policy(path, "snack_wars_v0", 2)


def test_load_policy_refuses_metadata_without_its_weights_and_a_folder_named_like_a_checkpoint(tmp_path):
    pytest.importorskip("sb3_contrib")
    from snack_envs.checkpoints import load_policy

    path = copied_checkpoint(tmp_path, "snack_wars_v0")
    path.unlink()  # the metadata is left, and fits
    with pytest.raises(CheckpointError, match=r"^no checkpoint at .*snack_wars_v0.zip$"):
        load_policy(path, "snack_wars_v0", 2)
    path.mkdir()
    with pytest.raises(CheckpointError, match=r"^no checkpoint at .*snack_wars_v0.zip$"):
        load_policy(path, "snack_wars_v0", 2)


# --- check_fits ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("num_players", [True, False, 2.0, "2"])
def test_check_fits_refuses_a_num_players_that_is_not_an_int_even_a_bool(num_players):
    meta = shipped_metadata("snack_wars_v0")  # plays 2 to 5 players: True (1) is refused for its type, not its count
    with pytest.raises(CheckpointError, match=r"num_players=.* is not an int$"):
        check_fits(meta, "snack_wars_v0", num_players)


def test_check_fits_gives_the_facts_of_the_player_count_asked_for_else_of_the_one_trained_for(tmp_path):
    meta = json.loads(relabelled_checkpoint(tmp_path, "snack_rabbits_v0", [3, 4]).with_suffix(".json").read_text())
    assert meta["num_players"] == 3
    assert check_fits(meta, "snack_rabbits_v0", 4) == env_facts("snack_rabbits_v0", 4)
    asked = check_fits(meta, "snack_rabbits_v0", np.int64(4))["num_players"]  # a numpy integer, made an int
    assert asked == 4 and type(asked) is int
    assert check_fits(meta, "snack_rabbits_v0", 3) == env_facts("snack_rabbits_v0", 3)
    assert check_fits(meta, None, None) == env_facts("snack_rabbits_v0", 3)  # the count it was trained for


def test_env_facts_builds_the_env_with_the_checkpoints_options():
    from snack_envs.core.game import ConfigError

    assert env_facts("snack_rabbits_v0", 3, {"suns_per_fence": 3}) == env_facts("snack_rabbits_v0", 3)
    with pytest.raises(ConfigError, match="suns_per_fence=99 is out of range"):
        env_facts("snack_rabbits_v0", 2, {"suns_per_fence": 99})


@pytest.mark.parametrize("change, message", [
    ({"env_options": {"bogus": 1}}, r"num_players=2 or env_options \{'bogus': 1\}: unknown keyword"),
    ({"env_options": {"suns_per_fence": 99}}, r"suns_per_fence=99 is out of range"),
    ({"env_options": [1]}, r"the checkpoint's env_options \[1\] is not a mapping"),
    ({"env_options": "suns_per_fence=3"}, r"env_options 'suns_per_fence=3' is not a mapping"),
    ({"num_players": 9, "player_counts": [9]}, r"refuses the checkpoint's num_players=9 .* played by 2 to 4 players"),
], ids=["unknown option", "option out of range", "options a list", "options a string", "a count the game does not seat"])
def test_metadata_whose_options_or_player_count_the_game_refuses_is_a_checkpoint_error_naming_the_path(
        change, message, tmp_path):
    """Not a ConfigError or TypeError about the caller's own options: the fault is the checkpoint's."""
    meta = dict(shipped_metadata("snack_rabbits_v0"), **change)
    path = copied_checkpoint(tmp_path, "snack_rabbits_v0", json.dumps(meta))
    with pytest.raises(CheckpointError, match=message):
        check_fits(read_metadata(path), "snack_rabbits_v0", None)
    pytest.importorskip("sb3_contrib")
    from snack_envs.checkpoints import load_policy

    with pytest.raises(CheckpointError, match=rf"snack_rabbits_v0.zip: .*{message}"):
        load_policy(path, "snack_rabbits_v0")


def test_a_player_count_listed_but_not_played_by_the_game_is_a_checkpoint_error_when_asked_for():
    meta = dict(shipped_metadata("snack_rabbits_v0"), player_counts=[2, 9])
    assert check_fits(meta, "snack_rabbits_v0", 2)["num_players"] == 2
    with pytest.raises(CheckpointError, match=r"refuses the checkpoint's num_players=9 .* played by 2 to 4 players"):
        check_fits(meta, "snack_rabbits_v0", 9)


# --- the files written --------------------------------------------------------------------------------------
class BytesModel:
    """All `save_checkpoint` asks of a model: `save(file)`."""

    def save(self, file):
        file.write(b"weights")


def test_save_checkpoint_adds_zip_to_the_path_and_writes_the_metadata_with_format_and_library_versions(tmp_path):
    import snack_envs

    path = save_checkpoint(BytesModel(), tmp_path / "runs" / "agent", {"env_name": "snack_wars_v0", "seed": 3})
    assert path == tmp_path / "runs" / "agent.zip" and path.read_bytes() == b"weights"
    meta = read_metadata(path)
    assert meta["format"] == FORMAT and meta["env_name"] == "snack_wars_v0" and meta["seed"] == 3
    versions = meta["library_versions"]
    assert versions["numpy"] == np.__version__ and versions["snack_envs"] == snack_envs.__version__
    assert "python" in versions
    assert sorted(p.name for p in path.parent.iterdir()) == ["agent.json", "agent.zip"]


def test_metadata_json_is_written_with_sorted_keys_and_two_space_indents_so_committed_diffs_stay_small(tmp_path):
    data = {"seed": 1, "env_name": "snack_wars_v0", "evaluation": {"random": {"win_rate": 0.5, "games": 2}}}
    path = tmp_path / "deep" / "er" / "run.json"  # folders that do not exist yet are made
    write_json_atomic(path, data)
    assert path.read_text() == json.dumps(data, indent=2, sort_keys=True)
    write_json_atomic(str(path), {"seed": 2})  # over an existing file, in an existing folder, by a str path
    assert json.loads(path.read_text()) == {"seed": 2}
    assert [p.name for p in path.parent.iterdir()] == ["run.json"]



def test_a_file_that_cannot_be_written_is_an_os_error_naming_it_not_its_temporary_file(tmp_path, monkeypatch):
    def refuse(**kwargs):
        raise PermissionError(13, "Permission denied", str(Path(kwargs["dir"]) / ".x.json.abc.tmp"))

    monkeypatch.setattr(checkpoints.tempfile, "mkstemp", refuse)
    with pytest.raises(PermissionError) as raised:
        write_json_atomic(tmp_path / "x.json", {})
    assert raised.value.filename == str(tmp_path / "x.json") and raised.value.strerror == "Permission denied"
    assert list(tmp_path.iterdir()) == []

def test_umask_reads_the_process_umask_without_proc_and_leaves_it_unchanged(monkeypatch):
    class Unreadable:
        def read_text(self):
            raise OSError("no /proc here")

    monkeypatch.setattr(checkpoints, "Path", lambda *_: Unreadable())
    old = os.umask(0o027)
    try:
        assert checkpoints.umask() == 0o027
        assert os.umask(0o027) == 0o027  # still the process's umask after the call
    finally:
        os.umask(old)


@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="reads /proc/self/status (Linux)")
def test_umask_on_linux_reads_proc_and_never_sets_the_umask(monkeypatch):
    """Setting the umask to read it back would, for that moment, change the mode of files other threads create."""
    def refuse(_):
        raise AssertionError("os.umask called")

    old = os.umask(0o027)
    try:
        monkeypatch.setattr(checkpoints.os, "umask", refuse)
        assert checkpoints.umask() == 0o027
    finally:
        monkeypatch.undo()
        os.umask(old)


# --- drawing actions -------------------------------------------------------------------------------------------
def test_masked_sample_draws_legal_actions_by_the_masked_softmax():
    rng = np.random.default_rng(0)
    logits = np.array([0.0, np.log(2.0), 9.0, 0.0])
    mask = np.array([1, 1, 0, 1], np.int8)
    draws = np.bincount([masked_sample(logits, mask, rng) for _ in range(4000)], minlength=4) / 4000
    assert draws[2] == 0
    assert np.allclose(draws, [0.25, 0.5, 0.0, 0.25], atol=0.03)


def test_masked_sample_takes_large_logits_without_overflow():
    rng = np.random.default_rng(1)
    logits = np.array([1000.0, 999.0, 2000.0])  # exp(1000) overflows a float64
    draws = [masked_sample(logits, np.array([1, 1, 0]), rng) for _ in range(2000)]
    assert set(draws) == {0, 1}
    assert abs(np.mean(np.array(draws) == 0) - np.e / (1 + np.e)) < 0.04


class FixedLogits(checkpoints.LogitsPolicy):
    def logits(self, observation, action_mask):
        return np.array([5.0, 1.0, 0.0, 1.0])


def test_a_logits_policy_plays_its_best_legal_action_every_time_by_default_and_refuses_an_empty_mask_by_name():
    policy = FixedLogits("fixed")
    assert policy.act(np.zeros(2), np.array([1, 1, 1, 1])) == 0
    assert {policy.act(np.zeros(2), np.array([0, 1, 1, 1])) for _ in range(30)} == {1}  # the best allowed; ties: first
    with pytest.raises(NotImplementedError):
        checkpoints.LogitsPolicy("abstract").act(np.zeros(2), np.ones(4))
    with pytest.raises(ValueError, match="^fixed: the action mask allows no action"):
        FixedLogits("fixed", deterministic=False).act(np.zeros(2), np.zeros(4))


def test_a_logits_policy_refuses_a_position_of_another_size_where_it_knows_its_sizes():
    """A checkpoint's policy knows its network's sizes: a vector or mask of another size, or a batch, is a
    ValueError naming the shapes (it failed inside SB3 or torch: 'shape [1, 49] is invalid for input of size 48')."""
    sized = FixedLogits("fixed")
    sized.observation_size, sized.num_actions = 2, 4
    with pytest.raises(ValueError, match=r"^fixed: an observation must have shape \(2,\); got shape \(3,\)$"):
        sized.act(np.zeros(3), np.ones(4))
    with pytest.raises(ValueError, match=r"^fixed: an action mask must have shape \(4,\); got shape \(1, 4\) \(one pos"):
        sized.act(np.zeros(2), np.ones((1, 4)))
    assert FixedLogits("fixed").act(np.zeros(7), np.ones(4)) == 0  # sizes unknown: only one position is checked
    policy = checkpoints.load_policy(CHECKPOINTS / "snack_rabbits_v0.zip", "snack_rabbits_v0", 2)
    assert (policy.observation_size, policy.num_actions) == (85, 49)
    with pytest.raises(ValueError, match=r"an action mask must have shape \(49,\); got shape \(48,\)"):
        policy.act(np.zeros(85), np.ones(48))


def test_a_sampling_logits_policy_is_reseeded_by_reset_with_a_seed_and_left_alone_by_reset_without_one():
    mask = np.array([0, 1, 1, 1])

    def draws(policy):
        return [policy.act(np.zeros(2), mask) for _ in range(40)]

    first = draws(FixedLogits("fixed", deterministic=False, seed=5))
    unseeded = FixedLogits("fixed", deterministic=False, seed=5)
    unseeded.reset()  # no seed: the policy's stream goes on
    assert draws(unseeded) == first
    unseeded.reset(5)
    assert draws(unseeded) == first
    assert set(first) == {1, 2, 3}


def test_size_of_an_observation_space_is_its_length_only_when_flat():
    import gymnasium

    assert checkpoints._size(gymnasium.spaces.Box(0, 1, (7,))) == 7
    assert checkpoints._size(gymnasium.spaces.Box(0, 1, (3, 4))) is None
    assert checkpoints._size(gymnasium.spaces.Box(0, 1, ())) is None
    assert checkpoints._size(gymnasium.spaces.Dict({"observation": gymnasium.spaces.Box(0, 1, (7,))})) is None
    assert checkpoints._size(gymnasium.spaces.Discrete(5)) is None


def positions(game: str, count: int, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Observations and masks, with a choice to make, met in seeded random 2-player games of `game`."""
    import snack_envs

    rng = np.random.default_rng(seed)
    env = snack_envs.make(game, num_players=2)
    found = []
    while len(found) < count:
        env.reset(seed=int(rng.integers(1 << 30)))
        for _ in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            mask = obs["action_mask"]
            if mask.sum() > 1 and len(found) < count:
                found.append((obs["observation"].copy(), mask.copy()))
            env.step(int(rng.choice(np.flatnonzero(mask))))
    return found


def softened_policy(deterministic: bool, seed: int | None = None):
    """The shipped Snack Wars weights, their action head scaled down so that more than one action is often likely
    (a model of its own, not load_policy's cached one), as a CheckpointPolicy."""
    pytest.importorskip("sb3_contrib")
    import torch

    from snack_envs.checkpoints import CheckpointPolicy, load_model

    model = load_model(CHECKPOINTS / "snack_wars_v0.zip")
    with torch.no_grad():
        model.policy.action_net.weight.mul_(0.3)
        model.policy.action_net.bias.mul_(0.3)
    return CheckpointPolicy(model, "softened", deterministic=deterministic, seed=seed)


def test_a_checkpoint_policy_is_deterministic_unless_asked_otherwise():
    from snack_envs.checkpoints import CheckpointPolicy

    assert CheckpointPolicy(softened_policy(False).model, "plain").deterministic


def test_act_batch_plays_what_act_plays_when_deterministic():
    policy = softened_policy(True)
    found = positions("snack_wars_v0", 40, seed=2)
    batch = policy.act_batch(np.stack([o for o, _ in found]), np.stack([m for _, m in found]))
    assert batch.tolist() == [policy.act(o, m) for o, m in found]


def test_act_batch_draws_each_row_from_its_own_masked_softmax():
    """Each of several positions, repeated, is played as often as its masked softmax says, and only legally."""
    policy = softened_policy(False, seed=3)
    found = positions("snack_wars_v0", 12, seed=2)
    repeats = 400
    observations = np.repeat(np.stack([o for o, _ in found]), repeats, axis=0)
    masks = np.repeat(np.stack([m for _, m in found]), repeats, axis=0)
    actions = policy.act_batch(observations, masks).reshape(len(found), repeats)
    spread = 0
    for (observation, mask), played in zip(found, actions):
        assert mask[played].all()
        logits = policy.logits(observation, mask).astype(np.float64)
        p = np.where(mask > 0, np.exp(logits - logits[mask > 0].max()), 0.0)
        p /= p.sum()
        seen = np.bincount(played, minlength=len(mask)) / repeats
        assert np.all(np.abs(seen - p) <= 5 * np.sqrt(p * (1 - p) / repeats) + 1e-9), (seen, p)
        spread += (p > 0.05).sum() > 1
    assert spread >= 5  # enough positions where more than one action is likely: a test of the draws, not of argmax


def test_a_loaded_policy_is_deterministic_by_a_bool_and_seeded_by_an_int_only():
    """`deterministic` is never read by its truth ("no" would mean yes), and a sampling policy's seed is None
    or a non-negative int, when made and when reset (numpy's own errors named no seed)."""
    from snack_envs.checkpoints import LogitsPolicy
    from snack_envs.core.game import ConfigError

    path = CHECKPOINTS / "snack_wars_v0.zip"
    for value in ("no", 0, None, [True]):
        with pytest.raises(ConfigError, match=rf"deterministic must be a bool, got {re.escape(repr(value))}"):
            checkpoints.load_policy(path, deterministic=value)
    assert checkpoints.load_policy(path, deterministic=np.bool_(False)).deterministic is False
    with pytest.raises(ConfigError, match=r"LogitsPolicy: seed must be a non-negative int or None, got 'x'"):
        LogitsPolicy("stand-in", seed="x")
    policy = LogitsPolicy("stand-in", deterministic=False, seed=1)
    with pytest.raises(ConfigError, match=r"seed must be a non-negative int or None, got 1.5"):
        policy.reset(1.5)


def test_load_policy_refuses_a_bad_deterministic_before_it_loads_anything(monkeypatch):
    """A wrong `deterministic` is the user's mistake, named at once: no model is read for it (loading one takes
    seconds), and a path that holds no checkpoint gets the same answer."""
    from snack_envs.core.game import ConfigError

    def no_loading(*args, **kwargs):
        raise AssertionError("a model was loaded")

    monkeypatch.setattr(checkpoints, "_load_model", no_loading)
    for path in (CHECKPOINTS / "snack_wars_v0.zip", Path("no/such/checkpoint.zip")):
        with pytest.raises(ConfigError, match=rf"^{path.stem}: deterministic must be a bool, got 'yes'$"):
            checkpoints.load_policy(path, deterministic="yes")


def test_a_folder_given_as_a_checkpoint_is_named_as_a_folder(tmp_path):
    """It was "<folder>.json is missing: a checkpoint needs its metadata file", as if metadata were lost."""
    from snack_envs.checkpoints import CheckpointError, read_metadata

    (tmp_path / "run").mkdir()
    with pytest.raises(CheckpointError, match=r"run is a folder, not a checkpoint \(a .zip file with its .json metadata"):
        read_metadata(tmp_path / "run")
