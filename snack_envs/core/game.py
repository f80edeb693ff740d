"""The rules layer's base class: what every game's rules object provides.

A `Game` is plain Python state plus transitions. It imports neither gymnasium
nor pettingzoo, so the rules can be tested, copied and searched on their own.
Chance comes only from the `numpy.random.Generator` handed to the constructor;
each game's rule methods also accept explicit outcomes (a deck order, a dice
roll) so tests can script them.

Players are numbered by seat, 0..num_players-1, in turn order; the env layer
maps seats to agent names.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np

PLACEHOLDER_RNG_STATE = np.random.PCG64(0).state  # `Game.from_state`'s rng, for a caller to replace

class IllegalActionError(ValueError):
    """An action that the rules do not allow in the current state."""


class ConfigError(ValueError):
    """An unknown keyword or an out-of-range value in an env or game config."""


def is_int(value: Any) -> bool:
    """Whether `value` is a whole number as the project takes one: a Python or numpy int, never a bool."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def is_bool(value: Any) -> bool:
    """Whether `value` is a truth value as the project takes one: a Python or numpy bool, never an int."""
    return isinstance(value, (bool, np.bool_))


def check_bool(value: Any, name: str, owner: str | None = None) -> bool:
    """`value` as a Python bool if it is one (`is_bool`), else a ConfigError naming `name` (and its `owner`):
    a flag is never read by its truth, where "no" would mean yes."""
    if not is_bool(value):
        raise ConfigError(f"{owner + ': ' if owner else ''}{name} must be a bool, got {value!r}")
    return bool(value)


def check_count(value: Any, name: str, least: int = 1, owner: str | None = None, or_none: bool = False) -> int | None:
    """`value` as an int if it is a whole number (`is_int`) of at least `least` (or None, where `or_none`),
    else a ConfigError naming `name` (and its `owner`): a bool, a float or a string is never cast."""
    if value is None and or_none:
        return None
    if not is_int(value) or value < least:
        kind = "a positive int" if least == 1 else f"an int of at least {least}"
        raise ConfigError(f"{owner + ': ' if owner else ''}{name} must be {kind}{' or None' if or_none else ''}, got {value!r}")
    return int(value)


def action_int(action: Any, owner: str) -> int:
    """`action` as an int if it is one: a Python int, a numpy integer or a 0-d integer array. Anything
    else (a bool, a float, a string, a longer array) is an IllegalActionError, never cast."""
    if type(action) is int:
        return action
    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        return int(action)
    if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
        return int(action)
    raise IllegalActionError(
        f"{owner}: an action must be an int (a Python or numpy integer, or a 0-d integer array), "
        f"got {action!r} of type {type(action).__name__}"
    )


def check_seed(seed: Any, owner: str) -> int | None:
    """`seed` as an int if it is None or a non-negative integer (Python or numpy), else a ConfigError."""
    if seed is None:
        return None
    if not is_int(seed) or seed < 0:
        raise ConfigError(f"{owner}: seed must be a non-negative int or None, got {seed!r}")
    return int(seed)


