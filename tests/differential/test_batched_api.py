"""The batched engine's API: bad input, determinism across processes, automatic reset, and the SB3 VecEnv."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys

import numpy as np
import pytest

from snack_envs import specs
from snack_envs.core.env import final_rewards
from snack_envs.core.game import ConfigError, IllegalActionError

pytest.importorskip("numba")
from snack_envs import batched  # noqa: E402
from snack_envs.core.batched import BatchedEnv  # noqa: E402

BATCHED = [s.env_name for s in specs.SPECS if s.batched]


def random_actions(out, rng) -> np.ndarray:
    mask = out[1]
    return (rng.random(mask.shape) * mask).argmax(-1)


def digest(name: str, seed: int, steps: int = 60) -> str:
    venv = batched.make(name, num_envs=8, seed=seed)
    out, rng, h = venv.reset(), np.random.default_rng(0), hashlib.sha256()
    for _ in range(steps):
        h.update(b"".join(np.ascontiguousarray(a).tobytes() for a in out))
        out = venv.step(random_actions(out, rng))
    return h.hexdigest()


@pytest.mark.parametrize("name", BATCHED)
def test_the_same_seed_gives_the_same_batch_in_any_process(name):
    here = digest(name, 5)
    assert digest(name, 5) == here and digest(name, 6) != here
    code = f"from tests.differential.test_batched_api import digest; print(digest({name!r}, 5))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip().splitlines()[-1] == here


@pytest.mark.parametrize("name", BATCHED)
def test_bad_input_is_a_clear_error_that_changes_nothing(name):
    with pytest.raises(ConfigError, match="unknown keyword"):
        batched.make(name, num_envs=4, colour="red")
    with pytest.raises(ConfigError, match="num_players"):
        batched.make(name, num_envs=4, num_players=99)
    with pytest.raises(ConfigError, match="num_envs"):
        batched.make(name, num_envs=0)
    for flag in ("auto_reset", "final_observations"):
        for value in ("no", None, 1, [True]):  # never read by truth: "no" would mean yes
            with pytest.raises(ConfigError, match=rf"{flag} must be a bool, got {re.escape(repr(value))}"):
                batched.make(name, num_envs=4, **{flag: value})
        assert getattr(batched.make(name, num_envs=4, **{flag: np.bool_(False)}), flag) is False
    with pytest.raises(ConfigError, match=r"the batched engine draws nothing \(render_mode='rgb_array'\)"):
        batched.make(name, num_envs=4, render_mode="rgb_array")  # the env's keyword, taken and never drawn
    assert batched.make(name, num_envs=4, render_mode=None).num_envs == 4
    with pytest.raises(specs.UnknownEnvError):
        batched.make("snack_nothing_v0", num_envs=4)
    venv = batched.make(name, num_envs=4, seed=1)
    with pytest.raises(IllegalActionError, match="reset"):
        venv.step(np.zeros(venv._seats.shape, np.int64))
    out = venv.reset()
    before = [json.dumps(venv.export(i).to_dict()["state"], sort_keys=True) for i in range(4)]
    actions = random_actions(out, np.random.default_rng(0))
    with pytest.raises(IllegalActionError, match="shape"):
        venv.step(actions[:2])
    with pytest.raises(IllegalActionError, match="integer"):
        venv.step(actions.astype(np.float32))
    bad = actions.copy()
    flat_mask = out[1][2] if bad.ndim == 1 else out[1][2, 0]
    illegal = np.flatnonzero(flat_mask == 0)[0]
    if bad.ndim == 1:
        bad[2] = illegal
    else:
        bad[2, 0] = illegal
    with pytest.raises(IllegalActionError, match=rf"env 2: action {illegal} is illegal for player_\d \(seat \d\); legal actions: "):
        venv.step(bad)
    # envs picks envs by a bool per env: env indices (read as bools they pick other envs), 0/1s, a short or
    # nested array or a string are refused, by step and heuristic_actions alike
    for envs in (np.array([0, 1, 2, 3]), np.array([1, 0, 1, 1]), [True, False], np.ones((4, 1), bool), "yes"):
        for call in (lambda: venv.step(actions, envs=envs), lambda: venv.heuristic_actions(envs=envs)):  # noqa: B023
            with pytest.raises(IllegalActionError, match=r"envs must be a bool array of shape \(4,\) \(True: that env\), "
                                                         r"got dtype \S+ and shape \("):
                call()
    assert [json.dumps(venv.export(i).to_dict()["state"], sort_keys=True) for i in range(4)] == before
    assert venv.steps.tolist() == [0, 0, 0, 0]
    with pytest.raises(ConfigError, match="env index"):
        venv.export(4)


@pytest.mark.parametrize("name", BATCHED)
def test_the_kernel_writes_every_entry_and_a_step_leaves_what_it_returned_before_alone(name):
    """`BatchedEnv` hands out arrays the kernel wrote into without clearing them first: every entry must
    be written, whatever the buffer held."""
    venv = batched.make(name, num_envs=8, seed=2)
    out, rng = venv.reset(), np.random.default_rng(2)
    for _ in range(40):
        kept = [a.copy() for a in out[:2]]
        previous = out
        out = venv.step(random_actions(out, rng))
        assert all(np.array_equal(a, b) for a, b in zip(previous[:2], kept)), "a step changed an array it had returned"
    seats = venv._seats.copy()
    for fill in (np.nan, 7.0):
        obs = np.full(venv._obs.shape, fill, np.float32)
        venv.kernel.encode(seats, obs)
        assert np.array_equal(obs, out[0])
    for fill in (1, 9):
        mask = np.full(venv._mask.shape, fill, np.int8)
        venv.kernel.masks(seats, mask)
        assert np.array_equal(mask, out[1])


@pytest.mark.parametrize("name", BATCHED)
def test_a_finished_game_starts_again_and_reports_its_end_once(name):
    venv = batched.make(name, num_envs=16, seed=3, reward="win")
    out, rng = venv.reset(), np.random.default_rng(3)
    ended = 0
    for _ in range(3000):
        out = venv.step(random_actions(out, rng))
        rewards, terminated, truncated = out[-3:]
        for i in np.flatnonzero(terminated | truncated):
            ended += 1
            assert venv.steps[i] == 0 and not venv.export(i).game_over  # a new game already
        assert not rewards[~terminated].any(), "rewards only at the end"
        if ended > 20:
            break
    assert ended > 20


@pytest.mark.parametrize("name", BATCHED)
def test_a_loaded_reference_game_continues_in_the_batch(name):
    spec = specs.get(name)
    venv = batched.make(name, num_envs=2, seed=4, auto_reset=False)
    venv.reset()
    game = spec.rules_class(venv.num_players, np.random.default_rng(9), **{k: v for k, v in venv.config.items()
                                                                        if k in spec.rules_class.options})
    venv.load(1, game)
    exported = venv.export(1)
    assert exported == game
    broken = game.copy()
    if hasattr(broken, "pool"):
        broken.pool = -3
        with pytest.raises(ConfigError, match="invariants"):
            venv.load(0, broken)


@pytest.mark.parametrize("name", BATCHED)
def test_a_loaded_game_is_what_the_next_step_and_the_bots_read(name):
    """After `load`, the batch's cached masks and observations were env i's old ones until `observe()`: a
    step was checked against the old position's legal actions (one illegal now was played into the kernel),
    and `random_actions` and `heuristic_actions` chose from the old position. Loading before `reset()`,
    which deals every env anew, is refused."""
    make = dict(num_envs=2, auto_reset=False, shuffle_seats=False)
    source = batched.make(name, seed=5, **make)
    out = source.reset()
    for _ in range(2):
        out = source.step(source.random_actions())
    venv = batched.make(name, seed=0, **make)
    with pytest.raises(IllegalActionError, match=r"call reset\(\) before load\(\)"):
        venv.load(0, source.export(0))
    before = venv.reset()
    for _ in range(12):  # further on, where more is legal than early in the game loaded
        before = venv.step(venv.random_actions())
    venv.load(0, source.export(0))  # no observe() before the step and the bots
    A = venv.num_actions
    legal, was_legal = out[1][0].reshape(-1, A) > 0, before[1][0].reshape(-1, A) > 0  # by agent to act
    for actions in (venv.random_actions(), venv.heuristic_actions()):
        assert legal[np.arange(len(legal)), actions[0].reshape(-1)].all()
    agent, action = np.argwhere(was_legal & ~legal)[0]
    actions = venv.random_actions()
    actions.reshape(2, -1)[0, agent] = action
    with pytest.raises(IllegalActionError, match=rf"env 0: action {action} is illegal"):
        venv.step(actions)
    assert venv.export(0) == source.export(0)
    for mine, theirs in zip(venv.observe(), out):
        assert np.array_equal(mine[0], theirs[0])


def batch_with_an_ended_game() -> tuple[BatchedEnv, int]:
    """A Snack Rabbits batch (auto_reset) whose last step ended env i's game with a roll: (batch, i)."""
    venv = batched.make("snack_rabbits_v0", num_envs=4, seed=0)
    venv.reset()
    for _ in range(3000):
        terminated = venv.step(venv.random_actions())[-2]
        ended = [int(i) for i in np.flatnonzero(terminated) if venv.outcomes(int(i))]
        if ended:
            break
    assert "roll" in venv.outcomes(ended[0])
    return venv, ended[0]


