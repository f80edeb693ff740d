"""Training for Snack Time's solo mode (issue 19): a one-player run has no opponent, so its evaluations are
its mean score (`arena.solo`), not a win rate against the heuristic that never sits at its table; its
eval.csv, final metadata, `snack-train`'s table and its learning curve say so."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("matplotlib")

from snack_envs.training import train as train_cli  # noqa: E402
from snack_envs.training.arena import solo  # noqa: E402
from snack_envs.training.curves import export_curve, read_curve  # noqa: E402

TINY_SOLO = """\
extends: snack_time
env: {name: snack_time_v0, num_players: 1, reward: score}
timesteps: 256
n_envs: 4
torch_threads: 1
imitation: {games: 0}
algo: {n_steps: 32, batch_size: 64, n_epochs: 1}
eval: {every: 128, games: 3, final_games: 5, opponents: [heuristic, random]}
"""


def test_a_solo_run_is_evaluated_by_its_mean_score(tmp_path, capsys):
    config = tmp_path / "solo.yaml"
    config.write_text(TINY_SOLO)
    run = tmp_path / "run"
    train_cli.main(["--config", str(config), "--run-dir", str(run)])
    final = json.loads((run / "final.json").read_text())
    assert final["player_counts"] == [1] and list(final["evaluation"]) == ["solo"]
    measured = final["evaluation"]["solo"]
    again = solo("snack_time_v0", str(run / "final.zip"), 5, seed=1_000_000)  # the final evaluation's seed
    assert measured["mean_score_ci95"] == again["mean_score_ci95"] and measured["ranks"] == again["ranks"]
    assert "win_rate" not in measured

    with (run / "eval.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["timesteps"] for r in rows] == ["128"] and {r["opponent"] for r in rows} == {"solo"}
    assert all(r["win_rate"] == "" and float(r["mean_score"]) >= 0 for r in rows)

    table = capsys.readouterr().out.splitlines()
    solo_row = next(line for line in table if line.startswith("solo "))
    assert f"{measured['mean_score_ci95'][0]:.2f} [{measured['mean_score_ci95'][1]:.2f}," in solo_row

    curve = read_curve(run)
    assert [(r["timesteps"], r["opponent"], r["num_players"], r["kind"]) for r in curve] == [
        (128, "solo", 1, "periodic"), (256, "solo", 1, "final")]
    assert curve[-1]["mean_score"] == measured["mean_score_ci95"][0] and math.isnan(curve[-1]["win_rate"])
    csv_path, png_path = export_curve(run, tmp_path / "out" / "snack_time_v0_solo.zip")
    assert png_path.stat().st_size > 0 and csv_path.read_text().count("\n") == 3


def test_the_shipped_solo_agent_plays_snack_time_solo_v0():
    """The shipped solo checkpoint loads for one player only and plays the Gymnasium solo env from its own
    observation and mask, as the docs show: every episode's rewards sum to its score, well above random
    play's (about 25)."""
    import gymnasium
    import numpy as np

    import snack_envs.snack_time_v0  # noqa: F401  (registers SnackTimeSolo-v0)
    from snack_envs.checkpoints import CheckpointError, load_policy
    from tests.helpers import CHECKPOINTS

    path = CHECKPOINTS / "snack_time_v0_solo.zip"
    policy = load_policy(path, env_name="snack_time_v0", num_players=1)
    with pytest.raises(CheckpointError, match="supports num_players=1 only"):
        load_policy(path, env_name="snack_time_v0", num_players=2)
    env = gymnasium.make("SnackTimeSolo-v0")
    scores = []
    for seed in range(4):
        obs, info = env.reset(seed=seed)
        total, done = 0.0, False
        while not done:
            obs, reward, done, _, info = env.step(policy.act(obs, info["action_mask"]))
            total += reward
        assert total == info["score"]
        scores.append(info["score"])
    assert np.mean(scores) > 50


