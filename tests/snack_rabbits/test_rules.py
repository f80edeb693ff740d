"""Snack Rabbits against its rulebook: components, worked examples, a scripted game, random-game invariants."""

from __future__ import annotations

import numpy as np
import pytest

from snack_envs import snack_rabbits_v0
from snack_envs.core.game import ConfigError, IllegalActionError
from snack_envs.snack_rabbits.components import (
    CARD_FENCE,
    CARD_KIND,
    CARDS,
    FARMER_BROWN,
    FENCES,
    NUM_CARDS,
    VALUES,
    VEGETABLES,
    sun_cards,
)
from snack_envs.snack_rabbits.observation import LAYOUT, RabbitsEncoder
from snack_envs.snack_rabbits.rules import STOP, TAKE_FROM, SnackRabbits, hop_action
from tests.helpers import play_aec

TOMATO, CARROT, ONION = VEGETABLES.index("tomato"), VEGETABLES.index("carrot"), VEGETABLES.index("onion")


def card(kind: int, fence_height: int, sun: bool, exclude=(), suns_per_fence: int = 2) -> int:
    suns = sun_cards(suns_per_fence)
    for i in range(NUM_CARDS):
        if CARD_KIND[i] == kind and FENCES[CARD_FENCE[i]] == fence_height and (i in suns) == sun and i not in exclude:
            return i
    raise LookupError((kind, fence_height, sun))


def deck_with_top(top: list[int], farmer_at: int | None = None) -> list[int]:
    """A full scripted deck starting with `top`; Farmer Brown at index `farmer_at` (default: last)."""
    rest = [c for c in range(NUM_CARDS) if c not in top]
    deck = list(top) + rest
    deck.insert(len(deck) if farmer_at is None else farmer_at, FARMER_BROWN)
    return deck


def game_with(top: list[int], num_players: int = 2, **kw) -> SnackRabbits:
    return SnackRabbits(num_players, np.random.default_rng(0), deck=deck_with_top(top, kw.pop("farmer_at", None)), **kw)


# --- components ----------------------------------------------------------------------------
def test_components_match_the_rulebook_and_assumptions():
    assert len(CARDS) == 63
    for kind, value in enumerate(VALUES):
        assert sum(1 for c in CARDS if c.kind == kind) == value
    assert VALUES[TOMATO] == 6 and VALUES[CARROT] == 7 and VALUES[ONION] == 10
    per_fence = sorted(sum(1 for c in CARDS if c.fence == f) for f in range(5))
    assert per_fence == [12, 12, 13, 13, 13]
    suns = sun_cards(2)
    assert len(suns) == 10 and all(sum(1 for s in suns if CARD_FENCE[s] == f) == 2 for f in range(5))


def test_farmer_brown_lies_uniformly_among_the_bottom_11_cards():
    positions = set()
    for seed in range(400):
        game = SnackRabbits(2, np.random.default_rng(seed))
        deck = game.revealed_this_turn + game.deck  # the first reveal came off the top
        assert sorted(deck) == list(range(NUM_CARDS + 1))
        positions.add(len(deck) - 1 - deck.index(FARMER_BROWN))
    assert positions == set(range(11))


# --- turning over cards ------------------------------------------------------------------------
def test_a_turn_starts_by_turning_over_a_card_under_its_fence():
    tomato2 = card(TOMATO, 2, sun=False)
    game = game_with([tomato2])
    assert game.revealed_this_turn == [tomato2]
    assert game.fences[0][TOMATO] == 1 and sum(map(sum, game.fences)) == 1


def test_a_sun_chains_into_another_card_and_farmer_brown_stops_the_chain():
    sun1 = card(ONION, 3, sun=True)
    sun2 = card(TOMATO, 2, sun=True)
    plain = card(CARROT, 6, sun=False)
    game = game_with([sun1, sun2, plain])
    assert game.revealed_this_turn == [sun1, sun2, plain]
    assert game.fences[1][ONION] == 1 and game.fences[0][TOMATO] == 1 and game.fences[4][CARROT] == 1

    game = game_with([sun1], farmer_at=1)
    assert game.revealed_this_turn == [sun1, FARMER_BROWN]
    assert game.farmer_revealed and not game.game_over  # the player still hops or stops
    assert game.legal_actions()  # and may hop over fence 3


def test_sun_setting_is_an_option():
    sun1 = card(ONION, 3, sun=True)
    game = game_with([sun1], suns_per_fence=0)
    assert game.revealed_this_turn == [sun1]  # with no suns, no chain
    with pytest.raises(ConfigError, match="suns_per_fence"):
        SnackRabbits(2, np.random.default_rng(0), suns_per_fence=13)


