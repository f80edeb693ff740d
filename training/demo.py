"""The quick-start job: random agents play a few games of every env; prints a result table.

    snack-demo [--games 200] [--seed 0]
"""

from __future__ import annotations

import argparse
import importlib

import numpy as np

import snack_envs


def play(name: str, games: int, seed: int, progress) -> dict:
    module = importlib.import_module(f"snack_envs.{name}")
    env = module.env()
    rng = np.random.default_rng(seed)
    wins = {a: 0.0 for a in env.possible_agents}
    steps = truncated = 0
    for g in range(games):
        env.reset(seed=seed + g)
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term or trunc:
                truncated += trunc
                wins[agent] += info.get("winner", False) / max(1, sum(i.get("winner", False) for i in env.infos.values()))
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
        progress()
    return {"wins": wins, "steps": steps, "truncated": truncated}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="Random agents play every snack env; prints the results.")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        from tqdm import tqdm
    except ImportError:  # the envs-only install has no tqdm
        tqdm = None
    bar = tqdm(total=args.games * len(snack_envs.ENV_NAMES), desc="games", unit="game") if tqdm else None
    rows = []
    for name in snack_envs.ENV_NAMES:
        result = play(name, args.games, args.seed, bar.update if bar else (lambda: None))
        rows.append((name, result))
    if bar:
        bar.close()
    print(f"\n{'env':22s} {'games':>6s} {'steps/game':>11s} {'truncated':>9s}  win share by agent (ties split)")
    for name, r in rows:
        share = "  ".join(f"{a}: {w / args.games:.2f}" for a, w in r["wins"].items())
        print(f"{name:22s} {args.games:6d} {r['steps'] / args.games:11.1f} {r['truncated']:9d}  {share}")


if __name__ == "__main__":
    main()
