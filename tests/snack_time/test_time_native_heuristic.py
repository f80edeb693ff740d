"""The native Snack Time bot (`snack_time.batched_heuristic`, `Kernel.heuristic_actions`) plays exactly the
Python bot's action (`heuristic.HeuristicPolicy.act`) on every position: over 10,000 positions across every
option set and player count, from play that mixes the bot's moves and random legal moves.

Games run long (about 60 decisions a player), and the Python bot is slow, so each batch is first played
forward by a different number of decisions in each env (a coin a decision: the bot or a random legal move;
the bot's moves there are the native bot's, which is the bot this test holds to the Python one); then every
env is compared for a few decisions in a row, the games played on by the Python bot's action or a random
one. So the positions compared spread over whole games: entrances, the first rounds, full maps, the last
round.
"""

from __future__ import annotations

import numpy as np
import pytest

from snack_envs import specs
from snack_envs.snack_time.actions import NUM_ACTIONS
from snack_envs.snack_time.observation import LAYOUT
from snack_envs.snack_time.rules import SnackTime
from tests.helpers import option_sets

pytest.importorskip("numba")
from snack_envs import batched  # noqa: E402

ENV = "snack_time_v0"
OPTION_SETS = option_sets(SnackTime)
PLAYERS = list(range(SnackTime.min_players, SnackTime.max_players + 1))
POSITIONS = 10_000  # compared in all, over the option sets and player counts
ENVS = 16
CHECKS = -(-POSITIONS // (len(OPTION_SETS) * len(PLAYERS) * ENVS))  # decisions compared in a row, per env
DECISIONS_A_PLAYER = 60  # about a game's decisions per player: the spread of the envs' head starts
PHASE = LAYOUT.slices["phase"]
PHASE_NAMES = ("entrance", "trap damage", "traits", "pipes", "snack damage")


def mixed_moves(rng: np.random.Generator, bot_actions: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Per env, a coin: the bot's action or a random legal one."""
    random_moves = (rng.random(mask.shape) * mask).argmax(1)
    return np.where(rng.random(len(mask)) < 0.5, bot_actions, random_moves)


@pytest.mark.parametrize("options", OPTION_SETS, ids=str)
def test_the_native_bot_plays_the_python_bots_action(options):
    set_index = OPTION_SETS.index(options)
    phases = np.zeros(len(PHASE_NAMES), np.int64)
    for n in PLAYERS:
        bot = specs.get(ENV).heuristic(n, **options)
        rng = np.random.default_rng([set_index, n])
        venv = batched.make(ENV, num_envs=ENVS, num_players=n, seed=100 * set_index + n, **options)
        obs, mask, _ = venv.reset()
        head_start = rng.integers(0, DECISIONS_A_PLAYER * n, ENVS)
        for step in range(head_start.max()):
            moves = mixed_moves(rng, venv.kernel.heuristic_actions(obs, mask), mask)
            obs, mask, *_ = venv.step(moves, envs=head_start > step)
        for check in range(CHECKS):
            native = venv.kernel.heuristic_actions(obs, mask)
            python = np.array([bot.act(obs[b], mask[b]) for b in range(ENVS)])
            for b in np.flatnonzero(native != python):
                phase = PHASE_NAMES[int(obs[b, PHASE].argmax())]
                legal = np.flatnonzero(mask[b]).tolist()
                pytest.fail(
                    f"options {options}, {n} players: position {check * ENVS + b} (check {check}, env {b}, "
                    f"{phase} phase, {len(legal)} legal actions): native {native[b]}, Python {python[b]}; "
                    f"the Python bot's best: {bot.best_actions(obs[b], mask[b])}"
                )
            phases += np.bincount(obs[:, PHASE].argmax(1), minlength=len(PHASE_NAMES))
            obs, mask, *_ = venv.step(mixed_moves(rng, python, mask))
    # The positions compared reach every kind of decision the options give.
    assert phases[2] and phases[3], dict(zip(PHASE_NAMES, phases.tolist()))
    assert bool(phases[0]) == bool(options.get("advanced_entrances")), dict(zip(PHASE_NAMES, phases.tolist()))


def test_rows_with_one_or_no_legal_action():
    """A single legal action is played as is; a row with none gets -1 (the Python bot has no answer)."""
    venv = batched.make(ENV, num_envs=2, num_players=2, seed=0)
    obs, mask, _ = venv.reset()
    one, none = np.zeros(NUM_ACTIONS, np.int8), np.zeros(NUM_ACTIONS, np.int8)
    one[NUM_ACTIONS - 1] = 1
    assert venv.kernel.heuristic_actions(obs, np.stack([one, none])).tolist() == [NUM_ACTIONS - 1, -1]
    # one row, unbatched, as the Python bot takes it
    bot = specs.get(ENV).heuristic(2)
    assert venv.kernel.heuristic_actions(obs[0], mask[0]).tolist() == [bot.act(obs[0], mask[0])]
