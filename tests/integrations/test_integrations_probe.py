"""The RLlib and TorchRL adapters' contracts that the other integration tests leave open.

TorchRL (`make_env`): the default wraps the public env (an illegal action ends
the game with -1 for the mover) and `raw=True` the raw one (it raises
IllegalActionError); the global state appears only when asked for.

RLlib (no Ray started): `add_snapshot` numbers snapshots after the newest one
and drops the oldest beyond `max_snapshots`; `PolicyRLModule` refuses an
unknown policy and keeps one bot per (sub-env, agent) seat of a game;
`ppo_config` builds its modules and default opponent mix as documented;
`load_policy` restores a module checkpoint, refuses what is none, and samples
when asked to.
"""

from __future__ import annotations

import os
import pickle
import types
import warnings

import numpy as np
import pytest

import snack_envs
from snack_envs import specs
from snack_envs.core.game import IllegalActionError

ENVS = list(snack_envs.ENV_NAMES)
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")


# --- TorchRL ------------------------------------------------------------------------------------------------
def torchrl_env(name: str, **kwargs):
    pytest.importorskip("torchrl")
    pytest.importorskip("torch")
    from snack_envs.integrations.torchrl import make_env

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make_env(name, seed=0, num_players=2, **kwargs)


def step_illegally(env, rng: np.random.Generator):
    """Reset, then every agent that acts now plays an action its mask forbids; returns (acting, stepped td)."""
    import torch

    td = env.reset()
    acting = {}
    for group in env.group_map:
        masks = td[group, "action_mask"].bool().numpy()
        movers = td[group, "mask"].numpy().reshape(-1)
        actions = []
        for mask, moves in zip(masks, movers):
            allowed = np.flatnonzero(~mask) if moves else np.flatnonzero(mask)
            actions.append(int(rng.choice(allowed)))
        acting[group] = movers
        td[group, "action"] = torch.as_tensor(actions).reshape(movers.shape)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return acting, env.step(td)


@pytest.mark.parametrize("name", ENVS)
def test_torchrl_default_wraps_the_public_env_an_illegal_move_loses(name):
    env = torchrl_env(name)
    acting, td = step_illegally(env, np.random.default_rng(0))
    assert td["next", "done"].all()
    for group, movers in acting.items():
        reward = td["next", group, "reward"].numpy().reshape(-1)
        assert movers.any() or not reward.any()
        assert (reward[movers] == -1.0).all()  # the public envs' penalty for the illegal mover


@pytest.mark.parametrize("name", ENVS)
def test_torchrl_raw_wraps_the_raw_env_which_raises_on_an_illegal_move(name):
    env = torchrl_env(name, raw=True)
    with pytest.raises(IllegalActionError, match="is not legal now"):
        step_illegally(env, np.random.default_rng(1))


@pytest.mark.parametrize("name", ENVS)
def test_torchrl_state_only_when_asked_for(name):
    assert "state" not in torchrl_env(name).reset().keys()
    assert "state" in torchrl_env(name, return_state=True).reset().keys()


# --- RLlib (no Ray started) ---------------------------------------------------------------------------------
SIZES = {"kitchen_obs": "sizes"}  # Speed Snacks' bot then remembers earlier ticks: sharing one would show


@pytest.fixture(scope="module")
def rl():
    pytest.importorskip("ray.rllib")
    torch = pytest.importorskip("torch")
    torch.set_num_threads(1)
    from snack_envs.integrations import rllib

    return rllib


def module_spec(rl, module_class, name: str = "snack_rabbits_v0", model_config=None, **env_kwargs):
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    raw = specs.get(name).raw_env(**env_kwargs)
    agent = raw.possible_agents[0]
    return RLModuleSpec(module_class=module_class, observation_space=raw.observation_space(agent),
                        action_space=raw.action_space(agent), model_config=model_config)


def test_policy_module_refuses_a_policy_it_cannot_play(rl):
    spec = module_spec(rl, rl.PolicyRLModule, model_config={"policy": "greedy", "env_name": "snack_rabbits_v0",
                                                             "num_players": 2})
    with pytest.raises(ValueError, match=r"policy='greedy': PolicyRLModule plays 'random' or 'heuristic'"):
        spec.build()


