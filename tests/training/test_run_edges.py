"""Edge cases of a run's bookkeeping (training/run.py), checked on its public functions without training:
when a run is finished, when an evaluation, snapshot or kept checkpoint is due (at its exact boundary),
what start_run / save_state / prune_snapshots / write_eval write or leave alone, which backend may resume
a run, a checkpoint's metadata and lineage entry, nested StopSignals, the seed a resumed run draws, and a
state.json damaged into what no run writes (refused naming the key; found by editing one).
Each test kills mutants of training/run.py that the slower training tests let live (a mutation probe)."""

from __future__ import annotations

import json
import signal
import time

import pytest

from snack_envs.core.game import ConfigError
from snack_envs.training.config import load_config
from snack_envs.training.run import (
    StopSignals, check_backend, checkpoint_metadata, eval_due, finished_run, keep_due, kept_checkpoint, lineage_entry, prune_snapshots, read_state,
    resumed_seed, run_backend, save_state, snapshot_due, start_run, write_eval,
)


def write(path, data) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data))


def snapshot(tmp_path, name: str) -> None:
    write(tmp_path / "snapshots" / f"{name}.json", {})
    (tmp_path / "snapshots" / f"{name}.zip").write_bytes(b"zip")


# --- when a run is finished -----------------------------------------------------------------------------
@pytest.mark.parametrize("meta, error", [
    ({"timesteps": 1280}, "it lacks wall_time_s"),
    ({"timesteps": 1280, "wall_time_s": "2.5"}, "its wall_time_s are not a number"),
    ({"timesteps": True, "wall_time_s": 2.5}, "its timesteps are not a whole number"),
])
def test_a_finished_runs_metadata_without_its_figures_is_refused_naming_it(meta, error, tmp_path, capsys):
    """A final.json without wall_time_s passed the check, printed that the run was finished, then ended in a
    KeyError where the result was put together."""
    write(tmp_path / "final.json", meta)
    with pytest.raises(ConfigError, match=f"final.json is not a checkpoint's metadata: {error}$"):
        finished_run(tmp_path, {"timesteps": 1280}, tmp_path / "final.zip")
    assert capsys.readouterr().out == ""


def test_a_run_whose_final_checkpoint_has_exactly_its_timesteps_is_finished_and_one_asking_more_is_not(tmp_path, capsys):
    write(tmp_path / "final.json", {"timesteps": 1280, "wall_time_s": 2.5, "evaluation": {"random": {"win_rate": 1}}})
    before = (tmp_path / "final.json").read_bytes()
    done = finished_run(tmp_path, {"timesteps": 1280}, tmp_path / "final.zip")
    assert done == {"checkpoint": str(tmp_path / "final.zip"), "evaluation": {"random": {"win_rate": 1}},
                    "wall_time_s": 2.5, "timesteps": 1280}
    assert "is finished: 1280 timesteps" in capsys.readouterr().out
    assert finished_run(tmp_path, {"timesteps": 1000}, tmp_path / "final.zip")["timesteps"] == 1280
    assert finished_run(tmp_path, {"timesteps": 1281}, tmp_path / "final.zip") is None
    assert finished_run(tmp_path / "none", {"timesteps": 1}, tmp_path / "final.zip") is None
    assert (tmp_path / "final.json").read_bytes() == before and sorted(p.name for p in tmp_path.iterdir()) == ["final.json"]


# --- what is due, at its boundary -----------------------------------------------------------------------
def test_an_evaluation_is_due_once_eval_every_steps_have_passed_since_the_last():
    config = {"eval": {"every": 512}}
    assert not eval_due(config, {"last_eval": 512}, 1023)
    assert eval_due(config, {"last_eval": 512}, 1024)
    assert eval_due(config, {"last_eval": 0}, 600)


def test_a_snapshot_is_due_at_snapshot_every_steps_and_never_without_self_play():
    config = {"opponents": {"self": 1, "snapshot_every": 256}}
    assert not snapshot_due(config, {"last_snapshot": 256}, 511)
    assert snapshot_due(config, {"last_snapshot": 256}, 512)
    assert not snapshot_due({"opponents": {"self": 0, "snapshot_every": 256}}, {"last_snapshot": 0}, 10_000)


