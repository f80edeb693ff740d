"""Edge cases of the figures behind checkpoints/README.md: training/outcomes.py (Wilson and mean 95% intervals,
a match's win share, places and mean scores, a result's eval figures) and training/arena.py (seat rotation,
the batched lineup, games cut off at `max_steps`, solo scores), each checked against its stated rule on
small hand-worked cases rather than against the code's own formula. Written from a mutation probe of the two
modules, to pin down what the rest of the suite checked only loosely (statistically, or against the same code)."""

from __future__ import annotations

import math
import re
import time
from typing import ClassVar

import numpy as np
import pytest

pytest.importorskip("numba")

from snack_envs.core.game import ConfigError  # noqa: E402
from snack_envs.snack_time.components import SOLO_RANKS  # noqa: E402
from snack_envs.training.arena import match, play_games, resolve, seat_roles, solo  # noqa: E402
from snack_envs.training.outcomes import Z95, eval_figures, is_solo, match_result, mean_interval, wilson_interval  # noqa: E402


# --- Wilson interval -------------------------------------------------------------------------------------
@pytest.mark.parametrize("successes,n,low,high", [  # the textbook 95% Wilson score intervals
    (0, 10, 0.0, 0.2775),
    (2, 10, 0.0567, 0.5098),
    (5, 10, 0.2366, 0.7634),
    (10, 10, 0.7225, 1.0),
])
def test_wilson_interval_gives_the_textbook_values(successes, n, low, high):
    assert wilson_interval(successes, n) == pytest.approx((low, high), abs=5e-5)


@pytest.mark.parametrize("successes,n", [(2, 10), (1.5, 4), (1 / 3, 1), (7, 20), (0.5, 3)])
def test_wilson_bounds_are_where_the_score_test_just_rejects(successes, n):
    """The Wilson interval is every p with |p_hat - p| <= z sqrt(p (1 - p) / n): its ends solve the equality,
    one on each side of p_hat (fractional successes, shared wins counting 1/k, included)."""
    low, high = wilson_interval(successes, n)
    p_hat = successes / n
    assert 0 < low < p_hat < high < 1
    for p in (low, high):
        assert (p_hat - p) ** 2 == pytest.approx(Z95 ** 2 * p * (1 - p) / n, rel=1e-9)


def test_wilson_interval_of_no_games_is_everything():
    assert wilson_interval(0, 0) == (0.0, 1.0)


# --- mean interval ---------------------------------------------------------------------------------------
def test_mean_interval_by_hand():
    assert mean_interval([]) is None  # no value, no mean: not a made-up 0
    assert mean_interval([4.5]) == [4.5, 4.5, 4.5]  # one value: no spread to measure
    assert mean_interval([1.0, 3.0]) == pytest.approx((2.0, 2.0 - Z95, 2.0 + Z95))  # sd sqrt(2), over sqrt(2)
    half = Z95 * math.sqrt((4 + 1 + 0 + 9) / 3) / 2  # sample sd (n - 1) over sqrt(4)
    assert mean_interval([1, 2, 3, 6]) == pytest.approx((3.0, 3.0 - half, 3.0 + half))


# --- match_result ----------------------------------------------------------------------------------------
def game(hero_seat, scores, winners, finished=True):
    return {"hero_seat": hero_seat, "finished": finished, "scores": scores, "winners": winners}


def test_a_match_with_no_finished_game_makes_nothing_up():
    cut = [game(0, [0.0] * 3, [0, 1, 2], finished=False), game(1, [0.0] * 3, [0, 1, 2], finished=False)]
    m = match_result("h", "v", 3, cut)
    assert (m["games"], m["finished"], m["unfinished"], m["wins"], m["ties"], m["losses"]) == (2, 0, 2, 0, 0, 0)
    assert m["win_rate"] == pytest.approx(1 / 3) and m["even"] == pytest.approx(1 / 3)
    assert m["win_rate_ci95"] == [0.0, 1.0]
    assert m["places"] == [0.0, 0.0, 0.0]
    assert m["hero_mean_score_ci95"] is None and m["villain_mean_score_ci95"] is None  # no mean score of 0
    assert eval_figures(m) == (pytest.approx(1 / 3), 0.0, 1.0, "")  # the run's eval.csv: an empty mean-score cell


