"""The search and lookahead bots' values, checked against outcomes worked out by hand or with the rules
engine. Search: in a Snack Wars position where every pick ends the game, the margins, win shares (a shared
win counted 1/k), best actions and lowest-id tie-break; successive halving equal to playing every action out
in full (common random numbers); the default budgets and the refused ones; a forced move played without
playouts; no legal action is an error. Lookahead: the static evaluations (Snack Wars majorities, tied
shares, empty slots by player count, Bonus cards; Rabbits' white dice before and after Farmer Brown; Speed
Snacks' toques; Snack Time's open snack slots by traits and by pipes missing to an entrance), the bonus for
a sole win only, ties broken by its seeded rng, chance drawn from its seed, and the grouping of Snack Time
pipes that changes no value."""

from __future__ import annotations

import numpy as np
import pytest

from snack_envs import specs
from snack_envs.core.game import ConfigError
from snack_envs.lookahead import LookaheadPolicy, rabbits_value, speed_value, wars_value
from snack_envs.search import SearchPolicy
from snack_envs.snack_wars.rules import SnackWars

pytest.importorskip("numba")

# Snack Wars card types: 0 macaron (1) .. 8 cheese (9) by value, 9 French bonus, 11 American bonus, 14 Raccoon.
MACARON, SHAKE, SUSHI, RAMEN, CROISSANT, BURGER, DONUT, TEMPURA, CHEESE = range(9)
FRENCH_BONUS, AMERICAN_BONUS, MULTICOLOUR_BONUS = 9, 11, 12
COPIES = [5] * 9 + [1] * 5 + [10]


def last_pick(n: int, drawn_kinds=(CROISSANT, BURGER, DONUT, TEMPURA, CHEESE, MULTICOLOUR_BONUS)) -> SnackWars:
    """Seat 0 to choose with 8 cards from `drawn_kinds`, every other seat full (9): whatever it picks, the
    game ends."""
    game = SnackWars(n, np.random.default_rng(0))
    colls = [[0] * 14 for _ in range(n)]
    for kind, count in {CHEESE: 2, DONUT: 1, RAMEN: 2, CROISSANT: 1, MACARON: 1, FRENCH_BONUS: 1}.items():
        colls[0][kind] = count
    for kind, count in {CHEESE: 2, DONUT: 2, BURGER: 3, SUSHI: 2}.items():
        colls[1][kind] = count
    if n == 3:
        for kind, count in {TEMPURA: 4, SHAKE: 4, AMERICAN_BONUS: 1}.items():
            colls[2][kind] = count
    drawn = [0] * 15
    for kind in drawn_kinds:
        drawn[kind] = 1
    used = [sum(c[t] for c in colls) if t < 14 else 0 for t in range(15)]
    rest = [t for t in range(15) for _ in range(COPIES[t] - used[t] - drawn[t])]
    game.deck = [rest[i] for i in np.random.default_rng(1).permutation(len(rest)).tolist()]
    game.discard, game.drawn, game.collections = [0] * 15, drawn, colls
    game.raccoons, game.stolen, game.steals_left, game.passed = [0] * n, [0] * 14, 0, []
    game.phase, game.current_player = "choose", 0
    assert game.invariant_violations() == []
    return game


# By hand. Seat 0 scores 14 as it stands (macaron 1, ramen 4, croissant 5, the cheese tied, its French bonus
# with 4 French cards), seat 1 16 (sushi 3, burger 6, donut 7). Two players: croissant 15-16 (a 5th French
# card), burger 14-16 (seat 1 keeps that majority), donut 14-9 (a tie: nobody scores the donut), tempura 22-16,
# cheese 24-16 (the cheese majority and a French card), Multicolour bonus 19-16 (all three families: +5).
# Three players (seat 2: 4 tempura, 4 milk-shakes and the American bonus, 14): the same, but for tempura
# 14-16-14 (seat 2 keeps that majority) and donut 14-9-14 (seats 0 and 2 share the win).
LEGAL = [CROISSANT, BURGER, DONUT, TEMPURA, CHEESE, MULTICOLOUR_BONUS]
MARGINS = {2: [-1, -2, 5, 6, 8, 3], 3: [-1, -2, 0, -2, 8, 3]}
WINS = {2: [0, 0, 1, 1, 1, 1], 3: [0, 0, 0.5, 0, 1, 1]}


