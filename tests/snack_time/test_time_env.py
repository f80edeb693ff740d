"""Snack Time as environments: observation slices, hidden information, the AEC env, snapshots, and the
solo Gymnasium env `SnackTimeSolo-v0`."""

from __future__ import annotations

import importlib
import json
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from snack_envs import snack_time_v0
from snack_envs.core.game import ConfigError, IllegalActionError
from snack_envs.snack_time.components import parse_cell, solo_rank
from snack_envs.snack_time.observation import LAYOUT, SnackTimeEncoder
from snack_envs.snack_time.rules import NUM_ACTIONS, SnackTime, damage_action
from snack_envs.snack_time.solo import SOLO_ENV_ID, SnackTimeSoloEnv
from tests.helpers import play_aec
from tests.snack_time.time_scripted import (
    INEDIBLE_ROW,
    NW,
    SE,
    TENTACLE,
    TRAP,
    draw_path,
    finish_round,
    new_game,
    set_traits,
)


def fields(game: SnackTime, seat: int, encoder: SnackTimeEncoder | None = None) -> dict[str, np.ndarray]:
    encoder = encoder or SnackTimeEncoder(game.num_players, game.config)
    return LAYOUT.unpack(encoder.encode(game, seat))


# --- observations --------------------------------------------------------------------------------------
def test_the_map_slices_show_pipes_open_cells_connections_rats_and_entrances():
    game = new_game(2, rat_snacks=True)
    draw_path(game, 0, ["<0", "A0", "A1"])
    game.rats[parse_cell("B3")] = 2
    own = fields(game, 0)["own_map"].reshape(8, 8, 6)
    assert list(own[0, 1]) == [0, 0, 1, 1, 0, 1]  # A0: openings S and W, taken, reaches NW
    assert own[0, 2, 4] == 0 and own[1, 0, 4] == 1  # B0 cannot take a pipe; <1 (next to NW) can
    assert own[1, 1, 5] == 1  # entrance 1's network reaches a creature
    other = fields(game, 1)["own_map"].reshape(8, 8, 6)
    assert list(other[0, 1]) == [0, 0, 0, 0, 1, 0]  # seat 1's own map: A0 still empty and open
    marks = fields(game, 1)["map_marks"].reshape(8, 8, 6)
    assert marks[3, 2, 0] == 2
    for k, cell in enumerate(game.entrances):
        assert list(marks[cell // 8, cell % 8, 1:]) == [float(j == k) for j in range(5)]


def test_creature_round_and_table_slices():
    game = new_game(2, row=[4] + INEDIBLE_ROW[1:], top=[TRAP[2]])
    draw_path(game, 0, ["<0", "A0", "A1"])
    set_traits(game, 0, NW, eyes=1, crossed=(0, 1, 0))
    game.snacks[0][NW] = [27]
    game.badges[0] = 4
    obs = fields(game, 0)
    creatures = obs["own_creatures"].reshape(4, 15)
    assert list(creatures[NW]) == [1, 0, 0, 0, 1, 0, 2, 1, 10, 1, 1, 0, 0, 0, 0]
    assert obs["own_badges"][0] == 4 and obs["own_score"][0] == 10 + 1 - 2
    assert list(obs["dice"]) == [0, 2, 0, 3, 0, 0] and list(obs["own_to_draw"]) == [0, 2, 0, 3, 0, 0]
    assert list(obs["phase"]) == [0, 0, 1, 0, 0] and list(obs["round"]) == [1]
    assert list(obs["row"][:6]) == [2, 1, 0, 0, 0, 0]  # entrance 1: value 2, one Eye, no consequence
    assert obs["unseen"].sum() == 25 and obs["unseen"][4] == 0
    assert list(obs["deck"]) == [30, 5]
    assert list(obs["options"]) == [0, 0, 0] and list(obs["seated"]) == [1, 1, 0, 0, 0, 0, 0, 0]
    assert list(obs["to_act"][:2]) == [1, 0] and list(fields(game, 1)["to_act"][:2]) == [0, 1]
    assert list(fields(game, 1)["opponents"][:10]) == [9, 4, 1, 0, 0, 0, 1, 0, 0, 0]


def test_the_damage_target_and_the_traps_lying():
    game = new_game(1, top=[TRAP[0], 0])
    draw_path(game, 0, ["<0", "A0", "A1"])
    set_traits(game, 0, NW, eyes=1, teeth=1)
    finish_round(game)
    obs = fields(game, 0)
    assert list(obs["phase"]) == [0, 1, 0, 0, 0] and list(obs["own_damage_target"]) == [1, 0, 0, 0]
    assert list(obs["traps_lying"]) == [1, 0, 0, 0, 0] and list(obs["deck"]) == [28, 4]
    assert list(obs["dice"]) == [0] * 6  # not rolled yet


def test_opponents_are_seat_relative():
    game = new_game(3)
    game.badges = [1, 2, 3]
    for seat in range(3):
        sheets = fields(game, seat)["opponents"].reshape(7, 10)
        assert [sheets[r, 1] for r in range(2)] == [game.badges[(seat + 1) % 3], game.badges[(seat + 2) % 3]]
        assert sheets[2:].sum() == 0


def test_states_that_differ_only_in_the_deck_order_encode_identically():
    row, rest = INEDIBLE_ROW, [c for c in range(35) if c not in INEDIBLE_ROW]
    a = SnackTime(2, np.random.default_rng(0), deck=row + rest, entrance_rolls=["A1", "C1", "E3", "B5", "E6"])
    b = SnackTime(2, np.random.default_rng(0), deck=row + rest[::-1], entrance_rolls=["A1", "C1", "E3", "B5", "E6"])
    assert a.deck != b.deck
    encoder = SnackTimeEncoder(2, a.config)
    for seat in range(2):
        assert np.array_equal(encoder.encode(a, seat), encoder.encode(b, seat))
    assert a.render_text() == b.render_text()


def test_the_encoder_caches_never_serve_a_stale_block():
    games = [SnackTime(2, np.random.default_rng(seed), rat_snacks=True) for seed in range(3)]
    rng = np.random.default_rng(1)
    shared = SnackTimeEncoder(2, games[0].config)
    for _ in range(120):
        game = games[rng.integers(3)]
        if game.game_over:
            continue
        seat = int(rng.integers(2))
        assert np.array_equal(shared.encode(game, seat), SnackTimeEncoder(2, game.config).encode(game, seat))
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])


