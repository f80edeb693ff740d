"""The Snack Rabbits env binding: the rules and the encoder plugged into the shared AEC core."""

from __future__ import annotations

from snack_envs.core.env import TurnBasedEnv
from snack_envs.snack_rabbits.observation import LAYOUT, RabbitsEncoder
from snack_envs.snack_rabbits.rules import NUM_ACTIONS, SnackRabbits

DOC = f"""Snack Rabbits (`snack_rabbits_v0`): push-your-luck card collecting for 2 to 4 players.

| | |
|---|---|
| Import | `from snack_envs import snack_rabbits_v0` |
| API | AEC (`env()`, `raw_env()`); parallel view `parallel_env()` |
| Agents | `player_0` .. `player_{{n-1}}`, n = `num_players` (2 to 4, default 2); seats shuffled by the seed |
| Actions | `Discrete({NUM_ACTIONS})`: 0..44 hop fence f with w white dice (f*9+w), 45 stop (take from the pool), 46..48 take a die from the player r=1..3 seats to the left. The mask omits hops over a fence with no cards under it: the rulebook does not forbid them, but such a hop takes nothing and can only lose dice, so no player would choose it (a reading, in `snack_envs.snack_rabbits.rules`) |
| Observation | `{{"observation": Box({LAYOUT.size},) float32, "action_mask": Box({NUM_ACTIONS},) int8}}` |
| Rewards | at the end; `reward="win"` +1/-1 (0 all round on a full tie), `reward="score"` score / 63, `reward="margin"` (score - best rival score) / the score range |
| Game-length bound | `max_steps` decisions, default 400, then truncation |
| Options | `suns_per_fence` (default 2: 10 sun cards) |
| Version | v0: first release |

The rules, and the readings chosen where the rulebook is silent, are in
`snack_envs.snack_rabbits.rules`; component assumptions in
`snack_envs.snack_rabbits.components`.

Observation slices (players seat-relative, the viewer first):

{LAYOUT.markdown()}
"""


class SnackRabbitsEnv(TurnBasedEnv):
    __doc__ = DOC
    env_name = "snack_rabbits_v0"
    game_class = SnackRabbits
    encoder_class = RabbitsEncoder