@pytest.mark.parametrize("n", [2, 3])
def test_search_values_a_last_pick_by_its_margin_or_its_win_share(n):
    game = last_pick(n)
    assert game.legal_actions(0) == LEGAL
    for action, margin, win in zip(LEGAL, MARGINS[n], WINS[n]):  # the rules engine agrees with the hand count
        after = game.copy()
        after.apply(action, 0)
        scores = after.scores()
        assert after.game_over and scores[0] - max(scores[1:]) == margin
        assert (1 / len(after.winners()) if 0 in after.winners() else 0) == win
    budget = {"samples": 3, "first": 1, "keep": 1}
    margins = SearchPolicy("snack_wars_v0", n, seed=0, **budget).action_values(game, 0)
    wins = SearchPolicy("snack_wars_v0", n, seed=0, objective="win", **budget).action_values(game, 0)
    assert margins.tolist() == MARGINS[n] and wins.tolist() == WINS[n]
    assert SearchPolicy("snack_wars_v0", n, seed=0, **budget).act_game(game, 0) == CHEESE
    # For the win, several picks win alike: best_actions lists them all, and act_game plays the lowest id.
    ties = [a for a, w in zip(LEGAL, WINS[n]) if w == 1]
    assert SearchPolicy("snack_wars_v0", n, seed=0, objective="win", **budget).best_actions(game, 0) == ties
    assert SearchPolicy("snack_wars_v0", n, seed=0, objective="win", **budget).act_game(game, 0) == ties[0]
    assert game.legal_actions(0) == LEGAL and not game.game_over


def wars_position(seed: int = 5, step: int = 4) -> SnackWars:
    rng = np.random.default_rng(seed)
    game = SnackWars(2, np.random.default_rng(seed))
    for _ in range(step):
        p = game.players_to_act()[0]
        legal = game.legal_actions(p)
        game.apply(legal[int(rng.integers(len(legal)))], p)
    return game


def test_successive_halving_matches_playing_every_action_out_in_full():
    """Playout k of every action has deal k and chance stream k, in every round: an action kept for the second
    round ends with the value of playing it out `samples` times at once; the dropped ones keep their first-round
    mean; with `keep` at least the number of actions, every value is the full one."""
    game = wars_position()
    seat = game.players_to_act()[0]
    legal = game.legal_actions(seat)
    assert len(legal) >= 3
    full = SearchPolicy("snack_wars_v0", 2, seed=11, samples=8, first=8).action_values(game, seat)
    short = SearchPolicy("snack_wars_v0", 2, seed=11, samples=8, first=2, keep=len(legal)).action_values(game, seat)
    assert np.array_equal(short, full)
    # The first round alone: the first 2 playouts of the full run (a 2-sample bot draws the same 2 deals and
    # chance streams).
    means = SearchPolicy("snack_wars_v0", 2, seed=11, samples=2, first=2).action_values(game, seat)
    for keep in (1, 2):
        halved = SearchPolicy("snack_wars_v0", 2, seed=11, samples=8, first=2, keep=keep).action_values(game, seat)
        kept = np.argsort(-means, kind="stable")[:keep]
        expected = means.copy()
        expected[kept] = full[kept]
        assert np.array_equal(halved, expected), (keep, halved, means, full)
    assert not np.array_equal(means, full), "the test compares nothing"
    assert len(set(full.tolist())) > 1