def test_after_a_load_the_outcomes_are_the_loaded_games_not_those_of_the_game_that_ended_there():
    """With auto_reset, `outcomes(i)` of a step that ended env i's game are that game's last chance (Snack
    Rabbits' roll); once a game is loaded there, they are the loaded game's (none yet), not the old roll."""
    venv, i = batch_with_an_ended_game()
    source = batched.make("snack_rabbits_v0", num_envs=1, seed=9)
    with pytest.raises(IllegalActionError, match=r"call reset\(\) before export\(\)"):
        source.export(0)  # nothing dealt yet: the kernel's arrays are zeros, no game
    source.reset()
    venv.load(i, source.export(0))
    assert venv.outcomes(i) == {}


def test_after_a_reset_the_outcomes_are_the_new_deals_not_those_of_the_game_that_ended_before():
    """reset() deals every env a new game: `outcomes(i)` is then the new game's (none yet), as the kernel's
    is, not the last roll of the game that ended there (it was kept past reset())."""
    venv, i = batch_with_an_ended_game()
    venv.reset()
    assert venv.outcomes(i) == venv.kernel.outcomes(i) == {}


@pytest.mark.parametrize("name, options", [pytest.param(name, {}, id=name) for name in BATCHED] + [
    pytest.param("speed_snacks_v1", {"speed_0": 1.0, "speed_1": 0.5}, id="speed_snacks_v1-unequal_speeds")])
