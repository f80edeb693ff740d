"""Cases found by a mutation probe of training/evaluate.py and training/ratings.py that no other test pinned:

- the Elo scale itself: a 400-point lead is 10:1 odds (the fit under a flat prior), and the worked example
  of the ratings module's docstring (150 wins to 50 over random: 1190.77 [1136.54, 1247.96]), and the prior's
  width, 1000 Elo points, which alone holds an unbeaten 4/4 (+719.70);
- head_to_head is a two-player match unless told otherwise;
- a tournament of 3 or more players rates its agents from the games played (there are no mirrors to fit);
- snack-eval's command line: 2 players unless told otherwise, --env is required (a one-line usage error naming it), --out may name a folder
  nested under folders that do not exist yet (made, parents too), and each file written is printed;
- the terminal table's layout: a blank line before the head-to-head matrix, whose columns stand apart by at
  least two spaces, each value right-aligned under its agent's name;
- the solo table ranks a mean score of exactly 0 below a positive one (and above an agent with none);
- the heatmap's figure is closed once saved (a long tournament series would otherwise hold every figure);
- snack-eval runs without tqdm installed (no progress bar);
- a fit that cannot converge raises, as the ratings module promises, instead of returning ratings;
- inputs that are not ratings' inputs are refused by name before fitting: places that are not game counts
  (negative, NaN, fewer than two), an agent not among the names, names repeated; no names give no ratings.
"""

from __future__ import annotations

import json
import math
import sys

import numpy as np
import pytest

pytest.importorskip("scipy")

from scipy.optimize import brentq  # noqa: E402

from snack_envs.training import evaluate  # noqa: E402
from snack_envs.training.ratings import fit_ratings, minimise  # noqa: E402
from tests.helpers import run_main  # noqa: E402
from tests.training.test_evaluate_probe import Named  # noqa: E402


def seat_zero_wins(env_name, policies, seed, watch=None, num_players=2, **env_kwargs):
    """A stand-in for play_game: seat 0 wins every game, scoring 2 to everyone else's 1."""
    return {"scores": [2.0] + [1.0] * (num_players - 1), "winners": [0], "finished": True}


def stand_in_games(monkeypatch) -> None:
    """snack-eval with named stand-in agents and scripted games (no env is played)."""
    monkeypatch.setattr(evaluate, "make_policy", lambda spec, env, n, seed=0: Named(spec))
    monkeypatch.setattr(evaluate, "play_game", seat_zero_wins)


# --- the Elo scale --------------------------------------------------------------------------------
def test_a_400_point_lead_is_ten_to_one_odds():
    """With a flat prior the fit is the maximum likelihood: 10 wins a loss is exactly 400 points (and 3:1 is
    400 log10 3), whatever the number of games."""
    for places, lead in [([1000, 100], 400.0), ([10, 1], 400.0), ([300, 100], 400 * 0.47712125471966244)]:
        r = fit_ratings(["a", "b"], [{"hero": "a", "villain": "b", "places": places}], anchor="b", prior_sd=1e9,
                        intervals=False)
        assert r["a"]["elo"] - r["b"]["elo"] == pytest.approx(lead, abs=1e-3)


def test_the_ratings_docstrings_worked_example():
    """150 wins to 50 over random, under the default weak prior: 1190.77 with the interval [1136.54, 1247.96]."""
    r = fit_ratings(["random", "heuristic"], [{"hero": "heuristic", "villain": "random", "places": [150, 50]}])
    assert r["random"] == {"elo": 1000.0, "elo_ci95": [1000.0, 1000.0]}
    assert r["heuristic"]["elo"] == pytest.approx(1190.77, abs=0.01)
    assert r["heuristic"]["elo_ci95"] == pytest.approx([1136.54, 1247.96], abs=0.01)


def test_an_unbeaten_four_of_four_is_held_by_a_prior_of_1000_elo_points():
    """Two agents, ratings r and -r by symmetry (natural units, x = 2r the lead): the mode solves
    4 sigmoid(-x) = P x / 2, P the prior's precision (ln 10 / 400 x 1000)^-2, written out here."""
    precision = (400 / math.log(10) / 1000.0) ** 2
    x = brentq(lambda v: 4 / (1 + math.exp(v)) - precision * v / 2, 0, 60, xtol=1e-14)
    r = fit_ratings(["a", "b"], [{"hero": "a", "villain": "b", "places": [4, 0]}], anchor="b", intervals=False)
    assert r["a"]["elo"] - 1000 == pytest.approx(400 / math.log(10) * x, abs=0.01)
    assert r["a"]["elo"] == pytest.approx(1719.70, abs=0.01)


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
def test_a_fit_that_cannot_converge_raises_instead_of_giving_ratings():
    """A posterior whose Newton step is undefined (its values no numbers) leaves the fit unconverged: an error."""

    def undefined(r):
        return math.nan, np.full(len(r), math.nan), np.eye(len(r))

    with pytest.raises(RuntimeError, match="the rating fit did not converge"):
        minimise(undefined, np.zeros(2))


