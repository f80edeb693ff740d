"""Train a MaskablePPO agent on any snack env by self-play, evaluate it, and save a checkpoint.

    snack-train                                  # the embedded quick-start config (Snack Rabbits)
    snack-train --config configs/snack_wars.yaml --set timesteps=200000 --set algo.learning_rate=1e-4
    snack-train --resume runs/snack_rabbits_v0-s0-20261129-120000

The learner plays one random seat of `SingleAgentEnv`; each opponent seat
draws, per episode, random / heuristic / a frozen snapshot of the learner by
the weights in `opponents:` (snapshots join the pool every
`opponents.snapshot_every` timesteps, at most `max_snapshots`, oldest
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
`final.zip` with its metadata, and learning_curve.png.
"""

from __future__ import annotations

import argparse
import csv
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from snack_envs.agents import RandomPolicy, heuristic_policy
from snack_envs.checkpoints import (
    CheckpointError, CheckpointPolicy, check_fits, env_facts, load_policy, read_metadata, save_checkpoint, write_json_atomic,
)
from snack_envs.single_agent import SingleAgentEnv
from training.config import load_config
from training.imitate import kickstart
from training.evaluate import head_to_head


class OpponentPool:
    """Draws an opponent per seat and episode: random, heuristic or a frozen snapshot, by weight."""

    def __init__(self, env_name: str, num_players: int, weights: dict[str, float], max_snapshots: int, options: dict):
        self.random = RandomPolicy()
        self.heuristic = heuristic_policy(env_name, num_players, **options)
        self.weights = weights
        self.max_snapshots = max_snapshots
        self.env_name, self.num_players = env_name, num_players
        self.snapshots: list[Any] = []

    def add_snapshot(self, path: str) -> None:
        self.snapshots.append(load_policy(path, self.env_name, self.num_players, deterministic=False))
        del self.snapshots[: -self.max_snapshots]

    def __call__(self, rng: np.random.Generator):
        w = self.weights
        kinds = ["random", "heuristic", "self"]
        weights = np.array([w["random"], w["heuristic"] + (0 if self.snapshots else w["self"]), w["self"] if self.snapshots else 0.0])
        kind = kinds[int(rng.choice(3, p=weights / weights.sum()))]
        if kind == "self":
            return self.snapshots[int(rng.integers(len(self.snapshots)))]
        return self.random if kind == "random" else self.heuristic


class SelfPlayEnv(SingleAgentEnv):
    """SingleAgentEnv whose opponents come from an OpponentPool that grows during training."""

    def __init__(self, config: dict):
        env_cfg = config["env"]
        options = env_cfg.get("options", {})
        self.pool = OpponentPool(env_cfg["name"], env_cfg["num_players"], config["opponents"], config["opponents"]["max_snapshots"], options)
        super().__init__(env_cfg["name"], opponents=(), opponent_sampler=self.pool, num_players=env_cfg["num_players"],
                         reward=env_cfg["reward"], **options)

    def add_snapshot(self, path: str) -> None:
        self.pool.add_snapshot(path)


def make_vec_env(config: dict, run_dir: Path):
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

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
    env_cfg = config["env"]
    learner = CheckpointPolicy(model, "learner")
    options = env_cfg.get("options", {})
    results = {}
    for spec in config["eval"]["opponents"]:
        from snack_envs.agents import make_policy

        opponent = make_policy(spec, env_cfg["name"], env_cfg["num_players"], seed=seed, **options)
        results[spec] = head_to_head(env_cfg["name"], learner, opponent, games, env_cfg["num_players"], seed=seed, **options)
    return results


