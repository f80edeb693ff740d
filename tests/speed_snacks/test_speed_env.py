"""The Speed Snacks env: documentation, per-agent speeds, observations read back against the state,
hidden information, both kitchen modes, round rewards and the AEC view."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from snack_envs import speed_snacks_v1
from snack_envs.speed_snacks.components import COCKROACH, HURRY_UP, MENUS
from snack_envs.speed_snacks.observation import LAYOUT, SpeedSnacksEncoder
from snack_envs.speed_snacks.rules import DRAW_XXL, HURRY, INSPECT, MENU, MODULES, WAIT, SpeedSnacks
from tests.helpers import play_aec, random_joint
from tests.speed_snacks.scripted import DONER, FRIES, HU, PIZZA, ROACH, SUSHI, table

ALL = dict.fromkeys(MODULES, True)


def test_docstring_documents_the_api_and_every_observation_field():
    doc = speed_snacks_v1.__doc__
    for text in ("parallel_env()", "Discrete(75)", "reward=\"round\"", "kitchen_obs", "speed_0", "idle_ticks", "3000"):
        assert text in doc, text
    for name in LAYOUT.slices:
        assert f"`{name}`" in doc
    env = speed_snacks_v1.parallel_env()
    assert env.metadata["name"] == "speed_snacks_v1"
    assert env.unwrapped.reward_modes == ("win", "round")


def test_speeds_belong_to_agents_whatever_their_seats():
    env = speed_snacks_v1.raw_parallel_env(speed_0=0.3, speed_1=0.8)
    seats = set()
    for seed in range(12):
        env.reset(seed=seed)
        seat0 = env.agent_seats["player_0"]
        seats.add(seat0)
        assert env.game.config[f"speed_{seat0}"] == 0.3 and env.game.config[f"speed_{1 - seat0}"] == 0.8
        obs = env.observe("player_0")["observation"]
        assert obs[LAYOUT.slices["speeds"]].tolist() == pytest.approx([0.3, 0.8])
    assert seats == {0, 1}
    assert env.max_steps == 10000  # the default bound grows for slow players (3000 / 0.3)
    assert speed_snacks_v1.raw_parallel_env(max_steps=50, speed_0=0.5).max_steps == 50


def decoded(vec: np.ndarray) -> dict:
    return {name: vec[s].tolist() for name, s in LAYOUT.slices.items()}


def one_hot(index, size):
    return [1.0 if i == index else 0.0 for i in range(size)]


def expected_fields(game: SpeedSnacks, me: int, placed: bool) -> dict:
    """The observation written out field by field from the state, independently of the encoder."""
    opp = 1 - me
    scoring = game.phase in ("menu", "over")  # tops turn face up at scoring, after the inspection
    kitchen_kind = {**{s: s for s in range(6)}, COCKROACH: 6}
    out = {}
    out["phase"] = [float(game.phase == p) for p in ("play", "inspection", "menu")]
    decider = game.menu_order[0] if game.phase == MENU else None
    out["menu_decider"] = [float(decider == me), float(decider == opp)]
    out["hand"] = one_hot(8 if game.hands[me] is None else game.hands[me], 9)
    piles = []
    for pile in game.customer:
        snacks = [c for c in pile if c != HURRY_UP]
        piles += [1.0] + (one_hot(snacks[-1], 6) if snacks else [0.0] * 6) + [float(HU in pile), float(pile == [HU])]
    out["customer_piles"] = piles + [0.0] * (45 - len(piles))
    out["orders"] = [float(sum(1 for p in game.customer if [c for c in p if c != HU][-1:] == [s])) for s in range(6)]
    out["hurry_ups"], out["draw_pile"], out["idle"] = [game.hurry_ups], [len(game.deck)], [game.idle]
    sizes = [[len(p) for p in game.kitchens[q]] + [0] * (5 - len(game.kitchens[q])) for q in (me, opp)]
    out["kitchen_sizes"] = sizes[0] + sizes[1]

    def tops(q):
        vals = []
        for pile in game.kitchens[q]:
            vals += one_hot(kitchen_kind[pile[-1]], 7)
        return vals + [0.0] * (35 - len(vals))

    out["my_kitchen_tops"] = tops(me) if placed or scoring else [0.0] * 35
    contents = []
    for pile in game.kitchens[me]:
        contents += [float(sum(1 for c in pile if kitchen_kind[c] == k)) for k in range(7)]
    out["my_kitchen_contents"] = contents + [0.0] * (35 - len(contents)) if placed else [0.0] * 35
    out["opp_kitchen_tops"] = tops(opp) if scoring else [0.0] * 35
    out["toques"] = [game.toques[me], game.toques[opp]]
    out["starting_player"] = [float(game.starting_player == me), float(game.starting_player == opp)]
    points = game.round_points() if scoring else [0, 0]
    out["round_points"] = [points[me], points[opp]]
    out["penalties"] = [game.penalties[me], game.penalties[opp]]
    out["dishes_left"] = [float(s in game.dishes_left) for s in range(6)]
    out["dishes_taken"] = sum((one_hot(game.dish[q], 6) if game.dish[q] is not None else [0.0] * 6 for q in (me, opp)), [])
    out["xxl_pile"] = [len(game.xxl_pile)]
    mine = []
    last = game.last_tick or {"actions": [WAIT, WAIT], "result": ["wait", "wait"]}
    drew = last["actions"][me] == DRAW_XXL and last["result"][me] == "done"  # seen as it is drawn
    for i, snack in enumerate(game.xxl_cards[me]):
        shown = placed or drew and i == len(game.xxl_cards[me]) - 1
        mine += [1.0] + (one_hot(snack, 6) if shown else [0.0] * 6)
    out["my_xxl"] = mine + [0.0] * (42 - len(mine))
    stacks = [[len(s) for s in game.xxl_stacks[q]] + [0] * (6 - len(game.xxl_stacks[q])) for q in (me, opp)]
    out["xxl_stacks"] = stacks[0] + stacks[1]
    matching = [s.count(c) for c, s in zip(game.xxl_cards[me], game.xxl_stacks[me])] if placed else []
    out["my_xxl_matching"] = matching + [0] * (6 - len(matching))
    out["opp_xxl"] = [len(game.xxl_cards[opp])]
    menus = []
    for m in game.menu_hands[me]:
        menus += [float(s in MENUS[m]) for s in range(6)]
    out["my_menus"] = menus + [0.0] * (12 - len(menus))
    out["menus_fulfilled"] = [len(game.menus_fulfilled[me]), len(game.menus_fulfilled[opp])]
    out["menu_piles"] = [len(game.menu_piles[me]), len(game.menu_piles[opp])]
    out["opp_menu_hand"] = [len(game.menu_hands[opp])]
    out["modules"] = [float(game.config[m]) for m in MODULES]
    out["speeds"] = [game.config[f"speed_{me}"], game.config[f"speed_{opp}"]]
    return {k: [float(np.float32(x)) for x in v] for k, v in out.items()}


@pytest.mark.parametrize("kitchen_obs", ["placed", "sizes"])
@pytest.mark.parametrize("modules", [dict.fromkeys(MODULES, False), ALL, dict(xxl=True, menu=True)], ids=["base", "all", "xxl+menu"])
def test_observations_read_back_as_the_state_and_fit_the_space(modules, kitchen_obs):
    env = speed_snacks_v1.raw_parallel_env(kitchen_obs=kitchen_obs, speed_1=0.7, **modules)
    space = env.observation_space("player_0")
    rng = np.random.default_rng(4)
    phases = set()
    for seed in range(2):
        observations, _ = env.reset(seed=seed)
        while env.agents:
            for agent in env.agents:
                seat = env.agent_seats[agent]
                assert space.contains(observations[agent])
                assert decoded(observations[agent]["observation"]) == expected_fields(env.game, seat, kitchen_obs == "placed")
                assert observations[agent]["action_mask"].tolist() == env.game.action_mask(seat).tolist()
            phases.add(env.game.phase)
            observations, *_ = env.step(random_joint(env, observations, rng))
    assert phases >= ({"play", "inspection", "menu"} if modules.get("menu") and modules.get("health_department") else {"play"})


def swap(game: SpeedSnacks, old_cards: list[int], new_cards: list[int]) -> None:
    """Put `old_cards` back into the draw pile and take `new_cards` out of it (the caller places them)."""
    game.deck += old_cards
    for card in new_cards:
        game.deck.remove(card)


def test_hidden_information_never_reaches_the_observation():
    game = table(
        customer=[[PIZZA]],
        kitchens=([[SUSHI, PIZZA], [DONER]], [[ROACH, FRIES], [PIZZA]]),
        hands=(SUSHI, FRIES),
        xxl_cards=([(PIZZA, [PIZZA])], [(SUSHI, [SUSHI])]),
        menu_hands=([(PIZZA, SUSHI), (FRIES, DONER)], [(PIZZA, FRIES), (SUSHI, DONER)]),
        **ALL,
    )
    encoder = SpeedSnacksEncoder(2, game.config)
    sizes_encoder = SpeedSnacksEncoder(2, dict(game.config, kitchen_obs="sizes"))
    seen = encoder.encode(game, 0)
    variants = []
    other = game.copy()  # the opponent's hand
    swap(other, [FRIES], [DONER])
    other.hands[1] = DONER
    variants.append(other)
    other = game.copy()  # the opponent's face-down kitchen cards, tops included (same pile sizes)
    swap(other, [ROACH, FRIES, PIZZA], [SUSHI, SUSHI, DONER])
    other.kitchens[1] = [[SUSHI, SUSHI], [DONER]]
    variants.append(other)
    other = game.copy()  # the order of the draw pile and of the XXL pile
    other.deck.reverse()
    other.xxl_pile.reverse()
    variants.append(other)
    other = game.copy()  # which XXL card the opponent holds, and what lies on it
    other.xxl_pile.remove(DONER)
    other.xxl_pile.append(SUSHI)
    other.xxl_cards[1] = [DONER]
    swap(other, [SUSHI], [FRIES])
    other.xxl_stacks[1] = [[FRIES]]
    variants.append(other)
    other = game.copy()  # the opponent's Menu hand
    other.menu_hands[1], other.menu_piles[1] = other.menu_piles[1][:2], other.menu_piles[1][2:] + other.menu_hands[1]
    variants.append(other)
    for variant in variants:
        assert variant != game and not variant.invariant_violations()
        assert np.array_equal(encoder.encode(variant, 0), seen)
        assert np.array_equal(sizes_encoder.encode(variant, 0), sizes_encoder.encode(game, 0))
    # In "sizes" mode the own kitchen and XXL cards as placed are hidden too, not their sizes.
    mine = game.copy()
    swap(mine, [SUSHI, PIZZA], [DONER, FRIES])
    mine.kitchens[0][0] = [DONER, FRIES]
    mine.xxl_pile.remove(DONER)
    mine.xxl_pile.append(PIZZA)
    mine.xxl_cards[0] = [DONER]
    assert not mine.invariant_violations()
    assert np.array_equal(sizes_encoder.encode(mine, 0), sizes_encoder.encode(game, 0))
    assert not np.array_equal(encoder.encode(mine, 0), seen)
    # And the render for a viewer hides the same things.
    text = game.render_text(viewer=0, names=["A", "B"])
    assert "B: hand a card" in text and "[2: ?]" in text and "fries" not in text.split("B:")[1].split("|")[1]


def test_in_sizes_mode_an_xxl_card_shows_its_snack_on_the_tick_it_is_drawn_only():
    # "look at the card and place it face down": the drawer sees it once, then must remember it.
    game = table(hands=(SUSHI, PIZZA), xxl=True, kitchen_obs="sizes")
    encoder = SpeedSnacksEncoder(2, game.config)
    mine = LAYOUT.slices["my_xxl"]
    game.apply_joint([DRAW_XXL, WAIT])
    drawn = game.xxl_cards[0][-1]
    seen = encoder.encode(game, 0)[mine]
    assert seen[0] == 1 and seen[1 + drawn] == 1 and seen[1:7].sum() == 1
    assert encoder.encode(game, 1)[LAYOUT.slices["opp_xxl"]][0] == 1
    assert not encoder.encode(game, 1)[mine].any()  # the opponent sees no snack of it
    game.apply_joint([WAIT, WAIT])
    later = encoder.encode(game, 0)[mine]
    assert later[0] == 1 and not later[1:7].any()
    placed = SpeedSnacksEncoder(2, dict(game.config, kitchen_obs="placed")).encode(game, 0)[mine]
    assert placed[1 + drawn] == 1  # "placed" mode shows it all along


def test_the_inspection_sees_only_face_down_kitchens_and_the_tops_turn_face_up_at_scoring():
    # Module 1: the inspection is a step "before you carry out scoring"; scoring begins by turning the
    # top cards face up. So the inspector sees pile sizes, not tops, and no round points yet.
    game = table(customer=[[PIZZA, HU], [SUSHI, HU], [DONER, HU], [PIZZA]], kitchens=([[PIZZA]], [[ROACH], [SUSHI]]),
                 hands=(HU, FRIES), menu_hands=([], []), fulfilled=(1, 0), health_department=True, menu=True)
    placed = SpeedSnacksEncoder(2, game.config)
    sizes = SpeedSnacksEncoder(2, dict(game.config, kitchen_obs="sizes"))
    tops, my_tops = LAYOUT.slices["opp_kitchen_tops"], LAYOUT.slices["my_kitchen_tops"]
    points = LAYOUT.slices["round_points"]
    game.apply_joint([HURRY + 3, WAIT])  # the 4th Hurry-up: the inspection follows
    assert game.phase == "inspection"
    for me in (0, 1):
        for encoder in (placed, sizes):
            vec = encoder.encode(game, me)
            assert not vec[tops].any() and not vec[points].any()
        assert not sizes.encode(game, me)[my_tops].any()  # my own tops are face down too
    assert placed.encode(game, 0)[my_tops].tolist()[:7] == one_hot(PIZZA, 7)  # "placed": I remember them
    # The opponent's tops change nothing the inspector observes (pile sizes kept).
    other = game.copy()
    swap(other, [ROACH, SUSHI], [SUSHI, PIZZA])
    other.kitchens[1] = [[SUSHI], [PIZZA]]
    assert not other.invariant_violations()
    for encoder in (placed, sizes):
        assert np.array_equal(encoder.encode(other, 0), encoder.encode(game, 0))
    text = game.render_text(viewer=0, names=["A", "B"])
    assert "[1: ?] [1: ?]" in text and "Points so far" not in text
    assert "Points so far" in game.render_text()  # the spectator sees everything
    game.apply_joint([INSPECT + 0, INSPECT + 0])  # A finds B's cockroach; B finds none
    assert game.phase == MENU  # scoring: the tops are face up now
    for encoder in (placed, sizes):
        assert encoder.encode(game, 0)[tops].tolist()[:14] == one_hot(6, 7) + one_hot(SUSHI, 7)
        assert encoder.encode(game, 1)[my_tops].tolist()[:14] == one_hot(6, 7) + one_hot(SUSHI, 7)
        assert encoder.encode(game, 0)[points].tolist() == [2, 0]  # pizza 2; sushi 1 less 1 cockroach
    assert "[1: cockroach] [1: sushi]" in game.render_text(viewer=0, names=["A", "B"])


def test_round_rewards_add_up_to_rounds_won_minus_rounds_lost():
    env = speed_snacks_v1.raw_parallel_env(reward="round", menu=True)
    rng = np.random.default_rng(7)
    observations, _ = env.reset(seed=7)
    total = dict.fromkeys(env.possible_agents, 0.0)
    balance = dict.fromkeys(env.possible_agents, 0)
    while env.agents:
        observations, rewards, terms, *_ = env.step(random_joint(env, observations, rng))
        for a, r in rewards.items():
            total[a] += r
        if env.game.round_result() is not None:
            winners = env.game.last_round["winners"]
            if len(winners) == 1:
                balance[env.seat_agents[winners[0]]] += 1
                balance[env.seat_agents[1 - winners[0]]] -= 1
    assert total == {a: float(b) for a, b in balance.items()} and any(balance.values())


@pytest.mark.parametrize("modules", [dict.fromkeys(MODULES, False), ALL], ids=["base", "all"])
def test_the_aec_view_plays_whole_games(modules):
    env = speed_snacks_v1.env(**modules)
    for seed in range(2):
        result = play_aec(env, seed)
        assert env.unwrapped.game.game_over
        assert sorted(result["rewards"].values()) == [-1.0, 1.0]


def test_the_aec_view_keeps_pettingzoos_order_checks_and_reaches_the_env():
    env = speed_snacks_v1.raw_env(xxl=True)
    assert env.game_class is SpeedSnacks and env.num_actions == 75 and env.max_steps == 3000
    with pytest.raises(AttributeError, match="before reset"):
        _ = env.agents
    env.reset(seed=0)
    assert env.agents == ["player_0", "player_1"] and env.agent_selection == "player_0"
    assert env.observe("player_1")["observation"].shape == (LAYOUT.size,)
    assert env.game.config["xxl"]


def test_the_raw_aec_view_refuses_an_illegal_action_at_its_own_step_and_plays_on():
    from snack_envs.core.game import IllegalActionError

    env = speed_snacks_v1.raw_env()
    env.reset(seed=0)
    first = env.agent_selection
    illegal = int(np.flatnonzero(env.observe(first)["action_mask"] == 0)[0])
    before = env.unwrapped.state_dict()
    with pytest.raises(IllegalActionError, match=f"action {illegal} is not legal now"):
        env.step(illegal)
    assert env.agent_selection == first and env.unwrapped.state_dict() == before
    env.step(WAIT)  # nothing of the refused action stays queued: the tick goes through
    env.step(WAIT)
    assert env.agent_selection == first and env.unwrapped.num_steps == 1


@pytest.mark.parametrize("make", [speed_snacks_v1.env, speed_snacks_v1.raw_env], ids=["env", "raw_env"])
def test_the_aec_view_follows_a_snapshot_loaded_into_its_env(make):
    source, target = make(), make()
    source.reset(seed=5)
    target.reset(seed=99)
    target.step(WAIT)  # mid-tick: this queued action is dropped by the load
    target.unwrapped.load_state_dict(source.unwrapped.state_dict())
    assert target.agent_selection == source.agent_selection
    rng = np.random.default_rng(0)
    for _ in range(200):
        if not source.agents:
            break
        agent = source.agent_selection
        observation, *rest = source.last()
        other_observation, *other_rest = target.last()
        assert target.agent_selection == agent and rest == other_rest
        assert all(np.array_equal(observation[k], other_observation[k]) for k in observation)
        action = None if rest[1] or rest[2] else int(rng.choice(np.flatnonzero(observation["action_mask"])))
        source.step(action)
        target.step(action)
    assert target.unwrapped.state_dict() == source.unwrapped.state_dict()


def test_the_retired_v0_is_refused_with_an_error_naming_v1(tmp_path):
    import json

    import snack_envs
    from snack_envs.checkpoints import CheckpointError, check_fits

    with pytest.raises(ImportError, match="speed_snacks_v0 is retired; use speed_snacks_v1"):
        from snack_envs import speed_snacks_v0  # noqa: F401
    with pytest.raises(ImportError, match="use speed_snacks_v1"):
        snack_envs.make("speed_snacks_v0")
    assert "speed_snacks_v0" not in snack_envs.ENV_NAMES
    meta = json.loads((Path(__file__).parents[2] / "checkpoints" / "speed_snacks_v1.json").read_text())
    with pytest.raises(CheckpointError, match="speed_snacks_v0, which is retired; retrain it on speed_snacks_v1"):
        check_fits(dict(meta, env_name="speed_snacks_v0", env_version=0), None, None)
