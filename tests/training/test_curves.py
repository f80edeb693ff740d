"""Learning curves for shipped checkpoints (issue 19): a run's evaluations (a recipe's: every stage's) as a tidy
CSV and a PNG beside the checkpoint, x the timesteps of the whole lineage, and the docs page that shows them."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pytest

from snack_envs.training.curves import COLUMNS, export_curve, read_curve
from snack_envs.training.curves import main as curves_main

pytest.importorskip("matplotlib")
HEADER = "timesteps,opponent,win_rate,win_rate_ci95_low,win_rate_ci95_high,mean_score,unfinished\n"


def result(win_rate: float, low: float, high: float, score: float = 40.0) -> dict:
    return {"win_rate": win_rate, "win_rate_ci95": [low, high], "hero_mean_score_ci95": [score, score - 1, score + 1],
            "unfinished": 0, "games": 10}


def write(path: Path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(data if isinstance(data, str) else json.dumps(data))


@pytest.fixture
def recipe_run(tmp_path) -> Path:
    """A recipe's run folder, made by hand: stage 1 (from a 500-step checkpoint: init_from) finished at 512 steps,
    stage 2 stopped at 256; both on 2 and 3 players, so eval.csv keys them "heuristic@2p" and the like."""
    run = tmp_path / "run"
    write(run / "config.json", {"stages": [{}, {}]})
    for stage in ("stage1", "stage2"):
        write(run / stage / "config.json", {"env": {"name": "snack_rabbits_v0", "num_players": [2, 3]}})
    write(run / "stage1" / "eval.csv", HEADER + "".join(
        f"256,{opp}@{n}p,{0.1 * n + (opp == 'random') * 0.3},0.05,0.9,{30 + n},0\n"
        for n in (2, 3) for opp in ("random", "heuristic")))
    final = {f"{opp}@{n}p": result(0.2 * n + (opp == "random") * 0.2, 0.1, 0.95) for n in (2, 3) for opp in ("random", "heuristic")}
    write(run / "stage1" / "final.json", {"timesteps": 512, "lineage_timesteps": 1012, "evaluation": final})
    write(run / "stage2" / "eval.csv", HEADER + "256,heuristic@2p,0.6,0.5,0.7,44.5,1\n256,heuristic@3p,0.45,0.35,0.55,41,0\n")
    write(run / "stage2" / "latest.json", {"timesteps": 256, "lineage_timesteps": 1012 + 256})
    return run


def test_a_recipes_curve_concatenates_its_stages_on_the_lineages_timesteps(recipe_run, tmp_path):
    rows = read_curve(recipe_run)
    got = [(r["timesteps"], r["stage"], r["opponent"], r["num_players"], r["kind"]) for r in rows]
    assert got == [
        (756, 1, "random", 2, "periodic"), (756, 1, "heuristic", 2, "periodic"),
        (756, 1, "random", 3, "periodic"), (756, 1, "heuristic", 3, "periodic"),
        (1012, 1, "random", 2, "final"), (1012, 1, "heuristic", 2, "final"),
        (1012, 1, "random", 3, "final"), (1012, 1, "heuristic", 3, "final"),
        (1268, 2, "heuristic", 2, "periodic"), (1268, 2, "heuristic", 3, "periodic"),
    ]  # 500 steps before the recipe (init_from), then stage 1's 512, then stage 2's
    last = rows[-1]
    assert (last["win_rate"], last["win_rate_ci95_low"], last["win_rate_ci95_high"]) == (0.45, 0.35, 0.55)
    assert last["even_share"] == pytest.approx(1 / 3) and rows[-2]["unfinished"] == 1 and rows[-2]["mean_score"] == 44.5
    (recipe_run / "stage2" / "latest.json").unlink()  # a stage with no checkpoint: it starts where the last one ended
    assert [r["timesteps"] for r in read_curve(recipe_run)] == [r["timesteps"] for r in rows]

    csv_path, png_path = export_curve(recipe_run, tmp_path / "checkpoints" / "snack_rabbits_v0.zip")
    assert (csv_path.name, png_path.name) == ("snack_rabbits_v0.curve.csv", "snack_rabbits_v0.curve.png")
    with csv_path.open(newline="") as f:
        table = list(csv.DictReader(f))
    assert list(table[0]) == COLUMNS and len(table) == len(rows)
    assert [(int(r["timesteps"]), r["opponent"], int(r["num_players"])) for r in table] == [(t, o, n) for t, _, o, n, _ in got]
    assert png_path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not list(csv_path.parent.glob(".*.tmp"))


def test_a_plain_runs_curve_keys_its_one_player_count(tmp_path):
    run = tmp_path / "run"
    write(run / "config.json", {"env": {"name": "snack_wars_v0", "num_players": 4}})
    write(run / "eval.csv", HEADER + "100,heuristic,0.3,0.2,0.4,12,0\n200,heuristic,0.35,0.25,0.45,13,0\n")
    write(run / "latest.json", {"timesteps": 200})  # no lineage: x is the run's own timesteps
    rows = read_curve(run)
    assert [(r["timesteps"], r["opponent"], r["num_players"], r["even_share"]) for r in rows] == \
        [(100, "heuristic", 4, 0.25), (200, "heuristic", 4, 0.25)]
    with pytest.raises(FileNotFoundError):
        export_curve(tmp_path / "empty", tmp_path / "x.zip")


def test_solos_rows_carry_a_mean_score_and_no_win_rate(tmp_path):
    run = tmp_path / "run"  # Snack Time on 1 and 2 players: solo is keyed "solo@1p", and has no win-rate cells
    write(run / "config.json", {"env": {"name": "snack_time_v0", "num_players": [1, 2]}})
    write(run / "eval.csv", HEADER + "100,solo@1p,,,,71.5,0\n100,heuristic@2p,0.4,0.3,0.5,60,0\n")
    solo_final = {"mean_score_ci95": [80.25, 78.0, 82.5], "ranks": {}, "games": 10, "unfinished": 1}
    write(run / "final.json", {"timesteps": 200, "evaluation": {"solo@1p": solo_final, "heuristic@2p": result(0.5, 0.4, 0.6)}})
    rows = read_curve(run)
    got = [(r["timesteps"], r["opponent"], r["num_players"], r["mean_score"], r["unfinished"], r["kind"]) for r in rows]
    assert got == [(100, "solo", 1, 71.5, 0, "periodic"), (100, "heuristic", 2, 60.0, 0, "periodic"),
                   (200, "solo", 1, 80.25, 1, "final"), (200, "heuristic", 2, 40.0, 0, "final")]
    assert all(math.isnan(r["win_rate"]) for r in rows if r["num_players"] == 1) and rows[1]["win_rate"] == 0.4
    csv_path, png_path = export_curve(run, tmp_path / "out" / "x.zip")
    assert png_path.stat().st_size > 0 and "100,1,100,solo,1,1.0,nan,nan,nan,71.5,0,periodic" in csv_path.read_text()


def test_the_docs_page_shows_a_checkpoints_curve_where_there_is_one(recipe_run, tmp_path):
    import importlib.util

    pytest.importorskip("mkdocs", reason="the docs extra is not installed")
    spec = importlib.util.spec_from_file_location("curves_hook", Path(__file__).resolve().parents[2] / "docs" / "hooks" / "curves.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    folder = tmp_path / "checkpoints"
    write(folder / "snack_rabbits_v0.json", {})
    write(folder / "snack_wars_v0.json", {})
    export_curve(recipe_run, folder / "snack_rabbits_v0.zip")
    text = hook.sections(folder)
    assert "![Learning curve of snack_rabbits_v0](curves/snack_rabbits_v0.curve.png)" in text
    assert "(curves/snack_rabbits_v0.curve.csv)" in text
    assert "re-run" not in text
    curves_main([str(recipe_run), str(folder / "snack_rabbits_v0.zip"), "--note", "A re-run of its recipe."])
    assert json.loads((folder / "snack_rabbits_v0.json").read_text()) == {"curve_note": "A re-run of its recipe."}
    rabbits = hook.sections(folder).split("### `snack_wars_v0.zip`")[0]
    assert "(curves/snack_rabbits_v0.curve.csv).\n\nA re-run of its recipe.\n" in rabbits
    wars = text.split("### `snack_wars_v0.zip`")[1]
    assert "No curve yet" in wars and "curves/" not in wars
    assert [p.name for p in hook.curve_files(folder)] == ["snack_rabbits_v0.curve.csv", "snack_rabbits_v0.curve.png"]
