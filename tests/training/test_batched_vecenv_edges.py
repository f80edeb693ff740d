"""Edges of the batched SB3 VecEnv (snack_envs/core/batched_sb3.py) that the differential tests leave open:
the per-env calls (`env_method`, `get_attr` of a shared value, `env_is_wrapped`), a `reset()` in the middle
of games, the snapshots let go at once, the guard against opponents that never hand the learner a turn, and
a ConcatVecEnv stepping as its parts do side by side. Found by a mutation probe of the module."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from snack_envs.core.batched_sb3 import BatchedSelfPlayVecEnv, ConcatVecEnv  # noqa: E402

CHECKPOINT = Path(__file__).resolve().parents[2] / "checkpoints" / "snack_wars_v0"
OPPONENTS = {"random": 1.0, "heuristic": 1.0, "self": 0.0}


def make(num_players=2, seed=0, num_envs=4, name="snack_wars_v0", **kwargs):
    return BatchedSelfPlayVecEnv(name, num_envs, num_players, seed, "win", kwargs.pop("opponents", OPPONENTS), **kwargs)


def snapshot_copy(folder: Path, name: str = "s") -> str:
    """The shipped Snack Wars checkpoint (zip and metadata) copied into `folder` as `name`; its zip's path."""
    for ext in ("zip", "json"):
        shutil.copy(f"{CHECKPOINT}.{ext}", folder / f"{name}.{ext}")
    return str(folder / f"{name}.zip")


def legal(masks, rng):
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


def test_env_method_answers_action_masks_per_index_and_refuses_unknown_methods():
    vec = make()
    vec.reset()
    masks = vec.action_masks()
    assert masks.dtype == bool and masks.shape == (4, vec.action_space.n)
    picked = vec.env_method("action_masks", indices=[3, 1])
    assert len(picked) == 2
    assert np.array_equal(picked[0], masks[3]) and np.array_equal(picked[1], masks[1])
    assert all(np.array_equal(a, b) for a, b in zip(vec.env_method("action_masks"), masks, strict=True))
    with pytest.raises(AttributeError, match="no per-env method 'render_all'"):
        vec.env_method("render_all")


def test_get_attr_of_a_shared_value_and_env_is_wrapped_give_one_entry_per_env():
    vec = make(max_snapshots=3)
    assert vec.get_attr("max_snapshots") == [3, 3, 3, 3]
    assert vec.get_attr("env_name", indices=[0, 2]) == ["snack_wars_v0", "snack_wars_v0"]
    assert vec.env_is_wrapped(object) == [False] * 4
    assert vec.env_is_wrapped(object, indices=[1]) == [False]


def test_a_reset_in_the_middle_of_games_starts_every_episode_count_again():
    """Steps and rewards of games that a `reset()` abandons do not count towards the next episodes."""
    vec = make(seed=3)
    rng = np.random.default_rng(0)
    vec.reset()
    for _ in range(5):
        vec.step(legal(vec.action_masks(), rng))
    vec.returns[:] = 7.0  # as if the abandoned games had paid out
    vec.reset()
    assert vec.returns.tolist() == [0.0] * 4 and vec.lengths.tolist() == [0] * 4
    steps, returns, checked = np.zeros(4, int), np.zeros(4), 0
    for _ in range(500):
        _, rewards, dones, infos = vec.step(legal(vec.action_masks(), rng))
        steps += 1
        returns += rewards
        for i in np.flatnonzero(dones):
            assert infos[i]["episode"] == {"r": pytest.approx(returns[i]), "l": steps[i]}, f"env {i}"
            steps[i], returns[i] = 0, 0.0
            checked += 1
        if checked >= 8:
            break
    assert checked >= 8


def test_every_finished_game_reports_its_end_and_draws_new_opponents():
    """Each done carries episode / terminal_observation / TimeLimit.truncated, the episode counts start again,
    and the next game's opponents are drawn anew (every kind turns up in the envs that finished)."""
    vec = make(num_players=3, num_envs=8, seed=1)
    rng = np.random.default_rng(1)
    vec.reset()
    before = vec.opponent.copy()
    redrawn = 0
    for _ in range(600):
        _, _, dones, infos = vec.step(legal(vec.action_masks(), rng))
        for i in np.flatnonzero(dones):
            assert {"episode", "terminal_observation", "TimeLimit.truncated"} <= set(infos[i])
            assert infos[i]["TimeLimit.truncated"] is False  # no max_steps: every game ends by its rules
            assert vec.observation_space.contains(infos[i]["terminal_observation"])
            assert vec.returns[i] == 0.0 and vec.lengths[i] == 0
            redrawn += int(not np.array_equal(vec.opponent[i], before[i]))
            before[i] = vec.opponent[i]
        for i in np.flatnonzero(~dones):
            assert not infos[i]
    assert redrawn >= 5


