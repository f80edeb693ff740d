"""Cases found by a third mutation probe of training/ship.py and training/curves.py: behaviour no other test
noticed breaking. They pin:

- snack-ship: `measure` measures in this process unless asked for more jobs; the shipped checkpoints'
  figures were measured at snack-ship's defaults (games, solo games, seed), so a re-measure with no
  options reproduces them, the figures compared being all but the timings; a published run's figures keep their seed, verdict and time;
- snack-curves: paths given as strings (as the module docstring's example does); a config whose env lacks
  num_players is a ConfigError naming the file; a run known by its metadata alone (no config.json) is still
  refused beside a checkpoint of another game; a row or final evaluation without an unfinished count has
  none unfinished; a run with no evaluation draws no curve; a run folder that is not there is refused as
  such; `--note` prints the metadata file it wrote.

Like tests/training/test_ship_probe.py, no game is played and no policy is loaded (its helpers are reused)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("matplotlib")

from snack_envs.core.game import ConfigError  # noqa: E402
from snack_envs.training import curves, ship  # noqa: E402
from tests.helpers import run_main  # noqa: E402
from tests.training.test_ship_probe import CLEARS, HEADER, checkpoint, figures, stub, write  # noqa: E402

CHECKPOINTS = Path(__file__).resolve().parents[2] / "checkpoints"


# --- snack-ship -------------------------------------------------------------------------------------------------
def test_measure_uses_one_process_unless_given_more_jobs(tmp_path, monkeypatch):
    """measure's default is one job: the counts measured here, one after another (a pool's workers would not
    see the stubbed matches of this process)."""
    path = checkpoint(tmp_path, player_counts=[2, 3])
    arena = stub(monkeypatch, CLEARS)
    lines = []
    bar = ship.measure(path, games=10, look_games=6, log=lines.append)
    assert [n for n, *_ in arena.calls] == [2] * 5 + [3] * 5
    assert lines[0] == f"{path}: 2 players" and not any("processes" in line for line in lines)
    assert list(bar["counts"]) == ["2", "3"]


def test_the_shipped_figures_were_measured_at_snack_ships_defaults():
    """Every shipped checkpoint's bar was measured with the default games (solo games for solo rows) and seed,
    so `snack-ship` with no options re-measures the stored figures exactly."""
    measured = 0
    for meta_path in sorted(CHECKPOINTS.glob("*.json")):
        counts = json.loads(meta_path.read_text()).get("bar", {}).get("counts", {})
        for n, result in counts.items():
            assert result["seed"] == ship.SEED, (meta_path.name, n)
            for key in (*ship.MATCHES, *ship.SOLOS):
                if key in result:
                    expected = ship.SOLO_GAMES if n == "1" else ship.GAMES
                    assert result[key]["games"] == expected, (meta_path.name, n, key)
                    measured += 1
    assert measured > 0


def test_a_results_figures_are_all_but_its_timings():
    """ship.figures, what a re-measure must reproduce (tests/training/test_shipped_bar.py): the stored result
    less its seconds and games per second."""
    stored = figures(0.7, 0.65, 0.75, 10, "x", "heuristic")
    kept = ship.figures(stored)
    assert kept == {k: v for k, v in stored.items() if k not in ("seconds", "games_per_s")} and "win_rate" in kept


def test_a_published_run_keeps_the_seed_and_the_verdict_it_was_measured_with(tmp_path, monkeypatch):
    """Publishing renames the hero (final -> the published name) and leaves every other field of a count's
    figures as measured: its seed (a re-measure needs it), its verdict and its time."""
    run = checkpoint(tmp_path / "run", "final")
    out = tmp_path / "published"
    stub(monkeypatch, CLEARS)
    ship.main([str(run), "--games", "10", "--lookahead-games", "6", "--seed", "7", "--out", str(out)])
    stored = json.loads((out / "snack_wars_v0_2p.json").read_text())["bar"]["counts"]["2"]
    assert stored["seed"] == 7 and stored["verdict"]["passed"] is True
    assert isinstance(stored["measured_in_s"], float) and stored["vs_heuristic"]["hero"] == "snack_wars_v0_2p"


# --- snack-curves -----------------------------------------------------------------------------------------------
def two_player_run(folder: Path, rows: str = "100,heuristic,0.3,0.2,0.4,12,0\n", **env) -> Path:
    write(folder / "config.json", {"env": {"name": "snack_wars_v0", "num_players": 2, **env}})
    write(folder / "eval.csv", HEADER + rows)
    return folder


def test_the_curve_takes_paths_given_as_strings(tmp_path):
    """export_curve("runs/<run>", "checkpoints/<name>.zip"), as the module docstring writes it; write_csv
    returns the file it wrote."""
    run = two_player_run(tmp_path / "run")
    csv_path, png_path = curves.export_curve(str(run), str(tmp_path / "x.zip"))
    assert (csv_path, png_path) == (tmp_path / "x.curve.csv", tmp_path / "x.curve.png")
    assert png_path.is_file() and "100,1,100,heuristic,2,0.5,0.3,0.2,0.4,12.0,0,periodic" in csv_path.read_text()
    assert curves.run_env_name(str(run)) == "snack_wars_v0"
    again = tmp_path / "again.csv"
    assert curves.write_csv(curves.read_curve(str(run)), again) == again and again.read_text() == csv_path.read_text()


def test_a_config_whose_env_lacks_num_players_is_a_config_error_naming_it(tmp_path):
    run = tmp_path / "run"
    write(run / "config.json", {"env": {"name": "snack_wars_v0"}})
    write(run / "eval.csv", HEADER + "100,heuristic,0.3,0.2,0.4,12,0\n")
    with pytest.raises(ConfigError, match="its env lacks num_players") as raised:
        curves.read_curve(run)
    assert str(run / "config.json") in str(raised.value)


def test_a_run_known_by_its_metadata_alone_is_not_drawn_beside_another_games_checkpoint(tmp_path, capsys):
    """No config.json: the run's game is its metadata's env_name, and a checkpoint of another game refuses
    its curve (exit status 2, nothing written)."""
    run = tmp_path / "run"
    write(run / "eval.csv", HEADER + "64,solo,,,,55.5,0\n")
    write(run / "latest.json", {"timesteps": 64, "env_name": "snack_time_v0", "player_counts": [1]})
    assert curves.run_env_name(run) == "snack_time_v0"
    write(tmp_path / "w.json", {"env_name": "snack_wars_v0"})
    code, _, err = run_main(curves, [str(run), str(tmp_path / "w.zip")], capsys)
    assert code == 2 and "is a run of snack_time_v0" in err, err
    assert not (tmp_path / "w.curve.csv").exists() and not (tmp_path / "w.curve.png").exists()


def test_evaluations_without_an_unfinished_count_have_none_unfinished(tmp_path):
    """An eval.csv row with an empty unfinished cell, and a final evaluation without the field: 0 unfinished."""
    run = two_player_run(tmp_path / "run", "100,heuristic,0.3,0.2,0.4,12,\n")
    write(run / "final.json", {"timesteps": 200, "evaluation": {"heuristic": {
        "win_rate": 0.4, "win_rate_ci95": [0.3, 0.5], "hero_mean_score_ci95": [13.0, 12.0, 14.0]}}})
    rows = curves.read_curve(run)
    assert [(r["timesteps"], r["kind"], r["unfinished"]) for r in rows] == [(100, "periodic", 0), (200, "final", 0)]


def test_snack_curves_refuses_a_run_folder_that_is_not_there(tmp_path, capsys):
    code, _, err = run_main(curves, [str(tmp_path / "nowhere"), str(tmp_path / "x.zip")], capsys)
    assert code == 2 and "no run folder" in err and str(tmp_path / "nowhere") in err, err
    assert list(tmp_path.iterdir()) == []


def test_a_note_is_stored_and_the_metadata_file_named_among_those_written(tmp_path, capsys):
    run = two_player_run(tmp_path / "run")
    write(tmp_path / "c.json", {"env_name": "snack_wars_v0"})
    code, out, err = run_main(curves, [str(run), str(tmp_path / "c.zip"), "--note", "from run 7"], capsys)
    assert code == 0, err
    assert out.splitlines() == [f"wrote {tmp_path / name}" for name in ("c.curve.csv", "c.curve.png", "c.json")]
    assert json.loads((tmp_path / "c.json").read_text()) == {"env_name": "snack_wars_v0", "curve_note": "from run 7"}


def test_a_run_with_no_evaluation_draws_no_curve(tmp_path):
    """A run with its config but neither eval.csv nor final.json: export_curve is a FileNotFoundError naming
    the run, and writes nothing."""
    run = tmp_path / "run"
    write(run / "config.json", {"env": {"name": "snack_wars_v0", "num_players": 2}})
    with pytest.raises(FileNotFoundError, match="the run has no evaluation") as raised:
        curves.export_curve(run, tmp_path / "x.zip")
    assert raised.value.filename == str(run) and sorted(p.name for p in tmp_path.iterdir()) == ["run"]
