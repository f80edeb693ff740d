"""The single-agent adapter, checkpoints, the evaluator, the config loader and a short training run."""

from __future__ import annotations

import json
import math
import warnings
from contextlib import nullcontext
from pathlib import Path

import numpy as np
import pytest

import snack_envs
from snack_envs import specs
from snack_envs.agents import RandomPolicy
from snack_envs.checkpoints import CheckpointError, env_facts, load_policy, save_checkpoint
from snack_envs.core.game import ConfigError, IllegalActionError
from snack_envs.single_agent import SingleAgentEnv
from snack_envs.training.config import load_config
from snack_envs.training.evaluate import fit_elo, head_to_head, tournament, wilson_interval

torch = pytest.importorskip("torch")
torch.set_num_threads(1)
ENVS = list(snack_envs.ENV_NAMES)
SIMULTANEOUS = [n for n in ENVS if specs.get(n).simultaneous]
ROOT = Path(__file__).resolve().parents[2]


class AlwaysLast:
    """Scripted agent: the highest legal action (in Snack Rabbits: always stop / take a die)."""

    name = "always_last"

    def reset(self, seed=None):
        pass

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[-1])


# --- the adapter ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ENVS)
def test_adapter_passes_gymnasium_and_sb3_checkers(name):
    from gymnasium.utils.env_checker import check_env as gym_check
    from stable_baselines3.common.env_checker import check_env as sb3_check

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gym_check(SingleAgentEnv(name, opponents=["random"]), skip_render_check=True)
        sb3_check(SingleAgentEnv(name, opponents=["random"]))


@pytest.mark.parametrize("name", ENVS)
def test_adapter_masks_match_the_env_and_rewards_are_the_learners(name):
    env = SingleAgentEnv(name, opponents=["random"])
    rng = np.random.default_rng(0)
    seats, opponent_ended, finished = set(), 0, 0
    for episode in range(30):
        obs, info = env.reset(seed=episode)
        seats.add(info["learner"])
        done = False
        while not done:
            mask = env.action_masks()
            raw_obs = env._observations[env.learner] if env.parallel else env.raw.observe(env.learner)
            assert np.array_equal(mask, raw_obs["action_mask"].astype(bool))
            assert np.array_equal(obs, raw_obs["observation"])
            action = int(rng.choice(np.flatnonzero(mask)))
            if not env.parallel:  # replay the learner's move on a copy: did it end the game itself?
                probe = env.raw.game.copy()
                probe.apply(action)
            obs, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
            if not done:
                assert reward == 0
        if terminated:
            finished += 1
            game, seat = env.raw.game, env.raw.agent_seats[env.learner]
            winners = game.winners()
            assert reward == (0.0 if len(winners) == game.num_players else 1.0 if seat in winners else -1.0)
            opponent_ended += not env.parallel and not probe.game_over
    assert len(seats) == env.num_players  # the learner's seat varies
    assert finished > 20
    if not env.parallel:
        assert 0 < opponent_ended < finished  # both the learner and the opponents ended games


@pytest.mark.parametrize("name", SIMULTANEOUS)
@pytest.mark.parametrize("reward", ["win", "round"])
def test_adapter_rewards_in_a_simultaneous_game_are_what_the_raw_env_gives_the_learner(name, reward):
    """Each episode's joint actions, replayed on a second raw env reset with the same seed: the learner's
    reward at every step is the reward that env gives the learner's agent."""
    env = SingleAgentEnv(name, opponents=["random"], reward=reward)
    episode_log = {}
    raw_reset, raw_step = env.raw.reset, env.raw.step

    def reset(seed=None, options=None):
        episode_log.update(seed=seed, joint_actions=[])
        return raw_reset(seed=seed, options=options)

    def step(actions):
        episode_log["joint_actions"].append(dict(actions))
        return raw_step(actions)

    env.raw.reset, env.raw.step = reset, step
    rng = np.random.default_rng(0)
    nonzero = 0
    for episode in range(4):
        env.reset(seed=episode)
        rewards, done = [], False
        while not done:
            _, r, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            rewards.append(r)
            done = terminated or truncated
        twin = specs.get(name).raw_env(reward=reward)
        twin.reset(seed=episode_log["seed"])
        assert rewards == [twin.step(actions)[1][env.learner] for actions in episode_log["joint_actions"]]
        nonzero += sum(r != 0 for r in rewards)
    assert nonzero > 0


def test_adapter_reward_when_an_opponents_move_ends_the_game():
    """Scripted: the learner stops, then the opponent clears the last space after Farmer Brown."""
    from snack_envs.snack_rabbits.components import FARMER_BROWN
    from snack_envs.snack_rabbits.rules import STOP

    env = SingleAgentEnv("snack_rabbits_v0", opponents=["heuristic"])
    env.reset(seed=1)
    game = env.raw.game
    learner_seat = env.raw.agent_seats[env.learner]
    tomato = 0  # card id 0 is a tomato (the first card of the table)
    game.deck = [c for c in range(63) if c != tomato]  # the unrevealed cards below Farmer Brown
    game.farmer_revealed = True
    game.fences = [[0] * 7 for _ in range(5)]
    game.fences[0][0] = 1  # one tomato behind fence 2
    game.collections = [[0] * 7, [0] * 7]
    game.white = [7, 7]
    game.white[learner_seat] = 0
    game.pool = 1
    game.current_player = learner_seat
    game.state_changed()
    assert game.invariant_violations() == [] and FARMER_BROWN not in game.deck
    for _ in range(10):  # the learner only stops (or takes a die); the opponent hops until it makes it
        stop = STOP if env.action_masks()[STOP] else int(np.flatnonzero(env.action_masks())[-1])
        obs, reward, terminated, truncated, info = env.step(stop)
        if terminated or truncated:
            break
    assert terminated and not truncated
    assert game.game_over and game.collections[1 - learner_seat][0] == 1  # the opponent hopped and took it
    assert reward == -1.0 and info["score"] == 0.0 and not info["winner"]


