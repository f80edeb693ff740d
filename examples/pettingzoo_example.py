"""PettingZoo: make any snack env from PettingZoo's registry and play one random legal game."""

import numpy as np
import pettingzoo

import snack_envs  # noqa: F401  (registers the envs)

rng = np.random.default_rng(0)
env = pettingzoo.make("aec", "snack_envs/snack_rabbits-v0", num_players=3)
env.reset(seed=42)
returns = dict.fromkeys(env.possible_agents, 0.0)
for agent in env.agent_iter():
    obs, reward, terminated, truncated, info = env.last()
    returns[agent] += reward
    action = None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
    env.step(action)
print("returns:", returns)

par = pettingzoo.make("parallel", "snack_envs/snack_rabbits-v0")  # the parallel view of the same game
observations, infos = par.reset(seed=42)
print("parallel env agents:", par.agents)
