"""Shared test helpers: random legal play through the public APIs, and trajectory digests."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np

from snack_envs import specs


def env_module(name: str):
    return specs.get(name).entry_points()


def is_parallel(name: str) -> bool:
    return specs.get(name).simultaneous


def random_legal(mask: np.ndarray, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(mask)
    assert len(legal) > 0, "empty action mask for the agent to act"
    return int(legal[rng.integers(len(legal))])


def play_aec(env, seed: int, on_step=None, policy_seed: int | None = None) -> dict:
    """Play one game with random legal actions; calls on_step(env) after every live step."""
    rng = np.random.default_rng(seed if policy_seed is None else policy_seed)
    env.reset(seed=seed)
    totals = {a: 0.0 for a in env.possible_agents}
    steps = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        totals[agent] += reward
        if term or trunc:
            env.step(None)
            continue
        env.step(random_legal(obs["action_mask"], rng))
        steps += 1
        if on_step is not None:
            on_step(env)
    return {"rewards": totals, "steps": steps}


def play_parallel(env, seed: int, on_step=None) -> dict:
    rng = np.random.default_rng(seed)
    observations, _ = env.reset(seed=seed)
    totals = {a: 0.0 for a in env.possible_agents}
    steps = 0
    while env.agents:
        actions = {a: random_legal(observations[a]["action_mask"], rng) for a in env.agents}
        observations, rewards, terms, truncs, infos = env.step(actions)
        for a, r in rewards.items():
            totals[a] += r
        steps += 1
        if on_step is not None:
            on_step(env)
    return {"rewards": totals, "steps": steps}


def trajectory_digest(name: str, seed: int, **kwargs) -> str:
    """A hash of every observation, reward and action of one seeded random game."""
    module = env_module(name)
    digest = hashlib.sha256()
    if is_parallel(name):
        env = module.parallel_env(**kwargs)
        rng = np.random.default_rng(seed)
        observations, _ = env.reset(seed=seed)
        while env.agents:
            actions = {a: random_legal(observations[a]["action_mask"], rng) for a in env.agents}
            for a in sorted(observations):
                digest.update(observations[a]["observation"].tobytes() + observations[a]["action_mask"].tobytes())
            digest.update(repr(sorted(actions.items())).encode())
            observations, rewards, *_ = env.step(actions)
            digest.update(repr(sorted(rewards.items())).encode())
    else:
        env = module.env(**kwargs)
        rng = np.random.default_rng(seed)
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            digest.update(agent.encode() + obs["observation"].tobytes() + obs["action_mask"].tobytes())
            digest.update(repr((reward, term, trunc)).encode())
            env.step(None if term or trunc else random_legal(obs["action_mask"], rng))
    return digest.hexdigest()


def random_joint(env, observations: dict, rng: np.random.Generator) -> dict:
    """One random legal action for each live agent of a parallel env."""
    return {a: random_legal(observations[a]["action_mask"], rng) for a in env.agents}


def parallel_masked_seed_test(env_fn, num_cycles: int = 300) -> None:
    """PettingZoo's parallel_seed_test with masked action sampling (the stock one samples unmasked actions).

    Two envs reset with the same seed, and action spaces seeded alike, must
    give the same observations, masks, rewards, terminations, truncations and
    infos, tick for tick, until the end of the game or `num_cycles` ticks."""
    from gymnasium.utils.env_checker import data_equivalence

    env1, env2 = env_fn(), env_fn()
    obs1, info1 = env1.reset(seed=42)
    obs2, info2 = env2.reset(seed=42)
    assert data_equivalence(obs1, obs2) and data_equivalence(info1, info2), "reset differs"
    for i, agent in enumerate(env1.possible_agents):
        env1.action_space(agent).seed(42 + i)
        env2.action_space(agent).seed(42 + i)
    for _ in range(num_cycles):
        if not env1.agents:
            break
        actions1 = {a: env1.action_space(a).sample(obs1[a]["action_mask"]) for a in env1.agents}
        actions2 = {a: env2.action_space(a).sample(obs2[a]["action_mask"]) for a in env2.agents}
        assert data_equivalence(actions1, actions2), "masked sampling differs"
        out1, out2 = env1.step(actions1), env2.step(actions2)
        assert data_equivalence(out1, out2), "step results differ"
        obs1, obs2 = out1[0], out2[0]
    assert env1.agents == env2.agents


class Checked:
    """Wraps a policy and asserts that every action it picks is in the mask."""

    def __init__(self, policy):
        self.policy, self.name, self.decisions = policy, policy.name, 0

    def reset(self, seed=None):
        self.policy.reset(seed)

    def act(self, observation, action_mask):
        action = self.policy.act(observation, action_mask)
        assert isinstance(action, int) and action_mask[action] == 1, (action, np.flatnonzero(action_mask))
        self.decisions += 1
        return action


def play_first_legal(env, seed: int) -> tuple[bool, dict]:
    """Play one episode of a SingleAgentEnv taking the first legal action each step: (terminated, last info)."""
    env.reset(seed=seed)
    done = False
    while not done:
        _, _, terminated, truncated, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        done = terminated or truncated
    return terminated, info


def set_at(path: str, value):
    """An edit of a snapshot (a dict of dicts and lists): set the item at `path` ("game.state.white.0") to `value`."""

    def edit(snap: dict) -> None:
        *parents, last = path.split(".")
        node = snap
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value

    return edit


def combined(*edits):
    """One edit of a snapshot that makes each of `edits` (such as `set_at`'s) in turn."""

    def edit(snap: dict) -> None:
        for one in edits:
            one(snap)

    return edit


def snapshot_refused(game, edit, message: str) -> None:
    """`game.to_dict()` with `edit(state)` applied is refused by `from_dict`, a ConfigError matching `message`."""
    import pytest

    from snack_envs.core.game import ConfigError

    data = game.to_dict()
    edit(data["state"])
    with pytest.raises(ConfigError, match=message):
        type(game).from_dict(data)


def recipe_of(tmp_path: Path, *stages: str, top: str = "") -> Path:
    """A recipe over quickstart of the given stages (YAML flow mappings), with `top` keys shared by every stage."""
    path = tmp_path / "stages.yaml"
    path.write_text(f"extends: quickstart\n{top}stages:\n" + "".join(f"  - {stage}\n" for stage in stages))
    return path


def option_sets(game_class) -> list[dict]:
    """Option sets that reach every rule a game declares, derived from its `options` (no game named):
    the defaults and every combination of its on/off options (modules), then, with every on/off option
    on, each other value of each choice option, and each bound of each numeric option (a float's
    midpoint instead of its lowest value, which can make games very long)."""
    import itertools

    options = game_class.options
    switches = [name for name, opt in options.items() if isinstance(opt.default, bool)]
    sets = [dict(zip(switches, values)) for values in itertools.product((False, True), repeat=len(switches))]
    all_on = every_switch_on(game_class)
    for name, opt in options.items():
        if opt.choices is not None:
            sets += [{**all_on, name: value} for value in opt.choices if value != opt.default]
        elif not isinstance(opt.default, bool):
            values = (opt.low, opt.high) if isinstance(opt.default, int) else ((opt.low + opt.high) / 2,)
            sets += [{**all_on, name: value} for value in values if value != opt.default]
    return [{k: v for k, v in s.items() if v != options[k].default} for s in sets]


def every_switch_on(game_class) -> dict:
    """The game's on/off options (modules, variants) all on."""
    return {name: True for name, opt in game_class.options.items() if isinstance(opt.default, bool)}


def player_counts(name: str, most: int = 5) -> list[int]:
    game = specs.get(name).rules_class
    return list(range(game.min_players, min(game.max_players, most) + 1))


CHECKPOINTS = Path(__file__).resolve().parents[1] / "checkpoints"


def relabelled_checkpoint(folder: Path, game: str, counts: list[int]) -> Path:
    """A copy of the shipped `game` checkpoint in `folder`, its metadata saying it was trained for `counts`
    only (the weights fit any count: a game's observations are the same size at every count)."""
    path = folder / f"{game}_{'_'.join(map(str, counts))}p.zip"
    shutil.copyfile(CHECKPOINTS / f"{game}.zip", path)
    meta = json.loads((CHECKPOINTS / f"{game}.json").read_text())
    path.with_suffix(".json").write_text(json.dumps(dict(meta, num_players=counts[0], player_counts=counts)))
    return path


def run_main(module, argv: list[str], capsys) -> tuple[int | str | None, str, str]:
    """A command's `module.main(argv)` in this process: its exit code (0 when it returns), stdout and stderr."""
    try:
        module.main(argv)
        code = 0
    except SystemExit as stop:
        code = stop.code
    out, err = capsys.readouterr()
    return code, out, err
