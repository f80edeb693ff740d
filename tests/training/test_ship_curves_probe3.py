"""Cases found by a fourth mutation probe of training/ship.py and training/curves.py: behaviour no other test
noticed breaking. They pin:

- snack-ship: the lookahead rows play the games that fit in the budget rounded *down* to a hundred, never
  more than fit; a budget under a second is still a positive number of seconds, and is taken; a count
  measured in a worker process (`--jobs`) uses one torch thread, plays the games, seed and budget it was
  given, and prints each line as it comes; a count's stored measuring time is the seconds it took; without
  the lookahead bot, measuring says that its rows are not measured; a verdict missing the heuristic's row
  counts it as not measured, so missed; a lower bound exactly at 1.2/n misses the bar and reads so; over
  the folder, a checkpoint that plays none of `--players` is left as it is (its metadata not rewritten); a
  run is published into an --out whose folders are not made yet; in the README, a checkpoint of solo and
  games has its solo count in the solo table alone, its rank shares of the finished games, and a solo
  one no (empty) games' table;
- snack-curves: the game of a recipe's run is its last stage's;
- the curve's PNG: each line's final evaluations are its larger points, and its 95% interval is shaded.

Like tests/training/test_ship_probe.py, no game is played and no policy is loaded (its helpers are reused)."""

from __future__ import annotations

import io
import json
import sys
from types import SimpleNamespace

import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("matplotlib")

from snack_envs.training import curves, ship  # noqa: E402
from tests.helpers import run_main  # noqa: E402
from tests.training.test_ship_curves_probe import curve_row, drawn  # noqa: E402
from tests.training.test_ship_probe import CLEARS, META, checkpoint, figures, stub, write  # noqa: E402


# --- snack-ship -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("budget_s, expected", [
    (495.0, 1900),   # 4 games a second: 1,980 fit, rounded down to 1,900
    (249.75, 900),   # 999 fit: 900, not the 1,000 that would not fit
])
def test_the_lookahead_games_are_rounded_down_never_past_what_fits(monkeypatch, budget_s, expected):
    monkeypatch.setattr(ship, "match", lambda env_name, n, hero, others, games, seed=0, **o:
                        {"games": games, "seconds": 1.0})
    assert ship.lookahead_games("snack_wars_v0", 2, 5000, budget_s, 1) == expected


def test_a_lookahead_budget_under_a_second_is_taken(tmp_path, monkeypatch, capsys):
    """--lookahead-budget must be a positive number of seconds: 0.5 is one, and goes to lookahead_games."""
    path = checkpoint(tmp_path)
    stub(monkeypatch, CLEARS)
    budgets = []
    monkeypatch.setattr(ship, "lookahead_games", lambda env, n, games, budget, seed, **o: budgets.append(budget) or 100)
    code, out, err = run_main(ship, [str(path), "--games", "200", "--lookahead-budget", "0.5", "--dry-run",
                                     "--out", str(tmp_path)], capsys)
    assert code == 0 and budgets == [0.5], err
    assert "2 players: cleared" in out


class Flushed(io.StringIO):
    """A stdout that keeps what had been written at each flush."""

    def __init__(self):
        super().__init__()
        self.at_flush = []

    def flush(self):
        self.at_flush.append(self.getvalue())
        super().flush()


def test_a_worker_uses_one_torch_thread_and_prints_each_line_as_it_comes(tmp_path, monkeypatch):
    """_measure_alone, what each process of `--jobs` runs: torch set to one thread (a worker is one core), the
    count measured with the games, solo games, seed, lookahead games and budget given in measure_count's order,
    and each line flushed when printed (a worker's stdout is no terminal: unflushed, the lines come at the end)."""
    import torch

    threads = []
    monkeypatch.setattr(torch, "set_num_threads", threads.append)
    arena = stub(monkeypatch, CLEARS)
    out = Flushed()
    monkeypatch.setattr(sys, "stdout", out)
    path = checkpoint(tmp_path)
    result = ship._measure_alone(path, 2, 10, 8, 3, 6, 60.0)
    assert threads == [1]
    assert [(games, seed) for _, _, _, games, seed in arena.calls] == [(10, 3)] * 3 + [(6, 3)] * 2
    assert result["seed"] == 3 and result["verdict"]["passed"] is True
    lines = out.getvalue().splitlines()
    assert len(lines) == 5 and all(line.startswith("  2 players ") for line in lines), lines
    assert {text.count("\n") for text in out.at_flush} >= {1, 2, 3, 4, 5}, out.at_flush  # flushed line by line


