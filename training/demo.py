"""The quick-start job: random agents play a few games of every env; prints a result table.

    snack-demo [--games 200] [--seed 0]
"""

from __future__ import annotations

if __name__ == "__main__":  # python -m: enter as the console script does, before the imports below,
    from snack_envs.training.cli import snack_demo  # so that a missing extra is one line, not a traceback

    raise SystemExit(snack_demo())

from snack_envs import specs
from snack_envs.agents import RandomPolicy
from snack_envs.core.rollout import play as play_episode
from snack_envs.training.cli import ArgumentParser, command, nonnegative_int, positive_int


def play(name: str, games: int, seed: int, progress) -> dict:
    """`games` games of random legal play: each agent's share of the wins (ties split), agent steps, truncated games."""
    env = specs.get(name).raw_env()
    policies = {a: RandomPolicy() for a in env.possible_agents}
    wins = {a: 0.0 for a in env.possible_agents}
    steps = truncated = 0

    def count(env, actions) -> None:
        nonlocal steps
        steps += len(actions or ())  # one step an agent's move, as in the AEC view

    for g in range(games):
        result = play_episode(env, policies, seed=seed + g, watch=count)
        truncated += result["truncated"]
        for s in result["winners"] or ():
            wins[env.seat_agents[s]] += 1 / len(result["winners"])
        progress()
    return {"wins": wins, "steps": steps, "truncated": truncated}


@command("snack-demo")
def main(argv=None) -> None:
    parser = ArgumentParser(prog="snack-demo", description="Random agents play every snack env; prints the results.")
    parser.add_argument("--games", type=positive_int, default=200, help="games per env")
    parser.add_argument("--seed", type=nonnegative_int, default=0)
    args = parser.parse_args(argv)
    try:
        from tqdm import tqdm
    except ImportError:  # the envs-only install has no tqdm
        tqdm = None
    bar = tqdm(total=args.games * len(specs.ENV_NAMES), desc="games", unit="game") if tqdm else None
    rows = []
    for name in specs.ENV_NAMES:
        result = play(name, args.games, args.seed, bar.update if bar else (lambda: None))
        rows.append((name, result))
    if bar:
        bar.close()
    print(f"\n{'env':22s} {'games':>6s} {'steps/game':>11s} {'truncated':>9s}  win share by agent (ties split)")
    for name, r in rows:
        share = "  ".join(f"{a}: {w / args.games:.2f}" for a, w in r["wins"].items())
        print(f"{name:22s} {args.games:6d} {r['steps'] / args.games:11.1f} {r['truncated']:9d}  {share}")
