"""Tests from a mutation probe of snack_envs/core/game.py, the rules engines' shared core (the Game base
class, the player-count, option and reset-option checks, and the Spec classes that check a loaded state):

- a game made without a player count has its default; a count that is no int is refused, a numpy int taken;
- an int or numpy float passed to a float option is that Python float (NaN refused), a numpy int passed
  to an int option a Python int, a numpy bool to a bool option (or `shuffle_seats`) a Python bool;
- `check_reset_options` gives the options as a dict;
- `Game.from_dict` refuses, naming the field, a player count or rng state that cannot be, a current_player past the last seat, an int field holding a
  float or bool, a number field holding NaN, a one-of field an unhashable or unknown value, a list of the
  wrong length, an `Items` or `Record` value of the wrong shape or keys, a value its `Satisfies` check
  raises on, a config or state that is no dict, a state of another game or version, a turn that disagrees
  with the game's end, and a player to act without a legal action; `ListOf`'s quick paths agree with the
  item spec (open bounds, floats, specs other than `IntIn`);
- a simultaneous game has nobody to act outside its seats or after its end; a joint action names the seat
  missing or not to act, may be an array by seat, and is refused if neither a dict nor a list; an illegal
  action reads "not legal now" in range, "out of range" past it; `state_changed` forgets the legal actions; an action in a finished game is refused saying so; `from_state` adopts the state;
  games of different kinds are unequal.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import snack_envs
from snack_envs.core.game import (
    PLACEHOLDER_RNG_STATE,
    ConfigError,
    IllegalActionError,
    IntIn,
    ListOf,
    NumberIn,
    OneOf,
    OrNone,
    check_reset_options,
)
from snack_envs.snack_rabbits.rules import SnackRabbits
from snack_envs.snack_time.rules import SnackTime
from snack_envs.snack_wars.rules import SnackWars
from snack_envs.speed_snacks.rules import SpeedSnacks

GAMES = [SnackRabbits, SnackTime, SnackWars, SpeedSnacks]


def fresh(game_class, num_players=None, **options):
    return game_class(num_players, np.random.default_rng(0), **options)


def refused(game_class, edit, message: str, **options) -> None:
    """A fresh game's `to_dict` with `edit(state)` applied is refused by `from_dict` naming `message`,
    and the same data unedited still loads."""
    data = fresh(game_class, **options).to_dict()
    good = json.loads(json.dumps(data))
    edit(data["state"])
    with pytest.raises(ConfigError, match=message):
        game_class.from_dict(data)
    assert game_class.from_dict(good) == fresh(game_class, **options)


# --- players and options ---------------------------------------------------------------------------------
@pytest.mark.parametrize("game_class", GAMES)
def test_a_game_made_without_a_player_count_has_its_default(game_class):
    game = game_class(rng=np.random.default_rng(0))
    assert game.num_players == game_class.default_players and len(game.scores()) == game_class.default_players


@pytest.mark.parametrize("count", [2.0, "2", True, None])
def test_a_player_count_must_be_an_int(count):
    with pytest.raises(ConfigError, match=r"num_players must be an int, got "):
        SnackRabbits.check_num_players(count)
    if count is not None:  # None at the constructor means the default
        with pytest.raises(ConfigError, match=r"num_players must be an int"):
            SnackRabbits(count, np.random.default_rng(0))


def test_a_numpy_player_count_is_taken_as_a_python_int():
    assert type(SnackRabbits.check_num_players(np.int64(3))) is int
    assert fresh(SnackRabbits, num_players=np.int64(3)).to_dict()["num_players"] == 3


# --- options -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("speed", [1, np.int64(1)])
def test_a_float_option_takes_an_int_as_that_float(speed):
    game = fresh(SpeedSnacks, speed_0=speed)
    assert game.config["speed_0"] == 1.0 and type(game.config["speed_0"]) is float
    json.dumps(game.to_dict())  # a plain float, as the state's JSON needs


def test_an_int_option_takes_a_numpy_int_as_a_python_int():
    game = fresh(SnackRabbits, suns_per_fence=np.int64(3))
    assert game.config["suns_per_fence"] == 3 and type(game.config["suns_per_fence"]) is int
    json.dumps(game.to_dict())


@pytest.mark.parametrize("speed", [np.float32(0.5), np.float64(0.5)])
def test_a_float_option_takes_a_numpy_float_as_a_python_float(speed):
    game = fresh(SpeedSnacks, speed_0=speed)
    assert game.config["speed_0"] == 0.5 and type(game.config["speed_0"]) is float


@pytest.mark.parametrize("value", [float("nan"), np.float32("nan")])
def test_a_float_option_refuses_nan(value):
    with pytest.raises(ConfigError, match=r"speed_0=nan is not a number"):
        fresh(SpeedSnacks, speed_0=value)


@pytest.mark.parametrize("value", [True, "1.0"])
def test_a_float_option_refuses_a_bool_or_a_string(value):
    with pytest.raises(ConfigError, match=r"speed_0=.* must be of type float"):
        fresh(SpeedSnacks, speed_0=value)


@pytest.mark.parametrize("flag", [np.True_, np.False_])
def test_a_bool_option_and_shuffle_seats_take_a_numpy_bool_as_a_python_bool(flag):
    """As numpy ints and floats are taken (a sweep's values often are numpy's); they were refused."""
    game = fresh(SpeedSnacks, menu=flag)
    assert game.config["menu"] is bool(flag)
    json.dumps(game.to_dict())
    env = snack_envs.make("snack_wars_v0", shuffle_seats=flag)
    assert env.unwrapped.shuffle_seats is bool(flag)


@pytest.mark.parametrize("value", [1, 0, "yes", None])
def test_a_bool_option_refuses_what_is_not_a_bool(value):
    with pytest.raises(ConfigError, match=r"menu=.* must be of type bool"):
        fresh(SpeedSnacks, menu=value)


# --- reset options ---------------------------------------------------------------------------------------
def test_check_reset_options_gives_the_options_as_a_dict():
    assert check_reset_options(None, "env") == {}
    given = {"a": 1}
    checked = check_reset_options(given, "env", known=("a", "b"))
    assert checked == {"a": 1} and type(checked) is dict and checked is not given


# --- state specs ------------------------------------------------------------------------------------------
def _set(field: str, value):
    def edit(state: dict) -> None:
        state[field] = value

    return edit


@pytest.mark.parametrize("game_class", GAMES)
def test_current_player_may_be_minus_one_to_the_last_seat_only(game_class):
    seats = fresh(game_class).num_players
    refused(game_class, _set("current_player", seats), rf"current_player = {seats} is out of range -1..{seats - 1}")
    refused(game_class, _set("current_player", -2), rf"current_player = -2 is out of range -1..{seats - 1}")


@pytest.mark.parametrize("value", [0.0, True, "0"])
def test_an_int_state_field_takes_a_python_int_only(value):
    refused(SnackRabbits, _set("current_player", value), r"current_player = .* must be an int")


@pytest.mark.parametrize("value", [float("nan"), True, "0"])
def test_a_number_state_field_refuses_nan_a_bool_and_a_string(value):
    refused(SpeedSnacks, _set("round_scored", [value, 0.0]), r"round_scored\[0\] = .* must be a number")


def test_a_one_of_state_field_refuses_an_unhashable_value():
    refused(SnackTime, _set("rat_roll", [3]), r"rat_roll = \[3\] is not one of")


def test_a_list_state_field_of_a_fixed_length_refuses_another_length():
    refused(SnackTime, lambda state: state["row"].pop(), r"row = \[.*\] must hold 5 items, not 4")


def test_a_list_of_unknown_one_of_values_is_refused():
    refused(SnackTime, _set("end_reasons", ["bogus"]), r"end_reasons\[0\] = 'bogus' is not one of")


@pytest.mark.parametrize("item", [OneOf(1, 2), NumberIn(0, 2), OrNone(IntIn(0, 2))])
def test_a_list_of_ints_checked_by_another_spec_than_int_in_is_checked_by_that_spec(item):
    ListOf(item).check("field", [1, 2])
    with pytest.raises(ConfigError, match=r"field\[1\] = 3 "):
        ListOf(item).check("field", [1, 3])


def test_a_list_of_one_of_values_refuses_an_unhashable_item():
    refused(SnackTime, _set("end_reasons", [["bogus"]]), r"end_reasons\[0\] = \['bogus'\] is not one of")


def test_a_list_of_int_in_items_refuses_floats_even_in_range():
    with pytest.raises(ConfigError, match=r"field\[0\] = 1.0 must be an int"):
        ListOf(IntIn(0, 5)).check("field", [1.0, 2.0])


@pytest.mark.parametrize("low, high, value", [(None, None, [-5, 5]), (0, None, [0, 10**9]), (None, 3, [-7, 3])])
def test_a_list_of_int_in_items_with_an_open_bound_takes_any_int_on_that_side(low, high, value):
    ListOf(IntIn(low, high)).check("field", value)


@pytest.mark.parametrize("cursor", [[0, 0], [0, 0, 0, 0], (0, 0, 0)])
def test_a_fixed_items_state_field_must_be_a_list_of_that_many_items(cursor):
    refused(SnackTime, _set("cursor", cursor), r"cursor = .* must be a list of 3 items")


HOP = {"player": 0, "fence": 0, "roll": [1], "taken": 0}  # a sound `last_hop` record of Snack Rabbits


@pytest.mark.parametrize("value, message", [
    (5, r"last_hop = 5 must be a dict"),
    (list(HOP), r"last_hop = \['player', .* must be a dict"),
    ({k: v for k, v in HOP.items() if k != "taken"}, r"last_hop = .* lacks the key\(s\) \['taken'\]"),
    ({**HOP, "cheat": 1}, r"last_hop = .* has unknown key\(s\) \['cheat'\]"),
    ({**HOP, "fence": 9}, r"last_hop\['fence'\] = 9 is out of range 0..4"),
], ids=["an int", "a list of its keys", "a key missing", "an unknown key", "a field out of range"])
def test_a_record_state_field_must_be_a_dict_of_exactly_its_keys(value, message):
    refused(SnackRabbits, _set("last_hop", value), message)


@pytest.mark.parametrize("roll", [5, ["x"], [[0, 0], [0, 0, 0], "Z9"]])
def test_a_state_field_whose_check_raises_on_a_bad_value_is_refused_naming_it(roll):
    refused(SnackTime, _set("scripted_rolls", [roll]), r"scripted_rolls\[0\] = .* must be \[2 traits, 3 pieces")


# --- turns and actions --------------------------------------------------------------------------------------
def test_a_simultaneous_game_has_no_seat_to_act_outside_its_seats_or_after_its_end():
    game = fresh(SpeedSnacks)
    assert [game.is_to_act(p) for p in (-1, 0, 1, 2)] == [False, True, True, False]
    for no_seat in (2, -1):  # no seat of the game: refused, where it read as a seat with nothing to do
        for ask in (game.legal_actions, game.action_mask):
            with pytest.raises(IllegalActionError, match=rf"player {no_seat} is not a seat of this 2-player game \(0\.\.1\)"):
                ask(no_seat)
    game.game_over = True
    game.state_changed()
    assert not game.is_to_act(0) and game.players_to_act() == [] and game.legal_actions(0) == []


@pytest.mark.parametrize("seat", [2, -1, "0", True, 1.0])
def test_a_player_that_is_no_seat_is_refused_by_legal_actions_the_mask_and_apply(seat):
    """They read as a seat with nothing to do (legal_actions('0') == []) or, cached, as seat 1 (True)."""
    for game_class in (SnackWars, SnackTime):
        game = fresh(game_class)
        mover = game.current_player
        game.legal_actions(1)  # cached under 1, which True equals
        before = game.to_dict()
        for ask in (game.legal_actions, game.action_mask, lambda p: game.apply(game.legal_actions()[0], p)):  # noqa: B023
            with pytest.raises(IllegalActionError, match=rf"player {re.escape(repr(seat))} is not a seat of this "
                                                         r"2-player game \(0\.\.1\)"):
                ask(seat)
        assert game.to_dict() == before
        assert game.legal_actions(np.int64(mover)) == game.legal_actions()


def test_a_joint_action_without_a_seat_to_act_names_the_missing_seat_and_changes_nothing():
    game = fresh(SpeedSnacks)
    before = game.to_dict()
    with pytest.raises(IllegalActionError, match=r"missing seat\(s\) \[1\]$"):
        game.apply_joint({0: game.legal_actions(0)[0]})
    with pytest.raises(IllegalActionError, match=r"seat\(s\) \[2\] are not to act$"):
        game.apply_joint([game.legal_actions(0)[0], game.legal_actions(1)[0], 0])
    assert game.to_dict() == before


def test_a_joint_action_may_be_an_array_by_seat():
    game, twin = fresh(SpeedSnacks), fresh(SpeedSnacks)
    actions = [game.legal_actions(0)[0], game.legal_actions(1)[0]]
    game.apply_joint(np.array(actions))
    twin.apply_joint(actions)
    assert game == twin


@pytest.mark.parametrize("actions", [5, "ab", np.zeros((2, 1), np.int64), {0, 1}],
                         ids=["an int", "a string", "a 2-D array", "a set"])
def test_joint_actions_neither_a_dict_nor_a_list_are_refused_changing_nothing(actions):
    game = fresh(SpeedSnacks)
    before = game.to_dict()
    with pytest.raises(IllegalActionError, match=r"the actions must be a dict seat -> action or a list by seat"):
        game.apply_joint(actions)
    assert game.to_dict() == before


@pytest.mark.parametrize("game_class", GAMES)
def test_an_illegal_action_in_range_reads_not_legal_and_one_past_the_end_out_of_range(game_class):
    game = fresh(game_class)
    seat = game.players_to_act()[0]
    illegal = min(set(range(game.num_actions)) - set(game.legal_actions(seat)))
    with pytest.raises(IllegalActionError, match=rf"action {illegal} is not legal now for player {seat}"):
        game.check_action(illegal, seat)
    with pytest.raises(IllegalActionError, match=rf"action {game.num_actions} is out of range for player {seat} "
                                                 rf"\(0..{game.num_actions - 1}\)"):
        game.check_action(game.num_actions, seat)


def test_state_changed_forgets_the_legal_actions_worked_out_before_a_hand_edit():
    game = fresh(SnackRabbits)
    assert game.legal_actions(0)  # worked out, and kept
    game.game_over, game.current_player = True, -1
    game.state_changed()
    assert game.legal_actions(0) == [] and not game.action_mask(0).any()


@pytest.mark.parametrize("game_class", GAMES)
def test_an_action_in_a_finished_game_is_refused_saying_the_game_is_over(game_class):
    game = fresh(game_class)
    game.game_over, game.current_player = True, -1
    game.state_changed()
    before = game.to_dict()
    for action in (0, "x"):
        with pytest.raises(IllegalActionError, match=r"the game is over; no action is legal"):
            game.apply_joint([action] * game.num_players if game_class is SpeedSnacks else [action])
        if game_class is not SpeedSnacks:
            with pytest.raises(IllegalActionError, match=r"the game is over; no action is legal"):
                game.apply(action)
    assert game.to_dict() == before


# --- loading a state -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("game, version, message", [
    ("snack_rabbits", 1, r"state is for snack_rabbits v1, not snack_rabbits v0"),
    ("snack_wars", 0, r"state is for snack_wars v0, not snack_rabbits v0"),
], ids=["another version", "another game"])
def test_a_state_of_another_game_or_version_is_refused_naming_both(game, version, message):
    data = fresh(SnackRabbits).to_dict()
    data.update(game=game, version=version)
    with pytest.raises(ConfigError, match=message):
        SnackRabbits.from_dict(data)


@pytest.mark.parametrize("key, value, message", [
    ("num_players", 9, r"snack_rabbits is played by 2 to 4 players, got num_players=9"),
    ("num_players", "2", r"num_players must be an int, got '2'"),
    ("rng", 5, r"snack_rabbits state: rng = 5 must be the state of a numpy bit generator, one of \['PCG64'"),
    ("rng", {"bit_generator": "Nope"}, r"rng = \{'bit_generator': 'Nope'\} must be the state of a numpy bit"),
], ids=["too many players", "a player count no int", "an rng no dict", "an unknown bit generator"])
def test_a_state_whose_player_count_or_rng_is_impossible_is_refused_naming_it(key, value, message):
    data = fresh(SnackRabbits).to_dict()
    data[key] = value
    with pytest.raises(ConfigError, match=message):
        SnackRabbits.from_dict(data)


@pytest.mark.parametrize("game_class", GAMES)
def test_from_state_gives_the_game_of_that_state_adopting_its_lists(game_class):
    game = fresh(game_class)
    data = game.to_dict()
    loaded = game_class.from_state(data["num_players"], data["config"], data["state"])
    assert type(loaded) is game_class and loaded == game and loaded.to_dict()["state"] == data["state"]
    assert loaded.deck is data["state"]["deck"]  # adopted, not copied: the batched kernels' quick export
    assert loaded.rng.bit_generator.state == PLACEHOLDER_RNG_STATE


@pytest.mark.parametrize("game_class", [SnackRabbits, SnackTime, SnackWars])
def test_a_turn_based_state_whose_turn_disagrees_with_its_end_is_refused_saying_so(game_class):
    def over_with_a_player_to_act(state: dict) -> None:
        state["game_over"] = True

    refused(game_class, over_with_a_player_to_act,
            r"state is impossible: current_player = 0 with game_over = True \(it is -1 exactly when the game is over\)")


class StuckRabbits(SnackRabbits):
    """Snack Rabbits in which seat 0 never has a legal action: a state with seat 0 to act is one no game reaches."""

    def _legal_actions(self, player: int) -> list[int]:
        return [] if player == 0 else super()._legal_actions(player)


def test_a_state_whose_player_to_act_has_no_legal_action_is_refused():
    data = fresh(SnackRabbits).to_dict()
    assert data["state"]["current_player"] == 0
    with pytest.raises(ConfigError, match=r"snack_rabbits state is impossible: seat 0 is to act but has no legal action"):
        StuckRabbits.from_dict(data)
    data["state"]["current_player"] = 1
    assert StuckRabbits.from_dict(data).legal_actions() == SnackRabbits.from_dict(data).legal_actions() != []


class BrokenRabbits(SnackRabbits):
    """Snack Rabbits whose legal actions of seat 0 cannot be worked out: its fields do not fit together."""

    def _legal_actions(self, player: int) -> list[int]:
        return [][player] if player == 0 else super()._legal_actions(player)


def test_a_state_the_rules_fail_on_is_refused_saying_the_fields_do_not_fit_together():
    data = fresh(SnackRabbits).to_dict()
    with pytest.raises(ConfigError, match=r"snack_rabbits state is impossible: the fields do not fit together "
                                          r"\(IndexError: "):
        BrokenRabbits.from_dict(data)


@pytest.mark.parametrize("key, value, message", [
    ("config", 5, r"snack_rabbits state: config = 5 must be a dict of options"),
    ("state", 5, r"snack_rabbits state: state = 5 must be a dict of the state fields"),
    ("state", ["deck"], r"snack_rabbits state: state = \['deck'\] must be a dict of the state fields"),
], ids=["config an int", "state an int", "state a list"])
def test_a_state_whose_config_or_state_is_no_dict_is_refused_naming_it(key, value, message):
    data = fresh(SnackRabbits).to_dict()
    data[key] = value
    with pytest.raises(ConfigError, match=message):
        SnackRabbits.from_dict(data)


def test_games_of_different_kinds_are_unequal_and_never_equal_to_other_things():
    rabbits = fresh(SnackRabbits)
    assert (rabbits == fresh(SnackWars)) is False and (rabbits == "snack_rabbits") is False
    assert (rabbits != fresh(SnackWars)) is True and rabbits == rabbits.copy()
