"""Behaviour cloning and DAgger (training/imitate.py) checked against figures worked out here: the discounted
value targets and the per-game seeding of `collect`, the agreement figure, `clone`'s batches and clipped Adam
steps, the parts `Progress` saves, reuses and refuses, and `kickstart`'s phases (its games shared among
the player counts, each fit's samples, epochs and seed, its stats and progress lines, and taking a stopped
imitation up), the latter with a stand-in for the games so that they run in a second."""

from __future__ import annotations

import copy
import re
import signal
import time

import numpy as np
import pytest

from snack_envs.agents import RandomPolicy
from snack_envs.core.game import ConfigError
from snack_envs.single_agent import SingleAgentEnv
from snack_envs.training.config import load_config

torch = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from snack_envs.training import imitate  # noqa: E402  (after the importorskip: it needs the training extra)

WARS = ["n_envs=1", "algo.n_steps=64", "algo.batch_size=64", "opponents.self=0"]


def small_model(seed: int = 0):
    from sb3_contrib import MaskablePPO

    env = SingleAgentEnv("snack_rabbits_v0", opponents=["random"])
    return MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=64, device="cpu", seed=seed,
                       policy_kwargs={"net_arch": [16]})


def weights(model) -> dict:
    return {k: v.clone() for k, v in model.policy.state_dict().items()}


def same_weights(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def synthetic_samples(model, n: int, rng: np.random.Generator, all_legal: bool = False) -> dict:
    """`n` samples of the model's shapes: random observations, masks with at least one legal action, a legal
    teacher action and a value target."""
    dim, actions = model.observation_space.shape[0], model.action_space.n
    masks = np.ones((n, actions), bool) if all_legal else rng.random((n, actions)) < 0.6
    chosen = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks])
    masks[np.arange(n), chosen] = True
    return {"observations": rng.normal(size=(n, dim)).astype(np.float32), "masks": masks,
            "actions": chosen.astype(np.int64), "returns": rng.uniform(-1, 1, n).astype(np.float32)}


# --- agreement, and a config that does not imitate -----------------------------------------------
def test_agreement_counts_a_played_action_anywhere_in_the_teachers_set_or_equal_to_its_choice():
    actions = np.array([0, 1, 2, 3])
    played = np.array([0, 2, 2, 0])
    assert imitate.agreement({"actions": actions, "played": played}) == 0.5  # samples 0 and 2
    targets = np.zeros((4, 4), bool)
    targets[np.arange(4), actions] = True
    targets[1, 2] = True  # sample 1's teacher rated 1 and 2 alike: the student's 2 agrees
    assert imitate.agreement({"actions": actions, "played": played, "targets": targets}) == 0.75


def test_kickstart_does_nothing_when_the_config_does_not_imitate(tmp_path, monkeypatch):
    monkeypatch.setattr(imitate, "collect", lambda *args, **kwargs: pytest.fail("played a game"))
    config = load_config("quickstart", ["imitation.games=0"])
    model = small_model()
    before = weights(model)
    assert imitate.kickstart(model, config, lambda n: pytest.fail("made an env"), tmp_path / "imitation") is None
    assert same_weights(before, weights(model)) and not (tmp_path / "imitation").exists()


# --- collect ---------------------------------------------------------------------------------------
def test_collect_seeds_game_g_alike_and_gives_each_decision_its_discounted_final_reward():
    """Game g of `collect(games, seed)` is the game `collect(1, seed + g)` plays, student included; each
    decision's value target is the game's final reward discounted by the decisions left after it."""
    from snack_envs.training.backends.sb3 import SelfPlayEnv

    config = load_config("snack_wars", WARS)
    gamma = config["algo"]["gamma"]
    together = imitate.collect(SelfPlayEnv(config), config, 3, seed=40, student=RandomPolicy(seed=1))
    alone = [imitate.collect(SelfPlayEnv(config), config, 1, seed=40 + g, student=RandomPolicy(seed=2))
             for g in range(3)]
    for key in together:
        assert np.array_equal(together[key], np.concatenate([game[key] for game in alone])), key
    for game in alone:
        steps, final = len(game["actions"]), game["finals"][0]
        assert steps > 3 and game["finals"].shape == (1,)
        np.testing.assert_allclose(game["returns"], final * gamma ** np.arange(steps - 1, -1, -1), rtol=1e-6)
    assert together["returns"].dtype == np.float32 and together["finals"].dtype == np.float64
    assert len({float(g["finals"][0]) for g in alone} | {0.0}) > 1  # not all draws: the targets say something


