"""`snack-train` (the default backend): MaskablePPO (sb3-contrib) by self-play, evaluated and checkpointed.

The learner plays one random seat of `SingleAgentEnv`; each opponent seat
draws, per episode, random / heuristic / a frozen snapshot of the learner by
the weights in `opponents:` (`snack_envs.opponents`; snapshots join the pool
every `opponents.snapshot_every` timesteps, at most `max_snapshots`, oldest
dropped, from the pool and from <run>/snapshots/ alike; until the first exists
its weight goes to the heuristic).
With `imitation.games` > 0 a fresh run first clones the heuristic bot
(training/imitate.py), so PPO starts from its play instead of from random;
the imitation keeps its finished parts in <run>/imitation/, and a run stopped
in it (before its first checkpoint) resumes it there.
`timesteps` counts the learner's steps; a run ends at the first update at or
past it (a whole number of rollouts of `algo.n_steps` x `n_envs` steps).
Every `eval.every` timesteps the learner (deterministic, masked) plays
`eval.games` games against each `eval.opponents`; results go to TensorBoard,
eval.csv and the progress line, and the run is checkpointed atomically
(latest.zip + state.json). Snapshots, evaluations and checkpoints fall between
rollouts, after an update, so latest.zip always holds the newest weights with
the steps they learnt from, and an interrupted run resumes from the weights and
count it stopped at (its envs dealt anew: training/run.py's `resumed_seed`). SIGINT / SIGTERM
stop the run at the next step, save latest.zip and state.json as of the last
update, print how to resume and exit with 130 / 143 (training/run.py:
`StopSignals`, `TrainingInterrupted`).
A resumed run reads the run's config.json, checked as a fresh config is, so
editing it first continues the run with other settings (more timesteps, a lower
learning rate, another opponent mix or reward mode; `algo.n_steps` and the
network stay as saved). A finished run (final.zip) resumed without more
timesteps says so and changes nothing; with more, it trains on from its final
weights to a new final.zip.
At the end: latest.zip at the last update, a final evaluation over
`eval.final_games` games, the checkpoint `final.zip` with its metadata, and
learning_curve.png (training/run.py).
A config with `stages:` is a recipe: `train` trains its stages one after the
other, each as above in a folder of its own (training/recipe.py).
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from snack_envs.agents import Policy, RandomPolicy, heuristic_policy
from snack_envs.checkpoints import CheckpointError, CheckpointPolicy, check_archive, check_fits, load_policy, read_metadata, save_checkpoint
from snack_envs.core.game import ConfigError
from snack_envs.opponents import OpponentMix, weights_in
from snack_envs.single_agent import SingleAgentEnv
from snack_envs.training.config import check_config, player_counts, read_run_json
from snack_envs.training.imitate import IMITATION_DIR, imitates, kickstart
from snack_envs.training.run import (
    Interrupted, StopSignals, check_backend, checkpoint_metadata, eval_due, evaluate, evaluate_final, finished_run, learning_curve,
    lineage_entry, keep_due, prune_snapshots, read_state, resume_command, resumed_seed, save_state, snapshot_due, start_run, stopped,
    train_result, write_eval,
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
    """SingleAgentEnv whose opponents come from an OpponentPool that grows during training; `num_players`
    is one of the config's player counts (default: the first)."""

    def __init__(self, config: dict, num_players: int | None = None):
        env_cfg = config["env"]
        options = env_cfg.get("options", {})
        opponents = config["opponents"]
        num_players = num_players or player_counts(config)[0]
        self.pool = OpponentPool(env_cfg["name"], num_players, weights_in(opponents), opponents["max_snapshots"], options)
        super().__init__(env_cfg["name"], opponents=(), opponent_sampler=self.pool, num_players=num_players,
                         reward=env_cfg["reward"], **options)

    def add_snapshot(self, path: str) -> None:
        self.pool.add_snapshot(path)


