"""Edges of the SB3 backend (training/backends/sb3.py) and its batched VecEnvs (snack_envs/core/batched_sb3.py)
that the other training tests leave open. Found by a mutation probe of the two modules."""

from __future__ import annotations

import json
import os
import signal
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from snack_envs.core.game import ConfigError  # noqa: E402
from snack_envs.training.backends.sb3 import resume_checkpoint  # noqa: E402
from snack_envs.training.config import load_config  # noqa: E402
from snack_envs.training.run import TrainingInterrupted  # noqa: E402
from tests.training.test_batched_vecenv_edges import make, snapshot_copy  # noqa: E402
from tests.training.test_run_robustness import read, tiny_config  # noqa: E402

MAIN_THREAD = pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals need the main thread")


def _checkpoint(run: Path, name: str, timesteps: int) -> None:
    """A checkpoint's two files as resume_checkpoint reads them: the zip and its metadata's timesteps."""
    (run / f"{name}.zip").write_bytes(b"zip")
    (run / f"{name}.json").write_text(json.dumps({"timesteps": timesteps}))


@pytest.mark.parametrize("name", ["latest", "final"])
def test_a_checkpoint_saved_at_0_timesteps_is_one_to_resume_from(tmp_path, name):
    """A run stopped in its first rollout saved latest.zip at 0 timesteps: that is a checkpoint, not none."""
    _checkpoint(tmp_path, name, 0)
    assert resume_checkpoint(tmp_path) == tmp_path / f"{name}.zip"
    assert resume_checkpoint(tmp_path, missing_ok=True) == tmp_path / f"{name}.zip"


def test_resume_checkpoint_takes_the_one_with_more_timesteps_and_final_on_a_tie(tmp_path):
    _checkpoint(tmp_path, "latest", 512)
    _checkpoint(tmp_path, "final", 256)
    assert resume_checkpoint(tmp_path) == tmp_path / "latest.zip"
    _checkpoint(tmp_path, "final", 512)
    assert resume_checkpoint(tmp_path) == tmp_path / "final.zip"
    (tmp_path / "final.json").unlink()  # a zip without its metadata is no checkpoint
    assert resume_checkpoint(tmp_path) == tmp_path / "latest.zip"
    for path in tmp_path.iterdir():
        path.unlink()
    assert resume_checkpoint(tmp_path, missing_ok=True) is None
    with pytest.raises(ConfigError, match="has no checkpoint"):
        resume_checkpoint(tmp_path)


# --- make_vec_env's one-process path (`vec_env: dummy`) and its OpponentPool ------------------------------
def test_dummy_training_envs_play_every_count_in_turn_are_monitored_and_seeded(tmp_path):
    """Env i plays the (i mod k)-th count, each is a Monitor writing <run>/monitor/env<i>.monitor.csv, and the
    VecEnv is seeded with the config's seed (two builds deal the same games)."""
    from snack_envs.training.backends.sb3 import SelfPlayEnv, make_vec_env

    config = load_config("snack_wars", ["vec_env=dummy", "n_envs=3", "env.num_players=[3, 2]", "seed=5", "algo.n_steps=64",
                                        "algo.batch_size=64"])
    vec = make_vec_env(config, tmp_path / "a")
    assert type(vec).__name__ == "DummyVecEnv" and vec.num_envs == 3
    assert [type(env.env) for env in vec.envs] == [SelfPlayEnv] * 3
    assert [env.unwrapped.num_players for env in vec.envs] == [3, 2, 3]
    first = vec.reset()
    again = make_vec_env(config, tmp_path / "b").reset()
    assert np.array_equal(first, again)
    assert not np.array_equal(first, make_vec_env({**config, "seed": 6}, tmp_path / "c").reset())
    vec.close()
    assert sorted(p.name for p in (tmp_path / "a" / "monitor").iterdir()) == [f"env{i}.monitor.csv" for i in range(3)]


