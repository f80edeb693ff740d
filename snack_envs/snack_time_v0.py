from snack_envs.core.entry import turn_based_entry_points
from snack_envs.snack_time.env import DOC, SnackTimeEnv

__doc__ = DOC
env, raw_env, parallel_env = turn_based_entry_points(SnackTimeEnv)

__all__ = ["env", "raw_env", "parallel_env"]