def test_adapter_illegal_actions_end_the_episode_or_raise():
    env = SingleAgentEnv("snack_rabbits_v0", opponents=["random"])
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert terminated and reward == -1.0 and info["illegal_action"]
    env = SingleAgentEnv("snack_rabbits_v0", opponents=["random"], illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    with pytest.raises(ConfigError):
        SingleAgentEnv("snack_rabbits_v0", illegal_action="ignore")


def test_adapter_is_deterministic_for_a_seed():
    def run():
        env = SingleAgentEnv("snack_rabbits_v0", opponents=["random", "heuristic"])
        obs, _ = env.reset(seed=5)
        trace = [obs.tobytes()]
        for _ in range(40):
            obs, reward, term, trunc, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
            trace.append(obs.tobytes() + repr(reward).encode())
            if term or trunc:
                obs, _ = env.reset()
        return trace

    assert run() == run()


def test_adapter_works_in_subproc_vec_env():
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import SubprocVecEnv

    vec = SubprocVecEnv([lambda: SingleAgentEnv("snack_rabbits_v0", opponents=["random"])] * 2)
    try:
        vec.reset()
        masks = get_action_masks(vec)
        assert masks.shape == (2, 49) and masks.any(axis=1).all()
    finally:
        vec.close()


# --- opponents ------------------------------------------------------------------------------
def test_opponent_mix_draws_by_weight_giving_self_to_the_heuristic_until_a_snapshot_exists():
    from snack_envs.opponents import OpponentMix

    mix = OpponentMix({"random": 1.0, "heuristic": 1.0, "self": 2.0})
    assert list(mix.probabilities()) == [0.25, 0.75, 0.0]
    rng = np.random.default_rng(0)
    draws = [mix.draw(rng) for _ in range(2000)]
    assert set(draws) == {"random", "heuristic"} and 0.2 < draws.count("random") / 2000 < 0.3
    mix = mix.with_snapshots(["a", "b", "c"], keep=2)
    assert mix.snapshots == ("b", "c") and list(mix.probabilities()) == [0.25, 0.25, 0.5]
    draws = [mix.draw(rng) for _ in range(2000)]
    assert set(draws) == {"random", "heuristic", "b", "c"} and 0.45 < (draws.count("b") + draws.count("c")) / 2000 < 0.55
    with pytest.raises(ValueError, match="must not all be 0"):
        OpponentMix({"random": 0, "heuristic": 0, "self": 0})


@pytest.mark.parametrize("weight", [-0.5, float("nan"), float("inf")])
def test_opponent_mix_refuses_a_weight_no_draw_could_use_when_it_is_built(weight):
    """A negative or NaN weight beside a positive one passed, to fail in numpy at the first draw."""
    from snack_envs.opponents import OpponentMix

    with pytest.raises(ValueError, match=r"must be finite and at least 0, not \{'heuristic': "):
        OpponentMix({"random": 1.0, "heuristic": weight})


@pytest.mark.parametrize("weights, message", [
    ({"random": 0.5, "heurstic": 0.5}, r"unknown opponent kind\(s\) \['heurstic'\]; the kinds are \['random', 'heuristic', 'self'\]"),
    ({"random": 1.0, "snapshot_every": 9}, r"unknown opponent kind\(s\) \['snapshot_every'\]"),
    ({"random": True}, r"the opponent weights must be numbers, not \{'random': True\}"),
    ({"self": "1", "random": 1}, r"the opponent weights must be numbers, not \{'self': '1'\}"),
    (["random"], r"must be a mapping of random, heuristic, self to weights, got \['random'\]"),
])
def test_opponent_mix_refuses_a_kind_or_weight_it_does_not_know_instead_of_weighing_it_0(weights, message):
    """A misspelt kind weighed 0 unseen (beside another kind it left that one alone), and "1" or True was cast."""
    from snack_envs.core.game import ConfigError
    from snack_envs.opponents import OpponentMix

    with pytest.raises(ConfigError, match=message):
        OpponentMix(weights)


@pytest.mark.parametrize("keep", [1.5, "2", True])
def test_opponent_mix_refuses_snapshots_given_as_a_string_or_a_keep_that_is_no_int(keep):
    from snack_envs.core.game import ConfigError
    from snack_envs.opponents import OpponentMix

    mix = OpponentMix({"self": 1.0})
    with pytest.raises(ConfigError, match="snapshots must be a sequence"):
        OpponentMix({"self": 1.0}, "main_v1")  # not seven snapshots, one per letter
    with pytest.raises(ConfigError, match="snapshots must be a sequence"):
        mix.with_snapshots("abc")
    with pytest.raises(ConfigError, match=f"keep={keep!r}: keep at least 1 snapshot"):
        mix.with_snapshots(["a", "b", "c"], keep=keep)


def test_opponent_mix_keeps_at_least_one_snapshot_or_all():
    """keep=0 kept every snapshot (`if keep`): it is refused; None keeps them all."""
    from snack_envs.opponents import OpponentMix

    mix = OpponentMix({"self": 1.0})
    assert mix.with_snapshots(["a", "b", "c"]).snapshots == ("a", "b", "c")
    assert mix.with_snapshots(["a", "b", "c"], keep=1).snapshots == ("c",)
    with pytest.raises(ValueError, match="keep=0: keep at least 1 snapshot"):
        mix.with_snapshots(["a", "b", "c"], keep=0)


def test_opponent_mix_draws_many_seats_at_once_by_the_same_weights():
    from snack_envs.opponents import KINDS, OpponentMix

    rng = np.random.default_rng(0)
    mix = OpponentMix({"random": 1.0, "heuristic": 1.0, "self": 2.0})
    kinds, snapshot = mix.draw_many(rng, 4000)
    assert set(kinds.tolist()) == {0, 1} and 0.2 < (kinds == 0).mean() < 0.3 and (snapshot == -1).all()
    kinds, snapshot = mix.with_snapshots(["a", "b"]).draw_many(rng, 4000)
    is_self = kinds == KINDS.index("self")
    assert 0.45 < is_self.mean() < 0.55 and (snapshot[~is_self] == -1).all()
    assert 0.45 < (snapshot[is_self] == 1).mean() < 0.55 and set(snapshot[is_self].tolist()) == {0, 1}


def test_sb3_self_play_env_draws_each_opponent_seat_on_its_own(tmp_path):
    from snack_envs.training.backends.sb3 import SelfPlayEnv

    config = load_config("snack_wars", ["env.num_players=3", "opponents.random=0.5", "opponents.heuristic=0.5",
                                        "opponents.self=0"])
    env = SelfPlayEnv(config)
    lineups = [tuple(sorted(env.reset(seed=seed)[1]["opponents"].values())) for seed in range(40)]
    assert {("heuristic", "random"), ("random", "random"), ("heuristic", "heuristic")} <= set(lineups)


# --- MaskablePPO smoke runs and checkpoints --------------------------------------------------
@pytest.mark.parametrize("name", ENVS)
def test_maskable_ppo_smoke_save_load_and_legal_predictions(name, tmp_path):
    from sb3_contrib import MaskablePPO

    env = SingleAgentEnv(name, opponents=["random"])
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [32]})
    model.learn(192)
    facts = env_facts(name, env.num_players)
    path = save_checkpoint(model, tmp_path / f"{name}.zip", {**facts, "env_options": {}, "timesteps": 192})
    assert path.exists() and path.with_suffix(".json").exists()
    assert not list(tmp_path.glob("*.partial*")) and not list(tmp_path.glob("*.tmp"))
    policy = load_policy(path, env_name=name)
    obs, _ = env.reset(seed=3)
    for _ in range(200):
        mask = env.action_masks()
        action = policy.act(obs, mask.astype(np.int8))
        assert mask[action], "a masked prediction chose an illegal action"
        obs, _, term, trunc, _ = env.step(action)
        if term or trunc:
            obs, _ = env.reset()
    other = next(n for n in ENVS if n != name)
    with pytest.raises(CheckpointError, match="trained on"):
        load_policy(path, env_name=other)


