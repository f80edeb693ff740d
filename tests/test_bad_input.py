"""Bad input to the environments and their views gets a clear error and changes nothing (issue 17,
"Environments and views"): one test per line of the issue, each over every env or view it concerns.

1. impossible snapshots (`load_state_dict`, `Game.from_dict`) are refused naming the field;
2. the Gymnasium views take only integers as actions;
3. stepping before reset() or after the end says to call reset(), and a done agent steps with None only;
4. seeds are checked up front;
5. unknown reset options are refused (warned about where PettingZoo's API test needs them accepted);
6. `opponents="heuristic"` is one spec, not a list of letters;
7. every single-agent view puts the action mask in `info["action_mask"]`;
8. the turn-based games' parallel view checks the joint action as the simultaneous ones do, an unknown viewer is
   named, and the solo env takes num_players=1 only (and draws pictures, as every env does);
9. an `illegal_reward` must be a finite number;
10. a policy's seed and player count are checked when it is made, and the search's budget is whole numbers.
"""

from __future__ import annotations

import copy
import json
import re
import warnings

import gymnasium
import numpy as np
import pytest

import snack_envs
from snack_envs import specs
from snack_envs.core.game import ConfigError, IllegalActionError
from snack_envs.registration import gymnasium_ids, register_gymnasium
from tests.helpers import CHECKPOINTS, combined, env_module, is_parallel, play_aec, play_parallel, random_joint, random_legal, set_at

ENVS = list(snack_envs.ENV_NAMES)
PARALLEL = [n for n in ENVS if is_parallel(n)]
register_gymnasium()
GYM_IDS = gymnasium_ids()  # one per game, and Snack Time's solo mode
MULTI_GYM_IDS = [spec.gym_id for spec in specs.SPECS]


def live_env(name: str, steps: int = 6):
    """The game's raw env (its own API) a few random steps into a seeded game."""
    env = specs.get(name).raw_env()
    rng = np.random.default_rng(5)
    if is_parallel(name):
        observations, _ = env.reset(seed=5)
        for _ in range(steps):
            observations, *_ = env.step(random_joint(env, observations, rng))
    else:
        env.reset(seed=5)
        for _ in range(steps):
            env.step(random_legal(env.observe(env.agent_selection)["action_mask"], rng))
    return env


def frozen(env) -> str:
    return json.dumps(env.state_dict(), sort_keys=True)


# --- 1. impossible snapshots ----------------------------------------------------------------------------
def _delete(path: str):
    def edit(snap: dict) -> None:
        *parents, last = path.split(".")
        node = snap
        for key in parents:
            node = node[key]
        del node[last]

    return edit


def _call(path: str, method: str, *args):
    def edit(snap: dict) -> None:
        node = snap
        for key in path.split("."):
            node = node[int(key)] if isinstance(node, list) else node[key]
        getattr(node, method)(*args)

    return edit


def _other_agent_to_act(snap: dict) -> None:
    snap["agent_selection"] = next(a for a in snap["agents"] if a != snap["agent_selection"])


def _rewards_as_a_list(snap: dict) -> None:
    snap["rewards"] = list(snap["rewards"])  # the agents' names, without their rewards


def _an_agent_gone_mid_game(snap: dict) -> None:
    """An agent not to act dropped from the episode as if it had stepped out, everywhere consistently."""
    gone = next(a for a in snap["agents"] if a != snap["agent_selection"])
    snap["agents"].remove(gone)
    for key in ("rewards", "cumulative_rewards", "terminations", "truncations", "infos"):
        del snap[key][gone]


def _as_tuple(key: str):
    def edit(snap: dict) -> None:
        snap[key] = tuple(snap[key])  # the same names, but not the list a snapshot holds

    return edit


