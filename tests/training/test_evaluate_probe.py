"""snack-eval's figures checked against values derived independently of training/evaluate.py and
training/ratings.py: Plackett-Luce probabilities by enumerating finishing orders, the fit and its profile
intervals by a separate optimiser, a tournament's matches, summary, table and files from scripted games
whose results are known in advance."""

from __future__ import annotations

import csv
import itertools
import json
import math
import sys
import types

import numpy as np
import pytest

pytest.importorskip("scipy")

from scipy.optimize import brentq, minimize  # noqa: E402

from snack_envs.agents import RandomPolicy  # noqa: E402
from snack_envs.training import evaluate  # noqa: E402
from snack_envs.training.ratings import (  # noqa: E402
    CHI2_95,
    ELO,
    PRIOR_SD,
    Posterior,
    add_places,
    display_names,
    fit_ratings,
    place_block,
    place_terms,
)

PRECISION = (ELO / PRIOR_SD) ** 2  # the prior's precision on natural-unit ratings (sd PRIOR_SD Elo points)
Z = 1.959963984540054  # the normal 97.5% point


def wilson_interval(k: float, n: int) -> list[float]:
    """The textbook 95% Wilson score interval for k successes in n trials (written out here, not imported)."""
    p = k / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z / (1 + Z * Z / n) * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return [max(0.0, centre - half), min(1.0, centre + half)]


# --- independent Plackett-Luce --------------------------------------------------------------------
def place_probabilities(x: float, n: int) -> list[float]:
    """P(hero finishes k-th), k = 1..n, for a hero of log-strength x against n - 1 opponents of log-strength
    0, by enumerating every finishing order (each drawn place by place, proportional to strength)."""
    weights = [math.exp(x)] + [1.0] * (n - 1)
    probs = [0.0] * n
    for order in itertools.permutations(range(n)):
        p, left = 1.0, sum(weights)
        for seat in order:
            p *= weights[seat] / left
            left -= weights[seat]
        probs[order.index(0)] += p
    return probs


def neg_log_posterior(r: np.ndarray, results: list[tuple[int, int, list[float]]]) -> float:
    value = 0.5 * PRECISION * float(np.dot(r, r))
    for hero, villain, places in results:
        probs = place_probabilities(r[hero] - r[villain], len(places))
        value -= sum(c * math.log(p) for c, p in zip(places, probs))
    return value


def independent_map(size: int, results) -> tuple[np.ndarray, float]:
    res = minimize(neg_log_posterior, np.zeros(size), args=(results,), method="BFGS", options={"gtol": 1e-10})
    return res.x, res.fun


def two_player_profile(places: list[float]):
    """For two agents, the profile negative log-posterior of d = r_a - r_b: the ratings' mean m is free and
    the prior (P/2)((m + d/2)^2 + (m - d/2)^2) is least at m = 0, leaving P d^2 / 4."""
    wins, losses = places

    def f(d: float) -> float:
        return -wins * math.log(1 / (1 + math.exp(-d))) - losses * math.log(1 / (1 + math.exp(d))) + PRECISION * d * d / 4

    d_hat = minimize(lambda v: f(v[0]), [0.0], method="BFGS", options={"gtol": 1e-12}).x[0]
    least = f(d_hat)

    def crossing(d):
        return 2 * (f(d) - least) - CHI2_95

    return d_hat, brentq(crossing, d_hat - 50, d_hat, xtol=1e-12), brentq(crossing, d_hat, d_hat + 50, xtol=1e-12)


# --- ratings.py ---------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [2, 3, 4])
def test_place_terms_are_plackett_luce_log_probabilities_with_their_derivatives(n):
    """place_terms' value is log P(place k) of the enumerated model, slope and bend its 1st and 2nd derivatives."""
    xs = np.array([-2.0, -0.3, 0.0, 0.7, 2.5])
    value, slope, bend = place_terms(xs, n)
    h = 1e-4
    for row, x in enumerate(xs):
        logp = np.log(place_probabilities(x, n))
        up, down = np.log(place_probabilities(x + h, n)), np.log(place_probabilities(x - h, n))
        assert value[row] == pytest.approx(logp, abs=1e-10)
        assert slope[row] == pytest.approx((up - down) / (2 * h), abs=1e-6)
        assert bend[row] == pytest.approx((up - 2 * logp + down) / (h * h), abs=1e-4)