def test_a_checkpoint_save_that_fails_midway_leaves_the_last_one_whole_and_no_temporary_file(tmp_path):
    from sb3_contrib import MaskablePPO

    env = SingleAgentEnv("snack_rabbits_v0", opponents=["random"])
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, seed=0, device="cpu", policy_kwargs={"net_arch": [8]})
    meta = {**env_facts("snack_rabbits_v0", 2), "env_options": {}, "timesteps": 0}
    path = save_checkpoint(model, tmp_path / "agent.zip", meta)
    before = path.read_bytes(), path.with_suffix(".json").read_bytes()

    class DiskFull:
        def save(self, target):  # half a zip, then the error: into a path or an open file, as SB3 takes either
            with open(target, "wb") if isinstance(target, (str, Path)) else nullcontext(target) as f:
                f.write(before[0][:100])
            raise OSError("No space left on device")

    with pytest.raises(OSError, match="No space left"):
        save_checkpoint(DiskFull(), path, {**meta, "timesteps": 64})
    assert (path.read_bytes(), path.with_suffix(".json").read_bytes()) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agent.json", "agent.zip"]


def test_an_rllib_checkpoint_save_stopped_between_its_renames_keeps_a_whole_checkpoint_that_restore_puts_back(tmp_path, monkeypatch):
    import os

    from snack_envs.training.backends import rllib

    class Algorithm:  # what save_algorithm needs of an RLlib Algorithm
        def __init__(self, step):
            self.step = step

        def save_to_path(self, folder):
            Path(folder).mkdir()
            (Path(folder) / "weights").write_text(str(self.step))

    path = rllib.save_algorithm(Algorithm(1), tmp_path / "checkpoint")
    replace = os.replace

    def stop_before_the_second_rename(source, target):
        if Path(source).name == "checkpoint.partial":
            raise KeyboardInterrupt
        replace(source, target)

    monkeypatch.setattr(rllib.os, "replace", stop_before_the_second_rename)
    with pytest.raises(KeyboardInterrupt):
        rllib.save_algorithm(Algorithm(2), path)
    monkeypatch.setattr(rllib.os, "replace", replace)
    assert (tmp_path / "checkpoint.previous" / "weights").read_text() == "1"
    rllib.restore_algorithm(path)
    assert (path / "weights").read_text() == "1"
    rllib.save_algorithm(Algorithm(3), path)
    assert (path / "weights").read_text() == "3"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint"]