def finite_float(value: Any, name: str, owner: str) -> float:
    """`value` as a float if it is a finite real number (a Python or numpy int or float), else a ConfigError
    naming `name`: a bool, a string, None, NaN or an infinity is never cast."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or not np.isfinite(value):
        raise ConfigError(f"{owner}: {name} must be a finite number, got {value!r}")
    return float(value)


def check_reset_options(options: Any, owner: str, known: Sequence[str] = ()) -> dict[str, Any]:
    """`options` (a reset's) as a dict: None or a dict whose keys are all in `known`, else a ConfigError."""
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise ConfigError(f"{owner}: reset options must be a dict or None, got {options!r}")
    unknown = sorted(set(options) - set(known), key=str)
    if unknown:
        raise ConfigError(f"{owner}: unknown reset option(s) {unknown}; known options: {sorted(known)}")
    return dict(options)


@dataclass(frozen=True)
class Option:
    """One game option: its default, what values it accepts, and what it means."""

    default: Any
    doc: str
    choices: tuple | None = None
    low: float | None = None
    high: float | None = None
    kind: type | tuple[type, ...] | None = None

    def check(self, name: str, value: Any) -> Any:
        if self.choices is not None:
            if value not in self.choices:
                raise ConfigError(f"{name}={value!r} is not one of {list(self.choices)}")
            return value
        kind = self.kind or type(self.default)
        if kind is float and isinstance(value, (int, np.integer, np.floating)) and not isinstance(value, bool):
            value = float(value)  # a plain float, as a state's JSON holds it
        if kind is int and isinstance(value, np.integer):
            value = int(value)
        if kind is bool and isinstance(value, np.bool_):
            value = bool(value)
        if isinstance(value, bool) and kind is not bool or not isinstance(value, kind):
            raise ConfigError(f"{name}={value!r} must be of type {getattr(kind, '__name__', kind)}")
        if kind is float and value != value:  # NaN passes any range check
            raise ConfigError(f"{name}={value!r} is not a number")
        if self.low is not None and value < self.low or self.high is not None and value > self.high:
            raise ConfigError(f"{name}={value!r} is out of range [{self.low}, {self.high}]")
        return value


def check_options(owner: str, known: dict[str, Option], given: dict[str, Any]) -> dict[str, Any]:
    """Merge `given` over the defaults of `known`, rejecting unknown names and bad values."""
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise ConfigError(f"unknown option(s) {unknown} for {owner}; known options: {sorted(known)}")
    return {name: opt.check(name, given[name]) if name in given else opt.default for name, opt in known.items()}


# --- what a state field may hold: checked when a state is loaded (`Game.from_dict`) ---------------
def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


class Spec:
    """What one state field (or a part of one) may hold. `check(path, value)` raises ConfigError naming
    `path` (e.g. `"collections[1][3]"`) and the value when it does not."""

    def check(self, path: str, value: Any) -> None:
        raise NotImplementedError

    @staticmethod
    def fail(path: str, value: Any, problem: str) -> None:
        raise ConfigError(f"state field {path} = {_shown(value)} {problem}")


class IntIn(Spec):
    """A Python int (not a bool) in low..high (either bound None: open)."""

    def __init__(self, low: int | None = None, high: int | None = None):
        self.low, self.high = low, high

    def check(self, path, value):
        if type(value) is not int:
            self.fail(path, value, "must be an int")
        if self.low is not None and value < self.low or self.high is not None and value > self.high:
            low, high = ("" if b is None else b for b in (self.low, self.high))
            self.fail(path, value, f"is out of range {low}..{high}")


class NumberIn(IntIn):
    """An int or a float (not a bool, not NaN) in low..high."""

    def check(self, path, value):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
            self.fail(path, value, "must be a number")
        if self.low is not None and value < self.low or self.high is not None and value > self.high:
            self.fail(path, value, f"is out of range {self.low}..{self.high}")


class Boolean(Spec):
    def check(self, path, value):
        if type(value) is not bool:
            self.fail(path, value, "must be true or false")


class OneOf(Spec):
    """One of a few values (strings, ints), compared by type and value."""

    def __init__(self, *values: Any):
        self.values = values
        self.allowed = frozenset((type(v), v) for v in values)

    def check(self, path, value):
        try:
            ok = (type(value), value) in self.allowed
        except TypeError:  # unhashable
            ok = False
        if not ok:
            self.fail(path, value, f"is not one of {list(self.values)}")


class OrNone(Spec):
    """None or what `inner` accepts."""

    def __init__(self, inner: Spec):
        self.inner = inner

    def check(self, path, value):
        if value is not None:
            self.inner.check(path, value)


class ListOf(Spec):
    """A list whose items `item` accepts; `length` an int or a tuple of allowed lengths, `max_len` a bound,
    `unique` no item twice."""

    def __init__(self, item: Spec, length: int | tuple[int, ...] | None = None, max_len: int | None = None,
                 unique: bool = False):
        self.item, self.max_len, self.unique = item, max_len, unique
        self.lengths = (length,) if isinstance(length, int) else length

    def check(self, path, value):
        if type(value) is not list:
            self.fail(path, value, "must be a list")
        if self.lengths is not None and len(value) not in self.lengths:
            wanted = " or ".join(map(str, self.lengths))
            self.fail(path, value, f"must hold {wanted} item{'' if self.lengths == (1,) else 's'}, not {len(value)}")
        if self.max_len is not None and len(value) > self.max_len:
            self.fail(path, value, f"must hold at most {self.max_len} items, not {len(value)}")
        item = self.item
        if type(item) is IntIn and all(type(x) is int for x in value) and (
            not value or (item.low is None or min(value) >= item.low) and (item.high is None or max(value) <= item.high)
        ):
            pass  # the common cases, checked at once
        elif type(item) is OneOf and all(type(x) in (int, str) and (type(x), x) in item.allowed for x in value):
            pass
        else:
            for i, x in enumerate(value):
                item.check(f"{path}[{i}]", x)
        if self.unique and len(set(map(repr, value))) != len(value):
            self.fail(path, value, "holds an item twice")


class Items(Spec):
    """A list with one spec per position (a fixed length)."""

    def __init__(self, *items: Spec):
        self.items = items

    def check(self, path, value):
        if type(value) is not list or len(value) != len(self.items):
            self.fail(path, value, f"must be a list of {len(self.items)} items")
        for i, (spec, item) in enumerate(zip(self.items, value)):
            spec.check(f"{path}[{i}]", item)


class Record(Spec):
    """A dict with exactly these string keys, each checked by its spec."""

    def __init__(self, **fields: Spec):
        self.fields = fields

    def check(self, path, value):
        if type(value) is not dict:
            self.fail(path, value, "must be a dict")
        if set(value) != set(self.fields):
            missing, unknown = sorted(set(self.fields) - set(value)), sorted(set(value) - set(self.fields), key=str)
            self.fail(path, value, "lacks the key(s) " + str(missing) if missing else f"has unknown key(s) {unknown}")
        for key, spec in self.fields.items():
            spec.check(f"{path}[{key!r}]", value[key])


class Satisfies(Spec):
    """What `test(value)` accepts (it may raise); `what` says what that is, for the message."""

    def __init__(self, test, what: str):
        self.test, self.what = test, what

    def check(self, path, value):
        try:
            ok = self.test(value)
        except (TypeError, ValueError, IndexError, KeyError, AttributeError):
            ok = False
        if not ok:
            self.fail(path, value, f"must be {self.what}")


class Game:
    """Base class of a game's rules. Subclasses fill in the facts and the transitions.

    Facts (class attributes): `name`, `min_players`, `max_players`,
    `default_players`, `options` (name -> Option), `score_range` (lowest and
    highest final score a player can reach, for scaling rewards),
    `state_fields` (the attributes that make up the state, JSON-native values).

    A subclass implements `_setup(**scripted)`, `legal_actions`, `_apply`,
    `scores`, `action_to_str`, `render_text` and the class methods
    `num_actions_for(num_players, options)` and `state_specs(num_players,
    options)` (what each state field may hold, checked when a state is loaded);
    `invariant_violations` holds its conservation laws, checked on load too.
    `current_player` is a state field (-1 once the game is over, or for
    simultaneous games, see `players_to_act`).
    """

    name: ClassVar[str] = "game"
    version: ClassVar[int] = 0
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 2
    default_players: ClassVar[int] = 2
    options: ClassVar[dict[str, Option]] = {}
    score_range: ClassVar[tuple[float, float]] = (0.0, 1.0)
    state_fields: ClassVar[tuple[str, ...]] = ()

    current_player: int
    game_over: bool

    def __init__(self, num_players: int | None = None, rng: np.random.Generator | None = None, **options_and_script):
        if num_players is None:
            num_players = self.default_players
        self.num_players = self.check_num_players(num_players)
        script = {k: options_and_script.pop(k) for k in list(options_and_script) if k in self.scripted_outcomes}
        self.config = check_options(self.name, self.options, options_and_script)
        self.rng = rng if rng is not None else np.random.default_rng()
        self.num_actions = self.num_actions_for(self.num_players, self.config)
        self._legal_cache: dict[int, list[int]] = {}
        self._setup(**script)

    # Keyword arguments of the constructor that script chance instead of options.
    scripted_outcomes: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def check_num_players(cls, num_players: Any) -> int:
        if not is_int(num_players):
            raise ConfigError(f"num_players must be an int, got {num_players!r}")
        if not cls.min_players <= num_players <= cls.max_players:
            raise ConfigError(
                f"{cls.name} is played by {cls.min_players} to {cls.max_players} players, got num_players={num_players}"
            )
        return int(num_players)

    @classmethod
    def num_actions_for(cls, num_players: int, config: dict[str, Any]) -> int:
        raise NotImplementedError

    @classmethod
    def default_max_steps(cls, num_players: int) -> int:
        """The documented game-length bound (decisions) after which the env truncates."""
        raise NotImplementedError

    def _setup(self, **script) -> None:
        raise NotImplementedError

    # --- turns and actions -------------------------------------------------
    def players_to_act(self) -> list[int]:
        """Seats that must choose an action now (one seat for turn-based games)."""
        return [] if self.game_over else [p for p in range(self.num_players) if self.is_to_act(p)]

    def legal_actions(self, player: int | None = None) -> list[int]:
        """Legal actions of `player` (default: the player to act) in increasing order; [] if none.

        Cached until the state changes through `apply`; do not mutate the list. A `player` that is not a
        seat of the game is an IllegalActionError (it read as a seat with nothing to do)."""
        if player is None:
            key = self.current_player
        elif type(player) is int and 0 <= player < self.num_players:  # check_seat's quick path, inline: a hot call
            key = player
        else:
            key = self.check_seat(player)
        cached = self._legal_cache.get(key)
        if cached is None:
            cached = [] if self.game_over or not self.is_to_act(key) else self._legal_actions(key)
            self._legal_cache[key] = cached
        return cached

    def is_seat(self, player: Any) -> bool:
        """Whether `player` is a seat of this game: a Python or numpy int in 0..num_players-1 ("1", True, 1.0
        and -1 are not)."""
        return is_int(player) and 0 <= player < self.num_players

    def check_seat(self, player: Any) -> int:
        """`player` as an int if it is a seat of this game (`is_seat`), else an IllegalActionError naming it."""
        if type(player) is int and 0 <= player < self.num_players:  # the common case, quickly
            return player
        if not self.is_seat(player):
            raise IllegalActionError(f"{self.name}: player {player!r} is not a seat of this "
                                     f"{self.num_players}-player game (0..{self.num_players - 1})")
        return int(player)

    def is_to_act(self, player: int) -> bool:
        """Whether `player` must choose an action now (turn-based: the current player)."""
        return player == self.current_player

    def state_changed(self) -> None:
        """Call after editing state fields by hand (tests, puzzles): forgets cached legal actions."""
        self._legal_cache.clear()

    def _legal_actions(self, player: int) -> list[int]:
        raise NotImplementedError

    def action_mask(self, player: int | None = None) -> np.ndarray:
        mask = np.zeros(self.num_actions, dtype=np.int8)
        legal = self.legal_actions(player)
        if legal:
            mask[legal] = 1
        return mask

    def check_action(self, action: Any, player: int | None = None) -> int:
        """Return `action` as an int if it is legal now, else raise IllegalActionError."""
        if self.game_over:
            raise IllegalActionError(f"{self.name}: the game is over; no action is legal")
        action = action_int(action, self.name)
        if player is not None and not (type(player) is int and 0 <= player < self.num_players):
            player = self.check_seat(player)
        if player is not None and not self.is_to_act(player):
            raise IllegalActionError(
                f"{self.name}: player {player} is not to act now (players to act: {self.players_to_act()})"
            )
        legal = self.legal_actions(player)
        if action not in legal:
            where = "out of range" if not 0 <= action < self.num_actions else "not legal now"
            seat = self.current_player if player is None else player
            shown = ", ".join(f"{a} ({self.action_to_str(a)})" for a in legal[:12])
            more = f", ... ({len(legal)} in all)" if len(legal) > 12 else ""
            raise IllegalActionError(
                f"{self.name}: action {action} is {where} for player {seat}"
                + (f" ({self.action_to_str(action)})" if where == "not legal now" else f" (0..{self.num_actions - 1})")
                + f"; legal actions: {shown}{more}"
            )
        return action

    def apply(self, action: int, player: int | None = None, **outcomes) -> None:
        """Check `action` (of `player`, default the player to act) and apply it.

        Raises IllegalActionError and changes nothing if it is illegal. `outcomes`
        script the chance events of this step (see each game's `_apply`)."""
        action = self.check_action(action, player)
        self._legal_cache.clear()
        self._apply(action, **outcomes)

    def apply_joint(self, actions: Mapping[int, Any] | list | tuple | np.ndarray, **outcomes) -> None:
        """Apply one action per seat to act: a dict seat -> action, or a list (a tuple, a 1-D array) by
        seat. Every game takes this form, so one loop can drive turn-based and simultaneous games alike; in
        a turn-based game only the player to act gives one. Raises IllegalActionError and changes nothing
        if `actions` is none of those, a seat to act has no action, a seat not to act has one, or an action
        is illegal."""
        if self.game_over:
            raise IllegalActionError(f"{self.name}: the game is over; no action is legal")
        if isinstance(actions, Mapping):
            given = dict(actions)
        elif isinstance(actions, (list, tuple)) or isinstance(actions, np.ndarray) and actions.ndim == 1:
            given = dict(enumerate(actions))
        else:
            raise IllegalActionError(f"{self.name}: the actions must be a dict seat -> action or a list by seat, "
                                     f"not {actions!r}")
        seats = self.players_to_act()
        missing = [s for s in seats if s not in given]
        extra = [s for s in given if s not in seats]
        if missing or extra:
            raise IllegalActionError(
                f"{self.name}: one action for each seat to act {seats} is needed"
                + (f"; missing seat(s) {missing}" if missing else "")
                + (f"; seat(s) {extra} are not to act" if extra else "")
            )
        checked = {s: self.check_action(given[s], s) for s in seats}
        self._legal_cache.clear()
        self._apply_joint(checked, **outcomes)

    def _apply_joint(self, actions: dict[int, int], **outcomes) -> None:
        (action,) = actions.values()
        self._apply(action, **outcomes)

    def _apply(self, action: int, **outcomes) -> None:
        raise NotImplementedError

    # --- results ------------------------------------------------------------
    def scores(self) -> list[float]:
        raise NotImplementedError

    def winners(self) -> list[int]:
        """Seats that share the win. Default: the highest score, ties shared."""
        scores = self.scores()
        best = max(scores)
        return [p for p, s in enumerate(scores) if s == best]

    def invariant_violations(self) -> list[str]:
        """Broken conservation laws of the current state (cards, dice...), as messages; [] if sound."""
        return []

    # --- text ---------------------------------------------------------------
    def action_to_str(self, action: int) -> str:
        raise NotImplementedError

    def render_text(self, viewer: int | None = None, names: Sequence[str] | None = None) -> str:
        raise NotImplementedError

    def view_names(self, viewer: Any = None, names: Any = None) -> list[str]:
        """The seat names a picture or text shows: `names`, else "seat 0", "seat 1"...; first checks
        `viewer` (a seat, or None for the spectator) and `names` (one string per seat), a ConfigError
        naming either otherwise (seat -1 drew the last seat's view, and too few names failed in IndexError)."""
        n = self.num_players
        if viewer is not None and not self.is_seat(viewer):
            raise ConfigError(f"viewer must be a seat in 0..{n - 1} or None (the spectator's view), got {viewer!r}")
        if names is None:
            return [f"seat {p}" for p in range(n)]
        if isinstance(names, str) or not hasattr(names, "__len__") or len(names) != n or not all(
                isinstance(name, str) for name in names):
            raise ConfigError(f"names must be a list of {n} strings, one per seat, got {names!r}")
        return list(names)

    # --- state as data ------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The whole state as JSON-native data, rng state included."""
        return {
            "game": self.name,
            "version": self.version,
            "num_players": self.num_players,
            "config": dict(self.config),
            "state": copy.deepcopy({f: getattr(self, f) for f in self.state_fields}),
            "rng": self.rng.bit_generator.state,
        }

    # Keys of `to_dict`'s data, and the bit generators an rng state may name.
    DATA_KEYS: ClassVar[tuple[str, ...]] = ("game", "version", "num_players", "config", "state", "rng")
    BIT_GENERATORS: ClassVar[tuple[str, ...]] = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")

    @classmethod
    def from_dict(cls, data: dict[str, Any], copy_state: bool = True) -> "Game":
        """The game `to_dict` gave. The data is checked first (`check_data`, `check_fields`, `check_rules`):
        a state the rules cannot reach (a wrong type, a value out of range, cards lost or made up, a bad
        phase, a missing field) is a ConfigError naming the field. `copy_state=False` adopts the state's lists
        instead of copying them and checks nothing: it is for a caller that built the state for this
        game alone (`from_state`, `copy`), and is kept fast."""
        if copy_state:
            cls.check_data(data)
        game = cls.__new__(cls)
        game.num_players = cls.check_num_players(data["num_players"])
        game.config = check_options(cls.name, cls.options, data["config"])
        game.num_actions = cls.num_actions_for(game.num_players, game.config)
        rng_state = data["rng"]
        game.rng = np.random.Generator(getattr(np.random, rng_state["bit_generator"])())
        try:
            game.rng.bit_generator.state = rng_state
        except (TypeError, ValueError, KeyError, OverflowError) as e:
            raise ConfigError(
                f"{cls.name} state: rng = {_shown(rng_state)} is no state of its bit generator ({e})"
            ) from None
        state = data["state"]
        for field in cls.state_fields:
            setattr(game, field, copy.deepcopy(state[field]) if copy_state else state[field])
        game._legal_cache = {}
        if copy_state:
            game.check_fields()
        game._after_load()
        if copy_state:
            game.check_rules()
        return game

    @classmethod
    def check_data(cls, data: Any) -> None:
        """ConfigError unless `data` has `to_dict`'s shape for this game: its keys, the game's name and
        version, a player count and options it accepts, an rng state, and every state field."""
        if not isinstance(data, Mapping):
            raise ConfigError(f"{cls.name} state must be a dict as to_dict() gives it, not {type(data).__name__}")
        if data.get("game") != cls.name or data.get("version") != cls.version:
            raise ConfigError(
                f"state is for {data.get('game')} v{data.get('version')}, not {cls.name} v{cls.version}"
            )
        missing = [k for k in cls.DATA_KEYS if k not in data]
        unknown = sorted(set(data) - set(cls.DATA_KEYS), key=str)
        if missing or unknown:
            problem = f"missing key(s) {missing}" if missing else f"unknown key(s) {unknown}"
            raise ConfigError(f"{cls.name} state: {problem}")
        cls.check_num_players(data["num_players"])
        if not isinstance(data["config"], Mapping):
            raise ConfigError(f"{cls.name} state: config = {_shown(data['config'])} must be a dict of options")
        rng = data["rng"]
        if not isinstance(rng, Mapping) or rng.get("bit_generator") not in cls.BIT_GENERATORS:
            raise ConfigError(f"{cls.name} state: rng = {_shown(rng)} must be the state of a numpy bit generator, "
                              f"one of {list(cls.BIT_GENERATORS)}")
        state = data["state"]
        if not isinstance(state, Mapping):
            raise ConfigError(f"{cls.name} state: state = {_shown(state)} must be a dict of the state fields")
        missing = [f for f in cls.state_fields if f not in state]
        unknown = sorted(set(state) - set(cls.state_fields), key=str)
        if missing or unknown:
            problem = f"missing field(s) {missing}" if missing else f"unknown field(s) {unknown}"
            raise ConfigError(f"{cls.name} state: {problem}")

    @classmethod
    def state_specs(cls, num_players: int, config: dict[str, Any]) -> dict[str, Spec]:
        """What each state field may hold (type, range, length), for checking a loaded state. Every game
        gives a spec for each of its `state_fields` but `current_player` and `game_over` (the base's)."""
        raise NotImplementedError

    def check_fields(self) -> None:
        """ConfigError, naming the field, unless every state field is of the type and range its spec says."""
        n = self.num_players
        specs = {"current_player": IntIn(-1, n - 1), "game_over": Boolean(), **self.state_specs(n, self.config)}
        try:
            for field in self.state_fields:
                specs[field].check(field, getattr(self, field))
        except ConfigError as e:
            raise ConfigError(f"{self.name} {e}") from None

    def check_rules(self) -> None:
        """ConfigError unless the state is one the rules can reach, as far as checks can tell: whose turn it
        is agrees with `game_over`, a player to act has a legal action, and no invariant is broken
        (`invariant_violations`: cards and dice conserved, phases consistent). Run after `check_fields`."""
        try:
            problems = self.turn_violations() + self.invariant_violations()
            if not problems and not self.game_over:
                problems += [f"seat {p} is to act but has no legal action" for p in self.players_to_act()
                             if not self.legal_actions(p)]
        except (TypeError, ValueError, IndexError, KeyError, AttributeError, ZeroDivisionError) as e:
            if isinstance(e, ConfigError):
                raise
            problems = [f"the fields do not fit together ({type(e).__name__}: {e})"]
        finally:
            self._legal_cache.clear()
        if problems:
            raise ConfigError(f"{self.name} state is impossible: " + "; ".join(problems))

    def turn_violations(self) -> list[str]:
        """A turn-based game: `current_player` is -1 exactly when the game is over."""
        if self.game_over != (self.current_player == -1):
            return [f"current_player = {self.current_player} with game_over = {self.game_over} "
                    "(it is -1 exactly when the game is over)"]
        return []

    def _after_load(self) -> None:
        """Rebuild what the rules keep beside the state fields (a hook for `from_dict`)."""

    @classmethod
    def from_state(cls, num_players: int, config: dict[str, Any], state: dict[str, Any]) -> "Game":
        """A game in `state` (every state field, as `to_dict` gives them), adopting its lists, with a
        placeholder rng: how a batched kernel exports a game quickly."""
        return cls.from_dict({"game": cls.name, "version": cls.version, "num_players": num_players,
                              "config": config, "state": state, "rng": PLACEHOLDER_RNG_STATE}, copy_state=False)

    def to_json(self) -> str:
        return json.dumps(self.to_dict())

    @classmethod
    def from_json(cls, text: str) -> "Game":
        return cls.from_dict(json.loads(text))

    def copy(self) -> "Game":
        """An independent copy, its rng included (so both continue alike)."""
        return self.from_dict(self.to_dict(), copy_state=False)  # to_dict's state is a copy already

    def __eq__(self, other: object) -> bool:
        """Same game, options and position; the rng state is not compared."""
        if type(other) is not type(self):
            return NotImplemented
        return (self.num_players == other.num_players and self.config == other.config
                and all(getattr(self, f) == getattr(other, f) for f in self.state_fields))

    __hash__ = None  # mutable


class SimultaneousGame(Game):
    """A game whose seats act at the same time: `apply_joint` checks every seat's action before
    changing anything, then `_apply_joint` (each subclass's) resolves them together. A seat with
    nothing to decide is given a no-op action by the game, so no mask is ever empty.

    `current_player` stays -1; `is_to_act(p)` says which seats give an action
    in the next joint step (by default every seat until the game ends)."""

    def is_to_act(self, player: int) -> bool:
        return not self.game_over and 0 <= player < self.num_players

    def turn_violations(self) -> list[str]:
        if self.current_player == -1:
            return []
        return [f"current_player = {self.current_player} in a simultaneous game (always -1)"]

    def apply(self, action: int, player: int | None = None, **outcomes) -> None:
        """A simultaneous game takes joint actions only: one seat's action alone is refused."""
        raise IllegalActionError(f"{self.name} is simultaneous: give every seat's action to apply_joint")

    def round_result(self) -> list[float] | None:
        """Per-seat result of a round scored by the last joint step (+1 won, -1 lost, 0 tie), else None.

        Games played over rounds override this to support reward="round"."""
        return None


def roll_dice(rng: np.random.Generator, count: int, sides: int = 6) -> list[int]:
    """`count` fair dice with faces 1..`sides`.

    One `rng.random` call: for a handful of dice it is several times faster
    than `rng.integers`, which matters in a step that rolls."""
    return [int(u * sides) + 1 for u in rng.random(count).tolist()]


def count_by(items: Sequence[int], size: int) -> list[int]:
    counts = [0] * size
    for item in items:
        counts[item] += 1
    return counts


def majority_holders(counts: Sequence[int]) -> list[int]:
    """Indices holding the strictly positive maximum of `counts` (all of them on a tie)."""
    best = max(counts)
    return [] if best <= 0 else [i for i, c in enumerate(counts) if c == best]

