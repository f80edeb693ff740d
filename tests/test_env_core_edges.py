"""Edges of the AEC machinery every turn-based game shares (`snack_envs.core.env`), each found by a mutation
probe where no other test noticed the behaviour breaking:

- an env names itself in `metadata["name"]`, as PettingZoo's tools read it;
- an episode cut at `max_steps` ends as a finished one does: every agent, truncated, steps out with None,
  and nobody may act afterwards;
- render_mode="human" shows the table after every step, and an env without a render_mode draws nothing
  (no "render() called without a render_mode" warning per step);
- the reward an agent has been shown by `last()` is cleared once it acts (PettingZoo's accumulated reward),
  also when it came from a snapshot;
- snapshots of ended episodes: taken anywhere in a truncated one they load as they were; the agent selected
  must be one still to step out (or, once all have, one of the env's), the error naming which; a finished
  game must have every agent terminated; one the public env ended on an illegal move loads, and its agents
  step out as in the env it came from;
- final rewards of a solo game in each reward mode, and the "score" scale taken from either end of the range;
- the unknown-reset-option warning points at the caller's line; the turn-based envs' agents are alike;
- the final infos (seat, score, winner); a snapshot that is no dict, or of another number of players, is refused;
- the public env (as PettingZoo's OrderEnforcingWrapper) refuses a step before reset with PettingZoo's
  message, and ignores one after the episode ended (with PettingZoo's warning); the raw env's action_mask() and
  action_to_str();
- the env keywords: an unknown one is refused naming the known ones, max_steps is a positive int (not a bool,
  not a float), shuffle_seats a bool; `metadata["render_fps"]` is the rate recordings are written at; the
  action-mask space is one int8 bit per action;
- render() without a render_mode warns as Gymnasium does and returns None, and before reset says to call it;
  so does state_dict() before reset (it failed on a missing game);
  "human" mode draws in a window where one opens and prints the table where none does, and close() closes it;
- the public env as PettingZoo's wrappers: an illegal move costs the mover exactly -1 (its unclaimed reward
  dropped) and the others 0, with the "Illegal move made" warning; an action outside the action space fails
  an assertion and changes nothing; its episode attributes are refused until its own reset, also over an env
  that holds a loaded snapshot.

The probe also found two bugs, now fixed: after a truncated episode every agent had left, the seat that was
to act saw its legal actions again, and the env refused its own snapshot of that episode.
"""

from __future__ import annotations

import copy
import pickle
import re
import warnings

import numpy as np
import pytest
from pettingzoo.utils.env_logger import EnvLogger

import snack_envs
from snack_envs.core import picture
from snack_envs.core.env import final_rewards
from snack_envs.core.game import ConfigError, IllegalActionError
from tests.helpers import env_module, is_parallel, play_aec, random_legal

TURN_BASED = [n for n in snack_envs.ENV_NAMES if not is_parallel(n)]


@pytest.mark.parametrize("make", ["env", "raw_env"])
@pytest.mark.parametrize("name", TURN_BASED)
def test_an_env_names_itself_in_its_metadata(name, make):
    env = getattr(env_module(name), make)()
    assert env.metadata["name"] == name
    assert env.unwrapped.metadata["name"] == name


@pytest.mark.parametrize("make", ["env", "raw_env"])
@pytest.mark.parametrize("name", TURN_BASED)
def test_a_truncated_episode_lets_every_agent_step_out_with_none(name, make):
    env = getattr(env_module(name), make)(max_steps=4)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    moves, left = 0, []
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        if term or trunc:
            assert trunc and not term and reward == 0
            left.append(agent)
            env.step(None)
            continue
        env.step(random_legal(env.observe(agent)["action_mask"], rng))
        moves += 1
    assert moves == 4
    assert sorted(left) == sorted(env.possible_agents) and not env.agents