def test_the_sb3_vec_env_gives_the_learner_its_reference_reward(name, options, monkeypatch):
    """Every game the VecEnv plays is replayed step by step in the reference engine (including the
    opponents' moves inside its step); the learner's reward must be the reference's final reward, and an
    episode's reported length its number of learner steps. Where the agents differ (unequal speeds) the
    learner plays each of them, as SingleAgentEnv's does, and its observations are that agent's."""
    pytest.importorskip("sb3_contrib")
    from snack_envs.core.batched_sb3 import BatchedSelfPlayVecEnv

    modes = specs.get(name).env_class.reward_modes
    vec = BatchedSelfPlayVecEnv(name, 8, 2, 0, "margin" if "margin" in modes else "round",
                                {"random": 1.0, "heuristic": 1.0, "self": 0.0}, **options)
    batch = vec.batch
    real_step = batch.step
    expected: dict[int, float] = {}
    last_seen: dict[int, np.ndarray] = {}  # the learner's view of each game that ended, by env
    encoder = specs.get(name).encoder_class(batch.num_players, batch.config)

    def recording_step(actions, envs=None):
        envs = np.ones(batch.num_envs, bool) if envs is None else envs
        games = {i: (batch.export(i), batch.agent_seats(i)) for i in np.flatnonzero(envs & batch.live)}
        out = real_step(actions, envs)
        for i, (game, seats) in games.items():
            if batch.simultaneous:
                joint = {seats[a]: int(actions[i, a]) for a in range(batch.num_players)}
            else:
                joint = {game.current_player: int(actions[i])}
            game.apply_joint(joint, **batch.outcomes(i))
            if batch.reward_mode == "round":
                result = game.round_result()
                expected[i] = expected.get(i, 0.0) + (result[seats[vec.learner[i]]] if result else 0.0)
            elif game.game_over:
                expected[i] = final_rewards(game, batch.reward_mode)[seats[vec.learner[i]]]
            if game.game_over:
                last_seen[i] = encoder.encode(game, seats[vec.learner[i]])
        return out

    monkeypatch.setattr(batch, "step", recording_step)
    rng = np.random.default_rng(0)
    obs = vec.reset()
    checked = 0
    steps, returns = np.zeros(8, int), np.zeros(8)  # the learner's, in each env's episode so far
    learners = set()
    if options:
        from snack_envs.speed_snacks.observation import SpeedSnacksEncoder

        speeds = SpeedSnacksEncoder(2, batch.config).layout.slices["speeds"]
    for _ in range(2000):
        assert obs.shape == (8, vec.observation_space.shape[0])
        if options:  # the learner sees its own agent's speed first
            mine = [options[f"speed_{agent}"] for agent in vec.learner]
            assert obs[:, speeds][:, 0].tolist() == mine
            learners.update(vec.learner.tolist())
        masks = vec.env_method("action_masks")
        expected.clear()
        last_seen.clear()
        obs, rewards, dones, infos = vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        steps += 1
        returns += rewards
        for i in range(8):
            assert rewards[i] == pytest.approx(expected.get(i, 0.0)), f"env {i}"
            if dones[i]:  # the episode's length and return are the learner's, as SB3's Monitor counts them
                assert infos[i]["episode"] == {"r": pytest.approx(returns[i]), "l": steps[i]}, f"env {i}"
                assert np.array_equal(infos[i]["terminal_observation"], last_seen[i]), f"env {i}"
                steps[i], returns[i] = 0, 0.0
                checked += 1
        if checked >= 30:
            break
    assert checked >= 30
    assert learners == ({0, 1} if options else set())


