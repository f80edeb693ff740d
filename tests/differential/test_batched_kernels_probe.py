"""Snack Wars' and Snack Rabbits' batched kernels where random legal play from the deal (test_batched.py)
does not look: the chance the kernels draw themselves (the deal's shuffle, Farmer Brown's place, the
reshuffles of Snack Wars' discard pile, which the reference takes in any order it is given, so only their
distribution can be checked); positions random play reaches too rarely, set by hand and checked step by
step against the reference rules as in test_batched.py (a stop with no die to take, a vegetable nobody
holds at the end); the native bots on masks that legal play does not give (narrowed to hops, empty); and
what a `reset()` in the middle of games leaves of their last step."""

from __future__ import annotations

import numpy as np
import pytest

from snack_envs import specs
from snack_envs.snack_rabbits.components import CARD_KIND, FARMER_BROWN, FARMER_DEPTH, VEGETABLES
from snack_envs.snack_rabbits.components import NUM_CARDS as RABBIT_CARDS
from snack_envs.snack_rabbits.heuristic import HeuristicPolicy as RabbitsBot
from snack_envs.snack_rabbits.rules import STOP, SnackRabbits
from snack_envs.snack_wars.components import NUM_CARDS as WARS_CARDS
from snack_envs.snack_wars.components import copies_by_type
from tests.differential.test_batched import Reference, follow, single
from tests.helpers import option_sets, player_counts
from tests.snack_wars.wars_positions import (
    BURGER,
    CHEESE,
    DONUT,
    MACARON,
    MILKSHAKE,
    RAMEN,
    SUSHI,
    TEMPURA,
    position,
)

pytest.importorskip("numba")
from snack_envs import batched  # noqa: E402

WARS, RABBITS = "snack_wars_v0", "snack_rabbits_v0"


# --- the kernels' own chance ------------------------------------------------------------------------------
def assert_uniform(orders: np.ndarray) -> None:
    """Rows of `orders` [N, L] (card numbers, or types where several cards share one) as uniform shuffles of
    one multiset: at every place, each card is there as often as its share of the cards (within 6 standard
    deviations). A shuffle that skips its last swap never puts the second card of the unshuffled order on
    top; one whose draws come one short of the range (Sattolo's) moves every card off its place."""
    N, L = orders.shape
    cards, copies = np.unique(orders[0], return_counts=True)
    assert (np.sort(orders, axis=1) == np.sort(orders[0])).all(), "every order holds the same cards"
    for card, c in zip(cards, copies):
        p = c / L
        counts = (orders == card).sum(axis=0)
        assert np.abs(counts - N * p).max() < 6 * np.sqrt(N * p * (1 - p)), f"card {card}: {counts.tolist()}"


def test_the_snack_rabbits_deal_is_a_uniform_shuffle_with_farmer_brown_among_the_bottom_11():
    venv = batched.make(RABBITS, num_envs=20_000, seed=3, auto_reset=False)
    venv.reset()
    deck = venv.kernel.deck
    assert (deck == FARMER_BROWN).sum(axis=1).tolist() == [1] * len(deck)
    farmer_at = np.argmax(deck == FARMER_BROWN, axis=1)
    places = np.bincount(deck.shape[1] - 1 - farmer_at)
    N, p = len(deck), 1 / FARMER_DEPTH
    assert len(places) == FARMER_DEPTH and np.abs(places - N * p).max() < 6 * np.sqrt(N * p * (1 - p))
    cards = deck[np.arange(deck.shape[1])[None, :] != farmer_at[:, None]].reshape(N, RABBIT_CARDS)
    assert_uniform(cards)


@pytest.mark.parametrize("food_copies", ["equal", "value"])
def test_the_snack_wars_deal_is_a_uniform_shuffle(food_copies):
    venv = batched.make(WARS, num_envs=20_000, seed=3, auto_reset=False, food_copies=food_copies)
    venv.reset()
    deck = venv.kernel.deck.astype(np.int64)
    assert deck.shape[1] == WARS_CARDS
    assert np.sort(deck[0]).tolist() == [t for t, n in enumerate(copies_by_type(food_copies)) for _ in range(n)]
    assert_uniform(deck)


