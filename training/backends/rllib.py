"""`snack-train --backend rllib`: the same YAML configs, trained with Ray RLlib's multi-agent PPO.

    snack-train --backend rllib                                       # quick-start config, a local Ray
    snack-train --backend rllib --config snack_rabbits --set vec_env=subproc --set n_envs=32 \\
                --address 10.0.0.5:6379                               # an existing Ray cluster

Needs `pip install "snack-envs[rllib]"` (on every node of a cluster). The
learner module "main" (`snack_envs.integrations.rllib.MaskedPPOTorchRLModule`)
plays one random agent of each episode; the other agents draw random /
heuristic / a frozen snapshot of "main" by the `opponents:` weights, snapshots
joining every `opponents.snapshot_every` timesteps (at most `max_snapshots`).

How the config maps onto RLlib:
- `vec_env: dummy` samples in the driver, `n_envs` envs in one EnvRunner;
  `vec_env: subproc` starts `n_envs` remote EnvRunners of one env each (the
  way to spread sampling over a cluster). The learner runs in the driver.
- `algo`: learning_rate -> lr, n_steps * n_envs -> train_batch_size_per_learner,
  batch_size -> minibatch_size, n_epochs -> num_epochs, gamma, gae_lambda ->
  lambda_, ent_coef -> entropy_coeff, vf_coef -> vf_loss_coeff, clip_range ->
  clip_param, max_grad_norm -> grad_clip, net_arch -> fcnet_hiddens; only
  `policy: mlp` (the convolutional `grid` policy is SB3's).
- From fresh weights: `init_from` (an SB3 checkpoint) is refused, and
  `imitation` (cloning the heuristic first) is left out with a notice.
- `timesteps`, `eval.every` and `opponents.snapshot_every` count the learner's
  steps (module "main"'s decisions: RLlib's `num_module_steps_sampled`), as in
  the SB3 backend, not the env steps of every seat; a run stops at the first
  iteration that reaches `timesteps`. (`n_steps * n_envs`, the batch of one
  iteration, is RLlib's count of env steps, every seat's.)
- `opponents`: drawn per agent and episode by `snack_envs.opponents`, as in the
  SB3 backend (`snack_envs.integrations.rllib.OpponentMapping`), from the run's
  `seed`, as are the random opponents' moves; a heuristic opponent is one bot
  per game (Speed Snacks' remembers earlier ticks).
- `eval`: every `eval.every` timesteps "main" (argmax over legal actions) plays
  `eval.games` games against each `eval.opponents` with `snack_envs.training.evaluate`;
  then the Algorithm is checkpointed to <run>/checkpoint (so `--resume` goes on
  from there) beside state.json, eval.csv and TensorBoard scalars under tb/
  (the SB3 backend's tags, so learning_curve.png is drawn the same way; the
  run's files are training/run.py's).
SIGINT / SIGTERM stop the run after the current iteration, with <run>/checkpoint
and state.json saved (exit status 130 / 143; training/run.py). A resumed run that
has final.json is finished unless its config.json asks for more timesteps; one
resumed mid-way deals new games (training/run.py's `resumed_seed`).
At the end: a final evaluation, the Algorithm checkpoint <run>/final with
final.json (game facts, config, evaluation, library versions); load the learner
with `snack_envs.integrations.rllib.load_policy("<run>/final")`.
"""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Callable
from pathlib import Path

from snack_envs.checkpoints import RLLIB_RUN_FORMAT, library_versions, write_json_atomic
from snack_envs.core.game import ConfigError
from snack_envs.opponents import weights_in
from snack_envs.training.config import check_config
from snack_envs.training.run import (
    Interrupted, StopSignals, check_backend, checkpoint_metadata, eval_due, evaluate, finished_run, learning_curve, read_state,
    resume_command, resumed_seed, save_state, snapshot_due, start_run, stopped, train_result, write_eval,
)

FORMAT = RLLIB_RUN_FORMAT


def runners(config: dict) -> tuple[int, int]:
    """(num_env_runners, num_envs_per_env_runner) for the config's n_envs and vec_env."""
    return (config["n_envs"], 1) if config["vec_env"] == "subproc" else (0, config["n_envs"])