# --- the rulebook's examples -------------------------------------------------------------------
def test_mia_hops_fence_4_with_one_of_her_two_white_dice():
    top = card(CARROT, 4, sun=False)
    game = game_with([top])
    game.white[0], game.pool = 2, 6
    game.apply(hop_action(4, 1), roll=[2, 6])
    assert game.collections[0][CARROT] == 1 and game.fences[2][CARROT] == 0  # the next turn has since turned over a card
    assert game.white[0] == 1 and game.pool == 7  # she gives up the rolled white die only


def test_robert_fails_fence_3_and_keeps_every_die():
    top = card(CARROT, 3, sun=False)
    game = game_with([top])
    game.white[0], game.pool = 1, 7
    game.apply(hop_action(3, 1), roll=[1, 2])
    assert game.fences[1][CARROT] == 1 and game.collections[0] == [0] * 7
    assert game.white[0] == 1 and game.pool == 7


def test_olivia_stops_and_takes_a_die_from_the_pool():
    game = game_with([card(TOMATO, 2, sun=False)])
    game.apply(STOP)
    assert game.white[0] == 1 and game.pool == 7
    assert game.current_player == 1


def test_dice_are_not_added_together():
    game = game_with([card(ONION, 6, sun=False)])
    game.white[0], game.pool = 1, 7
    game.apply(hop_action(6, 1), roll=[3, 3])  # 3 + 3 = 6, but no single die reaches 6
    assert game.fences[4][ONION] == 1


def test_with_the_pool_empty_a_stop_takes_a_die_from_a_player_of_ones_choice():
    game = game_with([card(TOMATO, 2, sun=False)], num_players=4)
    game.pool, game.white = 0, [3, 0, 3, 2]
    game._legal_cache.clear()
    stops = [a for a in game.legal_actions() if a >= STOP]
    assert stops == [TAKE_FROM + 1, TAKE_FROM + 2]  # seats 2 and 3 hold dice, seat 1 does not
    game.apply(TAKE_FROM + 2)  # from the player 3 seats to the left: seat 3
    assert game.white == [4, 0, 3, 1]

    game = game_with([card(TOMATO, 2, sun=False)])
    game.pool, game.white = 0, [8, 0]
    game._legal_cache.clear()
    assert [a for a in game.legal_actions() if a >= STOP] == [STOP]  # nobody to take from
    game.apply(STOP)
    assert game.white == [8, 0] and game.pool == 0


def test_play_passes_to_the_left_with_3_and_4_players():
    for n in (3, 4):
        game = game_with([card(TOMATO, 2, sun=False)], num_players=n)
        seats = []
        for _ in range(n + 1):
            game.apply(STOP)
            seats.append(game.current_player)
        assert seats == [*range(1, n), 0, 1] and game.turn == n + 1


def test_with_3_players_a_stop_takes_from_the_player_1_or_2_seats_to_the_left():
    for seat, r, victim in [(0, 1, 1), (0, 2, 2), (1, 2, 0), (2, 1, 0)]:
        game = game_with([card(TOMATO, 2, sun=False)], num_players=3)
        game.current_player, game.pool, game.white = seat, 0, [2, 3, 3]
        game.white[seat] = 2
        game._legal_cache.clear()
        assert [a for a in game.legal_actions() if a >= STOP] == [TAKE_FROM, TAKE_FROM + 1]
        before = list(game.white)
        game.apply(TAKE_FROM + r - 1)
        assert game.white[victim] == before[victim] - 1 and game.white[seat] == before[seat] + 1, (seat, r)


def test_the_last_die_of_the_pool_is_taken_from_the_pool():
    game = game_with([card(TOMATO, 2, sun=False)], num_players=3)
    game.pool, game.white = 1, [3, 2, 2]
    game._legal_cache.clear()
    assert [a for a in game.legal_actions() if a >= STOP] == [STOP]  # no taking from players yet
    game.apply(STOP)
    assert game.pool == 0 and game.white == [4, 2, 2]


def test_an_unscripted_hop_rolls_the_personal_die_and_the_white_dice_chosen():
    game = game_with([card(TOMATO, 2, sun=False)])
    game.white[0], game.pool = 2, 6
    game.apply(hop_action(2, 2))
    assert game.last_hop["player"] == 0 and game.last_hop["fence"] == 0 and len(game.last_hop["roll"]) == 3
    assert all(1 <= d <= 6 for d in game.last_hop["roll"])


