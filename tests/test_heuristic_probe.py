"""Tests from a mutation probe of the four heuristic bots (`<game>/heuristic.py`). Each pins a choice rule of a
bot's docstring, in a hand-built or scripted position, that neither the bot tests nor the native copies'
agreement tests noticed changing (a weight or table the native copy reads from the Python module changes
there too, once numba compiles afresh):

- every bot is named "heuristic";
- Snack Rabbits: a hop must beat a stop (STOP_VALUE) before Farmer Brown and any gain after him; the white
  dice weigh the haul against DIE_COST a die; a tie for the most scores a vegetable's value; a card denied
  counts as much as one gained; a stop with an empty pool takes from the opponent with the most dice (the first
  on a tie); a bot made without a player count plays two;
- Snack Wars' projected scores: an empty slot is worth TABLE_SLOT (14) / players; a strict lead counts
  LEAD_HOLDS[lead] (3 and more alike) of the food, LEAD_SAFE once no rival has the room or the copies left to
  catch up; the Bonus cards' terms (Multicolour only with room for the missing families), for rivals too; the
  lead is taken against the opponents' average;
- Speed Snacks: the Menu decisions read the face-up tops in "sizes" mode too; on tied points it knows who
  decides first under either `menu_tie_first`; a Dish of the Day waits for DISH_MATCHES (3) tops, or one after
  the third Hurry-up; an XXL draw (no card off the draw pile) does not make an opponent's placement look like a
  wait;
- Snack Time: a creature with an open trait slot links for UNREADY of a pipe away until round LATE or the
  last round; snacks eaten are counted, not their value; a crossed-off trait earns no point; the trap risk of
  a new link is at most a sure trap, none when the trap lies there, none in the last round; the Sheet never
  counts a creature's cell as empty; a Badge costs 2/3 of a point; entrances go three steps from a creature.
"""

from __future__ import annotations

import numpy as np
import pytest

from snack_envs.snack_rabbits.components import NUM_KINDS as RABBIT_KINDS
from snack_envs.snack_rabbits.components import VEGETABLES
from snack_envs.snack_rabbits.heuristic import HeuristicPolicy as RabbitsBot
from snack_envs.snack_rabbits.observation import LAYOUT as RABBITS_LAYOUT
from snack_envs.snack_rabbits.rules import DICE_CHOICES, STOP, TAKE_FROM
from snack_envs.snack_rabbits.rules import NUM_ACTIONS as RABBIT_ACTIONS
from snack_envs.snack_time.components import CREATURE_CELLS
from snack_envs.snack_time.heuristic import HeuristicPolicy as TimeBot
from snack_envs.snack_time.heuristic import Sheet, manhattan
from snack_envs.snack_time.observation import LAYOUT as TIME_LAYOUT
from snack_envs.snack_time.observation import SnackTimeEncoder
from snack_envs.snack_time.rules import SnackTime
from snack_envs.snack_wars.components import FOOD_COPIES, VALUES
from snack_envs.snack_wars.heuristic import (
    FAMILY_HOPE,
    LEAD_HOLDS,
    LEAD_SAFE,
    MULTI_HOPE,
    RACCOON_HOPE,
    projected_lead,
    projected_scores,
)
from snack_envs.snack_wars.heuristic import HeuristicPolicy as WarsBot
from snack_envs.speed_snacks.components import NUM_SNACKS
from snack_envs.speed_snacks.heuristic import HeuristicPolicy as SpeedBot
from snack_envs.speed_snacks.observation import SpeedSnacksEncoder
from snack_envs.speed_snacks.rules import DRAW_XXL, MENU, MENU_CHANGE, MENU_KEEP, NEW_CUSTOMER, TAKE_DISH, WAIT
from tests.snack_time.time_scripted import NE, NW, SW, new_game, set_traits
from tests.snack_wars.wars_positions import CHEESE, FRENCH_B, MACARON, MULTI_B, RACCOON_B, RAMEN, SUSHI, kinds
from tests.speed_snacks import scripted as speed
from tests.speed_snacks.test_speed_heuristic import CLOSED, end_play
from tests.speed_snacks.test_speed_heuristic import decision as speed_pick