def test_policy_module_keeps_one_bot_per_agent_of_a_sub_env(rl):
    """Both seats of one Speed Snacks game played by the heuristic module, rows in either order: each agent's
    bot must see its own ticks only, as two bots playing the game alone do."""
    from ray.rllib.core.columns import Columns

    from snack_envs import speed_snacks_v1

    module = module_spec(rl, rl.PolicyRLModule, "speed_snacks_v1",
                         model_config={"policy": "heuristic", "env_name": "speed_snacks_v1", "num_players": 2,
                                       "options": SIZES, "seed": 0}, **SIZES).build()
    env = speed_snacks_v1.parallel_env(**SIZES)
    agents = list(env.possible_agents)
    bots = {a: specs.get("speed_snacks_v1").heuristic(2, **SIZES) for a in agents}
    ids = {a: 100 + k for k, a in enumerate(agents)}  # any distinct numbers name the agents
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(3)
    ticks = 0
    while env.agents and ticks < 300:
        order = [agents[i] for i in rng.permutation(len(agents))]
        batch = {
            Columns.OBS: {k: np.stack([obs[a][k] for a in order]) for k in ("observation", "action_mask")},
            rl.SEAT: np.array([[0, 2, 5, ids[a]] for a in order], np.int64),
        }
        chosen = module.forward_inference(batch)[Columns.ACTIONS].tolist()
        alone = [bots[a].act(obs[a]["observation"], obs[a]["action_mask"]) for a in order]
        assert chosen == alone, f"tick {ticks}"
        obs = env.step(dict(zip(order, alone)))[0]
        ticks += 1
    assert ticks >= 20


def test_policy_module_without_seat_column_plays_each_row_as_its_own_seat(rl):
    """Called directly (no SEAT column), row i is seat i of game 0 at sub-env 0: the random module then plays
    what RandomPolicy reset with that seat's seed plays."""
    from ray.rllib.core.columns import Columns

    from snack_envs.agents import RandomPolicy

    model_config = {"policy": "random", "env_name": "snack_rabbits_v0", "num_players": 2, "seed": 11}
    module = module_spec(rl, rl.PolicyRLModule, model_config=model_config, num_players=2).build()
    rng = np.random.default_rng(5)
    n, actions = 12, 49
    masks = (rng.random((n, actions)) < 0.5).astype(np.int8)
    masks[:, 0] = 1
    obs = {"observation": np.zeros((n, 85), np.float32), "action_mask": masks}
    with_seats = {Columns.OBS: obs, rl.SEAT: np.array([[0, 0, 0, row] for row in range(n)], np.int64)}
    without = module.forward_inference({Columns.OBS: obs})[Columns.ACTIONS].tolist()
    fresh = module_spec(rl, rl.PolicyRLModule, model_config=model_config, num_players=2).build()
    assert without == fresh.forward_inference(with_seats)[Columns.ACTIONS].tolist()
    assert all(masks[row, a] for row, a in enumerate(without))
    expected = []
    for row in range(n):
        policy = RandomPolicy()
        policy.reset(int(np.random.SeedSequence([11, 0, 0, 0, row]).generate_state(1, np.uint64)[0]))
        expected.append(policy.act(obs["observation"][row], masks[row]))
    assert without == expected