def test_grid_policy_scores_each_cell_action_at_its_cell_and_round_trips_through_a_checkpoint(tmp_path):
    """Snack Time's convolutional policy: each pipe/entrance logit is read at its own cell; it trains,
    saves, loads with load_policy and predicts legal actions; a game without a grid refuses it."""
    from sb3_contrib import MaskablePPO

    from snack_envs.checkpoints import env_facts
    from snack_envs.networks import GridExtractor, GridPolicy
    from snack_envs.snack_time.observation import GRID
    from snack_envs.snack_time.rules import ENTRANCE_BASE, NUM_PATTERNS, PIPE_BASE

    env = SingleAgentEnv("snack_time_v0", opponents=["random"])
    extractor = GridExtractor(env.observation_space, int(env.action_space.n), GRID)
    source = extractor.action_source.numpy()
    assert sorted(source) == list(range(env.action_space.n))  # every action has one logit
    cells = 64
    for cell in (0, 9, 63):  # cell outputs are laid out k-major: pipe pattern k of `cell` is k * 64 + cell
        assert [source[PIPE_BASE + cell * NUM_PATTERNS + k] for k in range(NUM_PATTERNS)] == [k * cells + cell for k in range(NUM_PATTERNS)]
        assert source[ENTRANCE_BASE + cell] == NUM_PATTERNS * cells + cell
    # Changing the map at one cell changes the pipe logits of its neighbour.
    torch.manual_seed(0)
    obs, _ = env.reset(seed=1)
    batch = torch.as_tensor(np.stack([obs, obs]))
    batch[1, 0:6] = torch.tensor([1.0, 1.0, 0.0, 0.0, 0.0, 1.0])  # cell 0 (A corner): an L pipe
    with torch.no_grad():
        logits = extractor(batch)[:, : env.action_space.n]
    changed = (logits[0] - logits[1]).abs() > 1e-6
    assert changed[PIPE_BASE + 1 * NUM_PATTERNS:PIPE_BASE + 2 * NUM_PATTERNS].any()

    model = MaskablePPO(GridPolicy, env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"grid": GRID, "channels": 8})
    model.learn(128)
    path = save_checkpoint(model, tmp_path / "grid.zip", {**env_facts("snack_time_v0", 2), "env_options": {}, "timesteps": 128})
    policy = load_policy(path, env_name="snack_time_v0")
    assert isinstance(policy.model.policy, GridPolicy)
    obs, _ = env.reset(seed=4)
    for _ in range(150):
        mask = env.action_masks()
        action = policy.act(obs, mask)
        assert mask[action], "a masked prediction chose an illegal action"
        obs, _, term, trunc, _ = env.step(action)
        if term or trunc:
            obs, _ = env.reset()
    with pytest.raises(ConfigError, match="needs a game played on a grid"):
        load_config("snack_wars", ["algo.policy=grid"])
    with pytest.raises(ConfigError, match="algo.policy"):
        load_config("snack_time", ["algo.policy=transformer"])
    from snack_envs.training.backends.rllib import build_config

    with pytest.raises(ConfigError, match="rllib backend builds MLPs only"):
        build_config(load_config("snack_time", ["algo.policy=grid"]))


def test_checkpoint_for_another_version_or_shape_is_refused(tmp_path):
    from sb3_contrib import MaskablePPO

    from snack_envs.checkpoints import env_facts

    env = SingleAgentEnv("snack_rabbits_v0", opponents=["random"])
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, n_epochs=1, device="cpu", policy_kwargs={"net_arch": [8]})
    facts = env_facts("snack_rabbits_v0", 2)
    path = save_checkpoint(model, tmp_path / "m.zip", {**facts, "env_options": {}})
    meta = json.loads(path.with_suffix(".json").read_text())
    for key, value in [("env_version", 99), ("observation_size", 3), ("num_actions", 7)]:
        path.with_suffix(".json").write_text(json.dumps(dict(meta, **{key: value})))
        with pytest.raises(CheckpointError, match=key):
            load_policy(path)
    path.with_suffix(".json").unlink()
    with pytest.raises(CheckpointError, match="metadata"):
        load_policy(path)


def test_a_stochastic_checkpoint_policy_replays_alike_for_a_seed(tmp_path):
    """Self-play snapshots sample their moves: from their own generator, reseeded by reset(seed)."""
    from sb3_contrib import MaskablePPO

    env = SingleAgentEnv("snack_wars_v0", opponents=["random"])
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, n_epochs=1, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [8]})
    path = save_checkpoint(model, tmp_path / "m.zip", {**env_facts("snack_wars_v0", 2), "env_options": {}})
    positions = []  # observations and masks of a few random games
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    while len(positions) < 60:
        mask = env.action_masks()
        positions.append((obs, mask.astype(np.int8)))
        obs, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if terminated or truncated:
            obs, _ = env.reset()
    assert sum(m.sum() > 1 for _, m in positions) > 30  # choices to make
    policy = load_policy(path, "snack_wars_v0", deterministic=False)

    def actions(seed, torch_seed):
        torch.manual_seed(torch_seed)  # the policy's draws must not depend on torch's global generator
        policy.reset(seed)
        return [policy.act(o, m) for o, m in positions]

    first = actions(7, torch_seed=0)
    assert actions(7, torch_seed=1) == first
    assert actions(8, torch_seed=0) != first
    assert all(m[a] for a, (_, m) in zip(first, positions))
    greedy = load_policy(path, "snack_wars_v0")
    greedy.reset(7)
    expected = [int(model.predict(o, action_masks=m.astype(bool), deterministic=True)[0]) for o, m in positions]
    assert [greedy.act(o, m) for o, m in positions] == expected


