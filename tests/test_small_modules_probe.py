"""Behaviour of the small shared modules, checked against values worked out by hand:

- Snack Time's map feature planes (snack_envs/snack_time/map_features.py): as many planes as NUM_PLANES says
  (their values are checked against the heuristic's Sheet in tests/snack_time/test_time_map_features.py);
- the convolutional GridPolicy (snack_envs/networks.py): the extractor computes what its docstring describes
  (FiLM blocks included), and a cell's logits see 5 cells around it;
- Snack Time's sheet check (SheetRules._sheet_violations): each kind of corrupted sheet is reported;
- the game registry (specs), the Gymnasium/PettingZoo registration (also when gymnasium is imported after
  snack_envs) and the episode loop (core.rollout).
"""

from __future__ import annotations

import numpy as np
import pytest

# ---------------------------------------------------------------- Snack Time map features
# A hand-drawn map (rows 0..7 top to bottom, columns 0..7; creatures NW (0,0), NE (0,7), SW (7,0), SE (7,7)).
N, E, S, W = 1, 2, 4, 8
PIPES = {
    (0, 1): E | W, (0, 2): W | S,  # NW's network runs east and turns south: its frontier is (1,0) and (1,2)
    (1, 7): N | S,  # NE reaches entrance 2 at (2,7): linked
    (6, 0): N | S, (7, 1): E | W,  # SW reaches entrance 4 at (5,0) and entrance 3 at (7,2)
    (6, 7): S, (7, 6): E,  # dead ends facing SE: its network has no frontier, it can reach nothing
}
ENTRANCES = {0: (3, 2), 1: (2, 7), 2: (7, 2), 3: (5, 0), 4: (4, 5)}  # entrance k (1..5 is k + 1) -> cell


def hand_drawn_map(pipes=PIPES, entrances=ENTRANCES) -> np.ndarray:
    from snack_envs.snack_time.observation import LAYOUT

    obs = np.zeros(LAYOUT.size, np.float32)
    own_map = obs[LAYOUT.slices["own_map"]].reshape(8, 8, 6)
    marks = obs[LAYOUT.slices["map_marks"]].reshape(8, 8, 6)
    for (r, c), openings in pipes.items():
        own_map[r, c, :4] = [openings >> b & 1 for b in range(4)]  # N, E, S, W
    for k, (r, c) in entrances.items():
        marks[r, c, 1 + k] = 1.0
    return obs


def features_of(*observations) -> np.ndarray:
    torch = pytest.importorskip("torch")
    from snack_envs.snack_time.map_features import map_features

    return map_features(torch.as_tensor(np.stack(observations))).numpy()


def test_map_features_have_the_documented_number_of_planes():
    from snack_envs.snack_time.map_features import NUM_PLANES

    # 4 creatures + 5 entrances, a network plane and a distance plane each; 20 pairs, a path plane and a gap plane each.
    assert NUM_PLANES == 2 * 9 + 2 * 20 == 58
    assert features_of(hand_drawn_map(), hand_drawn_map({}, {})).shape == (2, NUM_PLANES, 8, 8)


# ---------------------------------------------------------------- the episode loop (core.rollout)
def _recording(policy_class):
    class Recording(policy_class):
        def __init__(self, seed=None):
            super().__init__(seed)
            self.resets, self.calls = [], []

        def reset(self, seed=None):
            self.resets.append(seed)
            super().reset(seed)

    return Recording


def test_play_reseeds_each_seat_plays_to_the_end_and_counts_every_step():
    from snack_envs import specs
    from snack_envs.core.rollout import RandomPolicy, play, policy_seed

    assert [policy_seed(7, seat) for seat in range(3)] == [679, 680, 681] and policy_seed(None, 2) is None
    env = specs.get("snack_wars_v0").raw_env(num_players=3, shuffle_seats=False)
    policies = {agent: _recording(RandomPolicy)(seed=100 + i) for i, agent in enumerate(env.possible_agents)}
    seen = []
    result = play(env, policies, seed=7, watch=lambda e, actions: seen.append(actions))
    assert [p.resets for p in policies.values()] == [[679], [680], [681]]
    assert seen[0] is None and all(len(a) == 1 for a in seen[1:])  # turn-based: the agent to act, alone
    assert result["steps"] == len(seen) - 1 > 0
    assert result["finished"] is True and result["truncated"] is False
    assert result["scores"] == env.game.scores() and result["winners"] == env.game.winners()


