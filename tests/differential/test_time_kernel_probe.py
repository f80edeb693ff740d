"""Snack Time's batched kernel (`snack_time/batched.py`) where random legal play against the reference
(test_batched.py) cannot look: the chance a step draws itself. Advanced traps' reshuffle of a sprung trap
back into the deck: the reference takes whatever place `outcomes` hands it, so step-by-step agreement says
nothing about the place; here the places a trap goes back to over many envs must be a uniform draw of
0..len(deck) (the bottom of the deck included), and the step itself must still follow the reference. And
a loaded game whose scripted rolls ran out (as after `forget_chance`) must roll fresh dice, not reuse a
stale row of the kernel's roll buffer. Also the winners beside the scores, which the "win" reward reads
and the margin rewards of test_batched.py do not show."""

from __future__ import annotations

import numpy as np
import pytest

from tests.snack_time.time_scripted import INEDIBLE_ROW, NW, TOOTH, TRAP, new_game, the_step_that_starts_round_2

pytest.importorskip("numba")
from snack_envs import batched  # noqa: E402
from snack_envs.snack_time.rules import trait_action  # noqa: E402
from tests.differential.test_batched import follow, single  # noqa: E402

TIME = "snack_time_v0"


def before_a_trap_springs():
    """A solo Advanced traps game one step short of its second round, whose first card off the deck is
    entrance 1's trap; and that last step."""
    game = new_game(1, top=[TRAP[0]], advanced_traps=True)
    last = the_step_that_starts_round_2(game)
    trial = game.copy()
    trial.apply(last)
    assert trial.round == 2 and trial.events[0] == ["trap", 0]
    return game, last


def test_a_sprung_trap_goes_back_to_a_uniform_place_in_the_deck_bottom_included():
    game, last = before_a_trap_springs()
    m = len(game.deck) - 1  # the deck the trap goes back into: the trap and the pedestrian under it are off
    N = 1500
    venv = batched.make(TIME, num_envs=N, num_players=1, seed=5, auto_reset=False, shuffle_seats=False,
                        **game.config)
    venv.reset()
    for i in range(N):
        venv.load(i, game)
    venv.step(np.full(N, last))
    # a trap put back on top is drawn again at once and springs again: its first place is the one looked at
    places = np.array([venv.outcomes(i)["trap_inserts"][0] for i in range(N)])
    assert places.min() >= 0 and places.max() <= m
    counts = np.bincount(places, minlength=m + 1)
    p = 1 / (m + 1)
    assert np.abs(counts - N * p).max() < 6 * np.sqrt(N * p * (1 - p)), counts.tolist()
    assert counts[0] > 0 and counts[m] > 0
    follow(TIME, game, [last])


def test_a_loaded_game_whose_scripted_rolls_ran_out_rolls_fresh_dice_from_the_stream():
    """A loaded game with no scripted rolls left rolls its next round's dice from the env's stream, not
    from whatever an earlier deal left in the kernel's roll buffer (each env's round-1 dice here)."""
    game = new_game(1)
    last = the_step_that_starts_round_2(game)
    game.scripted_rolls = []
    N = 400
    venv = batched.make(TIME, num_envs=N, num_players=1, seed=6, auto_reset=False, shuffle_seats=False)
    venv.reset()
    dealt = [(venv.export(i).dice_traits, venv.export(i).dice_pipes) for i in range(N)]
    for i in range(N):
        venv.load(i, game)
    venv.step(np.full(N, last))
    rolled = [venv.export(i) for i in range(N)]
    assert all(g.round == 2 and g.dice_traits and g.scripted_rolls == [] for g in rolled)
    same = sum((g.dice_traits, g.dice_pipes) == d for g, d in zip(rolled, dealt))
    assert same < N // 4, f"{same} of {N} envs rolled their dealt dice again"


def test_a_seat_one_point_behind_the_top_score_is_no_winner():
    """The kernel's scores and winners (the "win" reward) beside the reference's, seat 0 one point ahead:
    the same snack for both, but seat 0's creature keeps one uncrossed trait (1 point a snack)."""
    game = new_game(2)
    game.apply(trait_action(TOOTH, NW))  # seat 0 draws a Tooth of its roll on creature NW
    for p in range(2):
        game.snacks[p][0] = [INEDIBLE_ROW[0]]
    game.state_changed()
    assert game.scores()[0] == game.scores()[1] + 1 and game.winners() == [0]
    venv = single(TIME, game)
    assert venv.kernel.scores()[0].tolist() == game.scores()
    assert np.flatnonzero(venv.kernel.winners()[0]).tolist() == game.winners()
