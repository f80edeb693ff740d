"""Recipes (issue 19, "Reproducible recipes"): a config with `stages:` runs every stage by one `snack-train`,
each from the last one's final weights, into one run folder; it resumes where it stopped, is checked whole on
load, and its checkpoints' lineage names the recipe and its stages, never a temporary path."""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import shutil
import signal
import threading
import zipfile
from pathlib import Path

import pytest

from snack_envs.core.game import ConfigError
from snack_envs.training.config import CONFIG_DIR, load_config, recipe_name, stage_configs
from snack_envs.training.run import TrainingInterrupted

torch = pytest.importorskip("torch")
torch.set_num_threads(1)
ROOT = Path(__file__).resolve().parents[2]

# Two tiny stages on the batched engine: 8 envs x 32 steps = 256 learner steps an update, 300 asked -> 512 each.
# Stage 2 learns nothing (learning rate 0), so its final weights are the ones it started from; the top-level
# imitation is stage 1's only (a later stage clones the heuristic only where it sets imitation.games).
TINY_RECIPE = """\
extends: quickstart
timesteps: 300
n_envs: 8
algo: {n_steps: 32, batch_size: 64, n_epochs: 1, net_arch: [16]}
eval: {every: 256, games: 2, final_games: 2}
opponents: {snapshot_every: 256, max_snapshots: 2}
imitation: {games: 2, epochs: 1}
stages:
  - {}
  - algo: {learning_rate: 0.0}
"""
STAGE_STEPS = 512


def files(run: Path) -> dict[str, str]:
    """Every file of a run by relative path, with a digest of its bytes and its mtime."""
    return {str(p.relative_to(run)): f"{hashlib.sha256(p.read_bytes()).hexdigest()} {p.stat().st_mtime_ns}"
            for p in sorted(run.rglob("*")) if p.is_file()}


def weights(path: Path) -> dict:
    return torch.load(io.BytesIO(zipfile.ZipFile(path).read("policy.pth")), map_location="cpu")


def same_weights(a: Path, b: Path) -> bool:
    wa, wb = weights(a), weights(b)
    return wa.keys() == wb.keys() and all(torch.equal(wa[k], wb[k]) for k in wa)


def read(path: Path) -> dict:
    return json.loads(path.read_text())


def snack_train(*argv: str) -> None:
    from snack_envs.training import train

    train.main(list(argv))


@pytest.fixture(scope="module")
def recipe_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("recipe") / "tiny.yaml"
    path.write_text(TINY_RECIPE)
    return path


@pytest.fixture(scope="module")
def finished_recipe(recipe_file, tmp_path_factory) -> Path:
    """The tiny recipe trained to its end by `snack-train --config tiny.yaml --run-dir ...`, in its folder."""
    run = tmp_path_factory.mktemp("finished") / "run"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(recipe_file.parent)
        snack_train("--config", recipe_file.name, "--run-dir", str(run))
    return run


def test_a_two_stage_recipe_runs_each_stage_from_the_last_ones_weights_and_names_its_lineage(finished_recipe, recipe_file):
    run = finished_recipe
    assert {p.name for p in run.iterdir()} >= {"config.json", "recipe.json", "stage1", "stage2", "final.zip", "final.json"}
    for stage in ("stage1", "stage2"):  # each an ordinary run folder
        assert {"config.json", "state.json", "latest.zip", "eval.csv", "final.zip", "final.json"} <= {p.name for p in (run / stage).iterdir()}
    first, second, final = read(run / "stage1" / "final.json"), read(run / "stage2" / "final.json"), read(run / "final.json")

    # stage 2 started from stage 1's final weights (and, learning nothing, ended with them), without cloning again
    assert read(run / "stage2" / "config.json")["init_from"] == str(run / "stage1" / "final.zip")
    assert same_weights(run / "stage1" / "final.zip", run / "stage2" / "final.zip")
    assert first["imitation"]["games"] == 2 and second["imitation"] is None
    # the recipe's final checkpoint is stage 2's, byte for byte
    assert (run / "final.zip").read_bytes() == (run / "stage2" / "final.zip").read_bytes() and final == second

    # the lineage names the recipe and its stages, with no path in a temporary folder
    name = "tiny.yaml"  # a config of one's own: by its path as given (a shipped one: configs/<name>.yaml)
    assert (first["recipe"], first["stage"], first["lineage"]) == (name, 1, [])
    assert (final["recipe"], final["stage"], final["timesteps"]) == (name, 2, STAGE_STEPS)
    assert final["lineage"] == [{"checkpoint": "stage1/final.zip", "recipe": name, "stage": 1,
                                 "timesteps": first["timesteps"], "wall_time_s": first["wall_time_s"]}]
    assert final["lineage_timesteps"] == first["timesteps"] + second["timesteps"] == 2 * STAGE_STEPS
    assert final["lineage_wall_time_s"] == pytest.approx(first["wall_time_s"] + second["wall_time_s"], abs=0.11)
    assert str(run) not in json.dumps(final["lineage"]) and "/tmp" not in json.dumps(final["lineage"])
    assert read(run / "recipe.json") == {"recipe": name, "overrides": [], "stages": 2}