def test_a_search_teacher_is_reseeded_for_each_game():
    """The search draws its playouts from its own generator, reset with each game's seed: game 1 of two
    is labelled as the same game collected on its own."""
    from snack_envs.training.backends.sb3 import SelfPlayEnv

    config = load_config("snack_wars", [*WARS, "opponents.random=0", "imitation.teacher=search",
                                        "imitation.search={samples: 6, first: 2, keep: 2}"])
    both = imitate.collect(SelfPlayEnv(config), config, 2, seed=7, student=RandomPolicy(seed=0))
    second = imitate.collect(SelfPlayEnv(config), config, 1, seed=8, student=RandomPolicy(seed=0))
    n = len(second["actions"])
    assert n > 3
    for key in ("observations", "actions", "targets", "played"):
        assert np.array_equal(both[key][-n:], second[key]), key


# --- clone -----------------------------------------------------------------------------------------
def test_clone_of_one_batch_takes_clipped_adam_steps_at_the_default_rate():
    """All the samples in one batch (n < 512): the fitted weights after 2 epochs are those of two Adam steps
    (lr 1e-3) on the cross-entropy plus half the value error, each gradient clipped to norm 0.5, done here
    by hand."""
    rng = np.random.default_rng(11)
    model = small_model()
    reference = copy.deepcopy(model.policy)
    data = synthetic_samples(model, 60, rng)
    imitate.clone(model, data, epochs=2)

    obs, masks = torch.as_tensor(data["observations"]), torch.as_tensor(data["masks"])
    actions, returns = torch.as_tensor(data["actions"]), torch.as_tensor(data["returns"])
    optimizer = torch.optim.Adam(reference.parameters(), lr=1e-3)
    for _ in range(2):
        optimizer.zero_grad()
        logits = reference.get_distribution(obs, action_masks=masks).distribution.logits
        log_prob = logits.log_softmax(1)[torch.arange(60), actions]
        value_error = ((reference.predict_values(obs).flatten() - returns) ** 2).mean()
        (-log_prob.mean() + 0.5 * value_error).backward()
        norm = torch.sqrt(sum((p.grad ** 2).sum() for p in reference.parameters()))
        assert 0.5 < norm < 1.5  # the clipping matters here, and by another factor each step
        for p in reference.parameters():
            p.grad *= 0.5 / norm
        optimizer.step()
    expected = reference.state_dict()
    got = model.policy.state_dict()
    for key in expected:
        torch.testing.assert_close(got[key], expected[key], atol=2e-6, rtol=0, msg=key)


def test_clone_shuffles_its_batches_by_its_seed():
    """Several batches: the same seed fits the same weights, another seed other ones (another order)."""
    rng = np.random.default_rng(4)
    data = synthetic_samples(small_model(), 64, rng)
    fitted = []
    for seed in (0, 0, 1):
        model = small_model()
        imitate.clone(model, data, epochs=1, batch_size=16, seed=seed)
        fitted.append(weights(model))
    assert same_weights(fitted[0], fitted[1]) and not same_weights(fitted[0], fitted[2])
    default = small_model()
    imitate.clone(default, data, epochs=1, batch_size=16)  # seed 0 unless told
    assert same_weights(weights(default), fitted[0])


# --- collect_parts ---------------------------------------------------------------------------------
def test_collect_parts_of_nothing_yields_nothing_even_with_workers():
    assert list(imitate.collect_parts(lambda n: pytest.fail("made an env"), 2, {}, [], workers=2)) == []


def test_one_worker_plays_each_part_here_in_order(monkeypatch):
    calls = []

    def fake_collect(env, config, games, seed, student=None):
        calls.append((env, games, seed, student))
        return {"actions": np.arange(seed, seed + games)}

    monkeypatch.setattr(imitate, "collect", fake_collect)
    student = RandomPolicy(seed=0)
    got = list(imitate.collect_parts(lambda n: f"env{n}", 3, {}, [(2, 10), (1, 30), (3, 50)], student))  # 1 unless told
    assert calls == [("env3", 2, 10, student), ("env3", 1, 30, student), ("env3", 3, 50, student)]
    assert [part["actions"].tolist() for part in got] == [[10, 11], [30], [50, 51, 52]]


def test_a_single_part_is_played_here_whatever_the_workers(monkeypatch):
    calls = []
    monkeypatch.setattr(imitate, "collect", lambda env, config, games, seed, student=None: calls.append(seed) or {})
    assert list(imitate.collect_parts(lambda n: n, 2, {}, [(4, 9)], workers=3)) == [{}] and calls == [9]


