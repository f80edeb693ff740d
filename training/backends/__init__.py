"""The training backends of `snack-train`, one module each, both on `snack_envs.training.run` and `snack_envs.opponents`.

- `snack_envs.training.backends.sb3`: MaskablePPO (sb3-contrib) in this process, the learner in a
  `SingleAgentEnv` whose opponents move inside `step()` (the default).
- `snack_envs.training.backends.rllib`: Ray RLlib's multi-agent PPO, locally or on a Ray cluster.

Each has `train(config, run_dir, resume=False, ...) -> dict` (checkpoint, evaluation,
wall_time_s, timesteps). Importing a backend module loads neither torch nor Ray.
"""