def test_the_posterior_value_gradient_and_hessian_agree():
    """Posterior's value is the independent negative log-posterior; its gradient and Hessian are the value's
    derivatives (a wrong Hessian would still converge, a wrong gradient would not be the optimum)."""
    results = [(0, 1, [3.0, 1.0]), (1, 2, [2.0, 1.5, 0.5]), (2, 0, [1.0, 0.5, 2.0, 0.5]), (0, 2, [0.5, 2.5])]
    post = Posterior(3, [(h, v, np.array(p)) for h, v, p in results])
    r = np.array([0.4, -0.7, 0.2])
    value, grad, hess = post(r)
    assert value == pytest.approx(neg_log_posterior(r, results), abs=1e-10)
    h = 1e-5
    for k in range(3):
        e = np.zeros(3)
        e[k] = h
        assert grad[k] == pytest.approx((post(r + e)[0] - post(r - e)[0]) / (2 * h), abs=1e-6)
        assert hess[k] == pytest.approx((post(r + e)[1] - post(r - e)[1]) / (2 * h), abs=1e-5)


def test_three_player_ratings_are_the_map_of_the_finishing_orders():
    """fit_ratings' Elo figures are the posterior mode of the whole finishing orders (found here by BFGS over
    an enumerated Plackett-Luce likelihood), anchored at random = 1000, or with mean 1500 without it."""
    names = ["random", "a", "b"]
    matches = [{"hero": "a", "villain": "random", "places": [12, 5, 3]},
               {"hero": "b", "villain": "random", "places": [6, 6, 8]},
               {"hero": "a", "villain": "b", "places": [9.5, 6.5, 4]},
               {"hero": "b", "villain": "a", "places": [4, 7, 9]}]
    results = [(names.index(m["hero"]), names.index(m["villain"]), m["places"]) for m in matches]
    best, _ = independent_map(3, results)
    anchored = fit_ratings(names, matches, intervals=False)
    for i, name in enumerate(names):
        assert anchored[name]["elo"] == pytest.approx(1000 + ELO * (best[i] - best[0]), abs=1e-2)
    free = fit_ratings(names, matches, anchor=None, intervals=False)
    for i, name in enumerate(names):
        assert free[name]["elo"] == pytest.approx(1500 + ELO * (best[i] - best.mean()), abs=1e-2)
    assert anchored["a"]["elo"] > anchored["b"]["elo"] > anchored["random"]["elo"]


@pytest.mark.parametrize("places", [[30, 10], [3, 7], [5, 0]])
def test_the_two_player_interval_is_the_95_percent_profile_likelihood_interval(places):
    """Both ends of elo_ci95 are where twice the drop of the profile log-posterior reaches the chi-square 95%
    point: relative to an anchor (d = r_a - r_b), and without one relative to the mean (d / 2)."""
    d_hat, d_lo, d_hi = two_player_profile(places)
    match = [{"hero": "a", "villain": "b", "places": places}]
    anchored = fit_ratings(["a", "b"], match, anchor="b")
    assert anchored["a"]["elo"] == pytest.approx(1000 + ELO * d_hat, abs=1e-3)
    assert anchored["a"]["elo_ci95"] == pytest.approx([1000 + ELO * d_lo, 1000 + ELO * d_hi], abs=1e-3)
    assert anchored["b"] == {"elo": 1000.0, "elo_ci95": [1000.0, 1000.0]}
    free = fit_ratings(["a", "b"], match, anchor=None)
    assert free["a"]["elo"] == pytest.approx(1500 + ELO * d_hat / 2, abs=1e-3)
    assert free["a"]["elo_ci95"] == pytest.approx([1500 + ELO * d_lo / 2, 1500 + ELO * d_hi / 2], abs=1e-3)
    assert free["b"]["elo_ci95"] == pytest.approx([1500 - ELO * d_hi / 2, 1500 - ELO * d_lo / 2], abs=1e-3)


def test_shared_places_are_split_evenly():
    """A game shared over places 2..4 adds 1/3 to each of them, a sole place 1 to it."""
    places = [0.0] * 4
    add_places(places, 2, 4)
    assert places == pytest.approx([0, 1 / 3, 1 / 3, 1 / 3])
    add_places(places, 1, 1)
    assert places == pytest.approx([1, 1 / 3, 1 / 3, 1 / 3])
    assert place_block(1, [4, 6, 6, 1], [0]) == (2, 3)  # beaten by the winner, tied on score with seat 2
    assert place_block(3, [4, 6, 6, 1], [0]) == (4, 4)