@pytest.mark.parametrize("name", TURN_BASED)
def test_human_mode_shows_the_table_after_every_step(name, monkeypatch, capsys):
    monkeypatch.setattr(picture, "window_available", lambda: False)  # text, never a window
    env = env_module(name).raw_env(render_mode="human")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    capsys.readouterr()
    for _ in range(3):
        env.step(random_legal(env.observe(env.agent_selection)["action_mask"], rng))
        assert capsys.readouterr().out.strip(), "a step in human mode showed nothing"
    env.close()


@pytest.mark.parametrize("make", ["env", "raw_env"])
@pytest.mark.parametrize("name", TURN_BASED)
def test_an_env_without_a_render_mode_steps_without_drawing_or_warning(name, make, capsys):
    env = getattr(env_module(name), make)()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):
            env.step(random_legal(env.observe(env.agent_selection)["action_mask"], rng))
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("name", TURN_BASED)
def test_a_reward_shown_by_last_is_cleared_once_the_agent_acts(name):
    """PettingZoo's `last()` reward is what the agent earned since it last acted: a reward carried in a
    snapshot (say, from a shaping wrapper) is shown to the agent to act once, and gone after it moves."""
    env = env_module(name).raw_env()
    env.reset(seed=1)
    snapshot = env.state_dict()
    mover = snapshot["agent_selection"]
    snapshot["cumulative_rewards"][mover] = 0.5
    env.load_state_dict(snapshot)
    assert env.last()[1] == 0.5
    rng = np.random.default_rng(1)
    env.step(random_legal(env.observe(mover)["action_mask"], rng))
    while env.agent_selection != mover and not any(env.terminations.values()):
        env.step(random_legal(env.observe(env.agent_selection)["action_mask"], rng))
    assert env.agent_selection == mover, "the game ended before the agent's next turn; pick another seed"
    assert env.last()[1] == 0.0


def truncated_snapshots(name: str) -> list[dict]:
    """The snapshots of a game cut at max_steps=2, one before each step, dead steps included, and one at the end."""
    env = env_module(name).raw_env(max_steps=2)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    snapshots = []
    while env.agents:
        snapshots.append(env.state_dict())
        agent = env.agent_selection
        done = env.terminations[agent] or env.truncations[agent]
        env.step(None if done else random_legal(env.observe(agent)["action_mask"], rng))
    return snapshots + [env.state_dict()]


@pytest.mark.parametrize("name", TURN_BASED)
def test_a_snapshot_taken_anywhere_in_a_truncated_episode_loads_as_it_was(name):
    """The last one too, once every agent has left (it was refused as a game under way)."""
    for snapshot in truncated_snapshots(name):
        env = env_module(name).raw_env(max_steps=2)
        env.load_state_dict(snapshot)
        assert env.state_dict() == snapshot


@pytest.mark.parametrize("name", TURN_BASED)
def test_a_snapshot_without_agents_in_a_game_still_short_of_max_steps_is_refused(name):
    """Every agent gone while the game goes on is an episode cut at max_steps; short of it, nobody left is wrong."""
    snapshot = truncated_snapshots(name)[-1]
    with pytest.raises(ConfigError, match=r"agents = \[\] in a game under way at step 2 of 3"):
        env_module(name).raw_env(max_steps=3).load_state_dict(snapshot)


@pytest.mark.parametrize("name", TURN_BASED)
def test_a_snapshot_of_an_ended_episode_must_select_one_of_its_agents(name):
    """Between the last move and the last dead step the agent selected is one still to step out; once every
    agent has, it is still one of the env's agents. The error names the agents it may be."""
    env = env_module(name).raw_env(max_steps=2)
    env.reset(seed=0)
    before = env.state_dict()
    for good in truncated_snapshots(name)[-2:]:  # one agent left to step out; none left
        allowed = good["agents"] or env.possible_agents
        gone = [a for a in env.possible_agents if a not in good["agents"]]
        for selected in ["mallory", *gone[:1]] if good["agents"] else ["mallory"]:
            bad = dict(good, agent_selection=selected)
            message = f"agent_selection = {selected!r} must be one of the agents {allowed}"
            with pytest.raises(ConfigError, match=re.escape(message)):
                env.load_state_dict(bad)
            assert env.state_dict() == before


