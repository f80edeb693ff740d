"""snack-eval's ratings and table: a converged fit with intervals, 1/n as the even result with n players,
unfinished games in their own column, short unique agent names, and eval.csv's header row."""

from __future__ import annotations

import csv
import json
import math

import numpy as np
import pytest

pytest.importorskip("scipy")

from scipy.optimize import brentq  # noqa: E402

from snack_envs.agents import RandomPolicy  # noqa: E402
from snack_envs.training import evaluate  # noqa: E402
from snack_envs.training.ratings import ELO, PRIOR_SD, display_names, fit_ratings, place_block  # noqa: E402


def duel(wins: float, losses: float, ties: float = 0.0) -> dict:
    """`a`'s rating over `b` (anchored at 1000) from a two-player record, with its 95% interval."""
    r = fit_ratings(["a", "b"], [{"hero": "a", "villain": "b", "places": [wins + ties / 2, losses + ties / 2]}], anchor="b")
    assert r["b"] == {"elo": 1000.0, "elo_ci95": [1000.0, 1000.0]}
    lo, hi = r["a"]["elo_ci95"]
    return {"diff": r["a"]["elo"] - 1000, "ci": (lo - 1000, hi - 1000), "width": hi - lo}


def map_difference(wins: float, losses: float) -> float:
    """The posterior mode of r_a - r_b (Elo) for two agents, found independently: by symmetry r_a = -r_b = x/2
    (natural units), where wins * sigmoid(-x) - losses * sigmoid(x) = precision * x / 2."""
    precision = (ELO / PRIOR_SD) ** 2

    def sig(x):
        return 1 / (1 + math.exp(-x))

    def score(x):
        return wins * sig(-x) - losses * sig(x) - precision * x / 2

    return ELO * brentq(score, -60, 60, xtol=1e-14)


# --- the fit -----------------------------------------------------------------------------------
def test_unbeaten_records_converge_to_finite_ratings_that_grow_with_the_games():
    """The old fixed-iteration loop gave +902 for 4/4 and for 2000/2000 alike."""
    few, many = duel(4, 0), duel(2000, 0)
    assert math.isfinite(few["diff"]) and math.isfinite(many["diff"])
    assert many["diff"] > few["diff"] + 100
    assert few["diff"] == pytest.approx(map_difference(4, 0), abs=1e-3)  # the optimum itself, not a stop short of it
    assert many["diff"] == pytest.approx(map_difference(2000, 0), abs=1e-3)
    assert 0 < many["width"] < few["width"]  # neither collapses to a point (as a bootstrap of 4/4 would)
    assert few["ci"][0] < few["diff"] < few["ci"][1] and many["ci"][0] < many["diff"] < many["ci"][1]


@pytest.mark.parametrize("wins, losses", [(99, 1), (990, 10), (9900, 100), (3, 1), (150, 50)])
def test_the_fit_is_the_optimum_of_the_logistic_model(wins, losses):
    assert duel(wins, losses)["diff"] == pytest.approx(map_difference(wins, losses), abs=1e-3)


def test_a_99_percent_win_rate_is_about_798_elo():
    logistic = 400 * math.log10(99)  # 798.2: P(win) = 1 / (1 + 10^(-d/400)) = 0.99
    assert duel(9900, 100)["diff"] == pytest.approx(logistic, abs=2)  # the weak prior moves it under 1 point
    assert duel(150, 50)["diff"] == pytest.approx(400 * math.log10(3), abs=1)


def test_the_fit_converges_with_a_hundred_thousand_games_a_pairing():
    """Rounding in a value summed over so many games stops the line search short (all ratings moving
    together, held only by the prior); the fit still ends at the optimum, or raises."""
    rng = np.random.default_rng(0)
    names = ["random", "a", "b"]
    matches = [{"hero": h, "villain": v, "places": list(rng.multinomial(100_000, rng.dirichlet(np.ones(4))))}
               for h in names for v in names if h != v]
    r = fit_ratings(names, matches)
    for v in r.values():
        assert v["elo_ci95"][0] <= v["elo"] <= v["elo_ci95"][1] and v["elo_ci95"][1] - v["elo_ci95"][0] < 10


