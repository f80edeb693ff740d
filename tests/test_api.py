"""API, determinism, bad-input and snapshot tests run on every registered env."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test, state_test
from pettingzoo.utils.conversions import aec_to_parallel

import snack_envs
from snack_envs import specs
from snack_envs.core.game import ConfigError, IllegalActionError
from tests.helpers import (
    env_module,
    is_parallel,
    parallel_masked_seed_test,
    play_aec,
    play_parallel,
    player_counts,
    random_joint,
    random_legal,
    trajectory_digest,
)

ENVS = list(snack_envs.ENV_NAMES)
TURN_BASED = [n for n in ENVS if not is_parallel(n)]
PARALLEL = [n for n in ENVS if is_parallel(n)]


@pytest.mark.parametrize("name", ENVS)
def test_pettingzoo_api_test(name):
    module = env_module(name)
    for n in player_counts(name):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            api_test(module.env(num_players=n), num_cycles=300)
            api_test(module.raw_env(num_players=n), num_cycles=300)
            if is_parallel(name):
                parallel_api_test(module.parallel_env(num_players=n), num_cycles=300)
                parallel_api_test(module.raw_parallel_env(num_players=n), num_cycles=300)


@pytest.mark.parametrize("name", TURN_BASED)
def test_parallel_view_api(name):
    parallel_api_test(env_module(name).parallel_env(), num_cycles=300)


@pytest.mark.parametrize("name", ENVS)
def test_pettingzoos_aec_to_parallel_refuses_the_turn_based_envs_and_converts_the_simultaneous_one(name):
    """PettingZoo's aec_to_parallel steps every agent each cycle: a turn-based env is not parallelizable
    (its metadata says so, and the converter refuses it), Speed Snacks' AEC view converts back."""
    env = env_module(name).env()
    if is_parallel(name):
        parallel_api_test(aec_to_parallel(env), num_cycles=300)
    else:
        assert env.metadata["is_parallelizable"] is False
        with pytest.raises(AssertionError, match="is_parallelizable"):
            aec_to_parallel(env)


@pytest.mark.parametrize("name", TURN_BASED)
def test_seed_test(name):
    seed_test(env_module(name).env, num_cycles=300)


@pytest.mark.parametrize("name", ENVS)
def test_render_test(name, capsys):
    module = env_module(name)
    render_test(lambda render_mode=None: module.env(render_mode=render_mode))


@pytest.mark.parametrize("name", ENVS)
def test_same_seed_same_game_across_processes(name):
    here = trajectory_digest(name, seed=11)
    assert trajectory_digest(name, seed=11) == here
    assert trajectory_digest(name, seed=12) != here
    code = f"from tests.helpers import trajectory_digest; print(trajectory_digest({name!r}, seed=11))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == here


@pytest.mark.parametrize("name", ENVS)
def test_spaces_built_once_and_observations_fit_them(name):
    module = env_module(name)
    env = module.raw_env()
    agent = env.possible_agents[0]
    assert env.observation_space(agent) is env.observation_space(agent)
    assert env.action_space(agent) is env.action_space(agent)
    checked = 0

    def check(e):
        nonlocal checked
        for a in e.agents:
            obs = e.observe(a)
            space = e.observation_space(a)
            assert obs["observation"].dtype == space["observation"].dtype
            assert obs["action_mask"].dtype == space["action_mask"].dtype == np.int8
            assert space.contains(obs), (a, space["observation"].low, obs["observation"], space["observation"].high)
            checked += 1

    for seed in range(3):
        (play_parallel if is_parallel(name) else play_aec)(module.parallel_env() if is_parallel(name) else env, seed, check)
    assert checked > 0


@pytest.mark.parametrize("name", TURN_BASED)
def test_first_player_varies_with_seed(name):
    env = env_module(name).raw_env()
    starters = set()
    for seed in range(20):
        env.reset(seed=seed)
        starters.add(env.agent_selection)
    assert len(starters) == env.num_players


