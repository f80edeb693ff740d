"""Speed Snacks' batched kernel, beyond the generic differential test (tests/differential): reference games
loaded into the kernel at every tick (state, observation and mask back unchanged), the re-check of the
second action against the mask, the capacities at their limits, the rare Menu toque, and round rewards."""

from __future__ import annotations

import numpy as np
import pytest

from snack_envs import specs
from snack_envs.speed_snacks.components import COCKROACH, COPIES_PER_SNACK, HURRY_UP, NUM_SNACKS
from snack_envs.speed_snacks.observation import SpeedSnacksEncoder
from snack_envs.speed_snacks.rules import MENU_KEEP, MENU_TOQUE, MODULES, NUM_ACTIONS, SpeedSnacks

pytest.importorskip("numba")
from snack_envs import batched  # noqa: E402
from snack_envs.speed_snacks import batched as kernel_module  # noqa: E402

ALL = dict.fromkeys(MODULES, True)
SETS = [{}, ALL, {**ALL, "kitchen_obs": "sizes"}, {**ALL, "speed_0": 0.5, "menu_fulfil": "newer"},
        {"health_department": True, "menu": True, "menu_tie_first": "other_player", "idle_ticks": 1}]


def reference_games(options: dict, seed: int, games: int):
    """Positions of random reference games, one per tick."""
    rng = np.random.default_rng(seed)
    for g in range(games):
        game = SpeedSnacks(2, np.random.default_rng([seed, g]), **options)
        while not game.game_over:
            yield game
            game.apply_joint({p: int(rng.choice(game.legal_actions(p))) for p in (0, 1)})
        yield game


@pytest.mark.parametrize("options", SETS, ids=range(len(SETS)))
def test_a_loaded_reference_position_comes_back_unchanged_with_its_observations_and_masks(options):
    venv = batched.make("speed_snacks_v1", num_envs=1, seed=0, auto_reset=False, shuffle_seats=False, **options)
    venv.reset()
    encoder = SpeedSnacksEncoder(2, venv.config)
    kernel = venv.kernel
    seats = np.array([[0, 1]])
    obs = np.zeros((1, 2, kernel.obs_size), np.float32)
    mask = np.zeros((1, 2, NUM_ACTIONS), np.int8)
    checked = 0
    for game in reference_games(venv.config, seed=1, games=3):
        venv.load(0, game)
        assert venv.export(0) == game
        kernel.masks(seats, mask)
        kernel.encode(seats, obs)
        for p in (0, 1):
            assert np.array_equal(obs[0, p], encoder.encode(game, p)), (game.phase, p)
            if not game.game_over:
                assert np.array_equal(mask[0, p], game.action_mask(p)), (game.phase, p)
        checked += 1
    assert checked > 100


def test_the_second_action_is_rechecked_exactly_as_the_mask_allows():
    venv = batched.make("speed_snacks_v1", num_envs=1, seed=0, auto_reset=False, **ALL)
    venv.reset()
    mask = np.zeros((1, 2, NUM_ACTIONS), np.int8)
    seats = np.array([[0, 1]])
    positions = 0
    for game in reference_games(venv.config, seed=2, games=4):
        if game.phase != "play":
            continue
        venv.load(0, game)
        venv.kernel.masks(seats, mask)
        for p in (0, 1):
            legal = [bool(kernel_module._play_legal(venv.kernel.S, 0, p, a)) for a in range(NUM_ACTIONS)]
            assert legal == mask[0, p].astype(bool).tolist()
        positions += 1
    assert positions > 100


def test_the_piles_hold_every_card_they_can_get():
    """Capacities: 66 snacks and a Hurry-up on one customer pile, 66 snacks and 10 cockroaches in one
    kitchen pile, 66 snacks on one XXL card; such tables (a game's end) load, encode and export unchanged."""
    snacks = [s for s in range(NUM_SNACKS) for _ in range(COPIES_PER_SNACK)]
    roaches = [COCKROACH] * 10
    cases = [
        {"customer": [snacks + [HURRY_UP]], "hurry_ups": 1, "deck": [HURRY_UP] * 4 + roaches},
        {"kitchens": [[snacks + roaches], []], "deck": [HURRY_UP] * 5},
        {"xxl_cards": [[0], []], "xxl_stacks": [[snacks], []], "xxl_pile": [1, 2, 3, 4, 5],
         "deck": [HURRY_UP] * 5 + roaches},
    ]
    for fields in cases:
        game = SpeedSnacks(2, np.random.default_rng(0), **ALL)
        game.hands, game.phase, game.game_over, game.toques = [None, None], "over", True, [5, 0]
        for name, value in fields.items():
            setattr(game, name, value)
        game.state_changed()
        assert not game.invariant_violations()
        venv = batched.make("speed_snacks_v1", num_envs=2, seed=0, auto_reset=False, **ALL)
        venv.reset()
        venv.load(1, game)
        assert venv.export(1) == game
        obs = np.zeros((2, 2, venv.kernel.obs_size), np.float32)
        venv.kernel.encode(np.array([[0, 1], [0, 1]]), obs)
        encoder = SpeedSnacksEncoder(2, venv.config)
        for p in (0, 1):
            assert np.array_equal(obs[1, p], encoder.encode(game, p))