# --- the evaluator --------------------------------------------------------------------------
def test_wilson_interval_and_elo_known_values():
    lo, hi = wilson_interval(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    assert wilson_interval(0, 10)[0] == 0.0
    elo = fit_elo(["a", "b"], [{"hero": "a", "villain": "b", "win_rate": 0.75, "games": 100},
                               {"hero": "b", "villain": "a", "win_rate": 0.25, "games": 100}], anchor="b")
    assert elo["b"] == 1000 and elo["a"] - elo["b"] == pytest.approx(400 * math.log10(3), abs=1)


def test_elo_weighs_each_result_by_its_finished_games():
    """A win rate is over the finished games: a match's unfinished games carry no weight in the fit."""
    def ratings(a_vs_c: dict) -> dict:
        return fit_elo(["a", "b", "c"], [{"hero": "a", "villain": "b", "win_rate": 0.9, "games": 100},
                                         {"hero": "b", "villain": "c", "win_rate": 0.5, "games": 100},
                                         {"hero": "a", "villain": "c", "win_rate": 0.5, **a_vs_c}], anchor="c")

    assert ratings({"games": 400, "unfinished": 300}) == pytest.approx(ratings({"games": 100}))
    assert ratings({"games": 400}) != pytest.approx(ratings({"games": 100}))


def test_evaluator_on_scripted_agents_with_a_known_result():
    """An agent that only ever stops never holds a vegetable; random hops and wins every finished game."""
    result = head_to_head("snack_rabbits_v0", RandomPolicy(0), AlwaysLast(), games=20)
    assert result["wins"] + result["unfinished"] == 20 and result["losses"] == 0
    assert result["villain_mean_score_ci95"][0] == 0.0
    assert result["unfinished"] == 0


def test_tournament_table_files_and_symmetry(tmp_path):
    from snack_envs.training.evaluate import format_table, write_outputs

    results = tournament("snack_rabbits_v0", {"random": RandomPolicy(1), "stopper": AlwaysLast()}, games=10)
    rates = {(m["hero"], m["villain"]): m["win_rate"] for m in results["matches"]}
    assert rates[("random", "stopper")] == 1.0 and rates[("stopper", "random")] == 0.0
    assert results["agents"]["random"]["elo"] > results["agents"]["stopper"]["elo"]
    assert "random" in format_table(results)
    paths = write_outputs(results, tmp_path)
    assert all(p.exists() and p.stat().st_size > 0 for p in paths)
    assert paths[2].read_bytes()[:4] == b"\x89PNG"


# --- configs ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "overrides, message",
    [
        (["algo.lerning_rate=0.1"], "unknown config key 'algo.lerning_rate'"),
        (["n_envs=0"], "n_envs"),
        (["algo.gamma=1.5"], "algo.gamma"),
        (["vec_env=gpu"], "vec_env"),
        (["env.name=chess_v6"], "env.name"),
        (["env.num_players=9"], "num_players"),
        (["env.options={nonsense: 1}"], "nonsense"),
        (["algo.batch_size=100000"], "batch_size"),
        (["opponents.random=0", "opponents.heuristic=0", "opponents.self=0"], "weights"),
        (["timesteps"], "key.sub=value"),
    ],
)
def test_config_loader_rejects_bad_configs(overrides, message):
    with pytest.raises(ConfigError, match=message):
        load_config(None, overrides)


def test_every_shipped_config_loads(tmp_path):
    from snack_envs.training.config import CONFIG_DIR

    for path in CONFIG_DIR.glob("*.yaml"):
        config = load_config(path)
        assert config["env"]["name"] in snack_envs.ENV_NAMES
    assert load_config("snack_wars") == load_config(CONFIG_DIR / "snack_wars.yaml")  # by name, from any folder
    bad = tmp_path / "bad.yaml"
    bad.write_text("extends: null\nenv: {name: snack_rabbits_v0}\n")
    with pytest.raises(ConfigError, match="missing"):
        load_config(bad)


# --- a whole (tiny) training run, resumed --------------------------------------------------
def test_training_run_writes_checkpoint_curve_and_resumes(tmp_path):
    from snack_envs.training.backends.sb3 import train

    config = load_config(None, ["timesteps=256", "n_envs=2", "algo.n_steps=64", "algo.batch_size=64", "algo.n_epochs=1",
                                "algo.net_arch=[16]", "eval.every=128", "eval.games=4", "eval.final_games=6",
                                "opponents.snapshot_every=128", "imitation.games=4", "imitation.epochs=1"])
    run = tmp_path / "run"
    result = train(config, run)
    meta = json.loads((run / "final.json").read_text())
    assert meta["env_name"] == "snack_rabbits_v0" and meta["timesteps"] == result["timesteps"] >= 256
    assert set(meta["evaluation"]) == {"random", "heuristic"} and meta["evaluation"]["random"]["games"] == 6
    assert {"torch", "sb3_contrib", "snack_envs"} <= set(meta["library_versions"])
    assert meta["imitation"]["games"] == 4 and meta["imitation"]["samples"] > 4
    assert (run / "learning_curve.png").exists() and (run / "eval.csv").exists() and (run / "latest.zip").exists()
    assert list((run / "snapshots").glob("*.zip"))
    config["timesteps"] = 512
    config["algo"]["learning_rate"] = 1e-5  # a resumed run takes the edited config's settings
    config["env"]["reward"] = "margin"
    (run / "config.json").write_text(json.dumps(config))
    result = train(config, run, resume=True)
    assert result["timesteps"] >= 512
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(run / "final.zip", device="cpu")
    assert model.learning_rate == 1e-5 and model.lr_schedule(0.5) == pytest.approx(1e-5)


