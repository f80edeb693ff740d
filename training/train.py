"""Train an agent on any snack env by self-play, evaluate it, and save a checkpoint.

    snack-train                                  # the embedded quick-start config (Snack Rabbits)
    snack-train --config snack_wars --set timesteps=200000 --set algo.learning_rate=1e-4
    snack-train --resume runs/snack_rabbits_v0-s0-20261129-120000
    snack-train --config speed_snacks                # a recipe (stages:): every stage in order, one run folder
    snack-train --backend rllib [--address HOST:PORT]

This module is the command line: it reads the config (training/config.py)
and hands the run to a backend (training/backends/): `sb3`, MaskablePPO in
this process (the default; how a run goes: training/backends/sb3.py), or
`rllib`, Ray RLlib's multi-agent PPO (training/backends/rllib.py). Either
writes the run's folder the same way (training/run.py) and draws its
opponents the same way (training/opponents.py). A config with `stages:` is a
recipe of several runs, each from the last one's weights, trained into one
folder by the sb3 backend (training/recipe.py).
"""

from __future__ import annotations

if __name__ == "__main__":  # python -m: enter as the console script does, before the imports below,
    from snack_envs.training.cli import snack_train  # so that a missing extra is one line, not a traceback

    raise SystemExit(snack_train())

from snack_envs.training.backends import rllib, sb3
from snack_envs.training.cli import ArgumentParser, command, nonempty_path
from snack_envs.training.config import load_config, load_run_config, recipe_name
from snack_envs.training.outcomes import bounds_text, is_solo, mean_text
from snack_envs.training.run import default_run_dir


@command("snack-train")
def main(argv=None) -> None:
    parser = ArgumentParser(prog="snack-train", description=__doc__.splitlines()[0])
    parser.add_argument("--config", type=nonempty_path, default=None, help="YAML config, or the name of a shipped one such as snack_wars (default: quickstart)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE",
                        help="override a config value, e.g. --set algo.learning_rate=1e-4")
    parser.add_argument("--run-dir", type=nonempty_path, default=None, help="where to write the run (default: output_dir/<env>-s<seed>-<time>)")
    parser.add_argument("--resume", type=nonempty_path, default=None, help="continue an interrupted run in this folder")
    parser.add_argument("--backend", choices=["sb3", "rllib"], default="sb3",
                        help="sb3: MaskablePPO in this process (default); rllib: Ray RLlib multi-agent PPO (training/backends/rllib.py)")
    parser.add_argument("--address", default=None, help="with --backend rllib: the Ray cluster to run on (default: a local Ray)")
    args = parser.parse_args(argv)
    if args.resume and (args.config or args.overrides or args.run_dir):
        parser.error("--resume continues a run with the config it started with, in its own folder: "
                     "drop --config, --set and --run-dir")
    if args.address and args.backend != "rllib":
        parser.error("--address names the Ray cluster of --backend rllib: add --backend rllib, or drop --address")
    recipe = None
    if args.resume:
        config = load_run_config(args.resume)  # checked as a fresh load is
        run_dir = args.resume
    else:
        config = load_config(args.config, args.overrides)
        run_dir = args.run_dir or default_run_dir(config)
        if run_dir.exists() and not run_dir.is_dir():
            parser.error(f"--run-dir {run_dir} is a file; give a folder for the run")
        recipe = {"config": recipe_name(args.config), "overrides": list(args.overrides)}  # for the checkpoints' metadata
    def announce() -> None:  # once the backend's checks have passed (a recipe announces its stages itself)
        print(f"training {config['env']['name']} ({config['env']['num_players']} players) for {config['timesteps']} "
              f"timesteps -> {run_dir}", flush=True)

    if args.backend == "rllib":
        result = rllib.train(config, run_dir, resume=bool(args.resume), address=args.address, on_start=announce)
    else:
        result = sb3.train(config, run_dir, resume=bool(args.resume), recipe=recipe, on_start=announce)
    print(f"\ntrained {result['timesteps']} timesteps in {result['wall_time_s']:.0f} s; checkpoint {result['checkpoint']}")
    # Win rates, W/T/L and mean scores count finished games; games cut off at max_steps are `unfinished`.
    print(f"{'opponent':12s} {'games':>6s} {'unfinished':>10s} {'win rate':>9s} {'95% CI':>16s} {'W/T/L':>14s} "
          f"{'mean score (agent vs opp)':>27s}")
    for spec, r in result["evaluation"].items():
        if is_solo(r):  # Snack Time's solo mode: no opponent, no win rate
            mean = r["mean_score_ci95"]
            figure = f"{'-':>12s}" if mean is None else f"{mean_text(mean, '.2f'):>12s} {bounds_text(mean, '.2f')}"
            print(f"{spec:12s} {r['games']:6d} {r['unfinished']:10d} {'-':>9s}  {'':16s} {'':>14s} {figure}")
            continue
        lo, hi = r["win_rate_ci95"]
        print(f"{spec:12s} {r['games']:6d} {r.get('unfinished', 0):10d} {r['win_rate']:9.3f}  [{lo:.3f}, {hi:.3f}] "
              f"{r['wins']:>5d}/{r['ties']}/{r['losses']:<5d}"
              f" {mean_text(r['hero_mean_score_ci95'], '.2f'):>12s} vs {mean_text(r['villain_mean_score_ci95'], '.2f')}")