def test_ppo_config_builds_the_documented_modules_and_mapping(rl):
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec  # noqa: F401

    config = rl.ppo_config("speed_snacks_v1", env_options=SIZES, net_arch=(16, 8), seed=4,
                           snapshots=("main_v1", "main_v3"), opponents={"heuristic": 1.0}, lr=3e-4, gamma=0.9)
    specs_ = config.rl_module_spec.rl_module_specs
    assert list(specs_) == ["main", "random", "heuristic", "main_v1", "main_v3"] == list(config.policies)
    assert specs_["main"].module_class is rl.MaskedPPOTorchRLModule
    assert specs_["main"].model_config == {"fcnet_hiddens": [16, 8]}
    for snap in ("main_v1", "main_v3"):  # snapshots are copies of the learner's network
        assert specs_[snap].module_class is rl.MaskedPPOTorchRLModule and specs_[snap].model_config == {"fcnet_hiddens": [16, 8]}
    for kind in ("random", "heuristic"):
        assert specs_[kind].module_class is rl.PolicyRLModule
        assert specs_[kind].model_config == {"env_name": "speed_snacks_v1", "num_players": 2, "options": SIZES,
                                             "seed": 4, "policy": kind}
    assert config.policies_to_train == ["main"] and config.seed == 4 and (config.lr, config.gamma) == (3e-4, 0.9)
    assert config.env == "snack_envs/speed_snacks_v1"
    assert config.env_config == {"num_players": None, "reward": "win", **SIZES}
    mapping = config.policy_mapping_fn
    assert mapping.agents == ["player_0", "player_1"] and mapping.seed == 4 and mapping.snapshots == ("main_v1", "main_v3")
    assert config.callbacks_class is rl.GameNumbers
    pieces = config._env_to_module_connector()
    assert len(pieces) == 1 and isinstance(pieces[0], rl.AddSeatsToBatch)
    # Only the heuristic weight: every opponent draw among the weights present ("self" gets 0 here).
    drawn = {mapping(a, types.SimpleNamespace(id_="e", custom_data={rl.GAME: (0, 0, i)}))
             for i in range(50) for a in mapping.agents}
    assert drawn == {"main", "heuristic"}


def test_ppo_config_default_opponents_are_half_random_half_self(rl):
    config = rl.ppo_config("snack_wars_v0", num_players=3, seed=1)
    assert config.rl_module_spec.rl_module_specs["heuristic"].model_config["num_players"] == 3
    mapping = config.policy_mapping_fn.with_snapshots(["main_v1"])
    games = 1000
    drawn = [mapping(a, types.SimpleNamespace(id_="e", custom_data={rl.GAME: (0, 0, i)}))
             for i in range(games) for a in mapping.agents]
    assert drawn.count("main") == games and "heuristic" not in drawn
    share = drawn.count("random") / (2 * games)  # binomial sd about 0.011
    assert 0.45 < share < 0.55 and drawn.count("main_v1") == 2 * games - drawn.count("random")


def test_opponent_mapping_needs_the_game_numbers(rl):
    from snack_envs.core.game import ConfigError
    from snack_envs.opponents import OpponentMix

    mapping = rl.OpponentMapping(["player_1", "player_0"], OpponentMix({"random": 1.0}), seed=0)
    with pytest.raises(ConfigError, match=r"episode e7 has no game numbers .*add snack_envs.integrations.rllib.GameNumbers"):
        mapping("player_0", types.SimpleNamespace(id_="e7", custom_data={}))
    assert mapping("player_1", types.SimpleNamespace(id_="e8")) == "main"  # asked before custom_data exists


def test_game_numbers_count_games_per_sub_env_with_the_runner_index(rl):
    callback = rl.GameNumbers()
    seen = []
    for runner_index, env_index in [(None, 0), (None, 1), (None, 0), (None, 0), (None, 1)]:
        episode = types.SimpleNamespace(custom_data={})
        callback.on_episode_created(episode=episode, env_runner=types.SimpleNamespace(worker_index=runner_index),
                                    env_index=env_index)
        seen.append(episode.custom_data[rl.GAME])
    assert seen == [(0, 0, 0), (0, 1, 0), (0, 0, 1), (0, 0, 2), (0, 1, 1)]
    remote = rl.GameNumbers()
    episode = types.SimpleNamespace(custom_data={})
    remote.on_episode_created(episode=episode, env_runner=types.SimpleNamespace(worker_index=3), env_index=2)
    assert episode.custom_data[rl.GAME] == (3, 2, 0)