def test_two_player_wins_losses_and_a_tiebreak_by_hand():
    outcomes = [
        game(0, [3, 1], [0]),  # a sole win: 1st
        game(1, [5, 2], [0]),  # a loss: 2nd
        game(0, [4, 4], [1]),  # equal scores but the other seat won (a tiebreak): 2nd, not shared
        game(1, [6, 6], [0, 1]),  # a shared win: 1/2, places 1st-2nd shared
        game(0, [0, 0], [0, 1], finished=False),  # cut off: left out of everything but games and unfinished
        game(1, [2, 9], [1]),  # a sole win from seat 1
    ]
    m = match_result("h", "v", 2, outcomes)
    assert (m["hero"], m["villain"], m["num_players"], m["even"]) == ("h", "v", 2, 0.5)
    assert (m["games"], m["finished"], m["unfinished"], m["wins"], m["ties"], m["losses"]) == (6, 5, 1, 2, 1, 2)
    assert m["win_rate"] == pytest.approx(2.5 / 5)
    # Wilson, p_hat 1/2 of 5: 1/2 -+ z sqrt(1/20 + z^2/100) / (1 + z^2/5)
    assert m["win_rate_ci95"] == pytest.approx([0.1704, 0.8296], abs=5e-5)
    assert m["places"] == pytest.approx([2.5, 2.5])
    hero = [3, 2, 4, 6, 9]
    half = Z95 * float(np.std(hero, ddof=1)) / math.sqrt(5)
    assert m["hero_mean_score_ci95"] == pytest.approx([4.8, 4.8 - half, 4.8 + half])
    villain = [1, 5, 4, 6, 2]
    half = Z95 * float(np.std(villain, ddof=1)) / math.sqrt(5)
    assert m["villain_mean_score_ci95"] == pytest.approx([3.6, 3.6 - half, 3.6 + half])


def test_four_player_places_put_winners_first_and_split_ties_by_hand():
    outcomes = [
        game(1, [2, 9, 9, 1], [0]),  # loses with the top score, level with seat 2: places 2-3 shared
        game(3, [5, 5, 5, 5], [0, 1, 2, 3]),  # everyone wins: 1/4 of each place, a quarter of a win
        game(2, [1, 2, 3, 4], [3]),  # 2nd by score behind the winner
        game(0, [0, 7, 7, 7], [1, 2]),  # last, with a two-way shared win elsewhere
        game(0, [8, 8, 3, 1], [0, 1]),  # a two-way shared win: 1/2, places 1-2 shared
    ]
    m = match_result("h", "v", 4, outcomes)
    assert (m["wins"], m["ties"], m["losses"]) == (0, 2, 3)
    assert m["win_rate"] == pytest.approx((1 / 4 + 1 / 2) / 5)
    assert m["places"] == pytest.approx([1 / 4 + 1 / 2, 1 / 2 + 1 / 4 + 1 + 1 / 2, 1 / 2 + 1 / 4, 1 / 4 + 1])
    # the opponents' mean score: one value a game, the mean of the three other seats
    per_game = [(2 + 9 + 1) / 3, 5.0, (1 + 2 + 4) / 3, 7.0, (8 + 3 + 1) / 3]
    mean = sum(per_game) / 5
    half = Z95 * float(np.std(per_game, ddof=1)) / math.sqrt(5)
    assert m["villain_mean_score_ci95"] == pytest.approx([mean, mean - half, mean + half])
    assert m["hero_mean_score_ci95"][0] == pytest.approx((9 + 5 + 3 + 0 + 8) / 5)