AGENTS = ("player_0", "player_1")  # live_env's two-player games
# Found by editing snapshots at random: one agent done mid-game loaded, then failed in a KeyError at its step.
ENDS_FOR_EVERY_AGENT = r"terminations = .*, truncations = .* in a game under way: it ends for every agent at once"
S = "game.state."
TURN_CASES = [  # the AEC envs' episode state
    ("wrong agent to act", _other_agent_to_act, r"agent_selection = 'player_\d', but seat \d \('player_\d'\) is to act"),
    ("termination not a bool", set_at("terminations.player_0", "no"), r"terminations = .* must map each agent"),
    ("a reward missing", _delete("rewards.player_0"), r"rewards = \{.*\} must map each agent"),
    ("rewards a list", _rewards_as_a_list, r"rewards = \[.*\] must map each agent"),
    ("reward a word", set_at("rewards.player_0", "lots"), r"rewards = .* must map each agent .* to a finite number"),
    ("reward a bool", set_at("rewards.player_0", True), r"rewards = .* must map each agent .* to a finite number"),
    ("an agent twice", set_at("agents.1", "player_0"), r"agents = \['player_0', 'player_0'.* must be a list of distinct"),
    ("num_steps a word", set_at("num_steps", "5"), r"num_steps = '5' must be a non-negative int"),
    ("agents a tuple", _as_tuple("agents"), r"agents = \('player_0', .*\) must be a list of distinct agents"),
    ("seat_agents a tuple", _as_tuple("seat_agents"), r"seat_agents = \('player_\d', .*\) must list each of"),
    ("an agent gone mid-game", _an_agent_gone_mid_game, r"agents = \[.*\] in a game under way: every agent takes part"),
    ("cumulative reward nan", set_at("cumulative_rewards.player_0", float("nan")),
     r"cumulative_rewards = .* must map each agent .* to a finite number"),
    ("one agent truncated mid-game", set_at("truncations.player_1", True), ENDS_FOR_EVERY_AGENT),
    ("one agent terminated mid-game", combined(set_at("truncations", dict.fromkeys(AGENTS, True)),
                                               set_at("terminations.player_0", True)), ENDS_FOR_EVERY_AGENT),
    ("every agent truncated before max_steps", set_at("truncations", dict.fromkeys(AGENTS, True)),
     ENDS_FOR_EVERY_AGENT),
]
# (id, edit, what the message must name), for every game
COMMON_CASES = [
    ("current_player out of range", set_at(S + "current_player", 7), r"current_player = 7 is out of range"),
    ("game_over not a bool", set_at(S + "game_over", "no"), r"game_over = 'no' must be true or false"),
    ("missing state field", _delete(S + "deck"), r"missing field\(s\) \['deck'\]"),
    ("unknown state field", set_at(S + "cheat", 1), r"unknown field\(s\) \['cheat'\]"),
    ("missing rng", _delete("game.rng"), r"missing key\(s\) \['rng'\]"),
    ("bad rng state", set_at("game.rng.state", "x"), r"rng = .* is no state of its bit generator"),
    ("unknown card id", set_at(S + "deck.0", 999), r"deck\[0\] = 999 is out of range"),
    ("deck a string", set_at(S + "deck", "cards"), r"deck = 'cards' must be a list"),
    ("bad option", set_at("game.config", {"nonsense": 1}), r"unknown option\(s\) \['nonsense'\]"),
    ("negative num_steps", set_at("num_steps", -1), r"num_steps = -1 must be a non-negative int"),
    ("seat agent twice", set_at("seat_agents", ["player_0", "player_0"]), r"seat_agents = .* must list each of"),
    ("unknown agent", set_at("agents.0", "mallory"), r"agents = \['mallory'.* must be a list of distinct agents"),
    ("agent a list", set_at("agents.0", ["player_0"]), r"agents = \[\['player_0'\].* must be a list of distinct agents"),
    ("missing snapshot key", _delete("agents"), r"lacks the key\(s\) \['agents'\]"),
    ("unknown snapshot key", set_at("cheat", 1), r"has unknown key\(s\) \['cheat'\]"),
]
GAME_CASES = {
    "snack_rabbits_v0": [
        ("negative die", set_at(S + "white.0", -1), r"white\[0\] = -1 is out of range 0..8"),
        ("pool -3", set_at(S + "pool", -3), r"pool = -3 is out of range 0..8"),
        ("9999 cards", set_at(S + "collections.0.0", 9999), r"collections\[0\]\[0\] = 9999 is out of range"),
        ("dice not conserved", set_at(S + "pool", 8), r"impossible: white dice: pool 8"),
        ("a card lost", _call(S + "deck", "pop", 0), r"impossible: \w+: \d+ cards accounted for"),
        ("farmer", set_at(S + "farmer_revealed", 1), r"farmer_revealed = 1 must be true or false"),
    ],
    "snack_wars_v0": [
        ("raccoons 10**6", set_at(S + "raccoons.0", 10**6), r"raccoons\[0\] = 1000000 is out of range 0..10"),
        ("bad phase", set_at(S + "phase", "lunch"), r"phase = 'lunch' is not one of \['choose', 'steal', 'discard'\]"),
        ("9999 cards", set_at(S + "collections.1.0", 9999), r"collections\[1\]\[0\] = 9999 is out of range"),
        ("a card made up", _call(S + "deck", "append", 0), r"impossible: macaron: \d+ cards accounted for"),
        ("steal phase without steals", set_at(S + "phase", "steal"), r"impossible: .*steal phase with no steal left"),
    ],
    "snack_time_v0": [
        ("bad phase", set_at(S + "phase", "lunch"), r"phase = 'lunch' is not one of"),
        ("negative badges", set_at(S + "badges.0", -1), r"badges\[0\] = -1 is out of range 0..9"),
        ("rats 10**6", set_at(S + "rats.9", 10**6), r"rats\[9\] = 1000000 is out of range 0..4"),
        ("a card lost", _call(S + "deck", "pop"), r"impossible: cards: deck, row, discard and trap spots hold"),
        ("not a pipe", set_at(S + "pipes.0.9", 15), r"pipes\[0\]\[9\] = 15 is not one of"),
        ("phase 'over' in play", set_at(S + "phase", "over"), r"impossible: .*phase 'over' with game_over = False"),
    ],
    "speed_snacks_v1": [
        ("bad phase", set_at(S + "phase", "lunch"), r"phase = 'lunch' is not one of"),
        ("negative toques", set_at(S + "toques.0", -1), r"toques\[0\] = -1 is out of range 0..5"),
        ("hurry-ups 10**6", set_at(S + "hurry_ups", 10**6), r"hurry_ups = 1000000 is out of range 0..4"),
        ("a card lost", _call(S + "deck", "pop"), r"impossible: cards by kind"),
        ("a turn in a simultaneous game", set_at(S + "current_player", 0), r"current_player = 0 in a simultaneous game"),
        ("halted not a bool", set_at("halted", "no"), r"halted = 'no' must be true or false"),
        ("illegal mover not an agent", set_at("illegal_move_by", ["player_9"]),
         r"illegal_move_by = \['player_9'\] must be a list of distinct agents"),
        ("illegal mover a list", set_at("illegal_move_by", [["player_0"]]),
         r"illegal_move_by = \[\['player_0'\]\] must be a list of distinct agents"),
        ("illegal move in a game going on", set_at("illegal_move_by", ["player_0"]),
         r"illegal_move_by = \['player_0'\] with game_over = False, halted = False: an illegal move halts"),
    ],
}
SNAPSHOT_CASES = [
    (name, *case) for name in ENVS for case in COMMON_CASES + GAME_CASES[name] + ([] if is_parallel(name) else TURN_CASES)
]