def test_resuming_a_finished_recipe_changes_nothing(finished_recipe, tmp_path, capsys):
    run = tmp_path / "run"
    shutil.copytree(finished_recipe, run)
    before = files(run)
    snack_train("--resume", str(run))
    out = capsys.readouterr().out
    assert "stage 1/2 is finished" in out and "stage 2/2 is finished" in out and f"{run} is finished" in out
    assert files(run) == before


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals need the main thread")
def test_an_interrupted_recipe_resumes_where_it_stopped_to_the_same_end(finished_recipe, recipe_file, tmp_path, monkeypatch, capsys):
    from snack_envs.training.backends import sb3

    run = tmp_path / "run"
    monkeypatch.chdir(recipe_file.parent)
    learning_curve, evaluate_model = sb3.learning_curve, sb3.evaluate_model

    def curve_then_signal(run_dir):  # SIGINT as stage 1 ends, after its final checkpoint: between the stages
        if run_dir.name == "stage1":
            os.kill(os.getpid(), signal.SIGINT)
        return learning_curve(run_dir)

    monkeypatch.setattr(sb3, "learning_curve", curve_then_signal)
    with pytest.raises(TrainingInterrupted) as stopped:
        snack_train("--config", recipe_file.name, "--run-dir", str(run))
    assert stopped.value.code == 130
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"SIGINT: stopped after stage 1 of 2; resume with: snack-train --resume {run}")
    assert (run / "stage1" / "final.zip").is_file() and not (run / "stage2").exists()
    monkeypatch.setattr(sb3, "learning_curve", learning_curve)

    signalled = []

    def evaluate_then_signal(model, config, games, seed):  # SIGINT in stage 2's first (periodic) evaluation
        if config.get("init_from") and not signalled:
            signalled.append(model.num_timesteps)
            os.kill(os.getpid(), signal.SIGINT)
        return evaluate_model(model, config, games, seed)

    monkeypatch.setattr(sb3, "evaluate_model", evaluate_then_signal)
    with pytest.raises(TrainingInterrupted) as stopped:
        snack_train("--resume", str(run))
    assert stopped.value.code == 130
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"SIGINT: stopped at 256 timesteps; saved {run / 'stage2' / 'latest.zip'} and state.json; "
        f"resume with: snack-train --resume {run}")  # the recipe's folder, not the stage's
    assert (run / "stage1" / "final.zip").is_file() and not (run / "stage2" / "final.zip").exists()
    assert read(run / "stage2" / "state.json")["timesteps"] == 256 and not (run / "final.zip").exists()
    stage1 = {k: v for k, v in files(run).items() if k.startswith("stage1/")}

    snack_train("--resume", str(run))  # stage 1 skipped, stage 2 resumed
    assert {k: v for k, v in files(run).items() if k.startswith("stage1/")} == stage1
    final, uninterrupted = read(run / "final.json"), read(finished_recipe / "final.json")
    assert final["timesteps"] == uninterrupted["timesteps"] == STAGE_STEPS
    assert final["lineage_timesteps"] == uninterrupted["lineage_timesteps"] == 2 * STAGE_STEPS
    assert [{k: e[k] for k in ("checkpoint", "recipe", "stage", "timesteps")} for e in final["lineage"]] == \
        [{k: e[k] for k in ("checkpoint", "recipe", "stage", "timesteps")} for e in uninterrupted["lineage"]]
    assert (run / "final.zip").read_bytes() == (run / "stage2" / "final.zip").read_bytes()
    assert [int(line.split(",")[0]) for line in (run / "stage2" / "eval.csv").read_text().splitlines()[1:]] == [256, 256]