def test_search_budgets_by_default_and_refused_budgets():
    time_bot, wars_bot = SearchPolicy("snack_time_v0", 1), SearchPolicy("snack_wars_v0", 2)
    assert (time_bot.samples, time_bot.first, time_bot.keep) == (32, 4, 4)
    assert (wars_bot.samples, wars_bot.first, wars_bot.keep) == (512, 512, 1)
    small = SearchPolicy("snack_time_v0", 1, samples=2)  # the first round shrinks to fit the samples
    assert (small.samples, small.first, small.keep) == (2, 2, 4)
    assert SearchPolicy("snack_wars_v0", 2, samples=1, first=1, keep=1).samples == 1
    for bad in ({"samples": 4, "first": 0}, {"samples": 4, "first": 5}, {"samples": 4, "keep": 0}):
        with pytest.raises(ConfigError, match="first <= samples"):
            SearchPolicy("snack_wars_v0", 2, **bad)
    game = last_pick(2)
    with pytest.raises(ConfigError, match="made for 3 players"):
        SearchPolicy("snack_wars_v0", 3, samples=2).act_game(game, 0)


def test_search_refuses_a_seat_with_no_legal_action_and_plays_a_forced_one_without_search():
    game = last_pick(2)
    with pytest.raises(ValueError, match="no legal action"):
        SearchPolicy("snack_wars_v0", 2, samples=2).act_game(game, 1)
    forced = last_pick(2, drawn_kinds=(CHEESE,))
    bot = SearchPolicy("snack_wars_v0", 2, seed=0, samples=2)
    state = bot.rng.bit_generator.state
    assert forced.legal_actions(0) == [CHEESE] and bot.act_game(forced, 0) == CHEESE
    assert bot.best_actions(forced, 0) == [CHEESE]
    assert bot.rng.bit_generator.state == state, "a forced move needs no playout"


# --- the lookahead's static evaluations, by hand -------------------------------------------------------------
def test_lookahead_scores_snack_wars_by_majorities_tied_shares_bonuses_and_empty_slots():
    """Two players (an empty slot is worth 12): seat 0 has 1 slot (12), macaron 1, ramen 4, croissant 5, half of
    the tied cheese's 9 split in two (2.25) and its French bonus (4 French cards): 28.25; seat 1 sushi 3,
    burger 6, donut 7 and 2.25: 18.25. Three players (a slot is worth 2): seat 0 has 18.25 like seat 1, and seat
    2 tempura 8, milk-shake 2 and its American bonus (4 American cards): 14."""
    two, three = last_pick(2), last_pick(3)
    assert wars_value(two, 0) == 10.0 and wars_value(two, 1) == -10.0
    assert wars_value(three, 0) == 0.0 and wars_value(three, 1) == 0.0 and wars_value(three, 2) == -4.25


def test_lookahead_adds_the_win_bonus_for_a_sole_win_only():
    two, three = last_pick(2), last_pick(3)
    for game in (two, three):
        game.apply(CHEESE, 0)  # seat 0 wins alone
        assert LookaheadPolicy.judge(game, 0, wars_value) == wars_value(game, 0) + 1000.0
        assert LookaheadPolicy.judge(game, 1, wars_value) == wars_value(game, 1)
    shared = last_pick(3)
    shared.apply(DONUT, 0)  # seats 0 and 2 share the win
    assert shared.winners() == [0, 2] and LookaheadPolicy.judge(shared, 0, wars_value) == wars_value(shared, 0)
    unfinished = last_pick(2)
    assert LookaheadPolicy.judge(unfinished, 0, wars_value) == wars_value(unfinished, 0)
    # With the game ending on every pick, the lookahead takes the sole win with the best margin: the cheese.
    bot = LookaheadPolicy("snack_wars_v0", 2, seed=0)
    values = bot.action_values(last_pick(2), 0)
    afters = [last_pick(2) for _ in LEGAL]
    for action, after in zip(LEGAL, afters):
        after.apply(action, 0)
    assert values == [LookaheadPolicy.judge(after, 0, wars_value) for after in afters]  # one try: no chance
    assert [v > 500 for v in values] == [False, False, True, True, True, True]
    assert bot.act_game(last_pick(2), 0) == CHEESE


