"""Edges of the parallel core (`snack_envs.core.parallel`, Speed Snacks' env) found by a mutation probe
where no other test noticed the behaviour breaking:

- a snapshot's agents must fit its episode: all of them while it goes on, none once it has ended (by the
  rules, at max_steps, or for an illegal move); a snapshot that breaks this is refused and changes nothing;
  a halted one without agents loads, with empty masks;
- the public parallel env asserts on an action outside the action space also when it is no int (a float,
  None, a 1-d array), and takes numpy integers and 0-d integer arrays;
- render_mode="human" shows the table after every joint step; without a render_mode nothing is drawn;
- the public parallel env answers a step after the episode ended with PettingZoo's warning and five empty dicts;
- a parallel env has no agents before reset(); reset() after a truncated episode gives live masks again;
- `end_for_illegal_actions` and the wrapper's `illegal_reward`;
- the AEC view over the parallel env, after a snapshot is loaded: no reward left over from before; a view
  never reset starts its episode there; an ended snapshot shows its terminations or truncations and infos
  (an illegal-action end as a termination naming the offenders, also from a snapshot).
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from pettingzoo.utils.env_logger import EnvLogger

from snack_envs import speed_snacks_v1
from snack_envs.core import picture
from snack_envs.core.game import ConfigError, IllegalActionError
from snack_envs.speed_snacks.rules import WAIT
from tests.helpers import random_joint


def raw_mid_game(steps: int = 4, seed: int = 5):
    """The raw parallel env `steps` random joint steps into a seeded game (still under way)."""
    env = speed_snacks_v1.raw_parallel_env()
    observations, _ = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        observations, *_ = env.step(random_joint(env, observations, rng))
    assert env.agents and not env.game.game_over
    return env


def frozen(env) -> str:
    return json.dumps(env.state_dict(), sort_keys=True)


def _drop_one_agent(snap: dict) -> None:
    snap["agents"] = snap["agents"][:1]


def _no_agents(snap: dict) -> None:
    snap["agents"] = []


def _halted_with_agents(snap: dict) -> None:
    snap["halted"] = True


@pytest.mark.parametrize(
    "edit", [_drop_one_agent, _no_agents, _halted_with_agents],
    ids=["one agent gone mid-game", "no agents mid-game", "halted with every agent"],
)
def test_a_snapshot_whose_agents_do_not_fit_its_episode_is_refused_and_changes_nothing(edit):
    """Every agent takes part until the episode ends (game over or halted), none after: the module's
    _check_episode_state refuses anything else before the env changes."""
    good = json.loads(json.dumps(raw_mid_game().state_dict()))
    bad = json.loads(json.dumps(good))
    edit(bad)
    other = raw_mid_game(steps=2, seed=9)
    before = frozen(other)
    with pytest.raises(ConfigError, match="every agent takes part until the episode ends, none after"):
        other.load_state_dict(bad)
    assert frozen(other) == before
    other.load_state_dict(good)
    assert frozen(other) == json.dumps(good, sort_keys=True)


def test_a_halted_snapshot_without_agents_loads_and_shows_empty_masks():
    """The consistent ended form (halted, no agents) is taken; its masks are all zero."""
    snap = raw_mid_game().state_dict()
    snap["halted"], snap["agents"] = True, []
    env = speed_snacks_v1.raw_parallel_env()
    env.reset(seed=0)
    env.load_state_dict(snap)
    assert env.agents == [] and env.halted
    for agent in env.possible_agents:
        assert not env.observe(agent)["action_mask"].any()


@pytest.mark.parametrize("action", [0.0, np.float64(0.0), None, np.array([WAIT])], ids=["float", "np.float64", "None", "1-d array"])
def test_the_public_parallel_env_asserts_on_a_non_integer_action_and_changes_nothing(action):
    """WAIT (0) is legal at the start, but 0.0, None or a 1-d array is not in Discrete(75): an AssertionError,
    as PettingZoo's AssertOutOfBoundsWrapper gives, with the state unchanged (no step, no penalty)."""
    env = speed_snacks_v1.parallel_env()
    observations, _ = env.reset(seed=0)
    assert all(observations[a]["action_mask"][WAIT] for a in env.agents)
    before = frozen(env.unwrapped)
    with pytest.raises(AssertionError, match="action is not in action space"):
        env.step({a: action for a in env.agents})
    assert frozen(env.unwrapped) == before and env.unwrapped.num_steps == 0