def make_vec_env(config: dict, run_dir: Path):
    """The training envs: `vec_env` dummy (one process), subproc (a process per env), or batched (the
    native batched engine, opponents moving inside its step: snack_envs.core.batched_sb3). With several
    player counts, env i plays the (i mod k)-th of the k counts (batched: one engine per count)."""
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    counts = player_counts(config)
    if config["vec_env"] == "batched":
        from snack_envs.core.batched_sb3 import PART_SEED_STRIDE, BatchedSelfPlayVecEnv, ConcatVecEnv

        env_cfg, opponents = config["env"], config["opponents"]
        parts = [BatchedSelfPlayVecEnv(env_cfg["name"], len(range(i, config["n_envs"], len(counts))), n,
                                       config["seed"] + PART_SEED_STRIDE * i, env_cfg["reward"],
                                       weights_in(opponents),
                                       opponents["max_snapshots"], **env_cfg.get("options", {}))
                 for i, n in enumerate(counts)]
        return parts[0] if len(parts) == 1 else ConcatVecEnv(parts)

    monitor_dir = run_dir / "monitor"
    monitor_dir.mkdir(parents=True, exist_ok=True)

    subproc = config["vec_env"] == "subproc"

    def factory(i: int):
        def make():
            if subproc:  # in the worker: Ctrl-C (sent to the whole process group) is the main process's to handle
                signal.signal(signal.SIGINT, signal.SIG_IGN)
            return Monitor(SelfPlayEnv(config, counts[i % len(counts)]), str(monitor_dir / f"env{i}"), override_existing=False)

        return make

    cls = SubprocVecEnv if config["vec_env"] == "subproc" else DummyVecEnv
    vec = cls([factory(i) for i in range(config["n_envs"])])
    vec.seed(config["seed"])
    return vec


def evaluate_model(model, config: dict, games: int, seed: int) -> dict[str, dict]:
    """The model (deterministic, masked) against each `eval.opponents`."""
    return evaluate(CheckpointPolicy(model, "learner"), config, games, seed)


def make_callback(config: dict, run_dir: Path, state: dict, stop: StopSignals):
    """The run's bookkeeping inside `model.learn`. Snapshots, evaluations and checkpoints happen at the
    start of a rollout, where the weights are those of the update just done and `num_timesteps` counts
    the steps that update learnt from: a checkpoint there holds weights and a count that agree.
    A stop signal ends the rollout at its next step, and the run is saved as it was at the rollout's start."""
    from stable_baselines3.common.callbacks import BaseCallback

    class TrainingCallback(BaseCallback):
        boundary = 0  # num_timesteps where the current rollout started (the last update's count)

        def _on_rollout_start(self) -> None:
            self.boundary = steps = self.num_timesteps
            if stop.signum is not None:
                return  # stopping: the first _on_step ends the rollout
            try:
                if snapshot_due(config, state, steps):
                    with stop.critical():
                        path = run_dir / "snapshots" / f"step{steps}.zip"
                        save_checkpoint(self.model, path, checkpoint_metadata(config, steps, state))
                        self.training_env.env_method("add_snapshot", str(path))
                        state["snapshots"] = (state["snapshots"] + [str(path)])[-config["opponents"]["max_snapshots"]:]
                        state["last_snapshot"] = steps
                if keep_due(config, state, steps):
                    with stop.critical():
                        keep(self.model, run_dir, config, state, steps)
                if eval_due(config, state, steps):
                    with stop.at_once():
                        results = evaluate_model(self.model, config, config["eval"]["games"], seed=10_000 + steps)
                    with stop.critical():
                        write_eval(run_dir, steps, results, self.logger.record)
                        self.logger.dump(steps)
                        state["last_eval"] = steps
                        save_run(self.model, run_dir, config, state, steps)
            except Interrupted:
                pass  # stop.signum is set: the first _on_step ends the rollout, _on_training_end saves

        cut = False  # whether a stop signal broke off a rollout

        def _on_step(self) -> bool:
            self.cut = stop.signum is not None
            return not self.cut

        def _on_training_end(self) -> None:
            # After the last update (done), or inside a rollout a signal cut short: then the rollout's
            # steps are dropped, and the weights (unchanged since its start) are saved at its start's count.
            if self.cut:
                self.model.num_timesteps = self.boundary
            with stop.critical():
                if keep_due(config, state, self.model.num_timesteps):
                    keep(self.model, run_dir, config, state, self.model.num_timesteps)
                save_run(self.model, run_dir, config, state, self.model.num_timesteps)

    return TrainingCallback()


def keep(model, run_dir: Path, config: dict, state: dict, steps: int) -> None:
    """A checkpoint to keep, <run>/keep/step<steps>.zip (`keep_at`; training/run.py `keep_due`)."""
    save_checkpoint(model, run_dir / "keep" / f"step{steps}.zip", checkpoint_metadata(config, steps, state))
    state["last_keep"] = steps


def save_run(model, run_dir: Path, config: dict, state: dict, steps: int) -> None:
    """latest.zip (+ .json) and state.json at `steps`, then the snapshots the pool dropped are deleted."""
    save_checkpoint(model, run_dir / "latest.zip", checkpoint_metadata(config, steps, state))
    save_state(run_dir, state, steps)
    prune_snapshots(run_dir, state)


