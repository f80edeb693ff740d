"""How far above the heuristic a fair search gets, by playout budget, on the same deals: the headroom
behind a bar.

    python benchmarks/search_headroom.py [--games 200] [--budgets 32:4:4 128:8:4]       # Snack Time solo
                                         [--agent checkpoints/snack_time_v0_solo.zip] [--rat-snacks]
    python benchmarks/search_headroom.py --env snack_wars_v0 --budgets 64 512 [--objective win] [--clairvoyant 16]

Not a speed benchmark. Snack Time solo (the default): each player's final score, against the solo bar
of 100 (the heuristic scores about 87). Snack Wars, 2 players: each player's share of the win (1, 1/2
for a tie, 0) against the heuristic, against the bar of 0.6 (the lower bound of a 95% interval). Every
player plays the same games: game g is the deal and chance of `arena.play_games` seeded 1000 + g, the
player in seat g mod n and the heuristic in the others, so differences are paired. Players: the
heuristic, the agent (a checkpoint; `--agent ''` leaves it out), and the search bot
(`snack_envs.search`: the heuristic's playouts from every legal action) at each budget
`samples:first:keep` (a lone number: every action gets that many). Prints each player's mean with its
95% interval, its mean difference to the heuristic on the same games with that difference's interval,
and its seconds per game (one core). Snack Time's search takes about 8 s a game at 32:4:4 and 25 s at
128:8:4; Snack Wars' about 0.4 s at 512. `--clairvoyant BUDGET` adds a search that cheats: its playouts
keep the draw pile's true order (`ClairvoyantSearch`), so what it gains over the fair search at the same
budget is what the hidden order costs it (Snack Wars, 512: 0.769 against 0.591, docs/envs/snack_wars_v0.md).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

os.environ.setdefault("OMP_NUM_THREADS", "1")

from snack_envs.search import SearchPolicy  # noqa: E402
from snack_envs.training.arena import play_games, resolve  # noqa: E402
from snack_envs.training.cli import ArgumentParser, command, positive_int  # noqa: E402
from snack_envs.training.outcomes import mean_interval  # noqa: E402

SETTINGS = {  # env -> players, what is measured, the shipped agent
    "snack_time_v0": (1, "score", "checkpoints/snack_time_v0_solo.zip"),
    "snack_wars_v0": (2, "win share", "checkpoints/snack_wars_v0.zip"),
}


class ClairvoyantSearch(SearchPolicy):
    """The search bot, except that its playouts read the draw pile's true order: not fair play, a yardstick."""

    name = "clairvoyant search"

    def _deal(self, root, kernel, deals) -> None:
        pass  # the playouts' games are copies of the real one, its pile in the true order


def outcomes(env: str, n: int, player, games: int, options: dict) -> tuple[np.ndarray, float]:
    """`player`'s outcome in games 0..games-1 (its score solo, else its share of the win; unfinished
    games: nan), and seconds per game."""
    started, out = time.perf_counter(), []
    for g in range(games):
        seat = g % n
        lineup = ["heuristic"] * n
        lineup[seat] = player
        game = play_games(env, lineup, 1, seed=1000 + g, **options)[0]
        if not game["finished"]:
            out.append(np.nan)
        elif n == 1:
            out.append(game["scores"][0])
        else:
            out.append(1 / len(game["winners"]) if seat in game["winners"] else 0.0)
    return np.asarray(out), (time.perf_counter() - started) / games


def interval(x: np.ndarray, digits: int) -> str:
    """The mean of the finished games' outcomes with its 95% interval, or "-" where none finished."""
    finished = mean_interval(x[~np.isnan(x)])
    if finished is None:
        return "-"
    mean, low, high = finished
    return f"{mean:6.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def budget(text: str) -> tuple[int, int | None, int | None]:
    """An argparse type: a search budget `samples[:first[:keep]]`, each a positive int."""
    parts = text.split(":")
    try:
        if len(parts) > 3:
            raise ValueError
        numbers = [positive_int(part) for part in parts]
    except (ValueError, argparse.ArgumentTypeError):
        raise argparse.ArgumentTypeError(f"a budget is samples[:first[:keep]], each a positive int, got {text!r}") from None
    return tuple(numbers + [None] * (3 - len(numbers)))


@command("search_headroom.py")
def main(argv=None) -> None:
    parser = ArgumentParser(prog="search_headroom.py", description=__doc__.splitlines()[0])
    parser.add_argument("--env", choices=sorted(SETTINGS), default="snack_time_v0")
    parser.add_argument("--games", type=positive_int, default=200)
    parser.add_argument("--budgets", nargs="+", type=budget, default=None,
                        help="search samples:first:keep or samples (default: Snack Time 32:4:4 128:8:4, Snack Wars 512)")
    parser.add_argument("--objective", choices=("margin", "win"), default="margin", help="the search's, with 2 players")
    parser.add_argument("--agent", default=None, help="a checkpoint (default: the shipped one; '' for none)")
    parser.add_argument("--rat-snacks", action="store_true", help="Snack Time's Rat Snacks module")
    parser.add_argument("--clairvoyant", nargs="+", type=budget, default=[], metavar="BUDGET",
                        help="also a search that sees the draw pile's true order (cheating: a yardstick), at each budget")
    args = parser.parse_args(argv)
    n, measure, shipped = SETTINGS[args.env]
    budgets = args.budgets if args.budgets is not None else [budget(b) for b in (["32:4:4", "128:8:4"] if n == 1 else ["512"])]
    agent = shipped if args.agent is None else args.agent
    options = {"rat_snacks": True} if args.rat_snacks else {}
    players = {"heuristic": "heuristic"}
    if agent:
        players["agent"] = resolve(agent, args.env, n, 0, **options)
    for kind, (samples, first, keep) in [(SearchPolicy, b) for b in budgets] + [(ClairvoyantSearch, b) for b in args.clairvoyant]:
        shown = ":".join(str(k) for k in (samples, first, keep) if k is not None)
        players[f"{kind.name} {shown}"] = kind(args.env, n, seed=0, samples=samples, first=first or samples,
                                                keep=keep or 1, objective=args.objective, **options)
    digits = 1 if n == 1 else 3
    what = "solo" if n == 1 else f"{n} players, against the heuristic"
    print(f"{args.env} {what}{' with Rat Snacks' if args.rat_snacks else ''}, {args.games} games, the same for every player")
    print(f"{'player':<24} {'mean ' + measure + ' [95% CI]':<26} {'vs heuristic [95% CI]':<26} s/game")
    baseline = None
    for name, player in players.items():
        result, seconds = outcomes(args.env, n, player, args.games, options)
        baseline = result if baseline is None else baseline
        print(f"{name:<24} {interval(result, digits):<26} {interval(result - baseline, digits):<26} {seconds:.2f}", flush=True)


if __name__ == "__main__":
    main()