# A recipe as a tree: stage 3 branches from stage 1's weights at 300 timesteps (its first update at or past
# them: 512), stage 4 averages stages 3 and 2, stage 5 (learning nothing) goes on from the average.
SMALL_STAGES = """\
extends: quickstart
timesteps: 600
n_envs: 8
algo: {n_steps: 32, batch_size: 64, n_epochs: 1, net_arch: [16]}
eval: {every: 256, games: 2, final_games: 2}
opponents: {snapshot_every: 256, max_snapshots: 2}
imitation: {games: 0}
stages:
  - {}
"""
TREE_RECIPE = SMALL_STAGES + """\
  - {timesteps: 300}
  - {timesteps: 300, start: {stage: 1, timesteps: 300}}
  - {average: [3, 2]}
  - {timesteps: 300, algo: {learning_rate: 0.0}}
"""


def trained_recipe(tmp_path_factory, name: str, text: str) -> Path:
    """The recipe `text` trained to its end by `snack-train --config <name>.yaml`, from its folder; the run."""
    folder = tmp_path_factory.mktemp(name)
    (folder / f"{name}.yaml").write_text(text)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        snack_train("--config", f"{name}.yaml", "--run-dir", str(folder / "run"))
    return folder / "run"


@pytest.fixture(scope="module")
def tree_recipe(tmp_path_factory) -> Path:
    return trained_recipe(tmp_path_factory, "tree", TREE_RECIPE)


def test_a_recipe_branches_from_a_stages_kept_weights_and_averages_stages(tree_recipe, tmp_path, capsys):
    run = tree_recipe
    meta = {k: read(run / f"stage{k}" / "final.json") for k in (1, 2, 3, 4, 5)}
    assert [meta[k]["timesteps"] for k in (1, 2, 3, 4, 5)] == [768, 512, 512, 0, 512]

    # stage 1 kept its weights at 512 timesteps, because stage 3 starts from them; stage 2 from stage 1's final
    assert read(run / "stage1" / "config.json")["keep_at"] == [300] and "keep_at" not in read(run / "stage2" / "config.json")
    assert [p.name for p in (run / "stage1" / "keep").glob("*.zip")] == ["step512.zip"]
    assert read(run / "stage1" / "keep" / "step512.json")["timesteps"] == 512
    assert read(run / "stage2" / "config.json")["init_from"] == str(run / "stage1" / "final.zip")
    assert read(run / "stage3" / "config.json")["init_from"] == str(run / "stage1" / "keep" / "step512.zip")
    assert read(run / "stage3" / "final.json")["lineage"][-1]["checkpoint"] == "stage1/keep/step512.zip"

    # stage 4: the mean of stages 2 and 3's final weights, evaluated, trained for no timesteps of its own
    two, three, four = (weights(run / f"stage{k}" / "final.zip") for k in (2, 3, 4))
    assert not all(torch.equal(two[k], three[k]) for k in two)
    assert all(torch.allclose(four[k], (two[k].double() + three[k].double()).div(2).to(four[k].dtype)) for k in four)
    assert [e["checkpoint"] for e in meta[4]["averaged_from"]] == ["stage3/final.zip", "stage2/final.zip"]
    assert set(meta[4]["evaluation"]) == {"random", "heuristic"}
    # its lineage joins theirs, each stage once, in order, stage 1 whole (not as the branch saw it, at 512)
    assert [(e["stage"], e["timesteps"]) for e in meta[4]["lineage"]] == [(1, 768), (2, 512), (3, 512)]
    assert meta[4]["lineage_timesteps"] == 768 + 512 + 512

    # stage 5 goes on from the average (learning nothing: its weights); the recipe's end is stage 5's
    assert read(run / "stage5" / "config.json")["init_from"] == str(run / "stage4" / "final.zip")
    assert same_weights(run / "stage4" / "final.zip", run / "stage5" / "final.zip")
    assert [(e["stage"], e["timesteps"]) for e in meta[5]["lineage"]] == [(1, 768), (2, 512), (3, 512), (4, 0)]
    assert read(run / "final.json")["lineage_timesteps"] == 768 + 3 * 512

    copy = tmp_path / "run"  # resumed when finished: nothing is redone or rewritten, the average included
    shutil.copytree(run, copy)
    before = files(copy)
    snack_train("--resume", str(copy))
    assert "stage 4/5 is finished: the average of stages [3, 2]" in capsys.readouterr().out and files(copy) == before