def test_a_checkpoint_is_kept_the_first_time_the_count_reaches_a_keep_at_and_not_again():
    config = {"keep_at": [512, 2048]}
    assert not keep_due(config, {}, 511)
    assert keep_due(config, {}, 512)
    assert keep_due(config, {"last_keep": 0}, 768)
    assert not keep_due(config, {"last_keep": 512}, 768)  # kept at 512 already
    assert keep_due(config, {"last_keep": 768}, 2048)
    assert not keep_due(config, {"last_keep": 2048}, 2048)
    assert not keep_due({}, {}, 10_000)
    assert keep_due({"keep_at": [1]}, {}, 1)  # a run that kept nothing yet keeps at any count past 0


def test_kept_checkpoint_is_the_first_kept_at_or_past_the_count_and_needs_its_metadata(tmp_path):
    for steps in (256, 512, 1024):
        (tmp_path / "keep").mkdir(exist_ok=True)
        (tmp_path / "keep" / f"step{steps}.zip").write_bytes(b"zip")
        if steps != 512:
            write(tmp_path / "keep" / f"step{steps}.json", {})
    assert kept_checkpoint(tmp_path, 256).name == "step256.zip"
    assert kept_checkpoint(tmp_path, 300).name == "step1024.zip"  # step512 has no metadata
    with pytest.raises(ConfigError, match="kept no checkpoint at or past 2000"):
        kept_checkpoint(tmp_path, 2000)
    (tmp_path / "keep" / "step²⁰⁴⁸.zip").write_bytes(b"zip")  # a stray file: str.isdigit() took it for steps
    write(tmp_path / "keep" / "step²⁰⁴⁸.json", {})
    with pytest.raises(ConfigError, match="kept no checkpoint at or past 2000"):
        kept_checkpoint(tmp_path, 2000)


def test_a_run_is_resumed_only_by_the_backend_whose_checkpoints_it_holds(tmp_path):
    sb3, rllib, both, none = (tmp_path / name for name in ("sb3", "rllib", "both", "none"))
    for run, names in ((sb3, ["latest.zip"]), (rllib, ["checkpoint"]), (both, ["final.zip", "final"]), (none, [])):
        run.mkdir()
        for name in names:
            (run / name).write_bytes(b"")
    assert [run_backend(run) for run in (sb3, rllib, both, none)] == ["sb3", "rllib", None, None]
    check_backend(sb3, "sb3")
    check_backend(rllib, "rllib")
    check_backend(none, "rllib")
    check_backend(both, "sb3")
    with pytest.raises(ConfigError, match=r"trained with the rllib backend \(its checkpoints: checkpoint\), not sb3"):
        check_backend(rllib, "sb3")
    with pytest.raises(ConfigError, match="trained with the sb3 backend"):
        check_backend(sb3, "rllib")


# --- what a run writes ----------------------------------------------------------------------------------
def test_a_fresh_run_writes_its_config_and_a_resumed_one_takes_up_its_state_and_wall_time(tmp_path):
    run = tmp_path / "runs" / "run"  # its parent made too
    state = start_run({"timesteps": 10}, run, resume=False, recipe={"config": "quickstart"})
    assert json.loads((run / "config.json").read_text()) == {"timesteps": 10}
    assert state["recipe"] == {"config": "quickstart"} and state["timesteps"] == 0 and state["last_eval"] == 0
    assert state["last_snapshot"] == 0 and state["snapshots"] == [] and state["wall_time_before"] == 0.0
    state["started"] = time.time() - 5.0
    save_state(run, state, 512)
    saved = json.loads((run / "state.json").read_text())
    assert saved["timesteps"] == 512 and 5.0 <= saved["wall_time_s"] < 60.0

    resumed = start_run({"timesteps": 10}, run, resume=True)
    assert resumed["timesteps"] == 512 and resumed["wall_time_before"] == saved["wall_time_s"]
    resumed["started"] = time.time() - 1.0
    save_state(run, resumed, 768)
    assert json.loads((run / "state.json").read_text())["wall_time_s"] >= saved["wall_time_s"] + 1.0


