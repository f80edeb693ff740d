"""A training run on disk, whichever backend trains it: its folder, state, evaluations, metadata and curves.

    <run>/config.json      the config the run was started with (edit it, then --resume, to continue otherwise)
    <run>/state.json       timesteps, last evaluation and snapshot, snapshot list, wall time (to resume)
    <run>/eval.csv         timesteps, opponent, win rate, its 95% interval, mean score: one row per evaluation
    <run>/tb/              TensorBoard scalars ("eval/win_rate_vs_<opponent>", "rollout/ep_rew_mean")
    <run>/learning_curve.png

The checkpoints themselves are the backend's (training/backends/).
"""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path

from snack_envs.agents import Policy, make_policy
from snack_envs.checkpoints import env_facts, write_json_atomic
from training.evaluate import head_to_head


def default_run_dir(config: dict) -> Path:
    """output_dir/<env>-s<seed>-<time>."""
    return Path(config["output_dir"]) / f"{config['env']['name']}-s{config['seed']}-{time.strftime('%Y%m%d-%H%M%S')}"


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


def save_state(run_dir: Path, state: dict, steps: int) -> None:
    """Record `steps` timesteps and the wall time so far in state.json."""
    state["timesteps"] = steps
    state["wall_time_s"] = state["wall_time_before"] + time.time() - state["started"]
    write_json_atomic(run_dir / "state.json", state)


def snapshot_due(config: dict, state: dict, steps: int) -> bool:
    """Whether a frozen copy of the learner joins the opponents now (`opponents.snapshot_every`)."""
    opponents = config["opponents"]
    return opponents["self"] > 0 and steps - state["last_snapshot"] >= opponents["snapshot_every"]


def eval_due(config: dict, state: dict, steps: int) -> bool:
    """Whether the run is evaluated and checkpointed now (`eval.every`)."""
    return steps - state["last_eval"] >= config["eval"]["every"]


def evaluate(hero: Policy, config: dict, games: int, seed: int) -> dict[str, dict]:
    """`hero` against each of `eval.opponents` over `games` games (training.evaluate.head_to_head), by opponent."""
    env_cfg = config["env"]
    options = env_cfg.get("options", {})
    results = {}
    for spec in config["eval"]["opponents"]:
        villain = make_policy(spec, env_cfg["name"], env_cfg["num_players"], seed=seed, **options)
        results[spec] = head_to_head(env_cfg["name"], hero, villain, games, env_cfg["num_players"], seed=seed, **options)
    return results


def write_eval(run_dir: Path, steps: int, results: dict, log_scalar) -> None:
    """Evaluation results to eval.csv, TensorBoard (`log_scalar(tag, value)`) and the progress line."""
    for spec, r in results.items():
        log_scalar(f"eval/win_rate_vs_{spec}", r["win_rate"])
    with (run_dir / "eval.csv").open("a", newline="") as f:
        writer = csv.writer(f)
        for spec, r in results.items():
            writer.writerow([steps, spec, r["win_rate"], *r["win_rate_ci95"], r["hero_mean_score_ci95"][0]])
    print(f"\n[{steps} steps] " + ", ".join(f"vs {s}: {r['win_rate']:.3f}" for s, r in results.items()), flush=True)


def checkpoint_metadata(config: dict, steps: int, state: dict, evaluation: dict | None = None) -> dict:
    """What a checkpoint of this run records beside its weights (see snack_envs.checkpoints)."""
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


def train_result(checkpoint: Path, evaluation: dict, meta: dict, timesteps: int) -> dict:
    """What a backend's `train` returns, for `snack-train` to print."""
    return {"checkpoint": str(checkpoint), "evaluation": evaluation, "wall_time_s": meta["wall_time_s"], "timesteps": timesteps}


def read_scalars(tb_dir: Path) -> dict[str, list[tuple[int, float]]]:
    """Every scalar written to TensorBoard under `tb_dir` (all runs, resumed ones included), by tag."""
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
