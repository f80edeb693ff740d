import gymnasium

from snack_envs.core.entry import turn_based_entry_points
from snack_envs.snack_time.env import DOC, SnackTimeEnv
from snack_envs.snack_time.solo import SOLO_ENV_ID

__doc__ = DOC
env, raw_env, parallel_env = turn_based_entry_points(SnackTimeEnv)

# The solo Gymnasium env; registered once even if this module is reloaded.
if SOLO_ENV_ID not in gymnasium.registry:
    gymnasium.register(id=SOLO_ENV_ID, entry_point="snack_envs.snack_time.solo:SnackTimeSoloEnv")

__all__ = ["env", "raw_env", "parallel_env", "SOLO_ENV_ID"]