def test_even_results_give_equal_ratings_with_a_symmetric_interval():
    for record in [(100, 100), (0, 0, 40), (1, 1), (0, 0)]:
        d = duel(*record)
        assert d["diff"] == pytest.approx(0, abs=1e-6)
        assert d["ci"][0] == pytest.approx(-d["ci"][1], abs=1e-3)
    assert duel(100, 100)["width"] < duel(1, 1)["width"] < duel(0, 0)["width"]


def test_intervals_shrink_with_more_games():
    widths = [duel(0.6 * n, 0.4 * n)["width"] for n in (50, 500, 5000)]
    assert widths[0] > widths[1] > widths[2]
    for wide, narrow in zip(widths, widths[1:]):  # about 1 / sqrt(games)
        assert wide / narrow == pytest.approx(math.sqrt(10), rel=0.15)


def test_without_random_the_mean_is_1500_and_every_rating_has_an_interval():
    matches = [{"hero": "x", "villain": "y", "places": [70, 30]}, {"hero": "y", "villain": "z", "places": [60, 40]}]
    r = fit_ratings(["x", "y", "z"], matches)
    assert np.mean([v["elo"] for v in r.values()]) == pytest.approx(1500)
    assert r["x"]["elo"] > r["y"]["elo"] > r["z"]["elo"]
    for v in r.values():
        assert v["elo_ci95"][0] < v["elo"] < v["elo_ci95"][1]


# --- n players: the even result is 1/n, ratings from the whole finishing order ----------------------
def test_with_three_players_the_even_result_is_one_third():
    def hero_over_copies(places):
        r = fit_ratings(["hero", "villain"], [{"hero": "hero", "villain": "villain", "places": places}], anchor="villain")
        return r["hero"]["elo"] - 1000

    assert hero_over_copies([300, 300, 300]) == pytest.approx(0, abs=1e-6)  # 1/3 of the wins: even
    assert hero_over_copies([450, 225, 225]) > 50  # half the wins: well above even (0.5 was the old "even")
    assert hero_over_copies([200, 350, 350]) < -30
    # the whole order counts: the same wins, second rather than last otherwise, rate higher
    assert hero_over_copies([300, 600, 0]) > hero_over_copies([300, 300, 300]) > hero_over_copies([300, 0, 600])


def test_finishing_places_winners_first_then_by_score():
    assert place_block(0, [10, 5, 7], [0]) == (1, 1)
    assert place_block(1, [10, 5, 7], [0]) == (3, 3)
    assert place_block(2, [10, 5, 7], [0]) == (2, 2)
    assert place_block(0, [8, 8, 1], [0, 1]) == (1, 2)  # a shared win
    assert place_block(1, [8, 8, 1], [0]) == (2, 2)  # equal score, lost the tie-break
    assert place_block(2, [3, 3, 3], [0, 1, 2]) == (1, 3)


def scripted_games(monkeypatch, outcomes):
    """Replace play_game with one that returns `outcomes` in turn: ("win"/"lose"/"all tie"/"cut", hero score)."""
    calls = iter(range(10**6))

    def fake_play_game(env_name, policies, seed, watch=None, num_players=2, **env_kwargs):
        kind, score = outcomes[next(calls) % len(outcomes)]
        hero = seed % num_players  # head_to_head's hero seat for game g = seed (seed 0)
        if kind == "cut":
            return {"scores": [0.0] * num_players, "winners": list(range(num_players)), "finished": False}
        others = [s for s in range(num_players) if s != hero]
        scores = [1.0] * num_players
        scores[hero] = score
        winners = {"win": [hero], "lose": others[:1], "all tie": list(range(num_players))}[kind]
        return {"scores": scores, "winners": winners, "finished": True}

    monkeypatch.setattr(evaluate, "play_game", fake_play_game)