@pytest.mark.parametrize("name", ["snack_rabbits_v0", "speed_snacks_v1"])
def test_multi_agent_env_reseeds_by_its_runner(rl, name):
    """The local EnvRunner's env (index 0) deals what the public env deals for the seed; runner r's deals
    what it deals for runner_seed(seed, r), a seed of its own."""
    public = specs.get(name).entry_points()
    fresh = (lambda: public.parallel_env(num_players=2)) if specs.get(name).simultaneous else (lambda: public.env(num_players=2))

    def public_obs(seed):
        env = fresh()
        if specs.get(name).simultaneous:
            return {a: o["observation"].tobytes() for a, o in sorted(env.reset(seed=seed)[0].items())}
        env.reset(seed=seed)
        return {a: env.observe(a)["observation"].tobytes() for a in sorted(env.possible_agents)}

    for seed in (3, 4):
        local = rl.make_multi_agent_env(name, num_players=2)
        remote = rl.make_multi_agent_env(name, runner_index=2, num_players=2)
        local_obs, remote_obs = local.reset(seed=seed)[0], remote.reset(seed=seed)[0]
        assert {a: o["observation"].tobytes() for a, o in local_obs.items()}.items() <= public_obs(seed).items()
        assert {a: o["observation"].tobytes() for a, o in remote_obs.items()}.items() <= \
            public_obs(rl.runner_seed(seed, 2)).items()
    assert rl.runner_seed(3, 0) == 3 and len({rl.runner_seed(3, r) for r in (1, 2, 3)} | {rl.runner_seed(4, 1)}) == 4


class FakeAlgo:
    """What `add_snapshot` uses of an Algorithm: its mapping, the learner module and its weights; records the rest."""

    def __init__(self, rl, snapshots=()):
        from snack_envs.opponents import OpponentMix

        self.config = types.SimpleNamespace(
            policy_mapping_fn=rl.OpponentMapping(["player_0", "player_1"], OpponentMix({"self": 1.0}, snapshots), 0))
        self.main = module_spec(rl, rl.MaskedPPOTorchRLModule, model_config={"fcnet_hiddens": [8]}).build()
        self.weights = {"marker": np.arange(3)}
        self.calls: list = []
        self.learner_group = types.SimpleNamespace(get_state=self.get_state)

    def get_module(self, module_id):
        assert module_id == "main"
        return self.main

    def get_state(self, components):
        assert components == "learner/rl_module/main"
        return {"learner": {"rl_module": {"main": self.weights}}}

    def add_module(self, *, module_id, module_spec, new_agent_to_module_mapping_fn):
        self.calls.append(("add", module_id, module_spec.module_class, new_agent_to_module_mapping_fn.snapshots))
        self.config.policy_mapping_fn = new_agent_to_module_mapping_fn

    def set_state(self, state):
        self.calls.append(("set", state))

    def remove_module(self, module_id, *, new_agent_to_module_mapping_fn):
        self.calls.append(("remove", module_id, new_agent_to_module_mapping_fn.snapshots))
        self.config.policy_mapping_fn = new_agent_to_module_mapping_fn


def test_add_snapshot_numbers_after_the_newest_and_copies_the_learners_weights(rl):
    algo = FakeAlgo(rl)
    assert rl.add_snapshot(algo) == "main_v1"
    add, set_ = algo.calls
    assert add == ("add", "main_v1", rl.MaskedPPOTorchRLModule, ("main_v1",))
    assert set_[0] == "set" and set_[1] == {"learner_group": {"learner": {"rl_module": {"main_v1": algo.weights}}}}
    assert rl.add_snapshot(algo) == "main_v2" and algo.config.policy_mapping_fn.snapshots == ("main_v1", "main_v2")
    gap = FakeAlgo(rl, snapshots=("main_v3", "main_v7"))  # the oldest were dropped: number after the newest
    assert rl.add_snapshot(gap) == "main_v8" and gap.config.policy_mapping_fn.snapshots == ("main_v3", "main_v7", "main_v8")
    assert not [c for c in gap.calls if c[0] == "remove"]  # no max_snapshots: none dropped


