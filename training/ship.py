"""Measure a trained policy against the shipping bar and publish it into a checkpoints folder.

    python -m snack_envs.training.ship runs/<run>/final.zip [--games 1000] [--out checkpoints]

It publishes into `--out`, by default `checkpoints/` in the current folder (in the repository
root: the repository's checkpoints/), never into the installed package.

The bar (issue 6), measured with seats alternated:
- head to head against the heuristic: the lower end of the 95% Wilson interval
  of the win rate (ties 1/2) above 0.5; for Snack Time (its spec's `bar_compares_scores`) also a
  higher mean score than the heuristic's, 95% intervals not overlapping. (The
  issue asked Snack Time for the mean scores instead of the win rate, taking
  its players as not interacting; but by its rulebook the game ends for all
  once one player has fed every creature, so how fast a player feeds its
  creatures changes the other's score, and the win rate counts as in the
  other games. A Snack Time checkpoint must clear both.)
- against random, a win rate at least as high as the heuristic's against random.
The results go into the checkpoint's metadata and the folder's README.md; a
checkpoint that misses the bar is not copied (use --force to publish one
anyway, marked as missing it).
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from snack_envs import specs
from snack_envs.agents import RandomPolicy, heuristic_policy
from snack_envs.checkpoints import load_policy, read_metadata, write_json_atomic
from snack_envs.training.cli import ArgumentParser, command, positive_int
from snack_envs.training.evaluate import head_to_head

DEFAULT_OUT = Path("checkpoints")  # relative: the current folder's, wherever the package is installed


def measure_bar(path: Path, games: int = 1000, seed: int = 2_000_000) -> dict:
    meta = read_metadata(path)
    env_name, n = meta["env_name"], meta["num_players"]
    options = meta.get("env_options", {})
    agent = load_policy(path, env_name, n)
    heuristic = heuristic_policy(env_name, n, **options)
    started = time.time()
    vs_heuristic = head_to_head(env_name, agent, heuristic, games, n, seed, **options)
    vs_random = head_to_head(env_name, agent, RandomPolicy(seed), games, n, seed, **options)
    heuristic_vs_random = head_to_head(env_name, heuristic, RandomPolicy(seed), games, n, seed, **options)
    return {
        "games_per_match": games,
        **verdict(env_name, vs_heuristic, vs_random, heuristic_vs_random),
        "vs_heuristic": vs_heuristic,
        "vs_random": vs_random,
        "heuristic_vs_random": heuristic_vs_random,
        "measured_in_s": round(time.time() - started, 1),
    }


def verdict(env_name: str, vs_heuristic: dict, vs_random: dict, heuristic_vs_random: dict) -> dict:
    """The bar applied to three head-to-head results (see the module docstring)."""
    beats_heuristic = vs_heuristic["win_rate_ci95"][0] > 0.5
    rule = "win rate vs heuristic: 95% Wilson lower bound > 0.5"
    if specs.get(env_name).bar_compares_scores:
        beats_heuristic = beats_heuristic and vs_heuristic["hero_mean_score_ci95"][1] > vs_heuristic["villain_mean_score_ci95"][2]
        rule += ", and a mean score above the heuristic's, 95% intervals not overlapping"
    beats_random = vs_random["win_rate"] >= heuristic_vs_random["win_rate"]
    return {
        "rule": rule + "; win rate vs random >= the heuristic's vs random",
        "beats_heuristic": bool(beats_heuristic),
        "beats_random_as_clearly": bool(beats_random),
        "passed": bool(beats_heuristic and beats_random),
    }


def readme_row(meta: dict) -> str:
    bar = meta["bar"]
    h, r, hr = bar["vs_heuristic"], bar["vs_random"], bar["heuristic_vs_random"]
    # A fine-tuned run counts the runs behind it (init_from); an averaged checkpoint states its totals.
    steps = meta.get("lineage_timesteps", meta["timesteps"])
    wall = meta.get("lineage_wall_time_s", meta["wall_time_s"])
    fmt = lambda m: f"{m['win_rate']:.3f} [{m['win_rate_ci95'][0]:.3f}, {m['win_rate_ci95'][1]:.3f}]"
    score = lambda m: f"{m['hero_mean_score_ci95'][0]:.1f} vs {m['villain_mean_score_ci95'][0]:.1f}"
    return (f"| `{meta['env_name']}.zip` | {meta['num_players']} | {bar['games_per_match']:,} | {steps:,} | {wall / 60:.0f} min | "
            f"{fmt(h)} (scores {score(h)}) | {fmt(r)} | {fmt(hr)} | {'yes' if bar['passed'] else '**no**'} |")


def write_readme(folder: Path = DEFAULT_OUT) -> Path:
    """(Re)write `folder`/README.md: the table of the checkpoints published there."""
    import snack_envs

    folder = Path(folder)
    rows, notes, shipped = [], [], set()
    for meta_path in sorted(folder.glob("*.json")):
        meta = json.loads(meta_path.read_text())
        if "bar" in meta:
            rows.append(readme_row(meta))
            shipped.add(meta["env_name"])
            if meta.get("note"):
                notes.append(f"- `{meta['env_name']}.zip`: {meta['note']}")
    missing = [name for name in snack_envs.ENV_NAMES if name not in shipped]
    path = folder / "README.md"
    path.write_text(
        "# Shipped checkpoints\n\n"
        "MaskablePPO policies (sb3-contrib), one per game, each with a JSON metadata file (game, env version and\n"
        "options, observation and action sizes, training config, seed, timesteps, wall time, library versions,\n"
        "evaluation). Load one with `snack_envs.checkpoints.load_policy(path, env_name=...)`; it acts from the env's\n"
        "own `obs[\"observation\"]` and `obs[\"action_mask\"]`.\n\n"
        "The bar, measured by `python -m snack_envs.training.ship` over the games shown, seats alternated, ties counted 1/2,\n"
        "95% Wilson intervals: beat the heuristic bot head to head (lower bound above 0.5; for Snack Time also a\n"
        "higher mean score with non-overlapping 95% intervals), and beat random at least as clearly as the heuristic\n"
        "does. Training times are wall-clock on a shared 2-core machine.\n\n"
        "| checkpoint | players | games a match | timesteps | training | vs heuristic | vs random | heuristic vs random | bar |\n"
        "|---|---|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n"
        + ("\nHow they were trained, where the config alone does not say:\n\n" + "\n".join(notes) + "\n" if notes else "")
        + (f"\nNo checkpoint clears the bar yet for: {', '.join(missing)}.\n" if missing else "")
    )
    return path


@command("python -m snack_envs.training.ship")
def main(argv=None) -> None:
    parser = ArgumentParser(prog="python -m snack_envs.training.ship", description="Measure a checkpoint against the bar and publish it.")
    parser.add_argument("checkpoint", type=Path)
    parser.add_argument("--games", type=positive_int, default=1000)
    parser.add_argument("--force", action="store_true", help="publish even if the bar is missed (marked as such)")
    parser.add_argument("--note", default="", help="how it was trained, where its config alone does not say (metadata and README)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="the folder to publish into, with its README.md table (default: ./checkpoints)")
    args = parser.parse_args(argv)
    if args.out.exists() and not args.out.is_dir():
        parser.error(f"--out {args.out} is a file; give a folder to publish into")
    meta = read_metadata(args.checkpoint)
    bar = measure_bar(args.checkpoint, args.games)
    print(json.dumps({k: v for k, v in bar.items() if not isinstance(v, dict)}, indent=2))
    for key in ("vs_heuristic", "vs_random", "heuristic_vs_random"):
        m = bar[key]
        print(f"{key:20s} win rate {m['win_rate']:.3f} CI {m['win_rate_ci95']} scores {m['hero_mean_score_ci95'][0]:.2f} vs {m['villain_mean_score_ci95'][0]:.2f}")
    if not bar["passed"] and not args.force:
        print("bar missed: not published")
        return
    target = args.out / f"{meta['env_name']}.zip"
    args.out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(args.checkpoint, target)
    if args.note:
        meta = dict(meta, note=args.note)
    write_json_atomic(target.with_suffix(".json"), dict(meta, bar=bar))
    print("published", target, "and", write_readme(args.out))


if __name__ == "__main__":
    main()