@pytest.mark.parametrize("name", BATCHED)
def test_the_vec_envs_heuristic_opponents_choose_as_the_python_bot(name, monkeypatch):
    """Every opponent move inside the VecEnv's step, replayed by one Python bot per game (Speed Snacks'
    remembers across ticks): the same action on every decision."""
    pytest.importorskip("sb3_contrib")
    from snack_envs.core.batched_sb3 import BatchedSelfPlayVecEnv

    spec = specs.get(name)
    vec = BatchedSelfPlayVecEnv(name, 8, 2, 0, "win", {"random": 0.0, "heuristic": 1.0, "self": 0.0})
    batch, real_step = vec.batch, vec.batch.step
    bots: dict[int, object] = {}
    compared = 0

    def recording_step(actions, envs=None):
        nonlocal compared
        obs, mask = vec._out[0], vec._out[1]  # what the movers saw
        stepped = np.ones(batch.num_envs, bool) if envs is None else envs
        for i in np.flatnonzero(stepped & batch.live):
            where = (i, 1) if batch.simultaneous else (i,)
            if batch.simultaneous or vec._out[2][i] == 1:
                bot = bots.setdefault(i, spec.heuristic(2))
                assert actions[where] == bot.act(obs[where], mask[where]), f"env {i}, decision {compared}"
                compared += 1
        out = real_step(actions, envs)
        for i in np.flatnonzero(out[-2] | out[-1]):
            bots.pop(i, None)  # a new game, a fresh bot
        return out

    monkeypatch.setattr(batch, "step", recording_step)
    rng = np.random.default_rng(1)
    vec.reset()
    for _ in range(150):
        vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in vec.env_method("action_masks")]))
    assert compared > 300