def test_add_snapshot_drops_the_oldest_beyond_max_snapshots(rl):
    algo = FakeAlgo(rl, snapshots=("main_v1", "main_v2", "main_v3", "main_v4"))
    assert rl.add_snapshot(algo, max_snapshots=2) == "main_v5"
    kept = ("main_v4", "main_v5")
    assert algo.calls[0] == ("add", "main_v5", rl.MaskedPPOTorchRLModule, kept)
    assert [c for c in algo.calls if c[0] == "remove"] == [("remove", f"main_v{k}", kept) for k in (1, 2, 3)]
    assert algo.config.policy_mapping_fn.snapshots == kept
    few = FakeAlgo(rl, snapshots=("main_v5",))  # fewer than max_snapshots: none dropped
    assert rl.add_snapshot(few, max_snapshots=3) == "main_v6"
    assert few.config.policy_mapping_fn.snapshots == ("main_v5", "main_v6")
    assert not [c for c in few.calls if c[0] == "remove"]


# --- RLlib checkpoints -------------------------------------------------------------------------------------
def saved_module(rl, path, name: str = "snack_rabbits_v0", num_players: int = 2):
    import torch

    torch.manual_seed(0)
    module = module_spec(rl, rl.MaskedPPOTorchRLModule, name, model_config={"fcnet_hiddens": [8]},
                         num_players=num_players).build()
    module.save_to_path(str(path))
    return module


def random_positions(name: str, n: int, rng: np.random.Generator, num_players: int = 2):
    raw = specs.get(name).raw_env(num_players=num_players)
    space = raw.observation_space(raw.possible_agents[0])
    obs = rng.random((n, space["observation"].shape[0])).astype(np.float32)
    masks = (rng.random((n, space["action_mask"].shape[0])) < 0.2).astype(np.int8)
    masks[np.arange(n), rng.integers(masks.shape[1], size=n)] = 1
    return obs, masks


def test_load_policy_finds_the_learner_in_an_algorithm_checkpoint_and_acts_greedily(rl, tmp_path):
    import torch
    from ray.rllib.core.columns import Columns

    algo_dir = tmp_path / "algo"
    module = saved_module(rl, algo_dir / "learner_group" / "learner" / "rl_module" / "main")
    assert rl.module_path(algo_dir) == algo_dir / "learner_group" / "learner" / "rl_module" / "main"
    policy = rl.load_policy(algo_dir, env_name="snack_rabbits_v0")
    assert policy.name == "algo" and policy.deterministic
    obs, masks = random_positions("snack_rabbits_v0", 20, np.random.default_rng(0))
    for o, m in zip(obs, masks):
        with torch.no_grad():
            raw_logits = module._forward({Columns.OBS: {"observation": torch.as_tensor(o[None]),
                                                        "action_mask": torch.as_tensor(m[None])}})
        logits = raw_logits[Columns.ACTION_DIST_INPUTS][0].double().numpy()
        assert np.allclose(policy.logits(o, m), logits)
        legal = np.flatnonzero(m)
        assert policy.act(o, m) == legal[np.argmax(logits[legal])]
    with pytest.raises(rl.CheckpointError, match=r"algo: not an RLlib checkpoint \(no module 'main_v2' in it\)"):
        rl.load_policy(algo_dir, module_id="main_v2")
    # An Algorithm checkpoint also has its own class_and_ctor_args.pkl at its root (Checkpointable writes one):
    # that is no module, and the missing one is still named (it went to RLlib, which raised its ValueError).
    (algo_dir / "class_and_ctor_args.pkl").write_bytes(pickle.dumps({"class": dict, "ctor_args_and_kwargs": ((), {})}))
    with pytest.raises(rl.CheckpointError, match=r"algo: not an RLlib checkpoint \(no module 'main_v2' in it\)"):
        rl.load_policy(algo_dir, module_id="main_v2")


