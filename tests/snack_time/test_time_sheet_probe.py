"""Snack Time's score sheet (snack_envs/snack_time/sheet.py) and the policy network that reads its map, checked
against values worked out by hand from the rules:

- a fresh sheet holds one network per sewer entrance and nothing else;
- the sheet check (`invariant_violations`) reports, each with its own message, badges outside the 9 boxes,
  creatures with more traits than their 4 slots (or a negative count), cells whose accepting sides differ
  from what their neighbours offer, connected (wet) cells that differ from a flood fill, and cells whose place
  in the network forest does not match the map;
- the convolutional policy for the map (snack_envs/networks.py): it samples straight from its extractor's logits,
  its optimizer trains exactly its weights, and its saved weights leave out the index tables its spec rebuilds.

The scripted game of tests/snack_time/time_scripted.py has its entrances 1..5 at A1, C1, E3, B5, E6.
"""

from __future__ import annotations

import numpy as np
import pytest

from snack_envs.snack_time.components import E, N, S, W, parse_cell
from tests.snack_time.time_scripted import ENTRANCES, NE, NW, SE, SW, draw_path, new_game, set_traits


def _problems(game) -> list[str]:
    return [m.removeprefix("seat 0: ") for m in game.invariant_violations()]


def hand_game():
    """A one-player game to edit by hand, in round 4, so that the pipes and traits drawn by hand fit the dice
    rolled so far (the check counts them)."""
    game = new_game(1)
    game.round = 4
    return game


def test_a_fresh_sheet_holds_one_network_per_entrance_and_nothing_else():
    game = new_game(1)
    entrance_cells = [parse_cell(x) for x in ENTRANCES]  # 9, 11, 29, 42, 53
    assert entrance_cells == [9, 11, 29, 42, 53]
    for cell in range(64):
        if cell in entrance_cells:
            k = entrance_cells.index(cell)
            # its own root, its only member, reaching only itself (entrance k is bit 4 + k)
            assert (game.parent[0][cell], game.members[0][cell], game.reach[0][cell]) == (cell, 1 << cell, 1 << (4 + k))
        else:
            assert (game.parent[0][cell], game.members[0][cell], game.reach[0][cell]) == (-1, 0, 0), cell
    assert game.links[0] == [0, 0, 0, 0] and game.wet[0] == 0
    # accepting sides: the cells beside a creature or an entrance accept a pipe opening towards it
    accept = {}
    for name, side in [
        ("A0", W), ("<1", N), ("F0", E), (">1", N), ("<6", S), ("A7", W), (">6", S), ("F7", E),  # beside creatures
        ("A0", S), ("<1", E), ("B1", W), ("A2", N),  # beside A1 (A0 and <1 are also beside NW)
        ("C0", S), ("B1", E), ("D1", W), ("C2", N),  # beside C1 (B1 is also beside A1)
        ("E2", S), ("D3", E), ("F3", W), ("E4", N),  # beside E3
        ("B4", S), ("A5", E), ("C5", W), ("B6", N),  # beside B5
        ("E5", S), ("D6", E), ("F6", W), ("E7", N),  # beside E6
    ]:
        accept[parse_cell(name)] = accept.get(parse_cell(name), 0) | side
    assert {cell: a for cell, a in enumerate(game.accept[0]) if a} == accept
    assert _problems(game) == []


def test_the_sheet_check_reports_badges_outside_the_nine_boxes():
    game = hand_game()
    last_badge = "badges [9] with end reasons []"  # marking the 9th badge ends the game after the round
    for badges, expected in [(0, []), (9, [last_badge]), (10, ["badges 10"]), (-1, ["badges -1"])]:
        game.badges[0] = badges
        assert _problems(game) == expected, badges


def test_the_sheet_check_reports_more_traits_than_four_slots_or_a_negative_count():
    game = hand_game()
    set_traits(game, 0, NW, eyes=2, teeth=1, crossed=(0, 1, 0))  # 3 uncrossed + 1 crossed: all 4 slots used
    assert _problems(game) == []
    set_traits(game, 0, NW, eyes=2, teeth=2, tentacles=1)  # 5 traits on a 4-slot creature
    assert _problems(game) == ["NW: traits [2, 2, 1], crossed [0, 0, 0]"]
    set_traits(game, 0, NW)
    set_traits(game, 0, SE, crossed=(0, 0, 5))
    assert _problems(game) == ["SE: traits [0, 0, 0], crossed [0, 0, 5]"]
    set_traits(game, 0, SE)
    set_traits(game, 0, NE, teeth=-1)
    assert _problems(game) == ["NE: traits [0, -1, 0], crossed [0, 0, 0]"]
    set_traits(game, 0, NE)
    set_traits(game, 0, SW, crossed=(-1, 1, 0))  # sums to 0 but a count is negative
    assert _problems(game) == ["SW: traits [0, 0, 0], crossed [-1, 1, 0]"]


