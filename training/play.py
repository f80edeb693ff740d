"""Play any snack env in the terminal against agents.

    snack-play snack_rabbits_v0 --opponents heuristic [--num-players 3] [--seat 0] [--seed 7] [--replay game.gif]

The table is drawn from your seat (what you may see, nothing more); you choose
from the legal actions, each shown with its number and description. Type the
number, or `q` to quit. `--replay PATH` writes the game, as the spectator sees it,
to PATH when it ends: a GIF for a .gif path (needs Pillow), an MP4 for a .mp4 path (needs the
`render` extra), else a text log.
"""

from __future__ import annotations

if __name__ == "__main__":  # python -m: enter as the console script does, before the imports below,
    from snack_envs.training.cli import snack_play  # so that a missing extra is one line, not a traceback

    raise SystemExit(snack_play())

from typing import Callable

import numpy as np

from snack_envs import specs
from snack_envs.agents import make_policy
from snack_envs.core.rollout import play as play_episode
from snack_envs.training.cli import ArgumentParser, UsageError, command, env_name, nonnegative_int, positive_int
from snack_envs.training.replay import Replay


class Quit(Exception):
    """The person at the terminal chose to stop the game."""


def choose(actions: list[int], describe: Callable[[int], str], ask: Callable[[str], str], say: Callable[[str], None]) -> int | None:
    for a in actions:
        say(f"  [{a}] {describe(a)}")
    while True:
        answer = ask("your action> ").strip()
        if answer.lower() in ("q", "quit", "exit"):
            return None
        if answer.isascii() and answer.isdigit() and int(answer) in actions:  # isdigit alone takes "²"
            return int(answer)
        say(f"  '{answer}' is not one of the legal actions listed")


class Human:
    """A policy played at the terminal: shows the table from its seat and asks for one of the legal actions;
    raises Quit when the person quits."""

    name = "you"

    def __init__(self, env, agent: str, ask: Callable[[str], str], say: Callable[[str], None]):
        self.env, self.agent, self.ask, self.say = env, agent, ask, say

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        self.say(self.env.render(viewer=self.agent))
        action = choose([int(a) for a in np.flatnonzero(action_mask)], self.env.action_to_str, self.ask, self.say)
        if action is None:
            raise Quit
        return action


def play(env_name: str, opponents: list[str], num_players: int = 2, seat: int = 0, seed: int | None = None,
         ask: Callable[[str], str] = input, say: Callable[[str], None] = print, replay=None) -> dict | None:
    """One game with a person in `seat`; returns the final scores, or None if the person quit.
    `replay`: a path to write the game to (see the module docstring), also when the person quits."""
    spec = specs.get(env_name)
    raw = spec.raw_env(num_players=num_players, shuffle_seats=False, render_mode="ansi")
    if not 0 <= seat < len(raw.possible_agents):
        raise UsageError(f"there is no seat {seat}: {env_name} with {len(raw.possible_agents)} players has seats 0 to "
                         f"{len(raw.possible_agents) - 1}")
    me = raw.possible_agents[seat]
    others = [a for a in raw.possible_agents if a != me]
    if not others and opponents:
        raise UsageError(f"{env_name} with 1 player is played solo: drop --opponents")
    if others and len(opponents) not in (1, len(others)):
        raise UsageError(f"{len(opponents)} opponents for {len(others)} other seat{'s' if len(others) > 1 else ''}: "
                         f"give one per other seat, or a single one that plays them all")
    policies = {a: make_policy(opponents[i % len(opponents)], env_name, num_players, seed=i) for i, a in enumerate(others)}
    seed = int(np.random.default_rng().integers(2**31)) if seed is None else seed
    say(f"{env_name}: you are {me}; " + ("opponents: " + ", ".join(f"{a} ({policies[a].name})" for a in others)
                                         if others else "solo"))
    recording = Replay(replay) if replay is not None else None

    def watch(env, actions) -> None:
        if not spec.simultaneous:  # a turn-based game tells what each opponent did
            for agent, action in (actions or {}).items():
                if agent != me:
                    say(f"{agent} ({policies[agent].name}): {env.action_to_str(action)}")
        if recording is not None:
            recording.snap(env)

    def save() -> None:
        if recording is not None:
            say(f"wrote {recording.save(f'{env_name}, seed {seed}: you are {me}')}")

    try:
        result = play_episode(raw, {**policies, me: Human(raw, me, ask, say)}, seed=seed, watch=watch)
    except Quit:
        save()
        return None
    except (EOFError, KeyboardInterrupt):  # the input closed (Ctrl-D) or Ctrl-C: a quit too, so the game is written
        save()
        raise
    say(raw.render(viewer=None))
    save()
    if not result["finished"]:
        say("the game was truncated at its length bound")
        return {"scores": None}
    winners = [raw.possible_agents[s] for s in result["winners"]]
    say("winner(s): " + ", ".join(winners) + ("  -- that's you!" if me in winners else ""))
    return {"scores": result["scores"], "winners": winners}


@command("snack-play")
def main(argv=None) -> None:
    parser = ArgumentParser(prog="snack-play", description="Play a snack env in the terminal against agents.")
    parser.add_argument("env", type=env_name, help=f"one of {', '.join(specs.ENV_NAMES)}")
    parser.add_argument("--opponents", nargs="+", default=None,
                        help="one per other seat, or a single one that plays them all (default: heuristic): random, heuristic, "
                             "lookahead, search (Snack Time, Snack Wars) or checkpoint paths")
    parser.add_argument("--num-players", type=positive_int, default=2)
    parser.add_argument("--seat", type=int, default=0, help="your seat (0 starts)")
    parser.add_argument("--seed", type=nonnegative_int, default=None)
    parser.add_argument("--replay", default=None, help="write the game to this file: .gif or .mp4 pictures, else text")
    args = parser.parse_args(argv)
    try:
        default = [] if args.num_players == 1 else ["heuristic"]  # a solo game has no opponent
        opponents = default if args.opponents is None else args.opponents
        play(args.env, opponents, args.num_players, args.seat, args.seed, replay=args.replay)
    except (EOFError, KeyboardInterrupt):
        print("\nbye")