def test_a_self_play_env_plays_the_first_count_unless_told_and_its_pool_keeps_the_newest_snapshots(tmp_path):
    from snack_envs.training.backends.sb3 import SelfPlayEnv

    config = load_config("snack_wars", ["vec_env=dummy", "env.num_players=[3, 2]", "opponents.random=0",
                                        "opponents.heuristic=0", "opponents.self=1", "opponents.max_snapshots=1"])
    assert SelfPlayEnv(config).num_players == 3 and SelfPlayEnv(config, 2).num_players == 2
    env = SelfPlayEnv(config, 2)
    rng = np.random.default_rng(0)
    assert env.pool(rng) is env.pool.fixed["heuristic"]  # "self" goes to the heuristic until a snapshot exists
    for i in range(2):
        env.add_snapshot(snapshot_copy(tmp_path, f"s{i}"))
    assert [p.name for p in env.pool.mix.snapshots] == ["s1"]
    assert env.pool(rng) is env.pool.mix.snapshots[0]


# --- a whole tiny run: snapshots every `snapshot_every`, a kept checkpoint, `on_start` ------------------
def test_a_run_snapshots_every_snapshot_every_steps_keeps_at_its_first_update_past_keep_at_and_calls_on_start_once(tmp_path):
    """Rollouts of 256 steps: with snapshot_every=512 the snapshots fall at 512 and 1024 (not at every update),
    keep_at=[300] keeps the checkpoint of the first update at or past 300 (512) and no other, and on_start is
    called once, when the run begins (not for a finished run resumed without more timesteps)."""
    import torch

    from snack_envs.training.backends.sb3 import train

    run, started, threads = tmp_path / "run", [], torch.get_num_threads()
    config = tiny_config("opponents.snapshot_every=512", "keep_at=[300]", "torch_threads=1")
    torch.set_num_threads(2)
    try:
        assert train(config, run, on_start=lambda: started.append(run.is_dir()))["timesteps"] == 1280
        assert torch.get_num_threads() == 1  # the config's torch_threads
    finally:
        torch.set_num_threads(threads)
    assert started == [True]
    state = read(run, "state.json")
    assert state["last_snapshot"] == 1024
    assert state["snapshots"] == [str(run / "snapshots" / f"step{s}.zip") for s in (512, 1024)]
    assert sorted(p.name for p in (run / "keep").iterdir()) == ["step512.json", "step512.zip"] and state["last_keep"] == 512
    config = json.loads((run / "config.json").read_text())
    train(config, run, resume=True, on_start=lambda: started.append("again"))
    assert started == [True]

    # Resumed with max_snapshots=1 and no snapshot due: the pool, state.json and the disk keep only the newest.
    config["timesteps"], config["torch_threads"] = 1281, threads
    config["opponents"].update(max_snapshots=1, snapshot_every=10_000)
    (run / "config.json").write_text(json.dumps(config))
    train(config, run, resume=True)
    assert read(run, "state.json")["snapshots"] == [str(run / "snapshots" / "step1024.zip")]
    assert sorted(p.name for p in (run / "snapshots").iterdir()) == ["step1024.json", "step1024.zip"]


# --- signals that land in an update (MaskablePPO.train), between two rollouts ----------------------------
def _signals_in_update(monkeypatch, update: int, *signals: int) -> None:
    """Sends `signals` to this process at the end of the `update`-th update (1 = the first)."""
    from sb3_contrib import MaskablePPO

    train, done = MaskablePPO.train, []

    def train_then_signal(self):
        train(self)
        done.append(1)
        if len(done) == update:
            for sig in signals:
                os.kill(os.getpid(), sig)

    monkeypatch.setattr(MaskablePPO, "train", train_then_signal)


@MAIN_THREAD
def test_a_signal_in_an_update_stops_the_run_before_the_next_rollouts_snapshot_and_evaluation(tmp_path, monkeypatch):
    """The run stops at the next step: a signal in the first update (256 steps) leaves no snapshot and no
    evaluation behind it, though both are due at 256, and the run is saved at 256."""
    from snack_envs.training.backends.sb3 import train

    _signals_in_update(monkeypatch, 1, signal.SIGINT)
    run = tmp_path / "run"
    with pytest.raises(TrainingInterrupted):
        train(tiny_config("eval.every=256"), run)
    state = read(run, "state.json")
    assert state["timesteps"] == read(run, "latest.json")["timesteps"] == 256
    assert state["snapshots"] == [] and state["last_snapshot"] == 0 and state["last_eval"] == 0
    assert not list(run.glob("snapshots/*.zip")) and not (run / "eval.csv").exists()