# --- the AEC env -------------------------------------------------------------------------------------
def test_env_facts():
    env = snack_time_v0.raw_env()
    assert env.num_players == 2 and env.num_actions == NUM_ACTIONS == 728
    assert env.max_steps == 87 * 2 + 5
    assert snack_time_v0.raw_env(num_players=1).max_steps == 92
    assert snack_time_v0.raw_env(num_players=8).num_players == 8
    assert "| 0:384 | `own_map`" in snack_time_v0.__doc__
    with pytest.raises(ConfigError, match="advanced_traps"):
        snack_time_v0.raw_env(advanced_traps=1)


def test_solo_games_report_score_rank_and_end():
    env = snack_time_v0.raw_env(num_players=1, rat_snacks=True)
    finals = []
    result = play_aec(env, seed=3, on_step=lambda e: finals.append(dict(e.infos["player_0"])))
    info = finals[-1]
    assert info["score"] == env.game.score(0) and info["rank"] == solo_rank(info["score"], True)
    assert info["end"] == env.game.end_reasons and result["steps"] <= env.max_steps
    assert all(i == {} for i in finals[:-1])


def test_the_ansi_render_draws_every_sheet():
    env = snack_time_v0.env(render_mode="ansi")
    env.reset(seed=2)
    text = env.render()
    assert text.count("◤") == 2 and "entrance 1 (" in text and "Dice:" in text
    for agent in env.possible_agents:
        assert agent in text


