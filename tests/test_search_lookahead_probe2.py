"""More of the search and lookahead bots' behaviour, pinned where the first probe's tests left mutants alive.
Lookahead: Snack Rabbits' 8 tries per action (a step with no chance is worth 8 times its evaluation); a forced
move played without trying it (the bot's rng left as it was); Snack Time pipes away from every creature
evaluated once per group by default; a creature whose network can extend nowhere valued at nothing; one try per action in
Speed Snacks and Snack Wars."""

from __future__ import annotations

import numpy as np
import pytest

from snack_envs import specs
from snack_envs.lookahead import LookaheadPolicy, rabbits_value
from snack_envs.snack_rabbits.rules import STOP

pytest.importorskip("numba")

CHEESE = 8  # Snack Wars card type (as in test_search_lookahead_probe)


def rabbits_start(seed: int = 3):
    return specs.get("snack_rabbits_v0").rules_class(2, np.random.default_rng(seed))


def test_lookahead_sums_eight_tries_per_action_in_snack_rabbits():
    """Stopping draws no chance (the next turn's cards come off the deck): its value is 8 times the
    evaluation of the position after it, one per try."""
    game = rabbits_start()
    seat = game.players_to_act()[0]
    legal = game.legal_actions(seat)
    assert STOP in legal and len(legal) > 1
    after = game.copy()
    after.apply(STOP, seat)
    values = LookaheadPolicy("snack_rabbits_v0", 2, seed=0).action_values(game, seat)
    expected = 8 * LookaheadPolicy.judge(after, seat, rabbits_value)
    assert values[legal.index(STOP)] == pytest.approx(expected)
    assert expected != pytest.approx(LookaheadPolicy.judge(after, seat, rabbits_value)), "the test compares nothing"


def test_lookahead_plays_a_forced_move_without_trying_it():
    """One legal action: the lookahead plays it and leaves its rng as it was (no tries, no tie-break)."""
    from tests.test_search_lookahead_probe import last_pick

    forced = last_pick(2, drawn_kinds=(CHEESE,))
    assert forced.legal_actions(0) == [CHEESE]
    bot = LookaheadPolicy("snack_wars_v0", 2, seed=0)
    state = bot.rng.bit_generator.state
    assert bot.act_game(forced, 0) == CHEESE
    assert bot.rng.bit_generator.state == state


def test_lookahead_scores_grouped_snack_time_pipes_once_by_default():
    """By default the pipes away from every creature are one group, evaluated once per try: in a solo game,
    fewer evaluations than legal actions, one per group; `grouped=False` evaluates them all."""
    from snack_envs.lookahead import time_groups
    from snack_envs.snack_time.rules import SnackTime

    game, rng = SnackTime(1, np.random.default_rng(0)), np.random.default_rng(6)
    while True:  # the first position of a random game with pipes away from every creature
        legal = game.legal_actions(0)
        groups = {time_groups(game, 0)(a) for a in legal}
        if len(groups) < len(legal):
            break
        game.apply(legal[int(rng.integers(len(legal)))], 0)
    bot = LookaheadPolicy("snack_time_v0", 1, seed=0)
    calls = []
    evaluate = bot.evaluate
    bot.evaluate = lambda g, s: calls.append(s) or evaluate(g, s)
    bot.action_values(game, 0)
    assert len(calls) == len(groups)
    calls.clear()
    bot.action_values(game, 0, grouped=False)
    assert len(calls) == len(legal)



def test_lookahead_values_a_creature_walled_in_by_pipes_facing_away_at_nothing():
    """Solo, seed 0 (creatures' worth as in test_search_lookahead_probe): pipes on both cells beside the top
    left creature (1 and 8) that turn their backs on it leave its network no empty cell to extend: it counts
    for nothing, not as if linked."""
    from snack_envs.lookahead import time_value
    from snack_envs.snack_time.components import E, S
    from snack_envs.snack_time.rules import SnackTime

    game = SnackTime(1, np.random.default_rng(0))
    creature = 3 * 0.7 * 1.075
    game.pipes[0][1] = S | E
    game.pipes[0][8] = S | E
    assert not game.links[0][0] and game.score(0) == 0
    assert time_value(game, 0) == pytest.approx(creature * (0.7 ** 3 + 0.7 ** 2 + 0.7 ** 5))


@pytest.mark.parametrize("env_name, n", [("speed_snacks_v1", 2), ("snack_wars_v0", 2)])
def test_lookahead_tries_each_action_once_in_speed_snacks_and_snack_wars(env_name, n):
    game = specs.get(env_name).rules_class(n, np.random.default_rng(3))
    seat = game.players_to_act()[0]
    legal = game.legal_actions(seat)
    assert len(legal) > 1
    bot = LookaheadPolicy(env_name, n, seed=0)
    calls = []
    evaluate = bot.evaluate
    bot.evaluate = lambda g, s: calls.append(s) or evaluate(g, s)
    bot.action_values(game, seat)
    assert len(calls) == len(legal)
