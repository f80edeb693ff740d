"""The Snack Time heuristic bot: legal play with every option and player count, clear decisions in set
positions, and a score far above random's."""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest

from snack_envs.agents import RandomPolicy, heuristic_policy
from snack_envs.single_agent import SingleAgentEnv
from snack_envs.snack_time.components import CREATURE_CELLS, parse_cell
from snack_envs.snack_time.heuristic import HeuristicPolicy, manhattan
from snack_envs.snack_time.observation import SnackTimeEncoder
from snack_envs.snack_time.rules import PIPE_BASE, NUM_PATTERNS, SnackTime, damage_action, trait_action
from tests.helpers import Checked, play_first_legal
from tests.snack_time.time_scripted import (
    EYE,
    L,
    NE,
    NW,
    SE,
    SW,
    TOOTH,
    TRAP,
    draw_path,
    finish_round,
    new_game,
    set_traits,
)
from snack_envs.training.evaluate import mean_interval, play_game

ENV = "snack_time_v0"
OPTIONS = ("rat_snacks", "advanced_entrances", "advanced_traps")
TEN = 27  # value 10, needs 2 Eyes, a Tooth and a Tentacle
JUNK = 2  # value 1, needs nothing, Badge
TWO_FOR_AN_EYE = 4  # value 2, needs an Eye
NOT_FOR_2_1_1 = [24, 22, 15, 11]  # entrances 2-5: pedestrians a creature with traits 2-1-1 cannot eat


def decision(game: SnackTime, seat: int = 0) -> int:
    """What the heuristic in `seat` plays, from that seat's observation and mask only."""
    policy = HeuristicPolicy(game.num_players, **game.config)
    observation = SnackTimeEncoder(game.num_players, game.config).encode(game, seat)
    return policy.act(observation, game.action_mask(seat))