@pytest.mark.parametrize("action", ["0", None, -1, 10**20, 0.0, np.array([WAIT])])
def test_the_aec_view_of_the_public_env_asserts_when_the_agent_steps_and_queues_nothing(action):
    """Outside the action space, the first agent's action fails its assertion at its own step, as in the
    turn-based env(); it was queued and failed at the tick's last step, blaming the agent stepping then,
    and stayed queued, so that every later step of the tick failed again."""
    env = speed_snacks_v1.env()
    env.reset(seed=0)
    first = env.agent_selection
    with pytest.raises(AssertionError, match="action is not in action space"):
        env.step(action)
    assert env.agent_selection == first
    for agent in env.possible_agents:  # the tick goes on with legal actions
        assert env.agent_selection == agent
        env.step(WAIT)
    assert env.unwrapped.num_steps == 1 and not any(env.terminations.values())


@pytest.mark.parametrize("public", [True, False])
def test_a_bool_is_no_action_in_the_parallel_env_even_where_its_int_is_legal(public):
    """False is WAIT (0) to gymnasium's Discrete but no action to the game: an IllegalActionError before any
    change, as raw_env() gives; True was an illegal move ending the episode, False a late IllegalActionError."""
    env = speed_snacks_v1.parallel_env() if public else speed_snacks_v1.raw_env().unwrapped
    env.reset(seed=0)
    before = frozen(env.unwrapped)
    for flag in (True, False, np.bool_(False)):
        with pytest.raises(IllegalActionError, match=r"an action must be an int .* got (np\.)?(True|False)"):
            env.step({agent: flag for agent in env.agents})
    assert frozen(env.unwrapped) == before and env.unwrapped.num_steps == 0


@pytest.mark.parametrize("action", [np.int64(WAIT), np.array(WAIT)], ids=["np.int64", "0-d int array"])
def test_the_public_parallel_env_takes_numpy_integers(action):
    """The other side of the check above: a legal action as a numpy integer, or a 0-d integer array (which
    Discrete.contains takes), is stepped (no assertion, no penalty)."""
    env = speed_snacks_v1.parallel_env()
    env.reset(seed=0)
    _, rewards, terms, truncs, _ = env.step({a: action for a in env.agents})
    assert env.unwrapped.num_steps == 1 and set(rewards.values()) == {0.0}
    assert not any(terms.values()) and not any(truncs.values())


@pytest.mark.parametrize("make", ["raw_parallel_env", "parallel_env"])
def test_human_mode_shows_the_table_after_every_joint_step(make, monkeypatch, capsys):
    monkeypatch.setattr(picture, "window_available", lambda: False)  # text, never a window
    env = getattr(speed_snacks_v1, make)(render_mode="human")
    observations, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    capsys.readouterr()
    for _ in range(3):
        observations, *_ = env.step(random_joint(env, observations, rng))
        shown = capsys.readouterr().out.strip()
        raw = env.unwrapped
        assert shown == raw.game.render_text(viewer=None, names=raw.seat_agents).strip()
    env.close()


def test_the_public_parallel_env_warns_and_returns_empty_dicts_after_the_episode_ended(monkeypatch):
    """PettingZoo's convention for a step after every agent is done: a warning and five empty dicts."""
    monkeypatch.setattr(EnvLogger, "mqueue", [])
    env = speed_snacks_v1.parallel_env(max_steps=2)
    env.reset(seed=0)
    for _ in range(2):
        *_, truncs, _ = env.step({a: WAIT for a in env.agents})
    assert all(truncs.values()) and env.agents == []
    assert env.step({a: WAIT for a in env.possible_agents}) == ({}, {}, {}, {}, {})
    assert any("step() called after all agents are terminated or truncated" in m for m in EnvLogger.mqueue)


