"""The batched engine's shared machinery (snack_envs/core/batched.py) where the other batched tests leave it
open: the reward modes against the env's, the xoshiro256** streams, seat shuffling, `max_steps`, a finished
game without auto_reset, the refusal's wording, `final_obs` of other envs, and export / load. Found by a
mutation probe of the module."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest

from snack_envs import specs
from snack_envs.core.env import final_rewards as env_final_rewards
from snack_envs.core.game import ConfigError, IllegalActionError

pytest.importorskip("numba")
from snack_envs import batched  # noqa: E402
from snack_envs.core.batched import final_rewards, sample_legal, seed_streams  # noqa: E402

BATCHED = [s.env_name for s in specs.SPECS if s.batched]
M64 = 2**64 - 1


class Finished:
    """What `core.env.final_rewards` reads of a finished game."""

    def __init__(self, scores, winners, score_range):
        self._scores, self._winners = list(scores), list(winners)
        self.score_range, self.num_players = score_range, len(self._scores)

    def scores(self):
        return self._scores

    def winners(self):
        return [p for p, won in enumerate(self._winners) if won]


@pytest.mark.parametrize("score_range", [(-7.0, 20.0), (-30.0, 12.0), (0.0, 9.0)])
@pytest.mark.parametrize("n", [1, 2, 3, 5])
@pytest.mark.parametrize("mode", ["win", "score", "margin"])
def test_the_batched_final_rewards_are_the_envs_for_every_mode(mode, n, score_range):
    rng = np.random.default_rng(n)
    low, high = score_range
    scores = rng.integers(int(low), int(high) + 1, size=(40, n)).astype(np.float64)
    winners = rng.random((40, n)) < 0.5
    winners[0], winners[1] = True, False  # everyone won; nobody did
    winners[2] = scores[2] == scores[2].max()
    got = final_rewards(scores, winners, mode, score_range)
    assert got.shape == (40, n)
    for b in range(40):
        expected = env_final_rewards(Finished(scores[b], winners[b], score_range), mode)
        assert got[b].tolist() == pytest.approx(expected), f"row {b}"


def xoshiro256starstar(s: list[int]) -> int:
    """The reference generator (Blackman & Vigna), one step of state `s` (4 Python ints, changed in place)."""

    def rotl(x, k):
        return ((x << k) | (x >> (64 - k))) & M64

    result = (rotl(s[1] * 5 & M64, 7) * 9) & M64
    t = (s[1] << 17) & M64
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = rotl(s[3], 45)
    return result


def test_the_streams_are_xoshiro256starstar_seeded_by_numpys_seed_sequence():
    """The module's promise: one xoshiro256** stream per env, seeded from `seed` by SeedSequence, a draw
    below n being the float of the top 53 bits times n; `sample_legal` picks that many legal actions on."""
    state = seed_streams(21, 3)
    assert np.array_equal(state, np.random.SeedSequence(21).generate_state(12, np.uint64).reshape(3, 4))
    stream = state[1:2].copy()
    reference = [int(w) for w in stream[0]]
    mask = np.zeros((3, 1000), np.int8)
    mask[0] = 1
    mask[2, [3, 10, 500, 999]] = 1  # row 1: no legal action, no draw
    out = np.empty(3, np.int64)
    for _ in range(300):
        sample_legal(mask, stream, out)
        first = ((xoshiro256starstar(reference) >> 11) * 2.0**-53)
        second = ((xoshiro256starstar(reference) >> 11) * 2.0**-53)
        assert out.tolist() == [int(first * 1000), -1, [3, 10, 500, 999][int(second * 4)]]
        assert stream[0].tolist() == reference


def test_seats_are_shuffled_uniformly_per_game_and_stay_put_without_shuffling():
    venv = batched.make("snack_wars_v0", num_envs=3000, num_players=3, seed=14)
    _, _, player = venv.reset()
    counts = Counter(map(tuple, venv.agent_of_seat.tolist()))
    assert len(counts) == 6 and all(400 < c < 600 for c in counts.values()), counts
    seats = np.take_along_axis(venv.seat_of_agent, venv.agent_of_seat, axis=1)
    assert (seats == np.arange(3)).all()  # seat_of_agent is agent_of_seat's inverse
    assert np.array_equal(player, venv.agent_of_seat[np.arange(3000), venv.kernel.to_act()])
    fixed = batched.make("snack_wars_v0", num_envs=50, num_players=3, seed=14, shuffle_seats=False)
    fixed.reset()
    assert (fixed.agent_of_seat == np.arange(3)).all() and (fixed.seat_of_agent == np.arange(3)).all()


@pytest.mark.parametrize("name", BATCHED)
def test_max_steps_cuts_a_game_after_exactly_that_many_of_its_steps(name):
    """`max_steps` counts each env's steps of its game (not those it sat out), truncates at that count a
    game its rules have not ended, with no reward in win mode, and a new game counts from 0."""
    venv = batched.make(name, num_envs=8, seed=12, max_steps=3)
    venv.reset()
    count, cut = np.zeros(8, np.int64), 0
    for k in range(30):
        envs = (np.arange(8) + k) % 3 != 0  # each env sits out every third step
        *_, rewards, terminated, truncated = venv.step(venv.random_actions(), envs=envs)
        count += envs
        assert not (terminated & ~envs).any() and not (truncated & ~envs).any()
        assert np.array_equal(truncated, (count == 3) & ~terminated)
        assert not rewards[truncated].any()
        cut += truncated.sum()
        count[terminated | truncated] = 0
        assert np.array_equal(venv.steps, count)
    assert cut > 20


@pytest.mark.parametrize("max_steps", [None, 5])  # games ended by their rules; games cut (their rules would go on)
@pytest.mark.parametrize("name", BATCHED)
def test_without_auto_reset_a_finished_game_stays_as_it_ended_and_nobody_may_act_in_it(name, max_steps):
    venv = batched.make(name, num_envs=6, seed=11, auto_reset=False, max_steps=max_steps)
    venv.reset()
    ended_at: dict[int, tuple] = {}
    for _ in range(3000):
        if not venv.live.any():
            break
        actions = venv.random_actions()  # -1 in a finished game's env: ignored, not refused
        obs, mask, *_, rewards, terminated, truncated = venv.step(actions)
        for i in np.flatnonzero(terminated | truncated):
            assert i not in ended_at, "a game ended twice"
            ended_at[i] = (venv.export(i).to_dict()["state"], int(venv.steps[i]))
        for i, (state, steps) in ended_at.items():
            assert not venv.live[i] and not mask[i].any(), f"env {i}: a finished game's mask must be empty"
            assert venv.export(i).to_dict()["state"] == state and venv.steps[i] == steps
            if not (terminated[i] or truncated[i]):
                assert not rewards[i].any()
    assert sorted(ended_at) == list(range(6))
    assert (venv.random_actions() == -1).all() and (venv.heuristic_actions() == -1).all()
    _, mask, *_ = venv.reset()  # new games everywhere: every env live again, with moves to make
    assert venv.live.all() and mask.reshape(6, -1).any(axis=1).all()


@pytest.mark.parametrize("name", BATCHED)
def test_a_refusal_names_the_first_bad_env_its_agent_seat_and_legal_actions_and_skips_envs_not_stepped(name):
    """Each decision in turn made bad (not in the mask, one past the last action, negative) among the lowest
    legal actions elsewhere, with a worse one after it: the error names that decision, whatever its place."""
    venv = batched.make(name, num_envs=5, seed=13, num_players=3 if name != "speed_snacks_v1" else 2)
    _, mask, *rest = venv.reset()
    good = mask.argmax(-1)  # the lowest legal action of each decision: 0 where 0 is legal
    places = [(env, agent) for env in range(5) for agent in range(2)] if venv.simultaneous else [(env,) for env in range(5)]
    for k, where in enumerate(places):
        action = ["masked", venv.num_actions, -1][k % 3]
        if action == "masked":
            action = int(np.flatnonzero(mask[where] == 0)[0])
        bad = good.copy()
        bad[where] = action
        if k + 1 < len(places):
            bad[places[-1]] = venv.num_actions + 7  # a later bad decision is not the one named
        env = where[0]
        agent = where[1] if venv.simultaneous else int(rest[0][env])
        message = (f"{name}: env {env}: action {action} is illegal for player_{agent} "
                   f"(seat {venv.agent_seats(env)[agent]}); legal actions: {np.flatnonzero(mask[where]).tolist()}")
        with pytest.raises(IllegalActionError, match=re.escape(message)):
            venv.step(bad)
    assert venv.steps.tolist() == [0] * 5
    skip = np.ones(5, bool)
    skip[[0, 4]] = False
    bad = good.copy()
    bad[0], bad[4] = -1, venv.num_actions  # in envs not stepped: ignored
    venv.step(bad, envs=skip)
    assert venv.steps.tolist() == [0, 1, 1, 1, 0]


@pytest.mark.parametrize("name", BATCHED)
def test_final_observations_change_only_for_games_that_ended_cut_ones_included(name):
    """`final_obs` is every agent's last view of each game that ended in the step, by its rules or cut at
    max_steps; the other envs' rows stay as they were, as do final_scores and final_winners of games cut."""
    kept = batched.make(name, num_envs=6, seed=5, final_observations=True, max_steps=4)
    stays = batched.make(name, num_envs=6, seed=5, auto_reset=False, max_steps=4)
    encoder = specs.get(name).encoder_class(kept.num_players, kept.config)
    kept.reset()
    stays.reset()
    kept.final_obs[:] = 7.0
    ever = np.zeros(6, bool)
    for _ in range(4):
        before = (kept.final_obs.copy(), kept.final_scores.copy(), kept.final_winners.copy())
        actions = kept.random_actions()  # the same games in both until each one's first end
        *_, terminated, truncated = kept.step(actions)
        stays.step(actions)
        ended = terminated | truncated
        assert np.array_equal(kept.final_obs[~ended], before[0][~ended])
        assert np.array_equal(kept.final_scores[~terminated], before[1][~terminated])
        assert np.array_equal(kept.final_winners[~terminated], before[2][~terminated])
        for i in np.flatnonzero(ended):
            game, seats = stays.export(i), stays.agent_seats(i)
            for agent, seat in enumerate(seats):
                assert np.array_equal(kept.final_obs[i, agent], encoder.encode(game, seat)), f"env {i}, {agent}"
        ever |= ended
    assert ever.all()  # every game cut at max_steps, if not over before