@pytest.mark.parametrize("mid_draw", [False, True], ids=["at the turn's end", "in the middle of a draw"])
def test_a_reshuffled_discard_pile_is_a_uniform_shuffle(mid_draw):
    """The reference takes any order of the discard pile (the kernel's `outcomes`); the kernel's own order
    must be a fair shuffle, at the end of a turn and in the middle of a draw alike. The discard pile holds
    one Macaron and one Milkshake (the others are in collections): the first two cards it is laid out in."""
    if mid_draw:
        game = position(2, {0: {MACARON: 4, MILKSHAKE: 4}, 1: {DONUT: 2, BURGER: 3}},
                        draw=[CHEESE], then=[TEMPURA], pile_is_exactly=True)
    else:
        game = position(2, {0: {SUSHI: 3, RAMEN: 3, TEMPURA: 1}, 1: {MACARON: 4, MILKSHAKE: 4}},
                        draw=[CHEESE, CHEESE], pile_is_exactly=True)
    assert game.discard[MACARON] == game.discard[MILKSHAKE] == 1
    N = 4000
    venv = batched.make(WARS, num_envs=N, num_players=2, seed=4, auto_reset=False, shuffle_seats=False)
    venv.reset()
    for i in range(N):
        venv.load(i, game)
    venv.step(np.full(N, CHEESE))
    orders = np.array([venv.outcomes(i)["reshuffle"] for i in range(N)])
    assert orders.shape[1] > 30
    assert_uniform(orders)
    follow(WARS, game, [CHEESE])


# --- positions random play seldom reaches ------------------------------------------------------------
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_with_the_pool_empty_and_nobody_else_holding_a_die_a_stop_takes_nothing(num_players):
    """Seat 0 holds all 8 white dice: the stop is legal (with nothing to take) beside the hops; in the env
    before it in the batch, seat 1 holds dice, so a take is legal there and the stop is not."""
    games = []
    for white in ([8] + [0] * (num_players - 1), [4, 4] + [0] * (num_players - 2)):
        game = SnackRabbits(num_players, np.random.default_rng(len(games)))
        game.pool, game.white = 0, white
        game.state_changed()
        assert game.invariant_violations() == []
        games.insert(0, game)
    assert STOP in games[1].legal_actions() and STOP not in games[0].legal_actions()
    venv = batched.make(RABBITS, num_envs=2, num_players=num_players, seed=0, auto_reset=False, shuffle_seats=False)
    venv.reset()
    for i, game in enumerate(games):
        venv.load(i, game)
    obs, mask, _ = venv.observe()
    reference = Reference(specs.get(RABBITS), num_players, {})
    for i, game in enumerate(games):
        expected = reference.observe(game, list(range(num_players)), 0)
        assert np.array_equal(mask[i], expected["action_mask"]), f"env {i}"
        assert np.array_equal(obs[i], expected["observation"]), f"env {i}"
    game = follow(RABBITS, games[1], [STOP])
    assert game.white[0] == 8 and game.pool == 0


def test_a_loaded_snack_rabbits_game_keeps_its_last_hop():
    """A game loaded after a hop exports as it was, the hop's roll included, which its `outcomes` give."""
    game = SnackRabbits(3, np.random.default_rng(5))
    game.apply(next(a for a in game.legal_actions() if a < STOP))
    assert game.last_hop is not None
    venv = single(RABBITS, game)
    assert venv.export(0) == game
    assert venv.outcomes(0) == {"roll": game.last_hop["roll"]}


def test_the_native_rabbits_bot_picks_the_python_bots_action_when_only_hops_are_allowed():
    """A mask the caller narrowed to the hops (no stop): below the bot's threshold it takes the first hop
    allowed, as the Python bot does."""
    venv = batched.make(RABBITS, num_envs=64, num_players=3, seed=2)
    bot = RabbitsBot(3)
    obs, mask, _ = venv.reset()
    rng = np.random.default_rng(2)
    checked = 0
    for _ in range(40):
        hops = mask.copy()
        hops[:, STOP:] = 0
        rows = hops.any(axis=1)
        native = venv.kernel.heuristic_actions(obs[rows], hops[rows])
        python = [bot.act(o, m) for o, m in zip(obs[rows], hops[rows])]
        assert native.tolist() == python
        checked += int(rows.sum())
        obs, mask, *_ = venv.step((rng.random(mask.shape) * mask).argmax(1))
    assert checked > 1000


