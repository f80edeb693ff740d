"""The Snack Wars env binding: the rules and the encoder plugged into the shared AEC core."""

from __future__ import annotations

from snack_envs.core.env import TurnBasedEnv
from snack_envs.snack_wars.observation import LAYOUT, WarsEncoder
from snack_envs.snack_wars.rules import NUM_ACTIONS, SnackWars

DOC = f"""Snack Wars (`snack_wars_v0`): draw, pick one kind of card, steal with raccoons; 2 to 5 players.

| | |
|---|---|
| Import | `from snack_envs import snack_wars_v0` |
| API | AEC (`env()`, `raw_env()`); parallel view `parallel_env()` |
| Agents | `player_0` .. `player_{{n-1}}`, n = `num_players` (2 to 5, default 2); seats shuffled by the seed |
| Actions | `Discrete({NUM_ACTIONS})`: 0..8 take the drawn foods of value v (v-1), 9..13 take a Bonus card (French, Japanese, American, Multicolour, Raccoon), 14 take the Raccoon cards, 15..70 steal kind k from the player r=1..4 seats to the left (15+(r-1)*14+k), 71 stop stealing, 72..85 discard a stolen card of kind k (72+k) |
| Turns | several decisions per turn by the same agent: choose, then one step per steal (or stop), then one per excess stolen card to discard (hand-set positions only); a player holding 9 passes without a decision |
| Observation | `{{"observation": Box({LAYOUT.size},) float32, "action_mask": Box({NUM_ACTIONS},) int8}}` |
| Rewards | at the end; `reward="win"` +1/-1 (0 all round on a full tie), `reward="score"` score / {SnackWars.score_range[1]:g} (the highest score possible), `reward="margin"` (score - best rival score) / the score range |
| Game-length bound | `max_steps` decisions, default 9n+20 (every game ends within it: see the rules), then truncation |
| Options | `food_copies`: "equal" (default, 5 of each food) or "value" (value n has n copies) |
| Version | v0: first release |

Kinds k are the 9 foods in value order (macaron 1, milk-shake 2, sushi 3,
ramen 4, croissant 5, burger 6, donut 7, shrimp tempura 8, cheese 9), then the
5 Bonus cards; card types add the Raccoon as 14. The rules, and the readings
chosen where the rulebook is silent, are in `snack_envs.snack_wars.rules`;
component assumptions in `snack_envs.snack_wars.components`.

Observation slices (players seat-relative, the viewer first):

{LAYOUT.markdown()}
"""


class SnackWarsEnv(TurnBasedEnv):
    __doc__ = DOC
    env_name = "snack_wars_v0"
    game_class = SnackWars
    encoder_class = WarsEncoder