def test_a_fresh_run_refuses_a_folder_with_a_run_and_leaves_it_as_it_was(tmp_path):
    write(tmp_path / "state.json", {"timesteps": 5})
    write(tmp_path / "config.json", {"timesteps": 5})
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    with pytest.raises(ConfigError, match="holds a training run already"):
        start_run({"timesteps": 99}, tmp_path, resume=False)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_a_fresh_run_may_start_in_an_existing_empty_folder(tmp_path):
    state = start_run({"timesteps": 3}, tmp_path, resume=False)
    assert state["timesteps"] == 0 and json.loads((tmp_path / "config.json").read_text()) == {"timesteps": 3}


def test_resuming_a_run_without_state_json_says_there_is_nothing_to_resume(tmp_path):
    with pytest.raises(ConfigError, match="has no state.json"):
        read_state(tmp_path)
    with pytest.raises(ConfigError, match="has no state.json"):
        start_run({"timesteps": 5}, tmp_path, resume=True)
    assert list(tmp_path.iterdir()) == []


SOUND_STATE = {"timesteps": 2048, "last_eval": 1024, "last_snapshot": 0, "snapshots": ["snapshots/step1024.zip"],
               "wall_time_s": 12.9, "started": 1796612528.7}
DAMAGED_STATES = [  # (edit of a run's state.json, what the refusal names); each of these resumed or crashed
    ({"timesteps": -5}, r"its timesteps = -5 is no count of timesteps"),  # a traceback in SB3's learn
    ({"last_eval": 1.5}, r"its last_eval = 1.5 is no count"),
    ({"last_keep": True}, r"its last_keep = True is no count"),
    ({"snapshots": "abc"}, r"its snapshots = 'abc' must be a list"),  # read as the snapshots a, b and c
    ({"snapshots": [{"path": "x.zip"}]}, r"its snapshots = \[\{'path': 'x.zip'\}\] must be a list"),  # a TypeError
    ({"wall_time_s": -1}, r"its wall_time_s = -1 is no number of seconds"),
    ({"wall_time_s": float("nan")}, r"its wall_time_s = nan is no number of seconds"),
]


@pytest.mark.parametrize("edit, message", DAMAGED_STATES, ids=[str(edit) for edit, _ in DAMAGED_STATES])
def test_a_damaged_state_json_is_refused_naming_the_key(tmp_path, edit, message):
    (tmp_path / "state.json").write_text(json.dumps(SOUND_STATE))
    assert read_state(tmp_path) == SOUND_STATE
    (tmp_path / "state.json").write_text(json.dumps({**SOUND_STATE, **edit}))
    with pytest.raises(ConfigError, match=f"state.json is not a run's state: {message}"):
        read_state(tmp_path)


def test_pruning_deletes_only_the_snapshots_the_pool_dropped_with_their_metadata(tmp_path):
    for name in ("step256", "step512", "step768"):
        snapshot(tmp_path, name)
    prune_snapshots(tmp_path, {"snapshots": [str(tmp_path / "snapshots" / "step512.zip"), "elsewhere/step768.zip"]})
    assert sorted(p.name for p in (tmp_path / "snapshots").iterdir()) == [
        "step512.json", "step512.zip", "step768.json", "step768.zip"]


def test_eval_csv_gets_its_header_when_it_exists_but_is_empty(tmp_path, capsys):
    (tmp_path / "eval.csv").write_text("")
    result = {"win_rate": 0.5, "win_rate_ci95": [0.2, 0.8], "hero_mean_score_ci95": [3.0, 2.0, 4.0], "unfinished": 0}
    tags = []
    write_eval(tmp_path, 512, {"random": result}, lambda tag, value: tags.append((tag, value)))
    lines = (tmp_path / "eval.csv").read_text().splitlines()
    assert lines[0].startswith("timesteps,opponent,win_rate") and lines[1].startswith("512,random,0.5")
    assert tags == [("eval/win_rate_vs_random", 0.5)]
    assert "[512 steps] vs random: 0.500" in capsys.readouterr().out  # the progress line


