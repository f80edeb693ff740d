"""Cases a second mutation probe of training/run.py found no fast test for, checked without training or
games: stand-ins record what `evaluate` hands the arena. They pin:

- `evaluate`: the hero plays each of `eval.opponents` on the batched engine (`arena.match`) with the
  env's options, the games and the seed it is given, keyed by the opponent's spec; with several player
  counts, at each count, keyed "<spec>@<n>p"; one player is Snack Time's solo mode (`arena.solo`), keyed
  "solo" (or "solo@1p" beside other counts), with no opponents; a game without a batched engine plays
  game by game (`evaluate.head_to_head`) against the opponent built by `make_policy` at that count;
- `default_run_dir`: a fresh run's folder is output_dir/<env>-s<seed>-<date>-<time>;
- the resume command a message gives: plain `snack-train --resume <run>` for the sb3 backend (the
  default), with `--backend <name>` for another, as a fresh run refused in a run's folder and a run of
  another backend say it;
- a run's wall time: counted from the time `start_run` starts (fresh) or resumes the run, on top of the
  wall time state.json had.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from snack_envs import specs
from snack_envs.core.game import ConfigError
from snack_envs.training import run as run_module
from tests.training.test_evaluate_probe import Named


@pytest.fixture
def arena(monkeypatch) -> list[tuple]:
    """`match`, `solo`, `make_policy` and `head_to_head` as run.py calls them, replaced by recorders: each
    call is appended as a tuple, and a match's or a solo run's result names the call that made it."""
    calls = []

    def match(env_name, n, hero, spec, games, seed=0, **options):
        calls.append(("match", env_name, n, hero.name, spec, games, seed, options))
        return {"played": f"match {spec} {n}p"}

    def solo(env_name, hero, games, seed=0, **options):
        calls.append(("solo", env_name, hero.name, games, seed, options))
        return {"played": "solo"}

    def make_policy(spec, env_name, n, seed=0, **options):
        calls.append(("make_policy", spec, env_name, n, seed, options))
        return Named(f"{spec} for {n}")

    def head_to_head(env_name, hero, villain, games, n, seed=0, **options):
        calls.append(("head_to_head", env_name, hero.name, villain.name, games, n, seed, options))
        return {"played": f"head_to_head {villain.name}"}

    for name, stand_in in [("match", match), ("solo", solo), ("make_policy", make_policy), ("head_to_head", head_to_head)]:
        monkeypatch.setattr(run_module, name, stand_in)
    return calls


def eval_config(env: str, num_players, opponents: list[str], options: dict | None = None) -> dict:
    config = {"env": {"name": env, "num_players": num_players}, "eval": {"opponents": opponents}}
    if options is not None:
        config["env"]["options"] = options
    return config


def test_evaluate_plays_each_opponent_on_the_batched_engine_keyed_by_its_spec(arena):
    config = eval_config("snack_wars_v0", 3, ["random", "heuristic"], {"max_steps": 400})
    results = run_module.evaluate(Named("hero"), config, 6, seed=11)
    assert results == {"random": {"played": "match random 3p"}, "heuristic": {"played": "match heuristic 3p"}}
    assert arena == [("match", "snack_wars_v0", 3, "hero", "random", 6, 11, {"max_steps": 400}),
                     ("match", "snack_wars_v0", 3, "hero", "heuristic", 6, 11, {"max_steps": 400})]


def test_evaluate_without_env_options_passes_no_options(arena):
    run_module.evaluate(Named("hero"), eval_config("snack_rabbits_v0", 2, ["random"]), 4, seed=0)
    assert arena == [("match", "snack_rabbits_v0", 2, "hero", "random", 4, 0, {})]


def test_evaluate_at_several_player_counts_keys_each_opponent_by_its_count(arena):
    results = run_module.evaluate(Named("hero"), eval_config("snack_wars_v0", [2, 4], ["random", "heuristic"]), 5, seed=3)
    assert results == {"random@2p": {"played": "match random 2p"}, "heuristic@2p": {"played": "match heuristic 2p"},
                       "random@4p": {"played": "match random 4p"}, "heuristic@4p": {"played": "match heuristic 4p"}}
    assert [(call[2], call[4]) for call in arena] == [(2, "random"), (2, "heuristic"), (4, "random"), (4, "heuristic")]


def test_a_solo_evaluation_is_the_mean_score_alone_keyed_solo(arena):
    config = eval_config("snack_time_v0", 1, ["random", "heuristic"], {"max_steps": 300})
    assert run_module.evaluate(Named("hero"), config, 8, seed=5) == {"solo": {"played": "solo"}}
    assert arena == [("solo", "snack_time_v0", "hero", 8, 5, {"max_steps": 300})]


def test_solo_beside_other_player_counts_is_keyed_solo_at_1p(arena):
    results = run_module.evaluate(Named("hero"), eval_config("snack_time_v0", [1, 2], ["random"]), 8, seed=5)
    assert results == {"solo@1p": {"played": "solo"}, "random@2p": {"played": "match random 2p"}}
    assert [call[0] for call in arena] == ["solo", "match"]


def test_a_game_without_a_batched_engine_is_played_game_by_game(arena, monkeypatch):
    real_get = specs.get
    monkeypatch.setattr(specs, "get", lambda name: dataclasses.replace(real_get(name), batched=False))
    config = eval_config("snack_wars_v0", [2, 3], ["heuristic"], {"max_steps": 200})
    results = run_module.evaluate(Named("hero"), config, 6, seed=7)
    assert results == {"heuristic@2p": {"played": "head_to_head heuristic for 2"},
                       "heuristic@3p": {"played": "head_to_head heuristic for 3"}}
    assert arena == [
        ("make_policy", "heuristic", "snack_wars_v0", 2, 7, {"max_steps": 200}),
        ("head_to_head", "snack_wars_v0", "hero", "heuristic for 2", 6, 2, 7, {"max_steps": 200}),
        ("make_policy", "heuristic", "snack_wars_v0", 3, 7, {"max_steps": 200}),
        ("head_to_head", "snack_wars_v0", "hero", "heuristic for 3", 6, 3, 7, {"max_steps": 200}),
    ]


def test_a_fresh_runs_default_folder_is_named_by_env_seed_and_time():
    config = {"output_dir": "somewhere/runs", "env": {"name": "snack_wars_v0"}, "seed": 42}
    folder = run_module.default_run_dir(config)
    assert isinstance(folder, Path) and folder.parent == Path("somewhere/runs")
    assert re.fullmatch(r"snack_wars_v0-s42-\d{8}-\d{6}", folder.name)


def test_the_resume_command_names_the_backend_only_when_it_is_not_sb3(tmp_path):
    sb3_run, rllib_run = tmp_path / "sb3", tmp_path / "rllib"
    sb3_run.mkdir()
    (sb3_run / "latest.zip").write_bytes(b"")
    rllib_run.mkdir()
    (rllib_run / "checkpoint").write_bytes(b"")
    with pytest.raises(ConfigError) as refused:
        run_module.refuse_a_run_in(sb3_run)
    assert f"resume it (snack-train --resume {sb3_run}) or train into another folder" in str(refused.value)
    with pytest.raises(ConfigError) as other_backend:
        run_module.check_backend(rllib_run, "sb3")
    assert str(other_backend.value).endswith(f"the backend that trained it: snack-train --resume {rllib_run} --backend rllib")


def test_a_runs_wall_time_counts_from_when_it_started_and_from_each_resume(tmp_path, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(run_module.time, "time", lambda: clock[0])
    run = tmp_path / "run"
    state = run_module.start_run({"timesteps": 10}, run, resume=False)
    clock[0] = 1012.5
    run_module.save_state(run, state, 64)
    assert json.loads((run / "state.json").read_text())["wall_time_s"] == 12.5

    clock[0] = 5000.0  # the run stood still between its stop and its resume: that time does not count
    resumed = run_module.start_run({"timesteps": 10}, run, resume=True)
    clock[0] = 5003.0
    run_module.save_state(run, resumed, 128)
    assert json.loads((run / "state.json").read_text())["wall_time_s"] == 15.5
