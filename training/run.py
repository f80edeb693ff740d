"""A training run on disk, whichever backend trains it: its folder, state, evaluations, metadata and curves.

    <run>/config.json      the config the run was started with (edit it, then --resume, to continue otherwise)
    <run>/state.json       timesteps, last evaluation and snapshot, snapshot list, wall time (to resume)
    <run>/eval.csv         a header row, then one row per evaluation and opponent: timesteps, opponent, win rate,
                           its 95% interval, mean score (both over finished games), unfinished games
    <run>/keep/            checkpoints kept at `keep_at` timesteps (step<timesteps>.zip + .json), for a recipe's branch
    <run>/imitation/       the imitation's finished parts, samples and fitted weights (training/imitate.py `Progress`;
                           sb3 backend), so that a run stopped in it takes it up where it stopped
    <run>/tb/              TensorBoard scalars ("eval/win_rate_vs_<opponent>", "rollout/ep_rew_mean")
    <run>/learning_curve.png

The checkpoints themselves are the backend's (training/backends/). What both
backends share about a run's life is here too: a run is checkpointed only where
its weights and its timestep count agree (after an update), so a resumed run
goes on from the weights, count and opponent pool the run had there (its envs
and random streams start from `resumed_seed`, drawn from the run's seed and that
count: the games in play are not saved, so it is not bit for bit the run that was
cut off, nor does it deal again the games the run began with); SIGINT /
SIGTERM (`StopSignals`) end a run at the next such point, with its checkpoint
and state.json saved, one line on how to resume, and exit status 128 + the
signal (`TrainingInterrupted`: 130 for Ctrl-C, 143 for SIGTERM); a run with
an imitation is resumable from its start (state.json is written before it); a resumed run
that has its final checkpoint is finished (`finished_run`) unless its config
asks for more timesteps.
`timesteps` (and `eval.every`, `opponents.snapshot_every`) count the learner's
steps, its own decisions, not its opponents', in either backend.
"""

from __future__ import annotations

import csv
import math
import re
import signal
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

from snack_envs import specs
from snack_envs.agents import Policy, make_policy
from snack_envs.checkpoints import env_facts, write_json_atomic
from snack_envs.core.game import ConfigError
from snack_envs.training.config import CONFIG_DIR, player_counts, read_run_json
from snack_envs.training.arena import match, solo
from snack_envs.training.evaluate import head_to_head
from snack_envs.training.outcomes import eval_figures, is_solo, mean_text

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(BaseException):
    """Raised by `StopSignals` where stopping at once is safe (or forced by a second signal). A
    BaseException, as KeyboardInterrupt is, so that no `except Exception` on the way swallows it."""

    def __init__(self, signum: int, forced: bool = False):
        super().__init__(signal.Signals(signum).name)
        self.signum, self.forced = signum, forced


class TrainingInterrupted(SystemExit):
    """A backend's `train` ended by SIGINT / SIGTERM, after saving what can be resumed. A SystemExit whose
    code is 128 + the signal number (130: SIGINT, 143: SIGTERM), the status `snack-train` exits with."""

    def __init__(self, signum: int, message: str):
        super().__init__(128 + signum)
        self.signum, self.message = signum, message

    def __str__(self) -> str:
        return self.message


class StopSignals:
    """While entered (in the main thread), SIGINT and SIGTERM ask the run to stop instead of killing it.

    The first signal only sets `signum`; the training loop checks it and stops where its weights and
    step count agree. Inside `at_once()` (evaluations: nothing changes the weights) the signal raises
    `Interrupted` at once. A second signal raises `Interrupted(forced=True)` wherever the run is,
    except inside `critical()` (writing a checkpoint), where every signal only sets `signum`.
    Entered inside another (a stage of a recipe, training/recipe.py), it takes over a signal the outer
    one has noted, and hands the one it noted back to it on leaving."""

    def __init__(self):
        self.signum: int | None = None
        self._previous: dict = {}
        self._at_once = self._critical = 0

    def __enter__(self) -> StopSignals:
        if threading.current_thread() is threading.main_thread():
            for sig in STOP_SIGNALS:
                self._previous[sig] = signal.signal(sig, self._handle)
            if (outer := self._outer()) is not None:
                self.signum = self.signum or outer.signum
        return self

    def __exit__(self, *exc) -> None:
        if (outer := self._outer()) is not None:
            outer.signum = outer.signum or self.signum
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._previous = {}

    def _outer(self) -> StopSignals | None:
        """The StopSignals this one was entered inside, if any."""
        owner = getattr(self._previous.get(signal.SIGINT), "__self__", None)
        return owner if isinstance(owner, StopSignals) else None

    def _handle(self, signum, frame) -> None:
        again = self.signum is not None
        self.signum = self.signum or signum
        if self._critical:
            return
        if self._at_once:
            raise Interrupted(self.signum)
        if again:
            raise Interrupted(self.signum, forced=True)

    @contextmanager
    def at_once(self):
        """A stretch where a signal may stop the run at once (raises Interrupted, also if one came before)."""
        if self.signum is not None:
            raise Interrupted(self.signum)
        self._at_once += 1
        try:
            yield
        finally:
            self._at_once -= 1

    @contextmanager
    def critical(self):
        """A stretch no signal breaks into (saving a checkpoint and state.json together)."""
        self._critical += 1
        try:
            yield
        finally:
            self._critical -= 1