def test_parts_with_workers_are_played_in_other_processes_and_come_back_in_order(monkeypatch):
    from functools import partial

    from snack_envs.training.backends.sb3 import SelfPlayEnv

    config = load_config("snack_wars", WARS)
    expected = [imitate.collect(SelfPlayEnv(config, 2), config, 1, seed) for seed in (21, 22, 23)]
    monkeypatch.setattr(imitate, "collect", lambda *args, **kwargs: pytest.fail("played in this process"))
    got = list(imitate.collect_parts(partial(SelfPlayEnv, config), 2, config, [(1, 21), (1, 22), (1, 23)], workers=2))
    assert len(got) == 3
    for part, want in zip(got, expected):
        assert part.keys() == want.keys() and all(np.array_equal(part[k], want[k]) for k in want)


def test_a_worker_ignores_ctrl_c():
    """Ctrl-C reaches the workers too (the whole process group); the run, not they, stops on it."""
    previous = signal.getsignal(signal.SIGINT)
    try:
        imitate._ignore_sigint()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)


# --- Progress --------------------------------------------------------------------------------------
def fake_play(log: list):
    """A `play(parts)` that records the parts asked for and yields samples naming their games."""
    def play(parts):
        log.append(list(parts))
        for games, seed in parts:
            yield {"actions": np.arange(seed, seed + games), "returns": np.full(games, seed, np.float32),
                   "observations": np.zeros((games, 3), np.float32), "masks": np.ones((games, 2), bool)}
    return play


def test_progress_saves_each_part_as_it_is_played_and_plays_only_the_parts_not_saved(tmp_path, monkeypatch):
    monkeypatch.setattr(imitate, "PART_GAMES", 2)
    config = load_config("quickstart", ["imitation.games=5"])
    folder = tmp_path / "run" / "imitation"  # its parent missing too
    log = []
    data = imitate.Progress(folder, config).samples("clone-2p", 5, 100, fake_play(log))
    assert log == [[(2, 100), (2, 102), (1, 104)]]
    assert data["actions"].tolist() == [100, 101, 102, 103, 104]
    assert sorted(p.name for p in folder.iterdir()) == ["clone-2p-0.npz", "clone-2p-2.npz", "clone-2p-4.npz",
                                                        "settings.json"]
    with np.load(folder / "clone-2p-2.npz") as saved:
        assert saved["actions"].tolist() == [102, 103] and saved["returns"].tolist() == [102.0, 102.0]

    (folder / "clone-2p-2.npz").unlink()
    log.clear()
    again = imitate.Progress(folder, config).samples("clone-2p", 5, 100, fake_play(log))
    assert log == [[(2, 102)]]
    assert again.keys() == data.keys() and all(np.array_equal(again[k], data[k]) for k in data)
    log.clear()
    assert imitate.Progress(folder, config).samples("clone-2p", 5, 100, fake_play(log))["actions"].tolist() == [
        100, 101, 102, 103, 104]
    assert [part for asked in log for part in asked] == []  # nothing left to play


def test_progress_without_a_folder_plays_every_part_and_saves_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(imitate, "PART_GAMES", 3)
    monkeypatch.chdir(tmp_path)
    progress = imitate.Progress(None, load_config("quickstart", []))
    log = []
    assert progress.samples("clone-2p", 7, 0, fake_play(log))["actions"].tolist() == list(range(7))
    assert log == [[(3, 0), (3, 3), (1, 6)]]
    assert progress.fitted("clone") is None
    progress.save_fit(small_model(), "clone", {"samples": 1})
    assert progress.fitted("clone") is None and list(tmp_path.iterdir()) == []


def _truncated(path):
    path.write_bytes(path.read_bytes()[:100])


DAMAGED_PARTS = [  # (damage to part clone-2p-2.npz, what the refusal says); each ended in a traceback
    (_truncated, r"is damaged \(BadZipFile: "),
    (lambda path: path.write_text("hello"), r"is damaged \(ValueError: "),  # np.load takes it for a pickle
    (lambda path: np.savez(path, foo=np.zeros(3)), r"is damaged \(its arrays \['foo'\] are no part of samples\)"),
    (lambda path: np.savez(path, actions=np.arange(2), returns=np.zeros(3), observations=np.zeros((2, 3)),
                           masks=np.ones((2, 2), bool)), r"is damaged \(its arrays .* are no part of samples"),  # 3 returns, 2 actions
    (lambda path: np.savez(path, actions=np.arange(2), returns=np.zeros(2), observations=np.zeros((2, 3)),
                           masks=np.ones((2, 2), bool), played=np.arange(2)), r"is damaged \(its arrays .* are not the other parts'"),
]