@pytest.mark.parametrize(
    "name, what, edit, message", SNAPSHOT_CASES, ids=[f"{c[0]}-{c[1]}" for c in SNAPSHOT_CASES]
)
def test_an_impossible_snapshot_is_refused_naming_the_field_and_changes_nothing(name, what, edit, message):
    env = live_env(name)
    good = json.loads(json.dumps(env.state_dict()))
    bad = copy.deepcopy(good)
    edit(bad)
    other = live_env(name, steps=2)
    before = frozen(other)
    with pytest.raises(ConfigError, match=message):
        other.load_state_dict(bad)
    assert frozen(other) == before, "a refused snapshot changed the env"
    other.load_state_dict(good)  # the env still takes a sound one, and plays on from it
    assert frozen(other) == frozen(env)


@pytest.mark.parametrize("name", ENVS)
def test_game_from_dict_names_what_is_missing_instead_of_a_bare_key_error(name):
    rules = specs.get(name).rules_class
    data = live_env(name).game.to_dict()
    for key in ("state", "num_players", "config"):
        with pytest.raises(ConfigError, match=rf"missing key\(s\) \['{key}'\]"):
            rules.from_dict({k: v for k, v in data.items() if k != key})
    with pytest.raises(ConfigError, match="must be a dict"):
        rules.from_dict([data])
    with pytest.raises(ConfigError, match="num_players"):
        rules.from_dict(dict(data, num_players=99))
    assert rules.from_dict(json.loads(json.dumps(data))).to_dict() == data


@pytest.mark.parametrize("name", ENVS)
def test_every_state_of_random_games_loads(name):
    """The checks refuse no state that play reaches (from the start, mid-game and at the end)."""
    env = specs.get(name).raw_env()
    rules = env.game_class

    def reload(e) -> None:
        if e.num_steps % 3 == 0 or e.game.game_over:
            assert rules.from_dict(json.loads(e.game.to_json())) == e.game
            twin = specs.get(name).raw_env()
            twin.load_state_dict(json.loads(json.dumps(e.state_dict())))

    for seed in range(2):
        (play_parallel if is_parallel(name) else play_aec)(env, seed, on_step=reload)
        reload(env)


# --- 2. only integers are actions in the Gymnasium views ------------------------------------------------
NOT_ACTIONS = [0.9, 1.0, "0", True, np.True_, np.float32(0.0), np.array([0]), np.array(0.9), None, [0]]


