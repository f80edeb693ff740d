"""`snack-train` (the default backend): MaskablePPO (sb3-contrib) by self-play, evaluated and checkpointed.

The learner plays one random seat of `SingleAgentEnv`; each opponent seat
draws, per episode, random / heuristic / a frozen snapshot of the learner by
the weights in `opponents:` (`snack_envs.opponents`; snapshots join the pool
every `opponents.snapshot_every` timesteps, at most `max_snapshots`, oldest
dropped; until the first exists its weight goes to the heuristic).
With `imitation.games` > 0 a fresh run first clones the heuristic bot
(training/imitate.py), so PPO starts from its play instead of from random.
Every `eval.every` timesteps the learner (deterministic, masked) plays
`eval.games` games against each `eval.opponents`; results go to TensorBoard,
eval.csv and the progress line, and the run is checkpointed atomically
(latest.zip + state.json), so an interrupted run resumes where it stopped.
A resumed run reads the run's config.json, so editing it first continues the
run with other settings (more timesteps, a lower learning rate, another
opponent mix or reward mode; `algo.n_steps` and the network stay as saved).
At the end: a final evaluation over `eval.final_games` games, the checkpoint
`final.zip` with its metadata, and learning_curve.png (training/run.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from snack_envs.agents import Policy, RandomPolicy, heuristic_policy
from snack_envs.checkpoints import CheckpointError, CheckpointPolicy, check_fits, load_policy, read_metadata, save_checkpoint
from snack_envs.single_agent import SingleAgentEnv
from training.imitate import kickstart
from snack_envs.opponents import OpponentMix
from training.run import (
    checkpoint_metadata, eval_due, evaluate, learning_curve, save_state, snapshot_due, start_run, train_result, write_eval,
)


class OpponentPool:
    """The opponents of one training env: `OpponentMix` draws over random, the heuristic and loaded snapshots."""

    def __init__(self, env_name: str, num_players: int, weights: dict[str, float], max_snapshots: int, options: dict):
        self.fixed = {"random": RandomPolicy(), "heuristic": heuristic_policy(env_name, num_players, **options)}
        self.mix = OpponentMix(weights)
        self.max_snapshots = max_snapshots
        self.env_name, self.num_players = env_name, num_players

    def add_snapshot(self, path: str) -> None:
        snapshot = load_policy(path, self.env_name, self.num_players, deterministic=False)
        self.mix = self.mix.with_snapshots([*self.mix.snapshots, snapshot], keep=self.max_snapshots)

    def __call__(self, rng: np.random.Generator) -> Policy:
        drawn = self.mix.draw(rng)
        return self.fixed[drawn] if isinstance(drawn, str) else drawn


class SelfPlayEnv(SingleAgentEnv):
    """SingleAgentEnv whose opponents come from an OpponentPool that grows during training."""

    def __init__(self, config: dict):
        env_cfg = config["env"]
        options = env_cfg.get("options", {})
        opponents = config["opponents"]
        self.pool = OpponentPool(env_cfg["name"], env_cfg["num_players"], opponents, opponents["max_snapshots"], options)
        super().__init__(env_cfg["name"], opponents=(), opponent_sampler=self.pool, num_players=env_cfg["num_players"],
                         reward=env_cfg["reward"], **options)

    def add_snapshot(self, path: str) -> None:
        self.pool.add_snapshot(path)


def make_vec_env(config: dict, run_dir: Path):
    """The training envs: `vec_env` dummy (one process), subproc (a process per env), or batched (the
    native batched engine, opponents moving inside its step: snack_envs.core.batched_sb3)."""
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    if config["vec_env"] == "batched":
        from snack_envs.core.batched_sb3 import BatchedSelfPlayVecEnv

        env_cfg, opponents = config["env"], config["opponents"]
        return BatchedSelfPlayVecEnv(env_cfg["name"], config["n_envs"], env_cfg["num_players"], config["seed"],
                                     env_cfg["reward"], opponents, opponents["max_snapshots"],
                                     **env_cfg.get("options", {}))

    monitor_dir = run_dir / "monitor"
    monitor_dir.mkdir(parents=True, exist_ok=True)

    def factory(i: int):
        def make():
            return Monitor(SelfPlayEnv(config), str(monitor_dir / f"env{i}"), override_existing=False)

        return make

    cls = SubprocVecEnv if config["vec_env"] == "subproc" else DummyVecEnv
    vec = cls([factory(i) for i in range(config["n_envs"])])
    vec.seed(config["seed"])
    return vec


def evaluate_model(model, config: dict, games: int, seed: int) -> dict[str, dict]:
    """The model (deterministic, masked) against each `eval.opponents`."""
    return evaluate(CheckpointPolicy(model, "learner"), config, games, seed)


def make_callback(config: dict, run_dir: Path, state: dict):
    from stable_baselines3.common.callbacks import BaseCallback

    class TrainingCallback(BaseCallback):
        def _on_step(self) -> bool:
            steps = self.num_timesteps
            if snapshot_due(config, state, steps):
                path = run_dir / "snapshots" / f"step{steps}.zip"
                save_checkpoint(self.model, path, checkpoint_metadata(config, steps, state))
                self.training_env.env_method("add_snapshot", str(path))
                state["snapshots"] = (state["snapshots"] + [str(path)])[-config["opponents"]["max_snapshots"]:]
                state["last_snapshot"] = steps
            if eval_due(config, state, steps):
                state["last_eval"] = steps
                results = evaluate_model(self.model, config, config["eval"]["games"], seed=10_000 + steps)
                write_eval(run_dir, steps, results, self.logger.record)
                save_checkpoint(self.model, run_dir / "latest.zip", checkpoint_metadata(config, steps, state))
                save_state(run_dir, state, steps)
            return True

    return TrainingCallback()


def start_from(model, path: Path, config: dict) -> list[dict]:
    """Load a checkpoint's weights into a fresh model (`init_from`), after checking it fits the config.
    Returns the lineage of the new run: the runs behind that checkpoint, oldest first."""
    meta = read_metadata(path)
    env_cfg = config["env"]
    check_fits(meta, env_cfg["name"], env_cfg["num_players"])
    try:
        model.set_parameters(str(path), exact_match=True, device="cpu")
    except (RuntimeError, ValueError) as error:  # another network shape
        raise CheckpointError(f"init_from={path}: its network does not match algo.policy and algo.net_arch ({error})") from error
    return meta.get("lineage", []) + [{"checkpoint": str(path), "timesteps": meta["timesteps"], "wall_time_s": meta["wall_time_s"]}]


def policy_for(env_name: str, kind: str, net_arch: list[int]) -> tuple[Any, dict]:
    """MaskablePPO's policy and policy_kwargs for `algo.policy`: an MLP (`net_arch`) or, for a game
    on a grid, the convolutional GridPolicy (snack_envs/networks.py; `net_arch` unused)."""
    if kind == "grid":
        from snack_envs.networks import GridPolicy
        from training.config import grid_spec

        return GridPolicy, {"grid": grid_spec(env_name)}
    return "MlpPolicy", {"net_arch": net_arch}


def train(config: dict, run_dir: Path, resume: bool = False) -> dict:
    """Train, evaluate and checkpoint as the module docstring says; returns what `snack-train` prints."""
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(config["torch_threads"])
    state = start_run(config, run_dir, resume)
    vec = make_vec_env(config, run_dir)
    for path in state["snapshots"]:
        vec.env_method("add_snapshot", path)
    algo = dict(config["algo"])
    net_arch = algo.pop("net_arch")
    if resume:
        # The config's scalar settings win over those saved in the model, so a resumed run can be
        # continued with, say, a lower learning rate by editing its config.json (n_steps stays).
        scalars = {k: v for k, v in algo.items() if k not in ("n_steps", "policy")}
        model = MaskablePPO.load(run_dir / "latest.zip", env=vec, device="cpu", tensorboard_log=str(run_dir / "tb"),
                                 custom_objects=scalars)
    else:
        policy, policy_kwargs = policy_for(config["env"]["name"], algo.pop("policy", "mlp"), net_arch)
        model = MaskablePPO(policy, vec, seed=config["seed"], device="cpu", verbose=0, tensorboard_log=str(run_dir / "tb"),
                            policy_kwargs=policy_kwargs, **algo)
        if config.get("init_from"):
            state["lineage"] = start_from(model, Path(config["init_from"]), config)
        state["imitation"] = kickstart(model, config, lambda: SelfPlayEnv(config))
    remaining = config["timesteps"] - model.num_timesteps
    if remaining > 0:
        model.learn(remaining, callback=make_callback(config, run_dir, state), progress_bar=True, reset_num_timesteps=not resume)
    vec.close()
    final = evaluate_model(model, config, config["eval"]["final_games"], seed=1_000_000)
    state["timesteps"] = model.num_timesteps
    meta = checkpoint_metadata(config, model.num_timesteps, state, evaluation=final)
    path = save_checkpoint(model, run_dir / "final.zip", meta)
    learning_curve(run_dir)
    return train_result(path, final, meta, model.num_timesteps)