@pytest.mark.parametrize("damage, message", DAMAGED_PARTS)
def test_a_damaged_part_of_samples_is_refused_naming_it_and_played_again_once_deleted(tmp_path, monkeypatch,
                                                                                        damage, message):
    monkeypatch.setattr(imitate, "PART_GAMES", 2)
    config = load_config("quickstart", ["imitation.games=5"])
    folder = tmp_path / "imitation"
    data = imitate.Progress(folder, config).samples("clone-2p", 5, 100, fake_play([]))
    damage(folder / "clone-2p-2.npz")
    with pytest.raises(ConfigError, match=rf"^{re.escape(str(folder / 'clone-2p-2.npz'))} {message}.*: delete it "
                                          "and resume, and its games are played again"):
        imitate.Progress(folder, config).samples("clone-2p", 5, 100, fake_play([]))
    (folder / "clone-2p-2.npz").unlink()  # as the message says
    log = []
    again = imitate.Progress(folder, config).samples("clone-2p", 5, 100, fake_play(log))
    assert log == [[(2, 102)]] and all(np.array_equal(again[k], data[k]) for k in data)


def test_a_damaged_fit_or_settings_file_is_refused_naming_it(tmp_path):
    config = load_config("quickstart", ["imitation.games=5"])
    folder = tmp_path / "imitation"
    progress = imitate.Progress(folder, config)
    model = small_model()
    progress.save_fit(model, "clone", {"games": 5, "samples": 40, "accuracy": 0.5, "loss": 1.0, "seconds": 2.0})
    assert progress.fitted("clone")["samples"] == 40
    (folder / "clone.pt").write_bytes(b"xx")
    with pytest.raises(ConfigError, match=r"clone.pt holds no weights of this policy \(UnpicklingError\): delete it "
                                          r"and clone.json and resume, and the clone fit runs again"):
        progress.load_weights(model, "clone")
    torch.save({"nothing": torch.zeros(1)}, folder / "clone.pt")  # a file of torch's, but not these weights
    with pytest.raises(ConfigError, match=r"clone.pt holds no weights of this policy \(RuntimeError\)"):
        progress.load_weights(model, "clone")
    (folder / "clone.json").write_text('{"games": 5}')
    with pytest.raises(ConfigError, match=r"clone.json is not an imitation fit's stats: it lacks samples, accuracy"):
        progress.fitted("clone")
    (folder / "clone.json").write_text("{bad")
    with pytest.raises(ConfigError, match=r"clone.json, line 1: not valid JSON"):
        progress.fitted("clone")
    (folder / "settings.json").write_text("[]")
    with pytest.raises(ConfigError, match=r"settings.json is not an imitation's settings: a mapping expected"):
        imitate.Progress(folder, config)


def test_progress_takes_up_a_folder_begun_with_the_same_settings_and_refuses_other_ones(tmp_path):
    config = load_config("quickstart", ["imitation.games=5", "imitation.epochs=2"])
    folder = tmp_path / "imitation"
    folder.mkdir()  # there already, empty
    imitate.Progress(folder, config)
    imitate.Progress(folder, config)
    more_workers = copy.deepcopy(config)
    more_workers["imitation"]["workers"] = 3  # how the games are played, not what they are
    imitate.Progress(folder, more_workers)
    as_tuples = copy.deepcopy(config)
    as_tuples["algo"]["net_arch"] = tuple(config["algo"]["net_arch"] or [])  # the same once in JSON
    imitate.Progress(tmp_path / "tuples", as_tuples)
    imitate.Progress(tmp_path / "tuples", as_tuples)
    for key, change, named in [("imitation", {"epochs": 3}, "imitation"), ("algo", {"net_arch": [8]}, "network"),
                               ("algo", {"gamma": 0.5}, "gamma"), ("env", {"num_players": 3}, "env")]:
        other = copy.deepcopy(config)
        other[key].update(change)
        with pytest.raises(ConfigError, match=rf"^{re.escape(str(folder))} holds an imitation begun with other "
                                              rf"{named} settings than the config's now"):
            imitate.Progress(folder, other)
    other = copy.deepcopy(config)
    other["seed"] += 1
    other["algo"]["net_arch"] = [8]
    with pytest.raises(ConfigError, match=r"begun with other network, seed settings"):
        imitate.Progress(folder, other)