def test_play_stops_where_the_watcher_says_and_reports_no_outcome():
    from snack_envs import specs
    from snack_envs.core.rollout import RandomPolicy, play

    env = specs.get("snack_wars_v0").raw_env(num_players=2)
    policies = {agent: RandomPolicy() for agent in env.possible_agents}
    calls = []
    result = play(env, policies, seed=3, watch=lambda e, actions: calls.append(actions) or len(calls) == 4)
    assert result == {"scores": None, "winners": None, "finished": False, "truncated": False, "steps": 3}
    # Stopped before the first step.
    assert play(env, policies, seed=3, watch=lambda e, actions: True)["steps"] == 0


def test_play_reports_a_truncated_episode():
    from snack_envs import specs
    from snack_envs.core.rollout import RandomPolicy, play

    env = specs.get("snack_wars_v0").raw_env(num_players=2, max_steps=5)
    result = play(env, {agent: RandomPolicy(0) for agent in env.possible_agents}, seed=1)
    assert result == {"scores": None, "winners": None, "finished": False, "truncated": True, "steps": 5}


def test_play_moves_every_agent_of_a_simultaneous_game_each_step():
    from snack_envs import specs
    from snack_envs.core.rollout import RandomPolicy, play

    env = specs.get("speed_snacks_v1").raw_env(num_players=2)
    policies = {agent: RandomPolicy(i) for i, agent in enumerate(env.possible_agents)}
    moved = []
    result = play(env, policies, seed=2, watch=lambda e, actions: moved.append((actions, list(e.agents))))
    assert moved[0][0] is None and result["steps"] == len(moved) - 1 > 0
    assert all(set(actions) == set(env.possible_agents) for actions, _ in moved[1:-1])
    assert result["finished"] and result["scores"] == env.game.scores()


def test_random_policy_and_game_policy_basics():
    from snack_envs.core.rollout import GamePolicy, RandomPolicy

    mask = np.zeros(50, np.int8)
    mask[[3, 17, 40]] = 1
    a = RandomPolicy(5)
    first = [a.act(None, mask) for _ in range(20)]
    assert set(first) <= {3, 17, 40} and len(set(first)) > 1
    a.reset(5)
    assert [a.act(None, mask) for _ in range(20)] == first  # reseeded: the same draws
    a.reset(None)  # no seed: the stream goes on
    assert [a.act(None, mask) for _ in range(20)] != first
    with pytest.raises(ValueError, match="RandomPolicy: the action mask allows no action"):
        RandomPolicy(0).act(None, np.zeros(5, np.int8))
    with pytest.raises(TypeError, match="act_game"):
        GamePolicy().act(None, mask)
    options = GamePolicy.check_env_options("snack_wars_v0", {"max_steps": 9, "shuffle_seats": False})
    assert "max_steps" not in options and "shuffle_seats" not in options


