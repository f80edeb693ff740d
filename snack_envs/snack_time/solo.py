"""Snack Time's solo mode as a single-agent Gymnasium env, registered as `SnackTimeSolo-v0`.

    import gymnasium, snack_envs.snack_time_v0  # the import registers the id
    env = gymnasium.make("SnackTimeSolo-v0", rat_snacks=True)
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(env.unwrapped.action_masks().nonzero()[0][0])

| | |
|---|---|
| Observation | `Box(LAYOUT.size,) float32`: the `snack_time_v0` observation of seat 0 (see its docstring) |
| Actions | `Discrete(728)`, encoded as in `snack_time_v0`; `action_masks()` gives the legal ones (sb3-contrib's MaskablePPO reads it), and so does `info["action_mask"]` after every reset and step (for Gymnasium's vector envs). An action is an integer (a Python or numpy int, or a 0-d integer array): anything else raises IllegalActionError and changes nothing, never cast |
| Reward | the change of the sheet's score (snacks + satisfaction + rats - badge penalty) made by each step; it is 0 except on the steps that change the score, and sums over an episode to the final score |
| Episode end | `terminated` when the game ends (at most 92 decisions); never truncated |
| Final info | `score`, `rank` (the rulebook's solo table, +7 with Rat Snacks), `end` (the end conditions met) |
| Illegal action | ends the episode with `illegal_reward` (default -1) and `info["illegal_action"] = True`, as the project's other single-agent envs do (Gymnasium's checker samples unmasked actions); `illegal_action="raise"` raises IllegalActionError and changes nothing |

Keywords: the game's options (`rat_snacks`, `advanced_entrances`,
`advanced_traps`), `render_mode` ("ansi", "human" or "rgb_array": the
picture `snack_time_v0` draws, Pillow needed), `illegal_action`,
`illegal_reward` (and `num_players=1`, the only count). The game's chance comes from the env's `np_random`, so
`reset(seed=...)` fixes the whole episode; the seed is a non-negative int or
None, and `reset` takes no option (an unknown one is a ConfigError).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from snack_envs.core.game import (
    ConfigError,
    IllegalActionError,
    action_int,
    check_reset_options,
    check_seed,
    finite_float,
    is_int,
)
from snack_envs.snack_time.observation import LAYOUT, SnackTimeEncoder
from snack_envs.snack_time.rules import NUM_ACTIONS, SnackTime

SOLO_ENV_ID = "SnackTimeSolo-v0"


class SnackTimeSoloEnv(gymnasium.Env):
    __doc__ = __doc__
    metadata = {"render_modes": ["ansi", "human", "rgb_array"], "render_fps": 2}

    def __init__(
        self,
        render_mode: str | None = None,
        illegal_action: str = "penalize",
        illegal_reward: float = -1.0,
        **options: Any,
    ):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(f"render_mode={render_mode!r} is not one of {self.metadata['render_modes']}")
        if illegal_action not in ("penalize", "raise"):
            raise ConfigError(f"illegal_action={illegal_action!r} is not one of ['penalize', 'raise']")
        count = options.get("num_players", 1)
        if not is_int(count) or count != 1:  # True, 1.0 == 1
            raise ConfigError(f"num_players={options['num_players']!r}: {SOLO_ENV_ID} is played by one player "
                              f"(snack_time_v0.env(num_players=...) plays {SnackTime.min_players} to "
                              f"{SnackTime.max_players})")
        options.pop("num_players", None)
        probe = SnackTime(1, np.random.default_rng(0), **options)  # rejects unknown or bad options here
        self.game_options = dict(options)
        self.render_mode = render_mode
        self.illegal_action = illegal_action
        self.illegal_reward = finite_float(illegal_reward, "illegal_reward", SOLO_ENV_ID)
        self.encoder = SnackTimeEncoder(1, probe.config)
        self.observation_space = spaces.Box(LAYOUT.low, LAYOUT.high, (LAYOUT.size,), LAYOUT.dtype)
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.game: SnackTime | None = None
        self._score = 0
        self._done = True

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        seed = check_seed(seed, SOLO_ENV_ID)
        check_reset_options(options, SOLO_ENV_ID)
        super().reset(seed=seed)
        self.game = SnackTime(1, self.np_random, **self.game_options)
        self._score = self.game.score(0)
        self._done = False
        return self.encoder.encode(self.game, 0), {"action_mask": self.action_masks()}

    def step(self, action):
        if self._done:
            raise RuntimeError("step() before reset() or after the episode ended; call reset()")
        action = action_int(action, SOLO_ENV_ID)  # a float, a string or a bool is an error, never cast
        game = self.game
        if self.illegal_action == "raise":
            game.apply(action, 0)  # IllegalActionError, state unchanged, if illegal
        else:
            try:
                action = game.check_action(action, 0)
            except IllegalActionError:
                self._done = True
                info = {"illegal_action": True, "action_mask": self.action_masks()}
                return self.encoder.encode(game, 0), self.illegal_reward, True, False, info
            game.apply(action, 0)
        score = game.score(0)
        reward, self._score = float(score - self._score), score
        info: dict[str, Any] = {}
        if game.game_over:
            self._done = True
            info = {"score": score, "rank": game.solo_rank(0), "end": list(game.end_reasons)}
        info["action_mask"] = self.action_masks()
        if self.render_mode == "human":
            self.render()
        return self.encoder.encode(game, 0), reward, game.game_over, False, info

    def action_masks(self) -> np.ndarray:
        """The legal actions now, as booleans (all False before reset and after the end)."""
        if self._done:
            return np.zeros(NUM_ACTIONS, dtype=bool)
        return self.game.action_mask(0).astype(bool)

    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi', 'rgb_array' or "
                                  "'human'.")
            return None
        if self.render_mode == "rgb_array":  # the picture the multi-player env draws (Pillow, the `render` extra)
            if self.game is None:
                return None
            from snack_envs.core.picture import draw_game, to_array

            return to_array(draw_game(self.game, 0, ["you"]))
        text = "(call reset() first)" if self.game is None else self.game.render_text(names=["you"])
        if self.render_mode == "human":
            print(text)
            return None
        return text