def test_snapshots_continue_identically_and_rebuild_the_derived_map():
    game = SnackTime(2, np.random.default_rng(5), rat_snacks=True)
    rng = np.random.default_rng(0)
    for _ in range(60):
        legal = game.legal_actions()
        game.apply(legal[rng.integers(len(legal))])
    copy = SnackTime.from_json(json.dumps(game.to_dict()))
    assert copy == game and copy.fits == game.fits and copy.invariant_violations() == []
    while not game.game_over:
        action = game.legal_actions()[rng.integers(len(game.legal_actions()))]
        game.apply(action)
        copy.apply(action)
        assert np.array_equal(copy.action_mask(), game.action_mask())
    assert copy == game and copy.scores() == game.scores()


# --- the solo Gymnasium env ----------------------------------------------------------------------------
def test_the_solo_env_is_registered_once_and_passes_gymnasiums_checker():
    importlib.reload(snack_time_v0)  # registering again must not fail or warn
    assert SOLO_ENV_ID in gymnasium.registry
    env = gymnasium.make(SOLO_ENV_ID)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env.unwrapped)
    check_env(SnackTimeSoloEnv(rat_snacks=True, advanced_traps=True), skip_render_check=True)


def test_solo_rewards_sum_to_the_final_score_and_masks_guide_play():
    env = gymnasium.make(SOLO_ENV_ID, rat_snacks=True)
    for seed in range(4):
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        total, terminated, steps = 0.0, False, 0
        while not terminated:
            mask = env.unwrapped.action_masks()
            assert mask.dtype == bool and mask.any() and env.observation_space.contains(obs)
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            total += reward
            steps += 1
            assert not truncated
        assert total == info["score"] == env.unwrapped.game.score(0)
        assert info["rank"] == solo_rank(info["score"], True) and steps <= 92
        assert not env.unwrapped.action_masks().any()


def test_solo_reward_is_the_change_of_the_score_at_each_step():
    env = SnackTimeSoloEnv()
    env.reset(seed=0)
    env.game = game = new_game(1, row=[13, 24, 22, 15, 11])  # entrance 1: value 5, two Eyes, Badge
    draw_path(game, 0, ["<0", "A0", "A1"])
    set_traits(game, 0, NW, eyes=2)
    rewards = []
    while game.round == 1:
        rewards.append(env.step(game.legal_actions()[0])[1])
    # the Teeth go on NW (4 traits); the snack comes with the last placement: 5 + 1 snack x 4 traits
    assert game.healthy[0][NW] == [2, 2, 0]
    assert rewards == [0.0] * (len(rewards) - 1) + [9.0] and game.score(0) == 9


def test_solo_illegal_actions_end_the_episode_or_raise():
    env = SnackTimeSoloEnv()
    env.reset(seed=1)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    mask = info.pop("action_mask")  # every step's info carries the mask: none is legal once the episode ended
    assert (reward, terminated, truncated, info) == (-1.0, True, False, {"illegal_action": True})
    assert not mask.any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    strict = SnackTimeSoloEnv(illegal_action="raise")
    strict.reset(seed=1)
    before = strict.game.to_json()
    with pytest.raises(IllegalActionError):
        strict.step(damage_action(SE, TENTACLE))
    assert strict.game.to_json() == before
    with pytest.raises(ConfigError):
        SnackTimeSoloEnv(no_such_option=True)


def test_maskable_ppo_reads_the_masks_through_a_vector_env():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import DummyVecEnv

    vec = DummyVecEnv([lambda: gymnasium.make(SOLO_ENV_ID)])
    vec.seed(0)
    vec.reset()
    masks = get_action_masks(vec)
    assert masks.shape == (1, NUM_ACTIONS) and masks[0].sum() in (4, 8)  # 1 or 2 kinds of trait, 4 creatures
    vec.close()