def resume_command(run_dir: Path, backend: str = "sb3") -> str:
    return f"snack-train --resume {run_dir}" + (f" --backend {backend}" if backend != "sb3" else "")


def stopped(signum: int, text: str) -> TrainingInterrupted:
    """Print the one line that says what an interrupted run saved and how to resume it; the exception to raise."""
    message = f"{signal.Signals(signum).name}: {text}"
    print(f"\n{message}", file=sys.stderr, flush=True)
    return TrainingInterrupted(signum, message)


def default_run_dir(config: dict) -> Path:
    """output_dir/<env>-s<seed>-<time>."""
    return Path(config["output_dir"]) / f"{config['env']['name']}-s{config['seed']}-{time.strftime('%Y%m%d-%H%M%S')}"


RUN_FILES = ("state.json", "latest.zip", "checkpoint", "final.json", "recipe.json")  # recipe.json: training/recipe.py


def refuse_a_run_in(run_dir: Path) -> None:
    """A fresh run's check: a ConfigError if `run_dir` holds a run already (resume it, or choose another folder)."""
    if run_dir.is_dir() and any((run_dir / name).exists() for name in RUN_FILES):
        raise ConfigError(f"{run_dir} holds a training run already: resume it ({resume_command(run_dir)}) "
                          f"or train into another folder")


def start_run(config: dict, run_dir: Path, resume: bool, recipe: dict | None = None) -> dict:
    """The run's bookkeeping state: fresh (config.json written), or read back from state.json to resume.
    A fresh run refuses a folder that holds a run already (resume it, or choose another folder). `recipe`
    (a fresh run's): the config it was loaded from and, for a stage of a recipe, which (`checkpoint_metadata`)."""
    state = {"last_eval": 0, "last_snapshot": 0, "snapshots": [], "timesteps": 0, "wall_time_before": 0.0}
    if resume:
        state.update(read_state(run_dir))
        state["wall_time_before"] = state.get("wall_time_s", 0.0)
    else:
        refuse_a_run_in(run_dir)
        run_dir.mkdir(parents=True, exist_ok=True)
        write_json_atomic(run_dir / "config.json", config)
        if recipe:
            state["recipe"] = recipe
    state["started"] = time.time()
    return state


def resumed_seed(seed: int, timesteps: int) -> int:
    """The seed a run's envs and random streams start from at `timesteps`: the config's seed for a fresh
    run; for a run resumed there, one drawn from both, so that it plays on with new deals instead of
    dealing again the games it began with, and two resumes from one checkpoint play alike."""
    if timesteps == 0:
        return seed
    import numpy as np

    return int(np.random.SeedSequence([seed, timesteps]).generate_state(1, np.uint32)[0])