@pytest.mark.parametrize("name", ENVS)
def test_bad_keywords_are_clear_errors(name):
    module = env_module(name)
    with pytest.raises(ConfigError, match="no_such_option"):
        module.raw_env(no_such_option=1)
    with pytest.raises(ConfigError, match="num_players"):
        module.raw_env(num_players=99)
    with pytest.raises(ConfigError, match="num_players"):
        module.raw_env(num_players=0)
    with pytest.raises(ConfigError, match="reward"):
        module.raw_env(reward="money")
    with pytest.raises(ConfigError, match="render_mode"):
        module.raw_env(render_mode="hologram")
    with pytest.raises(ConfigError, match="max_steps"):
        module.raw_env(max_steps=0)


@pytest.mark.parametrize("name", TURN_BASED)
def test_illegal_and_out_of_range_actions_raise_and_change_nothing(name):
    env = env_module(name).raw_env()
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    for _ in range(5):  # a few moves in, so the state is not the initial one
        env.step(random_legal(env.observe(env.agent_selection)["action_mask"], rng))
    before = json.dumps(env.state_dict(), sort_keys=True)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = np.flatnonzero(mask == 0)
    bad_actions = [env.num_actions, -1, "a", 1.5, None]
    if len(illegal):
        bad_actions.append(int(illegal[0]))
        with pytest.raises(IllegalActionError, match="legal actions: "):
            env.step(int(illegal[0]))
    for action in bad_actions:
        with pytest.raises(IllegalActionError):
            env.step(action)
        assert json.dumps(env.state_dict(), sort_keys=True) == before


def same_step(ours, theirs) -> None:
    """Two AEC envs agree on everything an agent loop reads."""
    assert ours.agent_selection == theirs.agent_selection and ours.agents == theirs.agents
    for field in ("rewards", "_cumulative_rewards", "terminations", "truncations", "infos"):
        assert getattr(ours, field) == getattr(theirs, field), field
    if ours.agents:
        (obs1, *rest1), (obs2, *rest2) = ours.last(), theirs.last()
        assert rest1 == rest2
        assert all(np.array_equal(obs1[k], obs2[k]) for k in ("observation", "action_mask"))


@pytest.mark.parametrize("name", TURN_BASED)
def test_public_env_behaves_as_pettingzoos_wrapper_chain_also_after_an_illegal_move(name):
    from pettingzoo.utils.wrappers import AssertOutOfBoundsWrapper, OrderEnforcingWrapper, TerminateIllegalWrapper

    module = env_module(name)
    for illegal_at in (0, 3, None):
        ours = module.env()
        theirs = OrderEnforcingWrapper(AssertOutOfBoundsWrapper(TerminateIllegalWrapper(module.raw_env(), -1)))
        ours.reset(seed=5)
        theirs.reset(seed=5)
        rng = np.random.default_rng(5)
        steps = 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for agent in ours.agent_iter(max_iter=60):
                same_step(ours, theirs)
                obs, _, term, trunc, _ = ours.last()
                illegal = np.flatnonzero(obs["action_mask"] == 0)
                if term or trunc:
                    action = None
                elif steps == illegal_at and len(illegal):
                    action = int(illegal[0])
                else:
                    action = random_legal(obs["action_mask"], rng)
                ours.step(action)
                theirs.step(action)
                steps += 1
            same_step(ours, theirs)
        if illegal_at is not None:
            assert not ours.agents, "an illegal move ends the episode"


@pytest.mark.parametrize("name", TURN_BASED)
def test_truncation_at_the_game_length_bound(name):
    env = env_module(name).raw_env(max_steps=4)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    steps = 0
    while not any(env.truncations.values()) and not any(env.terminations.values()):
        env.step(random_legal(env.observe(env.agent_selection)["action_mask"], rng))
        steps += 1
    assert steps == 4 and all(env.truncations.values())
    assert all(r == 0 for r in env._cumulative_rewards.values())
    assert all(not env.observe(agent)["action_mask"].any() for agent in env.possible_agents)  # nobody may act


@pytest.mark.parametrize("name", ENVS)
def test_a_plain_reset_continues_the_seeded_random_stream(name):
    """reset(seed) seeds the env's one generator; a later reset() without a seed draws on from it, so a
    run of episodes is reproducible from its first seed and its episodes differ."""

    def episodes(env) -> list[str]:
        out = []
        for seed in (3, None, None):
            env.reset(seed=seed)
            out.append(json.dumps(env.state_dict(), sort_keys=True))
        return out

    first = episodes(specs.get(name).raw_env())
    assert episodes(specs.get(name).raw_env()) == first
    assert len(set(first)) == 3, "a plain reset repeated the seeded game instead of drawing on"


