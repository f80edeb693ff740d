"""Behaviour cloning and DAgger (training/imitate.py), beyond tests/training/test_imitate_probe.py (whose
stand-ins for the games and fits this reuses): `collect` closes the env it is given; a run stopped right
after the clone's fit takes the imitation up from the clone's weights; and `kickstart`'s stats: each
phase's `seconds` counts from the imitation's start to the end of that phase's fit (the whole's being
the last round's), and a round's `accuracy` is its refit's, to 4 places (the clock is a stand-in that
moves only while a fit runs, so the seconds are known exactly); and `clone`'s default batches of 512."""

from __future__ import annotations

import types

import numpy as np
import pytest

from snack_envs.agents import RandomPolicy
from snack_envs.training.config import load_config

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from snack_envs.training import imitate  # noqa: E402  (after the importorskip: it needs the training extra)
from tests.training.test_imitate_probe import (  # noqa: E402
    WARS,
    imitating_config,
    run_kickstart,
    same_weights,
    small_model,
    synthetic_samples,
    weights,
)


def test_collect_closes_the_env_it_plays_in():
    from snack_envs.training.backends.sb3 import SelfPlayEnv

    config = load_config("snack_wars", WARS)
    for student in (None, RandomPolicy(seed=0)):
        env = SelfPlayEnv(config)
        closed = []
        env.close = lambda closed=closed, close=env.close: closed.append(True) or close()
        data = imitate.collect(env, config, 1, seed=3, student=student)
        assert len(data["actions"]) > 0 and closed == [True]


class SlowFits:
    """Stands in for the clock and wraps `clone`: each fit takes FIT_SECONDS by the clock (nothing else
    moves it), and its stats are kept."""

    FIT_SECONDS = 1.37

    def __init__(self, monkeypatch):
        self.now, self.stats, self.clone = 1_000_000.0, [], imitate.clone
        monkeypatch.setattr(imitate, "time", types.SimpleNamespace(time=lambda: self.now))
        monkeypatch.setattr(imitate, "clone", self)

    def __call__(self, *args, **kwargs):
        stats = self.clone(*args, **kwargs)
        self.now += self.FIT_SECONDS
        self.stats.append(dict(stats))
        return stats


def test_kickstart_times_each_phase_from_the_imitations_start(tmp_path, monkeypatch, capsys):
    fits = SlowFits(monkeypatch)
    _, stats, _, _ = run_kickstart(monkeypatch, imitating_config(), tmp_path / "imitation")
    rounds = stats.pop("dagger")
    assert [r["seconds"] for r in rounds] == [2.7, 4.1]  # 2 and 3 fits of 1.37 s, to a tenth
    assert stats["seconds"] == 4.1  # the whole imitation: to the end of its last round
    # the clone's own stats, as saved and printed: its one fit
    clone_stats = imitate.Progress(tmp_path / "imitation", imitating_config()).fitted("clone")
    assert clone_stats["seconds"] == 1.4
    assert capsys.readouterr().out.splitlines()[0].endswith(", 1 s")

    # the clone's stats are its fit's as they are; each round's accuracy is its refit's to 4 places
    assert stats["accuracy"] == fits.stats[0]["accuracy"] and stats["samples"] == fits.stats[0]["samples"]
    for r, fit in zip(rounds, fits.stats[1:]):
        assert r["samples"] == fit["samples"] and r["accuracy"] == round(fit["accuracy"], 4)
    assert any(round(fit["accuracy"], 3) != round(fit["accuracy"], 4) for fit in fits.stats[1:])


def test_kickstart_with_the_clone_alone_times_it(tmp_path, monkeypatch):
    SlowFits(monkeypatch)
    _, stats, _, _ = run_kickstart(monkeypatch, imitating_config("imitation.dagger_rounds=0"), tmp_path / "imitation")
    assert stats["seconds"] == 1.4 and "dagger" not in stats


def test_a_run_stopped_after_the_clones_fit_takes_the_dagger_rounds_up_from_the_clones_weights(
        tmp_path, monkeypatch, capsys):
    """Stopped before round 1 was fitted (its samples played or not): kickstart in the same folder loads the
    clone's weights, refits neither the clone nor anything twice, and ends as a run never stopped."""
    folder = tmp_path / "imitation"
    config = imitating_config()
    whole, stats, whole_games, _ = run_kickstart(monkeypatch, config, folder)
    for name in ("round1.json", "round1.pt", "round2.json", "round2.pt", "round1-3p-0.npz", "round2-2p-0.npz",
                 "round2-3p-0.npz"):
        (folder / name).unlink()
    capsys.readouterr()
    again, resumed, games, fits = run_kickstart(monkeypatch, config, folder)
    assert capsys.readouterr().out.startswith(f"imitation: taking up {folder}: clone fitted already\n")
    # round 1's 3-player part and round 2, played by the student the clone's fit left
    assert [call[:3] for call in games.calls] == [call[:3] for call in whole_games.calls[3:]]
    assert same_weights(games.calls[0][3], whole_games.calls[3][3])
    assert [(f["seed"], len(f["data"]["actions"])) for f in fits.fits] == [(6, 24), (7, 33)]
    assert same_weights(weights(again), weights(whole))
    for got in (stats, resumed):
        got.pop("seconds")
        for r in got["dagger"]:
            r.pop("seconds")
    assert resumed == stats


def test_clone_fits_in_batches_of_512_unless_told():
    """1535 samples: two batches of 512 or more by default (n // 512), three when told 511."""
    data = synthetic_samples(small_model(), 1535, np.random.default_rng(8))
    fitted = {}
    for batch_size in (None, 512, 511):
        model = small_model()
        if batch_size is None:
            imitate.clone(model, data, epochs=1)
        else:
            imitate.clone(model, data, epochs=1, batch_size=batch_size)
        fitted[batch_size] = weights(model)
    assert same_weights(fitted[None], fitted[512]) and not same_weights(fitted[None], fitted[511])