def read_state(run_dir: Path) -> dict:
    """state.json of a run, or a ConfigError saying why there is none to resume from."""
    path = run_dir / "state.json"
    if not path.is_file():
        raise ConfigError(f"{run_dir} has no state.json: the run stopped before its first checkpoint, "
                          f"so there is nothing to resume; start it again")
    state = read_run_json(path, "a run's state", whole=("timesteps",))
    what = f"{path} is not a run's state:"
    for key in ("timesteps", "last_eval", "last_snapshot", "last_keep"):
        value = state.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ConfigError(f"{what} its {key} = {value!r} is no count of timesteps (a whole number, 0 or more)")
    wall = state.get("wall_time_s", 0.0)
    if isinstance(wall, bool) or not isinstance(wall, (int, float)) or not 0 <= wall < math.inf:
        raise ConfigError(f"{what} its wall_time_s = {wall!r} is no number of seconds (0 or more)")
    snapshots = state.get("snapshots", [])
    if not isinstance(snapshots, list) or not all(isinstance(name, str) for name in snapshots):
        raise ConfigError(f"{what} its snapshots = {snapshots!r} must be a list of the snapshots' names")
    return state


# The checkpoints by which a run's folder shows the backend that trained it (training/backends/): sb3's are
# zip files, rllib's Algorithm checkpoints folders (`<name>.previous`: one a save stopped between its renames).
BACKEND_CHECKPOINTS = {"sb3": ("latest.zip", "final.zip"),
                       "rllib": ("checkpoint", "final", "checkpoint.previous", "final.previous")}


def run_backend(run_dir: Path) -> str | None:
    """The backend that trained the run in `run_dir`, by its checkpoints; None when it has none (a run stopped
    before its first checkpoint) or, oddly, both backends' checkpoints."""
    found = [backend for backend, names in BACKEND_CHECKPOINTS.items() if any((run_dir / name).exists() for name in names)]
    return found[0] if len(found) == 1 else None


def check_backend(run_dir: Path, backend: str) -> None:
    """For a resumed run: a ConfigError if another backend trained it (a backend resumes only its own runs,
    from its own checkpoints)."""
    trained = run_backend(run_dir)
    if trained is not None and trained != backend:
        have = ", ".join(name for name in BACKEND_CHECKPOINTS[trained] if (run_dir / name).exists())
        raise ConfigError(f"{run_dir} was trained with the {trained} backend (its checkpoints: {have}), not {backend}; "
                          f"a run resumes only with the backend that trained it: {resume_command(run_dir, trained)}")


def read_final(path: Path) -> dict:
    """A final checkpoint's metadata (final.json) as a finished run or stage reports it: its timesteps a whole
    number and its wall_time_s a number, else a ConfigError naming the file."""
    return read_run_json(path, "a checkpoint's metadata", whole=("timesteps",), numbers=("wall_time_s",))


def finished_run(run_dir: Path, config: dict, checkpoint: Path, backend: str = "sb3") -> dict | None:
    """For a resumed run: if its final checkpoint (`checkpoint`, with final.json) has `timesteps` or more,
    the run is finished: say so and return what `train` returns (nothing is rewritten). Else None."""
    meta_path = run_dir / "final.json"
    if not meta_path.is_file():
        return None
    meta = read_final(meta_path)
    if config["timesteps"] > meta["timesteps"]:
        return None
    print(f"{run_dir} is finished: {meta['timesteps']} timesteps, final checkpoint {checkpoint}. To train it on, "
          f"raise timesteps in {run_dir / 'config.json'} above {meta['timesteps']} and run {resume_command(run_dir, backend)}",
          flush=True)
    return train_result(checkpoint, meta.get("evaluation", {}), meta, meta["timesteps"])


def prune_snapshots(run_dir: Path, state: dict) -> None:
    """Delete the snapshot checkpoints the opponent pool no longer holds (those not in state["snapshots"],
    as last saved to state.json): the pool's snapshots stay on disk, the dropped ones go."""
    keep = {Path(path).name for path in state["snapshots"]}
    for path in (run_dir / "snapshots").glob("*.zip"):
        if path.name not in keep:
            path.unlink(missing_ok=True)
            path.with_suffix(".json").unlink(missing_ok=True)


def save_state(run_dir: Path, state: dict, steps: int) -> None:
    """Record `steps` timesteps and the wall time so far in state.json."""
    state["timesteps"] = steps
    state["wall_time_s"] = state["wall_time_before"] + time.time() - state["started"]
    write_json_atomic(run_dir / "state.json", state)


def snapshot_due(config: dict, state: dict, steps: int) -> bool:
    """Whether a frozen copy of the learner joins the opponents now (`opponents.snapshot_every`)."""
    opponents = config["opponents"]
    return opponents["self"] > 0 and steps - state["last_snapshot"] >= opponents["snapshot_every"]