def build_config(config: dict, snapshots: tuple[str, ...] = ()):
    env_cfg, algo = config["env"], config["algo"]
    if algo.get("policy", "mlp") != "mlp":
        raise ConfigError(f"algo.policy={algo['policy']!r}: the rllib backend builds MLPs only (algo.net_arch); use the sb3 backend")
    from snack_envs.integrations.rllib import ppo_config

    num_env_runners, envs_per_runner = runners(config)
    training = {
        "lr": algo["learning_rate"],
        "train_batch_size_per_learner": algo["n_steps"] * config["n_envs"],
        "minibatch_size": algo["batch_size"],
        "num_epochs": algo["n_epochs"],
        "gamma": algo["gamma"],
        "lambda_": algo["gae_lambda"],
        "entropy_coeff": algo["ent_coef"],
        "clip_param": algo["clip_range"],
    }
    if "vf_coef" in algo:
        training["vf_loss_coeff"] = algo["vf_coef"]
    if "max_grad_norm" in algo:
        training["grad_clip"] = algo["max_grad_norm"]
    return ppo_config(
        env_cfg["name"],
        num_players=env_cfg["num_players"],
        reward=env_cfg["reward"],
        env_options=env_cfg.get("options", {}),
        opponents=weights_in(config["opponents"]),
        snapshots=tuple(snapshots),
        net_arch=tuple(algo["net_arch"]),
        seed=config["seed"],
        num_env_runners=num_env_runners,
        num_envs_per_env_runner=envs_per_runner,
        **training,
    )


def evaluate_module(module, config: dict, games: int, seed: int) -> dict[str, dict]:
    """The learner's module (argmax over legal actions) against each `eval.opponents`."""
    from snack_envs.integrations.rllib import RLModulePolicy

    return evaluate(RLModulePolicy(module, "learner"), config, games, seed)


def save_algorithm(algo, path: Path) -> Path:
    """Save through a temporary folder and renames, so that at every moment `path` or, for the instant
    between the two renames, `<path>.previous` holds a whole checkpoint (`restore_algorithm` puts it back)."""
    tmp, previous = path.with_name(path.name + ".partial"), path.with_name(path.name + ".previous")
    shutil.rmtree(tmp, ignore_errors=True)
    algo.save_to_path(str(tmp.resolve()))
    restore_algorithm(path)
    shutil.rmtree(previous, ignore_errors=True)
    if path.exists():
        os.replace(path, previous)
    os.replace(tmp, path)
    shutil.rmtree(previous, ignore_errors=True)
    return path


def restore_algorithm(path: Path) -> None:
    """Put back the checkpoint that a save stopped between its two renames left as `<path>.previous`."""
    previous = path.with_name(path.name + ".previous")
    if previous.is_dir() and not path.exists():
        os.replace(previous, path)


def check_reachable(address: str, timeout_s: float = 10.0) -> None:
    """A ConfigError at once if nothing answers at the HOST:PORT of `address` (also ray://HOST:PORT), where
    Ray itself would retry for minutes before giving up. Other forms ("auto") are left to Ray to judge."""
    host, colon, port = address.removeprefix("ray://").rpartition(":")
    if not (colon and host and port.isascii() and port.isdigit()):  # isdigit alone takes "²", no int
        return
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s).close()
    except (OSError, OverflowError) as error:  # refused, unknown host, timed out; a port above 65535
        raise ConfigError(f"--address {address}: nothing answers at {host}:{port} ({error})") from None


def start_ray(address: str | None, config: dict) -> bool:
    """Connect to the cluster at `address` (which `train` has checked with `check_reachable`), or start a
    local Ray; True if this call started it."""
    import ray

    if ray.is_initialized():
        return False
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if address:
        try:
            ray.init(address=address)
        except (ValueError, ConnectionError) as error:  # a malformed address, or no cluster there
            raise ConfigError(f"--address {address}: no Ray cluster to connect to ({error})") from None
    else:  # enough logical CPUs for the EnvRunners plus the driver, however many cores there are
        ray.init(num_cpus=max(os.cpu_count() or 1, runners(config)[0] + 1), include_dashboard=False)
    return True