# ---------------------------------------------------------------- the game registry and registration
def test_every_games_names_follow_from_its_spec():
    import dataclasses

    from snack_envs import specs

    expected = {  # env name: (Gymnasium id, PettingZoo id, package, simultaneous)
        "snack_rabbits_v0": ("SnackRabbits-v0", "snack_envs/snack_rabbits-v0", "snack_envs.snack_rabbits", False),
        "snack_time_v0": ("SnackTime-v0", "snack_envs/snack_time-v0", "snack_envs.snack_time", False),
        "snack_wars_v0": ("SnackWars-v0", "snack_envs/snack_wars-v0", "snack_envs.snack_wars", False),
        "speed_snacks_v1": ("SpeedSnacks-v1", "snack_envs/speed_snacks-v1", "snack_envs.speed_snacks", True),
    }
    assert specs.ENV_NAMES == tuple(expected)
    for env_name, (gym_id, pz_id, package, simultaneous) in expected.items():
        spec = specs.get(env_name)
        assert (spec.env_name, spec.gym_id, spec.pettingzoo_id, spec.package, spec.simultaneous) == (
            env_name, gym_id, pz_id, package, simultaneous)
        assert specs.for_game(spec.name) is spec
        assert spec.rules_class.__name__ == spec.rules and spec.env_class.__name__ == spec.env
        assert spec.encoder_class.__name__ == spec.encoder
        assert spec.entry_points().__name__ == f"snack_envs.{env_name}"
        assert spec.batched  # every game has a batched native engine (snack_envs.batched)
        assert spec.module("batched").Kernel
    with pytest.raises(dataclasses.FrozenInstanceError):  # a spec is read-only: the registry cannot drift
        specs.get("snack_wars_v0").version = 1
    with pytest.raises(specs.RetiredEnvError, match="speed_snacks_v0 is retired; use speed_snacks_v1"):
        specs.get("speed_snacks_v0")
    with pytest.raises(specs.UnknownEnvError, match="unknown env 'snack_pies_v0'; known envs: snack_rabbits_v0, snack_time_v0"):
        specs.get("snack_pies_v0")


def test_raw_env_is_a_parallel_env_for_a_simultaneous_game_only():
    from pettingzoo import AECEnv, ParallelEnv

    from snack_envs import specs

    par = specs.get("speed_snacks_v1").raw_env(num_players=2)
    aec = specs.get("snack_wars_v0").raw_env(num_players=3)
    assert isinstance(par, ParallelEnv) and par.num_players == 2
    assert isinstance(aec, AECEnv) and not isinstance(aec, ParallelEnv) and aec.num_players == 3
    bot = specs.get("snack_wars_v0").heuristic(3)
    assert type(bot).__name__ == "HeuristicPolicy" and type(bot).__module__ == "snack_envs.snack_wars.heuristic"


def test_gymnasium_and_pettingzoo_ids_are_registered_once_each():
    import gymnasium

    from snack_envs import registration

    ids = ["SnackRabbits-v0", "SnackTime-v0", "SnackWars-v0", "SpeedSnacks-v1", "SnackTimeSolo-v0"]
    assert registration.gymnasium_ids() == ids
    assert registration.register_gymnasium() == ids and registration.register_gymnasium() == ids
    env_names = ["snack_rabbits_v0", "snack_time_v0", "snack_wars_v0", "speed_snacks_v1"]
    for gym_id, env_name in zip(ids, env_names):
        spec = gymnasium.spec(gym_id)
        assert spec.entry_point == "snack_envs.single_agent:SingleAgentEnv" and spec.kwargs["env_name"] == env_name
    assert gymnasium.spec("SnackTimeSolo-v0").entry_point == "snack_envs.snack_time.solo:SnackTimeSoloEnv"
    pz_ids = ["snack_envs/snack_rabbits-v0", "snack_envs/snack_time-v0", "snack_envs/snack_wars-v0", "snack_envs/speed_snacks-v1"]
    assert registration.register_pettingzoo() == pz_ids