def test_display_names_keep_plain_specs_and_fall_back_to_the_whole_spec():
    """A spec that is no checkpoint keeps its name; two specs that no path suffix tells apart keep their
    whole spec; names grow only as far as needed."""
    assert display_names(["random", "lookahead"]) == {"random": "random", "lookahead": "lookahead"}
    names = display_names(["final.zip", "./final.zip", "x/y/z.zip"])
    assert names == {"final.zip": "final.zip", "./final.zip": "./final.zip", "x/y/z.zip": "z"}
    assert display_names(["p/a/b/c.zip", "q/a/b/c.zip", "d/c.zip"]) == \
        {"p/a/b/c.zip": "p/a/b/c", "q/a/b/c.zip": "q/a/b/c", "d/c.zip": "d/c"}


# --- evaluate.py: matches and tournaments from scripted games --------------------------------------
class Named:
    def __init__(self, name: str):
        self.name = name


def scripted(monkeypatch, table: dict, calls: list | None = None):
    """play_game replaced: the game's result depends on which agent sits where. `table[(hero, villain)]`
    gives (winner: "hero"/"villain"/"all"/"cut", hero score, villain score) for the first agent's seat."""
    def fake_play_game(env_name, policies, seed, watch=None, num_players=2, **env_kwargs):
        names = [p.name for p in policies]
        if calls is not None:
            calls.append((names, seed, num_players, env_kwargs))
        distinct = sorted(set(names), key=names.index)
        hero = next(n for n in distinct if names.count(n) == 1) if len(distinct) == 2 else names[0]
        villain = next(n for n in distinct if n != hero)
        kind, hero_score, villain_score = table[(hero, villain)]
        if kind == "cut":
            return {"scores": [0.0] * num_players, "winners": list(range(num_players)), "finished": False}
        seat = names.index(hero)
        scores = [villain_score] * num_players
        scores[seat] = hero_score
        winners = {"hero": [seat], "villain": [s for s in range(num_players) if s != seat][:1],
                   "all": list(range(num_players))}[kind]
        return {"scores": scores, "winners": winners, "finished": True}

    monkeypatch.setattr(evaluate, "play_game", fake_play_game)


def test_head_to_head_rotates_the_hero_and_seeds_each_game(monkeypatch):
    """Game g puts the hero in seat g mod n (the villain's copies elsewhere), with seed seed + g, and passes
    the env options through."""
    calls = []
    scripted(monkeypatch, {("h", "v"): ("hero", 1.0, 0.0)}, calls)
    evaluate.head_to_head("snack_wars_v0", Named("h"), Named("v"), games=5, num_players=3, seed=7, max_steps=9)
    assert [c[0] for c in calls] == [["h", "v", "v"], ["v", "h", "v"], ["v", "v", "h"], ["h", "v", "v"], ["v", "h", "v"]]
    assert [c[1] for c in calls] == [7, 8, 9, 10, 11]
    assert all(c[2] == 3 and c[3] == {"max_steps": 9} for c in calls)


TWO = {("random", "strong"): ("villain", 2.0, 5.0),  # random loses every game to strong
       ("random", "mid"): ("hero", 4.0, 3.0),
       ("strong", "mid"): ("cut", 0.0, 0.0)}


def two_player_tournament(monkeypatch, games: int = 4):
    # strong vs mid: half cut (by the seed), half won by strong
    table = dict(TWO)

    def fake_play_game(env_name, policies, seed, watch=None, num_players=2, **env_kwargs):
        names = [p.name for p in policies]
        if set(names) == {"strong", "mid"} and seed % 4 >= 2:
            seat = names.index("strong")
            return {"scores": [6.0 if s == seat else 1.0 for s in range(2)], "winners": [seat], "finished": True}
        hero, villain = (names[0], names[1]) if (names[0], names[1]) in table else (names[1], names[0])
        kind, hs, vs = table[(hero, villain)]
        if kind == "cut":
            return {"scores": [0.0, 0.0], "winners": [0, 1], "finished": False}
        seat = names.index(hero)
        scores = [vs, vs]
        scores[seat] = hs
        return {"scores": scores, "winners": [seat] if kind == "hero" else [1 - seat], "finished": True}

    monkeypatch.setattr(evaluate, "play_game", fake_play_game)
    agents = {n: Named(n) for n in ("random", "strong", "mid")}
    return evaluate.tournament("snack_rabbits_v0", agents, games=games, seed=0)


