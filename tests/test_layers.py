"""The layers stay apart: the rules import no RL library, and the registries fill whatever the import order."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from snack_envs import specs

RL_LIBRARIES = ("gymnasium", "pettingzoo", "torch", "stable_baselines3", "ray")


def run(code: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


@pytest.mark.parametrize("spec", specs.SPECS, ids=lambda s: s.name)
def test_a_rules_module_imports_no_rl_library(spec):
    loaded = run(
        f"import json, sys, {spec.package}.rules\n"
        f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & set({RL_LIBRARIES!r}))))"
    )
    assert loaded == [], f"{spec.package}.rules pulls in {loaded}"


@pytest.mark.parametrize("order", ["import snack_envs, gymnasium, pettingzoo", "import gymnasium, pettingzoo, snack_envs"])
def test_every_id_is_registered_whichever_is_imported_first(order):
    ids = run(
        f"import json\n{order}\n"
        "from snack_envs import specs\n"
        "print(json.dumps({'gym': sorted(i for i in gymnasium.registry if i.startswith(('Snack', 'Speed'))),\n"
        "                  'pz': sorted(i for i in pettingzoo.aec_registry if i.startswith('snack_envs/'))}))"
    )
    assert ids["gym"] == sorted([s.gym_id for s in specs.SPECS] + [s.solo_gym_id for s in specs.SPECS if s.solo])
    assert ids["pz"] == sorted(s.pettingzoo_id for s in specs.SPECS)


def test_each_spec_matches_its_game():
    for spec in specs.SPECS:
        game = spec.rules_class
        assert game.name == spec.name and game.version == spec.version
        env = spec.env_class
        assert env.env_name == spec.env_name and env.game_class is game and env.encoder_class is spec.encoder_class
        assert spec.entry_points().raw_env().unwrapped.env_name == spec.env_name
    with pytest.raises(specs.UnknownEnvError, match="known envs: snack_rabbits_v0"):
        specs.get("snack_rabit_v0")