# --- init_from: a fresh run that starts from a checkpoint's weights -------------------------------
def test_init_from_starts_a_run_from_a_checkpoints_weights_and_refuses_one_that_does_not_fit(tmp_path):
    import torch
    from sb3_contrib import MaskablePPO

    from snack_envs.checkpoints import CheckpointError
    from snack_envs.training.backends.sb3 import make_vec_env, start_from

    shipped = Path(__file__).resolve().parents[2] / "checkpoints" / "snack_rabbits_v0.zip"
    config = load_config("snack_rabbits", ["n_envs=1", "algo.n_steps=64", "algo.batch_size=64", f"init_from={shipped}"])

    def fresh(net_arch, cfg=config):
        vec = make_vec_env(cfg, tmp_path)
        return MaskablePPO("MlpPolicy", vec, device="cpu", policy_kwargs={"net_arch": net_arch}, n_steps=64, batch_size=64)

    model = fresh(config["algo"]["net_arch"])
    lineage = start_from(model, shipped, config)
    parent = json.loads(shipped.with_suffix(".json").read_text())
    # named by its path in the repository, not the absolute path it was given by
    assert lineage[:-1] == parent.get("lineage", []) and lineage[-1]["checkpoint"] == "checkpoints/snack_rabbits_v0.zip"
    assert (lineage[-1]["timesteps"], lineage[-1]["wall_time_s"]) == (parent["timesteps"], parent["wall_time_s"])
    from snack_envs.training.run import checkpoint_metadata

    meta = checkpoint_metadata(config, 1000, {"started": 0.0, "wall_time_before": 0.0, "lineage": lineage})
    assert meta["lineage_timesteps"] == 1000 + parent["lineage_timesteps"] and meta["lineage"] == lineage
    saved = MaskablePPO.load(shipped, device="cpu").policy.state_dict()
    assert all(torch.equal(saved[k], v) for k, v in model.policy.state_dict().items())
    with pytest.raises(CheckpointError, match="network does not match"):
        start_from(fresh([16]), shipped, config)
    wars = load_config("snack_wars", ["n_envs=1", "algo.n_steps=64", "algo.batch_size=64"])
    with pytest.raises(CheckpointError, match="trained on snack_rabbits_v0"):
        start_from(fresh([16], wars), shipped, wars)


# --- imitation: cloning the heuristic before PPO --------------------------------------------------
def test_imitation_clones_the_heuristic_into_a_fresh_policy(tmp_path):
    from sb3_contrib import MaskablePPO

    from snack_envs.training.backends.sb3 import SelfPlayEnv, make_vec_env
    from snack_envs.training.imitate import clone, collect

    config = load_config("snack_wars", ["n_envs=1", "algo.n_steps=64", "algo.batch_size=64", "opponents.self=0"])
    data = collect(SelfPlayEnv(config), config, games=60, seed=1)
    n = len(data["actions"])
    assert n > 60 * 8 and data["masks"][np.arange(n), data["actions"]].all()  # the teacher's actions, all legal
    assert set(np.unique(np.sign(data["returns"]))) <= {-1.0, 0.0, 1.0}
    model = MaskablePPO("MlpPolicy", make_vec_env(config, tmp_path), device="cpu", seed=0,
                        policy_kwargs={"net_arch": [64]}, n_steps=64, batch_size=64)
    held_out = collect(SelfPlayEnv(config), config, games=20, seed=999)

    def agreement():
        predicted, _ = model.predict(held_out["observations"], action_masks=held_out["masks"], deterministic=True)
        return float((predicted == held_out["actions"]).mean())

    before = agreement()
    stats = clone(model, data, epochs=30)
    assert stats["samples"] == n and stats["accuracy"] > 0.7
    assert agreement() > max(0.6, before + 0.2)  # it generalises to games it did not see


def test_a_dagger_round_plays_the_students_moves_and_labels_each_state_with_the_heuristics_choice():
    """DAgger's data: the student's own games (replaying its actions from the same seeds gives the same
    observations), every state labelled with what the heuristic plays there, and each game's final reward."""
    from snack_envs.agents import heuristic_policy
    from snack_envs.training.backends.sb3 import SelfPlayEnv
    from snack_envs.training.imitate import agreement, collect

    config = load_config("snack_wars", ["n_envs=1", "algo.n_steps=64", "algo.batch_size=64", "opponents.self=0"])
    games, seed = 4, 11
    data = collect(SelfPlayEnv(config), config, games=games, seed=seed, student=RandomPolicy(seed=3))
    n = len(data["actions"])
    teacher = heuristic_policy("snack_wars_v0", 2)
    assert [teacher.act(obs, mask) for obs, mask in zip(data["observations"], data["masks"])] == data["actions"].tolist()
    assert data["masks"][np.arange(n), data["played"]].all()
    assert 0.0 < agreement(data) < 0.8  # a random student: its moves are not the heuristic's
    assert agreement(data) == pytest.approx(float((data["played"] == data["actions"]).mean()))

    env, t, finals = SelfPlayEnv(config), 0, []
    for game in range(games):  # the states are those the student's moves led to
        obs, _ = env.reset(seed=seed + game)
        done = False
        while not done:
            assert np.array_equal(obs, data["observations"][t])
            obs, reward, terminated, truncated, _ = env.step(int(data["played"][t]))
            done, t = terminated or truncated, t + 1
        finals.append(reward)
    assert t == n and data["finals"].tolist() == finals


