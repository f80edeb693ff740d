"""The Snack Time env binding: the rules and the encoder plugged into the shared AEC core."""

from __future__ import annotations

from snack_envs.core.env import TurnBasedEnv
from snack_envs.snack_time.actions import DAMAGE_BASE, ENTRANCE_BASE, NUM_ACTIONS, PIPE_BASE
from snack_envs.snack_time.observation import LAYOUT, SnackTimeEncoder
from snack_envs.snack_time.rules import MAX_PLAYERS, SnackTime

DOC = f"""Snack Time (`snack_time_v0`): a roll-and-write, every player piping creatures to snacks on their own sheet.

| | |
|---|---|
| Import | `from snack_envs import snack_time_v0` |
| API | AEC (`env()`, `raw_env()`); parallel view `parallel_env()`; solo Gymnasium env `gymnasium.make("SnackTimeSolo-v0")` |
| Agents | `player_0` .. `player_{{n-1}}`, n = `num_players` (1 to {MAX_PLAYERS}, default 2; 1 is solo mode); seats shuffled by the seed |
| Actions | `Discrete({NUM_ACTIONS})`: 0..{PIPE_BASE - 1} draw trait t on creature c (t*4+c); {PIPE_BASE}..{DAMAGE_BASE - 1} draw a pipe, {PIPE_BASE} + cell*10 + pattern; {DAMAGE_BASE}..{ENTRANCE_BASE - 1} cross off trait t of creature c ({DAMAGE_BASE} + c*3 + t); {ENTRANCE_BASE}..{NUM_ACTIONS - 1} place the next entrance on a cell (Advanced) |
| Observation | `{{"observation": Box({LAYOUT.size},) float32, "action_mask": Box({NUM_ACTIONS},) int8}}` |
| Rewards | at the end; `reward="win"` +1/-1 (0 all round on a full tie, so always 0 solo), `reward="score"` score / {SnackTime.score_range[1]:g}, `reward="margin"` (score - best rival score) / the score range |
| Final infos | `score`, `winner`, `seat`, `end` (the end conditions met), and `rank` in solo mode (the rulebook's table, +7 with Rat Snacks) |
| Game-length bound | `max_steps` decisions, default 87 n + 5, which no game reaches (see the rules module) |
| Options | `rat_snacks`, `advanced_entrances` (players choose the entrances), `advanced_traps` (traps shuffled back; a killed creature ends the game); all False by default; `killed_when` (Advanced traps: `"all_slots"` default, all 4 trait slots crossed off; `"no_healthy_trait"`, its last uncrossed trait crossed off; not in the observation) |
| Version | v0: first release |

A round: traps (damage choices), the roll, then each seat in turn draws its 2
traits and 3 pipes, then snacking resolves seat by seat (damage choices).
Players never interact within a round, so this sequencing changes nothing.
The rules, the action encoding and the readings chosen where the rulebook is
silent are in `snack_envs.snack_time.rules`; the map, dice and the invented
pedestrian table in `snack_envs.snack_time.components`.

Observation slices (the viewer's sheet first, opponents seat-relative):

{LAYOUT.markdown()}
"""


class SnackTimeEnv(TurnBasedEnv):
    __doc__ = DOC
    env_name = "snack_time_v0"
    game_class = SnackTime
    encoder_class = SnackTimeEncoder

    def _final_infos(self) -> dict[str, dict]:
        infos = super()._final_infos()
        game = self.game
        for seat, agent in enumerate(self.seat_agents):
            infos[agent]["end"] = list(game.end_reasons)
            if game.num_players == 1:
                infos[agent]["rank"] = game.solo_rank(seat)
        return infos
