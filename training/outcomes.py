"""The figures of a set of game outcomes: 95% intervals (Wilson for win shares, normal for means) and a
match's result (`match_result`), shared by the game-by-game matches (training/evaluate.py) and the batched
arena (training/arena.py); and how a run's evaluation reads either a match's result or a solo one
(`arena.solo`: a mean score, no win rate)."""

from __future__ import annotations

import math

import numpy as np

from snack_envs.training.ratings import add_places, place_block

Z95 = 1.959963984540054


def wilson_interval(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_interval(values: list[float], z: float = Z95) -> list[float] | None:
    """[mean, low, high]: the mean of `values` and its 95% interval (normal); None for no values (a match or
    solo run whose every game was cut off has no mean score, rather than a made-up 0)."""
    a = np.asarray(values, dtype=float)
    if not len(a):
        return None
    mean = float(a.mean())
    half = z * float(a.std(ddof=1)) / math.sqrt(len(a)) if len(a) > 1 else 0.0
    return [mean, mean - half, mean + half]


def mean_of(interval: list[float] | None) -> float | None:
    """The mean of a `mean_interval` (None where there is none)."""
    return None if interval is None else interval[0]


def mean_text(interval: list[float] | None, spec: str, missing: str = "-") -> str:
    """The mean of a `mean_interval` formatted by `spec`, or `missing` where there is none (no finished game)."""
    return missing if interval is None else format(interval[0], spec)


def bounds_text(interval: list[float] | None, spec: str, missing: str = "-") -> str:
    """The 95% interval of a `mean_interval` as "[low, high]", each bound formatted by `spec`, or `missing`
    where there is none (no finished game)."""
    return missing if interval is None else f"[{format(interval[1], spec)}, {format(interval[2], spec)}]"


def match_result(hero: str, villain: str, num_players: int, outcomes: list[dict]) -> dict:
    """The figures of a match from its games, each a dict of `hero_seat`, `finished`, and by seat `scores`
    and `winners` (seats, as `play_game` gives them).

    `games` counts every game played; `wins` (sole), `ties` (a shared win) and `losses` the finished ones,
    `unfinished` the games cut off at `max_steps`, which are left out of the win rate, the mean scores and
    `places`. `win_rate` is the hero's share of the wins over the finished games, a win shared by k seats
    counting 1/k (even: `even` = 1/n; 1/n with the interval [0, 1] when no game finished), with its 95%
    Wilson interval. `places[k]` counts the finished games the hero ended (k+1)-th: the winners first, then
    by score, a place shared with others split among them (`ratings.place_block`, `ratings.add_places`;
    the ratings' input). The mean scores' 95% intervals (`mean_interval`; None when no game finished) take
    one value a game: the hero's score, and the mean of its opponents' scores (correlated within a game, so
    not pooled as independent values)."""
    points, hero_scores, villain_scores, unfinished = 0.0, [], [], 0
    wins = ties = losses = 0
    places = [0.0] * num_players
    for outcome in outcomes:
        if not outcome["finished"]:
            unfinished += 1
            continue
        hero_seat, winners, scores = outcome["hero_seat"], list(outcome["winners"]), list(outcome["scores"])
        if hero_seat in winners and len(winners) == 1:
            wins += 1
            points += 1
        elif hero_seat in winners:
            ties += 1
            points += 1 / len(winners)
        else:
            losses += 1
        add_places(places, *place_block(hero_seat, scores, winners))
        hero_scores.append(scores[hero_seat])
        others = [s for i, s in enumerate(scores) if i != hero_seat]
        villain_scores.append(sum(others) / len(others))  # one value a game: its opponents' scores are correlated
    games = len(outcomes)
    finished = games - unfinished
    low, high = wilson_interval(points, finished)
    return {
        "hero": hero,
        "villain": villain,
        "num_players": num_players,
        "even": 1 / num_players,
        "games": games,
        "finished": finished,
        "wins": wins,
        "ties": ties,
        "losses": losses,
        "unfinished": unfinished,
        "win_rate": points / finished if finished else 1 / num_players,
        "win_rate_ci95": [low, high],
        "places": places,
        "hero_mean_score_ci95": mean_interval(hero_scores),
        "villain_mean_score_ci95": mean_interval(villain_scores),
    }


def is_solo(result: dict) -> bool:
    """Whether an evaluation result is a solo one (`arena.solo`: a mean score, no win rate)."""
    return "win_rate" not in result


def eval_figures(result: dict) -> tuple:
    """A match's or a solo result's (win rate, its 95% interval's low and high, mean score): the columns of a
    run's eval.csv and of a learning curve. Solo has no win rate: those three are empty strings; the mean
    score is one too where no game finished."""
    mean = mean_of(result["mean_score_ci95" if is_solo(result) else "hero_mean_score_ci95"])
    mean = "" if mean is None else mean
    if is_solo(result):
        return "", "", "", mean
    return result["win_rate"], *result["win_rate_ci95"], mean