def play_pieces(game: SnackTime, seat: int = 0) -> list[int]:
    """Let the heuristic draw the pieces of `seat` this round; the cells it drew on."""
    cells, start = [], game.round
    while game.round == start and game.phase == "place" and game.current_player == seat and any(game.pipes_left[seat]):
        action = decision(game, seat)
        cells.append((action - PIPE_BASE) // NUM_PATTERNS)
        game.apply(action, seat)
    return cells


def to_pieces(game: SnackTime, creature: int = SE) -> None:
    """Draw the rolled traits on `creature` by hand, so the pieces are next."""
    while any(game.traits_left[0]):
        game.apply(trait_action(game.traits_left[0].index(max(game.traits_left[0])), creature))


# --- legal play ------------------------------------------------------------------------------------
OPTION_SETS = [dict(zip(OPTIONS, flags)) for flags in product([False, True], repeat=len(OPTIONS))]
OPTION_IDS = ["".join("01"[v] for v in options.values()) for options in OPTION_SETS]


def play_checked(options: dict, tables: tuple[tuple[int, int], ...], first_seed: int = 0) -> None:
    """`games` games for each (num_players, games) in `tables`; bot and random seats alternate, starting
    with either, and every action the bot picks must be in its mask."""
    for num_players, games in tables:
        bot = Checked(heuristic_policy(ENV, num_players, **options))
        for seed in range(first_seed, first_seed + games):
            lineup = [bot if (seat + seed) % 2 == 0 else RandomPolicy(seat) for seat in range(num_players)]
            result = play_game(ENV, lineup, seed=seed, num_players=num_players, **options)
            assert result["finished"]
        assert bot.decisions > 20 * games


@pytest.mark.parametrize("options", OPTION_SETS, ids=OPTION_IDS)
def test_it_plays_only_legal_actions(options):
    play_checked(options, ((1, 2), (2, 2), (4, 1)))


@pytest.mark.slow
@pytest.mark.parametrize("options", OPTION_SETS, ids=OPTION_IDS)
def test_it_plays_only_legal_actions_in_many_games(options):
    play_checked(options, ((1, 30), (2, 30), (4, 15)), first_seed=100)


def test_it_serves_as_the_opponent_of_a_single_agent_env():
    env = SingleAgentEnv(ENV, opponents=["heuristic"], num_players=2, rat_snacks=True, advanced_traps=True)
    assert env.opponent_pool[0].name == "heuristic" and env.opponent_pool[0].advanced_traps
    terminated, info = play_first_legal(env, seed=1)
    assert terminated and not info.get("illegal_action")


# --- traits and damage -----------------------------------------------------------------------------
def test_a_trait_fills_a_fed_creatures_open_slot_three_sure_points():
    game = new_game(1, rolls=[([EYE, EYE], [L, L, L], None)])
    game.snacks[0][NE] = [0, 1, 3]  # NE has eaten three snacks and has an open slot
    set_traits(game, 0, NE, eyes=1, teeth=1, tentacles=1)
    assert decision(game) == trait_action(EYE, NE)


def test_a_trait_completes_a_mixed_set_rather_than_a_one_sided_one():
    game = new_game(1, rolls=[([TOOTH, TOOTH], [L, L, L], None)])
    for creature in (NW, SW):
        set_traits(game, 0, creature, tentacles=1, crossed=(2, 1, 0))  # no open slot
    set_traits(game, 0, NE, eyes=2, tentacles=1)  # 2-1-1 with a Tooth: the 10s
    set_traits(game, 0, SE, tentacles=3)  # 0-1-3: a few cheap pedestrians more
    assert decision(game) == trait_action(TOOTH, NE)


def test_damage_crosses_off_the_trait_least_needed():
    game = new_game(1, top=[TRAP[0], 0])  # round 2 draws the trap of entrance 1
    draw_path(game, 0, ["<0", "A0", "A1"])
    set_traits(game, 0, NW, eyes=2, teeth=1, tentacles=1)
    finish_round(game)
    assert game.phase == "trap" and game.pending[0] == [NW]
    assert decision(game) == damage_action(NW, EYE)  # the second Eye: 1-1-1 keeps the widest menu


# --- pipes -------------------------------------------------------------------------------------------------
def test_it_joins_a_ready_creature_to_an_entrance_as_a_10_passes():
    game = new_game(1, row=[TEN] + NOT_FOR_2_1_1, rolls=[([TOOTH, TOOTH], [L, L, L], None)])
    set_traits(game, 0, NW, eyes=2, teeth=1, tentacles=1)  # NW is one L from entrance 1 (A1)
    to_pieces(game)
    first = decision(game)
    assert (first - PIPE_BASE) // NUM_PATTERNS in (parse_cell("A0"), parse_cell("<1"))
    game.apply(first)
    assert game.links[0][NW] == 0b00001
    play_pieces(game)  # the round's snacks follow
    assert game.round == 2 and game.snacks[0][NW] == [TEN]


def test_it_keeps_a_ready_creature_one_pipe_short_while_junk_passes():
    game = new_game(1, row=[JUNK] + NOT_FOR_2_1_1, rolls=[([TOOTH, TOOTH], [L, L, L], None)])
    set_traits(game, 0, NW, eyes=2, teeth=1, tentacles=1)
    to_pieces(game)
    play_pieces(game)
    assert game.links[0][NW] == 0


def test_it_keeps_a_creature_with_open_trait_slots_one_pipe_short():
    game = new_game(1, row=[TWO_FOR_AN_EYE] + NOT_FOR_2_1_1, rolls=[([TOOTH, TOOTH], [L, L, L], None)])
    set_traits(game, 0, NW, eyes=1)  # it would eat a 2 and then fill up on cheap pedestrians
    to_pieces(game)
    play_pieces(game)
    assert game.links[0][NW] == 0


def test_with_every_creature_fed_a_piece_goes_onto_the_rat_its_network_reaches():
    game = new_game(1, rat_snacks=True, rolls=[([TOOTH, TOOTH], [L, L, L], "B1")])
    assert game.rats[parse_cell("B1")] == 1
    draw_path(game, 0, ["<0", "A0", "A1"])  # NW reaches entrance 1 at A1, next to the rat
    for creature in (NW, NE, SW, SE):
        game.snacks[0][creature] = [0, 1, 3]
    to_pieces(game)
    assert play_pieces(game)[0] == parse_cell("B1")
    assert game.rat_points(0) == 1


def test_chosen_entrances_go_near_every_creature():
    game = SnackTime(1, np.random.default_rng(0), advanced_entrances=True)
    while game.phase == "entrance":
        game.apply(decision(game))
    for home in CREATURE_CELLS:
        assert min(manhattan(home, cell) for cell in game.entrances) <= 3


# --- strength ----------------------------------------------------------------------------------------
def test_it_scores_far_above_random_in_solo_mode():
    """200 solo games each, the same seeds. Means with 95% intervals: here heuristic 89.4 [86.8, 92.0], random
    24.1 [21.3, 26.8] (a gap of 60 between the bounds); over 500 games (seeds 0-499) 88.2 [86.6, 89.9] and
    25.2 [23.5, 26.9]."""
    scores = {}
    for policy in (HeuristicPolicy(1), RandomPolicy(0)):
        scores[policy.name] = [play_game(ENV, [policy], seed=seed, num_players=1)["scores"][0] for seed in range(200)]
    _, heuristic_low, _ = mean_interval(scores["heuristic"])
    _, _, random_high = mean_interval(scores["random"])
    assert heuristic_low > random_high + 45, (mean_interval(scores["heuristic"]), mean_interval(scores["random"]))