def test_the_sheet_check_reports_accepting_sides_that_differ_from_the_neighbours():
    game = hand_game()
    game.accept[0][parse_cell("C3")] = N  # nothing around C3 (C2, D3, C4, B3) offers a side
    game.state_changed()  # `fits` follows `accept`: only the accepting sides themselves are wrong
    assert _problems(game) == ["accepting sides at C3: 1, expected 0"]

    game = hand_game()
    game.accept[0][parse_cell("A2")] = 0  # A2 lies south of entrance 1 at A1: it accepts on its north side
    game.state_changed()
    assert _problems(game) == ["accepting sides at A2: 0, expected 1"]

    game = hand_game()
    draw_path(game, 0, ["<0", "<1", "A1"])  # a pipe at <1 opening N (to NW) and E (to A1): <2 below it gets nothing
    game.accept[0][parse_cell("<2")] = N
    game.state_changed()
    assert _problems(game) == ["accepting sides at <2: 1, expected 0"]


def test_the_sheet_check_reports_a_network_forest_that_differs_from_the_map():
    game = hand_game()
    game.parent[0][parse_cell("C3")] = 0  # an empty cell hung under cell 0 (<0, NW's cell)
    assert _problems(game) == ["network forest: C3 is a node iff it holds a pipe or an entrance"]

    game = hand_game()
    game.parent[0][parse_cell("C3")] = parse_cell("C3")  # an empty cell as a root of its own
    assert _problems(game) == ["network forest: C3 is a node iff it holds a pipe or an entrance"]

    game = hand_game()
    game.parent[0][parse_cell("E3")] = -1  # entrance 3 taken off the forest
    assert _problems(game) == ["network forest: E3 is a node iff it holds a pipe or an entrance"]


def test_the_sheet_check_reports_connected_cells_that_differ_from_the_map():
    game = hand_game()
    draw_path(game, 0, ["<0", "<1", "A1"])  # NW -> a pipe at <1 -> entrance 1 at A1
    assert game.wet[0] == 1 << parse_cell("<1") | 1 << parse_cell("A1") and _problems(game) == []
    game.wet[0] = 1 << parse_cell("<1")  # A1 forgotten
    assert _problems(game) == ["connected cells differ from a recomputation"]
    game.wet[0] |= 1 << parse_cell("A1") | 1 << parse_cell("C1")  # entrance 2 at C1 reaches no creature
    assert _problems(game) == ["connected cells differ from a recomputation"]


# ---------------------------------------------------------------- the convolutional policy that plays Snack Time's map
def _small_grid_policy():
    torch = pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    from snack_envs.networks import GridPolicy
    from snack_envs.single_agent import SingleAgentEnv
    from snack_envs.snack_time.observation import GRID

    env = SingleAgentEnv("snack_time_v0", opponents=["random"])
    torch.manual_seed(0)
    policy = GridPolicy(env.observation_space, env.action_space, lambda progress: 1e-3 * progress, grid=GRID,
                        channels=4, dilations=[1])
    return env, policy


def test_the_grid_policy_samples_from_the_extractors_logits_and_trains_exactly_its_own_weights():
    torch = pytest.importorskip("torch")
    env, policy = _small_grid_policy()
    n = int(env.action_space.n)
    obs = torch.as_tensor(np.stack([env.reset(seed=s)[0] for s in (1, 2)]))
    with torch.no_grad():
        logits = policy.features_extractor(obs)[:, :n]  # no action layer on top of the extractor's logits
        probs = policy.get_distribution(obs).distribution.probs
    np.testing.assert_allclose(probs.numpy(), torch.softmax(logits, 1).numpy(), rtol=1e-5, atol=1e-7)
    # The optimizer steps the policy's parameters, no more and no fewer, at the schedule's starting rate.
    stepped = [p for group in policy.optimizer.param_groups for p in group["params"]]
    assert {id(p) for p in stepped} == {id(p) for p in policy.parameters()} and len(stepped) == len(list(policy.parameters()))
    assert [group["lr"] for group in policy.optimizer.param_groups] == [1e-3]


def test_a_grid_policys_saved_weights_leave_out_the_index_tables_rebuilt_from_its_spec():
    torch = pytest.importorskip("torch")
    env, policy = _small_grid_policy()
    keys = list(policy.state_dict())
    assert keys and all(k.split(".")[-1] not in ("plane_index", "rest_index", "action_source") for k in keys)
    # so weights saved without them load (strictly) into a policy built from the same spec
    weights = {k: v.clone() for k, v in policy.state_dict().items()}
    _, other = _small_grid_policy()
    other.load_state_dict(weights, strict=True)
    obs = torch.as_tensor(env.reset(seed=3)[0][None])
    with torch.no_grad():
        np.testing.assert_allclose(other.features_extractor(obs).numpy(), policy.features_extractor(obs).numpy(), atol=0)
