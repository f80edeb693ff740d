"""Stable-Baselines3: MaskablePPO (sb3-contrib) on a registered Gymnasium id; needs the `train` extra."""

import gymnasium
import numpy as np
from sb3_contrib import MaskablePPO

import snack_envs  # noqa: F401  (registers the ids)

env = gymnasium.make("SnackRabbits-v0", opponents=["random"])
model = MaskablePPO("MlpPolicy", env, n_steps=256, batch_size=64, n_epochs=2, seed=0, device="cpu")
model.learn(total_timesteps=512)  # raise this to really train

rewards = []
for episode in range(5):
    obs, info = env.reset(seed=episode)
    done = False
    while not done:
        action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
        obs, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    rewards.append(reward)
print("final rewards of 5 games vs random:", rewards, "mean", np.mean(rewards))