def test_lookahead_values_rabbits_white_dice_until_farmer_brown_shows():
    game = specs.get("snack_rabbits_v0").rules_class(2, np.random.default_rng(3))
    before = rabbits_value(game, 0), rabbits_value(game, 1)
    game.white[0] += 2
    assert rabbits_value(game, 0) == pytest.approx(before[0] + 3.0)  # 1.5 a die
    game.white[1] += 4
    assert rabbits_value(game, 0) == pytest.approx(before[0] + 3.0 - 6.0)
    game.farmer_revealed = True
    game.white[0] += 3
    assert rabbits_value(game, 0) == pytest.approx(before[0]) and rabbits_value(game, 1) == pytest.approx(before[1])


def test_lookahead_values_a_speed_snacks_toque_at_ten_points():
    game = specs.get("speed_snacks_v1").rules_class(2, np.random.default_rng(3))
    base = speed_value(game, 0)
    assert base == -speed_value(game, 1)
    game.toques[0] += 1
    assert speed_value(game, 0) == pytest.approx(base + 10.0)
    game.toques[1] += 2
    assert speed_value(game, 0) == pytest.approx(base - 10.0) and speed_value(game, 1) == pytest.approx(10.0 - base)


def test_lookahead_values_snack_time_creatures_by_slots_traits_and_pipes_to_an_entrance():
    """Solo, seed 0: entrances on cells 41 (row 5, column 1), 21 (2, 5), 11 (1, 3), 43 (5, 3), 27 (3, 3); no pipe
    yet. A creature with no trait eats the pedestrians that need none (worth 1, 1, 1 less a Badge's 0.7, and 2:
    1.075 on average), 3 slots x 0.7 of them, discounted 0.7 per pipe missing from the empty cell beside it
    nearest an entrance: 3 from the top corners (cell 1 or 8 to 11; cell 6 or 15 to 21), 2 from the bottom left
    (48 or 57 to 41), 5 from the bottom right (55 or 62 to 43)."""
    from snack_envs.lookahead import time_value
    from snack_envs.snack_time.rules import SnackTime

    game = SnackTime(1, np.random.default_rng(0))
    assert list(game.entrances) == [41, 21, 11, 43, 27] and game.score(0) == 0
    creature = 3 * 0.7 * 1.075
    assert time_value(game, 0) == pytest.approx(creature * (0.7 ** 3 + 0.7 ** 3 + 0.7 ** 2 + 0.7 ** 5))
    game.links[0][3] = 1  # linked: no discount
    assert time_value(game, 0) == pytest.approx(creature * (0.7 ** 3 + 0.7 ** 3 + 0.7 ** 2 + 1))
    # One Eye on the top left creature: the 6 pedestrians needing at most an Eye (8.6 less 0.7 per Badge
    # among them: 8.6 / 6 on average) plus the trait's 1; one snack eaten leaves 2 slots. One Tentacle on the
    # top right one: 7 pedestrians, 1 + 1 + 0.3 + 2 + 1.3 + (3 less a Damage's 2) + 4 = 10.6. One Tooth on the
    # bottom left one: 5 pedestrians, 4.3 + 3.
    game.healthy[0][0] = [1, 0, 0]
    game.snacks[0][0] = [0]
    game.healthy[0][1] = [0, 0, 1]
    game.healthy[0][2] = [0, 1, 0]
    assert time_value(game, 0) == pytest.approx(
        game.score(0) + 2 * 0.7 * (8.6 / 6 + 1) * 0.7 ** 3 + 3 * 0.7 * (10.6 / 7 + 1) * 0.7 ** 3
        + 3 * 0.7 * (7.3 / 5 + 1) * 0.7 ** 2 + creature)


