"""Rate agents: head-to-head matches and round-robin tournaments, with confidence intervals and Elo.

    snack-eval --env snack_rabbits_v0 --agents random heuristic checkpoints/snack_rabbits_v0.zip \
        --games 1000 --out results/rabbits

A match puts one "hero" agent in one seat and copies of the other agent in the
remaining seats, rotating the hero's seat every game (seat 0 starts; seats are
not shuffled), so every agent plays every seat equally often. A finished game
counts 1 for a sole win, 1/k for a win shared by k seats and 0 for a loss, so
with n players the even result is 1/n; win rates carry a 95% Wilson interval,
mean scores a 95% normal interval. A game cut off at the env's `max_steps`
(unfinished) has no result: it is counted in its own column and left out of
the win rates, the mean scores and the ratings. Ratings (Elo scale, random
anchored at 1000 when present) come from `ratings.fit_ratings`: a converged
Plackett-Luce fit to every game's full finishing order under a weak prior,
with a 95% profile-likelihood interval each (Bradley-Terry with 2 players).
Outputs: a table on the terminal, results.json, results.csv and a PNG heatmap
of the head-to-head win rates.

With one player (Snack Time's solo mode) no agent meets another: each plays
`--games` games alone on the same deals (`arena.solo`, the same seed), and the
table gives its mean score with a 95% interval and the rulebook's ranks
(results.json and results.csv likewise; no heatmap).

    snack-eval --env snack_time_v0 --num-players 1 --agents heuristic checkpoints/snack_time_v0_solo.zip
"""

from __future__ import annotations

if __name__ == "__main__":  # python -m: enter as the console script does, before the imports below,
    from snack_envs.training.cli import snack_eval  # so that a missing extra is one line, not a traceback

    raise SystemExit(snack_eval())

import csv
import itertools
import json
from pathlib import Path

import numpy as np