def learner_steps(result: dict, learner: str = "main") -> int:
    """The learner's steps in one `algo.train()` result: the decisions of module `learner` (RLlib's
    `num_module_steps_sampled`), not `num_env_steps_sampled`, which counts every seat's moves; so that
    `timesteps` means what it means in the SB3 backend."""
    return int(result["env_runners"].get("num_module_steps_sampled", {}).get(learner, 0))


def rllib_config(config: dict) -> dict:
    """`config` as this backend trains it: what only the SB3 backend can do either is refused with one line
    (a ConfigError) or, where the game configs set it by default, left out with a printed notice."""
    if config["vec_env"] == "batched":  # the game configs' default, an SB3 VecEnv: RLlib samples its own envs
        print("vec_env=batched is the SB3 backend's; the rllib backend samples with vec_env=dummy")
        config = {**config, "vec_env": "dummy"}
    if config["algo"].get("policy", "mlp") != "mlp":
        raise ConfigError(f"algo.policy={config['algo']['policy']!r}: the rllib backend builds MLPs only (algo.net_arch); use the sb3 backend")
    if isinstance(config["env"]["num_players"], list):
        raise ConfigError(f"env.num_players={config['env']['num_players']!r}: the rllib backend trains one player count "
                          f"per run; use the sb3 backend to train on several")
    if config.get("keep_at"):
        raise ConfigError(f"keep_at={config['keep_at']!r}: the rllib backend keeps no checkpoints at given timesteps; "
                          f"use the sb3 backend")
    if config.get("init_from"):
        raise ConfigError(f"init_from={config['init_from']!r}: the rllib backend starts from fresh weights, it loads "
                          f"no SB3 checkpoint; use the sb3 backend")
    if games := (config.get("imitation") or {}).get("games"):  # the quick-start config clones the heuristic first
        print(f"imitation.games={games} (cloning the heuristic) is the SB3 backend's; "
              f"the rllib backend starts from fresh weights")
        config = {**config, "imitation": {**config["imitation"], "games": 0}}
    return config


