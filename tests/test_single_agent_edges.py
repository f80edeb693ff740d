"""Edges of the single-agent Gymnasium view (`snack_envs.single_agent.SingleAgentEnv`) that the adapter,
registry and bad-input tests leave open. A mutation probe of `single_agent.py` and `snack_envs/opponents.py`
found them: each test here fails on a mutant of `single_agent.py` that the rest of the suite let through
(`OpponentMix` had no such gap), except the one for a bare policy object, documented and untested.

Checked through the public API only: step() before reset() and after the end (illegal action, last move,
max_steps cut), seeds (every seed its own deal, each opponent its own seed, -1 is not the last action),
who the opponents are (one policy object, an empty pool, a sampler alone), and render_mode, metadata and
close()."""

from __future__ import annotations

import re

import numpy as np
import pytest

from snack_envs.agents import RandomPolicy
from snack_envs.core.game import ConfigError, IllegalActionError
from snack_envs.single_agent import SingleAgentEnv
from tests.helpers import play_first_legal, random_legal

TURN_BASED, SIMULTANEOUS = "snack_rabbits_v0", "speed_snacks_v1"


def first_legal(env) -> int:
    return int(np.flatnonzero(env.action_masks())[0])


# --- step() before reset() and after the end -------------------------------------------------------------
@pytest.mark.parametrize("name", [TURN_BASED, SIMULTANEOUS])
def test_step_before_the_first_reset_says_to_call_reset(name):
    env = SingleAgentEnv(name, opponents=["random"])
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        env.step(0)


def test_step_after_the_last_step_says_to_call_reset_and_a_reset_plays_on():
    env = SingleAgentEnv(TURN_BASED, opponents=["random"])
    terminated, _ = play_first_legal(env, seed=0)
    assert terminated
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        env.step(0)
    env.reset(seed=1)
    env.step(first_legal(env))  # no error: a reset starts the next episode


@pytest.mark.parametrize("name", [TURN_BASED, SIMULTANEOUS])
def test_step_after_an_illegal_action_ended_the_episode_says_to_call_reset(name):
    env = SingleAgentEnv(name, opponents=["random"])
    _, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    assert env.step(illegal)[2]
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        env.step(illegal)


def test_a_simultaneous_game_cut_by_max_steps_is_truncated_then_over():
    env = SingleAgentEnv(SIMULTANEOUS, opponents=["random"], max_steps=3)
    env.reset(seed=0)
    ends = [env.step(first_legal(env))[2:4] for _ in range(3)]
    assert ends == [(False, False), (False, False), (False, True)]
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        env.step(0)


# --- seeds ----------------------------------------------------------------------------------------------
def test_every_seed_deals_a_game_of_its_own():
    """With a deterministic opponent, the learner's first observation in a seat differs between seeds only
    through the deal: 120 seeds, 120 deals (a narrow range of game seeds would repeat some)."""
    env = SingleAgentEnv("snack_wars_v0", opponents=["heuristic"])
    first, episodes = {}, {}
    for seed in range(120):
        obs, info = env.reset(seed=seed)
        first.setdefault(info["learner"], set()).add(obs.tobytes())
        episodes[info["learner"]] = episodes.get(info["learner"], 0) + 1
    assert {seat: len(seen) for seat, seen in first.items()} == episodes


class SeedRecorder(RandomPolicy):
    """A random opponent that keeps the seeds it is reset with."""

    def __init__(self):
        super().__init__()
        self.seeds = []

    def reset(self, seed=None):
        self.seeds.append(seed)
        super().reset(seed)


def test_each_opponent_is_reset_with_a_seed_of_its_own_from_the_episodes_seed():
    def seeds_given(episodes: int) -> list:
        recorder = SeedRecorder()
        env = SingleAgentEnv("snack_wars_v0", opponents=[recorder], num_players=3)
        for seed in range(episodes):
            env.reset(seed=seed)
        return recorder.seeds

    seeds = seeds_given(30)
    assert len(seeds) == 60 and all(isinstance(s, int) for s in seeds)
    assert len(set(seeds)) == 60, "two seats or two episodes share an opponent seed"
    assert seeds_given(30) == seeds


def play_until_the_last_action_is_legal(env) -> None:
    """Random legal moves (episodes from seeds 0, 1, ...) until the learner may take the last action: in
    about one episode in eight, so 200 episodes find it whatever the seeds deal."""
    rng = np.random.default_rng(0)
    for seed in range(200):
        env.reset(seed=seed)
        done = False
        while not done:
            if env.action_masks()[-1]:
                return
            done = any(env.step(random_legal(env.action_masks(), rng))[2:4])
    pytest.fail("the last action was never legal in 200 episodes")


def test_a_negative_or_too_large_action_is_illegal_even_where_the_last_action_is_legal():
    """-1 must not index the mask from the end: in a 4-player Snack Rabbits the last action (take from the
    player three seats to the left) becomes legal, and step(-1) still ends the episode as illegal."""
    env = SingleAgentEnv(TURN_BASED, opponents=["random"], num_players=4, illegal_action="raise")
    play_until_the_last_action_is_legal(env)
    for bad in (-1, env.action_space.n):
        with pytest.raises(IllegalActionError, match=f"action {bad} is not legal"):
            env.step(bad)
    assert env.action_masks()[-1]  # refused, nothing changed
    env = SingleAgentEnv(TURN_BASED, opponents=["random"], num_players=4)
    play_until_the_last_action_is_legal(env)
    _, reward, terminated, truncated, info = env.step(-1)
    assert (reward, terminated, truncated, info.get("illegal_action")) == (-1.0, True, False, True)