def test_head_to_head_with_three_players_counts_a_three_way_tie_as_one_third(monkeypatch):
    scripted_games(monkeypatch, [("all tie", 1.0), ("win", 9.0), ("lose", 0.0)])
    r = evaluate.head_to_head("snack_wars_v0", RandomPolicy(0), RandomPolicy(1), games=300, num_players=3)
    assert r["even"] == pytest.approx(1 / 3) and r["unfinished"] == 0
    assert (r["wins"], r["ties"], r["losses"]) == (100, 100, 100)
    assert r["win_rate"] == pytest.approx((100 + 100 / 3) / 300)  # the old code counted the 3-way tie as 1/2
    assert r["places"] == pytest.approx([100 + 100 / 3, 100 / 3, 100 + 100 / 3])


def test_the_table_says_the_even_result_with_three_players(monkeypatch):
    scripted_games(monkeypatch, [("all tie", 1.0)])
    results = evaluate.tournament("snack_wars_v0", {"random": RandomPolicy(0), "other": RandomPolicy(1)}, games=30,
                                  num_players=3)
    assert results["even"] == pytest.approx(1 / 3)
    assert all(a["win_rate"] == pytest.approx(1 / 3) for a in results["agents"].values())
    assert results["agents"]["other"]["elo"] == pytest.approx(1000, abs=1e-6)
    table = evaluate.format_table(results)
    assert "even result 1/3" in table and "(even 1/3)" in table and "1/2" not in table


# --- unfinished games ------------------------------------------------------------------------------
def test_unfinished_games_have_their_own_column_and_stay_out_of_the_means(monkeypatch, tmp_path):
    scripted_games(monkeypatch, [("win", 10.0), ("cut", 0.0), ("lose", 4.0), ("cut", 0.0)])
    r = evaluate.head_to_head("snack_rabbits_v0", RandomPolicy(0), RandomPolicy(1), games=40)
    assert (r["games"], r["finished"], r["unfinished"]) == (40, 20, 20)
    assert (r["wins"], r["ties"], r["losses"]) == (10, 0, 10)
    assert r["win_rate"] == pytest.approx(0.5)  # not pulled toward 1/2 by 20 "ties", not diluted by 0s
    assert r["hero_mean_score_ci95"][0] == pytest.approx(7.0)  # (10 + 4) / 2, the cut games' 0s left out
    assert r["villain_mean_score_ci95"][0] == pytest.approx(1.0)
    assert sum(r["places"]) == pytest.approx(20)

    results = evaluate.tournament("snack_rabbits_v0", {"random": RandomPolicy(0), "other": RandomPolicy(1)}, games=40)
    agent = results["agents"]["random"]
    assert agent["unfinished"] == 20 and agent["mean_score"] == pytest.approx(7.0)
    table = evaluate.format_table(results).splitlines()
    header = next(line for line in table if line.startswith("agent"))
    row = next(line for line in table if line.startswith("random "))
    assert "unfinished" in header.split() and row.split()[2:5] == ["anchor", "40", "20"]  # anchor, games, unfinished
    json.loads((evaluate.write_outputs(results, tmp_path)[0]).read_text(),
               parse_constant=lambda c: pytest.fail(f"results.json holds {c}"))
    with (tmp_path / "results.csv").open() as f:
        assert {row["unfinished"] for row in csv.DictReader(f)} == {"20"}


def test_when_no_game_finishes_nothing_is_made_up(monkeypatch):
    scripted_games(monkeypatch, [("cut", 0.0)])
    results = evaluate.tournament("snack_rabbits_v0", {"random": RandomPolicy(0), "other": RandomPolicy(1)}, games=4)
    agent = results["agents"]["other"]
    assert agent["unfinished"] == 4 and agent["mean_score"] is None and agent["win_rate_ci95"] == [0.0, 1.0]
    assert agent["elo"] == pytest.approx(1000)
    row = next(line for line in evaluate.format_table(results).splitlines() if line.startswith("other "))
    assert row.split()[-1] == "-"  # no mean score


