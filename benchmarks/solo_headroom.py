"""Snack Time solo: how far above the heuristic a fair search gets, by playout budget, on the same deals.

    python benchmarks/solo_headroom.py [--games 200] [--budgets 32:4:4 128:8:4]
                                       [--agent checkpoints/snack_time_v0_solo.zip] [--rat-snacks]

Not a speed benchmark: it measures the headroom behind the solo bar (a mean score of 100, where the
heuristic scores about 87). Every player plays the same games: game g is the deal and dice of
`arena.play_games` seeded 1000 + g, so differences are paired. Players: the heuristic, the agent (a
checkpoint; `--agent ''` leaves it out), and the search bot (`snack_envs.snack_time.search`: the
heuristic's playouts from every legal action) at each budget `samples:first:keep` (32:4:4 is its
default). Prints each player's mean score with its 95% interval, its mean difference to the
heuristic on the same games with that difference's interval, and its seconds per game (one core).
The search bot takes about 8 s a game at 32:4:4 and 25 s at 128:8:4.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

os.environ.setdefault("OMP_NUM_THREADS", "1")

from snack_envs.snack_time.search import SearchPolicy  # noqa: E402
from snack_envs.training.arena import play_games, resolve  # noqa: E402
from snack_envs.training.outcomes import mean_interval  # noqa: E402

ENV = "snack_time_v0"


def scores(player, games: int, options: dict) -> tuple[np.ndarray, float]:
    """`player`'s final score in games 0..games-1 (unfinished games: nan), and seconds per game."""
    started, out = time.perf_counter(), []
    for g in range(games):
        outcome = play_games(ENV, [player], 1, seed=1000 + g, **options)[0]
        out.append(outcome["scores"][0] if outcome["finished"] else np.nan)
    return np.asarray(out), (time.perf_counter() - started) / games


def interval(x: np.ndarray) -> str:
    mean, low, high = mean_interval(x[~np.isnan(x)])
    return f"{mean:6.1f} [{low:.1f}, {high:.1f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--budgets", nargs="*", default=["32:4:4", "128:8:4"], help="search samples:first:keep")
    parser.add_argument("--agent", default="checkpoints/snack_time_v0_solo.zip")
    parser.add_argument("--rat-snacks", action="store_true")
    args = parser.parse_args()
    options = {"rat_snacks": True} if args.rat_snacks else {}
    players = {"heuristic": "heuristic"}
    if args.agent:
        players["agent"] = resolve(args.agent, ENV, 1, 0, **options)
    for budget in args.budgets:
        samples, first, keep = (int(k) for k in budget.split(":"))
        players[f"search {budget}"] = SearchPolicy(ENV, 1, seed=0, samples=samples, first=first, keep=keep, **options)
    print(f"Snack Time solo{' with Rat Snacks' if args.rat_snacks else ''}, {args.games} games, the same for every player")
    print(f"{'player':<18} {'mean score [95% CI]':<22} {'vs heuristic [95% CI]':<24} s/game")
    baseline = None
    for name, player in players.items():
        result, seconds = scores(player, args.games, options)
        baseline = result if baseline is None else baseline
        print(f"{name:<18} {interval(result):<22} {interval(result - baseline):<24} {seconds:.1f}", flush=True)


if __name__ == "__main__":
    main()