def test_a_two_player_tournament_gives_each_pairing_and_its_mirror(monkeypatch):
    """Each pair plays once (combinations, in the agents' order); its mirror swaps wins and losses, the win
    rate (1 - p) and its interval ([1 - hi, 1 - lo]), the places and the two mean scores."""
    results = two_player_tournament(monkeypatch)
    assert [(m["hero"], m["villain"], bool(m.get("mirror"))) for m in results["matches"]] == [
        ("random", "strong", False), ("strong", "random", True), ("random", "mid", False), ("mid", "random", True),
        ("strong", "mid", False), ("mid", "strong", True)]
    by = {(m["hero"], m["villain"]): m for m in results["matches"]}
    m, mirror = by[("random", "strong")], by[("strong", "random")]
    assert (m["wins"], m["losses"], m["win_rate"]) == (0, 4, 0.0)
    assert (mirror["wins"], mirror["ties"], mirror["losses"], mirror["win_rate"]) == (4, 0, 0, 1.0)
    lo, hi = wilson_interval(0, 4)
    assert (lo, hi) == pytest.approx([0.0, Z * Z / (4 + Z * Z)])  # 0 of 4: the upper end is z^2 / (n + z^2)
    assert mirror["win_rate_ci95"] == pytest.approx([1 - hi, 1 - lo])
    assert mirror["places"] == [4.0, 0.0] and m["places"] == [0.0, 4.0]
    assert mirror["hero_mean_score_ci95"][0] == 5.0 and mirror["villain_mean_score_ci95"][0] == 2.0
    cut = by[("mid", "strong")]
    assert (cut["games"], cut["finished"], cut["unfinished"], cut["wins"], cut["losses"]) == (4, 2, 2, 0, 2)
    assert (results["even"], results["num_players"], results["games_per_pair"], results["rating_anchor"]) == \
        (0.5, 2, 4, "random")


def test_a_two_player_tournaments_summary_by_hand(monkeypatch):
    """Each agent's summary over its games as hero (mirrors included): games, unfinished, win rate over the
    finished games with its Wilson interval, and the mean score over the finished games."""
    a = two_player_tournament(monkeypatch)["agents"]
    # random: 0/4 against strong (score 2), 4/4 against mid (score 4)
    assert (a["random"]["games"], a["random"]["unfinished"]) == (8, 0)
    assert a["random"]["win_rate"] == pytest.approx(0.5)
    assert a["random"]["win_rate_ci95"] == pytest.approx(list(wilson_interval(4, 8)))
    assert a["random"]["mean_score"] == pytest.approx(3.0)
    # strong: 4/4 against random (score 5), 2/2 finished against mid (score 6), 2 cut
    assert (a["strong"]["games"], a["strong"]["unfinished"]) == (8, 2)
    assert a["strong"]["win_rate"] == pytest.approx(1.0)
    assert a["strong"]["win_rate_ci95"] == pytest.approx(list(wilson_interval(6, 6)))
    assert a["strong"]["mean_score"] == pytest.approx((4 * 5 + 2 * 6) / 6)
    # mid: 0/4 against random (score 3), 0/2 finished against strong (score 1)
    assert a["mid"]["win_rate"] == 0.0 and a["mid"]["mean_score"] == pytest.approx((4 * 3 + 2 * 1) / 6)
    assert a["random"]["elo"] == 1000.0 and a["random"]["elo_ci95"] == [1000.0, 1000.0]
    assert a["strong"]["elo"] > a["random"]["elo"] > a["mid"]["elo"]
    assert [a[n]["name"] for n in ("random", "strong", "mid")] == ["random", "strong", "mid"]


def test_the_tournaments_ratings_use_each_game_once(monkeypatch):
    """The ratings are fit_ratings over the matches without their mirrors (the same games seen twice would
    halve the intervals)."""
    results = two_player_tournament(monkeypatch)
    once = [m for m in results["matches"] if not m.get("mirror")]
    expected = fit_ratings(["random", "strong", "mid"], once)
    for name, r in results["agents"].items():
        assert r["elo"] == pytest.approx(expected[name]["elo"], abs=1e-6)
        assert r["elo_ci95"] == pytest.approx(expected[name]["elo_ci95"], abs=1e-6)