def train(config: dict, run_dir: Path, resume: bool = False, address: str | None = None,
          on_start: Callable[[], None] | None = None) -> dict:
    """Train, evaluate and checkpoint as the module docstring says; returns what `snack-train` prints.
    `on_start`: called once the checks have passed, just before the run begins.
    On SIGINT / SIGTERM: saves the run after the current iteration and raises TrainingInterrupted (training/run.py)."""
    if config.get("stages"):
        raise ConfigError("--backend rllib does not train a recipe of stages (the config's stages:); use the sb3 backend")
    config = check_config(config, source=run_dir / "config.json" if resume else None, resume=resume)
    if resume:  # an sb3 run's checkpoints are no Algorithm checkpoints (its final.json says finished all the same)
        check_backend(run_dir, "rllib")
    config = rllib_config(config)
    if resume:  # a fresh run leaves a folder it refuses as it found it
        for saved in ("checkpoint", "final"):  # a save stopped between its renames
            restore_algorithm(run_dir / saved)
    if resume and (done := finished_run(run_dir, config, run_dir / "final", backend="rllib")):
        return done
    if address:  # before start_run writes the run's folder
        check_reachable(address)
    import ray
    import torch
    from torch.utils.tensorboard import SummaryWriter

    from snack_envs.integrations.rllib import LEARNER, add_snapshot

    torch.set_num_threads(config["torch_threads"])
    state = start_run(config, run_dir, resume)
    if resume and not (run_dir / "checkpoint").is_dir():
        raise ConfigError(f"{run_dir} has no checkpoint folder to resume from")
    started_ray = start_ray(address, config)
    if on_start:
        on_start()
    tb = SummaryWriter(str(run_dir / "tb" / "rllib"))
    resume_line = f"resume with: {resume_command(run_dir, 'rllib')}"
    steps = state["timesteps"]
    try:
        with StopSignals() as stop:  # after ray.init, which sets handlers of its own (put back on exit)
            try:
                # A resumed run deals new games (restore_from_path keeps the seed it was built with).
                seed = resumed_seed(config["seed"], state["timesteps"])
                algo = build_config({**config, "seed": seed}, tuple(state["snapshots"])).build_algo()
                if resume:
                    algo.restore_from_path(str((run_dir / "checkpoint").resolve()))
                while steps < config["timesteps"] and stop.signum is None:
                    result = algo.train()
                    steps += learner_steps(result, LEARNER)
                    if snapshot_due(config, state, steps):
                        with stop.critical():
                            add_snapshot(algo, config["opponents"]["max_snapshots"])
                            state["snapshots"] = list(algo.config.policy_mapping_fn.snapshots)
                            state["last_snapshot"] = steps
                    returns = result["env_runners"].get("module_episode_returns_mean", {})
                    if LEARNER in returns:
                        tb.add_scalar("rollout/ep_rew_mean", returns[LEARNER], steps)
                    print(f"[{steps} steps] iteration {algo.iteration}: mean return of {LEARNER} "
                          f"{returns.get(LEARNER, float('nan')):.3f}, snapshots {state['snapshots']}", flush=True)
                    due = eval_due(config, state, steps)
                    if due and steps < config["timesteps"]:  # the last one is the final evaluation below
                        try:
                            with stop.at_once():
                                results = evaluate_module(algo.get_module(LEARNER), config, config["eval"]["games"], 10_000 + steps)
                        except Interrupted:
                            due = False  # evaluated again once resumed
                        else:
                            write_eval(run_dir, steps, results, scalar_logger(tb, steps))
                    if due or steps >= config["timesteps"] or stop.signum is not None:
                        with stop.critical():  # the Algorithm after its update, and the state that goes with it
                            state["last_eval"] = steps if due else state["last_eval"]
                            save_algorithm(algo, run_dir / "checkpoint")
                            save_state(run_dir, state, steps)
                if stop.signum is not None:
                    if not (run_dir / "state.json").is_file():  # stopped before a fresh run's first iteration
                        with stop.critical():
                            save_algorithm(algo, run_dir / "checkpoint")
                            save_state(run_dir, state, steps)
                    raise stopped(stop.signum, f"stopped at {steps} timesteps; saved {run_dir / 'checkpoint'} and "
                                               f"state.json; {resume_line}")
                with stop.at_once():
                    final = evaluate_module(algo.get_module(LEARNER), config, config["eval"]["final_games"], seed=1_000_000)
                with stop.critical():
                    write_eval(run_dir, steps, final, scalar_logger(tb, steps))
                    path = save_algorithm(algo, run_dir / "final")
            except Interrupted as interrupted:
                if not (run_dir / "state.json").is_file():
                    raise stopped(interrupted.signum, "stopped before the run's first checkpoint: nothing to resume; "
                                                      "start it again") from None
                saved = read_state(run_dir)["timesteps"]
                if interrupted.forced or saved < config["timesteps"]:
                    raise stopped(interrupted.signum, f"stopped at once: the work since the last checkpoint ({saved} "
                                                      f"timesteps) is lost; {resume_line}") from None
                raise stopped(interrupted.signum, f"stopped in the final evaluation, after all {saved} timesteps (saved in "
                                                  f"{run_dir / 'checkpoint'}); {resume_line} to evaluate it") from None
            algo.stop()
    finally:
        tb.close()
        if started_ray:
            ray.shutdown()
    meta = checkpoint_metadata(config, steps, state, evaluation=final)
    versions = {**library_versions(), "ray": ray.__version__}
    write_json_atomic(run_dir / "final.json", {"format": FORMAT, **meta, "module": f"final/learner_group/learner/rl_module/{LEARNER}",
                                               "library_versions": versions})
    learning_curve(run_dir)
    return train_result(path, final, meta, steps)


def scalar_logger(tb, steps: int):
    """`log_scalar(tag, value)` at `steps` for `snack_envs.training.run.write_eval`."""
    return lambda tag, value: tb.add_scalar(tag, value, steps)