def test_a_three_way_win_of_three_counts_one_third_and_all_three_places():
    m = match_result("h", "v", 3, [game(2, [4, 4, 4], [0, 1, 2])])
    assert (m["wins"], m["ties"], m["losses"]) == (0, 1, 0)
    assert m["win_rate"] == pytest.approx(1 / 3)
    assert m["places"] == pytest.approx([1 / 3, 1 / 3, 1 / 3])


# --- eval figures ----------------------------------------------------------------------------------------
def test_eval_figures_of_a_match_and_of_a_solo_result():
    match = {"win_rate": 0.25, "win_rate_ci95": [0.1, 0.5], "hero_mean_score_ci95": [3.0, 2.0, 4.0]}
    solo = {"mean_score_ci95": [80.5, 78.0, 83.0], "ranks": {}}
    assert not is_solo(match) and is_solo(solo)
    assert eval_figures(match) == (0.25, 0.1, 0.5, 3.0)
    assert eval_figures(solo) == ("", "", "", 80.5)


# --- the arena: seating, cut-off games, lineups ----------------------------------------------------------


class SeatRecorder:
    """Plays Snack Wars on the rules engine (`uses_game`): the first legal action, logging (name, turn, seat)
    each time it is asked, so a test sees which seat each lineup entry sat in, game by game."""

    uses_game = True

    def __init__(self, name: str, log: list):
        self.name, self.log = name, log

    def reset(self, seed=None):
        pass

    def act_game(self, game, seat):
        assert game.is_to_act(seat)
        self.log.append((self.name, game.turn, seat))
        return game.legal_actions(seat)[0]


def seats_by_game(log: list) -> list[dict]:
    """The log split into games (one env plays them one after another: the turn count starts again at a new
    game), each as {name: the set of seats it was asked to act in}."""
    games: list[dict] = []
    last_turn = None
    for name, turn, seat in log:
        if last_turn is None or turn < last_turn:
            games.append({})
        games[-1].setdefault(name, set()).add(seat)
        last_turn = turn
    return games


@pytest.mark.parametrize("n,games", [(2, 5), (3, 7), (4, 6)])
def test_the_hero_sits_in_seat_g_mod_n_and_the_others_fill_the_rest_in_order(n, games):
    log: list = []
    lineup = [SeatRecorder(name, log) for name in "habc"[:n]]
    outcomes = play_games("snack_wars_v0", lineup, games, seed=0, num_envs=1)
    assert [o["hero_seat"] for o in outcomes] == [g % n for g in range(games)]
    seen = seats_by_game(log)
    assert len(seen) == games
    for g, by_name in enumerate(seen):
        hero = g % n
        expected = {"h": {hero}}
        for name, seat in zip("abc", [s for s in range(n) if s != hero]):
            expected[name] = {seat}
        assert by_name == expected, (g, by_name)


def test_seat_roles_by_hand():
    assert seat_roles(np.arange(3), 2).tolist() == [[0, 1], [1, 0], [0, 1]]
    assert seat_roles(np.array([5, 6, 11]), 4).tolist() == [[1, 0, 2, 3], [1, 2, 0, 3], [1, 2, 3, 0]]
    assert seat_roles(np.array([4]), 1).tolist() == [[0]]


def test_games_cut_off_at_max_steps_are_unfinished_and_left_out():
    outcomes = play_games("snack_wars_v0", ["heuristic", "random", "random"], 5, seed=0, num_envs=2, max_steps=3)
    assert outcomes == [{"hero_seat": g % 3, "finished": False, "scores": [0.0] * 3, "winners": [0, 1, 2]}
                        for g in range(5)]
    m = match("snack_wars_v0", 3, "heuristic", "random", 5, seed=0, num_envs=2, max_steps=3)
    assert (m["games"], m["finished"], m["unfinished"], m["num_envs"]) == (5, 0, 5, 2)
    assert m["win_rate"] == pytest.approx(1 / 3) and m["win_rate_ci95"] == [0.0, 1.0]
    assert m["places"] == [0.0, 0.0, 0.0]
    assert [s["games"] for s in m["by_seat"]] == [2, 2, 1]
    assert [s["win_rate"] for s in m["by_seat"]] == pytest.approx([1 / 3] * 3)