@pytest.mark.parametrize("make", ["env", "raw_env"])
def test_the_aec_view_shows_no_old_reward_after_a_snapshot_is_loaded(make):
    """At the end of a game the view shows +1/-1; a mid-game snapshot loaded then starts a tick where nobody
    has earned anything: `rewards` all 0 and `last()` 0 for each agent of the tick."""
    env = getattr(speed_snacks_v1, make)()
    env.reset(seed=3)
    rng = np.random.default_rng(3)
    snap = None
    while not any(env.terminations.values()):
        if snap is None and env.unwrapped.num_steps == 5:
            snap = env.unwrapped.state_dict()
        env.step(int(rng.choice(np.flatnonzero(env.observe(env.agent_selection)["action_mask"]))))
    assert sorted(env.rewards.values()) == [-1.0, 1.0] and env.last()[1] != 0.0
    env.unwrapped.load_state_dict(snap)
    assert env.rewards == dict.fromkeys(env.possible_agents, 0.0)
    first = env.agent_selection
    assert env.last()[1:4] == (0.0, False, False)
    env.step(WAIT)
    assert env.agent_selection != first and env.last()[1:4] == (0.0, False, False)


def test_a_snapshot_loaded_into_a_raw_aec_view_never_reset_starts_its_episode_there():
    """Loading a snapshot into the env of a fresh AEC view starts a tick there (the view counts as reset and
    holds no queued action): it then plays on exactly as the view the snapshot came from."""
    source = speed_snacks_v1.raw_env()
    source.reset(seed=4)
    rng = np.random.default_rng(4)

    def random_action(agent):
        return int(rng.choice(np.flatnonzero(source.observe(agent)["action_mask"])))

    for _ in range(6):  # three whole ticks
        source.step(random_action(source.agent_selection))
    target = speed_snacks_v1.raw_env()
    target.unwrapped.load_state_dict(source.unwrapped.state_dict())
    assert target.agents == source.agents and target.agent_selection == source.agent_selection
    for _ in range(6):
        action = random_action(source.agent_selection)
        source.step(action)
        target.step(action)
    assert target.unwrapped.state_dict() == source.unwrapped.state_dict()
    assert target.rewards == source.rewards and target.agent_selection == source.agent_selection


@pytest.mark.parametrize("make", ["raw_parallel_env", "parallel_env"])
def test_a_parallel_env_has_no_agents_before_reset(make):
    """`while env.agents:` before reset() ends at once instead of failing on a missing attribute."""
    env = getattr(speed_snacks_v1, make)()
    assert env.agents == [] and env.num_agents == 0
    assert env.possible_agents == ["player_0", "player_1"]


def test_ending_for_illegal_actions_costs_each_offender_its_penalty_and_ends_the_episode(monkeypatch):
    """`end_for_illegal_actions` (default -1) and the wrapper's `illegal_reward`: the offenders get it, the others
    0; every agent terminated (not truncated), told who offended; no agents left and empty masks after; the
    wrapper gives PettingZoo's "Illegal move made" warning."""
    from snack_envs.core.parallel import StandardParallelWrapper

    raw = speed_snacks_v1.raw_parallel_env()
    raw.reset(seed=0)
    observations, rewards, terms, truncs, infos = raw.end_for_illegal_actions(["player_1"])
    assert rewards == {"player_0": 0.0, "player_1": -1.0}
    assert terms == {"player_0": True, "player_1": True} and truncs == {"player_0": False, "player_1": False}
    assert infos == {a: {"illegal_move_by": ["player_1"]} for a in raw.possible_agents}
    assert raw.agents == [] and not any(o["action_mask"].any() for o in observations.values())

    monkeypatch.setattr(EnvLogger, "mqueue", [])
    env = StandardParallelWrapper(speed_snacks_v1.raw_parallel_env(), illegal_reward=-5)
    observations, _ = env.reset(seed=0)
    illegal = {a: int(np.flatnonzero(observations[a]["action_mask"] == 0)[0]) for a in env.agents}
    _, rewards, terms, _, infos = env.step(dict(illegal, player_0=WAIT))
    assert rewards == {"player_0": 0.0, "player_1": -5.0} and all(terms.values())
    assert infos["player_0"] == {"illegal_move_by": ["player_1"]}
    assert any("Illegal move made" in message for message in EnvLogger.mqueue)  # PettingZoo's warning


def test_a_parallel_env_reset_after_a_truncated_episode_has_live_masks_again():
    """Truncation (max_steps) zeroes every mask; the next reset() starts a game whose masks are live again."""
    env = speed_snacks_v1.raw_parallel_env(max_steps=1)
    observations, _ = env.reset(seed=0)
    observations, _, terms, truncs, _ = env.step({a: WAIT for a in env.agents})
    assert all(truncs.values()) and not any(terms.values()) and env.agents == []
    assert not any(o["action_mask"].any() for o in observations.values())
    observations, _ = env.reset(seed=0)
    assert not env.halted and env.agents == env.possible_agents
    assert all(observations[a]["action_mask"][WAIT] for a in env.agents)
    _, _, _, truncs, _ = env.step({a: WAIT for a in env.agents})  # and it plays a tick again
    assert all(truncs.values()) and env.num_steps == 1


