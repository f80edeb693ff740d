"""Cases found by a second mutation probe of training/ship.py and training/curves.py: behaviour no other test
noticed breaking. They pin:

- snack-curves: a folder holding no training run is refused as such (not as a run without evaluations); a
  malformed eval.csv is a ConfigError naming the file and its line; `--note` without the checkpoint's
  metadata is refused before anything is written; the command prints each file it wrote;
- the curve's PNG: a panel per player count (one row of them), the solo panel drawing only the solo rows'
  mean scores on its own scale, the others the win share of each opponent, with the even share 1/n, the
  stage boundaries, the legends and the axis labels of each kind of panel, and the title naming the figure
  drawn (the figure is read back from matplotlib, not from the pixels);
- snack-ship: the file a run is published as for each kind of player counts; a count the checkpoint plays
  but has no figures for reads "not measured" in its table; a solo row with no finished game misses the
  bar; the noise of one finished game; a solo count's progress lines say "1 player"; the README's line of
  the player counts no checkpoint plays yet (issue 19's counts for Snack Time, every count the game seats
  for the others); write_readme takes a folder given as a string.

Like tests/training/test_ship_probe.py, no game is played and no policy is loaded (its helpers are reused)."""

from __future__ import annotations

import json
import math

import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("matplotlib")

from snack_envs.core.game import ConfigError  # noqa: E402
from snack_envs.training import curves, ship  # noqa: E402
from tests.helpers import run_main  # noqa: E402
from tests.training.test_ship_probe import CLEARS, HEADER, META, checkpoint, figures, stub, write  # noqa: E402


# --- snack-curves -----------------------------------------------------------------------------------------------
def test_a_folder_with_no_training_run_is_refused_as_such(tmp_path, capsys):
    """No config.json, final.json or latest.json: read_curve is a FileNotFoundError naming the folder, and
    snack-curves says there is no training run there (not that a run has no evaluation)."""
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match="no training run there") as raised:
        curves.read_curve(empty)
    assert raised.value.filename == str(empty)
    code, out, err = run_main(curves, [str(empty), str(tmp_path / "x.zip")], capsys)
    assert code == 2 and "no training run there" in err and str(empty) in err, err
    assert not (tmp_path / "x.curve.csv").exists() and not (tmp_path / "x.curve.png").exists()


def test_a_malformed_eval_csv_is_a_config_error_naming_the_file_and_line(tmp_path):
    """A cell that is no number on the csv's third line: a ConfigError with the file's path and the line."""
    run = tmp_path / "run"
    write(run / "config.json", {"env": {"name": "snack_wars_v0", "num_players": 2}})
    write(run / "eval.csv", HEADER + "100,heuristic,0.3,0.2,0.4,12,0\n200,heuristic,lots,0.2,0.4,12,0\n")
    with pytest.raises(ConfigError) as raised:
        curves.read_curve(run)
    assert f"{run / 'eval.csv'}, line 3: not a row of a run's evaluations (ValueError" in str(raised.value)


def test_snack_curves_prints_each_file_it_wrote(tmp_path, capsys):
    run = tmp_path / "run"
    write(run / "config.json", {"env": {"name": "snack_wars_v0", "num_players": 2}})
    write(run / "eval.csv", HEADER + "100,heuristic,0.3,0.2,0.4,12,0\n")
    code, out, err = run_main(curves, [str(run), str(tmp_path / "c.zip")], capsys)
    assert code == 0, err
    assert out.splitlines() == [f"wrote {tmp_path / 'c.curve.csv'}", f"wrote {tmp_path / 'c.curve.png'}"]


def test_a_note_without_the_checkpoints_metadata_is_refused_before_drawing(tmp_path, capsys):
    """`--note` is stored in the checkpoint's metadata: with no <name>.json there, exit status 2 and nothing
    written (no curve drawn first and a traceback after)."""
    run = tmp_path / "run"
    write(run / "config.json", {"env": {"name": "snack_wars_v0", "num_players": 2}})
    write(run / "eval.csv", HEADER + "100,heuristic,0.3,0.2,0.4,12,0\n")
    code, out, err = run_main(curves, [str(run), str(tmp_path / "c.zip"), "--note", "from run 7"], capsys)
    assert code == 2 and "--note needs the checkpoint's metadata" in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]