@pytest.mark.parametrize("name", TURN_BASED)
def test_nobody_may_act_after_a_truncated_episode_has_ended(name):
    env = env_module(name).raw_env(max_steps=4)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        env.step(random_legal(env.observe(agent)["action_mask"], rng))
    assert not env.agents
    assert all(not env.observe(agent)["action_mask"].any() for agent in env.possible_agents)


@pytest.mark.parametrize("name", TURN_BASED)
def test_a_snapshot_of_a_finished_game_must_have_every_agent_terminated(name):
    env = env_module(name).raw_env()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    while not any(env.terminations.values()):
        env.step(random_legal(env.observe(env.agent_selection)["action_mask"], rng))
    good = env.state_dict()
    bad = dict(good, terminations=dict(good["terminations"], player_0=False))
    with pytest.raises(ConfigError, match=r"terminations = .* while the game is over: every agent is terminated"):
        env.load_state_dict(bad)
    assert env.state_dict() == good


@pytest.mark.parametrize("name", TURN_BASED)
def test_a_snapshot_after_an_illegal_move_loads_and_its_agents_step_out_alike(name):
    """The public env ends a game on an illegal move with every agent terminated and truncated, the game
    itself under way: that snapshot loads (a game under way may end so, for every agent at once), and both
    envs then step their agents out alike."""
    env = env_module(name).env(num_players=3 if name != "snack_rabbits_v0" else 2)
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        EnvLogger.suppress_output()
        try:
            env.step(int(np.flatnonzero(mask == 0)[0]))
        finally:
            EnvLogger.unsuppress_output()
    raw = env.unwrapped
    snapshot = raw.state_dict()
    assert not raw.game.game_over and all(snapshot["terminations"].values()) and all(snapshot["truncations"].values())
    other = env_module(name).raw_env(num_players=raw.num_players)
    other.reset(seed=1)
    other.load_state_dict(snapshot)
    while raw.agents:
        (obs, *rest), (other_obs, *other_rest) = raw.last(), other.last()
        assert other.agent_selection == raw.agent_selection and other_rest == rest
        assert all(np.array_equal(other_obs[key], obs[key]) for key in ("observation", "action_mask"))
        raw.step(None)
        other.step(None)
    after, other_after = raw.state_dict(), other.state_dict()
    del after["agent_selection"], other_after["agent_selection"]  # once every agent has left, nobody is to act
    assert not other.agents and other_after == after


@pytest.mark.parametrize("reward", ["margin", "score", "win"])
def test_a_solo_game_ends_with_its_own_reward(reward):
    """Solo (Snack Time with one player) there is no rival: "margin" is the score over the score range,
    "score" the score over the largest absolute score, "win" 0 (the one player shares the win with all)."""
    env = env_module("snack_time_v0").raw_env(num_players=1, reward=reward)
    result = play_aec(env, seed=0)
    game = env.game
    assert game.game_over
    (score,), (low, high) = game.scores(), game.score_range
    expected = {"margin": score / (high - low), "score": score / max(abs(low), abs(high)), "win": 0.0}[reward]
    assert result["rewards"]["player_0"] == pytest.approx(expected)


class FinishedGame:
    """Just what `final_rewards` reads of a finished game."""

    def __init__(self, scores, score_range, winners):
        self._scores, self.score_range, self._winners = scores, score_range, winners
        self.num_players = len(scores)

    def scores(self):
        return list(self._scores)

    def winners(self):
        return list(self._winners)