def test_dagger_rounds_refit_the_clone_on_all_the_samples_so_far_and_report_its_progress(tmp_path, capsys):
    from snack_envs.training.backends.sb3 import train

    run = tmp_path / "dagger"
    train(load_config("snack_wars", ["timesteps=64", "n_envs=1", "algo.n_steps=64", "algo.batch_size=64",
                                     "eval.every=1000000", "eval.games=2", "eval.final_games=2", "algo.net_arch=[32]",
                                     "imitation.games=6", "imitation.epochs=2", "imitation.dagger_rounds=2",
                                     "imitation.dagger_games=3", "imitation.dagger_epochs=1"]), run)
    stats = json.loads((run / "final.json").read_text())["imitation"]
    rounds = stats["dagger"]
    assert [r["round"] for r in rounds] == [1, 2] and all(r["games"] == 3 for r in rounds)
    assert stats["samples"] < rounds[0]["samples"] < rounds[1]["samples"]  # each round adds its samples to the rest
    per_game = stats["samples"] / 6
    assert 0.5 * per_game < (rounds[1]["samples"] - rounds[0]["samples"]) / 3 < 2 * per_game
    assert all(0.0 <= r["agreement"] <= 1.0 and 0.0 <= r["accuracy"] <= 1.0 for r in rounds)
    assert "DAgger round 2: the clone agreed with the heuristic on" in capsys.readouterr().out


def test_the_search_teacher_labels_each_state_with_the_searchs_best_actions():
    """`imitation.teacher: search`: every label is the search's (the first of its set of equally best
    actions, from the game the learner sees), which is not always the heuristic's choice; its games
    replay alike from the same seed."""
    from snack_envs.agents import heuristic_policy
    from snack_envs.search import SearchPolicy
    from snack_envs.training.backends.sb3 import SelfPlayEnv
    from snack_envs.training.imitate import collect

    config = load_config("snack_wars", ["n_envs=1", "algo.n_steps=64", "algo.batch_size=64", "opponents.self=0",
                                        "opponents.random=0", "imitation.teacher=search"])
    data = collect(SelfPlayEnv(config), config, games=6, seed=2, student=RandomPolicy(seed=1))
    n = len(data["actions"])
    targets = data["targets"]
    assert targets[np.arange(n), data["actions"]].all() and not (targets & ~data["masks"]).any()
    assert (np.argmax(targets, 1) == data["actions"]).all()
    heuristic = heuristic_policy("snack_wars_v0", 2)
    theirs = np.array([heuristic.act(obs, mask) for obs, mask in zip(data["observations"], data["masks"])])
    choices = data["masks"].sum(1) > 1
    assert 0.3 < (theirs == data["actions"])[choices].mean() < 0.95  # the search's labels, not the heuristic's
    again = collect(SelfPlayEnv(config), config, games=6, seed=2, student=RandomPolicy(seed=1))
    assert np.array_equal(again["actions"], data["actions"])

    env = SelfPlayEnv(config)  # a label is the search's choice in the learner's game (seeded as collect seeds it)
    env.reset(seed=2)
    search = SearchPolicy("snack_wars_v0", 2, seed=2)
    assert data["actions"][0] == search.act_game(env.raw.game, env.raw.agent_seats[env.learner])


def test_collecting_in_workers_gives_the_samples_one_process_gives():
    """`imitation.workers`: the games split into parts (games 0-1, 2, 3-4) played by 2 processes, the student
    sent as its saved model: the same samples in the same order as collecting them in this process."""
    from functools import partial

    from sb3_contrib import MaskablePPO

    from snack_envs.checkpoints import CheckpointPolicy
    from snack_envs.training.backends.sb3 import SelfPlayEnv
    from snack_envs.training.imitate import collect, collect_parts, concatenate

    config = load_config("snack_wars", ["n_envs=1", "algo.n_steps=64", "algo.batch_size=64", "opponents.self=0"])
    student = CheckpointPolicy(MaskablePPO.load(ROOT / "checkpoints" / "snack_wars_v0.zip", device="cpu"), "student")
    alone = collect(SelfPlayEnv(config, 2), config, 5, seed=3, student=student)
    parts = [(2, 3), (1, 5), (2, 6)]  # (games, seed of the first)
    split = concatenate(list(collect_parts(partial(SelfPlayEnv, config), 2, config, parts, student=student, workers=2)))
    assert alone.keys() == split.keys() and len(alone["actions"]) > 20
    for key in alone:
        assert np.array_equal(alone[key], split[key]), key


def test_search_dagger_refines_a_checkpoint_without_ppo(tmp_path, capsys):
    """Expert iteration's step as a run: `init_from` a checkpoint, `imitation: {teacher: search, games: 0,
    dagger_rounds: 1}` (the checkpoint plays, the search labels, it is refitted) and `timesteps: 0` (no
    PPO after it): the run's final weights are the refitted ones, its stats say what it did."""
    import torch
    from sb3_contrib import MaskablePPO

    from snack_envs.training.backends.sb3 import train

    shipped = ROOT / "checkpoints" / "snack_wars_v0.zip"
    run = tmp_path / "refine"
    train(load_config("snack_wars", ["timesteps=0", f"init_from={shipped}", "n_envs=1", "algo.n_steps=64",
                                     "algo.batch_size=64", "eval.games=2", "eval.final_games=2",
                                     "imitation.teacher=search", "imitation.games=0", "imitation.dagger_rounds=1",
                                     "imitation.dagger_games=3", "imitation.dagger_epochs=1", "imitation.workers=2"]), run)
    stats = json.loads((run / "final.json").read_text())
    assert stats["timesteps"] == 0
    imitation = stats["imitation"]
    assert imitation["games"] == 0 and [r["games"] for r in imitation["dagger"]] == [3]
    assert 20 < imitation["dagger"][0]["samples"] < 60
    assert "DAgger round 1: the clone agreed with the search on" in capsys.readouterr().out
    before = MaskablePPO.load(shipped, device="cpu").policy.state_dict()
    after = MaskablePPO.load(run / "final.zip", device="cpu").policy.state_dict()
    assert any(not torch.equal(before[k], after[k]) for k in before)