def unfinished_copy(run: Path, tmp_path: Path, *stages: int) -> Path:
    """A copy of the finished recipe `run` without those stages' folders and its final checkpoint."""
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    for k in stages:
        shutil.rmtree(copy / f"stage{k}")
    (copy / "final.zip").unlink(), (copy / "final.json").unlink()
    return copy


def resume_stopped_by_sigint(run: Path, capsys) -> str:
    """Resume `run`, which a patched step stops with SIGINT: it exits with status 130; its last line on stderr."""
    with pytest.raises(TrainingInterrupted) as stopped:
        snack_train("--resume", str(run))
    assert stopped.value.code == 130
    return capsys.readouterr().err.strip().splitlines()[-1]


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals need the main thread")
def test_a_signal_while_an_average_is_evaluated_saves_none_of_it_and_resuming_makes_it(tree_recipe, tmp_path, monkeypatch, capsys):
    from snack_envs.training import recipe

    run = unfinished_copy(tree_recipe, tmp_path, 4, 5)
    evaluate_final = recipe.evaluate_final

    def signal_then_evaluate(hero, config, stop, stopped_line):
        if "an average" in stopped_line:
            os.kill(os.getpid(), signal.SIGINT)
        return evaluate_final(hero, config, stop, stopped_line)

    monkeypatch.setattr(recipe, "evaluate_final", signal_then_evaluate)
    assert resume_stopped_by_sigint(run, capsys) == (
        f"SIGINT: stopped while evaluating stage 4 (an average; nothing of it is saved); resume with: snack-train --resume {run}")
    assert not (run / "stage4" / "final.zip").exists() and not (run / "stage4" / "final.json").exists()
    monkeypatch.setattr(recipe, "evaluate_final", evaluate_final)
    snack_train("--resume", str(run))
    assert same_weights(run / "stage4" / "final.zip", tree_recipe / "stage4" / "final.zip")
    assert read(run / "final.json")["lineage_timesteps"] == read(tree_recipe / "final.json")["lineage_timesteps"]


# A recipe that picks: stage 1 trains 768 steps (3 updates of 256) and keeps its weights at 256 and 512, because
# stage 2 picks among those and its final weights the one that does best against the random bot.
SELECT_RECIPE = SMALL_STAGES + """\
  - {select: {stage: 1, at: [200, 512], against: random, players: [2], games: 6, seeds: [3, 4]}}
"""


# Stage 2 clones the heuristic into stage 1's weights before its PPO.
IMITATING_RECIPE = SMALL_STAGES + """\
  - {timesteps: 300, imitation: {games: 3, epochs: 1}}
"""


@pytest.fixture(scope="module")
def imitating_recipe(tmp_path_factory) -> Path:
    return trained_recipe(tmp_path_factory, "imitating", IMITATING_RECIPE)


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals need the main thread")
def test_a_stage_stopped_in_its_imitation_takes_it_up_when_the_recipe_resumes(imitating_recipe, tmp_path, monkeypatch, capsys):
    """SIGINT in stage 2's imitation (its second game of three, one game a saved part here): the recipe stops
    with a line naming the parts kept and the recipe's resume; resuming plays the two games not saved and
    ends with the weights of the recipe never stopped."""
    from snack_envs.training import imitate

    run = unfinished_copy(imitating_recipe, tmp_path, 2)
    monkeypatch.setattr(imitate, "PART_GAMES", 1)
    collect, seeds, stop_at = imitate.collect, [], [2]

    def collect_then_stop(env, config, games, seed, student=None):
        seeds.append(seed)
        if len(seeds) in stop_at:
            os.kill(os.getpid(), signal.SIGINT)
        return collect(env, config, games, seed, student)

    monkeypatch.setattr(imitate, "collect", collect_then_stop)
    assert resume_stopped_by_sigint(run, capsys) == (f"SIGINT: stopped in the imitation: its finished parts are kept in "
                                                     f"{run / 'stage2' / 'imitation'}; resume with: snack-train --resume {run}")
    assert sorted(p.name for p in (run / "stage2" / "imitation").glob("*.npz")) == ["clone-2p-0.npz"]
    seeds.clear(), stop_at.clear()
    snack_train("--resume", str(run))
    assert "stage 2/2: resuming" in capsys.readouterr().out
    assert len(seeds) == 2
    assert same_weights(run / "final.zip", imitating_recipe / "final.zip")