# --- every bot ---------------------------------------------------------------------------------------
def test_every_heuristic_is_named_heuristic():
    """The name the opponent pools, ratings and logs show."""
    assert [bot.name for bot in (RabbitsBot(), WarsBot(), SpeedBot(), TimeBot())] == ["heuristic"] * 4


# --- Snack Rabbits ---------------------------------------------------------------------------------
TOMATO, LETTUCE, RADISH, PUMPKIN = (VEGETABLES.index(v) for v in ("tomato", "lettuce", "radish", "pumpkin"))
LOW, HIGH = 0, 4  # the fences of height 2 and 6


def rabbits_pick(fences: dict, hands: list[dict], white: list[int], farmer: bool = False, stop: bool = True,
                 takes: tuple = (), bot: RabbitsBot | None = None) -> int:
    """The bot's pick in a hand-built position: cards {kind: n} under each fence, each seat's collection (mine
    first) and white dice; every hop with up to my dice on a fence with cards is legal, and STOP or `takes`."""
    obs, mask = np.zeros(RABBITS_LAYOUT.size, np.float32), np.zeros(RABBIT_ACTIONS, np.int8)
    part = RABBITS_LAYOUT.slices
    for f, cards in fences.items():
        for kind, n in cards.items():
            obs[part["fences"].start + f * RABBIT_KINDS + kind] = n
        mask[f * DICE_CHOICES : f * DICE_CHOICES + white[0] + 1] = 1
    for p, hand in enumerate(hands):
        for kind, n in hand.items():
            obs[part["collections"].start + p * RABBIT_KINDS + kind] = n
        obs[part["white_dice"].start + p] = white[p]
        obs[part["seated"].start + p] = 1
    obs[part["farmer_revealed"].start] = farmer
    mask[STOP] = stop
    for r in takes:
        mask[TAKE_FROM + r] = 1
    return (bot or RabbitsBot(len(hands))).act(obs, mask)


def hop(fence: int, dice: int) -> int:
    return fence * DICE_CHOICES + dice


def test_rabbits_hops_only_when_the_haul_beats_a_stop_before_farmer_brown():
    """A tie for the most radishes (9 points, 1 held) on the tall fence is worth a hop; lettuce (8) is not."""
    assert rabbits_pick({HIGH: {RADISH: 1}}, [{RADISH: 1}, {RADISH: 2}], [8, 0]) == hop(HIGH, 5)
    assert rabbits_pick({HIGH: {LETTUCE: 1}}, [{LETTUCE: 1}, {LETTUCE: 2}], [8, 0]) == STOP


def test_rabbits_after_farmer_brown_hops_for_any_gain_but_not_for_none():
    """Once Farmer Brown is out a one-point hop is taken; a haul that changes no score is not."""
    assert rabbits_pick({LOW: {TOMATO: 1}}, [{TOMATO: 1}, {TOMATO: 3}], [3, 3]) == STOP
    assert rabbits_pick({LOW: {TOMATO: 1}}, [{TOMATO: 1}, {TOMATO: 3}], [3, 3], farmer=True) == hop(LOW, 0)
    assert rabbits_pick({LOW: {TOMATO: 1}}, [{TOMATO: 2}, {TOMATO: 2}], [3, 3], farmer=True) == STOP


def test_rabbits_rolls_as_many_white_dice_as_the_haul_pays_for():
    """12 points on the fence of height 6: 7 of 8 white dice (each costs DIE_COST, each raises the odds)."""
    assert rabbits_pick({HIGH: {PUMPKIN: 1}}, [{}, {PUMPKIN: 1}], [8, 0]) == hop(HIGH, 7)


def test_rabbits_counts_a_card_denied_as_much_as_a_card_gained():
    """8 points of mine on the tall fence beat 4 cards denied on the low one; 5 denied beat them."""
    mine = {RADISH: 1, PUMPKIN: 6}
    assert rabbits_pick({HIGH: {RADISH: 1}, LOW: {PUMPKIN: 4}}, [mine, {RADISH: 2, PUMPKIN: 1}], [8, 0]) == hop(HIGH, 5)
    assert rabbits_pick({HIGH: {RADISH: 1}, LOW: {PUMPKIN: 5}}, [mine, {RADISH: 2}], [8, 0]) // DICE_CHOICES == LOW