def test_load_policy_samples_when_not_deterministic(rl, tmp_path):
    saved_module(rl, tmp_path / "final")
    obs, masks = random_positions("snack_rabbits_v0", 1, np.random.default_rng(1))
    masks[0] = 0
    masks[0, [3, 7, 20, 30]] = 1
    greedy = rl.load_policy(tmp_path / "final")
    sampler = rl.load_policy(tmp_path / "final", deterministic=False)
    assert not sampler.deterministic
    sampler.reset(0)
    picks = {sampler.act(obs[0], masks[0]) for _ in range(60)}
    assert picks <= {3, 7, 20, 30} and len(picks) > 1  # an untrained net's softmax is near uniform
    assert {greedy.act(obs[0], masks[0]) for _ in range(5)} == {greedy.act(obs[0], masks[0])}


def test_load_policy_without_metadata_checks_the_network_against_the_game(rl, tmp_path):
    saved_module(rl, tmp_path / "rabbits", "snack_rabbits_v0")  # 85 observation values, 49 actions
    # No final.json beside it: the game at the asked player count, or at its default (2 for snack_wars).
    with pytest.raises(rl.CheckpointError, match=r"rabbits: its network takes 85 observation values and scores 49 "
                                                 r"actions, but snack_wars_v0 \(2 players\) has 134 and 86"):
        rl.load_policy(tmp_path / "rabbits", env_name="snack_wars_v0")
    with pytest.raises(rl.CheckpointError, match=r"but snack_wars_v0 \(3 players\) has 134 and 86"):
        rl.load_policy(tmp_path / "rabbits", env_name="snack_wars_v0", num_players=3)
    assert rl.load_policy(tmp_path / "rabbits", env_name="snack_rabbits_v0", num_players=4).name == "rabbits"
    assert rl.load_policy(tmp_path / "rabbits").name == "rabbits"  # nothing to check against


def test_registered_env_is_built_in_the_runner_that_asks(rl):
    from ray.rllib.env.env_context import EnvContext
    from ray.tune.registry import ENV_CREATOR, _global_registry

    env_id = rl.register_env("snack_wars_v0")
    assert env_id == "snack_envs/snack_wars_v0"
    create = _global_registry.get(ENV_CREATOR, env_id)
    remote = create(EnvContext({"num_players": 3}, worker_index=2))
    assert remote.runner_index == 2 and len(remote.possible_agents) == 3
    assert create(EnvContext({"num_players": 2}, worker_index=0)).runner_index == 0
    assert create({"num_players": 2}).runner_index == 0  # a plain dict: the local EnvRunner's env


def test_rllib_wrappers_built_directly_reset_as_the_public_env(rl):
    from snack_envs import snack_rabbits_v0

    env = rl.SnackPettingZooEnv(snack_rabbits_v0.env(num_players=2))
    obs = env.reset(seed=5)[0]
    public = snack_rabbits_v0.env(num_players=2)
    public.reset(seed=5)
    for agent, o in obs.items():
        assert np.array_equal(o["observation"], public.observe(agent)["observation"])


def test_policy_module_is_never_trained_and_a_policy_wraps_a_module_greedily(rl):
    from ray.rllib.core.columns import Columns

    module = module_spec(rl, rl.PolicyRLModule, model_config={"policy": "random", "env_name": "snack_rabbits_v0",
                                                             "num_players": 2, "seed": 0}).build()
    obs, masks = random_positions("snack_rabbits_v0", 2, np.random.default_rng(2))
    with pytest.raises(NotImplementedError, match="never trained"):
        module.forward_train({Columns.OBS: {"observation": obs, "action_mask": masks}})
    masked = module_spec(rl, rl.MaskedPPOTorchRLModule, model_config={"fcnet_hiddens": [8]}).build()
    policy = rl.RLModulePolicy(masked)
    assert policy.name == "rllib" and policy.deterministic
    config = rl.ppo_config("snack_rabbits_v0")  # the defaults: two hidden layers of 256, one local EnvRunner
    assert config.rl_module_spec.rl_module_specs["main"].model_config == {"fcnet_hiddens": [256, 256]}
    assert config.num_learners == 0 and config.num_env_runners == 0 and config.num_envs_per_env_runner == 1