@pytest.fixture(scope="module")
def select_recipe(tmp_path_factory) -> Path:
    return trained_recipe(tmp_path_factory, "select", SELECT_RECIPE)


def test_a_select_stage_picks_the_checkpoint_that_does_best_in_its_matches(select_recipe, tmp_path, monkeypatch, capsys):
    from snack_envs.training import arena

    run = select_recipe
    assert read(run / "stage1" / "config.json")["keep_at"] == [200, 512]
    assert sorted(p.name for p in (run / "stage1" / "keep").glob("*.zip")) == ["step256.zip", "step512.zip"]
    meta = read(run / "stage2" / "final.json")
    names = ["stage1/keep/step256.zip", "stage1/keep/step512.zip", "stage1/final.zip"]
    assert [e["checkpoint"] for e in meta["selected_from"]] == names
    assert [e["timesteps"] for e in meta["selected_from"]] == [256, 512, 768]
    for entry in meta["selected_from"]:  # 6 games against random at 2 players on each seed; their mean
        assert set(entry["win_shares"]) == {"3@2p", "4@2p"}
        assert entry["win_share"] == pytest.approx(sum(entry["win_shares"].values()) / 2)
    shares = [e["win_share"] for e in meta["selected_from"]]
    assert meta["selected"] == names[shares.index(max(shares))]  # the first best
    assert same_weights(run / "stage2" / "final.zip", run / meta["selected"])
    assert meta["timesteps"] == 0 and meta["player_counts"] == [2] and set(meta["evaluation"]) == {"random", "heuristic"}
    assert meta["lineage"][-1]["checkpoint"] == meta["selected"]
    assert (run / "final.zip").read_bytes() == (run / "stage2" / "final.zip").read_bytes()

    # Matches rigged for the checkpoint at 512 steps: it is picked; a tie goes to the earlier one.
    def rigged(env_name, n, hero, other, games, seed, **options):
        assert (n, other, games) == (2, "random", 6)
        return {"win_rate": {"step256.zip": 0.5, "step512.zip": 0.75, "final.zip": 0.75}[Path(hero).name]}

    monkeypatch.setattr(arena, "match", rigged)
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    shutil.rmtree(copy / "stage2")
    snack_train("--resume", str(copy))
    rerun = read(copy / "stage2" / "final.json")
    assert [e["win_share"] for e in rerun["selected_from"]] == [0.5, 0.75, 0.75]
    assert rerun["selected"] == "stage1/keep/step512.zip" and rerun["lineage"][-1]["timesteps"] == 512
    assert same_weights(copy / "stage2" / "final.zip", run / "stage1" / "keep" / "step512.zip")
    assert same_weights(copy / "final.zip", run / "stage1" / "keep" / "step512.zip")

    before = files(copy)  # resumed when finished: the pick is not made again
    capsys.readouterr()
    snack_train("--resume", str(copy))
    assert "stage 2/2 is finished: a checkpoint of stage 1 picked" in capsys.readouterr().out and files(copy) == before


@pytest.mark.parametrize("stage", ["stage1", "stage2"])  # a stage that trains; one that picks
def test_a_stage_whose_final_metadata_is_not_json_stops_a_resume_with_one_line(select_recipe, tmp_path, capsys, stage):
    run = tmp_path / "run"
    shutil.copytree(select_recipe, run)
    (run / stage / "final.json").write_text('{"timesteps": 0,\n')
    before = files(run)
    capsys.readouterr()
    with pytest.raises(SystemExit) as exit_:
        snack_train("--resume", str(run))
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "Traceback" not in err
    assert f"{run / stage / 'final.json'}, line 2: not valid JSON" in err and files(run) == before


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(), reason="signals need the main thread")
def test_a_signal_while_a_select_stage_plays_its_matches_saves_none_of_it(select_recipe, tmp_path, monkeypatch, capsys):
    from snack_envs.training import arena

    run = unfinished_copy(select_recipe, tmp_path, 2)
    match = arena.match

    def signal_then_match(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGINT)
        return match(*args, **kwargs)

    monkeypatch.setattr(arena, "match", signal_then_match)
    assert resume_stopped_by_sigint(run, capsys) == (
        f"SIGINT: stopped while selecting stage 2 (nothing of it is saved); resume with: snack-train --resume {run}")
    assert not (run / "stage2").exists()