def test_the_score_reward_divides_by_the_largest_absolute_score_at_either_end():
    """So it lies in [-1, 1] also for a game whose worst score is further from 0 than its best."""
    deep_low = FinishedGame([-10.0, 5.0], (-10.0, 5.0), [1])
    assert final_rewards(deep_low, "score") == [-1.0, 0.5]
    high = FinishedGame([-2.0, 8.0], (-2.0, 8.0), [1])
    assert final_rewards(high, "score") == [-0.25, 1.0]


@pytest.mark.parametrize("name", TURN_BASED)
def test_the_unknown_reset_option_warning_points_at_the_callers_reset(name):
    env = env_module(name).raw_env()
    with pytest.warns(UserWarning, match=r"reset option\(s\) \['bad'\] ignored") as caught:
        env.reset(seed=1, options={"bad": 1})
    assert [w.filename for w in caught] == [__file__]


@pytest.mark.parametrize("name", TURN_BASED)
def test_the_turn_based_envs_agents_play_alike(name):
    """No turn-based game takes an option per agent, so a learner may always be the same agent."""
    assert env_module(name).raw_env().agents_alike() is True


@pytest.mark.parametrize("name", TURN_BASED)
def test_the_final_infos_name_each_agents_seat_score_and_whether_it_won(name):
    for seed in range(3):
        env = env_module(name).raw_env()
        final = {}

        def keep_infos(env, final=final):
            if env.game.game_over and not final:
                final.update({a: dict(i) for a, i in env.infos.items()})

        result = play_aec(env, seed=seed, on_step=keep_infos)
        game, winners = env.game, env.game.winners()
        for seat, agent in enumerate(env.seat_agents):
            named = {key: final[agent][key] for key in ("score", "winner", "seat")}  # a game may add more
            assert named == {"score": game.scores()[seat], "winner": seat in winners, "seat": seat}
            if len(winners) < env.num_players:  # "win" rewards: +1 exactly to the winners
                assert (result["rewards"][agent] == 1.0) == final[agent]["winner"]


@pytest.mark.parametrize("name", TURN_BASED)
def test_a_snapshot_must_be_a_dict_of_an_env_of_the_same_size(name):
    module = env_module(name)
    env = module.raw_env()
    env.reset(seed=0)
    before = env.state_dict()
    for not_a_dict in ([before], "snapshot", None):
        with pytest.raises(ConfigError, match=r"a snapshot is a dict as state_dict\(\) gives it"):
            env.load_state_dict(not_a_dict)
    larger = module.raw_env(num_players=env.num_players + 1)
    larger.reset(seed=0)
    with pytest.raises(ConfigError, match=rf"snapshot has {env.num_players + 1} players, this env {env.num_players}"):
        env.load_state_dict(larger.state_dict())
    assert env.state_dict() == before


@pytest.mark.parametrize("name", TURN_BASED)
def test_the_public_env_says_to_call_reset_before_the_first_step(name):
    env = env_module(name).env()
    with pytest.raises(AssertionError, match=r"reset\(\) needs to be called before step"):
        env.step(0)


@pytest.mark.parametrize("name", TURN_BASED)
def test_the_public_env_ignores_a_step_after_the_episode_ended(name):
    """PettingZoo's OrderEnforcingWrapper logs "step() called after all agents are terminated or truncated"
    and changes nothing; it raises nothing."""
    env = env_module(name).env()
    play_aec(env, seed=0)
    before = env.unwrapped.state_dict()
    env.step(None)
    assert not env.agents and env.unwrapped.state_dict() == before


@pytest.mark.parametrize("name", TURN_BASED)
def test_the_raw_env_names_actions_and_gives_the_movers_mask(name):
    env = env_module(name).raw_env()
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    assert np.array_equal(env.action_mask(env.agent_selection), mask)
    for action in np.flatnonzero(mask):
        assert env.action_to_str(action) == env.game.action_to_str(int(action)) != ""


