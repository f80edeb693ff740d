"""The batched arena (training/arena.py): its figures on known outcomes, its seating, agreement with the
game-by-game evaluator, every kind of policy (native bots, batched, row by row, on the rules engine),
determinism across processes, and Snack Time's solo ranks."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba")

from snack_envs.agents import RandomPolicy, heuristic_policy  # noqa: E402
from snack_envs.checkpoints import env_facts  # noqa: E402
from snack_envs.snack_time.components import solo_rank  # noqa: E402
from snack_envs.training.arena import match, play_games, seat_roles, solo  # noqa: E402
from snack_envs.training.evaluate import head_to_head, match_result, wilson_interval  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def test_known_outcomes_give_the_win_share_places_and_intervals_by_hand():
    outcomes = [  # three players; the hero's seat, then each seat's score and the winning seats
        {"hero_seat": 0, "finished": True, "scores": [10, 5, 3], "winners": [0]},  # a sole win: 1st
        {"hero_seat": 1, "finished": True, "scores": [7, 7, 2], "winners": [0, 1]},  # a shared win: 1/2, 1st-2nd
        {"hero_seat": 2, "finished": True, "scores": [9, 4, 4], "winners": [0]},  # a loss, tied for 2nd-3rd
        {"hero_seat": 0, "finished": False, "scores": [0, 0, 0], "winners": [0, 1, 2]},  # cut off: left out
        {"hero_seat": 1, "finished": True, "scores": [5, 5, 5], "winners": [0, 1, 2]},  # everyone wins: 1/3
        {"hero_seat": 2, "finished": True, "scores": [1, 8, 6], "winners": [1]},  # 2nd
    ]
    m = match_result("hero", "villain", 3, outcomes)
    points = 1 + 1 / 2 + 1 / 3
    assert (m["games"], m["finished"], m["unfinished"], m["wins"], m["ties"], m["losses"]) == (6, 5, 1, 1, 2, 2)
    assert m["win_rate"] == pytest.approx(points / 5)
    assert m["win_rate_ci95"] == pytest.approx(list(wilson_interval(points, 5)))
    assert m["places"] == pytest.approx([1 + 1 / 2 + 1 / 3, 1 / 2 + 1 / 2 + 1 / 3 + 1, 1 / 2 + 1 / 3])
    assert sum(m["places"]) == pytest.approx(m["finished"])
    assert m["hero_mean_score_ci95"][0] == pytest.approx((10 + 7 + 4 + 5 + 6) / 5)
    assert m["villain_mean_score_ci95"][0] == pytest.approx((5 + 3 + 7 + 2 + 9 + 4 + 5 + 5 + 1 + 8) / 10)


def test_the_hero_takes_each_seat_in_turn_and_the_others_keep_their_order():
    assert seat_roles(np.arange(4), 3).tolist() == [[0, 1, 2], [1, 0, 2], [1, 2, 0], [0, 1, 2]]
    m = match("snack_wars_v0", 3, "heuristic", "random", games=7, seed=0, num_envs=3)
    assert [s["games"] for s in m["by_seat"]] == [3, 2, 2] and m["games"] == 7


class Linear:
    """A fixed random linear scorer of the observation: acts row by row (`act`) and in batches (`act_batch`)."""

    name = "linear"

    def __init__(self, env_name: str, num_players: int, seed: int = 0):
        facts = env_facts(env_name, num_players)
        self.w = np.random.default_rng(seed).normal(size=(facts["observation_size"], facts["num_actions"]))

    def reset(self, seed=None):
        pass

    def act(self, observation, action_mask):
        return int(np.argmax(np.where(action_mask.astype(bool), observation @ self.w, -np.inf)))

    def act_batch(self, observations, action_masks):
        return np.argmax(np.where(action_masks.astype(bool), observations @ self.w, -np.inf), axis=1)


class GameRandom:
    """Plays on the rules engine (`uses_game`): a random legal action of its seat, which must be to act."""

    name = "game-random"
    uses_game = True

    def __init__(self):
        self.rng = np.random.default_rng(0)

    def reset(self, seed=None):
        self.rng = np.random.default_rng(seed)

    def act_game(self, game, seat):
        assert game.is_to_act(seat), f"asked for seat {seat}, which is not to act"
        legal = game.legal_actions(seat)
        return legal[self.rng.integers(len(legal))]


def both(spec: str, env_name: str, num_players: int):
    """A lineup entry as (the evaluator's policy, what the arena is given)."""
    if spec == "random":
        return RandomPolicy(0), "random"
    if spec == "heuristic":
        return heuristic_policy(env_name, num_players), "heuristic"
    policy = Linear(env_name, num_players) if spec == "linear" else GameRandom()
    return policy, policy


def close(a: float, b: float, se: float) -> bool:
    return abs(a - b) <= 3 * se + 1e-9


LINEUPS = {  # env, players, hero, villain, games
    "wars-3p-heuristic-vs-random": ("snack_wars_v0", 3, "heuristic", "random", 300),
    "rabbits-2p-batched-policy-vs-heuristic": ("snack_rabbits_v0", 2, "linear", "heuristic", 200),
    "wars-4p-heuristic-vs-policy-on-the-game": ("snack_wars_v0", 4, "heuristic", "game", 200),
    "speed-2p-heuristic-vs-random": ("speed_snacks_v1", 2, "heuristic", "random", 60),
}


@pytest.mark.parametrize("lineup", LINEUPS)
def test_the_arena_agrees_with_the_game_by_game_evaluator(lineup):
    env, n, hero, villain, games = LINEUPS[lineup]
    (python_hero, arena_hero), (python_villain, arena_villain) = both(hero, env, n), both(villain, env, n)
    slow = head_to_head(env, python_hero, python_villain, games, n, seed=1)
    fast = match(env, n, arena_hero, arena_villain, games, seed=1)
    assert (fast["games"], fast["hero"], fast["villain"], fast["num_players"]) == (games, slow["hero"], slow["villain"], n)

    def rate_se(m):
        p = m["win_rate"]
        return math.sqrt(max(p * (1 - p), 0.25 / m["finished"]) / m["finished"])

    assert close(fast["win_rate"], slow["win_rate"], math.hypot(rate_se(fast), rate_se(slow))), (fast, slow)
    for a, b in zip(fast["places"], slow["places"]):
        pa, pb = a / fast["finished"], b / slow["finished"]
        se = math.sqrt(max(pa * (1 - pa), 0.25 / games) / fast["finished"] + max(pb * (1 - pb), 0.25 / games) / slow["finished"])
        assert close(pa, pb, se), (fast["places"], slow["places"])
    for key in ("hero_mean_score_ci95", "villain_mean_score_ci95"):
        (ma, la, _), (mb, lb, _) = fast[key], slow[key]
        se = math.hypot((ma - la) / 1.96, (mb - lb) / 1.96) + 0.05
        assert close(ma, mb, se), (key, fast[key], slow[key])


@pytest.mark.parametrize("env,n", [("snack_wars_v0", 3), ("speed_snacks_v1", 2)])
def test_policies_of_every_kind_play_together(env, n):
    kinds = [GameRandom(), Linear(env, n), "heuristic", "random"]
    for k, hero in enumerate(kinds):
        others = [kinds[(k + 1 + i) % len(kinds)] for i in range(n - 1)]
        m = match(env, n, hero, others, games=2 * n, seed=0)
        assert m["games"] == 2 * n and m["unfinished"] == 0 and sum(m["places"]) == pytest.approx(2 * n)
        names = [o if isinstance(o, str) else o.name for o in others]
        assert m["villain"] == " + ".join(names)


def test_the_same_seed_gives_the_same_figures_in_another_process():
    def figures(m):
        return {k: v for k, v in m.items() if k not in ("seconds", "games_per_s")}

    args = ("snack_wars_v0", 3, "heuristic", ["random", "heuristic"], 40)
    code = ("import json; from snack_envs.training.arena import match; "
            f"print(json.dumps({{k: v for k, v in match(*{args!r}, seed=3, num_envs=16).items()}}))")
    there = json.loads(subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                                      check=True).stdout.splitlines()[-1])
    here = match(*args, seed=3, num_envs=16)
    assert figures(here) == figures(there)
    assert figures(match(*args, seed=4, num_envs=16)) != figures(here)