def test_a_snapshot_pushed_out_of_the_mix_that_no_game_plays_is_let_go_at_once(tmp_path):
    for i in range(2):
        snapshot_copy(tmp_path, f"s{i}")
    vec = make(opponents={"self": 1.0}, max_snapshots=1)  # before any reset: no game plays a snapshot
    assert vec.env_method("add_snapshot", str(tmp_path / "s0.zip")) == [None] * 4
    assert [p.name for p in vec.mix.snapshots] == ["s0"] and list(vec.playing) == [0]
    vec.add_snapshot(str(tmp_path / "s1.zip"))
    assert [p.name for p in vec.mix.snapshots] == ["s1"] and list(vec.playing) == [1]
    assert vec.snapshot_ids == [1] and vec.snapshots_added == 2


def test_opponents_that_never_hand_the_learner_a_turn_are_an_error(monkeypatch):
    vec = make()
    vec.reset()
    monkeypatch.setattr(vec, "_play", lambda *args: None)  # the opponents' moves change nothing
    vec.learner = (vec._out[2] + 1) % 2  # and the learner is never the one to move
    with pytest.raises(RuntimeError, match="never got a turn"):
        vec._advance(np.zeros(4), np.zeros(4, bool), [{} for _ in range(4)])


def test_a_concat_vec_env_steps_as_its_parts_side_by_side(tmp_path):
    concat = ConcatVecEnv([make(2, seed=0, num_envs=3), make(3, seed=1, num_envs=2)])
    alone = [make(2, seed=0, num_envs=3), make(3, seed=1, num_envs=2)]
    assert concat.num_envs == 5 and concat.observation_space == alone[0].observation_space
    obs = concat.reset()
    assert np.array_equal(obs, np.concatenate([part.reset() for part in alone]))
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(200):
        masks = concat.action_masks()
        assert np.array_equal(masks, np.concatenate([part.action_masks() for part in alone]))
        assert len(concat.env_method("action_masks")) == 5
        actions = legal(masks, rng)
        got = concat.step(actions)
        want = [alone[0].step(actions[:3]), alone[1].step(actions[3:])]
        assert np.array_equal(got[0], np.concatenate([w[0] for w in want]))
        assert np.array_equal(got[1], np.concatenate([w[1] for w in want]))
        assert np.array_equal(got[2], np.concatenate([w[2] for w in want]))
        infos = want[0][3] + want[1][3]
        assert len(got[3]) == 5
        for a, b in zip(got[3], infos, strict=True):
            assert a.keys() == b.keys()
            if "terminal_observation" in a:
                assert np.array_equal(a["terminal_observation"], b["terminal_observation"])
                assert a["episode"] == b["episode"] and a["TimeLimit.truncated"] == b["TimeLimit.truncated"]
                ended += 1
    assert ended >= 5
    snapshot_copy(tmp_path)
    assert concat.env_method("add_snapshot", str(tmp_path / "s.zip")) == [None] * 5
    assert [len(part.mix.snapshots) for part in concat.parts] == [1, 1]
    concat.close()


def play(vec, steps=40):
    """The learner's observations and the opponents drawn over `steps` seeded random learner moves from a reset."""
    obs, rng, seen = vec.reset(), np.random.default_rng(0), []
    for _ in range(steps):
        seen.append((obs.copy(), vec.opponent.copy()))
        obs, *_ = vec.step(legal(vec.action_masks(), rng))
    return seen


def same(a, b):
    return all(np.array_equal(x[0], y[0]) and np.array_equal(x[1], y[1]) for x, y in zip(a, b, strict=True))


def test_seeding_again_with_the_seed_the_vec_env_was_built_with_replays_it_once_it_has_dealt():
    """seed(s) then reset() plays as a VecEnv built with s, also where s is the seed it was built with: the
    opponents' stream starts again too, not only the games'."""
    vec = make(seed=7)
    first = play(vec)
    assert not same(play(vec), first)  # without seed(): the streams go on
    vec.seed(7)
    assert same(play(vec), first)