def test_a_match_lineup_by_hand():
    """One spec for every other seat or a list of n - 1; the villain named once per distinct spec."""
    m = match("snack_wars_v0", 3, "heuristic", "random", 4, seed=0, num_envs=4)
    assert (m["hero"], m["villain"], m["num_players"], m["games"], m["num_envs"]) == ("heuristic", "random", 3, 4, 4)
    m = match("snack_wars_v0", 4, "random", ["heuristic", "random", "heuristic"], 4, seed=0, num_envs=8)
    assert (m["villain"], m["num_envs"], m["unfinished"]) == ("heuristic + random", 4, 0)
    assert sum(m["places"]) == pytest.approx(4) and [s["games"] for s in m["by_seat"]] == [1, 1, 1, 1]
    with pytest.raises(ConfigError, match="give one opponent spec or 2, not 3"):
        match("snack_wars_v0", 3, "heuristic", ["random"] * 3, 4)


@pytest.mark.parametrize("player", [None, 3, ["random"]])
def test_a_player_is_a_spec_or_a_policy(player):
    """None or a number as hero, opponent or solo player failed in AttributeError ('... has no attribute
    reset') once the games had started; it is named before."""
    message = r"a player is a spec \('random', 'heuristic', a checkpoint path...\) or a policy \(reset, and act, act_batch or act_game\)"
    with pytest.raises(ConfigError, match=message + r", got " + re.escape(repr(player))):
        match("snack_wars_v0", 2, player, "random", 2, seed=0)
    if not isinstance(player, list):  # a list of others is one per seat
        with pytest.raises(ConfigError, match=message):
            match("snack_wars_v0", 2, "random", player, 2, seed=0)
    with pytest.raises(ConfigError, match=message):
        solo("snack_time_v0", player, 2, seed=0)


def test_the_by_seat_win_shares_are_the_win_shares_of_the_games_in_that_seat():
    m = match("snack_wars_v0", 3, "heuristic", "random", 12, seed=2, num_envs=5)
    outcomes = play_games("snack_wars_v0", ["heuristic", "random", "random"], 12, seed=2, num_envs=5)
    for seat in range(3):
        points = [1 / len(o["winners"]) if seat in o["winners"] else 0.0 for o in outcomes if o["hero_seat"] == seat]
        assert m["by_seat"][seat] == {"games": 4, "win_rate": pytest.approx(sum(points) / 4)}
    assert all(o["finished"] and max(o["scores"]) > 0 for o in outcomes)  # finished games keep their scores


def test_solo_of_games_all_cut_off_has_no_scores_and_no_ranks():
    s = solo("snack_time_v0", "random", 4, seed=0, num_envs=3, max_steps=2)
    assert (s["games"], s["unfinished"], s["num_envs"], s["player"]) == (4, 4, 3, "random")
    assert s["mean_score_ci95"] is None and set(s["ranks"].values()) == {0}
    assert eval_figures(s) == ("", "", "", "")


class CopyRecorder:
    """Acts row by row (`act` only) with the first legal action; every reset is logged on the class (a copy's
    log is the same list), as (id of the object reset, seed)."""

    name = "copy-recorder"
    resets: ClassVar[list] = []

    def reset(self, seed=None):
        CopyRecorder.resets.append((id(self), seed))

    def act(self, observation, action_mask):
        return int(np.flatnonzero(action_mask)[0])