def test_the_last_hop_records_the_dice_and_the_cards_taken_and_a_stop_clears_it():
    game = game_with([card(CARROT, 4, sun=False)])
    assert game.last_hop is None and game.turn == 0 and "turn" in game.render_text()
    assert SnackRabbits.from_dict(game.to_dict()) == game  # a new game snapshots
    game.white[0], game.pool = 1, 7
    game.apply(hop_action(4, 1), roll=[2, 3])  # fails
    assert game.last_hop == {"player": 0, "fence": 2, "roll": [2, 3], "taken": 0} and game.turn == 1
    game.white[1], game.pool = 1, 6
    lying = sum(game.fences[2])  # the carrot, and what the second turn turned over there
    game.apply(hop_action(4, 1), roll=[4, 1])  # makes it
    assert game.last_hop == {"player": 1, "fence": 2, "roll": [4, 1], "taken": lying} and game.turn == 2
    assert lying == sum(game.collections[1]) >= 1
    game.apply(STOP)
    assert game.last_hop is None and game.turn == 3


def test_the_game_ends_when_farmer_brown_turns_up_with_every_space_empty():
    game = game_with([card(TOMATO, 2, sun=False)], farmer_at=1)
    game.white[0], game.pool = 1, 7
    game.apply(hop_action(2, 1), roll=[2, 1])  # empties the only space; the next turn turns up Farmer Brown
    assert game.farmer_revealed and game.game_over and game.current_player == -1 and game.legal_actions() == []


def test_a_restored_game_plays_on_as_the_original_does():
    game = game_with([card(TOMATO, 2, sun=False)])
    restored = SnackRabbits.from_dict(game.to_dict())
    for action in (STOP, STOP, STOP):  # every turn turns over cards: suns chain in both alike
        game.apply(action)
        restored.apply(action)
        assert restored == game and restored.revealed_this_turn == game.revealed_this_turn


def test_the_onion_scoring_examples_and_tied_majorities():
    game = game_with([card(TOMATO, 2, sun=False)], num_players=3)
    game.collections[0][ONION] = 4
    game.collections[1][ONION] = 3
    assert game.kind_points()[0][ONION] == 10  # the majority scores the card's value
    assert game.kind_points()[1][ONION] == 3  # the others 1 per card
    game.collections[2][CARROT] = 2
    game.collections[0][CARROT] = 2
    points = game.kind_points()
    assert points[0][CARROT] == points[2][CARROT] == 7  # tied majorities all score the full value
    assert points[1][CARROT] == 0


def test_hopping_over_an_empty_fence_is_not_allowed():
    game = game_with([card(TOMATO, 2, sun=False)])
    game.white[0], game.pool = 2, 6
    game._legal_cache.clear()
    hops = [a for a in game.legal_actions() if a < STOP]
    assert hops == [hop_action(2, w) for w in range(3)]
    with pytest.raises(IllegalActionError, match="fence 3"):
        game.apply(hop_action(3, 0))
    # A reading (the rulebook does not forbid such a hop), so the env's documentation says so.
    from snack_envs import snack_rabbits_v0

    assert "omits hops over a fence with no cards" in snack_rabbits_v0.__doc__


def test_scripted_rolls_are_checked():
    game = game_with([card(TOMATO, 2, sun=False)])
    for roll in ([7], [0], [1, 1]):  # a die of 1..6, one for the personal die and each white die chosen
        with pytest.raises(ConfigError, match="scripted roll"):
            game.apply(hop_action(2, 0), roll=roll)