@pytest.mark.parametrize("given, message", [
    ({"opponents": {"random": 0.5, "heurstic": 0.5}}, r"unknown opponent kind\(s\) \['heurstic'\]"),
    ({"opponents": {}}, "must not all be 0"),
    ({"snapshots": "main_v1"}, "snapshots must be a list or tuple of snapshot ids"),
    ({"snapshots": ("main",)}, r"snapshot ids are main_v1, main_v2, ... \(as add_snapshot names them\), got \['main'\]"),
    ({"snapshots": ("random",)}, r"got \['random'\]"),
    ({"snapshots": ("main_v1", "main_v1")}, "snapshot ids must differ"),
    ({"net_arch": (0,)}, r"net_arch must be a non-empty list of layer widths \(ints from 1\), got \(0,\)"),
    ({"net_arch": "64"}, "net_arch must be a non-empty list of layer widths"),
    ({"num_env_runners": -1}, "num_env_runners must be an int of at least 0, got -1"),
    ({"num_envs_per_env_runner": 1.0}, "num_envs_per_env_runner must be a positive int, got 1.0"),
    ({"seed": "x"}, "ppo_config: seed must be a non-negative int or None, got 'x'"),
    ({"seed": -1}, "seed must be a non-negative int or None, got -1"),
    ({"env_options": [1]}, r"env_options must be a dict of the env's keywords, got \[1\]"),
    ({"num_players": 2, "env_options": {"num_players": 3}}, "give num_players as ppo_config's own argument, not in env_options"),
])
def test_ppo_config_refuses_what_would_build_another_algorithm_or_fail_later(rl, given, message):
    """Each was taken: a misspelt kind weighed 0, a snapshot id "main" or "random" replaced the learner's or
    a bot's module, a string of ids made one snapshot a letter, and bad sizes and seeds failed in Ray or torch."""
    from snack_envs.core.game import ConfigError

    with pytest.raises(ConfigError, match=message):
        rl.ppo_config("snack_rabbits_v0", **given)


def test_register_env_refuses_an_env_this_package_lacks_when_it_is_called(rl):
    """An unknown name was registered, to fail only when Ray first built the env (in a remote EnvRunner)."""
    from snack_envs.specs import UnknownEnvError

    for bad in ("snack_wars_v9", None):
        with pytest.raises(UnknownEnvError, match=f"unknown env {bad!r}; known envs: snack_rabbits_v0"):
            rl.register_env(bad)


def test_add_snapshot_refuses_a_max_snapshots_that_keeps_none(rl):
    """max_snapshots=0 kept every snapshot, as None does; a negative one dropped the newest."""
    from snack_envs.core.game import ConfigError

    for bad in (0, -1, 1.5):
        with pytest.raises(ConfigError, match=f"max_snapshots={bad!r}: keep at least 1 snapshot"):
            rl.add_snapshot(object(), bad)


def test_env_runner_gives_each_random_seat_of_a_turn_based_game_its_own_seeded_stream(rl):
    """Snack Wars with 3 players, turns interleaved, two sub-envs: every "random" seat plays what a
    RandomPolicy reset with the seed drawn from (seed, EnvRunner, sub-env, game, crc32 of the agent) plays
    on that seat's own observations, in order."""
    import zlib

    from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner

    from snack_envs.agents import RandomPolicy

    config = rl.ppo_config("snack_wars_v0", num_players=3, opponents={"random": 1.0}, seed=9,
                           num_envs_per_env_runner=2, net_arch=(8,))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        episodes = MultiAgentEnvRunner(config=config).sample(num_episodes=2, explore=True)
    replayed = 0
    for episode in episodes:
        game = episode.custom_data[rl.GAME]
        for agent, seat in episode.agent_episodes.items():
            if seat.module_id != "random":
                continue
            policy = RandomPolicy()
            key = [9, *game, zlib.crc32(str(agent).encode())]
            policy.reset(int(np.random.SeedSequence(key).generate_state(1, np.uint64)[0]))
            obs = seat.get_observations(slice(0, len(seat)))
            expected = [policy.act(obs["observation"][t], obs["action_mask"][t]) for t in range(len(seat))]
            assert expected == np.asarray(seat.get_actions()).tolist(), (game, agent)
            replayed += 1
    assert replayed >= 4  # two opponents in each of at least two games