def test_lookahead_counts_the_pipes_missing_from_the_nearest_cell_a_network_opens_onto():
    """Solo, seed 0 (entrances as above): the top left creature's network opens onto cell 1 (3 pipes from
    entrance 11). A pipe on cell 8 running north-south extends it to cell 16, 4 pipes from entrances 41 and
    11, found later in the walk: still 3 missing, the nearest cell counts, not the last one seen. A pipe on
    cell 1 running west-east opens it onto cell 2, 2 from entrance 11."""
    from snack_envs.lookahead import _entrance_distances, _pipes_missing
    from snack_envs.snack_time.components import E, N, S, W
    from snack_envs.snack_time.rules import SnackTime

    game = SnackTime(1, np.random.default_rng(0))
    distances = _entrance_distances(tuple(game.entrances))
    assert (distances[1], distances[16], distances[2]) == (3, 4, 2)
    assert _pipes_missing(game, 0, 0, distances) == 3
    game.pipes[0][8] = N | S
    assert _pipes_missing(game, 0, 0, distances) == 3
    game.pipes[0][1] = W | E
    assert _pipes_missing(game, 0, 0, distances) == 2


def test_lookahead_adds_no_win_bonus_solo_and_refuses_a_seat_with_no_legal_action():
    from snack_envs.lookahead import time_value
    from snack_envs.snack_time.rules import SnackTime

    rng = np.random.default_rng(4)
    game = SnackTime(1, np.random.default_rng(4))
    pair = SnackTime(2, np.random.default_rng(4))
    with pytest.raises(ValueError, match=f"seat {1 - pair.current_player} has no legal action now"):
        LookaheadPolicy("snack_time_v0", 2, seed=0).action_values(pair, 1 - pair.current_player)
    while not game.game_over:
        legal = game.legal_actions(0)
        game.apply(legal[int(rng.integers(len(legal)))], 0)
    assert game.winners() == [0]
    assert LookaheadPolicy.judge(game, 0, time_value) == time_value(game, 0)


def test_lookahead_scores_snack_time_pipes_away_from_every_creature_once_and_alike():
    """A pipe on a cell beside no creature and no wet cell cannot change the evaluation: those pipes share a
    group; a pipe beside a creature is scored on its own; and the grouped values equal the ungrouped ones."""
    from snack_envs.lookahead import time_groups
    from snack_envs.snack_time import components as parts
    from snack_envs.snack_time.actions import DAMAGE_BASE, PIPE_BASE
    from snack_envs.snack_time.rules import SnackTime

    game = SnackTime(1, np.random.default_rng(0))
    group = time_groups(game, 0)
    centre, beside = 3 * parts.SIZE + 4, 1  # row 3 column 4; row 0 column 1, next to the top left creature
    assert game.wet[0] == 0
    assert group(PIPE_BASE + centre * parts.NUM_PATTERNS) == group(PIPE_BASE + centre * parts.NUM_PATTERNS + 1)
    assert group(PIPE_BASE + centre * parts.NUM_PATTERNS) == group(PIPE_BASE + (centre + 1) * parts.NUM_PATTERNS)
    first = PIPE_BASE + beside * parts.NUM_PATTERNS
    assert group(first) == first and group(first + 1) == first + 1
    rng = np.random.default_rng(6)
    bot, checked = LookaheadPolicy("snack_time_v0", 1, seed=2), 0
    while not game.game_over:
        legal = game.legal_actions(0)
        if len(legal) > 1 and any(PIPE_BASE <= a < DAMAGE_BASE for a in legal):
            bot.reset(checked)
            grouped = bot.action_values(game, 0)
            bot.reset(checked)
            assert grouped == bot.action_values(game, 0, grouped=False)
            checked += 1
        game.apply(legal[int(rng.integers(len(legal)))], 0)
    assert checked > 5