def keep_due(config: dict, state: dict, steps: int) -> bool:
    """Whether the run keeps a checkpoint now, in <run>/keep/: the first time its count is at or past one of
    `keep_at` (a recipe's branch starts from it: training/recipe.py)."""
    return any(state.get("last_keep", 0) < at <= steps for at in config.get("keep_at", []))


def kept_checkpoint(run_dir: Path, at: int) -> Path:
    """The checkpoint a run kept at the first update at or past `at` timesteps (`keep_due`)."""
    kept = sorted((int(path.stem.removeprefix("step")), path) for path in (run_dir / "keep").glob("step*.zip")
                  if re.fullmatch(r"[0-9]+", path.stem.removeprefix("step")) and path.with_suffix(".json").is_file())
    for steps, path in kept:
        if steps >= at:
            return path
    raise ConfigError(f"{run_dir} kept no checkpoint at or past {at} timesteps (keep/); its config's keep_at must name {at}")


def eval_due(config: dict, state: dict, steps: int) -> bool:
    """Whether the run is evaluated and checkpointed now (`eval.every`)."""
    return steps - state["last_eval"] >= config["eval"]["every"]


def evaluate(hero: Policy, config: dict, games: int, seed: int) -> dict[str, dict]:
    """`hero` against each of `eval.opponents` over `games` games, on the batched engine
    (`snack_envs.training.arena.match`; game by game, `evaluate.head_to_head`, for a game without one),
    by opponent; with several player counts, at each count, keyed "heuristic@3p" and the like. One player
    (Snack Time's solo mode) has no opponents: its figure is the mean score (`arena.solo`), keyed "solo"."""
    env_cfg = config["env"]
    options = env_cfg.get("options", {})
    counts = player_counts(config)
    results = {}
    for n in counts:
        if n == 1:
            results["solo" if len(counts) == 1 else "solo@1p"] = solo(env_cfg["name"], hero, games, seed=seed, **options)
            continue
        for spec in config["eval"]["opponents"]:
            key = spec if len(counts) == 1 else f"{spec}@{n}p"
            if specs.get(env_cfg["name"]).batched:  # many games at once: snack_envs.training.arena
                results[key] = match(env_cfg["name"], n, hero, spec, games, seed=seed, **options)
            else:
                villain = make_policy(spec, env_cfg["name"], n, seed=seed, **options)
                results[key] = head_to_head(env_cfg["name"], hero, villain, games, n, seed=seed, **options)
    return results


def evaluate_final(hero: Policy, config: dict, stop: StopSignals, stopped_line: str) -> dict[str, dict]:
    """A final checkpoint's evaluation (`evaluate`, `eval.final_games` games a match, seed 1,000,000); a stop
    signal during it raises TrainingInterrupted with `stopped_line`."""
    try:
        with stop.at_once():
            return evaluate(hero, config, config["eval"]["final_games"], seed=1_000_000)
    except Interrupted as interrupted:
        raise stopped(interrupted.signum, stopped_line) from None


# eval.csv's header row; win rate and mean score over the finished games, unfinished: games cut off at max_steps
EVAL_CSV_HEADER = ["timesteps", "opponent", "win_rate", "win_rate_ci95_low", "win_rate_ci95_high", "mean_score", "unfinished"]


def write_eval(run_dir: Path, steps: int, results: dict, log_scalar) -> None:
    """Evaluation results to eval.csv, TensorBoard (`log_scalar(tag, value)`) and the progress line. A solo
    result has no win rate: its row leaves those cells empty, and its scalar is "eval/mean_score_<key>"."""
    for spec, r in results.items():
        if is_solo(r):
            if r["mean_score_ci95"] is not None:  # no finished game: no mean score to log
                log_scalar(f"eval/mean_score_{spec}", r["mean_score_ci95"][0])
        else:
            log_scalar(f"eval/win_rate_vs_{spec}", r["win_rate"])
    path = run_dir / "eval.csv"
    new = not path.exists() or path.stat().st_size == 0
    with path.open("a", newline="") as f:
        writer = csv.writer(f)
        if new:
            writer.writerow(EVAL_CSV_HEADER)
        for spec, r in results.items():
            writer.writerow([steps, spec, *eval_figures(r), r["unfinished"]])
    print(f"\n[{steps} steps] " + ", ".join(f"{s}: mean score {mean_text(r['mean_score_ci95'], '.1f')}" if is_solo(r)
                                             else f"vs {s}: {r['win_rate']:.3f}" for s, r in results.items()), flush=True)