# --- kickstart, its games played by a stand-in -------------------------------------------------------
class FakeGames:
    """Stands in for `collect`: records what each call is asked for (the env's player count, games, seed,
    whether a student plays and its weights then) and returns samples of the model's shapes, seeded from
    the call's seed, a student's with `played` (agreeing with the teacher on every other sample) and
    `finals` (one a game)."""

    def __init__(self, model):
        self.model, self.calls, self.given = model, [], []

    def __call__(self, env, config, games, seed, student=None):
        rng = np.random.default_rng(seed)
        data = synthetic_samples(self.model, 3 * games, rng, all_legal=True)
        if student is not None:
            other = (data["actions"] + 1) % self.model.action_space.n
            data["played"] = np.where(np.arange(3 * games) % 2 == 0, data["actions"], other)
            data["finals"] = rng.uniform(-1, 1, games)
        self.calls.append((env, games, seed, None if student is None else weights(student.model)))
        self.given.append(data)
        return data


class FitLog:
    """Wraps `clone`, recording each fit's samples, epochs and seed and the weights it leaves."""

    def __init__(self):
        self.fits, self.clone = [], imitate.clone

    def __call__(self, model, data, epochs, batch_size=512, lr=1e-3, seed=0):
        stats = self.clone(model, data, epochs, batch_size, lr, seed)
        self.fits.append({"data": data, "epochs": epochs, "seed": seed, "weights": weights(model)})
        return stats


def imitating_config(*extra: str) -> dict:
    config = load_config("quickstart", ["seed=5", "imitation.games=5", "imitation.epochs=2",
                                        "imitation.dagger_rounds=2", "imitation.dagger_games=3",
                                        "imitation.dagger_epochs=1", *extra])
    config["env"]["num_players"] = [2, 3]
    return config


def run_kickstart(monkeypatch, config, folder=None, model=None):
    """kickstart with the stand-ins; every `seconds` in its stats checked against the time it took."""
    model = small_model() if model is None else model
    games, fits = FakeGames(model), FitLog()
    monkeypatch.setattr(imitate, "collect", games)
    monkeypatch.setattr(imitate, "clone", fits)
    started = time.time()
    stats = imitate.kickstart(model, config, lambda n: n, folder)
    took = time.time() - started
    for phase in [stats, *stats.get("dagger", [])]:  # a phase taken up from the folder: an earlier run's
        assert 0 <= phase["seconds"] <= (took + 0.1 if folder is None else 60)
    return model, stats, games, fits


def test_kickstart_shares_each_phases_games_among_the_player_counts_and_fits_all_the_samples_so_far(
        monkeypatch, capsys):
    model, stats, games, fits = run_kickstart(monkeypatch, imitating_config())
    calls = games.calls
    # clone: 5 games as 3 + 2 (2 and 3 players); each round: 3 games as 2 + 1; a student only in the rounds
    assert [(env, n) for env, n, _, _ in calls] == [(2, 3), (3, 2), (2, 2), (3, 1), (2, 2), (3, 1)]
    assert [student is None for *_, student in calls] == [True, True, False, False, False, False]
    ranges = [set(range(seed, seed + n)) for _, n, seed, _ in calls]
    assert sum(map(len, ranges)) == len(set().union(*ranges))  # every game of the imitation seeded apart

    # each fit: the samples so far (the rounds without the student's own extras), its epochs and seed
    assert [(f["epochs"], f["seed"]) for f in fits.fits] == [(2, 5), (1, 6), (1, 7)]
    expected = [imitate.concatenate(games.given[:2]), imitate.concatenate(games.given[:4]),
                imitate.concatenate(games.given)]
    for fit, want in zip(fits.fits, expected):
        assert sorted(fit["data"]) == ["actions", "masks", "observations", "returns"]
        for key in fit["data"]:
            assert np.array_equal(fit["data"][key], want[key]), key
    # a round's student is the model as the phase before left it
    assert same_weights(calls[2][3], fits.fits[0]["weights"]) and same_weights(calls[3][3], fits.fits[0]["weights"])
    assert same_weights(calls[4][3], fits.fits[1]["weights"])
    assert same_weights(weights(model), fits.fits[2]["weights"])

    samples = [len(want["actions"]) for want in expected]
    assert samples == [15, 24, 33]
    assert stats["games"] == 5 and stats["samples"] == 15 and 0 <= stats["accuracy"] <= 1
    rounds = stats.pop("dagger")
    assert [(r["round"], r["games"], r["samples"]) for r in rounds] == [(1, 3, 24), (2, 3, 33)]
    for r, (a, b) in zip(rounds, [(2, 3), (4, 5)]):
        assert r["agreement"] == round(_agrees(games.given[a], games.given[b]), 4)
        finals = np.concatenate([games.given[a]["finals"], games.given[b]["finals"]])
        assert len(finals) == 3 and r["mean_final_reward"] == round(float(finals.mean()), 4)
    assert stats["seconds"] == rounds[-1]["seconds"] >= rounds[0]["seconds"]

    out = capsys.readouterr().out.splitlines()
    assert len(out) == 3
    assert re.fullmatch(rf"imitation: 15 heuristic decisions from 5 games, action accuracy {stats['accuracy']:.3f}, "
                        r"\d+ s", out[0])
    for line, r in zip(out[1:], rounds):
        assert line.startswith(f"imitation: DAgger round {r['round']}: the clone agreed with the heuristic on "
                               f"{r['agreement']:.3f} of its own decisions, mean final reward "
                               f"{r['mean_final_reward']:.2f}; refit on {r['samples']} decisions, accuracy "
                               f"{r['accuracy']:.3f}, ")