@pytest.mark.parametrize("name", TURN_BASED)
def test_an_unknown_env_keyword_is_refused_naming_the_known_ones(name):
    message = rf"unknown keyword\(s\) \['bogus'\] for {name}; known keywords: \[.*'max_steps'"
    with pytest.raises(ConfigError, match=message):
        env_module(name).raw_env(bogus=1)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"max_steps": True}, r"max_steps must be a positive int, got True"),
        ({"max_steps": 2.5}, r"max_steps must be a positive int, got 2.5"),
        ({"shuffle_seats": 1}, r"shuffle_seats must be a bool, got 1"),
    ],
)
@pytest.mark.parametrize("name", TURN_BASED)
def test_max_steps_must_be_a_positive_int_and_shuffle_seats_a_bool(name, kwargs, message):
    """Not a bool taken for 1, a float cut down to an int, or an int taken for a truth value."""
    with pytest.raises(ConfigError, match=message):
        env_module(name).raw_env(**kwargs)


@pytest.mark.parametrize("name", TURN_BASED)
def test_every_env_announces_the_frame_rate_its_recordings_are_written_at(name):
    """Gymnasium's and PettingZoo's video wrappers read `metadata["render_fps"]`; snack-envs' own GIFs and
    MP4s use the same rate."""
    from snack_envs.recording import DEFAULT_FPS

    assert env_module(name).raw_env().metadata["render_fps"] == DEFAULT_FPS == 2


@pytest.mark.parametrize("name", TURN_BASED)
def test_the_action_mask_space_is_one_int8_bit_per_action(name):
    env = env_module(name).raw_env()
    for agent in env.possible_agents:
        space = env.observation_space(agent)["action_mask"]
        assert space.dtype == np.int8 and space.shape == (env.num_actions,)
        assert (space.low == 0).all() and (space.high == 1).all()


@pytest.mark.parametrize("name", TURN_BASED)
def test_render_without_a_render_mode_warns_as_gymnasium_does_and_draws_nothing(name):
    env = env_module(name).raw_env()
    env.reset(seed=0)
    with pytest.warns(UserWarning, match=r"render\(\) called without a render_mode"):
        assert env.render() is None


@pytest.mark.parametrize("name", TURN_BASED)
def test_render_before_reset_says_to_call_reset(name):
    assert env_module(name).raw_env(render_mode="ansi").render() == "(call reset() first)"


def human_env(name, monkeypatch, window: bool, shown: bool):
    """A human-mode env over a fake display: `window` whether one may be tried, `shown` whether it opens."""
    calls = []
    monkeypatch.setattr(picture, "window_available", lambda: window)
    monkeypatch.setattr(picture, "show_in_window", lambda image, title: calls.append(title) or shown)
    env = env_module(name).raw_env(render_mode="human")
    env.reset(seed=0)
    return env, calls


@pytest.mark.parametrize("name", TURN_BASED)
def test_human_mode_draws_in_the_window_when_one_opens_and_prints_nothing(name, monkeypatch, capsys):
    env, calls = human_env(name, monkeypatch, window=True, shown=True)
    capsys.readouterr()
    assert env.render() is None
    assert calls == [name] and capsys.readouterr().out == ""


@pytest.mark.parametrize("window", [False, True], ids=["no display", "window failed"])
@pytest.mark.parametrize("name", TURN_BASED)
def test_human_mode_prints_the_table_where_no_window_opens(name, window, monkeypatch, capsys):
    """Without a display no window is tried; where one is tried and fails to open, the text is printed."""
    env, calls = human_env(name, monkeypatch, window=window, shown=False)
    capsys.readouterr()
    assert env.render() is None
    assert len(calls) == int(window)
    assert capsys.readouterr().out.strip() == env.game.render_text(viewer=None, names=env.seat_agents).strip()


@pytest.mark.parametrize("name", TURN_BASED)
def test_closing_a_human_mode_env_closes_its_window(name, monkeypatch):
    closed = []
    monkeypatch.setattr(picture, "close_window", lambda: closed.append(True))
    env = env_module(name).raw_env(render_mode="human")
    env.close()
    assert closed == [True]
    env_module(name).raw_env(render_mode="ansi").close()
    assert closed == [True]


