"""Ratings on the Elo scale for `snack-eval`: a converged, regularised fit to every game's finishing order.

    from snack_envs.training.ratings import fit_ratings
    ratings = fit_ratings(["random", "heuristic"], [{"hero": "heuristic", "villain": "random", "places": [150, 50]}])
    ratings["heuristic"]  # {"elo": 1190.77..., "elo_ci95": [1136.54..., 1247.96...]}

Model: Plackett-Luce. Agent i has strength exp(r_i / ELO) (ELO = 400 / ln 10,
so a 400-point lead means 10:1 odds); the finishing order of a game is drawn
place by place, the next place going to each seat still unplaced with
probability proportional to its strength. With two players this is the
Bradley-Terry (Elo) logistic model, P(win) = 1 / (1 + 10^(-d/400)); with n
players it uses the hero's whole finishing order (first of 3 is better than
second, second better than third), and against n - 1 equal opponents the even
result is 1/n. A seat that shares places a..b with others (a shared win, equal
scores) counts the mean log-probability of those places: a two-player draw is
half a win and half a loss, as in Elo.

Fit: the maximum a posteriori ratings under a weak normal prior (mean 0, sd
PRIOR_SD Elo points) on every rating, found by Newton's method with a line
search (`scipy.optimize.minimize(method="Newton-CG")`) on the exact gradient and
Hessian, and checked: the Newton step left must be under 1e-6 (0.0002 Elo
points), or the fit raises (the first ratings found by the old fixed 2,000
iterations were off by over 100 points at the extremes). The log-likelihood is concave and the
prior strictly so, so the optimum is unique and always finite: an unbeaten
record (4/4, 2000/2000) gets a finite rating that grows with the number of
games. The prior moves a rating backed by a few hundred games by a few points.

Interval: a 95% profile-likelihood interval of the penalised fit for each
rating relative to the anchor (random at 1000 when it plays, else the mean at
1500): the values t of rating - reference for which twice the drop of the
maximised log-posterior stays under 3.84 (the chi-square 95% point, one degree
of freedom). Unlike a bootstrap over games, it does not collapse to a point for
an unbeaten record (every resample of 4/4 is 4/4), and it narrows as games
accrue.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

ELO = 400 / math.log(10)  # Elo points per unit of log-strength
PRIOR_SD = 1000.0  # Elo points: the normal prior on every rating (mean 0), weak against a few dozen games
CHI2_95 = 3.841458820694124  # chi-square, 1 degree of freedom, 95% point
ANCHOR_ELO = 1000.0  # the anchor agent's rating, when it plays
MEAN_ELO = 1500.0  # the mean rating, without an anchor
XTOL = 1e-10  # Newton-CG stops when its steps are this small (log-strength units)
STEP_OK = 1e-6  # converged: the Newton step left is under this (log-strength units: 0.0002 Elo points)
POLISH_STEPS = 5  # full Newton steps allowed after the line search stops, to get there


def place_block(seat: int, scores: Sequence[float], winners: Sequence[int]) -> tuple[int, int]:
    """The places (1 = first) that `seat` shares in a finished game: the winners first, then by score;
    seats with equal (winner, score) share their places. Returns (first, last), e.g. (1, 2) for a shared win."""
    key = [(s in winners, scores[s]) for s in range(len(scores))]
    ahead = sum(k > key[seat] for k in key)
    return ahead + 1, ahead + sum(k == key[seat] for k in key)


def add_places(places: list[float], first: int, last: int) -> None:
    """Count one game finished in places first..last (shared): 1 / (last - first + 1) to each."""
    for place in range(first, last + 1):
        places[place - 1] += 1 / (last - first + 1)


def place_terms(x: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """log P(hero finishes k-th), k = 1..n, with its first and second derivatives in x, for a hero of
    log-strength x above n - 1 equal opponents (Plackett-Luce), for each x of an array: shape (len(x), n).
    At stage j the hero, against n - j opponents still unplaced, takes the place with probability
    sigmoid(x - ln(n - j)); after n - 1 stages the last place is the hero's."""
    left = np.arange(n - 1, 0, -1, dtype=float)  # opponents unplaced at stages 1..n-1
    z = np.asarray(x, dtype=float)[:, None] - np.log(left)
    log_take = -np.logaddexp(0.0, -z)  # log sigmoid(z)
    log_pass = -np.logaddexp(0.0, z)  # log sigmoid(-z)
    p = np.exp(log_take)  # sigmoid(z)
    curve = p * (1 - p)
    zero = np.zeros((len(z), 1))
    value = np.hstack([zero, np.cumsum(log_pass, axis=1)]) + np.hstack([log_take, zero])
    slope = np.hstack([zero, np.cumsum(-p, axis=1)]) + np.hstack([1 - p, zero])
    bend = -(np.hstack([zero, np.cumsum(curve, axis=1)]) + np.hstack([curve, zero]))
    return value, slope, bend