def curve_row(steps: int, stage: int, stage_steps: int, n: int, opponent: str, kind: str = "periodic",
              rate: float = math.nan, score: float = math.nan) -> dict:
    low, high = (rate - 0.1, rate + 0.1) if rate == rate else (math.nan, math.nan)
    return {"timesteps": steps, "stage": stage, "stage_timesteps": stage_steps, "opponent": opponent,
            "num_players": n, "even_share": 1 / n, "win_rate": rate, "win_rate_ci95_low": low,
            "win_rate_ci95_high": high, "mean_score": score, "unfinished": 0, "kind": kind}


def drawn(monkeypatch, rows, tmp_path):
    """curves.plot's figure, kept from plt.close: the axes as matplotlib holds them."""
    import matplotlib.pyplot as plt

    kept = []
    close = plt.close
    monkeypatch.setattr(plt, "close", lambda fig=None: (kept.append(fig), close(fig))[1])
    path = curves.plot(rows, tmp_path / "c.png", "the title")
    assert path.is_file() and path.read_bytes().startswith(b"\x89PNG") and len(kept) == 1
    return kept[0]


def lines_of(ax) -> dict:
    return {line.get_label(): (list(line.get_xdata()), list(line.get_ydata()), line.get_linestyle())
            for line in ax.get_lines()}


def test_the_curve_has_a_solo_panel_of_mean_scores_and_a_panel_of_win_shares_per_count(monkeypatch, tmp_path):
    """Rows at 1 and 2 players over two stages (stage 2 starting at 300): the solo panel draws only the solo
    rows' mean scores, the final evaluation after the periodic one at the same step, up to 1.1 x the highest;
    the 2-player panel the win share against each opponent, the even share 0.5 dashed, up to 1; both mark the
    stage boundary dotted; the y labels are "mean score" and "win share (ties split)"."""
    rows = [curve_row(100, 1, 100, 1, "solo", score=80.0), curve_row(100, 1, 100, 2, "heuristic", rate=0.3),
            curve_row(300, 1, 300, 1, "solo", "final", score=95.0), curve_row(300, 1, 300, 2, "heuristic", "final", 0.4),
            curve_row(300, 1, 300, 1, "solo", score=90.0), curve_row(300, 1, 300, 2, "heuristic", rate=0.35),
            curve_row(300, 1, 300, 2, "random", rate=0.8),
            curve_row(500, 2, 200, 1, "solo", score=100.0), curve_row(500, 2, 200, 2, "heuristic", rate=0.5)]
    fig = drawn(monkeypatch, rows, tmp_path)
    solo, two = fig.axes[:2]
    assert len(fig.axes) == 2 and fig._suptitle.get_text() == "the title"
    assert (solo.get_title(), two.get_title()) == ("solo", "2 players")
    assert (solo.get_ylabel(), two.get_ylabel()) == ("mean score", "win share (ties split)")
    assert solo.get_xlabel() == two.get_xlabel() == "timesteps (whole lineage)"
    assert solo.get_ylim() == pytest.approx((0, 110.0)) and two.get_ylim() == (0, 1)
    got = lines_of(solo)
    assert got["mean score"][:2] == ([100, 300, 300, 500], [80.0, 90.0, 95.0, 100.0])
    assert "even share 1/2" not in got and "vs heuristic" not in got
    got = lines_of(two)
    assert got["vs heuristic"][:2] == ([100, 300, 300, 500], [0.3, 0.35, 0.4, 0.5])
    assert got["vs random"][:2] == ([300], [0.8])
    assert got["even share 1/2"][1] == [0.5, 0.5] and got["even share 1/2"][2] == "--"
    assert "mean score" not in got
    assert [t.get_text() for t in two.get_legend().get_texts()] == ["vs heuristic", "vs random", "even share 1/2"]
    assert [t.get_text() for t in solo.get_legend().get_texts()] == ["mean score"]
    for ax in (solo, two):
        dotted = [line for line in ax.get_lines() if line.get_linestyle() == ":"]
        assert [list(line.get_xdata()) for line in dotted] == [[300, 300]]