def test_a_counts_measuring_time_is_the_seconds_it_took(tmp_path, monkeypatch):
    """measure_count stores `measured_in_s`: the seconds from its start to its end (here 12.3, by a stand-in
    clock), not a reading of the clock."""
    clock = iter([1000.0, 1012.3])
    monkeypatch.setattr(ship, "time", SimpleNamespace(perf_counter=lambda: next(clock)))
    stub(monkeypatch, CLEARS)
    result = ship.measure_count(checkpoint(tmp_path), 2, games=10, look_games=6, log=lambda line: None)
    assert result["measured_in_s"] == pytest.approx(12.3, abs=0.05)


def test_without_the_lookahead_bot_measuring_says_its_rows_are_not_measured(tmp_path, monkeypatch):
    stub(monkeypatch, CLEARS, lookahead=False)
    lines = []
    rows = ship.measure_count(checkpoint(tmp_path), 2, games=10, log=lines.append)
    assert "vs_lookahead" not in rows
    assert "  2 players: no lookahead bot (snack_envs.lookahead) here: its rows are not measured" in lines


def test_a_verdict_without_the_heuristics_row_misses_it_as_not_measured():
    """verdict: a check not measured counts as missed, the heuristic's as much as the others."""
    perfect = {"win_rate": 1.0, "win_rate_ci95": [0.98, 1.0], "finished": 200}
    rows = {key: perfect for key in ship.MATCHES if key != "vs_heuristic"}
    found = ship.verdict(2, rows)
    assert found["checks"][0] == {"check": "vs heuristic", "passed": None, "figure": "not measured"}
    assert found["passed"] is False and [c["passed"] for c in found["checks"][1:]] == [True, True]


def test_a_lower_bound_exactly_at_the_bar_is_not_above_it_and_reads_so():
    """Against the heuristic the lower bound must be *above* 1.2/n: exactly 0.6 at 2 players misses, and its
    figure says "<=", not ">" (a miss must not read as a pass)."""
    perfect = {"win_rate": 1.0, "win_rate_ci95": [0.98, 1.0], "finished": 200}
    rows = {key: perfect for key in ship.MATCHES}
    rows["vs_heuristic"] = {"win_rate": 0.65, "win_rate_ci95": [1.2 / 2, 0.7], "finished": 200}
    found = ship.verdict(2, rows)
    assert found["checks"][0] == {"check": "vs heuristic", "passed": False, "figure": "lower bound 0.600 <= 0.600"}
    assert found["passed"] is False


def test_a_checkpoint_that_plays_none_of_the_players_asked_is_left_as_it_is(tmp_path, monkeypatch, capsys):
    """`snack-ship --players 3` over a folder: a checkpoint of 2 players only is said to be left as it is, and
    is: its metadata file is not rewritten (no empty bar stored), while one of 2 and 3 players is measured at 3."""
    two = checkpoint(tmp_path, "a")
    both = checkpoint(tmp_path, "b", player_counts=[2, 3])
    before = two.with_suffix(".json").read_bytes()
    arena = stub(monkeypatch, CLEARS)
    code, out, err = run_main(ship, ["--players", "3", "--games", "10", "--lookahead-games", "6", "--out",
                                     str(tmp_path)], capsys)
    assert code == 0, err
    assert f"{two}: plays [2] players, none of [3]: left as it is" in out
    assert two.with_suffix(".json").read_bytes() == before
    assert {n for n, *_ in arena.calls} == {3}
    assert list(json.loads(both.with_suffix(".json").read_text())["bar"]["counts"]) == ["3"]


def test_a_run_is_published_into_folders_not_made_yet(tmp_path, monkeypatch, capsys):
    """`--out new/published` on a fresh tree: every missing folder is made, and the run is copied in."""
    run = checkpoint(tmp_path / "run", "final")
    out = tmp_path / "new" / "published"
    stub(monkeypatch, CLEARS)
    code, printed, err = run_main(ship, [str(run), "--games", "10", "--lookahead-games", "6", "--out", str(out)], capsys)
    assert code == 0, err
    assert f"published {out / 'snack_wars_v0_2p.zip'}" in printed
    assert (out / "snack_wars_v0_2p.zip").read_bytes() == run.read_bytes()