def resume_checkpoint(run_dir: Path, missing_ok: bool = False) -> Path | None:
    """The newest checkpoint of a run to resume from: latest.zip, or final.zip where that has more timesteps;
    where there is none, None if `missing_ok`, else a ConfigError."""
    def steps(path: Path) -> int:
        meta = path.with_suffix(".json")
        if not (meta.is_file() and path.is_file()):
            return -1
        return read_run_json(meta, "a checkpoint's metadata").get("timesteps", -1)

    latest, final = run_dir / "latest.zip", run_dir / "final.zip"
    if steps(latest) < 0 and steps(final) < 0:
        if missing_ok:
            return None
        raise ConfigError(f"{run_dir} has no checkpoint (latest.zip with latest.json) to resume from")
    return final if steps(final) >= steps(latest) else latest


def start_from(model, path: Path, config: dict, run_dir: Path | None = None, recipe: dict | None = None) -> list[dict]:
    """Load a checkpoint's weights into a fresh model (`init_from`), after checking it fits the config.
    Returns the lineage of the new run (in `run_dir`; `recipe`: the run's, see training/run.py `start_run`):
    the runs behind that checkpoint, oldest first, it last (`lineage_entry`)."""
    meta = read_metadata(path)
    check_fits(meta, config["env"]["name"], None)  # any player count: the sizes are checked by set_parameters
    try:
        model.set_parameters(str(path), exact_match=True, device="cpu")
    except (RuntimeError, ValueError) as error:  # another network shape
        raise CheckpointError(f"init_from={path}: its network does not match algo.policy, algo.net_arch and algo.grid ({error})") from error
    return meta.get("lineage", []) + [lineage_entry(path, meta, Path(run_dir or "."), recipe)]


def ppo_settings(algo: dict) -> dict:
    """The config's `algo` less the network's keys (policy_for's): MaskablePPO's own arguments."""
    return {k: v for k, v in algo.items() if k not in ("net_arch", "policy", "grid")}


def policy_for(env_name: str, algo: dict) -> tuple[Any, dict]:
    """MaskablePPO's policy and policy_kwargs for the config's `algo`: an MLP (`net_arch`) or, with
    `policy: grid`, for a game on a grid, the convolutional GridPolicy (snack_envs/networks.py) of
    `algo.grid`'s size."""
    if algo.get("policy", "mlp") == "grid":
        from snack_envs.networks import GridPolicy
        from snack_envs.training.config import grid_size, grid_spec

        return GridPolicy, {"grid": grid_spec(env_name), **grid_size(algo)}
    return "MlpPolicy", {"net_arch": algo["net_arch"]}


def train(config: dict, run_dir: Path, resume: bool = False, recipe: dict | None = None,
          resume_dir: Path | None = None, on_start: Callable[[], None] | None = None) -> dict:
    """Train, evaluate and checkpoint as the module docstring says; returns what `snack-train` prints.
    On SIGINT / SIGTERM: saves the run and raises TrainingInterrupted (training/run.py). A config with
    `stages:` is a recipe, run stage by stage into `run_dir`/stage1, ... (training/recipe.py). `recipe`: the
    config it was loaded from (`{"config": "configs/<name>.yaml", "overrides": [...]}`, for the metadata);
    `resume_dir`: the folder the resume line names (a stage's: the recipe's); `on_start`: called once the
    checks have passed, just before the run begins (snack-train prints its "training ..." line there)."""
    if config.get("stages"):
        from snack_envs.training.recipe import train_recipe

        return train_recipe(config, Path(run_dir), resume, recipe, train_stage=train)
    config = check_config(config, source=run_dir / "config.json" if resume else None, resume=resume)
    if resume:  # an rllib run's checkpoints are no zip files (its final.json says finished all the same)
        check_backend(run_dir, "sb3")
    if resume and (done := finished_run(run_dir, config, run_dir / "final.zip")):
        return done
    import torch

    torch.set_num_threads(config["torch_threads"])
    with StopSignals() as stop:
        return _train(config, run_dir, resume, stop, recipe, resume_dir, on_start)


