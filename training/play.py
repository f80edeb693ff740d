"""Play any snack env in the terminal against agents.

    snack-play snack_rabbits_v0 --opponents heuristic [--num-players 3] [--seat 0] [--seed 7] [--replay game.gif]

The table is drawn from your seat (what you may see, nothing more); you choose
from the legal actions, each shown with its number and description. Type the
number, or `q` to quit. `--replay PATH` writes the game, as the spectator sees it,
to PATH when it ends: a GIF for a .gif path (needs Pillow), else a text log.
"""

from __future__ import annotations

import argparse
import importlib
from typing import Callable

import numpy as np

from snack_envs.agents import make_policy


def choose(actions: list[int], describe: Callable[[int], str], ask: Callable[[str], str], say: Callable[[str], None]) -> int | None:
    for a in actions:
        say(f"  [{a}] {describe(a)}")
    while True:
        answer = ask("your action> ").strip()
        if answer.lower() in ("q", "quit", "exit"):
            return None
        if answer.isdigit() and int(answer) in actions:
            return int(answer)
        say(f"  '{answer}' is not one of the legal actions listed")


def play(env_name: str, opponents: list[str], num_players: int = 2, seat: int = 0, seed: int | None = None,
         ask: Callable[[str], str] = input, say: Callable[[str], None] = print, replay=None) -> dict | None:
    """One game with a person in `seat`; returns the final scores, or None if the person quit.
    `replay`: a path to write the game to (see the module docstring), also when the person quits."""
    module = importlib.import_module(f"snack_envs.{env_name}")
    parallel = bool(getattr(module, "IS_PARALLEL", False))
    make_raw = module.raw_parallel_env if parallel else module.raw_env
    raw = make_raw(num_players=num_players, shuffle_seats=False, render_mode="ansi")
    me = raw.possible_agents[seat]
    others = [a for a in raw.possible_agents if a != me]
    policies = {a: make_policy(opponents[i % len(opponents)], env_name, num_players, seed=i) for i, a in enumerate(others)}
    seed = int(np.random.default_rng().integers(2**31)) if seed is None else seed
    if parallel:
        observations, _ = raw.reset(seed=seed)
    else:
        raw.reset(seed=seed)
    say(f"{env_name}: you are {me}; opponents: " + ", ".join(f"{a} ({policies[a].name})" for a in others))
    frames: list = []

    def snap() -> None:
        if replay is not None:
            if str(replay).lower().endswith(".gif"):
                from snack_envs.core.picture import draw_game

                frames.append(draw_game(raw.game, None, raw.seat_agents))
            else:
                frames.append(raw.game.render_text(names=raw.seat_agents))

    def save() -> None:
        if replay is not None:
            from training.replay import save_frames

            say(f"wrote {save_frames(frames, replay, f'{env_name}, seed {seed}: you are {me}')}")

    snap()
    while True:
        game = raw.game
        if game.game_over or (not parallel and raw.truncations[raw.agent_selection]) or (parallel and not raw.agents):
            break
        if parallel:
            say(raw.render(viewer=me))
            legal = list(np.flatnonzero(observations[me]["action_mask"]))
            mine = choose([int(a) for a in legal], raw.action_to_str, ask, say)
            if mine is None:
                save()
                return None
            actions = {me: mine}
            for a in others:
                actions[a] = policies[a].act(observations[a]["observation"], observations[a]["action_mask"])
            observations, *_ = raw.step(actions)
            snap()
            continue
        agent = raw.agent_selection
        obs = raw.observe(agent)
        if agent == me:
            say(raw.render(viewer=me))
            action = choose([int(a) for a in np.flatnonzero(obs["action_mask"])], raw.action_to_str, ask, say)
            if action is None:
                save()
                return None
        else:
            action = policies[agent].act(obs["observation"], obs["action_mask"])
            say(f"{agent} ({policies[agent].name}): {raw.action_to_str(action)}")
        raw.step(action)
        snap()
    say(raw.render(viewer=None))
    save()
    if not raw.game.game_over:
        say("the game was truncated at its length bound")
        return {"scores": None}
    scores = raw.game.scores()
    winners = [raw.possible_agents[s] for s in raw.game.winners()]
    say("winner(s): " + ", ".join(winners) + ("  -- that's you!" if me in winners else ""))
    return {"scores": scores, "winners": winners}


def main(argv=None) -> None:
    import snack_envs

    parser = argparse.ArgumentParser(description="Play a snack env in the terminal against agents.")
    parser.add_argument("env", choices=snack_envs.ENV_NAMES)
    parser.add_argument("--opponents", nargs="+", default=["heuristic"], help="random, heuristic or checkpoint paths")
    parser.add_argument("--num-players", type=int, default=2)
    parser.add_argument("--seat", type=int, default=0, help="your seat (0 starts)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--replay", default=None, help="write the game to this file: .gif pictures, else text")
    args = parser.parse_args(argv)
    try:
        play(args.env, args.opponents, args.num_players, args.seat, args.seed, replay=args.replay)
    except (EOFError, KeyboardInterrupt):
        print("\nbye")


if __name__ == "__main__":
    main()