@pytest.mark.parametrize("name", TURN_BASED)
def test_snapshot_round_trip_continues_identically(name):
    module = env_module(name)
    env = module.raw_env()
    env.reset(seed=21)
    rng = np.random.default_rng(21)
    for _ in range(7):
        if env.terminations[env.agent_selection]:
            break
        env.step(random_legal(env.observe(env.agent_selection)["action_mask"], rng))
    snapshot = json.loads(json.dumps(env.state_dict()))
    other = module.raw_env()
    other.load_state_dict(snapshot)
    assert other.game == env.game
    copy = env.game.copy()
    assert copy == env.game and copy is not env.game
    for _ in range(30):
        if env.terminations[env.agent_selection] or env.truncations[env.agent_selection]:
            break
        a = env.agent_selection
        assert other.agent_selection == a
        assert np.array_equal(env.observe(a)["observation"], other.observe(a)["observation"])
        action = random_legal(env.observe(a)["action_mask"], rng)
        env.step(action)
        other.step(action)  # chance continues identically: the rng state travels in the snapshot
    assert other.game == env.game
    with pytest.raises(ConfigError):
        other.load_state_dict(dict(snapshot, env="another_env_v0"))


@pytest.mark.parametrize("name", TURN_BASED)
def test_reward_modes(name):
    module = env_module(name)
    for seed in range(4):
        env = module.raw_env(reward="score")
        result = play_aec(env, seed)
        game = env.game
        if game.game_over:
            scale = max(abs(v) for v in game.score_range)
            for seat, agent in enumerate(env.seat_agents):
                assert result["rewards"][agent] == pytest.approx(game.scores()[seat] / scale)
                assert -1 <= result["rewards"][agent] <= 1
        env = module.raw_env(reward="margin")
        result = play_aec(env, seed)
        game = env.game
        if game.game_over:
            scores, (low, high) = game.scores(), game.score_range
            for seat, agent in enumerate(env.seat_agents):
                others = [s for p, s in enumerate(scores) if p != seat]
                expected = (scores[seat] - (max(others) if others else 0)) / (high - low)
                assert result["rewards"][agent] == pytest.approx(expected)
                assert -1 <= result["rewards"][agent] <= 1
                if others:  # a positive margin is exactly a sole win
                    assert (result["rewards"][agent] > 0) == (game.winners() == [seat])
        env = module.raw_env(reward="win")
        result = play_aec(env, seed)
        winners = set(env.game.winners())
        values = result["rewards"]
        if len(winners) == env.num_players:
            assert set(values.values()) == {0.0}
        else:
            for seat, agent in enumerate(env.seat_agents):
                assert values[agent] == (1.0 if seat in winners else -1.0)


@pytest.mark.parametrize("name", ENVS)
def test_declared_facts_hold(name):
    module = env_module(name)
    game_cls = module.raw_env().game_class
    assert isinstance(game_cls.version, int) and name.endswith(f"_v{game_cls.version}")
    assert 1 <= game_cls.min_players <= game_cls.default_players <= game_cls.max_players
    low, high = game_cls.score_range
    assert low < high
    for n in player_counts(name):
        env = module.raw_env(num_players=n)
        agent = env.possible_agents[0]
        assert env.action_space(agent).n == env.num_actions
        assert env.observation_space(agent)["observation"].shape == (env.encoder.layout.size,)
        assert env.max_steps == game_cls.default_max_steps(n) > 0
        finished = 0
        for seed in range(3):
            if is_parallel(name):
                env = module.raw_parallel_env(num_players=n)
                play_parallel(env, seed)
            else:
                play_aec(env, seed)
            game = env.game
            if game.game_over:
                finished += 1
                assert all(low <= s <= high for s in game.scores()), (game.scores(), game.score_range)
                assert game.winners() and all(0 <= w < n for w in game.winners())
        assert finished, "no random game ended: the facts above went unchecked"


# --- simultaneous envs: the same checks through the parallel API ---------------------------------
# Their module gives `parallel_env` (public, illegal moves end the game), `raw_parallel_env`
# (illegal input raises IllegalActionError), and the AEC views `env` / `raw_env`.


