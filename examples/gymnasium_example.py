"""Gymnasium: every game is a single-agent env against opponents of your choice (here the heuristic)."""

import gymnasium
import numpy as np

import snack_envs  # noqa: F401  (registers the ids)

env = gymnasium.make("SnackRabbits-v0", opponents=["heuristic"], num_players=2)
obs, info = env.reset(seed=0)
rng = np.random.default_rng(0)
done, ret = False, 0.0
while not done:
    legal = np.flatnonzero(env.unwrapped.action_masks())  # the learner's legal actions
    obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
    ret += reward
    done = terminated or truncated
print(f"random learner vs heuristic: return {ret}, final score {info['score']}")