def test_snack_eval_rates_agents_alone_by_their_solo_scores(tmp_path, capsys):
    """`snack-eval --num-players 1`: no agent meets another; each plays the same deals alone (`arena.solo`),
    and the table, results.json and results.csv give its mean score and ranks. It used to crash drawing a
    head-to-head heatmap of 1-player games."""
    from snack_envs.agents import make_policy
    from snack_envs.training import evaluate

    out = tmp_path / "out"
    evaluate.main(["--env", "snack_time_v0", "--num-players", "1", "--agents", "random", "heuristic", "--games", "6",
                   "--seed", "3", "--out", str(out)])
    results = json.loads((out / "results.json").read_text())
    timing = ("seconds", "games_per_s")
    for spec in ("random", "heuristic"):
        alone = solo("snack_time_v0", make_policy(spec, "snack_time_v0", 1, seed=3), 6, seed=3)  # as snack-eval builds it
        assert {k: v for k, v in results["agents"][spec].items() if k not in timing} == \
            {k: v for k, v in alone.items() if k not in timing}
    table = capsys.readouterr().out.splitlines()
    rows = [line.split()[0] for line in table if line.startswith(("random ", "heuristic "))]
    assert rows == ["heuristic", "random"]  # best mean score first (the heuristic scores about 88, random about 25)
    with (out / "results.csv").open(newline="") as f:
        csv_rows = list(csv.DictReader(f))
    assert [r["agent"] for r in csv_rows] == ["random", "heuristic"]
    assert float(csv_rows[1]["mean_score"]) == pytest.approx(results["agents"]["heuristic"]["mean_score_ci95"][0], abs=1e-3)
    assert sum(int(csv_rows[0][rank]) for rank in results["agents"]["random"]["ranks"]) == 6
    assert not (out / "head_to_head.png").exists()
    evaluate.main(["--env", "snack_time_v0", "--num-players", "1", "--agents", "heuristic", "--games", "2"])  # one agent will do


def test_algo_grid_sizes_the_convolutional_network_and_init_from_checks_it(tmp_path):
    """`algo.grid` (channels, one residual block per dilation) reaches the trained network; a run that
    starts from it must ask for the same size, and a checkpoint from before algo.grid counts as the default."""
    from snack_envs.checkpoints import load_policy
    from snack_envs.core.game import ConfigError
    from snack_envs.training.config import load_config

    config = tmp_path / "solo.yaml"
    config.write_text(TINY_SOLO.replace("timesteps: 256", "timesteps: 128").replace(
        "n_epochs: 1}", "n_epochs: 1, grid: {channels: 8, dilations: [1, 3, 1]}}"))
    run = tmp_path / "run"
    train_cli.main(["--config", str(config), "--run-dir", str(run)])
    extractor = load_policy(run / "final.zip", env_name="snack_time_v0", num_players=1).model.policy.features_extractor
    assert extractor.stem.out_channels == 8 and [b.conv1.dilation for b in extractor.blocks] == [(1, 1), (3, 3), (1, 1)]

    start = [f"init_from={run / 'final.zip'}", "env.num_players=1"]
    load_config(str(config), start)  # the same size: fine
    with pytest.raises(ConfigError, match=r"its grid network \(\{'channels': 8, 'dilations': \[1, 3, 1\]\}\) is not "
                                          r"algo\.grid=\{'channels': 16, 'dilations': \[1, 3, 1\]\}"):
        load_config(str(config), [*start, "algo.grid.channels=16"])
    shipped = Path(__file__).resolve().parents[2] / "checkpoints" / "snack_time_v0.zip"  # trained before algo.grid: 32 channels, [1, 2]
    load_config("snack_time", [f"init_from={shipped}"])
    with pytest.raises(ConfigError, match=r"its grid network \(\{'channels': 32, 'dilations': \[1, 2\]\}\)"):
        load_config("snack_time", [f"init_from={shipped}", "algo.grid.dilations=[1, 2, 4]"])
