"""Every snack env in Gymnasium's registry (single-agent, against opponents) and in PettingZoo's (multi-agent).

Runs on `import snack_envs`; it imports gymnasium and pettingzoo, nothing
heavier (entry points are strings, so no game is imported until it is made).

Gymnasium: one id per game, the game name in CamelCase (`GYM_IDS`), e.g.

    import gymnasium, snack_envs
    env = gymnasium.make("SnackRabbits-v0", opponents=["heuristic"], num_players=3)

is `snack_envs.single_agent.SingleAgentEnv`: the learner in a random seat,
the other seats played by `opponents` (default ["random"]; "heuristic" or a
checkpoint path too), every other keyword passed to the game. Its
`action_masks()` gives the legal actions (`env.unwrapped.action_masks()`
through Gymnasium's wrappers); an illegal action ends the episode with reward
-1 and `info["illegal_action"] = True` (`illegal_action="raise"` raises).
Snack Time's solo mode is `SnackTimeSolo-v0` (`snack_envs.snack_time.solo`).

PettingZoo (where the installed version has a registry, 1.27 on): the AEC and
the parallel env of each game as "snack_envs/<game>-v0", e.g.

    import pettingzoo, snack_envs
    env = pettingzoo.make("aec", "snack_envs/snack_rabbits-v0", num_players=3)
    par = pettingzoo.make("parallel", "snack_envs/snack_rabbits-v0")
"""

from __future__ import annotations

from pathlib import Path

import gymnasium

from snack_envs import ENV_NAMES

SOLO_ID = "SnackTimeSolo-v0"


def gym_id(env_name: str) -> str:
    """'snack_rabbits_v0' -> 'SnackRabbits-v0'."""
    game, version = env_name.rsplit("_v", 1)
    return "".join(part.capitalize() for part in game.split("_")) + f"-v{version}"


def pettingzoo_id(env_name: str) -> str:
    """'snack_rabbits_v0' -> 'snack_envs/snack_rabbits-v0'."""
    game, version = env_name.rsplit("_v", 1)
    return f"snack_envs/{game}-v{version}"


GYM_IDS = {name: gym_id(name) for name in ENV_NAMES}


def register_gymnasium() -> list[str]:
    """Register the single-agent ids (and the solo one where Snack Time has it); returns the ids."""
    ids = []
    for name, env_id in GYM_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point="snack_envs.single_agent:SingleAgentEnv", kwargs={"env_name": name})
        ids.append(env_id)
    if "snack_time_v0" in ENV_NAMES and (Path(__file__).parent / "snack_time" / "solo.py").exists():
        if SOLO_ID not in gymnasium.registry:
            gymnasium.register(id=SOLO_ID, entry_point="snack_envs.snack_time.solo:SnackTimeSoloEnv")
        ids.append(SOLO_ID)
    return ids


def register_pettingzoo() -> list[str]:
    """Register the AEC and parallel envs where PettingZoo has a registry; returns the ids ([] otherwise)."""
    try:
        from pettingzoo import aec_registry, parallel_registry
        from pettingzoo import register as pz_register
    except ImportError:  # PettingZoo before its registry (< 1.27)
        return []
    ids = []
    for name in ENV_NAMES:
        env_id = pettingzoo_id(name)
        for kind, registry, entry in (("aec", aec_registry, "env"), ("parallel", parallel_registry, "parallel_env")):
            if env_id not in registry:
                pz_register(kind, env_id, entry_point=f"snack_envs.{name}:{entry}")
        ids.append(env_id)
    return ids


GYMNASIUM_IDS = register_gymnasium()
PETTINGZOO_IDS = register_pettingzoo()