def test_menu_toques_follow_the_reference():
    """A toque for three fulfilled Menus is rare in random play: here the players keep their Menus for one,
    and every tick of the batch is replayed in the reference (as in tests/differential)."""
    venv = batched.make("speed_snacks_v1", num_envs=16, seed=7, auto_reset=False, **ALL)
    obs, mask = venv.reset()
    rng = np.random.default_rng(7)
    toques = 0
    while venv.live.any():
        actions = np.zeros((16, 2), np.int64)
        before = {}
        for i in np.flatnonzero(venv.live):
            game, seats = venv.export(i), venv.agent_seats(i)
            for a in (0, 1):
                legal = np.flatnonzero(mask[i, a])
                if game.phase == "menu" and len(legal) > 1:
                    actions[i, a] = MENU_TOQUE if MENU_TOQUE in legal else MENU_KEEP
                    toques += MENU_TOQUE in legal
                else:
                    actions[i, a] = rng.choice(legal)
            before[i] = (game, seats)
        obs, mask, rewards, terminated, truncated = venv.step(actions)
        for i, (game, seats) in before.items():
            game.apply_joint({seats[a]: int(actions[i, a]) for a in (0, 1)}, **venv.outcomes(i))
            assert game == venv.export(i)
            for a in (0, 1):
                if not game.game_over:
                    assert np.array_equal(mask[i, a], game.action_mask(seats[a]))
    assert toques > 3


def test_round_rewards_are_the_reference_round_results_and_only_for_the_envs_stepped():
    venv = batched.make("speed_snacks_v1", num_envs=16, seed=5, reward="round", **ALL)
    out, rng = venv.reset(), np.random.default_rng(5)
    scored = 0
    for _ in range(400):
        games = {i: (venv.export(i), venv.agent_seats(i)) for i in range(16)}
        actions = (rng.random(out[1].shape) * out[1]).argmax(-1)
        out = venv.step(actions)
        rewards = out[-3]
        for i, (game, seats) in games.items():
            game.apply_joint({seats[a]: int(actions[i, a]) for a in (0, 1)}, **venv.outcomes(i))
            result = game.round_result()
            expected = [0.0, 0.0] if result is None else [result[seats[a]] for a in (0, 1)]
            assert rewards[i].tolist() == expected
            scored += result is not None
    assert scored > 20
    # a step that moves no env gives no round reward, though the state still shows the last round's result
    venv.kernel.S[:, kernel_module.RS_VALID] = 1
    venv.kernel.S[:, kernel_module.RS] = 1
    venv.kernel.step(np.zeros((16, 2), np.int64), np.zeros(16, bool), venv.rng)
    assert not venv.kernel.round_results().any()


def test_the_spec_names_the_kernel():
    assert specs.get("speed_snacks_v1").batched and "speed_snacks_v1" in batched.available()


def test_the_native_heuristic_chooses_as_the_python_bot_in_every_option_set():
    """`Kernel.heuristic_act` against `HeuristicPolicy.act` (one bot per env and agent, reset with each new
    game) on every decision of random and heuristic play: over 10,000 positions across all option sets."""
    from snack_envs.speed_snacks.heuristic import HeuristicPolicy
    from tests.helpers import option_sets

    compared = 0
    for k, options in enumerate(option_sets(SpeedSnacks)):
        venv = batched.make("speed_snacks_v1", num_envs=8, seed=k, **options)
        obs, mask = venv.reset()
        rng = np.random.default_rng(k)
        bots = [[HeuristicPolicy(2, **venv.config) for _ in (0, 1)] for _ in range(8)]
        heuristic_plays = np.array([[True, i % 2 == 0] for i in range(8)])  # the rest play randomly
        for _ in range(80):
            native = venv.kernel.heuristic_act(obs, mask)
            for i in range(8):
                for a in (0, 1):
                    assert native[i, a] == bots[i][a].act(obs[i, a], mask[i, a]), (options, i, a)
                    compared += 1
            random_actions = (rng.random(mask.shape) * mask).argmax(-1)
            obs, mask, rewards, terminated, truncated = venv.step(np.where(heuristic_plays, native, random_actions))
            for i in np.flatnonzero(terminated | truncated):
                for bot in bots[i]:
                    bot.reset()
    assert compared >= 10_000


def test_a_slow_agent_is_slow_in_whichever_seat_it_sits():
    """`speed_0` belongs to player_0 (as in the PettingZoo env), not to seat 0: with seats shuffled, player_0's
    actions go through about as often as its speed says, in both seats, and its observation shows its speed."""
    venv = batched.make("speed_snacks_v1", num_envs=32, seed=3, speed_0=0.125)
    obs, mask = venv.reset()
    speeds = SpeedSnacksEncoder(2, venv.config).layout.slices["speeds"]
    rng = np.random.default_rng(0)
    through: dict[tuple[int, int], list[bool]] = {(a, s): [] for a in (0, 1) for s in (0, 1)}  # (agent, seat)
    for _ in range(40):
        for i in range(venv.num_envs):
            for agent in (0, 1):
                assert obs[i, agent, speeds].tolist() == ([0.125, 1.0] if agent == 0 else [1.0, 0.125])
        seats = venv.seat_of_agent.copy()
        actions = np.array([[rng.choice(np.flatnonzero(m[1:])) + 1 if m[1:].any() else 0 for m in env_masks]
                            for env_masks in mask])
        obs, mask, *_ = venv.step(actions)
        for i in range(venv.num_envs):
            outcome = venv.outcomes(i)
            for agent in (0, 1):
                if "through" in outcome and actions[i, agent] != 0:
                    through[agent, seats[i, agent]].append(outcome["through"][seats[i, agent]])
    for seat in (0, 1):
        assert len(through[0, seat]) > 100 and np.mean(through[0, seat]) < 0.25, seat
        assert len(through[1, seat]) > 100 and np.mean(through[1, seat]) == 1.0, seat