def test_a_three_player_tournament_plays_both_roles_and_no_mirrors(monkeypatch):
    """With 3 players every ordered pair plays (permutations), without mirrors; no random: no anchor."""
    scripted(monkeypatch, {("x", "y"): ("hero", 3.0, 1.0), ("y", "x"): ("all", 2.0, 2.0),
                           ("x", "z"): ("villain", 0.0, 4.0), ("z", "x"): ("hero", 5.0, 1.0),
                           ("y", "z"): ("villain", 1.0, 2.0), ("z", "y"): ("cut", 0.0, 0.0)})
    results = evaluate.tournament("snack_wars_v0", {n: Named(n) for n in "xyz"}, games=3, num_players=3)
    assert [(m["hero"], m["villain"]) for m in results["matches"]] == list(itertools.permutations("xyz", 2))
    assert not any(m.get("mirror") for m in results["matches"])
    assert results["rating_anchor"] is None and results["even"] == pytest.approx(1 / 3)
    a = results["agents"]
    assert a["y"]["win_rate"] == pytest.approx((3 / 3) / 6)  # 3 three-way ties (1/3 each) and 3 losses
    assert a["z"]["games"] == 6 and a["z"]["unfinished"] == 3 and a["z"]["win_rate"] == 1.0
    assert np.mean([r["elo"] for r in a.values()]) == pytest.approx(1500)
    table = evaluate.format_table(results)
    assert "an agent against 2 copies of the other" in table and "row's win rate against 2 copies of column" in table
    assert "mean 1500" in table and "anchor" not in table


# --- evaluate.py: the table and the files ------------------------------------------------------------
def test_the_table_lists_agents_by_rating_with_the_anchor_and_the_matrix(monkeypatch):
    """Rows best rating first; the anchor's interval reads "anchor", the others' their rounded ends; the
    head-to-head matrix gives row's win rate against column, "-" on the diagonal."""
    results = two_player_tournament(monkeypatch)
    table = evaluate.format_table(results).splitlines()
    rows = [line.split() for line in table if line.split() and line.split()[0] in ("random", "strong", "mid")]
    ranking, header, matrix = rows[:3], rows[3], rows[4:]
    assert header == ["random", "strong", "mid"]
    assert [r[0] for r in ranking] == ["strong", "random", "mid"]
    a = results["agents"]
    strong = ranking[0]
    lo, hi = a["strong"]["elo_ci95"]
    assert strong[1] == f"{a['strong']['elo']:.0f}" and " ".join(strong[2:4]) == f"[{lo:.0f}, {hi:.0f}]"
    assert strong[4:7] == ["8", "2", "1.000"]
    random_row = ranking[1]
    assert random_row[1:5] == ["1000", "anchor", "8", "0"] and random_row[5] == "0.500"
    assert random_row[-1] == "3.00"
    assert "random = 1000" in table[2]
    assert "an agent against the other," in table[0] and "row's win rate against column," in "\n".join(table)
    assert matrix == [["random", "-", "0.000", "1.000"], ["strong", "1.000", "-", "1.000"],
                      ["mid", "0.000", "0.000", "-"]]


