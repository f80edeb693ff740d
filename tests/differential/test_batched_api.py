"""The batched engine's API: bad input, determinism across processes, automatic reset, and the SB3 VecEnv."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import numpy as np
import pytest

from snack_envs import specs
from snack_envs.core.env import final_rewards
from snack_envs.core.game import ConfigError, IllegalActionError

pytest.importorskip("numba")
from snack_envs import batched  # noqa: E402

BATCHED = [s.env_name for s in specs.SPECS if s.batched]


def random_actions(out, rng) -> np.ndarray:
    mask = out[1]
    return (rng.random(mask.shape) * mask).argmax(-1)


def digest(name: str, seed: int, steps: int = 60) -> str:
    venv = batched.make(name, num_envs=8, seed=seed)
    out, rng, h = venv.reset(), np.random.default_rng(0), hashlib.sha256()
    for _ in range(steps):
        h.update(b"".join(np.ascontiguousarray(a).tobytes() for a in out))
        out = venv.step(random_actions(out, rng))
    return h.hexdigest()


@pytest.mark.parametrize("name", BATCHED)
def test_the_same_seed_gives_the_same_batch_in_any_process(name):
    here = digest(name, 5)
    assert digest(name, 5) == here and digest(name, 6) != here
    code = f"from tests.differential.test_batched_api import digest; print(digest({name!r}, 5))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == here


@pytest.mark.parametrize("name", BATCHED)
def test_bad_input_is_a_clear_error_that_changes_nothing(name):
    with pytest.raises(ConfigError, match="unknown keyword"):
        batched.make(name, num_envs=4, colour="red")
    with pytest.raises(ConfigError, match="num_players"):
        batched.make(name, num_envs=4, num_players=99)
    with pytest.raises(ConfigError, match="num_envs"):
        batched.make(name, num_envs=0)
    with pytest.raises(specs.UnknownEnvError):
        batched.make("snack_nothing_v0", num_envs=4)
    venv = batched.make(name, num_envs=4, seed=1)
    with pytest.raises(IllegalActionError, match="reset"):
        venv.step(np.zeros(venv._seats.shape, np.int64))
    out = venv.reset()
    before = [json.dumps(venv.export(i).to_dict()["state"], sort_keys=True) for i in range(4)]
    actions = random_actions(out, np.random.default_rng(0))
    with pytest.raises(IllegalActionError, match="shape"):
        venv.step(actions[:2])
    with pytest.raises(IllegalActionError, match="integer"):
        venv.step(actions.astype(np.float32))
    bad = actions.copy()
    flat_mask = out[1][2] if bad.ndim == 1 else out[1][2, 0]
    illegal = np.flatnonzero(flat_mask == 0)[0]
    if bad.ndim == 1:
        bad[2] = illegal
    else:
        bad[2, 0] = illegal
    with pytest.raises(IllegalActionError, match=rf"env 2: action {illegal} is illegal for player_\d \(seat \d\); legal actions: "):
        venv.step(bad)
    assert [json.dumps(venv.export(i).to_dict()["state"], sort_keys=True) for i in range(4)] == before
    with pytest.raises(ConfigError, match="env index"):
        venv.export(4)


@pytest.mark.parametrize("name", BATCHED)
def test_a_finished_game_starts_again_and_reports_its_end_once(name):
    venv = batched.make(name, num_envs=16, seed=3, reward="win")
    out, rng = venv.reset(), np.random.default_rng(3)
    ended = 0
    for _ in range(3000):
        out = venv.step(random_actions(out, rng))
        rewards, terminated, truncated = out[-3:]
        for i in np.flatnonzero(terminated | truncated):
            ended += 1
            assert venv.steps[i] == 0 and not venv.export(i).game_over  # a new game already
        assert not rewards[~terminated].any(), "rewards only at the end"
        if ended > 20:
            break
    assert ended > 20


@pytest.mark.parametrize("name", BATCHED)
def test_a_loaded_reference_game_continues_in_the_batch(name):
    spec = specs.get(name)
    venv = batched.make(name, num_envs=2, seed=4, auto_reset=False)
    venv.reset()
    game = spec.rules_class(venv.num_players, np.random.default_rng(9), **{k: v for k, v in venv.config.items()
                                                                        if k in spec.rules_class.options})
    venv.load(1, game)
    exported = venv.export(1)
    assert exported == game
    broken = game.copy()
    if hasattr(broken, "pool"):
        broken.pool = -3
        with pytest.raises(ConfigError, match="invariants"):
            venv.load(0, broken)


@pytest.mark.parametrize("name", BATCHED)
def test_the_sb3_vec_env_gives_the_learner_its_reference_reward(name, monkeypatch):
    """Every game the VecEnv plays is replayed step by step in the reference engine (including the
    opponents' moves inside its step); the learner's reward must be the reference's final reward."""
    pytest.importorskip("sb3_contrib")
    from snack_envs.core.batched_sb3 import LEARNER, BatchedSelfPlayVecEnv

    modes = specs.get(name).env_class.reward_modes
    vec = BatchedSelfPlayVecEnv(name, 8, 2, 0, "margin" if "margin" in modes else "round",
                                {"random": 1.0, "heuristic": 1.0, "self": 0.0})
    batch = vec.batch
    real_step = batch.step
    expected: dict[int, float] = {}

    def recording_step(actions, envs=None):
        envs = np.ones(batch.num_envs, bool) if envs is None else envs
        games = {i: (batch.export(i), batch.agent_seats(i)) for i in np.flatnonzero(envs & batch.live)}
        out = real_step(actions, envs)
        for i, (game, seats) in games.items():
            if batch.simultaneous:
                joint = {seats[a]: int(actions[i, a]) for a in range(batch.num_players)}
            else:
                joint = {game.current_player: int(actions[i])}
            game.apply_joint(joint, **batch.outcomes(i))
            if batch.reward_mode == "round":
                result = game.round_result()
                expected[i] = expected.get(i, 0.0) + (result[seats[LEARNER]] if result else 0.0)
            elif game.game_over:
                expected[i] = final_rewards(game, batch.reward_mode)[seats[LEARNER]]
        return out

    monkeypatch.setattr(batch, "step", recording_step)
    rng = np.random.default_rng(0)
    obs = vec.reset()
    checked = 0
    for _ in range(2000):
        assert obs.shape == (8, vec.observation_space.shape[0])
        masks = vec.env_method("action_masks")
        expected.clear()
        obs, rewards, dones, infos = vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        for i in range(8):
            assert rewards[i] == pytest.approx(expected.get(i, 0.0)), f"env {i}"
            if dones[i]:
                assert "episode" in infos[i]
                checked += 1
        if checked >= 30:
            break
    assert checked >= 30


@pytest.mark.parametrize("name", BATCHED[:1])
def test_maskable_ppo_trains_on_the_batched_vec_env(name, tmp_path):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from snack_envs.core.batched_sb3 import BatchedSelfPlayVecEnv

    vec = BatchedSelfPlayVecEnv(name, 16, 2, 0, "win", {"random": 0.5, "heuristic": 0.5, "self": 0.0})
    model = MaskablePPO("MlpPolicy", vec, n_steps=32, batch_size=128, n_epochs=1, seed=0, device="cpu")
    model.learn(1024)
    model.save(tmp_path / "m.zip")
    assert model.num_timesteps >= 1024
