"""The batched engine against the reference rules, step by step, for every batched game.

Random legal play over every option set (`helpers.option_sets`) and player
count. At every step, for every env: the batched observation and mask equal
the PettingZoo env's `observe()` for the agent to act, in the position that
`export` gives; after the step, the reference game, given the same action and
the batched step's chance outcomes (`outcomes`), equals the exported state
(rng aside); a finished game's rewards are the env's final rewards.
The default suite plays GAMES games per game; `-m slow` plays SLOW_GAMES.
"""

from __future__ import annotations

import numpy as np
import pytest

from snack_envs import specs
from snack_envs.core.env import final_rewards
from snack_envs.core.game import check_options
from tests.helpers import option_sets, player_counts

pytest.importorskip("numba")
from snack_envs import batched  # noqa: E402

GAMES, SLOW_GAMES = 2_000, 20_000
BATCHED = [s for s in specs.SPECS if s.batched]


def cases(spec) -> list[tuple[int, dict]]:
    counts = player_counts(spec.env_name)
    sets = option_sets(spec.rules_class)
    return [(n, options) for options in sets for n in counts]


class Reference:
    """A raw PettingZoo env showing a reference game through the env's own `observe`."""

    def __init__(self, spec, n: int, options: dict):
        self.spec, self.env = spec, spec.raw_env(num_players=n, **options)
        self.env.reset(seed=0)

    def observe(self, game, seat_of_agent: list[int], agent: int) -> dict:
        env = self.env
        env.game = game
        env.agent_seats = {f"player_{a}": s for a, s in enumerate(seat_of_agent)}
        env.seat_agents = sorted(env.agent_seats, key=env.agent_seats.get)
        if self.spec.simultaneous:
            env.halted = False
        else:
            env.truncations = dict.fromkeys(env.possible_agents, False)
        return env.observe(f"player_{agent}")

    def seat_config(self, seat_of_agent: list[int]) -> dict:
        """The game options that the PettingZoo env deals with this seating (options given per agent, such as
        Speed Snacks' speeds, follow their agent to its seat)."""
        env = self.env
        env.seat_agents = [f"player_{a}" for a in sorted(range(len(seat_of_agent)), key=seat_of_agent.__getitem__)]
        return check_options(env.game_class.name, env.game_class.options, env._seat_options())


def single(name: str, game):
    """A batch of one env, seats unshuffled (agent i sits in seat i), set to `game`."""
    venv = batched.make(name, num_envs=1, num_players=game.num_players, seed=0, auto_reset=False,
                        shuffle_seats=False, reward="margin", **game.config)
    venv.reset()
    venv.load(0, game)
    return venv


def follow(name: str, game, actions: list[int]):
    """Play `actions` on the reference `game` and on a kernel loaded with it, comparing the observation and
    mask of the player to act before every step and the exported position after it (the reference's chance
    scripted by the kernel's outcomes; a game just loaded has none). Returns the reference game."""
    venv = single(name, game)
    reference = Reference(specs.get(name), game.num_players, dict(game.config))
    seats = list(range(game.num_players))
    obs, mask, player = venv.observe()
    assert venv.export(0) == game and venv.outcomes(0) == {}
    for action in actions:
        seat = game.current_player
        assert int(player[0]) == seat
        expected = reference.observe(game, seats, seat)
        assert np.array_equal(obs[0], expected["observation"]), "observation"
        assert np.array_equal(mask[0], expected["action_mask"]), "mask"
        obs, mask, player, _, terminated, _ = venv.step(np.array([action]))
        game.apply(action, **venv.outcomes(0))
        assert venv.export(0) == game
        assert bool(terminated[0]) == game.game_over
    return game


def play(spec, n: int, options: dict, games: int, seed: int, num_envs: int = 32) -> int:
    """Play `games` games in batches of `num_envs` and check every step; returns the steps checked."""
    num_envs = min(num_envs, games)
    venv = batched.make(spec.env_name, num_envs=num_envs, num_players=n, seed=seed, auto_reset=False,
                        reward="margin" if not spec.simultaneous else "win", **options)
    reference = Reference(spec, n, options)
    rng = np.random.default_rng(seed)
    checked = 0
    for _ in range(-(-games // num_envs)):
        out = venv.reset()
        # Each env's reference game: exported at the deal, then stepped beside the kernel (and checked equal
        # to its export after every step).
        games = {i: venv.kernel.export(i) for i in range(num_envs)}  # (export less the rng, faster)
        for i, game in games.items():
            assert game.config == reference.seat_config(venv.agent_seats(i)), f"env {i}: options by seat"
        while venv.live.any():
            obs, mask = out[0], out[1]
            before = {}
            actions = np.zeros(mask.shape[:-1], np.int64)
            for i in np.flatnonzero(venv.live):
                game, seats = games[i], venv.agent_seats(i)
                agents = range(n) if spec.simultaneous else [int(out[2][i])]
                for agent in agents:
                    where = (i, agent) if spec.simultaneous else (i,)
                    if not spec.simultaneous:
                        assert seats[agent] == game.current_player, f"env {i}: player_{agent} is not to act"
                    expected = reference.observe(game, seats, agent)
                    assert np.array_equal(obs[where], expected["observation"]), f"env {i} player_{agent}: observation"
                    assert np.array_equal(mask[where], expected["action_mask"]), f"env {i} player_{agent}: mask"
                    actions[where] = rng.choice(np.flatnonzero(mask[where]))
                before[i] = (game, seats)
            out = venv.step(actions)
            rewards, terminated, truncated = out[-3:]
            for i, (game, seats) in before.items():
                by_seat = {seats[a]: int(actions[i, a] if spec.simultaneous else actions[i]) for a in range(n)} \
                    if spec.simultaneous else {game.current_player: int(actions[i])}
                game.apply_joint(by_seat, **venv.outcomes(i))
                assert game == venv.kernel.export(i), f"env {i}: the state after the step differs from the reference"
                assert bool(terminated[i]) == game.game_over
                if game.game_over and venv.reward_mode != "round":
                    expected = final_rewards(game, venv.reward_mode)
                    assert rewards[i].tolist() == pytest.approx([expected[s] for s in seats])
                checked += 1
    return checked


CASES = [(spec, n, options) for spec in BATCHED for n, options in cases(spec)]
IDS = [f"{spec.env_name} n={n} {options}" for spec, n, options in CASES]


def games_per_case(spec, total: int) -> int:
    return -(-total // len(cases(spec)))


@pytest.mark.parametrize("spec, n, options", CASES, ids=IDS)
def test_batched_engine_follows_the_reference_rules(spec, n, options):
    seed = CASES.index((spec, n, options))
    assert play(spec, n, options, games=games_per_case(spec, GAMES), seed=seed) > 0


@pytest.mark.slow
@pytest.mark.parametrize("spec, n, options", CASES, ids=IDS)
def test_batched_engine_follows_the_reference_rules_over_many_games(spec, n, options):
    seed = 1000 + CASES.index((spec, n, options))
    play(spec, n, options, games=games_per_case(spec, SLOW_GAMES), seed=seed, num_envs=128)