def test_the_csv_and_the_heatmap_hold_each_match(monkeypatch, tmp_path):
    """results.csv: a row a match (mirrors too) with its counts, win rate and interval; the heatmap's cell
    (row, column) is row's win rate against column, centred on the even result."""
    import matplotlib.axes
    import matplotlib.figure

    results = two_player_tournament(monkeypatch)
    shown = {}
    imshow = matplotlib.axes.Axes.imshow

    def spy(self, matrix, *args, **kwargs):
        shown["matrix"], shown["norm"] = np.array(matrix), kwargs.get("norm")
        return imshow(self, matrix, *args, **kwargs)

    monkeypatch.setattr(matplotlib.axes.Axes, "imshow", spy)
    savefig = matplotlib.figure.Figure.savefig

    def keep(self, *args, **kwargs):
        shown["figure"] = self
        return savefig(self, *args, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", keep)
    paths = evaluate.write_outputs(results, tmp_path / "new" / "folder")  # made, parents too
    assert paths == [tmp_path / "new" / "folder" / name for name in ("results.json", "results.csv", "head_to_head.png")]
    with paths[1].open(newline="") as f:
        rows = {(r["hero"], r["villain"]): r for r in csv.DictReader(f)}
    assert len(rows) == 6
    lo, hi = wilson_interval(0, 4)
    row = rows[("strong", "random")]
    assert (row["games"], row["wins"], row["ties"], row["losses"], row["unfinished"]) == ("4", "4", "0", "0", "0")
    assert row["win_rate"] == "1.0000" and row["ci95_low"] == f"{1 - hi:.4f}" and row["ci95_high"] == f"{1 - lo:.4f}"
    assert row["hero_mean_score"] == "5.000"
    assert rows[("mid", "strong")]["unfinished"] == "2" and rows[("mid", "strong")]["losses"] == "2"
    expected = np.array([[np.nan, 0.0, 1.0], [1.0, np.nan, 1.0], [0.0, 0.0, np.nan]])
    np.testing.assert_array_equal(shown["matrix"], expected)
    assert (shown["norm"].vmin, shown["norm"].vcenter, shown["norm"].vmax) == (0, 0.5, 1)
    figure = shown["figure"]
    ax, bar = figure.axes  # the matrix and its colour bar
    cells = {(round(t.get_position()[1]), round(t.get_position()[0])): t.get_text() for t in ax.texts}
    assert cells == {(i, j): f"{v:.2f}" for (i, j), v in np.ndenumerate(expected) if not np.isnan(v)}
    assert [t.get_text() for t in ax.get_xticklabels()] == [t.get_text() for t in ax.get_yticklabels()] == \
        ["random", "strong", "mid"]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("opponent", "agent")
    assert ax.get_title() == "snack_rabbits_v0: win rate of row vs column (even 1/2)"


def test_fit_elo_weighs_each_win_rate_by_its_finished_games():
    """fit_elo is fit_ratings with each result as [wins, losses] = win rate x finished games (ties split)."""
    matches = [{"hero": "a", "villain": "b", "win_rate": 0.7, "games": 50, "unfinished": 10},
               {"hero": "b", "villain": "c", "win_rate": 0.4, "games": 20}]
    expected = fit_ratings(["a", "b", "c"], [{"hero": "a", "villain": "b", "places": [28, 12]},
                                             {"hero": "b", "villain": "c", "places": [8, 12]}], anchor="c")
    got = evaluate.fit_elo(["a", "b", "c"], matches, anchor="c")
    assert got == pytest.approx({n: r["elo"] for n, r in expected.items()}, abs=1e-4)
    assert got["c"] == 1000.0


SOLO = {"env": "snack_time_v0", "num_players": 1, "games": 10, "seed": 3, "agents": {
    "runs/a/final.zip": {"games": 10, "unfinished": 1, "mean_score_ci95": [20.0, 15.0, 25.0],
                         "ranks": {"low": 6, "high": 3}},
    "heuristic": {"games": 10, "unfinished": 0, "mean_score_ci95": [80.0, 70.5, 89.5], "ranks": {"low": 1, "high": 9}},
    "random": {"games": 10, "unfinished": 2, "mean_score_ci95": [30.0, 10.0, 95.0], "ranks": {"low": 5, "high": 3}}}}
# ordered by mean: heuristic, random, final; by the interval's low end or high end the order would differ


def test_the_solo_table_and_files(tmp_path):
    """The solo table: best mean score first, short names, each rank's count; results.csv: an agent a row in
    the agents' order with its mean score, interval and ranks."""
    table = evaluate.format_solo_table(SOLO).splitlines()
    rows = [line.split() for line in table[4:]]
    assert [r[0] for r in rows] == ["heuristic", "random", "final"]
    assert rows[0][1:4] == ["10", "0", "80.00"] and rows[2][1:3] == ["10", "1"]
    assert " ".join(rows[0][4:6]) == "[70.50, 89.50]" and rows[0][6:] == ["1", "|", "9"]
    assert "seed 3" in table[0] and "10 games" in table[0]
    paths = evaluate.write_solo_outputs(SOLO, tmp_path / "new" / "folder")  # made, parents too
    assert paths == [tmp_path / "new" / "folder" / "results.json", tmp_path / "new" / "folder" / "results.csv"]
    with paths[1].open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["agent"] for r in rows] == ["runs/a/final.zip", "heuristic", "random"]
    assert rows[2] == {"agent": "random", "games": "10", "unfinished": "2", "mean_score": "30.000",
                       "ci95_low": "10.000", "ci95_high": "95.000", "low": "5", "high": "3"}


def test_a_truncated_game_scores_nothing_and_everyone_wins():
    """A game cut off at max_steps is unfinished: zero scores, every seat among the winners."""
    result = evaluate.play_game("snack_rabbits_v0", [RandomPolicy(0), RandomPolicy(1)], seed=0, max_steps=1)
    assert result == {"scores": [0.0, 0.0], "winners": [0, 1], "finished": False}
    done = evaluate.play_game("snack_rabbits_v0", [RandomPolicy(0), RandomPolicy(1)], seed=0)
    assert done["finished"] and len(done["scores"]) == 2


class FakeBar:
    """Stands in for a tqdm progress bar: its total, description, count and whether it was closed."""

    def __init__(self, total, desc):
        self.total, self.desc, self.done, self.closed = total, desc, 0, False

    def update(self, k=1):
        self.done += k

    def close(self):
        self.closed = True


def fake_progress_bars(monkeypatch) -> list[FakeBar]:
    """Every progress bar snack-eval makes from now on, in a list, as `FakeBar`s (tqdm, as it imports it)."""
    bars = []

    def tqdm(total, desc):
        bars.append(FakeBar(total, desc))
        return bars[-1]

    monkeypatch.setitem(sys.modules, "tqdm", types.SimpleNamespace(tqdm=tqdm))
    return bars