@pytest.mark.parametrize("name", PARALLEL)
def test_parallel_seed_tests(name):
    module = env_module(name)
    parallel_masked_seed_test(module.parallel_env, num_cycles=300)
    seed_test(module.env, num_cycles=300)  # the AEC view; PettingZoo's AEC seed_test samples masked actions


@pytest.mark.parametrize("name", PARALLEL)
def test_parallel_seats_vary_with_seed(name):
    env = env_module(name).raw_parallel_env()
    orders = set()
    for seed in range(20):
        env.reset(seed=seed)
        orders.add(tuple(env.seat_agents))
    assert len(orders) > 1


def _advance(env, rng, ticks: int):
    observations, _ = env.reset(seed=3)
    for _ in range(ticks):
        if not env.agents:
            break
        observations, *_ = env.step(random_joint(env, observations, rng))
    return observations


@pytest.mark.parametrize("name", PARALLEL)
def test_parallel_bad_input_raises_and_changes_nothing(name):
    env = env_module(name).raw_parallel_env()
    rng = np.random.default_rng(3)
    observations = _advance(env, rng, 5)  # a few ticks in, so the state is not the initial one
    before = json.dumps(env.state_dict(), sort_keys=True)
    good = random_joint(env, observations, rng)
    first, other = env.agents[0], env.agents[1]
    illegal = np.flatnonzero(observations[first]["action_mask"] == 0)
    bad_inputs = [
        {**good, first: env.num_actions}, {**good, first: -1}, {**good, first: "a"}, {**good, first: 1.5},
        {**good, first: None}, {first: good[first]}, {**good, "player_99": 0}, [good[first], good[other]], None,
    ]
    assert len(illegal)
    with pytest.raises(IllegalActionError, match="legal actions: "):
        env.step({**good, first: int(illegal[0])})
    with pytest.raises(IllegalActionError, match="missing"):
        env.step({first: good[first]})
    with pytest.raises(IllegalActionError, match="not in the episode"):
        env.step({**good, "player_99": 0})
    for actions in bad_inputs:
        with pytest.raises(IllegalActionError):
            env.step(actions)
        assert json.dumps(env.state_dict(), sort_keys=True) == before
    env.step(good)  # and the env goes on
    assert json.dumps(env.state_dict(), sort_keys=True) != before


