"""A shipped checkpoint (from the repository root) plays one game of Snack Rabbits against the heuristic bot."""

import snack_envs
from snack_envs.agents import make_policy
from snack_envs.checkpoints import load_policy

players = {
    "player_0": load_policy("checkpoints/snack_rabbits_v0.zip", env_name="snack_rabbits_v0", num_players=2),
    "player_1": make_policy("heuristic", "snack_rabbits_v0", num_players=2),
}
env = snack_envs.make("snack_rabbits_v0", num_players=2)
env.reset(seed=0)
returns = dict.fromkeys(env.possible_agents, 0.0)
for agent in env.agent_iter():
    obs, reward, terminated, truncated, info = env.last()
    returns[agent] += reward
    action = None if terminated or truncated else players[agent].act(obs["observation"], obs["action_mask"])
    env.step(action)
print("returns:", returns)
