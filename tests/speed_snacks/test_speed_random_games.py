"""Random Speed Snacks games with every module combination: invariants after every tick, round scores
recomputed independently, toques and starting players by the rulebook, masks never empty, games that end."""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest

from snack_envs.speed_snacks.components import COCKROACH, HURRY_UP, NUM_SNACKS
from snack_envs.speed_snacks.rules import MODULES, SpeedSnacks

COMBOS = [dict(zip(MODULES, flags)) for flags in product([False, True], repeat=len(MODULES))]
COMBO_IDS = ["".join("1" if on else "0" for on in combo.values()) for combo in COMBOS]


def round_bound(idle_ticks: int) -> int:
    """Ticks a round can last at full speed, whatever the players do: at most 89 actions go through (81 cards,
    6 XXL draws, 2 dishes), every tick that is not all-wait has one, all-wait runs are shorter than idle_ticks
    but the last; then at most 3 scoring ticks (inspection, two Menu decisions)."""
    return 90 * idle_ticks + 3


def recompute_points(scored: dict) -> list[int]:
    """A round's points from the scored table alone (see the rulebook's Scoring and Modules 1-4)."""
    orders = [0] * NUM_SNACKS
    for pile in scored["customer"]:
        under = [c for c in pile if c != HURRY_UP]
        if under:
            orders[under[-1]] += 1  # the snack under a Hurry-up still shows
    points = []
    for p in (0, 1):
        tops = [pile[-1] for pile in scored["kitchens"][p]]
        if scored["menu_changed"][p] is not None:
            pile, snack = scored["menu_changed"][p]
            tops[pile] = snack
        total = sum(orders[t] for t in tops if t != COCKROACH)
        if scored["dish"][p] is not None:
            total += sum(1 for t in tops if t == scored["dish"][p])
        for snack, stack in zip(scored["xxl_cards"][p], scored["xxl_stacks"][p]):
            total += 3 if stack == [snack] * 3 else -3
        inspected = scored["inspected"][1 - p]  # the opponent chose one of my piles
        if inspected is not None:
            total -= scored["kitchens"][p][inspected].count(COCKROACH)
        points.append(total + scored["menu_bonus"][p])
    return points


def play_checked(seed: int, **options) -> SpeedSnacks:
    game = SpeedSnacks(2, np.random.default_rng(seed), **options)
    policy = np.random.default_rng(seed + 1000)
    bound = SpeedSnacks.default_max_steps(2) / min(game.config["speed_0"], game.config["speed_1"])
    round_start = 0
    while not game.game_over:
        legal = [game.legal_actions(p) for p in (0, 1)]
        assert legal[0] and legal[1], "empty mask"
        assert all(game.action_mask(p).sum() == len(legal[p]) for p in (0, 1))
        toques = list(game.toques)
        game.apply_joint([int(policy.choice(legal[p])) for p in (0, 1)])
        problems = game.invariant_violations()
        assert not problems, (game.tick, problems)
        result = game.round_result()
        if result is None:
            continue
        scored = game.last_round
        points = recompute_points(scored)
        assert scored["points"] == points
        if points[0] == points[1]:
            assert result == [0.0, 0.0] and scored["winners"] == [0, 1]
        else:
            winner = 0 if points[0] > points[1] else 1
            assert scored["winners"] == [winner] and result[winner] == 1.0 and result[1 - winner] == -1.0
        # Menu toques (3 Menus each) come before the round's toque.
        menu_toques = [b - a for a, b in zip(toques, scored["toques_before"])]
        assert all(t in (0, 1) for t in menu_toques) and (options.get("menu") or menu_toques == [0, 0])
        after = [t + (p in scored["winners"]) for p, t in enumerate(scored["toques_before"])]
        reached = [p for p in (0, 1) if after[p] >= 5]
        if len(reached) == 2:
            after = [4, 4]
        elif reached:
            after[reached[0]] = 5
        assert game.toques == after and game.game_over == (len(reached) == 1)
        if not game.game_over:
            assert game.round == scored["round"] + 1 and game.phase == "play"
            if len(scored["winners"]) == 1:
                assert game.starting_player == 1 - scored["winners"][0]
            elif game.toques[0] != game.toques[1]:
                assert game.toques[game.starting_player] < game.toques[1 - game.starting_player]
        if game.config["speed_0"] == game.config["speed_1"] == 1:
            assert game.tick - round_start <= round_bound(game.config["idle_ticks"])
        round_start = game.tick
        assert game.tick <= bound
    assert game.winners() in ([0], [1]) and max(game.toques) == 5 and min(game.toques) <= 4
    return game


def options_for(combo: dict, seed: int) -> dict:
    options = dict(combo)
    if seed % 3 == 2:  # some games with slower players
        options.update(speed_0=0.6, speed_1=0.9)
    if seed % 4 == 3:
        options.update(idle_ticks=1)
    return options


@pytest.mark.parametrize("combo", COMBOS, ids=COMBO_IDS)
def test_random_games_keep_every_invariant(combo):
    rounds = 0
    for seed in range(3):
        rounds += play_checked(seed, **options_for(combo, seed)).round
    assert rounds >= 3 * 5  # at least 5 rounds to a 5-toque win


@pytest.mark.slow
@pytest.mark.parametrize("combo", COMBOS, ids=COMBO_IDS)
def test_1008_random_games_keep_every_invariant(combo):
    for seed in range(100, 163):  # 63 games for each of the 16 combinations
        play_checked(seed, **options_for(combo, seed))


def test_every_module_combination_reaches_its_module_decisions():
    """The random games above do exercise the scoring-time phases and module actions."""
    seen = set()
    for seed in range(6):
        game = SpeedSnacks(2, np.random.default_rng(seed), **dict.fromkeys(MODULES, True))
        policy = np.random.default_rng(seed)
        while not game.game_over:
            seen.add(game.phase)
            actions = [int(policy.choice(game.legal_actions(p))) for p in (0, 1)]
            seen.update(f"action {a}" for a in actions)
            game.apply_joint(actions)
    assert {"play", "inspection", "menu"} <= seen
    for action in (30, 31, 37, 42, 43, 18, 19, 24):  # draw XXL, dish, inspect, Menu choices, new Hurry-up pile, slide, XXL
        assert f"action {action}" in seen, action