def test_rabbits_bot_made_without_a_player_count_plays_two_players():
    """Three pumpkins short of the rival's four are worth a stop, not a hop; a third hand would deny more."""
    fences, hands = {LOW: {PUMPKIN: 3}}, [{}, {PUMPKIN: 4}]
    assert rabbits_pick(fences, hands, [3, 0]) == rabbits_pick(fences, hands, [3, 0], bot=RabbitsBot()) == STOP
    assert rabbits_pick(fences, hands + [{}], [3, 0, 0]) != STOP


def test_rabbits_stop_with_an_empty_pool_takes_from_the_opponent_with_most_dice():
    """No STOP in the mask: it takes from the seat holding the most white dice, the first one on a tie."""
    assert rabbits_pick({}, [{}, {}, {}], [0, 2, 5], stop=False, takes=(0, 1)) == TAKE_FROM + 1
    assert rabbits_pick({}, [{}, {}, {}], [0, 4, 4], stop=False, takes=(0, 1)) == TAKE_FROM
    assert rabbits_pick({}, [{}, {}, {}, {}], [0, 1, 0, 3], stop=False, takes=(0, 1, 2)) == TAKE_FROM + 2


# --- Snack Wars --------------------------------------------------------------------------------------
EQUAL, BY_VALUE = FOOD_COPIES["equal"], FOOD_COPIES["value"]


def held_cards(cards: dict[int, int]) -> list[int]:
    """A collection row (foods and Bonus cards) from {kind: n}."""
    return kinds(cards)


def scores(*collections: dict, raccoons=None, copies=EQUAL) -> list[float]:
    return projected_scores([held_cards(c) for c in collections], raccoons or [0] * len(collections), copies)


def test_wars_an_empty_slot_is_worth_14_points_over_the_player_count():
    """TABLE_SLOT / players a slot: an empty table is 63 points each with 2 players, 42 with 3."""
    assert scores({}, {}) == pytest.approx([63.0, 63.0])
    assert scores({}, {}, {}) == pytest.approx([42.0, 42.0, 42.0])
    assert scores({SUSHI: 1, RAMEN: 1}, {SUSHI: 1, RAMEN: 1}) == pytest.approx([49.0, 49.0])  # ties score nothing


def test_wars_a_lead_counts_the_chance_it_holds_by_its_size():
    """A strict lead that rivals can still catch counts LEAD_HOLDS[lead] (3 and more alike) of the food."""
    slot = 7.0
    for mine, rival, lead in ((1, 0, 1), (3, 1, 2), (3, 0, 3), (4, 0, 3)):
        got = scores({CHEESE: mine}, {CHEESE: rival}, copies=BY_VALUE)
        assert got[0] == pytest.approx(slot * (9 - mine) + VALUES[CHEESE] * LEAD_HOLDS[lead])
        assert got[1] == pytest.approx(slot * (9 - rival))


def test_wars_a_lead_no_rival_can_catch_counts_lead_safe():
    """LEAD_SAFE once the lead exceeds what a rival can still add: its room, or the copies left outside."""
    value = VALUES[CHEESE]
    room_2 = {CHEESE: 2}, {SUSHI: 3, RAMEN: 4}  # lead 2, the rival has 2 slots: it could still tie
    room_1 = {CHEESE: 2}, {SUSHI: 3, RAMEN: 5}  # lead 2, one slot: safe
    assert scores(*room_2)[0] == pytest.approx(49.0 + value * LEAD_HOLDS[2])
    assert scores(*room_1)[0] == pytest.approx(49.0 + value * LEAD_SAFE)
    # All five cheeses held (equal copies): 3 against 2 cannot be caught, whatever the rival's room.
    assert scores({CHEESE: 3}, {CHEESE: 2})[0] == pytest.approx(42.0 + value * LEAD_SAFE)
    assert scores({CHEESE: 3}, {CHEESE: 1})[0] == pytest.approx(42.0 + value * LEAD_SAFE)  # one copy left, 8 slots
    assert scores({CHEESE: 2}, {})[0] == pytest.approx(49.0 + value * LEAD_HOLDS[2])  # three left