def test_seeding_a_fresh_vec_env_with_its_own_seed_leaves_the_draws_made_before_its_first_reset(tmp_path):
    """Before the first reset, seed(the seed it was built with) changes nothing: a snapshot added before then
    has drawn from the VecEnv's stream, and the opponents' draws go on from there, as in a VecEnv never seeded."""
    snapshot_copy(tmp_path)
    opponents = {"random": 1.0, "heuristic": 1.0, "self": 1.0}
    plain, seeded = make(seed=7, opponents=opponents), make(seed=7, opponents=opponents)
    for vec in (plain, seeded):
        vec.add_snapshot(str(tmp_path / "s.zip"))
    assert seeded.seed(7) == [7] * 4
    assert same(play(seeded, 25), play(plain, 25))


def test_seeding_again_replays_the_snapshots_sampled_moves_too(tmp_path):
    """A snapshot opponent samples its moves from a stream of its own, drawn from the VecEnv's: seed(s) then
    reset() starts that stream again too, so the same seed plays the same games against the same snapshot."""
    snapshot_copy(tmp_path)
    vec = make(seed=5, opponents={"random": 0.0, "heuristic": 0.0, "self": 1.0})
    vec.add_snapshot(str(tmp_path / "s.zip"))
    vec.seed(7)
    first = play(vec, 60)
    assert ((vec.opponent >= 0).sum(axis=1) == 1).all()  # each game's one opponent is the snapshot
    play(vec, 60)  # the snapshot's stream goes on
    vec.seed(7)
    assert same(play(vec, 60), first)


def test_seeding_a_fresh_vec_env_with_its_own_seed_keeps_the_draws_of_snapshots_already_retired(tmp_path):
    """Before the first reset, seed(the seed it was built with) changes nothing even when more snapshots were
    added than the mix keeps: each drew from the VecEnv's stream, the retired one too, and the one left in the
    mix keeps the stream it was given (not the first draw of a fresh one)."""
    for i in range(2):
        snapshot_copy(tmp_path, f"s{i}")
    opponents = {"random": 1.0, "heuristic": 1.0, "self": 1.0}
    plain, seeded = (make(seed=7, opponents=opponents, max_snapshots=1) for _ in range(2))
    for vec in (plain, seeded):
        for i in range(2):
            vec.add_snapshot(str(tmp_path / f"s{i}.zip"))
        assert vec.snapshot_ids == [1] and list(vec.playing) == [1]
    seeded.seed(7)
    assert same(play(seeded, 25), play(plain, 25))


def test_seeding_again_plays_as_a_vec_env_built_with_that_seed_its_snapshot_included(tmp_path):
    """seed(s) then reset() on a VecEnv that has played plays the games a VecEnv built with s plays after the same
    snapshot was added: the snapshot's sampled moves restart from the same draw of s's stream as they would there."""
    snapshot_copy(tmp_path)
    opponents = {"random": 0.0, "heuristic": 0.0, "self": 1.0}
    used, fresh = make(seed=5, opponents=opponents), make(seed=7, opponents=opponents)
    for vec in (used, fresh):
        vec.add_snapshot(str(tmp_path / "s.zip"))
    play(used, 30)
    used.seed(7)
    assert same(play(used, 60), play(fresh, 60))


def test_a_snapshot_opponent_samples_its_moves_rather_than_playing_its_best(tmp_path):
    """The frozen snapshots play as self-play's learner does while it trains: moves drawn from the masked softmax,
    so positions asked of a snapshot many times get more than one move (a trained snapshot is sure of most)."""
    snapshot_copy(tmp_path)
    vec = make(seed=3, opponents={"random": 0.0, "heuristic": 0.0, "self": 1.0})
    vec.add_snapshot(str(tmp_path / "s.zip"))
    snapshot, rng, obs, varied = vec.playing[0], np.random.default_rng(0), vec.reset(), 0
    for _ in range(20):
        masks = vec.action_masks()
        moves = snapshot.act_batch(np.repeat(obs, 50, axis=0), np.repeat(masks, 50, axis=0)).reshape(4, 50)
        assert all(masks[i, moves[i]].all() for i in range(4))
        varied += sum(len(set(moves[i].tolist())) > 1 for i in range(4))
        obs, *_ = vec.step(legal(masks, rng))
    assert varied >= 5