@pytest.mark.parametrize("name", BATCHED[:1])
def test_maskable_ppo_trains_on_the_batched_vec_env(name, tmp_path):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from snack_envs.core.batched_sb3 import BatchedSelfPlayVecEnv

    vec = BatchedSelfPlayVecEnv(name, 16, 2, 0, "win", {"random": 0.5, "heuristic": 0.5, "self": 0.0})
    model = MaskablePPO("MlpPolicy", vec, n_steps=32, batch_size=128, n_epochs=1, seed=0, device="cpu")
    model.learn(1024)
    model.save(tmp_path / "m.zip")
    assert model.num_timesteps >= 1024


def test_sample_legal_draws_only_legal_actions_each_alike():
    from snack_envs.core.batched import sample_legal, seed_streams

    mask = np.zeros((3, 6), np.int8)
    mask[0, [1, 4, 5]] = 1
    mask[2, 3] = 1
    stream, out = seed_streams(0, 1), np.empty(3, np.int64)
    counts = np.zeros((3, 6), np.int64)
    for _ in range(3000):
        sample_legal(mask, stream, out)
        assert out[1] == -1 and out[2] == 3  # no legal action; only one
        counts[0, out[0]] += 1
    assert counts[0, [0, 2, 3]].sum() == 0 and all(900 < c < 1100 for c in counts[0, [1, 4, 5]])


@pytest.mark.parametrize("name", BATCHED)
def test_heuristic_actions_are_the_python_bots_for_every_env(name):
    """Bots playing each other through `venv.heuristic_actions()`, one Python bot per env and agent (new
    each game) answering the same observations."""
    spec = specs.get(name)
    venv = batched.make(name, num_envs=6, num_players=2, seed=7)
    obs, mask, *_ = venv.reset()
    bots: dict[tuple[int, int], object] = {}
    for step in range(120):
        actions = venv.heuristic_actions()
        for i in range(6):
            agents = range(2) if venv.simultaneous else [None]
            for agent in agents:
                where = (i,) if agent is None else (i, agent)
                bot = bots.setdefault((i, agent or 0), spec.heuristic(2))
                assert actions[where] == bot.act(obs[where], mask[where]), f"step {step}, env {i}, agent {agent}"
        obs, mask, *_, terminated, truncated = venv.step(actions)
        for i in np.flatnonzero(terminated | truncated):
            bots.pop((i, 0), None), bots.pop((i, 1), None)


@pytest.mark.parametrize("name", BATCHED)
def test_random_actions_are_legal_and_seeded(name):
    def run(seed: int):
        venv = batched.make(name, num_envs=8, seed=seed)
        out, picks = venv.reset(), []
        for _ in range(30):
            actions = venv.random_actions()
            legal = np.take_along_axis(out[1], actions[..., None], axis=-1)[..., 0]
            assert legal.all(), "random_actions drew an illegal action"
            picks.append(actions)
            out = venv.step(actions)
        return np.array(picks)

    assert np.array_equal(run(3), run(3)) and not np.array_equal(run(3), run(4))


def test_the_vec_env_draws_each_opponent_seat_on_its_own_snapshots_included():
    pytest.importorskip("sb3_contrib")
    from snack_envs.core.batched_sb3 import HEURISTIC, RANDOM, BatchedSelfPlayVecEnv

    vec = BatchedSelfPlayVecEnv("snack_wars_v0", 64, 3, 0, "win", {"random": 0.5, "heuristic": 0.5, "self": 1.0})
    vec.reset()  # no snapshot yet: "self" goes to the heuristic
    assert {tuple(r) for r in vec.opponent[:, 1:].tolist()} == {(a, b) for a in (RANDOM, HEURISTIC) for b in (RANDOM, HEURISTIC)}
    vec.mix = vec.mix.with_snapshots(["first", "second"])
    vec.snapshot_ids, vec.playing = [0, 1], {0: "first", 1: "second"}
    vec._draw_opponents(np.ones(64, bool))
    assert set(vec.opponent[:, 1:].ravel().tolist()) == {RANDOM, HEURISTIC, 0, 1}


