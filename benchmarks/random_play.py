"""Random-play throughput of every snack env beside PettingZoo's connect_four_v3, in one run.

    python benchmarks/random_play.py [--steps 20000] [--envs snack_rabbits_v0 ...]

Plays uniformly random legal actions through the public API (`env()`, with
PettingZoo's wrapper chain, and `raw_env()`) and prints env steps per second,
games per second, the ratio to Connect Four measured in the same run, and
the cost of one `env.last()` call (observation, mask, bookkeeping). The
machine is shared: compare the ratios, not absolute figures across runs.
Parallel envs are stepped through `parallel_env()` (one step = one tick of
joint actions) and `env()` (their AEC view).
"""

from __future__ import annotations

import argparse
import importlib
import time

import numpy as np

import snack_envs


def play_aec(env, steps: int, seed: int = 0) -> tuple[int, int, float]:
    """Random legal play for about `steps` agent steps; returns (steps, games, seconds)."""
    rng = np.random.default_rng(seed)
    done_steps = games = 0
    start = time.perf_counter()
    while done_steps < steps:
        env.reset(seed=int(rng.integers(2**31)))
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            env.step(action)
            done_steps += 1
        games += 1
    return done_steps, games, time.perf_counter() - start


def play_parallel(env, steps: int, seed: int = 0) -> tuple[int, int, float]:
    rng = np.random.default_rng(seed)
    done_steps = games = 0
    start = time.perf_counter()
    while done_steps < steps:
        observations, _ = env.reset(seed=int(rng.integers(2**31)))
        while env.agents:
            actions = {}
            for agent in env.agents:
                legal = np.flatnonzero(observations[agent]["action_mask"])
                actions[agent] = int(legal[rng.integers(len(legal))])
            observations, *_ = env.step(actions)
            done_steps += 1
        games += 1
    return done_steps, games, time.perf_counter() - start


def last_cost_us(env, calls: int = 5000, seed: int = 0) -> float:
    """Microseconds per `env.last()` (observation, mask and bookkeeping of the agent to act)."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    for _ in range(10):  # a few moves in, so the position is typical
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.reset(seed=seed)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
    start = time.perf_counter()
    for _ in range(calls):
        env.last()
    return (time.perf_counter() - start) / calls * 1e6


def measure(label: str, make, runner, steps: int) -> dict:
    runner(make(), max(steps // 10, 200))  # warm-up
    n, games, secs = runner(make(), steps)
    row = {"label": label, "steps_per_s": n / secs, "games_per_s": games / secs, "last_us": float("nan")}
    if runner is play_aec:
        row["last_us"] = last_cost_us(make())
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20000, help="agent steps per measurement")
    parser.add_argument("--envs", nargs="*", default=list(snack_envs.ENV_NAMES))
    args = parser.parse_args()

    from pettingzoo.classic import connect_four_v3

    rows = [
        measure("connect_four_v3 env()", connect_four_v3.env, play_aec, args.steps),
        measure("connect_four_v3 raw_env()", connect_four_v3.raw_env, play_aec, args.steps),
    ]
    reference = {"env()": rows[0]["steps_per_s"], "raw_env()": rows[1]["steps_per_s"]}
    for name in args.envs:
        module = importlib.import_module(f"snack_envs.{name}")
        rows.append(measure(f"{name} env()", module.env, play_aec, args.steps))
        rows.append(measure(f"{name} raw_env()", module.raw_env, play_aec, args.steps))
        if getattr(module, "IS_PARALLEL", False):
            rows.append(measure(f"{name} parallel_env()", module.parallel_env, play_parallel, args.steps))
    print(f"{'env':40s} {'steps/s':>10s} {'games/s':>9s} {'vs connect_four':>16s} {'last() us':>10s}")
    for row in rows:
        api = row["label"].split()[-1]
        ratio = row["steps_per_s"] / reference.get(api, reference["raw_env()"])
        print(f"{row['label']:40s} {row['steps_per_s']:10.0f} {row['games_per_s']:9.1f} {ratio:15.2f}x {row['last_us']:10.1f}")


if __name__ == "__main__":
    main()