def _train(config: dict, run_dir: Path, resume: bool, stop: StopSignals, recipe: dict | None = None,
           resume_dir: Path | None = None, on_start: Callable[[], None] | None = None) -> dict:
    from sb3_contrib import MaskablePPO

    state = start_run(config, run_dir, resume, recipe)
    state["snapshots"] = state["snapshots"][-config["opponents"]["max_snapshots"]:]
    resume_line = f"resume with: {resume_command(resume_dir or run_dir)}"
    imitating = imitates(config)
    checkpoint = None
    if resume:  # a run stopped in its imitation has no checkpoint yet: it starts again, taking up the imitation
        checkpoint = resume_checkpoint(run_dir, missing_ok=imitating)
    if checkpoint is not None:
        try:
            meta = read_metadata(checkpoint)
            for n in player_counts(config):
                check_fits(meta, config["env"]["name"], n)
        except CheckpointError as error:
            raise ConfigError(f"{run_dir / 'config.json'}: env does not fit the run's {checkpoint.name}: {error}") from None
    if on_start:
        on_start()
    seed = resumed_seed(config["seed"], state["timesteps"])  # a fresh run: 0 timesteps, the config's seed
    vec = make_vec_env({**config, "seed": seed}, run_dir)
    try:
        for path in state["snapshots"]:
            vec.env_method("add_snapshot", str(run_dir / "snapshots" / Path(path).name))
        algo = ppo_settings(config["algo"])
        if checkpoint is not None:
            # The config's scalar settings win over those saved in the model, so a resumed run can be
            # continued with, say, a lower learning rate by editing its config.json (n_steps stays).
            scalars = {k: v for k, v in algo.items() if k != "n_steps"}
            check_archive(checkpoint)  # a damaged or truncated one is a CheckpointError naming it
            model = MaskablePPO.load(checkpoint, env=vec, device="cpu", tensorboard_log=str(run_dir / "tb"),
                                     custom_objects=scalars)
            model.set_random_seed(seed)  # load seeds torch and the action space from the run's seed again
            state["timesteps"] = model.num_timesteps
        else:
            policy, policy_kwargs = policy_for(config["env"]["name"], config["algo"])
            model = MaskablePPO(policy, vec, seed=config["seed"], device="cpu", verbose=0, tensorboard_log=str(run_dir / "tb"),
                                policy_kwargs=policy_kwargs, **algo)
            if config.get("init_from"):
                state["lineage"] = start_from(model, Path(config["init_from"]), config, run_dir, state.get("recipe"))
            if imitating and not resume:
                with stop.critical():
                    save_state(run_dir, state, 0)  # resumable from here: the imitation keeps its parts as it goes
            with stop.at_once():
                state["imitation"] = kickstart(model, config, partial(SelfPlayEnv, config), run_dir / IMITATION_DIR)
        remaining = config["timesteps"] - model.num_timesteps
        if remaining > 0:
            from stable_baselines3.common.callbacks import CallbackList, ProgressBarCallback

            bar = ProgressBarCallback()
            try:
                model.learn(remaining, callback=CallbackList([make_callback(config, run_dir, state, stop), bar]),
                            reset_num_timesteps=checkpoint is None)
            finally:
                if getattr(bar, "pbar", None) is not None:
                    bar.pbar.close()  # closed already, unless a second signal broke off learn()
            if stop.signum is not None:
                raise stopped(stop.signum, f"stopped at {model.num_timesteps} timesteps; saved {run_dir / 'latest.zip'} "
                                           f"and state.json; {resume_line}")
    except Interrupted as interrupted:
        if not (run_dir / "state.json").is_file():
            if resume_dir is not None:  # a stage of a recipe: resuming the recipe starts the stage again
                raise stopped(interrupted.signum, f"stopped before {run_dir.name}'s first checkpoint: it starts again "
                                                  f"when the recipe resumes; {resume_line}") from None
            raise stopped(interrupted.signum, "stopped before the run's first checkpoint: nothing to resume; "
                                              "start it again") from None
        if imitating and resume_checkpoint(run_dir, missing_ok=True) is None:
            raise stopped(interrupted.signum, f"stopped in the imitation: its finished parts are kept in "
                                              f"{run_dir / IMITATION_DIR}; {resume_line}") from None
        raise stopped(interrupted.signum, f"stopped at once: the work since the last checkpoint "
                                          f"({read_state(run_dir)['timesteps']} timesteps) is lost; {resume_line}") from None
    finally:
        vec.close()
    final = evaluate_final(CheckpointPolicy(model, "learner"), config, stop,
                           f"stopped in the final evaluation, after all {model.num_timesteps} timesteps "
                           f"(saved in {run_dir / 'latest.zip'}); {resume_line} to evaluate it")
    with stop.critical():
        state["timesteps"] = model.num_timesteps
        meta = checkpoint_metadata(config, model.num_timesteps, state, evaluation=final)
        path = save_checkpoint(model, run_dir / "final.zip", meta)
    learning_curve(run_dir)
    return train_result(path, final, meta, model.num_timesteps)