def test_a_game_keeps_its_snapshot_opponent_when_a_newer_snapshot_pushes_it_out_of_the_mix(tmp_path):
    """With max_snapshots reached, a new snapshot drops the oldest from the mix: games already playing a
    snapshot go on against that same one (they once switched to its neighbour mid-game), and a dropped
    snapshot is let go once no game plays it."""
    pytest.importorskip("sb3_contrib")
    import shutil
    from pathlib import Path

    from snack_envs.core.batched_sb3 import BatchedSelfPlayVecEnv

    shipped = Path(__file__).resolve().parents[2] / "checkpoints" / "snack_wars_v0"
    for i in range(3):
        for ext in ("zip", "json"):
            shutil.copy(f"{shipped}.{ext}", tmp_path / f"s{i}.{ext}")
    vec = BatchedSelfPlayVecEnv("snack_wars_v0", 32, 2, 0, "win", {"self": 1.0}, max_snapshots=2)
    vec.add_snapshot(str(tmp_path / "s0.zip"))
    vec.add_snapshot(str(tmp_path / "s1.zip"))
    vec.reset()

    def opponents() -> list:
        return [vec.playing[code] for code in vec.opponent[:, 1]]

    before = opponents()
    assert {id(p) for p in before} == {id(p) for p in vec.mix.snapshots}  # both snapshots in play
    vec.add_snapshot(str(tmp_path / "s2.zip"))
    assert all(a is b for a, b in zip(opponents(), before, strict=True))
    assert [p.name for p in vec.mix.snapshots] == ["s1", "s2"] and len(vec.playing) == 3
    ended = np.zeros(32, bool)
    while not ended.all():
        _, _, dones, _ = vec.step(vec.action_masks().argmax(-1))
        ended |= dones
    assert sorted(p.name for p in vec.playing.values()) == ["s1", "s2"]


def test_snapshot_opponents_draw_their_moves_from_the_vec_envs_seed():
    """A frozen snapshot samples its moves from a generator seeded by the VecEnv's own stream, so training
    against snapshots replays alike from one seed (it once drew from OS entropy: runs with self-play differed)."""
    pytest.importorskip("sb3_contrib")
    from pathlib import Path

    from snack_envs.core.batched_sb3 import BatchedSelfPlayVecEnv

    checkpoint = Path(__file__).resolve().parents[2] / "checkpoints" / "snack_wars_v0.zip"

    def play(seed: int) -> list:
        vec = BatchedSelfPlayVecEnv("snack_wars_v0", 32, 3, seed, "win", {"random": 0.0, "heuristic": 0.0, "self": 1.0})
        vec.add_snapshot(str(checkpoint))
        trace = [vec.reset()]
        for _ in range(40):
            masks = vec.action_masks()
            vec.step_async(masks.argmax(-1))
            obs, rewards, _, _ = vec.step_wait()
            trace += [obs, rewards]
        return trace

    first, again, other = play(5), play(5), play(6)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other))


def test_the_native_float_sum_is_pythons_sum_bit_for_bit():
    """The native bots break ties as the Python ones only if they add floats as this Python's sum()."""
    import numba

    from snack_envs.core.batched import python_sum_add, python_sum_result

    @numba.njit
    def native_sum(values):
        total, comp = 0.0, 0.0
        for x in values:
            total, comp = python_sum_add(total, comp, x)
        return python_sum_result(total, comp)

    rng = np.random.default_rng(0)
    for size in (1, 2, 3, 7, 50):
        for _ in range(200):
            values = rng.normal(size=size) * 10.0 ** rng.integers(-8, 9, size=size)
            assert native_sum(values) == sum(values.tolist())


