from snack_envs.core.entry import turn_based_entry_points
from snack_envs.snack_wars.env import DOC, SnackWarsEnv

__doc__ = DOC
env, raw_env, parallel_env = turn_based_entry_points(SnackWarsEnv)

__all__ = ["env", "raw_env", "parallel_env"]