def gym_state(env) -> str:
    inner = env.unwrapped
    return inner.game.to_json() if hasattr(inner, "game") else json.dumps(inner.raw.state_dict(), sort_keys=True)


@pytest.mark.parametrize("gym_id", GYM_IDS)
def test_the_gymnasium_views_take_only_integers_as_actions(gym_id):
    for illegal_action in ("penalize", "raise"):
        env = gymnasium.make(gym_id, illegal_action=illegal_action)
        env.reset(seed=0)
        before = gym_state(env)
        for bad in NOT_ACTIONS:
            with pytest.raises(IllegalActionError, match=r"an action must be an int .*got " + re.escape(repr(bad)[:20])):
                env.step(bad)
            assert gym_state(env) == before, f"step({bad!r}) changed the state"
        legal = int(np.flatnonzero(env.unwrapped.action_masks())[0])
        for good in (np.int64(legal), np.array(legal), np.uint8(legal) if legal < 256 else legal):
            twin = gymnasium.make(gym_id, illegal_action=illegal_action)
            twin.reset(seed=0)
            _, reward, terminated, truncated, info = twin.step(good)
            assert not info.get("illegal_action", False), f"step({good!r}) was not action {legal}"
        _, _, _, _, info = env.step(legal)  # the episode plays on
        assert not info.get("illegal_action", False)


# --- 3. step before reset() or after the end -------------------------------------------------------------
@pytest.mark.parametrize("name", ENVS)
def test_the_raw_aec_env_says_to_call_reset_before_the_first_and_after_the_last_step(name):
    env = env_module(name).raw_env()
    with pytest.raises(IllegalActionError, match=r"step\(\) before reset\(\); call reset\(\) first"):
        env.step(0)
    play_aec(env, seed=2)  # to the end, every agent stepped out with None
    assert not env.agents
    with pytest.raises(IllegalActionError, match=r"after the episode ended.*call reset\(\)"):
        env.step(0)
    env.reset(seed=3)  # and a reset starts a new episode
    assert env.agents


@pytest.mark.parametrize("make", ["env", "raw_env"])
@pytest.mark.parametrize("name", ENVS)
def test_an_action_for_a_done_agent_is_refused_and_the_env_plays_on(name, make):
    """PettingZoo's rule (AECEnv._was_dead_step): a done agent steps out with None only; anything else is a
    ValueError that changes nothing, so the loop can step None next, in every game, simultaneous ones too."""
    env = getattr(env_module(name), make)()
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        env.step(random_legal(obs["action_mask"], rng))
    left = list(env.agents)
    with pytest.raises(ValueError, match="when an agent is dead, the only valid action is None"):
        env.step(0)
    assert env.agents == left and env.agent_selection == agent
    env.step(None)
    assert agent not in env.agents
    for agent in env.agent_iter():  # the other agents step out too
        env.step(None)
    assert not env.agents


@pytest.mark.parametrize("name", PARALLEL)
def test_the_parallel_envs_say_to_call_reset_before_the_first_step(name):
    module = env_module(name)
    for make in (module.raw_parallel_env, module.parallel_env):
        env = make()
        with pytest.raises(IllegalActionError, match=r"step\(\) before reset\(\); call reset\(\) first"):
            env.step({a: 0 for a in env.possible_agents})
    raw = module.raw_parallel_env()
    play_parallel(raw, seed=2)
    with pytest.raises(IllegalActionError, match=r"call reset\(\)"):
        raw.step({a: 0 for a in raw.possible_agents})


# --- 4. seeds ---------------------------------------------------------------------------------------------
BAD_SEEDS = [-1, 1.5, "1", True, np.float64(2.0), [1]]


@pytest.mark.parametrize("name", ENVS)
def test_a_bad_seed_is_refused_before_anything_changes(name):
    module = env_module(name)
    makers = [module.raw_env, module.env] + ([module.raw_parallel_env, module.parallel_env] if is_parallel(name) else [])
    for make in makers:
        env = make()
        env.reset(seed=4)
        before = json.dumps(env.unwrapped.state_dict() if hasattr(env.unwrapped, "state_dict") else env.state_dict())
        for seed in BAD_SEEDS:
            with pytest.raises(ConfigError, match=r"seed must be a non-negative int or None, got " + re.escape(repr(seed))):
                env.reset(seed=seed)
        after = json.dumps(env.unwrapped.state_dict() if hasattr(env.unwrapped, "state_dict") else env.state_dict())
        assert after == before
    a, b = specs.get(name).raw_env(), specs.get(name).raw_env()
    a.reset(seed=np.int64(9))
    b.reset(seed=9)
    assert frozen(a) == frozen(b), "a numpy int seed is the same seed"


