"""Every snack env in Gymnasium's registry (single-agent, against opponents) and in PettingZoo's (multi-agent).

Registration is lazy: `import snack_envs` imports neither gymnasium nor
pettingzoo (so the rules layer loads no RL library). The ids are registered
as soon as the library is there: at once if it is already imported, else right
after its first import (`install`), whichever order the user imports in.

Gymnasium: one id per game, the game name in CamelCase (`GameSpec.gym_id`), e.g.

    import gymnasium, snack_envs
    env = gymnasium.make("SnackRabbits-v0", opponents=["heuristic"], num_players=3)

is `snack_envs.single_agent.SingleAgentEnv`: the learner in a random seat,
the other seats played by `opponents` (a list of specs or policies, default
["random"]; "heuristic" or a checkpoint path too; one spec alone, e.g.
`opponents="heuristic"`, is a pool of one), every other keyword passed to the
game. Its `action_masks()` gives the legal actions
(`env.unwrapped.action_masks()` through Gymnasium's wrappers), and so does
`info["action_mask"]` after every reset and step (what Gymnasium's vector envs
pass on). An action is an integer (Python, numpy, or a 0-d integer array):
anything else raises IllegalActionError. An illegal action ends the episode
with reward -1 and `info["illegal_action"] = True` (`illegal_action="raise"`
raises).
A game with a solo mode has its own id too (`SnackTimeSolo-v0`, `snack_envs.snack_time.solo`).

PettingZoo (where the installed version has a registry, 1.27 on): the AEC and
the parallel env of each game as "snack_envs/<game>-v<N>", e.g.

    import pettingzoo, snack_envs
    env = pettingzoo.make("aec", "snack_envs/snack_rabbits-v0", num_players=3)
    par = pettingzoo.make("parallel", "snack_envs/snack_rabbits-v0")
"""

from __future__ import annotations

import importlib.abc
import sys

from snack_envs.specs import SPECS


def gymnasium_ids() -> list[str]:
    """The Gymnasium ids of every game, solo modes included."""
    return [spec.gym_id for spec in SPECS] + [spec.solo_gym_id for spec in SPECS if spec.solo]


def register_gymnasium() -> list[str]:
    """Register the single-agent ids (and the solo ones); returns the ids."""
    import gymnasium

    for spec in SPECS:
        if spec.gym_id not in gymnasium.registry:
            gymnasium.register(
                id=spec.gym_id, entry_point="snack_envs.single_agent:SingleAgentEnv", kwargs={"env_name": spec.env_name}
            )
        if spec.solo and spec.solo_gym_id not in gymnasium.registry:
            gymnasium.register(id=spec.solo_gym_id, entry_point=spec.solo)
    return gymnasium_ids()


def register_pettingzoo() -> list[str]:
    """Register the AEC and parallel envs where PettingZoo has a registry; returns the ids ([] otherwise)."""
    try:
        from pettingzoo import aec_registry, parallel_registry
        from pettingzoo import register as pz_register
    except ImportError:  # PettingZoo before its registry (< 1.27)
        return []
    ids = []
    for spec in SPECS:
        env_id = spec.pettingzoo_id
        for kind, registry, entry in (("aec", aec_registry, "env"), ("parallel", parallel_registry, "parallel_env")):
            if env_id not in registry:
                pz_register(kind, env_id, entry_point=f"snack_envs.{spec.env_name}:{entry}")
        ids.append(env_id)
    return ids


REGISTER = {"gymnasium": register_gymnasium, "pettingzoo": register_pettingzoo}


class _RegisterAfterImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: when gymnasium or pettingzoo is first imported, it lets the other finders
    find it and has the ids registered as soon as the module has run."""

    def __init__(self, pending: dict):
        self.pending = pending

    def find_spec(self, fullname, path, target=None):
        if fullname not in self.pending:
            return None
        register = self.pending.pop(fullname)
        if not self.pending:
            sys.meta_path.remove(self)
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            spec = find(fullname, path, target) if find and finder is not self else None
            if spec is not None:
                break
        else:
            return None
        if spec.loader is not None:
            spec.loader = _ThenRegister(spec.loader, register)
        return spec


class _ThenRegister(importlib.abc.Loader):
    """A module's own loader, and a registration once the module has run (then the loader is put back)."""

    def __init__(self, loader, register):
        self.loader, self.register = loader, register

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module) -> None:
        self.loader.exec_module(module)
        module.__loader__ = module.__spec__.loader = self.loader
        self.register()

    def __getattr__(self, name):
        return getattr(self.loader, name)


def install() -> None:
    """Register with each library now if it is imported, else right after its first import."""
    pending = {}
    for library, register in REGISTER.items():
        if library in sys.modules:
            register()
        else:
            pending[library] = register
    if pending and not any(isinstance(f, _RegisterAfterImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _RegisterAfterImport(pending))
