"""Steps per second of the batched engine at batch 1, 64 and 1024, beside the reference raw_env(), in one run.

    python benchmarks/batched.py [--seconds 2] [--envs snack_rabbits_v0 ...] [--batches 1 64 1024]

A step is one decision (one tick of joint actions for a simultaneous game),
including the observation and mask of the agent(s) to act; actions are random
legal ones, drawn natively by `venv.random_actions()`, whose time is counted in. Runs on one thread (numba's and
numpy's). Also prints each kernel's compile time: cold (its numba cache
cleared first) and warm (compiled code loaded from the cache, in a fresh
process). The machine is shared: compare figures within one run.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from snack_envs import specs
from snack_envs.training.cli import ArgumentParser, command, env_name, positive_float, positive_int

MAKE_AND_RESET = "from snack_envs import batched; batched.make({name!r}, num_envs=2, seed=0).reset()"


def batched_rate(name: str, num_envs: int, seconds: float) -> float:
    from snack_envs import batched

    venv = batched.make(name, num_envs=num_envs, seed=0)
    venv.reset()
    for _ in range(20):  # warm-up: the first calls load the compiled code
        venv.step(venv.random_actions())
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        venv.step(venv.random_actions())
        steps += num_envs
    return steps / (time.perf_counter() - start)


def reference_rate(name: str, seconds: float) -> float:
    spec = specs.get(name)
    env = spec.raw_env()
    rng = np.random.default_rng(0)
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        if spec.simultaneous:
            observations, _ = env.reset(seed=int(rng.integers(2**31)))
            while env.agents:
                observations, *_ = env.step({a: int(rng.choice(np.flatnonzero(observations[a]["action_mask"])))
                                             for a in env.agents})
                steps += 1
        else:
            env.reset(seed=int(rng.integers(2**31)))
            while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
                mask = env.observe(env.agent_selection)["action_mask"]
                env.step(int(rng.choice(np.flatnonzero(mask))))
                steps += 1
    return steps / (time.perf_counter() - start)


def compile_seconds(name: str, cold: bool) -> float:
    """Seconds to make and reset a batched env in a fresh process, its numba cache cleared if `cold`."""
    if cold:
        for folder in {Path(specs.get(name).module("batched").__file__).parent, Path(__file__).parents[1] / "snack_envs" / "core"}:
            for cached in (folder / "__pycache__").glob("*.nb[ic]"):
                cached.unlink()
    code = f"import time; t = time.perf_counter(); {MAKE_AND_RESET.format(name=name)}; print(time.perf_counter() - t)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=os.environ)
    return float(out.stdout.strip().splitlines()[-1])


@command("batched.py")
def main(argv=None) -> None:
    parser = ArgumentParser(prog="batched.py", description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=positive_float, default=2.0, help="timing per figure")
    parser.add_argument("--envs", nargs="+", type=env_name, default=[s.env_name for s in specs.SPECS if s.batched])
    parser.add_argument("--batches", nargs="+", type=positive_int, default=[1, 64, 1024])
    parser.add_argument("--no-compile", action="store_true", help="skip the cold/warm compile timings")
    args = parser.parse_args(argv)
    os.environ.setdefault("NUMBA_NUM_THREADS", "1")
    header = f"{'env':20s} {'raw_env()':>10s} " + " ".join(f"{'batch ' + str(b):>12s}" for b in args.batches)
    header += f" {'x raw @max':>10s}" + ("" if args.no_compile else f" {'cold s':>7s} {'warm s':>7s}")
    print(header)
    for name in args.envs:
        compile_times = [] if args.no_compile else [compile_seconds(name, cold=True), compile_seconds(name, cold=False)]
        reference = reference_rate(name, args.seconds)
        rates = [batched_rate(name, b, args.seconds) for b in args.batches]
        row = f"{name:20s} {reference:10,.0f} " + " ".join(f"{r:12,.0f}" for r in rates) + f" {rates[-1] / reference:9.0f}x"
        print(row + "".join(f" {t:7.1f}" for t in compile_times))
    print("(steps/s: decisions, or ticks of joint actions, with obs and mask of the agent(s) to act; one thread)")


if __name__ == "__main__":
    main()