def illegal_move_setup(name, monkeypatch):
    """The public env at its first move, with a reward shown to the mover and one left over for the others
    in a snapshot, and an illegal action for the mover; PettingZoo's warnings collected in a fresh queue."""
    monkeypatch.setattr(EnvLogger, "mqueue", [])
    env = env_module(name).env()
    env.reset(seed=0)
    snapshot = env.unwrapped.state_dict()
    mover = snapshot["agent_selection"]
    snapshot["cumulative_rewards"][mover] = 0.5
    snapshot["rewards"] = {a: (0.0 if a == mover else 0.3) for a in snapshot["rewards"]}
    env.unwrapped.load_state_dict(snapshot)
    illegal = np.flatnonzero(env.observe(mover)["action_mask"] == 0)
    assert len(illegal), "every action is legal here; pick another seed"
    return env, mover, int(illegal[0])


@pytest.mark.parametrize("name", TURN_BASED)
def test_an_illegal_move_costs_the_mover_exactly_minus_one_and_the_others_nothing(name, monkeypatch):
    """As PettingZoo's TerminateIllegalWrapper: the mover's unclaimed reward is dropped and this step's
    rewards are -1 for it, 0 for everyone else, with PettingZoo's "Illegal move made" warning."""
    env, mover, illegal = illegal_move_setup(name, monkeypatch)
    env.step(illegal)
    assert env.rewards == {a: (-1.0 if a == mover else 0.0) for a in env.possible_agents}
    assert env.unwrapped.state_dict()["cumulative_rewards"] == env.rewards
    assert any("Illegal move made" in message for message in EnvLogger.mqueue)


@pytest.mark.parametrize("name", TURN_BASED)
def test_the_public_env_asserts_an_action_outside_the_action_space(name):
    """As PettingZoo's AssertOutOfBoundsWrapper: no illegal-move penalty, an AssertionError, nothing changed."""
    env = env_module(name).env()
    env.reset(seed=0)
    before = env.unwrapped.state_dict()
    for out_of_range in (env.unwrapped.num_actions, -1, 10**20):  # 10**20 overflowed gymnasium's contains
        with pytest.raises(AssertionError, match="action is not in action space"):
            env.step(out_of_range)
    assert env.unwrapped.state_dict() == before


@pytest.mark.parametrize("name", TURN_BASED)
def test_the_public_env_refuses_a_bool_as_raw_env_does_whether_or_not_its_int_is_legal(name):
    """True is 1 to gymnasium's Discrete but no action to the game: an IllegalActionError, nothing changed; it
    was stepped as action 1 where 1 was legal, and was an illegal move ending the game with -1 where not."""
    tried = 0
    for legal_one in (True, False):  # Snack Rabbits' first turn never allows action 1
        env = env_module(name).env()
        for seed in range(200):
            env.reset(seed=seed)
            if bool(env.observe(env.agent_selection)["action_mask"][1]) is legal_one:
                break
        else:
            continue
        tried += 1
        before = env.unwrapped.state_dict()
        with pytest.raises(IllegalActionError, match="an action must be an int .* got True of type bool"):
            env.step(True)
        assert env.unwrapped.state_dict() == before and not any(env.terminations.values())
    assert tried


@pytest.mark.parametrize("name", TURN_BASED)
def test_the_public_env_warns_of_a_step_after_the_episode_ended(name, monkeypatch):
    monkeypatch.setattr(EnvLogger, "mqueue", [])
    env = env_module(name).env()
    play_aec(env, seed=0)
    env.step(None)
    assert any("step() called after all agents are terminated or truncated" in m for m in EnvLogger.mqueue)


EPISODE_ATTRIBUTES = ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos")