def test_a_row_by_row_policy_plays_each_game_and_seat_as_its_own_fresh_copy():
    CopyRecorder.resets = []
    bot = CopyRecorder()
    # 2 envs, 2 seats: env 0 plays games 0, 2, 4 with the hero in seat 0 each time; env 1 games 1, 3, 5 in seat 1
    outcomes = play_games("snack_wars_v0", [bot, "random"], 6, seed=7, num_envs=2)
    assert all(o["finished"] for o in outcomes)
    assert CopyRecorder.resets[0] == (id(bot), 7)  # the policy itself, once, with the match's seed
    copies = CopyRecorder.resets[1:]
    assert (id(bot), 7) not in copies
    assert len(copies) == 6  # one copy a game (the hero sits in one seat a game), none reused in a later game
    assert len({seed for _, seed in copies}) == 6  # each reset from its own (seed, game, seat)


def test_one_policy_object_for_every_other_seat_and_the_arenas_defaults():
    log: list = []
    villain = SeatRecorder("v", log)
    started = time.perf_counter()
    m = match("snack_wars_v0", 3, "heuristic", villain, 4)  # a single object, not a list: both other seats
    took = time.perf_counter() - started
    assert (m["villain"], m["seed"], m["num_envs"], m["games"], m["unfinished"]) == ("v", 0, 4, 4, 0)
    assert {seat for _, _, seat in log} == {0, 1, 2}
    assert 0 <= m["seconds"] <= took + 0.01 and m["games_per_s"] > 0
    assert play_games("snack_wars_v0", ["heuristic", "random"], 3) == play_games(
        "snack_wars_v0", ["heuristic", "random"], 3, seed=0, num_envs=3)
    started = time.perf_counter()
    s = solo("snack_time_v0", "random", 3, max_steps=2)
    took = time.perf_counter() - started
    assert (s["seed"], s["num_envs"], s["options"]) == (0, 3, {"max_steps": 2})
    assert 0 <= s["seconds"] <= took + 0.01



def test_solo_ranks_without_rat_snacks_by_default():
    """No `rat_snacks` option: the rulebook's ranks unshifted. Random play, seed 1, scores 46 and 49 here: Keep
    Practicing (45 and up) unshifted, Truly Horrible with rat snacks (52 and up)."""
    s = solo("snack_time_v0", "random", 8, seed=1, num_envs=8)
    scores = [o["scores"][0] for o in play_games("snack_time_v0", ["random"], 8, seed=1, num_envs=8)]
    assert s["unfinished"] == 0 and s["mean_score_ci95"][0] == pytest.approx(np.mean(scores))
    expected = {name: 0 for _, name in SOLO_RANKS}
    for score in scores:
        expected[next(name for low, name in SOLO_RANKS if low is None or score >= low)] += 1
    assert s["ranks"] == expected
    assert any(45 <= score < 52 for score in scores)  # the case that tells the shift apart


def test_the_native_bots_stay_names_and_a_policy_object_stays_itself():
    """"random" and "heuristic" are played natively by the batched engine, not as Python policies."""
    assert resolve("random", "snack_wars_v0", 3, 0) == "random"
    assert resolve("heuristic", "snack_wars_v0", 3, 0) == "heuristic"
    bot = CopyRecorder()
    assert resolve(bot, "snack_wars_v0", 3, 0) is bot
    assert resolve("lookahead", "snack_wars_v0", 3, 0).name == "lookahead"  # anything else: a policy


def test_a_policy_object_made_for_another_count_or_game_is_refused_before_any_game():
    """The observations of every player count are the same size, so a bot built for 2 players would play a
    3-player match without a complaint, from a wrong reading of the table."""
    from snack_envs.agents import make_policy

    two_player = make_policy("heuristic", "snack_wars_v0", 2)
    with pytest.raises(ConfigError, match=r"policy 'heuristic' was made for num_players=2, not num_players=3$"):
        match("snack_wars_v0", 3, two_player, "random", games=2)
    with pytest.raises(ConfigError, match=r"made for num_players=2, not num_players=3$"):
        match("snack_wars_v0", 3, "random", ["heuristic", two_player], games=2)
    wars = make_policy("lookahead", "snack_wars_v0", 3)
    with pytest.raises(ConfigError, match=r"made for env_name='snack_wars_v0', not env_name='snack_rabbits_v0'$"):
        match("snack_rabbits_v0", 3, wars, "random", games=2)
    assert match("snack_wars_v0", 2, two_player, "random", games=2)["games"] == 2  # its own count plays