@pytest.mark.parametrize("name", [n for n in BATCHED if not specs.get(n).simultaneous])
def test_heuristic_actions_for_some_envs_are_those_of_all_envs_there_and_minus_one_elsewhere(name):
    venv = batched.make(name, num_envs=6, seed=8)
    venv.reset()
    for _ in range(20):
        some = np.arange(6) % 2 == 0
        everywhere, there = venv.heuristic_actions(), venv.heuristic_actions(some)
        assert np.array_equal(there[some], everywhere[some]) and (there[~some] == -1).all()
        venv.step(everywhere)


@pytest.mark.parametrize("name", BATCHED)
def test_a_finished_games_scores_winners_and_observations_are_kept_by_agent_before_the_new_deal(name):
    kept = batched.make(name, num_envs=8, seed=4, final_observations=True)  # seats shuffled, a new game at once
    stays = batched.make(name, num_envs=8, seed=4, auto_reset=False)  # the same games, left as they ended
    encoder = specs.get(name).encoder_class(kept.num_players, kept.config)
    out, rng = kept.reset(), np.random.default_rng(4)
    stays.reset()
    checked = 0
    for _ in range(5000):
        live = stays.live.copy()
        actions = random_actions(out, rng)
        out = kept.step(actions)
        stays.step(actions)
        for i in np.flatnonzero(out[-2] & live):  # each env's first game, ended by its rules
            game, seats = stays.export(i), stays.agent_seats(i)
            assert kept.final_scores[i].tolist() == [game.scores()[s] for s in seats]
            assert kept.final_winners[i].tolist() == [s in game.winners() for s in seats]
            for agent, seat in enumerate(seats):
                assert np.array_equal(kept.final_obs[i, agent], encoder.encode(game, seat)), f"env {i}, {agent}"
            checked += 1
        if not stays.live.any():
            break
    assert checked >= 4


@pytest.mark.parametrize("name", BATCHED)
def test_reset_with_a_seed_deals_what_a_batch_built_with_that_seed_deals(name):
    def play(venv, out, steps=40):
        rng, seen = np.random.default_rng(0), []
        for _ in range(steps):
            seen.append([a.copy() for a in out])
            out = venv.step(random_actions(out, rng))
        return seen

    reseeded = batched.make(name, num_envs=4, seed=1)
    play(reseeded, reseeded.reset())
    fresh = batched.make(name, num_envs=4, seed=2)
    for a, b in zip(play(reseeded, reseeded.reset(seed=2)), play(fresh, fresh.reset()), strict=True):
        assert all(np.array_equal(x, y) for x, y in zip(a, b))
    with pytest.raises(ConfigError, match="seed"):
        reseeded.reset(seed=-1)


def test_the_vec_envs_seed_takes_effect_at_the_next_reset_opponents_included():
    """SB3's contract: `seed(s)` then `reset()` plays as a VecEnv built with seed s (the games, the seats and
    the opponents drawn); a ConcatVecEnv seeds each part as make_vec_env builds it."""
    pytest.importorskip("sb3_contrib")
    from snack_envs.core.batched_sb3 import PART_SEED_STRIDE, BatchedSelfPlayVecEnv, ConcatVecEnv

    def vec(seed, n=2):
        return BatchedSelfPlayVecEnv("snack_wars_v0", 4, n, seed, "win", {"random": 1.0, "heuristic": 1.0, "self": 0.0})

    def play(env, steps=60):
        obs, rng, seen = env.reset(), np.random.default_rng(0), []
        for _ in range(steps):
            masks = env.env_method("action_masks")
            seen.append((obs.copy(), env.opponent.copy() if hasattr(env, "opponent") else None))
            obs, *_ = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        return seen

    def same(a, b):
        return all(np.array_equal(x[0], y[0]) and np.array_equal(x[1], y[1]) for x, y in zip(a, b, strict=True))

    reference = play(vec(7))
    used = vec(3)
    play(used)
    assert used.seed(7) == [7] * 4
    assert same(play(used), reference)
    assert not same(play(used), reference)  # a reset without seed(): the streams go on
    fresh = vec(7)
    fresh.seed(7)  # the seed it was built with, before its first reset: nothing changes
    assert same(play(fresh), reference)
    assert used.seed(None) == [None] * 4
    with pytest.raises(ConfigError, match="seed"):
        used.seed(-1)

    concat = ConcatVecEnv([vec(0), vec(0, n=3)])
    concat.seed(5)
    assert np.array_equal(concat.reset(), np.concatenate([vec(5).reset(), vec(5 + PART_SEED_STRIDE, n=3).reset()]))