def test_wars_bonus_cards_count_what_the_room_can_still_bring():
    """A family bonus: its cards plus FAMILY_HOPE a slot; Multicolour: 5 * MULTI_HOPE per missing family, if
    the room allows; the Raccoon Bonus: one a raccoon plus RACCOON_HOPE; a rival's bonuses count alike."""
    lead_macaron = VALUES[MACARON] * LEAD_HOLDS[2]
    assert scores({FRENCH_B: 1, MACARON: 2}, {})[0] == pytest.approx(42.0 + lead_macaron + 2 + FAMILY_HOPE * 6)
    assert scores({}, {FRENCH_B: 1, MACARON: 2})[1] == pytest.approx(42.0 + lead_macaron + 2 + FAMILY_HOPE * 6)
    lead_sushi = VALUES[SUSHI] * LEAD_HOLDS[1]
    assert scores({MULTI_B: 1, SUSHI: 1}, {})[0] == pytest.approx(49.0 + lead_sushi + 5 * MULTI_HOPE**2)
    one_slot = {MULTI_B: 1, SUSHI: 4, RAMEN: 3}  # two families missing, one slot left: nothing
    assert scores(one_slot, {})[0] == pytest.approx(7.0 + (VALUES[SUSHI] + VALUES[RAMEN]) * LEAD_SAFE)
    two_slots = {MULTI_B: 1, SUSHI: 4, RAMEN: 2}  # two families missing, two slots left: still possible
    leads = VALUES[SUSHI] * LEAD_SAFE + VALUES[RAMEN] * LEAD_HOLDS[2]
    assert scores(two_slots, {})[0] == pytest.approx(14.0 + leads + 5 * MULTI_HOPE**2)
    assert scores({RACCOON_B: 1}, {}, raccoons=[3, 0])[0] == pytest.approx(56.0 + 3 + RACCOON_HOPE)
    assert scores({RACCOON_B: 1}, {}, raccoons=[0, 3])[0] == pytest.approx(56.0 + RACCOON_HOPE)


def test_wars_the_lead_is_measured_against_the_opponents_average():
    """projected_lead: my projected score minus the mean of the others' (not the best one's)."""
    colls = [held_cards({SUSHI: 2}), held_cards({RAMEN: 4}), held_cards({})]
    got = projected_scores(colls, [0, 0, 0], EQUAL)
    assert projected_lead(colls, [0, 0, 0], EQUAL) == pytest.approx(got[0] - (got[1] + got[2]) / 2)


# --- Snack Time --------------------------------------------------------------------------------------
TEN = 27  # value 10, needs 2 Eyes, a Tooth and a Tentacle (as in tests/snack_time/test_time_heuristic.py)


def time_bot(game: SnackTime, **fields) -> TimeBot:
    """A Snack Time bot that has read seat 0's observation, with `fields` of it overwritten (name: values)."""
    bot = TimeBot(game.num_players, **game.config)
    o = SnackTimeEncoder(game.num_players, game.config).encode(game, 0).tolist()
    for name, values in fields.items():
        start = TIME_LAYOUT.slices[name].start
        o[start : start + len(values)] = values
    bot.read(o)
    return bot


def test_time_a_creature_with_an_open_trait_slot_links_for_less_than_a_pipe_away():
    """UNREADY of a pipe away, so that it waits one pipe short; a full creature, round LATE or the last round
    make it ready (a link worth 1)."""
    game = new_game(1)
    set_traits(game, 0, NW, eyes=1)
    set_traits(game, 0, NE, eyes=2, teeth=1, tentacles=1)
    bot = time_bot(game)
    assert bot.link_worth(NW)[1] == pytest.approx(TimeBot.UNREADY * TimeBot.GAMMA)
    assert bot.link_worth(NW)[1] < TimeBot.GAMMA
    assert bot.link_worth(NE)[1] == 1.0
    assert time_bot(game, round=[TimeBot.LATE]).link_worth(NW)[1] == 1.0
    assert time_bot(game, round=[TimeBot.LATE - 1]).link_worth(NW)[1] < TimeBot.GAMMA
    assert time_bot(game, last_round=[1]).link_worth(NW)[1] == 1.0