def _snapshot_a_few_moves_in(name: str, seed: int = 0) -> dict:
    """A snapshot of a public AEC env after two rounds of random legal moves (whole ticks in Speed Snacks)."""
    env = env_module(name).env()
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(2 * len(env.possible_agents)):
        env.step(random_legal(env.last()[0]["action_mask"], rng))
    return env.unwrapped.state_dict()


def _play_on(env, moves: int, seed: int) -> list:
    """What a loop over `agent_iter` sees for `moves` steps of random legal actions (None once done)."""
    seen, rng = [], np.random.default_rng(seed)
    for agent in env.agent_iter(moves):
        obs, reward, term, trunc, info = env.last()
        seen.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward, term, trunc))
        env.step(None if term or trunc else random_legal(obs["action_mask"], rng))
    return seen


@pytest.mark.parametrize("name", snack_envs.ENV_NAMES)
def test_the_public_env_refuses_its_episode_attributes_until_reset_or_a_snapshot_load(name):
    env = env_module(name).env()
    for attribute in EPISODE_ATTRIBUTES:
        with pytest.raises(AttributeError, match=f"{attribute} cannot be accessed before reset"):
            getattr(env, attribute)


@pytest.mark.parametrize("name", snack_envs.ENV_NAMES)
def test_a_snapshot_loaded_into_a_public_env_never_reset_starts_play_from_it(name):
    """Loading a snapshot into `env.unwrapped` is a start, as reset() is: the public env (and a deep copy or
    pickle of it, loaded in turn) plays on from the snapshot as an env reset and loaded does."""
    snapshot = _snapshot_a_few_moves_in(name)
    reset_first = env_module(name).env()
    reset_first.reset(seed=1)
    reset_first.unwrapped.load_state_dict(snapshot)
    expected = _play_on(reset_first, 12, seed=2)
    fresh = env_module(name).env()
    for env in (fresh, copy.deepcopy(fresh), pickle.loads(pickle.dumps(fresh))):
        env.unwrapped.load_state_dict(snapshot)
        assert env.agents == reset_first.possible_agents and env.agent_selection == snapshot_selection(snapshot)
        assert _play_on(env, 12, seed=2) == expected
    untouched = env_module(name).env()
    copy.deepcopy(untouched).unwrapped.load_state_dict(snapshot)  # a copy's load starts the copy only
    with pytest.raises(AttributeError, match="agents cannot be accessed before reset"):
        _ = untouched.agents


def snapshot_selection(snapshot: dict) -> str:
    """The agent to act first after loading `snapshot`: its agent_selection, or in a parallel snapshot (a new
    tick) the first agent."""
    return snapshot.get("agent_selection", snapshot["agents"][0])


@pytest.mark.parametrize("name", snack_envs.ENV_NAMES)
def test_a_snapshot_of_an_episode_under_way_past_the_envs_max_steps_is_refused(name):
    """An episode under way at step k is one that an env with max_steps <= k would have truncated already."""
    snapshot = _snapshot_a_few_moves_in(name)
    steps = snapshot["num_steps"]
    assert steps > 0 and snapshot["agents"]
    for max_steps in (steps, 1):
        env = env_module(name).raw_env(max_steps=max_steps)
        env.reset(seed=3)
        before = env.state_dict()
        with pytest.raises(ConfigError, match=rf"num_steps = {steps} in an episode under way, .* max_steps = {max_steps}$"):
            env.load_state_dict(snapshot)
        assert env.state_dict() == before
    env = env_module(name).raw_env(max_steps=steps + 1)
    env.load_state_dict(snapshot)
    assert env.state_dict() == snapshot


@pytest.mark.parametrize("name", snack_envs.ENV_NAMES)
def test_a_snapshot_before_reset_says_to_call_reset(name):
    with pytest.raises(IllegalActionError, match=r"state_dict\(\) before reset\(\); call reset\(\) first"):
        env_module(name).raw_env().state_dict()