def test_a_solo_count_is_in_the_solo_table_alone_its_ranks_shares_of_the_finished_games():
    """Snack Time at 1 and 2 players, both measured: the games' table has the 2-player rows (every match, so no
    "lookahead rows not measured" line) and no row for 1 player, whose figures are the solo table's, its rank
    shares taken of the finished games (2 of 10 cut off: 4 of 8 is 50%); a solo checkpoint has the solo table
    alone (no empty games' table)."""
    ranks = [rank for _, rank in ship.SOLO_RANKS]
    counted = dict.fromkeys(ranks, 0) | {"Leaderboard": 4, "Very Impressive": 4}
    solo = {key: {"games": 10, "unfinished": 2, "mean_score_ci95": [110.0, 108.0, 112.0], "ranks": counted,
                  "player": "x"} for key in ship.SOLOS}
    rows = {key: figures(0.7, 0.65, 0.75, 10, "x", "heuristic") for key in ship.MATCHES}
    bar = {"counts": {"1": dict(solo, verdict=ship.verdict(1, solo), seed=1),
                      "2": dict(rows, verdict=ship.verdict(2, rows), seed=1)}}
    text = ship.checkpoint_section("t.zip", dict(META, env_name="snack_time_v0", player_counts=[1, 2], bar=bar))
    shares = " | ".join({"Leaderboard": "50%", "Very Impressive": "50%"}.get(r, "0%") for r in ranks)
    assert "| 2 | agent vs 1 heuristic | 10 | 0.700 [0.650, 0.750] |" in text
    assert f"| agent | 10 | 110.0 [108.0, 112.0] | {shares} | cleared |" in text
    assert "lookahead rows" not in text and "| 1 |" not in text and "not measured" not in text
    alone = ship.checkpoint_section("s.zip", dict(META, env_name="snack_time_v0", player_counts=[1],
                                                  bar={"counts": {"1": bar["counts"]["1"]}}))
    assert f"| agent | 10 | 110.0 [108.0, 112.0] | {shares} |" in alone
    assert "| players |" not in alone  # no empty games' table


# --- snack-curves -----------------------------------------------------------------------------------------------
def test_a_recipes_run_is_of_its_last_stages_game(tmp_path):
    """run_env_name of a recipe's run (stage1/, stage2/): the env its last stage trained, which the checkpoint
    it publishes is of."""
    write(tmp_path / "run" / "stage1" / "config.json", {"env": {"name": "speed_snacks_v1", "num_players": 2}})
    write(tmp_path / "run" / "stage2" / "config.json", {"env": {"name": "snack_wars_v0", "num_players": 2}})
    assert curves.run_env_name(tmp_path / "run") == "snack_wars_v0"


# --- the curve's PNG --------------------------------------------------------------------------------------------
def test_final_evaluations_are_the_larger_points_and_each_interval_is_shaded(monkeypatch, tmp_path):
    """A solo line and a 2-player line over two stages: the scatter (the larger points) holds each panel's final
    evaluations and nothing else; the 2-player line's 95% interval is shaded from its lowest low (0.2) to its
    highest high (0.7) over its whole x range, in the line's colour, see-through."""
    from matplotlib.collections import PathCollection, PolyCollection
    from matplotlib.colors import to_rgb

    rows = [curve_row(100, 1, 100, 1, "solo", score=80.0), curve_row(200, 1, 200, 1, "solo", "final", score=90.0),
            curve_row(200, 1, 200, 1, "solo", score=85.0),
            curve_row(100, 1, 100, 2, "heuristic", rate=0.3), curve_row(200, 1, 200, 2, "heuristic", "final", 0.5),
            curve_row(200, 1, 200, 2, "heuristic", rate=0.4), curve_row(400, 2, 200, 2, "heuristic", "final", 0.6)]
    fig = drawn(monkeypatch, rows, tmp_path)
    solo, two = fig.axes

    def points(ax):
        return [c.get_offsets().tolist() for c in ax.collections if isinstance(c, PathCollection)]

    assert points(solo) == [[[200.0, 90.0]]]
    assert points(two) == [[[200.0, 0.5], [400.0, 0.6]]]
    (shade,) = [c for c in two.collections if isinstance(c, PolyCollection)]
    xs, ys = shade.get_paths()[0].vertices.T
    assert (min(xs), max(xs)) == (100, 400)
    assert (min(ys), max(ys)) == pytest.approx((0.2, 0.7))
    (line,) = [line for line in two.get_lines() if line.get_label() == "vs heuristic"]
    colour = shade.get_facecolor()[0]
    assert tuple(colour[:3]) == pytest.approx(to_rgb(line.get_color())) and 0 < colour[3] < 1