def test_time_a_creature_counts_the_snacks_it_has_eaten_not_their_value():
    """A creature that ate one 10 has two snacks still to eat: its link is worth two of its menu's snacks."""
    game = new_game(1)
    game.snacks[0][NW] = [TEN]
    set_traits(game, 0, NW, eyes=2, teeth=1, tentacles=1)
    bot = time_bot(game)
    assert bot.link_worth(NW) == (pytest.approx(2 * (bot.quality([2, 1, 1]) + 4)), 1.0)


def test_time_a_crossed_off_trait_earns_no_point_a_snack():
    """A snack is worth a point per trait the creature ends with: a crossed-off Eye counts for nothing."""
    game = new_game(1)
    set_traits(game, 0, SW, eyes=1, teeth=1, tentacles=1, crossed=(1, 0, 0))
    bot = time_bot(game)
    assert bot.link_worth(SW)[0] == pytest.approx(3 * (bot.quality([1, 1, 1]) + 3))


def test_time_pipe_distances_never_run_through_a_creature():
    """A creature's cell is no empty cell of the Sheet: no distance or frontier passes over it."""
    game = new_game(1)
    sheet = Sheet(SnackTimeEncoder(1, game.config).encode(game, 0).tolist())
    assert [sheet.empty[home] for home in CREATURE_CELLS] == [False] * 4
    assert sum(sheet.empty) == 64 - 4 - 5  # every cell but the creatures and the entrances


def test_time_a_badge_costs_two_thirds_of_a_point():
    """Three Badges cost 2 points: a Badge pedestrian is worth about 2/3 less; a Damage costs more than it."""
    bot = TimeBot(1)
    assert bot.worth(5, 1, 0) == pytest.approx(5 - 2 / 3, abs=0.05)
    assert bot.worth(5, 0, 0) == 5 and bot.worth(5, 0, 1) < bot.worth(5, 1, 0)


def test_time_the_trap_risk_of_a_new_link_is_at_most_a_sure_trap():
    """TRAP times the chance of the trap (TRAP_HORIZON rounds over the deck, at most 1) times the snacks at
    stake; none once the entrance's trap lies there, or with no trap left in the deck."""
    game = new_game(1)  # the row is inedible for a 1-1-1 creature: no SNIPE term
    set_traits(game, 0, NW, eyes=1, teeth=1, tentacles=1, crossed=(1, 0, 0))
    stake = TimeBot.FILL * 3
    assert time_bot(game, deck=[2, 1]).new_link(NW, 0) == pytest.approx(-TimeBot.TRAP * stake)
    chance = TimeBot.TRAP_HORIZON / 24
    assert time_bot(game, deck=[24, 1]).new_link(NW, 0) == pytest.approx(-TimeBot.TRAP * chance * stake)
    assert time_bot(game, deck=[24, 0]).new_link(NW, 0) == 0.0
    assert time_bot(game, deck=[24, 1], traps_lying=[1, 0, 0, 0, 0]).new_link(NW, 0) == 0.0
    assert time_bot(game, deck=[24, 1], last_round=[1]).new_link(NW, 0) == 0.0

def test_time_chosen_entrances_lie_three_steps_from_their_nearest_creature():
    """ENTRANCE_STEPS: close to a creature, with room to wait one pipe short (two pipes join them)."""
    game = SnackTime(1, np.random.default_rng(0), advanced_entrances=True)
    while game.phase == "entrance":
        observation = SnackTimeEncoder(1, game.config).encode(game, 0)
        game.apply(TimeBot(1, **game.config).act(observation, game.action_mask(0)))
    assert [min(manhattan(home, cell) for home in CREATURE_CELLS) for cell in game.entrances] == [3] * 5