@pytest.mark.parametrize("num_players, pairings, given", [(2, 3, "abc"), (3, 6, "abc"), (2, 3, "aabc")])
def test_snack_eval_counts_its_pairings_and_replays_the_first_two_agents(num_players, pairings, given, monkeypatch,
                                                                          tmp_path, capsys):
    """The progress bar's total is the number of pairings (3 agents: 3 pairs with 2 players, 6 ordered pairs
    with more) and it ends full; --replay records the first two distinct agents alternating over the seats
    (`--agents a a b c` once replayed a against itself)."""
    bars, replays = fake_progress_bars(monkeypatch), []
    monkeypatch.setattr(evaluate, "make_policy", lambda spec, env, n, seed=0: Named(spec))
    monkeypatch.setattr(evaluate, "record_game", lambda env, lineup, seed, path, **kw:
                        replays.append(([p.name for p in lineup], seed, kw)) or path)
    table = {(h, v): ("hero", 2.0, 1.0) for h in "abc" for v in "abc" if h != v}
    scripted(monkeypatch, table)
    evaluate.main(["--env", "snack_rabbits_v0", "--agents", *given, "--num-players", str(num_players),
                   "--games", "2", "--seed", "5", "--replay", str(tmp_path / "game.txt")])
    assert [(b.total, b.desc, b.done, b.closed) for b in bars] == [(pairings, "pairings", pairings, True)]
    lineup = ["a", "b", "a"][:num_players]
    assert replays == [(lineup, 5, {"num_players": num_players})]
    assert "game.txt" in capsys.readouterr().out


def test_a_text_replay_names_the_seats_and_ends_with_the_games_result(tmp_path):
    """record_game's text log: a header naming the env, seed and each seat's agent, every position with
    the seats' labels, and the result of that very game (the same seed as play_game's) at the end."""
    other = RandomPolicy(1)
    other.name = "other"
    lineup = [RandomPolicy(0), other]
    expected = evaluate.play_game("snack_rabbits_v0", lineup, 4)
    text = evaluate.record_game("snack_rabbits_v0", lineup, 4, tmp_path / "game.txt").read_text()
    assert text.startswith("snack_rabbits_v0, seed 4: seat 0 random, seat 1 other\n")
    assert "seat 1 (other)" in text and text.count("--- position ") > 2
    assert text.rstrip().endswith(f"scores by seat: {expected['scores']}; winners: {expected['winners']}")


def test_snack_eval_alone_plays_each_agent_on_the_same_deals_and_counts_agents(monkeypatch, tmp_path, capsys):
    """With one player each agent plays arena.solo over --games deals from --seed; the progress bar counts
    agents and ends full; the files are the solo ones (no heatmap)."""
    bars, calls = fake_progress_bars(monkeypatch), []

    def fake_solo(env, agent, games, seed):
        calls.append((env, agent.name, games, seed))
        return {"games": games, "unfinished": 0, "mean_score_ci95": [1.0, 0.5, 1.5], "ranks": {"low": games}}

    monkeypatch.setattr(evaluate, "make_policy", lambda spec, env, n, seed=0: Named(spec))
    monkeypatch.setattr(evaluate, "solo", fake_solo)
    evaluate.main(["--env", "snack_time_v0", "--num-players", "1", "--agents", "a", "b", "--games", "3", "--seed", "4",
                   "--out", str(tmp_path)])
    assert calls == [("snack_time_v0", "a", 3, 4), ("snack_time_v0", "b", 3, 4)]
    assert [(b.total, b.desc, b.done) for b in bars] == [(2, "agents", 2)]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.csv", "results.json"]
    saved = json.loads((tmp_path / "results.json").read_text())
    assert {k: saved[k] for k in ("env", "num_players", "games", "seed")} == \
        {"env": "snack_time_v0", "num_players": 1, "games": 3, "seed": 4}
    calls.clear()
    evaluate.main(["--env", "snack_time_v0", "--num-players", "1", "--agents", "a", "b"])  # the defaults
    assert calls == [("snack_time_v0", "a", 200, 0), ("snack_time_v0", "b", 200, 0)]