@pytest.mark.parametrize("gym_id", GYM_IDS)
def test_the_gymnasium_views_refuse_a_bad_seed(gym_id):
    env = gymnasium.make(gym_id)
    for seed in BAD_SEEDS:
        with pytest.raises(ConfigError, match=r"seed must be a non-negative int or None"):
            env.reset(seed=seed)
    env.reset(seed=np.uint32(4))


# --- 5. reset options -------------------------------------------------------------------------------------
@pytest.mark.parametrize("gym_id", GYM_IDS)
def test_the_gymnasium_views_refuse_unknown_reset_options(gym_id):
    env = gymnasium.make(gym_id)
    env.reset(seed=1)
    before = gym_state(env)
    with pytest.raises(ConfigError, match=r"unknown reset option\(s\) \['bad'\]"):
        env.reset(options={"bad": 1})
    with pytest.raises(ConfigError, match="reset options must be a dict"):
        env.reset(options="bad")
    assert gym_state(env) == before
    env.reset(seed=1, options={})
    env.reset(options=None)


@pytest.mark.parametrize("name", ENVS)
def test_the_pettingzoo_envs_warn_about_unknown_reset_options(name):
    """PettingZoo's api_test resets with options={"options": 1} and expects it accepted, so the PettingZoo
    envs cannot refuse an unknown option: they warn, naming it. A non-dict is refused."""
    env = specs.get(name).raw_env()
    with pytest.warns(UserWarning, match=r"reset option\(s\) \['bad'\] ignored"):
        env.reset(seed=1, options={"bad": 1})
    before = frozen(env)
    with pytest.raises(ConfigError, match="reset options must be a dict"):
        env.reset(options="bad")
    assert frozen(env) == before
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        env.reset(seed=1, options={})
        env.reset(seed=1)


# --- 6. one opponent spec as a string ----------------------------------------------------------------------
@pytest.mark.parametrize("gym_id", MULTI_GYM_IDS)
def test_a_single_opponent_spec_string_is_one_spec(gym_id):
    env = gymnasium.make(gym_id, opponents="heuristic")
    _, info = env.reset(seed=0)
    assert set(info["opponents"].values()) == {"heuristic"}
    with pytest.raises(ValueError, match=r"unknown policy 'heurstic'"):
        gymnasium.make(gym_id, opponents="heurstic")
    with pytest.raises(ConfigError, match="opponents must be"):
        gymnasium.make(gym_id, opponents=3)


def test_a_max_steps_that_cuts_the_game_before_the_learners_first_move_is_named():
    """A single-agent view whose max_steps ends the game while opponents are still moving before the
    learner's first turn has no first observation to give: a ConfigError that names max_steps."""
    from snack_envs.single_agent import SingleAgentEnv

    env = SingleAgentEnv("snack_wars_v0", opponents=["random"], num_players=3, max_steps=1)
    errors = 0
    for seed in range(12):
        try:
            env.reset(seed=seed)
        except ConfigError as error:
            assert "max_steps=1 cut the game before the learner's first move" in str(error)
            errors += 1
    assert 0 < errors < 12  # the learner moves first in some games and gets its observation


# --- 7. the action mask in info ---------------------------------------------------------------------------
@pytest.mark.parametrize("gym_id", GYM_IDS)
def test_every_single_agent_view_puts_the_action_mask_in_info(gym_id):
    env = gymnasium.make(gym_id)
    _, info = env.reset(seed=3)
    rng = np.random.default_rng(3)
    done = False
    while True:
        mask = info["action_mask"]
        assert mask.dtype == bool and mask.shape == (env.action_space.n,)
        assert np.array_equal(mask, env.unwrapped.action_masks())
        if done:
            break
        assert mask.any()
        _, _, terminated, truncated, info = env.step(random_legal(mask, rng))
        done = terminated or truncated
    assert not info["action_mask"].any(), "no action is legal once the episode has ended"
    fresh = gymnasium.make(gym_id)
    _, info = fresh.reset(seed=3)
    illegal = int(np.flatnonzero(~info["action_mask"])[0])
    _, _, terminated, _, info = fresh.step(illegal)
    assert terminated and info["illegal_action"] and not info["action_mask"].any()


