"""A recipe: a config with `stages:`, trained stage after stage into one run folder by one command.

    snack-train --config speed_snacks                 # every stage, in order, into runs/<env>-s<seed>-<time>/
    snack-train --resume runs/<run>                   # finished stages skipped, the cut one resumed, the rest run

    <run>/config.json     the recipe as loaded (the config with its stages), checked again on --resume
    <run>/recipe.json     the config it was loaded from and the --set overrides, for the checkpoints' metadata
    <run>/stage1/         stage 1: an ordinary run folder (training/run.py: config.json, state.json, latest.zip,
                          eval.csv, tb/, final.zip + final.json, learning_curve.png)
    <run>/stage2/         stage 2, started from stage1/final.zip (its config.json's init_from), and so on
    <run>/stageK/keep/    stage K's checkpoints at the timesteps a later stage branches from (its keep_at)
    <run>/final.zip       the last stage's final.zip and final.json, copied (atomically) once it is done
    <run>/final.json

Each stage's config is the recipe's config with that stage's keys merged over it
(training/config.py `stage_configs`); every one was checked when the recipe was
loaded. A stage starts from the weights `stage_source` names: the stage before
it, or with `start:` another earlier stage's final weights or its weights kept at
some timesteps (a branch); a stage of `average: [K1, K2, ...]` trains nothing:
its final.zip holds those stages' final weights averaged (training/average.py),
evaluated as a stage's final checkpoint is, and its lineage joins theirs, each
stage once; a stage of `select: {stage: K, at: [...], ...}` trains nothing either:
its final.zip holds the weights of the checkpoint of stage K (its final one, or one
it kept) that did best in matches against a bot (`select_stage`), and its lineage is
that checkpoint's. A stage that has started resumes from its own config.json, as any run
does (edit that file to change it); one that has not starts from the recipe's
config.json. A stage stopped before its first checkpoint starts again, but one
stopped in its imitation takes it up where it stopped (training/imitate.py). A
stage folder that holds checkpoints but no state.json, or a finished recipe's
stage folder that is gone, is refused rather than trained again over them. Each
checkpoint's metadata names the recipe (`recipe`: "configs/<name>.yaml", the
config as given, and `stage`), and its `lineage` the stages before it by the
recipe, the stage and their path in the recipe's folder ("stage1/final.zip"),
never a path in a temporary folder. SIGINT / SIGTERM stop the stage being
trained as they stop any run (exit status 130 / 143), with one line naming
`snack-train --resume <run>`. The sb3 backend only.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Callable

from snack_envs.checkpoints import CheckpointPolicy, save_checkpoint, write_atomic, write_json_atomic
from snack_envs.core.game import ConfigError
from snack_envs.training.config import check_config, load_run_config, read_run_json, stage_configs, stage_source
from snack_envs.training.run import (
    Interrupted, StopSignals, checkpoint_metadata, evaluate_final, kept_checkpoint, lineage_entry, read_final,
    refuse_a_run_in, resume_command, stopped, train_result,
)


def train_recipe(config: dict, run_dir: Path, resume: bool, recipe: dict | None, train_stage: Callable) -> dict:
    """Train the stages of `config` (`stages:`) in order into `run_dir` (see the module docstring), or resume
    them, each with `train_stage(config, stage_dir, resume=..., recipe=..., resume_dir=run_dir)` (the sb3
    backend's `train`, which calls this for a config with stages). `recipe`: `{"config": "configs/<name>.yaml",
    "overrides": [...]}` (a fresh run's, for the metadata). Returns what `snack-train` prints: the last stage's
    final checkpoint and evaluation, the timesteps and wall time of all the stages together."""
    run_dir = Path(run_dir)
    config = check_config(config, source=run_dir / "config.json" if resume else None, resume=resume)
    stages = stage_configs(config)
    if resume:
        info = read_recipe(run_dir)
    else:
        refuse_a_run_in(run_dir)
        for k in range(1, len(stages) + 1):
            refuse_a_run_in(run_dir / f"stage{k}")
        recipe = recipe or {}
        info = {"recipe": recipe.get("config"), "overrides": list(recipe.get("overrides") or []), "stages": len(stages)}
        run_dir.mkdir(parents=True, exist_ok=True)
        write_json_atomic(run_dir / "config.json", config)
        write_json_atomic(run_dir / "recipe.json", info)
    name = info.get("recipe") or str(run_dir / "config.json")
    print(f"recipe {name}: {len(stages)} stages -> {run_dir}", flush=True)
    metas = []
    with StopSignals() as stop:
        for k, stage in enumerate(stages, 1):
            if stop.signum is not None:
                raise stopped(stop.signum, f"stopped after stage {k - 1} of {len(stages)}; "
                                           f"resume with: {resume_command(run_dir)}")
            stage_dir = run_dir / f"stage{k}"
            source = stage_source(config, k)
            about = {"config": info.get("recipe"), "overrides": info.get("overrides") or [], "stage": k, "stages": len(stages)}
            if "average" in source:
                metas.append(average_stage(stage, run_dir, k, len(stages), source["average"], about, stop))
                continue
            if "select" in source:
                metas.append(select_stage(stage, run_dir, k, len(stages), source["select"], about, stop))
                continue
            if (stage_dir / "state.json").is_file():  # started: it goes on from its own config.json
                own = load_run_config(stage_dir)
                if (meta := finished(stage_dir, own)) is not None:
                    print(f"stage {k}/{len(stages)} is finished: {meta['timesteps']} timesteps, {stage_dir / 'final.zip'}",
                          flush=True)
                    metas.append(meta)
                    continue
                print(f"stage {k}/{len(stages)}: resuming {stage_dir}", flush=True)
                train_stage(own, stage_dir, resume=True, resume_dir=run_dir)
            else:
                recorded = info.get("stages")
                if resume and isinstance(recorded, int) and k <= recorded and (run_dir / "final.zip").is_file():
                    # The recipe finished this stage once (its final.zip is published): the stage's folder is gone
                    # or damaged, and training it again would replace the recipe's final checkpoint.
                    raise ConfigError(f"{run_dir} is a finished recipe ({run_dir / 'final.zip'}), but {stage_dir} holds no "
                                      f"run (no state.json): resuming would train stage {k} again and replace its "
                                      f"final.zip; to train the recipe again, train it into another folder")
                kept = [name for name in ("latest.zip", "final.zip") if (stage_dir / name).exists()]
                if kept:  # checkpoints with no state.json (deleted or damaged): never removed to start over
                    raise ConfigError(f"{stage_dir} holds {' and '.join(kept)} but no state.json: it cannot be resumed, "
                                      f"and starting stage {k} again would delete them; move them away to train it again")
                if stage_dir.exists():  # stopped before its first checkpoint: nothing in it to keep
                    shutil.rmtree(stage_dir)
                if k > 1:
                    stage["init_from"] = str(start_checkpoint(run_dir, source))
                print(f"stage {k}/{len(stages)}: training {stage['env']['name']} ({stage['env']['num_players']} players) "
                      f"for {stage['timesteps']} timesteps -> {stage_dir}", flush=True)
                train_stage(stage, stage_dir, recipe=about, resume_dir=run_dir)
            metas.append(read_final(stage_dir / "final.json"))
        with stop.critical():
            last = run_dir / f"stage{len(stages)}"
            if published(run_dir, last):
                print(f"{run_dir} is finished: {len(stages)} stages, final checkpoint {run_dir / 'final.zip'}", flush=True)
            else:
                publish(run_dir, last)
                print(f"recipe done: {run_dir / 'final.zip'} (stage {len(stages)}'s final checkpoint)", flush=True)
    final = metas[-1]
    totals = {"wall_time_s": round(sum(m["wall_time_s"] for m in metas), 1)}
    return train_result(run_dir / "final.zip", final.get("evaluation", {}), totals, sum(m["timesteps"] for m in metas))


def start_checkpoint(run_dir: Path, source: dict) -> Path:
    """The checkpoint a stage starts from (`stage_source`): an earlier stage's final.zip, or the one it kept at
    `timesteps`."""
    folder = run_dir / f"stage{source['stage']}"
    return kept_checkpoint(folder, source["timesteps"]) if source.get("timesteps") else folder / "final.zip"


def average_stage(config: dict, run_dir: Path, k: int, n: int, sources: list[int], about: dict, stop: StopSignals) -> dict:
    """Stage k of n, `average: sources`: its final.zip holds the average of those stages' final weights,
    evaluated against `eval.opponents` over `eval.final_games` games as a trained stage's final checkpoint is.
    Its metadata: 0 timesteps of its own, the ingredients (`averaged_from`), and a lineage that joins
    theirs, each stage once (`joined_lineage`). Returns the metadata; an existing final.zip and .json is kept."""
    from snack_envs.training.average import averaged_model

    stage_dir = run_dir / f"stage{k}"
    if (meta := made(stage_dir)) is not None:
        print(f"stage {k}/{n} is finished: the average of stages {sources}, {stage_dir / 'final.zip'}", flush=True)
        return meta
    print(f"stage {k}/{n}: averaging the final weights of stages {sources} -> {stage_dir}", flush=True)
    paths = [run_dir / f"stage{j}" / "final.zip" for j in sources]
    state = {"started": time.time(), "recipe": about}
    model, metas = averaged_model(paths)
    entries = [lineage_entry(path, meta, stage_dir, about) for path, meta in zip(paths, metas)]
    state["lineage"] = joined_lineage([[*meta.get("lineage", []), entry] for meta, entry in zip(metas, entries)])
    evaluation = evaluate_final(CheckpointPolicy(model, "learner"), config, stop,
                                f"stopped while evaluating stage {k} (an average; nothing of it is saved); "
                                f"resume with: {resume_command(run_dir)}")
    with stop.critical():
        stage_dir.mkdir(parents=True, exist_ok=True)
        meta = {**checkpoint_metadata(config, 0, state, evaluation), "averaged_from": entries}
        save_checkpoint(model, stage_dir / "final.zip", meta)
    return meta


def select_stage(config: dict, run_dir: Path, k: int, n: int, select: dict, about: dict, stop: StopSignals) -> dict:
    """Stage k of n, `select:` its final.zip holds the weights of one checkpoint of stage `select["stage"]`: of
    its final one and those it kept at `select["at"]`, the one with the best mean win share (the first best, in
    order of timesteps) against n - 1 `select["against"]` bots, `select["games"]` games at each count of
    `select["players"]` and each seed of `select["seeds"]` (training/arena.py's `match`). Then it is evaluated
    as a trained stage's final checkpoint is. Its metadata: 0 timesteps of its own, the candidates and their
    figures (`selected_from`), and the picked checkpoint's lineage, ending with it. An existing final.zip and
    .json is kept."""
    from snack_envs.checkpoints import load_model, read_metadata
    from snack_envs.training.arena import match

    stage_dir = run_dir / f"stage{k}"
    source = run_dir / f"stage{select['stage']}"
    if (meta := made(stage_dir)) is not None:
        print(f"stage {k}/{n} is finished: a checkpoint of stage {select['stage']} picked, {stage_dir / 'final.zip'}",
              flush=True)
        return meta
    candidates = [*dict.fromkeys(kept_checkpoint(source, at) for at in select["at"]), source / "final.zip"]
    metas = [read_metadata(path) for path in candidates]
    counts = select["players"]
    print(f"stage {k}/{n}: picking among {len(candidates)} checkpoints of stage {select['stage']} the best against "
          f"{select['against']} ({select['games']} games at {counts} players, seeds {select['seeds']}) -> {stage_dir}",
          flush=True)
    env_cfg = config["env"]
    stopped_line = f"stopped while selecting stage {k} (nothing of it is saved); resume with: {resume_command(run_dir)}"
    entries = []
    try:
        with stop.at_once():
            for path, checkpoint_meta in zip(candidates, metas):
                win_shares = {f"{seed}@{count}p": match(env_cfg["name"], count, str(path), select["against"], select["games"],
                                                         seed, **env_cfg.get("options", {}))["win_rate"]
                              for count in counts for seed in select["seeds"]}
                entry = {**lineage_entry(path, checkpoint_meta, stage_dir, about),
                         "win_share": sum(win_shares.values()) / len(win_shares), "win_shares": win_shares}
                entries.append(entry)
                print(f"  {entry['checkpoint']}: {entry['win_share']:.3f} against {select['against']}", flush=True)
    except Interrupted as interrupted:
        raise stopped(interrupted.signum, stopped_line) from None
    best = max(range(len(entries)), key=lambda i: (entries[i]["win_share"], -i))
    picked = metas[best]
    model = load_model(candidates[best])
    state = {"started": time.time(), "recipe": about,
             "lineage": [*picked.get("lineage", []), lineage_entry(candidates[best], picked, stage_dir, about)]}
    evaluation = evaluate_final(CheckpointPolicy(model, "learner"), config, stop, stopped_line)
    with stop.critical():
        stage_dir.mkdir(parents=True, exist_ok=True)
        meta = {**checkpoint_metadata(config, 0, state, evaluation), "selected": entries[best]["checkpoint"],
                "selected_from": entries, "selection": select}
        save_checkpoint(model, stage_dir / "final.zip", meta)
    print(f"stage {k}/{n}: picked {entries[best]['checkpoint']}", flush=True)
    return meta


def made(stage_dir: Path) -> dict | None:
    """The final metadata of a stage once its final.zip and .json are written, else None (a final.json that
    does not parse is a ConfigError naming it). A stage that trains nothing (an average, a pick) is finished
    then; a trained one when it also has its timesteps (`finished`)."""
    meta_path = stage_dir / "final.json"
    if not (meta_path.is_file() and (stage_dir / "final.zip").is_file()):
        return None
    return read_final(meta_path)


def joined_lineage(lineages: list[list[dict]]) -> list[dict]:
    """The runs behind several checkpoints, each once: a recipe's stage (by recipe and stage) as its longest
    entry (a branch's lineage holds its source stage at the timesteps it branched at, the source's own lineage
    the whole stage), any other run by its checkpoint. Each run comes after those it follows in any of the
    lineages (each oldest first: another recipe's stages behind a stage's `init_from` before this recipe's);
    of runs in no such order, the lower stage first (a run outside a recipe counting as 0)."""
    joined: dict = {}
    follows: dict = {}  # run -> the runs right before it in some lineage
    for lineage in lineages:
        before = None
        for entry in lineage:
            key = (entry.get("recipe"), entry["stage"]) if "stage" in entry else ("checkpoint", entry.get("checkpoint"),
                                                                                   tuple(entry.get("stages", ())))
            if key not in joined or entry["timesteps"] > joined[key]["timesteps"]:
                joined[key] = entry
            follows.setdefault(key, set()).update({before} - {None})
            before = key
    rank = {key: (entry.get("stage", 0), i) for i, (key, entry) in enumerate(joined.items())}
    placed: dict = {}  # the runs in their order so far (a dict: an ordered set)
    while len(placed) < len(joined):  # a handful of runs: place the lowest ready one each time
        left = [key for key in joined if key not in placed]
        ready = [key for key in left if follows[key] <= placed.keys()]
        placed[min(ready or left, key=rank.__getitem__)] = None
    return [joined[key] for key in placed]


def read_recipe(run_dir: Path) -> dict:
    """A recipe run's recipe.json (what it was loaded from), or what can be said without it."""
    path = run_dir / "recipe.json"
    if not path.is_file():
        return {"recipe": None, "overrides": []}
    return read_run_json(path, "a recipe's record")


def finished(stage_dir: Path, config: dict) -> dict | None:
    """The final metadata of a stage that has its final checkpoint with its config's timesteps, else None."""
    meta = made(stage_dir)
    return meta if meta is not None and meta["timesteps"] >= config["timesteps"] else None


def published(run_dir: Path, stage_dir: Path) -> bool:
    """Whether `run_dir`/final.zip and final.json are the last stage's, byte for byte."""
    return all((run_dir / name).is_file() and (run_dir / name).read_bytes() == (stage_dir / name).read_bytes()
               for name in ("final.zip", "final.json"))


def publish(run_dir: Path, stage_dir: Path) -> None:
    """Copy the last stage's final.zip, then its final.json, into the recipe's folder, each written whole
    (`write_atomic`: a crash leaves the old file or the new one, never half of one)."""
    for name in ("final.zip", "final.json"):
        with open(stage_dir / name, "rb") as source:
            write_atomic(run_dir / name, lambda f: shutil.copyfileobj(source, f), "wb")