def make_callback(config: dict, run_dir: Path, state: dict):
    from stable_baselines3.common.callbacks import BaseCallback

    class TrainingCallback(BaseCallback):
        def _on_step(self) -> bool:
            steps = self.num_timesteps
            opp = config["opponents"]
            if steps - state["last_snapshot"] >= opp["snapshot_every"] and opp["self"] > 0:
                path = run_dir / "snapshots" / f"step{steps}.zip"
                save_checkpoint(self.model, path, checkpoint_metadata(config, steps, state))
                self.training_env.env_method("add_snapshot", str(path))
                state["snapshots"] = (state["snapshots"] + [str(path)])[-opp["max_snapshots"]:]
                state["last_snapshot"] = steps
            if steps - state["last_eval"] >= config["eval"]["every"]:
                state["last_eval"] = steps
                results = evaluate_model(self.model, config, config["eval"]["games"], seed=10_000 + steps)
                with (run_dir / "eval.csv").open("a", newline="") as f:
                    writer = csv.writer(f)
                    for spec, r in results.items():
                        self.logger.record(f"eval/win_rate_vs_{spec}", r["win_rate"])
                        writer.writerow([steps, spec, r["win_rate"], *r["win_rate_ci95"], r["hero_mean_score_ci95"][0]])
                print(f"\n[{steps} steps] " + ", ".join(f"vs {s}: {r['win_rate']:.3f}" for s, r in results.items()), flush=True)
                state["timesteps"] = steps
                state["wall_time_s"] = state["wall_time_before"] + time.time() - state["started"]
                save_checkpoint(self.model, run_dir / "latest.zip", checkpoint_metadata(config, steps, state))
                write_json_atomic(run_dir / "state.json", state)
            return True

    return TrainingCallback()


def checkpoint_metadata(config: dict, steps: int, state: dict, evaluation: dict | None = None) -> dict:
    env_cfg = config["env"]
    meta = {
        **env_facts(env_cfg["name"], env_cfg["num_players"], env_cfg.get("options")),
        "env_options": env_cfg.get("options", {}),
        "reward": env_cfg["reward"],
        "config": config,
        "seed": config["seed"],
        "timesteps": steps,
        "wall_time_s": round(state.get("wall_time_before", 0) + time.time() - state["started"], 1),
        "evaluation": evaluation or {},
        "imitation": state.get("imitation"),
    }
    lineage = state.get("lineage") or []
    meta["lineage"] = lineage  # the runs this one fine-tuned (init_from), oldest first, each with its own figures
    meta["lineage_timesteps"] = steps + sum(run["timesteps"] for run in lineage)
    meta["lineage_wall_time_s"] = round(meta["wall_time_s"] + sum(run["wall_time_s"] for run in lineage), 1)
    return meta


def read_scalars(tb_dir: Path) -> dict[str, list[tuple[int, float]]]:
    """Every scalar SB3 wrote to TensorBoard under `tb_dir` (all runs, resumed ones included), by tag."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    series: dict[str, dict[int, float]] = {}
    for events in sorted(tb_dir.rglob("events.out.tfevents.*")):
        acc = EventAccumulator(str(events))
        acc.Reload()
        for tag in acc.Tags()["scalars"]:
            series.setdefault(tag, {}).update({e.step: e.value for e in acc.Scalars(tag)})
    return {tag: sorted(points.items()) for tag, points in series.items()}


def learning_curve(run_dir: Path) -> Path:
    """Evaluation win rates and mean episode reward against timesteps, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scalars = read_scalars(run_dir / "tb")
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    for tag, points in scalars.items():
        if tag.startswith("eval/win_rate_vs_"):
            xs, ys = zip(*points)
            ax1.plot(xs, ys, marker="o", label="vs " + tag.rsplit("_vs_", 1)[1])
    ax1.axhline(0.5, color="grey", lw=0.8, ls="--")
    ax1.set(xlabel="timesteps", ylabel="win rate (ties 1/2)", title="masked evaluation", ylim=(0, 1))
    if ax1.get_legend_handles_labels()[0]:
        ax1.legend()
    if "rollout/ep_rew_mean" in scalars:
        xs, ys = zip(*scalars["rollout/ep_rew_mean"])
        ax2.plot(xs, ys)
    ax2.set(xlabel="timesteps", ylabel="mean episode reward (last 100)", title="training episodes")
    fig.suptitle(run_dir.name)
    fig.tight_layout()
    path = run_dir / "learning_curve.png"
    fig.savefig(path, dpi=90)
    plt.close(fig)
    return path