@pytest.mark.parametrize("places", [[-5, 1], [math.nan, 1.0], [math.inf, 1], [3], [[1, 2]], []])
def test_places_that_are_not_game_counts_are_refused_by_name(places):
    """Negative counts once gave absurd ratings (about -27,000 for [-5, 1]) and NaN ones a failed fit; both
    are refused before fitting, naming the match, as is a result with fewer than two places."""
    with pytest.raises(ValueError, match=r"places .* of 'a' against 'b' are not game counts"):
        fit_ratings(["a", "b"], [{"hero": "a", "villain": "b", "places": places}])


def test_fit_elo_refuses_a_win_rate_that_is_no_number():
    with pytest.raises(ValueError, match="not game counts"):
        evaluate.fit_elo(["a", "b"], [{"hero": "a", "villain": "b", "win_rate": math.nan, "games": 4}])


def test_a_match_with_no_finished_game_adds_nothing():
    alone = fit_ratings(["a", "b"], [{"hero": "a", "villain": "b", "places": [3, 1]}])
    assert fit_ratings(["a", "b"], [{"hero": "a", "villain": "b", "places": [3, 1]},
                                    {"hero": "b", "villain": "a", "places": [0, 0]}]) == alone


def test_names_and_matches_that_do_not_fit_together_are_refused():
    assert fit_ratings([], []) == {}  # once a ZeroDivisionError
    with pytest.raises(ValueError, match="the match's villain 'c' is not one of the names"):
        fit_ratings(["a", "b"], [{"hero": "a", "villain": "c", "places": [1, 1]}])
    with pytest.raises(ValueError, match="the match's hero 'c' is not one of the names"):
        fit_ratings(["a", "b"], [{"hero": "c", "villain": "a", "places": [1, 1]}])
    with pytest.raises(ValueError, match="names are not distinct"):
        fit_ratings(["a", "a"], [])


def test_head_to_head_is_a_two_player_match_by_default(monkeypatch):
    seats = []

    def record(env_name, policies, seed, watch=None, num_players=2, **env_kwargs):
        seats.append([p.name for p in policies])
        return seat_zero_wins(env_name, policies, seed, num_players=num_players)

    monkeypatch.setattr(evaluate, "play_game", record)
    result = evaluate.head_to_head("snack_rabbits_v0", Named("h"), Named("v"), games=2)
    assert seats == [["h", "v"], ["v", "h"]]
    assert result["even"] == 0.5 and (result["wins"], result["losses"]) == (1, 1)


def test_a_three_player_tournament_rates_the_agents_from_its_games(monkeypatch):
    """The agents' ratings are fit_ratings of the tournament's matches (every ordered pair, no mirrors): equal
    when seat 0 wins every game (every agent sits there as often), and far apart when x wins every game."""
    monkeypatch.setattr(evaluate, "play_game", seat_zero_wins)
    results = evaluate.tournament("snack_wars_v0", {n: Named(n) for n in ("random", "x", "y")}, games=3, num_players=3)
    expected = fit_ratings(["random", "x", "y"], results["matches"])
    for name, agent in results["agents"].items():
        assert agent["elo"] == pytest.approx(expected[name]["elo"], abs=1e-6)
        assert agent["elo_ci95"] == pytest.approx(expected[name]["elo_ci95"], abs=1e-6)

    def x_wins(env_name, policies, seed, watch=None, num_players=2, **env_kwargs):
        names = [p.name for p in policies]
        winner = names.index("x") if "x" in names else 0
        return {"scores": [2.0 if s == winner else 1.0 for s in range(num_players)], "winners": [winner],
                "finished": True}

    monkeypatch.setattr(evaluate, "play_game", x_wins)
    results = evaluate.tournament("snack_wars_v0", {n: Named(n) for n in ("random", "x", "y")}, games=3, num_players=3)
    elo = {name: agent["elo"] for name, agent in results["agents"].items()}
    assert elo["x"] > elo["random"] + 100 and elo["x"] > elo["y"] + 100
    assert elo == pytest.approx({n: r["elo"] for n, r in fit_ratings(["random", "x", "y"], results["matches"]).items()})


# --- snack-eval's command line ------------------------------------------------------------------------
def test_snack_eval_without_env_is_a_usage_error_naming_it(monkeypatch, capsys):
    monkeypatch.setattr(evaluate, "tournament", lambda *a, **k: pytest.fail("the tournament started"))
    code, _, err = run_main(evaluate, ["--agents", "random", "heuristic", "--games", "1"], capsys)
    assert code == 2 and "Traceback" not in err
    assert err.startswith("snack-eval: error: ") and "--env" in err and err.count("\n") == 1