# --- who the opponents are -------------------------------------------------------------------------------
def test_one_policy_object_is_a_pool_of_one():
    policy = RandomPolicy(0)
    env = SingleAgentEnv(TURN_BASED, opponents=policy)
    _, info = env.reset(seed=0)
    assert info["opponents"] == {a: "random" for a in env.raw.possible_agents if a != info["learner"]}
    assert all(p is policy for p in env.opponents.values())


def test_no_opponent_and_no_sampler_is_a_config_error_but_a_sampler_alone_will_do():
    with pytest.raises(ConfigError, match="at least one opponent"):
        SingleAgentEnv(TURN_BASED, opponents=[])
    drawn = []

    def sampler(rng):
        drawn.append(rng)
        return RandomPolicy()

    env = SingleAgentEnv("snack_wars_v0", opponents=[], opponent_sampler=sampler, num_players=3)
    _, info = env.reset(seed=0)
    assert len(drawn) == 2 and set(info["opponents"].values()) == {"random"}
    play_first_legal(env, seed=1)


# --- rendering -------------------------------------------------------------------------------------------
def test_the_render_mode_is_kept_and_the_metadata_are_the_raw_envs():
    """Gymnasium's wrappers read `render_mode` and `metadata` (RecordVideo writes at `render_fps`): the view
    announces what the raw env does, at the frame rate of snack-envs' own recordings."""
    from snack_envs.recording import DEFAULT_FPS

    env = SingleAgentEnv(TURN_BASED, opponents=["random"], render_mode="ansi")
    assert env.render_mode == "ansi" and "ansi" in env.metadata["render_modes"]
    assert env.metadata["render_fps"] == env.raw.metadata["render_fps"] == DEFAULT_FPS
    assert set(env.metadata["render_modes"]) == set(env.raw.metadata["render_modes"])
    env.reset(seed=0)
    assert isinstance(env.render(), str) and env.render()


def test_close_closes_the_window_of_a_human_render_mode(monkeypatch):
    from snack_envs.core import picture

    closed = []
    monkeypatch.setattr(picture, "close_window", lambda: closed.append(True))
    env = SingleAgentEnv(TURN_BASED, opponents=["random"], render_mode="human")
    env.close()
    assert closed == [True]


@pytest.mark.parametrize("opponents", [[3], [None], ["random", 3]], ids=["an int", "None", "a spec and an int"])
def test_an_opponent_that_is_neither_a_spec_nor_a_policy_is_refused_when_made(opponents):
    """Caught at once, not at the reset (or, in a pool, at the first episode that draws it) as an AttributeError."""
    with pytest.raises(ConfigError, match=r"opponents must be policy specs or policies \(with act\), not "):
        SingleAgentEnv("snack_wars_v0", opponents=opponents)


def test_an_opponent_sampler_must_be_callable():
    with pytest.raises(ConfigError, match=r"opponent_sampler must be a function of a Generator, got 'heuristic'"):
        SingleAgentEnv("snack_wars_v0", opponents=(), opponent_sampler="heuristic")


@pytest.mark.parametrize("drawn", [3, "heuristic", None])
def test_an_opponent_sampler_must_return_a_policy(drawn):
    """What the sampler returns is named when the game starts; it failed in AttributeError (no `reset`)."""
    env = SingleAgentEnv("snack_wars_v0", opponents=(), opponent_sampler=lambda rng: drawn)
    with pytest.raises(ConfigError, match=rf"opponent_sampler returned {re.escape(repr(drawn))}, which is no policy"):
        env.reset(seed=0)


def test_an_opponent_sampler_may_return_a_bot_that_plays_from_the_game_alone():
    """A policy is `reset` and `act`, or `act_game` with `uses_game` (core.rollout.is_policy), as `play` takes it."""

    class FirstLegalOnTheGame:
        name, uses_game = "first legal", True

        def reset(self, seed=None):
            pass

        def act_game(self, game, seat):
            return game.legal_actions(seat)[0]

    env = SingleAgentEnv("snack_wars_v0", opponents=(), opponent_sampler=lambda rng: FirstLegalOnTheGame())
    terminated, _ = play_first_legal(env, seed=0)
    assert terminated


@pytest.mark.parametrize("name", [["snack_wars_v0"], None, 3])
def test_an_env_name_that_is_no_string_is_an_unknown_env(name):
    from snack_envs.specs import UnknownEnvError

    with pytest.raises(UnknownEnvError, match=r"unknown env .*; known envs: "):
        SingleAgentEnv(name)


def test_a_solo_game_needs_no_opponents_but_a_game_of_two_does():
    """opponents=[] was refused for Snack Time solo ("give at least one opponent"), which seats none."""
    env = SingleAgentEnv("snack_time_v0", num_players=1, opponents=[])
    obs, info = env.reset(seed=0)
    assert obs.shape == env.observation_space.shape and info["opponents"] == {}
    with pytest.raises(ConfigError, match="give at least one opponent policy or an opponent_sampler"):
        SingleAgentEnv("snack_time_v0", num_players=2, opponents=[])
