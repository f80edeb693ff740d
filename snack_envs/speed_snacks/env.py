"""The Speed Snacks env binding: the rules and the encoder plugged into the shared parallel core."""

from __future__ import annotations

import math

from snack_envs.core.parallel import SimultaneousEnv
from snack_envs.speed_snacks.observation import LAYOUT, SpeedSnacksEncoder
from snack_envs.speed_snacks.rules import NUM_ACTIONS, SpeedSnacks

DOC = f"""Speed Snacks (`speed_snacks_v1`): a real-time card race for 2 players, as a parallel env.

| | |
|---|---|
| Import | `from snack_envs import speed_snacks_v1` |
| API | Parallel (`parallel_env()`, `raw_parallel_env()`); AEC view `env()`, `raw_env()` (PettingZoo's `parallel_to_aec`; `raw_env()` refuses an illegal action at the step that gives it). A snapshot (`env.unwrapped.state_dict()`) holds whole ticks: loaded into an AEC view, a tick starts there |
| Agents | `player_0`, `player_1`; seats shuffled by the seed (a seat only matters as the first round's starting player) |
| Actions | `Discrete({NUM_ACTIONS})`, one space for every decision: 0 wait; 1..5 / 6 snack on customer pile i / new pile; 7..11 / 12 card on kitchen pile i / new pile; 13..17 / 18 Hurry-up on customer pile i / new pile; 19..23 slide under the Hurry-up of pile i; 24..29 snack on my XXL card j; 30 draw XXL; 31..36 take Dish of the Day s; 37..41 inspect opponent pile i; 42 keep Menus; 43 Menu: +1 point; 44..73 Menu: count kitchen top i as snack s (44 + 6 i + s); 74 Menu: toque |
| Observation | `{{"observation": Box({LAYOUT.size},) float32, "action_mask": Box({NUM_ACTIONS},) int8}}`; a player with nothing to decide has only "wait" |
| Step | one tick: both players act at once; a seeded order resolves them (see `snack_envs.speed_snacks.rules`) |
| Rewards | `reward="win"`: +1/-1 at the end of the game; `reward="round"`: +1/-1 to the winner/loser of each round (0 each on a tie) |
| Game-length bound | `max_steps` ticks, default 3000 divided by the slower player's speed, then truncation (reward 0). At full speed a round lasts at most 90 * `idle_ticks` + 3 ticks whatever the players do; random play needs about 200 ticks a game (about 280 with every module on) |
| Options | `health_department`, `dish_of_the_day`, `xxl`, `menu` (Modules 1-4, bools, default off, any combination); `speed_0`, `speed_1` (probability that player_0's / player_1's action goes through in a tick, 0.01..1, default 1); `idle_ticks` (the round ends when both wait this many ticks in a row, default 3); `kitchen_obs` (`"placed"` default: own kitchen as placed; `"sizes"`: pile sizes only, a memory task); Module 4 readings: `menu_fulfil` (`"held_longer"` default, `"newer"`: which Menu is fulfilled when either but not both can be) and `menu_tie_first` (`"starting_player"` default, `"other_player"`: who decides on Menu cards first when the points are tied); neither is in the observation |
| Illegal actions | `raw_parallel_env()` raises IllegalActionError (state unchanged) for an illegal action, an agent not in the episode, or a missing agent; `parallel_env()` ends the game with -1 to each offender |
| Version | v1: during Module 1's inspection the kitchens' top cards are still face down, so neither the opponent's tops nor the round's points are observed (nor own tops with `kitchen_obs="sizes"`); they show from the scoring step on. v0 (first release) showed them during the inspection and is retired: `speed_snacks_v0` raises an error naming v1 |

The rules, and the readings chosen where the rulebook is silent, are in
`snack_envs.speed_snacks.rules`; component assumptions in
`snack_envs.speed_snacks.components`; what the observation hides in
`snack_envs.speed_snacks.observation`.

Observation slices (me first, then the opponent):

{LAYOUT.markdown()}
"""


class SpeedSnacksEnv(SimultaneousEnv):
    __doc__ = DOC
    env_name = "speed_snacks_v1"
    game_class = SpeedSnacks
    encoder_class = SpeedSnacksEncoder
    reward_modes = ("win", "round")

    def __init__(self, max_steps: int | None = None, **kwargs):
        if max_steps is None:
            speeds = [kwargs.get(k, 1.0) for k in ("speed_0", "speed_1")]
            if all(isinstance(s, (int, float)) and 0 < s <= 1 for s in speeds):  # bad values fail in the base
                max_steps = math.ceil(SpeedSnacks.default_max_steps(2) / min(speeds))
        super().__init__(max_steps=max_steps, **kwargs)

    def _seat_options(self) -> dict:
        """`speed_0` / `speed_1` belong to the agents player_0 / player_1; the game takes them by seat."""
        options = dict(self.game_options)
        speeds = {a: options.pop(f"speed_{i}", 1.0) for i, a in enumerate(self.possible_agents)}
        for seat, agent in enumerate(self.seat_agents):
            options[f"speed_{seat}"] = speeds[agent]
        return options

    def agents_alike(self) -> bool:
        return self.game_options.get("speed_0", 1.0) == self.game_options.get("speed_1", 1.0)
