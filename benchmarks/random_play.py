"""Random-play throughput of every snack env beside PettingZoo's connect_four_v3, in one run.

    python benchmarks/random_play.py [--steps 20000] [--envs snack_rabbits_v0 ...]

Plays uniformly random legal actions through the public API (`env()`, with
PettingZoo's wrapper chain, and `raw_env()`) and prints env steps per second,
games per second, the ratio to Connect Four (the median, over interleaved
rounds, of the ratio within each round), and the cost of one `env.last()`
call (observation, mask, bookkeeping). The machine is shared: compare the
ratios, not absolute figures across runs.
Parallel envs are stepped through `parallel_env()` (one step = one tick of
joint actions) and `env()` (their AEC view).
"""

from __future__ import annotations

import time

import numpy as np

from snack_envs import specs
from snack_envs.training.cli import ArgumentParser, command, env_name, positive_int


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


def measure(make, runner, steps: int) -> tuple[float, float]:
    """(steps/s, games/s) of one timed run after a short warm-up."""
    runner(make(), max(steps // 10, 100))
    n, games, secs = runner(make(), steps)
    return n / secs, games / secs


@command("random_play.py")
def main(argv=None) -> None:
    parser = ArgumentParser(prog="random_play.py", description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=positive_int, default=20000, help="agent steps per measurement, split over the rounds")
    parser.add_argument("--rounds", type=positive_int, default=5, help="interleaved rounds; ratios are medians over rounds")
    parser.add_argument("--envs", nargs="+", type=env_name, default=list(specs.ENV_NAMES))
    args = parser.parse_args(argv)

    from pettingzoo.classic import connect_four_v3

    cases = [("connect_four_v3 env()", connect_four_v3.env, play_aec), ("connect_four_v3 raw_env()", connect_four_v3.raw_env, play_aec)]
    for name in args.envs:
        spec = specs.get(name)
        entry = spec.entry_points()
        cases += [(f"{name} env()", entry.env, play_aec), (f"{name} raw_env()", entry.raw_env, play_aec)]
        if spec.simultaneous:
            cases.append((f"{name} parallel_env()", entry.parallel_env, play_parallel))
    per_round = max(args.steps // args.rounds, 500)
    rates: dict[str, list[tuple[float, float]]] = {label: [] for label, _, _ in cases}
    ratios: dict[str, list[float]] = {label: [] for label, _, _ in cases}
    for _ in range(args.rounds):  # interleaved, so a slow spell of the shared machine hits every env alike
        this_round = {label: measure(make, runner, per_round) for label, make, runner in cases}
        reference = {"env()": this_round["connect_four_v3 env()"][0], "raw_env()": this_round["connect_four_v3 raw_env()"][0]}
        for label, (sps, gps) in this_round.items():
            rates[label].append((sps, gps))
            api = label.split()[-1]
            ratios[label].append(sps / reference.get(api, reference["raw_env()"]))
    print(f"{'env':40s} {'steps/s':>10s} {'games/s':>9s} {'vs connect_four':>16s} {'last() us':>10s}")
    for label, make, runner in cases:
        sps = float(np.median([r[0] for r in rates[label]]))
        gps = float(np.median([r[1] for r in rates[label]]))
        last = last_cost_us(make()) if runner is play_aec else float("nan")
        print(f"{label:40s} {sps:10.0f} {gps:9.1f} {np.median(ratios[label]):15.2f}x {last:10.1f}")
    print(f"(medians over {args.rounds} interleaved rounds of {per_round} steps; ratio = steps/s over Connect Four's in the same round;"
          " a parallel env's step is a tick of joint actions, compared with raw_env())")


if __name__ == "__main__":
    main()
