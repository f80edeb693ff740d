from snack_envs.core.entry import parallel_entry_points
from snack_envs.speed_snacks.env import DOC, SpeedSnacksEnv

__doc__ = DOC
parallel_env, raw_parallel_env, env, raw_env = parallel_entry_points(SpeedSnacksEnv)

__all__ = ["parallel_env", "raw_parallel_env", "env", "raw_env"]