def test_imitation_fits_the_set_of_equally_best_actions_when_the_heuristic_gives_it():
    """Snack Time's heuristic rates several pipe placements equally best; the samples carry that set
    (the played action first among them) and cloning counts a prediction anywhere in it as right."""
    import torch
    from sb3_contrib import MaskablePPO

    from snack_envs.agents import heuristic_policy
    from snack_envs.networks import GridPolicy
    from snack_envs.snack_time.observation import GRID
    from snack_envs.training.backends.sb3 import SelfPlayEnv
    from snack_envs.training.imitate import clone, collect

    config = load_config("snack_time", ["n_envs=1", "algo.n_steps=64", "algo.batch_size=64"])
    data = collect(SelfPlayEnv(config), config, games=3, seed=5)
    n = len(data["actions"])
    targets = data["targets"]
    assert targets[np.arange(n), data["actions"]].all() and not (targets & ~data["masks"]).any()
    assert (np.argmax(targets, 1) == data["actions"]).all()  # the heuristic plays the first of its set
    assert (targets.sum(1) > 1).mean() > 0.3
    teacher = heuristic_policy("snack_time_v0", 2)
    for obs, mask, action in list(zip(data["observations"], data["masks"], data["actions"]))[:40]:
        assert teacher.act(obs, mask) == action
    model = MaskablePPO(GridPolicy, SingleAgentEnv("snack_time_v0", opponents=["random"]), n_steps=64, batch_size=64,
                        device="cpu", seed=0, policy_kwargs={"grid": GRID, "channels": 8})
    with torch.no_grad():
        probs = model.policy.get_distribution(torch.as_tensor(data["observations"]),
                                              action_masks=torch.as_tensor(data["masks"])).distribution.probs
    predicted = probs.argmax(1).numpy()
    in_set = targets[np.arange(n), predicted]
    stats = clone(model, data, epochs=1, lr=0.0)  # no update: the statistics of the policy as it is
    assert stats["accuracy"] == pytest.approx(in_set.mean())
    expected = -np.log((probs.numpy() * targets).sum(1)).mean()  # the set's total probability
    values = model.policy.predict_values(torch.as_tensor(data["observations"])).detach().numpy().ravel()
    expected += 0.5 * np.mean((values - data["returns"]) ** 2)
    assert stats["loss"] == pytest.approx(expected, rel=1e-3)


def test_adapter_opponents_that_play_from_the_game_move_as_they_choose():
    """"lookahead" plays from the rules engine (`act_game`), not from an observation: the adapter asks it so."""
    from snack_envs.lookahead import LookaheadPolicy

    env = SingleAgentEnv("snack_wars_v0", opponents=["lookahead"], num_players=3)
    rng = np.random.default_rng(0)
    chosen = []
    real_act_game = LookaheadPolicy.act_game

    def recording_act_game(self, game, seat):
        chosen.append((seat, real_act_game(self, game, seat)))
        return chosen[-1][1]

    LookaheadPolicy.act_game = recording_act_game
    try:
        env.reset(seed=3)
        done = False
        while not done:
            _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            done = terminated or truncated
    finally:
        LookaheadPolicy.act_game = real_act_game
    assert len(chosen) > 5 and all(seat != env.raw.agent_seats[env.learner] for seat, _ in chosen)


def test_a_stop_while_a_part_is_saved_ends_the_imitation_workers_at_once(tmp_path, monkeypatch):
    """Ctrl-C while the parent saves a part the workers played: the pool's processes end before the stop
    leaves `Progress.samples`, not whenever the suspended generator happens to be collected."""
    import multiprocessing
    from functools import partial

    from snack_envs.training import imitate
    from snack_envs.training.backends.sb3 import SelfPlayEnv

    config = load_config("snack_wars", ["n_envs=1", "algo.n_steps=64", "algo.batch_size=64", "opponents.self=0"])
    progress = imitate.Progress(tmp_path, config)
    monkeypatch.setattr(imitate, "PART_GAMES", 2)

    def stop(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(imitate, "write_atomic", stop)

    def play_parts(parts):
        return imitate.collect_parts(partial(SelfPlayEnv, config), 2, config, parts, workers=2)

    with pytest.raises(KeyboardInterrupt) as stopped:
        progress.samples("clone-2p", 2 * imitate.PART_GAMES, seed=0, play=play_parts)
    assert stopped.value is not None  # the traceback, and with it the samples' frame, is still held here
    assert multiprocessing.active_children() == []
    assert list(tmp_path.glob("*.npz")) == []


def test_an_imitation_worker_hands_back_a_file_not_its_samples(tmp_path):
    """A worker's reply through the pool's result pipe is a path, short enough to be written whole (under
    PIPE_BUF): one terminated while sending megabytes of samples left half a message there, on which the
    pool's terminate() then waited for ever (a rare hang on Ctrl-C). The file holds the part's samples."""
    import pickle
    from functools import partial

    from snack_envs.training import imitate
    from snack_envs.training.backends.sb3 import SelfPlayEnv

    config = load_config("snack_wars", ["n_envs=1", "algo.n_steps=64", "algo.batch_size=64", "opponents.self=0"])
    out = str(tmp_path / "part0.npz")
    reply = imitate._collect_part((partial(SelfPlayEnv, config), 2, config, 2, 3, None, out))
    assert reply == out and len(pickle.dumps(reply)) < 4096
    alone = imitate.collect(SelfPlayEnv(config, 2), config, 2, seed=3)
    with np.load(out) as saved:
        assert sorted(saved.files) == sorted(alone) and len(alone["actions"]) > 10
        for key in alone:
            assert np.array_equal(saved[key], alone[key]), key