@pytest.mark.parametrize("make", ["raw_parallel_env", "parallel_env"])
def test_a_parallel_env_without_a_render_mode_steps_without_drawing_or_warning(make, capsys):
    env = getattr(speed_snacks_v1, make)()
    observations, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):
            observations, *_ = env.step(random_joint(env, observations, rng))
    assert capsys.readouterr().out == ""


def ended_snapshots() -> dict[str, dict]:
    """Snapshots of a finished game, of one truncated at max_steps=3 (random legal play, seed 1), and of one
    ended by player_1's illegal action on the first tick."""
    out = {}
    for what, kwargs in (("finished", {}), ("truncated", {"max_steps": 3})):
        env = speed_snacks_v1.raw_parallel_env(**kwargs)
        observations, _ = env.reset(seed=1)
        rng = np.random.default_rng(1)
        while env.agents:
            observations, *_ = env.step(random_joint(env, observations, rng))
        out[what] = env.state_dict()
    env = speed_snacks_v1.parallel_env()
    observations, _ = env.reset(seed=1)
    illegal = int(np.flatnonzero(observations["player_1"]["action_mask"] == 0)[0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PettingZoo's "Illegal move made"
        env.step({"player_0": WAIT, "player_1": illegal})
    out["illegal"] = env.unwrapped.state_dict()
    return out


@pytest.mark.parametrize("what", ["finished", "truncated", "illegal"])
@pytest.mark.parametrize("make", ["env", "raw_env"])
def test_an_ended_snapshot_loaded_into_an_aec_view_shows_how_it_ended(make, what):
    """A mid-game AEC view loading an ended snapshot: no agents; a finished game is terminated for everyone
    with the final infos (seat, score, winner), a truncated one truncated with empty infos, one ended by an
    illegal action terminated with infos naming the offender, as when it ended; no rewards."""
    snap = ended_snapshots()[what]
    env = getattr(speed_snacks_v1, make)(**({"max_steps": 3} if what == "truncated" else {}))
    env.reset(seed=0)
    env.step(WAIT)
    env.unwrapped.load_state_dict(snap)
    raw = env.unwrapped
    finished = what == "finished"
    assert raw.game.game_over == finished and raw.halted == (not finished)
    assert env.agents == []
    assert env.terminations == dict.fromkeys(raw.possible_agents, what != "truncated")
    assert env.truncations == dict.fromkeys(raw.possible_agents, what == "truncated")
    assert env.rewards == dict.fromkeys(raw.possible_agents, 0.0)
    if finished:
        scores, winners = raw.game.scores(), raw.game.winners()
        assert env.infos == {a: {"score": scores[s], "winner": s in winners, "seat": s}
                             for s, a in enumerate(raw.seat_agents)}
        assert sum(info["winner"] for info in env.infos.values()) == 1
    elif what == "illegal":
        assert snap["illegal_move_by"] == ["player_1"]
        assert env.infos == {a: {"illegal_move_by": ["player_1"]} for a in raw.possible_agents}
    else:
        assert env.infos == {a: {} for a in raw.possible_agents}


def test_a_snapshot_from_0_1_without_illegal_move_by_loads_as_no_illegal_move():
    """Snapshots written by snack-envs 0.1.0 lack `illegal_move_by`: they load, as an episode no illegal
    action ended, and the key is written again on the next snapshot."""
    snap = ended_snapshots()["truncated"]
    del snap["illegal_move_by"]
    env = speed_snacks_v1.env(max_steps=3)
    env.unwrapped.load_state_dict(snap)
    assert env.truncations == dict.fromkeys(env.possible_agents, True)
    assert env.unwrapped.illegal_move_by == [] and env.unwrapped.state_dict()["illegal_move_by"] == []


def test_a_reset_after_an_illegal_end_forgets_the_offenders():
    snap = ended_snapshots()["illegal"]
    env = speed_snacks_v1.parallel_env()
    env.unwrapped.load_state_dict(snap)
    env.reset(seed=0)
    assert env.unwrapped.state_dict()["illegal_move_by"] == []