class Posterior:
    """The negative log-posterior of log-strengths (natural units) for (hero, villain, places) results,
    with its gradient and Hessian."""

    def __init__(self, size: int, results: list[tuple[int, int, np.ndarray]], prior_sd: float = PRIOR_SD):
        self.size = size
        self.precision = (ELO / prior_sd) ** 2
        self.groups = []  # by player count: hero indices, villain indices, places (matches x n)
        for n in sorted({len(places) for _, _, places in results}):
            mine = [(i, j, places) for i, j, places in results if len(places) == n]
            self.groups.append((np.array([m[0] for m in mine]), np.array([m[1] for m in mine]),
                                np.array([m[2] for m in mine], dtype=float)))

    def __call__(self, r: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        value = 0.5 * self.precision * float(r @ r)
        grad = self.precision * r
        hess = self.precision * np.eye(self.size)
        for hero, villain, places in self.groups:
            v, s, b = place_terms(r[hero] - r[villain], places.shape[1])
            value -= float(np.sum(places * v))
            g, h = np.sum(places * s, axis=1), np.sum(places * b, axis=1)
            grad = grad - np.bincount(hero, g, self.size) + np.bincount(villain, g, self.size)
            np.add.at(hess, (hero, hero), -h)
            np.add.at(hess, (villain, villain), -h)
            np.add.at(hess, (hero, villain), h)
            np.add.at(hess, (villain, hero), h)
        return value, grad, hess


def minimise(f, start: np.ndarray) -> tuple[np.ndarray, float]:
    """Minimise the convex f (value, gradient, Hessian) by Newton steps with a line search (scipy's Newton-CG,
    which solves each Newton system by conjugate gradients); raise unless the Newton step left at the end is
    under STEP_OK, whatever the optimiser says of itself."""
    from scipy.optimize import minimize

    res = minimize(lambda z: f(z)[0], start, jac=lambda z: f(z)[1], hess=lambda z: f(z)[2],
                   method="Newton-CG", options={"xtol": XTOL, "maxiter": 1000})
    # Converged or not is judged here, by the Newton step still to take. Near the optimum, the value summed
    # over many games rounds away improvements along a direction the data hardly bend (all ratings moving
    # together: only the prior holds them), and the line search stops ("precision loss"); full Newton steps,
    # which need only the gradient, finish the job there.
    x = res.x
    for _ in range(POLISH_STEPS + 1):
        value, grad, hess = f(x)
        step = np.linalg.solve(hess, grad) if np.all(np.isfinite(x)) else np.full(len(x), np.inf)
        if np.max(np.abs(step)) < STEP_OK:
            return x, value
        x = x - step
    raise RuntimeError(f"the rating fit did not converge: {res.message}")


def fit_ratings(
    names: list[str], matches: list[dict], anchor: str | None = "random", prior_sd: float = PRIOR_SD, intervals: bool = True
) -> dict[str, dict]:
    """Elo-scale ratings with 95% intervals, by name, from head-to-head results: each match a dict with `hero`,
    `villain` and `places` (games the hero finished 1st, 2nd, ... nth against n - 1 copies of the villain;
    shared places split, see `add_places`). Give each game once (not also its mirror). `anchor` is fixed at
    1000 when it is one of `names` (its interval is then [1000, 1000]); otherwise the mean rating is 1500.
    No names give no ratings; a match naming an agent not in `names`, or with places that are not counts
    (finite, at least 0; all 0 adds nothing), is a ValueError."""
    if len(set(names)) != len(names):
        raise ValueError(f"fit_ratings: names are not distinct: {names!r}")
    if not names:
        return {}
    index = {n: i for i, n in enumerate(names)}
    results = []
    for m in matches:
        for role in ("hero", "villain"):
            if m[role] not in index:
                raise ValueError(f"fit_ratings: the match's {role} {m[role]!r} is not one of the names {names!r}")
        places = np.asarray(m["places"], dtype=float)
        if places.ndim != 1 or len(places) < 2 or not np.all(np.isfinite(places)) or np.any(places < 0):
            raise ValueError(f"fit_ratings: places {m['places']!r} of {m['hero']!r} against {m['villain']!r} are "
                             f"not game counts (finite, at least 0, one for each of 2 or more places)")
        results.append((index[m["hero"]], index[m["villain"]], places))
    posterior = Posterior(len(names), results, prior_sd)
    best, least = minimise(posterior, np.zeros(len(names)))
    ref = np.zeros(len(names))
    if anchor in index:
        ref[index[anchor]] = 1.0
    else:
        ref[:] = 1.0 / len(names)
    base = ANCHOR_ELO if anchor in index else MEAN_ELO
    out = {}
    for name, i in index.items():
        t = best[i] - ref @ best
        entry = {"elo": float(base + ELO * t)}
        if intervals:
            lo, hi = (t, t) if ref[i] == 1.0 else profile_interval(posterior, best, least, i, ref)
            entry["elo_ci95"] = [float(base + ELO * lo), float(base + ELO * hi)]
        out[name] = entry
    return out


def profile_interval(posterior: Posterior, best: np.ndarray, least: float, i: int, ref: np.ndarray) -> tuple[float, float]:
    """The values t of r_i - ref.r where 2 (min over the other ratings of the negative log-posterior - its
    minimum) stays under CHI2_95 (log-strength units)."""
    from scipy.optimize import brentq

    k = len(best)
    others = [j for j in range(k) if j != i]
    # r = B z + b t over the free ratings z (all but r_i), so that r_i - ref.r = t
    B = np.zeros((k, k - 1))
    B[others, range(k - 1)] = 1.0
    B[i] = ref[others] / (1 - ref[i])
    b = np.zeros(k)
    b[i] = 1 / (1 - ref[i])
    start = {"z": best[others]}

    def drop(t: float) -> float:
        def restricted(z):
            value, grad, hess = posterior(B @ z + b * t)
            return value, B.T @ grad, B.T @ hess @ B

        z, value = minimise(restricted, start["z"])
        start["z"] = z
        return 2 * (value - least) - CHI2_95

    t_hat = best[i] - ref @ best
    bounds = []
    for sign in (-1, 1):
        start["z"] = best[others]
        step, inner = 0.5, t_hat  # log-strength units (about 87 Elo), doubled until the drop passes CHI2_95
        while drop(t_hat + sign * step) < 0:
            inner, step = t_hat + sign * step, step * 2
        start["z"] = best[others]
        bounds.append(brentq(drop, inner, t_hat + sign * step, xtol=1e-6))
    return bounds[0], bounds[1]


def display_names(specs: list[str]) -> dict[str, str]:
    """A short, unique, readable name for each agent spec: `random` and `heuristic` as they are, a checkpoint
    by its last path parts without `.zip`, as few as tell it apart (`runs/a/final.zip`, `runs/b/final.zip` ->
    `a/final`, `b/final`); the spec itself where nothing shorter is unique."""
    from pathlib import PurePath

    def parts(spec: str) -> list[str]:
        p = list(PurePath(spec).parts)
        if p and p[-1].endswith(".zip"):
            p[-1] = p[-1][: -len(".zip")]
        return p or [spec]

    split = {s: parts(s) for s in specs}
    depth = {s: 1 for s in specs}
    while True:
        names = {s: "/".join(split[s][-depth[s]:]) for s in specs}
        clashes = {s for s in specs if sum(names[s] == names[o] for o in specs) > 1}
        grow = {s for s in clashes if depth[s] < len(split[s])}
        if not grow:
            break
        for s in grow:
            depth[s] += 1
    for s in clashes:
        names[s] = s
    return names