def test_a_solo_game_is_the_learner_alone_moving_at_every_step():
    """Snack Time's solo mode (`configs/snack_time_solo.yaml` with `vec_env: batched`): one player, no opponent
    seat, so every step is the learner's and an episode's length is the number of steps its game lasted."""
    vec = make(num_players=1, name="snack_time_v0", opponents={"random": 1.0, "heuristic": 1.0, "self": 0.0})
    obs = vec.reset()
    assert obs.shape == (4, *vec.observation_space.shape) and vec.observation_space.contains(obs[0])
    rng, steps, ended = np.random.default_rng(0), np.zeros(4, int), 0
    for _ in range(300):
        _, _, dones, infos = vec.step(legal(vec.action_masks(), rng))
        steps += 1
        assert np.array_equal(vec.lengths, np.where(dones, 0, steps))
        for i in np.flatnonzero(dones):
            assert infos[i]["episode"]["l"] == steps[i]
            assert vec.observation_space.contains(infos[i]["terminal_observation"])
            steps[i] = 0
            ended += 1
    assert ended >= 4


def test_the_learners_actions_must_be_one_int_per_env_and_change_nothing_otherwise():
    """Floats were truncated (0.7 played 0) and strings parsed; a short array failed in numpy's broadcasting.
    Each is an IllegalActionError naming the actions, and the envs step on afterwards as if never asked."""
    from snack_envs.core.game import IllegalActionError

    vec, twin = make(), make()
    vec.reset(), twin.reset()
    actions = legal(vec.action_masks(), np.random.default_rng(0))
    for bad, message in ((actions + 0.7, "must be an integer array of shape \\(4,\\), got dtype float64"),
                         (actions.astype(str), "must be an integer array of shape \\(4,\\), got dtype <U"),
                         (actions[:2], "must have shape \\(4,\\), got \\(2,\\)")):
        with pytest.raises(IllegalActionError, match="^actions " + message):
            vec.step(bad)
    stepped, twin_stepped = vec.step(actions.astype(np.uint8)), twin.step(actions)
    assert np.array_equal(stepped[0], twin_stepped[0]) and np.array_equal(stepped[1], twin_stepped[1])


def test_the_vecenv_refuses_calls_before_reset_and_a_step_wait_with_no_actions_waiting():
    """Before reset() a step failed in IndexError; step_wait() with no step_async played the learner's seat
    action 0 (or the last step's actions again) and action_masks() failed in IndexError."""
    from snack_envs.core.game import IllegalActionError

    vec = make()
    with pytest.raises(IllegalActionError, match=r"call reset\(\) before step_async\(\): no game is dealt yet"):
        vec.step(np.zeros(4, np.int64))
    with pytest.raises(IllegalActionError, match=r"call reset\(\) before action_masks\(\)"):
        vec.env_method("action_masks")
    vec.reset()
    rng = np.random.default_rng(0)
    vec.step(legal(vec.action_masks(), rng))
    masks = vec.action_masks()
    with pytest.raises(IllegalActionError, match=r"step_wait\(\) without step_async\(actions\): no actions are waiting"):
        vec.step_wait()
    assert (vec.action_masks() == masks).all()  # nothing moved
    vec.step(legal(masks, rng))  # and play goes on


@pytest.mark.parametrize("bad", [0, -1, 1.5, True])
def test_the_vecenv_refuses_a_max_snapshots_that_keeps_none_when_built(bad):
    """It was taken, to fail at the first add_snapshot, after the snapshot had drawn from the env's stream."""
    from snack_envs.core.game import ConfigError

    with pytest.raises(ConfigError, match=f"max_snapshots must be a positive int, got {bad!r}"):
        make(max_snapshots=bad)


def test_a_concat_vecenv_refuses_actions_for_another_number_of_envs_and_no_parts():
    """Five actions for four envs were taken, the fifth dropped unseen."""
    from snack_envs.core.game import ConfigError, IllegalActionError

    vec = ConcatVecEnv([make(2, num_envs=2), make(3, num_envs=2)])
    vec.reset()
    with pytest.raises(IllegalActionError, match=r"actions must have shape \(4,\), got \(5,\)"):
        vec.step(np.zeros(5, np.int64))
    with pytest.raises(ConfigError, match="at least one part"):
        ConcatVecEnv([])