# --- Speed Snacks ------------------------------------------------------------------------------------
def test_speed_menu_decisions_read_the_face_up_tops_even_in_sizes_mode():
    """At scoring the tops lie face up: a fresh bot with kitchen_obs="sizes" (no memory) decides as it would
    seeing them, changing the pizza into sushi to win the round."""
    menus = dict(menu_hands=([(speed.BURGER, speed.HOTDOG)], [(speed.HOTDOG, speed.FRIES)]), menu=True)
    for kitchen_obs in ("placed", "sizes"):
        kitchens = [[speed.DONER], [speed.PIZZA]], [[speed.SUSHI], [speed.PIZZA]]  # 1 point against 2
        game = speed.table(customer=CLOSED + [[speed.SUSHI]], kitchens=kitchens, hands=(speed.HU, speed.BURGER),
                           fulfilled=(2, 0), kitchen_obs=kitchen_obs, **menus)
        end_play(game)
        assert game.phase == MENU and speed_pick(game) == MENU_CHANGE + NUM_SNACKS * 1 + speed.SUSHI


def test_speed_a_dish_of_the_day_waits_for_three_matching_tops_or_the_third_hurry_up():
    """Two pizzas on top are not enough for the pizza dish; one will do once three Hurry-ups are out."""
    kitchen = [[speed.PIZZA], [speed.PIZZA], [speed.BURGER], [speed.SUSHI]]
    two = speed.table(customer=[[speed.BURGER]], kitchens=(kitchen, ()), hands=(speed.SUSHI, speed.BURGER),
                      dish_of_the_day=True)
    assert speed_pick(two) not in range(TAKE_DISH, TAKE_DISH + NUM_SNACKS)
    for closed, taken in ((2, False), (3, True)):
        game = speed.table(customer=CLOSED[:closed] + [[speed.BURGER]], kitchens=([[speed.PIZZA]], ()),
                           hands=(speed.SUSHI, speed.BURGER), dish_of_the_day=True)
        assert (speed_pick(game) == TAKE_DISH + speed.PIZZA) == taken


def test_speed_on_a_tie_in_points_it_knows_whether_it_decides_first_under_either_menu_rule():
    """Tied at 1 point, my one Menu card against the opponent's two: deciding first (I am the starting player
    under "starting_player", the other one under "other_player") a point cannot hold off their change: keep."""
    for menu_tie_first, starter in (("starting_player", 0), ("other_player", 1)):
        kitchens = [[speed.DONER], [speed.PIZZA]], [[speed.FRIES], [speed.PIZZA]]
        game = speed.table(customer=CLOSED + [[speed.SUSHI]], kitchens=kitchens, hands=(speed.HU, speed.BURGER),
                           fulfilled=(1, 2), starting_player=starter, menu=True, menu_tie_first=menu_tie_first)
        end_play(game)
        assert game.round_points() == [1, 1] and game.menu_order == [0, 1]
        assert speed_pick(game) == MENU_KEEP



def test_speed_an_xxl_draw_is_no_placement_when_it_judges_whether_the_opponent_waited():
    """6 points ahead, it draws an XXL card (from the XXL pile, not the draw pile): a card the opponent then
    puts in the middle is no wait, and it plays on; after a real wait it lets the round end."""
    for opponent, expected_wait in ((NEW_CUSTOMER, False), (WAIT, True)):
        game = speed.table(customer=[[speed.PIZZA]] * 3, kitchens=([[speed.PIZZA], [speed.PIZZA]], ()),
                           hands=(speed.SUSHI, speed.BURGER), xxl=True)
        bot, encoder = SpeedBot(2, **game.config), SpeedSnacksEncoder(2, game.config)
        assert bot.act(encoder.encode(game, 0), game.action_mask(0)) == DRAW_XXL
        game.apply_joint([DRAW_XXL, opponent])
        assert (bot.act(encoder.encode(game, 0), game.action_mask(0)) == WAIT) == expected_wait