@pytest.mark.parametrize("name", BATCHED)
def test_load_restarts_the_step_count_and_a_finished_game_leaves_its_env_idle(name):
    spec = specs.get(name)
    venv = batched.make(name, num_envs=3, seed=6, max_steps=50, auto_reset=False)
    venv.reset()
    for _ in range(5):
        venv.step(venv.random_actions())
    other = batched.make(name, num_envs=1, seed=8, auto_reset=False)
    other.reset()
    while other.live[0]:
        other.step(other.random_actions())
    finished, fresh = other.export(0), venv.export(2)
    assert finished.game_over
    venv.load(1, finished)
    assert venv.steps.tolist() == [5, 0, 5] and venv.live.tolist() == [True, False, True]
    assert not venv.observe()[1][1].any()
    venv.load(1, fresh)
    assert venv.steps[1] == 0 and venv.live[1] and venv.export(1) == fresh
    # a game of another kind or player count is refused, and changes nothing
    other_kind = "snack_wars_v0" if name == "snack_rabbits_v0" else "snack_rabbits_v0"
    wrong = [specs.get(other_kind).rules_class(venv.num_players, np.random.default_rng(0))]
    if spec.rules_class.max_players > venv.num_players:
        options = {k: v for k, v in venv.config.items() if k in spec.rules_class.options}
        wrong.append(spec.rules_class(venv.num_players + 1, np.random.default_rng(0), **options))
    for game in wrong:
        with pytest.raises(ConfigError, match="does not match"):
            venv.load(0, game)
    for i in (-1, 3, 1.0, True, np.int64(3)):
        for call in (lambda: venv.load(i, fresh), lambda: venv.outcomes(i), lambda: venv.agent_seats(i)):  # noqa: B023
            with pytest.raises(ConfigError, match=r"env index must be an int in 0\.\.2"):
                call()
    assert venv.steps.tolist() == [5, 0, 5]