def test_a_solo_only_curve_is_drawn_and_a_games_only_curve_has_its_win_share_label(monkeypatch, tmp_path):
    """A run of Snack Time solo alone (no panel of win shares) still draws its curve; one of 3 players alone
    labels its one panel with the win share and draws the even share 1/3."""
    fig = drawn(monkeypatch, [curve_row(100, 1, 100, 1, "solo", score=50.0)], tmp_path)
    assert [ax.get_title() for ax in fig.axes] == ["solo"] and fig.axes[0].get_ylabel() == "mean score"
    fig = drawn(monkeypatch, [curve_row(100, 1, 100, 3, "heuristic", rate=0.3)], tmp_path)
    (ax,) = fig.axes
    assert (ax.get_title(), ax.get_ylabel()) == ("3 players", "win share (ties split)")
    assert lines_of(ax)["even share 1/3"][1] == pytest.approx([1 / 3, 1 / 3])


def test_a_curves_title_names_the_figure_it_draws(monkeypatch, tmp_path):
    """export_curve's title: "<checkpoint>: win share over training (<run>)" for a run of the games, "mean score"
    for a run of Snack Time solo alone."""
    import matplotlib.pyplot as plt

    titles = []
    close = plt.close
    monkeypatch.setattr(plt, "close", lambda fig=None: (titles.append(fig._suptitle.get_text()), close(fig))[1])
    games, alone = tmp_path / "games", tmp_path / "alone"
    write(games / "config.json", {"env": {"name": "snack_wars_v0", "num_players": 2}})
    write(games / "eval.csv", HEADER + "100,heuristic,0.3,0.2,0.4,12,0\n")
    write(alone / "config.json", {"env": {"name": "snack_time_v0", "num_players": 1}})
    write(alone / "eval.csv", HEADER + "100,solo,,,,55.5,0\n")
    curves.export_curve(games, tmp_path / "g.zip")
    curves.export_curve(alone, tmp_path / "s.zip")
    assert titles == ["g.zip: win share over training (games)", "s.zip: mean score over training (alone)"]


# --- snack-ship -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("env_name, counts, name", [
    ("snack_wars_v0", [2, 3, 4, 5], "snack_wars_v0.zip"),   # every count: the game's checkpoint
    ("snack_wars_v0", [2, 3], "snack_wars_v0.zip"),         # several counts, not every one: still the game's
    ("speed_snacks_v1", [2], "speed_snacks_v1.zip"),       # the one count a 2-player game seats
    ("snack_wars_v0", [3], "snack_wars_v0_3p.zip"),         # one of several counts
    ("snack_time_v0", [1], "snack_time_v0_solo.zip"),       # solo only
    ("snack_time_v0", [1, 2], "snack_time_v0.zip"),
])
def test_the_name_a_run_is_published_as(env_name, counts, name):
    assert ship.published_name(dict(META, env_name=env_name, player_counts=counts)) == name


def test_a_run_of_several_counts_is_published_as_the_games_checkpoint(tmp_path, monkeypatch, capsys):
    """A run of Snack Wars at 2 and 3 players that clears the bar: copied into --out as snack_wars_v0.zip, the
    README holding its table."""
    run = checkpoint(tmp_path / "run", "final", player_counts=[2, 3])
    out = tmp_path / "published"
    stub(monkeypatch, CLEARS)
    ship.main([str(run), "--games", "10", "--lookahead-games", "6", "--out", str(out)])
    assert f"published {out / 'snack_wars_v0.zip'}" in capsys.readouterr().out
    assert sorted(p.name for p in out.iterdir()) == ["README.md", "snack_wars_v0.json", "snack_wars_v0.zip"]
    assert "### Snack Wars: `snack_wars_v0.zip`" in (out / "README.md").read_text()