@pytest.mark.parametrize("checkpoint, refusal", [
    ("snack_time_v0", r"supports num_players in \[2, 3, 4\] only .*, not num_players=1$"),
    ("snack_wars_v0", r"checkpoint was trained on snack_wars_v0, not snack_time_v0$"),
])
def test_solo_builds_a_checkpoint_spec_for_its_game_and_one_player_and_refuses_another(checkpoint, refusal):
    """A spec that is no native bot is built for the solo game and its one player: Snack Time's 2-4 player
    checkpoint, or another game's, is refused before any game is played, not loaded for another count or
    game and played alone."""
    from snack_envs.checkpoints import CheckpointError
    from tests.helpers import CHECKPOINTS

    with pytest.raises(CheckpointError, match=refusal):
        solo("snack_time_v0", str(CHECKPOINTS / f"{checkpoint}.zip"), 2, seed=0, max_steps=2)


def test_solo_plays_its_games_on_the_number_of_envs_it_is_given():
    """Env b of the batch plays games b, b + B, ...: the deals, so the scores, depend on num_envs, and solo
    plays on the num_envs it is given (the games of play_games with that batch), not on the default."""
    two = solo("snack_time_v0", "heuristic", 4, seed=0, num_envs=2)
    games = play_games("snack_time_v0", ["heuristic"], 4, 0, 2)
    assert two["num_envs"] == 2 and all(game["finished"] for game in games)
    assert two["mean_score_ci95"] == list(mean_interval([game["scores"][0] for game in games]))
    assert solo("snack_time_v0", "heuristic", 4, seed=0, num_envs=4)["mean_score_ci95"] != two["mean_score_ci95"]


def test_solo_times_its_games_to_a_hundredth_of_a_second_and_its_rate_to_a_tenth(monkeypatch):
    """`seconds`: the wall time of the games (perf_counter), rounded to 0.01 s; `games_per_s`: games over
    that time, rounded to 0.1."""
    from types import SimpleNamespace

    from snack_envs.training import arena

    clock = iter([100.0, 102.4567])
    monkeypatch.setattr(arena, "time", SimpleNamespace(perf_counter=lambda: next(clock)))
    s = solo("snack_time_v0", "random", 3, seed=0, max_steps=2)
    assert (s["seconds"], s["games_per_s"]) == (2.46, 1.2)  # 3 / 2.4567 = 1.221...


@pytest.mark.parametrize("key, value", [("games", 0), ("games", True), ("games", 1.5), ("games", "4"),
                                        ("num_envs", 0), ("num_envs", 2.0), ("num_envs", float("nan"))])
def test_games_and_num_envs_must_be_positive_ints(key, value):
    """The arena's library calls (match, solo, play_games) check their counts: a float, a bool or a string is
    never cast (1.5 games, or 0.5 envs truncated to none), and zero of either is refused naming which."""
    args = {"games": 4, "num_envs": None, key: value}
    with pytest.raises(ConfigError, match=rf"{key} must be a positive int( or None)?, got {re.escape(repr(value))}"):
        match("snack_wars_v0", 2, "random", "heuristic", **args)
    with pytest.raises(ConfigError, match=rf"{key} must be a positive int"):
        solo("snack_time_v0", "random", **args)
    assert match("snack_wars_v0", 2, "random", "heuristic", games=np.int64(3), num_envs=np.int64(2))["games"] == 3
