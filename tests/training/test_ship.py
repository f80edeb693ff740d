"""training/ship.py, quickly: the bar's verdict, measuring checkpoints into their metadata (other keys kept,
counts merged, figures reproducible), publishing a run, and the README written from the metadata. Every
file is written in a temporary folder: the repository's checkpoints/ is only read."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

from snack_envs.training import ship  # noqa: E402
from snack_envs.training.arena import solo  # noqa: E402

CHECKPOINTS = Path(__file__).resolve().parents[2] / "checkpoints"


def result(rate: float, low: float, finished: int = 2000) -> dict:
    return {"win_rate": rate, "win_rate_ci95": [low, min(1.0, 2 * rate - low)], "finished": finished}


ROWS = {"vs_heuristic": result(0.65, 0.61), "vs_random": result(0.95, 0.94), "heuristic_vs_random": result(0.96, 0.95),
        "vs_lookahead": result(0.50, 0.48), "heuristic_vs_lookahead": result(0.45, 0.43)}


def checks(n: int, **rows) -> dict:
    found = ship.verdict(n, dict(ROWS, **rows))
    return {c["check"]: c["passed"] for c in found["checks"]} | {"passed": found["passed"]}


def test_the_verdict_of_each_count():
    assert checks(2) == {"vs heuristic": True, "vs random": True, "vs lookahead": True, "passed": True}
    assert checks(2, vs_heuristic=result(0.64, 0.60))["vs heuristic"] is False  # 0.600 is not above 1.2/2
    assert checks(3, vs_heuristic=result(0.45, 0.41))["passed"]  # above 1.2/3
    assert not checks(4, vs_heuristic=result(0.33, 0.29))["passed"]  # not above 1.2/4
    # At least as strong: at most 1.96 standard errors of the difference below the heuristic's share.
    floor = 0.96 - 1.96 * math.sqrt(0.95 * 0.05 / 2000 + 0.96 * 0.04 / 2000)
    assert checks(2, vs_random=result(floor + 0.001, 0.9))["vs random"]
    assert checks(2, vs_random=result(floor - 0.001, 0.9))["vs random"] is False
    assert checks(2, vs_random=result(0.94, 0.9, finished=200), heuristic_vs_random=result(0.96, 0.93, finished=200))[
        "vs random"]  # fewer games, more noise
    assert checks(2, vs_lookahead=result(0.40, 0.38))["vs lookahead"] is False
    rows = dict(ROWS)
    del rows["vs_lookahead"]
    found = ship.verdict(2, rows)
    assert not found["passed"] and {"check": "vs lookahead", "passed": None, "figure": "not measured"} in found["checks"]


def test_a_near_miss_is_shown_with_the_digits_that_tell_it_from_a_pass():
    found = ship.verdict(2, dict(ROWS, vs_random=result(0.9865, 0.980), heuristic_vs_random=result(0.993, 0.988)))
    random = next(c for c in found["checks"] if c["check"] == "vs random")
    assert not random["passed"] and random["figure"] == "0.9865 vs the heuristic's 0.9930 (at least 0.9868)"
    clear = ship.verdict(2, dict(ROWS, vs_random=result(0.95, 0.94), heuristic_vs_random=result(0.96, 0.95)))
    assert next(c for c in clear["checks"] if c["check"] == "vs random")["figure"].startswith("0.950 vs")


def test_a_figure_takes_as_many_digits_as_it_needs_to_read_unlike_its_bar():
    """Four decimals are not always enough: 0.98675 against a floor of 0.98680 read "0.9868 ... (at least
    0.9868)" under a verdict of not cleared. Each figure takes the fewest digits, from its usual ones, at which
    it differs from its bar: the solo mean and the lower bound too."""
    found = ship.verdict(2, dict(ROWS, vs_heuristic=result(0.7, 0.59996), vs_random=result(0.98675, 0.98),
                                 heuristic_vs_random=result(0.993, 0.988)))
    figures = {c["check"]: (c["passed"], c["figure"]) for c in found["checks"]}
    assert figures["vs random"] == (False, "0.98675 vs the heuristic's 0.99300 (at least 0.98680)")
    assert figures["vs heuristic"] == (False, "lower bound 0.59996 <= 0.60000")
    solo = ship.verdict(1, {"solo": {"mean_score_ci95": [99.96, 98.0, 101.9]},
                            "solo_rat_snacks": {"mean_score_ci95": [107.04, 105.0, 109.1]}})
    assert [(c["passed"], c["figure"]) for c in solo["checks"]] == [(False, "mean score 99.96 < 100"),
                                                                   (True, "mean score 107.04 >= 107")]


def test_the_solo_verdict_asks_100_and_107_with_rat_snacks():
    def mean(x):
        return {"mean_score_ci95": [x, x - 2, x + 2]}

    assert ship.verdict(1, {"solo": mean(100.0), "solo_rat_snacks": mean(107.0)})["passed"]
    assert not ship.verdict(1, {"solo": mean(99.9), "solo_rat_snacks": mean(120.0)})["passed"]
    assert not ship.verdict(1, {"solo": mean(110.0), "solo_rat_snacks": mean(106.9)})["passed"]
    assert not ship.verdict(1, {"solo": mean(110.0)})["passed"]  # Rat Snacks not measured


def copy_checkpoint(name: str, folder: Path, **changes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(CHECKPOINTS / f"{name}.zip", folder / f"{name}.zip")
    meta = json.loads((CHECKPOINTS / f"{name}.json").read_text())
    (folder / f"{name}.json").write_text(json.dumps(dict(meta, **changes)))
    return folder / f"{name}.zip"


def test_measuring_stores_every_count_keeps_the_rest_and_reproduces_its_figures(tmp_path):
    path = copy_checkpoint("snack_wars_v0", tmp_path, player_counts=[2, 3], note="trained by hand")
    quick = ["--games", "6", "--lookahead-games", "4", "--out", str(tmp_path)]
    ship.main([str(path), *quick])  # in its folder already: measured in place
    meta = json.loads(path.with_suffix(".json").read_text())
    shipped = json.loads((CHECKPOINTS / "snack_wars_v0.json").read_text())
    assert meta["note"] == "trained by hand" and meta["timesteps"] == shipped["timesteps"] and meta["player_counts"] == [2, 3]
    counts = meta["bar"]["counts"]
    assert list(counts) == ["2", "3"]
    for n, stored in counts.items():
        assert [stored[k]["games"] for k in ship.MATCHES] == [6, 6, 6, 4, 4]
        assert stored["verdict"] == ship.verdict(int(n), stored)

    readme = (tmp_path / "README.md").read_text()
    h = counts["3"]["vs_heuristic"]
    assert "### Snack Wars: `snack_wars_v0.zip`" in readme
    assert f"| 3 | agent vs 2 heuristic | 6 | {h['win_rate']:.3f} [{h['win_rate_ci95'][0]:.3f}," in readme
    assert "| heuristic vs 2 lookahead | 4 |" in readme
    assert "- `snack_wars_v0.zip`: trained by hand" in readme
    assert "yet: Snack Rabbits (2, 3, 4); Snack Time (1, 2, 3, 4); Snack Wars (4, 5); Speed Snacks (2)." in readme

    again = ship.measure_count(path, 3, games=6, look_games=4, log=lambda line: None)
    for key in ship.MATCHES:
        assert ship.figures(again[key]) == ship.figures(counts["3"][key]), key
    ship.main([str(path), "--players", "3", "--seed", "7", *quick])
    remeasured = json.loads(path.with_suffix(".json").read_text())["bar"]["counts"]
    assert remeasured["2"] == counts["2"] and remeasured["3"]["seed"] == 7  # only 3 players measured again


def test_counts_measured_side_by_side_give_the_figures_measured_one_after_another(tmp_path):
    path = copy_checkpoint("snack_wars_v0", tmp_path, player_counts=[2, 3])
    quiet = dict(games=6, look_games=4, log=lambda line: None)
    apart = ship.measure(path, [2, 3], jobs=2, **quiet)["counts"]
    together = ship.measure(path, [2, 3], **quiet)["counts"]
    assert list(apart) == ["2", "3"]
    for n in ("2", "3"):
        for key in ship.MATCHES:
            assert ship.figures(apart[n][key]) == ship.figures(together[n][key]), (n, key)


def test_a_run_is_published_only_when_it_clears_the_bar_or_by_force(tmp_path, capsys):
    stages = [{"checkpoint": "stage1/final.zip", "recipe": "configs/snack_wars_v0.yaml", "stage": 1, "timesteps": 8},
              {"checkpoint": "checkpoints/snack_wars_v0.zip", "commit": "1514dbf", "timesteps": 9}]
    copied = copy_checkpoint("snack_wars_v0", tmp_path / "run", player_counts=[2], lineage=stages)
    run = copied.with_name("final.zip")
    copied.rename(run)
    copied.with_suffix(".json").rename(run.with_suffix(".json"))
    out = tmp_path / "published"
    quick = [str(run), "--games", "4", "--lookahead-games", "2", "--out", str(out)]
    ship.main(quick)  # it plays 2 of the game's 2-5 players: published beside the game's checkpoint, as _2p
    assert "bar missed: not published" in capsys.readouterr().out and not (out / "snack_wars_v0_2p.zip").exists()
    kept = json.loads(run.with_suffix(".bar.json").read_text())  # the figures of the missed bar stay by the run
    assert not kept["passed"] and set(kept["counts"]) == {"2"} and kept["counts"]["2"]["vs_heuristic"]["games"] == 4
    run.with_suffix(".bar.json").unlink()
    ship.main([*quick, "--force", "--dry-run"])
    assert not out.exists() and not run.with_suffix(".bar.json").exists()
    (run.parent / "config.json").write_text(json.dumps({"env": {"num_players": 2}}))
    (run.parent / "eval.csv").write_text("timesteps,opponent,win_rate,win_rate_ci95_low,win_rate_ci95_high,mean_score,"
                                         "unfinished\n100,heuristic,0.25,0.1,0.4,3.0,0\n")
    ship.main([*quick, "--force"])
    meta = json.loads((out / "snack_wars_v0_2p.json").read_text())
    assert (out / "snack_wars_v0_2p.zip").read_bytes() == run.read_bytes() and not meta["bar"]["passed"]
    # a recipe's stage is named by the recipe and the stage, not by its path in the run's folder; a checkpoint
    # in the repository stays named
    assert meta["lineage"] == [{k: v for k, v in stages[0].items() if k != "checkpoint"}, stages[1]]
    assert "**not cleared**: vs heuristic: lower bound" in (out / "README.md").read_text()
    stored = meta["bar"]["counts"]["2"]  # named as published, so that a re-measure there gives the same figures
    again = ship.measure_count(out / "snack_wars_v0_2p.zip", 2, games=4, look_games=2, log=lambda line: None)
    assert {stored[key]["hero"] for key in ship.MATCHES if key.startswith("vs_")} == {"snack_wars_v0_2p"}
    for key in ship.MATCHES:
        assert ship.figures(again[key]) == ship.figures(stored[key]), key
    curve = (out / "snack_wars_v0_2p.curve.csv").read_text()  # the run's learning curve, published beside it
    assert ",heuristic,2," in curve and "0.25" in curve and (out / "snack_wars_v0_2p.curve.png").is_file()


def test_the_readme_shows_snack_times_solo_rows_with_their_ranks(tmp_path):
    meta = json.loads((CHECKPOINTS / "snack_time_v0.json").read_text())
    rows = {}
    for rat in (False, True):
        measured = solo("snack_time_v0", "heuristic", 20, seed=0, rat_snacks=rat)
        suffix = "_rat_snacks" if rat else ""
        rows["solo" + suffix] = rows["heuristic_solo" + suffix] = measured
    meta["player_counts"] = [1, 2]
    meta["bar"] = {"counts": {"1": dict(rows, verdict=ship.verdict(1, rows))}}
    (tmp_path / "snack_time_v0.json").write_text(json.dumps(meta))
    readme = ship.write_readme(tmp_path).read_text()
    plain, rat = rows["solo"], rows["solo_rat_snacks"]
    shares = " | ".join(f"{100 * v / 20:.0f}%" for v in plain["ranks"].values())
    assert f"| agent | 20 | {plain['mean_score_ci95'][0]:.1f} [" in readme and f"] | {shares} | **not cleared**: solo" in readme
    assert f"| heuristic, Rat Snacks | 20 | {rat['mean_score_ci95'][0]:.1f} [" in readme
    assert "| solo | games | mean score [95% CI] | Near Perfect | Leaderboard |" in readme
    assert "| 2 | not measured |" in readme and "plays 1, 2 players" in readme


def test_a_checkpoint_for_one_of_several_counts_is_published_under_its_own_name():
    meta = {"env_name": "snack_wars_v0", "player_counts": [2]}
    assert ship.published_name(meta) == "snack_wars_v0_2p.zip"
    assert ship.published_name(dict(meta, player_counts=[2, 3, 4, 5])) == "snack_wars_v0.zip"
    assert ship.published_name({"env_name": "snack_time_v0", "player_counts": [1]}) == "snack_time_v0_solo.zip"
    assert ship.published_name({"env_name": "speed_snacks_v1", "player_counts": [2]}) == "speed_snacks_v1.zip"  # its only count


def test_a_solo_run_is_published_beside_the_games_checkpoint_which_it_leaves_alone(tmp_path):
    out = tmp_path / "published"
    multi = copy_checkpoint("snack_time_v0", out)  # the game's multi-player checkpoint, already published
    before = multi.read_bytes(), multi.with_suffix(".json").read_text()
    run = copy_checkpoint("snack_time_v0", tmp_path / "run", num_players=1, player_counts=[1])
    ship.main([str(run), "--games", "4", "--out", str(out), "--force"])
    published = out / "snack_time_v0_solo.zip"
    assert published.read_bytes() == run.read_bytes()
    assert (multi.read_bytes(), multi.with_suffix(".json").read_text()) == before
    stored = json.loads(published.with_suffix(".json").read_text())["bar"]["counts"]
    assert list(stored) == ["1"]
    assert [stored["1"][key]["player"] for key in ship.SOLOS] == ["snack_time_v0_solo", "heuristic"] * 2  # as re-measured
    ship.main([str(published), "--games", "4", "--seed", "5", "--out", str(out)])  # in --out already: measured in place
    assert (multi.read_bytes(), multi.with_suffix(".json").read_text()) == before
    assert json.loads(published.with_suffix(".json").read_text())["bar"]["counts"]["1"]["seed"] == 5
    assert "### Snack Time: `snack_time_v0_solo.zip`" in (out / "README.md").read_text()


def test_players_over_the_folder_measure_the_checkpoints_that_play_them_and_named_ones_are_checked_first(
        tmp_path, capsys, monkeypatch):
    out = tmp_path / "published"
    solo_path = copy_checkpoint("snack_time_v0", out, num_players=1, player_counts=[1])
    solo_path.rename(out / "snack_time_v0_solo.zip")
    out.joinpath("snack_time_v0.json").rename(out / "snack_time_v0_solo.json")
    wars = copy_checkpoint("snack_wars_v0", out, player_counts=[2, 3])
    ship.main(["--players", "3", "--games", "4", "--lookahead-games", "2", "--out", str(out), "--dry-run"])
    printed = capsys.readouterr().out
    assert "snack_time_v0_solo.zip: plays [1] players, none of [3]: left as it is" in printed
    assert f"{wars}, 3 players:" in printed and ", 2 players:" not in printed
    measured = []
    real = ship.measure_count
    monkeypatch.setattr(ship, "measure_count", lambda path, n, *rest: measured.append(n) or real(path, n, *rest))
    ship.main(["--players", "3", "3", "--games", "4", "--lookahead-games", "2", "--out", str(out), "--dry-run"])
    assert measured == [3]  # a count named twice is measured once
    monkeypatch.undo()
    capsys.readouterr()
    with pytest.raises(SystemExit) as stop:  # named: refused before anything is measured
        ship.main([str(wars), str(out / "snack_time_v0_solo.zip"), "--players", "3", "--games", "4", "--out", str(out)])
    assert stop.value.code == 2
    assert "snack_time_v0_solo.zip plays [1] players, not [3]" in capsys.readouterr().err
    assert json.loads(wars.with_suffix(".json").read_text())["bar"] == json.loads(
        (CHECKPOINTS / "snack_wars_v0.json").read_text())["bar"]  # the first named was not measured either