# --- names ---------------------------------------------------------------------------------------
def test_agent_names_are_short_unique_and_readable():
    names = display_names(["random", "heuristic", "checkpoints/snack_rabbits_v0.zip", "runs/a/final.zip",
                           "runs/b/final.zip", "old/runs/a/final.zip", "final.zip", "./final.zip"])
    assert names["random"] == "random" and names["heuristic"] == "heuristic"
    assert names["checkpoints/snack_rabbits_v0.zip"] == "snack_rabbits_v0"
    assert names["runs/b/final.zip"] == "b/final"
    assert names["runs/a/final.zip"] == "runs/a/final" and names["old/runs/a/final.zip"] == "old/runs/a/final"
    assert len(set(names.values())) == len(names)
    assert display_names(["runs/a/final.zip", "runs/b/final.zip"]) == {"runs/a/final.zip": "a/final",
                                                                        "runs/b/final.zip": "b/final"}


def test_the_table_shows_each_agent_whole_and_apart(monkeypatch):
    scripted_games(monkeypatch, [("win", 1.0), ("lose", 0.0)])
    specs_ = ["random", "checkpoints/snack_rabbits_v0.zip", "runs/a/final.zip", "runs/b/final.zip"]
    results = evaluate.tournament("snack_rabbits_v0", {s: RandomPolicy(i) for i, s in enumerate(specs_)}, games=4)
    table = evaluate.format_table(results)
    matrix = table.split("head to head")[1].splitlines()[2:]
    assert [line.split()[0] for line in matrix] == ["random", "snack_rabbits_v0", "a/final", "b/final"]
    assert "nts/" not in table and "final" not in table.split()
    assert {a["name"] for a in results["agents"].values()} == {"random", "snack_rabbits_v0", "a/final", "b/final"}
    assert set(results["agents"]) == set(specs_)  # results.json keeps the full specs


# --- eval.csv --------------------------------------------------------------------------------------
def test_eval_csv_has_one_header_row(tmp_path):
    from snack_envs.training.run import write_eval

    result = {"win_rate": 0.25, "win_rate_ci95": [0.1, 0.5], "hero_mean_score_ci95": [3.0, 2.0, 4.0], "unfinished": 1}
    write_eval(tmp_path, 512, {"random": result, "heuristic": result}, lambda tag, value: None)
    write_eval(tmp_path, 1024, {"random": result}, lambda tag, value: None)
    with (tmp_path / "eval.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [(r["timesteps"], r["opponent"]) for r in rows] == [("512", "random"), ("512", "heuristic"), ("1024", "random")]
    assert rows[0]["win_rate"] == "0.25" and rows[0]["win_rate_ci95_low"] == "0.1" and rows[0]["mean_score"] == "3.0"
    assert rows[0]["unfinished"] == "1"
    assert (tmp_path / "eval.csv").read_text().count("timesteps") == 1


def test_the_opponents_mean_score_interval_takes_one_value_a_game():
    """With several opponents, their scores in one game are not independent draws: the interval is over the
    games' mean opponent scores (its point the same mean), not over every opponent's score pooled."""
    from snack_envs.training.outcomes import match_result, mean_interval

    rng = np.random.default_rng(0)
    outcomes, per_game = [], []
    for g in range(200):
        common = rng.normal(30, 8)  # scores that rise and fall together within a game
        scores = [common + rng.normal(0, 1) for _ in range(4)]
        outcomes.append({"hero_seat": g % 4, "finished": True, "scores": scores, "winners": [int(np.argmax(scores))]})
        per_game.append(np.mean([s for i, s in enumerate(scores) if i != g % 4]))
    result = match_result("a", "b", 4, outcomes)
    assert result["villain_mean_score_ci95"] == pytest.approx(list(mean_interval(per_game)))