@pytest.mark.parametrize("name", BATCHED)
def test_export_seeds_the_games_rng_from_the_envs_stream_without_advancing_it(name):
    venv = batched.make(name, num_envs=3, seed=9)
    venv.reset()
    before = venv.rng.copy()
    draws = [venv.export(i).rng.random(4).tolist() for i in (0, 1, 2, 1)]
    assert np.array_equal(venv.rng, before)
    assert draws[1] == draws[3] and draws[0] != draws[1] != draws[2]
    assert draws[1] == np.random.default_rng([int(w) for w in before[1]]).random(4).tolist()


def test_a_batch_takes_one_env_and_refuses_a_seed_that_is_not_a_non_negative_int():
    assert batched.make("snack_rabbits_v0", num_envs=1).reset()[0].shape[0] == 1
    for seed in (-1, 1.5, "3", True, None):
        with pytest.raises(ConfigError, match=rf"seed must be a non-negative int, got {re.escape(repr(seed))}"):
            batched.make("snack_rabbits_v0", num_envs=2, seed=seed)


def test_the_action_calls_need_a_reset_first_and_reset_without_seed_goes_on_with_the_streams():
    """Before the first reset() no game is dealt (the kernel's arrays are zeros): every call that reads or
    sets a game says so, where observe() gave masks of no position (Speed Snacks': 12 legal actions) and
    agent_seats() put every agent in seat 0."""
    venv = batched.make("snack_rabbits_v0", num_envs=4, seed=3)
    calls = {"step": lambda: venv.step(np.zeros(4, np.int64)), "random_actions": venv.random_actions,
             "heuristic_actions": venv.heuristic_actions, "observe": venv.observe, "export": lambda: venv.export(0),
             "load": lambda: venv.load(0, None), "outcomes": lambda: venv.outcomes(0),
             "agent_seats": lambda: venv.agent_seats(0)}
    for name, call in calls.items():
        with pytest.raises(IllegalActionError, match=rf"^call reset\(\) before {name}\(\): no game is dealt yet$"):
            call()
    first = venv.reset()
    second = venv.reset()
    again = batched.make("snack_rabbits_v0", num_envs=4, seed=3).reset(seed=3)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not np.array_equal(first[0], second[0])


def test_round_rewards_go_only_to_the_envs_that_moved():
    venv = batched.make("speed_snacks_v1", num_envs=8, seed=2, reward="round")
    venv.reset()
    paid = np.zeros(8, bool)
    for k in range(3000):
        envs = np.arange(8) % 2 == k % 2
        *_, rewards, _, _ = venv.step(venv.random_actions(), envs=envs)
        assert not rewards[~envs].any()
        paid |= rewards.any(axis=1)
        if paid.all() and k >= 200:
            break
    assert paid.all()