def start_run(config: dict, run_dir: Path, resume: bool) -> dict:
    """The run's bookkeeping state: fresh (config.json written), or read back from state.json to resume."""
    run_dir.mkdir(parents=True, exist_ok=True)
    state = {"last_eval": 0, "last_snapshot": 0, "snapshots": [], "timesteps": 0, "wall_time_before": 0.0}
    if resume:
        state.update(json.loads((run_dir / "state.json").read_text()))
        state["wall_time_before"] = state.get("wall_time_s", 0.0)
    else:
        write_json_atomic(run_dir / "config.json", config)
    state["started"] = time.time()
    return state


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
        state["imitation"] = kickstart(model, config)
    remaining = config["timesteps"] - model.num_timesteps
    if remaining > 0:
        model.learn(remaining, callback=make_callback(config, run_dir, state), progress_bar=True, reset_num_timesteps=not resume)
    vec.close()
    final = evaluate_model(model, config, config["eval"]["final_games"], seed=1_000_000)
    state["timesteps"] = model.num_timesteps
    meta = checkpoint_metadata(config, model.num_timesteps, state, evaluation=final)
    path = save_checkpoint(model, run_dir / "final.zip", meta)
    learning_curve(run_dir)
    return {"checkpoint": str(path), "evaluation": final, "wall_time_s": meta["wall_time_s"], "timesteps": model.num_timesteps}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=Path, default=None, help="YAML config, or the name of a shipped one such as snack_wars (default: quickstart)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override a config value, e.g. --set algo.learning_rate=1e-4")
    parser.add_argument("--run-dir", type=Path, default=None, help="where to write the run (default: output_dir/<env>-s<seed>-<time>)")
    parser.add_argument("--resume", type=Path, default=None, help="continue an interrupted run in this folder")
    parser.add_argument("--backend", choices=["sb3", "rllib"], default="sb3",
                        help="sb3: MaskablePPO in this process (default); rllib: Ray RLlib multi-agent PPO (training/rllib_train.py)")
    parser.add_argument("--address", default=None, help="with --backend rllib: the Ray cluster to run on (default: a local Ray)")
    args = parser.parse_args(argv)
    if args.resume:
        config = json.loads((args.resume / "config.json").read_text())
        run_dir = args.resume
    else:
        config = load_config(args.config, args.overrides)
        run_dir = args.run_dir or Path(config["output_dir"]) / f"{config['env']['name']}-s{config['seed']}-{time.strftime('%Y%m%d-%H%M%S')}"
    print(f"training {config['env']['name']} ({config['env']['num_players']} players) for {config['timesteps']} timesteps -> {run_dir}")
    if args.backend == "rllib":
        from training.rllib_train import train as rllib_train

        result = rllib_train(config, run_dir, resume=bool(args.resume), address=args.address)
    else:
        result = train(config, run_dir, resume=bool(args.resume))
    print(f"\ntrained {result['timesteps']} timesteps in {result['wall_time_s']:.0f} s; checkpoint {result['checkpoint']}")
    print(f"{'opponent':12s} {'games':>6s} {'win rate':>9s} {'95% CI':>16s} {'W/T/L':>14s} {'mean score (agent vs opp)':>27s}")
    for spec, r in result["evaluation"].items():
        lo, hi = r["win_rate_ci95"]
        print(f"{spec:12s} {r['games']:6d} {r['win_rate']:9.3f}  [{lo:.3f}, {hi:.3f}] {r['wins']:>5d}/{r['ties']}/{r['losses']:<5d}"
              f" {r['hero_mean_score_ci95'][0]:12.2f} vs {r['villain_mean_score_ci95'][0]:.2f}")


if __name__ == "__main__":
    main()