def test_lookahead_breaks_ties_with_its_own_rng():
    """Among the actions sharing the best value the lookahead picks with its seeded rng: always one of them,
    not always the first, the same for the same seed."""
    from snack_envs.snack_time.rules import SnackTime

    rng = np.random.default_rng(1)
    game = SnackTime(1, np.random.default_rng(1))
    while True:  # the first position of a random game with a tie for the best value
        legal = game.legal_actions(0)
        values = LookaheadPolicy("snack_time_v0", 1, seed=0).action_values(game, 0)
        best = [a for a, v in zip(legal, values) if v >= max(values) - 1e-9]
        if len(best) > 1:
            break
        game.apply(legal[int(rng.integers(len(legal)))], 0)
    picks = [LookaheadPolicy("snack_time_v0", 1, seed=s).act_game(game, 0) for s in range(12)]
    assert set(picks) <= set(best) and len(set(picks)) > 1
    assert picks == [LookaheadPolicy("snack_time_v0", 1, seed=s).act_game(game, 0) for s in range(12)]


@pytest.mark.parametrize("n, slot", [(2, 12.0), (3, 2.0), (4, 1.0), (5, 1.0)])
def test_lookahead_values_an_empty_snack_wars_slot_by_player_count(n, slot):
    """Seat 0 holds one macaron (its majority: 1 point), the others nothing: 8 empty slots against 9."""
    game = SnackWars(n, np.random.default_rng(0))
    game.deck.remove(MACARON)
    game.collections[0][MACARON] = 1
    assert game.invariant_violations() == []
    assert wars_value(game, 0) == 1 - slot  # 8 slots and 1 point against the best rival's 9 slots
    assert wars_value(game, 1) == (slot - 1 if n == 2 else 0.0)  # with 3 or more, seat 2 is its best rival


def test_lookahead_draws_its_chance_from_its_own_seed():
    """Snack Rabbits' dice: the tries of an action draw chance from the bot's seeded rng, so bots seeded apart
    value some position differently, and bots seeded alike value every position alike."""
    game = specs.get("snack_rabbits_v0").rules_class(2, np.random.default_rng(2))
    rng = np.random.default_rng(2)
    differ = 0
    for _ in range(30):
        if game.game_over:
            break
        seat = game.players_to_act()[0]
        legal = game.legal_actions(seat)
        if len(legal) > 1:
            values = [LookaheadPolicy("snack_rabbits_v0", 2, seed=s).action_values(game, seat) for s in (0, 0, 1)]
            assert values[0] == values[1]
            differ += values[0] != values[2]
        game.apply(legal[int(rng.integers(len(legal)))], seat)
    assert differ > 0


def test_search_draws_the_playouts_chance_from_its_own_seed():
    """The draw pile is empty (nothing to deal): the playouts differ only by the reshuffles of the discard
    pile, drawn from the bot's seeded chance. Bots seeded alike value the actions alike, bots seeded apart
    not."""
    game = SnackWars(2, np.random.default_rng(0))
    colls = [[0] * 14 for _ in range(2)]
    colls[0][CHEESE], colls[0][RAMEN], colls[1][DONUT], colls[1][SUSHI] = 2, 1, 2, 1
    drawn = [0] * 15
    for kind in (CROISSANT, BURGER, DONUT, TEMPURA, CHEESE, SHAKE):
        drawn[kind] = 1
    used = [sum(c[t] for c in colls) if t < 14 else 0 for t in range(15)]
    game.discard = [COPIES[t] - used[t] - drawn[t] for t in range(15)]
    game.deck, game.drawn, game.collections = [], drawn, colls
    game.raccoons, game.stolen, game.steals_left, game.passed = [0] * 2, [0] * 14, 0, []
    game.phase, game.current_player = "choose", 0
    assert game.invariant_violations() == []
    values = [SearchPolicy("snack_wars_v0", 2, seed=s, samples=8).action_values(game, 0) for s in (3, 3, 4)]
    assert np.array_equal(values[0], values[1]) and not np.array_equal(values[0], values[2])