@pytest.mark.parametrize("gym_id", GYM_IDS)
def test_gymnasium_vector_envs_see_the_masks(gym_id):
    envs = gymnasium.vector.SyncVectorEnv([lambda: gymnasium.make(gym_id)] * 2)
    _, infos = envs.reset(seed=[1, 2])
    masks = infos["action_mask"]
    assert masks.shape == (2, envs.single_action_space.n) and masks.any(axis=1).all()
    rng = np.random.default_rng(0)
    _, _, _, _, infos = envs.step(np.array([random_legal(m, rng) for m in masks]))
    assert infos["action_mask"].shape == masks.shape
    envs.close()


# --- 8. the rest: the turn-based games' parallel view, viewers, the solo env's keywords ---------------------
@pytest.mark.parametrize("name", [n for n in ENVS if not is_parallel(n)])
def test_the_turn_based_parallel_view_refuses_a_joint_action_without_the_mover_or_with_strangers(name):
    env = env_module(name).parallel_env()
    observations, _ = env.reset(seed=3)
    mover = next(a for a in env.agents if observations[a]["action_mask"].any())
    legal = {a: int(np.flatnonzero(o["action_mask"])[0]) if o["action_mask"].any() else 0
             for a, o in observations.items()}
    before = env.unwrapped.state_dict()
    for bad, message in [({a: x for a, x in legal.items() if a != mover}, f"no action for {mover}, the agent to act"),
                         (dict(legal, player_9=0), r"not in the episode: \['player_9'\]"),
                         (list(legal.values()), "actions must be a dict agent -> action")]:
        with pytest.raises(IllegalActionError, match=message):
            env.step(bad)
        assert env.unwrapped.state_dict() == before
    env.step(legal)
    assert env.unwrapped.num_steps == 1


@pytest.mark.parametrize("name", ENVS)
def test_an_unknown_viewer_is_refused_naming_the_agents(name):
    env = specs.get(name).raw_env(render_mode="ansi")
    env.reset(seed=0)
    with pytest.raises(ConfigError, match=r"viewer='player_9' is not one of \['player_0', 'player_1'"):
        env.unwrapped.render(viewer="player_9")
    assert env.unwrapped.render(viewer="player_1")


@pytest.mark.parametrize("name", ENVS)
def test_a_games_text_and_picture_refuse_a_viewer_or_names_that_are_not_its_seats(name):
    """game.render_text and core.picture.draw_game take a seat (or None) and one name per seat: seat -1 or
    True drew a seat's view, too few names failed in IndexError, a string was split into names."""
    pytest.importorskip("PIL")
    from snack_envs.core.picture import draw_game

    game = specs.get(name).rules_class(2, np.random.default_rng(0))
    for draw in (lambda **kw: game.render_text(**kw), lambda **kw: draw_game(game, **kw)):
        for viewer in (-1, 2, True, "0"):
            with pytest.raises(ConfigError, match=rf"viewer must be a seat in 0\.\.1 or None \(the spectator's view\), "
                                                  rf"got {re.escape(repr(viewer))}$"):
                draw(viewer=viewer)
        for names in (["a"], ["a", "b", "c"], "ab", ["a", 2]):
            with pytest.raises(ConfigError, match=rf"names must be a list of 2 strings, one per seat, got "
                                                  rf"{re.escape(repr(names))}$"):
                draw(names=names)
        assert draw(viewer=np.int64(1), names=("Ann", "Bo")) is not None
    assert "Ann" in game.render_text(names=["Ann", "Bo"]) and "seat 0" in game.render_text()


def test_the_solo_env_takes_num_players_1_only_and_draws_pictures():
    import snack_envs.snack_time_v0  # noqa: F401  (registers the id)

    with pytest.raises(ConfigError, match=r"num_players=2: SnackTimeSolo-v0 is played by one player "
                                          r"\(snack_time_v0.env\(num_players=...\) plays 1 to 8\)"):
        gymnasium.make("SnackTimeSolo-v0", num_players=2)
    for count in (True, 1.0):  # each == 1 in Python, neither a player count
        with pytest.raises(ConfigError, match=rf"num_players={count}: SnackTimeSolo-v0 is played by one player"):
            gymnasium.make("SnackTimeSolo-v0", num_players=count)
    gymnasium.make("SnackTimeSolo-v0", num_players=np.int64(1))
    env = gymnasium.make("SnackTimeSolo-v0", num_players=1, render_mode="rgb_array")
    env.reset(seed=0)
    picture = env.render()
    assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3


