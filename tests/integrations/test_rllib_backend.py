"""Ray RLlib: the masked PPO module, RLlib's PettingZoo wrappers, self-play mapping, `snack-train --backend rllib`.

The default tests start no Ray; the slow ones train on a local Ray (num_cpus=2,
no dashboard, no extra EnvRunners), save, restore and shut Ray down.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
import warnings
from pathlib import Path

import numpy as np
import pytest

import snack_envs
from snack_envs import specs

pytest.importorskip("ray.rllib")
torch = pytest.importorskip("torch")
from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec  # noqa: E402
from ray.rllib.env.wrappers.pettingzoo_env import ParallelPettingZooEnv, PettingZooEnv  # noqa: E402

from snack_envs.integrations import rllib as integration  # noqa: E402
from snack_envs.training.backends import rllib as rllib_backend  # noqa: E402
from snack_envs.training.config import load_config  # noqa: E402
from snack_envs.opponents import OpponentMix  # noqa: E402

ENVS = list(snack_envs.ENV_NAMES)
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
torch.set_num_threads(1)


def fake_episode(i: int):
    return types.SimpleNamespace(id_=f"episode-{i}", custom_data={integration.GAME: (0, 0, i)})


def spaces(name: str):
    env = integration.make_multi_agent_env(name, num_players=2)
    agent = env.possible_agents[0]
    return env.observation_space[agent], env.action_space[agent]


def masked_module(name: str) -> RLModule:
    obs_space, act_space = spaces(name)
    return RLModuleSpec(
        module_class=integration.MaskedPPOTorchRLModule, observation_space=obs_space, action_space=act_space,
        model_config={"fcnet_hiddens": [32]},
    ).build()


def sample_batch(name: str, n: int = 16, seed: int = 0):
    """Observations and masks of `n` positions from random games (masks made sparse at random too)."""
    obs_space, _ = spaces(name)
    rng = np.random.default_rng(seed)
    obs = np.stack([obs_space["observation"].sample() for _ in range(n)]).astype(np.float32)
    mask = (rng.random((n, obs_space["action_mask"].shape[0])) < 0.1).astype(np.int8)
    mask[np.arange(n), rng.integers(mask.shape[1], size=n)] = 1  # at least one legal action
    return {Columns.OBS: {"observation": torch.as_tensor(obs), "action_mask": torch.as_tensor(mask)}}, mask.astype(bool)


# --- default tests: no Ray started ---------------------------------------------------------------------
@pytest.mark.parametrize("name", ENVS)
def test_rllibs_own_pettingzoo_wrappers_play_a_game(name):
    env = integration.make_multi_agent_env(name, num_players=2)
    assert isinstance(env, ParallelPettingZooEnv if specs.get(name).simultaneous else PettingZooEnv)
    rng = np.random.default_rng(0)
    obs, _ = env.reset(seed=0)
    returns = dict.fromkeys(env.possible_agents, 0.0)
    for _ in range(100_000):
        actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
        obs, rewards, terms, truncs, _ = env.step(actions)
        for a, r in rewards.items():
            returns[a] += r
        if terms["__all__"] or truncs["__all__"]:
            break
    assert terms["__all__"] or truncs["__all__"]
    if terms["__all__"]:
        assert set(returns.values()) <= {-1.0, 0.0, 1.0} and len(rewards) == 2  # both agents hear the end


@pytest.mark.parametrize("name", ENVS)
def test_masked_module_gives_illegal_actions_no_probability(name):
    module = masked_module(name)
    batch, mask = sample_batch(name)
    with torch.no_grad():
        for forward in (module.forward_inference, module.forward_exploration, module.forward_train):
            logits = forward(dict(batch))[Columns.ACTION_DIST_INPUTS].numpy()
            probs = torch.softmax(torch.as_tensor(logits, dtype=torch.float64), -1).numpy()
            assert np.all(probs[~mask] == 0) and np.allclose(probs.sum(-1), 1)
        values = module.compute_values(dict(batch))
    assert values.shape == (len(mask),)
    assert module.observation_space == spaces(name)[0]  # the dict space, so copies and checkpoints fit the env


def test_masked_module_checkpoint_restores_the_weights(tmp_path):
    module = masked_module("snack_rabbits_v0")
    batch, mask = sample_batch("snack_rabbits_v0")
    module.save_to_path(str(tmp_path / "m"))
    restored = RLModule.from_checkpoint(str(tmp_path / "m"))
    with torch.no_grad():
        a = module.forward_inference(dict(batch))[Columns.ACTION_DIST_INPUTS]
        b = restored.forward_inference(dict(batch))[Columns.ACTION_DIST_INPUTS]
    assert torch.equal(a, b)
    policy = integration.load_policy(tmp_path / "m")
    obs = batch[Columns.OBS]
    for o, m in zip(obs["observation"].numpy(), obs["action_mask"].numpy()):
        assert m[policy.act(o, m)]


def test_policy_module_plays_the_projects_random_policy_legally():
    obs_space, act_space = spaces("snack_rabbits_v0")
    module = RLModuleSpec(
        module_class=integration.PolicyRLModule, observation_space=obs_space, action_space=act_space,
        model_config={"policy": "random", "env_name": "snack_rabbits_v0", "num_players": 2},
    ).build()
    batch, mask = sample_batch("snack_rabbits_v0", n=64)
    actions = module.forward_exploration(batch)[Columns.ACTIONS]
    assert mask[np.arange(64), actions].all()


def test_opponent_mapping_one_learner_per_episode_and_weights():
    agents = ["player_0", "player_1", "player_2"]
    mapping = integration.OpponentMapping(agents, OpponentMix({"random": 1.0, "heuristic": 1.0, "self": 2.0}))
    counts: dict[str, int] = {}
    for i in range(600):
        modules = [mapping(a, fake_episode(i)) for a in agents]
        assert modules == [mapping(a, fake_episode(i)) for a in agents]  # stable within an episode
        assert modules.count("main") == 1
        for m in modules:
            counts[m] = counts.get(m, 0) + 1
    assert counts["main"] == 600 and set(counts) == {"main", "random", "heuristic"}
    assert 0.15 < counts["random"] / 1200 < 0.35  # before any snapshot, "self" goes to the heuristic
    with_snaps = mapping.with_snapshots(["main_v1", "main_v2"])
    opponents = [with_snaps(a, fake_episode(i)) for i in range(600) for a in agents]
    share = sum(o.startswith("main_v") for o in opponents) / 1200
    assert 0.4 < share < 0.6 and {"main_v1", "main_v2"} <= set(opponents)
    per_episode = [{with_snaps(a, fake_episode(i)) for a in agents} - {"main"} for i in range(200)]
    assert any(len(drawn) == 2 for drawn in per_episode)  # each agent draws on its own
    with pytest.raises(ValueError, match="must not all be 0"):
        OpponentMix({"random": 0.0})


def test_yaml_config_maps_onto_the_ppo_config():
    config = load_config(None, ["n_envs=4", "algo.n_steps=64", "algo.batch_size=32", "algo.learning_rate=1e-3"])
    ppo = rllib_backend.build_config(config)
    assert (ppo.lr, ppo.train_batch_size_per_learner, ppo.minibatch_size) == (1e-3, 256, 32)
    assert (ppo.num_epochs, ppo.gamma, ppo.lambda_, ppo.clip_param) == (
        config["algo"]["n_epochs"], config["algo"]["gamma"], config["algo"]["gae_lambda"], config["algo"]["clip_range"])
    assert (ppo.num_env_runners, ppo.num_envs_per_env_runner, ppo.num_learners) == (0, 4, 0)
    assert ppo.policies_to_train == ["main"] and ppo.seed == config["seed"]
    assert ppo.policy_mapping_fn.seed == config["seed"]  # the opponents' seating and play are seeded too
    assert ppo.rl_module_spec.rl_module_specs["heuristic"].model_config["seed"] == config["seed"]
    assert ppo.disable_env_checking  # its check's unmasked random step would warn "Illegal move made" once per env
    assert ppo.env == "snack_envs/snack_rabbits_v0" and ppo.env_config["num_players"] == 2
    subproc = rllib_backend.build_config(load_config(None, ["n_envs=3", "vec_env=subproc", "algo.batch_size=64"]))
    assert (subproc.num_env_runners, subproc.num_envs_per_env_runner) == (3, 1)


def test_what_only_the_sb3_backend_does_is_refused_or_left_out_with_a_notice(capsys):
    from snack_envs.training.config import ConfigError

    adapted = rllib_backend.rllib_config(load_config(None, ["imitation.games=500"]))
    assert adapted["imitation"]["games"] == 0 and adapted["vec_env"] == "dummy"
    assert "imitation.games=500 (cloning the heuristic) is the SB3 backend's" in capsys.readouterr().out
    checkpoint = Path(__file__).resolve().parents[2] / "checkpoints" / "snack_rabbits_v0.zip"
    with pytest.raises(ConfigError, match=r"init_from='.*snack_rabbits_v0\.zip': the rllib backend starts from fresh weights"):
        rllib_backend.rllib_config(load_config(None, ["imitation.games=0", f"init_from={checkpoint}"]))


def test_snack_train_dispatches_to_rllib_with_the_address(monkeypatch, tmp_path, capsys):
    from snack_envs.training import train as train_cli

    calls = []

    def fake_train(config, run_dir, resume=False, address=None, on_start=None):
        calls.append((config["env"]["name"], run_dir, resume, address))
        on_start()
        return {"checkpoint": str(run_dir / "final"), "evaluation": {}, "wall_time_s": 0.0, "timesteps": 1}

    monkeypatch.setattr(rllib_backend, "train", fake_train)
    train_cli.main(["--backend", "rllib", "--address", "10.0.0.5:6379", "--run-dir", str(tmp_path)])
    assert calls == [("snack_rabbits_v0", tmp_path, False, "10.0.0.5:6379")]
    out = capsys.readouterr().out  # the run's line, which the backend has printed once its checks passed
    assert "training snack_rabbits_v0 (2 players) for " in out and f" timesteps -> {tmp_path}" in out


# --- slow tests: a local Ray -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def local_ray():
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.mark.slow
@pytest.mark.parametrize("name", ENVS)
def test_two_iterations_self_play_checkpoint_and_restore(name, local_ray, tmp_path):
    config = integration.ppo_config(
        name, num_players=2, opponents={"random": 0.3, "heuristic": 0.3, "self": 0.4},
        net_arch=(32, 32), seed=0, train_batch_size_per_learner=128, minibatch_size=64, num_epochs=1,
    )
    algo = config.build_algo()
    try:
        first = algo.train()
        snapshot = integration.add_snapshot(algo, max_snapshots=2)
        second = algo.train()
        assert first["env_runners"]["num_env_steps_sampled_lifetime"] >= 128
        assert second["env_runners"]["num_env_steps_sampled_lifetime"] >= 256
        main = algo.get_module("main")
        frozen = algo.get_module(snapshot)
        batch, _ = sample_batch(name)
        with torch.no_grad():
            out_main = main.forward_inference(dict(batch))[Columns.ACTION_DIST_INPUTS]
            out_frozen = frozen.forward_inference(dict(batch))[Columns.ACTION_DIST_INPUTS]
        assert not torch.equal(out_main, out_frozen)  # "main" trained on; the snapshot stayed as it was
        path = algo.save_to_path(str(tmp_path / "algo"))
    finally:
        algo.stop()
    policy = integration.load_policy(path)
    with torch.no_grad():
        restored = policy.module.forward_inference(dict(batch))[Columns.ACTION_DIST_INPUTS]
    assert torch.allclose(restored, out_main)
    # The restored module plays a whole game of the public env, legal moves only.
    env = snack_envs.make(name, num_players=2)
    env.reset(seed=0)
    for agent in env.agent_iter():
        obs, _, terminated, truncated, info = env.last()
        assert "illegal_move_by" not in info
        env.step(None if terminated or truncated else policy.act(obs["observation"], obs["action_mask"]))


@pytest.mark.slow
def test_snack_train_rllib_trains_evaluates_checkpoints_and_resumes(local_ray, tmp_path):
    from snack_envs.training import train as train_cli

    run = tmp_path / "run"
    args = ["--backend", "rllib", "--run-dir", str(run), "--set", "timesteps=256", "--set", "n_envs=2",
            "--set", "algo.n_steps=64", "--set", "algo.batch_size=64", "--set", "algo.n_epochs=1",
            "--set", "algo.net_arch=[32,32]", "--set", "eval.every=128", "--set", "eval.games=2",
            "--set", "eval.final_games=4", "--set", "opponents.snapshot_every=128", "--set", "opponents.max_snapshots=1"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        train_cli.main(args)
    state = json.loads((run / "state.json").read_text())
    # timesteps counts the learner's steps; the run stops after the iteration that reaches it, so it may go
    # past by up to one iteration's batch (n_steps * n_envs = 128 env steps of both seats).
    assert 256 <= state["timesteps"] < 256 + 128 and state["snapshots"] == ["main_v2"]
    meta = json.loads((run / "final.json").read_text())
    assert meta["format"] == rllib_backend.FORMAT and meta["env_name"] == "snack_rabbits_v0" and "ray" in meta["library_versions"]
    assert set(meta["evaluation"]) == {"random", "heuristic"} and meta["evaluation"]["random"]["games"] == 4
    assert (run / "learning_curve.png").exists() and (run / "eval.csv").read_text().count("\n") == 1 + 4  # header, 2 opponents x 2

    # Resume the run for one more iteration: the Algorithm (with its snapshot module) is restored, here
    # from where a save stopped between its two renames left it.
    (run / "checkpoint").rename(run / "checkpoint.previous")
    config = json.loads((run / "config.json").read_text())
    config["timesteps"] = 384
    result = rllib_backend.train(config, run, resume=True)
    assert not (run / "checkpoint.previous").exists()
    assert 384 <= result["timesteps"] < 384 + 128
    assert json.loads((run / "state.json").read_text())["snapshots"] == ["main_v3"]

    # The final module, restored in a fresh process that never starts Ray, plays legal moves.
    code = (
        "import sys, ray, numpy as np\n"
        "from snack_envs import snack_rabbits_v0\n"
        "from snack_envs.integrations.rllib import load_policy\n"
        f"policy = load_policy({str(run / 'final')!r})\n"
        "env = snack_rabbits_v0.raw_env(num_players=2); env.reset(seed=3)\n"
        "for agent in env.agent_iter():\n"
        "    obs, _, term, trunc, _ = env.last()\n"
        "    env.step(None if term or trunc else policy.act(obs['observation'], obs['action_mask']))\n"
        "assert not ray.is_initialized()\n"
        "print('played')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and "played" in out.stdout, out.stderr[-2000:]


def test_load_policy_refuses_a_bad_deterministic_before_it_reads_the_checkpoint(monkeypatch, tmp_path):
    """As the SB3 checkpoints' `load_policy`: a wrong `deterministic` is named at once, before any module is looked
    for or restored (which takes seconds), so a path that holds none gets the same answer."""
    from snack_envs.core.game import ConfigError

    def no_loading(*args, **kwargs):
        raise AssertionError("the checkpoint was read")

    monkeypatch.setattr(integration, "module_path", no_loading)
    with pytest.raises(ConfigError, match=r"^final: deterministic must be a bool, got 'yes'$"):
        integration.load_policy(tmp_path / "final", deterministic="yes")