def test_a_count_played_but_not_measured_reads_not_measured_in_the_table():
    """A checkpoint of 2 and 3 players with figures for 2 only: 3's row says "not measured", 2's rows are shown."""
    rows = {key: figures(0.7, 0.65, 0.75, 10, "x", "heuristic") for key in ship.MATCHES}
    two = dict(rows, verdict=ship.verdict(2, rows), seed=1)
    text = ship.checkpoint_section("x.zip", dict(META, player_counts=[2, 3], bar={"counts": {"2": two}}))
    assert "| 3 | not measured | | | | | |" in text
    assert "| 2 | agent vs 1 heuristic | 10 | 0.700 [0.650, 0.750] |" in text and "| cleared |" in text


def test_a_solo_row_with_no_finished_game_misses_the_bar():
    """No solo game finished (no mean score): that check is missed with "no game finished", so the count is not
    passed even though the Rat Snacks row clears 107."""
    found = ship.verdict(1, {"solo": {"mean_score_ci95": None}, "solo_rat_snacks": {"mean_score_ci95": [110.0, 108.0, 112.0]}})
    assert found["passed"] is False
    assert found["checks"] == [{"check": "solo", "passed": False, "figure": "no game finished"},
                               {"check": "solo with Rat Snacks", "passed": True, "figure": "mean score 110.0 >= 107"}]


def test_the_noise_of_a_single_finished_game_is_its_full_variance():
    """not_weaker divides each share's variance by its finished games: one finished game each (--games 1) is
    p (1 - p) / 1, so 0.5 against 0.5 has a floor of 0.5 - z x sqrt(0.25 + 0.25)."""
    passed, floor = ship.not_weaker({"win_rate": 0.5, "finished": 1}, {"win_rate": 0.5, "finished": 1})
    assert passed is True and floor == pytest.approx(0.5 - 1.959964 * math.sqrt(0.5), abs=1e-6)


def test_a_solo_counts_lines_say_1_player(tmp_path, monkeypatch):
    """measure_count's lines for Snack Time solo read "1 player" (singular), each row with its games, mean and speed."""
    def fake_solo(env_name, player, games, seed=0, **options):
        return {"games": games, "unfinished": 0, "mean_score_ci95": [104.0, 101.0, 107.0], "ranks": {},
                "player": player, "seconds": 0.1, "games_per_s": 10.0}

    monkeypatch.setattr(ship, "solo", fake_solo)
    path = checkpoint(tmp_path, "t", env_name="snack_time_v0", num_players=1, player_counts=[1])
    lines = []
    ship.measure_count(path, 1, solo_games=8, log=lines.append)
    assert [line.split()[:4] for line in lines] == [["1", "player", key, "8"] for key in
                                                     ("solo", "heuristic_solo", "solo_rat_snacks",
                                                      "heuristic_solo_rat_snacks")]
    assert all(line.endswith("8 games  mean score 104.00  (10.0 games/s)") for line in lines), lines


GAMES_LACKING = "Snack Rabbits (2, 3, 4); Snack Time (1, 2, 3, 4); Snack Wars (2, 3, 4, 5); Speed Snacks (2)"


def test_the_readme_lists_the_player_counts_no_checkpoint_plays_yet(tmp_path):
    """Snack Time is wanted at 1 to 4 players (issue 19), every other game at every count it seats; a checkpoint
    that plays some of them leaves the rest listed, and one of every wanted count removes its game."""
    assert f"Player counts no checkpoint here plays yet: {GAMES_LACKING}." in ship.tables(tmp_path)
    write(tmp_path / "a.json", dict(META, player_counts=[2, 4]))
    write(tmp_path / "t.json", dict(META, env_name="snack_time_v0", player_counts=[1, 2, 3, 4]))
    assert ("Player counts no checkpoint here plays yet: Snack Rabbits (2, 3, 4); Snack Wars (3, 5); "
            "Speed Snacks (2).") in ship.tables(tmp_path)


def test_write_readme_takes_a_folder_given_as_a_string(tmp_path):
    write(tmp_path / "snack_wars_v0.json", META)
    path = ship.write_readme(str(tmp_path))
    assert path == tmp_path / "README.md" and "### Snack Wars: `snack_wars_v0.zip`" in path.read_text()
    assert json.loads((tmp_path / "snack_wars_v0.json").read_text()) == META