# --- a scripted full game --------------------------------------------------------------------
def test_a_scripted_full_game_state_after_every_step():
    """Farmer Brown placed 4th (the scripted deck does not enforce the setup rule) so the game is short."""
    tomato2 = card(TOMATO, 2, sun=False)
    onion3_sun = card(ONION, 3, sun=True)
    carrot3 = card(CARROT, 3, sun=False)
    game = SnackRabbits(2, np.random.default_rng(0), deck=deck_with_top([tomato2, onion3_sun, carrot3], farmer_at=3))

    def summary():
        fences = {FENCES[f]: {VEGETABLES[k]: n for k, n in enumerate(s) if n} for f, s in enumerate(game.fences) if any(s)}
        colls = [{VEGETABLES[k]: n for k, n in enumerate(c) if n} for c in game.collections]
        return fences, colls, list(game.white), game.pool, game.farmer_revealed, game.current_player, game.game_over

    assert summary() == ({2: {"tomato": 1}}, [{}, {}], [0, 0], 8, False, 0, False)
    game.apply(STOP)  # A stops; B turns over the sun onion, then the carrot
    assert game.revealed_this_turn == [onion3_sun, carrot3]
    assert summary() == ({2: {"tomato": 1}, 3: {"carrot": 1, "onion": 1}}, [{}, {}], [1, 0], 7, False, 1, False)
    game.apply(hop_action(3, 0), roll=[3])  # B makes fence 3; A then turns over Farmer Brown
    assert game.revealed_this_turn == [FARMER_BROWN]
    assert summary() == ({2: {"tomato": 1}}, [{}, {"carrot": 1, "onion": 1}], [1, 0], 7, True, 0, False)
    game.apply(hop_action(2, 1), roll=[1, 1])  # A fails fence 2 and keeps the die; no more cards turned over
    assert game.revealed_this_turn == []
    assert summary() == ({2: {"tomato": 1}}, [{}, {"carrot": 1, "onion": 1}], [1, 0], 7, True, 1, False)
    game.apply(STOP)  # B stops
    assert summary() == ({2: {"tomato": 1}}, [{}, {"carrot": 1, "onion": 1}], [1, 1], 6, True, 0, False)
    game.apply(hop_action(2, 1), roll=[1, 2])  # A makes fence 2: the spaces are empty, the game ends
    assert summary() == ({}, [{"tomato": 1}, {"carrot": 1, "onion": 1}], [0, 1], 7, True, -1, True)
    assert game.scores() == [6.0, 17.0]
    assert game.winners() == [1]
    assert game.legal_actions() == []
    assert game.invariant_violations() == []
    assert "17 points" in game.render_text(names=["A", "B"])


# --- observations --------------------------------------------------------------------------
def test_observation_slices_show_the_table_from_the_viewers_seat():
    game = game_with([card(TOMATO, 2, sun=False)], num_players=3)
    game.collections[1][ONION] = 2
    game.white = [1, 2, 0]
    game.pool = 5
    encoder = RabbitsEncoder(3, game.config)
    obs = LAYOUT.unpack(encoder.encode(game, seat=1))
    assert obs["fences"].reshape(5, 7)[0, TOMATO] == 1
    assert obs["collections"].reshape(4, 7)[0, ONION] == 2  # the viewer (seat 1) first
    assert list(obs["white_dice"]) == [2, 0, 1, 0]  # seat 1, seat 2, seat 0, absent
    assert obs["pool"][0] == 5
    assert list(obs["to_act"]) == [0, 0, 1, 0]  # seat 0 acts: two seats to the viewer's left
    assert list(obs["seated"]) == [1, 1, 1, 0]
    assert obs["unseen"][ONION] == 8 and obs["unseen"][TOMATO] == 5
    assert obs["draw_pile"][0] == 63


def test_the_draw_order_does_not_leak_into_observations():
    top = card(TOMATO, 2, sun=False)
    rest = [c for c in range(NUM_CARDS) if c != top]
    a = SnackRabbits(2, np.random.default_rng(0), deck=[top] + rest + [FARMER_BROWN])
    b = SnackRabbits(2, np.random.default_rng(0), deck=[top] + rest[::-1][:55] + [FARMER_BROWN] + rest[::-1][55:])
    encoder = RabbitsEncoder(2, a.config)
    for seat in range(2):
        assert np.array_equal(encoder.encode(a, seat), encoder.encode(b, seat))


# --- random games ----------------------------------------------------------------------------
def recomputed_scores(collections: list[list[int]]) -> list[float]:
    scores = [0.0] * len(collections)
    for kind, value in enumerate(VALUES):
        counts = [c[kind] for c in collections]
        for p, n in enumerate(counts):
            scores[p] += value if n and n == max(counts) else n
    return scores


def run_random_games(num_players: int, games: int) -> None:
    env = snack_rabbits_v0.raw_env(num_players=num_players)

    def check(e):
        assert e.game.invariant_violations() == []

    for seed in range(games):
        result = play_aec(env, seed, check)
        assert env.game.game_over, f"seed {seed}: truncated after {result['steps']} steps"
        assert result["steps"] <= env.max_steps
        assert env.game.scores() == recomputed_scores(env.game.collections)
        assert env.game.deck.count(FARMER_BROWN) == 0


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_random_games_keep_every_card_and_die_and_end(num_players):
    run_random_games(num_players, games=60)


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_2000_random_games(num_players):
    run_random_games(num_players, games=2000)


def test_a_game_where_everyone_only_stops_is_truncated():
    env = snack_rabbits_v0.raw_env()
    env.reset(seed=0)
    while not (env.truncations[env.agent_selection] or env.terminations[env.agent_selection]):
        mask = env.observe(env.agent_selection)["action_mask"]
        env.step(int(np.flatnonzero(mask)[-1]))  # always a stop or take
    assert all(env.truncations.values()) and env.num_steps == env.max_steps == 400
