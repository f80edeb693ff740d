"""Training, evaluation and play tools for snack-envs (Stable-Baselines3 / sb3-contrib)."""