def test_snack_eval_makes_a_nested_out_folder_and_prints_each_file_it_wrote(monkeypatch, tmp_path, capsys):
    """--out results/rabbits where results/ does not exist yet: both made; the output names every file."""
    stand_in_games(monkeypatch)
    out = tmp_path / "results" / "rabbits"
    code, stdout, err = run_main(evaluate, ["--env", "snack_rabbits_v0", "--agents", "random", "heuristic",
                                            "--games", "2", "--out", str(out)], capsys)
    assert code == 0, err
    names = ("results.json", "results.csv", "head_to_head.png")
    assert sorted(p.name for p in out.iterdir()) == sorted(names)
    for name in names:
        assert f"wrote {out / name}" in stdout.splitlines()
    saved = json.loads((out / "results.json").read_text())
    assert (saved["games_per_pair"], saved["num_players"]) == (2, 2)  # two players by default
    assert "snack_rabbits_v0, 2 players, 2 games per pairing" in stdout


def test_snack_eval_alone_prints_each_file_it_wrote(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(evaluate, "make_policy", lambda spec, env, n, seed=0: Named(spec))
    monkeypatch.setattr(evaluate, "solo", lambda env, agent, games, seed: {
        "games": games, "unfinished": 0, "mean_score_ci95": [1.0, 0.5, 1.5], "ranks": {"low": games}})
    out = tmp_path / "new" / "solo"
    code, stdout, err = run_main(evaluate, ["--env", "snack_time_v0", "--num-players", "1", "--agents", "a", "b",
                                            "--games", "2", "--out", str(out)], capsys)
    assert code == 0, err
    assert [line for line in stdout.splitlines() if line.startswith("wrote")] == \
        [f"wrote {out / 'results.json'}", f"wrote {out / 'results.csv'}"]


# --- the table and the heatmap ----------------------------------------------------------------------------
def long_named_tournament(monkeypatch) -> dict:
    monkeypatch.setattr(evaluate, "play_game", seat_zero_wins)
    specs_ = ["random", "checkpoints/snack_rabbits_v0.zip", "runs/a_rather_long_name/final.zip"]
    return evaluate.tournament("snack_rabbits_v0", {s: Named(s) for s in specs_}, games=2)


def test_the_matrix_stands_apart_from_the_ranking_and_its_columns_from_each_other(monkeypatch):
    """A blank line ends the ranking; in the matrix each column is right-aligned under its agent's name, and
    neighbouring names (the longest included) stand at least two spaces apart."""
    results = long_named_tournament(monkeypatch)
    lines = evaluate.format_table(results).splitlines()
    title = next(k for k, line in enumerate(lines) if line.startswith("head to head"))
    assert lines[title - 1] == "" and lines[title - 2].split()[0] in {"random", "snack_rabbits_v0", "final"}
    header, rows = lines[title + 1], lines[title + 2:]
    names = [a["name"] for a in results["agents"].values()]
    assert header.split() == names
    ends = [header.index(n) + len(n) for n in names]
    starts = [header.index(n) for n in names]
    assert all(start - end >= 2 for end, start in zip(ends, starts[1:]))
    for row in rows:
        cells = row.split()[1:]
        assert [row.rindex(c, 0, end) + len(c) for c, end in zip(cells, ends)] == ends


def test_the_heatmap_figure_is_closed_once_saved(monkeypatch, tmp_path):
    import matplotlib.pyplot as plt

    results = long_named_tournament(monkeypatch)
    before = set(plt.get_fignums())
    evaluate.write_outputs(results, tmp_path)
    assert (tmp_path / "head_to_head.png").stat().st_size > 0
    assert set(plt.get_fignums()) == before


def test_snack_eval_runs_without_tqdm(monkeypatch, capsys):
    """tqdm is optional: without it there is no progress bar, and the tournament and its table are the same."""
    stand_in_games(monkeypatch)
    monkeypatch.setitem(sys.modules, "tqdm", None)  # `from tqdm import tqdm` raises ImportError
    code, stdout, err = run_main(evaluate, ["--env", "snack_rabbits_v0", "--agents", "random", "heuristic",
                                            "--games", "2"], capsys)
    assert code == 0, err
    assert "head to head" in stdout and "pairings" not in err


def test_the_solo_table_ranks_a_zero_mean_score_below_a_small_positive_one():
    """Best mean first: 0.5 before 0.0 (a mean of 0 is a figure, not a missing one), no finished game last."""
    def played(mean):
        interval = None if mean is None else [mean, mean - 0.25, mean + 0.25]
        return {"games": 4, "unfinished": 4 if mean is None else 0, "mean_score_ci95": interval, "ranks": {"low": 4}}

    results = {"env": "snack_time_v0", "num_players": 1, "games": 4, "seed": 0,
               "agents": {"zero": played(0.0), "none": played(None), "half": played(0.5), "less": played(-0.5)}}
    rows = evaluate.format_solo_table(results).splitlines()[4:]
    assert [row.split()[0] for row in rows] == ["half", "zero", "less", "none"]
    assert rows[1].split()[3] == "0.00"
