"""Behaviour pinned across commits, and observations that never go stale, for every env and option set.

`golden_trajectories.json` holds, for each env, player count and option set
(`helpers.option_sets`: every module combination and every other value of each
option), the digest of seeded random games: observations, masks, rewards,
actions. A change of behaviour inside one env version fails here; DESIGN.md's
version rule then asks for a new env version, whose digests are new entries:

    python -m tests.test_trajectories --write            # adds missing entries, drops retired ones
    python -m tests.test_trajectories --write --replace  # also overwrites changed digests (a bug fix
                                                           # inside a version: say why in the commit)
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from snack_envs import specs
from tests.helpers import option_sets, player_counts, random_legal, trajectory_digest

GOLDEN = Path(__file__).with_name("golden_trajectories.json")
SEEDS = (0, 1)


def cases() -> list[tuple[str, int, dict]]:
    """(env name, player count, options): every option set, the player counts taken in turn."""
    out = []
    for spec in specs.SPECS:
        counts = player_counts(spec.env_name)
        for i, options in enumerate(option_sets(spec.rules_class)):
            out.append((spec.env_name, counts[i % len(counts)], options))
    return out


def case_id(case: tuple[str, int, dict]) -> str:
    env_name, n, options = case
    return f"{env_name} n={n} {json.dumps(options, sort_keys=True)}"


def digest(env_name: str, n: int, options: dict) -> str:
    parts = [trajectory_digest(env_name, seed, num_players=n, **options) for seed in SEEDS]
    return hashlib.sha256("".join(parts).encode()).hexdigest()


CASES = cases()


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_behaviour_is_pinned_within_an_env_version(case):
    golden = json.loads(GOLDEN.read_text())
    key = case_id(case)
    assert key in golden, f"no golden digest for {key}: run python -m tests.test_trajectories --write"
    assert digest(*case) == golden[key], (
        f"the behaviour of {key} changed inside {case[0]}: a change of observations, masks, rewards or rules "
        "needs a new env version (DESIGN.md), then python -m tests.test_trajectories --write"
    )


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_observations_equal_a_fresh_encoding_at_every_step(case):
    """Encoders may keep incremental caches; at every step of a whole game each agent's observation
    must equal what a brand-new encoder makes of a copy of the state."""
    env_name, n, options = case
    spec = specs.get(env_name)
    env = spec.raw_env(num_players=n, **options)
    rng = np.random.default_rng(7)

    def check() -> None:
        game = env.game
        fresh_game = type(game).from_dict(game.to_dict())
        encoder = spec.encoder_class(n, fresh_game.config)
        for agent in env.possible_agents:
            seat = env.agent_seats[agent]
            assert np.array_equal(env.observe(agent)["observation"], encoder.encode(fresh_game, seat)), (
                f"stale observation for {agent} at step {env.num_steps}"
            )

    if spec.simultaneous:
        observations, _ = env.reset(seed=7)
        check()
        while env.agents:
            observations, *_ = env.step({a: random_legal(observations[a]["action_mask"], rng) for a in env.agents})
            check()
    else:
        env.reset(seed=7)
        check()
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            env.step(random_legal(env.observe(env.agent_selection)["action_mask"], rng))
            check()
    assert env.game.game_over, "the game did not end: the check missed its last phases"


def write(replace: bool) -> None:
    golden = json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}
    fresh, changed = {}, []
    for case in CASES:
        key = case_id(case)
        fresh[key] = digest(*case)
        if key in golden and golden[key] != fresh[key] and not replace:
            changed.append(key)
            fresh[key] = golden[key]
    GOLDEN.write_text(json.dumps(fresh, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(fresh)} digests to {GOLDEN}")
    if changed:
        raise SystemExit("behaviour changed inside an env version (kept the old digests; bump the version, "
                         "or pass --replace for a bug fix):\n  " + "\n  ".join(changed))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Write the golden trajectory digests.")
    parser.add_argument("--write", action="store_true", required=True)
    parser.add_argument("--replace", action="store_true", help="overwrite digests that changed within a version")
    write(parser.parse_args().replace)