@pytest.mark.parametrize("agents", [["random"], ["random", "random"]])
def test_snack_eval_refuses_a_tournament_of_one_agent(agents, monkeypatch, capsys):
    """With two or more players, fewer than two distinct agents is a usage error before any game."""
    monkeypatch.setattr(evaluate, "tournament", lambda *a, **k: pytest.fail("the tournament started"))
    with pytest.raises(SystemExit) as exit_:
        evaluate.main(["--env", "snack_rabbits_v0", "--games", "1", "--agents", *agents])
    assert exit_.value.code == 2 and "give at least two distinct agents" in capsys.readouterr().err


@pytest.mark.parametrize("num_players", [2, 3])
def test_when_no_game_finishes_the_win_rate_is_the_even_result(num_players, monkeypatch):
    """An agent none of whose games finished gets the even win rate 1/n with the interval [0, 1]."""
    scripted(monkeypatch, {(h, v): ("cut", 0.0, 0.0) for h in "xy" for v in "xy" if h != v})
    results = evaluate.tournament("snack_wars_v0", {n: Named(n) for n in "xy"}, games=3, num_players=num_players)
    for agent in results["agents"].values():
        assert agent["win_rate"] == pytest.approx(1 / num_players) and agent["win_rate_ci95"] == [0.0, 1.0]
        assert agent["unfinished"] == agent["games"] and agent["mean_score"] is None


def test_a_match_or_solo_run_with_no_finished_game_shows_no_mean_score(tmp_path):
    """Every game cut off at max_steps: no mean score anywhere, where a made-up 0.000 [0.000, 0.000] stood (in
    results.csv and .json, the solo table and csv, snack-ship's rows and its solo verdict)."""
    from snack_envs.agents import make_policy
    from snack_envs.training import arena, ship

    agents = {spec: make_policy(spec, "snack_rabbits_v0", 2, seed=0) for spec in ("random", "heuristic")}
    results = evaluate.tournament("snack_rabbits_v0", agents, 2, 2, 0, max_steps=1)
    evaluate.write_outputs(results, tmp_path)
    with (tmp_path / "results.csv").open(newline="") as f:
        assert [row["hero_mean_score"] for row in csv.DictReader(f)] == ["", ""]
    saved = json.loads((tmp_path / "results.json").read_text())
    assert [m["hero_mean_score_ci95"] for m in saved["matches"]] == [None, None]
    assert ship._match_row("agent vs 1 heuristic", results["matches"][0]).endswith("| - (-)")

    cut = arena.solo("snack_time_v0", "random", 2, seed=0, max_steps=2)
    played = arena.solo("snack_time_v0", "heuristic", 2, seed=0)
    solo = {"env": "snack_time_v0", "games": 2, "seed": 0, "agents": {"random": cut, "heuristic": played}}
    rows = evaluate.format_solo_table(solo).splitlines()[4:]
    assert [row.split()[0] for row in rows] == ["heuristic", "random"]  # scored first, none last
    assert rows[1].split()[1:5] == ["2", "2", "-", "-"]
    evaluate.write_solo_outputs(solo, tmp_path / "solo")
    with (tmp_path / "solo" / "results.csv").open(newline="") as f:
        by_agent = {row["agent"]: row for row in csv.DictReader(f)}
    assert [by_agent["random"][k] for k in ("mean_score", "ci95_low", "ci95_high")] == ["", "", ""]
    assert float(by_agent["heuristic"]["mean_score"]) == pytest.approx(played["mean_score_ci95"][0], abs=5e-4)
    verdict = ship.verdict(1, {"solo": cut, "solo_rat_snacks": cut})
    assert not verdict["passed"] and {c["figure"] for c in verdict["checks"]} == {"no game finished"}


def test_a_training_runs_evaluation_with_no_finished_game_logs_no_mean_score(tmp_path, capsys):
    """The run's eval.csv gets an empty mean-score cell (its learning curve reads NaN), TensorBoard no scalar,
    and the progress line a dash."""
    from snack_envs.training import arena, curves, run

    cut = arena.solo("snack_time_v0", "random", 2, seed=0, max_steps=2)
    logged = []
    run.write_eval(tmp_path, 64, {"solo": cut}, lambda tag, value: logged.append(tag))
    assert logged == [] and "solo: mean score -" in capsys.readouterr().out
    with (tmp_path / "eval.csv").open(newline="") as f:
        assert [row["mean_score"] for row in csv.DictReader(f)] == [""]
    (tmp_path / "config.json").write_text(json.dumps({"env": {"name": "snack_time_v0", "num_players": 1}}))
    rows = curves.read_curve(tmp_path)
    assert math.isnan(rows[0]["mean_score"])
    assert curves.plot(rows, tmp_path / "curve.png", "cut").is_file()  # NaN left out of the axis' top, not an error
