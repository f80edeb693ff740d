"""Average the weights of checkpoints fine-tuned from one starting point (a "model soup").

    snack-average out.zip runs/a/keep/1400000.zip runs/b/keep/600000.zip \
        --timesteps 5800000 --wall-time-s 8606 --note "how the ingredients were trained"

Policies fine-tuned from the same weights stay in one basin of the loss, so
their weight average is itself a good policy, often better than each
ingredient on what they were tuned for separately (Wortsman et al., "Model
soups", 2022; Izmailov et al., "Averaging weights leads to wider optima",
2018). We use it to join a policy tuned against the heuristic with one tuned
against random play; a recipe's stage may average earlier stages
(`average: [K1, K2]`, training/recipe.py). Every ingredient must be a checkpoint of the same game,
env version, options and network. The metadata records the ingredients'
metadata; `--timesteps` and `--wall-time-s` give the totals of the whole
lineage (every run behind the ingredients, counted once): runs that share an
ancestor would count it twice if their `lineage` records were summed. An OUT
that exists is refused unless `--force` replaces it; OUT ends in `.zip` (or has no suffix).
"""

from __future__ import annotations

if __name__ == "__main__":  # python -m: enter as the console script does, before the imports below,
    from snack_envs.training.cli import snack_average  # so that a missing extra is one line, not a traceback

    raise SystemExit(snack_average())

import math
from pathlib import Path

from snack_envs.checkpoints import CheckpointError, load_model, read_metadata, save_checkpoint
from snack_envs.training.cli import ArgumentParser, command, nonempty_path, nonnegative_int

SAME = ("env_name", "env_version", "num_players", "observation_size", "num_actions", "env_options")


def averaged_model(paths: list[Path]):
    """The MaskablePPO model whose policy weights are the mean of the checkpoints' at `paths` (the last
    one's model, its weights replaced), and the checkpoints' metadata; a CheckpointError unless they are
    two or more checkpoints of one env and one network."""
    import torch

    if len(paths) < 2:
        raise CheckpointError("averaging needs at least two checkpoints")
    metas = [read_metadata(p) for p in paths]
    for path, meta in zip(paths[1:], metas[1:]):
        different = [k for k in SAME if meta.get(k) != metas[0].get(k)]
        if different:
            raise CheckpointError(f"{path} differs from {paths[0]} in {different}: only checkpoints of one env can be averaged")
    models = [load_model(p) for p in paths]
    states = [m.policy.state_dict() for m in models]
    if any(s.keys() != states[0].keys() or any(s[k].shape != states[0][k].shape for k in s) for s in states[1:]):
        raise CheckpointError("the checkpoints' networks differ in shape: they cannot be averaged")
    with torch.no_grad():
        averaged = {k: sum(s[k].double() for s in states) / len(states) for k in states[0]}
        model = models[-1]
        model.policy.load_state_dict({k: v.to(states[0][k].dtype) for k, v in averaged.items()})
    return model, metas


def average(out: Path, paths: list[Path], timesteps: int, wall_time_s: float, note: str = "") -> Path:
    model, metas = averaged_model(paths)
    last = metas[-1]
    meta = {k: last[k] for k in (*SAME, "player_counts", "reward", "config", "seed") if k in last}
    meta.update(
        timesteps=int(timesteps),
        wall_time_s=float(wall_time_s),
        evaluation={},
        averaged_from=[{"path": str(p), **{k: v for k, v in m.items() if k not in ("format", "library_versions")}}
                       for p, m in zip(paths, metas)],
        note=note,
    )
    return save_checkpoint(model, out, meta)


@command("snack-average")
def main(argv=None) -> None:
    parser = ArgumentParser(prog="snack-average", description=__doc__.split("\n")[0])
    parser.add_argument("out", type=nonempty_path)
    parser.add_argument("checkpoints", type=nonempty_path, nargs="+")
    parser.add_argument("--timesteps", type=nonnegative_int, required=True, help="timesteps of the whole lineage")
    parser.add_argument("--wall-time-s", type=float, required=True, help="training wall time of the whole lineage")
    parser.add_argument("--note", default="", help="how the ingredients were trained, for the metadata")
    parser.add_argument("--force", action="store_true", help="replace OUT (and its metadata) where it exists")
    args = parser.parse_args(argv)
    if not 0 <= args.wall_time_s < math.inf:  # inf would be written to the metadata as Infinity, which is no JSON
        parser.error(f"--wall-time-s must be a number of seconds, 0 or more, got {args.wall_time_s}")
    if not args.out.name:
        parser.error(f"OUT {args.out} names no file: give the averaged checkpoint's path, e.g. checkpoints/<name>.zip")
    if args.out.suffix.lower() not in ("", ".zip"):  # the checkpoint would be written under another name
        parser.error(f"OUT {args.out} is no .zip: the checkpoint would be written as {args.out.with_suffix('.zip')}; "
                     f"give a path ending in .zip")
    taken = [p for p in (args.out.with_suffix(".zip"), args.out.with_suffix(".json")) if p.exists()]
    if taken and not args.force:
        parser.error(f"{taken[0]} exists: give another OUT, or --force to replace it")
    path = average(args.out, args.checkpoints, args.timesteps, args.wall_time_s, args.note)
    print(f"averaged {len(args.checkpoints)} checkpoints into {path}")