def test_registration_waits_for_each_library_and_hands_its_loader_back():
    import json
    import subprocess
    import sys

    code = (
        "import importlib.machinery, json, sys\n"
        # An import hook installed before snack_envs (as an editable install's finder would be) that also finds
        # gymnasium: registration must still see gymnasium's first import.
        "class Editable:\n"
        "    def find_spec(self, fullname, path, target=None):\n"
        "        if fullname == 'gymnasium':\n"
        "            return importlib.machinery.PathFinder.find_spec(fullname, path)\n"
        "sys.meta_path.insert(0, Editable())\n"
        "import snack_envs\n"
        "from snack_envs import registration\n"
        "hooks = lambda: [type(f).__name__ for f in sys.meta_path if isinstance(f, registration._RegisterAfterImport)]\n"
        "out = {'before': 'gymnasium' in sys.modules, 'hooks0': hooks()}\n"
        "import gymnasium\n"
        "out['gym'] = sorted(i for i in registration.gymnasium_ids() if i in gymnasium.registry)\n"
        "out['hooks1'] = hooks()\n"
        "out['loader'] = [type(gymnasium.__loader__).__name__, type(gymnasium.__spec__.loader).__name__]\n"
        "import pettingzoo\n"
        "out['pz'] = sorted(pettingzoo.aec_registry) if hasattr(pettingzoo, 'aec_registry') else None\n"
        "out['hooks2'] = hooks()\n"
        "snack_envs.registration.install()\n"
        "out['hooks3'] = hooks()\n"
        "print(json.dumps(out))\n"
    )
    out = json.loads(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
    assert out["before"] is False and out["hooks0"] == ["_RegisterAfterImport"]
    assert out["gym"] == sorted(["SnackRabbits-v0", "SnackTime-v0", "SnackWars-v0", "SpeedSnacks-v1", "SnackTimeSolo-v0"])
    assert out["hooks1"] == ["_RegisterAfterImport"]  # still waiting for pettingzoo
    assert out["loader"] == ["SourceFileLoader", "SourceFileLoader"]  # gymnasium's own loader is put back
    if out["pz"] is not None:
        assert {"snack_envs/snack_wars-v0", "snack_envs/speed_snacks-v1"} <= set(out["pz"])
    assert out["hooks2"] == [] and out["hooks3"] == []  # both registered: no hook left, none added again


def test_while_a_library_loads_its_loader_answers_as_its_own_loader_does():
    import importlib.machinery
    import importlib.util

    from snack_envs.registration import _ThenRegister

    spec = importlib.util.find_spec("json")
    calls = []
    wrapped = _ThenRegister(spec.loader, lambda: calls.append(1))
    assert isinstance(spec.loader, importlib.machinery.SourceFileLoader)
    assert wrapped.get_filename("json") == spec.loader.get_filename("json") == spec.origin
    assert wrapped.is_package("json") is True
    assert wrapped.get_source("json") == spec.loader.get_source("json")
    assert calls == []


# ---------------------------------------------------------------- the convolutional grid policy
def _grid_policy(grid, **kwargs):
    torch = pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    from snack_envs.networks import GridPolicy
    from snack_envs.single_agent import SingleAgentEnv

    env = SingleAgentEnv("snack_time_v0", opponents=["random"])
    torch.manual_seed(0)
    policy = GridPolicy(env.observation_space, env.action_space, lambda progress: 1e-3 * progress, grid=grid, **kwargs)
    return env, policy


def test_a_cell_logit_sees_five_cells_around_it_and_the_global_features():
    torch = pytest.importorskip("torch")
    from snack_envs.snack_time.actions import NUM_PATTERNS, PIPE_BASE
    from snack_envs.snack_time.observation import GRID

    local = {k: v for k, v in GRID.items() if k != "features"}  # without the whole-map feature planes
    env, policy = _grid_policy(local)  # the default trunk: 3x3 convolutions dilated 1 then 2
    extractor = policy.features_extractor
    obs, _ = env.reset(seed=0)
    batch = torch.as_tensor(np.stack([obs, obs]))
    batch[1, 0:4] = torch.tensor([0.0, 1.0, 1.0, 0.0])  # an E+S pipe drawn at (0,0)
    with torch.no_grad():
        out = extractor(batch)
    changed = (out[0] - out[1]).abs() > 1e-7

    def pipes_at(r, c):
        cell = r * 8 + c
        return changed[PIPE_BASE + cell * NUM_PATTERNS:PIPE_BASE + (cell + 1) * NUM_PATTERNS].any().item()

    assert pipes_at(0, 1) and pipes_at(5, 5) and pipes_at(0, 5)
    assert not pipes_at(6, 6) and not pipes_at(0, 6) and not pipes_at(6, 0)
    assert changed[-128:].any()  # the value latent pools the whole board


# ---------------------------------------------------------------- Snack Time's sheet checks
def _sheet_problems(game) -> list[str]:
    return [m.removeprefix("seat 0: ") for m in game.invariant_violations()]


def test_the_sheet_check_flags_links_that_differ_from_the_pipes():
    from tests.snack_time.time_scripted import draw_path, new_game

    game = new_game(1)
    assert game.round == 1 and _sheet_problems(game) == []
    game.pipes_left[0] = [0, 0, 0]  # the round's pipes are drawn by hand instead
    draw_path(game, 0, ["<0", "<1", "A1"])  # NW's south side -> entrance 1 at A1: one pipe
    assert game.links[0] == [1, 0, 0, 0] and _sheet_problems(game) == []
    game.links[0][0] = 0
    assert _sheet_problems(game) == ["NW: links 00000, recomputed 00001"]


def test_the_sheet_check_flags_more_pipes_than_the_three_pipe_dice_gave():
    from tests.snack_time.time_scripted import draw_path, new_game

    game = new_game(1)
    game.pipes_left[0] = [0, 0, 0]  # the round's pipes are drawn by hand instead
    draw_path(game, 0, ["<0", "<1", "<2", "<3", "<4"])  # 3 pipes in round 1: as many as 3 pipe dice give
    assert _sheet_problems(game) == []
    draw_path(game, 0, ["<3", "<4", "<5"])  # a 4th
    assert _sheet_problems(game) == ["more pipes than dice rolled"]


def test_the_sheet_check_flags_a_pipe_off_every_network_or_on_an_entrance_or_creature():
    from snack_envs.snack_time.components import N, S, parse_cell
    from tests.snack_time.time_scripted import new_game

    game = new_game(1)
    game._draw_pipe(0, parse_cell("C3"), N | S)  # nothing around C3 leads to a creature or an entrance
    assert "pipe at C3 off any network, or on a creature or entrance" in _sheet_problems(game)
    for cell in ("A1", "<0"):  # entrance 1's cell, NW's cell
        game = new_game(1)
        game.pipes[0][parse_cell(cell)] = N
        assert f"pipe at {cell} off any network, or on a creature or entrance" in _sheet_problems(game)


def test_a_residual_block_scales_its_hidden_channels_by_one_plus_the_global_scale():
    torch = pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    from snack_envs.networks import _Block

    torch.manual_seed(1)
    block = _Block(channels=3, dilation=2, global_dim=4)
    x = torch.rand(2, 3, 8, 8, generator=torch.Generator().manual_seed(2))
    g = torch.rand(2, 4, generator=torch.Generator().manual_seed(3))
    with torch.no_grad():
        film = block.film(g)
        scale, shift = film[:, :3, None, None], film[:, 3:, None, None]
        hidden = torch.relu(block.conv1(x) * (1.0 + scale) + shift)
        np.testing.assert_allclose(block(x, g).numpy(), torch.relu(x + block.conv2(hidden)).numpy(), atol=1e-6)
        # A scale of -1 silences the first convolution: the block then depends on x only through the skip.
        block.film.weight.zero_()
        block.film.bias.copy_(torch.tensor([-1.0, -1.0, -1.0, 0.5, 0.0, -0.5]))
        out = block(x, g)
        shifted = torch.tensor([0.5, 0.0, 0.0]).view(1, 3, 1, 1).expand(2, 3, 8, 8)
        np.testing.assert_allclose(out.numpy(), torch.relu(x + block.conv2(shifted)).numpy(), atol=1e-6)
    assert block.conv1.dilation == (2, 2) and block.conv1.padding == (2, 2)


def test_the_extractor_computes_what_its_docstring_describes():
    torch = pytest.importorskip("torch")
    from snack_envs.snack_time.actions import ENTRANCE_BASE, NUM_PATTERNS, PIPE_BASE
    from snack_envs.snack_time.map_features import map_features
    from snack_envs.snack_time.observation import GRID, LAYOUT

    env, policy = _grid_policy(GRID, channels=6, dilations=[1, 3])
    ex = policy.features_extractor
    n = int(env.action_space.n)
    observations = [env.reset(seed=s)[0] for s in (5, 6)]
    for _ in range(30):  # a map with pipes on it
        mask = env.action_masks()
        obs, *_ = env.step(int(np.flatnonzero(mask)[-1]))
    observations.append(obs)
    obs = torch.as_tensor(np.stack(observations))
    own, marks = LAYOUT.slices["own_map"], LAYOUT.slices["map_marks"]

    def sl(x):
        return torch.sign(x) * torch.log(1 + x.abs())

    with torch.no_grad():
        # Input planes: own_map's 6 and map_marks' 6 entries of each cell, then the feature planes.
        cells = torch.cat([obs[:, own].view(-1, 64, 6), obs[:, marks].view(-1, 64, 6)], 2)
        planes = torch.cat([sl(cells).transpose(1, 2).reshape(-1, 12, 8, 8), map_features(obs)], 1)
        rest = torch.ones(obs.shape[1], dtype=torch.bool)
        rest[own] = False
        rest[marks] = False
        g = ex.global_net(sl(obs[:, rest]))
        x = torch.relu(ex.stem(planes) + ex.global_to_cells(g)[:, :, None, None])
        for block in ex.blocks:
            x = block(x, g)
        summary = torch.cat([x.mean((2, 3)), x.amax((2, 3)), g], 1)
        per_cell = ex.cell_head(x).flatten(2)  # (batch, NUM_PATTERNS + 1, 64)
        expected = torch.empty(obs.shape[0], n)
        is_cell = torch.zeros(n, dtype=torch.bool)
        for cell in range(64):
            expected[:, PIPE_BASE + cell * NUM_PATTERNS:PIPE_BASE + (cell + 1) * NUM_PATTERNS] = per_cell[:, :NUM_PATTERNS, cell]
            expected[:, ENTRANCE_BASE + cell] = per_cell[:, NUM_PATTERNS, cell]
            is_cell[PIPE_BASE + cell * NUM_PATTERNS:PIPE_BASE + (cell + 1) * NUM_PATTERNS] = True
            is_cell[ENTRANCE_BASE + cell] = True
        expected[:, ~is_cell] = ex.global_head(summary)  # the other actions, in order
        out = ex(obs)
        value = ex.value_head(summary)
    assert [b.conv1.dilation for b in ex.blocks] == [(1, 1), (3, 3)]
    np.testing.assert_allclose(out[:, :n].numpy(), expected.numpy(), atol=1e-5)
    np.testing.assert_allclose(out[:, n:].numpy(), value.numpy(), atol=1e-5)


def test_the_sheet_check_flags_kept_summaries_that_differ_from_the_map():
    from snack_envs.snack_time.components import SNACK_SLOTS
    from tests.snack_time.time_scripted import draw_path, new_game

    game = new_game(1)
    game.pipes_left[0] = [0, 0, 0]  # the round's pipes are drawn by hand instead
    draw_path(game, 0, ["<0", "<1", "A1"])
    root = next(cell for cell in range(64) if game.parent[0][cell] == cell and game.members[0][cell] >> 8 & 1)
    game.reach[0][root] |= 1 << 1  # the network through <1 (cell 8) and A1 now says it reaches NE
    assert _sheet_problems(game) == [f"network at {'<1' if root == 8 else 'A1'}: union-find and flood fill disagree"]

    game = new_game(1)
    game.fits[0][next(i for i, f in enumerate(game.fits[0]) if f == 0)] = 1
    assert _sheet_problems(game) == ["fits differ from a recomputation"]

    game = new_game(1)
    game.snacks[0][2] = [0] * (SNACK_SLOTS + 1)
    assert f"creature SW ate {SNACK_SLOTS + 1} snacks" in _sheet_problems(game)


def test_the_bots_name_themselves_in_match_reports():
    from snack_envs.core.rollout import GamePolicy, RandomPolicy

    assert RandomPolicy().name == "random" and GamePolicy().name == "game policy"


def test_every_game_has_a_batched_engine_listed():
    from snack_envs import batched

    assert batched.available() == ["snack_rabbits_v0", "snack_time_v0", "snack_wars_v0", "speed_snacks_v1"]