from snack_envs import specs
from snack_envs.agents import Policy, make_policy
from snack_envs.core.rollout import Watcher, play
from snack_envs.training.cli import ArgumentParser, command, env_name, nonnegative_int, positive_int
from snack_envs.training.arena import solo
from snack_envs.training.outcomes import Z95, bounds_text, match_result, mean_interval, mean_of, mean_text, wilson_interval  # noqa: F401 (re-exported)
from snack_envs.training.ratings import display_names, fit_ratings
from snack_envs.training.replay import Replay, check_path

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
    (snack_envs.training.replay: a GIF or MP4 for a .gif or .mp4 path, else text)."""
    replay = Replay(path, [f"seat {s} ({p.name})" for s, p in enumerate(lineup)])
    result = play_game(env_name, lineup, seed, watch=lambda env, actions: replay.snap(env), **env_kwargs)
    header = f"{env_name}, seed {seed}: " + ", ".join(f"seat {s} {p.name}" for s, p in enumerate(lineup))
    return replay.save(header, f"scores by seat: {result['scores']}; winners: {result['winners']}")


def head_to_head(
    env_name: str, hero: Policy, villain: Policy, games: int, num_players: int = 2, seed: int = 0, **env_kwargs
) -> dict:
    """`hero` in one seat (rotated each game) against copies of `villain` in the others, game by game
    (`snack_envs.training.arena.match` plays the same match on the batched engine). The figures:
    `match_result`."""
    outcomes = []
    for g in range(games):
        hero_seat = g % num_players
        lineup = [hero if s == hero_seat else villain for s in range(num_players)]
        result = play_game(env_name, lineup, seed=seed + g, num_players=num_players, **env_kwargs)
        outcomes.append(dict(result, hero_seat=hero_seat))
    return match_result(hero.name, villain.name, num_players, outcomes)


def fit_elo(names: list[str], matches: list[dict], anchor: str | None = "random") -> dict[str, float]:
    """Elo ratings (no intervals) from two-player (hero, villain, win_rate, games, optional unfinished) results:
    `ratings.fit_ratings` with each result as `places` [wins, losses] over its finished games (ties split; the
    win rate is over those). See `tournament` for ratings from full results."""
    places = []
    for m in matches:
        finished = m["games"] - m.get("unfinished", 0)
        places.append(dict(m, places=[m["win_rate"] * finished, (1 - m["win_rate"]) * finished]))
    return {n: r["elo"] for n, r in fit_ratings(names, places, anchor, intervals=False).items()}


def tournament(
    env_name: str, agents: dict[str, Policy], games: int, num_players: int = 2, seed: int = 0, progress=None, **env_kwargs
) -> dict:
    """Every pair of agents plays `games` games (for more than 2 players, in both hero/villain roles).

    `matches` holds every head-to-head result by (hero, villain), with two players also each one's mirror
    (`mirror`: True; the same games seen from the other side). `agents` holds, by agent spec: `name` (short
    and unique, `ratings.display_names`), `elo` and `elo_ci95` (`ratings.fit_ratings`, from the games
    played, each once), and over its games as hero: `games`, `unfinished`, `win_rate` (finished games; even
    `even` = 1/n) with its interval, and `mean_score` (finished games; None if none finished)."""
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
                     win_rate_ci95=[1 - hi, 1 - lo], places=match["places"][::-1], mirror=True,
                     hero_mean_score_ci95=match["villain_mean_score_ci95"], villain_mean_score_ci95=match["hero_mean_score_ci95"])
            )
        if progress:
            progress()
    ratings = fit_ratings(names, [m for m in matches if not m.get("mirror")])
    labels = display_names(names)
    summary = {}
    for n in names:
        mine = [m for m in matches if m["hero"] == n]
        finished = sum(m["finished"] for m in mine)
        points = sum(m["win_rate"] * m["finished"] for m in mine)
        scored = sum(m["hero_mean_score_ci95"][0] * m["finished"] for m in mine if m["finished"])
        summary[n] = {
            "name": labels[n],
            "elo": ratings[n]["elo"],
            "elo_ci95": ratings[n]["elo_ci95"],
            "games": sum(m["games"] for m in mine),
            "unfinished": sum(m["unfinished"] for m in mine),
            "win_rate": points / finished if finished else 1 / num_players,
            "win_rate_ci95": list(wilson_interval(points, finished)),
            "mean_score": scored / finished if finished else None,
        }
    return {"env": env_name, "num_players": num_players, "even": 1 / num_players, "games_per_pair": games, "seed": seed,
            "rating_anchor": "random" if "random" in agents else None, "agents": summary, "matches": matches}


def even_text(num_players: int) -> str:
    return "1/2" if num_players == 2 else f"1/{num_players}"


def format_table(results: dict) -> str:
    """The terminal table: agents by rating, then the head-to-head matrix, each agent by its short unique name."""
    n, agents = results["num_players"], results["agents"]
    label = {spec: a.get("name", spec) for spec, a in agents.items()}
    width = max(len("agent"), *(len(x) for x in label.values()))
    even = even_text(n)
    anchored = results.get("rating_anchor") in agents
    lines = [
        f"{results['env']}, {n} players, {results['games_per_pair']} games per pairing (an agent against "
        + ("the other" if n == 2 else f"{n - 1} copies of the other") + ", seats rotated)",
        f"win rate: share of the wins over finished games, a win shared by k counting 1/k; even result {even}",
        "elo: Plackett-Luce fit to every finishing order (Bradley-Terry for 2 players), weak prior, 95% profile interval; "
        + ("random = 1000" if anchored else "mean 1500"),
        "unfinished: games cut off at max_steps, left out of win rates, mean scores and ratings",
        "",
        f"{'agent':{width}s} {'elo':>6s} {'elo 95% CI':>14s} {'games':>6s} {'unfinished':>10s} {'win rate':>8s}"
        f" {'win rate 95% CI':>16s} {'mean score':>10s}",
    ]
    for spec, s in sorted(agents.items(), key=lambda kv: -kv[1]["elo"]):
        lo, hi = s["win_rate_ci95"]
        e_lo, e_hi = s.get("elo_ci95", (s["elo"], s["elo"]))
        elo_ci = "anchor" if anchored and spec == results["rating_anchor"] else f"[{e_lo:.0f}, {e_hi:.0f}]"
        score = "-" if s["mean_score"] is None else f"{s['mean_score']:.2f}"
        lines.append(f"{label[spec]:{width}s} {s['elo']:6.0f} {elo_ci:>14s} {s['games']:6d} {s.get('unfinished', 0):10d}"
                     f" {s['win_rate']:8.3f} {f'[{lo:.3f}, {hi:.3f}]':>16s} {score:>10s}")
    lines.append("")
    lines.append("head to head: row's win rate against " + ("column" if n == 2 else f"{n - 1} copies of column")
                 + f", finished games (even {even})")
    names = list(agents)
    col = max(7, *(len(label[b]) for b in names)) + 2
    lines.append(" " * width + "".join(f"{label[b]:>{col}s}" for b in names))
    rate = {(m["hero"], m["villain"]): m["win_rate"] for m in results["matches"]}
    for a in names:
        lines.append(f"{label[a]:{width}s}" + "".join(f"{rate[(a, b)]:{col}.3f}" if (a, b) in rate else f"{'-':>{col}s}" for b in names))
    return "\n".join(lines)


def write_outputs(results: dict, out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / "results.json", out_dir / "results.csv", out_dir / "head_to_head.png"]
    paths[0].write_text(json.dumps(results, indent=2))
    with paths[1].open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["hero", "villain", "games", "wins", "ties", "losses", "unfinished", "win_rate", "ci95_low",
                         "ci95_high", "hero_mean_score"])
        for m in results["matches"]:
            writer.writerow([m["hero"], m["villain"], m["games"], m["wins"], m["ties"], m["losses"], m["unfinished"],
                             f"{m['win_rate']:.4f}", f"{m['win_rate_ci95'][0]:.4f}", f"{m['win_rate_ci95'][1]:.4f}",
                             mean_text(m["hero_mean_score_ci95"], ".3f", "")])
    heatmap(results, paths[2])
    return paths


def heatmap(results: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from matplotlib.colors import TwoSlopeNorm

    names = list(results["agents"])
    matrix = np.full((len(names), len(names)), np.nan)
    for m in results["matches"]:
        matrix[names.index(m["hero"]), names.index(m["villain"])] = m["win_rate"]
    fig, ax = plt.subplots(figsize=(2 + 1.3 * len(names), 1.5 + 1.1 * len(names)))
    even = 1 / results["num_players"]
    im = ax.imshow(matrix, norm=TwoSlopeNorm(vcenter=even, vmin=0, vmax=1), cmap="RdYlGn")
    short = [results["agents"][n].get("name", n) for n in names]
    ax.set_xticks(range(len(names)), short, rotation=30, ha="right")
    ax.set_yticks(range(len(names)), short)
    for i, j in itertools.product(range(len(names)), repeat=2):
        if not np.isnan(matrix[i, j]):
            ax.text(j, i, f"{matrix[i, j]:.2f}", ha="center", va="center")
    ax.set_xlabel("opponent")
    ax.set_ylabel("agent")
    ax.set_title(f"{results['env']}: win rate of row vs column (even {even_text(results['num_players'])})")
    fig.colorbar(im, ax=ax, fraction=0.046)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def solo_scores(env_name: str, agents: dict[str, Policy], games: int, seed: int, progress=None) -> dict:
    """Each agent alone over the same `games` deals (`arena.solo`): mean score, 95% interval and ranks."""
    results = {}
    for spec, agent in agents.items():
        results[spec] = solo(env_name, agent, games, seed)
        if progress:
            progress(1)
    return {"env": env_name, "num_players": 1, "games": games, "seed": seed, "agents": results}


def format_solo_table(results: dict) -> str:
    """The terminal table of `solo_scores`: an agent a row, best mean score first, with its ranks."""
    agents = results["agents"]
    label = display_names(list(agents))
    width = max(len("agent"), *(len(x) for x in label.values()))
    ranks = list(next(iter(agents.values()))["ranks"])
    lines = [f"{results['env']}, solo, {results['games']} games an agent on the same deals (seed {results['seed']})",
             "mean score over finished games, 95% interval; ranks: the rulebook's solo table, games in each", "",
             f"{'agent':{width}s} {'games':>6s} {'unfinished':>10s} {'mean score':>10s} {'95% CI':>16s}  " + " | ".join(ranks)]
    def best_first(item):  # an agent with no finished game last
        mean = mean_of(item[1]["mean_score_ci95"])
        return (mean is None, -(mean or 0.0))

    for spec, r in sorted(agents.items(), key=best_first):
        mean = r["mean_score_ci95"]
        lines.append(f"{label[spec]:{width}s} {r['games']:6d} {r['unfinished']:10d} {mean_text(mean, '.2f'):>10s} "
                     f"{bounds_text(mean, '.2f'):>16s}  "
                     + " | ".join(f"{r['ranks'][k]:>{len(k)}d}" for k in ranks))
    return "\n".join(lines)


def write_solo_outputs(results: dict, out_dir: Path) -> list[Path]:
    """`solo_scores`' results as results.json and results.csv (an agent a row) in `out_dir`."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / "results.json", out_dir / "results.csv"]
    paths[0].write_text(json.dumps(results, indent=2))
    ranks = list(next(iter(results["agents"].values()))["ranks"])
    with paths[1].open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["agent", "games", "unfinished", "mean_score", "ci95_low", "ci95_high", *ranks])
        for spec, r in results["agents"].items():
            interval = [f"{x:.3f}" for x in r["mean_score_ci95"]] if r["mean_score_ci95"] else ["", "", ""]
            writer.writerow([spec, r["games"], r["unfinished"], *interval, *(r["ranks"][k] for k in ranks)])
    return paths