def test_a_run_keeps_a_checkpoint_at_each_keep_at_its_first_update_at_or_past_it(recipe_file, tmp_path, capsys):
    run = tmp_path / "run"  # updates of 256 steps; the run ends at 512, so 500 is kept at its end
    snack_train("--config", str(recipe_file), "--set", "stages=null", "--set", "keep_at=[100, 256, 500]",
                "--run-dir", str(run))
    kept = {p.name: read(p.with_suffix(".json"))["timesteps"] for p in (run / "keep").glob("*.zip")}
    assert kept == {"step256.zip": 256, "step512.zip": 512}
    assert same_weights(run / "keep" / "step512.zip", run / "final.zip")
    with pytest.raises(SystemExit) as exit_:
        snack_train("--config", str(recipe_file), "--set", "stages=null", "--set", "keep_at=[100]",
                    "--run-dir", str(tmp_path / "other"), "--backend", "rllib")
    assert exit_.value.code == 2 and "keep_at=[100]: the rllib backend keeps no checkpoints" in capsys.readouterr().err


@pytest.mark.parametrize("stage, error", [
    ("2", "stages[1] (stage 2): start.stage=2 must be an earlier stage (1 to 1)"),
    ("1, timesteps: 600", "stages[1] (stage 2): start.timesteps=600 must be below stage 1's timesteps (600)"),
])
def test_a_branch_names_an_earlier_stage_and_a_step_within_it(tmp_path, stage, error):
    bad = tmp_path / "bad.yaml"
    bad.write_text(TREE_RECIPE.replace("  - {timesteps: 300}\n", f"  - {{timesteps: 300, start: {{stage: {stage}}}}}\n"))
    with pytest.raises(ConfigError, match=re.escape(error)):
        load_config(bad)


SELECT = "select: {stage: 3, at: [100], against: random, players: [2], games: 2, seeds: [0]}"


@pytest.mark.parametrize("change, error", [
    (("  - {}\n", "  - {start: {stage: 1}}\n"), "stages[0] (stage 1): start names earlier stages; stage 1 has none"),
    (("{average: [3, 2]}", "{average: [2]}"), "stages[3] (stage 4): average=[2] must name two or more distinct earlier stages"),
    (("{average: [3, 2]}", "{average: [2, 4]}"), "stages[3] (stage 4): average=[2, 4] must name two or more distinct earlier"),
    (("{average: [3, 2]}", "{average: [2, 3], timesteps: 5}"), "stages[3] (stage 4): a stage that averages weights trains "
                                                              "nothing, so it sets average alone, not ['timesteps']"),
    (("{average: [3, 2]}", "{average: [2, 3], start: {stage: 1}}"), "stages[3] (stage 4): start and average: a stage either"),
    (("{timesteps: 300, algo: {learning_rate: 0.0}}", "{start: {stage: 4, timesteps: 10}}"),
     "stages[4] (stage 5): start.timesteps: stage 4 trains nothing, so it has only its final weights"),
    (("{timesteps: 300, algo: {learning_rate: 0.0}}", "{start: {timesteps: 10}}"), "stages[4] (stage 5): start={'timesteps': 10} must name a stage"),
    (("{average: [3, 2]}", "{average: [2, 3], strat: 1}"), "unknown config key 'stages[3].strat' (did you mean 'stages[3].start'?)"),
    (("timesteps: 600\n", "timesteps: 600\nkeep_at: [0]\n"), "keep_at=[0] must be a non-empty list of positive integers"),
    # select (the stage's whole key: SELECT, then one change to it)
    (("{average: [3, 2]}", "{%s, timesteps: 5}" % SELECT), "stages[3] (stage 4): a stage that selects a checkpoint trains "
                                                        "nothing, so it sets select alone, not ['timesteps']"),
    (("{average: [3, 2]}", "{average: [2, 3], %s}" % SELECT), "stages[3] (stage 4): average and select: a stage either"),
    (("{average: [3, 2]}", "{select: {stage: 3, at: [100]}}"),
     "stages[3] (stage 4): select is missing ['against', 'players', 'games', 'seeds']"),
    (("{average: [3, 2]}", "{%s}" % SELECT.replace("stage: 3", "stage: 4")), "stages[3] (stage 4): select.stage=4 must be an "
                                                                           "earlier stage (1 to 3)"),
    (("{average: [3, 2]}", "{%s}" % SELECT.replace("[100]", "[100, 300]")), "stages[3] (stage 4): select.at=[100, 300]: each "
                                                                          "must be below stage 3's timesteps (300)"),
    (("{average: [3, 2]}", "{%s}" % SELECT.replace("random", "heuristc")), "stages[3] (stage 4): select.against='heuristc' is no "
                                                                         "policy (did you mean 'heuristic'?)"),
    (("{average: [3, 2]}", "{%s}" % SELECT.replace("[2]", "[2, 3]")), "stages[3] (stage 4): select.players=[2, 3]: stage 3 "
                                                                    "trains on [2] players only"),
    (("{average: [3, 2]}", "{%s}" % SELECT.replace("[2]", "[1]")), "stages[3] (stage 4): select.players=[1]: a pick plays "
                                                                 "matches against select.against, and solo (1 player) has no"),
    (("{average: [3, 2]}", "{%s}" % SELECT.replace("[0]", "[-1]")), "stages[3].select.seeds=[-1] must be a non-empty list of seeds"),
    (("{timesteps: 300, algo: {learning_rate: 0.0}}", "{%s}" % SELECT.replace("stage: 3", "stage: 4")),
     "stages[4] (stage 5): select.stage: stage 4 trains nothing, so it has only its final weights to pick from"),
])
def test_a_recipes_start_and_average_are_checked_on_load(tmp_path, change, error):
    bad = tmp_path / "bad.yaml"
    assert change[0] in TREE_RECIPE
    bad.write_text(TREE_RECIPE.replace(*change))
    with pytest.raises(ConfigError, match=re.escape(error)):
        load_config(bad)