@pytest.mark.parametrize("name", PARALLEL)
def test_parallel_public_env_ends_the_game_on_an_illegal_move(name):
    env = env_module(name).parallel_env()
    observations, _ = env.reset(seed=5)
    rng = np.random.default_rng(5)
    actions = random_joint(env, observations, rng)
    offender = env.agents[0]
    illegal = np.flatnonzero(observations[offender]["action_mask"] == 0)
    actions[offender] = int(illegal[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        observations, rewards, terms, truncs, infos = env.step(actions)
    assert all(terms.values()) and not any(truncs.values()) and env.agents == []
    assert rewards[offender] == -1 and all(r == 0 for a, r in rewards.items() if a != offender)
    assert all(not obs["action_mask"].any() for obs in observations.values())
    with pytest.raises(AssertionError):
        env.reset(seed=5)
        env.step({a: env.num_actions for a in env.agents})  # outside the action space


@pytest.mark.parametrize("name", PARALLEL)
def test_parallel_truncation_at_the_game_length_bound(name):
    env = env_module(name).raw_parallel_env(max_steps=4)
    rng = np.random.default_rng(0)
    observations, _ = env.reset(seed=0)
    steps, total = 0, {a: 0.0 for a in env.possible_agents}
    while env.agents:
        observations, rewards, terms, truncs, _ = env.step(random_joint(env, observations, rng))
        steps += 1
        for a, r in rewards.items():
            total[a] += r
    assert steps == 4 and all(truncs.values()) and not any(terms.values())
    assert all(r == 0 for r in total.values())
    assert all(not obs["action_mask"].any() for obs in observations.values())
    with pytest.raises(IllegalActionError, match="over"):
        env.step({})


@pytest.mark.parametrize("name", PARALLEL)
def test_parallel_snapshot_round_trip_continues_identically(name):
    module = env_module(name)
    env = module.raw_parallel_env()
    rng = np.random.default_rng(21)
    observations = _advance(env, rng, 7)
    snapshot = json.loads(json.dumps(env.state_dict()))
    other = module.raw_parallel_env()
    other.load_state_dict(snapshot)
    assert other.game == env.game
    copy = env.game.copy()
    assert copy == env.game and copy is not env.game
    for _ in range(30):
        if not env.agents:
            break
        assert other.agents == env.agents
        for a in env.agents:
            assert np.array_equal(env.observe(a)["observation"], other.observe(a)["observation"])
        actions = random_joint(env, observations, rng)
        observations, rewards, *_ = env.step(actions)
        _, other_rewards, *_ = other.step(actions)  # chance continues identically: the rng travels along
        assert rewards == other_rewards
    assert other.game == env.game
    with pytest.raises(ConfigError):
        other.load_state_dict(dict(snapshot, env="another_env_v0"))


@pytest.mark.parametrize("name", PARALLEL)
def test_parallel_reward_modes(name):
    module = env_module(name)
    for seed in range(3):
        env = module.raw_parallel_env(reward="win")
        result = play_parallel(env, seed)
        winners = set(env.game.winners())
        assert env.game.game_over
        for seat, agent in enumerate(env.seat_agents):
            expected = 0.0 if len(winners) == env.num_players else 1.0 if seat in winners else -1.0
            assert result["rewards"][agent] == expected
    if "round" not in module.raw_parallel_env().reward_modes:
        return
    env = module.raw_parallel_env(reward="round")
    rng = np.random.default_rng(0)
    observations, _ = env.reset(seed=0)
    rounds = 0
    while env.agents:
        observations, rewards, *_ = env.step(random_joint(env, observations, rng))
        result = env.game.round_result()
        expected = [0.0] * env.num_players if result is None else result
        assert [rewards[a] for a in env.seat_agents] == expected
        assert sum(rewards.values()) == 0
        rounds += result is not None
    assert rounds >= 1


@pytest.mark.parametrize("name", TURN_BASED)
def test_a_turn_based_game_takes_joint_actions_from_its_one_seat_to_act(name):
    game = specs.get(name).raw_env().game_class(2, np.random.default_rng(4))
    twin = game.copy()
    seat = game.current_player
    assert game.players_to_act() == [seat]
    action = game.legal_actions()[-1]
    before = game.to_json()
    for bad in ({seat: action, (seat + 1) % 2: action}, {(seat + 1) % 2: action}, {}):
        with pytest.raises(IllegalActionError, match="one action for each seat to act"):
            game.apply_joint(bad)
        assert game.to_json() == before
    game.apply_joint({seat: action})
    twin.apply(action)
    assert game == twin


# --- state(): PettingZoo's global view for centralised training -------------------------------------------------
@pytest.mark.parametrize("name", ENVS)
def test_pettingzoos_state_test(name):
    module = env_module(name)
    for n in player_counts(name):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            state_test(module.env(num_players=n), module.parallel_env(num_players=n), num_cycles=50)


@pytest.mark.parametrize("name", ENVS)
def test_state_is_every_agents_observation_in_agent_order_at_every_step(name):
    """state() = the agents' observation vectors one after another, in possible_agents order (seats shuffled
    or not), through the public env and the raw one, to the end of the game; always inside state_space."""
    module = env_module(name)
    for n in player_counts(name):
        for env in (module.env(num_players=n), module.raw_env(num_players=n)):
            checked = []

            def check(env):
                state = env.state()
                assert env.state_space.contains(state)
                size = env.observation_space(env.possible_agents[0])["observation"].shape[0]
                assert state.shape == (n * size,)  # noqa: B023
                for i, agent in enumerate(env.possible_agents):
                    assert np.array_equal(state[i * size:(i + 1) * size], env.observe(agent)["observation"]), agent
                checked.append(True)  # noqa: B023

            play_aec(env, seed=n, on_step=check)
            check(env)  # the finished game
            assert len(checked) > 5


@pytest.mark.parametrize("name", ENVS)
def test_state_before_reset_is_refused(name):
    module = env_module(name)
    raw = module.raw_parallel_env() if is_parallel(name) else module.raw_env()
    with pytest.raises(IllegalActionError, match=r"state\(\) before reset\(\)"):
        raw.state()
    with pytest.raises(AssertionError, match="reset"):
        module.env().state()