@pytest.mark.parametrize("rat_snacks", [False, True])
def test_solo_gives_the_mean_score_and_the_rulebooks_ranks(rat_snacks):
    result = solo("snack_time_v0", "heuristic", 60, seed=5, rat_snacks=rat_snacks)
    games = play_games("snack_time_v0", ["heuristic"], 60, seed=5, rat_snacks=rat_snacks)
    scores = [g["scores"][0] for g in games]
    assert result["games"] == 60 and result["unfinished"] == 0
    assert result["mean_score_ci95"][0] == pytest.approx(np.mean(scores))
    assert {k: v for k, v in result["ranks"].items() if v} == Counter(solo_rank(s, rat_snacks) for s in scores)
    assert list(result["ranks"])[0] == "Near Perfect" and sum(result["ranks"].values()) == 60


def test_a_policy_object_that_remembers_plays_each_game_and_seat_as_its_own_copy():
    """Speed Snacks' Python bot remembers between moves (its own tops, with kitchen_obs="sizes"); it chooses as
    the native bot does, so against it it wins about half. One instance shared by the whole batch mixed the
    games' memories and lost every game."""
    options = {"kitchen_obs": "sizes"}
    bot = heuristic_policy("speed_snacks_v1", 2, **options)
    result = match("speed_snacks_v1", 2, bot, "heuristic", 100, seed=1, **options)
    assert 0.3 < result["win_rate"] < 0.7