@pytest.mark.parametrize("name", [WARS, RABBITS])
def test_the_native_bot_answers_minus_one_for_a_row_with_no_legal_action_and_the_python_bots_action_elsewhere(name):
    """`heuristic_actions` documents -1 for a row whose mask allows nothing (every other row of the batch)."""
    spec = specs.get(name)
    venv = batched.make(name, num_envs=16, seed=0)
    bot = spec.heuristic(2)
    obs, mask, _ = venv.reset()
    for _ in range(5):
        obs, mask, *_ = venv.step(venv.random_actions())
    mask = mask.copy()
    mask[::2] = 0
    actions = venv.kernel.heuristic_actions(obs, mask)
    assert actions[::2].tolist() == [-1] * 8
    assert actions[1::2].tolist() == [bot.act(o, m) for o, m in zip(obs[1::2], mask[1::2])]


def test_a_snack_rabbits_vegetable_that_nobody_holds_scores_nothing():
    """Every Tomato card left in the draw pile below Farmer Brown: nobody has the majority of none, and no
    seat scores for it (a majority of 0 cards would give every seat the same points, which the margin
    rewards of test_batched.py do not show). The finished game, loaded, is over in the kernel too."""
    game = SnackRabbits(3, np.random.default_rng(0))
    tomato = VEGETABLES.index("tomato")
    collections = [[0] * len(VEGETABLES) for _ in range(3)]
    for card in range(RABBIT_CARDS):
        if CARD_KIND[card] != tomato:
            collections[card % 3][CARD_KIND[card]] += 1
    game.deck = [card for card in range(RABBIT_CARDS) if CARD_KIND[card] == tomato]
    game.fences = [[0] * len(VEGETABLES) for _ in game.fences]
    game.collections, game.farmer_revealed, game.game_over, game.current_player = collections, True, True, -1
    game.revealed_this_turn, game.last_hop = [], None
    game.state_changed()
    assert game.invariant_violations() == []
    venv = single(RABBITS, game)
    assert venv.kernel.over()[0] and not venv.live[0]
    expected = Reference(specs.get(RABBITS), 3, {}).observe(game, [0, 1, 2], 0)
    assert np.array_equal(venv.observe()[0][0], expected["observation"])  # nobody to act
    assert venv.kernel.scores()[0].tolist() == game.scores()
    assert np.flatnonzero(venv.kernel.winners()[0]).tolist() == game.winners()


# --- the deal ---------------------------------------------------------------------------------------------
DEAL_CASES = [(name, n, options) for name in (WARS, RABBITS)
              for options in option_sets(specs.get(name).rules_class) for n in player_counts(name)]


@pytest.mark.parametrize("name, n, options", DEAL_CASES, ids=[f"{c[0]} n={c[1]} {c[2]}" for c in DEAL_CASES])
def test_a_reset_in_the_middle_of_games_deals_the_reference_deal_of_each_deck_with_nothing_left_of_the_last_step(
        name, n, options):
    """After some play, `reset()` deals every env anew: each env is the reference game dealt from the same
    deck (Snack Wars: seat 0 has drawn; Snack Rabbits: the first cards are turned over, no hop yet), with
    no `outcomes`, though the last step of the game dealt away reshuffled or rolled, and (Snack Wars) no
    seats passed, though that step passed over full collections."""
    spec = specs.get(name)
    venv = batched.make(name, num_envs=32, num_players=n, seed=n, auto_reset=False, **options)
    left_by_the_last_step = [lambda i: bool(venv.outcomes(i))]
    if name == WARS:
        left_by_the_last_step.append(lambda i: bool(venv.export(i).passed))
    for left in left_by_the_last_step:
        venv.reset()
        for _ in range(300):
            venv.step(venv.random_actions())
            if any(left(i) for i in range(32)):
                break
        assert any(left(i) for i in range(32))
        venv.reset()
        for i in range(32):
            deck = venv.kernel.deck[i].tolist()  # the whole deck, the cards already drawn or turned over included
            assert venv.export(i) == spec.rules_class(n, np.random.default_rng(0), deck=deck, **options), f"env {i}"
            assert venv.outcomes(i) == {}, f"env {i}"