@command("snack-eval")
def main(argv=None) -> None:
    parser = ArgumentParser(prog="snack-eval", description="Round-robin tournament of snack-env agents.")
    parser.add_argument("--env", type=env_name, required=True, help=f"env name: one of {', '.join(specs.ENV_NAMES)}")
    parser.add_argument("--agents", nargs="+", default=["random", "heuristic"], help="random, heuristic, lookahead, search (Snack Time, Snack Wars), or checkpoint paths")
    parser.add_argument("--games", type=positive_int, default=200, help="games per pairing")
    parser.add_argument("--num-players", type=positive_int, default=2)
    parser.add_argument("--seed", type=nonnegative_int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="folder for results.json/.csv and the heatmap")
    parser.add_argument("--replay", type=Path, default=None, help="write one game of the first two agents as a replay: .gif or .mp4 pictures, else text")
    args = parser.parse_args(argv)
    if args.out is not None and args.out.exists() and not args.out.is_dir():
        parser.error(f"--out {args.out} is a file; give a folder for the results")
    specs.get(args.env).rules_class.check_num_players(args.num_players)  # before any agent is built
    agents = {spec: make_policy(spec, args.env, args.num_players, seed=args.seed) for spec in args.agents}
    solo = args.num_players == 1
    if len(agents) < 2 and not solo:
        parser.error("give at least two distinct agents")
    if args.replay is not None:  # the outputs are checked before the games, not after them
        check_path(args.replay)
    if args.out is not None:  # made now, so that a path that cannot be a folder fails first
        args.out.mkdir(parents=True, exist_ok=True)
    try:
        from tqdm import tqdm

        pairings = len(agents) * (len(agents) - 1) // (2 if args.num_players == 2 else 1)
        bar = tqdm(total=len(agents) if solo else pairings, desc="agents" if solo else "pairings")
    except ImportError:
        bar = None
    progress = bar.update if bar else None
    if solo:
        results = solo_scores(args.env, agents, args.games, args.seed, progress=progress)
    else:
        results = tournament(args.env, agents, args.games, args.num_players, args.seed, progress=progress)
    if bar:
        bar.close()
    print(format_solo_table(results) if solo else format_table(results))
    if args.out:
        for p in (write_solo_outputs if solo else write_outputs)(results, args.out):
            print("wrote", p)
    if args.replay:
        first_two = list(agents.values())[:2]  # distinct: `--agents a a b` replays a against b
        lineup = [first_two[s % len(first_two)] for s in range(args.num_players)]
        print("wrote", record_game(args.env, lineup, args.seed, args.replay, num_players=args.num_players))
