"""`snack-train --backend rllib --address ...` on an existing Ray cluster (a one-node cluster started here)."""

from __future__ import annotations

import json
import os
import warnings

import pytest

pytest.importorskip("ray.rllib")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")


@pytest.mark.slow
def test_snack_train_rllib_runs_on_a_cluster_given_its_address(tmp_path, monkeypatch):
    import ray
    from ray.cluster_utils import Cluster

    from snack_envs.training import train as train_cli

    assert not ray.is_initialized()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 2, "include_dashboard": False})
    inits = []
    real_init = ray.init

    def spy_init(*args, **kwargs):
        inits.append(kwargs)
        return real_init(*args, **kwargs)

    monkeypatch.setattr(ray, "init", spy_init)
    try:
        run = tmp_path / "run"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            train_cli.main([
                "--backend", "rllib", "--address", cluster.address, "--run-dir", str(run),
                "--set", "vec_env=subproc", "--set", "n_envs=1",  # one remote EnvRunner on the cluster
                "--set", "timesteps=128", "--set", "algo.n_steps=128", "--set", "algo.batch_size=64",
                "--set", "algo.n_epochs=1", "--set", "algo.net_arch=[32]", "--set", "eval.games=2",
                "--set", "eval.final_games=2",
            ])
        assert inits == [{"address": cluster.address}]
        assert not ray.is_initialized()  # the command disconnected; the cluster is still up
        assert json.loads((run / "state.json").read_text())["timesteps"] >= 128
        assert (run / "final" / "learner_group").is_dir()
    finally:
        cluster.shutdown()