def checkpoint_metadata(config: dict, steps: int, state: dict, evaluation: dict | None = None) -> dict:
    """What a checkpoint of this run records beside its weights (see snack_envs.checkpoints)."""
    env_cfg = config["env"]
    meta = {
        **env_facts(env_cfg["name"], player_counts(config)[0], env_cfg.get("options")),
        "player_counts": player_counts(config),
        "env_options": env_cfg.get("options", {}),
        "reward": env_cfg["reward"],
        "config": config,
        "seed": config["seed"],
        "timesteps": steps,
        "wall_time_s": round(state.get("wall_time_before", 0) + time.time() - state["started"], 1),
        "evaluation": evaluation or {},
        "imitation": state.get("imitation"),
    }
    recipe = state.get("recipe") or {}
    if recipe.get("config"):  # the config the run was loaded from (`recipe_name`), and the --set overrides
        meta["recipe"] = recipe["config"]
        if recipe.get("overrides"):
            meta["recipe_overrides"] = recipe["overrides"]
    if recipe.get("stage"):
        meta["stage"] = recipe["stage"]
    lineage = state.get("lineage") or []
    # the runs this one fine-tuned (init_from; a recipe's earlier stages), oldest first, each with its own figures
    meta["lineage"] = lineage  # and its name (`lineage_entry`)
    meta["lineage_timesteps"] = steps + sum(run["timesteps"] for run in lineage)
    meta["lineage_wall_time_s"] = round(meta["wall_time_s"] + sum(run["wall_time_s"] for run in lineage), 1)
    return meta


def lineage_entry(path: Path, meta: dict, run_dir: Path, recipe: dict | None = None) -> dict:
    """The lineage entry of the checkpoint `path` (metadata `meta`) a run in `run_dir` starts from (`init_from`):
    its timesteps and wall time, the recipe and stage its metadata names, and its path: relative to the
    recipe's folder for a stage of the same recipe run ("stage1/final.zip"), repository-relative for one
    in the repository's checkpoints/ ("checkpoints/snack_rabbits_v0.zip"), else as given."""
    entry = {"checkpoint": checkpoint_name(path, run_dir.parent if (recipe or {}).get("stage") else None)}
    for key in ("recipe", "stage"):
        if meta.get(key) is not None:
            entry[key] = meta[key]
    entry.update(timesteps=meta["timesteps"], wall_time_s=meta["wall_time_s"])
    return entry


def checkpoint_name(path: Path, recipe_dir: Path | None = None) -> str:
    """How a lineage names the checkpoint `path` (see `lineage_entry`)."""
    resolved = Path(path).expanduser().resolve()
    if recipe_dir is not None and resolved.is_relative_to(recipe_dir.resolve()):
        return resolved.relative_to(recipe_dir.resolve()).as_posix()
    for root in dict.fromkeys([CONFIG_DIR.parent.resolve(), Path.cwd().resolve()]):  # the repository (configs/ beside it)
        folder = (root / "checkpoints").resolve()
        if folder.is_dir() and resolved.is_relative_to(folder):
            return "checkpoints/" + resolved.relative_to(folder).as_posix()
    return str(path)


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
    win_tags = [tag for tag in scalars if tag.startswith("eval/win_rate_vs_")]
    solo_tags = [tag for tag in scalars if tag.startswith("eval/mean_score_")]  # a solo run's mean scores
    for tag in win_tags:
        xs, ys = zip(*scalars[tag])
        ax1.plot(xs, ys, marker="o", label="vs " + tag.removeprefix("eval/win_rate_vs_"))
    if win_tags or not solo_tags:
        ax1.axhline(0.5, color="grey", lw=0.8, ls="--")
        ax1.set(ylabel="win rate (ties 1/2)", ylim=(0, 1))
    if solo_tags:
        axis = ax1.twinx() if win_tags else ax1
        for tag in solo_tags:
            xs, ys = zip(*scalars[tag])
            axis.plot(xs, ys, marker="s", color="C3", label=tag.removeprefix("eval/mean_score_") + " (mean score)")
        axis.set_ylabel("mean score")
        if win_tags:
            axis.legend(loc="lower right")
    ax1.set(xlabel="timesteps", title="masked evaluation")
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