def test_every_stage_is_checked_on_load_naming_it_and_nothing_is_written(recipe_file, tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text(TINY_RECIPE.replace("algo: {learning_rate: 0.0}", "algo: {lerning_rate: 0.0}"))
    with pytest.raises(ConfigError, match=re.escape("unknown config key 'stages[1].algo.lerning_rate' "
                                                    "(did you mean 'stages[1].algo.learning_rate'?)")):
        load_config(bad)
    bad.write_text(TINY_RECIPE.replace("algo: {learning_rate: 0.0}", "algo: {batch_size: 1000000}"))  # checked whole
    with pytest.raises(ConfigError, match=re.escape("stages[1] (stage 2): algo.batch_size must not exceed")):
        load_config(bad)
    bad.write_text(TINY_RECIPE.replace("- {}", "- {eval: {opponents: [heurstic]}}"))
    with pytest.raises(ConfigError, match=re.escape("stages[0] (stage 1): eval.opponents[0]='heurstic' is no policy")):
        load_config(bad)
    with pytest.raises(ConfigError, match=re.escape("stages[1] (stage 2): algo.net_arch=[8] is not stage 1's [16]")):
        load_config(recipe_file, ["stages[1].algo.net_arch=[8]"])
    with pytest.raises(ConfigError, match=re.escape("stages[1] (stage 2): init_from: a stage after the first starts from")):
        load_config(recipe_file, [f"stages[1].init_from={ROOT / 'checkpoints' / 'snack_rabbits_v0.zip'}"])
    with pytest.raises(ConfigError, match=re.escape("--set algo.learning_rate=0.1: stages[1] sets algo.learning_rate itself")):
        load_config(recipe_file, ["algo.learning_rate=0.1"])  # ambiguous: refused, not silently overridden
    with pytest.raises(ConfigError, match=re.escape("--set stages[2].seed=1: the config has 2 stages")):
        load_config(recipe_file, ["stages[2].seed=1"])

    bad.write_text(TINY_RECIPE.replace("algo: {learning_rate: 0.0}", "algo: {lerning_rate: 0.0}"))
    run = tmp_path / "run"
    with pytest.raises(SystemExit) as exit_:
        snack_train("--config", str(bad), "--run-dir", str(run))
    assert exit_.value.code == 2 and "stages[1].algo.lerning_rate" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        snack_train("--config", str(recipe_file), "--run-dir", str(run), "--backend", "rllib")
    assert exit_.value.code == 2 and "--backend rllib does not train a recipe" in capsys.readouterr().err
    assert not run.exists()


def test_stage_configs_merge_each_stage_over_the_rest(recipe_file):
    config = load_config(recipe_file, ["seed=7", "stages[1].timesteps=1e3"])
    first, second = stage_configs(config)
    assert "stages" not in first and (first["seed"], second["seed"]) == (7, 7)  # a shared --set reaches every stage
    assert (first["timesteps"], second["timesteps"]) == (300, 1000)  # a stage's own --set, that stage only
    assert (first["algo"]["learning_rate"], second["algo"]["learning_rate"]) == (3e-4, 0.0)
    assert (first["imitation"]["games"], second["imitation"]["games"]) == (2, 0)
    plain = load_config("quickstart")
    assert "stages" not in plain and stage_configs(plain) == [plain]  # a config without stages: one run, as before
    assert "stages" not in load_config(recipe_file, ["stages=null"])


def test_the_shipped_speed_snacks_config_is_its_checkpoints_four_stage_recipe():
    stages = stage_configs(load_config("speed_snacks"))
    assert [s["timesteps"] for s in stages] == [250_000, 1_300_000, 2_000_000, 2_000_000]
    assert [s["imitation"]["games"] for s in stages] == [3000, 0, 0, 0]
    assert [s["algo"]["learning_rate"] for s in stages] == [1e-4, 2e-4, 5e-5, 2e-5]
    assert [s["n_envs"] * s["algo"]["n_steps"] for s in stages] == [16 * 256, 16 * 512, 16 * 1024, 16 * 1024]
    shipped = read(ROOT / "checkpoints" / "speed_snacks_v1.json")
    assert (shipped["recipe"], shipped["stage"], len(shipped["lineage"])) == ("configs/speed_snacks.yaml", 4, 3)
    assert recipe_name("speed_snacks") == recipe_name(CONFIG_DIR / "speed_snacks.yaml") == "configs/speed_snacks.yaml"


@pytest.mark.parametrize("path", sorted((ROOT / "checkpoints").glob("*.json")), ids=lambda p: p.stem)
def test_a_shipped_checkpoint_is_the_last_stage_of_the_recipe_its_metadata_names(path):
    """`snack-train --config <recipe>` re-creates a shipped checkpoint: its metadata names the recipe in configs/
    and its stage, the last; the runs behind it (lineage) are the stages before, in order, each as long as the
    recipe's stage (a run stops at the first update at or past it; a stage a later one picks a checkpoint from
    may end at one of the timesteps it kept). An entry standing for several stages
    ("stages": [first, last]) is a chain the recipe re-creates but cannot match step for step (its config says why)."""
    shipped = read(path)
    assert shipped.get("recipe", "").startswith("configs/"), f"{path.name} names no recipe in configs/"
    recipe = load_config(ROOT / shipped["recipe"])
    stages = stage_configs(recipe)
    recipe_stages = recipe.get("stages") or [{}]  # a config without stages: one run, its checkpoint has no stage
    shipped_stage = shipped["stage"] if recipe.get("stages") else shipped.get("stage", 1)
    assert shipped_stage == len(stages), "the shipped checkpoint is not the recipe's last stage"
    runs = [*shipped["lineage"], {"stage": shipped_stage, "timesteps": shipped["timesteps"]}]
    picked_at = {s["select"]["stage"]: s["select"]["at"] for s in recipe_stages if s.get("select")}
    covered = []
    for run in runs:
        assert run.get("recipe", shipped["recipe"]) == shipped["recipe"], run
        first, last = run["stages"] if "stages" in run else [run["stage"]] * 2
        covered += range(first, last + 1)
        if first == last and any(recipe_stages[first - 1].get(key) for key in ("average", "select")):
            assert run["timesteps"] == 0, (first, run["timesteps"])  # an average or a pick trains nothing
        elif first == last:  # a stage ends at its timesteps, or, where a later stage picks from it, at one it kept
            stage = stages[first - 1]
            update = stage["n_envs"] * stage["algo"]["n_steps"]
            assert any(end <= run["timesteps"] < end + update for end in [*picked_at.get(first, []), stage["timesteps"]]), \
                (first, run["timesteps"], stage["timesteps"])
    assert covered == list(range(1, len(stages) + 1))


def test_a_checkpoint_in_the_repositorys_checkpoints_is_named_by_its_repository_path(tmp_path):
    from snack_envs.training.run import checkpoint_name

    assert checkpoint_name(ROOT / "checkpoints" / "snack_rabbits_v0.zip") == "checkpoints/snack_rabbits_v0.zip"
    assert checkpoint_name(tmp_path / "run" / "stage1" / "final.zip", tmp_path / "run") == "stage1/final.zip"
    elsewhere = tmp_path / "elsewhere.zip"
    assert checkpoint_name(elsewhere) == str(elsewhere)