def _agrees(*parts) -> float:
    """The share of a round's samples where the stand-in student played the teacher's action."""
    return float(np.mean(np.concatenate([p["played"] == p["actions"] for p in parts])))


def test_kickstart_with_no_games_runs_its_dagger_rounds_from_the_model_as_it_is(monkeypatch):
    model = small_model()
    start = weights(model)
    _, stats, games, fits = run_kickstart(monkeypatch, imitating_config("imitation.games=0"), model=model)
    assert [(env, n) for env, n, _, _ in games.calls] == [(2, 2), (3, 1), (2, 2), (3, 1)]
    assert same_weights(games.calls[0][3], start)
    assert [(f["epochs"], f["seed"], len(f["data"]["actions"])) for f in fits.fits] == [(1, 6, 9), (1, 7, 18)]
    assert stats["games"] == 0 and stats["samples"] == 0
    assert [r["round"] for r in stats["dagger"]] == [1, 2] and stats["seconds"] == stats["dagger"][1]["seconds"]


def test_kickstart_with_fewer_games_than_player_counts_plays_one_game_for_each_of_the_first_counts(monkeypatch):
    """1 game shared among 2 and 3 players: the 2-player count plays it, the 3-player count none (it failed
    joining the samples of a count that played no game)."""
    config = imitating_config("imitation.games=1", "imitation.dagger_games=1")
    _, stats, games, fits = run_kickstart(monkeypatch, config)
    assert [(env, n) for env, n, _, _ in games.calls] == [(2, 1), (2, 1), (2, 1)]
    assert [len(f["data"]["actions"]) for f in fits.fits] == [3, 6, 9]
    assert stats["games"] == 1 and [r["games"] for r in stats["dagger"]] == [1, 1]


def test_kickstart_takes_up_a_stopped_imitation_where_it_stopped(tmp_path, monkeypatch, capsys):
    """A run stopped in round 2's games, its 3-player part played: kickstart in the same folder loads
    round 1's weights, plays round 2's 2-player part alone, refits on every sample and ends as a run
    never stopped, with the same stats."""
    folder = tmp_path / "imitation"
    config = imitating_config()
    whole, stats, whole_games, _ = run_kickstart(monkeypatch, config, folder)
    for name in ("round2.json", "round2.pt", "round2-2p-0.npz"):
        (folder / name).unlink()
    capsys.readouterr()
    again, resumed, games, fits = run_kickstart(monkeypatch, config, folder)
    assert capsys.readouterr().out.startswith(f"imitation: taking up {folder}: clone, round1 fitted already\n")
    assert [(env, n, seed) for env, n, seed, _ in games.calls] == [whole_games.calls[4][:3]]
    assert same_weights(games.calls[0][3], whole_games.calls[4][3])  # the student: round 1's fit, loaded
    assert [(f["seed"], len(f["data"]["actions"])) for f in fits.fits] == [(7, 33)]
    assert same_weights(weights(again), weights(whole))
    for got in (stats, resumed):
        got.pop("seconds")
        got["dagger"][-1].pop("seconds")
    assert resumed == stats
