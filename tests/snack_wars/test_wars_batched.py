"""Snack Wars' batched kernel beyond the generic differential test (tests/differential): the positions
that play from the start cannot reach (set by hand and loaded), the scores and winners of finished games,
and the native heuristic against the Python bot."""

from __future__ import annotations

import numpy as np
import pytest

from snack_envs.snack_wars.heuristic import HeuristicPolicy
from snack_envs.snack_wars.rules import DISCARD, DISCARDING, STOP_STEALING, SnackWars, steal_action
from tests.helpers import option_sets
from tests.snack_wars.wars_positions import (
    BURGER,
    CHEESE,
    CROISSANT,
    DONUT,
    JAPANESE_B,
    MILKSHAKE,
    RACCOON,
    RAMEN,
    SUSHI,
    TEMPURA,
    position,
)

pytest.importorskip("numba")
from snack_envs import batched  # noqa: E402
from tests.differential.test_batched import follow, single  # noqa: E402

OPTION_SETS = option_sets(SnackWars)
PLAYERS = [2, 3, 4, 5]
WARS = "snack_wars_v0"


# --- hand-set positions --------------------------------------------------------------------------------
def raccoons_drawn_holding_8_food() -> SnackWars:
    """Seat 0 has drawn raccoons holding 8 food cards, seat 1 a rich collection: it may steal past 9."""
    game = position(2, {0: {SUSHI: 3, RAMEN: 3}, 1: {DONUT: 3, CHEESE: 3, JAPANESE_B: 1, SUSHI: 2}},
                    draw=[RACCOON, RACCOON, RACCOON])
    game.apply(RACCOON)
    game.deck.remove(CROISSANT), game.deck.remove(CROISSANT)
    game.collections[0][CROISSANT] += 2
    game.state_changed()
    return game


def test_stealing_past_9_then_discarding_from_the_stolen_cards():
    game = raccoons_drawn_holding_8_food()
    game = follow(WARS, game, [steal_action(1, DONUT), steal_action(1, JAPANESE_B), steal_action(1, DONUT)])
    assert game.phase == DISCARDING and sum(game.collections[0]) == 11
    game = follow(WARS, game, [DISCARD + DONUT, DISCARD + JAPANESE_B])
    assert game.current_player == 1 and game.invariant_violations() == []


def test_food_cards_beyond_the_room_left_are_discarded():
    game = position(2, {0: {SUSHI: 3, RAMEN: 3}}, draw=[DONUT, DONUT, DONUT])
    game.deck.remove(SUSHI)
    game.collections[0][SUSHI] += 1
    game.state_changed()
    game = follow(WARS, game, [DONUT])
    assert game.collections[0][DONUT] == 2 and game.discard[DONUT] == 1


def test_an_empty_draw_pile_is_rebuilt_at_the_end_of_the_turn():
    game = position(2, {0: {SUSHI: 3, RAMEN: 3, TEMPURA: 1}, 1: {DONUT: 3, BURGER: 3, MILKSHAKE: 2}},
                    draw=[CHEESE, CHEESE], pile_is_exactly=True)
    assert game.deck == []
    venv = single(WARS, game)
    venv.step(np.array([CHEESE]))
    order = venv.outcomes(0)["reshuffle"]
    assert sorted(order) == [t for t, n in enumerate(game.discard) for _ in range(n)]
    follow(WARS, game, [CHEESE])


def test_a_draw_that_empties_the_pile_reshuffles_and_goes_on_drawing():
    game = position(2, {0: {SUSHI: 3, RAMEN: 3, TEMPURA: 2}, 1: {DONUT: 2, BURGER: 3}},
                    draw=[CHEESE], then=[TEMPURA], pile_is_exactly=True)
    game = follow(WARS, game, [CHEESE])
    assert sum(game.drawn) == 4 and game.discard == [0] * 15


def test_full_collections_pass_and_the_game_ends_with_the_reference_scores_and_winners():
    game = position(3, {0: {SUSHI: 3, RAMEN: 3, TEMPURA: 2}, 1: {DONUT: 3, BURGER: 3, MILKSHAKE: 3},
                        2: {CHEESE: 4, CROISSANT: 4, JAPANESE_B: 1}}, draw=[RACCOON], then=[CHEESE])
    game = follow(WARS, game, [RACCOON, STOP_STEALING])
    assert not game.game_over and game.current_player == 0 and game.passed == [1, 2]
    game = follow(WARS, game, [CHEESE])
    assert game.game_over
    venv = single(WARS, game)
    assert venv.kernel.scores()[0].tolist() == game.scores()
    assert np.flatnonzero(venv.kernel.winners()[0]).tolist() == game.winners()


@pytest.mark.parametrize("options", OPTION_SETS, ids=str)
def test_finished_games_score_and_win_as_the_reference(options):
    rng = np.random.default_rng(3)
    for n in PLAYERS:
        venv = batched.make(WARS, num_envs=64, num_players=n, seed=n, auto_reset=False, **options)
        out = venv.reset()
        while venv.live.any():
            out = venv.step((rng.random(out[1].shape) * out[1]).argmax(1))
        for i in range(64):
            game = venv.export(i)
            assert game.game_over
            assert venv.kernel.scores()[i].tolist() == game.scores()
            assert np.flatnonzero(venv.kernel.winners()[i]).tolist() == game.winners()


# --- the native heuristic ------------------------------------------------------------------------------
@pytest.mark.parametrize("options", OPTION_SETS, ids=str)
def test_the_native_heuristic_picks_the_python_bots_action(options):
    """At least 10,000 positions over the option sets and player counts, from play that mixes the bot
    and random moves; the native bot answers from the observations and from the kernel state."""
    per_run = -(-10_000 // (len(OPTION_SETS) * len(PLAYERS)))
    rng = np.random.default_rng(7)
    phases_seen = set()
    for n in PLAYERS:
        bot = HeuristicPolicy(n, **options)
        venv = batched.make(WARS, num_envs=32, num_players=n, seed=11 * n, **options)
        obs, mask, player = venv.reset()
        from_state = np.zeros(32, np.int64)
        checked = 0
        while checked < per_run:
            native = venv.kernel.heuristic_actions(obs, mask)
            venv.kernel.heuristic_seats(venv.kernel.to_act(), from_state)
            python = np.array([bot.act(obs[b], mask[b]) for b in range(32)])
            assert np.array_equal(native, python), np.flatnonzero(native != python)
            assert np.array_equal(from_state, python)
            phases_seen.update(venv.kernel.phase.tolist())
            checked += 32
            random_moves = (rng.random(mask.shape) * mask).argmax(1)
            actions = np.where(rng.random(32) < 0.5, python, random_moves)
            obs, mask, player, *_ = venv.step(actions)
    assert phases_seen >= {0, 1}


def test_the_native_heuristic_discards_as_the_python_bot():
    game = raccoons_drawn_holding_8_food()
    for action in (steal_action(1, DONUT), steal_action(1, JAPANESE_B), steal_action(1, DONUT)):
        game.apply(action)
    venv = single(WARS, game)
    bot = HeuristicPolicy(2)
    while game.phase == DISCARDING:
        obs, mask, _ = venv.observe()
        expected = bot.act(obs[0], mask[0])
        assert venv.kernel.heuristic_actions(obs, mask).tolist() == [expected]
        out = np.zeros(1, np.int64)
        venv.kernel.heuristic_seats(venv.kernel.to_act(), out)
        assert out.tolist() == [expected]
        venv.step(np.array([expected]))
        game.apply(expected)