def test_a_checkpoints_metadata_adds_up_its_lineage_and_names_its_recipe_and_stage():
    config = load_config("quickstart")
    lineage = [{"checkpoint": "stage1/final.zip", "timesteps": 512, "wall_time_s": 10.25},
               {"checkpoint": "stage2/final.zip", "timesteps": 256, "wall_time_s": 5.0}]
    recipe = {"config": "a.yaml", "overrides": ["seed=3"], "stage": "stage3"}
    state = {"started": time.time() - 2.0, "wall_time_before": 1.0, "lineage": lineage, "recipe": recipe}
    meta = checkpoint_metadata(config, 1000, state, {"random": {"win_rate": 0.5}})
    assert (meta["timesteps"], meta["lineage_timesteps"], meta["lineage"]) == (1000, 1000 + 512 + 256, lineage)
    assert 3.0 <= meta["wall_time_s"] < 60 and meta["lineage_wall_time_s"] == round(meta["wall_time_s"] + 15.25, 1)
    assert (meta["recipe"], meta["recipe_overrides"], meta["stage"]) == ("a.yaml", ["seed=3"], "stage3")
    assert meta["evaluation"] == {"random": {"win_rate": 0.5}} and meta["config"] == config
    plain = checkpoint_metadata(config, 0, {"started": time.time()})
    assert (plain["lineage"], plain["lineage_timesteps"], plain["evaluation"]) == ([], 0, {})
    assert not {"recipe", "recipe_overrides", "stage"} & plain.keys()


def test_a_lineage_entry_names_a_stage_of_the_same_recipe_by_its_place_in_the_recipes_folder(tmp_path):
    stage1 = tmp_path / "recipe" / "stage1" / "final.zip"
    meta = {"timesteps": 512, "wall_time_s": 3.0, "recipe": "r.yaml", "stage": "stage1", "seed": 1}
    entry = lineage_entry(stage1, meta, tmp_path / "recipe" / "stage2", recipe={"stage": "stage2"})
    assert entry == {"checkpoint": "stage1/final.zip", "recipe": "r.yaml", "stage": "stage1", "timesteps": 512, "wall_time_s": 3.0}
    alone = lineage_entry(stage1, {"timesteps": 512, "wall_time_s": 3.0}, tmp_path / "recipe" / "stage2")
    assert alone == {"checkpoint": str(stage1), "timesteps": 512, "wall_time_s": 3.0}


# --- resumed seeds and stop signals ---------------------------------------------------------------------
def test_a_resumed_run_draws_a_new_seed_from_its_seed_and_count_and_a_fresh_one_keeps_its_own():
    assert resumed_seed(7, 0) == 7
    drawn = {resumed_seed(7, steps) for steps in (1, 256, 512)}
    assert len(drawn) == 3 and 7 not in drawn
    assert resumed_seed(7, 256) == resumed_seed(7, 256) != resumed_seed(8, 256)


def test_a_stop_signals_entered_inside_another_takes_over_its_signal_and_hands_its_own_back():
    before = signal.getsignal(signal.SIGINT)
    with StopSignals() as outer:
        signal.raise_signal(signal.SIGTERM)  # noted by the outer one (a recipe, between stages)
        with StopSignals() as inner:  # a stage
            assert inner.signum == signal.SIGTERM
        assert signal.getsignal(signal.SIGINT) == outer._handle
        outer.signum = None
        with StopSignals() as inner:
            assert inner.signum is None
            signal.raise_signal(signal.SIGINT)  # noted by the stage: the recipe must learn of it
            assert outer.signum is None
        assert outer.signum == signal.SIGINT
    assert signal.getsignal(signal.SIGINT) is before