@MAIN_THREAD
def test_a_second_signal_in_an_update_stops_at_once_losing_the_steps_since_the_last_checkpoint(tmp_path, monkeypatch, capsys):
    """Also in a run that began with an imitation: past its first checkpoint, the run is no longer in it."""
    from snack_envs.training.backends.sb3 import train

    _signals_in_update(monkeypatch, 3, signal.SIGINT, signal.SIGTERM)  # the third update: the last checkpoint is at 512
    run = tmp_path / "run"
    with pytest.raises(TrainingInterrupted) as stopped:
        train(tiny_config("imitation.games=2", "imitation.epochs=1"), run)
    assert stopped.value.code == 130
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"SIGINT: stopped at once: the work since the last checkpoint (512 timesteps) is lost; "
        f"resume with: snack-train --resume {run}")
    assert read(run, "state.json")["timesteps"] == 512 and not (run / "final.zip").exists()


def test_a_run_past_10000_timesteps_is_evaluated_and_checkpointed_at_its_update(tmp_path):
    """A long run's periodic evaluation (here the first one due, at 20,480 timesteps) runs, lands in eval.csv
    at that count and checkpoints the run there, as at any other count."""
    from sb3_contrib import MaskablePPO

    from snack_envs.training.backends.sb3 import make_callback, make_vec_env, policy_for, ppo_settings
    from snack_envs.training.run import StopSignals, start_run

    run, config = tmp_path / "run", tiny_config("eval.every=20480")
    state = start_run(config, run, False)
    policy, kwargs = policy_for(config["env"]["name"], config["algo"])
    model = MaskablePPO(policy, make_vec_env(config, run), seed=0, device="cpu", policy_kwargs=kwargs, **ppo_settings(config["algo"]))
    model.num_timesteps = 20_480  # as a resumed run's model
    model.learn(1, callback=make_callback(config, run, state, StopSignals()), reset_num_timesteps=False)
    assert state["last_eval"] == 20_480
    assert [line.split(",")[0] for line in (run / "eval.csv").read_text().splitlines()[1:]] == ["20480", "20480"]
    assert read(run, "latest.json")["timesteps"] == 20_480 + 256


@MAIN_THREAD
@pytest.mark.parametrize("stage", [False, True], ids=["run", "recipe-stage"])
def test_a_second_signal_before_the_first_checkpoint_says_there_is_nothing_to_resume(tmp_path, monkeypatch, capsys, stage):
    """No state.json yet: a plain run has nothing to resume; a recipe's stage (`resume_dir`: the recipe's
    folder) starts again when the recipe resumes."""
    from snack_envs.training.backends.sb3 import train

    _signals_in_update(monkeypatch, 1, signal.SIGTERM, signal.SIGINT)
    run = tmp_path / "recipe" / "stage1"
    with pytest.raises(TrainingInterrupted) as stopped:
        train(tiny_config(), run, resume_dir=tmp_path / "recipe" if stage else None)
    assert stopped.value.code == 143 and not (run / "state.json").exists()
    want = (f"stopped before stage1's first checkpoint: it starts again when the recipe resumes; "
            f"resume with: snack-train --resume {tmp_path / 'recipe'}") if stage else (
            "stopped before the run's first checkpoint: nothing to resume; start it again")
    assert capsys.readouterr().err.strip().splitlines()[-1] == f"SIGTERM: {want}"


# --- the batched VecEnv ---------------------------------------------------------------------------------
def test_a_batched_vec_env_renders_nothing_and_is_built_without_a_warning():
    """SB3's VecEnv asks its envs for `render_mode` (and warns where there is none): the batch has one, None."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        vec = make()
    assert vec.render_mode is None and vec.get_attr("render_mode") == [None] * 4