@pytest.mark.parametrize("max_steps, cut", [(10, True), (None, False)])
def test_the_vec_env_marks_a_game_cut_at_max_steps_as_a_time_limit_as_sb3s_dummy_vec_env_does(max_steps, cut):
    """SB3 bootstraps from `terminal_observation` where `TimeLimit.truncated` holds; the batched VecEnv sets it
    as a DummyVecEnv over the Gymnasium env does, so both backends learn the same values from one config."""
    pytest.importorskip("sb3_contrib")
    from stable_baselines3.common.env_util import make_vec_env

    from snack_envs.core.batched_sb3 import BatchedSelfPlayVecEnv
    from snack_envs.registration import register_gymnasium

    register_gymnasium()
    options = {} if max_steps is None else {"max_steps": max_steps}
    batched_vec = BatchedSelfPlayVecEnv("snack_rabbits_v0", 4, 2, 0, "win", {"random": 1.0}, **options)
    dummy_vec = make_vec_env("SnackRabbits-v0", n_envs=4, seed=0, env_kwargs=options)
    for vec in (batched_vec, dummy_vec):
        vec.reset()
        rng, ended = np.random.default_rng(0), 0
        while ended < 8:
            masks = vec.env_method("action_masks")
            _, _, dones, infos = vec.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
            for i in np.flatnonzero(dones):
                assert infos[i]["TimeLimit.truncated"] is cut, type(vec).__name__
                assert vec.observation_space.contains(infos[i]["terminal_observation"])
                ended += 1


def test_get_attr_and_set_attr_answer_per_env_as_sb3s_vec_envs_do():
    """SB3's contract: one value per env of `indices`. Arrays over the batch give env i's entry; a value the
    whole batch shares is the same for every env and can be set only for all of them; a ConcatVecEnv asks
    the part each env belongs to (its player count is that part's)."""
    pytest.importorskip("sb3_contrib")
    from snack_envs.core.batched_sb3 import BatchedSelfPlayVecEnv, ConcatVecEnv

    opponents = {"random": 1.0}
    two, three = (BatchedSelfPlayVecEnv("snack_wars_v0", 4, n, n, "win", opponents) for n in (2, 3))
    vec = ConcatVecEnv([two, three])
    vec.reset()
    assert vec.get_attr("num_players", indices=[0, 5]) == [2, 3]
    assert vec.get_attr("num_players") == [2] * 4 + [3] * 4
    two.returns[:] = [0.5, 1.5, 2.5, 3.5]
    assert vec.get_attr("returns", indices=[1, 3]) == [1.5, 3.5]
    vec.set_attr("returns", -1.0, indices=[2, 6])
    assert two.returns.tolist() == [0.5, 1.5, -1.0, 3.5] and three.returns.tolist() == [0.0, 0.0, -1.0, 0.0]
    with pytest.raises(AttributeError, match="shared by every env"):
        two.set_attr("max_snapshots", 1, indices=[0])
    vec.set_attr("max_snapshots", 1, indices=[4, 5, 6, 7])  # all of the second part's envs
    assert (two.max_snapshots, three.max_snapshots) == (5, 1)