# --- 9. an illegal_reward ------------------------------------------------------------------------------------
def _illegal_reward_takers():
    """What takes an `illegal_reward`, by the name its error gives: the single-agent views (the env's name)
    and PettingZoo's wrappers."""
    from snack_envs import snack_rabbits_v0, speed_snacks_v1
    from snack_envs.core.env import StandardAECWrapper
    from snack_envs.core.parallel import StandardParallelWrapper
    from snack_envs.single_agent import SingleAgentEnv
    from snack_envs.snack_time.solo import SnackTimeSoloEnv

    return {
        "snack_rabbits_v0": lambda r: SingleAgentEnv("snack_rabbits_v0", illegal_reward=r),
        "SnackTimeSolo-v0": lambda r: SnackTimeSoloEnv(illegal_reward=r),
        "StandardAECWrapper": lambda r: StandardAECWrapper(snack_rabbits_v0.raw_env(), illegal_reward=r),
        "StandardParallelWrapper": lambda r: StandardParallelWrapper(speed_snacks_v1.raw_parallel_env(),
                                                                     illegal_reward=r),
    }


@pytest.mark.parametrize("taker", list(_illegal_reward_takers()))
@pytest.mark.parametrize("reward", ["-1", None, True, float("nan"), float("inf"), [-1]])
def test_an_illegal_reward_that_is_no_finite_number_is_refused_naming_it(taker, reward):
    """Never cast: "-1" or True is a mistake, and NaN or an infinity would poison the returns."""
    with pytest.raises(ConfigError, match=rf"{re.escape(taker)}: illegal_reward must be a finite number, got "):
        _illegal_reward_takers()[taker](reward)


@pytest.mark.parametrize("taker", list(_illegal_reward_takers()))
def test_an_illegal_reward_may_be_any_finite_int_or_float_python_or_numpy(taker):
    for reward in (-5, -0.5, np.int64(-2), np.float32(-0.25)):
        env = _illegal_reward_takers()[taker](reward)
        held = getattr(env, "illegal_reward", getattr(env, "_illegal_reward", None))
        assert held == float(reward) and type(held) is float


# --- 10. policies -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", ["random", "heuristic", "lookahead", "search"])
def test_a_policy_refuses_a_bad_seed_or_player_count_when_made(spec):
    from snack_envs.agents import make_policy

    for seed in ("x", True, 1.5, -1):
        with pytest.raises(ConfigError, match=r"seed must be a non-negative int or None, got " + re.escape(repr(seed))):
            make_policy(spec, "snack_wars_v0", 2, seed=seed)
    for count in ("2", 2.0, 1, 6):
        with pytest.raises(ConfigError, match=r"num_players|played by 2 to 5 players"):
            make_policy(spec, "snack_wars_v0", count)
    assert make_policy(spec, "snack_wars_v0", np.int64(5), seed=np.int64(3)) is not None


@pytest.mark.parametrize("spec", ["random", "heuristic", "lookahead", "search", str(CHECKPOINTS / "snack_wars_v0.zip")])
def test_a_policy_refuses_a_misspelt_or_bad_game_option_when_made(spec):
    """The random player and the checkpoints read no game option, and the heuristics only some of theirs: a
    misspelt one (`food_copy`) or a bad value was taken without a word; it is named as the env names it. The
    env's own keywords (max_steps, shuffle_seats) are taken."""
    from snack_envs.agents import make_policy

    with pytest.raises(ConfigError, match=r"unknown option\(s\) \['food_copy'\] for snack_wars"):
        make_policy(spec, "snack_wars_v0", 2, food_copy="equal")
    with pytest.raises(ConfigError, match=r"food_copies"):
        make_policy(spec, "snack_wars_v0", 2, food_copies="lots")
    assert make_policy(spec, "snack_wars_v0", 2, food_copies="equal", max_steps=50, shuffle_seats=False) is not None


def test_the_heuristic_is_made_for_a_player_count_and_options_the_game_has():
    from snack_envs.agents import heuristic_policy

    with pytest.raises(ConfigError, match=r"snack_wars is played by 2 to 5 players, got num_players=0"):
        heuristic_policy("snack_wars_v0", 0)
    with pytest.raises(ConfigError, match=r"unknown option\(s\) \['rat_snack'\] for snack_time"):
        heuristic_policy("snack_time_v0", 1, rat_snack=True)


@pytest.mark.parametrize("spec", [None, 3, ["heuristic"]])
def test_a_policy_is_named_by_a_string_or_a_path(spec):
    """None or a number failed in pathlib's TypeError; a path (pathlib.Path) to a checkpoint is taken."""
    from snack_envs.agents import make_policy

    with pytest.raises(ConfigError, match=r"a policy is named by a string or a path, got " + re.escape(repr(spec))):
        make_policy(spec, "snack_wars_v0", 2)
    assert make_policy(CHECKPOINTS / "snack_wars_v0.zip", "snack_wars_v0", 2).name == "snack_wars_v0"


