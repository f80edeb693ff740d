"""Rate agents: head-to-head matches and round-robin tournaments, with confidence intervals and Elo.

    snack-eval --env snack_rabbits_v0 --agents random heuristic checkpoints/snack_rabbits_v0.zip \
        --games 1000 --out results/rabbits

A match puts one "hero" agent in one seat and copies of the other agent in the
remaining seats, rotating the hero's seat every game (seat 0 starts; seats are
not shuffled), so every agent plays every seat equally often. A game counts 1
for a sole win, 1/2 for a shared win and 0 for a loss; win rates carry a 95%
Wilson interval, mean scores a 95% normal interval. Elo ratings are fitted to
all head-to-head results (Bradley-Terry, random anchored at 1000 when present).
Outputs: a table on the terminal, results.json, results.csv and a PNG heatmap
of the head-to-head win rates.
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import math
from pathlib import Path

import numpy as np

from snack_envs import specs
from snack_envs.agents import Policy, make_policy
from snack_envs.core.rollout import Watcher, play
from training.replay import Replay

Z95 = 1.959963984540054


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_interval(values: list[float], z: float = Z95) -> tuple[float, float, float]:
    a = np.asarray(values, dtype=float)
    mean = float(a.mean()) if len(a) else 0.0
    half = z * float(a.std(ddof=1)) / math.sqrt(len(a)) if len(a) > 1 else 0.0
    return mean, mean - half, mean + half


def play_game(env_name: str, policies: list[Policy], seed: int, watch: Watcher | None = None, **env_kwargs) -> dict:
    """One game with `policies[seat]` in each seat (seat 0 starts, seats not shuffled), played by
    `snack_envs.core.rollout.play` (which resets each policy, and calls `watch(env, actions)`).
    Returns scores and winners by seat; an unfinished (truncated) game scores 0 for all, all winners."""
    env = specs.get(env_name).raw_env(shuffle_seats=False, **env_kwargs)
    result = play(env, dict(zip(env.possible_agents, policies)), seed=seed, watch=watch)
    if not result["finished"]:
        n = env.game.num_players
        return {"scores": [0.0] * n, "winners": list(range(n)), "finished": False}
    return {"scores": result["scores"], "winners": result["winners"], "finished": True}


def record_game(env_name: str, lineup: list[Policy], seed: int, path: Path, **env_kwargs) -> Path:
    """Play `lineup` (one policy per seat) and write every position the spectator sees to `path`
    (training.replay: a GIF for a .gif path, else text)."""
    replay = Replay(path, [f"seat {s} ({p.name})" for s, p in enumerate(lineup)])
    result = play_game(env_name, lineup, seed, watch=lambda env, actions: replay.snap(env), **env_kwargs)
    header = f"{env_name}, seed {seed}: " + ", ".join(f"seat {s} {p.name}" for s, p in enumerate(lineup))
    return replay.save(header, f"scores by seat: {result['scores']}; winners: {result['winners']}")


def head_to_head(
    env_name: str, hero: Policy, villain: Policy, games: int, num_players: int = 2, seed: int = 0, **env_kwargs
) -> dict:
    """`hero` in one seat (rotated each game) against copies of `villain` in the others."""
    points, hero_scores, villain_scores, unfinished = 0.0, [], [], 0
    wins = ties = losses = 0
    for g in range(games):
        hero_seat = g % num_players
        lineup = [hero if s == hero_seat else villain for s in range(num_players)]
        result = play_game(env_name, lineup, seed=seed + g, num_players=num_players, **env_kwargs)
        unfinished += not result["finished"]
        winners = result["winners"]
        if hero_seat in winners and len(winners) == 1:
            wins += 1
            points += 1
        elif hero_seat in winners:
            ties += 1
            points += 1 / len(winners) if len(winners) < num_players else 0.5
        else:
            losses += 1
        hero_scores.append(result["scores"][hero_seat])
        villain_scores += [s for i, s in enumerate(result["scores"]) if i != hero_seat]
    low, high = wilson_interval(points, games)
    return {
        "hero": hero.name,
        "villain": villain.name,
        "games": games,
        "wins": wins,
        "ties": ties,
        "losses": losses,
        "unfinished": unfinished,
        "win_rate": points / games,
        "win_rate_ci95": [low, high],
        "hero_mean_score_ci95": list(mean_interval(hero_scores)),
        "villain_mean_score_ci95": list(mean_interval(villain_scores)),
    }


def fit_elo(names: list[str], matches: list[dict], anchor: str | None = "random") -> dict[str, float]:
    """Bradley-Terry ratings on the Elo scale from (hero, villain, win_rate, games) results."""
    index = {n: i for i, n in enumerate(names)}
    r = np.zeros(len(names))
    for _ in range(2000):
        grad = np.zeros(len(names))
        for m in matches:
            i, j = index[m["hero"]], index[m["villain"]]
            expected = 1 / (1 + 10 ** ((r[j] - r[i]) / 400))
            diff = (m["win_rate"] - expected) * m["games"]
            grad[i] += diff
            grad[j] -= diff
        r += 4.0 * grad / max(1, max(m["games"] for m in matches)) if matches else 0
        r -= r.mean()
    offset = 1000 - r[index[anchor]] if anchor in index else 1500
    return {n: float(r[index[n]] + offset) for n in names}


def tournament(
    env_name: str, agents: dict[str, Policy], games: int, num_players: int = 2, seed: int = 0, progress=None, **env_kwargs
) -> dict:
    """Every pair of agents plays `games` games (for more than 2 players, in both hero/villain roles)."""
    names = list(agents)
    pairs = itertools.combinations(names, 2) if num_players == 2 else itertools.permutations(names, 2)
    matches = []
    for a, b in pairs:
        match = head_to_head(env_name, agents[a], agents[b], games, num_players, seed, **env_kwargs)
        match["hero"], match["villain"] = a, b
        matches.append(match)
        if num_players == 2:  # the mirror result, for the matrix
            lo, hi = match["win_rate_ci95"]
            matches.append(
                dict(match, hero=b, villain=a, wins=match["losses"], losses=match["wins"], win_rate=1 - match["win_rate"],
                     win_rate_ci95=[1 - hi, 1 - lo], hero_mean_score_ci95=match["villain_mean_score_ci95"],
                     villain_mean_score_ci95=match["hero_mean_score_ci95"])
            )
        if progress:
            progress()
    elo = fit_elo(names, matches)
    summary = {}
    for n in names:
        mine = [m for m in matches if m["hero"] == n]
        played = sum(m["games"] for m in mine)
        points = sum(m["win_rate"] * m["games"] for m in mine)
        summary[n] = {
            "elo": elo[n],
            "games": played,
            "win_rate": points / played if played else 0.0,
            "win_rate_ci95": list(wilson_interval(points, played)),
            "mean_score": float(np.mean([m["hero_mean_score_ci95"][0] for m in mine])) if mine else 0.0,
        }
    return {"env": env_name, "num_players": num_players, "games_per_pair": games, "seed": seed, "agents": summary, "matches": matches}


def format_table(results: dict) -> str:
    lines = [f"{results['env']}, {results['num_players']} players, {results['games_per_pair']} games per pairing"]
    lines.append(f"{'agent':40s} {'elo':>7s} {'win rate':>9s} {'95% CI':>15s} {'mean score':>11s}")
    for name, s in sorted(results["agents"].items(), key=lambda kv: -kv[1]["elo"]):
        lo, hi = s["win_rate_ci95"]
        lines.append(f"{name:40s} {s['elo']:7.0f} {s['win_rate']:9.3f} [{lo:.3f}, {hi:.3f}] {s['mean_score']:11.2f}")
    lines.append("head to head (row's win rate against column, ties count 1/2):")
    names = list(results["agents"])
    lines.append(" " * 24 + "".join(f"{n[-14:]:>15s}" for n in names))
    rate = {(m["hero"], m["villain"]): m["win_rate"] for m in results["matches"]}
    for a in names:
        lines.append(f"{a[-24:]:24s}" + "".join(f"{rate[(a, b)]:15.3f}" if (a, b) in rate else f"{'-':>15s}" for b in names))
    return "\n".join(lines)


def write_outputs(results: dict, out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / "results.json", out_dir / "results.csv", out_dir / "head_to_head.png"]
    paths[0].write_text(json.dumps(results, indent=2))
    with paths[1].open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["hero", "villain", "games", "wins", "ties", "losses", "win_rate", "ci95_low", "ci95_high", "hero_mean_score"])
        for m in results["matches"]:
            writer.writerow([m["hero"], m["villain"], m["games"], m["wins"], m["ties"], m["losses"],
                             f"{m['win_rate']:.4f}", f"{m['win_rate_ci95'][0]:.4f}", f"{m['win_rate_ci95'][1]:.4f}",
                             f"{m['hero_mean_score_ci95'][0]:.3f}"])
    heatmap(results, paths[2])
    return paths


def heatmap(results: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(results["agents"])
    matrix = np.full((len(names), len(names)), np.nan)
    for m in results["matches"]:
        matrix[names.index(m["hero"]), names.index(m["villain"])] = m["win_rate"]
    fig, ax = plt.subplots(figsize=(2 + 1.3 * len(names), 1.5 + 1.1 * len(names)))
    im = ax.imshow(matrix, vmin=0, vmax=1, cmap="RdYlGn")
    short = [Path(n).stem[-18:] for n in names]
    ax.set_xticks(range(len(names)), short, rotation=30, ha="right")
    ax.set_yticks(range(len(names)), short)
    for i, j in itertools.product(range(len(names)), repeat=2):
        if not np.isnan(matrix[i, j]):
            ax.text(j, i, f"{matrix[i, j]:.2f}", ha="center", va="center")
    ax.set_xlabel("opponent")
    ax.set_ylabel("agent")
    ax.set_title(f"{results['env']}: win rate of row vs column")
    fig.colorbar(im, ax=ax, fraction=0.046)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description="Round-robin tournament of snack-env agents.")
    parser.add_argument("--env", required=True, help="env name, e.g. snack_rabbits_v0")
    parser.add_argument("--agents", nargs="+", default=["random", "heuristic"], help="random, heuristic, or checkpoint paths")
    parser.add_argument("--games", type=int, default=200, help="games per pairing")
    parser.add_argument("--num-players", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="folder for results.json/.csv and the heatmap")
    parser.add_argument("--replay", type=Path, default=None, help="write one game of the first two agents as a replay: .gif pictures, else text")
    args = parser.parse_args(argv)
    agents = {spec: make_policy(spec, args.env, args.num_players, seed=args.seed) for spec in args.agents}
    if len(agents) < 2:
        parser.error("give at least two distinct agents")
    try:
        from tqdm import tqdm

        pairings = len(agents) * (len(agents) - 1) // (2 if args.num_players == 2 else 1)
        bar = tqdm(total=pairings, desc="pairings")
    except ImportError:
        bar = None
    results = tournament(args.env, agents, args.games, args.num_players, args.seed, progress=bar.update if bar else None)
    if bar:
        bar.close()
    print(format_table(results))
    if args.out:
        for p in write_outputs(results, args.out):
            print("wrote", p)
    if args.replay:
        lineup = [agents[args.agents[s % 2]] for s in range(args.num_players)]
        print("wrote", record_game(args.env, lineup, args.seed, args.replay, num_players=args.num_players))


if __name__ == "__main__":
    main()