def test_a_seeded_policy_is_reset_with_a_seed_or_none_only():
    from snack_envs.agents import RandomPolicy

    policy = RandomPolicy(0)
    state = policy.rng.bit_generator.state
    for seed in ("x", 1.5, -1):
        with pytest.raises(ConfigError, match=r"RandomPolicy: seed must be a non-negative int or None"):
            policy.reset(seed)
    policy.reset(None)  # keeps its stream
    assert policy.rng.bit_generator.state == state


@pytest.mark.parametrize("budget", ["samples", "first", "keep"])
def test_the_search_budget_is_whole_numbers(budget):
    from snack_envs.search import SearchPolicy

    for value in (1.5, True, "8"):
        with pytest.raises(ConfigError, match=rf"search: {budget} must be an int, not {re.escape(repr(value))}"):
            SearchPolicy("snack_wars_v0", 2, **{budget: value})
    assert getattr(SearchPolicy("snack_wars_v0", 2, samples=8, first=4, keep=2), budget) in (8, 4, 2)


# The Policy contract's act(observation, action_mask): one position of the policy's game, with a legal action.
def _first_position(name):
    env = snack_envs.make(name)
    env.reset(seed=1)
    position = env.observe(env.agent_selection)
    return position["observation"], position["action_mask"]


@pytest.mark.parametrize("name", snack_envs.ENV_NAMES)
@pytest.mark.parametrize("spec", ["random", "heuristic"])
def test_a_policy_refuses_a_position_it_cannot_read(name, spec):
    """A batch, a vector of another size, or a mask allowing nothing is a ValueError naming it (the heuristics
    failed in an IndexError or AttributeError, or Speed Snacks' played action 0 on an empty mask)."""
    from snack_envs.agents import make_policy

    policy = make_policy(spec, name, 2, seed=0)
    obs, mask = _first_position(name)
    sized = spec != "random"  # the random policy plays any game: it knows no sizes and reads only the mask
    batch = (r"an observation must have shape \(\d+,\); got shape \(1, \d+\)" if sized
             else r"an action mask must have one axis; got shape \(1, \d+\)")
    cases = [((obs[None], mask[None]), batch + r" \(one position is asked for, not a batch\)"),
             ((obs, np.zeros_like(mask)), "the action mask allows no action")]
    if sized:
        cases += [((obs[:-1], mask), rf"an observation must have shape \({len(obs)},\); got shape \({len(obs) - 1},\)$"),
                  ((obs, np.r_[mask, 1]), rf"an action mask must have shape \({len(mask)},\); got shape \({len(mask) + 1},\)$")]
    for (observation, action_mask), message in cases:
        with pytest.raises(ValueError, match=message):
            policy.act(observation, action_mask)
    action = policy.act(list(obs), list(mask))  # lists are arrays to it
    assert mask[action]
    if not sized:
        assert mask[policy.act(None, mask)]  # it needs no observation


@pytest.mark.parametrize("spec", ["lookahead", "search"])
def test_a_bot_playing_from_the_game_refuses_a_game_or_seat_it_cannot_play(spec):
    """Another game, another player count than it was made for, or a seat that is no int of the game is a
    ConfigError naming it, in act_game and action_values alike (they failed in IndexError, KeyError or
    AttributeError deep in the bot, the lookahead played a 3-player game it was not made for, and a seat
    '0' read 'seat 0 has no legal action now')."""
    from snack_envs.agents import make_policy

    bot = make_policy(spec, "snack_wars_v0", 2, seed=0, **({"samples": 2} if spec == "search" else {}))
    wars, rabbits = specs.get("snack_wars_v0").rules_class, specs.get("snack_rabbits_v0").rules_class
    game, three = wars(2, np.random.default_rng(0)), wars(3, np.random.default_rng(0))
    cases = [(rabbits(2, np.random.default_rng(0)), 0, r"this bot plays SnackWars \(snack_wars_v0\); the game "
                                                              r"given is a SnackRabbits$"),
             ("position", 0, r"this bot plays SnackWars \(snack_wars_v0\); the game given is a str$"),
             (three, three.current_player, "this bot was made for 2 players, the game has 3$"),
             (game, "0", r"seat must be an int in 0\.\.1, got '0'$"),
             (game, 2, r"seat must be an int in 0\.\.1, got 2$"),
             (game, True, r"seat must be an int in 0\.\.1, got True$")]
    for position, seat, message in cases:
        for call in (bot.act_game, bot.action_values):
            with pytest.raises(ConfigError, match=f"^{spec}: {message}"):
                call(position, seat)
    assert game.legal_actions(game.current_player).count(bot.act_game(game, game.current_player))
